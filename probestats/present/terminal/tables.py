"""What every terminal printer shares: the console that shows control characters as escapes, a table printed
never narrower than its content, the problems of a log, and one paired result's table and tests."""

from __future__ import annotations

import os

from rich.console import Console
from rich.table import Table

from probestats.errors import count_of
from probestats.present.words.effects import METHODS_WHERE, row_tests_lines
from probestats.present.words.effects import published_label
from probestats.present.words.fmt import escape, fmt_interval, fmt_num, fmt_p, p_is, short_method, tidy_p
from probestats.present.words.sanitize import visible

__all__ = ["SafeConsole", "make_console", "print_unsqueezed", "print_problems", "item_rich_table", "print_tests", "small_table",
           "print_runs", "print_row_tests", "METHODS_WHERE"]

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
    """The disaggregated table with an average row and, under it, the interval of each value's average and of
    the average gap (summary rows: one per table, never one per item)."""
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
        means = getattr(result, "value_means", None)
        if means is not None:
            (_, _, ia), (_, _, ib) = means()
            table.add_row(f"{result.interval.confidence:.0%} interval", fmt_interval(ia), fmt_interval(ib),
                          fmt_interval(result.interval), "")
    return table


def small_table(title: str) -> Table:
    """A small table without outer edges: a title, a header, a rule under it, one line per row."""
    from rich import box

    return Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)


def print_tests(result, alpha: float, out: Console, *, indent: str = "") -> None:
    """One paired result's tests as two small tables (test, statistic, p, interval, method in short; effect
    size, value, interval, method in short), then the smallest attainable p and the sign test's spreadsheet
    formula. The methods in full are in ``--json`` and the report."""
    from rich.padding import Padding

    sf, st = result.sign_flip, result.sign_test
    pt = getattr(result, "permutation", None)
    iv = result.interval
    conf = f"{iv.confidence:.0%}"
    adjusted = f"; adjusted {fmt_p(result.p_adjusted, alpha)}" if result.p_adjusted is not None else ""
    headline = pt if pt is not None else sf
    title = (f"tests ({escape(headline.alternative)}; "
             + ("the within-item permutation of the value labels is the headline"
                if pt is not None else "the sign-flip test is the headline")
             + (", published tests beside it)" if getattr(result, "published", ()) else ")"))
    table = small_table(title)
    for col, justify in (("test", "left"), ("statistic", "right"), ("p", "right"), (f"{conf} interval", "right"),
                         ("method", "left")):
        table.add_column(col, justify=justify, overflow="fold")
    table.add_row("average gap", f"{result.average_gap:+.4g}", "", fmt_interval(iv), escape(short_method(iv.method)))
    if pt is not None:
        table.add_row("within-item permutation", f"{result.average_gap:+.4g}",
                      _p_cell(pt, alpha) + adjusted, "", escape(short_method(pt.method)))
    table.add_row("sign-flip" + (" (comparison)" if pt is not None else ""), f"{result.average_gap:+.4g}",
                  _p_cell(sf, alpha) + (adjusted if pt is None else ""), "", escape(short_method(sf.method)))
    table.add_row("sign test" + (" (comparison)" if pt is not None else ""),
                  f"k = {getattr(st, 'k', st.statistic)} of {st.n}", fmt_p(st.pvalue, alpha), "",
                  escape(short_method(st.method)))
    for t in getattr(result, "published", ()):
        if t.pvalue is None:
            table.add_row(escape(published_label(t)), "undefined", "", "", escape(short_method(t.note)))
            continue
        stat = f"{t.statistic:.4g}" + (f", df = {t.df:.4g}" if t.df is not None else "")
        table.add_row(escape(published_label(t)), stat, fmt_p(t.pvalue, alpha), "", escape(short_method(t.method)))
    out.print(Padding(table, (0, 0, 0, len(indent)), expand=False))
    floor = (f"smallest attainable p: {fmt_p(result.min_attainable_p)}"
             + (" (above alpha: this design could never reach significance)" if result.min_attainable_p > alpha
                else ""))
    sheet = f"sign test in a spreadsheet: {escape(st.formula)}" if getattr(st, "formula", None) else ""
    lines = ([f"{floor}; {sheet}"] if sheet and len(floor) + len(sheet) + len(indent) <= 118
             else [floor, sheet] if sheet else [floor])
    if pt is not None:
        lines.append("for comparison: the sign-flip and sign tests are not tests of this design (unequal runs within "
                     "items)")
    for line in lines:
        out.print(indent + line)
    effects = getattr(result, "effects", None)
    if effects is None:
        return
    table = small_table(f"effect sizes ({effects.d_z.confidence:.0%} intervals)")
    for col, justify in (("effect size", "left"), ("value", "right"), ("interval", "right"), ("method", "left")):
        table.add_column(col, justify=justify, overflow="fold")
    table.add_row("SD of the item gaps", fmt_num(effects.sd_gaps), "", "")
    for e in (effects.d_z, effects.d_av):
        if e is None or e.value is None:
            table.add_row(escape(getattr(e, "name", "effect")), "undefined", "", "")
            continue
        ends = (f"[{fmt_num(e.low)}, {fmt_num(e.high)}]" if e.low is not None and e.high is not None else "")
        table.add_row(escape(e.name), f"{e.value:+.4g}", ends, escape(short_method(e.interval_method)))
    out.print(Padding(table, (0, 0, 0, len(indent)), expand=False))


def print_runs(row_level, a: str, b: str, alpha: float, out: Console, *, indent: str = "") -> None:
    """The tests on runs (``--row-level``) as a small table under a line saying why they are not the headline;
    their methods and assumptions are in ``--json`` and the report."""
    import textwrap

    from rich.padding import Padding

    # lazy: present.words.runlevel is off the paired analysis's path (tests/test_start.py)
    from probestats.present.words.runlevel import run_heading, run_rows

    for line in textwrap.wrap(run_heading(row_level), width=min(out.width, 118) - len(indent)):
        out.print(indent + escape(line))
    table = small_table(None)
    for col, justify in (("on runs", "left"), ("statistic", "right"), ("p", "right"),
                         (f"{row_level.samples.mean_a_interval.confidence:.0%} interval"
                          if getattr(row_level, "samples", None) is not None else "interval", "right")):
        table.add_column(col, justify=justify, overflow="fold")
    for row in run_rows(row_level, a, b, alpha):
        table.add_row(*(escape(c) for c in row))
    out.print(Padding(table, (0, 0, 0, len(indent)), expand=False))


def print_row_tests(analysis, out: Console) -> None:
    """Welch's t per item or per group (:func:`~probestats.present.words.effects.row_tests_lines`), each line
    wrapped to the terminal (at most 118 characters), a test's continuation indented under it."""
    import textwrap

    width = min(out.width, 118)
    for line in row_tests_lines(analysis):
        indent = line[:len(line) - len(line.lstrip())]
        for part in textwrap.wrap(line, width=width, subsequent_indent=indent + "    ", drop_whitespace=True):
            out.print(escape(part), soft_wrap=True)


def _p_cell(test, alpha: float) -> str:
    """A test's p for a table cell: ``0.02344``, ``< 1/10001`` (a Monte Carlo floor), ``<= 0.0463 (...)``."""
    text = p_is(test, alpha)
    return text[len("p = "):] if text.startswith("p = ") else text[len("p "):]
