"""d_av's BCa bootstrap for many item tables at once (the groups of ``--by``), with the numbers of one at a time.

Each table's interval (:func:`probestats.stats.effects.effect_sizes`) draws its resamples from a generator
seeded alike, so tables of the same number of items draw the same rows of item indices: here they are drawn
once, as the count of each item in each resample (a resamples x items matrix), and every table's resampled
sums and sums of squares come from one matrix product with the tables' centred item means. That gives each
resample's d_av to within a rounding error bounded below (:func:`_approximate`); the interval reads only a
few of the sorted resamples (four order statistics and the count below the estimate), so only the resamples
whose value lies within that bound of one of those are computed again as one table alone computes them
(the same gathers and numpy reductions, row by row), and the interval is the one that table alone gives,
to the last bit. A resample whose spread is too small for the bound (its items nearly alike) is computed
again whole.
"""

from __future__ import annotations

import numpy as np

from probestats.stats.resample import bca_levels, canonical_items, check_bootstrap_memory, quantile_of, quantile_places

__all__ = ["d_av", "dav_bca_many"]

_EPS = np.finfo(float).eps
#: resamples x tables whose matrix product is held at once
_PRODUCT_CELLS = 4_000_000


def d_av(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    """d_av of item means along ``axis``: ``(mean a - mean b) / sqrt((var a + var b) / 2)`` (numpy's mean and
    variance, ``ddof=1``), the statistic every d_av bootstrap resamples.

    >>> float(d_av(np.array([2.0, 4.0]), np.array([1.0, 1.0])))   # 2 / sqrt((2 + 0) / 2)
    2.0
    """
    sd = np.sqrt((np.var(a, ddof=1, axis=axis) + np.var(b, ddof=1, axis=axis)) / 2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.mean(a, axis=axis) - np.mean(b, axis=axis)) / sd


def dav_bca_many(pairs: list, *, confidence: float, n_resamples: int, seed: int) -> list[tuple[float, float]]:
    """The BCa bootstrap interval ``(low, high)`` of d_av for each ``(mean_a, mean_b)`` pair of item means, as
    ``bootstrap_interval((a, b), d_av, ..., rng=np.random.default_rng(seed), method="BCa")`` gives it for
    each pair alone (nan ends where that gives nan). Every pair has at least three items.

    >>> rng = np.random.default_rng(4)
    >>> pairs = [(rng.normal(size=n), rng.normal(size=n)) for n in (8, 8, 12)]
    >>> from probestats.stats.effects import _d_av
    >>> from probestats.stats.resample import bootstrap_interval
    >>> alone = [bootstrap_interval(p, d_av, confidence=0.9, n_resamples=999, rng=np.random.default_rng(7),
    ...                             method="BCa") for p in pairs]
    >>> dav_bca_many(pairs, confidence=0.9, n_resamples=999, seed=7) == alone
    True
    """
    # each pair's items in the order bootstrap_interval draws them in
    pairs = [canonical_items([np.asarray(a, dtype=float), np.asarray(b, dtype=float)]) for a, b in pairs]
    out: list = [None] * len(pairs)
    sizes: dict[int, list[int]] = {}
    for k, (a, _) in enumerate(pairs):
        sizes.setdefault(len(a), []).append(k)
    for n, members in sizes.items():
        check_bootstrap_memory(int(n_resamples), n, 2)
        index = np.random.default_rng(seed).integers(0, n, (int(n_resamples), n))   # each pair's own draws
        rows = np.arange(index.shape[0])[:, None] * n
        counts = np.bincount((rows + index).ravel(), minlength=index.size).reshape(index.shape).astype(float)
        step = max(1, _PRODUCT_CELLS // (4 * index.shape[0]))
        for first in range(0, len(members), step):
            chunk = members[first:first + step]
            a = np.stack([np.asarray(pairs[k][0], dtype=float) for k in chunk])
            b = np.stack([np.asarray(pairs[k][1], dtype=float) for k in chunk])
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                theta, close, spread = _approximate(a, b, counts)
            with np.errstate(divide="ignore", invalid="ignore"):   # as bootstrap_interval
                for j, k in enumerate(chunk):
                    out[k] = _interval(a[j], b[j], index, theta[j], close[j], float(spread[j]), confidence)
    return out


def _approximate(a: np.ndarray, b: np.ndarray, counts: np.ndarray) -> tuple:
    """Each resample's d_av (tables x resamples) from one matrix product; the resamples too close to call
    (computed alone, then); each table's bound on the distance of its other resamples from the values
    computed alone."""
    g, n = a.shape
    mean_a, mean_b = a.mean(axis=1), b.mean(axis=1)
    ca, cb = a - mean_a[:, None], b - mean_b[:, None]
    sums = np.concatenate([ca, cb, ca * ca, cb * cb]) @ counts.T
    sa, sb, qa, qb = sums[:g], sums[g:2 * g], sums[2 * g:3 * g], sums[3 * g:]
    qa -= sa * sa / n   # (n - 1) times each resample's variance
    qb -= sb * sb / n
    s2 = qa
    s2 += qb
    s2 /= 2.0 * (n - 1)
    theta = sa
    theta -= sb
    theta /= n
    theta += (mean_a - mean_b)[:, None]
    theta /= np.sqrt(s2)
    # the rounding of the product, of the centring and of one table's own numpy sums (each a sum of n terms,
    # within n eps of the sum of their sizes), with room to spare: the numerator within 8 n eps of the items'
    # sizes, each variance within 32 n eps of the largest centred square plus the square of its mean's error
    top_a, top_b = np.abs(ca).max(axis=1), np.abs(cb).max(axis=1)
    size_a, size_b = np.abs(mean_a) + top_a, np.abs(mean_b) + top_b
    err_num = 8 * n * _EPS * (size_a + size_b)
    err_s2 = (32 * n * _EPS * (top_a ** 2 + top_b ** 2) + 8 * (n * _EPS) ** 2 * (size_a ** 2 + size_b ** 2)) / 2.0
    close = ~(s2 > 8 * err_s2[:, None]) | ~np.isfinite(theta)
    least = np.where(close, np.inf, s2).min(axis=1)
    top = np.where(close, 0.0, np.abs(theta)).max(axis=1)
    spread = 2.0 * (err_num / np.sqrt(least) + top * err_s2 / least)
    return theta, close, np.where(np.isfinite(spread), spread, 0.0)


def _interval(a: np.ndarray, b: np.ndarray, index: np.ndarray, theta: np.ndarray, close: np.ndarray,
              spread: float, confidence: float) -> tuple[float, float]:
    """One pair's BCa ends from its approximate resamples (each within ``spread`` of its value computed alone,
    but the ``close`` ones), those near what the interval reads computed alone."""
    done = np.zeros(theta.size, dtype=bool)
    theta = theta.copy()

    def alone(rows: np.ndarray) -> None:   # these resamples as the pair alone computes them
        rows = rows[~done[rows]]
        if rows.size:
            idx = index[rows]
            theta[rows] = np.asarray(d_av(a[idx], b[idx], axis=-1), dtype=float)
            done[rows] = True

    alone(np.flatnonzero(close) if close.sum() <= theta.size // 4 else np.arange(theta.size))
    alpha = (1.0 - confidence) / 2.0
    theta_hat = float(d_av(a, b, axis=-1))
    alone(np.flatnonzero(np.abs(theta - theta_hat) <= 2 * spread))
    below = np.count_nonzero(theta < theta_hat) + np.count_nonzero(theta <= theta_hat)
    lo_q, hi_q = bca_levels([a, b], d_av, below / (2.0 * theta.size), alpha)
    if np.isnan(lo_q) or np.isnan(hi_q) or np.isnan(theta).any():
        return np.nan, np.nan
    places = sorted({j for q in (lo_q, hi_q) for j in quantile_places(theta.size, q)[:2]})
    guesses = dict(zip(places, np.partition(theta, places)[places]))

    def kth(j: int) -> float:
        """The j-th smallest resample as the pair alone computes it: within ``spread`` of the j-th of the
        approximate values, so among the resamples within twice that of it."""
        guess = guesses[j]
        if not np.isfinite(guess):   # an infinity is a resample computed alone, as are all at its place
            return guess
        near = np.abs(theta - guess) <= 2 * spread
        lower = np.count_nonzero(~near & (theta < guess))
        alone(np.flatnonzero(near))
        return np.sort(theta[near])[j - lower]

    return quantile_of(kth, theta.size, lo_q), quantile_of(kth, theta.size, hi_q)
