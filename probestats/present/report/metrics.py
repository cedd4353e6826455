"""The report of several metrics: a groups × metrics table of the chosen effect size with the
family-corrected p, every test beside it, and a heatmap (Markdown, HTML or JSON).

Words are chosen here from a :class:`~probestats.analyses.metrics.MetricsAnalysis`; the
templates ``metrics.md.j2`` / ``metrics.html.j2`` (and ``limits``) lay them out through the
report's Jinja environment, so every value from the log is escaped.
"""

from __future__ import annotations


from probestats import __version__
from probestats.errors import OptionError, count_of
from probestats.present.plots.items import figure_png
from probestats.present.plots.metrics import effect_heatmap
from probestats.present.report.files import image_entry, write_figures
from probestats.present.words.metrics import metrics_context
from probestats.present.words.runs import runs_words
from probestats.result import SCHEMA_VERSION, dumps, jsonable
from probestats.shape.design import Design

__all__ = ["render_metrics_report"]


def limits_of(n: int, metrics: list[str], design=None) -> list:
    """The limits of a report of its own (several metrics, a factor design): the design file's, or placeholders."""
    from probestats.present.report.outline import design_limits   # lazy: present.report.outline imports jinja2

    return design_limits(design or Design(), size=f"up to {count_of(n, 'item')}",
                         cannot_see=f"what {', '.join(metrics)} cannot see", subject="this probe")


def _heatmap(analysis, format: str, assets_dir) -> tuple[dict, dict]:
    png = figure_png(effect_heatmap(analysis).figure)
    alt = "Heatmap of the effect size per group and metric"
    caption = (f"{analysis.effect_size} per group (rows) and metric (columns); a star marks a sign-flip p at most "
               f"alpha {analysis.alpha:g} after {analysis.family_text}.")
    return image_entry("metrics_heatmap", png, alt, caption, format, assets_dir)


def render_metrics_report(analysis, *, format: str = "md", templates=None, assets_dir=None, design=None,
                          source: str | None = None) -> str:
    """The report of several metrics (see the module's description).

    >>> from probestats.analyses.dispatch import analyze_shaped
    >>> from probestats.analyses.question import Question, Run
    >>> rows = [{"item": i, "variant": v, "x": i + (v == "a"), "y": i * (v == "a")}
    ...         for i in range(6) for v in ("a", "b")]
    >>> text = render_metrics_report(analyze_shaped(rows, Question("x,y"), run=Run(mdg=False)))
    >>> text.splitlines()[0]
    '# Probe report: x, y'
    """
    # lazy: present.report.environment imports jinja2
    from probestats.present.report.environment import environment, tidy_layout, user_template_errors

    if format not in ("md", "html", "json"):
        raise OptionError(f"unknown report format '{format}'; use one of md, html, json")
    # lazy: present.report.outline imports jinja2
    from probestats.present.report import outline as other

    design = design or Design()
    ctx = metrics_context(analysis)
    n = max((t.result.n_items for t in analysis.family), default=0)
    limits = limits_of(n, analysis.metrics, design)
    title = f"Probe report: {', '.join(analysis.metrics)}"
    first = analysis.analyses[0]
    items = [str(i) for i in first.main.items["item"].to_list()]
    facts = other.design_facts(design, metric=", ".join(analysis.metrics), values=[f"'{first.main.a}'", f"'{first.main.b}'"],
                               compared="the 2 values", items=items, frame=getattr(first.checked, "frame", None),
                               runs=f"{runs_words(first.main, first.verdict)} (metric {first.metric})")
    facts[0]["read"] = analysis.probe_design.sentence   # what the analysis took the probe to be, first
    facts = (facts[0], [facts[0]["read"], *facts[1]])
    context, sentences, names = other.own_report("metrics", ctx, summary=other.metrics_summary(analysis), facts=facts,
                                                 finding=other.metrics_finding(analysis), limits=limits,
                                                 format=format)
    if format == "json":
        out = {"schema_version": SCHEMA_VERSION, **analysis.to_dict()}
        out["report"] = {"title": title, "sections": names, "sentences": sentences, "design": design.to_dict()}
        return dumps(jsonable(out)) + "\n"
    env = environment(format, templates)
    images, pngs = _heatmap(analysis, format, assets_dir)
    with user_template_errors(templates):
        text = env.get_template(f"report.{format}.j2").render(
            title=title, version=__version__, source=source or "the log", full=True, images=images,
            alpha=analysis.alpha, **context)
    if pngs and assets_dir is not None:
        # as every report: written with the report itself, never over a file probestats did not write
        write_figures(assets_dir, pngs)
    return tidy_layout(text, format)
