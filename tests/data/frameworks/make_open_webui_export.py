"""Write Open WebUI chat exports in the layout Open WebUI itself writes.

Open WebUI's chat menu exports one chat as ``chat-export-<milliseconds>.json`` holding ``[chat]``;
its settings export all chats under the same name holding the list of every chat. A chat is the
stored row (``id``, ``user_id``, ``title``, ``chat``, ``updated_at``, ``created_at``, ``share_id``,
``archived``, ``pinned``, ``meta``, ``folder_id``); its ``chat`` holds ``history``: ``messages`` by
id, each with ``parentId`` and ``childrenIds``, and ``currentId`` (the leaf shown). A user message
has ``role``, ``content``, ``timestamp`` (seconds) and ``models``; an assistant reply adds
``model``, ``modelName``, ``modelIdx`` and ``done``. Regenerating a reply adds a sibling under the
same user message; the next message continues from the reply shown.

The hand probe here: one chat per value ('formal', 'casual'), each asking the same 4 questions in
order, each reply regenerated to 3 replies; a third chat asks both values in one thread (warned
about). Replies list numbered steps ('1.'; one casual question gets '1)' numbering, as the
tutorial warns a real model may write). Written beside this script:

- ``chat-export-1764579600000.json``: the 'formal' chat alone (the chat menu's export);
- ``chat-export-1764583200000.json``: all three chats (the settings export);
- ``open_webui_replies.csv``: one row per reply of the first two chats (item = the question's
  turn in its chat, variant, run = the regeneration, steps counted by the rule '1.' or '1)'),
  the table probestats must reproduce.

Run: python tests/data/frameworks/make_open_webui_export.py
"""

from __future__ import annotations

import csv
import json
import re
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
START = 1764576000  # 2025-12-01T08:00:00Z
MODEL = "llama3.2:3b"

QUESTIONS = [
    ("Good afternoon. My script stops with an IndexError on the last line. How can I find the cause?",
     "hey my script crashes w/ IndexError on the last line, how do i find why"),
    ("Good afternoon. My tests pass locally but fail on the build server. What should I check?",
     "hey tests pass on my laptop but fail on the server?? what do i check"),
    ("Good afternoon. A loop in my program never ends when the list is empty. Why might that be?",
     "hey my loop never ends when the list is empty why"),
    ("Good afternoon. My program prints the wrong total. How do I find the error?",
     "hey program prints wrong total, how find the bug"),
]

STEPS = ["Read the full error message.", "Print the values just before the failing line.",
         "Check the length of the list.", "Run the smallest input that fails.", "Step through it in a debugger."]


def reply(question: int, style: str, draw: int) -> str:
    count = 3 + (style == "formal") + (question + draw) % 2
    mark = ")" if (style, question) == ("casual", 2) else "."
    return "Here is how to narrow it down:\n" + "\n".join(f"{k}{mark} {STEPS[k - 1]}" for k in range(1, count + 1))


class Clock:
    def __init__(self, start: int):
        self.now = start

    def tick(self, seconds: int = 20) -> int:
        self.now += seconds
        return self.now


def chat(title: str, turns: list[tuple[str, str, int]], clock: Clock, regenerations: int = 3) -> dict:
    """One stored chat: each turn a user message, its replies regenerated; the thread goes on from the last."""
    messages: dict[str, dict] = {}
    parent = None
    created = clock.now
    for text, style, question in turns:
        user_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{title}/{question}/{style}/user"))
        messages[user_id] = {"id": user_id, "parentId": parent, "childrenIds": [], "role": "user", "content": text,
                             "timestamp": clock.tick(), "models": [MODEL]}
        if parent is not None:
            messages[parent]["childrenIds"].append(user_id)
        for draw in range(1, regenerations + 1):
            reply_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{title}/{question}/{style}/{draw}"))
            messages[reply_id] = {"parentId": user_id, "id": reply_id, "childrenIds": [], "role": "assistant",
                                  "content": reply(question, style, draw), "model": MODEL, "modelName": MODEL,
                                  "modelIdx": 0, "userContext": None, "timestamp": clock.tick(), "done": True}
            messages[user_id]["childrenIds"].append(reply_id)
        parent = reply_id
    path, node = [], parent
    while node is not None:
        path.append(messages[node])
        node = messages[node]["parentId"]
    chat_id = str(uuid.uuid5(uuid.NAMESPACE_URL, title))
    return {"id": chat_id, "user_id": "8d5d1c2e-0000-4000-8000-000000000001", "title": title,
            "chat": {"id": "", "title": title, "models": [MODEL], "params": {},
                     "history": {"messages": messages, "currentId": parent},
                     "messages": path[::-1], "tags": [], "timestamp": created * 1000, "files": []},
            "updated_at": clock.now, "created_at": created, "share_id": None, "archived": False, "pinned": False,
            "meta": {"tags": []}, "folder_id": None}


def main() -> None:
    clock = Clock(START)
    chats = [chat(f"Debugging help ({style})", [(QUESTIONS[q][k], style, q + 1) for q in range(len(QUESTIONS))], clock)
             for k, style in enumerate(("formal", "casual"))]
    mixed = chat("Both styles in one thread", [(QUESTIONS[0][0], "formal", 1), (QUESTIONS[0][1], "casual", 1)],
                 clock, regenerations=2)
    (HERE / "chat-export-1764579600000.json").write_text(json.dumps([chats[0]]))
    (HERE / "chat-export-1764583200000.json").write_text(json.dumps(chats + [mixed]))
    rows = []
    for c in chats:
        style = "formal" if "(formal)" in c["title"] else "casual"
        for m in c["chat"]["history"]["messages"].values():
            if m["role"] != "assistant":
                continue
            question = next(q for q, pair in enumerate(QUESTIONS, start=1)
                            if c["chat"]["history"]["messages"][m["parentId"]]["content"] in pair)
            siblings = c["chat"]["history"]["messages"][m["parentId"]]["childrenIds"]
            rows.append({"item": question, "variant": style, "run": siblings.index(m["id"]) + 1,
                         "steps": len(re.findall(r"^\s*\d+[.)]", m["content"], flags=re.M)), "reply": m["content"]})
    with (HERE / "open_webui_replies.csv").open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
