"""How a reader's failure becomes one :class:`~probestats.errors.ReadError`: a native reader's panic (its
backtrace held back from the terminal), polars' read errors in a sentence, and the line where a
delimited file stops making sense."""

from __future__ import annotations

import io as _stdio
import os
import re
from pathlib import Path

from probestats.errors import ReadError, opt

__all__ = ["panic_quiet", "panic_error", "polars_message", "first_line", "other_separator", "locate_bad_record"]


class panic_quiet:
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


def panic_error(exc: BaseException, source: str, path: Path | None = None) -> BaseException:
    """A reader's panic (raised through pyo3 as a BaseException) as one :class:`ReadError`; anything else as is."""
    if type(exc).__name__ != "PanicException":
        return exc
    text = re.sub(r"\s+", " ", str(exc)).strip()[:200]
    if path is not None and path.suffix.lower() in (".parquet", ".pq"):
        return ReadError(f"the Parquet file '{source}' is corrupt: the reader failed on it ({text}); "
                         "write it again from its source")
    return ReadError(f"cannot read '{source}': the reader failed on malformed data ({text})")


def other_separator(header: list[str], sep: str) -> str | None:
    """The separator a header read as one field really uses, if it is ``;`` or a tab.

    A spreadsheet saved where the decimal mark is a comma separates with semicolons (and a
    .csv may hold tabs).

    >>> other_separator(["item;variant;steps"], ","), other_separator(["item", "steps"], ",")
    (';', None)
    """
    return next((c for c in (";", "\t") if c != sep and len(header) == 1 and c in header[0]), None)


def locate_bad_record(path: Path, source: str) -> None:
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
        other = other_separator(header, sep)
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


def polars_message(exc: Exception, source: str) -> str:
    """Polars' read error ``exc`` as one sentence that names the log and the likely fix."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    low = text.lower()
    if "utf-8" in low or "utf8" in low:
        return f"'{source}' is not valid UTF-8 text; pass {opt('encoding')} (for example {opt('encoding', 'cp1252')})"
    if "quote" in low or "field" in low or "ragged" in low or "malformed" in low:
        return (f"cannot parse '{source}' as delimited text ({text}); check for an unbalanced "
                "quote or a row with extra fields")
    return f"cannot read '{source}' ({text})"


def first_line(exc: Exception) -> str:
    """The first line of an exception's message (its type's name when it has none)."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
