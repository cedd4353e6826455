"""The order probe of a judge on a terminal: one rich table per result, then its notes.

Everything taken from a log (judge names, replies, rules) is made safe first: control
characters shown as visible escapes, then rich markup escaped
(:func:`probestats.present.terminal.render.escape`).

Examples
--------
>>> import io
>>> from rich.console import Console
>>> from probestats.analyses.judge import analyze_order
>>> rows = [{"item": i, "order": o, "choice": c} for i, pair in enumerate([("first", "second"), ("first", "first")])
...         for o, c in zip(("AB", "BA"), pair)]
>>> out = Console(width=200, record=True, file=io.StringIO())
>>> print_judge(analyze_order(rows, order="order", choice="choice"), out)
>>> "consistency (95% exact CI)" in out.export_text()
True
"""

from __future__ import annotations

from rich.table import Table

from probestats.errors import count_of
from probestats.present.terminal.tables import print_unsqueezed
from probestats.present.words.fmt import escape, fmt_p
from probestats.present.words.judge import one_line
from probestats.present.words.verdict import verdict_line

__all__ = ["print_judge", "judge_table", "choice_table", "safe"]

def safe(text, limit: int | None = None) -> str:
    r"""Log text for the terminal: :func:`~probestats.present.words.judge.one_line`, then rich markup escaped.

    >>> safe("\x1b]52;c;cHdu\x07[bold]")
    '\\x1b]52;c;cHdu\\x07\\[bold]'
    """
    return escape(one_line(text, limit))


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _ci(share) -> str:
    if share.value is None:
        return "n/a"
    return f"{_pct(share.value)} [{_pct(share.low)}, {_pct(share.high)}]"


def judge_table(result) -> Table:
    """One row per judge: consistency with its interval, primacy/recency, ties, the two tests."""
    conf = f"{100 * result.confidence:g}%"
    table = Table(title=f"Order probe: {safe(result.order)} = {safe(result.orders[0])} / {safe(result.orders[1])}",
                  title_justify="left")
    for b in result.by:
        table.add_column(safe(b))
    table.add_column("items × repetitions" if result.repetition else "items", justify="right")
    table.add_column(f"consistency ({conf} exact CI)", justify="right")
    table.add_column("unparsed as cons.", justify="right")
    table.add_column("primacy / recency", justify="right")
    table.add_column("ties cons./incons.", justify="right")
    table.add_column("preference", justify="right")
    table.add_column(f"binomial p (adj.)", justify="right")
    table.add_column(f"sign-flip p (adj.)", justify="right")
    table.add_column("extracted", justify="right")
    for g in result.groups:
        flip = "n/a" if g.sign_flip is None else \
            f"{fmt_p(g.sign_flip.pvalue, result.alpha)} ({fmt_p(g.sign_flip_p_adjusted, result.alpha)})"
        table.add_row(
            *[safe(v) for v in g.by.values()],
            str(g.n_items), _ci(g.consistency), _pct(g.consistency_unparsed_as_consistent),
            f"{g.primacy} / {g.recency}", f"{g.ties_consistent} / {g.ties_inconsistent}",
            "n/a" if g.preference_score is None else f"{g.preference_score:+.3g}",
            "n/a" if g.order_test_p is None else
            f"{fmt_p(g.order_test_p, result.alpha)} ({fmt_p(g.order_test_p_adjusted, result.alpha)})",
            flip, _pct(g.extraction_rate))
    return table


def choice_table(result) -> Table | None:
    """One row per judge: the choice rate of one answer in each order, their mean with its interval and exact
    test against chance, the position bias, and the reading (``always picks the first answer`` named so)."""
    rates = [g.choice for g in result.groups if g.choice is not None]
    if not rates:
        return None
    first = rates[0]
    (o1, _, _), (o2, _, _) = first.orders
    conf = f"{100 * result.confidence:g}%"
    table = Table(title=f"Choice of {safe(first.answer)}, against chance {first.chance:g}", title_justify="left")
    for b in result.by:
        table.add_column(safe(b))
    table.add_column(f"under {safe(o1, 20)}", justify="right")
    table.add_column(f"under {safe(o2, 20)}", justify="right")
    table.add_column(f"mean ({conf} exact CI)", justify="right")
    table.add_column("binomial p (adj.)", justify="right")
    table.add_column("position bias", justify="right")
    table.add_column("reading")
    for g in result.groups:
        c = g.choice
        if c is None:
            continue
        table.add_row(*[safe(v) for v in g.by.values()], _pct(c.orders[0][2].value), _pct(c.orders[1][2].value),
                      _ci(c.mean), f"{fmt_p(c.pvalue, result.alpha)} ({fmt_p(c.p_adjusted, result.alpha)})",
                      f"{100 * c.position_bias:+.1f} pts", safe(c.reading))
    return table


def print_judge(result, out) -> None:
    """Print an order-probe result: the table, the rules it was read by, repetitions, unparsed replies, problems."""

    print_unsqueezed(out, judge_table(result), widest=True, limit=400)
    choices = choice_table(result)
    if choices is not None:
        print_unsqueezed(out, choices, widest=True, limit=400)
        out.print("Choice: the items whose verdict names the answer, in each order; the mean pools both orders "
                  "(k of 2n verdicts, ties in n) for its exact interval and exact binomial test against chance, "
                  "adjusted across judges. Position bias: half the rate shown first minus shown second. A judge "
                  "choosing one slot in both orders in 90% of its items or more always picks that answer: its "
                  "mean is not a preference nor neutrality.")
    rules = ", ".join(safe(str(r)) for r in result.rules)
    out.print(f"Verdicts from {safe(result.column)} ({result.source}) by the rules {rules}: literal text "
              "case-sensitive, anywhere in the reply, quoted passages included; a reply naming no slot or "
              "several is unparsed, never guessed.")
    out.print("Consistent: the same answer preferred in both orders (first then second, second then first, or tie "
              "twice), among items with both verdicts read. Unparsed as consistent: an item read in one order only "
              "counts as consistent. Primacy: first slot both times; recency: second both times. Preference = "
              "(primacy − recency) / (primacy + recency). Binomial: exact test of primacy against recency. Sign-flip: "
              "exact test of the order effect on an answer's score (1, ½ tie, 0), shown first minus shown second, "
              f"items as the unit. p-values (adjusted with {result.correction} across judges) at alpha "
              f"{result.alpha:g}.")
    for g in result.groups:
        where = ", ".join(f"{safe(k)}={safe(v)}" for k, v in g.by.items()) or "the log"
        if g.repetitions:
            reps = "; ".join(f"{safe(r.repetition)}: {_ci(r.consistency)}" for r in g.repetitions)
            stab = "n/a" if g.stability is None or g.stability.value is None else \
                f"{_pct(g.stability.value)} of {g.stability.n} items"
            out.print(f"  {where}: consistency per repetition {reps}; same verdicts in every repetition: {stab}")
        if g.unparsed["count"]:
            shown = "; ".join(f"{r['count']}x '{safe(r['text'], 100)}'" for r in g.unparsed["replies"][:3])
            out.print(f"  {where}: {g.unparsed['count']} unparsed "
                      f"({', '.join(f'{k} {v}' for k, v in g.unparsed['reasons'].items())}): {shown}")
    if getattr(result, "verdict", None) is not None:   # decided once, in the analysis
        out.print(safe(verdict_line(result.verdict)))
    if result.problems:
        out.print(count_of(len(result.problems), "problem"))
        for p in result.problems:
            out.print(f"  {p.severity:<8} {p.code:<20} {safe(p.message)}")
