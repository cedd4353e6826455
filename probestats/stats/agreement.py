"""Agreement between two codings of the same runs: Cohen's kappa and the raw agreement, and the error rates of a
0/1 coding against hand labels (sensitivity, specificity and the predictive values, with exact intervals);
between the scores two judges (or models) give the same items, Kendall's tau-b and Spearman's rho with Fisher z
intervals; and between several raters' labels of the same items, Fleiss' kappa.

Cohen's kappa is statsmodels' (:func:`statsmodels.stats.inter_rater.cohens_kappa`); its interval is the
normal one around it with statsmodels' asymptotic standard error, an approximation the result names.
The proportions' intervals are exact (Clopper-Pearson, statsmodels' ``proportion_confint(method="beta")``).

Examples
--------
>>> k = cohens_kappa(["y", "y", "n", "n", "y"], ["y", "n", "n", "n", "y"])
>>> round(k.statistic, 4), k.agreement, k.n
(0.6154, 0.8, 5)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from probestats.errors import OptionError, caught_warnings
from probestats.stats.draw_order import rows_in_order

__all__ = ["Kappa", "Proportion", "Correlation", "FleissKappa", "cohens_kappa", "exact_proportion", "kendall_tau",
           "spearman_rho", "fleiss_kappa"]


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa between two codings of the same runs.

    Attributes
    ----------
    statistic : float or None
        Kappa: the agreement beyond what the two codings' label shares give by chance, over the most
        there can be (None when chance agreement is already complete: one label only).
    agreement : float
        The share of runs both codings label alike (the raw agreement).
    low, high : float or None
        The interval at ``confidence``: kappa ± z times statsmodels' asymptotic standard error.
    confidence : float
        The interval's level.
    n : int
        Runs coded by both.
    labels : tuple of str
        The labels, in the table's order.
    table : tuple of tuple of int
        Runs by the first coding's label (rows) and the second's (columns).
    method : str
        How the interval was made (an approximation: it says so).
    """

    statistic: float | None
    agreement: float
    low: float | None
    high: float | None
    confidence: float
    n: int
    labels: tuple
    table: tuple
    method: str

    def to_dict(self) -> dict:
        return {"kappa": self.statistic, "agreement": self.agreement, "low": self.low, "high": self.high,
                "confidence": self.confidence, "n": self.n, "labels": list(self.labels),
                "table": [list(r) for r in self.table], "method": self.method}


@dataclass(frozen=True)
class Proportion:
    """A share with its exact interval.

    Attributes
    ----------
    estimate : float or None
        ``successes / n`` (None when n is 0).
    successes, n : int
        The count and the runs it is out of.
    low, high : float
        The exact (Clopper-Pearson) interval at ``confidence``; 0 to 1 when n is 0.
    confidence : float
        The interval's level.
    """

    estimate: float | None
    successes: int
    n: int
    low: float
    high: float
    confidence: float

    def to_dict(self) -> dict:
        return {"estimate": self.estimate, "successes": self.successes, "n": self.n, "low": self.low,
                "high": self.high, "confidence": self.confidence}


KAPPA_METHOD = "Cohen's kappa; normal interval with statsmodels' asymptotic standard error (approximate)"


def cohens_kappa(first, second, *, confidence: float = 0.95) -> Kappa:
    """Cohen's kappa and the raw agreement of two codings of the same runs (pairs with a blank are left out).

    Parameters
    ----------
    first, second : sequence
        The two codings, run by run (labels of any type, compared as text).
    confidence : float
        The interval's level.

    Examples
    --------
    >>> k = cohens_kappa([1, 1, 0, 0], [1, 1, 0, 0])
    >>> k.statistic, k.agreement, k.table
    (1.0, 1.0, ((2, 0), (0, 2)))
    """
    from scipy.stats import norm
    from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa

    pairs = [(str(a), str(b)) for a, b in zip(first, second) if a is not None and b is not None
             and not (isinstance(a, float) and a != a) and not (isinstance(b, float) and b != b)]
    labels = tuple(sorted({x for pair in pairs for x in pair}))
    index = {lab: k for k, lab in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for a, b in pairs:
        table[index[a], index[b]] += 1
    n = int(table.sum())
    agreement = float(np.trace(table) / n) if n else float("nan")
    kappa = low = high = None
    if n and len(labels) >= 2:
        rows, cols = table.sum(axis=1) / n, table.sum(axis=0) / n
        if float(rows @ cols) < 1 - 1e-12:
            import warnings

            with caught_warnings():   # a degenerate table has no asymptotic variance: no interval
                warnings.simplefilter("ignore", RuntimeWarning)
                result = sm_kappa(table)
            kappa = float(result["kappa"])
            z = float(norm.ppf(0.5 + confidence / 2))
            se = float(result["std_kappa"])
            if se == se:
                low, high = max(-1.0, kappa - z * se), min(1.0, kappa + z * se)
    return Kappa(statistic=kappa, agreement=agreement, low=low, high=high, confidence=confidence, n=n,
                 labels=labels, table=tuple(tuple(int(x) for x in row) for row in table), method=KAPPA_METHOD)


def exact_proportion(successes: int, n: int, *, confidence: float = 0.95) -> Proportion:
    """A share with its exact (Clopper-Pearson) interval.

    >>> p = exact_proportion(9, 10)
    >>> p.estimate, round(p.low, 4), round(p.high, 4)
    (0.9, 0.555, 0.9975)
    """
    from statsmodels.stats.proportion import proportion_confint

    if n == 0:
        return Proportion(None, 0, 0, 0.0, 1.0, confidence)
    low, high = proportion_confint(successes, n, alpha=1 - confidence, method="beta")
    low = 0.0 if successes == 0 else float(low)
    high = 1.0 if successes == n else float(high)
    return Proportion(successes / n, int(successes), int(n), low, high, confidence)


@dataclass(frozen=True)
class Correlation:
    """A rank correlation between two raters' scores of the same items, with its interval and test.

    Attributes
    ----------
    method : {"kendall", "spearman"}
        Kendall's tau-b (ties corrected) or Spearman's rho.
    statistic : float or None
        The correlation (None with fewer than two distinct scores on a side, or fewer than 3 items).
    low, high : float or None
        Its interval at ``confidence``: Fisher's z of the correlation ± z times the standard error Fieller,
        Hartley and Pearson (1957) give (``sqrt(0.437 / (n − 4))`` for tau, ``sqrt(1.06 / (n − 3))`` for rho),
        back-transformed; None with too few items (n ≤ 4 for tau, n ≤ 3 for rho).
    pvalue : float or None
        Two-sided test of no association (scipy's ``kendalltau``, exact for small samples without ties, or
        ``spearmanr``'s t approximation).
    n : int
        The items scored by both.
    confidence : float
    interval_method : str
    """

    method: str
    statistic: float | None
    low: float | None
    high: float | None
    pvalue: float | None
    n: int
    confidence: float
    interval_method: str

    def to_dict(self) -> dict:
        return {"method": self.method, "statistic": self.statistic, "low": self.low, "high": self.high,
                "p": self.pvalue, "n": self.n, "confidence": self.confidence,
                "interval_method": self.interval_method}


#: Fieller, Hartley and Pearson's (1957) variance of Fisher's z of each rank correlation: (constant, n offset).
_FISHER = {"kendall": (0.437, 4), "spearman": (1.06, 3)}


def _pairs(first, second) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray([np.nan if a is None else float(a) for a in first], dtype=float)
    y = np.asarray([np.nan if b is None else float(b) for b in second], dtype=float)
    if x.shape != y.shape:
        raise OptionError(f"two raters' scores must be of the same items: {x.size} and {y.size} given")
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


def _correlation(method: str, first, second, confidence: float) -> Correlation:
    from scipy.stats import kendalltau, norm, spearmanr

    x, y = _pairs(first, second)
    n = int(x.size)
    constant, offset = _FISHER[method]
    how = (f"Fisher z with Fieller, Hartley and Pearson's standard error sqrt({constant} / (n − {offset})), "
           "back-transformed (approximate)")
    if n < 3 or np.unique(x).size < 2 or np.unique(y).size < 2:
        return Correlation(method, None, None, None, None, n, confidence, how)
    fit = kendalltau(x, y) if method == "kendall" else spearmanr(x, y)
    r, p = float(fit.statistic), float(fit.pvalue)
    low = high = None
    if n > offset:
        if abs(r) >= 1:
            low = high = r
        else:
            z, half = float(np.arctanh(r)), float(norm.ppf(0.5 + confidence / 2)) * float(np.sqrt(constant / (n - offset)))
            low, high = float(np.tanh(z - half)), float(np.tanh(z + half))
    return Correlation(method, r, low, high, p, n, confidence, how)


def kendall_tau(first, second, *, confidence: float = 0.95) -> Correlation:
    """Kendall's tau-b between two raters' scores of the same items (pairs with a blank left out), with a
    Fisher z interval and scipy's test.

    Examples
    --------
    >>> t = kendall_tau([1, 2, 3, 4, 5, 6], [1, 3, 2, 4, 6, 5])
    >>> round(t.statistic, 4), round(t.low, 3), round(t.high, 3), t.n
    (0.7333, 0.02, 0.952, 6)
    """
    return _correlation("kendall", first, second, confidence)


def spearman_rho(first, second, *, confidence: float = 0.95) -> Correlation:
    """Spearman's rho between two raters' scores of the same items (pairs with a blank left out), with a
    Fisher z interval and scipy's test.

    Examples
    --------
    >>> r = spearman_rho([1, 2, 3, 4, 5, 6], [1, 3, 2, 4, 6, 5])
    >>> round(r.statistic, 4), r.n
    (0.8857, 6)
    """
    return _correlation("spearman", first, second, confidence)


@dataclass(frozen=True)
class FleissKappa:
    """Fleiss' kappa of several raters' labels of the same items.

    Attributes
    ----------
    statistic : float or None
        Fleiss' kappa (statsmodels' ``fleiss_kappa``); None with one label only, or no item.
    n_items : int
        Items labelled by every rater.
    n_raters : int
    labels : tuple of str
    low, high : float or None
        A percentile bootstrap interval over items (``n_resamples`` draws, ``seed``); None with fewer than
        two items.
    confidence : float
    method : str
    """

    statistic: float | None
    n_items: int
    n_raters: int
    labels: tuple
    low: float | None
    high: float | None
    confidence: float
    method: str

    def to_dict(self) -> dict:
        return {"kappa": self.statistic, "n_items": self.n_items, "n_raters": self.n_raters,
                "labels": list(self.labels), "low": self.low, "high": self.high, "confidence": self.confidence,
                "method": self.method}


def fleiss_kappa(ratings, *, confidence: float = 0.95, n_resamples: int = 10_000, seed: int = 0) -> FleissKappa:
    """Fleiss' kappa of an items × raters table of labels (rows with a blank left out), with a percentile
    bootstrap interval over items.

    Examples
    --------
    >>> k = fleiss_kappa([["y", "y", "y"], ["n", "n", "y"], ["n", "n", "n"], ["y", "n", "y"]])
    >>> round(k.statistic, 4), k.n_items, k.n_raters
    (0.3333, 4, 3)
    """
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    rows = [tuple(str(v) for v in row) for row in ratings
            if all(v is not None and not (isinstance(v, float) and v != v) for v in row)]
    labels = tuple(sorted({v for row in rows for v in row}))
    raters = len(rows[0]) if rows else 0
    method = (f"Fleiss' kappa (statsmodels); percentile bootstrap interval over items ({n_resamples} draws, "
              f"seed {seed})")
    if not rows or len(labels) < 2 or raters < 2:
        return FleissKappa(None, len(rows), raters, labels, None, None, confidence, method)
    index = {lab: k for k, lab in enumerate(labels)}
    counts = np.zeros((len(rows), len(labels)), dtype=float)
    for i, row in enumerate(rows):
        for v in row:
            counts[i, index[v]] += 1

    def kappa(table) -> float:
        p = table.sum(axis=0) / table.sum()
        if float((p * p).sum()) >= 1 - 1e-12:
            return float("nan")
        return float(sm_fleiss(table))

    value = kappa(counts)
    low = high = None
    if len(rows) >= 2:
        rng = np.random.default_rng(seed)
        counts = rows_in_order(counts)   # rows drawn in an order of their counts, not the log's
        draws = np.array([kappa(counts[rng.integers(0, len(rows), len(rows))]) for _ in range(n_resamples)])
        draws = draws[np.isfinite(draws)]
        if draws.size:
            low, high = (float(q) for q in np.quantile(draws, [0.5 - confidence / 2, 0.5 + confidence / 2]))
    return FleissKappa(value if value == value else None, len(rows), raters, labels, low, high, confidence, method)
