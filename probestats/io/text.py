"""Text files' encodings: how a CSV, TSV or JSON file is decoded, from its first bytes (a byte-order mark,
UTF-8, or Windows-1252 with a warning), into the UTF-8 polars reads."""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Any

from probestats.errors import OptionError, Problem, ReadError, opt
from probestats.io.failures import first_line

__all__ = ["SNIFF_BYTES", "text_source"]
SNIFF_BYTES = 1 << 16


def _decode_head(path: Path, encoding: str | None) -> tuple[str | None, bytes]:
    """Decide how to decode a text file from its first bytes.

    Returns (python encoding to re-encode from, or None when polars can read it as
    UTF-8 directly; the head bytes).
    """
    with path.open("rb") as fh:
        head = fh.read(SNIFF_BYTES)
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
        if exc.start >= len(head) - 3 and len(head) == SNIFF_BYTES:
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


def text_source(path: Path, encoding: str | None) -> tuple[Any, list[Problem]]:
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
        raise ReadError(f"'{path.name}' cannot be decoded as {enc} ({first_line(exc)}); pass the right {opt('encoding')}") from None
