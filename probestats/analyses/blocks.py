"""Blocks that disagree: whether the groups a headline averages over (models, judges, files, languages) agree.

A paired headline averages the item gaps over its blocks (a setting that varies within cells, or the
``by`` groups). An average over blocks that go opposite ways is not a gap of any of them, so beside the
headline two things are read from the per-block results:

- **heterogeneity**: the within-item permutation test that the blocks' mean gaps are equal, on the
  items x blocks matrix of item gaps (the items measured in every block): within each item the block
  labels of its gaps are exchanged, and the statistic is studentized: each block's mean deviation from
  the items' means against its own standard error (Cochran's Q with each block's own variance,
  :func:`heterogeneity_test`, exact by enumeration when the arrangements are few, else Monte Carlo with its
  floor ``1/(n_resamples + 1)`` stated). Blocks that share one gap but differ in their noise spread (a
  noisier model) are not exchangeable within items, so the raw spread of the block means
  ``n * sum_k (mean gap_k - grand mean)**2``, permuted, spoke on 0.079-0.088 of such logs at alpha 0.05; the
  permuted studentized statistic is exact where the blocks are exchangeable and keeps its level where
  they differ only in spread (asymptotically; measured in ``benchmarks/caveats.py``). A spread difference
  is not disagreement;
- **direction**: the blocks whose corrected gap is at most alpha, higher or lower.

When every item belongs to one group only (``by`` groups of different items: languages, sources), no
item can be read within itself: the test compares the groups' mean gaps on Welch's statistic (each group's
mean against its own standard error), its null distribution drawn by resampling each group's items within
the group, every group centred at one mean (:func:`between_groups_test`): a null bootstrap, which keeps each
group's own spread and skew. Exchanging the items between the groups (a permutation test) read a small,
noisy, skewed group as a different one on up to a quarter of null logs. Groups of fewer than
:data:`MIN_GROUP_ITEMS` items are left out of that test and named as too few to compare (below it the
bootstrap too spoke on 0.097 of null logs of rare 0/1 outcomes with a group of 3 items), and so are groups too
small for gaps this skewed (:func:`skew_floor`: a group's mean is compared only where its skewness, the gaps'
pooled skewness over the square root of its items, is at most :data:`MAX_MEAN_SKEW`): no resampling of five
lognormal items draws the tail they did not show, and the bootstrap spoke on 0.10 of such null logs.

The blocks **disagree** when the heterogeneity p is at most alpha, or when significant blocks go opposite
ways; the headline then says so in one sentence (:attr:`BlockAgreement.phrase`). A Monte Carlo p still
undecided at its budget (its binomial interval holds alpha) is read as neither: the blocks are not said to
differ, and ``undecided`` says the test could not tell.

When three blocks or more disagree, the block that **drives the pooled figure** is named
(:func:`block_driver`, :class:`Driver`): the block whose removal moves the average of the blocks' gaps most,
that is the one whose gap lies farthest from the mean of the others' (the average with it less the average
without it is that distance over the number of blocks). The same test, at the same level, is then run on
the other blocks without it: when they do not differ, it **drives** the disagreement alone ("m0 drives the
pooled gap"); when they differ too, it only **moves the pooled gap most**, and the sentence says the others
differ as well. No block is named when the blocks agree, so one is named on no more than the block test's
level of logs whose blocks agree (0.050 of 200 null logs of five values under eight models, and m0 named on
every one of 200 logs where it alone is at -0.8 against -0.05: ``benchmarks/drivers.py``), nor among two
blocks, nor where two are equally far from the others (removing either moves the average alike). Every mode
(a pair, many values, several metrics, ``--by`` groups) names it from here: the verdict line and the Summary
through :attr:`BlockAgreement.phrase` or :func:`drivers_clause`, JSON as ``driving``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import polars as pl

from probestats.analyses.halves import block_noun
from probestats.analyses.omnibus import (MC_BUDGET_FACTOR, MC_CONFIDENCE, OmnibusResult, TIE_RTOL, as_matrix,
                                         mc_interval, sequential_hits)
from probestats.stats.draw_order import arrangements_in_order, ranks
from probestats.vocabulary import Tests, check_n_resamples

__all__ = ["BlockAgreement", "Driver", "MAX_MEAN_SKEW", "MIN_GROUP_ITEMS", "block_agreement", "block_driver",
           "between_groups_test", "drivers_clause", "p_words", "skew_floor", "welch_statistic"]


def p_words(test) -> str:
    """A permutation test's p as a sentence states it: its floor as ``p < 1/(N+1)`` when Monte Carlo found no
    arrangement as extreme.

    >>> from types import SimpleNamespace as NS
    >>> p_words(NS(pvalue=0.0123, pvalue_bound=None, n_resamples=None))
    'p = 0.012'
    >>> p_words(NS(pvalue=1 / 10001, pvalue_bound="upper", n_resamples=10000))
    'p < 1/(10000+1)'
    """
    if getattr(test, "pvalue_bound", None) == "upper":
        return f"p < 1/({test.n_resamples}+1)"
    return f"p = {test.pvalue:.2g}"


@dataclass(frozen=True)
class Driver:
    """The block that drives the pooled figure of blocks that disagree (:func:`block_driver`).

    Attributes
    ----------
    block : str
        The block whose removal moves the average of the blocks' gaps most.
    gap : float
        Its own gap.
    others_low, others_high : float
        The least and greatest gap of the other blocks.
    pooled_with, pooled_without : float
        The average of the blocks' gaps with it and without it.
    n_others : int
        The other blocks.
    noun : str
        What the other blocks are called, plural ("models").
    others : {"agree", "differ", "undecided"}
        What the block test (the same one, at the same level) says of the other blocks without it; read from
        their directions alone ("differ": significant ones go opposite ways) where the blocks were not tested.
    others_test : OmnibusResult or None
        That test (None where only directions were read).
    compared : int or None
        Of the other blocks, those that test read (with each item in one group, the groups not left out as too
        small to compare or too small for gaps this skewed); None where it read them all. The sentence counts these: the
        test's p speaks of them alone.
    """

    block: str
    gap: float
    others_low: float
    others_high: float
    pooled_with: float
    pooled_without: float
    n_others: int
    noun: str
    others: str
    others_test: object | None = None
    compared: int | None = None

    @property
    def alone(self) -> bool:
        """Without it, the other blocks do not differ: it drives the disagreement alone."""
        return self.others == "agree"

    @property
    def short(self) -> str:
        """The clause a verdict line and a Summary carry: "m0 drives the pooled gap" (alone) or "m0 moves the
        pooled gap most"."""
        return f"{self.block} drives the pooled gap" if self.alone else f"{self.block} moves the pooled gap most"

    @property
    def words(self) -> str:
        """The clause a caveat carries: the short one, its figures, and what the test says of the others."""
        figures = (f"({self.gap:+.3g} against {self.others_low:+.3g} to {self.others_high:+.3g}: the average is "
                   f"{self.pooled_with:+.3g} with it, {self.pooled_without:+.3g} without it)")
        test = "" if self.others_test is None else f" ({p_words(self.others_test)})"
        others = f"the other {self.n_others} {self.noun}"
        if self.others_test is not None and self.compared is not None and self.compared != self.n_others:
            others = f"the other {self.compared} {self.noun} large enough to compare"
        if self.others == "agree":
            how = f"without it {others} do not differ{test}" if self.others_test is not None else \
                f"without it no significant ones among {others} go opposite ways"
            return f"{self.short} {figures}: {how}"
        if self.others == "undecided":
            return f"{self.short} {figures}; whether {others} differ without it is undecided{test}"
        return f"{self.short} {figures}, and {others} differ as well{test}"

    def to_dict(self) -> dict:
        return {"block": self.block, "gap": self.gap, "others_low": self.others_low, "others_high": self.others_high,
                "pooled_with": self.pooled_with, "pooled_without": self.pooled_without, "n_others": self.n_others,
                "others": self.others, "alone": self.alone, "compared": self.compared,
                "others_test": None if self.others_test is None else self.others_test.to_dict()}


def block_driver(labels: Sequence[str], gaps: Sequence[float], rest, *, noun: str = "blocks") -> Driver | None:
    """The block that drives the pooled figure, for blocks already found to disagree (see the module docstring).

    The candidate is the block whose removal moves the average of the blocks' gaps most: the pooled average
    with block k less the average without it is ``(gap_k - mean of the others) / K``, so it is the block
    farthest from the mean of the others; none when two are equally far (gaps 1, 2 and 3). ``rest(k)`` runs the block test on the blocks
    without the k-th (by position among those with a finite gap), at the level of the first, and returns
    ``(test or None, state)``, state "agree", "differ" or "undecided": it **drives** the pooled gap when the
    others agree. None with fewer than three blocks of finite gap (removing either of two moves the average
    alike). Call it only when the blocks disagree: that is what keeps a block from being named where they
    agree.

    >>> d = block_driver(["m0", "m1", "m2", "m3"], [-77.7, -5.0, -5.2, -4.9], lambda k: (None, "agree"),
    ...                  noun="models")
    >>> d.block, d.alone, d.short
    ('m0', True, 'm0 drives the pooled gap')
    >>> d.words
    'm0 drives the pooled gap (-77.7 against -5.2 to -4.9: the average is -23.2 with it, -5.03 without it): without it no significant ones among the other 3 models go opposite ways'
    >>> block_driver(["a", "b", "c"], [1.37, -0.15, 0.31], lambda k: (None, "differ")).short   # by hand: 1.37 - 0.08 = 1.29 is the farthest
    'a moves the pooled gap most'
    >>> block_driver(["a", "b"], [1.0, -1.0], lambda k: (None, "agree")) is None
    True
    >>> block_driver(["a", "b", "c"], [1.0, 2.0, 3.0], lambda k: (None, "agree")) is None   # a and c equally far
    True
    """
    pairs = [(j, lab, float(g)) for j, (lab, g) in enumerate(zip(labels, gaps)) if g is not None and np.isfinite(g)]
    if len(pairs) < 3:
        return None
    values = np.array([g for _, _, g in pairs])
    far = np.array([abs(values[k] - np.delete(values, k).mean()) for k in range(len(values))])
    k = int(np.argmax(far))
    if np.sum(far >= far[k] - 1e-9 * max(far[k], 1e-300)) > 1:
        return None   # two blocks equally far (gaps 1, 2, 3; or all alike): neither moves the average more
    others = np.delete(values, k)
    test, state = rest(pairs[k][0])
    return Driver(block=pairs[k][1], gap=float(values[k]), others_low=float(others.min()),
                  others_high=float(others.max()), pooled_with=float(values.mean()), pooled_without=float(others.mean()),
                  n_others=len(others), noun=noun, others=state, others_test=test)


def drivers_clause(agreements: Sequence) -> str:
    """The clause naming the block(s) that drive the pooled figure of several agreements (one per pair of values,
    or per metric) that disagree, for a verdict line and a Summary: '' when none names one. Each is a
    :class:`BlockAgreement` or its ``to_dict()`` (as a caveat's figures keep it).

    >>> from types import SimpleNamespace as NS
    >>> alone = NS(driving=NS(block="m0", alone=True))
    >>> drivers_clause([alone, alone]), drivers_clause([alone, NS(driving=NS(block="m3", alone=False))])
    ('m0 drives the pooled gaps', 'm0 and m3 move the pooled gaps most')
    >>> drivers_clause([NS(driving=None)])
    ''
    """
    def field(x, name):   # an agreement or its to_dict() (a caveat's figures)
        return x.get(name) if isinstance(x, dict) else getattr(x, name, None)

    drivers = [field(a, "driving") for a in agreements if field(a, "driving") is not None]
    if not drivers:
        return ""
    names = list(dict.fromkeys(field(d, "block") for d in drivers))
    gaps = "gaps" if len(agreements) > 1 else "gap"
    who = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    if all(field(d, "alone") for d in drivers):
        return f"{who} {'drives' if len(names) == 1 else 'drive'} the pooled {gaps}"
    return f"{who} {'moves' if len(names) == 1 else 'move'} the pooled {gaps} most"


@dataclass(frozen=True)
class BlockAgreement:
    """Whether the blocks a headline averages over agree (see the module docstring).

    Attributes
    ----------
    columns : tuple of str
        The block (or ``by``) columns.
    noun : str
        What a block is called, plural ("models", "values of 'file'").
    n_blocks : int
    higher, lower, not_detected : tuple of str
        The blocks whose corrected gap (value A minus value B) is at most alpha and above zero, below
        zero, and the rest.
    test : OmnibusResult or None
        The within-item permutation test of block x gap heterogeneity; None when fewer than two items
        are measured in every block (``reason`` says so).
    n_items : int
        The items the test is computed on (measured under both values in every block; with each item in
        one group only, every item, and the test exchanges the groups' items: :func:`between_groups_test`).
    reason : str or None
        Why there is no heterogeneity test, else None.
    alpha : float
    differ : bool
        The heterogeneity p is at most alpha.
    opposite : bool
        Some significant blocks are higher and some lower.
    disagree : bool
        ``differ`` or ``opposite``: the headline says so.
    undecided : bool
        The heterogeneity test is a Monte Carlo p still undecided at its budget (its binomial interval holds
        alpha): ``differ`` is then False, and the statement (when the blocks go opposite ways) says so.
    phrase : str
        What the headline averaged over, in words: "averaged over 9 models that disagree (4 higher,
        1 lower, 4 not detected)" when they disagree, else "averaged over 9 models".
    statement : str
        The named caveat, in one sentence (empty when they agree).
    reasons : str
        Its middle: why they disagree and which go which way (empty when they agree), for a sentence that
        names several comparisons at once.
    driver : str
        When they disagree, the block that drives the pooled gap (or moves it most) in words: ``driving``'s
        :attr:`Driver.words`; empty when there is none.
    driving : Driver or None
        When three blocks or more disagree, the block whose removal moves the pooled gap most, and whether
        the others, tested alike without it, still differ (:func:`block_driver`); else None.
    too_small : tuple of str
        With each item in one group, the groups of fewer than :data:`MIN_GROUP_ITEMS` items, left out of the
        between-groups test as too small to compare (the statement names them when the caveat speaks).
    too_skewed : tuple of str
        With each item in one group, the groups of :data:`MIN_GROUP_ITEMS` items or more but fewer than
        ``skew_floor``, left out of the between-groups test as too small for gaps this skewed (:func:`skew_floor`;
        the statement names them).
    skew, skew_floor : float or None
        The skewness of the groups' pooled deviations that floor is read from (None where no group was
        resampled), and the floor where it left a group out (else None).
    one_answer : tuple of str
        Of ``not_detected``, the blocks that gave one answer in every run (:meth:`counting_one_answer`): the
        phrase and statement count them apart.
    """

    columns: tuple[str, ...]
    noun: str
    n_blocks: int
    higher: tuple[str, ...]
    lower: tuple[str, ...]
    not_detected: tuple[str, ...]
    test: object | None
    n_items: int
    reason: str | None
    alpha: float
    differ: bool
    opposite: bool
    disagree: bool
    phrase: str
    statement: str
    reasons: str = ""
    driver: str = ""
    undecided: bool = False
    driving: Driver | None = None
    too_small: tuple[str, ...] = ()
    one_answer: tuple[str, ...] = ()
    too_skewed: tuple[str, ...] = ()
    skew: float | None = None
    skew_floor: int | None = None

    #: the name of the caveat this check adds to a verdict
    caveat_id = "blocks_disagree"

    def counting_one_answer(self, names) -> "BlockAgreement":
        """The agreement whose count of the blocks not detected says which of them gave one answer in every run
        (``names``, the ``one_answer`` caveat's blocks): a block whose gap is 0 in every item by construction is
        not one whose gap the test failed to find. Itself where none of ``names`` is among the not detected.

        >>> from types import SimpleNamespace as NS
        >>> grouped = pl.DataFrame({"model": [m for m in "xyzw" for _ in range(4)], "item": list("1234") * 4,
        ...                         "gap": [1.0, 2.0, 1.0, 2.0] + [-1.0, -2.0, -1.0, -1.5] + [0.5, -0.5, 0.2, 0.1] + [0.0] * 4})
        >>> groups = [NS(by={"model": m}, average_gap=g, p_adjusted=p)
        ...           for m, g, p in (("x", 1.5, 0.01), ("y", -1.4, 0.01), ("z", 0.1, 0.6), ("w", 0.0, 1.0))]
        >>> r = block_agreement(grouped, groups, ["model"], Tests(alpha=0.05), a="A", b="B").counting_one_answer({"w"})
        >>> r.phrase[:86]
        'averaged over 4 models that disagree (1 higher, 1 lower, 1 not detected, 1 gave one an'
        >>> "; 1 not detected, 1 gave one answer in every run (w)" in r.statement, r.figures["one_answer"]
        (True, 1)
        """
        names = set(names)
        one = [x for x in self.not_detected if x in names]
        if not one or not self.disagree:
            return self
        n = len(self.not_detected)
        count = f"{n - len(one)} not detected, {len(one)} gave one answer in every run"
        named = ", ".join(one[:5]) + (", ..." if len(one) > 5 else "")
        return replace(self, phrase=self.phrase.replace(f", {n} not detected", f", {count}", 1),
                       statement=self.statement.replace(f"; {n} not detected", f"; {count} ({named})", 1),
                       reasons=self.reasons.replace(f"; {n} not detected", f"; {count} ({named})", 1),
                       one_answer=tuple(one))

    @property
    def figures(self) -> dict:
        """The numbers behind ``statement`` (JSON-safe)."""
        return {"higher": len(self.higher), "lower": len(self.lower),
                "not_detected": len(self.not_detected) - len(self.one_answer), "one_answer": len(self.one_answer),
                "p": None if self.test is None else float(self.test.pvalue), "n_items": self.n_items}

    def to_dict(self) -> dict:
        return {"columns": list(self.columns), "n_blocks": self.n_blocks, "higher": list(self.higher),
                "lower": list(self.lower), "not_detected": list(self.not_detected),
                "test": None if self.test is None else self.test.to_dict(), "n_items": self.n_items,
                "reason": self.reason, "alpha": self.alpha, "differ": self.differ, "opposite": self.opposite,
                "disagree": self.disagree, "undecided": self.undecided, "phrase": self.phrase,
                "statement": self.statement, "driver": self.driver or None,
                "driving": None if self.driving is None else self.driving.to_dict(), "too_small": list(self.too_small),
                "one_answer": list(self.one_answer), "too_skewed": list(self.too_skewed), "skew": self.skew,
                "skew_floor": self.skew_floor}


def _label(key: dict) -> str:
    return ", ".join("(blank)" if v is None else str(v) for v in key.values())


#: Groups of fewer items than this are not read by the between-groups test: below it no resampling held the
#: level on skewed gaps (``benchmarks/caveats.py``), and the caveat names them as too small to compare.
MIN_GROUP_ITEMS = 5

#: The most skewness a group's mean may carry for the between-groups test to read it: a mean of n draws of
#: skewness G1 has skewness G1 / sqrt(n), so a group is compared only with n >= (G1 / MAX_MEAN_SKEW)**2 =
#: 9 G1**2 items (Cochran's rule for the mean of a skewed sample, n > 25 G1**2, asks 0.2).
MAX_MEAN_SKEW = 1 / 3


def skew_floor(gaps, labels) -> tuple[int, float]:
    """The fewest items a group needs for its mean to be compared, and the skewness it is read from: G1, the
    skewness of the groups' pooled deviations (each item's gap less its group's mean, over the group's own
    standard deviation, so that groups of different spread pool one shape; a group of no spread adds nothing),
    and the floor ``max(MIN_GROUP_ITEMS, ceil((G1 / MAX_MEAN_SKEW)**2))``.

    Below it the bootstrap of :func:`between_groups_test` cannot draw the tail a few items did not show: a
    small group of lognormal gaps (skewness 6) has a low mean exactly when its variance is low, and the test
    spoke on 0.10 of null logs at alpha 0.05 (``benchmarks/caveats.py``).

    >>> floor, g1 = skew_floor([0.0, 0.0, 0.0, 0.0, 4.0, 1.0, 2.0, 3.0, 4.0, 5.0], list("aaaaabbbbb"))
    >>> round(g1, 4), floor   # a: deviations (-0.8 x 4, 3.2) / 1.6 = (-0.5 x 4, 2.0); b: symmetric
    (0.75, 6)
    """
    gaps = np.asarray(gaps, dtype=float)
    index = {name: j for j, name in enumerate(dict.fromkeys(labels))}
    codes = np.array([index[x] for x in labels], dtype=np.int64)
    order = np.lexsort((gaps, codes))   # each group's sums over its items by gap: the same bits in any row order
    gaps, codes = gaps[order], codes[order]
    sizes = np.bincount(codes, minlength=len(index)).astype(float)
    deviations = gaps - (np.bincount(codes, weights=gaps, minlength=len(index)) / sizes)[codes]
    spread = np.sqrt(np.bincount(codes, weights=deviations ** 2, minlength=len(index)) / sizes)
    floor_sd = 1e-12 * max(float(np.max(np.abs(deviations))) if len(gaps) else 0.0, 1e-300)
    varied = spread[codes] > floor_sd
    z = deviations[varied] / spread[codes][varied]
    g1 = float(np.mean(np.sort(z ** 3))) if z.size else 0.0   # summed in one order whatever the groups' names
    return max(MIN_GROUP_ITEMS, math.ceil((g1 / MAX_MEAN_SKEW) ** 2 - 1e-9)), g1


def _canonical_groups(codes: np.ndarray, gaps: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The groups renumbered, and the items ordered, by their gaps as given: groups by (size, sorted gaps), the
    items of a group by their gap. The codes, the groups' sizes in the new numbering and the items' order; a
    resample drawn over this layout is the same whatever the log's row order or names. (The gaps as given, not
    as centred: centring rounds, and two groups' order could turn on the last bit of a subtraction.)

    >>> codes, sizes, order = _canonical_groups(np.array([0, 0, 1, 1, 1]), np.array([1.0, -1.0, 0.5, 0.0, -0.5]), 2)
    >>> codes.tolist(), sizes.tolist(), order.tolist()
    ([0, 0, 1, 1, 1], [2.0, 3.0], [1, 0, 4, 3, 2])
    """
    keys = [(int(np.count_nonzero(codes == j)), tuple(np.sort(gaps[codes == j]).tolist())) for j in range(k)]
    codes = ranks(keys)[codes]
    return codes, np.bincount(codes, minlength=k).astype(float), np.lexsort((gaps, codes))


def between_groups_test(gaps, labels, *, n_resamples: int = 10_000, seed: int | None = 0,
                        level: float | None = None, first: int | None = None):
    """Null bootstrap test that the groups' item gaps share one mean: Welch's F (:func:`welch_statistic`, each
    group's mean against its own standard error) read through its own F distribution, its null distribution
    drawn by resampling each group's items within the group after centring every group at one mean (each
    group's deviations from its own mean); p = (hits + 1)/(N + 1), the share of resamples whose Welch p is
    at most the observed one. ``statistic`` is the observed Welch F.

    The groups' labels exchanged across items (a permutation test) is exact only where the groups' gaps are
    exchangeable. Groups that share one mean gap but differ in their noise are not, and where their gaps are
    skewed (rare 0/1 outcomes, exponential or lognormal noise) a small noisy group's mean and variance move
    together: its mean is low exactly when its variance is, and Welch's F, permuted or read from its F
    distribution, spoke on 0.14-0.26 of such null logs at alpha 0.05 (four groups of 30, 20, 10 and 5 items,
    noise SD 0.5 to 2; ``benchmarks/caveats.py``). Resampled within groups, each group keeps its own spread
    and its own skew: on the same logs 0.037 (exponential) and 0.037 (rare 0/1 outcomes) of 300, 0.057 and
    0.049 of 1,000, though two groups of 40 and 5 items of exponential gaps still gave 0.078 of 1,000; on
    lognormal gaps (skewness 6) it halved the excess without removing it (0.093 of 300, 40 and 5 items 0.112
    of 1,000). Where the groups are many and small it is conservative rather than exact, and its power is below
    the permuted test's (the closing note of the benchmark).

    Groups of fewer than :data:`MIN_GROUP_ITEMS` items, or fewer than :func:`skew_floor` asks of gaps this
    skewed, are not passed here (:func:`block_agreement` names them): with them left out, every null of the
    benchmark (normal, exponential, lognormal and rare 0/1 gaps; 30, 20, 10 and 5 items, 40 and 5, 15 each,
    8 groups of 10) is within alpha + 2 SE.

    With a ``level``, the test reads whether p is at most it: the ``first`` draws, doubled while p's binomial
    interval holds the level, up to ``n_resamples`` (then ``undecided``), as the omnibus test adds draws; the
    draws are the first of the same stream, so p is read from fewer of the same resamples.

    Returns an ``OmnibusResult`` (``n_items`` the items, ``n_values`` the groups).

    >>> r = between_groups_test([1.0, 1.1, 0.9, 1.0, -1.0, -1.1, -0.9, -1.0], list("aaaabbbb"), n_resamples=999)
    >>> r.pvalue < 0.05, r.method.startswith("bootstrap (the 8 items resampled within 2 groups")
    (True, True)
    """
    given = np.asarray(gaps, dtype=float)
    gaps = given - given.mean()   # the statistic does not change; the sums of squares below keep their digits
    index = {name: j for j, name in enumerate(dict.fromkeys(labels))}
    codes = np.array([index[x] for x in labels], dtype=np.int64)
    k, n = len(index), len(gaps)
    sizes = np.bincount(codes, minlength=k).astype(float)
    scale = float(np.max(np.abs(gaps))) if n else 0.0

    # the observed statistic summed group by group over the items (the figure shown); each resample's in one
    # bincount over all groups at once: the work grows with resamples x items, not x groups too
    def by_group(x: np.ndarray) -> np.ndarray:
        return np.stack([(x * (codes == j)).sum() for j in range(k)])[None, :]

    observed = float(_welch_evidence(by_group(gaps), by_group(gaps ** 2), sizes, scale)[0])
    shown = float(welch_statistic(by_group(gaps), by_group(gaps ** 2), sizes, scale)[0][0])
    # the null: every group centred at one mean (its deviations from its own mean), laid out group by group in
    # an order of their numbers (:func:`_canonical_groups`), so that the log's row order and names draw alike
    centred = gaps - (np.bincount(codes, weights=gaps, minlength=k) / sizes)[codes]
    codes, sizes, order = _canonical_groups(codes, given, k)
    grouped, deviations = codes[order], centred[order]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)[grouped]
    widths = sizes[grouped]
    last = starts + widths.astype(np.int64) - 1   # a draw that rounds up to its group's width stays in the group
    n_resamples = check_n_resamples(n_resamples)
    rng = np.random.default_rng(seed)
    tol = 1e-9 * max(abs(observed), 1.0)
    chunk = max(1, min(2_000_000 // max(1, n), n_resamples))   # the draws are the same whatever the chunk
    slots = (np.arange(chunk)[:, None] * k + grouped).ravel()   # each resample's groups in a block of k sums

    def batch(m: int) -> int:
        keys = rng.random((m, n))   # each item's draw from its own group, the same draws whatever the chunk
        keys *= widths
        picks = keys.astype(np.int64)
        picks += starts
        np.minimum(picks, last, out=picks)
        drawn = deviations[picks].ravel()
        sums = np.bincount(slots[:m * n], weights=drawn, minlength=m * k).reshape(m, k)
        drawn *= drawn
        squares = np.bincount(slots[:m * n], weights=drawn, minlength=m * k).reshape(m, k)
        return int(np.count_nonzero(_welch_evidence(sums, squares, sizes, scale) >= observed - tol))

    start = n_resamples if level is None or first is None else max(1, min(int(first), n_resamples))
    hits, done, straddles = sequential_hits(batch, start, n_resamples, chunk, level)
    p = (hits + 1) / (done + 1)
    se = float(np.sqrt(p * (1 - p) / done))
    added = (f"; the first {done} of {n_resamples} resamples, p's {MC_CONFIDENCE:.1%} binomial interval no longer "
             f"holding {level:g}" if done < n_resamples else "")
    if straddles:
        low, high = mc_interval(hits, done)
        added += (f"; undecided at this precision: after {done} resamples p's {MC_CONFIDENCE:.1%} interval "
                  f"[{low:.4g}, {high:.4g}] still holds {level:g}")
    method = (f"bootstrap (the {n} items resampled within {k} groups, each centred at one mean; Welch's F through "
              f"its F distribution; n_resamples={done}, seed={seed}, standard error {se:.2g}; "
              f"p = (hits + 1)/(n_resamples + 1)"
              f"{'; no resample was as extreme, so p is below that floor' if hits == 0 else ''}{added})")
    return OmnibusResult(statistic=shown, pvalue=p, method=method, n_items=n, n_values=k, arrangements=0,
                         n_resamples=done, seed=seed, pvalue_se=se, pvalue_bound="upper" if hits == 0 else None,
                         undecided=bool(straddles))


def welch_statistic(sums, squares, sizes, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Welch's heteroscedastic one-way F and its denominator degrees of freedom, for each row of group sums and
    sums of squares (shape ``(m, groups)``; the groups' sizes ``sizes``). Each group is weighted by
    ``w_g = n_g / s_g**2`` (its mean's precision); ``F = sum_g w_g (mean_g - m_w)**2 / (k - 1) / (1 + 2 (k - 2)
    L / (k**2 - 1))`` around the weighted mean ``m_w``, with ``L = sum_g (1 - w_g / W)**2 / (n_g - 1)`` and
    ``df2 = (k**2 - 1) / (3 L)`` (Welch 1951). A group of one item has no variance of its own: it takes the
    pooled variance of the others, with their degrees of freedom; a variance of 0 is floored at
    ``1e-12 * scale**2`` (``scale`` the largest gap).

    >>> from statsmodels.stats.oneway import anova_oneway
    >>> groups = [np.array([1.0, 2.0, 4.0]), np.array([0.0, 0.5, 0.2, 0.1]), np.array([3.0, -1.0, 0.5])]
    >>> F, df2 = welch_statistic([[g.sum() for g in groups]], [[(g ** 2).sum() for g in groups]], [3, 4, 3])
    >>> ref = anova_oneway(groups, use_var="unequal")
    >>> bool(np.isclose(F[0], ref.statistic)), bool(np.isclose(df2[0], ref.df[1]))
    (True, True)
    """
    sums, squares = np.atleast_2d(np.asarray(sums, dtype=float)), np.atleast_2d(np.asarray(squares, dtype=float))
    sizes = np.asarray(sizes, dtype=float)
    k = sizes.size
    means = sums / sizes
    within = np.maximum(squares - sums * means, 0.0)   # each group's sum of squared deviations
    spread = sizes >= 2
    pooled_df = max(float((sizes[spread] - 1).sum()), 1.0)
    pooled = within[:, spread].sum(axis=1, keepdims=True) / pooled_df
    var = np.where(spread, within / np.maximum(sizes - 1, 1.0), pooled)
    df = np.where(spread, sizes - 1, pooled_df)
    weights = sizes / np.maximum(var, 1e-12 * max(scale, 1e-150) ** 2)
    total = weights.sum(axis=1, keepdims=True)
    centre = (weights * means).sum(axis=1, keepdims=True) / total
    lam = ((1 - weights / total) ** 2 / df).sum(axis=1)
    f = (weights * (means - centre) ** 2).sum(axis=1) / (k - 1) / (1 + 2 * (k - 2) * lam / (k * k - 1))
    return f, (k * k - 1) / (3 * np.maximum(lam, 1e-300))


def _welch_evidence(sums, squares, sizes, scale: float) -> np.ndarray:
    """``-log`` of Welch's F p-value (its F distribution with ``k - 1`` and ``df2`` degrees of freedom), the
    permuted statistic of :func:`between_groups_test`: larger is more extreme, and a resample's own degrees of
    freedom are read with it."""
    from scipy.stats import f as f_distribution

    f, df2 = welch_statistic(sums, squares, sizes, scale)
    return -f_distribution.logsf(f, len(sizes) - 1, df2)


#: Most within-item arrangements the heterogeneity test enumerates exactly (the first item's held fixed).
MAX_EXACT_HETEROGENEITY = 50_000


def studentized_statistic(stack) -> np.ndarray:
    """The studentized spread of the blocks' mean gaps, for each items x blocks matrix of a stack (shape
    ``(..., n_items, n_blocks)``): each item's gaps are taken from that item's mean over the blocks
    (``d[i, k] = gap[i, k] - mean_j gap[i, j]``, which removes whatever the item adds to every block), and
    each block's mean deviation is divided by its own standard error,
    ``sum_k n * mean_i(d[i, k])**2 / var_i(d[i, k])`` (Cochran's Q with each block's variance its own). A
    block that is only noisier has a larger variance, not a larger statistic.

    >>> x = np.array([[1.0, 0.0], [2.0, 0.0], [1.5, 1.0]])   # two blocks: twice the paired t of their difference, squared
    >>> d = x[:, 0] - x[:, 1]
    >>> t = d.mean() / (d.std(ddof=1) / np.sqrt(3))
    >>> bool(np.isclose(studentized_statistic(x), 2 * t ** 2))
    True
    """
    x = np.asarray(stack, dtype=float)
    n = x.shape[-2]
    d = x - x.mean(axis=-1, keepdims=True)
    mean = d.mean(axis=-2)
    var = d.var(axis=-2, ddof=1) if n > 1 else np.zeros_like(mean)
    floor = 1e-12 * max(float(np.max(np.abs(x - x.mean()))) ** 2, 1e-300)   # a block with no spread at all
    return (n * mean ** 2 / np.maximum(var, floor)).sum(axis=-1)


def heterogeneity_test(matrix, *, n_resamples: int = 10_000, seed: int | None = 0, alpha: float | None = None,
                       max_resamples: int | None = None, max_exact: int = MAX_EXACT_HETEROGENEITY):
    """Within-item permutation test that the blocks' mean gaps are equal, on the studentized statistic
    :func:`studentized_statistic` recomputed in every arrangement.

    Within each item the block labels of its gaps are exchanged, as in
    :func:`probestats.analyses.omnibus.omnibus_test`, but the statistic is not the blocks' raw spread: each
    block's mean deviation is measured against its own standard error. Where the blocks are exchangeable
    within items (the same gap and the same spread) the test is exact whatever statistic it uses; where they
    share one mean gap but differ in their noise spread the labels are not exchangeable, and the raw spread,
    permuted, spoke on 0.079-0.088 of such logs at alpha 0.05 (four models of noise SD 0.5 to 2): the
    noisier blocks' deviations were read as differences. A studentized statistic keeps a permutation test's
    level under such a spread difference (asymptotically: Janssen 1997 and Chung and Romano 2013 for
    studentized permutation statistics; Friedrich, Brunner and Pauly 2017 for permuting within subjects);
    measured in ``benchmarks/caveats.py``.

    Exact by enumeration when ``(blocks!) ** (items - 1)`` is at most ``max_exact`` (the first item's
    arrangement held fixed: the statistic does not change when every item's labels are arranged alike), else
    Monte Carlo with p = (hits + 1)/(N + 1); with ``alpha``, resamples are added while p's binomial interval
    holds alpha, up to ``max_resamples`` (then ``undecided``), as the omnibus test does.

    Returns an :class:`~probestats.analyses.omnibus.OmnibusResult` (``statistic`` the observed statistic).

    Examples
    --------
    Three judges over four items, two above zero and one below: the exact p is the share of the
    ``6**3`` arrangements of the last three items whose statistic reaches the observed one.

    >>> m = np.array([[1.0, 1.5, -1.0], [2.0, 1.0, -2.0], [1.0, 2.0, -1.0], [2.0, 1.0, -1.5]])
    >>> r = heterogeneity_test(m)
    >>> r.method
    'exact (enumeration of all 216 within-item arrangements of the block labels of items 2 to 4, studentized statistic)'
    >>> round(r.pvalue * 216)
    4
    """
    m = as_matrix(matrix)
    n, k = m.shape
    common = dict(n_items=n, n_values=k)
    spread = m - m.mean(axis=1, keepdims=True)
    if n < 2 or not np.any(np.abs(spread) > 0):
        return OmnibusResult(statistic=0.0, pvalue=1.0, arrangements=1, method="exact (every item has the same gap "
                             "in every block)", **common)
    t_obs = float(studentized_statistic(m))
    tol = TIE_RTOL * max(abs(t_obs), 1.0)
    label_perms = np.array(list(itertools.permutations(range(k)))) if math.factorial(k) <= 720 else None
    total = math.factorial(k) ** (n - 1) if label_perms is not None and n - 1 <= 64 else None
    if total is not None and total <= max_exact:
        hits, size = 0, 0
        for combo in _combinations(len(label_perms), n - 1, chunk=max(1, 200_000 // max(1, n * k * k))):
            order = np.concatenate([np.broadcast_to(np.arange(k), (len(combo), 1, k)),
                                    label_perms[combo]], axis=1)
            stack = np.take_along_axis(np.broadcast_to(m, (len(combo), n, k)), order, axis=2)
            hits += int(np.count_nonzero(studentized_statistic(stack) >= t_obs - tol))
            size += len(combo)
        return OmnibusResult(statistic=t_obs, pvalue=hits / size, arrangements=size,
                             method=f"exact (enumeration of all {size} within-item arrangements of the block labels "
                                    f"of items 2 to {n}, studentized statistic)", **common)
    n_resamples = check_n_resamples(n_resamples)
    budget = max(n_resamples, MC_BUDGET_FACTOR * n_resamples if max_resamples is None else int(max_resamples))
    rng = np.random.default_rng(seed)
    chunk = max(1, 1_000_000 // (n * k * k))
    # each item's gaps permuted from their sorted order, the items in an order of their numbers: the same
    # arrangements' distribution, drawn alike whatever the log's row order and the blocks' names and order
    base = arrangements_in_order(m)

    def batch(size: int) -> int:
        stack = rng.permuted(np.broadcast_to(base, (size, n, k)), axis=2)
        return int(np.count_nonzero(studentized_statistic(stack) >= t_obs - tol))

    hits, done, straddles = sequential_hits(batch, n_resamples, budget, chunk, alpha)
    low, high = mc_interval(hits, done)
    p = (hits + 1) / (done + 1)
    se = math.sqrt(p * (1 - p) / done)
    added = (f"; {done - n_resamples} resamples added to the first {n_resamples} because p's "
             f"{MC_CONFIDENCE:.1%} binomial interval held alpha = {alpha:g}" if done > n_resamples else "")
    if straddles:
        added += (f"; undecided at this precision: after {done} resamples (the budget) p's {MC_CONFIDENCE:.1%} "
                  f"interval [{low:.4g}, {high:.4g}] still holds alpha")
    text = (f"monte carlo (block labels exchanged within items, studentized statistic; n_resamples={done}, "
            f"seed={seed}, standard error {se:.2g}; p = (hits + 1)/(n_resamples + 1)"
            f"{'; no resample was as extreme, so p is below that floor' if hits == 0 else ''}{added})")
    return OmnibusResult(statistic=t_obs, pvalue=p, method=text, arrangements=0, n_resamples=done, seed=seed,
                         pvalue_se=se, pvalue_bound="upper" if hits == 0 else None, undecided=bool(straddles),
                         pvalue_interval=(low, high), **common)


def _combinations(base: int, digits: int, *, chunk: int):
    """Every tuple of ``digits`` indices below ``base``, in arrays of at most ``chunk`` rows."""
    total = base ** digits
    for start in range(0, total, chunk):
        codes = np.arange(start, min(total, start + chunk))
        out = np.empty((len(codes), digits), dtype=int)
        for j in range(digits - 1, -1, -1):
            out[:, j] = codes % base
            codes = codes // base
        yield out


@dataclass(frozen=True)
class _Rest:
    """``rest(k)`` for :func:`block_driver`: the block test of :func:`block_agreement`, run alike on the blocks
    without the k-th, read at ``level``; their directions alone where the blocks were not ``tested``. ``first``,
    ``budget`` and ``draw_seed`` are the test's resamples as :func:`block_agreement` drew them."""

    matrix: np.ndarray
    keyed: pl.DataFrame
    labels: tuple
    higher: frozenset
    lower: frozenset
    tested: bool
    level: float
    first: int | None
    budget: int
    draw_seed: int | None

    def __call__(self, k: int):
        others = {lab for j, lab in enumerate(self.labels) if j != k}
        opposite = bool(others & self.higher) and bool(others & self.lower)
        if not self.tested:
            return None, "differ" if opposite else "agree"
        if self.matrix.shape[0] >= 2:
            sub = np.delete(self.matrix, k, axis=1)
            if self.first is not None:
                test = heterogeneity_test(sub, n_resamples=min(self.first, self.budget), seed=self.draw_seed,
                                          alpha=self.level, max_resamples=MC_BUDGET_FACTOR * self.budget)
            else:
                test = heterogeneity_test(sub, n_resamples=self.budget, seed=self.draw_seed)
        else:   # each item in one group: the other groups' items resampled within them
            kept = self.keyed.filter(pl.col("__block") != self.labels[k])
            if kept["__block"].n_unique() < 2:   # the others but one too small to compare
                return None, "differ" if opposite else "agree"
            # read only against the level (the others agree or not), from the first tenth of the draws while
            # that settles it: with a thousand --by groups this second test cost as much as the first
            test = between_groups_test(kept["gap"].to_numpy().astype(float), kept["__block"].to_list(),
                                       n_resamples=self.budget, seed=self.draw_seed, level=self.level,
                                       first=max(1, self.budget // 10))
        if getattr(test, "undecided", False):
            return test, "undecided"
        return test, "differ" if opposite or test.pvalue <= self.level else "agree"


def block_agreement(grouped: pl.DataFrame, groups: Sequence, columns: Sequence[str], tests: Tests | None = None, *,
                    a: str, b: str, untested: str | None = None, first: int | None = None,
                    family: int = 1) -> BlockAgreement | None:
    """Whether the per-block results ``groups`` (``PairResult`` with ``by`` and ``p_adjusted``) agree, read at
    the ``tests``' ``alpha`` and resampled with their ``n_resamples`` and ``seed`` (the defaults without them).

    With ``untested`` (the reason, in words), only their directions are read and the heterogeneity test is
    not run. With ``first``, a Monte Carlo heterogeneity test draws that many resamples first and adds more
    (doubling) only while its p's interval holds ``alpha``, up to the budget of ``n_resamples``
    (:func:`probestats.analyses.omnibus.omnibus_test` with ``alpha``): the method says how many were drawn.
    With ``family`` above 1, the heterogeneity test is one of that many read together, and its p is read
    at ``alpha / family`` (Bonferroni), as its sentence says.

    ``grouped`` is the item table per block (the ``columns``, ``item`` and ``gap``). None with fewer than
    two blocks.

    Examples
    --------
    Three judges over four items: two put value A above B on every item, one below.

    >>> from types import SimpleNamespace as NS
    >>> grouped = pl.DataFrame({"judge": ["x"] * 4 + ["y"] * 4 + ["z"] * 4, "item": ["1", "2", "3", "4"] * 3,
    ...                         "gap": [1.0, 2.0, 1.0, 2.0, 1.5, 1.0, 2.0, 1.0, -1.0, -2.0, -1.0, -1.5]})
    >>> groups = [NS(by={"judge": j}, average_gap=g, p_adjusted=0.04) for j, g in (("x", 1.5), ("y", 1.4), ("z", -1.4))]
    >>> from probestats.vocabulary import Tests
    >>> r = block_agreement(grouped, groups, ["judge"], Tests(alpha=0.05), a="A", b="B")
    >>> r.disagree, r.phrase
    (True, 'averaged over 3 judges that disagree (2 higher, 1 lower, 0 not detected; z drives the pooled gap)')

    z is farthest from the others' mean (-1.4 against 1.45), and without it x and y do not differ: the same
    test on their 2 x 4 matrix, by hand, flips the sign of their difference in items 2 to 4 (8 arrangements)
    and every one reaches the observed statistic.

    >>> r.driving.block, r.driving.alone, r.driving.others_test.pvalue
    ('z', True, 1.0)
    >>> r.test.pvalue == 4 / 6**3   # brute force over the 6**3 arrangements of items 2 to 4: 4 reach it
    True
    """
    tests = Tests() if tests is None else tests
    alpha, n_resamples, seed = tests.alpha, tests.n_resamples, tests.seed
    columns = list(columns)
    if len(groups) < 2:
        return None
    labels = [_label(g.by) for g in groups]
    higher, lower, null = [], [], []
    for label, g in zip(labels, groups):
        significant = g.p_adjusted is not None and g.p_adjusted <= alpha
        (higher if significant and g.average_gap > 0 else lower if significant and g.average_gap < 0 else null).append(label)
    keyed = grouped.with_columns(
        pl.concat_str([pl.col(c).cast(pl.String).fill_null("(blank)") for c in columns], separator=", ").alias("__block"))
    nested = keyed.group_by("item").agg(pl.col("__block").n_unique().alias("k"))["k"].max() == 1
    matrix = np.zeros((0, len(labels)))   # nested in two blocks or more: no item is measured in every block
    if not nested or len(set(labels)) < 2:   # (the pivot of a thousand --by groups' items took a second)
        wide = (keyed.filter(pl.col("gap").is_not_null()).select(pl.col("item").cast(pl.String), "__block", "gap")
                .pivot(on="__block", index="item", values="gap", aggregate_function="first"))
        present = [lab for lab in labels if lab in wide.columns]
        wide = wide.select("item", *present).drop_nulls() if len(present) == len(labels) else wide.clear()
        matrix = wide.select(present).to_numpy().astype(float) if wide.height else matrix
    noun = block_noun(columns, len(groups))
    test, reason, too_small, too_skewed, sizes, floor, skew = None, None, (), (), {}, MIN_GROUP_ITEMS, None
    if untested is not None:
        reason = untested
    elif matrix.shape[0] >= 2 and first is not None:
        test = heterogeneity_test(matrix, n_resamples=min(first, n_resamples), seed=seed, alpha=alpha / family,
                                  max_resamples=MC_BUDGET_FACTOR * n_resamples)
    elif matrix.shape[0] >= 2:
        test = heterogeneity_test(matrix, n_resamples=n_resamples, seed=seed)
    elif nested and keyed.height > len(groups):   # each item in one group: the groups' items resampled
        sizes = dict(keyed.group_by("__block").len().iter_rows())
        too_small = tuple(lab for lab in labels if sizes.get(lab, 0) < MIN_GROUP_ITEMS)
        keyed = keyed.filter(~pl.col("__block").is_in(too_small))
        if keyed.height:   # and those too small for gaps this skewed (:func:`skew_floor`)
            floor, skew = skew_floor(keyed["gap"].to_numpy().astype(float), keyed["__block"].to_list())
            too_skewed = tuple(lab for lab in labels if lab not in too_small and sizes.get(lab, 0) < floor)
            keyed = keyed.filter(~pl.col("__block").is_in(too_skewed))
        if len(labels) - len(too_small) - len(too_skewed) >= 2:
            test = between_groups_test(keyed["gap"].to_numpy().astype(float), keyed["__block"].to_list(),
                                       n_resamples=n_resamples, seed=seed)
        else:
            reason = (f"{_left_out_words(too_small, too_skewed, sizes, len(groups), noun, floor, skew)}, so whether "
                      "their gaps differ is not tested")
    else:
        reason = (f"fewer than two items are measured under both values by every one of the {len(groups)} {noun}, "
                  "so whether their gaps differ is not tested")
    undecided = test is not None and bool(getattr(test, "undecided", False))
    differ = test is not None and not undecided and test.pvalue <= alpha / family
    opposite = bool(higher and lower)
    disagree = differ or opposite
    n = len(groups)
    if disagree:
        rest = _Rest(matrix=matrix, keyed=keyed, labels=tuple(labels), higher=frozenset(higher), lower=frozenset(lower),
                     tested=test is not None, level=alpha / family, first=first, budget=n_resamples, draw_seed=seed)
        driving = block_driver(labels, [g.average_gap for g in groups], rest, noun=block_noun(columns, n - 1))
        left = set(too_small) | set(too_skewed)
        if driving is not None and left and driving.others_test is not None:   # read only groups large enough
            compared = sum(lab not in left and lab != driving.block for lab in labels)
            driving = replace(driving, compared=compared, noun=block_noun(columns, compared))
        counts = f"{len(higher)} higher, {len(lower)} lower, {len(null)} not detected"
        counts += "" if driving is None else f"; {driving.short}"
        one_way = not opposite and not (higher and null and not lower) and len(higher) + len(lower) == n
        phrase = (f"averaged over {n} {noun} whose gaps differ in size (all {n} {'higher' if higher else 'lower'}"
                  f"{'' if driving is None else '; ' + driving.short})"
                  if one_way else f"averaged over {n} {noun} that disagree ({counts})")
        why = []
        if differ:
            kind = ("the within-item permutation test of " if matrix.shape[0] >= 2 else
                    f"the bootstrap test of the items' gaps between the {test.n_values} ")
            level = (f", at most alpha / {family} = {alpha / family:.3g} (Bonferroni across {family} tests)"
                     if family > 1 else "")
            why.append(f"their item gaps differ by more than chance ({kind}{noun}"
                       f"{' x gap' if matrix.shape[0] >= 2 else ''}, {p_words(test)}, {test.n_items} items{level})")
        if opposite:
            why.append(f"significant {noun} go opposite ways" + (
                f" (whether their item gaps differ by more than chance is undecided: {p_words(test)} after "
                f"{test.n_resamples} resamples)" if undecided else ""))
        shown = "; ".join(f"{what} ({', '.join(names[:5])}{', ...' if len(names) > 5 else ''})"
                          for what, names in ((f"{len(higher)} with '{a}' higher than '{b}'", higher),
                                              (f"{len(lower)} lower", lower)) if names)
        driver = "" if driving is None else driving.words
        left_out = ("" if not (too_small or too_skewed) else
                    _left_out_words(too_small, too_skewed, sizes, n, noun, floor, skew) + ", not tested")
        reasons = f"{' and '.join(why)}: " + "; ".join(x for x in (shown, f"{len(null)} not detected" if null else "",
                                                                   driver, left_out) if x)
        verb = "differ in size" if one_way else "disagree"
        statement = (f"The {n} {noun} {verb}: {reasons}. The average over them is not the gap of any one of "
                     f"them: read the results per {' x '.join(columns)}.")
    else:
        phrase, statement, reasons, driver, driving = f"averaged over {n} {noun}", "", "", "", None
    return BlockAgreement(columns=tuple(columns), noun=noun, n_blocks=n, higher=tuple(higher), lower=tuple(lower),
                          not_detected=tuple(null), test=test, n_items=0 if test is None else int(test.n_items), reason=reason,
                          alpha=alpha, differ=differ, opposite=opposite, disagree=disagree, phrase=phrase,
                          statement=statement, reasons=reasons, driver=driver, undecided=undecided, driving=driving,
                          too_small=too_small, too_skewed=too_skewed,
                          skew=None if skew is None else float(skew), skew_floor=floor if too_skewed else None)


def _left_out_words(small: Sequence[str], skewed: Sequence[str], sizes: dict, n: int, noun: str, floor: int,
                    skew: float | None) -> str:
    """The groups left out of the between-groups test, too small to compare and too small for gaps this skewed.

    >>> print(_left_out_words(("fr",), ("de", "it"), {"fr": 3, "de": 12, "it": 9}, 5, "models", 19, 1.41))
    1 of the 5 models has fewer than 5 items, too few to compare (fr 3); 2 have fewer than 19 items, too few for gaps this skewed (skewness 1.41: a mean is compared where its skewness, 1.41 / sqrt(items), is at most 1/3) (de 12, it 9)
    >>> _left_out_words((), ("de",), {"de": 12}, 3, "models", 19, -1.41)[:64]
    '1 of the 3 models has fewer than 19 items, too few for gaps this'
    """
    parts = [_too_small_words(small, sizes, n, noun)] if small else []
    if skewed:
        shown = ", ".join(f"{x} {sizes.get(x, 0)}" for x in skewed[:5]) + (", ..." if len(skewed) > 5 else "")
        head = (f"{len(skewed)}" if small else f"{len(skewed)} of the {n} {noun}")
        parts.append(f"{head} {'has' if len(skewed) == 1 else 'have'} fewer than {floor} items, too few for gaps "
                     f"this skewed (skewness {skew:.3g}: a mean is compared where its skewness, {abs(skew):.3g} / "
                     f"sqrt(items), is at most 1/3) ({shown})")
    return "; ".join(parts)


def _too_small_words(names: Sequence[str], sizes: dict, n: int, noun: str) -> str:
    """The groups left out of the between-groups test, in words: how many, which (five at most) with their items.

    >>> _too_small_words(("fr", "de"), {"fr": 3, "de": 4}, 5, "values of 'language'")
    "2 of the 5 values of 'language' have fewer than 5 items, too few to compare (fr 3, de 4)"
    >>> _too_small_words(("fr",), {"fr": 1}, 2, "models")
    '1 of the 2 models has fewer than 5 items, too few to compare (fr 1)'
    """
    shown = ", ".join(f"{x} {sizes.get(x, 0)}" for x in names[:5]) + (", ..." if len(names) > 5 else "")
    return (f"{len(names)} of the {n} {noun} {'has' if len(names) == 1 else 'have'} fewer than {MIN_GROUP_ITEMS} "
            f"items, too few to compare ({shown})")
