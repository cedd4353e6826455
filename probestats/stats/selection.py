"""Selection probes: selection rates per value and impact ratios.

When the metric says whether a candidate was selected (0 or 1), a value's **selection
rate** is pooled, as impact-ratio audits compute it: its selected runs over all its runs
(:data:`POOLED`); the mean of its per-item rates stands beside it where the two differ. The
**impact ratio** of a value is its rate divided by the highest rate. US employment guidance uses 0.8
(the "four-fifths rule") as a reference point; it is shown as such, never as a
verdict: a ratio below it is not by itself a finding of discrimination, and a ratio
above it is not a finding that there is none.

Examples
--------
>>> [r.to_dict() for r in impact_ratios({"Emily": 0.5, "Lakisha": 0.3})]
[{'value': 'Emily', 'rate': 0.5, 'ratio': 1.0, 'below_four_fifths': False, 'method': 'pooled: selected runs over all runs of the value', 'mean_of_items': None}, {'value': 'Lakisha', 'rate': 0.3, 'ratio': 0.6, 'below_four_fifths': True, 'method': 'pooled: selected runs over all runs of the value', 'mean_of_items': None}]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import polars as pl

from probestats.errors import OptionError

__all__ = ["THRESHOLD", "NOTE", "POOLED", "pooled_rates", "ImpactRatio", "impact_ratios", "is_selection"]

#: The four-fifths reference point.
THRESHOLD = 0.8
#: How a ratio below the reference point is worded, everywhere.
NOTE = ("below 0.8, the four-fifths reference used in US employment guidance; "
        "a ratio is not a finding of discrimination by itself")


#: How the selection rate is computed, named everywhere it is shown.
POOLED = "pooled: selected runs over all runs of the value"


def pooled_rates(means: pl.DataFrame) -> dict[str, float]:
    """Each value's pooled selection rate from its per-item ``mean`` and ``runs`` (columns ``value``,
    ``mean``, ``runs``): the selected runs (mean x runs, a whole number) over all runs.

    >>> pooled_rates(pl.DataFrame({"value": ["a", "a"], "mean": [1.0, 0.25], "runs": [1, 4]}))
    {'a': 0.4}
    """
    sums = (means.group_by("value", maintain_order=True)
            .agg((pl.col("mean") * pl.col("runs")).round(0).sum().alias("selected"), pl.col("runs").sum()))
    return {str(v): float(k) / float(n) for v, k, n in sums.iter_rows()}


@dataclass(frozen=True)
class ImpactRatio:
    """A value's selection rate and its ratio to the highest rate.

    Attributes
    ----------
    value : str
    rate : float
        The value's pooled selection rate: its selected runs over all its runs, across the items
        (:func:`pooled_rates`), so an item with more runs weighs more.
    ratio : float or None
        rate / highest rate (None when no value was ever selected).
    below_four_fifths : bool
        ratio < 0.8: a reference point, not a verdict (see :data:`NOTE`).
    method : str
        How ``rate`` is computed (:data:`POOLED`).
    mean_of_items : float or None
        The mean of the value's per-item rates, when given and it differs from ``rate``.
    """

    value: str
    rate: float
    ratio: float | None
    below_four_fifths: bool
    method: str = POOLED
    mean_of_items: float | None = None

    def to_dict(self) -> dict:
        return {"value": self.value, "rate": float(self.rate),
                "ratio": None if self.ratio is None else float(self.ratio),
                "below_four_fifths": bool(self.below_four_fifths), "method": self.method,
                "mean_of_items": None if self.mean_of_items is None else float(self.mean_of_items)}


def impact_ratios(rates: Mapping[str, float], item_means: Mapping[str, float] | None = None) -> tuple[ImpactRatio, ...]:
    """Impact ratios (rate ÷ the highest rate), in the order given; ``item_means`` (the mean of each value's
    per-item rates) is kept beside a rate it differs from by more than rounding (1e-9 relative).

    Examples
    --------
    >>> impact_ratios({"a": 0.0, "b": 0.0})[0].ratio is None
    True
    >>> [round(r.ratio, 4) for r in impact_ratios({"a": 0.25, "b": 0.2, "c": 0.1})]
    [1.0, 0.8, 0.4]
    """
    rates = {str(k): float(v) for k, v in rates.items()}
    for k, v in rates.items():
        if not (math.isfinite(v) and 0.0 <= v <= 1.0):
            raise OptionError(f"selection rate of '{k}' is {v}; rates lie between 0 and 1 (is the metric 0/1?)")
    top = max(rates.values(), default=0.0)
    out = []
    for k, v in rates.items():
        ratio = v / top if top > 0 else None
        # a ratio of exactly 4/5 can come out a hair below 0.8 in floating point (0.74 / 0.925)
        below = ratio is not None and ratio < THRESHOLD and not math.isclose(ratio, THRESHOLD, rel_tol=1e-9)
        other = None if item_means is None else float(item_means[k])
        if other is not None and math.isclose(other, v, rel_tol=1e-9, abs_tol=1e-12):
            other = None
        out.append(ImpactRatio(k, v, ratio, below, POOLED, other))
    return tuple(out)


def is_selection(values) -> bool:
    """True when every non-missing value is 0 or 1 (and there is at least one).

    Examples
    --------
    >>> is_selection(pl.Series([0.0, 1.0, None])), is_selection([0, 2]), is_selection([])
    (True, False, False)
    """
    s = values if isinstance(values, pl.Series) else pl.Series(list(values), dtype=pl.Float64)
    s = s.drop_nulls().cast(pl.Float64)
    s = s.filter(~s.is_nan())
    return s.len() > 0 and bool(s.is_in([0.0, 1.0]).all())
