"""The minimum detectable gap of one design, searched over common random numbers, and the power of a design.

:func:`search_mdg` finds the smallest gap whose simulated power reaches the target (bracketing from the
paired t approximation, then narrowing; each step recomputes only the probes the bracket leaves open);
:func:`power_sign_flip` solves for whichever of gap, items, runs and power is left out.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from probestats.analyses.plan.mechanisms import choose_mechanisms, engine_shift, infer_rating_scale
from probestats.analyses.plan.noise import VALUE_LIMIT, NoiseModel, as_noise, finite_or_none, fmt_scale
from probestats.analyses.plan.sizing import Sizing
from probestats.analyses.plan.simulate import (MAX_DOUBLINGS, Draws, Rejections, approx_mdg, approx_power,
                                               direction_of, draw_probes, reject_rate, runs_array, sign_test_rate)
from probestats.errors import OptionError, count_of
from probestats.result import html_summary, one_line
from probestats.stats.distributions import norm_pdf, norm_ppf, t_ppf
from probestats.stats.hypotests import min_attainable_p
from probestats.vocabulary import Tests, as_tests, check_alpha, check_seed

__all__ = ["PowerResult", "power_sign_flip", "mdg_for_design", "search_mdg", "mdg_both_ways", "BothWays",
           "reached_sizes", "realized_toward", "realized_gap", "check_common", "check_tau", "check_gap", "power_se",
           "mdg_sim_error", "normal_mdg", "least_promising"]


def mdg_sim_error(sims: int, alpha: float, target: float, alternative: str) -> float:
    """The simulation error (standard error) of an MDG found on ``sims`` simulated probes, relative to the MDG.

    The power found at a gap is a share of ``sims`` probes, so it errs by ``sqrt(target (1 - target) / sims)``;
    the MDG errs by that over the power curve's slope there. Taking the power curve as a normal test's,
    ``Phi(delta / se - z_alpha)``, its slope at the target is ``phi(z_target) (z_alpha + z_target) / MDG``
    (``z_alpha`` the critical value of the test, one- or two-sided). An approximation: at 300 probes and power
    0.8 it gives 0.029; the spread measured between plans of one 0/1 or count noise log at 300 and at 3,000
    probes was 0.020 to 0.035.

    >>> round(mdg_sim_error(300, 0.05, 0.8, "two-sided"), 4)
    0.0294
    """
    crit = -norm_ppf(alpha / 2 if alternative == "two-sided" else alpha)
    z = norm_ppf(target)
    return math.sqrt(target * (1 - target) / sims) / (norm_pdf(z) * (crit + z))


#: The MDG search stops when its bracket is narrower than this share of the MDG's own simulation error
#: (:func:`mdg_sim_error`), and at most :data:`SEARCH_REL_TOL` of the MDG: narrower would only place the MDG more
#: exactly on this draw of simulated probes, not on the truth.
SEARCH_SHARE_OF_ERROR = 0.1
SEARCH_REL_TOL = 1e-3


def _probit(r: float, sims: int) -> float:
    """The normal quantile of a simulated power, kept off 0 and 1 by half a probe."""
    half = 0.5 / sims
    return norm_ppf(min(max(r, half), 1.0 - half))


def search_mdg(rejections: Rejections, items: int, gap_sd: float, tests: Tests, sizing: Sizing, *,
               rel_tol: float | None = None, tick: Callable[[], None] | None = None, guess: float | None = None,
               deadline: float | None = None) -> float:
    """Smallest gap whose simulated power reaches ``sizing.power``, searched over common random numbers (the test's
    level and direction from ``tests``, the spread of true gaps ``sizing.tau``).

    The search starts at ``guess`` (by default the normal approximation of the paired t test's MDG), steps to
    where a normal power curve through the power found there reaches the target, and narrows the bracket by
    false position on the probits of the powers (nearly straight in the gap), until it is narrower than
    ``rel_tol`` of the MDG (by default :data:`SEARCH_SHARE_OF_ERROR` of the MDG's simulation error, at most
    :data:`SEARCH_REL_TOL`). Each step decides again only the probes whose decision the bracket leaves open.
    ``tick``, when given, is called after each power evaluation (a progress hook); past ``deadline`` (a
    ``time.monotonic()`` value) the search returns the upper end of its bracket as it stands."""
    import time

    alpha, alternative, target, tau = tests.alpha, tests.alternative, sizing.power, sizing.tau
    if min_attainable_p(items, alternative=alternative) > alpha:
        return math.inf
    sims = rejections.draws.base.shape[0]
    if rel_tol is None:
        rel_tol = max(SEARCH_REL_TOL, SEARCH_SHARE_OF_ERROR * mdg_sim_error(sims, alpha, target, alternative))
    goal = _probit(target, sims)

    def rate(delta: float) -> float:
        out = rejections.rate(delta)
        if tick is not None:
            tick()
        return out

    spread = math.sqrt(gap_sd ** 2 + tau ** 2)
    if guess is None or not math.isfinite(guess) or guess <= 0:
        guess = normal_mdg(items, spread, alpha, target, alternative) or spread or 1.0
    cap = getattr(rejections, "saturation", math.inf)
    lo = hi = None            # (gap, probit of its power) below and at or above the target
    x, r = min(guess, cap), None
    for _ in range(MAX_DOUBLINGS + 4):
        r = rate(x)
        point = (x, _probit(r, sims))
        if r >= target:
            hi = point
        else:
            lo = point
            if x >= cap:      # every item already at the bound: power cannot rise further
                return math.inf
        if lo is not None and hi is not None:
            break
        # a normal power curve through this point: the gap where it reaches the target, within a factor 2
        y = point[1]
        ratio = (goal + _z_alpha(alpha, alternative)) / max(y + _z_alpha(alpha, alternative), 0.25)
        ratio = min(max(ratio, 0.5), 2.0) if math.isfinite(ratio) else 2.0
        if hi is not None and ratio >= 1.0:
            ratio = 0.85
        if lo is not None and ratio <= 1.0:
            ratio = 1.15
        x = min(x * ratio, cap)
        if lo is not None and x <= lo[0]:
            return math.inf
    else:
        return math.inf
    # false position on the probits (Illinois: when one end moves twice running, the other's value is halved)
    flo, fhi, last = lo[1] - goal, hi[1] - goal, None
    for _ in range(200):
        width = hi[0] - lo[0]
        if width <= rel_tol * hi[0] or (deadline is not None and time.monotonic() > deadline):
            break
        mid = lo[0] + width * (-flo) / (fhi - flo) if fhi > flo else lo[0] + 0.5 * width
        mid = min(max(mid, lo[0] + 0.05 * width), hi[0] - 0.05 * width)
        r = rate(mid)
        f = _probit(r, sims) - goal
        if r >= target:
            hi, fhi = (mid, f), max(f, 0.0)
            if last == "hi":
                flo /= 2
            last = "hi"
        else:
            lo, flo = (mid, f), min(f, -1e-12)
            if last == "lo":
                fhi /= 2
            last = "lo"
    rejections.width = (hi[0] - lo[0]) / hi[0] if hi[0] > 0 else 0.0
    return float(hi[0])


def _z_alpha(alpha: float, alternative: str) -> float:
    return -norm_ppf(alpha / 2 if alternative == "two-sided" else alpha)


def normal_mdg(items: int, spread: float, alpha: float, target: float, alternative: str) -> float | None:
    """The MDG of a normal test of the item gaps' mean with Student's critical value: a first guess, in closed form.

    ``(t_crit + z_target) spread / sqrt(items)``, ``t_crit`` Student's on ``items - 1`` degrees of freedom.

    >>> round(normal_mdg(8, 1.0, 0.05, 0.8, "two-sided"), 4)    # (2.3646 + 0.8416) / sqrt(8)
    1.1336
    """
    if items < 2 or not spread > 0:
        return None
    q = 1 - alpha / 2 if alternative == "two-sided" else 1 - alpha
    return (t_ppf(items - 1, q) + norm_ppf(target)) * spread / math.sqrt(items)


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
    width: float = 0.0      # the widest relative bracket a search ended on (larger than asked past a deadline)

    @property
    def mdg(self) -> float:
        return min(x for x in (self.up, self.down) if x is not None)


def mdg_both_ways(draws: Draws, items: int, gap_sd: float, tests: Tests, sizing: Sizing,
                  progress: Callable[[float], None] | None = None, *, starts: dict | None = None,
                  deadline: float | None = None, rel_tol: float | None = None) -> BothWays:
    """The MDG in each direction the test can see (for a two-sided test both, on the same draws).

    ``progress``, when given, is called with the share of the search done so far (an estimate
    that only grows: a search takes about half a dozen power evaluations per direction). ``starts`` maps the
    directions to search (1.0 up, -1.0 down; the others come back None) to where each search starts (None: the
    normal approximation); without it every direction the test sees is searched from there. ``deadline`` and
    ``rel_tol`` are passed to :func:`search_mdg`."""
    found = {}
    signs = tuple(s for s in _directions(tests.alternative) if starts is None or s in starts)
    for i, sign in enumerate(signs):
        rej = Rejections(draws, sizing.tau, tests.alpha, tests.alternative, direction=sign)
        calls = [0]

        def tick(i=i, calls=calls):
            calls[0] += 1
            progress((i + 1 - 0.7 ** calls[0]) / len(signs))

        start = None if starts is None else starts[sign]
        found[sign] = (search_mdg(rej, items, gap_sd, tests, sizing, tick=None if progress is None else tick,
                                  guess=start, deadline=deadline, rel_tol=rel_tol), rej)
    sign = min(found, key=lambda s: (found[s][0], -s))
    width = max(getattr(rej, "width", 0.0) for _, rej in found.values())
    return BothWays(up=found[1.0][0] if 1.0 in found else None, down=found[-1.0][0] if -1.0 in found else None,
                    sign=sign, rejections=found[sign][1], width=width)


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
    mechanism : {"level", "rate", "scale"}
        How the gap was taken to act (with ``mechanism="auto"`` and several plausible ways, the least
        promising; the note names the others and their answers).
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
    mechanism: str = "level"

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
            "mechanism": self.mechanism,
        }


def power_se(p: float, sims: int) -> float:
    return math.sqrt(max(0.0, p * (1.0 - p)) / sims)


def _power_at(noise, gap, items, runs, tests: Tests, sizing: Sizing, shift="additive"):
    alpha, alternative, tau = tests.alpha, tests.alternative, sizing.tau
    draws = draw_probes(noise, items, runs, runs, sizing.sims, tests.seed, shift)
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
                    power: float | None = None, *, noise, metric: str | None = None, tests: Tests | None = None,
                    sizing: Sizing | None = None) -> PowerResult:
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
    tests : Tests, optional
        The test's level (``alpha``) and direction (``alternative``), and the ``seed`` of the simulated probes
        (:class:`probestats.Tests`; the same seed gives the same answer). A correction, an interval, an effect
        size or resamples are refused.
    sizing : Sizing, optional
        The rest of the question (:class:`~probestats.analyses.plan.Sizing`): ``heterogeneity`` (tau, the
        spread of true gaps between items; None means 0, in which case the power is an upper bound where one
        mechanism is simulated, as the note says), ``sims`` (simulated probes per design), ``scale`` (the metric's
        declared scale, see :func:`noise_model`: for a metric with a floor or ceiling, ``gap`` shifts each item's
        mean of value a and stops at the bound; ``gap_realized`` says how far the items really moved),
        ``mechanism`` (how a gap acts on value a's runs, see :mod:`probestats.analyses.plan.mechanisms`: the
        level shifts, a count's or a 0/1 rate changes, or the mean is multiplied; ``"auto"`` keeps those the
        noise log leaves plausible and answers with the least promising, naming it in ``mechanism`` and the
        others in ``note``) and ``max_items``, ``max_runs`` (the largest counts searched). The target power is
        ``power`` here, not ``sizing.power``.

    Examples
    --------
    The tutorial's setting: noise about 1.2 steps per run at temperature 0.8, a planted
    gap of 1 step, 8 items.

    >>> r = power_sign_flip(gap=1.0, items=8, runs=20, noise=1.2, sizing=Sizing(sims=400))
    >>> r.power > 0.9
    True
    >>> power_sign_flip(gap=None, items=5, runs=20, power=0.8, noise=1.2).to_dict()["gap"] is None
    True
    """
    tests, sizing = as_tests(tests), Sizing() if sizing is None else sizing
    tests.refuse("a power calculation", "correction", "interval", "effect_size", "n_resamples")
    if sizing.power != Sizing.power and sizing.power != power:
        raise OptionError(f"power_sign_flip reads the target power from power= (None: power is solved for), not "
                          f"from sizing.power={sizing.power}: leave sizing.power out")
    heterogeneity, scale = sizing.heterogeneity, sizing.scale
    check_common(tests.alpha, power, sizing.sims, tests.alternative, tests.seed)
    tau = check_tau(heterogeneity)
    noise = as_noise(noise, metric, scale)
    if scale is None:
        noise = infer_rating_scale(noise)
    missing = [n for n, v in (("gap", gap), ("items", items), ("runs", runs), ("power", power)) if v is None]
    if len(missing) != 1:
        raise OptionError("leave exactly one of gap, items, runs and power as None: the one to solve for "
                          f"(now {', '.join(missing) or 'none'})")
    solve = missing[0]
    for name, v in (("items", items), ("runs", runs)):
        if v is not None and (int(v) != v or v < 1):
            raise OptionError(f"{name} must be a whole number of 1 or more, not {v}")
    check_gap(gap)
    sizing = replace(sizing, power=power, heterogeneity=tau)
    chosen = choose_mechanisms(noise, sizing.mechanism)
    if heterogeneity is None and not chosen.several:
        bound = (" Heterogeneity was taken as 0, so this power is an upper bound (if the gap acts as assumed)."
                 if solve == "power" else
                 f" Heterogeneity was taken as 0, so the true {solve} needed may be larger (this "
                 f"{'gap' if solve == 'gap' else 'count'} is a lower bound, if the gap acts as assumed).")
    elif heterogeneity is None:
        bound = (" Heterogeneity was taken as 0: true gaps that differ between items would lower the power and "
                 "raise the gap, items or runs needed.")
    else:
        bound = ""
    bound += _bound_note(noise)
    found = [(m, _solve(solve, gap, items, runs, noise, tests, sizing, engine_shift(m, noise), bound))
             for m in chosen.candidates]
    worst, result = max(found, key=lambda mr: _promise(solve, mr[1]))
    note = result.note
    if chosen.several:
        others = "; ".join(f"{m}: {_answer(solve, r)}" for m, r in found if m != worst)
        note += (f" How the gap acts: the least promising of {', '.join(chosen.candidates)} ({chosen.reason}), "
                 f"here {worst} (the gap {chosen.words(worst)}); {others}.")
    else:
        note += f" How the gap acts: {worst} ({chosen.reason})."
    return replace(result, mechanism=worst, note=note)


def _promise(solve: str, r: PowerResult) -> float:
    """How little a result promises (larger: less): a lower power, a larger gap, more items or runs."""
    if solve == "power":
        return -(r.power if r.power is not None else 0.0)
    value = {"gap": r.gap, "items": r.items, "runs": r.runs}[solve]
    return math.inf if value is None else float(value)


def _answer(solve: str, r: PowerResult) -> str:
    value = {"power": r.power, "gap": r.gap, "items": r.items, "runs": r.runs}[solve]
    return "never" if value is None or (isinstance(value, float) and math.isinf(value)) else f"{solve} {value:.4g}"


def _solve(solve, gap, items, runs, noise, tests: Tests, sizing: Sizing, shift, bound) -> PowerResult:
    """:func:`power_sign_flip` for one way the gap acts (``shift``, the simulation's name for it); ``sizing`` holds
    the target power (None when solving for power) and tau as checked."""
    alpha, alternative, seed = tests.alpha, tests.alternative, tests.seed
    power, tau, sims, max_items, max_runs = sizing.power, sizing.tau, sizing.sims, sizing.max_items, sizing.max_runs
    common = dict(sigma_run=noise.sigma_run, tau=tau, alpha=float(alpha), alternative=alternative, sims=int(sims),
                  seed=seed)
    if solve == "power":
        items, runs = int(items), int(runs)
        p, st, approx, real = _power_at(noise, float(gap), items, runs, tests, sizing, shift)
        return PowerResult("power", float(gap), items, runs, p, power_se(p, sims), st, approx, None,
                           min_attainable_p(items, alternative=alternative), **common,
                           note=f"power of the exact sign-flip test at alpha {alpha}.{bound}", gap_realized=real)
    if solve == "gap":
        items, runs = int(items), int(runs)
        draws = draw_probes(noise, items, runs, runs, sims, seed, shift)
        both = mdg_both_ways(draws, items, noise.gap_sd(runs), tests, sizing)
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
    p, st, approx, real = _power_at(noise, gap, items, runs, tests, sizing, shift)
    return PowerResult(solve, gap, items, runs, p, power_se(p, sims), st, approx, float(power),
                       min_attainable_p(items, alternative=alternative), **common, note=note, gap_realized=real)


def design_search(noise_model, items, runs_a, runs_b, tests: Tests, sizing: Sizing):
    """The simulated probes of a design and its MDG searched both ways, for each mechanism the noise log leaves
    plausible (the common start of :func:`mdg_for_design` and
    :func:`~probestats.analyses.plan.ranges.design_mdg`): ``noise, items, ka, kb, tau`` and per mechanism
    ``(draws, both)``."""
    check_common(tests.alpha, sizing.power, sizing.sims, tests.alternative, tests.seed)
    tau = check_tau(sizing.heterogeneity)
    noise = as_noise(noise_model, None, sizing.scale)
    noise = infer_rating_scale(noise) if sizing.scale is None else noise
    items = int(items)
    ka, kb = runs_array(runs_a, items, "runs_a"), runs_array(runs_b, items, "runs_b")
    gap_sd = noise.sigma_run * math.sqrt(float(np.mean(1.0 / ka + 1.0 / kb)))
    found, run = {}, replace(sizing, heterogeneity=tau)
    for m in choose_mechanisms(noise, sizing.mechanism).candidates:
        draws = draw_probes(noise, items, ka, kb, sizing.sims, tests.seed, engine_shift(m, noise))
        found[m] = (draws, mdg_both_ways(draws, items, gap_sd, tests, run))
    return noise, items, ka, kb, tau, found


def least_promising(found: dict, tau: float) -> tuple[tuple, tuple]:
    """Per direction, the largest MDG over the mechanisms in ``found`` (``{mechanism: (draws, both)}``) as the
    average gap the items make, and the mechanism giving it: ``((up, down), (mechanism_up, mechanism_down))``."""
    sizes = {m: reached_sizes(d, b, tau) for m, (d, b) in found.items()}
    out, which = [], []
    for i in (0, 1):
        values = [(sizes[m][i], m) for m in found if sizes[m][i] is not None]
        if not values:
            out.append(None)
            which.append(None)
            continue
        size, m = max(values, key=lambda v: v[0])
        out.append(size)
        which.append(m)
    return tuple(out), tuple(which)


def mdg_for_design(noise_model, items: int, runs_a, runs_b, *, tests: Tests | None = None,
                   sizing: Sizing | None = None) -> float | None:
    """Minimum detectable gap of the design actually run (for a null result's paragraph).

    ``runs_a`` and ``runs_b`` are the runs per value: one number, or one per item when
    items had different numbers of runs. ``tests`` holds the test's level, direction and the simulation's seed;
    ``sizing`` (:class:`~probestats.analyses.plan.Sizing`) the target power, tau, the mechanism and the simulated
    probes. Returns None when the design could never reach
    significance (smallest attainable p above alpha). With several plausible mechanisms
    (``mechanism="auto"``) each direction's MDG is the largest of theirs.

    Examples
    --------
    >>> mdg_for_design(NoiseModel.stated(1.2), 5, 20, 20) is None   # 2/32 > 0.05
    True
    >>> 0.3 < mdg_for_design(NoiseModel.stated(1.2), 8, 20, 20, sizing=Sizing(sims=500)) < 0.8
    True
    """
    tests, sizing = as_tests(tests), Sizing() if sizing is None else sizing
    noise, items, ka, kb, tau, found = design_search(noise_model, items, runs_a, runs_b, tests, sizing)
    (up, down), _ = least_promising(found, tau)
    return finite_or_none(min(x for x in (up, down) if x is not None))
