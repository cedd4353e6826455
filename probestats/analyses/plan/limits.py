"""The limits of a plan's work, checked before any simulation starts."""

from __future__ import annotations

from probestats.errors import OptionError, opt

__all__ = ["MAX_PLAN_RUNS", "MAX_DESIGN_RUNS", "check_plan_work"]


#: run values a plan may simulate in all (sims x items x runs per value x 2, summed over designs)
MAX_PLAN_RUNS = 2_000_000_000
#: run values one design may hold in memory at once (sims x items x runs per value; 8 bytes each)
MAX_DESIGN_RUNS = 25_000_000


def check_plan_work(items, runs, sims: int) -> None:
    """Refuse a plan whose simulation is too large to finish (or to fit in memory), before it starts.

    The work is the number of simulated run values: ``sims`` probes of every design, each with
    ``items`` items and ``runs`` runs under each of two values.

    Examples
    --------
    >>> check_plan_work([6, 8], [5, 20], 2000)
    >>> check_plan_work([100000], [20], 2000)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: the design of 100000 items x 20 runs per value holds 4,000,000,000 simulated runs at once (sims=2000), more than the limit of 25,000,000; lower sims to 12 or fewer, or plan fewer items or runs
    """
    items, runs = [int(n) for n in items], [int(k) for k in runs]
    if not items or not runs:
        return
    widest = max(items) * max(runs)
    if widest * sims > MAX_DESIGN_RUNS:
        fit = MAX_DESIGN_RUNS // widest
        raise OptionError(
            f"the design of {max(items)} items x {max(runs)} runs per value holds {widest * sims:,} simulated runs "
            f"at once ({opt('sims', sims)}), more than the limit of {MAX_DESIGN_RUNS:,}; "
            + (f"lower {opt('sims')} to {fit} or fewer, or plan fewer items or runs" if fit >= 1 else
               "plan fewer items or runs"))
    total = sum(items) * sum(runs) * 2
    if total * sims > MAX_PLAN_RUNS:
        fit = MAX_PLAN_RUNS // total
        raise OptionError(
            f"the plan simulates {total * sims:,} runs ({len(items) * len(runs)} designs, {opt('sims', sims)}), more than "
            f"the limit of {MAX_PLAN_RUNS:,}; "
            + (f"lower {opt('sims')} to {fit} or fewer, or plan fewer designs" if fit >= 1 else "plan fewer designs"))
