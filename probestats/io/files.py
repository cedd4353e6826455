"""Several files read as one log, with ``file`` and ``file_stem`` columns; their rows keep their own numbers.

A folder stands for every file of a supported format in it, in name order. A path is a path:
nothing here expands a pattern (a file named ``probe[1].csv`` is that file).

Each row carries ``file``, the path of its file as given (``grades/C1_english.csv``), and ``file_stem``, the
file's name without its extensions (``C1_english``). A file pattern (:func:`parse_file_pattern`,
``{run}_{model}_responses``) reads parts of each stem as columns of their own, so a condition, a run or a model
kept in the file names is a column like any other.

Examples
--------
>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "a.csv").write_text("item,variant,steps\\n1,x,3\\n")
>>> _ = (folder / "b.csv").write_text("item,variant,steps\\n1,y,4\\n2,y,5\\n")
>>> log = read_files([folder])
>>> [Path(f).name for f in log.frame["file"]], log.frame["file_stem"].to_list(), log.frame["steps"].to_list()
(['a.csv', 'b.csv', 'b.csv'], ['a', 'b', 'b'], ['3', '4', '5'])
>>> [(Path(r.file).name, int(r)) for r in log.rows([2])]
[('b.csv', 3)]
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import polars as pl

from probestats.errors import ColumnError, OptionError, Problem, ReadError, opt
from probestats.io.columns import ROW
from probestats.io.formats import COMPRESSED, R_SUFFIXES, read_record_files
from probestats.io.log import Log, collect
from probestats.io.read import FORMATS, read_log

__all__ = ["FILE", "FILE_STEM", "Line", "FilesLog", "expand_paths", "read_files", "parse_file_pattern", "stem",
           "first_headers"]

FILE = "file"
FILE_STEM = "file_stem"
#: the columns several files read as one log carry besides their own
FILE_COLUMNS = (FILE, FILE_STEM)

_FIELD = re.compile(r"\{([^{}]*)\}")


def stem(path) -> str:
    """A file's name without its extensions: the format's and a compression's (``run1.csv.gz``: ``run1``).

    >>> stem("grades/C1_english.csv"), stem("r/Run1_gpt.json.gz"), stem("notes.v2.csv"), stem("plain")
    ('C1_english', 'Run1_gpt', 'notes.v2', 'plain')
    """
    name = Path(path).name
    known = set(FORMATS) | set(R_SUFFIXES) | {".eval"}
    for suffixes in (set(COMPRESSED), known):
        suffix = Path(name).suffix
        if suffix.lower() in suffixes and suffix != name:
            name = name[:-len(suffix)]
    return name


def parse_file_pattern(pattern: str) -> tuple[tuple[str, ...], re.Pattern]:
    """The fields of a file pattern and the expression that reads them from a file's stem.

    A pattern is the stem written with ``{NAME}`` where a part of it is a column: ``{run}_{model}_responses``
    reads ``Run1_gpt-4_responses`` as run ``Run1``, model ``gpt-4``. A field takes one character or more, as
    few as make the whole stem match (a later field takes the rest); the text between fields is literal, and
    ``{}`` is a part that is no column.

    >>> names, expr = parse_file_pattern("{run}_{model}_responses")
    >>> names, expr.fullmatch("Run1_gpt_4_responses").groups()
    (('run', 'model'), ('Run1', 'gpt_4'))
    >>> parse_file_pattern("{}-{lang}")[0]
    ('lang',)
    >>> parse_file_pattern("responses")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: file_pattern='responses': no {NAME} in it; write the file name with {NAME} where a part of it is a column, for example file_pattern='{run}_{model}_responses'
    """
    example = opt("file_pattern", "{run}_{model}_responses")
    text = str(pattern)
    names: list[str] = []
    parts, at = [], 0
    for m in _FIELD.finditer(text):
        parts.append(re.escape(text[at:m.start()]))
        name = m.group(1).strip()
        if name and (name in names or name in FILE_COLUMNS or name.startswith("_")):
            why = "twice" if name in names else "a name probestats gives a column itself"
            raise OptionError(f"{opt('file_pattern', pattern)}: '{name}' is {why}; give each part its own name, "
                              f"for example {example}")
        parts.append("(.+?)" if name else "(?:.+?)")
        if name:
            names.append(name)
        at = m.end()
    rest = text[at:]
    if "{" in rest or "}" in rest or any(("{" in p or "}" in p) for p in _FIELD.split(text)[::2]):
        raise OptionError(f"{opt('file_pattern', pattern)}: a brace without its pair; write each column as "
                          f"{{NAME}}, for example {example}")
    if not names:
        raise OptionError(f"{opt('file_pattern', pattern)}: no {{NAME}} in it; write the file name with {{NAME}} "
                          f"where a part of it is a column, for example {example}")
    return tuple(names), re.compile("".join(parts) + re.escape(rest), re.DOTALL)


def _pattern_fields(names: Sequence[str], pattern: str | None) -> dict[str, list[str]]:
    """The columns a file pattern reads from each file's stem (none without a pattern); a stem it does not
    match is refused, naming the file."""
    if pattern is None:
        return {}
    fields, expr = parse_file_pattern(pattern)
    values: dict[str, list[str]] = {f: [] for f in fields}
    for name in names:
        m = expr.fullmatch(stem(name))
        if m is None:
            raise ReadError(f"the name of '{name}' ({stem(name)!r}) does not fit {opt('file_pattern', pattern)}; "
                            "write the pattern so that every file's name (without its extension) fits it, or move "
                            "the file out of the folder")
        for f, v in zip(fields, m.groups()):
            values[f].append(v)
    return values


class Line(int):
    """A row number as a person sees it, with the file it belongs to.

    >>> r = Line(5, "b.csv")
    >>> r + 0, r.file
    (5, 'b.csv')
    """

    file: str

    def __new__(cls, value: int, file: str):
        obj = int.__new__(cls, value)
        obj.file = file
        return obj

    def __repr__(self) -> str:
        return f"Line({int(self)}, {self.file!r})"


@dataclass(frozen=True)
class FilesLog(Log):
    """A log made of several files: :meth:`rows` names each row's file and its own line or row."""

    parts: tuple = ()   # (name, Log, offset of its first record in the combined log)

    def rows(self, index) -> list[int]:
        offsets = [offset for _, _, offset in self.parts]
        out = []
        for i in (int(i) for i in index):
            k = bisect.bisect_right(offsets, i) - 1
            name, log, offset = self.parts[k]
            out.append(Line(log.rows([i - offset])[0], name))
        return out


def expand_paths(paths: Sequence) -> list[Path]:
    """Paths as given, a folder replaced by its files of a supported format in name order.

    Raises
    ------
    ReadError
        A folder holds no file of a supported format.
    """
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted((f for f in p.iterdir() if f.is_file() and _readable(f)), key=lambda f: f.name)
            if not found:
                raise ReadError(f"the folder '{p}' holds no log file ({', '.join(sorted(set(FORMATS)))})")
            out += found
        else:
            out.append(p)
    _refuse_repeats(out)
    return out


def _readable(f: Path) -> bool:
    """A file of a folder that is read as part of its log: a table, an inspect_ai log, an R data file, or one of
    them compressed (``.csv.gz``)."""
    suffixes = [s.lower() for s in f.suffixes[-2:]]
    if suffixes and suffixes[-1] in COMPRESSED:
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    return last in FORMATS or last == ".eval" or last in R_SUFFIXES


def _refuse_repeats(paths: list[Path]) -> None:
    """One file given twice (under any spelling: ``./a.csv`` and ``a.csv``, a symbolic or hard link) would be
    read as twice the runs: refused.

    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = f.write_text("item,variant,steps\\n")
    >>> _refuse_repeats([f, f.parent / "." / "a.csv"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    probestats.errors.ReadError: '...a.csv' and '...a.csv' are the same file, given twice: its runs would count twice; give it once
    """
    import os

    seen: dict = {}
    for p in paths:
        try:
            st = os.stat(p)
            key = (st.st_dev, st.st_ino)
        except OSError:
            key = os.path.realpath(p)
        if key in seen:
            raise ReadError(f"'{seen[key]}' and '{p}' are the same file, given twice: its runs would count twice; "
                            "give it once")
        seen[key] = p


def first_headers(paths: Sequence, **read_kwargs) -> tuple[str, ...]:
    """The headers a column mapping is matched against: the first file's, or the keys of a folder of one JSON
    record per file (which no file read alone has: a lone object is no table)."""
    files = expand_paths(paths)
    records = read_record_files(files) if read_kwargs.get("records") is None else None
    if records is not None:
        return tuple(records.columns)
    return read_log(files[0], **read_kwargs).headers


def read_files(paths: Sequence, *, file_pattern: str | None = None, **read_kwargs) -> Log:
    """Read one log or several as one.

    Parameters
    ----------
    paths : sequence of path
        Files or folders; one file reads as :func:`probestats.io.read.read_log` reads it.
    file_pattern : str, optional
        Parts of each file's stem read as columns (see :func:`parse_file_pattern`); one file given with a pattern
        is read as several files are, with its ``file`` and ``file_stem``.
    read_kwargs
        Passed to :func:`probestats.io.read.read_log` for every file.

    Raises
    ------
    ColumnError
        The files' columns do not agree after mapping, or a file already has a column the files' names make.
    """
    files = expand_paths(paths)
    if len(files) == 1 and not Path(paths[0]).is_dir() and file_pattern is None:
        return read_log(files[0], **read_kwargs)

    names = [str(f) for f in files]
    fields = _pattern_fields(names, file_pattern)
    # records=KEY names a list of records inside every file: each file is a table, never one record
    records = read_record_files(files) if read_kwargs.get("records") is None else None
    if records is not None:   # a folder of one JSON record per file
        return _records_log(records, names, fields, **read_kwargs)
    logs = [read_log(f, **read_kwargs) for f in files]
    made = (*FILE_COLUMNS, *fields)
    schemas = [log.lazy.collect_schema() for log in logs]
    for name, schema in zip(names, schemas):
        _refuse_made(name, [c for c in made if c in schema.names()], file_pattern)
    order = list(dict.fromkeys(c for schema in schemas for c in schema.names() if c != ROW))
    problems = _columns_differ(names, schemas, order, read_kwargs.get("metric"))
    dtypes = {c: {schema[c] for schema in schemas if c in schema.names()} for c in order}
    parts, lazies, offset = [], [], 0
    for k, (name, log, schema) in enumerate(zip(names, logs, schemas)):
        count = collect(log.lazy.select(pl.len()), log.source, log._path).item()
        cols = [(pl.col(c) if len(dtypes[c]) == 1 else pl.col(c).cast(pl.String)) if c in schema.names()
                else pl.lit(None, next(iter(dtypes[c])) if len(dtypes[c]) == 1 else pl.String).alias(c)
                for c in order]
        lazies.append(log.lazy.select(*cols, *_name_columns(name, fields, k),
                                      (pl.col(ROW) + offset).alias(ROW)))
        parts.append((name, log, offset))
        offset += count
    first_log = logs[0]
    if len({log.row_label for log in logs}) != 1:
        raise ReadError("several files read as one log must have one format: "
                        + ", ".join(f"'{n}' numbers {log.row_label}s" for n, log in zip(names, logs)))
    mapped = {c: h for log in reversed(logs) for c, h in log.columns.items()}   # the first file's name wins
    headers = tuple(dict.fromkeys(h for log in logs for h in log.headers))
    return FilesLog(lazy=pl.concat(lazies, how="vertical"), columns={**mapped, **{c: c for c in made}},
                    source=f"{len(names)} file{'s' if len(names) != 1 else ''} ({_shown(names)})", headers=headers + made,
                    problems=tuple(p for log in logs for p in log.problems) + problems, row_label=first_log.row_label,
                    parts=tuple(parts),
                    _read={"delimited": all(log._read.get("delimited") for log in logs),
                           "format": first_log.format if len({log.format for log in logs}) == 1 else None,
                           "file_columns": made})


#: the columns every file must hold when one of them does: without them a file's rows cannot be analyzed
NEEDED = ("item", "variant")


def _columns_differ(names: Sequence[str], schemas: Sequence, order: Sequence[str], metric: str | None) -> tuple:
    """One ``columns_differ`` warning per file that lacks columns others have (its rows leave them blank);
    a file lacking a column the analysis needs (item, variant, the metric) that another has is refused.

    >>> schemas = [{"item": 1, "variant": 1, "x_output": 1}, {"item": 1, "variant": 1}]
    >>> [p.message for p in _columns_differ(["gpt.json", "llama.json"], schemas, ["item", "variant", "x_output"], None)]
    ["'llama.json' has no 'x_output', which other files of the log have: its rows leave it blank"]
    """
    needed = (*NEEDED, metric) if metric else NEEDED
    problems = []
    for name, schema in zip(names, schemas):
        lacking = [c for c in order if c not in schema]
        if not lacking:
            continue
        vital = [c for c in lacking if c in needed]
        if vital:
            have = next(n for n, other in zip(names, schemas) if vital[0] in other)
            raise ColumnError(f"the columns of '{name}' do not agree with those of '{have}': it lacks "
                              f"{', '.join(repr(c) for c in vital)}, which the analysis needs; give every file that "
                              f"column, or map its header with {opt('columns')}")
        shown = ", ".join(repr(c) for c in lacking[:8]) + (f" and {len(lacking) - 8} more" if len(lacking) > 8 else "")
        problems.append(Problem("warning", "columns_differ",
                                f"'{name}' has no {shown}, which other files of the log have: its rows leave "
                                f"{'it' if len(lacking) == 1 else 'them'} blank"))
    return tuple(problems)


def _shown(names: Sequence[str]) -> str:
    return ", ".join(Path(n).name for n in names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _name_columns(name: str, fields: dict, k: int) -> list:
    """The columns a file's name makes for each of its rows: its path, its stem, its pattern's fields."""
    return [pl.lit(name, pl.String).alias(FILE), pl.lit(stem(name), pl.String).alias(FILE_STEM),
            *[pl.lit(values[k], pl.String).alias(f) for f, values in fields.items()]]


def _refuse_made(name: str, clashing: Sequence[str], file_pattern: str | None) -> None:
    """Refuse a file holding a column of a name the files' names make."""
    if not clashing:
        return
    c = clashing[0]
    if c in FILE_COLUMNS:
        raise ColumnError(f"'{name}' already has a column '{c}'; several files are read with '{FILE}' and "
                          f"'{FILE_STEM}' columns naming each row's file, so rename that column")
    raise ColumnError(f"'{name}' already has a column '{c}', which {opt('file_pattern', file_pattern)} reads "
                      "from the file names too; name that part of the pattern otherwise")


def _records_log(frame: pl.DataFrame, names: list[str], fields: dict, *, columns=None, metric=None,
                 file_pattern=None, **read_kwargs) -> Log:
    """The log of a folder of one JSON record per file: each file's record numbered 1, under its file's name."""
    made = (*FILE_COLUMNS, *fields)
    clashing = [c for c in made if c in frame.columns]
    if clashing:
        _refuse_made(names[0], clashing, file_pattern)
    frame = frame.with_columns(pl.Series(FILE, names, dtype=pl.String),
                               pl.Series(FILE_STEM, [stem(n) for n in names], dtype=pl.String),
                               *[pl.Series(f, values, dtype=pl.String) for f, values in fields.items()])
    log = read_log(frame, columns=columns, metric=metric)
    problems = tuple(log.problems) + _record_lists(frame, len(names))
    parts = tuple((name, Log(lazy=pl.LazyFrame(), columns={}, source=name, headers=(), row_label="record"), k)
                  for k, name in enumerate(names))
    return FilesLog(lazy=log.lazy, columns={**log.columns, **{c: c for c in made}},
                    source=f"{len(names)} JSON records ({_shown(names)})",
                    headers=log.headers, problems=problems, row_label="record", parts=parts,
                    _read={"format": "JSON records, one per file", "file_columns": made})


def _record_lists(frame: pl.DataFrame, count: int) -> tuple:
    """The warning that a folder was read as one record per file, naming the keys that hold a list of records in
    every file, which ``records=KEY`` reads as the rows instead.

    >>> frame = pl.DataFrame({"id": ["a", "b"], "turns": [[{"q": 1}], [{"q": 2}, {"q": 3}]]})
    >>> _record_lists(frame, 2)[0].message  # doctest: +NORMALIZE_WHITESPACE
    "the 2 JSON files were read as one record each (each holds one object); each holds a list of records under
    'turns': to read those as the rows, give records='turns'"
    >>> _record_lists(pl.DataFrame({"id": ["a"]}), 1)
    ()
    >>> _record_lists(pl.DataFrame({"run": [{"out": [{"q": 1}]}]}), 1)[0].message.split(": ")[-1]
    "to read those as the rows, give records='run.out'"
    """
    def found(expr, dtype, path):   # the lists of records at a path, and one level inside an object
        if isinstance(dtype, pl.List) and isinstance(dtype.inner, pl.Struct):
            return [path] if frame.select(expr.list.len().fill_null(0).min()).item() > 0 else []
        if isinstance(dtype, pl.Struct) and "." not in path:
            return [p for f in dtype.fields for p in found(expr.struct.field(f.name), f.dtype, f"{path}.{f.name}")]
        return []

    lists = [p for c, t in frame.schema.items() for p in found(pl.col(c), t, c)]
    if not lists:
        return ()
    keys = ", ".join(f"'{c}'" for c in lists[:5])
    return (Problem("warning", "one_record_per_file",
                    f"the {count} JSON files were read as one record each (each holds one object); "
                    f"each holds a list of records under {keys}: to read those as the rows, give "
                    f"{opt('records', lists[0])}"),)
