"""One rule for turning results into JSON-safe values, shared by every result's ``to_dict``."""

from __future__ import annotations

import math
from collections.abc import Mapping


def jsonable(value):
    """A JSON-safe copy of ``value``: plain numbers, NaN and infinities as None, containers walked.

    numpy scalars become Python numbers; objects with ``to_dict()`` give their dictionary.

    Examples
    --------
    >>> import numpy as np
    >>> jsonable({"p": np.float64(0.25), "n": np.int64(3), "ci": (float("-inf"), 1.0), "ok": True})
    {'p': 0.25, 'n': 3, 'ci': [None, 1.0], 'ok': True}
    """
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "to_dict"):
        return jsonable(value.to_dict())
    if hasattr(value, "item") and not isinstance(value, bytes):  # numpy scalars
        try:
            return jsonable(value.item())
        except (TypeError, ValueError):
            return str(value)
    return value


def _plain(v):
    """:func:`jsonable` of one member, with the common plain scalars kept without a call (item
    tables hold tens of thousands of them)."""
    t = type(v)
    if t is str or t is int or t is bool or v is None:
        return v
    if t is float:
        return v if math.isfinite(v) else None
    return jsonable(v)


#: Version of the JSON contract every command's top-level object follows (``schema_version``).
#: Raised when a key changes meaning or is removed; adding a key keeps it. CHANGELOG.md lists each change.
SCHEMA_VERSION = 2


def document(result) -> dict:
    """The top-level JSON object of a command: ``schema_version`` first, then the result's fields.

    Examples
    --------
    >>> document({"ok": True, "p": float("nan")})
    {'schema_version': 2, 'ok': True, 'p': None}
    """
    data = jsonable(result)
    if not isinstance(data, dict):
        raise TypeError(f"a command's JSON is an object, not {type(data).__name__}")
    return {"schema_version": SCHEMA_VERSION, **{k: v for k, v in data.items() if k != "schema_version"}}


def refusal(problems) -> dict:
    """The JSON object of a refusal about the data: ``ok`` false and every coded problem.

    Examples
    --------
    >>> from probestats.errors import Problem
    >>> refusal([Problem("error", "not_comparable", "the seeds differ")])["problems"][0]["code"]
    'not_comparable'
    """
    return {"schema_version": SCHEMA_VERSION, "ok": False, "problems": jsonable(list(problems))}


_SCALARS = (str, int, float, bool, type(None))


def _key(k, scalar) -> str:
    """An object key as ``json`` writes it: text as is, other scalars as their JSON text, quoted."""
    if isinstance(k, str):
        return scalar.encode(k)
    if k is True or k is False or k is None or isinstance(k, (int, float)):
        return scalar.encode(scalar.encode(k))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(k).__name__}")


#: what no encoded JSON value holds raw (json writes control characters as \u escapes)
_CUT = "\x00"


def _rows_text(rows, outer: str, inner: str, scalar) -> list[str] | None:
    """The texts of ``rows``, plain dicts that all have the same text keys in the same order and only
    scalars (an item table), as the members of a list indented by ``outer``; None for any other list.

    Each column is encoded in one call of the C encoder, its values cut apart where the encoder put
    ``_CUT`` between them; each row is then its keys and values put into one template.
    """
    first = rows[0]
    if len(rows) < 2 or type(first) is not dict or not first:
        return None
    keys = tuple(first)
    # text keys only: keys of other types can be equal and written differently (1, 1.0 and True);
    # plain dicts only: a mapping of another type may read its members otherwise
    if not all(type(k) is str for k in keys) or not all(type(r) is dict and tuple(r) == keys for r in rows):
        return None
    columns = [[r[k] for r in rows] for k in keys]
    if not all(isinstance(x, _SCALARS) for column in columns for x in column):
        return None
    import json

    cut = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(_CUT, ": "))
    texts = [cut.encode(column)[1:-1].split(_CUT) for column in columns]
    parts = [("{\n" if i == 0 else ",\n") + inner + _key(k, scalar) + ": " for i, k in enumerate(keys)]
    template = "%s".join(p.replace("%", "%%") for p in parts) + "%s" + ("\n" + outer + "}").replace("%", "%%")
    return [template % values for values in zip(*texts)]


def dumps(value, *, indent: int = 2) -> str:
    """``json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)``, the same text, faster.

    The standard library encodes an indented document in pure Python (its C encoder knows no
    indent); a command's JSON can hold tens of thousands of item rows. Here every list or
    object whose members are all scalars (the rows) goes through the C encoder in one call,
    with the newline and indentation as its item separator, so only the few outer levels are
    walked in Python. ``value`` must be JSON-safe (see :func:`jsonable`): dicts with string
    keys, lists, and scalars; a NaN or an infinity raises ValueError as ``allow_nan=False`` does.

    Examples
    --------
    >>> import json
    >>> doc = {"a": [1, 2.5, None], "b": {"c": "x", "d": []}, "e": [{"f": True}, {}]}
    >>> dumps(doc) == json.dumps(doc, ensure_ascii=False, indent=2, allow_nan=False)
    True
    """
    import json

    step = " " * indent
    flat_encoders: dict[int, json.JSONEncoder] = {}

    def flat(depth: int) -> json.JSONEncoder:
        enc = flat_encoders.get(depth)
        if enc is None:
            enc = flat_encoders[depth] = json.JSONEncoder(
                ensure_ascii=False, allow_nan=False, separators=(",\n" + step * depth, ": "))
        return enc

    scalar = json.JSONEncoder(ensure_ascii=False, allow_nan=False)
    out: list[str] = []

    def walk(v, depth: int) -> None:
        if isinstance(v, dict):
            if not v:
                out.append("{}")
                return
            inner = step * (depth + 1)
            if all(isinstance(x, _SCALARS) for x in v.values()):
                body = flat(depth + 1).encode(v)          # '{"k": 1,\n<inner>"j": 2}'
                out.append("{\n" + inner + body[1:-1] + "\n" + step * depth + "}")
                return
            out.append("{")
            first = True
            for k, x in v.items():
                out.append(("\n" if first else ",\n") + inner + _key(k, scalar) + ": ")
                first = False
                walk(x, depth + 1)
            out.append("\n" + step * depth + "}")
        elif isinstance(v, (list, tuple)):
            if not v:
                out.append("[]")
                return
            inner = step * (depth + 1)
            if all(isinstance(x, _SCALARS) for x in v):
                body = flat(depth + 1).encode(list(v))
                out.append("[\n" + inner + body[1:-1] + "\n" + step * depth + "]")
                return
            rows = _rows_text(v, inner, step * (depth + 2), scalar)
            if rows is not None:
                out.append("[\n" + inner + (",\n" + inner).join(rows) + "\n" + step * depth + "]")
                return
            out.append("[")
            for i, x in enumerate(v):
                out.append(("\n" if i == 0 else ",\n") + inner)
                walk(x, depth + 1)
            out.append("\n" + step * depth + "]")
        else:
            out.append(scalar.encode(v))

    walk(value, 0)
    return "".join(out)


def one_line(obj, **headline) -> str:
    """A result's one-line repr: its class and its headline numbers (floats to six significant digits).

    Examples
    --------
    >>> class Pair: pass
    >>> one_line(Pair(), metric="steps", n_items=8, p=0.0234375, note=None)
    "Pair(metric='steps', n_items=8, p=0.0234375)"
    """
    parts = []
    for key, value in headline.items():
        if value is None:
            continue
        text = f"{value:.6g}" if isinstance(value, float) else repr(value)
        parts.append(f"{key}={text}")
    return f"{type(obj).__name__}({', '.join(parts)})".replace("\n", " ")


def html_summary(obj, frame=None, **headline) -> str:
    """A result as a notebook shows it: its headline numbers in a small table, then its table (a polars
    DataFrame, rendered by polars), every text escaped.

    Examples
    --------
    >>> class Pair: pass
    >>> html_summary(Pair(), metric="<b>steps</b>", p=0.5)
    '<p><b>Pair</b></p><table><tr><th>metric</th><td>&lt;b&gt;steps&lt;/b&gt;</td></tr><tr><th>p</th><td>0.5</td></tr></table>'
    """
    from html import escape

    rows = "".join(f"<tr><th>{escape(str(k))}</th><td>{escape(f'{v:.6g}' if isinstance(v, float) else str(v))}</td></tr>"
                   for k, v in headline.items() if v is not None)
    out = f"<p><b>{escape(type(obj).__name__)}</b></p><table>{rows}</table>"
    if frame is not None:
        out += frame._repr_html_()
    return out


def tidy(rows) -> list[dict]:
    """A table of ``to_dict()`` as tidy rows: a row's ``by`` mapping becomes its columns, another mapping of
    scalars one column per key (``interval``: ``interval_low``, ``interval_high``, ...); deeper values are
    left out.

    Examples
    --------
    >>> tidy([{"by": {"model": "m1"}, "gap": 1.5, "interval": {"low": 0.5, "high": 2.5}, "cells": [{"n": 1}]}])
    [{'model': 'm1', 'gap': 1.5, 'interval_low': 0.5, 'interval_high': 2.5}]
    """
    out = []
    for row in jsonable(rows):
        flat: dict = {}
        for key, value in row.items():
            if key == "by" and isinstance(value, dict):
                flat.update(value)
            elif isinstance(value, dict):
                flat.update({f"{key}_{k}": v for k, v in value.items() if isinstance(v, _SCALARS)})
            elif isinstance(value, list):
                if all(isinstance(v, _SCALARS) for v in value):
                    flat[key] = value
            else:
                flat[key] = value
        out.append(flat)
    return out


class Result:
    """The protocol every top-level result follows, as scipy's results do: the headline ``statistic``,
    ``pvalue`` and ``interval`` one attribute away, the ``conclusion`` in a word, ``to_dict()`` (the command's
    ``--json`` object) and ``to_frame()``, a tidy polars DataFrame of its main table.

    A result names where ``to_dict()`` holds its main table (:attr:`MAIN_TABLE`, keys joined by ``.``);
    ``to_frame()`` holds the same rows and columns (:func:`tidy`). ``statistic``, ``pvalue`` and ``interval``
    are those of its headline test and interval (``_headline()``, ``_interval()``), ``conclusion`` its verdict's; each is None where the
    result has none (a plan tests nothing).
    """

    #: where ``to_dict()`` holds the main table
    MAIN_TABLE: str = "items"

    def main_table(self) -> list[dict]:
        """The main table's rows, as ``to_dict()`` holds them (JSON-safe)."""
        table = self.to_dict()
        for key in self.MAIN_TABLE.split("."):
            table = table[key]
        return jsonable(table)

    def to_frame(self):
        """The main table as a tidy polars DataFrame (the rows of :meth:`main_table`, nested values flattened)."""
        import polars as pl   # a result's frame is asked for in a notebook; the JSON of a command needs no polars

        return pl.DataFrame(tidy(self.main_table()), infer_schema_length=None)

    def _headline(self):
        """The headline test (an object with ``statistic`` and ``pvalue``), or None."""
        return None

    @property
    def statistic(self) -> float | None:
        """The headline test's statistic (None without one)."""
        return getattr(self._headline(), "statistic", None)

    @property
    def pvalue(self) -> float | None:
        """The headline p-value: the verdict's, else the headline test's (None without one)."""
        verdict = getattr(self, "verdict", None)
        if getattr(verdict, "pvalue", None) is not None:
            return verdict.pvalue
        return getattr(self._headline(), "pvalue", None)

    def _interval(self):
        """The headline interval, or None."""
        return None

    @property
    def interval(self):
        """The headline interval (with ``low`` and ``high``), or None."""
        return self._interval()

    @property
    def conclusion(self) -> str | None:
        """The verdict in a word (``detected``, ``within_noise``, ``not_detected``, ...), or None."""
        return getattr(getattr(self, "verdict", None), "conclusion", None)
