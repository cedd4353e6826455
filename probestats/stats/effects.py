"""Effect sizes of a paired comparison, each named, with its formula and a 95% interval.

Numbers in, numbers out: the item means under the two values (one pair per item) give

* the **SD of the item gaps**, ``sqrt(sum (gap_i - mean gap)**2 / (n - 1))``;
* **d_z** (the paired standardized mean), ``mean gap / SD of the item gaps``. Its interval is
  exact under normal item gaps: ``t = d_z * sqrt(n)`` follows a noncentral t with ``n - 1``
  degrees of freedom and noncentrality ``delta * sqrt(n)``, so the ends are the noncentralities
  at which the observed t sits at the upper and lower ``(1 - confidence) / 2`` tails
  (:func:`~probestats.stats.distributions.nct_cdf`, scipy's ``nctdtr`` to 1e-14; roots by bisection),
  divided by ``sqrt(n)``;
* **d_av** (the average-SD standardizer), ``(mean A - mean B) / sqrt((sd_A**2 + sd_B**2) / 2)``,
  with ``sd_A`` and ``sd_B`` the standard deviations across items of the item means. It has no
  exact interval: up to :data:`BCA_MAX_ITEMS` items it is the BCa bootstrap over items (items
  resampled with both of their means, as ``scipy.stats.bootstrap(paired=True)``, with a stated seed
  and number of resamples); above, the normal approximation ``d_av ± z se`` with the delta-method
  variance of bivariate normal item means,
  ``se² = s_D² / (n s²) + d_av² (s_A⁴ + s_B⁴ + 2 s_AB²) / (8 (n − 1) s⁴)`` (``s²`` the average of the
  two variances, ``s_AB`` their covariance), whose error shrinks as 1/n; each stated as such;
* **Hedges' small-sample correction**, on request: ``g = J * d`` with
  ``J = Gamma(df / 2) / (sqrt(df / 2) * Gamma((df - 1) / 2))``, applied to the estimate and to
  both ends of its interval. For d_z, ``df = n - 1``, and the correction is exact: under normal
  item gaps the plain d_z has the expectation ``delta_z / J(n - 1)`` (:func:`expected_dz`), so
  ``g_z`` is unbiased. For d_av the standardizer's square, ``(sd_A² + sd_B²) / 2``, is a sum of
  two scaled chi-squares; ``df`` is its Satterthwaite degrees of freedom
  ``(n − 1)(s_A² + s_B²)² / (s_A⁴ + s_B⁴ + 2 s_AB²)`` (:func:`dav_df`), which lies between ``n − 1``
  (the two values' item means perfectly correlated) and ``2(n − 1)`` (uncorrelated with equal
  spreads), exact at both ends; in between, and because the df is estimated, ``g_av`` is an
  approximation: generated logs of 20 items (``benchmarks/effect_sizes.py``) leave it about 1 %
  below the truth, where ``J(n − 1)`` would leave it about 2 % below. :func:`expected_dav` gives the
  plain d_av's exact expectation under bivariate normal item means (one numerical integral).

d_z and d_av are different numbers from the same data (d_z divides by the spread of the
gaps, which pairing shrinks; d_av by the spread of the item means), so every figure carries
its name and formula.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from probestats.errors import OptionError
from probestats.result import jsonable
from probestats.stats.distributions import NCT_OWEN_MAX_DF, norm_ppf
from probestats.stats.bootstrap_many import d_av as _d_av
from probestats.stats.bootstrap_many import dav_bca_many
from probestats.stats.nct_many import nct_below, noncentrality_intervals
from probestats.stats.resample import bootstrap_interval
from probestats.vocabulary import N_RESAMPLES, check_vocabulary
from probestats.stats.exact import mean_of_combination

__all__ = ["EffectSize", "Effects", "effect_sizes", "effect_sizes_many", "dz_interval", "hedges_j", "dav_df", "expected_dz",
           "expected_dav", "FORMULAS", "BCA_MAX_ITEMS", "EFFECT_NAMES"]

#: Above this many items the d_av interval is the delta-method normal approximation, not the bootstrap
#: (the bootstrap's cost grows with items × resamples, and the approximation's error shrinks as 1/items).
BCA_MAX_ITEMS = 100
#: The effect sizes a user may choose for a column or a heatmap.
EFFECT_NAMES = ("d_z", "d_av")

#: How the noncentral t is computed up to :data:`~probestats.stats.distributions.NCT_OWEN_MAX_DF` degrees of freedom.
NCT_OWEN = "Owen's finite form"

FORMULAS = {
    "sd_gaps": "SD of the item gaps = sqrt(sum of (gap_i − mean gap)² / (n − 1))",
    "d_z": "d_z = mean gap / SD of the item gaps",
    "d_av": "d_av = (mean A − mean B) / sqrt((sd_A² + sd_B²) / 2), sd_A and sd_B the SDs across items "
            "of the item means",
    "hedges": "Hedges' correction: g = J × d, J = Γ(df/2) / (sqrt(df/2) × Γ((df − 1)/2)), df = n − 1",
    "hedges_av": "Hedges' correction: g = J × d, J = Γ(df/2) / (sqrt(df/2) × Γ((df − 1)/2)), "
                 "df = (n − 1)(sd_A² + sd_B²)² / (sd_A⁴ + sd_B⁴ + 2 cov_AB²) (the Satterthwaite df of the average "
                 "variance, between n − 1 and 2(n − 1); an approximation, a bias near 1 % at 20 items)",
}


@dataclass(frozen=True)
class EffectSize:
    """One standardized effect with its interval.

    Attributes
    ----------
    name : str
        ``"d_z"`` or ``"d_av"``; ``"g_z"`` / ``"g_av"`` with Hedges' correction.
    value : float or None
        The estimate (None when the standardizer is zero or undefined).
    low, high : float or None
        The interval's ends (None when there is none).
    confidence : float
    formula : str
        The formula in words, Hedges' correction included when applied.
    interval_method : str
        How the interval was found, with its assumption.
    """

    name: str
    value: float | None
    low: float | None
    high: float | None
    confidence: float
    formula: str
    interval_method: str

    def to_dict(self) -> dict:
        """JSON-safe fields.

        >>> EffectSize("d_z", 0.5, 0.1, 0.9, 0.95, "d_z = mean gap / SD", "t").to_dict()["value"]
        0.5
        """
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class Effects:
    """The effect sizes of one paired comparison.

    Attributes
    ----------
    n : int
        Number of items.
    mean_gap : float
        The average item gap (mean A − mean B over items).
    sd_gaps : float or None
        SD of the item gaps (n − 1 in the denominator); None below 2 items.
    sd_a, sd_b : float or None
        SDs across items of the item means under each value.
    d_z, d_av : EffectSize
    hedges : bool
        Whether Hedges' correction was applied to both.
    """

    n: int
    mean_gap: float
    sd_gaps: float | None
    sd_a: float | None
    sd_b: float | None
    d_z: EffectSize
    d_av: EffectSize
    hedges: bool = False

    def get(self, name: str) -> EffectSize:
        """The effect named ``"d_z"`` or ``"d_av"`` (whatever the correction)."""
        return {"d_z": self.d_z, "d_av": self.d_av}[name]

    def to_dict(self) -> dict:
        return {"n": self.n, "mean_gap": jsonable(self.mean_gap), "sd_gaps": jsonable(self.sd_gaps),
                "sd_gaps_formula": FORMULAS["sd_gaps"], "sd_a": jsonable(self.sd_a), "sd_b": jsonable(self.sd_b),
                "hedges": self.hedges, "d_z": self.d_z.to_dict(), "d_av": self.d_av.to_dict()}


def hedges_j(df: float) -> float:
    """Hedges' exact small-sample factor J(df) = Γ(df/2) / (sqrt(df/2) Γ((df − 1)/2)).

    >>> round(hedges_j(9), 6)   # Γ(4.5) / (sqrt(4.5) Γ(4)) = 11.631728 / (2.121320 × 6)
    0.913875
    """
    if df <= 1:
        return float("nan")
    return math.exp(math.lgamma(df / 2) - math.lgamma((df - 1) / 2)) / math.sqrt(df / 2)


def dav_df(mean_a, mean_b) -> float:
    """The Satterthwaite degrees of freedom of d_av's average variance, for its Hedges correction.

    ``(n − 1)(s_A² + s_B²)² / (s_A⁴ + s_B⁴ + 2 s_AB²)``: ``(n − 1)`` times the squared trace of the
    item means' covariance matrix over the trace of its square, between ``n − 1`` and ``2(n − 1)``.

    >>> round(dav_df([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 4.0]), 12)     # perfectly correlated, equal spreads: n − 1
    3.0
    >>> dav_df([1.0, -1.0, 1.0, -1.0], [1.0, 1.0, -1.0, -1.0])   # uncorrelated, equal spreads: 2(n − 1)
    6.0
    """
    a, b = np.asarray(mean_a, float), np.asarray(mean_b, float)
    va, vb = float(np.var(a, ddof=1)), float(np.var(b, ddof=1))
    cab = float(np.cov(a, b, ddof=1)[0, 1])
    return (a.size - 1) * (va + vb) ** 2 / (va * va + vb * vb + 2 * cab * cab)


def expected_dz(delta_z: float, n: int) -> float:
    """The exact expectation of the plain d_z of ``n`` normal item gaps whose true d_z is ``delta_z``.

    ``sqrt(n) d_z`` is noncentral t with ``n − 1`` df and noncentrality ``sqrt(n) delta_z``, whose
    mean is the noncentrality over ``J(n − 1)``: so ``E[d_z] = delta_z / J(n − 1)``.

    >>> round(expected_dz(0.5, 10), 6)      # 0.5 / J(9) = 0.5 / 0.913875
    0.547121
    """
    return delta_z / hedges_j(n - 1)


def expected_dav(delta: float, var_a: float, var_b: float, cov_ab: float, n: int) -> float:
    """The exact expectation of the plain d_av of ``n`` bivariate normal item means.

    The mean gap is independent of the sample covariance matrix, so ``E[d_av] = delta E[1 / s]``
    with ``s² = (s_A² + s_B²) / 2``, and ``(n − 1) × 2 s²`` is ``l1 U + l2 V``, ``l1, l2`` the
    eigenvalues of the covariance matrix and ``U, V`` independent chi-squares with ``n − 1`` df.
    From ``x^(-1/2) = (1/sqrt(pi)) ∫ t^(-1/2) e^(-t x) dt`` and the chi-squares' Laplace transforms,
    ``E[1 / s] = (1/sqrt(pi)) ∫_0^∞ t^(-1/2) prod_k (1 + t l_k / (n − 1))^(-(n − 1)/2) dt``,
    integrated numerically (``scipy.integrate.quad``, relative error near 1e-12).

    >>> round(expected_dav(0.5, 1.0, 1.0, 0.0, 10) * hedges_j(18), 9)   # equal eigenvalues: 0.5 / J(2(n − 1))
    0.5
    """
    from scipy.integrate import quad

    m = n - 1
    lam = np.linalg.eigvalsh(np.array([[var_a, cov_ab], [cov_ab, var_b]], dtype=float))
    lam = np.clip(lam, 0.0, None)

    def f(t: float) -> float:
        return t ** -0.5 * math.exp(-0.5 * m * float(np.sum(np.log1p(t * lam / m))))

    head, _ = quad(f, 0.0, 1.0, limit=200, epsabs=1e-13)
    tail, _ = quad(f, 1.0, math.inf, limit=200, epsabs=1e-13)
    return delta * (head + tail) / math.sqrt(math.pi)


def noncentrality_interval(t: float, df: float, confidence: float = 0.95) -> tuple[float, float]:
    """The noncentralities of a noncentral t on ``df`` degrees of freedom under which the observed ``t`` sits
    at the upper and lower ``(1 - confidence) / 2`` tails: the exact interval of the noncentrality, by
    bisection (:func:`_falling_root`) to within 1e-12. :func:`dz_interval` divides it by ``sqrt(n)``, a
    two-sample Cohen's d (:mod:`probestats.stats.runs`) by ``sqrt(n_a n_b / (n_a + n_b))``.

    >>> lo, hi = noncentrality_interval(0.0, 9)
    >>> round(hi / math.sqrt(10), 6), round(lo, 9) == -round(hi, 9)
    (0.619795, True)
    """
    tail = (1.0 - confidence) / 2.0

    def root(target: float) -> float:
        # P(T <= t) falls from 1 to 0 as nc grows (nct_below: far in its tails, the other tail stands in)
        f = lambda nc: nct_below(df, nc, t) - target  # noqa: E731
        # bracket from the normal approximation of the noncentral t (spread about sqrt(1 + t²/(2 df))),
        # widened until the root lies inside
        width = 4.0 * math.sqrt(1.0 + t * t / (2.0 * df))
        lo, hi = t - width, t + width
        while f(lo) < 0:
            lo -= width
        while f(hi) > 0:
            hi += width
        return _falling_root(f, lo, hi)

    return root(1.0 - tail), root(tail)


def dz_interval(dz: float, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact interval for d_z under normal item gaps, by inverting the noncentral t.

    ``t = dz * sqrt(n)`` has a noncentral t distribution with ``n - 1`` degrees of freedom and
    noncentrality ``delta * sqrt(n)``; the lower end is the ``delta`` at which ``P(T >= t)``
    is ``(1 - confidence) / 2``, the upper end the one at which ``P(T <= t)`` is. Both are found
    by bisection on the noncentrality (:func:`_falling_root`) to within 1e-12 of it, or one float
    step where the floats there are further apart; the ends of d_z are those divided by ``sqrt(n)``.

    >>> lo, hi = dz_interval(0.0, 10)
    >>> round(lo, 6) == -round(hi, 6)
    True
    >>> round(hi, 6)    # P(T_9 <= 0) = 0.025 at noncentrality 0.619795 * sqrt(10)
    0.619795
    """
    lo, hi = noncentrality_interval(dz * math.sqrt(n), n - 1, confidence)
    return lo / math.sqrt(n), hi / math.sqrt(n)


def _falling_root(f, lo: float, hi: float, xtol: float = 1e-12) -> float:
    """The root of a function that falls from ``f(lo) >= 0`` to ``f(hi) <= 0``, by bisection until
    the bracket is narrower than ``xtol``, or no float lies between its ends (above about 4,000 the
    floats are further apart than 1e-12); the midpoint is returned.

    Bisection needs only the sign of ``f``, so it cannot leave the bracket or stall, whatever the
    function's shape; 50-odd halvings reach the tolerance from a bracket of a few units.

    >>> round(_falling_root(lambda x: 2.0 - x * x, 0.0, 2.0), 12)
    1.414213562373
    """
    while hi - lo > xtol:
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:   # no float lies between the ends
            break
        if f(mid) > 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _dav_interval(a: np.ndarray, b: np.ndarray, confidence: float, n_resamples: int, seed, ends=None) -> tuple:
    """d_av's interval ``(low, high, how)``; ``ends``: the bootstrap's ends drawn already (:func:`dav_bca_many`)."""
    n = a.size
    if n > BCA_MAX_ITEMS:
        return _dav_delta(a, b, confidence)
    text = (f"BCa bootstrap over the {n} items (both means of an item resampled together; "
            f"{n_resamples:,} resamples, seed {seed}); an approximation: d_av has no exact interval")
    low, high = ends if ends is not None else bootstrap_interval(
        (a, b), _d_av, confidence=confidence, n_resamples=int(n_resamples), rng=np.random.default_rng(seed),
        method="BCa")
    if not (math.isfinite(low) and math.isfinite(high)):
        return None, None, text + "; the bootstrap gave no finite ends (too few distinct items)"
    return low, high, text


def _dav_delta(a: np.ndarray, b: np.ndarray, confidence: float) -> tuple:
    """d_av ± z se, the delta-method variance of bivariate normal item means (see the module's description)."""
    n = a.size
    va, vb = float(np.var(a, ddof=1)), float(np.var(b, ddof=1))
    cab = float(np.cov(a, b, ddof=1)[0, 1])
    vd = float(np.var(a - b, ddof=1))
    s2 = (va + vb) / 2.0
    d = (float(np.mean(a)) - float(np.mean(b))) / math.sqrt(s2)
    se = math.sqrt(vd / (n * s2) + d * d * (va * va + vb * vb + 2 * cab * cab) / (8.0 * (n - 1) * s2 * s2))
    z = norm_ppf(0.5 + confidence / 2.0)
    text = (f"normal approximation over {n} items, d_av ± {z:.4g} × se with the delta-method "
            "se² = s_D²/(n s²) + d_av² (s_A⁴ + s_B⁴ + 2 s_AB²)/(8 (n − 1) s⁴) (bivariate normal item means; "
            f"error shrinking as 1/n; the bootstrap is used up to {BCA_MAX_ITEMS} items)")
    return d - z * se, d + z * se, text


def effect_sizes(mean_a, mean_b, *, confidence: float = 0.95, hedges: bool = False, n_resamples: int = N_RESAMPLES,
                 seed: int | None = 0, intervals: bool = True, mean_gap: float | None = None) -> Effects:
    """d_z and d_av of paired item means, with their intervals (see the module's description).

    Parameters
    ----------
    mean_a, mean_b : sequence of float
        The item means under each value, one pair per item.
    confidence : float
    hedges : bool
        Apply Hedges' small-sample correction to both (names become g_z and g_av).
    n_resamples, seed : int
        The bootstrap of the d_av interval.
    intervals : bool
        False: the estimates only (a simulation that needs no intervals).
    mean_gap : float, optional
        The mean gap when the caller computed it exactly from cells the two columns combine (a factor
        design's effects); by default the difference of the exact sums of ``mean_a`` and ``mean_b``.

    Examples
    --------
    >>> e = effect_sizes([5.0, 6.0, 7.0, 9.0], [4.0, 4.0, 6.0, 6.0])
    >>> round(e.sd_gaps, 6), round(e.d_z.value, 6)   # gaps 1, 2, 1, 3: mean 1.75, SD sqrt(2.75 / 3)
    (0.957427, 1.827815)
    >>> round(e.d_av.value, 6)        # 1.75 / sqrt((2.916667 + 1.333333) / 2)
    1.20049
    """
    return _effect_sizes(mean_a, mean_b, confidence=confidence, hedges=hedges, n_resamples=n_resamples, seed=seed,
                         intervals=intervals, mean_gap=mean_gap)


def effect_sizes_many(pairs, *, confidence: float = 0.95, hedges: bool = False, n_resamples: int = N_RESAMPLES,
                      seed: int | None = 0) -> list[Effects]:
    """:func:`effect_sizes` of each ``(mean_a, mean_b)`` pair (the groups of one analysis), the same numbers:
    with a ``seed``, the d_av bootstraps of all pairs are drawn at once (:func:`dav_bca_many`, one matrix of
    draws for the pairs of each number of items, as each pair alone draws them).

    >>> pairs = [([5.0, 6.0, 7.0, 9.0], [4.0, 4.0, 6.0, 6.0]), ([1.0, 2.0, 4.0], [1.5, 1.0, 2.0])]
    >>> effect_sizes_many(pairs, n_resamples=999) == [effect_sizes(a, b, n_resamples=999) for a, b in pairs]
    True
    """
    check_vocabulary(n_resamples=n_resamples, seed=seed)
    arrays = [(np.asarray(a, dtype=float), np.asarray(b, dtype=float)) for a, b in pairs]
    drawn = [k for k, (a, b) in enumerate(arrays) if a.shape == b.shape and a.ndim == 1 and 3 <= a.size <= BCA_MAX_ITEMS
             and (np.std(a, ddof=1) > 0 or np.std(b, ddof=1) > 0)] if seed is not None else []
    if not 0 < confidence < 1:
        drawn = []   # refused below, as effect_sizes refuses it
    dav = dict(zip(drawn, dav_bca_many([arrays[k] for k in drawn], confidence=confidence,
                                       n_resamples=int(n_resamples), seed=seed)))
    gaps = [_mean_gap(a, b) for a, b in arrays]
    dz = _dz_intervals(arrays, gaps, confidence) if 0 < confidence < 1 else {}
    return [_effect_sizes(a, b, confidence=confidence, hedges=hedges, n_resamples=n_resamples, seed=seed,
                          intervals=True, mean_gap=gaps[k], ends=_Ends(dav.get(k), dz.get(k)))
            for k, (a, b) in enumerate(arrays)]


def _mean_gap(a: np.ndarray, b: np.ndarray) -> float | None:
    """The mean gap :func:`_effect_sizes` computes (None where it refuses the pair)."""
    if a.shape != b.shape or a.ndim != 1:
        return None
    return mean_of_combination([(1, a.tolist()), (-1, b.tolist())]) if a.size else float("nan")


def _dz_intervals(arrays: list, gaps: list, confidence: float) -> dict:
    """d_z's interval of each pair that has one, as :func:`dz_interval` gives it, the pairs' noncentral t
    inverted side by side (:func:`~probestats.stats.nct_many.noncentrality_intervals`, the same floats)."""
    keys, t, df = [], [], []
    for k, ((a, b), mean_gap) in enumerate(zip(arrays, gaps)):
        if mean_gap is None or a.size < 2:
            continue
        sd_gaps = float(np.std(a - b, ddof=1))
        if sd_gaps > 0 and math.isfinite(mean_gap / sd_gaps):
            keys.append(k)
            t.append(mean_gap / sd_gaps * math.sqrt(a.size))
            df.append(a.size - 1)
    lo, hi = noncentrality_intervals(np.array(t, dtype=float), np.array(df, dtype=np.int64), confidence)
    return {k: (float(x) / math.sqrt(d + 1), float(y) / math.sqrt(d + 1)) for k, x, y, d in zip(keys, lo, hi, df)}


@dataclass(frozen=True)
class _Ends:
    """Intervals computed for many pairs at once: d_av's bootstrap ends (:func:`dav_bca_many`), d_z's."""
    dav: tuple | None = None
    dz: tuple | None = None


def _effect_sizes(mean_a, mean_b, *, confidence: float, hedges: bool, n_resamples: int, seed: int | None,
                  intervals: bool, mean_gap: float | None, ends: _Ends | None = None) -> Effects:
    """:func:`effect_sizes`; ``ends``, intervals computed already."""
    check_vocabulary(n_resamples=n_resamples, seed=seed)
    a = np.asarray(mean_a, dtype=float)
    b = np.asarray(mean_b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise OptionError("effect sizes need one mean under each value per item")
    if not 0 < confidence < 1:
        raise OptionError(f"confidence must be between 0 and 1, not {confidence!r}")
    n = int(a.size)
    gaps = a - b
    # the difference of the exact sums of the item means (no float residue when the means are equal)
    if mean_gap is None:
        mean_gap = mean_of_combination([(1, a.tolist()), (-1, b.tolist())]) if n else float("nan")
    df = n - 1
    j = hedges_j(df) if hedges else 1.0
    formula_tail = f"; {FORMULAS['hedges']}" if hedges else ""
    av_tail = f"; {FORMULAS['hedges_av']}" if hedges else ""
    z_name, av_name = ("g_z", "g_av") if hedges else ("d_z", "d_av")
    if n < 2:
        none = "no interval: one item has no spread; add items"
        return Effects(n, mean_gap, None, None, None,
                       EffectSize(z_name, None, None, None, confidence, FORMULAS["d_z"] + formula_tail, none),
                       EffectSize(av_name, None, None, None, confidence, FORMULAS["d_av"] + av_tail, none),
                       hedges)
    sd_gaps = float(np.std(gaps, ddof=1))
    sd_a, sd_b = float(np.std(a, ddof=1)), float(np.std(b, ddof=1))
    if sd_gaps > 0:
        dz = mean_gap / sd_gaps
        lo, hi = (float("nan"), float("nan")) if not intervals else (
            ends.dz if ends is not None and ends.dz is not None else dz_interval(dz, n, confidence))
        z = EffectSize(z_name, j * dz, j * lo, j * hi, confidence, FORMULAS["d_z"] + formula_tail,
                       f"exact noncentral t with {df} degree{'s' if df != 1 else ''} of freedom "
                       f"({NCT_OWEN if df <= NCT_OWEN_MAX_DF else 'scipy.special.nctdtr'}, "
                       "ends by bisection to 10⁻¹² in the noncentrality, or one float step where wider); assumes roughly "
                       "normal item gaps")
    else:
        z = EffectSize(z_name, None, None, None, confidence, FORMULAS["d_z"] + formula_tail,
                       "undefined: every item gap is the same, so their SD is 0")
    s_av = math.sqrt((sd_a * sd_a + sd_b * sd_b) / 2.0)
    if s_av > 0:
        dav = mean_gap / s_av
        if not intervals:
            lo, hi, how = None, None, "not computed"
        elif n >= 3:
            lo, hi, how = _dav_interval(a, b, confidence, n_resamples, seed, None if ends is None else ends.dav)
        else:
            lo, hi, how = None, None, "no interval: a bootstrap of two items says nothing; add items"
        j_av = hedges_j(dav_df(a, b)) if hedges else 1.0
        av = EffectSize(av_name, j_av * dav, None if lo is None else j_av * lo, None if hi is None else j_av * hi,
                        confidence, FORMULAS["d_av"] + av_tail + (f" (here df = {dav_df(a, b):.4g})" if hedges else ""),
                        how)
    else:
        av = EffectSize(av_name, None, None, None, confidence, FORMULAS["d_av"] + av_tail,
                        "undefined: the item means do not vary across items under either value")
    return Effects(n, mean_gap, sd_gaps, sd_a, sd_b, z, av, hedges)
