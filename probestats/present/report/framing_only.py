"""A report whose only analysis is the dual framing: Summary, the framing cells, two heat maps, the detail.

``probestats report --framing LOG -o FILE`` without a probe log writes this report. It is laid
out around the framing result: a Summary (how answers were read, one sentence per cell), the
cells with their languages, a heat map of the lean and one of acquiescence, then the detail
(the framing section as the full report shows it: tables of languages and wrappers, the
label audit, unparsed replies, warnings).

Examples
--------
>>> from probestats.analyses.framing import analyze_framing, demo_rows
>>> text = render_framing_report(analyze_framing(demo_rows()), source="demo")
>>> [line for line in text.splitlines() if line.startswith("#")][:4]
['# Dual-framing report', '## Summary', '## Framing cells', '## Dual framing']
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

from probestats import __version__
from probestats.errors import OptionError
from probestats.present.plots import framing as plots_framing
from probestats.present.plots.items import figure_png
from probestats.present.report.environment import environment, tidy_layout, user_template_errors
from probestats.present.report.files import write_figures
from probestats.present.report.framing import framing_sentences
from probestats.present.report.plain import render_plain
from probestats.present.words.fmt import MdSafe
from probestats.result import SCHEMA_VERSION, jsonable

__all__ = ["render_framing_report", "framing_details"]

TITLE = "Dual-framing report"
SECTIONS = ("framing_overview", "framing")
_FIGURES = {
    "framing_lean": ("Heat map of the lean per cell", "bias"),
    "framing_acquiescence": ("Heat map of acquiescence per cell", "acquiescence"),
    "framing_dots": ("Per-framing aligned means per cell", None),
}


def _captions(result, plain: bool = False) -> dict[str, str]:
    binary = result.answers == "yes-no"
    scale = "−1 to +1, yes/no answers" if binary else "−2 to +2, agreement scale"
    test = (f"exact sign-flip test across matched items, p adjusted across cells ({result.correction}), "
            f"alpha {result.alpha:g}")
    if plain:   # the test by what it asks; its method in the report's details
        test = f"a test across matched items, p corrected for the cells tested together, at alpha {result.alpha:g}"
    return {
        "framing_lean": (f"Lean per cell ({scale}): blue leans toward the reference target, red toward the other. "
                            f"Under each cell's number its pattern ({test}); n.s.: no lean detected, which does not "
                            "show that there is none. Per-language squares show the language's own lean."),
        "framing_acquiescence": (f"Acquiescence per cell ({scale}): blue agrees (says yes) whatever the claim's "
                                 "direction, red disagrees (says no)"
                                 + ("; yea-saying above zero, nay-saying below" if binary else "") + "."),
        "framing_dots": ("Per cell: mean aligned score of the affirmative prompts (circle) and of the reverse "
                         "prompts (square); black mark: the bias, with its interval in grey."),
    }


def _figures(result) -> dict[str, bytes]:
    out = {}
    for name, (_, what) in _FIGURES.items():
        ax = (plots_framing.framing_dots(result) if what is None
              else plots_framing.framing_heatmap(result, what=what))
        out[name] = figure_png(ax.figure)
    return out


def render_framing_report(result, *, format: str = "md", templates=None, assets_dir=None, source=None,
                          plain=None) -> str:
    """Render the framing-only report as Markdown, one self-contained HTML page, or JSON.

    Parameters
    ----------
    result : FramingResult
    format : {"md", "html", "json"}
    templates : path, optional
        A folder whose templates replace the shipped ones of the same name.
    assets_dir : path, optional
        Markdown only: where the plots are written as PNG (linked relatively).
    source : str, optional
        What the log is called.
    plain : list, optional
        A report for people who do not code (see :mod:`probestats.present.report.plain`): each test named by
        what it asks, how each figure was computed in the method details at the end, with the command-line
        spellings of the options its text names in words (this list, filled while the report is made); None
        for the report as usual.

    Returns
    -------
    str
    """
    if format not in ("md", "html", "json"):
        raise OptionError(f"unknown report format '{format}'; use one of md, html, json")
    sentences = framing_sentences(result, plain=plain is not None)
    if format == "json":
        out = {"schema_version": SCHEMA_VERSION, "framing": result.to_dict(),
               "report": {"title": TITLE, "sections": list(SECTIONS), "sentences": {"framing": sentences}}}
        return json.dumps(jsonable(out), ensure_ascii=False, indent=2, allow_nan=False, default=str) + "\n"

    env = environment(format, templates)
    with user_template_errors(templates):
        template = env.get_template(f"report.{format}.j2")
    pngs = _figures(result) if (format == "html" or assets_dir is not None) else {}
    captions = _captions(result, plain is not None)
    images = {}
    for name, png in pngs.items():
        src = ("data:image/png;base64," + base64.b64encode(png).decode("ascii") if format == "html"
               else MdSafe(f"{quote(Path(assets_dir).name)}/{name}.png"))
        images[name] = {"src": src, "alt": _FIGURES[name][0], "caption": captions[name]}
    ctx = {"title": TITLE, "version": __version__, "source": str(source or "the framing log"), "full": True,
           "sections": list(SECTIONS), "section_templates": {n: f"{n}.{format}.j2" for n in SECTIONS},
           "framing": result, "framing_sentences": sentences, "images": images, "alpha": result.alpha,
           "plain": plain is not None}
    with user_template_errors(templates):
        if plain is not None:
            text = render_plain(template, {**ctx, "details": framing_details(result)}, plain)
        else:
            text = template.render(ctx)
    if format == "md" and assets_dir is not None and pngs:
        # as every report: written with the report itself, never over a file probestats did not write
        write_figures(assets_dir, pngs)
    return tidy_layout(text, format)


def framing_details(result) -> list[tuple[str, str]]:
    """How each figure of a framing was computed: the method details of a plain report, (what, how).

    >>> from probestats.analyses.framing import analyze_framing, demo_rows
    >>> [what for what, _ in framing_details(analyze_framing(demo_rows()))]
    ['The test of each cell', 'The interval of each lean', 'The correction for several cells', 'The unit']
    """
    binary = result.answers == "yes-no"
    cis = [c.bias_ci for c in result.cells if c.bias_ci and c.bias_ci.get("method")]
    test = ("the exact sign-flip test across matched items (each item's aligned mean given a random sign, over "
            "and over); a language or cell of one item is tested across the runs of its one prompt")
    if binary:
        test += "; with one answer per framing, McNemar's exact test"
    return [
        ("The test of each cell", test),
        ("The interval of each lean", f"{100 * result.confidence:g}% interval, "
                                      + (cis[0]["method"] if cis else "none (fewer than two items)")),
        ("The correction for several cells", f"p adjusted across {len(result.cells)} cells ({result.correction}); "
                                             f"alpha {result.alpha:g}"),
        ("The unit", "the matched item ("
                     + (", ".join(map(str, result.item_columns)) if result.item_columns else "the one item")
                     + "): one claim in one language, asked in both framings; its iterations are runs"),
    ]
