"""Hostile spreadsheets for tests and the long fuzzing run: a zip bomb and a cell at the far corner."""

from __future__ import annotations

import functools
import re
import tempfile
import zipfile
import zlib
from pathlib import Path

import polars as pl

SHEET = "xl/worksheets/sheet1.xml"
#: every part's time in the zips made here: the same call makes the same bytes (the generator is seeded)
STAMP = (2000, 1, 1, 0, 0, 0)
_DATES = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?")


def _part(name: str, compress_type: int = zipfile.ZIP_DEFLATED) -> zipfile.ZipInfo:
    """A zip entry stamped with :data:`STAMP` (``writestr`` with a bare name stamps the clock's time)."""
    info = zipfile.ZipInfo(name, date_time=STAMP)
    info.compress_type = compress_type
    return info


def _valid_xlsx(path: Path) -> dict[str, bytes]:
    import datetime

    import xlsxwriter

    with xlsxwriter.Workbook(path) as book:
        book.set_properties({"created": datetime.datetime(2000, 1, 1)})  # a fixed date: the same bytes
        pl.DataFrame({"item": [1, 1], "variant": ["a", "b"], "steps": [1, 2]}).write_excel(book, autofit=False)
    with zipfile.ZipFile(path) as z:
        return {n: z.read(n) for n in z.namelist()}


def far_corner_xlsx(path: Path, corner: str = "XFD1048576") -> Path:
    """A valid workbook of a few KB whose sheet holds one more cell, at ``corner`` (the last of 17 billion)."""
    parts = _valid_xlsx(path)
    sheet = parts[SHEET].decode()
    sheet = re.sub(r'<dimension ref="[^"]*"/>', f'<dimension ref="A1:{corner}"/>', sheet)
    row = re.sub(r"\D", "", corner)
    sheet = sheet.replace("</sheetData>", f'<row r="{row}"><c r="{corner}"><v>1</v></c></row></sheetData>')
    parts[SHEET] = sheet.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(_part(name), data)
    return path


def zip_bomb_xlsx(path: Path, expanded: int = 2 << 30) -> Path:
    """A valid workbook whose sheet's XML expands to ``expanded`` bytes (spaces inside <sheetData>),
    written as a stream so that making it takes little memory."""
    parts = _valid_xlsx(path)
    head, tail = parts.pop(SHEET).split(b"</sheetData>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, data in parts.items():
            z.writestr(name, data)
        with z.open(SHEET, "w", force_zip64=True) as fh:
            fh.write(head)
            block = b" " * (8 << 20)
            left = expanded - len(head) - len(tail) - 12
            while left > 0:
                fh.write(block[:left])
                left -= len(block)
            fh.write(b"</sheetData>" + tail)
    return path


def wide_xlsx(path: Path, columns: int = 16_384, rows: int = 3) -> Path:
    """A valid workbook of ``columns`` columns (item, variant, steps, then numbered ones) and ``rows`` data rows:
    16,384 columns (the widest a sheet can be) of 3 rows are about 300 KB."""
    import xlsxwriter

    with xlsxwriter.Workbook(path, {"constant_memory": True}) as book:
        sheet = book.add_worksheet()
        for j, head in enumerate(["item", "variant", "steps"] + [f"extra{k}" for k in range(columns - 3)]):
            sheet.write(0, j, head)
        for r in range(1, rows + 1):
            sheet.write_row(r, 0, [(r + 1) // 2, "ab"[r % 2], r] + list(range(columns - 3)))
    return path


#: the ways a damaged OpenDocument spreadsheet is built by :func:`damaged_ods`
ODS_DAMAGE = ("bad_crc", "junk_xml", "external_entity", "entity_bomb", "unbound_prefix")


@functools.lru_cache(maxsize=1)
def _ods_parts() -> tuple[tuple[zipfile.ZipInfo, bytes], ...]:
    """The parts of a small valid .ods, made once per process: the writer declares more namespaces after
    its first document and stamps the clock's time, so only one making gives the same bytes every call."""
    frame = pl.DataFrame({"item": [1, 1, 2, 2], "variant": ["a", "b", "a", "b"], "steps": [1, 2, 3, 5]})
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.ods"
        frame.to_pandas().to_excel(path, engine="odf", index=False, sheet_name="runs")
        with zipfile.ZipFile(path) as z:
            return tuple((info, _DATES.sub(b"2000-01-01T00:00:00", z.read(info))) for info in z.infolist())


def _valid_ods(path: Path) -> list[tuple[zipfile.ZipInfo, bytes]]:
    """A small valid .ods written at ``path``; returns its parts."""
    parts = list(_ods_parts())
    with zipfile.ZipFile(path, "w") as z:
        for info, data in parts:
            z.writestr(_part(info.filename, info.compress_type), data)
    return parts


def damaged_ods(path: Path, kind: str) -> Path:
    """A small .ods whose ``content.xml`` is damaged in one of the ways of :data:`ODS_DAMAGE`.

    ``bad_crc`` flips one bit of the stored (uncompressed) part, so only its checksum tells; the
    others are well-formed archives holding XML that is not: junk, an external entity naming a
    file on this machine, an entity bomb (entities of entities, a billion letters), a prefix never bound.
    """
    parts = _valid_ods(path)
    content = dict((i.filename, d) for i, d in parts)["content.xml"]
    head, body = content.split(b"?>", 1)
    if kind == "junk_xml":
        content = b"<<<this is not xml" + bytes(range(1, 32))
    elif kind == "external_entity":
        content = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/hostname">]>'
                   + body.replace(b"<office:body>", b"<office:body>&e;", 1))
    elif kind == "entity_bomb":
        chain = b"".join(b'<!ENTITY %s "%s">' % (bytes([98 + i]), b"&%s;" % bytes([97 + i]) * 10) for i in range(8))
        content = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">' + chain + b"]>"
                   + body.replace(b"<office:body>", b"<office:body>&i;", 1))
    elif kind == "unbound_prefix":
        content = content.replace(b"<office:body>", b"<nope:x/><office:body>", 1)
    elif kind != "bad_crc":
        raise ValueError(f"unknown damage {kind!r}; one of {ODS_DAMAGE}")
    with zipfile.ZipFile(path, "w") as z:
        for info, data in parts:
            stored = info.filename == "mimetype" or kind == "bad_crc"
            z.writestr(_part(info.filename, zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED),
                       content if info.filename == "content.xml" else data)
    if kind == "bad_crc":
        data = bytearray(path.read_bytes())
        at = data.index(b"<office:body>") + 3  # inside the stored content.xml: the data changes, its CRC does not
        data[at] ^= 0x20
        path.write_bytes(bytes(data))
    return path


def flipped_xlsx(path: Path, where: float = 0.5, bit: int = 0) -> Path:
    """A small .xlsx with one bit flipped inside the compressed data of its sheet (at fraction
    ``where`` of that data): the zip directory is intact, the sheet is not."""
    _valid_xlsx(path)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(SHEET)
    name_len, extra_len = int.from_bytes(data[info.header_offset + 26:info.header_offset + 28], "little"), \
        int.from_bytes(data[info.header_offset + 28:info.header_offset + 30], "little")
    start = info.header_offset + 30 + name_len + extra_len
    data[start + int(where * (info.compress_size - 1))] ^= 1 << bit
    path.write_bytes(bytes(data))
    return path
