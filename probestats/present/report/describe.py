"""The report's sections of a coded metric: ``describe`` (its distribution per value) and ``validation`` (its
agreement with hand labels and the corrected gap), and what the Limits say of how it was coded."""

from __future__ import annotations

from dataclasses import replace

from probestats.analyses.hand_labels import ValidatedAnalysis
from probestats.present.words.describe import coverage_lines, kind_phrase, rate_lines, test_sentence
from probestats.present.words.fmt import fmt_gap, fmt_num, fmt_p, fmt_pct
from probestats.present.words.validation import validation_lines

__all__ = ["add_coding_sections", "unwrap"]


def unwrap(analysis):
    """A validated analysis as the analysis it reports, with the corrected verdict, and its hand-checked sample."""
    if isinstance(analysis, ValidatedAnalysis):
        return replace(analysis.analysis, verdict=analysis.verdict), analysis.validation
    return analysis, None


def _describe_context(d) -> dict:
    show_mean = any(s.mean is not None for s in d.values)
    columns = ["value", "runs", "items", "blank"] + (["mean"] if show_mean else [])
    columns += list(d.levels)
    rows = []
    for s in d.values:
        row = [s.value, str(s.n_runs), "–" if s.n_items is None else str(s.n_items), str(s.n_blank)]
        if show_mean:
            row.append(fmt_num(s.mean))
        row += [f"{s.counts.get(level, 0)} ({fmt_pct(s.shares.get(level))})" for level in d.levels]
        rows.append(row)
    sentences = [kind_phrase(d) + ": per value, its runs, items and blank cells, and each level's count with its "
                 "share of the value's runs."]
    rates = rate_lines(d)
    if rates:
        sentences.append(rates[0][:-1] + ": " + "; ".join(line.strip() for line in rates[1:]) + ".")
    test = test_sentence(d)
    if test:
        sentences.append(test)
    sentences += [line + "." for line in coverage_lines(d)]
    return {"columns": columns, "rows": rows, "sentences": sentences}


def add_coding_sections(ctx: dict, *, describe=None, validation=None, coded=None) -> None:
    """Add the describe and validation sections to a paired report's context, and how the metric was coded to
    its Limits."""
    if describe is not None:
        ctx["describe"] = _describe_context(describe)
        ctx["sentences"]["describe"] = ctx["describe"]["sentences"]
    if validation is not None:
        lines = [line.strip() for line in validation_lines(validation)]
        ctx["validation"] = {"lines": lines}
        ctx["sentences"]["validation"] = lines
        if validation.corrected is not None:
            _corrected_words(ctx, validation)
    said = _coded_limit(ctx.get("metric"), coded, validation)
    if said is not None:
        ctx["limits"].insert(len(ctx["limits"]) - 1, ("How the metric was coded", said))
        ctx["sentences"]["limits"].insert(len(ctx["sentences"]["limits"]) - 1, f"How the metric was coded: {said}.")


def _coded_limit(metric, coded, validation) -> str | None:
    if validation is not None:
        k = validation.kappa
        kappa = "" if k.statistic is None else f", Cohen's kappa {fmt_num(k.statistic, 3)}"
        how = f"{metric} was coded by {coded}" if coded else f"{metric} was coded"
        return (f"{how} and checked against hand labels of {validation.n} of {validation.n_runs} runs{kappa}; "
                "the verdict rests on the gap corrected for the coding's error (see the validation section)")
    if coded:
        return (f"{metric} was coded from the replies by {coded}, and no hand-checked sample measured its error: "
                "a coding that errs differently by value can make or hide a gap (a validation file of hand labels "
                "corrects for it)")
    return None


def _corrected_words(ctx: dict, v) -> None:
    """The Summary and the Finding of a report whose verdict rests on the gap corrected for the coder's error."""
    c = v.corrected
    shown = c.low > 0 or c.high < 0
    interval = f"{c.confidence:.0%} interval {fmt_gap(c.low)} to {fmt_gap(c.high)}"
    checked = f"{v.n} hand-checked runs of {v.n_runs}"
    coded_p = ctx.get("tests", {}).get("sign_flip", {}).get("p")
    p_text = f" (exact sign-flip test p = {fmt_p(coded_p)})" if isinstance(coded_p, float) else ""
    if shown:
        summary = (f"In this probe, {ctx['metric']} under '{c.a}' and under '{c.b}' differed on average by "
                   f"{fmt_gap(c.average_gap)} across {c.n_items} items once corrected for the coder's error, measured on "
                   f"{checked} ({interval}): a gap larger than its uncertainty.")
    else:
        summary = (f"In this probe, {ctx['metric']} as coded differed on average by {fmt_gap(c.observed_gap)} between "
                   f"'{c.a}' and '{c.b}' across {c.n_items} items, but corrected for the coder's error, measured on "
                   f"{checked}, the average gap is {fmt_gap(c.average_gap)} ({interval}), which does not show a "
                   "difference; this does not show that there is none, only that this probe, with this coding, "
                   "could not see one.")
    finding = [f"Corrected for the coder's error, measured on {checked}, the average gap is {fmt_gap(c.average_gap)} "
               f"({interval}; {c.method}).",
               f"As coded, the average gap was {fmt_gap(c.observed_gap)}{p_text}; what lies between the two figures is "
               "the coding's error as the hand-checked sample measured it."]
    if not shown:
        finding.append("This does not show that the system is unbiased: a smaller gap, or one on other items, values, "
                       "metrics, models or settings, could go unseen.")
    ctx["summary"] = summary
    ctx["sentences"]["summary"] = [summary]
    ctx["finding"] = {**ctx["finding"], "sentences": finding, "drivers": [] if not shown else ctx["finding"].get("drivers", [])}
    ctx["sentences"]["finding"] = finding
