"""Errors and warnings of the analyses and the library calls in the user's language: the same mistake names
the Python parameter in Python and the flag on the command line; in a report, whose settings the command
line takes as ``--set KEY=VALUE``, it names the setting."""

from __future__ import annotations

import sys
from pathlib import Path

import polars as pl
import pytest

import probestats
from tests.engines import analyze_cells
from probestats.cli import main
from probestats.errors import ProbestatsError, cli_spelling, opt

PROBE = "sample_logs/style_probe.csv"
NOISE = "sample_logs/style_noise.csv"
FRAMING = "sample_logs/framing_long.csv"
TARGETS = "sample_logs/framing_targets.csv"
VERDICTS = ["first=[[A]]", "second=[[B]]"]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A judge log judged twice per item and order, a log of three values one item lacks, a cell table."""
    sys.path.insert(0, "tests")
    from judge_factory import Judge, make_judge_log

    folder = tmp_path_factory.mktemp("spelling")
    paths = {"repeated": folder / "repeated.csv", "many": folder / "many.csv", "cells": folder / "cells.csv",
             "out": folder / "out.md"}
    make_judge_log(items=6, judges={"j": Judge(0.8, 0.5)}, seed=1, repetitions=2).write_csv(paths["repeated"])
    pl.DataFrame([{"item": i, "variant": v, "steps": s} for i in (1, 2, 3) for v in "abc" for s in (1, 2)
                  if not (i == 3 and v == "c")]).write_csv(paths["many"])
    assert main(["cells", PROBE, "--metric", "steps", "-o", str(paths["cells"])]) == 0
    return {k: str(v) for k, v in paths.items()}


def _validation(first: str, cli: bool | None = None) -> str:
    # the library points to its function, the command line to its command
    cli = "--" in first if cli is None else cli
    tail = "run probestats validate for the full list" if cli else "probestats.validate lists them all"
    return f"1 validation error: {first} ({tail})"


_DUPLICATE = ("24 rows give a second verdict for the same item and order (first: item q000, order AB); name the "
              "column that tells them apart with {}")
_LACKING = ("items 3 have no 'c' runs; every item needs every value: add the runs, or drop the items (for "
            "example {}), or group values with {}")
_POOLED = ("the topics have no reference target in common, so pooling them would mix directions; add {}, or give "
           "{} with {} naming a target every topic asserts")
_SIMS = ("the design of 100000 items x 20 runs per value holds 4,000,000,000 simulated runs at once ({}; about 32 GB "
         "of memory), more than the limit of 25,000,000; lower {} to 12 or fewer, or plan fewer items or runs")

# name: (Python call, command line, the message in Python, the message on the command line)
CASES = {
    "plan sims": (
        lambda f: probestats.plan(NOISE, metric="steps", items=[100000], runs=[20]),
        lambda f: ["plan", "--noise", NOISE, "--metric", "steps", "--items", "100000", "--runs", "20"],
        _SIMS.format("sims=2000", "sims"), _SIMS.format("--sims 2000", "--sims")),
    "framing targets and by": (
        lambda f: probestats.framing(FRAMING, targets=TARGETS, by=["model"]),
        lambda f: ["framing", FRAMING, "--targets", TARGETS, "--by", "model"],
        _POOLED.format("by='topic'", "toward='TARGET'", "targets='FILE'"),
        _POOLED.format("--by topic", "--toward TARGET", "--targets FILE")),
    "framing toward without targets": (
        lambda f: probestats.framing(FRAMING, toward="x"),
        lambda f: ["framing", FRAMING, "--toward", "x"],
        "toward needs named targets: give targets='FILE' (topic, affirmative, reverse) or an asserts column",
        "--toward needs named targets: give --targets FILE (topic, affirmative, reverse) or an asserts column"),
    "many values lacking a value": (
        lambda f: probestats.analyze(f["many"], metric="steps"),
        lambda f: ["analyze", f["many"], "--metric", "steps"],
        _validation(_LACKING.format('where="item <> \'3\'"', "groups")),
        _validation(_LACKING.format('--where "item <> \'3\'"', "--group"))),
    "by a column numbering the runs": (
        lambda f: probestats.analyze(PROBE, metric="steps", by=["seed"]),
        lambda f: ["analyze", PROBE, "--metric", "steps", "--by", "seed"],
        "by='seed': that column numbers the runs inside each item x value cell, so it cannot split the analysis; "
        "group by a column that is fixed within an item, such as model",
        "--by seed: that column numbers the runs inside each item x value cell, so it cannot split the analysis; "
        "group by a column that is fixed within an item, such as model"),
    "metrics with an empty name": (
        lambda f: probestats.analyze(PROBE, metric="steps,"),
        lambda f: ["analyze", PROBE, "--metric", "steps,"],
        "metric='steps,': an empty metric name; give names separated by commas, such as metric='a,b'",
        "--metric steps,: an empty metric name; give names separated by commas, such as --metric a,b"),
    "cell table of another metric": (
        lambda f: analyze_cells(f["cells"], metric="score"),
        lambda f: ["analyze", f["cells"], "--metric", "score"],
        "metric='score': the cell table {cells} was built for the metric 'steps'; give metric='steps', or build a "
        "table for score",
        "--metric score: the cell table {cells} was built for the metric 'steps'; give --metric steps, or build a "
        "table for score"),
    "cell table without the value": (
        lambda f: analyze_cells(f["cells"], metric="steps", a="nope"),
        lambda f: ["analyze", f["cells"], "--metric", "steps", "--a", "nope"],
        "a='nope': not a value of the cell table (values: formal, casual)",
        "--a nope: not a value of the cell table (values: formal, casual)"),
    "judge repeated verdicts": (
        lambda f: probestats.judge(f["repeated"], order="order", response="reply", verdicts=VERDICTS),
        lambda f: ["judge", f["repeated"], "--order", "order", "--response", "reply", "--verdict", VERDICTS[0],
                   "--verdict", VERDICTS[1]],
        _validation(_DUPLICATE.format("repetition='COL' or by='COL'")),
        _validation(_DUPLICATE.format("--repetition COL or --by COL"))),
}


@pytest.mark.parametrize("case", list(CASES))
def test_python_names_parameters_and_the_command_line_names_flags(case, files, capsys):
    call, argv, in_python, on_cli = CASES[case]
    with pytest.raises(ProbestatsError) as info:
        call(files)
    assert str(info.value) == in_python.format(**files)
    code = main(argv(files))
    out, err = capsys.readouterr()
    assert code == 1 and err == f"Error: {on_cli.format(**files)}\n" and "Traceback" not in out + err


# name: (report's Python call, report's command line, the message in Python, the message on the command line)
REPORT_CASES = {
    "the templates folder": (
        lambda f: probestats.report(PROBE, metric="steps", format="md", templates="no-such-folder"),
        lambda f: ["report", PROBE, "--metric", "steps", "-o", f["out"], "--templates", "no-such-folder"],
        "templates='no-such-folder': not a folder; give the folder that holds your .j2 templates",
        "--templates no-such-folder: not a folder; give the folder that holds your .j2 templates"),
    "the framing targets and by": (
        lambda f: probestats.report(PROBE, metric="steps", format="md", framing_log=FRAMING, targets=TARGETS,
                                    by=["model"]),
        lambda f: ["report", PROBE, "--metric", "steps", "-o", f["out"], "--framing", FRAMING,
                   "--targets", f"{TARGETS}", "--by", "model"],
        _POOLED.format("by='topic'", "toward='TARGET'", "targets='FILE'"),
        _POOLED.format("--by topic", "--toward TARGET", "--targets FILE")),
    "the judge's repeated verdicts": (
        lambda f: probestats.report(f["repeated"], format="md",
                                    judge={"order": "order", "response": "reply", "verdicts": VERDICTS}),
        lambda f: ["report", f["repeated"], "-o", f["out"], "--order", "order",
                   "--response", "reply", "--verdict", f"{VERDICTS[0]}",
                   "--verdict", f"{VERDICTS[1]}"],
        _validation(_DUPLICATE.format("repetition='COL' or by='COL'")),
        _validation(_DUPLICATE.format("--repetition COL or --by COL"))),
    "the judge's verdict rules": (
        lambda f: probestats.report(f["repeated"], format="md", judge={"order": "order", "response": "reply"}),
        lambda f: ["report", f["repeated"], "-o", f["out"], "--order", "order",
                   "--response", "reply"],
        "verdicts: give the rules that read a reply, for example verdicts=['first=[[A]]', 'second=[[B]]'] "
        "(or choice='COL' when the log holds the slot chosen)",
        "--verdict: give the rules that read a reply, for example --verdict 'first=[[A]]' "
        "--verdict 'second=[[B]]' (or --choice COL when the log holds the slot chosen)"),
    "an output that is an input": (
        lambda f: probestats.report(PROBE, metric="steps", output=PROBE),
        None,
        f"output={PROBE!r} is log={PROBE!r}, which this command reads; write the output to another file",
        None),
}


@pytest.mark.parametrize("case", list(REPORT_CASES))
def test_a_report_names_its_settings_as_the_command_line_takes_them(case, files, capsys):
    call, argv, in_python, on_cli = REPORT_CASES[case]
    with pytest.raises(ProbestatsError) as info:
        call(files)
    assert str(info.value) == in_python
    if argv is not None:
        code = main(argv(files))
        out, err = capsys.readouterr()
        assert code == 1 and err == f"Error: {on_cli}\n" and "Traceback" not in out + err


def test_warnings_name_the_plan_options_as_the_caller_gives_them(capsys):
    """A warning is worded when it is found: in Python with parameters, on the command line with flags."""
    plan = probestats.plan(NOISE, metric="steps", items=[6], runs=[5], sims=20)
    assessed = [p.message for p in plan.problems if p.code == "heterogeneity_assumed"]
    assert len(assessed) == 1 and assessed[0].endswith("; give pilot='LOG' or heterogeneity=TAU")
    assert main(["plan", "--noise", NOISE, "--metric", "steps", "--items", "6", "--runs", "5", "--sims", "20"]) == 0
    out = capsys.readouterr().out
    assert "; give --pilot LOG or --heterogeneity TAU" in out and "heterogeneity=TAU" not in out


def test_report_settings_are_the_flags_of_every_command():
    """A report's analysis options are the flags the analyses take; Python names them by their keywords."""
    with cli_spelling():
        assert (opt("targets", "t.csv"), opt("order"), opt("scale", "1:5"), opt("by", "m")) == (
            "--targets t.csv", "--order", "--scale 1:5", "--by m")
    assert opt("targets", "t.csv") == "targets='t.csv'"


def test_a_report_written_over_its_framing_targets_names_the_setting(tmp_path, capsys):
    targets = tmp_path / "targets.md"
    targets.write_bytes(Path(TARGETS).read_bytes())
    with pytest.raises(ProbestatsError) as info:
        probestats.report(PROBE, metric="steps", framing_log=FRAMING, targets=targets, output=targets)
    assert str(info.value) == (f"output={str(targets)!r} is targets={str(targets)!r}, which this command reads; "
                               "write the output to another file")
    code = main(["report", PROBE, "--metric", "steps", "--framing", FRAMING, "--targets", f"{targets}",
                 "-o", str(targets)])
    assert code == 1 and capsys.readouterr().err == (
        f"Error: -o {targets} is --targets {targets}, which this command reads; write the output to "
        "another file\n")
    assert targets.read_bytes() == Path(TARGETS).read_bytes()
