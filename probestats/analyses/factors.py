"""Two attributes at once (for example writing style × name): gaps within levels and their interaction.

Each matched item is run under every combination of the two attributes' levels
(a 2 × 2 design). Per item, the four cell means give

* the gap of each attribute **within each level of the other** (for example
  formal − casual among runs with the name Emily, and among runs with Greg);
* each attribute's **main effect**: the mean of its two within-level gaps;
* the **interaction**: the difference of the within-level gaps (a difference of
  differences), non-zero when one attribute's gap depends on the other.

Each is averaged over items and tested with the exact sign-flip test across items
(items are the unit; every item counts once); p-values are also given corrected
across the seven tests (Holm by default).

On sizing: with k runs per cell, each within-level gap is as precise as one pair
run with k runs per value, so the 2 × 2 needs twice the runs of one pair for the
same precision on the gap within each level (the main effect pooled over both
levels reaches a pair's precision with the same total runs, if there is no
interaction); the interaction, a difference of two gaps, has twice their variance,
so it needs four times the runs of one pair for the same precision.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Sequence

import numpy as np
import polars as pl

from probestats.result import Result, html_summary, one_line

from probestats.vocabulary import as_tests, column_names
from probestats.errors import ColumnError, OptionError, count_of, either, opt
from probestats.stats.hypotests import TestResult, sign_flip_test
from probestats.io.columns import normalize_header
from probestats.errors import Problem
from probestats.analyses.factor_blocks import Cells, effect_agreements, factor_blocks, with_agreements
from probestats.analyses.factors_many_levels import analyze_factorial
from probestats.analyses.many import check_many, check_size, unit_means
from probestats.analyses.question import Question
from probestats.analyses.verdict import decide_effects
from probestats.checks.facts import pooled_in_cells, pooled_phrase
from probestats.io.log import collect
from probestats.limits import check_limit
from probestats.stats.effects import effect_sizes
from probestats.stats.exact import mean_of_combination
from probestats.stats.multitest import adjust

__all__ = ["Effect", "FactorAnalysis", "FactorSet", "analyze_factors", "factor_set", "runs_note"]


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def runs_note(runs_per_cell: int | None = None, pooled: str = "") -> str:
    """How many more runs a 2 × 2 design needs than one pair, for the same precision.

    Examples
    --------
    >>> runs_note()[:62]
    'a 2×2 design needs twice the runs of one pair for the same pre'
    >>> "(4 × 5 = 20 runs per item here)" in runs_note(5)
    True
    """
    text = ("a 2×2 design needs twice the runs of one pair for the same precision on each attribute's gap "
            "within a level of the other, and four times for the interaction (a difference of two gaps has "
            "twice their variance)")
    if runs_per_cell:
        text += (f"; with {runs_per_cell} runs per cell{pooled} (4 × {runs_per_cell} = {4 * runs_per_cell} runs per item "
                 f"here) each within-level gap is as precise as a pair with {count_of(runs_per_cell, 'run')} per value, "
                 f"and the interaction as precise as a pair with {runs_per_cell / 2:g} runs per value")
    return text


@dataclass(frozen=True)
class Effect:
    """One effect of the 2 × 2 design, averaged over items, with the sign-flip test across items.

    Attributes
    ----------
    name : str
        The effect: a main effect (an attribute's name) or ``"interaction"``.
    description : str
        What the effect's item value is, in words (which cell means it adds and subtracts).
    average : float
        The effect's mean over items.
    sign_flip : TestResult
        The exact sign-flip test on the items' effect values.
    gaps : tuple of float
        The items' effect values.
    p_adjusted : float or None
        The sign-flip p corrected across the three effects.
    detected : bool or None
        The corrected p is at or below alpha (p <= alpha, the rule of every analysis).
    d_z : EffectSize or None
        d_z of the effect's item values (their mean / their SD), with its exact interval (:mod:`probestats.stats.effects`).
    """

    name: str
    description: str
    average: float
    sign_flip: TestResult
    gaps: tuple[float, ...] = field(repr=False, default=())
    p_adjusted: float | None = None
    #: the corrected p is at or below alpha (p <= alpha, the rule of every analysis)
    detected: bool | None = None
    #: d_z of the effect's item values (their mean / their SD), with its exact interval (:mod:`probestats.stats.effects`)
    d_z: object | None = None

    def to_dict(self) -> dict:
        return {"effect": self.name, "description": self.description, "average": _num(self.average),
                "p": float(self.sign_flip.pvalue), "p_adjusted": _num(self.p_adjusted), "detected": self.detected,
                "method": self.sign_flip.method, "alternative": self.sign_flip.alternative,
                "d_z": None if self.d_z is None else self.d_z.to_dict()}


@dataclass(frozen=True)
class FactorAnalysis(Result):
    """Result of :func:`analyze_factors`.

    Attributes
    ----------
    metric : str
    factors : tuple of str
        The two attributes (as named on the command line).
    levels : tuple of (str, str)
        Each attribute's two levels, in the order declared (``"style=casual,formal"``) or else of appearance;
        gaps are first level − second.
    effects : tuple of Effect
    items : polars.DataFrame
        item, then the four cell means named ``level1 × level2``.
    runs_per_cell : int
        Median runs per item and cell.
    note : str
        How many runs such a design needs (see :func:`runs_note`).
    correction : {"holm", "bonferroni", "bh", "none"}
        The correction across the three effects.
    alpha : float
        The level the corrected p-values are read against.
    problems : tuple of Problem
    verdict : Verdict
        The conclusion, decided once from the corrected p of every effect
        (:func:`probestats.analyses.verdict.decide_effects`); every renderer words it.
    pooled : tuple of (str, int)
        Settings that vary inside the cells (7 models in every cell), with their counts: the runs of a cell
        are then the runs of all of them (:func:`probestats.checks.facts.pooled_in_cells`).
    family : int
        The tests corrected together when this analysis is one of a family (a ``FactorSet``: ``--by`` groups
        or several metrics); 0 alone.
    agreements : tuple of (str, BlockAgreement or None)
        With blocks (several models answered every cell), per main effect, whether the blocks agree
        (:mod:`probestats.analyses.factor_blocks`); the verdict carries the first (``agreement``), the phrase
        its line prints (``pooled``) and the ``blocks_disagree`` caveat. Empty without blocks.
    """

    MAIN_TABLE = "effects"

    metric: str
    factors: tuple[str, str]
    levels: tuple[tuple[str, str], tuple[str, str]]
    effects: tuple[Effect, ...]
    items: pl.DataFrame = field(repr=False)
    runs_per_cell: int
    note: str
    correction: str
    alpha: float
    problems: tuple[Problem, ...] = ()
    verdict: object | None = None
    pooled: tuple = ()
    #: the tests corrected together when this analysis is one of a family (:class:`FactorSet`); 0 alone
    family: int = 0
    #: per main effect, whether the blocks its runs average over agree (:mod:`probestats.analyses.factor_blocks`)
    agreements: tuple = ()

    @property
    def n_items(self) -> int:
        return self.items.height

    @property
    def interaction_in_words(self) -> str:
        """The interaction's sign in words: which attribute's gap is larger where, and which two cells are higher.

        The interaction is ``(m11 − m21) − (m12 − m22)`` over the declared levels, the sign a treatment-coded
        regression's interaction coefficient takes with the first levels as its reference.
        """
        (f1, f2), ((a1, a2), (b1, b2)) = self.factors, self.levels
        value = self.effect("interaction").average
        gap = f"the {f1} gap ('{a1}' − '{a2}')"
        if value == 0:
            return f"no interaction: {gap} is the same among '{b1}' and '{b2}' runs"
        where, other = (b1, b2) if value > 0 else (b2, b1)
        high, low = (((a1, b1), (a2, b2)), ((a2, b1), (a1, b2)))[::1 if value > 0 else -1]
        return (f"interaction {'positive' if value > 0 else 'negative'}: {gap} is larger among '{where}' runs than "
                f"among '{other}' runs; '{high[0][0]} × {high[0][1]}' and '{high[1][0]} × {high[1][1]}' together "
                f"are higher than '{low[0][0]} × {low[0][1]}' and '{low[1][0]} × {low[1][1]}'")

    def effect(self, name: str) -> Effect:
        return next(e for e in self.effects if e.name == name)

    def to_frame(self) -> pl.DataFrame:
        """One row per effect: its average over items, sign-flip p and corrected p."""
        return pl.DataFrame({"effect": [e.name for e in self.effects],
                             "average": [float(e.average) for e in self.effects],
                             "p": [float(e.sign_flip.pvalue) for e in self.effects],
                             "p_adjusted": [e.p_adjusted for e in self.effects]},
                            schema={"effect": pl.String, "average": pl.Float64, "p": pl.Float64,
                                    "p_adjusted": pl.Float64})

    def __repr__(self) -> str:
        return one_line(self, metric=self.metric, factors=self.factors, n_items=self.n_items,
                        **{f"p_{e.name}": float(e.sign_flip.pvalue) for e in self.effects})

    def _repr_html_(self) -> str:
        return html_summary(self, self.to_frame(), metric=self.metric, factors=" × ".join(self.factors),
                            n_items=self.n_items, correction=self.correction)

    def to_dict(self) -> dict:
        return {
            "kind": "factors", "metric": self.metric, "factors": list(self.factors),
            "levels": {f: list(l) for f, l in zip(self.factors, self.levels)},
            "n_items": self.n_items, "runs_per_cell": self.runs_per_cell,
            "pooled_in_cells": {c: n for c, n in self.pooled},
            "effects": [e.to_dict() for e in self.effects], "interaction_in_words": self.interaction_in_words,
            "correction": self.correction, "alpha": self.alpha,
            "items": [{k: (str(v) if k == "item" else _num(v)) for k, v in r.items()}
                      for r in self.items.iter_rows(named=True)],
            "note": self.note,
            "problems": [p.to_dict() for p in self.problems],
            **({"verdict": self.verdict.to_dict()} if self.verdict is not None else {}),
        }


def _resolve(log, name: str) -> str:
    names = log.lazy.collect_schema().names()
    if name in names:
        return name
    by_header = {normalize_header(h): c for c, h in log.columns.items()}
    if normalize_header(name) in by_header and by_header[normalize_header(name)] in names:
        return by_header[normalize_header(name)]
    for c in names:
        if normalize_header(c) == normalize_header(name):
            return c
    seen = ", ".join(h for h in log.headers)
    raise ColumnError(f"{opt('factors', name)}: no such column; headers seen: {seen}")


def _declared(log, spec: str) -> tuple[str, str, tuple[str, ...] | None]:
    """``(name, column, levels or None)`` of one ``factors`` entry: a column, or ``COLUMN=LEVEL,LEVEL,...``
    naming its levels in the order the effects take them (the first level − the second).

    A column whose header itself holds ``=`` is taken whole when it exists.
    """
    spec = str(spec)
    if "=" in spec:
        try:
            return spec, _resolve(log, spec), None
        except ColumnError:
            pass
        name, _, given = spec.partition("=")
        name = name.strip()
        levels = tuple(x.strip() for x in given.split(","))
        if not name or len(levels) < 2 or any(not x for x in levels) or len(set(levels)) != len(levels):
            raise OptionError(f"{opt('factors', spec)}: name the column and two levels or more, each once, in the "
                              f"order wanted, for example {either(repr(['style=casual,formal', 'name']), '--factor style=casual,formal')}")
        return name, _resolve(log, name), levels
    return spec, _resolve(log, spec), None


def _in_declared_order(found: list, declared: tuple[str, ...] | None, name: str, probe=None) -> tuple:
    """The levels found, in the declared order when one was given (otherwise in order of appearance), told
    apart in any case when the ``probe`` folds case.

    >>> from probestats.shape.probe import Probe
    >>> _in_declared_order(["high", "low"], ("low", "high"), "dose")
    ('low', 'high')
    >>> _in_declared_order(["High", "low"], ("low", "high"), "dose", Probe(fold_case=True))
    ('low', 'High')
    """
    if declared is None:
        return tuple(found)
    key = (lambda x: str(x).casefold()) if probe is not None and probe.fold_case else str
    by_key = {key(x): x for x in found}
    unknown = [x for x in declared if key(x) not in by_key]
    left_out = [x for x in found if key(x) not in {key(d) for d in declared}]
    if unknown or left_out:
        said = []
        if unknown:
            said.append(f"no runs have {', '.join(repr(x) for x in unknown)}")
        if left_out:
            said.append(f"the log also has {', '.join(repr(str(x)) for x in left_out[:8])}")
        raise OptionError(f"{opt('factors', name + '=' + ','.join(declared))}: {'; '.join(said)}; name every level "
                          f"the log has ({', '.join(repr(str(x)) for x in found[:8])}), or keep some with "
                          f"{opt('where')}")
    return tuple(by_key[key(x)] for x in declared)


def _check_levels(lazy: pl.LazyFrame, factors, tests) -> None:
    """Refuse factors whose cells (levels of one x levels of the other) are more than the limit of levels,
    before any check: each test permutes every item's table of cells the ``tests``' ``n_resamples`` times (20 x
    20 levels on 1,600 rows exhausted 4 GB)."""
    counts = collect(lazy.select(pl.col("_f1").drop_nulls().n_unique(), pl.col("_f2").drop_nulls().n_unique()))
    n1, n2 = (int(x) for x in counts.row(0))
    check_limit("levels", n1 * n2, f"the cells of the two factors ({n1} levels of '{factors[0]}' x {n2} of "
                f"'{factors[1]}')", f"about {_gigabytes(n1 * n2)} of memory: each test permutes every item's "
                f"{n1 * n2:,} cell means {tests.n_resamples:,} times", f"compare fewer levels (leave some out with "
                f"{opt('where')})")


def _gigabytes(cells: int) -> str:
    """The memory a two-factor analysis of ``cells`` cells takes, about (measured on 4 items: 15 cells 260 MB,
    30 cells 880 MB; it grows as the square of the cells)."""
    return f"{cells * cells / 1000:,.3g} GB" if cells * cells >= 1000 else f"{cells * cells:,} MB"


def analyze_factors(log, question, probe=None, tests=None):
    """Analyze a probe that varies two attributes: within-level gaps, main effects, interaction.

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
        The log, shaped (:func:`probestats.analyze_factors` reads it with its read options).
    question : Question
        The ``metric`` and the two ``factor`` columns (:class:`probestats.analyses.question.Question`): each a
        column, or ``"COLUMN=LEVEL,LEVEL"`` naming its levels in the order wanted (without
        one, in order of appearance in the log). Gaps are the first level − the second, and the
        interaction ``(m11 − m21) − (m12 − m22)`` takes the sign a treatment-coded regression's
        interaction coefficient has with the first levels as reference. With two levels each, the 2 × 2 analysis below (a :class:`FactorAnalysis`). With more levels
        in either, the I × J analysis of :mod:`probestats.analyses.factors_many_levels` (a
        ``FactorialAnalysis``: per-level means, main effects and interaction by within-item
        permutation, the repeated-measures ANOVA beside). The ``variant`` column (or the header
        it was read from, such as ``style``) can be one of them.
    probe : Probe, optional
        Its ``fold_case``: levels differing only in case or spaces are one.
    tests : Tests, optional
        The direction, level and correction of the effects' tests, and (the I × J analysis) the Monte Carlo
        permutations when they cannot all be enumerated (``n_resamples``, ``seed``).

    Examples
    --------
    >>> from probestats.analyses.question import Question
    >>> from probestats.io.read import read_log   # the job reads and shapes the log; the engine takes it as read
    >>> rows = read_log([{"item": i, "style": s, "name": n, "x": (s == "formal") * (1 + (n == "Greg")) + 0.1 * i}
    ...                  for i in range(6) for s in ("formal", "casual") for n in ("Emily", "Greg")])
    >>> result = analyze_factors(rows, Question("x", factor=["style", "name"]))
    >>> [(e.name, round(e.average, 9)) for e in result.effects][:3]
    [('style within name = Emily', 1.0), ('style within name = Greg', 2.0), ('style', 1.5)]
    >>> result.effect("interaction").average, result.effect("interaction").sign_flip.pvalue
    (-1.0, 0.03125)
    >>> declared = analyze_factors(rows, Question("x", factor=["style=casual,formal", "name=Greg,Emily"]))
    >>> declared.levels, declared.effect("interaction").average
    ((('casual', 'formal'), ('Greg', 'Emily')), -1.0)
    >>> declared.interaction_in_words[:80]
    "interaction negative: the style gap ('casual' − 'formal') is larger among 'Emily"
    """
    tests = as_tests(tests)
    alternative, alpha, correction = tests.alternative, tests.alpha, tests.correction
    metric = question.metric
    factors = list(column_names("factors", question.factor, "style"))
    if len(factors) != 2:
        raise OptionError(f"{opt('factors')}: give exactly two factors (got {len(factors)}), "
                          f"for example {either(repr(['style', 'name']), '--factor style --factor name')}")
    declared = [_declared(log, f) for f in factors]
    factors = [name for name, _, _ in declared]
    c1, c2 = (column for _, column, _ in declared)
    if c1 == c2:
        raise OptionError(f"{opt('factors', factors[0])} and {opt('factors', factors[1])} are the same column; give two attributes")
    lazy = log.lazy.with_columns(pl.col(c1).cast(pl.String).str.strip_chars().alias("_f1"),
                                 pl.col(c2).cast(pl.String).str.strip_chars().alias("_f2"))
    lazy = lazy.with_columns(pl.concat_str([pl.col("_f1"), pl.col("_f2")], separator=" × ").alias("variant"))
    combined = replace(log, lazy=lazy)
    _check_levels(lazy, factors, tests)
    frame, units, _, problems = check_many(combined, Question(metric), probe, keep=["_f1", "_f2"],
                                           value_name="combination")
    levels = []
    for col, name in (("_f1", factors[0]), ("_f2", factors[1])):
        found = frame[col].drop_nulls().unique(maintain_order=True).to_list()
        if len(found) < 2:
            raise OptionError(f"{opt('factors', name)} has {len(found)} level ({', '.join(map(str, found[:8]))}); "
                              f"a factor needs two levels or more")
        levels.append(_in_declared_order(found, declared[len(levels)][2], name, probe))
    if any(len(lv) != 2 for lv in levels):  # beyond 2 × 2
        result = analyze_factorial(unit_means(frame, metric), tests, metric=metric, factors=tuple(factors),
                                   levels=levels, problems=problems)
        # blocks, read on the main effect of each factor of two levels (a gap); a factor of more has none
        blocks = factor_blocks(frame, (c1, c2))
        la, lb = result.levels
        agreements = effect_agreements(frame, metric, Cells(blocks, tuple(factors), result.levels,
                                                            tuple(f"{x} × {y}" for x in la for y in lb)), tests)
        return replace(result, pooled=pooled_in_cells(frame), agreements=agreements,
                       verdict=with_agreements(result.verdict, agreements, blocks))
    (l1a, l1b), (l2a, l2b) = levels
    cells = [f"{x} × {y}" for x in (l1a, l1b) for y in (l2a, l2b)]
    absent = [c for c in cells if c not in units]
    if absent:
        raise OptionError(f"no runs of {', '.join(repr(c) for c in absent)}; a 2×2 design needs every combination")
    means = unit_means(frame, metric)
    wide = means.pivot(on="value", index="item", values="mean").select("item", *cells)
    m = wide.select(cells).to_numpy().astype(float)
    check_size(m, wide["item"].to_list(), metric)
    m11, m12, m21, m22 = m[:, 0], m[:, 1], m[:, 2], m[:, 3]
    f1, f2 = factors
    spec = [
        (f"{f1} within {f2} = {l2a}", f"'{l1a}' − '{l1b}' among '{l2a}' runs", m11 - m21),
        (f"{f1} within {f2} = {l2b}", f"'{l1a}' − '{l1b}' among '{l2b}' runs", m12 - m22),
        (f1, f"'{l1a}' − '{l1b}', the mean of the two within-level gaps", ((m11 - m21) + (m12 - m22)) / 2),
        (f"{f2} within {f1} = {l1a}", f"'{l2a}' − '{l2b}' among '{l1a}' runs", m11 - m12),
        (f"{f2} within {f1} = {l1b}", f"'{l2a}' − '{l2b}' among '{l1b}' runs", m21 - m22),
        (f2, f"'{l2a}' − '{l2b}', the mean of the two within-level gaps", ((m11 - m12) + (m21 - m22)) / 2),
        ("interaction", f"({f1} gap among '{l2a}') − ({f1} gap among '{l2b}'), a difference of differences",
         (m11 - m21) - (m12 - m22)),
    ]

    # each effect's average from the exact sums of the four cells' item means (no residue for equal means)
    c11, c12, c21, c22 = (list(map(float, c)) for c in (m11, m12, m21, m22))
    exact = {f"{f1} within {f2} = {l2a}": [(1, c11), (-1, c21)], f"{f1} within {f2} = {l2b}": [(1, c12), (-1, c22)],
             f1: [(0.5, c11), (-0.5, c21), (0.5, c12), (-0.5, c22)],
             f"{f2} within {f1} = {l1a}": [(1, c11), (-1, c12)], f"{f2} within {f1} = {l1b}": [(1, c21), (-1, c22)],
             f2: [(0.5, c11), (-0.5, c12), (0.5, c21), (-0.5, c22)],
             "interaction": [(1, c11), (-1, c21), (-1, c12), (1, c22)]}
    average = {name: mean_of_combination(exact[name]) for name, _, _ in spec}
    effects = [Effect(name, desc, average[name],
                      replace(sign_flip_test(g, alternative=alternative), statistic=average[name]),
                      tuple(float(x) for x in g),
                      d_z=effect_sizes(g, np.zeros_like(g), confidence=1 - alpha, intervals=g.size >= 2,
                                       mean_gap=average[name]).d_z)
               for name, desc, g in spec]
    adjusted = adjust([e.sign_flip.pvalue for e in effects], correction)
    effects = tuple(replace(e, p_adjusted=p, detected=None if p is None else bool(p <= alpha))
                    for e, p in zip(effects, adjusted))
    runs = int(means["runs"].median()) if means.height else 0

    pooled = pooled_in_cells(frame)
    # models (judges, ...) that answered every cell are blocks: each one's own main effects, read as a pair reads them
    blocks = factor_blocks(frame, (c1, c2))
    agreements = effect_agreements(frame, metric, Cells(blocks, (f1, f2), (levels[0], levels[1]), tuple(cells)), tests)
    verdict = decide_effects([(e.name, e.p_adjusted) for e in effects], alpha=alpha)
    return FactorAnalysis(metric=metric, factors=(f1, f2), levels=(levels[0], levels[1]), effects=effects,
                          items=wide.with_columns(pl.col("item").cast(pl.String)), runs_per_cell=runs,
                          note=runs_note(runs, pooled_phrase(pooled)), correction=correction, alpha=alpha,
                          problems=problems, pooled=pooled, agreements=agreements,
                          verdict=with_agreements(verdict, agreements, blocks))


@dataclass(frozen=True)
class FactorSet:
    """Two-factor analyses of several metrics, or of each ``by`` group (:func:`factor_set`), corrected as one
    family: every effect of every analysis.

    Attributes
    ----------
    analyses : tuple of (str, dict, FactorAnalysis or FactorialAnalysis)
        Per metric and group: the metric, the group's values (empty without ``by``) and its analysis, whose
        corrected p-values and verdict are those of the whole family.
    correction : str
        The correction across the family.
    alpha : float
    family : int
        The tests corrected together (effects × metrics × groups).
    """

    analyses: tuple
    correction: str
    alpha: float
    family: int

    @property
    def metrics(self) -> tuple:
        return tuple(dict.fromkeys(m for m, _, _ in self.analyses))

    def __repr__(self) -> str:
        return one_line(self, metrics=self.metrics, analyses=len(self.analyses), family=self.family)

    def to_frame(self) -> pl.DataFrame:
        """One row per effect of every analysis: metric, group, effect, p and corrected p."""
        rows = []
        for metric, group, a in self.analyses:
            tests = a.effects if hasattr(a, "effects") else a.tests
            for t in tests:
                p = t.sign_flip.pvalue if hasattr(t, "sign_flip") else t.pvalue
                rows.append({"metric": metric, "group": ", ".join(f"{k}={v}" for k, v in group.items()),
                             "effect": t.name, "p": float(p), "p_adjusted": t.p_adjusted})
        return pl.DataFrame(rows, schema={"metric": pl.String, "group": pl.String, "effect": pl.String,
                                          "p": pl.Float64, "p_adjusted": pl.Float64})

    def _repr_html_(self) -> str:
        return html_summary(self, self.to_frame(), metrics=", ".join(self.metrics), correction=self.correction)

    def to_dict(self) -> dict:
        return {"kind": "factor_set", "metrics": list(self.metrics), "correction": self.correction,
                "alpha": self.alpha, "family": self.family,
                "analyses": [{"metric": m, "group": {k: str(v) for k, v in g.items()}, "analysis": a.to_dict()}
                             for m, g, a in self.analyses]}


def factor_set(analyses, tests) -> FactorSet:
    """Correct the effects of several two-factor analyses as one family, and decide each analysis' verdict again,
    with the ``tests``' correction and level.

    ``analyses`` are ``(metric, group, analysis)``; each analysis' raw p-values are kept, its corrected ones
    replaced by the family's.
    """
    correction, alpha = tests.correction, tests.alpha

    raw = []
    for _, _, a in analyses:
        raw += ([e.sign_flip.pvalue for e in a.effects] if hasattr(a, "effects") else [t.pvalue for t in a.tests])
    adjusted = iter(adjust(raw, correction))
    out = []
    for metric, group, a in analyses:
        if hasattr(a, "effects"):
            effects = tuple(replace(e, p_adjusted=p, detected=None if p is None else bool(p <= alpha))
                            for e, p in zip(a.effects, adjusted))
            verdict = decide_effects([(e.name, e.p_adjusted) for e in effects], alpha=alpha)
            a = replace(a, effects=effects, correction=correction, family=len(raw),
                        verdict=with_agreements(verdict, a.agreements, a.verdict.blocks))
        else:
            corrected = tuple(replace(t, p_adjusted=p) for t, p in zip(a.tests, adjusted))
            verdict = decide_effects([(t.name, t.p_adjusted) for t in corrected], alpha=alpha)
            a = replace(a, tests=corrected, correction=correction, family=len(raw),
                        verdict=with_agreements(verdict, a.agreements, a.verdict.blocks))
        out.append((metric, dict(group), a))
    return FactorSet(tuple(out), correction, alpha, len(raw))
