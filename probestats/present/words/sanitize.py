r"""One sanitizer for untrusted text (anything from a log, a design file or an option) on every surface.

A log can hold terminal escape sequences (``ESC]52;...`` writes the user's clipboard, ``ESC[2J``
clears the screen), C1 controls (U+009B is a one-character CSI on some terminals) and
bidirectional overrides (U+202E makes a reader see ``gpj.exe`` as ``exe.jpg``). None of them may
reach a terminal, a Markdown file or a web page as they are; each is shown as a visible escape:
``\x1b`` for C0, C1 and DEL, ``<U+202E>`` for the bidi controls, so a reader still sees that the
log holds something odd.

- :func:`visible`: the common step, controls made visible (all surfaces use it).
- :func:`terminal`: :func:`visible` plus rich markup escaped (``[red]`` prints as written).
- :func:`html`: :func:`visible`, HTML-escaped, and text with right-to-left letters isolated in ``<bdi>``.
- :func:`one_line`: :func:`visible` for a message that must stay on one line (``Error:`` lines).

Markdown uses :func:`visible` inside :func:`probestats.present.words.fmt.md_escape`.

Examples
--------
>>> visible("\x1b]52;c;cHdu\x07")
'\\x1b]52;c;cHdu\\x07'
>>> visible("abc\u202egpj.exe")
'abc<U+202E>gpj.exe'
>>> terminal("[red]x\x9b")
'\\[red]x\\x9b'
>>> str(html("<b>\u05e9\u05dc\u05d5\u05dd</b>"))
'<bdi>&lt;b&gt;\u05e9\u05dc\u05d5\u05dd&lt;/b&gt;</bdi>'
>>> one_line("bad header 'a\r\nb'")
"bad header 'a\\r\\nb'"
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["visible", "terminal", "html", "one_line", "json_text", "has_raw_controls", "BIDI_CONTROLS"]

#: explicit directional formatting characters: embeddings and overrides, isolates, and the marks
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"

# C0 controls but tab and newline, DEL, C1; the bidi controls; line and paragraph separators
_KEEP_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + BIDI_CONTROLS + "\u2028\u2029]")
_ALL = re.compile("[\x00-\x1f\x7f-\x9f" + BIDI_CONTROLS + "\u2028\u2029]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _show(match: re.Match) -> str:
    ch = match.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"<U+{code:04X}>"


def visible(text, *, keep_newlines: bool = False) -> str:
    r"""``text`` with every control character shown as a visible escape.

    ``keep_newlines`` keeps tabs and line feeds (for multi-line text printed as is).

    >>> visible("a\tb\nc\x7f"), visible("a\tb\nc", keep_newlines=True)
    ('a\\tb\\nc\\x7f', 'a\tb\nc')
    """
    text = "" if text is None else str(text)
    return (_KEEP_LINES if keep_newlines else _ALL).sub(_show, text)


def one_line(text) -> str:
    """A message on one line: line breaks and every other control shown as escapes."""
    return visible(text)


def terminal(text) -> str:
    r"""Text safe to print through rich: controls visible, markup escaped (``[`` that would open a tag).

    rich's own ``escape`` also doubles a single backslash at the end, in case a tag follows it;
    no tag follows a value here, and the doubled backslash would show.

    >>> terminal("C:\\temp\\") == "C:\\temp\\"
    True
    """
    from rich.markup import escape

    text = visible(text)
    escaped = escape(text)
    if text.endswith("\\") and not text.endswith("\\\\"):
        return escaped[:-1]  # the backslash rich added
    return escaped


def _right_to_left(text: str) -> bool:
    return any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in text if ord(ch) >= 0x590)


def html(text):
    """Text as HTML: controls visible, escaped, and isolated in ``<bdi>`` when it holds right-to-left
    letters, so that it cannot reorder the text around it. Returns :class:`markupsafe.Markup`."""
    from markupsafe import Markup, escape

    if isinstance(text, Markup):
        return text
    text = visible(text)
    if _right_to_left(text):
        return Markup("<bdi>{}</bdi>").format(text)
    return escape(text)


_JSON_RAW = re.compile("[\x7f-\x9f" + BIDI_CONTROLS + "\u2028\u2029]")


def json_text(text: str) -> str:
    r"""JSON text with DEL, C1 and bidi controls written as ``\u`` escapes (``json`` escapes C0 itself):
    the same JSON value, nothing a terminal could act on.

    >>> json_text('"a\u202eb\x9b"')
    '"a\\u202eb\\u009b"'
    """
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def has_raw_controls(text: str, *, allow_newlines: bool = True) -> bool:
    r"""Whether ``text`` holds a control character a terminal or a viewer could act on.

    >>> has_raw_controls("ok\n"), has_raw_controls("\x1b[2J"), has_raw_controls("\u202e")
    (False, True, True)
    """
    return (_KEEP_LINES if allow_newlines else _ALL).search(text.replace("\r\n", "\n")) is not None
