"""plan's simulated decisions are the exact sign-flip test's decisions, probe by probe.

``decide_rejections`` decides p <= alpha for thousands of simulated probes without computing
every p: certified bounds (Hoeffding, Berry-Esseen) settle the probes far from alpha, and the
rest are counted on a lattice (the gaps' own lattice for whole-number metrics, where the count
is the exact p; a rounded one, the rounding accounted, for continuous gaps). Each decision is
checked here against ``sign_flip_test`` on the same row, computed independently (its
enumeration or its FFT lattice convolution), on probes placed near alpha, where a loose
bound would show.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probestats.analyses.pair_tests import compare_pair
from probestats.stats.decide import _subset_tails, decide_rejections
from probestats.vocabulary import Tests
from probestats.stats.hypotests import sign_flip_bounds, sign_flip_test

ALPHA = 0.05
LIMIT = ALPHA * (1 + 1e-12)     # the limit plan passes: p <= alpha, with float slack


def near_alpha_rows(seed: int, rows: int, n: int, lattice: int | None, spread: float) -> np.ndarray:
    """Rows of n gaps whose normal-approximation z is about 1.96 (+- spread): p near alpha."""
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal((rows, n)) * rng.uniform(0.5, 3.0)
    if rng.random() < 0.3:                                  # skewed gaps too
        noise = rng.exponential(1.0, (rows, n)) - 1.0
    z = 1.96 + rng.uniform(-spread, spread, (rows, 1))
    sd = np.sqrt((noise ** 2).sum(axis=1, keepdims=True))
    shift = (z * sd - noise.sum(axis=1, keepdims=True)) / n
    g = noise + shift * rng.choice([-1.0, 1.0], (rows, 1))
    if lattice is not None:
        g = np.rint(g * lattice) / lattice
    return g


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(20, 90), lattice=st.sampled_from([1, 2, 5, 20, 54]),
       alternative=st.sampled_from(["two-sided", "greater", "less"]), spread=st.sampled_from([0.02, 0.5]))
def test_lattice_decisions_equal_the_exact_test(seed, n, lattice, alternative, spread):
    # whole-number runs: gaps of means over k runs lie on the lattice 1/k, and sign_flip_test's p is exact
    g = near_alpha_rows(seed, 12, n, lattice, spread)
    mine = decide_rejections(g, LIMIT, alternative, lattice)
    for row, got in zip(g, mine):
        ref = sign_flip_test(row, alternative=alternative)
        assert ref.method.startswith("exact"), ref.method
        assert got == (ref.pvalue <= LIMIT), (row.tolist(), ref.pvalue, alternative)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(20, 24), lattice=st.sampled_from([1, 3, 10]),
       alternative=st.sampled_from(["two-sided", "greater", "less"]))
def test_open_probes_of_20_to_24_items_are_counted_as_the_exact_test(seed, n, lattice, alternative):
    # up to 24 items the probes the bounds leave open are counted all at once: on the lattice for the rows on it
    # (with zero gaps and ties among them), by enumeration for a row off it (a gap of 1/7 on a lattice of 1/k)
    g = near_alpha_rows(seed, 16, n, lattice, 0.3)
    g[::4, :3] = 0.0
    g[1::4, 3:6] = g[1::4, 6:9]
    g[2, 0] = 1 / 7
    mine = decide_rejections(g, LIMIT, alternative, lattice)
    for row, got in zip(g, mine):
        ref = sign_flip_test(row, alternative=alternative)
        assert got == (ref.pvalue <= LIMIT), (row.tolist(), ref.pvalue, alternative)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(20, 32),
       alternative=st.sampled_from(["two-sided", "greater", "less"]), spread=st.sampled_from([0.02, 0.5]))
def test_continuous_decisions_equal_the_enumerated_test(seed, n, alternative, spread):
    # continuous gaps share no lattice: up to 40 of them sign_flip_test enumerates every pattern
    g = near_alpha_rows(seed, 8, n, None, spread)
    mine = decide_rejections(g, LIMIT, alternative)
    for row, got in zip(g, mine):
        ref = sign_flip_test(row, alternative=alternative)
        assert ref.method.startswith("exact (enumeration"), ref.method
        assert got == (ref.pvalue <= LIMIT), (row.tolist(), ref.pvalue, alternative)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(45, 120))
def test_continuous_decisions_beyond_enumeration_agree_with_certified_bounds(seed, n):
    # beyond enumeration the reference is sign_flip_bounds: wherever its bounds lie on one side of
    # alpha, the decision must be that side
    g = near_alpha_rows(seed, 6, n, None, 0.3)
    mine = decide_rejections(g, LIMIT, "two-sided")
    checked = 0
    for row, got in zip(g, mine):
        lo, hi = sign_flip_bounds(row, rtol=1e-3).pvalue_bounds
        if hi <= LIMIT or lo > LIMIT:
            checked += 1
            assert got == (hi <= LIMIT), (row.tolist(), lo, hi)
    assert checked >= 3


def test_a_p_exactly_at_alpha_is_detected_beyond_enumeration():
    # 30 equal gaps: only the all-plus and all-minus patterns reach |sum| = 30, p = 2 / 2**30 exactly
    g = np.ones((1, 30))
    alpha = 2.0 / 2**30
    assert decide_rejections(g, alpha, "two-sided", 1).tolist() == [True]
    assert decide_rejections(g, np.nextafter(alpha, 0), "two-sided", 1).tolist() == [False]
    assert decide_rejections(g, alpha / 2, "greater", 1).tolist() == [True]
    # no lattice hint: the rounding bounds reach the same decision
    assert decide_rejections(g, alpha, "two-sided").tolist() == [True]


def test_zero_and_tied_rows_are_never_detected():
    g = np.zeros((2, 40))
    g[1, :20], g[1, 20:] = 1.0, -1.0      # the observed sum is 0: every pattern is as extreme, p = 1
    assert decide_rejections(g, LIMIT, "two-sided", 1).tolist() == [False, False]


@settings(max_examples=60, deadline=None)
@given(a=st.lists(st.integers(0, 9), min_size=1, max_size=12), c=st.integers(-3, 60))
def test_subset_sum_tail_by_brute_force(a, c):
    # P(sum of a random subset <= c), every subset listed
    arr = np.array(a, dtype=np.int64)
    subsets = list(itertools.product([0, 1], repeat=len(a)))
    want = sum(1 for s in subsets if sum(x * y for x, y in zip(s, a)) <= c) / len(subsets)
    assert math.isclose(_subset_tails(arr, [c])[0], want, rel_tol=1e-12, abs_tol=1e-15)


# ---------------------------------------------------------------- the noise model of whole-number metrics


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), m=st.sampled_from([2, 3, 5]), spread=st.sampled_from([0.0, 0.05, 0.15]),
       rate=st.sampled_from([0.5, 0.8, 0.93]))
def test_simulated_items_spread_as_the_cells_true_means(seed, m, spread, rate):
    # A 0/1 noise log whose items have rates rate + spread * z (clipped), in cells of m runs. The simulated
    # items' means must spread as the cells' *true* means do: by hand (one-way ANOVA, method of moments)
    # var(cell means) - sigma^2 / m, not as the noisy cell means do (var(cell means)). The model in which
    # items differ has the weight of its evidence w (model.differ); the other share, 1 - w, draws every run
    # from the whole log (no spread), so the simulated means spread as w times the true spread, and their
    # runs have the mixture's variance sigma_simulated^2 = w sigma^2 + (1 - w) var(log) (ddof 0).
    import polars as pl

    from probestats.analyses.plan import noise_model
    from probestats.analyses.plan.simulate import draw_probes as _draw

    rng = np.random.default_rng(seed)
    cells = 3000 // m
    p = np.clip(rate + spread * rng.standard_normal(cells), 0.01, 0.99)
    y = (rng.random((cells, m)) < p[:, None]).astype(float)
    model = noise_model(pl.DataFrame({"item": np.repeat(np.arange(cells), m), "x": y.ravel()}), metric="x")
    sigma2 = float(y.var(axis=1, ddof=1).mean())
    true_spread = max(0.0, float(y.mean(axis=1).var()) - sigma2 / m)
    w = model.differ
    # where the log spreads less than sigma even the model of differing items draws from the whole log
    mixture = w * (sigma2 if true_spread > 0 else float(y.var())) + (1 - w) * float(y.var())
    assert model.sigma_simulated ** 2 == pytest.approx(mixture, rel=0.02, abs=1e-6)
    k = 50
    d = _draw(model, 4, k, k, 20000, seed)
    mean_b = -d.base / d.scale                         # value b's mean of k runs, per simulated item
    # var(mean of k runs) = var(item means) + (runs' variance around the item mean) / k
    want = w * true_spread + mixture / k
    assert float(mean_b.var()) == pytest.approx(want, rel=0.06, abs=2e-4)


@given(k=st.integers(1, 40), f=st.floats(0.0, 0.999), seed=st.integers(0, 2**32 - 1))
def test_stratified_dither_steps_up_k_times_the_fraction_rounded(k, f, seed):
    # whole steps spread evenly: of k runs, those with w >= 1 - f step up; with w = (j + u) / k over a
    # permutation j of 0..k-1, that count is k f rounded down or up (hand rule: #{j : j + u >= k (1 - f)})
    from probestats.analyses.plan.simulate import _dither

    w = _dither(np.random.default_rng(seed), (5, 7, k), stratified=True)
    assert ((w >= 0) & (w < 1)).all()
    up = (w >= 1 - f).sum(axis=-1)
    assert ((up >= math.floor(k * f) - 1e-9) & (up <= math.ceil(k * f) + 1e-9)).all()


def test_stratified_dither_is_uniform_per_run():
    # each run's w alone is uniform: the share of runs stepping up is f on average (binomial SE about 0.002)
    from probestats.analyses.plan.simulate import _dither

    w = _dither(np.random.default_rng(1), (20_000, 3, 4), stratified=True)
    for f in (0.1, 0.37, 0.8):
        assert abs(float((w >= 1 - f).mean()) - f) < 0.01


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(45, 120), alternative=st.sampled_from(["two-sided", "greater"]))
def test_the_analysis_decides_at_alpha_as_the_exact_test(seed, n, alternative):
    # with alpha given, sign_flip_test narrows certified bounds that straddle it, so the reported p
    # is on the side of alpha the exact p is on (the reference: bounds ten times narrower than the
    # default, wherever those are decisive), and plan's decisions are the analysis's
    g = near_alpha_rows(seed, 4, n, None, 0.05)
    mine = decide_rejections(g, LIMIT, alternative)
    for row, got in zip(g, mine):
        r = sign_flip_test(row, alternative=alternative, alpha=LIMIT)
        lo, hi = sign_flip_bounds(row, alternative=alternative, rtol=1e-3).pvalue_bounds
        assert r.pvalue_bounds[0] <= hi and lo <= r.pvalue_bounds[1]   # both hold the exact p
        if hi <= LIMIT or lo > LIMIT:
            assert (r.pvalue <= LIMIT) == (hi <= LIMIT), (row.tolist(), r.pvalue_bounds, lo, hi)
        assert got == (r.pvalue <= LIMIT)


def test_bounds_straddling_alpha_are_narrowed_until_they_decide():
    # a probe the property test above found (hypothesis seed 32): the exact p is about 0.04997, but
    # the default bounds, 0.04977 <= p <= 0.05017, straddle alpha = 0.05
    row = near_alpha_rows(664943, 6, 108, None, 0.3)[3]
    default = sign_flip_test(row)
    assert default.pvalue_bounds[0] < 0.05 < default.pvalue
    decided = sign_flip_test(row, alpha=0.05)
    assert decided.pvalue_bounds[0] <= decided.pvalue <= 0.05
    lo, hi = sign_flip_bounds(row, rtol=1e-4).pvalue_bounds
    assert lo <= decided.pvalue and decided.pvalue_bounds[0] <= hi and hi <= 0.05
    items = pl.DataFrame({"item": [str(i) for i in range(row.size)], "gap": row.tolist(),
                          "mean_a": row.tolist(), "mean_b": [0.0] * row.size})   # gap = mean_a - mean_b
    assert compare_pair(items, "steps", "a", "b", Tests(alpha=0.05)).sign_flip.pvalue <= 0.05   # detected
    assert decide_rejections(row[None, :], 0.05 * (1 + 1e-12), "two-sided").tolist() == [True]
