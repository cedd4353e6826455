"""The exact noncentrality interval of many t statistics at once, the same numbers as one at a time.

:func:`~probestats.stats.effects.noncentrality_interval` inverts the noncentral t of one statistic by
bisection: about 45 halvings a root, each a call of :func:`~probestats.stats.distributions.nct_cdf` in
Python, which with a thousand ``--by`` groups cost a fifth of the analysis. :func:`noncentrality_intervals`
runs the same bisections side by side, one array step for every statistic, and evaluates Owen's form of the
distribution function on arrays (:func:`nct_cdf_many`).

The ends are the same floats as one statistic's alone. Bisection keeps only the sign of ``P(T <= t) -
target`` at each midpoint, so two evaluations that differ in their last bits give the same root wherever they
agree on that sign. The array evaluation computes the recursion of Owen's form with the same operations in
the same order (its normal densities and tails from :mod:`math`, element by element), so its terms are the
same floats; it differs from the one-at-a-time function only where the latter uses :func:`math.fsum` and
:func:`math.exp` (the sums and Owen's T quadrature), and :func:`nct_cdf_many` returns a bound on that
difference (a few hundred units in the last place of the terms summed). A sign is read from the arrays only
where the value lies farther than the bound from the target; elsewhere (in the last halving or two of a root,
or a value that is not finite) the one-at-a-time function decides, so every step is the one it takes alone.
"""

from __future__ import annotations

import math

import numpy as np

from probestats.stats.distributions import NCT_OWEN_MAX_DF, nct_cdf, norm_cdf, norm_pdf

__all__ = ["nct_below", "nct_cdf_many", "noncentrality_intervals"]

_EPS = float(np.finfo(float).eps)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_NODES: list = []   # Gauss-Legendre's 48 nodes and weights, as owens_t uses them


def nct_below(df: float, nc: float, t: float) -> float:
    """``P(T <= t)`` under noncentrality ``nc``, as the interval's roots read it: far in its tails, where the
    distribution function can be nan, the other tail (``P(T >= t) = P(T' <= -t)`` at ``-nc``) or the limit on
    that side stands in.

    >>> round(nct_below(9, 0.0, 1.383028738396632), 12)
    0.9
    """
    value = nct_cdf(df, nc, t)
    if math.isnan(value):
        value = 1.0 - nct_cdf(df, -nc, -t)
    if math.isnan(value):
        value = 1.0 if nc < t else 0.0
    return value


def _each(f, x: np.ndarray) -> np.ndarray:
    """``f`` (a function of one float from :mod:`math`) at each element, the same floats as called alone."""
    return np.fromiter(map(f, x.tolist()), dtype=float, count=x.size)


def _owens_t_many(h: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~probestats.stats.distributions.owens_t` at each ``(h, a)``, and a bound on the difference from
    it: the quadrature's terms summed by numpy (and its exponentials), not by :func:`math.fsum`."""
    if not _NODES:
        from numpy.polynomial.legendre import leggauss

        _NODES.extend(leggauss(48))
    nodes, weights = _NODES
    sign = np.where(a < 0, -1.0, 1.0)
    a = np.abs(a)
    h = np.abs(h)
    wide = a > 1
    ph = np.zeros_like(h)
    pah = np.zeros_like(h)
    if wide.any():   # T(h, a) = Phi(h) / 2 + Phi(a h) / 2 - Phi(h) Phi(a h) - T(a h, 1 / a)
        ph[wide], pah[wide] = _each(norm_cdf, h[wide]), _each(norm_cdf, a[wide] * h[wide])
    hq = np.where(wide, a * h, h)
    aq = np.where(wide, 1.0 / np.where(wide, a, 1.0), a)
    u = 0.5 * aq[:, None] * (nodes[None, :] + 1.0)
    q = 1.0 + u * u
    terms = weights[None, :] * np.exp((-0.5 * hq * hq)[:, None] * q) / q
    total = terms.sum(axis=1)
    quad = 0.25 * aq * total / math.pi
    err = 512.0 * _EPS * np.abs(quad) + 1e-300
    value = np.where(wide, 0.5 * ph + 0.5 * pah - ph * pah - quad, quad)
    value = np.where(a == 0, 0.0, value)
    return sign * value, err + 4.0 * _EPS * np.abs(value)


def nct_cdf_many(df: int, nc: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~probestats.stats.distributions.nct_cdf` (Owen's form) at each ``(nc, t)`` for one whole ``df``
    from 1 to :data:`~probestats.stats.distributions.NCT_OWEN_MAX_DF`, and a bound on each value's difference
    from it (a value that is not finite has an infinite bound).

    >>> nc, t = np.array([0.3, -1.0, 2.0]), np.array([1.2, 0.5, 2.5])
    >>> value, bound = nct_cdf_many(9, nc, t)
    >>> bool(np.all(np.abs(value - [nct_cdf(9, x, y) for x, y in zip(nc, t)]) <= bound))
    True
    """
    if not (float(df).is_integer() and 1 <= df <= NCT_OWEN_MAX_DF):
        raise ValueError(f"Owen's form needs a whole df from 1 to {NCT_OWEN_MAX_DF}, not {df!r}")
    df = int(df)
    nc, t = np.asarray(nc, dtype=float), np.asarray(t, dtype=float)
    with np.errstate(all="ignore"):
        a_ = t / math.sqrt(df)
        b_ = df / (df + t * t)
        sb = np.sqrt(b_)
        m = [np.zeros_like(nc) for _ in range(max(df, 3))]
        # the same operations in the same order as nct_cdf: the same floats
        m[0] = a_ * sb * _each(norm_pdf, nc * sb) * _each(norm_cdf, nc * a_ * sb)
        m[1] = b_ * (nc * a_ * m[0] + a_ * _each(norm_pdf, nc) / _SQRT_2PI)
        m[2] = 0.5 * b_ * (nc * a_ * m[1] + m[0])
        ak = 1.0
        for k in range(3, df - 1):
            ak = 1.0 / ((k - 2) * ak)
            m[k] = (k - 1) / k * b_ * (ak * nc * a_ * m[k - 1] + m[k - 2])
        summed = np.stack(m[1:df - 1:2] if df % 2 == 1 else m[0:df - 1:2]) if df > 1 else np.zeros((1, nc.size))
        total, size = summed.sum(axis=0), np.abs(summed).sum(axis=0)
        if df % 2 == 1:
            lead = _each(norm_cdf, -nc * sb)
            owen, owen_err = _owens_t_many(nc * sb, a_)
            value = lead + 2.0 * owen + 2.0 * total
            err = 2.0 * owen_err + 2.0 * (df + 4) * _EPS * size
            spread = np.abs(lead) + 2.0 * np.abs(owen) + 2.0 * np.abs(total)
        else:
            lead = _each(norm_cdf, -nc)
            value = lead + _SQRT_2PI * total
            err = _SQRT_2PI * (df + 4) * _EPS * size
            spread = np.abs(lead) + _SQRT_2PI * np.abs(total)
        bound = 4.0 * (err + 8.0 * _EPS * (spread + 1.0))
    finite = np.isfinite(value) & np.isfinite(bound)
    return np.clip(np.where(finite, value, 0.0), 0.0, 1.0), np.where(finite, bound, np.inf)


def noncentrality_intervals(t, df, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """:func:`~probestats.stats.effects.noncentrality_interval` of each statistic ``t[i]`` on ``df[i]``
    degrees of freedom: the same ends, to the bit (see the module's description).

    >>> from probestats.stats.effects import noncentrality_interval
    >>> t, df = np.array([0.0, 2.5, -1.3, 4.0]), np.array([9, 19, 19, 4])
    >>> lo, hi = noncentrality_intervals(t, df)
    >>> [(float(x), float(y)) for x, y in zip(lo, hi)] == [noncentrality_interval(x, int(d)) for x, d in zip(t, df)]
    True
    """
    t = np.asarray(t, dtype=float)
    df = np.asarray(df)
    if not np.isfinite(t).all():
        raise ValueError("the statistics must be finite")
    lo_out, hi_out = np.empty(t.size), np.empty(t.size)
    tail = (1.0 - confidence) / 2.0
    for d in np.unique(df):
        members = np.flatnonzero(df == d)
        tt = np.concatenate([t[members], t[members]])
        targets = np.concatenate([np.full(members.size, 1.0 - tail), np.full(members.size, tail)])
        d = int(d) if float(d).is_integer() else float(d)
        roots = _roots(d, tt, targets)
        lo_out[members], hi_out[members] = roots[:members.size], roots[members.size:]
    return lo_out, hi_out


def _roots(df, t: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Each noncentrality at which ``P(T <= t[i])`` is ``target[i]``, the bracket and bisection of
    ``noncentrality_interval`` (and ``_falling_root``, to within 1e-12) step for step; outside Owen's form
    (``df`` above :data:`~probestats.stats.distributions.NCT_OWEN_MAX_DF` or not whole) every sign is read
    one at a time."""
    owen = float(df).is_integer() and 1 <= df <= NCT_OWEN_MAX_DF

    def above(nc: np.ndarray, which: np.ndarray, strict_below: bool) -> np.ndarray:
        # the sign of P(T <= t) - target at nc for the statistics ``which``: ``f > 0`` (or ``f < 0``)
        value, bound = nct_cdf_many(df, nc, t[which]) if owen else (np.zeros(nc.size), np.full(nc.size, np.inf))
        gap = value - target[which]
        out = gap < 0 if strict_below else gap > 0
        for j in np.flatnonzero(~(np.abs(gap) > bound)):   # too close to call from the arrays: as alone
            i = which[j]
            f = nct_below(df, float(nc[j]), float(t[i])) - float(target[i])
            out[j] = f < 0 if strict_below else f > 0
        return out

    width = 4.0 * np.sqrt(1.0 + t * t / (2.0 * df))
    lo, hi = t - width, t + width
    everyone = np.arange(t.size)
    which = everyone
    while which.size:   # while f(lo) < 0: lo -= width
        move = above(lo[which], which, strict_below=True)
        which = which[move]
        lo[which] -= width[which]
    which = everyone
    while which.size:   # while f(hi) > 0: hi += width
        move = above(hi[which], which, strict_below=False)
        which = which[move]
        hi[which] += width[which]
    which = everyone[hi - lo > 1e-12]
    while which.size:
        mid = 0.5 * (lo[which] + hi[which])
        inside = (mid > lo[which]) & (mid < hi[which])   # else no float lies between the ends
        which, mid = which[inside], mid[inside]
        up = above(mid, which, strict_below=False)
        lo[which[up]] = mid[up]
        hi[which[~up]] = mid[~up]
        which = which[hi[which] - lo[which] > 1e-12]
    return 0.5 * (lo + hi)
