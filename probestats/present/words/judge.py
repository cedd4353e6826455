"""A judge's log text in words: on one line, its controls and bidirectional overrides shown as escapes, cut at
a length; the terminal's tables and the report's judge section both show it so."""

from __future__ import annotations

import re

__all__ = ["one_line"]

_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def one_line(text, limit: int | None = None) -> str:
    r"""Log text on one line with its control characters and bidirectional overrides shown as escapes.

    >>> one_line("\x1b]52;c;cHdu\x07"), one_line("a\u202eb")
    ('\\x1b]52;c;cHdu\\x07', 'a<U+202E>b')
    """
    text = "" if text is None else str(text)
    text = text.replace("\n", " ").replace("\t", " ")
    text = _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                         else f"<U+{ord(m.group()):04X}>", text)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text
