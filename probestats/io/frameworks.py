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

Examples
--------
>>> flatten({"style": "formal", "topic": {"area": "code"}}, "metadata")
{'metadata.style': 'formal', 'metadata.topic.area': 'code'}
>>> first_alias(["question", "style"], "variant")
'style'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import polars as pl

from probestats.errors import Problem, ReadError
from probestats.io.json_text import loads

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


@dataclass(frozen=True)
class ToolLog:
    """A tool's log as rows, before the canonical names are applied.

    Attributes
    ----------
    kind : str
        Key of :data:`NAMES`.
    frame : polars.DataFrame
        One row per run; the tool's fields as flattened columns.
    defaults : dict
        Canonical name -> column, found from the tool's field names (the user's column mapping wins over them).
    problems : tuple of Problem
        Warnings about the log (samples that failed, cached responses, a run still going).
    """

    kind: str
    frame: pl.DataFrame
    defaults: dict[str, str] = field(default_factory=dict)
    problems: tuple[Problem, ...] = ()


def sniff(path: Path) -> str | None:
    """The tool that wrote ``path``, from its first bytes (None for a plain table)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(_HEAD)
    except OSError:
        return None
    if head.startswith(b"PK\x03\x04"):
        return "inspect_eval" if _zip_names_inspect(path) else None
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
        from probestats.io.inspect_log import read_inspect

        return read_inspect(path, kind)
    if kind == "promptfoo":
        from probestats.io.promptfoo import read_promptfoo

        return read_promptfoo(path, columns or {})
    if kind == "lm_eval":
        from probestats.io.lm_eval import read_lm_eval

        return read_lm_eval(path)
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


def load_json(path: Path, what: str) -> Any:
    """The file's JSON value, or one clear :class:`ReadError` (see :func:`loads`)."""
    try:
        text = path.read_bytes().decode("utf-8-sig")
        return loads(text, f"'{path.name}'")
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ReadError(f"'{path.name}' looks like {what} but is not valid JSON ({_reason(exc)}); "
                        "is the file complete?") from None


def _reason(exc: Exception) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"line {exc.lineno}: {exc.msg}"
    return type(exc).__name__


def flatten(value: Any, prefix: str) -> dict[str, Any]:
    """A nested mapping as columns named by their dotted path; lists stay as one (JSON text) value."""
    out: dict[str, Any] = {}
    stack = [(prefix, value, 0)]
    while stack:
        name, node, depth = stack.pop(0)
        if isinstance(node, Mapping) and depth < 8:
            if not node and name:
                out[name] = None
            stack[0:0] = [(f"{name}.{k}" if name else str(k), v, depth + 1) for k, v in node.items()]
        else:
            out[name] = node
    return out


def first_alias(keys: Iterable[str], canonical: str) -> str | None:
    """The first of ``keys`` that the alias table reads as ``canonical`` (keys compared as headers)."""
    from probestats.io.read import ALIASES, normalize_header

    keys = list(keys)
    by_norm = {normalize_header(k): k for k in reversed(keys)}
    for alias in ALIASES[canonical]:
        if alias in by_norm:
            return by_norm[alias]
    return None


def mapping(value: Any) -> dict:
    """``value`` when it is a JSON object, else an empty one (a tool's field of an unexpected type).

    >>> mapping({"a": 1}), mapping([1]), mapping(None)
    ({'a': 1}, {}, {})
    """
    return value if isinstance(value, dict) else {}


def as_text(value: Any) -> str | None:
    """A reply, prompt or id as text (structures as JSON)."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def table(records: list[dict[str, Any]]) -> pl.DataFrame:
    """Records as a frame with one type per column: numbers (booleans as such) where every value is
    one, else text (structures as JSON)."""
    names: dict[str, None] = {}
    for r in records:
        names.update(dict.fromkeys(r))
    series = []
    for name in names:
        values = [r.get(name) for r in records]
        present = [v for v in values if v is not None]
        if present and all(isinstance(v, bool) for v in present):
            series.append(pl.Series(name, values, dtype=pl.Boolean))
        elif present and all(isinstance(v, int) and not isinstance(v, bool) for v in present) \
                and all(abs(v) < 1 << 63 for v in present):
            series.append(pl.Series(name, values, dtype=pl.Int64))
        elif present and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present):
            series.append(pl.Series(name, [None if v is None else float(v) for v in values], dtype=pl.Float64))
        else:
            series.append(pl.Series(name, [as_text(v) for v in values], dtype=pl.String))
    return pl.DataFrame(series) if series else pl.DataFrame()


def listing(labels: list[str], limit: int = 8) -> str:
    """Name a few things and count the rest.

    >>> listing(["a", "b", "c"], limit=2)
    'a, b and 1 more'
    """
    shown = ", ".join(labels[:limit])
    return shown + (f" and {len(labels) - limit} more" if len(labels) > limit else "")
