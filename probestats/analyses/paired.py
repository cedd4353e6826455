"""The paired analysis of a counterfactual probe: two values compared over matched items.

checked frame -> item table (:mod:`probestats.analyses.items`) -> tests (:mod:`probestats.analyses.pair_tests`)
-> :class:`Analysis`, with the noise comparison beside it (:mod:`probestats.analyses.noise_check`). Every item counts once:
the average gap is the unweighted mean of the item gaps, and the tests treat the
items, not the runs, as the sample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Sequence

import polars as pl

from probestats.vocabulary import Tests, as_tests, column_names
from probestats.errors import OptionError, ValidationError, either, opt
from probestats.stats.multitest import adjust
from probestats.stats.effects import effect_sizes_many
from probestats.stats.permutation import arms_unequal
from probestats.analyses.design_read import read_design
from probestats.analyses.question import Question, Run
from probestats.vocabulary import INTERVALS
from probestats.errors import Problem
from probestats.checks.schema import Checked, ColumnRoles, require_ok, validate
from probestats.errors import count_of
from probestats.analyses.items import check_by, item_table_of, item_units, items_of, key_json
from probestats.analyses.noise_check import halves_check, noise_check_of, noise_log_causes, within_log_noise
from probestats.analyses.pair_tests import PairResult, compare_pair, design_problems, unpermuted_problem
from probestats.analyses.probe_mdg import probe_mdg
from probestats.analyses.verdict import NoiseCheck, decide, with_caveats, with_design

from probestats.result import Result
from probestats.analyses.blanks import blank_readings
from probestats.analyses.clusters import cluster_candidates
from probestats.analyses.drawn import balance_test, drawn_caveat, drawn_setting, unbalanced_problem
from probestats.analyses.halves import (BLOCK_SETTINGS, block_noun, blocked_item_table, blocks_of,
                                        named_setting_refusal, pooled_phrase)
from probestats.checks.design_facts import (Caveat, design_facts, group_constant_caveats, item_facts,
                                            one_answer_caveat, one_answer_clause, pooled_with)
from probestats.shape.probe import as_probe
from probestats.stats.published import ASSUMPTIONS


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


ROW_LEVEL_NOTE = ("Welch's t treats every run as independent: it is not the headline, because runs of one item "
                  "are not independent (they share the item), and the item-level test pairs each item with "
                  "itself, which removes the item-to-item spread that Welch's t counts as noise.")


@dataclass(frozen=True)
class RowLevelTest:
    """Welch's t test on the runs of the two values, each run counted as one observation
    (``scipy.stats.ttest_ind(equal_var=False)``), as many published audits report it, and beside it the other
    tests studies publish on runs (:mod:`probestats.stats.runs`): Student's t, each mean and the difference with
    their intervals, Cohen's d and Hedges' g with theirs, ANOVA and OLS with cluster-robust standard errors.

    Beside the item-level tests only: see :data:`ROW_LEVEL_NOTE` for why the two differ.

    Attributes
    ----------
    statistic : float
        Welch's t.
    pvalue : float
        Its p-value (``p`` in JSON).
    df : float
        Welch–Satterthwaite degrees of freedom.
    n_a, n_b : int
        Runs of each value.
    mean_a, mean_b : float
        Mean of the runs of each value.
    alternative : {"two-sided", "greater", "less"}
    method : str
        The computation, in words.
    note : str
        Why this test is not the headline (runs of one item are not independent).
    samples : TwoSamples or None
        Student's t, the intervals of each mean and of the difference, Cohen's d and Hedges' g.
    models : RunModels or None
        ANOVA and OLS on the runs (with ``--by``: value × the groups' column, with the interaction).
    paired : bool
        Some item was run under both values: the design is paired, the item-level tests are the headline.
    """

    statistic: float
    pvalue: float
    df: float
    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    alternative: str
    method: str = "Welch's t on runs (scipy.stats.ttest_ind, equal_var=False)"
    note: str = ROW_LEVEL_NOTE
    samples: object | None = field(default=None, repr=False)
    models: object | None = field(default=None, repr=False)
    paired: bool = True

    def to_dict(self) -> dict:
        out = {"statistic": _num(self.statistic), "p": _num(self.pvalue), "df": _num(self.df),
               "n_a": int(self.n_a), "n_b": int(self.n_b), "mean_a": _num(self.mean_a), "mean_b": _num(self.mean_b),
               "alternative": self.alternative, "method": self.method, "note": self.note}
        if self.samples is not None:
            s = self.samples
            out.update({"assumption": ASSUMPTIONS["welch"], "headline": False, "paired": bool(self.paired),
                        "mean_a_interval": s.mean_a_interval.to_dict(), "mean_b_interval": s.mean_b_interval.to_dict(),
                        "difference": _num(s.difference), "difference_interval": s.welch_interval.to_dict(),
                        "student": {**s.student.to_dict(), "interval": s.student_interval.to_dict()},
                        "cohen_d": s.cohen_d.to_dict(), "hedges_g": s.hedges_g.to_dict()})
        if self.models is not None:
            out["models"] = models_dict(self.models)
        return out


def models_dict(models) -> dict:
    """The JSON object of :class:`probestats.stats.runs.RunModels`."""
    # lazy: stats.runs is off the paired analysis's path (tests/test_start.py)
    from probestats.stats.runs import RUN_ASSUMPTIONS

    return {"factor": models.factor, "levels": [str(v) for v in models.levels], "anova_type": "II",
            "one_way": [r.to_dict() for r in models.one_way], "two_way": [r.to_dict() for r in models.two_way],
            "ols": [c.to_dict() for c in models.ols], "formula": models.formula, "cluster": models.cluster,
            "n_clusters": models.n_clusters, "covariance": models.covariance, "distribution": models.distribution,
            "assumptions": {"anova": RUN_ASSUMPTIONS["anova"], "ols": RUN_ASSUMPTIONS["ols"]},
            "note": models.note}


def row_level_test(checked: Checked, items: pl.DataFrame, tests=None, *,
                   design: RunDesign | None = None) -> RowLevelTest:
    """Welch's t on the runs of ``checked.a`` against ``checked.b``, over the items of the item table, in the
    direction of the ``tests`` (two-sided without them), with the other tests on runs
    (:func:`probestats.stats.runs.two_samples`) and, given a ``design``, the ANOVA and OLS models
    (:func:`probestats.stats.runs.run_models`).

    >>> rows = [{"item": i, "variant": v, "steps": x} for i, v, x in
    ...         [(1, "a", 4.0), (1, "a", 6.0), (1, "b", 3.0), (2, "a", 2.0), (2, "b", 1.0), (2, "b", 2.0)]]
    >>> checked = validate(rows, metric="steps")
    >>> round(row_level_test(checked, items_of(checked)).pvalue, 6)  # scipy: ttest_ind([4, 6, 2], [3, 1, 2], equal_var=False)
    0.220881
    """
    # lazy: stats.runs is off the paired analysis's path (tests/test_start.py)
    from probestats.stats.runs import SecondFactor, run_models, two_samples

    design = design or RunDesign()
    frame = checked.frame.filter(pl.col("item").is_in(items["item"].implode()) & pl.col(checked.metric).is_not_null()
                                 & pl.col("variant").is_in([checked.a, checked.b]))
    if design.by:
        frame = frame.filter(pl.all_horizontal(pl.col(c).is_not_null() for c in design.by))
    xa = frame.filter(pl.col("variant") == checked.a)[checked.metric].cast(pl.Float64).to_numpy()
    xb = frame.filter(pl.col("variant") == checked.b)[checked.metric].cast(pl.Float64).to_numpy()
    if len(xa) < 2 or len(xb) < 2:
        raise OptionError(f"Welch's t on the runs ({either('with_row_level', '--row-level')}) needs at least two "
                          "runs of each value")
    alternative = "two-sided" if tests is None else tests.alternative
    samples = two_samples(xa, xb, alternative=alternative, confidence=design.confidence)
    welch = samples.welch   # probestats.stats.published.welch_t: scipy's, and exact where one value's runs are equal
    cluster = design.cluster if design.cluster and design.cluster in frame.columns else "item"
    by_values = None
    if design.by:
        keys = frame.select(pl.concat_str([pl.col(c).cast(pl.String) for c in design.by], separator=", ")
                            .alias("k"))["k"].to_list()
        by_values = keys
    levels = tuple(lv for lv in design.levels if by_values is None or lv in set(by_values))
    factor = SecondFactor(" × ".join(design.by) if design.by and len(levels) > 1 else None, by_values, levels)
    models = run_models(frame[checked.metric].cast(pl.Float64).to_numpy(), frame["variant"].to_list(),
                        a=checked.a, b=checked.b, clusters=frame[cluster].cast(pl.String).to_list(),
                        factor=factor, cluster=cluster, confidence=design.confidence)
    paired = frame.group_by("item").agg(pl.col("variant").n_unique().alias("n"))["n"].max() == 2
    nan = float("nan")
    return RowLevelTest(nan if welch.statistic is None else welch.statistic,
                        nan if welch.pvalue is None else welch.pvalue, nan if welch.df is None else welch.df,
                        len(xa), len(xb), float(xa.mean()), float(xb.mean()), alternative,
                        note=ROW_LEVEL_NOTE + (f" Here Welch's t is undefined: {welch.note}." if welch.pvalue is None
                                               else ""),
                        samples=samples, models=models, paired=bool(paired))


@dataclass(frozen=True)
class RunDesign:
    """What the tests on runs read beyond the log: the ``by`` columns whose groups are the second factor of the
    two-way models (their ``levels`` in order, the first the reference), the cluster column of the
    cluster-robust errors (None: the items) and the intervals' confidence."""

    by: tuple = ()
    levels: tuple = ()
    cluster: str | None = None
    confidence: float = 0.95


def with_row_level(analysis: Analysis) -> Analysis:
    """``analysis`` with the tests on runs beside its item-level tests (``analyze --row-level``): with ``--by``
    groups (or blocks), the two-way models take the groups as their second factor, in the groups' order."""
    groups = [g for g in analysis.groups if getattr(g, "by", None)]
    by = tuple(groups[0].by) if groups else ()
    levels = tuple(", ".join(str(v) for v in g.by.values()) for g in groups)
    cluster = getattr(analysis.clusters, "column", None)
    design = RunDesign(by=by, levels=levels, cluster=cluster, confidence=analysis.main.interval.confidence)
    tests = Tests(alternative=analysis.alternative, alpha=analysis.alpha)
    return replace(analysis, row_level=row_level_test(analysis.checked, analysis.main.items, tests, design=design))


@dataclass(frozen=True)
class Analysis(Result):
    """The result of :func:`analyze_pair`: the main comparison, noise beside it, splits and problems.

    ``to_dict()`` is the ``analyze --json`` object (its stable keys are listed in the JSON reference);
    the headline numbers are one attribute away: ``result.pvalue`` (the sign-flip p of the main
    comparison) and ``result.average_gap``; ``to_frame()`` is the per-item table.

    Attributes
    ----------
    main : PairResult
        The comparison of ``a`` and ``b`` over every matched item (tests, interval, effect sizes).
    noise : PairResult or None
        The same comparison on the noise reference (a same-versus-same log, or the log's own runs split
        in halves), read beside ``main``; None without one.
    groups : tuple of PairResult
        One comparison per ``by`` group (or per block), each with its corrected ``p_adjusted``.
    problems : tuple of Problem
        Warnings a reader must be told (validation warnings, skewed gaps, a design that cannot reach ``alpha``).
    alternative : {"two-sided", "greater", "less"}
    alpha : float
        The level the p-values are read against.
    correction : {"holm", "bonferroni", "bh", "none"}
        The correction across ``groups``.
    checked : Checked
        The validated probe log the analysis was computed from.
    noise_checked : Checked or None
        The validated noise log, when one was given.
    mdg : float or None
        The minimum detectable gap of this design at 80 % power, from the noise log (None without one).
    mdg_method : str or None
        How ``mdg`` was computed, in words.
    mdg_range : (float, float) or None
        The MDG over plausible same-versus-same logs of the noise log's size (None: not found), simulated
        the first time it is read.
    mdg_range_runs : int or None
        Runs a noise log would need to halve that range (four times the noise log's).
    mdg_detail : MDGDetail or None
        Where the three above come from (:class:`probestats.analyses.probe_mdg.MDGDetail`).
    mdg_room : float or None
        The rise or fall toward the metric's bound that the noise log surely leaves for the MDG's direction
        (:func:`probestats.analyses.plan.room_left`; None without a bound that way).
    mdg_near_bound : bool
        The MDG is larger than ``mdg_room``: it lies within the noise log's uncertainty of the bound, so a gap
        that large may not exist and it is not promised.
    power : object or None
        The power curve a report shows (:func:`probestats.analyses.plan.with_design_power`).
    scale : object or None
        A judge's declared scale and the cells at its ends (:func:`probestats.analyses.evaluator.with_scale`).
    noise_source : str or None
        Where the noise reference came from (``"log"``, ``"within-log ..."``), or None.
    row_level : RowLevelTest or None
        Welch's t on runs, beside the item-level tests, when asked for.
    row_tests : tuple
        Welch's t per item and per group (:func:`probestats.analyses.rowlevel.with_row_tests`).
    verdict : object or None
        The conclusion, decided once (:mod:`probestats.analyses.verdict`); every renderer words it.
    baseline : str or None
        The value named as the baseline (``baseline=``): the arm the other is measured from, whose cells the
        floor and ceiling checks read; None when none was named (value B is then the one measured from).
    clusters : ClusterDesign or None
        With ``cluster=``: the clusters, their intra-cluster correlation and the item-level p and interval that
        ``main``'s cluster-level ones replace (:mod:`probestats.analyses.clusters`); None without.
    drawn : tuple of DrawnSetting
        With ``random_settings=``: each setting's balance test and the gap stratified by and adjusted for it
        (:mod:`probestats.analyses.drawn`).
    """

    MAIN_TABLE = "items"

    def _headline(self):
        return self.main.headline_test

    def _interval(self):
        return self.main.interval

    main: PairResult
    noise: PairResult | None
    groups: tuple[PairResult, ...]
    problems: tuple[Problem, ...]
    alternative: str
    alpha: float
    correction: str
    checked: Checked = field(repr=False)
    noise_checked: Checked | None = field(default=None, repr=False)
    mdg: float | None = None
    #: how mdg was found and its range, simulated when first read (:class:`probestats.analyses.probe_mdg.MDGDetail`)
    mdg_detail: object | None = field(default=None, repr=False, compare=False)
    #: the rise or fall toward the metric's bound the noise log surely leaves (None: no bound that way)
    mdg_room: float | None = None
    #: the MDG is larger than mdg_room: a gap that large may not exist, so it is not promised
    mdg_near_bound: bool = False
    #: the power curve a report shows (:func:`probestats.analyses.plan.with_design_power`), simulated here
    power: object | None = field(default=None, repr=False)
    #: a judge's declared scale and the cells at its ends (:func:`probestats.analyses.evaluator.with_scale`)
    scale: object | None = None
    noise_source: str | None = None
    row_level: RowLevelTest | None = None
    #: Welch's t per item and per group (:func:`probestats.analyses.rowlevel.with_row_tests`)
    row_tests: tuple = ()
    #: the conclusion, decided once (:mod:`probestats.analyses.verdict`); every renderer words it
    verdict: object | None = None
    #: the value named as the baseline (None: not named, value B is the one measured from)
    baseline: str | None = None
    #: the clusters the items are nested in (``cluster=``), the tests at their level
    clusters: object | None = None
    #: the settings drawn at random per call (``random_settings=``): balance, stratified and adjusted gaps
    drawn: tuple = ()

    @property
    def mdg_method(self) -> str | None:
        """How ``mdg`` was computed, in words (None without a noise log)."""
        return None if self.mdg_detail is None else self.mdg_detail.method

    @property
    def mdg_range(self) -> tuple | None:
        """The MDG over plausible same-versus-same logs of the noise log's size (None: not found)."""
        return None if self.mdg_detail is None else self.mdg_detail.range

    @property
    def mdg_range_runs(self) -> int | None:
        """Runs a noise log would need to halve :attr:`mdg_range` (four times the noise log's)."""
        return None if self.mdg_detail is None else self.mdg_detail.range_runs

    @property
    def metric(self) -> str:
        return self.main.metric

    @property
    def pvalue(self) -> float:
        """The headline p: the exact test of the main comparison (``main.headline_test.pvalue``: the sign-flip
        test, or with unequal arms the within-item permutation)."""
        return self.main.headline_test.pvalue

    @property
    def average_gap(self) -> float:
        """The headline gap: the unweighted mean of the item gaps (``main.average_gap``)."""
        return self.main.average_gap

    def to_frame(self) -> pl.DataFrame:
        """The per-item table of the main comparison (item, mean under each value, gap, runs)."""
        return self.main.items

    @property
    def detected(self) -> bool:
        """True when the sign-flip p is at most alpha."""
        # p <= alpha, as the power simulation counts a rejection and as a design whose smallest
        # attainable p equals alpha can still reach significance (the design can never reach it only when it exceeds alpha)
        return self.main.headline_test.pvalue <= self.alpha

    @property
    def could_reach_significance(self) -> bool:
        return self.main.min_attainable_p <= self.alpha

    @property
    def probe_design(self):
        """What this analysis took the probe to be (:func:`probestats.analyses.design_read.read_design`)."""
        return read_design(self)

    def to_dict(self) -> dict:
        out = {"design": self.probe_design.to_dict(), **self.main.to_dict()}
        out["alpha"] = self.alpha
        out["noise"] = self.noise.to_dict(items=False) if self.noise is not None else None
        if self.noise is not None:
            for key in ("metric", "min_attainable_p"):
                out["noise"].pop(key, None)
            out["noise"].pop("items", None)
            out["noise"]["source"] = self.noise_source
        out["groups"] = [g.to_dict() for g in self.groups]
        out["correction"] = self.correction if self.groups else None
        out["mdg"] = _num(self.mdg)
        out["mdg_method"] = self.mdg_method
        out["mdg_range"] = None if self.mdg_range is None else [_num(x) for x in self.mdg_range]
        out["mdg_range_noise_runs_to_halve"] = self.mdg_range_runs
        out["mdg_room"] = _num(self.mdg_room)
        out["mdg_near_bound"] = bool(self.mdg_near_bound)
        if self.scale is not None:
            out["scale"] = self.scale.to_dict()
        if self.row_level is not None:
            out["row_level"] = self.row_level.to_dict()
        for tests in self.row_tests:
            out[f"welch_per_{tests.unit}"] = tests.to_dict()
        if self.verdict is not None:
            out["verdict"] = self.verdict.to_dict()
        out["baseline"] = self.baseline
        out["clusters"] = None if self.clusters is None else self.clusters.to_dict()
        out["random_settings"] = [d.to_dict() for d in self.drawn]
        out["problems"] = [p.to_dict() for p in self.problems]
        return out

    def _repr_html_(self) -> str:
        from html import escape

        head = (f"<p><b>{escape(self.metric)}</b>: '{escape(self.main.a)}' − '{escape(self.main.b)}', "
                f"{count_of(self.main.n_items, 'item')}, average gap {self.main.average_gap:+.4g}, "
                f"sign-flip p = {self.main.sign_flip.pvalue:.4g} ({escape(self.main.sign_flip.method)})</p>")
        return head + self.main.items._repr_html_()

    def __repr__(self) -> str:
        m = self.main
        return (f"Analysis(metric={m.metric!r}, a={m.a!r}, b={m.b!r}, n_items={m.n_items}, "
                f"average_gap={m.average_gap:.6g}, p={m.sign_flip.pvalue:.6g})")


def analyze_pair(log, question, probe=None, tests=None, run=None) -> Analysis:
    """Analyze a counterfactual probe: per-item gaps, the exact sign-flip and sign tests, noise.

    Parameters
    ----------
    log : Log
        The probe log as the job read and shaped it (:func:`probestats.jobs.inputs.shape_log`); rows or a frame
        given directly are read as :func:`probestats.read_log` reads them, and never shaped.
    question : Question
        What is compared (:class:`probestats.analyses.question.Question`): ``metric``; ``a`` and ``b`` (gap =
        mean_a − mean_b; default: the first two values in order of appearance); ``by`` (repeat the analysis
        per group, with the correction across groups); ``noise``, the noise reference: a same-versus-same log,
        analyzed the same way (its first two values), ``"within"`` (the default when ``None`` and the ``run``'s
        ``within_noise``: value ``a``'s runs of each cell split into two halves, the halves' gap read over every
        split, :func:`within_log_noise`, valid when every cell has two runs or more), or ``"none"`` (the minimum
        detectable gap is computed from a noise log only); or ``noise_value``, the repeats of this value in the
        log (a baseline run several times), split in halves within each item (read over every split); ``selection``,
        handed to the many-values analysis with the ``run``'s ``many``.
    probe : Probe, optional
        Case folding (``fold_case``) and the column roles (:class:`probestats.shape.probe.Probe`):
        ``settings``, columns that are held-fixed settings besides model, judge, temperature, system prompt
        and file, which always are (naming one of them is refused: it would change nothing); a setting that
        varies within an item x value cell is a block (:mod:`probestats.analyses.halves`): items are matched
        within each of its values and the item gap averages over the values present under both compared
        values, the per-value results beside it as groups (when no ``by`` is given); ``attribute_settings``,
        varied on purpose with the value; ``cluster``, the column of the clusters the items are nested in (a
        document, a vacancy, a template): the tests flip whole clusters and the interval is a cluster-level t
        (:mod:`probestats.analyses.clusters`, on ``clusters``), and without it a column that groups the items
        in clusters whose gaps are alike is suggested (a ``clustered_items`` warning with the intra-cluster
        correlation); ``random_settings``, settings drawn at random per call (a temperature sampled for every
        request): checked to be balanced across the values (refused as a confound when not), kept out of the
        matching, and the gap shown stratified by and adjusted for each (:mod:`probestats.analyses.drawn`, on
        ``drawn``). The log is not shaped here (the job shapes it: :func:`probestats.jobs.inputs.shape_log`).
    tests : Tests, optional
        The direction, the level (wording, the minimum detectable gap), the correction across ``by`` groups,
        the interval of the average gap, Hedges' small-sample correction of d_z and d_av (``g_z``, ``g_av``),
        and the resampling of every resampling method: the bootstrap intervals (the average gap's and d_av's)
        and, with more than two values, the Monte Carlo omnibus test when it cannot be exact
        (:class:`probestats.vocabulary.Tests`); the defaults without it.
    run : Run, optional
        How the analysis runs (:class:`probestats.analyses.question.Run`): the minimum detectable gap with a
        noise log (``mdg``), the within-log noise check without one (``within_noise``), one streaming pass
        over the log (``streaming``, with the report's ``facts``, or a pass already taken, ``streamed``), a
        ``progress`` display, and whether more than two values go to the many-values analysis (``many``);
        the defaults without it.

    Raises
    ------
    ValidationError
        When the log has validation errors (warnings travel into ``problems``).

    Examples
    --------
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + (s % 3 == i % 2)}
    ...         for i in range(8) for v in ("formal", "casual") for s in range(1, 6)]
    >>> from probestats.analyses.question import Question
    >>> result = analyze_pair(rows, Question("steps"))
    >>> result.main.average_gap, result.main.sign_flip.pvalue
    (1.0, 0.0078125)
    """
    probe, tests, run = as_probe(probe), as_tests(tests), run or Run()
    metric, by = question.metric, list(column_names("by", question.by))
    check_by(by, metric)
    noise, within_noise = _noise_choice(question.noise, run.within_noise, question.noise_value)
    halves = noise is None and (within_noise or question.noise_value is not None)
    streamed = _streamed(log, question, probe, run, by, halves=halves)
    checked = streamed.checked if streamed is not None else _read_validated(log, question, probe, by, run.progress)
    if run.progress:
        run.progress("testing")
    if question.a is None and question.b is None and len(checked.values) > 2:
        if run.many:  # more than two values: per-value means and an omnibus test
            return _many_values(checked, question, probe, tests, by, noise)
        checked = _with_more_values(checked)
    require_ok(checked)
    checked, streamed, table = _item_table(checked, streamed, metric, probe, by)
    if tests.gap_interval not in INTERVALS:
        raise OptionError(f"interval must be one of {', '.join(map(repr, INTERVALS))}, not {tests.gap_interval!r}")
    matched, problems = _blocked(checked, streamed, table, metric, probe, by)
    facts, units, grouped_units, unpermuted = _design_units(matched)
    problems += [unpermuted] if unpermuted is not None else []
    main = compare_pair(matched.table, metric, checked.a, checked.b, tests, units=units)
    groups = _groups(matched, tests, grouped_units)
    noise_read = _noise(question, noise, within_noise, matched, main, probe, tests)
    problems += [*noise_read.problems, *design_problems(main, tests.alpha)]
    mdg_value, mdg_room, mdg_near, mdg_detail = None, None, False, None
    if run.mdg and noise_read.checked is not None:
        mdg_value, mdg_room, mdg_near, mdg_detail = probe_mdg(noise_read.checked, metric, main, tests)
    verdict, drawn = _verdict(main, noise_read.check, matched, groups, facts, probe, tests)
    result = Analysis(main=main, noise=noise_read.result, groups=groups.results, problems=tuple(problems),
                      alternative=tests.alternative, alpha=tests.alpha, correction=tests.correction, checked=checked,
                      noise_checked=noise_read.checked, mdg=mdg_value, mdg_detail=mdg_detail, mdg_room=mdg_room,
                      mdg_near_bound=mdg_near, noise_source=noise_read.source, verdict=verdict, drawn=drawn)
    return _with_clusters(result, matched, probe, tests)


@dataclass(frozen=True)
class _Matched:
    """The compared pair matched within items: the validated log (``checked``), the streaming pass it came from
    (None: the rows were read), the item table (averaged over the ``blocks`` it was matched within, the
    ``pooled`` phrase saying so), the ``metric`` and the ``by`` columns."""

    checked: Checked
    streamed: object
    table: pl.DataFrame
    metric: str
    by: list
    blocks: tuple = ()
    pooled: str | None = None


@dataclass(frozen=True)
class _Groups:
    """The per-group results beside the headline (the ``by`` groups, else the blocks, ``columns``): each
    group's item table (``table``), its results, corrected across the groups, and whether they agree."""

    columns: list
    table: pl.DataFrame | None = None
    results: tuple = ()
    agreement: object = None


@dataclass(frozen=True)
class _Noise:
    """The noise reference beside the result: its check, its comparison (``result``), the noise log validated
    (``checked``), where it came from (``source``) and the noise log's warnings."""

    check: NoiseCheck
    result: PairResult | None = None
    checked: Checked | None = None
    source: str | None = None
    problems: tuple = ()


def _streamed(log, question, probe, run, by, *, halves: bool):
    """The one streaming pass over the log that validates and summarizes it (with the ``halves`` of the
    within-log noise when asked), or the pass already taken (``run.streamed``); None when the rows are read."""
    streamed = run.streamed
    settings, random_settings = tuple(probe.settings), tuple(dict.fromkeys(probe.random_settings))
    # a judge or a named setting may vary within cells, a drawn setting and clusters are read from the runs:
    # with one of them named, the rows are read once by validate, without a streaming pass before it
    if run.streaming and streamed is None and not (tuple(probe.attribute_settings) or probe.cluster is not None
                                                   or random_settings):
        from functools import partial

        # lazy: looked up when called, so a test's replacement of it on its module is seen
        from probestats.checks.stream import PassOptions, validate_streaming

        # the cluster suggestion's candidates are read in the same pass (blocks, known after it, are left out
        # then): one pass over the rows, not one more for the suggestion
        streamed = validate_streaming(log, metric=question.metric, a=question.a, b=question.b, by=by,
                                      fold_case=probe.fold_case, halves=halves,
                                      options=PassOptions(progress=run.progress, facts=run.facts,
                                                          clusters=partial(cluster_candidates, metric=question.metric,
                                                                           exclude=(*by, *settings,
                                                                                    *random_settings))))
        if streamed is not None and _may_block(streamed.checked, settings, by):
            streamed = None   # a judge or a named setting may vary within cells: blocks need the rows
    return streamed


def _read_validated(log, question, probe, by, progress) -> Checked:
    """The log validated from its rows, keeping the columns the probe's roles read."""
    if progress:
        progress("reading and validating the log")
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.io.read import read_log

    metric, settings = question.metric, tuple(probe.settings)
    random_settings = tuple(dict.fromkeys(probe.random_settings))
    log = read_log(log, metric=metric)   # a Log as the job shaped it is taken as it is; rows given directly are read
    names = set(log.lazy.collect_schema().names())
    keep = [c for c in dict.fromkeys(("judge", "file", *settings)) if c in names or c in settings]
    keep += [c for c in dict.fromkeys((*random_settings, *([probe.cluster] if probe.cluster is not None else [])))
             if c not in keep]
    return validate(log, metric=metric, a=question.a, b=question.b, by=by, fold_case=probe.fold_case,
                    roles=ColumnRoles(keep=[c for c in keep if c not in by],
                                      attribute_settings=tuple(probe.attribute_settings),
                                      random_settings=random_settings))


def _many_values(checked, question, probe, tests, by, noise):
    """More than two values and no pair named: the validated log handed to the many-values analysis."""
    # lazy: analyses.many is off the paired analysis's path (tests/test_start.py)
    from probestats.analyses.many import analyze_many, refuse_pair_options

    refuse_pair_options(probe, tests, question.noise_value)
    return analyze_many(checked.log, Question(question.metric, by=by, noise=noise, selection=question.selection),
                        probe, tests)


def _with_more_values(checked: Checked) -> Checked:
    """``checked`` with the warning that only its first two values are compared."""
    return replace(checked, problems=checked.problems + (Problem(
        "warning", "more_values",
        f"the log has {len(checked.values)} values; this compares the first two, '{checked.a}' and "
        f"'{checked.b}': choose the pair with {opt('a')} and {opt('b')}, or analyze them all with "
        + either("probestats.analyze", "probestats analyze")),))


def _item_table(checked, streamed, metric, probe, by) -> tuple:
    """The item table of the compared pair, with ``checked`` and ``streamed`` as they then stand: a streaming
    pass whose values have unequal runs within items gives way to the rows (the within-item permutation
    reassigns the runs themselves)."""
    table = items_of(checked) if streamed is None or streamed.main is None else item_table_of(streamed.main, ["item"])
    if streamed is not None and table.height and arms_unequal(table["n_a"].to_list(), table["n_b"].to_list()):
        # unequal runs: the within-item permutation reassigns the runs themselves, so the rows are validated
        settings = tuple(probe.settings)
        whole = checked.log   # the log the streaming pass read
        names = set(whole.lazy.collect_schema().names())
        checked = validate(whole, metric=metric, a=checked.a, b=checked.b, by=by, fold_case=probe.fold_case,
                           roles=ColumnRoles(keep=[c for c in dict.fromkeys(("judge", *settings))
                                                   if (c in names or c in settings) and c not in by],
                                             attribute_settings=tuple(probe.attribute_settings)))
        require_ok(checked)
        streamed = None
        table = items_of(checked)
    return checked, streamed, table


def _blocked(checked, streamed, table, metric, probe, by) -> tuple[_Matched, list[Problem]]:
    """The pair matched within its blocks (a named setting that varies within cells; none from a streaming
    pass), and the problems so far (the log's, and the blocks' own); a named setting that is no block is held
    fixed, or refused saying why not."""
    settings, attribute_settings = tuple(probe.settings), tuple(probe.attribute_settings)
    random_settings = tuple(dict.fromkeys(probe.random_settings))
    check_settings(settings)
    blocks = blocks_of(checked.frame, checked.a, checked.b, settings=settings) if streamed is None else ()
    blocks = tuple(c for c in blocks if c not in attribute_settings and c not in random_settings)
    if streamed is None:   # a named setting that is no block is held fixed, or refused saying why not
        refusal = named_setting_refusal(checked, [c for c in settings if c not in by], blocks)
        if refusal is not None:
            raise OptionError(refusal)
    problems = list(checked.problems)
    if not blocks:
        return _Matched(checked, streamed, table, metric, by), problems
    blocked = blocked_item_table(checked.frame, metric, checked.a, checked.b, blocks, order=table)
    n_values = checked.frame.filter(pl.col("variant").is_in([checked.a, checked.b])).select(
        pl.struct(list(blocks)).n_unique()).item()
    problems += _blocked_problems(table, blocked, blocks)
    return _Matched(checked, streamed, blocked, metric, by, blocks, pooled_phrase(blocked, blocks, n_values)), problems


def _design_units(matched: _Matched) -> tuple:
    """The design's facts and, where the two values' runs per item differ by design, each item's runs (and
    each group's with ``by``) for the within-item permutation; the warning when a streaming pass kept none."""
    checked, table, blocks, metric = matched.checked, matched.table, matched.blocks, matched.metric
    units = grouped_units = problem = None
    facts = item_facts(table, metric, checked.a, checked.b)
    if matched.streamed is None and not blocks and checked.frame.height:
        facts = design_facts(checked.frame, metric, checked.a, checked.b)
        if facts.unequal_by_design:   # the permutation reassigns the runs themselves
            units = item_units(checked.frame, metric, checked.a, checked.b)
            if matched.by:
                grouped_units = item_units(checked.frame, metric, checked.a, checked.b, keys=[*matched.by, "item"])
    elif matched.streamed is None and blocks and checked.frame.height and facts.unequal_by_design:
        # matched within blocks: each item x block cell is a stratum whose runs' labels the permutation reassigns
        units = {}
        for key, cell in item_units(checked.frame, metric, checked.a, checked.b, keys=[*blocks, "item"]).items():
            units.setdefault(key[-1], []).append(cell)
    elif table.height and arms_unequal(table["n_a"].to_list(), table["n_b"].to_list()):
        problem = unpermuted_problem("which a log read in one streaming pass does not keep here")
    return facts, units, grouped_units, problem


def _groups(matched: _Matched, tests, grouped_units) -> _Groups:
    """The results per ``by`` group, else per block (a block's own results stand beside the pooled one, as
    ``by`` gives them), corrected across the groups, and whether two or more of them agree."""
    checked, metric, by = matched.checked, matched.metric, matched.by
    group_by = by or list(matched.blocks)
    if not group_by:
        return _Groups(group_by)
    groups: list[PairResult] = []
    grouped = items_of(checked, by=group_by)
    keys = grouped.select(group_by).unique(maintain_order=True)
    # every group's item table from one pass over the table, in the order of the keys (each group's rows in
    # the table's order): a filter a group cost a query each, about 1 ms
    subs = grouped.partition_by(group_by, maintain_order=True, include_key=False)
    # every group's d_av bootstrap from one matrix of draws (each group alone draws the same)
    effects = effect_sizes_many([(sub["mean_a"].to_numpy(), sub["mean_b"].to_numpy()) for sub in subs],
                                confidence=1 - tests.alpha, hedges=tests.hedges, n_resamples=tests.n_resamples,
                                seed=tests.seed)
    for key, sub, effect in zip(keys.iter_rows(named=True), subs, effects):
        sub_units = None if grouped_units is None or not by else {
            i: grouped_units[(*(key[k] for k in group_by), i)] for i in sub["item"].to_list()}
        groups.append(compare_pair(sub, metric, checked.a, checked.b, tests,
                                   by={k: key_json(v) for k, v in key.items()}, units=sub_units, effects=effect))
    adjusted = adjust([g.headline_test.pvalue for g in groups], tests.correction)
    groups = [replace(g, p_adjusted=p) for g, p in zip(groups, adjusted)]
    agreement = None
    if len(groups) >= 2:   # the headline averages these blocks (or groups): do they agree?
        # lazy: analyses.blocks is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.blocks import block_agreement

        agreement = block_agreement(grouped, groups, group_by, tests, a=checked.a, b=checked.b)
    return _Groups(group_by, grouped, tuple(groups), agreement)


def _noise(question, noise, within_noise: bool, matched: _Matched, main: PairResult, probe, tests) -> _Noise:
    """The noise reference the options ask for: none, a noise log analyzed the same way, or the within-log
    halves (of value a's runs, or of the ``noise_value``'s repeats)."""
    checked, metric, noise_value, streamed = matched.checked, matched.metric, question.noise_value, matched.streamed
    if isinstance(noise, str) and noise == "none":
        return _Noise(NoiseCheck("none", "no same-versus-same comparison", False,
                                 reason=f"none was asked for ({opt('noise', 'none')})"))
    if noise is not None:
        noise_checked = validate(noise, metric=metric, same_seeds=False, fold_case=probe.fold_case)
        if not noise_checked.ok:  # say which log the rows are in
            raise ValidationError([_tag_noise(p) for p in noise_checked.problems])
        noise_result = compare_pair(items_of(noise_checked), metric, noise_checked.a, noise_checked.b, tests)
        problems = tuple(_tag_noise(p) for p in noise_checked.problems
                         if not _applied_to_the_log(p, checked.problems))
        check = noise_check_of("log", f"the noise log's values '{noise_checked.a}' and '{noise_checked.b}'",
                               noise_result, tests.alpha, causes=lambda: noise_log_causes(noise_checked))
        return _Noise(check, noise_result, noise_checked, "noise log", problems)
    if noise_value is None and not within_noise:
        return _Noise(NoiseCheck("none", "no same-versus-same comparison", False,
                                 reason="the within-log check was turned off"))
    value = checked.a if noise_value is None else noise_value
    if noise_value is not None and noise_value not in checked.values:
        raise OptionError(f"{opt('noise_value', noise_value)}: not a value of the log (values: "
                          f"{', '.join(checked.values[:10])})")
    halves, source, reason = within_log_noise(
        checked, None if noise_value is not None else main.items, blocks=matched.blocks, value=value,
        counts=None if streamed is None else streamed.halves, places=None if streamed is None else streamed.places)
    kind = "within" if noise_value is None else "value"
    if halves is None:
        return _Noise(NoiseCheck(kind, "no same-versus-same comparison within the log", False, reason=reason),
                      source=source)
    # beside the result only: the power model (MDG) still needs a --noise log
    return _Noise(halves_check(kind, source.removeprefix("within-log: "), halves), halves, source=source)


def _verdict(main: PairResult, check: NoiseCheck, matched: _Matched, per_group: _Groups, facts, probe,
             tests) -> tuple:
    """The verdict on the pair and the randomized settings read beside it (``drawn``): the decision, with the
    design's caveats, each group's constant values, and each drawn setting's balance."""
    checked, metric, alpha = matched.checked, matched.metric, tests.alpha
    drawn = _drawn(checked, metric, tuple(dict.fromkeys(probe.random_settings)), tests)
    blanks = blank_readings(checked, main, tests, pooled_blocks=bool(matched.blocks))
    one = (one_answer_caveat(per_group.table, per_group.columns, metric, checked.a, checked.b,
                             block_noun(per_group.columns, len(per_group.results))) if per_group.columns else ())
    agreement = per_group.agreement   # its count of the undetected says which gave one answer in every run
    if agreement is not None and one:
        agreement = agreement.counting_one_answer(
            ", ".join("(blank)" if v is None else str(v) for v in g["by"].values()) for g in one[0].figures["groups"])
    verdict = decide(main, check, alpha=alpha, pooled=matched.pooled, blocks=matched.blocks,
                     attribute_settings=tuple(probe.attribute_settings), agreement=agreement, blanks=blanks)
    verdict = with_design(verdict, facts)
    if per_group.columns:
        verdict = with_caveats(verdict, *group_constant_caveats(per_group.table, per_group.columns, metric, checked.a,
                                                                checked.b, facts),   # and a group of one number only
                               *one, pooled=pooled_with(verdict.pooled, one_answer_clause(one, metric)))
    if drawn:
        for d in drawn:
            verdict = with_caveats(verdict, Caveat(
                "random_setting", drawn_caveat(d, checked.a, checked.b, alpha),
                {"column": d.column, "balance_p": d.balance.pvalue, "balance_size": d.balance.size,
                 "unbalanced": d.balance.unbalanced(alpha), "stratified_gap": d.stratified.average_gap,
                 "adjusted_gap": d.adjusted.gap}))
    return verdict, drawn


def _with_clusters(result: Analysis, matched: _Matched, probe, tests) -> Analysis:
    """The result read at the ``probe``'s cluster level, or without one, with the suggestion of a column that
    groups the items in clusters whose gaps are alike."""
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.analyses.clusters import suggest_clusters, with_clusters

    if probe.cluster is not None:
        return with_clusters(result, probe, tests)
    streamed = matched.streamed
    hint = suggest_clusters(result, exclude=(*matched.by, *probe.settings, *dict.fromkeys(probe.random_settings),
                                             *matched.blocks),
                            items=None if streamed is None else streamed.clusters)
    if hint is not None:
        result = replace(result, problems=result.problems + (hint,), verdict=with_caveats(result.verdict, Caveat(
            "clustered_items", f"{hint.message}.", {"column": hint.column})))
    return result


def _drawn(checked, metric, drawn, tests) -> tuple:
    """Each randomized setting (``drawn``) checked for balance (one that tracks the value refused as a confound;
    one unbalanced by chance kept, and its caveat says so), then shown stratified and adjusted."""
    alpha, n_resamples, seed = tests.alpha, tests.n_resamples, tests.seed
    out = []
    for column in drawn:
        if column not in checked.frame.columns:
            raise OptionError(f"{opt('random_settings', [column])}: no such column in the log")
        balance = balance_test(checked.frame, column, checked.a, checked.b, n_resamples=n_resamples, seed=seed)
        if balance.tracks(alpha):
            raise ValidationError([unbalanced_problem(balance, checked.a, checked.b,
                                                      checked.log.columns.get(column, column))])
        out.append(drawn_setting(checked.frame, metric, checked.a, checked.b, column, tests, balance=balance))
    return tuple(out)


def _noise_choice(noise, within_noise: bool, noise_value):
    """``noise`` and ``within_noise`` from the noise options: ``"within"`` and ``"none"`` are words,
    anything else a noise log (``noise_value`` excludes a noise log)."""
    import os

    word = str(noise) if isinstance(noise, (str, os.PathLike)) else None
    if word in ("within", "none"):
        if noise_value is not None:
            raise OptionError(f"{opt('noise', word)} and {opt('noise_value', noise_value)} are two noise references; "
                              "give one")
        return (None, word == "within") if word == "within" else ("none", False)
    if noise is not None and noise_value is not None:
        raise OptionError(f"{opt('noise')} and {opt('noise_value', noise_value)} are two noise references; give one")
    return noise, within_noise


def check_settings(given: Sequence[str]) -> None:
    """Refuse a named setting that is a setting without being named: the columns of
    :data:`probestats.analyses.halves.BLOCK_SETTINGS` are matched within when they vary within cells,
    so naming one changes nothing.

    >>> check_settings(["persona"])
    >>> check_settings(["persona", "model"])
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: settings=['model']: model is always a setting (model, judge, temperature, system and file are, and one that varies within an item x value cell is a block without being named); name only other columns
    """
    named = [c for c in given if c in BLOCK_SETTINGS]
    if named:
        raise OptionError(f"{either(f'settings=[{named[0]!r}]', opt('settings', named[0]))}: "
                          f"{named[0]} is always a setting ({', '.join(BLOCK_SETTINGS[:-1])} and {BLOCK_SETTINGS[-1]} "
                          "are, and one that varies within an item x value cell is a block without being named); "
                          "name only other columns")


def _may_block(checked: Checked, named: Sequence[str], by: Sequence[str] = ()) -> bool:
    """True when a streamed log has a column that may be a block the pass does not check (a judge,
    a setting the user names, a setting split with ``by``, which the pass does not compare within cells)."""
    names = set(checked.log.lazy.collect_schema().names())
    return (bool(named) or any(c in BLOCK_SETTINGS for c in by)
            or any(c in names for c in BLOCK_SETTINGS if c not in ("model", "temperature", "system")))


def _blocked_problems(unblocked: pl.DataFrame, table: pl.DataFrame, blocks) -> list[Problem]:
    """Items left out of a blocked analysis: no block value ran them under both values."""
    lost = unblocked.filter(~pl.col("item").is_in(table["item"].implode()))["item"].to_list()
    if not lost:
        return []

    shown = ", ".join(str(i) for i in lost[:10]) + (f" and {len(lost) - 10} more" if len(lost) > 10 else "")
    return [Problem("warning", "unmatched_in_block",
                    f"{count_of(len(lost), 'item')} ({shown}) had no {block_noun(blocks, 1)} under both values, so "
                    f"{'it is' if len(lost) == 1 else 'they are'} left out: items are matched within each "
                    f"{block_noun(blocks, 1)}")]


def _applied_to_the_log(p: Problem, log_problems) -> bool:
    """Whether ``p`` is the noise log's word that a read option did not apply to it, for an option the log
    itself read (a sheet named for a spreadsheet log, beside a CSV noise log): the option did what it was
    given for, and a warning that it was ignored would blame a choice nobody made for the noise log.

    >>> said = Problem("warning", "ignored_option", "sheet='runs' does not apply to 'n.csv', read as CSV, ...")
    >>> _applied_to_the_log(said, ()), _applied_to_the_log(said, (replace(said, message="sheet='runs' does not "
    ...     "apply to 'log.csv', read as CSV, ..."),))
    (True, False)
    """
    if p.code != "ignored_option":
        return False
    option = p.message.split(" does not apply to ")[0]
    return not any(q.code == "ignored_option" and q.message.split(" does not apply to ")[0] == option
                   for q in log_problems)


def _tag_noise(p: Problem) -> Problem:
    return replace(p, message=f"noise log: {p.message}")
