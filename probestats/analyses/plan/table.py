"""A plan: the minimum detectable gap (and the power at a gap) of every design over a grid of items and runs."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from probestats.analyses.plan.heterogeneity import (TAU_LEVEL, TAU_METHOD, TAU_WIDTH, Heterogeneity,
                                                    heterogeneity_from_pilot)
from probestats.analyses.plan.limits import check_plan_work
from probestats.analyses.plan.mechanisms import (Mechanisms, choose_mechanisms, engine_shift, infer_rating_scale,
                                                 mechanisms_text, rating_text, read_pilot)
from probestats.analyses.plan.noise import NoiseModel, as_noise, finite_or_none, fmt_scale, noise_model
from probestats.analyses.plan.ranges import (MEAN_BOUND_LEVEL, RANGE_METHOD, RANGE_MIN_SIMS, bound_room, coupled_models,
                                             mdg_ranges, mean_bounds, resampled_logs)
from probestats.analyses.plan.search import (check_common, check_gap, check_tau, least_promising, mdg_both_ways,
                                             power_se, reached_sizes, realized_gap)
from probestats.analyses.plan.simulate import Rejections, approx_mdg, approx_power, draw_probes, sign_test_rate
from probestats.analyses.plan.sizing import Pilot, Sizing
from probestats.errors import OptionError, Problem, count_of, either, opt
from probestats.result import Result, html_summary, one_line
from probestats.stats.decide import DECIDE_EXACT_ITEMS, DECIDE_NOTE
from probestats.stats.hypotests import min_attainable_p
from probestats.vocabulary import Tests, as_tests

__all__ = ["PlanCell", "MechanismResult", "Plan", "plan_probe", "DesignPower", "design_power", "with_design_power"]


@dataclass(frozen=True)
class PlanCell:
    """One design of a plan: its MDG and, when a gap is given, its power.

    ``gap_realized`` and ``mdg_realized`` are the average gaps the simulated items really
    move by at the plan's gap and at the MDG: for a metric with a floor or ceiling they
    are smaller than the gap when items reach the bound; otherwise they equal it.

    For a two-sided test the MDG is searched upward (value a above b) and downward, on the
    same simulated probes: ``mdg`` is the smaller, ``mdg_up`` and ``mdg_down`` the sizes of
    both (they differ near a floor or ceiling, where a gap toward the bound is capped). Each is
    the average gap the simulated items really make (``mdg_realized``), so none lies beyond the
    metric's bounds; ``mdg_shift_up`` and ``mdg_shift_down`` are the shifts of each item's mean
    (stopping at the bound) that make them.

    ``mdg_up_range`` and ``mdg_down_range`` (and ``mdg_range``, for ``mdg``) are the ranges the MDG takes
    over plausible noise logs of the same size (see :func:`mdg_ranges`); None when not computed.

    Attributes
    ----------
    items, runs : int
        The design: items, and runs per value and item.
    power : float or None
        Simulated power of the sign-flip test at the plan's gap (None without a gap).
    power_se : float or None
        Its Monte Carlo standard error, ``sqrt(p (1 - p) / sims)``.
    power_sign_test : float or None
        Simulated power of the sign test on the same probes.
    power_approx : float or None
        Paired t-test approximation of the power, a cross-check.
    mdg : float
        The minimum detectable gap: the smallest average gap reaching the target power (``inf``: none does).
    mdg_approx : float or None
        The gap at which the paired t-test approximation reaches the target power, a cross-check.
    min_attainable_p : float
        The smallest p the sign-flip test can give with this many items.
    gap_realized, mdg_realized : float or None
        The average gaps the simulated items really move by at the plan's gap and at the MDG.
    mdg_up, mdg_down : float or None
        The MDG as a size in each direction (value a above b, below it); None where not searched (a
        one-sided test the other way), ``inf`` where no gap reaches the target power.
    mdg_shift_up, mdg_shift_down : float or None
        The shifts of each item's mean (stopping at the bound) that make ``mdg_up`` and ``mdg_down``.
    mdg_up_range, mdg_down_range : (float, float) or None
        (low, high) of the MDG in each direction over plausible noise logs of the same size.
    mdg_up_near_bound, mdg_down_near_bound : bool
        Whether the MDG toward a ceiling (floor) is larger than the room left between the bound and the
        one-sided 95% bound on the noise log's mean (:func:`mean_bounds`): the noise log cannot tell whether
        a gap that large exists, so it is not promised (the ``mdg_near_bound`` warning says so).
    mechanism_up, mechanism_down : str or None
        How the gap acts in the headline MDG of each direction (with several plausible mechanisms, the one
        that promises least there); None where not searched.
    mechanism_power : str or None
        How the gap acts in the headline power (the lowest of the plausible mechanisms'); None without a gap.
    by_mechanism : tuple of MechanismResult
        Each plausible mechanism's own MDGs and power, when the plan simulates more than one (else empty).
    power_tau_range : (float, float) or None
        The lowest and highest power at the plan's gap over the pilot's interval on tau and the noise log's interval
        on sigma (:data:`~probestats.analyses.plan.heterogeneity.POWER_RANGE_METHOD`: the point estimate, tau's ends
        at the log's sigma, and tau's ends recomputed at each end of sigma's interval, on the first half of the same
        simulated probes, the least promising mechanism at each): what the pilot and the noise log can tell of the power. None without
        a pilot or without a gap.
    """

    items: int
    runs: int
    power: float | None
    power_se: float | None
    power_sign_test: float | None
    power_approx: float | None
    mdg: float
    mdg_approx: float | None
    min_attainable_p: float
    gap_realized: float | None = None
    mdg_realized: float | None = None
    #: the MDG as a size in each direction (value a above b, below it); None where not searched
    #: (a one-sided test the other way), inf where no gap reaches the target power
    mdg_up: float | None = None
    mdg_down: float | None = None
    mdg_shift_up: float | None = None
    mdg_shift_down: float | None = None
    #: (low, high) of the MDG over plausible noise logs of the same size; None: not computed or not searched
    mdg_up_range: tuple[float, float] | None = None
    mdg_down_range: tuple[float, float] | None = None
    #: whether the MDG in each direction lies within the noise log's uncertainty of the bound it moves toward
    #: (beyond the room left at the bound on the log's mean, :func:`mean_bounds`): not promised
    mdg_up_near_bound: bool = False
    mdg_down_near_bound: bool = False
    mechanism_up: str | None = None
    mechanism_down: str | None = None
    mechanism_power: str | None = None
    by_mechanism: tuple[MechanismResult, ...] = ()
    #: (low, high) of the power at the plan's gap over the pilot's interval on tau and the noise log's on sigma (their
    #: ends and the point), on the same simulated probes; None without a pilot or a gap
    power_tau_range: tuple[float, float] | None = None

    @property
    def mdg_range(self) -> tuple[float, float] | None:
        """The range of ``mdg``: the one of the direction it comes from."""
        if self.mdg_up is not None and self.mdg_up == self.mdg:
            return self.mdg_up_range
        return self.mdg_down_range if self.mdg_down is not None and self.mdg_down == self.mdg else None

    def to_dict(self) -> dict:
        rng = lambda r: None if r is None else [finite_or_none(r[0]), finite_or_none(r[1])]  # noqa: E731
        return {
            "items": int(self.items), "runs": int(self.runs),
            "mdg_up": finite_or_none(self.mdg_up), "mdg_down": finite_or_none(self.mdg_down),
            "mdg_up_range": rng(self.mdg_up_range), "mdg_down_range": rng(self.mdg_down_range),
            "mdg_range": rng(self.mdg_range),
            "mdg_up_near_bound": bool(self.mdg_up_near_bound), "mdg_down_near_bound": bool(self.mdg_down_near_bound),
            "mdg_shift_up": finite_or_none(self.mdg_shift_up), "mdg_shift_down": finite_or_none(self.mdg_shift_down),
            "power": finite_or_none(self.power), "power_se": finite_or_none(self.power_se),
            "power_sign_test": finite_or_none(self.power_sign_test),
            "power_approx": finite_or_none(self.power_approx),
            "mdg": finite_or_none(self.mdg), "mdg_approx": finite_or_none(self.mdg_approx),
            "min_attainable_p": float(self.min_attainable_p),
            "gap_realized": finite_or_none(self.gap_realized), "mdg_realized": finite_or_none(self.mdg_realized),
            "mechanism_up": self.mechanism_up, "mechanism_down": self.mechanism_down,
            "mechanism_power": self.mechanism_power,
            "by_mechanism": [m.to_dict() for m in self.by_mechanism],
            "power_tau_range": rng(self.power_tau_range),
        }


@dataclass(frozen=True)
class MechanismResult:
    """One plausible mechanism's answer for one design, beside the headline.

    Attributes
    ----------
    mechanism : {"level", "rate", "scale"}
        How the gap acts.
    mdg_up, mdg_down : float or None
        Its MDG in each direction (None: not searched; ``inf``: unreachable).
    mdg : float
        The smaller of the two.
    power : float or None
        Its power at the plan's gap (None without a gap).
    """

    mechanism: str
    mdg_up: float | None
    mdg_down: float | None
    mdg: float
    power: float | None

    def to_dict(self) -> dict:
        return {"mechanism": self.mechanism, "mdg_up": finite_or_none(self.mdg_up),
                "mdg_down": finite_or_none(self.mdg_down), "mdg": finite_or_none(self.mdg),
                "power": finite_or_none(self.power)}


@dataclass(frozen=True)
class Plan(Result):
    """The answer to "what could this probe detect?" over a grid of designs.

    ``to_dict()`` is the ``plan --json`` object; ``to_frame()`` one row per design.

    Attributes
    ----------
    noise : NoiseModel
        The run-to-run noise the designs are simulated with.
    tau : float
        The spread (SD) of true item gaps the simulation assumes.
    tau_source : str
        Where ``tau`` came from: ``"pilot"`` (estimated, see ``heterogeneity``) or stated.
    alpha : float
        The level a simulated probe's p is read against.
    target_power : float
        The power the MDG is the smallest gap to reach.
    gap : float or None
        The gap each design's ``power`` is simulated at (None: MDGs only).
    alternative : {"two-sided", "greater", "less"}
    sims, seed : int
        Simulated probes per design, and the seed they are drawn with.
    cells : tuple of PlanCell
        One design per combination of items and runs.
    problems : tuple of Problem
        What a reader should be told (about the noise log, the pilot, the designs).
    heterogeneity : Heterogeneity or None
        The pilot's estimate of ``tau`` (None without a pilot).
    mechanisms : Mechanisms
        How the gap is assumed to act (the metric's kind, the mechanisms simulated, and why).
    mdg_range_method : str or None
        How the MDG's ranges were found (None: not computed, as for a stated sigma).
    range_sims : int or None
        Simulated probes per resampled noise log and design behind the ranges.
    precision : str or None
        Set when the time budget stopped the refining: how precise the answers are then.
    """

    MAIN_TABLE = "cells"

    noise: NoiseModel
    tau: float
    tau_source: str
    alpha: float
    target_power: float
    gap: float | None
    alternative: str
    sims: int
    seed: int | None
    cells: tuple[PlanCell, ...]
    problems: tuple[Problem, ...]
    heterogeneity: Heterogeneity | None = None
    mechanisms: Mechanisms | None = None
    #: how the MDG's ranges were found (None: not computed, as for a stated sigma)
    mdg_range_method: str | None = None
    #: simulated probes per resampled noise log and design behind the ranges
    range_sims: int | None = None
    precision: str | None = None

    def __post_init__(self):
        if self.mechanisms is None:   # a plan built by hand: the mechanisms its noise log leaves plausible
            object.__setattr__(self, "mechanisms", choose_mechanisms(self.noise))

    @property
    def noise_runs_to_halve_range(self) -> int | None:
        """Runs a noise log needs to halve the MDG's ranges: 4 times its own (the ranges narrow as 1/sqrt(runs))."""
        return None if self.mdg_range_method is None else 4 * int(self.noise.n_runs)

    @property
    def sigma_run(self) -> float:
        return self.noise.sigma_run

    def to_dict(self) -> dict:
        out = {
            "metric": self.noise.metric,
            "sigma_run": float(self.noise.sigma_run),
            "tau": float(self.tau),
            "tau_source": self.tau_source,
            "tau_method": TAU_METHOD if self.tau_source == "pilot" else "stated assumption",
            "alpha": float(self.alpha),
            "target_power": float(self.target_power),
            "gap": finite_or_none(self.gap),
            "alternative": self.alternative,
            "sims": int(self.sims),
            "seed": None if self.seed is None else int(self.seed),
            "test": "exact sign-flip test; power by simulation from the noise model, "
                    "power_approx from the paired t-test (statsmodels TTestPower)",
            "decisions": DECIDE_NOTE if max((c.items for c in self.cells), default=0) >= DECIDE_EXACT_ITEMS
            else "every simulated probe's p computed exactly",
            "noise": self.noise.to_dict(),
            "noise_model": self.noise.simulation,
            "mechanisms": self.mechanisms.to_dict(),
            "gap_model": mechanisms_text(self.noise, self.mechanisms),
            "precision": self.precision,
            "gap_definition": (f"the shift of each item's mean of value a, stopping at the metric's bounds "
                               f"{fmt_scale(self.noise.floor, self.noise.ceiling)} ({self.noise.scale_source}); "
                               "gap_realized and mdg_realized are the average shifts reached"
                               if self.noise.bounded else "the true average gap, value a minus value b"),
            "cells": [c.to_dict() for c in self.cells],
            "mdg_range_method": self.mdg_range_method,
            "mdg_range_sims": self.range_sims,
            "mdg_range_noise_runs_to_halve": self.noise_runs_to_halve_range,
            "problems": [p.to_dict() for p in self.problems],
        }
        if self.heterogeneity is not None:
            out["pilot"] = self.heterogeneity.to_dict()
        return out

    def __repr__(self) -> str:
        return one_line(self, metric=self.noise.metric, sigma_run=float(self.noise.sigma_run), designs=len(self.cells),
                        alpha=float(self.alpha), target_power=float(self.target_power), gap=self.gap)

    def _repr_html_(self) -> str:
        return html_summary(self, self.to_frame(), metric=self.noise.metric, sigma_run=float(self.noise.sigma_run),
                            tau=float(self.tau), alpha=float(self.alpha), target_power=float(self.target_power),
                            alternative=self.alternative, sims=self.sims)

    def directions_differ(self) -> bool:
        """Whether some design's upward and downward MDG differ (more than 2%, or one is unreachable)."""
        for c in self.cells:
            if c.mdg_up is None or c.mdg_down is None:
                continue
            if math.isinf(c.mdg_up) != math.isinf(c.mdg_down):
                return True
            if math.isfinite(c.mdg_up) and abs(c.mdg_up - c.mdg_down) > 0.02 * min(c.mdg_up, c.mdg_down):
                return True
        return False

    @property
    def heterogeneity_stated(self) -> bool:
        return not any(p.code == "heterogeneity_assumed" for p in self.problems)


def _int_list(values, name) -> list[int]:
    if values is None:
        raise OptionError(f"give at least one number of {name}")
    if isinstance(values, (int, np.integer)) or isinstance(values, str):
        values = [values]
    out: list[int] = []
    for v in values:
        parts = str(v).split(",") if isinstance(v, str) else [v]
        for part in parts:
            try:
                f = float(part)
            except ValueError:
                raise OptionError(f"{name} must be whole numbers, not {part!r}") from None
            if f != int(f) or f < 1:
                raise OptionError(f"{name} must be whole numbers of 1 or more, not {part!r}")
            if int(f) not in out:
                out.append(int(f))
    if not out:
        raise OptionError(f"give at least one number of {name}")
    return out


def plan_probe(noise, items: int | Iterable[int], runs: int | Iterable[int], gap: float | None = None,
               metric: str | None = None, pilot=None, progress: Callable[[float, int], None] | None = None, *,
               tests: Tests | None = None, sizing: Sizing | None = None) -> Plan:
    """Size a probe: the MDG (and the power at ``gap``) of every combination of items and runs.

    Parameters
    ----------
    noise : NoiseModel, float, or a same-versus-same log
        A log is read with :func:`noise_model` (``metric`` needed); a number is sigma per run.
    items, runs : int or iterable of int (or comma-separated strings)
        Item counts and runs per value; the table covers every combination.
    gap : float, optional
        A true average gap of interest: each design's power at it is added.
    pilot : log or Pilot, optional
        A pilot of the real comparison; tau is estimated from it (method of moments),
        comparing values ``a`` and ``b`` of a :class:`~probestats.analyses.plan.Pilot` (default: the first two in
        order of appearance), and how the gap acts is read from it where the noise log cannot tell
        (:func:`~probestats.analyses.plan.mechanisms.read_pilot`).
    tests : Tests, optional
        The planned test's direction (``alternative``) and level (``alpha``), and the seed of the simulated
        probes (:class:`probestats.Tests`); a plan sizes one test, so a correction, an interval, an effect size
        or resamples are refused.
    progress : callable, optional
        Called as ``progress(done, total)`` as the designs are simulated: ``done`` is the number of
        designs finished plus an estimate of the share of the current one (it only grows, and is a
        whole number after each design).
    sizing : Sizing, optional
        The rest of the question (:class:`~probestats.analyses.plan.Sizing`); a plan reads these fields:

        - ``heterogeneity`` (float, optional): tau as a stated assumption. With neither this nor a pilot,
          tau = 0 (a ``heterogeneity_assumed`` problem says so and what it means).
        - ``power`` (float): The target power of the minimum detectable gap.
        - ``sims`` (int): Simulated probes per design.
        - ``scale`` ((low, high) or "LOW:HIGH", optional): The metric's declared scale (overrides the bounds
          read from the noise log; see :func:`noise_model`). For a metric with a floor or ceiling, simulated
          runs stay within it, the gap is the shift of each item's mean of value a, stopping at the bound,
          and a ``bounded_metric`` problem says so; each design reports the average shift really reached
          (``gap_realized``, ``mdg_realized``). Without it, whole numbers within 0-100 that fill it in round
          numbers are read as a rating on 0-100
          (:func:`~probestats.analyses.plan.mechanisms.infer_rating_scale`); whole numbers from 0 with a
          long right tail are a count, and so are whole numbers of 0 or more when ``mechanism="rate"`` is
          named.
        - ``mechanism`` ({"auto", "level", "rate", "scale"}): How a gap acts on value a's runs
          (:mod:`probestats.analyses.plan.mechanisms`). ``"auto"``: the ways the metric's kind and the noise
          log leave plausible (a pilot may decide between them); with more than one, each headline figure is
          the least promising of them (the largest MDG in each direction, the lowest power), the others in
          ``by_mechanism``.
        - ``mdg_range`` (bool): Also find each MDG's range over plausible noise logs of the same size
          (:func:`mdg_ranges`, :data:`RANGE_METHOD`): :data:`RANGE_REPLICATES` resampled logs at a tenth of
          ``sims`` (at least :data:`RANGE_MIN_SIMS`) each, for the headline mechanism of each direction; not
          for a stated sigma.
        - ``time_budget`` (float, optional): Seconds after which the plan stops refining: searches return
          the upper end of the bracket they reached, ranges are left out, and ``precision`` says how precise
          the answers are then.

    Examples
    --------
    >>> plan = plan_probe(1.2, items=[5, 8], runs=20, gap=1.0, sizing=Sizing(sims=300))
    >>> [c["mdg"] is None for c in plan.to_dict()["cells"]]
    [True, False]
    >>> sorted({p["code"] for p in plan.to_dict()["problems"]})
    ['heterogeneity_assumed', 'never_significant']
    """
    import time

    tests, sizing = as_tests(tests), Sizing() if sizing is None else sizing
    tests.refuse("a plan", "correction", "interval", "effect_size", "n_resamples")
    alpha, seed, alternative = tests.alpha, tests.seed, tests.alternative
    power, heterogeneity, sims, scale = sizing.power, sizing.heterogeneity, sizing.sims, sizing.scale
    mechanism, mdg_range, time_budget = sizing.mechanism, sizing.mdg_range, sizing.time_budget
    pilot, a, b = (pilot.log, pilot.a, pilot.b) if isinstance(pilot, Pilot) else (pilot, None, None)
    check_common(alpha, power, sims, alternative, seed)
    if pilot is not None and heterogeneity is not None:
        raise OptionError("give either a pilot log or a stated heterogeneity, not both")
    if time_budget is not None and not (math.isfinite(float(time_budget)) and float(time_budget) > 0):
        raise OptionError(f"{opt('time_budget', time_budget)}: expected a number of seconds above 0")
    noise = as_noise(noise, metric, scale)
    if scale is None and mechanism != "rate":   # a rate named: whole numbers of 0 or more are a count, not a rating
        noise = infer_rating_scale(noise)
    chosen = choose_mechanisms(noise, mechanism)
    item_list = _int_list(items, "items")
    run_list = _int_list(runs, "runs")
    check_plan_work(item_list, run_list, sims, mechanisms=len(chosen.candidates), noise_runs=noise.n_runs,
                    ranged=mdg_range and noise._raw is not None, time_budget=time_budget)
    check_gap(gap)
    problems: list[Problem] = list(noise.problems)
    if noise.scale_source == "inferred":
        problems.append(Problem("warning", "rating_scale_inferred",
                                f"'{noise.metric}' is read as a rating on 0-100: {rating_text(noise)}; declare "
                                f"its scale with {opt('scale', 'LOW:HIGH')} if it is another (or {opt('scale', '0:')} "
                                f"or {opt('mechanism', 'rate')} for a count)", (), noise.metric))
    het = None
    if pilot is not None:
        het = heterogeneity_from_pilot(pilot, noise, metric or noise.metric, a=a, b=b)
        tau, tau_source = het.tau, "pilot"
        # what reading the pilot said (a read option that did not apply to it), once when the noise log said it too
        problems += [p for p in getattr(pilot, "problems", ()) if isinstance(p, Problem) and p not in problems]
        chosen = read_pilot(chosen, noise, het)
        if het.too_small:
            problems.append(Problem("warning", "small_pilot",
                                    f"tau comes from a pilot of only {count_of(het.n_items, 'item')}, too few to estimate "
                                    f"it: its {TAU_LEVEL:.0%} interval runs from {het.tau_low:.3g} to {het.tau_high:.3g} "
                                    f"(profile likelihood); a pilot of {het.items_needed} items or more would pin the variance "
                                    f"of item gaps within a factor of {TAU_WIDTH:g}"
                                    + ("; each design's power at the interval's ends, and at the ends of the noise "
                                       "log's interval on sigma, is printed beside its power (power_tau_range)" if gap is not None else "")
                                    + "; read the plan as a guide, or state tau with "
                                    + either("heterogeneity=TAU", "--heterogeneity TAU")))
    else:
        tau, tau_source = check_tau(heterogeneity), "assumed"
        if heterogeneity is None:
            problems.append(Problem("warning", "heterogeneity_assumed", _assumed_text(chosen)))
    never = [n for n in item_list if min_attainable_p(n, alternative=alternative) > alpha]
    if never:
        shown = ", ".join(str(n) for n in never)
        need = 1
        while min_attainable_p(need, alternative=alternative) > alpha:
            need += 1
        problems.append(Problem("warning", "never_significant",
                                f"with {shown} {'item' if never == [1] else 'items'} the smallest attainable p "
                                f"({min_attainable_p(never[-1], alternative=alternative):g}"
                                f"{' or more' if len(never) > 1 else ''}) exceeds alpha {alpha:g}: such a design "
                                f"could never reach significance, whatever the gap; use at least {count_of(need, 'item')}"))
    deadline = None if time_budget is None else time.monotonic() + float(time_budget)
    ranged = mdg_range and noise._raw is not None
    job = _Job(noise=noise, chosen=chosen, tests=tests, sizing=replace(sizing, heterogeneity=tau, sims=int(sims)),
               gap=None if gap is None else float(gap), deadline=deadline,
               replicas=coupled_models(noise, resampled_logs(noise, seed)) if ranged else [],
               range_sims=max(RANGE_MIN_SIMS, int(sims) // 10),
               range_points=None if het is None or het.tau_low is None else het.range_points)
    cells, total, late = [], len(item_list) * len(run_list), 0
    for n in item_list:
        for k in run_list:
            done = len(cells)
            if progress is not None:
                progress(done, total)
            cell, skipped = job.design(n, k, None if progress is None else
                                       (lambda share, done=done: progress(done + min(share, 0.999), total)))
            late += skipped
            cells.append(cell)
            if progress is not None:
                progress(len(cells), total)
    if noise.bounded:
        problems.append(_bounded_problem(noise, cells, gap, alpha, power))
    cells, near = _near_bound(noise, cells)
    problems.extend(near)
    precision = None
    if deadline is not None and time.monotonic() > deadline:
        precision = (f"the time budget of {float(time_budget):g} s ran out: searches after it stopped at the bracket "
                     f"they had reached (within about {job.widest:.0%} of each MDG)"
                     + (f", and {count_of(late, 'design')} {'has' if late == 1 else 'have'} no range" if late else ""))
        problems.append(Problem("warning", "time_budget", precision + "; give more time, or fewer designs or sims"))
    return Plan(noise=noise, tau=float(tau), tau_source=tau_source, alpha=float(alpha),
                target_power=float(power), gap=None if gap is None else float(gap), alternative=alternative,
                sims=int(sims), seed=seed, cells=tuple(cells), problems=tuple(problems), heterogeneity=het,
                mechanisms=chosen, mdg_range_method=RANGE_METHOD if ranged else None,
                range_sims=job.range_sims if ranged else None, precision=precision)


def _assumed_text(chosen: Mechanisms) -> str:
    """The ``heterogeneity_assumed`` warning: what tau = 0 means, and an upper bound only where it is one."""
    head = "no pilot and no stated heterogeneity: true gaps are assumed equal on every item (tau = 0), so "
    if chosen.several:
        head += ("gaps that differ between items would lower the power and raise the MDG (the headline figures are "
                 "the least promising of the ways the gap may act, so they are no bound either way)")
    else:
        head += (f"power is an upper bound and the MDG a lower bound, if the gap acts as assumed "
                 f"({chosen.candidates[0]}: the gap {chosen.words(chosen.candidates[0])})")
    return head + f"; give {opt('pilot', 'LOG')} or {either('heterogeneity=TAU', '--heterogeneity TAU')}"


@dataclass
class _Job:
    """What every design of a plan shares: the noise, the mechanisms, the test, the resampled logs, the clock."""

    noise: NoiseModel
    chosen: Mechanisms
    tests: Tests
    #: the plan's sizing, its heterogeneity the tau simulated (stated, or the pilot's)
    sizing: Sizing
    gap: float | None
    deadline: float | None
    replicas: list
    range_sims: int
    #: the (noise SD factor, tau) pairs of the pilot's and the noise log's intervals the power range is evaluated
    #: at (:func:`~probestats.analyses.plan.heterogeneity.range_points`; None: no pilot)
    range_points: tuple | None = None
    widest: float = 0.0     # the widest relative bracket a search left when the time budget ran out

    def late(self) -> bool:
        import time

        return self.deadline is not None and time.monotonic() > self.deadline

    def design(self, n: int, k: int, progress) -> tuple[PlanCell, int]:
        """One design's cell (each mechanism searched, the least promising headlined) and whether its range was
        left out for lack of time (1 or 0)."""
        noise, tests, sizing = self.noise, self.tests, self.sizing
        tau, alpha, alternative, sims, seed = sizing.tau, tests.alpha, tests.alternative, sizing.sims, tests.seed
        gsd = noise.gap_sd(k)
        mechanisms = self.chosen.candidates
        ranged = bool(self.replicas) and min_attainable_p(n, alternative=alternative) <= alpha
        main_share = 0.35 if ranged else 1.0
        found, powers = {}, {}
        for i, m in enumerate(mechanisms):
            draws = draw_probes(noise, n, k, k, sims, seed, engine_shift(m, noise))
            tick = None if progress is None else (
                lambda share, i=i: progress(main_share * (i + share) / len(mechanisms)))
            both = mdg_both_ways(draws, n, gsd, tests, sizing, tick, deadline=self.deadline)
            found[m] = (draws, both)
            if self.gap is not None:
                powers[m] = Rejections(draws, tau, alpha, alternative).rate(self.gap)
        (up, down), (m_up, m_down) = least_promising(found, tau)
        mdg = min(x for x in (up, down) if x is not None)
        p = st = se = approx = reached = m_power = tau_range = None
        if self.gap is not None:
            m_power = min(mechanisms, key=lambda m: powers[m])
            draws = found[m_power][0]
            p = powers[m_power]
            st = sign_test_rate(draws, self.gap, tau, alpha, alternative)
            se = power_se(p, sims)
            approx = approx_power(self.gap, n, gsd, tau, alpha, alternative)
            reached = realized_gap(draws, self.gap, tau, alternative)
            if self.range_points is not None:
                tau_range = _power_range(self, found, p, gsd)
        mdg_approx = None if math.isinf(mdg) else approx_mdg(n, gsd, tau, alpha, sizing.power, alternative)
        ranges, skipped = [None, None], 0
        if ranged and self.late():
            skipped = 1
        elif ranged:
            wanted = {}
            for d, (size, m) in enumerate(((up, m_up), (down, m_down))):
                if size is not None:
                    wanted.setdefault(m, [None, None])[d] = size
            for j, (m, reported) in enumerate(wanted.items()):
                got = mdg_ranges(self.replicas, n, k, k, tuple(reported), tests, sizing, engine_shift(m, noise))
                for d in (0, 1):
                    if reported[d] is not None:
                        ranges[d] = got[d]
                if progress is not None:
                    progress(main_share + (1 - main_share) * (j + 1) / len(wanted))
        if self.deadline is not None:
            for _, both in found.values():
                for size in (both.up, both.down):
                    if size is not None and math.isfinite(size) and size > 0:
                        self.widest = max(self.widest, both.width)
        by = ()
        if len(mechanisms) > 1:
            by = tuple(_mechanism_result(m, found[m], tau, powers.get(m)) for m in mechanisms)
        both_up = found[m_up][1] if m_up is not None else None
        both_down = found[m_down][1] if m_down is not None else None
        return PlanCell(n, k, p, se, st, approx, mdg, mdg_approx, float(min_attainable_p(n, alternative=alternative)),
                        reached, None if math.isinf(mdg) else mdg, mdg_up=up, mdg_down=down,
                        mdg_shift_up=None if both_up is None else both_up.up,
                        mdg_shift_down=None if both_down is None else both_down.down,
                        mdg_up_range=ranges[0], mdg_down_range=ranges[1], mechanism_up=m_up, mechanism_down=m_down,
                        mechanism_power=m_power, by_mechanism=by, power_tau_range=tau_range), skipped


#: Share of a design's simulated probes (the first ones) its power range's points are simulated on: four points at
#: the cost of two, each end within about 0.016 of its value on all the probes at the default 2,000.
POWER_RANGE_SHARE = 0.5


def extreme_points(points, gap_sd: float) -> list[tuple[float, float]]:
    """Of the (noise SD factor ``c``, tau) pairs ``points`` (:func:`~probestats.analyses.plan.heterogeneity.range_points`,
    the first two tau's ends at the log's sigma), the ones simulated for a design's power range: tau's ends at the
    log's sigma (so the range is never narrower than the pilot's alone), and the two where the variance of an item
    gap, ``c^2 gap_sd^2 + tau^2`` (``gap_sd`` the design's noise alone), is largest and smallest, where the power is
    lowest and highest if only that variance mattered (a count's gap, which grows its runs' spread, need not).

    >>> pts = [(1.0, 0.2), (1.0, 0.9), (0.9, 0.3), (0.9, 1.0), (1.1, 0.0), (1.1, 0.8)]
    >>> extreme_points(pts, 1.0)
    [(1.0, 0.2), (1.0, 0.9), (1.1, 0.8), (0.9, 0.3)]
    >>> extreme_points(pts, 0.1)
    [(1.0, 0.2), (1.0, 0.9), (0.9, 1.0), (1.1, 0.0)]
    """
    var = lambda pt: pt[0] ** 2 * gap_sd ** 2 + pt[1] ** 2  # noqa: E731
    return list(dict.fromkeys([*points[:2], max(points, key=var), min(points, key=var)]))


def _power_range(job: _Job, found: dict, p: float, gap_sd: float) -> tuple[float, float]:
    """A design's ``power_tau_range``: the power ``p`` and the power at each of :func:`extreme_points` (the least
    promising mechanism at each), simulated on the first :data:`POWER_RANGE_SHARE` of the design's probes; a noise
    SD ``c`` times the log's is the gap and tau divided by ``c`` (the sign-flip test is unchanged when every gap is
    scaled)."""
    alpha, alternative = job.tests.alpha, job.tests.alternative
    first = slice(0, max(1, int(job.sizing.sims * POWER_RANGE_SHARE)))
    at = [p] + [min(Rejections(draws.take(first), t / c, alpha, alternative).rate(job.gap / c)
                    for draws, _ in found.values()) for c, t in extreme_points(job.range_points, gap_sd)]
    return float(min(at)), float(max(at))


def _mechanism_result(m: str, found, tau: float, power: float | None) -> MechanismResult:
    draws, both = found
    up, down = reached_sizes(draws, both, tau)
    return MechanismResult(m, up, down, min(x for x in (up, down) if x is not None), power)


def _near_bound(noise: NoiseModel, cells: list) -> tuple[list, list[Problem]]:
    """The cells with ``mdg_up_near_bound`` / ``mdg_down_near_bound`` set, and the ``mdg_near_bound`` warning.

    An MDG toward a ceiling is a rise the items can make only if their rate leaves room for it; the noise
    log knows its mean only up to :func:`mean_bounds`, so an upward MDG larger than ``ceiling - upper bound``
    (a downward one larger than ``lower bound - floor``) may be a gap that does not exist."""
    bounds = mean_bounds(noise)
    if bounds is None:
        return cells, []
    low, high = bounds
    rooms = {"up": bound_room(noise, "up", low, high), "down": bound_room(noise, "down", low, high)}
    out, hits = [], {"up": [], "down": []}
    for c in cells:
        flags = {}
        for name in ("up", "down"):
            size, room = getattr(c, f"mdg_{name}"), rooms[name]
            flags[name] = bool(room is not None and size is not None and math.isfinite(size) and size > room)
            if flags[name]:
                hits[name].append((c, size))
        out.append(replace(c, mdg_up_near_bound=flags["up"], mdg_down_near_bound=flags["down"]))
    problems = []
    for name, toward, bound, edge in (("up", "ceiling", noise.ceiling, high), ("down", "floor", noise.floor, low)):
        if not hits[name]:
            continue
        designs = ", ".join(f"{c.items} x {c.runs}" for c, _ in hits[name][:6]) + (
            f" and {len(hits[name]) - 6} more" if len(hits[name]) > 6 else "")
        largest = max(size for _, size in hits[name])
        room = max(0.0, rooms[name])
        problems.append(Problem(
            "warning", "mdg_near_bound",
            f"the noise log's mean of '{noise.metric}', {float(np.mean(noise._raw)):.4g}, may be as "
            f"{'high' if name == 'up' else 'low'} as {edge:.4g} (one-sided {MEAN_BOUND_LEVEL:.0%} bound from its "
            f"{noise._cell_sizes.size} cells), which leaves room for a {'rise' if name == 'up' else 'fall'} of only "
            f"{room:.3g} to the {toward} {bound:g}: the {name}ward MDG of {count_of(len(hits[name]), 'design')} "
            f"({designs}; up to {largest:.3g}) lies within the log's uncertainty of the {toward}, so a gap that "
            "large may not exist and it is not promised (mdg_" + name + "_near_bound); a noise log of 4 times the "
            "runs halves the bound's distance from the mean", (), noise.metric))
    return out, problems


def _bounded_problem(noise: NoiseModel, cells, gap, alpha, power) -> Problem:
    """The ``bounded_metric`` warning: what a gap means near a floor or ceiling, and where it bit."""
    ends = []
    for name, value in (("floor", noise.floor), ("ceiling", noise.ceiling)):
        if value is None:
            continue
        if noise.scale_source == "observed":
            share = float(np.mean(noise._raw == value))
            ends.append(f"a {name} at {value:g} ({share:.0%} of the noise log's runs sit on it)")
        else:
            ends.append(f"a {name} at {value:g} (declared)")
    text = (f"'{noise.metric}' has {' and '.join(ends)}: simulated runs never cross "
            f"{'them' if len(ends) > 1 else 'it'}, so a gap is a shift of "
            "each item's mean of value a that stops at the bound, and power and the MDG account for it")
    if gap is not None:
        short = [c for c in cells if c.gap_realized is not None and abs(c.gap_realized) < 0.99 * abs(gap)]
        if short:
            low = min(abs(c.gap_realized) for c in short)
            text += (f"; at the gap {gap:g} the items' means reach the bound and move by only {low:.3g} on "
                     f"average in {count_of(len(short), 'design')} (column 'reached', gap_realized)")
    stuck = [c for c in cells if math.isinf(c.mdg) and c.min_attainable_p <= alpha]
    if stuck:
        text += (f"; {count_of(len(stuck), 'design')} never {'reaches' if len(stuck) == 1 else 'reach'} power "
                 f"{power:g} because the items reach the bound "
                 "first (MDG 'never')")
    text += (f"; declare the scale with {opt('scale', 'LOW:HIGH')} if it is wider ({opt('scale', ':')} for none)"
             if noise.scale_source == "observed" else "")
    return Problem("warning", "bounded_metric", text, (), noise.metric)



@dataclass(frozen=True)
class DesignPower:
    """Power against runs per value around the design actually run, for a report's power plot.

    Simulated here, in the analysis step, so that rendering a report only draws it.

    Attributes
    ----------
    plan : Plan
        The simulated grid (``plan.gap`` is the gap shown).
    gap : float
        The true average gap the power is simulated at (three significant digits).
    why : str
        Where that gap comes from (the design's gap of interest, the MDG, or the observed gap).
    sims, seed : int
        Simulated probes per point, and the seed.
    """

    plan: Plan
    gap: float
    why: str
    sims: int
    seed: int

    def to_dict(self) -> dict:
        return {"gap": self.gap, "why": self.why, "sims": self.sims, "seed": self.seed,
                "sigma_run": finite_or_none(self.plan.noise.sigma_run),
                "cells": [c.to_dict() for c in self.plan.cells]}


def design_power(analysis, gap_of_interest: float | None = None, *, sims: int = 300,
                 seed: int = 0) -> DesignPower | None:
    """Simulate the power curve a report shows for a paired analysis with a same-versus-same log.

    The gap is ``gap_of_interest`` when given, else the analysis's minimum detectable gap,
    else the size of the observed average gap (for orientation only). Item counts around the
    design run (n, at least 6, n + 4, 2n) and runs per value 1, 2, 5, 10, 20 and the runs
    actually made. None when there is no noise log, no gap to show, or no noise per run.

    Examples
    --------
    >>> from probestats.analyses.paired import analyze_pair
    >>> from probestats.analyses.question import Question, Run
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "a") + (s + i) % 3}
    ...         for i in range(8) for v in ("a", "b") for s in range(4)]
    >>> noise = [dict(r, variant="b" if r["variant"] == "a" else "c") for r in rows]
    >>> power = design_power(analyze_pair(rows, Question("steps", noise=noise), run=Run(mdg=False)), 1.0, sims=50)
    >>> power.gap, sorted({c.items for c in power.plan.cells})
    (1.0, [8, 12, 16])
    """
    noise_checked = getattr(analysis, "noise_checked", None)
    if noise_checked is None:
        return None
    main = analysis.main
    if gap_of_interest:
        gap, why = gap_of_interest, "the gap of interest stated in the design"
    elif analysis.mdg is not None:
        gap, why = analysis.mdg, "the minimum detectable gap of the design run"
    elif main.average_gap:
        gap, why = abs(main.average_gap), "the size of the observed average gap, for orientation only"
    else:
        return None
    gap = float(f"{abs(gap):.3g}")  # the figure's title and the caption show the same number
    model = noise_model(noise_checked.frame, metric=main.metric)
    if not (model.sigma_run > 0):
        return None
    runs_a, _ = main.runs_per_value()
    n = main.n_items
    items = sorted({n, max(6, n), n + 4, 2 * n} - {0})[:4]
    runs = sorted({1, 2, 5, 10, 20, max(1, runs_a)})
    plan = plan_probe(model, items=items, runs=runs, gap=gap, metric=main.metric,
                      tests=Tests(alpha=analysis.alpha, seed=seed, alternative=analysis.alternative),
                      sizing=Sizing(sims=sims, mdg_range=False))
    return DesignPower(plan=plan, gap=gap, why=why, sims=sims, seed=seed)


def with_design_power(analysis, gap_of_interest: float | None = None, **kwargs):
    """The analysis with its report power curve attached (``analysis.power``); other results unchanged."""
    if not hasattr(analysis, "noise_checked"):
        return analysis
    return replace(analysis, power=design_power(analysis, gap_of_interest, **kwargs))
