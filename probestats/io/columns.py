"""The columns of a probe log: the names probestats gives them, the headers that mean them (the alias
table), the names it keeps for itself, and how many columns a log may have."""

from __future__ import annotations

import re
import unicodedata
from typing import Mapping

from probestats.errors import ColumnError, OptionError, ReadError, either, opt
from probestats.limits import gigabytes, memory_room

__all__ = ["ROW", "INTERNAL_NAMES", "STRUCTURE", "ALIASES", "refuse_internal", "normalize_header", "resolve_columns",
           "check_columns", "check_memory"]

ROW = "_row"

#: names the checks give their own per-cell columns beside a log's columns (and every name
#: starting with two underscores): a log's column of such a name is read under another name
INTERNAL_NAMES = frozenset({ROW, "n", "counted", "constant", "mean", "sd", "seeds", "seeded", "distinct_seeds",
                            "first_valued", "has_a", "has_b"})
#: the columns that make or number the runs of a probe, with what they do
STRUCTURE = {"item": "names the item", "variant": "holds the value compared", "seed": "numbers the runs by seed",
             "run_id": "names each run", "time": "holds when each run was made"}


def refuse_internal(option: str, name: str) -> None:
    """Refuse a column ``name`` given as the parameter ``option`` (``"metric"`` or ``"by"``) that probestats
    uses itself, with the way to use it anyway (named as the caller spells it, see :func:`probestats.errors.opt`).

    Examples
    --------
    >>> refuse_internal("by", "model")
    >>> refuse_internal("by", "n")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: by='n': 'n' is a name probestats uses for its own counts; read the column under another name: columns={'n_col': 'n'}, by='n_col'
    >>> from probestats.errors import cli_spelling
    >>> with cli_spelling():
    ...     refuse_internal("metric", "seed")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: --metric seed: the column 'seed' numbers the runs by seed, not a metric; name the column that holds the number computed from each reply (to analyze it anyway, read it under another name: --column seed_col=seed --metric seed_col)
    """
    name = str(name)
    other = f"{name.strip('_') or 'x'}_col"
    read_as = opt("columns", {other: name}) + either(", ", " ") + opt(option, other)
    if option == "metric" and name in STRUCTURE and name not in ("item", "variant"):
        raise OptionError(f"{opt('metric', name)}: the column '{name}' {STRUCTURE[name]}, not a metric; name the column "
                          f"that holds the number computed from each reply (to analyze it anyway, read it under "
                          f"another name: {read_as})")
    if option == "by" and name in ("seed", "run_id"):
        raise OptionError(f"{opt('by', name)}: that column numbers the runs inside each item x value cell, so it cannot "
                          "split the analysis; group by a column that is fixed within an item, such as model")
    if name in INTERNAL_NAMES or name.startswith("__"):
        raise OptionError(f"{opt(option, name)}: '{name}' is a name probestats uses for its own counts; read the "
                          f"column under another name: {read_as}")

#: canonical name -> headers that mean it (compared after :func:`normalize_header`).
ALIASES: dict[str, tuple[str, ...]] = {
    "item": ("item", "item_id", "pair", "pair_id", "question_id", "prompt_id", "sample", "case", "case_id"),
    "variant": ("variant", "value", "condition", "arm", "style"),
    "seed": ("seed", "iteration", "iter", "draw"),
    "run_id": ("run_id", "run", "runid"),
    "time": ("time", "timestamp", "date", "datetime"),
    "model": ("model", "model_tag", "model_name", "llm"),
    "judge": ("judge", "grader", "judge_model", "grader_model"),
    "temperature": ("temperature", "temp"),
    "system": ("system", "system_prompt"),
    "prompt": ("prompt", "input", "message", "question"),
    "reply": ("reply", "response", "output", "completion", "raw", "answer"),
    "framing": ("framing", "frame", "direction"),
    "topic": ("topic",),
    "language": ("language", "lang", "locale"),
    "label": ("label", "cat", "category", "judge_label"),
    "score": ("score",),
    "refusal": ("refusal", "is_refusal", "isrefusal", "refused"),
    "neutral": ("neutral", "is_neutral", "isneutral"),
    "prefix": ("prefix",),
    "suffix": ("suffix",),
    "asserts": ("asserts", "target", "asserted_target"),
    "criterion": ("criterion", "criteria"),
}


def normalize_header(header: str) -> str:
    """Header as compared with the alias table: trimmed, lower case, separators as ``_``.

    Examples
    --------
    >>> normalize_header(" Run ID ")
    'run_id'
    >>> normalize_header("Is-Refusal")
    'is_refusal'
    """
    text = unicodedata.normalize("NFKC", str(header)).strip().lower()
    return re.sub(r"[\s\-./]+", "_", text).strip("_")


def resolve_columns(
    headers: list[str], overrides: Mapping[str, str] | None = None, metric: str | None = None
) -> dict[str, str]:
    """Map canonical names to the headers that hold them.

    Exact canonical names win over aliases; an alias earlier in :data:`ALIASES`
    wins over a later one; ``overrides`` (canonical -> header) win over both. An override to
    the empty header says that no header holds that column (a header that looks like a model's
    but is not one). ``metric`` is matched like a header and maps to itself.

    Examples
    --------
    >>> resolve_columns([" Item ", "Variant", "Steps", "Run ID"], metric="steps")
    {'item': ' Item ', 'variant': 'Variant', 'run_id': 'Run ID', 'steps': 'Steps'}
    >>> resolve_columns(["pair", "arm", "score"], overrides={"item": "score"})
    {'item': 'score', 'variant': 'arm'}
    >>> resolve_columns(["item", "variant", "model"], overrides={"model": ""})
    {'item': 'item', 'variant': 'variant'}
    """
    overrides = dict(overrides or {})
    unset = {canonical for canonical, header in overrides.items() if header == ""}
    overrides = {canonical: header for canonical, header in overrides.items() if header != ""}
    for canonical, header in overrides.items():
        if canonical == ROW or canonical.startswith("__"):
            raise ColumnError(f"{opt('columns', {canonical: header})}: '{canonical}' is a name probestats uses itself "
                              f"(for the row numbers and its counts); read '{header}' under another name")
    by_norm: dict[str, str] = {}
    for h in headers:
        by_norm.setdefault(normalize_header(h), h)
    for canonical, header in overrides.items():
        if header not in headers:
            found = by_norm.get(normalize_header(header))
            if found is None:
                raise ColumnError(
                    f"{opt('columns', {canonical: header})}: no header '{header}' in the log; "
                    f"headers seen: {', '.join(headers)}"
                )
            overrides[canonical] = found
    taken = set(overrides.values())
    mapping: dict[str, str] = {}
    for canonical, aliases in ALIASES.items():
        if canonical in unset:
            continue
        if canonical in overrides:
            mapping[canonical] = overrides[canonical]
            continue
        for alias in aliases:
            header = by_norm.get(alias)
            if header is not None and header not in taken:
                mapping[canonical] = header
                taken.add(header)
                break
    if metric is not None:
        if metric in overrides:
            mapping[metric] = overrides[metric]
        else:
            header = by_norm.get(normalize_header(metric))
            if header is not None:
                # the metric may share a header with a canonical column (say "score")
                for canonical, h in list(mapping.items()):
                    if h == header and canonical != metric:
                        del mapping[canonical]
                mapping[metric] = header
    for canonical, header in overrides.items():
        mapping[canonical] = header
    return mapping


#: address space a log's checks map per column, about: polars' streaming aggregates keep buffers per column and
#: thread (16,384 columns of 3 rows grew past 4 GB in one pass; read in passes of a few hundred aggregations,
#: 2,504 columns of 400 rows map 2.6 GB at their peak)
SPACE_PER_COLUMN = 1_000_000
#: address space the checks map beside the columns (the engine's threads and their arenas)
SPACE_BESIDE = 500_000_000
#: resident memory a log's checks take per column, about (measured: 0.52 GB at 2,504 columns, 0.89 GB at 5,000)
RESIDENT_PER_COLUMN = 200_000
#: resident memory the checks take beside the columns
RESIDENT_BESIDE = 300_000_000


def check_columns(count: int, name: str, most: int) -> None:
    """Refuse a log of more than ``most`` columns: every check and analysis works column by column; and,
    whatever ``most`` says, a log whose checks would not fit in the memory this process may take
    (:func:`check_memory`).

    >>> check_columns(16_384, "wide.xlsx", 2_000)
    Traceback (most recent call last):
    ...
    probestats.errors.ReadError: 'wide.xlsx' has 16,384 columns, more than max_columns=2000 (validating them would take about 16 GB of memory); keep the columns the probe needs (item, value, metric, settings), or raise the limit with max_columns=16384
    """
    if count > most:
        raise ReadError(f"'{name}' has {count:,} columns, more than {opt('max_columns', most)} (validating them "
                        f"would take about {_column_cost(count)} of memory); keep the columns the probe needs "
                        f"(item, value, metric, settings), or raise the limit with {opt('max_columns', count)}")
    check_memory(count, name)


def check_memory(count: int, name: str, room=None) -> None:
    """Refuse a log of ``count`` columns whose checks would take more memory than this process may
    (:func:`probestats.limits.memory_room`, or ``room`` as it gives them), whatever the limits say: a
    native engine refused memory aborts the process with no message, so the estimate is made before the work.

    >>> check_memory(3_000, "wide.csv", room=(3_000_000_000, "its address-space limit (ulimit -v) of 4.0 GB", None, ""))
    Traceback (most recent call last):
    ...
    probestats.errors.ReadError: 'wide.csv' has 3,000 columns: checking them would take about 3.5 GB of memory, more than the 3.0 GB this process may still take (its address-space limit (ulimit -v) of 4.0 GB); keep the columns the probe needs (item, value, metric, settings) in a copy of the log, or build its cell table where the log lives (probestats.sql) and give that
    >>> check_memory(2_000, "wide.csv", room=(3_000_000_000, "its address-space limit", None, ""))
    """
    space, space_bound, resident, resident_bound = memory_room() if room is None else room
    need_space = SPACE_BESIDE + count * SPACE_PER_COLUMN
    need_resident = RESIDENT_BESIDE + count * RESIDENT_PER_COLUMN
    if space is not None and need_space > space:
        need, have, bound = need_space, space, space_bound
    elif resident is not None and need_resident > resident:
        need, have, bound = need_resident, resident, resident_bound
    else:
        return
    raise ReadError(f"'{name}' has {count:,} columns: checking them would take about {gigabytes(need)} of memory, "
                    f"more than the {gigabytes(have)} this process may still take ({bound}); keep the columns the "
                    "probe needs (item, value, metric, settings) in a copy of the log, or build its cell table "
                    f"where the log lives ({either('probestats.sql', 'probestats sql')}) and give that")


def _column_cost(columns: int) -> str:
    """The memory a log's checks take for its columns, about (measured: 16,384 columns of 3 rows grew past 4 GB
    in the streaming checks' per-column aggregates, about 1 MB per column)."""
    return f"{columns * 1e6 / 1e9:,.0f} GB" if columns >= 1000 else f"{columns:,} MB"
