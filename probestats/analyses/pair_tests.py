"""The tests of one item table: two values compared over matched items (:func:`compare_pair`, giving a
:class:`PairResult`): the exact sign-flip and sign tests, an interval for the average gap, the smallest
attainable p, and beside them the effect sizes and the published tests; with unequal runs per value, the
exact within-item permutation. Also what a reader must be told of that design from its gaps alone
(:func:`design_problems`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import polars as pl

from probestats.errors import Problem, ProbestatsError, count_of, either, opt
from probestats.stats.effects import BCA_MAX_ITEMS, Effects, effect_sizes
from probestats.stats.exact import mean_of_combination
from probestats.stats.hypotests import (SKEW_WARNING, SKEW_WARNING_MAX_N, Interval, TestResult, gap_interval,
                                        gap_skewness, mean_interval, min_attainable_p, sign_flip_test,
                                        sign_test)
from probestats.stats.permutation import PERMUTATION_TEST, arms_unequal, within_item_permutation_test
from probestats.stats.published import paired_published
from probestats.stats.resample import check_bootstrap_memory
from probestats.vocabulary import Tests


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
    mean_intervals : tuple of Interval or None
        The intervals of the average of ``a``'s and of ``b``'s item means when they are not the Student t ones
        (the bootstrap the gap's interval uses with ``interval='bootstrap'`` or ``'percentile'``, the
        cluster-level t with ``cluster=``); None: :meth:`value_means` computes the t intervals.
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
    mean_intervals: tuple | None = None

    def value_means(self) -> tuple[tuple[str, float, Interval], tuple[str, float, Interval]]:
        """Each value's average of its item means with its interval: ``((a, mean, interval), (b, mean, interval))``.

        The interval is the Student t interval on the item means (``n_items − 1`` degrees of freedom) at the
        confidence of the gap's interval, or the one :attr:`mean_intervals` holds (the bootstrap the gap's
        interval uses, or the cluster-level t of clustered items).
        """
        confidence = self.interval.confidence
        out = []
        for k, (value, column) in enumerate(((self.a, "mean_a"), (self.b, "mean_b"))):
            col = self.items[column] if column in self.items.columns else None
            x = [float(v) for v in col.to_list()] if col is not None and col.null_count() == 0 else []
            mean = math.fsum(x) / len(x) if x else float("nan")
            iv = (self.mean_intervals[k] if self.mean_intervals is not None
                  else mean_interval(x, confidence=confidence, center=mean))
            out.append((value, mean, iv))
        return tuple(out)

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
            "means": {key: {"value": value, "mean": _num(mean), "n_items": self.n_items,
                            "interval": _interval_dict(iv)}
                      for key, (value, mean, iv) in zip(("a", "b"), self.value_means())},
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


def _interval_dict(iv: Interval) -> dict:
    """An interval's JSON object (an open end is null)."""
    return {"low": _num(iv.low), "high": _num(iv.high), "confidence": iv.confidence, "method": iv.method,
            "assumption": iv.assumption}


def _with_statistic(test, average: float):
    """The test with its statistic (the observed mean gap) as the exact average gap computed beside it."""
    return replace(test, statistic=average) if math.isfinite(average) else test


#: item gaps all smaller than this (and not all 0) are refused: their squares fall below the smallest normal float
#: (2.2e-308), so variances, t and the effect sizes lose their digits or divide by 0
TINY = 1e-150


def refuse_tiny(gaps, means, metric: str) -> None:
    """Refuse item gaps too small to square (subnormal numbers such as 5e-324), with the scaling that fixes it.

    >>> refuse_tiny([0.0, 1e-3], [0.0, 1.0], "score")
    >>> refuse_tiny([-5e-324, 1e-323], [0.0, 1e-323], "score")
    Traceback (most recent call last):
    ...
    probestats.errors.ProbestatsError: the item gaps of 'score' are at most 9.88e-324 in size, too small to compute with (their squares fall below the smallest normal number, 2.2e-308); rescale the metric with derive='score_scaled = score * 1e300' and metric='score_scaled'
    """
    sizes = [abs(g) for g in gaps if g is not None and g == g]
    largest = max(sizes, default=0.0)
    if not 0 < largest < TINY:
        return
    top = max((abs(m) for m in means if m is not None and m == m), default=largest)
    power = min(300, max(1, -math.floor(math.log10(top)))) if top > 0 else 300   # the largest mean to about 1
    name = f"{metric}_scaled"
    raise ProbestatsError(f"the item gaps of '{metric}' are at most {largest:.3g} in size, too small to compute with "
                          "(their squares fall below the smallest normal number, 2.2e-308); rescale the metric with "
                          f"{opt('derive', f'{name} = {metric} * 1e{power}')} and {opt('metric', name)}")


def compare_pair(items: pl.DataFrame, metric: str, a: str, b: str, tests: Tests | None = None, *,
                 by: dict | None = None, units: dict | None = None, effects: Effects | None = None) -> PairResult:
    """Tests for one item table: sign-flip, sign test, interval, smallest attainable p, and beside them
    the effect sizes and the published tests (paired t, Wilcoxon), run as the ``tests`` ask (the defaults
    without them): their direction, the level (the interval's confidence is ``1 - alpha``), the interval of the
    average gap, Hedges' correction, and the ``n_resamples`` and ``seed`` of every bootstrap and a Monte Carlo
    permutation. ``by`` names the group the table is (a ``--by`` group or a block).

    ``units`` (item -> (value a's runs, value b's runs), :func:`item_units`, or a list of such pairs, one per
    block the item was matched in): when the two values' runs per
    item differ by design (:func:`probestats.stats.permutation.arms_unequal`: 1 run against 3, not a run or two
    missing from a balanced design), the headline test is the exact within-item permutation of the value
    labels (``permutation``), and the sign-flip, sign, Wilcoxon and paired t tests, whose null needs a gap
    symmetric about zero, are not tests of the design (``not_applicable``; ``published`` is left empty).

    ``effects``: the effect sizes of these items computed already, with those of other groups
    (:func:`probestats.stats.effects.effect_sizes_many`, the same numbers).
    """
    tests = Tests() if tests is None else tests
    alternative, confidence, interval = tests.alternative, 1 - tests.alpha, tests.gap_interval
    hedges, n_resamples, seed = tests.hedges, tests.n_resamples, tests.seed
    gaps = items["gap"].to_list()
    odd = [str(i) for i, g in zip(items["item"], gaps) if g is None or not math.isfinite(g)]
    if odd:  # finite values whose difference overflows, such as 1e308 and -1e308
        raise ProbestatsError(f"the gap of item {', '.join(odd[:5])} is not a finite number; "
                              f"rescale the metric '{metric}' (its values are too large to subtract)")
    refuse_tiny(gaps, [*items["mean_a"].to_list(), *items["mean_b"].to_list()] if "mean_a" in items.columns
                else [], metric)

    # d_av's bootstrap (two samples, up to BCA_MAX_ITEMS items) and a bootstrap interval of the gaps: bounded
    # before any test is run
    check_bootstrap_memory(int(n_resamples), max(1, min(len(gaps), BCA_MAX_ITEMS)), 2)
    if interval in ("bootstrap", "percentile"):
        check_bootstrap_memory(int(n_resamples), max(1, len(gaps)), 1)
    n_nonzero = sum(1 for g in gaps if g != 0)

    # the difference of the exact sums of the item means: no float residue when the means are equal (the effect
    # sizes computed already hold it, from the same columns)
    exact = (gaps and "mean_a" in items.columns and items["mean_a"].null_count() == 0
             and items["mean_b"].null_count() == 0)
    average = ((effects.mean_gap if effects is not None else
                mean_of_combination([(1, items["mean_a"].to_list()), (-1, items["mean_b"].to_list())]))
               if exact else sum(gaps) / len(gaps) if gaps else float("nan"))
    method = interval
    if len(gaps) >= 2 and not (method in ("bootstrap", "percentile") and len(gaps) < 3):
        interval = gap_interval(gaps, confidence=confidence, method=method, n_resamples=n_resamples, seed=seed)
    elif len(gaps) >= 2:   # a bootstrap of two gaps says nothing; the t interval stands in, named as such
        interval = gap_interval(gaps, confidence=confidence)
    else:  # a t interval needs a spread of item gaps, which one item cannot give
        interval = Interval(-math.inf, math.inf, confidence,
                            f"no interval: {len(gaps)} item gap has no spread; add items")
    mean_intervals = None
    if method in ("bootstrap", "percentile") and len(gaps) >= 3:   # each value's mean by the same bootstrap
        mean_intervals = tuple(_means_by(gap_interval(items[c].to_list(), confidence=confidence, method=method,
                                                      n_resamples=n_resamples, seed=seed))
                               for c in ("mean_a", "mean_b"))
    permutation = not_applicable = None
    published = paired_published(items["mean_a"].to_numpy(), items["mean_b"].to_numpy(), alternative)
    if units is not None and items.height and arms_unequal(items["n_a"].to_list(), items["n_b"].to_list()):
        strata = [cell for i in items["item"].to_list()   # an item's cells: one, or one per block it was matched in
                  for cell in (units[i] if isinstance(units[i], list) else [units[i]])]
        permutation = within_item_permutation_test(strata, alternative=alternative, n_resamples=n_resamples,
                                                   seed=seed)
        if len(strata) > items.height:
            permutation = replace(permutation, method=f"{permutation.method}; the labels permuted within each item x "
                                                      f"block cell ({len(strata)} cells), the statistic their mean gap")
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
        effects=effects if effects is not None else effect_sizes(
            items["mean_a"].to_numpy(), items["mean_b"].to_numpy(), confidence=confidence, hedges=hedges,
            n_resamples=n_resamples, seed=seed),
        published=published,
        mean_intervals=mean_intervals,
    )


def _means_by(iv: Interval) -> Interval:
    """A bootstrap interval of a value's item means, its method naming them (the gaps' computation, on means)."""
    return replace(iv, method=iv.method.replace("item gaps", "item means"))


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
            f"care, or use {either('Tests(interval=' + repr('sign-flip') + ')', opt('interval', 'sign-flip'))} (the best worst-case coverage of the three intervals on "
            "generated logs of skewed gaps); the sign-flip p does not assume normal gaps",
        ))
    n_nonzero = sum(1 for g in main.gaps if g != 0)
    if main.min_attainable_p > alpha:
        out.append(Problem(
            "warning", "never_significant",
            f"with {count_of(n_nonzero, 'non-zero item gap')} the smallest p the sign-flip test can give is "
            f"{main.min_attainable_p:.4g}, above alpha {alpha:g}: this design could never reach significance; add items",
        ))
    return out


