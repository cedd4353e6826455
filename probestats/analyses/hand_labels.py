"""The coder's own error: a metric coded by a judge or a code book, checked against hand labels of a sample of runs.

``validation`` is a table of hand labels for some runs of the log, keyed as the log is: it holds the
metric's column (the hand label) and key columns the log has too (``run_id`` when both have one,
else every other column of the table, such as item, variant and seed). Each of its rows must match
one run of the log.

What it gives, beside the analysis of the coded metric:

- the **agreement** of the coded metric with the hand labels: a confusion table per value, Cohen's
  kappa and the raw agreement (overall and per value), and for a 0/1 metric the sensitivity,
  specificity and predictive values with exact intervals;
- for a 0/1 metric, the **gap corrected for the coder's error**, per value by its **predictive
  values**: each value's rate is re-estimated as

  rate = share coded 1 × P(truly 1 | coded 1) + share coded 0 × P(truly 1 | coded 0),

  the two probabilities measured on that value's validated runs, so a coder whose error differs by
  value (a judge biased by the attribute) is corrected too. This is the Rogan-Gladen idea read the
  other way round: Rogan-Gladen divides by sensitivity + specificity − 1, which is unstable when the
  coder is barely better than chance and gives rates outside 0..1, and needs a sample chosen at
  random or by the truth; the predictive values give rates within 0..1, never divide, and stay valid
  when the sample was chosen by the coded label (review 60 coded 1 and 60 coded 0). Its interval
  includes both uncertainties: a Monte Carlo over the log's items (a bootstrap, items resampled
  with their values, the resampled means widened by √(n/(n−1)), the factor by which resampling understates
  a mean's spread) and the validation (each predictive value drawn from its Beta distribution under a
  uniform prior, a smoothed bootstrap: a plain resample of a sample with no errors would never vary
  them), the percentile interval of ``n_resamples`` draws;
- the **verdict on the corrected gap**: detected when its interval excludes zero, with the size of
  the validation sample said.

Examples
--------
>>> rows = [{"item": i, "variant": v, "seed": s, "flip": int((i + s + (v == "a")) % 3 == 0)}
...         for i in range(20) for v in ("a", "b") for s in range(4)]
>>> hand = [dict(r) for r in rows[::4]]
>>> v = check_coding(rows, hand, metric="flip")
>>> v.n, v.kappa.statistic, v.corrected.average_gap == v.corrected.observed_gap
(40, 1.0, True)
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import polars as pl

from probestats.analyses.paired import Analysis
from probestats.analyses.verdict import with_caveats
from probestats.checks.design_facts import Caveat
from probestats.errors import ColumnError, OptionError, Problem, opt
from probestats.io.columns import ROW
from probestats.result import Result, html_summary, jsonable, one_line
from probestats.stats.agreement import cohens_kappa, exact_proportion
from probestats.vocabulary import check_vocabulary

__all__ = ["CodingCheck", "CorrectedGap", "ValueAgreement", "ValidatedAnalysis", "check_coding", "with_validation"]

#: the Beta prior's counts the predictive values are drawn with: 1 and 1, the uniform prior's (Jeffreys' 1/2 and 1/2
#: covered the true gap in 94.0% of 500 null logs of benchmarks/validation_coverage.py, 1 and 1 in 95.6%)
PRIOR = 1.0


class _Record:
    def to_dict(self) -> dict:
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class ValueAgreement(_Record):
    """How the coded metric agrees with the hand labels under one value.

    Attributes
    ----------
    value : str
        The value (``None`` for the whole validation sample).
    n : int
        Validated runs of the value.
    confusion : dict
        Coded label -> {hand label -> runs}.
    kappa : Kappa
        Cohen's kappa and the raw agreement of the coded metric with the hand labels.
    sensitivity, specificity : Proportion or None
        Of the runs truly 1, the share coded 1; of those truly 0, the share coded 0 (0/1 metrics only).
    ppv, npv : Proportion or None
        Of the runs coded 1, the share truly 1; of those coded 0, the share truly 0 (0/1 metrics only).
    """

    value: str | None
    n: int
    confusion: dict
    kappa: object
    sensitivity: object = None
    specificity: object = None
    ppv: object = None
    npv: object = None


@dataclass(frozen=True)
class CorrectedGap(_Record):
    """The gap of a 0/1 metric corrected for the coder's error (see the module docstring).

    Attributes
    ----------
    a, b : str
        The compared values (gap = rate under a − rate under b).
    observed_gap : float
        The average item gap of the coded metric.
    average_gap : float
        The average item gap corrected by each value's predictive values.
    rates : dict
        Value -> {"observed", "corrected"}: the mean over items of each value's rate.
    low, high : float
        The percentile interval of the corrected gap at ``confidence``.
    confidence : float
        The interval's level (1 − alpha).
    n_items : int
        Items with runs under both values.
    n_resamples, seed : int
        The Monte Carlo draws and their seed.
    method : str
        The correction and its interval, in words.
    """

    a: str
    b: str
    observed_gap: float
    average_gap: float
    rates: dict
    low: float
    high: float
    confidence: float
    n_items: int
    n_resamples: int
    seed: int
    method: str


@dataclass(frozen=True)
class CodingCheck(_Record):
    """A coded metric checked against hand labels of a sample of runs.

    Attributes
    ----------
    metric : str
        The coded metric.
    source : str
        Where the hand labels came from.
    keys : tuple of str
        The columns that matched each hand-labelled run to a run of the log.
    n : int
        Validated runs.
    n_runs : int
        Runs of the log (the share validated is ``n / n_runs``).
    binary : bool
        The metric is 0/1 (error rates and the corrected gap are given).
    kappa : Kappa
        Cohen's kappa of the coded metric with the hand labels over every validated run.
    values : tuple of ValueAgreement
        The agreement per value, the whole sample first (value None).
    corrected : CorrectedGap or None
        The corrected gap (a 0/1 metric compared between two values, the validation sample holding runs of every
        value and coded label the log has).
    problems : tuple of Problem
        What a reader must be told: ``uncovered_stratum`` where the sample holds no run of a value and coded label
        the log has (then ``corrected`` is None: a rate of runs nothing validated would come from the prior
        alone), ``not_corrected`` for a metric that is not 0/1.
    """

    metric: str
    source: str
    keys: tuple
    n: int
    n_runs: int
    binary: bool
    kappa: object
    values: tuple
    corrected: object
    problems: tuple

    def __repr__(self) -> str:
        return one_line(self, metric=self.metric, n=self.n, kappa=self.kappa.statistic,
                        corrected_gap=None if self.corrected is None else self.corrected.average_gap)

    def _repr_html_(self) -> str:
        return html_summary(self, None, metric=self.metric, n=self.n, kappa=self.kappa.statistic)


def _read_hand(validation, metric: str) -> tuple[pl.DataFrame, str]:
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.io.read import read_log

    source = str(validation) if not isinstance(validation, (list, tuple, pl.DataFrame)) else "the validation table"
    hand = read_log(validation, metric=metric)
    frame = hand.frame
    frame = frame.drop(ROW) if ROW in frame.columns else frame
    if metric not in frame.columns:
        raise ColumnError(f"{opt('validation', source)}: no column '{metric}' holding the hand labels; columns "
                          f"seen: {', '.join(frame.columns)} (the table names the metric's column as the log does)")
    return frame, source


def _keys(hand: pl.DataFrame, log_columns, metric: str) -> tuple[str, ...]:
    if "run_id" in hand.columns and "run_id" in log_columns:
        return ("run_id",)
    keys = tuple(c for c in hand.columns if c != metric and c in log_columns)
    if not keys:
        raise ColumnError(f"{opt('validation')}: the table shares no column with the log but the hand labels "
                          f"({', '.join(hand.columns)}); key each run as the log does (run_id, or item, variant "
                          "and seed)")
    return keys


def _text(expr: pl.Expr) -> pl.Expr:
    return expr.cast(pl.String).str.strip_chars()


def _matched(frame: pl.DataFrame, hand: pl.DataFrame, keys, metric: str, source: str) -> pl.DataFrame:
    """The hand-labelled runs: each row's value, item, coded label and hand label."""
    k = [f"\0k{i}" for i in range(len(keys))]
    runs = frame.with_columns([_text(pl.col(c)).alias(t) for c, t in zip(keys, k)])
    labelled = hand.select([_text(pl.col(c)).alias(t) for c, t in zip(keys, k)] + [pl.col(metric).alias("\0hand")])
    counts = runs.group_by(k).len()
    doubled = labelled.join(counts, on=k, how="left").filter(pl.col("len") > 1)
    if doubled.height:
        raise OptionError(f"{opt('validation', source)}: a hand-labelled run matches {doubled['len'][0]} runs of the "
                          f"log on {', '.join(keys)}; key each run so it matches one (add run_id or seed)")
    joined = labelled.join(runs, on=k, how="left")
    lost = joined.filter(pl.col("variant").is_null())
    if lost.height:
        shown = ", ".join(str(tuple(r)) if len(r) > 1 else repr(r[0]) for r in lost.select(k).head(3).rows())
        raise OptionError(f"{opt('validation', source)}: {lost.height} hand-labelled runs match no run of the log on "
                          f"{', '.join(keys)} ({shown}); fix their keys or leave them out")
    return joined


def _label(value) -> str | None:
    if value is None or (isinstance(value, float) and value != value):
        return None
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip() or None


def _is_binary(labels) -> bool:
    return set(labels) <= {"0", "1"}


def _agreement(value, sub: pl.DataFrame, metric: str, confidence: float, binary: bool) -> ValueAgreement:
    coded = [_label(x) for x in sub[metric].to_list()]
    hand = [_label(x) for x in sub["\0hand"].to_list()]
    confusion: dict = {}
    for c, h in zip(coded, hand):
        if c is not None and h is not None:
            confusion.setdefault(c, {}).setdefault(h, 0)
            confusion[c][h] += 1
    kappa = cohens_kappa(coded, hand, confidence=confidence)
    extra = {}
    if binary:
        def n(c, h):
            return confusion.get(c, {}).get(h, 0)

        extra = dict(sensitivity=exact_proportion(n("1", "1"), n("1", "1") + n("0", "1"), confidence=confidence),
                     specificity=exact_proportion(n("0", "0"), n("0", "0") + n("1", "0"), confidence=confidence),
                     ppv=exact_proportion(n("1", "1"), n("1", "1") + n("1", "0"), confidence=confidence),
                     npv=exact_proportion(n("0", "0"), n("0", "0") + n("0", "1"), confidence=confidence))
    return ValueAgreement(value=value, n=kappa.n, confusion=confusion, kappa=kappa, **extra)


def check_coding(log, validation, *, metric: str, a: str | None = None, b: str | None = None, alpha: float = 0.05,
                 n_resamples: int = 10_000, seed: int = 0) -> CodingCheck:
    """Check a coded metric against hand labels of some runs, and correct the gap of a 0/1 metric for the error.

    Parameters
    ----------
    log : Log, path, list of dict or DataFrame
        The (shaped) log with the coded metric.
    validation : path, list of dict or DataFrame
        The hand labels, keyed as the log is (see the module docstring).
    metric : str
        The coded metric (the hand labels are in the validation table's column of that name).
    a, b : str, optional
        The compared values of the corrected gap (default: the first two values of the log).
    alpha : float
        The corrected gap's interval is at 1 − alpha; the same for kappa and the proportions.
    n_resamples, seed
        The Monte Carlo draws of the corrected gap's interval.
    """
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.io.read import read_log

    check_vocabulary(alpha=alpha, n_resamples=n_resamples, seed=seed)
    log = read_log(log)
    frame = log.frame
    for name in ("item", "variant", metric):
        if name not in frame.columns:
            raise ColumnError(f"{opt('validation')} needs the log's {name} column; columns seen: "
                              f"{', '.join(c for c in frame.columns if not c.startswith('_'))}")
    hand, source = _read_hand(validation, metric)
    keys = _keys(hand, frame.columns, metric)
    joined = _matched(frame, hand, keys, metric, source)
    joined = joined.with_columns(_text(pl.col("variant")).alias("\0value"))
    confidence = 1 - alpha
    coded_levels = {_label(x) for x in frame[metric].to_list()} - {None}
    hand_levels = {_label(x) for x in joined["\0hand"].to_list()} - {None}
    binary = _is_binary(coded_levels | hand_levels)
    values = _text(pl.col("variant"))
    order = frame.select(values.alias("v")).filter(pl.col("v").is_not_null())["v"].unique(maintain_order=True).to_list()
    whole = _agreement(None, joined, metric, confidence, binary)
    per = [_agreement(v, joined.filter(pl.col("\0value") == v), metric, confidence, binary) for v in order]
    problems: list[Problem] = []
    corrected = None
    if binary and len(order) >= 2:
        a = a if a is not None else order[0]
        b = b if b is not None else next(v for v in order if v != a)
        for v in (a, b):
            if v not in order:
                raise OptionError(f"{opt('a' if v == a else 'b', v)}: no such value in the log; values: "
                                  f"{', '.join(order)}")
        corrected = _corrected(frame, metric, {x.value: x for x in per}, a, b, confidence, n_resamples, seed,
                               problems)
    elif not binary:
        problems.append(Problem("warning", "not_corrected",
                                f"{metric} is not a 0/1 metric: its agreement with the hand labels is shown, but "
                                "no correction of the gap for the coder's error is made"))
    return CodingCheck(metric=metric, source=source, keys=keys, n=whole.n, n_runs=frame.height, binary=binary,
                       kappa=whole.kappa, values=(whole, *per), corrected=corrected, problems=tuple(problems))


def _item_rates(frame: pl.DataFrame, metric: str, a: str, b: str) -> tuple[np.ndarray, np.ndarray]:
    x = frame.select(_text(pl.col("item")).alias("i"), _text(pl.col("variant")).alias("v"),
                     pl.col(metric).cast(pl.Float64, strict=False).alias("x")).filter(pl.col("x").is_not_null())
    means = x.filter(pl.col("v").is_in([a, b])).group_by("i", "v", maintain_order=True).agg(pl.col("x").mean())
    wide = means.pivot(on="v", index="i", values="x").drop_nulls()
    return wide[a].to_numpy(), wide[b].to_numpy()


def _coded_runs(frame: pl.DataFrame, metric: str, value: str) -> dict:
    """The runs of ``value`` the log codes 1 and 0 (blank runs aside)."""
    labels = [_label(x) for x in frame.filter(_text(pl.col("variant")) == value)[metric].to_list()]
    return {"1": labels.count("1"), "0": labels.count("0")}


def uncovered_problem(uncovered, a: str, b: str) -> Problem:
    """The ``uncovered_stratum`` warning: the strata (value, coded label, the log's runs in it) the validation
    sample holds no run of, so no corrected rate or gap is given.

    >>> print(uncovered_problem([("a", "0", 180), ("b", "0", 190)], "a", "b").message)
    the validation sample holds no run coded 0 under 'a' (180 runs in the log) nor coded 0 under 'b' (190 runs): how often such runs are truly 1 is unknown, so no corrected rate is given for 'a' or 'b', and no corrected gap; validate a sample of every value's runs coded 1 and coded 0 (such as 30 of each)
    """
    parts = [f"coded {label} under {v!r} ({n} runs{' in the log' if i == 0 else ''})"
             for i, (v, label, n) in enumerate(uncovered)]
    values = sorted({v for v, _, _ in uncovered}, key=[a, b].index)
    return Problem("warning", "uncovered_stratum",
                   f"the validation sample holds no run {' nor '.join(parts)}: how often such runs are truly 1 is "
                   f"unknown, so no corrected rate is given for {' or '.join(repr(v) for v in values)}, and no "
                   f"corrected gap; validate a sample of every value's runs coded 1 and coded 0 (such as 30 of each)")


def _corrected(frame, metric, agree, a, b, confidence, n_resamples, seed, problems) -> CorrectedGap | None:
    qa, qb = _item_rates(frame, metric, a, b)
    if len(qa) == 0:
        raise OptionError(f"{opt('validation')}: no item has runs under both {a!r} and {b!r}")
    rng = np.random.default_rng(seed)
    draws = {}
    points = {}
    coded = {v: _coded_runs(frame, metric, v) for v in (a, b)}
    uncovered = []
    for v in (a, b):
        g = agree[v]
        for label, p in (("1", g.ppv), ("0", g.npv)):
            if p.n == 0 and coded[v][label]:   # runs the log has and nothing validated: their truth is unknown
                uncovered.append((v, label, coded[v][label]))
    if uncovered:
        problems.append(uncovered_problem(uncovered, a, b))
        return None
    for v in (a, b):
        g = agree[v]
        ppv, npv = g.ppv, g.npv
        # P(truly 1 | coded 1) and P(truly 1 | coded 0), point estimates and draws under a uniform prior; a label
        # the log never codes under v weighs 0 in its rate, so its (unmeasured) probability is never read
        t1_c1 = ppv.estimate if ppv.n else 0.5
        t1_c0 = 1 - npv.estimate if npv.n else 0.5
        points[v] = (t1_c1, t1_c0)
        draws[v] = (rng.beta(ppv.successes + PRIOR, ppv.n - ppv.successes + PRIOR, n_resamples),
                    rng.beta(npv.n - npv.successes + PRIOR, npv.successes + PRIOR, n_resamples))

    def rate(q, v, t):
        return q * t[0] + (1 - q) * t[1]

    observed = float(np.mean(qa - qb))
    corrected = float(np.mean(rate(qa, a, points[a]) - rate(qb, b, points[b])))
    n = len(qa)
    items = np.lexsort((qb, qa))   # the items drawn in an order of their rates, not the log's
    qa, qb = qa[items], qb[items]
    picks = rng.integers(0, n, size=(n_resamples, n))
    # resampled means vary (n - 1) / n as much as a mean does: widened back by that factor
    widen = np.sqrt(n / (n - 1)) if n > 1 else 1.0
    ma = qa.mean() + (qa[picks].mean(axis=1) - qa.mean()) * widen
    mb = qb.mean() + (qb[picks].mean(axis=1) - qb.mean()) * widen
    gaps = rate(ma, a, draws[a]) - rate(mb, b, draws[b])
    low, high = (float(x) for x in np.quantile(gaps, [(1 - confidence) / 2, (1 + confidence) / 2]))
    rates = {v: {"observed": float(q.mean()), "corrected": float(rate(q, v, points[v]).mean())}
             for v, q in ((a, qa), (b, qb))}
    method = (f"each value's rate re-estimated by its predictive values on the validated runs (share coded 1 × "
              f"P(truly 1 | coded 1) + share coded 0 × P(truly 1 | coded 0)); percentile interval of "
              f"{n_resamples:,} Monte Carlo draws resampling the {n} items (the resampled means widened by "
              f"sqrt(n / (n - 1))) and drawing each predictive value from its Beta distribution under a uniform prior "
              f"(seed {seed})")
    return CorrectedGap(a=a, b=b, observed_gap=observed, average_gap=corrected, rates=rates, low=low, high=high,
                        confidence=confidence, n_items=n, n_resamples=n_resamples, seed=seed, method=method)


@dataclass(frozen=True)
class ValidatedAnalysis(_Record, Result):
    """An analysis of a coded metric with its hand-checked sample: the verdict is the corrected one.

    Attributes
    ----------
    analysis : Analysis
        The analysis of the coded metric as coded.
    validation : CodingCheck
        Its agreement with the hand labels and the corrected gap.
    verdict : Verdict
        The verdict on the corrected gap (on the coded gap when no correction could be made), with the
        validation sample's size among its caveats.
    """

    MAIN_TABLE = "items"

    def _headline(self):
        return self.analysis._headline()

    def _interval(self):
        return self.analysis.interval

    analysis: object
    validation: object
    verdict: object

    @property
    def pvalue(self):
        return self.analysis.pvalue

    def to_dict(self) -> dict:
        out = self.analysis.to_dict()
        out["uncorrected_verdict"] = out.get("verdict")
        out["verdict"] = jsonable(self.verdict)
        out["validation"] = self.validation.to_dict()
        return out

    def to_frame(self) -> pl.DataFrame:
        return self.analysis.to_frame()

    def __repr__(self) -> str:
        c = self.validation.corrected
        return one_line(self, metric=self.validation.metric, n_validated=self.validation.n,
                        corrected_gap=None if c is None else c.average_gap, detected=self.verdict.detected)

    def _repr_html_(self) -> str:
        return html_summary(self, self.to_frame(), metric=self.validation.metric, n_validated=self.validation.n,
                            detected=self.verdict.detected)


CORRECTED_STATEMENTS = {
    "detected": "a gap larger than chance, once corrected for the coder's error",
    "within_noise": ("a gap larger than chance once corrected for the coder's error, but no larger than the "
                     "same-versus-same gap, so it cannot be told from noise"),
    "not_detected": ("no gap shown once the coded metric is corrected for the coder's error (this does not show "
                     "that there is none)"),
}


def with_validation(analysis, validation, *, n_resamples: int = 10_000, seed: int = 0) -> ValidatedAnalysis:
    """The analysis of a coded metric beside its hand-checked sample, with the verdict on the corrected gap."""
    from dataclasses import replace

    if not isinstance(analysis, Analysis):
        raise OptionError(f"{opt('validation')} applies to a comparison of two values; choose them with "
                          f"{opt('a')} and {opt('b')}")
    metric = analysis.main.metric
    check = check_coding(analysis.checked.log, validation, metric=metric, a=analysis.main.a, b=analysis.main.b,
                         alpha=analysis.alpha, n_resamples=n_resamples, seed=seed)
    old = analysis.verdict
    size = (f"the coded {metric} was checked against hand labels of {check.n} of {check.n_runs} runs "
            f"(kappa {_fmt(check.kappa.statistic)})")
    c = check.corrected
    if c is None:
        why = next((p.message for p in check.problems if p.code == "uncovered_stratum"), None)
        text = size[0].upper() + size[1:] + ("; no correction was made." if why is None else
                                             f"; no correction was made: {why.split('; validate')[0]}.")
        verdict = with_caveats(old, Caveat("coded_metric_checked", text,
                                           {"n": check.n, "n_runs": check.n_runs, "covered": why is None},
                                           summary=why is not None))
        return ValidatedAnalysis(analysis=analysis, validation=check, verdict=verdict)
    detected = c.low > 0 or c.high < 0
    conclusion = "not_detected" if not detected else "within_noise" if old.beyond_noise is False else "detected"
    caveat = Caveat("coded_metric_corrected",
                    size[0].upper() + size[1:] + f": the verdict rests on the gap corrected for the coder's error, "
                    f"{_fmt(c.average_gap)} ({c.confidence:.0%} interval {_fmt(c.low)} to {_fmt(c.high)}), not on "
                    f"the coded gap ({_fmt(c.observed_gap)}).",
                    {"n": check.n, "n_runs": check.n_runs, "corrected_gap": c.average_gap, "low": c.low,
                     "high": c.high, "coded_gap": c.observed_gap}, summary=False)
    verdict = with_caveats(old, caveat, detected=detected, conclusion=conclusion,
                           statement=CORRECTED_STATEMENTS[conclusion],
                           test="the interval of the gap corrected for the coder's error by the hand-checked sample")
    return ValidatedAnalysis(analysis=analysis, validation=check, verdict=verdict)


def _fmt(x) -> str:
    if x is None:
        return "n/a"
    return f"{x:.3f}"
