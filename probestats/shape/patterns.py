"""Patterns a user writes (code books, verdict rules, ``--from-text``): one dialect, matched in linear time.

Every regular expression taken from a user runs on polars' engine, Rust's ``regex`` crate, whose
matching time grows in proportion to the text whatever the pattern: ``(a+)+$`` or ``^(\\w+\\s?)*$``
on a long reply answer at once, where a backtracking engine (Python's ``re``) never finishes. Its
syntax is Python's for everything common (classes, ``\\d``, ``\\w``, ``\\b``, anchors, groups,
``(?P<name>...)``, ``(?i)``) plus ``(?<name>...)``, ``\\pN`` and ``[[:digit:]]``; it has no
look-around (``(?=``, ``(?!``, ``(?<=``, ``(?<!``) and no back-references (``\\1``), a repetition
count is below 4,294,967,296, and the compiled pattern is at most 10 MB (``a{1000}{1000}`` is more).
A pattern it refuses is refused with the construct named.

The project's own fixed patterns (reading numbers, phrases it escapes) stay on ``re``: none of them can
backtrack without bound.

Examples
--------
>>> import polars as pl
>>> check_pattern("(a+)+$")
'(a+)+$'
>>> pl.Series(["a" * 40 + "!"]).str.contains("(a+)+$").to_list()
[False]
>>> check_pattern("(?<=score )\\\\d+")
Traceback (most recent call last):
...
probestats.shape.patterns.PatternError: look-around ((?=, (?!, (?<=, (?<!) is not supported, at '(?<='
>>> check_pattern("a{4294967296}")
Traceback (most recent call last):
...
probestats.shape.patterns.PatternError: a repetition count too large, at '4294967296' (a count is below 4,294,967,296, and the compiled pattern at most 10 MB)
"""

from __future__ import annotations

import re

import polars as pl

__all__ = ["PatternError", "check_pattern", "contains", "whole_match", "refusal", "DIALECT"]

#: how a message names the dialect, for the fix
DIALECT = "Rust's regex syntax, as polars runs it: no look-around, no back-references"

#: the parser's reasons, said as the construct the person wrote
_REASONS = [
    ("look-around", "look-around ((?=, (?!, (?<=, (?<!) is not supported"),
    ("backreferences", "back-references (\\1, \\k<name>) are not supported"),
    ("unclosed group", "a group opened with ( is never closed"),
    ("unopened group", "a ) closes no group"),
    ("unclosed character class", "a set opened with [ is never closed"),
    ("decimal literal invalid", "a repetition count too large"),
    ("repetition quantifier expects a valid decimal", "a repetition {m,n} without its numbers"),
    ("repetition count range", "a repetition {m,n} whose first number is larger than the second"),
    ("repetition operator missing expression", "a repetition (*, +, ?, {n}) with nothing before it to repeat"),
    ("unrecognized escape sequence", "an escape this syntax does not know"),
    ("Unicode property not found", "a Unicode class \\p{...} that does not exist"),
    ("invalid capture group character", "a group name that is not letters, digits and _ starting with a letter"),
    ("duplicate capture group name", "two groups of the same name"),
    ("unrecognized flag", "an unknown flag in (?...)"),
]


class PatternError(ValueError):
    """A pattern the dialect refuses; the message names the construct (and where it is)."""


def refusal(exc: Exception) -> str:
    """The construct a polars regex error refuses, in words, with the part of the pattern it marks."""
    text = str(exc)
    if "exceeds size limit" in text:
        return ("the compiled pattern is larger than 10 MB (a large repetition such as a{1000}{1000}, or a long "
                "alternation); repeat less, or match a shorter part")
    lines = text.splitlines()
    error = next((line.strip()[len("error:"):].strip() for line in lines if line.strip().startswith("error:")), "")
    span = ""
    for i, line in enumerate(lines[:-1]):   # the pattern's line, then a line of ^ under the construct
        marks = lines[i + 1]
        if marks.strip() and set(marks.strip()) == {"^"} and line.strip():
            start = len(marks) - len(marks.lstrip())
            span = line[start:start + len(marks.strip())]
            break
    said = next((words for key, words in _REASONS if key in error), error or re.sub(r"\s+", " ", text)[:120])
    if "decimal literal invalid" in error:
        return f"{said}, at {span!r} (a count is below 4,294,967,296, and the compiled pattern at most 10 MB)"
    return f"{said}, at {span!r}" if span else said


def check_pattern(pattern: str) -> str:
    """``pattern`` as the dialect compiles it, or :class:`PatternError` naming the construct it refuses."""
    try:
        pl.select(pl.lit("", pl.String).str.contains(pattern))
    except Exception as exc:   # polars' ComputeError for a pattern its engine cannot compile
        raise PatternError(refusal(exc)) from None
    return pattern


def contains(texts: pl.Series, pattern: str) -> pl.Series:
    """Whether ``pattern`` matches somewhere in each text (null texts: False), in linear time."""
    return texts.cast(pl.String).str.contains(pattern).fill_null(False)


def whole_match(texts: pl.Series, pattern: str) -> pl.Series:
    """Whether ``pattern`` matches each text whole (as :func:`re.fullmatch`), in linear time.

    >>> whole_match(pl.Series(["A", "AB"]), "A|AB").to_list()
    [True, True]
    """
    return contains(texts, f"^(?:{pattern})$")
