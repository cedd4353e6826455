"""Deciding p <= alpha for thousands of simulated probes without computing every p.

The power simulation of :mod:`probestats.analyses.plan` needs, for each simulated probe, only
whether the exact sign-flip test rejects at alpha. :func:`decide_rejections` settles that
decision, exactly as :func:`probestats.stats.hypotests.sign_flip_test` would, with the least work:
up to :data:`DECIDE_EXACT_ITEMS` - 1 items every sign pattern is enumerated; beyond, certified
bounds on each probe's p (Hoeffding, Berry-Esseen, then the gaps rounded to a lattice with the
rounding accounted for) settle the clear-cut probes, and the few near alpha are enumerated (up to
:data:`DECIDE_ENUMERATE_OPEN` items, all at once), or refined to the gaps' own lattice or handed to the test
itself. Numbers in, booleans out: nothing here reads a log.

>>> import numpy as np
>>> decide_rejections(np.array([[1.0] * 8, [1.0, -1.0] * 4]), 0.05, "two-sided").tolist()
[True, False]
"""

from __future__ import annotations

import math

import numpy as np

from probestats.stats.hypotests import (MITM_AUTO_MAX, extreme_thresholds, sign_flip_bounds, sign_flip_pvalues,
                                        sign_flip_test)
from probestats.stats.lattice import pattern_sums

__all__ = ["decide_rejections", "DECIDE_EXACT_ITEMS", "DECIDE_NOTE"]



#: Below this many items every simulated probe's p is computed exactly (vectorized enumeration, fast).
DECIDE_EXACT_ITEMS = 20
#: An upper bound on the Berry-Esseen constant for sums of independent, not identically distributed
#: summands: |P(S < x) - Phi(x / sd)| <= 0.56 * sum E|X_i|^3 / sd^3 at every x.
BERRY_ESSEEN_C = 0.56
#: Work (items x lattice steps) up to which one probe's tail is counted on a lattice before handing it
#: to :func:`probestats.stats.hypotests.sign_flip_test`.
DECIDE_BUDGET = 40_000_000
#: Steps per largest gap of the first, coarse lattice a near-alpha probe is rounded to.
DECIDE_COARSE = 64
#: Relative widths asked of the certified bounds, in turn, for continuous gaps beyond enumeration.
DECIDE_FOURIER_RTOLS = (0.2, 0.02, 0.002)
#: Work up to which continuous gaps are rounded and counted here before sign_flip_bounds takes over.
DECIDE_ROUNDED_BUDGET = 4_000_000
#: Work up to which a probe on a known lattice is counted exactly at once, without coarse rounds.
DECIDE_DIRECT = 1_000_000
#: Items up to which the probes the screen leaves open are enumerated, all at once (meet in the middle, as
#: :func:`~probestats.stats.hypotests.sign_flip_pvalues` does): one vectorized call for all of them costs a
#: fraction of deciding each on its own lattice (20 items of counts: 112,000 open probes in a plan took 25 s one
#: by one).
DECIDE_ENUMERATE_OPEN = 24
DECIDE_NOTE = (f"every simulated probe's decision is the exact test's: up to {DECIDE_EXACT_ITEMS - 1} items all "
               "sign patterns are enumerated; beyond, a probe is decided by certified bounds on its p "
               f"(Hoeffding and Berry-Esseen); up to {DECIDE_ENUMERATE_OPEN} items the probes they leave open are "
               "enumerated, and beyond, decided by the distribution of their gaps rounded to a lattice, rounding "
               "accounted, refined to the gaps' own lattice (whole-number metrics: the exact p) until the "
               "bounds lie on one side of alpha; continuous gaps whose bounds still straddle alpha are decided as "
               "sign_flip_test reports them, by its certified upper bound once its bounds lie within 1% of each other")


def _tail_screen(gaps: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Certified (upper, lower) bounds on ``P(sum s_i g_i >= x)`` per row, for random signs ``s_i``.

    Upper: Hoeffding, ``exp(-x^2 / (2 sum g^2))`` for ``x > 0``, and the normal tail plus the
    Berry-Esseen bound; lower: the normal tail less that bound. Both are cheap; they decide the
    probes far from alpha. The summands ``s_i g_i`` have variance ``g_i^2`` and third absolute
    moment ``|g_i|^3``.
    """
    from scipy.special import ndtr

    sq = np.einsum("ij,ij->i", gaps, gaps)
    sd = np.sqrt(sq)
    absolute = np.abs(gaps)
    cube = absolute * absolute * absolute
    safe = np.where(sd > 0, sd, 1.0)
    err = BERRY_ESSEEN_C * cube.sum(axis=1) / safe ** 3
    normal = ndtr(-x / safe)
    pos = np.maximum(x, 0.0)
    hoeffding = np.where(x > 0, np.exp(-pos * pos / (2 * np.where(sq > 0, sq, 1.0))), 1.0)
    upper = np.minimum(np.minimum(hoeffding, normal + err), 1.0)
    lower = np.maximum(normal - err, 0.0)
    zero = sd == 0        # every gap zero: the sum is 0, at least as extreme as x only when x <= 0
    upper = np.where(zero, (x <= 0).astype(float), upper)
    lower = np.where(zero, (x <= 0).astype(float), lower)
    return upper, lower


def _subset_tails(a: np.ndarray, cs: list[int]) -> list[float]:
    """``P(Y <= c)`` for each ``c`` in ``cs``, where ``Y`` sums a random subset of the whole numbers ``a``
    (each in it with probability 1/2): the subset-sum counts, by dynamic programming."""
    a = a[a > 0]          # a zero is in or out alike
    total = int(a.sum())
    out: list[float | None] = [None] * len(cs)
    need = []   # the counts up to c, or (by the symmetry Y ~ total - Y) the complement's
    for j, c in enumerate(cs):
        if c < 0:
            out[j] = 0.0
        elif c >= total:
            out[j] = 1.0
        else:
            need.append((j, c, 2 * c >= total))
    if not need:
        return out
    top = max(total - c - 1 if flip else c for _, c, flip in need)
    cnt = np.zeros(top + 1)
    cnt[0] = 1.0
    vals = np.sort(a)
    vals = vals[vals <= top]          # a larger one puts Y above top: only "out" counts
    reach = np.minimum(np.cumsum(vals), top).tolist()
    scaled = 0
    add = np.add
    for done, (v, hi) in enumerate(zip(vals.tolist(), reach), 1):
        add(cnt[v:hi + 1], cnt[:hi + 1 - v], out=cnt[v:hi + 1])   # numpy buffers the overlap
        if not done & 511:    # counts up to 2**n: rescale by an exact power of two
            cnt = np.ldexp(cnt, -512)
            scaled += 512
    prefix = np.cumsum(cnt)
    rest = a.size - scaled
    for j, c, flip in need:
        p = float(np.ldexp(prefix[total - c - 1 if flip else c], -rest))
        out[j] = min(1.0, max(0.0, 1.0 - p if flip else p))
    return out


def _decide_one(g: np.ndarray, x: float, limit: float, alternative: str, lattice: int | None) -> bool:
    """Whether the exact sign-flip p of one probe's gaps is at most ``limit`` (p <= alpha: detected).

    The gaps are rounded to a lattice of step ``h`` (``g_i = h m_i + r_i``); the law of ``M = sum s_i m_i``
    is counted exactly, and the rounding moves every pattern's sum by ``R = sum s_i r_i``, with
    ``|R| <= sum |r_i|`` always and ``P(R >= t) <= exp(-t^2 / (2 sum r_i^2))`` (Hoeffding; the smaller
    shift is used, its probability added to the bounds). Then
    ``P(hM >= x + t) - d <= P(S >= x) <= P(hM >= x - t) + d``. The step is halved until the bounds
    lie on one side of ``limit``; on the gaps' own lattice (``lattice``: gaps times it are whole) the
    rounding is zero and the count is the exact p, with ties as :func:`sign_flip_test` counts them.
    """
    factor = 2.0 if alternative == "two-sided" else 1.0
    nz = g[g != 0.0]
    if nz.size == 0:      # every pattern ties: p = 1, as sign_flip_test gives
        return 1.0 <= limit
    gmax = float(np.abs(nz).max())
    if lattice is not None:
        m_exact = np.rint(nz * lattice)
        if np.max(np.abs(nz * lattice - m_exact)) > 1e-6:
            lattice = None
    exact_steps = None if lattice is None else int(np.abs(m_exact).max())
    if exact_steps is None and nz.size > MITM_AUTO_MAX:
        # continuous gaps beyond enumeration: sign_flip_test's certified bounds (from the characteristic
        # function, cost independent of the gaps' spread), coarse first, tightened until one side of limit
        for rtol in DECIDE_FOURIER_RTOLS:
            lo_p, hi_p = sign_flip_bounds(g, alternative=alternative, rtol=rtol).pvalue_bounds
            if hi_p <= limit or lo_p > limit:
                return hi_p <= limit
    steps = DECIDE_COARSE
    if exact_steps is not None and nz.size * float(np.abs(m_exact).sum()) / 2 <= DECIDE_DIRECT:
        steps = exact_steps      # the exact count is cheap enough: no coarse rounds first
    while True:
        exact = exact_steps is not None and exact_steps <= 2 * steps
        if exact:
            m = m_exact.astype(np.int64)
            a = np.abs(m)
            m_obs = int(m.sum())
            tol = int(math.floor(1e-9 * max(abs(m_obs), int(a.max()))))   # sign_flip_test's tie rule
            t_int = {"greater": m_obs, "less": -m_obs}.get(alternative, abs(m_obs)) - tol
            if alternative == "two-sided" and t_int <= 0:
                return 1.0 <= limit
            bounds = [(t_int, 0.0)]
        else:
            h = gmax / steps if lattice is None else 2.0 ** math.floor(math.log2(exact_steps / steps)) / lattice
            m_f = np.rint(nz / h)
            r = nz - h * m_f
            a = np.abs(m_f).astype(np.int64)
            scale = 1e-12 * (abs(x) + float(np.abs(nz).sum()))
            t_det = math.fsum(np.abs(r)) * (1 + 1e-12) + scale
            slack = 1e-3 * limit / factor
            t_hoef = math.sqrt(2 * math.fsum(r * r) * math.log(1 / slack)) * (1 + 1e-12) + scale
            t, d = (t_det, 0.0) if t_det <= t_hoef else (t_hoef, slack)
            lo_z, hi_z = (x + t) / h, (x - t) / h
            # P(M >= T) for the smallest whole T at or above z (rounded outward for safety)
            bounds = [(math.ceil(lo_z + 1e-9 * (1 + abs(lo_z))), -d), (math.ceil(hi_z - 1e-9 * (1 + abs(hi_z))), d)]
        total = int(a.sum())
        if a.size * (total / 2 + 1) > (DECIDE_BUDGET if exact_steps is not None else DECIDE_ROUNDED_BUDGET):
            break
        # M = total - 2 Y with Y the sum of the a_i whose sign flips: M >= T <=> Y <= (total - T) / 2
        tails = _subset_tails(a, [(total - T) // 2 for T, _ in bounds])
        if exact:
            return factor * tails[0] <= limit
        lower, upper = tails[0] + bounds[0][1], tails[1] + bounds[1][1]
        if factor * upper * (1 + 1e-10) <= limit:
            return True
        if factor * lower * (1 - 1e-10) > limit:
            return False
        steps *= 2
    return sign_flip_test(g, alternative=alternative, alpha=limit).pvalue <= limit


def decide_rejections(gaps: np.ndarray, limit: float, alternative: str, lattice: int | None = None) -> np.ndarray:
    """Whether the exact sign-flip test rejects (p <= ``limit``) for each row of ``gaps``.

    Every decision is the exact test's: rows of fewer than :data:`DECIDE_EXACT_ITEMS` gaps get
    the exact p by enumeration (:func:`probestats.stats.hypotests.sign_flip_pvalues`, all rows at
    once). Longer rows are screened by certified bounds on their p (Hoeffding's inequality and
    the Berry-Esseen bound, computed for all rows at once), which settle the probes far from
    ``limit``; each remaining row is decided by :func:`_decide_one` (its gaps rounded to a
    lattice, the rounding accounted, refined to the exact count). ``lattice``, when given, is a
    whole number ``L`` with every gap times ``L`` whole (the gaps of means of whole-number runs):
    the refinement then ends on the exact p, ties counted as :func:`sign_flip_test` counts them.

    Examples
    --------
    >>> g = np.array([[1.0] * 30, [1.0, -1.0] * 15])
    >>> decide_rejections(g, 0.05, "two-sided", lattice=1).tolist()
    [True, False]
    """
    gaps = np.asarray(gaps, dtype=float)
    rows, n = gaps.shape
    if n < DECIDE_EXACT_ITEMS or rows == 0:
        return sign_flip_pvalues(gaps, alternative=alternative) <= limit
    factor = 2.0 if alternative == "two-sided" else 1.0
    x = extreme_thresholds(gaps, alternative)
    upper, lower = _tail_screen(gaps, x)
    decision = factor * upper * (1 + 1e-9) <= limit
    keep = factor * lower * (1 - 1e-9) > limit
    if alternative == "two-sided":   # |sum| within the tie tolerance of 0: p = 1
        keep |= x <= 0
        decision &= x > 0
    open_rows = np.flatnonzero(~(decision | keep))
    if open_rows.size:
        settled, p = _equal_sizes(gaps[open_rows], alternative)
        settled &= np.abs(p - limit) > 1e-9 * limit     # a p at alpha to a float's error: counted exactly below
        decision[open_rows[settled]] = p[settled] <= limit
        open_rows = open_rows[~settled]
    if open_rows.size and n <= DECIDE_ENUMERATE_OPEN:
        decision[open_rows] = _enumerated(gaps[open_rows], limit, alternative, lattice)
        return decision
    for r in open_rows:
        decision[r] = _decide_one(gaps[r], float(x[r]), limit, alternative, lattice)
    return decision


#: Cells (rows x values of a half's sums) counted at once by :func:`_lattice_counts`.
_LATTICE_CHUNK = 4_000_000


def _enumerated(gaps: np.ndarray, limit: float, alternative: str, lattice: int | None) -> np.ndarray:
    """Whether p <= ``limit`` for each row of up to :data:`DECIDE_ENUMERATE_OPEN` gaps, every sign pattern counted.

    Rows whose gaps times ``lattice`` are whole (within 1e-6, as :func:`_decide_one` asks) are counted on that
    lattice (:func:`_lattice_counts`, with the tie rule of :func:`_decide_one`); the others, and every row without
    a lattice, by :func:`~probestats.stats.hypotests.sign_flip_pvalues`.

    >>> g = np.array([[1.0] * 20, [1.0, -1.0] * 10, [2.0] * 14 + [-1.0] * 6])
    >>> _enumerated(g, 0.05, "two-sided", 1).tolist() == (sign_flip_pvalues(g) <= 0.05).tolist()
    True
    """
    out = np.zeros(gaps.shape[0], dtype=bool)
    on = np.zeros(gaps.shape[0], dtype=bool)
    if lattice is not None:
        m = np.rint(gaps * lattice)
        on = np.max(np.abs(gaps * lattice - m), axis=1) <= 1e-6
        if on.any():
            mm = m[on]
            a = np.abs(mm)
            m_obs = mm.sum(axis=1)
            tol = np.floor(1e-9 * np.maximum(np.abs(m_obs), a.max(axis=1)))     # sign_flip_test's tie rule
            t = {"greater": m_obs, "less": -m_obs}.get(alternative, np.abs(m_obs)) - tol
            factor = 2.0 if alternative == "two-sided" else 1.0
            p = np.minimum(1.0, factor * _lattice_counts(a, t) / 2.0 ** a.shape[1])
            if alternative == "two-sided":
                p = np.where(t <= 0, 1.0, p)
            out[on] = p <= limit
    off = np.flatnonzero(~on)
    if off.size:
        out[off] = sign_flip_pvalues(gaps[off], alternative=alternative) <= limit
    return out


def _lattice_counts(a: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Per row, the number of sign patterns ``s`` with ``sum(s * a) >= t`` for whole numbers ``a >= 0``.

    Meet in the middle on the lattice: the sums of the second half's patterns are counted per value (a histogram
    per row, summed from the bottom), and each sum of the first half looks up how many of them fall short of ``t``
    less it: all rows at once, exact in floating point (whole ``t`` and sums far below 2**53).

    >>> from itertools import product
    >>> a = np.array([[3.0, 1.0, 4.0, 1.0, 5.0], [0.0, 2.0, 2.0, 7.0, 1.0]])
    >>> brute = [sum(sum(s * x for s, x in zip(signs, row)) >= 3 for signs in product((1, -1), repeat=5)) for row in a]
    >>> _lattice_counts(a, np.array([3.0, 3.0])).tolist() == brute
    True
    """
    rows, n = a.shape
    n1 = n // 2
    n_a, n_b = 2 ** n1, 2 ** (n - n1)
    out = np.empty(rows, dtype=np.int64)
    half = a[:, n1:].sum(axis=1)
    width = int(2 * half.max()) + 1 if rows else 1
    step = max(1, _LATTICE_CHUNK // max(width + 1, n_a, n_b))
    for lo in range(0, rows, step):
        hi = min(rows, lo + step)
        r = hi - lo
        # each row's second-half sums B, moved to 1 .. 2 half + 1 and into the row's own stretch of width + 1
        B = pattern_sums(a[lo:hi, n1:])
        B += np.arange(r, dtype=np.float64)[:, None] * (width + 1) + (half[lo:hi, None] + 1)
        below = np.bincount(B.astype(np.intp).ravel(), minlength=r * (width + 1)).reshape(r, width + 1)
        np.cumsum(below, axis=1, out=below)     # column j: the sums B <= j - half - 1, that is B < j - half
        # the patterns short of t are those with B < t - A: column t - A + half
        need = t[lo:hi, None] + half[lo:hi, None] - pattern_sums(a[lo:hi, :n1])
        np.clip(need, 0, width, out=need)
        out[lo:hi] = n_a * n_b - np.take_along_axis(below, need.astype(np.intp), axis=1).sum(axis=1)
    return out


def _equal_sizes(gaps: np.ndarray, alternative: str) -> tuple[np.ndarray, np.ndarray]:
    """The rows whose non-zero gaps all have one size (within the tie tolerance), and their exact p.

    With every non-zero gap of size ``a``, a sign pattern's sum is ``a (2X - n)``, ``X`` the gaps kept positive
    (binomial, n non-zero gaps, one half), so the sign-flip p is the sign test's binomial tail: two-sided
    ``2 P(X >= max(P, N))`` (1 when ``P = N``), ``P(X >= P)`` for "greater" and ``P(X >= N)`` for "less"
    (``P``, ``N``: the positive and negative gaps), computed for all rows at once. The rows of whole-number
    metrics run once per value (0/1 gaps of one run: -1, 0, 1) are all of this kind.

    >>> float(_equal_sizes(np.array([[1.0, 1.0, -1.0, 0.0, 1.0], [1.0, 2.0, 1.0, 1.0, 1.0]]), "two-sided")[1][0])
    0.625
    """
    from scipy.special import bdtrc

    size = np.abs(gaps)
    top = size.max(axis=1)
    low = np.where(size > 0, size, np.inf).min(axis=1)
    same = (top > 0) & (top - low <= 1e-9 * top)
    pos = (gaps > 0).sum(axis=1)
    neg = (gaps < 0).sum(axis=1)
    n = pos + neg
    if alternative == "two-sided":
        k = np.maximum(pos, neg)
        p = np.where(pos == neg, 1.0, np.minimum(1.0, 2.0 * bdtrc(k - 1, n, 0.5)))
    else:
        k = pos if alternative == "greater" else neg
        p = np.where(k == 0, 1.0, bdtrc(np.maximum(k - 1, 0), n, 0.5))
    return same, p
