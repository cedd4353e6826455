"""report, cells and compare go through analyze's streaming pass and give the row path's output, byte for byte.

Each test runs a command twice: as it is, and with the streaming pass switched off (so every log is
validated row by row), and compares every byte the command writes (the report, its plots and its
CSV; the cell table; the JSON). Where the log is clean enough for one pass, the test also checks
that the pass was taken, else both runs would be the row path.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

import probestats.analyses.cells as cells_module
import probestats.checks.stream as stream
from probestats.cli import cli
from tests.cli_run import without_progress
from tests.factories import make_log
from tests.test_stream import KINDS, _bad, write

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def run_both(monkeypatch, tmp_path, args: list[str], outputs: list[str]):
    """Run ``probestats ARGS`` streaming and row by row (in two folders); each run's exit code,
    standard output and error, and the bytes of every file it wrote there."""
    results = []
    for mode in ("stream", "rows"):
        folder = tmp_path / mode
        folder.mkdir(parents=True)
        with monkeypatch.context() as m:
            if mode == "rows":
                m.setattr(stream, "validate_streaming", lambda *a, **k: None)
            done = CliRunner().invoke(cli, [a.replace("{out}", str(folder)) for a in args])
        files = {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
        # the outputs are compared, not the progress lines a busy machine adds to standard error
        results.append((done.exit_code, done.stdout, without_progress(done.stderr).replace(str(folder), "{out}"),
                        files))
    assert set(results[0][3]) >= set(outputs) or results[0][0] != 0, results[0][:3]
    return results


def without_time(name: str, tmp_path: Path) -> Path:
    """A sample log without its time column (a time column asks for the rows: the alternation check)."""
    return write(pl.read_csv(SAMPLES / name, infer_schema=False).drop("time"), tmp_path / name)


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
@pytest.mark.parametrize("name", ["style_probe.csv", "style_probe_5seeds.csv", "style_hand.csv", "style_noise.csv"])
def test_reports_of_the_sample_logs_are_byte_identical(name, fmt, tmp_path, monkeypatch, passes):
    for path in (SAMPLES / name, without_time(name, tmp_path)):
        stream_run, rows_run = run_both(monkeypatch, tmp_path / path.parent.name,
                                        ["report", str(path), "--metric", "steps", "-o", f"{{out}}/r.{fmt}"],
                                        [f"r.{fmt}"])
        assert stream_run == rows_run
    assert any(passes)   # the logs without times were reported from the pass


@pytest.mark.parametrize("kind", KINDS)
def test_reports_of_logs_that_need_their_rows_are_byte_identical(kind, tmp_path, monkeypatch):
    path = write(_bad(make_log(items=6, runs=4, seed=2), kind), tmp_path / "bad.csv")
    stream_run, rows_run = run_both(monkeypatch, tmp_path, ["report", str(path), "--metric", "steps",
                                                            "-o", "{out}/r.md"], ["r.md"])
    assert stream_run == rows_run


def test_reports_with_settings_groups_and_other_columns_stream_and_are_byte_identical(tmp_path, monkeypatch, passes):
    frame = make_log(items=50, runs=4, seed=3).with_columns(
        pl.when(pl.col("item").cast(pl.Int64) % 2 == 0).then(pl.lit("en")).otherwise(pl.lit("de")).alias("language"),
        pl.lit("judge-1").alias("grader"), pl.lit("You help.").alias("system"),
        (pl.col("seed") * 3).alias("seed"))   # seeds that are no range: counted in a pass of their own
    path = write(frame, tmp_path / "log.csv")
    noise = write(make_log(items=50, runs=4, seed=33, gap=0.0), tmp_path / "noise.csv")
    for extra in ([], ["--by", "language"], ["--a", "casual", "--b", "formal"], ["--noise", str(noise)]):
        passes.clear()
        stream_run, rows_run = run_both(monkeypatch, tmp_path / "_".join(extra or ["plain"]),
                                        ["report", str(path), "--metric", "steps", "-o", "{out}/r.md", *extra],
                                        ["r.md", "r_files/items.csv"])
        assert stream_run == rows_run, extra
        assert passes and all(passes), extra
        text = stream_run[3]["r.md"].decode()
        assert "grader judge-1" in text and "one system prompt" in text


def test_the_comparison_of_two_runs_holds_on_a_machine_so_busy_that_progress_lines_appear(tmp_path, monkeypatch):
    import probestats.present.terminal.progress as progress

    # a progress line every 2 ms stands for a machine so busy that a stage lasts 30 s: the two runs write
    # different numbers of them, and the comparison of what the command wrote still holds
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.002)
    path = write(make_log(items=12, runs=4, seed=8), tmp_path / "log.csv")
    args = ["report", str(path), "--metric", "steps", "-o", "{out}/r.md"]
    (tmp_path / "seen").mkdir()
    seen = CliRunner().invoke(cli, [a.replace("{out}", str(tmp_path / "seen")) for a in args])
    assert seen.exit_code == 0 and ", 0 s so far\n" in seen.stderr   # the lines a busy machine adds
    stream_run, rows_run = run_both(monkeypatch, tmp_path, args, ["r.md"])
    assert stream_run == rows_run and "so far" not in stream_run[2]


def test_a_temperature_written_two_ways_is_counted_as_the_rows_count_it(tmp_path, monkeypatch):
    frame = make_log(items=6, runs=4, seed=4).with_columns(pl.col("temperature").cast(pl.String))
    frame = frame.with_columns(pl.when(pl.int_range(pl.len()) == 7).then(pl.lit("0.80"))
                               .otherwise(pl.col("temperature")).alias("temperature"))
    path = write(frame, tmp_path / "log.csv")
    stream_run, rows_run = run_both(monkeypatch, tmp_path, ["report", str(path), "--metric", "steps",
                                                            "-o", "{out}/r.md"], ["r.md"])
    assert stream_run == rows_run


def test_a_report_of_10000_items_stays_under_100_kb_with_the_whole_table_beside_it(tmp_path):
    path = write(make_log(items=10_000, runs=2, gap=0.3, seed=1), tmp_path / "big.csv")
    out = tmp_path / "r.md"
    done = CliRunner().invoke(cli, ["report", str(path), "--metric", "steps", "-o", str(out)])
    assert done.exit_code == 0, done.stderr
    text = out.read_text()
    assert len(text.encode()) < 100_000
    assert "(r_files/items.csv)" in text and "9970 other items" in text
    table = pl.read_csv(tmp_path / "r_files" / "items.csv", schema_overrides={"item": pl.String})
    assert table.height == 10_000 and table.columns == ["item", "mean_a", "mean_b", "gap", "runs_a", "runs_b"]
    # the whole table's average gap is the report's (a hand check of the unweighted mean over items)
    expected = make_log(items=10_000, runs=2, gap=0.3, seed=1).group_by("item", "variant").agg(
        pl.col("steps").mean()).pivot("variant", index="item", values="steps")
    assert table["gap"].mean() == pytest.approx((expected["formal"] - expected["casual"]).mean(), abs=1e-12)


def test_the_csv_beside_the_report_neutralizes_formulas(tmp_path):
    frame = make_log(items=45, runs=2, seed=5).with_columns(
        pl.when(pl.col("item") == "0").then(pl.lit("=HYPERLINK(\"http://x\")"))
        .when(pl.col("item") == "1").then(pl.lit("@SUM(A1)")).when(pl.col("item") == "2").then(pl.lit("+1"))
        .when(pl.col("item") == "3").then(pl.lit("-2")).otherwise(pl.col("item")).alias("item"))
    path = write(frame, tmp_path / "log.csv")
    done = CliRunner().invoke(cli, ["report", str(path), "--metric", "steps", "-o", str(tmp_path / "r.md")])
    assert done.exit_code == 0, done.stderr
    items = pl.read_csv(tmp_path / "r_files" / "items.csv", infer_schema=False)["item"].to_list()
    assert {"'=HYPERLINK(\"http://x\")", "'@SUM(A1)", "'+1", "'-2"} <= set(items)
    assert not [i for i in items if i[:1] in "=+-@"]


def test_repeated_warnings_are_counted_once_with_examples(tmp_path):
    from probestats.errors import Problem
    from probestats.present.report.context import report_context
    from dataclasses import replace
    from probestats import analyze

    result = analyze(make_log(items=8, runs=3, seed=6), metric="steps")
    many = tuple(Problem("warning", "ceiling", f"cell {i} sits at the top of the scale") for i in range(240))
    limits = dict(report_context(replace(result, problems=result.problems + many))["limits"])
    shown = limits["Warnings from validation"]
    assert len(shown) == 1 and shown[0].startswith("240 warnings of the kind ceiling, for example: cell 0 sits")


def test_cell_tables_are_the_same_with_streaming_on_and_off(tmp_path, monkeypatch, passes):
    # the table's halves are drawn at random within cells (as the within-log noise draws them): the pass
    # draws them from each cell's counts of its values, the row path from the runs, and the bytes agree
    logs = [without_time("style_probe.csv", tmp_path), without_time("style_probe_5seeds.csv", tmp_path),
            write(make_log(items=12, runs=70, seed=8, values=("formal", "casual", "plain")), tmp_path / "three.csv"),
            write(make_log(items=9, runs=5, seed=9, integer=False).with_columns(pl.col("steps").round(2)),
                  tmp_path / "l.parquet")]
    for path in logs:
        for by in ([], ["model"]):
            passes.clear()
            stream_run, rows_run = run_both(monkeypatch, tmp_path / f"{path.stem}{len(by)}",
                                            ["cells", str(path), "--metric", "steps", "-o", "{out}/c.csv",
                                             *sum((["--by", c] for c in by), [])], ["c.csv"])
            assert stream_run == rows_run, (path, by)
            assert passes and all(passes), (path, by)   # the table came from the pass


def test_cell_tables_of_logs_that_need_their_rows_equal_the_row_path(tmp_path, monkeypatch):
    odd = make_log(items=6, runs=4, seed=10).with_columns((pl.col("seed") * 7).alias("seed"))
    for name, frame in (("odd_seeds", odd), ("no_seeds", make_log(items=6, runs=4, seed=11).drop("seed")),
                        *((k, _bad(make_log(items=6, runs=4, seed=2), k)) for k in KINDS)):
        path = write(frame, tmp_path / f"{name}.csv")
        stream_run, rows_run = run_both(monkeypatch, tmp_path / name,
                                        ["cells", str(path), "--metric", "steps", "-o", "{out}/c.parquet"], [])
        assert stream_run == rows_run, name


def test_cell_table_seeds_do_not_grow_with_runs(tmp_path):
    from probestats.analyses.cells import SEED_LIST_LIMIT, cell_table

    table, _ = cell_table(write(make_log(items=3, runs=SEED_LIST_LIMIT + 1, seed=12), tmp_path / "l.csv"),
                          metric="steps")
    assert table["seeds"].null_count() == table.height
    assert table["seed_count"].to_list() == [SEED_LIST_LIMIT + 1] * table.height
    assert (table["seed_low"].to_list(), table["seed_high"].to_list()) == ([1] * 6, [SEED_LIST_LIMIT + 1] * 6)
    short, _ = cell_table(write(make_log(items=3, runs=3, seed=12), tmp_path / "s.csv"), metric="steps")
    assert json.loads(short["seeds"][0]) == ["1", "2", "3"]


def test_compare_of_cell_tables_tells_seeds_apart_beyond_the_listed_ones(tmp_path):
    from probestats.analyses.cells import SEED_LIST_LIMIT, cell_table
    from tests.engines import compare_cells
    from probestats.analyses.compare import NotComparableError

    runs = SEED_LIST_LIMIT + 6
    before = make_log(items=6, runs=runs, seed=13)
    # one cell's seeds still run 1..runs, another's skip one seed and add another: same count, other set
    shifted = before.with_columns(pl.when((pl.col("item") == "2") & (pl.col("variant") == "casual")
                                          & (pl.col("seed") == 5)).then(runs + 1).otherwise(pl.col("seed"))
                                  .alias("seed"))
    tb, _ = cell_table(write(before, tmp_path / "b.csv"), metric="steps")
    ta, _ = cell_table(write(shifted, tmp_path / "a.csv"), metric="steps")
    assert compare_cells(tb, tb, metric="steps").change_average_gap == 0
    with pytest.raises(NotComparableError, match="seeds differ in items 2"):
        compare_cells(tb, ta, metric="steps")


@pytest.mark.parametrize("case", ["same", "changed", "other_seeds", "other_items", "bad"])
def test_compare_streams_and_equals_the_row_path(case, tmp_path, monkeypatch, passes):
    before = make_log(items=10, runs=4, gap=0.8, seed=14)
    after = make_log(items=10, runs=4, gap=0.1, seed=15)
    if case == "same":
        after = before
    elif case == "other_seeds":
        after = after.with_columns(pl.when(pl.col("item") == "3").then(pl.col("seed") + 10).otherwise(pl.col("seed"))
                                   .alias("seed"))
    elif case == "other_items":
        after = after.filter(pl.col("item") != "4")
    elif case == "bad":
        after = _bad(after, "non_numeric")
    pb, pa = write(before, tmp_path / "before.csv"), write(after, tmp_path / "after.csv")
    stream_run, rows_run = run_both(monkeypatch, tmp_path, ["compare", str(pb), str(pa), "--metric", "steps",
                                                            "--json", "-o", "{out}/c.md"], [])
    assert stream_run == rows_run
    if case in ("same", "changed"):
        assert stream_run[0] == 0 and passes and all(passes)


def test_plan_reads_the_columns_it_needs_and_gives_the_same_plan(tmp_path, monkeypatch):
    from probestats.analyses.plan import noise as plan_module
    from probestats.io.read import read_log

    noise = write(make_log(items=8, runs=6, seed=16, gap=0.0).with_columns(pl.lit("a long reply").alias("reply")),
                  tmp_path / "noise.csv")
    pilot = write(make_log(items=8, runs=3, seed=17, gap=0.5), tmp_path / "pilot.csv")
    log = read_log(noise, metric="steps")
    narrow = plan_module._columns_needed(log, "steps")
    assert narrow.columns == ["item", "variant", "steps"] and narrow.equals(log.frame.select(narrow.columns))
    args = ["plan", "--noise", str(noise), "--pilot", str(pilot), "--metric", "steps", "--items", "8",
            "--runs", "3", "--sims", "200", "--json"]
    narrow_run = CliRunner().invoke(cli, args)
    monkeypatch.setattr(plan_module, "_columns_needed", lambda log, metric: log.frame)
    whole_run = CliRunner().invoke(cli, args)
    assert narrow_run.exit_code == 0 and (narrow_run.stdout, narrow_run.stderr) == (whole_run.stdout, whole_run.stderr)
