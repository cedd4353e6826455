"""A description on the terminal: a table of values by levels, counts as counts and shares beside them."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from probestats.present.terminal.tables import print_problems, print_unsqueezed
from probestats.present.words.describe import coverage_lines, kind_phrase, rate_lines, test_sentence
from probestats.present.words.fmt import escape, fmt_num, fmt_p, fmt_pct

__all__ = ["print_description"]


def print_description(d, out: Console) -> None:
    """Print a :class:`~probestats.analyses.describe.Description` (and its groups), or each of a
    :class:`~probestats.analyses.describe.Descriptions` in turn."""
    if hasattr(d, "descriptions"):
        for k, one in enumerate(d.descriptions):
            if k:
                out.print("")
            print_description(one, out)
        return
    out.print(escape(kind_phrase(d)))
    _table(d, out)
    for g in d.groups:
        out.print("")
        out.print(escape(", ".join(f"{k} = {v}" for k, v in g.by.items())))
        _table(g, out)
    for line in coverage_lines(d):
        out.print(escape(line))
    if getattr(d, "agreement", None) is not None:
        _agreement(d.agreement, out)
    if d.problems:
        print_problems(d.problems, out=out)


def _table(d, out: Console) -> None:
    table = Table(show_edge=False, pad_edge=False)
    show_mean = any(s.mean is not None for s in d.values)
    for name in ("value", "runs", "items", "blank"):
        table.add_column(name, justify="left" if name == "value" else "right")
    if show_mean:
        table.add_column("mean", justify="right")
    for level in d.levels:
        table.add_column(escape(level), justify="right")
    for s in d.values:
        row = [escape(s.value), str(s.n_runs), "–" if s.n_items is None else str(s.n_items), str(s.n_blank)]
        if show_mean:
            row.append(fmt_num(s.mean))
        row += [f"{s.counts.get(level, 0)} ({fmt_pct(s.shares.get(level))})" for level in d.levels]
        table.add_row(*row)
    print_unsqueezed(out, table)
    for line in rate_lines(d):
        out.print(escape(line))
    sentence = test_sentence(d)
    if sentence:
        out.print(escape(sentence))


def _agreement(a, out: Console) -> None:
    """The raters' agreement: one row per pair (tau, rho with their intervals; Cohen's kappa), Fleiss' kappa under."""
    def corr(c) -> str:
        if c is None or c.statistic is None:
            return "n/a"
        ends = "" if c.low is None else f" [{c.low:.3f}, {c.high:.3f}]"
        return f"{c.statistic:+.3f}{ends}"

    pairs = a.pairs
    numeric = any(p.kendall is not None for p in pairs)
    labelled = any(p.cohen is not None for p in pairs)
    conf = f"{100 * (pairs[0].kendall or pairs[0].cohen).confidence:g}%"
    table = Table(title=f"Agreement between the raters of {escape(a.raters)}, per {escape(a.unit)}",
                  title_justify="left", show_edge=False, pad_edge=False)
    for name, justify in (("raters", "left"), (a.unit + "s", "right")):
        table.add_column(escape(name), justify=justify)
    if numeric:
        table.add_column(f"Kendall tau [{conf}]", justify="right")
        table.add_column("p", justify="right")
        table.add_column(f"Spearman rho [{conf}]", justify="right")
    if labelled:
        table.add_column(f"Cohen kappa [{conf}]", justify="right")
    for p in pairs:
        row = [f"{escape(p.first)} / {escape(p.second)}", str(p.n_units)]
        if numeric:
            row += [corr(p.kendall), fmt_p(p.kendall.pvalue) if p.kendall and p.kendall.pvalue is not None else "n/a",
                    corr(p.spearman)]
        if labelled:
            k = p.cohen
            row.append("n/a" if k is None or k.statistic is None else
                       f"{k.statistic:+.3f}" + ("" if k.low is None else f" [{k.low:.3f}, {k.high:.3f}]"))
        table.add_row(*row)
    print_unsqueezed(out, table)
    notes = [escape(a.scores[:1].upper() + a.scores[1:]) + "."]
    if numeric:
        notes.append("Kendall's tau-b and Spearman's rho (scipy), intervals by Fisher's z with Fieller, Hartley and "
                     "Pearson's standard errors (approximate).")
    if labelled:
        notes.append("Cohen's kappa (statsmodels), interval ± z times its asymptotic standard error (approximate).")
    if a.fleiss is not None:
        f = a.fleiss
        value = "n/a" if f.statistic is None else f"{f.statistic:+.3f}"
        ends = "" if f.low is None else f" [{f.low:.3f}, {f.high:.3f}]"
        notes.append(f"Fleiss' kappa of all {f.n_raters} raters over {f.n_items} {escape(a.unit)}s labelled by every "
                     f"one: {value}{ends} ({escape(f.method)}).")
    out.print(" ".join(notes))
