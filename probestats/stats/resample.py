"""The bootstrap over items: BCa and percentile intervals, in numpy.

The same computation as ``scipy.stats.bootstrap`` (``paired=True`` for several samples resampled
together), with the same draws from the same generator: ``n_resamples`` rows of item indices
``rng.integers(0, n, (n_resamples, n))``; the percentile interval takes the ``alpha`` and
``1 - alpha`` quantiles (linear interpolation) of the resampled statistic; BCa (Efron and Tibshirani,
14.3 and Eq. 14.15) moves them to ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))``, with ``z0`` the normal
quantile of the share of resamples below the estimate (ties counting half) and ``a`` the acceleration
from the jackknife; the tests compare both intervals with scipy's on the same generator (to 1e-12).

Written here, not called from scipy, for two reasons:

* the 8-item sample's d_av interval is this bootstrap, and the sample's start-up budget
  (``tests/test_start.py``, about 0.5 s as a whole process) has no room for ``scipy.stats``, which takes
  0.7 to 1.2 s to import beyond numpy and polars (``python -X importtime``, six runs at a load of two
  processes a core);
* the ``--by`` path bootstraps every group's d_av from one draw (:mod:`probestats.stats.bootstrap_many`,
  built on :func:`bca_levels` and :func:`quantile_of` here) and gives each group the interval it has alone, to
  the last bit. ``scipy.stats.bootstrap`` can take the groups of one size as one batch, with the same index
  draws, but its BCa ends then are not each group's own: the resampled d_av differ in their last bits with
  the batch's layout, so the resamples that tie the estimate alone do not, and the bias correction moves.
  On 200 groups of 8 items at 10,000 resamples, 185 groups' ends moved, by up to 0.02 (median 0.0017), and
  the batch took 1.24 s of CPU where the batched draw here takes 0.37 s (the test
  ``test_scipys_batch_of_groups_is_not_each_group_alone`` shows the difference).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from probestats.errors import OptionError, opt
from probestats.stats.distributions import norm_cdf, norm_ppf

__all__ = ["bca_levels", "bootstrap_interval", "canonical_items", "check_bootstrap_memory", "memory_bytes", "quantile_of",
           "quantile_places"]


def memory_bytes() -> int:
    """The memory this process may use, in bytes: the machine's physical memory, or the address-space limit
    (``ulimit -v``) when that is lower."""
    import os

    try:
        have = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):   # not a POSIX system: no bound known but the address space
        have = 1 << 62
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            have = min(have, soft)
    except (ImportError, ValueError, OSError):
        pass
    return int(have)


def _size(n: float) -> str:
    """Bytes as a person reads them: ``1.9 GB``, ``2.9e+11 GB``."""
    gb = n / 1e9
    return f"{gb:,.1f} GB" if gb < 1e6 else f"{gb:.2g} GB"


def check_bootstrap_memory(n_resamples: int, n: int, samples: int = 1, *, have: int | None = None) -> None:
    """Refuse a bootstrap whose resamples would not fit in memory, before anything is drawn: the items drawn and
    each sample's resampled rows (8 bytes a value) for every resample are held at once.

    >>> check_bootstrap_memory(10_000, 12)
    >>> check_bootstrap_memory(10**18, 12, have=8 * 10**9)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: n_resamples=1000000000000000000: a bootstrap of 1,000,000,000,000,000,000 resamples over 12 items holds about 2e+11 GB in memory at once, more than the 8.0 GB this process can use; lower n_resamples to 20,000,000 or fewer
    """
    need = n_resamples * (8 * n * (1 + samples) + 8)
    have = memory_bytes() if have is None else have
    if need <= have // 2:   # half: the rest of the analysis, and the copies numpy makes, need room too
        return
    most = max(1, have // 2 // (8 * n * (1 + samples) + 8))
    most = int(float(f"{most:.2g}"))   # a round number to type
    raise OptionError(f"{opt('n_resamples', n_resamples)}: a bootstrap of {n_resamples:,} resamples over {n:,} "
                      f"items holds about {_size(need)} in memory at once, more than the {_size(have)} this "
                      f"process can use; lower {opt('n_resamples')} to {most:,} or fewer")


def bootstrap_interval(samples: tuple, statistic: Callable, *, confidence: float, n_resamples: int, rng,
                       method: str = "BCa") -> tuple[float, float]:
    """The two-sided bootstrap interval of ``statistic`` over the items of ``samples`` (see the module's description).

    Parameters
    ----------
    samples : tuple of 1-d arrays
        One value per item in each, resampled together (the same items for every sample).
    statistic : callable
        ``statistic(*samples, axis=-1)``, vectorized along the last axis.
    confidence : float
    n_resamples : int
    rng : numpy.random.Generator
    method : {"BCa", "percentile"}

    Returns
    -------
    (low, high) : floats, nan where the interval is undefined (BCa on resamples that all tie, say)

    Examples
    --------
    >>> g = np.array([0.5, 1.25, -0.25, 2.0, 0.75, 1.5, 0.0, 1.0])
    >>> low, high = bootstrap_interval((g,), np.mean, confidence=0.95, n_resamples=2000,
    ...                                rng=np.random.default_rng(1), method="percentile")
    >>> bool(low < g.mean() < high)
    True
    """
    check_bootstrap_memory(int(n_resamples), np.asarray(samples[0]).shape[-1], len(samples))
    with np.errstate(divide="ignore", invalid="ignore"):   # resamples without spread: nan, as scipy's
        return _interval([np.asarray(s, dtype=float) for s in samples], statistic, confidence, n_resamples, rng,
                         method)


def _interval(data: list, statistic: Callable, confidence: float, n_resamples: int, rng, method: str) -> tuple:
    data = canonical_items(data)
    n = data[0].shape[-1]
    index = rng.integers(0, n, (int(n_resamples), n))
    theta_b = np.asarray(statistic(*(s[..., index] for s in data), axis=-1), dtype=float)
    alpha = (1.0 - confidence) / 2.0
    if method == "percentile":
        lo_q, hi_q = alpha, 1.0 - alpha
    elif method == "BCa":
        theta_hat = float(statistic(*data, axis=-1))
        below = np.count_nonzero(theta_b < theta_hat) + np.count_nonzero(theta_b <= theta_hat)
        lo_q, hi_q = bca_levels(data, statistic, below / (2.0 * theta_b.size), alpha)
    else:
        raise ValueError(f"method must be 'BCa' or 'percentile', not {method!r}")
    if np.isnan(lo_q) or np.isnan(hi_q):
        return np.nan, np.nan
    return _quantile(theta_b, lo_q), _quantile(theta_b, hi_q)


def canonical_items(data: list) -> list:
    """The items of 1-d samples (one value per item in each) in an order of their values, the first sample's
    first: a bootstrap drawn over them draws the same resamples whatever the log's row order and the items'
    names. Samples of more dimensions are returned as they are.

    >>> [s.tolist() for s in canonical_items([np.array([2.0, 1.0, 2.0]), np.array([0.0, 5.0, -1.0])])]
    [[1.0, 2.0, 2.0], [5.0, -1.0, 0.0]]
    """
    if not data or any(np.ndim(s) != 1 for s in data):
        return data
    order = np.lexsort(data[::-1])
    return [s[order] for s in data]


def bca_levels(data: list, statistic: Callable, share_below: float, alpha: float) -> tuple:
    """BCa's two quantile levels: ``z0`` the normal quantile of ``share_below`` (the resamples below the
    estimate, ties counting half), the acceleration from the jackknife of ``statistic`` over ``data``'s items
    (each row leaves one item out), ``alpha`` each tail's share."""
    n = data[0].shape[-1]
    z0 = norm_ppf(share_below)
    keep = ~np.eye(n, dtype=bool)
    leave_one = np.broadcast_to(np.arange(n), (n, n))[keep].reshape(n, n - 1)
    theta_i = np.asarray(statistic(*(s[..., leave_one] for s in data), axis=-1), dtype=float)
    u = (n - 1) * (np.mean(theta_i) - theta_i)
    a_hat = 1 / 6 * (np.sum(u**3) / n**3) / (np.sum(u**2) / n**2) ** (3 / 2)
    z_alpha = norm_ppf(alpha)
    ends = []
    for z in (z_alpha, -z_alpha):
        num = z0 + z
        shifted = float(z0 + num / (1 - a_hat * num))
        ends.append(norm_cdf(shifted) if not np.isnan(shifted) else np.nan)
    return tuple(ends)


def _quantile(x: np.ndarray, p: float) -> float:
    """The linear-interpolation quantile (Hyndman and Fan's 7) as ``(1 - g) y_j + g y_(j+1)``, nan if any value is.

    Written out rather than :func:`numpy.quantile`, whose ``y_j + g (y_(j+1) - y_j)`` gives nan between two
    infinite resamples (a d_av whose resampled items' means do not vary), where this gives the infinity.

    >>> _quantile(np.array([3.0, 1.0, 2.0, 4.0]), 0.5), _quantile(np.array([-np.inf, -np.inf, 1.0]), 0.25)
    (2.5, -inf)
    """
    if np.isnan(x).any():
        return float("nan")
    y = np.sort(x)
    return quantile_of(lambda j: y[j], y.size, p)


def quantile_of(kth: Callable, n: int, p: float) -> float:
    """The linear-interpolation quantile ``p`` of ``n`` values from ``kth(j)``, the ``j``-th smallest (no nan
    among them): :func:`_quantile` when the sorted values are not all at hand."""
    lo, hi, g = quantile_places(n, p)
    return float((1 - g) * kth(lo) + g * kth(hi))


def quantile_places(n: int, p: float) -> tuple[int, int, float]:
    """The two sorted places the linear-interpolation quantile ``p`` of ``n`` values reads, and the weight
    ``g`` of the upper one.

    >>> quantile_places(4, 0.5)
    (1, 2, 0.5)
    """
    jg = p * n + (1 - p)
    j = int(jg // 1) - 1
    g = 0.0 if j < 0 else jg % 1
    return min(max(j, 0), n - 1), min(max(j + 1, 0), n - 1), g
