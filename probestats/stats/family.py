"""The joint sign-flip test of a family of gaps measured on the same units (several metrics of one probe).

Several metrics of one probe are measured on the same items, so their item gaps move together: a family of
six measures that all move the same way is one finding, not six independent ones, and a correction that
treats them as independent (Holm over six tests) asks each to clear a bar six times higher than the family
needs. The joint test flips the signs of whole units (an item, or a cluster, with every metric's gap on it)
together, so every resample keeps the metrics' correlation as the probe measured it, and reads the family
with the step-down min-P procedure of Westfall and Young:

- each member's statistic is its sum of unit gaps over the root of their sum of squares,
  ``T = |Σ g| / sqrt(Σ g²)`` (two-sided; the signed sum for ``greater``, its negative for ``less``): the
  denominator does not change when signs flip, so each member orders the sign patterns exactly as its own
  sign-flip test does, and members on different scales are comparable;
- each member's own p is the share of sign patterns whose T reaches the observed one (its sign-flip test);
  every pattern's T is turned into that member's p in the same way, so members are read on one scale;
- the members are ordered by their observed p, smallest first; for each sign pattern the running minimum of
  the pattern's p over the members from the j-th on is taken; member j's adjusted p is the share of patterns
  whose running minimum is at most its observed p, made monotone down the order (Westfall and Young's
  step-down min-P). It controls the family-wise error at any correlation between the members, and is never
  larger than Holm's correction of the members' own sign-flip p-values (exactly so when enumerated);
- the smallest adjusted p is the family's omnibus p: whether any member moved at all.

Units a member was not measured on hold a gap of 0 for it (``nan`` in the input): members of different
``by`` groups flip their own units independently, as their separate tests do.

The p-values are **exact** (enumeration of every sign pattern) for up to :data:`MAX_EXACT_UNITS` units with a
non-zero gap, else Monte Carlo over ``n_resamples`` patterns drawn with ``seed``, ``(hits + 1)/(n + 1)``,
with the standard error stated.

Examples
--------
Two metrics that move together on five items: the joint p of each is that of its own sign-flip test,
2/32, where Holm's correction of the two would double the first.

>>> r = joint_sign_flip([[1.0, 2.0], [2.0, 3.0], [1.5, 2.5], [0.5, 1.0], [1.0, 2.0]])
>>> r.adjusted, r.pvalue, r.kind
((0.0625, 0.0625), 0.0625, 'exact')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from probestats.stats.draw_order import rows_in_order

__all__ = ["JointFlip", "joint_sign_flip", "MAX_EXACT_UNITS", "JOINT_TEST"]

#: units with a non-zero gap up to which every sign pattern is enumerated
MAX_EXACT_UNITS = 16
#: relative tolerance of ties, as every sign-flip test in probestats counts them
TIE_RTOL = 1e-9
#: the test in words
JOINT_TEST = ("the joint sign-flip test of the family (every unit's gaps flipped together, which keeps the "
              "members' correlation; step-down min-P adjusted p-values, Westfall and Young)")


@dataclass(frozen=True)
class JointFlip:
    """The joint sign-flip test of a family of members measured on shared units.

    Attributes
    ----------
    adjusted : tuple of float
        Each member's family-wise adjusted p, in the order given.
    pvalue : float
        The family's omnibus p (the smallest adjusted p): did any member move beyond chance?
    statistics : tuple of float
        Each member's observed T.
    kind : {"exact", "monte-carlo"}
    method : str
        The test in words, with the enumeration or the resamples and seed.
    n_units : int
        Units with a non-zero gap in some member.
    floor : float
        A lower bound of the smallest adjusted p any member can reach with these units: 2 / 2**n (1 / 2**n
        one-sided), n the most units any member has a non-zero gap on. Above alpha, the family could never
        reach significance.
    pvalue_se : float or None
        The Monte Carlo standard error of the omnibus p (None when exact).
    """

    adjusted: tuple
    pvalue: float
    statistics: tuple
    kind: str
    method: str
    n_units: int
    floor: float
    pvalue_se: float | None = None

    def to_dict(self) -> dict:
        return {"p": self.pvalue, "adjusted": list(self.adjusted), "statistics": list(self.statistics),
                "kind": self.kind, "method": self.method, "n_units": self.n_units, "floor": self.floor,
                "p_se": self.pvalue_se}


def _statistics(sums: np.ndarray, norms: np.ndarray, alternative: str) -> np.ndarray:
    """Each member's T from its signed sums (any leading axes) and its fixed norms."""
    scaled = np.divide(sums, norms, out=np.zeros_like(sums), where=norms > 0)
    if alternative == "two-sided":
        return np.abs(scaled)
    return scaled if alternative == "greater" else -scaled


def _tail_shares(draws: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each member (column), the share of ``draws`` at least as large as each of ``values`` (its p)."""
    out = np.empty(values.shape)
    for j in range(draws.shape[1]):
        ordered = np.sort(draws[:, j])
        tol = TIE_RTOL * np.maximum(np.abs(values[:, j]), 1e-300)
        out[:, j] = (draws.shape[0] - np.searchsorted(ordered, values[:, j] - tol, side="left")) / draws.shape[0]
    return out


def _step_down(p_draws: np.ndarray, p_observed: np.ndarray) -> np.ndarray:
    """Westfall and Young's step-down min-P: each member's share of patterns whose smallest p over the members
    from it on (in the order of the observed p, smallest first) is at most its observed p, made monotone."""
    order = np.argsort(p_observed, kind="stable")
    ordered = p_draws[:, order]
    running = np.minimum.accumulate(ordered[:, ::-1], axis=1)[:, ::-1]   # min over members j..k
    raw = np.mean(running <= p_observed[order] * (1 + TIE_RTOL), axis=0)
    out = np.empty_like(raw)
    out[order] = np.maximum.accumulate(raw)
    return np.minimum(out, 1.0)


def joint_sign_flip(gaps, *, alternative: str = "two-sided", n_resamples: int = 10_000,
                    seed: int | None = 0, max_exact: int = MAX_EXACT_UNITS) -> JointFlip:
    """The joint sign-flip test of the members (columns) of ``gaps`` over shared units (rows).

    Parameters
    ----------
    gaps : array_like, shape (n_units, n_members)
        Each unit's gap in each member (its item gap, or its cluster's sum of item gaps); ``nan`` where the
        member was not measured on the unit.
    alternative : {"two-sided", "greater", "less"}
    n_resamples, seed : int
        The Monte Carlo patterns, beyond :data:`MAX_EXACT_UNITS` units.

    Examples
    --------
    One member that moved and one that did not: the first's adjusted p is its own sign-flip p (the other
    never reaches so small a p), the second's no smaller.

    >>> r = joint_sign_flip([[1.0, 0.1], [1.0, -0.1], [1.0, 0.2], [1.0, -0.2], [1.0, 0.0]])
    >>> r.adjusted, r.floor
    ((0.0625, 1.0), 0.0625)
    """
    g = np.nan_to_num(np.asarray(gaps, dtype=float), nan=0.0)
    if g.ndim != 2 or g.shape[1] < 1:
        raise ValueError("gaps must be a units x members matrix")
    g = g[np.any(g != 0, axis=1)]   # a unit with no gap anywhere flips nothing
    n, k = g.shape
    norms = np.sqrt(np.sum(g * g, axis=0))
    observed = _statistics(g.sum(axis=0), norms, alternative)
    measured = np.count_nonzero(g, axis=0)
    sides = 2 if alternative == "two-sided" else 1
    floor = min(1.0, sides / 2.0 ** int(measured.max())) if k else 1.0
    if n <= max_exact:   # every sign pattern, the observed one among them
        codes = np.arange(1 << n, dtype=np.int64)
        draws = _statistics((1.0 - 2.0 * ((codes[:, None] >> np.arange(n)) & 1)) @ g, norms, alternative)
        kind, se = "exact", None
        method = f"exact (enumeration of all {1 << n:,} sign patterns of {n} units)"
    else:   # the observed pattern and n_resamples drawn ones: p = (hits + 1)/(n_resamples + 1)
        rng = np.random.default_rng(seed)
        g = rows_in_order(g)   # the signs drawn over the units in an order of their gaps, not the log's
        parts = [observed[None, :]]
        step = max(1, 2_000_000 // max(1, n))
        for start in range(0, n_resamples, step):
            signs = rng.choice(np.array([-1.0, 1.0]), size=(min(step, n_resamples - start), n))
            parts.append(_statistics(signs @ g, norms, alternative))
        draws = np.concatenate(parts)
        kind = "monte-carlo"
    p_observed = _tail_shares(draws, observed[None, :])[0]
    adjusted = _step_down(_tail_shares(draws, draws), p_observed)
    adjusted[norms == 0] = 1.0
    if kind == "monte-carlo":
        best = float(adjusted.min()) if k else 1.0
        se = float(math.sqrt(best * (1 - best) / n_resamples))
        method = (f"monte carlo ({n_resamples:,} sign patterns of {n} units, seed {seed}; each p = (hits + 1)/"
                  f"(n_resamples + 1), standard error of the omnibus p {se:.2g})")
    return JointFlip(adjusted=tuple(float(x) for x in adjusted), pvalue=float(adjusted.min()) if k else 1.0,
                     statistics=tuple(float(x) for x in observed), kind=kind, method=method, n_units=n,
                     floor=float(floor), pvalue_se=se)
