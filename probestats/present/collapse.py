"""Reports at real sizes: a long per-item table shown by the items that drive it, and repeated warnings counted.

A report of 10,000 items stays a report: beyond :data:`TABLE_LIMIT` items the per-item table shows
the items with the largest gaps in the direction of the average gap and the largest the other
way, one row summarizing the rest, and links the whole table, written beside the report as CSV
(:func:`items_csv`). Warnings of one kind are said once, counted, with a few examples
(:func:`grouped_warnings`). What is rendered grows with the items shown, not with the items or runs.
"""

from __future__ import annotations

import io

import polars as pl

__all__ = ["TABLE_LIMIT", "collapsed_rows", "items_csv", "neutral_cell", "grouped_warnings", "ITEMS_CSV"]

TABLE_LIMIT = 40  # items shown one per row; beyond, the items that drive the result and a summary of the rest
TOWARD_SHOWN = 20  # largest gaps in the direction of the average gap shown
AGAINST_SHOWN = 10  # largest gaps the other way shown
WARNING_EXAMPLES = 3  # examples of a warning said more often than this
ITEMS_CSV = "items.csv"  # the whole per-item table, beside the report


def collapsed_rows(rows: list[dict], average_gap: float, limit: int = TABLE_LIMIT) -> tuple[list[dict], dict | None]:
    """The rows of the per-item table to show, and the summary of the others (None when all are shown).

    Beyond ``limit`` rows: the :data:`TOWARD_SHOWN` largest gaps with the sign of the average gap
    (all gaps when it is 0), largest first, then the :data:`AGAINST_SHOWN` largest the other way;
    the rest is summarized by its count, unweighted mean of each column, range of gaps and of runs.

    >>> rows = [{"item": str(i), "mean_a": i / 10, "mean_b": 0.0, "gap": i / 10, "n_a": 5, "n_b": 5}
    ...         for i in range(-20, 80)]
    >>> shown, rest = collapsed_rows(rows, 3.0)
    >>> [r["item"] for r in shown][:3], [r["item"] for r in shown][-2:], len(shown)
    (['79', '78', '77'], ['-12', '-11'], 30)
    >>> rest["n"], rest["gap_low"], rest["gap_high"], rest["n_a"]
    (70, -1.0, 5.9, '5')
    """
    if len(rows) <= limit:
        return rows, None
    sign = -1.0 if average_gap < 0 else 1.0
    toward = sorted((r for r in rows if r["gap"] * sign > 0 or (average_gap == 0 and r["gap"] != 0)),
                    key=lambda r: -abs(r["gap"]))[:TOWARD_SHOWN]
    against = (sorted((r for r in rows if r["gap"] * sign < 0), key=lambda r: -abs(r["gap"]))[:AGAINST_SHOWN]
               if average_gap != 0 else [])
    shown_ids = {id(r) for r in toward + against}
    rest = [r for r in rows if id(r) not in shown_ids]
    if not rest:
        return toward + against, None
    summary = {"n": len(rest),
               "mean_a": sum(r["mean_a"] for r in rest) / len(rest),
               "mean_b": sum(r["mean_b"] for r in rest) / len(rest),
               "gap": sum(r["gap"] for r in rest) / len(rest),
               "gap_low": min(r["gap"] for r in rest), "gap_high": max(r["gap"] for r in rest),
               "n_a": _span([r["n_a"] for r in rest]), "n_b": _span([r["n_b"] for r in rest]),
               "n_toward": len(toward), "n_against": len(against)}
    return toward + against, summary


def _span(counts: list[int]) -> str:
    lo, hi = min(counts), max(counts)
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def neutral_cell(text: str) -> str:
    """A text cell a spreadsheet shows as text: one that starts as a formula would (``=``, ``+``,
    ``-``, ``@``, a tab or a carriage return) gets a leading apostrophe.

    >>> neutral_cell("=HYPERLINK(\\"x\\")"), neutral_cell("-1"), neutral_cell("item 7")
    ('\\'=HYPERLINK("x")', "'-1", 'item 7')
    """
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def items_csv(items: pl.DataFrame) -> bytes:
    """The whole per-item table as CSV (item, mean_a, mean_b, gap, runs_a, runs_b; numbers in full),
    item names neutralized for spreadsheets (:func:`neutral_cell`).

    >>> frame = pl.DataFrame({"item": ["=1+1", "b"], "mean_a": [1.5, 2.0], "mean_b": [1.0, 2.0],
    ...                       "gap": [0.5, 0.0], "n_a": [2, 2], "n_b": [2, 2]})
    >>> print(items_csv(frame).decode(), end="")
    item,mean_a,mean_b,gap,runs_a,runs_b
    '=1+1,1.5,1.0,0.5,2,2
    b,2.0,2.0,0.0,2,2
    """
    table = items.select(
        pl.col("item").cast(pl.String).map_elements(neutral_cell, return_dtype=pl.String).alias("item"),
        "mean_a", "mean_b", "gap", pl.col("n_a").alias("runs_a"), pl.col("n_b").alias("runs_b"))
    buffer = io.BytesIO()
    table.write_csv(buffer)
    return buffer.getvalue()


def grouped_warnings(problems, examples: int = WARNING_EXAMPLES) -> list[str]:
    """The warnings' messages, each kind (code) said once: a kind seen more than ``examples`` times
    is counted, with its first ``examples`` messages as examples, where its first message stood.

    >>> from probestats.errors import Problem
    >>> ps = [Problem("warning", "ceiling", f"cell {i} at the top") for i in range(5)]
    >>> grouped_warnings(ps + [Problem("warning", "x", "one")], examples=2)
    ['5 warnings of the kind ceiling, for example: cell 0 at the top; cell 1 at the top', 'one']
    """
    warnings = [p for p in problems if p.severity == "warning"]
    kinds: dict[str, list[str]] = {}
    for p in warnings:
        kinds.setdefault(p.code, []).append(p.message)
    out = []
    for p in warnings:
        messages = kinds[p.code]
        if len(messages) <= examples:
            out.append(p.message)
        elif messages[0] is p.message:
            out.append(f"{len(messages)} warnings of the kind {p.code}, for example: {'; '.join(messages[:examples])}")
    return out
