"""Every CSV probestats writes from a log's values opens in a spreadsheet as text, never as a formula: cells that
start with =, +, -, @, a tab or a carriage return get a leading apostrophe (OWASP's CSV-injection guidance),
numeric columns stay numbers, and the CSVs probestats reads back (its cell table, the page's targets file) are
read as the names the log had."""

from __future__ import annotations

import polars as pl
import pytest
from click.testing import CliRunner

import probestats
from probestats.cli import cli
from probestats.io.formulas import neutral_cell, restored_cell
from tests.factories import make_log

#: item names a spreadsheet would run as formulas, and what the written CSV must hold for each
HOSTILE = {'=HYPERLINK("x")': '\'=HYPERLINK("x")', "+1+1": "'+1+1", "@SUM(A1)": "'@SUM(A1)", "-2+3": "'-2+3",
           "-2": "'-2"}
SPREADSHEET_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _hostile_log(items: int = 45, values=("formal", "casual"), seed: int = 3) -> pl.DataFrame:
    """A log whose first items are named as formulas (and one value too, with three values)."""
    names = list(HOSTILE)
    frame = make_log(items=items, runs=3, gap=0.4, seed=seed, values=values, integer=False)
    renamed = {str(i): name for i, name in enumerate(names)}
    # two decimals: a cell table keeps exact sums; runs that differ, so no item's runs are constant
    return frame.with_columns(pl.col("item").cast(pl.String).replace(renamed), pl.col("steps").round(2))


def _write(frame: pl.DataFrame, path):
    frame.write_csv(path)
    return path


def _text(path) -> pl.DataFrame:
    return pl.read_csv(path, infer_schema=False)


def _assert_neutral(column: list[str]) -> None:
    assert not [c for c in column if c is not None and c.startswith(SPREADSHEET_STARTS)], column


def test_one_function_neutralizes_and_its_inverse_restores():
    for name, written in HOSTILE.items():
        assert neutral_cell(name) == written and restored_cell(written) == name
    assert neutral_cell("\tTAB") == "'\tTAB" and neutral_cell("\rCR") == "'\rCR"   # a log's reader strips these
    for text in ("'=x", "''@y", "it's", "'", "", "item 7", "2.5"):   # exact round trips, texts left as they are
        assert restored_cell(neutral_cell(text)) == text
    assert neutral_cell("item 7") == "item 7" and neutral_cell("'=x") == "''=x"
    assert neutral_cell(-2.5) == -2.5   # a number is not text: never touched


def test_the_cell_table_csv_is_neutralized_and_read_back_as_the_log(tmp_path):
    log = _write(_hostile_log(), tmp_path / "log.csv")
    table = tmp_path / "cells.csv"
    done = CliRunner().invoke(cli, ["cells", str(log), "--metric", "steps", "-o", str(table)])
    assert done.exit_code == 0, done.stderr
    written = _text(table)
    assert set(HOSTILE.values()) <= set(written["item"].to_list())
    _assert_neutral(written["item"].to_list())
    # the numbers stay numbers: a spreadsheet (and polars) reads them as numbers, written as they were
    typed = pl.read_csv(table)
    assert typed.schema["n"] == pl.Int64 and typed.schema["min"] == pl.Float64 and typed.schema["places"] == pl.Int64
    built = probestats.cells(str(log), metric="steps").table
    assert typed["n"].to_list() == built["n"].to_list() and typed["max"].to_list() == built["max"].to_list()
    assert written["sum_units"].to_list() == built["sum_units"].to_list()   # exact sums untouched
    # read back: the same analysis as the log's, its items named as in the log
    from_table = probestats.analyze(str(table), metric="steps")
    from_log = probestats.analyze(str(log), metric="steps")
    assert from_table.main.items["item"].to_list() == from_log.main.items["item"].to_list()
    assert set(HOSTILE) <= set(from_table.main.items["item"].to_list())
    assert from_table.main.sign_flip.pvalue == from_log.main.sign_flip.pvalue
    assert from_table.main.average_gap == pytest.approx(from_log.main.average_gap, abs=1e-12)


def test_the_tables_beside_a_report_are_neutralized_and_keep_their_numbers(tmp_path):
    log = _write(_hostile_log(), tmp_path / "log.csv")
    out = tmp_path / "r.md"
    done = CliRunner().invoke(cli, ["report", str(log), "--metric", "steps", "--per-item", "-o", str(out)])
    assert done.exit_code == 0, done.stderr
    folder = tmp_path / "r_files"
    items, welch = _text(folder / "items.csv"), _text(folder / "welch_per_item.csv")
    for table in (items, welch):
        assert set(HOSTILE.values()) <= set(table["item"].to_list())
        _assert_neutral(table["item"].to_list())
    typed = pl.read_csv(folder / "items.csv", schema_overrides={"item": pl.String})
    assert typed.schema["gap"] == pl.Float64 and typed.schema["runs_a"] == pl.Int64
    assert (typed["gap"] < 0).any()   # negative gaps are written as numbers, no apostrophe
    # each gap is the item's mean difference, computed here from the log
    frame = _hostile_log()
    means = frame.group_by("item", "variant").agg(pl.col("steps").mean()).pivot("variant", index="item", values="steps")
    expected = {neutral_cell(i): f - c for i, f, c in means.select("item", "formal", "casual").iter_rows()}
    assert {i: g for i, g in typed.select("item", "gap").iter_rows()} == pytest.approx(expected, abs=1e-12)
    assert pl.read_csv(folder / "welch_per_item.csv", schema_overrides={"item": pl.String}).schema["p"] == pl.Float64


def test_the_tables_of_many_values_are_neutralized(tmp_path):
    from probestats.present.report.collapse import pairs_csv

    frame = _hostile_log(values=("a", "=b", "+c"))
    log = _write(frame, tmp_path / "log.csv")
    out = tmp_path / "r.md"
    done = CliRunner().invoke(cli, ["report", str(log), "--metric", "steps", "--reference", "a", "-o", str(out)])
    assert done.exit_code == 0, done.stderr
    gaps = _text(tmp_path / "r_files" / "item_gaps.csv")
    assert set(HOSTILE.values()) <= set(gaps["item"].to_list()) and {"'=b", "'+c"} <= set(gaps["value"].to_list())
    for column in ("item", "value", "reference"):
        _assert_neutral(gaps[column].to_list())
    typed = pl.read_csv(tmp_path / "r_files" / "item_gaps.csv", schema_overrides={"item": pl.String})
    assert typed.schema["mean"] == pl.Float64 and typed.schema["runs"] == pl.Int64
    pairs = pl.read_csv(pairs_csv(probestats.analyze(frame, metric="steps", reference="a").main),
                        schema_overrides={"a": pl.String, "b": pl.String})
    assert set(pairs["a"].to_list()) | set(pairs["b"].to_list()) == {"a", "'=b", "'+c"}
    assert pairs.schema["average_gap"] == pl.Float64 and pairs.schema["p"] == pl.Float64


def test_the_pages_targets_file_is_neutralized_and_read_back_as_typed(tmp_path):
    from probestats.serve.session import targets_csv

    log = pl.read_csv("sample_logs/framing_long.csv", infer_schema=False)
    hostile = log.with_columns(pl.col("Topic").replace({"leadership": '=HYPERLINK("x")', "remote_work": "@SUM(A1)"}))
    _write(hostile, tmp_path / "framing.csv")
    typed = [('=HYPERLINK("x")', "female", "male"), ("@SUM(A1)", "+remote", "-office")]
    (tmp_path / "targets.csv").write_text(targets_csv(typed), encoding="utf-8")
    written = _text(tmp_path / "targets.csv")
    assert written.rows() == [("'=HYPERLINK(\"x\")", "female", "male"), ("'@SUM(A1)", "'+remote", "'-office")]
    # the command the page gives reads the file back as the targets typed: the analysis of the original names
    read = probestats.framing(str(tmp_path / "framing.csv"), targets=str(tmp_path / "targets.csv"))
    plain = tmp_path / "plain.csv"
    plain.write_text("topic,affirmative,reverse\nleadership,female,male\nremote_work,+remote,-office\n")
    original = probestats.framing("sample_logs/framing_long.csv", targets=str(plain))
    assert {c.by["topic"] for c in read.cells} == {'=HYPERLINK("x")', "@SUM(A1)"}
    assert [c.pattern for c in read.cells] == [c.pattern for c in original.cells]
