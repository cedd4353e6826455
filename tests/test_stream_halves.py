"""The within-log halves drawn from each cell's counts of its values give the halves drawn from its runs.

probestats.analyses.halves.half_sums draws a cell's two halves from how often each value occurs
(what the streaming pass keeps), first_half_flags from the runs themselves. The tests check the
counts' draw against the rule written out by hand (tests.factories.halves_by_hand) and against the
runs' draw, then check that analyze's JSON and the cell table are the same, bit for bit, whether the
log was read in the streaming pass or row by row, on logs of each kind the brief of the draw names:
rows sorted by the metric, ties, odd runs, blocks, --by groups, missing values, values with decimal
places, and a value in nearly every run.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

import probestats.analyses.halves as halves
import probestats.checks.stream as stream
from probestats.analyses.cells import cell_table
from probestats.analyses.halves import first_half_flags, half_sums
from tests.factories import halves_by_hand, make_log
from tests.test_stream import both, write


def _counts(runs: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    return runs.group_by(*keys, pl.col("x").alias("__units")).agg(pl.len().alias("__count"))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "10"]), st.integers(-3, 3)), min_size=1, max_size=60),
       st.integers(0, 2**64 - 1))
def test_the_counts_draw_the_rule_written_out_by_hand(runs, seed):
    frame = pl.DataFrame(runs, schema={"item": pl.String, "x": pl.Int64}, orient="row")
    drawn = half_sums(_counts(frame, ["item"]), ["item"], seed)
    for item, n, n1, s1, q1, s, q in drawn.select("item", "counted", "n_first", "__first_s", "__first_q",
                                                  "__s", "__q").iter_rows():
        values = [x for i, x in runs if i == item]
        first, _ = halves_by_hand(values, item, seed)
        assert (n, n1, s1, q1) == (len(values), len(first), sum(first), sum(v * v for v in first))
        assert (s, q) == (sum(values), sum(v * v for v in values))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 400), st.integers(1, 12), st.integers(1, 60), st.integers(0, 2**32), st.booleans(),
       st.sampled_from([3, 64, 1 << 20]))
def test_the_counts_draw_what_the_runs_draw(n, items, values, seed, by_item, batch):
    # cells of two keys (one of them blank now and then), named by both or by the item alone, drawn
    # in batches of a few places or many: each cell's first half has the runs' count and sums
    rng = np.random.default_rng(seed)
    runs = pl.DataFrame({"group": pl.Series(rng.choice(["en", "de", "-"], n)).replace("-", None),
                         "item": rng.integers(0, items, n).astype(str), "x": rng.integers(-values, values, n)})
    keys, names = ["group", "item"], (["item"] if by_item else None)
    old = halves._BATCH
    halves._BATCH = batch
    try:
        drawn = half_sums(_counts(runs, keys), keys, seed, names=names)
    finally:
        halves._BATCH = old
    flags = first_half_flags(runs, "x", keys, seed, names=names)
    want = (runs.with_columns(flags.alias("f")).group_by(keys)
            .agg(pl.len().alias("counted"), pl.col("f").sum().cast(pl.Int64).alias("n_first"),
                 pl.col("x").filter("f").sum().alias("s1"), (pl.col("x") ** 2).filter("f").sum().alias("q1"))
            .sort(keys, nulls_last=False))
    got = drawn.sort(keys, nulls_last=False)
    assert got.select(*keys, "counted", "n_first").rows() == want.select(*keys, pl.col("counted").cast(pl.Int64),
                                                                         "n_first").rows()
    assert [int(v) for v in got["__first_s"]] == [int(v or 0) for v in want["s1"]]
    assert [int(v) for v in got["__first_q"]] == [int(v or 0) for v in want["q1"]]


def test_no_counts_draw_no_cells():
    empty = pl.DataFrame(schema={"item": pl.String, "__units": pl.Int64, "__count": pl.UInt32})
    assert half_sums(empty, ["item"], 0).height == 0


def _logs(tmp_path):
    """Generated logs of every kind the draw must survive, with whether the pass can take each."""
    ties = make_log(items=10, runs=9, seed=1)   # whole numbers: many runs share a value
    fractional = make_log(items=9, runs=6, seed=2, integer=False).with_columns(pl.col("steps").round(2))
    distinct = make_log(items=6, runs=40, seed=3, integer=False).with_columns(pl.col("steps").round(4))
    blocks = make_log(items=8, runs=6, seed=4).with_columns(
        pl.when(pl.col("seed").cast(pl.Int64) % 2 == 0).then(pl.lit("m-2")).otherwise(pl.lit("m-1")).alias("model"))
    missing = make_log(items=8, runs=5, seed=5).with_columns(
        pl.when(pl.int_range(pl.len()) == 3).then(None).otherwise(pl.col("steps")).alias("steps"))
    grouped = make_log(items=8, runs=6, seed=6).with_columns(
        pl.when(pl.col("item").cast(pl.Int64) % 3 == 0).then(pl.lit("en")).otherwise(pl.lit("de")).alias("language"))
    split = make_log(items=6, runs=6, seed=7).with_columns(
        pl.when(pl.col("seed").cast(pl.Int64) % 2 == 0).then(pl.lit("en")).otherwise(pl.lit("de")).alias("language"))
    return {
        "ties": (write(ties, tmp_path / "ties.csv"), True),
        "odd_runs": (write(make_log(items=7, runs=5, seed=8), tmp_path / "odd.csv"), True),
        "sorted": (write(make_log(items=6, runs=8, seed=9).sort("item", "variant", "steps"), tmp_path / "sorted.csv"),
                   False),
        "fractional": (write(fractional, tmp_path / "frac.parquet"), True),
        "many_values": (write(distinct, tmp_path / "distinct.csv"), True),
        "blocks": (write(blocks, tmp_path / "blocks.csv"), False),
        "missing": (write(missing, tmp_path / "missing.csv"), False),
        "by": (write(grouped, tmp_path / "by.csv"), True),
        "by_splits_items": (write(split, tmp_path / "split.csv"), True),
    }


@pytest.mark.parametrize("kind", ["ties", "odd_runs", "sorted", "fractional", "many_values", "blocks", "missing",
                                  "by", "by_splits_items"])
def test_analyze_gives_the_same_json_from_the_counts_and_from_the_runs(kind, tmp_path):
    path, streams = _logs(tmp_path)[kind]
    by = ["language"] if kind.startswith("by") else []
    for options in ({"by": by}, {"by": by, "a": "casual", "b": "formal"}, {"by": by, "noise_value": "casual"}):
        eager, streamed = both(path, metric="steps", **options)
        assert streamed == eager, (kind, options)
    data = json.loads(streamed)
    # the log's own halves, read over every split (the same from the counts as from the runs, checked above)
    assert data["noise"] is not None and "read over every split" in data["noise"]["source"]
    got = stream.validate_streaming(path, metric="steps", by=by, halves=True)
    assert (got is not None) == streams, kind


@pytest.mark.parametrize("kind", ["ties", "odd_runs", "sorted", "fractional", "many_values", "blocks", "missing",
                                  "by", "by_splits_items"])
def test_cell_tables_are_the_same_from_the_counts_and_from_the_runs(kind, tmp_path, monkeypatch, passes):
    path, streams = _logs(tmp_path)[kind]
    by = ["language"] if kind.startswith("by") else []
    table, _ = cell_table(path, metric="steps", by=by)
    taken = list(passes)
    with monkeypatch.context() as m:
        m.setattr(stream, "validate_streaming", lambda *a, **k: None)
        rows, _ = cell_table(path, metric="steps", by=by)
    assert table.equals(rows) and table.columns == rows.columns, kind
    assert (taken and all(taken)) == streams, kind
    # the halves hold counted // 2 runs of each cell and sum to no more than the cell (a hand check of the columns)
    assert (table["n_first"] == table["counted"] // 2).all()


def test_the_counts_grow_with_the_distinct_values_not_the_runs(tmp_path):
    # 2,000 runs per cell of whole numbers: the counts hold a row per cell and value seen
    frame = make_log(items=4, runs=2000, seed=10)
    path = write(frame, tmp_path / "long.csv")
    got = stream.validate_streaming(path, metric="steps", halves=True)
    distinct = frame.select(pl.struct("item", "variant", "steps").n_unique()).item()
    assert got is not None and got.halves.height == distinct < frame.height / 50
    assert got.halves["__count"].sum() == frame.height


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2"]), st.integers(0, 3)), min_size=1, max_size=30))
def test_the_steps_between_runs_are_told_from_each_values_first_and_last_row(runs):
    # a cell's runs in row order go up somewhere exactly when the pass's __up is not 0 (down likewise),
    # though the pass keeps only each value's first and last row: checked against the runs' own steps
    from probestats.checks.schema import FIRST
    from probestats.checks.stream import _combined

    frame = pl.DataFrame(runs, schema={"item": pl.String, "x": pl.Int64}, orient="row").with_row_index("row")
    fine = frame.group_by("item", pl.col("x").alias("__units")).agg(
        pl.len().alias("n"), pl.col("row").min().alias(FIRST), pl.col("row").max().alias("__last"))
    cells = _combined(fine, ["item"])
    for item, up, down in cells.select("item", "__up", "__down").iter_rows():
        xs = frame.filter(pl.col("item") == item)["x"].to_list()
        steps = [b - a for a, b in zip(xs, xs[1:])]
        assert (up > 0, down > 0) == (any(d > 0 for d in steps), any(d < 0 for d in steps)), (xs, up, down)
