"""Heterogeneity: how much true gaps differ between items, estimated from a pilot of the real comparison."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import polars as pl

from probestats.analyses.plan.noise import VALUE_LIMIT, as_noise, frame_and_metric
from probestats.errors import ColumnError, OptionError, count_of, either

__all__ = ["Heterogeneity", "heterogeneity_from_pilot", "TAU_METHOD"]

TAU_METHOD = ("method of moments: tau^2 = max(0, var(item gaps) - mean(sigma^2 (1/k_a + 1/k_b))) "
              "over the pilot's items")


@dataclass(frozen=True)
class Heterogeneity:
    """Spread of true gaps between items, estimated from a pilot of the real comparison.

    Attributes
    ----------
    tau : float
        Standard deviation of true item gaps (0 when the gaps spread no more than noise).
    var_gaps : float
        Sample variance (ddof=1) of the pilot's item gaps.
    noise_var : float
        Mean over items of ``sigma^2 (1/k_a + 1/k_b)``: what run noise alone contributes.
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

    def to_dict(self) -> dict:
        opt_float = lambda x: None if x is None else float(x)  # noqa: E731
        return {"tau": float(self.tau), "var_gaps": float(self.var_gaps), "noise_var": float(self.noise_var),
                "n_items": int(self.n_items), "average_gap": float(self.average_gap),
                "a": self.a, "b": self.b, "method": self.method,
                "mean_a": opt_float(self.mean_a), "mean_b": opt_float(self.mean_b),
                "spread_a": opt_float(self.spread_a), "spread_b": opt_float(self.spread_b),
                "spread_a_se": opt_float(self.spread_a_se), "spread_b_se": opt_float(self.spread_b_se)}


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
    from probestats.checks.schema import default_pair

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
    inv = (1.0 / wide["ka"].to_numpy() + 1.0 / wide["kb"].to_numpy())
    var_gaps = float(np.var(gaps, ddof=1))
    noise_var = float(noise.sigma_run ** 2 * inv.mean())
    tau = math.sqrt(max(0.0, var_gaps - noise_var))
    both = wide["item"]
    spreads = {}
    for value in (a, b):
        part = cell.filter((pl.col("variant") == value) & pl.col("item").is_in(both.implode()))
        spreads[value] = _pooled_spread(part)
    return Heterogeneity(tau=tau, var_gaps=var_gaps, noise_var=noise_var, n_items=int(wide.height),
                         average_gap=float(gaps.mean()), a=str(a), b=str(b), **_spread_fields(spreads[a], "a"),
                         **_spread_fields(spreads[b], "b"))


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
