"""What the readers of the tools' logs share: the rows of a tool's log before the canonical names apply
(:class:`ToolLog`), its JSON loaded in one clear error, nested fields flattened into columns named by
their path, and records made a frame of one type per column.

Examples
--------
>>> flatten({"style": "formal", "topic": {"area": "code"}}, "metadata")
{'metadata.style': 'formal', 'metadata.topic.area': 'code'}
>>> first_alias(["question", "style"], "variant")
'style'
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

import polars as pl

from probestats.errors import Problem, ReadError
from probestats.io.columns import ALIASES, normalize_header
from probestats.io.json_text import loads

__all__ = ["ToolLog", "load_json", "flatten", "first_alias", "mapping", "as_text", "table", "listing"]


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
