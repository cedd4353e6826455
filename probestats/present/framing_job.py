"""The dual-framing analysis as one library call, shaped the way ``probestats framing`` shapes its log.

:func:`framing` is what ``probestats framing`` runs: the command parses its options, calls it and
prints the :class:`~probestats.analyses.framing.FramingResult` it returns.
"""

from __future__ import annotations

__all__ = ["framing"]


def framing(log, *, by=(), toward=None, targets=None, item=(), alpha=0.05, correction="holm", interval="t",
            label=None, response=None, score_from=None, scale=None, answers="auto", label_map=(),
            framing_columns=(), probe=None):
    """Dual framing: which way a model leans between two targets, how strongly, and whether the lean is
    protective or assertive.

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
        The dual-framing log (a wide sheet with one column per model is read with the models from its
        column names).
    by, toward, targets, item, alpha, correction, interval, label, response, score_from, scale, answers, label_map
        As for :func:`probestats.analyses.framing.analyze_framing` (``by`` and ``item`` as sequences).
    framing_columns : sequence of str
        ``affirmative=COL,reverse=COL``: one row per item with a column per framing's answer.
    probe : Probe, optional
        How the log is read and shaped (column mapping, filters, wide layouts).

    Returns
    -------
    FramingResult

    Examples
    --------
    >>> r = framing("sample_logs/framing_long.csv", targets="sample_logs/framing_targets.csv")
    >>> type(r).__name__, len(r.cells) > 0
    ('FramingResult', True)
    """
    from dataclasses import replace

    from probestats.analyses.framing import analyze_framing
    from probestats.shape.probe import Probe

    probe = probe if probe is not None else Probe()
    # a wide framing sheet has one column per model: the models are read from the column names
    probe = replace(probe, wide_attribute="model", framing_columns=tuple(framing_columns))
    return analyze_framing(probe.apply(log), by=list(by) or None, toward=toward,
                           targets=str(targets) if targets else None, item=list(item) or None, alpha=alpha,
                           correction=correction, interval=interval, label=label, response=response,
                           score_from=score_from, scale=scale, answers=answers, label_map=list(label_map) or None)
