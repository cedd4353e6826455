"""Figures for dual-framing results: a heat map of the lean and a per-framing dot chart.

Drawn on a :class:`matplotlib.figure.Figure` through the Agg canvas: pyplot is never
imported and nothing is shown. Text from the log (model and topic names) goes through
:func:`probestats.present.plots.items.safe_label`.

Examples
--------
>>> from probestats.analyses.framing import analyze_framing, demo_rows
>>> ax = framing_heatmap(analyze_framing(demo_rows()))
>>> ax.get_title()
'Lean per cell'
"""

from __future__ import annotations

import numpy as np

from probestats.present.plots.items import safe_label

__all__ = ["framing_acquiescence_heatmap", "framing_heatmap", "framing_dots"]

PATTERN_MARK = {"protective": "protective", "assertive": "assertive", "symmetric": "symmetric", "none": "n.s."}


def _new_axes(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained").subplots()


def _row_and_column(cell, column: str = "topic") -> tuple[str, str]:
    """Heat-map row (every ``by`` value but the column's) and column (the topic, or the language) of a cell."""
    by = dict(cell.by)
    value = by.pop(column, None)
    row = " / ".join(str(v) for v in by.values()) or "all"
    return row, (f"all {column}s" if value is None else str(value))


_WHAT = {
    "bias": ("Lean per cell", "lean (+ toward reference)"),
    "acquiescence": ("Acquiescence per cell", "acquiescence (+ agrees)"),
}


def _heat_entries(result, what: str):
    """(row, column, value, mark, column name) per square: cells by topic or language, or per language."""
    by = tuple(result.by)
    column = "topic" if "topic" in by else "language" if "language" in by else None
    if column is None and getattr(result, "languages", ()):
        entries = []
        for lang in result.languages:
            row = " / ".join(str(v) for v in lang.by.values()) or "all"
            entries.append((row, str(lang.language), getattr(lang, what), "", "language"))
        return entries
    entries = []
    for c in result.cells:
        r, k = _row_and_column(c, column or "topic")
        entries.append((r, k, getattr(c, what), PATTERN_MARK.get(c.pattern, c.pattern), column or "topic"))
    return entries


def framing_heatmap(result, ax=None, what: str = "bias"):
    """Heat map of the lean (``what="bias"``) or the acquiescence per model (rows) and topic or language (columns).

    Columns are the topics when cells are split by topic, else the languages (the cells' own,
    with ``--by language``, or each cell's per-language results), else one column. Colours run
    over the whole scale (−2..+2 on the agreement scale, −1..+1 for yes/no answers; red below
    zero, blue above), so maps of different results compare. Under a cell's number its
    pattern; ``n.s.`` marks cells whose lean was not detected. The title is short and the
    figure at least wide enough for it, so it is never cut.

    Parameters
    ----------
    result : FramingResult
    ax : matplotlib Axes, optional
    what : {"bias", "acquiescence"}

    Returns
    -------
    matplotlib.axes.Axes
    """
    if what not in _WHAT:
        raise ValueError(f"what must be 'bias' or 'acquiescence', not {what!r}")
    entries = _heat_entries(result, what)
    rows, cols = [], []
    for r, k, _, _, _ in entries:
        if r not in rows:
            rows.append(r)
        if k not in cols:
            cols.append(k)
    values = np.full((len(rows), len(cols)), np.nan)
    marks = [["" for _ in cols] for _ in rows]
    for r, k, v, mark, _ in entries:
        i, j = rows.index(r), cols.index(k)
        values[i, j] = np.nan if v is None else v
        marks[i][j] = mark
    top = 1.0 if getattr(result, "answers", "agreement") == "yes-no" else 2.0
    if ax is None:
        ax = _new_axes(max(5.2, 2.6 + 1.1 * max(1, len(cols))), max(2.4, 1.6 + 0.55 * max(1, len(rows))))
    image = ax.imshow(np.ma.masked_invalid(values), cmap="RdBu", vmin=-top, vmax=top, aspect="auto")
    ax.set_xticks(range(len(cols)), [safe_label(c, 24) for c in cols], rotation=30 if len(cols) > 3 else 0,
                  ha="right" if len(cols) > 3 else "center")
    ax.set_yticks(range(len(rows)), [safe_label(r, 30) for r in rows])
    for i in range(len(rows)):
        for j in range(len(cols)):
            if np.isnan(values[i, j]):
                ax.text(j, i, "no data", ha="center", va="center", fontsize=8, color="0.4")
                continue
            dark = abs(values[i, j]) > 0.6 * top
            text = f"{values[i, j]:+.2f}" + (f"\n{marks[i][j]}" if marks[i][j] else "")
            ax.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if dark else "black")
    title, label = _WHAT[what]
    bar = ax.figure.colorbar(image, ax=ax, shrink=0.9)
    bar.set_label(label, fontsize=8)
    ax.set_title(title, fontsize=11)
    ax.set_xlabel(entries[0][4] if entries else "topic")
    return ax


def framing_acquiescence_heatmap(result, ax=None):
    """Heat map of the acquiescence per cell (see :func:`framing_heatmap`).

    >>> from probestats.analyses.framing import analyze_framing, demo_rows
    >>> framing_acquiescence_heatmap(analyze_framing(demo_rows())).get_title()
    'Acquiescence per cell'
    """
    return framing_heatmap(result, ax=ax, what="acquiescence")


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
    >>> from probestats.analyses.framing import analyze_framing, demo_rows
    >>> ax = framing_dots(analyze_framing(demo_rows()))
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
    top = 1.0 if getattr(result, "answers", "agreement") == "yes-no" else 2.0  # yes/no scores are -1 and +1
    ax.set_xlim(-top - 0.05 * top, top + 0.05 * top)
    ax.set_ylim(-0.8, len(cells) - 0.2)
    ax.set_yticks(y, labels)
    ref = result.reference if isinstance(result.reference, str) else "each topic's reference"
    ax.set_xlabel(safe_label(f"aligned score (+ toward {ref})", 70))
    ax.set_title("Per-framing aligned means")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2, fontsize=7, frameon=False)
    return ax
