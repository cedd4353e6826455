"""CSV and TSV logs: read lazily as text, their header and quotes checked on the first bytes, each
record numbered by the line of the file where it starts."""

from __future__ import annotations

import io as _stdio
from functools import partial

import polars as pl

from probestats.errors import ReadError
from probestats.io.failures import other_separator, polars_message
from probestats.io.log import Log, Origin, finish_log, literal_path
from probestats.io.text import SNIFF_BYTES, text_source

__all__ = ["read_delimited"]


def read_delimited(path, fmt, skip_rows, columns, encoding, metric) -> Log:
    """A CSV or TSV file (``fmt``) as a :class:`~probestats.io.log.Log`, scanned lazily as text, each record
    numbered by the line of the file where it starts."""
    name = path.name
    source, problems = text_source(path, encoding)
    sep = "\t" if fmt == "tsv" else ","
    if isinstance(source, bytes):
        head = source[:SNIFF_BYTES]
    else:
        with path.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    if b"\r" in head and b"\n" not in head:  # lines end in CR alone (classic Mac OS, old Excel for Mac)
        source = (source if isinstance(source, bytes) else path.read_bytes()).replace(b"\r", b"\n")
        head = head.replace(b"\r", b"\n")
    try:
        lazy = pl.scan_csv(literal_path(source), separator=sep, infer_schema=False, skip_rows=skip_rows,
                           raise_if_empty=False, glob=False)
        headers = list(lazy.collect_schema().names())
        other = other_separator(headers, sep)
        if other is not None:
            sep = other
            lazy = pl.scan_csv(literal_path(source), separator=sep, infer_schema=False, skip_rows=skip_rows,
                               raise_if_empty=False, glob=False)
            headers = list(lazy.collect_schema().names())
    except pl.exceptions.PolarsError as exc:
        raise ReadError(polars_message(exc, name)) from None
    if not headers or headers == [""]:
        raise ReadError(f"'{name}' has no header row; the first line must name the columns")
    _check_duplicate_headers(head, name, sep, skip_rows)
    _check_quotes(head, name, sep)
    multiline = b'"' in head and _has_quoted_newline(head)
    if len(head) == SNIFF_BYTES:
        multiline = True  # a quoted line break may come later: count line breaks when rows are shown
    return finish_log(lazy, headers, Origin(name, "line", 2 + skip_rows, path), columns, metric,
                      problems=problems, read={"multiline": multiline, "delimited": True},
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
    if len(head) >= SNIFF_BYTES:
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


def _scan_typed(source, sep: str, skip_rows: int, dtypes: dict) -> pl.LazyFrame:
    return pl.scan_csv(literal_path(source), separator=sep, infer_schema=False, skip_rows=skip_rows,
                       raise_if_empty=False, glob=False, schema_overrides=dtypes)
