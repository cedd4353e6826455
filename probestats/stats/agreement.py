"""Agreement between two codings of the same runs: Cohen's kappa and the raw agreement, and the error rates of a
0/1 coding against hand labels (sensitivity, specificity and the predictive values, with exact intervals).

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

__all__ = ["Kappa", "Proportion", "cohens_kappa", "exact_proportion"]


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

            from probestats.errors import caught_warnings

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
