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
from probestats.errors import count_of
from probestats.present.words.judge import one_line
from probestats.present.words.fmt import fmt_p
from probestats.present.words.verdict import untested_sentence

__all__ = ["judge_context", "judge_images", "render_judge_report"]


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def _name(group) -> str:
    return ", ".join(f"{one_line(k)} {one_line(v)}" for k, v in group.by.items()) or "The judge"


def judge_context(result) -> dict:
    """Rows of the table and the sentences of the section."""
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
                f"{count_of(g.n_items, 'item')} ({100 * result.confidence:g}% exact interval {_pct(c.low)} to "
                f"{_pct(c.high)}).")
        n = g.primacy + g.recency
        detected = result.order_effect_detected(g)   # decided once, in the analysis
        if n == 0:
            text += " No inconsistent item chose the same slot twice."
        else:
            text += (f" Of the {count_of(n, 'inconsistent item')} without a tie, {g.primacy} chose the first slot "
                     f"both times and {g.recency} the second (exact binomial p = {fmt_p(g.order_test_p, alpha)}, "
                     f"{result.correction}-adjusted {fmt_p(g.order_test_p_adjusted, alpha)}).")
        if detected:
            side = "first" if (g.order_effect or 0) > 0 else "second"
            text += f" At alpha {alpha:g} this is an order effect: the judge favours the answer shown {side}."
        else:
            text += (f" At alpha {alpha:g} no order effect was detected (this does not show that the judge has "
                     "none).")
        sentences.append(text)
        if g.choice is not None:
            from probestats.present.words.judge import choice_sentence

            sentences.append(choice_sentence(g.choice, alpha, who))
    if getattr(result, "verdict", None) is not None:
        from probestats.present.words.verdict import verdict_line

        sentences.append(verdict_line(result.verdict))
    return {"rows": rows, "sentences": sentences, "by": [one_line(b) for b in result.by], "result": result,
            "order": one_line(result.order), "orders": [one_line(o) for o in result.orders],
            "column": one_line(result.column), "repetition": one_line(result.repetition) if result.repetition else None, "rules": [one_line(r) for r in result.rules],
            "confidence": f"{100 * result.confidence:g}%"}


def judge_images(result, format: str, assets_dir=None) -> tuple[dict, dict]:
    """The consistency figure as an image reference (and its PNG bytes for Markdown's assets folder)."""
    from probestats.present.plots.items import figure_png
    from probestats.present.report.files import image_entry
    from probestats.present.plots.judge import consistency_plot

    png = figure_png(consistency_plot(result).figure)
    alt = "Position consistency per judge, and primacy against recency"
    caption = (f"Left: share of items whose preferred answer is the same in both orders, with its exact "
               f"(Clopper–Pearson) {100 * result.confidence:g}% interval. Right: the inconsistent items, split into "
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


def judge_finding(result) -> list[str]:
    """The Finding of an order probe, from its verdict."""
    from probestats.present.words.verdict import noise_check_sentences

    verdict = result.verdict
    if untested_sentence(verdict):
        return [untested_sentence(verdict)]
    head = (f"The probe detected an order effect larger than chance after correction in {', '.join(verdict.found)} "
            f"({verdict.test})." if verdict.detected else
            f"The probe did not detect an order effect larger than chance after correction ({verdict.test}); this "
            "does not show that the judge has none.")
    return [head, *noise_check_sentences(verdict)]


def render_judge_report(result, *, format: str = "md", templates=None, assets_dir=None, design=None) -> str:
    """A report of the order probe alone: Summary, design facts, the ``judge`` section, Finding and Limits under
    a title (Markdown, HTML or JSON); ``design`` holds the design file's facts (placeholders for the rest).

    With Markdown and ``assets_dir``, the figure is written there as PNG and linked.
    """
    from probestats.errors import OptionError
    from probestats.present.report import outline as other
    from probestats.present.report.metrics import limits_of
    from probestats.present.report.files import write_figures
    from probestats.present.report.environment import environment, tidy_layout, user_template_errors
    from probestats.result import dumps, jsonable
    from probestats.shape.design import Design

    if format not in ("md", "html", "json"):
        raise OptionError(f"unknown report format '{format}'; use one of md, html, json")
    design = design or Design()
    ctx = judge_context(result)
    title = f"Order probe of a judge: {result.order}"
    n = max((g.n_items for g in result.groups), default=0)
    facts = other.design_facts(design, metric=f"the verdict read from {result.column}",
                               values=[f"'{result.orders[0]}'", f"'{result.orders[1]}'"],
                               compared=f"the two orders of {result.order}", items=(), n_items=n,
                               runs=f"{count_of(len(result.groups), 'judge')}, each item judged in both orders")
    context, sentences, names = other.own_report("judge", ctx, summary=judge_summary(result), facts=facts,
                                                 finding=judge_finding(result),
                                                 limits=limits_of(n, [f"the verdict read from {result.column}"],
                                                                  design), format=format)
    if format == "json":
        out = result.to_dict()
        out["report"] = {"title": title, "sections": names, "sentences": sentences, "design": design.to_dict()}
        return dumps(jsonable(out)) + "\n"
    env = environment(format, templates)
    images, pngs = judge_images(result, format, assets_dir)
    with user_template_errors(templates):
        text = env.get_template(f"report.{format}.j2").render(
            title=title, version=__version__, source=result.log_source, full=True, images=images,
            alpha=result.alpha, **context)
    if pngs and assets_dir is not None:
        write_figures(assets_dir, pngs)
    return tidy_layout(text, format)
