"""The report of an I × J factor design: cell and level means, the within-item permutation tests
and the repeated-measures ANOVA beside them (Markdown, HTML or JSON), through the report's Jinja
environment (every value from the log escaped)."""

from __future__ import annotations

import re

from probestats import __version__
from probestats.errors import OptionError, count_of
from probestats.present.fmt import fmt_num, fmt_p

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
    detected = [t.name for t in analysis.tests if t.p_adjusted is not None and t.p_adjusted <= alpha]
    sentences = [
        f"Tests: within-item permutation tests of each main effect and of the interaction "
        f"({count_of(analysis.n_items, 'item')}, {len(la)} × {len(lb)} levels), p corrected across the three "
        f"({analysis.correction}), alpha {alpha:g}. A main effect permutes the item's level means; the interaction "
        f"permutes the rows of the item's table of '{f1}' levels with each row's mean taken off.",
        "Beside them, the repeated-measures ANOVA on the item means (statsmodels AnovaRM): "
        f"{analysis.anova_assumption}; partial eta squared = F df1 / (F df1 + df2).",
    ]
    if detected:
        sentences.append(f"After correction, an effect larger than chance: {', '.join(detected)}. It says where the "
                         "difference is, not why.")
    else:
        sentences.append("No effect was larger than chance after correction; this does not show that the system is "
                         "unbiased, only that these items and runs could not tell an effect from chance.")
    return {"factors": [f1, f2], "levels_b": list(lb), "rows": rows,
            "b_means": [analysis.level_means[f2][b] for b in lb], "tests": tests, "anova": anova,
            "metric": analysis.metric, "n_items": analysis.n_items, "sentences": sentences}


def render_factorial_report(analysis, *, format: str = "md", templates=None, source: str | None = None) -> str:
    """The report of a :class:`~probestats.analyses.factorial.FactorialAnalysis`."""
    from probestats.present.report import _environment, _user_template_errors
    from probestats.result import SCHEMA_VERSION, dumps, jsonable

    if format not in ("md", "html", "json"):
        raise OptionError(f"unknown report format '{format}'; use one of md, html, json")
    from probestats.present.metrics_report import limits_of

    ctx = factorial_context(analysis)
    limits = limits_of(analysis.n_items, [analysis.metric])
    title = f"Probe report: {analysis.metric}, {analysis.factors[0]} × {analysis.factors[1]}"
    if format == "json":
        out = {"schema_version": SCHEMA_VERSION, **analysis.to_dict()}
        out["report"] = {"title": title, "sections": ["factorial"], "sentences": {"factorial": ctx["sentences"]}}
        return dumps(jsonable(out)) + "\n"
    env = _environment(format, templates)
    with _user_template_errors(templates):
        text = env.get_template(f"report.{format}.j2").render(
            title=title, version=__version__, source=source or "the log", full=True, sections=["factorial", "limits"],
            section_templates={"factorial": f"factorial.{format}.j2", "limits": f"limits.{format}.j2"},
            factorial=ctx, limits=limits, images={},
            alpha=analysis.alpha)
    if format == "md":
        text = re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"
    return text
