"""Reading probe logs from any source into one frame with canonical column names.

Data flows one way: file -> raw frame (this module) -> checked frame (:mod:`probestats.checks.schema`).
Large CSV, TSV, JSONL and Parquet files are scanned lazily, so later steps read only
the columns they need.

Row numbers in messages are the ones a person sees: for CSV and TSV the line of the
file where the record starts (the header is line 1), for JSONL the line, for a
spreadsheet the row, for JSON and Python objects the record (counting from 1).

:func:`read_log` chooses the reader of a source; each format has its module (:mod:`~probestats.io.delimited`,
:mod:`~probestats.io.json_log`, :mod:`~probestats.io.sheets`, a tool's log in :mod:`~probestats.io.frameworks`,
compressed and R files in :mod:`~probestats.io.formats`; Parquet here), and every reader ends in the
:class:`~probestats.io.log.Log` of :mod:`probestats.io.log`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping

# polars reads a CSV file in chunks of POLARS_CSV_CHUNK_SIZE bytes, a value it looks up once, at its
# first CSV read in the process. Its default holds most of a large file in memory at once; 4 MiB
# chunks keep analyze's peak near 0.2 GB at 1,000,000 and at 10,000,000 rows, and read faster
# than 2 MiB chunks (0.75 s against 0.88 s for analyze of a 1,000,000-row log, for about 30 MiB
# more; see benchmarks/bench_scale.py). A value the user has set wins.
CSV_CHUNK_BYTES = 4 << 20
os.environ.setdefault("POLARS_CSV_CHUNK_SIZE", str(CSV_CHUNK_BYTES))

import polars as pl  # noqa: E402  (after the setting above, which polars reads from the environment)

from probestats.errors import OptionError, Problem, ReadError, opt  # noqa: E402
from probestats.io.columns import check_columns  # noqa: E402
from probestats.io.delimited import read_delimited  # noqa: E402
from probestats.io.failures import first_line, panic_error, panic_quiet  # noqa: E402
from probestats.io.formats import COMPRESSED, R_SUFFIXES, decompressed, read_r  # noqa: E402
from probestats.io.frameworks import NAMES, merged_columns, read_tool_log, sniff  # noqa: E402
from probestats.io.json_log import read_json, read_jsonl  # noqa: E402
from probestats.io.log import Log, Origin, finish_log, frame_from_object, literal_path  # noqa: E402
from probestats.io.sheets import read_sheet  # noqa: E402
from probestats.limits import MAX_COLUMNS  # noqa: E402

__all__ = ["read_log", "Log", "FORMATS", "CSV_CHUNK_BYTES"]

FORMATS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".json": "json",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".xls": "xlsx",
    ".ods": "ods",
    ".parquet": "parquet",
    ".pq": "parquet",
}
_FORMAT_LIST = ".csv, .tsv, .json, .jsonl, .xlsx, .ods, .parquet, .RData or .rds (any of them .gz or .zst)"


@dataclass(frozen=True)
class _Reading:
    """How a path is read: :func:`read_log`'s options, checked, as its readers take them together."""

    format: str | None = None
    sheet: str | int | None = None
    skip_rows: int = 0
    columns: Mapping[str, str] | None = None
    encoding: str | None = None
    metric: str | None = None
    max_cells: int | None = None
    records: str | None = None
    max_columns: int = MAX_COLUMNS


def read_log(
    source,
    *,
    format: str | None = None,
    sheet: str | int | None = None,
    skip_rows: int = 0,
    columns: Mapping[str, str] | None = None,
    encoding: str | None = None,
    metric: str | None = None,
    max_cells: int | None = None,
    max_columns: int | None = None,
    records: str | None = None,
) -> Log:
    """Read a probe log from a file or a Python object.

    Parameters
    ----------
    source : str, Path, list of dict, polars or pandas DataFrame, or Log
        The log. A path's format comes from its suffix unless ``format`` is given.
    format : {"csv", "tsv", "json", "jsonl", "xlsx", "ods", "parquet"}, optional
        Override the format implied by the suffix.
    sheet : str or int, optional
        Spreadsheet sheet by name or 0-based index (default: the first).
    skip_rows : int
        Title rows above the header to skip.
    columns : mapping, optional
        ``canonical -> header`` overrides of the alias table.
    encoding : str, optional
        Text encoding of a CSV/TSV/JSON file (default: UTF-8, a BOM is honoured).
    metric : str, optional
        Name of the metric; its header is matched case-insensitively and renamed to it.
    max_cells : int, optional
        Largest extent (rows x columns) of a spreadsheet's sheet read (default :data:`MAX_CELLS`);
        a larger one is refused before it is parsed.
    max_columns : int, optional
        Most columns the log may have (default :data:`probestats.limits.MAX_COLUMNS`); a wider log is
        refused, a spreadsheet before its sheet is loaded (its columns counted from the sheet's cells).
    records : str, optional
        For a JSON document: the key (a dotted path for nesting, ``"run.decisions"``) whose
        value is the list of records or the object of equal-length lists. Without it, the one
        top-level key holding a list of records is used. Column-oriented JSON (an object of
        equal-length lists) numbers its rows by list position, the first 1.

    Examples
    --------
    >>> log = read_log([{"Item": 1, "Variant": "formal", "Steps": 4},
    ...                 {"Item": 1, "Variant": "casual", "Steps": 3}], metric="steps")
    >>> log.columns
    {'item': 'Item', 'variant': 'Variant', 'steps': 'Steps'}
    >>> log.frame.columns
    ['item', 'variant', 'steps', '_row']
    """
    if isinstance(source, Log):
        return source
    _check_types(format=format, sheet=sheet, skip_rows=skip_rows, columns=columns, encoding=encoding, metric=metric,
                 max_cells=max_cells, max_columns=max_columns, records=records)
    if skip_rows < 0:
        raise OptionError(f"{opt('skip_rows')} must be 0 or more")
    most = MAX_COLUMNS if max_columns is None else int(max_columns)
    if isinstance(source, (str, Path)):
        log = _read_path(Path(source), _Reading(format=format, sheet=sheet, skip_rows=skip_rows, columns=columns,
                                                encoding=encoding, metric=metric, max_cells=max_cells,
                                                records=records, max_columns=most))
    else:
        frame = frame_from_object(source)
        log = finish_log(frame.lazy(), list(frame.columns), Origin("the log", "record", 1), columns, metric)
    check_columns(len(log.headers), log.source, most)
    return log


def _check_types(**given) -> None:
    """Each read option of :func:`read_log` of its type (None, or a text, a whole number, a mapping); anything else
    an :class:`OptionError` naming the parameter, before the file is opened.

    >>> _check_types(skip_rows="1")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: skip_rows='1': expected a whole number, for example skip_rows=2
    """
    import numbers

    for name, value in given.items():
        if value is None:
            continue
        if name in ("skip_rows", "max_cells", "max_columns"):
            ok, expected, example = (isinstance(value, numbers.Integral) and not isinstance(value, bool),
                                     "a whole number", 2 if name == "skip_rows" else 100_000)
        elif name == "sheet":
            ok, expected, example = (isinstance(value, str) or isinstance(value, numbers.Integral)
                                     and not isinstance(value, bool), "a sheet's name or position", "Results")
        elif name == "columns":
            ok, expected, example = (isinstance(value, Mapping) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()),
                "a mapping of names to the log's headers", {"item": "Question"})
        else:
            ok, expected, example = isinstance(value, str), "a text", {"format": "csv", "encoding": "latin-1",
                                                                      "metric": "steps"}.get(name, "rows")
        if not ok:
            raise OptionError(f"{opt(name, value)}: expected {expected}, for example {opt(name, example)}")


def _detect_format(path: Path, format: str | None) -> str:
    if format:
        fmt = format.lower().lstrip(".")
        fmt = FORMATS.get("." + fmt, fmt)
        if fmt not in set(FORMATS.values()):
            raise OptionError(f"{opt('format', format)}: unknown format; expected one of csv, tsv, json, jsonl, xlsx, ods, parquet")
        return fmt
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ReadError(f"cannot read '{path.name}': unsupported format; expected {_FORMAT_LIST} (use {opt('format')})")
    return fmt


def _read_path(path: Path, reading: _Reading) -> Log:
    """The log at ``path``, read as ``reading`` says: a compressed file by the suffix it decompresses to, an R data
    file, a tool's log recognized from its content, else by its format; an option that does not apply to this
    file is a warning."""
    format, sheet, skip_rows, encoding = reading.format, reading.sheet, reading.skip_rows, reading.encoding
    columns, metric, max_cells, records = reading.columns, reading.metric, reading.max_cells, reading.records
    name = path.name
    if not path.exists():
        raise ReadError(f"no such file: '{path}'; check the path")
    if path.is_dir():
        raise ReadError(f"'{path}' is a folder; give the log file inside it")

    if path.suffix.lower() in COMPRESSED:   # log.csv.gz: the file it decompresses to, read by its own suffix
        log = _read_path(decompressed(path), reading)
        return replace(log, source=name)
    if path.suffix.lower() in R_SUFFIXES and format is None:
        ignored = []
        if sheet is not None:
            ignored.append(f"{opt('sheet', sheet)} does not apply to '{name}', an R data file, which has no sheets "
                           f"(name its data frame with {opt('records', 'NAME')})")
        if skip_rows:
            ignored.append(f"{opt('skip_rows', skip_rows)} does not apply to '{name}', an R data file, which has "
                           "no title rows above a header")
        if encoding is not None:
            ignored.append(f"{opt('encoding', encoding)} does not apply to '{name}', an R data file, which says "
                           "its own encoding")
        log = _read_r(path, columns, metric, records, reading.max_columns, max_cells)
        if ignored:
            log = replace(log, problems=log.problems + tuple(
                Problem("warning", "ignored_option", f"{text}; it was ignored") for text in ignored))
        return log
    if format is None:   # the log of a tool probes are run with, recognized from its content
        tool = sniff(path)
        if tool is not None:
            return _read_tool(path, tool, columns, metric)
    fmt = _detect_format(path, format)
    ignored = []  # an option meant for another file of the same command (compare, plan's pilot) is not an error
    if sheet is not None and fmt not in ("xlsx", "ods"):
        ignored.append(f"{opt('sheet', sheet)} does not apply to '{name}', read as {fmt.upper()}, which has no sheets")
    if skip_rows and fmt not in ("csv", "tsv", "xlsx", "ods"):
        ignored.append(f"{opt('skip_rows', skip_rows)} does not apply to '{name}', read as {fmt.upper()}, "
                       "which has no title rows above a header")
    if records is not None and fmt != "json":
        ignored.append(f"{opt('records', records)} does not apply to '{name}', read as {fmt.upper()}, which has no keys")
    if max_cells is not None and fmt not in ("xlsx", "ods"):
        ignored.append(f"{opt('max_cells', max_cells)} does not apply to '{name}', read as {fmt.upper()}: "
                       "it limits spreadsheets, whose cells are read whole")
    if encoding is not None and fmt in ("xlsx", "ods", "parquet"):
        ignored.append(f"{opt('encoding', encoding)} does not apply to '{name}', read as {fmt.upper()}, "
                       "which says its own encoding")
    log = _read_format(path, fmt, reading)
    if ignored:
        log = replace(log, problems=log.problems + tuple(
            Problem("warning", "ignored_option", f"{text}; it was ignored") for text in ignored))
    return log


def _read_r(path: Path, columns, metric, records, max_columns=None, max_cells=None) -> Log:
    """An R data file's data frame (see :mod:`probestats.io.formats`), its rows numbered from 1; what R's reader
    warned of it is a warning of the log."""
    frame, warned = read_r(path, records, max_columns, max_cells)
    problems = tuple(Problem("warning", "reader_note", f"R's reader, on '{path.name}': {text}") for text in warned)
    return finish_log(frame.lazy(), list(frame.columns), Origin(path.name, "row", 1, path), columns, metric,
                      problems=problems)


def _read_tool(path: Path, tool: str, columns, metric) -> Log:
    """A tool's log (see :mod:`probestats.io.frameworks`): its rows, its default mappings under ``columns``."""
    log = read_tool_log(path, tool, columns)
    return finish_log(log.frame.lazy(), list(log.frame.columns), Origin(path.name, "record", 1, path),
                      merged_columns(log, columns), metric, problems=log.problems, read={"format": NAMES[tool]})


def _read_format(path: Path, fmt: str, reading: _Reading) -> Log:
    """The log at ``path`` read as the format ``fmt`` by its reader."""
    skip_rows, columns, encoding, metric = reading.skip_rows, reading.columns, reading.encoding, reading.metric
    name = path.name
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ReadError(f"cannot read '{name}' ({exc.strerror}); check its permissions") from None
    if size == 0:
        raise ReadError(f"'{name}' is empty; it needs a header row and one row per run")
    if fmt in ("csv", "tsv"):
        return read_delimited(path, fmt, skip_rows, columns, encoding, metric)
    if fmt == "jsonl":
        return read_jsonl(path, columns, encoding, metric)
    if fmt == "json":
        return read_json(path, columns, encoding, metric, reading.records)
    if fmt == "parquet":
        _check_parquet(path, size)
        try:
            lazy = pl.scan_parquet(literal_path(path), glob=False)
            with panic_quiet():
                headers = list(lazy.collect_schema().names())
        except BaseException as exc:
            if not isinstance(exc, Exception):
                raise panic_error(exc, name, path) from None
            raise ReadError(f"cannot read '{name}' as Parquet ({first_line(exc)}); is it really a .parquet file? (use {opt('format')})") from None
        return finish_log(lazy, headers, Origin(name, "record", 1, path), columns, metric)
    return read_sheet(path, reading.sheet, skip_rows, columns, metric, reading.max_cells, reading.max_columns)


#: Parquet files up to this size are decoded once by pyarrow (when installed) before polars reads them
PARQUET_CHECK_BYTES = 64 << 20


def _check_parquet(path: Path, size: int) -> None:
    """Refuse a corrupt Parquet file before polars reads it.

    A damaged page header can make polars ask for exabytes of memory, which aborts the process
    rather than raising; pyarrow checks the same headers and raises. Files up to
    :data:`PARQUET_CHECK_BYTES` are checked, when pyarrow is installed (it is in the test extra).
    """
    if size > PARQUET_CHECK_BYTES:
        return
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return
    try:
        # one thread, no read-ahead: a failing read must not leave a reader thread behind (that aborts the
        # process at exit); the path is opened as a file, never read as a pattern
        # row group by row group, so a large file is never held whole
        with pq.ParquetFile(os.path.abspath(path), pre_buffer=False) as parquet:
            for group in range(parquet.num_row_groups):
                parquet.read_row_group(group, use_threads=False)
    except Exception as exc:
        text = re.sub(r"\s+", " ", str(exc)).strip()[:200] or type(exc).__name__
        raise ReadError(f"the Parquet file '{path.name}' is corrupt ({text}); write it again from its source, "
                        f"or check that it is really a .parquet file (use {opt('format')})") from None
