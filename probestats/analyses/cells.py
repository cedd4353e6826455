"""The cell table: one row per item x value (x ``--by`` group), all an analysis needs after validation.

Columns (the same whether ``probestats cells`` wrote it or a warehouse built it with the
query ``probestats sql`` prints):

========================  ==============================================================
``<by columns>``          the ``--by`` groups, when given
``item``, ``variant``     the cell (as text)
``n``                     runs in the cell
``counted``               runs with a metric value
``places``                the metric's values are whole numbers of ``10**-places``
``sum_units``             exact sum of the metric in those units, as decimal text
``sumsq_units``           exact sum of squares in units of ``10**-(2 places)``, as decimal text
``min``, ``max``          the metric's smallest and largest value
``first_row``             the row of the cell's first run with a value (orders the items)
``model`` ...             the first run's held-fixed settings, when the log has them
========================  ==============================================================

Sums are exact integers (text, so no engine or file format rounds them), and means and
standard deviations follow one exact rule (:mod:`probestats.checks.exact`): an analysis
from the cell table gives the same numbers, bit for bit, as the row log's.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import polars as pl

from probestats.analyses.paired import Analysis, _jsonable, adjust, check_common, compare_pair, design_problems
from probestats.checks.exact import mean_sd, units
from probestats.checks.schema import SETTINGS, Checked, decimal_places, require_ok, validate
from probestats.errors import OptionError, Problem, ReadError, count_of
from probestats.io.read import ROW, Log

__all__ = ["cell_table", "read_cells", "analyze_cells", "CELL_COLUMNS"]

CELL_COLUMNS = ("item", "variant", "n", "counted", "places", "sum_units", "sumsq_units", "min", "max", "first_row")


def cell_table(log, *, metric: str, by: Sequence[str] = (), fold_case: bool = False,
               read_options: dict | None = None) -> tuple[pl.DataFrame, Checked]:
    """Validate a log and summarize it into its cell table (see the module docstring).

    Returns the table and the validation (whose warnings the caller reports).

    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 3 + s + (v == "a")}
    ...         for i in (1, 2) for v in ("a", "b") for s in (1, 2)]
    >>> cells, _ = cell_table(rows, metric="steps")
    >>> cells.select("item", "variant", "n", "sum_units", "sumsq_units").rows()[:2]
    [('1', 'a', 2, '11', '61'), ('1', 'b', 2, '9', '41')]
    """
    by = list(by)
    checked = validate(log, metric=metric, by=by, fold_case=fold_case, **(read_options or {}))
    require_ok(checked)
    frame = checked.frame
    places = decimal_places(frame[metric])
    if places is None:
        raise OptionError(f"the metric '{metric}' has values with more than 6 decimal places (or sums too large "
                          f"for exact whole units); a cell table needs exact sums: round the metric with --derive")
    value = pl.col(metric)
    whole = units(value, places)
    order = pl.col(ROW) if ROW in frame.columns else pl.int_range(pl.len())
    settings = [s for s in SETTINGS if s in frame.columns and s not in by]
    cells = (
        frame.lazy()
        .with_columns(order.alias("__order"))
        .group_by([*by, "item", "variant"])
        .agg(pl.len().alias("n"), value.count().alias("counted"),
             whole.sum().alias("sum_units"), (whole * whole).sum().alias("sumsq_units"),
             value.min().alias("min"), value.max().alias("max"),
             pl.col("__order").filter(value.is_not_null()).min().alias("first_row"),
             *[pl.col(s).sort_by("__order").first().alias(s) for s in settings])
        .sort("first_row")
        .collect(engine="streaming")
        .with_columns(pl.lit(places, dtype=pl.Int64).alias("places"),
                      pl.col("sum_units").cast(pl.String), pl.col("sumsq_units").cast(pl.String),
                      pl.col("n").cast(pl.Int64), pl.col("counted").cast(pl.Int64),
                      pl.col("first_row").cast(pl.Int64))
    )
    return cells.select(*by, *CELL_COLUMNS, *settings), checked


def read_cells(path) -> pl.DataFrame:
    """Read a cell table (Parquet, CSV or JSONL) and check its columns."""
    path = Path(path)
    try:
        if path.suffix.lower() == ".parquet":
            cells = pl.read_parquet(path)
        elif path.suffix.lower() in (".jsonl", ".ndjson"):
            cells = pl.read_ndjson(path, infer_schema_length=None)
        else:
            cells = pl.read_csv(path, infer_schema_length=0)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise ReadError(f"cannot read the cell table {path}: {str(exc).splitlines()[0]}") from None
    missing = [c for c in CELL_COLUMNS if c not in cells.columns]
    if missing:
        raise ReadError(f"{path} is not a cell table: it lacks {', '.join(missing)} "
                        f"(write one with probestats cells or the query of probestats sql)")
    return cells.with_columns(pl.col("item").cast(pl.String), pl.col("variant").cast(pl.String),
                              pl.col("sum_units").cast(pl.String), pl.col("sumsq_units").cast(pl.String),
                              *[pl.col(c).cast(pl.Int64) for c in ("n", "counted", "places", "first_row")])


def _item_table(cells: pl.DataFrame, a: str, b: str, by: Sequence[str]) -> pl.DataFrame:
    """The item table (as :func:`probestats.analyses.paired.item_table` gives it) from cells."""
    keys = [*by, "item"]
    stats = [mean_sd(n, int(s), int(q), p) for n, s, q, p in
             zip(cells["counted"], cells["sum_units"], cells["sumsq_units"], cells["places"])]
    cells = cells.with_columns(pl.Series("mean", [m for m, _ in stats], dtype=pl.Float64),
                               pl.Series("sd", [d for _, d in stats], dtype=pl.Float64))
    cols = [*keys, "mean", "sd", "counted", "first_row"]
    side_a = cells.filter(pl.col("variant") == a).select(cols)
    side_b = cells.filter(pl.col("variant") == b).select(cols)
    return (
        side_a.join(side_b, on=keys, suffix="_b", nulls_equal=True)
        .filter((pl.col("counted") > 0) & (pl.col("counted_b") > 0))
        .sort("first_row")
        .select(*keys, pl.col("mean").alias("mean_a"), pl.col("mean_b"),
                (pl.col("mean") - pl.col("mean_b")).alias("gap"),
                pl.col("counted").alias("n_a"), pl.col("counted_b").alias("n_b"),
                pl.col("sd").alias("sd_a"), pl.col("sd_b"))
    )


def analyze_cells(cells, *, metric: str, a: str | None = None, b: str | None = None, by: Sequence[str] = (),
                  alternative: str = "two-sided", alpha: float = 0.05, correction: str = "holm") -> Analysis:
    """The paired analysis of :func:`probestats.analyses.paired.analyze`, from a cell table.

    ``cells`` is a path or a frame of the cell table. Validation ran when the table was
    built (``probestats cells`` refuses a log with errors; ``probestats sql`` prints the
    validation queries to run in the engine), so the only problem added here is
    ``never_significant``; items lacking a value are left out as the row path leaves them.

    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + (s % 3 == i % 2)}
    ...         for i in range(8) for v in ("formal", "casual") for s in range(1, 6)]
    >>> cells, _ = cell_table(rows, metric="steps")
    >>> result = analyze_cells(cells, metric="steps")
    >>> result.main.average_gap, result.main.sign_flip.pvalue
    (1.0, 0.0078125)
    """
    check_common(alternative, alpha, correction)
    source = str(cells) if not isinstance(cells, pl.DataFrame) else "cells"
    frame = cells if isinstance(cells, pl.DataFrame) else read_cells(cells)
    by = list(by)
    absent = [c for c in by if c not in frame.columns]
    if absent:
        raise OptionError(f"--by {absent[0]}: the cell table has no such column; build it with --by {absent[0]}")
    order = frame.group_by("variant").agg(pl.col("first_row").min()).sort("first_row")["variant"].to_list()
    if a is None or b is None:
        rest = [v for v in order if v not in (a, b)]
        a = a if a is not None else rest.pop(0) if rest else None
        b = b if b is not None else rest.pop(0) if rest else None
    for name, v in (("--a", a), ("--b", b)):
        if v is None or v not in order:
            raise OptionError(f"{name} {v}: not a value of the cell table (values: {', '.join(order[:10])})")
    # one row per item and value across groups, summed exactly, for the main comparison
    merged = frame
    if by:
        merged = (frame.with_columns(pl.col("sum_units").cast(pl.Int128), pl.col("sumsq_units").cast(pl.Int128))
                  .group_by("item", "variant")
                  .agg(pl.col("counted").sum(), pl.col("places").first(), pl.col("sum_units").sum(),
                       pl.col("sumsq_units").sum(), pl.col("first_row").min())
                  .with_columns(pl.col("sum_units").cast(pl.String), pl.col("sumsq_units").cast(pl.String)))
    main = compare_pair(_item_table(merged, a, b, ()), metric, a, b, alternative=alternative, confidence=1 - alpha)
    groups = []
    if by:
        grouped = _item_table(frame, a, b, by)
        for key in grouped.select(by).unique(maintain_order=True).iter_rows(named=True):
            mask = pl.all_horizontal([pl.col(k) == v if v is not None else pl.col(k).is_null() for k, v in key.items()])
            groups.append(compare_pair(grouped.filter(mask).drop(by), metric, a, b, alternative=alternative,
                                       confidence=1 - alpha, by={k: _jsonable(v) for k, v in key.items()}))
        adjusted = adjust([g.sign_flip.pvalue for g in groups], correction)
        groups = [replace(g, p_adjusted=p) for g, p in zip(groups, adjusted)]
    problems = design_problems(main, alpha)
    log = Log(lazy=pl.LazyFrame(), columns={}, source=source, headers=tuple(frame.columns))
    checked = Checked(frame=pl.DataFrame(), metric=metric, a=a, b=b, values=tuple(order), problems=(), log=log)
    return Analysis(main=main, noise=None, groups=tuple(groups), problems=tuple(problems),
                    alternative=alternative, alpha=alpha, correction=correction, checked=checked)
