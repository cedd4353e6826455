"""The log is read and shaped in one place, the jobs: the engines in ``probestats.analyses`` take it shaped.

An ast check over every module of ``probestats/analyses``: no import of ``probestats.io.read`` (or of
``read_log`` from ``probestats.io``), no call of ``read_log`` and no ``.apply(...)`` (a Probe shaping a log). The
modules that still read a log of their own are listed with what they read; the list only shrinks (a module
that stops reading must leave it, so it stays true), and the job's shaping is checked against the engine fed
by hand.
"""

from __future__ import annotations

import ast
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
ANALYSES = ROOT / "probestats" / "analyses"

#: modules of analyses/ that still read a log themselves, and what: to be moved to the jobs, never added to
STILL_READING = {
    "probestats/analyses/paired.py": "rows given directly to the paired engine (doctests of plan's tables call it so)",
    "probestats/analyses/judge.py": "the public analyze_order's and analyze_scored's log",
    "probestats/analyses/framing.py": "the framing engine's log",
    "probestats/analyses/framing_input.py": "a targets file",
    "probestats/analyses/hand_labels.py": "a file of hand labels",
    "probestats/analyses/plan/noise.py": "a pilot log",
}


def _reads(path: Path) -> list[str]:
    """Where the module at ``path`` reads or shapes a log: ``line: what``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module == "probestats.io.read" or (module == "probestats.io"
                                                  and any(a.name == "read_log" for a in node.names)):
                found.append(f"{node.lineno}: from {module} import ...")
        elif isinstance(node, ast.Import) and any(a.name == "probestats.io.read" for a in node.names):
            found.append(f"{node.lineno}: import probestats.io.read")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "read_log":
                found.append(f"{node.lineno}: read_log(...)")
            elif name == "apply" and isinstance(func, ast.Attribute):
                found.append(f"{node.lineno}: .apply(...)")
    return found


def _modules() -> dict[str, list[str]]:
    return {path.relative_to(ROOT).as_posix(): _reads(path) for path in sorted(ANALYSES.rglob("*.py"))}


def test_the_engines_read_and_shape_no_log():
    reading = {name: where for name, where in _modules().items() if where}
    new = {name: where for name, where in reading.items() if name not in STILL_READING}
    assert not new, f"modules of analyses/ that read or shape a log (the jobs do it: shape_log): {new}"
    assert "probestats/analyses/dispatch.py" not in reading


def test_the_list_of_modules_still_reading_is_true():
    reading = {name for name, where in _modules().items() if where}
    stopped = sorted(set(STILL_READING) - reading)
    assert not stopped, f"these modules read no log any more: drop them from STILL_READING: {stopped}"


def test_the_check_sees_a_read_and_a_shaping(tmp_path):
    source = tmp_path / "engine.py"
    source.write_text("from probestats.io.read import read_log\n\ndef f(log, probe):\n"
                      "    return probe.apply(read_log(log))\n", encoding="utf-8")
    assert [w.split(": ")[1] for w in _reads(source)] == ["from probestats.io.read import ...", ".apply(...)",
                                                         "read_log(...)"]


def test_the_job_shapes_what_the_engine_takes():
    """``probestats.analyze`` with a ``where`` equals the engine given the rows the condition keeps, filtered by
    hand (polars), not by the probe."""
    import probestats
    from probestats.analyses.dispatch import analyze_shaped as engine
    from probestats.analyses.question import Question
    from probestats.io.read import read_log
    from probestats.shape.probe import Probe

    path = ROOT / "sample_logs" / "style_probe.csv"
    by_job = probestats.analyze(str(path), metric="steps", probe=Probe(where="seed <> 2"))
    kept = pl.read_csv(path).filter(pl.col("seed") != 2)
    assert kept.height < pl.read_csv(path).height
    by_hand = engine(read_log(kept.to_dicts(), metric="steps"), Question("steps"), Probe(), None)
    assert by_job.main.n_items == by_hand.main.n_items
    assert by_job.main.sign_flip.pvalue == by_hand.main.sign_flip.pvalue
    assert by_job.main.average_gap == by_hand.main.average_gap
    whole = probestats.analyze(str(path), metric="steps")   # the condition changed what is analyzed
    assert whole.main.average_gap != by_job.main.average_gap
