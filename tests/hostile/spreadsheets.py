"""Hostile spreadsheets for tests and the long fuzzing run: a zip bomb and a cell at the far corner."""

from __future__ import annotations

import re
import zipfile
import zlib
from pathlib import Path

import polars as pl

SHEET = "xl/worksheets/sheet1.xml"


def _valid_xlsx(path: Path) -> dict[str, bytes]:
    pl.DataFrame({"item": [1, 1], "variant": ["a", "b"], "steps": [1, 2]}).write_excel(path, autofit=False)
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
            z.writestr(name, data)
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
