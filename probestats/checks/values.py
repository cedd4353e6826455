"""The values of the attribute: spellings that differ only in surrounding spaces or in case, and the two
values compared (``a`` and ``b``, by default the first two in the log's order)."""

from __future__ import annotations

import polars as pl

from probestats.checks.columns import problem_rows
from probestats.errors import Problem, count_of, opt
from probestats.io.log import Log, format_rows

__all__ = ["SPACED", "spaced_values", "near_duplicates", "default_pair", "choose_values"]

SPACED = "__spaced"  # the values written with surrounding spaces, as written


def spaced_values(df: pl.DataFrame, log: Log) -> list[Problem]:
    """Values written both with and without surrounding spaces: read as one value, and said so."""
    spaced = df.filter(pl.col(SPACED).is_not_null())
    if not spaced.height:
        return []
    totals = dict(df.filter(pl.col("variant").is_in(spaced["variant"].unique().implode()))
                  .group_by("variant").len().iter_rows())
    problems = []
    for value, group in spaced.group_by("variant", maintain_order=True):
        value = value[0]
        spellings = group.group_by(SPACED, maintain_order=True).len().rows()
        plain = totals[value] - group.height
        if plain:
            spellings.append((value, plain))
        if len(spellings) < 2:
            continue  # written the same way (spaces and all) in every run: nothing is split
        listed = [f"'{v}' ({count_of(n, 'row')})" for v, n in spellings]
        listed = ", ".join(listed[:-1]) + " and " + listed[-1]
        rows = problem_rows(log, group)
        problems.append(Problem(
            "warning", "near_duplicate_value",
            f"{listed} differ only in surrounding spaces; they are read as one value '{value}' "
            f"(spaces on {format_rows(log, rows)}); remove the spaces if they were not meant",
            rows, log.columns.get("variant")))
    return problems


def near_duplicates(df: pl.DataFrame, log: Log, fold_case: bool, counts: pl.DataFrame | None = None):
    """Values that differ only in case: a warning, or one value with ``fold_case``.

    Returns the frame, the problems and the values in order of appearance. ``counts`` is the
    frame's runs per value (``variant``, ``len``), when already at hand.
    """
    if counts is None:
        counts = df.group_by("variant", maintain_order=True).len()
    values = tuple(counts["variant"].to_list())
    counts = counts.with_columns(pl.col("variant").str.strip_chars().str.to_lowercase().alias("_key"))
    groups = counts.group_by("_key", maintain_order=True).agg(pl.col("variant"), pl.col("len"))
    problems = []
    mapping = {}
    for key, variants, lens in groups.iter_rows():
        if len(variants) < 2:
            continue
        listed = " and ".join(f"'{v}' ({count_of(n, 'row')})" for v, n in zip(variants, lens))
        if fold_case:
            for v in variants:
                mapping[v] = variants[0]
            problems.append(Problem("warning", "near_duplicate_value",
                                    f"{listed} differ only in case; treated as one value '{variants[0]}' "
                                    f"({opt('fold_case', True)})",
                                    column=log.columns.get("variant")))
        else:
            problems.append(Problem("warning", "near_duplicate_value",
                                    f"{listed} differ only in case; use {opt('fold_case', True)} to treat them as "
                                    "one value",
                                    column=log.columns.get("variant")))
    if mapping:
        df = df.with_columns(pl.col("variant").replace(mapping))
        values = tuple(dict.fromkeys(mapping.get(v, v) for v in values))
    return df, problems, values


def default_pair(values, a, b) -> tuple:
    """The values compared: ``a`` and ``b`` as given, each missing one the first value (in the log's
    order) other than those given; None where none is left.

    >>> default_pair(["x", "y", "z"], None, None), default_pair(["x", "y", "z"], None, "x"), default_pair(["x"], None, None)
    (('x', 'y'), ('y', 'x'), ('x', None))
    """
    rest = [v for v in values if v not in (a, b)]
    if a is None:
        a = rest.pop(0) if rest else None
    if b is None:
        b = rest.pop(0) if rest else None
    return a, b


def choose_values(values, a, b, log: Log):
    """The two values compared (see :func:`default_pair`), with the ``unknown_value`` and ``too_few_values``
    errors; returns ``a``, ``b`` and the problems."""
    problems = []
    col = log.columns.get("variant")
    for name, v in (("a", a), ("b", b)):
        if v is not None and v not in values:
            near = [x for x in values if x.strip().lower() == str(v).strip().lower()]
            hint = f"; did you mean '{near[0]}'?" if near else ""
            shown = ", ".join(f"'{x}'" for x in values[:12]) + (" ..." if len(values) > 12 else "")
            problems.append(Problem("error", "unknown_value",
                                    f"{opt(name, v)}: no such value in the log; values seen: {shown}{hint}", column=col))
    if problems:
        return a, b, problems
    a, b = default_pair(values, a, b)
    if a is None or b is None:
        problems.append(Problem("error", "too_few_values",
                                f"the log has only one value of the attribute ({', '.join(repr(v) for v in values) or 'none'}); "
                                "a probe compares two: add the other value's runs", column=col))
    elif a == b:
        problems.append(Problem("error", "unknown_value",
                                f"{opt('a')} and {opt('b')} are both '{a}'; compare two different values",
                                column=col))
    return a, b, problems
