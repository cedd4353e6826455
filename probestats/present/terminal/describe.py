"""A description on the terminal: a table of values by levels, counts as counts and shares beside them."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from probestats.present.words.describe import coverage_lines, kind_phrase, test_sentence
from probestats.present.words.fmt import escape, fmt_num, fmt_pct

__all__ = ["print_description"]


def print_description(d, out: Console) -> None:
    """Print a :class:`~probestats.analyses.describe.Description` (and its groups)."""
    out.print(escape(kind_phrase(d)))
    _table(d, out)
    for g in d.groups:
        out.print("")
        out.print(escape(", ".join(f"{k} = {v}" for k, v in g.by.items())))
        _table(g, out)
    for line in coverage_lines(d):
        out.print(escape(line))
    if d.problems:
        from probestats.present.terminal.tables import print_problems

        print_problems(d.problems, out=out)


def _table(d, out: Console) -> None:
    from probestats.present.terminal.tables import print_unsqueezed

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
    sentence = test_sentence(d)
    if sentence:
        out.print(escape(sentence))
