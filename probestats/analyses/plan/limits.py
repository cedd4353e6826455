"""The limits of a plan's work, checked before any simulation starts, each refused with its cost and its way out.

Every limit is a named constant of :mod:`probestats.limits` (the one table of limits): the designs a plan
sizes, the simulated runs it holds and draws, the noise log's runs it resamples for the MDG's range, and the
time its simulation is estimated to take.
"""

from __future__ import annotations

from probestats.errors import OptionError, count_of, either, opt
from probestats.limits import duration as _duration
from probestats.limits import MAX_DESIGN_RUNS, MAX_DESIGNS, MAX_PLAN_RUNS, MAX_PLAN_SECONDS, MAX_RANGE_NOISE_RUNS

__all__ = ["MAX_PLAN_RUNS", "MAX_DESIGN_RUNS", "MAX_DESIGNS", "MAX_RANGE_NOISE_RUNS", "MAX_PLAN_SECONDS",
           "check_plan_work", "estimated_seconds"]

#: seconds per simulated run value and power evaluation, and per simulated probe's decision on one item
#: (measured on this project's reference machine, 2 cores; used only to estimate a plan's cost)
_SECONDS_PER_RUN = 2.5e-9
_SECONDS_PER_DECISION = 4e-8
#: power evaluations an MDG search takes in each direction, about
_EVALUATIONS = 7


def estimated_seconds(items, runs, sims: int, mechanisms: int = 1, ranged: bool = True,
                      replicates: int = 19, range_sims: int | None = None) -> float:
    """The time a plan's simulation is estimated to take, in seconds (a rough figure, for refusing up front).

    Per design and mechanism, two searches of about :data:`_EVALUATIONS` power evaluations each; an evaluation
    draws ``sims`` probes of ``items x 2 runs`` run values and decides each probe (a cost that grows with the
    items, and as ``2^(items / 2)`` below 20 items, where every sign pattern is enumerated); the range repeats
    the searches on ``replicates + 1`` logs at ``range_sims`` probes.

    >>> round(estimated_seconds([8], [20], 2000), 1) > 0
    True
    """
    range_sims = max(100, sims // 10) if range_sims is None else range_sims
    total = 0.0
    for n in items:
        decide = _SECONDS_PER_DECISION * (2 ** (n / 2) if n < 20 else 20 * n)
        for k in runs:
            per_probe = _SECONDS_PER_RUN * n * 2 * k + decide
            probes = sims + ((replicates + 1) * range_sims if ranged else 0)
            total += mechanisms * 2 * _EVALUATIONS * probes * per_probe
    return total


def check_plan_work(items, runs, sims: int, *, mechanisms: int = 1, noise_runs: int = 0, ranged: bool = False,
                    time_budget: float | None = None) -> None:
    """Refuse a plan whose simulation is too large to finish (or to fit in memory), before it starts.

    The work is the number of simulated run values: ``sims`` probes of every design, each with
    ``items`` items and ``runs`` runs under each of two values; and the designs themselves, and the
    time all of it is estimated to take, unless a time budget bounds it.

    Examples
    --------
    >>> check_plan_work([6, 8], [5, 20], 2000)
    >>> check_plan_work([100000], [20], 2000)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: the design of 100000 items x 20 runs per value holds 4,000,000,000 simulated runs at once (sims=2000; about 32 GB of memory), more than the limit of 25,000,000; lower sims to 12 or fewer, or plan fewer items or runs
    """
    items, runs = [int(n) for n in items], [int(k) for k in runs]
    if not items or not runs:
        return
    designs = len(items) * len(runs)
    if designs > MAX_DESIGNS and time_budget is None:
        cost = estimated_seconds(items, runs, sims, mechanisms, ranged)
        raise OptionError(f"the plan sizes {designs:,} designs ({len(items)} item counts x {len(runs)} runs per value), "
                          f"more than the limit of {MAX_DESIGNS} without a time budget (estimated {_duration(cost)}); "
                          f"plan fewer designs, or give {opt('time_budget', 'SECONDS')} to size them all within it")
    widest = max(items) * max(runs)
    if widest * sims > MAX_DESIGN_RUNS:
        fit = MAX_DESIGN_RUNS // widest
        raise OptionError(
            f"the design of {max(items)} items x {max(runs)} runs per value holds {widest * sims:,} simulated runs "
            f"at once ({opt('sims', sims)}; {_gigabytes(widest * sims)} of memory), more than the limit of "
            f"{MAX_DESIGN_RUNS:,}; "
            + (f"lower {opt('sims')} to {fit} or fewer, or plan fewer items or runs" if fit >= 1 else
               "plan fewer items or runs"))
    total = sum(items) * sum(runs) * 2
    if total * sims > MAX_PLAN_RUNS:
        fit = MAX_PLAN_RUNS // total
        raise OptionError(
            f"the plan simulates {total * sims:,} runs ({designs} designs, {opt('sims', sims)}), more than "
            f"the limit of {MAX_PLAN_RUNS:,}; "
            + (f"lower {opt('sims')} to {fit} or fewer, or plan fewer designs" if fit >= 1 else "plan fewer designs"))
    if ranged and noise_runs > MAX_RANGE_NOISE_RUNS:
        raise OptionError(f"the MDG's range resamples the noise log's {noise_runs:,} runs for each design, more than "
                          f"the limit of {MAX_RANGE_NOISE_RUNS:,} runs; turn the range off "
                          f"({either('mdg_range=False', '--no-mdg-range')}), or use a noise log of fewer runs (a noise log of "
                          f"{count_of(MAX_RANGE_NOISE_RUNS, 'run')} already knows sigma to within half a percent)")
    cost = estimated_seconds(items, runs, sims, mechanisms, ranged)
    if cost > MAX_PLAN_SECONDS and time_budget is None:
        raise OptionError(f"the plan is estimated to take {_duration(cost)} ({designs} designs, {opt('sims', sims)}), "
                          f"more than the limit of {_duration(MAX_PLAN_SECONDS)} without a time budget; lower "
                          f"{opt('sims')} or plan fewer designs, or give {opt('time_budget', 'SECONDS')}")


def _gigabytes(values: int) -> str:
    """``about 32 GB``: the memory of ``values`` simulated runs at 8 bytes each."""
    return f"about {values * 8 / 1e9:.3g} GB"
