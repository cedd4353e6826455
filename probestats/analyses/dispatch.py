"""One entry point for every analysis of a probe log: the options decide which one runs.

:func:`analyze` is what ``probestats analyze`` runs and what ``probestats.analyze`` is in
Python: filters and derived columns first (``where``, ``derive``), then

- ``factor`` (two attributes at once) -> :func:`~probestats.analyses.factors.analyze_factors`;
- ``group`` or ``reference`` (every value against one) -> :func:`~probestats.analyses.many.analyze_many`;
- ``scale`` (a judge's scale) -> :func:`~probestats.analyses.evaluator.analyze_judge`;
- more than two values and no ``a``/``b`` -> :func:`~probestats.analyses.many.analyze_many`;
- otherwise the paired analysis of two values -> :func:`~probestats.analyses.paired.analyze_pair`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Union

import polars as pl

from probestats.errors import OptionError, either, opt

__all__ = ["AnalysisResult", "analyze", "check_roles"]

if TYPE_CHECKING:
    from probestats.analyses.factors import FactorAnalysis
    from probestats.analyses.many import ManyAnalysis
    from probestats.analyses.metrics import MetricsAnalysis
    from probestats.analyses.paired import Analysis

    #: What :func:`analyze` returns: a paired analysis (also a judge's, with its ceiling and
    #: floor problems), a many-values analysis, a two-factor analysis, or several metrics' analyses.
    AnalysisResult = Union[Analysis, ManyAnalysis, FactorAnalysis, MetricsAnalysis]


def __getattr__(name: str):
    # AnalysisResult names every kind of analysis; it is built when read, so that one analysis does not
    # import the modules of the others
    if name == "AnalysisResult":
        from probestats.analyses.factors import FactorAnalysis
        from probestats.analyses.many import ManyAnalysis
        from probestats.analyses.metrics import MetricsAnalysis
        from probestats.analyses.paired import Analysis

        union = Union[Analysis, ManyAnalysis, FactorAnalysis, MetricsAnalysis]
        globals()[name] = union
        return union
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def analyze(
    log,
    *,
    metric: str,
    a: str | None = None,
    b: str | None = None,
    noise=None,
    by: Sequence[str] = (),
    reference: str | None = None,
    group: Sequence[str] | Mapping[str, Sequence[str]] = (),
    scale=None,
    factor: Sequence[str] = (),
    alternative: str = "two-sided",
    alpha: float = 0.05,
    correction: str = "holm",
    fold_case: bool = False,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    where: str | None = None,
    derive: Sequence[str] = (),
    mdg: bool = True,
    interval: str = "t",
    within_noise: bool = True,
    probe=None,
    read_options: Mapping | None = None,
    noise_read_options: Mapping | None = None,
    streaming: bool = False,
    progress=None,
    facts: bool = False,
    hedges: bool = False,
    effect_size: str = "d_z",
    noise_value: str | None = None,
    settings: Sequence[str] = (),
    attribute_settings: Sequence[str] = (),
    validation=None,
    control: str | None = None,
    baseline: str | None = None,
    selection: bool = False,
    cluster: str | None = None,
    random_settings: Sequence[str] = (),
) -> AnalysisResult:
    """Analyze a probe log the way its options ask (see the module's description for the choice).

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
        The probe log (anything :func:`probestats.read_log` reads).
    metric : str or sequence of str
        The metric column (a derived column too). Several (a sequence, or names separated by
        commas): one paired analysis per metric, corrected as one family over metrics × groups
        (:func:`~probestats.analyses.metrics.analyze_metrics`, a ``MetricsAnalysis``).
    a, b : str, optional
        The compared values; gap = mean under ``a`` − mean under ``b``.
    noise : optional
        The noise reference: a same-versus-same log analyzed beside the probe, ``"within"`` (the
        default: the log's own runs split in halves drawn at random within cells, with ``seed``) or
        ``"none"``.
    noise_value : str, optional
        Paired analysis: the repeats of this value in the log, split in random halves, as the noise reference.
    settings : sequence of str
        Paired analysis: columns that are held-fixed settings besides model, judge, temperature, system
        prompt and file, which always are (naming one is refused); one that varies within item x value
        cells is a block (items matched within it).
    attribute_settings : sequence of str
        Paired analysis: settings varied on purpose with the attribute (accepted differing between the values).
    control : str, optional
        A control wording: the value of a meaningless edit of the baseline (a typo, a blank line). Its rows
        are left out of the analysis and set beside it: does each compared value move the metric more than
        the control does (:mod:`probestats.analyses.control`, on ``verdict.control``)? Its runs may come
        from a file of their own read with the log (several files are read as one).
    baseline : str, optional
        A comparison of two values: the unchanged one, which the other is measured from (with neither
        ``a`` nor ``b``, ``b`` is the baseline and ``a`` the other value). Its cells are the ones the
        floor and ceiling checks read, and the texts call it the baseline; without it, value B is
        called by its name.
    selection : bool
        Many values: the metric says whether a candidate was selected (a design fact, ``selection = true``
        in a design file): selection rates and impact ratios with the four-fifths reference are shown.
        Never assumed from a 0/1 metric.
    cluster : str, optional
        Paired analysis: the column of the clusters the items are nested in (a document, a vacancy, a
        template); the tests flip whole clusters and the interval is a cluster-level t
        (:mod:`probestats.analyses.clusters`).
    random_settings : sequence of str
        Paired analysis: settings drawn at random per call (a temperature sampled per request), checked to be
        balanced across the values and shown stratified and adjusted (:mod:`probestats.analyses.drawn`).
    by : sequence of str
        Repeat the analysis per group of these columns, corrected across groups.
    reference : str, optional
        More than two values: gaps against this value (default: the first).
    group : sequence of "GROUP=V1,V2" or mapping, optional
        Several values standing for one group.
    scale : "LOW:HIGH" or (low, high), optional
        A judge's scale: flag cells whose baseline ``b`` sits at its top or bottom; cells are
        split by ``criterion`` whatever else ``by`` asks for.
    factor : two column names, optional
        Two attributes at once: main effects and interaction.
    alternative : {"two-sided", "greater", "less"}
    alpha : float
    correction : {"holm", "bonferroni", "bh", "none"}
    fold_case : bool
        Treat values differing only in case or spaces as one.
    n_resamples, seed : int
        Monte Carlo draws of the omnibus test (many values) when it cannot be exact.
    where : str, optional
        A SQL condition; only rows where it holds are analyzed.
    derive : sequence of "NAME = SQL"
        Columns added before the analysis (one can be the ``metric``).
    mdg : bool
        Paired analysis with ``noise``: compute the minimum detectable gap of the design.
    interval : {"t", "bootstrap", "percentile", "sign-flip"}
        Paired analysis: the interval for the average gap (each names its assumption); the
        bootstraps (BCa, percentile) and the sign-flip inversion beyond 30 items use
        ``n_resamples`` and ``seed``.
    hedges : bool
        Paired analysis: Hedges' small-sample correction of d_z and d_av.
    effect_size : {"d_z", "d_av"}
        Several metrics: the effect size their table and heatmap show.
    within_noise : bool
        Paired analysis without ``noise``: split value a's runs in two by seed and show that
        same-versus-same comparison beside the result (when every cell has two runs or more).
    probe : Probe, optional
        What the logs mean (:class:`probestats.shape.probe.Probe`: mapping, ``where``, ``derive``, wide
        layouts, groups, complete items), applied alike to the probe log and the noise log. With a
        probe, ``where``, ``derive`` and the read options come from it.
    read_options, noise_read_options : mapping, optional
        Passed to :func:`probestats.read_log` for the probe log and the noise log.
    streaming : bool
        Paired analysis: validate and summarize the log in one streaming pass, so memory grows
        with items x values rather than rows (same results; see
        :func:`~probestats.analyses.paired.analyze_pair`).
    progress : callable, optional
        Called with the name of each stage of a long job.
    facts : bool
        With ``streaming``: also take what a report states of the log's settings and seeds.
    validation : path, list of dict or DataFrame, optional
        Paired analysis of a coded metric: hand labels of a sample of runs, keyed as the log is; the
        result is a :class:`~probestats.analyses.validation.ValidatedAnalysis` whose verdict is on the
        gap corrected for the coder's error (see :mod:`probestats.analyses.validation`).

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
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + (s % 3 == i % 2)}
    ...         for i in range(8) for v in ("formal", "casual") for s in range(1, 6)]
    >>> type(analyze(rows, metric="steps")).__name__
    'Analysis'
    >>> three = rows + [dict(r, variant="plain") for r in rows if r["variant"] == "casual"]
    >>> type(analyze(three, metric="steps")).__name__
    'ManyAnalysis'
    >>> type(analyze(three, metric="steps", a="formal", b="plain")).__name__
    'Analysis'
    >>> analyze(rows, metric="steps", reference="formal", a="formal")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: group and reference compare every value; drop a and b (or drop group)
    """
    from probestats.analyses.metrics import split_metrics
    from probestats.vocabulary import check_vocabulary

    check_vocabulary(alternative=alternative, alpha=alpha, correction=correction, n_resamples=n_resamples, seed=seed)
    metrics = split_metrics(metric)
    check_roles(metrics, settings=settings, attribute_settings=attribute_settings, random_settings=random_settings,
                cluster=cluster)
    if validation is not None:
        used = [name for name, given in (("metric", len(metrics) > 1), ("factor", factor), ("group", group),
                                         ("reference", reference is not None), ("scale", scale)) if given]
        if used:
            raise OptionError(f"{opt('validation')} checks one coded metric compared between two values; drop "
                              f"{opt(used[0])}" + (" (give one metric)" if used[0] == "metric" else ""))
    _check_arms(control=control, baseline=baseline, selection=selection, factor=factor, several=len(metrics) > 1,
                group=group, reference=reference, a=a, b=b)
    random_settings = ((random_settings,) if isinstance(random_settings, str)
                       else tuple(dict.fromkeys(random_settings)))   # a setting named twice is one setting
    design = [(name, value) for name, value in (("cluster", cluster), ("random_settings", random_settings)) if value]
    for name, value in design:
        shown = value if isinstance(value, str) else value[0]
        for other, given in (("metric", len(metrics) > 1), ("factor", factor), ("scale", scale),
                             ("validation", validation is not None), ("control", control is not None)):
            if given:
                raise OptionError(f"{opt(name, shown)} applies to a comparison of two values of one metric; "
                                  f"drop {opt(other)}" + (" (give one metric)" if other == "metric" else ""))
    if len(metrics) > 1 and factor:   # each metric's two-factor analysis (per group), corrected together
        from probestats.analyses.factors import FactorSet, factor_set

        analyses = []
        for name in metrics:
            one = analyze(log, metric=name, a=a, b=b, noise=noise, by=by, factor=factor, alternative=alternative,
                          alpha=alpha, correction=correction, fold_case=fold_case, n_resamples=n_resamples, seed=seed,
                          where=where, derive=derive, probe=probe, read_options=read_options, scale=scale,
                          group=group, reference=reference, interval=interval, hedges=hedges)
            analyses += list(one.analyses) if isinstance(one, FactorSet) else [(name, {}, one)]
        return factor_set(analyses, correction=correction, alpha=alpha)
    if len(metrics) > 1:
        from probestats.analyses.metrics import analyze_metrics

        refuse_for_metrics(settings=settings, attribute_settings=attribute_settings, noise_value=noise_value)

        return analyze_metrics(log, metrics=metrics, correction=correction, effect_size=effect_size,
                               analyze=analyze, a=a, b=b, noise=noise, by=by, reference=reference, group=group,
                               scale=scale, factor=factor, alternative=alternative, alpha=alpha,
                               fold_case=fold_case, n_resamples=n_resamples, seed=seed, where=where, derive=derive,
                               mdg=mdg, interval=interval, within_noise=within_noise, probe=probe,
                               read_options=read_options, noise_read_options=noise_read_options,
                               streaming=streaming, hedges=hedges,
                               **({"baseline": baseline} if baseline is not None else {}))
    metric = metrics[0]
    refuse_effect_size(effect_size, hedges)
    if probe is not None:
        if where is not None or derive or read_options or noise_read_options:
            raise OptionError("give where, derive and read options inside the probe, not beside it")
        log = probe.apply(log, metric=metric, a=a, b=b, by=by)
        if noise is not None and str(noise) not in ("within", "none"):   # the words are not logs
            noise = probe.apply(noise, metric=metric, by=by)
        fold_case = fold_case or probe.fold_case
        group = group or probe.groups
    else:
        from probestats.shape.derive import apply

        log = apply(log, where=where, derive=tuple(derive), metric=metric, **dict(read_options or {}))
    common = dict(alternative=alternative, alpha=alpha, correction=correction, fold_case=fold_case)
    whole = log
    if control is not None or baseline is not None:
        from probestats.analyses.control import without_control

        log = without_control(log, control, fold_case)
        a, b = _baseline_pair(log, a, b, baseline, fold_case, many=bool(group) or reference is not None)
    _check_groups(log, by)
    result = _analyze(log, metric, a, b, noise, by, reference, group, scale, factor, common, n_resamples, seed,
                      noise_read_options, interval, within_noise, noise_value, settings, attribute_settings,
                      streaming, progress, facts, hedges, mdg, selection, baseline, cluster, random_settings)
    if selection:
        from probestats.analyses.many import ManyAnalysis

        if not isinstance(result, ManyAnalysis):
            raise OptionError(f"{either('Design(selection=True)', '--set selection=yes')}: selection rates and impact "
                              "ratios are shown for several values; a comparison of two values gives their gap, "
                              "the difference of the two selection rates (drop it, or compare more values)")
    if baseline is not None and hasattr(result, "baseline"):
        from dataclasses import replace

        result = replace(result, baseline=baseline)
    if control is not None:
        from probestats.analyses.control import with_control

        result = with_control(result, whole, control=control, fold_case=fold_case, correction=correction)
    if validation is not None:
        from probestats.analyses.validation import with_validation

        result = with_validation(result, validation, n_resamples=n_resamples, seed=0 if seed is None else seed)
    return result


def check_roles(metrics, *, settings=(), attribute_settings=(), random_settings=(), cluster=None) -> None:
    """Refuse a setting that is the item, value or metric column, and a column given two roles.

    >>> check_roles(["steps"], random_settings=["temperature"])
    >>> check_roles(["steps"], random_settings=["variant"])
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: random_settings=['variant']: 'variant' is the value column, not a setting of the runs drawn at random per call; name a column such as temperature
    """
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
    _one_role_each(cluster, settings, attribute_settings, random_settings)


def _one_role_each(cluster, settings, attribute_settings, random_settings) -> None:
    """Refuse a column given two roles (a cluster and a random setting, a held-fixed and a random setting):
    each role reads the column another way.

    >>> _one_role_each("doc", (), (), ("temperature",))
    >>> _one_role_each("doc", (), (), ["doc"])
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: cluster='doc' and random_settings=['doc'] name one column twice: a cluster groups whole items, a random setting is drawn for each run; give the column one role (drop one of them)
    """
    def listed(value):
        return [] if not value else [value] if isinstance(value, str) else list(value)

    seen: dict[str, str] = {}
    for name, value in (("cluster", cluster), ("settings", settings), ("attribute_settings", attribute_settings),
                        ("random_settings", random_settings)):
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


def _analyze(log, metric, a, b, noise, by, reference, group, scale, factor, common, n_resamples, seed,
             noise_read_options, interval, within_noise, noise_value, settings, attribute_settings, streaming,
             progress, facts, hedges, mdg, selection, baseline, cluster=None, random_settings=()):
    """The one analysis the options ask for, on the shaped log (see the module's description)."""
    if factor:
        if a or b or group or reference:
            raise OptionError(f"{opt('factor')} compares the levels of two attributes; drop {opt('a')}, {opt('b')}, "
                              f"{opt('group')} and {opt('reference')}")
        from probestats.analyses.many import refuse_pair_options

        if noise is not None or scale:
            flag = opt("noise", str(noise)) if noise is not None else opt("scale", scale)
            raise OptionError(f"{flag}: the two-factor analysis ({opt('factors')}) tests main effects and their "
                              f"interaction against the items' own variation, with no noise reference or scale "
                              f"check; drop it")
        refuse_pair_options(interval=interval, noise_value=noise_value, hedges=hedges, settings=settings,
                            attribute_settings=attribute_settings, analysis=f"two factors ({opt('factors')})",
                            fix="drop it")
        from probestats.analyses.factors import analyze_factors

        if by:   # one two-factor analysis per group, corrected together
            return _factor_groups(log, metric, factor, by, n_resamples, seed, common)
        return analyze_factors(log, metric=metric, factors=factor, n_resamples=n_resamples, seed=seed, **common)
    if group or reference is not None:
        if a or b:
            raise OptionError(f"{opt('group')} and {opt('reference')} compare every value; drop {opt('a')} and "
                              f"{opt('b')} (or drop {opt('group')})")
        from probestats.analyses.many import analyze_many, refuse_pair_options

        refuse_pair_options(interval=interval, noise_value=noise_value, hedges=hedges, settings=settings,
                            attribute_settings=attribute_settings, cluster=cluster, random_settings=random_settings)
        if scale:
            raise OptionError(f"{opt('scale', scale)} checks the baseline's cells of a comparison of two values "
                              f"for a floor or a ceiling; with {opt('group') if group else opt('reference')} "
                              f"every value is compared: drop {opt('scale')}, or compare two values with "
                              f"{opt('a')} and {opt('b')}")
        return analyze_many(log, metric=metric, groups=group, reference=reference, by=by, noise=noise,
                            n_resamples=n_resamples, seed=seed, selection=selection, **common)
    noise = str(noise) if noise is not None and not _is_data(noise) else noise
    pair = dict(mdg=mdg, noise_read_options=noise_read_options, interval=interval, within_noise=within_noise,
                noise_value=noise_value, settings=tuple(settings), attribute_settings=tuple(attribute_settings))
    if scale:
        from probestats.analyses.evaluator import analyze_judge

        # a judge's cells are split by criterion whatever else by asks for (absent columns are ignored)
        return analyze_judge(log, metric=metric, a=a, b=b, scale=scale, noise=noise, baseline=baseline,
                             by=tuple(by) + (("criterion",) if "criterion" not in by else ()), **common, **pair)
    from probestats.analyses.paired import analyze_pair

    # more than two values and no a/b: analyze_pair hands the validated log to the many-values analysis
    return analyze_pair(log, metric=metric, a=a, b=b, noise=noise, by=by, n_resamples=n_resamples, seed=seed,
                        streaming=streaming, progress=progress, facts=facts, hedges=hedges, selection=selection,
                        cluster=cluster, random_settings=tuple(random_settings), **common, **pair)


#: seconds one ``by`` group's analysis takes, about (measured: 10,000 groups of 3 items in 177 s on a busy
#: 2-core machine, most of it each group's bootstrap interval of its effect size); for estimating a cost only
_SECONDS_PER_GROUP = 0.02


def _factor_groups(log, metric, factor, by, n_resamples, seed, common):
    """The two-factor analysis of each ``by`` group, its effects corrected across every group's
    (:func:`probestats.analyses.factors.factor_set`)."""
    from dataclasses import replace

    from probestats.analyses.factors import analyze_factors, factor_set
    from probestats.io.log import Log, collect
    from probestats.io.read import read_log

    log = log if isinstance(log, Log) else read_log(log, metric=metric)
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
        analyses.append((metric, dict(zip(by, key)),
                         analyze_factors(group, metric=metric, factors=factor, n_resamples=n_resamples, seed=seed,
                                         **common)))
    return factor_set(analyses, correction=common["correction"], alpha=common["alpha"])


def _check_groups(log, by) -> None:
    """Refuse more ``by`` groups than the limit of groups, before any is analyzed (each is analyzed on its own)."""
    if not by:
        return
    from probestats.io.log import Log, collect
    from probestats.limits import check_limit, duration

    if not isinstance(log, Log):
        return
    names = log.lazy.collect_schema().names()
    if any(b not in names for b in by):   # a column that is not there: the analysis names it
        return
    count = int(collect(log.lazy.select(pl.struct(list(by)).n_unique()), log.source, log._path).item())
    check_limit("groups", count, f"the groups of {opt('by', by[0]) if len(by) == 1 else opt('by')}",
                f"estimated {duration(count * _SECONDS_PER_GROUP)}, each group analyzed on its own",
                "group by a coarser column")


def _check_arms(*, control, baseline, selection, factor, several, group, reference, a, b) -> None:
    """Refuse a control, a baseline or a selection that the analysis the options ask for cannot use."""
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


def _baseline_pair(log, a, b, baseline, fold_case: bool, *, many: bool):
    """``a`` and ``b`` with the baseline among them: with neither given, ``b`` is the baseline (``a`` the other
    value; refused when the log has more than two values, which compare against a reference)."""
    if baseline is None or many or a is not None or b is not None:
        if baseline is not None and (a is None) != (b is None) and baseline not in (a, b):
            return (a, baseline) if b is None else (baseline, b)
        return a, b
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


def refuse_effect_size(effect_size: str, hedges: bool) -> None:
    """The effect size a table of several metrics shows, given to one metric's analysis (which shows d_z and d_av
    both): refused. ``effect_size`` is d_z or d_av, ``hedges`` whether the caller asked for g.

    >>> refuse_effect_size("d_z", True)   # g_z: Hedges' correction of the d_z shown, which one metric's takes
    >>> refuse_effect_size("d_av", True)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: effect_size='g_av' chooses the effect size a table of several metrics shows; one metric's analysis shows d_z and d_av both: drop it, or give several metrics with metric
    """
    if effect_size != "d_z":
        given = ("g" if hedges else "d") + effect_size[1:]   # as the caller wrote it: g_av is d_av with hedges
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
