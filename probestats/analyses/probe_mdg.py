"""The minimum detectable gap of the design a probe ran (its items and runs per value), from its
same-versus-same noise log (:func:`probe_mdg`), with how it was found, in words.
"""

from __future__ import annotations

import polars as pl

from probestats.checks.schema import Checked
from probestats.errors import count_of, either


def noise_rows(noise_checked: Checked) -> pl.DataFrame:
    """The runs of a same-versus-same log as the noise model reads them: with one run per item and value
    no cell shows run-to-run noise, but both values are one condition, so each item's runs are one cell
    (the value column is dropped).
    """
    frame = noise_checked.frame
    if frame.height and frame.group_by("item", "variant").len()["len"].max() == 1:
        return frame.drop("variant")
    return frame


def probe_mdg(noise_checked, metric, main, alpha, alternative):
    """Minimum detectable gap of the design actually run, from the noise log."""
    from probestats.analyses.plan import RANGE_METHOD, design_mdg, gap_model, noise_model

    runs_a, runs_b = main.runs_per_value()
    single = noise_rows(noise_checked) is not noise_checked.frame
    model = noise_model(noise_rows(noise_checked), metric=metric)
    found = design_mdg(model, items=main.n_items, runs_a=runs_a, runs_b=runs_b, alpha=alpha, alternative=alternative)
    value, span = found.mdg, found.range
    method = (f"simulated power of the exact sign-flip test ({alternative}) ≥ 0.8 at alpha {alpha:g}, "
              f"{count_of(main.n_items, 'item')}, {runs_a}/{runs_b} runs per value, noise σ from the same-versus-same log, "
              "no heterogeneity between items assumed (an optimistic bound)")
    if single:
        method += "; one run per item and value in the noise log, so σ is pooled within items"
    if model.bounded:
        ends = ", ".join(f"{name} {bound:g}" for name, bound in (("floor", model.floor), ("ceiling", model.ceiling))
                         if bound is not None)
        method += (f"; the metric's {ends} is respected, so near it an item's gap stops at the bound "
                   f"(see {either('probestats.plan()', 'probestats plan')} for the gap a design really reaches)")
    method += f"; gap model {gap_model(model)}"
    extra = {"mdg_room": found.room, "mdg_near_bound": found.near_bound}
    if span is not None:
        method += f"; its range: {RANGE_METHOD}"
        extra.update(mdg_range=tuple(span), mdg_range_runs=4 * int(model.n_runs))
    return value, method, extra


