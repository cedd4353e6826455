"""Welch's t on the runs, per item (``--per-item``) and per ``--by`` group, corrected and stated.

Published audits often test each item × value cell on its runs: within one item, the runs under
value A against the runs under value B, Welch's t (``scipy.stats.ttest_ind(equal_var=False)``).
Within an item the runs are the replicate draws, so the test asks whether *this item* answers
differently; it says nothing about items in general (that is the item-level tests' question).
Across a group the same call pools every run of the group's items, which overstates the
evidence when items differ (see :data:`probestats.analyses.paired.ROW_LEVEL_NOTE`). The
p-values are corrected across the items (or groups) they are read together with.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import polars as pl

from probestats.analyses.items import items_of
from probestats.errors import OptionError
from probestats.stats.multitest import adjust
from probestats.stats.published import PublishedTest, welch_t
from probestats.stats.runs import run_intervals

__all__ = ["RowTest", "RowTests", "per_item_welch", "per_group_welch", "with_row_tests"]

PER_ITEM_NOTE = ("Welch's t within each item: its runs under the two values, each run one draw; it asks whether "
                 "that item answers differently, not whether items do in general (the item-level tests' question)")
PER_GROUP_NOTE = ("Welch's t on every run of the group's items, each run counted as one observation; runs of one "
                  "item share the item, so this overstates the evidence when items differ; the item-level tests "
                  "stay the headline")


@dataclass(frozen=True)
class RowTest:
    """Welch's t of one item or group, with its corrected p.

    Attributes
    ----------
    key : dict
        ``{"item": ...}`` or the group's ``--by`` values.
    test : PublishedTest
    p_adjusted : float or None
    mean_a, mean_b : float
        Means of the runs compared.
    intervals : tuple of Interval or None
        The Student t interval of each mean on its runs and Welch's interval of their difference
        (:func:`probestats.stats.runs.run_intervals`).
    """

    key: dict
    test: PublishedTest
    p_adjusted: float | None
    mean_a: float
    mean_b: float
    intervals: tuple | None = None

    def to_dict(self) -> dict:
        out = {**{k: str(v) if k == "item" else v for k, v in self.key.items()}, **self.test.to_dict(),
               "p_adjusted": self.p_adjusted, "mean_a": self.mean_a, "mean_b": self.mean_b}
        if self.intervals is not None:
            ia, ib, diff = self.intervals
            out.update({"mean_a_interval": ia.to_dict(), "mean_b_interval": ib.to_dict(),
                        "difference_interval": diff.to_dict()})
        return out


@dataclass(frozen=True)
class RowTests:
    """Welch's t per item or per group, corrected across them.

    Attributes
    ----------
    unit : {"item", "group"}
    tests : tuple of RowTest
    correction : str
    note : str
        What the tests ask and why they are not the headline.
    """

    unit: str
    tests: tuple[RowTest, ...]
    correction: str
    note: str

    def to_dict(self) -> dict:
        return {"unit": self.unit, "correction": self.correction, "n_tests": len(self.tests),
                "method": "scipy.stats.ttest_ind(equal_var=False) on the runs", "note": self.note,
                "tests": [t.to_dict() for t in self.tests]}


def _runs(checked, items: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    frame = checked.frame
    if frame.height == 0 and items.height:
        raise OptionError("Welch's t on runs needs the log's rows; this analysis has only its cell summaries")
    metric = checked.metric
    return (frame.filter(pl.col("item").is_in(items["item"].implode()) & pl.col(metric).is_not_null()
                         & pl.col("variant").is_in([checked.a, checked.b]))
            .select(*by, "item", "variant", pl.col(metric).cast(pl.Float64).alias("__x")))


def _tests(runs: pl.DataFrame, keys: list[str], a: str, b: str, alternative: str, correction: str,
           confidence: float = 0.95):
    cells = (runs.group_by([*keys, "variant"], maintain_order=True).agg(pl.col("__x")))
    side = {}
    order = []
    for row in cells.iter_rows(named=True):
        key = tuple(row[k] for k in keys)
        if key not in side:
            side[key] = {}
            order.append(key)
        side[key][row["variant"]] = row["__x"]
    raw = []
    for key in order:
        xa, xb = side[key].get(a, []), side[key].get(b, [])
        test = welch_t(xa, xb, alternative)
        raw.append((dict(zip(keys, key)), test, sum(xa) / len(xa) if xa else None, sum(xb) / len(xb) if xb else None,
                    run_intervals(xa, xb, confidence)))
    adjusted = adjust([t.pvalue for _, t, _, _, _ in raw], correction)
    return tuple(RowTest(k, t, p, ma, mb, iv) for (k, t, ma, mb, iv), p in zip(raw, adjusted))


def per_item_welch(checked, items: pl.DataFrame, *, alternative: str = "two-sided",
                   correction: str = "holm", confidence: float = 0.95) -> RowTests:
    """Welch's t within every item of the item table, corrected across the items.

    >>> from probestats.checks.schema import validate
    >>> from probestats.analyses.paired import items_of
    >>> rows = [{"item": i, "variant": v, "seed": s, "x": s + (v == "a") * i}
    ...         for i in (0, 3) for v in "ab" for s in (1, 2, 4)]
    >>> checked = validate(rows, metric="x")
    >>> res = per_item_welch(checked, items_of(checked))
    >>> [t.test.pvalue for t in res.tests][0], round(res.tests[1].test.pvalue, 6)   # scipy ttest_ind([4,5,7],[1,2,4])
    (1.0, 0.073926)
    """
    runs = _runs(checked, items, ())
    tests = _tests(runs, ["item"], checked.a, checked.b, alternative, correction, confidence)
    return RowTests("item", tests, correction, PER_ITEM_NOTE)


def per_group_welch(checked, by: Sequence[str], *, alternative: str = "two-sided",
                    correction: str = "holm", confidence: float = 0.95) -> RowTests:
    """Welch's t on the runs of each ``by`` group, corrected across the groups."""
    runs = _runs(checked, items_of(checked, by=by), by)
    tests = _tests(runs, list(by), checked.a, checked.b, alternative, correction, confidence)
    return RowTests("group", tests, correction, PER_GROUP_NOTE)


def with_row_tests(analysis, *, per_item: bool = False, per_group: bool = False):
    """``analysis`` with Welch's t per item (``per_item``) and per ``--by`` group (``per_group``)
    in its ``row_tests``, each corrected across its items or groups by the analysis's correction."""
    from dataclasses import replace

    found = list(analysis.row_tests)
    if per_item:
        found.append(per_item_welch(analysis.checked, analysis.main.items, alternative=analysis.alternative,
                                    correction=analysis.correction, confidence=analysis.main.interval.confidence))
    if per_group and analysis.groups:
        found.append(per_group_welch(analysis.checked, list(analysis.groups[0].by), alternative=analysis.alternative,
                                     correction=analysis.correction, confidence=analysis.main.interval.confidence))
    return replace(analysis, row_tests=tuple(found))
