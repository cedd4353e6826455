"""Tables safe to open in a spreadsheet: text from a log never starts a formula in a CSV probestats writes.

A spreadsheet reads a cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or a carriage return, which
some strip before looking) as a formula, so an item named ``=HYPERLINK("http://x")`` in a log becomes a link, and
``=cmd|' /C calc'!A0`` a command, in the table a person opens. Following OWASP's guidance on CSV injection,
every writer of a CSV (the cell table, the tables beside a report, the page's targets file) passes its text
columns through :func:`neutral_frame` (or a text through :func:`neutral_cell`): such a cell gets a leading
apostrophe, which a spreadsheet takes as "this is text" (a text that already starts with apostrophes before
one of these characters gets one more, so the change can be undone exactly).

What is and is not changed:

- numeric columns (means, gaps, counts, p-values) are written as numbers, never touched: a negative gap stays
  ``-0.5``;
- a *text* cell that begins with ``-`` or ``+`` is neutralized even when it reads as a number (an item named
  ``-2``): the column holds names, not quantities, and OWASP neutralizes every leading ``-`` and ``+``
  (``-2+3`` or ``-1+cmd|...`` are formulas, and a rule that tried to tell numbers from formulas would be one
  more parser to get wrong); the spreadsheet shows the name ``-2`` as text;
- columns that hold numbers written as text for exactness (a cell table's ``sum_units``) are named by the writer
  and left as they are.

probestats reads its own CSV cell table and targets file back: :func:`restored_cell` (and
:func:`restored_frame`) undo the neutralization there, so an item named ``=x`` is ``=x`` again in the analysis.
"""

from __future__ import annotations

import re
from typing import Iterable

import polars as pl

__all__ = ["FORMULA_STARTS", "neutral_cell", "restored_cell", "neutral_frame", "restored_frame"]

#: The first characters that make a spreadsheet read a cell as a formula (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

#: A text the neutralization changes: any apostrophes, then a formula's first character.
_NEUTRALIZED = re.compile(r"'*[=+\-@\t\r]")
#: A text the neutralization made: one apostrophe or more, then a formula's first character.
_MADE = re.compile(r"'+[=+\-@\t\r]")
_STARTS_PATTERN = r"^'*[=+\-@\t\r]"
_MADE_PATTERN = r"^'+[=+\-@\t\r]"


def neutral_cell(text):
    """A text cell a spreadsheet shows as text: one that starts as a formula would (``=``, ``+``, ``-``, ``@``, a
    tab or a carriage return, after any apostrophes) gets a leading apostrophe. Anything not a string (a number,
    None) is returned as it is.

    Examples
    --------
    >>> neutral_cell('=HYPERLINK("x")'), neutral_cell("-2+3"), neutral_cell("-1"), neutral_cell("item 7")
    ('\\'=HYPERLINK("x")', "'-2+3", "'-1", 'item 7')
    >>> neutral_cell("'=x"), neutral_cell("it's"), neutral_cell(-0.5), neutral_cell(None)
    ("''=x", "it's", -0.5, None)
    """
    if isinstance(text, str) and _NEUTRALIZED.match(text):
        return "'" + text
    return text


def restored_cell(text):
    """The text :func:`neutral_cell` was given: one leading apostrophe dropped where it added one.

    >>> [restored_cell(neutral_cell(t)) for t in ("=1+1", "'=x", "it's", "'plain", "-2", "")]
    ['=1+1', "'=x", "it's", "'plain", '-2', '']
    """
    if isinstance(text, str) and _MADE.match(text):
        return text[1:]
    return text


def _text_columns(frame, keep: Iterable[str]) -> list[str]:
    kept = set(keep)
    return [name for name, dtype in frame.collect_schema().items() if dtype == pl.String and name not in kept]


def neutral_frame(frame: pl.DataFrame, keep: Iterable[str] = ()) -> pl.DataFrame:
    """``frame`` with every text column's cells neutralized (:func:`neutral_cell`); numeric columns, and the text
    columns named in ``keep`` (numbers written as text), as they were.

    >>> frame = pl.DataFrame({"item": ["@SUM(A1)", "b"], "gap": [-0.5, 2.0], "sum_units": ["-3", "4"]})
    >>> neutral_frame(frame, keep=["sum_units"]).rows()
    [("'@SUM(A1)", -0.5, '-3'), ('b', 2.0, '4')]
    """
    columns = _text_columns(frame, keep)
    return frame.with_columns(
        pl.when(pl.col(c).str.contains(_STARTS_PATTERN)).then(pl.lit("'") + pl.col(c)).otherwise(pl.col(c)).alias(c)
        for c in columns)


def restored_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """``frame`` with every text column's cells restored (:func:`restored_cell`): a CSV probestats wrote, read back.

    >>> frame = pl.DataFrame({"item": ["=1", "b", "'@x"], "n": [1, 2, 3]})
    >>> restored_frame(neutral_frame(frame)).equals(frame)
    True
    """
    columns = _text_columns(frame, ())
    return frame.with_columns(
        pl.when(pl.col(c).str.contains(_MADE_PATTERN)).then(pl.col(c).str.slice(1)).otherwise(pl.col(c)).alias(c)
        for c in columns)
