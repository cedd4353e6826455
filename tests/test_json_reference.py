"""The JSON reference (docs/reference/json.md) names every key every command's ``--json`` prints, with
its type: the scenarios of tests/json_scenarios.py run each command in its modes, and each object is
read against the page's tables. A key the page does not name, a type it does not allow, or a row no
scenario reaches fails here, so the page and the output cannot drift apart.

A table belongs to the heading above it, named by its anchor (``{#verdict}``). A row names key paths
relative to its table (``verdict.holds``, ``tests[].p``, ``counts.*`` for a map whose keys come from the
log); ``.low`` after a first path is a sibling of that path's last key. A type cell names JSON types
(``string``, ``number``, ``integer``, ``boolean``, ``null``, ``object``, ``array``; ``number`` admits an
integer) and may link to another table (``[a test](#test)``): the object there, or each element of the
array, is read against that table. ``any`` admits any value and the keys under it. A row keyed ``...``
linking to a table says that this table holds that one's keys too.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference" / "json.md"
sys.path.insert(0, str(ROOT / "tests"))

import json_scenarios  # noqa: E402

TYPES = ("string", "number", "integer", "boolean", "null", "object", "array", "any")


class Row:
    def __init__(self, table: str, paths: list[str], types: set[str], link: str | None, line: int):
        self.table, self.paths, self.types, self.link, self.line = table, paths, types, link, line
        self.used = False

    def admits(self, kind: str) -> bool:
        return "any" in self.types or kind in self.types or (kind == "integer" and "number" in self.types)


def read_page(text: str) -> dict[str, list[Row]]:
    """The tables of the page by anchor, each a list of rows."""
    tables: dict[str, list[Row]] = {}
    anchor = None
    for number, line in enumerate(text.splitlines(), 1):
        heading = re.match(r"^#+ .*\{#([\w-]+)\}\s*$", line)
        if heading:
            anchor = heading.group(1)
            continue
        if line.startswith("#"):
            anchor = None
            continue
        if anchor is None or not line.startswith("|") or line.startswith("|---") or line.startswith("| key |"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 3, f"json.md line {number}: a row has three cells: {line}"
        names = re.findall(r"`([^`]+)`", cells[0])
        assert names, f"json.md line {number}: no key path in {cells[0]!r}"
        paths = []
        for name in names:
            if name.startswith(".") and paths:
                parent = paths[0].rsplit(".", 1)[0] if "." in paths[0] else ""
                name = f"{parent}{name}" if parent else name[1:]
            paths.append(name)
        link = re.search(r"\]\(#([\w-]+)\)", cells[1])
        plain = re.sub(r"\[[^\]]*\]\([^)]*\)", " ", cells[1])
        types = {t for t in TYPES if re.search(rf"\b{t}s?\b", plain)}
        if link and not types & {"object", "array"}:
            types.add("object")
        assert types, f"json.md line {number}: no type in {cells[1]!r}"
        tables.setdefault(anchor, []).append(Row(anchor, paths, types, link.group(1) if link else None, number))
    return tables


def _match(pattern: str, path: str) -> bool:
    a, b = re.split(r"\.|(?=\[\])", pattern), re.split(r"\.|(?=\[\])", path)
    return len(a) == len(b) and all(x == y or x == "*" for x, y in zip(a, b))


def _row(rows: list[Row], path: str) -> Row | None:
    exact = [r for r in rows if path in r.paths]
    if exact:
        return exact[0]
    for r in rows:
        if any(_match(p, path) for p in r.paths):
            return r
    return None


def check(value, table: str, tables: dict[str, list[Row]], where: str, problems: list[str],
          prefix: str = "") -> None:
    """Read the object ``value`` against ``table``; each fault is added to ``problems``."""
    rows = tables[table]
    if not isinstance(value, dict):
        return
    maps = prefix in json_scenarios.MAPS or any(prefix.endswith("." + m) for m in json_scenarios.MAPS)
    for key, inner in value.items():
        step = "*" if maps else key
        path = f"{prefix}.{step}" if prefix else step
        full = f"{where}.{path}"
        row = _row(rows, path)
        base = _row(rows, "...")
        if row is None and base is not None:     # a table that adds keys to another one
            base.used = True
            row = _row(tables[base.link], path)
        if row is None:
            problems.append(f"undocumented {full}")
            continue
        row.used = True
        kind = json_scenarios.json_type(inner)
        if not row.admits(kind):
            problems.append(f"{full} is {kind}; json.md line {row.line} says {' or '.join(sorted(row.types))}")
        if "any" in row.types:
            continue
        elements = inner if isinstance(inner, list) else [inner]
        for element in elements:
            if row.link is not None:
                check(element, row.link, tables, full + ("[]" if isinstance(inner, list) else ""), problems)
            elif isinstance(inner, list):
                check(element, table, tables, where, problems, path + "[]")
            else:
                check(element, table, tables, where, problems, path)


def run_all(tmp_path) -> tuple[dict[str, list[Row]], list[str]]:
    tables = read_page(PAGE.read_text(encoding="utf-8"))
    problems: list[str] = []
    for name, command, table, argv in json_scenarios.scenarios(tmp_path):
        code, data = json_scenarios.run(command, argv)
        if command == "cells":
            assert code == 0, (name, data)
            continue
        assert isinstance(data, dict), (name, code, data)
        assert table in tables, f"{name}: json.md has no table {{#{table}}}"
        check(data, table, tables, command, problems)
    return tables, problems


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    return run_all(tmp_path_factory.mktemp("json"))


def test_every_key_is_documented_with_its_type(checked):
    _, problems = checked
    faults = sorted(set(problems))
    assert not faults, f"{len(faults)} faults:\n" + "\n".join(faults[:200])


def test_every_documented_key_is_emitted(checked):
    tables, _ = checked
    stale = [f"json.md line {r.line}: {', '.join(r.paths)} ({r.table})" for rows in tables.values()
             for r in rows if not r.used]
    assert not stale, "rows no scenario emits:\n" + "\n".join(stale)


def test_every_table_is_reached(checked):
    tables, _ = checked
    unreached = [a for a, rows in tables.items() if not any(r.used for r in rows)]
    assert not unreached, unreached


def unread_tables(text: str) -> list[int]:
    """The lines of the tables of keys that no anchored heading owns (the reader skips them)."""
    anchor, lines = None, []
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("#"):
            heading = re.match(r"^#+ .*\{#([\w-]+)\}\s*$", line)
            anchor = heading.group(1) if heading else None
        elif line.startswith("| key |") and anchor is None:
            lines.append(number)
    return lines


def test_every_table_of_keys_is_read():
    assert not unread_tables(PAGE.read_text(encoding="utf-8")), "tables under a heading without {#anchor}"
    assert unread_tables("### a {#a}\n\n| key | type | meaning |\n\n### b\n\n| key | type | meaning |\n") == [7]


def test_the_reader_catches_a_missing_key_a_wrong_type_and_a_map():
    page = """
### x {#top}

| key | type | meaning |
|---|---|---|
| `a`, `.b` | number | two numbers |
| `t` | object ([a test](#t)) | a test |
| `counts` | object | runs per level |
| `counts.*` | integer | the runs of a level |

### t {#t}

| key | type | meaning |
|---|---|---|
| `p` | number | the p-value |
"""
    tables = read_page(page)
    problems: list[str] = []
    json_scenarios.MAPS, saved = (*json_scenarios.MAPS, "counts"), json_scenarios.MAPS
    try:
        check({"a": 1, "b": "x", "c": 2, "t": {"p": 0.5, "q": 1}, "counts": {"yes": 3, "no": True}},
              "top", tables, "cmd", problems)
    finally:
        json_scenarios.MAPS = saved
    assert problems == ["cmd.b is string; json.md line 6 says number", "undocumented cmd.c",
                        "undocumented cmd.t.q", "cmd.counts.* is boolean; json.md line 9 says integer"]
