"""The cells validation checks: one row per item (and ``by`` group) and value, with its runs, seeds,
settings and the metric's spread, computed in one streaming pass of cheap aggregations; the two
compared values' cells side by side; and the order-free fingerprints that compare sets of seeds
and of a setting's values without holding them."""

from __future__ import annotations

import sys

import polars as pl

from probestats.io.columns import ROW
from probestats.stats.exact import finish_means, mean_aggs, row_places, units, with_exact_moments

__all__ = ["SETTINGS", "FIRST", "HASH_SEED", "cell_summary", "side_by_side", "pair_cells", "decimal_places",
           "seen_per_item", "set_fingerprint", "comparable", "one_value", "setting_text", "repeats_within_cells"]

SETTINGS = ("model", "temperature", "system")
FIRST = "__first_row"  # a group's first row, to keep groups in order of appearance


def set_fingerprint(expr: pl.Expr) -> pl.Expr:
    """Equal for equal sets of values, whatever their order or repeats (64-bit hashes, wrapped sum)."""
    return expr.unique().hash(seed=HASH_SEED).sum()


HASH_SEED = 20261129


def pair_cells(pair: pl.DataFrame, metric: str | None, a: str, b: str, by) -> pl.DataFrame:
    """One row per item (and ``by`` group) with both values' runs, seeds, settings and spread side by side."""
    return side_by_side(cell_summary(pair, metric, by), a, b)


def cell_summary(pair: pl.DataFrame, metric: str | None, by) -> pl.DataFrame:
    """One row per item (and ``by`` group) and value, in order of the cell's first run (``FIRST``):
    its runs, seeds, settings and the metric's spread.

    Sets (of seeds, of a setting's values) are compared through an order-free fingerprint, so a
    large log needs no per-cell lists. The common case is computed in one streaming pass of cheap
    aggregations (counts, minima, maxima, sums of hashes); the exact set fingerprints, which cost
    a per-cell hash table, are computed only where that pass cannot decide:

    - seeds: the sum of the seeds' hashes is the set's fingerprint when no seed repeats within a
      cell, which one sorted pass over the rows' hashes confirms;
    - a setting: a cell whose values are all one (minimum equals maximum, or all blank) is
      fingerprinted by that value; only a setting that varies within some cell needs the exact set.

    Columns after the keys and ``variant``: ``n`` runs, ``counted`` runs with a metric value,
    ``constant`` (every counted run gave the same value), the metric's ``mean`` and ``sd`` and the
    ``first_valued`` row, ``seeds``, ``seeded``, ``distinct_seeds`` and one column per setting.
    """
    keys = ["item", *[c for c in by if c in pair.columns]]
    cell = [*keys, "variant"]
    settings = [s for s in SETTINGS if s in pair.columns and s not in by]
    aggs = [pl.len().alias("n"), pl.col(ROW).min().alias(FIRST)]
    if metric is not None:
        value = pl.col(metric)
        places = decimal_places(pair[metric])
        aggs += [value.count().alias("counted"), (value.min() == value.max()).alias("constant"),
                 value.std().alias("sd")]
        if places is not None:  # short decimals: exact sums give mean and sd by the rule a cell table follows
            whole = units(value, places)
            aggs += [whole.sum().alias("__s"), (whole * whole).sum().alias("__q")]
        else:  # other floats: the correctly rounded mean of the binary values
            aggs += mean_aggs(pair[metric], metric)
        if pair[metric].null_count():  # else a cell's first run is its first run with a value
            aggs.append(pl.col(ROW).filter(value.is_not_null()).min().alias("first_valued"))
    seeded = "seed" in pair.columns
    if seeded:
        seed = pl.col("seed")
        aggs += [pl.when(seed.is_not_null()).then(seed.hash(seed=HASH_SEED)).sum().alias("seeds"),
                 seed.count().alias("seeded")]
    for setting in settings:
        value = comparable(pair, setting)
        aggs += [value.min().alias(setting), one_value(value).alias(f"__{setting}_one")]
    per = pair.lazy().group_by(cell).agg(aggs).sort(FIRST).collect(engine="streaming")
    if "__s" in per.columns:
        per = with_exact_moments(per, places)
    elif metric is not None:  # the few cells one pass of sums cannot average exactly
        per = finish_means(per, pair, cell, metric)
    if metric is not None and "first_valued" not in per.columns:
        per = per.with_columns(pl.col(FIRST).alias("first_valued"))
    exact = []
    if seeded:
        if repeats_within_cells(pair, cell):
            exact += [set_fingerprint(pl.col("seed").drop_nulls()).alias("seeds"),
                      pl.col("seed").drop_nulls().n_unique().alias("distinct_seeds")]
        else:
            per = per.with_columns(pl.col("seeded").alias("distinct_seeds"))
    for setting in settings:
        if per[f"__{setting}_one"].all():  # the fingerprint of a one-value set, as set_fingerprint gives it
            per = per.with_columns(setting_text(setting).hash(seed=HASH_SEED))
        else:
            exact.append(set_fingerprint(setting_text(setting)).alias(setting))
    per = per.drop(f"__{s}_one" for s in settings)
    if exact:  # only for logs the cheap pass could not decide
        sets = pair.group_by(cell).agg(exact)
        per = per.drop(sets.columns[len(cell):], strict=False).join(sets, on=cell, nulls_equal=True, maintain_order="left")
    return per


def side_by_side(per: pl.DataFrame, a: str, b: str) -> pl.DataFrame:
    """The cells of :func:`cell_summary` for items with both values, value b's with the suffix ``_b``."""
    keys = [c for c in per.columns[:per.columns.index("variant")]]
    per = per.drop(FIRST)
    side_a = per.filter(pl.col("variant") == a).drop("variant")
    side_b = per.filter(pl.col("variant") == b).drop("variant")
    return side_a.join(side_b, on=keys, suffix="_b", maintain_order="left")


def decimal_places(values: pl.Series) -> int | None:
    """The fewest decimal places, 0 to 6, in which every value is written exactly (each value is the
    float nearest such a decimal, :func:`probestats.stats.exact.row_places`); None when some value
    has more, or when the values are too large for their sums of whole units to be exact floats.

    With them a cell's mean and sd come from exact sums of whole units of ``10**-places``
    (:mod:`probestats.stats.exact`): the same whatever the order of the runs, and the same bits
    as a cell table built by ``probestats cells`` or a warehouse.

    >>> decimal_places(pl.Series([3.0, 4.0, None])), decimal_places(pl.Series([3.31, 4.2, -0.05]))
    (0, 2)
    >>> decimal_places(pl.Series([1 / 3])) is None, decimal_places(pl.Series([113.99999999999989, 1.0])) is None
    (True, True)
    """
    frame = values.cast(pl.Float64).to_frame("v")  # expressions on it hold no copies of the column
    top, count = frame.select(pl.col("v").abs().max().alias("top"), pl.col("v").count().alias("n")).row(0)
    if not count:
        return 0
    places = row_places(values)
    if places.null_count():  # some value is not a short decimal (blanks count as 0 places)
        return None
    most = int(places.max() or 0)
    if top * 10.0**most * count >= 2.0**53:  # a sum of whole units this large would be rounded
        return None
    return most


def comparable(frame: pl.DataFrame, setting: str) -> pl.Expr:
    """A setting's column as numbers or text, which have a minimum and a maximum."""
    dtype = frame.schema[setting]
    return pl.col(setting) if dtype == pl.String or dtype.is_numeric() else pl.col(setting).cast(pl.String)


def one_value(value: pl.Expr) -> pl.Expr:
    """True when every row holds the same value, or every row is blank (a blank counts as a value)."""
    nulls = value.null_count()
    return ((nulls == 0) & (value.min() == value.max())) | (nulls == pl.len())


def setting_text(setting: str) -> pl.Expr:
    """A setting's column as text, a blank cell as ``(blank)``: how a setting's set of values is fingerprinted."""
    return pl.col(setting).cast(pl.String).fill_null("(blank)")


def repeats_within_cells(pair: pl.DataFrame, cell: list[str]) -> bool:
    """Whether some cell may hold a seed twice: equal hashes of (cell, seed), found by sorting.

    A hash collision can only say "may"; the caller then computes the exact sets.
    """
    rows = pair.lazy()
    if pair["seed"].null_count():
        rows = rows.filter(pl.col("seed").is_not_null())
    hashes = rows.select(pl.struct(*cell, "seed").hash(seed=HASH_SEED).alias("h")).collect(engine="streaming")["h"]
    if "numpy" in sys.modules:  # loaded already (the analyses use it): its sort takes half the time of polars'
        import numpy as np

        ordered = np.sort(hashes.to_numpy())
        return bool((ordered[1:] == ordered[:-1]).any())
    ordered = hashes.sort()
    return bool((ordered.slice(1) == ordered.slice(0, max(ordered.len() - 1, 0))).any())


def seen_per_item(df: pl.DataFrame, keys: list[str], a: str, b: str, valued: pl.Expr | None,
          first: str = ROW) -> pl.DataFrame:
    """Per item (and ``by`` group), in order of appearance: has it runs of a and of b, and runs with a metric value?

    One streaming pass of sums: a large log needs no per-group lists. ``df`` is the runs, or the
    cells of :func:`cell_summary` (``first=FIRST``, ``valued`` on its ``counted`` column).
    """
    aggs = [pl.col(first).min().alias(FIRST)]
    for side, v in (("a", a), ("b", b)):
        aggs.append(((pl.col("variant") == v).sum() > 0).alias(f"has_{side}"))
        if valued is not None:
            aggs.append((((pl.col("variant") == v) & valued).sum() > 0).alias(f"valued_{side}"))
    return df.lazy().group_by(keys).agg(aggs).sort(FIRST).drop(FIRST).collect(engine="streaming")
