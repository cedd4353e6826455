"""The sign-flip interval holds exactly the shifts its test keeps (issue 36, deliver 2).

Each check sets the interval beside the test itself (sign_flip_test on the shifted gaps, decided at
alpha): 0 is inside the interval if and only if the headline p is above alpha, and so is every shift
of a grid. The judge study's shape (255 gaps, 240 of them 0) is checked against a brute-force
enumeration of the 2**15 sign patterns of its non-zero gaps.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
from hypothesis import given, settings, strategies as st

from probestats.stats.hypotests import gap_interval, sign_flip_test
from probestats.stats.inversion import SignLaw

ALPHA = 0.05


def _kept(g: np.ndarray, shift: float) -> bool:
    return sign_flip_test(g - shift, alpha=ALPHA).pvalue > ALPHA


def _brute_p(gaps) -> float:
    """Two-sided sign-flip p by visiting every sign pattern, in exact fractions."""
    g = [Fraction(x).limit_denominator(1000) for x in gaps]
    s = abs(sum(g))
    hits = sum(abs(sum(si * gi for si, gi in zip(signs, g))) >= s for signs in itertools.product((1, -1), repeat=len(g)))
    return hits / 2 ** len(g)


def test_the_judge_studys_shape_holds_0_as_its_test_does():
    # 255 item gaps (means over 10 runs), 240 exactly 0, 11 of the 15 others negative: the magnitudes were
    # chosen so that the exact p is the 0.1185 = 3884 / 2**15
    nonzero = [x / 10 for x in (-6, -6, -6, -6, -4, -3, -3, -2, -2, -1, -1, 1, 2, 5, 6)]
    gaps = np.array([0.0] * 240 + nonzero)
    brute = _brute_p(nonzero)   # the 240 zero gaps add nothing to any pattern's sum
    assert brute == 3884 / 2**15
    test = sign_flip_test(gaps)
    assert test.pvalue == brute and round(test.pvalue, 4) == 0.1185
    iv = gap_interval(gaps, method="sign-flip")
    assert iv.low < 0.0 <= iv.high and "exact at every shift" in iv.method
    # the ends are kept by the test and a shift a step of the lattice beyond each is not
    assert _kept(gaps, iv.low) and _kept(gaps, iv.high)
    assert not _kept(gaps, iv.low - 1 / 400) and not _kept(gaps, iv.high + 1 / 400)


def test_an_end_at_a_jump_of_p_is_kept_exactly():
    # 20 zero gaps and 3 non-zero: p jumps at the shift 0 (every zero gap stops tying); 0 is kept
    gaps = np.array([0.0] * 20 + [-0.3, -0.2, 0.1])
    p0 = sign_flip_test(gaps).pvalue
    assert p0 == _brute_p([-0.3, -0.2, 0.1]) == 0.5   # |sum| >= 0.4 for 4 of the 8 patterns of 3, 2, 1
    iv = gap_interval(gaps, method="sign-flip")
    assert iv.low <= 0.0 <= iv.high


def test_the_joint_law_gives_the_tests_p_at_every_shift():
    # the law of (sum, signs) against the sign-flip test run on the shifted gaps, shift by shift
    m = np.array([0, 0, 0, 1, 1, -2, 3, 0, -1, 2])
    law = SignLaw.build(m, 4)
    g = m / 4
    for num in range(-12, 13):
        shift = num / 16
        assert abs(law.pvalue_at(num, 4) - sign_flip_test(g - shift).pvalue) < 1e-12


@settings(max_examples=40, deadline=None)
@given(zeros=st.integers(0, 30), nonzero=st.lists(st.integers(-4, 4).filter(bool), min_size=1, max_size=8),
       step=st.sampled_from([1, 2, 10]), spread=st.booleans())
def test_the_interval_holds_exactly_the_shifts_the_test_keeps(zeros, nonzero, step, spread):
    # many zero gaps, ties and few non-zero gaps, on a lattice (means over 1, 2 or 10 runs)
    gaps = np.array([0.0] * zeros + [x / step for x in nonzero] + ([1 / step, -2 / step] if spread else []))
    iv = gap_interval(gaps, method="sign-flip", confidence=1 - ALPHA)
    p0 = sign_flip_test(gaps, alpha=ALPHA).pvalue
    assert (iv.low <= 0.0 <= iv.high) == (p0 > ALPHA)
    # a grid of shifts on a lattice four times finer than the gaps', across the interval and beyond
    lo = max(iv.low, gaps.min() - 1.0) if np.isfinite(iv.low) else gaps.min() - 1.0
    hi = min(iv.high, gaps.max() + 1.0) if np.isfinite(iv.high) else gaps.max() + 1.0
    for j in range(int(np.floor(lo * 4 * step)) - 3, int(np.ceil(hi * 4 * step)) + 4):
        shift = j / (4 * step)
        assert (iv.low <= shift <= iv.high) == _kept(gaps, shift), (shift, iv)
