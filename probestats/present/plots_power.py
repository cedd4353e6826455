"""The power plot: power of the exact sign-flip test against runs per value, one line per item count.

Figures are drawn on a :class:`matplotlib.figure.Figure` (no pyplot, no display needed; it
saves through the Agg canvas), or on the axes given.
"""

from __future__ import annotations
from probestats.errors import count_of

from collections.abc import Iterable

from probestats.errors import OptionError
from probestats.analyses.plan import Plan, plan_probe

__all__ = ["power_curve"]


def power_curve(plan_or_noise, ax=None, *, gap: float | None = None,
                items: Iterable[int] = (6, 8, 12, 16), runs: Iterable[int] = (1, 2, 3, 5, 8, 12, 20),
                metric: str | None = None, heterogeneity: float | None = None, pilot=None,
                alpha: float = 0.05, power: float = 0.8, sims: int = 1000, seed: int | None = 0,
                alternative: str = "two-sided"):
    """Plot simulated power against runs per value, one line per number of items.

    Parameters
    ----------
    plan_or_noise : Plan, NoiseModel, float or noise log
        A :class:`~probestats.power.Plan` made with a ``gap`` (its cells are plotted as
        they are), or the noise from which a plan is made over ``items`` x ``runs``.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made when None.
    gap : float
        The true average gap (needed unless the plan has one).

    Returns
    -------
    matplotlib.axes.Axes
        Lines of power with a band of +/- 2 Monte Carlo standard errors, and the target
        power as a dashed line.

    Examples
    --------
    >>> ax = power_curve(1.2, gap=1.0, items=(6, 8), runs=(2, 5, 20), sims=200)
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['6 items', '8 items']
    >>> ax.figure.savefig(__import__("io").BytesIO(), format="png")
    """
    if isinstance(plan_or_noise, Plan):
        plan = plan_or_noise
        if plan.gap is None:
            raise OptionError("the plan has no gap to show power at; make it with gap=... (or --gap)")
    else:
        if gap is None:
            raise OptionError("give the true average gap to plot power at (gap=...)")
        plan = plan_probe(plan_or_noise, items=list(items), runs=list(runs), gap=gap, metric=metric,
                          pilot=pilot, heterogeneity=heterogeneity, alpha=alpha, power=power, sims=sims,
                          seed=seed, alternative=alternative)
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(6.4, 4.2), layout="constrained").subplots()
    for n in sorted({c.items for c in plan.cells}):
        cells = sorted((c for c in plan.cells if c.items == n), key=lambda c: c.runs)
        x = [c.runs for c in cells]
        y = [c.power for c in cells]
        never = cells[0].min_attainable_p > plan.alpha   # the item count alone decides this
        (line,) = ax.plot(x, y, marker="o", label=count_of(n, 'item') + (" (never significant)" if never else ""))
        lo = [max(0.0, c.power - 2 * c.power_se) for c in cells]
        hi = [min(1.0, c.power + 2 * c.power_se) for c in cells]
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.15, linewidth=0)
    ax.axhline(plan.target_power, color="0.4", linestyle="--", linewidth=1,
               label=f"target {plan.target_power:g}")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("runs per value")
    ax.set_ylabel("power (simulated)")
    if plan.tau_source == "pilot":
        tau = f"tau {plan.tau:.3g} (from the pilot)"
    elif plan.heterogeneity_stated:
        tau = f"tau {plan.tau:.3g} (stated)"
    else:
        tau = "tau 0 assumed: power is an upper bound"
    ax.set_title(f"Exact sign-flip test, gap {plan.gap:g} {plan.noise.metric}, alpha {plan.alpha:g}\n"
                 f"sigma per run {plan.noise.sigma_run:.3g}, {tau}, {plan.sims} sims per point",
                 fontsize="medium")
    ax.legend(fontsize="small", loc="lower right")
    return ax
