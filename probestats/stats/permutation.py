"""The exact within-item permutation test of the value labels, for arms of unequal size.

Where the two compared values have different numbers of runs within items (1 run against 3), or one
side is a group of several values (one name against the mean of eight), the item gap is not
symmetric about zero under the null, so the sign-flip test, the sign test and Wilcoxon's test lose
their exact level. The null that holds by design is that the value labels are exchangeable within
an item: each item's units (runs, or the cells of a group's names) are reassigned to the two sides
as the design assigned them (``k`` of the item's ``m`` units to side a), every reassignment equally
likely, independently across items. The statistic is the average item gap (mean of side a's units
minus mean of side b's), as everywhere in probestats.

The p is

- **exact** when the units are decimals with at most six places: the distribution of the sum of the
  item gaps is a convolution, on an integer lattice, of each item's distribution of the sum of ``k``
  of its units drawn without replacement (counted by dynamic programming), so nothing is sampled and
  ties are counted exactly (the only error is floating-point rounding of the summed probabilities);
- **Monte Carlo** otherwise, or when the lattice is too large: ``n_resamples`` reassignments drawn
  with ``seed``, p = (1 + hits) / (n_resamples + 1), with its standard error and a 99% Clopper-Pearson
  interval for the exact p stated (``pvalue_bounds``).

Examples
--------
>>> r = within_item_permutation_test([([3.0], [1.0, 2.0, 1.0]), ([2.0], [0.0, 1.0, 0.0])])
>>> round(r.statistic, 4), r.pvalue, r.kind
(1.6667, 0.0625, 'exact')
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

import numpy as np

from probestats.stats.proportion import share
from probestats.stats.hypotests import TestResult

__all__ = ["within_item_permutation_test", "arms_unequal", "PERMUTATION_TEST", "MAX_SUPPORT", "TYPICAL_RUNS_DIFFER",
           "ARM_ASYMMETRY"]

#: the test in words, as reports name it
PERMUTATION_TEST = "the exact within-item permutation of the value labels"
#: the largest lattice (number of attainable sums) the exact path convolves
MAX_SUPPORT = 20_000_000
_MAX_PLACES = 6
#: the relative difference of the two values' typical (median) runs per item from which the arms differ by design
TYPICAL_RUNS_DIFFER = 0.1
#: the skewness of the summed item gaps, per unit of one run's skewness, from which the arms differ however
#: typical the runs (:func:`arm_asymmetry`)
ARM_ASYMMETRY = 0.1
_DP_BUDGET = 50_000_000


def _places(x: float) -> int | None:
    if x == math.floor(x):
        return 0
    for p in range(1, _MAX_PLACES + 1):
        if round(x * 10**p) / 10**p == x:
            return p
    return None


def arm_asymmetry(n_a: Sequence[int], n_b: Sequence[int]) -> float:
    """The skewness of the sum of the item gaps under the null, per unit of one run's skewness, when the runs
    are independent draws of one distribution: ``|Σ (1/k_a² − 1/k_b²)| / (Σ (1/k_a + 1/k_b))^1.5`` over the items'
    runs ``k_a`` and ``k_b``. It is 0 for balanced items, whose gaps are symmetric about zero, and it shrinks
    as items are added.

    >>> round(arm_asymmetry([1] * 8, [3] * 8), 4), arm_asymmetry([5] * 8, [5] * 8)
    (0.2041, 0.0)
    """
    a = np.asarray(n_a, dtype=float)
    b = np.asarray(n_b, dtype=float)
    if not a.size:
        return 0.0
    third = float(np.sum(1 / a**2 - 1 / b**2))
    return abs(third) / float(np.sum(1 / a + 1 / b)) ** 1.5


def arms_unequal(n_a: Sequence[int], n_b: Sequence[int]) -> bool:
    """Whether the two values' runs per item differ by design, so that the item gap is not symmetric about
    zero under the null and the headline is the within-item permutation of the value labels.

    They differ by design when the typical item (the median over items) has different runs under the two
    values, by at least :data:`TYPICAL_RUNS_DIFFER` of the larger (1 run against 3; 324 against 648), or when
    the summed gaps' skewness (:func:`arm_asymmetry`) reaches :data:`ARM_ASYMMETRY`. A run or two missing from a
    balanced design do neither, so they never change which test the verdict rests on; they move p a little.

    >>> arms_unequal([1] * 8, [3] * 8), arms_unequal([100] * 11 + [97], [100] * 12)
    (True, False)
    >>> arms_unequal([2, 2], [2, 1])   # one of two items at half its runs: the gaps are skewed
    True
    """
    a = float(np.median(n_a)) if len(n_a) else 0.0
    b = float(np.median(n_b)) if len(n_b) else 0.0
    if a != b and abs(a - b) >= TYPICAL_RUNS_DIFFER * max(a, b):
        return True
    return arm_asymmetry(n_a, n_b) >= ARM_ASYMMETRY


def _subset_sum_pmf(units: Sequence[int], k: int) -> tuple[int, np.ndarray]:
    """The distribution of the sum of ``k`` of ``units`` drawn without replacement: (smallest sum, pmf)."""
    lo = min(units)
    shifted = [u - lo for u in units]
    top = sum(sorted(shifted)[-k:]) if k else 0
    dp = np.zeros((k + 1, top + 1))
    dp[0, 0] = 1.0
    for i, u in enumerate(shifted):
        for j in range(min(i + 1, k), 0, -1):   # descending: each unit used once
            if u:
                dp[j, u:] += dp[j - 1, :top + 1 - u]
            else:
                dp[j] += dp[j - 1]
    pmf = dp[k] / math.comb(len(units), k)
    return k * lo, pmf


def _shift_add(acc: np.ndarray, kernel: np.ndarray, step: int) -> np.ndarray:
    """The convolution of ``acc`` with ``kernel`` dilated by ``step`` (the kernel's j-th mass at j * step)."""
    out = np.zeros(acc.size + step * (kernel.size - 1))
    for j in np.flatnonzero(kernel):
        out[j * step: j * step + acc.size] += acc * kernel[j]
    return out


def within_item_permutation_test(items: Sequence[tuple[Sequence[float], Sequence[float]]], *,
                                 alternative: str = "two-sided", n_resamples: int = 10_000,
                                 seed: int | None = 0, max_support: int = MAX_SUPPORT) -> TestResult:
    """The within-item permutation test of the value labels (see the module docstring).

    Parameters
    ----------
    items : sequence of (sequence of float, sequence of float)
        Per item, side a's units and side b's units (each side at least one).
    alternative : {"two-sided", "greater", "less"}
        "greater": side a above side b.
    n_resamples, seed : int
        The Monte Carlo reassignments, when the p cannot be exact.
    max_support : int
        The largest lattice the exact path convolves.

    Returns
    -------
    TestResult
        ``statistic`` is the average item gap; ``n`` the number of items.

    Examples
    --------
    One item of 1 run against 3 has 4 equally likely reassignments; the observed gap is the largest:

    >>> within_item_permutation_test([([5.0], [1.0, 2.0, 3.0])], alternative="greater").pvalue
    0.25
    """
    if alternative not in ("two-sided", "greater", "less"):
        raise ValueError(f"alternative must be 'two-sided', 'greater' or 'less', not {alternative!r}")
    items = [(list(map(float, a)), list(map(float, b))) for a, b in items]
    if not items or any(not a or not b for a, b in items):
        raise ValueError("every item needs at least one unit on each side")
    gaps = [sum(a) / len(a) - sum(b) / len(b) for a, b in items]
    observed = sum(gaps) / len(gaps)
    exact = _exact(items, alternative, max_support)
    if exact is not None:
        p, method = exact
        if p <= 0:   # below the float range: say so, as a bound
            return TestResult(statistic=observed, pvalue=5e-324, method=method + "; p below the float range",
                              alternative=alternative, n=len(items), pvalue_bounds=(0.0, 5e-324))
        return TestResult(statistic=observed, pvalue=min(1.0, p), method=method, alternative=alternative,
                          n=len(items))
    return _monte_carlo(items, observed, alternative, n_resamples, seed)


def _exact(items, alternative: str, max_support: int):
    values = [x for a, b in items for x in (*a, *b)]
    places = [_places(x) for x in values]
    if any(p is None for p in places):
        return None
    scale = 10 ** max(places)
    cached: dict = {}
    parts = []   # per item: (weight numerator m, k, m - k, smallest sum, pmf, total, observed sum)
    for a, b in items:
        units = [round(Fraction(x) * scale) for x in (*a, *b)]
        k, m = len(a), len(a) + len(b)
        key = (tuple(sorted(units)), k)
        if key not in cached:
            if m * k * (k * (max(units) - min(units)) + 1) > _DP_BUDGET:
                return None
            cached[key] = _subset_sum_pmf(key[0], k)
        lo, pmf = cached[key]
        parts.append((m, k, m - k, lo, pmf, sum(units), sum(units[:k])))
    # L * gap_i = W_i * S_i - L * T_i / (m - k), with W_i = L * m / (k (m - k)) a whole number
    L = 1
    for m, k, r, *_ in parts:
        d = k * r // math.gcd(m, k * r)
        L = L * d // math.gcd(L, d)
    weights = [L * m // (k * r) for m, k, r, *_ in parts]
    support = sum(w * (pmf.size - 1) for w, (_, _, _, _, pmf, _, _) in zip(weights, parts)) + 1
    if support > max_support:
        return None
    acc = np.ones(1)
    base = 0
    for w, (_, _, _, lo, pmf, _, _) in sorted(zip(weights, parts), key=lambda t: t[1][4].size):
        acc = _shift_add(acc, pmf, w)
        base += w * lo
    s_obs = sum(w * s for w, (*_, s) in zip(weights, parts))
    centre = sum(Fraction(L * t, r) for (_, _, r, _, _, t, _) in parts)   # the sum at which the gaps sum to 0
    if alternative == "greater":
        p = acc[s_obs - base:].sum()
    elif alternative == "less":
        p = acc[:s_obs - base + 1].sum()
    else:
        d = abs(s_obs - centre)
        if d == 0:
            p = 1.0
        else:
            hi, low = math.ceil(centre + d) - base, math.floor(centre - d) - base
            p = acc[max(hi, 0):].sum() + (acc[:low + 1].sum() if low >= 0 else 0.0)
    n_arrangements = math.prod(math.comb(m, k) for m, k, *_ in parts)
    step = Fraction(1, scale * L)
    method = (f"exact (within-item permutation of the value labels over {_count(n_arrangements)} reassignments: "
              f"lattice convolution, step {step} of the summed item gaps)")
    return float(p), method


def _count(n: int) -> str:
    return f"{n:,}" if n < 10**12 else f"about 10^{math.log10(n):.1f}"


def _monte_carlo(items, observed: float, alternative: str, n_resamples: int, seed) -> TestResult:
    rng = np.random.default_rng(seed)
    total = np.zeros(n_resamples)
    # each item's units shuffled from their sorted order, the items in an order of their sizes and values: the
    # same reassignments' distribution, drawn alike whatever the log's row order and the items' names
    for k, m, units in sorted((len(a), len(a) + len(b), tuple(sorted((*a, *b)))) for a, b in items):
        units = np.array(units)
        drawn = rng.permuted(np.tile(units, (n_resamples, 1)), axis=1)
        sa = drawn[:, :k].sum(axis=1)
        total += sa / k - (units.sum() - sa) / (m - k)
    stat = total / len(items)
    tol = 1e-9 * max(1.0, abs(observed))
    if alternative == "greater":
        hits = int((stat >= observed - tol).sum())
    elif alternative == "less":
        hits = int((stat <= observed + tol).sum())
    else:
        hits = int((np.abs(stat) >= abs(observed) - tol).sum())
    p = (hits + 1) / (n_resamples + 1)
    se = math.sqrt(p * (1 - p) / n_resamples)
    bound = share(hits, n_resamples, confidence=0.99)   # Clopper-Pearson, as every Monte Carlo p's interval
    low, high = bound.low, bound.high
    return TestResult(statistic=observed, pvalue=p, alternative=alternative, n=len(items),
                      method=(f"monte carlo (within-item permutation of the value labels, n_resamples={n_resamples}, "
                              f"seed={seed}; p = (1 + hits)/(n_resamples + 1), standard error {se:.2g}, 99% interval "
                              f"for the exact p {low:.3g} to {high:.3g})"),
                      pvalue_se=se, pvalue_bounds=(low, high),
                      pvalue_bound="upper" if hits == 0 else None)
