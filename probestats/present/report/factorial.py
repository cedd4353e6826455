"""The report of an I × J factor design: cell and level means, the within-item permutation tests
and the repeated-measures ANOVA beside them (Markdown, HTML or JSON), through the report's Jinja
environment (every value from the log escaped)."""

from __future__ import annotations


from probestats import __version__
from probestats.errors import OptionError, count_of
from probestats.present.report.groups import pooled_words
from probestats.present.report.metrics import limits_of
from probestats.present.words.fmt import fmt_num, fmt_p
from probestats.present.words.verdict import verdict_line
from probestats.result import SCHEMA_VERSION, dumps, jsonable
from probestats.shape.design import Design

__all__ = ["factorial_context", "render_factorial_report"]


def factorial_context(analysis) -> dict:
    """Rows of the means table, the tests, the ANOVA rows and the sentences."""
    f1, f2 = analysis.factors
    la, lb = analysis.levels
    alpha = analysis.alpha
    rows = [{"level": a, "cells": [analysis.cell_means[f"{a} × {b}"] for b in lb],
             "mean": analysis.level_means[f1][a]} for a in la]
    tests = [{"name": t.name, "statistic": t.statistic, "p": t.pvalue, "p_adjusted": t.p_adjusted,
              "method": t.method} for t in analysis.tests]
    anova = [] if analysis.anova is None else [
        {"name": r.effect, "text": f"F({r.df1:g}, {r.df2:g}) = {fmt_num(r.f)}, p = {fmt_p(r.pvalue)}, "
                                   f"partial eta² = {fmt_num(r.partial_eta_squared)}"} for r in analysis.anova]
    sentences = [
        f"Tests: within-item permutation tests of each main effect and of the interaction "
        f"({count_of(analysis.n_items, 'item')}, {len(la)} × {len(lb)} levels), p corrected across the three "
        f"({analysis.correction}), alpha {alpha:g}. A main effect permutes the item's level means; the interaction "
        f"permutes the rows of the item's table of '{f1}' levels with each row's mean taken off.",
        "Beside them, the repeated-measures ANOVA on the item means (statsmodels AnovaRM): "
        f"{analysis.anova_assumption}; partial eta squared = F df1 / (F df1 + df2).",
    ]
    verdict = analysis.verdict   # decided once, in the analysis
    if verdict.detected:
        finding = [f"After correction, an effect larger than chance: {', '.join(verdict.found)}. It says where the "
                   "difference is, not why."]
    else:
        finding = ["No effect was larger than chance after correction; this does not show that the system is "
                   "unbiased, only that these items and runs could not tell an effect from chance."]

    sentences.append(verdict_line(verdict))
    return {"factors": [f1, f2], "levels_b": list(lb), "rows": rows,
            "b_means": [analysis.level_means[f2][b] for b in lb], "tests": tests, "anova": anova,
            "metric": analysis.metric, "n_items": analysis.n_items, "sentences": sentences, "finding": finding}


def render_factorial_report(analysis, *, format: str = "md", templates=None, source: str | None = None,
                            design=None) -> str:
    """The report of a :class:`~probestats.analyses.factors_many_levels.FactorialAnalysis`: Summary, design facts, the
    factor section, Finding and Limits (``design``: the design file's facts, placeholders for the rest)."""
    # lazy: present.report.environment and present.report.outline import jinja2
    from probestats.present.report.environment import environment, tidy_layout, user_template_errors
    from probestats.present.report import outline as other

    if format not in ("md", "html", "json"):
        raise OptionError(f"unknown report format '{format}'; use one of md, html, json")

    design = design or Design()
    ctx = factorial_context(analysis)
    limits = limits_of(analysis.n_items, [analysis.metric], design)
    title = f"Probe report: {analysis.metric}, {analysis.factors[0]} × {analysis.factors[1]}"
    (f1, f2), (la, lb) = analysis.factors, analysis.levels
    facts = other.design_facts(design, metric=analysis.metric, values=[
        f"{', '.join(repr(x) for x in la)} of {f1}", f"{', '.join(repr(x) for x in lb)} of {f2}"],
        compared="the levels", items=list(analysis.items),
        runs=f"{analysis.runs_per_cell} runs per item and cell (median){pooled_words(analysis)}")
    finding = other.effects_finding(analysis, ctx["finding"])
    context, sentences, names = other.own_report("factorial", ctx, summary=other.effects_summary(analysis),
                                                 facts=facts, finding=finding, limits=limits, format=format)
    if format == "json":
        out = {"schema_version": SCHEMA_VERSION, **analysis.to_dict()}
        out["report"] = {"title": title, "sections": names, "sentences": sentences, "design": design.to_dict()}
        return dumps(jsonable(out)) + "\n"
    env = environment(format, templates)
    with user_template_errors(templates):
        text = env.get_template(f"report.{format}.j2").render(
            title=title, version=__version__, source=source or "the log", full=True, images={},
            alpha=analysis.alpha, **context)
    return tidy_layout(text, format)
