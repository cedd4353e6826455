"""Student's t written out in probestats.student_t, against mpmath (40 digits), scipy and a printed table."""

from __future__ import annotations

import math
from statistics import NormalDist

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

from probestats.student_t import t_pdf, t_ppf, t_sf

mpmath.mp.dps = 40


def mp_central(t, df) -> mpmath.mpf:
    """P(0 < T < t) = I_y(1/2, df/2) / 2 with y = t^2 / (df + t^2), in 40-digit arithmetic."""
    t, df = mpmath.mpf(t), mpmath.mpf(df)
    return mpmath.betainc(mpmath.mpf(1) / 2, df / 2, 0, t * t / (df + t * t), regularized=True) / 2


def mp_sf(t, df) -> mpmath.mpf:
    """P(T > t) for t >= 0: I_x(df/2, 1/2) / 2 with x = df / (df + t^2) in the tail, where x is
    not close to 1; 1/2 - P(0 < T < t) near 0, where it is."""
    t, df = mpmath.mpf(t), mpmath.mpf(df)
    if t * t < 1:
        return mpmath.mpf(1) / 2 - mp_central(t, df)
    return mpmath.betainc(df / 2, mpmath.mpf(1) / 2, 0, df / (df + t * t), regularized=True) / 2


def mp_ppf(p: float, df: float) -> mpmath.mpf:
    """The quantile by root finding (on the central mass for 1/4 <= p <= 3/4), started from scipy's value."""
    p = mpmath.mpf(p)
    q = 1 - p if p > 0.5 else p
    start = mpmath.mpf(abs(float(special.stdtrit(df, float(p)))))
    if q >= 0.25:
        t = mpmath.findroot(lambda t: mp_central(t, df) - (mpmath.mpf(1) / 2 - q), start)
    else:
        t = mpmath.findroot(lambda t: mp_sf(t, df) - q, start)
    return abs(t) if p > 0.5 else -abs(t)  # the functions are odd in t: a root may come out with either sign


dfs = st.one_of(st.integers(1, 60), st.integers(61, 1_000_000), st.floats(1.0, 10_000.0))
# p from just above 1/2 to 1 - 1e-12, and the mirror below 1/2; both kinds are exact inputs
upper_p = st.floats(0.5, 1 - 1e-12, exclude_min=True)
ps = st.one_of(upper_p, upper_p.map(lambda p: 1.0 - p))


@settings(max_examples=150, deadline=None)
@given(p=ps, df=dfs)
def test_quantile_equals_40_digit_mpmath(p, df):
    mine = t_ppf(p, df)
    assert mine == pytest.approx(float(mp_ppf(p, df)), rel=1e-13, abs=0)


@settings(max_examples=150, deadline=None)
@given(t=st.floats(0.0, 1e6), df=dfs)
def test_upper_tail_equals_40_digit_mpmath_and_scipy(t, df):
    exact = mp_sf(t, df)
    ref = float(exact)
    if ref > 1e-100:
        assert t_sf(t, df) == pytest.approx(ref, rel=1e-13)
    elif ref > 1e-290:  # log P(T > t) is then below -230, and its last digits carry the relative error
        assert math.log(t_sf(t, df)) == pytest.approx(float(mpmath.log(exact)), rel=1e-15)
    else:  # at the edge of double precision and beyond
        assert t_sf(t, df) <= 1e-280
    assert t_sf(t, df) == pytest.approx(float(special.stdtr(df, -t)), rel=1e-11, abs=1e-280)
    assert t_sf(-t, df) == pytest.approx(1.0 - ref, rel=1e-14)


@settings(max_examples=100, deadline=None)
@given(t=st.floats(-1e4, 1e4), df=dfs)
def test_density_equals_mpmath(t, df):
    x, v = mpmath.mpf(t), mpmath.mpf(df)
    ref = mpmath.gamma((v + 1) / 2) / (mpmath.sqrt(v * mpmath.pi) * mpmath.gamma(v / 2)) * (1 + x * x / v) ** (-(v + 1) / 2)
    assert t_pdf(t, df) == pytest.approx(float(ref), rel=1e-13, abs=1e-300)


@settings(max_examples=100, deadline=None)
@given(p=st.floats(0.5, 1 - 1e-9, exclude_min=True), df=dfs)
def test_quantile_equals_scipy_away_from_one_half(p, df):
    # scipy's stdtrit loses relative precision for p within about 1e-4 of 1/2 (it returned
    # 2.6656e-7 for p = 0.5000001 with 4 degrees of freedom, where mpmath gives 2.6667e-7)
    if p - 0.5 > 1e-3:
        assert t_ppf(p, df) == pytest.approx(float(special.stdtrit(df, p)), rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(p=upper_p, df=dfs)
def test_quantile_properties(p, df):
    t = t_ppf(p, df)
    assert t > 0
    assert t_ppf(1.0 - p, df) == -t  # 1 - p is exact for p >= 1/2: the mirror is the same computation
    assert t_sf(t, df) == pytest.approx(1.0 - p, rel=1e-12)  # it inverts the tail
    assert t >= NormalDist().inv_cdf(p) * (1 - 1e-14)  # heavier tails than the normal
    assert t_ppf(p, df + 1) <= t * (1 + 1e-14)  # and lighter with more degrees of freedom


def test_printed_table_values():
    # Critical values t(0.975, df) and t(0.995, df) as printed, to three decimals, in the
    # NIST/SEMATECH e-Handbook of Statistical Methods, section 1.3.6.7.2
    assert round(t_ppf(0.975, 1), 3) == 12.706
    assert round(t_ppf(0.975, 7), 3) == 2.365
    assert round(t_ppf(0.975, 30), 3) == 2.042
    assert round(t_ppf(0.995, 10), 3) == 3.169
    assert round(t_ppf(0.975, 100), 3) == 1.984


def test_closed_forms():
    # 1 degree of freedom is the Cauchy distribution: quantile tan(pi (p - 1/2)) = 1 / tan(pi (1 - p));
    # 2 degrees of freedom: quantile (2p - 1) / sqrt(2 p (1 - p))
    for p in (0.6, 0.75, 0.9, 0.975, 0.999):
        assert t_ppf(p, 1) == pytest.approx(1 / math.tan(math.pi * (1 - p)), rel=1e-14)
        assert t_ppf(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-14)
    assert t_sf(1.0, 1) == pytest.approx(0.25, rel=1e-15)  # 1/2 - atan(1)/pi


def test_edges():
    assert t_ppf(0.5, 4) == 0.0
    assert t_ppf(1.0, 4) == math.inf and t_ppf(0.0, 4) == -math.inf
    assert math.isnan(t_ppf(1.5, 4)) and math.isnan(t_sf(math.nan, 4))
    assert t_sf(math.inf, 3) == 0.0 and t_sf(-math.inf, 3) == 1.0 and t_sf(0.0, 3) == 0.5
    assert t_ppf(1e-300, 1) == pytest.approx(-1 / (math.pi * 1e-300), rel=1e-12)  # far tail: -1/(pi p)
    # far tails where log P(T > t) is large: the step stops at the precision the tail allows
    for q, df in ((1e-100, 1.76), (1e-200, 3), (1e-30, 50)):
        assert float(mp_sf(-t_ppf(q, df), df)) == pytest.approx(q, rel=1e-11)
    for bad in (0, -1, 0.5, 2e12, math.inf, math.nan):
        with pytest.raises(ValueError, match="degrees of freedom"):
            t_ppf(0.9, bad)
