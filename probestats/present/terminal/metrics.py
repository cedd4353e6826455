"""Several metrics on the terminal: every metric's analysis, then the groups × metrics table of the
chosen effect size with the family-corrected p, and the family named."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from probestats.present.terminal.tables import (METHODS_WHERE, item_rich_table, print_problems, print_row_tests,
                                                print_runs, print_tests, print_unsqueezed)
from probestats.present.words.fmt import escape
from probestats.present.words.metrics import metrics_context

__all__ = ["print_metrics"]


def print_metrics(analysis, out: Console) -> None:
    """Print a :class:`~probestats.analyses.metrics.MetricsAnalysis`."""
    for a in analysis.analyses:
        out.rule(f"metric {escape(a.metric)}")
        main = a.main
        out.print(item_rich_table(main, title=f"{escape(main.metric)}: '{escape(main.a)}' vs '{escape(main.b)}'"))
        print_tests(main, a.alpha, out)
        if getattr(a, "row_level", None) is not None:
            print_runs(a.row_level, main.a, main.b, a.alpha, out)
        print_row_tests(a, out)
        for g in a.groups:
            out.print(escape(", ".join(f"{k} = {v}" for k, v in g.by.items())) + ":")
            print_tests(g, a.alpha, out, indent="  ")
        if a.problems:
            print_problems(a.problems, out=out)
    ctx = metrics_context(analysis)
    out.print(METHODS_WHERE)
    out.rule("side by side")
    table = Table(title=f"{escape(ctx['effect_name'])} [{ctx['confidence']} interval] and sign-flip p corrected "
                        f"over the family (* at most alpha {analysis.alpha:g})", title_justify="left")
    table.add_column("group")
    for m in ctx["metrics"]:
        table.add_column(escape(m), justify="right")
    for row in ctx["grid"]:
        table.add_row(escape(row["group"]), *[escape(c["text"]) for c in row["cells"]])
    print_unsqueezed(out, table, widest=True)
    out.print(f"adjusted p above: {escape(analysis.family_text)}")
    for s in ctx["sentences"]:
        out.print(escape(s))
