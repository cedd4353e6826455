"""The whole planning job as one library call: the noise model, the simulated designs, the power plot.

:func:`plan` is what ``probestats plan`` runs (the command parses its options, calls it and prints
the result) and what the planner of ``probestats serve`` calls. Its parameters carry the command's
names.
"""

from __future__ import annotations

import io
from pathlib import Path

from probestats.analyses.cells import cells_checked
from probestats.analyses.plan import Pilot, Sizing, noise_model, plan_probe
from probestats.errors import OptionError, either, opt
from probestats.jobs.inputs import cell_inputs, refuse_row_options
from probestats.present.plots.power import power_curve
from probestats.present.report.files import check_target, refuse_inputs, write_whole
from probestats.shape.probe import as_probe
from probestats.vocabulary import as_tests, check_callable, check_metric, check_path

__all__ = ["plan", "DEFAULT_ITEMS", "DEFAULT_RUNS"]

#: the designs sized when none are given
DEFAULT_ITEMS = (6, 8, 10, 12, 15, 20)
DEFAULT_RUNS = (1, 2, 3, 5, 10, 20)


def plan(noise=None, *, metric, pilot=None, a=None, b=None, heterogeneity=None, items=(), runs=(), gap=None,
         power=0.8, sims=2000, plot=None, scale=None, mechanism="auto", mdg_range=True, time_budget=None, tests=None,
         probe=None, progress=None):
    """Size a probe from a same-versus-same log: the minimum detectable gap (and the power at ``gap``) of
    every design, as ``probestats plan`` computes it.

    Parameters
    ----------
    noise : path, optional
        A same-versus-same (or pilot) log; sigma per run is pooled within its item x value cells. Or its cell
        table built with its runs (``probestats.cells(..., keep_runs=True)``), recognized by its columns, as
        :func:`probestats.analyze` takes one; then ``pilot`` is a cell table too.
    metric : str
        The metric column.
    pilot, a, b, heterogeneity, gap, power, sims, scale, mechanism, mdg_range, time_budget
        As for :func:`probestats.plan_probe` (``a`` and ``b`` name the pilot's values, as
        :class:`~probestats.analyses.plan.Pilot` does; the others are the fields of its
        :class:`~probestats.analyses.plan.Sizing`).
    items, runs : sequence of int or "N,N" strings
        The designs (default :data:`DEFAULT_ITEMS` x :data:`DEFAULT_RUNS`).
    tests : Tests, optional
        The planned test's direction and level, and the seed of the simulation (:class:`probestats.Tests`; a
        plan sizes one test, so a correction, an interval, an effect size or resamples are refused).
    plot : path, optional
        Also write power against runs per value as PNG (needs ``gap``).
    probe : Probe, optional
        How the logs are read and shaped.
    progress : callable, optional
        ``progress(done, total)`` as the designs are simulated.

    Returns
    -------
    Plan

    Examples
    --------
    >>> p = plan("sample_logs/style_noise.csv", metric="steps", items=[8], runs=[5], sims=200)
    >>> [(c.items, c.runs) for c in p.cells]
    [(8, 5)]
    """
    tests, probe, metric = as_tests(tests), as_probe(probe), check_metric(metric)
    progress = check_callable("progress", progress, "the designs done and their total")
    plot = check_path("plot", plot, "power.png")
    tests.refuse("a plan", "correction", "interval", "effect_size", "n_resamples")
    probe.refuse("the plan", fold_case=True, why=" (the noise log's values are read as written)")
    if plot is not None and gap is None:
        raise OptionError(f"{opt('plot')} draws power at a gap; add {either('gap=G', '--gap G')}")
    if plot is not None:   # a plot that cannot be written is refused before the simulation, not after it
        check_target(plot, opt("plot", str(plot)), "power.png")
    refuse_inputs({opt("plot"): plot}, {opt("noise"): noise, opt("pilot"): pilot})
    noise_cells, noise, pilot_cells, pilot = cell_inputs((), noise=noise, pilot=pilot)[1:]
    noise_log, pilot_log = _sources(noise, pilot, noise_cells, pilot_cells, metric, probe)
    if noise_cells is None:
        noise_log = probe.apply(noise_log, metric=metric)
        pilot_log = probe.apply(pilot_log, metric=metric, a=a, b=b) if pilot_log is not None else None
    model = noise_model(noise_log, metric, scale=scale)
    sizing = Sizing(power=power, heterogeneity=heterogeneity, mechanism=mechanism, sims=sims, mdg_range=mdg_range,
                    time_budget=time_budget)
    result = plan_probe(model, items=list(items) or list(DEFAULT_ITEMS), runs=list(runs) or list(DEFAULT_RUNS),
                        gap=gap, metric=metric, pilot=None if pilot_log is None else Pilot(pilot_log, a, b),
                        progress=progress, tests=tests, sizing=sizing)
    if plot is not None:
        _draw(result, Path(plot))
    return result


def _sources(noise, pilot, noise_cells, pilot_cells, metric, probe):
    """The noise and pilot: logs as given, or cell tables rebuilt into their runs."""
    if noise is None and noise_cells is None:
        raise OptionError(f"give the noise log: {opt('noise', 'LOG')} (a log, or its cell table built with its runs)")
    if noise_cells is None and pilot_cells is None:
        return noise, pilot
    if noise_cells is not None and pilot is not None or pilot_cells is not None and noise is not None:
        raise OptionError("give the noise and the pilot both as logs or both as cell tables")

    refuse_row_options(probe)
    noise = cells_checked(noise_cells, metric, rows=True, what=opt("noise"))
    pilot = cells_checked(pilot_cells, metric, rows=True, what=opt("pilot")) if pilot_cells else None
    return noise, pilot


def _draw(result, path: Path) -> None:
    """The power plot as PNG, written whole or not at all."""
    check_target(path, opt("plot", str(path)), "power.png")
    ax = power_curve(result)
    png = io.BytesIO()
    ax.figure.savefig(png, format="png", dpi=120)
    write_whole(path, png.getvalue())
