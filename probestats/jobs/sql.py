"""The warehouse's cell table as one library call: the SQL that builds it and the checks to run there, as
``probestats sql`` prints them.

:func:`sql` returns the text the command prints: the query of :func:`probestats.shape.warehouse.cell_query`
and each of :func:`probestats.shape.warehouse.validation_queries`, each with its comment.
"""

from __future__ import annotations

from probestats.errors import OptionError, either, opt
from probestats.shape.derive import parse_derive
from probestats.shape.warehouse import Source, TESTED_DIALECTS, cell_query, validation_queries
from probestats.vocabulary import column_names

__all__ = ["sql"]


def sql(*, table, metric, dialect="duckdb", by=(), where=None, derive=(), columns=None, order_column=None, places=6,
        no_seed=False, with_time=False, keep_runs=False, keep_settings=()) -> str:
    """The SQL that builds the cell table in a warehouse, and validation queries to run there.

    Parameters
    ----------
    table : str
        The table or view holding the log, one row per run (``db.schema.logs``).
    metric : str
        The metric column.
    dialect : str
        ``duckdb`` or ``spark`` (tested); other sqlglot dialects are written but not tested here.
    by : sequence of str
        Groups: a cell per group too.
    where : str, optional
        Keep only rows where this SQL condition holds.
    derive : sequence of "NAME = SQL"
        Columns from SQL expressions (one can be the metric).
    columns : mapping, optional
        The table's column for a canonical one, ``{"item": "question_id"}``.
    order_column : str, optional
        A column giving the runs' order (a row number or a time): items keep it.
    places : int
        Decimal places of the metric's values; sums are exact whole units of ``10**-places``.
    no_seed : bool
        The table has no seed column: each cell's halves (the within-log noise) follow ``order_column``.
    with_time : bool
        The table has a time column: keep each cell's first and last time (the report's run dates).
    keep_runs : bool
        Keep each cell's values, as a noise or pilot table for :func:`probestats.plan` needs them.
    keep_settings : sequence of {"model", "temperature", "system"}
        Held-fixed setting columns to keep per cell (their first run's value), for the report.

    Returns
    -------
    str
        The query and the checks, each with a comment saying what to do with it (every row a check
        returns is a problem).

    Examples
    --------
    >>> text = sql(table="logs", metric="steps")
    >>> text.splitlines()[0]
    '-- the cell table: save the result as Parquet or CSV, then'
    >>> [line for line in text.splitlines() if line.startswith("-- check")][:2]
    ['-- check unmatched_item: every row returned is a problem', '-- check finer_than_places: every row returned is a problem']
    """
    if not isinstance(metric, str):
        raise OptionError(f"{opt('metric', metric)}: expected the metric's column name, for example "
                          f"{opt('metric', 'steps')}")
    for name, value, example in (("where", where, "model = 'm1'"), ("order_column", order_column, "time"),
                                 ("dialect", dialect, "duckdb")):
        if value is not None and not isinstance(value, str):
            raise OptionError(f"{opt(name, value)}: expected a text, for example {opt(name, example)}")
    if columns is not None and not isinstance(columns, dict):
        raise OptionError(f"{opt('columns', columns)}: expected a mapping of names to the table's columns, for "
                          f"example {opt('columns', {'item': 'question_id'})}")
    by = column_names("by", by)
    derive = column_names("derive", derive, "x = a + b", "an expression NAME = SQL")
    keep_settings = column_names("keep_settings", keep_settings, "model")
    source = Source(table=table, metric=metric, dialect=dialect.lower(), by=by, places=places,
                    columns=dict(columns or {}), where=where, derive=[parse_derive(d) for d in derive])
    seed = None if no_seed else "seed"
    query = cell_query(source, order=order_column, seed=seed, time=with_time, runs=keep_runs,
                       settings=tuple(keep_settings))
    checks = validation_queries(source, seed=seed)
    note = "" if dialect.lower() in TESTED_DIALECTS else f" (dialect {dialect}: written by sqlglot, not tested)"
    then = either(f"probestats.analyze(FILE, metric={metric!r})", f"probestats analyze FILE --metric {metric}")
    parts = [f"-- the cell table{note}: save the result as Parquet or CSV, then\n-- {then}\n{query};\n"]
    parts += [f"-- check {name}: every row returned is a problem\n{text};\n" for name, text in checks.items()]
    return "".join(part + "\n" for part in parts)
