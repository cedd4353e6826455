"""Exact means (probestats.stats.exact): each checked against exact rational arithmetic in Python."""

import math
from fractions import Fraction

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probestats.analyses.items import item_table, items_of
from probestats.checks.schema import validate
from probestats.stats.exact import cell_means, exact_mean


def fraction_mean(xs):
    """statistics.fmean on exact rationals: the mean of the binary floats, rounded once."""
    return float(sum(map(Fraction, xs)) / len(xs))


def reference_mean(xs):
    """The documented rule written out with rationals only: when every value is the float nearest a
    decimal with at most 6 places, the mean of those decimals; else the mean of the binary floats."""
    decimals = []
    for x in xs:
        for p in range(7):
            whole = round(Fraction(x) * 10**p)  # the nearest whole number of 10^-p
            if float(Fraction(whole, 10**p)) == x:
                decimals.append(Fraction(whole, 10**p))
                break
        else:
            return fraction_mean(xs)
    return float(sum(decimals) / len(decimals))


def is_short_decimal(x):
    return any(float(Fraction(round(Fraction(x) * 10**p), 10**p)) == x for p in range(7))


# floats of every shape: short decimals, near-integers one or a few ulps off, long reprs,
# mixed magnitudes from subnormal to huge, negative zero
_near_integer = st.tuples(st.integers(-10**6, 10**6), st.integers(-3, 3)).map(
    lambda t: float(t[0]) + t[1] * math.ulp(float(t[0])))
_short_decimal = st.tuples(st.integers(-10**7, 10**7), st.integers(0, 6)).map(lambda t: float(Fraction(t[0], 10**t[1])))
_any_float = st.one_of(
    _short_decimal,
    _near_integer,
    st.floats(-1e3, 1e3, allow_nan=False),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 1e308, -1e308, 1.7976931348623157e308, 5e-324, 1e-300, 113.99999999999989, 1 / 3]),
)


def test_the_reported_case_is_the_mean_of_the_values_as_written():
    # 113.99999999999989 + 1 = 114.99999999999989 (exact in binary: 114.99999999999988631316227838397026062011718750),
    # half of it is 57.499999999999943156581139191985130310058593750 = the float written 57.49999999999994
    assert exact_mean([113.99999999999989, 1.0]) == 57.49999999999994
    assert Fraction(57.49999999999994) == (Fraction(113.99999999999989) + 1) / 2
    rows = [{"item": "1", "variant": "a", "steps": 113.99999999999989}, {"item": "1", "variant": "a", "steps": 1.0},
            {"item": "1", "variant": "b", "steps": 1.0}]
    assert item_table(pl.DataFrame(rows), "steps", "a", "b")["mean_a"].to_list() == [57.49999999999994]
    assert items_of(validate(rows, metric="steps"))["mean_a"].to_list() == [57.49999999999994]


def test_huge_runs_do_not_overflow():
    # two runs of 1e308 sum to 2e308, beyond the largest float; their mean is 1e308
    assert exact_mean([1e308, 1e308]) == 1e308
    assert exact_mean([1.7976931348623157e308] * 3) == 1.7976931348623157e308  # the largest float, thrice
    rows = [{"item": i, "variant": v, "steps": 1e308 if v == "a" else 1.0} for i in ("1", "2") for v in "aabb"]
    checked = validate(rows, metric="steps")
    for table in (items_of(checked), item_table(checked.frame, "steps", "a", "b")):
        assert table["mean_a"].to_list() == [1e308, 1e308] and table["mean_b"].to_list() == [1.0, 1.0]


def test_short_decimals_average_as_written():
    # 0.1 and 0.2 as written average to 0.15; the binary floats nearest them average to just above
    # 0.15 (0.15000000000000000832667...), which rounds to 0.15000000000000002
    assert exact_mean([0.1, 0.2]) == 0.15 and fraction_mean([0.1, 0.2]) == 0.15000000000000002
    assert exact_mean([3, 4]) == 3.5 and exact_mean([2**60 + 1, 2**60 + 3]) == float(2**60 + 2)


def test_an_empty_list_has_no_mean():
    with pytest.raises(ValueError, match="values"):
        exact_mean([])


@settings(max_examples=500, deadline=None)
@given(st.lists(_any_float, min_size=1, max_size=12))
def test_exact_mean_is_the_rational_mean_rounded_once(xs):
    got = exact_mean(xs)
    assert got == reference_mean(xs)
    if not all(map(is_short_decimal, xs)):  # no short-decimal reading: the binary mean, as statistics gives it on rationals
        assert got == fraction_mean(xs)
    assert exact_mean(list(reversed(xs))) == got


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["i1", "i2", "i3"]), st.sampled_from(["a", "b"]), _any_float),
                min_size=1, max_size=40))
def test_every_cell_of_a_frame_has_the_exact_mean_of_its_runs(runs):
    # the vectorized path (one pass of sums, Python for the rest) against the rule cell by cell
    rows = pl.DataFrame(runs, schema=["item", "variant", "steps"], orient="row")
    got = {(r["item"], r["variant"]): r["mean"] for r in cell_means(rows, ["item", "variant"], "steps").iter_rows(named=True)}
    cells = {}
    for item, value, x in runs:
        cells.setdefault((item, value), []).append(x)
    assert got == {key: reference_mean(xs) for key, xs in cells.items()}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["i1", "i2"]), _any_float), min_size=1, max_size=20), st.booleans())
def test_item_table_and_validation_give_the_exact_means(runs, integers):
    # through both ways the analysis builds the item table; every item gets one run of 1 under each
    # value so the log is matched; whole-number logs take their own fast path
    if integers:
        runs = [(i, float(round(x) % 1000)) for i, x in runs if math.isfinite(round(x) % 1000)]
    rows = [{"item": i, "variant": "a", "steps": x} for i, x in runs]
    rows += [{"item": i, "variant": v, "steps": 1.0} for i in dict.fromkeys(i for i, _ in runs) for v in "ab"]
    checked = validate(rows, metric="steps")
    assert checked.ok, checked.errors
    for table in (items_of(checked), item_table(checked.frame, "steps", checked.a, checked.b)):
        for row in table.iter_rows(named=True):
            xs = [r["steps"] for r in rows if r["item"] == row["item"] and r["variant"] == "a"]
            assert row["mean_a"] == reference_mean(xs)


def test_whole_numbers_beyond_two_to_the_53_are_averaged_as_integers():
    # 2**53 + 1 and 2**53 + 2 average to 2**53 + 1.5, nearest float 2**53 + 2; read as floats first they
    # would be 2**53 and 2**53 + 2, whose mean 2**53 + 1 rounds (to even) to 2**53
    rows = pl.DataFrame({"item": ["1", "1"], "steps": [2**53 + 1, 2**53 + 2]})
    assert cell_means(rows, ["item"], "steps")["mean"].to_list() == [float(2**53 + 2)]
    assert exact_mean([2**53 + 1, 2**53 + 2]) == float(2**53 + 2)
