"""Fields inside records: dotted paths, and lists turned into rows (``explode``).

A JSON record may hold an object (``{"meta": {"style": "formal"}}``) or a list
(``{"rounds": [{"flip": 1}, {"flip": 0}]}``). A **path** names a field inside it: the column,
then each field name or list position, joined by dots, positions counted from 1 (``-1`` is the
last): ``meta.style``, ``rounds.2.flip``; ``rounds[2].flip`` is the same path. A column whose
own name holds a dot is found first (the longest column name that begins the path wins).

Paths are read wherever a column is named: ``columns`` (``--column variant=meta.style``), the
keys of a lookup, a code book's column, and inside ``derive`` and ``where`` SQL as a quoted name
(``"rounds.2.flip" = 1``; SQL reads ``meta.style`` and ``rounds[2]`` by itself too).

``explode`` (``--explode [NAME=]PATH``) turns the list at PATH into rows: one row per element,
every other column repeated, the element in the column of the list (its fields then read as
``PATH.FIELD``) and its position, from 1, in the column NAME (default ``PATH_position``). A
record whose list is empty or missing has no rows (a warning counts them). Row numbers stay
those of the records.

Examples
--------
>>> frame = pl.DataFrame({"id": [1, 2], "rounds": [[{"flip": 1}, {"flip": 0}], [{"flip": 1}]]})
>>> frame.select(path_expr(frame.collect_schema(), "rounds.2.flip")).to_series().to_list()
[0, None]
>>> exploded, problems = explode(frame.lazy(), ["round=rounds"])
>>> exploded.select("id", "round", pl.col("rounds").struct.field("flip")).collect().rows()
[(1, 1, 1), (1, 2, 0), (2, 1, 1)]
"""

from __future__ import annotations

import re
from typing import Sequence

import polars as pl

from probestats.errors import ColumnError, OptionError, Problem, opt

__all__ = ["explode", "parse_explode", "path_expr", "split_path"]

_STEP = re.compile(r"\[(-?\d+)\]")


def split_path(name: str) -> list[str]:
    """The parts of a path: ``"rounds[2].flip"`` -> ``['rounds', '2', 'flip']``.

    >>> split_path("meta.style"), split_path("rounds[-1].flip")
    (['meta', 'style'], ['rounds', '-1', 'flip'])
    """
    return [p for p in _STEP.sub(r".\1", str(name)).split(".") if p != ""]


def path_expr(schema, name: str) -> pl.Expr | None:
    """The expression that reads the field ``name`` names, aliased ``name``; None when it names none.

    ``schema`` is the frame's (a mapping of column name to type). A name that is a column is not a
    path (None): the column is read as it is.
    """
    found = _walk(schema, name)
    return None if found is None else found[0].alias(name)


def path_type(schema, name: str):
    """The type of the field a path names (None when it names none)."""
    found = _walk(schema, name)
    return None if found is None else found[1]


def _walk(schema, name: str):
    if name in schema:
        return None
    parts = split_path(name)
    for cut in range(len(parts) - 1, 0, -1):   # the longest column name that begins the path
        head = ".".join(parts[:cut])
        if head in schema:
            return _follow(pl.col(head), schema[head], parts[cut:])
    return None


def _follow(expr: pl.Expr, dtype, steps: list[str]):
    for step in steps:
        if isinstance(dtype, pl.Struct):
            fields = {f.name: f.dtype for f in dtype.fields}
            if step not in fields:
                return None
            expr, dtype = expr.struct.field(step), fields[step]
        elif isinstance(dtype, (pl.List, pl.Array)) and re.fullmatch(r"-?\d+", step):
            k = int(step)
            if k == 0:
                return None
            expr, dtype = expr.list.get(k - 1 if k > 0 else k, null_on_oob=True), dtype.inner
        else:
            return None
    return expr, dtype


def with_paths(lazy: pl.LazyFrame, names: Sequence[str]) -> tuple[pl.LazyFrame, list[str]]:
    """``lazy`` with a column for each of ``names`` that is a path (not a column); the names added."""
    schema = lazy.collect_schema()
    added = []
    for name in dict.fromkeys(names):
        expr = path_expr(schema, name)
        if expr is not None:
            added.append(name)
            lazy = lazy.with_columns(expr)
    return lazy, added


def parse_explode(spec: str) -> tuple[str, str]:
    """``[NAME=]PATH`` as (position column, path).

    >>> parse_explode("rounds"), parse_explode("round = turns.all")
    (('rounds_position', 'rounds'), ('round', 'turns.all'))
    """
    name, sep, path = str(spec).partition("=")
    if not sep:
        name, path = "", name
    name, path = name.strip(), path.strip()
    if not path or (sep and not name):
        raise OptionError(f"{opt('explode', str(spec))}: expected PATH or NAME=PATH (the list's path and the column "
                          f"for each element's position), for example {opt('explode', 'round=pressure_rounds')}")
    return (name or f"{path}_position"), path


def explode(lazy: pl.LazyFrame, specs: Sequence[str]) -> tuple[pl.LazyFrame, list[Problem]]:
    """One row per element of each list ``specs`` name (see the module docstring), in order."""
    problems = []
    for spec in specs:
        position, path = parse_explode(spec)
        schema = lazy.collect_schema()
        dtype = schema.get(path) if path in schema else path_type(schema, path)
        if dtype is None:
            seen = ", ".join(n for n in schema.names() if not n.startswith("_"))
            raise ColumnError(f"{opt('explode', spec)}: no column or field '{path}' in the log; columns seen: {seen} "
                              "(a field inside a record is named by its path, such as rounds or meta.turns)")
        if not isinstance(dtype, (pl.List, pl.Array)):
            raise OptionError(f"{opt('explode', spec)}: '{path}' holds {dtype}, not a list; name a field that holds a "
                              "list of values or records")
        if position in schema:
            raise ColumnError(f"{opt('explode', spec)}: the log already has a column '{position}'; name the position "
                              f"column yourself, for example {opt('explode', 'round=' + path)}")
        element = pl.col(path) if path in schema else path_expr(schema, path)
        lazy = lazy.with_columns(element.cast(pl.List(dtype.inner)).alias(path))
        empty = pl.col(path).list.len().fill_null(0) == 0
        lazy = lazy.with_columns(pl.int_ranges(1, pl.col(path).list.len() + 1, dtype=pl.Int64).alias(position))
        lazy = lazy.with_columns(empty.alias("\0empty"))
        counts = lazy.select(pl.col("\0empty").sum(), pl.len()).collect().row(0)
        if counts[0]:
            problems.append(Problem("warning", "empty_list",
                                    f"{opt('explode', spec)}: {counts[0]} of {counts[1]} records hold no element in "
                                    f"'{path}' (an empty or missing list); they have no rows"))
        lazy = lazy.filter(~pl.col("\0empty")).drop("\0empty").explode(path, position)
    return lazy, problems
