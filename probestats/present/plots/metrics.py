"""The heatmap of several metrics: groups × metrics, coloured by the chosen effect size, the
cells significant after the family's correction marked.

Drawn on a :class:`matplotlib.figure.Figure` through the Agg canvas (pyplot is never imported);
labels from the log go through :func:`probestats.present.plots.items.safe_label`.

Examples
--------
>>> from probestats.analyses.dispatch import analyze_shaped
>>> from probestats.analyses.question import Question, Run
>>> rows = [{"item": i, "variant": v, "x": i + (v == "a"), "y": i * (v == "a")}
...         for i in range(6) for v in ("a", "b")]
>>> ax = effect_heatmap(analyze_shaped(rows, Question("x,y"), run=Run(mdg=False)))
>>> ax.get_title()
'd_z per group and metric (* corrected p ≤ 0.05)'
"""

from __future__ import annotations

import math

from probestats.present.plots.items import safe_label
from probestats.present.words.metrics import group_label

__all__ = ["effect_heatmap"]


def effect_heatmap(analysis):
    """Rows: groups; columns: metrics; colour: the effect size (a diverging scale centred on 0);
    text: its value, with ``*`` where the family-corrected sign-flip p is at most alpha."""
    from matplotlib.figure import Figure

    name = analysis.effect_size
    groups, metrics = analysis.groups, analysis.metrics
    values = []
    for by in groups:
        row = []
        for m in metrics:
            cell = analysis.cell(m, by)
            e = None if cell is None or cell.result.effects is None else cell.result.effects.get(name)
            row.append(float("nan") if e is None or e.value is None else e.value)
        values.append(row)
    finite = [abs(v) for row in values for v in row if math.isfinite(v)]
    top = max(finite) if finite else 1.0
    figure = Figure(figsize=(1.6 + 1.3 * len(metrics), 1.4 + 0.45 * len(groups)), layout="constrained")
    ax = figure.subplots()
    image = ax.imshow(values, cmap="RdBu_r", vmin=-top or -1, vmax=top or 1, aspect="auto")
    label = next((t.result.effects.get(name).name for t in analysis.family if t.result.effects is not None), name)
    for i, by in enumerate(groups):
        for j, m in enumerate(metrics):
            cell = analysis.cell(m, by)
            v = values[i][j]
            star = cell is not None and cell.result.p_adjusted is not None and cell.result.p_adjusted <= analysis.alpha
            ax.text(j, i, ("n/a" if not math.isfinite(v) else f"{v:+.2f}") + (" *" if star else ""),
                    ha="center", va="center", fontsize=8,
                    color="white" if math.isfinite(v) and abs(v) > 0.6 * top else "black")
    ax.set_xticks(range(len(metrics)), [safe_label(m) for m in metrics], rotation=30, ha="right")
    ax.set_yticks(range(len(groups)), [safe_label(group_label(by)) for by in groups])
    ax.set_title(f"{label} per group and metric (* corrected p ≤ {analysis.alpha:g})")
    figure.colorbar(image, ax=ax, label=label)
    return ax
