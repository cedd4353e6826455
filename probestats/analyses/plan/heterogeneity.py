"""Heterogeneity: how much true gaps differ between items, estimated from a pilot of the real comparison."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from probestats.analyses.plan.noise import VALUE_LIMIT, as_noise, differ_weight, frame_and_metric
from probestats.checks.schema import default_pair
from probestats.errors import ColumnError, OptionError, count_of, either

__all__ = ["Heterogeneity", "heterogeneity_from_pilot", "TAU_METHOD", "TAU_INTERVAL_METHOD", "TAU_LEVEL",
           "POWER_RANGE_METHOD", "tau_interval", "sigma_interval", "range_points", "pilot_items_needed"]

TAU_METHOD = ("method of moments: tau^2 = max(0, var(item gaps) - mean(sigma^2 (r/k_a + 1/k_b))) over the pilot's "
              "items (r: value a's within-cell variance over value b's in the pilot), times the weight of the evidence "
              "that the items' gaps differ (a posterior probability, BIC, as for the noise log's items), so a small "
              "pilot's estimate is shrunk toward 0, the noise alone")
#: Confidence of the interval on tau a pilot gives (:func:`tau_interval`).
TAU_LEVEL = 0.90
TAU_INTERVAL_METHOD = (f"profile-likelihood {TAU_LEVEL:.0%} interval: the tau^2 >= 0 whose restricted (REML) "
                       "log-likelihood of the item gaps, normal with variances tau^2 + sigma^2 (r/k_a + 1/k_b), lies "
                       f"within chi2.ppf({TAU_LEVEL:g}, 1) / 2 of its maximum; sigma and r are taken as known")
POWER_RANGE_METHOD = (
    f"what this pilot and this noise log can tell: the lowest and highest power at the gap over sigma, the noise log's "
    f"run-to-run SD, at the ends of its {TAU_LEVEL:.0%} interval (chi-square on the log's degrees of freedom, fewer "
    "where its runs have heavier tails than a normal's: 2 / (2 / df + (kurtosis - 3) / runs)) and at its estimate, "
    "and for each such sigma tau at the ends of the pilot's profile-likelihood interval given that sigma; a noise "
    "SD c times the estimate is simulated as the gap and tau divided by c (the sign-flip test is unchanged when "
    "every gap is scaled), on the first half of the simulated probes of the power, at tau's ends at the log's sigma and at the "
    "two points where an item gap's variance, c^2 sigma^2 (1/k_a + 1/k_b) + tau^2, is largest and smallest")
#: Ratio of the upper to the lower end of the interval on the variance of item gaps that a pilot able to
#: estimate tau keeps within (:func:`pilot_items_needed`).
TAU_WIDTH = 3.0


@dataclass(frozen=True)
class Heterogeneity:
    """Spread of true gaps between items, estimated from a pilot of the real comparison.

    Attributes
    ----------
    tau : float
        Standard deviation of true item gaps the plan assumes: ``tau_moments`` shrunk toward 0 (the noise alone) by
        ``sqrt(weight)`` (0 when the gaps spread no more than noise).
    var_gaps : float
        Sample variance (ddof=1) of the pilot's item gaps.
    noise_var : float
        Mean over items of ``sigma^2 (r/k_a + 1/k_b)``: what run noise alone contributes (``r``: ``spread_ratio``).
    n_items : int
    average_gap : float
        The pilot's average gap (``a`` minus ``b``).
    a, b : str
        The compared values.
    method : str
    mean_a, mean_b : float or None
        The pilot's mean of each value over the items run under both (their runs pooled).
    spread_a, spread_b : float or None
        Each value's pooled within-cell variance of the runs (None: no cell of that value has two runs).
    spread_a_se, spread_b_se : float or None
        Standard errors of those variances, from the spread of the cells' variances.
    tau_low, tau_high : float or None
        The profile-likelihood interval on tau at :data:`TAU_LEVEL` (:func:`tau_interval`): what the pilot can tell.
    items_needed : int or None
        Pilot items that pin the variance of item gaps within a factor of :data:`TAU_WIDTH`
        (:func:`pilot_items_needed`); a pilot of fewer is ``too_small`` to estimate tau.
    tau_moments : float or None
        The method-of-moments tau, ``sqrt(max(0, var_gaps - noise_var))``, before it is weighed.
    weight : float or None
        The weight of the evidence that the items' gaps differ by more than noise
        (:func:`~probestats.analyses.plan.noise.differ_weight` on the gaps' variance against ``noise_var``).
    spread_ratio : float
        Value a's within-cell variance over value b's in the pilot (:func:`spread_ratio`).
    sigma_low, sigma_high : float or None
        The interval on the noise log's run-to-run SD at :data:`TAU_LEVEL` (:func:`sigma_interval`); None for a
        stated sigma.
    sigma_df : float or None
        The degrees of freedom that interval is read on (the log's, fewer for heavy-tailed runs).
    range_points : tuple of (float, float)
        The (noise SD factor, tau) pairs at which a plan evaluates each design's power range
        (:func:`range_points`, :data:`POWER_RANGE_METHOD`).
    """

    tau: float
    var_gaps: float
    noise_var: float
    n_items: int
    average_gap: float
    a: str
    b: str
    method: str = TAU_METHOD
    mean_a: float | None = None
    mean_b: float | None = None
    spread_a: float | None = None
    spread_b: float | None = None
    spread_a_se: float | None = None
    spread_b_se: float | None = None
    #: the ends of the profile-likelihood interval on tau (:func:`tau_interval`), at :data:`TAU_LEVEL`
    tau_low: float | None = None
    tau_high: float | None = None
    #: items a pilot of the same runs needs for that interval to pin the variance of item gaps within a factor of
    #: :data:`TAU_WIDTH` (:func:`pilot_items_needed`)
    items_needed: int | None = None
    #: the method-of-moments tau before it is weighed, the weight (the evidence that the items' gaps differ) and the
    #: ratio of value a's spread to value b's that the gaps' noise was scaled by
    tau_moments: float | None = None
    weight: float | None = None
    spread_ratio: float = 1.0
    #: the interval on the noise log's run-to-run SD and its degrees of freedom (:func:`sigma_interval`)
    sigma_low: float | None = None
    sigma_high: float | None = None
    sigma_df: float | None = None
    #: the (noise SD factor, tau) pairs a design's power range is evaluated at (:func:`range_points`)
    range_points: tuple = ()

    @property
    def too_small(self) -> bool:
        """Whether the pilot is too small to estimate tau: fewer items than :func:`pilot_items_needed` asks."""
        return self.items_needed is not None and self.n_items < self.items_needed

    def to_dict(self) -> dict:
        opt_float = lambda x: None if x is None else float(x)  # noqa: E731
        return {"tau": float(self.tau), "var_gaps": float(self.var_gaps), "noise_var": float(self.noise_var),
                "n_items": int(self.n_items), "average_gap": float(self.average_gap),
                "a": self.a, "b": self.b, "method": self.method,
                "mean_a": opt_float(self.mean_a), "mean_b": opt_float(self.mean_b),
                "spread_a": opt_float(self.spread_a), "spread_b": opt_float(self.spread_b),
                "spread_a_se": opt_float(self.spread_a_se), "spread_b_se": opt_float(self.spread_b_se),
                "tau_low": opt_float(self.tau_low), "tau_high": opt_float(self.tau_high),
                "tau_level": TAU_LEVEL if self.tau_low is not None else None,
                "tau_interval_method": TAU_INTERVAL_METHOD if self.tau_low is not None else None,
                "items_needed": self.items_needed, "too_small": bool(self.too_small),
                "tau_moments": opt_float(self.tau_moments), "weight": opt_float(self.weight),
                "spread_ratio": float(self.spread_ratio), "sigma_low": opt_float(self.sigma_low),
                "sigma_high": opt_float(self.sigma_high), "sigma_df": opt_float(self.sigma_df),
                "power_range_method": POWER_RANGE_METHOD if self.range_points else None}


def heterogeneity_from_pilot(pilot, noise, metric: str | None = None, *, a: str | None = None,
                             b: str | None = None) -> Heterogeneity:
    """Estimate tau, the spread of true item gaps, from a pilot of the real comparison.

    Method of moments: ``tau^2 = max(0, var(item gaps) - mean(sigma^2 (1/k_a + 1/k_b)))``,
    with sigma from the noise model and ``k_a``, ``k_b`` each item's runs in the pilot.
    With few pilot items the estimate is rough; it is an estimate, not a bound.

    Examples
    --------
    >>> from probestats.analyses.plan.noise import NoiseModel
    >>> rows = [{"item": i, "variant": v, "steps": s}
    ...         for i, g in enumerate([0, 2, 0, 2]) for v in ("a", "b")
    ...         for s in ([3 + g, 3 + g] if v == "a" else [3, 3])]
    >>> h = heterogeneity_from_pilot(rows, NoiseModel.stated(0.0), "steps")
    >>> round(h.tau ** 2, 12), h.average_gap   # var of gaps 0, 2, 0, 2 = 4/3; no noise
    (1.333333333333, 1.0)
    """
    noise = as_noise(noise, metric)
    frame, metric, _name, _problems = frame_and_metric(pilot, metric or noise.metric)
    for col in ("item", "variant", metric):
        if col not in frame.columns:
            seen = ", ".join(c for c in frame.columns if not c.startswith("_"))
            raise ColumnError(f"no column '{col}' in the pilot log; headers seen: {seen} "
                              f"(use {either(f'columns={{{col!r}: HEADER}}', f'--column {col}=HEADER')})")
    df = frame.select(pl.col("item").cast(pl.String), pl.col("variant").cast(pl.String).str.strip_chars(),
                      pl.col(metric).cast(pl.Float64, strict=False).fill_nan(None).alias("_y")
                      ).filter(pl.col("_y").is_not_null())
    big = df.filter(~pl.col("_y").abs().le(VALUE_LIMIT)).height
    if big:
        one = big == 1
        write = "it as a finite number" if one else "them as finite numbers"
        raise ColumnError(f"{count_of(big, 'value')} of '{metric}' in the pilot log {'is' if one else 'are'} "
                          f"infinite or too large to use; write {write} of ordinary size (or rescale the metric)")
    values = df["variant"].unique(maintain_order=True).to_list()

    a, b = default_pair(values, a, b)
    for name, v in (("a", a), ("b", b)):
        if v is None or v not in values:
            raise OptionError(f"the pilot log needs two values to compare; value {name}={v!r} is not among "
                              f"{values} (name them with a= and b=)")
    if a == b:
        raise OptionError(f"the pilot compares a value with itself ('{a}'); name two different values with a= and b=")
    cell = (df.filter(pl.col("variant").is_in([a, b]))
            .group_by("item", "variant", maintain_order=True).agg(pl.len().alias("k"), pl.col("_y").mean().alias("m"),
                                                                   pl.col("_y").var(ddof=1).alias("v")))
    wide = (cell.filter(pl.col("variant") == a).select("item", pl.col("m").alias("ma"), pl.col("k").alias("ka"))
            .join(cell.filter(pl.col("variant") == b).select("item", pl.col("m").alias("mb"), pl.col("k").alias("kb")),
                  on="item", how="inner"))
    if wide.height < 2:
        raise OptionError("the pilot log needs at least two items run under both values to estimate heterogeneity")
    gaps = (wide["ma"] - wide["mb"]).to_numpy()
    both = wide["item"]
    spreads = {}
    for value in (a, b):
        part = cell.filter((pl.col("variant") == value) & pl.col("item").is_in(both.implode()))
        spreads[value] = _pooled_spread(part)
    ratio = spread_ratio(spreads[a][1], spreads[b][1])
    v = noise.sigma_run ** 2 * (ratio / wide["ka"].to_numpy() + 1.0 / wide["kb"].to_numpy())
    var_gaps = float(np.var(gaps, ddof=1))
    noise_var = float(v.mean())
    moments = math.sqrt(max(0.0, var_gaps - noise_var))
    n = int(wide.height)
    df_noise = noise.df if noise.df else STATED_DF
    weight = differ_weight(noise_var * df_noise, var_gaps * (n - 1), df_noise, n - 1) if moments > 0 else 0.0
    low, high = tau_interval(gaps, v)
    sd = sigma_interval(noise)
    return Heterogeneity(tau=math.sqrt(weight) * moments, var_gaps=var_gaps, noise_var=noise_var, n_items=n,
                         average_gap=float(gaps.mean()), a=str(a), b=str(b), **_spread_fields(spreads[a], "a"),
                         **_spread_fields(spreads[b], "b"), tau_low=low, tau_high=high,
                         items_needed=pilot_items_needed(), tau_moments=moments, weight=weight, spread_ratio=ratio,
                         sigma_low=None if sd is None else sd[0], sigma_high=None if sd is None else sd[1],
                         sigma_df=None if sd is None else sd[2],
                         range_points=range_points(gaps, v, (low, high), noise.sigma_run, sd))


#: Degrees of freedom a stated sigma is given when the evidence that a pilot's gaps differ is weighed: known.
STATED_DF = 10 ** 6


def spread_ratio(spread_a: float | None, spread_b: float | None) -> float:
    """How much more value a's runs spread than value b's in the pilot (variance ratio; 1 where either value has no
    cell of two runs or b's runs do not vary): the noise of an item gap is ``sigma^2 (ratio / k_a + 1 / k_b)``, so a
    gap that changes the spread of value a's runs (a count's rate) is not read as items whose gaps differ.

    >>> spread_ratio(6.0, 4.0), spread_ratio(None, 4.0), spread_ratio(1.0, 0.0)
    (1.5, 1.0, 1.0)
    """
    if spread_a is None or spread_b is None or not spread_b > 0:
        return 1.0
    return float(spread_a / spread_b)


def restricted_loglik(gaps: np.ndarray, v: np.ndarray, tau2) -> np.ndarray:
    """The restricted (REML) log-likelihood of item gaps ``gaps`` with noise variances ``v`` at between-item
    variances ``tau2`` (an array): ``-1/2 [sum log(tau2 + v) + log sum w + sum w (d - d_w)^2]``, ``w = 1 / (tau2 + v)``,
    up to a constant."""
    t_all = np.atleast_1d(np.asarray(tau2, dtype=float))
    step = max(1, 2_000_000 // max(gaps.size, 1))   # a few million cells at a time, however large the pilot
    out = []
    for start in range(0, t_all.size, step):
        t = t_all[start:start + step, None]
        w = 1.0 / (t + v[None, :])
        sw = w.sum(axis=1)
        centre = (w * gaps[None, :]).sum(axis=1) / sw
        q = (w * (gaps[None, :] - centre[:, None]) ** 2).sum(axis=1)
        out.append(-0.5 * (np.log(t + v[None, :]).sum(axis=1) + np.log(sw) + q))
    return np.concatenate(out)


def tau_interval(gaps, v, level: float = TAU_LEVEL) -> tuple[float, float]:
    """The profile-likelihood interval on tau: the ``tau^2 >= 0`` whose restricted log-likelihood
    (:func:`restricted_loglik`) lies within ``chi2.ppf(level, 1) / 2`` of its maximum, item gaps ``gaps`` taken as
    normal around their mean with variances ``tau^2 + v``. Where the gaps spread less than their noise explains
    the maximum is at 0 and the interval runs from 0 to where the likelihood has fallen far enough: never the
    single point 0 a moment-based interval can give.

    >>> gaps = np.array([0.0, 2.0, 0.0, 2.0, 1.0, 3.0])
    >>> lo, hi = tau_interval(gaps, np.full(6, 0.5))
    >>> grid = np.linspace(0, 20, 200001)    # the same set by brute force on a fine grid
    >>> ll = restricted_loglik(gaps, np.full(6, 0.5), grid)
    >>> inside = grid[ll >= ll.max() - 1.3527717]
    >>> bool(abs(lo - inside.min() ** 0.5) < 1e-3), bool(abs(hi - inside.max() ** 0.5) < 1e-3)
    (True, True)
    """
    from scipy.optimize import brentq

    gaps = np.asarray(gaps, dtype=float)
    v = np.maximum(np.broadcast_to(np.asarray(v, dtype=float), gaps.shape), 0.0)
    spread = float(np.var(gaps, ddof=1)) if gaps.size > 1 else 0.0
    if gaps.size < 2 or not spread > 0:
        return 0.0, 0.0
    floor = 0.0 if np.any(v > 0) else 1e-9 * spread      # no noise at all: the likelihood at tau = 0 is -inf
    top = 100.0 * spread + float(v.max())
    grid = np.concatenate([[floor], floor + top * np.geomspace(1e-8, 1.0, 400)])
    ll = restricted_loglik(gaps, v, grid)
    best = int(np.argmax(ll))
    cut = float(ll[best]) - 0.5 * chi2_ppf(level, 1)
    f = lambda t2: float(restricted_loglik(gaps, v, t2)[0]) - cut  # noqa: E731
    low = 0.0
    if ll[0] < cut:   # the last grid point below the cut before the maximum, and the root after it
        below = int(np.nonzero(ll[:best] < cut)[0][-1])
        low = brentq(f, grid[below], grid[below + 1], xtol=1e-14 * top)
    hi_side = np.nonzero(ll[best:] < cut)[0]
    if hi_side.size == 0:
        high = top
    else:
        j = best + int(hi_side[0])
        high = brentq(f, grid[j - 1], grid[j], xtol=1e-14 * top)
    return math.sqrt(low), math.sqrt(high)


def sigma_interval(noise, level: float = TAU_LEVEL) -> tuple[float, float, float] | None:
    """The interval on a noise log's run-to-run SD at ``level``, and the degrees of freedom it is read on.

    ``sigma^2 df / chi2`` at the chi-square's two tails, on ``df_eff = 2 / (2 / df + (kurtosis - 3) / N)``
    degrees of freedom (never more than the log's ``df``): the variance of a pooled variance is
    ``sigma^4 (2 / df + (kurtosis - 3) / N)`` for ``N`` runs, so runs with heavier tails than a normal's (a skewed
    count) pin sigma less than their number says. The kurtosis is that of the runs around their cells' means.
    None for a stated sigma (no log).

    >>> from probestats.analyses.plan.noise import noise_model
    >>> rows = [{"item": i, "x": float(y)} for i in range(40) for y in np.random.default_rng(i).normal(0, 2, 11)]
    >>> lo, hi, df = sigma_interval(noise_model(rows, metric="x", scale=":"))
    >>> bool(300 < df <= 400), bool(lo < 2.0 < hi)    # normal runs: about the log's own 400 degrees of freedom
    (True, True)
    """
    if noise._raw is None or not noise.df or not noise.sigma_run > 0:
        return None
    sizes = noise._cell_sizes
    keep = np.repeat(sizes >= 2, sizes)
    resid = (noise._raw - np.repeat(noise._means, sizes))[keep]
    m2 = float(np.mean(resid ** 2))
    kurt = float(np.mean(resid ** 4)) / m2 ** 2 if m2 > 0 else 3.0
    df = float(noise.df)
    df_eff = min(df, 2.0 / (2.0 / df + max(kurt - 3.0, 0.0) / resid.size))
    tail = (1.0 - level) / 2
    s = noise.sigma_run
    return s * math.sqrt(df_eff / chi2_isf(tail, df_eff)), s * math.sqrt(df_eff / chi2_ppf(tail, df_eff)), df_eff


def range_points(gaps, v, tau_ends: tuple[float, float], sigma: float, sd) -> tuple[tuple[float, float], ...]:
    """The (noise SD factor ``c``, tau) pairs a design's power range is evaluated at (:data:`POWER_RANGE_METHOD`):
    ``c = 1`` with the pilot's interval on tau, and each end of the interval on sigma with the pilot's interval on
    tau recomputed at that sigma (the pilot's noise variances ``v`` times ``c^2``): a noisier log leaves less of the
    pilot's spread to tau, a quieter one more.

    >>> gaps, v = np.array([0.0, 2.0, 0.0, 2.0, 1.0, 3.0]), np.full(6, 0.5)
    >>> pts = range_points(gaps, v, tau_interval(gaps, v), 1.0, (0.8, 1.25, 50.0))
    >>> [c for c, _ in pts], pts[2][1] > pts[0][1]   # a quieter log leaves more spread to tau
    ([1.0, 1.0, 0.8, 0.8, 1.25, 1.25], True)
    """
    pts = [(1.0, float(tau_ends[0])), (1.0, float(tau_ends[1]))]
    if sd is not None and sigma > 0:
        for end in sd[:2]:
            c = float(end) / sigma
            pts += [(c, float(t)) for t in tau_interval(gaps, np.asarray(v) * c * c)]
    return tuple(pts)


def pilot_items_needed(level: float = TAU_LEVEL, width: float = TAU_WIDTH) -> int:
    """Items a pilot needs to pin the variance of its item gaps within a factor of ``width`` at ``level``: the fewest
    ``n`` with ``chi2.isf(tail, n - 1) / chi2.ppf(tail, n - 1) <= width`` (for normal gaps the interval on the
    variance of the gaps, ``tau^2`` plus noise, is ``(n - 1) var / chi2`` at those quantiles, so their ratio is the
    interval's).

    >>> pilot_items_needed()
    20
    """
    tail = (1.0 - level) / 2
    n = 3
    while chi2_isf(tail, n - 1) / chi2_ppf(tail, n - 1) > width:
        n += 1
    return n


def chi2_ppf(q: float, df: float) -> float:
    """The chi-square quantile, ``2 gammaincinv(df / 2, q)``: ``scipy.stats.chi2.ppf``'s own formula, to the last bit,
    from scipy.special (a plan imports it anyway; scipy.stats would add half a second to a plan with a pilot).

    >>> round(chi2_ppf(0.9, 1), 10)
    2.7055434541
    """
    from scipy.special import gammaincinv   # beside scipy.optimize's brentq: loaded only where a pilot is read

    return float(2.0 * gammaincinv(df / 2.0, q))


def chi2_isf(q: float, df: float) -> float:
    """The chi-square upper quantile, ``chdtri(df, q)``: ``scipy.stats.chi2.isf``'s own formula.

    >>> round(chi2_isf(0.1, 1), 10)
    2.7055434541
    """
    from scipy.special import chdtri

    return float(chdtri(df, q))


def _pooled_spread(cells: pl.DataFrame) -> tuple[float | None, float | None, float | None]:
    """One value's runs in a pilot: their mean, pooled within-cell variance, and its standard error (from the
    spread of the cells' variances, weighted by their degrees of freedom)."""
    k = cells["k"].to_numpy().astype(float)
    mean = float(np.sum(cells["m"].to_numpy() * k) / k.sum()) if k.sum() else None
    ok = k >= 2
    if not ok.any():
        return mean, None, None
    v, w = cells["v"].to_numpy()[ok], k[ok] - 1
    pooled = float(np.sum(w * v) / w.sum())
    if ok.sum() < 2:
        return mean, pooled, None
    share = w / w.sum()
    se = math.sqrt(float(np.sum(share ** 2 * (v - pooled) ** 2)) * ok.sum() / (ok.sum() - 1))
    return mean, pooled, se


def _spread_fields(found, value: str) -> dict:
    mean, spread, se = found
    return {f"mean_{value}": mean, f"spread_{value}": spread, f"spread_{value}_se": se}
