"""Figures for the report: per-item gaps against the same-versus-same noise.

Figures are drawn on a :class:`matplotlib.figure.Figure` through the Agg canvas: pyplot
is never imported, nothing is shown, and no display is needed. Text taken from a log
(item names) is untrusted: ``$`` would switch matplotlib to mathtext, so it is escaped.
"""

from __future__ import annotations
from probestats.errors import caught_warnings, count_of

import io
import warnings

__all__ = ["item_gaps", "plotted_items", "safe_label", "noise_band", "figure_png"]

MAX_LABEL = 40
ITEM_PLOT_LIMIT = 40  # items drawn one per row; beyond, the largest and smallest gaps and a summarized middle
ITEM_PLOT_ENDS = 15  # items drawn at each end when the middle is summarized


def safe_label(text, limit: int = MAX_LABEL) -> str:
    """Text from a log made safe to draw: one line, ``$`` escaped, long text cut.

    Examples
    --------
    >>> safe_label("costs $5 and $6")
    'costs \\\\$5 and \\\\$6'
    >>> safe_label("two\\nlines")
    'two lines'
    >>> len(safe_label("x" * 100))
    40
    """
    text = " ".join(str(text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("\\", "\\\\").replace("$", r"\$")


def noise_band(analysis) -> tuple[float, str] | None:
    """Half-width of the noise band drawn around zero, and what it is.

    The band is ± the largest absolute item gap of the same-versus-same log (of the log's own halves: the
    largest item's root mean square over every split): a gap inside it is no larger than what a change of
    draw alone produced. None without a noise reference.
    """
    noise = getattr(analysis, "noise", None)
    if noise is None or noise.items.height == 0:
        return None
    width = float(noise.items["gap"].abs().max())
    if noise.sign_flip is None:   # the log's own halves: each item's gap over every split
        return width, f"± {width:.3g}: the largest item's half-against-half gap over every split (root mean square)"
    return width, f"± {width:.3g}: the largest item gap of the same-versus-same log"


def _new_axes(height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(6.4, height + 0.5), layout="constrained").subplots()


def item_gaps(analysis, ax=None):
    """Dot plot of the per-item gaps, with the noise band and the average gap line.

    Parameters
    ----------
    analysis : Analysis
        From :func:`probestats.analyze`; its ``noise`` (when present) gives the band.
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made when None.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> from probestats.analyses.dispatch import analyze_shaped
    >>> from probestats.analyses.question import Question, Run
    >>> rows = [{"item": f"q${i}", "variant": v, "seed": s, "steps": 4 + (v == "a") * (i % 3) + s % 2}
    ...         for i in range(6) for v in ("a", "b") for s in range(3)]
    >>> ax = item_gaps(analyze_shaped(rows, Question("steps"), run=Run(mdg=False)))
    >>> [t.get_text() for t in ax.get_yticklabels()][:2]
    ['q\\\\$0', 'q\\\\$1']
    >>> figure_png(ax.figure)[:4]
    b'\\x89PNG'
    """
    main = analysis.main
    items, gaps, middle = plotted_items(main.items["item"].to_list(), main.items["gap"].to_list())
    items = [safe_label(i) for i in items]
    if ax is None:
        ax = _new_axes(max(2.4, 1.2 + 0.32 * len(items)))
    y = list(range(len(items)))[::-1]
    if middle is not None:  # the summarized middle: a bar over its range, on its own row
        row = y[middle["row"]]
        ax.hlines(row, middle["low"], middle["high"], color="0.45", linewidth=6, zorder=3,
                  label=f"{middle['n']} middle items (range of their gaps)")
        keep = [k for k in range(len(items)) if k != middle["row"]]
        ydots, gaps = [y[k] for k in keep], [gaps[k] for k in keep]
    else:
        ydots = y
    band = noise_band(analysis)
    if band is not None:
        ax.axvspan(-band[0], band[0], color="0.85", zorder=0, label=f"noise band ({band[1]})")
    ax.axvline(0, color="0.5", linewidth=0.8, zorder=1)
    ax.axvline(main.average_gap, color="#b2182b", linestyle="--", linewidth=1.2, zorder=2,
               label=f"average gap {main.average_gap:+.3g}")
    colors = ["#2166ac" if g > 0 else "#b2182b" if g < 0 else "0.3" for g in gaps]
    ax.scatter(gaps, ydots, color=colors, zorder=3, s=28)
    ax.set_yticks(y, items)
    ax.set_ylim(-0.7, len(items) - 0.3)
    ax.set_xlabel(safe_label(f"gap in {main.metric}: mean under '{main.a}' − mean under '{main.b}'", 90))
    ax.set_title(safe_label(f"Per-item gaps, {count_of(main.n_items, 'item')}", 90), fontsize="medium")
    if ax.figure.get_layout_engine() is not None:
        ax.figure.legend(fontsize="small", loc="outside lower center", frameon=False)
    else:
        ax.legend(fontsize="small", loc="best")
    ax.grid(axis="x", color="0.92")
    return ax


def plotted_items(items: list, gaps: list, limit: int = ITEM_PLOT_LIMIT, shown: int = ITEM_PLOT_ENDS):
    """The rows of the item plot: every item when there are at most ``limit``; beyond, the items
    sorted by gap, the ``shown`` largest and smallest each on its row, and the middle summarized
    as one row (its count and the range of its gaps).

    Returns ``(labels, gaps, middle)``; the middle row's gap is None and ``middle`` describes it
    (``label``, ``n``, ``low``, ``high``), or is None when nothing is summarized.

    Examples
    --------
    >>> labels, gaps, middle = plotted_items([str(i) for i in range(100)], [i / 10 for i in range(100)])
    >>> len(labels), labels[:2], labels[15], middle["n"], (middle["low"], middle["high"])
    (31, ['99', '98'], '70 items between 1.5 and 8.4', 70, (1.5, 8.4))
    >>> plotted_items(["a", "b"], [1.0, -1.0])
    (['a', 'b'], [1.0, -1.0], None)
    """
    if len(items) <= limit:
        return list(items), list(gaps), None
    order = sorted(zip(items, gaps), key=lambda t: -t[1])
    top, mid, bottom = order[:shown], order[shown:-shown], order[-shown:]
    low, high = min(g for _, g in mid), max(g for _, g in mid)
    label = f"{len(mid)} items between {low:.3g} and {high:.3g}"
    middle = {"label": label, "n": len(mid), "low": low, "high": high, "row": len(top)}
    return ([str(i) for i, _ in top] + [label] + [str(i) for i, _ in bottom],
            [g for _, g in top] + [None] + [g for _, g in bottom], middle)


def figure_png(figure, dpi: int = 110) -> bytes:
    """The figure as PNG bytes (Agg canvas); missing-glyph warnings for unusual scripts are not errors."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if figure.canvas is None or not isinstance(figure.canvas, FigureCanvasAgg):
        FigureCanvasAgg(figure)
    buf = io.BytesIO()
    with caught_warnings():
        warnings.filterwarnings("ignore", message="Glyph .* missing from")
        warnings.filterwarnings("ignore", message=".*missing from font")
        figure.savefig(buf, format="png", dpi=dpi)
    return buf.getvalue()
