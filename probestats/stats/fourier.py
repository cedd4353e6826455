"""Certified bounds on the sign-flip p for gaps that share no usable step, by Fourier analysis.

The characteristic function of the signed sum, ``prod cos(t g_i)``, is computed with its float
error bounded, and trigonometric majorants and minorants of the tail (Selberg's) turn it into a
lower and an upper bound for p whose width falls like 1/degree and does not grow with the number
of gaps. In the upper tail the same polynomials, applied to the law tilted toward the observed
sum, keep the width within 1% of p however small p is; a few gaps that dominate the variance are
enumerated apart. For continuous gaps the bounds are also intersected with lattice bounds of the
gaps rounded to a step (the rounding accounted for by Hoeffding's inequality).

:func:`probestats.stats.hypotests.sign_flip_bounds` and
:func:`probestats.stats.hypotests.sign_flip_test` call :func:`certified_bounds`; the rest are its parts.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from probestats.stats.lattice import lattice_cost, lattice_tail, log_cosh, sign_matrix

_ULP = sys.float_info.epsilon


#: Mass the Fourier bounds allow to wrap around their period (Hoeffding), absolute.
FOURIER_WRAP = 1e-20
#: Sizes of the item subsets that bound |phi(t)| where it is negligible (largest first tried last).
FOURIER_SUBSETS = (128, 512)
#: |phi(t)| at or below this is not evaluated: its bound enters the error instead.
FOURIER_TINY = 1e-15
#: First and largest degree of the trigonometric majorant and minorant.
FOURIER_K0 = 2048
FOURIER_MAX_K = 1 << 18
#: Array elements per chunk when evaluating cosines (memory stays near 32 MB).
_FOURIER_CHUNK = 1 << 21


def _vaaler_terms(K: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Frequencies j = 1..K, Vaaler's weights J(j/(K+1)) and Fejer's weights 1 - j/(K+1).

    ``J(u) = pi u (1 - u) cot(pi u) + u`` (Vaaler 1985), written without cancellation at both
    ends: ``(1 - u) (pi u cot(pi u)) + u`` for u <= 1/2 and ``u (1 - pi w cot(pi w))`` with
    w = 1 - u above. J falls from 1 at u = 0 to 0 at u = 1.

    >>> _vaaler_terms(1)[1].round(12).tolist()    # J(1/2) = 1/2
    [0.5]
    """
    j = np.arange(1, K + 1, dtype=float)
    u = j / (K + 1.0)
    w = (K + 1.0 - j) / (K + 1.0)
    J = np.empty(K)
    low = u <= 0.5
    pu, pw = np.pi * u[low], np.pi * w[~low]
    J[low] = w[low] * (pu / np.tan(pu)) + u[low]
    J[~low] = u[~low] * (1.0 - pw / np.tan(pw))
    return j, J, w


def _gauss_bound(t: np.ndarray, sizes: np.ndarray, cum: np.ndarray, c: float) -> np.ndarray:
    """exp(-c t^2 sum_{i: t |g_i| <= pi/2} q_i), rounded up: ``sizes`` are the |g_i| in increasing order
    and ``cum`` the running sums of q_i >= 0 in that order.

    The items counted are those below (pi/2) / t less a relative 1e-12 (so float t cannot admit
    one too many); the running sum (n roundings of positive terms) is shrunk by its relative
    error, and the exponent by a further 1e-9.

    At t = 1 only the gaps 0.5 and 1.0 have t |g| <= pi/2: exp(-(0.25 + 1) / 2) = 0.535261...

    >>> b = _gauss_bound(np.array([1.0]), np.array([0.5, 1.0, 2.0]), np.cumsum([0.25, 1.0, 4.0]), 0.5)
    >>> round(float(b[0]), 6)
    0.535261
    """
    k = np.searchsorted(sizes, (np.pi / 2.0) / t * (1.0 - 1e-12), side="right")
    total = np.where(k > 0, cum[np.maximum(k - 1, 0)], 0.0) * (1.0 - (2.0 * sizes.size + 8.0) * _ULP)
    return np.exp(-c * t * t * total * (1.0 - 1e-9)) * (1.0 + 1e-12)


class _CharFn:
    """phi_j = E cos(2 pi j S / P) = prod_i cos(2 pi j g_i / P), j = 1, 2, ..., with error bounds.

    S = sum s_i g_i over fair signs, so its characteristic function is the real product of
    cosines. ``upto(K)`` returns (phi, err) for j = 1..K, extending the arrays it keeps
    (the frequencies do not depend on K). For each j, |phi_j| is first bounded from a subset
    of the items (every factor is at most 1 in size, so any subset bounds the product): where
    that bound is at most ``FOURIER_TINY`` phi_j is taken as 0 with the bound as its error;
    elsewhere the product over all items is evaluated.

    Float error: the argument t g_i (t = 2 pi j / P) carries at most 3 ulp of |t g_i| and
    numpy's cosine at most 4 ulp, so each computed factor is within
    d_i = (4 |t g_i| + 8) ulp of the true one; with all true factors at most 1 in size the
    computed product (n more roundings) is within ``expm1(sum d_i + n ulp)`` of the true
    one. Subset bounds use ``min(1, |cos| + d_i)`` per factor and are rounded up.
    """

    def __init__(self, g: np.ndarray, P: float):
        self.g = np.asarray(g, dtype=float)
        self.P = float(P)
        self.sum_abs = float(np.sum(np.abs(self.g))) * (1 + 1e-12)
        order = np.argsort(-np.abs(self.g), kind="stable")
        top = order[: max(1, order.size // 2)]   # the larger half of the gaps: their cosines fall fastest
        self.subsets = []
        for size in FOURIER_SUBSETS:
            if size * 2 >= self.g.size:   # all the factors' sizes: cheaper than their product with errors
                self.subsets.append(self.g)
                break
            self.subsets.append(self.g[top[np.linspace(0, top.size - 1, size).astype(np.int64)]])
        self.phi = np.empty(0)
        self.err = np.empty(0)
        self.exact_count = 0
        by_size = np.argsort(np.abs(self.g), kind="stable")
        self._sizes = np.abs(self.g)[by_size]
        self._cum = np.cumsum(self.g[by_size] ** 2)

    def _gauss(self, t: np.ndarray) -> np.ndarray:
        """|phi(t)| <= exp(-t^2 sum g_i^2 / 2) over the items with t |g_i| <= pi/2 (log cos u <= -u^2/2
        there; the other factors are at most 1): one search per frequency, however many items."""
        return _gauss_bound(t, self._sizes, self._cum, 0.5)

    def _bound(self, t: np.ndarray, sub: np.ndarray) -> np.ndarray:
        # factors raised to at least 1e-4 and the product to at least 1e-300 (still bounds): a true
        # product at or above 1e-300 had every partial product in the normal range, so its relative
        # rounding bound holds
        ulp = _ULP
        out = np.empty(t.size)
        rows = max(1, _FOURIER_CHUNK // sub.size)
        for s in range(0, t.size, rows):
            arg = t[s : s + rows, None] * sub[None, :]
            c = np.clip(np.abs(np.cos(arg)) + (4.0 * np.abs(arg) + 8.0) * ulp, 1e-4, 1.0)
            out[s : s + rows] = np.prod(c, axis=1)
        return np.maximum(out, 1e-300) * (1 + 2.0 * sub.size * ulp)

    def _exact(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        ulp = _ULP
        phi = np.empty(t.size)
        err = np.empty(t.size)
        rows = max(1, _FOURIER_CHUNK // self.g.size)
        for s in range(0, t.size, rows):
            arg = t[s : s + rows, None] * self.g[None, :]
            phi[s : s + rows], err[s : s + rows] = self._exact_rows(t[s : s + rows], np.cos(arg),
                                                                    (4.0 * np.abs(arg) + 8.0) * ulp)
        return phi, err

    def _exact_rows(self, t: np.ndarray, c: np.ndarray, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(phi, error) at the frequencies ``t`` from their factors ``c`` (frequencies x items) and each
        factor's float error ``d``."""
        ulp = _ULP
        n = self.g.size
        phi = np.prod(c, axis=1)
        # relative form: each true factor is c (1 + rho), |rho| <= d / |c|
        with np.errstate(divide="ignore"):
            rel = np.sum(d / np.abs(c), axis=1)
        absolute = np.expm1(ulp * (4.0 * np.abs(t) * self.sum_abs + 9.0 * n))
        # (+ 1e-300: what underflow can lose, n * 2^-1075 at most); a tiny factor makes rel huge or
        # infinite, and fmin then keeps the absolute form
        with np.errstate(over="ignore", invalid="ignore"):
            relative = np.abs(phi) * np.expm1(rel + 2.0 * n * ulp) + 1e-300
        return phi, np.fmin(absolute, relative) * (1 + 1e-9)

    def _settle(self, t: np.ndarray):
        """The bound from every item's factor (the last subset, when it is all the items) and the exact
        product where that bound is not tiny, from one evaluation of the cosines (:func:`_settled`): the
        numbers of :meth:`_bound` and :meth:`_exact`."""
        g, n = self.g, self.g.size

        def step(rows):
            tt = t[rows]
            arg = tt[:, None] * g[None, :]
            c = np.cos(arg)
            d = (4.0 * np.abs(arg) + 8.0) * _ULP
            b = np.prod(np.clip(np.abs(c) + d, 1e-4, 1.0), axis=1)
            return (np.maximum(b, 1e-300) * (1 + 2.0 * n * _ULP),
                    lambda keep: self._exact_rows(tt[keep], c[keep], d[keep]))

        return _settled(t, n, float, step)

    def upto(self, K: int) -> tuple[np.ndarray, np.ndarray]:
        have = self.phi.size
        if K > have:
            j = np.arange(have + 1, K + 1, dtype=float)
            t = 2.0 * np.pi * j / self.P
            bounds = [self._gauss] + [lambda tt, sub=sub: self._bound(tt, sub) for sub in self.subsets]
            last = self._settle if self.subsets[-1] is self.g else None
            phi, err, exact = _at_frequencies(t, float, bounds, self._exact, last)
            self.exact_count += exact
            self.phi = np.concatenate((self.phi, phi))
            self.err = np.concatenate((self.err, err))
        return self.phi[:K], self.err[:K]


def _at_frequencies(t: np.ndarray, dtype, bounds, exact, last=None) -> tuple[np.ndarray, np.ndarray, int]:
    """A characteristic function at the frequencies ``t``, with error bounds, evaluating it only where
    it may matter: each of ``bounds`` in turn (cheap upper bounds on its size) settles the frequencies
    where it is at most ``FOURIER_TINY`` (value 0, error the bound); ``exact`` gives (values, errors)
    at the rest. Returns (values, errors, how many were evaluated exactly).

    ``last``, when given, does the last bound and ``exact`` in one go (:func:`_settled`): it returns the
    bound, and the values and errors where the bound is not tiny, as the two would, from one evaluation
    of the cosines they share."""
    values = np.zeros(t.size, dtype=dtype)
    err = np.full(t.size, np.inf)
    todo = np.arange(t.size)
    for bound in bounds[:-1] if last is not None else bounds:
        if todo.size == 0:
            break
        b = bound(t[todo])
        tiny = b <= FOURIER_TINY
        err[todo[tiny]] = b[tiny]
        todo = todo[~tiny]
    if last is not None and todo.size:
        b, kept_values, kept_err = last(t[todo])
        tiny = b <= FOURIER_TINY
        err[todo[tiny]] = b[tiny]
        todo = todo[~tiny]
        values[todo], err[todo] = kept_values, kept_err
    elif todo.size:
        values[todo], err[todo] = exact(t[todo])
    return values, err, int(todo.size)


#: Frequencies x items evaluated at once when the last bound and the exact product share their cosines:
#: small enough that the temporaries stay in the cache and are not mapped afresh for every chunk
_SETTLED_CHUNK = 1 << 14


def _settled(t: np.ndarray, n: int, dtype, step):
    """The last bound of :func:`_at_frequencies` and the exact values where it is not tiny, in chunks of
    frequencies: ``step(rows)`` (a slice of ``t``) returns the chunk's bound and a function of the rows
    kept (the bound not at most ``FOURIER_TINY``; a mask, or a slice of them all) giving their (values, errors), each row's computed by the
    same operations as the separate bound and exact evaluation would (every operation is per element or per
    row), so the numbers are theirs. Returns (bound, values, errors): the bound over ``t``, the values and
    errors of the rows kept, in order."""
    bound = np.empty(t.size)
    values, errs = [np.empty(0, dtype=dtype)], [np.empty(0)]
    rows = max(1, _SETTLED_CHUNK // max(n, 1))
    for s in range(0, t.size, rows):
        b, exact = step(slice(s, s + rows))
        bound[s : s + rows] = b
        keep = ~(b <= FOURIER_TINY)   # as _at_frequencies settles: a nan bound settles nothing
        if keep.any():
            v, e = exact(slice(None) if keep.all() else keep)   # every row kept: no copies of them
            values.append(v)
            errs.append(e)
    return bound, np.concatenate(values), np.concatenate(errs)


def _arc_terms(cf: _CharFn, K: int) -> tuple:
    """The degree-K pieces of :func:`_arc_bound` that do not depend on the arc."""
    phi, err = cf.upto(K)
    j, J, fej = _vaaler_terms(K)
    c_sin = 2.0 * J / (np.pi * j)
    c_cos = 2.0 * fej / (K + 1.0)
    coef = c_sin + c_cos
    fixed = float(np.sum(err * coef)) * (1 + 1e-9)
    return j, phi, c_sin, c_cos, fixed, (np.abs(phi) + err) * coef, K


def _arc_bound(terms: tuple, P: float, wrap: float, y: float, sign: float) -> tuple[float, float]:
    """An upper (``sign`` +1) or lower (-1) bound for P(|S| >= y) and P(|S| > y), 0 < y < P/2.

    On the circle R/P, U = S / P mod 1, and |S| >= y (for |S| < P/2) is U in the arc
    [a, 1 - a], a = y / P. Vaaler's polynomial V_K (degree K) approximates the sawtooth
    psi(u) = u - floor(u) - 1/2 with |psi - V_K| <= Delta_{K+1} / (2K + 2), Delta the Fejer
    kernel, and the arc's indicator is (b - a) + psi(a - u) + psi(u - b); so Selberg's
    polynomials

        S_K^{+-}(u) = (b - a) + V_K(a - u) + V_K(u - b) +- (Delta_{K+1}(a - u) + Delta_{K+1}(u - b)) / (2K + 2)

    majorize and minorize the arc (closed or open). Their expectations are finite sums over
    the characteristic function: with b = 1 - a and phi_j real,

        E S_K^{+-}(U) = 1 - 2a +- 1/(K+1) + sum_j phi_j (-2 J_j sin(2 pi j a) / (pi j)
                                                          +- 2 (1 - j/(K+1)) cos(2 pi j a) / (K+1)).

    The mass of |S| >= P/2 (which wraps around), ``wrap``, is added on the bound's side, and
    so are the errors of phi (:class:`_CharFn`) and of the float sums; a = y / P is moved
    outward (upper bound) or inward (lower) by 4 ulp. Returns (bound, slack), the slack being
    the part of the width that a higher degree does not shrink.
    """
    ulp = _ULP
    j, phi, c_sin, c_cos, fixed, absterm, K = terms
    a = y / P * (1.0 - sign * 4.0 * ulp)
    # rounding of each term (the angle 2 pi j a carries about (2 pi j a + 4) ulp; coefficients a few
    # ulp each) and of the sums
    rnd = float(np.sum(absterm * (4.0 * np.pi * j * a + 16.0 + 2.0 * math.log2(K + 1)))) * ulp
    # J near u = 1 is small and carries an absolute (not relative) error of a few ulp:
    # sum_j 2 * 4 ulp / (pi j) <= 3 ulp (1 + ln K)
    rnd += 8.0 * ulp * (1.0 + math.log(K + 1.0))
    slack = fixed + rnd + 16.0 * ulp + wrap
    ang = 2.0 * np.pi * j * a
    s = float(np.sum(phi * (sign * c_cos * np.cos(ang) - c_sin * np.sin(ang))))
    value = 1.0 - 2.0 * a + sign / (K + 1.0) + s + sign * slack
    return min(1.0, max(0.0, value)), slack


def _tail_side(terms: tuple, P: float, wrap: float, var: float, hoeff: float, y: float,
               sign: float) -> tuple[float, float]:
    """An upper (``sign`` +1) or lower (-1) bound for P(S >= y) and P(S > y), any y.

    S is symmetric: P(S >= y) = P(|S| >= y) / 2 for y > 0 and 1 - P(|S| > -y) / 2 for y < 0.
    Beyond ``hoeff`` Hoeffding's bound P(S >= y) <= exp(-y^2 / (2 var)) is used directly.
    """
    if abs(y) >= hoeff:
        e = math.exp(-y * y / (2.0 * var)) * (1 + 1e-12)
        if y > 0:
            return (e if sign > 0 else 0.0), 0.0
        return (1.0 if sign > 0 else 1.0 - e), 0.0
    if y > 0:
        v, slack = _arc_bound(terms, P, wrap, y, sign)
        return v / 2.0, slack / 2.0
    if y < 0:
        v, slack = _arc_bound(terms, P, wrap, -y, -sign)
        return 1.0 - v / 2.0, slack / 2.0
    return (1.0 if sign > 0 else 0.0), 0.0   # P(S >= 0) = (1 + P(S = 0)) / 2, P(S > 0) = (1 - P(S = 0)) / 2


#: At most this many of the largest gaps are enumerated apart by the Fourier bounds.
FOURIER_MAX_BIG = 8


def _big_count(nz: np.ndarray) -> int:
    """How many of the largest gaps to enumerate apart: the fewest (up to FOURIER_MAX_BIG) after
    which the largest remaining gap carries at most a quarter of the remaining variance (so
    that the sum of the rest is spread smoothly over the circle its variance sets).

    >>> _big_count(np.array([1.0, -1.0, 0.5, 0.7, 0.9, 0.8, -0.6, 1.1])), _big_count(np.array([1.0] * 8 + [100.0, -50.0]))
    (0, 2)
    """
    sq = np.sort(nz * nz)[::-1]
    for b in range(0, min(FOURIER_MAX_BIG, nz.size - 1) + 1):
        if 4.0 * sq[b] <= math.fsum(sq[b:]):
            return b
    return min(FOURIER_MAX_BIG, nz.size - 1)


def _fourier_tail_bounds(nz: np.ndarray, x: float, *, rtol: float, atol: float,
                         max_k: int = FOURIER_MAX_K, parts: list | None = None) -> tuple[float, float, int]:
    """Certified (lower, upper, K) for P(S >= x) (and P(S > x)), S = sum s_i g_i.

    The largest gaps, when they carry most of the variance (:func:`_big_count`, b of them),
    are enumerated apart: P(S >= x) = 2^-b sum over their 2^b sign patterns of
    P(R >= x - s), R the sum over the other gaps, bounded by :func:`_tail_side` (each
    threshold widened by the float error of s). The period P of the circle is the rest's
    Hoeffding radius for ``FOURIER_WRAP`` plus one standard deviation. The degree K starts at
    ``FOURIER_K0`` and grows (the width falls like 1/K) until the bounds are within
    ``max(rtol * upper, atol)``, K reaches ``max_k``, or the part of the width that K does not
    shrink is most of what is aimed for. A list given as ``parts`` receives the rest's gaps and,
    per sign pattern of the enumerated ones, the thresholds (y_lo, y_hi) and the bounds
    (lower at y_hi, upper at y_lo) for the rest, which the average of gives the result.
    """
    ulp = _ULP
    b = _big_count(nz)
    order = np.argsort(-np.abs(nz), kind="stable")
    big, rest = nz[order[:b]], nz[order[b:]]
    var = math.fsum(rest * rest) * (1 + 1e-12)
    sd = math.sqrt(var)
    hoeff = math.sqrt(2.0 * var * math.log(2.0 / FOURIER_WRAP))
    half = hoeff + sd
    P = 2.0 * half
    wrap = 2.0 * math.exp(-half * half / (2.0 * var)) * (1 + 1e-12)
    sums = sign_matrix(b) @ big if b else np.zeros(1)
    e = (2 * b + 4) * ulp * (float(np.sum(np.abs(big))) + abs(x))
    y_lo, y_hi = (x - sums - e).tolist(), (x - sums + e).tolist()
    cf = _CharFn(rest, P)
    max_k = min(max_k, max(FOURIER_K0, (1 << 22) >> b))   # 2^b arcs per degree: bound the work
    K = min(FOURIER_K0, max_k)
    last = None
    while True:
        terms = _arc_terms(cf, K)
        up = [_tail_side(terms, P, wrap, var, hoeff, y, 1.0) for y in y_lo]
        dn = [_tail_side(terms, P, wrap, var, hoeff, y, -1.0) for y in y_hi]
        hi = min(1.0, math.fsum(v for v, _ in up) / len(up) * (1 + 4 * ulp))
        lo = max(0.0, math.fsum(v for v, _ in dn) / len(dn) * (1 - 4 * ulp))
        slack = math.fsum(s for _, s in up + dn) / len(up)
        arcs = any(abs(y) < hoeff for y in y_lo + y_hi)   # else every threshold is past Hoeffding's radius
        width = hi - lo
        target = max(rtol * hi, atol)
        # stalled: the width no longer falls like 1/K (atoms of a discrete law sit at the threshold)
        stalled = last is not None and width > 0.5 * last[0] and K >= 4 * last[1]
        if width <= target or K >= max_k or slack > 0.5 * target or not arcs or stalled:
            if parts is not None:
                parts[:] = [rest, y_lo, y_hi, [v for v, _ in dn], [v for v, _ in up]]
            return lo, hi, K
        last = (width, K)
        K = min(max_k, int(math.ceil((K + 1) * min(16.0, 1.25 * width / target))))


class _TiltedCharFn:
    """psi_j = E_Q exp(i w_j S), w_j = 2 pi j / P, under the law Q of S tilted by exp(theta S).

    Under Q the signs stay independent with P(s_i = +1) = e^{theta g_i} / (2 cosh(theta g_i)), so
    psi(t) = prod_i cosh((theta + i t) g_i) / cosh(theta g_i) = prod_i (cos(t g_i) + i tanh(theta g_i) sin(t g_i)),
    each factor at most 1 in size. As in :class:`_CharFn`, frequencies where a subset of the
    items bounds |psi| below ``FOURIER_TINY`` are not evaluated; elsewhere the product is,
    with each computed factor within d_i = (8 |t g_i| + 28) ulp of the true one (argument,
    cosine, sine, the complex arithmetic, and the 4 ulp of the float tanh(theta g_i) against the
    true one, which Lambda's cosh uses), so the product is within
    ``expm1(sum d_i + 4 n ulp)`` (absolute) or ``|psi| expm1(sum d_i / |f_i| + 4 n ulp)``.
    """

    def __init__(self, g: np.ndarray, w: np.ndarray, P: float):
        self.g, self.w, self.P = g, w, float(P)
        self.sum_abs = float(np.sum(np.abs(g))) * (1 + 1e-12)
        # subsets from the gaps whose factors shrink most: large |g| but not so tilted that the
        # factor is nearly deterministic (|f|^2 = 1 - (1 - w^2) sin^2(t g))
        order = np.argsort(-(np.abs(g) * (1.0 - w * w)), kind="stable")
        top = order[: max(1, order.size // 2)]
        self.subsets = []
        for size in FOURIER_SUBSETS:
            if size * 2 >= g.size:   # the sizes of all the factors: cheaper than their complex product
                self.subsets.append((g, w))
                break
            pick = top[np.linspace(0, top.size - 1, size).astype(np.int64)]
            self.subsets.append((g[pick], w[pick]))
        self.psi = np.empty(0, dtype=complex)
        self.err = np.empty(0)
        by_size = np.argsort(np.abs(g), kind="stable")
        self._sizes = np.abs(g)[by_size]
        # sech^2(theta g) = 1 - tanh^2, less what the float tanh's 4 ulp can move it
        sech2 = np.maximum(0.0, 1.0 - w[by_size] ** 2 - 10.0 * _ULP)
        self._cum = np.cumsum(g[by_size] ** 2 * sech2)

    def _gauss(self, t):
        """|psi(t)|^2 = prod (1 - sech^2(theta g_i) sin^2(t g_i)) <= exp(-(4 t^2 / pi^2) sum g_i^2 sech^2(theta g_i))
        over the items with t |g_i| <= pi/2 (sin u >= 2u/pi there): see :func:`_gauss_bound`."""
        return _gauss_bound(t, self._sizes, self._cum, 2.0 / np.pi**2)

    def _bound(self, t, sub, wsub):
        # squared sizes: |f|^2 = cos^2 + (w sin)^2 computed to 8 ulp, and |f_true|^2 <= (|f| + d)^2
        # <= |f|^2 + 3 d; each raised to at least 1e-8 (still a bound) so the product cannot underflow
        out = np.empty(t.size)
        rows = max(1, _FOURIER_CHUNK // sub.size)
        w2 = (wsub * wsub)[None, :]
        for s in range(0, t.size, rows):
            arg = t[s : s + rows, None] * sub[None, :]
            c, sn = np.cos(arg), np.sin(arg)
            m2 = c * c + w2 * (sn * sn) + (24.0 * np.abs(arg) + 92.0) * _ULP
            out[s : s + rows] = np.prod(np.clip(m2, 1e-8, 1.0), axis=1)
        return np.sqrt(np.maximum(out, 1e-300) * (1 + 2.0 * sub.size * _ULP)) * (1 + 2 * _ULP)   # as in _CharFn

    def _exact(self, t):
        psi = np.empty(t.size, dtype=complex)
        err = np.empty(t.size)
        rows = max(1, _FOURIER_CHUNK // self.g.size)
        for s in range(0, t.size, rows):
            arg = t[s : s + rows, None] * self.g[None, :]
            psi[s : s + rows], err[s : s + rows] = self._exact_rows(t[s : s + rows], arg, np.cos(arg), np.sin(arg))
        return psi, err

    def _exact_rows(self, t, arg, c, sn):
        """(psi, error) at the frequencies ``t`` from their arguments t g_i, cosines and sines (frequencies x items)."""
        n = self.g.size
        f = c + 1j * (self.w[None, :] * sn)
        psi = np.prod(f, axis=1)
        with np.errstate(divide="ignore"):
            rel = np.sum((8.0 * np.abs(arg) + 28.0) * _ULP / np.abs(f), axis=1)
        absolute = np.expm1(_ULP * (8.0 * np.abs(t) * self.sum_abs + 32.0 * n))
        with np.errstate(over="ignore", invalid="ignore"):   # as in _CharFn._exact
            relative = np.abs(psi) * np.expm1(rel + 4.0 * n * _ULP) + 1e-300
        return psi, np.fmin(absolute, relative) * (1 + 1e-9)

    def _settle(self, t):
        """:meth:`_bound` from every item (the last subset, when it is all the items) and :meth:`_exact`
        where that bound is not tiny, from one evaluation of the cosines and sines (:func:`_settled`)."""
        g, n, w2 = self.g, self.g.size, (self.w * self.w)[None, :]

        def step(rows):
            tt = t[rows]
            arg = tt[:, None] * g[None, :]
            c, sn = np.cos(arg), np.sin(arg)
            m2 = c * c + w2 * (sn * sn) + (24.0 * np.abs(arg) + 92.0) * _ULP
            b = np.prod(np.clip(m2, 1e-8, 1.0), axis=1)
            return (np.sqrt(np.maximum(b, 1e-300) * (1 + 2.0 * n * _ULP)) * (1 + 2 * _ULP),
                    lambda keep: self._exact_rows(tt[keep], arg[keep], c[keep], sn[keep]))

        return _settled(t, n, complex, step)

    def upto(self, K: int):
        have = self.psi.size
        if K > have:
            t = 2.0 * np.pi * np.arange(have + 1, K + 1, dtype=float) / self.P
            bounds = [self._gauss] + [lambda tt, sub=sub, wsub=wsub: self._bound(tt, sub, wsub)
                                      for sub, wsub in self.subsets]
            last = self._settle if self.subsets[-1][0] is self.g else None
            psi, err, _ = _at_frequencies(t, complex, bounds, self._exact, last)
            self.psi = np.concatenate((self.psi, psi))
            self.err = np.concatenate((self.err, err))
        return self.psi[:K], self.err[:K]


def _tilted_tail_bounds(nz: np.ndarray, x: float, *, rtol: float, max_k: int = FOURIER_MAX_K,
                        x_hi: float | None = None) -> tuple[float, float, int] | None:
    """Certified (lower, upper, K) for P(S >= x) and P(S > x), x > 0, with errors relative to p.

    With ``x_hi`` (>= x) the lower bound is for the threshold x_hi instead (one tilt serves both).

    Tilt: with Lambda = prod cosh(theta g_i) and Q the law of S tilted by exp(theta S),
    P(S >= x) = Lambda e^{-theta x} E_Q F(S - x), F(y) = e^{-theta y} [y >= 0], theta chosen so
    that Q's mean is x (then E_Q F is of order 1/(theta sd), however small p is). On the circle
    of length P around x (Q puts at most ``FOURIER_WRAP`` outside it, by Hoeffding's
    inequality about Q's mean), F is a mixture of arc indicators,

        F(y) = int_0^L theta e^{-theta u} [0 <= y <= u] du + (something in [0, e^{-theta L}]),

    so the same mixture of Selberg's polynomials for the arcs [0, u/P] bounds E_Q F from both
    sides; its Fourier coefficients are closed-form integrals,
    C_j = J_j (m0 - E_j) / (2 pi i j) +- (1 - j/(K+1)) (m0 + E_j) / (2K + 2) with
    m0 = 1 - e^{-theta L} and E_j = theta (1 - e^{-(theta + i w_j) L}) / (theta + i w_j),
    C_0 = m1 +- m0 / (K + 1), m1 = (1 - e^{-theta L} (1 + theta L)) / (theta P), and
    E_Q S(U) = C_0 + 2 Re sum_j C_j psi_j e^{-i w_j x} (:class:`_TiltedCharFn`). Returns None
    when the tilt would be extreme (x within a hair of the largest possible sum).
    """
    ulp = _ULP
    x_hi = x if x_hi is None else max(x, x_hi)
    a = np.abs(nz)
    total = float(np.sum(a))
    if x <= 0 or x_hi >= total * (1 - 1e-9):
        return None
    lo_t, hi_t = 0.0, 1.0 / float(a.max())
    while float(np.sum(a * np.tanh(hi_t * a))) < x:
        lo_t, hi_t = hi_t, hi_t * 2.0
        if hi_t * float(a.max()) > 40.0:
            return None
    for _ in range(60):
        mid = 0.5 * (lo_t + hi_t)
        if float(np.sum(a * np.tanh(mid * a))) < x:
            lo_t = mid
        else:
            hi_t = mid
    theta = 0.5 * (lo_t + hi_t)
    w = np.tanh(theta * nz)
    mean_q = math.fsum(nz * w)
    var = math.fsum(nz * nz) * (1 + 1e-12)
    sd_q = math.sqrt(math.fsum(nz * nz * (1.0 - w * w)))
    off = max(abs(mean_q - x), abs(mean_q - x_hi)) * (1 + 1e-9) + 1e-12 * total
    hoeff = math.sqrt(2.0 * var * math.log(2.0 / FOURIER_WRAP))
    half = hoeff + off + sd_q
    P = 2.0 * half
    L = hoeff + off        # arcs [0, u], u <= L < P / 2
    wrap = 2.0 * math.exp(-hoeff * hoeff / (2.0 * var)) * (1 + 1e-12)   # Q-mass with |S - x| >= P/2
    tail_l = math.exp(-theta * L)
    log_lam = float(np.sum(log_cosh(theta * a)))
    # each log cosh(v) = v + log1p(e^{-2v}) - log 2 carries about 2 (v + 1) ulp absolutely; the pairwise
    # sum log2(n) + 16 ulp of the total; theta * x one rounding
    log_err = ulp * ((math.log2(a.size) + 16.0) * abs(log_lam) + 4.0 * (theta * total + a.size)
                     + 4.0 * theta * x_hi + 8.0)
    m0 = -math.expm1(-theta * L)
    m1 = (m0 - theta * L * tail_l) / (theta * P)
    cf = _TiltedCharFn(nz, w, P)
    K = min(FOURIER_K0, max_k)
    last = None
    while True:
        psi, err = cf.upto(K)
        j = np.arange(1, K + 1, dtype=float)
        _, J, fej = _vaaler_terms(K)
        om = 2.0 * np.pi * j / P
        z = theta + 1j * om
        E = theta * (-np.expm1(-z * L)) / z
        v_part = J * (m0 - E) / (2j * np.pi * j)
        f_part = fej * (m0 + E) / (2.0 * K + 2.0)
        coef = np.abs(v_part) + np.abs(f_part)
        sums = []
        for xx in (x, x_hi):
            pt = psi * np.exp(-1j * (om * xx))
            sums.append((2.0 * float(np.sum((v_part * pt).real)), 2.0 * float(np.sum((f_part * pt).real))))
        (v_up, f_up), (v_dn, f_dn) = sums
        # errors: psi's, the phase angle (its argument carries about 3 ulp of w_j x), and the rest
        # of each term's and the sums' rounding, all generous
        fixed = 2.0 * float(np.sum(coef * err)) * (1 + 1e-9)
        rnd = 2.0 * float(np.sum(coef * (np.abs(psi) + err) * (4.0 * om * x_hi + 64.0 + 2.0 * math.log2(K + 1)))) * ulp
        rnd += 32.0 * ulp * (1.0 + math.log(K + 1.0))   # J's absolute error, as in _arc_bound (|m0 - E| <= 2)
        slack = fixed + rnd + 16.0 * ulp + 2.0 * wrap
        upper_q = m1 + m0 / (K + 1.0) + v_up + f_up + slack + tail_l
        lower_q = m1 - m0 / (K + 1.0) + v_dn - f_dn - slack
        scale_hi = math.exp(log_lam - theta * x + log_err) * (1 + 4 * ulp)
        scale_lo = math.exp(log_lam - theta * x_hi - log_err) * (1 - 4 * ulp)
        hi = min(1.0, max(0.0, upper_q) * scale_hi)
        lo = max(0.0, lower_q) * scale_lo
        width = hi - lo
        stalled = last is not None and width > 0.5 * last[0] and K >= 4 * last[1]   # as in the untilted loop
        if width <= rtol * hi or K >= max_k or slack + tail_l > 0.5 * rtol * max(upper_q, 0.0) or stalled:
            return lo, hi, K
        last = (width, K)
        K = min(max_k, int(math.ceil((K + 1) * min(16.0, 1.25 * width / (rtol * hi)))))



# --------------------------------------------------------------------------- certified bounds for continuous gaps


def _split_tail_bounds(nz: np.ndarray, x: float, h: float, delta: float) -> tuple[float, float]:
    """Certified bounds on P(S >= x), S = sum s_i g_i, from the lattice of step ``h``.

    Write |g_i| = h m_i + r_i (m_i = round(|g_i| / h), |r_i| <= h/2), so S = h M + E with
    M = sum s_i m_i (exact law by :func:`lattice_tail`) and E = sum s_i r_i on the same signs.
    Hoeffding's inequality bounds E whatever M does: P(E > c) <= exp(-c^2 / (2 sum r_i^2)).
    Then {S >= x} lies in {h M >= x - c} or {E > c}, and contains {h M >= x + c} less {E < -c}:

        P(h M >= x + c) - eta <= P(S >= x) <= P(h M >= x - c) + eta,   eta = exp(-c^2 / (2 sum r^2)),

    with c chosen so that eta = ``delta``; where the deterministic bound |E| <= sum |r_i| is
    smaller, it is used instead (eta = 0). The window 2c grows like h sqrt(n), not h n.
    """
    absg = np.abs(nz)
    m_all = np.rint(absg / h)
    r = absg - h * m_all
    r_sq = math.fsum(r * r) * (1 + 1e-12)
    r_abs = math.fsum(np.abs(r)) * (1 + 1e-12) + 1e-300
    c = math.sqrt(2.0 * r_sq * math.log(1.0 / delta)) if r_sq > 0 else 0.0
    eta = delta
    if r_abs <= c or r_sq == 0:
        c, eta = r_abs, 0.0
    m_abs = m_all[m_all > 0].astype(np.int64)
    z_lo, z_hi = (x + c) / h, (x - c) / h
    c_lo = math.ceil(z_lo + 1e-9 * abs(z_lo) + 1e-9)
    c_hi = math.floor(z_hi - 1e-9 * abs(z_hi) - 1e-9)
    if m_abs.size == 0:
        return max(0.0, (1.0 if c_lo <= 0 else 0.0) - eta), min(1.0, (1.0 if c_hi <= 0 else 0.0) + eta)
    lo_log, lo_err = lattice_tail(m_abs, c_lo)
    hi_log, hi_err = lattice_tail(m_abs, c_hi)
    lower = math.exp(lo_log) * (1 - lo_err) if lo_log > -math.inf else 0.0
    upper = math.exp(hi_log) * (1 + hi_err) if hi_log > -math.inf else 0.0
    return max(0.0, lower - eta), min(1.0, upper + eta)


#: Relative width of the bounds :func:`sign_flip_bounds` aims for.
SPLIT_RTOL = 0.01
#: Below this upper bound the Fourier bounds (absolute errors near 1e-11) are also tightened by
#: the tilted lattice bounds, whose errors are relative.
FOURIER_SMALL_P = 1e-7


def _lattice_split_bounds(nz: np.ndarray, x: float, two: bool, rtol: float, atol: float,
                          budget: float) -> tuple[float, float, float]:
    """Certified (lower, upper, h) for p by rounding to lattices of step h, halved until tight.

    Starts where the lattice holds about 2**14 steps per largest gap and halves h (see
    :func:`_split_tail_bounds`; the slack probability is a thousandth of the width aimed for)
    until the bounds are within ``max(rtol * upper, atol)`` or the next lattice would cost more
    than ``budget`` (:func:`lattice_cost`). Relative in the far tail, slow for many items.
    """
    gmax = float(np.max(np.abs(nz)))
    sd = math.sqrt(math.fsum(nz * nz))
    bits = max(4, int(math.ceil(math.log2(max(1.0, gmax / sd * 64)))) + 6)
    lower = upper = None
    while True:
        h = gmax / 2.0 ** bits
        delta = 1e-3 * max(atol, 1e-300)
        if upper is not None:
            delta = 1e-3 * max(rtol * upper, atol) / (2.0 if two else 1.0)
        lo, hi = _split_tail_bounds(nz, x, h, delta)
        if two:
            lo, hi = min(1.0, 2 * lo), min(1.0, 2 * hi)
        lower, upper = lo, hi
        if upper - lower <= max(rtol * upper, atol):
            return lower, upper, h
        finer = np.rint(np.abs(nz) / (h / 2)).astype(np.int64)
        if lattice_cost(finer[finer > 0]) > budget:
            return lower, upper, h
        bits += 1


def certified_bounds(nz: np.ndarray, x: float, two: bool, rtol: float, atol: float,
                      budget: float) -> tuple[float, float, str]:
    """Certified (lower, upper, how) for the sign-flip p = P(S >= x) (times 2 when ``two``).

    First the Fourier bounds (:func:`_fourier_tail_bounds`: no rounding of the gaps, cost
    independent of their spread, a few hundredths of a second at 10,000 gaps, absolute
    errors near 1e-11). When they are not within ``rtol`` of p, each upper-tail term (one, or
    one per sign pattern of the few largest gaps enumerated apart, up to 8) is tightened by the
    tilted Fourier bounds (:func:`_tilted_tail_bounds`, errors relative to p however small);
    and when p is below ``FOURIER_SMALL_P`` and still not within ``rtol``, the lattice bounds
    (:func:`_lattice_split_bounds`, within ``budget``) are intersected too. Every one of them
    holds, so their intersections do.
    """
    ulp = _ULP
    aim = atol / 2.0 if two else atol   # p is twice the tail
    parts: list = []
    lo, hi, K = _fourier_tail_bounds(nz, x, rtol=rtol, atol=aim, max_k=FOURIER_MAX_K // 8, parts=parts)
    how = (f"Selberg's trigonometric majorant and minorant of degree {K} of the tail, integrated against "
           f"the exact characteristic function prod cos(t g_i); float error and wrap-around accounted")
    if hi - lo > max(rtol * hi, aim) and len(parts[1]) <= 8:
        rest, y_lo, y_hi, los, his = parts
        tilted = 0
        for i, (yl, yh) in enumerate(zip(y_lo, y_hi)):
            if yl > 0 and his[i] - los[i] > 0.5 * rtol * his[i]:
                t = _tilted_tail_bounds(rest, yl, rtol=0.9 * rtol, x_hi=yh)
                if t is None:
                    continue
                if not max(los[i], t[0]) <= min(his[i], t[1]):  # pragma: no cover - an error in one of them
                    raise ArithmeticError("certified bounds disagree")
                los[i], his[i] = max(los[i], t[0]), min(his[i], t[1])
                tilted = max(tilted, t[2])
        if tilted:
            lo = max(lo, max(0.0, math.fsum(los) / len(los) * (1 - 4 * ulp)))
            hi = min(hi, min(1.0, math.fsum(his) / len(his) * (1 + 4 * ulp)))
            how = (f"Selberg's trigonometric majorant and minorant of degree up to {tilted}, mixed into the tail "
                   f"of the law tilted toward the observed sum and integrated against its exact characteristic "
                   f"function prod (cos(t g_i) + i tanh(theta g_i) sin(t g_i)); float error and wrap-around "
                   f"accounted")
            if len(los) > 1:
                how += f"; the {len(los).bit_length() - 1} largest gaps enumerated apart"
    if two:
        lo, hi = min(1.0, 2.0 * lo), min(1.0, 2.0 * hi)
    if hi < FOURIER_SMALL_P and hi - lo > rtol * hi and budget > 0:
        llo, lhi, h = _lattice_split_bounds(nz, x, two, rtol, atol, budget)
        if not max(lo, llo) <= min(hi, lhi):  # pragma: no cover - would mean an error in one of the two
            raise ArithmeticError("certified bounds disagree")
        lo, hi = max(lo, llo), min(hi, lhi)
        how += (f"; intersected with lattice bounds (gaps rounded to step {h:.3g}, "
                f"the rounding accounted for by Hoeffding's inequality)")
    return lo, hi, how
