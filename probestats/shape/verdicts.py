"""Verdicts read from a judge's own text, by declared rules, never guessed.

A rule is ``LABEL=PATTERN``. The label is a slot of a pairwise comparison: ``first``
(the answer shown first), ``second`` or ``tie``. The pattern is literal text, or a
regular expression after a ``re:`` prefix, in the one dialect of every user pattern
(:mod:`probestats.shape.patterns`: Rust's ``regex`` syntax, matched in time linear in the reply):
``first=[[A]]``, ``second=re:\\[\\[B\\]\\]``. A label may have several rules; any of them
names it.

The rule of reading, exactly:

* a **literal** pattern matches where its text occurs anywhere in the reply, byte for
  byte: case-sensitive (``[[A]]`` does not match ``[[a]]``), with no trimming or
  normalisation of spaces or Unicode. A regular expression is searched anywhere in the
  reply (no flags: write ``(?i)`` for case-insensitive matching);
* quoted passages are **not** treated specially: a pattern inside quotation marks,
  a code block or a restated question matches like anywhere else. So a reply that
  quotes the instruction ("answer [[A]] or [[B]]") names both labels and is unparsed:
  that is on purpose, a rule that skipped quotations would guess which text is the
  judge's own;
* a reply is **parsed** when the patterns of exactly one label match it (how often and
  where does not matter). It is **unparsed** when no pattern matches (``no_match``),
  when patterns of two or more labels match (``several_labels``), or when the reply is
  missing or blank (``blank``). Unparsed replies are counted and listed, never guessed.

A ``choice`` column that already holds the slot is read by the same rules, as whole
values: a cell is parsed when it equals (after trimming surrounding spaces) one label's
pattern; ``re:`` patterns must match the whole trimmed cell.

Examples
--------
>>> rules = parse_rules(["first=[[A]]", "second=[[B]]", "tie=[[C]]"])
>>> [extract(r, rules) for r in ["Verdict: [[A]]", "[[a]]", "[[A]] or [[B]]?", None]]
[Verdict(label='first', reason=None), Verdict(label=None, reason='no_match'), Verdict(label=None, reason='several_labels'), Verdict(label=None, reason='blank')]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import polars as pl

from probestats.errors import OptionError, either, opt
from probestats.shape.codebook import AmbiguousPattern, compile_pattern
from probestats.shape.patterns import PatternError, contains, whole_match

__all__ = ["LABELS", "Rule", "Verdict", "parse_rule", "parse_rules", "extract", "extract_all", "choice_rules",
           "REASONS"]

#: The slots a verdict can name.
LABELS = ("first", "second", "tie")
#: Why a reply is unparsed.
REASONS = ("no_match", "several_labels", "blank")


@dataclass(frozen=True)
class Rule:
    """One declared rule: the reply names ``label`` when ``pattern`` matches.

    Attributes
    ----------
    label : {"first", "second", "tie"}
    pattern : str
        The literal text, or the regular expression (without its ``re:`` prefix).
    regex : bool
    """

    label: str
    pattern: str
    regex: bool = False

    def __str__(self) -> str:
        return f"{self.label}={'re:' if self.regex else ''}{self.pattern}"

    def to_dict(self) -> dict:
        return {"label": self.label, "pattern": self.pattern, "regex": self.regex}


@dataclass(frozen=True)
class Verdict:
    """What a reply says: a ``label``, or None with the ``reason`` it is unparsed."""

    label: str | None
    reason: str | None = None

    @property
    def parsed(self) -> bool:
        return self.label is not None


def parse_rule(text: str) -> Rule:
    """Read one ``LABEL=PATTERN`` rule.

    Examples
    --------
    >>> parse_rule("first=[[A]]")
    Rule(label='first', pattern='[[A]]', regex=False)
    >>> parse_rule(r"tie=re:\\[\\[C\\]\\]").regex
    True
    >>> parse_rule("best=[[A]]")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: verdicts='best=[[A]]': the label must be first, second or tie, for example verdicts=['first=[[A]]']
    """
    text = str(text)
    given, example = opt("verdicts", text), either("verdicts=['first=[[A]]']", '--verdict "first=[[A]]"')
    if "=" not in text:
        raise OptionError(f"{given}: expected LABEL=PATTERN, for example {example}")
    label, pattern = text.split("=", 1)
    label = label.strip().lower()
    if label not in LABELS:
        raise OptionError(f"{given}: the label must be first, second or tie, for example {example}")
    regex = pattern.startswith("re:")
    if regex:
        pattern = pattern[3:]
    if pattern == "":
        raise OptionError(f"{given}: the pattern is empty; give the text that names the {label} slot")
    if regex:
        try:
            compiled = compile_pattern(pattern)
        except AmbiguousPattern as exc:
            raise OptionError(f"{given}: the expression is ambiguous: {exc}; or drop 're:' to match the text "
                              "literally") from None
        except PatternError as exc:
            raise OptionError(f"{given}: not a regular expression ({exc}); write it without that construct, "
                              "or drop 're:' to match the text literally") from None
        if contains(pl.Series([""]), compiled).item():
            raise OptionError(f"{given}: the expression matches an empty reply, so it would match every "
                              "reply; make it name something the judge writes")
    return Rule(label, pattern, regex)


def parse_rules(texts: Iterable[str | Rule]) -> tuple[Rule, ...]:
    """Read several rules; at least two labels must be named (a verdict needs a choice).

    >>> [str(r) for r in parse_rules(["first=A", "second=B"])]
    ['first=A', 'second=B']
    """
    rules = tuple(t if isinstance(t, Rule) else parse_rule(t) for t in texts)
    named = {r.label for r in rules}
    if len(named) < 2:
        raise OptionError(f"{opt('verdicts')}: name at least the first and second slots, for example "
                          + either("verdicts=['first=[[A]]', 'second=[[B]]']", '--verdict "first=[[A]]" --verdict "second=[[B]]"'))
    return rules


def choice_rules(texts: Iterable[str | Rule] = ()) -> tuple[Rule, ...]:
    """Rules for a choice column: the given ones, and a label's own name for every label not given.

    >>> [str(r) for r in choice_rules(["first=A", "second=B"])]
    ['first=A', 'second=B', 'tie=tie']
    >>> [str(r) for r in choice_rules()]
    ['first=first', 'second=second', 'tie=tie']
    """
    rules = tuple(t if isinstance(t, Rule) else parse_rule(t) for t in texts)
    given = {r.label for r in rules}
    return rules + tuple(Rule(label, label) for label in LABELS if label not in given)


def _matches(rule: Rule, texts: pl.Series, whole: bool) -> pl.Series:
    """Whether ``rule`` matches each of ``texts`` (an expression by the linear-time engine)."""
    if rule.regex:
        return (whole_match if whole else contains)(texts, rule.pattern)
    return (texts == rule.pattern) if whole else texts.str.contains(rule.pattern, literal=True)


def extract(reply, rules: Sequence[Rule], *, whole: bool = False) -> Verdict:
    """The verdict of one reply under ``rules`` (see the module's rule of reading).

    Parameters
    ----------
    reply : str or None
    rules : sequence of Rule
    whole : bool
        Choice cells: the trimmed cell must equal a literal pattern (or fully match an
        expression) instead of containing it.

    Examples
    --------
    >>> rules = parse_rules(["first=[[A]]", "second=[[B]]"])
    >>> extract('The prompt says "reply [[A]]"; I pick [[B]].', rules).reason   # quoted: still matches
    'several_labels'
    >>> extract('My verdict: "[[A]]"', rules).label                           # a quoted verdict is a verdict
    'first'
    """
    return extract_all([reply], rules, whole=whole)[0]


def extract_all(replies: Iterable, rules: Sequence[Rule], *, whole: bool = False) -> list[Verdict]:
    """:func:`extract` over many replies; each distinct reply is read once.

    >>> [v.label for v in extract_all(["x [[A]]", "x [[A]]", "[[B]]"], parse_rules(["first=[[A]]", "second=[[B]]"]))]
    ['first', 'first', 'second']
    """
    keys = [None if reply is None else str(reply) for reply in replies]
    cache: dict = {None: Verdict(None, "blank")}
    texts = {}
    for key in keys:
        if key not in cache and key not in texts:
            text = key.strip() if whole else key
            if text.strip() == "":
                cache[key] = Verdict(None, "blank")
            else:
                texts[key] = text
    if texts:
        column = pl.Series(list(texts.values()), dtype=pl.String)
        named = [set() for _ in texts]
        for rule in rules:
            for i, hit in enumerate(_matches(rule, column, whole).to_list()):
                if hit:
                    named[i].add(rule.label)
        for key, labels in zip(texts, named):
            cache[key] = (Verdict(next(iter(labels))) if len(labels) == 1
                          else Verdict(None, "no_match" if not labels else "several_labels"))
    return [cache[key] for key in keys]
