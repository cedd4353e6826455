"""describe: counts and shares per value by hand, and the permutation test of the values × levels table against
brute force over every arrangement."""

from __future__ import annotations

import itertools
import json
import random

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st
from scipy.stats import chi2_contingency

import probestats
from probestats.cli import main
from probestats.errors import OptionError
from probestats.stats.contingency import permutation_table_test

BINS = [0, 45, 50, 60, 70, 80, 90, 100]


def cv_audit(items=12, seed=0):
    """A CV audit: each CV (item) scored 0-100 once under each name (value)."""
    rng = random.Random(seed)
    rows = []
    for i in range(items):
        base = rng.uniform(40, 90)
        for v in ("emily", "lakisha"):
            score = min(100, max(0, round(base + (4 if v == "emily" else 0) + rng.gauss(0, 6))))
            rows.append({"item": f"cv{i}", "variant": v, "score": score})
    return rows


def chi2(table) -> float:
    t = np.asarray(table)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    return float(chi2_contingency(t, correction=False)[0])   # scipy's Pearson chi-square


def brute_force_within(values, levels, blocks, n_values, n_levels) -> float:
    """The exact p by enumerating every arrangement of the value labels within each block."""
    blocks_idx = {}
    for k, b in enumerate(blocks):
        blocks_idx.setdefault(b, []).append(k)
    per_block = [sorted(set(itertools.permutations([values[k] for k in idx]))) for idx in blocks_idx.values()]
    weights = [[len(list(itertools.permutations([values[k] for k in idx]))) // len(opts)] * len(opts)
               for idx, opts in zip(blocks_idx.values(), per_block)]
    observed = np.zeros((n_values, n_levels), dtype=int)
    for v, lv in zip(values, levels):
        observed[v, lv] += 1
    stat = chi2(observed)
    hit = total = 0
    for combo in itertools.product(*per_block):
        table = np.zeros((n_values, n_levels), dtype=int)
        for idx, arrangement in zip(blocks_idx.values(), combo):
            for k, v in zip(idx, arrangement):
                table[v, levels[k]] += 1
        total += 1
        hit += chi2(table) >= stat * (1 - 1e-9) - 1e-12
    return hit / total


def test_counts_and_shares_per_value_by_hand_with_the_exact_test(tmp_path, capsys):
    rows = cv_audit()
    path = tmp_path / "cv.csv"
    pl.DataFrame(rows).write_csv(path)
    assert main(["describe", str(path), "--metric", "score", "--bins", ",".join(map(str, BINS)), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["levels"] == ["[0, 45)", "[45, 50)", "[50, 60)", "[60, 70)", "[70, 80)", "[80, 90)", "[90, 100]"]
    for v in data["values"]:
        scores = [r["score"] for r in rows if r["variant"] == v["value"]]
        for k, level in enumerate(data["levels"]):   # by hand: the scores in each bin, the last one closed
            lo, hi = BINS[k], BINS[k + 1]
            n = sum(lo <= s < hi or (k == len(BINS) - 2 and s == hi) for s in scores)
            assert v["counts"][level] == n and v["shares"][level] == pytest.approx(n / len(scores))
        assert v["n_runs"] == 12 and v["mean"] == pytest.approx(np.mean(scores))
    test = data["test"]
    assert test["method"] == "exact" and test["matched"] and test["n_blocks"] <= 12
    level = [min(k for k in range(7) if r["score"] < BINS[k + 1] or k == 6) for r in rows]
    value = [0 if r["variant"] == "emily" else 1 for r in rows]
    blocks = [r["item"] for r in rows]
    assert test["p"] == pytest.approx(brute_force_within(value, level, blocks, 2, 7), rel=1e-12)
    table = np.zeros((2, 7), dtype=int)
    for v, lv in zip(value, level):
        table[v, lv] += 1
    assert test["statistic"] == pytest.approx(chi2(table))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 3), st.integers(2, 4), st.lists(st.integers(2, 4), min_size=1, max_size=4),
       st.integers(0, 10**6))
def test_the_exact_test_is_brute_force_over_every_arrangement(n_values, n_levels, sizes, seed):
    rng = np.random.default_rng(seed)
    values, levels, blocks = [], [], []
    for b, size in enumerate(sizes):
        values += rng.integers(0, n_values, size).tolist()
        levels += rng.integers(0, n_levels, size).tolist()
        blocks += [b] * size
    got = permutation_table_test(values, levels, blocks)
    assert got.method == "exact"
    assert got.pvalue == pytest.approx(brute_force_within(values, levels, blocks, n_values, n_levels), abs=1e-12)


def test_unmatched_design_is_one_block_and_monte_carlo_beyond_the_exact_range():
    rng = np.random.default_rng(3)
    values, levels = rng.integers(0, 2, 9).tolist(), rng.integers(0, 3, 9).tolist()
    exact = permutation_table_test(values, levels)
    assert not exact.matched and exact.pvalue == pytest.approx(
        brute_force_within(values, levels, [0] * 9, 2, 3), abs=1e-12)
    mc = permutation_table_test(values, levels, max_states=1, n_resamples=20_000, seed=1)
    assert mc.method == "monte carlo" and abs(mc.pvalue - exact.pvalue) < 4 * mc.error + 1e-4


def test_labels_and_binary_metrics_and_refusals():
    rows = [{"item": i, "variant": v, "said": ["yes", "no", None][(i + (v == "b")) % 3], "x": (i + (v == "a")) % 2}
            for i in range(9) for v in "ab"]
    d = probestats.describe(rows, metric="said")
    assert d.kind == "label" and d.levels == ("no", "yes")
    assert [(s.value, s.n_runs, s.n_blank) for s in d.values] == [("a", 6, 3), ("b", 6, 3)]
    b = probestats.describe(rows, metric="x")
    assert b.kind == "binary" and [s.counts["1"] for s in b.values] == [5, 4]
    with pytest.raises(OptionError, match="2 runs of x lie outside 0 to 0.5"):
        probestats.describe([{"item": 1, "variant": "a", "x": 1}, {"item": 1, "variant": "b", "x": 1}],
                            metric="x", bins="0,0.5")
    by = probestats.describe(rows + [dict(r, item=r["item"] + 100, variant=r["variant"]) for r in rows], metric="x",
                             by=["variant"])
    assert [g.by for g in by.groups] == [{"variant": "a"}, {"variant": "b"}]


def test_right_closed_bins_count_as_a_reference_cut(tmp_path, capsys):
    """--bins-closed right: (a, b], the first bin closed. Scores on the edges are planted so that the two cuts
    differ; counts checked by hand and against numpy's histogram of the negated scores (right-closed bins of x
    are numpy's left-closed bins of −x)."""
    rows = cv_audit(items=30, seed=2)
    rows += [{"item": f"edge{k}", "variant": v, "score": e} for k, e in enumerate(BINS) for v in ("emily", "lakisha")]
    path = tmp_path / "cv.csv"
    pl.DataFrame(rows).write_csv(path)
    assert main(["describe", str(path), "--metric", "score", "--bins", ",".join(map(str, BINS)),
                 "--bins-closed", "right", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["bins_closed"] == "right"
    assert data["levels"] == ["[0, 45]", "(45, 50]", "(50, 60]", "(60, 70]", "(70, 80]", "(80, 90]", "(90, 100]"]
    for v in data["values"]:
        scores = [r["score"] for r in rows if r["variant"] == v["value"]]
        flipped, _ = np.histogram([-s for s in scores], bins=[-e for e in reversed(BINS)])
        reference = list(reversed(flipped.tolist()))   # numpy closes its last bin: −0, so 0 lands in [0, 45]
        for k, level in enumerate(data["levels"]):
            lo, hi = BINS[k], BINS[k + 1]
            n = sum(lo < s <= hi or (k == 0 and s == lo) for s in scores)
            assert v["counts"][level] == n == reference[k]
            assert v["shares"][level] == pytest.approx(n / len(scores))
    left = probestats.describe(rows, metric="score", bins=BINS)
    right = probestats.describe(rows, metric="score", bins=BINS, bins_closed="right")
    assert left.values[0].counts["[45, 50)"] != right.values[0].counts["(45, 50]"] or \
        left.values[0].counts["[50, 60)"] != right.values[0].counts["(50, 60]"]
    assert left.bins_closed == "left" and right.bins_closed == "right"


def test_bins_closed_needs_bins_and_a_side():
    rows = cv_audit()
    with pytest.raises(OptionError, match="bins_closed='right' says which side.*give bins"):
        probestats.describe(rows, metric="score", bins_closed="right")
    with pytest.raises(OptionError, match="bins_closed='middle': expected one of left, right"):
        probestats.describe(rows, metric="score", bins="0,50,100", bins_closed="middle")


def test_a_zero_one_rate_per_value_and_per_group_against_chance(tmp_path, capsys):
    """A model saying yes: per value and per --by block, its rate of 1 with the Clopper-Pearson interval and the
    exact binomial test against a stated chance rate, against scipy's binomtest."""
    from scipy.stats import binomtest

    rng = np.random.default_rng(6)
    rows = [{"item": i, "variant": v, "model": m, "yes": int(rng.random() < (0.8 if v == "a" else 0.45))}
            for i in range(25) for v in ("a", "b") for m in ("m1", "m2")]
    d = probestats.describe(rows, metric="yes", by=["model"], chance=0.4)
    for desc, keep in [(d, lambda r: True)] + [(g, (lambda m: lambda r: r["model"] == m)(g.by["model"]))
                                               for g in d.groups]:
        for s in desc.values:
            ones = [r["yes"] for r in rows if r["variant"] == s.value and keep(r)]
            k, n = sum(ones), len(ones)
            reference = binomtest(k, n, 0.4)
            ci = reference.proportion_ci(0.95, method="exact")
            assert (s.rate.k, s.rate.n, s.rate.chance) == (k, n, 0.4)
            assert s.rate.p == pytest.approx(reference.pvalue, rel=1e-12)
            assert (s.rate.low, s.rate.high) == pytest.approx((ci.low, ci.high), abs=1e-9)
    path = tmp_path / "yes.csv"
    pl.DataFrame(rows).write_csv(path)
    assert main(["describe", str(path), "--metric", "yes", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ones = [r["yes"] for r in rows if r["variant"] == "a"]
    assert data["values"][0]["rate"]["p"] == pytest.approx(binomtest(sum(ones), len(ones), 0.5).pvalue, rel=1e-12)
    assert main(["describe", str(path), "--metric", "yes"]) == 0
    assert "Rate of 1 per value against chance 0.5" in capsys.readouterr().out
    assert probestats.describe(rows, metric="item").values[0].rate is None
    with pytest.raises(OptionError, match="chance=0.3 tests the rate of a 0/1 metric"):
        probestats.describe(rows, metric="item", chance=0.3)
    with pytest.raises(OptionError, match="chance=1.5: expected a rate strictly between 0 and 1"):
        probestats.describe(rows, metric="yes", chance=1.5)


def test_several_metrics_are_described_in_turn_with_the_same_bins(tmp_path, capsys):
    rows = cv_audit(items=15, seed=3)
    rows = [dict(r, second=100 - r["score"]) for r in rows]
    path = tmp_path / "cv.csv"
    pl.DataFrame(rows).write_csv(path)
    edges = ",".join(map(str, BINS))
    assert main(["describe", str(path), "--metric", "score,second", "--bins", edges, "--bins-closed", "right",
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["kind"] == "descriptions" and data["metrics"] == ["score", "second"]
    for d in data["descriptions"]:
        assert d["bins_closed"] == "right"
        for v in d["values"]:
            xs = [r[d["metric"]] for r in rows if r["variant"] == v["value"]]
            for k, level in enumerate(d["levels"]):   # by hand: (lo, hi], the first bin closed
                lo, hi = BINS[k], BINS[k + 1]
                assert v["counts"][level] == sum(lo < x <= hi or (k == 0 and x == lo) for x in xs)
    assert main(["describe", str(path), "--metric", "score", "--metric", "second", "--bins", edges]) == 0
    out = capsys.readouterr().out
    assert out.index("score: cut into 7 bins") < out.index("second: cut into 7 bins")
    both = probestats.describe(rows, metric=["score", "second"], bins=BINS)
    assert [d.metric for d in both.descriptions] == ["score", "second"]
