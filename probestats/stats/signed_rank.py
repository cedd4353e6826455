"""The Wilcoxon signed-rank test on paired gaps, computed without scipy.stats.

It gives the statistic and p-value of ``scipy.stats.wilcoxon(exact, alternative=...)`` on the exact
gaps (below) at scipy's defaults (zero gaps dropped, no continuity correction, the method chosen from the data), to the
last bit, from numpy and (for the normal approximation) ``scipy.special.ndtr`` only: importing scipy.stats
would cost most of a second in every process that reports the test. The tests compare it with scipy.stats.wilcoxon.

It is not ``scipy.stats.wilcoxon`` called on the exact gaps (the same computation, bit for bit) for two reasons:
the 8-item sample reports this test, and its start-up budget (``tests/test_start.py``, about 0.5 s as a whole
process) has no room for ``scipy.stats`` (0.7 to 1.2 s to import beyond numpy and polars, ``python -X
importtime``, six runs at a load of two processes a core); and the outputs documented for the test depend on two things
``scipy.stats.wilcoxon`` does not give: ties and zeros read on the exact gaps (below; on the floats, scipy ranks
``0.3 - 0.1`` and ``1.0 - 1.2`` apart and gives 6.0 and p = 0.4375 where this gives 6.5 and 0.46875:
``tests/test_signed_rank.py::test_gaps_of_means_tie_as_fractions``), and the method the row names (exact null
distribution, all the sign patterns, or the normal approximation, and why), which scipy's result does not say.

Signs, zeros and ties are decided on the exact gaps (:func:`probestats.stats.lattice.exact_gaps`): gaps
on a common step (means of integer metrics, such as thirds, or of metrics with a few decimals) are
compared as fractions, so ``0.3 - 0.1`` and ``1.0 - 1.2`` tie; other gaps tie within the sign-flip
test's tolerance (``TIE_RTOL`` times the largest). scipy ranks the floats as they are, so on such gaps
the two differ (scipy on the exact values agrees). The gaps' absolute values, zero gaps left out, get
average ranks (tied values share the mean of
their ranks). ``r_plus`` is the sum of the ranks of the positive gaps, ``r_minus`` that of the
negative ones. Under the null hypothesis every gap is as likely positive as negative, so each of
the ``2**m`` sign patterns of the ``m`` non-zero gaps is equally likely. p comes from one of three
branches, chosen as scipy chooses them (``n`` counts every gap, zeros included):

* no ties and no zero gaps, ``n <= 50``: the exact null distribution of ``r_plus`` for ranks
  ``1..n``, built by adding one rank at a time; a tail is the sum of its probabilities (when the
  tail reaches past the mean, one minus the sum of the other side);
* ties or zero gaps, ``n <= 13``: every sign pattern of the non-zero gaps is enumerated and p is
  the share of patterns whose rank sum is at least as extreme as the observed one (exact); a
  pattern's sum counts as equal to the observed one when it is within 100 machine epsilons of it,
  relative to the observed sum (rank sums are multiples of 1/2, so this only guards rounding);
* otherwise: the normal approximation, ``z = (r_plus - m(m+1)/4) / se`` with
  ``se² = (m(m+1)(2m+1) - Σ(t³ - t)/2) / 24`` over the tie groups of sizes ``t``. This is an
  approximation, and no bound on its error is given here.

Two-sided p is twice the smaller tail (at most 1); ``greater`` is the upper tail of ``r_plus``,
``less`` the lower. The statistic is ``min(r_plus, r_minus)`` when two-sided, else ``r_plus``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from probestats.errors import OptionError
from probestats.stats.hypotests import as_gaps
from probestats.stats.lattice import exact_gaps
from probestats.vocabulary import check_alternative

__all__ = ["signed_rank"]

#: Largest number of gaps (zeros included) for which the exact null distribution is used
#: when there are no ties and no zero gaps.
EXACT_MAX = 50
#: Largest number of gaps (zeros included) for which every sign pattern is enumerated when
#: there are ties or zero gaps (2**13 = 8192 patterns).
PATTERNS_MAX = 13
#: The relative tolerance on the observed rank sum when sign patterns are counted.
PATTERN_RTOL = 100 * float(np.finfo(np.float64).eps)


def signed_rank(gaps, alternative: str = "two-sided") -> tuple[float, float, str]:
    """The Wilcoxon signed-rank test on the gaps: ``(statistic, pvalue, how)``.

    Parameters
    ----------
    gaps : sequence of float
        One finite gap per item, at least one of them non-zero; zero gaps are dropped.
    alternative : {"two-sided", "greater", "less"}
        ``greater``: the gaps tend to be positive.

    Returns
    -------
    statistic : float
        ``min(r_plus, r_minus)`` when two-sided, else ``r_plus`` (the rank sum of the positive gaps).
    pvalue : float
    how : str
        How p was computed: from the exact null distribution, from all the sign patterns, or by
        the normal approximation, and why that branch.

    Examples
    --------
    Five positive gaps without ties: ranks 1..5, ``r_plus = 15``. Of the 32 sign patterns one
    has rank sum 15 and one has 0, so two-sided p is 2/32:

    >>> signed_rank([1.0, 2.0, 3.0, 4.0, 5.0])
    (0.0, 0.0625, 'exact null distribution')
    >>> signed_rank([1.0, 2.0, 3.0, 4.0, 5.0], alternative="greater")[:2]
    (15.0, 0.03125)

    A tie and a zero gap: ``|2|, |-2|, 3`` rank 1.5, 1.5, 3, so ``r_plus = 4.5``. Of the 8 patterns
    of the three non-zero gaps, sums >= 4.5 are {3, 1.5} twice and {1.5, 1.5, 3}: p = 3/8:

    >>> signed_rank([0.0, 2.0, -2.0, 3.0], alternative="greater")
    (4.5, 0.375, 'exact: all 8 sign patterns of the 3 non-zero gaps (ties or zero gaps)')

    Gaps of means, ``0.3 - 0.1`` and ``1.0 - 1.2``, are 0.2 and -0.2 exactly, so they tie: ranks 1.5, 1.5,
    3, 4, 5, 6 give ``r_minus = 1.5 + 5 = 6.5``, and 30 of the 64 sign patterns are as extreme:

    >>> signed_rank([0.3 - 0.1, 1.0 - 1.2, 1.0, 2.0, -3.0, 4.0])[:2]
    (6.5, 0.46875)
    """
    check_alternative(alternative)
    g = exact_gaps(as_gaps(gaps))
    nonzero = g[g != 0]
    m = int(nonzero.size)
    if m == 0:
        raise OptionError("every gap is zero: the signed-rank test has nothing to rank; pass a non-zero gap")
    ranks, tie_sizes = _average_ranks(np.abs(nonzero))
    r_plus = float(np.sum(ranks[nonzero > 0]))
    r_minus = float(np.sum(ranks[nonzero < 0]))
    statistic = min(r_plus, r_minus) if alternative == "two-sided" else r_plus
    ties, zeros = bool(np.any(tie_sizes > 1)), m < g.size
    if g.size <= EXACT_MAX and not (ties or zeros):
        return statistic, _exact_pvalue(r_plus, m, alternative), "exact null distribution"
    if g.size <= PATTERNS_MAX:
        how = f"exact: all {2 ** m} sign patterns of the {m} non-zero gaps (ties or zero gaps)"
        return statistic, _pattern_pvalue(ranks, r_plus, alternative), how
    why = "more than 50 gaps" if g.size > EXACT_MAX else "ties or zero gaps and more than 13 gaps"
    return statistic, _normal_pvalue(r_plus, m, tie_sizes, alternative), f"normal approximation, tie-corrected ({why})"


def _average_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Average ranks of ``values`` (1-based, in input order; as polars' ``rank("average")``) and the
    sizes of the groups of equal values: a group of ``c`` equal values after ``k`` smaller ones shares the
    rank ``k + (c + 1) / 2`` (a whole number or a half, exact in floating point).

    >>> _average_ranks(np.array([3.0, 1.0, 3.0, 2.0]))
    (array([3.5, 1. , 3.5, 2. ]), array([1, 1, 2]))
    """
    _, group, sizes = np.unique(values, return_inverse=True, return_counts=True)
    before = np.cumsum(sizes) - sizes
    return (before + (sizes + 1) / 2.0)[group].astype(float), sizes


@functools.lru_cache(maxsize=64)
def _null_pmf(n: int) -> np.ndarray:
    """P(r_plus = k), k = 0..n(n+1)/2, for ranks 1..n: each rank joins the positive sum with probability 1/2.

    >>> _null_pmf(2) * 4      # sums of the subsets of {1, 2}: 0, 1, 2, 3
    array([1., 1., 1., 1.])
    """
    pmf = np.ones(1)
    for k in range(1, n + 1):
        prev = pmf
        pmf = np.zeros(k * (k + 1) // 2 + 1)
        pmf[:prev.size] = prev * 0.5
        pmf[-prev.size:] += prev * 0.5
    pmf.flags.writeable = False
    return pmf


def _exact_pvalue(r_plus: float, n: int, alternative: str) -> float:
    """p of the rank sum ``r_plus`` of ``n`` untied non-zero gaps, from the exact null distribution.

    >>> _exact_pvalue(15.0, 5, "two-sided"), _exact_pvalue(1.0, 5, "less")    # 2/32; sums 0 and 1
    (0.0625, 0.0625)
    """
    pmf, mean = _null_pmf(n), n * (n + 1) / 4

    def cdf(k: int) -> float:   # P(r_plus <= k); past the mean, from the other tail, as scipy does
        return float(pmf[:k + 1].sum()) if k <= mean else float(1 - pmf[k + 1:].sum())

    def sf(k: int) -> float:    # P(r_plus >= k)
        return float(pmf[k:].sum()) if k <= mean else float(1 - pmf[:k].sum())

    if alternative == "less":
        return cdf(math.ceil(r_plus))
    if alternative == "greater":
        return sf(math.floor(r_plus))
    return min(1.0, 2 * min(sf(math.floor(r_plus)), cdf(math.ceil(r_plus))))


def _pattern_pvalue(ranks: np.ndarray, r_plus: float, alternative: str) -> float:
    """p of ``r_plus`` over all ``2**len(ranks)`` sign patterns of the non-zero gaps (exact).

    Patterns of the zero gaps change no rank sum, so counting over the non-zero gaps gives the same
    share as counting over all of them.

    >>> _pattern_pvalue(np.array([1.5, 1.5, 3.0]), 4.5, "greater")      # sums 4.5, 4.5, 6 of 8
    0.375
    """
    m = ranks.size
    positive = (np.arange(2 ** m)[:, None] >> np.arange(m)) & 1      # one row per sign pattern
    sums = positive.astype(float) @ ranks
    gamma = abs(PATTERN_RTOL * r_plus)
    less = np.count_nonzero(sums <= r_plus + gamma) / 2 ** m
    greater = np.count_nonzero(sums >= r_plus - gamma) / 2 ** m
    p = {"less": less, "greater": greater, "two-sided": 2 * min(less, greater)}[alternative]
    return float(min(1.0, p))


def _normal_pvalue(r_plus: float, m: int, tie_sizes: np.ndarray, alternative: str) -> float:
    """p of ``r_plus`` by the normal approximation, the variance corrected for ties (no continuity correction).

    >>> round(_normal_pvalue(0.0, 14, np.ones(14, int), "two-sided"), 6)    # z = -52.5 / sqrt(253.75)
    0.000982
    """
    count = float(m)
    mean = count * (count + 1.0) * 0.25
    t = tie_sizes.astype(float)
    se = math.sqrt((count * (count + 1.0) * (2.0 * count + 1.0) - float(np.sum(t ** 3 - t)) / 2) / 24)
    z = (r_plus - mean) / se
    from scipy import special   # imported here: the exact tests of a small log need none of scipy

    if alternative == "less":
        return float(special.ndtr(z))
    if alternative == "greater":
        return float(special.ndtr(-z))
    return float(2 * special.ndtr(-abs(z)))
