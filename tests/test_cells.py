"""The cell table: probestats cells, probestats sql run by DuckDB (and Spark), analyze --cells.

The reference is the row log itself: ``analyze LOG --json`` must print exactly the same
JSON as ``analyze --cells TABLE --json``, whichever route built the table.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from probestats import Tests
from probestats.analyses.cells import cell_table
from tests.engines import analyze_cells
from tests.engines import analyze_pair as analyze
from probestats.stats.exact import mean_sd
from probestats.cli import cli
from probestats.result import jsonable
from probestats.shape.warehouse import Source, cell_query, validation_queries
from tests.factories import halves_over_every_split

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
LOGS = ["style_probe.csv", "style_probe_5seeds.csv", "style_hand.csv", "style_probe.jsonl"]


def run(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def row_log_json(*args) -> str:
    """``analyze --json`` of a row log, whole: the within-log noise row included (the cell table
    carries the sums of the first half of each cell's runs, drawn as the row path draws them)."""
    text = run(*args)
    data = json.loads(text)
    if "--where" not in args:  # every sample log has two runs or more per cell: the noise row is there
        assert data["noise"]["source"].startswith("within-log"), data["noise"]
    return text


@pytest.mark.parametrize("name", LOGS)
def test_analyze_cells_from_probestats_cells_prints_the_row_logs_json(tmp_path, name):
    out = tmp_path / "cells.parquet"
    run("cells", SAMPLES / name, "--metric", "steps", "-o", out)
    assert run("analyze", out, "--metric", "steps", "--json") == \
        row_log_json("analyze", SAMPLES / name, "--metric", "steps", "--json")


def test_cells_with_by_give_the_groups_of_the_row_log(tmp_path):
    rows = [{"item": i, "variant": v, "seed": s, "topic": "en" if i % 2 else "de",
             "score": round(0.1 * ((i * 7 + s * 3 + (v == "a") * 5) % 11), 1)}
            for i in range(12) for v in ("a", "b") for s in range(1, 4)]
    cells, _ = cell_table(rows, metric="score", by=["topic"])
    want = analyze(rows, metric="score", by=["topic"]).to_dict()
    got = analyze_cells(cells, metric="score", by=["topic"]).to_dict()
    assert want["noise"]["source"] == ("within-log: the runs of value 'a' in each item split in two halves, the halves' "
                                       "gap read over every split (its root mean square, from each cell's spread of "
                                       "runs: no draw)")
    assert json.dumps(jsonable(got)) == json.dumps(jsonable(want))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=30), places=st.integers(0, 6))
def test_mean_sd_is_the_correctly_rounded_exact_figure(values, places):
    # reference: Fraction arithmetic on the values themselves, rounded once
    n = len(values)
    scale = 10**places
    mean, sd = mean_sd(n, sum(values), sum(v * v for v in values), places)
    exact_mean = Fraction(sum(values), n * scale)
    assert mean == float(exact_mean)
    if n > 1:
        var = sum((Fraction(v, scale) - exact_mean) ** 2 for v in values) / (n - 1)
        # the correctly rounded square root of the rounded variance, from 60 decimal digits (x ** 0.5 is
        # not always correctly rounded: 2002316670.482 ** 0.5 is one unit in the last place off)
        from decimal import Context

        assert sd == float(Context(prec=60).sqrt(Decimal(float(var))))
    # more places than needed give the same bits
    assert mean_sd(n, sum(values) * 10, sum(v * v for v in values) * 100, places + 1) == (mean, sd)


# --------------------------------------------------------------------------- DuckDB


duckdb = pytest.importorskip("duckdb")


def duckdb_cells(con, tmp_path, *args) -> Path:
    """Run probestats sql's query in DuckDB and save the result as Parquet."""
    text = run("sql", "--dialect", "duckdb", "--table", "logs", *args)
    query = text.split(";")[0]
    out = tmp_path / "duck.parquet"
    con.execute(f"COPY ({query}) TO '{out}' (FORMAT PARQUET)")
    return out


def load(con, path: Path) -> None:
    # the row number kept as a column, so items keep the file's order (--order _row)
    reader = "read_json_auto" if path.suffix == ".jsonl" else "read_csv_auto"
    con.execute("SET threads = 1")
    con.execute(f"CREATE OR REPLACE TABLE logs AS SELECT *, ROW_NUMBER() OVER () AS _row FROM {reader}('{path}')")


def but_the_noise(text: str, warehouse: bool = False) -> str:
    """``analyze --json`` without its within-log noise: a warehouse's query splits cells in seed order, which
    the analysis refuses (a file sorted by the metric would make its halves unequal), with a warning."""
    data = json.loads(text)
    if warehouse:
        assert data["noise"] is None and any(p["code"] == "no_within_noise" for p in data["problems"])
    data["noise"] = None
    data["problems"] = [p for p in data["problems"] if p["code"] != "no_within_noise"]
    data["verdict"].pop("noise")
    data["verdict"].pop("caveats")
    data["verdict"].pop("beyond_noise")
    return json.dumps(data, indent=1)


@pytest.mark.parametrize("name", LOGS)
def test_duckdb_running_probestats_sql_gives_the_row_logs_json(tmp_path, name):
    con = duckdb.connect()
    load(con, SAMPLES / name)
    out = duckdb_cells(con, tmp_path, "--metric", "steps", "--run-order", "_row")
    assert but_the_noise(run("analyze", out, "--metric", "steps", "--json"), True) == \
        but_the_noise(row_log_json("analyze", SAMPLES / name, "--metric", "steps", "--json"))
    # the validation queries run, and a clean sample log has no unmatched item or repeated seed
    for check, sql in validation_queries(Source(table="logs", metric="steps", dialect="duckdb"),
                                         settings=()).items():
        assert con.execute(sql).fetchall() == [], check


def test_duckdb_validation_queries_find_planted_problems():
    con = duckdb.connect()
    con.execute("CREATE TABLE logs AS SELECT * FROM (VALUES (1, 'a', 1, 'm1', 3.0), (1, 'b', 1, 'm2', 4.0), "
                "(2, 'a', 1, 'm1', 2.5), (2, 'a', 1, 'm1', 2.0)) AS t(item, variant, seed, model, steps)")
    checks = validation_queries(Source(table="logs", metric="steps", dialect="duckdb", places=0), settings=("model",))
    assert [r[0] for r in con.execute(checks["unmatched_item"]).fetchall()] == [2]
    assert [r[0] for r in con.execute(checks["setting_varies_model"]).fetchall()] == [1]
    assert [r[:3] for r in con.execute(checks["repeated_seed"]).fetchall()] == [(2, "a", 1)]
    assert [r[2] for r in con.execute(checks["finer_than_places"]).fetchall()] == [2.5]


def test_sql_maps_columns_filters_and_derives(tmp_path):
    con = duckdb.connect()
    frame = pl.read_csv(SAMPLES / "style_probe.csv").rename({"item": "question", "steps": "n_steps"})
    frame = frame.with_row_index("_row")
    con.register("logs_view", frame.to_arrow())
    con.execute("CREATE TABLE logs AS SELECT * FROM logs_view")
    out = duckdb_cells(con, tmp_path, "--metric", "twice", "--column", "item=question", "--derive",
                       "twice = n_steps * 2", "--where", "seed <> 1", "--run-order", "_row")
    want = row_log_json("analyze", SAMPLES / "style_probe.csv", "--metric", "twice", "--derive", "twice = steps * 2",
               "--where", "seed <> 1", "--json")
    assert but_the_noise(run("analyze", out, "--metric", "twice", "--json"), True) == but_the_noise(want)


@pytest.mark.slow
def test_duckdb_on_a_million_rows_gives_the_row_logs_json(tmp_path):
    items, runs = 1000, 500
    n = items * 2 * runs
    i = pl.int_range(0, n, eager=True)
    frame = pl.DataFrame({"i": i}).select(
        (pl.col("i") // (2 * runs)).alias("item"),
        pl.when((pl.col("i") // runs) % 2 == 0).then(pl.lit("formal")).otherwise(pl.lit("casual")).alias("variant"),
        (pl.col("i") % runs + 1).alias("seed"),
        ((pl.col("i").hash(seed=3) % 11).cast(pl.Int64) + (pl.col("i") // runs) % 2).alias("steps"),
    )
    log = tmp_path / "big.csv"
    frame.write_csv(log)
    con = duckdb.connect()
    load(con, log)
    out = duckdb_cells(con, tmp_path, "--metric", "steps", "--run-order", "_row")
    want = row_log_json("analyze", log, "--metric", "steps", "--json")
    assert but_the_noise(run("analyze", out, "--metric", "steps", "--json"), True) == but_the_noise(want)
    assert json.loads(want)["sign_flip"]["method"].startswith("exact (lattice convolution, step 1/500")


# --------------------------------------------------------------------------- Spark


@pytest.mark.parametrize("name", ["style_probe.csv", "style_probe_5seeds.csv"])
def test_spark_running_the_spark_dialect_gives_the_row_logs_json(tmp_path, name, spark):
    frame = pl.read_csv(SAMPLES / name, infer_schema=False).with_row_index("_row")
    frame = frame.with_columns(pl.col("_row").cast(pl.Int64), pl.col("steps").cast(pl.Float64))
    # rows and a DDL schema, not pandas (pyspark warns about newer pandas)
    schema = ", ".join(f"`{c}` {'BIGINT' if c == '_row' else 'DOUBLE' if c == 'steps' else 'STRING'}"
                       for c in frame.columns)
    spark.createDataFrame(frame.rows(), schema=schema).createOrReplaceTempView("logs")
    query = run("sql", "--dialect", "spark", "--table", "logs", "--metric", "steps", "--run-order", "_row").split(";")[0]
    result = spark.sql(query)
    out = tmp_path / "spark.csv"
    pl.DataFrame([r.asDict() for r in result.collect()], infer_schema_length=None).write_csv(out)
    assert but_the_noise(run("analyze", out, "--metric", "steps", "--json"), True) == \
        but_the_noise(row_log_json("analyze", SAMPLES / name, "--metric", "steps", "--json"))


# --------------------------------------------------------------------------- errors and labels


def test_cli_refusals_are_one_line(tmp_path, capsys):
    from probestats.cli import main

    log = SAMPLES / "style_probe.csv"
    cells = tmp_path / "c.parquet"
    run("cells", log, "--metric", "steps", "-o", cells)
    partial = tmp_path / "partial.csv"   # the columns that mark a cell table, without the others
    partial.write_text("item,variant,n,counted,places,sum_units,sumsq_units\n1,a,1,1,0,1,1\n")
    for args, code, text in [
        (["analyze", "--metric", "steps"], 2, "Missing argument 'LOG...'"),
        (["analyze", cells, "--metric", "steps", "--noise", "within"], 1,
         "--noise within cannot be used with a cell table"),
        (["analyze", cells, "--metric", "steps", "--noise", log], 1,
         "with a cell table as LOG, give this log as a cell table too"),
        (["analyze", partial, "--metric", "steps"], 1, "is not a cell table: it lacks min, max, first_row"),
        (["analyze", cells, "--metric", "steps", "--a", "nope"], 1, "--a nope: not a value"),
        (["cells", log, "--metric", "steps", "-o", tmp_path / "c.txt"], 1, ".parquet, .csv or .jsonl"),
        (["sql", "--table", "logs", "--metric", "steps", "--where", "seed >"], 1, "--where 'seed >': not an SQL expression"),
    ]:
        capsys.readouterr()
        assert main([str(a) for a in args]) == code, args
        err = capsys.readouterr().err
        assert text in err, (args, err)
        assert "Traceback" not in err


def test_untested_dialects_are_labelled():
    assert "not tested" in run("sql", "--dialect", "snowflake", "--table", "logs", "--metric", "steps")
    assert "not tested" not in run("sql", "--dialect", "spark", "--table", "logs", "--metric", "steps")


def test_a_cell_table_read_back_from_csv_keeps_its_exact_sums(tmp_path):
    # sums beyond 2**53 survive as text: a float column would round them
    big = 2**53 + 1
    cells = pl.DataFrame({"item": ["1", "1"], "variant": ["a", "b"], "n": [1, 1], "counted": [1, 1],
                          "places": [0, 0], "sum_units": [str(big), "1"], "sumsq_units": [str(big**2), "1"],
                          "min": [float(big), 1.0], "max": [float(big), 1.0], "first_row": [0, 1]})
    path = tmp_path / "c.csv"
    cells.write_csv(path)
    from probestats.analyses.cells import read_cells

    back = read_cells(path)
    assert back["sum_units"].to_list() == [str(big), "1"]


# --------------------------------------------------------------------------- the within-log noise row


def _halves_by_hand(rows, a):
    """Reference for the halves: each item's runs of ``a`` with a value, every split enumerated
    (:func:`tests.factories.halves_over_every_split`): each item's root mean square gap."""
    cells = {}
    for item in sorted({str(r["item"]) for r in rows}):
        cells[item] = [[Fraction(r["x"]).limit_denominator(100) for r in rows
                        if str(r["item"]) == item and r["variant"] == a and r["x"] is not None]]
    return halves_over_every_split(cells)[0]


seeds = st.one_of(st.integers(0, 5), st.sampled_from(["s1", "s2", "10", "2"]), st.none())


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_the_noise_row_from_cells_and_duckdb_is_the_row_logs(data, tmp_path_factory):
    items = data.draw(st.integers(2, 5), label="items")
    rows = []
    for i in range(items):
        for v in ("a", "b"):
            for _ in range(data.draw(st.integers(2, 6), label="runs")):
                rows.append({"item": f"i{i}", "variant": v, "seed": data.draw(seeds, label="seed"),
                             "x": data.draw(st.integers(0, 40), label="x") / 4})
    rows = data.draw(st.permutations(rows), label="order")
    frame = pl.DataFrame(rows, schema={"item": pl.String, "variant": pl.String, "seed": pl.String,
                                       "x": pl.Float64}, orient="row")
    want = analyze(frame, metric="x")
    row_json = _without_validation(want)
    # a table that keeps its runs analyzes as the row log, the within-item permutation included where the
    # runs differ within items; one without them says the headline stays the sign-flip test
    kept, _ = cell_table(frame, metric="x", runs=True)
    assert _without_validation(analyze_cells(kept, metric="x")) == row_json
    cells, _ = cell_table(frame, metric="x")
    plain = analyze_cells(cells, metric="x")
    # the row log's headline is the permutation where the runs differ by design (not a run or two short)
    unequal = want.main.permutation is not None
    assert ("unequal_runs_unpermuted" in {p.code for p in plain.problems}) == unequal
    if not unequal:
        assert _without_validation(plain) == row_json
    # the reference: every split of each item's runs, enumerated (was: the one split drawn, by hand)
    hand = _halves_by_hand(rows, want.main.a)
    assert {r["item"]: r["gap"] for r in want.noise.items.iter_rows(named=True)} == pytest.approx(hand, abs=1e-12)
    # DuckDB running probestats sql on the same rows
    con = duckdb.connect()
    con.register("view", frame.with_row_index("_row").to_arrow())
    con.execute("CREATE TABLE logs AS SELECT * FROM view")
    query = cell_query(Source(table="logs", metric="x"), order="_row")
    out = tmp_path_factory.mktemp("duck") / "c.parquet"
    con.execute(f"COPY ({query}) TO '{out}' (FORMAT PARQUET)")
    assert but_the_noise(_without_validation(analyze_cells(out, metric="x"))) == but_the_noise(_without_validation(plain))


def _without_validation(result) -> str:
    """The JSON of a result without the warnings validation found in the rows (repeated or mismatched
    seeds: a cell table's builder reports them, the analysis of the table cannot)."""
    data = jsonable(result.to_dict())
    data["problems"] = [p for p in data["problems"] if p["code"] in ("never_significant", "skewed_gaps")]
    return json.dumps(data)


def test_a_table_without_the_half_columns_analyzes_without_the_noise_row(tmp_path):
    log = SAMPLES / "style_probe.csv"
    full = tmp_path / "c.parquet"
    run("cells", log, "--metric", "steps", "-o", full)
    old = tmp_path / "old.csv"
    pl.read_parquet(full).drop("n_first", "sum_units_first", "sumsq_units_first", "first_split").write_csv(old)
    got = json.loads(run("analyze", old, "--metric", "steps", "--json"))
    want = json.loads(run("analyze", log, "--metric", "steps", "--json"))
    assert got["noise"] is None and want["noise"] is not None
    assert [p["code"] for p in got["problems"]] == ["no_within_noise"]
    got.pop("noise"), want.pop("noise"), got.pop("problems"), want.pop("problems")
    assert not got["verdict"]["noise"]["valid"] and want["verdict"]["noise"]["valid"]
    for side in (got, want):
        [side["verdict"].pop(k) for k in ("noise", "caveats", "beyond_noise")]
    assert got == want
    # half of the new columns is a damaged table
    pl.read_parquet(full).drop("first_split").write_parquet(tmp_path / "half.parquet")
    from probestats.cli import main

    assert main(["analyze", str(tmp_path / "half.parquet"), "--metric", "steps"]) == 1


def test_items_spread_over_by_groups_get_no_noise_row_from_cells():
    # item 0's runs of 'a' sit in both groups: its halves in seed order cross the groups
    rows = [{"item": i, "variant": v, "seed": s, "g": "x" if s <= 2 else "y", "score": (i + s * (v == "a")) % 5}
            for i in range(6) for v in ("a", "b") for s in range(1, 5)]
    cells, _ = cell_table(rows, metric="score", by=["g"])
    got = analyze_cells(cells, metric="score", by=["g"])
    assert got.noise is None and [p.code for p in got.problems][-1] == "no_within_noise"


def test_cells_honour_seed_and_resamples_for_every_bootstrap():
    """The seed and the number of resamples reach the effect sizes' d_av interval and the average gap's
    bootstrap interval from a cell table: changing either changes the interval, each states the
    values it used, and the figures equal the row log's with the same settings (scipy.stats.bootstrap
    with the same generator, called by the row path)."""
    import numpy as np

    rng = np.random.default_rng(11)
    rows = [{"item": i, "variant": v, "seed": s, "x": round(float(rng.normal(i % 4 + (v == "a") * (0.3 + i % 3), 1)), 3)}
            for i in range(12) for v in ("a", "b") for s in range(1, 5)]
    cells, _ = cell_table(rows, metric="x")
    found = {}
    for seed, n in ((1, 999), (2, 999), (1, 1999)):
        res = analyze_cells(cells, metric="x", interval="percentile", seed=seed, n_resamples=n, mdg=False)
        dav, iv = res.main.effects.d_av, res.main.interval
        assert f"{n:,} resamples, seed {seed}" in dav.interval_method
        assert f"({n:,} resamples, seed {seed})" in iv.method
        row = analyze(rows, metric="x", interval="percentile", seed=seed, n_resamples=n, mdg=False,
                      within_noise=False)
        assert (dav.low, dav.high) == (row.main.effects.d_av.low, row.main.effects.d_av.high)
        assert (iv.low, iv.high) == (row.main.interval.low, row.main.interval.high)
        found[(seed, n)] = (dav.low, dav.high, iv.low, iv.high)
    assert found[(1, 999)] != found[(2, 999)] and found[(1, 999)] != found[(1, 1999)]
    hedged = analyze_cells(cells, metric="x", hedges=True, mdg=False)
    assert hedged.main.effects.d_z.name == "g_z"


def test_a_report_of_a_cell_table_states_the_seed_it_used(tmp_path):
    from probestats.jobs.report import report

    rows = [{"item": i, "variant": v, "seed": s, "x": (i * 7 + s * 3 + (v == "a") * (i % 3)) % 5}
            for i in range(10) for v in ("a", "b") for s in range(1, 4)]
    cells, _ = cell_table(rows, metric="x")
    path = tmp_path / "cells.parquet"
    cells.write_parquet(path)
    out = {}
    for seed in (3, 4):
        job = report(path, metric="x", format="json", tests=Tests(seed=seed, n_resamples=499, interval="bootstrap"))
        data = json.loads(job.text)
        assert f"499 resamples, seed {seed}" in data["effect_sizes"]["d_av"]["interval_method"]
        assert f"(499 resamples, seed {seed})" in data["interval"]["method"]
        out[seed] = (data["effect_sizes"]["d_av"]["low"], data["interval"]["low"])
    assert out[3] != out[4]
