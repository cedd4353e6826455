"""Columns that vary within cells in a structured way: likely blocks, not repeated runs.

Runs of one item x value cell are read as replicate draws. A column that takes several values within
the cells, and **every cell holds every one of its values** (13 instructions x 6 judges x 15 prompt
strategies under each "item"), is a design factor crossed with the items: its values are blocks, and
read as runs they are counted as noise and pooled. :func:`likely_blocks` names such columns so the
user can match the items within them (``settings``) or split by them (``by``).

A column whose values are k consecutive whole numbers (0 to k − 1, 1 to k, 11 to 20) is taken to number the
runs of a cell (a trial or sample index) and left alone, as a seed is; a block numbered so must be named by
the user. A design crosses a block with the cells in equal shares (each judge the same number of times in
every cell); a setting drawn at random per call, or an outcome such as a finish reason, takes its values in
shares that differ from cell to cell, so a column is read as a likely block only where at least
:data:`BALANCED_SHARE` of the cells hold each of its values equally often.
"""

from __future__ import annotations

from typing import Sequence

import polars as pl

from probestats.checks.facts import candidates
from probestats.errors import Problem, either, opt
from probestats.io.log import collect

__all__ = ["likely_blocks", "KNOWN_BLOCKS"]

#: settings the paired analysis already treats as blocks when they vary within cells
KNOWN_BLOCKS = ("model", "judge", "temperature", "system", "file")
#: a column with more distinct values than this is not read as a block
MAX_LEVELS = 200
#: the share of cells that must hold each of a column's values equally often for it to be read as a block
BALANCED_SHARE = 0.9


def _numbers_runs(values: list) -> bool:
    try:
        numbers = sorted(int(str(v).strip()) for v in values)
    except (TypeError, ValueError):
        return False
    return bool(numbers) and numbers == list(range(numbers[0], numbers[0] + len(numbers)))


def likely_blocks(log, metric: str | None, exclude: Sequence[str] = ()) -> list[Problem]:
    """A ``likely_block`` warning for each column (not a known setting, not ``exclude``) that takes every one
    of its two or more values in every item x value cell, in equal shares within the cells (see the module
    docstring).

    Examples
    --------
    >>> from probestats.io.read import read_log
    >>> rows = [{"item": i, "variant": v, "strategy": s, "trial": t, "x": 1}
    ...         for i in range(3) for v in "ab" for s in ("cot", "plain") for t in (1, 2)]
    >>> [p.message[:60] for p in likely_blocks(read_log(rows), "x")]
    ["strategy takes every one of its 2 values ('cot', 'plain') in"]
    """
    schema = log.lazy.collect_schema()
    names = schema.names()
    if "item" not in names or "variant" not in names:
        return []
    # a column of records or lists (a JSON field) is no setting, and its records need not share their keys; the
    # columns read from the file names are one value per file, a block the analysis matches items within
    named = tuple(log._read.get("file_columns", ()))
    cols = [c for c in candidates(names, metric) if c not in KNOWN_BLOCKS and c not in exclude
            and c not in named and c not in ("item", "variant") and not schema[c].is_nested()]
    if not cols:
        return []

    # columns by position under safe names: a header such as '*' or '^x.*$' is a pattern to pl.col
    safe = {c: f"__block{i}" for i, c in enumerate(cols)}
    text = {c: pl.nth(names.index(c)).cast(pl.String) for c in cols}
    per = collect(log.lazy.group_by("item", "variant").agg(
        *[text[c].drop_nulls().n_unique().alias(safe[c]) for c in cols], pl.len().alias("__runs")),
        log.source, log._path)
    if per.height == 0 or int(per["__runs"].min()) < 2:
        return []
    levels = collect(log.lazy.select(*[text[c].drop_nulls().n_unique().alias(safe[c]) for c in cols]),
                     log.source, log._path)
    problems = []
    for c in cols:
        k = int(levels[safe[c]][0])
        if not 2 <= k <= MAX_LEVELS or int(per[safe[c]].min()) != k:
            continue
        values = collect(log.lazy.select(text[c].drop_nulls().unique(maintain_order=True).alias(safe[c]))
                         .head(MAX_LEVELS), log.source, log._path)[safe[c]].to_list()
        if _numbers_runs(values):
            continue   # a trial index, most likely: it numbers the runs of each cell
        shares = collect(log.lazy.group_by("item", "variant", text[c].alias(safe[c])).len()
                         .group_by("item", "variant").agg((pl.col("len").min() == pl.col("len").max()).alias("even"))
                         .select(pl.col("even").mean()), log.source, log._path)["even"][0]
        if shares < BALANCED_SHARE:
            continue   # drawn per call, or an outcome: its shares differ from cell to cell, as no design makes them
        header = log.columns.get(c, c).strip()
        shown = ", ".join(f"'{v}'" for v in values[:4]) + (f" and {k - 4} more" if k > 4 else "")
        problems.append(Problem(
            "warning", "likely_block",
            f"{header} takes every one of its {k} values ({shown}) in every item x value cell, so each cell's runs "
            f"are {k} {header} values, not repeated draws: it looks like a block; match the items within it with "
            + either(f"Probe(settings=['{c}'])", opt("settings", c)) + f", or split with {opt('by', c)}",
            (), log.columns.get(c, c)))
    return problems
