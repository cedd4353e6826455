"""The Summary, the design facts and the Finding of a report that is not one pair (many values, two factors,
an I × J factor design, several metrics): every report kind carries them, as the pair report does.

Each is worded from the verdict the analysis decided (``analysis.verdict``,
:mod:`probestats.analyses.verdict`): no sentence here decides a conclusion of its own. The design
facts come from the design file (``--design``), with visible placeholders for what it leaves out,
and from the log where the result still holds its rows.
"""

from __future__ import annotations

from probestats.checks.facts import row_facts
from probestats.checks.schema import SETTINGS
from probestats.errors import count_of
from probestats.present.report.environment import Todo
from probestats.present.words.fmt import fmt_gap, fmt_p, p_is
from probestats.present.words.verdict import noise_check_sentences, untested_sentence
from probestats.shape.design import Design

__all__ = ["design_facts", "many_summary", "many_finding", "effects_summary", "effects_finding", "metrics_summary",
           "metrics_finding", "kind_sections", "own_report"]

#: values (or levels, items) listed by name before "and N more"
LIST_LIMIT = 40


def _q(text) -> str:
    return f"'{text}'"


def _listed(names, limit: int = LIST_LIMIT) -> tuple[list[str], int]:
    names = [str(n) for n in names]
    return names[:limit], max(0, len(names) - limit)


def _log_settings(frame, metric: str) -> tuple[list[tuple[str, str]], list[tuple[str, int]]]:
    """The known settings (model, temperature, system prompt) the rows hold fixed and those that vary."""
    names = {"model": "model", "temperature": "temperature", "system": "system prompt"}
    fixed, varied = [], []
    for col, count, value in row_facts(frame, frame, metric).columns:
        if col not in SETTINGS:
            continue
        if count == 1:
            fixed.append((names.get(col, col), " ".join(str(value).split())[:80]))
        elif count > 1:
            varied.append((names.get(col, col), count))
    return fixed, varied


def design_facts(design, *, metric: str, values, compared: str, items, runs: str, frame=None,
                 varied_by_design=(), n_items: int | None = None) -> tuple[dict, list[str]]:
    """The design section of a report of its own: what was varied and why, the items, runs and metric, and
    what was (and could not be) held fixed. Returns the template's context and its sentences.

    ``values`` are the compared values (or levels) in words, ``compared`` names them as a whole ("the 3
    values", "the levels of style and name"); ``frame``, when given, is the checked rows, from which the
    settings the log holds fixed are read; ``n_items`` counts the items when they are not listed.

    >>> from probestats.shape.design import Design
    >>> ctx, sentences = design_facts(Design(attribute="a name"), metric="score", values=["'A'", "'B'", "'C'"],
    ...                               compared="the 3 values", items=["1", "2"], runs="3 runs per item and value")
    >>> sentences[0]
    "Attribute: a name; compared: the 3 values 'A', 'B', 'C'; why they matter: [to fill in: why these values matter]."
    """
    listed, more = _listed(items)
    n_items = len(items) if n_items is None else n_items
    fixed, varied = _log_settings(frame, metric) if frame is not None else (None, [])
    on_purpose = set(varied_by_design)
    varied = [(f"{k} (varied with the attribute, by design)" if k in on_purpose else k, c) for k, c in varied]
    ctx = {
        "attribute": design.attribute or Todo("the attribute probed, e.g. the name on a résumé"),
        "values": list(values), "compared": compared,
        "values_why": design.values_why or Todo("why these values matter"),
        "n_items": n_items, "item_list": listed, "more_items": more, "runs": runs, "metric": metric,
        "metric_definition": design.metric_definition or Todo(
            f"the definition of the metric {metric}, as written before the first run"),
        "fixed_from_log": fixed, "varied_from_log": varied,
        "held_fixed_stated": list(design.held_fixed),
        "not_fixed": list(design.not_fixed) or Todo("what could not be held fixed (e.g. server-side model updates)"),
        "run_dates": design.run_dates or Todo("the dates of the runs"),
        "mitigation": design.mitigation or Todo("mitigation applied before these runs, or 'none'"),
        "shaping": [],
    }
    fixed_text = ("not read from the log for this report kind" if fixed is None
                  else ", ".join(f"{k} {v}" for k, v in fixed)
                  or ("none: every setting the log records varied" if varied else "nothing recorded"))
    sentences = [
        f"Attribute: {ctx['attribute']}; compared: {compared} {', '.join(values)}; why they matter: {ctx['values_why']}.",
        f"{count_of(n_items, 'item')}, {runs}; metric {metric}: {ctx['metric_definition']}.",
        f"Held fixed according to the log: {fixed_text}"
        + (f"; varied in the log: {', '.join(f'{k} ({c} values)' for k, c in varied)}" if varied else "") + ".",
        "Held fixed, as stated: " + ("; ".join(design.held_fixed) if design.held_fixed else "nothing stated")
        + f"; could not be held fixed: {ctx['not_fixed'] if isinstance(ctx['not_fixed'], str) else '; '.join(ctx['not_fixed'])}.",
        f"Dates of the runs: {ctx['run_dates']}; mitigation applied: {ctx['mitigation']}.",
    ]
    return ctx, sentences


# ---------------------------------------------------------------------------- many values


def many_summary(analysis) -> str:
    """One plain paragraph from the many-values verdict (the omnibus test at alpha)."""
    verdict = analysis.verdict
    main = analysis.main
    alpha = analysis.alpha
    p = p_is(main.omnibus, alpha)
    values = [v.value for v in main.values]
    where = (f"In this probe of {main.metric} under {len(values)} values across "
             f"{count_of(main.n_items, 'item')}" + (f", {verdict.pooled}" if verdict.pooled else ""))
    if verdict.detected:
        top = max(main.gaps, key=lambda g: abs(g.average_gap), default=None)
        text = (f"{where}, the values differ by more than chance would give (omnibus {p})"
                + (f"; the largest gap against {_q(main.reference)} is {_q(top.a)} "
                   f"{fmt_gap(top.average_gap)} {main.metric}" if top is not None else "")
                + "; the probe does not say why.")
    elif verdict.conclusion == "undecided":
        low, high = main.omnibus.pvalue_interval
        text = (f"{where}, the omnibus test is undecided at this precision: its Monte Carlo p ({p}) has a 99.9% "
                f"interval [{fmt_p(low)}, {fmt_p(high)}] that holds alpha {alpha:g}, so neither a difference nor "
                f"its absence is concluded.")
    else:
        text = (f"{where}, the differences between the values were not more than chance would give (omnibus "
                f"{p}); this does not show that there is no difference, only that this probe could not see one.")
    return text + _reference_sentence(verdict)


def _reference_sentence(verdict) -> str:
    """The reference named as the likely cause, when every value differs from it alike (else empty)."""
    check = getattr(verdict, "reference_check", None)
    return f" {check.statement}" if check is not None and check.suspect else ""


def many_finding(analysis, sentences: list[str]) -> list[str]:
    """The Finding of a many-values report: the section's account of the verdict (``sentences``, which open
    with "The probe detected" or "The probe did not detect"), the values found, and the noise caveat."""
    verdict = analysis.verdict
    found = ([f"After correction, the gaps against {_q(analysis.main.reference)} larger than chance are those of "
              f"{', '.join(_q(v) for v in verdict.found)}."] if verdict.found else [])
    return [*sentences, *found, *([_reference_sentence(verdict).strip()] if _reference_sentence(verdict) else []),
            *noise_check_sentences(verdict)]


# ---------------------------------------------------------------------------- factors


def effects_summary(analysis) -> str:
    """One plain paragraph from a factor design's verdict (the corrected tests of its effects)."""
    verdict = analysis.verdict
    f1, f2 = analysis.factors
    where = (f"In this probe of {analysis.metric} under {f1} and {f2} across {count_of(analysis.n_items, 'item')}"
             + (f", {verdict.pooled}" if verdict.pooled else ""))
    if verdict.conclusion == "untested":
        return f"{where}, {verdict.statement}."
    if verdict.detected:
        return (f"{where}, an effect larger than chance would give after correction: {', '.join(verdict.found)} "
                f"(smallest corrected p = {fmt_p(verdict.pvalue, verdict.alpha)}); the probe does not say why.")
    return (f"{where}, the effects were not more than chance would give after correction (smallest corrected "
            f"p = {fmt_p(verdict.pvalue, verdict.alpha)}); this does not show that there is no effect, only that "
            "this probe could not see one.")


def effects_finding(analysis, sentences: list[str]) -> list[str]:
    """The Finding of a factor design: whether the probe detected an effect (from the verdict), the section's
    account of the effects (``sentences``), and the noise caveat."""
    verdict = analysis.verdict
    head = untested_sentence(verdict) or (
        f"The probe detected an effect larger than chance after correction ({verdict.test})." if verdict.detected
        else f"The probe did not detect an effect larger than chance after correction ({verdict.test}).")
    return [head, *sentences, *noise_check_sentences(verdict)]


# ---------------------------------------------------------------------------- several metrics


def metrics_summary(analysis) -> str:
    """One plain paragraph from the verdict of several metrics (the family-corrected tests)."""
    verdict = analysis.verdict
    n = max((t.result.n_items for t in analysis.family), default=0)
    where = (f"In this probe of {', '.join(analysis.metrics)} across up to {count_of(n, 'item')}, each metric "
             f"compared between two values" + (f", {verdict.pooled}" if verdict.pooled else ""))
    if verdict.conclusion == "untested":
        return f"{where}, {verdict.statement}."
    if verdict.detected:
        return (f"{where}, a gap larger than chance would give after correction in {', '.join(verdict.found)} "
                f"(smallest corrected p = {fmt_p(verdict.pvalue, verdict.alpha)}); the probe does not say why.")
    return (f"{where}, the gaps were not more than chance would give after correction (smallest corrected "
            f"p = {fmt_p(verdict.pvalue, verdict.alpha)}); this does not show that there is no difference, only "
            "that this probe could not see one.")


def metrics_finding(analysis) -> list[str]:
    """The Finding of several metrics, from the verdict."""
    verdict = analysis.verdict
    if untested_sentence(verdict):
        head = untested_sentence(verdict)
    elif verdict.detected:
        head = (f"The probe detected a gap larger than chance after correction in {', '.join(verdict.found)} "
                f"({verdict.test}); it says where the gap is, not why.")
    else:
        head = (f"The probe did not detect a gap larger than chance after correction in any metric ({verdict.test}); "
                "this does not show that the system is unbiased, only that these items and runs could not tell a "
                "gap from chance.")
    return [head, *noise_check_sentences(verdict)]


def own_report(kind: str, ctx: dict, *, summary: str, facts: tuple[dict, list[str]], finding: list[str],
               limits, format: str) -> tuple[dict, dict, list[str]]:
    """The template context, the JSON sentences and the section names of a report of its own
    (``kind`` is its section: ``factorial``, ``metrics``), with its Summary, design facts and Finding."""
    names = kind_sections(kind)
    design_ctx, design_sentences = facts
    context = {"summary": summary, "design": design_ctx, kind: ctx, "finding": {"sentences": finding},
               "limits": limits, "sections": names,
               "section_templates": {n: f"{'facts' if n == 'design' else n}.{format}.j2" for n in names}}
    sentences = {"summary": [summary], "design": design_sentences, kind: ctx["sentences"], "finding": finding,
                 "limits": [f"{label}: {value if isinstance(value, str) else '; '.join(map(str, value))}."
                            for label, value in limits]}
    return context, sentences, names


def kind_sections(kind: str) -> list[str]:
    """The sections of a report of its own, in report order.

    >>> kind_sections("many")
    ['summary', 'design', 'many', 'finding', 'limits']
    """
    return ["summary", "design", kind, "finding", "limits"]


def design_limits(design: Design, *, size: str, cannot_see: str, subject: str) -> list[tuple[str, object]]:
    """The limits a report of its own states (many values, factors, several metrics): what the design
    file says, or visible placeholders; ``size`` names the items, ``subject`` what does not show fairness."""
    limits: list[tuple[str, object]] = []
    if design.held_fixed:
        limits.append(("Held fixed, as stated", list(design.held_fixed)))
    limits.append(("Could not be held fixed", list(design.not_fixed) or
                   Todo("what could not be held fixed (e.g. server-side model updates)")))
    limits.append(("Size", f"{size}; the items are the sample, so the result speaks for these "
                           "items and says little about others"))
    limits.append(("What the metric cannot see", list(design.metric_cannot_see) or Todo(cannot_see)))
    limits.append(("Attributes not tested", list(design.not_tested) or Todo("which attributes were not tested")))
    limits.append(("Scope", f"whatever its result, {subject} does not show that the system is unbiased"))
    return limits
