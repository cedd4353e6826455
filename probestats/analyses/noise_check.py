"""The noise comparison beside a probe: a same-versus-same reference (a noise log compared as the probe is, or
the probe's own runs of one value split in two halves, read over every split, :func:`within_log_noise`), read
as a :class:`~probestats.analyses.verdict.NoiseCheck` (:func:`noise_check_of`, :func:`halves_check`); when a
noise log fails, what it shows that may explain it (:func:`noise_log_causes`).

The log's own halves
--------------------
The runs of one value in a cell (an item, or an item and a block) are repeats of one another: split in two
halves, the gap between the halves is what the draw alone gives. One split drawn at random made the reference a
draw of its own: a renamed item, a reordered log or one run fewer drew another split, and the reference (its
gap, and its sign-flip p, which on a random split falls at or below alpha in about one draw in twenty whatever
the log holds) came and went. The reference is now that gap **over every split**, in closed form.

A cell of ``n`` runs with sample variance ``s²`` (divisor ``n − 1``) is split into ``h = n // 2`` runs and the
other ``n − h``. Over the splits drawn uniformly, the mean of the first half is the mean of a sample drawn
without replacement, of variance ``(s² / h)(1 − h / n)``; the gap between the halves, ``n / (n − h)`` times its
distance from the cell's mean, has mean zero and variance ``s² (1/h + 1/(n − h))`` (the finite-population
correction makes it exact, not an approximation). An item's halves gap averages its blocks' (``B`` of them),
so its variance is the sum of theirs over ``B²``; cells are split independently, so the average gap over ``N``
items has variance the sum of the items' over ``N²``. The reference is the square root: the **root mean square
of the halves' average gap over every split** (:class:`HalvesNoise`). It depends on the runs' values alone:
not on names, row order, files or a seed; one run fewer moves it as one run moves a variance.

A random split cannot show a gap beyond chance (the halves are exchangeable by construction, so its p is
uniform over the splits of any log): the log's own halves are a size to set the probe's gap beside, never a
check that fails. A noise log can fail: its values were run apart, and a drift or a setting may split them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import polars as pl

from probestats.analyses.halves import block_noun
from probestats.analyses.items import item_table
from probestats.analyses.verdict import NoiseCheck
from probestats.checks.schema import Checked, validate  # noqa: F401  (validate: doctests)
from probestats.errors import opt
from probestats.stats.exact import moments

if TYPE_CHECKING:
    from probestats.analyses.pair_tests import PairResult


def one_run_reason(value: str, cell: str = "item") -> str:
    """Why a log gives no within-log check: a cell with one run."""
    return (f"a cell ({cell}) has one run of '{value}', so no run can be set against another drawn alike "
            f"(give each cell two runs or more, or a noise log with {opt('noise')})")


def noise_check_of(kind: str, description: str, result: "PairResult", alpha: float, *, causes):
    """The check a same-versus-same comparison that ran gives: failed when its sign-flip p is at most ``alpha``,
    then with ``causes()`` (what may explain it)."""
    failed = result.sign_flip.pvalue <= alpha
    return NoiseCheck(kind, description, True, failed=failed, causes=tuple(causes()) if failed else (),
                      average_gap=result.average_gap, pvalue=result.sign_flip.pvalue)


@dataclass(frozen=True)
class HalvesNoise:
    """The log's own same-versus-same reference: the runs of ``value`` in each cell split in two halves, read
    over every split (see the module docstring).

    Attributes
    ----------
    value : str
        The value whose runs are split.
    items : polars.DataFrame
        Per item, in the probe's order: ``n_a`` and ``n_b`` (the runs of the first and the second half, over its
        blocks), ``n_blocks`` and ``gap``: the root mean square over every split of the item's halves gap.
    average_gap : float
        The root mean square over every split of the halves' average gap (a size: zero or more).
    """

    value: str
    items: pl.DataFrame
    average_gap: float

    #: a split read over every split has no test of its own (see the module docstring)
    sign_flip = None

    @property
    def a(self) -> str:
        return f"{self.value} (first half)"

    @property
    def b(self) -> str:
        return f"{self.value} (second half)"

    @property
    def n_items(self) -> int:
        return self.items.height

    def runs_per_value(self) -> tuple[int, int]:
        """Typical runs per half (the median over items)."""
        if self.items.height == 0:
            return (0, 0)
        return (int(self.items["n_a"].median()), int(self.items["n_b"].median()))

    def to_dict(self, items: bool = True) -> dict:
        out = {"a": self.a, "b": self.b, "n_items": self.n_items, "average_gap": self.average_gap}
        if items:
            out["items"] = [{"item": str(r["item"]), "gap": r["gap"], "n_a": r["n_a"], "n_b": r["n_b"]}
                            for r in self.items.iter_rows(named=True)]
        return out


def halves_noise(cells: pl.DataFrame, value: str, order: pl.DataFrame) -> HalvesNoise:
    """The halves of ``value`` over every split, from its cells: ``cells`` holds ``item``, ``n`` (the cell's
    runs, two or more) and ``sd`` (their standard deviation, divisor ``n − 1``), one row per cell (an item, or
    an item and a block); ``order`` the items, in the order shown.

    A cell of 4 runs 1, 2, 3, 6 (sd 2.16): every one of its 6 splits into two runs against two, and the mean
    square of their gaps, is the closed form ``s² (1/2 + 1/2)``:

    >>> import itertools, statistics
    >>> runs = [1.0, 2.0, 3.0, 6.0]
    >>> gaps = [sum(runs[i] for i in first) / 2 - sum(runs[i] for i in range(4) if i not in first) / 2
    ...         for first in itertools.combinations(range(4), 2)]
    >>> cell = pl.DataFrame({"item": ["q1"], "n": [4], "sd": [statistics.stdev(runs)]})
    >>> round(halves_noise(cell, "a", cell.select("item")).average_gap ** 2, 12), round(statistics.fmean(g * g for g in gaps), 12)
    (4.666666666667, 4.666666666667)
    """
    n = pl.col("n").cast(pl.Int64)
    h = n // 2
    per = (cells.with_columns((pl.col("sd") * pl.col("sd") * (1.0 / h + 1.0 / (n - h))).alias("__v"),
                              h.alias("__h"), (n - h).alias("__k"))
           .group_by("item", maintain_order=True)
           .agg((pl.col("__v").sum() / (pl.len() * pl.len())).alias("__var"), pl.col("__h").sum().alias("n_a"),
                pl.col("__k").sum().alias("n_b"), pl.len().cast(pl.Int64).alias("n_blocks")))
    per = order.select(pl.col("item").cast(pl.String)).join(
        per.with_columns(pl.col("item").cast(pl.String)), on="item", how="inner", maintain_order="left")
    items = per.select("item", pl.col("n_a").cast(pl.Int64), pl.col("n_b").cast(pl.Int64), "n_blocks",
                       pl.col("__var").sqrt().alias("gap"))
    total = math.fsum(per["__var"].to_list())
    return HalvesNoise(value=value, items=items, average_gap=math.sqrt(total) / per.height if per.height else 0.0)


def halves_check(kind: str, description: str, halves: HalvesNoise):
    """The check the log's own halves give: valid, never failed (a random split cannot show a gap beyond chance),
    its gap the root mean square over every split."""
    return NoiseCheck(kind, description, True, average_gap=halves.average_gap)


#: how the log's own halves are described (after "the runs of value 'x' in each item")
OVER_EVERY_SPLIT = ("split in two halves, the halves' gap read over every split (its root mean square, from "
                    "each cell's spread of runs: no draw)")


def noise_log_causes(noise_checked: Checked) -> list[str]:
    """What a failed noise log shows that may explain it: a setting that varies, rows in metric
    order, runs of one value from another time."""
    causes = []
    codes = {p.code: p for p in noise_checked.problems}
    frame = noise_checked.frame
    a, b = noise_checked.a, noise_checked.b
    if "time" in frame.columns and frame.height:
        spans = _time_spans(frame, a, b)
        if spans is not None:
            (lo_a, hi_a), (lo_b, hi_b) = spans
            if hi_a < lo_b or hi_b < lo_a:
                first, second = (a, b) if hi_a < lo_b else (b, a)
                causes.append(f"a time drift: every run of '{first}' ran before every run of '{second}' "
                              f"({lo_a} to {hi_a} against {lo_b} to {hi_b})")
    if "not_alternated" in codes and not causes:
        causes.append("a time drift: in every item all runs of one value came before the other's")
    for setting in ("model", "temperature", "system"):
        if setting in frame.columns:
            va = set(frame.filter(pl.col("variant") == a)[setting].cast(pl.String).to_list())
            vb = set(frame.filter(pl.col("variant") == b)[setting].cast(pl.String).to_list())
            if va != vb:
                causes.append(f"a setting that varies: {setting} differs between the two values of the noise log")
    if "mixed_setting" in codes:
        causes.append(f"a setting that varies: {codes['mixed_setting'].message}")
    if "sorted_metric" in codes:
        causes.append("rows in metric order: " + codes["sorted_metric"].message)
    if not causes:
        causes.append("nothing in the log shows which; something besides the draw changed between the two values "
                      "(a setting not logged, the time of the runs, the order in which they were run)")
    # a placebo given as noise: its moving is a finding about the system, not a check that failed
    causes.append(f"or '{b}' is an edit rather than a repeat of '{a}': a meaningless edit (a typo, a blank line) "
                  "that moves the metric is a control, and its moving is a finding (the system reacts to any edit), "
                  f"not noise: give its runs with the log and name it with {opt('control', b)}")
    return causes


def _time_spans(frame: pl.DataFrame, a: str, b: str):
    t = frame["time"]
    if t.dtype == pl.String:
        t = t.str.to_datetime(strict=False, time_zone="UTC")
    if not (t.dtype.is_temporal() or t.dtype.is_numeric()) or t.null_count() == t.len():
        return None
    f = frame.with_columns(t.alias("__t"))
    out = []
    for v in (a, b):
        side = f.filter(pl.col("variant") == v)["__t"].drop_nulls()
        if not side.len():
            return None
        out.append((side.min(), side.max()))
    return out


def within_log_noise(checked: Checked, items: pl.DataFrame | None = None, *, blocks: Sequence[str] = (),
                     value: str | None = None, counts: pl.DataFrame | None = None,
                     places: int | None = None) -> tuple[HalvesNoise | None, str | None, str | None]:
    """The probe's own same-versus-same reference: the runs of ``value`` (default: value ``a``) in each cell
    (item, and ``blocks`` values) split in two halves, read over every split (:func:`halves_noise`).

    With ``items`` (the probe's item table), every one of its items must have two runs or more of
    ``value`` in each cell; without, the items that do are used, in the order of their first run.
    ``counts`` (the streaming pass's counts of each value in each cell, ``Streamed.halves``, in
    whole units of ``10**-places``) stands for the runs of ``checked.frame``, without blocks.

    Returns ``(halves, source label, None)``, or ``(None, None, reason)`` when no cell can be split
    (one run per cell: then the verdict rests on the exact test alone).

    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": s + (v == "b")}
    ...         for i in (1, 2) for v in "ab" for s in (4, 3, 2, 1)]
    >>> halves, source, _ = within_log_noise(validate(rows, metric="steps"))
    >>> print(source)  # doctest: +NORMALIZE_WHITESPACE
    within-log: the runs of value 'a' in each item split in two halves, the halves' gap read over every
    split (its root mean square, from each cell's spread of runs: no draw)
    >>> halves.items["n_a"].to_list(), round(halves.average_gap, 4)   # sd 1.291 per item: sqrt(2 * 1.667 * 1) / 2
    ([2, 2], 0.9129)
    """
    metric = checked.metric
    value = checked.a if value is None else value
    cell = "item" + (f" and {block_noun(blocks, 1)}" if blocks else "")
    if metric is None:
        return None, None, "no metric"
    if counts is None:
        runs = checked.frame.filter((pl.col("variant") == value) & pl.col(metric).is_not_null())
        runs_per = runs.group_by("item", *blocks, maintain_order=True).len()
    else:   # the counts pool a cell's --by groups, as the runs of an item do
        runs = (counts.filter(pl.col("variant") == value).group_by("item", "__units", maintain_order=True)
                .agg(pl.col("__count").sum()))
        runs_per = runs.group_by("item", maintain_order=True).agg(pl.col("__count").sum().alias("len"))
    if items is not None:
        runs = runs.filter(pl.col("item").is_in(items["item"].implode()))
        runs_per = runs_per.filter(pl.col("item").is_in(items["item"].implode()))
        few = runs_per.height == 0 or runs_per["len"].min() < 2 or runs_per["item"].n_unique() < items.height
    else:
        keep = runs_per.group_by("item", maintain_order=True).agg((pl.col("len").min() >= 2).alias("ok")).filter("ok")
        runs = runs.filter(pl.col("item").is_in(keep["item"].implode()))
        few = keep.height == 0
    if few:
        return None, None, one_run_reason(value, cell)
    if counts is not None:
        cells = _counted_cells(runs, places)
    else:   # each cell's spread, by the exact rule the item table follows (the same bits as a cell table's)
        cells = item_table(runs, metric, value, value, by=list(blocks)).select(
            "item", pl.col("n_a").alias("n"), pl.col("sd_a").alias("sd"))
    # the items in the probe's order, or in the order of their first run of the value
    order = items.select("item") if items is not None else keep.select("item")
    halves = halves_noise(cells, value, order)
    if items is not None and halves.n_items != items.height:
        return None, None, f"some item has no run of '{value}' in both halves"
    what = "runs" if value == checked.a or checked.a is None else "repeats"
    return halves, f"within-log: the {what} of value '{value}' in each {cell} {OVER_EVERY_SPLIT}", None


def _counted_cells(counts: pl.DataFrame, places: int) -> pl.DataFrame:
    """Each item's runs and their standard deviation from its counts of values (``item``, ``__units``,
    ``__count``), by the exact rule the item table follows."""
    sums = counts.with_columns(pl.col("__units").cast(pl.Int128), pl.col("__count").cast(pl.Int128)).group_by(
        "item", maintain_order=True).agg(pl.col("__count").sum().alias("n"),
                                         (pl.col("__units") * pl.col("__count")).sum().alias("s"),
                                         (pl.col("__units") * pl.col("__units") * pl.col("__count")).sum().alias("q"))
    _, sd = moments(sums["n"], sums["s"], sums["q"], places)
    return pl.DataFrame([sums["item"].cast(pl.String), sums["n"].cast(pl.Int64), sd.alias("sd")])
