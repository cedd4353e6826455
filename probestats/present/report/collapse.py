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

from probestats.io.formulas import neutral_cell, neutral_frame
from probestats.present.words.fmt import MdSafe

__all__ = ["TABLE_LIMIT", "collapsed_rows", "items_csv", "neutral_cell", "grouped_warnings", "ITEMS_CSV",
           "MANY_ITEMS_CSV", "many_items_csv", "many_table_files", "PAIRS_CSV", "pairs_csv"]

TABLE_LIMIT = 40  # items shown one per row; beyond, the items that drive the result and a summary of the rest
TOWARD_SHOWN = 20  # largest gaps in the direction of the average gap shown
AGAINST_SHOWN = 10  # largest gaps the other way shown
WARNING_EXAMPLES = 3  # examples of a warning said more often than this
ITEMS_CSV = "items.csv"  # the whole per-item table, beside the report
MANY_ITEMS_CSV = "item_gaps.csv"  # many values: every item × value, its mean, runs, SD and gap against the reference
PAIRS_CSV = "pairs.csv"  # many values: every pair of values, its average gap, its sign-flip p and corrected p


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
        pl.col("item").cast(pl.String), "mean_a", "mean_b", "gap", pl.col("n_a").alias("runs_a"),
        pl.col("n_b").alias("runs_b"))
    buffer = io.BytesIO()
    neutral_frame(table).write_csv(buffer)
    return buffer.getvalue()


def many_items_csv(result) -> bytes:
    """Every item × value of a many-values result as CSV: the item's mean under the value, its runs and
    their SD, and its gap against the reference with the reference's runs (empty on the reference's
    own rows); numbers in full, item names neutralized for spreadsheets.

    >>> from probestats import analyze
    >>> rows = [{"item": i, "variant": v, "seed": s, "x": s + i * (v == "b") + 2 * (v == "c")}
    ...         for i in (1, 2) for v in "abc" for s in (1, 2)]
    >>> print(many_items_csv(analyze(rows, metric="x", reference="a").main).decode(), end="")
    item,value,mean,runs,sd,reference,gap,reference_runs
    1,a,1.5,2,0.7071067811865476,a,,
    1,b,2.5,2,0.7071067811865476,a,1.0,2
    1,c,3.5,2,0.7071067811865476,a,2.0,2
    2,a,1.5,2,0.7071067811865476,a,,
    2,b,3.5,2,0.7071067811865476,a,2.0,2
    2,c,3.5,2,0.7071067811865476,a,2.0,2
    """
    gaps = {(g["item"], g["value"]): g for g in result.item_gaps()}
    rows = []
    for r in result.items.iter_rows(named=True):
        item = str(r["item"])
        g = gaps.get((item, r["value"]))
        rows.append({"item": item, "value": str(r["value"]), "mean": r["mean"],
                     "runs": int(r["runs"]), "sd": r.get("sd"), "reference": str(result.reference),
                     "gap": None if g is None else g["gap"], "reference_runs": None if g is None else g["reference_runs"]})
    schema = {"item": pl.String, "value": pl.String, "mean": pl.Float64, "runs": pl.Int64, "sd": pl.Float64,
              "reference": pl.String, "gap": pl.Float64, "reference_runs": pl.Int64}
    buffer = io.BytesIO()
    neutral_frame(pl.DataFrame(rows, schema=schema)).write_csv(buffer)
    return buffer.getvalue()


def pairs_csv(result) -> bytes:
    """Every pair of values of a many-values result as CSV: the two values, the average item gap (a − b),
    the exact sign-flip p, the corrected p and the method; numbers in full, names neutralized for spreadsheets.

    >>> from probestats import analyze
    >>> rows = [{"item": i, "variant": v, "x": i * (v == "b") + 2 * (v == "=c")} for i in (1, 2) for v in ("a", "b", "=c")]
    >>> print(pairs_csv(analyze(rows, metric="x", reference="a").main).decode().splitlines()[1])
    b,a,1.5,0.5,1.0,exact (enumeration of all 4 sign patterns)
    """
    rows = [{"a": str(g.a), "b": str(g.b), "average_gap": g.average_gap,
             "p": g.sign_flip.pvalue, "p_adjusted": g.p_adjusted, "method": g.sign_flip.method} for g in result.pairwise]
    schema = {"a": pl.String, "b": pl.String, "average_gap": pl.Float64, "p": pl.Float64, "p_adjusted": pl.Float64,
              "method": pl.String}
    buffer = io.BytesIO()
    neutral_frame(pl.DataFrame(rows, schema=schema)).write_csv(buffer)
    return buffer.getvalue()


def many_table_files(section: dict, result, format: str, assets_dir) -> dict[str, bytes]:
    """The whole tables of a many-values section that shows only some of their rows (the per-item table
    beyond 40 items, the pairwise table beyond 40 pairs): linked from the section (``item_gaps_csv``,
    ``pairwise_csv``), beside a Markdown report (returned, to be written in its folder) or inside an HTML
    page (a data link)."""
    files = {}
    for wanted, key, name, make in ((section.get("item_gaps_rest"), "item_gaps_csv", MANY_ITEMS_CSV, many_items_csv),
                                    (section.get("pairwise_note"), "pairwise_csv", PAIRS_CSV, pairs_csv)):
        if wanted:
            files.update(_beside(section, key, name, make(result), format, assets_dir))
    return files


def _beside(section: dict, key: str, name: str, content: bytes, format: str, assets_dir) -> dict[str, bytes]:
    """One whole table linked from ``section[key]``: a data link in HTML, a file beside a Markdown report."""
    import base64
    from pathlib import Path
    from urllib.parse import quote

    if format == "html":
        section[key] = "data:text/csv;charset=utf-8;base64," + base64.b64encode(content).decode("ascii")
        return {}
    if format != "md" or assets_dir is None:
        return {}
    section[key] = MdSafe(f"{quote(Path(assets_dir).name)}/{name}")
    return {name: content}


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
