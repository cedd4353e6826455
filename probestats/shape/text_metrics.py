"""Metrics counted from the reply text, and values read from the prompt text, before validation.

Each entry adds a column computed from the ``reply`` column (``variant_from`` from ``prompt``),
like ``derive``, so the new column can be the ``metric``. On the command line each is a
``--from-text NAME=KIND[:REGEX]`` option, KIND the parameter's name (``prompt`` for ``variant_from``):

=============================  ==============================================================
entry                          the column holds
=============================  ==============================================================
``count``: ``NAME=REGEX``      the number of matches of REGEX in the reply; ``^`` and ``$``
                               match at every line's start and end (multiline)
``words``: ``NAME``            the number of words (runs of characters other than white space)
``chars``: ``NAME``            the number of characters
``number``: ``NAME=REGEX``     the first number in what REGEX matches first (its first group,
                               when it has one); blank when it does not match
``variant_from``:              ``variant``: the VALUE of the first rule whose REGEX matches
``VALUE=REGEX``                the prompt (several rules, tried in order)
=============================  ==============================================================

Patterns are regular expressions in one dialect, the syntax of polars' string functions (Rust's
``regex`` crate: ``(?<name>...)`` and ``(?P<name>...)`` groups, ``\\pN`` classes; no look-around or
back-references); ``(?i)`` makes one ignore case. The same parser compiles a pattern, counts its
groups (which group ``number`` reads) and runs it; a pattern it cannot compile is refused with its reason. A reply where a
``count`` or ``words`` metric is 0 is listed in a ``zero_count`` warning, for a person to
read: a pattern misses what it did not foresee (``1)`` numbering, bullets). :func:`stated` gives
the sentences the report's design section prints for them.

Examples
--------
>>> rows = [{"item": 1, "variant": "a", "reply": "Steps:\\n1. look\\n2) fix"},
...         {"item": 1, "variant": "b", "reply": "no list here"}]
>>> log = apply(rows, count=[r"steps=^\\s*\\d+[.)]"], words=["words"], number=[r"first=(\\d+)\\)"])
>>> log.frame.select("steps", "words", "first").rows()
[(2, 5, 2.0), (0, 3, None)]
>>> [p.code for p in log.problems]
['zero_count']
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Sequence

import polars as pl

from probestats.errors import ColumnError, OptionError, Problem, either, opt
from probestats.parameters import TEXT_KINDS
from probestats.io.columns import ROW
from probestats.io.log import Log, collect, format_rows
from probestats.io.read import read_log

__all__ = ["apply", "stated", "parse_rule"]

_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_ ]*?)\s*$")
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"


def parse_rule(option: str, text: str, *, pattern: bool = True) -> tuple[str, str | None]:
    """Split ``NAME=REGEX`` (or a bare ``NAME`` when ``pattern`` is False), checking both.

    ``option`` is the parameter the rule was given as: ``count``, ``words``, ``chars``, ``number`` or
    ``variant_from``.

    >>> parse_rule("count", "steps=^\\\\d+[.)]")
    ('steps', '^\\\\d+[.)]')
    >>> parse_rule("count", "steps")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: count='steps': expected NAME=REGEX, for example count=['steps=^[0-9]+[.)]']
    """
    if not pattern:
        if not _NAME.match(text or ""):
            raise OptionError(f"{opt(option, text)}: expected a column name, for example {_example(option, 'words')}")
        return text.strip(), None
    name, sep, regex = (text or "").partition("=")
    if not sep or not name.strip() or not regex:
        label = "VALUE" if option == "variant_from" else "NAME"
        example = "formal=^Good afternoon" if option == "variant_from" else "steps=^[0-9]+[.)]"
        form = either(f"{label}=REGEX", f"{label}={TEXT_KINDS[option]}:REGEX")
        raise OptionError(f"{opt(option, text)}: expected {form}, for example {_example(option, example)}")
    _check_regex(option, text, regex)
    return name.strip(), regex


def _example(option: str, text: str) -> str:
    """An entry as the caller writes it: a list in Python (the parameters take several), a flag on the command line."""
    return either(f"{option}=[{text!r}]", opt(option, text))


def _given(kind: str, name: str, regex: str | None) -> str:
    """The entry that made a column, as the caller gave it (``count='steps=REGEX'``, ``--from-text steps=count:REGEX``)."""
    return opt(kind, name if regex is None else f"{name}={regex}")


def _check_regex(option: str, text: str, regex: str) -> None:
    # lazy: shape.patterns is off the paired analysis's path (tests/test_start.py)
    from probestats.shape.patterns import PatternError, check_pattern

    try:
        check_pattern(regex)
    except PatternError as exc:
        raise OptionError(f"{opt(option, text)}: not a regular expression polars can use ({exc}); write it "
                          "without that construct") from None


def _multiline(regex: str) -> str:
    return "(?m)" + regex


def apply(log, *, count: Sequence[str] = (), words: Sequence[str] = (), chars: Sequence[str] = (),
          number: Sequence[str] = (), variant_from: Sequence[str] = (), **read_kwargs) -> Log:
    """Add the counted columns (and ``variant`` from ``variant_from`` rules) to a log.

    Parameters
    ----------
    log : Log, path, list of dict or DataFrame
        Anything :func:`probestats.read_log` reads; ``read_kwargs`` go to it.
    count, number : sequence of str
        ``"NAME=REGEX"`` each.
    words, chars : sequence of str
        Column names.
    variant_from : sequence of str
        ``"VALUE=REGEX"`` rules over the prompt, tried in order.

    Raises
    ------
    ColumnError
        The log has no reply (or prompt) column, or a new column would replace the reply, prompt, item or
        variant. A new column named like another column of the log replaces it, as ``derive`` does (a
        ``replaced_column`` warning counts the rows where the two differ).
    OptionError
        A rule is not ``NAME=REGEX`` or its pattern does not compile.
    """
    log = read_log(log, **read_kwargs)
    specs = ([("count", *parse_rule("count", t)) for t in count]
             + [("words", parse_rule("words", t, pattern=False)[0], None) for t in words]
             + [("chars", parse_rule("chars", t, pattern=False)[0], None) for t in chars]
             + [("number", *parse_rule("number", t)) for t in number])
    rules = [parse_rule("variant_from", t) for t in variant_from]
    lazy = log.lazy
    names = lazy.collect_schema().names()
    if not specs and not rules:
        threads = shared_threads(log, lazy)
        return replace(log, problems=tuple(log.problems) + tuple(threads)) if threads else log
    problems = list(log.problems)
    columns = dict(log.columns)
    if specs:
        _require(log, names, "reply", _given(*specs[0]))
        made: set[str] = set()
        for kind, name, regex in specs:
            if name in _KEPT or name in made or name == ROW:
                raise ColumnError(f"{_given(kind, name, regex)}: '{name}' is "
                                  f"{'a column the counting reads or ' if name in _KEPT else ''}named twice; give the "
                                  f"counted metric another name (for example {_given(kind, name + '_counted', regex)})")
            made.add(name)
        replaced = [name for _, name, _ in specs if name in names]
        old = {name: f"\0was\0{name}" for name in replaced}
        lazy = lazy.with_columns(pl.col(n).alias(o) for n, o in old.items())
        lazy = lazy.with_columns(_expr(kind, regex).alias(name) for kind, name, regex in specs)
        problems += _differences(log, lazy, old, {n: _given(k, n, r) for k, n, r in specs})
        lazy = lazy.drop(list(old.values()))
        for kind, name, regex in specs:
            columns.setdefault(name, name)
        problems += _zeros(log, lazy, [(k, n, r) for k, n, r in specs if k in ("count", "words")])
    if rules:
        _require(log, names, "prompt", opt("variant_from", "=".join(rules[0])))
        value = pl.lit(None, pl.String)
        for label, regex in reversed(rules):
            value = pl.when(pl.col("prompt").str.contains(regex)).then(pl.lit(label)).otherwise(value)
        if "variant" in names:
            lazy = lazy.drop("variant")
        lazy = lazy.with_columns(value.alias("variant"))
        columns["variant"] = "variant"
        problems += _unmatched(log, lazy, rules)
    read = dict(log._read)
    read.setdefault("unfiltered", log.lazy)
    new = [n for _, n, _ in specs] + (["variant"] if rules and "variant" not in log.headers else [])
    return replace(log, lazy=lazy.select(pl.all().exclude(ROW), pl.col(ROW)), columns=columns, _read=read,
                   headers=tuple(log.headers) + tuple(n for n in new if n not in log.headers),
                   problems=tuple(problems) + tuple(shared_threads(log, lazy)))


def made_names(*, count=(), words=(), chars=(), number=(), variant_from=()) -> list[str]:
    """The columns these rules make (``variant`` for ``variant_from``).

    >>> made_names(count=["steps=^[0-9]+"], words=["n_words"], variant_from=["formal=^Good"])
    ['steps', 'n_words', 'variant']
    """
    names = [parse_rule("count", t)[0] for t in count] + [parse_rule("words", t, pattern=False)[0] for t in words]
    names += [parse_rule("chars", t, pattern=False)[0] for t in chars] + [parse_rule("number", t)[0] for t in number]
    return names + (["variant"] if variant_from else [])


#: columns a counted metric may not replace: the text it is counted from and the probe's own
_KEPT = ("reply", "prompt", "item", "variant")


def _differences(log: Log, lazy: pl.LazyFrame, old: dict[str, str], options: dict[str, str]) -> list[Problem]:
    """A warning for each column of the log a counted metric replaced, where the two differ (like derive,
    the counted column takes the name; the warning says how far the log's own values were from it)."""
    out = []
    for name, was in old.items():
        before = pl.col(was).cast(pl.String).str.strip_chars().cast(pl.Float64, strict=False)
        differs = before.is_null() | (before != pl.col(name).cast(pl.Float64))
        rows = collect(lazy.filter(differs.fill_null(True)).select(ROW), log.source, log._path)[ROW]
        if rows.len():
            shown = log.rows(rows.to_list())
            out.append(Problem("warning", "replaced_column",
                               f"{options[name]} replaces the log's own column '{name}', and the two differ in "
                               f"{rows.len()} row{'s' if rows.len() != 1 else ''} ({format_rows(log, shown)}): the analysis uses the counted "
                               f"values; name the counted metric otherwise to keep both", tuple(shown), name))
    return out


def _require(log: Log, names, column: str, option: str) -> None:
    if column not in names:
        raise ColumnError(f"{option} reads the {column} text, and '{log.source}' has no {column} column; name it with "
                          f"{opt('columns', {column: 'HEADER'})} (headers seen: {', '.join(h for h in log.headers)})")


def _expr(kind: str, regex: str | None) -> pl.Expr:
    text = pl.col("reply").cast(pl.String)
    if kind == "count":
        return text.str.count_matches(_multiline(regex)).cast(pl.Int64)
    if kind == "words":
        return text.str.count_matches(r"\S+").cast(pl.Int64)
    if kind == "chars":
        return text.str.len_chars().cast(pl.Int64)
    group = 1 if _groups(regex) else 0
    return text.str.extract(_multiline(regex), group).str.extract(f"({_NUMBER})", 1).cast(pl.Float64, strict=False)


def _groups(regex: str) -> int:
    """The number of capturing groups in ``regex``, counted by the parser that runs it (polars', Rust's ``regex``).

    Python's ``re`` is not asked: it cannot read ``(?<name>...)`` or ``\\pN``, which the dialect allows.

    >>> _groups(r"run \\d+: score (?<v>\\d+)"), _groups(r"score \\pN+"), _groups(r"(?:a)(b)|(c)")
    (1, 0, 2)
    """
    return len(pl.select(pl.lit("", pl.String).str.extract_groups(regex)).to_series().dtype.fields)


def _zeros(log: Log, lazy: pl.LazyFrame, specs) -> list[Problem]:
    """One warning per count-type metric that is 0 in some non-blank reply, naming those rows."""
    out = []
    for kind, name, regex in specs:
        zero = collect(lazy.filter((pl.col(name) == 0) & pl.col("reply").is_not_null()).select(ROW),
                       log.source, log._path)[ROW]
        if zero.len() == 0:
            continue
        total = collect(lazy.select(pl.col("reply").is_not_null().sum()), log.source, log._path).item()
        rows = log.rows(zero.to_list())
        what = _given(kind, name, regex)
        out.append(Problem("warning", "zero_count",
                           f"{what} is 0 in {zero.len()} of {total} replies ({format_rows(log, rows)}): read them, "
                           "a pattern misses what it did not foresee (numbering such as '1)', bullets, a reply "
                           "cut short)", tuple(rows), name))
    return out


def _unmatched(log: Log, lazy: pl.LazyFrame, rules) -> list[Problem]:
    missed = collect(lazy.filter(pl.col("variant").is_null()).select(ROW), log.source, log._path)[ROW]
    if missed.len() == 0:
        return []
    rows = log.rows(missed.to_list())
    return [Problem("warning", "no_variant_rule",
                    f"no {opt('variant_from')} rule matched the prompt of {missed.len()} replies ({format_rows(log, rows)}); "
                    "they have no value and are left out of the comparison: add a rule, or check the patterns",
                    tuple(rows), "prompt")]


def shared_threads(log: Log, lazy: pl.LazyFrame) -> list[Problem]:
    """A warning naming each chat (``chat_id``) whose replies are under more than one value."""
    names = lazy.collect_schema().names()
    if "chat_id" not in names or "variant" not in names:
        return []
    title = pl.col("chat_title") if "chat_title" in names else pl.col("chat_id")
    shared = collect(lazy.filter(pl.col("variant").is_not_null()).group_by("chat_id", maintain_order=True)
                     .agg(title.first().alias("title"), pl.col("variant").unique(maintain_order=True).alias("values"),
                          pl.col(ROW))
                     .filter(pl.col("values").list.len() > 1), log.source, log._path)
    out = []
    for row in shared.iter_rows(named=True):
        rows = log.rows(row[ROW])
        values = " and ".join(f"'{v}'" for v in row["values"])
        out.append(Problem("warning", "shared_thread",
                           f"chat '{row['title']}' holds replies under {values} in one thread ({format_rows(log, rows)}): "
                           "each reply saw the earlier ones in its context, so they are not independent draws; "
                           "run each value in a chat of its own", tuple(rows), "chat_id"))
    return out


def stated(*, count: Sequence[str] = (), words: Sequence[str] = (), chars: Sequence[str] = (),
           number: Sequence[str] = (), variant_from: Sequence[str] = ()) -> list[str]:
    """The definitions of the counted columns, as the report's design section states them.

    >>> stated(count=[r"steps=^\\s*\\d+[.)]"], words=["length"])
    ["Metric steps: the number of matches of the pattern '^\\\\s*\\\\d+[.)]' in the reply (^ and $ at every line), counted by probestats.", 'Metric length: the number of words in the reply (runs of characters other than white space), counted by probestats.']
    """
    out = []
    for text in count:
        name, regex = text.split("=", 1)
        out.append(f"Metric {name.strip()}: the number of matches of the pattern '{regex}' in the reply "
                   "(^ and $ at every line), counted by probestats.")
    for name in words:
        out.append(f"Metric {name.strip()}: the number of words in the reply (runs of characters other than white "
                   "space), counted by probestats.")
    for name in chars:
        out.append(f"Metric {name.strip()}: the number of characters in the reply, counted by probestats.")
    for text in number:
        name, regex = text.split("=", 1)
        out.append(f"Metric {name.strip()}: the first number in the first match of the pattern '{regex}' in the "
                   "reply (its first group when it has one), read by probestats; blank where it does not match.")
    if variant_from:
        rules = "; ".join(f"'{v}' where the prompt matches '{r}'" for v, r in (t.split("=", 1) for t in variant_from))
        out.append(f"Values read from the prompt text (the first rule that matches): {rules}.")
    return out
