"""Tests on runs, as studies whose runs are independent samples publish them.

Where every call is a fresh draw (temperature 1, a fresh context), studies report tests that treat each
run as one observation: Welch's and Student's t, a two-sample Cohen's d and Hedges' g with their intervals,
one- and two-way ANOVA and OLS with the interaction. Each is computed here as its library computes it, and
named with what it assumes:

* **Welch's t** and **Student's t** (``scipy.stats.ttest_ind``, ``equal_var`` False and True), with the
  interval of the difference of the means each implies (``.confidence_interval()``), and each value's mean
  with its Student t interval on its runs;
* **Cohen's d** on the pooled standard deviation, ``(mean_a − mean_b) / s_p``, its interval the exact one of
  the noncentral t (Student's t is ``d · sqrt(n_a n_b / (n_a + n_b))``, noncentral under a true d; the
  noncentrality's ends by :func:`~probestats.stats.effects.noncentrality_interval`), and **Hedges' g**,
  ``J(n_a + n_b − 2) · d`` with the exact ``J`` (:func:`~probestats.stats.effects.hedges_j`), its interval
  ``J`` times d's;
* **ANOVA** (``statsmodels.stats.anova.anova_lm``, Type II sums of squares) of the runs on the value, and
  with a second factor on the value, the factor and their interaction;
* **OLS** of the runs on the same terms (``statsmodels.formula.api.ols``) with cluster-robust standard errors
  (``fit(cov_type="cluster")``, clusters the items by default): the one model here that allows runs of one
  item to be alike.

statsmodels is imported only when :func:`run_models` runs.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, fields

import numpy as np

from probestats.errors import caught_warnings
from probestats.result import jsonable
from probestats.stats.distributions import t_ppf
from probestats.stats.effects import hedges_j, noncentrality_interval
from probestats.stats.hypotests import Interval
from probestats.stats.published import PublishedTest, student_t, welch_t

__all__ = ["RUN_ASSUMPTIONS", "RunEffect", "TwoSamples", "AnovaRow", "Coefficient", "RunModels", "SecondFactor",
           "two_samples", "run_intervals", "run_models"]

RUN_ASSUMPTIONS = {
    "mean": "the runs of the value are independent draws, their mean roughly normal",
    "welch difference": "the runs are independent draws, their means roughly normal; the two values' "
                        "spreads may differ (Welch–Satterthwaite degrees of freedom)",
    "student difference": "the runs are independent draws from two normal populations of equal spread",
    "cohen": "the runs are independent draws from two normal populations of equal spread (exact under that "
             "assumption)",
    "anova": "the runs are independent draws, normal within each cell with one spread across cells",
    "ols": "the runs of different clusters are independent (runs of one cluster may be alike); with few "
           "clusters the standard errors are too small",
}


@dataclass(frozen=True)
class RunEffect:
    """A two-sample effect size on runs with its interval.

    Attributes
    ----------
    name : {"cohen_d", "hedges_g"}
    value : float or None
        None when undefined (no spread in the runs).
    interval : Interval
    formula : str
    assumption : str
    """

    name: str
    value: float | None
    interval: Interval
    formula: str
    assumption: str = RUN_ASSUMPTIONS["cohen"]

    def to_dict(self) -> dict:
        return {"name": self.name, "value": jsonable(self.value), "interval": self.interval.to_dict(),
                "formula": self.formula, "assumption": self.assumption}


@dataclass(frozen=True)
class TwoSamples:
    """Two values' runs compared as two independent samples.

    Attributes
    ----------
    n_a, n_b : int
    mean_a, mean_b : float
    mean_a_interval, mean_b_interval : Interval
        Student t on each value's runs.
    difference : float
        ``mean_a − mean_b``.
    welch, student : PublishedTest
    welch_interval, student_interval : Interval
        The interval of the difference each test implies (scipy's ``confidence_interval``).
    cohen_d, hedges_g : RunEffect
    """

    n_a: int
    n_b: int
    mean_a: float
    mean_b: float
    mean_a_interval: Interval
    mean_b_interval: Interval
    difference: float
    welch: PublishedTest
    student: PublishedTest
    welch_interval: Interval
    student_interval: Interval
    cohen_d: RunEffect
    hedges_g: RunEffect


def _open(confidence: float, why: str) -> Interval:
    return Interval(-math.inf, math.inf, confidence, f"no interval: {why}")


def _mean_interval(x: np.ndarray, confidence: float) -> Interval:
    n = int(x.size)
    if n < 2:
        return _open(confidence, f"{n} run gives no spread")
    half = t_ppf(n - 1, 0.5 + confidence / 2.0) * float(np.std(x, ddof=1)) / math.sqrt(n)
    mean = float(np.mean(x))
    return Interval(mean - half, mean + half, confidence,
                    f"Student t on {n} runs ({n - 1} degree{'s' if n != 2 else ''} of freedom)",
                    RUN_ASSUMPTIONS["mean"])


def _difference_interval(xa: np.ndarray, xb: np.ndarray, equal_var: bool, confidence: float) -> Interval:
    from scipy.stats import ttest_ind

    key = "student difference" if equal_var else "welch difference"
    name = "Student's t" if equal_var else "Welch's t"
    if xa.size < 2 or xb.size < 2:
        return _open(confidence, "needs two runs or more of each value")
    if float(np.ptp(xa)) == 0.0 and float(np.ptp(xb)) == 0.0:
        return _open(confidence, "no run-to-run spread under either value")
    if not equal_var and (float(np.ptp(xa)) == 0.0 or float(np.ptp(xb)) == 0.0):
        varied = xb if float(np.ptp(xa)) == 0.0 else xa   # the other side's spread alone, as welch_t's t
        half = t_ppf(varied.size - 1, 0.5 + confidence / 2.0) * float(np.std(varied, ddof=1)) / math.sqrt(varied.size)
    else:
        res = ttest_ind(xa, xb, equal_var=equal_var)
        ci = res.confidence_interval(confidence_level=confidence)
        return Interval(float(ci.low), float(ci.high), confidence,
                        f"{name} interval of the difference of the means (scipy.stats.ttest_ind"
                        f"(equal_var={equal_var}).confidence_interval)", RUN_ASSUMPTIONS[key])
    diff = float(np.mean(xa) - np.mean(xb))
    return Interval(diff - half, diff + half, confidence,
                    f"{name} interval of the difference of the means, one value's runs all equal",
                    RUN_ASSUMPTIONS[key])


def run_intervals(runs_a, runs_b, confidence: float = 0.95) -> tuple[Interval, Interval, Interval]:
    """The Student t interval of each value's mean on its runs and Welch's interval of their difference.

    >>> ia, ib, diff = run_intervals([4.0, 6.0, 2.0], [3.0, 1.0, 2.0])
    >>> round(diff.low, 4), round(diff.high, 4)      # scipy ttest_ind(equal_var=False).confidence_interval()
    (-2.1554, 6.1554)
    """
    a, b = np.asarray(runs_a, float), np.asarray(runs_b, float)
    return _mean_interval(a, confidence), _mean_interval(b, confidence), _difference_interval(a, b, False, confidence)


def two_samples(runs_a, runs_b, *, alternative: str = "two-sided", confidence: float = 0.95) -> TwoSamples:
    """Welch's and Student's t, each mean and the difference with intervals, Cohen's d and Hedges' g.

    Examples
    --------
    >>> r = two_samples([4.0, 6.0, 2.0, 5.0], [3.0, 1.0, 2.0, 2.0])
    >>> round(r.welch.pvalue, 6), round(r.student.pvalue, 6)   # scipy.stats.ttest_ind, equal_var False / True
    (0.071673, 0.054976)
    >>> round(r.cohen_d.value, 6)      # (4.25 - 2) / sqrt((2.9167 + 0.6667) / 2), equal runs
    1.680947
    >>> lo, hi = r.cohen_d.interval.low, r.cohen_d.interval.high
    >>> lo < 1.680947 < hi, round(r.hedges_g.value / r.cohen_d.value, 6)   # J(6)
    (True, 0.868627)
    """
    a, b = np.asarray(runs_a, float), np.asarray(runs_b, float)
    na, nb = int(a.size), int(b.size)
    ma = float(np.mean(a)) if na else math.nan
    mb = float(np.mean(b)) if nb else math.nan
    welch = welch_t(a, b, alternative)
    student = student_t(a, b, alternative)
    d, g, d_iv, g_iv = _cohen(a, b, confidence)
    formula_d = "(mean_a − mean_b) / s_p, s_p² = ((n_a − 1) s_a² + (n_b − 1) s_b²) / (n_a + n_b − 2)"
    return TwoSamples(na, nb, ma, mb, _mean_interval(a, confidence), _mean_interval(b, confidence), ma - mb,
                      welch, student, _difference_interval(a, b, False, confidence),
                      _difference_interval(a, b, True, confidence),
                      RunEffect("cohen_d", d, d_iv, formula_d),
                      RunEffect("hedges_g", g, g_iv, "J(n_a + n_b − 2) · d, J(m) = Γ(m/2) / (sqrt(m/2) Γ((m − 1)/2)); "
                                "its interval J times d's"))


def _cohen(a: np.ndarray, b: np.ndarray, confidence: float):
    na, nb = a.size, b.size
    df = na + nb - 2
    if na < 2 or nb < 2:
        why = _open(confidence, "needs two runs or more of each value")
        return None, None, why, why
    sp = math.sqrt(((na - 1) * float(np.var(a, ddof=1)) + (nb - 1) * float(np.var(b, ddof=1))) / df)
    if sp == 0.0:
        why = _open(confidence, "no run-to-run spread under either value")
        return None, None, why, why
    d = (float(np.mean(a)) - float(np.mean(b))) / sp
    scale = math.sqrt(na * nb / (na + nb))
    lo, hi = noncentrality_interval(d * scale, df, confidence)
    j = hedges_j(df)
    method = (f"exact: the noncentral t on {df} degrees of freedom inverted at Student's t = d · sqrt(n_a n_b / "
              f"(n_a + n_b))")
    return (d, j * d, Interval(lo / scale, hi / scale, confidence, method, RUN_ASSUMPTIONS["cohen"]),
            Interval(j * lo / scale, j * hi / scale, confidence, method + ", times J", RUN_ASSUMPTIONS["cohen"]))


@dataclass(frozen=True)
class AnovaRow:
    """One term of an ANOVA table (``anova_lm``'s row): its sum of squares, df, F and p (None for the residual)."""

    term: str
    sum_sq: float
    df: float
    f: float | None
    p: float | None

    def to_dict(self) -> dict:
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class Coefficient:
    """One OLS coefficient with its cluster-robust standard error, statistic, p and interval."""

    term: str
    estimate: float
    se: float | None
    statistic: float | None
    p: float | None
    low: float | None
    high: float | None
    meaning: str

    def to_dict(self) -> dict:
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class RunModels:
    """ANOVA and OLS on runs: the value alone, and with a second factor, the value × factor model.

    Attributes
    ----------
    factor : str or None
        The second factor's name (None: the value alone).
    levels : tuple of str
        The second factor's levels, the first the reference.
    one_way : tuple of AnovaRow
        The ANOVA of the runs on the value.
    two_way : tuple of AnovaRow
        With a factor: the ANOVA on the value, the factor and their interaction (Type II); empty without.
    ols : tuple of Coefficient
        The largest model's coefficients, cluster-robust.
    n_clusters : int
    cluster : str
        What the clusters are.
    covariance : str
        How the standard errors were computed.
    """

    factor: str | None
    levels: tuple
    one_way: tuple
    two_way: tuple
    ols: tuple
    n_clusters: int
    cluster: str
    covariance: str
    formula: str
    distribution: str
    note: str = ""

    @property
    def interaction(self) -> Coefficient | None:
        """The interaction coefficient of a 2 × 2 model (None otherwise)."""
        found = [c for c in self.ols if "×" in c.term]
        return found[0] if len(found) == 1 else None


def _code(values, order) -> np.ndarray:
    where = {v: i for i, v in enumerate(order)}
    return np.array([where[v] for v in values], dtype=np.int64)


@dataclass(frozen=True)
class SecondFactor:
    """The second factor of the two-way models: its ``name`` (None: the value alone, the ``levels`` only
    reported), each run's level (``values``, in the runs' order) and the ``levels`` in order, the first the
    reference."""

    name: str | None
    values: tuple | None
    levels: tuple


def run_models(y, values, *, a: str, b: str, clusters, factor: SecondFactor | None = None, cluster: str = "item",
               confidence: float = 0.95) -> RunModels:
    """ANOVA (Type II) and OLS with cluster-robust standard errors of the runs ``y`` on the value (``a`` against
    the reference ``b``) and, with a second ``factor``, on the factor (its levels in order, the first the
    reference) and the interaction.

    Examples
    --------
    >>> y = [1.0, 2.0, 3.0, 5.0, 4.0, 6.0, 2.0, 1.0]
    >>> m = run_models(y, ["a", "b"] * 4, a="a", b="b", clusters=[1, 1, 2, 2, 3, 3, 4, 4])
    >>> [r.term for r in m.one_way], round(m.ols[1].estimate, 6)      # mean under a − mean under b
    (['value', 'residual'], -1.0)
    """
    y = np.asarray(y, float)
    with caught_warnings():
        # a degenerate fit (no spread around the model) is told apart below, not by statsmodels' warnings
        warnings.simplefilter("ignore")
        return _run_models(y, values, a=a, b=b, clusters=clusters, second=factor, cluster=cluster,
                           confidence=confidence)


def _run_models(y, values, *, a, b, clusters, second, cluster, confidence) -> RunModels:
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    frame = pd.DataFrame({"y": y, "v": _code(list(values), [b, a])})
    ids = _code(list(clusters), list(dict.fromkeys(clusters)))
    n_clusters = int(len(set(ids.tolist())))
    # no spread left around the model (every run of a cell alike, to float error): F, standard errors and p are
    # undefined, not the huge or tiny numbers float noise gives
    scale = float(np.sum((y - y.mean()) ** 2)) if y.size else 0.0
    floor = 1e-20 * max(scale, float(np.sum(y * y)), 1e-300)
    one = anova_lm(smf.ols("y ~ C(v)", data=frame).fit(), typ=2)
    one_way = _anova_rows(one, {"C(v)": "value"}, floor)
    two_way: tuple = ()
    names = {"Intercept": ("intercept", f"the mean under '{b}'"),
             "C(v)[T.1]": ("value", f"mean under '{a}' − mean under '{b}'")}
    formula = "y ~ C(value)"
    factor, levels = (None, ()) if second is None else (second.name, tuple(second.levels))
    if factor is not None:
        frame["f"] = _code(list(second.values), levels)
        model = smf.ols("y ~ C(v) * C(f)", data=frame)
        two_way = _anova_rows(anova_lm(model.fit(), typ=2),
                              {"C(v)": "value", "C(f)": factor, "C(v):C(f)": f"value × {factor}"}, floor)
        names["Intercept"] = ("intercept", f"the mean under '{b}' at {factor} = '{levels[0]}'")
        names["C(v)[T.1]"] = ("value", f"mean under '{a}' − mean under '{b}' at {factor} = '{levels[0]}'")
        for k, level in enumerate(levels[1:], 1):
            names[f"C(f)[T.{k}]"] = (f"{factor}[{level}]", f"'{level}' − '{levels[0]}' under '{b}'")
            names[f"C(v)[T.1]:C(f)[T.{k}]"] = (f"value × {factor}[{level}]",
                                               f"the gap ('{a}' − '{b}') at '{level}' − the gap at '{levels[0]}'")
        formula = f"y ~ C(value) * C({factor})"
    else:
        model = smf.ols("y ~ C(v)", data=frame)
    plain = model.fit()
    if n_clusters >= 2 and float(plain.ssr) > floor:
        fit = model.fit(cov_type="cluster", cov_kwds={"groups": ids})
        covariance = (f"cluster-robust (statsmodels fit(cov_type='cluster'), {n_clusters} clusters: the {cluster}s, "
                      "small-sample correction G/(G − 1) · (N − 1)/(N − K))")
        ci = fit.conf_int(alpha=1.0 - confidence)
        tiny = 1e-10 * math.sqrt(scale / max(y.size - 1, 1))   # a standard error that is float noise around 0

        def coefficient(term):
            name, meaning = names.get(term, (term, ""))
            se = float(fit.bse[term])
            if not se > tiny:
                return Coefficient(name, float(fit.params[term]), None, None, None, None, None, meaning)
            return Coefficient(name, float(fit.params[term]), se, float(fit.tvalues[term]), float(fit.pvalues[term]),
                               float(ci.loc[term, 0]), float(ci.loc[term, 1]), meaning)

        coefficients = tuple(coefficient(term) for term in fit.params.index)
        distribution = "Student t" if fit.use_t else "normal"
        note = ("a coefficient that is the same in every cluster has no standard error (null)"
                if any(c.se is None for c in coefficients) else "")
    else:
        fit = plain
        coefficients = tuple(Coefficient(names.get(t, (t, ""))[0], float(fit.params[t]), None, None, None, None, None,
                                         names.get(t, (t, ""))[1]) for t in fit.params.index)
        covariance, distribution = "none", "none"
        note = (f"one {cluster} holds every run: no cluster-robust standard error" if n_clusters < 2 else
                "the model fits every run exactly (no spread within its cells): no standard error")
    return RunModels(factor, tuple(levels), one_way, two_way, coefficients, n_clusters, cluster, covariance,
                     formula, distribution, note)


def _anova_rows(table, names: dict, floor: float = 0.0) -> tuple:
    rows = []
    exact = float(table.loc["Residual", "sum_sq"]) <= floor   # no spread within cells: F undefined
    for term, row in table.iterrows():
        residual = term == "Residual"
        undefined = residual or exact
        f = None if undefined or not math.isfinite(float(row["F"])) else float(row["F"])
        p = None if undefined or not math.isfinite(float(row["PR(>F)"])) else float(row["PR(>F)"])
        rows.append(AnovaRow("residual" if residual else names.get(term, term), float(row["sum_sq"]),
                             float(row["df"]), f, p))
    return tuple(rows)
