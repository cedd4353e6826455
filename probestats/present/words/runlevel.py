"""The tests on runs (``--row-level``) as rows of a small table, shared by the terminal and the report.

Each row is a test or an estimate: its label, its statistic, its p and its interval, words only (the caller
escapes them for its medium). The methods and assumptions in full are in ``--json`` and the report's text.
"""

from __future__ import annotations

from probestats.present.words.fmt import fmt_interval, fmt_num, fmt_p
from probestats.stats.runs import RUN_ASSUMPTIONS

__all__ = ["run_heading", "run_rows", "run_sentences"]


def run_heading(row_level) -> str:
    """The line above the table: how many runs, and why these tests are not the headline."""
    head = (f"row level, beside the item-level tests: Welch's t on {row_level.n_a} and {row_level.n_b} runs, and "
            "the other tests on runs, each run one observation")
    if getattr(row_level, "paired", True):
        head += " (not the headline: every item is run under both values, so the design is paired)"
    return head


def _f(row, df_resid) -> str:
    return f"F({fmt_num(row.df)}, {fmt_num(df_resid)}) = {fmt_num(row.f)}" if row.f is not None else "undefined"


def run_rows(row_level, a: str, b: str, alpha: float | None = None) -> list[tuple[str, str, str, str]]:
    """``(test, statistic, p, interval)`` rows: each value's mean, Welch's and Student's t with the interval of
    the difference, Cohen's d and Hedges' g, the ANOVA's F (one-way, and two-way with a factor) and the OLS
    coefficients with their cluster-robust errors.

    Examples
    --------
    >>> from probestats.checks.schema import validate
    >>> from probestats.analyses.paired import items_of, row_level_test
    >>> rows = [{"item": i, "variant": v, "seed": s, "x": s + (v == "a") * i}
    ...         for i in (0, 1, 3) for v in "ab" for s in (1, 2, 4)]
    >>> checked = validate(rows, metric="x")
    >>> [r[0] for r in run_rows(row_level_test(checked, items_of(checked)), "a", "b")][:4]
    ["mean 'a'", "mean 'b'", "Welch's t (a − b)", "Student's t (a − b)"]
    """
    s, m = getattr(row_level, "samples", None), getattr(row_level, "models", None)
    if s is None:
        return [("Welch's t", f"t = {fmt_num(row_level.statistic)}, df = {fmt_num(row_level.df)}",
                 fmt_p(row_level.pvalue, alpha), "")]
    names = (a, b)
    rows = [(f"mean '{a}'", fmt_num(row_level.mean_a), "", fmt_interval(s.mean_a_interval)),
            (f"mean '{b}'", fmt_num(row_level.mean_b), "", fmt_interval(s.mean_b_interval))]
    for label, test, iv in (("Welch's t", s.welch, s.welch_interval), ("Student's t", s.student, s.student_interval)):
        if test.pvalue is None:
            rows.append((f"{label}", "undefined", "", ""))
            continue
        rows.append((f"{label} ({names[0]} − {names[1]})", f"t = {fmt_num(test.statistic)}, df = {fmt_num(test.df)}",
                     fmt_p(test.pvalue, alpha), fmt_interval(iv)))
    for e, label in ((s.cohen_d, "Cohen's d"), (s.hedges_g, "Hedges' g")):
        rows.append((label, "undefined" if e.value is None else f"{e.value:+.4g}", "",
                     "" if e.value is None else fmt_interval(e.interval)))
    if m is None:
        return rows
    for table, what in ((m.one_way, "one-way ANOVA"), (m.two_way, "two-way ANOVA")):
        if not table:
            continue
        resid = table[-1].df
        for row in table[:-1]:
            rows.append((f"{what}: {row.term}", _f(row, resid), fmt_p(row.p, alpha) if row.p is not None else "", ""))
    for c in m.ols[1:]:
        stat = f"{c.estimate:+.4g}" + (f", SE = {fmt_num(c.se)}" if c.se is not None else "")
        rows.append((f"OLS: {c.term}", stat, fmt_p(c.p, alpha) if c.p is not None else "",
                     "" if c.low is None else f"[{fmt_num(c.low)}, {fmt_num(c.high)}]"))
    return rows


def run_sentences(row_level, alpha: float | None = None) -> list[str]:
    """What the tests on runs are and what they assume, in sentences (the report's text under the table)."""
    s, m = getattr(row_level, "samples", None), getattr(row_level, "models", None)
    out = [run_heading(row_level) + ".", row_level.note]
    if s is None:
        return out
    out.append(f"Welch's and Student's t: scipy.stats.ttest_ind (equal_var False and True); Welch's assumes "
               f"{s.welch.assumption}; Student's assumes {s.student.assumption}.")
    out.append(f"Each mean's interval: {s.mean_a_interval.method}; it assumes {s.mean_a_interval.assumption}.")
    out.append(f"Cohen's d = {s.cohen_d.formula}; its interval: {s.cohen_d.interval.method}. Hedges' g = "
               f"{s.hedges_g.formula}. They assume {s.cohen_d.assumption}.")
    if m is not None:
        out.append(f"ANOVA: statsmodels anova_lm, Type II sums of squares ({m.formula}); it assumes "
                   f"{RUN_ASSUMPTIONS['anova']}.")
        out.append(f"OLS: statsmodels ols ({m.formula}), standard errors {m.covariance}, p from the "
                   f"{m.distribution} distribution; it assumes {RUN_ASSUMPTIONS['ols']}."
                   + (f" {m.note}." if m.note else ""))
        inter = m.interaction
        if inter is not None:
            direction = "larger" if inter.estimate > 0 else "smaller" if inter.estimate < 0 else "the same"
            out.append(f"The interaction {inter.term} is {inter.estimate:+.4g}: {inter.meaning}, so the gap is "
                       f"{direction} there" + (f" (p = {fmt_p(inter.p, alpha)})" if inter.p is not None else "")
                       + ".")
    return out
