"""Selection rates and impact ratios, with the four-fifths line as a reference point."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probestats.errors import OptionError
from probestats.stats.selection import NOTE, THRESHOLD, impact_ratios, is_selection


def test_hand_calculation():
    # rates 0.30, 0.24, 0.12: ratios 1, 0.24/0.30 = 0.8 (on the line, not below), 0.12/0.30 = 0.4
    out = impact_ratios({"A": 0.30, "B": 0.24, "C": 0.12})
    assert [r.value for r in out] == ["A", "B", "C"]
    assert [r.ratio for r in out] == pytest.approx([1.0, 0.8, 0.4])
    assert [r.below_four_fifths for r in out] == [False, False, True]
    assert out[2].to_dict() == {"value": "C", "rate": 0.12, "ratio": pytest.approx(0.4), "below_four_fifths": True,
                                "method": "pooled: selected runs over all runs of the value", "mean_of_items": None}


def test_a_ratio_of_exactly_four_fifths_is_on_the_line_after_rounding():
    # 0.74 / 0.925 = 4/5 exactly (74 * 5 = 370 = 4 * 92.5), but the float quotient is 0.7999999999999999
    assert 0.74 / 0.925 < 0.8
    out = impact_ratios({"A": 0.925, "B": 0.74, "C": 0.7399})
    assert [r.below_four_fifths for r in out] == [False, False, True]


def test_wording_is_a_reference_not_a_verdict():
    assert THRESHOLD == 0.8
    assert NOTE == ("below 0.8, the four-fifths reference used in US employment guidance; "
                    "a ratio is not a finding of discrimination by itself")


def test_nobody_selected_and_bad_rates():
    assert [r.ratio for r in impact_ratios({"A": 0.0, "B": 0.0})] == [None, None]
    assert not any(r.below_four_fifths for r in impact_ratios({"A": 0.0, "B": 0.0}))
    with pytest.raises(OptionError, match="rates lie between 0 and 1"):
        impact_ratios({"A": 1.5})


def test_is_selection():
    assert is_selection(pl.Series([0, 1, 1, None]))
    assert is_selection([1.0, 1.0])
    assert not is_selection([0, 1, 2])
    assert not is_selection([0.5])
    assert not is_selection(pl.Series([None], dtype=pl.Float64))


rates = st.dictionaries(st.text("abcdef", min_size=1, max_size=3), st.one_of(st.just(0.0), st.floats(1e-6, 1)), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(rates, st.floats(0.01, 1.0))
def test_properties(r, scale):
    out = impact_ratios(r)
    if max(r.values()) == 0:
        assert all(x.ratio is None for x in out)
        return
    ratios = [x.ratio for x in out]
    assert all(0 <= x <= 1 for x in ratios) and max(ratios) == 1.0
    # order of rates is kept, and ratios do not change when every rate is scaled alike
    for (k, v), x in zip(r.items(), out):
        assert x.value == k and x.rate == v and x.below_four_fifths == (x.ratio < 0.8)
    scaled = impact_ratios({k: v * scale for k, v in r.items()})
    assert [x.ratio for x in scaled] == pytest.approx(ratios, abs=1e-9)


def test_selection_rates_are_pooled_with_the_mean_of_item_rates_beside_them():
    from probestats import analyze
    from probestats.shape.design import Design

    # value x: item 1 selected in 1 of 1 run, item 2 in 1 of 4: pooled 2/5 = 0.4, mean of item rates 0.625
    # value y: item 1 in 0 of 2, item 2 in 2 of 2: pooled 2/4 = 0.5 (= the mean of item rates, 0.5)
    # value z: 1 of 2 in each item: 0.5 both ways
    rows = ([{"item": 1, "variant": "x", "sel": 1}] + [{"item": 2, "variant": "x", "sel": s} for s in (1, 0, 0, 0)]
            + [{"item": 1, "variant": "y", "sel": 0}] * 2 + [{"item": 2, "variant": "y", "sel": 1}] * 2
            + [{"item": i, "variant": "z", "sel": s} for i in (1, 2) for s in (0, 1)])
    assert analyze(rows, metric="sel", reference="x").main.impact_ratios is None   # 0/1 is not said to be a selection
    result = analyze(rows, metric="sel", reference="x", design=Design(selection=True))
    ratios = {r.value: r for r in result.main.impact_ratios}
    assert ratios["x"].rate == 0.4 and ratios["x"].mean_of_items == 0.625
    assert ratios["y"].rate == 0.5 and ratios["y"].mean_of_items is None
    assert ratios["x"].ratio == pytest.approx(0.4 / 0.5) and ratios["x"].method.startswith("pooled")
