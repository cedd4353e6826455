"""Library code names options in the caller's spelling: no flag is written by hand below the command line.

A message built below ``cli.py`` names an option through :func:`probestats.errors.opt` (``scale='x'`` in
Python, ``--scale x`` on the command line) or gives an example through :func:`probestats.errors.either`,
whose second argument is the command line's spelling. This test reads every module's source and fails on
a string literal that holds a ``--flag`` anywhere else (docstrings excepted: they describe both interfaces).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "probestats"
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
#: a one-letter flag (``-o FILE``) is a flag as well
SHORT = re.compile(r"(?<![\w-])-[a-zA-Z](?=[\s'\"]|$)")
#: a command named to a library user is the same defect: Python users call functions
COMMAND = re.compile(r"\bprobestats (?:validate|analyze|report|plan|compare|framing|judge|describe|cells|sql|serve)\b")
#: where a flag is the point: the one table of flags, output only the terminal shows, another tool's own
#: flag, and the report job's names of its cell-table inputs (keys of its ``cells`` parameter)
ALLOWED = {"errors.py", "present/terminal/render.py", "present/terminal/framing.py", "present/words/effects.py",
           "io/promptfoo.py", "jobs/report.py",
           "parameters.py"}   # the registry: where each flag is declared, once
#: the files above whose messages still must not write a one-letter flag by hand
SHORT_CHECKED = {"jobs/report.py"}


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _command_line_halves(tree: ast.AST) -> set[int]:
    """The ids of every node inside the second argument of an ``either(python, cli)`` call."""
    ids = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "either"
                and len(node.args) == 2):
            ids |= {id(n) for n in ast.walk(node.args[1])}
    return ids


def hand_written_flags(source: str) -> list[tuple[int, str]]:
    """(line, flag) of each flag in a string literal outside docstrings and the command-line half of either().

    >>> hand_written_flags('def f():\\n    "Give --noise."\\n    return either("noise=", "--noise")\\n')
    []
    >>> hand_written_flags('raise OptionError("add --noise LOG")')
    [(1, '--noise')]
    >>> hand_written_flags('raise ReadError("run probestats validate")')
    [(1, 'probestats validate')]
    >>> hand_written_flags('raise OptionError(f"-o {path}: is a folder")'), hand_written_flags('x = "a - b, -1"')
    ([(1, '-o')], [])
    """
    tree = ast.parse(source)
    skip = _docstrings(tree) | _command_line_halves(tree)
    return [(node.lineno, flag) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
            for flag in FLAG.findall(node.value) + SHORT.findall(node.value) + COMMAND.findall(node.value)]


MODULES = sorted(p for p in ROOT.rglob("*.py")
                 if p.name != "cli.py" and "serve" not in p.relative_to(ROOT).parts
                 and p.relative_to(ROOT).as_posix() not in ALLOWED)
SHORT_MODULES = sorted(ROOT / name for name in SHORT_CHECKED)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_flag_is_written_by_hand_below_the_command_line(path):
    found = hand_written_flags(path.read_text(encoding="utf-8"))
    assert not found, f"{path.name}: name these with opt() or either(): {found}"


def test_the_check_finds_a_flag_in_an_f_string_and_beside_either():
    source = 'x = f"use --by {col}"\ny = either("by=[C]", "--by C") + " or --metric"\n'
    assert hand_written_flags(source) == [(1, "--by"), (2, "--metric")]


@pytest.mark.parametrize("path", SHORT_MODULES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_one_letter_flag_is_written_by_hand_in_the_allowed_files(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _docstrings(tree) | _command_line_halves(tree)
    found = [(node.lineno, flag) for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
             for flag in SHORT.findall(node.value)]
    assert not found, f"{path.name}: name these with opt() or either(): {found}"


def test_a_report_path_is_named_as_each_interface_spells_it(tmp_path):
    from probestats.errors import OptionError, cli_spelling
    from probestats.jobs.report import report_format

    with pytest.raises(OptionError, match=r"^output='r\.txt': unknown report format"):
        report_format("r.txt")
    with cli_spelling(), pytest.raises(OptionError, match=r"^-o r\.txt: unknown report format"):
        report_format("r.txt")
