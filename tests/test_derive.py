"""--where and --derive: polars SQL expressions applied to the read log before validation."""

from __future__ import annotations

import polars as pl
import pytest

from probestats.shape.derive import apply, parse_derive
from probestats.errors import ColumnError, OptionError
from tests.engines import analyze_pair as analyze
from probestats.checks.schema import validate
from tests.factories import make_log, write_log


def test_where_keeps_rows_and_their_file_lines(tmp_path):
    log = make_log(items=4, runs=3, seed=1)
    path = write_log(log, tmp_path / "log.csv")   # CSV: every column read as text
    kept = apply(str(path), where="seed >= 2 AND item <> '3'")
    frame = kept.frame
    # independent: the same filter in plain polars on the frame as written
    direct = log.with_row_index("i").filter((pl.col("seed") >= 2) & (pl.col("item") != "3"))
    assert frame.height == direct.height
    assert kept.rows(frame["_row"].to_list()) == [i + 2 for i in direct["i"].to_list()]   # header is line 1
    assert frame["seed"].dtype == pl.String   # the column itself stays as read


def test_derived_metric_is_the_metric(tmp_path):
    rows = [{"item": i, "variant": v, "words": 40 + 15 * (v == "padded") + i} for i in range(6)
            for v in ("padded", "plain")]
    path = write_log(rows, tmp_path / "log.csv")
    log = apply(str(path), derive=["long = CASE WHEN words > 50 THEN 1 ELSE 0 END"])
    result = analyze(log, metric="long", a="padded", b="plain")
    # by hand: padded words 55+i > 50 for all i; plain 40+i > 50 for none: every gap is 1
    assert result.main.gaps == [1.0] * 6
    checked = validate(log, metric="long")
    assert checked.ok and checked.frame["long"].dtype == pl.Float64


def test_derive_in_order_and_replacing():
    rows = [{"item": 1, "variant": "a", "x": 2}, {"item": 1, "variant": "b", "x": 3}]
    log = apply(rows, derive=["y = x * 10", "z = y + 1", "x = x - 1"])
    assert log.frame.select("x", "y", "z").rows() == [(1, 20, 21), (2, 30, 31)]


def test_parse_derive():
    assert parse_derive("a = b == 1") == ("a", "b == 1")
    assert parse_derive('"new col" = x') == ("new col", "x")
    with pytest.raises(OptionError, match="expected NAME = SQL expression"):
        parse_derive("== 1")


def test_clear_errors():
    rows = [{"item": 1, "variant": "a", "steps": 1}]
    with pytest.raises(ColumnError) as exc:
        apply(rows, where="stpes > 1")
    assert str(exc.value) == ("where='stpes > 1': unknown column 'stpes'; columns seen: item, variant, steps "
                              "(quote names with spaces in double quotes)")
    with pytest.raises(ColumnError, match="unknown columns 'p', 'q'"):
        apply(rows, derive=["z = p + q"])
    with pytest.raises(OptionError, match="not a SQL expression polars can read"):
        apply(rows, where="steps >")
    with pytest.raises(OptionError, match="not true/false"):
        apply(rows, where="steps + 1")
    with pytest.raises(OptionError, match="cannot be computed on this log"):
        apply(rows, where="variant > 3")


def test_nothing_to_do_returns_the_log():
    rows = [{"item": 1, "variant": "a", "x": 1}]
    log = apply(rows)
    assert apply(log) is log


# ------------------------------------------------------------------------- command line


def run_cli(args, capsys):
    from probestats.cli import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_where_and_derive(tmp_path, capsys):
    import json

    path = write_log(make_log(items=6, runs=4, gap=1.0, seed=2), tmp_path / "log.csv")
    code, out, err = run_cli(["analyze", path, "--metric", "high", "--derive", "high = steps >= 6",
                              "--where", "seed <= 3", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert data["metric"] == "high" and all(r["n_a"] == 3 and r["n_b"] == 3 for r in data["items"])
    code, out, err = run_cli(["analyze", path, "--metric", "steps", "--where", "stpes > 1"], capsys)
    assert code == 1 and out == ""
    assert err == ("Error: --where 'stpes > 1': unknown column 'stpes'; columns seen: item, variant, seed, model, "
                   "temperature, steps (quote names with spaces in double quotes)\n")
    code, out, err = run_cli(["analyze", path, "--metric", "steps", "--derive", "oops"], capsys)
    assert code == 1
    assert err == ("Error: --derive oops: expected NAME = SQL expression, for example "
                   "--derive \"long = words > 50\"\n")
    code, out, err = run_cli(["validate", path, "--metric", "steps", "--where", "item = '99'"], capsys)
    assert code == 1 and "empty_log" in out
    code, out, err = run_cli(["validate", path, "--metric", "steps", "--where", "item <> '5'", "--json"], capsys)
    assert code == 0 and json.loads(out)["ok"]


def test_a_where_that_keeps_no_row_names_the_filter_not_an_empty_file(tmp_path, capsys):
    path = write_log(make_log(items=3, runs=2, seed=0), tmp_path / "log.csv")
    code, out, err = run_cli(["analyze", path, "--metric", "steps", "--where", "item = '99'"], capsys)
    assert code == 1
    assert err == ("Error: 1 validation error: no row of 'log.csv' meets --where \"item = '99'\"; loosen the condition "
                   "(run probestats validate for the full list)\n")


def test_a_column_named_twice_and_a_subquery(tmp_path):
    rows = [{"item": i, "variant": v, "steps": 2 + i + (v == "a")} for i in range(3) for v in ("a", "b")]
    path = write_log(rows, tmp_path / "log.csv")   # CSV: steps read as text, so numeric views are made
    log = apply(str(path), derive=["r = steps / (steps + steps)"])
    assert log.frame["r"].to_list() == [0.5] * 6   # x / (x + x) by hand
    with pytest.raises(OptionError, match=r"a subquery \(SELECT ...\) cannot be used here"):
        apply(rows, where="item IN (SELECT 1)")
