"""Open WebUI chat exports (``chat-export-<time>.json``: one chat, or every chat from the settings).

One row per assistant reply, in every chat of the file:

- ``prompt`` is the text of the user message it answers, ``reply`` its text, ``model`` the model
  that wrote it, ``time`` when (UTC);
- regenerations of one user message are runs: the replies of one model under one user message are
  numbered 1, 2, ... in the order Open WebUI made them (``run``, the canonical ``seed``);
- ``turn`` counts the user messages of the thread up to this one (1 for the first question of a
  chat); it is the item unless a column mapping for ``item`` names another column (``chat_title``, say, with
  one chat per item);
- ``chat_id`` and ``chat_title`` name the chat; ``message_id`` the reply.

The value of the attribute is usually in the prompt's wording: ``variant_from`` rules ``VALUE=REGEX``
(see :mod:`probestats.shape.text_metrics`) maps prompts to values. Replies of several values in
one chat saw each other in the context, so they are not independent draws: a warning names such
chats (run each value in its own chat).
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from probestats.errors import ReadError
from probestats.io.tool_log import ToolLog, as_text, load_json, mapping, table


def read_open_webui(path: Path) -> ToolLog:
    """Read an Open WebUI chat export into one row per assistant reply (see the module's description)."""
    data = load_json(path, "an Open WebUI chat export")
    chats = data if isinstance(data, list) else [data]
    records = []
    for number, stored in enumerate(chats, start=1):
        if not isinstance(stored, dict) or not isinstance(stored.get("chat"), dict):
            raise ReadError(f"chat {number} of '{path.name}' has no 'chat' object; is this an Open WebUI chat export?")
        records.extend(_replies(stored, number))
    if not records:
        raise ReadError(f"'{path.name}' holds no assistant replies")
    return ToolLog("open_webui", table(records), {"item": "turn", "seed": "run"})


def _replies(stored: dict, number: int) -> list[dict[str, Any]]:
    body = stored["chat"]
    messages = mapping(body.get("history")).get("messages")
    if not isinstance(messages, dict):   # an old export: the linear list only
        listed = body.get("messages")
        messages = _from_list(listed if isinstance(listed, list) else [])
    messages = {k: m for k, m in messages.items() if isinstance(m, dict)}
    title = stored.get("title") or body.get("title")
    chat_id = stored.get("id") or body.get("id") or f"chat {number}"
    rows = []
    for message in messages.values():
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        parent = messages.get(_key(message.get("parentId")))
        model = as_text(message.get("model") or message.get("modelName"))
        children = mapping(parent).get("childrenIds")
        siblings = [messages[c] for c in (children if isinstance(children, list) else ()) if _key(c) in messages]
        same = [s.get("id") for s in siblings if as_text(s.get("model") or s.get("modelName")) == model]
        rows.append({
            "chat_id": as_text(chat_id), "chat_title": as_text(title), "turn": _turn(messages, parent),
            "run": same.index(message.get("id")) + 1 if message.get("id") in same else 1,
            "model": model, "time": _time(message.get("timestamp")),
            "prompt": _text(parent.get("content")) if parent else None, "reply": _text(message.get("content")),
            "message_id": as_text(message.get("id")),
        })
    rows.sort(key=lambda r: (r["turn"] or 0, r["run"]))
    return rows


def _turn(messages: dict, user: dict | None) -> int | None:
    """The number of user messages from the thread's start to ``user``, inclusive."""
    if user is None:
        return None
    count, node, seen = 0, user, set()
    while isinstance(node, dict) and id(node) not in seen:
        seen.add(id(node))
        count += node.get("role") == "user"
        node = messages.get(_key(node.get("parentId")))
    return count


def _key(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _from_list(items: list) -> dict:
    """A linear message list as a history: each message the child of the one before."""
    out, parent = {}, None
    for k, m in enumerate(i for i in items if isinstance(i, dict)):
        mid = m.get("id") or f"m{k}"
        out[mid] = dict(m, id=mid, parentId=parent, childrenIds=[])
        if parent is not None:
            out[parent]["childrenIds"].append(mid)
        parent = mid
    return out


def _text(content: Any) -> str | None:
    if isinstance(content, list):
        return "".join(as_text(c.get("text")) or "" for c in content if isinstance(c, dict))   # a number as its digits
    return as_text(content)


def _time(stamp: Any) -> str | None:
    if isinstance(stamp, bool) or not isinstance(stamp, (int, float)):
        return as_text(stamp)
    seconds = stamp / 1000 if stamp > 1e11 else stamp   # seconds in messages; milliseconds in some versions
    try:
        if seconds != seconds:
            return None
        return datetime.fromtimestamp(seconds, tz=timezone.utc).isoformat()
    except (OverflowError, OSError, ValueError):
        return None
