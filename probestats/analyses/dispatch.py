"""One entry point for every analysis of a shaped probe log: the question decides which one runs.

:func:`analyze_shaped` is what the job (:func:`probestats.jobs.analyze.analyze`: ``probestats analyze`` on
the command line, ``probestats.analyze`` in Python) calls once it has read and shaped the log:

- ``factor`` (two attributes at once) -> :func:`~probestats.analyses.factors.analyze_factors`;
- ``group`` or ``reference`` (every value against one) -> :func:`~probestats.analyses.many.analyze_many`;
- ``scale`` (a judge's scale) -> :func:`~probestats.analyses.evaluator.judge_analysis`;
- more than two values and no ``a``/``b`` -> :func:`~probestats.analyses.many.analyze_many`;
- otherwise the paired analysis of two values -> :func:`~probestats.analyses.paired.analyze_pair`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

import polars as pl

from probestats.analyses.metrics import MetricsAnalysis, analyze_metrics, one_metric_tests
from probestats.analyses.paired import Analysis, analyze_pair
from probestats.analyses.question import Run
from probestats.errors import OptionError, either, opt
from probestats.io.log import Log, collect
from probestats.limits import check_limit, duration
from probestats.shape.probe import as_probe
from probestats.shape.shaped import Shaped
from probestats.vocabulary import as_tests

__all__ = ["AnalysisResult", "analyze_shaped", "check_options", "check_roles"]

if TYPE_CHECKING:
    from probestats.analyses.factors import FactorAnalysis
    from probestats.analyses.many import ManyAnalysis
    from probestats.analyses.metrics import MetricsAnalysis
    from probestats.analyses.paired import Analysis

    #: What :func:`analyze_shaped` returns: a paired analysis (also a judge's, with its ceiling and
    #: floor problems), a many-values analysis, a two-factor analysis, or several metrics' analyses.
    AnalysisResult = Union[Analysis, ManyAnalysis, FactorAnalysis, MetricsAnalysis]


def __getattr__(name: str):
    # AnalysisResult names every kind of analysis; it is built when read, so that one analysis does not
    # import the modules of the others
    if name == "AnalysisResult":
        # lazy: analyses.factors is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.factors import FactorAnalysis
        from probestats.analyses.many import ManyAnalysis

        union = Union[Analysis, ManyAnalysis, FactorAnalysis, MetricsAnalysis]
        globals()[name] = union
        return union
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def analyze_shaped(log, question, probe=None, tests=None, *, validation=None, run: Run | None = None) -> AnalysisResult:
    """Analyze a probe log the way its options ask (see the module's description for the choice).

    Parameters
    ----------
    log : Shaped or Log
        The probe log as the job read and shaped it (:func:`probestats.jobs.inputs.shape_log`: each metric's log,
        and its noise log where ``question.noise`` is a log); a Log is taken as shaped for every metric. Nothing
        is read or shaped here.
    question : Question
        What is compared (:class:`probestats.analyses.question.Question`): the metric (several: one paired
        analysis per metric, corrected as one family over metrics × groups,
        :func:`~probestats.analyses.metrics.analyze_metrics`, a ``MetricsAnalysis``), the values ``a`` and
        ``b``, ``by`` groups, a ``reference`` or ``group`` of values, a judge's ``scale``, two attributes
        (``factor``), the noise reference (``noise``: a same-versus-same log, ``"within"``, the default, or
        ``"none"``; ``noise_value``: one value's repeats), a ``control`` wording (its rows set beside the
        analysis, :mod:`probestats.analyses.control`), the ``baseline`` of two values (with neither ``a``
        nor ``b``, ``b`` is the baseline), and whether the metric is a ``selection`` (many values: selection
        rates and impact ratios).
    probe : Probe, optional
        What the log means (:class:`probestats.shape.probe.Probe`; the job shaped the log and a noise log by it):
        its groups, case folding and column roles: ``settings`` and ``attribute_settings`` (held fixed, or varied with the value),
        ``cluster`` (the tests flip whole clusters, :mod:`probestats.analyses.clusters`) and
        ``random_settings`` (drawn per call, checked for balance, :mod:`probestats.analyses.drawn`); the
        defaults without it.
    tests : Tests, optional
        How the tests are run (:class:`probestats.vocabulary.Tests`: direction, level, correction, the interval
        of the average gap, the effect size a table of several metrics shows, resampling); the defaults without
        it.
    validation : path, list of dict or DataFrame, optional
        Paired analysis of a coded metric: hand labels of a sample of runs, keyed as the log is; the
        result is a :class:`~probestats.analyses.hand_labels.ValidatedAnalysis` whose verdict is on the
        gap corrected for the coder's error (see :mod:`probestats.analyses.hand_labels`).
    run : Run, optional
        How a paired analysis runs (:class:`probestats.analyses.question.Run`): with ``noise``, the minimum
        detectable gap of the design (``mdg``); without it, value a's runs split in two by seed and that
        same-versus-same comparison shown beside the result (``within_noise``, when every cell has two runs or
        more); one streaming pass over the log, so memory grows with items x values rather than rows
        (``streaming``, same results, see :func:`~probestats.analyses.paired.analyze_pair`), with what a
        report states of the log's settings and seeds (``facts``); a ``progress`` display. Several metrics
        read its ``mdg``, ``within_noise`` and ``streaming``. The defaults without it.

    Returns
    -------
    Analysis or ManyAnalysis or FactorAnalysis
        See :data:`AnalysisResult`. Every one is a frozen dataclass with ``to_dict()``.

    Raises
    ------
    OptionError
        Options that ask for two analyses at once (``factor`` with ``a``, ``b``, ``group``
        or ``reference``; ``group`` or ``reference`` with ``a`` or ``b``).
    ValidationError
        The log has errors.

    Examples
    --------
    >>> from probestats.analyses.question import Question
    >>> from probestats.shape.probe import Probe
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + (s % 3 == i % 2)}
    ...         for i in range(8) for v in ("formal", "casual") for s in range(1, 6)]
    >>> type(analyze_shaped(Probe().apply(rows, metric="steps"), Question("steps"))).__name__
    'Analysis'
    >>> three = Probe().apply(rows + [dict(r, variant="plain") for r in rows if r["variant"] == "casual"])
    >>> type(analyze_shaped(three, Question("steps"))).__name__
    'ManyAnalysis'
    >>> type(analyze_shaped(three, Question("steps", a="formal", b="plain"))).__name__
    'Analysis'
    >>> analyze_shaped(rows, Question("steps", reference="formal", a="formal"))
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: group and reference compare every value; drop a and b (or drop group)
    """
    from dataclasses import replace

    probe, tests, q, run = as_probe(probe), as_tests(tests), question, run or Run()
    metrics = list(q.metrics)
    check_options(q, probe, tests, validation=validation is not None)
    if len(metrics) > 1 and q.factor:   # each metric's two-factor analysis (per group), corrected together
        # lazy: analyses.factors is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.factors import FactorSet, factor_set

        analyses = []
        # each metric's analysis reads what is compared and how it is tested, not the arms, the noise value, the
        # column roles or the effect size of a table of several metrics (the options that would refuse it)
        one_probe = replace(probe, settings=(), attribute_settings=(), cluster=None, random_settings=())
        for name in metrics:
            one = analyze_shaped(log, replace(q, metric=name, noise_value=None, control=None, baseline=None,
                                              selection=False), one_probe, one_metric_tests(tests))
            analyses += list(one.analyses) if isinstance(one, FactorSet) else [(name, {}, one)]
        return factor_set(analyses, tests)
    if len(metrics) > 1:
        return analyze_metrics(log, replace(q, metric=metrics), probe, tests, analyze=analyze_shaped,
                               run=Run(mdg=run.mdg, within_noise=run.within_noise, streaming=run.streaming))
    metric = metrics[0]
    q = replace(q, metric=metric)
    if isinstance(log, Shaped):   # the metric's log and noise log, as the job shaped them
        log, noise = log.of(metric)
        q = q if noise is None else replace(q, noise=noise)
    q = replace(q, group=q.group or probe.groups)
    whole = log
    if q.control is not None or q.baseline is not None:
        # lazy: analyses.control is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.control import without_control

        log = without_control(log, q.control, probe)
        a, b = _baseline_pair(log, q, probe, many=bool(q.group) or q.reference is not None)
        q = replace(q, a=a, b=b)
    _check_groups(log, q.by)
    result = _one_analysis(log, q, probe, tests, Run(mdg=run.mdg, within_noise=run.within_noise,
                                                     streaming=run.streaming, progress=run.progress, facts=run.facts))
    if q.selection:
        # lazy: analyses.many is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.many import ManyAnalysis

        if not isinstance(result, ManyAnalysis):
            raise OptionError(f"{either('Design(selection=True)', '--set selection=yes')}: selection rates and impact "
                              "ratios are shown for several values; a comparison of two values gives their gap, "
                              "the difference of the two selection rates (drop it, or compare more values)")
    if q.baseline is not None and hasattr(result, "baseline"):
        result = replace(result, baseline=q.baseline)
    if q.control is not None:
        # lazy: analyses.control is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.control import with_control

        result = with_control(result, whole, probe, tests, control=q.control)
    if validation is not None:
        # lazy: analyses.hand_labels is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.hand_labels import with_validation

        result = with_validation(result, validation, n_resamples=tests.n_resamples,
                                 seed=0 if tests.seed is None else tests.seed)
    return result


def check_options(question, probe, tests, *, validation: bool = False) -> None:
    """Refuse the options that cannot go together, before any log is read: a column given a role it cannot take
    (:func:`check_roles`), hand labels (``validation``) beside anything but one coded metric of two values, arms
    the analysis cannot use, a cluster or a drawn setting beside several metrics, factors, a scale, hand labels
    or a control, the options several metrics do not read, the effect size a table of several metrics shows
    given to one metric.

    The jobs call it before they read the log, so a wrong combination is said first; :func:`analyze_shaped`
    calls it again for a caller that comes straight to it.

    >>> from probestats.analyses.question import Question
    >>> from probestats.shape.probe import Probe
    >>> from probestats.vocabulary import Tests
    >>> check_options(Question("steps"), Probe(cluster="story"), Tests())
    >>> check_options(Question(["steps", "words"]), Probe(cluster="story"), Tests())
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: cluster='story' applies to a comparison of two values of one metric; drop metric (give one metric)
    """
    q, probe, tests = question, as_probe(probe), as_tests(tests)
    metrics = list(q.metrics)
    several = len(metrics) > 1
    check_roles(metrics, probe)
    if validation:
        used = [name for name, given in (("metric", several), ("factor", q.factor), ("group", q.group),
                                         ("reference", q.reference is not None), ("scale", q.scale)) if given]
        if used:
            raise OptionError(f"{opt('validation')} checks one coded metric compared between two values; drop "
                              f"{opt(used[0])}" + (" (give one metric)" if used[0] == "metric" else ""))
    _check_arms(q, several=several)
    _check_design_roles(q, probe, validation=validation)
    if several and not q.factor:
        refuse_for_metrics(settings=probe.settings, attribute_settings=probe.attribute_settings,
                           noise_value=q.noise_value)
    if not several:
        refuse_effect_size(tests)


def _check_design_roles(question, probe, *, validation: bool) -> None:
    """Refuse a cluster or a drawn setting beside an analysis other than two values of one metric."""
    q = question
    random_settings = tuple(dict.fromkeys(probe.random_settings))   # a setting named twice is one setting
    design = [(name, value) for name, value in (("cluster", probe.cluster), ("random_settings", random_settings))
              if value]
    for name, value in design:
        shown = value if isinstance(value, str) else value[0]
        for other, given in (("metric", len(q.metrics) > 1), ("factor", q.factor), ("scale", q.scale),
                             ("validation", validation), ("control", q.control is not None)):
            if given:
                raise OptionError(f"{opt(name, shown)} applies to a comparison of two values of one metric; "
                                  f"drop {opt(other)}" + (" (give one metric)" if other == "metric" else ""))


def check_roles(metrics, probe) -> None:
    """Refuse a setting of the ``probe`` that is the item, value or metric column, and a column given two roles.

    >>> from probestats.shape.probe import Probe
    >>> check_roles(["steps"], Probe(random_settings=["temperature"]))
    >>> check_roles(["steps"], Probe(random_settings=["variant"]))
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: random_settings=['variant']: 'variant' is the value column, not a setting of the runs drawn at random per call; name a column such as temperature
    """
    settings, attribute_settings = probe.settings, probe.attribute_settings
    cluster, random_settings = probe.cluster, probe.random_settings
    for name, listed in (("settings", settings), ("attribute_settings", attribute_settings),
                         ("random_settings", random_settings)):
        for column in [listed] if isinstance(listed, str) else listed:
            role = {"item": "the item", "variant": "the value", **{m: "the metric" for m in metrics}}.get(column)
            if role:
                drawn = name == "random_settings"
                shown = opt(name, [column] if drawn else column)
                raise OptionError(f"{shown}: '{column}' is {role} column, not a setting of the runs"
                                  + (" drawn at random per call; name a column such as temperature" if drawn else
                                     "; name a column such as model, temperature or system"))
    _one_role_each(probe)


def _one_role_each(probe) -> None:
    """Refuse a column the ``probe`` gives two roles (a cluster and a random setting, a held-fixed and a random
    setting): each role reads the column another way.

    >>> from probestats.shape.probe import Probe
    >>> _one_role_each(Probe(cluster="doc", random_settings=("temperature",)))
    >>> _one_role_each(Probe(cluster="doc", random_settings=["doc"]))
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: cluster='doc' and random_settings=['doc'] name one column twice: a cluster groups whole items, a random setting is drawn for each run; give the column one role (drop one of them)
    """
    def listed(value):
        return [] if not value else [value] if isinstance(value, str) else list(value)

    seen: dict[str, str] = {}
    for name in ("cluster", "settings", "attribute_settings", "random_settings"):
        value = getattr(probe, name)
        for column in listed(value):
            if column in seen and seen[column] != name:
                meaning = {"cluster": "a cluster groups whole items", "settings": "a setting is held fixed",
                           "attribute_settings": "an attribute setting changes with the value",
                           "random_settings": "a random setting is drawn for each run"}
                first = seen[column]
                shown = (lambda n: opt(n, column if n == "cluster" else [column]))
                raise OptionError(f"{shown(first)} and {shown(name)} name one column twice: {meaning[first]}, "
                                  f"{meaning[name]}; give the column one role (drop one of them)")
            seen[column] = name


def _one_analysis(log, question, probe, tests, run: Run):
    """The one analysis the ``question`` asks for, on the shaped log (see the module's description), a paired
    one run as ``run`` says."""
    q = question
    if q.factor:
        if q.a or q.b or q.group or q.reference:
            raise OptionError(f"{opt('factor')} compares the levels of two attributes; drop {opt('a')}, {opt('b')}, "
                              f"{opt('group')} and {opt('reference')}")
        # lazy: analyses.many is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.many import refuse_pair_options

        if q.noise is not None or q.scale:
            flag = opt("noise", str(q.noise)) if q.noise is not None else opt("scale", q.scale)
            raise OptionError(f"{flag}: the two-factor analysis ({opt('factors')}) tests main effects and their "
                              f"interaction against the items' own variation, with no noise reference or scale "
                              f"check; drop it")
        refuse_pair_options(probe, tests, q.noise_value, analysis=f"two factors ({opt('factors')})", fix="drop it")
        # lazy: analyses.factors is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.factors import analyze_factors

        if q.by:   # one two-factor analysis per group, corrected together
            return _factor_groups(log, q, probe, tests)
        return analyze_factors(log, q, probe, tests)
    if q.group or q.reference is not None:
        if q.a or q.b:
            raise OptionError(f"{opt('group')} and {opt('reference')} compare every value; drop {opt('a')} and "
                              f"{opt('b')} (or drop {opt('group')})")
        # lazy: analyses.many is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.many import analyze_many, refuse_pair_options

        refuse_pair_options(probe, tests, q.noise_value)
        if q.scale:
            raise OptionError(f"{opt('scale', q.scale)} checks the baseline's cells of a comparison of two values "
                              f"for a floor or a ceiling; with {opt('group') if q.group else opt('reference')} "
                              f"every value is compared: drop {opt('scale')}, or compare two values with "
                              f"{opt('a')} and {opt('b')}")
        return analyze_many(log, q, probe, tests)
    from dataclasses import replace

    q = replace(q, noise=str(q.noise) if q.noise is not None and not _is_data(q.noise) else q.noise)
    if q.scale:
        # lazy: analyses.evaluator is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.evaluator import judge_analysis

        # a judge's cells are split by criterion whatever else by asks for (absent columns are ignored)
        return judge_analysis(log, replace(q, by=tuple(q.by) + (("criterion",) if "criterion" not in q.by else ())),
                              probe, tests, mdg=run.mdg, within_noise=run.within_noise)

    # more than two values and no a/b: analyze_pair hands the validated log to the many-values analysis
    return analyze_pair(log, q, probe, tests, run)


#: seconds one ``by`` group's analysis takes, about (measured: 10,000 groups of 3 items in 177 s on a busy
#: 2-core machine, most of it each group's bootstrap interval of its effect size); for estimating a cost only
_SECONDS_PER_GROUP = 0.02


def _factor_groups(log, question, probe, tests):
    """The two-factor analysis of each ``by`` group, its effects corrected across every group's
    (:func:`probestats.analyses.factors.factor_set`)."""
    from dataclasses import replace

    # lazy: analyses.factors is off the paired analysis's path (tests/test_start.py)
    from probestats.analyses.factors import analyze_factors, factor_set

    metric, by = question.metric, question.by
    if not isinstance(log, Log):
        raise TypeError(f"the log of a two-factor analysis by groups is a Log as the job shaped it, not "
                        f"{type(log).__name__} (see probestats.jobs.inputs.shape_log)")
    names = log.lazy.collect_schema().names()
    missing = [b for b in by if b not in names]
    if missing:
        raise OptionError(f"{opt('by', missing[0])}: no such column; columns seen: "
                          f"{', '.join(n for n in names if not n.startswith('_'))}")
    keys = collect(log.lazy.select(list(by)).unique(maintain_order=True), log.source, log._path)
    analyses = []
    for key in keys.iter_rows():
        where = pl.all_horizontal([pl.col(c).eq_missing(v) for c, v in zip(by, key)])
        group = replace(log, lazy=log.lazy.filter(where))
        analyses.append((metric, dict(zip(by, key)), analyze_factors(group, question, probe, tests)))
    return factor_set(analyses, tests)


def _check_groups(log, by) -> None:
    """Refuse more ``by`` groups than the limit of groups, before any is analyzed (each is analyzed on its own)."""
    if not by:
        return

    if not isinstance(log, Log):
        return
    names = log.lazy.collect_schema().names()
    if any(b not in names for b in by):   # a column that is not there: the analysis names it
        return
    count = int(collect(log.lazy.select(pl.struct(list(by)).n_unique()), log.source, log._path).item())
    check_limit("groups", count, f"the groups of {opt('by', by[0]) if len(by) == 1 else opt('by')}",
                f"estimated {duration(count * _SECONDS_PER_GROUP)}, each group analyzed on its own",
                "group by a coarser column")


def _check_arms(question, *, several: bool) -> None:
    """Refuse a control, a baseline or a selection that the analysis the ``question`` asks for cannot use
    (``several``: several metrics)."""
    control, baseline, selection = question.control, question.baseline, question.selection
    factor, group, reference, a, b = question.factor, question.group, question.reference, question.a, question.b
    if not isinstance(selection, bool):
        said = either(f"Design(selection={selection!r})", f"--set selection={selection}")
        raise OptionError(f"{said}: expected True (the metric says whether a candidate was selected) or False")
    if selection and (several or factor):
        raise OptionError(f"{either('Design(selection=True)', '--set selection=yes')}: selection rates and impact "
                          f"ratios are shown for several values of one metric; drop {opt('factor') if factor else 'it'}"
                          + ("" if factor else f", or give one {opt('metric')}"))
    if control is not None:
        if factor:
            raise OptionError(f"{opt('control', control)} sets the values of one attribute against a meaningless "
                              f"edit; drop {opt('factor')}")
        if several:
            raise OptionError(f"{opt('control', control)} sets one metric's gaps against the control's; give one "
                              f"{opt('metric')}")
        if control in (a, b):
            raise OptionError(f"{opt('control', control)}: the control is a meaningless edit set beside the compared "
                              f"values, not one of them; compare two other values with {opt('a')} and {opt('b')}")
    if baseline is not None:
        if factor:
            raise OptionError(f"{opt('baseline', baseline)} names the unchanged one of two compared values; "
                              f"drop {opt('factor')}")
        if group or reference is not None:
            raise OptionError(f"{opt('baseline', baseline)} names the unchanged one of two compared values; with "
                              f"several values the gaps are measured against {opt('reference', 'VALUE')}, which is "
                              f"their baseline: drop {opt('baseline')}")
        if a is not None and b is not None and baseline not in (a, b):
            raise OptionError(f"{opt('baseline', baseline)}: the baseline is one of the two compared values, "
                              f"'{a}' and '{b}'")
        if baseline == control:
            raise OptionError(f"{opt('baseline', baseline)} and {opt('control', control)} name one value; the "
                              "control is a meaningless edit of the baseline, so name another")


def _baseline_pair(log, question, probe, *, many: bool):
    """``a`` and ``b`` with the baseline among them: with neither given, ``b`` is the baseline (``a`` the other
    value; refused when the log has more than two values, which compare against a reference)."""
    a, b, baseline, fold_case = question.a, question.b, question.baseline, probe.fold_case
    if baseline is None or many or a is not None or b is not None:
        if baseline is not None and (a is None) != (b is None) and baseline not in (a, b):
            return (a, baseline) if b is None else (baseline, b)
        return a, b
    # lazy: analyses.control is off the paired analysis's path (tests/test_start.py)
    from probestats.analyses.control import log_values

    values = log_values(log, fold_case)
    if (baseline.strip().lower() if fold_case else baseline.strip()) not in values:
        shown = ", ".join(f"'{v}'" for v in values[:12]) + (" ..." if len(values) > 12 else "")
        raise OptionError(f"{opt('baseline', baseline)}: no such value in the log; values seen: {shown}")
    if len(values) > 2:
        raise OptionError(f"{opt('baseline', baseline)} names the unchanged one of two compared values, and this log "
                          f"has {len(values)} values: choose the other with {opt('a', 'VALUE')}, or measure every "
                          f"value against it with {opt('reference', baseline)}")
    return None, baseline


def _is_data(value) -> bool:
    """A log given as data (a Log, frame or rows) rather than a path."""
    import os

    return not isinstance(value, (str, os.PathLike))


def refuse_effect_size(tests) -> None:
    """The effect size a table of several metrics shows (the ``tests``' ``effect_size``), given to one metric's
    analysis (which shows d_z and d_av both): refused.

    >>> from probestats.vocabulary import Tests
    >>> refuse_effect_size(Tests(effect_size="g_z"))   # Hedges' correction of the d_z shown, which one metric's takes
    >>> refuse_effect_size(Tests(effect_size="g_av"))
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: effect_size='g_av' chooses the effect size a table of several metrics shows; one metric's analysis shows d_z and d_av both: drop it, or give several metrics with metric
    """
    if tests.effect != "d_z":
        given = tests.effect_size   # as the caller wrote it: g_av is d_av with Hedges' correction
        raise OptionError(f"{either(f'effect_size={given!r}', '--effect-size ' + given)}"
                          f" chooses the effect size a table of several metrics shows; one metric's analysis "
                          f"shows d_z and d_av both: drop it, or give several metrics with {opt('metric')}")


def refuse_for_metrics(**given) -> None:
    """The options that match items within named blocks or take one value's repeats as noise, given to a table
    of several metrics (which matches items within the log's own blocks and reads no noise value): refused.

    >>> refuse_for_metrics(settings=(), noise_value=None)
    >>> refuse_for_metrics(settings=("seed",))
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: settings=['seed'] applies to the analysis of one metric; a table of several metrics does not read it: drop it, or give one metric
    """
    for name, value in given.items():
        if value:
            shown = value if isinstance(value, str) else list(value)
            raise OptionError(f"{opt(name, shown)} applies to the analysis of one metric; a table of several metrics "
                              f"does not read it: drop it, or give one {opt('metric')}")
