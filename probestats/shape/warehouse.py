"""SQL that builds the cell table inside a warehouse (DuckDB, Spark), and checks to run there.

:func:`cell_query` writes, in the engine's dialect (translated by sqlglot from DuckDB's),
the aggregation whose result has the columns of :mod:`probestats.analyses.cells`: exact
sums as DECIMAL(38, 0) whole units of ``10**-places`` (the metric times ``10**places``,
rounded), cast to text so no later step rounds them. :func:`validation_queries` gives the
checks that can run in the engine: items lacking a value, settings that vary within an
item, repeated seeds, metric values finer than ``places`` decimals.

The query carries **no within-log noise check**, and says so in its first lines
(:data:`NO_HALVES`). That check splits each cell's runs into two halves drawn at random with
a stated seed (:mod:`probestats.analyses.halves`); a split by seed or row order is not one (a
file sorted by the metric makes its halves unequal), and SQL engines cannot draw the same
random halves as probestats does. So the half columns are empty (``n_first`` 0,
``first_split`` ``none``) and the analysis of the table leaves the same-versus-same row out
with a warning that names what to do instead.

Dialects other than ``duckdb`` and ``spark`` are what sqlglot writes, not tested here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from probestats.errors import OptionError, opt

__all__ = ["Source", "cell_query", "validation_queries", "TESTED_DIALECTS", "NO_HALVES"]

#: what the query's first lines say about the within-log noise check it does not carry
NO_HALVES = ("-- no within-log noise check: the same-versus-same row needs each cell's runs split in halves drawn\n"
             "-- at random (seeded) as probestats draws them, which this SQL cannot do, so its half columns are empty.\n"
             "-- For that row, build the table from the row log (the cells command, or cell_table in Python),\n"
             "-- analyze the row log, or give a same-versus-same log as the noise log.\n")

TESTED_DIALECTS = ("duckdb", "spark")
SETTINGS = ("model", "temperature", "system")


@dataclass(frozen=True)
class Source:
    """The log as the warehouse holds it, and how every query reads it.

    Attributes
    ----------
    table : str
        The table (``logs``, ``db.schema.logs``).
    metric : str
        The metric column (canonical name).
    dialect : str
        The engine's SQL dialect (sqlglot's name; ``duckdb`` and ``spark`` are tested).
    by : sequence of str
        Columns that split the cells.
    places : int
        The metric's decimal places: sums are exact in whole units of ``10**-places``.
    columns : mapping
        ``canonical -> header``: the table's columns under the canonical names.
    where : str, optional
        An SQL condition; rows where it is not true are left out.
    derive : sequence of (name, expression)
        Columns computed before the filter.
    """

    table: str
    metric: str
    dialect: str = "duckdb"
    by: Sequence[str] = ()
    places: int = 6
    columns: Mapping[str, str] = field(default_factory=dict)
    where: str | None = None
    derive: Sequence[tuple[str, str]] = ()


def _sqlglot():
    try:
        import sqlglot
    except ImportError:  # pragma: no cover - a declared dependency
        raise OptionError("the warehouse SQL needs the sqlglot package: pip install sqlglot") from None
    return sqlglot


def _ident(name: str) -> str:
    from sqlglot import exp

    return exp.to_identifier(name, quoted=True).sql("duckdb")


def _literal(text: str) -> str:
    """A string literal (sqlglot escapes it for each dialect)."""
    from sqlglot import exp

    return exp.Literal.string(text).sql("duckdb")


def _source(source: Source, order: str | None) -> str:
    """The log as a query: mapped columns under their canonical names, derived columns, the filter; rows
    numbered in ``order`` (else by item and value)."""
    table, columns, where, derive = source.table, dict(source.columns or {}), source.where, source.derive
    sqlglot = _sqlglot()
    try:
        table_sql = sqlglot.exp.to_table(table).sql("duckdb")
    except Exception:
        raise OptionError(f"{opt('table', table)}: not a table name (such as logs or db.schema.logs)") from None
    renames = ", ".join(f"{_ident(header)} AS {_ident(canon)}" for canon, header in columns.items())
    inner = f"SELECT *{', ' + renames if renames else ''} FROM {table_sql}"
    for name, expr in derive:
        _parse(expr, opt("derive", f"{name} = {expr}"))
        inner = f"SELECT *, ({expr}) AS {_ident(name)} FROM ({inner}) AS d"
    if where:
        _parse(where, opt("where", where))
        inner = f"SELECT * FROM ({inner}) AS w WHERE {where}"
    rank = f"ORDER BY {_ident(order)}" if order else f"ORDER BY {_ident('item')}, {_ident('variant')}"
    return f"SELECT *, ROW_NUMBER() OVER ({rank}) AS __row FROM ({inner}) AS s"


def _parse(text: str, what: str) -> None:
    sqlglot = _sqlglot()
    try:
        sqlglot.parse_one(text, read="duckdb")
    except sqlglot.errors.ParseError as exc:
        raise OptionError(f"{what}: not an SQL expression ({str(exc).splitlines()[0]})") from None


def _write(sql: str, dialect: str) -> str:
    sqlglot = _sqlglot()
    try:
        return sqlglot.transpile(sql, read="duckdb", write=dialect, pretty=True)[0]
    except (ValueError, KeyError, sqlglot.errors.SqlglotError) as exc:
        raise OptionError(f"{opt('dialect', dialect)}: sqlglot cannot write it ({str(exc).splitlines()[0]})") from None


def cell_query(source: Source, *, order: str | None = None, seed: str | None = "seed", time: bool = False,
               runs: bool = False, settings: Sequence[str] = ()) -> str:
    """The query that builds the cell table from the ``source``'s table, in its dialect.

    ``order`` names a column giving the runs' order (a row number or a time), so items keep
    the log's order; without it items are ordered by their id. ``seed`` is the (canonical)
    seed column, each cell's seeds kept as a JSON list (``seeds``); None for a table without one.
    ``settings``: held-fixed columns (model, temperature, system) kept per cell as its first run's
    value (the report's design section). ``time``: the table has a ``time`` column; each cell's
    first and last are kept (the report's run dates). ``runs``: each cell's values are kept, in order (``runs_units``), as a noise or pilot
    table for ``plan`` needs them.

    >>> sql = cell_query(Source(table="logs", metric="steps"))
    >>> "DECIMAL(38, 0)" in sql and "sum_units" in sql
    True
    >>> sql.startswith("-- no within-log noise check") and ";" not in sql   # the query can sit inside COPY (...)
    True
    """
    metric, places, by = source.metric, source.places, source.by
    if not 0 <= int(places) <= 9:
        raise OptionError(f"{opt('places', places)}: give 0 to 9 decimal places")
    value = _ident(metric)
    units = f"CAST(ROUND({value} * {10 ** int(places)}) AS DECIMAL(38, 0))"
    keys = [_ident(c) for c in by]
    group = ", ".join([*keys, _ident("item"), _ident("variant")])
    select = ", ".join([
        *keys,
        f"CAST({_ident('item')} AS VARCHAR) AS item",
        f"CAST({_ident('variant')} AS VARCHAR) AS variant",
        "COUNT(*) AS n",
        f"COUNT({value}) AS counted",
        f"{int(places)} AS places",
        f"CAST(SUM({units}) AS VARCHAR) AS sum_units",
        f"CAST(SUM({units} * {units}) AS VARCHAR) AS sumsq_units",
        f"MIN({value}) AS min",
        f"MAX({value}) AS max",
        f"MIN(CASE WHEN {value} IS NOT NULL THEN __row END) AS first_row",
        # no halves: random halves as probestats draws them cannot be drawn here (see NO_HALVES)
        "CAST(0 AS BIGINT) AS n_first", "CAST('0' AS VARCHAR) AS sum_units_first",
        "CAST('0' AS VARCHAR) AS sumsq_units_first", "'none' AS first_split",
        f"{_literal(metric)} AS metric",
        *[f"ARG_MIN({_ident(c)}, __row) AS {_ident(c)}" for c in settings],
        # LIST_DISTINCT, not a DISTINCT aggregate: Spark 4 cannot plan one beside LISTAGG ... WITHIN GROUP
        *([f"CAST(TO_JSON(LIST_DISTINCT(LIST(TRIM(CAST({_ident(seed)} AS VARCHAR))) "
           f"FILTER (WHERE {_ident(seed)} IS NOT NULL))) AS VARCHAR) AS seeds"] if seed else []),
        *([f"MIN({_ident('time')}) AS time_min", f"MAX({_ident('time')}) AS time_max"] if time else []),
        *([f"STRING_AGG(CAST({units} AS VARCHAR), ' ' ORDER BY __row) FILTER (WHERE {value} IS NOT NULL) "
           "AS runs_units"] if runs else []),
    ])
    src = _source(source, order)
    sql = f"SELECT {select} FROM ({src}) AS src GROUP BY {group} ORDER BY first_row"
    return NO_HALVES + _write(sql, source.dialect)


def validation_queries(source: Source, *, settings: Sequence[str] = SETTINGS,
                       seed: str | None = "seed") -> dict[str, str]:
    """Checks to run in the engine, each a query whose rows are problems (no rows: none).

    >>> sorted(validation_queries(Source(table="logs", metric="steps"), settings=("model",)))
    ['finer_than_places', 'repeated_seed', 'setting_varies_model', 'unmatched_item']
    """
    metric, places, by = source.metric, source.places, source.by
    src = _source(source, None)
    keys = [_ident(c) for c in by]
    cell = ", ".join([*keys, _ident("item")])
    value = _ident(metric)
    out = {
        "unmatched_item": (
            f"SELECT {cell}, COUNT(DISTINCT {_ident('variant')}) AS values_with_a_metric FROM ({src}) AS src "
            f"WHERE {value} IS NOT NULL GROUP BY {cell} HAVING COUNT(DISTINCT {_ident('variant')}) < "
            f"(SELECT COUNT(DISTINCT {_ident('variant')}) FROM ({src}) AS all_rows)"),
        "finer_than_places": (
            f"SELECT {_ident('item')}, {_ident('variant')}, {value} FROM ({src}) AS src "
            f"WHERE ABS({value} * {10 ** int(places)} - ROUND({value} * {10 ** int(places)})) > "
            f"1e-6 * (1 + ABS({value} * {10 ** int(places)}))"),
    }
    for setting in settings:
        s = _ident(setting)
        out[f"setting_varies_{setting}"] = (
            f"SELECT {cell}, COUNT(DISTINCT {s}) AS distinct_values FROM ({src}) AS src "
            f"GROUP BY {cell} HAVING COUNT(DISTINCT {s}) > 1")
    if seed:
        out["repeated_seed"] = (
            f"SELECT {cell}, {_ident('variant')}, {_ident(seed)}, COUNT(*) AS runs FROM ({src}) AS src "
            f"GROUP BY {cell}, {_ident('variant')}, {_ident(seed)} HAVING COUNT(*) > 1")
    return {name: _write(sql, source.dialect) for name, sql in out.items()}
