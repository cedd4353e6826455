"""The columns' exact mean and SD (probestats.stats.exact.moments) against the rule by hand:
the correctly rounded quotient of exact rationals (fractions.Fraction), row by row."""

from __future__ import annotations

import math
from fractions import Fraction

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from probestats.stats.exact import mean_sd, moments


def _by_hand(values: list[int], places: int) -> tuple[float | None, float | None]:
    n = len(values)
    if n == 0:
        return None, None
    mean = Fraction(sum(values), n * 10**places)
    if n < 2:
        return float(mean), None
    var = Fraction(n * sum(v * v for v in values) - sum(values) ** 2, n * (n - 1) * 10 ** (2 * places))
    return float(mean), math.sqrt(float(var))   # float(Fraction) rounds correctly, as sqrt does


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(-(10**6), 10**6), max_size=12), min_size=1, max_size=8),
       st.integers(0, 4), st.sampled_from([1, 10**6, 2**40]))
def test_moments_are_the_rule_row_by_row(cells, places, stretch):
    # stretch: the same cells in larger units, so both the columns at once and the row by row path run
    cells = [[v * stretch for v in c] for c in cells]
    n = pl.Series([len(c) for c in cells], dtype=pl.UInt32)
    s = pl.Series([sum(c) for c in cells], dtype=pl.Int128)
    q = pl.Series([sum(v * v for v in c) for c in cells], dtype=pl.Int128)
    mean, sd = moments(n, s, q, places)
    want = [_by_hand(c, places) for c in cells]
    assert mean.to_list() == [m for m, _ in want]
    assert sd.to_list() == [d for _, d in want]
    assert list(zip(mean.to_list(), sd.to_list())) == [
        mean_sd(len(c), sum(c), sum(v * v for v in c), places) if c else (None, None) for c in cells]


def test_moments_of_a_null_count_are_null():
    mean, sd = moments(pl.Series([None, 2], dtype=pl.Int64), pl.Series([None, 3], dtype=pl.Int128),
                       pl.Series([None, 5], dtype=pl.Int128), 1)
    # 0.1 and 0.2: mean 0.15, sd sqrt(0.005)
    assert mean.to_list() == [None, 3 / 20] and sd.to_list() == [None, math.sqrt(1 / 200)]
