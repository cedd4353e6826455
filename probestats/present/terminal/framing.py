"""The dual-framing result on the terminal: the cells' table, languages, wrappers, audit, problems."""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.table import Table

from probestats.analyses.framing import FramingResult
from probestats.present.words.fmt import escape, fmt_ci, fmt_p_floor, fmt_pct, fmt_signed
from probestats.present.terminal.tables import print_unsqueezed
from probestats.errors import count_of

__all__ = ["framing_rich_table", "print_framing"]


def _esc(value) -> str:
    return escape("" if value is None else str(value))


def _p(p, alpha: float) -> str:
    """A corrected p in the table: alpha-aware, so 0.0499996 never shows as 0.05."""
    return "–" if p is None else fmt_p_floor(p, None, alpha, prefix=False)


def framing_rich_table(result: FramingResult) -> Table:
    """A rich Table of the cells, for the command line."""
    ref = result.reference if isinstance(result.reference, str) else "each topic's reference"
    table = Table(title=f"Lean toward {_esc(ref)} (p adjusted: {result.correction})",
                  box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for name in result.by:  # names wrap, so a narrow terminal never cuts a number short
        longest = max([len(name)] + [len(str(c.by.get(name))) for c in result.cells])
        table.add_column(name, overflow="fold", min_width=min(longest, 8))
    table.add_column("n (items)", justify="right", no_wrap=True)
    table.add_column("bias", justify="right", no_wrap=True)
    table.add_column(f"{100 * result.confidence:g}% CI", justify="right", no_wrap=True, min_width=14)
    binary = getattr(result, "answers", "agreement") == "yes-no"
    unparsed = any(c.n_unparsed for c in result.cells)
    last = ("yes aff/rev", "refused/hedged") if binary else ("neut/abst",)
    for name in ("p", "acq.", "p", "pattern", *last) + (("unparsed",) if unparsed else ()):
        table.add_column(name, justify="right", no_wrap=True)
    for c in result.cells:
        rates = ((f"{fmt_pct(c.yes_affirmative)}/{fmt_pct(c.yes_reverse)}", f"{c.n_refused}/{c.n_hedged}")
                 if binary else (f"{fmt_pct(c.neutral_rate)}/{fmt_pct(c.abstain_rate)}",))
        table.add_row(
            *[_esc(c.by.get(k)) for k in result.by],
            f"{c.n} ({c.n_items})", fmt_signed(c.bias), fmt_ci(c.bias_ci), _p(c.bias_p_adjusted, result.alpha),
            fmt_signed(c.acquiescence), _p(c.acquiescence_p_adjusted, result.alpha), c.pattern, *rates,
            *((str(c.n_unparsed),) if unparsed else ()),
        )
    return table


def print_framing(result: FramingResult, out: Console) -> None:
    """Print a framing result on a rich console: the cells, languages, wrappers, audit, problems."""
    print_unsqueezed(out, framing_rich_table(result))
    ref = result.reference if isinstance(result.reference, str) else ", ".join(
        f"{t or '(all)'}: {r}" for t, r in result.reference.items())
    if getattr(result, "answers", "agreement") == "yes-no":
        out.print(f"Answers read as yes/no ({escape(str(result.answers_reason))}): yes +1, no -1, never neutral; "
                  "refusals and hedges counted apart, without a score. "
                  f"Reference target: {escape(str(ref))}. Lean (bias) = P(yes | affirmative) - P(yes | reverse), "
                  "toward it; acquiescence = P(yes | affirmative) + P(yes | reverse) - 1 (+ yea-saying, - nay-saying). "
                  f"Tests: exact sign-flip across matched items ({', '.join(result.item_columns) or 'one item'}; "
                  "with one answer per framing it is McNemar's exact test); "
                  f"p adjusted with {result.correction} across cells; pattern at alpha {result.alpha}.")
    else:
        out.print(f"Reference target: {escape(str(ref))}. Bias = mean aligned score (+ leans toward it); "
                  "acquiescence = mean raw score. "
                  f"Tests: exact sign-flip across matched items ({', '.join(result.item_columns) or 'one item'}); "
                  f"p adjusted with {result.correction} across cells; pattern at alpha {result.alpha}.")
    if getattr(result, "verdict", None) is not None:
        out.print(f"At alpha {result.alpha:g}: {escape(result.verdict.statement)}.")
    for c in result.cells:
        where = ", ".join(f"{k}={v}" for k, v in c.by.items()) or "the log"
        if c.n_languages and c.languages_agree is not None:
            out.print(f"  {escape(where)}: {c.languages_agree} of {c.n_languages} languages lean the same way "
                      "as the pooled result")
        spreads = [f"{w} means differ by up to {getattr(c, w + '_spread'):.2f}"
                   for w in ("prefix", "suffix") if getattr(c, w + "_spread") is not None]
        if spreads:
            out.print(f"  {escape(where)}: wrappers: {'; '.join(spreads)} (aligned scale)")
        if c.single_item:
            out.print(f"  {escape(where)}: one item only: the result speaks for that one prompt only")
    a = result.label_audit
    if a is not None and a.compared:
        out.print(f"Label audit: the judge ({escape(a.label_column)}) and a parse of {escape(a.response_column)} "
                  f"agree on {100 * a.agreement:.1f}% of {a.compared} responses both could score.")
        for d in a.disagreements[:5]:
            out.print(f"  {d['count']}x judge {escape(repr(d['label']))} vs parsed {escape(str(d['parsed']))}: "
                      f"{escape(repr(d['response'])[:80])}")
    if result.unparsed.get("count"):
        out.print(f"Unparsed: {result.unparsed['count']} responses state no option; they are left out, never "
                  "guessed (per cell in the 'unparsed' column; all rows with --json). Most frequent:")
        for v in result.unparsed.get("values", [])[:10]:
            out.print(f"  {v['count']}x {escape(repr(v['text'])[:80])}")
    if result.problems:
        out.print(count_of(len(result.problems), "problem"))
        for p in result.problems:
            out.print(f"  {p.severity:<8} {p.code:<20} {escape(p.message)}")
