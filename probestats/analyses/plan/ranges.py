"""The MDG's range over plausible noise logs of the same size, and the room a bound leaves for a gap."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from probestats.analyses.plan.noise import NoiseModel, finite_or_none, simulation_pool
from probestats.analyses.plan.mechanisms import engine_shift
from probestats.analyses.plan.search import (design_search, least_promising, mdg_both_ways, mdg_sim_error,
                                             reached_sizes, realized_toward)
from probestats.analyses.plan.simulate import Draws, draw_probes, runs_array
from probestats.analyses.plan.sizing import Sizing
from probestats.stats.distributions import t_ppf
from probestats.stats.hypotests import min_attainable_p
from probestats.vocabulary import Tests, as_tests

__all__ = ["RANGE_METHOD", "RANGE_REPLICATES", "RANGE_SPREADS", "RANGE_MIN_SIMS", "RANGE_MAX_WORK", "RANGE_MIN_CELLS",
           "MEAN_BOUND_LEVEL", "resampled_noise", "mdg_sim_error", "mdg_ranges", "mdg_with_range", "DesignMDG",
           "design_mdg", "design_mdg_later", "resampled_logs", "coupled_models", "mean_bounds", "room_left", "bound_room"]


#: Resampled noise logs behind an MDG's range (the spread of the MDG over them is estimated from this many).
RANGE_REPLICATES = 19
#: The range's half-width in spreads: the reported MDG times exp(+/- RANGE_SPREADS s), s the spread of log MDG
#: (see :func:`mdg_ranges`). A normal spread's 95% would be 2.1 (Student, 18 degrees of freedom), but on noise
#: logs of 200 runs the resampled logs' MDGs spread 1.5 to 1.7 times less than the MDGs of independent noise
#: logs do (measured on 0/1 logs at 0.9 and Gamma-rate counts; ``benchmarks/mdg_range_coverage.py``), so the
#: range is widened to hold the true noise model's MDG about 9 times in 10 or more.
RANGE_SPREADS = 3.5
#: Simulated probes per resampled log and design (common to all logs, so their MDGs differ by the log, not
#: the draw): a tenth of the plan's, at least this many.
RANGE_MIN_SIMS = 100
#: Simulated run values (replicates x sims x items x runs of both values) up to which a design run's MDG gets
#: its range in an analysis or report; a larger design (thousands of items) is reported without it.
RANGE_MAX_WORK = 200_000_000
#: Relative width to which the MDG of each resampled log (and the log's own, on the same probes) is searched: their
#: spread, which sets the range, is some 5 to 30%, so a 1% search error moves it by little.
RANGE_REL_TOL = 0.01
#: Cells a noise log needs for its cells to be resampled; with fewer, runs are resampled within each cell.
RANGE_MIN_CELLS = 5
RANGE_METHOD = ("a range meant to hold the MDG of the true noise model at least 9 times in 10: the MDG is found on "
                f"{RANGE_REPLICATES} resampled noise logs of the same size (its cells drawn with "
                "replacement, each with its runs; runs within cells when it has fewer than "
                f"{RANGE_MIN_CELLS} cells), the noise model re-estimated from each, on simulated probes common "
                "to all logs (each log's cells in order of their means, so the same draws pick matching ranks), "
                "relative to the noise log's own on the same probes; the range is the reported MDG times "
                f"exp(+/- {RANGE_SPREADS:g} s), s combining the spread of log MDG over the resampled logs with the "
                "reported MDG's own simulation error (its power curve taken as normal: about 0.51 / "
                "sqrt(simulated probes) of the MDG at power 0.8), widened beyond a normal 95% (2.1 s) because "
                "resampling a small noise log understates how much the MDG varies between logs; open above "
                "(never) when a resampled log reaches no "
                "MDG, never beyond the metric's bounds. The noise log's part narrows as 1 / sqrt(runs), so a "
                "noise log of 4 times the runs halves it; the simulation's part shrinks as 1 / sqrt(simulated "
                "probes), the plan's and per resampled log")


def resampled_noise(noise: NoiseModel, rng: np.random.Generator) -> NoiseModel:
    """A plausible noise log of the same size as ``noise``'s, its noise model re-estimated.

    Cells are drawn with replacement, each with its runs (the log's items and their runs); a log of fewer
    than :data:`RANGE_MIN_CELLS` cells has its runs drawn with replacement within each cell instead. The
    bounds stay the model's (a property of the metric, not of the sample).

    >>> from probestats.analyses.plan.noise import noise_model
    >>> rows = [{"item": i, "x": float(y)} for i in range(6) for y in (i, i + 1, i + 3)]
    >>> m = noise_model(rows, metric="x", scale=":")
    >>> r = resampled_noise(m, np.random.default_rng(0))
    >>> r.n_runs == m.n_runs, math.isclose(r.sigma_run, m.sigma_run)   # every cell spreads alike here
    (True, True)
    """
    sizes0, starts0 = noise._cell_sizes, np.concatenate([[0], np.cumsum(noise._cell_sizes)[:-1]])
    cells = sizes0.size
    if cells >= RANGE_MIN_CELLS:
        pick = rng.integers(0, cells, cells)
        sizes = sizes0[pick]
        offs = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        y = noise._raw[np.repeat(starts0[pick], sizes) + offs]
    else:
        sizes = sizes0
        y = noise._raw[np.repeat(starts0, sizes) + np.floor(rng.random(int(sizes.sum()))
                                                          * np.repeat(sizes, sizes)).astype(np.int64)]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    means = np.add.reduceat(y, starts) / sizes
    resid = y - np.repeat(means, sizes)
    dof = int((sizes - 1).sum())
    sigma = math.sqrt(max(0.0, float(resid @ resid) / dof))
    pool = simulation_pool(y, means, sizes, sigma, noise.floor, noise.ceiling, noise.integer)
    return replace(noise, sigma_run=sigma, minimum=float(y.min()), maximum=float(y.max()), problems=(),
                   _raw=y, _means=means, _cell_sizes=sizes, **pool)


def _coupled(noise: NoiseModel) -> NoiseModel:
    """The same noise model with its cells in order of their means, each cell's runs and the whole log sorted.

    The simulated probes are the same in law; only which uniform draw picks which run changes. Two such
    models of logs with as many cells (a noise log and a resampled one) then turn the same draws into
    matching quantiles (the j-th lowest cell, a run at the same rank), so their MDGs differ by the logs, not
    by the draw, and a few hundred simulated probes tell them apart.
    """
    if noise._raw is None:
        return noise
    sizes = noise._cell_sizes
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    order = np.argsort(noise._means, kind="stable")
    y = np.concatenate([np.sort(noise._raw[starts[c]:starts[c] + sizes[c]]) for c in order])
    pool = simulation_pool(y, noise._means[order], sizes[order], noise.sigma_run, noise.floor, noise.ceiling, noise.integer)
    values = pool["_values"]
    if values.size > y.size:      # the whole log, the last simulation cell, sorted as well
        values = np.concatenate([values[:y.size], np.sort(values[y.size:])])
        pool["_values"] = values
    return replace(noise, _raw=y, _means=noise._means[order], _cell_sizes=sizes[order], **pool)


def coupled_models(noise: NoiseModel, replicas) -> list[NoiseModel]:
    """The noise log's model and its resampled logs', each with its cells in order of their means
    (:func:`_coupled`): the models the range's searches run on, the log's own first."""
    return [_coupled(noise), *(_coupled(r) for r in replicas)]


def _room(draws: Draws, tau: float, sign: float) -> float:
    """The largest average gap the simulated items can make in direction ``sign`` (inf: no bound)."""
    cap = draws.saturation(sign, tau)
    return math.inf if math.isinf(cap) else abs(realized_toward(draws, cap, tau, sign))


def _range_of(size: float, base: float, others: list[float], room: float, sim_error: float) -> tuple[float, float]:
    """One direction's range: ``size`` (the reported MDG) times exp(+/- RANGE_SPREADS s) (see :data:`RANGE_METHOD`).

    ``others`` are the resampled logs' MDGs and ``base`` the noise log's own on the same probes; ``room`` the
    largest gap the items can make."""
    logs = [math.log(x / base) for x in others if math.isfinite(x) and x > 0]
    open_above = len(logs) < len(others)
    if len(logs) >= 2:
        spread = float(np.std(logs, ddof=1))
        half = RANGE_SPREADS * math.hypot(spread, sim_error)
        low = size * math.exp(-half)
        high = math.inf if open_above else size * math.exp(half)
    else:   # (nearly) no resampled log reaches an MDG: the lowest that does, up to never
        low = size * min([1.0, *(math.exp(x) for x in logs)]) * math.exp(-2.0 * sim_error)
        high = math.inf
    return min(low, size, room), min(max(high, size), room) if math.isfinite(high) else math.inf


def mdg_ranges(models, items: int, runs_a, runs_b, reported, tests: Tests, sizing: Sizing, shift: str):
    """The range of the MDG in each direction over resampled noise logs (see RANGE_METHOD).

    ``models`` are the noise log's model and its resampled logs', as :func:`coupled_models` gives them (the
    log's own first; a plan builds them once for all its designs). ``reported`` is ``(up, down)``, the MDG found
    on the plan's own simulation of ``sizing.sims`` probes; each resampled log is simulated on a tenth of them (at
    least :data:`RANGE_MIN_SIMS`), from the seeds ``[tests.seed, 1]``, with tau ``sizing.tau``. Returns
    ``(up_range, down_range)``, each ``(low, high)`` or None (a direction not searched or unreachable); ``high``
    is inf when a resampled log reaches no MDG, and never beyond the metric's bounds.
    """
    ka = runs_array(runs_a, items, "runs_a")
    kb = runs_array(runs_b, items, "runs_b")
    tau, seed = sizing.tau, None if tests.seed is None else [tests.seed, 1]
    sims = max(RANGE_MIN_SIMS, int(sizing.sims) // 10)
    sim_error = mdg_sim_error(int(sizing.sims), tests.alpha, sizing.power, tests.alternative)
    signs = tuple(s for s, size in zip((1.0, -1.0), reported) if size is not None)
    found, start = [], None
    for model in models:
        draws = draw_probes(model, items, ka, kb, sims, seed, shift)
        gap_sd = model.sigma_run * math.sqrt(float(np.mean(1.0 / ka + 1.0 / kb)))
        starts = {sign: None for sign in signs}
        if start is not None:   # each resampled log's search starts at the log's own MDG, scaled by the sigmas
            ratio = model.sigma_run / found[0][2] if found[0][2] > 0 else 1.0
            starts = {sign: None if start[sign] is None or not math.isfinite(start[sign]) else start[sign] * ratio
                      for sign in signs}
        both = mdg_both_ways(draws, items, gap_sd, tests, sizing, starts=starts, rel_tol=RANGE_REL_TOL)
        if start is None:
            start = {1.0: both.up, -1.0: both.down}
        found.append((reached_sizes(draws, both, tau), draws, model.sigma_run))
    found = [(r, d) for r, d, _ in found]
    (own, own_draws), out = found[0], []
    for d, (size, sign) in enumerate(zip(reported, (1.0, -1.0))):
        base = own[d]
        if size is None:
            out.append(None)
            continue
        others = [math.inf if r[d] is None else r[d] for r, _ in found[1:]]
        if math.isinf(size) or base is None or math.isinf(base) or base <= 0:
            # no MDG on this log (the bound comes first): the plausible logs' own MDGs, up to never
            finite = [x for x in others if math.isfinite(x)]
            out.append((min(finite), math.inf) if finite else None)
            continue
        out.append(_range_of(size, base, others, _room(own_draws, tau, sign), sim_error))
    return out[0], out[1]


def mdg_with_range(noise_model, items: int, runs_a, runs_b, *, tests: Tests | None = None,
                   sizing: Sizing | None = None):
    """The MDG of the design actually run, as :func:`mdg_for_design` finds it, and its range over plausible
    noise logs of the same size (:data:`RANGE_METHOD`; None for a stated sigma, a design that could never
    reach significance, or one beyond :data:`RANGE_MAX_WORK`). Costs a few times the MDG's own simulation.

    >>> from probestats.analyses.plan.noise import noise_model
    >>> rows = [{"item": i, "x": float(y)} for i in range(30) for y in np.random.default_rng(i).normal(0, 1, 4)]
    >>> mdg, (low, high) = mdg_with_range(noise_model(rows, metric="x"), 8, 10, 10, sizing=Sizing(sims=400))
    >>> bool(low <= mdg <= high)
    True
    """
    found = design_mdg(noise_model, items, runs_a, runs_b, tests=tests, sizing=sizing)
    return found.mdg, found.range


@dataclass(frozen=True)
class DesignMDG:
    """The minimum detectable gap of one design, its range, and whether it is promised.

    Attributes
    ----------
    mdg : float or None
        The smaller of the upward and downward MDGs (``inf``: unreachable).
    range : tuple of float or None
        Its range over plausible noise logs of the same size (:data:`RANGE_METHOD`), or None.
    toward : {"up", "down"} or None
        The direction of that MDG (None without one).
    room : float or None
        The rise (``up``) or fall (``down``) the metric's bound surely leaves, from the noise log's one-sided
        :data:`MEAN_BOUND_LEVEL` bound on its mean (:func:`room_left`; None without a bound that way).
    near_bound : bool
        The MDG is larger than ``room``: a gap that large may not exist, so it is not promised.
    """

    mdg: float | None
    range: tuple | None
    toward: str | None
    room: float | None
    near_bound: bool


def design_mdg(noise_model, items: int, runs_a, runs_b, *, tests: Tests | None = None,
               sizing: Sizing | None = None) -> DesignMDG:
    """:func:`mdg_with_range` with the MDG's direction and whether the metric's bound leaves room for it.

    With several plausible mechanisms (``mechanism="auto"``) each direction's MDG is the largest of theirs, and
    the range is that mechanism's.

    >>> from probestats.analyses.plan.noise import noise_model
    >>> rows = [{"item": i, "x": float(y)} for i in range(40) for y in (1, 1, 1, 1, i % 3 > 0)]
    >>> found = design_mdg(noise_model(rows, metric="x"), 8, 20, 20, sizing=Sizing(sims=300))
    >>> found.toward, found.near_bound, round(found.room, 3)   # a 0/1 metric at 0.93: it can only fall
    ('down', False, 0.898)

    (Cell means 0.8 on 14 items, 1 on 26: mean 0.93, cluster SE sqrt(40/39 x 25 x 0.364) / 200 = 0.01528, below
    the runs' own sigma / sqrt(200) = sqrt(0.07 / 200) = 0.01871 (the pooled within-cell variance is
    14 x 4 x 0.2 / 160 = 0.07), t(0.95, 39) = 1.685, so the lower bound is 0.93 - 0.0315 = 0.898, all room for a
    fall to 0.)
    """
    found, pending = design_mdg_later(noise_model, items, runs_a, runs_b, tests=tests, sizing=sizing)
    return replace(found, range=pending())


def design_mdg_later(noise_model, items: int, runs_a, runs_b, *, tests: Tests | None = None,
                     sizing: Sizing | None = None):
    """:func:`design_mdg` in two steps: the MDG now (its ``range`` None), and a call without arguments that
    simulates its range (or gives None where :func:`design_mdg` has none) when the range is read.

    The range draws from its own seeds, so it is the same whenever it is computed.

    >>> from probestats.analyses.plan.noise import noise_model
    >>> rows = [{"item": i, "x": float(y)} for i in range(40) for y in (1, 1, 1, 1, i % 3 > 0)]
    >>> found, pending = design_mdg_later(noise_model(rows, metric="x"), 8, 20, 20, sizing=Sizing(sims=300))
    >>> found.range is None and replace(found, range=pending()) == design_mdg(noise_model(rows, metric="x"),
    ...                                                                        8, 20, 20, sizing=Sizing(sims=300))
    True
    """
    tests, sizing = as_tests(tests), Sizing() if sizing is None else sizing
    alpha, alternative, sims, seed = tests.alpha, tests.alternative, sizing.sims, tests.seed
    noise, items, ka, kb, tau, found = design_search(noise_model, items, runs_a, runs_b, tests, sizing)
    (up, down), (m_up, m_down) = least_promising(found, tau)
    mdg = min(x for x in (up, down) if x is not None)
    toward = "up" if up is not None and up == mdg else "down"
    room = room_left(noise, toward)
    near = bool(room is not None and math.isfinite(mdg) and mdg > room)
    result = DesignMDG(finite_or_none(mdg), None, toward, room, near)
    range_sims = max(RANGE_MIN_SIMS, int(sims) // 10)
    work = (RANGE_REPLICATES + 1) * range_sims * float(np.sum(ka) + np.sum(kb))
    if noise._raw is None or min_attainable_p(items, alternative=alternative) > alpha or work > RANGE_MAX_WORK:
        return result, lambda: None
    mech = m_up if toward == "up" else m_down
    reported = (up, None) if toward == "up" else (None, down)

    def the_range():
        ranges = mdg_ranges(coupled_models(noise, resampled_logs(noise, seed)), items, ka, kb, reported, tests,
                            replace(sizing, heterogeneity=tau), engine_shift(mech, noise))
        return ranges[0] if toward == "up" else ranges[1]

    return result, the_range


def resampled_logs(noise: NoiseModel, seed) -> list[NoiseModel]:
    """The resampled noise logs behind the MDG's range (:data:`RANGE_REPLICATES` of them, from ``seed``)."""
    rng = np.random.default_rng([0 if seed is None else int(seed), 26])
    return [resampled_noise(noise, rng) for _ in range(RANGE_REPLICATES)]


#: One-sided confidence of the bounds on a noise log's mean that say whether an MDG toward a bound is promised.
MEAN_BOUND_LEVEL = 0.95


def mean_bounds(noise: NoiseModel, level: float = MEAN_BOUND_LEVEL) -> tuple[float, float] | None:
    """One-sided ``level`` lower and upper bounds on the metric's mean from the noise log's cells.

    The log's mean ``M = sum(n_c m_c) / N`` over cells ``c`` of ``n_c`` runs with means ``m_c`` errs by the
    cluster standard error ``sqrt(C / (C - 1) sum(n_c^2 (m_c - M)^2)) / N`` (``C`` cells; runs of a cell
    share their item, so they are not counted as independent), and never by less than the runs' own
    noise, ``sigma / sqrt(N)`` (cells whose means happen to agree, or a log of one cell, would otherwise
    claim to know the mean exactly); the bounds are ``M -/+ t se`` with ``t`` Student's ``level`` quantile on
    ``C - 1`` degrees of freedom (``N - 1`` for one cell). None without the log's runs.

    >>> from probestats.analyses.plan.noise import noise_model
    >>> rows = [{"item": i, "x": float(y)} for i in range(4) for y in (i % 2, 1, 1)]
    >>> low, high = mean_bounds(noise_model(rows, metric="x"))
    >>> round(low, 4), round(high, 4)   # cell means 2/3, 1, 2/3, 1: M 5/6, t(3) 2.3534 and se the larger of
    (0.556, 1.1107)

    (the cluster one, sqrt(1/27) / 2 = 0.0962, and the runs' sigma / sqrt(N) = sqrt(1/6) / sqrt(12) = 0.1179)

    >>> one = noise_model([{"item": 1, "x": float(y)} for y in [1] * 11 + [0]], metric="x")
    >>> round(mean_bounds(one)[1], 4)   # one cell: M 11/12, sigma sqrt(1/12), se sigma / sqrt(12), t(11) 1.7959
    1.0663
    """
    if noise._raw is None or noise._cell_sizes is None or noise._cell_sizes.size < 1:
        return None
    sizes, means = noise._cell_sizes.astype(float), noise._means
    total = float(sizes.sum())
    grand = float(np.sum(sizes * means)) / total
    cells = sizes.size
    runs_se = noise.sigma_run / math.sqrt(total)
    if cells >= 2:
        se = max(math.sqrt(cells / (cells - 1) * float(np.sum((sizes * (means - grand)) ** 2))) / total, runs_se)
        df = cells - 1
    else:
        se, df = runs_se, max(1, int(total) - 1)
    t = t_ppf(df, level)
    return grand - t * se, grand + t * se


def room_left(noise: NoiseModel, toward: str) -> float | None:
    """The rise (``toward="up"``) or fall (``"down"``) the metric's bound surely leaves: the ceiling less the
    noise log's one-sided upper bound on its mean, or that lower bound less the floor (:func:`mean_bounds`).
    None without a bound that way, or without bounds on the mean.

    >>> from probestats.analyses.plan.noise import noise_model
    >>> rows = [{"item": i, "x": float(y)} for i in range(4) for y in (i % 2, 1, 1)]
    >>> model = noise_model(rows, metric="x")
    >>> round(room_left(model, "down"), 4), round(room_left(model, "up"), 4)   # bounds 0.556 and 1.1107
    (0.556, -0.1107)
    """
    bounds = mean_bounds(noise)
    return None if bounds is None else bound_room(noise, toward, *bounds)


def bound_room(noise: NoiseModel, toward: str, low: float, high: float) -> float | None:
    """:func:`room_left` from the bounds on the mean, ``low`` and ``high``."""
    if toward == "up":
        return None if noise.ceiling is None else float(noise.ceiling) - high
    return None if noise.floor is None else low - float(noise.floor)

