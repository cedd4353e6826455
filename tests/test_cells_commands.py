"""report, plan and compare from cell tables: the same output as from the row logs.

The reference is the row log itself: each command run on the logs and on their cell tables
(written by ``probestats cells`` or by DuckDB running ``probestats sql``) must print the same
JSON and write the same Markdown, byte for byte. A cell table is saved under its log's file
name (in another folder), so that even the names the output quotes agree.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from probestats.cli import cli, main
from tests.factories import make_log

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def run(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def cells_of(log: Path, folder: Path, *options) -> Path:
    """The cell table of ``log``, as CSV under the log's own file name in ``folder``."""
    folder.mkdir(exist_ok=True)
    out = folder / log.name
    run("cells", log, "--metric", "steps", "-o", out.with_suffix(".csv"), *options)
    if out.suffix != ".csv":
        out.with_suffix(".csv").rename(out)  # the table keeps its log's name, suffix and all
    return out


def same_report(row_args, cell_args, tmp_path, name="report.md") -> str:
    """Write the report both ways (same file name, two folders) and return the row log's text."""
    (tmp_path / "row").mkdir(exist_ok=True)
    (tmp_path / "cell").mkdir(exist_ok=True)
    run("report", *row_args, "-o", tmp_path / "row" / name)
    run("report", *cell_args, "-o", tmp_path / "cell" / name)
    return (tmp_path / "row" / name).read_text(), (tmp_path / "cell" / name).read_text()


# --------------------------------------------------------------------------- report


@pytest.mark.parametrize("fmt", ["md", "json", "html"])
def test_report_from_cells_is_the_row_logs_report(tmp_path, fmt):
    probe, noise = SAMPLES / "style_probe.csv", SAMPLES / "style_noise.csv"
    cells = cells_of(probe, tmp_path / "t")
    noise_cells = cells_of(noise, tmp_path / "t", "--keep-runs")
    row, cell = same_report([probe, "--metric", "steps", "--noise", noise],
                            [cells, "--noise", noise_cells, "--metric", "steps"],
                            tmp_path, f"report.{fmt}")
    # the report names what it was made from; everything else is the same, bit for bit
    assert "style" in row and str(cells) not in row
    cell = cell.replace(str(cells), str(probe))
    if fmt == "md":  # Markdown escapes the underscore of sample_logs
        cell = cell.replace(str(cells).replace("_", "\\_"), str(probe).replace("_", "\\_"))
    assert cell == row


@pytest.mark.parametrize("name", ["style_hand.csv", "style_probe_5seeds.csv"])
def test_report_without_noise_log_keeps_design_facts(tmp_path, name):
    # style_hand.csv: times and seeds; the design section lists held-fixed settings, seeds and run dates
    log = SAMPLES / name
    cells = cells_of(log, tmp_path / "t")
    row, cell = same_report([log, "--metric", "steps"], [cells, "--metric", "steps"], tmp_path)
    cell = cell.replace(str(cells).replace("_", "\\_"), str(log).replace("_", "\\_"))
    assert cell == row
    assert "seeds" in row and "stand-in-v1" in row


def test_report_with_by_groups_and_before_cells(tmp_path):
    before = make_log(items=8, runs=4, gap=1.0, seed=1)
    after = before.with_columns(pl.when(pl.col("variant") == "formal").then(pl.col("steps") - 1)
                                .otherwise(pl.col("steps")).alias("steps"))
    paths = {}
    for name, frame in (("before.csv", before), ("after.csv", after)):
        paths[name] = tmp_path / name
        frame.with_columns(pl.when(pl.col("item").cast(pl.Int64) % 2 == 0).then(pl.lit("m1")).otherwise(pl.lit("m2"))
                           .alias("topic")).write_csv(paths[name])
    tables = {n: cells_of(p, tmp_path / "t", "--by", "topic") for n, p in paths.items()}
    row, cell = same_report([paths["after.csv"], "--metric", "steps", "--by", "topic", "--before", paths["before.csv"]],
                            [tables["after.csv"], "--metric", "steps", "--by", "topic",
                             "--before", tables["before.csv"]], tmp_path, "report.json")
    assert json.loads(cell.replace(str(tables["after.csv"]), str(paths["after.csv"]))) == json.loads(row)
    assert json.loads(row)["groups"] and json.loads(row)["compare"]


# --------------------------------------------------------------------------- plan


def test_plan_from_noise_and_pilot_cells_is_the_row_logs_plan(tmp_path):
    noise, pilot = SAMPLES / "style_noise.csv", SAMPLES / "style_probe.csv"
    nc, pc = cells_of(noise, tmp_path / "t", "--keep-runs"), cells_of(pilot, tmp_path / "t", "--keep-runs")
    common = ["--metric", "steps", "--items", "6,8", "--runs", "5,10", "--gap", "0.75", "--sims", "200", "--json"]
    want = run("plan", "--noise", noise, "--pilot", pilot, *common)
    assert run("plan", "--noise", nc, "--pilot", pc, *common) == want
    assert json.loads(want)["tau_source"] == "pilot"


@pytest.mark.parametrize("metric", ["continuous", "picked", "likert"])
def test_plan_from_cells_for_every_kind_of_metric(tmp_path, metric):
    # continuous (two decimals), 0/1 (bounded: the shift table) and 1-5 whole numbers
    frame = make_log(items=6, runs=5, gap=0.0, seed=3, integer=(metric != "continuous"))
    if metric == "continuous":
        frame = frame.with_columns(pl.col("steps").round(2))
    elif metric == "picked":
        frame = frame.with_columns((pl.col("steps") > 5).cast(pl.Int64).alias("steps"))
    else:
        frame = frame.with_columns(pl.col("steps").clip(1, 5))
    log = tmp_path / "noise.csv"
    frame.write_csv(log)
    table = cells_of(log, tmp_path / "t", "--keep-runs")
    common = ["--metric", "steps", "--items", "8", "--runs", "3", "--sims", "200", "--json"]
    assert run("plan", "--noise", table, *common) == run("plan", "--noise", log, *common)


# --------------------------------------------------------------------------- compare


def test_compare_cells_is_the_row_logs_compare(tmp_path):
    before = make_log(items=8, runs=3, gap=1.0, seed=5)
    after = make_log(items=8, runs=3, gap=0.2, seed=6)
    paths = {n: tmp_path / n for n in ("before.csv", "after.csv")}
    before.write_csv(paths["before.csv"])
    after.write_csv(paths["after.csv"])
    tables = {n: cells_of(p, tmp_path / "t") for n, p in paths.items()}
    want = run("compare", paths["before.csv"], paths["after.csv"], "--metric", "steps", "--json")
    got = run("compare", tables["before.csv"], tables["after.csv"], "--metric", "steps", "--json")
    assert got == want
    assert json.loads(want)["seeds_checked"] is True and json.loads(want)["before"]["noise"] is not None
    # Markdown section too
    run("compare", paths["before.csv"], paths["after.csv"], "--metric", "steps", "-o", tmp_path / "row.md")
    run("compare", tables["before.csv"], tables["after.csv"], "--metric", "steps",
        "-o", tmp_path / "cell.md")
    assert (tmp_path / "cell.md").read_text() == (tmp_path / "row.md").read_text()


def test_compare_cells_refuses_what_the_row_logs_refuse(tmp_path, capsys):
    # different seed lists: the same not_comparable message, naming the same files
    logs = [SAMPLES / "style_probe.csv", SAMPLES / "style_probe_5seeds.csv"]
    tables = [cells_of(p, tmp_path / "t") for p in logs]
    capsys.readouterr()
    assert main(["compare", *map(str, logs), "--metric", "steps"]) == 1
    want = capsys.readouterr().err
    assert main(["compare", *map(str, tables), "--metric", "steps"]) == 1
    got = capsys.readouterr().err
    assert "seeds differ in items 0, 1" in want
    assert got.replace(str(tmp_path / "t") + "/", "") == want.replace(str(SAMPLES) + "/", "")


# --------------------------------------------------------------------------- DuckDB


duckdb = pytest.importorskip("duckdb")


def duckdb_cells(log: Path, folder: Path, *options) -> Path:
    """probestats sql's query run by DuckDB on ``log``, saved as Parquet under the log's name."""
    con = duckdb.connect()
    con.execute("SET threads = 1")
    con.execute(f"CREATE TABLE logs AS SELECT *, ROW_NUMBER() OVER () AS _row FROM read_csv_auto('{log}')")
    query = run("sql", "--dialect", "duckdb", "--table", "logs", "--metric", "steps", "--run-order", "_row",
                *options).split(";")[0]
    folder.mkdir(exist_ok=True)
    out = folder / log.name
    con.execute(f"COPY ({query}) TO '{out}' (FORMAT PARQUET)")
    return out


def test_report_and_plan_from_duckdb_tables_are_the_row_logs(tmp_path):
    probe, noise = SAMPLES / "style_hand.csv", SAMPLES / "style_noise.csv"
    facts = ["--time", "--keep-setting", "model", "--keep-setting", "temperature"]
    cells = duckdb_cells(probe, tmp_path / "t", *facts)
    noise_cells = duckdb_cells(noise, tmp_path / "t", *facts, "--keep-setting", "system", "--keep-runs")
    row, cell = same_report([probe, "--metric", "steps", "--noise", noise],
                            [cells, "--noise", noise_cells, "--metric", "steps"], tmp_path)
    assert cell.replace(str(cells).replace("_", "\\_"), str(probe).replace("_", "\\_")) == row
    common = ["--metric", "steps", "--items", "8", "--runs", "5", "--sims", "200", "--json"]
    assert run("plan", "--noise", noise_cells, *common) == run("plan", "--noise", noise, *common)


def but_the_noise(text: str) -> str:
    """A JSON result without its within-log noise (anywhere in it): a warehouse's query splits the cells in
    seed order, which the analysis refuses with a ``no_within_noise`` warning."""

    def strip(x):
        if isinstance(x, dict):
            out = {k: strip(v) for k, v in x.items() if k not in ("noise", "caveats", "beyond_noise")}
            if "problems" in out:
                out["problems"] = [p for p in out["problems"] if p.get("code") != "no_within_noise"]
            return out
        return [strip(v) for v in x] if isinstance(x, list) else x

    return json.dumps(strip(json.loads(text)), indent=1)


def test_compare_from_duckdb_tables_is_the_row_logs(tmp_path):
    before, after = make_log(items=6, runs=4, gap=1.0, seed=7), make_log(items=6, runs=4, gap=0.0, seed=8)
    paths = {n: tmp_path / n for n in ("before.csv", "after.csv")}
    before.write_csv(paths["before.csv"])
    after.write_csv(paths["after.csv"])
    tables = [duckdb_cells(p, tmp_path / "t") for p in paths.values()]
    want = run("compare", *paths.values(), "--metric", "steps", "--json")
    got = run("compare", *tables, "--metric", "steps", "--json")
    assert "no_within_noise" in got and but_the_noise(got) == but_the_noise(want)


# --------------------------------------------------------------------------- refusals


def test_options_that_need_rows_are_refused_in_one_line(tmp_path, capsys):
    log, noise = SAMPLES / "style_probe.csv", SAMPLES / "style_noise.csv"
    cells = cells_of(log, tmp_path / "t")
    bare_noise = tmp_path / "bare.csv"
    run("cells", noise, "--metric", "steps", "-o", bare_noise)
    out = tmp_path / "r.md"
    for args, code, text in [
        (["report", cells, "--metric", "steps", "--noise", noise, "-o", out], 1,
         "with a cell table as LOG, give this log as a cell table too (probestats cells"),
        (["report", cells, "--metric", "steps", "--where", "seed > 1", "-o", out], 1,
         "--where cannot be used with a cell table: it needs the log's rows; build the cell table with it"),
        (["report", cells, "--metric", "steps", "--order", "variant", "--choice", "x", "-o", out], 1,
         "--order cannot be used with a cell table"),
        (["report", cells, "--metric", "steps", "--noise", "none", "-o", out], 1,
         "--noise none cannot be used with a cell table"),
        (["report", "--metric", "steps", "-o", out], 2, "Missing argument 'LOG...'"),
        (["report", log, "--metric", "steps", "--noise", cells, "-o", out], 1,
         "is a cell table: give the probe as a cell table too"),
        (["analyze", cells, "--metric", "steps", "--row-level"], 1,
         "--row-level cannot be used with a cell table"),
        (["analyze", log, "--metric", "steps", "--noise", cells], 1, "is a cell table: give the probe as a cell"),
        (["analyze", cells, "--metric", "steps", "--noise", bare_noise], 1,
         "the cell table has no runs_units column, and the noise model resamples runs; build it with "
         "probestats cells --keep-runs"),
        (["analyze", cells, "--metric", "score"], 1,
         "--metric score: the cell table"),
        (["plan", "--metric", "steps"], 2, "Missing option '--noise'"),
        (["plan", "--noise", bare_noise, "--metric", "steps"], 1, "probestats cells --keep-runs"),
        (["plan", "--noise", bare_noise, "--metric", "steps", "--derive", "x = steps"], 1,
         "--derive cannot be used with a cell table"),
        (["compare", cells, cells, "--metric", "steps", "--fold-case"], 1,
         "--fold-case cannot be used with a cell table"),
        (["analyze", cells, "--metric", "steps", "--read", "skip-rows=2"], 1,
         "--read skip-rows cannot be used with a cell table"),
        # options on the runs of each cell, which a cell table pooled: refused, where they changed nothing
        *[([command, cells, "--metric", "steps", *option, *where], 1,
           f"{' '.join(option)} needs the runs of the log; give the LOG instead of a cell table")
          for command, where in (("analyze", []), ("report", ["-o", out]))
          for option in (["--setting", "persona"], ["--noise-value", "casual"], ["--setting-is-attribute", "model"],
                         ["--cluster", "level"], ["--random-setting", "temperature"])],
        (["analyze", cells, "--metric", "steps", "--per-item"], 1,
         "--per-item needs the runs of the log; give the LOG instead of a cell table"),
    ]:
        capsys.readouterr()
        assert main([str(a) for a in args]) == code, args
        err = capsys.readouterr().err
        assert text in err, (args, err)
        assert "Traceback" not in err and err.count("Error:") == 1, err


# --------------------------------------------------------------------------- Spark


def test_report_and_plan_from_spark_tables_are_the_row_logs(tmp_path, spark):
    def spark_cells(log: Path, *options) -> Path:
        frame = pl.read_csv(log, infer_schema=False).with_row_index("_row")
        frame = frame.with_columns(pl.col("_row").cast(pl.Int64), pl.col("steps").cast(pl.Float64))
        schema = ", ".join(f"`{c}` {'BIGINT' if c == '_row' else 'DOUBLE' if c == 'steps' else 'STRING'}"
                           for c in frame.columns)
        spark.createDataFrame(frame.rows(), schema=schema).createOrReplaceTempView("logs")
        query = run("sql", "--dialect", "spark", "--table", "logs", "--metric", "steps", "--run-order", "_row",
                    *options).split(";")[0]
        out = tmp_path / "t" / log.name
        out.parent.mkdir(exist_ok=True)
        pl.DataFrame([r.asDict() for r in spark.sql(query).collect()], infer_schema_length=None).write_csv(out)
        return out

    probe, noise = SAMPLES / "style_hand.csv", SAMPLES / "style_noise.csv"
    facts = ["--time", "--keep-setting", "model", "--keep-setting", "temperature"]
    cells = spark_cells(probe, *facts)
    noise_cells = spark_cells(noise, *facts, "--keep-setting", "system", "--keep-runs")
    row, cell = same_report([probe, "--metric", "steps", "--noise", noise],
                            [cells, "--noise", noise_cells, "--metric", "steps"], tmp_path)
    assert cell.replace(str(cells).replace("_", "\\_"), str(probe).replace("_", "\\_")) == row
    common = ["--metric", "steps", "--items", "8", "--runs", "5", "--sims", "200", "--json"]
    assert run("plan", "--noise", noise_cells, *common) == run("plan", "--noise", noise, *common)


# --------------------------------------------------------------------------- property: compare


from hypothesis import HealthCheck, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=st.integers(2, 9), runs=st.integers(1, 4), gap=st.sampled_from([0.0, 0.5, 2.0]),
       seed=st.integers(0, 10**6), places=st.integers(0, 2))
@example(items=5, runs=3, gap=0.0, seed=29971, places=0)   # a -0.0 in the after log (rounded below zero)
@example(items=2, runs=2, gap=0.0, seed=0, places=0)   # 'casual' 6 in all 4 runs, 'formal' 6 in 1 of 4: by chance
def test_compare_cells_equals_compare_runs(items, runs, gap, seed, places):
    # any matched before/after pair: the cell tables' comparison is the row logs', field for field
    from probestats.analyses.cells import cell_table
    from tests.engines import compare_cells
    from probestats.analyses.compare import compare_runs
    from probestats.result import jsonable

    before = make_log(items=items, runs=runs, gap=gap, seed=seed, integer=False)
    after = make_log(items=items, runs=runs, gap=0.0, seed=seed + 1, integer=False)
    before, after = (f.with_columns(pl.col("steps").round(places)) for f in (before, after))
    want = compare_runs(before, after, metric="steps")
    got = compare_cells(cell_table(before, metric="steps")[0], cell_table(after, metric="steps")[0],
                        metric="steps", names=want.names)
    drop = {"never_significant", "skewed_gaps", "no_within_noise"}
    w, g = jsonable(want.to_dict()), jsonable(got.to_dict())
    for d in (w, g, w["before"], w["after"], g["before"], g["after"]):  # validation warnings stay with the rows
        d["problems"] = [p for p in d["problems"] if p["code"] in drop]
    if runs > 2:   # a cell of 3 or more runs keeps its least and greatest only: a constant arm is named on cells
        for side in ("before", "after"):   # only where the rows name it (the other value's runs counted at most)
            rows_arms, cell_arms = ([c for c in d[side]["verdict"]["caveats"] if c["id"] == "constant_arm"]
                                    for d in (w, g))
            assert all(c in rows_arms for c in cell_arms)
            for d in (w, g):
                d[side]["verdict"]["caveats"] = [c for c in d[side]["verdict"]["caveats"] if c["id"] != "constant_arm"]
    assert json.dumps(g) == json.dumps(w)
