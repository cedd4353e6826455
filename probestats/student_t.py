"""Student's t distribution: upper tail, density and quantile, in plain Python.

scipy has these (``scipy.special.stdtr``, ``stdtrit``), and the tests check every function here
against it and against 40-digit mpmath. They are written out because importing ``scipy.special``
takes about 0.1 s, a fifth of ``probestats analyze`` on a million-row log, for one quantile.

Method: with ``x = df / (df + t**2)`` and ``y = t**2 / (df + t**2)``, the upper tail is
``P(T > t) = I_x(df/2, 1/2) / 2`` and the central mass is ``P(0 < T < t) = I_y(1/2, df/2) / 2``
(``I`` the regularized incomplete beta function). Each is evaluated by its continued fraction
(modified Lentz) where that converges fast (the tail for ``t**2`` above about 3, the central
mass below), as its complement elsewhere. The fraction is summed in 40-digit decimal
arithmetic from the exact ``x`` and ``y``: with many degrees of freedom ``x`` is close to 1 and
double precision would lose digits to cancellation. The quantile is Newton's method, kept
inside a bracket: on the central mass for ``0.25 <= p <= 0.75`` (so a quantile near 0 keeps its
relative precision), on ``log P(T > t)`` against ``log t`` (nearly linear) in the tails.
``tests/test_student_t.py`` checks the results against mpmath to 1e-13 relative (and the far
tails, where ``log P(T > t)`` is large, to the precision that log allows), and against scipy.
Degrees of freedom from 1 to 1e12 are supported (a t interval on n items has n - 1).
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

_PREC = 40  # decimal digits for the continued fraction
_DONE = Decimal("1e-18")  # relative size of the last factor at which the fraction has converged
_MAX_TERMS = 10_000


def _log_gamma_ratio(z: float) -> float:
    """``log(Gamma(z + 1/2) / Gamma(z))`` without the cancellation of two large log-gammas.

    For z >= 25 the asymptotic series ``1/2 log z - 1/(8z) + 1/(192 z^3) - 1/(640 z^5) +
    17/(14336 z^7) - 5115/(3041280 z^9)``, from Stirling's series with Bernoulli polynomials
    at 1/2 (its next term is below 2e-18 there); below, the recurrence
    ``R(z) = R(z + 1) z / (z + 1/2)`` carries it down, one ``log1p`` per step.

    >>> round(_log_gamma_ratio(1.0), 12) == round(math.log(math.sqrt(math.pi) / 2), 12)
    True
    """
    if z < 25.0:  # R(z) = R(z + 1) z / (z + 1/2), up to where the series holds
        k = math.ceil(25.0 - z)
        return _log_gamma_ratio(z + k) + math.fsum(math.log1p(-0.5 / (z + j + 0.5)) for j in range(k))
    w = 1.0 / (z * z)
    series = (-1.0 / 8 + w * (1.0 / 192 + w * (-1.0 / 640 + w * (17.0 / 14336 + w * (-5115.0 / 3041280)))))
    return 0.5 * math.log(z) + series / z


def _beta_cf(a: float, b: float, x: Decimal, y: Decimal) -> float:
    """The continued fraction of ``I_x(a, b)`` (``y = 1 - x``); fast for ``x < (a + 1) / (a + b + 2)``.

    ``I_x(a, b) = x**a y**b / (a B(a, b)) * _beta_cf(a, b, x, y)`` (the modified Lentz method).
    """
    with localcontext() as ctx:
        ctx.prec = _PREC
        one = Decimal(1)
        tiny = Decimal("1e-300")
        a, b = Decimal(a), Decimal(b)
        qab, qap, qam = a + b, a + one, a - one
        c = one
        d = (one - b + qab * y) / qap  # 1 - qab x / qap, written so that it does not cancel
        d = one / (d if abs(d) > tiny else tiny)
        h = d
        for m in range(1, _MAX_TERMS):
            m2 = 2 * m
            for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                       -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
                d = one + aa * d
                d = one / (d if abs(d) > tiny else tiny)
                c = one + aa / c
                c = c if abs(c) > tiny else tiny
                step = d * c
                h *= step
            if abs(step - one) < _DONE:
                return float(h)
    raise ArithmeticError(f"the incomplete beta continued fraction did not converge (a={a}, b={b}, x={x})")


MAX_DF = 1e12  # far beyond any probe; above it the continued fraction would need too many terms


def _check(df: float) -> float:
    df = float(df)
    if not 1.0 <= df <= MAX_DF:  # a t interval on n items has n - 1 >= 1
        raise ValueError(f"degrees of freedom must be a number from 1 to 1e12, not {df!r}")
    return df


def _log1p_t2(t: float, df: float) -> float:
    """``log(1 + t**2/df)`` without overflow."""
    if t > 1e100:
        return 2.0 * math.log(t) - math.log(df) + math.log1p(df / t / t)
    return math.log1p(t * t / df)


class _Split:
    """Tail and central mass of Student's t at one t > 0 (see the module docstring)."""

    def __init__(self, t: float, df: float):
        a = 0.5 * df
        with localcontext() as ctx:
            ctx.prec = _PREC
            t2 = Decimal(t) * Decimal(t)
            total = Decimal(df) + t2
            self.x, self.y = Decimal(df) / total, t2 / total
        log1p_t2 = _log1p_t2(t, df)
        log_y = 2.0 * math.log(t) - math.log(df) - log1p_t2
        # log(x**a / B(a, 1/2)), with B(a, 1/2) = sqrt(pi) Gamma(a) / Gamma(a + 1/2); then with y**(1/2)
        self.log_front_x = -a * log1p_t2 + _log_gamma_ratio(a) - 0.5 * math.log(math.pi)
        self.log_front = self.log_front_x + 0.5 * log_y
        self.a, self.t, self.df = a, t, df
        self.tail_converges = self.x < Decimal((a + 1.0) / (a + 2.5))

    def log_sf(self) -> float:
        if self.tail_converges:  # the tail itself: no cancellation however small it is
            return self.log_front + math.log(_beta_cf(self.a, 0.5, self.x, self.y) / (2.0 * self.a))
        return math.log(0.5 - self.central())

    def central(self) -> float:
        if self.tail_converges:
            return 0.5 - math.exp(self.log_sf())
        # I_y(1/2, a) / 2 = x**a y**(1/2) / (2 (1/2) B(1/2, a)) * fraction, with y**(1/2) = t / sqrt(df + t**2)
        front = math.exp(self.log_front_x) * self.t / math.sqrt(self.df + self.t * self.t)
        return front * _beta_cf(0.5, self.a, self.y, self.x)


def t_sf(t: float, df: float) -> float:
    """Upper tail ``P(T > t)`` of Student's t with ``df`` degrees of freedom (``scipy.special.stdtr(df, -t)``).

    Examples
    --------
    >>> t_sf(0.0, 5)
    0.5
    >>> round(t_sf(1.0, 1), 15)  # Cauchy: 1/2 - atan(1)/pi
    0.25
    >>> round(t_sf(2.0, 2), 15)  # 1/2 - t / (2 sqrt(2 + t^2))
    0.091751709536137
    """
    df = _check(df)
    t = float(t)
    if math.isnan(t):
        return math.nan
    if t < 0:
        return 0.5 + _Split(-t, df).central() if math.isfinite(t) else 1.0
    if t == 0:
        return 0.5
    if math.isinf(t):
        return 0.0
    return math.exp(_Split(t, df).log_sf())


def _log_pdf(t: float, df: float) -> float:
    return (_log_gamma_ratio(0.5 * df) - 0.5 * math.log(df * math.pi)
            - 0.5 * (df + 1.0) * _log1p_t2(abs(t), df))


def t_pdf(t: float, df: float) -> float:
    """Density of Student's t with ``df`` degrees of freedom.

    >>> round(t_pdf(0.0, 1), 15) == round(1 / math.pi, 15)
    True
    """
    return math.exp(_log_pdf(float(t), _check(df)))


def t_ppf(p: float, df: float) -> float:
    """Quantile of Student's t: the t with ``P(T <= t) = p`` (``scipy.special.stdtrit(df, p)``).

    Examples
    --------
    >>> round(t_ppf(0.975, 7), 12)
    2.364624251593
    >>> t_ppf(0.5, 3), t_ppf(0.25, 7) == -t_ppf(0.75, 7)
    (0.0, True)
    >>> t_ppf(1.0, 3)
    inf
    """
    df = _check(df)
    p = float(p)
    if not 0.0 <= p <= 1.0:
        return math.nan
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -_upper(p, df)
    return _upper(1.0 - p, df)  # exact: 1 - p has no rounding for p >= 1/2


def _upper(q: float, df: float) -> float:
    """The t > 0 with ``P(T > t) = q``, for 0 <= q < 1/2."""
    if q == 0.0:
        return math.inf
    central = q >= 0.25
    target = 0.5 - q if central else math.log(q)  # 0.5 - q is exact for q >= 1/4
    lo, hi = 0.0, math.inf  # a bracket: P(T > lo) > q > P(T > hi)
    t = _start(q, df)
    for _ in range(500):
        split = _Split(t, df)
        if central:  # Newton on P(0 < T < t) = 1/2 - q, whose slope is the density
            mass = split.central()
            below = mass < target
            new = t + (target - mass) / math.exp(_log_pdf(t, df))
            done = 1e-14
        else:  # Newton on u = log t for g(u) = log P(T > e^u) - log q, where g'(u) = -t pdf(t) / P(T > t)
            log_sf = split.log_sf()
            below = log_sf > target
            slope = math.exp(math.log(t) + _log_pdf(t, df) - log_sf)
            new = t * math.exp(min((log_sf - target) / slope, 700.0))
            # log P(T > t) carries a rounding error of about 1e-16 |log P|; a step of t can do no better
            # than that error over the slope (about df in the far tail)
            done = 1e-14 * max(1.0, abs(target)) / min(1.0, slope)
        if below:
            lo = t
        else:
            hi = t
        if abs(new - t) <= done * new or hi - lo <= 4e-16 * hi < math.inf:  # Newton: the error is now ~done**2
            return new
        if not lo < new < hi:  # outside the bracket: split it instead (geometrically)
            new = 4.0 * lo + 1.0 if math.isinf(hi) else (0.5 * hi if lo == 0.0 else math.sqrt(lo) * math.sqrt(hi))
        t = new
    raise ArithmeticError(f"the t quantile did not converge (q={q}, df={df})")


def _start(q: float, df: float) -> float:
    """A first guess: exact for 1 and 2 degrees of freedom, Cornish-Fisher (A&S 26.7.5) above."""
    if df == 1.0:
        return math.tan(math.pi * (0.5 - q))
    if df == 2.0:
        p = 1.0 - q
        return (2 * p - 1) / math.sqrt(2 * p * q)
    from statistics import NormalDist

    z = -NormalDist().inv_cdf(q)
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    guess = z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df
    return guess if guess > 0 and math.isfinite(guess) else 1.0
