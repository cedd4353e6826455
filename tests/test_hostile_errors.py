"""Hostile input, fourth campaign: each case that ended in an "unexpected" error, a library's warning or a
misleading message now ends in one ``Error:`` line that says what to do, or in an answer checked here against an
independent computation."""

from __future__ import annotations

import csv
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from tests.cli_run import one_error_line, run_cli

SUBNORMAL = [0.0, 5e-324, 1e-323]


def _write(path: Path, header, rows) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(rows)
    return path


@pytest.fixture
def drawn_log(tmp_path):
    """12 items x 2 values x 2 runs; a random setting t, a cluster column cl, a blank column and one unique per run."""
    rows, k = [], 0
    for i in range(12):
        for v in "ab":
            for r in range(2):
                k += 1
                rows.append([f"i{i}", v, (i * 7 + r * 3) % 5 + (v == "a"), (0.2, 0.7)[(i + r) % 2], f"c{i % 4}", "",
                             f"u{k}"])
    return _write(tmp_path / "log.csv", ["item", "variant", "score", "t", "cl", "blank", "uniq"], rows)


# ------------------------------------------------------------------ random settings on degenerate columns

@pytest.mark.parametrize("column, role", [("variant", "value"), ("item", "item"), ("score", "metric")])
def test_a_random_setting_that_is_a_role_column_is_refused_naming_the_role(capsys, drawn_log, column, role):
    code, out, err = run_cli(capsys, "analyze", drawn_log, "--metric", "score", "--random-setting", column)
    one_error_line(code, err)
    assert err == (f"Error: --random-setting {column}: '{column}' is the {role} column, not a setting of the runs "
                   "drawn at random per call; name a column such as temperature\n")


def test_a_blank_random_setting_is_refused_saying_it_is_empty(capsys, drawn_log):
    code, out, err = run_cli(capsys, "analyze", drawn_log, "--metric", "score", "--random-setting", "blank")
    one_error_line(code, err)
    assert err == ("Error: --random-setting blank: the column 'blank' is empty in every run of 'a' and 'b', so there "
                   "is no draw to check; fill it in, or drop --random-setting blank\n")


def test_a_random_setting_different_in_every_run_is_refused_saying_no_item_can_be_matched(capsys, drawn_log):
    code, out, err = run_cli(capsys, "analyze", drawn_log, "--metric", "score", "--random-setting", "uniq")
    one_error_line(code, err)
    assert err == ("Error: --random-setting uniq: no item has runs of both 'a' and 'b' at one level of uniq (48 "
                   "levels in 48 runs), so the gap cannot be matched within it; drop --random-setting uniq, or name "
                   "a setting whose values repeat within items\n")


@pytest.mark.parametrize("other, meaning", [(("--cluster", "cl"), "a cluster groups whole items"),
                                            (("--setting", "cl"), "a setting is held fixed")])
def test_a_column_given_as_a_random_setting_and_another_role_is_refused(capsys, drawn_log, other, meaning):
    code, out, err = run_cli(capsys, "analyze", drawn_log, "--metric", "score", *other, "--random-setting", "cl")
    one_error_line(code, err)
    assert err == (f"Error: {' '.join(other)} and --random-setting cl name one column twice: {meaning}, a random "
                   "setting is drawn for each run; give the column one role (drop one of them)\n")


def test_a_random_setting_named_twice_is_one_setting(capsys, drawn_log):
    code, out, err = run_cli(capsys, "analyze", drawn_log, "--metric", "score", "--random-setting", "t",
                             "--random-setting", "t", "--json")
    assert code == 0, err
    once = json.loads(out)["random_settings"]
    assert [d["column"] for d in once] == ["t"]
    code, out, err = run_cli(capsys, "analyze", drawn_log, "--metric", "score", "--random-setting", "t", "--json")
    assert json.loads(out)["random_settings"] == once


# ------------------------------------------------------------------ subnormal scores

def _subnormal_log(tmp_path: Path, values=("a", "b")) -> tuple[Path, np.ndarray]:
    """Scores cycling 0, 5e-324, 1e-323 under 'a', 0 or 5e-324 under 'b'; the item gaps in units of 5e-324."""
    rows, units = [], []
    for i in range(12):
        a, b = i % 3, int(i % 4 == 0)
        rows += [[f"i{i}", values[0], SUBNORMAL[a]], [f"i{i}", values[1], SUBNORMAL[b]]]
        units.append(a - b)
        if len(values) > 2:
            rows.append([f"i{i}", values[2], SUBNORMAL[(i + 1) % 3]])
    return _write(tmp_path / "sub.csv", ["item", "variant", "score"], rows), np.array(units, float)


@pytest.mark.parametrize("values", [("a", "b"), ("a", "b", "c")])
def test_subnormal_scores_are_refused_with_the_scaling_that_fixes_them(capsys, tmp_path, values):
    path, _ = _subnormal_log(tmp_path, values)
    with np.errstate(all="raise"):   # no floating-point warning on the way
        code, out, err = run_cli(capsys, "analyze", path, "--metric", "score")
    one_error_line(code, err)
    assert err == ("Error: the item gaps of 'score' are at most 9.88e-324 in size, too small to compute with (their "
                   "squares fall below the smallest normal number, 2.2e-308); rescale the metric with --derive "
                   "'score_scaled = score * 1e300' and --metric score_scaled\n")


def test_following_the_scaling_advice_gives_the_tests_of_the_unscaled_gaps(capsys, tmp_path):
    path, units = _subnormal_log(tmp_path)
    code, out, err = run_cli(capsys, "analyze", path, "--metric", "score_scaled", "--derive",
                             "score_scaled = score * 1e300", "--json")
    assert code == 0, err
    data = json.loads(out)
    # the tests are invariant to the scale: computed here on the gaps in units of 5e-324 (small integers)
    t = stats.ttest_rel(units, np.zeros_like(units))
    assert data["published_tests"]["paired_t"]["statistic"] == pytest.approx(t.statistic, rel=1e-9)
    assert data["published_tests"]["paired_t"]["p"] == pytest.approx(t.pvalue, rel=1e-9)
    observed = abs(units.mean())
    flips = [abs(np.dot(signs, units)) / len(units) >= observed - 1e-12
             for signs in itertools.product((1, -1), repeat=len(units))]
    assert data["sign_flip"]["p"] == pytest.approx(sum(flips) / len(flips), rel=1e-12)
    assert data["average_gap"] == pytest.approx(units.mean() * 5e-324 * 1e300, rel=1e-9)
    assert math.isfinite(data["interval"]["low"])


# ------------------------------------------------------------------ raised limits: bounded before the work

def test_a_bootstrap_too_large_for_memory_is_refused_with_its_size_before_anything_is_drawn(capsys, drawn_log,
                                                                                          monkeypatch):
    import probestats.stats.resample as resample

    monkeypatch.setattr(resample, "memory_bytes", lambda: 8 * 10**9)   # the message names the memory: fix it
    code, out, err = run_cli(capsys, "analyze", drawn_log, "--metric", "score", "--limit", f"resamples={10**18}",
                             "--n-resamples", str(10**18), "--interval", "bootstrap")
    one_error_line(code, err)
    # 12 items: each resample holds the items drawn and both means' rows (3 x 12 x 8 bytes) and its statistic
    need = 10**18 * (3 * 12 * 8 + 8)
    most = 4 * 10**9 // (3 * 12 * 8 + 8)
    assert err == (f"Error: --n-resamples {10**18}: a bootstrap of {10**18:,} resamples over 12 items holds about "
                   f"{need / 1e9:.2g} GB in memory at once, more than the 8.0 GB this process can use; lower "
                   f"--n-resamples to {int(float(f'{most:.2g}')):,} or fewer\n")
    assert out == ""


def test_the_memory_bound_counts_only_the_bootstraps_that_run(monkeypatch):
    # 5,000 items: d_av's bootstrap stops at BCA_MAX_ITEMS (100) items, so 10,000 resamples need about 24 MB and
    # pass a 1 GB bound; a bootstrap interval over all 5,000 gaps needs about 800 MB, beyond half of it
    import polars as pl

    import probestats.stats.resample as resample
    from probestats.analyses.pair_tests import compare_pair
    from probestats.errors import OptionError
    from probestats.vocabulary import Tests

    monkeypatch.setattr(resample, "memory_bytes", lambda: 10**9)
    rng = np.random.default_rng(0)
    a, b = rng.normal(1, 1, 5000), rng.normal(0, 1, 5000)
    items = pl.DataFrame({"item": [str(i) for i in range(5000)], "mean_a": a, "mean_b": b, "gap": a - b,
                          "n_a": [1] * 5000, "n_b": [1] * 5000})
    result = compare_pair(items, "y", "a", "b", Tests(n_resamples=10_000))
    assert result.average_gap == pytest.approx(float(np.mean(a - b)), rel=1e-9)
    with pytest.raises(OptionError, match="a bootstrap of 10,000 resamples over 5,000 items holds about 0.8 GB"):
        compare_pair(items, "y", "a", "b", Tests(n_resamples=10_000, interval="bootstrap"))


@pytest.mark.parametrize("value, digits", [("9" * 5000, 5000), (str(10**18 + 1), 19)])
def test_a_limit_beyond_any_work_is_one_usage_error(capsys, drawn_log, value, digits):
    code, out, err = run_cli(capsys, "analyze", drawn_log, "--metric", "score", "--limit", f"resamples={value}")
    assert code == 2 and out == "" and "Traceback" not in err
    shown = f"{value[:12]}..." if digits > 19 else value
    assert err.splitlines()[-1] == (f"Error: Invalid value for --limit: limit 'resamples={shown}' ({digits:,} digits) "
                                    "is more than 10**18, beyond any work that can be done; give a whole number up "
                                    "to 10**18, for example resamples=2000000")
    assert len(err) < 600   # the 5,000 digits are not echoed


@pytest.mark.parametrize("flag", ["--n-resamples", "--seed"])
def test_a_value_of_5000_digits_is_echoed_by_its_start_and_length(capsys, drawn_log, flag):
    # click's own range check quotes the value it refused; the message shows the first characters and the count
    code, out, err = run_cli(capsys, "analyze", drawn_log, "--metric", "score", flag, "9" * 5000)
    assert code == 2 and out == "" and "Traceback" not in err
    last = err.splitlines()[-1]
    assert last.startswith(f"Error: Invalid value for '{flag}': ") and "(5,002 characters)" in last
    assert len(err) < 600


# ------------------------------------------------------------------ library warnings: constant runs under --per-item

def test_per_item_welch_on_constant_runs_says_no_spread_or_tests_the_other_side_without_a_warning(capsys, tmp_path):
    # i0: both values' runs constant at 0.1 and 0.7 (scipy's variance of them is 1.9e-34, with "Precision loss");
    # i1: 'a' constant at 0.1, 'b' varying; i2: both varying
    runs = {"i0": ([0.1] * 3, [0.7] * 3), "i1": ([0.1] * 3, [0.2, 0.5, 0.9]), "i2": ([0.3, 0.6, 1.0], [0.2, 0.4, 0.5])}
    rows = [[item, v, x] for item, (xa, xb) in runs.items() for v, xs in (("a", xa), ("b", xb)) for x in xs]
    path = _write(tmp_path / "const.csv", ["item", "variant", "score"], rows)
    code, out, err = run_cli(capsys, "analyze", path, "--metric", "score", "--per-item", "--json")
    assert code == 0, err
    assert "Precision" not in err and "Warning" not in err
    tests = {t["item"]: t for t in json.loads(out)["welch_per_item"]["tests"]}
    assert tests["i0"]["statistic"] is None and "no run-to-run spread" in tests["i0"]["note"]
    # i1 by hand: 'a' has no spread, so t = (0.1 - mean_b) / (sd_b / sqrt(3)) on 2 degrees of freedom
    xb = np.array(runs["i1"][1])
    t = (0.1 - xb.mean()) / (xb.std(ddof=1) / math.sqrt(3))
    assert tests["i1"]["statistic"] == pytest.approx(t, rel=1e-12)
    assert tests["i1"]["df"] == 2
    assert tests["i1"]["p"] == pytest.approx(2 * stats.t.sf(abs(t), 2), rel=1e-9)
    ref = stats.ttest_ind(*runs["i2"], equal_var=False)
    assert tests["i2"]["statistic"] == pytest.approx(ref.statistic, rel=1e-12)
    assert tests["i2"]["p"] == pytest.approx(ref.pvalue, rel=1e-12)


# ------------------------------------------------------------------ messages that mislead

def test_blocks_at_the_float_maximum_are_refused_in_one_plain_sentence(capsys, tmp_path):
    # a judge (a block: two per cell) at +-1.7e308: the mean of two blocks' means summed past the largest float
    rows = [[f"i{i}", v, m, 1.7e308 if (i + (v == "a")) % 2 else -1.7e308]
            for i in range(6) for v in "ab" for m in ("m1", "m2")]
    path = _write(tmp_path / "big.csv", ["item", "variant", "model", "score"], rows)
    code, out, err = run_cli(capsys, "analyze", path, "--metric", "score")
    one_error_line(code, err)
    assert "\\n" not in err and "expression" not in err
    assert err == ("Error: the gap of item i0, i1, i2, i3, i4 is not a finite number; rescale the metric 'score' "
                   "(its values are too large to subtract)\n")


def _rounds(tmp_path: Path, name: str, round_of) -> tuple[Path, dict]:
    """A JSON log of records with a list 'rounds' of records each; the runs' scores by (item, value)."""
    records, scores = [], {}
    for i in range(8):
        for v in "ab":
            rounds = [round_of(i, v, r) for r in range(3)]
            records.append({"item": f"i{i}", "variant": v, "rounds": rounds})
            scores[(f"i{i}", v)] = [x["score"] for x in rounds if "score" in x]
    path = tmp_path / name
    path.write_text(json.dumps(records))
    return path, scores


def test_explode_over_records_whose_keys_differ_reads_the_field(capsys, tmp_path):
    # some rounds carry a note, others not: the records of the list differ in their keys
    path, scores = _rounds(tmp_path, "rounds.json", lambda i, v, r: {
        "score": (i * 3 + r) % 4 + 2 * (v == "a"), **({"note": "retry"} if r == 1 else {})})
    code, out, err = run_cli(capsys, "analyze", path, "--explode", "rounds", "--column", "score=rounds.score",
                             "--metric", "score", "--json")
    assert code == 0, err
    gaps = [np.mean(scores[(f"i{i}", "a")]) - np.mean(scores[(f"i{i}", "b")]) for i in range(8)]
    assert json.loads(out)["average_gap"] == pytest.approx(np.mean(gaps), rel=1e-12)


def test_records_whose_key_changes_type_are_refused_naming_the_key_in_one_sentence(capsys, tmp_path):
    path, _ = _rounds(tmp_path, "mixed.json", lambda i, v, r: {"score": "high" if (i, r) == (2, 0) else r})
    code, out, err = run_cli(capsys, "analyze", path, "--explode", "rounds", "--column", "score=rounds.score",
                             "--metric", "score")
    one_error_line(code, err)
    assert err == ("Error: cannot make a table of the records (the key 'score' holds text and also numbers, such as "
                   "1); give each key one type\n")


@pytest.mark.parametrize("first", [["--metric", "rounds"], ["--metric", "rounds.score"], ["--metric", "score"]])
def test_the_advice_for_a_list_of_records_works_when_followed(capsys, tmp_path, first):
    path, scores = _rounds(tmp_path, "rounds.json", lambda i, v, r: {"score": (i + r) % 3 + (v == "a")})
    code, out, err = run_cli(capsys, "analyze", path, *first)
    one_error_line(code, err)
    advice = ("turn each list into runs and read its records' field with --explode rounds --column "
              "score=rounds.score --metric score")
    assert advice in err
    code, out, err = run_cli(capsys, "analyze", path, *advice.split(" with ")[1].split(), "--json")
    assert code == 0, err
    gaps = [np.mean(scores[(f"i{i}", "a")]) - np.mean(scores[(f"i{i}", "b")]) for i in range(8)]
    assert json.loads(out)["average_gap"] == pytest.approx(np.mean(gaps), rel=1e-12)


def test_the_advice_after_explode_names_the_field_and_works_when_followed(capsys, tmp_path):
    path, _ = _rounds(tmp_path, "rounds.json", lambda i, v, r: {"score": (i + r) % 3 + (v == "a")})
    for metric in ("rounds", "rounds.score", "score"):
        code, out, err = run_cli(capsys, "analyze", path, "--explode", "rounds", "--metric", metric)
        one_error_line(code, err, "read the records' field with --column score=rounds.score --metric score")
        assert "--metric rounds_position" not in err and "=rounds_position" not in err   # a position is no metric
    code, out, err = run_cli(capsys, "analyze", path, "--explode", "rounds", "--column", "score=rounds.score",
                             "--metric", "score")
    assert code == 0, err


FRAMEWORKS = Path(__file__).resolve().parent / "data" / "frameworks"


@pytest.mark.parametrize("keep", [3000, 0])
def test_a_truncated_eval_archive_is_called_truncated_not_an_unsupported_format(capsys, tmp_path, keep):
    cut = tmp_path / "run.eval"
    cut.write_bytes((FRAMEWORKS / "style_probe.eval").read_bytes()[:keep])   # a zip cut short, or nothing of it
    code, out, err = run_cli(capsys, "analyze", cut, "--metric", "steps")
    one_error_line(code, err)
    assert err == ("Error: cannot read 'run.eval': the inspect_ai .eval archive is truncated or corrupt (File is not "
                   "a zip file); copy the whole file again, or wait until the run has finished writing it\n")
    whole = tmp_path / "whole.eval"
    whole.write_bytes((FRAMEWORKS / "style_probe.eval").read_bytes())
    code, out, err = run_cli(capsys, "analyze", whole, "--metric", "steps")
    assert code == 0, err


@pytest.mark.parametrize("key, said", [
    ("settings", "settings is a list of column names given on the command line, for example --setting persona "
                 "--setting language"),
    ("cluster", "cluster is a column name given on the command line, for example --cluster document")])
def test_a_design_file_with_a_table_of_column_roles_is_told_they_are_column_names(capsys, tmp_path, drawn_log, key,
                                                                                    said):
    design = tmp_path / "design.toml"
    design.write_text(f"{key} = {{a = 1}}\n")
    code, out, err = run_cli(capsys, "report", drawn_log, "--metric", "score", "--design", design, "-o",
                             tmp_path / "r.md")
    one_error_line(code, err)
    assert err == f"Error: --design {design}: {key}: not a design fact, and not a table: {said}\n"
    assert "--a" not in err and not (tmp_path / "r.md").exists()


@pytest.mark.parametrize("encoding, said", [("utf-16", "UTF-16 text"), ("utf-16-le", "UTF-16 text"),
                                            ("latin-1", "not UTF-8 text")])
def test_a_code_book_not_in_utf8_is_told_to_be_saved_as_utf8(capsys, tmp_path, encoding, said):
    replies = _write(tmp_path / "replies.csv", ["item", "variant", "reply"],
                     [[f"i{i}", v, "yes" if (i + (v == "a")) % 2 else "no"] for i in range(6) for v in "ab"])
    book = tmp_path / "book.csv"
    book.write_bytes("pattern,label,score\nyes,agréé,1\nno,disagree,0\n".encode(encoding))
    code, out, err = run_cli(capsys, "analyze", replies, "--code", f"agree={book}", "--metric", "agree")
    one_error_line(code, err)
    assert err == (f"Error: cannot read the code book 'book.csv': it is {said}; save it as UTF-8 (in a spreadsheet: "
                   "Save As, CSV UTF-8)\n")
    book.write_bytes("pattern,label,score\nyes,agréé,1\nno,disagree,0\n".encode("utf-8"))   # saved as told
    code, out, err = run_cli(capsys, "analyze", replies, "--code", f"agree={book}", "--metric", "agree", "--json")
    assert code == 0, err
    # 'a' says yes on the even items, 'b' on the odd ones: each item's gap is +1 or -1, three of each
    assert json.loads(out)["average_gap"] == 0


def test_a_five_metric_refusal_of_many_values_names_no_class(capsys, tmp_path):
    rows = [[f"i{i}", v, *[(i * k + ord(v)) % 5 for k in range(1, 6)]] for i in range(6) for v in "abc"]
    path = _write(tmp_path / "many.csv", ["item", "variant", "m1", "m2", "m3", "m4", "m5"], rows)
    code, out, err = run_cli(capsys, "analyze", path, "--metric", "m1,m2,m3,m4,m5")
    one_error_line(code, err)
    assert err == ("Error: several metrics are analyzed as comparisons of two values; this log under these options "
                   "gives a comparison of all 3 values for 'm1': choose the pair with --a and --b, or give one "
                   "--metric\n")
    assert "Analysis" not in err


# ------------------------------------------------------------------ the campaign's new categories, a case of each kind

@pytest.mark.parametrize("category", ["random_settings", "subnormal_scores", "misleading_messages"])
def test_one_case_of_each_kind_of_the_fourth_campaign_passes_its_checks(tmp_path, category):
    from tests.hostile.campaign import generate, run_case, table

    kinds = {}
    for case in generate(80, seed=52, categories=[category]):
        kinds.setdefault(case.note if category != "subnormal_scores" else case.note.split(" x ")[0], case)
    assert len(kinds) == {"random_settings": 6, "subnormal_scores": 2, "misleading_messages": 9}[category]
    outcomes = [run_case(case, tmp_path / str(i)) for i, case in enumerate(kinds.values())]
    assert not any(o.failures for o in outcomes), table(outcomes) + "".join(
        f"\n{o.case.note}: {o.failures} {o.err[-300:]!r}" for o in outcomes if o.failures)
