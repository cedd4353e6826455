"""A plan as plain text: the table of designs with the assumptions spelled out."""

from __future__ import annotations

import math
from contextlib import contextmanager

from probestats.analyses.plan import Plan
from probestats.analyses.plan.heterogeneity import TAU_LEVEL
from probestats.analyses.plan.mechanisms import mechanism_text
from probestats.analyses.plan.noise import fmt_scale

__all__ = ["plan_text", "plan_progress"]


def _fmt(x, spec):
    return "-" if x is None or not math.isfinite(x) else format(x, spec)


def _fmt_mdg(x) -> str:
    return "-" if x is None else "never" if math.isinf(x) else f"{x:.3g}"


def _fmt_range(r) -> str:
    """``0.68-0.86`` (``0.68-never`` when a plausible noise log reaches no MDG); ``-`` when not computed."""
    return "-" if r is None else f"{_fmt_mdg(r[0])}-{_fmt_mdg(r[1])}"


def _fmt_power_range(r) -> str:
    """``0.62-0.91``: the power over the pilot's interval on tau; ``-`` when not computed."""
    return "-" if r is None else f"{r[0]:.2f}-{r[1]:.2f}"


def plan_text(plan: Plan) -> str:
    """A plain-text table with the assumptions spelled out."""
    n = plan.noise
    lines = [f"sigma per run: {n.sigma_run:.4g} {n.metric} "
             + (f"(pooled within {n.n_cells} cells of {n.source}, df {n.df})" if n.df is not None
                else "(stated)")]
    lines.append(f"noise model: {n.simulation}")
    lines.extend(_mechanism_lines(plan))
    if plan.tau_source == "pilot":
        het = plan.heterogeneity
        interval = ("" if het is None or het.tau_low is None else
                    f"; {TAU_LEVEL:.0%} interval {het.tau_low:.3g} to {het.tau_high:.3g} (profile likelihood) from its "
                    f"{het.n_items} items" + ("" if plan.gap is None else _if_tau_text(het)))
        weighed = ("" if het is None or het.weight is None or het.tau_moments is None or het.weight >= 0.9995 else
                   f" {het.tau_moments:.3g} shrunk toward 0 by the weight {het.weight:.2f} of its evidence that the "
                   "items' gaps differ")
        lines.append(f"heterogeneity tau: {plan.tau:.4g} (from the pilot, method of moments{weighed}{interval})")
    elif plan.heterogeneity_stated:
        lines.append(f"heterogeneity tau: {plan.tau:.4g} (stated assumption)")
    else:
        lines.append("heterogeneity tau: 0 (assumed, not measured): " + (
            "gaps that differ between items would lower power" if plan.mechanisms.several else
            "power is then an upper bound, if the gap acts as assumed"))
    lines.append(f"test: exact sign-flip, {plan.alternative}, alpha {plan.alpha:g}; target power "
                 f"{plan.target_power:g}; {plan.sims} simulated probes per design (seed {plan.seed})")
    bounded = n.bounded
    if bounded:
        lines.append(f"bounds: runs kept within {fmt_scale(n.floor, n.ceiling)} ({n.scale_source}); a gap "
                     "shifts each item's mean of value a and stops at the bound ('reached' and the MDG: the average "
                     "gap the items really make; 'shift': the shift of each item's mean that makes the MDG)")
    head = ["items", "runs"]
    tau_ranged = any(c.power_tau_range is not None for c in plan.cells)
    if plan.gap is not None:
        head += [f"power at gap {plan.gap:g}", "+/- se"] + (["if tau"] if tau_ranged else []) + ["t approx"]
        head += ["reached"] if bounded else []
    ranged = plan.mdg_range_method is not None
    head += ["MDG"] + (["range"] if ranged else []) + (["shift"] if bounded else [])
    two_way = plan.directions_differ()
    head += ["MDG up", "MDG down"] if two_way else []
    head += ["range up", "range down"] if two_way and ranged else []
    several = plan.mechanisms.several
    names = plan.mechanisms.candidates
    head += [f"MDG if {m}" for m in names] if several else []
    head += [f"power if {m}" for m in names] if several and plan.gap is not None else []
    head += ["MDG t approx", "min p"]
    rows = []
    for c in plan.cells:
        row = [str(c.items), str(c.runs)]
        if plan.gap is not None:
            row += [f"{c.power:.3f}", f"{c.power_se:.3f}"]
            row += [_fmt_power_range(c.power_tau_range)] if tau_ranged else []
            row += [_fmt(c.power_approx, ".3f")]
            row += [_fmt(c.gap_realized, ".3g")] if bounded else []
        near = (c.mdg_up_near_bound and c.mdg_up == c.mdg) or (c.mdg_down_near_bound and c.mdg_down == c.mdg)
        row += ["never" if math.isinf(c.mdg) else f"{c.mdg:.3g}" + ("*" if near else "")]
        row += [_fmt_range(c.mdg_range)] if ranged else []
        shift = c.mdg_shift_up if c.mdg_up is not None and c.mdg_up == c.mdg else c.mdg_shift_down
        row += [_fmt_mdg(shift)] if bounded else []
        row += [_fmt_mdg(c.mdg_up) + ("*" if c.mdg_up_near_bound else ""),
                _fmt_mdg(c.mdg_down) + ("*" if c.mdg_down_near_bound else "")] if two_way else []
        row += [_fmt_range(c.mdg_up_range), _fmt_range(c.mdg_down_range)] if two_way and ranged else []
        if several:
            by = {r.mechanism: r for r in c.by_mechanism}
            row += [_fmt_mdg(_toward(c, by[m])) if m in by else "-" for m in names]
            row += [_fmt(by[m].power, ".3f") if m in by else "-" for m in names] if plan.gap is not None else []
        row += [_fmt(c.mdg_approx, ".3g"), f"{c.min_attainable_p:.3g}"]
        rows.append(row)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(head)]
    lines.append("")
    lines.append("  ".join(h.rjust(w) for h, w in zip(head, widths)))
    lines.extend("  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in rows)
    if any(c.mdg_up_near_bound or c.mdg_down_near_bound for c in plan.cells):
        lines.append("* within the noise log's uncertainty of the bound it moves toward: not promised (see the "
                     "warning mdg_near_bound below)")
    if ranged:
        lines.append("")
        lines.append(f"MDG range: {plan.mdg_range_method} ({plan.range_sims} simulated probes per resampled log); "
                     f"here about {plan.noise_runs_to_halve_range:,} runs (4 times this one's "
                     f"{n.n_runs:,})")
    if plan.precision:
        lines.append("")
        lines.append(f"precision: {plan.precision}")
    if plan.problems:
        lines.append("")
        lines.extend(f"{p.severity}: {p.message}" for p in plan.problems)
    return "\n".join(lines)


def _mechanism_lines(plan: Plan) -> list[str]:
    """How the gap is assumed to act: the metric's kind, the mechanism(s) simulated, and why."""
    chosen, n = plan.mechanisms, plan.noise
    lines = [f"metric: {chosen.kind} ({chosen.kind_text})"]
    if not chosen.several:
        lines.append(f"how the gap acts: {mechanism_text(n, chosen.candidates[0])} ({chosen.reason})")
        return lines
    lines.append(f"how the gap acts: not known ({chosen.reason}); each headline figure (MDG, power) is the least "
                 f"promising of {', '.join(chosen.candidates)}, the others beside it:")
    lines.extend(f"  {mechanism_text(n, m)}" for m in chosen.candidates)
    example = next((c for c in plan.cells if len(c.by_mechanism) > 1
                    and all(_toward(c, r) is not None and math.isfinite(_toward(c, r)) for r in c.by_mechanism)), None)
    if example is not None:
        said = ", ".join(f"{_toward(example, r):.3g} if the gap {chosen.words(r.mechanism)}" for r in example.by_mechanism)
        lines.append(f"  (for {example.items} items x {example.runs} runs: MDG {said}; the 'MDG if' columns are each "
                     "mechanism's MDG in the direction of the headline MDG)")
    return lines


def _toward(cell, result):
    """A mechanism's MDG in the direction the cell's headline MDG comes from."""
    return result.mdg_up if cell.mdg_up is not None and cell.mdg_up == cell.mdg else result.mdg_down


#: Seconds of work before plan's progress is first written when standard error is not a terminal, and between lines.
PLAIN_PROGRESS_AFTER = 5.0


@contextmanager
def plan_progress(console, enabled: bool = True):
    """Progress of :func:`probestats.analyses.plan.plan_probe` on ``console`` (a rich Console on standard error),
    with an estimate of the time left.

    Yields the ``progress(done, total)`` callback to pass to ``plan_probe``. On a terminal a bar (which
    disappears when the plan is done); otherwise (piped, redirected) a plain line, first after
    :data:`PLAIN_PROGRESS_AFTER` seconds of work and then at most as often, so a quick plan writes nothing and
    a long one says how far it is. Nothing when not ``enabled``.
    """
    import time

    from rich.progress import (BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)

    if not enabled:
        yield None
        return
    if not console.is_terminal:
        clock = {"start": None, "last": None}

        def plain(done: float, total: int) -> None:
            now = time.monotonic()
            if clock["start"] is None:     # the simulation's first call: the clock starts here
                clock["start"] = clock["last"] = now
                return
            spent = now - clock["start"]
            if spent < PLAIN_PROGRESS_AFTER or now - clock["last"] < PLAIN_PROGRESS_AFTER or done < 0.2:
                return
            clock["last"] = now
            console.print(f"plan: {done:.1f} of {total} designs simulated in {spent:.0f} s, about "
                          f"{spent * (total - done) / done:.0f} s left", highlight=False, soft_wrap=True)

        yield plain
        return
    with Progress(TextColumn("simulating designs"), BarColumn(), TaskProgressColumn(),
                  TextColumn("{task.fields[designs]}"), TimeElapsedColumn(), TextColumn("left"),
                  TimeRemainingColumn(), console=console, transient=True) as bar:
        task = bar.add_task("plan", total=None, designs="")

        def update(done: float, total: int) -> None:
            bar.update(task, completed=done, total=total, designs=f"{int(done)}/{total} designs")

        yield update


def _if_tau_text(het) -> str:
    """What the 'if tau' column spans: the pilot's interval on tau, and the noise log's on sigma where it has one."""
    if het.sigma_low is None:
        return ", the power at its ends in 'if tau' (what this pilot can tell)"
    return (f", the power over it and over the noise log's {TAU_LEVEL:.0%} interval on sigma ({het.sigma_low:.3g} to "
            f"{het.sigma_high:.3g}) in 'if tau' (what this pilot and this noise log can tell)")
