"""Filters and derived metrics: ``where`` and ``derive``, applied to a log before validation.

Both are polars SQL expressions (:func:`polars.sql_expr`) over the log's columns as
read (canonical names such as ``item``, ``variant``, ``reply``, and every other
header as written). A derived column can be the ``metric``.

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

from probestats.errors import ColumnError, OptionError, Problem, either, opt
from probestats.io.columns import ROW
from probestats.io.log import Log, collect
from probestats.io.read import read_log
from probestats.shape.nested import with_paths
from probestats.shape.patterns import refusal

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
    probestats.errors.OptionError: derive='words > 50': expected NAME = SQL expression, for example derive=['long = words > 50']
    """
    m = _DERIVE.match(text or "")
    if not m:
        raise OptionError(f"{opt('derive', text)}: expected NAME = SQL expression, for example "
                          + either("derive=['long = words > 50']", '--derive "long = words > 50"'))
    return (m.group(1) or m.group(2)), m.group(3)


#: bounds on one where or derive expression: polars' SQL parser recurses per operator (thousands of
#: terms crash the process) and its plans grow with them
MAX_EXPRESSION_CHARS = 2000
MAX_EXPRESSION_OPERATORS = 100
MAX_EXPRESSION_DEPTH = 20

_LITERAL = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"")
_OPERATOR = re.compile(r"<=|>=|<>|!=|\|\||[-+*/%=<>&|^]|\b(?:and|or|not|when|like|in)\b", re.I)


def check_expression(option: str, text: str) -> None:
    """Refuse an expression too long or too deep to hand to the SQL parser, naming the bound.

    ``option`` is the parameter the expression was given as (``where`` or ``derive``).

    >>> check_expression("derive", "x = steps * 2 + 1")
    >>> check_expression("where", "+".join(["1"] * 500))
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: where='1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+...': 499 operators, more than the 100 allowed in one expression; split it into several derive steps, each using the one before
    """
    shown = text if len(text) <= 40 else text[:40] + "..."
    split = f"split it into several {opt('derive')} steps, each using the one before"
    shown = opt(option, shown)
    if len(text) > MAX_EXPRESSION_CHARS:
        raise OptionError(f"{shown}: {len(text):,} characters, more than the {MAX_EXPRESSION_CHARS:,} "
                          f"allowed in one expression; {split}")
    bare = _LITERAL.sub("''", text)
    operators = len(_OPERATOR.findall(bare))
    if operators > MAX_EXPRESSION_OPERATORS:
        raise OptionError(f"{shown}: {operators} operators, more than the {MAX_EXPRESSION_OPERATORS} "
                          f"allowed in one expression; {split}")
    depth = deepest = 0
    for ch in bare:
        if ch == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == ")":
            depth -= 1
    if deepest > MAX_EXPRESSION_DEPTH:
        raise OptionError(f"{shown}: parentheses {deepest} deep, more than the {MAX_EXPRESSION_DEPTH} "
                          f"allowed; {split}")


def _sql(option: str, text: str) -> pl.Expr:
    check_expression(option, text)
    try:
        expr = pl.sql_expr(text)
    except Exception as exc:  # polars raises several SQL error types
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise OptionError(f"{opt(option, text)}: not a SQL expression polars can read ({first}){_where_failed(text, first)}; "
                          "quote text in single quotes and names with spaces in double quotes") from None
    return literal_positions(expr)


def _where_failed(text: str, message: str) -> str:
    """`` at character N (...)``: where the expression stops being SQL, as sqlglot's parser or polars' says it."""
    column = None
    try:
        import sqlglot

        sqlglot.parse_one(text, read="duckdb")
    except Exception as exc:   # sqlglot's ParseError and TokenError
        found = [e.get("col") for e in getattr(exc, "errors", []) or [] if e.get("col")]
        column = found[0] if found else None
    if column is None:
        m = re.search(r"Column: (\d+)", message)
        column = int(m.group(1)) if m else None
    if column is None:
        m = re.search(r"unexpected token '([^']+)'", message)
        if m:
            at = re.search(rf"(?<![\w]){re.escape(m.group(1))}(?![\w])", _LITERAL.sub(lambda x: " " * len(x.group(0)), text))
            column = at.start() + 1 if at else None
    if column is None:
        return ""
    column = max(1, min(int(column), len(text)))
    return f", at character {column} (after {text[max(0, column - 20):column - 1]!r})"


def literal_positions(expr: pl.Expr) -> pl.Expr:
    """``STRPOS`` and ``POSITION ... IN`` as SQL means them: the first place (in characters, from 1) a literal
    substring occurs, 0 where it does not (polars reads the substring as a regular expression and counts bytes).

    >>> frame = pl.DataFrame({"c": ["a.ree", "I agree", "é (x)"]})
    >>> frame.select(literal_positions(pl.sql_expr("STRPOS(c, '.')")).alias("p"))["p"].to_list()
    [2, 0, 0]
    >>> frame.select(literal_positions(pl.sql_expr("STRPOS(c, '(x)')")).alias("p"))["p"].to_list()
    [0, 0, 3]
    """
    import io
    import json

    try:
        tree = json.loads(expr.meta.serialize(format="json"))
    except Exception:  # an expression polars cannot serialize: left as it is
        return expr
    changed = False

    def back(node):
        return pl.Expr.deserialize(io.StringIO(json.dumps(node)), format="json")

    def walk(node):
        nonlocal changed
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        function = node.get("Function")
        if (isinstance(function, dict) and isinstance(function.get("function"), dict)
                and "Find" in (function["function"].get("StringExpr") or {}) and len(function.get("input", [])) == 2):
            text, sub = (back(walk(n)) for n in function["input"])
            found = (pl.when(text.is_null() | sub.is_null()).then(pl.lit(None, pl.UInt32))
                     .when(sub.str.len_bytes() == 0).then(pl.lit(0, pl.UInt32))
                     .when(text.str.contains(sub, literal=True))
                     .then(text.str.split(sub).list.first().str.len_chars().cast(pl.UInt32))
                     .otherwise(pl.lit(None, pl.UInt32)))
            changed = True
            return json.loads(found.meta.serialize(format="json"))
        return {k: walk(v) for k, v in node.items()}

    rewritten = walk(tree)
    return back(rewritten) if changed else expr


def _seen(names) -> str:
    return ", ".join(n for n in names if n != ROW)


def _numeric_views(lazy: pl.LazyFrame, schema: pl.Schema, names: Sequence[str], source: str) -> dict[str, pl.DataType]:
    """Text columns among ``names`` whose every non-blank value is a number: their numeric type."""
    text = list(dict.fromkeys(n for n in names if schema.get(n) == pl.String))   # a column may be named twice
    if not text:
        return {}

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
    """Apply ``derive`` columns (in order; each may use the ones before) and then the ``where`` filter.

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
        An expression cannot be parsed, or ``where`` is not a true/false condition.

    Examples
    --------
    >>> apply([{"item": 1, "variant": "a", "x": 1}], where="y > 1")
    Traceback (most recent call last):
    ...
    probestats.errors.ColumnError: where='y > 1': unknown column 'y'; columns seen: item, variant, x (quote names with spaces in double quotes)
    """
    log = read_log(log, **read_kwargs)
    if where is None and not derive:
        return log
    lazy = log.lazy
    # a mapped column stays usable under its own header (columns={'model': 'judge'}: 'judge' in expressions)
    names = set(lazy.collect_schema().names())
    own = {header: canonical for canonical, header in log.columns.items()
           if header != canonical and header not in names and canonical in names}
    if own:
        lazy = lazy.with_columns(pl.col(canonical).alias(header) for header, canonical in own.items())
    problems: list = []
    added = []
    problems = list(log.problems)

    for text in derive:
        name, body = parse_derive(text)
        expr = _sql("derive", body)
        lazy, paths = with_paths(lazy, expr.meta.root_names())   # "rounds.2.flip": a field inside a record
        schema = lazy.collect_schema()
        _check_names("derive", text, expr, schema)
        _check_shadowed("derive", text, expr, log.columns, schema)
        lazy = _typed(lazy, schema, expr, name, "derive", text, log.source, problems)
        lazy = lazy.drop([p for p in paths if p != name])
        if name in own:   # a derived column named like a mapped header is that column from now on
            lazy = lazy.with_columns(pl.col(name).alias(own[name]))
        else:
            added.append(name)
    if where is not None:
        expr = _sql("where", where)
        lazy, paths = with_paths(lazy, expr.meta.root_names())
        schema = lazy.collect_schema()
        _check_names("where", where, expr, schema)
        _check_shadowed("where", where, expr, log.columns, schema)
        flag = "\0where"
        lazy = _typed(lazy, schema, expr, flag, "where", where, log.source, problems).drop(paths)
        dtype = lazy.select(flag).collect_schema()[flag]
        if dtype != pl.Boolean:
            raise OptionError(f"{opt('where', where)}: gives {dtype} values, not true/false; "
                              "write a condition such as \"model = 'm1' AND words > 50\"")
        lazy = lazy.filter(pl.col(flag).fill_null(False)).drop(flag)
    if own:
        lazy = lazy.drop(list(own))
    columns = dict(log.columns)
    for name in added:
        columns.setdefault(name, name)
    read = dict(log._read)
    read.setdefault("unfiltered", log.lazy)   # row numbers are counted on the file as read
    if where is not None:
        read["where"] = where
    return replace(log, lazy=lazy.select(pl.all().exclude(ROW), pl.col(ROW)), columns=columns, _read=read,
                   headers=tuple(log.headers) + tuple(n for n in added if n not in log.headers),
                   problems=tuple(problems))   # problems began as the log's own


def _check_names(option: str, text: str, expr: pl.Expr, schema) -> None:
    names = expr.meta.root_names()
    if any(n.startswith("_POLARS_TMP") for n in names):   # polars' stand-in for a subquery
        raise OptionError(f"{opt(option, text)}: a subquery (SELECT ...) cannot be used here; write a condition "
                          "or expression over the log's own columns, for example item IN ('1', '2')")
    unknown = [n for n in names if n not in schema]
    if unknown:
        shown = ", ".join(f"'{n}'" for n in unknown)
        word = "column" if len(unknown) == 1 else "columns"
        raise ColumnError(f"{opt(option, text)}: unknown {word} {shown}; columns seen: {_seen(schema.names())} "
                          "(quote names with spaces in double quotes)")


def _check_shadowed(option: str, text: str, expr: pl.Expr, columns: dict, schema) -> None:
    """A canonical name whose column is another header, where the file also has a header of that name, means
    two columns: refused, naming the distinct names of both (``axis`` and ``"variant (original)"``)."""
    for name in expr.meta.root_names():
        header = columns.get(name)
        own = f"{name} (original)"
        if header is not None and header != name and own in schema:
            raise OptionError(f"{opt(option, text)}: '{name}' names two columns here: the column '{header}', read as "
                              f"{name} ({opt('columns', {name: header})}), and the file's own '{name}' column, read as "
                              f"\"{own}\"; write {_sql_name(header)} for the first or \"{own}\" for the second")


def _sql_name(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else '"' + name.replace('"', '""') + '"'


_ARITHMETIC = {"Plus", "Minus", "Multiply", "TrueDivide", "FloorDivide", "Modulus"}
_SQL_ARITHMETIC = {"Add", "Sub", "Mul", "Div", "Mod", "IntDiv"}


def _operations(expr: pl.Expr):
    """Every arithmetic step of a SQL expression as (operator, left, right) polars expressions.

    ``a || b`` reaches polars as ``+`` over both sides cast to text; it is marked ``"||"``.
    """
    import io
    import json

    try:
        tree = json.loads(expr.meta.serialize(format="json"))
    except Exception:  # an expression polars cannot serialize: nothing to inspect
        return []

    def back(node):
        return pl.Expr.deserialize(io.StringIO(json.dumps(node)), format="json")

    def is_text_cast(node):
        cast = node.get("Cast") if isinstance(node, dict) else None
        return bool(cast) and cast.get("dtype") == {"Literal": "String"}

    found = []

    def walk(node):
        if isinstance(node, dict):
            binary = node.get("BinaryExpr")
            if isinstance(binary, dict) and binary.get("op") in _ARITHMETIC:
                left, right = binary["left"], binary["right"]
                op = "||" if binary["op"] == "Plus" and is_text_cast(left) and is_text_cast(right) else binary["op"]
                found.append((op, left, right))
            function = node.get("Function")
            if isinstance(function, dict) and isinstance(function.get("function"), dict):
                sql = function["function"].get("Sql")
                if isinstance(sql, dict) and sql.get("Binary") in _SQL_ARITHMETIC and len(function.get("input", [])) == 2:
                    found.append((sql["Binary"], *function["input"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(tree)
    out = []
    for op, left, right in found:
        try:
            out.append((op, back(left), back(right)))
        except Exception:
            continue
    return out


def _text_in_arithmetic(lazy: pl.LazyFrame, expr: pl.Expr) -> list[str]:
    """Columns that are text where the expression does arithmetic with them (``+``, ``-``, ``*``, ...)."""
    names = []
    for op, left, right in _operations(expr):
        if op == "||":
            continue
        for side in (left, right):
            try:
                dtype = lazy.select(side.alias("\0side")).collect_schema()["\0side"]
            except Exception:
                continue
            if dtype == pl.String:
                names += [n for n in side.meta.root_names() if n not in names]
    return names


def _text_columns_message(option, text, lazy, names, numeric) -> str:
    shown = ", ".join(f"'{n}'" for n in names)
    word = "column" if len(names) == 1 else "columns"
    return (f"{opt(option, text)}: the {word} {shown} {'holds' if len(names) == 1 else 'hold'} text (not every cell is "
            f"a number), and text does not mix with numbers; join text with ||, or compare it with text in "
            f"single quotes")


def _typed(lazy: pl.LazyFrame, schema, expr: pl.Expr, name: str, option: str, text: str,
           source: str, problems: list | None = None) -> pl.LazyFrame:
    """Add ``expr`` as ``name``, with numbers as numbers.

    A text column whose every cell is a number (a CSV's ``"52"``) is read as a number in the
    expression, so ``a + b`` adds; text joins only with ``||``. When the expression compares such a
    column with text (``item <> '3'``), that column is kept as text, fewest such columns first.
    Arithmetic on a column that holds text is an error naming it; whole-number arithmetic that
    would leave 64-bit integers is computed in floating point, with a warning in ``problems``.
    """
    from itertools import combinations

    numeric = _numeric_views(lazy, schema, expr.meta.root_names(), source)
    names = list(numeric)[:8]
    first_error = None
    text_error = None
    for size in range(len(names), -1, -1):   # most columns read as numbers first
        for subset in combinations(names, size):
            views = {n: numeric[n] for n in subset}
            viewed = lazy.with_columns(
                pl.col(n).str.strip_chars().replace("", None).cast(t, strict=False) for n, t in views.items())
            texts = _text_in_arithmetic(viewed, expr)
            if texts:
                text_error = text_error or texts
                continue
            attempt = _with_numbers(lazy, views, expr, name)
            try:  # type errors (text compared with a number) surface only when data is computed
                attempt.select(name).head(1).collect()
            except pl.exceptions.PolarsError as exc:
                first_error = first_error or exc
                continue
            return _no_wrap(attempt, lazy, views, expr, name, option, text, problems)
    if text_error:
        raise OptionError(_text_columns_message(option, text, lazy, text_error, numeric)) from None
    if first_error is not None and re.search(r"regular expression|regex parse error|regex error", str(first_error)):
        detail = refusal(first_error)[:200]
        raise OptionError(f"{opt(option, text)}: a pattern is not a regular expression ({detail}); regexp_like and ~ "
                          "read their pattern as one: escape ( ) [ ] . * + ? with a backslash, or match text "
                          "as written with STRPOS or LIKE") from None
    texts = [n for n in expr.meta.root_names() if schema.get(n) == pl.String and n not in numeric]
    first = str(first_error).strip().splitlines()[0]
    if texts and any(op != "||" for op, *_ in _operations(expr)):
        raise OptionError(_text_columns_message(option, text, lazy, list(dict.fromkeys(texts)), numeric)
                          + f" ({first})") from None
    raise OptionError(f"{opt(option, text)}: cannot be computed on this log ({first}); "
                      "check the column types (text needs single quotes)") from None


def _no_wrap(attempt, lazy, views, expr, name, option, text, problems) -> pl.LazyFrame:
    """Whole-number arithmetic that would pass 64-bit integers is done in floating point instead."""
    dtype = attempt.select(name).collect_schema()[name]
    if not dtype.is_integer() or not _operations(expr):
        return attempt
    floats = {n: pl.Float64 for n in expr.meta.root_names()}
    schema = lazy.collect_schema()
    as_float = {n: pl.Float64 for n in floats if n in views or (n in schema and schema[n].is_integer())}
    widened = _with_floats(lazy, views, as_float, expr, name)

    top = collect(widened.select(pl.col(name).abs().max()), "the log").item()
    if top is None or top < 2.0 ** 63:
        return attempt
    if problems is not None:
        problems.append(Problem("warning", "derived_float",
                                f"{opt(option, text)} gives whole numbers beyond 64-bit integers (up to {top:.3g}); "
                                "it was computed in floating point, exact to about 16 digits"))
    return widened


def _with_floats(lazy, views, as_float, expr, name) -> pl.LazyFrame:
    """Like :func:`_with_numbers`, with the named columns (text views and integers) as floats."""
    keep = {n: f"\0orig\0{n}" for n in as_float}
    lazy = lazy.with_columns(pl.col(n).alias(keep[n]) for n in as_float)
    lazy = lazy.with_columns(
        (pl.col(n).str.strip_chars().replace("", None) if n in views else pl.col(n)).cast(pl.Float64, strict=False)
        for n in as_float)
    lazy = lazy.with_columns(expr.alias(name))
    lazy = lazy.with_columns(pl.col(keep[n]).alias(n) for n in as_float if n != name)
    return lazy.drop(list(keep.values()))
