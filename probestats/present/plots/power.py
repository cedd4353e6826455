"""The power plot: power of the exact sign-flip test against runs per value, one line per item count.

Figures are drawn on a :class:`matplotlib.figure.Figure` (no pyplot, no display needed; it
saves through the Agg canvas), or on the axes given.
"""

from __future__ import annotations
from probestats.errors import count_of

from probestats.errors import OptionError, either
from probestats.analyses.plan import Plan

__all__ = ["power_curve"]


def power_curve(plan: Plan, ax=None):
    """Plot simulated power against runs per value, one line per number of items.

    Draws only: the power comes simulated in the plan (:func:`probestats.analyses.plan.plan_probe`
    with a ``gap``), so a report or a plot never reruns a simulation.

    Parameters
    ----------
    plan : Plan
        A plan made with a ``gap``; its cells are plotted as they are.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made when None.

    Returns
    -------
    matplotlib.axes.Axes
        Lines of power with a band of +/- 2 Monte Carlo standard errors, and the target
        power as a dashed line.

    Examples
    --------
    >>> from probestats.analyses.plan import Sizing, plan_probe
    >>> ax = power_curve(plan_probe(1.2, items=(6, 8), runs=(2, 5, 20), gap=1.0, sizing=Sizing(sims=200)))
    >>> [line.get_label() for line in ax.get_lines()][:2]
    ['6 items', '8 items']
    >>> ax.figure.savefig(__import__("io").BytesIO(), format="png")
    """
    if not isinstance(plan, Plan):
        raise OptionError("power_curve draws a plan: make it first with plan_probe(noise, items, runs, gap=...)")
    if plan.gap is None:
        raise OptionError(f"the plan has no gap to show power at; make it with {either('gap=G', '--gap G')}")
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
