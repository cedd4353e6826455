"""An I × J factor design on the terminal: per-level means, the permutation tests, the ANOVA beside."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from probestats.errors import count_of
from probestats.present.words.fmt import escape, fmt_num, fmt_p
from probestats.present.words.verdict import caveat_sentences, noise_check_sentences, verdict_line

__all__ = ["print_factorial"]


def print_factorial(analysis, out: Console) -> None:
    """Print a :class:`~probestats.analyses.factors_many_levels.FactorialAnalysis`."""
    f1, f2 = analysis.factors
    la, lb = analysis.levels
    table = Table(title=f"{escape(analysis.metric)}: mean over {count_of(analysis.n_items, 'item')} of the item "
                        f"cell means, {escape(f1)} × {escape(f2)}", title_justify="left")
    table.add_column(f"{escape(f1)} \\ {escape(f2)}")
    for b in lb:
        table.add_column(escape(b), justify="right")
    table.add_column("level mean", justify="right")
    for a in la:
        table.add_row(escape(a), *[fmt_num(analysis.cell_means[f"{a} × {b}"]) for b in lb],
                      fmt_num(analysis.level_means[f1][a]))
    table.add_row("level mean", *[fmt_num(analysis.level_means[f2][b]) for b in lb], "", style="bold")
    out.print(table)
    across = (f"across all {analysis.family} effects of the analyses shown" if getattr(analysis, "family", 0)
              else "across the three")
    out.print(f"within-item permutation tests ({escape(analysis.correction)} {across}):")
    for t in analysis.tests:
        out.print(f"  {escape(t.name)}: statistic {t.statistic:.4g}, p = {fmt_p(t.pvalue, analysis.alpha)}, "
                  f"corrected p = {fmt_p(t.p_adjusted, analysis.alpha)}; {escape(t.method)}")
    if analysis.anova is not None:
        out.print("beside them, the repeated-measures ANOVA on the item means (statsmodels AnovaRM; "
                  f"{escape(analysis.anova_assumption)}):")
        for r in analysis.anova:
            out.print(f"  {escape(r.effect)}: F({r.df1:g}, {r.df2:g}) = {fmt_num(r.f)}, p = {fmt_p(r.pvalue)}, "
                      f"partial eta² = {fmt_num(r.partial_eta_squared)} (F df1 / (F df1 + df2))")

    for line in noise_check_sentences(analysis.verdict):
        out.print(escape(line))
    out.print(escape(verdict_line(analysis.verdict)))
    for line in caveat_sentences(analysis.verdict):   # the models that disagree, as a 2 x 2 prints them
        out.print(f"[yellow]{escape(line)}[/yellow]")
