"""A cell table told from a log by its header alone: Parquet's schema, a CSV's first line, a JSON-lines
file's first record (:func:`is_cell_table`), so that a job knows which it was given before it reads either.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

__all__ = ["MARK_COLUMNS", "is_cell_table", "is_parquet"]


def is_parquet(path: Path) -> bool:
    """A Parquet file whatever its name (a warehouse's export may keep another suffix)."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"PAR1"
    except OSError:
        return False


#: The columns that mark a file as a cell table rather than a log (a log has no exact sums).
MARK_COLUMNS = ("sum_units", "sumsq_units", "places", "counted")


def is_cell_table(source) -> bool:
    """Whether ``source`` (a path, or a sequence holding one path) is a cell table, by its columns.

    Only the header is read: Parquet's schema, a CSV's first line, a JSON-lines file's first record.
    A folder, several files, or anything unreadable is not (it is read as a log, which says why).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = pathlib.Path(d, "cells.csv")
    ...     _ = p.write_text("item,variant,n,counted,places,sum_units,sumsq_units,min,max,first_row\\n")
    ...     q = pathlib.Path(d, "log.csv")
    ...     _ = q.write_text("item,variant,steps\\n")
    ...     is_cell_table(p), is_cell_table([q]), is_cell_table(d)
    (True, False, False)
    """
    if isinstance(source, (list, tuple)):
        if len(source) != 1:
            return False
        source = source[0]
    if source is None or not isinstance(source, (str, Path)):
        return False
    path = Path(source)
    if not path.is_file():
        return False
    try:
        if path.suffix.lower() == ".parquet" or is_parquet(path):
            columns = list(pl.read_parquet_schema(path))
        elif path.suffix.lower() in (".jsonl", ".ndjson"):
            with open(path, encoding="utf-8") as f:
                first = json.loads(f.readline() or "{}")
            columns = list(first) if isinstance(first, dict) else []
        elif path.suffix.lower() == ".csv":
            with open(path, encoding="utf-8", newline="") as f:
                columns = [c.strip().strip('"') for c in f.readline().rstrip("\r\n").split(",")]
        else:
            return False
    except (OSError, ValueError, pl.exceptions.PolarsError):
        return False
    return all(c in columns for c in MARK_COLUMNS)
