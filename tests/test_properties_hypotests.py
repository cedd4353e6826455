"""Hypothesis properties of the gap tests: agreement with brute force, range, invariances."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from probestats.stats.hypotests import (
    gap_interval,
    min_attainable_p,
    sign_flip_pvalues,
    sign_flip_test,
    sign_test,
)

ALTS = st.sampled_from(["two-sided", "greater", "less"])
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def brute(gaps, alternative):
    """Every sign pattern from itertools.product; ties within 1e-9 * max(|S_obs|, max|g|)."""
    g = np.asarray(gaps, dtype=float)
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=g.size)))
    sums = signs @ g
    s_obs = math.fsum(g)
    tol = 1e-9 * max(abs(s_obs), float(np.max(np.abs(g))))
    if alternative == "two-sided":
        hits = np.abs(sums) >= abs(s_obs) - tol
    elif alternative == "greater":
        hits = sums >= s_obs - tol
    else:
        hits = sums <= s_obs + tol
    return hits.mean()


# Plain floats (float32-representable, so distinct values differ far beyond the tie tolerance),
# zeros, and values reused from a small pool (repeated values and exact ties).
plain = st.floats(min_value=-1000, max_value=1000, allow_nan=False, allow_subnormal=False, width=32)
pool_lists = st.lists(plain, min_size=1, max_size=4).flatmap(
    lambda pool: st.lists(st.sampled_from(pool + [0.0]), min_size=1, max_size=16))
float_gaps = st.one_of(st.lists(st.one_of(plain, st.just(0.0)), min_size=1, max_size=16), pool_lists)
# Gaps of means over runs: multiples of 1/20, 1/12 or 1/3.
lattice_gaps = st.sampled_from([20, 12, 3]).flatmap(
    lambda L: st.lists(st.integers(-60, 60).map(lambda k: k / L), min_size=1, max_size=16))
any_gaps = st.one_of(float_gaps, lattice_gaps)


@FAST
@given(gaps=any_gaps, alternative=ALTS)
def test_sign_flip_equals_brute_force(gaps, alternative):
    assert sign_flip_test(gaps, alternative=alternative).pvalue == pytest.approx(brute(gaps, alternative), rel=1e-12)


@FAST
@given(gaps=lattice_gaps, alternative=ALTS)
def test_lattice_path_equals_brute_force(gaps, alternative):
    assume(any(gaps))
    r = sign_flip_test(gaps, alternative=alternative, method="lattice")
    # (a two-sided test whose observed mean is 0 needs no computation: every pattern counts)
    assert r.method.startswith("exact (lattice convolution") or r.pvalue == 1.0
    assert r.pvalue == pytest.approx(brute(gaps, alternative), rel=1e-12)


@FAST
@given(gaps=any_gaps, alternative=ALTS)
def test_pvalue_in_range_and_not_below_the_floor(gaps, alternative):
    r = sign_flip_test(gaps, alternative=alternative)
    k = sum(1 for g in gaps if g != 0)
    assert 0 < r.pvalue <= 1
    assert r.pvalue >= min_attainable_p(k, alternative) * (1 - 1e-12)
    s = sign_test(gaps, alternative=alternative)
    assert 0 < s.pvalue <= 1


@FAST
@given(gaps=any_gaps, data=st.data(), c=st.floats(min_value=1e-3, max_value=1e3))
def test_two_sided_invariances(gaps, data, c):
    p = sign_flip_test(gaps).pvalue
    assert sign_flip_test([-g for g in gaps]).pvalue == pytest.approx(p, rel=1e-12)
    perm = data.draw(st.permutations(gaps))
    assert sign_flip_test(perm).pvalue == pytest.approx(p, rel=1e-12)
    assert sign_flip_test([c * g for g in gaps]).pvalue == pytest.approx(p, rel=1e-12)
    assert sign_test([-g for g in gaps]).pvalue == sign_test(gaps).pvalue
    assert sign_test(perm).pvalue == sign_test(gaps).pvalue


@FAST
@given(gaps=any_gaps)
def test_one_sided_mirror(gaps):
    # "less" on the gaps is "greater" on the negated gaps, for both tests
    neg = [-g for g in gaps]
    assert sign_flip_test(gaps, alternative="less").pvalue == pytest.approx(
        sign_flip_test(neg, alternative="greater").pvalue, rel=1e-12)
    assert sign_test(gaps, alternative="less").pvalue == sign_test(neg, alternative="greater").pvalue


@given(n=st.integers(1, 20), alternative=ALTS)
@settings(max_examples=20, deadline=None)
def test_all_zero_gaps_give_one(n, alternative):
    assert sign_flip_test([0.0] * n, alternative=alternative).pvalue == 1.0
    assert sign_test([0.0] * n, alternative=alternative).pvalue == 1.0


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 10), seed=st.integers(0, 2**32 - 1))
def test_smallest_p_over_all_sign_patterns(n, seed):
    # Distinct powers of two (scaled by a random factor) have distinct subset sums, so no
    # pattern ties the all-same-sign one in |mean|: the smallest two-sided p over all sign
    # patterns is 2/2**n, reached by the all-same-sign patterns.
    rng = np.random.default_rng(seed)
    base = 2.0 ** rng.permutation(n) * rng.uniform(0.5, 2.0)
    ps = [sign_flip_test(np.array(signs) * base).pvalue for signs in itertools.product((1, -1), repeat=n)]
    assert min(ps) == min_attainable_p(n)
    assert sign_flip_test(base, alternative="greater").pvalue == min_attainable_p(n, "greater")


@FAST
@given(gaps=st.lists(any_gaps, min_size=1, max_size=6), alternative=ALTS, n=st.integers(1, 12))
def test_batch_agrees_with_single(gaps, alternative, n):
    rows = np.array([(g * n)[:n] for g in gaps])
    single = [sign_flip_test(r, alternative=alternative).pvalue for r in rows]
    np.testing.assert_allclose(sign_flip_pvalues(rows, alternative=alternative), single, rtol=1e-12)


@FAST
@given(n_pos=st.integers(0, 60), n_neg=st.integers(0, 60), zeros=st.integers(0, 3), alternative=ALTS)
def test_sign_test_equals_binomial_reference(n_pos, n_neg, zeros, alternative):
    assume(n_pos + n_neg + zeros > 0)
    r = sign_test([1.5] * n_pos + [-0.5] * n_neg + [0.0] * zeros, alternative=alternative)
    n = n_pos + n_neg
    assert r.n == n
    if n == 0:
        assert r.pvalue == 1.0
    elif alternative == "two-sided":
        assert r.pvalue == pytest.approx(min(1.0, 2 * stats.binom.sf(max(n_pos, n_neg) - 1, n, 0.5)), rel=1e-12)
    else:
        k = n_pos if alternative == "greater" else n_neg
        assert r.pvalue == pytest.approx(stats.binom.sf(k - 1, n, 0.5), rel=1e-12)


@FAST
@given(gaps=st.lists(st.floats(-100, 100, allow_nan=False, allow_subnormal=False, width=32), min_size=2, max_size=30),
       shift=st.floats(-100, 100, width=32), conf=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_t_interval_holds_the_mean_and_shifts_with_the_gaps(gaps, shift, conf):
    iv = gap_interval(gaps, confidence=conf)
    mean = math.fsum(gaps) / len(gaps)
    scale = max(1.0, max(abs(g) for g in gaps))
    assert iv.low <= mean + 1e-9 * scale and mean - 1e-9 * scale <= iv.high
    moved = gap_interval([g + shift for g in gaps], confidence=conf)
    assert moved.low == pytest.approx(iv.low + shift, abs=1e-9 * (scale + abs(shift)))
    assert moved.high == pytest.approx(iv.high + shift, abs=1e-9 * (scale + abs(shift)))


@settings(max_examples=15, deadline=None)
@given(gaps=st.lists(st.integers(-40, 40).map(lambda k: k / 4), min_size=6, max_size=10))
def test_sign_flip_interval_ends_separate_accepted_from_rejected(gaps):
    iv = gap_interval(gaps, method="sign-flip", confidence=0.9)
    mean = sum(gaps) / len(gaps)
    assert iv.low <= mean <= iv.high
    eps = 1e-6 * (1 + max(abs(g) for g in gaps))
    # just outside each end the brute-force p is at most alpha; just inside it exceeds alpha
    # (all-equal gaps: any shift but the mean itself gives 2/2**n < alpha, the interval is a point)
    assert brute([g - (iv.low - eps) for g in gaps], "two-sided") <= 0.1
    assert brute([g - (iv.high + eps) for g in gaps], "two-sided") <= 0.1
    if iv.high - iv.low > 2 * eps:
        assert brute([g - (iv.low + eps) for g in gaps], "two-sided") > 0.1
        assert brute([g - (iv.high - eps) for g in gaps], "two-sided") > 0.1
    else:
        assert len(set(gaps)) == 1
