"""The distribution functions the analysis of a small log calls, written here; scipy.special beyond their range.

Every function here is called by the README's command on the 8-item sample (``probestats analyze
sample_logs/style_probe.csv --metric steps --noise sample_logs/style_noise.csv``; calls counted with a
profiler hook over that run):

* :func:`t_ppf`: the average gap's and each value's Student t interval, the minimum detectable gap;
* :func:`t_sf` (by :func:`betainc`): the published paired t's p (and Spearman's, where the planner tests a trend);
* :func:`chi2_cdf` (by :func:`gammainc`): the noise log's dispersion test of a count;
* :func:`f_sf` (by :func:`betainc`): the noise log's test that its items differ in level;
* :func:`nct_cdf` and :func:`owens_t`: the exact interval of d_z (182 and 274 calls on the sample);
* :func:`norm_cdf`, :func:`norm_pdf`, :func:`norm_ppf`: the BCa bootstrap of d_av, the planner's search.

That command's start-up budget (``tests/test_start.py``: about 0.5 s as a whole process, about three imports
of polars) has no room for ``scipy.special``, which takes 0.18 to 0.29 s to import beyond numpy and polars
(``python -X importtime -c "import numpy, polars; import scipy.special"``, six runs at a load of two processes
a core; about 0.22 s on a quiet machine), nor for ``scipy.stats`` (0.5 to 0.9 s more). The other callers, the
run-level intervals (:mod:`probestats.stats.runs`) and the cluster F test (:mod:`probestats.analyses.clusters`),
use these too: their modules are imported by every report and by the paired analysis, which would otherwise
import ``scipy.special`` without calling it. Each function hands the arguments its own method does not cover
to the ``scipy.special`` function it stands for, imported then (inside the function, for the start-up):

* the normal ones by :class:`statistics.NormalDist` (its quantile is Wichura's AS 241, accurate to about
  1e-16 relative) and :func:`math.erfc`;
* Student's t quantile at a whole number of degrees of freedom up to :data:`T_SERIES_MAX_DF` and a tail
  between :data:`T_SERIES_MIN_TAIL` and 0.45 (confidence levels from 10% to 99.98%) by Newton's method
  on the exact finite series of the t distribution function (Abramowitz & Stegun 26.7.3 and 26.7.4, ``df / 2``
  terms), in closed form at 1 and 2 degrees of freedom; within 1e-12 relative of the quantile there (the tests
  check a grid of degrees of freedom and levels against mpmath at 40 digits). Elsewhere (fractional or larger
  df, farther tails) it is ``scipy.special.stdtrit``;
* the incomplete beta and gamma functions by their continued fractions and series up to shapes of
  :data:`SHAPE_MAX` (``scipy.special.betainc`` and ``gammainc`` above), within 1e-12 relative of scipy's;
* the noncentral t by Owen's finite recursion up to :data:`NCT_OWEN_MAX_DF` degrees of freedom
  (``scipy.special.nctdtr`` above), Owen's T by Gauss-Legendre quadrature; within 1e-13 of scipy's.
"""

from __future__ import annotations

import math
from statistics import NormalDist

__all__ = ["norm_cdf", "norm_pdf", "norm_ppf", "t_ppf", "t_sf", "betainc", "gammainc", "chi2_cdf", "f_sf", "owens_t",
           "nct_cdf", "T_SERIES_MAX_DF", "T_SERIES_MIN_TAIL", "SHAPE_MAX", "NCT_OWEN_MAX_DF"]

#: Above this many degrees of freedom Student's quantile is scipy's (the series has ``df / 2`` terms).
T_SERIES_MAX_DF = 1000
#: Nearer to 0 or 1 than this, Student's quantile is scipy's (the series' distribution function is
#: 1 minus a sum, whose rounding relative to a smaller tail would pass 1e-12).
T_SERIES_MIN_TAIL = 1e-4

_STANDARD = NormalDist()
_SQRT2 = math.sqrt(2.0)


def norm_cdf(x: float) -> float:
    """The standard normal distribution function, ``erfc(-x / sqrt 2) / 2``.

    >>> round(norm_cdf(1.959963984540054), 12)
    0.975
    """
    return 0.5 * math.erfc(-x / _SQRT2)


def norm_pdf(x: float) -> float:
    """The standard normal density.

    >>> round(norm_pdf(0.0), 12)   # 1 / sqrt(2 pi)
    0.398942280401
    """
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def norm_ppf(p: float) -> float:
    """The standard normal quantile; -inf at 0, inf at 1, nan outside [0, 1] (as ``scipy.special.ndtri``).

    >>> round(norm_ppf(0.975), 12)
    1.95996398454
    >>> norm_ppf(0.0), norm_ppf(1.0)
    (-inf, inf)
    """
    if not 0.0 < p < 1.0:
        return -math.inf if p == 0.0 else math.inf if p == 1.0 else math.nan
    return _STANDARD.inv_cdf(p)


def _t_upper(t: float, df: int) -> float:
    """``P(T > t)`` for ``t >= 0`` and whole ``df`` (Abramowitz & Stegun 26.7.3-4: ``A = P(|T| <= t)``)."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    if df % 2 == 0:   # A = sin(theta) (1 + 1/2 cos^2 + 1 3/(2 4) cos^4 + ... up to cos^(df-2))
        term, terms = 1.0, [1.0]
        for k in range(1, df // 2):
            term *= c2 * (2 * k - 1) / (2 * k)
            terms.append(term)
        a = s * math.fsum(terms)
    else:             # A = 2/pi (theta + sin cos (1 + 2/3 cos^2 + 2 4/(3 5) cos^4 + ... up to cos^(df-3)))
        term, terms = 1.0, [1.0] if df > 1 else []
        for k in range(1, (df - 1) // 2):
            term *= c2 * (2 * k) / (2 * k + 1)
            terms.append(term)
        a = 2.0 / math.pi * (theta + s * math.cos(theta) * math.fsum(terms))
    return 0.5 * (1.0 - a)


def _t_pdf(t: float, df: int) -> float:
    log_c = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    return math.exp(log_c - (df + 1) / 2 * math.log1p(t * t / df))


def t_ppf(df: float, p: float) -> float:
    """Student's t quantile at ``p`` with ``df`` degrees of freedom (the argument order of ``scipy.special.stdtrit``).

    See the module's description for where it is computed here and where by scipy.

    >>> round(t_ppf(7, 0.975), 12)    # the 95% interval of 8 item gaps
    2.364624251593
    >>> round(t_ppf(1, 0.975), 12)    # Cauchy: tan(0.475 pi)
    12.706204736175
    >>> t_ppf(3, 0.5)
    0.0
    """
    whole = float(df).is_integer() and 1 <= df <= T_SERIES_MAX_DF
    if not (whole and T_SERIES_MIN_TAIL <= min(p, 1.0 - p) <= 0.45) and p != 0.5:
        from scipy.special import stdtrit   # lazy: beyond the series' range, off a small log's start-up

        return float(stdtrit(df, p))
    df = int(df)
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_ppf(df, 1.0 - p)
    q = 1.0 - p   # the upper tail, exact in floating point for p in [0.5, 1)
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df == 2:   # P(T > t) = (1 - t / sqrt(2 + t^2)) / 2
        return (1.0 - 2.0 * q) * math.sqrt(2.0 / (4.0 * p * q))
    # Newton's method from the normal quantile, on the upper tail, kept inside a bracket that only shrinks
    lo, hi = 0.0, math.inf
    t = norm_ppf(p)
    for _ in range(100):
        f = _t_upper(t, df) - q       # falls as t grows
        if f > 0:
            lo = t
        else:
            hi = t
        step = f / _t_pdf(t, df)
        new = t + step
        if not lo < new < hi:         # Newton left the bracket: halve it (or double, with no upper end yet)
            new = 0.5 * (lo + hi) if math.isfinite(hi) else 2.0 * t + 1.0
        if abs(new - t) <= 1e-15 * abs(new):
            return new
        t = new
    return t


# --------------------------------------------------------------------------- incomplete beta and gamma

#: The largest shape parameters for which the incomplete beta and gamma functions are computed here
#: (the continued fractions' terms grow with them); above, scipy.special is imported.
SHAPE_MAX = 500.0


def _beta_cf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz; Numerical Recipes 6.4)."""
    tiny, eps = 1e-300, 1e-16
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) <= eps:
            break
    return h


def _stirling(x: float) -> float:
    """``ln Gamma(x) - ((x - 1/2) ln x - x + ln(2 pi) / 2)`` for ``x >= 10``: Stirling's series to its sixth
    term, whose first left-out term is below 1e-15 there."""
    r = 1.0 / (x * x)
    return (1 / 12 - r * (1 / 360 - r * (1 / 1260 - r * (1 / 1680 - r * (1 / 1188 - r * 691 / 360360))))) / x


def _log_beta(a: float, b: float) -> float:
    """``ln B(a, b)``; for large shapes from Stirling's series arranged so that no large terms cancel.

    >>> round(_log_beta(300.5, 0.5) - (math.lgamma(300.5) + math.lgamma(0.5) - math.lgamma(301.0)), 9)
    0.0
    """
    if a < b:
        a, b = b, a
    if a < 10:
        return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    # ln Gamma(a) - ln Gamma(a + b) = -(a - 1/2) ln(1 + b/a) - b ln(a + b) + b + omega(a) - omega(a + b)
    big = -(a - 0.5) * math.log1p(b / a) - b * math.log(a + b) + b + _stirling(a) - _stirling(a + b)
    if b < 10:
        return math.lgamma(b) + big
    # ln Gamma(b) = (b - 1/2) ln b - b + ln(2 pi) / 2 + omega(b)
    return (b - 0.5) * math.log(b) - b + 0.5 * math.log(2 * math.pi) + _stirling(b) + big


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function ``I_x(a, b)`` (``scipy.special.betainc``).

    The continued fraction on the side where it converges fast (``x < (a + 1) / (a + b + 2)``), and
    ``1 - I_(1-x)(b, a)`` on the other, so the smaller of ``I`` and ``1 - I`` keeps its relative accuracy.
    Shapes above :data:`SHAPE_MAX` are scipy's.

    >>> round(betainc(2.0, 3.0, 0.4), 12)   # 1 - (1 - x)^4 - 4 x (1 - x)^3 = 1 - 0.1296 - 0.3456
    0.5248
    """
    if not (0.0 <= x <= 1.0) or a <= 0 or b <= 0:
        return math.nan
    if max(a, b) > SHAPE_MAX:
        from scipy.special import betainc as scipy_betainc   # lazy: shapes a small log never has

        return float(scipy_betainc(a, b, x))
    if x == 0.0 or x == 1.0:
        return x
    log_front = a * math.log(x) + b * math.log1p(-x) - _log_beta(a, b)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_cf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_cf(b, a, 1.0 - x) / b


def gammainc(a: float, x: float) -> float:
    """The regularized lower incomplete gamma function ``P(a, x)`` (``scipy.special.gammainc``).

    Its series below ``x = a + 1``, ``1 -`` the continued fraction of the upper one above (Numerical
    Recipes 6.2). Shapes above :data:`SHAPE_MAX` are scipy's.

    >>> round(gammainc(1.0, 2.0), 12)   # 1 - exp(-2)
    0.864664716763
    """
    if x < 0 or a <= 0:
        return math.nan
    if a > SHAPE_MAX:
        from scipy.special import gammainc as scipy_gammainc   # lazy: shapes a small log never has

        return float(scipy_gammainc(a, x))
    if x == 0:
        return 0.0
    if a >= 10:   # -x + a ln x - ln Gamma(a), without its large terms cancelling
        u = (x - a) / a
        core = a * (math.log1p(u) - u) if abs(u) < 0.5 else a * math.log(x / a) + (a - x)
        log_front = core + 0.5 * math.log(a / (2 * math.pi)) - _stirling(a)
    else:
        log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1.0:
        term = total = 1.0 / a
        ap = a
        for _ in range(100_000):
            ap += 1.0
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-17:
                break
        return total * math.exp(log_front)
    return 1.0 - gammaincc_cf(a, x) * math.exp(log_front)


def gammaincc_cf(a: float, x: float) -> float:
    """The continued fraction of the upper incomplete gamma function, without its prefactor (modified Lentz)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = d if abs(d) > tiny else tiny
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) <= 1e-16:
            break
    return h


def chi2_cdf(x: float, df: float) -> float:
    """The chi-square distribution function, ``P(df / 2, x / 2)`` (``scipy.stats.chi2.cdf``).

    >>> round(chi2_cdf(3.841458820694124, 1), 12)
    0.95
    """
    return gammainc(df / 2.0, x / 2.0) if x > 0 else 0.0


def f_sf(x: float, dfn: float, dfd: float) -> float:
    """The F distribution's upper tail, ``I_(dfd / (dfd + dfn x))(dfd / 2, dfn / 2)`` (``scipy.stats.f.sf``).

    >>> round(f_sf(1.0, 2, 2), 12)   # F(2, 2) has the upper tail 1 / (1 + x)
    0.5
    """
    if not x > 0:
        return 1.0
    return betainc(dfd / 2.0, dfn / 2.0, dfd / (dfd + dfn * x))


def t_sf(t: float, df: float) -> float:
    """Student's t upper tail ``P(T > t)``, ``I_(df / (df + t²))(df / 2, 1/2) / 2`` above 0 (``scipy.special.stdtr(df, -t)``).

    >>> round(t_sf(2.364624251592785, 7), 12)
    0.025
    """
    if t < 0:
        return 1.0 - t_sf(-t, df)
    return 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))


# --------------------------------------------------------------------------- the noncentral t

#: Up to this many degrees of freedom (a whole number) the noncentral t is Owen's finite recursion; above,
#: scipy.special.nctdtr.
NCT_OWEN_MAX_DF = 200
_GAUSS_LEGENDRE: list = []


def owens_t(h: float, a: float) -> float:
    """Owen's T function, ``(1 / 2 pi) ∫_0^a exp(-h² (1 + x²) / 2) / (1 + x²) dx`` (``scipy.special.owens_t``).

    48-point Gauss-Legendre quadrature for ``|a| <= 1``, and for ``|a| > 1`` the identity
    ``T(h, a) = Phi(h) / 2 + Phi(a h) / 2 - Phi(h) Phi(a h) - T(a h, 1 / a)`` (h >= 0); within 2e-16 of scipy's.

    >>> round(owens_t(0.0, 1.0), 12)   # atan(1) / (2 pi) = 1/8
    0.125
    """
    if a < 0:
        return -owens_t(h, -a)
    h = abs(h)
    if a == 0:
        return 0.0
    if a > 1:
        ph, pah = norm_cdf(h), norm_cdf(a * h)
        return 0.5 * ph + 0.5 * pah - ph * pah - owens_t(a * h, 1.0 / a)
    c = -0.5 * h * h
    return 0.25 * a * math.fsum([w * math.exp(c * q) / q for w, q in _owen_terms(a)]) / math.pi


_OWEN_TERMS: dict = {}


def _owen_terms(a: float) -> list:
    """Owen's T quadrature at ``a``: each node's weight and ``1 + u²`` (``u = a (x + 1) / 2``), kept for the
    next call at the same ``a`` (a noncentral t's roots call it at one ``a`` while only ``h`` moves)."""
    terms = _OWEN_TERMS.get(a)
    if terms is None:
        if not _GAUSS_LEGENDRE:
            from numpy.polynomial.legendre import leggauss

            nodes, weights = leggauss(48)
            _GAUSS_LEGENDRE.extend([[float(v) for v in nodes], [float(v) for v in weights]])
        nodes, weights = _GAUSS_LEGENDRE
        terms = [(w, 1.0 + u * u) for w, u in ((w, 0.5 * a * (x + 1.0)) for x, w in zip(nodes, weights))]
        if len(_OWEN_TERMS) >= 256:
            _OWEN_TERMS.clear()
        _OWEN_TERMS[a] = terms
    return terms


def nct_cdf(df: float, nc: float, t: float) -> float:
    """The noncentral t distribution function ``P(T <= t)`` (the argument order of ``scipy.special.nctdtr``).

    For a whole number of degrees of freedom up to :data:`NCT_OWEN_MAX_DF`, Owen's (1965) finite form: with
    ``A = t / sqrt(df)``, ``B = df / (df + t²)`` and the recursion ``M_0 = A sqrt(B) phi(nc sqrt(B)) Phi(nc A sqrt(B))``,
    ``M_1 = B (nc A M_0 + A phi(nc) / sqrt(2 pi))``, ``M_2 = B (nc A M_1 + M_0) / 2``,
    ``M_k = (k - 1) / k B (a_k nc A M_(k-1) + M_(k-2))`` (``a_2 = 1``, ``a_k = 1 / ((k - 2) a_(k-1))``), it is
    ``Phi(-nc sqrt(B)) + 2 T(nc sqrt(B), A) + 2 (M_1 + M_3 + ... + M_(df-2))`` for odd df and
    ``Phi(-nc) + sqrt(2 pi) (M_0 + M_2 + ... + M_(df-2))`` for even df; within 1e-14 of scipy's there (the
    tests check a grid). Elsewhere scipy's.

    >>> round(nct_cdf(9, 0.0, 1.383028738396632), 12)   # central: Student's 0.9 quantile at 9 df
    0.9
    """
    if not (float(df).is_integer() and 1 <= df <= NCT_OWEN_MAX_DF) or not (math.isfinite(nc) and math.isfinite(t)):
        from scipy.special import nctdtr   # lazy: beyond Owen's recursion, off a small log's start-up

        return float(nctdtr(df, nc, t))
    df = int(df)
    a_ = t / math.sqrt(df)
    b_ = df / (df + t * t)
    sb = math.sqrt(b_)
    m = [0.0] * max(df, 3)
    m[0] = a_ * sb * norm_pdf(nc * sb) * norm_cdf(nc * a_ * sb)
    m[1] = b_ * (nc * a_ * m[0] + a_ * norm_pdf(nc) / math.sqrt(2.0 * math.pi))
    m[2] = 0.5 * b_ * (nc * a_ * m[1] + m[0])
    ak = 1.0
    for k in range(3, df - 1):
        ak = 1.0 / ((k - 2) * ak)
        m[k] = (k - 1) / k * b_ * (ak * nc * a_ * m[k - 1] + m[k - 2])
    if df % 2 == 1:
        value = norm_cdf(-nc * sb) + 2.0 * owens_t(nc * sb, a_) + 2.0 * math.fsum(m[1:df - 1:2])
    else:
        value = norm_cdf(-nc) + math.sqrt(2.0 * math.pi) * math.fsum(m[0:df - 1:2])
    return min(1.0, max(0.0, value))
