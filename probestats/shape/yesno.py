"""Yes/no answers to scores: +1 for yes, −1 for no, never 0/1 (0 is neutral on the agreement scale).

The rule, applied to every reply or label:

1. The text is folded as :mod:`probestats.shape.labels` folds it (Unicode NFKC, case,
   accents on Latin letters, Arabic letter variants and diacritics).
2. Leading spaces, markdown marks (``* _ ` # > ~ -``) and quotes are stripped, then a
   leading answer label followed by a colon or a dash ("Answer:", "Respuesta:",
   "答案：", "Ответ -", ...; see ``answer_labels`` in ``yes_no_phrases.json``), then
   marks and quotes again.
3. Punctuation becomes spaces, and the phrase the reply **starts with** decides: the
   longest phrase of the table (yes, no, refusal, hedge, and the user's ``label_map``,
   which wins over the table) that the reply begins with and that ends where a word
   ends. In scripts written without spaces (Chinese, Japanese) a phrase of two or more
   characters may be followed directly by more text ("不是这样" is a no); a
   one-character phrase (是, 否, 对, 不) must stand alone or before punctuation.
   Since the longest phrase wins, "No sé" is a hedge and "Yes and no" a hedge, not an
   answer.
4. A number is read by its sign and never loses it: ``1``, ``+1`` and ``1.0`` are yes; ``0``, ``-1``
   and ``−1`` (U+2212; fullwidth and small minus signs fold to ``-``) are no, so a judge that writes
   ±1 or 0/1 is read as it means; a boolean is yes or no. A sign or mark before a number is never
   stripped as Markdown: ``**-1**`` and ``"-1"`` are no, while ``- 1`` (a sign apart from its digit,
   or a list bullet), ``> 1`` and ``~1`` (a comparison), ``-0`` and any other number are ``unparsed``.
5. Otherwise a reply that reads as a refusal anywhere the agreement parser looks
   (:func:`probestats.shape.labels.parse_label`) is a refusal; anything else is
   ``unparsed``: counted and listed by the analyses, never guessed.

Refusals and hedges are recognized but carry no score: the analyses count them apart.

Examples
--------
>>> parse_yes_no("**Answer:** Yes, because ...")
ParsedLabel(score=1, kind='yes', matched='yes')
>>> parse_yes_no("Nein.").score, parse_yes_no("いいえ、違います").score, parse_yes_no("Да").score
(-1, -1, 1)
>>> parse_yes_no("No sé").kind, parse_yes_no("As an AI, I cannot answer.").kind
('hedge', 'refusal')
>>> parse_yes_no("The claim is partly true").kind
'unparsed'
>>> [parse_yes_no(t).kind for t in ("+1", "-1", "−1", "**-1**", "- 1", "> 1", -1, "0")]
['yes', 'no', 'no', 'no', 'unparsed', 'unparsed', 'no', 'no']
"""

from __future__ import annotations

import functools
import json
import math
import re
from numbers import Real

import polars as pl

from probestats.errors import OptionError, opt
from probestats.shape.labels import ParsedLabel, clean_text, fold_text, is_unspaced, parse_label

__all__ = ["LANGUAGES", "YES_NO_KINDS", "parse_label_map", "parse_yes_no", "parse_yes_nos", "yes_no_share"]

#: Kinds a yes/no reading gives.
YES_NO_KINDS = ("yes", "no", "refusal", "hedge", "unparsed")
_CATEGORIES = {"yes": 1, "no": -1, "refusal": "refusal", "hedge": "hedge"}
_MARKS = "*_`#>~-•·\"'“”‘’„«»‹›「」『』【】()[]{} \t\r\n\u3000"


@functools.cache
def _data() -> dict:
    from importlib import resources

    text = resources.files("probestats.shape").joinpath("yes_no_phrases.json").read_text(encoding="utf-8")
    return json.loads(text)


def _key(phrase: str) -> str:
    return clean_text(fold_text(str(phrase)))


#: Languages with yes/no words in the table (ISO 639-1 codes).
LANGUAGES = tuple(_data()["yes"])


@functools.cache
def _table() -> tuple[dict[str, str], re.Pattern]:
    """``{folded phrase: category}`` from the data file, and the answer-label pattern."""
    data = _data()
    table: dict[str, str] = {}
    for category in _CATEGORIES:
        for phrases in data[category].values():
            for p in phrases:
                k = _key(p)
                if k and table.get(k, category) != category:
                    raise AssertionError(f"yes/no phrase {k!r} has two meanings: {table[k]} and {category}")
                table[k] = category
    labels = sorted({fold_text(a) for a in data["answer_labels"]}, key=len, reverse=True)
    pattern = re.compile(r"^(?:" + "|".join(re.escape(a) for a in labels) + r")\s*(?:[:：]|[\-–—](?!\s*\.?\d))+")   # a dash before a number is its sign
    return table, pattern


def parse_label_map(entries) -> dict[str, str]:
    """Read ``label_map`` entries ``LABEL=TEXT,TEXT`` (LABEL: yes, no, refusal or hedge).

    Parameters
    ----------
    entries : str, iterable of str, or mapping
        ``"yes=Affirm,Y"`` entries, or ``{"yes": ["Affirm", "Y"]}``.

    Returns
    -------
    dict
        ``{folded text: category}``.

    Examples
    --------
    >>> parse_label_map(["yes=Affirm,Y", "no=Negate"])
    {'affirm': 'yes', 'y': 'yes', 'negate': 'no'}
    """
    if entries is None:
        return {}
    if isinstance(entries, str):
        entries = [entries]
    pairs: list[tuple[str, str]] = []
    if hasattr(entries, "items"):
        for label, texts in entries.items():
            texts = [texts] if isinstance(texts, str) else list(texts)
            pairs += [(str(label), str(t)) for t in texts]
    else:
        for entry in entries:
            label, sep, texts = str(entry).partition("=")
            if not sep or not texts.strip():
                raise OptionError(f"{opt('label_map', str(entry))}: write LABEL=TEXT,TEXT with LABEL one of "
                                  f"yes, no, refusal, hedge (for example {opt('label_map', 'yes=Affirm,Y')})")
            pairs += [(label, t) for t in texts.split(",")]
    out: dict[str, str] = {}
    for label, text in pairs:
        category = label.strip().lower()
        if category not in _CATEGORIES:
            raise OptionError(f"{opt('label_map')}: unknown label {label.strip()!r}; use yes, no, refusal or hedge "
                              f"(for example {opt('label_map', 'no=Negate')})")
        key = _key(text)
        if not key:
            raise OptionError(f"{opt('label_map', label.strip() + '=')}: give the text the replies use after the '='")
        if out.get(key, category) != category:
            raise OptionError(f"{opt('label_map')} gives {text.strip()!r} two labels, {out[key]} and {category}")
        out[key] = category
    return out


#: marks that may also be a sign or a comparison before a number (``-1``, ``> 1``, ``~1``): kept there
_SIGN_MARKS = "-~>"
_DIGIT = re.compile(r"\s*\.?\d")
_SIGNED = re.compile(r"([-+−>~]?)(\s*)(\d+(?:\.\d*)?|\.\d+)\.?")


def _marks_off(text: str) -> str:
    """``text`` without leading and trailing marks and quotes, keeping a mark that stands before a number."""
    text = text.rstrip(_MARKS)
    i = 0
    while i < len(text) and text[i] in _MARKS and not (text[i] in _SIGN_MARKS and _DIGIT.match(text, i + 1)):
        i += 1
    return text[i:]


def _strip(folded: str, labels: re.Pattern) -> str:
    text = _marks_off(folded)
    for _ in range(3):
        m = labels.match(text)
        if not m:
            break
        text = _marks_off(text[m.end():])
    return text


def _number(stripped: str) -> ParsedLabel | None:
    """The reading of a reply that is one number (rule 4), or None when it is not a number."""
    core = stripped.rstrip(_MARKS + ".,;!?。，！？")   # '`-1`.': the sentence's stop after the marks
    m = _SIGNED.fullmatch(core)
    if m is None:
        return None
    sign, space, digits = m.groups()
    value = float(digits)
    if sign in ("", "+") and not space and value == 1.0:
        return ParsedLabel(1, "yes", core.rstrip("."))
    if (sign in ("-", "−") and not space and value == 1.0) or (sign == "" and value == 0.0):
        return ParsedLabel(-1, "no", core.rstrip("."))
    # another number without a sign goes on to the wordings (a label map may name it); with one, unread
    return None if sign == "" else ParsedLabel(None, "unparsed", None)


def _starts(cleaned: str, phrase: str) -> bool:
    if not cleaned.startswith(phrase):
        return False
    rest = cleaned[len(phrase):]
    if not rest or rest[0] == " ":
        return True
    # a phrase in an unspaced script may run on into more text when it is two characters or more
    return is_unspaced(phrase[-1]) and len(phrase) >= 2 and not (0xAC00 <= ord(phrase[-1]) <= 0xD7AF)


def _lookup(cleaned: str, table: dict[str, str], extra: dict[str, str]) -> tuple[str, str] | None:
    best: tuple[str, str] | None = None
    for source in (extra, table):  # the user's wordings first: at equal length they win
        for phrase, category in source.items():
            if (best is None or len(phrase) > len(best[0])) and _starts(cleaned, phrase):
                best = (phrase, category)
    return best


def parse_yes_no(text, *, label_map=None) -> ParsedLabel:
    """Read one reply or label as a yes/no answer (see the module's rule).

    Parameters
    ----------
    text : str, number, bool or None
    label_map : mapping or iterable of str, optional
        Other wordings, as :func:`parse_label_map` reads them.

    Returns
    -------
    ParsedLabel
        ``score`` +1 (yes), −1 (no) or None; ``kind`` one of yes, no, refusal, hedge,
        unparsed; ``matched`` the phrase that decided.

    Examples
    --------
    >>> parse_yes_no('"Oui."').score, parse_yes_no("Respuesta: NO").score, parse_yes_no(0).score
    (1, -1, -1)
    >>> parse_yes_no("Affirm", label_map=["yes=affirm"]).kind
    'yes'
    """
    return _read(text, parse_label_map(label_map))


def _read(text, extra: dict[str, str]) -> ParsedLabel:
    if text is None:
        return ParsedLabel(None, "unparsed", None)
    if isinstance(text, bool):
        return ParsedLabel(1 if text else -1, "yes" if text else "no", "1" if text else "0")
    if isinstance(text, Real):
        try:
            value = float(text)
        except OverflowError:   # an integer past the floats: no answer
            return ParsedLabel(None, "unparsed", None)
        if value in (0.0, 1.0, -1.0) and not (value == 0.0 and math.copysign(1.0, value) < 0):
            return ParsedLabel(1 if value == 1.0 else -1, "yes" if value == 1.0 else "no", f"{value:g}")
        return ParsedLabel(None, "unparsed", None)
    table, labels = _table()
    stripped = _strip(fold_text(str(text)), labels)
    number = _number(stripped)
    if number is not None:
        return number
    cleaned = clean_text(stripped)
    if cleaned in extra:  # a whole-reply wording given by the user
        return _reading(cleaned, extra[cleaned])
    found = _lookup(cleaned, table, extra)
    if found is not None:
        return _reading(*found)
    if parse_label(str(text)).kind == "refusal":
        return ParsedLabel(None, "refusal", parse_label(str(text)).matched)
    return ParsedLabel(None, "unparsed", None)


def _reading(phrase: str, category: str) -> ParsedLabel:
    score = _CATEGORIES[category]
    return ParsedLabel(score if isinstance(score, int) else None, category, phrase)


def parse_yes_nos(values, *, label_map=None) -> pl.DataFrame:
    """Read a column of replies or labels as yes/no answers (each distinct value read once).

    Returns
    -------
    polars.DataFrame
        One row per input value, in order: ``score`` (Float64: +1, −1 or null), ``kind``
        and ``matched``.

    Examples
    --------
    >>> parse_yes_nos(["Yes.", "Nein", None, "peut-être"]).to_dict(as_series=False)["kind"]
    ['yes', 'no', 'unparsed', 'hedge']
    """
    extra = parse_label_map(label_map)
    series = values if isinstance(values, pl.Series) else pl.Series("value", list(values), strict=False)
    series = series.alias("value")
    keys = series.unique(maintain_order=True).drop_nulls()
    read = [_read(v, extra) for v in keys.to_list()]
    table = pl.DataFrame({
        "value": keys,
        "score": pl.Series([None if r.score is None else float(r.score) for r in read], dtype=pl.Float64),
        "kind": pl.Series([r.kind for r in read], dtype=pl.String),
        "matched": pl.Series([r.matched for r in read], dtype=pl.String),
    })
    return (series.to_frame().with_row_index("_i").join(table, on="value", how="left", nulls_equal=False)
            .sort("_i").select("score", pl.col("kind").fill_null("unparsed"), "matched"))


def yes_no_share(values, *, label_map=None) -> tuple[int, int]:
    """How many distinct values read as yes/no, and how many as a point of the agreement scale.

    Used to choose the binary mode: yes/no when the first count is larger.

    >>> yes_no_share(["Yes", "No", "Agree"])
    (2, 1)
    """
    series = values if isinstance(values, pl.Series) else pl.Series("value", list(values), strict=False)
    keys = series.drop_nulls().unique().to_list()
    extra = parse_label_map(label_map)
    yn = sum(_read(v, extra).kind in ("yes", "no") for v in keys)
    agreement = 0
    for v in keys:
        try:
            agreement += parse_label(v).kind in ("agreement", "neutral")
        except OptionError:
            pass
    return yn, agreement
