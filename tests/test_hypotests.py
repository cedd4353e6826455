"""Tests of probestats.stats.hypotests against independent references.

References used here: brute force over every sign pattern (itertools.product), an exact
big-integer convolution of the sign-flip distribution, hand counts written out in the
comments, scipy.stats.permutation_test, scipy.stats.binom (the spreadsheet formula),
scipy.stats.ttest_1samp, and the tutorial's printed result.
"""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from probestats.errors import OptionError, ProbestatsError
from probestats.stats.hypotests import (
    Interval,
    TestResult,
    gap_interval,
    min_attainable_p,
    sign_flip_pvalues,
    sign_flip_test,
    sign_test,
)

ALTS = ("two-sided", "greater", "less")


# --------------------------------------------------------------------------- references


def brute_sign_flip(gaps, alternative="two-sided"):
    """Share of all 2**n sign patterns at least as extreme, ties within 1e-9 * max(|S_obs|, max|g|)."""
    g = [float(x) for x in gaps]
    s_obs = math.fsum(g)
    tol = 1e-9 * max(abs(s_obs), max(abs(x) for x in g))
    hits = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(g)):
        s = math.fsum(a * b for a, b in zip(signs, g))
        if alternative == "two-sided":
            hits += abs(s) >= abs(s_obs) - tol
        elif alternative == "greater":
            hits += s >= s_obs - tol
        else:
            hits += s <= s_obs + tol
    return hits / 2 ** len(g)


def exact_sum_counts(m):
    """Exact number of sign patterns giving each value of sum(s_i * m_i): big-integer convolution."""
    total = sum(abs(v) for v in m)
    counts = np.zeros(2 * total + 1, dtype=object)
    counts[total] = 1
    for v in (abs(int(x)) for x in m):
        if v == 0:
            counts = counts * 2
            continue
        new = np.zeros_like(counts)
        new[v:] += counts[:-v]
        new[:-v] += counts[v:]
        counts = new
    return counts, total


def exact_lattice_p(m, alternative):
    """Exact sign-flip p (as a Fraction) for integer gaps m; ties are exact in integers."""
    counts, total = exact_sum_counts(m)
    values = np.arange(-total, total + 1)
    obs = int(sum(int(x) for x in m))
    if alternative == "two-sided":
        sel = np.abs(values) >= abs(obs)
    elif alternative == "greater":
        sel = values >= obs
    else:
        sel = values <= obs
    return Fraction(int(sum(counts[sel])), 2 ** len(m))


def lattice_gaps(rng, n, ka, kb, shift=0.0, lam=3.0):
    """Gaps of means of integer counts over ka and kb runs (a lattice of step 1/lcm(ka, kb))."""
    a = rng.poisson(lam + shift, size=(n, ka))
    b = rng.poisson(lam, size=(n, kb))
    return a.mean(axis=1) - b.mean(axis=1)


# --------------------------------------------------------------------------- hand-worked examples


def test_tutorial_fact_4_of_256_sign_patterns():
    # Eight gaps, seven positive, average +0.70 (sum 5.6), as in the tutorial's printed result.
    # A sign pattern's sum is 5.6 - 2 * (sum of the gaps whose sign it flips).
    # Flipping only -0.1 gives 5.6 + 0.2 = 5.8 >= 5.6. Flipping any positive gap lowers the
    # sum by at least 2 * 0.6 = 1.2, and flipping -0.1 as well adds back only 0.2, so every
    # such pattern sums to at most 4.6 < 5.6. So exactly 2 patterns reach sum >= 5.6
    # (the observed one and the all-positive one) and, by symmetry, exactly 2 reach <= -5.6.
    # Two-sided p = 4/256 = 0.015625 (printed as p = 0.016); one-sided p = 2/256.
    gaps = [0.9, 0.8, 1.1, 0.6, 0.7, 1.0, -0.1, 0.6]
    r = sign_flip_test(gaps)
    assert r.statistic == pytest.approx(0.70)
    assert r.pvalue == 4 / 256 == 0.015625
    assert f"{r.pvalue:.3f}" == "0.016"  # the tutorial's printed figure
    assert r.method == "exact (enumeration of all 256 sign patterns)"
    assert r.n == 8 and r.n_nonzero == 8
    assert sign_flip_test(gaps, alternative="greater").pvalue == 2 / 256
    # "less" counts sums <= 5.6: every pattern but the all-positive one (5.8) -> 255/256
    assert sign_flip_test(gaps, alternative="less").pvalue == 255 / 256
    assert brute_sign_flip(gaps) == 4 / 256


def test_hand_worked_eight_gaps_with_two_small_ones():
    # gaps sum to 1.3+0.9+1.1+0.8+1.2+0.05-0.1+1.0 = 6.25 (mean 0.78125).
    # A pattern's sum is 6.25 - 2 * F, F = sum of the flipped gaps (with their signs).
    # Sum >= 6.25 needs F <= 0. Flipped sets with F <= 0: {} (F = 0), {-0.1} (F = -0.1),
    # {0.05, -0.1} (F = -0.05). {0.05} alone has F = 0.05 > 0, and any set holding one of
    # the six gaps >= 0.8 has F >= 0.8 - 0.1 > 0. So 3 patterns on the upper side, 3 mirrored
    # on the lower side: two-sided p = 6/256 = 0.0234375, greater p = 3/256.
    gaps = [1.3, 0.9, 1.1, 0.8, 1.2, 0.05, -0.1, 1.0]
    assert sign_flip_test(gaps).pvalue == 6 / 256
    assert sign_flip_test(gaps, alternative="greater").pvalue == 3 / 256
    # Sign test on the same gaps: 7 of 8 positive, k = 7:
    # P(X >= 7) = (C(8,7) + C(8,8)) / 256 = 9/256; two-sided p = 18/256 = 0.0703125.
    st = sign_test(gaps)
    assert (st.n, st.k, st.pvalue) == (8, 7, 18 / 256)
    assert st.formula == "=MIN(1, 2*(1-BINOM.DIST(6, 8, 0.5, TRUE)))"


def test_zero_gaps_do_not_change_the_share():
    # Flipping a zero gap leaves every sum unchanged, so 0s double every count and the share stays.
    gaps = [0.9, 0.8, 1.1, 0.6, 0.7, 1.0, -0.1, 0.6]
    r = sign_flip_test(gaps + [0.0, 0.0])
    assert r.pvalue == 4 / 256
    assert (r.n, r.n_nonzero) == (10, 8)
    assert "8 non-zero gaps" in r.method


def test_all_zero_gaps():
    for alt in ALTS:
        r = sign_flip_test([0.0, 0.0, 0.0], alternative=alt)
        assert r.pvalue == 1.0 and r.statistic == 0.0
        s = sign_test([0.0, 0.0], alternative=alt)
        assert (s.pvalue, s.n) == (1.0, 0)


def test_single_gap():
    # One gap: two patterns, +g and -g, both with |sum| = |g|.
    assert sign_flip_test([2.5]).pvalue == 1.0
    assert sign_flip_test([2.5], alternative="greater").pvalue == 0.5
    assert sign_flip_test([2.5], alternative="less").pvalue == 1.0


# --------------------------------------------------------------------------- brute force


@pytest.mark.parametrize("alternative", ALTS)
def test_enumeration_and_lattice_equal_brute_force(alternative):
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(1, 12))
        gaps = rng.integers(-25, 26, size=n) / 20
        ref = brute_sign_flip(gaps, alternative)
        assert sign_flip_test(gaps, alternative=alternative, method="enumerate").pvalue == pytest.approx(ref, rel=1e-12)
        if np.any(gaps):
            assert sign_flip_test(gaps, alternative=alternative, method="lattice").pvalue == pytest.approx(ref, rel=1e-12)


def test_enumeration_equals_brute_force_on_irregular_floats():
    rng = np.random.default_rng(3)
    for _ in range(30):
        gaps = rng.normal(0.3, 1.0, size=int(rng.integers(2, 13)))
        for alt in ALTS:
            assert sign_flip_test(gaps, alternative=alt).pvalue == pytest.approx(brute_sign_flip(gaps, alt), rel=1e-12)


def test_ties_within_float_rounding_count_as_extreme():
    # 0.1 + 0.2 != 0.3 in floats, but the patterns (+0.1 +0.2 -0.3) and (-0.1 -0.2 +0.3) sum
    # to 0 exactly in real numbers. Sums: +-0.6, +-0.4 (flip 0.1), +-0.2 (flip 0.2), 0, 0.
    # Observed 0.6: only +-0.6 -> 2/8.  For gaps [0.1, 0.2, -0.3] the observed sum is 0 ->
    # every pattern is at least as extreme -> p = 1.
    assert sign_flip_test([0.1, 0.2, 0.3]).pvalue == 0.25
    assert sign_flip_test([0.1, 0.2, -0.3]).pvalue == 1.0
    # Two items with the same |gap| written differently: 0.3 and 0.1 + 0.2 (= 0.30000000000000004).
    # Sums: +-0.6 twice, 0 twice; |0.6| is reached by 2 of 4 patterns.
    assert sign_flip_test([0.3, 0.1 + 0.2]).pvalue == 0.5


def test_scipy_permutation_test_agrees():
    # scipy enumerates the 2**n sign flips for one sample with permutation_type="samples".
    # Its tie tolerance (100 * eps relative) differs from ours (1e-9), so the gaps are small
    # integers and halves: every sum is exact in floats and the two tolerances agree.
    rng = np.random.default_rng(11)
    for _ in range(12):
        n = int(rng.integers(2, 11))
        gaps = rng.integers(-8, 9, size=n) / 2.0
        for alt in ALTS:
            ref = stats.permutation_test(
                (gaps,), lambda x, axis: np.mean(x, axis=axis), vectorized=True,
                permutation_type="samples", n_resamples=np.inf, alternative=alt,
            ).pvalue
            assert sign_flip_test(gaps, alternative=alt).pvalue == pytest.approx(ref, rel=1e-12)


# --------------------------------------------------------------------------- lattice: exactness at large n


@pytest.mark.parametrize("ka,kb,n,shift", [(20, 20, 120, 0.0), (4, 6, 90, 0.4), (20, 20, 150, 0.6), (3, 3, 200, 0.0)])
def test_lattice_equals_exact_integer_convolution(ka, kb, n, shift):
    rng = np.random.default_rng(ka * 1000 + n)
    gaps = lattice_gaps(rng, n, ka, kb, shift)
    L = math.lcm(ka, kb)
    m = [int(round(g * L)) for g in gaps]  # the known lattice, not the code's detection
    for alt in ALTS:
        ref = exact_lattice_p(m, alt)
        r = sign_flip_test(gaps, alternative=alt)
        assert r.method.startswith("exact (lattice convolution")
        assert r.pvalue == pytest.approx(float(ref), rel=1e-12)
        assert r.log10_pvalue == pytest.approx(math.log10(ref.numerator) - math.log10(ref.denominator), rel=1e-12, abs=1e-12)


def test_lattice_step_is_detected_and_named():
    rng = np.random.default_rng(5)
    gaps = lattice_gaps(rng, 300, 20, 20)
    assert "step 1/20" in sign_flip_test(gaps).method
    # means over 4 and 6 runs: multiples of 1/12 (here all gaps are multiples of 1/12)
    gaps = lattice_gaps(rng, 300, 4, 6)
    assert "step 1/12" in sign_flip_test(gaps).method
    # whole-number gaps
    assert "step 1;" in sign_flip_test(rng.integers(-5, 6, size=100).astype(float)).method


def test_deep_tail_is_relative_exact():
    # 1,000 unit gaps of which 300 negative: S = 400 and the sum of +-1 gaps is 2X - n with
    # X ~ Binomial(1000, 1/2), so p = 2 * P(X >= 700) = 2 * sum_{j>=700} C(1000, j) / 2**1000.
    gaps = np.ones(1000)
    gaps[:300] = -1.0
    exact = Fraction(2 * sum(math.comb(1000, j) for j in range(700, 1001)), 2**1000)
    r = sign_flip_test(gaps)
    assert r.pvalue == pytest.approx(float(exact), rel=1e-12)
    assert r.pvalue < 1e-35


def test_tail_below_float_range_is_positive_and_logged():
    # 3,000 equal gaps: only the all-plus and all-minus patterns reach |S| = 3000: p = 2 / 2**3000.
    r = sign_flip_test(np.full(3000, 0.25))
    assert r.pvalue > 0.0
    assert r.pvalue == pytest.approx(2.2250738585072014e-308)  # floor: the smallest normal float
    assert r.log10_pvalue == pytest.approx((1 - 3000) * math.log10(2), rel=1e-12)
    assert "its exact log10 given beside it" in r.method
    # 2,000 gaps of 1/20, 1,900 positive: p = 2 * P(X >= 1900), X ~ Binomial(2000, 1/2)
    gaps = np.full(2000, 0.05)
    gaps[:100] = -0.05
    exact_log10 = math.log10(2 * sum(math.comb(2000, j) for j in range(1900, 2001))) - 2000 * math.log10(2)
    r = sign_flip_test(gaps)
    assert r.log10_pvalue == pytest.approx(exact_log10, rel=1e-12)


def test_large_n_lattice_is_exact_and_quick_enough_to_run_in_tests():
    rng = np.random.default_rng(1)
    gaps = lattice_gaps(rng, 10_000, 20, 20, shift=0.02)
    r = sign_flip_test(gaps)
    assert r.method.startswith("exact (lattice convolution, step 1/20")
    assert 0 < r.pvalue <= 1
    # agreement of the two one-sided tails with the two-sided p (symmetric null, S > 0 here)
    if r.statistic > 0:
        assert r.pvalue == pytest.approx(2 * sign_flip_test(gaps, alternative="greater").pvalue, rel=1e-12)


# --------------------------------------------------------------------------- no lattice: enumeration, bounds, Monte Carlo


def test_bounds_contain_exact_p_and_report_the_upper_end():
    rng = np.random.default_rng(2)
    for _ in range(3):
        gaps = rng.normal(0.4, 1.0, size=10)
        for alt in ALTS:
            ref = brute_sign_flip(gaps, alt)
            r = sign_flip_test(gaps, alternative=alt, method="bounds")
            lo, hi = r.pvalue_bounds
            assert lo <= ref * (1 + 1e-12) and ref <= hi * (1 + 1e-12)
            assert r.pvalue == hi
            assert r.method.startswith("certified bounds")


def test_auto_without_lattice_above_40_gaps_is_bounded_and_says_so():
    # 41 gaps with no common step: enumeration (2**41 patterns, meet in the middle) is exact
    # and is the reference for what auto reports (bounds or Monte Carlo, both naming themselves).
    rng = np.random.default_rng(4)
    gaps = rng.normal(0.2, 1.0, size=41) * math.pi
    exact = sign_flip_test(gaps, method="enumerate")
    assert exact.method == f"exact (enumeration of all {2**41} sign patterns)"
    r = sign_flip_test(gaps)
    lo, hi = r.pvalue_bounds
    assert lo <= exact.pvalue <= hi
    if r.method.startswith("certified bounds"):
        assert r.pvalue == hi and r.pvalue_se is None
    else:
        assert r.method.startswith("monte carlo") and r.pvalue_se is not None


def test_monte_carlo_is_reproducible_and_within_its_error():
    rng = np.random.default_rng(9)
    gaps = rng.normal(0.3, 1.0, size=14)
    ref = brute_sign_flip(gaps)
    a = sign_flip_test(gaps, method="monte-carlo", n_resamples=20_000, seed=5)
    b = sign_flip_test(gaps, method="monte-carlo", n_resamples=20_000, seed=5)
    assert a == b
    assert a.pvalue_se is not None and a.pvalue_se > 0
    assert abs(a.pvalue - ref) < 5 * a.pvalue_se + 1 / 20_001
    assert "n_resamples=20000" in a.method and "seed=5" in a.method


def test_forcing_a_path_that_cannot_apply_is_an_error():
    with pytest.raises(OptionError, match="no common step|too fine"):
        sign_flip_test(np.random.default_rng(0).normal(size=30) * math.pi, method="lattice")
    with pytest.raises(OptionError, match="no common step"):
        sign_flip_test([1.0, math.sqrt(2.0)], method="lattice")
    with pytest.raises(OptionError, match="limited to 44"):
        sign_flip_test(np.arange(1, 50) / 7, method="enumerate")
    with pytest.raises(OptionError, match="method must be one of"):
        sign_flip_test([1.0, 2.0], method="fft")


# --------------------------------------------------------------------------- batch


@pytest.mark.parametrize("alternative", ALTS)
def test_batch_agrees_with_single_row_by_row(alternative):
    rng = np.random.default_rng(12)
    for n in (1, 2, 5, 9, 16, 20, 23):
        G = rng.normal(0.2, 1.0, size=(25, n))
        G[0] = 0.0
        G[1, : n // 2] = 0.0
        G[2] = np.rint(G[2] * 20) / 20
        if n > 1:
            G[3] = G[3, 0]  # all equal: many ties
        single = [sign_flip_test(row, alternative=alternative).pvalue for row in G]
        np.testing.assert_allclose(sign_flip_pvalues(G, alternative=alternative), single, rtol=1e-12)
    G = np.stack([lattice_gaps(rng, 30, 20, 20, 0.3) for _ in range(5)])  # per-row path
    single = [sign_flip_test(row, alternative=alternative).pvalue for row in G]
    np.testing.assert_allclose(sign_flip_pvalues(G, alternative=alternative), single, rtol=1e-12)


def test_batch_input_checks():
    with pytest.raises(OptionError, match="shape"):
        sign_flip_pvalues([1.0, 2.0])
    with pytest.raises(OptionError, match="infinite"):
        sign_flip_pvalues([[1.0, np.nan]])
    assert sign_flip_pvalues(np.empty((0, 5))).shape == (0,)


# --------------------------------------------------------------------------- sign test


def spreadsheet(k, n):
    """=MIN(1, 2*(1-BINOM.DIST(k-1, n, 0.5, TRUE))) with scipy's binomial CDF."""
    return min(1.0, 2 * (1 - stats.binom.cdf(k - 1, n, 0.5)))


def test_sign_test_equals_spreadsheet_formula_for_all_n_and_k():
    for n in range(1, 61):
        for n_pos in range(0, n + 1):
            gaps = [0.5] * n_pos + [-0.25] * (n - n_pos) + [0.0, 0.0]
            r = sign_test(gaps)
            k = max(n_pos, n - n_pos)
            assert (r.n, r.k, r.statistic) == (n, k, float(k))
            # the formula itself (absolute error of 1 - cdf is ~1e-16), and relative via the survival function
            assert r.pvalue == pytest.approx(spreadsheet(k, n), rel=1e-9, abs=1e-15)
            assert r.pvalue == pytest.approx(min(1.0, 2 * stats.binom.sf(k - 1, n, 0.5)), rel=1e-12)
            assert r.formula == f"=MIN(1, 2*(1-BINOM.DIST({k - 1}, {n}, 0.5, TRUE)))"
            g = sign_test(gaps, alternative="greater")
            assert g.pvalue == pytest.approx(stats.binom.sf(n_pos - 1, n, 0.5), rel=1e-12)
            assert g.k == n_pos
            le = sign_test(gaps, alternative="less")
            assert le.pvalue == pytest.approx(stats.binom.sf(n - n_pos - 1, n, 0.5), rel=1e-12)


def test_sign_test_against_binomtest():
    # scipy.stats.binomtest's two-sided p sums all outcomes as unlikely as the observed one;
    # for p = 1/2 the binomial is symmetric and that equals min(1, 2 P(X >= k)).
    for n, k in [(8, 7), (10, 9), (15, 12), (30, 20), (59, 45)]:
        gaps = [1.0] * k + [-1.0] * (n - k)
        assert sign_test(gaps).pvalue == pytest.approx(stats.binomtest(k, n, 0.5).pvalue, rel=1e-12)


def test_sign_test_drops_a_gap_of_means_that_is_zero_as_a_fraction():
    # (0.1 + 0.2) - 0.3 is 5.55e-17 in floats, and 0 as the fractions the means are: 2 non-zero gaps, both positive
    r = sign_test([(0.1 + 0.2) - 0.3, 1.0, 2 / 3 - 1 / 3])
    assert (r.n, r.k) == (2, 2)
    assert r.pvalue == pytest.approx(stats.binomtest(2, 2, 0.5).pvalue, rel=1e-15)   # 0.5, not binomtest(3, 3)'s 0.25


def test_sign_test_large_n():
    gaps = [1.0] * 2600 + [-1.0] * 2400
    assert sign_test(gaps).pvalue == pytest.approx(2 * stats.binom.sf(2599, 5000, 0.5), rel=1e-12)


# --------------------------------------------------------------------------- smallest attainable p


def test_min_attainable_p_values():
    assert min_attainable_p(8) == 2 / 256
    assert min_attainable_p(8, "less") == 1 / 256
    assert min_attainable_p(1) == 1.0
    assert min_attainable_p(0, "greater") == 1.0
    assert min_attainable_p(5) > 0.05 >= min_attainable_p(6)  # 0.0625 vs 0.03125
    with pytest.raises(OptionError):
        min_attainable_p(-1)
    with pytest.raises(OptionError):
        min_attainable_p(3.5)


def test_min_attainable_p_is_reached_by_brute_force():
    # Gaps 1, 2, 4, 8, 16, 32 have distinct subset sums: only the two all-same-sign patterns
    # reach |S| = 63, so the smallest p over all 64 sign patterns is 2/64, one-sided 1/64.
    base = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
    ps = [brute_sign_flip([s * g for s, g in zip(signs, base)])
          for signs in itertools.product((1, -1), repeat=6)]
    assert min(ps) == min_attainable_p(6) == 2 / 64
    assert sign_flip_test(base, alternative="greater").pvalue == min_attainable_p(6, "greater")


# --------------------------------------------------------------------------- intervals


def test_t_interval_equals_scipy():
    rng = np.random.default_rng(8)
    gaps = rng.normal(0.5, 1.0, size=12)
    iv = gap_interval(gaps, confidence=0.9)
    ci = stats.ttest_1samp(gaps, 0.0).confidence_interval(confidence_level=0.9)
    assert (iv.low, iv.high) == pytest.approx((ci.low, ci.high), rel=1e-12)
    assert iv.confidence == 0.9 and "Student t" in iv.method


def test_t_interval_by_hand_with_a_printed_critical_value():
    # gaps 1..8: mean 4.5, sd sqrt(6) (sum of squares 42 over 7); t(0.975, 7) = 2.365 as printed in
    # the NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.6.7.2 (three decimals)
    iv = gap_interval([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0], confidence=0.95)
    half = 2.365 * math.sqrt(6.0) / math.sqrt(8.0)
    assert iv.low == pytest.approx(4.5 - half, abs=5e-4) and iv.high == pytest.approx(4.5 + half, abs=5e-4)
    # two gaps, 1 degree of freedom (Cauchy): t(0.975, 1) = 1 / tan(pi * 0.025); sd sqrt(2), sqrt(n) sqrt(2)
    iv = gap_interval([0.0, 2.0], confidence=0.95)
    assert iv.high - 1.0 == pytest.approx(1 / math.tan(math.pi * 0.025), rel=1e-12)
    assert "1 degree of freedom" in iv.method
    # the quantile is scipy's t quantile, to the last digit, over many degrees of freedom
    for n in (2, 3, 7, 31, 1000, 10**6):
        gaps = [0.0, 2.0] * (n // 2) + [1.0] * (n % 2)
        iv = gap_interval(gaps, confidence=0.9)
        sd = float(np.std(gaps, ddof=1))
        assert iv.high - iv.low == pytest.approx(2 * stats.t.ppf(0.95, n - 1) * sd / math.sqrt(n), rel=1e-13)


def test_sign_flip_interval_is_the_set_of_shifts_not_rejected():
    # Reference: scan shifts d on a fine grid with brute-force p-values; a shift is inside
    # the interval exactly when the brute-force two-sided p on gaps - d exceeds alpha.
    gaps = [0.9, 0.8, 1.1, 0.6, 0.7, 1.0, -0.1, 0.6]
    iv = gap_interval(gaps, method="sign-flip", confidence=0.95)
    assert "sign-flip" in iv.method
    for d in np.linspace(-0.5, 1.5, 81):
        if min(abs(d - iv.low), abs(d - iv.high)) < 1e-6:
            continue
        accepted = brute_sign_flip([g - d for g in gaps]) > 0.05
        assert accepted == (iv.low < d < iv.high), d
    # hand check of the lower end: at d = 0.1 the gaps are 0.8, 0.7, 1.0, 0.5, 0.6, 0.9, -0.2, 0.5
    # (sum 4.8); the upper side holds the observed pattern and the all-positive one -> p = 4/256,
    # rejected; the interval starts above 0.1.
    assert iv.low > 0.1


def test_sign_flip_interval_infinite_when_no_shift_can_be_rejected():
    iv = gap_interval([1.0, 2.0, 3.0, 4.0, 5.0], method="sign-flip")  # 2/32 = 0.0625 > 0.05
    assert iv.low == -math.inf and iv.high == math.inf
    assert iv.to_dict()["low"] is None


def test_interval_errors():
    with pytest.raises(OptionError, match="at least 2"):
        gap_interval([1.0])
    with pytest.raises(OptionError, match="confidence"):
        gap_interval([1.0, 2.0], confidence=95)
    with pytest.raises(OptionError, match="method"):
        gap_interval([1.0, 2.0], method="jackknife")
    with pytest.raises(OptionError, match="at least 3"):
        gap_interval([1.0, 2.0], method="bootstrap")


def test_sign_flip_interval_beyond_thirty_gaps_on_a_lattice_is_exact():
    """Beyond 30 gaps on a lattice (multiples of 1/20) the inversion is exact, from the joint law of the sum
    and the signs: each end is kept by the exact test on the shifted gaps (lattice convolution at any n),
    and a shift a little beyond it is rejected; no seed enters."""
    rng = np.random.default_rng(3)
    g = np.round(rng.normal(0.4, 1.0, 40) * 20) / 20
    iv = gap_interval(g, method="sign-flip", n_resamples=20_000, seed=5)
    assert "exact at every shift" in iv.method and "Monte Carlo" not in iv.method
    assert iv.low < g.mean() < iv.high
    for end, outward in ((iv.low, -1), (iv.high, 1)):
        assert sign_flip_test(g - end, alpha=0.05).pvalue > 0.05
        assert sign_flip_test(g - (end - outward * 0.0025), alpha=0.05).pvalue > 0.05   # on a lattice: exact
        assert sign_flip_test(g - (end + outward * 0.0025), alpha=0.05).pvalue <= 0.05
    other = gap_interval(g, method="sign-flip", n_resamples=20_000, seed=6)
    assert (other.low, other.high) == (iv.low, iv.high)


def test_sign_flip_interval_beyond_thirty_gaps_off_a_lattice():
    """Beyond 30 gaps that share no step the inversion is Monte Carlo over one set of sign patterns; at its
    ends the exact p (certified bounds, decided at alpha) sits at alpha within the Monte Carlo error it
    states, and whether the interval holds 0 is the exact test's decision at 0 whatever the seed."""
    rng = np.random.default_rng(3)
    g = rng.normal(0.4, 1.0, 40) + np.sqrt(2) * 1e-3
    iv = gap_interval(g, method="sign-flip", n_resamples=5_000, seed=5)
    assert "Monte Carlo" in iv.method and "seed 5" in iv.method and "5,000" in iv.method
    assert iv.low < g.mean() < iv.high
    se = math.sqrt(0.05 * 0.95 / 5_000)
    for end, outward in ((iv.low, -1), (iv.high, 1)):
        inside = sign_flip_test(g - (end - outward * 0.002), alpha=0.05).pvalue
        outside = sign_flip_test(g - (end + outward * 0.002), alpha=0.05).pvalue
        assert inside > 0.05 - 4 * se and outside <= 0.05 + 4 * se
    other = gap_interval(g, method="sign-flip", n_resamples=5_000, seed=6)
    assert (other.low, other.high) != (iv.low, iv.high)
    p0 = sign_flip_test(g, alpha=0.05).pvalue
    for seed in range(2):   # gaps shifted to put 0 at the end: the seed moves the ends, never 0's side
        near = gap_interval(g - iv.low, method="sign-flip", n_resamples=2_000, seed=seed)
        assert (near.low <= 0 <= near.high) == (sign_flip_test(g - iv.low, alpha=0.05).pvalue > 0.05)
    assert (iv.low <= 0 <= iv.high) == (p0 > 0.05)


# --------------------------------------------------------------------------- results and errors


def test_results_are_frozen_and_json_safe():
    r = sign_flip_test(np.float32([0.5, 1.5, -0.25]))
    assert isinstance(r, TestResult)
    with pytest.raises(AttributeError):
        r.pvalue = 0.0
    d = r.to_dict()
    json.dumps(d)
    assert all(type(v) in (int, float, str, type(None), list) for v in d.values())
    assert set(d) >= {"statistic", "p", "method", "alternative", "n"} and "pvalue" not in d   # JSON says p
    d = sign_test([1, 2, -3]).to_dict()
    json.dumps(d)
    assert d["k"] == 2 and isinstance(d["k"], int)
    iv = gap_interval([1.0, 2.0, 4.0])
    assert isinstance(iv, Interval)
    json.dumps(iv.to_dict())
    assert "<table>" in r._repr_html_()


@pytest.mark.parametrize("bad,match", [
    ([], "no gaps"),
    ([1.0, float("nan")], "gap 1 is nan"),
    ([[1.0, 2.0]], "one-dimensional"),
    (["a", "b"], "must be numbers"),
])
def test_bad_gaps_raise_library_errors(bad, match):
    with pytest.raises(ProbestatsError, match=match):
        sign_flip_test(bad)
    with pytest.raises(ProbestatsError, match=match):
        sign_test(bad)


def test_bad_alternative():
    with pytest.raises(OptionError, match="^alternative='two_sided': expected one of two-sided, greater, less$"):
        sign_flip_test([1.0], alternative="two_sided")
    with pytest.raises(OptionError, match="^alternative='both': expected one of two-sided, greater, less$"):
        sign_test([1.0], alternative="both")


# --------------------------------------------------------------------------- bootstrap interval, assumptions

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def test_bootstrap_interval_is_scipys_bca_and_names_its_assumption():
    from scipy.stats import bootstrap

    g = np.array([0.2, 1.5, -0.3, 4.0, 0.9, 0.1, 2.2])
    iv = gap_interval(g, method="bootstrap", n_resamples=5000, seed=3)
    # reference: scipy.stats.bootstrap called directly with the same resamples and seed
    # (over the gaps in sorted order, the order the interval draws them in, so that the log's order does not move it)
    ref = bootstrap((np.sort(g),), np.mean, n_resamples=5000, method="BCa", rng=np.random.default_rng(3),
                    vectorized=True)
    assert (iv.low, iv.high) == (ref.confidence_interval.low, ref.confidence_interval.high)
    assert "BCa" in iv.method and "fair sample" in iv.assumption
    assert "normal" in gap_interval(g).assumption
    assert "symmetric" in gap_interval(g, method="sign-flip").assumption
    assert gap_interval(g).to_dict()["assumption"] == gap_interval(g).assumption


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-100, 100, allow_nan=False), min_size=3, max_size=12))
def test_bootstrap_interval_lies_within_the_gaps_and_holds_their_mean_when_symmetric(gaps):
    g = np.array(gaps)
    iv = gap_interval(g, method="bootstrap", n_resamples=500, seed=0)
    # every resampled mean lies between the smallest and largest gap, so both ends do too
    assert g.min() - 1e-9 <= iv.low <= iv.high <= g.max() + 1e-9
    sym = np.concatenate([g, 2 * g.mean() - g])     # mirrored about its mean: the mean is the centre
    iv = gap_interval(sym, method="bootstrap", n_resamples=500, seed=0)
    assert iv.low - 1e-9 <= sym.mean() <= iv.high + 1e-9


def test_skewness_matches_scipy_and_hand():
    from probestats.stats.hypotests import gap_skewness
    from scipy.stats import skew

    g = [0.1, 0.2, 0.1, 3.0, 0.4, 0.0]
    assert gap_skewness(g) == pytest.approx(skew(g, bias=False), rel=1e-12)
    assert gap_skewness([1.0, 1.0, 1.0]) == 0.0


# --------------------------------------------------------------------------- certified bounds (continuous gaps)


def _brute_one_sided_tail(g, x):
    # P(sum s_i g_i >= x) over all 2**n sign patterns, by brute force
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(g))))
    return float(np.mean(signs @ np.asarray(g) >= x))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-5, 5, allow_nan=False).filter(lambda v: abs(v) > 1e-3), min_size=3, max_size=12),
       st.integers(2, 12), st.sampled_from([1e-2, 1e-4, 1e-8]), st.floats(-0.5, 0.99))
def test_split_tail_bounds_contain_the_brute_force_tail(gaps, bits, delta, frac):
    from probestats.stats.fourier import _split_tail_bounds

    g = np.array(gaps)
    x = frac * float(np.abs(g).sum())
    h = float(np.abs(g).max()) / 2.0 ** bits
    lo, hi = _split_tail_bounds(g, x, h, delta)
    exact = _brute_one_sided_tail(g, x)
    assert lo - 1e-12 <= exact <= hi + 1e-12


def test_sign_flip_bounds_contain_the_exact_lattice_p_at_many_items():
    from probestats.stats.hypotests import sign_flip_bounds

    # 300 gaps on the 1/20 lattice: sign_flip_test is exact there (lattice convolution); the
    # bounds, which do not look for a lattice, must contain that exact p
    rng = np.random.default_rng(8)
    g = np.round(rng.normal(0.15, 1.0, 300) * 20) / 20
    exact = sign_flip_test(g, method="lattice").pvalue
    r = sign_flip_bounds(g)
    lo, hi = r.pvalue_bounds
    assert lo <= exact <= hi and r.pvalue == hi
    # about 1.6% wide: on the 1/20 lattice the observed sum is an atom carrying about 1.5% of p, which
    # bounds that hold for both the open and the closed tail cannot split (continuous gaps reach 1%)
    assert hi - lo <= 0.05 * hi
    assert "certified bounds" in r.method
    # few gaps: enumeration, exact
    assert sign_flip_bounds([1.0, 2.0, -0.5]).pvalue_bounds == (sign_flip_test([1.0, 2.0, -0.5]).pvalue,) * 2


def test_a_monte_carlo_p_at_its_floor_is_a_bound():
    # 30 gaps of +1: of the 2**30 sign patterns only 2 (all +, all -) are as extreme, p = 2**-29 exactly;
    # 1,000 resamples see none of them, so the estimate is the floor 1/1001 and only says p < 1/1001
    from probestats.analyses.omnibus import omnibus_test
    from probestats.present.terminal.render import p_is

    result = sign_flip_test([1.0] * 30, method="monte-carlo", n_resamples=1_000, seed=0)
    assert result.pvalue == 1 / 1001 and result.pvalue_bound == "upper"
    assert "no resample was as extreme" in result.method
    assert p_is(result) == "p < 1/1001"
    # one that hits some resamples is an estimate
    noisy = sign_flip_test([1.0, -1.0, 0.5, 0.25], method="monte-carlo", n_resamples=1_000, seed=0)
    assert noisy.pvalue_bound is None and p_is(noisy).startswith("p = ")
    # the omnibus test says the same in its JSON
    omni = omnibus_test(np.column_stack([np.ones(30), np.zeros(30)]), method="monte-carlo", n_resamples=1_000)
    assert omni.pvalue == 1 / 1001 and omni.to_dict()["p_bound"] == "upper"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=3, max_size=40))
def test_skewness_agrees_with_scipy_on_any_gaps(gaps):
    from scipy.stats import skew

    from probestats.stats.hypotests import gap_skewness

    g = np.array(gaps)
    if np.ptp(g) == 0 or np.var(g) < 1e-12 * max(1.0, float(np.max(np.abs(g)))) ** 2:
        return  # no spread (or only rounding noise): 0 by definition here, undefined in scipy
    assert gap_skewness(g) == pytest.approx(float(skew(g, bias=False)), rel=1e-7, abs=1e-9)
