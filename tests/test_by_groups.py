"""Many ``--by`` groups computed together give every group's figures as the group analysed alone, to the bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from probestats.stats.distributions import NCT_OWEN_MAX_DF, nct_cdf
from probestats.stats.effects import noncentrality_interval
from probestats.stats.nct_many import nct_cdf_many, noncentrality_intervals


@pytest.mark.parametrize("df", [1, 2, 3, 4, 7, 19, 20, 63, NCT_OWEN_MAX_DF])
def test_nct_cdf_many_within_its_bound_of_the_scalar_function(df):
    """The arrays' distribution function differs from the one-at-a-time one by less than the bound it states
    (the bound is what lets the bisection read a sign from the arrays), far into both tails."""
    rng = np.random.default_rng(df)
    nc = rng.normal(size=2_000) * 8
    t = rng.normal(size=2_000) * np.exp(rng.normal(size=2_000) * 1.5)
    value, bound = nct_cdf_many(df, nc, t)
    alone = np.array([nct_cdf(df, x, y) for x, y in zip(nc, t)])
    assert np.isfinite(bound).all()
    assert (np.abs(value - alone) <= bound).all()
    assert bound.max() < 1e-11   # tight enough to read all but the last halvings from the arrays


def test_noncentrality_intervals_as_one_at_a_time():
    """The same floats as noncentrality_interval, statistic by statistic: whole df in and out of Owen's form,
    t of 0, tiny and far out, three confidence levels."""
    rng = np.random.default_rng(4)
    t = np.concatenate([rng.normal(size=120) * 3, [0.0, 1e-300, -1e-300, 25.0, -25.0, 0.5, 0.5]])
    df = rng.choice([1, 2, 3, 5, 9, 19, 20, 48, NCT_OWEN_MAX_DF, NCT_OWEN_MAX_DF + 30], size=t.size)
    for confidence in (0.8, 0.95, 0.99):
        lo, hi = noncentrality_intervals(t, df, confidence)
        for x, d, a, b in zip(t, df, lo, hi):
            assert (float(a), float(b)) == noncentrality_interval(float(x), int(d), confidence)


def test_noncentrality_intervals_refuse_an_infinite_statistic():
    with pytest.raises(ValueError, match="finite"):
        noncentrality_intervals(np.array([math.inf]), np.array([9]))


def by_log(seed: int = 0):
    """Groups of unequal sizes (2 to 23 items), scores on a coarse grid (ties in the gaps), one group whose every
    run gives 1, one whose value 'a' gives 0 in every run, a group of one item, and runs missing here and there
    (an item with one run fewer under a value, a cell of a single run)."""
    import polars as pl

    rng = np.random.default_rng(seed)
    rows = []
    for g, size in enumerate([7, 3, 12, 23, 2, 9, 5, 1, 16]):
        for i in range(size):
            base = rng.normal() * 2
            for v in ("a", "b"):
                for s in range(1, 5):
                    if g == 2 and i % 4 == 1 and v == "b" and s == 4:
                        continue   # a run missing
                    if g == 5 and i == 0 and s > 1:
                        continue   # a cell of one run under each value
                    y = base + (0.8 if v == "a" and g % 3 == 0 else 0.0) + rng.normal()
                    y = 1.0 if g == 4 else 0.0 if g == 6 and v == "a" else round(y * 2) / 2
                    rows.append({"group": f"g{g}", "item": f"{g}-{i}", "variant": v, "seed": s, "score": y})
    return pl.DataFrame(rows)


def test_by_groups_as_each_group_analysed_alone():
    """Every group's figures from the --by path (one d_av bootstrap matrix for all, the d_z intervals inverted
    side by side, the item tables partitioned at once) are those of the group's rows analysed alone: its
    sign-flip and sign tests, interval, effect sizes with their intervals, published tests, to the bit."""
    import polars as pl

    from probestats import validate
    from probestats.analyses.items import items_of
    from probestats.analyses.pair_tests import compare_pair
    from probestats.errors import ProbestatsError
    from probestats.vocabulary import Tests
    from tests.engines import analyze

    frame = by_log()
    together = analyze(frame, metric="score", by=["group"], a="a", b="b", n_resamples=1_999)
    names = frame["group"].unique(maintain_order=True).to_list()
    assert [g.by for g in together.groups] == [{"group": n} for n in names]
    alone_paths = 0
    for name, group in zip(names, together.groups):
        rows = frame.filter(pl.col("group") == name)
        try:
            alone = analyze(rows, metric="score", a="a", b="b", n_resamples=1_999).main
            alone_paths += 1
        except ProbestatsError:   # a log of one item, or of one number, is refused whole: its table alone
            alone = compare_pair(items_of(validate(rows, metric="score", a="a", b="b")), "score", "a", "b",
                                 Tests(n_resamples=1_999))
        mine = group.to_dict()
        mine.pop("by")
        for test in ("sign_flip", "permutation"):
            if test in mine:
                mine[test].pop("p_adjusted", None)
        assert mine == alone.to_dict(), name
    assert alone_paths >= 6
    d = {g.by["group"]: g for g in together.groups}
    assert d["g4"].effects.d_z.value is None and d["g6"].effects.d_z.low is not None   # constant arm, not gaps
    assert d["g7"].n_items == 1 and d["g3"].n_items == 23


