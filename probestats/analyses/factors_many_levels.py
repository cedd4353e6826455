"""Two attributes with any number of levels: per-level means, main effects and the interaction tested
within items by permutation, and the two-way repeated-measures ANOVA table beside them.

Each matched item is run under every combination of the levels (an I × J design); its cell
means form an I × J table, and every item counts once.

* **Main effect of A** (likewise B): the item's means over B at each level of A form an
  items × I table; under "A makes no difference" its level labels are exchangeable within each
  item, and the statistic is ``n * sum_i (mean_i - grand mean)**2`` (the numerator of the
  repeated-measures F).
* **Interaction**: each item's table with its A-level rows centred (the row mean taken off, which
  removes A's main effect, whatever it is). Under "no interaction", B's effect is the same at
  every level of A, so the rows of an item's centred table are exchangeable; the rows are
  permuted within items (a whole row moves, the B levels stay together) and the statistic is
  ``n * sum_ij (mean_ij - mean_.j)**2`` over the item-averaged centred table, the interaction sum
  of squares of the two-way decomposition (permuting the raw rows gives the same p).

What makes these tests valid: the null of the interaction is that every item's true table is a row
effect plus a column effect (each item may have its own), and the noise of an item's cells is
exchangeable across the levels of A (for example independent with one variance). Then main effects
of any size leave the test exact; generated 3 × 2 designs with large main effects and no
interaction are rejected at alpha 0.05 in 4.8 % (± 0.7) of 1,000 at 6 items and 4.1 % (± 0.6) at 10
(``benchmarks/factorial_null.py``). Noise that differs by level breaks the exchangeability: with one
level's noise three times the others', the rate is 8.8 % and 8.4 %. Permuting whole cells instead
of rows would mix the main effects into the interaction (that rate is 0 %).

Every test is **exact** by enumeration when the arrangements (permuting every item alike leaves
each statistic unchanged, so the first item stays as observed) number at most ``max_exact``
(200,000), else **Monte Carlo** with ``n_resamples`` random arrangements drawn with ``seed``,
``p = (hits + 1) / (n_resamples + 1)`` and its standard error; ties count as at least as
extreme (relative tolerance 1e-9). The p-values are corrected across the three tests (Holm by
default).

Beside them, the repeated-measures ANOVA on the item means (statsmodels ``AnovaRM``): F
tests that assume normal residuals and sphericity (no correction for its violation is made),
with partial eta squared ``F df1 / (F df1 + df2)`` for each effect.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from probestats.analyses.verdict import decide_effects
from probestats.errors import OptionError, caught_warnings
from probestats.result import Result, html_summary, one_line
from probestats.stats.draw_order import row_order, rows_in_order
from probestats.stats.multitest import adjust
from probestats.vocabulary import as_tests

__all__ = ["FactorTest", "AnovaRow", "FactorialAnalysis", "permutation_test", "factorial_tests", "anova_rm",
           "analyze_factorial", "MAX_EXACT"]

MAX_EXACT = 200_000
ANOVA_ASSUMPTION = ("F tests on the item means: residuals roughly normal and sphericity (equal variances of every "
                    "difference between levels within items) assumed, no correction made for its violation; "
                    "items independent")


def _num(x) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


@dataclass(frozen=True)
class FactorTest:
    """One within-item permutation test of the design.

    Attributes
    ----------
    name : str
        ``A``, ``B`` (the factors' names) or ``"interaction"``.
    statistic, pvalue : float
    method : str
        Exact enumeration or Monte Carlo, with its settings and error.
    arrangements : int
        Arrangements enumerated (exact) or drawn (Monte Carlo).
    pvalue_se : float or None
        Monte Carlo standard error (None when exact).
    p_adjusted : float or None
    """

    name: str
    statistic: float
    pvalue: float
    method: str
    arrangements: int
    pvalue_se: float | None = None
    p_adjusted: float | None = None

    @property
    def exact(self) -> bool:
        return self.pvalue_se is None

    def to_dict(self) -> dict:
        return {"effect": self.name, "statistic": _num(self.statistic), "p": float(self.pvalue),
                "p_adjusted": _num(self.p_adjusted), "method": self.method, "arrangements": int(self.arrangements),
                "p_se": _num(self.pvalue_se)}


@dataclass(frozen=True)
class AnovaRow:
    """One row of the repeated-measures ANOVA table (statsmodels ``AnovaRM``).

    Attributes
    ----------
    effect : str
        The effect (a factor, or their interaction).
    f : float
        The F statistic.
    df1, df2 : float
        Its degrees of freedom.
    pvalue : float
        Its p-value (``p`` in JSON).
    partial_eta_squared : float
        ``F df1 / (F df1 + df2)``.
    """

    effect: str
    f: float
    df1: float
    df2: float
    pvalue: float
    partial_eta_squared: float

    def to_dict(self) -> dict:
        return {"effect": self.effect, "F": _num(self.f), "df1": _num(self.df1), "df2": _num(self.df2),
                "p": _num(self.pvalue), "partial_eta_squared": _num(self.partial_eta_squared)}


def _stat(tables: np.ndarray) -> np.ndarray:
    """``n * sum_ij (mean_ij - mean_.j)**2`` of item-averaged tables; ``tables`` is (..., n, I, J)."""
    mean = tables.mean(axis=-3)
    n = tables.shape[-3]
    return n * ((mean - mean.mean(axis=-2, keepdims=True)) ** 2).sum(axis=(-2, -1))


def permutation_test(tables, *, n_resamples: int = 10_000, seed: int | None = 0,
                     max_exact: int = MAX_EXACT) -> tuple[float, float, str, int, float | None]:
    """Within-item permutation test that the rows of each item's table are exchangeable.

    ``tables`` is items × I × J (J = 1 for a main effect: the items × levels table of means).
    Returns ``(statistic, p, method, arrangements, standard error or None)``.

    Examples
    --------
    >>> tables = np.array([[[1.0], [0.0]], [[1.0], [0.0]], [[1.0], [0.0]]])   # 3 items, 2 levels
    >>> stat, p, method, count, se = permutation_test(tables)
    >>> p, count        # the first item held: of its 4 arrangements only the observed one is as extreme
    (0.25, 4)
    """
    t = np.asarray(tables, dtype=float)
    if t.ndim != 3:
        raise OptionError("a permutation test of a design needs items × levels × levels tables")
    n, rows, _ = t.shape
    observed = float(_stat(t))
    tol = 1e-9 * max(abs(observed), 1e-300)
    perms = np.array(list(itertools.permutations(range(rows))))
    total = len(perms) ** max(n - 1, 0)
    if total <= max_exact:
        idx = np.indices((len(perms),) * (n - 1)).reshape(n - 1, -1).T if n > 1 else np.zeros((1, 0), int)
        hits = 0
        for start in range(0, len(idx), 20_000):
            block = idx[start:start + 20_000]
            order = np.concatenate([np.tile(np.arange(rows), (len(block), 1))[:, None, :], perms[block]], axis=1)
            arranged = np.take_along_axis(t[None, :, :, :], order[:, :, :, None], axis=2)
            hits += int(np.count_nonzero(_stat(arranged) >= observed - tol))
        p = hits / total
        return observed, p, (f"exact (enumeration of all {total:,} within-item arrangements, the first item held "
                             "as observed)"), total, None
    rng = np.random.default_rng(seed)
    # each item's levels arranged from an order of their values, the items in an order of their numbers: the same
    # arrangements' distribution, drawn alike whatever the log's row order and the names of items and levels
    t = np.stack([rows_in_order(ti) for ti in t])
    t = t[row_order(t.reshape(n, -1))]
    hits = 0
    block = max(1, 2_000_000 // max(n * rows * t.shape[2], 1))
    for start in range(0, n_resamples, block):
        size = min(block, n_resamples - start)
        order = np.argsort(rng.random((size, n, rows)), axis=2)
        arranged = np.take_along_axis(t[None, :, :, :], order[:, :, :, None], axis=2)
        hits += int(np.count_nonzero(_stat(arranged) >= observed - tol))
    p = (hits + 1) / (n_resamples + 1)
    se = math.sqrt(p * (1 - p) / n_resamples)
    floor = "; no resample was as extreme, so p is below that floor" if hits == 0 else ""
    return observed, p, (f"monte carlo (n_resamples={n_resamples}, seed={seed}, standard error {se:.2g}; "
                         f"p = (hits + 1)/(n_resamples + 1){floor}; {total:.3g} arrangements are too many to "
                         "enumerate)"), n_resamples, se


def _exact_statistic(cells: np.ndarray, name: str, names: tuple[str, str]) -> float:
    """The observed statistic of a test, computed from the cell means' floats exactly and rounded once, so
    that levels with equal means give exactly 0 (the test itself uses the float statistic, with its
    tolerance for ties).

    >>> _exact_statistic(np.array([[[0.1, 0.7], [0.7, 0.1]], [[0.4, 0.3], [0.3, 0.4]]]), "A", ("A", "B"))
    0.0
    """
    from fractions import Fraction

    n, rows, cols = cells.shape
    f = [[[Fraction(float(x)) for x in row] for row in item] for item in cells]
    if name == "interaction":
        centred = [[[x - sum(row) / cols for x in row] for row in item] for item in f]
        table = [[sum(item[i][j] for item in centred) / n for j in range(cols)] for i in range(rows)]
        col = [sum(table[i][j] for i in range(rows)) / rows for j in range(cols)]
        return float(n * sum((table[i][j] - col[j]) ** 2 for i in range(rows) for j in range(cols)))
    if name == names[0]:
        levels = [sum(sum(item[i]) / cols for item in f) / n for i in range(rows)]
    else:
        levels = [sum(sum(item[i][j] for i in range(rows)) / rows for item in f) / n for j in range(cols)]
    grand = sum(levels) / len(levels)
    return float(n * sum((x - grand) ** 2 for x in levels))


def factorial_tests(cells, names: tuple[str, str], *, n_resamples: int = 10_000, seed: int | None = 0,
                    correction: str = "holm", max_exact: int = MAX_EXACT) -> tuple[FactorTest, ...]:
    """Main effects and interaction of items × I × J cell means (see the module's description).

    >>> cells = np.array([[[2.0, 1.0], [0.0, 0.0], [0.0, 0.0]]] * 4) + np.arange(4)[:, None, None]
    >>> [(t.name, round(t.pvalue, 4)) for t in factorial_tests(cells, ("A", "B"))]
    [('A', 0.037), ('B', 0.125), ('interaction', 0.037)]
    """
    m = np.asarray(cells, dtype=float)
    a_means = m.mean(axis=2)[:, :, None]
    b_means = m.mean(axis=1)[:, :, None]
    centred = m - m.mean(axis=2, keepdims=True)
    out = []
    for name, tables in ((names[0], a_means), (names[1], b_means), ("interaction", centred)):
        stat, p, method, count, se = permutation_test(tables, n_resamples=n_resamples, seed=seed,
                                                      max_exact=max_exact)
        out.append(FactorTest(name, _exact_statistic(m, name, names), p, method, count, se))
    adjusted = adjust([t.pvalue for t in out], correction)
    return tuple(FactorTest(t.name, t.statistic, t.pvalue, t.method, t.arrangements, t.pvalue_se, p)
                 for t, p in zip(out, adjusted))


def anova_rm(cells, names: tuple[str, str]) -> tuple[AnovaRow, ...]:
    """The two-way repeated-measures ANOVA of items × I × J cell means (statsmodels ``AnovaRM``).

    >>> rng = np.random.default_rng(0)
    >>> rows = anova_rm(rng.normal(size=(6, 3, 2)), ("A", "B"))
    >>> [(r.effect, r.df1, r.df2) for r in rows]
    [('A', 2.0, 10.0), ('B', 1.0, 5.0), ('interaction', 2.0, 10.0)]
    """
    import pandas as pd
    from statsmodels.stats.anova import AnovaRM

    m = np.asarray(cells, dtype=float)
    n, i, j = m.shape
    long = pd.DataFrame([{"item": k, "A": a, "B": b, "y": m[k, a, b]}
                         for k in range(n) for a in range(i) for b in range(j)])
    table = AnovaRM(long, depvar="y", subject="item", within=["A", "B"]).fit().anova_table
    out = []
    for key, name in (("A", names[0]), ("B", names[1]), ("A:B", "interaction")):
        row = table.loc[key]
        f, d1, d2 = float(row["F Value"]), float(row["Num DF"]), float(row["Den DF"])
        p = float(row["Pr > F"])
        if _exact_statistic(m, name, names) == 0:   # its exact sum of squares is 0: F is 0, not a float residue
            f, p = 0.0, 1.0
        eta = f * d1 / (f * d1 + d2) if math.isfinite(f) else float("nan")
        out.append(AnovaRow(name, f, d1, d2, p, eta))
    return tuple(out)


@dataclass(frozen=True)
class FactorialAnalysis(Result):
    """Two attributes with any number of levels (:func:`analyze_factorial`).

    Attributes
    ----------
    metric : str
    factors : tuple of str
    levels : tuple of tuple of str
        Each factor's levels, in the order declared (``"dose=low,mid,high"``) or else of appearance.
    level_means : dict
        Per factor, per level: the mean over items of the item's mean over the other factor's levels.
    cell_means : dict
        ``"a × b"``: the mean over items of the item's cell mean.
    tests : tuple of FactorTest
        Main effects and interaction, within-item permutation tests, p corrected across the three.
    anova : tuple of AnovaRow or None
        The repeated-measures ANOVA table (None when it cannot be computed: fewer than two items).
    anova_assumption : str
    cells : numpy.ndarray
        items × I × J cell means.
    items : list of str
    runs_per_cell : int
    correction : str
    alpha : float
    problems : tuple
    verdict : Verdict
        The conclusion, decided once from the corrected p of the three tests
        (:func:`probestats.analyses.verdict.decide_effects`); every renderer words it.
    pooled : tuple of (str, int)
        Settings that vary inside the cells, with their counts: a cell's runs are then theirs together
        (:func:`probestats.checks.facts.pooled_in_cells`).
    family : int
        The tests corrected together when this analysis is one of a family (a ``FactorSet``: ``--by`` groups
        or several metrics); 0 alone.
    agreements : tuple of (str, BlockAgreement or None)
        With blocks, per main effect of a factor of two levels (its first level less its second, averaged over
        the other factor's levels), whether the blocks agree (:mod:`probestats.analyses.factor_blocks`); the
        verdict carries the first. Empty without blocks or without a factor of two levels.
    """

    MAIN_TABLE = "tests"

    metric: str
    factors: tuple[str, str]
    levels: tuple[tuple[str, ...], tuple[str, ...]]
    level_means: dict
    cell_means: dict
    tests: tuple[FactorTest, ...]
    anova: tuple[AnovaRow, ...] | None
    cells: np.ndarray = field(repr=False)
    items: tuple[str, ...] = ()
    runs_per_cell: int = 0
    correction: str = "holm"
    alpha: float = 0.05
    problems: tuple = ()
    anova_assumption: str = ANOVA_ASSUMPTION
    verdict: object | None = None
    pooled: tuple = ()
    #: the tests corrected together when this analysis is one of a family (a ``FactorSet``); 0 alone
    family: int = 0
    #: per main effect of a factor of two levels, whether the blocks agree (:mod:`probestats.analyses.factor_blocks`)
    agreements: tuple = ()

    @property
    def n_items(self) -> int:
        return len(self.items)

    def test(self, name: str) -> FactorTest:
        return next(t for t in self.tests if t.name == name)

    def __repr__(self) -> str:
        return one_line(self, metric=self.metric, factors=self.factors, n_items=self.n_items, tests=len(self.tests))

    def _repr_html_(self) -> str:
        return html_summary(self, self.to_frame(), metric=self.metric, factors=" × ".join(self.factors),
                            n_items=self.n_items, correction=self.correction)

    def to_dict(self) -> dict:
        return {"kind": "factorial", "metric": self.metric, "factors": list(self.factors),
                "levels": {f: list(lv) for f, lv in zip(self.factors, self.levels)}, "n_items": self.n_items,
                "runs_per_cell": self.runs_per_cell, "pooled_in_cells": {c: n for c, n in self.pooled},
                "level_means": self.level_means,
                "cell_means": self.cell_means, "tests": [t.to_dict() for t in self.tests],
                "correction": self.correction, "alpha": self.alpha,
                "anova": None if self.anova is None else {"rows": [r.to_dict() for r in self.anova],
                                                         "method": "statsmodels AnovaRM on the item means",
                                                         "assumption": self.anova_assumption},
                "items": [{"item": it, "means": {f"{a} × {b}": _num(self.cells[k, i, j])
                                                 for i, a in enumerate(self.levels[0])
                                                 for j, b in enumerate(self.levels[1])}}
                          for k, it in enumerate(self.items)],
                "problems": [p.to_dict() for p in self.problems],
                **({"verdict": self.verdict.to_dict()} if self.verdict is not None else {})}


def analyze_factorial(means: pl.DataFrame, tests=None, *, metric: str, factors: tuple[str, str], levels,
                      problems: tuple = ()) -> FactorialAnalysis:
    """The I × J analysis from the long table of item means (item, value ``"a × b"``, mean, runs), its
    permutations, correction and level the ``tests``'."""
    tests = as_tests(tests)
    n_resamples, seed, correction, alpha = tests.n_resamples, tests.seed, tests.correction, tests.alpha
    la, lb = (tuple(str(x) for x in lv) for lv in levels)
    cells_names = [f"{a} × {b}" for a in la for b in lb]
    wide = means.pivot(on="value", index="item", values="mean")
    missing = [c for c in cells_names if c not in wide.columns]
    if missing:
        raise OptionError(f"no runs of {', '.join(repr(c) for c in missing[:6])}; a factor design needs every "
                          "combination of the levels")
    wide = wide.select(pl.col("item").cast(pl.String), *cells_names).drop_nulls()
    m = wide.select(cells_names).to_numpy().astype(float).reshape(wide.height, len(la), len(lb))
    if m.shape[0] < 2:
        raise OptionError("a factor design needs two items or more measured under every combination of the levels")
    level_means = {factors[0]: {a: float(m[:, i, :].mean()) for i, a in enumerate(la)},
                   factors[1]: {b: float(m[:, :, j].mean()) for j, b in enumerate(lb)}}
    cell_means = {f"{a} × {b}": float(m[:, i, j].mean()) for i, a in enumerate(la) for j, b in enumerate(lb)}
    tests = factorial_tests(m, factors, n_resamples=n_resamples, seed=seed, correction=correction)
    try:
        import warnings

        with caught_warnings():
            warnings.simplefilter("ignore")   # a table without residual spread gives F = inf/nan: shown as n/a
            anova = anova_rm(m, factors)
    except (ValueError, ZeroDivisionError, np.linalg.LinAlgError):
        anova = None
    runs = int(means["runs"].median()) if means.height else 0

    return FactorialAnalysis(metric, tuple(factors), (la, lb), level_means, cell_means, tests, anova, m,
                             tuple(wide["item"].to_list()), runs, correction, alpha, tuple(problems),
                             verdict=decide_effects([(t.name, t.p_adjusted) for t in tests], alpha=alpha))
