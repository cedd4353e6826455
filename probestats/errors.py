"""Errors, problems and the wording of counts: the vocabulary every layer of probestats shares.

Errors raised by probestats.

Every error carries a one-line message that names the fix. The command line turns
:class:`ProbestatsError` into ``Error: <message>`` and exit code 1; nothing else
reaches a user.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import warnings
from dataclasses import dataclass, field
from typing import Literal


class ProbestatsError(ValueError):
    """Base class: the input cannot be used as it is; the message says what to do."""


class ReadError(ProbestatsError):
    """A log could not be read (missing, unreadable, wrong format or encoding)."""


class ColumnError(ProbestatsError):
    """A column the job needs is not in the log, or a column option names no header."""


class OptionError(ProbestatsError):
    """An option's value cannot be used with this log (an unknown value, a bad scale)."""


class ValidationError(ProbestatsError):
    """The log has validation errors; ``problems`` holds every problem found.

    Examples
    --------
    >>> p = Problem("error", "empty_log", "the log has no data rows; add rows below the header")
    >>> str(ValidationError([p]))
    '1 validation error: the log has no data rows; add rows below the header (probestats.validate lists them all)'
    """

    def __init__(self, problems):
        self.problems = list(problems)
        errors = [p for p in self.problems if p.severity == "error"]
        first = errors[0].message if errors else "unknown problem"
        word = "error" if len(errors) == 1 else "errors"
        super().__init__(
            f"{len(errors)} validation {word}: {first} "
            f"({either('probestats.validate lists them all', 'run probestats validate for the full list')})"
        )

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with (or worth telling about) a log.

    Attributes
    ----------
    severity : {"error", "warning"}
        ``error``: the analysis would be wrong or impossible. ``warning``: a reader must be told.
    code : str
        Stable identifier, such as ``unmatched_item``; codes never change meaning.
    message : str
        One sentence that names the fix.
    rows : tuple of int
        Row numbers as a person sees them (CSV line counting the header as 1, JSONL line,
        spreadsheet row). Empty when the problem is not about particular rows.
    column : str or None
        The header (as written in the file) the problem is about, if any.

    Examples
    --------
    >>> Problem("warning", "unequal_runs", "item 3 has 19 'a' runs and 20 'b' runs", (4, 5)).to_dict()
    {'severity': 'warning', 'code': 'unequal_runs', 'message': "item 3 has 19 'a' runs and 20 'b' runs", 'rows': [4, 5], 'column': None}
    """

    severity: Severity
    code: str
    message: str
    rows: tuple[int, ...] = field(default=())
    column: str | None = None

    def to_dict(self) -> dict:
        return {
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
            "rows": [int(r) for r in self.rows],
            "column": self.column,
        }


def has_errors(problems) -> bool:
    """True when any problem is an error.

    >>> has_errors([Problem("warning", "x", "y")])
    False
    """
    return any(p.severity == "error" for p in problems)

def count_of(n, noun: str, plural: str | None = None) -> str:
    """A count with its noun agreeing: "1 item", "8 items".

    Examples
    --------
    >>> count_of(1, "item"), count_of(8, "item"), count_of(0, "run"), count_of(1, "cell", "cells")
    ('1 item', '8 items', '0 runs', '1 cell')
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


# ---------------------------------------------------------------------------- naming options

#: How messages name an option: "python" (``correction='x'``) or "cli" (``--correction x``).
_SPELLING = contextvars.ContextVar("probestats_option_spelling", default="python")
#: How the command line spells a parameter and its value: set by the parameter registry
#: (:func:`probestats.parameters.spelling`), which sits above this module; until then, ``--`` and the name.
_CLI_SPELLER = [lambda name, value: "--" + name.replace("_", "-") + ("" if value in (None, True) else f" {value}")]


def spell_flags_with(speller) -> None:
    """Name options on the command line by ``speller(name, value)`` (the registry calls this once)."""
    _CLI_SPELLER[0] = speller


@contextlib.contextmanager
def _holding(var: contextvars.ContextVar, value):
    """Within this block, ``var`` holds ``value`` (then what it held before)."""
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


def opt(name: str, value=None) -> str:
    """An option named as the caller spells it: a Python parameter, or a flag under :func:`cli_spelling`.

    Library errors name ``opt("correction", "x")``; the library says ``correction='x'``,
    the command line ``--correction x``: the flag the parameter registry declares for it
    (:func:`probestats.parameters.spelling`, which also quotes a value as a shell needs it).

    Examples
    --------
    >>> opt("n_resamples", 0), opt("scale"), opt("derive", "x = a + b"), opt("complete", True)
    ('n_resamples=0', 'scale', "derive='x = a + b'", 'complete=True')
    >>> opt("columns", {"variant": "style"}), either("code", "flags"), opt("settings", ("seed",))
    ("columns={'variant': 'style'}", 'code', "settings=['seed']")
    >>> import probestats.parameters   # the registry, which tells this module the flags
    >>> with cli_spelling():
    ...     opt("n_resamples", 0), opt("factors"), opt("sheet", 2), opt("columns", {"variant": "style"})
    ('--n-resamples 0', '--factor', '--read sheet=2', '--column variant=style')
    """
    spelling = _SPELLING.get()
    if isinstance(spelling, tuple):   # a page or a report for people names its controls, else as before
        namer, spelling = spelling
        named = namer(name, value)
        if named is not None:
            return named
    if spelling == "cli":
        return _CLI_SPELLER[0](name, value)
    if isinstance(value, tuple):   # a list parameter is written as a list
        value = list(value)
    return name if value is None else f"{name}={value!r}"


@contextlib.contextmanager
def cli_spelling():
    """Within this block, :func:`opt` names command-line flags (the CLI runs every command in it)."""
    with _holding(_SPELLING, "cli"):
        yield


@contextlib.contextmanager
def spelled_by(namer):
    """Within this block, :func:`opt` asks ``namer(name, value)`` how to name an option: a page names the
    control that does it, a report for people names it in words; where ``namer`` returns None, the option
    is named as it was outside the block (and :func:`either` chooses as it did there).

    >>> def namer(name, value):
    ...     return "the box 'fold case'" if name == "fold_case" else None
    >>> with spelled_by(namer):
    ...     opt("fold_case", True), opt("alpha", 2), either("code", "flags")
    ("the box 'fold case'", 'alpha=2', 'code')
    >>> with cli_spelling(), spelled_by(namer):
    ...     opt("fold_case", True), opt("alpha", 2), either("code", "flags")
    ("the box 'fold case'", '--alpha 2', 'flags')
    """
    outer = _SPELLING.get()
    with _holding(_SPELLING, (namer, outer[1] if isinstance(outer, tuple) else outer)):
        yield


def for_people() -> bool:
    """Whether messages are being written for people who do not code (the local page, a plain report: within
    :func:`spelled_by`), who read no flag, parameter or file of the repository.

    >>> for_people()
    False
    >>> with spelled_by(lambda name, value: None):
    ...     for_people()
    True
    """
    return isinstance(_SPELLING.get(), tuple)


#: within a plain report: its numbers are written for people (a p in decimals, never 1.2e-07)
_PLAIN_NUMBERS = contextvars.ContextVar("probestats_plain_numbers", default=False)


@contextlib.contextmanager
def plain_numbers():
    """Within this block (a plain report), numbers are written for people who do not code."""
    with _holding(_PLAIN_NUMBERS, True):
        yield


def numbers_for_people() -> bool:
    """Whether numbers are being written for people (within :func:`plain_numbers`).

    >>> numbers_for_people()
    False
    >>> with plain_numbers():
    ...     numbers_for_people()
    True
    """
    return _PLAIN_NUMBERS.get()


def either(python: str, cli: str) -> str:
    """An example in the caller's spelling: Python code for the library, flags for the command line.

    >>> either("factors=['style', 'name']", "--factor style --factor name")
    "factors=['style', 'name']"
    """
    spelling = _SPELLING.get()
    return cli if (spelling[1] if isinstance(spelling, tuple) else spelling) == "cli" else python


#: The process's warning filters are one list: a block that changes them holds this while it runs (re-entrant,
#: so a block may call another), else two threads' blocks restore each other's filters on the way out.
_FILTERS = threading.RLock()


@contextlib.contextmanager
def caught_warnings():
    """:func:`warnings.catch_warnings` for one thread's block at a time (the local page runs jobs in threads).

    >>> with caught_warnings():
    ...     warnings.simplefilter("ignore")
    ...     warnings.warn("not shown")
    """
    with _FILTERS, warnings.catch_warnings():
        yield
