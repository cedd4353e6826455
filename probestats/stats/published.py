"""The tests published audits report, beside the exact ones (which stay the headline).

Each is named with its assumption. Welch's t, Friedman's test and Cochran's Q are scipy or statsmodels
calls. The paired t and the signed-rank test are computed here from numpy and the standard library
(:mod:`probestats.stats.signed_rank` for the second), so that reporting them does not import scipy
(most of a second in every process); the tests check them against ``scipy.stats.ttest_rel`` (t bit
for bit, p to 1e-12) and ``scipy.stats.wilcoxon`` (bit for bit):

* the **paired t-test** on the item means (``ttest_rel``'s arithmetic, p from Student's tail,
  :func:`~probestats.stats.distributions.t_sf`): the item gaps are independent and roughly normal;
* the **Wilcoxon signed-rank test** on the item gaps (zero gaps dropped; p from the exact null
  distribution when there are no ties or zero gaps and at most 50 gaps, from all the sign patterns
  of the gaps when there are ties or zeros and at most 13 gaps, else from the normal approximation
  corrected for ties, as ``method`` says): the gaps are symmetric about their median;
* **Welch's t** on the runs of two values (``scipy.stats.ttest_ind(equal_var=False)``): the
  runs are independent draws, normal enough for their means;
* **Friedman's test** on the item × value table of means (``scipy.stats.friedmanchisquare``):
  ranks within items, a chi-square approximation to the null distribution of the statistic;
* **Cochran's Q** for a 0/1 metric with one run per item × value cell (statsmodels
  ``cochrans_q``): a chi-square approximation, items independent.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields

import numpy as np

from probestats.errors import caught_warnings
from probestats.result import jsonable
from probestats.stats.distributions import t_sf
from probestats.stats.lattice import exact_gaps
from probestats.stats.signed_rank import signed_rank
from probestats.vocabulary import check_alternative

__all__ = ["PublishedTest", "paired_t", "wilcoxon_signed_rank", "welch_t", "student_t", "friedman", "cochran_q",
           "paired_published", "ASSUMPTIONS"]

ASSUMPTIONS = {
    "paired t": "the item gaps are independent and roughly normal",
    "wilcoxon": "the item gaps are independent and symmetric about their median; zero gaps are dropped",
    "welch": "the runs are independent draws (runs of one item share the item, so this overstates the "
             "evidence when items differ); their means roughly normal",
    "student": "the runs are independent draws (runs of one item share the item, so this overstates the "
               "evidence when items differ) from two normal populations of equal spread",
    "friedman": "items independent; ranks within items; chi-square approximation to the statistic's null "
                "distribution (the permutation omnibus is exact)",
    "cochran": "a 0/1 metric, one run per item and value; items independent; chi-square approximation",
}


@dataclass(frozen=True)
class PublishedTest:
    """One published test's result.

    Attributes
    ----------
    name : str
        ``"paired t"``, ``"wilcoxon"``, ``"welch"``, ``"friedman"`` or ``"cochran"``.
    statistic, pvalue : float or None
        None when the test is undefined for these data (``note`` says why).
    df : float or None
        Degrees of freedom, where the test has them.
    n : int
        Observations the test used (items, or runs for Welch's t).
    method : str
        The library call (or, for the signed-rank test, the computation) and how it computed p.
    assumption : str
    alternative : str
    note : str
    """

    name: str
    statistic: float | None
    pvalue: float | None
    df: float | None
    n: int
    method: str
    assumption: str
    alternative: str = "two-sided"
    note: str = ""

    def to_dict(self) -> dict:
        """JSON-safe fields (``pvalue`` as ``p``, as elsewhere in the JSON).

        >>> paired_t([1.0, 2.0, 3.0], [0.0, 0.5, 2.0]).to_dict()["name"]
        'paired t'
        """
        out = {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}
        out["p"] = out.pop("pvalue")
        return out


def _undefined(name: str, n: int, method: str, alternative: str, why: str, df=None) -> PublishedTest:
    return PublishedTest(name, None, None, df, n, method, ASSUMPTIONS[name], alternative, why)


def _check(alternative: str) -> None:
    check_alternative(alternative)


def paired_t(mean_a, mean_b, alternative: str = "two-sided") -> PublishedTest:
    """The paired t-test of the item means: ``t = mean gap / sqrt(var / n)``, the gaps' variance
    with ``n - 1`` in its denominator, p from Student's t with ``n - 1`` degrees of freedom
    (:func:`~probestats.stats.distributions.t_sf`, within 1e-12 of scipy's).

    This is ``scipy.stats.ttest_rel``'s arithmetic, step for step (the tests compare the two);
    computed here because importing scipy for it costs most of a second on every call.

    >>> r = paired_t([5.0, 6.0, 7.0, 9.0], [4.0, 4.0, 6.0, 6.0])
    >>> round(r.statistic, 6), r.df    # 1.75 / (0.957427 / 2)
    (3.655631, 3.0)
    >>> round(r.pvalue, 6)             # 2 P(T_3 > 3.655631)
    0.035353
    """
    _check(alternative)
    a, b = np.asarray(mean_a, float), np.asarray(mean_b, float)
    method = "paired t-test on the item means (Student's t, n − 1 degrees of freedom)"
    if a.size < 2:
        return _undefined("paired t", int(a.size), method, alternative, "needs two items or more")
    gaps = a - b
    # equal gaps up to float residue (means of exact sums differ in their last bits): their SD is 0 in truth
    if float(np.ptp(gaps)) <= 1e-12 * float(np.max(np.abs(gaps))):
        return _undefined("paired t", int(a.size), method, alternative,
                          "every item gap is the same: their SD is 0, so t is undefined", df=float(a.size - 1))
    t, p, df = _paired_t(gaps, alternative)
    return PublishedTest("paired t", t, p, df, int(a.size), method, ASSUMPTIONS["paired t"], alternative)


def _paired_t(gaps: np.ndarray, alternative: str) -> tuple[float, float, float]:
    """t, p and df of the one-sample t-test of ``gaps`` against 0, in ``scipy.stats.ttest_rel``'s order
    of operations (mean; mean squared deviation times ``n / (n - 1)``; ``sqrt(var / n)``), so t is scipy's
    to the last bit; p is Student's tail :func:`~probestats.stats.distributions.t_sf`, within 1e-12 of scipy's."""
    n = np.float64(gaps.size)
    mean = np.mean(gaps)
    var = np.mean((gaps - mean) ** 2) * (n / (n - 1))
    t = mean / np.sqrt(var / n)
    df = n - 1
    if alternative == "less":
        p = t_sf(-float(t), float(df))
    elif alternative == "greater":
        p = t_sf(float(t), float(df))
    else:
        p = 2 * t_sf(abs(float(t)), float(df))
    return float(t), float(p), float(df)


def wilcoxon_signed_rank(gaps, alternative: str = "two-sided") -> PublishedTest:
    """The Wilcoxon signed-rank test on the item gaps (:func:`~probestats.stats.signed_rank.signed_rank`).

    For finite gaps it equals ``scipy.stats.wilcoxon(gaps, alternative=alternative)`` at scipy's
    defaults; the tests check that (a gap that is not a finite number is refused).

    >>> r = wilcoxon_signed_rank([1.0, 2.0, 3.0, 4.0, 5.0])
    >>> r.statistic, r.pvalue      # exact: 2 of the 32 sign patterns have a rank sum of 0 or 15
    (0.0, 0.0625)
    >>> r.method
    'Wilcoxon signed-rank on the item gaps (exact null distribution)'
    """
    _check(alternative)
    g = np.asarray(gaps, float)
    nonzero = int(np.count_nonzero(g))
    if nonzero == 0:
        return _undefined("wilcoxon", int(g.size), "Wilcoxon signed-rank on the item gaps", alternative,
                          "every item gap is zero: nothing to rank")
    statistic, pvalue, how = signed_rank(g, alternative)
    return PublishedTest("wilcoxon", statistic, pvalue, None, nonzero,
                         f"Wilcoxon signed-rank on the item gaps ({how})", ASSUMPTIONS["wilcoxon"], alternative)


def welch_t(runs_a, runs_b, alternative: str = "two-sided") -> PublishedTest:
    """Welch's t on two sets of runs (``scipy.stats.ttest_ind(equal_var=False)``).

    >>> round(welch_t([4.0, 6.0, 2.0], [3.0, 1.0, 2.0]).pvalue, 6)
    0.220881
    """
    from scipy.stats import ttest_ind

    _check(alternative)
    a, b = np.asarray(runs_a, float), np.asarray(runs_b, float)
    method = "scipy.stats.ttest_ind(equal_var=False) on the runs"
    n = int(a.size + b.size)
    if a.size < 2 or b.size < 2:
        return _undefined("welch", n, method, alternative, "needs two runs or more of each value")
    # runs all equal: no spread, exactly (scipy's variance of three runs of 0.1 is 1.9e-34, with a warning)
    constant_a, constant_b = float(np.ptp(a)) == 0.0, float(np.ptp(b)) == 0.0
    if constant_a and constant_b:
        return _undefined("welch", n, method, alternative, "no run-to-run spread under either value: t is undefined")
    if constant_a or constant_b:   # the other value's spread alone: its one-sample t against the constant
        t, df = _welch_one_constant(a, b, constant_a)
        return PublishedTest("welch", t, _t_p(t, df, alternative), df, n, method, ASSUMPTIONS["welch"], alternative)
    res = ttest_ind(a, b, equal_var=False, alternative=alternative)
    return PublishedTest("welch", float(res.statistic), float(res.pvalue), float(res.df), n, method,
                         ASSUMPTIONS["welch"], alternative)


def student_t(runs_a, runs_b, alternative: str = "two-sided") -> PublishedTest:
    """Student's t on two sets of runs, their spreads pooled (``scipy.stats.ttest_ind(equal_var=True)``).

    >>> r = student_t([4.0, 6.0, 2.0], [3.0, 1.0, 2.0])
    >>> round(r.pvalue, 6), r.df     # t = 1.5492 on 4 degrees of freedom
    (0.196261, 4.0)
    """
    from scipy.stats import ttest_ind

    _check(alternative)
    a, b = np.asarray(runs_a, float), np.asarray(runs_b, float)
    method = "scipy.stats.ttest_ind(equal_var=True) on the runs"
    n = int(a.size + b.size)
    if a.size < 2 or b.size < 2:
        return _undefined("student", n, method, alternative, "needs two runs or more of each value")
    if float(np.ptp(a)) == 0.0 and float(np.ptp(b)) == 0.0:
        return _undefined("student", n, method, alternative,
                          "no run-to-run spread under either value: t is undefined", df=float(n - 2))
    res = ttest_ind(a, b, equal_var=True, alternative=alternative)
    return PublishedTest("student", float(res.statistic), float(res.pvalue), float(res.df), n, method,
                         ASSUMPTIONS["student"], alternative)


def _welch_one_constant(a: np.ndarray, b: np.ndarray, constant_a: bool) -> tuple[float, float]:
    """Welch's t and df when one value's runs are all equal: that side's variance is 0 exactly (its mean is the
    value), so ``t = (mean_a - mean_b) / sqrt(var / n)`` of the other side, on its ``n - 1`` degrees of freedom.

    >>> _welch_one_constant(np.array([1.0, 1.0, 1.0]), np.array([0.0, 1.0, 2.0]), True)
    (0.0, 2.0)
    """
    varied = b if constant_a else a
    mean_a = float(a[0]) if constant_a else float(np.mean(a))
    mean_b = float(np.mean(b)) if constant_a else float(b[0])
    se = math.sqrt(float(np.var(varied, ddof=1)) / varied.size)
    return (mean_a - mean_b) / se, float(varied.size - 1)


def _t_p(t: float, df: float, alternative: str) -> float:
    """The p of Student's ``t`` on ``df`` degrees of freedom (:func:`~probestats.stats.distributions.t_sf`)."""
    if alternative == "less":
        return t_sf(-t, df)
    if alternative == "greater":
        return t_sf(t, df)
    return min(1.0, 2 * t_sf(abs(t), df))


def friedman(matrix) -> PublishedTest:
    """Friedman's test on an items × values table of means (``scipy.stats.friedmanchisquare``).

    Ties within an item are decided on the exact means (:func:`~probestats.stats.lattice.exact_gaps`):
    ``0.15`` and the mean of 0.1 and 0.2 (0.15000000000000002) share a rank.

    >>> r = friedman([[1.0, 2.0, 3.0], [1.0, 3.0, 2.0], [0.0, 2.0, 4.0], [1.0, 2.0, 5.0]])
    >>> round(r.statistic, 6), r.df
    (6.5, 2.0)
    """
    from scipy.stats import friedmanchisquare

    m = np.asarray(matrix, float)
    if m.ndim == 2:
        m = exact_gaps(m.ravel()).reshape(m.shape)   # ties within an item decided on the exact means
    method = "scipy.stats.friedmanchisquare on the item means (chi-square approximation)"
    n, k = m.shape
    if k < 3 or n < 2:
        return _undefined("friedman", n, method, "two-sided", "needs three values or more and two items or more")
    if all(float(np.ptp(row)) == 0.0 for row in m):
        return _undefined("friedman", n, method, "two-sided", "every item has the same mean under every value",
                          df=float(k - 1))
    res = friedmanchisquare(*m.T)
    return PublishedTest("friedman", float(res.statistic), float(res.pvalue), float(k - 1), n, method,
                         ASSUMPTIONS["friedman"])


def cochran_q(matrix) -> PublishedTest:
    """Cochran's Q on an items × values table of 0/1 outcomes (statsmodels ``cochrans_q``).

    >>> r = cochran_q([[1, 0, 0], [1, 1, 0], [1, 0, 0], [1, 1, 1], [1, 0, 0]])
    >>> round(r.statistic, 6), r.df    # 2 × (3 × (25 + 4 + 1) − 8²) / (3 × 8 − 16)
    (6.5, 2.0)
    """
    from statsmodels.stats.contingency_tables import cochrans_q

    m = np.asarray(matrix, float)
    method = "statsmodels cochrans_q on the item × value outcomes (chi-square approximation)"
    n, k = m.shape
    if not np.isin(m, (0.0, 1.0)).all():
        return _undefined("cochran", n, method, "two-sided", "needs one 0/1 outcome per item and value")
    if k < 2 or n < 2:
        return _undefined("cochran", n, method, "two-sided", "needs two values or more and two items or more")
    if float(np.ptp(m.sum(axis=0))) == 0.0 and all(float(np.ptp(r)) == 0 for r in m):
        return _undefined("cochran", n, method, "two-sided", "no item's outcome changes with the value",
                          df=float(k - 1))
    with caught_warnings():
        warnings.simplefilter("ignore")
        res = cochrans_q(m)
    return PublishedTest("cochran", float(res.statistic), float(res.pvalue), float(res.df), n, method,
                         ASSUMPTIONS["cochran"])


def paired_published(mean_a, mean_b, alternative: str = "two-sided") -> tuple[PublishedTest, PublishedTest]:
    """The paired t-test and the Wilcoxon signed-rank test of one paired comparison.

    >>> t, w = paired_published([2.0, 3.0, 5.0], [1.0, 1.0, 2.0])
    >>> t.name, w.name
    ('paired t', 'wilcoxon')
    """
    a, b = np.asarray(mean_a, float), np.asarray(mean_b, float)
    return paired_t(a, b, alternative), wilcoxon_signed_rank(a - b, alternative)


def finite(x) -> float | None:
    """``x`` as a float, or None when it is not finite."""
    return None if x is None or not math.isfinite(float(x)) else float(x)
