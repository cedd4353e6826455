"""The design check behind every verdict: the facts of a shaped log that the tests rest on.

:func:`design_facts` reads, from the rows of the compared values (the shaped, validated frame), per
item and value: the runs, whether a value's metric is the same in every run (a **constant arm**),
the blank and unparsed metrics, whether the two values have different numbers of runs within items
(**unequal runs**), and whether one side is a group of several values. :func:`value_counts` gives the
runs, blanks and unparsed metrics per value on their own (the per-value blanks test builds on it).
:func:`design_caveats` turns the facts that weaken a verdict into named :class:`Caveat` records, which
the analysis hands to its verdict (:func:`probestats.analyses.verdict.with_caveats`); every format
reads them from there.

The caveat record
-----------------
A :class:`Caveat` is ``Caveat(id, sentence, figures, summary=True)``:

- ``id``: a stable snake_case name, the key programs and tests look for; it never changes with the
  wording. Ids in use: ``constant_arm``, ``constant_arm_in_groups``, ``one_answer``, ``unequal_runs``, ``group_side``
  (this module);
  ``noise_check_failed``, ``no_noise_check``, ``pooled_blocks`` (the verdict);
  ``coded_metric_checked``, ``coded_metric_corrected`` (a hand-checked sample). Other checks add
  their own (clusters, randomized settings, blocks that disagree, blanks by value, a reference that
  is not neutral) the same way, with a new id each.
- ``sentence``: one plain, complete sentence ending with a full stop; the Summary and the terminal
  print it after "Caveat: " (the renderer escapes it: log names inside it are untrusted text).
- ``figures``: the numbers behind the sentence, JSON-safe (str, int, float, bool, None, lists and
  dicts of them), so a reader or a program can check it.
- ``summary``: False only for a caveat whose sentence a dedicated passage already prints (the noise
  check's); it is still in JSON.

In JSON, ``verdict.caveats`` is a list of ``{"id": ..., "sentence": ..., "figures": {...}}``.

Examples
--------
>>> rows = pl.DataFrame({"item": [str(i // 2) for i in range(20)], "variant": ["push", "none"] * 10,
...                      "flip": [float(i % 2 == 0 and i < 14) for i in range(20)]})
>>> facts = design_facts(rows, "flip", "push", "none")
>>> [(v.value, v.constant, round(v.constant_share, 2)) for v in facts.values]   # 7 of 10 'push' items give 1
[('push', None, 0.7), ('none', 0.0, 1.0)]
>>> [c.id for c in design_caveats(facts)]
['constant_arm']
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import polars as pl

from probestats.stats.permutation import arms_unequal

__all__ = ["Caveat", "ValueCounts", "ValueFacts", "DesignFacts", "value_counts", "design_facts", "design_caveats", "group_constant_caveats", "constant_text",
           "item_facts", "constant_values", "share_text", "grouped_constants_clause", "MAX_GROUP_CLAUSES",
           "CONSTANT_SHARE", "one_answer_groups", "one_answer_caveat", "one_answer_blocks", "one_answer_cells",
           "one_answer_of", "one_answer_clause", "one_answer_across", "pooled_with"]

#: a value is a constant arm when its metric is one and the same number in every run of at least this share of items
CONSTANT_SHARE = 0.95
#: ... and when its runs give that number more often than the other values' runs do, by Fisher's exact test at
#: this one-sided level (divided among the values that could be constant): rare outcomes drawn at one rate under
#: every value leave most items at 0 under each, which is no constant arm
CONSTANT_ARM_P = 0.025


@dataclass(frozen=True)
class Caveat:
    """One named fact that weakens a verdict (see the module docstring for the record).

    Attributes
    ----------
    id : str
        Stable snake_case name (the JSON key programs and tests read).
    sentence : str
        The fact in one plain sentence, as every format prints it.
    figures : dict
        The numbers behind the sentence (JSON-safe).
    summary : bool
        Printed among the Summary's and the terminal's caveats (False when a dedicated passage
        already prints the sentence).

    Examples
    --------
    >>> Caveat("constant_arm", "Value 'b' is 0 in every run.", {"value": "b", "constant": 0}).to_dict()
    {'id': 'constant_arm', 'sentence': "Value 'b' is 0 in every run.", 'figures': {'value': 'b', 'constant': 0}}
    >>> Caveat("Constant arm", "x")
    Traceback (most recent call last):
    ...
    ValueError: a caveat id is a snake_case name, not 'Constant arm'
    """

    id: str
    sentence: str
    figures: dict = field(default_factory=dict)
    summary: bool = True

    def __post_init__(self):
        if not self.id or not self.id.replace("_", "").isalnum() or self.id != self.id.lower():
            raise ValueError(f"a caveat id is a snake_case name, not {self.id!r}")

    def to_dict(self) -> dict:
        return {"id": self.id, "sentence": self.sentence, "figures": dict(self.figures)}


@dataclass(frozen=True)
class ValueCounts:
    """The runs of one value and how many of them have no usable metric.

    Attributes
    ----------
    value : str
    runs : int
        Its runs (rows) in the log as shaped.
    valued : int
        Runs with a metric value.
    blank : int
        Runs whose metric is blank.
    unparsed : int
        Runs whose metric was written but could not be read (a reply no label rule matched, when the
        shaping kept that apart from a blank; else 0 and such runs count as blank).
    """

    value: str
    runs: int
    valued: int
    blank: int
    unparsed: int = 0

    @property
    def missing(self) -> int:
        """Runs without a usable metric (blank or unparsed)."""
        return self.blank + self.unparsed

    def to_dict(self) -> dict:
        return {"value": self.value, "runs": self.runs, "valued": self.valued, "blank": self.blank,
                "unparsed": self.unparsed}


def value_counts(frame: pl.DataFrame, metric: str, values: Sequence[str] | None = None, *,
                 kind: str | None = None) -> tuple[ValueCounts, ...]:
    """Per value (``variant``): runs, runs with a metric, blank and unparsed metrics.

    ``kind`` names a column that tells an unparsed metric (``"unparsed"``) from a blank one, as the
    codebook's ``NAME_kind`` does; without it every run without a metric counts as blank.

    >>> rows = pl.DataFrame({"variant": ["a", "a", "a", "b", "b"], "x": [1.0, None, None, 2.0, 3.0],
    ...                      "x_kind": ["coded", "blank", "unparsed", "coded", "coded"]})
    >>> [c.to_dict() for c in value_counts(rows, "x", kind="x_kind")]
    [{'value': 'a', 'runs': 3, 'valued': 1, 'blank': 1, 'unparsed': 1}, {'value': 'b', 'runs': 2, 'valued': 2, 'blank': 0, 'unparsed': 0}]
    >>> value_counts(rows, "x", ["b"])[0].blank
    0
    """
    if values is None:
        values = frame["variant"].unique(maintain_order=True).to_list()
    kind = kind if kind is not None and kind in frame.columns else None
    missing = pl.col(metric).is_null()
    unparsed = (missing & (pl.col(kind) == "unparsed")) if kind else pl.lit(False)
    counts = (frame.filter(pl.col("variant").is_in(list(values)))
              .group_by("variant")
              .agg(pl.len().alias("runs"), (~missing).sum().alias("valued"),
                   (missing & ~unparsed).sum().alias("blank"), unparsed.sum().alias("unparsed")))
    by = {r["variant"]: r for r in counts.iter_rows(named=True)}
    return tuple(ValueCounts(str(v), *(int(by.get(v, {}).get(k, 0) or 0) for k in ("runs", "valued", "blank",
                                                                                     "unparsed")))
                 for v in values)


@dataclass(frozen=True)
class ValueFacts:
    """The design facts of one compared value (or group of values) over the matched items.

    Attributes
    ----------
    value : str
    members : tuple of str
        The values that stand for it (one, unless it is a group).
    counts : ValueCounts
        Its runs, blanks and unparsed metrics.
    runs_per_item : tuple of (int, int)
        The fewest and most runs with a metric in an item.
    constant : float or None
        The metric's one value when it is the same in every run of at least :data:`CONSTANT_SHARE` of
        the items (a constant arm), else None.
    constant_share : float
        The share of items whose every run gives the most common constant (0 when no item's runs agree).
    """

    value: str
    members: tuple[str, ...]
    counts: ValueCounts
    runs_per_item: tuple[int, int]
    constant: float | None
    constant_share: float

    def to_dict(self) -> dict:
        return {"value": self.value, "members": list(self.members), **self.counts.to_dict(),
                "runs_per_item": list(self.runs_per_item), "constant": self.constant,
                "constant_share": self.constant_share}


@dataclass(frozen=True)
class DesignFacts:
    """What the tests of a compared pair rest on, read from the log (see the module docstring).

    Attributes
    ----------
    metric, a, b : str
    values : tuple of ValueFacts
        ``a``'s facts, then ``b``'s.
    n_items : int
        Items with runs with a metric under both values.
    unequal_items : int
        Matched items whose two values have different numbers of runs with a metric.
    unequal_by_design : bool
        The two values' runs per item differ by design (:func:`probestats.stats.permutation.arms_unequal`: 1
        run against 3), not by a run or a few missing from a balanced design.
    """

    metric: str
    a: str
    b: str
    values: tuple[ValueFacts, ValueFacts]
    n_items: int
    unequal_items: int
    unequal_by_design: bool = False

    @property
    def group_side(self) -> ValueFacts | None:
        """The side that is a group of several values (the first, when both are), else None."""
        return next((v for v in self.values if len(v.members) > 1), None)

    @property
    def constant_arms(self) -> tuple[ValueFacts, ...]:
        return tuple(v for v in self.values if v.constant is not None)

    @property
    def balanced(self) -> bool:
        """The two values have as many runs per item by design (a run or a few missing aside), and neither
        side is a group: the item gap is then symmetric about zero under the null, as the sign-flip test
        assumes, or nearly so."""
        return not self.unequal_by_design and self.group_side is None

    def to_dict(self) -> dict:
        return {"metric": self.metric, "a": self.a, "b": self.b, "n_items": self.n_items,
                "unequal_items": self.unequal_items, "unequal_by_design": self.unequal_by_design,
                "balanced": self.balanced,
                "values": [v.to_dict() for v in self.values]}


def design_facts(frame: pl.DataFrame, metric: str, a: str, b: str, *,
                 members: Mapping[str, Sequence[str]] | None = None, kind: str | None = None,
                 value: str = "variant") -> DesignFacts:
    """The design facts of the comparison of ``a`` and ``b`` (values of the column ``value``; with
    ``members``, groups of the values of ``variant`` that stand for them).

    >>> rows = pl.DataFrame({"item": ["1"] * 3 + ["2"] * 3, "variant": ["a", "b", "b"] * 2,
    ...                      "x": [1.0, 2.0, 4.0, 3.0, 3.0, 5.0]})
    >>> facts = design_facts(rows, "x", "a", "b")
    >>> facts.unequal_items, facts.balanced, facts.values[1].runs_per_item
    (2, False, (2, 2))
    """
    members = {a: (a,), b: (b,), **{k: tuple(v) for k, v in (members or {}).items()}}
    rows = frame.filter(pl.col(value).is_in([a, b]))
    counts = {c.value: c for c in value_counts(rows.with_columns(pl.col(value).alias("variant")), metric, [a, b],
                                               kind=kind)}
    valued = rows.filter(pl.col(metric).is_not_null())
    cells = valued.group_by(["item", value]).agg(pl.len().alias("n"), pl.col(metric).min().alias("lo"),
                                                 pl.col(metric).max().alias("hi"))
    side_a = cells.filter(pl.col(value) == a).drop(value)
    side_b = cells.filter(pl.col(value) == b).drop(value)
    both = side_a.join(side_b, on="item", suffix="_b")
    n_items = both.height
    facts = []
    matched = valued.filter(pl.col("item").is_in(both["item"].implode()))
    for v, suffix in ((a, ""), (b, "_b")):
        n = both[f"n{suffix}"]
        same = both.filter(pl.col(f"lo{suffix}") == pl.col(f"hi{suffix}"))[f"lo{suffix}"]
        constant, share = _constant(same, n_items)
        if constant is not None:
            mine = matched.filter(pl.col(value) == v)[metric]
            theirs = matched.filter(pl.col(value) != v)[metric]
            if not constant_beyond_chance(int((mine == constant).sum()), mine.len(),
                                          int((theirs == constant).sum()), theirs.len(), distinct=theirs.n_unique()):
                constant = None
        facts.append(ValueFacts(v, members[v], counts[v], (int(n.min()), int(n.max())) if n_items else (0, 0),
                                constant, share))
    unequal = int((both["n"] != both["n_b"]).sum()) if n_items else 0
    return DesignFacts(metric, a, b, (facts[0], facts[1]), n_items, unequal,
                       bool(unequal) and arms_unequal(both["n"].to_list(), both["n_b"].to_list()))


def constant_beyond_chance(mine: int, runs: int, theirs: int, their_runs: int, *, values: int = 2,
                           distinct: int = 0) -> bool:
    """Whether a value whose runs give one number ``mine`` times in ``runs`` gives it more often than the other
    values' runs (``theirs`` in ``their_runs``, with ``distinct`` different numbers among them) beyond chance.

    Two ways to tell: the other values' runs never give that number although they rarely repeat any (at least
    half of them distinct: a continuous metric, where a number given twice is no accident), or Fisher's exact
    test, one-sided, at :data:`CONSTANT_ARM_P` divided among the ``values`` - 1 values that could be constant
    besides one. A value the design makes constant (a flip metric that is 0 for the baseline by definition, a
    score copied from the unchanged text) passes; a rare outcome that happened to be 0 in a sparse log, at the
    rate the other value shows, does not.

    >>> constant_beyond_chance(10, 10, 3, 10)    # 0 in all 10 runs against 3 zeros in 10: p = 0.0015
    True
    >>> constant_beyond_chance(239, 250, 237, 250)   # a 5% outcome, one run per item: 0 in 96% and 95% of them
    False
    >>> constant_beyond_chance(2, 2, 0, 2, distinct=2)   # 0.8979 twice, against two scores that differ
    True
    """
    if runs == 0 or their_runs == 0:
        return False
    if theirs == 0 and mine >= 2 and 2 * distinct >= their_runs:
        return True
    from scipy.stats import fisher_exact

    p = fisher_exact([[mine, runs - mine], [theirs, their_runs - theirs]], alternative="greater").pvalue
    return bool(p <= CONSTANT_ARM_P / max(1, values - 1))


def _constant(same: pl.Series, n_items: int) -> tuple[float | None, float]:
    """The value an arm takes in every run of at least :data:`CONSTANT_SHARE` of the items (else None), and
    the share of items giving its most common one-valued answer; ``same`` holds the one-valued items' values.

    >>> _constant(pl.Series([0.0, 0.0, 0.0, 1.0]), 4), _constant(pl.Series([0.0] * 20), 20)
    ((None, 0.75), (0.0, 1.0))
    """
    if not n_items or not same.len():
        return None, 0.0
    value, count = same.value_counts(sort=True).row(0)
    share = count / n_items
    return (float(value) if share >= CONSTANT_SHARE else None), share


def constant_values(frame: pl.DataFrame, metric: str, values: Sequence[str], *,
                    value: str = "variant") -> tuple[dict[str, tuple[float, float]], int]:
    """The values (of the column ``value``) whose metric is one and the same number in every run of at least
    :data:`CONSTANT_SHARE` of the items measured under every one of ``values``, more often than the other values'
    runs give it beyond chance (:func:`constant_beyond_chance`), as ``{value: (constant, share of items)}``, and
    the number of those items.

    >>> rows = pl.DataFrame({"item": [str(i // 2) for i in range(16)] + ["9"], "variant": ["a", "b"] * 8 + ["a"],
    ...                      "x": [1.0, 0.0, 1.0, 0.5] * 4 + [0.0]})   # item 9 has no 'b': not counted
    >>> constant_values(rows, "x", ["a", "b"])
    ({'a': (1.0, 1.0)}, 8)
    """
    values = list(values)
    valued = frame.filter(pl.col(value).is_in(values) & pl.col(metric).is_not_null())
    cells = valued.group_by(["item", value]).agg(pl.col(metric).min().alias("lo"), pl.col(metric).max().alias("hi"))
    full = cells.group_by("item").agg(pl.col(value).n_unique().alias("k")).filter(pl.col("k") == len(values))
    cells = cells.filter(pl.col("item").is_in(full["item"].implode()))
    runs = valued.filter(pl.col("item").is_in(full["item"].implode()))
    found = {}
    for v in values:
        same = cells.filter((pl.col(value) == v) & (pl.col("lo") == pl.col("hi")))["lo"]
        constant, share = _constant(same, full.height)
        if constant is None:
            continue
        mine, theirs = runs.filter(pl.col(value) == v)[metric], runs.filter(pl.col(value) != v)[metric]
        if constant_beyond_chance(int((mine == constant).sum()), mine.len(), int((theirs == constant).sum()),
                                  theirs.len(), values=len(values), distinct=theirs.n_unique()):
            found[v] = (constant, share)
    return found, full.height


def share_text(share: float) -> str:
    """The items a constant holds in, as a sentence says it.

    >>> share_text(1.0), share_text(0.96)
    ('every item', '96% of the items')
    """
    return "every item" if share == 1 else f"{share:.0%} of the items"


def item_facts(items: pl.DataFrame, metric: str, a: str, b: str, *, cells: pl.DataFrame | None = None) -> DesignFacts:
    """The design facts from an item table alone (``mean_a``, ``mean_b``, ``n_a``, ``n_b``, ``sd_a``, ``sd_b``), as
    a streaming pass gives it without the rows: the runs counted are the runs with a metric, so the blanks
    are not known here (0).

    >>> items = pl.DataFrame({"item": ["1", "2"], "mean_a": [0.5, 1.0], "mean_b": [0.0, 0.0], "n_a": [2, 2],
    ...                       "n_b": [2, 2], "sd_a": [0.7, 0.0], "sd_b": [0.0, 0.0]})
    >>> facts = item_facts(items, "flip", "a", "b")
    >>> [v.constant for v in facts.values], facts.unequal_items
    ([None, 0.0], 0)

    With ``cells`` (a cell table's rows: ``item``, ``variant``, ``counted``, ``min``, ``max``), the other value's
    runs giving the constant are known from each cell's least and greatest run: exactly where a cell has at most
    two runs (as the rows would tell), and at most as many as could be where it has more, so a constant arm is
    never named on cells where the rows would not name it.
    """
    n_items = items.height
    facts = []
    for v, side in ((a, "a"), (b, "b")):
        n, sd, mean = items[f"n_{side}"], items[f"sd_{side}"], items[f"mean_{side}"]
        same = items.filter((pl.col(f"n_{side}") == 1) | (pl.col(f"sd_{side}") == 0))[f"mean_{side}"]
        constant, share = _constant(same, n_items)
        if constant is not None:   # the runs giving it, counted in the cells whose every run does (a lower bound)
            other = "b" if side == "a" else "a"
            at = [items.filter(((pl.col(f"n_{s}") == 1) | (pl.col(f"sd_{s}") == 0)) & (pl.col(f"mean_{s}") == constant))
                  [f"n_{s}"].sum() for s in (side, other)]
            distinct = items[f"mean_{other}"].n_unique()
            if cells is not None:
                at[1], distinct = _runs_at(cells.filter(pl.col("item").is_in(items["item"].implode())
                                                        & (pl.col("variant") == (b if side == "a" else a))),
                                           constant)
            if not constant_beyond_chance(int(at[0]), int(n.sum()), int(at[1]), int(items[f"n_{other}"].sum()),
                                          distinct=distinct):
                constant = None
        runs = int(n.sum()) if n_items else 0
        facts.append(ValueFacts(v, (v,), ValueCounts(v, runs, runs, 0), (int(n.min()), int(n.max())) if n_items
                                else (0, 0), constant, share))
    unequal = int((items["n_a"] != items["n_b"]).sum()) if n_items else 0
    return DesignFacts(metric, a, b, (facts[0], facts[1]), n_items, unequal,
                       bool(unequal) and arms_unequal(items["n_a"].to_list(), items["n_b"].to_list()))


def _runs_at(cells: pl.DataFrame, constant: float) -> tuple[int, int]:
    """The runs of ``cells`` that may give ``constant`` (at most) and how many distinct numbers they give (at
    least), from each cell's ``counted`` runs, ``min`` and ``max``: a cell of one or two runs is known whole.

    >>> cells = pl.DataFrame({"counted": [2, 1, 4], "min": [4.0, 6.0, 3.0], "max": [7.0, 6.0, 9.0]})
    >>> _runs_at(cells, 6.0)   # 4 and 7; 6; 3 and 9 with up to two middle runs: 3 may give 6, 5 numbers seen
    (3, 5)
    """
    n, lo, hi = cells["counted"], cells["min"], cells["max"]
    ends = (lo == constant).cast(pl.Int64) + ((hi == constant) & (n >= 2) & (lo != hi)).cast(pl.Int64)
    inside = ((lo < constant) & (constant < hi) & (n > 2)).cast(pl.Int64) * (n - 2)
    one = ((lo == hi) & (lo == constant)).cast(pl.Int64) * (n - 1)   # a cell of one number: every run gives it
    known = pl.concat([lo, hi.filter(n >= 2)])
    return int((ends + inside + one).sum()), known.n_unique()


def group_constant_caveats(grouped: pl.DataFrame, by, metric: str, a: str, b: str,
                           whole: DesignFacts) -> tuple[Caveat, ...]:
    """A caveat naming the groups (``by``) where one value is constant although it is not in the whole log:
    there, that group's test only asks whether the other value differs from a constant.

    ``grouped`` is the item table split by ``by`` (``mean_a``, ``mean_b``, ``n_a``, ``n_b``, ``sd_a``, ``sd_b``
    per group and item); ``whole`` the whole log's facts, whose own constant arms are named by
    :func:`design_caveats`.

    >>> items = pl.DataFrame({"model": ["m1", "m1", "m2", "m2"], "item": ["1", "2", "1", "2"],
    ...                       "mean_a": [0.5, 1.0, 0.4, 0.9], "mean_b": [0.2, 0.6, 0.0, 0.0], "n_a": [2] * 4,
    ...                       "n_b": [2] * 4, "sd_a": [0.7, 0.1, 0.2, 0.3], "sd_b": [0.3, 0.2, 0.0, 0.0]})
    >>> whole = item_facts(items, "x", "a", "b")
    >>> [c.sentence for c in group_constant_caveats(items, ["model"], "x", "a", "b", whole)]   # doctest: +NORMALIZE_WHITESPACE
    ["In model = m2, 'b' gives x = 0 in every run of every item, so there the test only asks whether 'a'
     differs from a constant 0. A constant arm usually means the metric is defined relative to it, and without
     a noise or control reference (the same question asked again without the change) such a group's gap
     cannot be told from re-asking noise."]
    """
    whole_arms = {arm.value for arm in whole.constant_arms}
    found = []
    # a group can have a constant arm only where at least CONSTANT_SHARE of its items give one number under a
    # value (item_facts reads the most common of those): the others are passed over in one query
    one = [((pl.col(f"n_{s}") == 1) | (pl.col(f"sd_{s}") == 0)).sum().alias(f"__one_{s}") for s in ("a", "b")]
    counts = grouped.group_by(by, maintain_order=True).agg(pl.len().alias("__items"), *one)
    candidates = counts.filter((pl.col("__one_a") / pl.col("__items") >= CONSTANT_SHARE)
                               | (pl.col("__one_b") / pl.col("__items") >= CONSTANT_SHARE)).select(by)
    for key in candidates.iter_rows(named=True):
        mask = pl.all_horizontal([pl.col(k) == v if v is not None else pl.col(k).is_null() for k, v in key.items()])
        facts = item_facts(grouped.filter(mask).drop(by), metric, a, b)
        for arm in facts.constant_arms:
            if arm.value not in whole_arms:
                label = ", ".join(f"{k} = {v}" for k, v in key.items())
                found.append((label, key, arm))
    if not found:
        return ()
    other = {a: b, b: a}
    parts = []
    if len(found) > MAX_GROUP_CLAUSES:   # one clause per group would repeat itself: one sentence with a count
        total = grouped.select(by).unique().height
        parts.append(grouped_constants_clause(
            [(label, arm.value, arm.constant, arm.constant_share) for label, _, arm in found], metric, total,
            "so there the test only asks whether the other value differs from that constant"))
    for label, _, arm in (found if not parts else ()):
        share = share_text(arm.constant_share)
        parts.append(f"In {label}, '{arm.value}' gives {metric} = {constant_text(arm.constant)} in every run of "
                     f"{share}, so there the test only asks whether '{other[arm.value]}' differs from a constant "
                     f"{constant_text(arm.constant)}")
    sentence = ("; ".join(parts) + ". A constant arm usually means the metric is defined relative to it, and "
                "without a noise or control reference (the same question asked again without the change) such a "
                "group's gap cannot be told from re-asking noise.")
    figures = {"groups": [{"by": {k: (None if v is None else str(v)) for k, v in key.items()}, "value": arm.value,
                           "other": other[arm.value], "constant": arm.constant,
                           "share_of_items": arm.constant_share} for _, key, arm in found]}
    return (Caveat("constant_arm_in_groups", sentence, figures),)


#: beyond this many groups with a constant value, they are counted in one clause rather than named one by one
MAX_GROUP_CLAUSES = 3


def one_answer_blocks(cells: pl.DataFrame, by, values: Sequence[str]) -> list[tuple[dict, float, int, int]]:
    """The blocks (``by``: a model, a judge, a ``--by`` group) whose every run under every one of ``values`` gives
    one and the same number, as ``(block key, number, items, runs)``: the one computation behind ``one_answer``,
    in a comparison of two values and of several.

    ``cells`` holds one row per block, item and value (``value``) with ``n`` (its runs with a metric), ``one``
    (whether those runs give one number) and ``mean``. A block is named when every one of its cells with a
    run gives one number, the same in all of them, and each of ``values`` has a run there. Such a block's gaps
    are 0 in every item: it cannot show a gap. A fact of these runs, no inference: no test decides it, so it
    is exact, and a rare outcome that happened to be 0 in every run of a small block is named too (the
    sentence says what the runs gave, not that the block always gives it). ``items`` counts the block's items
    with a run, ``runs`` its runs with a metric.

    >>> cells = pl.DataFrame({"model": ["m1"] * 3 + ["m2"] * 3, "item": ["1", "1", "1"] * 2,
    ...                       "value": ["a", "b", "c"] * 2, "n": [2, 2, 1, 3, 3, 2],
    ...                       "one": [True, True, True] * 2, "mean": [1.0, 1.0, 0.0, 1.0, 1.0, 1.0]})
    >>> one_answer_blocks(cells, ["model"], ["a", "b", "c"])   # m1 gave 0 under 'c'
    [({'model': 'm2'}, 1.0, 1, 8)]
    >>> one_answer_blocks(cells, ["model"], ["a", "b", "c", "d"])   # no run of m2 under 'd'
    []
    """
    by = list(by)
    valued = cells.filter(pl.col("n") > 0)
    per = (valued.group_by(by, maintain_order=True)
           .agg(pl.col("one").all().alias("one"), pl.col("mean").n_unique().alias("numbers"),
                pl.col("mean").first().alias("number"), pl.col("value").n_unique().alias("values"),
                pl.col("value").is_in(list(values)).all().alias("compared"),
                pl.col("item").n_unique().alias("items"), pl.col("n").sum().alias("runs")))
    found = per.filter(pl.col("one") & (pl.col("numbers") == 1) & (pl.col("values") == len(set(values)))
                       & pl.col("compared"))
    return [({k: row[k] for k in by}, float(row["number"]), int(row["items"]), int(row["runs"]))
            for row in found.iter_rows(named=True)]


def one_answer_groups(grouped: pl.DataFrame, by, a: str, b: str) -> list[tuple[dict, float, int, int]]:
    """The groups (``by``: a model, a judge, a block) of a comparison of two values whose every run gives one and
    the same number under both values, as ``(group key, number, items, runs)``: :func:`one_answer_blocks` on the
    item table, each item's runs under a value one number when it is one run or their SD is 0.

    ``grouped`` is the item table split by ``by`` (``mean_a``, ``mean_b``, ``n_a``, ``n_b``, ``sd_a``,
    ``sd_b`` per group and item).

    >>> items = pl.DataFrame({"model": ["m1", "m1", "m2", "m2"], "item": ["1", "2", "1", "2"],
    ...                       "mean_a": [0.5, 1.0, 1.0, 1.0], "mean_b": [0.0, 1.0, 1.0, 1.0], "n_a": [2] * 4,
    ...                       "n_b": [2, 2, 1, 2], "sd_a": [0.7, 0.0, 0.0, 0.0], "sd_b": [0.0, 0.0, None, 0.0]})
    >>> one_answer_groups(items, ["model"], "a", "b")
    [({'model': 'm2'}, 1.0, 2, 7)]
    """
    by = list(by)
    cells = pl.concat([grouped.select(*by, pl.col("item").cast(pl.String), pl.lit(value).alias("value"),
                                      pl.col(f"n_{side}").cast(pl.Int64).alias("n"),
                                      ((pl.col(f"n_{side}") == 1) | (pl.col(f"sd_{side}") == 0)).fill_null(False)
                                      .alias("one"), pl.col(f"mean_{side}").cast(pl.Float64).alias("mean"))
                       for side, value in (("a", a), ("b", b))], how="vertical_relaxed")
    return one_answer_blocks(cells, by, (a, b))


def one_answer_cells(frame: pl.DataFrame, metric: str, by, values: Sequence[str], *,
                     value: str = "variant") -> pl.DataFrame:
    """The cells :func:`one_answer_blocks` reads, from the rows: per ``by`` block, item and value (of the column
    ``value``, one of ``values``), its runs with a metric (``n``), whether they give one number (``one``: their
    least and greatest are equal, exactly) and that number (``mean``: the least), on the items measured under
    every one of ``values`` in that block.

    >>> rows = pl.DataFrame({"model": ["x"] * 5, "item": ["1", "1", "1", "2", "2"],
    ...                      "variant": ["a", "b", "b", "a", "a"], "y": [0.1, 0.1, 0.1, 0.1, None]})
    >>> one_answer_cells(rows, "y", ["model"], ["a", "b"]).rows()   # item 2 has no run under 'b'
    [('x', '1', 'a', 1, True, 0.1), ('x', '1', 'b', 2, True, 0.1)]
    """
    by = list(by)
    rows = frame.filter(pl.col(value).is_in(list(values)))
    cells = (rows.group_by([*by, "item", value], maintain_order=True)
             .agg(pl.col(metric).count().alias("n"), pl.col(metric).min().alias("lo"),
                  pl.col(metric).max().alias("hi"))
             .with_columns(pl.col("n").cast(pl.Int64)))
    full = cells.group_by([*by, "item"]).agg(pl.col(value).n_unique().alias("k")).filter(
        pl.col("k") == len(set(values))).drop("k")
    cells = cells.join(full, on=[*by, "item"], how="semi", nulls_equal=True, maintain_order="left")
    return cells.select(*by, pl.col("item").cast(pl.String), pl.col(value).cast(pl.String).alias("value"), "n",
                        (pl.col("lo") == pl.col("hi")).fill_null(False).alias("one"),
                        pl.col("lo").cast(pl.Float64).alias("mean"))


def one_answer_caveat(grouped: pl.DataFrame, by, metric: str, a: str, b: str, noun: str,
                      pooled: bool = True) -> tuple[Caveat, ...]:
    """``one_answer`` in a comparison of two values: the groups (``by``) whose every run gives one number under
    both values (:func:`one_answer_groups`), in the sentence of :func:`one_answer_of`; ``noun`` is what the
    groups are called (plural), ``pooled`` whether the headline pools their runs.

    >>> items = pl.DataFrame({"model": ["m1", "m1", "gpt-x", "gpt-x"], "item": ["1", "2", "1", "2"],
    ...                       "mean_a": [0.5, 1.0, 1.0, 1.0], "mean_b": [0.0, 1.0, 1.0, 1.0], "n_a": [2] * 4,
    ...                       "n_b": [2] * 4, "sd_a": [0.7, 0.0, 0.0, 0.0], "sd_b": [0.0, 0.0, 0.0, 0.0]})
    >>> print(one_answer_caveat(items, ["model"], "flag", "a", "b", "models")[0].sentence)   # doctest: +NORMALIZE_WHITESPACE
    In model = gpt-x, every one of the 8 runs (2 items) gave flag = 1 under both 'a' and 'b': its gap is 0 in
    every item, so in this log it cannot show a gap, and the gap pooled over the 2 models counts those zeros.
    """
    total = grouped.select(list(by)).unique().height
    found = one_answer_groups(grouped, by, a, b) if total >= 2 else []
    return one_answer_of(found, total, metric, (a, b), noun, pooled)


def one_answer_of(found: Sequence[tuple[dict, float, int, int]], total: int, metric: str, values: Sequence[str],
                  noun: str, pooled: bool = True) -> tuple[Caveat, ...]:
    """``one_answer``: the blocks ``found`` (:func:`one_answer_blocks`) of ``total``, named in one sentence, counted
    beyond :data:`MAX_GROUP_CLAUSES`; ``values`` are the values compared (two: "under both 'a' and 'b'"; more:
    "under all 4 values", and the figures list them), ``noun`` what the blocks are called (plural), ``pooled``
    whether the headline pools their runs. Empty when nothing is found.

    >>> found = [({"model": "gamma"}, 1.0, 24, 288)]
    >>> print(one_answer_of(found, 4, "y", ["plain", "v1", "v2", "v3"], "models")[0].sentence)   # doctest: +NORMALIZE_WHITESPACE
    In model = gamma, every one of the 288 runs (24 items) gave y = 1 under all 4 values: its gaps between them
    are 0 in every item, so in this log it cannot show a difference, and the gaps pooled over the 4 models count
    those zeros.
    """
    if not found:
        return ()
    values = list(values)
    labels = [", ".join(f"{k} = {v}" for k, v in key.items()) for key, *_ in found]
    two = len(values) == 2
    under = f"both '{values[0]}' and '{values[1]}'" if two else f"all {len(values)} values"
    gap, gaps = ("gap", "gap") if two else ("gaps between them", "gaps")
    what = "a gap" if two else "a difference"
    tail = f", and the {gaps} pooled over the {total} {noun} count{'s' if two else ''} those zeros" if pooled else ""
    if len(found) == 1:
        (_, constant, items, runs), = found
        sentence = (f"In {labels[0]}, every one of the {runs} runs ({items} item{'s' if items != 1 else ''}) gave "
                    f"{metric} = {constant_text(constant)} under {under}: its {gap} {'is' if two else 'are'} 0 in "
                    f"every item, so in this log it cannot show {what}{tail}.")
    else:
        shown = labels[:MAX_GROUP_CLAUSES]
        more = f" and {len(labels) - len(shown)} more" if len(labels) > len(shown) else ""
        numbers = sorted({constant_text(c) for _, c, *_ in found})
        gave = f"{metric} = {numbers[0]}" if len(numbers) == 1 else f"one number of {metric} each"
        theirs = "their gaps are" if two else "their gaps between the values are"
        sentence = (f"In {len(found)} of {total} {noun} ({', '.join(shown)}{more}) every run gave {gave} under "
                    f"{under}: {theirs} 0 in every item, so in this log they cannot show {what}{tail}.")
    figures = {"groups": [{"by": {k: (None if v is None else str(v)) for k, v in key.items()}, "constant": c,
                           "n_items": items, "runs": runs} for key, c, items, runs in found],
               "n_groups": total}
    if not two:
        figures["values"] = values
    return (Caveat("one_answer", sentence, figures),)


def one_answer_clause(caveats: Sequence[Caveat], metric: str) -> str:
    """The pooled phrase's words for the blocks of one answer among ``caveats`` (its ``one_answer``), so that a
    phrase counting the blocks together (averaged over them, that they agree or disagree) says which gave one
    answer: '' when there is none.

    >>> one = Caveat("one_answer", "...", {"groups": [{"by": {"model": "gamma"}, "constant": 1.0}], "n_groups": 4})
    >>> one_answer_clause([one], "y")
    'gamma gave y = 1 in every run'
    >>> two = Caveat("one_answer", "...", {"groups": [{"by": {"model": m}, "constant": c} for m, c in
    ...                                     (("a", 1.0), ("b", 0.0))], "n_groups": 4})
    >>> one_answer_clause([two], "y")
    '2 of them gave one number in every run (a, b)'
    """
    found = next((c for c in caveats if c.id == "one_answer"), None)
    if found is None:
        return ""
    groups = found.figures["groups"]
    names = [", ".join(str(v) for v in g["by"].values()) for g in groups]
    if len(groups) == 1:
        return f"{names[0]} gave {metric} = {constant_text(groups[0]['constant'])} in every run"
    shown = ", ".join(names[:MAX_GROUP_CLAUSES]) + (f" and {len(names) - MAX_GROUP_CLAUSES} more"
                                                     if len(names) > MAX_GROUP_CLAUSES else "")
    return f"{len(groups)} of them gave one number in every run ({shown})"


def pooled_with(pooled: str | None, clause: str) -> str | None:
    """A verdict's pooled phrase with ``clause`` added inside its closing parenthesis (or in a new one).

    >>> pooled_with("averaged over 4 models that disagree (2 higher, 0 lower)", "m3 gave y = 1 in every run")
    'averaged over 4 models that disagree (2 higher, 0 lower; m3 gave y = 1 in every run)'
    >>> pooled_with("averaged over 4 models", "m3 gave y = 1 in every run"), pooled_with(None, "x")
    ('averaged over 4 models (m3 gave y = 1 in every run)', None)
    """
    if not pooled or not clause:
        return pooled
    return f"{pooled[:-1]}; {clause})" if pooled.endswith(")") else f"{pooled} ({clause})"


def one_answer_across(found: Sequence[tuple[str, Caveat]], n_metrics: int) -> tuple[Caveat, ...]:
    """``one_answer`` of several metrics: each metric's own (``found``: ``(metric, caveat)``) in one sentence,
    counted when more than one metric has it; its figures ``{"metrics": [{"metric", "groups", "n_groups"}]}``.

    >>> one = Caveat("one_answer", "In model = g, every one of the 8 runs (2 items) gave y = 1 under both 'a' and "
    ...              "'b': its gap is 0 in every item.", {"groups": [{"by": {"model": "g"}, "constant": 1.0}],
    ...              "n_groups": 3})
    >>> one_answer_across([("y", one)], 2)[0].sentence
    "For y: in model = g, every one of the 8 runs (2 items) gave y = 1 under both 'a' and 'b': its gap is 0 in every item."
    >>> print(one_answer_across([("y", one), ("z", one)], 3)[0].sentence)   # doctest: +NORMALIZE_WHITESPACE
    For 2 of 3 metrics some groups gave one number in every run under both values, so there their gap is 0 in
    every item and the pooled gap counts those zeros: y (model = g: 1); z (model = g: 1).
    """
    if not found:
        return ()
    figures = {"metrics": [{"metric": m, **c.figures} for m, c in found]}
    if len(found) == 1:
        (m, c), = found
        return (Caveat("one_answer", f"For {m}: {c.sentence[:1].lower()}{c.sentence[1:]}", figures),)
    parts = []
    for m, c in found:
        groups = c.figures["groups"]
        shown = ", ".join(f"{', '.join(f'{k} = {v}' for k, v in g['by'].items())}: {constant_text(g['constant'])}"
                          for g in groups[:MAX_GROUP_CLAUSES])
        more = f" and {len(groups) - MAX_GROUP_CLAUSES} more" if len(groups) > MAX_GROUP_CLAUSES else ""
        parts.append(f"{m} ({shown}{more})")
    sentence = (f"For {len(found)} of {n_metrics} metrics some groups gave one number in every run under both values, "
                f"so there their gap is 0 in every item and the pooled gap counts those zeros: {'; '.join(parts)}.")
    return (Caveat("one_answer", sentence, figures),)


def grouped_constants_clause(found: Sequence[tuple[str, str, float, float]], metric: str, total: int,
                             asks: str) -> str:
    """Groups where one value is constant, counted in one clause: ``found`` holds ``(group label, value,
    constant, share of items)``; the groups are counted per value and constant, at most three such pairs and
    three groups of each named.

    >>> found = [(f"model = m{k}", "b", 0.8979, 1.0) for k in range(12)]
    >>> grouped_constants_clause(found, "compound", 15, "so there the test only asks whether the other value differs from that constant")
    "In 12 of 15 groups one value gives compound one number in every run of every item, so there the test only asks whether the other value differs from that constant: 'b' = 0.8979 in 12 (model = m0, model = m1, model = m2 and 9 more)"
    """
    by_pair: dict[tuple[str, float], list[str]] = {}
    for label, value, constant, _ in found:
        by_pair.setdefault((value, constant), []).append(label)
    every = all(share == 1 for *_, share in found)
    where = "every item" if every else f"at least {min(share for *_, share in found):.0%} of the items"
    ranked = sorted(by_pair.items(), key=lambda kv: -len(kv[1]))
    shown = []
    for (value, constant), labels in ranked[:3]:
        more = f" and {len(labels) - 3} more" if len(labels) > 3 else ""
        shown.append(f"'{value}' = {constant_text(constant)} in {len(labels)} ({', '.join(labels[:3])}{more})")
    if len(ranked) > 3:
        rest = ranked[3:]
        shown.append(f"{len(rest)} other constant{'s' if len(rest) > 1 else ''} in "
                     f"{sum(len(labels) for _, labels in rest)} more")
    groups = len({label for label, *_ in found})
    return (f"In {groups} of {total} groups one value gives {metric} one number in every run of {where}, "
            f"{asks}: {'; '.join(shown)}")


def constant_text(x: float) -> str:
    """A constant as a sentence writes it (``0``, not ``0.0``).

    >>> constant_text(0.0), constant_text(0.25)
    ('0', '0.25')
    """
    return str(int(x)) if float(x).is_integer() and math.isfinite(x) else f"{x:g}"


def design_caveats(facts: DesignFacts) -> tuple[Caveat, ...]:
    """The facts that weaken a verdict on this pair, as named caveats: a constant arm, unequal runs, a group
    of several values on one side.

    >>> rows = pl.DataFrame({"item": ["1"] * 3 + ["2"] * 3, "variant": ["a", "b", "b"] * 2,
    ...                      "x": [1.0, 2.0, 4.0, 3.0, 3.0, 5.0]})
    >>> print(design_caveats(design_facts(rows, "x", "a", "b"))[0].sentence)
    In 2 of 2 items 'a' and 'b' have different numbers of runs (1 to 1 against 2 to 2): the item gap is not symmetric about zero under the null, so the verdict rests on the exact permutation of the runs' value labels within items, and the sign test and Wilcoxon's test are not tests of this design.
    """
    out = []
    other = {facts.a: facts.b, facts.b: facts.a}
    for arm in facts.constant_arms:
        share = share_text(arm.constant_share)
        out.append(Caveat(
            "constant_arm",
            f"'{arm.value}' gives {facts.metric} = {constant_text(arm.constant)} in every run of {share}, so the test only "
            f"asks whether '{other[arm.value]}' differs from a constant {constant_text(arm.constant)}; a constant arm usually "
            f"means the metric is defined relative to it, and without a noise or control reference (the same "
            f"question asked again without the change) the gap cannot be told from re-asking noise.",
            {"value": arm.value, "other": other[arm.value], "constant": arm.constant,
             "share_of_items": arm.constant_share, "n_items": facts.n_items}))
    if facts.unequal_by_design:   # a run or a few missing from a balanced design leave the sign-flip test standing
        a_runs, b_runs = (v.runs_per_item for v in facts.values)
        out.append(Caveat(
            "unequal_runs",
            f"In {facts.unequal_items} of {facts.n_items} items '{facts.a}' and '{facts.b}' have different numbers "
            f"of runs ({a_runs[0]} to {a_runs[1]} against {b_runs[0]} to {b_runs[1]}): the item gap is not "
            "symmetric about zero under the null, so the verdict rests on the exact permutation of the runs' value "
            "labels within items, and the sign test and Wilcoxon's test are not tests of this design.",
            {"unequal_items": facts.unequal_items, "n_items": facts.n_items, "runs_per_item_a": list(a_runs),
             "runs_per_item_b": list(b_runs)}))
    group = facts.group_side
    if group is not None:
        out.append(Caveat(
            "group_side",
            f"'{group.value}' is a group of {len(group.members)} values, each item's gap one side against the mean "
            "of several: the gap is not symmetric about zero under the null, so the verdict rests on the exact "
            "permutation of the value labels within items, and the sign test and Wilcoxon's test are not tests of "
            "this design.",
            {"value": group.value, "members": list(group.members)}))
    return tuple(out)
