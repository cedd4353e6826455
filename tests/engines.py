"""The engines of ``probestats.analyses`` called with their options by name, as the tests write them.

The engines take the log, a :class:`~probestats.analyses.question.Question`, a :class:`~probestats.shape.probe.Probe`
and a :class:`~probestats.vocabulary.Tests`; a test that checks a statistic or a refusal names the options one by
one, and these put each into the object it belongs to (:func:`probestats.analyses.question.from_keywords`), so the
engine computes exactly what it computes for the job with the same options.
"""

from __future__ import annotations

from dataclasses import fields, replace

from probestats.analyses import dispatch, paired
from probestats.analyses.question import Run, from_keywords
from probestats.shape.probe import Probe


def _objects(options: dict):
    """The question, probe, tests and run keywords of ``options``; a ``probe`` given whole takes the probe's
    fields named beside it."""
    given = options.pop("probe", None)
    question, probe, tests, run = from_keywords(**options)
    if given is not None:
        named = {f.name: getattr(probe, f.name) for f in fields(Probe) if f.name in options}
        probe = replace(given, **named)
    return question, probe, tests, run


def analyze(log, **options):
    """:func:`probestats.analyses.dispatch.analyze_shaped` with its options by name (``where``, ``derive`` and
    ``read_options`` are the probe's): the log read and shaped first, as the job does
    (:func:`probestats.jobs.inputs.shape_log`), for the engine to take as it is."""
    from probestats.jobs.inputs import shape_log

    question, probe, tests, run = _objects(options)
    validation = run.pop("validation", None)
    return dispatch.analyze_shaped(shape_log(log, question, probe), question, probe, tests, validation=validation,
                                   run=Run(**run))


def analyze_pair(log, **options):
    """:func:`probestats.analyses.paired.analyze_pair` with its options by name: the log read first (with its
    ``read_options``), as the job does, for the paired engine takes a log already read and shaped."""
    from probestats.io.read import read_log

    log = read_log(log, metric=options.get("metric"), **(options.pop("read_options", None) or {}))
    question, probe, tests, run = _objects(options)
    return paired.analyze_pair(log, question, probe, tests, Run(**run))


def analyze_cells(cells, **options):
    """:func:`probestats.analyses.cells.analyze_cells` with its options by name."""
    from probestats.analyses.cells import analyze_cells as engine

    question, _, tests, run = _objects(options)
    return engine(cells, question, tests, **run)


def compare_cells(before, after, *, names=None, **options):
    """:func:`probestats.analyses.cells.compare_cells` with its options by name."""
    from probestats.analyses.cells import compare_cells as engine

    question, _, tests, _ = _objects(options)
    return engine(before, after, question, tests, names=names)
