"""Readable terminal output (rich tables) for the command line; no statistics here.

:func:`render_terminal` prints any result of :func:`probestats.analyze` (and of the other
commands) on a rich console: it dispatches on the result's type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from probestats.errors import count_of
from probestats.present.terminal.tables import (METHODS_WHERE, item_rich_table, print_problems, print_row_tests,
                                                print_runs, print_tests, print_unsqueezed, small_table)
from probestats.present.words.control import control_sentences
from probestats.present.words.effects import effect_text, published_text
from probestats.present.words.fmt import escape, fmt_interval, fmt_num, fmt_p, fmt_pct, p_is, short_method
from probestats.present.words.verdict import caveat_sentences, noise_check_sentences, verdict_line, verdict_of

if TYPE_CHECKING:
    from probestats.analyses.compare import Comparison
    from probestats.analyses.factors_many_levels import FactorialAnalysis
    from probestats.analyses.factors import FactorAnalysis
    from probestats.analyses.framing_results import FramingResult
    from probestats.analyses.many import ManyAnalysis, ManyResult
    from probestats.analyses.metrics import MetricsAnalysis
    from probestats.analyses.paired import Analysis
    from probestats.analyses.plan.table import Plan
    from probestats.analyses.hand_labels import ValidatedAnalysis
    from probestats.checks.schema import Checked

__all__ = ["render_terminal", "printer_for", "print_analysis", "print_many", "print_factors", "print_factor_set",
           "print_comparison", "print_checked", "escape", "fmt_p", "fmt_num"]


def render_terminal(result, out: Console, **options) -> None:
    """Print ``result`` on ``out`` as people read it; the printer is chosen by the result's type.

    The printers are keyed by the full name of the class they print (see :data:`PRINTERS`), looked up along
    the result's own class and its bases: no result class is imported to print another, so printing one
    analysis does not import the modules of the others.

    Examples
    --------
    >>> import io
    >>> from probestats import analyze
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal")}
    ...         for i in range(3) for v in ("formal", "casual") for s in range(2)]
    >>> buf = io.StringIO()
    >>> render_terminal(analyze(rows, metric="steps"), Console(file=buf, width=100))
    >>> [line.split()[:3] for line in buf.getvalue().splitlines() if line.startswith("average gap")]
    [['average', 'gap', '+1']]
    """
    printer = printer_for(type(result))
    if printer is None:
        raise TypeError(f"no terminal printer for {type(result).__name__}")
    design = getattr(type(result), "probe_design", None)
    if design is not None:   # what the analysis took the probe to be, before any figure, in lines a person reads
        import textwrap

        for line in textwrap.wrap(result.probe_design.sentence, width=min(out.width, 120)):
            out.print(escape(line))
    printer(result, out, **options)


def printer_for(cls: type):
    """The printer of ``cls`` (the first of its class and bases, in method order, that has one), or None.

    Examples
    --------
    >>> from probestats.analyses.paired import Analysis
    >>> printer_for(Analysis) is print_analysis, printer_for(dict)
    (True, None)
    """
    for klass in cls.__mro__:
        name = PRINTERS.get(f"{klass.__module__}.{klass.__qualname__}")
        if name is not None:
            return globals()[name]
    return None


def print_checked(checked: Checked, out: Console, *, chosen: bool = False, metric_given: bool = True) -> None:
    """What validation found: the columns, the compared values, every problem, ok or not.

    ``chosen``: the compared values were named by the user (not the first two in the log).
    """
    mapping = ", ".join(f"{escape(k)} = '{escape(v)}'" for k, v in checked.log.columns.items())
    kind = f" ({escape(checked.log.format)})" if getattr(checked.log, "format", None) else ""
    out.print(f"{escape(checked.log.source)}{kind}: {checked.n_rows} rows; columns: {mapping or '(none recognized)'}")
    if checked.a is not None and checked.b is not None:
        out.print(f"compared values: '{escape(checked.a)}' and '{escape(checked.b)}'"
                  + ("" if chosen else " (the first two in the log; choose with --a/--b)"))
    if checked.pairs_by:
        out.print(f"checked per {escape(' x '.join(checked.pairs_by))}: items matched within each of its values")
    if checked.drawn:
        out.print(f"drawn per call (declared): {escape(', '.join(checked.drawn))}; checked for balance across the "
                  "values and kept out of the matching")
    if not metric_given:
        out.print("no --metric given: the metric checks were skipped")
    print_problems(checked.problems, checked.log.source, out)
    out.print("ok: no errors" if checked.ok else "not ok: fix the errors above")


def print_analysis(analysis: Analysis, out: Console) -> None:
    """Print an :class:`~probestats.analyses.paired.Analysis` (also a judge's) as people read it."""
    main = analysis.main
    out.print(item_rich_table(main, title=f"{escape(main.metric)}: '{escape(main.a)}' vs '{escape(main.b)}'"))
    print_tests(main, analysis.alpha, out)
    out.print(METHODS_WHERE)
    row_level = getattr(analysis, "row_level", None)
    if row_level is not None:
        print_runs(row_level, main.a, main.b, analysis.alpha, out)
    print_row_tests(analysis, out)

    verdict = verdict_of(analysis)
    agreement = getattr(verdict, "agreement", None)
    if agreement is not None and agreement.disagree:
        out.print(f"[yellow]{escape(agreement.statement)}[/yellow]")
    blanks = getattr(verdict, "blanks", None)
    if blanks is not None and blanks.differ:
        out.print(f"[yellow]{escape(blanks.statement)}[/yellow]")
    if verdict.pooled:
        per = " x ".join(verdict.blocks or (agreement.columns if agreement is not None else ()))
        out.print(f"item gaps {escape(verdict.pooled)}; per {escape(per)} below")
    if analysis.noise is not None:
        n = analysis.noise
        source = getattr(analysis, "noise_source", None) or ""
        within = source.startswith("within-log")
        if n.sign_flip is None:   # the log's own halves, read over every split: a size, no test
            out.print(f"noise within the log ('{escape(n.a)}' vs '{escape(n.b)}'): average gap ±{n.average_gap:.4g} "
                      f"over every split, {count_of(n.n_items, 'item')}")
        else:
            out.print(f"{'noise within the log' if within else 'same-versus-same noise'} "
                      f"('{escape(n.a)}' vs '{escape(n.b)}'): average gap {n.average_gap:+.4g}, "
                      f"sign-flip {p_is(n.sign_flip, analysis.alpha)}, {count_of(n.n_items, 'item')}")
        if within:   # how the halves were read, wrapped to the terminal's width
            out.print("  no --noise log: " + escape(source[len("within-log: "):]), soft_wrap=False)
        if verdict.conclusion == "within_noise":
            out.print("the probe's average gap is no larger than the same-versus-same gap: "
                      "a gap no larger than the noise means nothing")
    for line in noise_check_sentences(verdict):
        out.print(f"[yellow]{escape(line)}[/yellow]")
    if analysis.mdg is not None or analysis.noise is not None:
        mdg = "infinite (never significant)" if analysis.mdg is None and not analysis.could_reach_significance else fmt_num(analysis.mdg)
        if analysis.mdg is not None or not analysis.could_reach_significance:
            toward = {"greater": f" ('{escape(main.a)}' above '{escape(main.b)}')",
                      "less": f" ('{escape(main.a)}' below '{escape(main.b)}')"}.get(analysis.alternative, "")
            promise = (f" (not promised: the metric's bound may leave room for only "
                       f"{fmt_num(max(0.0, analysis.mdg_room))})" if getattr(analysis, "mdg_near_bound", False) else "")
            out.print(f"minimum detectable gap of this design: {mdg}{toward}{promise}")
    if len(analysis.groups) > GROUPS_IN_DETAIL:   # a screenful: one row per group, those that differ first
        _print_group_summary(analysis, out)
    else:
        for g in analysis.groups:
            label = ", ".join(f"{k} = {v}" for k, v in g.by.items())
            out.print(item_rich_table(g, title=escape(label)))
            print_tests(g, analysis.alpha, out, indent="  ")
    if analysis.groups:
        out.print(f"p-values adjusted across {len(analysis.groups)} groups ({escape(analysis.correction)})")
    out.print(escape(verdict_line(verdict)))
    for line in caveat_sentences(verdict):
        out.print(f"[yellow]{escape(line)}[/yellow]")
    _print_control(verdict, out)
    if analysis.problems:
        print_problems(analysis.problems, out=out)


#: Groups whose item tables and tests the terminal prints one by one; beyond, one summary row per group
GROUPS_IN_DETAIL = 6
#: Groups the summary lists; beyond, those with the smallest corrected p, the rest counted
GROUPS_LISTED = 40


def _print_group_summary(analysis, out: Console) -> None:
    """One row per ``by`` group (its items, average gap and interval, headline p, corrected p, verdict), the groups
    whose corrected p is smallest first, at most :data:`GROUPS_LISTED`; every group's items and tests are in
    ``--json`` and the report."""
    groups = sorted(analysis.groups, key=lambda g: (g.p_adjusted if g.p_adjusted is not None else 1.0,
                                                    -abs(g.average_gap)))
    table = small_table(f"{len(groups)} groups, those that differ first")
    for col in ("group", "items", "average gap", "95% interval", "p", "adjusted", "at alpha"):
        table.add_column(col, justify="left" if col in ("group", "at alpha") else "right")
    for g in groups[:GROUPS_LISTED]:
        p = g.p_adjusted if g.p_adjusted is not None else g.headline_test.pvalue
        iv = g.interval
        gap = 0.0 if abs(g.average_gap) < 1e-12 else g.average_gap   # a float residue of a zero gap reads as 0
        table.add_row(escape(", ".join(f"{k} = {v}" for k, v in g.by.items())), str(g.n_items),
                      f"{gap:+.4g}", f"[{iv.low:.4g}, {iv.high:.4g}]", fmt_p(g.headline_test.pvalue),
                      fmt_p(p), "larger than chance" if p <= analysis.alpha else "not detected")
    out.print(table)
    more = len(groups) - GROUPS_LISTED
    out.print((f"and {more} more groups; " if more > 0 else "") + "every group's items and tests: --json, or the "
              "report (probestats report LOG -o report.md)")


#: Values the terminal's table of a many-values analysis lists; beyond, those with the smallest corrected p
TERMINAL_VALUES = 40


def _values_shown(values, gaps: dict) -> list:
    """The values a terminal table lists: all of them up to :data:`TERMINAL_VALUES`, else the reference and the
    values whose gap has the smallest corrected p, in their own order (a table of thousands of rows takes
    longer to lay out than the analysis takes to compute, and no one reads it on a terminal)."""
    if len(values) <= TERMINAL_VALUES:
        return list(values)

    def rank(k):
        g = gaps.get(values[k].value)
        return (-1.0, 0.0, k) if g is None else (g.p_adjusted if g.p_adjusted is not None else 1.0,
                                                 g.sign_flip.pvalue, k)

    keep = sorted(sorted(range(len(values)), key=rank)[:TERMINAL_VALUES])
    return [values[k] for k in keep]


def print_many(analysis: ManyAnalysis, out: Console) -> None:
    """Print a :class:`~probestats.analyses.many.ManyAnalysis` for people (rich tables)."""

    def one(res: ManyResult, title: str) -> None:
        table = Table(title=title, title_justify="left")
        table.add_column("value")
        table.add_column("selection rate (pooled)" if res.impact_ratios is not None else "mean over items",
                         justify="right")
        table.add_column("interval of the mean of item rates" if res.impact_ratios is not None else "95% interval",
                         justify="right")
        table.add_column(f"gap vs '{escape(res.reference)}'", justify="right")
        table.add_column("95% interval", justify="right")
        permuted = bool(res.pairwise) and "permutation" in res.pairwise[0].sign_flip.method   # unequal groups
        table.add_column("permutation p" if permuted else "sign-flip p", justify="right")
        table.add_column(f"p ({escape(res.correction)})", justify="right")
        if res.impact_ratios is not None:
            table.add_column("impact ratio", justify="right")
        table.add_column("SD of runs", justify="right")
        gaps = {g.a: g for g in res.gaps}
        ratios = {r.value: r for r in res.impact_ratios or ()}
        values = _values_shown(res.values, gaps)
        for v in values:
            g = gaps.get(v.value)
            label = escape(v.value) + (f" ({escape(', '.join(v.names))})" if v.names else "")
            rate = ratios[v.value] if res.impact_ratios is not None else None
            shown = fmt_num(v.mean) if rate is None else fmt_num(rate.rate) + (
                f" (mean of item rates {fmt_num(rate.mean_of_items)})"
                if rate.mean_of_items is not None and fmt_num(rate.mean_of_items) != fmt_num(rate.rate) else "")
            row = [label, shown, _iv(getattr(v, "interval", None)),
                   "reference" if g is None else f"{g.average_gap:+.4g}", "" if g is None else _iv(g.interval),
                   "" if g is None else fmt_p(g.sign_flip.pvalue), "" if g is None else fmt_p(g.p_adjusted)]
            if res.impact_ratios is not None:
                r = ratios[v.value]
                row.append(fmt_num(r.ratio) + (" *" if r.below_four_fifths else ""))
            row.append(fmt_num(getattr(v, "sd_runs", None)))
            table.add_row(*row)
        out.print(table)
        if len(values) < len(res.values):
            out.print(f"the table shows the reference and the {len(values) - 1} of the {len(res.values) - 1:,} other "
                      "values with the smallest corrected p; every value is in --json and the report")
        if any(getattr(v, "interval", None) is not None for v in res.values):
            out.print("intervals: 95%, Student t over the items (n − 1 df) of each value's item means and of each "
                      "gap's item gaps")
        o = res.omnibus
        out.print(f"omnibus test that the value makes no difference ({count_of(res.n_items, 'item')}, {len(res.values)} values): "
                  f"{p_is(o)}"
                  + (f", adjusted {fmt_p(res.omnibus_p_adjusted)}" if res.omnibus_p_adjusted is not None else "")
                  + f"; method: {escape(short_method(o.method))}")
        for t in getattr(res, "published", ()):
            out.print(escape(f"beside it, {published_text(t)} ({short_method(t.method)})"))
        if res.impact_ratios is not None:
            # lazy: stats.selection is off the paired analysis's path (tests/test_start.py)
            from probestats.stats.selection import NOTE

            out.print(f"* {escape(NOTE)}")
        shown = sorted(res.pairwise, key=lambda g: g.sign_flip.pvalue)[:5]
        if res.pairs_left_out:
            out.print(f"pairwise tests left out: {res.pairs_left_out:,} pairs, more than the limit (see the warnings)")
        elif shown:
            pairs = small_table(f"smallest pairwise p ({'within-item permutation' if permuted else 'sign-flip on item gaps'}"
                                f", {escape(res.correction)} across {len(res.pairwise)} pairs)")
            for col in ("pair", "gap", "95% interval", "p", "adjusted"):
                pairs.add_column(col, justify="left" if col == "pair" else "right")
            for g in shown:
                pairs.add_row(f"'{escape(g.a)}' − '{escape(g.b)}'", f"{g.average_gap:+.4g}", _iv(g.interval),
                              fmt_p(g.sign_flip.pvalue), fmt_p(g.p_adjusted))
            out.print(pairs)

    one(analysis.main, f"{escape(analysis.metric)} by value")
    if getattr(analysis, "axes", None) is not None:
        _print_axes(analysis.axes, out)
    for g in analysis.groups:
        one(g, ", ".join(f"{escape(str(k))} = {escape(str(v))}" for k, v in g.by.items()))
    out.print(METHODS_WHERE)
    if analysis.groups:
        out.print(f"omnibus p-values adjusted across {len(analysis.groups)} groups ({escape(analysis.correction)})")
    print_verdict(analysis.verdict, out)
    check = getattr(analysis.verdict, "reference_check", None)
    if check is not None and check.suspect:
        out.print(f"[yellow]{escape(check.statement)}[/yellow]")
    _print_control(analysis.verdict, out)
    if analysis.problems:
        print_problems(analysis.problems, out=out)


def _print_axes(axes, out: Console) -> None:
    """Per axis and pair of its levels: the mean gap, the mean |gap| and the items with a significant gap."""
    corr = escape(axes.correction)
    table = small_table(f"per axis (values split at {axes.separator!r}; items with Welch's p <= {axes.alpha:g} on "
                        f"their runs, uncorrected and {corr} across items)")
    for col in ("axis", "levels", "mean gap", "mean |gap|", "significant", f"after {corr}"):
        table.add_column(col, justify="left" if col in ("axis", "levels") else "right")

    def count(k, n, share):
        return f"{k} of {n} ({fmt_pct(share)})" if n else "untested"

    for axis in axes.axes:
        tested = sum(p.n_tested for p in axis.pairs)
        if len(axis.pairs) > 1:
            table.add_row(escape(axis.name), f"all {len(axis.levels)}", "", fmt_num(axis.mean_abs_gap),
                          count(sum(p.n_significant for p in axis.pairs), tested, axis.share_significant),
                          count(sum(p.n_significant_adjusted for p in axis.pairs), tested,
                                axis.share_significant_adjusted))
        for p in axis.pairs:
            table.add_row(escape(axis.name) if len(axis.pairs) == 1 else "",
                          f"'{escape(p.level_a)}' − '{escape(p.level_b)}'",
                          "" if p.mean_gap is None else f"{p.mean_gap:+.4g}", fmt_num(p.mean_abs_gap),
                          count(p.n_significant, p.n_tested, p.share_significant),
                          count(p.n_significant_adjusted, p.n_tested, p.share_significant_adjusted))
    out.print(table)
    if any(len(a.pairs) > 1 for a in axes.axes):
        out.print("an axis of more levels: 'all' is over every pair of its levels, its counts item × pair cells")


def _iv(interval) -> str:
    """An interval's cell ('' without one)."""
    return "" if interval is None else fmt_interval(interval)


def print_verdict(verdict, out: Console) -> None:
    """The verdict's lines on the terminal: the noise checks, the verdict, then its caveats in yellow."""
    for line in noise_check_sentences(verdict):
        out.print(escape(line))
    out.print(escape(verdict_line(verdict)))
    for line in caveat_sentences(verdict):
        out.print(f"[yellow]{escape(line)}[/yellow]")


def _print_control(verdict, out: Console) -> None:
    """The control comparison beside the verdict: each value against the meaningless edit, and the edit itself."""
    for line in control_sentences(verdict):
        out.print(escape(line))


def print_factors(result: FactorAnalysis, out: Console) -> None:
    """Print a :class:`~probestats.analyses.factors.FactorAnalysis` for people."""
    table = Table(title=f"{escape(result.metric)}: {escape(result.factors[0])} × {escape(result.factors[1])}, "
                        + count_of(result.n_items, 'item'), title_justify="left")
    for col, justify in (("effect", "left"), ("gap", "left"), ("average", "right"), ("sign-flip p", "right"),
                         (f"p ({escape(result.correction)})", "right"), ("d_z [interval]", "right")):
        table.add_column(col, justify=justify)
    for e in result.effects:
        table.add_row(escape(e.name), escape(e.description), f"{e.average:+.4g}", fmt_p(e.sign_flip.pvalue),
                      fmt_p(e.p_adjusted), escape(effect_text(getattr(e, "d_z", None)).split(" = ", 1)[-1]))
    out.print(table)
    out.print(escape(result.interaction_in_words))
    if getattr(result.effects[0], "d_z", None) is not None:
        out.print(f"d_z of each effect: {escape(result.effects[0].d_z.formula)} over its item values; "
                  f"{escape(result.effects[0].d_z.interval_method)}")
    across = (f"all {result.family} effects of the analyses shown" if getattr(result, "family", 0)
              else f"the {len(result.effects)} effects")
    out.print(f"tests: exact sign-flip across items ({escape(result.effects[0].sign_flip.method)}); "
              f"p corrected across {across} ({escape(result.correction)})")
    out.print(f"design: {escape(result.note)}")
    print_verdict(result.verdict, out)
    if result.problems:
        print_problems(result.problems, out=out)


def print_factor_set(result, out: Console) -> None:
    """Print a :class:`~probestats.analyses.factors.FactorSet`: each metric's and group's two-factor analysis in
    turn, p corrected across all of them."""
    out.print(f"{len(result.analyses)} two-factor analyses ({escape(', '.join(result.metrics))}); p corrected across "
              f"all {result.family} effects together ({escape(result.correction)})")
    for metric, group, analysis in result.analyses:
        where = ", ".join(f"{k} = {v}" for k, v in group.items())
        out.print("")
        out.print(escape(f"── {metric}" + (f", {where}" if where else "")))
        render_terminal(analysis, out)


def print_comparison(comparison: Comparison, out: Console) -> None:
    """Print a :class:`~probestats.analyses.compare.Comparison` side by side (rich tables)."""
    b, a = comparison.before.main, comparison.after.main
    table = Table(title=f"{escape(b.metric)}: '{escape(b.a)}' − '{escape(b.b)}', before and after",
                  title_justify="left")
    for col, justify in (("run", "left"), ("items", "right"), ("runs per value", "right"),
                         ("average gap", "right"), ("sign-flip p", "right")):
        table.add_column(col, justify=justify)
    for label, name, r in (("before", comparison.names[0], b), ("after", comparison.names[1], a)):
        ra, rb = r.runs_per_value()
        table.add_row(f"{label}: {escape(name)}", str(r.n_items), f"{ra} / {rb}", f"{r.average_gap:+.4g}",
                      fmt_p(r.sign_flip.pvalue))
    table.add_row("change (after − before)", str(comparison.items.height), "",
                  f"{comparison.change_average_gap:+.4g}", fmt_p(comparison.change_test.pvalue), style="bold")
    out.print(table)
    items = Table(title="per item", title_justify="left")
    for col in ("item", "gap before", "gap after", "change"):
        items.add_column(col, justify="left" if col == "item" else "right")
    for r in comparison.items.iter_rows(named=True):
        items.add_row(escape(str(r["item"])), f"{r['gap_before']:+.4g}", f"{r['gap_after']:+.4g}",
                      f"{r['change']:+.4g}")
    out.print(items)
    out.print(f"change tested with the sign-flip test on the per-item changes: {escape(comparison.change_test.method)}")
    if comparison.problems:
        print_problems(comparison.problems, out=out)


def _print_plan(plan: Plan, out: Console) -> None:
    # lazy: present.words.plan is off the paired analysis's path (tests/test_start.py)
    from probestats.present.words.plan import plan_text

    out.out(plan_text(plan), highlight=False)


def _print_framing(result: FramingResult, out: Console) -> None:
    # lazy: present.terminal.framing is off the paired analysis's path (tests/test_start.py)
    from probestats.present.terminal.framing import print_framing

    print_framing(result, out)


def _print_metrics(analysis: MetricsAnalysis, out: Console) -> None:
    # lazy: present.terminal.metrics is off the paired analysis's path (tests/test_start.py)
    from probestats.present.terminal.metrics import print_metrics

    print_metrics(analysis, out)


def _print_factorial(analysis: FactorialAnalysis, out: Console) -> None:
    # lazy: present.terminal.factorial is off the paired analysis's path (tests/test_start.py)
    from probestats.present.terminal.factorial import print_factorial

    print_factorial(analysis, out)


def print_validated(analysis: ValidatedAnalysis, out: Console) -> None:
    """An analysis with its hand-checked sample: the analysis as coded, the agreement, the corrected verdict."""
    # lazy: present.words.validation is off the paired analysis's path (tests/test_start.py)
    from probestats.present.words.validation import validation_lines

    print_analysis(analysis.analysis, out)
    for line in validation_lines(analysis.validation):
        out.print(escape(line))
    out.print(escape("the verdict on the corrected gap: " + verdict_line(analysis.verdict)))
    if analysis.validation.problems:
        print_problems(analysis.validation.problems, out=out)


#: The printer of each result class, by the class's module and name (resolved on call, never imported here).
PRINTERS: dict[str, str] = {
    "probestats.checks.schema.Checked": "print_checked",
    "probestats.analyses.paired.Analysis": "print_analysis",
    "probestats.analyses.many.ManyAnalysis": "print_many",
    "probestats.analyses.factors.FactorAnalysis": "print_factors",
    "probestats.analyses.factors.FactorSet": "print_factor_set",
    "probestats.analyses.compare.Comparison": "print_comparison",
    "probestats.analyses.plan.table.Plan": "_print_plan",
    "probestats.analyses.framing_results.FramingResult": "_print_framing",
    "probestats.analyses.metrics.MetricsAnalysis": "_print_metrics",
    "probestats.analyses.factors_many_levels.FactorialAnalysis": "_print_factorial",
    "probestats.analyses.hand_labels.ValidatedAnalysis": "print_validated",
}
