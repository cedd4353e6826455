"""The minimum detectable gap of one design, searched over common random numbers, and the power of a design.

:func:`search_mdg` finds the smallest gap whose simulated power reaches the target (bracketing from the
paired t approximation, then narrowing; each step recomputes only the probes the bracket leaves open);
:func:`power_sign_flip` solves for whichever of gap, items, runs and power is left out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from probestats.analyses.plan.noise import VALUE_LIMIT, NoiseModel, as_noise, finite_or_none, fmt_scale
from probestats.analyses.plan.simulate import (MAX_DOUBLINGS, Draws, Rejections, approx_mdg, approx_power,
                                               direction_of, draw_probes, reject_rate, runs_array, sign_test_rate)
from probestats.errors import OptionError, count_of
from probestats.result import html_summary, one_line
from probestats.stats.hypotests import min_attainable_p
from probestats.vocabulary import check_alpha, check_seed

__all__ = ["PowerResult", "power_sign_flip", "mdg_for_design", "search_mdg", "mdg_both_ways", "BothWays",
           "reached_sizes", "realized_toward", "realized_gap", "check_common", "check_tau", "check_gap", "power_se"]


def search_mdg(rejections: Rejections, items: int, gap_sd: float, tau: float, alpha: float, target: float,
         alternative: str, rel_tol: float = 1e-3, tick: Callable[[], None] | None = None) -> float:
    """Smallest gap whose simulated power reaches ``target``, searched over common random numbers.

    ``tick``, when given, is called after each power evaluation (a progress hook)."""
    if min_attainable_p(items, alternative=alternative) > alpha:
        return math.inf

    def rate(delta: float) -> float:
        out = rejections.rate(delta)
        if tick is not None:
            tick()
        return out
    spread = math.sqrt(gap_sd ** 2 + tau ** 2)
    guess = approx_mdg(items, gap_sd, tau, alpha, target, alternative) or spread or 1.0
    # Bracket from below: the t approximation usually undershoots the sign-flip MDG, and
    # stepping up only recomputes the probes that have not rejected yet.
    lo, hi = 0.0, 0.9 * guess
    r_lo, r_hi = 0.0, rate(hi)
    if r_hi >= target:
        for _ in range(MAX_DOUBLINGS):
            trial = hi / 1.5
            r = rate(trial)
            if r < target:
                lo, r_lo = trial, r
                break
            hi, r_hi = trial, r
    else:
        cap = getattr(rejections, "saturation", math.inf)
        for _ in range(MAX_DOUBLINGS):
            if hi >= cap:   # every item already at the bound: power cannot rise further
                return math.inf
            lo, r_lo = hi, r_hi
            hi = min(hi * 1.15, cap)
            r_hi = rate(hi)
            if r_hi >= target:
                break
        else:
            return math.inf
    # Then narrow the bracket, stepping where a straight line through the two ends
    # reaches the target (kept at least a tenth of the bracket from either end); each
    # step only recomputes the probes whose decision the bracket leaves open.
    for _ in range(200):
        width = hi - lo
        if width <= rel_tol * hi:
            break
        if r_hi > r_lo:
            mid = lo + (target - r_lo) / (r_hi - r_lo) * width
            mid = min(max(mid, lo + 0.1 * width), hi - 0.1 * width)
        else:
            mid = lo + 0.5 * width
        r = rate(mid)
        if r >= target:
            hi, r_hi = mid, r
        else:
            lo, r_lo = mid, r
    return float(hi)


def _directions(alternative: str) -> tuple[float, ...]:
    """The directions a gap is searched in: both for a two-sided test, the tested one otherwise."""
    return (1.0, -1.0) if alternative == "two-sided" else (direction_of(alternative),)


@dataclass(frozen=True)
class BothWays:
    """The MDG searched in each direction: ``up`` (value a above b) and ``down`` (below), as sizes."""

    up: float | None        # None: not searched (a one-sided test the other way); inf: unreachable
    down: float | None
    sign: float             # the direction of the smaller one
    rejections: Rejections

    @property
    def mdg(self) -> float:
        return min(x for x in (self.up, self.down) if x is not None)


def mdg_both_ways(draws: Draws, items: int, gap_sd: float, tau: float, alpha: float, target: float,
              alternative: str, progress: Callable[[float], None] | None = None) -> BothWays:
    """The MDG in each direction the test can see (for a two-sided test both, on the same draws).

    ``progress``, when given, is called with the share of the search done so far (an estimate
    that only grows: a search takes about a dozen power evaluations per direction)."""
    found = {}
    signs = _directions(alternative)
    for i, sign in enumerate(signs):
        rej = Rejections(draws, tau, alpha, alternative, direction=sign)
        calls = [0]

        def tick(i=i, calls=calls):
            calls[0] += 1
            progress((i + 1 - 0.8 ** calls[0]) / len(signs))

        found[sign] = (search_mdg(rej, items, gap_sd, tau, alpha, target, alternative,
                            tick=None if progress is None else tick), rej)
    sign = min(found, key=lambda s: (found[s][0], -s))
    return BothWays(up=found[1.0][0] if 1.0 in found else None, down=found[-1.0][0] if -1.0 in found else None,
                     sign=sign, rejections=found[sign][1])


def reached_sizes(draws: Draws, both: BothWays, tau: float) -> tuple[float | None, float | None]:
    """The MDG in each direction as the average gap the simulated items really make (None: not searched,
    inf: unreachable): the shift found, less what the metric's bounds stop. No MDG is then beyond the bounds."""
    out = []
    for size, sign in ((both.up, 1.0), (both.down, -1.0)):
        out.append(size if size is None or math.isinf(size) else abs(realized_toward(draws, size, tau, sign)))
    return out[0], out[1]


def realized_toward(draws: Draws, gap: float, tau: float, sign: float) -> float:
    """The average size of the shift simulated items really make at a gap of size ``gap`` in direction ``sign``."""
    return sign * draws.realized(sign * gap, tau)


def check_common(alpha, target, sims, alternative, seed):
    direction_of(alternative)
    check_alpha(alpha)
    check_seed(seed)
    if target is not None and not 0 < target < 1:
        raise OptionError(f"the target power must be between 0 and 1, not {target}")
    if int(sims) != sims or sims < 1:
        raise OptionError(f"sims must be a whole number of 1 or more, not {sims}")


def check_tau(heterogeneity) -> float:
    tau = 0.0 if heterogeneity is None else float(heterogeneity)
    if not math.isfinite(tau) or tau < 0:
        raise OptionError(f"heterogeneity (tau) must be a number of 0 or more, not {heterogeneity}")
    if tau > VALUE_LIMIT:
        raise OptionError(f"heterogeneity (tau) {tau:g} is too large to simulate; rescale the metric")
    return tau


def check_gap(gap) -> None:
    if gap is not None and not (math.isfinite(float(gap)) and abs(float(gap)) <= VALUE_LIMIT):
        raise OptionError(f"gap must be a finite number of ordinary size (at most {VALUE_LIMIT:g}), not {gap}")


@dataclass(frozen=True)
class PowerResult:
    """Power of the exact sign-flip test for one design, or the design that reaches a power.

    Attributes
    ----------
    solved_for : {"power", "gap", "items", "runs"}
    gap : float
        True average gap (``math.inf`` when no gap reaches the target power).
    items : int or None
        Items (None when no count up to the search limit reaches the target).
    runs : int or None
        Runs per value (None when no count up to the search limit reaches the target).
    power : float or None
        Simulated power of the sign-flip test at ``gap`` (for a solved design: the power
        it reaches).
    power_se : float or None
        Monte Carlo standard error, ``sqrt(p (1 - p) / sims)``.
    power_sign_test : float or None
        Simulated power of the sign test on the same probes.
    power_approx : float or None
        Paired t-test approximation (statsmodels ``TTestPower``), a cross-check.
    target_power : float or None
    min_attainable_p : float or None
    sigma_run, tau, alpha : float
    alternative : str
    sims, seed : int
    note : str
        One sentence on what the result means.
    gap_realized : float or None
        For a metric with a floor or ceiling: the average gap the simulated items really
        move by at ``gap`` (smaller than ``gap`` when items reach the bound); for other
        metrics, ``gap`` itself.
    """

    solved_for: str
    gap: float | None
    items: int | None
    runs: int | None
    power: float | None
    power_se: float | None
    power_sign_test: float | None
    power_approx: float | None
    target_power: float | None
    min_attainable_p: float | None
    sigma_run: float
    tau: float
    alpha: float
    alternative: str
    sims: int
    seed: int | None
    note: str = ""
    gap_realized: float | None = None

    def __repr__(self) -> str:
        return one_line(self, solved_for=self.solved_for, gap=float(self.gap), items=self.items, runs=self.runs,
                        power=self.power)

    def _repr_html_(self) -> str:
        return html_summary(self, solved_for=self.solved_for, gap=float(self.gap), items=self.items, runs=self.runs,
                            power=self.power, power_se=self.power_se, note=self.note)

    def to_dict(self) -> dict:
        return {
            "solved_for": self.solved_for,
            "gap": finite_or_none(self.gap),
            "items": None if self.items is None else int(self.items),
            "runs": None if self.runs is None else int(self.runs),
            "power": finite_or_none(self.power),
            "power_se": finite_or_none(self.power_se),
            "power_sign_test": finite_or_none(self.power_sign_test),
            "power_approx": finite_or_none(self.power_approx),
            "target_power": finite_or_none(self.target_power),
            "min_attainable_p": finite_or_none(self.min_attainable_p),
            "sigma_run": float(self.sigma_run),
            "tau": float(self.tau),
            "alpha": float(self.alpha),
            "alternative": self.alternative,
            "sims": int(self.sims),
            "seed": None if self.seed is None else int(self.seed),
            "note": self.note,
            "gap_realized": finite_or_none(self.gap_realized),
        }


def power_se(p: float, sims: int) -> float:
    return math.sqrt(max(0.0, p * (1.0 - p)) / sims)


def _power_at(noise, gap, items, runs, tau, alpha, alternative, sims, seed, shift="additive"):
    draws = draw_probes(noise, items, runs, runs, sims, seed, shift)
    p = reject_rate(draws, gap, tau, alpha, alternative)
    st = sign_test_rate(draws, gap, tau, alpha, alternative)
    approx = approx_power(gap, items, noise.gap_sd(runs, runs), tau, alpha, alternative)
    return p, st, approx, realized_gap(draws, gap, tau, alternative)


def realized_gap(draws: Draws, gap: float, tau: float, alternative: str) -> float:
    """The average gap simulated items really move by at ``gap``, in the tested direction."""
    sign = direction_of(alternative)
    return sign * draws.realized(sign * gap, tau)


def _bound_note(noise: NoiseModel) -> str:
    if not noise.bounded:
        return ""
    return (f" The metric is kept within {fmt_scale(noise.floor, noise.ceiling)}: the gap shifts each item's "
            "mean, stopping at the bound (gap_realized is the average shift reached).")


def _search_int(ok: Callable[[int], bool], start: int, limit: int) -> int | None:
    """Smallest n in [start, limit] with ok(n), searching by doubling then bisection."""
    if ok(start):
        return start
    lo, hi = start, start
    while True:
        if hi >= limit:
            return None
        lo, hi = hi, min(limit, hi * 2)
        if ok(hi):
            break
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def power_sign_flip(gap: float | None = None, items: int | None = None, runs: int | None = None,
                    power: float | None = None, *, noise, alpha: float = 0.05,
                    heterogeneity: float | None = None, sims: int = 2000, seed: int | None = 0,
                    alternative: str = "two-sided", metric: str | None = None,
                    max_items: int = 512, max_runs: int = 512, scale=None, shift: str = "additive") -> PowerResult:
    """Power of the exact sign-flip test, or the gap, items or runs that reach a power.

    Exactly one of ``gap``, ``items``, ``runs`` and ``power`` is left None, and that one
    is solved for (as in pingouin's power functions):

    - ``power``: the share of simulated probes in which the sign-flip test gives
      ``p <= alpha``, with its Monte Carlo error;
    - ``gap``: the minimum detectable gap (MDG), the smallest true average gap with power at
      or above ``power``, by bisection over common random numbers; infinite (None in
      JSON) when even the smallest attainable p exceeds alpha;
    - ``runs`` or ``items``: the fewest runs per value (or items) whose power reaches
      ``power`` at ``gap``, by doubling then bisection (power is simulated, so a count
      next to the answer may be within Monte Carlo error of the target too).

    Parameters
    ----------
    gap : float
        True average gap (value a minus value b) in the metric's units; for
        ``alternative="less"`` its size in the negative direction.
    items : int
        Matched items.
    runs : int
        Runs per value of each item.
    power : float
        Target power (when solving for gap, items or runs).
    noise : NoiseModel, float, or a log
        The noise model (:func:`noise_model`), sigma per run as a number (normal runs),
        or a noise log (then ``metric`` is needed).
    alpha : float
    heterogeneity : float, optional
        tau, the spread (SD) of true gaps between items. None means 0, in which case the
        power is an upper bound.
    sims : int
        Simulated probes per design.
    seed : int
        Seed of ``numpy.random.default_rng``; the same seed gives the same answer.
    alternative : {"two-sided", "greater", "less"}
    scale : (low, high) or "LOW:HIGH", optional
        The metric's declared scale (see :func:`noise_model`); needs a noise log or model.
        For a metric with a floor or ceiling, ``gap`` shifts each item's mean of value
        a and stops at the bound; ``gap_realized`` says how far the items really moved.
    shift : {"additive", "scale"}
        How a gap acts on value a's runs: added to every run (default), or a scale gap that
        multiplies the item's mean by ``1 + gap / mean`` (mean: the noise log's), for counts
        and other metrics that are never negative: whole numbers as a rate (thinned, or joined
        by Poisson counts at the item's rate, so the spread grows with the mean), other runs
        multiplied.

    Examples
    --------
    The tutorial's setting: noise about 1.2 steps per run at temperature 0.8, a planted
    gap of 1 step, 8 items.

    >>> r = power_sign_flip(gap=1.0, items=8, runs=20, noise=1.2, sims=400)
    >>> r.power > 0.9
    True
    >>> power_sign_flip(gap=None, items=5, runs=20, power=0.8, noise=1.2).to_dict()["gap"] is None
    True
    """
    check_common(alpha, power, sims, alternative, seed)
    tau = check_tau(heterogeneity)
    noise = as_noise(noise, metric, scale)
    missing = [n for n, v in (("gap", gap), ("items", items), ("runs", runs), ("power", power)) if v is None]
    if len(missing) != 1:
        raise OptionError("leave exactly one of gap, items, runs and power as None: the one to solve for "
                          f"(now {', '.join(missing) or 'none'})")
    solve = missing[0]
    for name, v in (("items", items), ("runs", runs)):
        if v is not None and (int(v) != v or v < 1):
            raise OptionError(f"{name} must be a whole number of 1 or more, not {v}")
    check_gap(gap)
    common = dict(sigma_run=noise.sigma_run, tau=tau, alpha=float(alpha), alternative=alternative,
                  sims=int(sims), seed=seed)
    if heterogeneity is not None:
        bound = ""
    elif solve == "power":
        bound = " Heterogeneity was taken as 0, so this power is an upper bound."
    else:
        bound = (f" Heterogeneity was taken as 0, so the true {solve} needed may be larger "
                 f"(this {'gap' if solve == 'gap' else 'count'} is a lower bound).")

    bound += _bound_note(noise)
    if solve == "power":
        items, runs = int(items), int(runs)
        p, st, approx, real = _power_at(noise, float(gap), items, runs, tau, alpha, alternative, sims, seed, shift)
        return PowerResult("power", float(gap), items, runs, p, power_se(p, sims), st, approx, None,
                           min_attainable_p(items, alternative=alternative), **common,
                           note=f"power of the exact sign-flip test at alpha {alpha}.{bound}", gap_realized=real)
    if solve == "gap":
        items, runs = int(items), int(runs)
        draws = draw_probes(noise, items, runs, runs, sims, seed, shift)
        both = mdg_both_ways(draws, items, noise.gap_sd(runs), tau, alpha, power, alternative)
        rejections, mdg = both.rejections, both.mdg
        minp = min_attainable_p(items, alternative=alternative)
        if math.isinf(mdg):
            why = (f"with {count_of(items, 'item')} the smallest attainable p is {minp:g} > alpha {alpha}: this design could "
                   "never reach significance, whatever the gap" if minp > alpha else
                   f"no gap reaches power {power}: the items' means reach the metric's bound first "
                   f"({fmt_scale(noise.floor, noise.ceiling)}); use more items or runs")
            return PowerResult("gap", math.inf, items, runs, None, None, None, None, float(power), minp, **common,
                               note=why)
        p = rejections.rate(mdg)
        st = sign_test_rate(draws, both.sign * mdg if alternative == "two-sided" else mdg, tau, alpha, alternative)
        approx = approx_power(mdg, items, noise.gap_sd(runs), tau, alpha, alternative)
        return PowerResult("gap", mdg, items, runs, p, power_se(p, sims), st, approx, float(power), minp, **common,
                           note=f"minimum detectable gap at power {power} and alpha {alpha}"
                                + (f" ({'upward' if both.sign > 0 else 'downward'}, the smaller of the two directions)"
                                   if alternative == "two-sided" else "") + f".{bound}",
                           gap_realized=abs(realized_toward(draws, mdg, tau, both.sign)))

    gap = float(gap)

    def reaches(i, k):
        draws = draw_probes(noise, i, k, k, sims, seed, shift)
        return reject_rate(draws, gap, tau, alpha, alternative) >= power

    if solve == "runs":
        items = int(items)
        minp = min_attainable_p(items, alternative=alternative)
        found = None if minp > alpha else _search_int(lambda k: reaches(items, k), 1, max_runs)
        note = (f"fewest runs per value with power >= {power} at gap {gap}.{bound}" if found else
                f"with {count_of(items, 'item')} the smallest attainable p is {minp:g} > alpha {alpha}: no number of runs "
                "reaches significance; use more items" if minp > alpha else
                f"no number of runs up to {max_runs} reaches power {power} at gap {gap}; use more items")
        runs = found
    else:
        runs = int(runs)
        start = 1
        while min_attainable_p(start, alternative=alternative) > alpha:
            start += 1
        found = _search_int(lambda n: reaches(n, runs), start, max_items)
        note = (f"fewest items with power >= {power} at gap {gap}.{bound}" if found else
                f"no number of items up to {max_items} reaches power {power} at gap {gap}")
        items = found
    if found is None:
        return PowerResult(solve, gap, items, runs, None, None, None, None, float(power),
                           None if items is None else min_attainable_p(items, alternative=alternative),
                           **common, note=note)
    p, st, approx, real = _power_at(noise, gap, items, runs, tau, alpha, alternative, sims, seed, shift)
    return PowerResult(solve, gap, items, runs, p, power_se(p, sims), st, approx, float(power),
                       min_attainable_p(items, alternative=alternative), **common, note=note, gap_realized=real)


def _design_search(noise_model, items, runs_a, runs_b, alpha, power, sims, seed, alternative, heterogeneity, shift):
    """The simulated probes of a design and its MDG searched both ways (the common start of
    :func:`mdg_for_design` and :func:`mdg_with_range`)."""
    check_common(alpha, power, sims, alternative, seed)
    tau = check_tau(heterogeneity)
    noise = as_noise(noise_model)
    items = int(items)
    draws = draw_probes(noise, items, runs_a, runs_b, sims, seed, shift)
    ka, kb = draws.ka, runs_array(runs_b, items, "runs_b")
    gap_sd = noise.sigma_run * math.sqrt(float(np.mean(1.0 / ka + 1.0 / kb)))
    both = mdg_both_ways(draws, items, gap_sd, tau, alpha, power, alternative)
    return noise, items, ka, kb, tau, draws, both


def mdg_for_design(noise_model, items: int, runs_a, runs_b, alpha: float = 0.05, power: float = 0.8,
                   heterogeneity: float | None = None, sims: int = 2000, seed: int | None = 0,
                   alternative: str = "two-sided", shift: str = "additive") -> float | None:
    """Minimum detectable gap of the design actually run (for a null result's paragraph).

    ``runs_a`` and ``runs_b`` are the runs per value: one number, or one per item when
    items had different numbers of runs. Returns None when the design could never reach
    significance (smallest attainable p above alpha).

    Examples
    --------
    >>> mdg_for_design(NoiseModel.stated(1.2), 5, 20, 20) is None   # 2/32 > 0.05
    True
    >>> 0.3 < mdg_for_design(NoiseModel.stated(1.2), 8, 20, 20, sims=500) < 0.8
    True
    """
    noise, items, ka, kb, tau, draws, both = _design_search(noise_model, items, runs_a, runs_b, alpha, power, sims,
                                                       seed, alternative, heterogeneity, shift)
    return finite_or_none(min(x for x in reached_sizes(draws, both, tau) if x is not None))
