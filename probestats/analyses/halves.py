"""Runs, blocks and the within-log noise: which runs are replicate draws, and how to split them.

Runs of one item x value cell are replicate draws only when nothing but the draw changes. A
held-fixed setting (model, judge, temperature, system prompt, or a column the user names) that
varies *within* a cell is a **block**: :func:`blocks_of` finds such columns, and
:func:`blocked_item_table` matches items within each block value and averages over the blocks
present under both values (every item still counts once).

The log's own same-versus-same comparison splits the runs of one value into two halves *drawn at
random within each cell* (:func:`random_halves`), never by file order or seed order: a log sorted
by the metric, or with its seeds in the order of a drift, then splits as a shuffled one would.

The rule of the draw, exactly: each run of a cell (with a metric value) gets a 64-bit key,
``mix(mix(cell ^ bits(x)) + j)``. Here ``bits(x)`` is the IEEE-754 bit pattern of the run's metric
value ``x`` (``-0.0`` read as ``0.0``), ``j`` counts the earlier runs of the cell with the same value
(0, 1, ...), and ``cell = mix(mix(mix(seed) ^ crc32(name)) ^ H)`` mixes ``seed``, the cell's name (its
item, value and block values, as text) and the cell's hash ``H``: the sum, modulo 2**64, of
``mix(mix(bits(x) ^ W) + c)`` over the cell's distinct values ``x`` (``c`` its runs, ``W`` a fixed
constant). The ``counted // 2`` runs with the smallest keys are the first half, the rest the second.

Since ``mix`` spreads its inputs over the whole range, the keys' order is a uniformly random
permutation of the runs that owes nothing to the order of their values, and the cell's hash draws
it afresh for every set of values: two logs with the same seed and item names are split
independently. (A rule keyed by the seed, the name and the *rank* of a run kept one rank pattern per
cell for a given seed, whose half-against-half gap carried a difference of order statistics; keyed
by the value alone, it would keep one preference between two values, such as 3 before 4, in every
log of counts.) The split does not depend on the row order, and it is the same in every path that
holds the runs (the eager analysis, the streaming one, a cell table).

Equal values are interchangeable (a half's sums are the same whichever of tied runs it takes), so
the split needs only each cell's values and how often each occurs: :func:`half_sums` draws it from
such counts (one row per cell and value, which the streaming pass takes), bit for bit as
:func:`first_half_flags` draws it from the runs. Its memory grows with the runs of the cells drawn at
once (some million places a batch), not with the log.
"""

from __future__ import annotations

import math
import zlib
from typing import Sequence

import numpy as np
import polars as pl

from probestats.analyses.items import item_table
from probestats.checks.columns import problem_rows
from probestats.errors import opt
from probestats.io.log import format_rows
from probestats.stats.exact import exact_mean
from probestats.stats.ranked import smallest_in_cells

__all__ = ["BLOCK_SETTINGS", "blocks_of", "named_setting_refusal", "blocked_item_table", "first_half_flags", "half_sums", "random_halves",
           "pooled_phrase", "block_noun", "HALF_NAMES"]

#: settings that make a block when they vary within an item x value cell (besides those the user names)
BLOCK_SETTINGS = ("model", "judge", "temperature", "system", "file")
#: the two halves' names: ``"<value> (first half)"`` and ``"<value> (second half)"``
HALF_NAMES = ("first half", "second half")
_NOUNS = {"model": ("model", "models"), "judge": ("judge", "judges"), "temperature": ("temperature", "temperatures"),
          "system": ("system prompt", "system prompts"), "file": ("file", "files")}
_MASK = np.uint64(0xFFFFFFFFFFFFFFFF)


def block_noun(columns: Sequence[str], n: int) -> str:
    """What a block is called in a sentence, singular or plural by ``n``.

    >>> block_noun(["judge"], 6), block_noun(["model"], 1), block_noun(["model", "temperature"], 4)
    ('judges', 'model', 'model x temperature combinations')
    >>> block_noun(["rater"], 3)
    "values of 'rater'"
    """
    if len(columns) == 1:
        one, many = _NOUNS.get(columns[0], (f"value of '{columns[0]}'", f"values of '{columns[0]}'"))
        return one if n == 1 else many
    return " x ".join(columns) + (" combination" if n == 1 else " combinations")


def blocks_of(frame: pl.DataFrame, a: str, b: str, *, settings: Sequence[str] = (),
              by: Sequence[str] = ()) -> tuple[str, ...]:
    """The setting columns that vary within some item x value cell of ``a`` and ``b``.

    Candidates are :data:`BLOCK_SETTINGS` and ``settings`` (a ``by`` column too: the pooled comparison
    still matches items within it), minus the columns in ``by`` that the caller excludes.

    >>> frame = pl.DataFrame({"item": ["1"] * 4, "variant": ["a", "a", "b", "b"], "judge": ["x", "y", "x", "y"],
    ...                       "model": ["m"] * 4, "steps": [1.0, 2.0, 1.0, 2.0]})
    >>> blocks_of(frame, "a", "b")
    ('judge',)
    """
    candidates = [c for c in dict.fromkeys([*BLOCK_SETTINGS, *settings]) if c in frame.columns and c not in by]
    if not candidates:
        return ()
    pair = frame.filter(pl.col("variant").is_in([a, b]))
    varying = pair.group_by("item", "variant").agg(
        [pl.col(c).cast(pl.String).fill_null("(blank)").n_unique().alias(c) for c in candidates])
    return tuple(c for c in candidates if varying.height and varying[c].max() > 1 and _matchable(pair, c))


def named_setting_refusal(checked, settings: Sequence[str], blocks: Sequence[str]) -> str | None:
    """Why a setting named as held fixed (in ``settings``) that is no block would change nothing in silence, or
    None: a column whose every value holds one compared value of an item (a column of run times or file names:
    no item can be matched within it), or one that differs between the compared values (a confound, as
    ``confounded_setting`` says of a model). ``checked`` is the validated log (its frame, ``a``, ``b``, log).

    >>> from types import SimpleNamespace
    >>> frame = pl.DataFrame({"item": ["1", "1", "2", "2"], "variant": ["a", "b"] * 2, "tone": ["x", "y"] * 2,
    ...                       "_row": [0, 1, 2, 3]})
    >>> log = SimpleNamespace(columns={}, rows=lambda rows: [r + 2 for r in rows], row_label="line")
    >>> named_setting_refusal(SimpleNamespace(frame=frame, a="a", b="b", log=log), ["tone"], [])[:90]
    "tone differs between the compared values: 'a' runs used 'x', 'b' runs used 'y' (items 1, 2"
    >>> named_setting_refusal(SimpleNamespace(frame=frame.with_columns(tone=pl.lit("x")), a="a", b="b", log=log),
    ...                       ["tone"], []) is None   # held fixed
    True
    """
    frame, a, b, log = checked.frame, checked.a, checked.b, checked.log
    pair = frame.filter(pl.col("variant").is_in([a, b]))
    for column in (c for c in dict.fromkeys(settings) if c not in blocks and c in pair.columns):
        header = log.columns.get(column, column).strip()
        text = pl.col(column).cast(pl.String).fill_null("(blank)")
        per = pair.group_by("item", "variant", maintain_order=True).agg(text.n_unique().alias("n"),
                                                                       text.unique().sort().alias("v"))
        if per.height and int(per["n"].max()) > 1:   # varies within cells, yet no block: no level holds both values
            return (f"{header} varies within the item x value cells, but none of its values holds both compared "
                    f"values of an item (each run has its own, as a time or a file name has), so no item can be "
                    f"matched within it: it is no held-fixed setting; drop {opt('settings', [column])}")
        sides = per.filter(pl.col("variant") == a).select("item", pl.col("v").alias("va")).join(
            per.filter(pl.col("variant") == b).select("item", pl.col("v").alias("vb")), on="item", maintain_order="left")
        items = sides.filter(pl.col("va") != pl.col("vb"))["item"].to_list()
        if not items:
            continue
        used = [pair.filter(pl.col("variant") == side).select(text.unique().sort())[column].to_list() for side in (a, b)]
        shown = [", ".join(f"'{v}'" for v in values[:4]) + (f" and {len(values) - 4} more" if len(values) > 4 else "")
                 for values in used]
        rows = problem_rows(log, pair.filter(pl.col("item").is_in(items)))
        more = f" and {len(items) - 10} more" if len(items) > 10 else ""
        return (f"{header} differs between the compared values: '{a}' runs used {shown[0]}, '{b}' runs used "
                f"{shown[1]} (items {', '.join(map(str, items[:10]))}{more}; {format_rows(log, rows)}), yet "
                f"{opt('settings', [column])} names it a held-fixed setting: rerun with {header} held fixed, or drop "
                f"{opt('settings', [column])} if it is part of what is compared")   # (split by it, those items lose a value)
    return None


def _matchable(pair: pl.DataFrame, column: str) -> bool:
    """Whether some item holds both values within one level of ``column``: a column whose every level holds one
    run (a folder of one JSON record per file) cannot match an item's values within it, so it is no block.

    >>> runs = pl.DataFrame({"item": ["1", "1"], "variant": ["a", "b"], "file": ["r1.json", "r2.json"]})
    >>> _matchable(runs, "file"), _matchable(runs.with_columns(file=pl.lit("log.csv")), "file")
    (False, True)
    """
    both = pair.group_by("item", pl.col(column).cast(pl.String).fill_null("(blank)")).agg(pl.col("variant").n_unique())
    return bool(both.height) and int(both["variant"].max()) > 1


def first_half_flags(runs: pl.DataFrame, metric: str, keys: Sequence[str], seed: int,
                     names: Sequence[str] | None = None) -> pl.Series:
    """For each row of ``runs`` (rows with a metric value), True when it is in its cell's first half.

    Cells are the groups of ``keys``, named by the columns ``names`` (default: ``keys``); see the
    module's rule of the draw. The result does not depend on the order of the rows:

    >>> runs = pl.DataFrame({"item": ["1"] * 4 + ["2"] * 4, "steps": [1.0, 2.0, 3.0, 4.0] * 2})
    >>> flags = first_half_flags(runs, "steps", ["item"], seed=0)
    >>> int(flags.sum()), flags.equals(first_half_flags(runs.reverse(), "steps", ["item"], 0).reverse())
    (4, True)
    """
    keys = list(keys)
    if not runs.height:
        return pl.Series("__first", [], pl.Boolean)
    text = [pl.col(k).cast(pl.String).fill_null("\x00") for k in keys]
    framed = runs.select(*[t.alias(f"__k{i}") for i, t in enumerate(text)],
                         # -0.0 read as 0.0 (polars drops a ``+ 0.0`` as a no-op, so the zero is replaced)
                         pl.when(pl.col(metric) == 0).then(0.0).otherwise(pl.col(metric).cast(pl.Float64)).alias("__x"))
    cellkeys = [f"__k{i}" for i in range(len(keys))]
    named = cellkeys if names is None else [f"__k{keys.index(k)}" for k in names]
    names = framed.select(pl.concat_str(named, separator="\x1f").alias("__name"))["__name"]
    codes = {name: zlib.crc32(name.encode("utf-8")) for name in names.unique().to_list()}
    code = np.fromiter((codes[n] for n in names.to_list()), dtype=np.uint64, count=len(names))
    bits = np.ascontiguousarray(framed["__x"].to_numpy(), dtype=np.float64).view(np.uint64)
    ids = framed.select(pl.int_range(pl.len()).over([*cellkeys, "__x"]).alias("p"),
                        pl.len().over([*cellkeys, "__x"]).alias("c"),
                        (pl.struct(cellkeys).rank("dense") - 1).alias("cell"))
    place, count, cell = (ids[c].to_numpy() for c in ("p", "c", "cell"))
    whole = np.zeros(int(cell.max()) + 1, dtype=np.uint64)
    once = place == 0   # each distinct value of a cell once, with its count
    np.add.at(whole, cell[once], _value_terms(bits[once], count[once]))
    with np.errstate(over="ignore"):
        key = _mix(_mix(_mix(_bases(seed, code) ^ whole[cell]) ^ bits) + place.astype(np.uint64))
    ranked = framed.with_columns(pl.Series("__key", key, pl.UInt64)).with_columns(
        (pl.col("__key").rank("ordinal").over(cellkeys) <= (pl.len().over(cellkeys) // 2)).alias("__first"))
    return ranked["__first"]


def _value_terms(bits: np.ndarray, count: np.ndarray) -> np.ndarray:
    """One distinct value's term of its cell's hash: ``mix(mix(bits ^ W) + count)`` (their sum, modulo
    2**64, over a cell's distinct values is the cell's hash, so it does not depend on their order)."""
    with np.errstate(over="ignore"):
        return _mix(_mix(bits ^ _WHOLE) + count.astype(np.uint64))


#: a constant that keeps a value's term of the cell's hash apart from its key
_WHOLE = np.uint64(0xD6E8FEB86659FD93)


def _bases(seed: int, code: np.ndarray) -> np.ndarray:
    """Each cell's key base ``mix(mix(seed) ^ crc32(name))`` (``code`` the names' CRC-32)."""
    with np.errstate(over="ignore"):
        return _mix(_mix(np.full(1, seed & 0xFFFFFFFFFFFFFFFF, dtype=np.uint64)) ^ code)


#: places of the draw held at once by :func:`half_sums` (a larger cell is drawn alone)
_BATCH = 1 << 20


def half_sums(counts: pl.DataFrame, keys: Sequence[str], seed: int,
              names: Sequence[str] | None = None, places: int = 0) -> pl.DataFrame:
    """Each cell's runs and sums, and those of its first half, from how often each value occurs.

    ``counts`` has one row per cell (the groups of ``keys``, named by ``names`` as in
    :func:`first_half_flags`) and value: ``__units``, the value in whole units of ``10**-places``
    (an integer), and ``__count``, its runs. The first half is the one :func:`first_half_flags` draws
    from the runs themselves (their values ``__units / 10**places``). Returns per cell (in the order of
    ``keys``): ``counted``, ``n_first`` and the exact sums ``__s``, ``__q``, ``__first_s``,
    ``__first_q`` of the units and their squares (128-bit).

    >>> runs = pl.DataFrame({"item": ["1"] * 5 + ["2"] * 3, "x": [3, 1, 3, 2, 3, 7, 7, 5]})
    >>> counts = runs.group_by("item", pl.col("x").alias("__units")).agg(pl.len().alias("__count"))
    >>> drawn = half_sums(counts, ["item"], seed=0)
    >>> flags = first_half_flags(runs, "x", ["item"], seed=0)
    >>> firsts = runs.filter(flags).group_by("item").agg(pl.len(), pl.col("x").sum()).sort("item")
    >>> drawn.select("n_first", "__first_s").rows() == firsts.select("len", "x").rows()
    True
    """
    keys = list(keys)
    names = keys if names is None else list(names)
    out = {"counted": [], "n_first": [], "__s": [], "__q": [], "__first_s": [], "__first_q": []}
    if counts.height:
        ordered = counts.select(*keys, pl.col("__units").cast(pl.Int64), pl.col("__count").cast(pl.Int64)).sort(
            [*keys, "__units"], nulls_last=False)
        new = pl.any_horizontal(pl.int_range(pl.len()) == 0, *[pl.col(k).ne_missing(pl.col(k).shift()) for k in keys])
        starts = ordered.select(new.arg_true().alias("s"))["s"].to_numpy()
        cells = ordered[starts].select(keys)
        text = cells.select(pl.concat_str([pl.col(k).cast(pl.String).fill_null("\x00") for k in names],
                                          separator="\x1f").alias("n"))["n"].to_list()
        code = np.fromiter((zlib.crc32(t.encode("utf-8")) for t in text), dtype=np.uint64, count=len(text))
        runs = ordered["__count"].to_numpy()
        # each value as the float the runs hold (an integer over a power of ten, correctly rounded)
        values = ordered["__units"].to_numpy().astype(np.float64) / float(10 ** int(places)) + 0.0
        cell_of = np.repeat(np.arange(len(starts)), np.diff(np.append(starts, len(runs))))
        bits = np.ascontiguousarray(values).view(np.uint64)
        whole = np.add.reduceat(_value_terms(bits, runs), starts)   # each cell's hash (sums wrap modulo 2**64)
        with np.errstate(over="ignore"):
            rowbase = _mix(_mix(_bases(seed, code) ^ whole)[cell_of] ^ bits)
        taken = _first_counts(runs, starts, rowbase)
        sums = ordered.with_columns(pl.Series("__k", taken, pl.Int64), pl.col("__units").cast(pl.Int128)).group_by(
            keys, maintain_order=True).agg(
            pl.col("__count").sum().alias("counted"), pl.col("__k").sum().alias("n_first"),
            (pl.col("__units") * pl.col("__count")).sum().alias("__s"),
            (pl.col("__units") * pl.col("__units") * pl.col("__count")).sum().alias("__q"),
            (pl.col("__units") * pl.col("__k")).sum().alias("__first_s"),
            (pl.col("__units") * pl.col("__units") * pl.col("__k")).sum().alias("__first_q"))
        return sums.with_columns(pl.col("counted").cast(pl.Int64), pl.col("n_first").cast(pl.Int64))
    return pl.DataFrame({**{k: counts[k].clear() for k in keys},
                         **{c: pl.Series(c, [], pl.Int64 if c in ("counted", "n_first") else pl.Int128)
                            for c in out}})


def _first_counts(runs: np.ndarray, starts: np.ndarray, rowbase: np.ndarray) -> np.ndarray:
    """For each row (a cell's value, cells in order: ``runs`` of it, ``starts`` the first row of each
    cell, ``rowbase`` its ``mix(base ^ bits(x))``), how many of its runs the first half takes.

    The ``j``-th run of a row has key ``mix(rowbase + j)``; the ``n // 2`` smallest keys of a cell are
    its first half. Cells are drawn some ``_BATCH`` places at a time (a larger cell alone).
    """
    sizes = np.add.reduceat(runs, starts) if len(starts) else np.zeros(0, np.int64)
    ends = np.append(starts[1:], len(runs))
    taken = np.zeros(len(runs), dtype=np.int64)
    batch_end = np.cumsum(sizes)
    first = 0
    while first < len(sizes):
        last = max(first + 1, int(np.searchsorted(batch_end, batch_end[first] - sizes[first] + _BATCH, "right")))
        _draw_batch(runs, starts, ends, sizes, rowbase, range(first, last), taken)
        first = last
    return taken


def _draw_batch(runs, starts, ends, sizes, rowbase, cells: range, taken: np.ndarray) -> None:
    """:func:`_first_counts` for the cells ``cells`` (written into ``taken``)."""
    rows = np.arange(starts[cells.start], ends[cells.stop - 1])
    if not rows.size:
        return
    counts = runs[rows]
    total = int(counts.sum())
    row_of = np.repeat(np.arange(rows.size), counts)
    row_first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    j = np.arange(total) - row_first[row_of]
    with np.errstate(over="ignore"):
        keys = _mix(rowbase[rows][row_of] + j.astype(np.uint64))
    cell_sizes = sizes[cells.start:cells.stop]
    # each cell's n // 2 smallest keys (ties to the earlier run), by a partial sort where the cells are alike
    chosen = smallest_in_cells(keys, cell_sizes, cell_sizes // 2)
    taken[rows] = np.add.reduceat(chosen.astype(np.int64), row_first)


def _mix(x) -> np.ndarray:
    """A 64-bit finalizer (the splitmix64 steps): spreads nearby inputs over the whole range."""
    with np.errstate(over="ignore"):
        x = np.asarray(x, dtype=np.uint64)
        x = (x + np.uint64(0x9E3779B97F4A7C15)) & _MASK
        x = ((x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _MASK
        x = ((x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _MASK
        return x ^ (x >> np.uint64(31))


def random_halves(runs: pl.DataFrame, metric: str, value: str, *, blocks: Sequence[str] = (),
                  seed: int = 0) -> pl.DataFrame:
    """The runs of ``value`` as a log of two values, its halves drawn at random within each cell.

    ``runs`` holds ``item``, ``variant``, the metric and any ``blocks`` columns; the result keeps
    value ``value``'s runs with a metric value, with ``variant`` set to ``"<value> (first half)"``
    or ``"<value> (second half)"`` (cells are item x ``blocks``; see the module's rule of the draw).

    >>> runs = pl.DataFrame({"item": ["1"] * 4, "variant": ["a"] * 4, "steps": [1.0, 2.0, 3.0, 4.0]})
    >>> random_halves(runs, "steps", "a")["variant"].value_counts().sort("variant")["count"].to_list()
    [2, 2]
    """
    keys = ["item", *blocks]
    mine = runs.filter((pl.col("variant") == value) & pl.col(metric).is_not_null()).select(*keys, metric)
    first, second = (f"{value} ({h})" for h in HALF_NAMES)
    flags = first_half_flags(mine, metric, keys, seed)
    return mine.with_columns(pl.when(flags).then(pl.lit(first)).otherwise(pl.lit(second)).alias("variant"))


def blocked_item_table(frame: pl.DataFrame, metric: str, a: str, b: str, blocks: Sequence[str],
                       order: pl.DataFrame | None = None) -> pl.DataFrame:
    """The item table with a setting as a block: per item, the means over the block values present
    under both values of that item (each block value's own mean first), so ``gap = mean_a − mean_b``
    is the average of the within-block gaps; ``n_a``/``n_b`` count the runs used, ``n_blocks`` the
    block values averaged over. Items keep the order of ``order`` (an item table) when given.

    >>> frame = pl.DataFrame({"item": ["1"] * 6, "variant": ["a", "a", "b", "b", "a", "b"],
    ...                       "judge": ["x", "x", "x", "x", "y", "y"], "s": [1.0, 3.0, 1.0, 1.0, 9.0, 8.0]})
    >>> blocked_item_table(frame, "s", "a", "b", ["judge"]).select("mean_a", "mean_b", "gap", "n_a", "n_blocks").row(0)
    (5.5, 4.5, 1.0, 3, 2)
    """
    per = item_table(frame, metric, a, b, by=list(blocks))
    # the mean of the block means, correctly rounded (math.fsum), so equal sets of means give equal floats
    # whatever their order, and an item whose values agree in every block has a gap of exactly 0
    exact_mean = (lambda s: pl.Series([_block_mean(x) for x in s.to_list()], dtype=pl.Float64))
    table = (per.group_by("item", maintain_order=True)
             .agg(pl.col("mean_a"), pl.col("mean_b"), pl.col("n_a").sum(), pl.col("n_b").sum(),
                  pl.len().cast(pl.Int64).alias("n_blocks"))
             .with_columns(pl.col("mean_a").map_batches(exact_mean, return_dtype=pl.Float64),
                           pl.col("mean_b").map_batches(exact_mean, return_dtype=pl.Float64))
             .with_columns((pl.col("mean_a") - pl.col("mean_b")).alias("gap")))
    if order is not None:
        table = order.select("item", "sd_a", "sd_b").join(table, on="item", how="inner", maintain_order="left")
    else:
        table = table.with_columns(pl.lit(None, pl.Float64).alias("sd_a"), pl.lit(None, pl.Float64).alias("sd_b"))
    return table.select("item", "mean_a", "mean_b", "gap", "n_a", "n_b", "sd_a", "sd_b", "n_blocks")


def _block_mean(means: list) -> float:
    """The mean of an item's block means: ``fsum / n``, or, where the sum passes the largest float (two blocks at
    1.7e308), the mean rounded once from the exact sum (:func:`probestats.stats.exact.exact_mean`).

    >>> _block_mean([0.5, 1.0, 3.0]), _block_mean([1.7e308, 1.7e308])
    (1.5, 1.7e+308)
    """
    try:
        return math.fsum(means) / len(means)
    except OverflowError:
        return exact_mean(means)


def pooled_phrase(table: pl.DataFrame, blocks: Sequence[str], n_values: int) -> str:
    """What a blocked analysis averaged over, in words: "averaged over 6 judges that answered every item",
    or, where items have different block values under both values, the range per item.

    >>> table = pl.DataFrame({"item": ["1", "2"], "n_blocks": [6, 6]})
    >>> pooled_phrase(table, ["judge"], 6)
    'averaged over 6 judges that answered every item'
    >>> pooled_phrase(pl.DataFrame({"item": ["1", "2"], "n_blocks": [4, 6]}), ["judge"], 6)
    'averaged over the judges that answered each item under both values (4 to 6 of 6 judges per item)'
    """
    lo, hi = int(table["n_blocks"].min() or 0), int(table["n_blocks"].max() or 0)
    if lo == hi == n_values:
        verb = "answered" if "judge" in blocks or "model" in blocks else "ran"
        return f"averaged over {n_values} {block_noun(blocks, n_values)} that {verb} every item"
    verb = "answered" if "judge" in blocks or "model" in blocks else "ran"
    span = f"{lo}" if lo == hi else f"{lo} to {hi}"
    return (f"averaged over the {block_noun(blocks, 2)} that {verb} each item under both values "
            f"({span} of {n_values} {block_noun(blocks, n_values)} per item)")
