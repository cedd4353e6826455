"""Code books: replies turned into a label and a score by ordered rules (``--code NAME=BOOK``).

A code book is a list of rules, each a pattern, a label and optionally a score. The reply (the
``reply`` column, mapped like any canonical column, ``--column reply=completion``; a book may
name another column) is **folded** (Unicode NFKC, so full-width letters and digits are the plain
ones; case; accents on Latin letters; Arabic letter variants; runs of white space as one space,
none at the ends) and the **first rule whose pattern matches** decides. Patterns are regular
expressions in the one dialect of every user pattern (:mod:`probestats.shape.patterns`: Rust's
``regex`` syntax as polars runs it, in time linear in the reply: no look-around, no back-references),
searched anywhere in the folded text (anchor them with ``^`` and ``$``); the letters of a pattern
are folded the same way (an escape such as ``\\S`` or ``\\pN`` is left as written). A book may read
only the first N characters of the folded reply. A pattern the dialect refuses is refused with the
construct named; a set of characters that nests or doubles a sign (``[[A]]``, which Python reads as a
set of ``[`` and ``A`` followed by ``]`` and Rust as a nested set) is refused with the fix: the text
``[[A]]`` is written ``\\[\\[A\\]\\]``.

Labels named ``refusal`` and ``hedge`` are classes of their own: counted apart, with no score
unless their rule gives one. A reply no rule matches is ``unparsed`` and a blank one ``blank``:
neither is guessed, both are counted (per value, in validation and the report) and the
unparsed are shown by example.

A **CSV book** has the columns ``pattern``, ``label`` and optionally ``score``, one rule a row,
in order. A **TOML book** holds the same keys per rule, and may name the column and the leading
characters read::

    column = "completion"      # default: reply
    first_chars = 200          # default: the whole reply
    [[rules]]
    pattern = "^(strongly|totally) agree"
    label = "strongly agree"
    score = 2

The **built-in books**, named instead of a file:

- ``yes-no``: yes and no in the 13 languages of the framing analysis (score 1 and 0), by the
  rule of :mod:`probestats.shape.yesno`; refusals and hedges apart.
- ``agree-5``: the 5-point agreement scale (strongly agree 2 ... strongly disagree −2) in the
  languages of :mod:`probestats.shape.labels`; ``agree-4``: the same without a neutral point (a
  neutral reply is unparsed).
- ``choice``: a letter or number chosen, ``a``, ``(B)``, ``Option 2``, ``2)``: the label is the
  letter (upper case) or the number, the score its position (A 1, B 2, ...; a number itself).
- ``scale:LOW:HIGH``: a number on a stated scale, the first number in the reply (``7/10``,
  ``Rating: 7``), within LOW..HIGH, as label and score.

``--code NAME=BOOK`` makes three columns: ``NAME`` (the score when the book gives scores, else
the label), ``NAME_label`` and ``NAME_kind`` (coded, refusal, hedge, unparsed or blank).

Examples
--------
>>> book = read_book([{"pattern": "strongly disagree", "label": "SD", "score": -2},
...                   {"pattern": "disagree", "label": "D", "score": -1},
...                   {"pattern": "strongly agree", "label": "SA", "score": 2},
...                   {"pattern": "agree", "label": "A", "score": 1}])
>>> book.code(["I STRONGLY disagree.", "Ｉ ａｇｒｅｅ", "", "Hmm"]).rows()
[('SD', -2.0, 'coded'), ('A', 1.0, 'coded'), (None, None, 'blank'), (None, None, 'unparsed')]
>>> builtin("choice").code(["(B)", "Option 2", "a) yes", "a good question"])["label"].to_list()
['B', '2', 'A', None]
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Callable, Sequence

import polars as pl

from probestats.errors import ColumnError, OptionError, Problem, ReadError, caught_warnings, either, opt
from probestats.io.log import collect
from probestats.shape.labels import fold_text, parse_label, score_name
from probestats.shape.nested import with_paths
from probestats.shape.patterns import PatternError, check_pattern, contains
from probestats.shape.yesno import parse_yes_nos

__all__ = ["BUILTIN", "CodeBook", "Rule", "builtin", "fold_reply", "load_book", "parse_code", "read_book",
           "compile_pattern", "AmbiguousPattern"]

KINDS = ("coded", "refusal", "hedge", "unparsed", "blank")
#: a book's rules at most (each reply is tried against them in order)
MAX_RULES = 10_000
_CLASSES = {"refusal": "refusal", "hedge": "hedge"}


def fold_reply(text: str) -> str:
    """A reply as code book patterns see it: folded as :mod:`probestats.shape.labels` folds text,
    white space collapsed.

    >>> fold_reply("  Ｓｔｒｏｎｇｌｙ\\n  AGRÉE ")
    'strongly agree'
    """
    return " ".join(fold_text(str(text)).split())


class AmbiguousPattern(ValueError):
    """A pattern Python's ``re`` reads today but warns may change meaning (a ``[`` inside a set of characters,
    or ``--``, ``&&``, ``~~``, ``||`` inside one); ``fix`` is the pattern that matches its text as written."""

    def __init__(self, pattern: str, warning: str):
        self.pattern, self.fix, self.warning = pattern, re.escape(pattern), warning
        super().__init__(f"a set of characters [...] in it may change meaning (Python's re warns: "
                         f"{warning[:1].lower()}{warning[1:]}); write {self.fix} to match the text {pattern} as "
                         "written, or escape the [ (or the doubled sign) inside the set with a backslash to keep the set")


def compile_pattern(pattern: str) -> str:
    """A user's regular expression checked in the dialect of :mod:`probestats.shape.patterns` (returned as is):
    a set of characters Python warns is ambiguous raises :class:`AmbiguousPattern`, a pattern the dialect
    refuses :class:`~probestats.shape.patterns.PatternError` naming the construct.

    >>> compile_pattern(r"\\[\\[A\\]\\]")
    '\\\\[\\\\[A\\\\]\\\\]'
    >>> compile_pattern("(?<=a)b")
    Traceback (most recent call last):
    ...
    probestats.shape.patterns.PatternError: look-around ((?=, (?!, (?<=, (?<!) is not supported, at '(?<='

    >>> compile_pattern("[[A]]")
    Traceback (most recent call last):
    ...
    probestats.shape.codebook.AmbiguousPattern: a set of characters [...] in it may change meaning (Python's re warns: possible nested set at position 1); write \\[\\[A\\]\\] to match the text [[A]] as written, or escape the [ (or the doubled sign) inside the set with a backslash to keep the set
    """
    with caught_warnings():   # the filters are the process's: one block changes them at a time
        warnings.simplefilter("error", FutureWarning)   # raised before the pattern is cached, so it is raised again
        try:   # re.UNICODE, implied for text, keeps a copy compiled elsewhere (warning unseen) out of the cache's way
            re.compile(pattern, re.UNICODE)   # compiled only, for its warning: never matched (re backtracks)
        except FutureWarning as warned:
            raise AmbiguousPattern(pattern, str(warned)) from None
        except Exception:   # noqa: BLE001 - re's own syntax is not the dialect's: the dialect judges below
            pass
    return check_pattern(pattern)


def _fold_pattern(pattern: str) -> str:
    """A pattern's letters folded as replies are; escapes (``\\S``, ``\\d``, ``\\p{Greek}``), flags and group names
    (``(?P<Name>``, ``(?U)``) left as written.

    >>> print(_fold_pattern(r"(?P<Word>ÉTÉ)\\p{Greek}\\S"))
    (?P<Word>ete)\\p{Greek}\\S
    """
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            end = i + 2
            if pattern[i + 1] in "pP" and end < len(pattern):   # \pN, \p{Greek}: a class's name as written
                end = pattern.find("}", end) + 1 if pattern[end] == "{" and "}" in pattern[end:] else end + 1
            out.append(pattern[i:end])
            i = end
            continue
        if pattern.startswith("(?", i):   # flags and group names as written: (?P<Name>, (?i), (?x:
            end = next((j for j in range(i + 2, len(pattern)) if pattern[j] in ">:)"), len(pattern) - 1) + 1
            out.append(pattern[i:end])
            i = end
            continue
        out.append(fold_reply(ch) if not ch.isspace() else ch)
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Rule:
    """One rule of a code book.

    Attributes
    ----------
    pattern : str
        A regular expression (Python ``re``), searched in the folded reply.
    label : str
        The label a matching reply gets (``refusal`` and ``hedge`` are classes of their own).
    score : float or None
        The score it gets (None: the rule gives none).
    """

    pattern: str
    label: str
    score: float | None = None

    @property
    def kind(self) -> str:
        return _CLASSES.get(self.label.strip().lower(), "coded")


@dataclass(frozen=True)
class CodeBook:
    """Ordered rules that code a column of replies into a label and a score.

    Attributes
    ----------
    name : str
        The book as given (a file name or a built-in book's name).
    rules : tuple of Rule
        In order: the first that matches decides (empty for a built-in book, which has a reader).
    column : str
        The column read (default ``reply``).
    first_chars : int or None
        Only this many leading characters of the folded reply are read (None: all of it).
    scored : bool
        The book gives scores (its ``NAME`` column is the score, else the label).
    """

    name: str
    rules: tuple[Rule, ...] = ()
    column: str = "reply"
    first_chars: int | None = None
    scored: bool = True
    _reader: Callable | None = field(default=None, repr=False, compare=False)
    _table_reader: Callable | None = field(default=None, repr=False, compare=False)

    def code(self, values) -> pl.DataFrame:
        """Each value's ``label``, ``score`` (Float64) and ``kind``, one row per value, in order.

        Each distinct value is read once.
        """
        series = values if isinstance(values, pl.Series) else pl.Series("value", list(values), dtype=pl.String,
                                                                          strict=False)
        series = series.cast(pl.String).alias("value")
        table = self.table(series.unique(maintain_order=True).drop_nulls())
        return (series.to_frame().with_row_index("\0i").join(table, on="value", how="left")
                .sort("\0i").select("label", "score", pl.col("kind").fill_null("blank")))

    def table(self, values: pl.Series) -> pl.DataFrame:
        """The reading of each of ``values`` (distinct texts): ``value``, ``label``, ``score``, ``kind``."""
        if self._table_reader is not None:
            return self._table_reader(values)
        if self._reader is None:
            return self._by_rules(values)
        read = [self._one(v) for v in values.to_list()]
        return pl.DataFrame({"value": pl.Series(values.to_list(), dtype=pl.String),
                             "label": pl.Series([r[0] for r in read], dtype=pl.String),
                             "score": pl.Series([r[1] for r in read], dtype=pl.Float64),
                             "kind": pl.Series([r[2] for r in read], dtype=pl.String)})

    def _one(self, value: str) -> tuple:
        if not value.strip():
            return None, None, "blank"
        return self._reader(value)

    def _by_rules(self, values: pl.Series) -> pl.DataFrame:
        """The rules read over every value at once, each pattern run by the linear-time engine over the column."""
        texts = values.to_list()
        folded = [fold_reply(v) for v in texts]
        if self.first_chars is not None:
            folded = [t[:self.first_chars] for t in folded]
        blank = [not v.strip() for v in texts]
        decided = [None] * len(texts)
        column = pl.Series(folded, dtype=pl.String)
        left = [i for i, b in enumerate(blank) if not b]
        for index, pattern in enumerate(self._patterns):
            if not left:
                break
            hits = contains(column.gather(left), pattern).to_list()
            decided_now = [i for i, hit in zip(left, hits) if hit]
            for i in decided_now:
                decided[i] = index
            left = [i for i, hit in zip(left, hits) if not hit]
        rules = self.rules
        read = [(None, None, "blank") if b else (None, None, "unparsed") if d is None
                else (rules[d].label, rules[d].score, rules[d].kind) for b, d in zip(blank, decided)]
        return pl.DataFrame({"value": pl.Series(texts, dtype=pl.String),
                             "label": pl.Series([r[0] for r in read], dtype=pl.String),
                             "score": pl.Series([r[1] for r in read], dtype=pl.Float64),
                             "kind": pl.Series([r[2] for r in read], dtype=pl.String)})

    @cached_property
    def _patterns(self) -> list[str]:
        return [compile_pattern(_fold_pattern(r.pattern)) for r in self.rules]


# ---------------------------------------------------------------- reading a book


def read_book(rules, *, name: str = "the code book", column: str = "reply", first_chars: int | None = None) -> CodeBook:
    """A code book from rules: a list of dicts (or rows) with ``pattern``, ``label`` and optionally ``score``.

    Every pattern is checked (one error names the rule that does not compile).
    """
    out = []
    for i, rule in enumerate(rules, start=1):
        if not isinstance(rule, dict):
            raise OptionError(f"{name}: rule {i} is not a table of pattern, label and score")
        unknown = [k for k in rule if k not in ("pattern", "label", "score")]
        if unknown:
            raise OptionError(f"{name}: rule {i} has the key {unknown[0]!r}; a rule has pattern, label and "
                              "optionally score")
        pattern, label, score = rule.get("pattern"), rule.get("label"), rule.get("score")
        if pattern is None or str(pattern) == "" or label is None or str(label).strip() == "":
            raise OptionError(f"{name}: rule {i} needs a pattern and a label")
        try:
            compile_pattern(_fold_pattern(str(pattern)))
        except AmbiguousPattern as exc:   # said of the pattern as written, not as folded
            raise OptionError(f"{name}: the pattern of rule {i} ({str(pattern)!r}) is ambiguous: "
                              f"{AmbiguousPattern(str(pattern), exc.warning)}") from None
        except PatternError as exc:
            raise OptionError(f"{name}: the pattern of rule {i} ({str(pattern)!r}) is not a regular expression "
                              f"({exc}); write it without that construct, or escape ( ) [ ] . * + ? with a backslash to match them "
                              "as written") from None
        out.append(Rule(str(pattern), str(label).strip(), _score(score, name, i)))
    if not out:
        raise OptionError(f"{name}: the book has no rules; give one per row (pattern, label, score)")
    if len(out) > MAX_RULES:
        raise OptionError(f"{name}: {len(out):,} rules, more than the {MAX_RULES:,} a book may hold")
    if first_chars is not None and (isinstance(first_chars, bool) or not isinstance(first_chars, int)
                                    or first_chars < 1):
        raise OptionError(f"{name}: first_chars must be a whole number of characters, 1 or more")
    if not isinstance(column, str) or not column.strip():
        raise OptionError(f"{name}: column must name the column the book reads")
    return CodeBook(name=name, rules=tuple(out), column=column, first_chars=first_chars,
                    scored=any(r.score is not None for r in out))


def _score(value, name: str, i: int) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise OptionError(f"{name}: the score of rule {i} ({value!r}) is not a number; leave it blank for a label "
                          "without a score") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise OptionError(f"{name}: the score of rule {i} is not a finite number")
    return number


def load_book(text: str) -> CodeBook:
    """A code book by name: a built-in book, or a ``.csv`` or ``.toml`` file.

    Raises
    ------
    OptionError
        No such built-in book or file, or a book that cannot be read (the message says where).
    """
    given = str(text).strip()
    if given.split(":")[0] in BUILTIN and not Path(given).is_file():
        return builtin(given)
    path = Path(given)
    if not path.is_file():
        raise OptionError(f"{opt('code')}: no code book '{given}': give a .csv or .toml file, or a built-in book "
                          f"({', '.join(BUILTIN_NAMES)})")
    if path.suffix.lower() == ".toml":
        return _toml_book(path)
    if path.suffix.lower() in (".csv", ".tsv"):
        return _csv_book(path)
    raise OptionError(f"{opt('code')}: the code book '{path.name}' must be a .csv or .toml file")


def _not_utf8(path: Path) -> str | None:
    """Why a code book's bytes are not UTF-8 text ("UTF-16 text", "not UTF-8 text"), or None if they are."""
    try:
        head = path.read_bytes()[: 1 << 16]
    except OSError:
        return None
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or head[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"):
        return "UTF-16 text" if head[:4] not in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff") else "UTF-32 text"
    if head.count(b"\x00") > len(head) // 4:   # every other byte 0: UTF-16 without its mark
        return "UTF-16 text"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:   # not a character cut by the 64 KB read
            return "not UTF-8 text"
    return None


def _csv_book(path: Path) -> CodeBook:
    wrong = _not_utf8(path)
    if wrong:
        raise ReadError(f"cannot read the code book '{path.name}': it is {wrong}; save it as UTF-8 (in a "
                        "spreadsheet: Save As, CSV UTF-8)")
    try:
        frame = pl.read_csv(path, infer_schema=False, separator="\t" if path.suffix.lower() == ".tsv" else ",")
    except Exception as exc:
        raise ReadError(f"cannot read the code book '{path.name}' ({str(exc).splitlines()[0]}); it needs the "
                        "columns pattern, label and optionally score") from None
    columns = {c.strip().lower(): c for c in frame.columns}
    missing = [c for c in ("pattern", "label") if c not in columns]
    extra = [c for c in columns if c not in ("pattern", "label", "score")]
    if missing or extra:
        raise OptionError(f"the code book '{path.name}' needs the columns pattern, label and optionally score; "
                          f"it has {', '.join(frame.columns)}")
    rows = frame.rename({v: k for k, v in columns.items()}).to_dicts()
    return read_book(rows, name=path.name)


def _toml_book(path: Path) -> CodeBook:
    import tomllib

    wrong = _not_utf8(path)
    if wrong:
        raise ReadError(f"cannot read the code book '{path.name}': it is {wrong}; save it as UTF-8")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ReadError(f"cannot read the code book '{path.name}' as TOML ({exc})") from None
    unknown = [k for k in data if k not in ("rules", "column", "first_chars")]
    if unknown:
        raise OptionError(f"the code book '{path.name}' has the key {unknown[0]!r}; a TOML book has rules "
                          "([[rules]] tables of pattern, label, score), column and first_chars")
    rules = data.get("rules")
    if not isinstance(rules, list):
        raise OptionError(f"the code book '{path.name}' has no rules; write each as a [[rules]] table")
    return read_book(rules, name=path.name, column=data.get("column", "reply"), first_chars=data.get("first_chars"))


def parse_code(spec: str) -> tuple[str, str]:
    """``NAME=BOOK`` as (column name, book).

    >>> parse_code("stance = agree-4")
    ('stance', 'agree-4')
    """
    name, sep, book = str(spec).partition("=")
    if not sep or not name.strip() or not book.strip() or not re.fullmatch(r"[A-Za-z_][\w.]*", name.strip()):
        raise OptionError(f"{opt('code', str(spec))}: expected NAME=BOOK (a column name, then a .csv or .toml code "
                          f"book or a built-in one: {', '.join(BUILTIN_NAMES)}), for example "
                          f"{opt('code', 'stance=agree-4')}")
    return name.strip(), book.strip()


# ---------------------------------------------------------------- the built-in books


def yes_no_book(label_map=None) -> CodeBook:
    """The built-in ``yes-no`` book, with other wordings (``label_map``, as
    :func:`probestats.shape.yesno.parse_label_map` reads them) beside the table's: the reader the framing
    analysis reads yes/no answers with.

    >>> yes_no_book(["yes=Affirm"]).code(["Affirm.", "No"]).rows()
    [('yes', 1.0, 'coded'), ('no', 0.0, 'coded')]
    """
    def table(values: pl.Series) -> pl.DataFrame:
        values = pl.Series("value", values.to_list(), dtype=pl.String)
        read = parse_yes_nos(values, label_map=label_map)
        kind = read["kind"]
        blank = values.str.strip_chars() == ""
        return pl.DataFrame({
            "value": values,
            "label": pl.select(pl.when(kind.is_in(["unparsed"]) | blank).then(None).otherwise(kind)).to_series(),
            "score": pl.select(pl.when(kind == "yes").then(1.0).when(kind == "no").then(0.0)
                               .otherwise(None)).to_series().cast(pl.Float64),
            "kind": pl.select(pl.when(blank).then(pl.lit("blank")).when(kind.is_in(["yes", "no"]))
                              .then(pl.lit("coded")).otherwise(kind)).to_series()})

    return CodeBook(name="yes-no", _table_reader=table)


def _agree(points: int) -> Callable:
    def read(value: str) -> tuple:
        parsed = parse_label(value)
        if parsed.kind == "refusal":
            return "refusal", None, "refusal"
        if parsed.score is None or (points == 4 and parsed.score == 0):
            return None, None, "unparsed"
        return score_name(parsed.score), float(parsed.score), "coded"

    return read


_CHOICE = re.compile(
    r"^(?:(?:the )?(?:answer|option|choice|response)(?: is)?\s*[:\-]?\s*)?"
    r"[\(\[]?(?P<x>[a-z]|\d{1,3})(?:(?<=[a-z])(?=$|[\)\].:,]|\s*[\)\].:])|(?<=\d)(?![\d.,]\d))[\)\]]?"
    r"(?P<rest>.*)$")
_MARKS = "*_`#>\"'“”‘’« »"


def _choice(value: str) -> tuple:
    text = fold_reply(value).strip(_MARKS).strip()
    m = _CHOICE.match(text)
    if not m:
        return None, None, "unparsed"
    x, rest = m.group("x"), m.group("rest")
    lone = len(text) == len(m.group(0)) and not rest.strip()
    said = text[: m.start("x")]
    if x.isalpha() and not said and not lone and not re.match(r"^[\)\].:]", text[m.end("x"):]):
        return None, None, "unparsed"   # "a good question": an article, not a choice
    if x.isdigit():
        return x.lstrip("0") or "0", float(int(x)), "coded"
    return x.upper(), float(ord(x) - ord("a") + 1), "coded"


_FIRST_NUMBER = re.compile(r"(?<![\w.])([+-]?\d+(?:[.,]\d+)?)(?![\w])")


def _scale(low: float, high: float) -> Callable:
    def read(value: str) -> tuple:
        m = _FIRST_NUMBER.search(fold_reply(value))
        if not m:
            return None, None, "unparsed"
        number = float(m.group(1).replace(",", "."))
        if not low <= number <= high:
            return None, None, "unparsed"
        return f"{number:g}", number, "coded"

    return read


BUILTIN_NAMES = ("yes-no", "agree-5", "agree-4", "choice", "scale:LOW:HIGH")
BUILTIN = {"yes-no": None, "agree-5": None, "agree-4": None, "choice": None, "scale": None}


def builtin(name: str) -> CodeBook:
    """A built-in book by name (see the module docstring).

    >>> builtin("yes-no").code(["Oui.", "Nein", "peut-être"]).rows()
    [('yes', 1.0, 'coded'), ('no', 0.0, 'coded'), ('hedge', None, 'hedge')]
    >>> builtin("scale:1:10").code(["I'd say 7/10", "11"])["score"].to_list()
    [7.0, None]
    """
    head, _, rest = str(name).partition(":")
    if head == "yes-no" and not rest:
        return yes_no_book()
    if head in ("agree-5", "agree-4") and not rest:
        return CodeBook(name=head, _reader=_agree(int(head[-1])))
    if head == "choice" and not rest:
        return CodeBook(name="choice", _reader=_choice)
    if head == "scale":
        m = re.fullmatch(r"\s*([+-]?\d+(?:\.\d+)?)\s*:\s*([+-]?\d+(?:\.\d+)?)\s*", rest)
        if m and float(m.group(1)) < float(m.group(2)):
            return CodeBook(name=f"scale:{rest.strip()}", _reader=_scale(float(m.group(1)), float(m.group(2))))
        raise OptionError(f"{opt('code')}: the built-in book scale needs its ends, LOW below HIGH: scale:1:10")
    raise OptionError(f"{opt('code')}: no built-in code book '{name}'; the built-in books: {', '.join(BUILTIN_NAMES)}")


# ---------------------------------------------------------------- coding a log


def code_columns(lazy: pl.LazyFrame, specs: Sequence[str], *, columns=None, source: str = "the log",
                 books: dict | None = None) -> pl.LazyFrame:
    """``lazy`` with the three columns of each ``NAME=BOOK`` (see the module docstring).

    ``columns`` is the log's mapping (canonical -> header): a book's column may be named by its header.
    ``books`` receives ``{NAME: CodeBook}``.
    """
    for spec in specs:
        name, given = parse_code(spec)
        book = load_book(given)
        schema = lazy.collect_schema()
        made = [name, f"{name}_label", f"{name}_kind"]
        taken = [m for m in made if m in schema]
        if taken:
            raise ColumnError(f"{opt('code', spec)}: the log already has a column '{taken[0]}'; name the coded "
                              "column otherwise")
        canonical = {h: c for c, h in (columns or {}).items() if c in schema}
        col = book.column if book.column in schema else canonical.get(book.column, book.column)
        lazy, added = with_paths(lazy, [col])
        schema = lazy.collect_schema()
        if col not in schema:
            seen = ", ".join(n for n in schema.names() if not n.startswith("_"))
            fix = either_column(book.column)
            raise ColumnError(f"{opt('code', spec)}: the book reads the column '{book.column}', which the log does not "
                              f"have; columns seen: {seen} ({fix})")
        text = pl.col(col).cast(pl.String)
        distinct = collect(lazy.select(text.unique().drop_nulls()), source).to_series()
        table = book.table(distinct).rename(lambda c: "\0" + c)
        lazy = lazy.with_columns(text.alias("\0value")).join(table.lazy(), on="\0value", how="left",
                                                              maintain_order="left")
        lazy = lazy.with_columns(
            pl.col("\0score" if book.scored else "\0label").alias(name), pl.col("\0label").alias(f"{name}_label"),
            pl.col("\0kind").fill_null("blank").alias(f"{name}_kind")).drop("\0value", "\0label", "\0score", "\0kind",
                                                                             *added)
        if books is not None:
            books[name] = book
    return lazy


def either_column(column: str) -> str:
    return either(f"columns={{{column!r}: HEADER}}", f"--column {column}=HEADER") if column == "reply" else \
        "name the book's column as the log has it"


@dataclass(frozen=True)
class Coverage:
    """How much of a value's replies a code book coded.

    Attributes
    ----------
    book : str
        The book (a file name or a built-in book).
    column : str
        The column the book made (``NAME``).
    value : str or None
        The value (None: the whole log, which has no value column).
    coded, refusal, hedge, unparsed, blank : int
        Replies of each kind.
    examples : tuple of str
        Up to three replies no rule read (distinct, in order of appearance).
    """

    book: str
    column: str
    value: str | None
    coded: int
    refusal: int
    hedge: int
    unparsed: int
    blank: int
    examples: tuple

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return {**asdict(self), "examples": list(self.examples)}


def code_coverage(log, frame: pl.DataFrame | None = None) -> list[Coverage]:
    """What each code book of the log coded, per value (see :class:`Coverage`)."""
    books = (getattr(log, "_read", None) or {}).get("codes", {})
    frame = log.frame if frame is None else frame
    out = []
    for name, book in books.items():
        kind_col = f"{name}_kind"
        if kind_col not in frame.columns:
            continue
        has_value = "variant" in frame.columns
        values = frame["variant"].cast(pl.String).unique(maintain_order=True).to_list() if has_value else [None]
        reply = book.column if book.column in frame.columns else None
        for v in values:
            sub = frame if v is None else frame.filter(pl.col("variant").cast(pl.String).eq_missing(v))
            counts = dict(sub.group_by(kind_col).len().rows())
            examples = ()
            if reply is not None:
                examples = tuple(str(x) for x in sub.filter(pl.col(kind_col) == "unparsed")[reply]
                                 .unique(maintain_order=True).head(3).to_list())
            out.append(Coverage(book=book.name, column=name, value=v, coded=int(counts.get("coded", 0)),
                                refusal=int(counts.get("refusal", 0)), hedge=int(counts.get("hedge", 0)),
                                unparsed=int(counts.get("unparsed", 0)), blank=int(counts.get("blank", 0)),
                                examples=examples))
    return out


def coverage_problems(log) -> list:
    """A ``code_coverage`` warning per code book of ``log``: what it coded per value, with unparsed examples."""
    out = []
    by_book: dict = {}
    for c in code_coverage(log):
        by_book.setdefault((c.column, c.book), []).append(c)
    for (column, book), parts in by_book.items():
        total = sum(c.coded + c.refusal + c.hedge + c.unparsed + c.blank for c in parts)
        coded = sum(c.coded for c in parts)
        per = "; ".join(f"{c.value if c.value is not None else 'all'}: {c.coded} coded, {c.refusal} refused, "
                        f"{c.hedge} hedged, {c.unparsed} unparsed, {c.blank} blank" for c in parts[:12])
        examples = list(dict.fromkeys(e for c in parts for e in c.examples))[:3]
        shown = ("; unparsed, for example: " + ", ".join(repr(e[:60]) for e in examples)) if examples else ""
        out.append(Problem("warning", "code_coverage",
                           f"{opt('code', f'{column}={book}')} coded {coded} of {total} replies ({per}){shown}; "
                           f"the rest have no {column} value", (), column))
    return out
