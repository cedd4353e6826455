"""Spreadsheet logs (.xlsx, .xlsm, .xls, .ods): a sheet too large to read refused from its archive before
the reader allocates it, a damaged archive named by its part, each row numbered as the sheet shows it."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from probestats.errors import OptionError, ReadError, for_people, opt
from probestats.io.columns import check_columns
from probestats.io.failures import first_line
from probestats.io.log import Log, Origin, finish_log
from probestats.limits import MAX_CELLS, MAX_COLUMNS

__all__ = ["check_spreadsheet", "read_sheet", "BYTES_PER_CELL", "MIN_EXPANDED_BYTES"]


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
    raise_it = (f"; raise the limit with {opt('max_cells', 'N')} if the sheet is really that large" if not for_people()
                else "; keep only the rows and columns of the runs in the sheet (clear what lies beyond them)")
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
        text = first_line(exc)
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


def read_sheet(path, sheet, skip_rows, columns, metric, max_cells=None, max_columns=MAX_COLUMNS) -> Log:
    """A spreadsheet's sheet as a :class:`~probestats.io.log.Log` (checked first by :func:`check_spreadsheet`),
    each row numbered as the sheet shows it."""
    name = path.name
    import fastexcel

    check_spreadsheet(path, max_cells, max_columns)

    try:
        reader = fastexcel.read_excel(path)
    except Exception as exc:
        raise ReadError(f"cannot read '{name}' as a spreadsheet ({first_line(exc)}); is it really an {path.suffix or '.xlsx'} file? (use {opt('format')})") from None
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
        raise ReadError(f"cannot read the sheet of '{name}' ({first_line(exc)}); check {opt('sheet')} and {opt('skip_rows')}") from None
    headers = [str(h) for h in frame.columns]
    frame = frame.rename({c: h for c, h in zip(frame.columns, headers)})
    sheet_name = idx if isinstance(idx, str) else names[idx]
    return finish_log(frame.lazy(), headers, Origin(name, "row", header_row + 2, path), columns, metric,
                      drop_blank=True, read={"text_rows": functools.partial(text_rows, path, sheet_name, header_row + 1)})


def text_rows(path: Path, sheet: str, header_row: int, header: str) -> frozenset[int] | None:
    """The rows (numbered as the sheet shows them) below the header whose cell under ``header`` the sheet stores
    as text, of an .xlsx file's sheet ``sheet``, its header in row ``header_row`` (from 1); None when the file
    cannot say (another format, a header not found). A column of numbers with a few typed as text is read as
    text whole: this counts the few."""
    import zipfile
    from xml.etree.ElementTree import iterparse

    def local(tag: str) -> str:
        return tag.rsplit("}", 1)[-1]

    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            rels = {}
            with archive.open("xl/_rels/workbook.xml.rels") as fh:
                for _, el in iterparse(fh):
                    if local(el.tag) == "Relationship":
                        rels[el.get("Id")] = el.get("Target", "")
            part = None
            with archive.open("xl/workbook.xml") as fh:
                for _, el in iterparse(fh):
                    if local(el.tag) == "sheet" and el.get("name") == sheet:
                        rid = next((v for k, v in el.attrib.items() if local(k) == "id"), None)
                        target = rels.get(rid, "").lstrip("/")
                        part = target if target.startswith("xl/") else f"xl/{target}"
            if part is None or part not in names:
                return None
            shared = []
            if "xl/sharedStrings.xml" in names:
                with archive.open("xl/sharedStrings.xml") as fh:
                    for _, el in iterparse(fh):
                        if local(el.tag) == "si":
                            shared.append("".join(t.text or "" for t in el.iter() if local(t.tag) == "t"))
                            el.clear()
            column, text = None, set()
            with archive.open(part) as fh:
                for _, el in iterparse(fh):
                    if local(el.tag) != "c":
                        continue
                    ref = el.get("r") or ""
                    letters = ref.rstrip("0123456789")
                    row = int(ref[len(letters):] or 0)
                    kind = el.get("t")
                    if row == header_row and column is None:
                        value = next((c.text or "" for c in el.iter() if local(c.tag) == "v"), None)
                        if kind == "s" and value is not None and value.isdigit() and int(value) < len(shared):
                            value = shared[int(value)]
                        elif kind == "inlineStr":
                            value = "".join(t.text or "" for t in el.iter() if local(t.tag) == "t")
                        if value is not None and str(value) == header:
                            column = letters
                    elif row > header_row and kind in ("s", "str", "inlineStr"):
                        text.add((letters, row))
                    el.clear()
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, SyntaxError):
        return None
    if column is None:
        return None
    return frozenset(row for letters, row in text if letters == column)


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
