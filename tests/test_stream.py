"""The streaming path of analyze (probestats.checks.stream) gives exactly the eager path's results.

Every test runs the same log both ways and compares the JSON documents as text, so a difference in
any bit of any p-value, mean or message fails. Where the log is clean enough for one streaming
pass, the tests also check that the pass was really taken (else both sides would be the eager path).
"""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from tests.engines import analyze
from probestats.checks.schema import validate
from probestats.checks.stream import validate_streaming
from probestats.cli import cli
from probestats.errors import ValidationError
from probestats.result import document
from tests.cli_run import without_progress
from tests.factories import halves_over_every_split, make_log

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def both(source, **options) -> tuple[str, str]:
    """The JSON text of the eager and the streaming analysis of ``source``."""
    out = []
    for streaming in (False, True):
        result = analyze(source, streaming=streaming, **options)
        out.append(json.dumps(document(result), sort_keys=True))
    return out[0], out[1]


def write(frame: pl.DataFrame, path: Path) -> Path:
    if path.suffix == ".csv":
        frame.write_csv(path)
    elif path.suffix == ".tsv":
        frame.write_csv(path, separator="\t")
    elif path.suffix == ".jsonl":
        frame.write_ndjson(path)
    else:
        frame.write_parquet(path)
    return path


@pytest.mark.parametrize("name", ["style_probe.csv", "style_probe.jsonl", "style_probe_5seeds.csv",
                                  "style_hand.csv", "style_noise.csv"])
def test_sample_logs_give_the_same_json(name):
    eager, streamed = both(SAMPLES / name, metric="steps")
    assert streamed == eager


@pytest.mark.parametrize("name", ["style_probe.csv", "style_probe_5seeds.csv", "style_noise.csv"])
def test_sample_logs_without_times_stream_and_give_the_same_json(name, tmp_path):
    # the time column asks for the alternation check on the rows; without it the pass is taken
    path = write(pl.read_csv(SAMPLES / name, infer_schema=False).drop("time"), tmp_path / name)
    assert validate_streaming(path, metric="steps", halves=True) is not None
    eager, streamed = both(path, metric="steps")
    assert streamed == eager
    # every run of these logs has a seed and every cell two runs or more: the noise reference is the log's own
    # runs split in halves (a null noise, or a noise from elsewhere, fails), over the same items as the probe
    data = json.loads(streamed)
    noise = data["noise"]
    assert noise is not None and noise["source"].startswith("within-log: the runs of value ")
    assert noise["n_items"] == data["n_items"] == 8
    # the halves are read over every split (no test of their own): their gap is every split enumerated
    frame = pl.read_csv(SAMPLES / name)
    a = frame["variant"][0]
    cells = {str(item): [frame.filter((pl.col("item") == item) & (pl.col("variant") == a))["steps"].to_list()]
             for item in frame["item"].unique(maintain_order=True)}
    assert "sign_flip" not in noise and noise["average_gap"] == pytest.approx(halves_over_every_split(cells)[1],
                                                                             rel=1e-12)


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".jsonl", ".parquet"])
@pytest.mark.parametrize("integer", [True, False])
def test_generated_logs_stream_in_every_format(suffix, integer, tmp_path):
    frame = make_log(items=12, runs=6, gap=0.7, seed=3, integer=integer)
    if not integer:  # short decimals, as a score with two places
        frame = frame.with_columns(pl.col("steps").round(2))
    path = write(frame, tmp_path / f"log{suffix}")
    streamed = validate_streaming(path, metric="steps", halves=True)
    assert streamed is not None and streamed.halves is not None
    eager_checked = validate(path, metric="steps")
    assert streamed.checked.pairs.equals(eager_checked.pairs)
    assert streamed.checked.problems == eager_checked.problems
    eager, streaming = both(path, metric="steps")
    assert streaming == eager


def test_options_give_the_same_json(tmp_path):
    path = write(make_log(items=9, runs=4, gap=0.4, seed=5, values=("formal", "casual", "plain")), tmp_path / "l.csv")
    for options in ({"a": "casual", "b": "plain"}, {"a": "plain", "b": "formal", "alternative": "greater"},
                    {}, {"a": "casual", "b": "plain", "interval": "sign-flip"}, {"where": "item <> '3'"},
                    {"derive": ["double = steps * 2"]}):
        metric = "double" if "derive" in options else "steps"
        eager, streamed = both(path, metric=metric, **options)
        assert streamed == eager, options


def test_mixed_settings_unequal_runs_and_seed_mismatch_stream(tmp_path):
    frame = make_log(items=6, runs=4, seed=1)
    # model varies between items (the same for both values), one item lost a run of one value,
    # and one item's casual runs used other seeds
    frame = frame.with_columns(pl.col("item").cast(pl.Int64))
    frame = frame.with_columns(pl.when(pl.col("item") % 2 == 0).then(pl.lit("m1")).otherwise(pl.lit("m2")).alias("model"),
                               pl.when((pl.col("item") == 2) & (pl.col("variant") == "casual"))
                               .then(pl.col("seed") + 10).otherwise(pl.col("seed")).alias("seed"))
    frame = frame.filter(~((pl.col("item") == 4) & (pl.col("variant") == "formal") & (pl.col("seed") == 4)))
    path = write(frame, tmp_path / "l.csv")
    streamed = validate_streaming(path, metric="steps")
    assert streamed is not None
    assert [p.code for p in streamed.checked.problems] == ["mixed_setting", "seed_mismatch", "unequal_runs"]
    eager, streaming = both(path, metric="steps")
    assert streaming == eager


def _bad(frame: pl.DataFrame, kind: str) -> pl.DataFrame:
    frame = frame.with_columns(pl.col(c).cast(pl.String) for c in frame.columns)
    first = pl.int_range(pl.len()) == 5
    if kind == "non_numeric":
        return frame.with_columns(pl.when(first).then(pl.lit("four")).otherwise(pl.col("steps")).alias("steps"))
    if kind == "blank_metric":
        return frame.with_columns(pl.when(first).then(None).otherwise(pl.col("steps")).alias("steps"))
    if kind == "missing_item":
        return frame.filter(~((pl.col("item") == "2") & (pl.col("variant") == "casual")))
    if kind == "varying_setting":
        return frame.with_columns(pl.when(first).then(pl.lit("other")).otherwise(pl.col("model")).alias("model"))
    if kind == "confounded":
        return frame.with_columns(pl.when(pl.col("variant") == "casual").then(pl.lit("m2")).otherwise(pl.col("model"))
                                  .alias("model"))
    if kind == "repeated_seed":
        return frame.with_columns(pl.when(first).then(pl.lit("1")).otherwise(pl.col("seed")).alias("seed"))
    if kind == "spaced_value":
        return frame.with_columns(pl.when(first).then(pl.lit(" formal")).otherwise(pl.col("variant")).alias("variant"))
    if kind == "zeros_with_replies":
        return frame.with_columns(pl.lit("a reply").alias("reply"),
                                  pl.when(first).then(pl.lit("0")).otherwise(pl.col("steps")).alias("steps"))
    if kind == "blank_first_value":  # the first row has no value: the rows are validated
        return frame.with_columns(pl.when(pl.int_range(pl.len()) == 0).then(None).otherwise(pl.col("variant"))
                                  .alias("variant"))
    if kind == "unordered_seeds":  # seeds that are no range: the split is read again, the result the same
        return frame.with_columns((pl.col("seed").cast(pl.Int64) * 7 + 3).cast(pl.String).alias("seed"))
    raise AssertionError(kind)


KINDS = ["non_numeric", "blank_metric", "missing_item", "varying_setting", "confounded", "repeated_seed",
         "spaced_value", "zeros_with_replies", "unordered_seeds", "blank_first_value"]


@pytest.mark.parametrize("kind", KINDS)
def test_bad_logs_report_the_same_problems(kind, tmp_path):
    path = write(_bad(make_log(items=6, runs=4, seed=2), kind), tmp_path / "bad.csv")
    results = []
    for streaming in (False, True):
        try:
            results.append(json.dumps(document(analyze(path, metric="steps", streaming=streaming)), sort_keys=True))
        except ValidationError as exc:
            results.append([p.to_dict() for p in exc.problems])
    assert results[1] == results[0]


@pytest.mark.parametrize("kind", KINDS)
def test_cli_json_is_the_same_as_with_the_rows(kind, tmp_path):
    path = write(_bad(make_log(items=6, runs=4, seed=2), kind), tmp_path / "bad.csv")
    runner = CliRunner()
    streamed = runner.invoke(cli, ["analyze", str(path), "--metric", "steps", "--json"])
    eager = runner.invoke(cli, ["analyze", str(path), "--metric", "steps", "--json", "--row-level"])
    if eager.exit_code == 0:
        doc = json.loads(eager.stdout)
        doc.pop("row_level")
        assert json.loads(streamed.stdout) == doc
    else:
        assert (streamed.exit_code, streamed.stdout, streamed.stderr) == (eager.exit_code, eager.stdout, eager.stderr)


def test_no_progress_display_when_piped_or_with_json(tmp_path):
    path = write(make_log(items=8, runs=4, seed=4), tmp_path / "l.csv")
    runner = CliRunner()
    plain = runner.invoke(cli, ["analyze", str(path), "--metric", "steps"])
    # piped, a line only once a stage lasts 30 s (a busy machine may take that long): nothing else
    assert plain.exit_code == 0 and without_progress(plain.stderr) == ""
    as_json = runner.invoke(cli, ["analyze", str(path), "--metric", "steps", "--json"])
    assert as_json.exit_code == 0 and as_json.stderr == ""
    json.loads(as_json.stdout)


def test_progress_display_on_a_terminal_names_the_stages():
    import io

    from probestats.present.terminal.progress import stages

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    screen = Terminal()
    with stages(stream=screen) as progress:
        assert progress is not None
        progress("reading log.csv")
    with stages(enabled=False, stream=screen) as progress:  # --json
        assert progress is None


def test_finer_places_after_the_first_rows_and_temperatures_written_two_ways(tmp_path):
    frame = make_log(items=8, runs=4, seed=6).with_columns(pl.col(c).cast(pl.String) for c in ("steps", "temperature"))
    late = pl.int_range(pl.len()) == pl.len() - 1
    # the last row has two decimal places where the first rows have none: the pass's guess fails
    finer = frame.with_columns(pl.when(late).then(pl.lit("4.25")).otherwise(pl.col("steps")).alias("steps"))
    # one run writes the temperature 0.80: the same number as 0.8
    written = frame.with_columns(pl.when(late).then(pl.lit("0.80")).otherwise(pl.col("temperature")).alias("temperature"))
    # the second value's seeds start at 101: the first half of each item is still its lower seeds
    shifted = frame.with_columns(pl.when(pl.col("variant") == "casual").then(pl.col("seed") + 100)
                                 .otherwise(pl.col("seed")).alias("seed"))
    for name, log in (("finer", finer), ("written", written), ("shifted", shifted)):
        path = write(log, tmp_path / f"{name}.csv")
        for options in ({}, {"a": "casual", "b": "formal"}):
            eager, streamed = both(path, metric="steps", **options)
            assert streamed == eager, (name, options)


@pytest.mark.parametrize("runs", [2, 3, 5])
def test_within_log_halves_with_odd_and_few_runs(runs, tmp_path):
    # with an odd number of runs the first half is the smaller: rank < runs // 2
    path = write(make_log(items=7, runs=runs, seed=runs, integer=False).with_columns(pl.col("steps").round(1)),
                 tmp_path / "l.parquet")
    streamed = validate_streaming(path, metric="steps", halves=True)
    assert streamed is not None and streamed.halves is not None
    # the pass's counts of each value hold every run of every cell once
    per_cell = streamed.halves.group_by("item", "variant").agg(pl.col("__count").sum())
    assert set(per_cell["__count"].to_list()) == {runs} and per_cell.height == 14
    eager, streaming = both(path, metric="steps")
    assert streaming == eager


def test_by_temperature_groups_as_validate_reads_them(tmp_path):
    frame = make_log(items=6, runs=4, seed=21).with_columns(
        pl.when(pl.col("item").cast(pl.Int64) % 2 == 0).then(pl.lit("0.80")).otherwise(pl.lit("0.8")).alias("temperature"))
    path = write(frame, tmp_path / "log.csv")
    eager, streamed = both(path, metric="steps", by=["temperature"])
    assert streamed == eager and json.loads(eager)["groups"][0]["by"] == {"temperature": 0.8}


def test_by_and_noise_logs_give_the_same_json(tmp_path):
    frame = make_log(items=8, runs=4, seed=7).with_columns(
        pl.when(pl.col("item").cast(pl.Int64) % 2 == 0).then(pl.lit("en")).otherwise(pl.lit("de")).alias("language"))
    path = write(frame, tmp_path / "l.csv")
    noise = write(make_log(items=8, runs=4, seed=8, gap=0.0), tmp_path / "noise.csv")
    streamed = validate_streaming(path, metric="steps", by=["language"], halves=True)
    assert streamed is not None and streamed.main is not None and streamed.halves is not None
    for options in ({"by": ["language"]}, {"noise": str(noise)}, {"by": ["language"], "a": "casual", "b": "formal"}):
        eager, streamed = both(path, metric="steps", **options)
        assert streamed == eager, options


def test_mean_and_sd_from_sums_are_the_correctly_rounded_fractions():
    from fractions import Fraction
    import math

    from hypothesis import given, strategies as st

    from probestats.stats.exact import mean_sd

    @given(st.lists(st.integers(-10**12, 10**12), min_size=1, max_size=40), st.integers(0, 6))
    def check(units, places):
        n, s, q = len(units), sum(units), sum(u * u for u in units)
        scale = 10**places
        mean, sd = mean_sd(n, s, q, places)
        assert mean == float(Fraction(s, n * scale))  # the reference: exact rationals, rounded once
        if n > 1:
            assert sd == math.sqrt(float(Fraction(n * q - s * s, n * (n - 1) * scale * scale)))

    check()


def test_by_groups_that_split_every_item(tmp_path):
    # each item ran in both languages (by seed), so the pooled item table sums two cells per value
    frame = make_log(items=6, runs=6, seed=9, integer=False).with_columns(
        pl.col("steps").round(3),
        pl.when(pl.col("seed").cast(pl.Int64) % 2 == 0).then(pl.lit("en")).otherwise(pl.lit("de")).alias("language"))
    path = write(frame, tmp_path / "l.jsonl")
    streamed = validate_streaming(path, metric="steps", by=["language"], halves=True)
    assert streamed is not None and streamed.checked.pairs.height == 12
    eager, streaming = both(path, metric="steps", by=["language"])
    assert streaming == eager


def test_one_list_of_random_seeds_for_every_item_streams(tmp_path):
    # the same drawn seeds for every item and value (no range): the first rows show the list whole
    seeds = {1: "912", 2: "17", 3: "4431", 4: "250", 5: "78"}
    frame = make_log(items=10, runs=5, seed=10).with_columns(
        pl.col("seed").cast(pl.Int64).replace_strict(seeds, return_dtype=pl.String).alias("seed"))
    path = write(frame, tmp_path / "l.csv")
    streamed = validate_streaming(path, metric="steps", halves=True)
    assert streamed is not None and streamed.halves is not None
    eager, streaming = both(path, metric="steps")
    assert streaming == eager
    # a later cell that repeats one of them is not that list: the rows are validated, the copy named
    late = frame.with_columns(pl.when(pl.int_range(pl.len()) == pl.len() - 1).then(pl.lit("250"))
                              .otherwise(pl.col("seed")).alias("seed"))
    path = write(late, tmp_path / "late.csv")
    assert validate_streaming(path, metric="steps") is None
    eager, streaming = both(path, metric="steps")
    assert streaming == eager and "duplicate_run" in eager


@pytest.mark.parametrize("args", [[], ["--json"], ["--by", "model"], ["--a", "casual", "--b", "formal", "--json"]])
def test_cli_output_is_the_same_without_the_streaming_pass(args, tmp_path, monkeypatch):
    # the text and JSON a user sees, exactly, with the pass and with the rows (the pass turned off);
    # nothing on standard error: the progress line is for terminals only
    path = write(make_log(items=8, runs=4, seed=11), tmp_path / "l.csv")
    runner = CliRunner()
    command = ["analyze", str(path), "--metric", "steps", *args]
    streamed = runner.invoke(cli, command)
    assert validate_streaming(path, metric="steps", by=[a for a in args if a == "model"]) is not None
    import probestats.checks.stream as stream

    monkeypatch.setattr(stream, "validate_streaming", lambda *a, **k: None)
    eager = runner.invoke(cli, command)
    # the outputs are compared, not the progress lines a busy machine adds to standard error
    assert ((streamed.exit_code, streamed.stdout, without_progress(streamed.stderr))
            == (eager.exit_code, eager.stdout, without_progress(eager.stderr)))
    assert streamed.exit_code == 0 and without_progress(streamed.stderr) == ""


def test_blank_lines_of_a_jsonl_file_are_found_reading_it_in_blocks(tmp_path):
    from hypothesis import given, settings, strategies as st

    from probestats.io.json_log import _BLANK_LINE, _has_blank_line

    path = tmp_path / "l.jsonl"
    lines = st.sampled_from([b'{"a": 1}', b"  ", b"", b"\t", b' {"b": 2} ', b"\r"])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(lines, max_size=8), st.sampled_from([b"", b"\n", b"\n\n", b" \n"]), st.integers(1, 7))
    def check(parts, end, block):
        data = b"\n".join(parts) + end
        path.write_bytes(data)
        # the reference: the whole file searched at once, as the reader did before
        assert _has_blank_line(path, block) == (_BLANK_LINE.search(data) is not None)

    check()


@pytest.mark.parametrize("suffix", [".xlsx", ".json"])
def test_spreadsheets_and_json_arrays_give_the_same_json(suffix, tmp_path):
    # read whole into memory by their readers; the pass summarizes them like any other log
    from tests.factories import write_log

    path = write_log(make_log(items=6, runs=3, seed=12), tmp_path / f"l{suffix}")
    eager, streamed = both(path, metric="steps")
    assert streamed == eager


def test_a_wide_log_keeps_the_order_of_its_values(tmp_path):
    # melted, both values of a wide row start on the same row: the log's own order decides
    from probestats.shape.probe import Probe

    long = make_log(items=7, runs=3, gap=0.8, seed=8)
    wide = long.pivot(on="variant", index=["item", "seed", "model", "temperature"], values="steps")
    path = write(wide.rename({"formal": "formal_steps", "casual": "casual_steps"}), tmp_path / "wide.csv")
    for _ in range(5):   # a tie broken by chance would differ between runs
        eager, streamed = both(path, metric="steps", probe=Probe(wide=("formal_steps,casual_steps",)))
        assert streamed == eager and json.loads(streamed)["a"] == "formal"


def test_within_log_noise_whatever_the_seeds(tmp_path):
    frame = make_log(items=6, runs=4, seed=13)
    # every item its own block of seeds, and no seeds: the halves are drawn from the values, not the seeds
    blocks = frame.with_columns((pl.col("seed").cast(pl.Int64) + 100 * pl.col("item").cast(pl.Int64)).alias("seed"))
    # value a's first run written with a space before its whole number: the pass's reader takes it,
    # and so must the counts of the values (for the halves)
    padded = frame.drop("seed").with_columns(pl.when(pl.int_range(pl.len()) == 0).then(" " + pl.col("steps").cast(pl.String))
                                             .otherwise(pl.col("steps").cast(pl.String)).alias("steps"))
    for name, log in (("blocks", blocks), ("no_seeds", frame.drop("seed")), ("padded", padded)):
        path = write(log, tmp_path / f"{name}.csv")
        streamed = validate_streaming(path, metric="steps", halves=True)
        assert streamed is not None and streamed.halves is not None
        eager, streaming = both(path, metric="steps")
        assert streaming == eager and '"within-log' in streaming, name


@pytest.mark.parametrize("case, passes", [("plain_head_then_a_decimal_whole", 2), ("model_changes_late", 2),
                                          ("temperature_written_another_way", 1), ("blank_model_late", 2),
                                          ("whole_numbers_padded", 1), ("clean", 1)])
def test_the_first_pass_gives_way_to_the_general_pass(case, passes, tmp_path, monkeypatch):
    """The first pass reads numbers with the CSV reader and compares every setting with the first
    row's; what it cannot take (guessed from the first rows, here 8) is read by the general pass,
    and the result is the eager path's either way."""
    import probestats.checks.stream as stream

    monkeypatch.setattr(stream, "_HEAD", 8)
    taken = []
    first_pass = stream._pass
    monkeypatch.setattr(stream, "_pass", lambda *args, **kw: taken.append(1) or first_pass(*args, **kw))
    frame = make_log(items=6, runs=4, seed=21).with_columns(pl.col(c).cast(pl.String) for c in ("steps", "temperature"))
    late = pl.col("item") == pl.col("item").last()   # every run of the last item
    changed = {
        "plain_head_then_a_decimal_whole": ("steps", pl.col("steps") + ".0"),   # "4.0": the same number
        "model_changes_late": ("model", pl.lit("stand-in-v2")),
        "temperature_written_another_way": ("temperature", pl.lit(" 0.80")),
        "blank_model_late": ("model", pl.lit(None, pl.String)),
        "whole_numbers_padded": ("steps", " +0" + pl.col("steps")),   # " +04": 4, as validation reads it
        "clean": ("model", pl.col("model")),
    }[case]
    frame = frame.with_columns(pl.when(late).then(changed[1]).otherwise(pl.col(changed[0])).alias(changed[0]))
    path = write(frame, tmp_path / "log.csv")
    streamed = validate_streaming(path, metric="steps")
    assert len(taken) == passes
    assert (streamed is None) == (case == "blank_model_late")   # a blank setting: validate names its rows
    eager, streaming = both(path, metric="steps")
    assert streaming == eager
    if case == "model_changes_late":
        assert [p.code for p in streamed.checked.problems] == ["mixed_setting"]


def test_typed_rows_only_for_a_csv_read_as_it_is(tmp_path):
    from probestats.io.log import typed_rows
    from probestats.io.read import read_log
    from probestats.shape.derive import apply

    path = write(make_log(items=2, runs=2).with_columns(pl.col("steps").cast(pl.String)), tmp_path / "log.csv")
    log = read_log(path, metric="steps")
    assert typed_rows(log, {"steps": pl.Int64}).collect_schema()["steps"] == pl.Int64
    assert typed_rows(apply(log, derive=["double = steps * 2"]), {"steps": pl.Int64}) is None
    assert typed_rows(apply(log, where="item <> 'x'"), {"steps": pl.Int64}) is None
    assert typed_rows(read_log(pl.read_csv(path), metric="steps"), {"steps": pl.Int64}) is None


def test_a_log_read_from_csv_still_pickles(tmp_path):
    import pickle

    from probestats.io.read import read_log

    path = write(make_log(items=2, runs=2).with_columns(pl.col("steps").cast(pl.String)), tmp_path / "log.csv")
    log = pickle.loads(pickle.dumps(read_log(path, metric="steps")))
    assert log.frame.height == 8 and log.frame["steps"].dtype == pl.String


def test_a_jsonl_file_splits_into_blocks_of_whole_lines(tmp_path):
    from hypothesis import given, settings, strategies as st

    from probestats.io.json_log import _jsonl_blocks

    path = tmp_path / "l.jsonl"
    lines = st.sampled_from([b'{"a": 1}', b"  ", b"", b"\t", b'{"b": "x\\ny"}', b"\r", b'{"c": [1, 2, 3, 4, 5, 6]}'])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(lines, max_size=12), st.sampled_from([b"", b"\n", b"\n\n", b" \n"]), st.integers(1, 40))
    def check(parts, end, block):
        data = b"\n".join(parts) + end
        path.write_bytes(data)
        blocks = list(_jsonl_blocks(path, block))
        assert all(b.endswith(b"\n") for b in blocks[:-1])   # no record is cut in two
        # every line with something on it, in order, once (lines of spaces only may be left out)
        assert [x for x in b"".join(blocks).split(b"\n") if x.strip()] == [x for x in data.split(b"\n") if x.strip()]

    check()


@pytest.mark.parametrize("kind", ["clean", "blank_lines", "floats_later", "missing_item", "where", "keys_reordered"])
def test_a_large_jsonl_log_read_in_blocks_gives_what_the_whole_file_gives(kind, tmp_path, monkeypatch):
    """A JSON-lines file above JSONL_KEY_CHECK_BYTES is read in blocks (polars' reader would hold it
    whole); here every file is, in blocks of 700 bytes, and the results are those of the whole file."""
    import probestats.io.json_log as json_log
    import probestats.io.read as read

    frame = make_log(items=10, runs=5, seed=8)
    if kind == "missing_item":
        frame = frame.filter(~((pl.col("item") == pl.col("item").last()) & (pl.col("variant") == "casual")))
    path = tmp_path / "log.jsonl"
    frame.write_ndjson(path)
    if kind == "floats_later":   # the last record's steps is not whole: the last block infers a float
        text = path.read_text().splitlines(keepends=True)
        path.write_text("".join(text[:-1]) + re.sub(r'"steps":(\d+)', r'"steps":\1.5', text[-1]))
    if kind == "keys_reordered":   # later records list their keys the other way round: columns keep the first order
        text = path.read_text().splitlines()
        path.write_text("\n".join(text[:20] + [json.dumps(dict(reversed(json.loads(line).items()))) for line in text[20:]])
                        + "\n")
    if kind == "blank_lines":   # blank lines shift the later records' line numbers
        text = path.read_text().splitlines(keepends=True)
        path.write_text("".join(line + ("\n  \n" if i % 7 == 3 else "") for i, line in enumerate(text)))
    options = {"where": "item <> '3'"} if kind == "where" else {}

    def results():
        from probestats.shape.derive import apply

        out = [json.dumps(validate(apply(path, **options), metric="steps").problems, default=str)]
        for streaming in (False, True):
            try:
                out.append(json.dumps(document(analyze(path, metric="steps", streaming=streaming, **options)),
                                      sort_keys=True))
            except ValidationError as exc:
                out.append(str(exc))
        return out

    whole = results()
    log = read.read_log(path, metric="steps")
    monkeypatch.setattr(json_log, "JSONL_KEY_CHECK_BYTES", 0)
    monkeypatch.setattr(json_log, "JSONL_BLOCK_BYTES", 700)
    assert (json_log._jsonl_schema(path) is None) == (kind == "floats_later")
    assert results() == whole
    blocks = read.read_log(path, metric="steps")
    assert pickle.loads(pickle.dumps(blocks)).frame.equals(log.frame)
    # what polars asks of a source: no column at all (a count), the first rows before a filter
    for query in (lambda lf: lf.select(pl.len()), lambda lf: lf.with_row_index("i").select(pl.len()),
                  lambda lf: lf.head(12).filter(pl.col("variant") == "casual"),
                  lambda lf: lf.filter(pl.col("variant") == "casual").head(12).select("item", "_row")):
        for engine in ("in-memory", "streaming"):
            assert query(blocks.lazy).collect(engine=engine).equals(query(log.lazy).collect(engine=engine))
    if kind == "missing_item":
        assert "line" in whole[0] and "unmatched" in whole[0]
