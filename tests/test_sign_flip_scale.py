"""The exact sign-flip test at large n: the FFT lattice path and the smallest attainable p.

References: an exact big-integer count of sign patterns (dynamic programming over the
integer sums, Python integers, no floats) and hand powers of two.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from probestats.stats import lattice as h
from probestats.stats.hypotests import MinP, min_attainable_p, sign_flip_test


def exact_upper_tail(m_abs, c) -> Fraction:
    """P(sum s_i m_i >= c) for fair signs, counted exactly with Python integers."""
    counts = {0: 1}
    for m in m_abs:
        nxt = {}
        for s, k in counts.items():
            nxt[s + m] = nxt.get(s + m, 0) + k
            nxt[s - m] = nxt.get(s - m, 0) + k
        counts = nxt
    hit = sum(k for s, k in counts.items() if s >= c)
    return Fraction(hit, 2 ** len(m_abs))


def theta_for(vals, cnts, c):
    v, cf = vals.astype(float), cnts.astype(float)
    lo, hi = 0.0, 1.0 / float(vals[-1])
    while float(np.sum(cf * v * np.tanh(hi * v))) < c:
        lo, hi = hi, hi * 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if float(np.sum(cf * v * np.tanh(mid * v))) < c else (lo, mid)
    return (lo + hi) / 2


def fft_tail(m_abs, c):
    vals, cnts = h._unique_counts(np.asarray(m_abs, dtype=np.int64))
    return h._lattice_tail_fft(vals, cnts, theta_for(vals, cnts, c), c)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(m=st.lists(st.integers(1, 30), min_size=2, max_size=70), frac=st.floats(0.01, 0.95))
def test_fft_tail_is_within_its_stated_error_of_the_exact_count(m, frac):
    total = sum(m)
    c = max(1, int(frac * total))
    exact = exact_upper_tail(m, c)
    logp, rel = fft_tail(m, c)
    assert rel < 1e-6
    if exact == 0:
        assert logp == -math.inf
        return
    got = math.exp(logp)
    # relative error within the stated bound (plus the float exp/log of the comparison)
    assert abs(Fraction(got) / exact - 1) <= rel + 1e-12


def test_fft_tail_deep_in_the_tail_stays_relative_accurate():
    # 60 gaps of 1..10; c near the maximum: p is about 1e-15 (a handful of the 2**60 patterns), far below any absolute FFT error
    m = [1 + (7 * i) % 10 for i in range(60)]
    c = sum(m) - 20
    exact = exact_upper_tail(m, c)
    logp, rel = fft_tail(m, c)
    assert float(exact) < 1e-12
    assert abs(Fraction(math.exp(logp)) / exact - 1) <= rel + 1e-12


def test_fft_and_direct_convolution_agree_at_a_thousand_items():
    rng = np.random.default_rng(3)
    m = np.abs(rng.binomial(5000, 0.5, 1000) - rng.binomial(5000, 0.5, 1000))
    m = m[m > 0]
    c = int(0.05 * m.sum())
    direct = h.lattice_tail(m, c, trim=False)  # untrimmed direct convolution: never FFT
    fft = fft_tail(m, c)
    assert abs(math.expm1(fft[0] - direct[0])) <= fft[1] + direct[1]


def test_a_thousand_items_on_a_1_500_lattice_is_exact_and_fast_enough_to_use():
    rng = np.random.default_rng(1)
    g = (rng.binomial(5000, 0.5, 1000) - rng.binomial(5000, 0.5, 1000) + 3) / 500
    r = sign_flip_test(g)
    assert r.method.startswith("exact (lattice convolution, step 1/500")
    assert r.pvalue_se is None and r.pvalue_bounds is None
    # independent check: the normal approximation is close at this n (not a proof, a sanity bound)
    z = abs(g.sum()) / math.sqrt(float(np.sum(g * g)))
    approx = math.erfc(z / math.sqrt(2))
    assert 0.5 < r.pvalue / approx < 2


def test_min_attainable_p_never_underflows():
    for n in (1, 8, 1074, 1075, 1076, 5000, 100_000):
        m = min_attainable_p(n)
        assert isinstance(m, float) and m > 0
        assert m.log2 == 1 - n  # two-sided: 2 / 2**n
        assert m.log10 == pytest.approx((1 - n) * math.log10(2), rel=1e-15)
        if n <= 1075:
            assert m.exact and float(m) == 2.0 ** (1 - n)
        else:
            assert not m.exact and float(m) == 5e-324  # the bound: smallest positive float
    assert min_attainable_p(100_000, "greater").log2 == -100_000
    assert json.loads(json.dumps(min_attainable_p(3))) == 0.25
    assert isinstance(min_attainable_p(3), MinP)
