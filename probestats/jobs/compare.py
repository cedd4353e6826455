"""The before/after comparison as one library call: both logs checked, analyzed and compared, and the
Markdown section written when asked for.

:func:`compare` is what ``probestats compare`` runs: the command parses its options, calls it and
prints the :class:`~probestats.analyses.compare.Comparison` it returns.
"""

from __future__ import annotations

from pathlib import Path

from probestats.analyses.cells import compare_cells
from probestats.analyses.compare import compare_runs
from probestats.analyses.question import Question
from probestats.errors import OptionError, either, opt
from probestats.present.report.files import refuse_inputs, write_whole
from probestats.shape.probe import Probe, as_probe
from probestats.vocabulary import as_tests, check_metric, check_path

__all__ = ["compare"]


def compare(before, after, *, metric, a=None, b=None, output=None, cells=False, tests=None, probe=None):
    """Compare a probe BEFORE and AFTER a mitigation: same items, values, seeds and metric, side by side.

    Parameters
    ----------
    before, after : path, Log, list of dict or DataFrame
        The two runs of the probe (cell tables with ``cells``).
    metric : str
        The metric column.
    a, b : str, optional
        The compared values (default: the first two values of ``before``), used for both logs.
    output : path, optional
        Also write the Markdown section (``compare.md.j2``) to this ``.md`` file, whole or not at all.
    cells : bool
        ``before`` and ``after`` are cell tables (from ``probestats cells`` or the warehouse SQL).
    tests : Tests, optional
        The direction and level of the tests (:class:`probestats.Tests`); the change test is the exact
        sign-flip test of two logs, so a correction, an interval, an effect size, resamples or a seed are
        refused.
    probe : Probe, optional
        How both logs are read and shaped (column mapping, filters); not with ``cells``.

    Returns
    -------
    Comparison
        Both analyses, the change (after − before) per item with its exact sign-flip test.

    Raises
    ------
    NotComparableError
        The logs differ in items, values, seeds or metric.

    Examples
    --------
    >>> c = compare("sample_logs/style_probe.csv", "sample_logs/style_probe.csv", metric="steps")
    >>> c.change_test.pvalue, c.change_average_gap
    (1.0, 0.0)
    """
    tests, metric, output = as_tests(tests), check_metric(metric), check_path("output", output, "compare.md")
    probe = as_probe(probe) if probe is not None else None
    tests.refuse("the comparison of two runs", "correction", "interval", "effect_size", "n_resamples", "seed")
    alternative, alpha = tests.alternative, tests.alpha
    output = Path(output) if output is not None else None
    if output is not None:
        refuse_inputs({opt("output"): output}, {either("before", "BEFORE"): before, either("after", "AFTER"): after})
        if output.suffix.lower() not in (".md", ".markdown"):
            raise OptionError(f"{opt('output', str(output))}: the compare section is Markdown; use a file ending in .md")
    if cells:
        if probe is not None and probe != Probe():
            raise OptionError(f"a cell table is read as it is: drop {opt('probe')} (shape the log when the table is built)")

        result = compare_cells(before, after, Question(metric, a=a, b=b), tests)
    else:
        probe = probe if probe is not None else Probe()
        probe.refuse("the comparison of two runs")
        result = compare_runs(probe.apply(before, metric=metric, a=a, b=b), probe.apply(after, metric=metric, a=a, b=b),
                              metric=metric, a=a, b=b, alternative=alternative, alpha=alpha,
                              fold_case=probe.fold_case, streaming=True)
    if output is not None:
        from probestats.present.report.compare import render_compare   # lazy: present.report.compare imports jinja2

        write_whole(output, render_compare(result))
    return result
