"""Lookups: a table joined to the log on key columns (``--lookup FILE KEY[,KEY]``).

A lookup adds the table's other columns to every row of the log whose keys match one of its
rows: item weights, a score per item and label, clusters, the targets of a framing topic, human
labels. The table is any file probestats reads (CSV, JSON, a spreadsheet, ...), a list of dicts or
a frame. Keys are compared as text with the spaces at both ends trimmed (``"03"`` is not ``"3"``),
named as the log names them at this step (a canonical name, a header, a path into a record, or a
column an earlier step made), and found in the table by the same name or, for a canonical name, by
the log's header for it (``--column item=proposition``: ``item`` or ``proposition``); the table's
headers are matched as the log's are (case and spaces do not matter, aliases count).

A row of the log with a blank key (a reply no code book rule read, say) gets blank values. Any other
row must match: keys the
table lacks are one error naming examples. The table may hold each key once, and none of its
other columns may already be a column of the log.

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
    """The table, and for each key the table's column that holds it."""
    from probestats.io.columns import ROW, normalize_header
    from probestats.io.read import read_log

    read = read_log(source)
    table = read.frame
    table = table.drop(ROW) if ROW in table.columns else table
    # a header read under a canonical name (an alias) is found by that name and by its own
    column_of = {normalize_header(h): c for c, h in read.columns.items() if c in table.columns}
    column_of.update({normalize_header(c): c for c in table.columns})
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


def lookup(lazy: pl.LazyFrame, source, keys: Sequence[str], *, columns=None, source_name: str = "the log",
           option: str | None = None, name: str | None = None) -> pl.LazyFrame:
    """Join the table ``source`` to ``lazy`` on ``keys`` (see the module docstring).

    ``option`` names the parameter the table was given as, when not ``lookup`` (``targets``), and ``name``
    the table in messages (default: its file name).

    Raises
    ------
    ColumnError
        A key is in neither the log nor the table, or a column of the table is one of the log's.
    OptionError
        The table holds a key twice, or rows of the log have keys the table lacks (examples named).
    """
    from probestats.shape.nested import with_paths

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
    if clash:
        raise ColumnError(f"{_shown(source, keys, option, name)}: the table's column '{clash[0]}' is a column of the log already; "
                          "rename it in the table (or leave it out)")
    if not values:
        raise OptionError(f"{_shown(source, keys, option, name)}: the table holds only its keys; it needs a column to add")
    text = [f"\0key{i}" for i in range(len(keys))]
    table = table.with_columns(_as_key(pl.col(found[k])).alias(t) for k, t in zip(keys, text))
    doubled = table.group_by(text).len().filter(pl.col("len") > 1)
    if doubled.height:
        row = doubled.row(0)
        raise OptionError(f"{_shown(source, keys, option, name)}: the table holds the key {_key_text(keys, row[:-1])} "
                          f"{row[-1]} times; give each key one row")
    table = table.select(*text, *values)
    keyed = lazy.with_columns(_as_key(pl.col(k)).alias(t) for k, t in zip(on, text))
    blank = pl.any_horizontal([pl.col(t).is_null() for t in text])
    joined = keyed.join(table.lazy(), on=text, how="left", maintain_order="left", nulls_equal=False)
    marked = table.with_columns(pl.lit(True).alias("\0matched")).select(*text, "\0matched")
    check = keyed.join(marked.lazy(), on=text, how="left", nulls_equal=False)
    lacking = check.filter(~blank & pl.col("\0matched").is_null()).select(text).unique(maintain_order=True)
    from probestats.io.log import collect

    lacking = collect(lacking, source_name)
    if lacking.height:
        examples = ", ".join(_key_text(keys, row) for row in lacking.head(_EXAMPLES).rows())
        more = f" and {lacking.height - _EXAMPLES} more" if lacking.height > _EXAMPLES else ""
        raise OptionError(f"{_shown(source, keys, option, name)}: {lacking.height} key{'s' if lacking.height != 1 else ''} of the "
                          f"log {'are' if lacking.height != 1 else 'is'} not in {name or _name(source)}: {examples}{more}; "
                          f"add {'them' if lacking.height != 1 else 'it'} to the table, or leave those rows out "
                          f"with {opt('where')}")
    return joined.drop(*text, *added)


def _as_key(expr: pl.Expr) -> pl.Expr:
    text = expr.cast(pl.String).str.strip_chars()
    return pl.when(text == "").then(None).otherwise(text)


def _key_text(keys, values) -> str:
    if len(keys) == 1:
        return repr(values[0])
    return "(" + ", ".join(f"{k}={v!r}" for k, v in zip(keys, values)) + ")"
