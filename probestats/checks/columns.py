"""The columns validation reads: each one present (a missing one named with the headers seen), one value
per cell (no lists), ids read as text the same way whatever the source, and numbers written as text
parsed as the file is read, the text of the cells that gave no number read back after."""

from __future__ import annotations

import polars as pl

from probestats.errors import Problem, either, opt
from probestats.io.columns import ROW, normalize_header
from probestats.io.log import Log, collect, format_rows

__all__ = ["UNPARSED", "ROW_LIMIT", "is_text", "as_id_text", "as_number", "text_as_number", "text_not_number",
           "read_back_text", "list_columns", "explode_fix", "record_field", "field_fix", "missing_column",
           "problem_rows"]

# internal columns, named so that no log's own column is likely to clash with them
UNPARSED = "__unparsed"  # the metric cells that are not numbers, as written
_TEMPERATURE = "__temperature"  # read back: a temperature cell that is not blank gave no number
ROW_LIMIT = 50  # rows listed per problem; the message says how many there are in all


def is_text(dtype) -> bool:
    """Text, or text with a fixed set of values (categorical or enum columns of a frame)."""
    return dtype == pl.String or dtype == pl.Categorical or isinstance(dtype, pl.Enum)


def as_id_text(expr: pl.Expr, dtype) -> pl.Expr:
    """Cast ids to text the same way whatever the source: 3.0 and 3 both read '3', ' 3' reads '3'."""
    if dtype in (pl.Float32, pl.Float64):
        return (
            pl.when(expr.is_not_null() & (expr == expr.round(0)) & expr.abs().lt(2**53))
            .then(expr.cast(pl.Int64).cast(pl.String))
            .otherwise(expr.cast(pl.String))
        )
    if is_text(dtype):
        return expr.cast(pl.String).str.strip_chars()
    return expr.cast(pl.String)


def as_number(series: pl.Series) -> pl.Series:
    """A setting such as temperature as a float when every cell is a number, so 0.8 and "0.8" compare equal.

    A number is one number however it is written: -0.0 is 0.0, and NaN (not a number) is a blank
    cell, so a cell of runs at 0.0 and -0.0 holds one temperature and a NaN run stands out.

    >>> as_number(pl.Series(["0.8", " 0.8", None])).to_list()
    [0.8, 0.8, None]
    >>> as_number(pl.Series(["0.8", "default"])).to_list()
    ['0.8', 'default']
    >>> [str(x) for x in as_number(pl.Series([0.0, -0.0, float("nan")]))]
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


def read_back_text(df: pl.DataFrame, log: Log, metric: str | None, parsed: list[str],
                    temperature_text: pl.Expr | None = None) -> pl.DataFrame:
    """Add what the parse in the read dropped: the text of metric cells that are not numbers, and
    the temperature as text (``temperature_text``) when some cell of it is not a number.

    Only rows where a parsed column is blank are read again (none in a clean log). The metric's
    text goes to the ``UNPARSED`` column, as :func:`check_metric` expects. A temperature that is the
    metric is read as the metric.
    """
    setting = "temperature" in parsed and metric != "temperature"
    blank = pl.any_horizontal([pl.col(c).is_null() for c in parsed])
    if not df.select(blank.any()).item():
        if metric in parsed:
            df = df.with_columns(pl.lit(None, pl.String).alias(UNPARSED))
        return df
    rows = df.filter(blank)[ROW].implode()
    back = [text_not_number(pl.col(metric)).alias(UNPARSED)] if metric in parsed else []
    if setting:  # a cell that is not blank but gave no number: the column is text
        text = pl.col("temperature")
        back.append((text.is_not_null() & text_as_number(text).is_null()).alias(_TEMPERATURE))
    again = collect(log.lazy.filter(pl.col(ROW).is_in(rows)).select(ROW, *back), log.source, log._path)
    if metric in parsed:
        df = df.join(again.select(ROW, UNPARSED), on=ROW, how="left", maintain_order="left")
    if setting and again[_TEMPERATURE].any():
        text = collect(log.lazy.select(temperature_text.alias("temperature"), ROW), log.source, log._path)
        df = df.with_columns(text.join(df.select(ROW), on=ROW, how="right", maintain_order="right")["temperature"])
    return df


def text_as_number(text: pl.Expr) -> pl.Expr:
    """Text cells as numbers: surrounding spaces ignored, a blank cell and a cell that is not a number null."""
    return text.str.strip_chars().cast(pl.Float64, strict=False)


def text_not_number(text: pl.Expr) -> pl.Expr:
    """The (stripped) text of the cells :func:`text_as_number` could not read as a number; null elsewhere."""
    stripped = text.str.strip_chars()
    return pl.when((stripped != "") & text_as_number(text).is_null()).then(stripped)


def list_columns(log: Log, schema: pl.Schema, columns: list[str], metric: str | None = None) -> list[Problem]:
    """Columns that hold lists (a JSON array in a cell), which no check or analysis can read as one value; a
    ``metric`` of lists is told how to read each element as a run (by its mapped name, which explode reads)."""
    problems = []
    for c in columns:
        if isinstance(schema[c], (pl.List, pl.Array)):
            header = log.columns.get(c, c).strip()
            inner = getattr(schema[c], "inner", None)
            # records inside the list (whose keys may differ) are shown as JSON; values cast to text
            as_text = pl.col(c) if inner is not None and inner.is_nested() else pl.col(c).cast(pl.List(pl.String))
            first = collect(log.lazy.filter(pl.col(c).is_not_null()).select(as_text, ROW).head(1), log.source,
                            log._path)
            rows = tuple(log.rows(first[ROW])) if first.height else ()
            elements = [_element_text(v) for v in first[c][0]] if rows else []
            shown = f" such as [{', '.join(elements)}] ({format_rows(log, rows)})" if rows else ""
            field = record_field(schema[c], c, None) if c == metric else None
            fix = (field_fix(c, field, explode=True) if field else explode_fix(c)) if c == metric else ""
            problems.append(Problem(
                "error", "list_value",
                f"{header} holds lists{shown}, not one value per run; "
                + (f"{fix}, or " if fix else "") + "write a single value in each cell",
                rows, log.columns.get(c)))
    return problems


def _element_text(value) -> str:
    """One element of a list cell as text: a record as compact JSON (its null keys left out), else as written.

    >>> _element_text({"score": 4, "note": None}), _element_text("3"), _element_text(None)
    ('{"score":4}', '3', 'null')
    """
    if isinstance(value, (dict, list)):
        import json

        kept = {k: v for k, v in value.items() if v is not None} if isinstance(value, dict) else value
        text = json.dumps(kept, ensure_ascii=False, separators=(",", ":"), default=str)
        return text if len(text) <= 60 else text[:57] + "..."
    return "null" if value is None else str(value)


def explode_fix(header: str, seeds: bool = True) -> str:
    """How to read a column of lists as runs, one per element, in the caller's spelling (``seeds``: say how to
    number them as seeds, which a probe's runs have and a judge's or framing's rows need not).

    >>> explode_fix("steps")
    "turn each list into runs with probe=Probe(explode=('steps',)) (explode=('seed=steps',) numbers them as seeds)"
    >>> explode_fix("reply", seeds=False)
    "turn each list into rows with probe=Probe(explode=('reply',))"
    """
    how = either(f"probe=Probe(explode=({header!r},))", opt("explode", header))
    seeded = either(f"explode=('seed={header}',)", opt("explode", f"seed={header}"))
    return f"turn each list into runs with {how} ({seeded} numbers them as seeds)" if seeds else \
        f"turn each list into rows with {how}"


def record_field(dtype, column: str, name: str | None) -> str | None:
    """The numeric field of the records ``column`` holds (a struct, or a list of structs) that the metric
    ``name`` names (``score`` or ``column.score``), or, with ``name`` None, its first numeric field; None if none.

    >>> rounds = pl.List(pl.Struct({"note": pl.String, "score": pl.Int64}))
    >>> record_field(rounds, "rounds", "rounds.score"), record_field(rounds, "rounds", None)
    ('score', 'score')
    >>> record_field(rounds, "rounds", "note"), record_field(pl.Int64, "rounds", "score")
    (None, None)
    """
    inner = dtype.inner if isinstance(dtype, (pl.List, pl.Array)) else dtype
    if not isinstance(inner, pl.Struct):
        return None
    numeric = [f.name for f in inner.fields if f.dtype.is_numeric() or f.dtype == pl.Boolean]
    if name is None:
        return numeric[0] if numeric else None
    return next((f for f in numeric if name in (f, f"{column}.{f}")), None)


def field_fix(column: str, field: str, explode: bool) -> str:
    """How to read the field ``field`` of the records in ``column`` as the metric (``explode``: ``column`` holds a
    list of them, one per run), in the caller's spelling: options that work when given as they are written.

    >>> field_fix("rounds", "score", True)
    "turn each list into runs and read its records' field with probe=Probe(explode=('rounds',), columns={'score': 'rounds.score'}), metric='score'"
    """
    name = field if field not in ("item", "variant") else f"{column}_{field}"
    path = f"{column}.{field}"
    python = (f"probe=Probe({f'explode=({column!r},), ' if explode else ''}columns={{{name!r}: {path!r}}}), "
              f"metric={name!r}")
    cli = " ".join([*([opt("explode", column)] if explode else []), opt("columns", {name: path}), opt("metric", name)])
    with_python = either(python, cli)
    return (f"turn each list into runs and read its records' field with {with_python}" if explode
            else f"read the records' field with {with_python}")


def _field_hint(log: Log, name: str) -> str | None:
    """The way to read ``name`` from a field of a column of records (or lists of them), if one holds it."""
    schema = log.lazy.collect_schema()
    for column, dtype in schema.items():
        field = record_field(dtype, column, name)
        if field:
            return field_fix(column, field, explode=isinstance(dtype, (pl.List, pl.Array)))
    return None


def missing_column(log: Log, name: str, is_metric: bool = False, metric: str | None = None) -> Problem:
    """The ``missing_column`` error for the column ``name`` (the metric when ``is_metric``), with the headers
    seen and how to name one: for the value, the file names when several files differ in nothing else it
    could be, or a wide layout when its columns hold numbers of one metric (``metric``: the one named)."""
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
            wide = _wide_hint(log, metric)
            stems = _file_values(log)
            if stems:   # several files, one per value most likely: the value in their names
                part = (f" (or from a part of each name with a pattern, such as "
                        f"{opt('file_pattern', '{' + name + '}_{}')})") if all("_" in v for v in stems) else ""
                msg = (f"no '{name}' column; headers seen: {seen}; the {len(stems)} files may each hold one value "
                       f"({', '.join(repr(v) for v in stems[:3])}{' ...' if len(stems) > 3 else ''}): read it from "
                       f"their names with {opt('columns', {name: 'file_stem'})}{part}, or name the value column "
                       f"with {opt('columns', {name: 'HEADER'})}")
            elif wide:   # one metric column per value: the values are in the headers
                msg = (f"no '{name}' column; headers seen: {seen}; the log looks wide (one column per value): "
                       f"read it with {opt('wide', wide)}, or name the value column with "
                       f"{opt('columns', {name: 'HEADER'})}")
    return Problem("error", "missing_column", msg, column=name)


def _file_values(log: Log) -> list[str]:
    """The stems of the files a log of several files was read from, when they are several (else none)."""
    if "file_stem" not in log.lazy.collect_schema().names():
        return []
    stems = collect(log.lazy.select(pl.col("file_stem").unique(maintain_order=True).head(50)), log.source,
                    log._path)["file_stem"].to_list()
    return stems if len(stems) >= 2 else []


def _wide_hint(log: Log, metric: str | None) -> str | None:
    """The ``wide`` list to suggest: headers that look wide (:func:`probestats.shape.wide.looks_wide`) and hold
    values of one metric: numbers in every cell, in overlapping ranges, none of them ids or the metric named
    itself (``response_time,response_length`` are two measures, ``prompt_id,response_id`` two ids)."""
    # lazy: shape.wide is off the paired analysis's path (tests/test_start.py)
    from probestats.shape.wide import looks_wide

    wide = looks_wide(log.headers, metric)
    if not wide:
        return None
    headers = wide.split(",")
    if metric is not None and any(normalize_header(h) == normalize_header(metric) for h in headers):
        return None
    if any(normalize_header(h).split("_")[-1] in ("id", "ids", "key", "name") or
           normalize_header(h).split("_")[0] in ("id",) for h in headers):
        return None
    schema = log.lazy.collect_schema()
    columns = {h: next((c for c, header in log.columns.items() if header == h and c in schema), h) for h in headers}
    if any(c not in schema for c in columns.values()):
        return wide
    numbers = [pl.col(c).cast(pl.String).str.strip_chars().cast(pl.Float64, strict=False) for c in columns.values()]
    filled = [pl.col(c).cast(pl.String).str.strip_chars().replace("", None) for c in columns.values()]
    ranges = collect(log.lazy.select(
        *[n.min().alias(f"lo{i}") for i, n in enumerate(numbers)], *[n.max().alias(f"hi{i}") for i, n in enumerate(numbers)],
        *[(f.is_not_null() & n.is_null()).sum().alias(f"text{i}") for i, (f, n) in enumerate(zip(filled, numbers))]),
        log.source, log._path).row(0, named=True)
    k = len(numbers)
    if any(ranges[f"text{i}"] for i in range(k)) or any(ranges[f"lo{i}"] is None for i in range(k)):
        return None   # text in a cell, or a column of no number: not values of a metric
    if max(ranges[f"lo{i}"] for i in range(k)) > min(ranges[f"hi{i}"] for i in range(k)):
        return None   # ranges apart: measures of different things
    return wide


def _metric_hint(log: Log, name: str) -> str:
    field = _field_hint(log, name)
    if field:
        return field
    schema = log.lazy.collect_schema()
    nested = {c for c, dtype in schema.items() if dtype.is_nested()}
    not_metrics = {"item", "variant", "seed", "run_id", "time", "model", "temperature", "system", "prompt",
                   "reply", "framing", "topic", "language", "label", "prefix", "suffix", "asserts", "criterion"}
    taken = {h for c, h in log.columns.items() if c in not_metrics} | set(log._read.get("file_columns", ()))
    # no column of records or lists, nor the positions an explode numbered, is a metric to suggest
    free = [h for h in log.headers if h not in taken and h not in nested
            and not any(h == f"{c}_position" for c in nested)]
    if free:
        h = free[-1].strip()
        mapped = opt("columns", {name: h})
        return f"use {opt('metric', h)}, or {mapped}" if " " not in h else f"use {mapped}"
    return f"use {opt('columns', {name: 'HEADER'})}"


def problem_rows(log: Log, frame: pl.DataFrame) -> tuple[int, ...]:
    """The rows of ``frame`` a problem lists (at most :data:`ROW_LIMIT`), numbered as a person sees them."""
    return tuple(log.rows(frame[ROW].head(ROW_LIMIT).to_list()))
