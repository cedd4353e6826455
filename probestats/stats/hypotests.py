"""Tests on per-item gaps: the exact sign-flip test, the sign test and an interval.

The unit of inference is the matched item: each item contributes one gap
(mean under value A minus mean under value B). Under the null hypothesis that the
value makes no difference, each gap is as likely to be positive as negative, so
all ``2**n`` sign patterns of the gaps are equally likely.

Sign-flip p-value
-----------------
For the observed sum ``S_obs`` of the ``n`` gaps (equivalently the mean gap), a sign
pattern counts as *at least as extreme* when its sum ``S`` satisfies

* ``two-sided``: ``|S| >= |S_obs| - tol``
* ``greater``:   ``S >= S_obs - tol``
* ``less``:      ``S <= S_obs + tol``

with the tie tolerance ``tol = 1e-9 * max(|S_obs|, max_i |g_i|)``: relative to the
observed statistic, and never smaller than a billionth of the largest gap so that
float rounding of equal sums (``0.1 + 0.2`` against ``0.3``) cannot break a tie.
The p-value is the share of the ``2**n`` patterns that count. It is computed exactly
at every n:

* **enumeration** (up to 44 non-zero gaps): every sign pattern is visited, by
  meet-in-the-middle (the sums of each half of the gaps are enumerated and the pairs
  counted with a sorted search), which costs ``2**(n/2)`` instead of ``2**n``;
* **lattice convolution** (any n): gaps of means of integer metrics over k runs are
  multiples of a common step (1/k, 1/lcm(k_a, k_b), ...). The step is detected from
  the data, each gap becomes an integer ``m_i``, and the exact distribution of
  ``sum(s_i * m_i)`` is built by convolution of the per-value binomial laws, in
  float64 after an exponential tilt toward the observed sum: direct convolution while
  it is cheap, FFT convolution (shortest kernels first, each product cut to its
  Hoeffding window) for fine lattices and many items, with a first-order rounding
  bound from Higham's FFT error analysis (about 1e-9 to 1e-7 relative for 1,000 to
  100,000 items on a 1/500 lattice). Every
  term is a non-negative product, so each probability carries only a relative rounding
  error, tiny tail probabilities included; ``method`` states a bound on the relative
  error of p (a few ulp per convolution term and per log-scale term: about 1e-14 for
  hundreds of items, 1e-12 for tens of thousands). Mass below ``1e-35`` is trimmed and
  its total enters that bound (the computation is repeated without trimming when the
  trimmed share would exceed ``1e-13`` of p).
  A p-value below the smallest normal float (``2.2e-308``) is reported as that
  float (a conservative bound); ``log10_pvalue`` then carries the exact figure.
* **certified bounds** when the gaps share no usable step and there are more than 40
  of them: the characteristic function of the sum, ``prod cos(t g_i)``, is computed
  exactly (its float error bounded), and Selberg's trigonometric majorant and minorant of
  the tail turn it into a lower and an upper bound for p whose width falls like 1/degree
  and does not grow with n (within 1% of p in a few hundredths of a second at 10,000
  gaps). In the upper tail the same polynomials, mixed into the tail of the law tilted
  toward the observed sum, keep the width within 1% of p however small p is (p = 1e-30
  in under a second); a few gaps that dominate the variance are enumerated apart.
  ``pvalue_bounds`` holds both ends; ``pvalue`` is the upper one (conservative).
* **Monte Carlo** only when those bounds are wider than 1 % of p, than 1e-4 and than
  twice the standard error Monte Carlo would have (so it is the more precise figure):
  ``n_resamples`` random sign patterns drawn with ``seed``,
  ``p = (hits + 1) / (n_resamples + 1)``, with ``pvalue_se``; the certified bounds
  are still reported in ``pvalue_bounds``.

``method`` always says which of these produced the figure; nothing switches silently
to an approximation.
"""

from __future__ import annotations

import html
import math
import sys
from dataclasses import dataclass, fields, replace
from fractions import Fraction

import numpy as np

from probestats.errors import either, OptionError
from probestats.result import jsonable
from probestats.stats.distributions import t_ppf
from probestats.stats.fourier import SPLIT_RTOL, certified_bounds
from probestats.stats.inversion import LAW_BUDGET, SignLaw
from probestats.stats.lattice import TIE_RTOL, count_at_least, find_lattice, exact_gaps, lattice_cost, lattice_pvalue
from probestats.stats.resample import bootstrap_interval
from probestats.vocabulary import (ALTERNATIVES, N_RESAMPLES, SIGN_FLIP_RESAMPLES, check_alternative,  # noqa: F401
                                   check_n_resamples, check_vocabulary)

__all__ = [
    "TestResult",
    "JSON_NAMES",
    "Interval",
    "sign_flip_test",
    "sign_flip_pvalues",
    "sign_test",
    "gap_interval",
    "mean_interval",
    "min_attainable_p",
    "MinP",
]

SIGN_FLIP_METHODS = ("auto", "enumerate", "lattice", "bounds", "monte-carlo")

#: Non-zero gaps up to which ``auto`` enumerates; up to MITM_MAX ``enumerate`` is allowed.
ENUM_AUTO_MAX = 20
MITM_MAX = 44
#: ``auto`` falls back to enumeration (rather than bounds) up to this many non-zero gaps.
MITM_AUTO_MAX = 40
#: Rough budget (array element operations) for one lattice convolution under ``auto``.
LATTICE_BUDGET = 2e9
#: Budget for each of the two lattice tails behind the exact bounds.
BOUNDS_BUDGET = 6e8
#: Bounds are reported as the result when (upper - lower) <= this share of the upper bound, or
#: at most BOUNDS_ATOL apart (or narrower than Monte Carlo's two standard errors would be).
BOUNDS_RTOL = 0.01
#: the narrowest relative width sign_flip_test(alpha=...) tightens straddling bounds to
DECIDE_RTOL_MIN = 1e-5
BOUNDS_ATOL = 1e-4
#: Largest number of gaps for which the sign-flip inversion enumerates every sign pattern (beyond: Monte Carlo).
INTERVAL_SIGN_FLIP_MAX_N = 30

_FLOAT_MIN = sys.float_info.min
_ULP = sys.float_info.epsilon


# --------------------------------------------------------------------------- results


#: A test's fields as JSON names them, where Python's name differs: a p-value is ``p`` in every JSON object
#: (``pvalue`` in Python, as scipy names it), and its companions follow it.
JSON_NAMES = {"pvalue": "p", "log10_pvalue": "p_log10", "pvalue_se": "p_se", "pvalue_bounds": "p_bounds",
              "pvalue_bound": "p_bound"}


@dataclass(frozen=True)
class TestResult:
    """Result of a test on per-item gaps.

    Attributes
    ----------
    statistic : float
        The observed mean gap (sign-flip test) or k, the larger of the positive and
        negative counts (sign test; for one-sided tests the count in the tested
        direction).
    pvalue : float
        The p-value; always > 0.
    method : str
        How the p-value was computed, e.g. ``"exact (enumeration of all 256 sign
        patterns)"``, ``"exact (lattice convolution, step 1/20; ...)"``,
        ``"monte carlo (n_resamples=100000, ...)"``.
    alternative : {"two-sided", "greater", "less"}
    n : int
        Number of gaps (sign-flip test) or of non-zero gaps (sign test).
    n_nonzero : int or None
        Number of non-zero gaps (sign-flip test).
    k : int or None
        Sign test: the larger of the positive and negative counts.
    formula : str or None
        Sign test: the spreadsheet formula with the numbers filled in.
    pvalue_se : float or None
        Monte Carlo standard error of ``pvalue``; None for exact methods.
    pvalue_bounds : tuple of float or None
        Certified lower and upper bounds for the exact p (bounds and Monte Carlo methods).
    log10_pvalue : float or None
        log10 of the exact p, also when p is below the float range.
    pvalue_bound : {"upper"} or None
        ``"upper"`` when ``pvalue`` is a bound, not an estimate: no Monte Carlo resample was as
        extreme as the data, so p is below the floor 1/(n_resamples + 1) that ``pvalue`` holds.

    Examples
    --------
    >>> r = TestResult(statistic=0.5, pvalue=0.25, method="exact", alternative="two-sided", n=3)
    >>> r.to_dict()["p"]   # JSON says p where Python says pvalue (JSON_NAMES)
    0.25
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    method: str
    alternative: str
    n: int
    n_nonzero: int | None = None
    k: int | None = None
    formula: str | None = None
    pvalue_se: float | None = None
    pvalue_bounds: tuple[float, float] | None = None
    log10_pvalue: float | None = None
    pvalue_bound: str | None = None

    @property
    def kind(self) -> str:
        """``"exact"``, ``"bounds"`` (certified bounds; ``pvalue`` is the upper one) or ``"monte-carlo"``.

        >>> sign_flip_test([0.5, 1.0, -0.25]).kind
        'exact'
        """
        if self.pvalue_se is not None:
            return "monte-carlo"
        if self.pvalue_bounds is not None:
            return "bounds"
        return "exact"

    def to_dict(self) -> dict:
        """JSON-safe dictionary of the fields (plain numbers, infinities as None).

        Examples
        --------
        >>> sign_test([1, 2, -1]).to_dict()["formula"]
        '=MIN(1, 2*(1-BINOM.DIST(1, 3, 0.5, TRUE)))'
        >>> sorted(k for k in sign_test([1, 2, -1]).to_dict() if k.startswith("p"))
        ['p', 'p_bound', 'p_bounds', 'p_log10', 'p_se']
        """
        return {JSON_NAMES.get(f.name, f.name): jsonable(getattr(self, f.name)) for f in fields(self)}

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><th style='text-align:left'>{f.name}</th><td>{html.escape(str(getattr(self, f.name)))}</td></tr>"
            for f in fields(self)
            if getattr(self, f.name) is not None
        )
        return f"<table>{rows}</table>"

    def __repr__(self) -> str:
        """One line: the fields that are set (a test leaves most of its optional ones None)."""
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                          if getattr(self, f.name) is not None and f.name != "log10_pvalue")
        return f"TestResult({shown})"


@dataclass(frozen=True)
class Interval:
    """An interval for the average gap, with its confidence level and method.

    Attributes
    ----------
    low, high : float
        The ends (``-inf`` or ``inf`` for an open side, None in JSON).
    confidence : float
        The confidence level, such as 0.95.
    method : str
        How the interval was computed, in words (``"Student t on 8 item gaps (7 degrees of freedom)"``).
    assumption : str
        What its coverage rests on, in words (see :data:`INTERVAL_ASSUMPTIONS`); empty when nothing is assumed.

    Examples
    --------
    >>> Interval(-float("inf"), 2.0, 0.95, "sign-flip inversion").to_dict()
    {'low': None, 'high': 2.0, 'confidence': 0.95, 'method': 'sign-flip inversion', 'assumption': ''}
    """

    low: float
    high: float
    confidence: float
    method: str
    #: what the interval's coverage rests on, in words (see :data:`INTERVAL_ASSUMPTIONS`)
    assumption: str = ""

    def to_dict(self) -> dict:
        """JSON-safe dictionary (infinite ends become None).

        Examples
        --------
        >>> Interval(0.5, 1.5, 0.9, "t").to_dict()["low"]
        0.5
        """
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


# --------------------------------------------------------------------------- checks


_check_alternative = check_alternative   # one validator and one message (probestats.vocabulary)


def as_gaps(gaps) -> np.ndarray:
    """Per-item gaps as a 1-D array of finite floats, or an :class:`~probestats.errors.OptionError` saying
    what is wrong."""
    try:
        g = np.asarray(gaps, dtype=float)
    except (TypeError, ValueError) as exc:
        raise OptionError(f"gaps must be numbers ({exc}); pass a list or 1-D array of floats") from None
    if g.ndim != 1:
        raise OptionError(f"gaps must be one-dimensional, got shape {g.shape}; pass one gap per item")
    if g.size == 0:
        raise OptionError("no gaps given; pass at least one per-item gap")
    if not np.all(np.isfinite(g)):
        bad = int(np.flatnonzero(~np.isfinite(g))[0])
        raise OptionError(f"gap {bad} is {g[bad]}; drop items whose gap is missing or infinite")
    return g


# --------------------------------------------------------------------------- sign-flip test


def _tie_tol(s_obs: float, gmax: float) -> float:
    return TIE_RTOL * max(abs(s_obs), gmax)


def _upper_threshold(s_obs: float, tol: float, alternative: str) -> float:
    """x such that the p-value is the share of patterns with S >= x (times 2 if two-sided)."""
    if alternative == "greater":
        return s_obs - tol
    if alternative == "less":
        return -s_obs - tol  # S <= s_obs + tol  <=>  -S >= -s_obs - tol, and -S has the law of S
    return abs(s_obs) - tol


def _fmt_step(L: int, d: int) -> str:
    f = Fraction(d, L)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def sign_flip_test(
    gaps,
    *,
    alternative: str = "two-sided",
    method: str = "auto",
    n_resamples: int = SIGN_FLIP_RESAMPLES,
    seed: int | None = 0,
    alpha: float | None = None,
) -> TestResult:
    """Exact sign-flip (paired permutation) test on per-item gaps.

    If the compared values made no difference, each item's gap is as likely to be
    positive as negative. The p-value is the share of all ``2**n`` sign assignments
    whose mean gap is at least as extreme as the observed one; ties count as at least
    as extreme (relative tolerance 1e-9, see the module docstring).

    Parameters
    ----------
    gaps : sequence of float
        One gap per item (mean under A minus mean under B).
    alternative : {"two-sided", "greater", "less"}
        ``two-sided``: |mean| >= |observed mean|; ``greater``: mean >= observed;
        ``less``: mean <= observed.
    method : {"auto", "enumerate", "lattice", "bounds", "monte-carlo"}
        ``auto`` enumerates up to 20 non-zero gaps, then uses the lattice convolution
        when the gaps share a common step (exact at any n), then enumeration up to 40
        gaps, then certified bounds (:func:`sign_flip_bounds`; ``pvalue`` is their upper
        end), and Monte Carlo only when the bounds are wider than 1 % of p, than 1e-4 and
        than twice its standard error. The other values force one path (``enumerate`` allows up to 44
        non-zero gaps; ``lattice`` needs a common step).
    n_resamples, seed : int
        Monte Carlo settings, used only by that path (and recorded in ``method``).
    alpha : float, optional
        The level at which ``pvalue <= alpha`` will be read as a rejection. Certified bounds that
        lie on both sides of it are tightened (ten times narrower a round, down to a relative
        width of 1e-5, within the same computing budget) until they lie on one side, so the
        decision is the exact test's; only a p closer to ``alpha`` than that stays undecided,
        and its upper bound (the conservative side) is reported.

    Returns
    -------
    TestResult
        ``statistic`` is the observed mean gap; ``method`` names the computation.

    Examples
    --------
    Three gaps: of the 8 sign patterns only +1+2+3 and -1-2-3 reach |sum| = 6.

    >>> r = sign_flip_test([1.0, 2.0, 3.0])
    >>> r.pvalue, r.method
    (0.25, 'exact (enumeration of all 8 sign patterns)')
    >>> sign_flip_test([1.0, 2.0, 3.0], alternative="greater").pvalue
    0.125

    Gaps of means over 20 runs lie on a lattice of step 1/20; any n is exact:

    >>> gaps = [((i * 7) % 41 - 12) / 20 for i in range(2000)]
    >>> r = sign_flip_test(gaps)
    >>> r.method.split(";")[0]
    'exact (lattice convolution, step 1/20'
    >>> 0 < r.pvalue < 1e-20
    True
    """
    check_vocabulary(alpha=alpha, n_resamples=n_resamples, seed=seed)
    g = as_gaps(gaps)
    alternative = _check_alternative(alternative)
    if method not in SIGN_FLIP_METHODS:
        raise OptionError(f"method must be one of {', '.join(SIGN_FLIP_METHODS)}, not {method!r}")
    n = int(g.size)
    s_obs = math.fsum(g)
    mean = s_obs / n
    nz = g[g != 0.0]
    k = int(nz.size)
    common = dict(statistic=float(mean), alternative=alternative, n=n, n_nonzero=k)

    if k == 0:
        return TestResult(pvalue=1.0, method="exact (all gaps are zero: every sign pattern ties)",
                          log10_pvalue=0.0, **common)

    gmax = float(np.max(np.abs(nz)))
    tol = _tie_tol(s_obs, gmax)
    x = _upper_threshold(s_obs, tol, alternative)
    two = alternative == "two-sided"
    if two and x <= 0:
        return TestResult(pvalue=1.0, log10_pvalue=0.0, **common, method=(
            "exact (the observed mean is zero within the tie tolerance: every sign pattern "
            "is at least as extreme)"))

    L = None
    if method in ("lattice", "auto") and not (method == "auto" and k <= ENUM_AUTO_MAX):
        L = find_lattice(nz)
        if method == "lattice" and L is None:
            raise OptionError(
                "the gaps share no common step (such as 1/k for means over k runs); use method='auto'"
            )
    path = method
    if method == "auto":
        if k <= ENUM_AUTO_MAX:
            path = "enumerate"
        elif L is not None and lattice_cost(np.abs(np.rint(nz * L)).astype(np.int64)) <= LATTICE_BUDGET:
            path = "lattice"
        elif k <= MITM_AUTO_MAX:
            path = "enumerate"
        else:
            path = "bounds-or-monte-carlo"

    if path == "enumerate":
        if k > MITM_MAX:
            raise OptionError(
                f"enumeration is limited to {MITM_MAX} non-zero gaps (got {k}); use method='auto'"
            )
        count = int(count_at_least(nz[None, :], np.array([x]))[0])
        p = min(1.0, (2 * count if two else count) / 2.0**k)
        return TestResult(pvalue=p, method=_enum_method(k, n), log10_pvalue=math.log10(p), **common)

    if path == "lattice":
        m = np.rint(nz * L).astype(np.int64)
        if method == "lattice" and lattice_cost(np.abs(m)) > 20 * LATTICE_BUDGET:
            raise OptionError(
                f"the gaps' common step 1/{L} is too fine for the lattice convolution; use method='auto'"
            )
        logp, err = lattice_pvalue(m, alternative)
        d = int(np.gcd.reduce(np.abs(m)))
        p = max(math.exp(logp), _FLOAT_MIN)
        text = (f"exact (lattice convolution, step {_fmt_step(L, d)}; float64, "
                f"relative error < {_round_up(err)}")
        if math.exp(logp) < _FLOAT_MIN:
            text += "; p below 2.2e-308 reported as 2.2e-308, its exact log10 given beside it"
        return TestResult(pvalue=p, method=text + ")", log10_pvalue=logp / math.log(10.0), **common)

    if path == "monte-carlo":
        p, se = _monte_carlo(nz, s_obs, tol, alternative, n_resamples, seed)
        text = (f"monte carlo (n_resamples={n_resamples}, seed={seed}, standard error {se:.2g}; "
                f"p = (hits + 1)/(n_resamples + 1){_FLOOR_TEXT if _at_floor(p, n_resamples) else ''})")
        return TestResult(pvalue=p, method=text, pvalue_se=se, log10_pvalue=math.log10(p),
                          pvalue_bound="upper" if _at_floor(p, n_resamples) else None, **common)

    # certified bounds; under auto, Monte Carlo only when it would be more precise than the bounds
    rtol, budget = BOUNDS_RTOL, min(BOUNDS_BUDGET, 5e6 * k)
    lower, upper, how = certified_bounds(nz, x, two, rtol, 0.0, budget)
    while alpha is not None and lower <= alpha < upper and rtol > DECIDE_RTOL_MIN:
        rtol /= 10   # the bounds straddle the level the decision is made at: narrow them
        lower, upper, how = certified_bounds(nz, x, two, rtol, 0.0, budget)
    upper = max(upper, _FLOAT_MIN)
    mc_se = math.sqrt(upper * (1 - upper) / max(int(n_resamples), 1))
    if path == "bounds" or upper - lower <= max(BOUNDS_RTOL * upper, BOUNDS_ATOL, 2 * mc_se):
        return _bounds_result(lower, upper, how, max(rtol * upper, BOUNDS_ATOL), common)
    p, se = _monte_carlo(nz, s_obs, tol, alternative, n_resamples, seed)
    text = (f"monte carlo (n_resamples={n_resamples}, seed={seed}, standard error {se:.2g}; "
            f"p = (hits + 1)/(n_resamples + 1){_FLOOR_TEXT if _at_floor(p, n_resamples) else ''}; "
            f"certified bounds {lower:.4g} <= p <= {upper:.4g} were wider)")
    return TestResult(pvalue=p, method=text, pvalue_se=se, pvalue_bounds=(lower, upper),
                      log10_pvalue=math.log10(p), pvalue_bound="upper" if _at_floor(p, n_resamples) else None,
                      **common)


_FLOOR_TEXT = "; no resample was as extreme, so p is below that floor"


def at_floor(p: float, n_resamples: int) -> bool:
    """Whether a Monte Carlo p = (hits + 1)/(n_resamples + 1) has no hits: p is then only a bound.

    >>> at_floor(1 / 10_001, 10_000), at_floor(2 / 10_001, 10_000)
    (True, False)
    """
    return p * (int(n_resamples) + 1) < 1.5


_at_floor = at_floor


def _round_up(err: float) -> str:
    """The error bound rounded up to one significant digit, e.g. 3e-13 -> '4e-13'."""
    if err <= 0:
        return "1e-15"
    exp = math.floor(math.log10(err))
    lead = math.ceil(err / 10.0**exp * (1 - 1e-12))
    if lead >= 10:
        lead, exp = 1, exp + 1
    return f"{lead}e{exp:03d}" if exp < 0 else f"{lead}e+{exp:02d}"


def _enum_method(k: int, n: int) -> str:
    if k == n:
        return f"exact (enumeration of all {2**k} sign patterns)"
    return f"exact (enumeration of all {2**k} sign patterns of the {k} non-zero gap{'s' if k != 1 else ''})"


def _monte_carlo(nz, s_obs, tol, alternative, n_resamples, seed) -> tuple[float, float]:
    n_resamples = check_n_resamples(n_resamples)
    rng = np.random.default_rng(seed)
    nz = np.sort(nz)   # the signs drawn over the gaps in an order of their values, not the log's
    k = nz.size
    total = float(np.sum(nz))
    chunk = max(1, 4_000_000 // k)
    hits = 0
    done = 0
    while done < n_resamples:
        rows = min(chunk, n_resamples - done)
        flips = rng.integers(0, 2, size=(rows, k), dtype=np.int8).astype(float)
        sums = total - 2.0 * (flips @ nz)
        if alternative == "greater":
            hits += int(np.count_nonzero(sums >= s_obs - tol))
        elif alternative == "less":
            hits += int(np.count_nonzero(sums <= s_obs + tol))
        else:
            hits += int(np.count_nonzero(np.abs(sums) >= abs(s_obs) - tol))
        done += rows
    p = (hits + 1) / (n_resamples + 1)
    return p, math.sqrt(p * (1 - p) / n_resamples)


def extreme_thresholds(gaps_2d: np.ndarray, alternative: str) -> np.ndarray:
    """Per row, the value a sign pattern's (signed or absolute) sum must reach to count as extreme.

    The observed sum in the tested direction, less the tie tolerance (``TIE_RTOL`` times the
    larger of |sum| and the largest |gap|), so that ties count as at least as extreme:
    pattern sums ``S`` count when ``S >= t`` (greater), ``-S >= t`` (less) or ``|S| >= t``.

    >>> extreme_thresholds(np.array([[1.0, 2.0], [-1.0, 0.5]]), "two-sided").round(6).tolist()
    [3.0, 0.5]
    """
    total = gaps_2d.sum(axis=1)
    tol = TIE_RTOL * np.maximum(np.abs(total), np.abs(gaps_2d).max(axis=1))
    if alternative == "greater":
        return total - tol
    if alternative == "less":
        return -total - tol
    return np.abs(total) - tol


def sign_flip_pvalues(
    gaps_2d, *, alternative: str = "two-sided", n_resamples: int = 100_000, seed: int | None = 0
) -> np.ndarray:
    """Exact sign-flip p-values for many sets of gaps at once (one set per row).

    For rows of up to 24 gaps all sign patterns are enumerated for every row at once
    (meet in the middle, ``2 * 2**(n/2)`` sums per row); longer rows go through
    :func:`sign_flip_test` one by one (lattice convolution when the gaps share a step).
    Agrees with ``sign_flip_test(row, alternative=alternative).pvalue`` row by row.

    Parameters
    ----------
    gaps_2d : array_like, shape (sims, n)
    alternative : {"two-sided", "greater", "less"}
    n_resamples, seed : int
        Passed to :func:`sign_flip_test` for rows that need Monte Carlo.

    Returns
    -------
    numpy.ndarray of float, shape (sims,)

    Examples
    --------
    >>> sign_flip_pvalues([[1.0, 2.0, 3.0], [1.0, -2.0, 3.0], [0.0, 0.0, 0.0]])  # sums of +-1+-2+-3: 6,4,2,0,0,-2,-4,-6
    array([0.25, 0.75, 1.  ])
    """
    alternative = _check_alternative(alternative)
    check_vocabulary(n_resamples=n_resamples, seed=seed)
    try:
        G = np.asarray(gaps_2d, dtype=float)
    except (TypeError, ValueError) as exc:
        raise OptionError(f"gaps_2d must be numbers ({exc}); pass an array of shape (sims, n)") from None
    if G.ndim != 2 or G.shape[1] == 0:
        raise OptionError(f"gaps_2d must have shape (sims, n) with n >= 1, got {G.shape}")
    if not np.all(np.isfinite(G)):
        raise OptionError("gaps_2d has missing or infinite values; drop those rows")
    sims, n = G.shape
    if n > 24:
        return np.array([sign_flip_test(row, alternative=alternative, n_resamples=n_resamples,
                                        seed=seed).pvalue for row in G])
    gmax = np.max(np.abs(G), axis=1)
    x = extreme_thresholds(G, alternative)
    out = np.ones(sims)
    todo = np.flatnonzero((x > 0) | (alternative != "two-sided")) if sims else np.array([], int)
    todo = todo[gmax[todo] > 0]
    if todo.size:
        counts = np.empty(todo.size, dtype=np.int64)
        step = max(1, 2**22 // 2 ** (n - n // 2))  # rows per chunk, bounding memory
        for start in range(0, todo.size, step):
            idx = todo[start : start + step]
            counts[start : start + step] = count_at_least(G[idx], x[idx])
        factor = 2.0 if alternative == "two-sided" else 1.0
        out[todo] = np.minimum(1.0, factor * counts / 2.0**n)
    return out


# --------------------------------------------------------------------------- sign test


def _binom_upper(k: int, n: int) -> float:
    """P(X >= k) for X ~ Binomial(n, 1/2), exact rational arithmetic up to n = 2000."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if n <= 2000:
        return float(Fraction(sum(math.comb(n, j) for j in range(k, n + 1)), 2**n))
    from scipy.special import bdtrc  # P(X > k - 1), without importing all of scipy.stats

    return float(bdtrc(k - 1, n, 0.5))


def sign_test(gaps, *, alternative: str = "two-sided") -> TestResult:
    """Exact binomial sign test on per-item gaps; zero gaps are dropped.

    With n the number of non-zero gaps and k the larger of the positive and negative
    counts, the two-sided p is ``min(1, 2 * P(X >= k))`` for X ~ Binomial(n, 1/2): the
    spreadsheet formula ``=MIN(1, 2*(1-BINOM.DIST(k-1, n, 0.5, TRUE)))``, which the
    result carries with the numbers filled in (``formula``). One-sided: ``greater`` is
    P(X >= number of positive gaps), ``less`` is P(X >= number of negative gaps).
    Signs are those of the exact gaps (:func:`~probestats.stats.lattice.exact_gaps`): a gap of means that
    is zero as a fraction (``0.1 + 0.2 - 0.3``) is dropped, other gaps within the sign-flip test's tie
    tolerance of zero too. Probabilities are computed with exact
    integer arithmetic up to n = 2000 (scipy's binomial survival function above).

    Parameters
    ----------
    gaps : sequence of float
    alternative : {"two-sided", "greater", "less"}

    Returns
    -------
    TestResult
        ``statistic`` and ``k``: the count used (two-sided: the larger count);
        ``n``: the number of non-zero gaps; ``formula``: the spreadsheet formula.

    Examples
    --------
    >>> r = sign_test([0.2, 0.1, -0.05, 0.3])
    >>> r.pvalue, r.k, r.n
    (0.625, 3, 4)
    >>> r.formula
    '=MIN(1, 2*(1-BINOM.DIST(2, 4, 0.5, TRUE)))'
    >>> sign_test([0.2, 0.1, -0.05, 0.3], alternative="greater").formula
    '=1-BINOM.DIST(2, 4, 0.5, TRUE)'
    >>> sign_test([0.0, 0.0]).pvalue
    1.0
    """
    g = exact_gaps(as_gaps(gaps))
    alternative = _check_alternative(alternative)
    n_pos = int(np.count_nonzero(g > 0))
    n_neg = int(np.count_nonzero(g < 0))
    n = n_pos + n_neg
    if n == 0:
        return TestResult(statistic=0.0, pvalue=1.0, alternative=alternative, n=0, k=0,
                          formula=None, log10_pvalue=0.0,
                          method="exact binomial sign test (all gaps are zero: p = 1)")
    if alternative == "two-sided":
        k = max(n_pos, n_neg)
        p = min(1.0, 2.0 * _binom_upper(k, n))
        formula = f"=MIN(1, 2*(1-BINOM.DIST({k - 1}, {n}, 0.5, TRUE)))"
    else:
        k = n_pos if alternative == "greater" else n_neg
        p = _binom_upper(k, n)
        formula = f"=1-BINOM.DIST({k - 1}, {n}, 0.5, TRUE)" if k > 0 else "=1"
    dropped = int(g.size) - n
    method = f"exact binomial sign test ({n_pos} positive, {n_neg} negative"
    method += f", {dropped} zero gaps dropped)" if dropped else ")"
    return TestResult(statistic=float(k), pvalue=p, method=method, alternative=alternative,
                      n=n, k=k, formula=formula,
                      log10_pvalue=math.log10(p) if p > 0 else None)


# --------------------------------------------------------------------------- other


class MinP(float):
    """The smallest attainable p, exactly ``2**log2``, as a float.

    A plain float equal to ``2**log2`` when that is representable. Below the float
    range (``log2 < -1074``, more than 1,075 non-zero gaps two-sided) the float value is
    the smallest positive float, ``2**-1074``: an upper bound, never 0; ``log2`` and
    ``log10`` then carry the exact figure (and ``exact`` is False).

    >>> m = min_attainable_p(2000)
    >>> m > 0, m.log2, round(m.log10, 3), m.exact
    (True, -1999, -601.759, False)
    >>> repr(min_attainable_p(8)), min_attainable_p(8).exact
    ('0.0078125', True)
    """

    log2: int

    def __new__(cls, log2: int):
        obj = super().__new__(cls, math.ldexp(1.0, max(int(log2), -1074)))
        obj.log2 = int(log2)
        return obj

    @property
    def exact(self) -> bool:
        """True when the float equals ``2**log2`` exactly."""
        return self.log2 >= -1074

    @property
    def log10(self) -> float:
        """log10 of the exact value."""
        return self.log2 * math.log10(2.0)

    def __repr__(self) -> str:
        return float.__repr__(self) if self.exact else f"2**{self.log2}"

    def __reduce__(self):
        return (MinP, (self.log2,))


def min_attainable_p(n: int, alternative: str = "two-sided") -> MinP:
    """Smallest p the sign-flip test can give with n non-zero gaps.

    ``2 / 2**n`` two-sided (capped at 1), ``1 / 2**n`` one-sided. When this exceeds
    alpha, the design can never reach significance. The result is a float (a
    :class:`MinP`); past the float range it is the smallest positive float, an upper
    bound, and its ``log2`` / ``log10`` attributes give the exact value, so it never
    rounds to 0.

    Examples
    --------
    >>> min_attainable_p(8)
    0.0078125
    >>> min_attainable_p(8, "greater")
    0.00390625
    >>> min_attainable_p(0)
    1.0
    >>> min_attainable_p(100_000).log2
    -99999
    """
    alternative = _check_alternative(alternative)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise OptionError(f"n must be a non-negative whole number of gaps, not {n!r}")
    n = int(n)
    return MinP(min(0, (1 if alternative == "two-sided" else 0) - n))


#: What each interval's stated coverage rests on (shown beside it in text and JSON).
INTERVAL_ASSUMPTIONS = {
    "t": ("assumes the item gaps are roughly normal; with strongly skewed gaps and few items it covers "
          "less than stated (0.82-0.85 for lognormal gaps at 6-12 items, measured on generated logs)"),
    "bootstrap": ("BCa bootstrap (scipy.stats.bootstrap): corrects for skew but assumes the items are a fair "
                  "sample; with few items it covers less than stated"),
    "percentile": ("percentile bootstrap (scipy.stats.bootstrap): the items are a fair sample; no correction "
                   "for skew or bias, so with few items it covers less than stated"),
    "sign-flip": "assumes the item gaps are symmetric about the average gap (exact under that assumption)",
    "t-means": ("assumes the items are independent and their means under the value roughly normal; with strongly "
                "skewed means and few items it covers less than stated"),
}
#: Sample skewness of item gaps (adjusted Fisher-Pearson) beyond which, with few items, a warning is given.
SKEW_WARNING = 1.0
#: ... and the number of items up to which it is given.
SKEW_WARNING_MAX_N = 15


def gap_skewness(gaps) -> float:
    """Adjusted Fisher-Pearson sample skewness of the item gaps (scipy.stats.skew, bias=False); 0 without spread.

    By hand for 0, 0, 0, 1, 5: mean 1.2, m2 = 18.8/5 = 3.76, m3 = 49.68/5 = 9.936,
    g1 = m3 / m2**1.5 = 1.3628, G1 = g1 * sqrt(5 * 4) / 3 = 2.0315.

    >>> round(gap_skewness([0.0, 0.0, 0.0, 1.0, 5.0]), 4)
    2.0315
    """
    g = as_gaps(gaps)
    if g.size < 3 or float(np.ptp(g)) == 0.0:
        return 0.0
    # the formula above (scipy.stats.skew's, which the tests compare with): importing scipy.stats for
    # it would cost a plain analyze most of a second
    n = g.size
    d = g - g.mean()
    m2, m3 = float(np.mean(d * d)), float(np.mean(d * d * d))
    return m3 / m2**1.5 * math.sqrt(n * (n - 1)) / (n - 2)


def gap_interval(gaps, *, confidence: float = 0.95, method: str = "t", n_resamples: int = N_RESAMPLES,
                 seed: int | None = 0) -> Interval:
    """Confidence interval for the average gap across items.

    Parameters
    ----------
    gaps : sequence of float
        One gap per item.
    confidence : float
        Between 0 and 1 (default 0.95).
    method : {"t", "bootstrap", "percentile", "sign-flip"}
        ``t`` (default): Student t interval on the item gaps, mean +- t(n-1) * sd / sqrt(n);
        it assumes roughly normal item gaps (the quantile t(n-1) is
        :func:`probestats.stats.distributions.t_ppf`, within 1e-12 of ``scipy.stats.t.ppf``). ``bootstrap``: the BCa bootstrap interval of the
        mean (the computation of ``scipy.stats.bootstrap``, ``n_resamples`` resamples, ``seed``); ``percentile``: the percentile
        bootstrap of the mean, the same call with ``method='percentile'``. ``sign-flip``: the exact inversion of the
        two-sided sign-flip test, the shifts d for which the test on ``gaps - d`` does
        not reject at alpha = 1 - confidence (ends are infinite when 2/2**n > alpha). Gaps on a
        lattice (within the joint law's budget, :data:`probestats.stats.inversion.LAW_BUDGET`) are
        inverted exactly at any n (:class:`probestats.stats.inversion.SignLaw`): each end is a shift
        where p jumps, found by bisection and then p exact at the jumps near it, and belongs to the
        interval. Otherwise each end is found by bisection between a
        rejected shift and the mean to a tolerance of 1e-9 times the spread of the gaps, and up to 30
        gaps moved onto 0, a gap or a mean of two gaps near it when the test keeps that shift (p jumps
        there); beyond 30, the end nearest 0 is moved to agree with the exact test at 0. Up to 30 gaps each tested shift enumerates
        the 2**n sign patterns (exact); beyond, the p of every shift is the Monte Carlo one over
        the same ``n_resamples`` random sign patterns drawn with ``seed`` (their sums of the gaps
        and of the signs are taken once, so a shift costs ``n_resamples`` operations and the
        whole interval about a second at a thousand gaps, 5 s at ten thousand); the method states the
        Monte Carlo error of p at the ends.

    Returns
    -------
    Interval

    Examples
    --------
    >>> iv = gap_interval([1.0, 2.0, 3.0, 4.0])
    >>> round(iv.low, 4), round(iv.high, 4)
    (0.4457, 4.5543)
    >>> iv = gap_interval([1.0, 2.0, 3.0, 4.0, 5.0, 6.0], method="sign-flip", confidence=0.9)
    >>> round(iv.low, 6), round(iv.high, 6)
    (2.0, 5.0)
    """
    check_vocabulary(n_resamples=n_resamples, seed=seed)
    g = as_gaps(gaps)
    try:
        confidence = float(confidence)
    except (TypeError, ValueError):
        confidence = float("nan")
    if not 0.0 < confidence < 1.0:
        raise OptionError(f"confidence must be between 0 and 1 (such as 0.95), not {confidence!r}")
    n = int(g.size)
    mean = math.fsum(g) / n
    if method == "t":
        if n < 2:
            raise OptionError("a t interval needs at least 2 gaps; add items")
        sd = float(np.std(g, ddof=1))
        half = t_ppf(n - 1, 0.5 + confidence / 2.0) * sd / math.sqrt(n)
        return Interval(mean - half, mean + half, confidence,
                        f"Student t on {n} item gaps ({n - 1} degree{'s' if n != 2 else ''} of freedom)",
                        INTERVAL_ASSUMPTIONS["t"])
    if method in ("bootstrap", "percentile"):
        return _bootstrap_interval(g, mean, confidence, n_resamples, seed, kind="BCa" if method == "bootstrap"
                                   else "percentile")
    if method != "sign-flip":
        raise OptionError(f"method must be 't', 'bootstrap', 'percentile' or 'sign-flip', not {method!r}")
    alpha = 1.0 - confidence
    nz = g[g != 0.0]
    L = find_lattice(nz) if nz.size else 1
    m = None if L is None else np.rint(g * L).astype(np.int64)
    law = m is not None and SignLaw.cost(m) <= LAW_BUDGET
    exact = law or n <= INTERVAL_SIGN_FLIP_MAX_N
    if law:
        text = (f"sign-flip test inversion (exact at every shift: the joint law of the sum and the signs over all "
                f"2**{n} sign patterns, lattice step {_fmt_step(L, 1)}; the ends are the shifts where p jumps, "
                f"found by bisection and then p exact at each jump; both ends belong to the interval)")
    elif exact:
        text = (f"sign-flip test inversion (exact, {2**n:,} sign patterns; ends by bisection "
                f"to 1e-9 of the spread, then snapped to a shift where p jumps (0, a gap, a mean of two gaps) "
                f"when the test keeps it)")
    else:  # 2**n patterns are out of reach, and shifted gaps share no lattice
        err = 2 * math.sqrt(alpha * (1 - alpha) / n_resamples)
        text = (f"sign-flip test inversion, Monte Carlo: {n} gaps, the same {n_resamples:,} random sign patterns "
                f"(seed {seed}) for every shift, p = (hits + 1)/(n_resamples + 1); at the ends p is alpha "
                f"within about ±{err:.2g} (two standard errors); ends by bisection to 1e-9 of the spread")
    if min_attainable_p(n) > alpha:
        return Interval(-math.inf, math.inf, confidence, text + "; no shift can be rejected at this n",
                        INTERVAL_ASSUMPTIONS["sign-flip"])
    spread = float(np.ptp(g)) + float(np.max(np.abs(g))) or 1.0
    xtol = 1e-9 * spread
    if law:
        joint = SignLaw.build(m, L)
        low = joint.end(mean, float(np.min(g)) - spread, alpha, xtol)
        high = joint.end(mean, float(np.max(g)) + spread, alpha, xtol)
        return Interval(low, high, confidence, text, INTERVAL_ASSUMPTIONS["sign-flip"])
    if not exact:
        shifted = _shift_sums(g, n_resamples, seed)

    def rejects(d: float) -> bool:
        if exact:
            return sign_flip_test(g - d, method="enumerate").pvalue <= alpha
        return shifted(d) <= alpha

    def end(outside: float) -> float:
        bad, good = outside, mean  # rejected shift, accepted shift
        while abs(bad - good) > xtol:
            mid = 0.5 * (bad + good)
            if rejects(mid):
                bad = mid
            else:
                good = mid
        if exact:   # p jumps at 0, at a gap (it becomes 0) and at a mean of two gaps (they tie): an end kept there
            near = 4 * xtol
            pairs = (g[:, None] + g[None, :]) / 2.0
            jumps = np.unique(np.concatenate([[0.0], g, pairs.ravel()]))
            jumps = jumps[(jumps >= min(good, bad) - near) & (jumps <= max(good, bad) + near)]
            for x in (sorted(jumps.tolist(), reverse=outside < good)):
                if not rejects(x) and (x - good) * (outside - good) > 0:
                    good = x
        return good

    low = end(float(np.min(g)) - spread)
    high = end(float(np.max(g)) + spread)
    if not exact:
        # whether the interval holds 0 is the headline test's decision (exact, or certified bounds), never
        # a seed's: the Monte Carlo end nearest 0 is moved to 0, or just inside it, to agree with it
        p0 = sign_flip_test(g, alpha=alpha, n_resamples=n_resamples, seed=seed).pvalue
        if p0 > alpha and not low <= 0.0 <= high:
            low, high = min(low, 0.0), max(high, 0.0)
            text += f"; the end nearest 0 moved to 0, which the test at 0 keeps (p = {p0:.4g})"
        elif p0 <= alpha and low <= 0.0 <= high:
            low, high = (np.nextafter(0.0, 1.0), high) if mean > 0 else (low, np.nextafter(0.0, -1.0))
            text += f"; the end nearest 0 moved just past 0, which the test at 0 rejects (p = {p0:.4g})"
    return Interval(float(low), float(high), confidence, text, INTERVAL_ASSUMPTIONS["sign-flip"])


def _shift_sums(g: np.ndarray, n_resamples: int, seed):
    """The two-sided Monte Carlo sign-flip p of ``g - d`` as a function of the shift ``d``, with one set
    of random sign patterns for every shift: a pattern's sum of ``g - d`` is ``S·g - d·S·1``, so both
    are taken once (``n_resamples`` × n signs, drawn in blocks) and each shift costs ``n_resamples``."""
    rng = np.random.default_rng(seed)
    g = np.sort(g)   # the signs drawn over the gaps in an order of their values, not the log's
    n = g.size
    sg = np.empty(int(n_resamples))
    s1 = np.empty(int(n_resamples))
    block = max(1, 4_000_000 // n)
    for start in range(0, int(n_resamples), block):
        signs = rng.choice(np.array([-1.0, 1.0]), size=(min(block, int(n_resamples) - start), n))
        sg[start:start + len(signs)] = signs @ g
        s1[start:start + len(signs)] = signs.sum(axis=1)
    total = math.fsum(g)
    gmax = float(np.max(np.abs(g))) or 1.0

    def pvalue(d: float) -> float:
        obs = abs(total - n * d)
        tol = 1e-9 * max(obs, n * (gmax + abs(d)) * _ULP)
        hits = int(np.count_nonzero(np.abs(sg - d * s1) >= obs - tol))
        return (hits + 1) / (int(n_resamples) + 1)

    return pvalue


def _bootstrap_interval(g: np.ndarray, mean: float, confidence: float, n_resamples: int, seed,
                        kind: str = "BCa") -> Interval:
    """BCa (or percentile) bootstrap interval of the mean of the item gaps (:func:`bootstrap_interval`,
    the computation of ``scipy.stats.bootstrap``)."""
    n = int(g.size)
    if n < 3:
        raise OptionError("a bootstrap interval needs at least 3 gaps; add items or use the t interval")
    text = f"{kind} bootstrap of the mean of {n} item gaps ({n_resamples:,} resamples, seed {seed})"
    if float(np.ptp(g)) == 0.0:   # every gap equal: every resample has the same mean
        return Interval(mean, mean, confidence, text, INTERVAL_ASSUMPTIONS["bootstrap" if kind == "BCa" else "percentile"])
    low, high = bootstrap_interval((g,), np.mean, confidence=confidence, n_resamples=int(n_resamples),
                                   rng=np.random.default_rng(seed), method=kind)
    if not (math.isfinite(low) and math.isfinite(high)):
        low, high = bootstrap_interval((g,), np.mean, confidence=confidence, n_resamples=int(n_resamples),
                                       rng=np.random.default_rng(seed), method="percentile")
        text = text.replace("BCa", "percentile") + " (BCa undefined for these gaps)"
    return Interval(low, high, confidence, text, INTERVAL_ASSUMPTIONS["bootstrap" if kind == "BCa" else "percentile"])


def mean_interval(values, *, confidence: float = 0.95, center: float | None = None,
                  of: str = "item means") -> Interval:
    """The Student t interval of the mean of ``values`` (one per item): mean ± t(n − 1) · sd / sqrt(n).

    The interval of one value's mean over items (``of="item means"``) or of the average gap of two values
    (``of="item gaps"``); ``center``, when given, is that mean computed exactly elsewhere (the half-width is
    the same). Fewer than two values leave the interval open on both sides, its method saying why.

    Examples
    --------
    >>> iv = mean_interval([1.0, 2.0, 3.0, 4.0])
    >>> round(iv.low, 4), round(iv.high, 4), iv.method
    (0.4457, 4.5543, 'Student t on 4 item means (3 degrees of freedom)')
    >>> mean_interval([2.0]).low
    -inf
    """
    x = np.asarray(values, dtype=float)
    n = int(x.size)
    mean = float(center) if center is not None else (math.fsum(x) / n if n else float("nan"))
    if n < 2:
        return Interval(-math.inf, math.inf, confidence,
                        f"no interval: {n} item{'s' if n != 1 else ''} give{'s' if n == 1 else ''} no spread; add items")
    sd = float(np.std(x, ddof=1))
    half = t_ppf(n - 1, 0.5 + confidence / 2.0) * sd / math.sqrt(n)
    return Interval(mean - half, mean + half, confidence,
                    f"Student t on {n} {of} ({n - 1} degree{'s' if n != 2 else ''} of freedom)",
                    INTERVAL_ASSUMPTIONS["t-means" if of == "item means" else "t"])


def sign_flip_bounds(gaps, *, alternative: str = "two-sided", rtol: float = SPLIT_RTOL, atol: float = 0.0,
                     budget: float = 3e8) -> TestResult:
    """Certified lower and upper bounds on the exact sign-flip p of gaps that share no lattice.

    The sum S = sum s_i g_i over fair signs has the real characteristic function
    prod cos(t g_i), computed exactly (to float error, which is bounded). Selberg's
    trigonometric polynomials of degree K (from Vaaler's approximation of the sawtooth)
    lie above and below the indicator of the tail on a circle wide enough that S wraps
    around it with probability below 1e-20 (Hoeffding); their expectations are finite sums
    over the characteristic function, so they bound p from both sides, with a width that
    falls like 1/K and does not grow with the number of gaps. K grows until the bounds are
    at most ``rtol`` of p apart (or ``atol`` absolutely, when given). In the upper tail the
    same polynomials, mixed into the tail of the law tilted toward the observed sum, keep the
    width relative to p however small p is. Frequencies where a subset of the gaps already
    bounds |prod cos| below 1e-15 are not evaluated; that bound enters the error. The few
    largest gaps, when they dominate the variance, are enumerated apart (2^b terms, each
    bounded as above). When p is below 1e-7 and the bounds are still wide (more than 3 such
    gaps), lattice bounds (the gaps rounded to a fine lattice, whose law is exact, and the
    rounding accounted for by Hoeffding's inequality; within ``budget`` array operations)
    tighten the result relatively. Ties count as in
    :func:`sign_flip_test`. The result's ``pvalue`` is the upper bound and ``pvalue_bounds``
    both; ``method`` says so. With 20 gaps or fewer, enumeration is exact and is used.

    Examples
    --------
    >>> g = [math.sin(i) + 0.3 for i in range(1, 25)]      # 24 gaps on no common step
    >>> r = sign_flip_bounds(g)
    >>> exact = sign_flip_test(g, method="enumerate").pvalue
    >>> r.pvalue_bounds[0] <= exact <= r.pvalue_bounds[1], r.pvalue == r.pvalue_bounds[1]
    (True, True)
    >>> r.pvalue_bounds[1] - r.pvalue_bounds[0] <= 0.01 * r.pvalue
    True
    """
    g = as_gaps(gaps)
    alternative = _check_alternative(alternative)
    n = int(g.size)
    s_obs = math.fsum(g)
    nz = g[g != 0.0]
    k = int(nz.size)
    common = dict(statistic=float(s_obs / n), alternative=alternative, n=n, n_nonzero=k)
    if k == 0:
        return TestResult(pvalue=1.0, method="exact (all gaps are zero: every sign pattern ties)",
                          log10_pvalue=0.0, pvalue_bounds=(1.0, 1.0), **common)
    if k <= ENUM_AUTO_MAX:   # few gaps: enumeration is exact and fast
        r = sign_flip_test(g, alternative=alternative, method="enumerate")
        return replace(r, pvalue_bounds=(r.pvalue, r.pvalue))
    gmax = float(np.max(np.abs(nz)))
    x = _upper_threshold(s_obs, _tie_tol(s_obs, gmax), alternative)
    two = alternative == "two-sided"
    if two and x <= 0:
        return TestResult(pvalue=1.0, log10_pvalue=0.0, pvalue_bounds=(1.0, 1.0), **common,
                          method="exact (the observed mean is zero within the tie tolerance)")
    lower, upper, how = certified_bounds(nz, x, two, rtol, atol, budget)
    return _bounds_result(lower, upper, how, max(rtol * upper, atol), common)


def _bounds_result(lower: float, upper: float, how: str, aimed: float, common: dict) -> TestResult:
    tight = upper - lower <= aimed
    text = (f"certified bounds ({how}): {lower:.6g} <= p <= {upper:.6g}; p reported as the upper bound"
            + ("" if tight else " (wider than aimed for: the limit of the computation was reached)"))
    upper = max(upper, _FLOAT_MIN)
    return TestResult(pvalue=upper, method=text, pvalue_bounds=(lower, upper),
                      log10_pvalue=math.log10(upper), **common)
