"""The order probe of a pairwise judge as one library call: verdicts read by rules, or a scored judge.

:func:`judge` is what ``probestats judge`` runs: the command parses its options, calls it and prints
the result it returns.
"""

from __future__ import annotations

from probestats.errors import OptionError, either, opt

__all__ = ["judge"]


def judge(log, *, order, response=None, choice=None, score=None, verdicts=(), by=(), repetition=None, scale=None,
          alpha=0.05, correction="holm", probe=None):
    """Order probes on a pairwise judge: position consistency, primacy against recency, the order effect.

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
        Each item judged with its two answers in both orders.
    order : str
        The column whose two values are the two answer orders.
    response, choice, score : str, optional
        One of them: the judge's raw reply (read with ``verdicts``), a column holding the slot chosen,
        or a score per answer (the paired analysis with the order as the attribute).
    verdicts : sequence of str
        ``LABEL=PATTERN`` rules (LABEL first, second or tie; PATTERN literal text or ``re:REGEX``).
    by, repetition : optional
        The judge column(s), one analysis each; the column numbering repeated judgments.
    scale : "LOW:HIGH", optional
        With ``score``: the judge's scale (ceiling and floor flags).
    alpha, correction
        As everywhere (:mod:`probestats.vocabulary`); corrected across judges.
    probe : Probe, optional
        How the log is read and shaped.

    Returns
    -------
    JudgeResult, or Analysis with ``score``

    Examples
    --------
    >>> import polars as pl
    >>> rows = [{"item": i, "order": o, "reply": "[[A]]"} for i in range(4) for o in ("ab", "ba")]
    >>> r = judge(pl.DataFrame(rows), order="order", response="reply", verdicts=["first=[[A]]", "second=[[B]]"])
    >>> r.groups[0].consistency.k, r.groups[0].primacy
    (0, 4)
    """
    from probestats.shape.probe import Probe

    probe = probe if probe is not None else Probe()
    given = [opt(name) for name, v in (("response", response), ("choice", choice), ("score", score)) if v]
    if len(given) > 1:
        raise OptionError(f"give one of {opt('response')}, {opt('choice')} and {opt('score')}, not {' and '.join(given)}")
    if score is not None:
        if verdicts or repetition:
            raise OptionError(f"{opt('score')} compares the scores of each order; drop {opt('verdicts')} and "
                              f"{opt('repetition')}")
        from dataclasses import replace

        from probestats.analyses.judge import analyze_scored

        # the order column is the attribute compared: map it as the log's value column
        scored = replace(probe, columns=tuple(probe.columns) + (("variant", order),))
        return analyze_scored(scored.apply(log, metric=score), order=order, score=score, by=by, scale=scale,
                              alpha=alpha, correction=correction)
    if scale is not None:
        raise OptionError(f"{opt('scale')} belongs to a scored judge; add {either('score=COL', '--score COL')}")
    from probestats.analyses.judge import analyze_order

    return analyze_order(probe.apply(log), order=order, response=response, choice=choice, verdicts=verdicts, by=by,
                         repetition=repetition, alpha=alpha, correction=correction)
