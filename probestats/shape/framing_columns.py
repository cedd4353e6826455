"""Framings laid out as columns: one row per item, a column per framing, read as the long log.

``Probe(framing_columns=('affirmative=COL,reverse=COL',))`` (``--framing-columns`` on the command line)
names the column that holds each framing's answer (reply, label or score). Each row becomes two rows, the affirmative one first, with a
``framing`` column and the answer in one column, and the row number of the row it came from.
The answer column is the ``reply`` unless the words the two headers share name a score or a
label as a header does (``aff_score`` and ``rev_score`` -> ``score``; ``agree_prompt`` and
``disagree_prompt`` -> ``reply``, since the columns hold the answers). ``MEASURE:affirmative=COL,reverse=COL``
names it outright (``score:affirmative=yes_claim,reverse=yes_mirror``). Give the option once
per measure (replies and their prompts, say); every other column is repeated.

Examples
--------
>>> parse_framing_columns(["affirmative=agree_reply,reverse=disagree_reply"])
[(None, 'agree_reply', 'disagree_reply')]
>>> parse_framing_columns(["score:rev=b,aff=a"])
[('score', 'a', 'b')]
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

import polars as pl

from probestats.errors import ColumnError, OptionError, either, opt
from probestats.io.columns import ROW, normalize_header, resolve_columns
from probestats.shape.wide import split_names

__all__ = ["melt_framing_columns", "parse_framing_columns"]

_AFF = ("affirmative", "aff", "agree", "forward")
_REV = ("reverse", "rev", "disagree", "mirror", "mirrored")
_ANSWERS = ("reply", "label", "score")



def _said(spec: str | None = None) -> str:
    """The framing columns as the caller gives them: the Probe's field in Python, the flag on the command line.

    >>> from probestats.errors import cli_spelling
    >>> _said("a=x")
    "Probe(framing_columns=('a=x',))"
    >>> with cli_spelling():
    ...     _said("a=x")
    '--framing-columns a=x'
    """
    if spec is None:
        return either("the probe's framing_columns", opt("framing_columns"))
    return either(f"Probe(framing_columns=({spec!r},))", opt("framing_columns", spec))

def parse_framing_columns(specs: Sequence[str]) -> list[tuple[str | None, str, str]]:
    """Each spec as (measure or None, affirmative column, reverse column)."""
    out = []
    for spec in specs:
        measure, colon, body = str(spec).partition(":")
        if not colon or "=" in measure:
            measure, body = None, str(spec)
        found: dict[str, str] = {}
        for entry in body.split(","):
            key, eq, col = entry.partition("=")
            key = key.strip().lower()
            side = "affirmative" if key in _AFF else "reverse" if key in _REV else None
            if not eq or side is None or not col.strip() or side in found:
                raise OptionError(f"{_said(str(spec))}: write affirmative=COLUMN,reverse=COLUMN "
                                  "(optionally MEASURE: before it, e.g. score:affirmative=a,reverse=b)")
            found[side] = col.strip()
        if len(found) != 2:
            raise OptionError(f"{_said(str(spec))}: name both framings, affirmative=COLUMN,reverse=COLUMN")
        out.append((measure.strip() if measure else None, found["affirmative"], found["reverse"]))
    return out


def _common(a: str, b: str) -> str | None:
    values, common = split_names([a, b])
    return common or None


def melt_framing_columns(log, specs: Sequence[str]):
    """The log with each row split into its affirmative and reverse rows (see the module docstring).

    Parameters
    ----------
    log : probestats.io.log.Log
    specs : sequence of str
        ``framing_columns`` values.

    Returns
    -------
    Log
    """
    groups = parse_framing_columns(specs)
    lazy = log.lazy
    schema = lazy.collect_schema()
    present = [n for n in schema.names() if n != ROW]
    by_header = {h: c for c, h in log.columns.items()}
    if "framing" in schema:
        raise ColumnError(f"{_said()} makes the framing column, but the log already has one "
                          f"('{log.columns.get('framing', 'framing')}'); drop {_said()} (the log is long "
                          "already) or rename that column")

    def find(col: str) -> str:
        for name in (col, by_header.get(col)):
            if name in schema and name != ROW:
                return name
        for name in present:
            if normalize_header(name) == normalize_header(col):
                return name
        raise ColumnError(f"{_said()}: no column '{col}' in the log; columns seen: {', '.join(present)}")

    melted = []
    for measure, a, r in groups:
        ca, cr = find(a), find(r)
        if measure:
            canonical = next(iter(resolve_columns([measure]).keys()), measure)
        else:  # the columns hold the framings' answers: scores or labels when their shared words say so
            canonical = next(iter(resolve_columns([_common(a, r) or "reply"]).keys()), "reply")
            canonical = canonical if canonical in _ANSWERS else "reply"
        melted.append((canonical, ca, cr))
    names = [m for m, _, _ in melted]
    if len(set(names)) != len(names):
        raise OptionError(f"{_said()} are given twice for the {names[0]}; give each measure once "
                          "(name it with MEASURE:affirmative=...,reverse=...)")
    used = {c for _, a, r in melted for c in (a, r)}
    keep = [n for n in present if n not in used]
    clash = [m for m in names if m in keep]
    if clash:
        raise ColumnError(f"{_said()} makes a '{clash[0]}' column, but the log already has one; name the "
                          f"measure (e.g. {_said('answer:affirmative=COL,reverse=COL')}) or rename it")
    parts = []
    for k, framing in enumerate(("affirmative", "reverse")):
        cols = []
        for measure, a, r in melted:
            same = schema[a] == schema[r]
            col = pl.col(a if k == 0 else r)
            cols.append((col if same else col.cast(pl.String)).alias(measure))
        parts.append(lazy.select(*[pl.col(c) for c in keep], pl.lit(framing, pl.String).alias("framing"), *cols,
                                 pl.col(ROW), pl.lit(k, pl.Int32).alias("\0framing")))
    long = pl.concat(parts, how="vertical").sort([ROW, "\0framing"], maintain_order=True).drop("\0framing")
    long = long.select(pl.all().exclude(ROW), pl.col(ROW))
    columns = {c: h for c, h in log.columns.items() if c not in used}
    columns["framing"] = "framing"
    for m in names:
        columns[m] = m
    headers = tuple(h for h in log.headers if h not in {log.columns.get(c, c) for c in used}) + tuple(
        c for c in ("framing", *names) if c not in log.headers)
    read = dict(getattr(log, "_read", {}) or {})
    read.setdefault("unfiltered", log.lazy)
    return replace(log, lazy=long, columns=columns, headers=headers, _read=read)
