"""Every command is one library call, and writes what that call returns, rendered.

For each command and the sample logs, the command's terminal text, its ``--json`` and its ``-o`` files
(Markdown, HTML, JSON, a cell table) are byte for byte the rendering of ``probestats.<command>(...)``'s
result (or the file the call writes). And every public function lists at most :data:`WIDEST` parameters,
the wider ones listed exactly in :data:`WIDER`, so the list can only shrink.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import polars as pl
import pytest

import probestats
from probestats.cli import main
from probestats.errors import cli_spelling
from probestats.present.words.sanitize import json_text
from probestats.present.terminal.render import render_terminal
from probestats.present.terminal.tables import make_console
from probestats.result import document, dumps
from tests.cli_run import without_progress

PROBE = "sample_logs/style_probe.csv"
JSONL = "sample_logs/style_probe.jsonl"
NOISE = "sample_logs/style_noise.csv"
FRAMING = "sample_logs/framing_long.csv"
TARGETS = "sample_logs/framing_targets.csv"
UNMATCHED = "sample_logs/broken/unmatched_item.csv"


def _run(capsys, *argv, code=0):
    """The command's standard output (its exit code checked) and standard error."""
    got = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert got == code, err
    return out, err


def _command(capsys, *argv, code=0) -> str:
    return _run(capsys, *argv, code=code)[0]


def _terminal(capsys, result, printer=render_terminal, **options) -> str:
    capsys.readouterr()
    printer(result, make_console(), **options)
    return capsys.readouterr().out


def _spelled(call, *args, **options):
    """The library call's result as the command's messages spell it: its problems and warnings name their
    fix in the caller's spelling, flags on the command line (the Python spelling is checked on its own)."""
    with cli_spelling():
        return call(*args, **options)


def _json(result) -> str:
    return json_text(dumps(document(result))) + "\n"


@pytest.fixture(scope="module")
def cell_files(tmp_path_factory):
    """The probe's cell table and the noise log's (with its runs), written by ``probestats cells``."""
    folder = tmp_path_factory.mktemp("cells")
    probe, noise = folder / "cells.parquet", folder / "noise_cells.jsonl"
    assert main(["cells", PROBE, "--metric", "steps", "-o", str(probe)]) == 0
    assert main(["cells", NOISE, "--metric", "steps", "--keep-runs", "-o", str(noise)]) == 0
    return probe, noise


@pytest.fixture(scope="module")
def two_files(tmp_path_factory):
    """The probe log split in two files by item: a log of several files, read as one."""
    folder = tmp_path_factory.mktemp("two")
    frame = pl.read_csv(PROBE, infer_schema_length=0)
    first, second = folder / "first.csv", folder / "second.csv"
    frame.filter(pl.col("item").cast(pl.Int64) < 4).write_csv(first)
    frame.filter(pl.col("item").cast(pl.Int64) >= 4).write_csv(second)
    return [str(first), str(second)]


# ---------------------------------------------------------------- validate


@pytest.mark.parametrize("options, argv", [
    ({}, []),
    ({"a": "casual", "b": "formal", "by": ["model"]}, ["--a", "casual", "--b", "formal", "--by", "model"]),
    ({"probe": probestats.Probe(where="item <> '3'")}, ["--where", "item <> '3'"]),
], ids=["plain", "chosen", "shaped"])
def test_validate_is_the_library_call(capsys, options, argv):
    checked = _spelled(probestats.validate, PROBE, metric="steps", **options)
    assert type(checked).__name__ == "Checked" and checked.ok
    command = ["validate", PROBE, "--metric", "steps", *argv]
    assert _command(capsys, *command, "--json") == _json(checked)
    chosen = bool(options.get("a") or options.get("b"))
    assert _command(capsys, *command) == _terminal(capsys, checked, chosen=chosen, metric_given=True)


def test_validate_of_a_broken_log_is_the_library_call(capsys):
    python = probestats.validate(UNMATCHED, metric="steps")
    assert not python.ok and "unmatched_item" in {p.code for p in python.errors}
    # the problems name their fix in the caller's spelling: a parameter in Python, a flag on the command line
    assert "complete=True" in _json(python) and "--complete" not in _json(python)
    with cli_spelling():
        checked = probestats.validate(UNMATCHED, metric="steps")
    assert _json(checked) == _json(python).replace("complete=True", "--complete")
    out, err = _run(capsys, "validate", UNMATCHED, "--metric", "steps", "--json", code=1)
    assert out == _json(checked)
    assert err.startswith(f"Error: {len(checked.errors)} validation error")
    assert _command(capsys, "validate", UNMATCHED, "--metric", "steps", code=1) == _terminal(
        capsys, checked, chosen=False, metric_given=True)


def test_validate_reads_several_files_as_the_command_does(capsys, two_files):
    checked = _spelled(probestats.validate, two_files, metric="steps")
    assert checked.ok and checked.frame.height == pl.read_csv(PROBE).height
    assert _command(capsys, "validate", *two_files, "--metric", "steps", "--json") == _json(checked)


# ---------------------------------------------------------------- analyze


@pytest.mark.parametrize("options, argv", [
    ({"noise": NOISE}, ["--noise", NOISE]),
    ({"a": "casual", "b": "formal", "row_level": True}, ["--a", "casual", "--b", "formal", "--row-level"]),
    ({"per_item": True}, ["--per-item"]),
    ({"row_level": True, "per_item": True, "by": ["model"]}, ["--row-level", "--per-item", "--by", "model"]),
    ({"tests": probestats.Tests(interval="sign-flip"), "probe": probestats.Probe(derive=("long = steps > 5",))},
     ["--interval", "sign-flip", "--derive", "long = steps > 5"]),
], ids=["noise", "row-level", "per-item", "both-by", "shaped"])
def test_analyze_is_the_library_call(capsys, options, argv):
    result = _spelled(probestats.analyze, PROBE, metric="steps", **options)
    assert type(result).__name__ == "Analysis"
    if options.get("row_level"):
        assert result.row_level is not None
    if options.get("per_item"):
        assert result.row_tests
    command = ["analyze", PROBE, "--metric", "steps", *argv]
    python = _json(probestats.analyze(PROBE, metric="steps", **options))
    assert "--" not in python.replace("---", "")   # in Python, a warning's fix names parameters
    assert _command(capsys, *command, "--json") == _json(result)
    assert _command(capsys, *command) == _terminal(capsys, result)


def test_analyze_of_a_cell_table_is_the_library_call(capsys, cell_files):
    cells, noise_cells = cell_files
    result = _spelled(probestats.analyze, cells, metric="steps", noise=noise_cells)
    rows = _spelled(probestats.analyze, PROBE, metric="steps", noise=NOISE)
    # the table holds what the analysis needs: the same gaps and test as the log's rows (an independent path)
    assert result.main.sign_flip.pvalue == rows.main.sign_flip.pvalue
    assert result.main.average_gap == rows.main.average_gap
    command = ["analyze", cells, "--metric", "steps", "--noise", noise_cells]
    assert _command(capsys, *command, "--json") == _json(result)
    assert _command(capsys, *command) == _terminal(capsys, result)
    # a list of one path is the command's LOG as it is given
    assert _json(probestats.analyze([str(cells)], metric="steps")) == _command(
        capsys, "analyze", cells, "--metric", "steps", "--json")


def test_analyze_reads_several_files_as_the_command_does(capsys, two_files):
    result = _spelled(probestats.analyze, two_files, metric="steps")
    whole = _spelled(probestats.analyze, PROBE, metric="steps")
    assert result.main.n_items == whole.main.n_items == 8
    assert result.main.sign_flip.pvalue == whole.main.sign_flip.pvalue
    assert _command(capsys, "analyze", *two_files, "--metric", "steps", "--json") == _json(result)


@pytest.mark.parametrize("options, argv, python, cli", [
    ({"tests": probestats.Tests(correction="bh")}, ["--correction", "bh"],
     "correction='bh' corrects across by groups", "--correction bh corrects across --by groups"),
    ({"row_level": True, "validation": "sample_logs/style_hand.csv"},
     ["--row-level", "--validation", "sample_logs/style_hand.csv"],
     "validation cannot go with row_level or per_item", "--validation cannot go with --row-level or --per-item"),
    ({"metric": "steps,seed", "per_item": True}, ["--per-item"],
     "per_item takes one metric", "--per-item takes one --metric"),
], ids=["lone-correction", "validation-row-level", "several-metrics"])
def test_analyze_refuses_in_the_callers_spelling(capsys, options, argv, python, cli):
    options = {"metric": "steps", **options}
    with pytest.raises(probestats.ProbestatsError) as refused:
        probestats.analyze(PROBE, **options)
    assert str(refused.value).startswith(python)
    assert "--" not in str(refused.value) and "probestats " not in str(refused.value)
    _, err = _run(capsys, "analyze", PROBE, "--metric", options["metric"], *argv, code=1)
    assert err.startswith(f"Error: {cli}")


@pytest.mark.parametrize("options, argv, python, cli", [
    ({"probe": probestats.Probe(where="model = 'm'")}, ["--where", "model = 'm'"],
     "probe's where cannot be used with a cell table", "--where cannot be used with a cell table"),
    ({"row_level": True}, ["--row-level"],
     "row_level cannot be used with a cell table", "--row-level cannot be used with a cell table"),
    ({"noise": NOISE}, ["--noise", NOISE],
     f"noise='{NOISE}': with a cell table as log", f"--noise {NOISE}: with a cell table as LOG"),
    ({"control": "x"}, ["--control", "x"],
     "control='x' needs the runs of the log's values", "--control x needs the runs of the log's values"),
], ids=["where", "row-level", "noise-log", "control"])
def test_a_cell_table_refuses_in_the_callers_spelling(capsys, cell_files, options, argv, python, cli):
    cells = cell_files[0]
    with pytest.raises(probestats.ProbestatsError) as refused:
        probestats.analyze(cells, metric="steps", **options)
    assert str(refused.value).startswith(python)
    assert "--" not in str(refused.value) and "probestats cells" not in str(refused.value)
    _, err = _run(capsys, "analyze", cells, "--metric", "steps", *argv, code=1)
    assert err.startswith(f"Error: {cli}")


# ---------------------------------------------------------------- cells


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
@pytest.mark.parametrize("log, argv, options", [
    (PROBE, [], {}),
    (NOISE, ["--keep-runs", "--by", "model"], {"keep_runs": True, "by": ["model"]}),
], ids=["probe", "noise-runs"])
def test_cells_is_the_library_call(capsys, tmp_path, suffix, log, argv, options):
    cli_file, lib_file = tmp_path / f"cli{suffix}", tmp_path / f"lib{suffix}"
    out, err = _run(capsys, "cells", log, "--metric", "steps", *argv, "-o", cli_file)
    built = probestats.cells(log, metric="steps", output=lib_file, **options)
    assert cli_file.read_bytes() == lib_file.read_bytes()
    assert without_progress(err) == f"{built.table.height} cells written to {cli_file}\n"
    # the table returned is the table written (read back independently of the writer)
    reader = {".parquet": pl.read_parquet, ".csv": pl.read_csv, ".jsonl": pl.read_ndjson}[suffix]
    back = reader(lib_file)
    assert back.height == built.table.height == pl.read_csv(log).select("item", "variant").n_unique() * (
        pl.read_csv(log)["model"].n_unique() if "by" in options else 1)
    assert back["n"].sum() == pl.read_csv(log).height
    if options.get("keep_runs"):
        assert "runs_units" in back.columns
    # what the command prints of the log's problems is the library's checked problems, rendered
    from probestats.present.terminal.render import print_problems

    printed = _terminal(capsys, built.checked.problems, lambda p, c: print_problems(p, built.checked.log.source, c))
    assert out == printed


def test_cells_refuses_a_suffix_in_the_callers_spelling(capsys, tmp_path):
    with pytest.raises(probestats.ProbestatsError, match=r"^output='.*cells\.txt': write the cell table as "):
        probestats.cells(PROBE, metric="steps", output=tmp_path / "cells.txt")
    _, err = _run(capsys, "cells", PROBE, "--metric", "steps", "-o", tmp_path / "cells.txt", code=1)
    assert err.startswith(f"Error: -o {tmp_path / 'cells.txt'}: write the cell table as ")
    assert not (tmp_path / "cells.txt").exists()


# ---------------------------------------------------------------- sql


@pytest.mark.parametrize("options, argv", [
    ({}, []),
    ({"dialect": "spark", "by": ["model"], "order_column": "run_id", "keep_runs": True, "with_time": True,
      "keep_settings": ["model"]},
     ["--dialect", "spark", "--by", "model", "--run-order", "run_id", "--keep-runs", "--time", "--keep-setting", "model"]),
    ({"no_seed": True, "places": 3, "where": "x > 1", "derive": ["y = x + 1"], "columns": {"item": "q"}},
     ["--no-seed", "--places", "3", "--where", "x > 1", "--derive", "y = x + 1", "--column", "item=q"]),
], ids=["plain", "spark", "shaped"])
def test_sql_is_the_library_call(capsys, options, argv):
    out = _command(capsys, "sql", "--table", "logs", "--metric", "steps", *argv)
    with cli_spelling():   # the text names the next step as the caller takes it
        assert out == probestats.sql(table="logs", metric="steps", **options)
    python = probestats.sql(table="logs", metric="steps", **options)
    assert "-- probestats.analyze(FILE, metric='steps')" in python
    assert python.replace("probestats.analyze(FILE, metric='steps')", "probestats analyze FILE --metric steps") == out


def test_sql_refuses_in_the_callers_spelling(capsys):
    with pytest.raises(probestats.ProbestatsError, match=r"^places=12: give 0 to 9 decimal places"):
        probestats.sql(table="logs", metric="steps", places=12)
    with pytest.raises(probestats.ProbestatsError, match=r"^table='': not a table name"):
        probestats.sql(table="", metric="steps")
    _, err = _run(capsys, "sql", "--table", "", "--metric", "steps", code=1)
    assert err.startswith("Error: --table '': not a table name")


# ---------------------------------------------------------------- report, describe, plan and the others


@pytest.mark.parametrize("suffix", [".md", ".html", ".json"])
def test_report_writes_what_the_command_writes(capsys, tmp_path, suffix):
    (tmp_path / "cli").mkdir()
    (tmp_path / "lib").mkdir()
    cli_file, lib_file = tmp_path / "cli" / f"report{suffix}", tmp_path / "lib" / f"report{suffix}"
    _run(capsys, "report", PROBE, "--metric", "steps", "--noise", NOISE, "-o", cli_file)
    _spelled(probestats.report, PROBE, metric="steps", noise=NOISE, output=lib_file)
    assert cli_file.read_bytes() == lib_file.read_bytes()
    cli_images = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*.png"))
    lib_images = sorted(p.relative_to(tmp_path / "lib") for p in (tmp_path / "lib").rglob("*.png"))
    assert cli_images == lib_images
    assert all((tmp_path / "cli" / p).read_bytes() == (tmp_path / "lib" / p).read_bytes() for p in cli_images)


def test_report_of_a_cell_table_writes_what_the_command_writes(capsys, tmp_path, cell_files):
    cells = cell_files[0]
    _run(capsys, "report", cells, "--metric", "steps", "-o", tmp_path / "cli.json")
    _spelled(probestats.report, cells, metric="steps", output=tmp_path / "lib.json")
    assert (tmp_path / "cli.json").read_bytes() == (tmp_path / "lib.json").read_bytes()


def test_describe_is_the_library_call(capsys):
    from probestats.present.terminal.describe import print_description

    result = _spelled(probestats.describe, PROBE, metric="steps", bins="0,4,6,12", by=["model"])
    argv = ["describe", PROBE, "--metric", "steps", "--bins", "0,4,6,12", "--by", "model"]
    assert _command(capsys, *argv, "--json") == _json(result)
    assert _command(capsys, *argv) == _terminal(capsys, result, print_description)


def test_framing_is_the_library_call(capsys):
    result = _spelled(probestats.framing, FRAMING, targets=TARGETS)
    argv = ["framing", FRAMING, "--targets", TARGETS]
    assert _command(capsys, *argv, "--json") == _json(result)
    assert _command(capsys, *argv) == _terminal(capsys, result)


def test_compare_is_the_library_call(capsys, tmp_path, cell_files):
    result = _spelled(probestats.compare, PROBE, JSONL, metric="steps", a="casual", b="formal")
    argv = ["compare", PROBE, JSONL, "--metric", "steps", "--a", "casual", "--b", "formal"]
    assert _command(capsys, *argv, "--json") == _json(result)
    assert _command(capsys, *argv) == _terminal(capsys, result)
    cells = cell_files[0]
    both = _spelled(probestats.compare, cells, cells, metric="steps", cells=True)
    assert _command(capsys, "compare", cells, cells, "--metric", "steps", "--json") == _json(both)


def test_plan_is_the_library_call(capsys, cell_files):
    options = dict(items=[8], runs=[5], sims=200, mdg_range=False)
    argv = ["--metric", "steps", "--items", "8", "--runs", "5", "--sims", "200", "--no-mdg-range"]
    result = _spelled(probestats.plan, NOISE, metric="steps", **options)
    assert _command(capsys, "plan", "--noise", NOISE, *argv, "--json") == _json(result)
    assert _command(capsys, "plan", "--noise", NOISE, *argv) == _terminal(capsys, result)
    from_cells = _spelled(probestats.plan, cell_files[1], metric="steps", **options)
    assert _command(capsys, "plan", "--noise", cell_files[1], *argv, "--json") == _json(from_cells)


def test_judge_is_the_library_call(capsys, tmp_path):
    import sys

    sys.path.insert(0, "tests")
    from judge_factory import Judge, make_judge_log
    from probestats.present.terminal.judge import print_judge

    path = tmp_path / "judge.csv"
    make_judge_log(items=8, judges={"j1": Judge(0.7, 0.8)}, seed=2).write_csv(path)
    verdicts = ["first=[[A]]", "second=[[B]]", "tie=[[C]]"]
    result = _spelled(probestats.judge, str(path), order="order", response="reply", verdicts=verdicts)
    argv = ["judge", path, "--order", "order", "--response", "reply", *(x for v in verdicts for x in ("--verdict", v))]
    assert _command(capsys, *argv, "--json") == _json(result)
    assert _command(capsys, *argv) == _terminal(capsys, result, print_judge)


def test_serve_is_the_library_call_of_its_command():
    from probestats.cli import cli

    command = {p.name for p in cli.commands["serve"].params if p.name not in ("help", "help_all")}
    assert command <= set(inspect.signature(probestats.serve).parameters)
    # reached as the package too (imported before the top-level name), the call is the same function's
    import probestats.serve as package

    assert callable(package) and inspect.signature(package) == inspect.signature(probestats.serve)
    with pytest.raises(probestats.ProbestatsError, match=r"^port=70000: expected a port from 0 to 65535"):
        package(port=70000)


def test_every_command_has_its_library_call():
    from probestats.cli import cli

    assert set(cli.commands) <= set(probestats.__all__)
    for name in cli.commands:
        assert callable(getattr(probestats, name)), name


# ---------------------------------------------------------------- how wide a public function is

#: the most parameters a public function lists (its log or noise log counted), besides how the log is read and
#: shaped (``probe``), the design facts (``design``) and the read options
WIDEST = 16
#: the public functions wider than that today, and how many parameters each lists: a function that
#: grows fails, and so does one that shrinks (then lower its count here, or delete its entry). analyze's
#: 17 are the log and sixteen; plan's 18 add where the power plot is written (plan_probe's 17 went onto its Sizing).
WIDER = {"analyze": 17, "plan": 18}
#: parameters that say how a log is read and shaped, not counted
SHAPING = {"probe", "design", "read_options", "noise_read_options", "read_kwargs"}


def _width(function) -> int:
    return sum(1 for name, p in inspect.signature(function).parameters.items()
               if name not in SHAPING and p.kind is not inspect.Parameter.VAR_KEYWORD)


def test_no_public_function_grows_wider():
    import probestats.serve as package

    functions = {name: getattr(probestats, name) for name in probestats.__all__
                 if inspect.isfunction(getattr(probestats, name)) or getattr(probestats, name) is package}
    widths = {name: _width(f) for name, f in functions.items()}
    wider = {name: width for name, width in widths.items() if width > WIDEST}
    assert wider == WIDER
    assert len(functions) >= 30 and "cells" in functions and "sql" in functions


def test_a_plot_that_cannot_be_written_is_refused_before_the_simulation(tmp_path):
    from probestats.errors import OptionError

    seen = []
    with pytest.raises(OptionError, match="does not exist; create it first"):
        probestats.plan(NOISE, metric="steps", items=[8], runs=[5], gap=1.0, sims=2_000,
                        plot=tmp_path / "none" / "power.png", progress=lambda done, total: seen.append(done))
    assert seen == []   # nothing simulated
