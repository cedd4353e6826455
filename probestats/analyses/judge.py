"""Order probes on a pairwise judge: does the answer a judge prefers depend on where it is shown?

Each item (two answers to one question) is judged with the answers in both orders, the
two values of the ``order`` column. A verdict names a slot (``first``, ``second``,
``tie``), read from the judge's reply by declared rules
(:mod:`probestats.shape.verdicts`) or taken from a column that already holds it. Because
the slots are mirrored between the orders, the judge prefers the **same answer** in
both orders when its verdicts are ``first`` then ``second``, ``second`` then ``first``,
or ``tie`` twice: the item is **consistent**. Otherwise it is inconsistent:

* **primacy**: ``first`` both times (the answer shown first wins, whichever it is);
* **recency**: ``second`` both times;
* an **inconsistent tie**: a tie in one order and a slot in the other.

Per judge (each ``by`` group):

* **position consistency** = consistent items / items with both verdicts parsed, with
  an exact Clopper–Pearson interval (:func:`probestats.stats.proportion.share`). An
  item with an unparsed verdict is left out of it;
* **consistency, unparsed as consistent**: the figure other tools publish, where an
  item whose verdict could be read in one order only counts as consistent:
  (consistent + items with exactly one unparsed verdict) / (items with both verdicts
  parsed + items with exactly one unparsed verdict). Items with both verdicts unparsed
  are left out of both figures (nothing of the judge's could be read);
* **ties**: consistent ties (tie twice) and inconsistent ties (one tie), counted apart;
* the **order test**: the exact two-sided binomial test of primacy against recency
  (k = primacy of n = primacy + recency, p = 1/2; scipy's ``binomtest``);
* the **preference score** = (primacy − recency) / (primacy + recency), in [−1, 1]:
  +1 every inconsistent non-tie item favours the first slot, −1 the second, 0 neither
  side; None when there is no such item;
* the **sign-flip test of the order effect** on the score of an answer (1 when the
  verdict names it, ½ for a tie, 0 otherwise). Call X the answer shown first under
  the first value of ``order``; per item, the effect is X's score when shown first
  minus X's score when shown second, ``d = s(X first) − s(X second)``, which is the
  first slot's score in one order plus the first slot's score in the other, minus 1:
  +1 for primacy, −1 for recency, 0 when consistent, ±½ when one verdict is a tie. The
  exact sign-flip test (:func:`probestats.stats.hypotests.sign_flip_test`) asks whether
  the mean of ``d`` over items is zero, like every other probe.

* the **choice rate** of one answer, X (the answer shown first under ``own_first``, by default the
  first value of ``order``; for a self-preference probe the judge's own answer): the share of items
  whose verdict names X **in each order**, their **mean** (the order-averaged rate, which a position
  bias cannot move, because X sits in each slot once), with the exact binomial test of that mean
  against a stated ``chance`` rate (0.5 by default) and its Clopper–Pearson interval, both on the
  pooled verdicts (k of 2n; ties name neither answer and count in n), and the **position bias** apart:
  half the difference between the rate when X is shown first and when it is shown second. A judge that
  chose the same slot in both orders in at least 90% of its items (:data:`SLOT_BOUND`) is named as
  **always picking** that slot: its order-averaged rate sits near one half whatever it thinks of the
  answers, and is neither a preference nor neutrality.

Both p-values are corrected across judges (Holm by default), each family on its own (and the choice
rate's test, a third family).
Which value of ``order`` is called first does not change any figure (``d`` is symmetric
in the two orders); reading every ``first`` as ``second`` and back swaps primacy and
recency and negates the preference score and ``d``.

With a ``repetition`` column each item is judged again in each repetition. The counts
above then pool item × repetition pairs (the consistency is the mean of the
repetitions' consistencies when every repetition has the same items); its interval and
the binomial test treat the pairs as independent, which overstates their certainty when
a judge repeats itself, so the position consistency of each repetition is given with its
own interval beside them. The sign-flip test keeps the item as its unit (``d`` averaged
over the item's repetitions). **Repetition stability** is the share of items whose
verdict in each order is the same in every repetition (items with an unparsed verdict,
or judged in one repetition only, are left out).

Examples
--------
>>> rows = [{"item": i, "order": o, "reply": r} for i, (r1, r2) in enumerate(
...     [("[[A]]", "[[B]]"), ("[[A]]", "[[A]]"), ("[[B]]", "[[A]]"), ("[[C]]", "[[C]]")])
...     for o, r in (("AB", r1), ("BA", r2))]
>>> g = analyze_order(rows, order="order", verdicts=["first=[[A]]", "second=[[B]]", "tie=[[C]]"]).groups[0]
>>> g.consistency.k, g.n_items, g.primacy, g.recency, g.ties_consistent
(3, 4, 1, 0, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import Sequence

import numpy as np
import polars as pl

from probestats.analyses.evaluator import with_scale
from probestats.analyses.paired import analyze_pair
from probestats.analyses.question import Question, Run
from probestats.analyses.verdict import NoiseCheck, decide_effects
from probestats.checks.columns import explode_fix
from probestats.errors import ColumnError, OptionError, Problem, ValidationError, count_of, either, opt
from probestats.result import Result, html_summary, jsonable, one_line
from probestats.shape.verdicts import Rule, choice_rules, extract_all, parse_rules
from probestats.stats.agreement import Kappa, cohens_kappa
from probestats.stats.hypotests import TestResult, sign_flip_test
from probestats.stats.multitest import adjust
from probestats.stats.proportion import Share, binomial_test, share

__all__ = ["OrderGroup", "JudgeResult", "ChoiceRate", "choice_rate", "analyze_order", "analyze_scored", "item_verdicts", "SCHEMA_VERSION"]

from probestats.result import SCHEMA_VERSION  # noqa: E402  (one contract for every command's JSON)
from probestats.vocabulary import CORRECTIONS, Tests, check_chance, check_vocabulary  # noqa: E402,F401
_SCORE = {"first": 1.0, "tie": 0.5, "second": 0.0}  # the first slot's score
#: A judge that chose the same slot in both orders in at least this share of its items "always picks" that slot.
SLOT_BOUND = 0.9
_LISTED = 10  # distinct unparsed replies listed per group
_ROWS = 100  # rows named per problem


@dataclass(frozen=True)
class RepetitionConsistency:
    """Position consistency within one repetition.

    Attributes
    ----------
    repetition : str
        The repetition (a value of the repetition column).
    consistency : Share
        Items whose verdict is the same answer in both orders, of the items judged in both.
    """

    repetition: str
    consistency: Share

    def to_dict(self) -> dict:
        return {"repetition": self.repetition, "consistency": self.consistency.to_dict()}


@dataclass(frozen=True)
class ChoiceRate:
    """How often a judge chose one answer, X, in each order and averaged over both, against chance.

    Attributes
    ----------
    answer : str
        X in words (the answer shown first under ``first_under``).
    first_under : str
        The order that shows X first.
    chance : float
        The chance rate the mean is tested against.
    orders : tuple of (str, str, Share)
        Per order: its value, the slot X is shown in there (``first`` or ``second``), and the share of the
        items whose verdict names X, with its exact interval.
    mean : Share
        The order-averaged rate: the verdicts naming X in both orders pooled, ``k`` of ``2n``, with its exact
        (Clopper–Pearson) interval; equal to the mean of the two orders' rates.
    pvalue : float or None
        The exact two-sided binomial test of ``mean.k`` of ``mean.n`` against ``chance`` (scipy's ``binomtest``).
    p_adjusted : float or None
        ``pvalue`` corrected across judges.
    position_bias : float or None
        Half the rate when X is shown first minus the rate when it is shown second: the share of choices the
        first slot takes beyond one half, when there are no ties.
    first_slot : Share
        The verdicts naming the first slot, of both orders' verdicts.
    slot_bound : {"first", "second"} or None
        The slot the judge chose in both orders in at least :data:`SLOT_BOUND` of its items, if any.
    reading : str
        The words every renderer shows: ``always picks the first answer``, ``prefers X``, ``prefers the other
        answer``, ``no preference detected`` or ``untested``.
    method : str
    """

    answer: str
    first_under: str
    chance: float
    orders: tuple
    mean: Share
    pvalue: float | None
    position_bias: float | None
    first_slot: Share
    slot_bound: str | None
    p_adjusted: float | None = None
    reading: str = "untested"
    method: str = ("exact two-sided binomial test of the verdicts naming the answer in both orders pooled (k of 2n, "
                   "ties counted in n) against the chance rate, with its Clopper-Pearson interval; the two verdicts "
                   "of an item are counted as independent")

    def to_dict(self) -> dict:
        return jsonable({
            "answer": self.answer, "first_under": self.first_under, "chance": self.chance,
            "orders": [{"order": o, "slot": slot, **rate.to_dict()} for o, slot, rate in self.orders],
            "mean": self.mean.to_dict(), "p": self.pvalue, "p_adjusted": self.p_adjusted,
            "position_bias": self.position_bias, "first_slot": self.first_slot.to_dict(),
            "slot_bound": self.slot_bound, "reading": self.reading, "method": self.method})


def choice_rate(both: pl.DataFrame, orders: tuple[str, str], first_under: str, *, chance: float = 0.5,
                confidence: float = 0.95, answer: str | None = None) -> ChoiceRate | None:
    """The choice rate of the answer shown first under ``first_under`` (see :class:`ChoiceRate`), from the
    items with both verdicts read (columns ``v1``, ``v2``: the verdicts under ``orders[0]`` and ``orders[1]``).

    >>> both = pl.DataFrame({"v1": ["first"] * 9 + ["second"], "v2": ["first"] * 9 + ["first"]})
    >>> rate = choice_rate(both, ("AB", "BA"), "AB")
    >>> [r.value for _, _, r in rate.orders], rate.mean.value, rate.slot_bound, rate.position_bias
    ([0.9, 0.0], 0.45, 'first', 0.45)
    """
    n = both.height
    if n == 0:
        return None
    v1, v2 = both["v1"].to_list(), both["v2"].to_list()
    x_first_in_1 = first_under == orders[0]
    slots = ("first", "second") if x_first_in_1 else ("second", "first")
    k1 = sum(v == slots[0] for v in v1)
    k2 = sum(v == slots[1] for v in v2)
    per = tuple((o, slot, share(k, n, confidence=confidence)) for o, slot, k in zip(orders, slots, (k1, k2)))
    shown_first = per[0][2].value if slots[0] == "first" else per[1][2].value
    shown_second = per[1][2].value if slots[0] == "first" else per[0][2].value
    primacy = sum(a == "first" and b == "first" for a, b in zip(v1, v2))
    recency = sum(a == "second" and b == "second" for a, b in zip(v1, v2))
    bound = "first" if primacy >= SLOT_BOUND * n else "second" if recency >= SLOT_BOUND * n else None
    return ChoiceRate(answer=answer or f"the answer shown first under '{first_under}'", first_under=first_under,
                      chance=float(chance), orders=per, mean=share(k1 + k2, 2 * n, confidence=confidence),
                      pvalue=binomial_test(k1 + k2, 2 * n, chance), position_bias=(shown_first - shown_second) / 2,
                      first_slot=share(sum(v == "first" for v in v1 + v2), 2 * n, confidence=confidence),
                      slot_bound=bound)


def _reading(rate: ChoiceRate, alpha: float) -> str:
    """The words for a choice rate once its p is corrected: a slot-bound judge is named so before any reading."""
    if rate.slot_bound is not None:
        return f"always picks the {rate.slot_bound} answer"
    if rate.p_adjusted is None:
        return "untested"
    if rate.p_adjusted <= alpha:
        return f"prefers {rate.answer}" if rate.mean.value > rate.chance else "prefers the other answer"
    return "no preference detected"


@dataclass(frozen=True)
class OrderGroup:
    """The order probe of one judge (one ``by`` group). See the module for every definition.

    Attributes
    ----------
    by : dict
        The group's values (empty without ``by``).
    rows, parsed_rows : int
        Replies in the group, and those whose verdict was read.
    extraction_rate : float or None
        ``parsed_rows / rows``.
    n_items : int
        Items (item × repetition pairs with a repetition column) with both verdicts parsed.
    consistency : Share
        Consistent items of ``n_items``, with its exact interval.
    one_unparsed, both_unparsed : int
        Items with one, or both, verdicts unparsed.
    consistency_unparsed_as_consistent : float or None
    primacy, recency : int
        Inconsistent items choosing the first slot both times, or the second both times.
    ties_consistent, ties_inconsistent : int
        Items with a tie in both orders (consistent), or in one order only (inconsistent).
    preference_score : float or None
        ``(primacy − recency) / (primacy + recency)``.
    order_test_p, order_test_p_adjusted : float or None
        Exact binomial test of primacy against recency, raw and corrected across groups.
    order_effect : float or None
        Mean over items of ``d``, the score of an answer shown first minus shown second.
    sign_flip : TestResult or None
        Exact sign-flip test of ``d``.
    sign_flip_p_adjusted : float or None
        Its p corrected across groups.
    unparsed : dict
        ``count``, ``reasons`` (count per reason), ``replies`` (the most frequent unparsed
        texts) and ``rows``.
    missing_order : int
        Items judged in one order only (left out of every figure but the extraction rate).
    repetitions : tuple of RepetitionConsistency
    stability : Share or None
        Repetition stability (with a repetition column).
    kappa : Kappa or None
        Cohen's kappa between the verdicts in the two orders, read as the answer chosen (the second
        order's slots swapped back) or a tie, over the items with both verdicts read.
    choice : ChoiceRate or None
        The choice rate of one answer in each order and averaged over both, against chance, with the
        position bias apart (None when no item had both verdicts read).
    """

    by: dict
    rows: int
    parsed_rows: int
    extraction_rate: float | None
    n_items: int
    consistency: Share
    one_unparsed: int
    both_unparsed: int
    consistency_unparsed_as_consistent: float | None
    primacy: int
    recency: int
    ties_consistent: int
    ties_inconsistent: int
    preference_score: float | None
    order_test_p: float | None
    order_effect: float | None
    sign_flip: TestResult | None
    unparsed: dict
    missing_order: int = 0
    repetitions: tuple[RepetitionConsistency, ...] = ()
    stability: Share | None = None
    order_test_p_adjusted: float | None = None
    sign_flip_p_adjusted: float | None = None
    kappa: Kappa | None = None
    choice: ChoiceRate | None = None

    @property
    def inconsistent(self) -> int:
        return self.n_items - self.consistency.k

    def to_dict(self) -> dict:
        c = self.consistency
        return jsonable({
            "by": dict(self.by),
            "n_items": self.n_items,
            "consistency": {"value": c.value, "low": c.low, "high": c.high, "k": c.k, "n": c.n,
                            "confidence": c.confidence, "method": c.method},
            "consistency_unparsed_as_consistent": self.consistency_unparsed_as_consistent,
            "one_unparsed": self.one_unparsed,
            "both_unparsed": self.both_unparsed,
            "primacy": self.primacy,
            "recency": self.recency,
            "ties": {"consistent": self.ties_consistent, "inconsistent": self.ties_inconsistent},
            "preference_score": self.preference_score,
            "order_test": {"p": self.order_test_p, "p_adjusted": self.order_test_p_adjusted,
                           "method": "exact binomial test of primacy against recency (two-sided, p = 1/2)",
                           "k": self.primacy, "n": self.primacy + self.recency},
            "sign_flip": {"p": None if self.sign_flip is None else self.sign_flip.pvalue,
                          "p_adjusted": self.sign_flip_p_adjusted,
                          "method": None if self.sign_flip is None else self.sign_flip.method,
                          "order_effect": self.order_effect,
                          "n": None if self.sign_flip is None else self.sign_flip.n},
            "extraction_rate": self.extraction_rate,
            "rows": self.rows,
            "parsed_rows": self.parsed_rows,
            "unparsed": self.unparsed,
            "missing_order": self.missing_order,
            "repetitions": [r.to_dict() for r in self.repetitions],
            "stability": None if self.stability is None else self.stability.to_dict(),
            "kappa": None if self.kappa is None else self.kappa.to_dict(),
            "choice_rate": None if self.choice is None else self.choice.to_dict(),
        })


@dataclass(frozen=True)
class JudgeResult(Result):
    """An order probe on one or more judges (:func:`analyze_order`).

    Attributes
    ----------
    groups : tuple of OrderGroup
        One per judge (``by`` group), in order of first appearance; one without ``by``.
    order : str
        The order column.
    orders : (str, str)
        Its two values (the first is the reference for ``d``).
    by : tuple of str
    repetition : str or None
    source : {"response", "choice"}
        Where the verdicts came from.
    column : str
        The column the verdicts were read from.
    rules : tuple of Rule
        The rules that read a reply.
    alpha, confidence : float
    correction : str
        Correction of each family of p-values across groups.
    problems : tuple of Problem
    log_source : str
        What the report calls the log.
    verdict : Verdict
        The conclusion, decided once: the judges with an order effect, whose binomial test of primacy
        against recency or sign-flip test of the order effect has a corrected p at most alpha
        (:func:`probestats.analyses.verdict.decide_effects`); every renderer words it.
    """

    MAIN_TABLE = "groups"

    groups: tuple[OrderGroup, ...]
    order: str
    orders: tuple[str, str]
    by: tuple[str, ...]
    repetition: str | None
    source: str
    column: str
    rules: tuple[Rule, ...]
    alpha: float
    confidence: float
    correction: str
    problems: tuple[Problem, ...] = field(default=())
    log_source: str = "the log"
    verdict: object | None = None

    def group_name(self, group) -> str:
        """How the verdict names a judge: its ``by`` values, or "the judge"."""
        return ", ".join(f"{k} {v}" for k, v in group.by.items()) or "the judge"

    def order_effect_detected(self, group) -> bool:
        """The verdict found an order effect in ``group``."""
        return self.verdict is not None and self.group_name(group) in self.verdict.found

    def __repr__(self) -> str:
        return one_line(self, order=self.order, orders=self.orders, judges=len(self.groups),
                        items=sum(g.n_items for g in self.groups))

    def _repr_html_(self) -> str:
        return html_summary(self, self.to_frame(), order=self.order, orders=" / ".join(self.orders),
                            source=self.source, correction=self.correction)

    def to_dict(self) -> dict:
        return jsonable({
            "schema_version": SCHEMA_VERSION,
            "kind": "judge_order",
            "order": {"column": self.order, "values": list(self.orders)},
            "verdicts": {"source": self.source, "column": self.column, "rules": [str(r) for r in self.rules]},
            "by": list(self.by),
            "repetition": self.repetition,
            "alpha": self.alpha,
            "correction": self.correction,
            "groups": [g.to_dict() for g in self.groups],
            "problems": [p.to_dict() for p in self.problems],
            **({"verdict": self.verdict.to_dict()} if self.verdict is not None else {}),
        })


def order_verdict(result: JudgeResult):
    """The verdict of an order probe: a judge has an order effect when the smaller of its two corrected p
    (primacy against recency, the sign-flip test of the order effect) is at most alpha."""
    def smallest(g):
        ps = [p for p in (g.order_test_p_adjusted, g.sign_flip_p_adjusted) if p is not None]
        return min(ps) if ps else None

    noise = NoiseCheck("none", "no same-versus-same comparison", False,
                       reason="an order probe compares each item with itself in both orders, so it has no "
                              "same-versus-same comparison beside it")
    return decide_effects([(result.group_name(g), smallest(g)) for g in result.groups], alpha=result.alpha,
                          test="the exact binomial test of primacy against recency and the exact sign-flip test "
                               "of the order effect, each corrected across judges", what="an order effect",
                          noise=noise, untested=NOTHING_READ)


#: Why an order probe tested nothing: no judge had an item with both its verdicts read.
NOTHING_READ = ("no item had its verdicts read in both orders (the replies matched no rule, or an order is missing), "
                "so this says nothing about the judge; fix the rules or the replies, listed with the problems")


def _column(frame: pl.DataFrame, log, name: str, option: str) -> str:
    """A column named by its header as written, or by its canonical name."""
    if name in frame.columns:
        return name
    for canonical, header in log.columns.items():
        if header == name and canonical in frame.columns:
            return canonical
    low = str(name).strip().lower()
    for canonical, header in log.columns.items():
        if str(header).strip().lower() == low and canonical in frame.columns:
            return canonical
    for c in frame.columns:
        if str(c).strip().lower() == low:
            return c
    seen = ", ".join(log.headers)
    raise ColumnError(f"{opt(option, name)}: no such column; headers seen: {seen}")


def _text(value) -> str:
    return "" if value is None else str(value)


def item_verdicts(pairs: pl.DataFrame) -> pl.DataFrame:
    """Classify pairs of verdicts: columns ``v1``, ``v2`` (first, second, tie or null) in, flags out.

    Adds ``parsed`` (both read), ``one_unparsed``, ``both_unparsed``, ``consistent``,
    ``primacy``, ``recency``, ``tie_consistent``, ``tie_inconsistent`` and ``d`` (the
    order effect: first slot's score in one order plus in the other, minus 1; null unless
    both were read).

    >>> item_verdicts(pl.DataFrame({"v1": ["first", "tie"], "v2": ["first", "second"]}))["d"].to_list()
    [1.0, -0.5]
    """
    v1, v2 = pl.col("v1"), pl.col("v2")
    both = v1.is_not_null() & v2.is_not_null()
    f1 = v1.replace_strict(_SCORE, default=None, return_dtype=pl.Float64)
    f2 = v2.replace_strict(_SCORE, default=None, return_dtype=pl.Float64)
    mirrored = (((v1 == "first") & (v2 == "second")) | ((v1 == "second") & (v2 == "first"))
                | ((v1 == "tie") & (v2 == "tie")))
    return pairs.with_columns(
        both.alias("parsed"),
        (v1.is_null() ^ v2.is_null()).alias("one_unparsed"),
        (v1.is_null() & v2.is_null()).alias("both_unparsed"),
        (both & mirrored).alias("consistent"),
        (both & (v1 == "first") & (v2 == "first")).alias("primacy"),
        (both & (v1 == "second") & (v2 == "second")).alias("recency"),
        (both & (v1 == "tie") & (v2 == "tie")).alias("tie_consistent"),
        (both & ((v1 == "tie") ^ (v2 == "tie"))).alias("tie_inconsistent"),
        pl.when(both).then(f1 + f2 - 1.0).otherwise(None).alias("d"),
    )


def analyze_order(
    log,
    *,
    order: str,
    response: str | None = None,
    verdicts: Sequence[str | Rule] = (),
    choice: str | None = None,
    by: Sequence[str] = (),
    repetition: str | None = None,
    alpha: float = 0.05,
    correction: str = "holm",
    read_options: dict | None = None,
    own_first: str | None = None,
    chance: float = 0.5,
) -> JudgeResult:
    """Analyze a pairwise judge's verdicts under both answer orders (see the module for the figures).

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
        One row per verdict: the item (canonical ``item`` column, or ``--column
        item=HEADER``), the order, and the reply or the choice.
    order : str
        The column whose two values are the two answer orders.
    response : str, optional
        The column of the judge's raw reply (default: the log's ``reply`` column),
        read with ``verdicts``.
    verdicts : sequence of str or Rule
        ``LABEL=PATTERN`` rules (:mod:`probestats.shape.verdicts`). With ``choice``:
        how its labels map to slots (``first=A``); labels not given stand for themselves.
    choice : str, optional
        A column that already holds the slot chosen (``first``, ``second``, ``tie``, or
        labels mapped by ``verdicts``), matched as whole trimmed values.
    by : sequence of str
        Judge columns: one analysis per group, corrected across groups.
    repetition : str, optional
        The column numbering repetitions of the same judgment.
    alpha : float
        Level of the intervals (``1 - alpha``) and of the wording.
    correction : {"holm", "bonferroni", "bh", "none"}
    own_first : str, optional
        The value of ``order`` that shows first the answer whose choice rate is wanted (the judge's own
        answer in a self-preference probe); default: the first value of ``order`` in the log.
    chance : float
        The rate the order-averaged choice rate is tested against (0.5 unless given).

    Returns
    -------
    JudgeResult

    Examples
    --------
    >>> rows = [{"item": i, "order": o, "choice": "first"} for i in range(20) for o in ("own first", "own second")]
    >>> g = analyze_order(rows, order="order", choice="choice", own_first="own first").groups[0]
    >>> g.choice.mean.value, g.choice.slot_bound, g.choice.reading
    (0.5, 'first', 'always picks the first answer')

    Raises
    ------
    OptionError, ColumnError
        Options that do not fit the log.
    ValidationError
        An order column without exactly two values, or two verdicts for one item, order
        (and repetition).
    """
    check_vocabulary(alpha=alpha, correction=correction)
    check_chance(chance)
    rules = _order_rules(verdicts, choice, response)
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.io.read import read_log

    log = read_log(log, **(read_options or {}))
    frame, columns = _order_columns(log, order, choice=choice, response=response, by=by, repetition=repetition)
    frame = _with_verdicts(frame, log, columns, rules, whole=choice is not None)
    orders = _two_orders(frame, log, columns)
    o1, o2 = orders
    if own_first is not None and str(own_first) not in orders:
        raise OptionError(f"{opt('own_first', own_first)}: not a value of {_header(log, columns.order)}; give the "
                          f"order that shows the answer first, one of {', '.join(repr(o) for o in orders)}")
    pairs, incomplete, problems = _verdict_pairs(frame, log, columns, orders)
    first_under = o1 if own_first is None else str(own_first)
    answer = None if own_first is None else f"its own answer (shown first under '{first_under}')"
    rate_of = {"orders": (o1, o2), "first_under": first_under, "chance": chance, "answer": answer}
    confidence = 1 - alpha
    groups = _order_groups(frame, pairs, incomplete, log, columns, confidence, rate_of)
    order_p = adjust([g.order_test_p for g in groups], correction)
    flip_p = adjust([None if g.sign_flip is None else g.sign_flip.pvalue for g in groups], correction)
    groups = [replace(g, order_test_p_adjusted=a, sign_flip_p_adjusted=b) for g, a, b in zip(groups, order_p, flip_p)]
    choice_p = adjust([None if g.choice is None else g.choice.pvalue for g in groups], correction)
    groups = [g if g.choice is None else
              replace(g, choice=(lambda c: replace(c, reading=_reading(c, alpha)))(replace(g.choice, p_adjusted=p)))
              for g, p in zip(groups, choice_p)]
    unparsed = _unparsed_problem(frame, log, columns, rules)
    problems = [*problems, *([unparsed] if unparsed is not None else [])]
    header = partial(_header, log)
    result = JudgeResult(groups=tuple(groups), order=header(columns.order), orders=(o1, o2),
                         by=tuple(header(b) for b in columns.by),
                         repetition=header(columns.repetition) if columns.repetition else None,
                         source=columns.source, column=header(columns.text), rules=rules, alpha=alpha,
                         confidence=confidence, correction=correction, problems=tuple(problems),
                         log_source=str(log.source))
    return replace(result, verdict=order_verdict(result))


@dataclass(frozen=True)
class _OrderColumns:
    """The columns an order probe reads: the ``order``, the verdict's column (``text``, a reply or a choice,
    said by ``source``), the judge columns (``by``) and the repetition's (None without one)."""

    order: str
    text: str
    source: str
    by: tuple
    repetition: str | None = None

    @property
    def keys(self) -> list[str]:
        """The columns that name one judgment: the judge's, the item, the repetition."""
        return [*self.by, "item", *([self.repetition] if self.repetition else [])]


def _header(log, column):
    """The log's own header of a column."""
    return log.columns.get(column, column)


def _rows_of(log, sub: pl.DataFrame) -> tuple[int, ...]:
    """The log's row numbers of ``sub``'s rows (the first :data:`_ROWS`)."""
    return tuple(log.rows(sub["_row"].head(_ROWS).to_list()))


def _order_rules(verdicts, choice, response) -> tuple:
    """The rules that read a verdict: the reply's patterns, or how a choice column's labels map to slots."""
    if choice is not None and response is not None:
        raise OptionError("give the judge's reply (response) or the slot it chose (choice), not both")
    if choice is not None:
        return choice_rules(verdicts)
    if not verdicts:
        raise OptionError(f"{opt('verdicts')}: give the rules that read a reply, for example "
                          + either("verdicts=['first=[[A]]', 'second=[[B]]']",
                                   " ".join(opt("verdicts", rule) for rule in ("first=[[A]]", "second=[[B]]")))
                          + f" (or {opt('choice', 'COL')} when the log holds the slot chosen)")
    return parse_rules(verdicts)


def _order_columns(log, order, *, choice, response, by, repetition) -> tuple[pl.DataFrame, _OrderColumns]:
    """The log's rows and the columns the options name, each checked to be there and to be a different one."""
    frame = log.frame
    if frame.height == 0:
        raise ValidationError([Problem("error", "empty_log", f"{log.source} has no data rows; add rows below the header")])
    if "item" not in frame.columns:
        mapping = either("columns={'item': HEADER}", "--column item=HEADER")
        raise ColumnError(f"no item column; headers seen: {', '.join(log.headers)} (use {mapping})")
    order_col = _column(frame, log, order, "order")
    if choice is not None:
        text_col, source = _column(frame, log, choice, "choice"), "choice"
    elif response is not None:
        text_col, source = _column(frame, log, response, "response"), "response"
    elif "reply" in frame.columns:
        text_col, source = "reply", "response"
    else:
        raise ColumnError(f"no reply column to read verdicts from; headers seen: {', '.join(log.headers)} "
                          f"(use {opt('response', 'COL')})")
    by = [_column(frame, log, b, "by") for b in by]
    rep_col = _column(frame, log, repetition, "repetition") if repetition else None
    used = [order_col, text_col, "item", *by, *([rep_col] if rep_col else [])]
    if len(set(used)) != len(used):
        raise OptionError(f"{opt('order')}, the verdict column, {opt('by')}, {opt('repetition')} and the item column "
                          "must be different columns")
    return frame, _OrderColumns(order_col, text_col, source, tuple(by), rep_col)


def _with_verdicts(frame: pl.DataFrame, log, order_columns: _OrderColumns, rules, *, whole: bool) -> pl.DataFrame:
    """The rows with each verdict read by the ``rules`` (``_verdict``, ``_reason``), its text and its order,
    the keys as text (a choice column's values are matched ``whole``)."""
    for c in (order_columns.text, order_columns.order):
        if isinstance(frame[c].dtype, (pl.List, pl.Array)):
            raise ColumnError(f"{_header(log, c)} holds lists, not one value per row; {explode_fix(c, seeds=False)}")
    texts = frame[order_columns.text].cast(pl.String)
    read = extract_all(texts.to_list(), rules, whole=whole)
    return frame.with_columns(
        pl.Series("_verdict", [v.label for v in read], dtype=pl.String),
        pl.Series("_reason", [v.reason for v in read], dtype=pl.String),
        texts.alias("_text"),
        pl.col(order_columns.order).cast(pl.String).alias("_order"),
        *[pl.col(c).cast(pl.String) for c in order_columns.keys],
    )


def _two_orders(frame: pl.DataFrame, log, order_columns: _OrderColumns) -> list[str]:
    """The two values of the order column, in order of appearance; refused unless every row has one of exactly
    two, and each judgment one verdict per order."""
    header, order_col = partial(_header, log), order_columns.order
    missing = frame.filter(pl.col("_order").is_null())
    if missing.height:
        raise ValidationError([Problem("error", "missing_order", f"{missing.height} rows have no {header(order_col)}; "
                                       "fill the order column", _rows_of(log, missing), header(order_col))])
    orders = frame["_order"].unique(maintain_order=True).to_list()
    if len(orders) != 2:
        shown = ", ".join(repr(o) for o in orders[:10])
        raise ValidationError([Problem(
            "error", "order_values",
            f"the order column {header(order_col)} has {len(orders)} values ({shown}); an order probe needs "
            "exactly two, one per order of the answers (filter the others out with "
            f"{either('probe=Probe(where=SQL)', '--where SQL')})",
            (), header(order_col))])
    keys = order_columns.keys
    dup = frame.filter(pl.len().over([*keys, "_order"]) > 1)
    if dup.height:
        first = dup.row(0, named=True)
        where = ", ".join(f"{header(k)} {first[k]}" for k in keys)
        raise ValidationError([Problem(
            "error", "duplicate_verdict",
            f"{count_of(dup.height, 'row')} give a second verdict for the same item and order (first: {where}, "
            f"order {first['_order']}); name the column that tells them apart with {opt('repetition', 'COL')} "
            f"or {opt('by', 'COL')}",
            _rows_of(log, dup), header(order_columns.text))])
    return orders


def _verdict_pairs(frame: pl.DataFrame, log, order_columns: _OrderColumns, orders) -> tuple:
    """Each judgment's two verdicts side by side (those judged in both orders), the judgments judged in one
    order only, and the problems so far (the log's, and a warning naming those judgments)."""
    o1, o2 = orders
    keys = order_columns.keys
    problems: list[Problem] = list(log.problems)
    pairs = (frame.group_by(keys, maintain_order=True)
             .agg(pl.col("_verdict").filter(pl.col("_order") == o1).first().alias("v1"),
                  pl.col("_verdict").filter(pl.col("_order") == o2).first().alias("v2"),
                  (pl.col("_order") == o1).any().alias("has1"), (pl.col("_order") == o2).any().alias("has2"),
                  pl.col("_row").min().alias("_row")))
    incomplete = pairs.filter(~(pl.col("has1") & pl.col("has2")))
    if incomplete.height:
        names = ", ".join(_text(v) for v in incomplete["item"].unique(maintain_order=True).head(10).to_list())
        problems.append(Problem(
            "warning", "missing_order",
            f"{count_of(incomplete.height, 'item')} were judged in one order only ({names}); they are left out "
            "of every figure but the extraction rate (run the other order)",
            _rows_of(log, frame.join(incomplete.select(keys), on=keys, nulls_equal=True)),
            _header(log, order_columns.order)))
    return item_verdicts(pairs.filter(pl.col("has1") & pl.col("has2"))), incomplete, problems


def _order_groups(frame, pairs, incomplete, log, order_columns: _OrderColumns, confidence, rate_of) -> list:
    """The figures of each judge (one partition per ``by`` group, in order of first appearance), or of the
    whole log."""
    by, rows_of = list(order_columns.by), partial(_rows_of, log)
    if not by:
        return [_group({}, frame, pairs, incomplete.height, order_columns.repetition, confidence, rows_of, rate_of)]
    groups: list[OrderGroup] = []
    rows_by, pairs_by, incomplete_by = (f.partition_by(by, as_dict=True, maintain_order=True)
                                        for f in (frame, pairs, incomplete))
    empty_pairs, empty_incomplete = pairs.clear(), incomplete.clear()
    for key_tuple, sub_rows in rows_by.items():
        groups.append(_group(dict(zip(by, key_tuple)), sub_rows, pairs_by.get(key_tuple, empty_pairs),
                             incomplete_by.get(key_tuple, empty_incomplete).height, order_columns.repetition,
                             confidence, rows_of, rate_of))
    return groups


def _unparsed_problem(frame: pl.DataFrame, log, order_columns: _OrderColumns, rules) -> Problem | None:
    """The warning listing the replies no rule could read, None when every one was read."""
    unparsed = int(frame["_verdict"].null_count())
    if not unparsed:
        return None
    bad = frame.filter(pl.col("_verdict").is_null())
    return Problem(
        "warning", "unparsed_verdict",
        f"{count_of(unparsed, 'reply', 'replies')} of {frame.height} could not be read by the rules "
        f"({', '.join(str(r) for r in rules)}): they match no pattern, patterns of several slots, or are blank; "
        "they are listed, not guessed (fix the rules or the replies)",
        _rows_of(log, bad), _header(log, order_columns.text))


def _unparsed(rows: pl.DataFrame, rows_of) -> dict:
    bad = rows.filter(pl.col("_verdict").is_null())
    reasons = {r: int(n) for r, n in bad.group_by("_reason").agg(pl.len()).sort("_reason").iter_rows()}
    top = (bad.group_by("_text").agg(pl.len().alias("count"), pl.col("_reason").first())
           .sort(["count", "_text"], descending=[True, False], nulls_last=True).head(_LISTED))
    return {"count": int(bad.height), "reasons": reasons,
            "replies": [{"text": t, "count": int(n), "reason": r} for t, n, r in top.iter_rows()],
            "rows": list(rows_of(bad))}


def _group(key, rows: pl.DataFrame, pairs: pl.DataFrame, missing_order: int, rep_col, confidence,
           rows_of, rate_of=None) -> OrderGroup:
    parsed_rows = int(rows["_verdict"].is_not_null().sum())
    both = pairs.filter(pl.col("parsed"))
    n = both.height
    consistent = int(both["consistent"].sum())
    one = int(pairs["one_unparsed"].sum())
    primacy, recency = int(both["primacy"].sum()), int(both["recency"].sum())
    loose_n = n + one
    # the sign-flip test keeps the item as its unit: d averaged over the item's repetitions
    item_keys = [c for c in pairs.columns if c in key or c == "item"]
    d = both.group_by(item_keys, maintain_order=True).agg(pl.col("d").mean())["d"].to_numpy()
    flip = sign_flip_test(d) if d.size else None
    reps: tuple[RepetitionConsistency, ...] = ()
    stability = None
    if rep_col is not None:
        reps = tuple(
            RepetitionConsistency(str(r), share(int(sub["consistent"].sum()), sub.height, confidence=confidence))
            for r, sub in ((r, both.filter(pl.col(rep_col) == r))
                           for r in pairs[rep_col].unique(maintain_order=True).to_list()))
        per_item = (pairs.group_by(item_keys, maintain_order=True)
                    .agg(pl.len().alias("reps"), pl.col("parsed").all().alias("all_parsed"),
                         pl.col("v1").n_unique().alias("k1"), pl.col("v2").n_unique().alias("k2")))
        usable = per_item.filter(pl.col("all_parsed") & (pl.col("reps") > 1))
        stable = int(((usable["k1"] == 1) & (usable["k2"] == 1)).sum())
        stability = share(stable, usable.height, confidence=confidence)
    return OrderGroup(
        by=dict(key), rows=rows.height, parsed_rows=parsed_rows,
        extraction_rate=parsed_rows / rows.height if rows.height else None,
        n_items=n, consistency=share(consistent, n, confidence=confidence),
        one_unparsed=one, both_unparsed=int(pairs["both_unparsed"].sum()),
        consistency_unparsed_as_consistent=(consistent + one) / loose_n if loose_n else None,
        primacy=primacy, recency=recency,
        ties_consistent=int(both["tie_consistent"].sum()), ties_inconsistent=int(both["tie_inconsistent"].sum()),
        preference_score=(primacy - recency) / (primacy + recency) if primacy + recency else None,
        order_test_p=binomial_test(primacy, primacy + recency),
        order_effect=float(np.mean(d)) if d.size else None, sign_flip=flip,
        unparsed=_unparsed(rows, rows_of), missing_order=missing_order, repetitions=reps, stability=stability,
        kappa=_order_kappa(both, confidence),
        choice=None if rate_of is None else choice_rate(both, confidence=confidence, **rate_of))


def _order_kappa(both: pl.DataFrame, confidence: float):
    """Cohen's kappa between the two orders' verdicts, each read as the answer it chose (or a tie)."""
    if both.height == 0:
        return None

    swapped = {"first": "second", "second": "first", "tie": "tie"}
    first = both["v1"].to_list()
    second = [swapped.get(v, v) for v in both["v2"].to_list()]
    return cohens_kappa(first, second, confidence=confidence)


def analyze_scored(log, *, order: str, score: str, by: Sequence[str] = (), scale=None, alpha: float = 0.05,
                   correction: str = "holm", read_options: dict | None = None):
    """A judge that scores each answer (say 1–10) instead of choosing: the paired analysis with the order as
    the attribute.

    The two values of ``order`` are compared as ``a`` (the first in the log) and ``b``;
    each row is one score of one answer, so the item column must name the scored answer
    (the question and the answer), and the gap of an item is its mean score under the
    first order minus under the second. ``scale`` (``"1:10"``) flags items whose
    baseline sits at the top or bottom of the scale (:mod:`probestats.analyses.evaluator`).

    Returns the :class:`probestats.analyses.paired.Analysis` of ``analyze``.
    """
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.io.read import read_log

    read = dict(read_options or {})
    columns = dict(read.pop("columns", None) or {})
    columns["variant"] = columns.get(order, order)  # the order column is the attribute, the score the metric
    probe = read_log(log, **read, columns=columns, metric=score)
    values = probe.lazy.select(pl.col("variant").cast(pl.String)).unique(maintain_order=True).collect()["variant"]
    values = [v for v in values.to_list() if v is not None]
    if len(values) != 2:
        raise OptionError(f"{opt('order', order)}: a scored order probe needs exactly two orders, found {len(values)}")

    result = analyze_pair(probe, Question(score, a=values[0], b=values[1], by=list(by)),
                          tests=Tests(alpha=alpha, correction=correction), run=Run(many=False))
    return with_scale(result, scale, list(by)) if scale is not None else result
