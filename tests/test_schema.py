"""Validation: every coded problem, collected at once, with the rows a person would look at."""

from __future__ import annotations

import re
import statistics

from pathlib import Path

import polars as pl
import pytest

from probestats.checks.schema import ColumnRoles, validate   # the checks, with their keywords
from probestats.errors import ValidationError
from probestats.checks.schema import require_ok
from tests.factories import make_log, write_log

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
BROKEN = SAMPLES / "broken"


def codes(checked):
    return [p.code for p in checked.problems]


def test_clean_sample_has_no_problems():
    checked = validate(SAMPLES / "style_probe.csv", metric="steps")
    assert checked.ok and checked.problems == ()
    assert (checked.a, checked.b) == ("formal", "casual")
    assert checked.values == ("formal", "casual")


def test_non_numeric_on_line_39():
    checked = validate(BROKEN / "non_numeric.csv", metric="steps")
    assert codes(checked) == ["non_numeric"]
    problem = checked.errors[0]
    assert problem.rows == (39,)
    assert problem.column == "steps"
    assert problem.message == "steps: 'four' is not a number (line 39); write the count as a number or clear the cell"
    # line 39 really holds the bad cell (the header is line 1)
    assert "four" in (BROKEN / "non_numeric.csv").read_text().splitlines()[38]


def test_unmatched_item_names_the_item():
    checked = validate(BROKEN / "unmatched_item.csv", metric="steps")
    assert codes(checked) == ["unmatched_item"]
    assert checked.errors[0].message.startswith("item 5 has no 'casual' runs (lines 52-56 are all 'formal')")
    lines = (BROKEN / "unmatched_item.csv").read_text().splitlines()
    assert all(",5,formal," in lines[r - 1] for r in checked.errors[0].rows)


def test_confounded_model():
    checked = validate(BROKEN / "confounded_model.csv", metric="steps")
    assert codes(checked) == ["confounded_setting"]
    msg = checked.errors[0].message
    assert "'formal' runs used 'stand-in-v1', 'casual' runs used 'stand-in-v2'" in msg
    assert msg.endswith("rerun with model held fixed, split with by='model', or, when it is varied on purpose "
                        "(which model decides), declare it with Probe(attribute_settings=['model'])")


def test_missing_metric_lists_headers():
    checked = validate(BROKEN / "missing_metric.csv", metric="steps")
    assert codes(checked) == ["missing_column"]
    assert checked.errors[0].message.startswith(
        "no column for the metric 'steps'; headers seen: time, model, temperature, item, variant, seed, prompt")


def test_missing_metric_suggests_a_free_header():
    rows = [{"Item": 1, "Variant": v, "Score": 1} for v in "ab"]
    checked = validate(rows, metric="steps")
    assert checked.errors[0].message == (
        "no column for the metric 'steps'; headers seen: Item, Variant, Score (use metric='Score', or columns={'steps': 'Score'})"
    )


def test_every_problem_is_collected_at_once():
    frame = make_log(items=4, runs=3, seed=5)
    rows = frame.to_dicts()
    rows[0]["steps"] = "lots"  # non_numeric
    rows = [r for r in rows if not (r["item"] == "3" and r["variant"] == "casual")]  # unmatched item 3
    rows.append(dict(rows[1]))  # a duplicate run
    checked = validate(rows, metric="steps")
    assert {"non_numeric", "unmatched_item", "duplicate_run"} <= set(codes(checked))
    with pytest.raises(ValidationError, match=r"^2 validation errors: "):
        require_ok(checked)


def test_unknown_value_and_too_few_values():
    frame = make_log(items=2, runs=2)
    checked = validate(frame, metric="steps", a="formal", b="Casual")
    assert codes(checked) == ["unknown_value"]
    assert checked.errors[0].message == (
        "b='Casual': no such value in the log; values seen: 'formal', 'casual'; did you mean 'casual'?")
    only_one = validate(frame.filter(pl.col("variant") == "formal"), metric="steps")
    assert codes(only_one) == ["too_few_values"]


def test_mixed_setting_warning_and_by_allows_it():
    # items nested in models (each item run under one): the pooled items mix models, which a reader is told
    a = make_log(items=3, runs=2, model="m1", seed=1)
    b = make_log(items=3, runs=2, model="m2", seed=2).with_columns((pl.col("item").cast(pl.Int64) + 3).cast(pl.String))
    both = pl.concat([a, b])
    checked = validate(both, metric="steps")
    assert "mixed_setting" in codes(checked) and checked.ok
    assert "mixed_setting" not in codes(validate(both, metric="steps", by=["model"]))
    # the same items under both models: a block, matched within and shown per model by the analysis, no warning
    crossed = pl.concat([a, make_log(items=3, runs=2, model="m2", seed=2)])
    assert "mixed_setting" not in codes(validate(crossed, metric="steps"))


def test_seed_mismatch_unequal_runs_duplicates():
    frame = make_log(items=2, runs=3, seed=0)
    shifted = frame.with_columns(
        pl.when(pl.col("variant") == "casual").then(pl.col("seed") + 100).otherwise(pl.col("seed")).alias("seed"))
    assert codes(validate(shifted, metric="steps")) == ["seed_mismatch"]
    assert codes(validate(shifted, metric="steps", same_seeds=False)) == []
    fewer = frame.filter(~((pl.col("item") == "0") & (pl.col("variant") == "casual") & (pl.col("seed") == 3)))
    assert set(codes(validate(fewer, metric="steps"))) == {"seed_mismatch", "unequal_runs"}
    dup = pl.concat([frame, frame.head(1)])
    checked = validate(dup, metric="steps")
    assert "duplicate_run" in codes(checked)
    assert checked.problems[codes(checked).index("duplicate_run")].rows == (1, 13)


def test_not_alternated_for_timed_runs():
    frame = make_log(items=2, runs=3, seed=0)
    order = frame.with_columns(
        (pl.when(pl.col("variant") == "formal").then(0).otherwise(100) + pl.col("seed").cast(pl.Int64)).alias("t"))
    blocked = order.with_columns(pl.from_epoch(pl.col("t") * 60).dt.to_string("%Y-%m-%dT%H:%M:%S").alias("time"))
    assert "not_alternated" in codes(validate(blocked.drop("t"), metric="steps"))
    # with many items, the message names them in the order the log has them, the same on every run
    many = make_log(items=12, runs=2, seed=0).with_columns(
        pl.from_epoch((pl.when(pl.col("variant") == "formal").then(0).otherwise(100)
                       + pl.col("seed").cast(pl.Int64)) * 60).dt.to_string("%Y-%m-%dT%H:%M:%S").alias("time"))
    for _ in range(3):
        (problem,) = [p for p in validate(many, metric="steps").problems if p.code == "not_alternated"]
        assert "(items 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 2 more)" in problem.message
    alternating = order.with_columns(
        pl.from_epoch((pl.col("seed").cast(pl.Int64) * 2 + (pl.col("variant") == "casual").cast(pl.Int64)) * 60)
        .dt.to_string("%Y-%m-%dT%H:%M:%S").alias("time"))
    assert "not_alternated" not in codes(validate(alternating.drop("t"), metric="steps"))


def test_suspect_metric_when_reply_is_not_empty():
    rows = [{"item": 1, "variant": "a", "steps": 0, "reply": "1) check the loop\n2) print i"},
            {"item": 1, "variant": "b", "steps": 2, "reply": "1. a\n2. b"}]
    checked = validate(rows, metric="steps")
    assert codes(checked) == ["suspect_metric"]
    assert checked.problems[0].rows == (1,)


def test_deterministic_judge():
    rows = [{"item": i, "variant": v, "seed": s, "level": 3 + (v == "padded")}
            for i in range(3) for v in ("padded", "plain") for s in range(3)]
    assert codes(validate(rows, metric="level")) == ["deterministic"]


def test_near_duplicate_values_and_fold_case():
    checked = validate(BROKEN / "near_duplicate.csv", metric="steps")
    assert codes(checked)[0] == "near_duplicate_value"
    assert checked.warnings[0].message.endswith("use fold_case=True to treat them as one value")
    folded = validate(BROKEN / "near_duplicate.csv", metric="steps", fold_case=True)
    assert codes(folded) == ["near_duplicate_value"]
    assert folded.values == ("formal", "casual")


def test_empty_log_and_blank_metric(tmp_path):
    assert codes(validate(BROKEN / "empty.csv", metric="steps")) == ["empty_log"]
    path = tmp_path / "blank.csv"
    path.write_text("item,variant,steps\n1,a,3\n1,b,\n1,b,2\n")
    checked = validate(path, metric="steps")
    assert codes(checked) == ["blank_metric"] and checked.problems[0].rows == (3,)  # 1 counted run each
    assert checked.frame.height == 2


def test_infinite_metric_is_not_a_number(tmp_path):
    # 'inf' casts to a float, but no mean or gap can use it; 'NaN' is a missing value
    path = tmp_path / "inf.csv"
    path.write_text("item,variant,steps\n1,a,NaN\n1,a,2\n1,b,3\n1,b,4\n2,a,inf\n2,a,1\n2,b,3\n2,b,-Infinity\n")
    checked = validate(path, metric="steps")
    assert [(p.code, p.rows) for p in checked.problems] == [("non_numeric", (6, 9)), ("blank_metric", (2,))]
    assert checked.errors[0].message == (
        "steps: 2 cell(s) hold an infinite value (lines 6, 9); write the count as a finite number or clear the cell")


def test_an_item_whose_runs_of_a_value_all_lack_the_metric_is_unmatched(tmp_path):
    # item 2's only 'a' run is blank: its gap cannot be computed, and the analysis would drop it
    path = tmp_path / "blank.csv"
    path.write_text("item,variant,steps\n1,a,3\n1,b,2\n2,a,\n2,b,1\n3,a,4\n3,b,1\n")
    checked = validate(path, metric="steps")
    assert [(p.code, p.rows) for p in checked.problems] == [("blank_metric", (4,)), ("unmatched_item", (4,))]
    assert checked.errors[0].message == (
        "item 2 has 'a' runs but none with a steps value (line 4); fill in the values or drop the item "
        "(or complete=True to keep only the items measured under every value)")
    # a cell that is not a number has its own error (and the suspect-metric check leaves it to that error)
    path.write_text("item,variant,steps,reply\n1,a,3,x\n1,b,2,x\n2,a,four,x\n2,b,1,x\n")
    assert [(p.code, p.rows) for p in validate(path, metric="steps").problems] == [("non_numeric", (4,))]


@pytest.mark.parametrize("kwargs", [{"metric": "item"}, {"metric": "variant"}, {"metric": "steps", "by": ["variant"]},
                                    {"metric": "steps", "by": ["item"]}])
def test_the_probes_own_columns_are_neither_metric_nor_split(kwargs):
    from probestats.errors import OptionError

    with pytest.raises(OptionError, match=r"^(metric|by)='(item|variant)'"):
        validate(make_log(items=2, runs=2), **kwargs)


def test_validate_json_shape():
    d = validate(SAMPLES / "style_probe.csv", metric="steps").to_dict()
    assert d["ok"] is True and d["rows"] == 320
    assert d["columns"]["item"] == "item" and d["problems"] == []


def test_row_numbers_in_a_spreadsheet(tmp_path):
    frame = make_log(items=2, runs=2).with_columns(pl.col("steps").cast(pl.String))
    frame = frame.with_columns(pl.when(pl.int_range(pl.len()) == 4).then(pl.lit("n/a")).otherwise(pl.col("steps"))
                               .alias("steps"))
    path = write_log(frame, tmp_path / "sheet.xlsx")
    checked = validate(path, metric="steps")
    assert [(p.code, p.rows) for p in checked.errors] == [("non_numeric", (6,))]  # header row 1, fifth run on row 6


def test_unequal_runs_counts_only_runs_with_a_metric(tmp_path):
    # item 1: two 'a' runs, two 'b' runs of which one has no metric -> 2 against 1 runs that count
    path = tmp_path / "log.csv"
    path.write_text("item,variant,steps\n1,a,3\n1,a,4\n1,b,2\n1,b,\n2,a,1\n2,b,1\n")
    checked = validate(path, metric="steps")
    assert codes(checked) == ["blank_metric", "unequal_runs"]
    assert "item 1: 2 'a', 1 'b'" in checked.problems[1].message


def test_format_and_encoding_options_are_usage_errors(capsys):
    from probestats.cli import main

    assert main([str(SAMPLES / "style_probe.csv"), "--read", "format=xml"]) == 2
    assert main(["validate", str(SAMPLES / "style_probe.csv"), "--read", "format=xml"]) == 2
    assert main(["validate", str(SAMPLES / "style_probe.csv"), "--read", "encoding=foo"]) == 2
    err = capsys.readouterr().err
    assert "'foo' is not an encoding Python knows" in err


# --- the per-cell summary: a cheap streaming pass with exact fallbacks, against plain Python sets ---

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from probestats.checks.cell_summary import FIRST, cell_summary, pair_cells, seen_per_item  # noqa: E402

_run = st.fixed_dictionaries({
    "item": st.sampled_from(["i1", "i2", "i3"]),
    "variant": st.sampled_from(["a", "b"]),
    "seed": st.one_of(st.none(), st.sampled_from(["1", "2", "3", "4"])),
    "model": st.one_of(st.none(), st.sampled_from(["m1", "m2"])),
    "temperature": st.one_of(st.none(), st.sampled_from([0.0, 0.8])),
    "steps": st.one_of(st.none(), st.sampled_from([1.0, 2.0, 3.0])),
})


def _reference_cells(runs):
    """Each (item, value) cell's sets and counts, computed the obvious way."""
    cells = {}
    for row, r in enumerate(runs):
        c = cells.setdefault((r["item"], r["variant"]),
                             {"n": 0, "steps": [], "seeds": [], "models": set(), "temperatures": set(),
                              "first_valued": None})
        c["n"] += 1
        if r["steps"] is not None:
            c["steps"].append(r["steps"])
            if c["first_valued"] is None:
                c["first_valued"] = row
        if r["seed"] is not None:
            c["seeds"].append(r["seed"])
        c["models"].add(r["model"])
        c["temperatures"].add(r["temperature"])
    return cells


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_run, min_size=1, max_size=30))
def test_cells_agree_with_plain_sets(runs):
    frame = pl.DataFrame(runs, schema={"item": pl.String, "variant": pl.String, "seed": pl.String,
                                       "model": pl.String, "temperature": pl.Float64,
                                       "steps": pl.Float64}).with_row_index("_row")
    got = {r["item"]: r for r in pair_cells(frame, "steps", "a", "b", ()).iter_rows(named=True)}
    ref = _reference_cells(runs)
    # items with both values, in the order their first 'a' run appears
    both = [i for i in dict.fromkeys(r["item"] for r in runs if r["variant"] == "a") if (i, "b") in ref]
    assert list(got) == both
    for item in both:
        ca, cb, row = ref[item, "a"], ref[item, "b"], got[item]
        for side, c in (("", ca), ("_b", cb)):
            assert row[f"n{side}"] == c["n"]
            assert row[f"counted{side}"] == len(c["steps"])
            assert row[f"seeded{side}"] == len(c["seeds"])
            assert row[f"distinct_seeds{side}"] == len(set(c["seeds"]))
            if c["steps"]:  # the metric summary the item table is built from
                assert row[f"mean{side}"] == pytest.approx(statistics.fmean(c["steps"]), rel=1e-12)
                assert row[f"first_valued{side}"] == c["first_valued"]
            if len(c["steps"]) > 1:
                assert row[f"sd{side}"] == pytest.approx(statistics.stdev(c["steps"]), rel=1e-9, abs=1e-12)
                assert row[f"constant{side}"] == (len(set(c["steps"])) == 1)
        assert (row["seeds"] == row["seeds_b"]) == (set(ca["seeds"]) == set(cb["seeds"]))
        assert (row["model"] == row["model_b"]) == (ca["models"] == cb["models"])
        assert (row["temperature"] == row["temperature_b"]) == (ca["temperatures"] == cb["temperatures"])


def test_cells_take_the_exact_path_for_repeated_seeds_and_mixed_settings():
    # item x: value a has seed 1 twice and models {m1, m2}; value b has seeds {1} and models {m2, m1}
    frame = pl.DataFrame({
        "item": ["x"] * 5, "variant": ["a", "a", "b", "b", "a"], "seed": ["1", "1", "1", "1", "1"],
        "model": ["m1", "m2", "m2", "m1", "m1"], "steps": [1.0, 2.0, 3.0, 3.0, 1.0],
    }).with_row_index("_row")
    row = pair_cells(frame, "steps", "a", "b", ()).row(0, named=True)
    assert (row["seeded"], row["distinct_seeds"], row["seeded_b"], row["distinct_seeds_b"]) == (3, 1, 2, 1)
    assert row["seeds"] == row["seeds_b"]  # the same set {1}, repeated a different number of times
    assert row["model"] == row["model_b"]  # the same set {m1, m2}
    assert (row["constant"], row["constant_b"]) == (False, True)


def test_values_written_with_surrounding_spaces_are_one_value_and_said_so(tmp_path):
    path = tmp_path / "spaced.csv"
    path.write_text("item,variant,steps\n1,formal,3\n1,casual,2\n2,formal ,4\n2,casual,2\n3, formal,4\n3,casual,3\n",
                    encoding="utf-8")
    checked = validate(path, metric="steps")
    assert checked.ok and checked.values == ("formal", "casual")
    (warning,) = checked.warnings
    assert warning.code == "near_duplicate_value" and warning.rows == (4, 6)
    assert warning.message.startswith("'formal ' (1 row), ' formal' (1 row) and 'formal' (1 row) differ only "
                                      "in surrounding spaces; they are read as one value 'formal'")
    # spaces written the same way in every run split nothing: no warning
    path.write_text("item,variant,steps\n1,formal ,3\n1,casual,2\n2,formal ,4\n2,casual,2\n", encoding="utf-8")
    assert validate(path, metric="steps").problems == ()


def test_a_temperature_is_one_number_however_written():
    def runs(temps_a, temps_b):
        return ([{"item": 1, "variant": "a", "temperature": t, "m": i} for i, t in enumerate(temps_a)]
                + [{"item": 1, "variant": "b", "temperature": t, "m": i} for i, t in enumerate(temps_b)])

    # 0.0 and -0.0 are the same temperature, whichever runs carry which
    assert validate(runs([0.0, -0.0], [-0.0, 0.0]), metric="m").problems == ()
    assert validate(runs([0.0, 0.0], [-0.0, -0.0]), metric="m").problems == ()
    # a run at NaN (no temperature) beside runs at 0.7 is a different setting from runs all at 0.7
    checked = validate(runs([float("nan"), 0.7], [0.7, 0.7]), metric="m")
    assert [p.code for p in checked.errors] == ["confounded_setting"]


def test_columns_named_like_internal_ones_are_the_logs_own(tmp_path):
    rows = [{"item": i, "variant": v, "m": i + (v == "a"), "_first": "x", "_text": "y", "_spaced": 1, "_order": 2}
            for i in range(3) for v in ("a", "b")]
    checked = validate(rows, metric="m", by=["_first"], roles=ColumnRoles(keep=["_text", "_spaced", "_order"]))
    assert checked.ok and checked.frame["_text"].to_list() == ["y"] * 6
    from probestats.analyses.items import item_table

    frame = pl.DataFrame({"item": ["2", "2", "1", "1"], "variant": ["a", "b", "a", "b"], "m": [1.0, 0.0, 3.0, 1.0],
                          "_row": [9, 8, 1, 0], "_order": [0, 0, 0, 0]})
    assert item_table(frame, "m", "a", "b")["item"].to_list() == ["2", "1"]  # the frame's order, whatever _row says


def test_a_split_named_by_a_header_read_under_its_canonical_name_says_which(tmp_path):
    path = tmp_path / "lang.csv"
    path.write_text("item,variant,lang,m\n1,a,en,1\n1,b,en,2\n", encoding="utf-8")
    (error,) = validate(path, metric="m", by=["lang"]).errors
    assert (error.code, error.message) == (
        "missing_column", "the header 'lang' is read as the column 'language'; name it 'language'")
    assert validate(path, metric="m", by=["language"]).ok


def test_a_metric_of_mixed_python_objects_is_read_as_text():
    from decimal import Decimal

    frame = pl.DataFrame({"item": ["1", "1", "2", "2"], "variant": ["a", "b", "a", "b"],
                          "m": pl.Series([Decimal(1), 2, "x", 3.5], dtype=pl.Object)})
    checked = validate(frame, metric="m")
    assert [(p.code, p.rows) for p in checked.errors] == [("non_numeric", (3,))]
    assert checked.frame.filter(pl.col("m").is_not_null())["m"].to_list() == [1.0, 2.0, 3.5]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_run, min_size=1, max_size=30), st.booleans())
def test_which_items_have_runs_reads_the_same_from_the_cells_as_from_the_runs(runs, split):
    # with only two values, validation reads which items (and groups) have runs, and runs with a
    # value, of each from the per-cell summary instead of grouping the runs again
    frame = pl.DataFrame(runs, schema={"item": pl.String, "variant": pl.String, "seed": pl.String,
                                       "model": pl.String, "temperature": pl.Float64,
                                       "steps": pl.Float64}).with_row_index("_row")
    keys = ["item", "model"] if split else ["item"]
    summary = cell_summary(frame, "steps", keys[1:])
    from_cells = seen_per_item(summary, keys, "a", "b", pl.col("counted") > 0, first=FIRST)
    assert from_cells.equals(seen_per_item(frame, keys, "a", "b", pl.col("steps").is_not_null()))
    assert seen_per_item(summary, keys, "a", "b", None, first=FIRST).equals(seen_per_item(frame, keys, "a", "b", None))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_run, min_size=1, max_size=30))
def test_repeated_seeds_are_found_with_either_sort(runs):
    import sys

    from probestats.checks.cell_summary import repeats_within_cells

    frame = pl.DataFrame(runs, schema={"item": pl.String, "variant": pl.String, "seed": pl.String,
                                       "model": pl.String, "temperature": pl.Float64, "steps": pl.Float64})
    seeded = [(r["item"], r["variant"], r["seed"]) for r in runs if r["seed"] is not None]
    repeated = len(set(seeded)) < len(seeded)  # some cell holds a seed twice
    import numpy  # loaded: numpy sorts

    assert repeats_within_cells(frame, ["item", "variant"]) == repeated
    sys.modules.pop("numpy")  # not loaded: polars sorts
    try:
        assert repeats_within_cells(frame, ["item", "variant"]) == repeated
    finally:
        sys.modules["numpy"] = numpy


def test_a_column_of_lists_is_an_error_that_names_the_cell(tmp_path):
    # a JSON array in a cell (temperature: [0.1]) is not one value: no check can compare it
    path = tmp_path / "lists.jsonl"
    path.write_text('{"item": 1, "variant": "a", "temperature": null, "steps": 3}\n'
                    '{"item": 1, "variant": "b", "temperature": [0.1, null], "steps": 4}\n', encoding="utf-8")
    checked = validate(path, metric="steps")
    assert [(p.severity, p.code, p.message, p.rows) for p in checked.problems] == [
        ("error", "list_value",
         "temperature holds lists such as [0.1, null] (line 2), not one value per run; write a single value in each cell",
         (2,))]
    rows = [{"item": 1, "variant": v, "steps": [3.0]} for v in ("a", "b")]
    assert [p.code for p in validate(rows, metric="steps").errors] == ["list_value"]


def test_a_metric_of_lists_is_refused_naming_explode(tmp_path, capsys):
    # a list of scores per record is a set of runs: the refusal says how to read them (a setting of lists is
    # told only to write one value: exploding it would repeat the metric)
    from probestats import Probe, analyze, describe, plan
    from probestats.cli import main
    from probestats.errors import ColumnError, ValidationError

    path = tmp_path / "listed.jsonl"
    path.write_text("".join(f'{{"item": {i}, "variant": "{v}", "m": [{i}, {i + (v == "a")}, 2]}}\n'
                            for i in range(6) for v in ("a", "b")), encoding="utf-8")
    fix = "turn each list into runs with probe=Probe(explode=('m',)) (explode=('seed=m',) numbers them as seeds)"
    with pytest.raises(ValidationError) as raised:
        analyze(path, metric="m")
    assert raised.value.problems[0].message == f"m holds lists such as [0, 1, 2] (line 1), not one value per run; {fix}, " \
                                               "or write a single value in each cell"
    for call in (lambda: describe(path, metric="m"), lambda: plan(path, metric="m", items=[6], runs=[2], sims=10)):
        with pytest.raises(ColumnError, match=re.escape(fix)):
            call()
    # the fix it names works: three runs per item and value
    assert analyze(path, metric="m", probe=Probe(explode=("seed=m",))).main.n_items == 6
    for argv in (["analyze", str(path), "--metric", "m"], ["describe", str(path), "--metric", "m"],
                 ["compare", str(path), str(path), "--metric", "m"], ["cells", str(path), "--metric", "m", "-o",
                                                                       str(tmp_path / "c.csv")],
                 ["plan", "--noise", str(path), "--metric", "m", "--items", "6", "--runs", "2", "--sims", "10"]):
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1, (argv, err)
        assert "--explode m (--explode seed=m numbers them as seeds)" in err and "unexpected" not in err, (argv, err)


def test_the_explode_a_list_refusal_names_is_the_mapped_column_it_reads(tmp_path, capsys):
    # with --column steps=Steps the refusal quotes the header as the file spells it, and names the fix by the
    # name explode reads (the mapped one): the fix it names works
    from probestats.cli import main

    path = tmp_path / "listed.jsonl"
    path.write_text("".join(f'{{"id": {i}, "variant": "{v}", "Steps": [{i}, {i + (v == "a")}, 2]}}\n'
                            for i in range(6) for v in ("a", "b")), encoding="utf-8")
    argv = ["analyze", str(path), "--metric", "steps", "--column", "steps=Steps", "--column", "item=id"]
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: 1 validation error: Steps holds lists such as [0, 1, 2] (line 1)")
    assert "turn each list into runs with --explode steps (--explode seed=steps numbers them as seeds)" in err
    assert main([*argv, "--explode", "seed=steps"]) == 0


def test_temperature_as_the_metric_or_as_a_split_reads_as_before(tmp_path):
    # the temperature parsed as it is read must still serve as a metric (with its text cells
    # reported) and as a --by column (its text cells trimmed like any id)
    path = tmp_path / "t.csv"
    path.write_text("item,variant,temperature\n1,f,0.7\n1,c,0.5\n2,f,hot\n2,c,0.2\n3,f,0.1\n3,c,0.3\n", encoding="utf-8")
    checked = validate(path, metric="temperature")
    assert [p.code for p in checked.errors] == ["non_numeric", "confounded_setting"]
    assert checked.errors[0].message.startswith("temperature: 'hot' is not a number (line 4)")
    path.write_text("item,variant,temperature,steps\n1,f,default,4\n1,c, default,3\n2,f,default,5\n"
                    "2,c, default,3\n3,f,hot,2\n3,c,hot,1\n", encoding="utf-8")
    checked = validate(path, metric="steps", by=["temperature"])
    assert checked.problems == () and checked.frame["temperature"].to_list() == ["default"] * 4 + ["hot"] * 2


def test_a_categorical_column_of_values_reads_as_text_does():
    # a frame whose values are categorical (or an enum) is read as the same frame of text: values
    # that differ only in surrounding spaces are one value, with a warning, either way
    rows = [{"item": str(i), "variant": v, "steps": float(3 + (v.strip() == "f") + s)}
            for i in range(4) for v in ("f", " f", "c") for s in (0, 1)]
    text = validate(pl.DataFrame(rows), metric="steps")
    assert text.values == ("f", "c") and [p.code for p in text.problems] == ["near_duplicate_value", "unequal_runs"]
    for dtype in (pl.Categorical, pl.Enum(["f", " f", "c"])):
        checked = validate(pl.DataFrame(rows).with_columns(pl.col("variant").cast(dtype)), metric="steps")
        assert checked.values == text.values and checked.problems == text.problems


# ------------------------------------------------------------------------- wording that does not mislead


def test_runs_unequal_by_design_are_a_design_note_not_lost_runs():
    # every item has 4 'a' runs and 8 'b' runs: the same proportion everywhere, so nothing is missing
    rows = [{"item": i, "variant": v, "seed": s, "steps": s % 3} for i in range(3) for v in "ab"
            for s in range(4 if v == "a" else 8)]
    (problem,) = [p for p in validate(rows, metric="steps").problems if p.code == "unequal_runs"]
    assert "every item has 4 'a' and 8 'b' runs: unequal by design" in problem.message
    assert "rerun" not in problem.message
    # 324 and 648 in one item, 162 and 324 in another: the proportion 1:2 is the design
    rows = [{"item": i, "variant": v, "steps": 1.0} for i, k in ((0, 324), (1, 162)) for v in "ab"
            for _ in range(k if v == "a" else 2 * k)]
    (problem,) = [p for p in validate(rows, metric="steps").problems if p.code == "unequal_runs"]
    assert "'a' and 'b' runs in the proportion 1:2" in problem.message and "rerun" not in problem.message
    # one item short of a run while the others are complete: runs were lost, and the message says so
    rows = [{"item": i, "variant": v, "seed": s, "steps": 1.0} for i in range(3) for v in "ab" for s in range(4)
            if (i, v, s) != (1, "b", 3)]
    (problem,) = [p for p in validate(rows, metric="steps").problems if p.code == "unequal_runs"]
    assert "rerun the missing runs" in problem.message


def test_the_suspect_metric_hint_speaks_of_steps_only_for_a_step_counter():
    def hint(metric):
        rows = [{"item": i, "variant": v, "seed": s, metric: 0 if s == 0 else 2 + s, "reply": "some text"}
                for i in range(3) for v in "ab" for s in range(4)]
        (problem,) = [p for p in validate(rows, metric=metric).problems if p.code == "suspect_metric"]
        return problem.message

    assert "steps numbered '1)'" in hint("steps")
    assert "steps" not in hint("score") and "a reply in a form the scorer did not expect" in hint("score")


def test_validate_counts_the_rows_when_a_column_is_missing(tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("item,kind,steps\n1,a,3\n1,b,4\n2,a,3\n")
    checked = validate(path, metric="steps")
    assert codes(checked) == ["missing_column"] and checked.n_rows == 3 and checked.to_dict()["rows"] == 3


def test_a_judge_reply_or_a_framing_score_of_lists_is_refused_naming_explode(tmp_path, capsys):
    # each command reading a column of lists says how to read its elements as rows, in one line
    from probestats.cli import main
    from tests.judge_factory import Judge, make_judge_log

    samples = Path(__file__).resolve().parent.parent / "sample_logs"
    judge = tmp_path / "judge.jsonl"
    make_judge_log(items=12, judges={"j1": Judge(0.7, 0.8)}, seed=1).group_by(
        "item", "order", maintain_order=True).agg(pl.col("reply")).write_ndjson(judge)
    framing = pl.read_csv(samples / "framing_long.csv")
    listed = tmp_path / "framing.jsonl"
    framing.group_by([c for c in framing.columns if c not in ("Iteration", "Score", "Raw", "Cat", "IsRefusal",
                                                              "IsNeutral", "Prefix")],
                     maintain_order=True).agg(pl.col("Score")).write_ndjson(listed)
    runs = {("judge", str(judge), "--order", "order", "--verdict", "first=[[A]]", "--verdict", "second=[[B]]"):
            "reply holds lists, not one value per row; turn each list into rows with --explode reply",
            ("framing", str(listed), "--targets", str(samples / "framing_targets.csv")):
            "Score holds lists, not one answer per row; turn each list into rows with --explode score"}
    for argv, said in runs.items():
        assert main(list(argv)) == 1
        err = capsys.readouterr().err
        assert err == f"Error: {said}\n", err
        assert main([*argv, "--explode", said.rsplit(" ", 1)[1]]) == 0   # the fix it names works
        capsys.readouterr()
