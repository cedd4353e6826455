"""The order probe's figure: position consistency per judge with its interval, and how the inconsistent
items split between primacy and recency.

Drawn on a :class:`matplotlib.figure.Figure` through the Agg canvas (pyplot is never
imported). Judge names from the log go through :func:`probestats.present.plots.items.safe_label`.

Examples
--------
>>> from probestats.analyses.judge import analyze_order
>>> rows = [{"item": i, "order": o, "choice": c} for i, pair in enumerate([("first", "second"), ("first", "first")])
...         for o, c in zip(("AB", "BA"), pair)]
>>> ax = consistency_plot(analyze_order(rows, order="order", choice="choice"))
>>> ax.get_title()
'Position consistency (exact 95% interval)'
"""

from __future__ import annotations

from probestats.present.plots.items import safe_label

__all__ = ["consistency_plot"]


def _name(group) -> str:
    return " / ".join(str(v) for v in group.by.values()) or "all"


def consistency_plot(result):
    """Two panels sharing the judges: consistency with its exact interval; primacy, recency and
    inconsistent ties as counts of the inconsistent items.

    Returns the consistency panel's axes (its figure holds both).
    """
    from matplotlib.figure import Figure

    groups = list(result.groups)
    height = 1.8 + 0.4 * len(groups)
    left, right = Figure(figsize=(9.5, height), layout="constrained").subplots(1, 2, sharey=True)
    ys = list(range(len(groups)))[::-1]
    for y, g in zip(ys, groups):
        c = g.consistency
        if c.value is None:
            left.text(0.5, y, "no item with both verdicts", va="center", ha="center", fontsize=8)
            continue
        left.errorbar([c.value], [y], xerr=[[c.value - c.low], [c.high - c.value]], fmt="o", color="black",
                      ecolor="grey", capsize=3)
    left.set_xlim(0, 1)
    left.set_yticks(ys, [safe_label(_name(g)) for g in groups])
    left.set_xlabel("share of items: same answer preferred in both orders")
    left.set_title(f"Position consistency (exact {100 * result.confidence:g}% interval)")
    left.axvline(1, color="lightgrey", lw=0.8)
    for y, g in zip(ys, groups):
        parts = [(g.primacy, "primacy (first slot twice)", "#1f77b4"),
                 (g.recency, "recency (second slot twice)", "#ff7f0e"),
                 (g.ties_inconsistent, "one tie", "#bbbbbb")]
        start = 0
        for count, label, colour in parts:
            right.barh(y, count, left=start, color=colour, label=label if y == ys[0] else None)
            start += count
    right.set_xlabel("inconsistent items")
    right.set_title("Which slot won when the verdict flipped")
    if groups:
        right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.28), ncol=2, fontsize=7, frameon=False)
    return left
