"""The within-item permutation test of the value labels against brute-force enumeration of every reassignment."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from probestats.stats.permutation import within_item_permutation_test


def brute_force(items, alternative):
    """Every reassignment of each item's units (k of its m to side a), the average gap of each, and the
    share at least as extreme as the observed one: the definition of the exact p, enumerated."""
    per_item = []
    for a, b in items:
        units = [*a, *b]
        k, m = len(a), len(units)
        gaps = []
        for chosen in itertools.combinations(range(m), k):
            sa = sum(units[i] for i in chosen)
            gaps.append(sa / k - (sum(units) - sa) / (m - k))
        per_item.append(gaps)
    observed = sum(sum(a) / len(a) - sum(b) / len(b) for a, b in items) / len(items)
    tol = 1e-9
    total = hits = 0
    for combo in itertools.product(*per_item):
        t = sum(combo) / len(items)
        total += 1
        if alternative == "greater":
            hits += t >= observed - tol
        elif alternative == "less":
            hits += t <= observed + tol
        else:
            hits += abs(t) >= abs(observed) - tol
    return hits / total, observed


def random_items(rng, shapes, values):
    return [(list(rng.choice(values, size=k)), list(rng.choice(values, size=r))) for k, r in shapes]


@pytest.mark.parametrize("shapes", [[(1, 3)] * 6, [(2, 3)] * 5, [(1, 8)] * 4, [(1, 2), (2, 3), (3, 1), (1, 1), (2, 2)]])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_exact_p_is_the_enumerated_share(shapes, alternative):
    rng = np.random.default_rng(len(shapes) * 7 + len(alternative))
    for values in ([0.0, 1.0], [1.0, 2.0, 3.0, 5.0], [0.25, 1.5, 2.0, 4.75]):
        items = random_items(rng, shapes, values)
        want, observed = brute_force(items, alternative)
        got = within_item_permutation_test(items, alternative=alternative)
        assert got.kind == "exact"
        assert got.statistic == pytest.approx(observed)
        assert got.pvalue == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_monte_carlo_is_near_the_enumerated_p_and_says_so():
    rng = np.random.default_rng(3)
    items = random_items(rng, [(1, 3), (2, 2), (1, 4), (3, 2), (1, 2)], [0.1, 0.35, 0.7, 1.0])
    want, _ = brute_force(items, "two-sided")
    got = within_item_permutation_test(items, max_support=1, n_resamples=20_000, seed=1)
    assert got.kind == "monte-carlo" and "monte carlo" in got.method and "99% interval" in got.method
    lo, hi = got.pvalue_bounds
    assert lo <= want <= hi
    assert abs(got.pvalue - want) < 4 * got.pvalue_se + 1 / 20_001


def test_floats_off_a_decimal_lattice_go_to_monte_carlo():
    items = [([math.pi], [1.0, 2.0]), ([math.e], [0.5, 0.25])]
    got = within_item_permutation_test(items, n_resamples=2_000)
    want, _ = brute_force(items, "two-sided")
    assert got.kind == "monte-carlo" and got.pvalue_bounds[0] <= want <= got.pvalue_bounds[1]


def test_equal_arms_with_one_run_each_match_the_sign_flip_test():
    """One run against one: reassigning the two runs is flipping the gap's sign, so the p is the sign-flip p."""
    from probestats.stats.hypotests import sign_flip_test

    rng = np.random.default_rng(5)
    items = random_items(rng, [(1, 1)] * 12, [0.0, 1.0, 2.0, 3.0])
    gaps = [a[0] - b[0] for a, b in items]
    assert within_item_permutation_test(items).pvalue == pytest.approx(sign_flip_test(gaps).pvalue, rel=1e-9)


def test_bad_items_are_refused():
    with pytest.raises(ValueError, match="at least one unit"):
        within_item_permutation_test([([1.0], [])])
    with pytest.raises(ValueError, match="alternative"):
        within_item_permutation_test([([1.0], [2.0])], alternative="up")
