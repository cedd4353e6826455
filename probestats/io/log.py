"""A probe log as read (:class:`Log`): canonical column names, row numbers as a person sees them, and
the one way its rows are collected (:func:`collect`, read errors as one :class:`~probestats.errors.ReadError`).

Every reader ends in :func:`finish_log`, which maps the headers to canonical names (see
:mod:`probestats.io.columns`) and numbers the rows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from typing import Any, Mapping

import polars as pl

from probestats.errors import Problem, ReadError
from probestats.io.columns import ROW, resolve_columns
from probestats.io.failures import locate_bad_record, panic_error, panic_quiet, polars_message
from probestats.io.formats import frame_from_pandas

__all__ = ["Log", "Origin", "collect", "finish_log", "typed_rows", "format_rows", "frame_from_object", "literal_path"]


@dataclass(frozen=True)
class Log:
    """A probe log as read: canonical column names, every other column kept.

    Attributes
    ----------
    lazy : polars.LazyFrame
        The log with recognized columns renamed to canonical names and an ``_row``
        column (0-based record index, turned into what a person sees by :meth:`rows`).
    columns : dict
        Canonical name -> header as written in the file (the resolved mapping).
    source : str
        Name of the log for messages.
    headers : tuple of str
        Headers as they appear in the source.
    problems : tuple of Problem
        Problems found while reading (warnings; errors are raised instead).
    row_label : str
        ``"line"``, ``"row"`` or ``"record"``: what :meth:`rows` numbers.
    """

    lazy: pl.LazyFrame
    columns: dict[str, str]
    source: str
    headers: tuple[str, ...]
    problems: tuple[Problem, ...] = ()
    row_label: str = "row"
    _first_row: int = 1
    _path: Path | None = field(default=None, repr=False)
    _read: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @cached_property
    def frame(self) -> pl.DataFrame:
        """The whole log as a polars DataFrame (read on first use)."""
        return collect(self.lazy, self.source, self._path)

    def rows(self, index) -> list[int]:
        """Turn 0-based record indices into the row numbers a person sees.

        For CSV and TSV files whose quoted fields hold line breaks, each record's
        line is where it starts in the file.
        """
        index = [int(i) for i in index]
        if not index:
            return []
        lines = self._read.get("jsonl_lines")
        if lines is not None:
            return [int(lines[i]) for i in index]
        if self.row_label == "line" and self._read.get("multiline"):
            starts = self._line_starts
            return [int(starts[i]) for i in index]
        return [i + self._first_row for i in index]

    @cached_property
    def _line_starts(self):
        # line of each record = first line + index + line breaks inside earlier records, counted on every
        # record of the file as read (a filter or a derived column must not change a line's number)
        lazy = self._read.get("unfiltered", self.lazy)
        text_cols = [c for c, t in lazy.collect_schema().items() if t == pl.String]
        breaks = pl.sum_horizontal(
            [pl.col(c).str.count_matches("\n").fill_null(0) for c in text_cols]
        ) if text_cols else pl.lit(0)
        counts = collect(lazy.select(breaks.alias("b")), self.source)["b"]
        before = counts.cum_sum().shift(1, fill_value=0)
        return (pl.int_range(0, len(counts), eager=True) + before + self._first_row).to_list()

    @property
    def format(self) -> str | None:
        """The tool whose log this is (``"inspect_ai .eval log"``, ...), or None for a table."""
        return self._read.get("format")

    def to_dict(self) -> dict:
        return {"source": self.source, "columns": dict(self.columns), "headers": list(self.headers)}


def collect(lazy: pl.LazyFrame, source: str = "the log", path: Path | None = None) -> pl.DataFrame:
    """Collect a lazy frame, turning polars' read errors into one clear :class:`ReadError`."""
    try:
        with panic_quiet():
            return lazy.collect()
    except pl.exceptions.PolarsError as exc:  # a problem found only when the data is read
        if path is not None and path.suffix.lower() in (".csv", ".tsv", ".tab"):
            locate_bad_record(path, source)
        raise ReadError(polars_message(exc, source)) from None
    except BaseException as exc:
        raise panic_error(exc, source, path) from None


def mixed_types(exc: Exception) -> str:
    """Polars' error for a key whose values differ in type, in one clause (its own text spans several lines and
    names its internals).

    >>> mixed_types(ValueError("unexpected value while building Series of type String; found value of type Int64:"
    ...                        " 2\\n\\nThis error occurred with the following context stack:\\n\\t[1] while "
    ...                        "constructing Series 'score'\\n\\n\\nHint: Try setting `strict=False`"))
    "the key 'score' holds text and also numbers, such as 2"
    """
    import re

    text = str(exc).replace("\\n", "\n").replace("\\t", "\t")
    found = re.search(r"building Series of type (\w+); found value of type (\w+): ?(.*)", text)
    keys = re.findall(r"while constructing Series '([^']+)'", text)
    if not found:
        return text.strip().splitlines()[0] if text.strip() else type(exc).__name__

    def kind(name: str) -> str:
        low = name.lower()
        return ("text" if low in ("string", "str", "utf8") else "numbers" if low[:3] in ("int", "flo", "uin")
                else "true/false values" if low.startswith("bool") else "records" if low == "struct"
                else "lists" if low == "list" else f"{name} values")

    key = f"the key '{keys[0]}'" if keys else "a key"
    value = found.group(3).strip().splitlines()[0][:40] if found.group(3).strip() else ""
    return (f"{key} holds {kind(found.group(1))} and also {kind(found.group(2))}"
            + (f", such as {value}" if value else ""))


def frame_from_object(obj) -> pl.DataFrame:
    """A Python object as a frame: a polars (lazy) frame, a pandas frame or a list of dicts, one per run."""
    if isinstance(obj, pl.LazyFrame):
        obj = obj.collect()
    if isinstance(obj, pl.DataFrame):
        return obj
    if type(obj).__module__.startswith("pandas"):
        return frame_from_pandas(obj)
    if isinstance(obj, (list, tuple)):
        if not all(isinstance(r, Mapping) for r in obj):
            raise ReadError("a log given as a list must be a list of dicts, one per run")
        try:
            return pl.from_dicts(list(obj), infer_schema_length=None)
        except Exception as exc:
            raise ReadError(f"cannot make a table of the records ({mixed_types(exc)}); give each key one "
                            "type") from None
    if type(obj).__name__ == "CellTable":   # probestats.cells's result (a layer above this one, named not imported)
        raise ReadError("a cell table is read from its file: write it with probestats.cells(..., output=FILE) and "
                        "give FILE")
    raise ReadError(
        f"cannot read a log from a {type(obj).__name__}; give a path, a list of dicts, or a polars or pandas DataFrame"
    )


def literal_path(source):
    """A path polars reads as exactly that file: absolute (no ``~`` or ``scheme://`` reading) and,
    with ``glob=False`` at the call, never a pattern; bytes pass through.

    >>> str(literal_path(Path("/tmp/probe[12].csv")))
    '/tmp/probe[12].csv'
    """
    if isinstance(source, (bytes, bytearray)):
        return source
    return Path(os.path.abspath(source))


@dataclass(frozen=True)
class Origin:
    """Where a log's rows came from, as its messages name them: the ``source`` (a file's name, or "the log"),
    what one row is called (``row_label``: line, row, record, list position) and the number of the first
    (``first_row``), and the file (``path``, None for rows given in Python)."""

    source: str
    row_label: str
    first_row: int
    path: Path | None = None


def finish_log(lazy, headers, origin: Origin, columns, metric, *, problems=(), read=None, drop_blank=False,
               rescan=None) -> Log:
    """The :class:`Log` every reader ends in: ``headers`` mapped to canonical names (``columns`` overriding the
    alias table), a clashing header kept under a name of its own, and the rows numbered (``_row``) as their
    ``origin`` counts them."""
    path = origin.path
    headers = [str(h) for h in headers]
    if ROW in headers and path is None:  # a frame that went through read_log before: number it afresh
        lazy = lazy.drop(ROW)
        headers = [h for h in headers if h != ROW]
    mapping = resolve_columns(headers, columns, metric)
    rename = {header: canonical for canonical, header in mapping.items() if header != canonical}
    # a kept column whose header equals a canonical name taken by another header keeps its own name
    clash = {h for h in headers if h in mapping and mapping[h] != h and h not in rename}
    # so does one whose header is a canonical name set to none (``columns={"model": ""}``)
    clash |= {h for h in headers if (columns or {}).get(h) == "" and h not in rename}
    for h in clash:
        rename[h] = f"{h} (original)"
    if ROW in headers:  # a file's own column of that name is data: kept, under a name of its own
        rename[ROW] = f"{ROW} (original)"

    lazy = _shape(lazy, rename, drop_blank)
    read = dict(read or {})
    if rescan is not None:   # the same rows with some columns parsed by the reader (see typed_rows)
        read["typed"] = (lazy, partial(_retyped, rescan, mapping, rename, drop_blank))
    return Log(lazy=lazy, columns=mapping, source=origin.source, headers=tuple(headers),
               problems=tuple(problems), row_label=origin.row_label, _first_row=origin.first_row,
               _path=path, _read=read)


def _shape(lazy: pl.LazyFrame, rename: dict, drop_blank: bool) -> pl.LazyFrame:
    """The rows as read, numbered (``_row``), with canonical names."""
    if rename:
        lazy = lazy.rename(rename)
    lazy = lazy.with_row_index(ROW).with_columns(pl.col(ROW).cast(pl.Int64))
    # columns are never named in expressions here: pl.col reads a header '*' or '^...$' as a pattern
    data = pl.all().exclude(ROW)
    if drop_blank and len(lazy.collect_schema()) > 1:
        lazy = lazy.filter(~pl.all_horizontal(data.is_null() | (data.cast(pl.String).str.strip_chars() == "")))
    return lazy.select(data, pl.col(ROW))


def _retyped(rescan, mapping: dict, rename: dict, drop_blank: bool, dtypes: dict) -> pl.LazyFrame:
    return _shape(rescan({mapping.get(c, c): t for c, t in dtypes.items()}), rename, drop_blank)


def typed_rows(log: Log, dtypes: Mapping[str, pl.DataType]) -> pl.LazyFrame | None:
    """``log.lazy`` with the columns in ``dtypes`` (canonical names) parsed as those types by the
    CSV reader, which is cheaper than reading them as text and casting; None when the log is not a
    CSV or TSV file read as it is (columns derived or rows filtered since).

    The reader takes spaces before a number (as validation, which strips them, does) and raises on
    text it cannot parse, where a cast would give null: a caller falls back to the text.

    >>> import tempfile
    >>> from probestats.io.read import read_log
    >>> path = Path(tempfile.mkdtemp()) / "log.csv"
    >>> _ = path.write_text("item,variant,steps\\n1,a, 4\\n1,b,3\\n")
    >>> log = read_log(path, metric="steps")
    >>> typed_rows(log, {"steps": pl.Int64}).collect()["steps"].to_list()
    [4, 3]
    >>> log.lazy.collect()["steps"].to_list()
    [' 4', '3']
    """
    original, retype = log._read.get("typed", (None, None))
    if original is not log.lazy or any(c not in log.columns and c not in log.headers for c in dtypes):
        return None
    return retype(dict(dtypes))


def format_rows(log_or_label, rows, limit: int = 8) -> str:
    """Say which rows, compactly: ``'lines 4-6, 9'``.

    Examples
    --------
    >>> format_rows("line", [4, 5, 6, 9])
    'lines 4-6, 9'
    >>> format_rows("row", [7])
    'row 7'
    >>> format_rows("line", list(range(2, 40, 2)), limit=3)
    'lines 2, 4, 6 and 16 more'
    """
    label = log_or_label if isinstance(log_or_label, str) else log_or_label.row_label
    rows = list(rows)
    files = list(dict.fromkeys(getattr(r, "file", None) for r in rows))
    if files != [None]:   # rows of several files: each file named with its own rows
        return "; ".join(f"{f}: {format_rows(label, [int(r) for r in rows if getattr(r, 'file', None) == f], limit)}"
                         for f in files)
    rows = sorted(set(int(r) for r in rows))
    if not rows:
        return ""
    runs: list[tuple[int, int]] = []
    for r in rows:
        if runs and r == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], r)
        else:
            runs.append((r, r))
    parts = [f"{a}-{b}" if a != b else f"{a}" for a, b in runs]
    shown = parts[:limit]
    text = ", ".join(shown)
    if len(parts) > limit:
        hidden = sum(b - a + 1 for a, b in runs[limit:])
        text += f" and {hidden} more"
    plural = len(rows) > 1
    return f"{label}{'s' if plural else ''} {text}"
