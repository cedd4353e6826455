"""Agreement labels to scores: the Likert scale of dual-framing probes.

A response or a judge's label is scored on one agreement scale: strongly agree +2,
agree +1, neutral 0, disagree −1, strongly disagree −2. Refusals score 0 and are
counted as abstentions. Text that names no option (or names two different options)
is never guessed: it is ``unparsed``, counted and listed by the analyses.

Matching is deterministic. The text is folded (Unicode NFKC, case, accents on Latin
letters, Arabic letter variants and diacritics), markdown and punctuation become
spaces, and the phrase table is searched **longest phrase first**: a phrase only
counts where no longer phrase already matched, so "disagree" is never read as
"agree", "no estoy de acuerdo" never as "de acuerdo", "不同意" never as "同意".
Phrases in scripts written with spaces must stand as whole words.

Only short text is read in full (a label, "I strongly agree.", "Answer: Disagree");
in a longer response only its first and last sentences, when short, and their first
and last clauses, when very short, are read: that is where a fixed-choice answer is
stated. An option mentioned in the
middle of an essay is not taken as the answer.

Examples
--------
>>> parse_label("**Strongly disagree**")
ParsedLabel(score=-2, kind='agreement', matched='strongly disagree')
>>> parse_label("No estoy de acuerdo.").score
-1
>>> parse_label("不同意").score
-1
>>> parse_label("As an AI, I do not have personal opinions.").kind
'refusal'
>>> parse_label("It depends on the context.").kind
'unparsed'
>>> parse_label("4", scale="1:5").score
1
"""

from __future__ import annotations

import functools
import json
import math
import re
import unicodedata
from dataclasses import dataclass
from numbers import Real
from typing import Literal

import polars as pl

from probestats.errors import OptionError, opt

Kind = Literal["agreement", "neutral", "refusal", "unparsed"]

#: Canonical name of each point of the agreement scale.
SCALE_NAMES = {
    2: "strongly agree",
    1: "agree",
    0: "neutral",
    -1: "disagree",
    -2: "strongly disagree",
}


@dataclass(frozen=True)
class ParsedLabel:
    """The score read from one label or response.

    Attributes
    ----------
    score : int, float or None
        On the −2..+2 agreement scale; 0 for neutral and refusal; None when unparsed.
        An integer except for declared numeric scales whose points do not fall on
        whole numbers (a 1:7 scale, say).
    kind : {"agreement", "neutral", "refusal", "unparsed"}
    matched : str or None
        The phrase (folded, as in the phrase table) or number that decided the score;
        for ambiguous text, the conflicting phrases joined by " | ".

    Examples
    --------
    >>> parse_label("Agree").to_dict()
    {'score': 1, 'kind': 'agreement', 'matched': 'agree'}
    """

    score: int | float | None
    kind: Kind
    matched: str | None

    def to_dict(self) -> dict:
        return {"score": self.score, "kind": self.kind, "matched": self.matched}


def score_name(score) -> str | None:
    """Name of a score on the agreement scale ("agree", ...), or its number as text.

    >>> score_name(-2), score_name(0.5), score_name(None)
    ('strongly disagree', '0.5', None)
    """
    if score is None or (isinstance(score, float) and math.isnan(score)):
        return None
    if float(score).is_integer() and int(score) in SCALE_NAMES:
        return SCALE_NAMES[int(score)]
    return f"{float(score):g}"


# ---------------------------------------------------------------------------
# Phrase tables, in likert_phrases.json: written as people write them; folded at import
# time exactly as incoming text is folded.


def _load_phrases() -> dict[object, list[str]]:
    """The phrase tables from ``likert_phrases.json`` (shipped in the package), read once at import."""
    from importlib import resources

    text = resources.files("probestats.shape").joinpath("likert_phrases.json").read_text(encoding="utf-8")
    return {(key if key == "refusal" else int(key)): list(phrases)
            for key, phrases in json.loads(text)["phrases"].items()}


#: Phrases per category. Keys: 2, 1, 0 (neutral), -1, -2 and "refusal".
_PHRASES: dict[object, list[str]] = _load_phrases()

#: Category of phrases that deny or doubt an option without stating another one.
UNCLEAR = "unclear"

# German separable verbs put words between "stimme" and "zu" ("Ich stimme dieser Aussage
# nicht zu"); these patterns are tried before the phrases of the same start, most
# specific first. Each entry: (pattern on folded text, category, literal that must occur).
_W = r"(?: [^\s]+){0,4}"
_PATTERNS: list[tuple[str, object, str]] = [
    (rf"stimme{_W} weder zu noch nicht zu", 0, "stimme"),
    (rf"stimme{_W} (?:uberhaupt|gar|absolut|entschieden) nicht zu", -2, "stimme"),
    (rf"stimme{_W} (?:eher |teilweise )?nicht zu", -1, "stimme"),
    (rf"stimme{_W} (?:voll und ganz|voll|vollig|vollkommen|absolut|stark|sehr|ganz|entschieden) zu", 2,
     "stimme"),
    (rf"stimme{_W} zu", 1, "stimme"),
    # a denied agreement said at a distance: "I can't say I agree", "no diría que esté de acuerdo"
    (r"(?:can't|cannot|can not|couldn't|wouldn't|would not|don't|do not) (?:say|think) (?:that )?i"
     r"(?: really| fully| completely| totally| entirely)? agree", -1, "agree"),
    (r"no (?:puedo decir|podria decir|diria|creo) que (?:este|estoy|estaria) (?:totalmente |completamente )?"
     r"de acuerdo", -1, "de acuerdo"),
    # a denied disagreement or a doubt states no option: "I don't disagree" is not "disagree",
    # "I'm not sure I agree" is not "agree"; such text is left unparsed, never guessed
    (r"(?:don't|dont|do not|doesn't|does not|wouldn't|would not|can't|cannot|can not)"
     r"(?: really| necessarily| entirely| completely| fully| totally)? disagree(?! more)", UNCLEAR, "disagree"),
    (r"(?:can't|cannot|can not|couldn't|could not|wouldn't|would not|don't|do not) (?:say|think) (?:that )?i"
     r"(?: really| fully| completely| totally| entirely| strongly)? disagree", UNCLEAR, "disagree"),
    (r"not sure (?:that |if |whether )?i(?: really| fully| completely| totally| entirely| strongly)? "
     r"(?:agree|disagree)", UNCLEAR, "sure"),
    (r"je ne (?:peux pas dire|dirais pas|pense pas) que je (?:sois|suis|serais) (?:tout a fait |totalement )?"
     r"d'accord", -1, "d'accord"),
]

_ARABIC_DIACRITICS = re.compile("[\u064b-\u065f\u0670\u0640]")
_ARABIC_LETTERS = str.maketrans({"أ": "ا", "إ": "ا", "آ": "ا", "ٱ": "ا", "ى": "ي"})
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u00b4": "'", "`": "'"})


def fold_text(text: str) -> str:
    """Fold case, width, Latin accents and Arabic letter variants (keeps punctuation)."""
    t = unicodedata.normalize("NFKC", text).translate(_APOSTROPHES).casefold()
    decomposed = unicodedata.normalize("NFD", t)
    out = []
    base = ""
    for ch in decomposed:
        if unicodedata.combining(ch):
            if base and ord(base) < 0x0250:  # a mark on a Latin letter: drop the accent
                continue
        else:
            base = ch
        out.append(ch)
    t = unicodedata.normalize("NFC", "".join(out))
    t = _ARABIC_DIACRITICS.sub("", t).translate(_ARABIC_LETTERS)
    return t


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or unicodedata.category(ch).startswith("M")


def clean_text(text: str) -> str:
    """Markdown and punctuation to spaces (apostrophes inside words kept); spaces collapsed."""
    out = []
    for ch in text:
        if _is_word_char(ch) or ch == "'":
            out.append(ch)
        else:
            out.append(" ")
    words = []
    for w in "".join(out).split():
        w = w.strip("'")
        if w:
            words.append(w)
    return " ".join(words)


def is_unspaced(ch: str) -> bool:
    """Scripts written without spaces between words (CJK, kana, Hangul): no word boundaries."""
    o = ord(ch)
    return (
        0x3040 <= o <= 0x30FF  # kana
        or 0x3400 <= o <= 0x9FFF  # CJK ideographs
        or 0xF900 <= o <= 0xFAFF
        or 0xAC00 <= o <= 0xD7AF  # Hangul syllables
        or 0x1100 <= o <= 0x11FF
        or 0x3130 <= o <= 0x318F
    )


_WORD = r"[^\W_]|[\u0300-\u036f\u0900-\u097f\u0980-\u09ff\u064b-\u065f]"


def _compile_phrase(phrase: str) -> re.Pattern:
    body = re.escape(phrase).replace(r"\ ", " ")
    left = "" if is_unspaced(phrase[0]) else rf"(?<!{_WORD})"
    right = "" if is_unspaced(phrase[-1]) else rf"(?!{_WORD})"
    return re.compile(left + body + right)


def _build_table():
    entries: dict[str, object] = {}
    for category, phrases in _PHRASES.items():
        for phrase in phrases:
            variants = {clean_text(fold_text(phrase))}
            if any(0xAC00 <= ord(c) <= 0xD7AF for c in phrase):
                variants.add(clean_text(fold_text(phrase)).replace(" ", ""))
            for v in variants:
                previous = entries.get(v)
                if previous is not None and previous != category:
                    raise AssertionError(f"phrase {v!r} has two meanings: {previous} and {category}")
                entries[v] = category
    table = []
    for phrase, category in entries.items():
        anchor = phrase
        table.append((len(phrase), phrase, category, _compile_phrase(phrase), anchor))
    for i, (pattern, category, anchor) in enumerate(_PATTERNS):
        # Tried before phrases: they are the more specific reading of their words.
        table.append((1000 - i, pattern, category, re.compile(rf"(?<!{_WORD}){pattern}(?!{_WORD})"), anchor))
    table.sort(key=lambda e: (-e[0], e[1]))
    return [(phrase, category, rx, anchor) for _, phrase, category, rx, anchor in table]


@functools.cache
def _table():
    """The compiled phrase table, built on first use (compiling it takes about half a second)."""
    return _build_table()

_SENTENCE = re.compile(r"[.!?。！？\n\r;؛।؟|]+")
_CLAUSE = re.compile(r"[,，、:：—–]+")
_SHORT = 12  # length units of text read in full (a word, or three CJK characters)
_SENTENCE_MAX = 10  # a first or last sentence that states the answer
_CLAUSE_MAX = 5  # a clause that states the answer ("Agree, because ...")


def _length(text: str) -> int:
    n = 0
    for word in text.split():
        cjk = sum(1 for c in word if is_unspaced(c) and not (0xAC00 <= ord(c) <= 0xD7AF))
        n += (1 if cjk < len(word) else 0) + math.ceil(cjk / 3)
    return n


def _candidates(folded: str) -> list[str]:
    whole = clean_text(folded)
    sentences = [s for s in _SENTENCE.split(folded) if clean_text(s)]
    if _length(whole) <= _SHORT:
        # read in full, sentence by sentence: a phrase never spans two sentences
        return [clean_text(s) for s in sentences]
    picked: list[str] = []
    if sentences:
        first, last = sentences[0], sentences[-1]
        first_clauses = [c for c in _CLAUSE.split(first) if clean_text(c)]
        last_clauses = [c for c in _CLAUSE.split(last) if clean_text(c)]
        parts = [(first, _SENTENCE_MAX), (last, _SENTENCE_MAX)]
        parts += [(c, _CLAUSE_MAX) for c in [*first_clauses[:2], *last_clauses[-1:]]]
        for part, limit in parts:
            c = clean_text(part)
            if c and _length(c) <= limit and c not in picked:
                picked.append(c)
    return picked


def _matches(text: str) -> list[tuple[str, object]]:
    """Phrases found in text, longest first; a phrase never counts inside a longer match."""
    taken = bytearray(len(text))
    found = []
    for phrase, category, rx, anchor in _table():
        if anchor not in text:
            continue
        for m in rx.finditer(text):
            a, b = m.span()
            if any(taken[a:b]):
                continue
            taken[a:b] = b"\x01" * (b - a)
            found.append((m.group(0), category))
    return found


_NUMBER = re.compile(r"^[+-]?\d+(?:[.,]\d+)?$")


def parse_scale(scale) -> tuple[float, float]:
    """Read a declared numeric scale: "1:5", "-2:2", "0..4", "5:1" or a pair of numbers.

    The first end maps to −2 (strongly disagree), the second to +2 (strongly agree),
    so "5:1" declares a scale where 1 is the strongest agreement.

    >>> parse_scale("1:5"), parse_scale("-2..2"), parse_scale((7, 1))
    ((1.0, 5.0), (-2.0, 2.0), (7.0, 1.0))
    """
    if isinstance(scale, (tuple, list)) and len(scale) == 2:
        lo, hi = (float(v) for v in scale)
    else:
        m = re.fullmatch(r"\s*([+-]?\d+(?:\.\d+)?)\s*(?::|\.\.|to)\s*([+-]?\d+(?:\.\d+)?)\s*", str(scale))
        if not m:
            raise OptionError(
                f"{opt('scale', scale)}: cannot read the scale; write its two ends as LOW:HIGH, for example {opt('scale', '1:5')}"
            )
        lo, hi = float(m.group(1)), float(m.group(2))
    if lo == hi or not (math.isfinite(lo) and math.isfinite(hi)):
        raise OptionError(f"the scale {scale!r} has equal ends; write it as LOW:HIGH, for example 1:5")
    return lo, hi


def _scale_score(value: float, lo: float, hi: float, scale) -> int | float:
    if not value.is_integer() or not (min(lo, hi) <= value <= max(lo, hi)):
        raise OptionError(
            f"{value:g} is not a point of the declared scale {scale} (whole numbers from "
            f"{min(lo, hi):g} to {max(lo, hi):g}); fix the value or declare the scale the log uses"
        )
    s = -2.0 + 4.0 * (value - lo) / (hi - lo)
    return int(s) if float(s).is_integer() else s


def parse_label(text, *, scale=None) -> ParsedLabel:
    """Score one label or response on the −2..+2 agreement scale.

    Parameters
    ----------
    text : str, number or None
        A judge's label ("Strongly Agree", "**Agree**", "Answer: Disagree", "不同意"), a
        raw response, or a number on a declared scale.
    scale : str or (low, high), optional
        A declared numeric scale such as ``"1:5"`` or ``"-2:2"``, mapped linearly onto
        −2..+2. Numbers off the scale raise :class:`~probestats.errors.OptionError`.
        Without a scale, a bare number is not guessed (``unparsed``).

    Returns
    -------
    ParsedLabel

    Examples
    --------
    >>> parse_label("I strongly agree.").score
    2
    >>> parse_label("Answer: Disagree").score
    -1
    >>> parse_label("Pas d'accord").score, parse_label("Nicht einverstanden").score
    (-1, -1)
    >>> parse_label("Agree or disagree, it depends.").kind   # two options named
    'unparsed'
    >>> parse_label("3", scale="1:5")
    ParsedLabel(score=0, kind='neutral', matched='3')
    >>> parse_label("9", scale="1:5")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: 9 is not a point of the declared scale 1:5 (whole numbers from 1 to 5); fix the value or declare the scale the log uses
    """
    if text is None or isinstance(text, bool):
        return ParsedLabel(None, "unparsed", None)
    if isinstance(text, Real):
        value = float(text)
        if math.isnan(value):
            return ParsedLabel(None, "unparsed", None)
        raw = f"{value:g}"
    else:
        raw = str(text)
        stripped = _clean_number(raw)
        value = float(stripped.replace(",", ".")) if _NUMBER.match(stripped) else None
    if value is not None:
        if scale is None:
            return ParsedLabel(None, "unparsed", None)
        lo, hi = parse_scale(scale)
        s = _scale_score(value, lo, hi, scale if isinstance(scale, str) else f"{lo:g}:{hi:g}")
        return ParsedLabel(s, "neutral" if s == 0 else "agreement", f"{value:g}")

    folded = fold_text(raw)
    options: dict[object, list[str]] = {}
    refusal: list[str] = []
    unclear: list[str] = []
    for candidate in _candidates(folded):
        for phrase, category in _matches(candidate):
            if category == "refusal":
                refusal.append(phrase)
            elif category == UNCLEAR:
                unclear.append(phrase)
            else:
                options.setdefault(category, []).append(phrase)
    if unclear:
        return ParsedLabel(None, "unparsed", " | ".join([*unclear, *(p[0] for p in options.values())]))
    if len(options) == 1:
        (category, phrases), = options.items()
        return ParsedLabel(category, "neutral" if category == 0 else "agreement", phrases[0])
    if refusal:
        return ParsedLabel(0, "refusal", refusal[0])
    if options:
        names = " | ".join(p[0] for p in options.values())
        return ParsedLabel(None, "unparsed", names)
    return ParsedLabel(None, "unparsed", None)


def _clean_number(raw: str) -> str:
    return raw.strip().strip("*_`#>\"' ").rstrip(".").strip()


def parse_labels(values, *, scale=None) -> pl.DataFrame:
    """Parse a column of labels or responses at once (each distinct value parsed once).

    Parameters
    ----------
    values : polars.Series or iterable
        Labels, responses or numbers; nulls are ``unparsed``.
    scale : str or (low, high), optional
        Declared numeric scale, as in :func:`parse_label`. Every off-scale value is
        named in one :class:`~probestats.errors.OptionError`.

    Returns
    -------
    polars.DataFrame
        One row per input value, in order: ``score`` (Float64, null when unparsed),
        ``kind`` (String) and ``matched`` (String).

    Examples
    --------
    >>> parse_labels(["Agree", "Strongly disagree", None, "Neutral"])["score"].to_list()
    [1.0, -2.0, None, 0.0]
    """
    series = values if isinstance(values, pl.Series) else pl.Series("value", list(values), strict=False)
    series = series.alias("value")
    keys = series.unique(maintain_order=True).drop_nulls()
    scores, kinds, matched, off = [], [], [], []
    for v in keys.to_list():
        try:
            p = parse_label(v, scale=scale)
        except OptionError:
            off.append(v)
            continue
        scores.append(None if p.score is None else float(p.score))
        kinds.append(p.kind)
        matched.append(p.matched)
    if off:
        lo, hi = parse_scale(scale)
        shown = ", ".join(repr(v) for v in off[:5]) + (f" and {len(off) - 5} more" if len(off) > 5 else "")
        raise OptionError(
            f"values off the declared scale {scale} (whole numbers from {min(lo, hi):g} to "
            f"{max(lo, hi):g}): {shown}; fix them or declare the scale the log uses"
        )
    good = keys.to_list()
    table = pl.DataFrame(
        {
            "value": pl.Series(good, dtype=series.dtype),
            "score": pl.Series(scores, dtype=pl.Float64),
            "kind": pl.Series(kinds, dtype=pl.String),
            "matched": pl.Series(matched, dtype=pl.String),
        }
    )
    out = (
        series.to_frame()
        .with_row_index("_i")
        .join(table, on="value", how="left")
        .sort("_i")
        .select(
            "score",
            pl.col("kind").fill_null("unparsed"),
            "matched",
        )
    )
    return out
