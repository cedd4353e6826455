"""Lookups: a table joined to the log on key columns (``--lookup FILE KEY[,KEY]``).

A lookup adds the table's other columns to every row of the log whose keys match one of its
rows: item weights, a score per item and label, clusters, the targets of a framing topic, human
labels. The table is any file probestats reads (CSV, JSON, a spreadsheet, ...), a list of dicts or
a frame. Keys are compared as text with the spaces at both ends trimmed (``"03"`` is not ``"3"``),
named as the log names them at this step (a canonical name, a header, a path into a record, or a
column an earlier step made), and found in the table by the same name or, for a canonical name, by
the log's header for it (``--column item=proposition``: ``item`` or ``proposition``); a key's header is
matched as the log's are (case and spaces do not matter, and a canonical key finds its aliases: ``item`` the
table's ``prompt_id``). The table's other columns keep their headers as written: no alias renames them (a
``model_name`` column of the table is added as ``model_name``, never read as the log's ``model``), and a column
of a table file whose every value is a number is read as numbers.

A row of the log with a blank key (a reply no code book rule read, say) gets blank values. Any other
row must match: keys the
table lacks are one error naming examples. The table may hold each key once (when it does not, the
message names the smallest set of the columns it shares with the log that does). A column of the table
that is a column of the log already is left out when it agrees with the log on every row joined, and
refused when it does not.

Examples
--------
>>> log = pl.DataFrame({"item": ["1", "1", "2"], "label": ["agree", "disagree", "agree"]}).lazy()
>>> table = [{"item": 1, "label": "agree", "w": 1.0}, {"item": 1, "label": "disagree", "w": -1.0},
...          {"item": 2, "label": "agree", "w": 0.5}]
>>> lookup(log, table, ["item", "label"]).collect()["w"].to_list()
[1.0, -1.0, 0.5]
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import polars as pl

from probestats.errors import ColumnError, OptionError, opt
from probestats.io.columns import ROW, normalize_header
from probestats.io.log import collect
from probestats.io.read import read_log
from probestats.shape.nested import with_paths

__all__ = ["lookup", "parse_keys"]

_EXAMPLES = 5


def parse_keys(keys) -> tuple[str, ...]:
    """``"item,label"`` or a sequence of names as a tuple of key names.

    >>> parse_keys("item, label"), parse_keys(["topic"])
    (('item', 'label'), ('topic',))
    """
    names = [k.strip() for k in keys.split(",")] if isinstance(keys, str) else [str(k).strip() for k in keys]
    if not names or not all(names):
        raise OptionError(f"{opt('lookup')}: name the key columns, for example "
                          f"{opt('lookup', 'weights.csv item,label')}")
    return tuple(dict.fromkeys(names))


def _name(source) -> str:
    return Path(source).name if isinstance(source, (str, Path)) else "the lookup table"


def _shown(source, keys, option=None, name=None) -> str:
    if option is not None:
        return opt(option, name or str(source))
    return opt("lookup", f"{source if isinstance(source, (str, Path)) else 'TABLE'} {','.join(keys)}")


def _read_table(source, keys: Sequence[str], columns: dict, option=None, name=None) -> tuple[pl.DataFrame, dict[str, str]]:
    """The table under its headers as written, numbers read as numbers, and for each key the table's column that
    holds it."""
    read = read_log(source)
    table = read.frame
    table = table.drop(ROW) if ROW in table.columns else table
    # aliases find a key, and rename nothing: every column keeps its header
    renamed = {c: h for c, h in read.columns.items() if c in table.columns and c != h and h not in table.columns}
    table = table.rename(renamed)
    if isinstance(source, (str, Path)):   # a file's text: its columns of numbers as numbers
        table = table.with_columns(_numbers(table[c]) for c in table.columns if table.schema[c] == pl.String)
    column_of = {normalize_header(c): c for c in table.columns}
    for c, h in read.columns.items():   # a canonical key finds the header its alias names
        if h in table.columns:
            column_of.setdefault(normalize_header(c), h)
    found = {}
    for key in keys:
        names = [key] + ([columns[key]] if columns.get(key) not in (None, key) else [])   # item, or its header
        column = next((n for n in names if n in table.columns), None) or next(
            (column_of[normalize_header(n)] for n in names if normalize_header(n) in column_of), None)
        if column is None:
            raise ColumnError(f"{_shown(source, keys, option, name)}: the table has no column '{key}'; its columns: "
                              f"{', '.join(table.columns)} (name the keys as both the log and the table name them)")
        found[key] = column
    return table, found


def _numbers(column: pl.Series) -> pl.Series:
    """A column of text as numbers when every value that is not blank is one (whole numbers as integers), else
    as it is.

    >>> _numbers(pl.Series("w", ["1", " 2", ""])).to_list(), _numbers(pl.Series("w", ["0.5", "2"])).to_list()
    ([1, 2, None], [0.5, 2.0])
    >>> _numbers(pl.Series("w", ["1", "n/a"])).to_list()
    ['1', 'n/a']
    """
    text = column.str.strip_chars()
    blank = text.is_null() | (text == "")
    number = text.cast(pl.Float64, strict=False)
    if bool(blank.all()) or bool((number.is_null() & ~blank).any()):
        return column
    whole = number.filter(~blank)
    if bool((whole == whole.round(0)).all()) and bool((whole.abs() < 2 ** 53).all()):
        return text.cast(pl.Int64, strict=False).alias(column.name)
    return number.alias(column.name)


def _smallest_key(table: pl.DataFrame, shared: Sequence[str]) -> tuple[str, ...] | None:
    """The smallest set of ``shared`` columns (the first found, in their order) whose values are each row's own,
    or None when none is (at most the first eight columns are tried)."""
    from itertools import combinations

    shared = list(shared)[:8]
    text = {c: _as_key(pl.col(c)) for c in shared}
    for size in range(1, len(shared) + 1):
        for names in combinations(shared, size):
            if table.select(pl.struct([text[c].alias(c) for c in names]).is_unique().all()).item():
                return names
    return None


def lookup(lazy: pl.LazyFrame, source, keys: Sequence[str], *, columns=None, source_name: str = "the log",
           option: str | None = None, name: str | None = None) -> pl.LazyFrame:
    """Join the table ``source`` to ``lazy`` on ``keys`` (see the module docstring).

    ``option`` names the parameter the table was given as, when not ``lookup`` (``targets``), and ``name``
    the table in messages (default: its file name).

    Raises
    ------
    ColumnError
        A key is in neither the log nor the table, or a column of the table is one of the log's with other values.
    OptionError
        The table holds a key twice, or rows of the log have keys the table lacks (examples named).
    """
    keys = parse_keys(keys)
    lazy, added = with_paths(lazy, keys)
    schema = lazy.collect_schema()
    # a key named by a header the log reads under a canonical name is that column
    canonical = {h: c for c, h in (columns or {}).items() if c in schema and h not in schema}
    on = [k if k in schema else canonical.get(k, k) for k in keys]
    missing = [k for k, o in zip(keys, on) if o not in schema]
    if missing:
        seen = ", ".join(n for n in schema.names() if not n.startswith("_"))
        raise ColumnError(f"{_shown(source, keys, option, name)}: the log has no column '{missing[0]}'; columns seen: {seen}")
    table, found = _read_table(source, keys, dict(columns or {}), option, name)
    values = [c for c in table.columns if c not in found.values()]
    clash = [c for c in values if c in schema]
    if not values:
        raise OptionError(f"{_shown(source, keys, option, name)}: the table holds only its keys; it needs a column to add")
    text = [f"\0key{i}" for i in range(len(keys))]
    table = table.with_columns(_as_key(pl.col(found[k])).alias(t) for k, t in zip(keys, text))
    doubled = table.group_by(text, maintain_order=True).len().filter(pl.col("len") > 1)
    if doubled.height:
        row = doubled.row(0)
        smallest = _smallest_key(table, [found[k] for k in keys] + clash)
        better = [next((k for k in keys if found[k] == c), c) for c in smallest] if smallest else None
        hint = (f"; the columns it shares with the log that name each row once are {', '.join(better)}: "
                f"{_shown(source, better, option, name)}") if better else ""
        raise OptionError(f"{_shown(source, keys, option, name)}: the table holds the key {_key_text(keys, row[:-1])} "
                          f"{row[-1]} times; give each key one row{hint}")
    table = table.select(*text, *values)
    keyed = lazy.with_columns(_as_key(pl.col(k)).alias(t) for k, t in zip(on, text))
    if clash:   # a column the log has too: the same column when it agrees on every row joined, else refused
        _check_shared(keyed, table, text, clash, source, keys, option, name, source_name)
        table = table.drop(clash)
        if len(clash) == len(values):
            raise OptionError(f"{_shown(source, keys, option, name)}: the table holds only its keys and columns of "
                              f"the log ({', '.join(clash)}), which it adds nothing to; it needs a column to add")
    blank = pl.any_horizontal([pl.col(t).is_null() for t in text])
    joined = keyed.join(table.lazy(), on=text, how="left", maintain_order="left", nulls_equal=False)
    marked = table.with_columns(pl.lit(True).alias("\0matched")).select(*text, "\0matched")
    check = keyed.join(marked.lazy(), on=text, how="left", nulls_equal=False)
    lacking = check.filter(~blank & pl.col("\0matched").is_null()).select(text).unique(maintain_order=True)

    lacking = collect(lacking, source_name)
    if lacking.height:
        examples = ", ".join(_key_text(keys, row) for row in lacking.head(_EXAMPLES).rows())
        more = f" and {lacking.height - _EXAMPLES} more" if lacking.height > _EXAMPLES else ""
        raise OptionError(f"{_shown(source, keys, option, name)}: {lacking.height} key{'s' if lacking.height != 1 else ''} of the "
                          f"log {'are' if lacking.height != 1 else 'is'} not in {name or _name(source)}: {examples}{more}; "
                          f"add {'them' if lacking.height != 1 else 'it'} to the table, or leave those rows out "
                          f"with {opt('where')}")
    return joined.drop(*text, *added)


def _check_shared(keyed: pl.LazyFrame, table: pl.DataFrame, text, clash, source, keys, option, name,
                  source_name) -> None:
    """Refuse a column of the table that is a column of the log with another value on a row joined."""
    theirs = table.select(*text, *[_as_key(pl.col(c)).alias(f"\0table{i}") for i, c in enumerate(clash)])
    joined = keyed.select(*text, *[_as_key(pl.col(c)).alias(f"\0log{i}") for i, c in enumerate(clash)]).join(
        theirs.lazy(), on=text, how="inner", nulls_equal=False)
    differ = collect(joined.select(*[(pl.col(f"\0log{i}").eq_missing(pl.col(f"\0table{i}"))).not_().sum()
                                     .alias(c) for i, c in enumerate(clash)]), source_name)
    for c in clash:
        if differ[c][0]:
            raise ColumnError(f"{_shown(source, keys, option, name)}: the table's column '{c}' is a column of the log "
                              f"already, with other values on {differ[c][0]} row(s); add it to the keys "
                              f"({_shown(source, [*keys, c], option, name)}), or rename it in the table")


def _as_key(expr: pl.Expr) -> pl.Expr:
    text = expr.cast(pl.String).str.strip_chars()
    return pl.when(text == "").then(None).otherwise(text)


def _key_text(keys, values) -> str:
    if len(keys) == 1:
        return repr(values[0])
    return "(" + ", ".join(f"{k}={v!r}" for k, v in zip(keys, values)) + ")"
