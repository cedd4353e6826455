"""JSON text as the readers load it: an integer past Python's digit limit refused in one line, a lone
surrogate read as U+FFFD (the replacement character); and the two shapes of a table a JSON value holds."""

from __future__ import annotations

import json
import re
from typing import Any

from probestats.errors import ReadError

__all__ = ["loads", "without_surrogates", "SURROGATE_ESCAPE", "is_records", "is_columns"]


#: a JSON escape of a UTF-16 surrogate: only then can a decoded string hold a lone one
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def loads(text: str, where: str) -> Any:
    """``json.loads`` for a tool's log: an integer past Python's digit limit is refused in one
    :class:`ReadError` naming ``where``; a lone surrogate (``"\\ud800"``, which no text encoding
    can write) is read as U+FFFD, the replacement character. A text that is not JSON raises
    ``json.JSONDecodeError``, for the caller to word.

    >>> loads('{"reply": "a\\\\ud800b", "n": 7}', "'x.json'")
    {'reply': 'a\ufffdb', 'n': 7}
    >>> loads('[' + '9' * 5000 + ']', "line 3 of 'x.jsonl'")
    Traceback (most recent call last):
    ...
    probestats.errors.ReadError: line 3 of 'x.jsonl' holds an integer of more than 4,300 digits, which Python does not convert; remove it or write it as text
    """
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:   # Python's limit on the digits of an integer (4,300 by default)
        raise ReadError(f"{where} holds an integer of more than 4,300 digits, which Python does not convert; "
                        "remove it or write it as text") from None
    return without_surrogates(value) if SURROGATE_ESCAPE.search(text) else value


def without_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys included) replaced by U+FFFD."""
    def fix(s: str) -> str:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")

    if isinstance(value, str):
        return fix(value)
    root = [value]
    stack = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        item = holder[key]
        if isinstance(item, str):
            holder[key] = fix(item)
        elif isinstance(item, list):
            stack.extend((item, i) for i in range(len(item)))
        elif isinstance(item, dict):
            fixed = {fix(k): v for k, v in item.items()}
            holder[key] = fixed
            stack.extend((fixed, k) for k in fixed)
    return root[0]


def is_records(value) -> bool:
    """Whether a JSON value is a list of records (objects), at least one."""
    return isinstance(value, list) and bool(value) and all(isinstance(r, dict) for r in value)


def is_columns(value) -> bool:
    """Whether a JSON value is column-oriented: an object whose values are all lists of plain values."""
    return (isinstance(value, dict) and bool(value)
            and all(isinstance(v, list) and not any(isinstance(x, (dict, list)) for x in v) for v in value.values()))
