"""The Probe and the shaping options: one way to say what a log means, on every command and every log."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import polars as pl
import pytest

from probestats.cli import main
from probestats.errors import OptionError
from probestats.shape.derive import apply
from probestats.shape.probe import Probe
from tests.factories import make_log, write_log

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "unexpected" not in err
    return code, out, err


def analyze_json(capsys, *args):
    code, out, err = run(capsys, "analyze", *args, "--json")
    assert code == 0, err
    return json.loads(out)


def _without_source(data):
    """A JSON result with the names of the files it was read from removed (they differ by design), and with the
    design read's words on how its columns were found (by name, declared) and what it held fixed (a file column
    of one file) left out: the same log read another way is found another way."""
    if isinstance(data, dict):
        if "sentence" in data and "roles" in data:   # the design read
            data = {k: v for k, v in data.items() if k not in ("sentence", "roles", "held")}
        return {k: _without_source(v) for k, v in data.items() if k not in ("source", "log", "noise_source")}
    if isinstance(data, list):
        return [_without_source(v) for v in data]
    return data


def _flat(data, prefix=""):
    """A nested JSON value as {path: leaf}, so that pytest.approx can compare its numbers."""
    if isinstance(data, dict):
        return {k: v for key, value in data.items() for k, v in _flat(value, f"{prefix}/{key}").items()}
    if isinstance(data, list):
        return {k: v for i, value in enumerate(data) for k, v in _flat(value, f"{prefix}/{i}").items()}
    return {prefix: data}


# ------------------------------------------------------------------ numbers are numbers


def sub_scores(tmp_path):
    rng = random.Random(3)
    rows = [{"item": i, "variant": v, "a": rng.randint(0, 25), "b": rng.randint(0, 25), "c": rng.randint(0, 25),
             "d": rng.randint(1, 25), "who": rng.choice(["ann", "bo"])}
            for i in range(6) for v in ("x", "y") for _ in range(2)]
    return rows, write_log(pl.DataFrame(rows), tmp_path / "scores.csv")   # CSV: every cell read as text


@pytest.mark.parametrize("expression, by_hand", [
    ("a + b + c + d", lambda r: r["a"] + r["b"] + r["c"] + r["d"]),
    ("a - b", lambda r: r["a"] - r["b"]),
    ("a * b", lambda r: r["a"] * r["b"]),
    ("a / d", lambda r: r["a"] / r["d"]),
    ("a % d", lambda r: r["a"] % r["d"]),
    ("a || b", lambda r: f"{r['a']}{r['b']}"),
    ("who || '-' || a", lambda r: f"{r['who']}-{r['a']}"),
])
def test_each_operator_on_numbers_read_from_csv(tmp_path, expression, by_hand):
    rows, path = sub_scores(tmp_path)
    got = apply(str(path), derive=[f"total = {expression}"]).frame["total"].to_list()
    assert got == [by_hand(r) for r in rows]   # Python's own arithmetic on the integers as drawn


def test_sub_scores_sum_through_the_command(tmp_path, capsys):
    rows, path = sub_scores(tmp_path)
    data = analyze_json(capsys, path, "--metric", "total", "--derive", "total = a + b + c + d")
    # by hand: each item's mean total under x minus under y, from the drawn integers
    for item in data["items"]:
        totals = {v: [r["a"] + r["b"] + r["c"] + r["d"] for r in rows if str(r["item"]) == item["item"]
                      and r["variant"] == v] for v in ("x", "y")}
        assert item["mean_a"] == pytest.approx(sum(totals["x"]) / 2)
        assert item["gap"] == pytest.approx(sum(totals["x"]) / 2 - sum(totals["y"]) / 2)
        assert abs(item["mean_a"]) <= 100   # four 0-25 scores, never their digits joined


def test_text_mixed_with_numbers_names_the_column(tmp_path):
    _, path = sub_scores(tmp_path)
    with pytest.raises(OptionError, match="the column 'who' holds text"):
        apply(str(path), derive=["bad = who + a"])
    with pytest.raises(OptionError, match="the column 'who' holds text"):
        apply(str(path), derive=["bad = a * who"])


def test_integer_arithmetic_never_wraps(tmp_path):
    _, path = sub_scores(tmp_path)
    log = apply(str(path), derive=["big = d * 4000000000000000000"])
    big = log.frame["big"].to_list()
    assert all(v > 0 for v in big) and log.frame["big"].dtype == pl.Float64   # 25 * 4e18 is past 2**63
    assert [p.code for p in log.problems] == ["derived_float"]
    assert apply(str(path), derive=["s = a + b"]).frame["s"].dtype == pl.Int64   # small sums stay whole


def test_a_mapped_column_keeps_its_own_header_in_expressions(tmp_path):
    rows = [{"item": 1, "variant": v, "judge": j, "steps": 2} for v in ("x", "y") for j in ("j1", "j2")]
    path = write_log(pl.DataFrame(rows), tmp_path / "log.csv")
    log = Probe(columns=(("model", "judge"),), where="judge = 'j1'").apply(str(path))
    assert log.frame["model"].to_list() == ["j1", "j1"]
    assert "judge" not in log.frame.columns


def test_column_onto_a_derived_column(tmp_path, capsys):
    log = make_log(items=6, runs=3, gap=1.0, seed=2)
    frame = log.with_columns(pl.concat_str(pl.lit("q"), pl.col("item")).alias("qid")).drop("item")
    path = write_log(frame, tmp_path / "log.csv")
    direct = analyze_json(capsys, write_log(log, tmp_path / "plain.csv"), "--metric", "steps")
    mapped = analyze_json(capsys, path, "--metric", "steps", "--derive", "pair = substr(qid, 2, 9)",
                          "--column", "item=pair")
    assert _without_source(mapped) == _without_source(direct)


# ------------------------------------------------------------------ the same options on every command


def renamed(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.rename({"item": "Question #", "variant": "Tone", "steps": "n_steps"})


MAPPING = ["--column", "item=Question #", "--column", "variant=Tone", "--column", "steps=n_steps"]


def test_noise_log_is_read_through_the_same_mapping(tmp_path, capsys):
    probe = make_log(items=8, runs=4, gap=1.0, seed=4)
    noise = make_log(items=8, runs=4, gap=0.0, seed=5, values=("formal", "formal2"))
    plain = analyze_json(capsys, write_log(probe, tmp_path / "p.csv"), "--metric", "steps",
                         "--noise", write_log(noise, tmp_path / "n.csv"))
    mapped = analyze_json(capsys, write_log(renamed(probe), tmp_path / "pr.csv"), "--metric", "steps",
                          "--noise", write_log(renamed(noise), tmp_path / "nr.csv"), *MAPPING)
    assert plain["noise"] is not None
    assert _without_source(mapped) == _without_source(plain)


@pytest.mark.parametrize("command", ["validate", "analyze", "plan", "compare", "report"])
def test_where_derive_column_on_every_command(tmp_path, capsys, command):
    probe = make_log(items=6, runs=3, gap=1.0, seed=6)
    wide = renamed(probe).with_columns(pl.lit("keep").alias("tag"))
    wide = pl.concat([wide, wide.head(4).with_columns(pl.lit("drop").alias("tag"), pl.lit("9").alias("Question #"))])
    path = write_log(wide, tmp_path / "log.csv")
    options = [*MAPPING[:4], "--where", "tag = 'keep'", "--derive", "double = n_steps * 2", "--metric", "double"]
    args = {
        "validate": ["validate", path],
        "analyze": ["analyze", path],
        "plan": ["plan", "--noise", path, "--items", "6", "--runs", "3", "--sims", "50"],
        "compare": ["compare", path, path],
        "report": ["report", path, "-o", tmp_path / "r.json"],
    }[command]
    code, out, err = run(capsys, *args, *options, *(["--json"] if command not in ("report",) else []))
    assert code == 0, err
    if command == "analyze":
        # by hand: doubling the metric doubles every gap; the dropped rows (item 9) are gone
        plain = analyze_json(capsys, write_log(probe, tmp_path / "plain.csv"), "--metric", "steps")
        data = json.loads(out)
        assert [i["item"] for i in data["items"]] == [i["item"] for i in plain["items"]]
        assert data["average_gap"] == pytest.approx(2 * plain["average_gap"])


def test_framing_accepts_the_shaping_options(tmp_path, capsys):
    frame = pl.read_csv(SAMPLES / "framing_long.csv", infer_schema=False)
    plain = run(capsys, "framing", SAMPLES / "framing_long.csv", "--targets", SAMPLES / "framing_targets.csv",
                "--json")
    extra = pl.concat([frame, frame.head(3).with_columns(pl.lit("other").alias(frame.columns[0]))]) \
        if False else frame.with_columns(pl.lit("yes").alias("keep_me"))
    extra = pl.concat([extra, frame.head(5).with_columns(pl.lit("no").alias("keep_me"))])
    path = tmp_path / "f.csv"
    extra.rename({"Topic" if "Topic" in extra.columns else "topic": "Subject"}).write_csv(path)
    shaped = run(capsys, "framing", path, "--targets", SAMPLES / "framing_targets.csv", "--json",
                 "--where", "keep_me = 'yes'", "--derive", "flag = keep_me || '!'", "--column", "topic=Subject")
    assert plain[0] == 0 and shaped[0] == 0, shaped[2]
    assert _without_source(json.loads(shaped[1])) == _without_source(json.loads(plain[1]))


# ------------------------------------------------------------------ row numbers survive every filter


def test_lines_named_as_an_editor_numbers_them_after_where(tmp_path, capsys):
    path = tmp_path / "big.csv"
    rng = random.Random(1)
    line = 2   # the header is line 1
    lines_of = {}
    with path.open("w", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["item", "variant", "seed", "model", "steps", "reply"])
        for item in range(80):
            for variant in ("formal", "casual"):
                if item == 47 and variant == "casual":
                    continue   # the one unmatched item
                for seed in range(1, 5):
                    reply = "\n".join(f"{k}) step {'x' * rng.randint(60, 130)}" for k in range(rng.randint(1, 6)))
                    writer.writerow([item, variant, seed, "m1" if seed % 2 else "m2", reply.count("\n") + 1, reply])
                    lines_of.setdefault((item, seed % 2 == 1), []).append(line)
                    line += reply.count("\n") + 1   # a quoted reply spans as many lines as it holds
    assert path.stat().st_size > 200_000
    code, out, err = run(capsys, "validate", path, "--metric", "steps", "--where", "model = 'm1'", "--json")
    assert code == 1
    problems = json.loads(out)["problems"]
    unmatched = [p for p in problems if p["code"] == "unmatched_item"]
    assert len(unmatched) == 1 and "item 47" in unmatched[0]["message"]
    assert unmatched[0]["rows"] == lines_of[(47, True)]   # the m1 runs of item 47, where the editor shows them
    assert lines_of[(47, True)][0] > 80 * 2 * 4   # past the number of records in the file, let alone those kept


# ------------------------------------------------------------------ wide layouts


def test_wide_log_equals_its_long_form(tmp_path, capsys):
    long = make_log(items=7, runs=3, gap=0.8, seed=8)
    wide = long.pivot(on="variant", index=["item", "seed", "model", "temperature"], values="steps")
    wide = wide.rename({"formal": "formal_steps", "casual": "casual_steps"})
    pl_long = write_log(long, tmp_path / "long.csv")
    pl_wide = write_log(wide, tmp_path / "wide.csv")
    expected = analyze_json(capsys, pl_long, "--metric", "steps")
    assert _without_source(analyze_json(capsys, pl_wide, "--metric", "steps", "--wide",
                                        "formal_steps,casual_steps")) == _without_source(expected)
    named = analyze_json(capsys, pl_wide, "--metric", "steps", "--wide", "formal=formal_steps",
                         "--wide", "casual=casual_steps")
    assert _without_source(named) == _without_source(expected)
    code, out, err = run(capsys, "analyze", pl_wide, "--metric", "steps")
    assert code == 1 and "read it with --wide formal_steps,casual_steps" in err


def test_framing_wide_sheet_agrees_with_its_own_reading(capsys):
    common = [SAMPLES / "framing_wide.xlsx", "--targets", SAMPLES / "framing_targets.csv", "--json"]
    code, auto, err = run(capsys, "framing", *common)
    assert code == 0, err
    code, wide, err = run(capsys, "framing", *common, "--wide", "model-a_Raw,model-b_Raw",
                          "--wide", "model-a_Cat,model-b_Cat")
    assert code == 0, err
    code, long, err = run(capsys, "framing", SAMPLES / "framing_long.csv", "--targets",
                          SAMPLES / "framing_targets.csv", "--json")
    assert json.loads(wide) == json.loads(auto)
    assert _without_source(json.loads(wide))["cells"] == _without_source(json.loads(long))["cells"]


# ------------------------------------------------------------------ several files as one log


def test_three_files_equal_one(tmp_path, capsys):
    log = make_log(items=9, runs=3, gap=1.0, seed=9)
    one = write_log(log, tmp_path / "all.csv")
    parts = tmp_path / "parts"
    parts.mkdir()
    for k in range(3):
        write_log(log.filter(pl.col("item").cast(pl.Int64) // 3 == k), parts / f"run{k}.csv")
    together = Probe().apply([parts / "run0.csv", parts / "run1.csv", parts / "run2.csv"])
    assert together.frame.drop("file", "file_stem", "_row").equals(Probe().apply(one).frame.drop("_row"))
    assert set(together.frame["file"]) == {str(parts / f"run{k}.csv") for k in range(3)}
    assert set(together.frame["file_stem"]) == {f"run{k}" for k in range(3)}
    expected = analyze_json(capsys, one, "--metric", "steps")
    # the rows are equal bit for bit (above); a cell's mean may be summed in another order when its runs
    # come from three files, so the statistics are compared to the last few bits of a double
    got = _without_source(analyze_json(capsys, parts, "--metric", "steps"))
    want = _flat(_without_source(expected))
    assert _flat(got).keys() == want.keys()
    for key, value in _flat(got).items():
        if isinstance(value, float):
            assert value == pytest.approx(want[key], rel=1e-12, abs=1e-12), key
        else:
            assert value == want[key], key
    by_file = analyze_json(capsys, parts, "--metric", "steps", "--by", "file")
    assert len(by_file["groups"]) == 3


def test_a_problem_in_the_second_file_names_it_and_its_line(tmp_path, capsys):
    log = make_log(items=6, runs=2, gap=1.0, seed=10)
    paths = [write_log(log.filter(pl.col("item").cast(pl.Int64) // 2 == k), tmp_path / f"run{k}.csv")
             for k in range(3)]
    second = pl.read_csv(paths[1], infer_schema=False)
    second = second.with_columns(pl.when(pl.int_range(pl.len()) == 4).then(pl.lit("four"))
                                 .otherwise(pl.col("steps")).alias("steps"))
    second.write_csv(paths[1])
    code, out, err = run(capsys, "validate", *paths, "--metric", "steps")
    assert code == 1
    assert f"{paths[1]}: line 6" in out   # the fifth record of run1.csv, below its header


def test_files_whose_headers_disagree(tmp_path, capsys):
    # a column the analysis needs, held by one file and not another: refused, naming both
    log = make_log(items=2, runs=2, seed=11)
    a = write_log(log, tmp_path / "a.csv")
    b = write_log(log.drop("variant"), tmp_path / "b.csv")
    code, out, err = run(capsys, "validate", a, b)
    assert code == 1 and err.startswith(f"Error: the columns of '{b}' do not agree with those of '{a}': it lacks "
                                        "'variant', which the analysis needs")
    # any other column: blank where a file lacks it, said once for that file
    b = write_log(log.drop("model", "temperature"), tmp_path / "b.csv")
    code, out, err = run(capsys, "validate", a, b, "--metric", "steps")
    assert code == 0, err
    assert out.count("columns_differ") == 1 and f"'{b}' has no 'model', 'temperature'" in out


# ------------------------------------------------------------------ complete items


def test_complete_drops_the_incomplete_items_and_says_which(tmp_path, capsys):
    log = make_log(items=40, runs=2, gap=1.0, seed=12)
    lacking = {"4", "17", "33"}
    log = log.with_columns(pl.when(pl.col("item").cast(pl.String).is_in(lacking) & (pl.col("variant") == "casual"))
                           .then(None).otherwise(pl.col("steps")).alias("steps"))
    path = write_log(log, tmp_path / "log.csv")
    code, out, err = run(capsys, "analyze", path, "--metric", "steps")
    assert code == 1 and "--complete" in err
    data = analyze_json(capsys, path, "--metric", "steps", "--complete")
    assert data["n_items"] == 37
    warning = [p for p in data["problems"] if p["code"] == "dropped_incomplete"]
    assert len(warning) == 1
    assert "3 of 40 items" in warning[0]["message"] and "37 items" in warning[0]["message"]
    for item in lacking:
        assert f"item {item} (no 'casual')" in warning[0]["message"]
    # the 37 items are exactly the log without the three
    rest = analyze_json(capsys, write_log(log.filter(~pl.col("item").cast(pl.String).is_in(lacking)),
                                          tmp_path / "rest.csv"), "--metric", "steps")
    assert data["average_gap"] == rest["average_gap"] and data["sign_flip"] == rest["sign_flip"]
    code, out, err = run(capsys, "validate", path, "--metric", "steps", "--complete", "--by", "model", "--json")
    assert code == 0 and "dropped_incomplete" in out
