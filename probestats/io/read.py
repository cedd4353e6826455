"""Reading probe logs from any source into one frame with canonical column names.

Data flows one way: file -> raw frame (this module) -> checked frame (:mod:`probestats.checks.schema`).
Large CSV, TSV, JSONL and Parquet files are scanned lazily, so later steps read only
the columns they need.

Row numbers in messages are the ones a person sees: for CSV and TSV the line of the
file where the record starts (the header is line 1), for JSONL the line, for a
spreadsheet the row, for JSON and Python objects the record (counting from 1).
"""

from __future__ import annotations

import io as _stdio
import json
import os
import re
import unicodedata
from dataclasses import dataclass, field, replace
from functools import cached_property, partial
from pathlib import Path
from typing import Any, Mapping

# polars reads a CSV file in chunks of POLARS_CSV_CHUNK_SIZE bytes, a value it looks up once, at its
# first CSV read in the process. Its default holds most of a large file in memory at once; 4 MiB
# chunks keep analyze's peak near 0.2 GB at 1,000,000 and at 10,000,000 rows, and read faster
# than 2 MiB chunks (0.75 s against 0.88 s for analyze of a 1,000,000-row log, for about 30 MiB
# more; see benchmarks/bench_scale.py). A value the user has set wins.
CSV_CHUNK_BYTES = 4 << 20
os.environ.setdefault("POLARS_CSV_CHUNK_SIZE", str(CSV_CHUNK_BYTES))

import polars as pl  # noqa: E402  (after the setting above, which polars reads from the environment)

from probestats.errors import ColumnError, OptionError, ReadError, either, opt
from probestats.errors import Problem
from probestats.limits import MAX_CELLS, MAX_COLUMNS
from probestats.io.json_text import SURROGATE_ESCAPE, without_surrogates

ROW = "_row"

#: names the checks give their own per-cell columns beside a log's columns (and every name
#: starting with two underscores): a log's column of such a name is read under another name
INTERNAL_NAMES = frozenset({ROW, "n", "counted", "constant", "mean", "sd", "seeds", "seeded", "distinct_seeds",
                            "first_valued", "has_a", "has_b"})
#: the columns that make or number the runs of a probe, with what they do
STRUCTURE = {"item": "names the item", "variant": "holds the value compared", "seed": "numbers the runs by seed",
             "run_id": "names each run", "time": "holds when each run was made"}


def refuse_internal(option: str, name: str) -> None:
    """Refuse a column ``name`` given as the parameter ``option`` (``"metric"`` or ``"by"``) that probestats
    uses itself, with the way to use it anyway (named as the caller spells it, see :func:`probestats.errors.opt`).

    Examples
    --------
    >>> refuse_internal("by", "model")
    >>> refuse_internal("by", "n")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: by='n': 'n' is a name probestats uses for its own counts; read the column under another name: columns={'n_col': 'n'}, by='n_col'
    >>> from probestats.errors import cli_spelling
    >>> with cli_spelling():
    ...     refuse_internal("metric", "seed")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: --metric seed: the column 'seed' numbers the runs by seed, not a metric; name the column that holds the number computed from each reply (to analyze it anyway, read it under another name: --column seed_col=seed --metric seed_col)
    """
    name = str(name)
    other = f"{name.strip('_') or 'x'}_col"
    read_as = opt("columns", {other: name}) + either(", ", " ") + opt(option, other)
    if option == "metric" and name in STRUCTURE and name not in ("item", "variant"):
        raise OptionError(f"{opt('metric', name)}: the column '{name}' {STRUCTURE[name]}, not a metric; name the column "
                          f"that holds the number computed from each reply (to analyze it anyway, read it under "
                          f"another name: {read_as})")
    if option == "by" and name in ("seed", "run_id"):
        raise OptionError(f"{opt('by', name)}: that column numbers the runs inside each item x value cell, so it cannot "
                          "split the analysis; group by a column that is fixed within an item, such as model")
    if name in INTERNAL_NAMES or name.startswith("__"):
        raise OptionError(f"{opt(option, name)}: '{name}' is a name probestats uses for its own counts; read the "
                          f"column under another name: {read_as}")

#: canonical name -> headers that mean it (compared after :func:`normalize_header`).
ALIASES: dict[str, tuple[str, ...]] = {
    "item": ("item", "item_id", "pair", "pair_id", "question_id", "prompt_id", "sample", "case", "case_id"),
    "variant": ("variant", "value", "condition", "arm", "style"),
    "seed": ("seed", "iteration", "iter", "draw"),
    "run_id": ("run_id", "run", "runid"),
    "time": ("time", "timestamp", "date", "datetime"),
    "model": ("model", "model_tag", "model_name"),
    "temperature": ("temperature", "temp"),
    "system": ("system", "system_prompt"),
    "prompt": ("prompt", "input", "message", "question"),
    "reply": ("reply", "response", "output", "completion", "raw", "answer"),
    "framing": ("framing", "frame", "direction"),
    "topic": ("topic",),
    "language": ("language", "lang", "locale"),
    "label": ("label", "cat", "category", "judge_label"),
    "score": ("score",),
    "refusal": ("refusal", "is_refusal", "isrefusal", "refused"),
    "neutral": ("neutral", "is_neutral", "isneutral"),
    "prefix": ("prefix",),
    "suffix": ("suffix",),
    "asserts": ("asserts", "target", "asserted_target"),
    "criterion": ("criterion", "criteria"),
}

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
_SNIFF = 1 << 16


def normalize_header(header: str) -> str:
    """Header as compared with the alias table: trimmed, lower case, separators as ``_``.

    Examples
    --------
    >>> normalize_header(" Run ID ")
    'run_id'
    >>> normalize_header("Is-Refusal")
    'is_refusal'
    """
    text = unicodedata.normalize("NFKC", str(header)).strip().lower()
    return re.sub(r"[\s\-./]+", "_", text).strip("_")


def resolve_columns(
    headers: list[str], overrides: Mapping[str, str] | None = None, metric: str | None = None
) -> dict[str, str]:
    """Map canonical names to the headers that hold them.

    Exact canonical names win over aliases; an alias earlier in :data:`ALIASES`
    wins over a later one; ``overrides`` (canonical -> header) win over both. An override to
    the empty header says that no header holds that column (a header that looks like a model's
    but is not one). ``metric`` is matched like a header and maps to itself.

    Examples
    --------
    >>> resolve_columns([" Item ", "Variant", "Steps", "Run ID"], metric="steps")
    {'item': ' Item ', 'variant': 'Variant', 'run_id': 'Run ID', 'steps': 'Steps'}
    >>> resolve_columns(["pair", "arm", "score"], overrides={"item": "score"})
    {'item': 'score', 'variant': 'arm'}
    >>> resolve_columns(["item", "variant", "model"], overrides={"model": ""})
    {'item': 'item', 'variant': 'variant'}
    """
    overrides = dict(overrides or {})
    unset = {canonical for canonical, header in overrides.items() if header == ""}
    overrides = {canonical: header for canonical, header in overrides.items() if header != ""}
    for canonical, header in overrides.items():
        if canonical == ROW or canonical.startswith("__"):
            raise ColumnError(f"{opt('columns', {canonical: header})}: '{canonical}' is a name probestats uses itself "
                              f"(for the row numbers and its counts); read '{header}' under another name")
    by_norm: dict[str, str] = {}
    for h in headers:
        by_norm.setdefault(normalize_header(h), h)
    for canonical, header in overrides.items():
        if header not in headers:
            found = by_norm.get(normalize_header(header))
            if found is None:
                raise ColumnError(
                    f"{opt('columns', {canonical: header})}: no header '{header}' in the log; "
                    f"headers seen: {', '.join(headers)}"
                )
            overrides[canonical] = found
    taken = set(overrides.values())
    mapping: dict[str, str] = {}
    for canonical, aliases in ALIASES.items():
        if canonical in unset:
            continue
        if canonical in overrides:
            mapping[canonical] = overrides[canonical]
            continue
        for alias in aliases:
            header = by_norm.get(alias)
            if header is not None and header not in taken:
                mapping[canonical] = header
                taken.add(header)
                break
    if metric is not None:
        if metric in overrides:
            mapping[metric] = overrides[metric]
        else:
            header = by_norm.get(normalize_header(metric))
            if header is not None:
                # the metric may share a header with a canonical column (say "score")
                for canonical, h in list(mapping.items()):
                    if h == header and canonical != metric:
                        del mapping[canonical]
                mapping[metric] = header
    for canonical, header in overrides.items():
        mapping[canonical] = header
    return mapping


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
        with _panic_quiet():
            return lazy.collect()
    except pl.exceptions.PolarsError as exc:  # a problem found only when the data is read
        if path is not None and path.suffix.lower() in (".csv", ".tsv", ".tab"):
            _locate_bad_record(path, source)
        raise ReadError(_polars_message(exc, source)) from None
    except BaseException as exc:
        raise _panic(exc, source, path) from None


class _panic_quiet:
    """Hold back what native code writes to the standard error stream (file descriptor 2) while a
    reader runs: a panic's hook prints its message and a stack backtrace there before the panic is
    raised in Python, where it becomes one ``Error:`` line. Anything else written is passed on."""

    def __enter__(self):
        import tempfile

        try:
            self.saved = os.dup(2)
        except OSError:
            self.saved = None
            return self
        self.buffer = tempfile.TemporaryFile()
        os.dup2(self.buffer.fileno(), 2)
        return self

    def __exit__(self, kind, exc, tb):
        if self.saved is None:
            return False
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.buffer.seek(0)
        held = self.buffer.read()
        self.buffer.close()
        if held and not (kind is not None and kind.__name__ == "PanicException"):
            os.write(2, held)
        return False


def _panic(exc: BaseException, source: str, path: Path | None = None) -> BaseException:
    """A reader's panic (raised through pyo3 as a BaseException) as one :class:`ReadError`; anything else as is."""
    if type(exc).__name__ != "PanicException":
        return exc
    text = re.sub(r"\s+", " ", str(exc)).strip()[:200]
    if path is not None and path.suffix.lower() in (".parquet", ".pq"):
        return ReadError(f"the Parquet file '{source}' is corrupt: the reader failed on it ({text}); "
                         "write it again from its source")
    return ReadError(f"cannot read '{source}': the reader failed on malformed data ({text})")


def _other_separator(header: list[str], sep: str) -> str | None:
    """The separator a header read as one field really uses, if it is ``;`` or a tab.

    A spreadsheet saved where the decimal mark is a comma separates with semicolons (and a
    .csv may hold tabs).

    >>> _other_separator(["item;variant;steps"], ","), _other_separator(["item", "steps"], ",")
    (';', None)
    """
    return next((c for c in (";", "\t") if c != sep and len(header) == 1 and c in header[0]), None)


def _locate_bad_record(path: Path, source: str) -> None:
    """Name the line where a delimited file stops making sense, when it is small enough to scan."""
    import csv

    if path.stat().st_size > 64 << 20:
        return
    sep = "\t" if path.suffix.lower() in (".tsv", ".tab") else ","
    try:
        text = path.read_bytes().decode("utf-8-sig", errors="replace")
    except OSError:
        return
    reader = csv.reader(_stdio.StringIO(text, newline=""), delimiter=sep)
    try:
        header = next(reader)
        other = _other_separator(header, sep)
        if other is not None:
            reader = csv.reader(_stdio.StringIO(text, newline=""), delimiter=other)
            header = next(reader)
        width = len(header)
        start = reader.line_num + 1
        for record in reader:
            if len(record) != width:
                raise ReadError(
                    f"line {start} of {source} has {len(record)} fields where the header has {width}; "
                    "look for an unbalanced quote or an unquoted separator there"
                )
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ReadError(f"line {reader.line_num} of {source} cannot be parsed ({exc}); check its quotes") from None


def _polars_message(exc: Exception, source: str) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    low = text.lower()
    if "utf-8" in low or "utf8" in low:
        return f"'{source}' is not valid UTF-8 text; pass {opt('encoding')} (for example {opt('encoding', 'cp1252')})"
    if "quote" in low or "field" in low or "ragged" in low or "malformed" in low:
        return (f"cannot parse '{source}' as delimited text ({text}); check for an unbalanced "
                "quote or a row with extra fields")
    return f"cannot read '{source}' ({text})"


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
    if skip_rows < 0:
        raise OptionError(f"{opt('skip_rows')} must be 0 or more")
    most = MAX_COLUMNS if max_columns is None else int(max_columns)
    if isinstance(source, (str, Path)):
        log = _read_path(Path(source), format=format, sheet=sheet, skip_rows=skip_rows,
                         columns=columns, encoding=encoding, metric=metric, max_cells=max_cells,
                         records=records, max_columns=most)
    else:
        frame = _frame_from_object(source)
        log = _finish(frame.lazy(), list(frame.columns), "the log", columns, metric,
                      row_label="record", first_row=1)
    check_columns(len(log.headers), log.source, most)
    return log


def check_columns(count: int, name: str, most: int) -> None:
    """Refuse a log of more than ``most`` columns: every check and analysis works column by column.

    >>> check_columns(16_384, "wide.xlsx", 2_000)
    Traceback (most recent call last):
    ...
    probestats.errors.ReadError: 'wide.xlsx' has 16,384 columns, more than max_columns=2000 (validating them would take about 16 GB of memory); keep the columns the probe needs (item, value, metric, settings), or raise the limit with max_columns=16384
    """
    if count <= most:
        return
    raise ReadError(f"'{name}' has {count:,} columns, more than {opt('max_columns', most)} (validating them "
                    f"would take about {_column_cost(count)} of memory); keep the columns the probe needs "
                    f"(item, value, metric, settings), or raise the limit with {opt('max_columns', count)}")


def _column_cost(columns: int) -> str:
    """The memory a log's checks take for its columns, about (measured: 16,384 columns of 3 rows grew past 4 GB
    in the streaming checks' per-column aggregates, about 1 MB per column)."""
    return f"{columns * 1e6 / 1e9:,.0f} GB" if columns >= 1000 else f"{columns:,} MB"


def _frame_from_object(obj) -> pl.DataFrame:
    if isinstance(obj, pl.LazyFrame):
        obj = obj.collect()
    if isinstance(obj, pl.DataFrame):
        return obj
    if type(obj).__module__.startswith("pandas"):
        from probestats.io.formats import frame_from_pandas   # without pyarrow too, column by column

        return frame_from_pandas(obj)
    if isinstance(obj, (list, tuple)):
        if not all(isinstance(r, Mapping) for r in obj):
            raise ReadError("a log given as a list must be a list of dicts, one per run")
        try:
            return pl.from_dicts(list(obj), infer_schema_length=None)
        except Exception as exc:
            raise ReadError(f"cannot make a table of the records ({exc}); give each key one type") from None
    raise ReadError(
        f"cannot read a log from a {type(obj).__name__}; give a path, a list of dicts, or a polars or pandas DataFrame"
    )


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


def _read_path(path: Path, *, format, sheet, skip_rows, columns, encoding, metric, max_cells=None,
               records=None, max_columns=MAX_COLUMNS) -> Log:
    name = path.name
    if not path.exists():
        raise ReadError(f"no such file: '{path}'; check the path")
    if path.is_dir():
        raise ReadError(f"'{path}' is a folder; give the log file inside it")
    from probestats.io.formats import COMPRESSED, R_SUFFIXES

    if path.suffix.lower() in COMPRESSED:   # log.csv.gz: the file it decompresses to, read by its own suffix
        from probestats.io.formats import decompressed

        log = _read_path(decompressed(path), format=format, sheet=sheet, skip_rows=skip_rows, columns=columns,
                         encoding=encoding, metric=metric, max_cells=max_cells, records=records,
                         max_columns=max_columns)
        return replace(log, source=name)
    if path.suffix.lower() in R_SUFFIXES and format is None:
        return _read_r(path, columns, metric, records)
    if format is None:   # the log of a tool probes are run with, recognized from its content
        from probestats.io.frameworks import sniff

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
    log = _read_format(path, fmt, sheet=sheet, skip_rows=skip_rows, columns=columns, encoding=encoding,
                       metric=metric, max_cells=max_cells, records=records, max_columns=max_columns)
    if ignored:
        log = replace(log, problems=log.problems + tuple(
            Problem("warning", "ignored_option", f"{text}; it was ignored") for text in ignored))
    return log


def _read_r(path: Path, columns, metric, records) -> Log:
    """An R data file's data frame (see :mod:`probestats.io.formats`), its rows numbered from 1."""
    from probestats.io.formats import read_r

    frame = read_r(path, records)
    return _finish(frame.lazy(), list(frame.columns), path.name, columns, metric, row_label="row", first_row=1,
                   path=path)


def _read_tool(path: Path, tool: str, columns, metric) -> Log:
    """A tool's log (see :mod:`probestats.io.frameworks`): its rows, its default mappings under ``columns``."""
    from probestats.io.frameworks import NAMES, merged_columns, read_tool_log

    log = read_tool_log(path, tool, columns)
    return _finish(log.frame.lazy(), list(log.frame.columns), path.name, merged_columns(log, columns), metric,
                   row_label="record", first_row=1, problems=log.problems, path=path,
                   read={"format": NAMES[tool]})


def _read_format(path: Path, fmt: str, *, sheet, skip_rows, columns, encoding, metric, max_cells=None,
                 records=None, max_columns=MAX_COLUMNS) -> Log:
    name = path.name
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ReadError(f"cannot read '{name}' ({exc.strerror}); check its permissions") from None
    if size == 0:
        raise ReadError(f"'{name}' is empty; it needs a header row and one row per run")
    if fmt in ("csv", "tsv"):
        return _read_delimited(path, fmt, skip_rows, columns, encoding, metric)
    if fmt == "jsonl":
        return _read_jsonl(path, columns, encoding, metric)
    if fmt == "json":
        return _read_json(path, columns, encoding, metric, records)
    if fmt == "parquet":
        _check_parquet(path, size)
        try:
            lazy = pl.scan_parquet(_literal(path), glob=False)
            with _panic_quiet():
                headers = list(lazy.collect_schema().names())
        except BaseException as exc:
            if not isinstance(exc, Exception):
                raise _panic(exc, name, path) from None
            raise ReadError(f"cannot read '{name}' as Parquet ({_first_line(exc)}); is it really a .parquet file? (use {opt('format')})") from None
        return _finish(lazy, headers, name, columns, metric, row_label="record", first_row=1, path=path)
    return _read_sheet(path, sheet, skip_rows, columns, metric, max_cells, max_columns)


_GLOB_CHARS = re.compile(r"[*?\[\]{}]")


def _literal(source):
    """A path polars reads as exactly that file: absolute (no ``~`` or ``scheme://`` reading) and,
    with ``glob=False`` at the call, never a pattern; bytes pass through.

    >>> str(_literal(Path("/tmp/probe[12].csv")))
    '/tmp/probe[12].csv'
    """
    if isinstance(source, (bytes, bytearray)):
        return source
    return Path(os.path.abspath(source))


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


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _decode_head(path: Path, encoding: str | None) -> tuple[str | None, bytes]:
    """Decide how to decode a text file from its first bytes.

    Returns (python encoding to re-encode from, or None when polars can read it as
    UTF-8 directly; the head bytes).
    """
    with path.open("rb") as fh:
        head = fh.read(_SNIFF)
    if encoding:
        import codecs

        try:
            info = codecs.lookup(encoding)
        except LookupError:
            raise OptionError(f"{opt('encoding', encoding)}: unknown encoding; try utf-8, cp1252 or latin-1") from None
        if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_TEXT_ENCODINGS:
            raise OptionError(f"{opt('encoding', encoding)}: not an encoding of text files ({info.name} turns text into "
                              "other text or bytes); try utf-8, cp1252 or latin-1")
        norm = encoding.lower().replace("-", "").replace("_", "")
        return (None if norm in ("utf8",) else encoding), head
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16", head
    if head.startswith(b"\xef\xbb\xbf"):
        return None, head
    if b"\x00" in head:
        raise ReadError(f"'{path.name}' does not look like a text file (it holds NUL bytes); is it really a {path.suffix or 'text'} file? (use {opt('format')})")
    # a cut multi-byte character at the end of the sniffed block is fine
    try:
        head.decode("utf-8")
        return None, head
    except UnicodeDecodeError as exc:
        if exc.start >= len(head) - 3 and len(head) == _SNIFF:
            return None, head
        bad = head[exc.start]
    try:
        text = head.decode("cp1252")
    except UnicodeDecodeError:
        text = None
    controls = sum(1 for ch in head[:4096] if ch < 9 or 13 < ch < 32)
    if text is None or controls > 0:
        raise ReadError(f"'{path.name}' does not look like a text file (byte 0x{bad:02x}); is it really a {path.suffix or 'text'} file? (use {opt('format')})")
    odd = [ch for ch in text if ord(ch) > 127 and not unicodedata.category(ch).startswith(("L", "Z", "P", "S"))]
    if odd:
        raise ReadError(f"'{path.name}' is not UTF-8 (byte 0x{bad:02x}); pass the file's encoding, for example {opt('encoding', 'cp1252')}")
    raise _NotUtf8(bad)


#: codecs Python lists as text encodings that no text file is written in
_NOT_TEXT_ENCODINGS = {"punycode", "idna", "unicode-escape", "raw-unicode-escape", "undefined", "mbcs", "oem"}


class _NotUtf8(Exception):
    def __init__(self, byte: int):
        self.byte = byte


def _text_source(path: Path, encoding: str | None) -> tuple[Any, list[Problem]]:
    """A source polars can read as UTF-8, and any warning about the encoding used."""
    try:
        enc, _ = _decode_head(path, encoding)
    except _NotUtf8 as exc:
        enc = "cp1252"
        problems = [Problem(
            "warning", "encoding",
            f"'{path.name}' is not UTF-8 (byte 0x{exc.byte:02x}); it was read as Windows-1252 (Latin-1); "
            f"pass {opt('encoding')} if accented letters look wrong")]
        return _reencode(path, enc), problems
    if enc is None:
        return path, []
    return _reencode(path, enc), []


def _reencode(path: Path, enc: str) -> bytes:
    try:
        return path.read_bytes().decode(enc).encode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReadError(f"'{path.name}' is not valid {enc} (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); pass the right {opt('encoding')}") from None
    except (UnicodeError, ValueError) as exc:
        raise ReadError(f"'{path.name}' cannot be decoded as {enc} ({_first_line(exc)}); pass the right {opt('encoding')}") from None


def _read_delimited(path, fmt, skip_rows, columns, encoding, metric) -> Log:
    name = path.name
    source, problems = _text_source(path, encoding)
    sep = "\t" if fmt == "tsv" else ","
    if isinstance(source, bytes):
        head = source[:_SNIFF]
    else:
        with path.open("rb") as fh:
            head = fh.read(_SNIFF)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    if b"\r" in head and b"\n" not in head:  # lines end in CR alone (classic Mac OS, old Excel for Mac)
        source = (source if isinstance(source, bytes) else path.read_bytes()).replace(b"\r", b"\n")
        head = head.replace(b"\r", b"\n")
    try:
        lazy = pl.scan_csv(_literal(source), separator=sep, infer_schema=False, skip_rows=skip_rows,
                           raise_if_empty=False, glob=False)
        headers = list(lazy.collect_schema().names())
        other = _other_separator(headers, sep)
        if other is not None:
            sep = other
            lazy = pl.scan_csv(_literal(source), separator=sep, infer_schema=False, skip_rows=skip_rows,
                               raise_if_empty=False, glob=False)
            headers = list(lazy.collect_schema().names())
    except pl.exceptions.PolarsError as exc:
        raise ReadError(_polars_message(exc, name)) from None
    if not headers or headers == [""]:
        raise ReadError(f"'{name}' has no header row; the first line must name the columns")
    _check_duplicate_headers(head, name, sep, skip_rows)
    _check_quotes(head, name, sep)
    multiline = b'"' in head and _has_quoted_newline(head)
    if len(head) == _SNIFF:
        multiline = True  # a quoted line break may come later: count line breaks when rows are shown
    return _finish(lazy, headers, name, columns, metric, row_label="line", first_row=2 + skip_rows,
                   problems=problems, path=path, read={"multiline": multiline, "delimited": True},
                   rescan=partial(_scan_typed, source, sep, skip_rows))


def _check_duplicate_headers(head: bytes, name: str, sep: str, skip_rows: int) -> None:
    """Refuse a header row that names a column twice: which one holds the data would be a guess.

    >>> _check_duplicate_headers(b"item,steps,steps\\n1,2,3\\n", "log.csv", ",", 0)
    Traceback (most recent call last):
    ...
    probestats.errors.ReadError: 'log.csv' names the column 'steps' twice in its header (columns 2 and 3); rename one so that each column has one name
    """
    import csv

    text = head.decode("utf-8", errors="replace")
    lines = text.splitlines(keepends=True)[skip_rows:]
    try:
        header = next(csv.reader(_stdio.StringIO("".join(lines), newline=""), delimiter=sep), [])
    except csv.Error:
        return
    seen: dict[str, int] = {}
    for position, h in enumerate(header, start=1):
        if h in seen and h.strip():
            raise ReadError(
                f"'{name}' names the column '{h}' twice in its header (columns {seen[h]} and {position}); "
                "rename one so that each column has one name")
        seen.setdefault(h, position)


#: nesting deeper than this in a JSON or JSON-lines log is refused (a log's record is flat)
MAX_JSON_DEPTH = 100
#: JSON-lines files up to this size are checked line by line for keys given twice
JSONL_KEY_CHECK_BYTES = 32 << 20


class _DuplicateKey(Exception):
    pass


def _pairs_once(pairs):
    keys = set()
    for key, _ in pairs:
        if key in keys:
            raise _DuplicateKey(key)
        keys.add(key)
    return dict(pairs)


def _too_deep(value, limit: int) -> bool:
    """Whether a parsed JSON value nests containers more than ``limit`` levels (walked without recursion).

    >>> _too_deep([{"a": [1]}], 2), _too_deep([{"a": [1]}], 3), _too_deep(42, 1)
    (True, False, False)
    """
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return False


def _loads(text, name: str, where: str):
    """``json.loads`` that refuses a key given twice, deep nesting and huge integers, in one line each."""
    if isinstance(text, bytes):
        text = text.decode("utf-8-sig", errors="replace")
    try:
        value = json.loads(text, object_pairs_hook=_pairs_once)
    except _DuplicateKey as exc:
        raise ReadError(f"{where} of '{name}' gives the key '{exc.args[0]}' twice; which value counts would be "
                        "a guess: remove or rename one") from None
    except RecursionError:
        raise ReadError(f"{where} of '{name}' is nested too deeply to read; a log's record is flat") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # Python's limit on the digits of an integer (4,300 by default)
        raise ReadError(f"{where} of '{name}' holds a number too long to read ({_first_line(exc).split(';')[0]}); "
                        "write it with fewer digits") from None
    if SURROGATE_ESCAPE.search(text):   # a lone surrogate no encoding can write: U+FFFD, as in the tools' logs
        value = without_surrogates(value)
    records = value if isinstance(value, list) else [value]
    nested = any(isinstance(v, (dict, list)) for r in records if isinstance(r, dict) for v in r.values()) or any(
        not isinstance(r, dict) for r in records)
    if nested and _too_deep(value, MAX_JSON_DEPTH):
        raise ReadError(f"{where} of '{name}' is nested more than {MAX_JSON_DEPTH} levels deep; "
                        "a log's record is flat (one value per column)")
    return value


def _check_jsonl_keys(data: bytes, name: str) -> None:
    """Refuse a JSON-lines record that gives a key twice (polars would keep the first, silently)."""
    if len(data) > JSONL_KEY_CHECK_BYTES:
        return
    for number, line in enumerate(data.decode("utf-8-sig", errors="replace").split("\n"), start=1):
        if line.strip():
            try:
                _loads(line, name, f"line {number}")
            except json.JSONDecodeError:
                pass  # reported with its line by the reader


def _has_quoted_newline(head: bytes) -> bool:
    inside = False
    for ch in head:
        if ch == 0x22:
            inside = not inside
        elif ch == 0x0A and inside:
            return True
    return False


def _check_quotes(head: bytes, name: str, sep: str) -> None:
    r'''Refuse a small file whose quotes never close: it would swallow every row after it.

    Follows RFC 4180: a quote opens a field only at its start; inside a quoted field a
    doubled quote is a literal quote and a single one closes the field.

    >>> _check_quotes(b'a,b\n"he said ""hi""",x\n', "ok.csv", ",")
    >>> _check_quotes(b'a,b\n"open,x\n2,y\n', "bad.csv", ",")
    Traceback (most recent call last):
    ...
    probestats.errors.ReadError: 'bad.csv' has an unbalanced quote: the quoted field that starts on line 2 never closes; close it or remove the stray " character
    '''
    if len(head) >= _SNIFF:
        return
    start, unquoted, quoted, after_quote = range(4)
    state = start
    line = opened_at = 1
    delimiter = ord(sep)
    for ch in head:
        if state == quoted:
            if ch == 0x22:
                state = after_quote
        elif state == after_quote:  # the quote closed the field, or began a doubled quote
            if ch == 0x22:
                state = quoted
            elif ch in (delimiter, 0x0A, 0x0D):
                state = start
            else:
                state = unquoted
        elif ch in (delimiter, 0x0A, 0x0D):
            state = start
        elif state == start and ch == 0x22:
            state, opened_at = quoted, line
        else:
            state = unquoted
        if ch == 0x0A:
            line += 1
    if state == quoted:
        raise ReadError(
            f"'{name}' has an unbalanced quote: the quoted field that starts on line {opened_at} never closes; "
            "close it or remove the stray \" character"
        )


def _read_jsonl(path, columns, encoding, metric) -> Log:
    name = path.name
    source, problems = _text_source(path, encoding)
    raw = source if isinstance(source, bytes) else None
    with path.open("rb") as fh:
        bom = fh.read(3) == b"\xef\xbb\xbf"
    if raw is None and bom:
        raw = path.read_bytes()[3:]  # a byte-order mark polars' NDJSON reader refuses
        source = raw
    lines_info = _scan_jsonl(path, raw)
    if raw is not None or path.stat().st_size <= JSONL_KEY_CHECK_BYTES:   # a large file is not read whole
        _check_jsonl_keys(raw if raw is not None else path.read_bytes(), name)
    first_line, blank = lines_info
    try:
        schema = _jsonl_schema(path) if raw is None and path.stat().st_size > JSONL_KEY_CHECK_BYTES else None
        if schema is not None:   # a large file, read in blocks as the rows are needed
            lazy = _jsonl_blocks_source(path, schema)
        elif raw is None and _GLOB_CHARS.search(str(path)) is None:
            lazy = pl.scan_ndjson(_literal(source), infer_schema_length=None)
        else:  # polars' NDJSON reader has no glob=False: hand it the bytes of this one file
            lazy = pl.read_ndjson(_stdio.BytesIO(raw if raw is not None else path.read_bytes()),
                                  infer_schema_length=None).lazy()
        headers = list(lazy.collect_schema().names())
    except pl.exceptions.PolarsError:
        _raise_first_bad_json_line(path, raw)
        raise ReadError(f"cannot read '{name}' as JSON lines; each line must be one JSON object") from None
    log = _finish(lazy, headers, name, columns, metric, row_label="line", first_row=first_line,
                  problems=problems, path=path, read={"jsonl_lines": blank})
    return log


#: JSON-lines files larger than JSONL_KEY_CHECK_BYTES are read in blocks of about this size (polars'
#: own reader holds the whole file), so streaming one keeps memory near a few blocks' worth, whatever
#: the file's size
JSONL_BLOCK_BYTES = 4 << 20


def _jsonl_blocks(path: Path, block: int | None = None):
    """The file's bytes in blocks of whole lines (each ends at a line break but the last), of about
    ``block`` bytes (default :data:`JSONL_BLOCK_BYTES`)."""
    block = block or JSONL_BLOCK_BYTES
    carry = b""
    with path.open("rb") as fh:
        while chunk := fh.read(block):
            chunk = carry + chunk
            at = chunk.rfind(b"\n")
            carry = chunk[at + 1:]
            if at >= 0 and chunk[:at + 1].strip():
                yield chunk[:at + 1]
    if carry.strip():
        yield carry


def _jsonl_schema(path: Path) -> dict | None:
    """The columns polars infers from every record, read block by block, in the order the first
    block gives them (the order they first appear, as every block has them all); None when two
    blocks infer different ones (then polars reads the whole file, and settles the types as it does)."""
    schema = None
    for block in _jsonl_blocks(path):
        found = dict(pl.scan_ndjson(_stdio.BytesIO(block), infer_schema_length=None).collect_schema())
        if schema is None:
            schema = found
        elif found != schema:   # another column or type (the order within a block may differ)
            return None
    return schema


class _JsonlBlocks:
    """A polars IO source (:func:`polars.io.plugins.register_io_source`) reading a JSON-lines file
    in blocks: the columns and rows asked for, a block at a time."""

    def __init__(self, path: Path, schema: dict):
        self.path, self.schema = path, schema

    def __call__(self, with_columns, predicate, n_rows, batch_size):
        left = n_rows
        for block in _jsonl_blocks(self.path):
            if left is not None and left <= 0:
                return
            frame = pl.read_ndjson(_stdio.BytesIO(block), schema=self.schema)
            if left is not None:   # the file's first n_rows records, then the filter (as polars means it)
                frame = frame.head(left)
                left -= frame.height
            if predicate is not None:
                frame = frame.filter(predicate)
            if with_columns is not None:   # no column at all: the rows still count (a row index, a len)
                frame = frame.select(with_columns) if with_columns else frame.drop(frame.columns)
            yield frame


def _jsonl_blocks_source(path: Path, schema: dict) -> pl.LazyFrame:
    from polars.io.plugins import register_io_source

    return register_io_source(_JsonlBlocks(path, schema), schema=schema, explain_name="jsonl blocks")


_BLANK_LINE = re.compile(rb"(?:^|\n)[ \t\r\f\v]*\n")


def _scan_jsonl(path, raw):
    """First data line, and the line numbers of every record when blank lines exist."""
    if raw is None and not _has_blank_line(path):
        return 1, None
    data = raw if raw is not None else path.read_bytes()
    # a line holding nothing or only spaces (before the last record) shifts the later records' lines
    if _BLANK_LINE.search(data) is None:
        return 1, None
    numbers = [i + 1 for i, line in enumerate(data.split(b"\n")) if line.strip()]
    return 1, numbers


_BLANK_INSIDE = re.compile(rb"\n[ \t\r\f\v]*\n")


def _has_blank_line(path: Path, block: int = 1 << 24) -> bool:
    """Whether a file has a line of nothing or only spaces, read in blocks (a large log is never
    held whole): each block is searched with the end of the line the previous one stopped in."""
    carry = b"\n"   # the file's first line starts as if after a line break
    with path.open("rb") as fh:
        while chunk := fh.read(block):
            chunk = carry + chunk
            if _BLANK_INSIDE.search(chunk):
                return True
            at = chunk.rfind(b"\n")
            rest = chunk[at:] if at >= 0 else b"x"   # the line the block stops in, from its line break
            # a line that has something on it cannot be blank: carry a mark that it has
            carry = rest if rest.strip() == b"" else b"x"
    return False


def _raise_first_bad_json_line(path: Path, raw: bytes | None) -> None:
    data = raw if raw is not None else path.read_bytes()
    for number, line in enumerate(data.decode("utf-8", errors="replace").split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = _loads(line, path.name, f"line {number}")
        except json.JSONDecodeError as exc:
            raise ReadError(f"line {number} of {path.name} is not JSON ({exc.msg} at column {exc.colno}); fix or remove that line") from None
        if not isinstance(value, dict):
            raise ReadError(f"line {number} of {path.name} is not a JSON object; each line must be one record like {{\"item\": 1, ...}}")


def _read_json(path, columns, encoding, metric, records=None) -> Log:
    name = path.name
    source, problems = _text_source(path, encoding)
    data = source if isinstance(source, bytes) else path.read_bytes()
    try:
        value = _loads(data, name, "a record")
    except json.JSONDecodeError as exc:
        if data.lstrip()[:1] == b"{" and b"\n{" in data:
            raise ReadError(f"'{name}' holds one JSON object per line; read it as JSON lines (rename it .jsonl or use {opt('format', 'jsonl')})") from None
        raise ReadError(f"'{name}' is not JSON (line {exc.lineno}: {exc.msg} at column {exc.colno}); fix the file or check {opt('format')}") from None
    value = _json_table(value, name, records)
    if isinstance(value, dict):  # column-oriented: rows are list positions, the first counted 1
        frame = pl.DataFrame(value, strict=False) if value else pl.DataFrame()
        if frame.height == 0:
            raise ReadError(f"'{name}' holds empty lists; it needs one entry per run in each list")
        return _finish(frame.lazy(), list(frame.columns), name, columns, metric, row_label="list position",
                       first_row=1, problems=problems, path=path)
    if not value or not any(value):
        raise ReadError(f"'{name}' holds no records; it needs one object per run, like [{{\"item\": 1, ...}}]")
    frame = _frame_from_object(value)
    return _finish(frame.lazy(), list(frame.columns), name, columns, metric, row_label="record",
                   first_row=1, problems=problems, path=path)


def _is_records(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(r, dict) for r in value)


def _is_columns(value) -> bool:
    return (isinstance(value, dict) and bool(value)
            and all(isinstance(v, list) and not any(isinstance(x, (dict, list)) for x in v) for v in value.values()))


#: keys a message lists before it says how many more there are
LISTED_KEYS = 20


def _listing(keys: list) -> str:
    """The first LISTED_KEYS keys, each cut to 40 characters, and how many more.

    >>> _listing([f"k{i}" for i in range(25)])
    'k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, k12, k13, k14, k15, k16, k17, k18, k19 and 5 more'
    """
    shown = ", ".join(str(k)[:40] + ("..." if len(str(k)) > 40 else "") for k in keys[:LISTED_KEYS])
    return shown + (f" and {len(keys) - LISTED_KEYS:,} more" if len(keys) > LISTED_KEYS else "")


def _json_table(value, name: str, records: str | None = None):
    """The table a JSON document holds: a list of records, or a dict of equal-length lists (column-oriented).

    A list of records is the document itself, the value at the dotted path ``records`` names, or
    the one top-level key that holds a list of records (the first of rows, records, data, runs,
    log when several do). An object whose values are all lists of plain values is column-oriented:
    one list per column, the n-th entries of the lists make the n-th row.

    >>> _json_table({"meta": {"v": 1}, "all_decisions": [{"a": 1}]}, "x.json")
    [{'a': 1}]
    >>> _json_table({"a": [1, 2], "b": ["x", "y"]}, "x.json")
    {'a': [1, 2], 'b': ['x', 'y']}
    >>> _json_table({"run": {"out": [{"a": 1}]}}, "x.json", records="run.out")
    [{'a': 1}]
    """
    shape = "a JSON array of records, one object per run, like [{\"item\": 1, ...}], or an object of equal-length lists"
    if records is not None:
        node = value
        for i, part in enumerate(str(records).split(".")):
            if not isinstance(node, dict) or part not in node:
                where = ".".join(str(records).split(".")[:i]) or "the top level"
                keys = _listing(list(node)) if isinstance(node, dict) else "none (not an object)"
                raise ReadError(f"{opt('records', records)}: no key '{part}' under {where} of '{name}'; keys there: {keys}")
            node = node[part]
        if not (_is_records(node) or _is_columns(node)):
            raise ReadError(f"{opt('records', records)}: the value there in '{name}' is not {shape}")
        value = node
    elif isinstance(value, dict) and not _is_columns(value):
        found = [k for k, v in value.items() if _is_records(v)]
        legacy = [k for k in ("rows", "records", "data", "runs", "log") if k in found]
        if len(found) == 1 or legacy:
            value = value[legacy[0] if legacy else found[0]]
        elif found:
            raise ReadError(f"'{name}' holds lists of records under several keys ({', '.join(found)}); "
                            f"name one with {opt('records', 'KEY')} (e.g. {opt('records', found[0])})")
        else:
            nested = ", ".join(f"{k}.{j}" for k, v in value.items() if isinstance(v, dict)
                               for j, w in v.items() if _is_records(w))[:200]
            hint = f" (records sit deeper: {opt('records', nested.split(', ')[0])})" if nested else ""
            raise ReadError(f"'{name}' must be {shape}; no top-level key holds a list of records{hint}")
    if isinstance(value, dict):
        lengths = {k: len(v) for k, v in value.items()}
        if len(set(lengths.values())) > 1:
            shown = ", ".join(f"'{k}' has {n}" for k, n in list(lengths.items())[:4])
            raise ReadError(f"'{name}' is column-oriented JSON (an object of lists) but its lists differ in length "
                            f"({shown}); every list needs one entry per run")
        return value
    if not isinstance(value, list) or not all(isinstance(r, dict) for r in value):
        raise ReadError(f"'{name}' must be {shape}")
    return value


#: uncompressed bytes of a spreadsheet's archive allowed per cell of MAX_CELLS (a zip bomb expands far beyond)
BYTES_PER_CELL = 64
#: uncompressed bytes always allowed, whatever max_cells says
MIN_EXPANDED_BYTES = 256 << 20


def check_spreadsheet(path: Path, max_cells: int | None = None, max_columns: int = MAX_COLUMNS) -> None:
    """Refuse a spreadsheet too large to read, from its archive's directory and its sheets' extent,
    before a reader allocates anything.

    The spreadsheet reader allocates the whole extent of a sheet (rows x columns up to its farthest
    cell), so one cell at XFD1048576 asks for 17 billion cells, and a small archive can expand to
    gigabytes; either aborts the process. The uncompressed size comes from the zip directory; the
    extent from each sheet's farthest cell (.xlsx) or its rows and columns holding values (.ods),
    read as a stream; its columns are held to ``max_columns`` (:func:`check_columns`) as well, before the
    reader builds a column for each.
    """
    import zipfile

    limit = MAX_CELLS if max_cells is None else int(max_cells)
    name = path.name
    raise_it = f"; raise the limit with {opt('max_cells', 'N')} if the sheet is really that large"
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # not a zip (an old .xls, or a broken file): the reader says what it is
    with archive:
        entries = archive.infolist()
        expanded = sum(e.file_size for e in entries)
        allowed = max(MIN_EXPANDED_BYTES, limit * BYTES_PER_CELL)
        if expanded > allowed:
            raise ReadError(f"'{name}' expands to {expanded / 1e6:,.0f} MB, more than the {allowed / 1e6:,.0f} MB "
                            f"allowed ({BYTES_PER_CELL} bytes for each of {opt('max_cells', limit)}, at least "
                            f"{MIN_EXPANDED_BYTES / 1e6:,.0f} MB){raise_it}")
        for entry in entries:  # within the size allowed: every part read once, so a damaged one is named
            with _damaged(name, entry.filename):
                _read_through(archive, entry)
        with _damaged(name, "content.xml"):
            _check_extent(archive, entries, name, limit, raise_it, max_columns)


def _read_through(archive, entry) -> None:
    """Read one part of a zip archive to its end, which checks its compressed data and its checksum."""
    with archive.open(entry) as fh:
        while fh.read(1 << 20):
            pass


class _damaged:
    """Turn a broken part of a spreadsheet's archive into one :class:`ReadError` naming the part.

    >>> import zlib
    >>> with _damaged("log.ods", "content.xml"):
    ...     raise zlib.error("Error -3 while decompressing data: invalid stored block lengths")
    Traceback (most recent call last):
    ...
    probestats.errors.ReadError: 'log.ods' is damaged (bad compressed data in content.xml); export it again
    """

    def __init__(self, name: str, part: str):
        self.name, self.part = name, part

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        import xml.etree.ElementTree as ET
        import zipfile
        import zlib

        if exc is None or isinstance(exc, ReadError):
            return False
        text = _first_line(exc)
        part = _one_line_name(self.part)
        if isinstance(exc, zipfile.BadZipFile) and "CRC" in text:
            why = f"bad checksum in {part}"
        elif isinstance(exc, zipfile.BadZipFile) and "magic number" in text:
            why = f"broken header of {part}"
        elif isinstance(exc, (zlib.error, EOFError)):
            why = f"bad compressed data in {part}"
        elif isinstance(exc, ET.ParseError):
            why = f"{part} is not well-formed XML: {text}"
        elif isinstance(exc, (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError, OSError)):
            why = f"{part}: {text}"  # a broken header, an unknown compression, an encrypted part
        else:
            return False
        raise ReadError(f"'{self.name}' is damaged ({why}); export it again") from None


def _one_line_name(part: str) -> str:
    """A part's name from an archive as shown in a message: control characters dropped, at most 80 characters."""
    shown = "".join(ch for ch in part if ch.isprintable())
    return shown if len(shown) <= 80 else shown[:77] + "..."


def _check_extent(archive, entries, name: str, limit: int, raise_it: str, max_columns: int = MAX_COLUMNS) -> None:
    """Refuse a sheet whose extent is more cells than ``limit``, or more columns than ``max_columns``."""
    sheets = [e for e in entries if re.fullmatch(r"xl/worksheets/[^/]+\.xml", e.filename)]
    for entry in sheets:
        rows, cols = _xlsx_extent(archive, entry)
        if rows * cols > limit:
            raise ReadError(f"'{name}' has a sheet reaching row {rows:,} and column {cols:,} "
                            f"({rows * cols:,} cells), more than {opt('max_cells', limit)}{raise_it}")
        check_columns(cols, name, max_columns)
    if any(e.filename == "content.xml" for e in entries) and not sheets:
        rows, cols = _ods_extent(archive, limit)
        if rows * cols > limit:
            raise ReadError(f"'{name}' has a sheet of {rows:,} rows and {cols:,} columns with values "
                            f"({rows * cols:,} cells), more than {opt('max_cells', limit)}{raise_it}")
        check_columns(cols, name, max_columns)


_CELL_REF = re.compile(rb'<(?:\w+:)?c\b[^>]*?\br="([A-Z]{1,3})([0-9]{1,7})"')
_ROW_REF = re.compile(rb'<(?:\w+:)?row\b[^>]*?\br="([0-9]{1,7})"')


def _column_number(letters: bytes) -> int:
    """Column letters as a number from 1.

    >>> _column_number(b"XFD")
    16384
    """
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def _xlsx_extent(archive, entry) -> tuple[int, int]:
    """Farthest row and column of any cell or row in a worksheet's XML (streamed, 1 MiB at a time)."""
    rows = cols = 0
    tail = b""
    with archive.open(entry) as fh:
        while chunk := fh.read(1 << 20):
            data = tail + chunk
            for m in _CELL_REF.finditer(data):
                cols = max(cols, _column_number(m.group(1)))
                rows = max(rows, int(m.group(2)))
            for m in _ROW_REF.finditer(data):
                rows = max(rows, int(m.group(1)))
            tail = data[-256:]
    return rows, max(cols, 1 if rows else 0)


def _ods_extent(archive, limit: int) -> tuple[int, int]:
    """Rows and columns of an ODS sheet up to its last cell holding a value (repeated rows counted)."""
    import xml.etree.ElementTree as ET

    table = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
    office = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
    rows = cols = 0
    seen_rows = 0
    with archive.open("content.xml") as fh:
        for event, elem in ET.iterparse(fh, events=("end",)):
            if elem.tag == f"{table}table":
                elem.clear()
            if elem.tag != f"{table}table-row":
                continue
            repeat = int(elem.get(f"{table}number-rows-repeated", "1") or 1)
            seen_rows += repeat
            width = last = 0
            for cell in elem:
                width += int(cell.get(f"{table}number-columns-repeated", "1") or 1)
                if cell.get(f"{office}value-type") is not None or len(cell):
                    last = width
            if last:
                rows = seen_rows
                cols = max(cols, last)
            elem.clear()
            if rows * max(cols, 1) > limit:
                break
    return rows, cols


def _read_sheet(path, sheet, skip_rows, columns, metric, max_cells=None, max_columns=MAX_COLUMNS) -> Log:
    name = path.name
    import fastexcel

    check_spreadsheet(path, max_cells, max_columns)

    try:
        reader = fastexcel.read_excel(path)
    except Exception as exc:
        raise ReadError(f"cannot read '{name}' as a spreadsheet ({_first_line(exc)}); is it really an {path.suffix or '.xlsx'} file? (use {opt('format')})") from None
    names = list(reader.sheet_names)
    if not names:
        raise ReadError(f"'{name}' has no sheets")
    if sheet is None:
        idx: int | str = 0
    elif isinstance(sheet, int) or (isinstance(sheet, str) and sheet.isdigit() and sheet not in names):
        idx = int(sheet)
        if not 0 <= idx < len(names):
            raise OptionError(f"{opt('sheet', sheet)}: '{name}' has {len(names)} sheet(s), numbered from 0: {', '.join(names)}")
    else:
        if sheet not in names:
            raise OptionError(f"{opt('sheet', sheet)}: no such sheet in '{name}'; sheets: {', '.join(names)}")
        idx = sheet
    # the sheet's reader takes the first non-empty row as the header when the rows above skip_rows are
    # all empty: name that row explicitly, so that row numbers stay the sheet's own
    header_row = max(skip_rows, _leading_blank_rows(reader, idx, skip_rows))
    try:
        frame = reader.load_sheet(idx, header_row=header_row, dtype_coercion="coerce").to_polars()
    except Exception as exc:
        raise ReadError(f"cannot read the sheet of '{name}' ({_first_line(exc)}); check {opt('sheet')} and {opt('skip_rows')}") from None
    headers = [str(h) for h in frame.columns]
    frame = frame.rename({c: h for c, h in zip(frame.columns, headers)})
    return _finish(frame.lazy(), headers, name, columns, metric, row_label="row",
                   first_row=header_row + 2, path=path, drop_blank=True)


def _leading_blank_rows(reader, idx, skip_rows: int) -> int:
    """Number of empty rows at the top of a sheet, when it is more than ``skip_rows`` (else 0)."""
    n = skip_rows + 1
    while True:
        try:
            top = reader.load_sheet(idx, header_row=None, skip_rows=0, n_rows=n, dtypes="string").to_polars()
        except Exception:  # the real read below reports a broken sheet
            return 0
        filled = [i for i, row in enumerate(top.iter_rows()) if any(v is not None and str(v).strip() for v in row)]
        if filled:
            return filled[0] if filled[0] > skip_rows else 0
        if top.height < n:  # an empty sheet
            return 0
        n *= 4


def _finish(lazy, headers, source, columns, metric, *, row_label, first_row, problems=(),
            path=None, read=None, drop_blank=False, rescan=None) -> Log:
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
    return Log(lazy=lazy, columns=mapping, source=source, headers=tuple(headers),
               problems=tuple(problems), row_label=row_label, _first_row=first_row,
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


def _scan_typed(source, sep: str, skip_rows: int, dtypes: dict) -> pl.LazyFrame:
    return pl.scan_csv(_literal(source), separator=sep, infer_schema=False, skip_rows=skip_rows,
                       raise_if_empty=False, glob=False, schema_overrides=dtypes)


def typed_rows(log: Log, dtypes: Mapping[str, pl.DataType]) -> pl.LazyFrame | None:
    """``log.lazy`` with the columns in ``dtypes`` (canonical names) parsed as those types by the
    CSV reader, which is cheaper than reading them as text and casting; None when the log is not a
    CSV or TSV file read as it is (columns derived or rows filtered since).

    The reader takes spaces before a number (as validation, which strips them, does) and raises on
    text it cannot parse, where a cast would give null: a caller falls back to the text.

    >>> import tempfile
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
