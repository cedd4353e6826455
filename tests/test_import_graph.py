"""Rooms of one idea: no import circle among probestats' modules, no private name used across modules, no
module too long to hold one idea.

The import graph is grimp's (the graph import-linter checks the layers on), imports inside functions
included: a circle through a function's import is still a circle, only deferred. A private name
(``_name``) is one module's own; a module that needs another's makes it public there, or takes the idea
to where it belongs. Each test lists every offence, not the first.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "probestats"

#: the longest a module may be, in lines
MOST_LINES = 1_200
#: modules held to fewer lines, for the ideas they were split along (issue 40)
MOST_LINES_OF = {"probestats/checks/schema.py": 1_000, "probestats/analyses/plan.py": 1_000,
                 "probestats/analyses/plan/*.py": 1_000}


def _sources() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its ``__init__.py``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    assert "probestats.io.read" in found and len(found) > 100
    return found


def strongly_connected(edges: dict[str, list[str]]) -> list[list[str]]:
    """The groups of two or more nodes that each reach every other (Tarjan's algorithm, without recursion).

    >>> strongly_connected({"a": ["b"], "b": ["a", "c"], "c": []})
    [['a', 'b']]
    >>> strongly_connected({"a": ["b"], "b": ["c"], "c": []})
    []
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return sorted(groups)


# What is still left of issue 40's rooms, named exactly: each test fails on anything new, and on an entry
# that has been fixed (so the lists only shrink).
KNOWN_CIRCLES: list = []
KNOWN_PRIVATE: set = set()
KNOWN_LONG: set = set()

def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph("probestats", cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    circles = [c for c in strongly_connected(edges) if c not in KNOWN_CIRCLES]
    assert circles == [], "import circles:\n" + "\n".join("  " + " <-> ".join(c) for c in circles)
    gone = [c for c in KNOWN_CIRCLES if c not in strongly_connected(edges)]
    assert gone == [], f"circles broken since: take them off KNOWN_CIRCLES: {gone}"


def test_the_circle_finder_sees_a_circle_through_a_function_import(tmp_path, monkeypatch):
    # the graph the test above reads counts an import inside a function as an import
    package = tmp_path / "circlepkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from circlepkg.b import g\n")
    (package / "b.py").write_text("def g():\n    from circlepkg.a import g\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("circlepkg", cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert strongly_connected(edges) == [["circlepkg.a", "circlepkg.b"]]


def _module_of(level: int, module: str | None, here: str, is_package: bool) -> str | None:
    """The dotted module a ``from ... import`` names, resolved from ``here`` when relative; None outside probestats."""
    if level:
        base = here.split(".") if is_package else here.split(".")[:-1]
        base = base[:len(base) - (level - 1)]
        return ".".join(base + ([module] if module else []))
    return module if module and (module == "probestats" or module.startswith("probestats.")) else None


def private_uses(source: str, here: str, modules: set[str], is_package: bool = False) -> list[str]:
    """Private names another probestats module gives this one: ``from probestats.x import _y`` (the name is
    the module's own, not a submodule's), and ``x._y`` or ``probestats.x._y`` on a module imported as ``x``.

    >>> code = "from probestats.io import log\\nfrom probestats.io.log import _shape\\nlog._retyped(1)\\n"
    >>> private_uses(code, "probestats.shape.wide", {"probestats.io", "probestats.io.log"})
    ['line 2: from probestats.io.log import _shape', 'line 3: probestats.io.log._retyped']
    """
    tree = ast.parse(source)
    found = []
    aliases: dict[str, str] = {}   # a local name bound to a probestats module
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            origin = _module_of(node.level, node.module, here, is_package)
            if origin is None:
                continue
            for alias in node.names:
                if f"{origin}.{alias.name}" in modules:
                    aliases[alias.asname or alias.name] = f"{origin}.{alias.name}"
                elif alias.name.startswith("_") and not alias.name.startswith("__") and origin != here:
                    found.append((node.lineno, f"from {origin} import {alias.name}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else "probestats"
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")):
            continue
        chain, value = [], node.value
        while isinstance(value, ast.Attribute):
            chain.insert(0, value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id not in aliases:
            continue
        owner = ".".join([aliases[value.id], *chain])
        if owner in modules and owner != here:
            found.append((node.lineno, f"{owner}.{node.attr}"))
    return [f"line {line}: {text}" for line, text in sorted(set(found))]


def test_no_private_name_is_used_across_modules():
    sources = _sources()
    modules = set(sources)
    offences = []
    for name, path in sources.items():
        uses = private_uses(path.read_text(encoding="utf-8"), name, modules, path.name == "__init__.py")
        offences += [f"{path.relative_to(ROOT)}: {use}" for use in uses]
    offences = [o.split(": line ")[0] + ": " + o.split(": ", 2)[-1] for o in offences]
    gone = sorted(KNOWN_PRIVATE - set(offences))
    assert gone == [], f"fixed since: take them off KNOWN_PRIVATE: {gone}"
    offences = [o for o in offences if o not in KNOWN_PRIVATE]
    assert offences == [], f"{len(offences)} private names used across modules:\n" + "\n".join(offences)


def _limit(relative: str) -> int:
    for pattern, most in MOST_LINES_OF.items():
        if Path(relative).match(pattern):
            return most
    return MOST_LINES


def test_no_module_is_too_long_to_hold_one_idea():
    long = []
    for path in _sources().values():
        relative = path.relative_to(ROOT).as_posix()
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > _limit(relative):
            long.append(f"{relative}: {lines:,} lines, more than {_limit(relative):,}")
    gone = sorted(KNOWN_LONG - {entry.split(":")[0] for entry in long})
    assert gone == [], f"short enough since: take them off KNOWN_LONG: {gone}"
    long = [entry for entry in long if entry.split(":")[0] not in KNOWN_LONG]
    assert long == [], "modules too long:\n" + "\n".join(sorted(long))


def test_the_limits_name_the_modules_held_shorter():
    assert _limit("probestats/checks/schema.py") == 1_000
    assert _limit("probestats/analyses/plan/noise.py") == 1_000
    assert _limit("probestats/analyses/plan.py") == 1_000
    assert _limit("probestats/io/read.py") == MOST_LINES
    assert (PACKAGE / "checks" / "schema.py").exists()
    assert (PACKAGE / "analyses" / "plan.py").exists() or (PACKAGE / "analyses" / "plan").is_dir()


#: present/'s rooms (its docstring states the rule) and the rooms each may import
PRESENT_ROOMS = {"words": set(), "plots": {"words"}, "report": {"words", "plots"}, "terminal": {"words"}}
KIND_MARKS = ("_report", "_section", "_sections", "_text")


def test_present_is_laid_out_by_output_kind():
    graph = grimp.build_graph("probestats", cache_dir=None)
    present = sorted(m for m in graph.modules if m.startswith("probestats.present."))
    misplaced, misnamed, upward = [], [], []
    for module in present:
        parts = module.split(".")[2:]
        room = parts[0]
        if room not in PRESENT_ROOMS:
            misplaced.append(module)
            continue
        name = parts[-1]
        if len(parts) > 2 or (len(parts) == 2 and (name.endswith(KIND_MARKS) or name.startswith(("terminal", "plots")))):
            misnamed.append(module)
        for other in graph.find_modules_directly_imported_by(module):
            if other.startswith("probestats.present."):
                target = other.split(".")[2]
                if target != room and target not in PRESENT_ROOMS[room]:
                    upward.append(f"{module} -> {other}")
    assert misplaced == [], f"present modules outside the rooms {sorted(PRESENT_ROOMS)}: {misplaced}"
    assert misnamed == [], f"present modules named by their kind, not their family: {misnamed}"
    assert upward == [], "present rooms importing a room they may not:\n" + "\n".join(upward)


if __name__ == "__main__":   # python tests/test_import_graph.py: the offences, without pytest
    sys.exit(__import__("pytest").main([__file__, "-q", "-p", "no:xdist"]))
