"""Wide layouts: one metric column per value (``formal_steps, casual_steps``), read as the long log.

A ``wide`` entry ``COL,COL,...`` (``--wide COL,COL,...`` on the command line) names the columns of
one measure, one per value; the values are the column names with their common words stripped
(``formal_steps`` -> ``formal``) and the measure is named by those common words (``steps``;
``gpt_Raw, glm_Raw`` -> ``Raw``, read as the reply). An entry ``value=COL`` names a value outright
(one entry per value). Several ``wide`` lists (``{model}_Raw`` and ``{model}_Cat``) melt side by
side and must name the same values.

Each wide row becomes one row per value, in the order the columns were given, with the row
number of the row it came from.

Examples
--------
>>> split_names(["formal_steps", "casual_steps"])
(['formal', 'casual'], 'steps')
>>> split_names(["gpt-4o_Raw", "glm_Raw"])
(['gpt-4o', 'glm'], 'Raw')
>>> parse_wide(["formal_steps,casual_steps"])
[[(None, 'formal_steps'), (None, 'casual_steps')]]
>>> parse_wide(["formal=f", "casual=c"])
[[('formal', 'f'), ('casual', 'c')]]
>>> split_names(["model-a_Raw", "model-b_Raw"]), split_names(["steps_formal", "steps_casual"])
((['model-a', 'model-b'], 'Raw'), (['formal', 'casual'], 'steps'))
>>> looks_wide(["item", "formal_steps", "casual_steps", "seed"])
'formal_steps,casual_steps'
"""

from __future__ import annotations

import re
from typing import Sequence

import polars as pl

from probestats.errors import ColumnError, OptionError, Problem, opt
from probestats.io.columns import ROW, normalize_header, resolve_columns

__all__ = ["parse_wide", "split_names", "melt", "looks_wide"]

_SEP = re.compile(r"([_\-. ]+)")


def parse_wide(specs: Sequence[str]) -> list[list[tuple[str | None, str]]]:
    """Each ``wide`` list as (value or None, column) pairs; single ``value=COL`` options form one list."""
    groups: list[list[tuple[str | None, str]]] = []
    named: list[tuple[str | None, str]] = []
    for spec in specs:
        entries = [e.strip() for e in str(spec).split(",") if e.strip()]
        if not entries:
            raise OptionError(f"{opt('wide', str(spec))}: name the columns, e.g. {opt('wide', 'formal_steps,casual_steps')}")
        pairs = []
        for e in entries:
            if "=" in e:
                value, col = e.split("=", 1)
                if not value.strip() or not col.strip():
                    raise OptionError(f"{opt('wide', str(spec))}: expected VALUE=COLUMN, e.g. {opt('wide', 'formal=f_steps')}")
                pairs.append((value.strip(), col.strip()))
            else:
                pairs.append((None, e))
        if len(pairs) == 1 and pairs[0][0] is not None:
            named += pairs
        else:
            groups.append(pairs)
    if named:
        groups.append(named)
    for group in groups:
        if len(group) < 2:
            raise OptionError(f"{opt('wide', group[0][1])}: a wide layout has one column per value; name two or more")
    return groups


def split_names(names: Sequence[str]) -> tuple[list[str], str]:
    """Values and the common name of columns like ``formal_steps, casual_steps``: words all share are stripped."""
    tokens = [_SEP.split(n) for n in names]   # words at even positions, separators at odd ones
    # the measure is named by the words the names end with ({model}_Raw); failing that, begin with (steps_formal)
    pre = post = 0
    while all(len(t) > post + 2 for t in tokens) and len({tuple(t[len(t) - post - 2:]) for t in tokens}) == 1:
        post += 2
    while not post and all(len(t) > pre + 2 for t in tokens) and len({tuple(t[:pre + 2]) for t in tokens}) == 1:
        pre += 2
    values = ["".join(t[pre:len(t) - post]) for t in tokens]
    common = [w for w in tokens[0][:pre] + tokens[0][len(tokens[0]) - post:] if w and not _SEP.fullmatch(w)]
    if len(set(values)) != len(values) or not all(values):
        return list(names), ""
    return values, "_".join(common)


def melt(lazy: pl.LazyFrame, columns: dict[str, str], specs: Sequence[str], *, attribute: str = "variant",
         metric: str | None = None) -> tuple[pl.LazyFrame, dict[str, str], list]:
    """One row per value from a wide log; returns the long frame, the updated column mapping and the
    problems to tell (a measure of named values named ``score`` for want of ``metric``).

    A list of named values (``VALUE=COL``) names its measure ``metric`` when given, else by the words
    its headers share when they name the reply, a label or a score (``{model}_Raw``), else ``score``.

    ``columns`` is the log's mapping (canonical -> header); a wide column is named by its header.
    """
    groups = parse_wide(specs)
    schema = lazy.collect_schema()
    by_header = {h: c for c, h in columns.items()}
    present = [n for n in schema.names() if n != ROW]

    def find(col: str) -> str:
        for name in (col, by_header.get(col)):
            if name in schema:
                return name
        norm = normalize_header(col)
        for name in present:
            if normalize_header(name) == norm:
                return name
        raise ColumnError(f"{opt('wide')}: no column '{col}' in the log; columns seen: {', '.join(present)}")

    if attribute in schema:
        raise ColumnError(f"{opt('wide')} reads the {attribute} from the column names, but the log already has a "
                          f"'{columns.get(attribute, attribute)}' column; drop {opt('wide')} (the log is long already)")
    melted: list[tuple[list[str], list[str], str]] = []   # (values, columns, measure name)
    problems = []
    for group in groups:
        cols = [find(col) for _, col in group]
        values, common = split_names([col for _, col in group])
        if any(v is not None for v, _ in group):
            values = [v if v is not None else col for v, col in group]
            name, said = _named_measure(common, metric if len(groups) == 1 else None)
            if said:
                problems.append(Problem("warning", "wide_measure_named", said))
        else:
            name = common or (metric if metric and len(groups) == 1 else None)
        if not name:
            raise OptionError(f"{opt('wide', ','.join(c for _, c in group))}: the columns share no name for what "
                              f"they measure; name the values ({opt('wide', 'VALUE=COLUMN')}) and give {opt('metric')}")
        melted.append((values, cols, name))
    values = melted[0][0]
    for other, cols, _ in melted[1:]:
        if other != values:
            raise OptionError(f"{opt('wide')} lists must name the same values in the same order: "
                              f"{', '.join(values)} against {', '.join(other)}")
    names = [name for _, _, name in melted]
    if len(set(names)) != len(names):
        raise OptionError(f"{opt('wide')} lists measure the same thing ({', '.join(names)}); give each list once")
    used = {c for _, cols, _ in melted for c in cols}
    keep = [n for n in present if n not in used]
    # the measure's name is read like a header: 'Raw' is the reply, a name like the metric is the metric
    mapping = resolve_columns(names, metric=metric)
    final = {}
    for name in names:
        canonical = next((c for c, h in mapping.items() if h == name), name)
        final[name] = canonical if canonical not in keep else name
    clash = [final[n] for n in names if final[n] in keep]
    if clash:
        raise ColumnError(f"{opt('wide')} makes a column '{clash[0]}', but the log already has one; rename it")
    types = {final[name]: pl.String if len({schema[c] for c in cols}) > 1 else schema[cols[0]]
             for _, cols, name in melted}
    parts = []
    for k, value in enumerate(values):
        parts.append(lazy.select(
            *[pl.col(c) for c in keep],
            pl.lit(value, pl.String).alias(attribute),
            *[pl.col(cols[k]).cast(types[final[name]]).alias(final[name]) for _, cols, name in melted],
            pl.col(ROW), pl.lit(k, pl.Int32).alias("\0wide")))
    long = pl.concat(parts, how="vertical").sort([ROW, "\0wide"], maintain_order=True).drop("\0wide")
    long = long.select(pl.all().exclude(ROW), pl.col(ROW))
    new_columns = dict(columns)
    new_columns[attribute] = attribute
    for name in names:
        new_columns[final[name]] = final[name]   # made by the melt: no header of the file holds it
    return long, new_columns, problems


#: the measures a wide layout of named values keeps the name of: its columns hold the reply, a label or a score
_ANSWERS = ("reply", "label", "score")


def _named_measure(common: str, metric: str | None) -> tuple[str, str | None]:
    """The name of the measure of a wide list of named values (``VALUE=COL``), and what to say about it.

    ``metric`` when given; else the words the headers share when they name a reply, a label or a
    score (``{model}_Raw``: the reply); else ``score``, said in a warning.

    >>> _named_measure("prompt$x$chosen", None)[0], _named_measure("Raw", None), _named_measure("x", "steps")
    ('score', ('reply', None), ('steps', None))
    """
    if metric:
        return metric, None
    if common:
        canonical = next(iter(resolve_columns([common]).keys()), None)
        if canonical in _ANSWERS:
            return canonical, None
    return "score", (f"{opt('wide')} with named values puts what the columns hold in a column named 'score'; "
                     f"give {opt('metric', 'NAME')} to name it")


def looks_wide(headers: Sequence[str], metric: str | None = None) -> str | None:
    """A ``wide`` list to suggest when headers look wide (several sharing a first or last word), else None."""
    headers = [str(h) for h in headers]
    best: list[str] = []
    for position in (-1, 0):
        shared: dict[str, list[str]] = {}
        for h in headers:
            words = [w for w in _SEP.split(h.strip()) if w and not _SEP.fullmatch(w)]
            if len(words) >= 2:
                shared.setdefault(words[position].lower(), []).append(h)
        for word, group in shared.items():
            if len(group) >= 2 and (len(group) > len(best) or (metric and normalize_header(word) == normalize_header(metric))):
                best = group
                if metric and normalize_header(word) == normalize_header(metric):
                    return ",".join(best)
    return ",".join(best) if best else None
