"""The per-item (disaggregated) table and the paired analysis of a counterfactual probe.

checked frame -> item table -> tests -> :class:`Analysis`. Every item counts once:
the average gap is the unweighted mean of the item gaps, and the tests treat the
items, not the runs, as the sample.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Sequence

import polars as pl

from probestats.errors import OptionError, ProbestatsError, ValidationError, either, opt
from probestats.stats.multitest import adjust
from probestats.stats.hypotests import (SKEW_WARNING, SKEW_WARNING_MAX_N, Interval, TestResult, gap_interval,
                                        gap_skewness, min_attainable_p, sign_flip_test, sign_test)
from probestats.errors import Problem
from probestats.stats.effects import Effects, effect_sizes
from probestats.stats.published import paired_published
from probestats.stats.permutation import PERMUTATION_TEST, within_item_permutation_test
from probestats.checks.exact import units, with_exact_moments
from probestats.checks.schema import FIRST, Checked, decimal_places, require_ok, validate
from probestats.stats.exact import finish_means, mean_aggs
from probestats.errors import count_of
from probestats.analyses.verdict import NoiseCheck

from probestats.vocabulary import ALTERNATIVES, CORRECTIONS, check_vocabulary  # noqa: F401  (re-exported)
#: The intervals for the average gap (:func:`probestats.stats.hypotests.gap_interval`).
INTERVALS = ("t", "bootstrap", "percentile", "sign-flip")


def item_table(frame: pl.DataFrame, metric: str, a: str, b: str, by: Sequence[str] = ()) -> pl.DataFrame:
    """Per item: mean of the metric under each value, runs per value, spread, and gap = mean_a − mean_b.

    Items keep their order of first appearance (of a run of ``a`` with a value). Runs whose
    metric is blank do not count; items without a run with a value under both values are left
    out (validation reports them as ``unmatched_item``). Means are exact, rounded once
    (:mod:`probestats.stats.exact`).

    Examples
    --------
    >>> frame = pl.DataFrame({"item": ["1", "1", "1", "2", "2"],
    ...                       "variant": ["a", "a", "b", "a", "b"],
    ...                       "steps": [4.0, 6.0, 3.0, 2.0, 2.0]})
    >>> item_table(frame, "steps", "a", "b").select("item", "mean_a", "mean_b", "gap", "n_a", "n_b").rows()
    [('1', 5.0, 3.0, 2.0, 2, 1), ('2', 2.0, 2.0, 0.0, 1, 1)]
    """
    keys = [*by, "item"]
    value = pl.col(metric)
    places = decimal_places(frame[metric])
    exact = [] if places is None else [units(value, places).sum().alias("__s"),
                                       (units(value, places) * units(value, places)).sum().alias("__q")]
    # one streaming pass of sums: a large log needs no per-cell lists
    rows = frame.lazy().filter(pl.col("variant").is_in([a, b]))
    cells = (
        frame.lazy()
        .with_row_index(FIRST)
        .filter(pl.col("variant").is_in([a, b]))
        .group_by([*keys, "variant"])
        .agg(*([] if exact else mean_aggs(frame[metric], metric)), value.count().alias("counted"),
             value.std().alias("sd"),
             pl.col(FIRST).filter(value.is_not_null()).min().alias("first_valued"), *exact)
        .collect(engine="streaming")
    )
    if exact:  # short decimals: mean and sd by the exact rule a cell table also follows
        cells = with_exact_moments(cells, places)
    else:  # other floats: the correctly rounded mean of the binary values
        cells = finish_means(cells, rows, [*keys, "variant"], metric)
    side_a = cells.filter(pl.col("variant") == a).drop("variant")
    side_b = cells.filter(pl.col("variant") == b).drop("variant")
    return _table(side_a.join(side_b, on=keys, suffix="_b"), keys)


def items_of(checked: Checked, by: Sequence[str] = ()) -> pl.DataFrame:
    """The item table of a validated log (split by ``by``), from the per-item summary validation
    computed when it has it (``checked.pairs``), so the rows are not read again.

    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 3 + s + (v == "a")}
    ...         for i in (1, 2) for v in ("a", "b") for s in (1, 2)]
    >>> checked = validate(rows, metric="steps")
    >>> items_of(checked).equals(item_table(checked.frame, "steps", "a", "b"))
    True
    """
    if checked.pairs is not None and checked.metric is not None and set(checked.pairs_by) == set(by):
        return _table(checked.pairs, [*by, "item"])
    return item_table(checked.frame, checked.metric, checked.a, checked.b, by=by)


def _table(pairs: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The item table from both values' metric summaries side by side (suffix ``_b`` for value b)."""
    return (
        pairs.filter((pl.col("counted") > 0) & (pl.col("counted_b") > 0))
        .sort("first_valued")
        .select(*keys, pl.col("mean").alias("mean_a"), pl.col("mean_b"),
                (pl.col("mean") - pl.col("mean_b")).alias("gap"),
                pl.col("counted").cast(pl.Int64).alias("n_a"), pl.col("counted_b").cast(pl.Int64).alias("n_b"),
                pl.col("sd").alias("sd_a"), pl.col("sd_b"))
    )


@dataclass(frozen=True)
class PairResult:
    """One comparison of values ``a`` and ``b`` over matched items.

    Attributes
    ----------
    metric, a, b : str
    items : polars.DataFrame
        The per-item table (:func:`item_table`).
    average_gap : float
        Unweighted mean of the item gaps.
    sign_flip : TestResult
        The exact sign-flip test on the item gaps (the main test).
    sign_test : TestResult
        The binomial sign test (zero gaps dropped).
    interval : Interval
        Interval for the average gap, method named.
    min_attainable_p : float
        The smallest p the sign-flip test could give with these non-zero gaps.
    by : dict
        The group this result is for (empty for the whole log).
    effects : Effects or None
        SD of the item gaps, d_z and d_av with their intervals and formulas (:mod:`probestats.stats.effects`).
    published : tuple of PublishedTest
        The paired t-test and the Wilcoxon signed-rank test on the item gaps, beside the exact tests
        (:mod:`probestats.stats.published`).
    p_adjusted : float or None
        The headline p corrected across the ``by`` groups (None for the whole log or a single group).
    permutation : TestResult or None
        With unequal arms (different runs per value within items): the exact within-item permutation of
        the value labels (:mod:`probestats.stats.permutation`), the headline test; None for balanced pairs,
        whose headline is the sign-flip test.
    not_applicable : str or None
        Why the sign test and Wilcoxon's test are not tests of this design (unequal arms), else None.
    """

    metric: str
    a: str
    b: str
    items: pl.DataFrame
    average_gap: float
    sign_flip: TestResult
    sign_test: TestResult
    interval: Interval
    min_attainable_p: float
    by: dict = field(default_factory=dict)
    p_adjusted: float | None = None
    effects: Effects | None = None
    published: tuple = ()
    permutation: TestResult | None = None
    not_applicable: str | None = None

    @property
    def headline_test(self) -> TestResult:
        """The test the verdict rests on: the within-item permutation with unequal arms, else the sign-flip test."""
        return self.permutation if self.permutation is not None else self.sign_flip

    @property
    def headline_name(self) -> str:
        """The headline test in words."""
        return PERMUTATION_TEST if self.permutation is not None else "the exact sign-flip test"

    @property
    def n_items(self) -> int:
        return self.items.height

    @property
    def gaps(self) -> list[float]:
        return self.items["gap"].to_list()

    def runs_per_value(self) -> tuple[int, int]:
        """Typical runs per value (the median over items of n_a and of n_b)."""
        if self.items.height == 0:
            return (0, 0)
        return (int(self.items["n_a"].median()), int(self.items["n_b"].median()))

    def to_dict(self, items: bool = True) -> dict:
        """The JSON object; without ``items`` (the noise beside a result, whose items are not shown)
        the per-item rows are left out."""
        sf = self.sign_flip
        sign_flip = {
            "p": sf.pvalue,
            "method": sf.method,   # the text, as everywhere (schema 2; it was the kind, with this text in method_detail)
            "kind": sf.kind,       # "exact", "bounds" or "monte-carlo"
            "alternative": sf.alternative,
            "statistic": _num(sf.statistic),
        }
        if sf.pvalue_se is not None:
            sign_flip["p_se"] = sf.pvalue_se
        if getattr(sf, "log10_pvalue", None) is not None and sf.pvalue < 1e-300:   # below what a float holds
            sign_flip["p_log10"] = sf.log10_pvalue
        if sf.pvalue_bound is not None:  # "upper": p is the Monte Carlo floor 1/(n_resamples + 1); the p is below it
            sign_flip["p_bound"] = sf.pvalue_bound
        if sf.pvalue_bounds is not None:
            sign_flip["p_bounds"] = [float(x) for x in sf.pvalue_bounds]
        if self.p_adjusted is not None and self.permutation is None:
            sign_flip["p_adjusted"] = self.p_adjusted
        st = self.sign_test
        out = {
            "metric": self.metric,
            "a": self.a,
            "b": self.b,
            "n_items": self.n_items,
            "average_gap": _num(self.average_gap),
            "items": [
                {"item": str(i), "mean_a": _num(ma), "mean_b": _num(mb), "gap": _num(g), "n_a": int(na),
                 "n_b": int(nb), "sd_a": _num(sa), "sd_b": _num(sb)}
                for i, ma, mb, g, na, nb, sa, sb in zip(*(self.items[c].to_list() for c in ITEM_FIELDS))
            ] if items else [],
            "sign_flip": sign_flip,
            "sign_test": {"p": st.pvalue, "n": int(st.n), "k": int(getattr(st, "k", st.statistic)),
                          "method": st.method, "alternative": st.alternative,
                          "formula": getattr(st, "formula", None)},
            "interval": {"low": _num(self.interval.low), "high": _num(self.interval.high),
                         "confidence": self.interval.confidence, "method": self.interval.method,
                         "assumption": self.interval.assumption},
            "min_attainable_p": self.min_attainable_p,
            # exact even when the float above is only its bound (below 2**-1074)
            "min_attainable_p_log10": getattr(self.min_attainable_p, "log10", None)
            or math.log10(self.min_attainable_p),
        }
        out["headline_test"] = "permutation" if self.permutation is not None else "sign_flip"
        if self.permutation is not None:
            pt = self.permutation
            out["permutation"] = {"p": pt.pvalue, "method": pt.method, "kind": pt.kind, "alternative": pt.alternative,
                                  "statistic": _num(pt.statistic), "p_se": pt.pvalue_se,
                                  "p_bounds": None if pt.pvalue_bounds is None else [float(x) for x in pt.pvalue_bounds],
                                  **({"p_adjusted": self.p_adjusted} if self.p_adjusted is not None else {})}
            for key in ("sign_flip", "sign_test"):
                out[key]["applies"] = False
                out[key]["why"] = self.not_applicable
        if self.effects is not None:
            out["effect_sizes"] = self.effects.to_dict()
        if self.published:
            out["published_tests"] = {t.name.replace(" ", "_"): t.to_dict() for t in self.published}
        if self.by:
            out = {"by": dict(self.by), **out}
        return out


#: the columns of an item table that its JSON rows give, in their order
ITEM_FIELDS = ("item", "mean_a", "mean_b", "gap", "n_a", "n_b", "sd_a", "sd_b")


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _with_statistic(test, average: float):
    """The test with its statistic (the observed mean gap) as the exact average gap computed beside it."""
    return replace(test, statistic=average) if math.isfinite(average) else test


def compare_pair(items: pl.DataFrame, metric: str, a: str, b: str, *, alternative: str = "two-sided",
                 confidence: float = 0.95, by: dict | None = None, interval: str = "t", hedges: bool = False,
                 n_resamples: int = 10_000, seed: int | None = 0, units: dict | None = None) -> PairResult:
    """Tests for one item table: sign-flip, sign test, interval, smallest attainable p, and beside them
    the effect sizes and the published tests (paired t, Wilcoxon); ``n_resamples`` and ``seed`` serve
    every bootstrap and a Monte Carlo permutation.

    ``units`` (item -> (value a's runs, value b's runs), :func:`item_units`): when some item's two values
    have different numbers of runs, the headline test is the exact within-item permutation of the value
    labels (``permutation``), and the sign-flip, sign, Wilcoxon and paired t tests, whose null needs a gap
    symmetric about zero, are not tests of the design (``not_applicable``; ``published`` is left empty).
    """
    gaps = items["gap"].to_list()
    odd = [str(i) for i, g in zip(items["item"], gaps) if g is None or not math.isfinite(g)]
    if odd:  # finite values whose difference overflows, such as 1e308 and -1e308
        raise ProbestatsError(f"the gap of item {', '.join(odd[:5])} is not a finite number; "
                              f"rescale the metric '{metric}' (its values are too large to subtract)")
    n_nonzero = sum(1 for g in gaps if g != 0)
    from probestats.stats.exact import mean_of_combination

    # the difference of the exact sums of the item means: no float residue when the means are equal
    average = (mean_of_combination([(1, items["mean_a"].to_list()), (-1, items["mean_b"].to_list())])
               if gaps and "mean_a" in items.columns and items["mean_a"].null_count() == 0
               and items["mean_b"].null_count() == 0 else sum(gaps) / len(gaps) if gaps else float("nan"))
    method = interval
    if len(gaps) >= 2 and not (method in ("bootstrap", "percentile") and len(gaps) < 3):
        interval = gap_interval(gaps, confidence=confidence, method=method, n_resamples=n_resamples, seed=seed)
    elif len(gaps) >= 2:   # a bootstrap of two gaps says nothing; the t interval stands in, named as such
        interval = gap_interval(gaps, confidence=confidence)
    else:  # a t interval needs a spread of item gaps, which one item cannot give
        interval = Interval(-math.inf, math.inf, confidence,
                            f"no interval: {len(gaps)} item gap has no spread; add items")
    permutation = not_applicable = None
    published = paired_published(items["mean_a"].to_numpy(), items["mean_b"].to_numpy(), alternative)
    if units is not None and items.height and (items["n_a"] != items["n_b"]).any():
        permutation = within_item_permutation_test([units[i] for i in items["item"].to_list()],
                                                   alternative=alternative, n_resamples=n_resamples, seed=seed)
        not_applicable = UNEQUAL_ARMS_NOTE
        published = ()   # the paired t and Wilcoxon's test assume what unequal arms break
    return PairResult(
        metric=metric,
        a=a,
        b=b,
        items=items,
        average_gap=average,
        permutation=permutation,
        not_applicable=not_applicable,
        sign_flip=_with_statistic(sign_flip_test(gaps, alternative=alternative, alpha=1 - confidence), average),
        sign_test=sign_test(gaps, alternative=alternative),
        interval=interval,
        min_attainable_p=min_attainable_p(n_nonzero, alternative=alternative),
        by=dict(by or {}),
        effects=effect_sizes(items["mean_a"].to_numpy(), items["mean_b"].to_numpy(), confidence=confidence,
                             hedges=hedges, n_resamples=n_resamples, seed=seed),
        published=published,
    )


#: why the sign test and Wilcoxon's test are not tests of a design with unequal arms
UNEQUAL_ARMS_NOTE = ("the sign-flip test, the sign test, Wilcoxon's signed-rank test and the paired t-test are not tests "
                     "of this design: their null needs item gaps symmetric about zero (the t-test, normal), and with "
                     "different numbers of runs under the two values the gap of the smaller side against the larger "
                     "is not symmetric even when the values do not matter")


def unpermuted_problem(why: str) -> Problem:
    """The warning that the runs differ within items but the headline stays the sign-flip test, ``why`` saying
    why each item's runs are not at hand (the end of the sentence).

    >>> unpermuted_problem("which this table does not keep").code
    'unequal_runs_unpermuted'
    """
    return Problem(
        "warning", "unequal_runs_unpermuted",
        "the values have different numbers of runs within items, but the headline stays the sign-flip test, whose "
        "null needs gaps symmetric about zero: the exact within-item permutation of the value labels needs each "
        f"item's runs, {why}")


def item_units(frame: pl.DataFrame, metric: str, a: str, b: str, keys: Sequence[str] = ("item",)) -> dict:
    """Per item (``keys``; one key: the item itself, else a tuple): value a's runs and value b's runs with a
    metric, the units the within-item permutation reassigns.

    >>> frame = pl.DataFrame({"item": ["1", "1", "1"], "variant": ["a", "b", "b"], "x": [1.0, 2.0, None]})
    >>> item_units(frame, "x", "a", "b")
    {'1': ([1.0], [2.0])}
    """
    keys = list(keys)
    cells = (frame.filter(pl.col("variant").is_in([a, b]) & pl.col(metric).is_not_null())
             .group_by([*keys, "variant"]).agg(pl.col(metric)))
    out: dict = {}
    for row in cells.iter_rows(named=True):
        key = row[keys[0]] if len(keys) == 1 else tuple(row[k] for k in keys)
        side = out.setdefault(key, ([], []))
        side[0 if row["variant"] == a else 1].extend(float(x) for x in row[metric])
    return out


ROW_LEVEL_NOTE = ("Welch's t treats every run as independent: it is not the headline, because runs of one item "
                  "are not independent (they share the item), and the item-level test pairs each item with "
                  "itself, which removes the item-to-item spread that Welch's t counts as noise.")


@dataclass(frozen=True)
class RowLevelTest:
    """Welch's t test on the runs of the two values, each run counted as one observation
    (``scipy.stats.ttest_ind(equal_var=False)``), as many published audits report it.

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

    def to_dict(self) -> dict:
        return {"statistic": _num(self.statistic), "p": _num(self.pvalue), "df": _num(self.df),
                "n_a": int(self.n_a), "n_b": int(self.n_b), "mean_a": _num(self.mean_a), "mean_b": _num(self.mean_b),
                "alternative": self.alternative, "method": self.method, "note": self.note}


def row_level_test(checked: Checked, items: pl.DataFrame, alternative: str = "two-sided") -> RowLevelTest:
    """Welch's t on the runs of ``checked.a`` against ``checked.b``, over the items of the item table.

    >>> rows = [{"item": i, "variant": v, "steps": x} for i, v, x in
    ...         [(1, "a", 4.0), (1, "a", 6.0), (1, "b", 3.0), (2, "a", 2.0), (2, "b", 1.0), (2, "b", 2.0)]]
    >>> checked = validate(rows, metric="steps")
    >>> round(row_level_test(checked, items_of(checked)).pvalue, 6)  # scipy: ttest_ind([4, 6, 2], [3, 1, 2], equal_var=False)
    0.220881
    """
    from scipy import stats

    frame = checked.frame.filter(pl.col("item").is_in(items["item"].implode()) & pl.col(checked.metric).is_not_null())
    xa = frame.filter(pl.col("variant") == checked.a)[checked.metric].cast(pl.Float64).to_numpy()
    xb = frame.filter(pl.col("variant") == checked.b)[checked.metric].cast(pl.Float64).to_numpy()
    if len(xa) < 2 or len(xb) < 2:
        from probestats.errors import OptionError

        raise OptionError(f"Welch's t on the runs ({either('with_row_level', '--row-level')}) needs at least two "
                          "runs of each value")
    res = stats.ttest_ind(xa, xb, equal_var=False, alternative=alternative)
    return RowLevelTest(float(res.statistic), float(res.pvalue), float(res.df), len(xa), len(xb),
                        float(xa.mean()), float(xb.mean()), alternative)


def with_row_level(analysis: Analysis) -> Analysis:
    """``analysis`` with Welch's t on runs beside its item-level tests (``analyze --row-level``)."""
    return replace(analysis, row_level=row_level_test(analysis.checked, analysis.main.items, analysis.alternative))


@dataclass(frozen=True)
class Analysis:
    """The result of :func:`analyze`: the main comparison, noise beside it, splits and problems.

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
        The MDG over plausible same-versus-same logs of the noise log's size (None: not found).
    mdg_range_runs : int or None
        Runs a noise log would need to halve that range (four times the noise log's).
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
    mdg_method: str | None = None
    #: (low, high): the MDG over plausible same-versus-same logs of the noise log's size (None: not found)
    mdg_range: tuple | None = None
    #: runs a noise log would need to halve that range (4 times the noise log's)
    mdg_range_runs: int | None = None
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

    def to_dict(self) -> dict:
        out = self.main.to_dict()
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


#: columns that number the runs inside a cell: never a --by group (item and value are refused by validation)
CELL_COLUMNS = ("seed", "run_id")


def check_by(by, metric: str | None = None) -> None:
    """Refuse a ``--by`` column that makes or numbers the cells the analysis compares.

    >>> check_by(["model"], "steps")
    >>> check_by(["seed"], "steps")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: by='seed': that column numbers the runs inside each item x value cell, so it cannot split the analysis; group by a column that is fixed within an item, such as model
    """
    from probestats.errors import OptionError

    for col in by:
        if col in CELL_COLUMNS or col == metric:
            what = "is the metric" if col == metric else "numbers the runs inside each item x value cell"
            raise OptionError(f"{opt('by', col)}: that column {what}, so it cannot split the analysis; group by a column "
                              "that is fixed within an item, such as model")


def analyze_pair(
    log,
    *,
    metric: str,
    a: str | None = None,
    b: str | None = None,
    noise=None,
    by: Sequence[str] = (),
    alternative: str = "two-sided",
    alpha: float = 0.05,
    correction: str = "holm",
    fold_case: bool = False,
    mdg: bool = True,
    many: bool = True,
    read_options: dict | None = None,
    noise_read_options: dict | None = None,
    interval: str = "t",
    within_noise: bool = True,
    n_resamples: int = 10_000,
    seed: int | None = 0,
    streaming: bool = False,
    progress=None,
    facts: bool = False,
    streamed=None,
    hedges: bool = False,
    noise_value: str | None = None,
    settings: Sequence[str] = (),
    attribute_settings: Sequence[str] = (),
    selection: bool = False,
    cluster: str | None = None,
    random_settings: Sequence[str] = (),
) -> Analysis:
    """Analyze a counterfactual probe: per-item gaps, the exact sign-flip and sign tests, noise.

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
        The probe log (anything :func:`probestats.read_log` reads).
    metric : str
        The metric column.
    a, b : str, optional
        The compared values; gap = mean_a − mean_b (default: the first two values in order of appearance).
    noise : optional
        The noise reference: a same-versus-same log, analyzed the same way (its first two values);
        ``"within"`` (the default when ``None`` and ``within_noise``): value ``a``'s runs of each
        cell split into two halves drawn at random with ``seed`` (:func:`within_log_noise`; valid
        when every cell has two runs or more); or ``"none"``. The minimum detectable gap is
        computed from a noise log only.
    noise_value : str, optional
        Instead of ``noise``: the repeats of this value in the log (a baseline run several times),
        split in halves drawn at random within each item, as a same-versus-same comparison.
    settings : sequence of str
        Columns that are held-fixed settings besides model, judge, temperature and system prompt.
        A setting that varies within an item x value cell is a block
        (:mod:`probestats.analyses.halves`): items are matched within each of its values and the
        item gap averages over the values present under both compared values; the per-value
        results stand beside it as groups (when no ``by`` is given).
    by : sequence of str
        Repeat the analysis per group, with a correction across groups.
    alternative : {"two-sided", "greater", "less"}
    alpha : float
        Significance level used for wording and the minimum detectable gap.
    correction : {"holm", "bonferroni", "bh", "none"}
        Correction across ``by`` groups.
    n_resamples, seed : int
        Every resampling method: the bootstrap intervals (the average gap's and d_av's) and, with
        ``many`` and more than two values, the Monte Carlo omnibus test when it cannot be exact.
    hedges : bool
        Apply Hedges' small-sample correction to d_z and d_av.
    many : bool
        With more than two values and no ``a``/``b``: hand the log to
        :func:`probestats.analyses.many.analyze_many` (True), or compare the first two values
        with a ``more_values`` warning (False).
    streaming : bool
        Validate and summarize the log in one streaming pass (:mod:`probestats.checks.stream`),
        so memory grows with items x values, not rows; a log with problems that need its rows is
        validated as usual. The results are the same; the result's ``checked.frame`` is then
        empty (so no :func:`with_row_level`).
    facts : bool
        With ``streaming``: the pass also takes what a report states of the log's settings and
        seeds (``checked.facts``, :mod:`probestats.checks.facts`), so the report reads no rows.
    streamed : Streamed, optional
        With ``streaming``: the pass over this log already taken (with ``halves``), used instead
        of a new one (the before and after comparison checks the logs from it first).
    progress : callable, optional
        Called with the name of each stage of a long job (a progress display).
    selection : bool
        Handed to the many-values analysis with ``many`` (the metric is a selection, a design fact).
    cluster : str, optional
        The column of the clusters the items are nested in (a document, a vacancy, a template): the tests flip
        whole clusters and the interval is a cluster-level t (:mod:`probestats.analyses.clusters`, on
        ``clusters``). Without it, a column that groups the items in clusters whose gaps are alike is suggested
        (a ``clustered_items`` warning with the intra-cluster correlation).
    random_settings : sequence of str
        Settings drawn at random per call (a temperature sampled for every request): checked to be balanced
        across the values (refused as a confound when not), kept out of the matching, and the gap shown
        stratified by and adjusted for each (:mod:`probestats.analyses.drawn`, on ``drawn``).

    Raises
    ------
    ValidationError
        When the log has validation errors (warnings travel into ``problems``).

    Examples
    --------
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + (s % 3 == i % 2)}
    ...         for i in range(8) for v in ("formal", "casual") for s in range(1, 6)]
    >>> result = analyze(rows, metric="steps")
    >>> result.main.average_gap, result.main.sign_flip.pvalue
    (1.0, 0.0078125)
    """
    check_vocabulary(alternative=alternative, alpha=alpha, correction=correction, n_resamples=n_resamples, seed=seed)
    by = list(by)
    check_by(by, metric)
    noise, within_noise = _noise_choice(noise, within_noise, noise_value)
    if streaming and streamed is None:
        from probestats.checks.stream import validate_streaming

        streamed = validate_streaming(log, metric=metric, a=a, b=b, by=by, fold_case=fold_case,
                                      halves=noise is None and (within_noise or noise_value is not None),
                                      progress=progress, facts=facts,
                                      before_pass=_warm_tests, **(read_options or {}))
        if streamed is not None and (_may_block(streamed.checked, settings, by) or attribute_settings
                                     or cluster is not None or random_settings):
            streamed = None   # a judge or a named setting may vary within cells: blocks need the rows
    if streamed is not None:
        checked = streamed.checked
    else:
        if progress:
            progress("reading and validating the log")
        from probestats.io.read import read_log

        log = read_log(log, **{"metric": metric, **(read_options or {})})
        names = set(log.lazy.collect_schema().names())
        keep = [c for c in dict.fromkeys(("judge", "file", *settings)) if c in names or c in settings]
        keep += [c for c in (*random_settings, *([cluster] if cluster is not None else [])) if c not in keep]
        checked = validate(log, metric=metric, a=a, b=b, by=by, keep=[c for c in keep if c not in by],
                           fold_case=fold_case, attribute_settings=tuple(attribute_settings),
                           random_settings=tuple(random_settings))
    if progress:
        progress("testing")
    if a is None and b is None and len(checked.values) > 2:
        if many:  # more than two values: per-value means and an omnibus test
            from probestats.analyses.many import analyze_many, refuse_pair_options

            refuse_pair_options(interval=interval, noise_value=noise_value, hedges=hedges, settings=settings,
                                attribute_settings=attribute_settings, cluster=cluster,
                                random_settings=random_settings)
            return analyze_many(checked.log, metric=metric, by=by, alternative=alternative, alpha=alpha,
                                correction=correction, fold_case=fold_case, noise=noise,
                                n_resamples=n_resamples, seed=seed, selection=selection)
        checked = replace(checked, problems=checked.problems + (Problem(
            "warning", "more_values",
            f"the log has {len(checked.values)} values; this compares the first two, '{checked.a}' and "
            f"'{checked.b}': choose the pair with {opt('a')} and {opt('b')}, or analyze them all with "
            + either("probestats.analyze", "probestats analyze")),))
    require_ok(checked)
    table = items_of(checked) if streamed is None or streamed.main is None else _table(streamed.main, ["item"])
    if streamed is not None and table.height and (table["n_a"] != table["n_b"]).any():
        # unequal runs: the within-item permutation reassigns the runs themselves, so the rows are read
        from probestats.io.read import read_log

        whole = read_log(log, **{"metric": metric, **(read_options or {})})
        names = set(whole.lazy.collect_schema().names())
        checked = validate(whole, metric=metric, a=checked.a, b=checked.b, by=by, fold_case=fold_case,
                           keep=[c for c in dict.fromkeys(("judge", *settings))
                                 if (c in names or c in settings) and c not in by],
                           attribute_settings=tuple(attribute_settings))
        require_ok(checked)
        streamed = None
        table = items_of(checked)
    if interval not in INTERVALS:
        raise OptionError(f"interval must be one of {', '.join(map(repr, INTERVALS))}, not {interval!r}")
    extra = dict(hedges=hedges, n_resamples=n_resamples, seed=seed)  # effect sizes and every bootstrap
    from probestats.analyses.halves import blocked_item_table, blocks_of, pooled_phrase

    blocks = blocks_of(checked.frame, checked.a, checked.b, settings=settings) if streamed is None else ()
    blocks = tuple(c for c in blocks if c not in attribute_settings and c not in random_settings)
    pooled = None
    problems = list(checked.problems)
    if blocks:
        unblocked = table
        table = blocked_item_table(checked.frame, metric, checked.a, checked.b, blocks, order=unblocked)
        n_values = checked.frame.filter(pl.col("variant").is_in([checked.a, checked.b])).select(
            pl.struct(list(blocks)).n_unique()).item()
        pooled = pooled_phrase(table, blocks, n_values)
        problems += _blocked_problems(unblocked, table, blocks)
    from probestats.checks.design import design_facts, item_facts

    units = grouped_units = None
    facts = item_facts(table, metric, checked.a, checked.b)
    if streamed is None and not blocks and checked.frame.height:
        facts = design_facts(checked.frame, metric, checked.a, checked.b)
        if facts.unequal_items:   # the permutation reassigns the runs themselves
            units = item_units(checked.frame, metric, checked.a, checked.b)
            if by:
                grouped_units = item_units(checked.frame, metric, checked.a, checked.b, keys=[*by, "item"])
    elif table.height and (table["n_a"] != table["n_b"]).any():
        problems.append(unpermuted_problem("which a log read in one streaming pass, or matched within blocks, does "
                                           "not keep here"))
    main = compare_pair(table, metric, checked.a, checked.b, alternative=alternative, confidence=1 - alpha,
                        interval=interval, units=units, **extra)

    groups: list[PairResult] = []
    group_by = by or list(blocks)   # a block's own results stand beside the pooled one, as --by gives them
    if group_by:
        grouped = items_of(checked, by=group_by)
        keys = grouped.select(group_by).unique(maintain_order=True)
        for key in keys.iter_rows(named=True):
            mask = pl.all_horizontal([pl.col(k) == v if v is not None else pl.col(k).is_null() for k, v in key.items()])
            sub = grouped.filter(mask)
            sub_units = None if grouped_units is None or not by else {
                i: grouped_units[(*(r[k] for k in group_by), i)] for r, i in
                zip(sub.select(group_by).iter_rows(named=True), sub["item"].to_list())}
            groups.append(compare_pair(sub.drop(group_by), metric, checked.a, checked.b, alternative=alternative,
                                       confidence=1 - alpha, by={k: _jsonable(v) for k, v in key.items()},
                                       interval=interval, units=sub_units, **extra))
        adjusted = adjust([g.headline_test.pvalue for g in groups], correction)
        groups = [replace(g, p_adjusted=p) for g, p in zip(groups, adjusted)]
    agreement = None
    if len(groups) >= 2:   # the headline averages these blocks (or groups): do they agree?
        from probestats.analyses.blocks import block_agreement

        agreement = block_agreement(grouped, groups, group_by, a=checked.a, b=checked.b, alpha=alpha,
                                    n_resamples=n_resamples, seed=seed)

    noise_result = None
    noise_checked = None
    noise_source = None
    split_seed = 0 if seed is None else int(seed)
    if isinstance(noise, str) and noise == "none":
        check = NoiseCheck("none", "no same-versus-same comparison", False,
                           reason=f"none was asked for ({opt('noise', 'none')})")
    elif noise is not None:
        noise_checked = validate(noise, metric=metric, same_seeds=False, fold_case=fold_case,
                                 **(noise_read_options or {}))
        if not noise_checked.ok:  # say which log the rows are in
            raise ValidationError([_tag_noise(p) for p in noise_checked.problems])
        noise_table = items_of(noise_checked)
        noise_result = compare_pair(noise_table, metric, noise_checked.a, noise_checked.b,
                                    alternative=alternative, confidence=1 - alpha, interval=interval, **extra)
        problems += [_tag_noise(p) for p in noise_checked.problems]
        noise_source = "noise log"
        check = _noise_check("log", f"the noise log's values '{noise_checked.a}' and '{noise_checked.b}'",
                             noise_result, alpha, causes=lambda: noise_log_causes(noise_checked))
    elif noise_value is not None or within_noise:
        value = checked.a if noise_value is None else noise_value
        if noise_value is not None and noise_value not in checked.values:
            raise OptionError(f"{opt('noise_value', noise_value)}: not a value of the log (values: "
                              f"{', '.join(checked.values[:10])})")
        halves, noise_source, reason = within_log_noise(
            checked, None if noise_value is not None else main.items, blocks=blocks, seed=split_seed, value=value,
            counts=None if streamed is None else streamed.halves, places=None if streamed is None else streamed.places)
        kind = "within" if noise_value is None else "value"
        if halves is not None:  # beside the result only: the power model (MDG) still needs a --noise log
            noise_result = compare_pair(halves, metric, f"{value} (first half)", f"{value} (second half)",
                                        alternative=alternative, confidence=1 - alpha, **extra)
            check = _noise_check(kind, noise_source.removeprefix("within-log: "), noise_result, alpha,
                                 causes=lambda: (_chance_cause(alpha),), seed=split_seed)
        else:
            check = NoiseCheck(kind, "no same-versus-same comparison within the log", False, reason=reason,
                               seed=split_seed)
    else:
        check = NoiseCheck("none", "no same-versus-same comparison", False,
                           reason="the within-log check was turned off")

    problems += design_problems(main, alpha)

    mdg_value, mdg_method, mdg_range = (None, None, {})
    if mdg and noise_checked is not None:
        mdg_value, mdg_method, mdg_range = _design_mdg(noise_checked, metric, main, alpha, alternative)

    from probestats.analyses.verdict import decide

    drawn = _drawn(checked, metric, random_settings, alpha=alpha, alternative=alternative,
                   n_resamples=n_resamples, seed=seed)
    from probestats.analyses.blanks import blank_readings

    blanks = blank_readings(checked, main, alpha=alpha, alternative=alternative, pooled_blocks=bool(blocks))
    verdict = decide(main, check, alpha=alpha, pooled=pooled, blocks=blocks,
                     attribute_settings=tuple(attribute_settings), agreement=agreement, blanks=blanks)
    from probestats.analyses.verdict import with_caveats, with_design
    from probestats.checks.design import Caveat

    verdict = with_design(verdict, facts)
    if drawn:
        from probestats.analyses.drawn import drawn_caveat

        for d in drawn:
            verdict = with_caveats(verdict, Caveat(
                "random_setting", drawn_caveat(d, checked.a, checked.b),
                {"column": d.column, "balance_p": d.balance.pvalue, "stratified_gap": d.stratified.average_gap,
                 "adjusted_gap": d.adjusted.gap}))
    result = Analysis(main=main, noise=noise_result, groups=tuple(groups), problems=tuple(problems),
                      alternative=alternative, alpha=alpha, correction=correction, checked=checked,
                      noise_checked=noise_checked, mdg=mdg_value, mdg_method=mdg_method, noise_source=noise_source,
                      verdict=verdict, drawn=drawn, **mdg_range)
    from probestats.analyses.clusters import suggest_clusters, with_clusters

    if cluster is not None:
        return with_clusters(result, cluster)
    hint = suggest_clusters(result, exclude=(*by, *settings, *random_settings, *blocks))
    if hint is not None:
        result = replace(result, problems=result.problems + (hint,), verdict=with_caveats(verdict, Caveat(
            "clustered_items", f"The items may be nested in clusters: {hint.message}.", {"column": hint.column})))
    return result


def _drawn(checked, metric, random_settings, *, alpha, alternative, n_resamples, seed) -> tuple:
    """Each randomized setting checked for balance (an unbalanced one refused as a confound), then shown
    stratified and adjusted."""
    from probestats.analyses.drawn import balance_test, drawn_setting, unbalanced_problem

    out = []
    for column in random_settings:
        if column not in checked.frame.columns:
            raise OptionError(f"{opt('random_settings', column)}: no such column in the log")
        balance = balance_test(checked.frame, column, checked.a, checked.b, n_resamples=n_resamples, seed=seed)
        if balance.pvalue <= alpha:
            raise ValidationError([unbalanced_problem(balance, checked.a, checked.b,
                                                      checked.log.columns.get(column, column))])
        out.append(drawn_setting(checked.frame, metric, checked.a, checked.b, column, alpha=alpha,
                                 alternative=alternative, n_resamples=n_resamples, seed=seed, balance=balance))
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


def one_run_reason(value: str, cell: str = "item") -> str:
    """Why a log gives no within-log check: a cell with one run."""
    return (f"a cell ({cell}) has one run of '{value}', so no run can be set against another drawn alike "
            f"(give each cell two runs or more, or a noise log with {opt('noise')})")


def _may_block(checked: Checked, settings: Sequence[str], by: Sequence[str] = ()) -> bool:
    """True when a streamed log has a column that may be a block the pass does not check (a judge,
    a setting the user names, a setting split with ``by``, which the pass does not compare within cells)."""
    from probestats.analyses.halves import BLOCK_SETTINGS

    names = set(checked.log.lazy.collect_schema().names())
    return (bool(settings) or any(c in BLOCK_SETTINGS for c in by)
            or any(c in names for c in BLOCK_SETTINGS if c not in ("model", "temperature", "system")))


def _blocked_problems(unblocked: pl.DataFrame, table: pl.DataFrame, blocks) -> list[Problem]:
    """Items left out of a blocked analysis: no block value ran them under both values."""
    lost = unblocked.filter(~pl.col("item").is_in(table["item"].implode()))["item"].to_list()
    if not lost:
        return []
    from probestats.analyses.halves import block_noun

    shown = ", ".join(str(i) for i in lost[:10]) + (f" and {len(lost) - 10} more" if len(lost) > 10 else "")
    return [Problem("warning", "unmatched_in_block",
                    f"{count_of(len(lost), 'item')} ({shown}) had no {block_noun(blocks, 1)} under both values, so "
                    f"{'it is' if len(lost) == 1 else 'they are'} left out: items are matched within each "
                    f"{block_noun(blocks, 1)}")]


def _noise_check(kind: str, description: str, result: "PairResult", alpha: float, *, causes, seed=None):
    from probestats.analyses.verdict import NoiseCheck

    failed = result.sign_flip.pvalue <= alpha
    return NoiseCheck(kind, description, True, failed=failed, causes=tuple(causes()) if failed else (),
                      average_gap=result.average_gap, pvalue=result.sign_flip.pvalue, seed=seed)


def _chance_cause(alpha: float) -> str:
    return (f"the halves are drawn at random, and a random split gives an exact p at or below {alpha:g} in "
            f"{alpha:.0%} of draws by chance alone (another {opt('seed')} draws another split)")


def noise_log_causes(noise_checked: Checked) -> list[str]:
    """What a failed noise log shows that may explain it: a setting that varies, rows in metric
    order, runs of one value from another time."""
    causes = []
    codes = {p.code: p for p in noise_checked.problems}
    frame = noise_checked.frame
    a, b = noise_checked.a, noise_checked.b
    if "time" in frame.columns and frame.height:
        spans = _time_spans(frame, a, b)
        if spans is not None:
            (lo_a, hi_a), (lo_b, hi_b) = spans
            if hi_a < lo_b or hi_b < lo_a:
                first, second = (a, b) if hi_a < lo_b else (b, a)
                causes.append(f"a time drift: every run of '{first}' ran before every run of '{second}' "
                              f"({lo_a} to {hi_a} against {lo_b} to {hi_b})")
    if "not_alternated" in codes and not causes:
        causes.append("a time drift: in every item all runs of one value came before the other's")
    for setting in ("model", "temperature", "system"):
        if setting in frame.columns:
            va = set(frame.filter(pl.col("variant") == a)[setting].cast(pl.String).to_list())
            vb = set(frame.filter(pl.col("variant") == b)[setting].cast(pl.String).to_list())
            if va != vb:
                causes.append(f"a setting that varies: {setting} differs between the two values of the noise log")
    if "mixed_setting" in codes:
        causes.append(f"a setting that varies: {codes['mixed_setting'].message}")
    if "sorted_metric" in codes:
        causes.append("rows in metric order: " + codes["sorted_metric"].message)
    if not causes:
        causes.append("nothing in the log shows which; something besides the draw changed between the two values "
                      "(a setting not logged, the time of the runs, the order in which they were run)")
    # a placebo given as noise: its moving is a finding about the system, not a check that failed
    causes.append(f"or '{b}' is an edit rather than a repeat of '{a}': a meaningless edit (a typo, a blank line) "
                  "that moves the metric is a control, and its moving is a finding (the system reacts to any edit), "
                  f"not noise: give its runs with the log and name it with {opt('control', b)}")
    return causes


def _time_spans(frame: pl.DataFrame, a: str, b: str):
    t = frame["time"]
    if t.dtype == pl.String:
        t = t.str.to_datetime(strict=False, time_zone="UTC")
    if not (t.dtype.is_temporal() or t.dtype.is_numeric()) or t.null_count() == t.len():
        return None
    f = frame.with_columns(t.alias("__t"))
    out = []
    for v in (a, b):
        side = f.filter(pl.col("variant") == v)["__t"].drop_nulls()
        if not side.len():
            return None
        out.append((side.min(), side.max()))
    return out


def _warm_tests() -> None:
    """Import what the tests need (scipy.special: the binomial tail, the t quantile) in a thread,
    while the log is read: polars reads without holding the interpreter, so the import's few
    tenths of a second overlap the read instead of following it."""
    import sys
    import threading

    if "scipy.special" not in sys.modules:   # not a daemon: an import is never cut off at exit
        threading.Thread(target=__import__, args=("scipy.special",), name="probestats-warm-imports").start()


def check_common(alternative: str, alpha: float, correction: str) -> None:
    """Refuse an ``alternative``, ``alpha`` or ``correction`` no test can use (before any work)."""
    check_vocabulary(alternative=alternative, alpha=alpha, correction=correction)


def design_problems(main: PairResult, alpha: float) -> list[Problem]:
    """What a reader must be told about the design of a compared pair, from its item gaps alone:
    strongly skewed gaps at few items (``skewed_gaps``) and a design that can never reach
    significance (``never_significant``). The row log and a cell table give the same."""
    out: list[Problem] = []
    skew = gap_skewness(main.gaps) if len(main.gaps) <= SKEW_WARNING_MAX_N else 0.0
    if abs(skew) >= SKEW_WARNING:
        out.append(Problem(
            "warning", "skewed_gaps",
            f"the {len(main.gaps)} item gaps are strongly skewed (sample skewness {skew:+.2f}): the "
            f"{main.interval.method.split(' ')[0]} interval may cover less than {1 - alpha:.0%}; read it with "
            f"care, or use {opt('interval', 'sign-flip')} (the best worst-case coverage of the three intervals in "
            "benchmarks/coverage_interval.py); the sign-flip p does not assume normal gaps",
        ))
    n_nonzero = sum(1 for g in main.gaps if g != 0)
    if main.min_attainable_p > alpha:
        out.append(Problem(
            "warning", "never_significant",
            f"with {count_of(n_nonzero, 'non-zero item gap')} the smallest p the sign-flip test can give is "
            f"{main.min_attainable_p:.4g}, above alpha {alpha:g}: this design could never reach significance; add items",
        ))
    return out


def within_log_noise(checked: Checked, items: pl.DataFrame | None = None, *, blocks: Sequence[str] = (),
                     seed: int = 0, value: str | None = None, counts: pl.DataFrame | None = None,
                     places: int | None = None) -> tuple[pl.DataFrame | None, str | None]:
    """The probe's own same-versus-same comparison: the runs of ``value`` (default: value ``a``) in
    each cell (item, and ``blocks`` values) split into two halves drawn at random with ``seed``
    (:func:`probestats.analyses.halves.random_halves`: never by file or seed order), as the item
    table of a log of the two values ``"<value> (first half)"`` and ``"<value> (second half)"``.

    With ``items`` (the probe's item table), every one of its items must have two runs or more of
    ``value`` in each cell; without, the items that do are used, in the order of their first run.
    ``counts`` (the streaming pass's counts of each value in each cell, ``Streamed.halves``, in
    whole units of ``10**-places``) stands for the runs of ``checked.frame``, without blocks: the
    same halves, drawn from the counts (:func:`probestats.analyses.halves.half_sums`).

    Returns ``(item table, source label, None)``, or ``(None, None, reason)`` when no valid split
    exists (one run per cell: then the verdict rests on the exact test alone).

    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": s + (v == "b")}
    ...         for i in (1, 2) for v in "ab" for s in (4, 3, 2, 1)]
    >>> halves, source, _ = within_log_noise(validate(rows, metric="steps"))
    >>> print(source)  # doctest: +NORMALIZE_WHITESPACE
    within-log: the runs of value 'a' in each item split in two halves drawn at random,
    keyed by the cell's name and each run's value (seed 0)
    >>> halves["n_a"].to_list(), halves["n_b"].to_list()
    ([2, 2], [2, 2])
    """
    from probestats.analyses.halves import block_noun, blocked_item_table, random_halves

    metric = checked.metric
    value = checked.a if value is None else value
    cell = "item" + (f" and {block_noun(blocks, 1)}" if blocks else "")
    if metric is None:
        return None, None, "no metric"
    if counts is None:
        runs = checked.frame.filter((pl.col("variant") == value) & pl.col(metric).is_not_null())
        runs_per = runs.group_by("item", *blocks, maintain_order=True).len()
    else:   # the counts pool a cell's --by groups, as the runs of an item do
        runs = (counts.filter(pl.col("variant") == value).group_by("item", "__units", maintain_order=True)
                .agg(pl.col("__count").sum()))
        runs_per = runs.group_by("item", maintain_order=True).agg(pl.col("__count").sum().alias("len"))
    if items is not None:
        runs = runs.filter(pl.col("item").is_in(items["item"].implode()))
        runs_per = runs_per.filter(pl.col("item").is_in(items["item"].implode()))
        few = runs_per.height == 0 or runs_per["len"].min() < 2 or runs_per["item"].n_unique() < items.height
    else:
        keep = runs_per.group_by("item", maintain_order=True).agg((pl.col("len").min() >= 2).alias("ok")).filter("ok")
        runs = runs.filter(pl.col("item").is_in(keep["item"].implode()))
        few = keep.height == 0
    if few:
        return None, None, one_run_reason(value, cell)
    first, second = f"{value} (first half)", f"{value} (second half)"
    if counts is not None:
        table = _drawn_table(runs, seed, places)
    else:
        halves = random_halves(runs, metric, value, blocks=blocks, seed=seed)
        table = (blocked_item_table(halves, metric, first, second, blocks) if blocks
                 else item_table(halves, metric, first, second))
    # the items in the probe's order, or in the order of their first run of the value
    order = items.select("item") if items is not None else keep.select("item")
    table = order.join(table, on="item", how="inner", maintain_order="left")
    if items is not None and table.height != items.height:
        return None, None, f"some item has no run of '{value}' in both halves"
    what = "runs" if value == checked.a or checked.a is None else "repeats"
    return table, (f"within-log: the {what} of value '{value}' in each {cell} split in two halves drawn at random, "
                   f"keyed by the cell's name and each run's value (seed {seed})"), None


def _drawn_table(counts: pl.DataFrame, seed: int, places: int) -> pl.DataFrame:
    """The item table of the halves drawn from each item's counts of its values (``item``,
    ``__units``, ``__count``), with the numbers :func:`item_table` gives from the runs."""
    from probestats.analyses.halves import half_sums
    from probestats.checks.exact import moments

    drawn = half_sums(counts, ["item"], seed, places=places)
    n, n1 = drawn["counted"].cast(pl.Int64), drawn["n_first"].cast(pl.Int64)
    m1, d1 = moments(n1, drawn["__first_s"], drawn["__first_q"], places)
    m2, d2 = moments(n - n1, drawn["__s"] - drawn["__first_s"], drawn["__q"] - drawn["__first_q"], places)
    return pl.DataFrame([drawn["item"].cast(pl.String).alias("item"), m1.alias("mean_a"), m2.alias("mean_b"),
                         (m1 - m2).alias("gap"), n1.alias("n_a"), (n - n1).alias("n_b"), d1.alias("sd_a"),
                         d2.alias("sd_b")])


def noise_rows(noise_checked: Checked) -> pl.DataFrame:
    """The runs of a same-versus-same log as the noise model reads them: with one run per item and value
    no cell shows run-to-run noise, but both values are one condition, so each item's runs are one cell
    (the value column is dropped).
    """
    frame = noise_checked.frame
    if frame.height and frame.group_by("item", "variant").len()["len"].max() == 1:
        return frame.drop("variant")
    return frame


def _design_mdg(noise_checked, metric, main, alpha, alternative):
    """Minimum detectable gap of the design actually run, from the noise log."""
    from probestats.analyses.plan import RANGE_METHOD, design_mdg, gap_model, noise_model

    runs_a, runs_b = main.runs_per_value()
    single = noise_rows(noise_checked) is not noise_checked.frame
    model = noise_model(noise_rows(noise_checked), metric=metric)
    found = design_mdg(model, items=main.n_items, runs_a=runs_a, runs_b=runs_b, alpha=alpha, alternative=alternative)
    value, span = found.mdg, found.range
    method = (f"simulated power of the exact sign-flip test ({alternative}) ≥ 0.8 at alpha {alpha:g}, "
              f"{count_of(main.n_items, 'item')}, {runs_a}/{runs_b} runs per value, noise σ from the same-versus-same log, "
              "no heterogeneity between items assumed (an optimistic bound)")
    if single:
        method += "; one run per item and value in the noise log, so σ is pooled within items"
    if model.bounded:
        ends = ", ".join(f"{name} {bound:g}" for name, bound in (("floor", model.floor), ("ceiling", model.ceiling))
                         if bound is not None)
        method += (f"; the metric's {ends} is respected, so near it an item's gap stops at the bound "
                   f"(see {either('probestats.plan()', 'probestats plan')} for the gap a design really reaches)")
    method += f"; gap model {gap_model(model)}"
    extra = {"mdg_room": found.room, "mdg_near_bound": found.near_bound}
    if span is not None:
        method += f"; its range: {RANGE_METHOD}"
        extra.update(mdg_range=tuple(span), mdg_range_runs=4 * int(model.n_runs))
    return value, method, extra


def _jsonable(v):
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return str(v)


def _tag_noise(p: Problem) -> Problem:
    return replace(p, message=f"noise log: {p.message}")


#: The paired analysis under its former name (``probestats.analyze`` now dispatches; see
#: :func:`probestats.analyses.dispatch.analyze`).
analyze = analyze_pair
