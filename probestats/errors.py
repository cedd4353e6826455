"""Errors, problems and the wording of counts: the vocabulary every layer of probestats shares.

Errors raised by probestats.

Every error carries a one-line message that names the fix. The command line turns
:class:`ProbestatsError` into ``Error: <message>`` and exit code 1; nothing else
reaches a user.
"""

from __future__ import annotations

import contextlib
import contextvars
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
    '1 validation error: the log has no data rows; add rows below the header (run probestats validate for the full list)'
    """

    def __init__(self, problems):
        self.problems = list(problems)
        errors = [p for p in self.problems if p.severity == "error"]
        first = errors[0].message if errors else "unknown problem"
        word = "error" if len(errors) == 1 else "errors"
        super().__init__(
            f"{len(errors)} validation {word}: {first} (run probestats validate for the full list)"
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
             "design_file": "--design", "framing_log": "--framing", "before_log": "--before", "sections": "--section",
             "target": "--power", "verdicts": "--verdict"}


#: parameters of how a file is read, given on the command line as ``--read KEY=VALUE``
READ_KEYS = frozenset({"format", "sheet", "skip_rows", "encoding", "max_cells", "records"})

#: the report's settings, given on its command line as ``--set KEY=VALUE`` (parameter: key), inside
#: :func:`setting_spelling` (the report's job runs in it; other commands have flags for these)
SET_KEYS = {"templates": "templates", "scale": "scale", "per_item": "per_item", "noise_value": "noise_value",
            "settings": "settings", "attribute_settings": "attribute_settings", "targets": "framing.targets",
            "toward": "framing.toward", "answers": "framing.answers", "label_map": "framing.label_map",
            "framing_columns": "framing.columns", "order": "judge.order", "response": "judge.response",
            "choice": "judge.choice", "verdicts": "judge.verdict", "repetition": "judge.repetition"}
_SETTINGS = contextvars.ContextVar("probestats_report_settings", default=False)


@contextlib.contextmanager
def setting_spelling():
    """Within this block, :func:`opt` names the report's settings as ``--set KEY=VALUE`` on the command line.

    >>> with cli_spelling(), setting_spelling():
    ...     opt("targets", "t.csv"), opt("scale"), opt("alpha", 2)
    ('--set framing.targets=t.csv', '--set scale=VALUE', '--alpha 2')
    """
    token = _SETTINGS.set(True)
    try:
        yield
    finally:
        _SETTINGS.reset(token)


def opt(name: str, value=None) -> str:
    """An option named as the caller spells it: a Python parameter, or a flag under :func:`cli_spelling`.

    Library errors name ``opt("correction", "x")``; the library says ``correction='x'``,
    the command line ``--correction x``.

    Examples
    --------
    >>> opt("n_resamples", 0), opt("scale")
    ('n_resamples=0', 'scale')
    >>> with cli_spelling():
    ...     opt("n_resamples", 0), opt("scale"), opt("factors"), opt("sheet", 2)
    ('--n-resamples 0', '--scale', '--factor', '--read sheet=2')
    """
    if _SPELLING.get() == "cli":
        if name in READ_KEYS:   # how a file is read: one --read KEY=VALUE option on the command line
            key = name.replace("_", "-")
            return f"--read {key}=VALUE" if value is None else f"--read {key}={value}"
        if name in SET_KEYS and _SETTINGS.get():   # a report setting: --set KEY=VALUE
            return f"--set {SET_KEYS[name]}=VALUE" if value is None else f"--set {SET_KEYS[name]}={value}"
        flag = CLI_FLAGS.get(name, "--" + name.replace("_", "-"))
        return flag if value is None else f"{flag} {value}"
    return name if value is None else f"{name}={value!r}"


@contextlib.contextmanager
def cli_spelling():
    """Within this block, :func:`opt` names command-line flags (the CLI runs every command in it)."""
    token = _SPELLING.set("cli")
    try:
        yield
    finally:
        _SPELLING.reset(token)


def either(python: str, cli: str) -> str:
    """An example in the caller's spelling: Python code for the library, flags for the command line.

    >>> either("factors=['style', 'name']", "--factor style --factor name")
    "factors=['style', 'name']"
    """
    return cli if _SPELLING.get() == "cli" else python
