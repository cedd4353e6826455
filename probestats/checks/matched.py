"""Is the probe matched and held fixed? Items without runs (or values) of a compared value, settings
that differ between the values or vary within the log, seeds that differ or repeat, runs per value
that differ within items, and values run one block after the other."""

from __future__ import annotations

import math
from typing import Iterable

import polars as pl

from probestats.checks.cell_summary import SETTINGS, comparable, one_value, seen_per_item
from probestats.checks.columns import problem_rows
from probestats.errors import Problem, either, opt
from probestats.io.columns import ROW
from probestats.io.log import Log, format_rows
from probestats.stats.permutation import arm_asymmetry, arms_unequal

__all__ = ["unmatched_items", "held_settings", "unmapped_settings", "mixed_setting", "seed_mismatch",
           "duplicate_runs", "unequal_runs", "not_alternated"]

def unmatched_items(df: pl.DataFrame, log: Log, a: str, b: str, by, metric: str | None = None,
               not_numbers: pl.Series | None = None, seen: pl.DataFrame | None = None) -> list[Problem]:
    """The ``unmatched_item`` errors: items (and ``by`` groups) without runs, or without runs with a metric value,
    of a compared value; ``seen`` is :func:`~probestats.checks.cell_summary.seen_per_item` when at hand."""
    problems = []
    keys = ["item", *by]
    if seen is None:
        valued = None
        if metric is not None:  # runs of a value whose metric cells are all blank (or not numbers) leave it out too
            valued = pl.col(metric).is_not_null()
            if not_numbers is not None and not_numbers.len():  # cells that are not numbers have their own error
                valued = valued | pl.col(ROW).is_in(not_numbers.implode())
        seen = seen_per_item(df, keys, a, b, valued)
    lacking = seen.filter(~pl.col("has_a") | ~pl.col("has_b"))
    if metric is not None:
        problems += _unmatched_values(df, log, a, b, keys, metric, seen, lacking)
    for row in lacking.iter_rows(named=True):
        missing = [v for v, has in ((a, row["has_a"]), (b, row["has_b"])) if not has]
        where = " and ".join(f"{k} {row[k]}" for k in keys[1:])
        label = f"item {row['item']}" + (f" ({where})" if where else "")
        mask = pl.col("item") == row["item"]
        for k in keys[1:]:
            mask &= pl.col(k) == row[k] if row[k] is not None else pl.col(k).is_null()
        rows = problem_rows(log, df.filter(mask))
        if len(missing) == 2:
            msg = f"{label} has no '{a}' or '{b}' runs ({format_rows(log, rows)}); add them or drop the item"
        else:
            present = a if missing[0] == b else b
            msg = (f"{label} has no '{missing[0]}' runs ({format_rows(log, rows)} "
                   f"{'are all' if len(rows) > 1 else 'is'} '{present}'); add its '{missing[0]}' runs or drop the item")
        if metric is not None:
            msg += f" (or {opt('complete', True)} to keep only the items measured under every value)"
        problems.append(Problem("error", "unmatched_item", msg, rows, log.columns.get("item")))
    return problems


def _unmatched_values(df: pl.DataFrame, log: Log, a: str, b: str, keys, metric: str,
                      seen: pl.DataFrame, lacking: pl.DataFrame) -> list[Problem]:
    """Items that have runs of a compared value, but none with a metric value: the analysis would drop them.

    Cells that are not numbers count as values here: their own error already points at them.
    """
    if lacking.height:
        seen = seen.join(lacking.select(keys), on=keys, how="anti", nulls_equal=True)
    problems = []
    for row in seen.filter((pl.col("has_a") & ~pl.col("valued_a")) | (pl.col("has_b") & ~pl.col("valued_b"))).iter_rows(named=True):
        where = " and ".join(f"{k} {row[k]}" for k in keys[1:])
        label = f"item {row['item']}" + (f" ({where})" if where else "")
        empty = [v for side, v in (("a", a), ("b", b)) if row[f"has_{side}"] and not row[f"valued_{side}"]]
        mask = pl.col("item") == row["item"]
        for k in keys[1:]:
            mask &= pl.col(k) == row[k] if row[k] is not None else pl.col(k).is_null()
        rows = problem_rows(log, df.filter(mask & pl.col("variant").is_in(empty)))
        shown = " and ".join(f"'{v}'" for v in empty)
        problems.append(Problem(
            "error", "unmatched_item",
            f"{label} has {shown} runs but none with a {metric} value ({format_rows(log, rows)}); "
            f"fill in the values or drop the item (or {opt('complete', True)} to keep only the items measured under "
            "every value)",
            rows, log.columns.get("item")))
    return problems


def held_settings(pair: pl.DataFrame, cells: pl.DataFrame, log: Log, a: str, b: str, by) -> list[Problem]:
    """The ``confounded_setting`` errors (a setting that differs between the compared values) and the
    ``mixed_setting`` warnings (one that varies within the log), for the settings not in ``by``."""
    problems = []
    for setting in SETTINGS:
        if setting not in pair.columns or setting in by:
            continue
        header = log.columns.get(setting, setting).strip()
        differ = cells.filter(pl.col(setting) != pl.col(f"{setting}_b"))
        if differ.height:
            text = pl.col(setting).cast(pl.String).fill_null("(blank)")
            sa = pair.filter(pl.col("variant") == a).select(text.unique().sort())[setting].to_list()
            sb = pair.filter(pl.col("variant") == b).select(text.unique().sort())[setting].to_list()
            shared = set(sa) & set(sb)
            in_items = pl.col("item").is_in(differ["item"].implode())
            odd = pair.filter(in_items & ~text.is_in(list(shared)))
            if odd.height == 0:
                odd = pair.filter(in_items)
            rows = problem_rows(log, odd)
            problems.append(Problem(
                "error", "confounded_setting",
                f"{header} differs between the compared values: '{a}' runs used {_show(sa)}, '{b}' runs used {_show(sb)} "
                f"(items {_item_list(differ['item'].to_list())}; {format_rows(log, rows)}); "
                f"rerun with {header} held fixed, split with {opt('by', setting)}, or, when it is varied on purpose "
                f"(which model decides), declare it with "
                + either(f"Probe(attribute_settings=['{setting}'])", opt("attribute_settings", setting))
                + ((", or, when it was drawn at random for every call, with "
                    + either(f"Probe(random_settings=['{setting}'])", opt("random_settings", setting)))
                   if setting == "temperature" else ""),
                rows, log.columns.get(setting)))
            continue
        block = pair.group_by("item", "variant").agg(pl.col(setting).n_unique().alias("k"))["k"].max()
        if block is not None and block > 1:
            continue   # it varies within cells: a block, matched within and shown per value by the analysis
        if not pair.select(one_value(comparable(pair, setting))).item():  # more than one value in the log
            distinct = pair.select(pl.col(setting).cast(pl.String).fill_null("(blank)").unique(maintain_order=True))
            problems.append(mixed_setting(log, setting, distinct[setting].to_list()))
    return problems


#: words in a header that make it look like a held-fixed setting (the setting each names)
_SETTING_WORDS = {"temperature": "temperature", "temp": "temperature", "model": "model", "system": "system"}


def unmapped_settings(log: Log) -> list[tuple[str, str]]:
    """Columns that look like a known setting but were not read as one: (header, the setting it looks like).

    A text never calls such a setting absent: it names the column and how to map it.

    >>> from probestats.io.read import read_log
    >>> unmapped_settings(read_log([{"item": 1, "variant": "a", "gpt_temperature": 0.7, "y": 1}]))
    [('gpt_temperature', 'temperature')]
    """
    import re

    names = log.lazy.collect_schema().names()
    out = []
    for name in names:
        if name in SETTINGS or name.startswith("_"):
            continue
        words = re.split(r"[^a-z]+", str(name).lower())
        hit = next((_SETTING_WORDS[w] for w in words if w in _SETTING_WORDS), None)
        if hit is not None and hit not in names:
            out.append((log.columns.get(name, name), hit))
    return out


def mixed_setting(log: Log, setting: str, distinct: list[str]) -> Problem:
    """The warning for a held-fixed setting that takes several values (``distinct``, as text, in
    order of appearance), the same for both compared values."""
    header = log.columns.get(setting, setting).strip()
    return Problem(
        "warning", "mixed_setting",
        f"{header} takes {len(distinct)} values in the log ({_show(distinct)}), the same for both compared values; "
        f"split with {opt('by', setting)} if results may differ between them",
        (), log.columns.get(setting))


def _show(values, limit: int = 4) -> str:
    values = list(values)
    shown = ", ".join(f"'{v}'" for v in values[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _item_list(items: Iterable[str], limit: int = 10) -> str:
    items = list(items)
    text = ", ".join(items[:limit])
    return text + (f" and {len(items) - limit} more" if len(items) > limit else "")


def seed_mismatch(cells: pl.DataFrame, log: Log, a: str, b: str) -> list[Problem]:
    """The ``seed_mismatch`` warning: items whose two values were run with different seeds."""
    differ = cells.filter(pl.col("seeds") != pl.col("seeds_b"))
    if not differ.height:
        return []
    return [Problem(
        "warning", "seed_mismatch",
        f"items {_item_list(differ['item'].to_list())} were run with different seeds for '{a}' and '{b}'; "
        "use the same seed list for both values so the runs are reproducible",
        (), log.columns.get("seed"))]


def duplicate_runs(pair: pl.DataFrame, log: Log) -> list[Problem]:
    """The ``duplicate_run`` warning: runs that repeat an item, value and seed (under the same settings: the
    same seed under two models is two runs, one per block)."""
    keyed = pair.filter(pl.col("seed").is_not_null())
    key = pl.struct("item", "variant", "seed", *[s for s in SETTINGS if s in pair.columns])
    if not keyed.select(key.is_duplicated().any()).item():
        return []
    dup = keyed.filter(key.is_duplicated())
    rows = problem_rows(log, dup)
    return [Problem(
        "warning", "duplicate_run",
        f"{dup.height} runs repeat the same item, value and seed ({format_rows(log, rows)}); "
        "remove the copies or give each run its own seed",
        rows, log.columns.get("seed"))]


def unequal_runs(cells: pl.DataFrame, log: Log, a: str, b: str) -> list[Problem]:
    """The ``unequal_runs`` warning: runs per value that differ within items, or in one proportion in every item."""
    # runs that count: those with a metric value when there is a metric (blank ones are left out);
    # an item with no counted runs of a value is unmatched_item already
    n = "counted" if "counted" in cells.columns else "n"
    differ = cells.filter((pl.col(n) != pl.col(f"{n}_b")) & (pl.col(n) > 0) & (pl.col(f"{n}_b") > 0))
    if not differ.height:
        return []
    both = cells.filter((pl.col(n) > 0) & (pl.col(f"{n}_b") > 0))
    na0, nb0 = both.select(n, f"{n}_b").row(0)
    # every item in the same proportion: a design (say 324 runs of one value and 648 of the other), not runs lost
    if both.height > 1 and both.select((pl.col(n) * nb0 == pl.col(f"{n}_b") * na0).all()).item():
        same = both.select((pl.col(n) == na0).all()).item()
        divisor = math.gcd(na0, nb0)
        runs = (f"{na0} '{a}' and {nb0} '{b}' runs" if same else
                f"'{a}' and '{b}' runs in the proportion {na0 // divisor}:{nb0 // divisor}")
        return [Problem("warning", "unequal_runs",
                        f"every item has {runs}: unequal by design, it seems; each item's gap still counts once, "
                        f"and each value's mean is over its own runs, but the gap is then not symmetric about zero "
                        f"under the null, so the sign-flip, sign, Wilcoxon and t tests do not apply: the analysis "
                        f"rests on the exact within-item permutation of the value labels",
                        (), log.columns.get("variant"))]
    shown = "; ".join(f"item {i}: {na} '{a}', {nb} '{b}'" for i, na, nb in
                      differ.select("item", n, f"{n}_b").head(5).iter_rows())
    more = f"; and {differ.height - 5} more items" if differ.height > 5 else ""
    if arms_unequal(both[n].to_list(), both[f"{n}_b"].to_list()):
        rests = ("the analysis rests on the exact within-item permutation of the value labels (the sign-flip, "
                 "sign, Wilcoxon and t tests need gaps symmetric about zero)")
    else:   # a run or a few missing from a balanced design: the gaps stay nearly symmetric
        skew = arm_asymmetry(both[n].to_list(), both[f"{n}_b"].to_list())
        rests = ("the design is balanced but for these runs, so the sign-flip test stays the headline (under the "
                 f"null the summed item gaps' skewness is {skew:.2g} times one run's) and p moves a little with "
                 "each run")
    return [Problem("warning", "unequal_runs",
                    f"runs per value differ within items ({shown}{more}); each item's gap still counts once, and "
                    f"{rests}; rerun the missing runs if you can",
                    (), log.columns.get("variant"))]


def not_alternated(pair: pl.DataFrame, log: Log, a: str, b: str) -> list[Problem]:
    """The ``not_alternated`` warning: in every item, all runs of one value came before the other's."""
    t = pair["time"]
    if t.dtype == pl.String:
        parsed = t.str.to_datetime(strict=False, time_zone="UTC")
        if parsed.null_count() > t.null_count():
            return []
        pair = pair.with_columns(parsed.alias("time"))
    elif not t.dtype.is_temporal() and not t.dtype.is_numeric():
        return []
    spans = (pair.group_by(["item", "variant"], maintain_order=True).agg(pl.col("time").min().alias("lo"), pl.col("time").max().alias("hi"),
                                                     pl.len().alias("n")))
    wide = spans.filter(pl.col("variant") == a).join(spans.filter(pl.col("variant") == b), on="item", suffix="_b")
    wide = wide.filter((pl.col("n") > 1) & (pl.col("n_b") > 1))
    if not wide.height:
        return []
    blocked = wide.filter((pl.col("hi") < pl.col("lo_b")) | (pl.col("hi_b") < pl.col("lo")))
    if blocked.height != wide.height:
        return []
    return [Problem(
        "warning", "not_alternated",
        f"in every item all runs of one value came before the other (items {_item_list(blocked['item'].to_list())}); "
        "drift over time can masquerade as a gap: alternate the values (formal, casual, formal, ...)",
        (), log.columns.get("time"))]
