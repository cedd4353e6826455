"""Several metrics in one analysis: one paired analysis per metric, one multiple-testing family.

``analyze LOG --metric a,b,c --by judge`` runs the paired analysis of each metric exactly as a
single-metric call would (same gaps, tests, effect sizes, intervals), then reads the whole family,
metrics × groups, at once: without ``--by`` the family is one test per metric, each on its pooled
comparison (blocks the analysis found, such as models, are averaged inside it, as for one metric).
With Holm's or Bonferroni's correction (Holm is the default) the family is tested jointly
(:mod:`probestats.stats.family`): every item's (or cluster's) gaps are flipped together, so the metrics'
correlation is kept, and the step-down min-P adjusted p-values control the family-wise error while never
exceeding Holm's; a family of measures that all move together is not penalized as if they were
independent. With Benjamini–Hochberg, none, or a member whose headline is the within-item permutation
(runs unequal by design), each member's headline p is corrected alone. Each member's ``p_adjusted`` is the
family's; the result states the family's size and method, and says when the family could never reach
significance at its size (``never_significant_family``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import math

import numpy as np
import polars as pl

from probestats.analyses.clusters import item_clusters
from probestats.analyses.design_read import read_design
from probestats.analyses.pair_tests import PairResult
from probestats.analyses.paired import Analysis
from probestats.analyses.question import split_metrics
from probestats.analyses.verdict import decide_effects, no_noise_check, with_caveats
from probestats.checks.design_facts import Caveat
from probestats.errors import OptionError, count_of, opt
from probestats.result import Result, html_summary, one_line
from probestats.stats.effects import EFFECT_NAMES
from probestats.stats.family import JOINT_TEST, JointFlip, joint_sign_flip
from probestats.stats.multitest import adjust
from probestats.vocabulary import as_tests

__all__ = ["MetricsAnalysis", "FamilyTest", "analyze_metrics", "split_metrics"]


@dataclass(frozen=True)
class FamilyTest:
    """One test of the family: a metric in a group (or on the whole log).

    Attributes
    ----------
    metric : str
    by : dict
        The group (empty without ``--by``).
    result : PairResult
        The comparison, its ``p_adjusted`` corrected over the whole family.
    """

    metric: str
    by: dict
    result: PairResult

    def to_dict(self) -> dict:
        r = self.result
        e = r.effects
        return {"metric": self.metric, "by": dict(self.by), "n_items": r.n_items, "average_gap": r.average_gap,
                "p": r.headline_test.pvalue, "p_adjusted": r.p_adjusted,
                "d_z": None if e is None else e.d_z.value, "d_av": None if e is None else e.d_av.value}


@dataclass(frozen=True)
class MetricsAnalysis(Result):
    """The paired analyses of several metrics of one log, corrected as one family.

    Attributes
    ----------
    analyses : tuple of Analysis
        One per metric, in the order given; each group's (or, without groups, the main
        comparison's) ``p_adjusted`` is the family's.
    family : tuple of FamilyTest
        Every test of the family, metric by metric, group by group.
    correction : str
        The correction over the family.
    effect_size : {"d_z", "d_av"}
        The effect size the table and the heatmap show.
    verdict : Verdict
        The conclusion over the family, decided once: the metrics (and groups) whose family-corrected
        p is at most alpha (:func:`probestats.analyses.verdict.decide_effects`); every renderer words it.
    joint : JointFlip or None
        With ``correction`` Holm or Bonferroni and sign-flip headlines: the joint sign-flip test of the
        family (:mod:`probestats.stats.family`), whose adjusted p-values are the members' ``p_adjusted`` and
        whose omnibus p says whether any member moved; None where each member's p was corrected alone.
    """

    MAIN_TABLE = "metrics"

    analyses: tuple[Analysis, ...]
    family: tuple[FamilyTest, ...]
    correction: str
    effect_size: str = "d_z"
    verdict: object | None = None
    joint: JointFlip | None = None

    @property
    def metrics(self) -> list[str]:
        return [a.metric for a in self.analyses]

    @property
    def alpha(self) -> float:
        return self.analyses[0].alpha

    @property
    def metric(self) -> str:
        return ", ".join(self.metrics)

    @property
    def problems(self) -> tuple:
        return tuple(p for a in self.analyses for p in a.problems)

    @property
    def groups(self) -> list[dict]:
        """The groups, in order of first appearance over the metrics (``[{}]`` without ``--by``)."""
        seen: list[dict] = []
        for t in self.family:
            if t.by not in seen:
                seen.append(t.by)
        return seen

    def cell(self, metric: str, by: dict) -> FamilyTest | None:
        return next((t for t in self.family if t.metric == metric and t.by == by), None)

    def __repr__(self) -> str:
        return one_line(self, metrics=list(self.metrics), tests=len(self.family), correction=self.correction)

    def _repr_html_(self) -> str:
        return html_summary(self, self.to_frame(), metrics=", ".join(self.metrics), correction=self.correction)

    @property
    def family_text(self) -> str:
        groups = self.groups
        shape = (f"{count_of(len(self.metrics), 'metric')} × {count_of(len(groups), 'group')}"
                 if groups != [{}] else count_of(len(self.metrics), "metric"))
        name = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini–Hochberg",
                "none": "no correction"}.get(self.correction, self.correction)
        if self.joint is not None:
            return (f"the joint sign-flip test over the family of {count_of(len(self.family), 'test')} ({shape}): "
                    f"every unit's gaps flipped together, keeping the metrics' correlation; step-down min-P "
                    f"adjusted p (family-wise, never above {name}'s); {self.joint.method}")
        return (f"{name} over the family of {count_of(len(self.family), 'exact sign-flip test')} "
                f"({shape})")

    @property
    def probe_design(self):
        """What this analysis took the probe to be (:func:`probestats.analyses.design_read.read_design`)."""
        return read_design(self)

    def to_dict(self) -> dict:
        return {"design": self.probe_design.to_dict(), "metrics": [a.to_dict() for a in self.analyses],
                "correction": self.correction,
                "family": {"correction": self.correction, "n_tests": len(self.family), "text": self.family_text,
                           "tests": [t.to_dict() for t in self.family],
                           "joint": None if self.joint is None else self.joint.to_dict()},
                "effect_size": self.effect_size, "alpha": self.alpha,
                **({"verdict": self.verdict.to_dict()} if self.verdict is not None else {})}


def _kind(result) -> str:
    """What an analysis that is not a comparison of two values is, in the user's words (never a class name)."""
    values = getattr(getattr(result, "main", None), "values", None)
    many = (f"a comparison of all {len(values)} values" if isinstance(values, (list, tuple)) and len(values) > 2
            else "a comparison of every value")
    return {"ManyAnalysis": many, "FactorAnalysis": "a two-factor analysis", "FactorialAnalysis": "a factorial "
            "analysis", "MetricsAnalysis": "a table of several metrics"}.get(type(result).__name__,
                                                                           "another analysis")


def analyze_metrics(log, question, probe=None, tests=None, *, analyze=None, run=None) -> MetricsAnalysis:
    """One paired analysis per metric (``analyze(log, question, probe, tests, run=run)`` with one metric each),
    one correction.

    Parameters
    ----------
    log
        The log, read once per metric.
    question : Question
        What is compared, with two or more metric columns (:class:`probestats.analyses.question.Question`).
    probe : Probe, optional
        How the log is read and shaped (each metric's analysis applies it).
    tests : Tests, optional
        How the tests are run: ``correction`` over the family metrics × groups, ``effect_size`` what the
        side-by-side table and the heatmap show (each metric's own analysis shows d_z and d_av both).
    analyze : callable
        The single-metric analysis (:func:`probestats.analyses.dispatch.analyze_shaped`).
    run : Run, optional
        Passed to ``analyze`` (:class:`probestats.analyses.question.Run`: ``mdg``, ``within_noise``,
        ``streaming``).

    Examples
    --------
    >>> from probestats.analyses.dispatch import analyze_shaped
    >>> from probestats.analyses.question import Question
    >>> rows = [{"item": i, "variant": v, "x": i + (v == "a"), "y": i * (v == "a")}
    ...         for i in range(6) for v in ("a", "b")]
    >>> from probestats.analyses.question import Run
    >>> res = analyze_metrics(rows, Question(["x", "y"]), analyze=analyze_shaped, run=Run(mdg=False))
    >>> [round(t.result.p_adjusted, 6) for t in res.family]   # the joint test: each its own p here; Holm: 0.0625 twice
    [0.03125, 0.0625]
    """
    tests = as_tests(tests)
    correction, effect_size, q = tests.correction, tests.effect, question
    metrics = list(q.metrics)
    if effect_size not in EFFECT_NAMES:
        raise OptionError(f"{opt('effect_size', effect_size)}: expected one of {', '.join(EFFECT_NAMES)}")
    if len(metrics) < 2:
        raise OptionError("several metrics need two metric names or more")
    each = one_metric_tests(tests)
    analyses = []
    for m in metrics:
        result = analyze(log, replace(q, metric=m), probe, each, run=run)
        if not isinstance(result, Analysis) and q.a is not None and q.b is not None:
            cause = next((n for n in ("factor", "group", "reference", "scale") if getattr(q, n)), None)
            raise OptionError(f"several metrics are analyzed as comparisons of two values; with {opt('a')} and "
                              f"{opt('b')} given, these options give {_kind(result)} for {m!r}: "
                              + (f"drop {opt('factors' if cause == 'factor' else cause)}" if cause else
                                 f"give one {opt('metric')}"))
        if not isinstance(result, Analysis):
            raise OptionError(f"several metrics are analyzed as comparisons of two values; this log under "
                              f"these options gives {_kind(result)} for {m!r}: choose the pair with "
                              f"{opt('a')} and {opt('b')}, or give one {opt('metric')}")
        analyses.append(result)
    by_given = bool(q.by)
    # the family: each metric's pooled comparison, or each --by group of it; blocks a metric's analysis found
    # (models, judges) are averaged inside its pooled gap, as for one metric, not made members of the family
    members = [(a, g) for a in analyses for g in (a.groups if by_given and a.groups else (a.main,))]
    joint = None
    if correction in JOINT_CORRECTIONS and not any(g.permutation is not None for _, g in members):
        joint = joint_family(analyses, members, tests)
        adjusted = list(joint.adjusted)
    else:
        adjusted = adjust([g.headline_test.pvalue for _, g in members], correction)
    done: list[Analysis] = []
    family: list[FamilyTest] = []
    k = 0
    for a in analyses:
        if by_given and a.groups:
            groups = []
            for g in a.groups:
                groups.append(replace(g, p_adjusted=adjusted[k]))
                family.append(FamilyTest(a.metric, dict(g.by), groups[-1]))
                k += 1
            done.append(replace(a, groups=tuple(groups)))
        else:
            main = replace(a.main, p_adjusted=adjusted[k])
            family.append(FamilyTest(a.metric, {}, main))
            k += 1
            done.append(replace(a, main=main, correction=correction))

    def name(t: FamilyTest) -> str:
        return t.metric + (f" ({', '.join(f'{k} = {v}' for k, v in t.by.items())})" if t.by else "")

    test = (JOINT_TEST if joint is not None else
            "the exact sign-flip test on the item gaps of each metric, p corrected over the family")
    verdict = decide_effects([(name(t), t.result.p_adjusted) for t in family], alpha=done[0].alpha,
                             test=test, what="a gap", kind="several metrics",
                             noise=no_noise_check("several metrics", reason=(
                                 "the family of several metrics has no same-versus-same comparison of its own; "
                                 "each metric's analysis has its noise check beside its own gap")))
    never = never_significant_family(family, joint, tests)
    if never is not None:
        verdict = with_caveats(verdict, never, never_significant=True)
    disagree = blocks_caveat(done)
    if disagree is not None:
        verdict = with_caveats(verdict, disagree[0], pooled=disagree[1])
    return MetricsAnalysis(tuple(done), tuple(family), correction, effect_size, verdict, joint)


def blocks_caveat(analyses: Sequence[Analysis]):
    """``(blocks_disagree caveat, pooled phrase)`` when the blocks (or ``by`` groups) some metric's gap averages
    over disagree, as each metric's own analysis read them (:func:`probestats.analyses.blocks.block_agreement`,
    which names the block that drives the pooled gap), else None. Its figures are ``{"metrics": [...]}``, one
    agreement (``BlockAgreement.to_dict()`` with its ``metric``) per metric whose blocks disagree."""
    # lazy: analyses.blocks is off the paired analysis's path (tests/test_start.py)
    from probestats.analyses.blocks import drivers_clause

    found = [(a.metric, a.verdict.agreement) for a in analyses
             if a.verdict.agreement is not None and a.verdict.agreement.disagree]
    if not found:
        return None
    first = found[0][1]
    columns = " x ".join(first.columns)
    if len(found) == 1:
        sentence = f"For {found[0][0]}: {first.statement}"
    else:
        on = "; ".join(f"for {metric}, {r.reasons}" for metric, r in found)
        sentence = (f"The {first.n_blocks} {first.noun} disagree on {len(found)} of {len(analyses)} metrics: {on}. "
                    f"The average over them is not the gap of any one of them: read each metric's results per "
                    f"{columns}.")
    clause = drivers_clause([r for _, r in found])
    on = found[0][0] if len(found) == 1 else f"{len(found)} of {len(analyses)} metrics"
    pooled = f"averaged over {first.n_blocks} {first.noun} that disagree on {on}" + (f" ({clause})" if clause else "")
    return Caveat("blocks_disagree", sentence, {"metrics": [{"metric": m, **r.to_dict()} for m, r in found]}), pooled


def one_metric_tests(tests):
    """``tests`` as each metric's own analysis takes them: the effect size a table of several metrics shows is the
    table's (each metric's analysis shows d_z and d_av both); Hedges' correction applies to every one.

    >>> from probestats.vocabulary import Tests
    >>> one_metric_tests(Tests(effect_size="g_av")).effect_size
    'g_z'
    """
    return replace(tests, effect_size="g_z" if tests.hedges else "d_z")


#: the corrections whose family-wise error the joint sign-flip test controls with more power where the
#: members move together (the step-down min-P never exceeds Holm's or Bonferroni's adjusted p)
JOINT_CORRECTIONS = ("holm", "bonferroni")


def joint_family(analyses, members, tests) -> JointFlip:
    """The joint sign-flip test of the family's ``members`` ((analysis, pair result) pairs): one row per unit
    (an item of a group, or a cluster where the analysis flips whole clusters), one column per test, with the
    ``tests``' resampling."""
    rows: dict = {}
    columns = []
    for a, g in members:
        gaps = g.items.select(pl.col("item").cast(pl.String), "gap")
        if a.clusters is not None:   # whole clusters flip: a cluster's sum of item gaps is one unit
            mapping = item_clusters(a.checked.frame, a.clusters.column, by=list(g.by))
            if g.by:
                mapping = mapping.filter(pl.all_horizontal([pl.col(k).cast(pl.String) == str(v)
                                                            for k, v in g.by.items()]))
            gaps = (gaps.join(mapping.select("item", "cluster").unique("item", keep="first"), on="item", how="left")
                    .group_by(pl.col("cluster").fill_null("(blank)").alias("item"), maintain_order=True)
                    .agg(pl.col("gap").sum()))
        key = tuple(sorted((k, str(v)) for k, v in g.by.items()))
        columns.append({(key, i): float(x) for i, x in gaps.iter_rows() if x is not None})
        for unit in columns[-1]:
            rows.setdefault(unit, len(rows))
    matrix = np.full((len(rows), len(columns)), np.nan)
    for j, col in enumerate(columns):
        for unit, x in col.items():
            matrix[rows[unit], j] = x
    return joint_sign_flip(matrix, alternative=analyses[0].alternative, n_resamples=tests.n_resamples,
                           seed=tests.seed)


def never_significant_family(family, joint, tests):
    """The caveat that the family could never reach significance at this size (at the ``tests``' level, after
    their correction), with what would, else None."""
    correction, alpha = tests.correction, tests.alpha

    if joint is not None:
        floor = joint.floor
        units = int(round(math.log2((2 if family[0].result.sign_flip.alternative == "two-sided" else 1) / floor)))
        how = (f"with at most {count_of(units, 'unit')} (items, or clusters) per test the joint test's smallest "
               f"attainable p is {floor:.3g}")
    else:
        mins = [float(t.result.min_attainable_p) for t in family]
        m = len(family)
        floor = min(1.0, min(mins) * (m if correction in ("holm", "bonferroni") else 1))
        how = (f"each of the {m} tests' smallest attainable p is at least {min(mins):.3g}, so after "
               f"{correction} over {m} tests the smallest attainable corrected p is {floor:.3g}")
    if floor <= alpha:
        return None
    need = math.ceil(math.log2(2 / alpha))
    return Caveat("never_significant_family",
                  f"The family could never reach significance at this size: {how}, above alpha {alpha:g}. Fewer "
                  f"groups in the family, or at least {need} items (or clusters) per test, would let it.",
                  {"floor": floor, "alpha": alpha, "n_tests": len(family), "items_needed": need})
