"""The order probe's report section (``judge``), alone or inside the probe report.

Words are chosen here from the numbers (:func:`judge_context`); the templates
``judge.md.j2`` and ``judge.html.j2`` lay them out through the report's own Jinja
environment, so every value from the log is escaped (HTML autoescape, Markdown through
:func:`probestats.present.words.fmt.md_escape`).

Examples
--------
>>> from probestats.analyses.judge import analyze_order
>>> rows = [{"item": i, "order": o, "reply": r} for i, pair in enumerate([("[[A]]", "[[B]]"), ("[[A]]", "<b>[[A]]")])
...         for o, r in zip(("AB", "BA"), pair)]
>>> text = render_judge_report(analyze_order(rows, order="order", verdicts=["first=[[A]]", "second=[[B]]"]))
>>> text.splitlines()[0], "<b>" in text
('# Order probe of a judge: order', False)
"""

from __future__ import annotations

from probestats import __version__
from probestats.errors import OptionError, count_of
from probestats.present.plots.items import figure_png
from probestats.present.plots.judge import consistency_plot
from probestats.present.report.files import image_entry, write_figures
from probestats.present.report.metrics import limits_of
from probestats.present.report.plain import render_plain
from probestats.present.words.fmt import fmt_p
from probestats.present.words.judge import choice_sentence, one_line
from probestats.present.words.verdict import noise_check_sentences, untested_sentence, verdict_line
from probestats.result import dumps, jsonable
from probestats.shape.design import Design

__all__ = ["judge_context", "judge_images", "render_judge_report"]


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _name(group) -> str:
    return ", ".join(f"{one_line(k)} {one_line(v)}" for k, v in group.by.items()) or "The judge"


def judge_context(result, *, plain: bool = False) -> dict:
    """Rows of the table and the sentences of the section (``plain``: each test named by what it asks, its method
    left to the report's method details)."""
    alpha = result.alpha
    rows, sentences = [], []
    for g in result.groups:
        c = g.consistency
        flip_p = None if g.sign_flip is None else g.sign_flip.pvalue
        rows.append({
            "by": [one_line(v) for v in g.by.values()], "n_items": g.n_items,
            "consistency": _pct(c.value), "low": _pct(c.low), "high": _pct(c.high),
            "loose": _pct(g.consistency_unparsed_as_consistent),
            "primacy": g.primacy, "recency": g.recency, "ties_consistent": g.ties_consistent,
            "ties_inconsistent": g.ties_inconsistent,
            "preference": "n/a" if g.preference_score is None else f"{g.preference_score:+.3g}",
            "order_p": fmt_p(g.order_test_p, alpha), "order_p_adjusted": fmt_p(g.order_test_p_adjusted, alpha),
            "flip_p": fmt_p(flip_p, alpha), "flip_p_adjusted": fmt_p(g.sign_flip_p_adjusted, alpha),
            "extraction": _pct(g.extraction_rate), "unparsed": g.unparsed["count"],
            "unparsed_replies": [dict(u, text=None if u["text"] is None else one_line(u["text"], 200))
                                 for u in g.unparsed["replies"][:5]],
            "repetitions": [(one_line(r.repetition), _pct(r.consistency.value), _pct(r.consistency.low),
                             _pct(r.consistency.high), r.consistency.n) for r in g.repetitions],
            "stability": None if g.stability is None or g.stability.value is None else
            f"{_pct(g.stability.value)} of {count_of(g.stability.n, 'item')}",
        })
        who = _name(g)
        if c.value is None:
            sentences.append(f"{who}: no item had both verdicts read, so nothing can be said about its order effect.")
            continue
        text = (f"{who} preferred the same answer in both orders on {_pct(c.value)} of "
                f"{count_of(g.n_items, 'item')} ({100 * result.confidence:g}%{'' if plain else ' exact'} interval "
                f"{_pct(c.low)} to {_pct(c.high)}).")
        n = g.primacy + g.recency
        detected = result.order_effect_detected(g)   # decided once, in the analysis
        if n == 0:
            text += " No inconsistent item chose the same slot twice."
        else:
            if plain:   # the test by what it asks; its method in the report's details
                corrected = (f"; corrected for the {len(result.groups)} judges tested together, p = "
                             f"{fmt_p(g.order_test_p_adjusted, alpha)}" if len(result.groups) > 1 else "")
                text += (f" Of the {count_of(n, 'inconsistent item')} without a tie, {g.primacy} chose the first "
                         f"slot both times and {g.recency} the second (a split this uneven or more would come by "
                         f"chance with p = {fmt_p(g.order_test_p, alpha)}{corrected}).")
            else:
                text += (f" Of the {count_of(n, 'inconsistent item')} without a tie, {g.primacy} chose the first "
                         f"slot both times and {g.recency} the second (exact binomial p = "
                         f"{fmt_p(g.order_test_p, alpha)}, {result.correction}-adjusted "
                         f"{fmt_p(g.order_test_p_adjusted, alpha)}).")
        if detected:
            side = "first" if (g.order_effect or 0) > 0 else "second"
            text += f" At alpha {alpha:g} this is an order effect: the judge favours the answer shown {side}."
        else:
            text += (f" At alpha {alpha:g} no order effect was detected (this does not show that the judge has "
                     "none).")
        sentences.append(text)
        if g.choice is not None:
            sentences.append(choice_sentence(g.choice, alpha, who, plain=plain))
    if getattr(result, "verdict", None) is not None:
        sentences.append(verdict_line(result.verdict))
    return {"rows": rows, "sentences": sentences, "by": [one_line(b) for b in result.by], "result": result,
            "order": one_line(result.order), "orders": [one_line(o) for o in result.orders],
            "column": one_line(result.column), "repetition": one_line(result.repetition) if result.repetition else None, "rules": [one_line(r) for r in result.rules],
            "confidence": f"{100 * result.confidence:g}%", "plain": plain}


def judge_images(result, format: str, assets_dir=None, *, plain: bool = False) -> tuple[dict, dict]:
    """The consistency figure as an image reference (and its PNG bytes for Markdown's assets folder); ``plain``:
    its caption without the interval's method."""
    png = figure_png(consistency_plot(result).figure)
    alt = "Position consistency per judge, and primacy against recency"
    caption = (f"Left: share of items whose preferred answer is the same in both orders, with its "
               f"{'' if plain else 'exact (Clopper–Pearson) '}{100 * result.confidence:g}% interval. Right: the inconsistent items, split into "
               "primacy (first slot both times), recency (second slot both times) and a tie in one order only.")
    return image_entry("judge_consistency", png, alt, caption, format, assets_dir)


def judge_summary(result) -> str:
    """One plain paragraph from the order probe's verdict."""
    verdict = result.verdict
    judges = count_of(len(result.groups), "judge")
    where = f"In this order probe of {judges} over {result.order} ({result.orders[0]} and {result.orders[1]})"
    if verdict.conclusion == "untested":
        return f"{where}, {verdict.statement}."
    if verdict.detected:
        return (f"{where}, an order effect larger than chance would give after correction in "
                f"{', '.join(verdict.found)} (smallest corrected p = {fmt_p(verdict.pvalue, verdict.alpha)}); the "
                "probe says which slot the judge favours, not why.")
    return (f"{where}, the order effects were not more than chance would give after correction (smallest corrected "
            f"p = {fmt_p(verdict.pvalue, verdict.alpha)}); this does not show that the judge has none, only that this "
            "probe could not see one.")


#: the order probe's tests, as a plain report names them (their methods in the report's details)
PLAIN_TEST = ("a count of the slot each inconsistent item chose and a comparison of each answer's score shown first "
              "and shown second, each corrected across judges")


def judge_finding(result, *, plain: bool = False) -> list[str]:
    """The Finding of an order probe, from its verdict (``plain``: its tests named by what they ask)."""
    verdict = result.verdict
    if untested_sentence(verdict):
        return [untested_sentence(verdict)]
    test = PLAIN_TEST if plain else verdict.test
    head = (f"The probe detected an order effect larger than chance after correction in {', '.join(verdict.found)} "
            f"({test})." if verdict.detected else
            f"The probe did not detect an order effect larger than chance after correction ({test}); this "
            "does not show that the judge has none.")
    return [head, *(x.replace(verdict.test, test) for x in noise_check_sentences(verdict))]


def render_judge_report(result, *, format: str = "md", templates=None, assets_dir=None, design=None,
                        plain=None) -> str:
    """A report of the order probe alone: Summary, design facts, the ``judge`` section, Finding and Limits under
    a title (Markdown, HTML or JSON); ``design`` holds the design file's facts (placeholders for the rest).
    ``plain`` (a list, filled with the command-line spellings of the options its text names in words): the report
    for people who do not code, each test named by what it asks and how each was computed in the method details.

    With Markdown and ``assets_dir``, the figure is written there as PNG and linked.
    """
    # lazy: present.report.outline and present.report.environment import jinja2
    from probestats.present.report import outline as other
    from probestats.present.report.environment import environment, tidy_layout, user_template_errors

    if format not in ("md", "html", "json"):
        raise OptionError(f"unknown report format '{format}'; use one of md, html, json")
    design = design or Design()
    ctx = judge_context(result, plain=plain is not None)
    title = f"Order probe of a judge: {result.order}"
    n = max((g.n_items for g in result.groups), default=0)
    facts = other.design_facts(design, metric=f"the verdict read from {result.column}",
                               values=[f"'{result.orders[0]}'", f"'{result.orders[1]}'"],
                               compared=f"the two orders of {result.order}", items=(), n_items=n,
                               runs=f"{count_of(len(result.groups), 'judge')}, each item judged in both orders")
    context, sentences, names = other.own_report("judge", ctx, summary=judge_summary(result), facts=facts,
                                                 finding=judge_finding(result, plain=plain is not None),
                                                 limits=limits_of(n, [f"the verdict read from {result.column}"],
                                                                  design), format=format)
    if format == "json":
        out = result.to_dict()
        out["report"] = {"title": title, "sections": names, "sentences": sentences, "design": design.to_dict()}
        return dumps(jsonable(out)) + "\n"
    env = environment(format, templates)
    images, pngs = judge_images(result, format, assets_dir, plain=plain is not None)
    context = dict(title=title, version=__version__, source=result.log_source, full=True, images=images,
                   alpha=result.alpha, **context)
    with user_template_errors(templates):
        template = env.get_template(f"report.{format}.j2")
        if plain is not None:
            text = render_plain(template, {**context, "details": judge_details(result)}, plain)
        else:
            text = template.render(context)
    if pngs and assets_dir is not None:
        write_figures(assets_dir, pngs)
    return tidy_layout(text, format)


def judge_details(result) -> list[tuple[str, str]]:
    """How each figure of an order probe was computed: the method details of a plain report, (what, how).

    >>> from probestats.analyses.judge import analyze_order
    >>> rows = [{"item": i, "order": o, "reply": "[[A]]"} for i in range(3) for o in ("AB", "BA")]
    >>> judged = analyze_order(rows, order="order", verdicts=["first=[[A]]", "second=[[B]]"])
    >>> [what for what, _ in judge_details(judged)]  # doctest: +NORMALIZE_WHITESPACE
    ['The interval of the consistency', 'The test of the slot chosen', 'The test of the order effect',
     'The correction for several judges', 'The choice rate of one answer']
    """
    details = [
        ("The interval of the consistency", f"exact (Clopper–Pearson) {100 * result.confidence:g}% interval"
                                            + ("; with repetitions the item × repetition pairs are counted as "
                                               "independent" if result.repetition else "")),
        ("The test of the slot chosen", "exact binomial test of primacy (the first slot both times) against recency "
                                        "(the second both times), among the inconsistent items without a tie"),
        ("The test of the order effect", "exact sign-flip test of the order effect on an answer's score (1 chosen, "
                                         "½ tie, 0), shown first minus shown second, with the item as the unit"),
        ("The correction for several judges", f"p adjusted across {count_of(len(result.groups), 'judge')} "
                                              f"({result.correction}), each test on its own; alpha {result.alpha:g}"),
    ]
    if any(g.choice is not None for g in result.groups):
        details.append(("The choice rate of one answer", "exact binomial test of the rate averaged over both orders "
                                                         "against chance, with its exact interval"))
    return details
