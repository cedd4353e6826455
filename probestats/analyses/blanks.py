"""Blank metrics by value: when one value's runs are blank far more often, the gap depends on how they are read.

A run whose metric cell is blank (an empty reply, a reply the scorer could not read) is left out of the
analysis. When the blanks fall on one value more than chance would put them there, leaving them out and
counting them as misses can give different answers. :func:`blank_readings` counts the blank runs of the
two compared values, tests whether they differ (Fisher's exact test on the 2 x 2 table of runs: blank or
not, under value A or value B; conditional on the margins, the runs exchangeable across the values under
the null hypothesis), and when they do, computes the gap both ways:

- **left out** (the headline): the analysis as it ran;
- **as misses**: every blank run counted as a miss, the lowest value the metric takes in the log (0 for
  a 0/1 metric), each item's mean over all its runs; the exact sign-flip test on those item gaps.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from probestats.stats.hypotests import TestResult, sign_flip_test

__all__ = ["BlankReadings", "blank_readings"]


@dataclass(frozen=True)
class BlankReadings:
    """The blank runs of two values, whether they differ beyond chance, and the gap read both ways.

    Attributes
    ----------
    a, b : str
    blank_a, runs_a, blank_b, runs_b : int
        Blank runs and all runs of each value, over the items compared.
    pvalue : float
        Fisher's exact test (two-sided) that blanks are as common under both values.
    method : str
    differ : bool
        That p is at most ``alpha``: the verdict shows both readings.
    miss_value : float or None
        The value a blank counts as in the "as misses" reading (the lowest value of the metric in the log).
    left_out_gap, left_out_p : float
        The headline's average gap and exact p (blanks left out).
    as_misses_gap : float or None
        The average item gap with every blank run counted as ``miss_value``.
    as_misses_test : TestResult or None
        The exact sign-flip test on those item gaps.
    statement : str
        The named caveat in one sentence (empty unless ``differ``).
    """

    a: str
    b: str
    blank_a: int
    runs_a: int
    blank_b: int
    runs_b: int
    pvalue: float
    method: str
    differ: bool
    miss_value: float | None
    left_out_gap: float
    left_out_p: float
    as_misses_gap: float | None
    as_misses_test: TestResult | None
    statement: str

    #: the name of the caveat this check adds to a verdict
    caveat_id = "blanks_by_value"

    @property
    def figures(self) -> dict:
        """The numbers behind ``statement`` (JSON-safe)."""
        return {"blank_a": self.blank_a, "runs_a": self.runs_a, "blank_b": self.blank_b, "runs_b": self.runs_b,
                "p": self.pvalue, "left_out_gap": self.left_out_gap, "as_misses_gap": self.as_misses_gap}

    def to_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "blank_a": self.blank_a, "runs_a": self.runs_a, "blank_b": self.blank_b,
                "runs_b": self.runs_b, "p": self.pvalue, "method": self.method, "differ": self.differ,
                "miss_value": self.miss_value, "left_out_gap": self.left_out_gap, "left_out_p": self.left_out_p,
                "as_misses_gap": self.as_misses_gap,
                "as_misses_test": None if self.as_misses_test is None else self.as_misses_test.to_dict()}


def _share(k: int, n: int) -> str:
    return f"{k} of {n} '{{}}' runs ({100 * k / n:.2g}%)" if n and k else f"{k} of {n} '{{}}' runs"


def blank_readings(checked, main, tests, *, pooled_blocks: bool = False) -> BlankReadings | None:
    """The blank runs of ``checked`` (a validated log with its cells, ``checked.pairs``) beside ``main``
    (the headline ``PairResult``); None when no run of the two values is blank or the cells are not known.

    Examples
    --------
    Four items; every item's first 'a' run is blank, no 'b' run is:

    >>> from probestats.checks.schema import validate
    >>> from probestats.analyses.paired import compare_pair, items_of
    >>> rows = [{"item": i, "variant": v, "seed": s, "x": None if (v == "a" and s < 2) else float(v == "a")}
    ...         for i in range(6) for v in ("a", "b") for s in range(4)]
    >>> checked = validate(rows, metric="x")
    >>> from probestats.vocabulary import Tests
    >>> r = blank_readings(checked, compare_pair(items_of(checked), "x", "a", "b"), Tests())
    >>> (r.blank_a, r.runs_a, r.blank_b, r.left_out_gap, r.as_misses_gap, r.differ)
    (12, 24, 0, 1.0, 0.5, True)
    """
    alpha, alternative = tests.alpha, tests.alternative
    cells = checked.pairs
    if cells is None or checked.metric is None or not {"n", "counted", "n_b", "counted_b"} <= set(cells.columns):
        return None
    runs_a, counted_a, runs_b, counted_b = (int(cells[c].sum()) for c in ("n", "counted", "n_b", "counted_b"))
    blank_a, blank_b = runs_a - counted_a, runs_b - counted_b
    if not (blank_a or blank_b):
        return None
    from scipy.stats import fisher_exact   # only a log with blanks needs it

    p = float(fisher_exact([[blank_a, counted_a], [blank_b, counted_b]]).pvalue)
    differ = p <= alpha
    values = checked.frame[checked.metric].drop_nulls()
    miss = float(values.min()) if values.len() else None
    gap = test = None
    if differ and miss is not None:
        per = (cells.with_columns(
            (pl.col("mean").fill_null(0.0) * pl.col("counted") + miss * (pl.col("n") - pl.col("counted"))).alias("__sa"),
            (pl.col("mean_b").fill_null(0.0) * pl.col("counted_b") + miss * (pl.col("n_b") - pl.col("counted_b"))).alias("__sb"))
            .group_by("item", maintain_order=True)
            .agg((pl.col("__sa").sum() / pl.col("n").sum()).alias("a"), (pl.col("__sb").sum() / pl.col("n_b").sum()).alias("b")))
        gaps = (per["a"] - per["b"]).to_list()
        gap = sum(gaps) / len(gaps)
        test = sign_flip_test(gaps, alternative=alternative)
    statement = ""
    if differ:
        counts = f"{_share(blank_a, runs_a).format(checked.a)} against {_share(blank_b, runs_b).format(checked.b)}"
        statement = (f"Blank {checked.metric} values are not as common under both values: {counts} (Fisher's exact "
                     f"test, {_p_text(p)}), so the gap depends on how they are read: left out (the headline), "
                     f"{main.average_gap:+.4g} ({_p_text(main.headline_test.pvalue)})")
        if test is not None:
            statement += (f"; counted as misses ({checked.metric} = {miss:g}"
                          + (", runs pooled within each item" if pooled_blocks else "")
                          + f"), {gap:+.4g} ({_p_text(test.pvalue)})")
        statement += ". Read the blank replies before trusting either."
    return BlankReadings(a=checked.a, b=checked.b, blank_a=blank_a, runs_a=runs_a, blank_b=blank_b, runs_b=runs_b,
                         pvalue=p, method="Fisher's exact test (two-sided) on the runs: blank or not x value",
                         differ=differ, miss_value=miss, left_out_gap=float(main.average_gap),
                         left_out_p=float(main.headline_test.pvalue), as_misses_gap=gap, as_misses_test=test,
                         statement=statement)


def _p_text(p: float) -> str:
    """``p = ...`` in a sentence, never 0: below 1e-300 (a Fisher p that underflows to 0 included) the bound.

    >>> _p_text(0.0), _p_text(0.01234), _p_text(3e-320)
    ('p < 1e-300', 'p = 0.012', 'p < 1e-300')
    """
    return "p < 1e-300" if p < 1e-300 else f"p = {p:.2g}"
