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
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "to_dict"):
        return jsonable(value.to_dict())
    if hasattr(value, "item") and not isinstance(value, bytes):  # numpy scalars
        try:
            return jsonable(value.item())
        except (TypeError, ValueError):
            return str(value)
    return value


#: Version of the JSON contract every command's top-level object follows (``schema_version``).
#: Raised when a key changes meaning or is removed; adding a key keeps it.
SCHEMA_VERSION = 1


def document(result) -> dict:
    """The top-level JSON object of a command: ``schema_version`` first, then the result's fields.

    Examples
    --------
    >>> document({"ok": True, "p": float("nan")})
    {'schema_version': 1, 'ok': True, 'p': None}
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
