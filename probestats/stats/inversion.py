"""The exact sign-flip p of shifted gaps, for every shift at once: the inversion behind an interval.

A sign pattern ``s`` gives the shifted gaps ``g - d`` the sum ``sum s_i (g_i - d) = T - d C`` with
``T = sum s_i g_i`` and ``C = sum s_i``. So the joint law of ``(T, C)`` over the ``2**n`` equally
likely patterns gives the two-sided sign-flip p of ``g - d`` for any shift ``d``:
``p(d) = P(|T - d C| >= |S - d n|)``, ``S`` the observed sum (ties count as at least as extreme,
as in :func:`probestats.stats.hypotests.sign_flip_test`). When the gaps lie on a lattice of step
``1/L`` (means of whole-number metrics), ``T`` is a whole number of steps and the law is a table of
``(2 sum|m_i| + 1) x (n + 1)`` probabilities, built exactly by convolution (equal gaps at once,
the zero gaps as one binomial law of ``C``): no Monte Carlo at any n the table fits.

``p(d)`` is a step function of the shift. It jumps only where some pattern's shifted sum ties the
observed one, ``T - d C = +-(S - d n)``: at ``d = (S - T)/(n - C)`` or ``(S + T)/(n + C)`` (a
gap's own value, where it becomes 0, and the means of subsets of gaps). Each condition ``>=`` holds
on a closed set of shifts, so ``p`` takes the larger of its two neighbouring values at a jump: the
set of shifts the test keeps ends at jumps, and each end belongs to it (the interval is closed).
:meth:`SignLaw.end` finds an end by bisection on ``p`` and then walks the jumps near it, with ``p``
evaluated in exact integer arithmetic at each jump.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["SignLaw", "LAW_BUDGET"]

#: Largest table size times convolution terms for which the joint law is built (about a second).
LAW_BUDGET = 3e8
#: Tie tolerance relative to the observed sum or the largest shifted gap (as the sign-flip test's).
_TIE = 1e-9


class SignLaw:
    """The joint law of ``(T, C)`` for gaps ``m / L`` (``m`` whole numbers, zeros included).

    Examples
    --------
    Gaps 1, 2, 3: the two-sided p of the gaps themselves (shift 0) is 2/8, and of ``g - 2``
    (gaps -1, 0, 1, sum 0) it is 1:

    >>> law = SignLaw.build(np.array([1, 2, 3]), 1)
    >>> law.pvalue(0.0), law.pvalue_at(2, 1)
    (0.25, 1.0)
    """

    def __init__(self, t: np.ndarray, c: np.ndarray, w: np.ndarray, total: int, n: int, L: int, gmax: int,
                 gmin: int):
        self.t, self.c, self.w = t, c, w
        self.total, self.n, self.L, self.gmax, self.gmin = total, n, L, gmax, gmin

    @staticmethod
    def cost(m: np.ndarray) -> float:
        """Array operations the table of these whole-number gaps takes to build."""
        m = np.asarray(m, dtype=np.int64)
        groups = np.unique(m).size
        return float(2 * np.abs(m).sum() + 1) * (m.size + 1) * (m.size + groups)

    @classmethod
    def build(cls, m: np.ndarray, L: int) -> SignLaw:
        """The law of gaps ``m / L`` (see the module docstring), by convolution of each value's binomial law."""
        m = np.asarray(m, dtype=np.int64)
        n = int(m.size)
        span = int(np.abs(m).sum())
        table = np.zeros((2 * span + 1, n + 1))
        table[span, 0] = 1.0
        values, counts = np.unique(m, return_counts=True)
        reach_t, reach_p = 0, 0   # the filled extent: |T| <= reach_t, plus count <= reach_p
        for value, k in zip(values.tolist(), counts.tolist()):
            new = np.zeros_like(table)
            lo_t, hi_t = span - reach_t, span + reach_t + 1
            block = table[lo_t:hi_t, :reach_p + 1]
            for j in range(k + 1):
                weight = math.comb(k, j) / 2.0**k
                dt = value * (2 * j - k)
                new[lo_t + dt:hi_t + dt, j:j + reach_p + 1] += weight * block
            table = new
            reach_t += abs(value) * k
            reach_p += k
        ti, pi = np.nonzero(table)
        return cls(ti.astype(np.int64) - span, 2 * pi.astype(np.int64) - n, table[ti, pi], int(m.sum()), n, int(L),
                   int(m.max()), int(m.min()))

    def pvalue(self, d: float, tol: bool = True) -> float:
        """The two-sided p of the gaps shifted by ``d`` (floats; ties within the sign-flip test's tolerance
        count, or only exact ones with ``tol=False``)."""
        Ld = self.L * float(d)
        obs = abs(self.total - Ld * self.n)
        margin = _TIE * max(obs, max(abs(self.gmax - Ld), abs(self.gmin - Ld))) if tol else 0.0
        if obs - margin <= 0:
            return 1.0
        return min(1.0, float(self.w[np.abs(self.t - Ld * self.c) >= obs - margin].sum()))

    def pvalue_at(self, num: int, den: int) -> float:
        """The two-sided p of the gaps shifted by exactly ``num / (L * den)`` (``den > 0``), in integers."""
        obs = abs(self.total * den - num * self.n)
        if obs == 0:
            return 1.0
        return min(1.0, float(self.w[np.abs(self.t * den - num * self.c) >= obs].sum()))

    def jumps(self, low: float, high: float) -> list[tuple[float, int, int]]:
        """The shifts in ``[low, high]`` where ``p`` may jump, as ``(shift, num, den)`` with shift ``num/(L den)``."""
        out = {}
        for sign in (1, -1):   # T - dC = S - dn  and  T - dC = -(S - dn)
            den = self.n - sign * self.c
            ok = den != 0
            num, den = self.total - sign * self.t[ok], den[ok]
            neg = den < 0
            num, den = np.where(neg, -num, num), np.where(neg, -den, den)
            at = num / (self.L * den.astype(float))
            keep = (at >= low) & (at <= high)
            for x, a, b in zip(at[keep].tolist(), num[keep].tolist(), den[keep].tolist()):
                g = math.gcd(a, b)
                out[(a // g, b // g)] = x
        return sorted((x, a, b) for (a, b), x in out.items())

    def end(self, inside: float, outside: float, alpha: float, xtol: float) -> float:
        """The end of the kept shifts between a kept shift ``inside`` and a rejected one ``outside``.

        Bisection on ``p`` to ``xtol``, then the jumps within a few ``xtol`` of where it stopped are
        walked outward with ``p`` exact at each: the end is the last jump the test keeps before the
        first open stretch it rejects (a jump keeps the larger of its neighbours' p, so an end is
        always a jump and belongs to the interval).
        """
        good, bad = inside, outside
        while abs(bad - good) > xtol:
            mid = 0.5 * (bad + good)
            if self.pvalue(mid) <= alpha:
                bad = mid
            else:
                good = mid
        width = 4 * xtol + 1e-12 * max(abs(good), 1.0)
        lo, hi = min(good, bad) - width, max(good, bad) + width
        found = self.jumps(lo, hi)
        if outside < inside:
            found = found[::-1]
        end = None
        for i, (x, num, den) in enumerate(found):
            if self.pvalue_at(num, den) <= alpha:
                break   # a rejected jump: the stretches on both sides are rejected too
            end = x
            beyond = found[i + 1][0] if i + 1 < len(found) else (hi if outside > inside else lo)
            if self.pvalue(0.5 * (x + beyond), tol=False) <= alpha:
                break
        return good if end is None else end
