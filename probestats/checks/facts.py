"""What a report says of a log beyond its cells: the settings it shows held fixed or varied, and its seeds.

:func:`row_facts` reads them from the rows; the streaming pass (:mod:`probestats.checks.stream`)
takes the same facts from its cells without keeping the rows, so a report of a log of any size says
the same words. Both give a :class:`LogFacts`, which is all the report's design section reads.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

__all__ = ["LogFacts", "NOT_SETTINGS", "row_facts", "seed_facts", "pooled_in_cells", "pooled_phrase", "POOLING_SETTINGS"]

#: Columns that are never settings: ids, the attribute, the runs' own text and outcomes.
NOT_SETTINGS = frozenset({"item", "variant", "seed", "run_id", "time", "prompt", "reply", "_row", "framing",
                          "score", "label", "refusal", "neutral", "asserts", "criterion"})


@dataclass(frozen=True)
class LogFacts:
    """The facts of a log a report's design section states.

    Attributes
    ----------
    columns : tuple of (str, int, object)
        Each column that may be a setting, in the log's order: its name, how many distinct values
        it holds (blanks aside; a column that is neither a known setting nor a ``by`` column may
        say 2 for "two or more"), and its one value when it holds one (else None).
    seeds : tuple of (int, int or None, int or None) or None
        The compared values' distinct seeds: how many, and the smallest and largest when they are
        whole numbers that make one unbroken range; None without a seed column or seeds.
    """

    columns: tuple[tuple[str, int, object], ...] = ()
    seeds: tuple[int, int | None, int | None] | None = None


#: words of a header naming free text a person wrote beside the runs (a notes column): never a setting, even
#: when every row says the same ("copied by hand")
NOTE_WORDS = frozenset({"note", "notes", "comment", "comments", "remark", "remarks", "annotation", "annotations",
                        "memo", "observation", "observations"})


def is_note(name: str) -> bool:
    """Whether a column's header names notes, not a setting (``Notes``, ``my comments``, ``note_2``).

    >>> [is_note(h) for h in ("Notes", "my comments", "note_2", "model", "notebook")]
    [True, True, True, False, False]
    """
    import re

    return any(word in NOTE_WORDS for word in re.split(r"[^a-z]+", str(name).lower()))


def candidates(names, metric: str | None) -> list[str]:
    """The columns of a log that may be settings (in the log's order): a notes column is not one."""
    return [c for c in names if c not in NOT_SETTINGS and c != metric and not c.startswith("_") and not is_note(c)]


def row_facts(log_frame: pl.DataFrame, pair_frame: pl.DataFrame, metric: str | None) -> LogFacts:
    """The facts from the rows: every column of the whole log, and the seeds of the compared values' rows.

    >>> rows = pl.DataFrame({"item": ["1", "1", "2"], "model": ["m", "m", "m"], "judge": ["x", "y", None],
    ...                      "seed": ["1", "2", "3"], "steps": ["4", "5", "6"]})
    >>> facts = row_facts(rows, rows, "steps")
    >>> facts.columns, facts.seeds
    ((('model', 1, 'm'), ('judge', 2, None)), (3, 1, 3))
    """
    columns = []
    for col in candidates(log_frame.columns, metric):
        try:
            values = log_frame[col].drop_nulls().unique(maintain_order=True)
        except Exception:  # unusual column types: not a setting we can judge
            continue
        count = int(values.len())
        if col == "temperature" and count > 1:
            count = temperatures(log_frame[col].drop_nulls(), count)
        columns.append((col, count, log_frame[col].drop_nulls()[0] if count == 1 else None))
    seeds = None
    if "seed" in pair_frame.columns:
        seeds = seed_facts(pair_frame["seed"].drop_nulls().unique(maintain_order=True).to_list())
    return LogFacts(tuple(columns), seeds)


def temperatures(column: pl.Series, written: int) -> int:
    """How many temperatures a column holds, read as numbers as validation reads them (``0.8`` and
    ``0.80`` are one); ``written``, the count of its spellings, when some cell is not a number.

    >>> temperatures(pl.Series(["0.8", "0.80", " 0.8", "-0"]), 4), temperatures(pl.Series(["0.8", "hot"]), 2)
    (2, 2)
    """
    numbers = (column.cast(pl.String).str.strip_chars().cast(pl.Float64, strict=False) if column.dtype == pl.String
               else column.cast(pl.Float64))
    if numbers.null_count() or numbers.is_nan().any():
        return written
    return int(numbers.replace(-0.0, 0.0).unique().len())


def seed_facts(seeds: list) -> tuple[int, int | None, int | None] | None:
    """How many distinct ``seeds``, and their range when they are whole numbers with none missing.

    >>> seed_facts(["3", "1", "2"]), seed_facts(["1", "3"]), seed_facts(["a"]), seed_facts([])
    ((3, 1, 3), (2, None, None), (1, None, None), None)
    """
    if not seeds:
        return None
    try:
        numbers = sorted(int(float(s)) for s in seeds)
        if numbers == list(range(numbers[0], numbers[-1] + 1)):
            return len(seeds), numbers[0], numbers[-1]
    except (TypeError, ValueError, OverflowError):
        pass
    return len(seeds), None, None


def seed_union(spans: list[tuple[int, int]]) -> tuple[int, int | None, int | None] | None:
    """:func:`seed_facts` of the union of whole-number ranges (each cell's seeds ``lo`` to ``hi``).

    >>> seed_union([(1, 5), (3, 8)]), seed_union([(1, 2), (4, 4)]), seed_union([])
    ((8, 1, 8), (3, None, None), None)
    """
    if not spans:
        return None
    merged: list[list[int]] = []
    for lo, hi in sorted(spans):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    count = sum(hi - lo + 1 for lo, hi in merged)
    return (count, merged[0][0], merged[0][1]) if len(merged) == 1 else (count, None, None)


#: settings whose values, varying inside one item x value cell, make that cell's runs several settings' runs
POOLING_SETTINGS = ("model", "judge", "temperature", "system")
_SETTING_NOUNS = {"model": "models", "judge": "judges", "temperature": "temperatures", "system": "system prompts"}


def pooled_in_cells(frame: pl.DataFrame, cell=("item", "variant")) -> tuple[tuple[str, int], ...]:
    """The settings that vary inside some cell (an item under one value), with how many values each holds:
    the runs of such a cell are the runs of several settings together, so a count of them counts the settings.

    >>> frame = pl.DataFrame({"item": ["1"] * 4, "variant": ["a", "a", "b", "b"], "model": ["x", "y", "x", "y"]})
    >>> pooled_in_cells(frame)
    (('model', 2),)
    >>> pooled_in_cells(frame.with_columns(pl.lit("x").alias("model")))
    ()
    """
    cell = [c for c in cell if c in frame.columns]
    present = [c for c in POOLING_SETTINGS if c in frame.columns]
    if not present or not cell or frame.height == 0:
        return ()
    inside = frame.group_by(cell).agg([pl.col(c).cast(pl.String).n_unique().alias(c) for c in present])
    return tuple((c, int(frame[c].cast(pl.String).n_unique())) for c in present if inside[c].max() > 1)


def pooled_phrase(pooled) -> str:
    """How a count of runs says what it counts when settings are pooled in its cells ("" when none are).

    >>> pooled_phrase((("model", 7),)), pooled_phrase(())
    (' (pooled over 7 models: their runs count as runs of one cell)', '')
    """
    if not pooled:
        return ""
    named = " and ".join(f"{n} {_SETTING_NOUNS.get(c, c)}" for c, n in pooled)
    return f" (pooled over {named}: their runs count as runs of one cell)"
