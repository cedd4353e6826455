"""The report as one document: which sections a result has, in which order, and the Markdown, HTML or JSON
they render to, with its figures, the plain variant and the files written beside it.

The words of each section of a two-value analysis are :mod:`probestats.present.report.context`'s; the other
families' sections are their own modules'. :func:`render_report` is what ``probestats report`` renders.
"""

from __future__ import annotations

import base64
import html
import json
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import quote

from probestats import __version__
from probestats.errors import OptionError, count_of, opt
from probestats.present.plots.items import figure_png
from probestats.present.report import groups as parts, outline as other
from probestats.present.report.collapse import ITEMS_CSV, grouped_warnings, items_csv, many_table_files
from probestats.present.report.context import (DEFAULT_SECTIONS, FORMATS, PAIR_SECTIONS, SECTION_TEMPLATES, SECTIONS,
                                               analysis_kind, join_words, missing_section, quoted, report_context,
                                               report_figures)
from probestats.present.report.describe import add_coding_sections, unwrap
from probestats.present.report.environment import Todo, environment, tidy_layout, user_template_errors
from probestats.present.report.files import write_assets, write_figures
from probestats.present.report.framing import framing_summary
from probestats.present.report.judge import judge_context, judge_images, judge_summary
from probestats.present.report.outline import design_limits, kind_sections
from probestats.present.report.welch import welch_context, welch_files
from probestats.present.words.control import control_context, control_finding, control_of, control_summary
from probestats.present.words.fmt import MdSafe, tidy_p
from probestats.present.words.runlevel import run_rows, run_sentences
from probestats.present.words.verdict import caveat_sentences
from probestats.result import SCHEMA_VERSION, jsonable
from probestats.shape.design import Design

__all__ = ["available_sections", "render_report"]


def available_sections(analysis, *, framing=None, comparison=None, judge=None, describe=None,
                       validation=None) -> list[str]:
    """The sections a report of this result can show, in report order.

    >>> from probestats.analyses.dispatch import analyze_shaped
    >>> from probestats.analyses.question import Question, Run
    >>> rows = [{"item": i, "variant": v, "x": i + (v == "a")} for i in range(6) for v in ("a", "b")]
    >>> available_sections(analyze_shaped(rows, Question("x"), run=Run(mdg=False)))
    ['summary', 'design', 'table', 'tests', 'noise', 'power', 'finding', 'limits']
    """
    kind = analysis_kind(analysis)
    if kind == "pair":
        names = [s for s in PAIR_SECTIONS if (s != "groups" or analysis.groups)
                 and (s != "ceilings" or getattr(analysis, "scale", None) is not None)
                 and (s != "control" or control_of(analysis) is not None)]
        if comparison is not None:
            names.append("compare")
        if describe is not None:
            names.append("describe")
        if validation is not None:
            names.append("validation")
    else:
        names = kind_sections(kind) + (["control"] if control_of(analysis) is not None else [])
    if framing is not None:
        names.append("framing")
    if judge is not None:
        names.append("judge")
    return [s for s in SECTIONS if s in names]


def _sections(sections, framing, analysis=None, comparison=None, judge=None, describe=None,
              validation=None) -> list[str]:
    have = (available_sections(analysis, framing=framing, comparison=comparison, judge=judge, describe=describe,
                               validation=validation)
            if analysis is not None
            else list(DEFAULT_SECTIONS) + (["framing"] if framing is not None else [])
            + (["judge"] if judge is not None else []))
    if sections is None:
        return have
    if isinstance(sections, str):
        sections = [sections]
    chosen = []
    for name in sections:
        if name not in SECTIONS:
            raise OptionError(f"{opt('sections', name)}: unknown section; choose from {', '.join(SECTIONS)}")
        if name not in have:
            why = missing_section(name) or f"it belongs to a two-value comparison, and this report has {join_words(have)}"
            raise OptionError(f"{opt('sections', name)}: not in this report: {why}")
        if name not in chosen:
            chosen.append(name)
    if not chosen:
        raise OptionError("no sections asked for; choose from " + ", ".join(have))
    return [s for s in SECTIONS if s in chosen]


def _shaping_sentences(shaping) -> list[str]:
    """What --where and --derive did to the log before the analysis, in words."""
    shaping = shaping or {}
    out = [f"Rows from a list: {text}." for text in shaping.get("explode") or ()]
    out += [f"Coded from the replies: {text}." for text in shaping.get("code") or ()]
    out += [f"Joined: {text}." for text in shaping.get("lookup") or ()]
    out += list(shaping.get("counted") or ())   # metrics counted from the reply text, defined in words
    for text in shaping.get("derive") or ():
        out.append(f"Derived column: {text}.")
    if shaping.get("where"):
        out.append(f"Rows analyzed: only those where {shaping['where']}.")
    return out


def _other_context(analysis, kind: str, source, shaping, design: Design | None = None) -> dict:
    """The context of a report whose analysis is not one pair (many values, two factors): its Summary, design
    facts and Finding worded from the analysis's verdict, beside the section of its kind."""
    design = design or Design()
    metric = analysis.metric
    if kind == "many":
        title = f"Probe report: {metric} across {len(analysis.main.values)} values"
        section = parts.many_context(analysis)
        main = analysis.main
        values = [quoted(v.value) + (f" ({', '.join(v.names)})" if v.names else "") for v in main.values]
        facts, facts_sentences = other.design_facts(
            design, metric=metric, values=values, compared=f"the {len(values)} values", frame=analysis.frame,
            items=list(dict.fromkeys(str(i) for i in main.items["item"].to_list())),
            runs=f"{section['runs']} per item and value{section['pooled']}")
        summary = other.many_summary(analysis)
        finding = other.many_finding(analysis, section.pop("finding"))
    else:
        f1, f2 = analysis.factors
        title = f"Probe report: {metric}, {f1} × {f2}"
        section = parts.factors_context(analysis)
        (l1a, l1b), (l2a, l2b) = analysis.levels
        facts, facts_sentences = other.design_facts(
            design, metric=metric, values=[f"{quoted(l1a)} and {quoted(l1b)} of {f1}", f"{quoted(l2a)} and {quoted(l2b)} of {f2}"],
            compared="the levels", items=[str(i) for i in analysis.items["item"].to_list()],
            runs=f"{analysis.runs_per_cell} runs per item and cell (median){parts.pooled_words(analysis)}")
        summary = other.effects_summary(analysis)
        finding = other.effects_finding(analysis, section.pop("finding"))
    section["shaping"] = _shaping_sentences(shaping)
    facts["shaping"] = section["shaping"]
    if hasattr(analysis, "probe_design"):   # what the analysis took the probe to be, first
        facts["read"] = analysis.probe_design.sentence
        facts_sentences = [facts["read"], *facts_sentences]
    warnings_ = grouped_warnings(analysis.problems)
    section["warnings"] = warnings_
    limits = _other_limits(analysis, kind, design)
    control = control_context(analysis.verdict)
    summary_more = ([control_summary(analysis.verdict)] if control is not None else []) + caveat_sentences(analysis.verdict)
    finding = finding + control_finding(analysis.verdict)
    return {"title": title, "version": __version__, "metric": metric, "alpha": analysis.alpha,
            "source": str(source or "the log"), kind: section, "limits": limits, "control": control,
            "summary": summary, "summary_more": summary_more, "design": facts,
            "finding": {"sentences": finding, "detected": analysis.verdict.detected},
            "sentences": {"summary": [summary, *summary_more], "design": section["shaping"] + facts_sentences,
                          **({"control": control["sentences"]} if control is not None else {}),
                          kind: section["sentences"] + [f"Warning from validation: {w}" for w in warnings_],
                          "finding": finding,
                          "limits": [f"{label}: {value if isinstance(value, str) else '; '.join(value)}."
                                     for label, value in limits]},
            "placeholders": list(dict.fromkeys(
                [str(v) for v in facts.values() if isinstance(v, Todo)]
                + [str(v) for _, v in limits if isinstance(v, Todo)]))}


def _other_limits(analysis, kind: str, design: Design) -> list[tuple[str, object]]:
    """The limits of a many-values or two-factor report: what the design file says, or placeholders."""
    if kind == "many":
        n = analysis.main.n_items
        values = [v.value for v in analysis.main.values]
        what = f"a probe of the values {join_words([quoted(v) for v in values])}"
    else:
        n = analysis.n_items
        what = f"a probe of {quoted(analysis.factors[0])} and {quoted(analysis.factors[1])}, two levels each"
    return design_limits(design, size=count_of(n, "item"), cannot_see=f"what the metric {analysis.metric} cannot see",
                         subject=what)


@dataclass(frozen=True)
class Beside:
    """What a report shows beside its analysis, and what it states of the log that the analysis does not hold.

    Attributes
    ----------
    framing : optional
        A dual-framing result, shown as the ``framing`` section.
    comparison : Comparison, optional
        The same probe run before a change: shown as the ``compare`` section.
    judge : JudgeResult, optional
        An order probe of a pairwise judge, shown as the ``judge`` section.
    describe : Description, optional
        The distribution of the metric per value, shown as the ``describe`` section.
    shaping : dict, optional
        ``{"where": SQL, "derive": [...]}``: how the log was filtered and extended before the analysis, stated
        in the design.
    source : str, optional
        What the log is called (default: the analysis's own record of it).
    coded : str, optional
        How the metric was coded from the replies (``"the code book compass.csv"``, ``"a judge"``): named in
        the Limits, with its hand-checked sample when the analysis has one (a
        :class:`~probestats.analyses.hand_labels.ValidatedAnalysis`, whose ``validation`` section it adds and
        whose corrected verdict the report words).
    """

    framing: object = None
    comparison: object = None
    judge: object = None
    describe: object = None
    shaping: dict | None = None
    source: str | None = None
    coded: str | None = None


def render_report(analysis, *, format: str = "md", sections=None, templates=None, design: Design | None = None,
                  assets_dir=None, beside: Beside | None = None, plain=None) -> str:
    """Render the report of an analysis as Markdown, one self-contained HTML page, or JSON.

    Rendering reads the results only: the log is not read again and nothing is simulated
    (the power curve comes with the analysis, see :func:`probestats.analyses.plan.with_design_power`).

    Parameters
    ----------
    analysis : Analysis, ManyAnalysis, FactorAnalysis or Comparison
        A paired analysis (with ``--by`` groups and a judge's scale when it has them), many
        values, two factors, or a before/after comparison (reported as its after run with
        the ``compare`` section).
    format : {"md", "html", "json"}
    sections : list of str, optional
        Only these sections (see :data:`SECTIONS` and :func:`available_sections`), for pasting
        into a report of one's own.
    templates : path, optional
        A folder whose templates replace the shipped ones of the same name.
    design : Design, optional
        What the log cannot say; missing fields become visible placeholders.
    assets_dir : path, optional
        Markdown only: the folder beside the report where the plots are written as PNG
        (linked as ``<folder name>/<plot>.png``). Without it, Markdown has no plots.
        HTML embeds its plots; JSON has none.
    beside : Beside, optional
        The results shown beside the analysis (a framing, a before/after comparison, a judge's order probe, a
        description of the metric) and what the report states of the log (its shaping, its name, how the
        metric was coded): see :class:`Beside`.
    plain : list, optional
        A report for people who do not code (see :mod:`probestats.present.report.plain`): the options its
        messages named in words, with their command-line spellings (filled while the report is made);
        None for the report as usual.

    Returns
    -------
    str

    Examples
    --------
    >>> from probestats import analyze
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + (s % 3 == i % 2)}
    ...         for i in range(8) for v in ("formal", "casual") for s in range(1, 6)]
    >>> text = render_report(analyze(rows, metric="steps"), sections=["table"])
    >>> print(text.splitlines()[4])   # item 0: formal 5,5,6,5,5 (seed 3 adds one); casual 4,4,5,4,4
    | 0 | 5.2 | 4.2 | +1 | 5 / 5 |
    """
    if format not in FORMATS:
        raise OptionError(f"unknown report format '{format}'; use one of {', '.join(FORMATS)}")
    beside = beside or Beside()
    if hasattr(analysis, "change_test") and hasattr(analysis, "after"):  # a Comparison: its after run
        analysis, beside = analysis.after, replace(beside, comparison=analysis)

    analysis, validation = unwrap(analysis)   # a validated analysis: its corrected verdict is the one worded
    design = design or Design()
    kind = analysis_kind(analysis)
    names = _sections(sections, beside.framing, analysis, beside.comparison, beside.judge, describe=beside.describe,
                      validation=validation)
    ctx = _report_context(analysis, kind, design, beside, validation, plain=plain is not None)
    if format == "json":
        return _json_report(analysis, ctx, names, design, beside, validation)
    env = environment(format, templates)
    with user_template_errors(templates):
        template = env.get_template(f"report.{format}.j2")  # a missing template fails before any file is written
    images, pngs = _report_images(analysis, ctx, names, design, format, assets_dir)
    files = _report_files(analysis, ctx, names, format, assets_dir)
    beside_images, beside_pngs = _beside_images(beside, names, format, assets_dir, plain=plain is not None)
    images.update(beside_images)
    pngs.update(beside_pngs)
    _plain_context(ctx, kind, plain)
    ctx.update(sections=names, images=images, full=sections is None,
               section_templates={n: f"{SECTION_TEMPLATES.get(n, n) if kind == 'pair' or n != 'design' else 'facts'}"
                                     f".{format}.j2" for n in names})
    with user_template_errors(templates):
        if ctx.get("spellings"):  # a plain report lists the spellings of the options its text names in words
            text = template.render({**ctx, "spellings": []})
            named = [(w, flag) for w, flag in ctx["spellings"] if w in text or html.escape(w) in text]
            text = template.render({**ctx, "spellings": named})
        else:
            text = template.render(ctx)
    if format == "md" and assets_dir is not None and pngs:
        # rendered without error: the images (staged with the report itself when the caller writes both together)
        write_figures(assets_dir, pngs)
    if format == "md" and assets_dir is not None and files:
        write_assets(assets_dir, files)

    text = tidy_p(text)
    return tidy_layout(text, format)


def _report_context(analysis, kind: str, design: Design, beside: Beside, validation, *, plain: bool) -> dict:
    """The templates' context of the analysis (a pair's sections, another kind's), with the results shown
    beside it and every sentence's p-values tidied."""
    framing, judge = beside.framing, beside.judge
    if kind == "pair":
        ctx = report_context(analysis, design, framing=framing, plain=plain)
        ctx["design"]["shaping"] = _shaping_sentences(beside.shaping)
        ctx["sentences"]["design"] = ctx["design"]["shaping"] + ctx["sentences"]["design"]
        if beside.source is not None:
            ctx["source"] = str(beside.source)
        _add_pair_sections(ctx, analysis, beside.comparison, plain=plain)
        add_coding_sections(ctx, describe=beside.describe, validation=validation, coded=beside.coded)
    else:
        ctx = _other_context(analysis, kind, beside.source, beside.shaping, design)
        ctx["framing"] = framing
        if framing is not None and callable(getattr(framing, "sentences", None)):
            ctx["sentences"]["framing"] = [str(s) for s in framing.sentences()]
    if judge is not None:
        ctx["judge"] = judge_context(judge, plain=plain)
        ctx["sentences"]["judge"] = ctx["judge"]["sentences"]
    _summaries_beside(ctx, framing, judge, plain=plain)

    ctx["sentences"] = {k: [tidy_p(str(x)) for x in v] for k, v in ctx["sentences"].items()}
    return ctx


def _json_report(analysis, ctx: dict, names, design: Design, beside: Beside, validation) -> str:
    """The report as JSON: the analysis's own object, the report's title, sections, sentences, design and
    placeholders, and each result shown beside it whose section is asked for."""
    out = {"schema_version": SCHEMA_VERSION, **analysis.to_dict()}
    out["report"] = {
        "title": ctx["title"], "sections": names,
        "sentences": {k: v for k, v in ctx["sentences"].items() if k in names},
        "design": design.to_dict(), "placeholders": ctx["placeholders"],
    }
    framing, comparison, judge, describe = beside.framing, beside.comparison, beside.judge, beside.describe
    if framing is not None and "framing" in names and hasattr(framing, "to_dict"):
        out["report"]["framing"] = framing.to_dict()
    if judge is not None and "judge" in names:
        out["report"]["judge"] = judge.to_dict()
    if comparison is not None and "compare" in names:
        out["compare"] = comparison.to_dict()
    if validation is not None and "validation" in names:
        out["validation"] = validation.to_dict()
    if describe is not None and "describe" in names:
        out["describe"] = describe.to_dict()
    return json.dumps(jsonable(out), ensure_ascii=False, indent=2, allow_nan=False, default=str) + "\n"


def _report_images(analysis, ctx: dict, names, design: Design, format: str, assets_dir) -> tuple[dict, dict]:
    """A pair's figures as the templates show them (embedded in HTML, linked beside Markdown with an
    ``assets_dir``, none otherwise) and as PNG bytes by name."""
    figures = report_figures(analysis, ctx, names, design) if analysis_kind(analysis) == "pair" else {}
    images = {}
    if format == "html":
        for name, fig in figures.items():
            images[name] = {"src": "data:image/png;base64," + base64.b64encode(fig.png).decode("ascii"),
                            "alt": fig.alt, "caption": fig.caption}
    elif assets_dir is not None:
        for name, fig in figures.items():
            images[name] = {"src": MdSafe(f"{quote(Path(assets_dir).name)}/{name}.png"), "alt": fig.alt,
                            "caption": fig.caption}
    return images, {name: fig.png for name, fig in figures.items()}


def _report_files(analysis, ctx: dict, names, format: str, assets_dir) -> dict[str, bytes]:
    """The tables written beside the report: a pair's item table and Welch's t per item or group, or the
    whole per-item table of many values beside a report that shows only some."""
    kind = analysis_kind(analysis)
    files = _table_file(ctx, analysis, names, format, assets_dir) if kind == "pair" else {}
    if kind == "many" and "many" in names:   # the whole per-item table beside a report that shows only some
        files = many_table_files(ctx["many"], analysis.main, format, assets_dir)
    if kind == "pair" and "tests" in names and ctx["tests"].get("welch"):   # Welch's t per item or group

        files.update(welch_files(ctx["tests"]["welch"], analysis, format, assets_dir))
    return files


def _beside_images(beside: Beside, names, format: str, assets_dir, *, plain: bool) -> tuple[dict, dict]:
    """The figures of the framing and the judge's order probe shown beside the analysis, as images and PNG
    bytes by name."""
    images, pngs = {}, {}
    if beside.framing is not None and "framing" in names:
        framing_images, framing_pngs = _framing_images(beside.framing, format, assets_dir)
        images.update(framing_images)
        pngs.update(framing_pngs)
    if beside.judge is not None and "judge" in names:
        judge_refs, judge_pngs = judge_images(beside.judge, format, assets_dir, plain=plain)
        images.update(judge_refs)
        pngs.update(judge_pngs)
    return images, pngs


def _plain_context(ctx: dict, kind: str, named) -> None:
    """A plain report's context: ``plain`` for the templates, and ``details``, how each figure was computed
    (taken out of the text above it) with the command-line spellings of the options named in words."""
    ctx["plain"] = named is not None
    if named is None:
        return
    details = []
    if kind == "pair":
        tests = ctx["tests"]
        details.append(("The sign-flip test", tests["sign_flip"]["method"]))
        sign = tests["sign_test"]
        details.append(("The sign test", sign["method"] + (f"; as a spreadsheet formula, {sign['formula']}"
                                                           if sign.get("formula") else "")))
        interval = tests["interval"]
        details.append(("The interval", interval["method"] + (f"; it {interval['assumption']}"
                                                              if interval.get("assumption") else "")))
        effects = tests.get("effects")
        if effects:
            details.append(("The SD of the item gaps", effects["sd_formula"]))
            details += [(e["plain"].split(":")[0], f"{e['text']}; {e['formula']}; its interval: {e['method']}")
                        for e in effects["effects"]]
            details += [(t["plain"].split(":")[0], f"{t['text']}; {t['method']}; assumes {t['assumption']}")
                        for t in effects["published"]]
        rows = (ctx.get("groups") or {}).get("rows") or []
        if rows and rows[0].get("d_z") is not None:
            details.append(("The effect sizes of each group", f"{rows[0]['d_z_name']} and {rows[0]['d_av_name']} "
                            f"({rows[0]['d_z_formula']}; {rows[0]['d_av_formula']}); the p beside them is the "
                            "paired t-test's, on the item means"))
        noise = ctx.get("noise") or {}
        if noise.get("present") and noise.get("method"):
            details.append(("The same-versus-same gap over every split" if noise.get("over_splits")
                            else "The same-versus-same sign-flip test", noise["method"]))
        power = ctx.get("power") or {}
        methods = [x for x in power.get("sentences", []) if str(x).startswith("Method: ")]
        if methods:
            power["sentences"] = [x for x in power["sentences"] if x not in methods]
            details += [("The minimum detectable gap", str(m)[len("Method: "):].rstrip(".")) for m in methods]
    if kind == "many":
        many = ctx.get("many") or {}
        for res in [many, *many.get("groups", [])]:
            omnibus = res.get("omnibus") if isinstance(res, dict) else getattr(res, "omnibus", None)
            method = omnibus.get("method") if isinstance(omnibus, dict) else getattr(omnibus, "method", None)
            if method:
                by = res.get("by") if isinstance(res, dict) else None
                label = "The omnibus test" + (f" ({', '.join(f'{k} {v}' for k, v in by.items())})"
                                              if isinstance(by, dict) and by else "")
                details.append((label, method))
    ctx["details"] = details
    ctx["spellings"] = named


def _summaries_beside(ctx: dict, framing, judge, *, plain: bool = False) -> None:
    """The Summary of a report holding several analyses: after the probe's own paragraph, one paragraph for
    each analysis beside it (a dual-framing log, a judge's order probe), from its verdict."""
    more = list(ctx.get("summary_more") or [])
    if framing is not None and getattr(framing, "verdict", None) is not None:
        more.append(framing_summary(framing, plain=plain))
    if judge is not None and getattr(judge, "verdict", None) is not None:
        more.append(judge_summary(judge))
    ctx["summary_more"] = more
    ctx["sentences"]["summary"] = [ctx["summary"], *more]


def _table_file(ctx: dict, analysis, names, format: str, assets_dir) -> dict[str, bytes]:
    """The whole per-item table as CSV when the table shows only some items: linked from the table
    (``ctx["table"]["csv"]``), beside a Markdown report (returned, to be written in its folder) or
    inside an HTML page (a data link)."""
    table = ctx.get("table") or {}
    if "table" not in names or table.get("rest") is None or format not in ("md", "html"):
        return {}
    content = items_csv(analysis.main.items)
    if format == "html":
        table["csv"] = "data:text/csv;charset=utf-8;base64," + base64.b64encode(content).decode("ascii")
        return {}
    if assets_dir is None:
        return {}
    table["csv"] = MdSafe(f"{quote(Path(assets_dir).name)}/{ITEMS_CSV}")
    return {ITEMS_CSV: content}


def _add_pair_sections(ctx: dict, analysis, comparison, *, plain: bool = False) -> None:
    """The optional sections of a paired report: --by groups, a judge's scale, before and after."""
    if analysis.groups:
        ctx["groups"] = parts.groups_context(analysis, plain=plain)
        ctx["sentences"]["groups"] = ctx["groups"]["sentences"]
    if getattr(analysis, "scale", None) is not None:
        ctx["ceilings"] = parts.ceilings_context(analysis)
        ctx["sentences"]["ceilings"] = ctx["ceilings"]["sentences"]
    if getattr(analysis, "row_level", None) is not None:   # the tests on runs, a small table and their methods
        rl = analysis.row_level
        ctx["tests"]["runs"] = {"rows": [dict(zip(("test", "statistic", "p", "interval"), r))
                                         for r in run_rows(rl, analysis.main.a, analysis.main.b, analysis.alpha)],
                                "sentences": run_sentences(rl, analysis.alpha)}
        ctx["sentences"]["tests"] += ctx["tests"]["runs"]["sentences"]
    if getattr(analysis, "row_tests", ()):
        ctx["tests"]["welch"] = welch_context(analysis)
        ctx["sentences"]["tests"] += [s for table in ctx["tests"]["welch"] for s in table["sentences"]]
    if comparison is not None:
        ctx["compare"] = parts.compare_context(comparison)
        ctx["sentences"]["compare"] = ctx["compare"]["sentences"]


def _framing_images(framing, format, assets_dir) -> tuple[dict, dict]:
    """Image references and PNG bytes of the dual-framing plots, when that module is available."""
    try:
        # lazy: only a report with a framing section draws its plots
        from probestats.present.plots import framing as plots_framing
    except ImportError:
        return {}, {}

    refs, pngs = {}, {}
    cis = [c.bias_ci for c in framing.cells if c.bias_ci]
    interval = (f"{100 * framing.confidence:g}% interval ({cis[0]['method']})" if cis else "interval")
    test = (f"exact sign-flip test across matched items, p adjusted across cells ({framing.correction}), "
            f"alpha {framing.alpha:g}")
    captions = {
        "framing_heatmap": ("Heat map of the lean per cell",
                            "Bias (mean aligned score, −2 to +2) per cell: blue leans toward the reference target, "
                            f"red toward the other. Under each number its pattern ({test}); n.s.: no lean detected, "
                            "which does not show that there is none."),
        "framing_dots": ("Per-framing aligned means per cell",
                         "Per cell: mean aligned score of the affirmative prompts (circle) and of the reverse prompts "
                         f"(square); black mark: the bias, with its {interval} in grey. Right of zero: toward the "
                         "reference target."),
    }
    for name, (alt, caption) in captions.items():
        draw = getattr(plots_framing, name, None)
        if draw is None:
            continue
        png = figure_png(draw(framing).figure)
        if format == "html":
            refs[name] = {"src": "data:image/png;base64," + base64.b64encode(png).decode("ascii"), "alt": alt,
                          "caption": caption}
        elif assets_dir is not None:
            refs[name] = {"src": MdSafe(f"{quote(Path(assets_dir).name)}/{name}.png"), "alt": alt,
                          "caption": caption}
            pngs[name] = png
    return refs, pngs
