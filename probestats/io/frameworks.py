"""Logs written by the tools probes are run with, recognized from their content.

Each tool's reader (:mod:`probestats.io.inspect_log`, :mod:`probestats.io.promptfoo`,
:mod:`probestats.io.lm_eval`, :mod:`probestats.io.open_webui`) turns its log into rows, one per
run, with the tool's fields flattened into columns named by their path (``metadata.style``,
``vars.style``, ``doc.item``), and says which of those columns hold the canonical ones (the
``item``, the ``variant``, the run) when a field named like them is found. A column mapping
overrides any of these, naming a flattened column (``columns={'variant': 'metadata.condition'}``).

Recognition reads the start of the file, whatever its suffix:

==========================  ============================================================
tool                        recognized by
==========================  ============================================================
inspect_ai ``.eval``        a zip archive holding ``header.json`` or ``_journal/start.json``
inspect_ai ``.json``        a JSON object opening with ``"version"`` then ``"status"``, with ``"eval"``
promptfoo results           a JSON object whose ``"results"`` opens with ``"version"``
lm-eval samples             JSON lines whose first record has ``doc_id``, ``doc`` and ``resps``
Open WebUI chat export      a JSON array of chats, each with ``"chat"`` holding ``"history"``
==========================  ============================================================

What the readers share is in :mod:`probestats.io.tool_log`; this module recognizes a tool's log and
calls its reader.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Mapping

from probestats.io.tool_log import ToolLog

#: how each tool's log is named in messages and in ``validate``'s output
NAMES = {
    "inspect_eval": "inspect_ai .eval log",
    "inspect_json": "inspect_ai JSON log",
    "promptfoo": "promptfoo results, version 3",
    "lm_eval": "lm-evaluation-harness samples",
    "open_webui": "Open WebUI chat export",
}

_HEAD = 1 << 20
_INSPECT_JSON = re.compile(rb'^\s*\{\s*"version"\s*:\s*\d+\s*,\s*"status"\s*:\s*"')
_PROMPTFOO = re.compile(rb'"results"\s*:\s*\{\s*"version"\s*:\s*(\d+)')
_WEBUI = re.compile(rb'^\s*\[\s*\{.*?"chat"\s*:\s*\{', re.S)


def sniff(path: Path) -> str | None:
    """The tool that wrote ``path``, from its first bytes (None for a plain table)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        return None
    if head.startswith(b"PK\x03\x04") or path.suffix.lower() == ".eval":
        # an .eval that is no whole zip (cut short while copied or written) is still inspect_ai's: its reader says so
        return "inspect_eval" if _zip_names_inspect(path) or path.suffix.lower() == ".eval" else None
    text = head.lstrip(b"\xef\xbb\xbf")
    if _INSPECT_JSON.match(text) and b'"eval"' in text:
        return "inspect_json"
    if text.lstrip()[:1] == b"{" and _PROMPTFOO.search(text):
        return "promptfoo"
    if _WEBUI.match(text) and b'"history"' in text:
        return "open_webui"
    first = text.split(b"\n", 1)[0]
    if first.lstrip()[:1] == b"{" and b'"doc_id"' in first and b'"doc"' in first and b'resps"' in first:
        return "lm_eval"
    return None


def _zip_names_inspect(path: Path) -> bool:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return False
    return "header.json" in names or "_journal/start.json" in names


def read_tool_log(path: Path, kind: str, columns: Mapping[str, str] | None = None) -> ToolLog:
    """Read a tool's log (``kind`` from :func:`sniff`); ``columns`` are the user's column mappings."""
    if kind in ("inspect_eval", "inspect_json"):
        # lazy: the reader of this tool's logs, imported for a log of that tool
        from probestats.io.inspect_log import read_inspect

        return read_inspect(path, kind)
    if kind == "promptfoo":
        # lazy: the reader of this tool's logs, imported for a log of that tool
        from probestats.io.promptfoo import read_promptfoo

        return read_promptfoo(path, columns or {})
    if kind == "lm_eval":
        # lazy: the reader of this tool's logs, imported for a log of that tool
        from probestats.io.lm_eval import read_lm_eval

        return read_lm_eval(path)
    # lazy: the reader of this tool's logs, imported for a log of that tool
    from probestats.io.open_webui import read_open_webui

    return read_open_webui(path)


def merged_columns(tool: ToolLog, columns: Mapping[str, str] | None) -> dict[str, str]:
    """The tool's default mappings under the user's: a default is dropped when the user maps its
    canonical name or uses its column for another one."""
    user = dict(columns or {})
    used = set(user.values())
    out = {c: h for c, h in tool.defaults.items() if c not in user and h not in used and h in tool.frame.columns}
    out.update(user)
    return out
