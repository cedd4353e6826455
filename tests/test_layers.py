"""The layers hold: the import contract, no printing below present/, no presentation libraries below it."""

from __future__ import annotations

import ast
import contextlib
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "probestats"
LOWER = ("io", "shape", "checks", "stats", "analyses")  # below present/: no presentation, no printing
PRESENTATION = ("click", "rich", "jinja2", "matplotlib")


def modules(*layers: str) -> list[Path]:
    found = sorted(p for layer in layers for p in (PACKAGE / layer).rglob("*.py"))
    assert found, f"no modules under {layers}"
    return found


def test_the_import_contracts_hold():
    # lint-imports from the environment running the tests (next to its python), on this source tree
    script = Path(sys.executable).parent / ("lint-imports.exe" if os.name == "nt" else "lint-imports")
    assert script.exists(), "import-linter is not installed; pip install -e .[test]"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([str(script), "--no-cache"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout


def test_the_layers_contract_names_every_subpackage():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    named = {name.strip() for layer in layers for name in layer.split("|")}
    subpackages = {f"probestats.{p.parent.name}" for p in PACKAGE.glob("*/__init__.py")}
    assert subpackages - {"probestats.report_templates"} <= named

def test_the_wheel_lists_every_package():
    # the package list in pyproject.toml is explicit (the templates are mapped in from outside the source
    # tree), so a new subpackage missing from it installs without its modules: an editable install hides
    # that and the installed command fails with "No module named ..."
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")}
    assert found - listed == set()



def _imported(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            names.add(str(node.args[0].value).split(".")[0])
    return names


@pytest.mark.parametrize("path", modules(*LOWER), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_presentation_library_below_present(path):
    # also imports inside functions, which run only when called
    found = _imported(ast.parse(path.read_text(encoding="utf-8"))) & set(PRESENTATION)
    assert not found, f"{path.relative_to(ROOT)} imports {', '.join(sorted(found))}"


def _writes_to_stdout(tree: ast.AST) -> list[str]:
    """Calls and names that print: print(), sys.stdout, click.echo, a console's print."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id in ("print", "pprint"):
                found.append(f"{f.id}() at line {node.lineno}")
            elif isinstance(f, ast.Attribute) and f.attr in ("echo", "secho", "print", "print_json", "log",
                                                            "rule", "pprint"):
                owner = ast.unparse(f.value)
                if f.attr not in ("log",) or "console" in owner.lower():
                    found.append(f"{owner}.{f.attr}() at line {node.lineno}")
        elif isinstance(node, ast.Attribute) and node.attr in ("stdout", "__stdout__") and \
                isinstance(node.value, ast.Name) and node.value.id == "sys":
            found.append(f"sys.{node.attr} at line {node.lineno}")
    return found


@pytest.mark.parametrize("path", modules(*LOWER), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_function_below_present_writes_to_stdout(path):
    found = _writes_to_stdout(ast.parse(path.read_text(encoding="utf-8")))
    assert not found, f"{path.relative_to(ROOT)} writes to standard output: {'; '.join(found)}"


def test_the_scan_finds_printing():
    # the scan above can fail: each of these is caught
    for source in ("print('x')", "import sys\nsys.stdout.write('x')", "click.echo('x')", "out.print(table)",
                   "def f(console):\n    console.print('x')"):
        assert _writes_to_stdout(ast.parse(source)), source
    assert not _writes_to_stdout(ast.parse("text = f'{x}'\nlogger = None"))
    assert _imported(ast.parse("def f():\n    from rich.table import Table")) == {"rich"}


def test_the_analyses_write_nothing_when_run():
    # every analysis, run for real, with standard output (and error) captured
    import polars as pl

    import probestats
    from probestats.analyses.compare import compare_runs
    from probestats import analyze_framing
    from probestats.analyses.plan import NoiseModel, Sizing, plan_probe
    from tests.factories import make_log
    from tests.framing_factory import make_framing_log

    probe = make_log(items=6, runs=4, gap=1.0, seed=1)
    three = pl.concat([probe, probe.filter(pl.col("variant") == "casual").with_columns(pl.lit("plain").alias("variant"))])
    from tests.test_factors import two_by_two

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        results = [
            probestats.analyze(probe, metric="steps", noise=make_log(items=6, runs=4, gap=0.0, seed=2)),
            probestats.analyze(three, metric="steps", tests=probestats.Tests(n_resamples=200)),
            probestats.analyze(three, metric="steps", reference="plain", tests=probestats.Tests(n_resamples=200)),
            probestats.analyze(two_by_two(items=6, seed=1), metric="steps", factor=["style", "name"]),
            probestats.analyze(probe, metric="steps", a="formal", b="casual", scale="0:20"),
            probestats.analyze(probe, metric="steps", probe=probestats.Probe(where="item <> '0'",
                                                                          derive=("twice = steps * 2",))),
            compare_runs(probe, probe, metric="steps"),
            analyze_framing(make_framing_log(seed=3)),
            plan_probe(NoiseModel.stated(1.0, "steps"), items=[6], runs=[2], gap=1.0, sizing=Sizing(sims=50)),
            probestats.validate(probe, metric="steps"),
        ]
    assert out.getvalue() == "" and err.getvalue() == ""
    assert all(hasattr(r, "to_dict") for r in results)
