"""Evaluator probes: a judge scored the same texts with and without a change.

The attribute is the change (two content-free sentences of padding, a byline); the
matched item is one text scored both ways; the metric is the level the judge gave on
each criterion. ``--by criterion`` gives one comparison per criterion, and ``--scale
LOW:HIGH`` declares the judge's scale so that the cells where a change could not
show are named:

* ``ceiling``: the baseline (the value named with ``baseline=``, else the ``b`` value, the
  one the change is measured from) is at the top of the scale in every run, so an upward
  change has nowhere to go and a delta of zero there shows nothing;
* ``floor``: the same at the bottom.

Unnamed, value B is called what it is ("'plain' (B)"), never "the baseline": only the user
knows which arm is the unchanged one.

A judge whose repeats are identical (temperature 0, a fixed seed) is ``deterministic``:
repeating a run adds nothing, and the sample size is the number of items.

Examples
--------
>>> rows = [{"item": s, "variant": v, "criterion": "directness", "level": lvl}
...         for s, v, lvl in [("s01", "padded", 4), ("s01", "plain", 4), ("s02", "padded", 3), ("s02", "plain", 2)]]
>>> from probestats import analyze_judge
>>> result = analyze_judge(rows, metric="level", a="padded", b="plain", scale="1:4")
>>> [(p.code, p.message.split(":")[0]) for p in result.problems if p.code in ("ceiling", "floor")]
[('ceiling', 'item s01, criterion directness')]
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

import polars as pl

from probestats.analyses.paired import analyze_pair
from probestats.analyses.question import Run
from probestats.errors import OptionError, count_of, opt
from probestats.errors import Problem
from probestats.io.columns import ROW
from probestats.io.log import format_rows
from probestats.vocabulary import EFFECT_SIZES, N_RESAMPLES, SEED

__all__ = ["parse_scale", "scale_problems", "scale_check", "ScaleCheck", "with_scale", "judge_analysis"]


@dataclass(frozen=True)
class ScaleCheck:
    """A judge's declared scale and the item cells whose baseline sits at one of its ends.

    Attributes
    ----------
    low, high : float
        The declared scale.
    baseline : str
        The value whose mean is checked: the named baseline, else ``b`` (the one the change is measured from).
    cells : tuple of dict
        One per flagged cell: ``by`` (the ``--by`` group, e.g. the criterion), ``item``,
        ``baseline`` (its mean), ``gap`` (a − b) and ``end`` (``"ceiling"`` or ``"floor"``).
    n_cells : int
        Item cells checked (over every group).
    out_of_scale : int
        Runs whose metric lies outside the scale.
    named : bool
        The baseline was named (``baseline=``); otherwise it is value B, so called in the words.
    """

    low: float
    high: float
    baseline: str
    cells: tuple[dict, ...]
    n_cells: int
    out_of_scale: int
    named: bool = False

    @property
    def label(self) -> str:
        """How a sentence names the checked value: "the baseline 'x'", or "'x' (B)" when none was named."""
        return f"the baseline '{self.baseline}'" if self.named else f"'{self.baseline}' (B)"

    def to_dict(self) -> dict:
        return {"low": self.low, "high": self.high, "baseline": self.baseline, "baseline_named": self.named,
                "cells": [dict(c, by=dict(c["by"])) for c in self.cells], "n_cells": self.n_cells,
                "out_of_scale": self.out_of_scale}


def _baseline_side(analysis) -> tuple[str, str, bool]:
    """The column of the item table that holds the baseline's mean, the baseline, and whether it was named."""
    main = analysis.main
    named = getattr(analysis, "baseline", None)
    if named is not None and named == main.a:
        return "mean_a", main.a, True
    return "mean_b", main.b, named is not None


def _change(analysis, gap: float) -> float:
    """The change from the baseline to the other value, from an item's gap (a − b)."""
    return -gap if _baseline_side(analysis)[0] == "mean_a" else gap


def _end_cells(analysis, low: float, high: float):
    """(result, item row, code) for every item cell whose baseline mean is at an end of the scale."""
    column = _baseline_side(analysis)[0]
    for result in analysis.groups or (analysis.main,):
        for r in result.items.iter_rows(named=True):
            base = r[column]
            if base is None:
                continue
            if base >= high:
                yield result, r, "ceiling"
            elif base <= low:
                yield result, r, "floor"


def scale_check(analysis, scale) -> ScaleCheck:
    """The cells of a paired analysis whose baseline sits at an end of the declared scale.

    >>> from probestats.analyses.paired import analyze_pair
    >>> from probestats.analyses.question import Question
    >>> rows = [{"item": s, "variant": v, "level": lvl}
    ...         for s, v, lvl in [("s1", "pad", 4), ("s1", "plain", 4), ("s2", "pad", 3), ("s2", "plain", 2)]]
    >>> check = scale_check(analyze_pair(rows, Question("level", a="pad", b="plain")), "1:4")
    >>> [(c["item"], c["end"], c["baseline"]) for c in check.cells], check.n_cells
    ([('s1', 'ceiling', 4.0)], 2)
    """
    low, high = parse_scale(scale)
    metric = analysis.main.metric
    frame = analysis.checked.frame
    column, baseline, named = _baseline_side(analysis)
    cells = tuple({"by": dict(result.by), "item": str(r["item"]), "baseline": float(r[column]),
                   "gap": float(r["gap"]), "end": code} for result, r, code in _end_cells(analysis, low, high))
    n_cells = sum(result.items.height for result in analysis.groups or (analysis.main,))
    outside = frame.filter((pl.col(metric) < low) | (pl.col(metric) > high)).height
    return ScaleCheck(low=low, high=high, baseline=baseline, cells=cells, n_cells=n_cells,
                      out_of_scale=outside, named=named)


def parse_scale(scale) -> tuple[float, float]:
    """Read ``"LOW:HIGH"`` (or a pair of numbers) into ``(low, high)``.

    Examples
    --------
    >>> parse_scale("1:4"), parse_scale((-2, 2))
    ((1.0, 4.0), (-2.0, 2.0))
    >>> parse_scale("4:1")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: scale='4:1': expected LOW:HIGH with LOW below HIGH, for example scale='1:4'
    """
    text = (scale if isinstance(scale, str) else ":".join(str(x) for x in scale) if isinstance(scale, (list, tuple))
            else str(scale))
    try:
        low, high = (float(x) for x in str(text).split(":"))
    except ValueError:
        raise OptionError(f"{opt('scale', scale)}: expected LOW:HIGH, for example {opt('scale', '1:4')}") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise OptionError(f"{opt('scale', scale)}: expected LOW:HIGH with LOW below HIGH, for example {opt('scale', '1:4')}")
    return low, high


def _where(by: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in by.items())


def scale_problems(analysis, scale) -> list[Problem]:
    """``ceiling``/``floor`` problems for the cells of a paired analysis whose baseline sits at an end of the scale.

    The cells are the items of each ``--by`` group (each criterion), or of the whole
    log without ``--by``. A metric value outside the declared scale is reported as
    ``out_of_scale``.
    """
    low, high = parse_scale(scale)
    checked = analysis.checked
    metric = analysis.main.metric
    column, b, named = _baseline_side(analysis)
    called = f"the baseline '{b}'" if named else f"'{b}' (B)"
    frame = checked.frame
    log = checked.log
    problems: list[Problem] = []
    for result, r, code in _end_cells(analysis, low, high):
        base = r[column]
        end, way = (("top", "an upward change cannot show") if code == "ceiling"
                    else ("bottom", "a downward change cannot show"))
        mask = (pl.col("item") == r["item"]) & (pl.col("variant") == b)
        for k, v in result.by.items():
            mask &= pl.col(k).cast(pl.String) == str(v) if v is not None else pl.col(k).is_null()
        rows = tuple(log.rows(frame.filter(mask)[ROW].head(50).to_list()))
        label = f"item {r['item']}" + (f", {_where(result.by)}" if result.by else "")
        problems.append(Problem(
            "warning", code,
            f"{label}: {called} is at the {end} of the scale ({base:g} on {low:g}:{high:g}), "
            f"so {way}: {_end_reading(code, _change(analysis, r['gap']))} (add items whose "
            f"{'baseline' if named else 'B value'} is inside the scale"
            + ("" if named else f"; if the unchanged arm is the other value, say so with {opt('baseline', 'VALUE')}")
            + ")",
            rows, log.columns.get(metric, metric)))
    outside = frame.filter((pl.col(metric) < low) | (pl.col(metric) > high))
    if outside.height:
        rows = tuple(log.rows(outside[ROW].head(50).to_list()))

        problems.append(Problem(
            "warning", "out_of_scale",
            f"{count_of(outside.height, 'run')} {'has' if outside.height == 1 else 'have'} a {metric} outside the "
            f"declared scale {low:g}:{high:g} "
            f"({format_rows(log, rows)}); check {opt('scale')} or the judge's output",
            rows, log.columns.get(metric, metric)))
    return problems


def _judge_repeats(analysis, by: Sequence[str]) -> list[Problem]:
    """``deterministic`` (or ``single_run``) worked out per cell, criterion included."""
    frame = analysis.checked.frame
    metric = analysis.main.metric
    a, b = analysis.main.a, analysis.main.b
    keys = [*by, "item", "variant"]
    cells = (frame.filter(pl.col("variant").is_in([a, b])).group_by(keys)
             .agg(pl.col(metric).n_unique().alias("k"), pl.len().alias("n")))
    n_items = analysis.main.n_items
    runs = int(cells["n"].sum()) if cells.height else 0
    if cells.height and (cells["n"] == 1).all():
        return [Problem("warning", "single_run",
                        f"each item was scored once per value: whether the judge repeats itself is unknown, and the "
                        f"sample size is the number of items ({n_items}); repeat a few runs to find out")]
    repeated = cells.filter(pl.col("n") > 1)
    if repeated.height and (repeated["k"] == 1).all():
        return [Problem("warning", "deterministic",
                        f"every run of each item, value{' and ' + ', '.join(by) if by else ''} gave the same {metric}: "
                        f"the judge is deterministic, repeats add nothing, so the sample size is the number of items "
                        f"({n_items}), not the number of runs ({runs})")]
    return []


def _end_reading(end: str, gap: float) -> str:
    """What a delta at a baseline on an end of the scale (``end``: ``"floor"`` or ``"ceiling"``) can and cannot
    show.

    >>> _end_reading("floor", 1.0)
    'its delta of +1 shows an upward change, the only way it can move; a downward change here would be unseen'
    >>> _end_reading("ceiling", 0.0)
    'its delta of +0 does not show that nothing changed: an upward change here would be unseen'
    """
    seen, unseen = ("downward", "upward") if end == "ceiling" else ("upward", "downward")
    if gap == 0:
        return f"its delta of {gap:+g} does not show that nothing changed: an {unseen} change here would be unseen"
    return (f"its delta of {gap:+g} shows a{'n' if seen == 'upward' else ''} {seen} change, the only way it can "
            f"move; a{'n' if unseen == 'upward' else ''} {unseen} change here would be unseen")


def with_scale(analysis, scale=None, by: Sequence[str] = ()):
    """The analysis with the judge's problems added: ceiling/floor cells and how its repeats behave.

    Validation's own ``deterministic`` check looks at item × value cells; a judge log
    splits them by criterion, so the check is redone per cell here (and a
    ``duplicate_run`` warning that the criterion explains is dropped).
    """
    by = list(by) or [k for k in (analysis.groups[0].by if analysis.groups else {})]
    kept = [p for p in analysis.problems if p.code != "deterministic"]
    if by and any(p.code == "duplicate_run" for p in kept):
        frame = analysis.checked.frame
        if "seed" in frame.columns:
            dup = frame.filter(pl.col("seed").is_not_null() & pl.len().over([*by, "item", "variant", "seed"]).gt(1))
            if dup.height == 0:
                kept = [p for p in kept if p.code != "duplicate_run"]
    added = _judge_repeats(analysis, by)
    check = None
    if scale is not None:
        added += scale_problems(analysis, scale)
        check = scale_check(analysis, scale)
    return replace(analysis, problems=tuple(kept) + tuple(added), scale=check)


def judge_analysis(log, question, probe, tests, *, mdg: bool = True, within_noise: bool = True):
    """:func:`probestats.analyze_judge` on the ``log`` as the job read and shaped it, with what is compared
    (``question``: the metric, ``a`` and ``b``, the ``scale``, ``by``, the ``baseline``, the noise reference), the
    ``probe``'s case folding and
    held-fixed settings, and the ``tests``' direction, level, correction and interval.

    The judge's analysis resamples with the default draws and shows d_z and d_av uncorrected, as it always
    has (its effect sizes are not those of a table of several metrics).
    """
    from dataclasses import replace as changed

    present = set(log.lazy.collect_schema().names())
    by = [c for c in question.by if c in present]
    result = analyze_pair(log, changed(question, by=by, selection=False, baseline=None, scale=None),
                          changed(probe, cluster=None, random_settings=()),
                          changed(tests, n_resamples=N_RESAMPLES, seed=SEED, effect_size=EFFECT_SIZES[0]),
                          Run(mdg=mdg, within_noise=within_noise))
    if not hasattr(result, "main") or not hasattr(result.main, "b"):
        raise OptionError(f"an evaluator probe compares two values; give {opt('a')} (the changed text) and "
                          f"{opt('b')} (the baseline)")
    if question.baseline is not None:
        result = replace(result, baseline=question.baseline)
    return with_scale(result, question.scale, by)
