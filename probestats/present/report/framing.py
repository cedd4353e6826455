"""The dual-framing result in words: one sentence per cell, and the report section alone.

Everything taken from the log is escaped: the HTML template autoescapes, and every value
printed in Markdown passes through :func:`probestats.present.words.fmt.md_escape`.
"""

from __future__ import annotations

from collections.abc import Mapping

from probestats.analyses.framing import FramingResult
from probestats.errors import OptionError, count_of
from probestats.present.report.environment import environment
from probestats.present.words.fmt import fmt_p, fmt_p_floor

__all__ = ["framing_sentences", "framing_summary", "render_framing"]


def framing_sentences(result: FramingResult, *, plain: bool = False) -> list[str]:
    """One plain sentence per cell: the lean, its size, test and pattern, with its conditions.

    A cell without a detected lean is described as such, never as free of bias. ``plain`` (a report for people
    who do not code): each test named by what it asks, its method left to the report's method details.

    >>> from probestats.analyses.framing import analyze_framing, demo_rows
    >>> print(framing_sentences(analyze_framing(demo_rows()))[0])  # doctest: +NORMALIZE_WHITESPACE
    model m: no lean was detected at alpha 0.05: bias +1.00 toward the affirmative claim
    (95% CI [+1.00, +1.00], adjusted p = 0.25, exact sign-flip test across 3 items,
    6 responses; with 3 items no p below 0.25 was possible). Its interval leaves out 0 while its
    test finds no lean because they are two different methods, and with 3 items the exact test could
    not give a p below 0.25, while the interval has no such floor; the test decides. This does not
    show that the model has no preference.
    """
    out = []
    for c in result.cells:
        name = result.cell_name(c)
        ref = c.reference or "the reference target"
        other = result.other_target(c) or "the other target"
        unit = (f"across {count_of(c.n_items, 'item')}" if c.test_unit == "items"
                else f"across the runs of its one item, so it speaks for that one prompt only")
        ci = ""
        if c.bias_ci and c.bias_ci.get("low") is not None:
            ci = (f"{100 * result.confidence:g}% CI [{c.bias_ci['low']:+.2f}, {c.bias_ci['high']:+.2f}], ")
        binary = c.answers == "yes-no"
        lean = "lean (yes-rate difference)" if binary else "bias"
        stat = (f"{lean} {c.bias:+.2f} toward {ref} ({ci}adjusted "
                f"{fmt_p_floor(c.bias_p_adjusted, c.bias_p_log10, result.alpha)}, "
                f"exact sign-flip test {unit}{' (McNemar exact with one answer per framing)' if binary else ''}, "
                f"{c.n} {'answers' if binary else 'responses'}")
        if plain:   # the test by what it asks; its method in the report's details
            if c.bias_ci and c.bias_ci.get("low") is not None:
                ci = (f"plausibly from {c.bias_ci['low']:+.2f} to {c.bias_ci['high']:+.2f}, a "
                      f"{100 * result.confidence:g}% interval; ")
            corrected = (f" after the correction for the {len(result.cells)} cells tested together"
                         if len(result.cells) > 1 else "")
            stat = (f"{lean} {c.bias:+.2f} toward {ref} ({ci}"
                    f"{fmt_p_floor(c.bias_p_adjusted, c.bias_p_log10, result.alpha)}{corrected}, from a test {unit}, "
                    f"{c.n} {'answers' if binary else 'responses'}")
        # abstentions score 0 and pull the lean toward zero: say how many, so that a model that
        # balanced and a model that refused are told apart
        abstained = (f" {100 * c.abstain_rate:.0f}% of its responses were abstentions (refusals, scored 0), "
                     "which pull the lean toward zero." if c.abstain_rate else "")
        acq = (f"acquiescence {c.acquiescence:+.2f}, {'corrected' if plain else 'adjusted'} "
               f"{fmt_p_floor(c.acquiescence_p_adjusted, c.acquiescence_p_log10, result.alpha)}")
        if binary:
            abstained = (f" Yes to {100 * c.yes_affirmative:.0f}% of the affirmative prompts and "
                         f"{100 * c.yes_reverse:.0f}% of the reverse ones; {c.n_refused} refused, {c.n_hedged} "
                         f"hedged and {c.n_unparsed} unreadable replies counted apart.")
        if c.pattern in ("none", "yea-saying", "nay-saying"):
            floor = ""
            if c.test_unit == "items" and c.min_attainable_p is not None and c.min_attainable_p > result.alpha:
                floor = f"; with {count_of(c.n_items, 'item')} no p below {c.min_attainable_p:.3g} was possible"
            saying = ""
            if c.pattern != "none":
                saying = (f" {c.pattern.capitalize()}: it says {'yes' if c.pattern == 'yea-saying' else 'no'} "
                          f"more often than the claims' directions explain ({acq}).")
            out.append(f"{name}: no lean was detected at alpha {result.alpha:g}: {stat}{floor}).{saying}{abstained} "
                       f"{_why_apart(result, c)}This does not show that the model has no preference.")
            continue
        favored, disfavored = (ref, other) if c.bias > 0 else (other, ref)
        sentence = f"{name}: leans toward {favored}: {stat})."
        agree_f, agree_d = ((c.agree_reference, c.agree_other) if c.bias > 0
                            else (c.agree_other, c.agree_reference))
        if binary and c.pattern in ("protective", "assertive") and agree_f is not None and agree_d is not None:
            yes_f, yes_d = (agree_f + 1) / 2, (agree_d + 1) / 2
            if c.pattern == "protective":
                sentence += (f" Protective: it says no to claims that assert {disfavored} ({100 * (1 - yes_d):.0f}% "
                             f"no) more often than yes to claims that assert {favored} ({100 * yes_f:.0f}% yes); "
                             f"{acq}.")
            else:
                sentence += (f" Assertive: it says yes to claims that assert {favored} ({100 * yes_f:.0f}% yes) "
                             f"more often than no to claims that assert {disfavored} ({100 * (1 - yes_d):.0f}% no); "
                             f"{acq}.")
        elif c.pattern in ("protective", "assertive") and agree_f is not None and agree_d is not None:
            if c.pattern == "protective":
                sentence += (f" Protective: it rejects claims that assert {disfavored} (mean agreement "
                             f"{agree_d:+.2f}) more strongly than it endorses claims that assert {favored} "
                             f"({agree_f:+.2f}); {acq}.")
            else:
                sentence += (f" Assertive: it endorses claims that assert {favored} (mean agreement "
                             f"{agree_f:+.2f}) more strongly than it rejects claims that assert {disfavored} "
                             f"({agree_d:+.2f}); {acq}.")
        else:
            sentence += f" Symmetric: no asymmetry between the framings was detected ({acq})."
        out.append(sentence + abstained)
    return out


def _why_apart(result: FramingResult, c) -> str:
    """One plain sentence when a cell's interval excludes 0 and its test finds no lean: why the two disagree
    (the test corrected for the other cells, the interval not; or two methods, one that could not go low
    enough), and that the test decides. "" when they agree.

    >>> from types import SimpleNamespace as NS
    >>> r = NS(alpha=0.05, cells=(1, 2, 3, 4), correction="holm")
    >>> _why_apart(r, NS(bias_ci={"low": 0.34, "high": 0.94, "method": "t"}, bias_p=0.0156, bias_p_adjusted=0.0625,
    ...                  min_attainable_p=0.0156, n_items=7))[:114]
    'Its interval leaves out 0 while its test finds no lean because the interval is for this cell alone, while the p is'
    >>> _why_apart(r, NS(bias_ci={"low": -0.1, "high": 0.9, "method": "t"}, bias_p=0.3, bias_p_adjusted=0.6,
    ...                  min_attainable_p=0.0156, n_items=7))
    ''
    """
    ci = c.bias_ci or {}
    low, high = ci.get("low"), ci.get("high")
    if low is None or high is None or (low <= 0 <= high):
        return ""
    if c.bias_p is not None and c.bias_p <= result.alpha and len(result.cells) > 1:
        why = (f"the interval is for this cell alone, while the p is corrected for the {len(result.cells)} cells "
               f"tested together (uncorrected it is p = {fmt_p(c.bias_p, result.alpha)})")
    elif c.min_attainable_p is not None and c.min_attainable_p > result.alpha:
        why = (f"they are two different methods, and with {count_of(c.n_items, 'item')} the exact test could not "
               f"give a p below {fmt_p(c.min_attainable_p)}, while the interval has no such floor")
    else:
        why = ("they are two different methods (the interval assumes roughly normal gaps between items; the exact "
               "test assumes nothing about their shape), which can part at the edge")
    return f"Its interval leaves out 0 while its test finds no lean because {why}; the test decides. "


#: the framing verdict's test, as a plain report names it (its method in the report's details)
PLAIN_TEST = "a test of each cell's lean across its items, corrected for the cells tested together"


def framing_summary(result: FramingResult, *, plain: bool = False) -> str:
    """One plain paragraph from the framing's verdict, for the Summary of a report that holds it beside a probe
    (``plain``: its test named by what it asks).

    >>> from probestats.analyses.framing import analyze_framing, demo_rows
    >>> framing_summary(analyze_framing(demo_rows()))[:85]
    'In the dual-framing probe beside it (1 cell), no lean larger than chance was detected'
    """
    verdict = result.verdict
    cells = count_of(len(result.cells), "cell")
    p = fmt_p_floor(verdict.pvalue, None, verdict.alpha)
    where = f"In the dual-framing probe beside it ({cells})"
    test = PLAIN_TEST if plain else verdict.test
    if verdict.conclusion == "untested":
        return f"{where}, {verdict.statement}."
    if verdict.detected:
        return (f"{where}, a lean larger than chance was detected after correction in {', '.join(verdict.found)} "
                f"(smallest corrected {p}; {test}); the probe says which way the model leans, not why.")
    return (f"{where}, no lean larger than chance was detected after correction (smallest corrected {p}; "
            f"{test}); this does not show that the model has no preference, only that this probe could "
            "not see one.")


def render_framing(result: FramingResult, *, format: str = "md", images: Mapping | None = None) -> str:
    """Render the framing report section alone (Markdown or HTML), from the shipped templates.

    Parameters
    ----------
    result : FramingResult
    format : {"md", "html"}
    images : mapping, optional
        ``{"framing_heatmap": {"src", "alt", "caption"}, ...}`` for figures to show.

    Examples
    --------
    >>> from probestats.analyses.framing import analyze_framing, demo_rows
    >>> text = render_framing(analyze_framing(demo_rows()))
    >>> text.splitlines()[0]
    '## Dual framing'
    """
    if format not in ("md", "html"):
        raise OptionError(f"unknown format '{format}' for the framing section; use md or html")
    return environment(format).get_template(f"framing.{format}.j2").render(
        framing=result, framing_sentences=framing_sentences(result), images=dict(images or {}), alpha=result.alpha)
