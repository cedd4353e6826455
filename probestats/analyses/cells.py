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
``n_first``               runs in the first half of the cell: ``counted // 2`` of its runs with a
                          value, drawn at random as the within-log noise draws them
                          (:mod:`probestats.analyses.halves`, seed 0; a ``--by`` group's cell is
                          drawn on its own, named by its item)
``sum_units_first``,      exact sums of that first half, as above (the second half is the cell
``sumsq_units_first``     minus the first)
``first_split``           ``random (seed 0)``: how the halves were drawn (older tables say
                          ``seed`` or ``row order``, and the query of probestats sql ``none``:
                          none of them gives the within-log noise)

``metric``                the metric's name (a table built for one metric is refused for another)
``seed_count``            the cell's distinct seeds, when the log has a seed column
``seed_hash``             the sum of their 64-bit hashes (wrapping), as decimal text: the seeds'
                          fingerprint, on which before and after tables are compared
``seed_low``,             the smallest and largest seed, when the seeds are every whole number
``seed_high``             from one to the other, each written plainly (else empty)
``seeds``                 the cell's seeds, as a JSON list of text in seed order, when it has at
                          most :data:`SEED_LIST_LIMIT` (else empty: the list would grow with runs)
``time_min``, ``time_max``  the cell's first and last time, when the log has a time column
``runs_units``            with ``runs=True`` (``probestats cells --keep-runs``): the cell's values in
                          whole units, in row order, separated by spaces; a noise or pilot log
                          needs them, because ``plan`` resamples runs
========================  ==============================================================

The columns after ``first_row`` are newer and optional: a table without the half columns
still analyzes, without the within-log noise row (a warning says so).

Sums are exact integers (text, so no engine or file format rounds them), and means and
standard deviations follow one exact rule (:mod:`probestats.stats.exact`): an analysis
from the cell table gives the same numbers, bit for bit, as the row log's.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import polars as pl

from probestats.analyses.blocks import block_agreement
from probestats.analyses.compare import NotComparableError, comparable_problems, compare_results
from probestats.analyses.halves import first_half_flags, half_sums
from probestats.analyses.items import item_units, key_json
from probestats.analyses.noise_check import (OVER_EVERY_SPLIT, halves_check, halves_noise, noise_check_of,
                                             noise_log_causes, one_run_reason)
from probestats.analyses.pair_tests import compare_pair, design_problems, unpermuted_problem
from probestats.analyses.paired import Analysis
from probestats.analyses.probe_mdg import probe_mdg
from probestats.analyses.verdict import NoiseCheck, decide, with_caveats, with_design
from probestats.checks.cell_summary import HASH_SEED
from probestats.checks.design_facts import group_constant_caveats, item_facts
from probestats.checks.facts import LogFacts, row_facts, seed_facts, seed_union
from probestats.checks.schema import (FIRST, SETTINGS, Checked, decimal_places, default_pair,
                                      require_ok, validate)
from probestats.errors import OptionError, Problem, ReadError, count_of, either, opt
from probestats.io.cell_header import is_parquet
from probestats.io.columns import ROW
from probestats.io.formulas import restored_frame
from probestats.io.log import Log
from probestats.stats.multitest import adjust
from probestats.stats.permutation import arms_unequal
from probestats.vocabulary import Tests, as_tests, column_names
from probestats.stats.exact import mean_sd, units

__all__ = ["cell_table", "read_cells", "analyze_cells", "CELL_COLUMNS", "HALF_COLUMNS", "within_cells_noise",
           "cell_rows", "compare_cells", "cells_checked"]

CELL_COLUMNS = ("item", "variant", "n", "counted", "places", "sum_units", "sumsq_units", "min", "max", "first_row")
#: the first half of each cell's runs (the within-log noise); optional, absent from older tables
HALF_COLUMNS = ("n_first", "sum_units_first", "sumsq_units_first", "first_split")
#: what the table keeps of the log beyond its sums (optional)
FACT_COLUMNS = ("metric", "seed_count", "seed_hash", "seed_low", "seed_high", "seeds", "time_min", "time_max",
                "runs_units")
#: a cell's seeds are listed (``seeds``) up to this many; beyond, their count, fingerprint and range stand for them
SEED_LIST_LIMIT = 64


def _builders() -> str:
    """How a cell table is built, in the caller's spelling (the library's function or the commands)."""
    return either("probestats.analyses.cells.cell_table() or the query of probestats.shape.warehouse.cell_query()", "probestats cells or the query of probestats sql")


def cell_table(log, probe=None, *, metric: str, by: Sequence[str] = (), runs: bool = False
               ) -> tuple[pl.DataFrame, Checked]:
    """Validate a log (shaped by ``probe``, whose case folding the values take) and summarize it into its cell
    table (see the module docstring).

    With ``runs``, each cell also keeps its values (``runs_units``), as the noise or pilot log
    of ``plan`` needs them.

    Returns the table and the validation (whose warnings the caller reports).

    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 3 + s + (v == "a")}
    ...         for i in (1, 2) for v in ("a", "b") for s in (1, 2)]
    >>> cells, _ = cell_table(rows, metric="steps")
    >>> cells.select("item", "variant", "n", "sum_units", "sumsq_units").rows()[:2]
    [('1', 'a', 2, '11', '61'), ('1', 'b', 2, '9', '41')]
    """
    by = list(column_names("by", by))
    fold = bool(probe is not None and probe.fold_case)
    if not runs:   # one streaming pass when the log allows it (the same table, bit for bit)
        streamed = _streamed_cells(log, metric=metric, by=by, fold=fold)
        if streamed is not None:
            return streamed
    checked = validate(log, metric=metric, by=by, fold_case=fold)
    require_ok(checked)
    frame = checked.frame
    places = decimal_places(frame[metric])
    if places is None:
        raise OptionError(f"the metric '{metric}' has values with more than 6 decimal places (or sums too large "
                          f"for exact whole units); a cell table needs exact sums: round the metric with {opt('derive')}")
    value = pl.col(metric)
    whole = units(value, places)
    order = pl.col(ROW) if ROW in frame.columns else pl.int_range(pl.len())
    settings = [s for s in SETTINGS if s in frame.columns and s not in by]
    valued = value.is_not_null()
    # the first half of each cell's runs with a value, drawn at random as the within-log noise draws it
    # (probestats.analyses.halves: the cell's values and the seed decide, not the row order)
    frame = _with_first_half(frame, metric, by)
    half = value.count() // 2
    first = whole.filter(valued & pl.col("__first"))
    extra = []
    if "seed" in frame.columns:
        extra += _seed_aggregations(pl.col("seed").cast(pl.String).drop_nulls())
    if "time" in frame.columns:
        extra += [pl.col("time").min().alias("time_min"), pl.col("time").max().alias("time_max")]
    if runs:
        extra.append(whole.filter(valued).sort_by(pl.col("__order").filter(valued)).cast(pl.String)
                     .str.join(" ").alias("runs_units"))
    cells = (
        frame.lazy()
        .with_columns(order.alias("__order"))
        .group_by([*by, "item", "variant"])
        .agg(pl.len().alias("n"), value.count().alias("counted"),
             whole.sum().alias("sum_units"), (whole * whole).sum().alias("sumsq_units"),
             value.min().alias("min"), value.max().alias("max"),
             pl.col("__order").filter(value.is_not_null()).min().alias("first_row"),
             *[pl.col(s).sort_by("__order").first().alias(s) for s in settings],
             half.alias("n_first"), first.sum().alias("sum_units_first"),
             (first * first).sum().alias("sumsq_units_first"), *extra)
        .sort("first_row")
        .collect(engine="streaming")
        .with_columns(pl.lit(places, dtype=pl.Int64).alias("places"),
                      pl.col("sum_units").cast(pl.String), pl.col("sumsq_units").cast(pl.String),
                      pl.col("n").cast(pl.Int64), pl.col("counted").cast(pl.Int64),
                      pl.col("first_row").cast(pl.Int64), pl.col("n_first").cast(pl.Int64),
                      pl.col("sum_units_first").cast(pl.String), pl.col("sumsq_units_first").cast(pl.String),
                      pl.lit(f"random (seed {SPLIT_SEED})").alias("first_split"), pl.lit(metric).alias("metric"))
    )
    if "seeds" in cells.columns:
        cells = _seed_columns(cells)
    facts = [c for c in FACT_COLUMNS if c in cells.columns]
    return cells.select(*by, *CELL_COLUMNS, *settings, *HALF_COLUMNS, *facts), checked


def _seed_aggregations(seeds: pl.Expr) -> list[pl.Expr]:
    """Per cell, from its seeds as text (``seeds``: the log's seed column): how many distinct, their fingerprint,
    the range they fill when they are whole numbers written plainly, and the list itself (cut later to the short
    ones)."""
    distinct = seeds.unique()
    whole = distinct.cast(pl.Int64, strict=False)
    plain = (whole.cast(pl.String) == distinct).all() & (whole.max() - whole.min() + 1 == distinct.len())
    return [distinct.len().cast(pl.Int64).alias("seed_count"),
            distinct.hash(seed=HASH_SEED).sum().cast(pl.String).alias("seed_hash"),
            pl.when(plain).then(whole.min()).alias("seed_low"), pl.when(plain).then(whole.max()).alias("seed_high"),
            distinct.alias("seeds")]


def _seed_order(logged: str):
    """Seeds in order (``logged``: one run's seed as the log wrote it): numbers by value, then text."""
    try:
        return (0, float(logged), logged)
    except ValueError:
        return (1, 0.0, logged)


def _seed_columns(cells: pl.DataFrame) -> pl.DataFrame:
    """The seeds columns as written: the short lists as JSON text in seed order (every file format
    keeps text, and seeds stay text), empty beyond :data:`SEED_LIST_LIMIT`."""
    lists = [json.dumps(sorted(s, key=_seed_order), ensure_ascii=False) if len(s) <= SEED_LIST_LIMIT else None
             for s in cells["seeds"].to_list()]
    return cells.with_columns(pl.Series("seeds", lists, dtype=pl.String), pl.col("seed_count").cast(pl.Int64),
                              pl.col("seed_low").cast(pl.Int64), pl.col("seed_high").cast(pl.Int64))


def _streamed_cells(log, *, metric: str, by: list[str], fold: bool) -> tuple[pl.DataFrame, Checked] | None:
    """The cell table from the streaming pass of analyze (:mod:`probestats.checks.stream`): the
    table :func:`cell_table` builds from the rows, bit for bit, without holding them (each cell's
    halves drawn from its counts of values, :func:`probestats.analyses.halves.half_sums`); None
    when the log needs its rows (a problem to name, a setting that varies within a cell, seeds the
    pass cannot show distinct and in a range, groups that are not text, cells that start on one row); ``fold``:
    values differing only in case or spaces are one."""
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.checks.stream import streamed_seed_ranges, validate_streaming

    streamed = validate_streaming(log, metric=metric, by=by, fold_case=fold, halves=True)
    if streamed is None or streamed.per is None or streamed.halves is None or not streamed.checked.ok:
        return None
    per, places, checked = streamed.per, streamed.places, streamed.checked
    schema = checked.log.lazy.collect_schema()
    if any(not schema[c] == pl.String for c in by) or per[FIRST].is_duplicated().any():
        return None   # groups the rows read as numbers, or cells whose order only the rows tell
    settings = [s for s in SETTINGS if s in per.columns and s not in by and f"__{s}_max" in per.columns]
    if not per.select(pl.all_horizontal([pl.col(s) == pl.col(f"__{s}_max") for s in settings] or [pl.lit(True)])
                      .all()).item():
        return None   # a setting that varies within a cell: the table keeps its first run's, which the rows tell
    seeded = "seeds" in per.columns
    ranges = streamed_seed_ranges(per) if seeded else None
    if seeded and ranges is None:
        return None   # a cell whose seeds the pass cannot show distinct and in a range: the rows list them
    cell = [*by, "item", "variant"]
    drawn = half_sums(streamed.halves, cell, SPLIT_SEED, names=["item"], places=places)
    per = per.join(drawn.select(*cell, "n_first", "__first_s", "__first_q"), on=cell, how="left", nulls_equal=True,
                   maintain_order="left")
    facts = []
    if seeded:
        low, high = ranges
        lists = [json.dumps([str(k) for k in range(lo, hi + 1)]) if hi - lo + 1 <= SEED_LIST_LIMIT else None
                 for lo, hi in zip(low.to_list(), high.to_list())]
        facts = [pl.col("n").cast(pl.Int64).alias("seed_count"), pl.col("seeds").cast(pl.String).alias("seed_hash"),
                 low.alias("seed_low"), high.alias("seed_high"), pl.Series("seeds", lists, dtype=pl.String)]
    cells = per.select(
        *by, "item", "variant", pl.col("n").cast(pl.Int64), pl.col("counted").cast(pl.Int64),
        pl.lit(places, dtype=pl.Int64).alias("places"), pl.col("__s").cast(pl.String).alias("sum_units"),
        pl.col("__q").cast(pl.String).alias("sumsq_units"), pl.col("__min").cast(pl.Float64).alias("min"),
        pl.col("__max").cast(pl.Float64).alias("max"), pl.col(FIRST).cast(pl.Int64).alias("first_row"),
        *[pl.col(s) for s in settings],
        pl.col("n_first").cast(pl.Int64), pl.col("__first_s").cast(pl.String).alias("sum_units_first"),
        pl.col("__first_q").cast(pl.String).alias("sumsq_units_first"),
        pl.lit(f"random (seed {SPLIT_SEED})").alias("first_split"), pl.lit(metric).alias("metric"), *facts)
    return cells, replace(checked, frame=pl.DataFrame())


def read_cells(path) -> pl.DataFrame:
    """Read a cell table (Parquet, CSV or JSONL) and check its columns."""
    path = Path(path)
    try:
        if path.suffix.lower() == ".parquet" or is_parquet(path):
            cells = pl.read_parquet(path)
        elif path.suffix.lower() in (".jsonl", ".ndjson"):
            cells = pl.read_ndjson(path, infer_schema_length=None)
        else:   # a CSV probestats wrote neutralized the text that would start a formula: undone here
            cells = restored_frame(pl.read_csv(path, infer_schema_length=0))
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise ReadError(f"cannot read the cell table {path}: {str(exc).splitlines()[0]}") from None
    missing = [c for c in CELL_COLUMNS if c not in cells.columns]
    if missing:
        raise ReadError(f"{path} is not a cell table: it lacks {', '.join(missing)} "
                        f"(write one with {_builders()})")
    halves = [c for c in HALF_COLUMNS if c in cells.columns]
    if halves and len(halves) < len(HALF_COLUMNS):
        raise ReadError(f"{path} has {', '.join(halves)} but not "
                        f"{', '.join(c for c in HALF_COLUMNS if c not in halves)}; write the cell table again "
                        f"with {_builders()}")
    text = [pl.col(c).cast(pl.String) for c in ("metric", "seeds", "seed_hash", "runs_units") if c in cells.columns]
    text += [pl.col(c).cast(pl.Int64) for c in ("seed_count", "seed_low", "seed_high") if c in cells.columns]
    return cells.with_columns(*text, pl.col("item").cast(pl.String), pl.col("variant").cast(pl.String),
                              pl.col("sum_units").cast(pl.String), pl.col("sumsq_units").cast(pl.String),
                              *[pl.col(c).cast(pl.Int64) for c in ("n", "counted", "places", "first_row")],
                              *([pl.col("n_first").cast(pl.Int64), pl.col("sum_units_first").cast(pl.String),
                                 pl.col("sumsq_units_first").cast(pl.String), pl.col("first_split").cast(pl.String)]
                                if halves else []))


def _item_table(cells: pl.DataFrame, a: str, b: str, by: Sequence[str]) -> pl.DataFrame:
    """The item table (as :func:`probestats.analyses.items.item_table` gives it) from cells."""
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


#: the seed of the halves a cell table keeps (the within-log noise of a row log analyzed with seed 0)
SPLIT_SEED = 0


def _with_first_half(frame: pl.DataFrame, metric: str, by: Sequence[str] = ()) -> pl.DataFrame:
    """``frame`` with ``__first``: the run is in its cell's first half, drawn per value and item (and
    ``by`` group, the cell named by its item) as :func:`probestats.analyses.halves.random_halves`
    draws value a's halves (seed :data:`SPLIT_SEED`)."""
    frame = frame.with_row_index("__ix")
    valued = frame.filter(pl.col(metric).is_not_null())
    parts = [pl.DataFrame({"__ix": side["__ix"],
                           "__first": first_half_flags(side, metric, [*by, "item"], SPLIT_SEED, names=["item"])})
             for side in valued.partition_by("variant", maintain_order=True)]
    flags = pl.concat(parts) if parts else pl.DataFrame(schema={"__ix": pl.UInt32, "__first": pl.Boolean})
    return (frame.join(flags, on="__ix", how="left", maintain_order="left")
            .with_columns(pl.col("__first").fill_null(False)).drop("__ix"))


def within_cells_noise(cells: pl.DataFrame, a: str, items: pl.DataFrame,
                       ) -> tuple[object | None, str | None, Problem | None]:
    """The within-log noise of :func:`probestats.analyses.noise_check.within_log_noise`, from a cell table.

    Each item's runs of value ``a`` split in two halves, read over every split from the cell's runs, sum and
    sum of squares (:func:`probestats.analyses.noise_check.halves_noise`), items in the order the row
    path gives them (by id as text). The table's own halves (columns :data:`HALF_COLUMNS`, one split drawn
    when it was built) are no longer read, but a table without them, or with halves split by seed order or
    none, is still left without the row as before. Returns ``(halves, source label, None)``, or
    ``(None, None, None)`` where the row log has no such row either (an item with fewer than two
    runs of a value), or ``(None, None, problem)`` where the table cannot give it.

    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": s + (v == "b")}
    ...         for i in (1, 2) for v in "ab" for s in (4, 3, 2, 1)]
    >>> cells, _ = cell_table(rows, metric="steps")
    >>> from probestats.analyses.question import Question
    >>> halves, source, _ = within_cells_noise(cells, "a", analyze_cells(cells, Question("steps")).main.items)
    >>> from probestats.analyses.paired import within_log_noise
    >>> rows_halves = within_log_noise(validate(rows, metric="steps"))[0]
    >>> halves.items.equals(rows_halves.items), halves.average_gap == rows_halves.average_gap, source.endswith("no draw)")
    (True, True, True)
    """
    if not items.height or items.select(pl.col("n_a").min() < 2).item():
        return None, None, None
    if any(c not in cells.columns for c in HALF_COLUMNS):
        return None, None, Problem(
            "warning", "no_within_noise",
            "the cell table has no n_first, sum_units_first, sumsq_units_first and first_split columns (it was "
            "built by an older probestats), so the within-log noise row is left out; build the table again "
            f"with {_builders()}")
    side = cells.filter((pl.col("variant") == a) & pl.col("item").is_in(items["item"].implode())
                        & (pl.col("counted") > 0))
    if side.height and set(side["first_split"].to_list()) == {"none"}:
        return None, None, Problem(
            "warning", "no_within_noise",
            "the cell table carries no halves (the warehouse query cannot draw them at random as the "
            "analysis does), so the within-log noise row is left out; for it, build the table with "
            + either("probestats.analyses.cells.cell_table()", "probestats cells") + ", analyze the row log, or give a same-versus-same "
            "log with " + opt("noise"))
    if side.select(pl.col("item").is_duplicated().any()).item():
        return None, None, Problem(
            "warning", "no_within_noise",
            f"an item's runs of the value are spread over several {opt('by')} groups of the cell table, whose halves "
            "are drawn within each group, not over the item as the analysis draws them; the within-log noise row is "
            f"left out (analyze the row log, or a table built without {opt('by')}, for it)")
    split = side["first_split"].unique().to_list()
    if len(split) != 1 or not str(split[0]).startswith("random"):
        return None, None, Problem(
            "warning", "no_within_noise",
            "the cell table's halves were split by seed or row order (it was built by an older probestats), "
            "which a file sorted by the metric makes unequal; the within-log noise row is left out: build the "
            "table again with " + either("probestats.analyses.cells.cell_table()", "probestats cells"))

    stats = [(item, n, mean_sd(n, int(s), int(q), p)[1]) for item, n, s, q, p in
             side.select("item", "counted", "sum_units", "sumsq_units", "places").iter_rows()]
    spread = pl.DataFrame(stats, schema={"item": pl.String, "n": pl.Int64, "sd": pl.Float64}, orient="row")
    halves = halves_noise(spread, a, items.select("item"))
    if halves.n_items != items.height:
        return None, None, None
    return halves, f"within-log: the runs of value '{a}' in each item {OVER_EVERY_SPLIT}", None


def analyze_cells(cells, question, tests=None, *, within_noise: bool = True, mdg: bool = True) -> Analysis:
    """The paired analysis of :func:`probestats.analyses.paired.analyze_pair`, from a cell table.

    ``cells`` is a path or a frame of the cell table; ``question`` says what is compared (the ``metric``,
    ``a`` and ``b``, ``by`` groups and the ``noise`` cell table; :class:`probestats.analyses.question.Question`)
    and ``tests`` how the tests are run (:class:`probestats.vocabulary.Tests`). Validation ran when the table was
    built (``probestats cells`` refuses a log with errors; ``probestats sql`` prints the
    validation queries to run in the engine), so the only problem added here is
    ``never_significant``; items lacking a value are left out as the row path leaves them.
    With ``within_noise``, the same-versus-same row of the row log (value ``a``'s runs split in
    halves by seed) stands beside the result when the table has the half columns
    (:func:`within_cells_noise`); a table without them gets a ``no_within_noise`` warning instead.
    ``noise`` is the same-versus-same log as a cell table (a path or frame) built with its runs
    (``probestats cells --keep-runs``): its first two values are compared beside the result, and with
    ``mdg`` the minimum detectable gap of the design is simulated from its runs, as the row path does.
    The ``tests``' ``n_resamples`` and ``seed`` serve every bootstrap (of the average gap's interval with
    ``interval="bootstrap"`` or ``"percentile"``, and of the d_av interval), as on the row path;
    ``g_z`` or ``g_av`` apply Hedges' correction to the effect sizes.

    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + (s % 3 == i % 2)}
    ...         for i in range(8) for v in ("formal", "casual") for s in range(1, 6)]
    >>> from probestats.analyses.question import Question
    >>> cells, _ = cell_table(rows, metric="steps")
    >>> result = analyze_cells(cells, Question("steps"))
    >>> result.main.average_gap, result.main.sign_flip.pvalue
    (1.0, 0.0078125)
    """
    tests = as_tests(tests)
    metric, a, b, by, noise = question.metric, question.a, question.b, question.by, question.noise
    alternative, alpha, correction = tests.alternative, tests.alpha, tests.correction
    interval, n_resamples, seed = tests.gap_interval, tests.n_resamples, tests.seed
    source = str(cells) if not isinstance(cells, pl.DataFrame) else "cells"
    frame = cells if isinstance(cells, pl.DataFrame) else read_cells(cells)
    _check_metric(frame, metric, source)
    by = list(column_names("by", by))
    absent = [c for c in by if c not in frame.columns]
    if absent:
        raise OptionError(f"{opt('by', absent[0])}: the cell table has no such column; build it with "
                          + either(f"by=[{absent[0]!r}]", f"--by {absent[0]}"))
    order = frame.group_by("variant").agg(pl.col("first_row").min()).sort("first_row")["variant"].to_list()
    a, b = default_pair(order, a, b)
    for name, v in (("a", a), ("b", b)):
        if v is None or v not in order:
            raise OptionError(f"{opt(name, v)}: not a value of the cell table (values: {', '.join(order[:10])})")
    # one row per item and value across groups, summed exactly, for the main comparison
    merged = frame
    if by:
        merged = (frame.with_columns(pl.col("sum_units").cast(pl.Int128), pl.col("sumsq_units").cast(pl.Int128))
                  .group_by("item", "variant")
                  .agg(pl.col("counted").sum(), pl.col("places").first(), pl.col("sum_units").sum(),
                       pl.col("sumsq_units").sum(), pl.col("first_row").min())
                  .with_columns(pl.col("sum_units").cast(pl.String), pl.col("sumsq_units").cast(pl.String)))
    if interval not in ("t", "bootstrap", "percentile", "sign-flip"):
        raise OptionError(f"interval must be 't', 'bootstrap', 'percentile' or 'sign-flip', not {interval!r}")
    table = _item_table(merged, a, b, ())
    units, unpermuted = _item_runs(frame, table, metric, a, b, by)
    main = compare_pair(table, metric, a, b, tests, units=units)
    groups = []
    if by:
        grouped = _item_table(frame, a, b, by)
        for key in grouped.select(by).unique(maintain_order=True).iter_rows(named=True):
            mask = pl.all_horizontal([pl.col(k) == v if v is not None else pl.col(k).is_null() for k, v in key.items()])
            groups.append(compare_pair(grouped.filter(mask).drop(by), metric, a, b, tests,
                                       by={k: key_json(v) for k, v in key.items()}))
        adjusted = adjust([g.sign_flip.pvalue for g in groups], correction)
        groups = [replace(g, p_adjusted=p) for g, p in zip(groups, adjusted)]
    agreement = None
    if len(groups) >= 2:   # the headline averages these groups: do they agree? (as the row path asks)
        agreement = block_agreement(grouped, groups, list(by), tests, a=a, b=b)
    noise_table, noise = noise, None
    noise_source = noise_checked = None
    problems = []
    mdg_value, mdg_room, mdg_near, mdg_detail = None, None, False, None
    if noise_table is not None:
        noise_frame = noise_table if isinstance(noise_table, pl.DataFrame) else read_cells(noise_table)
        noise_checked = cells_checked(noise_frame, metric, rows=True, what=opt("noise"),
                                      source="noise" if isinstance(noise_table, pl.DataFrame)
                                      else Path(noise_table).name)
        if noise_frame.select(pl.struct("item", "variant").is_duplicated().any()).item():
            raise OptionError("the noise cell table has several rows for one item and value (it was built with "
                              f"{opt('by')}); build it without {opt('by')}")
        noise = compare_pair(_item_table(noise_frame, noise_checked.a, noise_checked.b, ()), metric,
                             noise_checked.a, noise_checked.b, tests)
        noise_source = "noise log"
        if mdg:
            mdg_value, mdg_room, mdg_near, mdg_detail = probe_mdg(noise_checked, metric, main, tests)
    elif within_noise:
        noise, noise_source, note = within_cells_noise(frame, a, main.items)
        problems += [note] if note is not None else []
    problems = design_problems(main, alpha) + problems + unpermuted
    checked = replace(cells_checked(frame, metric, source=source), a=a, b=b, values=tuple(order))

    facts = item_facts(table, metric, a, b, cells=frame.filter(pl.col("counted") > 0))
    verdict = with_design(_verdict(main, noise, noise_source, noise_checked, tests, within_noise, a, agreement),
                          facts)
    if by:
        verdict = with_caveats(verdict, *group_constant_caveats(grouped, list(by), metric, a, b, facts))
    return Analysis(main=main, noise=noise, groups=tuple(groups), problems=tuple(problems),
                    alternative=alternative, alpha=alpha, correction=correction, checked=checked,
                    noise_checked=noise_checked, mdg=mdg_value, mdg_detail=mdg_detail, mdg_room=mdg_room,
                    mdg_near_bound=mdg_near, noise_source=noise_source, verdict=verdict)


def _item_runs(frame: pl.DataFrame, table: pl.DataFrame, metric: str, a: str, b: str, by) -> tuple[dict | None, list]:
    """With runs per item that differ by design (not a run or a few missing), each item's runs for the within-item permutation (from a
    table built with its runs), or the warning that the headline stays the sign-flip test (as the row path says
    when it cannot keep the runs); ``(None, [])`` when the runs are equal."""
    if not table.height or not arms_unequal(table["n_a"].to_list(), table["n_b"].to_list()):
        return None, []
    if "runs_units" in frame.columns and not by:
        return item_units(cell_rows(frame, metric), metric, a, b), []

    return None, [unpermuted_problem("which this cell table does not keep; build it with "
                                     + either("runs=True", "--keep-runs") + " to have it")]


def _verdict(main, noise, noise_source, noise_checked, tests, within_noise: bool, a: str, agreement=None):
    """The verdict of a cell table's analysis, decided as the row path decides it, at the ``tests``' level."""
    alpha = tests.alpha
    if noise is not None and noise_source == "noise log":
        check = noise_check_of("log", f"the noise log's values '{noise.a}' and '{noise.b}'", noise, alpha,
                             causes=lambda: noise_log_causes(noise_checked))
    elif noise is not None:
        check = halves_check("within", noise_source.removeprefix("within-log: "), noise)
    elif within_noise:
        one = main.items.height and main.items["n_a"].min() < 2
        check = NoiseCheck("within", "no same-versus-same comparison within the log", False,
                           reason=one_run_reason(a) if one else "the cell table cannot give the halves of its cells")
    else:
        check = NoiseCheck("none", "no same-versus-same comparison", False, reason="none was asked for")
    return decide(main, check, alpha=alpha, agreement=agreement)


def _check_metric(frame: pl.DataFrame, metric: str, source: str) -> None:
    """Refuse a table built for another metric (tables without a ``metric`` column are taken on trust)."""
    if "metric" in frame.columns and frame.height:
        built = frame["metric"].drop_nulls().unique(maintain_order=True).to_list()
        if built and metric not in built:
            raise OptionError(f"{opt('metric', metric)}: the cell table {source} was built for the metric "
                              f"'{built[0]}'; give {opt('metric', built[0])}, or build a table for {metric}")


def _value_order(frame: pl.DataFrame) -> list[str]:
    """The table's values in order of appearance (of their first run with a value)."""
    return frame.group_by("variant").agg(pl.col("first_row").min()).sort("first_row")["variant"].to_list()


def cell_rows(cells, metric: str, *, what: str = "the cell table") -> pl.DataFrame:
    """The runs of a cell table built with its runs (``runs_units``): item, variant and the metric,
    cells in order of appearance and each cell's runs in row order, the values exactly as the log
    wrote them (whole units over ``10**places``, correctly rounded). This is what ``plan`` reads
    from a noise or pilot log.

    >>> rows = [{"item": 1, "variant": v, "seed": s, "x": x} for v in "ab" for s, x in ((3, 0.3), (1, 2.5), (2, 0.7))]
    >>> cells, _ = cell_table(rows, metric="x", runs=True)
    >>> cell_rows(cells, "x")["x"].to_list() == [r["x"] for r in rows]
    True
    """
    frame = cells if isinstance(cells, pl.DataFrame) else read_cells(cells)
    if "runs_units" not in frame.columns:
        raise OptionError(f"{what}: the cell table has no runs_units column, and the noise model resamples "
                          "runs; build it with " + either("cell_table(..., runs=True)", "probestats cells --keep-runs"))
    items, variants, values = [], [], []
    for item, variant, places, text in frame.sort("first_row", nulls_last=True).select(
            "item", "variant", "places", "runs_units").iter_rows():
        scale = 10 ** int(places)
        units_ = [int(u) for u in (text or "").split()]
        items += [item] * len(units_)
        variants += [variant] * len(units_)
        values += [u / scale for u in units_]  # an int over a power of ten: correctly rounded
    return pl.DataFrame({"item": items, "variant": variants, metric: values},
                        schema={"item": pl.String, "variant": pl.String, metric: pl.Float64})


def cells_checked(cells, metric: str, *, source: str | None = None, rows: bool = False,
                  what: str = "the cell table") -> Checked:
    """A :class:`~probestats.checks.schema.Checked` standing for the log a cell table was built from,
    for what reads a log's facts rather than its sums (the report's design section, the before and
    after comparison): one row per cell and seed with the item, value, seed and settings the table
    keeps, ``--by`` columns included (with ``rows``: the runs themselves, :func:`cell_rows`); the
    log's frame adds the cells' first and last times. Its metric column is empty: the sums stay in the table.
    """
    if source is None:  # a file's name, as a log's source is
        source = Path(cells).name if not isinstance(cells, pl.DataFrame) else "cells"
    frame = cells if isinstance(cells, pl.DataFrame) else read_cells(cells)
    _check_metric(frame, metric, source)
    order = _value_order(frame)
    if rows:
        facts = cell_rows(frame, metric, what=what)
    else:
        known = {*CELL_COLUMNS, *HALF_COLUMNS, *FACT_COLUMNS, *SETTINGS}
        settings = [c for c in frame.columns if c not in known] + [c for c in SETTINGS if c in frame.columns]
        table = frame.sort("first_row", nulls_last=True)
        seeds = _table_seeds(table) if "seeds" in frame.columns else None
        out = []
        for i, cell in enumerate(table.select("item", "variant", *settings).iter_rows(named=True)):
            for seed in (seeds[i] or [None]) if seeds is not None else [None]:
                out.append({**cell, **({"seed": seed} if seeds is not None else {})})
        facts = pl.DataFrame(out, schema={"item": pl.String, "variant": pl.String,
                                          **{c: frame.schema[c] for c in settings},
                                          **({"seed": pl.String} if seeds is not None else {})}, orient="row")
        facts = facts.with_columns(pl.lit(None, dtype=pl.Float64).alias(metric))
    whole = facts
    if "time_min" in frame.columns:  # the log's range of times: each cell's first and last, after the cells
        table = frame.sort("first_row", nulls_last=True)
        times = pl.concat([table["time_min"], table["time_max"]]).alias("time")
        whole = pl.concat([facts, pl.DataFrame([times])], how="diagonal_relaxed")
    log = Log(lazy=whole.lazy(), columns={}, source=source, headers=tuple(frame.columns))
    a, b = (order + [None, None])[:2]
    stated = None
    if not rows and "seeds" in frame.columns:   # the seeds a report counts: the table's, not the stand-ins

        stated = LogFacts(row_facts(whole, facts, metric).columns, _seeds_stated(frame))
    return Checked(frame=facts, metric=metric, a=a, b=b, values=tuple(order), problems=(), log=log, facts=stated)


def _table_seeds(table: pl.DataFrame) -> list[list[str]]:
    """Each cell's seeds as its facts list them: the seeds themselves when the table lists them, else
    one text standing for them that is equal for equal sets (their count and range, or their
    fingerprint), so before and after tables compare them alike."""
    out = []
    cols = [c for c in ("seeds", "seed_count", "seed_hash", "seed_low", "seed_high") if c in table.columns]
    for cell in table.select(cols).iter_rows(named=True):
        if cell["seeds"]:
            out.append(json.loads(cell["seeds"]))
        elif cell.get("seed_count"):
            count, low, high = cell["seed_count"], cell.get("seed_low"), cell.get("seed_high")
            out.append([f"{count} seeds ({low} to {high})" if low is not None
                        else f"{count} seeds (fingerprint {cell.get('seed_hash')})"])
        else:
            out.append([])
    return out


def _seeds_stated(frame: pl.DataFrame):
    """The table's distinct seeds (:class:`probestats.checks.facts.LogFacts` ``seeds``) from its lists
    and ranges; None when some cell has neither (its seeds are known by their fingerprint alone)."""
    texts, spans = set(), set()
    cols = [c for c in ("seeds", "seed_low", "seed_high") if c in frame.columns]
    for cell in frame.select(cols).iter_rows(named=True):
        if cell["seeds"]:
            texts.update(json.loads(cell["seeds"]))
        elif cell.get("seed_low") is not None:
            spans.add((cell["seed_low"], cell["seed_high"]))
        elif "seed_count" in frame.columns:
            return None
    if not texts:
        return seed_union(sorted(spans))
    for lo, hi in spans:
        texts.update(str(k) for k in range(lo, hi + 1))
    return seed_facts(sorted(texts))



def compare_cells(before, after, question, tests=None, *, names: tuple[str, str] | None = None):
    """:func:`probestats.analyses.compare.compare_runs` from two cell tables (paths or frames): what is compared
    (``question``: the metric, ``a`` and ``b``) and how it is tested (``tests``: direction and level).

    The same checks (items, values and, when both tables keep them, seeds: the listed ``seeds``, or
    beyond the list their count with their range or fingerprint),
    the same analyses (:func:`analyze_cells`) and the same change test, so the result equals the row
    logs'. Validation warnings of the logs are not in the tables (``probestats cells`` printed them).

    >>> before = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + s % 2}
    ...           for i in range(6) for v in ("formal", "casual") for s in (1, 2)]
    >>> after = [dict(r, steps=4 + r["seed"] % 2) for r in before]
    >>> from probestats.analyses.question import Question
    >>> result = compare_cells(cell_table(before, metric="steps")[0], cell_table(after, metric="steps")[0],
    ...                        Question("steps"))
    >>> result.change_average_gap, result.change_test.pvalue
    (-1.0, 0.03125)
    """
    tests = as_tests(tests)
    metric, a, b = question.metric, question.a, question.b
    cb, ca = (cells_checked(t, metric, source=s) for t, s in
              ((before, None if names is None else names[0]), (after, None if names is None else names[1])))
    if names is None:
        names = ("BEFORE", "AFTER") if cb.log.source == ca.log.source else (cb.log.source, ca.log.source)
    for name, v in (("a", a), ("b", b)):
        if v is not None and v not in cb.values:
            raise OptionError(f"{opt(name, v)}: not a value of the cell table (values: {', '.join(cb.values[:10])})")
    if a is not None or b is not None:  # the default pair: the first values other than the one given
        a, b = default_pair(cb.values, a, b)
    else:
        a, b = cb.a, cb.b
    problems = comparable_problems(cb, ca, metric=metric, names=names,
                                   values=(a, b) if a is not None and b is not None else None)
    if problems:
        raise NotComparableError(problems)
    # each table's analysis at the direction and level asked, with the default resampling and correction
    kw = (replace(question, a=a, b=b, by=(), noise=None), Tests(alternative=tests.alternative, alpha=tests.alpha))
    res_b = analyze_cells(before if isinstance(before, pl.DataFrame) else read_cells(before), *kw)
    res_a = analyze_cells(after if isinstance(after, pl.DataFrame) else read_cells(after), *kw)
    res_b = replace(res_b, checked=replace(res_b.checked, log=cb.log))
    res_a = replace(res_a, checked=replace(res_a.checked, log=ca.log))
    return compare_results(res_b, res_a, names=names, alternative=tests.alternative,
                           seeds_checked="seed" in cb.frame.columns and "seed" in ca.frame.columns)
