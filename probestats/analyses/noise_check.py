"""The noise comparison beside a probe: a same-versus-same reference (a noise log, or the probe's own runs
of one value split in two halves drawn at random, :func:`within_log_noise`) compared as the probe is, and
read as a :class:`~probestats.analyses.verdict.NoiseCheck` (:func:`noise_check_of`); when it fails, what
the noise log shows that may explain it (:func:`noise_log_causes`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import polars as pl

from probestats.analyses.items import item_table
from probestats.checks.schema import Checked, validate  # noqa: F401  (validate: doctests)
from probestats.errors import either, opt

if TYPE_CHECKING:
    from probestats.analyses.pair_tests import PairResult


def one_run_reason(value: str, cell: str = "item") -> str:
    """Why a log gives no within-log check: a cell with one run."""
    return (f"a cell ({cell}) has one run of '{value}', so no run can be set against another drawn alike "
            f"(give each cell two runs or more, or a noise log with {opt('noise')})")


def noise_check_of(kind: str, description: str, result: "PairResult", alpha: float, *, causes, seed=None):
    """The check a same-versus-same comparison that ran gives: failed when its sign-flip p is at most ``alpha``,
    then with ``causes()`` (what may explain it)."""
    from probestats.analyses.verdict import NoiseCheck

    failed = result.sign_flip.pvalue <= alpha
    return NoiseCheck(kind, description, True, failed=failed, causes=tuple(causes()) if failed else (),
                      average_gap=result.average_gap, pvalue=result.sign_flip.pvalue, seed=seed)


def chance_cause(alpha: float) -> str:
    """Why a within-log check drawn at random may fail by chance alone, and how to draw another split."""
    return (f"the halves are drawn at random, and a random split gives an exact p at or below {alpha:g} in "
            f"{alpha:.0%} of draws by chance alone (another {either('seed, Tests(seed=...),', opt('seed'))} draws another split)")


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
                     seed: int = 0, value: str | None = None, counts: pl.DataFrame | None = None,
                     places: int | None = None) -> tuple[pl.DataFrame | None, str | None]:
    """The probe's own same-versus-same comparison: the runs of ``value`` (default: value ``a``) in
    each cell (item, and ``blocks`` values) split into two halves drawn at random with ``seed``
    (:func:`probestats.analyses.halves.random_halves`: never by file or seed order), as the item
    table of a log of the two values ``"<value> (first half)"`` and ``"<value> (second half)"``.

    With ``items`` (the probe's item table), every one of its items must have two runs or more of
    ``value`` in each cell; without, the items that do are used, in the order of their first run.
    ``counts`` (the streaming pass's counts of each value in each cell, ``Streamed.halves``, in
    whole units of ``10**-places``) stands for the runs of ``checked.frame``, without blocks: the
    same halves, drawn from the counts (:func:`probestats.analyses.halves.half_sums`).

    Returns ``(item table, source label, None)``, or ``(None, None, reason)`` when no valid split
    exists (one run per cell: then the verdict rests on the exact test alone).

    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": s + (v == "b")}
    ...         for i in (1, 2) for v in "ab" for s in (4, 3, 2, 1)]
    >>> halves, source, _ = within_log_noise(validate(rows, metric="steps"))
    >>> print(source)  # doctest: +NORMALIZE_WHITESPACE
    within-log: the runs of value 'a' in each item split in two halves drawn at random,
    keyed by the cell's name and each run's value (seed 0)
    >>> halves["n_a"].to_list(), halves["n_b"].to_list()
    ([2, 2], [2, 2])
    """
    from probestats.analyses.halves import block_noun, blocked_item_table, random_halves

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
    first, second = f"{value} (first half)", f"{value} (second half)"
    if counts is not None:
        table = _drawn_table(runs, seed, places)
    else:
        halves = random_halves(runs, metric, value, blocks=blocks, seed=seed)
        table = (blocked_item_table(halves, metric, first, second, blocks) if blocks
                 else item_table(halves, metric, first, second))
    # the items in the probe's order, or in the order of their first run of the value
    order = items.select("item") if items is not None else keep.select("item")
    table = order.join(table, on="item", how="inner", maintain_order="left")
    if items is not None and table.height != items.height:
        return None, None, f"some item has no run of '{value}' in both halves"
    what = "runs" if value == checked.a or checked.a is None else "repeats"
    return table, (f"within-log: the {what} of value '{value}' in each {cell} split in two halves drawn at random, "
                   f"keyed by the cell's name and each run's value (seed {seed})"), None


def _drawn_table(counts: pl.DataFrame, seed: int, places: int) -> pl.DataFrame:
    """The item table of the halves drawn from each item's counts of its values (``item``,
    ``__units``, ``__count``), with the numbers :func:`item_table` gives from the runs."""
    from probestats.analyses.halves import half_sums
    from probestats.checks.exact import moments

    drawn = half_sums(counts, ["item"], seed, places=places)
    n, n1 = drawn["counted"].cast(pl.Int64), drawn["n_first"].cast(pl.Int64)
    m1, d1 = moments(n1, drawn["__first_s"], drawn["__first_q"], places)
    m2, d2 = moments(n - n1, drawn["__s"] - drawn["__first_s"], drawn["__q"] - drawn["__first_q"], places)
    return pl.DataFrame([drawn["item"].cast(pl.String).alias("item"), m1.alias("mean_a"), m2.alias("mean_b"),
                         (m1 - m2).alias("gap"), n1.alias("n_a"), (n - n1).alias("n_b"), d1.alias("sd_a"),
                         d2.alias("sd_b")])


