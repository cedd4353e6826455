"""Monte Carlo draws over items go over them in an order of their numbers: the same log in another row order, or
with its items renamed (which reorders them), gives the same p and the same interval ends, to the bit.

Each check draws a Monte Carlo path (forced, or past the exact range) on data in one order and in a shuffled
one; while the draws went over the items in the log's order, every one of them moved with it (the omnibus p of the
first case was 0.253 in one order and 0.236 to 0.243 in three others; the sign-flip p 0.012 and 0.0065 to 0.011),
as the blocks' tests did in the invariance property."""

import numpy as np
import pytest

from probestats.analyses.clusters import cluster_bootstrap
from probestats.analyses.factors_many_levels import permutation_test
from probestats.analyses.omnibus import omnibus_test
from probestats.stats.agreement import fleiss_kappa
from probestats.stats.contingency import permutation_table_test
from probestats.stats.family import joint_sign_flip
from probestats.stats.hypotests import gap_interval, sign_flip_test
from probestats.stats.permutation import within_item_permutation_test

SHUFFLES = [1, 2, 3]


def _perm(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).permutation(n)


@pytest.mark.parametrize("shuffle", SHUFFLES)
def test_the_omnibus_of_many_values_draws_alike_in_any_row_and_column_order(shuffle):
    m = np.random.default_rng(0).integers(0, 5, (15, 4)).astype(float)
    m[:, 0] += 1.0
    before = omnibus_test(m, method="monte-carlo", n_resamples=999, seed=0)
    after = omnibus_test(m[_perm(15, shuffle)][:, _perm(4, shuffle)], method="monte-carlo", n_resamples=999, seed=0)
    assert before.statistic == pytest.approx(after.statistic, rel=1e-12)   # the same data
    assert after.pvalue == before.pvalue and after.n_resamples == before.n_resamples


@pytest.mark.parametrize("shuffle", SHUFFLES)
def test_sign_flips_and_their_interval_draw_alike_in_any_order(shuffle):
    g = np.round(np.random.default_rng(1).normal(0.4, 1.0, 40), 2)
    h = g[_perm(40, shuffle)]
    one, two = (sign_flip_test(x, method="monte-carlo", n_resamples=2000, seed=0) for x in (g, h))
    assert one.pvalue == two.pvalue
    for method in ("sign-flip", "bootstrap", "percentile"):
        a, b = (gap_interval(x, method=method, n_resamples=999, seed=0) for x in (g, h))
        assert (a.low, a.high) == (b.low, b.high), method


@pytest.mark.parametrize("shuffle", SHUFFLES)
def test_the_joint_test_and_the_within_item_permutation_draw_alike_in_any_order(shuffle):
    rng = np.random.default_rng(2)
    gaps = np.round(rng.normal(0.3, 1.0, (24, 2)), 2)
    one = joint_sign_flip(gaps, n_resamples=999, seed=0, max_exact=10)
    two = joint_sign_flip(gaps[_perm(24, shuffle)], n_resamples=999, seed=0, max_exact=10)
    assert one.kind == "monte-carlo" and one.adjusted == two.adjusted
    items = [(list(rng.integers(0, 5, 3).astype(float)), list(rng.integers(0, 5, 4).astype(float))) for _ in range(12)]
    moved = [items[k] for k in _perm(12, shuffle)]
    moved = [(a[::-1], b[::-1]) for a, b in moved]   # the runs of each item in another order too
    p1, p2 = (within_item_permutation_test(x, n_resamples=999, seed=0, max_support=1).pvalue for x in (items, moved))
    assert p1 == p2


@pytest.mark.parametrize("shuffle", SHUFFLES)
def test_the_matched_table_test_draws_alike_in_any_row_order_and_block_names(shuffle):
    rng = np.random.default_rng(3)
    blocks = np.repeat(np.arange(10), 6)
    values = np.tile([0, 0, 0, 1, 1, 1], 10)
    levels = rng.integers(0, 3, 60)
    order, names = _perm(60, shuffle), _perm(10, shuffle + 10)   # rows shuffled, blocks renamed
    one = permutation_table_test(values, levels, blocks, n_resamples=999, seed=0, max_states=1)
    two = permutation_table_test(values[order], levels[order], names[blocks][order], n_resamples=999, seed=0,
                                 max_states=1)
    assert one.method == "monte carlo" and one.pvalue == two.pvalue


@pytest.mark.parametrize("shuffle", SHUFFLES)
def test_bootstraps_over_items_and_clusters_draw_alike_in_any_order(shuffle):
    rng = np.random.default_rng(4)
    ratings = rng.integers(0, 3, (30, 4))
    one, two = (fleiss_kappa(r.tolist(), n_resamples=999, seed=0) for r in (ratings, ratings[_perm(30, shuffle)]))
    assert (one.low, one.high) == (two.low, two.high)
    moments = np.column_stack([np.round(rng.normal(1.0, 1.0, 12), 2), rng.integers(1, 5, 12)]).astype(float)

    def ratio(r):
        return r[..., 0] / r[..., 1]
    a = cluster_bootstrap(moments, ratio, n_resamples=999, seed=0)
    b = cluster_bootstrap(moments[_perm(12, shuffle)], ratio, n_resamples=999, seed=0)
    assert a[1:] == pytest.approx(b[1:], rel=1e-12) and a[1:] == b[1:]


@pytest.mark.parametrize("shuffle", SHUFFLES)
def test_a_factors_permutation_test_draws_alike_in_any_item_and_level_order(shuffle):
    t = np.random.default_rng(5).integers(0, 4, (12, 4, 1)).astype(float)
    one = permutation_test(t, n_resamples=999, seed=0, max_exact=1)
    two = permutation_test(t[_perm(12, shuffle)][:, _perm(4, shuffle)], n_resamples=999, seed=0, max_exact=1)
    assert one[1] == two[1] and "monte carlo" in one[2]
