"""Validation: is this a matched, held-fixed probe, and what is wrong on which rows?

:func:`validate` never stops at the first problem: it collects every one,
each with a stable code, a severity, a message that names the fix, the rows a person
would look at and the column. It returns a :class:`Checked` log whose frame has the
types the analyses expect; :func:`require_ok` raises when there are errors.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Iterable, Sequence

import polars as pl

from probestats.checks.exact import units, with_exact_moments

from probestats.errors import OptionError, ValidationError, either, opt
from probestats.io.columns import ROW, normalize_header, refuse_internal
from probestats.io.log import Log, format_rows
from probestats.io.read import read_log
from probestats.stats.exact import finish_means, mean_aggs, row_places
from probestats.errors import Problem, has_errors
from probestats.errors import count_of

SETTINGS = ("model", "temperature", "system")
# internal columns, named so that no log's own column is likely to clash with them
_UNPARSED = "__unparsed"  # the metric cells that are not numbers, as written
_SPACED = "__spaced"  # the values written with surrounding spaces, as written
_TEMPERATURE = "__temperature"  # read back: a temperature cell that is not blank gave no number
FIRST = "__first_row"  # a group's first row, to keep groups in order of appearance
ROW_LIMIT = 50  # rows listed per problem; the message says how many there are in all


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
        ``_b`` (see ``_cells``). With a metric, each side's ``mean``, ``sd``, ``counted`` runs
        with a value and ``first_valued`` row, from which :func:`probestats.analyses.paired.items_of`
        builds the item table without grouping the rows again. None when validation stopped early.
    pairs_by : tuple of str
        The ``by`` columns ``pairs`` is split by.
    facts : LogFacts or None
        The settings and seeds a report states (:mod:`probestats.checks.facts`), when the streaming
        pass took them from its cells (``frame`` is then empty); None: the report reads the rows.
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


def require_ok(checked: Checked) -> Checked:
    """Raise :class:`~probestats.errors.ValidationError` when the log has errors."""
    if not checked.ok:
        raise ValidationError(checked.problems)
    return checked


def _is_text(dtype) -> bool:
    """Text, or text with a fixed set of values (categorical or enum columns of a frame)."""
    return dtype == pl.String or dtype == pl.Categorical or isinstance(dtype, pl.Enum)


def _as_text(expr: pl.Expr, dtype) -> pl.Expr:
    """Cast ids to text the same way whatever the source: 3.0 and 3 both read '3', ' 3' reads '3'."""
    if dtype in (pl.Float32, pl.Float64):
        return (
            pl.when(expr.is_not_null() & (expr == expr.round(0)) & expr.abs().lt(2**53))
            .then(expr.cast(pl.Int64).cast(pl.String))
            .otherwise(expr.cast(pl.String))
        )
    if _is_text(dtype):
        return expr.cast(pl.String).str.strip_chars()
    return expr.cast(pl.String)


def _as_number(series: pl.Series) -> pl.Series:
    """A setting such as temperature as a float when every cell is a number, so 0.8 and "0.8" compare equal.

    A number is one number however it is written: -0.0 is 0.0, and NaN (not a number) is a blank
    cell, so a cell of runs at 0.0 and -0.0 holds one temperature and a NaN run stands out.

    >>> _as_number(pl.Series(["0.8", " 0.8", None])).to_list()
    [0.8, 0.8, None]
    >>> _as_number(pl.Series(["0.8", "default"])).to_list()
    ['0.8', 'default']
    >>> [str(x) for x in _as_number(pl.Series([0.0, -0.0, float("nan")]))]
    ['0.0', '0.0', 'None']
    """
    if series.dtype.is_numeric():
        numbers = series.cast(pl.Float64)
    else:
        numbers = series.cast(pl.String).str.strip_chars().cast(pl.Float64, strict=False)
        if numbers.null_count() != series.null_count():
            return series
    numbers = numbers.fill_nan(None)
    return pl.select(pl.when(numbers == 0).then(0.0).otherwise(numbers)).to_series().alias(series.name)


def _read_back_text(df: pl.DataFrame, log: Log, metric: str | None, parsed: list[str],
                    temperature_text: pl.Expr | None = None) -> pl.DataFrame:
    """Add what the parse in the read dropped: the text of metric cells that are not numbers, and
    the temperature as text (``temperature_text``) when some cell of it is not a number.

    Only rows where a parsed column is blank are read again (none in a clean log). The metric's
    text goes to the ``_UNPARSED`` column, as :func:`_metric` expects. A temperature that is the
    metric is read as the metric.
    """
    from probestats.io.log import collect

    setting = "temperature" in parsed and metric != "temperature"
    blank = pl.any_horizontal([pl.col(c).is_null() for c in parsed])
    if not df.select(blank.any()).item():
        if metric in parsed:
            df = df.with_columns(pl.lit(None, pl.String).alias(_UNPARSED))
        return df
    rows = df.filter(blank)[ROW].implode()
    back = [_unparsed(pl.col(metric)).alias(_UNPARSED)] if metric in parsed else []
    if setting:  # a cell that is not blank but gave no number: the column is text
        text = pl.col("temperature")
        back.append((text.is_not_null() & _parsed(text).is_null()).alias(_TEMPERATURE))
    again = collect(log.lazy.filter(pl.col(ROW).is_in(rows)).select(ROW, *back), log.source, log._path)
    if metric in parsed:
        df = df.join(again.select(ROW, _UNPARSED), on=ROW, how="left", maintain_order="left")
    if setting and again[_TEMPERATURE].any():
        text = collect(log.lazy.select(temperature_text.alias("temperature"), ROW), log.source, log._path)
        df = df.with_columns(text.join(df.select(ROW), on=ROW, how="right", maintain_order="right")["temperature"])
    return df


def _parsed(text: pl.Expr) -> pl.Expr:
    """Text cells as numbers: surrounding spaces ignored, a blank cell and a cell that is not a number null."""
    return text.str.strip_chars().cast(pl.Float64, strict=False)


def _unparsed(text: pl.Expr) -> pl.Expr:
    """The (stripped) text of the cells :func:`_parsed` could not read as a number; null elsewhere."""
    stripped = text.str.strip_chars()
    return pl.when((stripped != "") & _parsed(text).is_null()).then(stripped)


def validate(
    log,
    *,
    metric: str | None = None,
    a: str | None = None,
    b: str | None = None,
    by: Sequence[str] = (),
    keep: Sequence[str] = (),
    fold_case: bool = False,
    same_seeds: bool = True,
    attribute_settings: Sequence[str] = (),
    random_settings: Sequence[str] = (),
    **read_kwargs,
) -> Checked:
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
    keep : sequence of str
        Further columns to keep in the checked frame.
    fold_case : bool
        Treat values that differ only in case as one (values that differ only in surrounding
        spaces are always one, with a warning).
    same_seeds : bool
        Warn when an item's values were run with different seeds (turn off for a
        same-versus-same log whose second value used another seed block).
    attribute_settings : sequence of str
        Held-fixed settings that are part of the attribute by design (which model decides, which
        system prompt is used): they may differ between the values (no ``confounded_setting``).
    random_settings : sequence of str
        Settings drawn at random per call (a temperature sampled for every request): they may differ between
        runs and values here; the analysis checks that they are balanced across the values
        (:mod:`probestats.analyses.drawn`) and refuses them as a confound when not.

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
    if metric is not None:
        read_kwargs.setdefault("metric", metric)
    log = read_log(log, **read_kwargs)
    problems: list[Problem] = list(log.problems)
    schema = log.lazy.collect_schema()
    present = set(schema.names())
    cols = log.columns

    def header(canonical: str) -> str:
        return cols.get(canonical, canonical)

    for required in ("item", "variant"):
        if required not in present:
            problems.append(_missing(log, required))
    if metric is not None and metric not in present:
        problems.append(_missing(log, metric, is_metric=True))
    for name in list(by) + list(keep):
        if name not in present:
            # a header read under its canonical name (lang -> language) is named by that name
            renamed = [c for c, h in cols.items() if c != h and normalize_header(h) == normalize_header(name)]
            problems.append(Problem(
                "error", "missing_column",
                f"the header '{name}' is read as the column '{renamed[0]}'; name it '{renamed[0]}'" if renamed else
                f"no column '{name}' to split or keep; headers seen: {', '.join(log.headers)}",
                column=name))
    if has_errors(problems):
        return Checked(pl.DataFrame(), metric, a, b, (), tuple(problems), log, _row_count(log))

    wanted = ["item", "variant"] + [c for c in ("seed", "run_id", "time", *SETTINGS) if c in present]
    wanted += [c for c in list(by) + list(keep) if c not in wanted]
    if metric is not None and metric not in wanted:
        wanted.append(metric)
    problems += _lists(log, schema, wanted)
    if has_errors(problems):
        return Checked(pl.DataFrame(), metric, a, b, (), tuple(problems), log, _row_count(log))
    text_cols = {"item", "variant", "seed", "model", "system", "run_id", *by}
    exprs = [
        _as_text(pl.col(c), schema[c]).alias(c) if c in text_cols
        else pl.col(c)
        for c in wanted
    ]
    # numbers written as text are parsed as the file is read (in parallel, chunk by chunk), so a large
    # log's text is not held at all; the text of the few cells that gave no number is read back after
    parsed = [c for c in dict.fromkeys((metric, "temperature")) if c in wanted and schema[c] == pl.String]
    as_text = dict(zip(wanted, exprs))  # a column as text, should it turn out not to hold numbers
    exprs = [_parsed(pl.col(c)).alias(c) if c in parsed else e for c, e in zip(wanted, exprs)]
    # the values are read as written: the few distinct ones show whether any has surrounding spaces
    if _is_text(schema["variant"]):
        exprs[wanted.index("variant")] = pl.col("variant").cast(pl.String)
    lazy = log.lazy.select(*exprs, pl.col(ROW))
    from probestats.io.log import collect

    df = collect(lazy, log.source, log._path)
    if parsed:
        df = _read_back_text(df, log, metric, parsed, as_text.get("temperature"))
    counts = df.group_by("variant", maintain_order=True).len()  # each value as written, with its runs
    spaced = pl.col("variant") != pl.col("variant").str.strip_chars()
    if counts.select(spaced.any()).item():  # keep the spellings for the warning, then read them as one
        df = df.with_columns(pl.when(spaced).then(pl.col("variant")).alias(_SPACED), pl.col("variant").str.strip_chars())
        counts = None
    if "temperature" in df.columns:
        df = df.with_columns(_as_number(df["temperature"]))
    n_rows = df.height
    if n_rows == 0:
        where = log._read.get("where")
        problems.append(Problem("error", "empty_log",
                                f"no row of '{log.source}' meets {opt('where', where)}; loosen the condition"
                                if where is not None else
                                f"'{log.source}' has no data rows; add one row per run below the header"))
        return Checked(df, metric, a, b, (), tuple(problems), log)

    if df["variant"].null_count() or df["item"].null_count():
        df = df.with_columns(pl.col("variant").fill_null(""), pl.col("item").fill_null(""))
    blank_ids = df.filter((pl.col("item") == "") | (pl.col("variant") == ""))
    if blank_ids.height:
        problems.append(Problem(
            "warning", "blank_id",
            f"{blank_ids.height} run(s) have no item or no value ({format_rows(log, log.rows(blank_ids[ROW][:ROW_LIMIT]))}); they are left out",
            tuple(log.rows(blank_ids[ROW][:ROW_LIMIT]))))
        df = df.filter((pl.col("item") != "") & (pl.col("variant") != ""))
        counts = None

    if _SPACED in df.columns:
        problems += _spaced_values(df, log)
        df = df.drop(_SPACED)
    df, fold_problems, values = _near_duplicates(df, log, fold_case, counts)
    problems += fold_problems

    not_numbers = None
    if metric is not None:
        df, metric_problems, not_numbers = _metric(df, log, metric, header(metric))
        problems += metric_problems

    a, b, value_problems = _choose_values(values, a, b, log)
    problems += value_problems
    if has_errors(value_problems):
        return Checked(df, metric, a, b, values, tuple(problems), log, n_rows)

    pair = df if len(values) == 2 else df.filter(pl.col("variant").is_in([a, b]))  # no copy when only a and b
    summary = _cell_summary(pair, metric, by)
    cells = _side_by_side(summary, a, b)
    # with only a and b in the log, the cells say which items have runs (with values) of each
    seen = (_seen(summary, ["item", *by], a, b, pl.col("counted") > 0 if metric is not None else None, first=FIRST)
            if pair is df and (not_numbers is None or not not_numbers.len()) else None)
    problems += _unmatched(df, log, a, b, by, metric, not_numbers, seen)
    problems += _settings(pair, cells, log, a, b, [*by, *attribute_settings, *random_settings])
    if "seed" in pair.columns:
        if same_seeds:
            problems += _seed_mismatch(cells, log, a, b)
        if cells.select((pl.col("distinct_seeds") < pl.col("seeded"))
                        | (pl.col("distinct_seeds_b") < pl.col("seeded_b"))).to_series().any():
            problems += _duplicates(pair, log)
    if not any(p.code == "non_numeric" for p in problems):  # fix those first; their runs do not count yet
        problems += _unequal_runs(cells, log, a, b)
    if "time" in pair.columns:
        problems += _not_alternated(pair, log, a, b)
    if metric is not None:
        from probestats.checks.structure import likely_blocks

        problems += likely_blocks(log, metric, exclude=[*by, *keep, *attribute_settings])
        problems += _deterministic(cells)
        problems += sorted_metric(pair, log, metric, ["item", *[c for c in by if c in pair.columns], "variant"])
        if df[metric].null_count():
            df = df.filter(pl.col(metric).is_not_null())
    return Checked(df, metric, a, b, values, tuple(problems), log, n_rows, pairs=cells,
                   pairs_by=tuple(c for c in by if c in pair.columns))


def _row_count(log: Log) -> int:
    """The log's data rows, counted without reading its columns (validation stopped before reading them)."""
    from probestats.io.log import collect

    return int(collect(log.lazy.select(pl.len().alias("n")), log.source, log._path)["n"][0])


def _lists(log: Log, schema: pl.Schema, columns: list[str]) -> list[Problem]:
    """Columns that hold lists (a JSON array in a cell), which no check or analysis can read as one value."""
    from probestats.io.log import collect

    problems = []
    for c in columns:
        if isinstance(schema[c], (pl.List, pl.Array)):
            header = log.columns.get(c, c).strip()
            first = collect(log.lazy.filter(pl.col(c).is_not_null()).select(pl.col(c).cast(pl.List(pl.String)), ROW)
                            .head(1), log.source, log._path)
            rows = tuple(log.rows(first[ROW])) if first.height else ()
            shown = f" such as [{', '.join(v or 'null' for v in first[c][0])}] ({format_rows(log, rows)})" if rows else ""
            problems.append(Problem(
                "error", "list_value",
                f"{header} holds lists{shown}, not one value per run; write a single value in each cell",
                rows, log.columns.get(c)))
    return problems


def _missing(log: Log, name: str, is_metric: bool = False) -> Problem:
    seen = ", ".join(h.strip() for h in log.headers) or "(none)"
    if is_metric:
        hint = _metric_hint(log, name)
        msg = f"no column for the metric '{name}'; headers seen: {seen} ({hint})"
    else:
        # a sheet's reader names the empty cells of a title row __UNNAMED__n: the header is further down
        titled = any(h.startswith("__UNNAMED__") for h in log.headers)
        skip = f"skip the title rows above the header with {opt('skip_rows', 'N')}, or " if titled else ""
        msg = f"no '{name}' column; headers seen: {seen} ({skip}name one with {opt('columns', {name: 'HEADER'})})"
        if name == "variant":
            from probestats.shape.wide import looks_wide

            wide = looks_wide(log.headers)
            if wide:   # one metric column per value: the values are in the headers
                msg = (f"no '{name}' column; headers seen: {seen}; the log looks wide (one column per value): "
                       f"read it with {opt('wide', wide)}, or name the value column with "
                       f"{opt('columns', {name: 'HEADER'})}")
    return Problem("error", "missing_column", msg, column=name)


def _metric_hint(log: Log, name: str) -> str:
    not_metrics = {"item", "variant", "seed", "run_id", "time", "model", "temperature", "system", "prompt",
                   "reply", "framing", "topic", "language", "label", "prefix", "suffix", "asserts", "criterion"}
    taken = {h for c, h in log.columns.items() if c in not_metrics}
    free = [h for h in log.headers if h not in taken]
    if free:
        h = free[-1].strip()
        mapped = opt("columns", {name: h})
        return f"use {opt('metric', h)}, or {mapped}" if " " not in h else f"use {mapped}"
    return f"use {opt('columns', {name: 'HEADER'})}"


def _rows(log: Log, frame: pl.DataFrame) -> tuple[int, ...]:
    return tuple(log.rows(frame[ROW].head(ROW_LIMIT).to_list()))


def _spaced_values(df: pl.DataFrame, log: Log) -> list[Problem]:
    """Values written both with and without surrounding spaces: read as one value, and said so."""
    spaced = df.filter(pl.col(_SPACED).is_not_null())
    if not spaced.height:
        return []
    totals = dict(df.filter(pl.col("variant").is_in(spaced["variant"].unique().implode()))
                  .group_by("variant").len().iter_rows())
    problems = []
    for value, group in spaced.group_by("variant", maintain_order=True):
        value = value[0]
        spellings = group.group_by(_SPACED, maintain_order=True).len().rows()
        plain = totals[value] - group.height
        if plain:
            spellings.append((value, plain))
        if len(spellings) < 2:
            continue  # written the same way (spaces and all) in every run: nothing is split
        listed = [f"'{v}' ({count_of(n, 'row')})" for v, n in spellings]
        listed = ", ".join(listed[:-1]) + " and " + listed[-1]
        rows = _rows(log, group)
        problems.append(Problem(
            "warning", "near_duplicate_value",
            f"{listed} differ only in surrounding spaces; they are read as one value '{value}' "
            f"(spaces on {format_rows(log, rows)}); remove the spaces if they were not meant",
            rows, log.columns.get("variant")))
    return problems


def _near_duplicates(df: pl.DataFrame, log: Log, fold_case: bool, counts: pl.DataFrame | None = None):
    """Values that differ only in case: a warning, or one value with ``fold_case``.

    Returns the frame, the problems and the values in order of appearance. ``counts`` is the
    frame's runs per value (``variant``, ``len``), when already at hand.
    """
    if counts is None:
        counts = df.group_by("variant", maintain_order=True).len()
    values = tuple(counts["variant"].to_list())
    counts = counts.with_columns(pl.col("variant").str.strip_chars().str.to_lowercase().alias("_key"))
    groups = counts.group_by("_key", maintain_order=True).agg(pl.col("variant"), pl.col("len"))
    problems = []
    mapping = {}
    for key, variants, lens in groups.iter_rows():
        if len(variants) < 2:
            continue
        listed = " and ".join(f"'{v}' ({count_of(n, 'row')})" for v, n in zip(variants, lens))
        if fold_case:
            for v in variants:
                mapping[v] = variants[0]
            problems.append(Problem("warning", "near_duplicate_value",
                                    f"{listed} differ only in case; treated as one value '{variants[0]}' "
                                    f"({opt('fold_case', True)})",
                                    column=log.columns.get("variant")))
        else:
            problems.append(Problem("warning", "near_duplicate_value",
                                    f"{listed} differ only in case; use {opt('fold_case', True)} to treat them as "
                                    "one value",
                                    column=log.columns.get("variant")))
    if mapping:
        df = df.with_columns(pl.col("variant").replace(mapping))
        values = tuple(dict.fromkeys(mapping.get(v, v) for v in values))
    return df, problems, values


def _metric(df: pl.DataFrame, log: Log, metric: str, header: str):
    problems: list[Problem] = []
    bad_index = pl.Series([], dtype=pl.Int64).implode()
    col = df[metric]
    dtype = col.dtype
    if dtype == pl.Boolean:
        df = df.with_columns(pl.col(metric).cast(pl.Float64))
    elif _UNPARSED in df.columns or dtype in (pl.String, pl.Object, pl.Null):
        read_as_text = _UNPARSED in df.columns  # a text column of a file or frame, parsed as it was read
        if not read_as_text:
            if dtype == pl.Object:  # Python objects of mixed kinds: read each as the text it prints as
                df = df.with_columns(pl.Series(metric, [None if v is None else str(v) for v in col.to_list()],
                                               dtype=pl.String))
            text = pl.col(metric).cast(pl.String)
            df = df.with_columns(_parsed(text).alias(metric), _unparsed(text).alias(_UNPARSED))
        bad = df.filter(pl.col(_UNPARSED).is_not_null())
        bad_index = bad[ROW].implode()
        if bad.height:
            examples = bad[_UNPARSED].unique(maintain_order=True).head(3).to_list()
            shown = ", ".join(f"'{e}'" for e in examples)
            verb = "is not a number" if len(examples) == 1 else "are not numbers"
            problems.append(Problem(
                "error", "non_numeric",
                f"{header.strip()}: {shown} {verb} ({format_rows(log, _rows(log, bad))}); "
                "write the count as a number or clear the cell",
                _rows(log, bad), header))
        converted = df.height - df[metric].null_count()
        # CSV and TSV hold only text; elsewhere (JSON, JSONL, sheets) a number written as text is worth a
        # warning. A column with cells that are not numbers is text because of them: the error says so.
        if converted and not bad.height and not log._read.get("delimited") and read_as_text:
            problems.append(Problem(
                "warning", "numbers_as_text",
                f"{header.strip()}: {converted} number(s) were stored as text and were converted; "
                "format the column as numbers in the sheet", (), header))
        df = df.drop(_UNPARSED)
    elif dtype.is_numeric():
        df = df.with_columns(pl.col(metric).cast(pl.Float64))
    else:
        problems.append(Problem("error", "non_numeric",
                                f"{header.strip()}: the column holds {dtype} values, not numbers; choose a numeric "
                                f"{opt('metric')}",
                                (), header))
        return df.with_columns(pl.lit(None, pl.Float64).alias(metric)), problems, df[ROW]
    odd = df.select(pl.col(metric).is_nan().any().alias("nan"), pl.col(metric).is_infinite().any().alias("inf")).row(0)
    if odd[0]:  # not a number: a blank cell
        df = df.with_columns(pl.when(pl.col(metric).is_nan()).then(None).otherwise(pl.col(metric)).alias(metric))
    if odd[1]:  # 'inf' casts to a float but no mean or gap can use it
        infinite = df.filter(pl.col(metric).is_infinite())
        problems.append(Problem(
            "error", "non_numeric",
            f"{header.strip()}: {infinite.height} cell(s) hold an infinite value ({format_rows(log, _rows(log, infinite))}); "
            "write the count as a finite number or clear the cell",
            _rows(log, infinite), header))
        bad_index = pl.concat([bad_index.explode(), infinite[ROW]]).implode()
        df = df.with_columns(pl.when(pl.col(metric).is_infinite()).then(None).otherwise(pl.col(metric)).alias(metric))
    suspect = _suspect_rows(df, log, metric)
    if suspect is not None and suspect.height and _flagged(problems):
        suspect = suspect.filter(~pl.col(ROW).is_in(bad_index))  # a cell that is not a number has its own error
    if suspect is not None and suspect.height:
        problems.append(Problem(
            "warning", "suspect_metric",
            f"{header.strip()} is {'blank' if _binary(df[metric]) else '0 or blank'} in {suspect.height} run(s) "
            "whose reply is not empty "
            f"({format_rows(log, _rows(log, suspect))}); read those replies: the metric may have missed them "
            + ("(for example steps numbered '1)')" if "step" in f"{metric} {header}".lower() else
               "(a reply in a form the scorer did not expect, say)"),
            _rows(log, suspect), header))
    blank = df.filter(pl.col(metric).is_null()) if df[metric].null_count() else df.clear()
    if _flagged(problems):
        blank = blank.filter(~pl.col(ROW).is_in(bad_index))
    if blank.height:
        problems.append(Problem(
            "warning", "blank_metric",
            f"{blank.height} run(s) have no {header.strip()} value ({format_rows(log, _rows(log, blank))}): "
            f"{blank_per_value(df, blank)}; they are left out",
            _rows(log, blank), header))
    return df, problems, bad_index.explode().drop_nulls()


def blank_per_value(df: pl.DataFrame, blank: pl.DataFrame, limit: int = 6) -> str:
    """The blank runs counted per value, with each value's share of its own runs (most blank first).

    >>> df = pl.DataFrame({"variant": ["a"] * 4 + ["b"] * 4, "x": [None, None, 1.0, 2.0, 1.0, 2.0, 3.0, 4.0]})
    >>> blank_per_value(df, df.filter(pl.col("x").is_null()))
    "2 of 4 'a' runs (50%), 0 of 4 'b' runs"
    """
    runs = df.group_by("variant", maintain_order=True).len()
    blanks = dict(blank.group_by("variant").len().iter_rows())
    counted = sorted(((v, blanks.get(v, 0), n) for v, n in runs.iter_rows()), key=lambda t: -t[1] / t[2])
    shown = [f"{k} of {n} '{v}' runs" + (f" ({100 * k / n:.2g}%)" if k else "") for v, k, n in counted[:limit]]
    return ", ".join(shown) + (f" and {len(counted) - limit} more values" if len(counted) > limit else "")


def _flagged(problems) -> bool:
    """True when some cells were reported as not numbers."""
    return any(p.code == "non_numeric" and p.rows for p in problems)


def default_pair(values, a, b) -> tuple:
    """The values compared: ``a`` and ``b`` as given, each missing one the first value (in the log's
    order) other than those given; None where none is left.

    >>> default_pair(["x", "y", "z"], None, None), default_pair(["x", "y", "z"], None, "x"), default_pair(["x"], None, None)
    (('x', 'y'), ('y', 'x'), ('x', None))
    """
    rest = [v for v in values if v not in (a, b)]
    if a is None:
        a = rest.pop(0) if rest else None
    if b is None:
        b = rest.pop(0) if rest else None
    return a, b


def _choose_values(values, a, b, log: Log):
    problems = []
    col = log.columns.get("variant")
    for name, v in (("a", a), ("b", b)):
        if v is not None and v not in values:
            near = [x for x in values if x.strip().lower() == str(v).strip().lower()]
            hint = f"; did you mean '{near[0]}'?" if near else ""
            shown = ", ".join(f"'{x}'" for x in values[:12]) + (" ..." if len(values) > 12 else "")
            problems.append(Problem("error", "unknown_value",
                                    f"{opt(name, v)}: no such value in the log; values seen: {shown}{hint}", column=col))
    if problems:
        return a, b, problems
    a, b = default_pair(values, a, b)
    if a is None or b is None:
        problems.append(Problem("error", "too_few_values",
                                f"the log has only one value of the attribute ({', '.join(repr(v) for v in values) or 'none'}); "
                                "a probe compares two: add the other value's runs", column=col))
    elif a == b:
        problems.append(Problem("error", "unknown_value",
                                f"{opt('a')} and {opt('b')} are both '{a}'; compare two different values",
                                column=col))
    return a, b, problems


def _item_list(items: Iterable[str], limit: int = 10) -> str:
    items = list(items)
    text = ", ".join(items[:limit])
    return text + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _suspect_rows(df: pl.DataFrame, log: Log, metric: str) -> pl.DataFrame | None:
    """Runs whose metric is blank (or 0, for a metric that is not 0/1) while the reply is not empty.

    The reply text is read only for the candidate rows, so a large log's replies stay on disk.
    """
    if "reply" not in log.columns:
        return None
    binary = _binary(df[metric])   # a 0 of a 0/1 metric is an answer (a miss), not a reply the metric missed
    zero = pl.col(metric).is_null() if binary else (pl.col(metric).is_null() | (pl.col(metric) == 0))
    if not df.select(zero.any()).item():
        return df.clear()
    candidates = df.filter(zero)
    from probestats.io.log import collect

    has_reply = collect(
        log.lazy.filter(pl.col(ROW).is_in(candidates[ROW].implode()))
        .filter(pl.col("reply").cast(pl.String).str.strip_chars().str.len_bytes() > 0)
        .select(ROW),
        log.source, log._path)
    return candidates.filter(pl.col(ROW).is_in(has_reply[ROW].implode()))


def _binary(values: pl.Series) -> bool:
    """Every value with a number is 0 or 1."""
    values = values.drop_nulls()
    return values.len() > 0 and bool(values.is_in([0.0, 1.0]).all())


def _fingerprint(expr: pl.Expr) -> pl.Expr:
    """Equal for equal sets of values, whatever their order or repeats (64-bit hashes, wrapped sum)."""
    return expr.unique().hash(seed=_HASH_SEED).sum()


_HASH_SEED = 20261129


def _cells(pair: pl.DataFrame, metric: str | None, a: str, b: str, by) -> pl.DataFrame:
    """One row per item (and ``by`` group) with both values' runs, seeds, settings and spread side by side."""
    return _side_by_side(_cell_summary(pair, metric, by), a, b)


def _cell_summary(pair: pl.DataFrame, metric: str | None, by) -> pl.DataFrame:
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
        aggs += [pl.when(seed.is_not_null()).then(seed.hash(seed=_HASH_SEED)).sum().alias("seeds"),
                 seed.count().alias("seeded")]
    for setting in settings:
        value = _comparable(pair, setting)
        aggs += [value.min().alias(setting), _one_value(value).alias(f"__{setting}_one")]
    per = pair.lazy().group_by(cell).agg(aggs).sort(FIRST).collect(engine="streaming")
    if "__s" in per.columns:
        per = with_exact_moments(per, places)
    elif metric is not None:  # the few cells one pass of sums cannot average exactly
        per = finish_means(per, pair, cell, metric)
    if metric is not None and "first_valued" not in per.columns:
        per = per.with_columns(pl.col(FIRST).alias("first_valued"))
    exact = []
    if seeded:
        if _repeats_within_cells(pair, cell):
            exact += [_fingerprint(pl.col("seed").drop_nulls()).alias("seeds"),
                      pl.col("seed").drop_nulls().n_unique().alias("distinct_seeds")]
        else:
            per = per.with_columns(pl.col("seeded").alias("distinct_seeds"))
    for setting in settings:
        if per[f"__{setting}_one"].all():  # the fingerprint of a one-value set, as _fingerprint gives it
            per = per.with_columns(_setting_text(setting).hash(seed=_HASH_SEED))
        else:
            exact.append(_fingerprint(_setting_text(setting)).alias(setting))
    per = per.drop(f"__{s}_one" for s in settings)
    if exact:  # only for logs the cheap pass could not decide
        sets = pair.group_by(cell).agg(exact)
        per = per.drop(sets.columns[len(cell):], strict=False).join(sets, on=cell, nulls_equal=True, maintain_order="left")
    return per


def _side_by_side(per: pl.DataFrame, a: str, b: str) -> pl.DataFrame:
    """The cells of :func:`_cell_summary` for items with both values, value b's with the suffix ``_b``."""
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
    (:mod:`probestats.checks.exact`): the same whatever the order of the runs, and the same bits
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


def _comparable(frame: pl.DataFrame, setting: str) -> pl.Expr:
    """A setting's column as numbers or text, which have a minimum and a maximum."""
    dtype = frame.schema[setting]
    return pl.col(setting) if dtype == pl.String or dtype.is_numeric() else pl.col(setting).cast(pl.String)


def _one_value(value: pl.Expr) -> pl.Expr:
    """True when every row holds the same value, or every row is blank (a blank counts as a value)."""
    nulls = value.null_count()
    return ((nulls == 0) & (value.min() == value.max())) | (nulls == pl.len())


def _setting_text(setting: str) -> pl.Expr:
    return pl.col(setting).cast(pl.String).fill_null("(blank)")


def _repeats_within_cells(pair: pl.DataFrame, cell: list[str]) -> bool:
    """Whether some cell may hold a seed twice: equal hashes of (cell, seed), found by sorting.

    A hash collision can only say "may"; the caller then computes the exact sets.
    """
    rows = pair.lazy()
    if pair["seed"].null_count():
        rows = rows.filter(pl.col("seed").is_not_null())
    hashes = rows.select(pl.struct(*cell, "seed").hash(seed=_HASH_SEED).alias("h")).collect(engine="streaming")["h"]
    if "numpy" in sys.modules:  # loaded already (the analyses use it): its sort takes half the time of polars'
        import numpy as np

        ordered = np.sort(hashes.to_numpy())
        return bool((ordered[1:] == ordered[:-1]).any())
    ordered = hashes.sort()
    return bool((ordered.slice(1) == ordered.slice(0, max(ordered.len() - 1, 0))).any())


def _unmatched(df: pl.DataFrame, log: Log, a: str, b: str, by, metric: str | None = None,
               not_numbers: pl.Series | None = None, seen: pl.DataFrame | None = None) -> list[Problem]:
    problems = []
    keys = ["item", *by]
    if seen is None:
        valued = None
        if metric is not None:  # runs of a value whose metric cells are all blank (or not numbers) leave it out too
            valued = pl.col(metric).is_not_null()
            if not_numbers is not None and not_numbers.len():  # cells that are not numbers have their own error
                valued = valued | pl.col(ROW).is_in(not_numbers.implode())
        seen = _seen(df, keys, a, b, valued)
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
        rows = _rows(log, df.filter(mask))
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


def _seen(df: pl.DataFrame, keys: list[str], a: str, b: str, valued: pl.Expr | None,
          first: str = ROW) -> pl.DataFrame:
    """Per item (and ``by`` group), in order of appearance: has it runs of a and of b, and runs with a metric value?

    One streaming pass of sums: a large log needs no per-group lists. ``df`` is the runs, or the
    cells of :func:`_cell_summary` (``first=FIRST``, ``valued`` on its ``counted`` column).
    """
    aggs = [pl.col(first).min().alias(FIRST)]
    for side, v in (("a", a), ("b", b)):
        aggs.append(((pl.col("variant") == v).sum() > 0).alias(f"has_{side}"))
        if valued is not None:
            aggs.append((((pl.col("variant") == v) & valued).sum() > 0).alias(f"valued_{side}"))
    return df.lazy().group_by(keys).agg(aggs).sort(FIRST).drop(FIRST).collect(engine="streaming")


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
        rows = _rows(log, df.filter(mask & pl.col("variant").is_in(empty)))
        shown = " and ".join(f"'{v}'" for v in empty)
        problems.append(Problem(
            "error", "unmatched_item",
            f"{label} has {shown} runs but none with a {metric} value ({format_rows(log, rows)}); "
            f"fill in the values or drop the item (or {opt('complete', True)} to keep only the items measured under "
            "every value)",
            rows, log.columns.get("item")))
    return problems


def _settings(pair: pl.DataFrame, cells: pl.DataFrame, log: Log, a: str, b: str, by) -> list[Problem]:
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
            rows = _rows(log, odd)
            problems.append(Problem(
                "error", "confounded_setting",
                f"{header} differs between the compared values: '{a}' runs used {_show(sa)}, '{b}' runs used {_show(sb)} "
                f"(items {_item_list(differ['item'].to_list())}; {format_rows(log, rows)}); "
                f"rerun with {header} held fixed, split with {opt('by', setting)}, or, when it is varied on purpose "
                f"(which model decides), declare it with "
                + either(f"attribute_settings=['{setting}']", opt("attribute_settings", setting))
                + ((", or, when it was drawn at random for every call, with "
                    + either(f"random_settings=['{setting}']", opt("random_settings", setting)))
                   if setting == "temperature" else ""),
                rows, log.columns.get(setting)))
            continue
        if not pair.select(_one_value(_comparable(pair, setting))).item():  # more than one value in the log
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


def _seed_mismatch(cells: pl.DataFrame, log: Log, a: str, b: str) -> list[Problem]:
    differ = cells.filter(pl.col("seeds") != pl.col("seeds_b"))
    if not differ.height:
        return []
    return [Problem(
        "warning", "seed_mismatch",
        f"items {_item_list(differ['item'].to_list())} were run with different seeds for '{a}' and '{b}'; "
        "use the same seed list for both values so the runs are reproducible",
        (), log.columns.get("seed"))]


def _duplicates(pair: pl.DataFrame, log: Log) -> list[Problem]:
    keyed = pair.filter(pl.col("seed").is_not_null())
    if not keyed.select(pl.struct("item", "variant", "seed").is_duplicated().any()).item():
        return []
    dup = keyed.filter(pl.struct("item", "variant", "seed").is_duplicated())
    rows = _rows(log, dup)
    return [Problem(
        "warning", "duplicate_run",
        f"{dup.height} runs repeat the same item, value and seed ({format_rows(log, rows)}); "
        "remove the copies or give each run its own seed",
        rows, log.columns.get("seed"))]


def _unequal_runs(cells: pl.DataFrame, log: Log, a: str, b: str) -> list[Problem]:
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
    return [Problem("warning", "unequal_runs",
                    f"runs per value differ within items ({shown}{more}); each item's gap still counts once, and "
                    "the analysis rests on the exact within-item permutation of the value labels (the sign-flip, "
                    "sign, Wilcoxon and t tests need gaps symmetric about zero); rerun the missing runs if you can",
                    (), log.columns.get("variant"))]


def _not_alternated(pair: pl.DataFrame, log: Log, a: str, b: str) -> list[Problem]:
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


#: cells of this many runs (with two distinct values or more) show an order; this many of them must
SORTED_MIN_RUNS, SORTED_MIN_CELLS = 3, 3


def sorted_order(cells: pl.DataFrame) -> str | None:
    """``"ascending"`` or ``"descending"`` when every cell that can show an order (``counted`` runs of at
    least :data:`SORTED_MIN_RUNS`, smallest below largest, ``__up``/``__down`` steps between runs in row
    order) lists its runs in that order, and at least :data:`SORTED_MIN_CELLS` cells can; else None.

    A cell of k distinct values is in one given order by chance once in k! shuffles, so three cells of
    three runs in order happen by chance about once in 200 logs."""
    shows = cells.filter((pl.col("counted") >= SORTED_MIN_RUNS) & (pl.col("__min") < pl.col("__max")))
    if shows.height < SORTED_MIN_CELLS:
        return None
    if (shows["__down"] == 0).all():
        return "ascending"
    if (shows["__up"] == 0).all():
        return "descending"
    return None


def sorted_aggs(metric: str) -> list[pl.Expr]:
    """Per cell: its counted runs, smallest and largest value, and the steps up and down between
    consecutive runs in row order (for :func:`sorted_order`)."""
    v = pl.col(metric)
    step = v.drop_nulls().diff()
    return [v.count().alias("counted"), v.min().alias("__min"), v.max().alias("__max"),
            (step > 0).sum().alias("__up"), (step < 0).sum().alias("__down")]


def sorted_metric(pair: pl.DataFrame, log: Log, metric: str, cell: list[str]) -> list[Problem]:
    """The ``sorted_metric`` warning: within every item x value cell the rows list the runs in
    metric order (a sheet sorted by score), so the row order carries the metric.

    >>> from probestats.io.read import read_log
    >>> rows = [{"item": i, "variant": v, "steps": x} for i in range(3) for v in "ab" for x in (1, 2, 3)]
    >>> [p.code for p in sorted_metric(pl.DataFrame(rows), read_log(rows), "steps", ["item", "variant"])]
    ['sorted_metric']
    """
    cells = pair.group_by(cell, maintain_order=True).agg(sorted_aggs(metric))
    order = sorted_order(cells)
    if order is None:
        return []
    header = log.columns.get(metric, metric)
    shown = cells.filter((pl.col("counted") >= SORTED_MIN_RUNS) & (pl.col("__min") < pl.col("__max"))).height
    return [Problem(
        "warning", "sorted_metric",
        f"the rows of every item x value cell are in {order} order of {header} ({shown} cells of "
        f"{SORTED_MIN_RUNS} runs or more): the file was sorted by the metric, so its row order says nothing "
        "about when runs ran; nothing here splits runs by row order (the within-log noise draws its halves at "
        "random within cells), but keep the original order, with its seeds or times, if you have it",
        (), log.columns.get(metric))]


def _deterministic(cells: pl.DataFrame) -> list[Problem]:
    both = pl.concat([cells.select("counted", "constant"),
                      cells.select(pl.col("counted_b").alias("counted"), pl.col("constant_b").alias("constant"))])
    repeated = both.filter(pl.col("counted") > 1)
    if repeated.height and repeated["constant"].all():
        return [Problem(
            "warning", "deterministic",
            "every run of each item and value gave the same result: repeats add nothing, "
            "so the sample size is the number of items", (), None)]
    return []
