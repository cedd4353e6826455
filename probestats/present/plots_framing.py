"""Figures for dual-framing results: a heat map of the lean and a per-framing dot chart.

Drawn on a :class:`matplotlib.figure.Figure` through the Agg canvas: pyplot is never
imported and nothing is shown. Text from the log (model and topic names) goes through
:func:`probestats.plots.safe_label`.

Examples
--------
>>> from probestats.analyses.framing import analyze_framing, _demo_rows
>>> ax = framing_heatmap(analyze_framing(_demo_rows()))
>>> ax.get_title()
'Lean per cell (bias, aligned score)'
"""

from __future__ import annotations

import numpy as np

from probestats.present.plots import safe_label

__all__ = ["framing_heatmap", "framing_dots"]

PATTERN_MARK = {"protective": "protective", "assertive": "assertive", "symmetric": "symmetric", "none": "n.s."}


def _new_axes(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained").subplots()


def _row_and_column(cell) -> tuple[str, str]:
    """Heat-map row (every ``by`` value but topic) and column (the topic) of a cell."""
    by = dict(cell.by)
    topic = by.pop("topic", None)
    row = " / ".join(str(v) for v in by.values()) or "all"
    return row, "all topics" if topic is None else str(topic)


def framing_heatmap(result, ax=None):
    """Heat map of the bias per model (rows) and topic (columns), each cell marked with its pattern.

    Colours run over the whole agreement scale (−2..+2, red toward the other target, blue
    toward the reference), so maps of different results compare. The pattern is written
    under the number; ``n.s.`` marks cells whose lean was not detected.

    Parameters
    ----------
    result : FramingResult
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
    """
    cells = list(result.cells)
    rows, cols = [], []
    for c in cells:
        r, k = _row_and_column(c)
        if r not in rows:
            rows.append(r)
        if k not in cols:
            cols.append(k)
    values = np.full((len(rows), len(cols)), np.nan)
    marks = [["" for _ in cols] for _ in rows]
    for c in cells:
        r, k = _row_and_column(c)
        i, j = rows.index(r), cols.index(k)
        values[i, j] = np.nan if c.bias is None else c.bias
        marks[i][j] = PATTERN_MARK.get(c.pattern, c.pattern)
    if ax is None:
        ax = _new_axes(2.6 + 1.3 * max(1, len(cols)), 1.4 + 0.55 * max(1, len(rows)))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=-2, vmax=2, aspect="auto")
    ax.set_xticks(range(len(cols)), [safe_label(c, 24) for c in cols], rotation=30 if len(cols) > 3 else 0,
                  ha="right" if len(cols) > 3 else "center")
    ax.set_yticks(range(len(rows)), [safe_label(r, 30) for r in rows])
    for i in range(len(rows)):
        for j in range(len(cols)):
            if np.isnan(values[i, j]):
                ax.text(j, i, "no data", ha="center", va="center", fontsize=8, color="0.4")
                continue
            dark = abs(values[i, j]) > 1.2
            ax.text(j, i, f"{values[i, j]:+.2f}\n{marks[i][j]}", ha="center", va="center", fontsize=8,
                    color="white" if dark else "black")
    bar = ax.figure.colorbar(image, ax=ax, shrink=0.9)
    bar.set_label("bias (+ toward the reference)")
    ax.set_title("Lean per cell (bias, aligned score)")
    ax.set_xlabel("topic")
    return ax


def framing_dots(result, ax=None):
    """Per-framing mean aligned scores per cell, with the bias between them (BiasLab's dot chart).

    For each cell (row) two dots: the mean aligned score of the affirmative and of the
    reverse prompts, and a bar for the bias with its interval. Dots on the same side of
    zero as the bias agree in direction; their distance apart is twice the
    acquiescence (with balanced framings).

    Parameters
    ----------
    result : FramingResult
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from probestats.analyses.framing import analyze_framing, _demo_rows
    >>> ax = framing_dots(analyze_framing(_demo_rows()))
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['m']
    """
    cells = list(result.cells)
    labels = [safe_label(" / ".join(str(v) for v in c.by.values()) or "all", 40) for c in cells]
    if ax is None:
        ax = _new_axes(6.4, 1.8 + 0.45 * max(1, len(cells)))
    y = np.arange(len(cells))[::-1]
    for yi, c in zip(y, cells):
        ci = c.bias_ci or {}
        if ci.get("low") is not None and ci.get("high") is not None:
            ax.plot([ci["low"], ci["high"]], [yi, yi], color="0.6", lw=3, solid_capstyle="butt", zorder=1)
    aff = [np.nan if c.aligned_affirmative is None else c.aligned_affirmative for c in cells]
    rev = [np.nan if c.aligned_reverse is None else c.aligned_reverse for c in cells]
    bias = [np.nan if c.bias is None else c.bias for c in cells]
    ax.scatter(aff, y, marker="o", s=45, color="tab:blue", label="affirmative prompts (aligned mean)", zorder=3)
    ax.scatter(rev, y, marker="s", s=45, color="tab:orange", label="reverse prompts (aligned mean)", zorder=3)
    ax.scatter(bias, y, marker="|", s=260, color="black", label="bias (interval in grey)", zorder=4)
    ax.axvline(0, color="0.3", lw=0.8)
    ax.set_xlim(-2.1, 2.1)
    ax.set_ylim(-0.8, len(cells) - 0.2)
    ax.set_yticks(y, labels)
    ref = result.reference if isinstance(result.reference, str) else "each topic's reference"
    ax.set_xlabel(safe_label(f"aligned score (+ toward {ref})", 70))
    ax.set_title("Per-framing aligned means")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=7, frameon=False)
    return ax
