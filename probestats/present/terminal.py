"""Readable terminal output (rich tables) for the command line; no statistics here."""

from __future__ import annotations
from probestats.errors import count_of

import math

from rich.console import Console
from rich.markup import escape as _rich_escape
from rich.table import Table


def escape(text) -> str:
    r"""Text from a log made safe to print with rich: a ``[`` that would open a tag is escaped.

    rich's own ``escape`` also doubles a single backslash at the end, in case a tag follows it;
    no tag follows a logged value here, and the doubled backslash would show.

    >>> escape("[bold]x") == "\\[bold]x", escape("C:\\temp\\") == "C:\\temp\\"
    (True, True)
    """
    text = str(text)
    escaped = _rich_escape(text)
    if text.endswith("\\") and not text.endswith("\\\\"):
        return escaped[:-1]  # the backslash rich added
    return escaped


def fmt_p(p: float | None, alpha: float | None = None) -> str:
    """A p-value for people: four significant digits, never rounded to zero, and, given
    ``alpha``, enough digits that rounding never moves it across (or onto) alpha.

    Examples
    --------
    >>> fmt_p(0.0234375), fmt_p(1.0), fmt_p(3.2e-12)
    ('0.02344', '1', '3.2e-12')
    >>> fmt_p(0.0502, 0.05), fmt_p(0.049996, 0.05), fmt_p(0.05, 0.05), fmt_p(0.0500001, 0.05)
    ('0.0502', '0.049996', '0.05', '0.0500001')
    """
    if p is None:
        return "n/a"
    if p == 0:
        return "0"
    text = f"{p:.2g}" if p < 1e-4 else f"{p:.4g}"
    if alpha is None or not math.isfinite(p):
        return text
    digits = 4
    while digits < 17:
        shown = float(text)
        if (shown < alpha) == (p < alpha) and (shown == alpha) == (p == alpha):
            return text
        digits += 1
        text = f"{p:.{digits}g}"
    return repr(float(p))


def p_is(test, alpha: float | None = None) -> str:
    """``p = 0.02``, or ``p < 1/10001`` when the test's p is a bound (a Monte Carlo p at its floor
    1/(n_resamples + 1): no resample was as extreme as the data).

    >>> from probestats.stats.hypotests import TestResult
    >>> p_is(TestResult(0.5, 1 / 10_001, "monte carlo", "two-sided", 40, pvalue_bound="upper"))
    'p < 1/10001'
    >>> p_is(TestResult(0.5, 0.25, "exact", "two-sided", 3))
    'p = 0.25'
    """
    p = test.pvalue
    if getattr(test, "pvalue_bound", None) == "upper":
        return f"p < 1/{round(1 / p)}"
    return f"p = {fmt_p(p, alpha)}"


def fmt_num(x: float | None, digits: int = 4) -> str:
    """A number with a few significant digits (``n/a`` for missing).

    >>> fmt_num(0.6375), fmt_num(None), fmt_num(-0.25, 2)
    ('0.6375', 'n/a', '-0.25')
    """
    if x is None or x != x:
        return "n/a"
    return f"{x:.{digits}g}"


def item_rich_table(result, title: str | None = None) -> Table:
    """The disaggregated table with an average row."""
    table = Table(title=title, title_justify="left")
    table.add_column("item")
    table.add_column(f"{escape(result.a)} mean", justify="right")
    table.add_column(f"{escape(result.b)} mean", justify="right")
    table.add_column("gap (A − B)", justify="right")
    table.add_column("runs per value", justify="right")
    for r in result.items.iter_rows(named=True):
        table.add_row(escape(str(r["item"])), fmt_num(r["mean_a"]), fmt_num(r["mean_b"]),
                      f"{r['gap']:+.4g}", f"{r['n_a']} / {r['n_b']}")
    if result.items.height:
        table.add_row("average", fmt_num(result.items["mean_a"].mean()), fmt_num(result.items["mean_b"].mean()),
                      f"{result.average_gap:+.4g}", "", style="bold")
    return table


def _tests_lines(result, alpha: float) -> list[str]:
    sf, st = result.sign_flip, result.sign_test
    lines = [
        f"average gap {result.average_gap:+.4g} over {count_of(result.n_items, 'item')}; "
        f"{result.interval.confidence:.0%} interval [{fmt_num(result.interval.low)}, {fmt_num(result.interval.high)}] "
        f"({escape(result.interval.method)})",
        f"sign-flip test ({escape(sf.alternative)}): {p_is(sf, alpha)}; method: {escape(sf.method)}"
        + (f"; adjusted p = {fmt_p(result.p_adjusted, alpha)}" if result.p_adjusted is not None else ""),
        f"sign test: p = {fmt_p(st.pvalue, alpha)} (n = {st.n} non-zero gaps, k = {getattr(st, 'k', st.statistic)})"
        + (f"  spreadsheet: {escape(st.formula)}" if getattr(st, "formula", None) else ""),
        f"smallest attainable p: {fmt_p(result.min_attainable_p)}"
        + (" (above alpha: this design could never reach significance)" if result.min_attainable_p > alpha else ""),
    ]
    return lines


def print_analysis(analysis, out: Console) -> None:
    """Print an :class:`~probestats.paired.Analysis` as people read it."""
    main = analysis.main
    out.print(item_rich_table(main, title=f"{escape(main.metric)}: '{escape(main.a)}' vs '{escape(main.b)}'"))
    for line in _tests_lines(main, analysis.alpha):
        out.print(line)
    row_level = getattr(analysis, "row_level", None)
    if row_level is not None:
        out.print(f"row level, beside the item-level tests: Welch's t on {row_level.n_a} and {row_level.n_b} runs: "
                  f"t = {row_level.statistic:.4g}, df = {row_level.df:.4g}, p = {fmt_p(row_level.pvalue, analysis.alpha)}")
        out.print(escape(row_level.note))
    within_noise = False
    if analysis.noise is not None:
        n = analysis.noise
        source = getattr(analysis, "noise_source", None) or ""
        label = (f"{escape(source)}, no --noise log" if source.startswith("within-log") else "same-versus-same noise")
        out.print(f"{label} ('{escape(n.a)}' vs '{escape(n.b)}'): average gap {n.average_gap:+.4g}, "
                  f"sign-flip {p_is(n.sign_flip, analysis.alpha)}, {count_of(n.n_items, 'item')}")
        within_noise = abs(main.average_gap) <= abs(n.average_gap)
        if within_noise:
            out.print("the probe's average gap is no larger than the same-versus-same gap: "
                      "a gap no larger than the noise means nothing")
    if analysis.mdg is not None or analysis.noise is not None:
        mdg = "infinite (never significant)" if analysis.mdg is None and not analysis.could_reach_significance else fmt_num(analysis.mdg)
        if analysis.mdg is not None or not analysis.could_reach_significance:
            toward = {"greater": f" ('{escape(main.a)}' above '{escape(main.b)}')",
                      "less": f" ('{escape(main.a)}' below '{escape(main.b)}')"}.get(analysis.alternative, "")
            out.print(f"minimum detectable gap of this design: {mdg}{toward}")
    for g in analysis.groups:
        label = ", ".join(f"{k} = {v}" for k, v in g.by.items())
        out.print(item_rich_table(g, title=escape(label)))
        for line in _tests_lines(g, analysis.alpha):
            out.print("  " + line)
    if analysis.groups:
        out.print(f"p-values adjusted across {len(analysis.groups)} groups ({escape(analysis.correction)})")
    verdict = ("a gap larger than chance" if analysis.detected
               else "no gap larger than its noise detected (this does not show that there is none)")
    if analysis.detected and within_noise:
        verdict += ", but no larger than the same-versus-same gap"
    out.print(f"at alpha {analysis.alpha:g}: {verdict}")
    if analysis.problems:
        from probestats.cli import print_problems

        print_problems(analysis.problems)
