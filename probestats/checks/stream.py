"""Validation of a large log in a streaming pass: memory grows with items x values, not rows.

:func:`validate_streaming` reads only the columns validation needs (item, value, metric, seed,
held-fixed settings) through polars' streaming engine and summarizes them into one row per
item x value x metric value, which it then combines into one row per item x value (so memory
grows with the distinct metric values per cell too, a few for a metric of small whole numbers): the cells :func:`probestats.checks.schema.validate` would compute, with exact sums
of the metric in whole units of ``10**-places`` (64-bit integers; the places are read from the
first rows and checked on every row, and bounds checked after the pass rule out an overflow),
plus counters that say whether the log has any problem that needs its rows: blank or non-numeric
metric cells, blank ids, values written with spaces, repeated seeds, settings that differ between
values, a time column, and so on.

Seeds are shown distinct without holding them: a cell's seeds are the whole numbers from its
smallest to its largest, or a list the first rows show whole with no seed twice, when the sum of
their 64-bit hashes (and their count) equals that range's or that list's. Different sets with
equal sums need a hash collision (about 2**-64 per cell), the same fingerprint validate compares
seed sets by.

When it has none, the result is the :class:`~probestats.checks.schema.Checked` that
:func:`~probestats.checks.schema.validate` gives (same problems, same cells, so the same item
table and tests, bit for bit), without the rows (``frame`` is empty). When it has one, it
returns None, and the caller runs :func:`~probestats.checks.schema.validate`, which names every
problem with the rows a person would look at.

The pass guesses from the first rows what it can read cheaply: a metric written as plain whole
numbers and a temperature written as text are parsed by the CSV reader itself, and every held-fixed
setting is compared with the first row's. A log the guess does not fit (a number written otherwise
later on, settings that vary between items) is read again by a general pass that reads the text and
keeps each cell's settings; so a log is read once, or twice, before validate is left to it.

With ``halves``, the same pass also counts how often each value occurs in each cell (one row
per cell and value, ``Streamed.halves``): all that the within-log noise's halves, drawn at random
within cells (:func:`probestats.analyses.halves.half_sums`), need. Its size grows with the distinct
values per cell, not with the runs.

The other commands read their logs through this pass too: ``report`` asks for the facts its design
section states (``facts``: each other column that may be a setting, read as its smallest and largest
value per cell, and the compared values' seeds; :mod:`probestats.checks.facts`), ``cells`` writes its
table from the cells of every value (``Streamed.per``), and ``compare`` checks two logs against each
other on their cells.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Callable, NamedTuple, Sequence

import polars as pl

from probestats.checks.cell_summary import FIRST, HASH_SEED, SETTINGS, seen_per_item, side_by_side
from probestats.checks.columns import as_id_text, is_text, list_columns
from probestats.checks.facts import LogFacts, candidates, seed_facts, seed_union, temperatures
from probestats.checks.matched import mixed_setting, seed_mismatch, unequal_runs
from probestats.checks.metric import deterministic, sorted_order
from probestats.checks.schema import Checked
from probestats.checks.values import choose_values, near_duplicates
from probestats.errors import OptionError, has_errors
from probestats.io.columns import ROW, refuse_internal
from probestats.io.failures import panic_quiet
from probestats.io.log import Log, collect, typed_rows
from probestats.io.read import read_log
from probestats.stats.exact import row_places, with_exact_moments

__all__ = ["PassOptions", "Streamed", "validate_streaming"]

_SEED_NUMBER = "__seed_number"   # the pass's column of each row's seed read as a number (null for text)
_HEAD = 50_000  # rows read first: the metric's decimal places, the seeds, the settings


@dataclass(frozen=True)
class Streamed:
    """What :func:`validate_streaming` found: the validated log (without rows) and, when asked for,
    how often each value occurs in each cell (``halves``: ``item``, the ``by`` columns, ``variant``,
    the value in whole units ``__units``, its runs ``__count``; cells in the order of ``per``)."""

    checked: Checked
    halves: pl.DataFrame | None = None
    #: with ``by``: the cells of the whole log (one row per item, both values side by side), from
    #: which the item table of the main comparison is made (``checked.pairs`` are split by ``by``)
    main: pl.DataFrame | None = None
    #: the pass's sums of every cell (every value, not only the compared pair), settings read as
    #: validation reads them: what :func:`probestats.analyses.cells.cell_table` writes
    per: pl.DataFrame | None = None
    #: the metric's decimal places: ``per``'s sums are whole units of ``10**-places``
    places: int | None = None
    #: with ``clusters``: one row per item (``item`` as text), each chosen column's value (as text) and
    #: ``<column>\x00constant``, whether the item holds that one value in every run (blank in all counts as one)
    clusters: pl.DataFrame | None = None


@dataclass(frozen=True)
class PassOptions:
    """How the streaming pass runs, beyond the comparison it validates.

    Attributes
    ----------
    same_seeds : bool
        Warn when the two values' cells were run with different seeds (as validation does).
    facts : bool
        Also what a report states of the log's settings and seeds (``checked.facts``, see :func:`_column_facts`).
    progress : callable, optional
        Called with the name of each stage.
    clusters : callable, optional
        Chooses, from the log's columns, those whose one value per item the pass also reads
        (``Streamed.clusters``: the cluster suggestion's candidates, read here rather than in a pass of their own).
    read : mapping
        How a log given as a path is read (:func:`probestats.read_log`'s options).
    """

    same_seeds: bool = True
    facts: bool = False
    progress: Callable[[str], None] | None = None
    clusters: Callable[[Sequence[str]], Sequence[str]] | None = None
    read: Mapping = field(default_factory=dict)


class _Asked(NamedTuple):
    """What the pass validates (the compared values ``a`` and ``b``, the ``by`` columns) and what it found of the
    log: the cells' keys (item and the ``by`` columns), the held-fixed settings, whether runs have seeds and the
    log replies, and how the value column is read as text."""

    metric: str
    a: str | None
    b: str | None
    by: list
    fold_case: bool
    same_seeds: bool
    keys: list
    settings: list
    seeded: bool
    reply: bool
    variant: pl.Expr


def validate_streaming(log, *, metric: str, a: str | None = None, b: str | None = None, by: Sequence[str] = (),
                       fold_case: bool = False, halves: bool = False,
                       options: PassOptions = PassOptions()) -> Streamed | None:
    """Validate ``log`` in a streaming pass; None when it needs the rows (see the module docstring).

    ``metric``, ``a``, ``b``, ``by`` and ``fold_case`` are those of :func:`probestats.checks.schema.validate`;
    ``halves`` asks for each cell's counts of its values (the within-log noise's halves); ``options`` how the
    pass runs (:class:`PassOptions`: the seeds' check, the facts a report states, progress, the clusters' columns,
    how a path is read).

    >>> from probestats.checks.schema import validate
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 3 + s % 2 + (v == "a")}
    ...         for i in (1, 2, 3) for v in ("a", "b") for s in (1, 2, 3, 4)]
    >>> streamed = validate_streaming(rows, metric="steps")
    >>> eager = validate(rows, metric="steps")
    >>> streamed.checked.pairs.equals(eager.pairs), streamed.checked.problems == eager.problems
    (True, True)
    >>> validate_streaming(rows[:-1] + [dict(rows[-1], steps="four")], metric="steps") is None
    True
    """
    by = list(by)
    if metric is None or metric in ("item", "variant", ROW) or any(c in ("item", "variant", ROW) for c in by):
        return None
    try:  # a name probestats uses itself: validate refuses it with the way round
        for option, name in [("metric", metric), *(("by", c) for c in by)]:
            refuse_internal(option, name)
    except OptionError:
        return None
    log = read_log(log, **{"metric": metric, **options.read})
    schema = log.lazy.collect_schema()
    present = set(schema.names())
    if not {"item", "variant", metric, *by} <= present or "time" in present:
        return None   # a missing column is reported by validate; alternation needs the runs' times
    wanted = ["item", "variant"] + [c for c in ("seed", "run_id", *SETTINGS) if c in present]
    wanted += [c for c in by if c not in wanted]
    if metric not in wanted:
        wanted.append(metric)
    if list_columns(log, schema, wanted):
        return None
    settings = [s for s in SETTINGS if s in present and s not in by]
    if "temperature" in by:
        return None   # validate reads the groups' temperatures as numbers ("0.8" and "0.80" one group)
    read = _reading(log, schema, metric, by, settings)
    if read is None:
        return None
    x, text, setting = read
    extra = _fact_columns(schema, metric, settings, by) if options.facts else []
    if extra is None:
        return None   # a column of a type the report reads from the rows
    asked = _Asked(metric, a, b, by, fold_case, options.same_seeds, ["item", *by], settings, "seed" in present,
                   "reply" in present, text["variant"])
    head = _head(log, text, x, asked.keys, setting)
    if head.places is None:
        return None   # values that are not short decimals: validate averages them with fractions
    if options.progress:
        options.progress(f"reading {log.source}")
    nested = _cluster_columns(schema, present, options.clusters)
    per, counts = _read_cells(log, asked, head, (x, text, setting), (extra, nested), options)
    if per is None:
        return None   # validate reads the log again and says what is wrong with it
    per, nesting = _cluster_items(per, nested)
    if options.progress:
        options.progress("checking the cells")
    columns = _column_facts(per, schema, metric, settings, by, extra, head.firsts) if options.facts else None
    if options.facts and columns is None:
        return None
    streamed = _finish(per, log, asked, head, counts if halves else None)
    if streamed is not None and nesting is not None:
        streamed = replace(streamed, clusters=nesting)
    if streamed is None or not options.facts:
        return streamed
    seeds = _seed_facts(per, log, streamed.checked.a, streamed.checked.b, text) if asked.seeded else None
    return replace(streamed, checked=replace(streamed.checked, facts=LogFacts(columns, seeds)))


def _reading(log: Log, schema: pl.Schema, metric: str, by: list, settings: list):
    """How the pass reads the metric (as a number, blank for not a number), the ids and values (as text, written
    as they are), and the held-fixed settings; None when validate reads them better from the rows."""
    dtype = schema[metric]
    raw = pl.col(metric)
    if dtype == pl.String:
        if not log._read.get("delimited"):
            return None   # numbers stored as text in JSON or a sheet: validate words that warning
        x = raw.cast(pl.Float64, strict=False)   # a cell with spaces gives null: validate reads it
    elif dtype.is_numeric() or dtype == pl.Boolean:
        x = raw.cast(pl.Float64)
    else:
        return None
    x = x.fill_nan(None).alias(metric)   # not a number is a blank cell, which validate reports
    present = set(schema.names())
    # text is read as written, without the copies that stripping spaces makes; a value with spaces
    # around it shows in the cells (or fails to parse as a number), and validate takes over
    as_text = {c: pl.col(c) if schema[c] == pl.String else as_id_text(pl.col(c), schema[c]).alias(c)
               for c in ["item", "seed", "model", "system", *by] if c in present}
    # values are grouped as written: spaces around one show in the cells (then validate reports them)
    as_text["variant"] = pl.col("variant").cast(pl.String) if is_text(schema["variant"]) else as_id_text(
        pl.col("variant"), schema["variant"]).alias("variant")
    text = {c: e for c, e in as_text.items() if c not in settings}
    setting = {c: e for c, e in as_text.items() if c in settings}
    if "temperature" in settings:
        t = schema["temperature"]
        if t.is_numeric():
            temp = pl.col("temperature").cast(pl.Float64).fill_nan(None)
            setting["temperature"] = pl.when(temp == 0).then(0.0).otherwise(temp).alias("temperature")
        elif t == pl.String:   # compared as written in the pass; read as a number in the cells
            setting["temperature"] = pl.col("temperature")
        else:
            return None
    return x, text, setting


def _read_cells(log: Log, asked: _Asked, head: _Head, read: tuple, columns: tuple, options: PassOptions):
    """The pass over the rows: each cell's sums (``per``) and, per cell and value, the counts (the halves'),
    read as cheaply as the first rows allow and again as text when the guess does not fit; ``per`` is None when
    validate must read the rows. ``read``: the metric, the ids as text and the settings (:func:`_reading`);
    ``columns``: the facts' columns and the clusters' columns also read."""
    (x, text, setting), (extra, nested) = read, columns
    schema = log.lazy.collect_schema()
    metric, by, places = asked.metric, asked.by, head.places
    identity = [*text.values(), pl.col(ROW), *[pl.col(c) for c in extra],
                *[pl.col(c).cast(pl.String).alias(f"__cluster{i}") for i, c in enumerate(nested)]]
    if asked.seeded:   # the seeds as numbers, cast once for the three sums that read them (a cast per sum cost a tenth of the pass)
        identity.append(text["seed"].cast(pl.Float64, strict=False).alias(_SEED_NUMBER))
    common = dict(seeded=asked.seeded, reply=asked.reply, settings=asked.settings)
    fact_aggs = _fact_aggregations(extra, schema) + _cluster_aggregations(nested)
    rows, typed, firsts, plain, written = _fast_rows(log, metric, schema, head, identity, setting)
    per, counts = _pass(rows, by, _aggregations(metric, places, plain=plain, written=written, firsts=firsts,
                                                **common) + fact_aggs, _units(metric, places, plain))
    if (per is None and typed) or (per is not None and "__general" in per.columns and per["__general"].sum()):
        # a number the reader could not parse, a value not written as a plain whole number, or
        # settings that vary: the general pass reads the text and keeps each cell's settings
        if options.progress:
            options.progress(f"reading {log.source} again, as text")
        per, counts = _pass(log.lazy.select(identity + list(setting.values()) + [x]), by,
                            _aggregations(metric, places, **common) + fact_aggs, _units(metric, places, False))
    elif per is not None:
        if plain:   # whole numbers have no finer places
            per = per.with_columns(pl.lit(0, pl.UInt32).alias("__finer"))
        if firsts is not None:   # every row holds the first row's settings
            held = {s: pl.lit(value, pl.String if isinstance(value, str) else pl.Float64)
                    for s, value in firsts.items()}
            per = per.with_columns(*[v.alias(s) for s, v in held.items()],
                                   *[v.alias(f"__{s}_max") for s, v in held.items()],
                                   *[pl.lit(0, pl.UInt32).alias(f"__{s}_nulls") for s in held])
    return per, counts


def _units(metric: str, places: int, plain: bool) -> pl.Expr:
    """The metric in whole units of ``10**-places`` (a value with more places shows in ``__finer``)."""
    v = pl.col(metric)
    return (v if plain else (v if places == 0 else (v * 10**places).round()).cast(pl.Int64)).alias("__units")


def _aggregations(metric: str, places: int, *, seeded: bool, reply: bool,
                 settings: Sequence[str], plain: bool = False, written: bool = False,
                 firsts: dict | None = None) -> list[pl.Expr]:
    """The pass's sums per cell (see the module docstring).

    ``plain``: the metric column holds whole numbers read as integers; with ``written``, the column
    ``__written`` says which cells had text (a cell with text but no integer is not plain).
    ``firsts``: the value of each setting in the first row, which every row is compared with (one
    sum, ``__general``, counts the rows that differ and the values that are not plain whole
    numbers: then the general pass, without ``plain`` and ``firsts``, reads the log).
    """
    v = pl.col(metric)
    # whole units of 10**-places; a value with more places shows in __finer and validate takes over
    whole = _units(metric, places, plain)
    aggs = [pl.len().alias("n"), pl.col(ROW).min().alias(FIRST), pl.col(ROW).max().alias("__last"),
            v.count().alias("counted"), v.min().alias("__min"), v.max().alias("__max"), whole.sum().alias("__s"),
            (whole * whole).sum().alias("__q")]
    general = [pl.col("__written") & v.is_null()] if written else []
    if not plain:
        aggs.append((v.round(places) != v).sum().alias("__finer"))
    if reply:
        aggs.append((v == 0).sum().alias("__zeros"))
    if seeded:
        seed, sf = pl.col("seed"), pl.col(_SEED_NUMBER)
        # the seeds' hashes as written: equal to validate's (of the stripped text) once _distinct_seeds
        # finds every seed a whole number written plainly
        # (a blank seed makes __seed_numbers fall short of the runs, and validate takes over)
        aggs += [seed.hash(seed=HASH_SEED).sum().alias("seeds"), sf.min().alias("__seed_lo"),
                 sf.max().alias("__seed_hi"), sf.count().alias("__seed_numbers")]
    if firsts is not None:
        general += [pl.col(s).ne_missing(pl.lit(value)) for s, value in firsts.items()]
    else:
        for s in settings:
            c = pl.col(s)
            aggs += [c.min().alias(s), c.max().alias(f"__{s}_max"), c.null_count().alias(f"__{s}_nulls")]
    if general:
        aggs.append(pl.any_horizontal(general).sum().alias("__general"))
    return aggs


#: aggregations of one streaming pass over the log (a wider log is read in several passes, joined by cell)
AGGREGATIONS_PER_PASS = 300


def _pass(rows: pl.LazyFrame, by: Sequence[str], aggs: list[pl.Expr],
          units: pl.Expr) -> tuple[pl.DataFrame | None, pl.DataFrame | None]:
    """The cells of ``rows`` (one row per item x ``by`` x value, in order of appearance) and the runs
    of each metric value (``units``, in whole units) in each cell; None when polars cannot read the log.

    The pass groups the rows by cell and metric value (every aggregation of ``aggs`` combines from
    such groups, see :func:`_combined`), so the same read gives both, with memory that grows with the
    distinct values per cell; the steps up and down between runs in row order (a metric sorted
    within cells) are told from each value's first and last row."""
    keys = ["item", *by, "variant"]
    try:
        with panic_quiet():
            fine = None
            # a few hundred aggregations a pass: the streaming engine keeps buffers per aggregation and thread,
            # so a log of thousands of columns in one pass mapped gigabytes and aborted under a 4 GB limit
            for start in range(0, len(aggs), AGGREGATIONS_PER_PASS):
                part = rows.group_by([*keys, units]).agg(aggs[start:start + AGGREGATIONS_PER_PASS]).collect(
                    engine="streaming")
                fine = part if fine is None else fine.join(part, on=[*keys, "__units"], how="left",
                                                           nulls_equal=True)
    except (pl.exceptions.PolarsError, pl.exceptions.PanicException):
        return None, None
    return _combined(fine, keys), fine.select(*keys, "__units", pl.col("n").alias("__count"))


def _combined(fine: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """The cells from their groups by metric value: counts and sums added (hash sums wrap as one sum
    does), smallest and largest taken; ``__up`` (``__down``) counts the neighbouring values of a cell
    whose rows show a step up (down) between them, so it is 0 exactly when no step between runs in
    row order goes up (down): the rows of each value then all come before those of the next larger
    (smaller) one."""
    added = {"n", "counted", "__s", "__q", "__finer", "__zeros", "seeds", "__seed_numbers", "__general"}
    largest = {"__max", "__seed_hi", "__last"}
    aggs = []
    for c in fine.columns:
        if c in (*keys, "__units"):
            continue
        if c in added or c.endswith("_nulls") or c.endswith("_odd"):
            aggs.append(pl.col(c).sum().cast(fine.schema[c]))
        elif c in largest or c.endswith("_max") or c.endswith("_hi"):
            aggs.append(pl.col(c).max())
        else:
            aggs.append(pl.col(c).min())
    ordered = fine.sort([*keys, "__units"], nulls_last=True)
    # the row before, where it is of the same cell (the cells are runs of rows once sorted; a shift
    # of the whole column with this mask is a shift within each cell, without a window per cell)
    same = pl.all_horizontal([pl.col(k).eq_missing(pl.col(k).shift(1)) for k in keys])
    steps = ordered.with_columns(
        (same & (pl.col("__last").shift(1) > pl.col(FIRST))).fill_null(False).alias("__down"),
        (same & (pl.col(FIRST).shift(1) < pl.col("__last"))).fill_null(False).alias("__up"))
    return (steps.group_by(keys).agg(*aggs, pl.col("__up").sum(), pl.col("__down").sum())
            .sort(FIRST).drop("__last"))


class _Head(NamedTuple):
    places: int | None            #: the metric's decimal places; None when some value is not a short decimal
    exemplars: pl.DataFrame | None   #: the seeds of each cell seen (see _seed_lists)
    plain: bool                   #: every metric value written as a plain whole number ("4", not "4.0")
    firsts: dict                  #: each setting's value in the first row
    temperature: float | None     #: the first row's temperature as a number (0 for -0; None for NaN, blank or text)


def _fast_rows(log: Log, metric: str, schema: pl.Schema, head: "_Head", identity: list[pl.Expr],
               setting: dict[str, pl.Expr]):
    """The rows of the first pass, read as cheaply as the first rows allow, and how to sum them.

    Numbers are parsed by the CSV reader where they can be (:func:`~probestats.io.log.typed_rows`):
    a metric written as plain whole numbers as 64-bit integers, a temperature written as text as a
    float (the reader takes what validation reads as the same number, spaces before it included, and
    raises on the rest, which the general pass then reads). Each setting is compared
    with the first row's value (one sum for them all) when the first row has every one.

    Returns the rows, whether some column is parsed by the reader, the first row's settings (or
    None), whether the metric is read as integers, and whether a ``__written`` column flags the
    cells with text (a metric cast from text: a cell that is not a plain whole number is null).
    """
    dtype = schema[metric]
    plain = head.places == 0 and (dtype.is_integer() or (dtype == pl.String and head.plain))
    firsts = dict(head.firsts)
    dtypes = {}
    if plain and dtype == pl.String:
        dtypes[metric] = pl.Int64
    if "temperature" in setting and schema["temperature"] == pl.String:
        dtypes["temperature"] = pl.Float64
        firsts["temperature"] = head.temperature
    rows = typed_rows(log, dtypes) if dtypes else None
    if rows is None:
        rows, dtypes, firsts = log.lazy, {}, dict(head.firsts)
    columns = list(identity)
    for s, e in setting.items():
        if s in dtypes:
            t = pl.col(s).fill_nan(None)
            e = pl.when(t == 0).then(0.0).otherwise(t).alias(s)
        columns.append(e)
    written = False
    raw = pl.col(metric)
    if not plain:
        columns.append((raw.cast(pl.Float64, strict=False) if dtype == pl.String else raw.cast(pl.Float64))
                       .fill_nan(None).alias(metric))
    elif metric in dtypes or dtype.is_integer():
        columns.append(raw.cast(pl.Int64))
    else:
        columns += [raw.cast(pl.Int64, strict=False).alias(metric), raw.is_not_null().alias("__written")]
        written = True
    firsts = firsts if all(v is not None for v in firsts.values()) else None
    return rows.select(columns), bool(dtypes), firsts, plain, written


def _head(log: Log, text: dict, metric: pl.Expr, keys: list[str], settings: dict) -> _Head:
    """From the first rows of the log: the metric's decimal places; the seeds of each cell seen in these rows (their fingerprint, count, distinct count and whether one is
    blank or written with spaces), which show the seed lists the log uses once the pass says which
    cells these rows hold whole; whether the metric is written as plain whole numbers; and the
    settings of the first row. The guesses are checked on every row by the pass."""
    seeded = "seed" in text
    name = metric.meta.output_name()
    head = collect(log.lazy.head(_HEAD).select(*[text[k] for k in keys], text["variant"], metric,
                                               pl.col(name).cast(pl.Int64, strict=False).alias("__plain"),
                                               *([text["seed"]] if seeded else []), *settings.values()),
                   log.source, log._path)
    places = row_places(head[name])
    places = None if places.null_count() else int(places.max() or 0)
    exemplars = None
    if seeded:
        seed = pl.col("seed").cast(pl.String)
        exemplars = head.group_by(*keys, "variant").agg(
            pl.len().alias("__head_n"), seed.n_unique().alias("__head_distinct"),
            (seed.is_null() | (seed != seed.str.strip_chars())).any().alias("__head_odd"),
            seed.hash(seed=HASH_SEED).sum().alias("__head_seeds"))
    plain = head["__plain"].null_count() == head[name].null_count()
    firsts = {s: head[s][0] if head.height else None for s in settings}
    temperature = None
    if "temperature" in settings and head.height:
        t = head.select(pl.col("temperature").cast(pl.String).str.strip_chars().cast(pl.Float64, strict=False)
                        .fill_nan(None)).item(0, 0)
        temperature = None if t is None else (0.0 if t == 0 else t)
    return _Head(places, exemplars, plain, firsts, temperature)


def _finish(per: pl.DataFrame, log: Log, asked: _Asked, head: _Head, histogram) -> Streamed | None:
    """The validated log from the cells' sums ``per`` (and the ``histogram`` of values per cell, for the halves),
    or None when some problem needs the rows."""
    metric, a, b, by, keys, settings = asked.metric, asked.a, asked.b, asked.by, asked.keys, asked.settings
    fold_case, same_seeds, seeded, reply, variant = (asked.fold_case, asked.same_seeds, asked.seeded, asked.reply,
                                                     asked.variant)
    places, exemplars = head.places, head.exemplars
    total = per.select(pl.col("n").sum(), pl.col("counted").sum(), pl.col("__finer").sum(), pl.col("__min").min(),
                       pl.col("__max").max(), pl.col("n").max().alias("largest")).row(0, named=True)
    if not total["n"] or total["counted"] != total["n"] or total["__finer"]:
        return None   # empty, blank or not-a-number cells, or values with more places than the first rows
    top = max(abs(total["__min"]), abs(total["__max"])) * 10.0**places
    # validate's bound for exact sums of units (see decimal_places), and one that keeps each cell's sum
    # of squares within 64 bits (so no sum above can have wrapped around)
    if (places and top >= 2.0**50) or top * total["counted"] >= 2.0**53 or top * top * total["largest"] >= 2.0**62:
        return None   # validate averages such values with fractions
    binary = places == 0 and total["__min"] >= 0 and total["__max"] <= 1
    if reply and not binary and per["__zeros"].sum():
        return None   # zeros beside replies: validate lists the rows as suspect
    spaced = [pl.col(c) != pl.col(c).str.strip_chars() for c in ("item", "variant", *by, *settings)
              if per.schema[c] == pl.String]
    ids = per.select(pl.any_horizontal(pl.col("item").is_null(), pl.col("item") == "", pl.col("variant").is_null(),
                                       pl.col("variant") == "", *spaced).any()).item()
    if ids:
        return None   # blank ids, or ids, values or settings written with spaces: validate names the rows
    per = _settings_read(per, settings)
    if per is None:
        return None
    counts = per.group_by("variant").agg(pl.col(FIRST).min(), pl.col("n").sum().alias("len")).sort(FIRST)
    if counts[FIRST].is_duplicated().any():
        # values that start on one row (a wide log melted into one run per value): their order is
        # the order in which the log gives them, which only a look at the values tells
        order = collect(log.lazy.select(variant).unique(maintain_order=True).with_row_index("__order"),
                        log.source, log._path)
        counts = counts.join(order, on="variant", how="left").sort(FIRST, "__order")
    counts = counts.select("variant", pl.col("len").cast(pl.UInt32))
    _, problems, values = near_duplicates(pl.DataFrame(), log, fold_case, counts)
    if fold_case and problems:
        return None   # values to fold into one: validate folds them in the rows
    problems = list(log.problems) + problems
    a, b, value_problems = choose_values(values, a, b, log)
    if has_errors(value_problems):
        return None
    problems += value_problems
    seen = seen_per_item(per.with_columns(pl.col("counted").alias("__valued")), keys, a, b, pl.col("__valued") > 0,
                 first=FIRST)
    if seen.select((~pl.col("has_a") | ~pl.col("has_b")).any()).item():
        return None   # unmatched items: validate names their rows
    if seeded:   # every seed a number (else _distinct_seeds sends the log to validate): none is blank
        per = per.with_columns(pl.col("n").alias("seeded"))
    pair = per.filter(pl.col("variant").is_in([a, b]))
    if sorted_order(pair) is not None:
        return None   # rows in metric order within cells: validate words the warning
    if seeded and not _distinct_seeds(pair, _seed_lists(per, exemplars, keys)) and not (by and _distinct_seeds(
            pair.group_by("item", "variant").agg(   # groups that split an item: its seeds pooled (hash sums wrap)
                pl.col("n", "seeded", "seeds", "__seed_numbers").sum(), pl.col("__seed_lo").min(),
                pl.col("__seed_hi").max()))):
        return None   # a seed may repeat within a cell: validate lists the copies
    for s in settings:
        if not pair.select((pl.col(s) == pl.col(f"__{s}_max")).all()).item():
            return None   # a setting varies within a cell: validate compares the sets of values
    summary = pair.select(
        *keys, "variant", "n", FIRST, "counted", (pl.col("__min") == pl.col("__max")).alias("constant"),
        pl.lit(None, pl.Float64).alias("sd"), *(["seeds", "seeded"] if seeded else []), *settings, "__s", "__q")
    summary = with_exact_moments(summary, places).with_columns(pl.col(FIRST).alias("first_valued"))
    if seeded:
        summary = summary.with_columns(pl.col("seeded").alias("distinct_seeds"))
    for s in settings:   # every cell holds one value: its fingerprint is that value's hash
        summary = summary.with_columns(pl.col(s).cast(pl.String).fill_null("(blank)").hash(seed=HASH_SEED))
    cells = side_by_side(summary, a, b)
    for s in settings:
        if cells.filter(pl.col(s) != pl.col(f"{s}_b")).height:
            return None   # confounded: validate lists the rows
        values_seen = pair.group_by(s).agg(pl.col(FIRST).min()).sort(FIRST)[s]
        if values_seen.len() > 1:
            problems.append(mixed_setting(log, s, [str(x) for x in values_seen.cast(pl.String).to_list()]))
    if seeded:
        if same_seeds:
            problems += seed_mismatch(cells, log, a, b)
    problems += unequal_runs(cells, log, a, b)
    problems += deterministic(cells)
    n_rows = int(total["n"])
    checked = Checked(pl.DataFrame(), metric, a, b, values, tuple(problems), log, n_rows, pairs=cells,
                      pairs_by=tuple(c for c in by))
    main = None
    if by:   # the main comparison pools the groups: the cells of item x value, summed exactly
        pooled = (pair.group_by("item", "variant")
                  .agg(pl.col("n").sum(), pl.col(FIRST).min(), pl.col("counted").sum(),
                       *[pl.col(c).cast(pl.Int128).sum() for c in ("__s", "__q")]).sort(FIRST))
        pooled = with_exact_moments(pooled.with_columns(pl.lit(None, pl.Float64).alias("sd")), places)
        main = side_by_side(pooled.with_columns(pl.col(FIRST).alias("first_valued")), a, b)
    if histogram is not None:   # the cells in the order of their first run, as per's
        histogram = per.select(*keys, "variant").join(histogram, on=[*keys, "variant"], how="inner",
                                                      nulls_equal=True, maintain_order="left")
    return Streamed(checked, histogram, main, per, places)


def _settings_read(per: pl.DataFrame, settings: list) -> pl.DataFrame | None:
    """``per`` with a temperature written as text read as a number; None when a setting is blank, or written in
    several ways within a cell, or not a number (validate reads those from the rows)."""
    for s in settings:
        if per[f"__{s}_nulls"].sum():
            return None   # a blank setting: validate tells blank from text that is not a number
    if "temperature" in settings and per.schema["temperature"] == pl.String:
        if not per.select((pl.col("temperature") == pl.col("__temperature_max")).all()).item():
            return None   # written in several ways within a cell: validate compares the numbers
        temp = pl.col("temperature").cast(pl.Float64, strict=False)
        per = per.with_columns(pl.when(temp == 0).then(0.0).otherwise(temp).alias("temperature"))
        per = per.with_columns(pl.col("temperature").alias("__temperature_max"))
        if per.select(pl.col("temperature").is_null().any() | pl.col("temperature").is_nan().any()).item():
            return None   # text that is not a number: validate keeps the column as text
    return per


def _seed_lists(per: pl.DataFrame, exemplars: pl.DataFrame | None, keys: list[str]) -> pl.DataFrame | None:
    """The seed lists known to hold no seed twice: those of cells the first rows held whole (as many
    runs there as in the pass), each seed written plainly once. Fingerprint and count of each."""
    if exemplars is None or not exemplars.height:
        return None
    whole = exemplars.join(per.select(*keys, "variant", "n"), on=[*keys, "variant"], how="inner")
    return (whole.filter((pl.col("__head_n") == pl.col("n")) & (pl.col("__head_distinct") == pl.col("n"))
                         & ~pl.col("__head_odd"))
            .select(pl.col("__head_seeds").alias("seeds"), pl.col("n")).unique())


def _distinct_seeds(pair: pl.DataFrame, lists: pl.DataFrame | None = None) -> bool:
    """True when no cell repeats a seed: each cell's seeds are the whole numbers from its smallest to
    its largest, each written plainly, once (the fingerprint of the cell's seeds equals that range's),
    or one of the seed ``lists`` known to hold no seed twice (same fingerprint, same count).

    Equal fingerprints of different sets need a collision of 64-bit hash sums; any other log
    (other seeds, blank seeds) goes to validate, which checks the seeds row by row.
    """
    lo, hi = pl.col("__seed_lo"), pl.col("__seed_hi")
    ranged = ((pl.col("__seed_numbers") == pl.col("n")) & (pl.col("seeded") == pl.col("n"))
              & (lo == lo.round()) & (hi - lo + 1 == pl.col("seeded").cast(pl.Float64))
              & (lo.abs() < 2.0**52) & (hi.abs() < 2.0**52))
    cells = pair.select("seeds", "n", ranged.fill_null(False).alias("__ranged"),
                        pl.when(ranged).then(lo).cast(pl.Int64).alias("lo"),
                        pl.when(ranged).then(hi).cast(pl.Int64).alias("hi"))
    spans = cells.filter("__ranged").select("lo", "hi").unique()
    if int((spans["hi"] - spans["lo"] + 1).sum() or 0) > 10 * pair["n"].sum() + 1000:
        spans = spans.clear()
    expected = (spans.with_columns(pl.int_ranges("lo", pl.col("hi") + 1).alias("s")).explode("s")
                .group_by("lo", "hi").agg(pl.col("s").cast(pl.String).hash(seed=HASH_SEED).sum().alias("want")))
    cells = cells.join(expected, on=["lo", "hi"], how="left")
    ok = pl.col("__ranged") & (pl.col("seeds") == pl.col("want")).fill_null(False)
    if lists is not None and lists.height:
        cells = cells.join(lists.with_columns(pl.lit(True).alias("__listed")), on=["seeds", "n"], how="left")
        ok = ok | pl.col("__listed").fill_null(False)
    return bool(cells.select(ok.all()).item())


def _cluster_columns(schema: pl.Schema, present: set, clusters) -> list[str]:
    """The columns ``clusters`` chooses, when the pass can read them as the cluster suggestion does: items
    written as text or whole numbers (their text is the suggestion's), every chosen column of a plain type
    (none else: the suggestion reads them itself)."""
    if clusters is None or not (schema["item"] == pl.String or schema["item"].is_integer()):
        return []
    chosen = [c for c in clusters(list(schema.names())) if c in present]
    plain = all(schema[c] in (pl.String, pl.Boolean) or schema[c].is_numeric() or schema[c].is_temporal()
                for c in chosen)
    return chosen if plain else []


def _cluster_aggregations(nested: Sequence[str]) -> list[pl.Expr]:
    """Per cell, each chosen column's smallest and largest text and its blanks (an item holds one value when
    no cell has a blank and every cell's smallest and largest are one text, or every run is blank)."""
    return [e for i in range(len(nested)) for e in (
        pl.col(f"__cluster{i}").min().alias(f"__cluster{i}_lo"), pl.col(f"__cluster{i}").max().alias(f"__cluster{i}_hi"),
        pl.col(f"__cluster{i}").null_count().alias(f"__cluster{i}_nulls"))]


def _cluster_items(per: pl.DataFrame, nested: Sequence[str]) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """The cells without the chosen columns' sums, and those columns per item (``Streamed.clusters``)."""
    if not nested:
        return per, None
    names = [f"__cluster{i}_{part}" for i in range(len(nested)) for part in ("lo", "hi", "nulls")]
    items = per.group_by("item", maintain_order=True).agg(
        pl.col("n").sum(), *[pl.col(f"__cluster{i}_lo").min() for i in range(len(nested))],
        *[pl.col(f"__cluster{i}_hi").max() for i in range(len(nested))],
        *[pl.col(f"__cluster{i}_nulls").sum() for i in range(len(nested))])
    table = items.select("item", *[e for i, c in enumerate(nested) for e in (
        pl.col(f"__cluster{i}_lo").alias(c),
        (((pl.col(f"__cluster{i}_nulls") == 0) & (pl.col(f"__cluster{i}_lo") == pl.col(f"__cluster{i}_hi")))
         | (pl.col(f"__cluster{i}_nulls") == pl.col("n"))).fill_null(False).alias(f"{c}\x00constant"))])
    return per.drop(names), table


def _fact_columns(schema: pl.Schema, metric: str, settings: Sequence[str], by: Sequence[str]) -> list[str] | None:
    """The columns beyond the settings and groups that may be settings of the report (read in the
    pass, their smallest and largest value per cell); None when one has a type they cannot be read from."""
    out = [c for c in candidates(schema.names(), metric) if c not in settings and c not in by]
    plain = all(schema[c] in (pl.String, pl.Boolean) or schema[c].is_numeric() or schema[c].is_temporal()
                for c in out)
    return out if plain else None


def _fact_aggregations(extra: Sequence[str], schema: pl.Schema) -> list[pl.Expr]:
    """Per cell, each column's smallest and largest value (and its NaNs and zeros, for floats)."""
    aggs = []
    for i, c in enumerate(extra):
        aggs += [pl.col(c).min().alias(f"__fact{i}_lo"), pl.col(c).max().alias(f"__fact{i}_hi")]
        if schema[c].is_float():   # not a number, and 0 beside -0, are told apart by the rows' unique values
            aggs.append((pl.col(c).is_nan() | (pl.col(c) == 0)).sum().alias(f"__fact{i}_odd"))
    return aggs


def _column_facts(per: pl.DataFrame, schema: pl.Schema, metric: str, settings: Sequence[str], by: Sequence[str],
                  extra: Sequence[str], firsts: dict) -> tuple | None:
    """The ``columns`` of :class:`~probestats.checks.facts.LogFacts` from the cells: each setting's
    and group's distinct values over the cells (each cell holds one; temperatures as numbers, shown
    as the first row writes it), each other column's one value or "two or more" from its smallest and
    largest; None when the cells cannot tell (a setting that varies within a cell of a value not
    compared, a float column with NaN or zero)."""
    out = []
    for c in candidates(schema.names(), metric):
        if c in settings or c in by:
            if c in settings and not per.select((pl.col(c) == pl.col(f"__{c}_max")).all()).item():
                return None
            values = per[c].drop_nulls().unique(maintain_order=True)
            count = int(values.len())
            if c == "temperature" and c in settings:
                count = temperatures(values, count) if count > 1 else count
                out.append((c, count, firsts.get(c) if count == 1 else None))
                continue
            out.append((c, count, values[0] if count == 1 else None))
            continue
        i = list(extra).index(c)
        if f"__fact{i}_odd" in per.columns and per[f"__fact{i}_odd"].sum():
            return None
        lo, hi = per[f"__fact{i}_lo"].min(), per[f"__fact{i}_hi"].max()
        if lo is None:
            out.append((c, 0, None))
        else:
            out.append((c, 1, lo) if lo == hi else (c, 2, None))
    return tuple(out)


def _seed_facts(per: pl.DataFrame, log: Log, a: str, b: str, text: dict) -> tuple | None:
    """The ``seeds`` of :class:`~probestats.checks.facts.LogFacts` for the compared values: the union
    of the cells' ranges when each cell's seeds are one (see :func:`_distinct_seeds`), else the
    distinct seeds read in a streaming pass of the seed column alone."""
    pair = per.filter(pl.col("variant").is_in([a, b]))
    lo, hi = pl.col("__seed_lo"), pl.col("__seed_hi")
    ranged = ((pl.col("__seed_numbers") == pl.col("n")) & (lo == lo.round()) & (hi - lo + 1 == pl.col("n"))
              & (lo.abs() < 2.0**52) & (hi.abs() < 2.0**52))
    cells = pair.select(ranged.fill_null(False).alias("r"), lo.alias("lo"), hi.alias("hi"), "seeds", "n")
    if cells["r"].all():
        spans = cells.select(pl.col("lo").cast(pl.Int64), pl.col("hi").cast(pl.Int64)).unique()
        # the cell's seeds are that range when its fingerprint is the range's (as _distinct_seeds checked)
        if _distinct_seeds(pair.with_columns(pl.col("n").alias("seeded"))):
            return seed_union(list(spans.iter_rows()))
    seeds = collect(log.lazy.filter(text["variant"].is_in([a, b])).select(text["seed"].alias("seed"))
                    .unique(), log.source, log._path)["seed"]
    return seed_facts(seeds.drop_nulls().to_list())


def streamed_seed_ranges(per: pl.DataFrame) -> tuple[pl.Series, pl.Series] | None:
    """Each cell's smallest and largest seed, when every cell's seeds are all the whole numbers from
    one to the other, each written plainly once (the fingerprint the pass took equals that range's,
    :func:`_distinct_seeds`); None when some cell's are not."""
    if "seeds" not in per.columns:
        return None
    cells = per.with_columns(pl.col("n").alias("seeded"))
    if not _distinct_seeds(cells):
        return None
    return per["__seed_lo"].cast(pl.Int64).alias("seed_low"), per["__seed_hi"].cast(pl.Int64).alias("seed_high")
