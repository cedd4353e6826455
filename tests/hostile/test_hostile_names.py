"""Column names probestats uses itself: a metric that numbers the runs, a --by or --column that would
collide with the checks' own columns. Each is one Error line with the way round, in every command."""

from __future__ import annotations

import pytest

from probestats.cli import main
from tests.factories import make_log, write_log

STRUCTURE = {"seed": "numbers the runs by seed", "run_id": "names each run", "time": "holds when each run was made"}


@pytest.fixture
def log(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frame = make_log(items=6, runs=3, gap=1.0, seed=0)
    import polars as pl

    frame = frame.with_columns((pl.col("seed") * 1000).alias("run_id"), pl.lit(1).alias("n"),
                               pl.lit("2025-01-01").alias("time"), pl.lit("g").alias("mean"))
    write_log(frame, tmp_path / "log.csv")
    return "log.csv"


def _one_error(capsys, argv, tmp_path) -> str:
    before = sorted(p.name for p in tmp_path.iterdir())
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    assert "unexpected" not in err and "cannot be read" not in err and str(tmp_path) not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    return err


def _commands(log, metric):
    return [["validate", log, "--metric", metric], ["analyze", log, "--metric", metric],
            ["compare", log, log, "--metric", metric], ["report", log, "--metric", metric, "-o", "r.md"],
            ["plan", "--noise", log, "--metric", metric, "--gap", "1", "--sims", "20"]]


@pytest.mark.parametrize("metric", list(STRUCTURE))
@pytest.mark.parametrize("command", range(5), ids=["validate", "analyze", "compare", "report", "plan"])
def test_a_metric_that_numbers_the_runs_is_refused_with_the_way_round(log, capsys, tmp_path, metric, command):
    err = _one_error(capsys, _commands(log, metric)[command], tmp_path)
    assert err == (f"Error: --metric {metric}: the column '{metric}' {STRUCTURE[metric]}, not a metric; name the "
                   f"column that holds the number computed from each reply (to analyze it anyway, read it under "
                   f"another name: --column {metric}_col={metric} --metric {metric}_col)\n")


def test_the_way_round_works(log, capsys):
    assert main(["analyze", log, "--metric", "seed_col", "--column", "seed_col=seed"]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("name", ["n", "mean"])
@pytest.mark.parametrize("command", ["analyze", "report"])
def test_a_by_column_named_as_the_checks_own_counts_is_refused(log, capsys, tmp_path, name, command):
    argv = [command, log, "--metric", "steps", "--by", name] + (["-o", "r.html"] if command == "report" else [])
    err = _one_error(capsys, argv, tmp_path)
    assert err == (f"Error: --by {name}: '{name}' is a name probestats uses for its own counts; read the column "
                   f"under another name: --column {name}_col={name} --by {name}_col\n")


@pytest.mark.parametrize("mapping", ["_row=item", "_row=model", "__order=model"])
def test_a_column_mapped_to_an_internal_name_is_refused(log, capsys, tmp_path, mapping):
    canonical, header = mapping.split("=")
    err = _one_error(capsys, ["analyze", log, "--metric", "steps", "--column", mapping], tmp_path)
    assert err.startswith(f"Error: --column {mapping}: '{canonical}' is a name probestats uses itself")
    assert err.rstrip().endswith(f"read '{header}' under another name")


def test_a_metric_named_as_an_internal_column_is_refused(log, capsys, tmp_path):
    import polars as pl

    frame = pl.read_csv(tmp_path / log).with_columns(pl.col("steps").alias("__order"))
    frame.write_csv(tmp_path / "o.csv")
    for argv in (["compare", "o.csv", "o.csv", "--metric", "__order"], ["report", "o.csv", "--metric", "__order",
                                                                         "-o", "r.md"]):
        err = _one_error(capsys, argv, tmp_path)
        assert err.startswith("Error: --metric __order: '__order' is a name probestats uses for its own counts")


@pytest.mark.parametrize("command", ["validate", "analyze"])
@pytest.mark.parametrize("name", ["seed", "run_id"])
def test_a_by_column_that_numbers_the_runs_is_refused_alike_by_validate_and_analyze(log, capsys, tmp_path, command,
                                                                                    name):
    err = _one_error(capsys, [command, log, "--metric", "steps", "--by", name], tmp_path)
    assert err.startswith(f"Error: --by {name}: that column numbers the runs inside each item x value cell")
