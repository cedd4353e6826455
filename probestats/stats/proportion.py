"""A share and its exact interval; the exact binomial test of one count against another.

The interval is statsmodels' (``proportion_confint(method="beta")``), the test scipy's
(:func:`scipy.stats.binomtest`): no numerics of our own.
"""

from __future__ import annotations

from dataclasses import dataclass

from probestats.errors import OptionError
from probestats.result import jsonable

__all__ = ["Share", "share", "binomial_test"]


@dataclass(frozen=True)
class Share:
    """``k`` of ``n``, its value and an exact (Clopper–Pearson) interval.

    ``value``, ``low`` and ``high`` are None when ``n`` is 0.

    Attributes
    ----------
    k, n : int
        The count and its total.
    value : float or None
        ``k / n``.
    low, high : float or None
        The ends of the exact interval.
    confidence : float
        Its confidence level.
    method : str
        How the interval was computed.
    """

    k: int
    n: int
    value: float | None
    low: float | None
    high: float | None
    confidence: float
    method: str = "exact (Clopper-Pearson)"

    def to_dict(self) -> dict:
        return jsonable({"value": self.value, "low": self.low, "high": self.high, "k": self.k, "n": self.n,
                         "confidence": self.confidence, "method": self.method})


def share(k: int, n: int, *, confidence: float = 0.95) -> Share:
    """``k / n`` with its exact Clopper–Pearson interval (covers the true share with probability at least
    ``confidence`` for every true share; conservative, never below).

    Examples
    --------
    >>> s = share(7, 10)
    >>> s.value, round(s.low, 4), round(s.high, 4)   # the textbook interval for 7 of 10: [0.3475, 0.9333]
    (0.7, 0.3475, 0.9333)
    >>> share(0, 0).value is None
    True
    """
    k, n = int(k), int(n)
    if not 0 < confidence < 1:
        raise OptionError(f"confidence must be between 0 and 1, not {confidence!r}")
    if n < 0 or not 0 <= k <= n:
        raise OptionError(f"a share needs 0 <= k <= n, not k={k}, n={n}")
    if n == 0:
        return Share(k, n, None, None, None, confidence)
    from statsmodels.stats.proportion import proportion_confint

    # the beta-quantile form of Clopper-Pearson (scipy's binomtest(...).proportion_ci(method="exact") solves the
    # same equations by root finding, 100 times slower)
    low, high = proportion_confint(k, n, alpha=1 - confidence, method="beta")
    return Share(k, n, k / n, float(low), float(high), confidence)


def binomial_test(k: int, n: int, chance: float = 0.5) -> float | None:
    """Two-sided exact binomial test of ``k`` successes in ``n`` against a share of ``chance`` (one half
    unless given; scipy's :func:`~scipy.stats.binomtest`, whose two sides sum the outcomes no likelier than
    ``k``); None when ``n`` is 0.

    >>> binomial_test(9, 10)   # 2 * P(X >= 9), X ~ Binomial(10, 1/2) = 2 * 11 / 1024
    0.021484375
    >>> binomial_test(0, 0) is None
    True
    >>> round(binomial_test(3, 3, chance=0.2), 6)   # P(X = 3), X ~ Binomial(3, 0.2): no other outcome is as unlikely
    0.008
    """
    k, n = int(k), int(n)
    if n == 0:
        return None
    from scipy.stats import binomtest

    return float(binomtest(k, n, float(chance), alternative="two-sided").pvalue)
