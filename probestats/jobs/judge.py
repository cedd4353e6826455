"""The order probe of a pairwise judge as one library call, as ``probestats judge`` analyzes it.

:func:`judge` is what the local page of ``probestats serve`` calls for a judge's log, with the
command's options as parameters, so the page and the command give the same result;
:func:`judge_json` is that result as ``probestats judge ... --json`` prints it. The report of an
order probe alone is :func:`probestats.jobs.report.report` with ``judge``.
"""

from __future__ import annotations

from dataclasses import replace

from probestats.analyses.judge import analyze_order, analyze_scored
from probestats.errors import OptionError, either, opt
from probestats.jobs.framing import result_json
from probestats.shape.probe import as_probe
from probestats.vocabulary import as_tests, column_names

__all__ = ["judge", "judge_json"]


def judge(log, *, order, response=None, choice=None, score=None, verdicts=(), by=(), repetition=None, scale=None,
          tests=None, probe=None, own_first=None, chance=0.5):
    """Position consistency, primacy against recency and the order effect of a judge that saw each item's two
    answers in both orders (the two values of ``order``).

    Parameters
    ----------
    log : path or sequence of paths
        One row per verdict.
    order : str
        The column whose two values are the two answer orders.
    response, choice, score : str, optional
        Where the verdict is (one of them): the judge's raw reply (read with ``verdicts``), a column that
        already holds the slot chosen, or a score of each answer (the paired analysis with the order as the
        attribute).
    verdicts : sequence of str
        ``LABEL=PATTERN`` rules, LABEL one of first, second, tie.
    by, repetition, scale, own_first, chance
        As for :func:`probestats.analyses.judge.analyze_order` (``scale`` with ``score`` only; ``own_first`` and
        ``chance``, the choice rate of one answer, with verdicts only).
    tests : Tests, optional
        The level and the correction across the judges (:class:`probestats.Tests`); the order probe's tests
        are two-sided and exact, so a direction, an interval, an effect size, resamples or a seed are refused.
    probe : Probe, optional
        How the log is read and shaped.

    Returns
    -------
    JudgeResult, or the paired analysis for a scored judge

    Examples
    --------
    >>> rows = [{"item": i, "order": o, "reply": r} for i, pair in enumerate([("[[A]]", "[[B]]"), ("[[A]]", "[[A]]")])
    ...         for o, r in zip(("AB", "BA"), pair)]
    >>> g = judge(rows, order="order", verdicts=["first=[[A]]", "second=[[B]]"]).groups[0]
    >>> g.n_items, g.primacy
    (2, 1)
    """
    tests, probe, by = as_tests(tests), as_probe(probe), column_names("by", by)
    tests.refuse("the order probe", "alternative", "interval", "effect_size", "n_resamples", "seed")
    alpha, correction = tests.alpha, tests.correction
    probe.refuse("the order probe", fold_case=True, why=" (the order column's two values are read as written)",
                 column=order or "order", complete="the items judged in one order only")
    sources = [opt(name) for name, v in (("response", response), ("choice", choice), ("score", score)) if v]
    if len(sources) > 1:
        raise OptionError(f"give one of {opt('response')}, {opt('choice')} and {opt('score')}, not "
                          f"{' and '.join(sources)}")
    if score is not None:
        if verdicts or repetition:
            raise OptionError(f"{opt('score')} compares the scores of each order; drop {either('verdicts', '--verdict')} and "
                              f"{opt('repetition')}")
        if own_first is not None or chance != 0.5:
            raise OptionError(f"{opt('score')} compares the scores of each order and has no choice rate; drop "
                              f"{opt('own_first') if own_first is not None else opt('chance')}")

        # the order column is the attribute compared: map it as the log's value column
        scored = replace(probe, columns=tuple(probe.columns) + (("variant", order),))
        return analyze_scored(scored.apply(log, metric=score), order=order, score=score, by=by, scale=scale,
                              alpha=alpha, correction=correction)
    if scale is not None:
        raise OptionError(f"{opt('scale')} belongs to a scored judge; add {opt('score')} COL")
    if choice is None and not verdicts:
        raise OptionError(f"say how verdicts are read: {opt('response')} COL with {either('verdicts', '--verdict')} rules such as "
                          f"first=[[A]] and second=[[B]], or {opt('choice')} COL, or {opt('score')} COL")

    return analyze_order(probe.apply(log), order=order, response=response, choice=choice, verdicts=verdicts, by=by,
                         repetition=repetition, alpha=alpha, correction=correction, own_first=own_first,
                         chance=chance)


def judge_json(log, **options) -> str:
    """:func:`judge`'s result as ``probestats judge ... --json`` prints it."""
    return result_json(judge(log, **options))
