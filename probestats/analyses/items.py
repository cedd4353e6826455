"""The per-item (disaggregated) table of a probe: per item, the mean of the metric under each of two
values, their runs and spread, and the gap; every item counts once.

Also which columns may split that table into groups (:func:`check_by`), and each item's runs as the
within-item permutation reassigns them (:func:`item_units`).
"""

from __future__ import annotations

from typing import Sequence

import polars as pl

from probestats.checks.schema import FIRST, Checked, decimal_places, validate  # noqa: F401  (validate: doctests)
from probestats.errors import OptionError, opt
from probestats.stats.exact import finish_means, mean_aggs, units, with_exact_moments


def item_table(frame: pl.DataFrame, metric: str, a: str, b: str, by: Sequence[str] = ()) -> pl.DataFrame:
    """Per item: mean of the metric under each value, runs per value, spread, and gap = mean_a − mean_b.

    Items keep their order of first appearance (of a run of ``a`` with a value). Runs whose
    metric is blank do not count; items without a run with a value under both values are left
    out (validation reports them as ``unmatched_item``). Means are exact, rounded once
    (:mod:`probestats.stats.exact`).

    Examples
    --------
    >>> frame = pl.DataFrame({"item": ["1", "1", "1", "2", "2"],
    ...                       "variant": ["a", "a", "b", "a", "b"],
    ...                       "steps": [4.0, 6.0, 3.0, 2.0, 2.0]})
    >>> item_table(frame, "steps", "a", "b").select("item", "mean_a", "mean_b", "gap", "n_a", "n_b").rows()
    [('1', 5.0, 3.0, 2.0, 2, 1), ('2', 2.0, 2.0, 0.0, 1, 1)]
    """
    keys = [*by, "item"]
    value = pl.col(metric)
    places = decimal_places(frame[metric])
    exact = [] if places is None else [units(value, places).sum().alias("__s"),
                                       (units(value, places) * units(value, places)).sum().alias("__q")]
    # one streaming pass of sums: a large log needs no per-cell lists
    rows = frame.lazy().filter(pl.col("variant").is_in([a, b]))
    cells = (
        frame.lazy()
        .with_row_index(FIRST)
        .filter(pl.col("variant").is_in([a, b]))
        .group_by([*keys, "variant"])
        .agg(*([] if exact else mean_aggs(frame[metric], metric)), value.count().alias("counted"),
             value.std().alias("sd"),
             pl.col(FIRST).filter(value.is_not_null()).min().alias("first_valued"), *exact)
        .collect(engine="streaming")
    )
    if exact:  # short decimals: mean and sd by the exact rule a cell table also follows
        cells = with_exact_moments(cells, places)
    else:  # other floats: the correctly rounded mean of the binary values
        cells = finish_means(cells, rows, [*keys, "variant"], metric)
    side_a = cells.filter(pl.col("variant") == a).drop("variant")
    side_b = cells.filter(pl.col("variant") == b).drop("variant")
    return item_table_of(side_a.join(side_b, on=keys, suffix="_b"), keys)


def items_of(checked: Checked, by: Sequence[str] = ()) -> pl.DataFrame:
    """The item table of a validated log (split by ``by``), from the per-item summary validation
    computed when it has it (``checked.pairs``), so the rows are not read again.

    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 3 + s + (v == "a")}
    ...         for i in (1, 2) for v in ("a", "b") for s in (1, 2)]
    >>> checked = validate(rows, metric="steps")
    >>> items_of(checked).equals(item_table(checked.frame, "steps", "a", "b"))
    True
    """
    if checked.pairs is not None and checked.metric is not None and set(checked.pairs_by) == set(by):
        return item_table_of(checked.pairs, [*by, "item"])
    return item_table(checked.frame, checked.metric, checked.a, checked.b, by=by)


def item_table_of(pairs: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The item table from both values' metric summaries side by side (suffix ``_b`` for value b)."""
    return (
        pairs.filter((pl.col("counted") > 0) & (pl.col("counted_b") > 0))
        .sort("first_valued")
        .select(*keys, pl.col("mean").alias("mean_a"), pl.col("mean_b"),
                (pl.col("mean") - pl.col("mean_b")).alias("gap"),
                pl.col("counted").cast(pl.Int64).alias("n_a"), pl.col("counted_b").cast(pl.Int64).alias("n_b"),
                pl.col("sd").alias("sd_a"), pl.col("sd_b"))
    )


def item_units(frame: pl.DataFrame, metric: str, a: str, b: str, keys: Sequence[str] = ("item",)) -> dict:
    """Per item (``keys``; one key: the item itself, else a tuple): value a's runs and value b's runs with a
    metric, the units the within-item permutation reassigns.

    >>> frame = pl.DataFrame({"item": ["1", "1", "1"], "variant": ["a", "b", "b"], "x": [1.0, 2.0, None]})
    >>> item_units(frame, "x", "a", "b")
    {'1': ([1.0], [2.0])}
    """
    keys = list(keys)
    cells = (frame.filter(pl.col("variant").is_in([a, b]) & pl.col(metric).is_not_null())
             .group_by([*keys, "variant"]).agg(pl.col(metric)))
    out: dict = {}
    for row in cells.iter_rows(named=True):
        key = row[keys[0]] if len(keys) == 1 else tuple(row[k] for k in keys)
        side = out.setdefault(key, ([], []))
        side[0 if row["variant"] == a else 1].extend(float(x) for x in row[metric])
    return out


#: columns that number the runs inside a cell: never a --by group (item and value are refused by validation)
CELL_COLUMNS = ("seed", "run_id")


def check_by(by, metric: str | None = None) -> None:
    """Refuse a ``--by`` column that makes or numbers the cells the analysis compares.

    >>> check_by(["model"], "steps")
    >>> check_by(["seed"], "steps")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: by='seed': that column numbers the runs inside each item x value cell, so it cannot split the analysis; group by a column that is fixed within an item, such as model
    """
    for col in by:
        if col in CELL_COLUMNS or col == metric:
            what = "is the metric" if col == metric else "numbers the runs inside each item x value cell"
            raise OptionError(f"{opt('by', col)}: that column {what}, so it cannot split the analysis; group by a column "
                              "that is fixed within an item, such as model")


def key_json(v):
    """A group key's value as the JSON of a result holds it: a string for what JSON has no type for."""
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    return str(v)


