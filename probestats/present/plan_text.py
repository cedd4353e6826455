"""A plan as plain text: the table of designs with the assumptions spelled out."""

from __future__ import annotations

import math
from contextlib import contextmanager

from probestats.analyses.plan import Plan, gap_model
from probestats.analyses.plan.noise import fmt_scale

__all__ = ["plan_text", "plan_progress"]


def _fmt(x, spec):
    return "-" if x is None or not math.isfinite(x) else format(x, spec)


def _fmt_mdg(x) -> str:
    return "-" if x is None else "never" if math.isinf(x) else f"{x:.3g}"


def _fmt_range(r) -> str:
    """``0.68-0.86`` (``0.68-never`` when a plausible noise log reaches no MDG); ``-`` when not computed."""
    return "-" if r is None else f"{_fmt_mdg(r[0])}-{_fmt_mdg(r[1])}"


def plan_text(plan: Plan) -> str:
    """A plain-text table with the assumptions spelled out."""
    n = plan.noise
    lines = [f"sigma per run: {n.sigma_run:.4g} {n.metric} "
             + (f"(pooled within {n.n_cells} cells of {n.source}, df {n.df})" if n.df is not None
                else "(stated)")]
    lines.append(f"noise model: {n.simulation}")
    lines.append(f"gap model: {gap_model(n, plan.shift)}")
    if plan.tau_source == "pilot":
        lines.append(f"heterogeneity tau: {plan.tau:.4g} (from the pilot, method of moments)")
    elif plan.heterogeneity_stated:
        lines.append(f"heterogeneity tau: {plan.tau:.4g} (stated assumption)")
    else:
        lines.append("heterogeneity tau: 0 (assumed, not measured): power is then an upper bound")
    lines.append(f"test: exact sign-flip, {plan.alternative}, alpha {plan.alpha:g}; target power "
                 f"{plan.target_power:g}; {plan.sims} simulated probes per design (seed {plan.seed})")
    bounded = n.bounded
    if bounded:
        lines.append(f"bounds: runs kept within {fmt_scale(n.floor, n.ceiling)} ({n.scale_source}); a gap "
                     "shifts each item's mean of value a and stops at the bound ('reached' and the MDG: the average "
                     "gap the items really make; 'shift': the shift of each item's mean that makes the MDG)")
    head = ["items", "runs"]
    if plan.gap is not None:
        head += [f"power at gap {plan.gap:g}", "+/- se", "t approx"] + (["reached"] if bounded else [])
    ranged = plan.mdg_range_method is not None
    head += ["MDG"] + (["range"] if ranged else []) + (["shift"] if bounded else [])
    two_way = plan.directions_differ()
    head += ["MDG up", "MDG down"] if two_way else []
    head += ["range up", "range down"] if two_way and ranged else []
    head += ["MDG t approx", "min p"]
    rows = []
    for c in plan.cells:
        row = [str(c.items), str(c.runs)]
        if plan.gap is not None:
            row += [f"{c.power:.3f}", f"{c.power_se:.3f}", _fmt(c.power_approx, ".3f")]
            row += [_fmt(c.gap_realized, ".3g")] if bounded else []
        near = (c.mdg_up_near_bound and c.mdg_up == c.mdg) or (c.mdg_down_near_bound and c.mdg_down == c.mdg)
        row += ["never" if math.isinf(c.mdg) else f"{c.mdg:.3g}" + ("*" if near else "")]
        row += [_fmt_range(c.mdg_range)] if ranged else []
        shift = c.mdg_shift_up if c.mdg_up is not None and c.mdg_up == c.mdg else c.mdg_shift_down
        row += [_fmt_mdg(shift)] if bounded else []
        row += [_fmt_mdg(c.mdg_up) + ("*" if c.mdg_up_near_bound else ""),
                _fmt_mdg(c.mdg_down) + ("*" if c.mdg_down_near_bound else "")] if two_way else []
        row += [_fmt_range(c.mdg_up_range), _fmt_range(c.mdg_down_range)] if two_way and ranged else []
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
    if plan.problems:
        lines.append("")
        lines.extend(f"{p.severity}: {p.message}" for p in plan.problems)
    return "\n".join(lines)


@contextmanager
def plan_progress(console, enabled: bool = True):
    """A progress bar for :func:`probestats.analyses.plan.plan_probe` on ``console`` (a rich Console).

    Yields the ``progress(done, total)`` callback to pass to ``plan_probe``. The bar is drawn only
    when ``enabled`` and the console is a terminal (not when piped, nor beside ``--json``), and
    disappears when the plan is done.
    """
    from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("simulating designs"), BarColumn(), TaskProgressColumn(),
                  TextColumn("{task.fields[designs]}"), TimeElapsedColumn(), console=console, transient=True,
                  disable=not (enabled and console.is_terminal)) as bar:
        task = bar.add_task("plan", total=None, designs="")

        def update(done: float, total: int) -> None:
            bar.update(task, completed=done, total=total, designs=f"{int(done)}/{total} designs")

        yield update
