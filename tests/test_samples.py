"""The bundled sample logs are reproducible and carry the answers they promise; the test factory
plants the gap it is asked for."""

from __future__ import annotations

import csv
import io
import json
import re
import statistics
import subprocess
import sys
import zipfile
from collections import defaultdict
from fractions import Fraction
from itertools import product
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.factories import FORMATS, make_log, write_log

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
NOT_GENERATED = {"make_samples.py", "README.md"}


def committed_files() -> list[str]:
    return sorted(
        p.relative_to(SAMPLES).as_posix()
        for p in SAMPLES.rglob("*")
        if p.is_file() and p.name not in NOT_GENERATED and "__pycache__" not in p.parts
    )


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("samples")
    subprocess.run([sys.executable, str(SAMPLES / "make_samples.py"), str(out)],
                   check=True, capture_output=True)
    return out


# --- independent references -------------------------------------------------------------


def read_rows(path: Path, encoding: str = "utf-8") -> list[dict[str, str]]:
    with open(path, newline="", encoding=encoding) as handle:
        return list(csv.DictReader(handle))


def item_gaps(rows, a: str, b: str, metric: str = "steps") -> list[Fraction]:
    """Exact per-item gaps (mean under a minus mean under b), items in numeric order."""
    cells = defaultdict(list)
    for row in rows:
        cells[(int(row["item"]), row["variant"])].append(int(row[metric]))
    items = sorted({item for item, _ in cells})
    return [Fraction(sum(cells[i, a]), len(cells[i, a])) - Fraction(sum(cells[i, b]), len(cells[i, b]))
            for i in items]


def brute_force_sign_flip(gaps) -> Fraction:
    """Two-sided sign-flip p by enumerating all 2^n sign patterns, in exact fractions:
    the share of patterns whose |sum| is at least the observed |sum| (the mean's n cancels)."""
    observed = abs(sum(gaps))
    hits = sum(abs(sum(s * g for s, g in zip(signs, gaps))) >= observed
               for signs in product((1, -1), repeat=len(gaps)))
    return Fraction(hits, 2 ** len(gaps))


def test_brute_force_reference_on_a_hand_example():
    # Gaps 1, 2, 3: observed |sum| 6; only all-plus and all-minus reach 6, so p = 2/8.
    assert brute_force_sign_flip([1, 2, 3]) == Fraction(1, 4)
    # Gaps 1, -1: every pattern has |sum| 0 or 2 >= 0, so p = 1.
    assert brute_force_sign_flip([1, -1]) == 1


# --- reproducibility -----------------------------------------------------------------------


def test_regeneration_writes_the_committed_file_set(regenerated):
    fresh = sorted(p.relative_to(regenerated).as_posix() for p in regenerated.rglob("*") if p.is_file())
    assert fresh == committed_files()


@pytest.mark.parametrize("name", committed_files())
def test_regeneration_is_identical(regenerated, name):
    old, new = SAMPLES / name, regenerated / name
    if name.endswith(".xlsx") and zipfile.is_zipfile(old):
        before = pl.read_excel(old, sheet_id=0, has_header=False)
        after = pl.read_excel(new, sheet_id=0, has_header=False)
        assert before.keys() == after.keys()
        for sheet in before:
            assert before[sheet].equals(after[sheet])
    else:
        assert old.read_bytes() == new.read_bytes()


@pytest.mark.parametrize("name", committed_files())
def test_every_sample_is_small(name):
    assert (SAMPLES / name).stat().st_size < 200_000


def test_readme_describes_every_file():
    readme = (SAMPLES / "README.md").read_text(encoding="utf-8")
    for name in committed_files():
        assert f"`{Path(name).name}`" in readme, name


# --- the style probe ------------------------------------------------------------------------

STYLE_COLUMNS = ["time", "model", "temperature", "system", "item", "variant", "seed", "prompt",
                 "reply", "steps"]


def numbered_lines(reply: str) -> int:
    return sum(1 for line in reply.splitlines() if re.match(r"\d+\. ", line))


def test_style_probe_detects_the_planted_gap():
    rows = read_rows(SAMPLES / "style_probe.csv")
    gaps = item_gaps(rows, "formal", "casual")
    assert len(gaps) == 8
    assert sum(gaps) > 0
    assert brute_force_sign_flip(gaps) < Fraction(5, 100)


def test_five_seeds_miss_the_planted_gap():
    gaps = item_gaps(read_rows(SAMPLES / "style_probe_5seeds.csv"), "formal", "casual")
    assert len(gaps) == 8
    assert brute_force_sign_flip(gaps) >= Fraction(5, 100)


def test_same_versus_same_shows_only_a_small_gap():
    noise = item_gaps(read_rows(SAMPLES / "style_noise.csv"), "formal", "formal again")
    real = item_gaps(read_rows(SAMPLES / "style_probe.csv"), "formal", "casual")
    assert brute_force_sign_flip(noise) >= Fraction(5, 100)
    assert abs(sum(noise)) < abs(sum(real)) / 2


def test_style_probe_design():
    rows = read_rows(SAMPLES / "style_probe.csv")
    assert list(rows[0]) == STYLE_COLUMNS
    assert len(rows) == 8 * 2 * 20
    assert {(r["model"], r["temperature"], r["system"]) for r in rows} == {
        ("stand-in-v1", "0.8", rows[0]["system"])}
    seeds = defaultdict(list)
    for r in rows:
        seeds[r["item"], r["variant"]].append(int(r["seed"]))
        assert int(r["steps"]) == numbered_lines(r["reply"]) >= 1
    assert set(map(tuple, seeds.values())) == {tuple(range(1, 21))}
    ordered = sorted(rows, key=lambda r: r["time"])
    assert [r["variant"] for r in ordered[:4]] == ["formal", "casual", "formal", "casual"]
    assert all(x["variant"] != y["variant"] for x, y in zip(ordered, ordered[1:]))


def test_two_casual_requests_lack_the_casual_markers():
    markers = re.compile(r"\b(pls|plz|lol|idk|tbh|thx|rn|u|ur|gonna)\b")
    casual = {r["item"]: r["prompt"] for r in read_rows(SAMPLES / "style_probe.csv")
              if r["variant"] == "casual"}
    unmarked = sorted(int(i) for i, text in casual.items() if not markers.search(text.lower()))
    assert unmarked == [3, 5]


def test_jsonl_holds_the_same_runs_as_csv():
    from_csv = read_rows(SAMPLES / "style_probe.csv")
    lines = (SAMPLES / "style_probe.jsonl").read_text(encoding="utf-8").splitlines()
    from_json = [json.loads(line) for line in lines]
    assert [{k: str(v) for k, v in r.items()} for r in from_json] == from_csv
    assert isinstance(from_json[0]["steps"], int) and isinstance(from_json[0]["temperature"], float)


def test_five_seed_log_repeats_the_first_five_draws():
    full = {(r["item"], r["variant"], r["seed"]): (r["reply"], r["steps"])
            for r in read_rows(SAMPLES / "style_probe.csv")}
    few = read_rows(SAMPLES / "style_probe_5seeds.csv")
    assert len(few) == 8 * 2 * 5
    assert all(full[r["item"], r["variant"], r["seed"]] == (r["reply"], r["steps"]) for r in few)


def test_noise_log_changes_only_the_draw():
    rows = read_rows(SAMPLES / "style_noise.csv")
    assert {r["variant"] for r in rows} == {"formal", "formal again"}
    prompts = defaultdict(set)
    seeds = defaultdict(set)
    for r in rows:
        prompts[r["item"]].add(r["prompt"])
        seeds[r["variant"]].add(int(r["seed"]))
    assert all(len(p) == 1 for p in prompts.values())
    assert seeds == {"formal": set(range(1, 21)), "formal again": set(range(101, 121))}
    assert {(r["model"], r["temperature"]) for r in rows} == {("stand-in-v1", "0.8")}


def test_hand_spreadsheet_matches_its_csv():
    sheet = pl.read_excel(SAMPLES / "style_hand.xlsx", sheet_name="runs")
    text = pl.read_csv(SAMPLES / "style_hand.csv")
    assert sheet.columns == ["run_id", "time", "model", "temperature", "seed", "item", "variant",
                             "prompt", "reply", "steps"]
    assert sheet.schema["steps"] == pl.Int64
    assert sheet.equals(text)
    assert sheet.height == 6 * 2 * 5
    assert sheet["variant"].to_list()[:4] == ["formal", "casual", "formal", "casual"]
    counts = sheet.group_by("item", "variant").len()["len"].to_list()
    assert set(counts) == {5} and len(counts) == 12


# --- dual framing -----------------------------------------------------------------------------

# BiasLab's long headers, plus Item: the claim, the same in both framings and both languages
FRAMING_COLUMNS = ["Model", "Item", "Language", "Framing", "Iteration", "Question", "Prefix", "Suffix",
                   "Topic", "Raw", "Cat", "Score", "IsRefusal", "IsNeutral"]
LIKERT = {"Strongly Agree": 2, "Agree": 1, "Neutral": 0, "Disagree": -1, "Strongly Disagree": -2}


def test_framing_long_layout():
    rows = read_rows(SAMPLES / "framing_long.csv")
    assert list(rows[0]) == FRAMING_COLUMNS
    assert len(rows) == 2 * 2 * 4 * 2 * 2 * 10  # models, topics, claims, languages, framings, iterations
    for r in rows:
        assert LIKERT[r["Cat"]] == int(r["Score"])
        assert r["IsNeutral"] == str(r["Score"] == "0")
        assert r["IsRefusal"] in {"True", "False"}
        if r["IsRefusal"] == "True":
            assert r["Score"] == "0"
        if r["Language"] == "es":
            assert "agree" not in r["Raw"].lower()
    # the same wrapped prompt went to both models
    prompts = defaultdict(set)
    for r in rows:
        prompts[r["Language"], r["Framing"], r["Question"], r["Iteration"]].add((r["Prefix"], r["Suffix"]))
    assert len(prompts) == 320 and all(len(v) == 1 for v in prompts.values())
    # a claim (Item) is asked in both framings and both languages
    claims = defaultdict(set)
    for r in rows:
        claims[r["Item"]].add((r["Language"], r["Framing"]))
    assert len(claims) == 8 and all(len(v) == 4 for v in claims.values())


def test_framing_plants_a_protective_lean_and_an_abstainer():
    targets = {r["topic"]: r for r in read_rows(SAMPLES / "framing_targets.csv")}
    assert targets["leadership"]["affirmative"] == "female"
    aligned, raw, refusals = defaultdict(list), defaultdict(list), defaultdict(list)
    for r in read_rows(SAMPLES / "framing_long.csv"):
        asserted = targets[r["Topic"]]["affirmative" if r["Framing"] == "Affirmative" else "reverse"]
        reference = targets[r["Topic"]]["affirmative"]
        score = int(r["Score"])
        aligned[r["Model"]].append(score if asserted == reference else -score)
        raw[r["Model"]].append(score)
        refusals[r["Model"]].append(r["IsRefusal"] == "True")
    # model-a: leans toward the first target, and its mean raw score is negative (protective)
    assert statistics.mean(aligned["model-a"]) > 0.5
    assert statistics.mean(raw["model-a"]) < -0.2
    # model-b: close to no lean, abstains often
    assert abs(statistics.mean(aligned["model-b"])) < 0.25
    assert statistics.mean(refusals["model-b"]) > 0.2


def test_framing_wide_matches_long():
    wide = pl.read_excel(SAMPLES / "framing_wide.xlsx")
    assert wide.columns == ["Item", "Language", "Framing", "Question", "Prefix", "Suffix", "Iteration",
                            "Topic", "model-a_Raw", "model-a_Cat", "model-b_Raw", "model-b_Cat"]
    assert wide.height == 320
    long = pl.read_csv(SAMPLES / "framing_long.csv")
    for model in ("model-a", "model-b"):
        part = long.filter(pl.col("Model") == model).select(
            "Item", "Language", "Framing", "Question", "Prefix", "Suffix", "Iteration", "Topic",
            pl.col("Raw").alias(f"{model}_Raw"), pl.col("Cat").alias(f"{model}_Cat"))
        assert wide.select(part.columns).equals(part)


# --- broken logs ------------------------------------------------------------------------------

BROKEN = SAMPLES / "broken"


def test_non_numeric_cell_is_on_line_39():
    lines = (BROKEN / "non_numeric.csv").read_text(encoding="utf-8").splitlines()
    assert lines[38].endswith(",four")
    assert sum(line.endswith(",four") for line in lines) == 1
    assert all(len(next(csv.reader([line]))) == len(lines[0].split(",")) for line in lines)


def test_unmatched_item_lacks_casual_runs():
    rows = read_rows(BROKEN / "unmatched_item.csv")
    variants = defaultdict(set)
    for r in rows:
        variants[r["item"]].add(r["variant"])
    assert variants.pop("5") == {"formal"}
    assert all(v == {"formal", "casual"} for v in variants.values())


def test_confounded_model_follows_the_value():
    pairs = {(r["variant"], r["model"]) for r in read_rows(BROKEN / "confounded_model.csv")}
    assert pairs == {("formal", "stand-in-v1"), ("casual", "stand-in-v2")}


def test_simple_header_problems():
    assert "steps" not in read_rows(BROKEN / "missing_metric.csv")[0]
    assert list(read_rows(BROKEN / "friendly_headers.csv")[0]) == ["Run ID", " Item ", "Variant",
                                                                   "Seed", "Steps"]
    assert (BROKEN / "empty.csv").read_text(encoding="utf-8").count("\n") == 1


def test_not_json_fails_on_line_2_only():
    lines = (BROKEN / "not_json.jsonl").read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if number == 2:
            with pytest.raises(json.JSONDecodeError):
                json.loads(line)
        else:
            json.loads(line)


def test_latin1_is_not_utf8():
    data = (BROKEN / "latin1.csv").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert "función" in data.decode("latin-1")


def test_unbalanced_quote_cannot_be_parsed():
    text = (BROKEN / "unbalanced_quotes.csv").read_text(encoding="utf-8")
    assert text.count('"') % 2 == 1  # an odd number of quotes: one never closes
    lines = text.splitlines()
    assert lines[5].count('"') == 1  # line 6, counting the header as line 1
    with pytest.raises(csv.Error):
        list(csv.reader(io.StringIO(text), strict=True))


def test_random_bytes_are_not_a_workbook():
    assert not zipfile.is_zipfile(BROKEN / "random_bytes.xlsx")


def test_near_duplicate_values():
    variants = defaultdict(int)
    for r in read_rows(BROKEN / "near_duplicate.csv"):
        variants[r["variant"]] += 1
    assert variants == {"formal": 32, "Formal": 8, "casual": 40}


def test_spreadsheet_variants():
    as_text = pl.read_excel(BROKEN / "numbers_as_text.xlsx")
    assert as_text.schema["steps"] == pl.String
    assert as_text["steps"].cast(pl.Int64).equals(pl.read_csv(SAMPLES / "style_hand.csv")["steps"])
    titled = pl.read_excel(BROKEN / "title_rows.xlsx", read_options={"header_row": 2})
    assert titled.equals(pl.read_excel(SAMPLES / "style_hand.xlsx"))


def test_hostile_log_is_a_matched_probe():
    rows = read_rows(BROKEN / "hostile.csv")
    items = {r["item"] for r in rows}
    assert "<script>alert(1)</script>" in items
    assert {r["variant"] for r in rows} == {"<img src=x onerror=alert(1)>", "casual|pipe"}
    assert any("\n" in r["reply"] and "|" in r["reply"] for r in rows)
    cells = defaultdict(list)
    for r in rows:
        cells[r["item"], r["variant"]].append(r["seed"])
        assert int(r["steps"]) == numbered_lines(r["reply"])
    assert len(cells) == 2 * len(items) and len({tuple(s) for s in cells.values()}) == 1


# --- the test factory ------------------------------------------------------------------------


@pytest.mark.parametrize("items,runs,values,integer", [
    (8, 20, ("formal", "casual"), True),
    (3, 1, ("a", "b", "c"), False),
    (1, 5, ("x", "y"), True),
])
def test_make_log_shape(items, runs, values, integer):
    log = make_log(items=items, runs=runs, values=values, integer=integer, metric="score")
    assert log.height == items * runs * len(values)
    assert log.schema == pl.Schema({"item": pl.String, "variant": pl.String, "seed": pl.Int64,
                                    "model": pl.String, "temperature": pl.Float64,
                                    "score": pl.Int64 if integer else pl.Float64})
    cells = log.group_by("item", "variant").agg(pl.col("seed").sort())
    assert cells.height == items * len(values)
    assert all(s == list(range(1, runs + 1)) for s in cells["seed"].to_list())


@pytest.mark.parametrize("gap,seed,integer", [(1.0, 0, True), (0.0, 1, True), (-0.5, 2, False),
                                              (2.0, 3, True)])
def test_make_log_plants_the_gap(gap, seed, integer):
    log = make_log(items=40, runs=50, gap=gap, seed=seed, sd=1.5, integer=integer)
    gaps = item_gaps(log.with_columns(pl.col("steps").round().cast(pl.Int64)).to_dicts()
                     if not integer else log.to_dicts(), "formal", "casual")
    # Each item gap has sd 1.5 * sqrt(2/50) = 0.30 (rounding adds at most 1/12 of variance);
    # the average of 40 has sd about 0.05, so 0.2 is four standard errors.
    assert abs(float(sum(gaps)) / len(gaps) - gap) < 0.2


def test_make_log_heterogeneity_spreads_the_item_gaps():
    def spread(heterogeneity):
        log = make_log(items=300, runs=100, sd=1.0, heterogeneity=heterogeneity, seed=5)
        return statistics.stdev(float(g) for g in item_gaps(log.to_dicts(), "formal", "casual"))
    # Expected sd of item gaps: sqrt(tau^2 + (1 + 1/12) * 2/100), i.e. 1.011 for tau = 1 and
    # 0.147 for tau = 0; the sample sd of 300 gaps is within 0.15 of it with room to spare.
    assert abs(spread(1.0) - 1.011) < 0.15
    assert spread(0.0) < 0.3


def test_make_log_clips_counts_and_is_reproducible():
    assert make_log(gap=-10.0, base=1.0)["steps"].min() >= 0
    assert make_log(seed=7).equals(make_log(seed=7))
    assert not make_log(seed=7).equals(make_log(seed=8))
    assert make_log(items=2, runs=2, as_frame=False) == make_log(items=2, runs=2).to_dicts()
    assert set(make_log(model="m2")["model"]) == {"m2"}


@settings(max_examples=25, deadline=None)
@given(items=st.integers(1, 6), runs=st.integers(1, 6), seed=st.integers(0, 2**32 - 1),
       gap=st.floats(-3, 3))
def test_make_log_property_matched_design(items, runs, seed, gap):
    log = make_log(items=items, runs=runs, seed=seed, gap=gap)
    assert log.height == items * runs * 2
    assert log["steps"].min() >= 0
    per_item = log.group_by("item").agg(pl.col("variant").n_unique(), pl.len())
    assert per_item["variant"].to_list() == [2] * items
    assert per_item["len"].to_list() == [2 * runs] * items


def read_back(path: Path) -> pl.DataFrame:
    suffix = path.suffix
    if suffix in {".xlsx", ".ods"}:
        frame = pl.read_excel(path)
    elif suffix == ".parquet":
        frame = pl.read_parquet(path)
    elif suffix == ".json":
        frame = pl.DataFrame(json.loads(path.read_text(encoding="utf-8")))
    elif suffix == ".jsonl":
        frame = pl.DataFrame([json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()])
    else:
        frame = pl.read_csv(path, separator="\t" if suffix == ".tsv" else ",")
    return frame.with_columns(pl.col("item").cast(pl.String))


@pytest.mark.parametrize("suffix", FORMATS)
def test_write_log_round_trips(tmp_path, suffix):
    log = make_log(items=3, runs=2, seed=1)
    path = write_log(log, tmp_path / f"log{suffix}")
    assert read_back(path).equals(log)


def test_write_log_accepts_dicts_and_refuses_unknown_suffixes(tmp_path):
    rows = make_log(items=2, runs=1, as_frame=False)
    assert read_back(write_log(rows, tmp_path / "log.csv")).equals(pl.DataFrame(rows))
    with pytest.raises(ValueError, match="use one of"):
        write_log(rows, tmp_path / "log.numbers")
