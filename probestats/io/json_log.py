"""JSON and JSON-lines logs: a document's table (a list of records, or an object of equal-length lists,
found under its key), one record per line (a large file read in blocks), keys given twice and deep
nesting refused."""

from __future__ import annotations

import io as _stdio
import json
import re
from pathlib import Path

import polars as pl

from probestats.errors import ReadError, opt
from probestats.io.failures import first_line
from probestats.io.json_text import SURROGATE_ESCAPE, is_columns, is_records, without_surrogates
from probestats.io.log import Log, Origin, finish_log, frame_from_object, literal_path
from probestats.io.text import text_source

__all__ = ["read_json", "read_jsonl", "MAX_JSON_DEPTH", "JSONL_KEY_CHECK_BYTES", "JSONL_BLOCK_BYTES"]


_GLOB_CHARS = re.compile(r"[*?\[\]{}]")


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
        raise ReadError(f"{where} of '{name}' holds a number too long to read ({first_line(exc).split(';')[0]}); "
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


def read_jsonl(path, columns, encoding, metric) -> Log:
    """A JSON-lines file as a :class:`~probestats.io.log.Log`, one record per line, each numbered by its line."""
    name = path.name
    source, problems = text_source(path, encoding)
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
            lazy = pl.scan_ndjson(literal_path(source), infer_schema_length=None)
        else:  # polars' NDJSON reader has no glob=False: hand it the bytes of this one file
            lazy = pl.read_ndjson(_stdio.BytesIO(raw if raw is not None else path.read_bytes()),
                                  infer_schema_length=None).lazy()
        headers = list(lazy.collect_schema().names())
    except pl.exceptions.PolarsError:
        _raise_first_bad_json_line(path, raw)
        raise ReadError(f"cannot read '{name}' as JSON lines; each line must be one JSON object") from None
    log = finish_log(lazy, headers, Origin(name, "line", first_line, path), columns, metric, problems=problems,
                     read={"jsonl_lines": blank})
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


def read_json(path, columns, encoding, metric, records=None) -> Log:
    """A JSON document's table (see :func:`_json_table`) as a :class:`~probestats.io.log.Log`."""
    name = path.name
    source, problems = text_source(path, encoding)
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
        return finish_log(frame.lazy(), list(frame.columns), Origin(name, "list position", 1, path), columns, metric,
                          problems=problems)
    if not value or not any(value):
        raise ReadError(f"'{name}' holds no records; it needs one object per run, like [{{\"item\": 1, ...}}]")
    frame = frame_from_object(value)
    return finish_log(frame.lazy(), list(frame.columns), Origin(name, "record", 1, path), columns, metric,
                      problems=problems)


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
        if not (is_records(node) or is_columns(node)):
            raise ReadError(f"{opt('records', records)}: the value there in '{name}' is not {shape}")
        value = node
    elif isinstance(value, dict) and not is_columns(value):
        found = [k for k, v in value.items() if is_records(v)]
        legacy = [k for k in ("rows", "records", "data", "runs", "log") if k in found]
        if len(found) == 1 or legacy:
            value = value[legacy[0] if legacy else found[0]]
        elif found:
            raise ReadError(f"'{name}' holds lists of records under several keys ({', '.join(found)}); "
                            f"name one with {opt('records', 'KEY')} (e.g. {opt('records', found[0])})")
        else:
            nested = ", ".join(f"{k}.{j}" for k, v in value.items() if isinstance(v, dict)
                               for j, w in v.items() if is_records(w))[:200]
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
