"""The report's tables of Welch's t on the runs, per item (``per_item``) or per ``--by`` group.

Every item's (or group's) row-level test is a row: the means of its runs under the two values,
t, df, p and the p corrected across the table's tests, with the correction named above it.
Beyond :data:`~probestats.present.report.collapse.TABLE_LIMIT` rows, the table shows the rows with the
smallest corrected p (then raw p) and one row summing up the rest (how many, the range of their corrected p,
how many of them are at or below alpha), and links the whole table, written beside the report as
CSV (:func:`welch_csv`) as the per-item table is.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path
from urllib.parse import quote

import polars as pl

from probestats.io.formulas import neutral_frame
from probestats.present.report.collapse import TABLE_LIMIT
from probestats.present.words.correction import correction_name
from probestats.present.words.fmt import MdSafe, fmt_interval, fmt_p

__all__ = ["WELCH_CSV", "welch_context", "welch_csv", "welch_files"]

#: The whole table of each kind, beside the report.
WELCH_CSV = {"item": "welch_per_item.csv", "group": "welch_per_group.csv"}


def _key(key: dict) -> str:
    return ", ".join(str(v) for v in key.values()) if len(key) == 1 else ", ".join(f"{k} = {v}" for k, v in key.items())


def _rows(tests) -> list[dict]:
    return [{"key": _key(t.key), "mean_a": t.mean_a, "mean_b": t.mean_b,
             "gap": None if t.mean_a is None or t.mean_b is None else t.mean_a - t.mean_b,
             "t": t.test.statistic, "df": t.test.df, "p": t.test.pvalue, "p_adjusted": t.p_adjusted,
             "runs": t.test.n, "note": t.test.note,
             "interval": "" if getattr(t, "intervals", None) is None else fmt_interval(t.intervals[2])}
            for t in tests.tests]


def welch_context(analysis, limit: int = TABLE_LIMIT) -> list[dict]:
    """One table per kind of Welch test the analysis carries (``analysis.row_tests``).

    Examples
    --------
    >>> from probestats.analyses.dispatch import analyze_shaped
    >>> from probestats.analyses.question import Question, Run
    >>> from probestats.analyses.rowlevel import with_row_tests
    >>> rows = [{"item": i, "variant": v, "seed": s, "x": s + (v == "a") * i}
    ...         for i in range(3) for v in "ab" for s in (1, 2, 4)]
    >>> res = with_row_tests(analyze_shaped(rows, Question("x"), run=Run(mdg=False, within_noise=False)), per_item=True)
    >>> table = welch_context(res)[0]
    >>> table["unit"], table["correction"], [r["key"] for r in table["rows"]], table["rest"]
    ('item', 'Holm', ['0', '1', '2'], None)
    """
    alpha = analysis.alpha
    out = []
    for tests in getattr(analysis, "row_tests", ()):
        rows = _rows(tests)
        rest = None
        if len(rows) > limit:
            ordered = sorted(rows, key=lambda r: (r["p_adjusted"] is None, r["p_adjusted"] or 0.0,
                                                   1.0 if r["p"] is None else r["p"], r["key"]))
            rows, others = ordered[:limit], ordered[limit:]
            defined = [r["p_adjusted"] for r in others if r["p_adjusted"] is not None]
            rest = {"n": len(others), "p_low": min(defined, default=None), "p_high": max(defined, default=None),
                    "below": sum(p <= alpha for p in defined), "undefined": len(others) - len(defined)}
        unit = "item" if tests.unit == "item" else ", ".join(tests.tests[0].key) if tests.tests else "group"
        correction = correction_name(tests.correction)
        sentences = [f"Welch's t per {'item' if tests.unit == 'item' else 'group'} on its runs "
                     f"({len(tests.tests)} tests, p corrected across them: {correction}); {tests.note}."]
        detected = [r for r in _rows(tests) if r["p_adjusted"] is not None and r["p_adjusted"] <= alpha]
        sentences.append(f"{len(detected)} of the {len(tests.tests)} have a corrected p at or below alpha {alpha:g}"
                         + (": " + "; ".join(f"{r['key']} (corrected p = {fmt_p(r['p_adjusted'], alpha)})"
                                            for r in sorted(detected, key=lambda r: r["p_adjusted"])[:5])
                            + ("; ..." if len(detected) > 5 else "") if detected else "") + ".")
        if rest is not None:
            sentences.append(f"The table shows the {limit} with the smallest corrected p; one row sums up the other "
                             f"{rest['n']}.")
        out.append({"unit": tests.unit, "label": unit, "correction": correction, "note": tests.note,
                    "n_tests": len(tests.tests), "rows": rows, "rest": rest, "csv": None,
                    "file": WELCH_CSV.get(tests.unit, f"welch_per_{tests.unit}.csv"),
                    "method": f"scipy.stats.ttest_ind(equal_var=False) on the runs; {tests.tests[0].test.assumption}"
                    if tests.tests else "", "sentences": sentences})
    return out


def welch_csv(tests) -> bytes:
    """The whole table of one kind of Welch test as CSV (every row, numbers in full), keys neutralized
    for spreadsheets.

    >>> from probestats.analyses.rowlevel import RowTest, RowTests
    >>> from probestats.stats.published import welch_t
    >>> one = RowTest({"item": "=2"}, welch_t([4.0, 6.0, 2.0], [3.0, 1.0, 2.0]), 0.5, 4.0, 2.0)
    >>> head, row = welch_csv(RowTests("item", (one,), "holm", "")).decode().splitlines()
    >>> head
    'item,mean_a,mean_b,gap,t,df,p,p_adjusted,runs,correction,note'
    >>> row.split(",")[:4], row.split(",")[-3:]      # t = 2 / sqrt(4/3 + 1/3)
    (["'=2", '4.0', '2.0', '2.0'], ['6', 'holm', '""'])
    """
    keys = list(tests.tests[0].key) if tests.tests else ["item"]
    columns = {k: pl.Series(k, [str(t.key.get(k)) for t in tests.tests], dtype=pl.String) for k in keys}
    rows = _rows(tests)
    frame = pl.DataFrame({**columns,
                          **{c: pl.Series(c, [r[c] for r in rows], dtype=pl.Float64)
                             for c in ("mean_a", "mean_b", "gap", "t", "df", "p", "p_adjusted")},
                          "runs": pl.Series("runs", [r["runs"] for r in rows], dtype=pl.Int64),
                          "correction": [tests.correction] * len(rows), "note": [r["note"] for r in rows]})
    buffer = io.BytesIO()
    neutral_frame(frame).write_csv(buffer)
    return buffer.getvalue()


def welch_files(tables: list[dict], analysis, format: str, assets_dir) -> dict[str, bytes]:
    """The whole Welch tables that the report shows only in part: linked from each table (``csv``),
    beside a Markdown report (returned, to be written in its folder) or inside an HTML page."""
    files = {}
    for table, tests in zip(tables, getattr(analysis, "row_tests", ())):
        if table["rest"] is None or format not in ("md", "html"):
            continue
        content = welch_csv(tests)
        if format == "html":
            table["csv"] = "data:text/csv;charset=utf-8;base64," + base64.b64encode(content).decode("ascii")
        elif assets_dir is not None:
            table["csv"] = MdSafe(f"{quote(Path(assets_dir).name)}/{table['file']}")
            files[table["file"]] = content
    return files
