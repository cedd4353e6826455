"""Structured problems found in a log: one vocabulary for validation and analyses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with (or worth telling about) a log.

    Attributes
    ----------
    severity : {"error", "warning"}
        ``error``: the analysis would be wrong or impossible. ``warning``: a reader must be told.
    code : str
        Stable identifier, such as ``unmatched_item`` (see SPEC §3).
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
