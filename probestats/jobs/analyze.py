"""The analysis of a probe as one library call: a log or its cell table, analyzed as ``probestats analyze`` does.

:func:`analyze` is what the command runs (it parses its options, calls it and prints the result) and what
``probestats.analyze`` is in Python. The log is read and shaped by one :class:`~probestats.shape.probe.Probe`;
a cell table (from :func:`probestats.cells` or a warehouse) is recognized by its columns and analyzed as
it is. Which analysis runs is :func:`probestats.analyses.dispatch.analyze_shaped`'s choice.
"""

from __future__ import annotations

from dataclasses import replace

from probestats.analyses.dispatch import analyze_shaped, check_options, refuse_effect_size
from probestats.analyses.metrics import MetricsAnalysis, split_metrics
from probestats.analyses.paired import Analysis, with_row_level
from probestats.analyses.question import Question, Run
from probestats.errors import OptionError, either, opt
from probestats.jobs.inputs import cell_inputs, refuse_row_options, shape_log
from probestats.shape.design import Design, as_design
from probestats.shape.probe import as_probe
from probestats.vocabulary import as_tests, check_callable, check_metric, column_names

__all__ = ["analyze"]


def analyze(log, *, metric, a=None, b=None, noise=None, by=(), reference=None, scale=None, factor=(), tests=None,
            row_level=False, per_item=False, noise_value=None, validation=None, control=None, baseline=None,
            probe=None, design=None, progress=None):
    """Per-item gaps, the exact sign-flip and sign tests, and the noise beside them, as ``probestats analyze``
    computes them.

    Parameters
    ----------
    log : path, sequence of paths, Log, list of dict or DataFrame
        The probe log (several files or a folder are read as one, with a ``file`` column), or a cell table
        (one path, recognized by its columns).
    metric : str or sequence of str
        The metric column; several (a sequence, or names separated by commas): one analysis per metric,
        corrected as one family over metrics x groups (a cell table holds one).
    a, b, noise, by, reference, scale, factor, noise_value, validation, control, baseline
        As for :func:`probestats.analyses.dispatch.analyze_shaped`. With a cell table, ``noise`` is a cell table
        built with its runs (``probestats.cells(..., keep_runs=True)``), or None for the halves it holds.
    tests : Tests, optional
        How the tests are run (:class:`probestats.Tests`: direction, level, correction, interval, effect size,
        resampling); the defaults without it.
    row_level : bool
        Also the tests on runs, as studies whose runs are independent samples publish them (Welch's and
        Student's t, each mean and the difference with intervals, Cohen's d and Hedges' g, ANOVA and OLS with
        cluster-robust errors; with ``by``, the two-way models of the value and the groups): two values, one
        metric or several (each metric's); not with a cell table.
    per_item : bool
        Also Welch's t within each item on its runs, corrected across items (two values).
    probe : Probe, optional
        How the log (and a noise log) is read and shaped, and what its columns mean (its ``settings``,
        ``attribute_settings``, ``cluster`` and ``random_settings``, as for
        :func:`probestats.analyses.dispatch.analyze_shaped`); not with a cell table, shaped when it was built. Its
        ``axes`` name the axes of values that combine attributes (``female_black``): per axis, the mean gap and
        mean |gap| between its levels over the items and the share of items with a significant gap
        (:mod:`probestats.analyses.axes`; a comparison of all the values of one metric, from the log's rows).
    design : Design or path, optional
        The design facts (see :class:`probestats.shape.design.Design`), or a design file (TOML) holding them;
        the analysis reads ``selection`` (the metric says whether a candidate was selected: selection rates
        and impact ratios in an analysis of several values), the report states the others: a ``Design``
        stating any of them is refused (a design file, the probe's whole record, is read for ``selection``).
    progress : callable, optional
        Called with the name of each stage of a long job.

    Returns
    -------
    AnalysisResult
        A paired analysis, a many-values or two-factor analysis, or several metrics' analyses.

    Examples
    --------
    >>> r = analyze(["sample_logs/style_probe.csv"], metric="steps", a="formal", b="casual")
    >>> r.main.n_items, r.main.sign_flip.pvalue   # 3 of the 2**8 sign patterns are as extreme, on each side
    (8, 0.0234375)
    >>> from probestats import Tests
    >>> analyze("sample_logs/style_probe.csv", metric="steps", tests=Tests(alpha=0.01)).verdict.alpha
    0.01
    >>> analyze("sample_logs/style_probe.csv", metric="steps", tests=Tests(correction="bh"))
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: correction='bh' corrects across by groups (and blocks, a control, per-item tests); this comparison of two values has one test: drop it, or give by
    """
    tests, probe = as_tests(tests), as_probe(probe)
    metric, progress = check_metric(metric), check_callable("progress", progress)
    by, factor = column_names("by", by), column_names("factor", factor, "style")
    cells_file, noise_cells, noise = cell_inputs(log, noise=noise)
    metric = one_metric(metric, cells=cells_file is not None, row_level=row_level, per_item=per_item)
    if cells_file is not None and validation is not None:
        raise OptionError(f"{opt('validation')} cannot be used with a cell table: it matches hand labels to the "
                          f"log's runs; give the {either('log', 'LOG')}")
    axes = _axes(probe.axes)
    if axes:
        # lazy: analyses.axes is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.axes import check_axes

        check_axes(axes)
    if axes and (cells_file is not None or by or isinstance(metric, list)):
        named = ("a cell table" if cells_file is not None else opt("by") if by else f"several {opt('metric')}")
        raise OptionError(f"{opt('axes', axes)} reads the runs of one metric over the whole log; drop {named}"
                          + (f" (give the {either('log', 'LOG')})" if cells_file is not None else
                             f" (run it per group with {opt('where')})" if by else " (run it once per metric)"))
    if (row_level or per_item) and validation is not None:
        raise OptionError(f"{opt('validation')} cannot go with {opt('row_level')} or {opt('per_item')}: run them "
                          "apart")
    arms = {k: v for k, v in (("control", control), ("baseline", baseline)) if v is not None}
    if design is not None and _selection(design):
        arms["selection"] = True
    if cells_file is not None:
        refuse_runs(probe, noise_value=noise_value, per_item=per_item, arms=arms)

        question = Question(metric, a=a, b=b, by=by, reference=reference, scale=scale, factor=factor,
                            noise=noise_cells)
        return _analyze_cells(cells_file, question, probe, tests, row_level=row_level)

    question = Question(metric, a=a, b=b, by=by, reference=reference, scale=scale, factor=factor, noise=noise,
                        noise_value=noise_value, **arms)
    check_options(question, probe, tests, validation=validation is not None)   # said before the log is read
    # one streaming pass over the log (memory grows with items x values, not rows); the row-level tests need
    # the runs
    result = analyze_shaped(shape_log(log, question, probe), question, probe, tests, validation=validation,
                            run=Run(streaming=not (row_level or per_item or axes), progress=progress))
    if row_level or per_item:  # Welch's t on runs beside the item-level tests, for a comparison of two values
        result = _with_runs(result, row_level=row_level, per_item=per_item)
    if axes:
        result = _with_axes(result, axes)
    refuse_lone_correction(result, tests.correction, control)
    return result


def _axes(axes) -> list[str]:
    """The axes' names, from a string of names separated by commas or a sequence of them."""
    given = [axes] if isinstance(axes, str) else list(axes or ())
    names = [n.strip() for text in given for n in str(text).split(",")]
    if any(not n for n in names):
        raise OptionError(f"{opt('axes', given)}: an empty axis name; give names separated by commas, such as "
                          f"{opt('axes', 'gender,race')}")
    return names


def _with_axes(result, axes):
    # lazy: analyses.axes is off the paired analysis's path (tests/test_start.py)
    from probestats.analyses.axes import with_axes
    from probestats.analyses.many import ManyAnalysis

    if not isinstance(result, ManyAnalysis):
        raise OptionError(f"{opt('axes', axes)} reads values that combine attributes in a comparison of all the "
                          f"values; this log is analyzed as two values (drop {opt('a')} and {opt('b')}, or the "
                          "option)")
    return with_axes(result, axes)


def _with_runs(result, *, row_level: bool, per_item: bool):
    """``result`` with the tests on runs (``row_level``) and Welch's t per item (``per_item``): a comparison of two
    values, or each metric's of several (the family stays the item-level tests')."""
    # lazy: analyses.rowlevel is off the paired analysis's path (tests/test_start.py)
    from probestats.analyses.rowlevel import with_row_tests

    def one(analysis):
        if not isinstance(analysis, Analysis):
            raise OptionError(f"{opt('row_level') if row_level else opt('per_item')} applies to a comparison of "
                              f"two values; choose them with {opt('a')} and {opt('b')}")
        analysis = with_row_level(analysis) if row_level else analysis
        return with_row_tests(analysis, per_item=per_item, per_group=row_level)

    if isinstance(result, MetricsAnalysis):
        return replace(result, analyses=tuple(one(a) for a in result.analyses))
    return one(result)


def roles(probe, noise_value=None) -> dict:
    """The column roles of ``probe`` (and the noise value), as the analyses take them: given only when set
    (the analyses that have no use for one refuse it)."""
    return {name: value for name, value in (("cluster", probe.cluster), ("random_settings", probe.random_settings),
                                             ("settings", probe.settings),
                                             ("attribute_settings", probe.attribute_settings),
                                             ("noise_value", noise_value)) if value}


def _selection(design) -> bool:
    """Whether the design says the metric is a selection; a ``Design`` stating a report's facts is refused."""
    given, design = design, as_design(design)
    stated = [k for k, v in design.to_dict().items() if k != "selection" and v not in (None, [], ())]
    if stated and isinstance(given, Design):   # a report's facts: an analysis would drop them without a word
        # (a design file is the probe's whole record, shared with its report: analyze reads its selection)
        raise OptionError(f"Design({stated[0]}=...): analyze reads the design fact selection only; {stated[0]} is "
                          f"a fact a report states (give it to "
                          f"{either('probestats.report(..., design=...)', 'probestats report')})")
    return bool(design.selection)


def refuse_runs(probe, *, noise_value=None, per_item=False, arms=None) -> None:
    """A cell table pooled the runs of each item and value: the options that read them are refused."""
    runs = [*roles(probe, noise_value).items(), *([("per_item", True)] if per_item else [])]
    if runs:
        name, value = runs[0]
        named = opt(name, value if isinstance(value, (str, bool)) else list(value))
        raise OptionError(f"{named} needs the runs of the log; give the {either('log', 'LOG')} instead of a cell "
                          "table")
    if arms:   # a control, a baseline, a selection
        named = next(opt(k, v) if k != "selection" else either("Design(selection=True)", "--set selection=yes")
                     for k, v in arms.items())
        raise OptionError(f"{named} needs the runs of the log's values; give the {either('log', 'LOG')} instead of a "
                          "cell table")


def _analyze_cells(cells_file, question, probe, tests, *, row_level: bool):
    """The paired analysis of a cell table (its shaping happened when it was built): the ``question``'s metric,
    values, ``by`` and noise (a cell table built with its runs, or None); its reference, scale and factor, the
    ``probe``'s shaping and ``row_level`` need the rows, and are refused."""
    # lazy: analyses.cells is off the paired analysis's path (tests/test_start.py)
    from probestats.analyses.cells import analyze_cells

    q = question
    refuse_row_options(probe, reference=q.reference, scale=q.scale, factor=q.factor, row_level=row_level)
    refuse_effect_size(tests)
    result = analyze_cells(cells_file, replace(q, reference=None, scale=None, factor=()), tests)
    refuse_lone_correction(result, tests.correction, None)
    return result


def one_metric(metric, *, cells: bool = False, row_level: bool = False, per_item: bool = False):
    """The metric's names: one name as a string, several as a list (one analysis each).

    >>> one_metric("steps"), one_metric(("steps,words",)), one_metric(())
    ('steps', ['steps', 'words'], None)
    """
    if metric is None or metric == ():
        return None
    names = split_metrics(metric)
    if len(names) > 1:
        for named, given in (("a cell table", cells), (opt("per_item"), per_item)):
            if given:
                raise OptionError(f"{named} takes one {opt('metric')}; run it once per metric")
        return names
    return names[0]


def refuse_lone_correction(result, correction: str, control) -> None:
    """``correction`` changes nothing in a comparison of two values with one test (no ``by`` groups, no blocks,
    no control, no per-item tests): refused rather than ignored."""
    if (correction != "holm" and isinstance(result, Analysis) and not result.groups and control is None
            and not getattr(result, "row_tests", None)):
        raise OptionError(f"{opt('correction', correction)} corrects across {opt('by')} groups (and blocks, a "
                          f"control, per-item tests); this comparison of two values has one test: drop it, or give "
                          f"{opt('by')}")
