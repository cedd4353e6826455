"""Files as studies publish them: R's data files, compressed files of every format, a folder of one JSON record
per file, and pandas frames without pyarrow."""

from __future__ import annotations

import gzip
import re
import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import probestats
from probestats.cli import main
from probestats.errors import OptionError, ReadError
from tests.factories import make_log, write_log

ROOT = Path(__file__).resolve().parents[1]


def analysis(capsys, path, *extra):
    code = main(["analyze", str(path), "--metric", "steps", "--json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    return {k: v for k, v in data.items() if k not in ("source", "log", "noise_source")}


def test_an_rdata_file_reads_as_the_same_log_as_its_csv(tmp_path, capsys):
    pyreadr = pytest.importorskip("pyreadr")
    frame = make_log(items=6, runs=4, seed=3)
    csv = write_log(frame, tmp_path / "log.csv")
    pyreadr.write_rdata(str(tmp_path / "log.RData"), frame.to_pandas(), df_name="probe")
    pyreadr.write_rds(str(tmp_path / "log.rds"), frame.to_pandas())
    expected = analysis(capsys, csv)
    assert analysis(capsys, tmp_path / "log.RData") == expected
    assert analysis(capsys, tmp_path / "log.rds") == expected
    log = probestats.read_log(tmp_path / "log.RData")
    assert log.frame.drop("_row").rows() == frame.rows()


def test_an_rdata_file_of_several_frames_names_them(tmp_path):
    pyreadr = pytest.importorskip("pyreadr")
    frame = make_log(items=2, runs=1).to_pandas()
    path = tmp_path / "two.RData"
    pyreadr.write_rdata(str(path), frame, df_name="a")
    # pyreadr writes one frame per file; a file of two frames comes from R itself: what the reader (run in a
    # child process) found is stood in for, and read_r's own check is used
    from probestats.io import formats

    held = frame

    class Found:
        shapes = {"first": list(held.shape), "second": list(held.shape)}
        warnings = []

        def frame(self, name):
            return held

        def discard(self):
            pass

    real = formats._r_frames
    try:
        formats._r_frames = lambda p: Found()
        with pytest.raises(ReadError, match=r"holds 2 data frames \(first, second\); name one with records='first'"):
            formats.read_r(path)
        assert formats.read_r(path, "second")[0].height == len(frame)
    finally:
        formats._r_frames = real


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".json", ".tsv", ".parquet"])
@pytest.mark.parametrize("compression", [".gz", ".zst"])
def test_a_compressed_file_reads_as_the_plain_one(tmp_path, capsys, suffix, compression):
    frame = make_log(items=5, runs=3, seed=1)
    plain = write_log(frame, tmp_path / f"log{suffix}")
    data = plain.read_bytes()
    packed = tmp_path / f"packed{suffix}{compression}"
    if compression == ".gz":
        packed.write_bytes(gzip.compress(data))
    else:
        import zstandard

        packed.write_bytes(zstandard.ZstdCompressor().compress(data))
    assert analysis(capsys, packed) == analysis(capsys, plain)


def test_a_file_that_is_not_what_its_suffix_says(tmp_path, capsys):
    bad = tmp_path / "log.csv.gz"
    bad.write_text("item,variant\n1,a\n")
    assert main(["validate", str(bad)]) == 1
    assert "Error: cannot decompress 'log.csv.gz' as gzip" in capsys.readouterr().err


def test_a_folder_of_one_json_record_per_file(tmp_path, capsys):
    frame = make_log(items=4, runs=2, seed=2)
    folder = tmp_path / "runs"
    folder.mkdir()
    for k, row in enumerate(frame.iter_rows(named=True)):
        (folder / f"run{k:03d}.json").write_text(json.dumps(row), encoding="utf-8")
    csv = write_log(frame, tmp_path / "log.csv")
    together = analysis(capsys, folder)
    assert together["average_gap"] == pytest.approx(analysis(capsys, csv)["average_gap"])
    log = probestats.Probe().apply(str(folder))
    assert log.frame.height == frame.height and "file" in log.frame.columns
    assert [Path(r.file).name for r in log.rows([5])] == ["run005.json"] and int(log.rows([5])[0]) == 1


def test_a_pandas_frame_without_pyarrow():
    script = ("import sys; sys.modules['pyarrow'] = None\n"
              "import pandas as pd, probestats\n"
              "df = pd.DataFrame({'item': [1, 1, 2, 2], 'variant': pd.Categorical(['a', 'b', 'a', 'b']),"
              " 'steps': [3.0, None, 4.0, 2.0], 'n': pd.array([1, None, 3, 4], dtype='Int64'),"
              " 'when': pd.to_datetime(['2024-01-01', None, '2024-01-02', '2024-01-03'])})\n"
              "f = probestats.read_log(df).frame\n"
              "print(f['variant'].to_list(), f['steps'].to_list(), f['n'].to_list(), f['when'].null_count())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['a', 'b', 'a', 'b'] [3.0, None, 4.0, 2.0] [1, None, 3, 4] 1"


def _conversations(folder: Path, files: int = 7, per_file: int = 248) -> pl.DataFrame:
    """``files`` JSON files, each one object with plain keys and ``per_file`` records under ``conversations``;
    the records of all files together, as a frame."""
    folder.mkdir()
    rows = []
    for f in range(files):
        records = [{"item": f * 1000 + i // 2, "variant": "ab"[i % 2], "steps": (7 * i + f) % 9}
                   for i in range(per_file)]
        rows += records
        (folder / f"part{f}.json").write_text(json.dumps({"benchmark": "sycophancy", "split": f,
                                                          "conversations": records}), encoding="utf-8")
    return pl.DataFrame(rows)


def test_a_folder_of_json_files_honours_records_key(tmp_path, capsys):
    folder = tmp_path / "convs"
    expected = _conversations(folder)
    log = probestats.Probe(records="conversations").apply(str(folder))
    assert log.frame.height == 7 * 248 == 1736
    assert log.frame.select("item", "variant", "steps").rows() == expected.rows()
    assert main(["validate", str(folder), "--metric", "steps", "--read", "records=conversations"]) == 0
    assert "1736 rows" in capsys.readouterr().out


def test_a_folder_read_as_one_record_per_file_says_how_to_read_its_records(tmp_path, capsys):
    folder = tmp_path / "convs"
    _conversations(folder, files=3, per_file=4)
    log = probestats.Probe().apply(str(folder))
    assert log.frame.height == 3
    (said,) = [p for p in log.problems if p.code == "one_record_per_file"]
    assert "under 'conversations'" in said.message and "records='conversations'" in said.message
    main(["validate", str(folder), "--metric", "steps"])
    assert "give --read records=conversations" in capsys.readouterr().out


# ---------------------------------------------------------------- roles kept in the file names


def _item_gap(frame: pl.DataFrame, a: str, b: str, metric: str = "steps") -> float:
    """The average over items of mean under a minus mean under b: the reference the analyses are held to."""
    means = frame.group_by("item", "variant").agg(pl.col(metric).cast(pl.Float64).mean())
    wide = means.pivot(on="variant", index="item", values=metric)
    return float((wide[a] - wide[b]).mean())


def test_a_folder_of_one_csv_per_condition_reads_the_condition_from_the_file_names(tmp_path, capsys):
    frame = make_log(items=6, runs=3, seed=4, values=("C1_english", "C2_german", "C3_french"))
    folder = tmp_path / "grades"
    folder.mkdir()
    for value in ("C1_english", "C2_german", "C3_french"):
        write_log(frame.filter(pl.col("variant") == value).drop("variant"), folder / f"{value}.csv")
    log = probestats.Probe(columns=(("variant", "file_stem"),)).apply(str(folder), metric="steps")
    assert sorted(set(log.frame["variant"])) == ["C1_english", "C2_german", "C3_french"]
    result = analysis(capsys, folder, "--column", "variant=file_stem", "--a", "C1_english", "--b", "C2_german")
    assert result["average_gap"] == pytest.approx(_item_gap(frame, "C1_english", "C2_german"))
    # the path as given holds the condition too, and --where and --derive read both columns
    by_path = analysis(capsys, folder, "--column", "variant=file", "--a", str(folder / "C1_english.csv"),
                       "--b", str(folder / "C2_german.csv"))
    assert by_path["average_gap"] == pytest.approx(result["average_gap"])
    # without a mapping, validate says where the value is; the pattern it suggests reads it
    assert main(["validate", str(folder), "--metric", "steps"]) == 1
    said = capsys.readouterr().out
    assert "read it from their names with --column variant=file_stem" in said and "--wide" not in said
    assert "--read 'file-pattern={variant}_{}'" in said
    coded = analysis(capsys, folder, "--read", "file-pattern={variant}_{}", "--a", "C1", "--b", "C2")
    assert coded["average_gap"] == pytest.approx(result["average_gap"])
    kept = analysis(capsys, folder, "--column", "variant=lang", "--derive", "lang = split_part(file_stem, '_', 2)",
                    "--where", "file_stem <> 'C3_french'")
    assert kept["average_gap"] == pytest.approx(_item_gap(frame, "C1_english", "C2_german"))


def test_runs_and_models_in_the_file_names_are_columns_by_a_pattern(tmp_path, capsys):
    folder = tmp_path / "runs"
    folder.mkdir()
    parts = []
    for k, (run, model) in enumerate([("Run1", "chatgpt"), ("Run1", "llama"), ("Run2", "chatgpt"),
                                      ("Run2", "llama")]):
        frame = make_log(items=5, runs=1, seed=10 + k, gap=0.5 * k).drop("model", "seed", "temperature")
        write_log(frame, folder / f"{run}_{model}_responses.json")
        parts.append(frame.with_columns(run=pl.lit(run), model=pl.lit(model)))
    together = pl.concat(parts)
    pattern = "file-pattern={run}_{model}_responses"
    log = probestats.Probe(file_pattern="{run}_{model}_responses").apply(str(folder), metric="steps")
    assert log.frame.select("item", "variant", "steps", "run", "model").rows() == together.rows()
    assert {p.code for p in log.problems} <= {"mixed_setting"}   # no block read into the file-name columns
    result = analysis(capsys, folder, "--read", pattern, "--by", "model")
    for group in result["groups"]:
        model = group["by"]["model"]
        assert group["average_gap"] == pytest.approx(_item_gap(together.filter(pl.col("model") == model),
                                                               "formal", "casual"))
    # the same log as one CSV with the columns written out: the same analysis
    one = probestats.Probe(file_pattern="{run}_{model}_responses").apply(str(folder / "Run2_llama_responses.json"))
    assert set(one.frame["run"]) == {"Run2"} and set(one.frame["model"]) == {"llama"} and one.source.startswith("1 file (")
    csv = write_log(together.rename({"run": "batch"}), tmp_path / "together.csv")
    assert result["groups"] == analysis(capsys, csv, "--by", "model", "--setting", "batch")["groups"]


def test_a_file_pattern_that_does_not_fit_or_cannot_be_read_is_refused(tmp_path, capsys):
    folder = tmp_path / "runs"
    folder.mkdir()
    write_log(make_log(items=2, runs=1), folder / "Run1_gpt_responses.csv")
    write_log(make_log(items=2, runs=1), folder / "notes.csv")
    assert main(["validate", str(folder), "--read", "file-pattern={run}_{llm}_responses"]) == 1
    err = capsys.readouterr().err
    assert "the name of '" in err and "('notes') does not fit --read 'file-pattern={run}_{llm}_responses'" in err
    for pattern, said in (("responses", "no {NAME} in it"), ("{run}_{run}", "'run' is twice"),
                          ("{file}_x", "a name probestats gives a column itself"), ("{run_x", "a brace without")):
        with pytest.raises(OptionError, match=re.escape(said)):
            probestats.Probe(file_pattern=pattern)
    with pytest.raises(OptionError, match="reads the names of files"):
        probestats.Probe(file_pattern="{run}_x").apply([{"item": 1, "variant": "a"}])
    (folder / "notes.csv").unlink()
    # a pattern's field that a file already holds is refused, not silently overwritten
    assert main(["validate", str(folder), "--read", "file-pattern={run}_{model}_responses"]) == 1
    assert "already has a column 'model'" in capsys.readouterr().err


# ---------------------------------------------------------------- files that differ


def test_a_folder_of_json_files_whose_columns_differ_reads_as_one_log(tmp_path, capsys):
    folder = tmp_path / "judges"
    folder.mkdir()
    frames = []
    for k, judge in enumerate(("gpt35", "llama", "mistral")):
        frame = make_log(items=6, runs=2, seed=20 + k, gap=1.0).drop("model", "temperature")
        if judge != "llama":   # one judge's file keeps no raw output
            frame = frame.with_columns(pl.format("reply {}", pl.col("steps")).alias(f"{judge}_output"))
        write_log(frame, folder / f"{judge}_results.json")
        frames.append(frame.select("item", "variant", "steps"))
    log = probestats.Probe().apply(str(folder), metric="steps")
    said = [p.message for p in log.problems if p.code == "columns_differ"]
    assert said == [f"'{folder / 'gpt35_results.json'}' has no 'mistral_output', which other files of the log have: "
                    "its rows leave it blank",
                    f"'{folder / 'llama_results.json'}' has no 'gpt35_output', 'mistral_output', which other files "
                    "of the log have: its rows leave them blank",
                    f"'{folder / 'mistral_results.json'}' has no 'gpt35_output', which other files of the log have: "
                    "its rows leave it blank"]
    blank = log.frame.filter(pl.col("file").str.contains("llama"))
    assert blank["gpt35_output"].null_count() == blank.height == 24
    result = analysis(capsys, folder)
    assert result["average_gap"] == pytest.approx(_item_gap(pl.concat(frames), "formal", "casual"))


def test_a_folder_of_one_nested_json_object_per_inference(tmp_path, capsys):
    folder = tmp_path / "audit"
    folder.mkdir()
    rows = []
    for k, (resume, race, score) in enumerate((r, race, (3 * r + 5 * (race == "a") + s) % 11)
                                              for r in range(6) for race in ("a", "b") for s in range(2)):
        record = {"resume": {"id": resume, "race": race}, "model": "m1",
                  "response": {"score": score, "key_factors": ["experience", "degree"]}}
        (folder / f"inference_{k:03d}.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
        rows.append({"item": resume, "variant": race, "steps": score})
    reference = pl.DataFrame(rows)
    mapped = ("--column", "item=resume.id", "--column", "variant=resume.race")
    result = analysis(capsys, folder, *mapped, "--column", "steps=response.score")
    assert result["average_gap"] == pytest.approx(_item_gap(reference, "a", "b"))
    # the metric named by its path, with the header 'response' read as the reply: the same field
    code = main(["analyze", str(folder), "--metric", "response.score", *mapped, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert json.loads(out)["average_gap"] == pytest.approx(result["average_gap"])


# ---------------------------------------------------------------- first guesses that fit


def _responses(folder: Path, condition: str = "condition") -> pl.DataFrame:
    """A folder of JSON responses, one file per model: an id per response, per prompt variant (prompt_id) and per
    item (hypothesis_id); the rows of every file, as a frame."""
    folder.mkdir()
    frames = []
    for m, model in enumerate(("gpt4", "claude")):
        rows = [{"response_id": f"r{m}{h}{c}", "prompt_id": f"h{h}-{c}", "hypothesis_id": f"h{h}", condition: c,
                 "model": model, "score": (5 * h + 3 * m + (2 if c == "male" else 0)) % 7}
                for h in range(6) for c in ("male", "female")]
        (folder / f"{model}.json").write_text(json.dumps(rows), encoding="utf-8")
        frames.append(pl.DataFrame(rows))
    return pl.concat(frames)


def test_a_folder_of_json_responses_is_guessed_its_item_and_no_wide_layout(tmp_path, capsys):
    folder = tmp_path / "responses"
    frame = _responses(folder)
    code = main(["validate", str(folder), "--metric", "score"])
    out = capsys.readouterr().out
    assert code == 0 and "item = 'hypothesis_id'" in out and "--wide" not in out
    assert "item_guess" in out and "'prompt_id', found by its name, holds one value each" in out
    code = main(["analyze", str(folder), "--metric", "score", "--json"])
    data = json.loads(capsys.readouterr().out)
    reference = frame.rename({"hypothesis_id": "item", "condition": "variant", "score": "steps"})
    assert data["n_items"] == 6 and data["average_gap"] == pytest.approx(_item_gap(reference, "male", "female"))
    # the value column under a name no alias knows: no wide layout of ids suggested, the value column asked for
    other = tmp_path / "other"
    _responses(other, condition="condition_id")
    main(["validate", str(other), "--metric", "score"])
    out = capsys.readouterr().out
    assert "no 'variant' column" in out and "--wide" not in out and "--column variant=HEADER" in out


def test_a_wide_layout_is_suggested_for_columns_of_one_metric_alone(tmp_path, capsys):
    rows = [{"item": i, "formal_steps": 3 + i % 2, "casual_steps": 4 - i % 3, "response_time": 10.0 + i,
             "response_length": 300 + 7 * i} for i in range(6)]
    wide = write_log(pl.DataFrame(rows).drop("response_time", "response_length"), tmp_path / "wide.csv")
    main(["validate", str(wide), "--metric", "steps"])
    assert "read it with --wide formal_steps,casual_steps" in capsys.readouterr().out
    measures = write_log(pl.DataFrame(rows).drop("formal_steps", "casual_steps"), tmp_path / "measures.csv")
    for extra in ((), ("--metric", "response_time")):   # two measures, apart in range or one of them the metric
        main(["validate", str(measures), *extra])
        out = capsys.readouterr().out
        assert "no 'variant' column" in out and "--wide" not in out
