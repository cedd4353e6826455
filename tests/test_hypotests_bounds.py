"""Certified sign-flip bounds for continuous gaps, against independent references.

References: the indicator of an arc itself (the trigonometric polynomials must lie above and
below it everywhere), brute force over every sign pattern (itertools.product), the exact
lattice convolution for gaps that do share a step (itself checked against big-integer
convolution in test_hypotests.py), the characteristic function in 60-digit arithmetic
(mpmath), and Monte Carlo with its standard error where nothing exact is feasible.
"""

from __future__ import annotations

import itertools
import math

import mpmath
from test_hypotests import brute_sign_flip
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from probestats.stats.fourier import (
    FOURIER_TINY,
    _CharFn,
    certified_bounds,
    _fourier_tail_bounds,
    _tilted_tail_bounds,
    _vaaler_terms,
)
from probestats.stats.hypotests import _upper_threshold, sign_flip_bounds, sign_flip_test

ALTS = ("two-sided", "greater", "less")
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def brute_tail(g, x):
    """P(sum s_i g_i >= x) and P(... > x) over all 2**n sign patterns."""
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=len(g))))
    sums = signs @ np.asarray(g, dtype=float)
    return float(np.mean(sums >= x)), float(np.mean(sums > x))


def brute_p(gaps, alternative):
    return brute_sign_flip(gaps, alternative)


def selberg(u, a, b, K, sign):
    """Selberg's polynomial for the arc [a, b] of R/Z at points u, summed term by term.

    S(u) = (b - a) + V(a - u) + V(u - b) +- (F(a - u) + F(u - b)) / (2K + 2), with Vaaler's
    V(x) = -sum_{k=1..K} J(k/(K+1)) sin(2 pi k x) / (pi k) and Fejer's
    F(x) = 1 + 2 sum_{k=1..K} (1 - k/(K+1)) cos(2 pi k x).
    """
    k, J, fej = _vaaler_terms(K)

    def V(x):
        return -np.sum(J[None, :] * np.sin(2 * np.pi * np.outer(x, k)) / (np.pi * k[None, :]), axis=1)

    def F(x):
        return 1.0 + 2.0 * np.sum(fej[None, :] * np.cos(2 * np.pi * np.outer(x, k)), axis=1)

    return (b - a) + V(a - u) + V(u - b) + sign * (F(a - u) + F(u - b)) / (2 * K + 2)


# --------------------------------------------------------------------------- the polynomials


@pytest.mark.parametrize("K", [1, 3, 10, 40])
def test_selberg_polynomials_lie_above_and_below_the_arc(K):
    # the theorem behind the bounds, checked pointwise on a fine grid that includes the ends
    rng = np.random.default_rng(K)
    for _ in range(6):
        a, b = np.sort(rng.uniform(0, 1, 2))
        u = np.concatenate([np.linspace(0, 1, 4001), [a, b, a - 1e-9, b + 1e-9, a + 1e-9, b - 1e-9]]) % 1.0
        inside = (u >= a) & (u <= b)
        closed = inside.astype(float)
        open_ = ((u > a) & (u < b)).astype(float)
        assert np.all(selberg(u, a, b, K, +1) >= closed - 1e-12)
        assert np.all(selberg(u, a, b, K, -1) <= open_ + 1e-12)
        # and their integrals exceed / fall short of the arc's length by exactly 1 / (K + 1)
        grid = np.arange(20000) / 20000
        assert np.mean(selberg(grid, a, b, K, +1)) == pytest.approx(b - a + 1 / (K + 1), abs=1e-9)
        assert np.mean(selberg(grid, a, b, K, -1)) == pytest.approx(b - a - 1 / (K + 1), abs=1e-9)


@FAST
@given(st.lists(st.floats(-3, 3, allow_nan=False).filter(lambda v: abs(v) > 1e-3), min_size=2, max_size=30),
       st.integers(1, 4000))
def test_characteristic_function_is_within_its_error_bound(gaps, j):
    # prod cos(2 pi j g_i / P) in 60-digit arithmetic must lie within err of the float value,
    # both where it is evaluated and where a subset bound stands for it
    g = np.array(gaps)
    P = 7.3 * math.sqrt(float(np.sum(g * g))) + 1.0
    cf = _CharFn(g, P)
    phi, err = cf.upto(j)
    mpmath.mp.dps = 60
    t = 2 * mpmath.pi * j / mpmath.mpf(P)
    exact = mpmath.fprod(mpmath.cos(t * mpmath.mpf(float(v))) for v in g)
    assert abs(exact - phi[j - 1]) <= err[j - 1] * (1 + 1e-9) + 1e-300


def test_subset_bounds_stand_in_for_negligible_frequencies():
    # many gaps: most frequencies are bounded from a subset, and the bound must hold
    rng = np.random.default_rng(3)
    g = rng.normal(0.0, 1.0, 3000)
    cf = _CharFn(g, 20 * math.sqrt(float(np.sum(g * g))))
    phi, err = cf.upto(3000)
    assert 0 < cf.exact_count < 1000
    skipped = np.flatnonzero(phi == 0)
    for idx in skipped[:: max(1, skipped.size // 25)]:
        t = 2 * np.pi * (idx + 1) / cf.P
        true = float(np.prod(np.cos(t * g)))
        assert abs(true) <= err[idx] <= FOURIER_TINY


# --------------------------------------------------------------------------- against brute force


@FAST
@given(st.lists(st.floats(-5, 5, allow_nan=False).filter(lambda v: abs(v) > 1e-3), min_size=2, max_size=14),
       st.floats(-1.0, 1.0))
def test_fourier_tail_bounds_contain_the_brute_force_tail(gaps, frac):
    g = np.array(gaps)
    x = frac * float(np.abs(g).sum())
    ge, gt = brute_tail(g, x)
    lo, hi, _ = _fourier_tail_bounds(g, x, rtol=0.01, atol=1e-4, max_k=1 << 14)
    # the bounds hold for the closed and the open tail alike (they cannot tell them apart)
    assert lo - 1e-12 <= gt <= ge <= hi + 1e-12


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(-4, 4, allow_nan=False).filter(lambda v: abs(v) > 1e-3), min_size=3, max_size=14),
       st.sampled_from(ALTS), st.floats(-0.5, 1.5))
def test_forced_bounds_contain_the_brute_force_p(gaps, alternative, shift):
    g = np.array(gaps) + shift
    g = g[g != 0]
    if g.size < 2:
        return
    ref = brute_p(g, alternative)
    r = sign_flip_test(g, alternative=alternative, method="bounds")
    lo, hi = r.pvalue_bounds
    assert lo - 1e-12 <= ref <= hi + 1e-12
    assert r.pvalue == hi and r.kind == "bounds"


def test_bounds_contain_enumeration_at_thirty_gaps_and_meet_the_target():
    # 30 to 40 continuous gaps: meet-in-the-middle enumeration is exact, and 2**-30 atoms are fine
    rng = np.random.default_rng(11)
    for n, shift in ((30, 0.3), (34, 0.5), (40, 0.1), (40, 0.7)):
        g = rng.normal(shift, 1.0, n) * math.e
        for alt in ALTS:
            exact = sign_flip_test(g, alternative=alt, method="enumerate").pvalue
            r = sign_flip_bounds(g, alternative=alt)
            lo, hi = r.pvalue_bounds
            assert lo <= exact <= hi
            assert hi - lo <= max(0.01 * hi, 1e-4)


# --------------------------------------------------------------------------- against the exact lattice p


def _draw(rng, kind, n, z):
    if kind == "normal":
        e = rng.normal(0.0, 1.0, n)
    elif kind == "cauchy":   # a few gaps dominate the variance: the largest are enumerated apart
        e = np.clip(rng.standard_cauchy(n), -200, 200)
    elif kind == "exponential":
        e = rng.exponential(1.0, n)
    else:   # few distinct values, many repeats
        e = rng.choice([-2.0, -0.5, 0.25, 1.0, 3.0], n)
    return e - e.mean() + z * e.std() / math.sqrt(n)


KINDS = ("normal", "cauchy", "exponential", "repeats")


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(50, 1500), st.sampled_from([20, 60, 500]), st.floats(0.0, 4.0), st.integers(0, 2**31),
       st.sampled_from(ALTS), st.sampled_from(KINDS))
def test_bounds_contain_the_exact_lattice_p(n, steps, z, seed, alternative, kind):
    # gaps rounded to the 1/steps lattice: the lattice convolution is exact, the bounds must hold
    rng = np.random.default_rng(seed)
    g = np.round(_draw(rng, kind, n, z) * steps) / steps
    g = g[g != 0]
    if g.size < 2:
        return
    exact = sign_flip_test(g, alternative=alternative, method="lattice").pvalue
    s_obs = math.fsum(g)
    x = _upper_threshold(s_obs, 1e-9 * max(abs(s_obs), float(np.abs(g).max())), alternative)
    if alternative == "two-sided" and x <= 0:
        return
    lo, hi, _ = certified_bounds(g, x, alternative == "two-sided", 0.01, 1e-4, 0)
    assert lo * (1 - 1e-9) <= exact <= hi * (1 + 1e-9)


@FAST
@given(st.lists(st.floats(-5, 5, allow_nan=False).filter(lambda v: abs(v) > 1e-3), min_size=2, max_size=14),
       st.floats(0.02, 0.98))
def test_tilted_bounds_contain_the_brute_force_tail(gaps, frac):
    g = np.array(gaps)
    x = frac * float(np.abs(g).sum())
    ge, gt = brute_tail(g, x)
    out = _tilted_tail_bounds(g, x, rtol=0.01, max_k=1 << 13)
    if out is None:   # the tilt would be extreme: no bounds, and the caller uses the others
        return
    lo, hi, _ = out
    assert lo * (1 - 1e-12) <= gt <= ge <= hi * (1 + 1e-12)


@pytest.mark.parametrize("n, z, steps", [(400, 7.0, 1000), (1500, 9.0, 200), (3000, 12.0, 200), (600, 5.0, 500)])
def test_deep_tail_bounds_contain_the_exact_lattice_p_relatively(n, z, steps):
    # p from 1e-6 down to 1e-33: the tilted bounds keep their width relative to p. Fine lattices,
    # so that the atom of the exact law at the threshold (which no bound can split) is well below 1% of p
    rng = np.random.default_rng(n)
    e = rng.normal(0.0, 1.0, n)
    g = np.round((e - e.mean() + z * e.std() / math.sqrt(n)) * steps) / steps
    g = g[g != 0]
    for alt in ("two-sided", "greater"):
        exact = sign_flip_test(g, alternative=alt, method="lattice").pvalue
        r = sign_flip_test(g, alternative=alt, method="bounds")
        lo, hi = r.pvalue_bounds
        assert lo <= exact <= hi
        assert exact < 1e-5 and hi - lo <= 0.01 * hi


# --------------------------------------------------------------------------- the target and the auto path


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(100, 4000), st.floats(0.0, 3.3), st.integers(0, 2**31), st.sampled_from(ALTS),
       st.sampled_from(("normal", "exponential")))
def test_width_meets_the_target_for_typical_p(n, z, seed, alternative, kind):
    rng = np.random.default_rng(seed)
    g = _draw(rng, kind, n, z)
    r = sign_flip_bounds(g, alternative=alternative)
    lo, hi = r.pvalue_bounds
    assert 0 <= lo <= hi <= 1
    assert hi - lo <= 0.01 * hi          # the target is max(1% of p, 1e-4): these reach 1% at every p
    assert "wider than aimed" not in r.method


def test_auto_path_reports_certified_bounds_that_monte_carlo_agrees_with():
    rng = np.random.default_rng(21)
    g = rng.normal(0.08, 1.0, 600)
    r = sign_flip_test(g)
    assert r.kind == "bounds" and r.pvalue_se is None
    assert r.method.startswith("certified bounds") and "p reported as the upper bound" in r.method
    lo, hi = r.pvalue_bounds
    assert r.pvalue == hi and hi - lo <= 0.01 * hi
    mc = sign_flip_test(g, method="monte-carlo", n_resamples=200_000, seed=1)
    assert lo - 5 * mc.pvalue_se <= mc.pvalue <= hi + 5 * mc.pvalue_se
    assert r.to_dict()["p_bounds"] == [lo, hi]


def test_bounds_do_not_grow_with_a_wild_spread_of_gaps():
    # one gap a thousand times the others: the sum's law is two far-apart bumps
    rng = np.random.default_rng(2)
    g = np.concatenate([rng.normal(0.2, 1.0, 300), [1000.0 * math.pi]])
    r = sign_flip_bounds(g, alternative="greater")
    lo, hi = r.pvalue_bounds
    # reference: S >= x needs the big gap's plus sign (probability 1/2) and the rest >= x - big,
    # whose p is the rest's own certified bounds
    rest = g[:-1]
    s_obs = math.fsum(g)
    x = s_obs - 1e-9 * abs(s_obs)
    rlo, rhi, _ = _fourier_tail_bounds(rest, x - g[-1], rtol=1e-3, atol=1e-7)
    assert max(lo, rlo / 2) <= min(hi, rhi / 2) + 1e-15
    assert hi - lo <= max(0.01 * hi, 1e-4)


@FAST
@given(st.lists(st.floats(-3, 3, allow_nan=False).filter(lambda v: abs(v) > 1e-3), min_size=2, max_size=30),
       st.floats(0.01, 2.0), st.integers(1, 3000))
def test_tilted_characteristic_function_is_within_its_error_bound(gaps, theta, j):
    from probestats.stats.fourier import _TiltedCharFn

    g = np.array(gaps)
    w = np.tanh(theta * g)
    P = 7.3 * math.sqrt(float(np.sum(g * g))) + 1.0
    psi, err = _TiltedCharFn(g, w, P).upto(j)
    mpmath.mp.dps = 60
    t = 2 * mpmath.pi * j / mpmath.mpf(P)
    th = mpmath.mpf(theta)
    # prod cosh((theta + i t) g) / cosh(theta g), in 60 digits, straight from the definition
    exact = mpmath.fprod(mpmath.cosh((th + 1j * t) * mpmath.mpf(float(v))) / mpmath.cosh(th * mpmath.mpf(float(v)))
                         for v in g)
    assert abs(exact - psi[j - 1]) <= err[j - 1] * (1 + 1e-9) + 1e-300


def test_monte_carlo_is_the_last_resort_with_its_error_when_atoms_sit_at_the_threshold():
    # 30 gaps of +1, 15 of -1 and one of pi * 1e-7 (so no common step): the sum has atoms 2e-7 apart
    # around the observed 15, which no bound at a sane degree can split. Exact p by hand:
    # M = sum of the 45 unit gaps = 2J - 45, J ~ Binomial(45, 1/2); S >= 15 + eps (less the tie
    # tolerance) needs J >= 31, or J = 30 and a plus sign on eps: p = 2 [P(J >= 31) + P(J = 30) / 2].
    eps = math.pi * 1e-7
    g = np.array([1.0] * 30 + [-1.0] * 15 + [eps])
    exact = 2 * (sum(math.comb(45, k) for k in range(31, 46)) + math.comb(45, 30) / 2) / 2**45
    r = sign_flip_test(g, n_resamples=100_000, seed=3)
    assert r.kind == "monte-carlo" and r.pvalue_se is not None
    assert "certified bounds" in r.method and "were wider" in r.method
    lo, hi = r.pvalue_bounds
    assert lo <= exact <= hi
    assert abs(r.pvalue - exact) <= 5 * r.pvalue_se


def test_factors_near_zero_and_tiny_gaps_give_finite_error_bounds():
    # pi/2 gaps make cos(t g) vanish at t = 1 (to float precision), 1e-300 gaps make factors of 1;
    # the error bounds stay finite and warning-free (warnings are errors in this suite)
    g = np.array([math.pi / 2] * 30 + [1e-300] * 5 + list(np.linspace(0.1, 1.0, 20)))
    cf = _CharFn(g, 2 * math.pi)          # t_j = j: j = 1 hits the zeros of cos(pi/2 t)
    phi, err = cf.upto(64)
    assert np.all(np.isfinite(err)) and abs(phi[0]) <= err[0] + 1e-300
    r = sign_flip_test(g)
    lo, hi = r.pvalue_bounds
    assert 0 <= lo <= hi <= 1


@pytest.mark.parametrize("z", [6.0, 9.0])
def test_deep_tail_with_a_dominant_gap_stays_relative(z):
    # one gap carries most of the variance: it is enumerated apart, and the rest's deep tail is tilted;
    # reference: the exact lattice p (every gap on the 1/200 lattice)
    n = 800
    rng = np.random.default_rng(int(z))
    e = rng.normal(0.0, 1.0, n)
    rest = e - e.mean() + z * e.std() / math.sqrt(n)
    g = np.round(np.concatenate([rest, [40.0 * math.pi * math.sqrt(n)]]) * 200) / 200
    for alt in ("two-sided", "greater"):
        exact = sign_flip_test(g, alternative=alt, method="lattice").pvalue
        r = sign_flip_test(g, alternative=alt, method="bounds")   # auto would see the lattice
        lo, hi = r.pvalue_bounds
        assert r.kind == "bounds" and "largest gaps enumerated apart" in r.method
        assert lo <= exact <= hi and exact < 1e-6
        assert hi - lo <= 0.01 * hi


@FAST
@given(st.lists(st.floats(-3, 3, allow_nan=False).filter(lambda v: abs(v) > 1e-6), min_size=1, max_size=60),
       st.floats(0.0, 1.5), st.floats(1e-3, 50.0))
def test_gaussian_bounds_on_the_characteristic_functions_hold(gaps, theta, t):
    # |prod cos(t g)| and |prod (cos(t g) + i tanh(theta g) sin(t g))| against the cheap bounds that
    # skip most frequencies, the products taken in 60-digit arithmetic
    from probestats.stats.fourier import _TiltedCharFn

    g = np.array(gaps)
    P = 2 * math.pi / t            # so that j = 1 is the frequency t
    mpmath.mp.dps = 60
    tt = mpmath.mpf(2) * mpmath.pi / mpmath.mpf(P)
    plain = abs(mpmath.fprod(mpmath.cos(tt * mpmath.mpf(float(v))) for v in g))
    assert plain <= _CharFn(g, P)._gauss(np.array([2 * np.pi / P]))[0]
    th = mpmath.mpf(theta)
    tilted = abs(mpmath.fprod(mpmath.cosh((th + 1j * tt) * mpmath.mpf(float(v))) / mpmath.cosh(th * mpmath.mpf(float(v)))
                              for v in g))
    assert tilted <= _TiltedCharFn(g, np.tanh(theta * g), P)._gauss(np.array([2 * np.pi / P]))[0]
