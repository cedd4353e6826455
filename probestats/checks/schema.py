"""Validation: is this a matched, held-fixed probe, and what is wrong on which rows?

:func:`validate` never stops at the first problem: it collects every one,
each with a stable code, a severity, a message that names the fix, the rows a person
would look at and the column. It returns a :class:`Checked` log whose frame has the
types the analyses expect; :func:`require_ok` raises when there are errors.

Each check has its function, in the module of its idea: the columns (:mod:`probestats.checks.columns`),
the values compared (:mod:`probestats.checks.values`), the metric (:mod:`probestats.checks.metric`),
the cells (:mod:`probestats.checks.cell_summary`) and whether the probe is matched and held fixed
(:mod:`probestats.checks.matched`); :func:`validate` is the sequence that calls them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import polars as pl

from probestats.checks.cell_summary import FIRST, SETTINGS, cell_summary, decimal_places, seen_per_item, side_by_side
from probestats.checks.columns import (ROW_LIMIT, as_id_text, as_number, is_text, list_columns, missing_column,
                                       read_back_text, text_as_number)
from probestats.checks.matched import (duplicate_runs, held_settings, not_alternated, seed_mismatch, unequal_runs,
                                       unmapped_settings, unmatched_items)
from probestats.checks.metric import check_metric, deterministic, sorted_metric
from probestats.checks.structure import likely_blocks
from probestats.checks.values import SPACED, choose_values, default_pair, near_duplicates, spaced_values
from probestats.errors import OptionError, Problem, ValidationError, has_errors, opt
from probestats.io.columns import ROW, normalize_header, refuse_internal
from probestats.io.log import Log, collect, format_rows
from probestats.io.read import read_log

#: what the analyses read from here beside validate: the settings held fixed, a cell's first row, the compared
#: pair by default, a metric's decimal places, and the columns that look like a setting but were not read as one
__all__ = ["Checked", "ColumnRoles", "validate", "require_ok", "SETTINGS", "FIRST", "default_pair", "decimal_places",
           "unmapped_settings"]

@dataclass(frozen=True)
class Checked:
    """A validated log, ready for the analyses.

    Attributes
    ----------
    frame : polars.DataFrame
        Rows with a metric value for the compared values (all values when ``a`` and
        ``b`` are not needed): ``item`` and ``variant`` as strings, the metric as
        Float64, held-fixed settings, ``seed`` and ``_row`` when present.
    metric : str or None
    a, b : str or None
        The two compared values (default: the first two in order of appearance).
    values : tuple of str
        Every value of the attribute, in order of appearance.
    problems : tuple of Problem
    log : Log
        The log as read.
    pairs : polars.DataFrame or None
        The cells validation checked, one row per item (and ``by`` group, the columns
        ``pairs_by``) with runs of both compared values, value b's columns with the suffix
        ``_b`` (see ``pair_cells``). With a metric, each side's ``mean``, ``sd``, ``counted`` runs
        with a value and ``first_valued`` row, from which :func:`probestats.analyses.items.items_of`
        builds the item table without grouping the rows again. None when validation stopped early.
    pairs_by : tuple of str
        The ``by`` columns ``pairs`` is split by.
    facts : LogFacts or None
        The settings and seeds a report states (:mod:`probestats.checks.facts`), when the streaming
        pass took them from its cells (``frame`` is then empty); None: the report reads the rows.
    drawn : tuple of str
        The settings declared drawn at random per call (``random_settings``) that the log has.
    """

    frame: pl.DataFrame
    metric: str | None
    a: str | None
    b: str | None
    values: tuple[str, ...]
    problems: tuple[Problem, ...]
    log: Log = field(repr=False)

    @property
    def ok(self) -> bool:
        """True when there is no error (warnings allowed)."""
        return not has_errors(self.problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "warning"]

    def to_dict(self) -> dict:
        """The ``validate --json`` object: ``ok``, ``rows``, ``columns`` and ``problems``."""
        return {
            "ok": self.ok,
            "rows": int(self.n_rows),
            "columns": dict(self.log.columns),
            "a": self.a,
            "b": self.b,
            "values": list(self.values),
            "problems": [p.to_dict() for p in self.problems],
            **({"format": self.log.format} if getattr(self.log, "format", None) else {}),
        }

    @property
    def n_rows(self) -> int:
        return int(self._n_rows)

    _n_rows: int = 0
    pairs: pl.DataFrame | None = field(default=None, repr=False)
    pairs_by: tuple[str, ...] = ()
    facts: object = field(default=None, repr=False)
    drawn: tuple[str, ...] = ()


def require_ok(checked: Checked) -> Checked:
    """Raise :class:`~probestats.errors.ValidationError` when the log has errors."""
    if not checked.ok:
        raise ValidationError(checked.problems)
    return checked




@dataclass(frozen=True)
class ColumnRoles:
    """The columns validation reads beyond the item, the value, the metric and ``by``, and what each may do.

    Attributes
    ----------
    keep : sequence of str
        Further columns to keep in the checked frame.
    attribute_settings : sequence of str
        Held-fixed settings that are part of the attribute by design (which model decides, which
        system prompt is used): they may differ between the values (no ``confounded_setting``).
    random_settings : sequence of str
        Settings drawn at random per call (a temperature sampled for every request): they may differ between
        runs and values here; the analysis checks that they are balanced across the values
        (:mod:`probestats.analyses.drawn`) and refuses them as a confound when not.
    """

    keep: Sequence[str] = ()
    attribute_settings: Sequence[str] = ()
    random_settings: Sequence[str] = ()


def validate(log, *, metric: str | None = None, a: str | None = None, b: str | None = None, by: Sequence[str] = (),
             fold_case: bool = False, same_seeds: bool = True, roles: ColumnRoles = ColumnRoles(),
             read: Mapping | None = None) -> Checked:
    """Check a probe log and collect every problem.

    Parameters
    ----------
    log : Log, path, list of dict or DataFrame
        Anything :func:`probestats.read_log` reads.
    metric : str, optional
        The metric column; without it the metric checks are skipped.
    a, b : str, optional
        The compared values (default: the first two in order of appearance).
    by : sequence of str
        Columns results will be split by: a setting named here may vary.
    fold_case : bool
        Treat values that differ only in case as one (values that differ only in surrounding
        spaces are always one, with a warning).
    same_seeds : bool
        Warn when an item's values were run with different seeds (turn off for a
        same-versus-same log whose second value used another seed block).
    roles : ColumnRoles
        The columns kept in the checked frame, and the settings that are part of the attribute or drawn at
        random per call (:class:`ColumnRoles`).
    read : mapping, optional
        How a path is read (:func:`probestats.read_log`'s options, such as ``skip_rows``).

    Examples
    --------
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 3 + (v == "formal")}
    ...         for i in range(3) for v in ("formal", "casual") for s in (1, 2)]
    >>> checked = validate(rows[:-2], metric="steps")
    >>> checked.ok
    False
    >>> [p.code for p in checked.problems]
    ['unmatched_item', 'deterministic']
    >>> checked.errors[0].message
    "item 2 has no 'casual' runs (records 9-10 are all 'formal'); add its 'casual' runs or drop the item (or complete=True to keep only the items measured under every value)"
    """
    _refuse_names(metric, by)
    keep, attribute_settings, random_settings = roles.keep, roles.attribute_settings, roles.random_settings
    log = read_log(log, **{**({"metric": metric} if metric is not None else {}), **dict(read or {})})
    problems: list[Problem] = list(log.problems)
    schema = log.lazy.collect_schema()
    problems += _missing_columns(log, schema, metric, [*by, *keep])
    if has_errors(problems):
        return Checked(pl.DataFrame(), metric, a, b, (), tuple(problems), log, _row_count(log))
    wanted = _wanted_columns(schema, metric, [*by, *keep])
    problems += list_columns(log, schema, wanted, metric)
    if has_errors(problems):
        return Checked(pl.DataFrame(), metric, a, b, (), tuple(problems), log, _row_count(log))
    df, counts = _read_rows(log, schema, wanted, metric, by)
    n_rows = df.height
    if n_rows == 0:
        problems.append(_empty_log(log))
        return Checked(df, metric, a, b, (), tuple(problems), log)
    df, blank_problems, counts = _blank_ids(df, log, counts)
    problems += blank_problems
    df, spelling_problems, values = _value_spellings(df, log, fold_case, counts)
    problems += spelling_problems
    not_numbers = None
    if metric is not None:
        df, metric_problems, not_numbers = check_metric(df, log, metric, log.columns.get(metric, metric))
        problems += metric_problems
    a, b, value_problems = choose_values(values, a, b, log)
    problems += value_problems
    if has_errors(value_problems):
        return Checked(df, metric, a, b, values, tuple(problems), log, n_rows)
    pair = df if len(values) == 2 else df.filter(pl.col("variant").is_in([a, b]))  # no copy when only a and b
    summary = cell_summary(pair, metric, by)
    cells = side_by_side(summary, a, b)
    problems += _unmatched(df, pair, summary, log, metric, a, b, by, not_numbers)
    # cells that are not numbers are fixed first: their runs do not count yet
    counted = not any(p.code == "non_numeric" for p in problems)
    problems += _held_fixed(pair, cells, log, a, b, [*by, *attribute_settings, *random_settings], same_seeds, counted)
    if metric is not None:
        problems += _metric_patterns(pair, cells, log, metric, by, [*by, *keep, *attribute_settings])
        if df[metric].null_count():
            df = df.filter(pl.col(metric).is_not_null())
    return Checked(df, metric, a, b, values, tuple(problems), log, n_rows, pairs=cells,
                   pairs_by=tuple(c for c in by if c in pair.columns),
                   drawn=tuple(c for c in random_settings if c in pair.columns))


def _refuse_names(metric: str | None, by: Sequence[str]) -> None:
    """Refuse a metric or a ``by`` column that is the probe's own (the item, the value, the row) or a name
    probestats uses itself."""
    own = ("item", "variant", ROW)  # the probe's own columns: neither a metric nor a split
    if metric is not None and (metric in own or not str(metric).strip()):
        raise OptionError(f"{opt('metric', metric)}: name the column that holds the number computed "
                          "from each reply (not the item or the value)")
    for name in by:
        if name == "item":   # one test per item over its runs is per_item's; by splits by another column
            raise OptionError(f"{opt('by', name)}: the item is the unit every result is already per; for one test per "
                              f"item over its runs use {opt('per_item', True)} (Welch's t within each item, corrected "
                              f"across items), and split with {opt('by')} another column, such as model or language")
        if name in own:
            raise OptionError(f"{opt('by', name)}: results are already per item and compare the values; "
                              "split by another column, such as model or language")
    for option, names in (("metric", [] if metric is None else [metric]), ("by", by)):
        for name in names:
            refuse_internal(option, name)


def _missing_columns(log: Log, schema: pl.Schema, metric: str | None, named: Sequence[str]) -> list[Problem]:
    """The ``missing_column`` errors: no item or value column, no metric column, or no column of a name to
    split by or keep (``named``)."""
    present = set(schema.names())
    problems = [missing_column(log, required, metric=metric) for required in ("item", "variant")
                if required not in present]
    if metric is not None and metric not in present:
        problems.append(missing_column(log, metric, is_metric=True))
    for name in named:
        if name not in present:
            # a header read under its canonical name (lang -> language) is named by that name
            renamed = [c for c, h in log.columns.items() if c != h and normalize_header(h) == normalize_header(name)]
            problems.append(Problem(
                "error", "missing_column",
                f"the header '{name}' is read as the column '{renamed[0]}'; name it '{renamed[0]}'" if renamed else
                f"no column '{name}' to split or keep; headers seen: {', '.join(log.headers)}",
                column=name))
    return problems


def _wanted_columns(schema: pl.Schema, metric: str | None, named: Sequence[str]) -> list[str]:
    """The columns validation reads: the ids, the runs' own columns and settings present, the ``named``
    columns to split by or keep, and the metric."""
    present = set(schema.names())
    wanted = ["item", "variant"] + [c for c in ("seed", "run_id", "time", *SETTINGS) if c in present]
    wanted += [c for c in named if c not in wanted]
    if metric is not None and metric not in wanted:
        wanted.append(metric)
    return wanted


def _read_rows(log: Log, schema: pl.Schema, wanted: list[str], metric: str | None,
               by: Sequence[str]) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """The ``wanted`` columns read with the types the checks expect, and each value as written with its runs
    (None when some value is written with surrounding spaces, kept in the ``SPACED`` column for the warning)."""
    text_cols = {"item", "variant", "seed", "model", "system", "run_id", *by}
    exprs = [
        as_id_text(pl.col(c), schema[c]).alias(c) if c in text_cols
        else pl.col(c)
        for c in wanted
    ]
    # numbers written as text are parsed as the file is read (in parallel, chunk by chunk), so a large
    # log's text is not held at all; the text of the few cells that gave no number is read back after
    parsed = [c for c in dict.fromkeys((metric, "temperature")) if c in wanted and schema[c] == pl.String]
    texts = dict(zip(wanted, exprs))  # a column as text, should it turn out not to hold numbers
    exprs = [text_as_number(pl.col(c)).alias(c) if c in parsed else e for c, e in zip(wanted, exprs)]
    # the values are read as written: the few distinct ones show whether any has surrounding spaces
    if is_text(schema["variant"]):
        exprs[wanted.index("variant")] = pl.col("variant").cast(pl.String)
    df = collect(log.lazy.select(*exprs, pl.col(ROW)), log.source, log._path)
    if parsed:
        df = read_back_text(df, log, metric, parsed, texts.get("temperature"))
    counts = df.group_by("variant", maintain_order=True).len()  # each value as written, with its runs
    spaced = pl.col("variant") != pl.col("variant").str.strip_chars()
    if counts.select(spaced.any()).item():  # keep the spellings for the warning, then read them as one
        df = df.with_columns(pl.when(spaced).then(pl.col("variant")).alias(SPACED), pl.col("variant").str.strip_chars())
        counts = None
    if "temperature" in df.columns:
        df = df.with_columns(as_number(df["temperature"]))
    return df, counts


def _empty_log(log: Log) -> Problem:
    """The ``empty_log`` error: no data rows, or none that meets the ``where`` condition."""
    where = log._read.get("where")
    return Problem("error", "empty_log",
                   f"no row of '{log.source}' meets {opt('where', where)}; loosen the condition"
                   if where is not None else
                   f"'{log.source}' has no data rows; add one row per run below the header")


def _blank_ids(df: pl.DataFrame, log: Log, counts: pl.DataFrame | None):
    """The ``blank_id`` warning for runs without an item or a value, which are left out; returns the frame,
    the problems and the runs per value (None when some were left out)."""
    if df["variant"].null_count() or df["item"].null_count():
        df = df.with_columns(pl.col("variant").fill_null(""), pl.col("item").fill_null(""))
    blank_ids = df.filter((pl.col("item") == "") | (pl.col("variant") == ""))
    if not blank_ids.height:
        return df, [], counts
    problem = Problem(
        "warning", "blank_id",
        f"{blank_ids.height} run(s) have no item or no value ({format_rows(log, log.rows(blank_ids[ROW][:ROW_LIMIT]))}); they are left out",
        tuple(log.rows(blank_ids[ROW][:ROW_LIMIT])))
    return df.filter((pl.col("item") != "") & (pl.col("variant") != "")), [problem], None


def _value_spellings(df: pl.DataFrame, log: Log, fold_case: bool, counts: pl.DataFrame | None):
    """Values written with surrounding spaces (read as one, with a warning) and values that differ only in
    case; returns the frame, the problems and the values in order of appearance."""
    problems = []
    if SPACED in df.columns:
        problems += spaced_values(df, log)
        df = df.drop(SPACED)
    df, fold_problems, values = near_duplicates(df, log, fold_case, counts)
    return df, problems + fold_problems, values


def _unmatched(df: pl.DataFrame, pair: pl.DataFrame, summary: pl.DataFrame, log: Log, metric: str | None, a: str,
               b: str, by: Sequence[str], not_numbers: pl.Series | None) -> list[Problem]:
    """The ``unmatched_item`` errors; with only a and b in the log, the cells say which items have runs (with
    values) of each."""
    seen = (seen_per_item(summary, ["item", *by], a, b, pl.col("counted") > 0 if metric is not None else None,
                          first=FIRST)
            if pair is df and (not_numbers is None or not not_numbers.len()) else None)
    return unmatched_items(df, log, a, b, by, metric, not_numbers, seen)


def _held_fixed(pair: pl.DataFrame, cells: pl.DataFrame, log: Log, a: str, b: str, varied: Sequence[str],
                same_seeds: bool, counted: bool) -> list[Problem]:
    """What was to be held fixed between the values: the settings (except those ``varied`` on purpose),
    the seeds, one run per seed, the runs per value (when every cell's runs are ``counted``) and their order
    in time."""
    problems = held_settings(pair, cells, log, a, b, varied)
    if "seed" in pair.columns:
        if same_seeds:
            problems += seed_mismatch(cells, log, a, b)
        if cells.select((pl.col("distinct_seeds") < pl.col("seeded"))
                        | (pl.col("distinct_seeds_b") < pl.col("seeded_b"))).to_series().any():
            problems += duplicate_runs(pair, log)
    if counted:
        problems += unequal_runs(cells, log, a, b)
    if "time" in pair.columns:
        problems += not_alternated(pair, log, a, b)
    return problems


def _metric_patterns(pair: pl.DataFrame, cells: pl.DataFrame, log: Log, metric: str, by: Sequence[str],
                     exclude: Sequence[str]) -> list[Problem]:
    """Patterns of the metric across runs: blocks of runs that move together (a column not in ``exclude``),
    every run of a cell giving the same result, rows sorted by the metric."""
    problems = likely_blocks(log, metric, exclude=list(exclude))
    problems += deterministic(cells)
    problems += sorted_metric(pair, log, metric, ["item", *[c for c in by if c in pair.columns], "variant"])
    return problems


def _row_count(log: Log) -> int:
    """The log's data rows, counted without reading its columns (validation stopped before reading them)."""
    return int(collect(log.lazy.select(pl.len().alias("n")), log.source, log._path)["n"][0])
