"""What every terminal printer shares: the console that shows control characters as escapes, a table printed
never narrower than its content, the problems of a log, and one paired result's table and tests."""

from __future__ import annotations

import os

from rich.console import Console
from rich.table import Table

from probestats.errors import count_of
from probestats.present.words.effects import effect_lines
from probestats.present.words.fmt import escape, fmt_num, fmt_p, p_is

__all__ = ["SafeConsole", "make_console", "print_unsqueezed", "print_problems", "item_rich_table", "tests_lines"]


def print_unsqueezed(out: Console, table, *, widest: bool = False, limit: int = 10_000) -> None:
    """Print a table never narrower than its content needs (the narrowest layout of its cells, or with
    ``widest`` their full width up to ``limit`` characters): a long line beats a number cut short."""
    from rich.measure import Measurement

    measured = Measurement.get(out, out.options.update_width(10_000), table)
    need = min(measured.maximum if widest else measured.minimum, limit)
    width = out.width
    if need > width:
        out.width = need
    try:
        out.print(table)
    finally:
        out.width = width


class SafeConsole(Console):
    """A rich console that never writes a control character taken from text: every string it renders
    (lines, table cells, titles) has its controls shown as escapes before rich reads its markup.

    A safety net under :func:`escape`, for printers that forget it; rich's own styling still works.
    """

    def render_str(self, text: str, **kwargs):
        from probestats.present.words.fmt import tidy_p
        from probestats.present.words.sanitize import visible

        return super().render_str(tidy_p(visible(text, keep_newlines=True)), **kwargs)


def make_console(stderr: bool = False) -> Console:
    """A console for the command's output (standard output, or standard error for notes)."""
    out = SafeConsole(stderr=stderr, highlight=False, soft_wrap=True)
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.width = 120  # piped or captured: no terminal to fit, so do not squeeze tables to 80 columns
    return out


def print_problems(problems, source: str | None = None, out: Console | None = None) -> None:
    """Problems grouped by severity, errors first."""
    out = out or make_console()
    problems = list(problems)
    if not problems:
        return
    word = "problem" if len(problems) == 1 else "problems"
    out.print(f"{len(problems)} {word}" + (f" in {escape(source)}" if source else ""))
    for severity in ("error", "warning"):
        for p in problems:
            if p.severity == severity:
                style = "red" if severity == "error" else "yellow"
                out.print(f"  [{style}]{severity:<8}[/{style}] {p.code:<21} {escape(p.message)}")


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


def tests_lines(result, alpha: float) -> list[str]:
    """The lines of one paired result's tests: the average gap and its interval, the tests, the smallest
    attainable p, the effect sizes."""
    sf, st = result.sign_flip, result.sign_test
    pt = getattr(result, "permutation", None)
    if pt is not None:   # unequal arms: the permutation is the test of the design, the sign test is not
        tests = [f"within-item permutation of the value labels ({escape(pt.alternative)}): {p_is(pt, alpha)}; "
                 f"method: {escape(pt.method)}"
                 + (f"; adjusted p = {fmt_p(result.p_adjusted, alpha)}" if result.p_adjusted is not None else ""),
                 f"not tests of this design, for comparison only: sign-flip {p_is(sf, alpha)}, sign test "
                 f"p = {fmt_p(st.pvalue, alpha)}; {escape(result.not_applicable)}"]
    else:
        tests = [f"sign-flip test ({escape(sf.alternative)}): {p_is(sf, alpha)}; method: {escape(sf.method)}"
                 + (f"; adjusted p = {fmt_p(result.p_adjusted, alpha)}" if result.p_adjusted is not None else ""),
                 f"sign test: p = {fmt_p(st.pvalue, alpha)} (n = {st.n} non-zero gaps, k = {getattr(st, 'k', st.statistic)})"
                 + (f"  spreadsheet: {escape(st.formula)}" if getattr(st, "formula", None) else "")]
    lines = [
        f"average gap {result.average_gap:+.4g} over {count_of(result.n_items, 'item')}; "
        f"{result.interval.confidence:.0%} interval [{fmt_num(result.interval.low)}, {fmt_num(result.interval.high)}] "
        f"({escape(result.interval.method)}"
        + (f"; {escape(result.interval.assumption)}" if getattr(result.interval, "assumption", "") else "") + ")",
        *tests,
        f"smallest attainable p: {fmt_p(result.min_attainable_p)}"
        + (" (above alpha: this design could never reach significance)" if result.min_attainable_p > alpha else ""),
    ]
    return lines + [escape(line) for line in effect_lines(result, alpha)]
