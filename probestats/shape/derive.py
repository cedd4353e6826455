"""Filters and derived metrics: ``--where`` and ``--derive``, applied to a log before validation.

Both are polars SQL expressions (:func:`polars.sql_expr`) over the log's columns as
read (canonical names such as ``item``, ``variant``, ``reply``, and every other
header as written). A derived column can be the ``--metric``.

CSV files are read as text, so a column whose every value is a number (``"52"``)
is compared as a number inside these expressions; the column itself is left as it
was read (item ``"03"`` stays ``"03"``).

Examples
--------
>>> rows = [{"item": 1, "variant": "formal", "words": 60, "steps": 4},
...         {"item": 1, "variant": "casual", "words": 40, "steps": 3}]
>>> log = apply(rows, where="words > 10", derive=["long = words > 50", "half = steps / 2"])
>>> log.frame.select("variant", "long", "half").rows()
[('formal', True, 2.0), ('casual', False, 1.5)]
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

import polars as pl

from probestats.errors import ColumnError, OptionError, Problem
from probestats.io.read import ROW, Log, read_log

__all__ = ["apply", "parse_derive"]

_DERIVE = re.compile(r"^\s*(?:\"([^\"]+)\"|([A-Za-z_][A-Za-z0-9_]*))\s*=(?!=)\s*(.+?)\s*$", re.S)


def parse_derive(text: str) -> tuple[str, str]:
    """Split ``"name = SQL expression"`` into the new column's name and the expression.

    Examples
    --------
    >>> parse_derive("long = words > 50")
    ('long', 'words > 50')
    >>> parse_derive('"is long" = words >= 50')
    ('is long', 'words >= 50')
    >>> parse_derive("words > 50")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: --derive 'words > 50': expected NAME = SQL expression, for example --derive "long = words > 50"
    """
    m = _DERIVE.match(text or "")
    if not m:
        raise OptionError(f"--derive '{text}': expected NAME = SQL expression, "
                          "for example --derive \"long = words > 50\"")
    return (m.group(1) or m.group(2)), m.group(3)


#: bounds on one --where or --derive expression: polars' SQL parser recurses per operator (thousands of
#: terms crash the process) and its plans grow with them
MAX_EXPRESSION_CHARS = 2000
MAX_EXPRESSION_OPERATORS = 100
MAX_EXPRESSION_DEPTH = 20

_LITERAL = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")
_OPERATOR = re.compile(r"<=|>=|<>|!=|\|\||[-+*/%=<>&|^]|\b(?:and|or|not|when|like|in)\b", re.I)


def check_expression(option: str, text: str) -> None:
    """Refuse an expression too long or too deep to hand to the SQL parser, naming the bound.

    >>> check_expression("--derive", "x = steps * 2 + 1")
    >>> check_expression("--where", "+".join(["1"] * 500))
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: --where '1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+...': 499 operators, more than the 100 allowed in one expression; split it into several --derive steps, each using the one before
    """
    shown = text if len(text) <= 40 else text[:40] + "..."
    split = "split it into several --derive steps, each using the one before"
    if len(text) > MAX_EXPRESSION_CHARS:
        raise OptionError(f"{option} '{shown}': {len(text):,} characters, more than the {MAX_EXPRESSION_CHARS:,} "
                          f"allowed in one expression; {split}")
    bare = _LITERAL.sub("''", text)
    operators = len(_OPERATOR.findall(bare))
    if operators > MAX_EXPRESSION_OPERATORS:
        raise OptionError(f"{option} '{shown}': {operators} operators, more than the {MAX_EXPRESSION_OPERATORS} "
                          f"allowed in one expression; {split}")
    depth = deepest = 0
    for ch in bare:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
    if deepest > MAX_EXPRESSION_DEPTH:
        raise OptionError(f"{option} '{shown}': parentheses {deepest} deep, more than the {MAX_EXPRESSION_DEPTH} "
                          f"allowed; {split}")


def _sql(option: str, text: str) -> pl.Expr:
    check_expression(option, text)
    try:
        return pl.sql_expr(text)
    except Exception as exc:  # polars raises several SQL error types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise OptionError(f"{option} '{text}': not a SQL expression polars can read ({first}); "
                          "quote text in single quotes and names with spaces in double quotes") from None


def _seen(names) -> str:
    return ", ".join(n for n in names if n != ROW)


def _numeric_views(lazy: pl.LazyFrame, schema: pl.Schema, names: Sequence[str], source: str) -> dict[str, pl.DataType]:
    """Text columns among ``names`` whose every non-blank value is a number: their numeric type."""
    text = list(dict.fromkeys(n for n in names if schema.get(n) == pl.String))   # a column may be named twice
    if not text:
        return {}
    from probestats.io.read import collect

    probe = []
    for n in text:
        s = pl.col(n).str.strip_chars()
        s = pl.when(s == "").then(None).otherwise(s)
        probe += [s.is_not_null().sum().alias(f"{n}\0n"),
                  s.cast(pl.Int64, strict=False).is_not_null().sum().alias(f"{n}\0i"),
                  s.cast(pl.Float64, strict=False).is_not_null().sum().alias(f"{n}\0f")]
    counts = collect(lazy.select(probe), source).row(0, named=True)
    out = {}
    for n in text:
        total = counts[f"{n}\0n"]
        if total and counts[f"{n}\0i"] == total:
            out[n] = pl.Int64
        elif total and counts[f"{n}\0f"] == total:
            out[n] = pl.Float64
    return out


def _with_numbers(lazy: pl.LazyFrame, numeric: dict[str, pl.DataType], new: pl.Expr, name: str) -> pl.LazyFrame:
    """Compute ``new`` as ``name`` over numeric views of the text columns, keeping those columns as read."""
    if not numeric:
        return lazy.with_columns(new.alias(name))
    keep = {n: f"\0orig\0{n}" for n in numeric}
    lazy = lazy.with_columns(pl.col(n).alias(keep[n]) for n in numeric)
    lazy = lazy.with_columns(
        pl.col(n).str.strip_chars().replace("", None).cast(t, strict=False) for n, t in numeric.items())
    lazy = lazy.with_columns(new.alias(name))
    lazy = lazy.with_columns(pl.col(keep[n]).alias(n) for n in numeric if n != name)
    return lazy.drop(list(keep.values()))


def apply(log, *, where: str | None = None, derive: Sequence[str] = (), **read_kwargs) -> Log:
    """Apply ``--derive`` columns (in order; each may use the ones before) and then the ``--where`` filter.

    Parameters
    ----------
    log : Log, path, list of dict or DataFrame
        Anything :func:`probestats.read_log` reads; ``read_kwargs`` go to it.
    where : str, optional
        A SQL condition; rows where it is not true are left out (row numbers in later
        messages still point at the file).
    derive : sequence of str
        ``"name = SQL expression"``, each adding (or replacing) a column.

    Raises
    ------
    ColumnError
        An expression names a column the log does not have (the message lists the columns seen).
    OptionError
        An expression cannot be parsed, or ``--where`` is not a true/false condition.

    Examples
    --------
    >>> apply([{"item": 1, "variant": "a", "x": 1}], where="y > 1")
    Traceback (most recent call last):
    ...
    probestats.errors.ColumnError: --where 'y > 1': unknown column 'y'; columns seen: item, variant, x (quote names with spaces in double quotes)
    """
    log = read_log(log, **read_kwargs)
    if where is None and not derive:
        return log
    lazy = log.lazy
    added = []
    problems = list(log.problems)
    for text in derive:
        name, body = parse_derive(text)
        expr = _sql("--derive", body)
        schema = lazy.collect_schema()
        _check_names("--derive", text, expr, schema)
        lazy = _typed(lazy, schema, expr, name, "--derive", text, log.source)
        lazy, widened = _unwrapped(lazy, schema, expr, name, log.source)
        if widened:
            problems.append(Problem(
                "warning", "integer_overflow",
                f"--derive '{text}': the integer arithmetic overflows 64 bits; '{name}' was computed in floating "
                "point instead (about 16 significant digits)"))
        added.append(name)
    if where is not None:
        expr = _sql("--where", where)
        schema = lazy.collect_schema()
        _check_names("--where", where, expr, schema)
        flag = "\0where"
        lazy = _typed(lazy, schema, expr, flag, "--where", where, log.source)
        dtype = lazy.select(flag).collect_schema()[flag]
        if dtype != pl.Boolean:
            raise OptionError(f"--where '{where}': gives {dtype} values, not true/false; "
                              "write a condition such as \"model = 'm1' AND words > 50\"")
        lazy = lazy.filter(pl.col(flag).fill_null(False)).drop(flag)
    columns = dict(log.columns)
    for name in added:
        columns.setdefault(name, name)
    read = dict(log._read) if where is None else {**log._read, "where": where}
    return replace(log, lazy=lazy.select(pl.all().exclude(ROW), pl.col(ROW)), columns=columns, _read=read,
                   problems=tuple(problems),
                   headers=tuple(log.headers) + tuple(n for n in added if n not in log.headers))


def _check_names(option: str, text: str, expr: pl.Expr, schema) -> None:
    names = expr.meta.root_names()
    if any(n.startswith("_POLARS_TMP") for n in names):   # polars' stand-in for a subquery
        raise OptionError(f"{option} '{text}': a subquery (SELECT ...) cannot be used here; write a condition "
                          "or expression over the log's own columns, for example item IN ('1', '2')")
    unknown = [n for n in names if n not in schema]
    if unknown:
        shown = ", ".join(f"'{n}'" for n in unknown)
        word = "column" if len(unknown) == 1 else "columns"
        raise ColumnError(f"{option} '{text}': unknown {word} {shown}; columns seen: {_seen(schema.names())} "
                          "(quote names with spaces in double quotes)")


def _typed(lazy: pl.LazyFrame, schema, expr: pl.Expr, name: str, option: str, text: str,
           source: str) -> pl.LazyFrame:
    """Add ``expr`` as ``name``, reading text columns that hold only numbers as numbers where that is needed.

    The expression is tried as written first; when it does not type-check (``words > 50``
    on a CSV's text column), numeric views of the text columns it uses are tried, fewest
    first, so that ``seed >= 2 AND item <> '3'`` reads seed as a number and item as text.
    """
    from itertools import combinations

    numeric = _numeric_views(lazy, schema, expr.meta.root_names(), source)
    names = list(numeric)[:6]
    first_error = None
    for size in range(len(names) + 1):
        for subset in combinations(names, size):
            attempt = _with_numbers(lazy, {n: numeric[n] for n in subset}, expr, name)
            try:  # type errors (text compared with a number) surface only when data is computed
                attempt.select(name).head(1).collect()
                return attempt
            except pl.exceptions.PolarsError as exc:
                first_error = first_error or exc
    first = str(first_error).strip().splitlines()[0]
    raise OptionError(f"{option} '{text}': cannot be computed on this log ({first}); "
                      "check the column types (text needs single quotes)") from None


def _unwrapped(lazy: pl.LazyFrame, schema, expr: pl.Expr, name: str, source: str) -> tuple[pl.LazyFrame, bool]:
    """The derived column as computed, or in floating point when its integer arithmetic wraps around.

    polars' 64-bit integer arithmetic wraps silently (``steps * 4e18`` on integers gives negative
    numbers); the same expression over floating-point views of its integer columns shows where.
    """
    if not lazy.collect_schema()[name].is_integer():
        return lazy, False
    from probestats.io.read import collect

    roots = [n for n in dict.fromkeys(expr.meta.root_names()) if n != name]
    keep = {n: f"\0int\0{n}" for n in roots}
    floats = lazy.with_columns(pl.col(n).alias(keep[n]) for n in roots)
    floats = floats.with_columns(
        (pl.col(n).str.strip_chars().replace("", None) if schema.get(n) == pl.String else pl.col(n))
        .cast(pl.Float64, strict=False) for n in roots)
    floats = floats.with_columns(expr.cast(pl.Float64).alias("\0float"))
    floats = floats.with_columns(pl.col(keep[n]).alias(n) for n in roots).drop(list(keep.values()))
    exact, approx = pl.col(name).cast(pl.Float64), pl.col("\0float")
    wrapped = ((exact - approx).abs() > approx.abs() * 1e-9 + 1).any()
    try:
        if not collect(floats.select(wrapped.alias("w")), source)["w"][0]:
            return lazy, False
    except Exception:  # the float view could not be computed: keep the integer result
        return lazy, False
    return floats.with_columns(pl.col("\0float").alias(name)).drop("\0float"), True
