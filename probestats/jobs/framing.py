"""The dual-framing job as one library call: read, shape and analyze a framing log as ``probestats framing`` does.

:func:`framing` is what the local page of ``probestats serve`` calls for a framing log, with the
command's options as parameters (``label`` for ``--label``, ``response`` for ``--response``), so
the page and the command give the same result; :func:`framing_json` is that result as
``probestats framing ... --json`` prints it. The report of a framing log alone is
:func:`probestats.jobs.report.report` with ``framing_log``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from probestats.analyses.framing import FramingScores, analyze_framing
from probestats.analyses.framing_input import read_targets
from probestats.present.words.sanitize import json_text
from probestats.result import document, dumps
from probestats.shape.lookup import lookup
from probestats.shape.probe import Probe, as_probe
from probestats.vocabulary import as_tests, column_names

__all__ = ["framing", "framing_json", "result_json"]


def framing(log, *, by=(), toward=None, targets=None, item=(), label=None, response=None, score_from=None, scale=None,
            answers="auto", label_map=(), tests=None, probe=None):
    """Which way a model leans between two targets, as ``probestats framing`` analyzes a dual-framing log.

    Parameters
    ----------
    log : path or sequence of paths
        The dual-framing log (several files or a folder are read as one).
    probe : Probe, optional
        How the log is read and shaped (column mapping, sheet, filters); a wide sheet reads its models from
        the column names, and ``framing_columns`` (``affirmative=COL,reverse=COL``) reads one row per item
        with a column per framing's answer.
    by, toward, targets, item, label, response, score_from, scale, answers, label_map
        As for :func:`probestats.analyze_framing` (``targets``: the targets file).
    tests : Tests, optional
        The level, the correction across the cells and the interval of the scores (:class:`probestats.Tests`,
        as for :func:`probestats.analyze_framing`); the framing tests are two-sided and exact,
        so a direction, an effect size, resamples or a seed are refused.

    Returns
    -------
    FramingResult

    Examples
    --------
    >>> r = framing("sample_logs/framing_long.csv", targets="sample_logs/framing_targets.csv")
    >>> [(c.by["model"], c.by["topic"], c.pattern) for c in r.cells][:2]
    [('model-a', 'leadership', 'protective'), ('model-a', 'remote_work', 'protective')]
    """
    tests, probe = as_tests(tests), as_probe(probe)
    by, item = column_names("by", by), column_names("item", item, "topic")
    tests.refuse("the framing analysis", "alternative", "effect_size", "n_resamples", "seed")

    # a wide framing sheet has one column per model: the wide shaping reads the models from the column names
    (probe or Probe()).refuse("the framing analysis", fold_case=True,
                              why=" (the framings are read in any case, the other columns as written)",
                              complete="the items asked in one framing only")
    shaped = replace(probe if probe is not None else Probe(), wide_attribute="model")
    read, targets = targets_lookup(shaped.apply(log), targets)
    scores = FramingScores(label=label, response=response, score_from=score_from, scale=scale, answers=answers,
                           label_map=list(label_map) or None)
    return analyze_framing(read, tests, by=list(by) or None, toward=toward, targets=targets, item=list(item) or None,
                           scores=scores)


def targets_lookup(log, targets):
    """A targets file (topic, affirmative, reverse) joined to a shaped framing log on its topic, as
    ``--lookup FILE topic`` joins a table; and the targets left for the analysis (None once joined).

    A log without a topic column keeps the file for the analysis, which reads its one topic.
    """
    if not targets:
        return log, None
    if isinstance(targets, (str, Path)) and "topic" in log.lazy.collect_schema().names():
        # the file's own checks first (its columns, a target per framing, two different targets)
        table = [{"topic": t, "affirmative": a, "reverse": r} for t, (a, r) in read_targets(str(targets)).items()]
        joined = lookup(log.lazy, table, ("topic",), columns=log.columns, source_name=log.source,
                        option="targets", name=Path(targets).name)
        return replace(log, lazy=joined, _read={**log._read, "targets": str(targets)}), None
    return log, str(targets) if isinstance(targets, (str, Path)) else targets


def result_json(result) -> str:
    """A result as a command's ``--json`` prints it: one document with its ``schema_version``, C1 and bidi
    controls as ``\\u`` escapes, and the closing newline.

    >>> result_json(framing("sample_logs/framing_long.csv")).splitlines()[1]
    '  "schema_version": 2,'
    """
    return json_text(dumps(document(result))) + "\n"


def framing_json(log, **options) -> str:
    """:func:`framing`'s result as ``probestats framing ... --json`` prints it."""
    return result_json(framing(log, **options))
