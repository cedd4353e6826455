"""A judge's log text in words: on one line, its controls and bidirectional overrides shown as escapes, cut at
a length; the terminal's tables and the report's judge section both show it so."""

from __future__ import annotations

import re

from probestats.present.words.fmt import fmt_p

__all__ = ["one_line", "choice_sentence"]

_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def one_line(text, limit: int | None = None) -> str:
    r"""Log text on one line with its control characters and bidirectional overrides shown as escapes.

    >>> one_line("\x1b]52;c;cHdu\x07"), one_line("a\u202eb")
    ('\\x1b]52;c;cHdu\\x07', 'a<U+202E>b')
    """
    text = "" if text is None else str(text)
    text = text.replace("\n", " ").replace("\t", " ")
    text = _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                         else f"<U+{ord(m.group()):04X}>", text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def choice_sentence(rate, alpha: float, who: str = "The judge", *, plain: bool = False) -> str:
    """A judge's choice rate of one answer in words: the rate in each order, their mean against chance, the
    position bias, and a judge that always picks one slot named so (log text made one line first).

    >>> from probestats.analyses.judge import choice_rate
    >>> import polars as pl
    >>> rate = choice_rate(pl.DataFrame({"v1": ["first"] * 10, "v2": ["first"] * 10}), ("AB", "BA"), "AB")
    >>> choice_sentence(rate, 0.05)[:74]
    'The judge always picks the first answer (the first slot in both orders in '
    """
    def pct(x):
        return "n/a" if x is None else f"{100 * x:.1f}%"

    (o1, s1, r1), (o2, s2, r2) = rate.orders
    m = rate.mean
    figures = (f"{one_line(rate.answer)} was chosen in {pct(r1.value)} of {r1.n} items under '{one_line(o1)}' "
               f"(shown {s1}) and {pct(r2.value)} under '{one_line(o2)}' (shown {s2}): {pct(m.value)} averaged over "
               f"both orders ({100 * m.confidence:g}%{'' if plain else ' exact'} interval {pct(m.low)} to "
               f"{pct(m.high)}; {'a test against' if plain else 'exact binomial p = ' + fmt_p(rate.pvalue, alpha) + ' against'} "
               f"chance {rate.chance:g}{', p = ' + fmt_p(rate.pvalue, alpha) if plain else ''}, "
               f"{'corrected' if plain else 'adjusted'} {fmt_p(rate.p_adjusted, alpha)}); position bias "
               f"{100 * rate.position_bias:+.1f} points toward the first slot")
    if rate.slot_bound is not None:
        share = rate.first_slot.value if rate.slot_bound == "first" else 1 - rate.first_slot.value
        return (f"{who} always picks the {rate.slot_bound} answer (the {rate.slot_bound} slot in both orders in at "
                f"least 90% of its items, {pct(share)} of its verdicts): its averaged rate says nothing of a "
                f"preference or of neutrality. {figures[0].upper()}{figures[1:]}.")
    if rate.reading == "no preference detected":
        verdict = (f"at alpha {alpha:g} no preference was detected (this does not show that it has none)")
    else:
        verdict = f"at alpha {alpha:g} it {one_line(rate.reading)}"
    return f"{who}: {figures}; {verdict}."
