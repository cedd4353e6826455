"""Errors raised by probestats.

Every error carries a one-line message that names the fix. The command line turns
:class:`ProbestatsError` into ``Error: <message>`` and exit code 1; nothing else
reaches a user.
"""

from __future__ import annotations


class ProbestatsError(Exception):
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
    >>> from probestats.problems import Problem
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
