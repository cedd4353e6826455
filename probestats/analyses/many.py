"""More than two values: per-value means, gaps against a reference, an omnibus test, groups of names.

A probe with several values of one attribute (bylines A to D, eight names in a hiring
ranking) is analyzed item by item, as in the paired case: each item's mean under each
value is the mean over its runs, and every item counts once.

* **Per-value mean**: the mean over items of the item means.
* **Gaps against a reference value** (default: the first value): per value, the
  average over items of (item mean under the value − item mean under the reference),
  with the exact sign-flip test on those item gaps.
* **Omnibus test** that the value makes no difference at all: the within-item permutation test of
  :mod:`probestats.analyses.omnibus` (exact by enumeration when the design is small, else Monte Carlo).
* **Pairwise tests**: the sign-flip test on the item gaps of every pair of values,
  corrected across the pairs (Holm by default). One orientation everywhere: the reference
  first, then the other values in their order, and each pair is the later value minus the
  earlier (:func:`oriented_pairs`), so a pair with the reference is value − reference, as the
  item gaps and the gaps against the reference are, and ``alternative`` ("less": the value
  below the reference) means the same in every table. The gaps against the reference *are*
  those pairs' rows: each comparison is tested once in the direction asked, and its corrected
  p is computed from that p (never below it).
* **Groups of names** (``--group female=Emily,Lakisha``): several names stand for one
  group; an item's group mean is the mean of its per-name item means, so each name
  counts once, whatever its number of runs.
* **Selection probes**: when the user says the metric is a selection (``selection=True``, a
  design fact; a 0/1 metric alone may be an agree share or a correct answer), the per-value
  means are selection rates, shown with impact ratios (:mod:`probestats.stats.selection`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from typing import Mapping, Sequence

import numpy as np
import polars as pl

from probestats.analyses.blocks import drivers_clause
from probestats.analyses.design_read import read_design
from probestats.analyses.halves import BLOCK_SETTINGS, block_noun
from probestats.analyses.items import check_by
from probestats.analyses.many_design import (agreement_caveat, constant_caveats, headline_agreement, one_answer_caveats,
                                             one_answer_clause, pair_agreements)
from probestats.analyses.omnibus import OmnibusResult, omnibus_test
from probestats.analyses.pair_tests import refuse_tiny
from probestats.analyses.reference import reference_check
from probestats.analyses.verdict import decide_many, with_caveats
from probestats.checks.design_facts import Caveat
from probestats.checks.schema import SETTINGS, ColumnRoles, validate
from probestats.errors import OptionError, ValidationError, either, opt
from probestats.errors import Problem, has_errors
from probestats.io.columns import ROW
from probestats.io.log import Log, collect, format_rows
from probestats.limits import check_limit, duration, how_to_raise, limit
from probestats.result import Result, html_summary
from probestats.shape.probe import Probe
from probestats.stats.exact import fraction_mean
from probestats.stats.hypotests import Interval, TestResult, mean_interval, sign_flip_test
from probestats.stats.multitest import adjust
from probestats.stats.permutation import PERMUTATION_TEST, within_item_permutation_test
from probestats.stats.published import cochran_q, friedman
from probestats.stats.selection import ImpactRatio, NOTE, THRESHOLD, impact_ratios, is_selection, pooled_rates
from probestats.vocabulary import Tests, as_tests, column_names

__all__ = [
    "ValueMean",
    "PairGap",
    "ManyResult",
    "ManyAnalysis",
    "parse_groups",
    "many_values",
    "check_many",
    "unit_means",
    "analyze_many",
]

#: Problems validation computes for the first two values only; redone here across all values.
PAIR_CODES = frozenset({"unmatched_item", "confounded_setting", "seed_mismatch", "unequal_runs", "duplicate_run",
                        "not_alternated", "deterministic", "too_few_values"})


def _interval_dict(iv: Interval) -> dict:
    """An interval's JSON object (an open end is null)."""
    return {"low": _num(iv.low), "high": _num(iv.high), "confidence": iv.confidence, "method": iv.method,
            "assumption": iv.assumption}


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class ValueMean:
    """One value's mean over items (a group's: over items of the mean of its names).

    Attributes
    ----------
    value : str
        The value (or group) name.
    mean : float
        Unweighted mean over items of the item means under the value.
    n_items : int
        Items measured under the value.
    names : tuple of str
        The values a group stands for (empty for a single value).
    sd_runs : float or None
        SD of every run of the value over all its items (n − 1 in the denominator).
    n_runs : int or None
        The number of those runs.
    interval : Interval or None
        The Student t interval of ``mean`` over the item means (``n_items − 1`` degrees of freedom).
    """

    value: str
    mean: float
    n_items: int
    names: tuple[str, ...] = ()
    #: SD of every run of the value (over all its items, n − 1 in the denominator) and their number
    sd_runs: float | None = None
    n_runs: int | None = None
    interval: Interval | None = None

    def to_dict(self) -> dict:
        out = {"value": self.value, "mean": _num(self.mean), "n_items": int(self.n_items),
               "sd_runs": _num(self.sd_runs), "n_runs": self.n_runs}
        if self.interval is not None:
            out["interval"] = _interval_dict(self.interval)
        if self.names:
            out["names"] = list(self.names)
        return out


@dataclass(frozen=True)
class PairGap:
    """Average item gap ``a − b`` of two values, with the sign-flip test and its corrected p.

    Attributes
    ----------
    a, b : str
        The two values; the gap is the item mean under ``a`` minus the one under ``b``.
    average_gap : float
        Unweighted mean of the item gaps.
    sign_flip : TestResult
        The exact sign-flip test on the item gaps; for two groups of unequal size, the exact within-item
        permutation of the value labels instead (its ``method`` says which).
    p_adjusted : float or None
        Its p corrected across the pairs (None when not corrected).
    interval : Interval or None
        The Student t interval of ``average_gap`` over the item gaps (``n − 1`` degrees of freedom).
    """

    a: str
    b: str
    average_gap: float
    sign_flip: TestResult
    p_adjusted: float | None = None
    interval: Interval | None = None

    def to_dict(self) -> dict:
        out = {"a": self.a, "b": self.b, "average_gap": _num(self.average_gap),
               "p": float(self.sign_flip.pvalue), "p_adjusted": _num(self.p_adjusted),
               "method": self.sign_flip.method, "alternative": self.sign_flip.alternative}
        if self.interval is not None:
            out["interval"] = _interval_dict(self.interval)
        return out


@dataclass(frozen=True)
class ManyResult:
    """The many-values analysis of one log (or of one ``--by`` group).

    Attributes
    ----------
    metric : str
    values : tuple of ValueMean
        In order: ``--group`` order, else order of appearance.
    reference : str
    gaps : tuple of PairGap
        Every other value against the reference (``a`` = the value, ``b`` = the reference).
    pairwise : tuple of PairGap
        Every pair, p corrected across pairs.
    omnibus : OmnibusResult
    impact_ratios : tuple of ImpactRatio or None
        For a metric the user says is a selection (``selection=True``); None otherwise.
    items : polars.DataFrame
        Long table: item, value, mean (the item's mean under the value), runs.
    by : dict
    omnibus_p_adjusted : float or None
        Omnibus p corrected across ``by`` groups.
    correction : {"holm", "bonferroni", "bh", "none"}
        The correction across ``pairwise``.
    published : tuple of PublishedTest
        Friedman's test (and Cochran's Q for 0/1 outcomes) beside the omnibus (:mod:`probestats.stats.published`).
    pairs_left_out : int
        Pairs of values not tested one by one because they number more than the limit of pairs
        (:data:`probestats.limits.LIMITS`, ``pairs``): ``pairwise`` is then empty and the gaps against the
        reference are corrected across themselves (0 when every pair is tested).
    """

    metric: str
    values: tuple[ValueMean, ...]
    reference: str
    gaps: tuple[PairGap, ...]
    pairwise: tuple[PairGap, ...]
    omnibus: OmnibusResult
    impact_ratios: tuple[ImpactRatio, ...] | None
    items: pl.DataFrame = field(repr=False)
    correction: str = "holm"
    by: dict = field(default_factory=dict)
    omnibus_p_adjusted: float | None = None
    #: Friedman's test (and Cochran's Q for 0/1 outcomes) beside the omnibus (:mod:`probestats.stats.published`)
    published: tuple = ()
    pairs_left_out: int = 0

    @property
    def n_items(self) -> int:
        return self.omnibus.n_items

    def item_gaps(self) -> list[dict]:
        """Per item, each value's gap against the reference (item mean − the reference's item mean),
        with the runs of both and the SD of the value's runs in the item."""
        cells: dict[str, dict] = {}
        for r in self.items.iter_rows(named=True):
            cells.setdefault(str(r["item"]), {})[r["value"]] = r
        out = []
        for item, by_value in cells.items():
            ref = by_value.get(self.reference)
            for value, r in by_value.items():
                if value == self.reference or ref is None:
                    continue
                out.append({"item": item, "value": value, "gap": _num(r["mean"] - ref["mean"]),
                            "mean": _num(r["mean"]), "reference_mean": _num(ref["mean"]), "runs": int(r["runs"]),
                            "reference_runs": int(ref["runs"]), "sd": _num(r.get("sd")),
                            "reference_sd": _num(ref.get("sd"))})
        return out

    def to_dict(self) -> dict:
        omnibus = self.omnibus.to_dict()
        if self.omnibus_p_adjusted is not None:
            omnibus["p_adjusted"] = self.omnibus_p_adjusted
        wide: dict[str, dict] = {}
        for r in self.items.iter_rows(named=True):
            wide.setdefault(str(r["item"]), {})[r["value"]] = _num(r["mean"])
        out = {
            "metric": self.metric,
            "n_items": self.n_items,
            "reference": self.reference,
            "values": [v.to_dict() for v in self.values],
            "gaps": [g.to_dict() for g in self.gaps],
            "omnibus": omnibus,
            "pairwise": [g.to_dict() for g in self.pairwise],
            "pairwise_correction": self.correction,
            "items": [{"item": k, "means": v} for k, v in wide.items()],
            "item_gaps": self.item_gaps(),
            "published_tests": {t.name: t.to_dict() for t in self.published},
        }
        if self.pairs_left_out:
            out["pairs_left_out"] = self.pairs_left_out
        if self.impact_ratios is not None:
            out["impact_ratios"] = [r.to_dict() for r in self.impact_ratios]
            out["four_fifths"] = {"threshold": THRESHOLD, "note": NOTE}
        if self.by:
            out = {"by": dict(self.by), **out}
        return out


@dataclass(frozen=True)
class ManyAnalysis(Result):
    """Result of :func:`analyze_many`; ``to_dict()`` is its ``analyze --json`` object, ``result.pvalue`` the
    omnibus p and ``to_frame()`` the table of item means (one row per item, a column per value).

    Attributes
    ----------
    main : ManyResult
        The analysis of every item.
    groups : tuple of ManyResult
        One analysis per ``by`` group, the omnibus p corrected across them.
    problems : tuple of Problem
        Warnings a reader must be told.
    alpha : float
        The level the p-values are read against.
    correction : {"holm", "bonferroni", "bh", "none"}
        The correction across pairs of values and across ``by`` groups.
    frame : polars.DataFrame
        The validated rows the analysis was computed from.
    verdict : Verdict
        The conclusion, decided once from the omnibus p (:func:`probestats.analyses.verdict.decide_many`);
        every renderer words it.
    axes : Axes or None
        With ``axes=``: per axis of values that combine attributes, the mean gap and mean |gap| over items and
        the share of items with a significant gap (:func:`probestats.analyses.axes.with_axes`).
    """

    MAIN_TABLE = "items"

    def _headline(self):
        return self.main.omnibus

    main: ManyResult
    groups: tuple[ManyResult, ...]
    problems: tuple[Problem, ...]
    alpha: float
    correction: str
    frame: pl.DataFrame = field(repr=False)
    verdict: object | None = None
    #: with ``axes=``: the per-axis figures of values that combine attributes (:mod:`probestats.analyses.axes`)
    axes: object | None = None

    @property
    def metric(self) -> str:
        return self.main.metric

    @property
    def pvalue(self) -> float:
        """The headline p: the omnibus test that the value makes no difference (``main.omnibus.pvalue``)."""
        return self.main.omnibus.pvalue

    @property
    def detected(self) -> bool:
        """True when the omnibus p is at or below alpha (p <= alpha, the rule of every analysis)."""
        return self.verdict.detected if self.verdict is not None else self.main.omnibus.pvalue <= self.alpha

    @property
    def probe_design(self):
        """What this analysis took the probe to be (:func:`probestats.analyses.design_read.read_design`)."""
        return read_design(self)

    def to_dict(self) -> dict:
        out = {"kind": "many_values", "design": self.probe_design.to_dict(), **self.main.to_dict(),
               "alpha": self.alpha}
        out["groups"] = [g.to_dict() for g in self.groups]
        out["correction"] = self.correction if self.groups else None
        out["problems"] = [p.to_dict() for p in self.problems]
        if self.verdict is not None:
            out["verdict"] = self.verdict.to_dict()
        if self.axes is not None:
            out["axes"] = self.axes.to_dict()
        return out

    def __repr__(self) -> str:
        m = self.main
        return (f"ManyAnalysis(metric={m.metric!r}, values={[v.value for v in m.values]!r}, "
                f"n_items={m.n_items}, omnibus_p={m.omnibus.pvalue:.6g})")

    def _repr_html_(self) -> str:
        m = self.main
        return html_summary(self, m.items, metric=m.metric, values=", ".join(v.value for v in m.values),
                            reference=m.reference, n_items=m.n_items, omnibus_p=m.omnibus.pvalue,
                            method=m.omnibus.method)


# --------------------------------------------------------------------------- options


_GROUP_EXAMPLE = "groups=['female=Emily,Lakisha']"


def _where(condition: str) -> str:
    """A row filter as the caller writes it: ``where="..."`` in Python, ``--where "..."`` on the command line."""
    return either(f"where={condition!r}", f'--where "{condition}"')


def _not_item(item) -> str:
    """The SQL condition that leaves one item out."""
    return f"item <> '{item}'"


def parse_groups(specs: Sequence[str] | Mapping[str, Sequence[str]] | None) -> dict[str, tuple[str, ...]]:
    """Read ``--group NAME=value1,value2`` options into ``{group: (values...)}``.

    Examples
    --------
    >>> parse_groups(["female=Emily,Lakisha", "male = Greg, Jamal"])
    {'female': ('Emily', 'Lakisha'), 'male': ('Greg', 'Jamal')}
    >>> parse_groups(["female"])
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: groups='female': expected GROUP=value,value, for example groups=['female=Emily,Lakisha']
    """
    if not specs:
        return {}
    if isinstance(specs, Mapping):
        items = [(str(k), [str(v) for v in vs]) for k, vs in specs.items()]
    else:
        items = []
        for spec in specs:
            if "=" not in spec:
                raise OptionError(f"{opt('groups', spec)}: expected GROUP=value,value, for example "
                                  + either(_GROUP_EXAMPLE, "--group female=Emily,Lakisha"))
            name, rest = spec.split("=", 1)
            items.append((name.strip(), [v.strip() for v in rest.split(",") if v.strip()]))
    out: dict[str, tuple[str, ...]] = {}
    owner: dict[str, str] = {}
    for name, values in items:
        if not name or not values:
            raise OptionError(f"{opt('groups', name + '=' + ','.join(values))}: give a group name and at least one value")
        if name in out:
            raise OptionError(f"{opt('groups', name)}: the group is given twice; list all its values in one {either('entry', '--group')}")
        for v in values:
            if v in owner:
                raise OptionError(f"{opt('groups')}: '{v}' is in both '{owner[v]}' and '{name}'; put each value in one group")
            owner[v] = name
        out[name] = tuple(values)
    return out


# --------------------------------------------------------------------------- validation across all values


def _items_text(items, limit: int = 10) -> str:
    items = [str(i) for i in items]
    text = ", ".join(items[:limit])
    return text + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _key_mask(key: Mapping) -> pl.Expr:
    return pl.all_horizontal([pl.col(k) == v if v is not None else pl.col(k).is_null() for k, v in key.items()]) \
        if key else pl.lit(True)


#: seconds the analysis of one value takes, about (measured: 5,000 values of 20,000 rows in 7 s); for the cost
_SECONDS_PER_VALUE = 0.0015


def _check_values(log: Log) -> None:
    """Refuse more distinct values than the limit of values, before validation reads them all."""
    if "variant" not in log.lazy.collect_schema().names():
        return
    count = int(collect(log.lazy.select(pl.col("variant").drop_nulls().n_unique()), log.source, log._path).item())
    check_limit("values", count, f"the distinct values of {log.columns.get('variant', 'the value column')!r}",
                f"estimated {duration(count * _SECONDS_PER_VALUE)}; a column of free text read as the value?",
                f"check the value column ({opt('columns', {'variant': 'HEADER'})}), group values with "
                f"{opt('groups')}")


def check_many(log, question, probe=None, *, keep: Sequence[str] = (), value_name: str = "value"
               ) -> tuple[pl.DataFrame, tuple[str, ...], dict[str, tuple[str, ...]], tuple[Problem, ...]]:
    """Validate a log for a comparison of all its values (or groups of values).

    Validation's checks that concern the compared pair (unmatched items, confounded
    settings, duplicates, deterministic cells) are redone across every value; every
    other check (missing columns, numbers, blanks, near-duplicate values) is kept. The ``question`` gives the
    metric, the ``by`` columns and the ``group`` of values, the ``probe`` the case folding; ``keep``: columns
    kept in the frame, ``value_name``: what a value is called in messages.

    Returns
    -------
    frame : polars.DataFrame
        The checked frame with a ``_unit`` column: the group of the row's value (or the value).
    units : tuple of str
        Groups in ``--group`` order, else values in order of appearance.
    members : dict
        unit -> the values (names) that stand for it.
    problems : tuple of Problem

    Raises
    ------
    ValidationError
        When there are errors (an item lacking a value is one).
    """
    metric, by = question.metric, list(question.by)
    groups = parse_groups(question.group)
    _check_values(log)
    checked = validate(log, metric=metric, by=by, fold_case=bool(probe is not None and probe.fold_case),
                       roles=ColumnRoles(keep=keep))
    problems = [p for p in checked.problems if p.code not in PAIR_CODES]
    if has_errors(problems):
        raise ValidationError(problems)
    frame = checked.frame
    values = checked.values
    col = log.columns.get("variant")
    if groups:
        seen = ", ".join(f"'{v}'" for v in values[:20]) + (" ..." if len(values) > 20 else "")
        for g, names in groups.items():
            missing = [n for n in names if n not in values]
            if missing:
                raise OptionError(f"{opt('groups', g)}: no value {', '.join(repr(m) for m in missing)} in the log; "
                                  f"values seen: {seen}")
        owner = {n: g for g, names in groups.items() for n in names}
        loose = [v for v in values if v not in owner]
        if loose:
            problems.append(Problem("warning", "ungrouped_value",
                                    f"values {', '.join(repr(v) for v in loose)} are in no {either('group', '--group')}; "
                                    "their runs are left out",
                                    column=col))
        frame = frame.filter(pl.col("variant").is_in(list(owner))).with_columns(
            pl.col("variant").replace_strict(owner, return_dtype=pl.String).alias("_unit"))
        units = tuple(groups)
        members = {g: tuple(groups[g]) for g in units}
    else:
        frame = frame.with_columns(pl.col("variant").alias("_unit"))
        units = tuple(values)
        members = {v: (v,) for v in units}
    if len(units) < 2:
        raise OptionError(f"only one {value_name} ({', '.join(units) or 'none'}) to compare; "
                          "a probe compares at least two")

    keys = [*by, "item"]
    have = frame.group_by(keys, maintain_order=True).agg(pl.col("_unit").unique())
    # only the items lacking some value are looked at value by value (thousands of values stay fast)
    short = have.filter(pl.col("_unit").list.len() < len(units))
    for unit in (units if short.height else ()):
        lacking = short.filter(~pl.col("_unit").list.contains(unit))
        if lacking.height:
            label = [" ".join([str(r["item"])] + [f"({k} {r[k]})" for k in by]) for r in lacking.iter_rows(named=True)]
            rows = tuple(log.rows(frame.filter(pl.col("item").is_in(lacking["item"].implode()))[ROW]
                                  .head(50).to_list()))
            what = f"'{unit}' runs" if not groups else f"runs of any '{unit}' value ({', '.join(members[unit])})"
            problems.append(Problem(
                "error", "unmatched_item",
                f"items {_items_text(label)} have no {what}; every item needs every {value_name}: "
                f"add the runs, or drop the items (for example {_where(_not_item(lacking['item'][0]))})"
                + ("" if groups else f", or group values with {opt('groups')}"),
                rows, log.columns.get("item")))

    for setting in SETTINGS:
        if setting not in frame.columns or setting in by:
            continue
        header = log.columns.get(setting, setting).strip()
        per = (frame.with_columns(pl.col(setting).cast(pl.String).fill_null("(blank)").alias("_s"))
               .group_by([*keys, "_unit"], maintain_order=True).agg(pl.col("_s").unique().sort().str.join("\x1f")))
        # items in order of appearance, so the message reads the same on every run
        differ = per.group_by(keys, maintain_order=True).agg(pl.col("_s").n_unique().alias("k")).filter(pl.col("k") > 1)
        if differ.height:
            problems.append(Problem(
                "error", "confounded_setting",
                f"{header} differs between the compared {value_name}s within items {_items_text(differ['item'].to_list())}; "
                f"rerun with {header} held fixed, or split with {opt('by', setting)}",
                (), log.columns.get(setting)))

    if "seed" in frame.columns:
        # the same seed under two models (a block) is two runs
        held = [c for c in SETTINGS if c in frame.columns and c not in keys]
        dup = frame.filter(pl.col("seed").is_not_null() & pl.len().over([*keys, "variant", "seed", *held]).gt(1))
        if dup.height:
            rows = tuple(log.rows(dup[ROW].head(50).to_list()))
            problems.append(Problem(
                "warning", "duplicate_run",
                f"{dup.height} runs repeat the same item, value and seed ({format_rows(log, rows)}); "
                "remove the copies or give each run its own seed", rows, log.columns.get("seed")))

    cells = frame.group_by([*keys, "variant"]).agg(pl.col(metric).n_unique().alias("k"), pl.len().alias("n"))
    repeated = cells.filter(pl.col("n") > 1)
    if repeated.height and (repeated["k"] == 1).all():
        n_items = frame.select(keys).unique().height
        problems.append(Problem(
            "warning", "deterministic",
            f"every run of each item and value gave the same {metric}: repeats add nothing, so the sample size "
            f"is the number of items ({n_items}), not the number of runs ({frame.height})"))
    if has_errors(problems):
        raise ValidationError(problems)
    return frame, units, members, tuple(problems)


def unit_means(frame: pl.DataFrame, metric: str, by: Sequence[str] = (), *, exact: bool = False) -> pl.DataFrame:
    """Item means per value (``_unit``): the mean over the value's names of each name's mean over runs.

    Every mean is exact, rounded once (:func:`probestats.stats.exact.fraction_mean`: a name's mean of its
    runs, a group's mean of its names' means); with ``exact`` the unrounded fraction is in an ``exact``
    column too, so sums and gaps of the means can be computed without float residue.

    Examples
    --------
    >>> frame = pl.DataFrame({"item": ["1"] * 4, "variant": ["Emily", "Emily", "Lakisha", "Greg"],
    ...                       "_unit": ["f", "f", "f", "m"], "x": [1.0, 0.0, 1.0, 0.0]})
    >>> unit_means(frame, "x").rows()   # f: mean of Emily 0.5 and Lakisha 1.0, each name once
    [('1', 'f', 0.75, 3), ('1', 'm', 0.0, 1)]
    >>> unit_means(frame, "x", exact=True)["exact"].to_list()
    [Fraction(3, 4), Fraction(0, 1)]
    """
    from fractions import Fraction

    keys = [*by, "item"]
    per_name = frame.group_by([*keys, "_unit", "variant"], maintain_order=True).agg(
        pl.col(metric).drop_nulls().alias("_runs"), pl.len().alias("runs"))
    fractions = [fraction_mean(xs) if len(xs) else None for xs in per_name["_runs"].to_list()]
    cells: dict[tuple, list] = {}
    runs: dict[tuple, int] = {}
    for row, f in zip(per_name.select(*keys, "_unit", "runs").iter_rows(), fractions):
        key = row[:-1]
        cells.setdefault(key, [])
        runs[key] = runs.get(key, 0) + int(row[-1])
        if f is not None:
            cells[key].append(f)
    names = [*keys, "value"]
    means = [sum(fs, Fraction(0)) / len(fs) if fs else None for fs in cells.values()]
    out = pl.DataFrame([list(k) for k in cells], schema=per_name.select(*keys, "_unit").rename(
        {"_unit": "value"}).schema, orient="row")
    out = out.with_columns(pl.Series("mean", [None if m is None else float(m) for m in means], dtype=pl.Float64),
                           pl.Series("runs", list(runs.values()), dtype=pl.Int64))
    if exact:
        out = out.with_columns(pl.Series("exact", means, dtype=pl.Object))
    return out.select(*names, "mean", "runs", *(["exact"] if exact else []))


def with_cell_sds(means: pl.DataFrame, frame: pl.DataFrame, metric: str, by: Sequence[str] = ()) -> pl.DataFrame:
    """:func:`unit_means` with ``sd``: the SD of the runs of each item x value cell (all its names' runs)."""
    keys = [*by, "item"]
    sds = (frame.group_by([*keys, "_unit"], maintain_order=True)
           .agg(pl.col(metric).cast(pl.Float64).std().alias("sd")).rename({"_unit": "value"}))
    return means.join(sds, on=[*keys, "value"], how="left", maintain_order="left")


# --------------------------------------------------------------------------- the omnibus test


# --------------------------------------------------------------------------- the analysis


def check_size(matrix: np.ndarray, items, metric: str) -> None:
    """Refuse item means so large that their gaps, sums or squares overflow (such as 1e308 and -1e308), or whose
    gaps are so small that their squares vanish (such as 5e-324).

    The limit, 1e100 in absolute value, keeps squared sums over any number of items finite.
    """
    size = np.abs(matrix).max(axis=1) if matrix.size else np.zeros(0)
    odd = [str(i) for i, x in zip(items, size) if not x <= 1e100]
    if odd:
        raise OptionError(f"the means of item {_items_text(odd, 5)} are too large to compare (beyond 1e100); "
                          f"rescale the metric '{metric}'")
    if matrix.size:   # gaps so small their squares vanish (subnormal numbers): refused with the scaling
        known = ~np.isnan(matrix)
        spread = np.where(known, matrix, -np.inf).max(axis=1) - np.where(known, matrix, np.inf).min(axis=1)
        refuse_tiny(spread[np.isfinite(spread)].tolist(), matrix[known].tolist(), metric)


def run_sds(frame: pl.DataFrame, metric: str, by: Sequence[str] = ()) -> dict:
    """Per group key (a tuple of the ``by`` values) and value: (SD of its runs, number of runs)."""
    stats_ = frame.group_by([*by, "_unit"], maintain_order=True).agg(
        pl.col(metric).cast(pl.Float64).std().alias("sd"), pl.col(metric).count().alias("n"))
    return {(tuple(r[k] for k in by), r["_unit"]): (r["sd"], int(r["n"])) for r in stats_.iter_rows(named=True)}


def _published(matrix: np.ndarray, means: pl.DataFrame, binary: bool) -> tuple:
    """Friedman's test, and Cochran's Q when every cell is one 0/1 run, beside the omnibus."""
    out = [friedman(matrix)] if matrix.shape[1] >= 3 else []
    if binary and means.height and int(means["runs"].max()) == 1:
        out.append(cochran_q(matrix))
    return tuple(out)


def pairwise_left_out(n_values: int) -> bool:
    """True when ``n_values`` make more pairs than the limit of pairs tested one by one (``--limit pairs=N``).

    >>> pairwise_left_out(100), pairwise_left_out(101)   # 4,950 pairs, then 5,050 (the limit is 5,000)
    (False, True)
    """
    return n_values * (n_values - 1) // 2 > limit("pairs")


def pairs_problem(n_values: int, reference: str) -> Problem:
    """The warning that the pairwise table was left out, with its cost and how to have it."""
    pairs = n_values * (n_values - 1) // 2
    return Problem("warning", "pairwise_left_out",
                   f"the {n_values:,} values make {pairs:,} pairs, more than the limit of {limit('pairs'):,} tested "
                   f"one by one ({pairs:,} sign-flip tests), so the pairwise table is left out and the gaps "
                   f"against '{reference}' are corrected across those {n_values - 1:,} gaps; compare chosen "
                   f"values with {opt('a')} and {opt('b')}, or raise the limit with {how_to_raise('pairs', pairs)}")


def _exact_sums(means: pl.DataFrame, items: list, units) -> dict:
    """Per value, the exact sum of its item means over ``items`` (fractions from :func:`unit_means`'s ``exact``;
    the float means, taken as exact, where a frame has none)."""
    from fractions import Fraction

    kept = set(items)
    sums = {u: Fraction(0) for u in units}
    exact = "exact" in means.columns
    for r in means.select("item", "value", "mean", *(["exact"] if exact else [])).iter_rows(named=True):
        if str(r["item"]) in kept and r["value"] in sums and r["mean"] is not None:
            sums[r["value"]] += r["exact"] if exact and r["exact"] is not None else Fraction(r["mean"])
    return sums


def oriented_pairs(n_values: int, reference: int) -> list[tuple[int, int]]:
    """Every pair of values as ``(a, b)``, tested and shown as ``a − b``: the reference first, then the others
    in their order; each pair is the later value minus the earlier one, so a pair with the reference is
    value − reference (as the item gaps are) and ``alternative`` means the same in every table.

    >>> oriented_pairs(3, 0)
    [(1, 0), (2, 0), (2, 1)]
    >>> oriented_pairs(3, 1)   # the reference is 1: (0, 1) is value 0 − the reference
    [(0, 1), (2, 1), (2, 0)]
    """
    order = [reference, *(j for j in range(n_values) if j != reference)]
    return [(order[j], order[i]) for i, j in itertools.combinations(range(n_values), 2)]


@dataclass(frozen=True)
class _Compared:
    """The values a many-values analysis compares, as :func:`check_many` found them: the ``metric``, the
    ``units`` (values or groups) in order, each one's ``members``, the ``reference`` the gaps are measured
    against, whether the metric is a ``selection``, and whether its values are 0 or 1 (``binary``)."""

    metric: str
    units: tuple
    members: Mapping
    reference: str
    selection: bool = False
    binary: bool = False


def _result(means: pl.DataFrame, compared: _Compared, tests, *, by=None, sds=None,
            headline: bool = False) -> ManyResult:
    """The comparison of every ``compared`` value (each group's with ``by``), tested as the ``tests`` ask; the
    ``headline`` omnibus test is read at their level (a Monte Carlo p tightened toward alpha), a group's is not."""
    metric, units, members, reference = compared.metric, compared.units, compared.members, compared.reference
    selection, binary = compared.selection, compared.binary
    alternative, correction, n_resamples, seed = tests.alternative, tests.correction, tests.n_resamples, tests.seed
    alpha = tests.alpha if headline else None
    if not means.height or means["value"].n_unique() < len(units):  # no item is measured under every value
        raise ValidationError([Problem(
            "error", "unmatched_item",
            f"no item has a metric value under every one of the {len(units)} values, so there is nothing to "
            f"compare; check the value column for stray values (or leave them out with {opt('where')})")])
    item_order = means["item"].unique(maintain_order=True).to_list()
    wide = means.pivot(on="value", index="item", values="mean").select("item", *units)
    wide = wide.with_columns(pl.col("item").cast(pl.String))
    matrix = wide.select(units).to_numpy().astype(float)
    n = matrix.shape[0]
    check_size(matrix, wide["item"].to_list(), metric)
    key = tuple((by or {}).values())
    # per value, the exact sum over items of its item means: means and gaps without float residue
    sums = _exact_sums(means, wide["item"].to_list(), units)
    values = tuple(ValueMean(u, float(sums[u] / n), n, members[u] if members[u] != (u,) else (),
                             *(sds or {}).get((key, u), (None, None)),
                             interval=mean_interval(matrix[:, j], center=float(sums[u] / n)))
                   for j, u in enumerate(units))
    r = units.index(reference)
    left_out = pairwise_left_out(len(units))
    # every pair, unless they are more than the limit of pairs (then only the gaps against the reference,
    # corrected across those: the analysis says the pairwise table was left out, see pairwise_left_out)
    pairs = oriented_pairs(len(units), r) if not left_out else [(j, r) for j in range(len(units)) if j != r]
    # each comparison is tested once, in its own orientation and the direction asked; its corrected p is
    # computed from that p (the gap against the reference is the pair's row, not a pair turned round)
    tested = [sign_flip_test(matrix[:, a] - matrix[:, b], alternative=alternative) for a, b in pairs]
    adjusted = adjust([t.pvalue for t in tested], correction)
    gap = {(a, b): float((sums[units[a]] - sums[units[b]]) / n) for a, b in pairs}
    # the test's statistic is the same mean gap, computed exactly
    rows = tuple(PairGap(units[a], units[b], gap[(a, b)], replace(t, statistic=gap[(a, b)]), p,
                         interval=mean_interval(matrix[:, a] - matrix[:, b], center=gap[(a, b)], of="item gaps"))
                 for (a, b), t, p in zip(pairs, tested, adjusted))
    against = {g.a: g for g in rows if g.b == reference}
    gaps = [against[u] for u in units if u != reference]
    pairwise = () if left_out else rows
    omnibus = omnibus_test(matrix, n_resamples=n_resamples, seed=seed, alpha=alpha)
    # the statistic shown, T = n * sum_j (mean_j - grand mean)**2, from the exact sums (0 for equal means)
    grand = sum(sums.values()) / (n * len(units))
    omnibus = replace(omnibus, statistic=float(n * sum((sums[u] / n - grand) ** 2 for u in units)))
    ratios = None
    if selection:   # pooled over the items compared (those measured under every value)
        kept = means.filter(pl.col("item").cast(pl.String).is_in(wide["item"].implode()))
        ratios = impact_ratios({u: pooled_rates(kept)[u] for u in units}, {v.value: v.mean for v in values})
    order = {str(i): k for k, i in enumerate(item_order)}
    items = means.select(pl.col("item").cast(pl.String), "value", "mean", "runs",
                         *(["sd"] if "sd" in means.columns else [])).sort(
        pl.col("item").replace_strict(order, return_dtype=pl.Int64), pl.col("value").replace_strict(
            {u: k for k, u in enumerate(units)}, return_dtype=pl.Int64))
    return ManyResult(metric=metric, values=values, reference=reference, gaps=tuple(gaps), pairwise=pairwise,
                      omnibus=omnibus, impact_ratios=ratios, items=items, correction=correction,
                      by=dict(by or {}), published=_published(matrix, means, binary),
                      pairs_left_out=len(units) * (len(units) - 1) // 2 if left_out else 0)


def analyze_many(log, question, probe=None, tests=None) -> ManyAnalysis:
    """Analyze a probe with more than two values (or groups of values).

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
        The log, shaped (:func:`probestats.analyze_many` reads it with its read options).
    question : Question
        What is compared (:class:`probestats.analyses.question.Question`): the ``metric``; ``group``, several
        values standing for one group (``{"female": ["Emily", "Lakisha"], ...}`` or
        ``["female=Emily,Lakisha", ...]``), each item's group mean the mean of its per-name means, values in no
        group left out (with a warning); the ``reference`` the gaps are measured against (default: the first
        value or group); ``by``, columns the analysis is repeated per group of, the omnibus p corrected across
        them; ``selection``, the metric says whether a candidate was selected (a design fact the user states):
        the values get selection rates and impact ratios, with the four-fifths reference (a 0/1 metric alone
        is not a selection: an agree share, a correct answer, so nothing is assumed from the values).
    probe : Probe, optional
        Its ``fold_case``: values differing only in case or spaces are one.
    tests : Tests, optional
        ``alternative`` for the pairwise sign-flip tests (the omnibus test has no direction), each of ``a − b``
        as the pair is oriented (:func:`oriented_pairs`; value − reference for the gaps): "less" tests ``a``
        below ``b``; ``alpha``; ``correction`` across pairs of values, and across ``by`` groups for the omnibus
        p; ``n_resamples`` and ``seed``, the Monte Carlo settings of the omnibus test when it cannot be exact.

    Examples
    --------
    >>> from probestats.io.read import read_log   # the job reads and shapes the log; the engine takes it as read
    >>> rows = read_log([{"item": i, "variant": v, "x": float(v == "A" and i < 5)}
    ...                  for i in range(6) for v in ("A", "B", "C")])
    >>> from probestats.analyses.question import Question
    >>> result = analyze_many(rows, Question("x"))
    >>> [(v.value, round(v.mean, 4)) for v in result.main.values]
    [('A', 0.8333), ('B', 0.0), ('C', 0.0)]
    >>> result.main.impact_ratios is None    # a 0/1 metric is not said to be a selection
    True
    >>> [r.ratio for r in analyze_many(rows, Question("x", selection=True)).main.impact_ratios]
    [1.0, 0.0, 0.0]
    >>> result.main.omnibus.pvalue == 1 / 81   # items 1-4 each put their 1 under A, as item 0 does: 1 of 3**4
    True
    """
    refuse_noise(question.noise)
    tests = as_tests(tests)
    alpha, correction, n_resamples, seed = tests.alpha, tests.correction, tests.n_resamples, tests.seed
    metric, reference, selection = question.metric, question.reference, question.selection
    by = list(column_names("by", question.by))

    check_by(by, metric)
    frame, units, members, problems = check_many(log, replace(question, by=by), probe)
    if reference is None:
        reference = units[0]
    elif reference not in units:
        raise OptionError(f"{opt('reference', reference)}: no such value; values: {', '.join(repr(u) for u in units)}")
    binary = is_selection(frame[metric])   # 0/1 values: Cochran's Q beside the omnibus, a selection or not
    if selection and not binary:
        raise OptionError(f"{either(opt('selection', True), '--set selection=yes')}: a selection metric is 0 or 1 "
                          f"per run (1: selected), and '{metric}' holds other values; drop it, or derive a 0/1 column "
                          f"with {opt('derive')}")
    compared = _Compared(metric, units, members, reference, selection=selection, binary=binary)
    # a setting that varies within item x value cells (several models answered every item) is a block, as in a
    # pair: each item's value means average over its blocks (matched within each), and the blocks' own results
    # stand beside the pooled one when no --by is given
    blocks = within_cell_blocks(frame, units, by)
    pooled_means = (unit_means(frame, metric, exact=True) if not blocks
                    else block_averaged_means(unit_means(frame, metric, by=blocks, exact=True), blocks))
    main = _result(with_cell_sds(pooled_means, frame, metric), compared, tests, sds=run_sds(frame, metric),
                   headline=True)
    results = []
    group_by = by or list(blocks)
    if group_by:
        means = with_cell_sds(unit_means(frame, metric, by=group_by, exact=True), frame, metric, group_by)
        group_sds = run_sds(frame, metric, group_by)
        for key in means.select(group_by).unique(maintain_order=True).iter_rows(named=True):
            sub = means.filter(_key_mask(key)).drop(group_by)
            results.append(_result(sub, compared, tests,
                                   by={k: v if isinstance(v, (str, int, float, bool)) or v is None else str(v)
                                       for k, v in key.items()}, sds=group_sds))
        adjusted = adjust([g.omnibus.pvalue for g in results], correction)
        results = [replace(g, omnibus_p_adjusted=p) for g, p in zip(results, adjusted)]

    if main.pairs_left_out:
        problems = (*problems, pairs_problem(len(units), reference))
    uneven = len(units) == 2 and len(members[units[0]]) != len(members[units[1]])
    if uneven:   # one value against a group of several: the sign-flip null (a gap symmetric about zero) fails
        main = _permuted(main, frame, metric, units, members, reference, tests)
        results = [_permuted(g, frame.filter(_key_mask(g.by)), metric, units, members, reference, tests)
                   for g in results]
        if results:
            adjusted = adjust([g.omnibus.pvalue for g in results], correction)
            results = [replace(g, omnibus_p_adjusted=p) for g, p in zip(results, adjusted)]

    neutral = reference_check(main, tests)
    verdict = decide_many(main.omnibus.pvalue, alpha=alpha, gaps=main.gaps, omnibus=main.omnibus,
                          published=() if uneven else main.published, reference=neutral)
    if uneven:
        big, small = sorted(units, key=lambda u: -len(members[u]))
        verdict = with_caveats(verdict, Caveat(
            "group_side",
            f"'{big}' is a group of {len(members[big])} values against {len(members[small])} for '{small}', each item's "
            "gap one side's mean against the other's: the gap is not symmetric about zero under the null, so the "
            "verdict rests on the exact permutation of the value labels within items, not on the sign-flip test.",
            {"value": big, "members": list(members[big]), "other": small, "other_members": list(members[small])}),
            test=PERMUTATION_TEST)

    one_answer = one_answer_caveats(frame, metric, units, results)   # named before the agreement that counts it
    names = {", ".join("(blank)" if v is None else str(v) for v in g["by"].values())
             for c in one_answer for g in c.figures.get("groups", ())}
    read = tuple(replace(r, agreement=r.agreement.counting_one_answer(names)) if names else r
                 for r in pair_agreements(results, tests))   # their undetected counted apart from those
    disagreement = agreement_caveat(results, tests, read)
    verdict = with_caveats(verdict, *one_answer, *disagreement, *constant_caveats(frame, metric, units, results),
                           agreement=headline_agreement(read),
                           **pooled_fields(results, group_by, blocks, disagreement,
                                           one_answer_clause(one_answer, metric)))
    return ManyAnalysis(main=main, groups=tuple(results), problems=tuple(problems), alpha=alpha,
                        correction=correction, frame=frame, verdict=verdict)


def refuse_noise(noise) -> None:
    """A noise reference compares two values: refused by the analysis of every value.

    >>> refuse_noise(None)
    >>> refuse_noise("noise.csv")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: noise compares two values; give a and b to analyze a pair with its noise log
    """
    if noise is not None:
        raise OptionError(f"{opt('noise')} compares two values; give {opt('a')} and {opt('b')} to analyze a pair with "
                          "its noise log")


def within_cell_blocks(frame: pl.DataFrame, units, by: Sequence[str] = ()) -> tuple[str, ...]:
    """The held-fixed settings (model, judge, temperature, system, file) that vary within some item x value cell
    and not in ``by``: blocks, not runs.

    >>> frame = pl.DataFrame({"item": ["1"] * 4, "_unit": ["a", "a", "b", "b"], "model": ["x", "y", "x", "y"]})
    >>> within_cell_blocks(frame, ["a", "b"])
    ('model',)
    """
    candidates = [c for c in BLOCK_SETTINGS if c in frame.columns and c not in by]
    if not candidates or not frame.height:
        return ()
    varying = frame.group_by("item", "_unit").agg(
        [pl.col(c).cast(pl.String).fill_null("(blank)").n_unique().alias(c) for c in candidates])
    return tuple(c for c in candidates if varying[c].max() > 1)


def block_averaged_means(means: pl.DataFrame, blocks: Sequence[str]) -> pl.DataFrame:
    """Item x value means averaged over the blocks (:func:`unit_means` by ``blocks``, with ``exact``): each block
    that measured the cell counts once, its exact mean kept exact; runs are summed.

    >>> means = pl.DataFrame({"model": ["x", "y"], "item": ["1", "1"], "value": ["a", "a"], "mean": [1.0, 0.0],
    ...                       "runs": [2, 3]}).with_columns(pl.Series("exact", [1, 0], dtype=pl.Object))
    >>> block_averaged_means(means, ["model"]).select("item", "value", "mean", "runs").rows()
    [('1', 'a', 0.5, 5)]
    """
    from fractions import Fraction

    cells: dict[tuple, list] = {}
    runs: dict[tuple, int] = {}
    for row in means.select("item", "value", "exact", "runs").iter_rows():
        key = (row[0], row[1])
        runs[key] = runs.get(key, 0) + int(row[3])
        if row[2] is not None:
            cells.setdefault(key, []).append(Fraction(row[2]))
        else:
            cells.setdefault(key, [])
    exact = [sum(fs, Fraction(0)) / len(fs) if fs else None for fs in cells.values()]
    out = pl.DataFrame([list(k) for k in cells], schema=means.select("item", "value").schema, orient="row")
    return out.with_columns(pl.Series("mean", [None if m is None else float(m) for m in exact], dtype=pl.Float64),
                            pl.Series("runs", list(runs.values()), dtype=pl.Int64),
                            pl.Series("exact", exact, dtype=pl.Object))


def pooled_fields(results, group_by: Sequence[str], blocks: Sequence[str], disagreement, one_answer: str = "") -> dict:
    """What the verdict line says of the groups a many-values result averages over: ``pooled`` (the blocks
    averaged, and that they disagree, with the one that moves the pooled gap most, and ``one_answer``, the
    words naming those of one answer in every run: :func:`one_answer_clause`) and ``blocks``. With ``by``
    groups that agree nothing is said, unless some gave one answer: the pooled figures count their zeros.

    >>> from types import SimpleNamespace as NS
    >>> groups = [NS(by={"model": m}) for m in ("a", "b", "c")]
    >>> pooled_fields(groups, ["model"], (), (), "c gave y = 1 in every run")["pooled"]
    'averaged over 3 models (c gave y = 1 in every run)'
    >>> pooled_fields(groups, ["model"], (), ())
    {}
    """
    if not results or not group_by:
        return {}

    noun = block_noun(list(group_by), len(results))
    also = f" ({one_answer})" if one_answer else ""
    if not disagreement:
        return ({"pooled": f"averaged over {len(results)} {noun}{also}", "blocks": tuple(blocks)}
                if blocks or one_answer else {})
    figures = disagreement[0].figures["values"]
    verb = "that disagree" if any(f.get("opposite") for f in figures) else "whose gaps differ"

    clause = "; ".join(x for x in (drivers_clause(figures), one_answer) if x)   # the block test's own driver
    driven = f" ({clause})" if clause else ""
    return {"pooled": f"averaged over {len(results)} {noun} {verb}{driven}", "blocks": tuple(blocks)}


def _permuted(result: ManyResult, frame: pl.DataFrame, metric: str, units, members, reference: str,
              tests) -> ManyResult:
    """Two values of unequal group sizes: the headline (omnibus) and the pair's test become the exact within-item
    permutation of the value labels (:mod:`probestats.stats.permutation`), each item's names reassigned to the two
    groups as the design assigned them; the gap is each group's mean of its names' means, as before."""
    alternative, n_resamples, seed = tests.alternative, tests.n_resamples, tests.seed
    other = units[1] if reference == units[0] else units[0]
    names = (frame.group_by(["item", "_unit", "variant"], maintain_order=True)
             .agg(pl.col(metric).drop_nulls().mean().alias("m")).drop_nulls("m"))
    sides: dict = {}
    for row in names.iter_rows(named=True):
        side = sides.setdefault(str(row["item"]), ([], []))
        side[0 if row["_unit"] == other else 1].append(float(row["m"]))
    matched = [sides[i] for i in result.items["item"].unique(maintain_order=True).to_list()
               if i in sides and all(sides[i])]
    pair = within_item_permutation_test(matched, alternative=alternative, n_resamples=n_resamples, seed=seed)
    both = pair if alternative == "two-sided" else within_item_permutation_test(
        matched, n_resamples=n_resamples, seed=seed)
    arrangements = math.prod(math.comb(len(a) + len(b), len(a)) for a, b in matched)
    omnibus = replace(result.omnibus, pvalue=both.pvalue, method=both.method, arrangements=arrangements,
                      n_resamples=n_resamples if both.pvalue_se is not None else None,
                      seed=seed if both.pvalue_se is not None else None, pvalue_se=both.pvalue_se,
                      pvalue_bound=both.pvalue_bound)

    def retest(g: PairGap) -> PairGap:
        test = pair if g.a == other else within_item_permutation_test(
            [(b, a) for a, b in matched], alternative=alternative, n_resamples=n_resamples, seed=seed)
        return replace(g, sign_flip=test, p_adjusted=test.pvalue)   # one pair: nothing to correct across

    return replace(result, omnibus=omnibus, gaps=tuple(retest(g) for g in result.gaps),
                   pairwise=tuple(retest(g) for g in result.pairwise))


def refuse_pair_options(probe=None, tests=None, noise_value: str | None = None, *,
                        analysis: str = "more than two values", fix: str | None = None) -> None:
    """Refuse the options of a comparison of two values that an analysis of ``analysis`` has no use for, so
    that no option is ignored in silence (an interval of the average gap, the repeats of one value as the
    noise reference, Hedges' correction of effect sizes, block settings, clusters, settings drawn per call):
    the ``tests``' interval and effect size, the ``probe``'s column roles, ``noise_value``.

    >>> from probestats.vocabulary import Tests
    >>> refuse_pair_options()   # the defaults ask for nothing
    >>> refuse_pair_options(tests=Tests(interval="sign-flip"))
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: interval='sign-flip' is the interval of the average gap of two values; with more than two values each pair has its sign-flip test and no interval: drop it, or compare two values with a and b
    """
    probe, tests = probe or Probe(), tests or Tests()
    interval, hedges = tests.gap_interval, tests.hedges
    settings, attribute_settings = probe.settings, probe.attribute_settings
    cluster, random_settings = probe.cluster, probe.random_settings
    asked = [(opt("interval", interval), "is the interval of the average gap of two values", interval != "t"),
             (opt("noise_value", noise_value), "takes the repeats of one value as the noise of a comparison of two "
              "values", noise_value is not None),
             (either("effect_size='g_z' (or 'g_av')", "--effect-size g_z (or g_av)"), "corrects the effect sizes of a comparison of "
              "two values", bool(hedges)),
             (opt("settings", list(settings) if settings else None), "matches the items of two values within "
              "blocks", bool(settings)),
             (opt("attribute_settings", list(attribute_settings) if attribute_settings else None),
              "accepts a setting differing between two compared values", bool(attribute_settings)),
             (opt("cluster", cluster), "flips whole clusters of items in a comparison of two values", cluster is not None),
             (opt("random_settings", list(random_settings) if random_settings else None), "checks a setting "
              "drawn per call for balance between two compared values", bool(random_settings))]
    for flag, what, given in asked:
        if given:
            shown = ("each pair has its sign-flip test and no interval" if "interval" in flag else
                     "the analysis does not use it")
            raise OptionError(f"{flag} {what}; with {analysis} {shown}: "
                              + (fix or f"drop it, or compare two values with {opt('a')} and {opt('b')}"))
