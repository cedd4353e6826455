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
#: Python parameters whose command-line flag is not ``--`` plus the name with ``-`` for ``_``: the one
#: table that turns a library error's parameter into the flag a command-line user typed.
CLI_FLAGS = {"factors": "--factor", "groups": "--group", "output": "-o", "log": "LOG", "columns": "--column",
             "framing_log": "--framing", "before_log": "--before", "sections": "--section",
             "verdicts": "--verdict",
             "attribute_settings": "--setting-is-attribute", "settings": "--setting",
             "random_settings": "--random-setting"}


#: parameters of how a file is read, given on the command line as ``--read KEY=VALUE``
READ_KEYS = frozenset({"format", "sheet", "skip_rows", "encoding", "max_cells", "max_columns", "records",
                       "file_pattern"})
#: columns counted from the text (the Probe's ``count``, ``words``, ``chars``, ``number``, ``variant_from``),
#: given on the command line as ``--from-text NAME=KIND[:REGEX]``: the KIND of each
TEXT_KINDS = {"count": "count", "words": "words", "chars": "chars", "number": "number", "variant_from": "prompt"}



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
    the command line ``--correction x``. On the command line a value is quoted as a shell needs it,
    ``True`` is the bare flag, a mapping is one ``--flag KEY=VALUE`` per entry, and the read options
    and the columns counted from the text are the keys of ``--read`` and ``--from-text``.

    Examples
    --------
    >>> opt("n_resamples", 0), opt("scale"), opt("derive", "x = a + b"), opt("complete", True)
    ('n_resamples=0', 'scale', "derive='x = a + b'", 'complete=True')
    >>> with cli_spelling():
    ...     opt("n_resamples", 0), opt("scale"), opt("factors"), opt("sheet", 2)
    ('--n-resamples 0', '--scale', '--factor', '--read sheet=2')
    >>> with cli_spelling():
    ...     opt("derive", "x = a + b"), opt("complete", True), opt("count", "steps=^[0-9]+"), opt("words")
    ("--derive 'x = a + b'", '--complete', "--from-text 'steps=count:^[0-9]+'", '--from-text NAME=words')
    >>> opt("columns", {"variant": "style"}), either("code", "flags"), opt("settings", ("seed",))
    ("columns={'variant': 'style'}", 'code', "settings=['seed']")
    >>> with cli_spelling():
    ...     opt("settings", ["seed", "persona"])
    '--setting seed --setting persona'
    >>> with cli_spelling():
    ...     opt("columns", {"variant": "style"}), opt("columns", {"item": "my id"}), either("code", "flags")
    ('--column variant=style', "--column 'item=my id'", 'flags')
    """
    spelling = _SPELLING.get()
    if isinstance(spelling, tuple):   # a page or a report for people names its controls, else as before
        namer, spelling = spelling
        named = namer(name, value)
        if named is not None:
            return named
    if spelling == "cli":
        return _flag(name, value)
    if isinstance(value, tuple):   # a list parameter is written as a list
        value = list(value)
    return name if value is None else f"{name}={value!r}"


def _quote(text: str) -> str:
    """A value as a shell takes it: bare when it can be, else in single quotes, or double quotes around a '.

    >>> print(_quote("1:4"), _quote("words > 50"), _quote("model = 'm1'"), _quote("it's $HOME"))
    1:4 'words > 50' "model = 'm1'" 'it'"'"'s $HOME'
    """
    import shlex

    quoted = shlex.quote(text)
    if quoted == text or "'" not in text or any(c in text for c in '"$`\\!'):
        return quoted
    return f'"{text}"'


def _flag(name: str, value) -> str:
    """The command line's spelling of a parameter and its value."""
    if name in READ_KEYS:   # how a file is read: one --read KEY=VALUE option on the command line
        return "--read " + _quote(f"{name.replace('_', '-')}={'VALUE' if value is None else value}")
    if name in TEXT_KINDS:   # a column counted from the text: one --from-text NAME=KIND[:REGEX] option
        kind = TEXT_KINDS[name]
        pattern = kind not in ("words", "chars")
        if value is None:
            return f"--from-text {'VALUE' if kind == 'prompt' else 'NAME'}={kind}" + (":REGEX" if pattern else "")
        label, _, regex = str(value).partition("=")
        return "--from-text " + _quote(f"{label}={kind}" + (f":{regex}" if pattern else ""))
    flag = CLI_FLAGS.get(name, "--" + name.replace("_", "-"))
    if value is None or value is True:
        return flag
    if isinstance(value, dict):   # a mapping is one KEY=VALUE option per entry (--column variant=style)
        return " ".join(f"{flag} {_quote(f'{k}={v}')}" for k, v in value.items())
    if isinstance(value, (list, tuple)):   # a list is the repeated flag (--setting a --setting b)
        return " ".join(f"{flag} {_quote(str(v))}" for v in value)
    return f"{flag} {_quote(str(value))}"


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
