"""SQL that builds the cell table inside a warehouse (DuckDB, Spark), and checks to run there.

:func:`cell_query` writes, in the engine's dialect (translated by sqlglot from DuckDB's),
the aggregation whose result has the columns of :mod:`probestats.analyses.cells`: exact
sums as DECIMAL(38, 0) whole units of ``10**-places`` (the metric times ``10**places``,
rounded), cast to text so no later step rounds them, and the same sums over the first half
of each cell's runs (``ROW_NUMBER`` over the cell ordered by seed, then row order), from
which the within-log noise row is rebuilt. :func:`validation_queries` gives the
checks that can run in the engine: items lacking a value, settings that vary within an
item, repeated seeds, metric values finer than ``places`` decimals.

Dialects other than ``duckdb`` and ``spark`` are what sqlglot writes, not tested here.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from probestats.errors import OptionError

__all__ = ["cell_query", "validation_queries", "TESTED_DIALECTS"]

TESTED_DIALECTS = ("duckdb", "spark")
SETTINGS = ("model", "temperature", "system")


def _sqlglot():
    try:
        import sqlglot
    except ImportError:  # pragma: no cover - a declared dependency
        raise OptionError("probestats sql needs the sqlglot package: pip install sqlglot") from None
    return sqlglot


def _ident(name: str) -> str:
    from sqlglot import exp

    return exp.to_identifier(name, quoted=True).sql("duckdb")


def _literal(text: str) -> str:
    """A string literal (sqlglot escapes it for each dialect)."""
    from sqlglot import exp

    return exp.Literal.string(text).sql("duckdb")


def _source(table: str, metric: str, columns: Mapping[str, str], where: str | None,
            derive: Sequence[tuple[str, str]], order: str | None) -> str:
    """The log as a query: mapped columns under their canonical names, derived columns, the filter."""
    sqlglot = _sqlglot()
    try:
        table_sql = sqlglot.exp.to_table(table).sql("duckdb")
    except Exception:
        raise OptionError(f"--table {table}: not a table name (such as logs or db.schema.logs)") from None
    renames = ", ".join(f"{_ident(header)} AS {_ident(canon)}" for canon, header in columns.items())
    inner = f"SELECT *{', ' + renames if renames else ''} FROM {table_sql}"
    for name, expr in derive:
        _parse(expr, f"--derive {name}")
        inner = f"SELECT *, ({expr}) AS {_ident(name)} FROM ({inner}) AS d"
    if where:
        _parse(where, "--where")
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
        raise OptionError(f"--dialect {dialect}: sqlglot cannot write it ({str(exc).splitlines()[0]})") from None


def _halves(src: str, value: str, cell: str, seed: str | None) -> str:
    """``src`` with each run's rank among its cell's runs with a value (``__rank``, from 1), the
    cell's count of them (``__counted``) and whether its value's runs all have a seed (``__seeded``).

    The rank follows the within-log noise of the row log: seed as a number, then as text, then
    row order (nulls first); by row order alone for a value some of whose runs have no seed.
    """
    if seed:
        s = _ident(seed)
        seeded = (f"SUM(CASE WHEN {s} IS NULL AND {value} IS NOT NULL THEN 1 ELSE 0 END) "
                  f"OVER (PARTITION BY {_ident('variant')}) = 0")
        keys = (f"CASE WHEN __seeded THEN TRY_CAST({s} AS DOUBLE) END NULLS FIRST, "
                f"CASE WHEN __seeded THEN TRIM(CAST({s} AS VARCHAR)) END NULLS FIRST, ")
    else:
        seeded, keys = "FALSE", ""
    rank = (f"ROW_NUMBER() OVER (PARTITION BY {cell} ORDER BY CASE WHEN {value} IS NULL THEN 1 ELSE 0 END, "
            f"{keys}__row) AS __rank")
    return (f"SELECT *, {rank}, COUNT({value}) OVER (PARTITION BY {cell}) AS __counted "
            f"FROM (SELECT *, {seeded} AS __seeded FROM ({src}) AS r) AS h")


def cell_query(*, table: str, metric: str, dialect: str = "duckdb", by: Sequence[str] = (), places: int = 6,
               columns: Mapping[str, str] | None = None, where: str | None = None,
               derive: Sequence[tuple[str, str]] = (), order: str | None = None,
               seed: str | None = "seed", time: bool = False, runs: bool = False,
               settings: Sequence[str] = ()) -> str:
    """The query that builds the cell table from ``table``, in ``dialect``.

    ``order`` names a column giving the runs' order (a row number or a time), so items keep
    the log's order; without it items are ordered by their id. ``seed`` is the (canonical)
    seed column the halves of each cell are split by; None for a table without one (the
    halves then follow ``order``), and each cell's seeds are kept as a JSON list (``seeds``).
    ``settings``: held-fixed columns (model, temperature, system) kept per cell as its first run's
    value (the report's design section). ``time``: the table has a ``time`` column; each cell's
    first and last are kept (the report's run dates). ``runs``: each cell's values are kept, in order (``runs_units``), as a noise or pilot
    table for ``plan`` needs them.

    >>> sql = cell_query(table="logs", metric="steps")
    >>> "DECIMAL(38, 0)" in sql and "sum_units" in sql
    True
    """
    if not 0 <= int(places) <= 9:
        raise OptionError(f"--places {places}: give 0 to 9 decimal places")
    columns = dict(columns or {})
    value = _ident(metric)
    units = f"CAST(ROUND({value} * {10 ** int(places)}) AS DECIMAL(38, 0))"
    keys = [_ident(c) for c in by]
    group = ", ".join([*keys, _ident("item"), _ident("variant")])
    first = f"{value} IS NOT NULL AND 2 * __rank <= __counted"  # the first counted // 2 runs with a value
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
        f"CAST(SUM(CASE WHEN {first} THEN 1 ELSE 0 END) AS BIGINT) AS n_first",
        f"CAST(SUM(CASE WHEN {first} THEN {units} ELSE 0 END) AS VARCHAR) AS sum_units_first",
        f"CAST(SUM(CASE WHEN {first} THEN {units} * {units} ELSE 0 END) AS VARCHAR) AS sumsq_units_first",
        "CASE WHEN MIN(CASE WHEN __seeded THEN 1 ELSE 0 END) = 1 THEN 'seed' ELSE 'row order' END AS first_split",
        f"{_literal(metric)} AS metric",
        *[f"ARG_MIN({_ident(c)}, __row) AS {_ident(c)}" for c in settings],
        # LIST_DISTINCT, not a DISTINCT aggregate: Spark 4 cannot plan one beside LISTAGG ... WITHIN GROUP
        *([f"CAST(TO_JSON(LIST_DISTINCT(LIST(TRIM(CAST({_ident(seed)} AS VARCHAR))) "
           f"FILTER (WHERE {_ident(seed)} IS NOT NULL))) AS VARCHAR) AS seeds"] if seed else []),
        *([f"MIN({_ident('time')}) AS time_min", f"MAX({_ident('time')}) AS time_max"] if time else []),
        *([f"STRING_AGG(CAST({units} AS VARCHAR), ' ' ORDER BY __row) FILTER (WHERE {value} IS NOT NULL) "
           "AS runs_units"] if runs else []),
    ])
    src = _halves(_source(table, metric, columns, where, derive, order), value, group, seed)
    sql = f"SELECT {select} FROM ({src}) AS src GROUP BY {group} ORDER BY first_row"
    return _write(sql, dialect)


def validation_queries(*, table: str, metric: str, dialect: str = "duckdb", by: Sequence[str] = (),
                       places: int = 6, columns: Mapping[str, str] | None = None, where: str | None = None,
                       derive: Sequence[tuple[str, str]] = (), settings: Sequence[str] = SETTINGS,
                       seed: str | None = "seed") -> dict[str, str]:
    """Checks to run in the engine, each a query whose rows are problems (no rows: none).

    >>> sorted(validation_queries(table="logs", metric="steps", settings=("model",)))
    ['finer_than_places', 'repeated_seed', 'setting_varies_model', 'unmatched_item']
    """
    columns = dict(columns or {})
    src = _source(table, metric, columns, where, derive, None)
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
    return {name: _write(sql, dialect) for name, sql in out.items()}
