"""Every size bounded before the work starts (probestats.limits): each refusal is one Error line naming the
limit, its cost and --limit NAME=N; work within the limits is done, many values in seconds."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from statsmodels.stats.multitest import multipletests

from tests.cli_run import one_error_line as _one_error_line, run_cli as _run
from probestats.limits import LIMITS, limit, raised

ROOT = Path(__file__).resolve().parent.parent
NOISE = ROOT / "sample_logs" / "style_noise.csv"
SAMPLE = ROOT / "sample_logs" / "style_probe.csv"




def _many_values(path: Path, values: int, items: int = 2, runs: int = 2, seed: int = 0) -> Path:
    rng = random.Random(seed)
    pl.DataFrame([{"item": i, "variant": f"name{v}", "seed": s, "steps": rng.randint(1, 9)}
                  for v in range(values) for i in range(items) for s in range(runs)]).write_csv(path)
    return path


@pytest.mark.slow
def test_five_thousand_values_are_analyzed_within_thirty_seconds(tmp_path, capsys):
    # 5,000 values of 20,000 rows ran past 60 s at 1.6 GB: 12,497,500 pairwise tests; now the pairs are left out
    # (more than the limit of 5,000), the gaps against the reference are corrected across themselves
    path = _many_values(tmp_path / "many.csv", 5000)
    start = time.monotonic()
    code, out, err = _run(capsys, "analyze", path, "--metric", "steps", "--json")
    assert time.monotonic() - start < 30
    assert code == 0, err
    doc = json.loads(out)
    assert len(doc["values"]) == 5000 and len(doc["gaps"]) == 4999
    assert doc["pairwise"] == [] and doc["pairs_left_out"] == 5000 * 4999 // 2
    warning = [p for p in doc["problems"] if p["code"] == "pairwise_left_out"]
    assert warning and "--limit pairs=12497500" in warning[0]["message"]
    raw = [g["p"] for g in doc["gaps"]]
    holm = multipletests(raw, method="holm")[1]   # statsmodels' Holm across the 4,999 gaps
    assert np.allclose([g["p_adjusted"] for g in doc["gaps"]], holm)
    assert doc["omnibus"]["method"].startswith("monte carlo (n_resamples=10000")


def test_pairs_beyond_the_limit_leave_the_pairwise_table_out_and_the_rest_unchanged():
    from probestats import analyze_many

    rows = [{"item": i, "variant": v, "x": float((i * 7 + ord(v)) % 5)} for i in range(6) for v in "ABC"]
    whole = analyze_many(rows, metric="x")
    assert len(whole.main.pairwise) == 3 and whole.main.pairs_left_out == 0
    with raised(pairs=2):
        cut = analyze_many(rows, metric="x")
    assert cut.main.pairwise == () and cut.main.pairs_left_out == 3
    assert "pairwise_left_out" in [p.code for p in cut.problems]
    # the gaps' own tests are the same; their correction is across the 2 gaps (Holm, by statsmodels)
    assert [g.sign_flip.pvalue for g in cut.main.gaps] == [g.sign_flip.pvalue for g in whole.main.gaps]
    holm = multipletests([g.sign_flip.pvalue for g in cut.main.gaps], method="holm")[1]
    assert np.allclose([g.p_adjusted for g in cut.main.gaps], holm)
    assert cut.main.omnibus.pvalue == whole.main.omnibus.pvalue
    assert cut.to_dict()["pairs_left_out"] == 3 and "pairs_left_out" not in whole.to_dict()


def test_the_many_values_draws_agree_with_exact_enumeration(monkeypatch):
    # the Monte Carlo path for thousands of values (first item held, the others shuffled in place), forced on a
    # design small enough to enumerate: its p lies within 4 standard errors of the exact one
    from probestats.analyses import omnibus

    rng = np.random.default_rng(3)
    matrix = rng.integers(0, 4, size=(4, 5)).astype(float) + np.array([0.0, 0.5, 1.0, 0.0, 0.0])
    exact = omnibus.omnibus_test(matrix, method="exact")
    assert exact.exact
    monkeypatch.setattr(omnibus, "_ARGSORT_VALUES", 1)
    drawn = omnibus.omnibus_test(matrix, method="monte-carlo", n_resamples=40_000, seed=1)
    assert abs(drawn.pvalue - exact.pvalue) < 4 * drawn.pvalue_se + 1 / 40_000
    assert 0 < exact.pvalue < 1


def test_more_values_than_the_limit_are_refused_before_validation(tmp_path, capsys):
    path = _many_values(tmp_path / "v.csv", 12, items=1, runs=1)
    code, _, err = _run(capsys, "analyze", path, "--metric", "steps", "--limit", "values=10")
    _one_error_line(code, err, "the distinct values of 'variant' number 12, more than the limit of 10 (estimated",
                    "group values with --group", "or raise the limit with --limit values=12")
    code, _, err = _run(capsys, "analyze", path, "--metric", "steps", "--limit", "values=12")
    assert code == 0, err


def test_factors_of_twenty_levels_each_are_refused_naming_the_level_limit(tmp_path, capsys):
    # 20 x 20 levels on 1,600 rows exhausted 4 GB ("read fewer columns"); refused before any check
    rng = random.Random(1)
    path = tmp_path / "factor.csv"
    pl.DataFrame([{"item": i, "style": f"s{a}", "name": f"n{b}", "steps": rng.randint(1, 9)}
                  for i in range(4) for a in range(20) for b in range(20)]).write_csv(path)
    start = time.monotonic()
    code, _, err = _run(capsys, "analyze", path, "--metric", "steps", "--factor", "style", "--factor", "name")
    assert time.monotonic() - start < 10
    _one_error_line(code, err, "the cells of the two factors (20 levels of 'style' x 20 of 'name') number 400, "
                               "more than the limit of 30 (about 160 GB of memory",
                    "leave some out with --where", "raise the limit with --limit levels=400")


def test_ten_thousand_groups_are_refused_up_front_and_a_raised_limit_lets_them_through(tmp_path, capsys):
    rng = random.Random(2)
    path = tmp_path / "by.csv"
    pl.DataFrame([{"item": i, "variant": v, "g": f"g{k}", "steps": rng.randint(1, 9)}
                  for k in range(10_000) for i in range(2) for v in "ab"]).write_csv(path)
    start = time.monotonic()
    code, _, err = _run(capsys, "analyze", path, "--metric", "steps", "--by", "g")
    assert time.monotonic() - start < 10
    _one_error_line(code, err, "the groups of --by g number 10,000, more than the limit of 1,000 (estimated about "
                               "3 min", "raise the limit with --limit groups=10000")
    small = tmp_path / "by3.csv"
    pl.read_csv(path).filter(pl.col("g").is_in(["g0", "g1", "g2"])).write_csv(small)
    code, _, err = _run(capsys, "analyze", small, "--metric", "steps", "--by", "g", "--limit", "groups=2")
    _one_error_line(code, err, "number 3, more than the limit of 2")
    code, out, err = _run(capsys, "analyze", small, "--metric", "steps", "--by", "g", "--limit", "groups=3", "--json")
    assert code == 0, err
    assert len(json.loads(out)["groups"]) == 3


@pytest.mark.parametrize("n", [10**18, 10**9])
def test_huge_resample_counts_are_refused_with_their_cost(capsys, n):
    # 10^18 was an unexpected error, 10^9 an out-of-memory message that blamed the columns
    code, _, err = _run(capsys, "analyze", SAMPLE, "--metric", "steps", "--n-resamples", n)
    _one_error_line(code, err, f"--n-resamples {n}: more than the limit of 1,000,000 resamples (estimated",
                    f"raise the limit with --limit resamples={n}")


def test_a_grid_of_500_designs_is_refused_before_any_simulation(capsys):
    items = ",".join(str(i) for i in range(1, 501))
    start = time.monotonic()
    code, _, err = _run(capsys, "plan", "--noise", NOISE, "--metric", "steps", "--items", items)
    assert time.monotonic() - start < 30
    _one_error_line(code, err, "the plan sizes 3,000 designs (500 item counts x 6 runs per value), more than "
                               "the limit of 60 without a time budget (estimated", "--time-budget SECONDS")
    code, _, err = _run(capsys, "plan", "--noise", NOISE, "--metric", "steps", "--items", "100000")
    _one_error_line(code, err, "holds 4,000,000,000 simulated runs at once", "lower --sims to 12 or fewer")


def test_a_limit_that_does_not_exist_or_is_not_a_number_is_a_usage_error(capsys):
    for given, words in (("colours=3", "no limit called 'colours'; limits: values, pairs, groups, levels, resamples"),
                         ("values=0", "expected NAME=N with N a whole number of 1 or more")):
        code, _, err = _run(capsys, "analyze", SAMPLE, "--metric", "steps", "--limit", given)
        assert code == 2 and words in err, err


def test_raised_limits_last_only_within_their_block():
    before = {name: limit(name) for name in LIMITS}
    assert before == {name: lim.default for name, lim in LIMITS.items()}
    with raised(values=3, levels=4):
        assert (limit("values"), limit("levels"), limit("pairs")) == (3, 4, LIMITS["pairs"].default)
    assert {name: limit(name) for name in LIMITS} == before


def test_every_limit_is_in_the_reference_with_its_default():
    text = (ROOT / "docs" / "reference" / "limits.md").read_text(encoding="utf-8")
    for lim in LIMITS.values():
        assert f"`{lim.name}`" in text and f"{lim.default:,}" in text, lim.name
    for key in ("max-cells", "max-columns", "--time-budget", "--sims", "--no-mdg-range"):
        assert key in text, key
