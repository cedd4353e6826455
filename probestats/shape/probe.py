"""The Probe: what a log means, said once and applied the same way to every log a command reads.

A :class:`Probe` holds the column mapping (which may name a column made by ``derive``), the
``where`` filter, the ``derive`` expressions, wide layouts, groups of values, case folding,
``complete`` and the read options. :meth:`Probe.apply` turns any log source (one path, several
paths or a folder, a frame, a list of dicts) into the :class:`~probestats.io.log.Log` that
validation reads. Row numbers stay those of the files.

Examples
--------
>>> rows = [{"Question": q, "variant": v, "a": 1 + q, "b": 2} for q in (1, 2) for v in ("x", "y")]
>>> probe = Probe(columns=(("item", "Question"),), derive=("total = a + b",))
>>> probe.apply(rows, metric="total").frame.select("item", "variant", "total").rows()[:2]
[(1, 'x', 4), (1, 'y', 4)]
>>> Probe(columns=(("item", "pair"),), derive=("pair = Question * 10",)).apply(rows).frame["item"].to_list()
[10, 10, 20, 20]
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

import polars as pl

from probestats.errors import ColumnError, OptionError, Problem, either, opt
from probestats.io.columns import ROW, normalize_header
from probestats.io.files import FILE_COLUMNS, first_headers, parse_file_pattern, read_files
from probestats.io.log import Log, collect
from probestats.io.read import read_log
from probestats.shape import text_metrics
from probestats.shape.text_metrics import made_names, stated

__all__ = ["Probe", "ROLES", "as_probe"]

#: What columns mean to the analysis of a log's values: the Probe's fields that no reading step uses.
ROLES = ("settings", "attribute_settings", "cluster", "random_settings")


def _role(name: str, value):
    """A column role as the Probe keeps it: the cluster one column name (or None), the others a tuple of names;
    anything else refused.

    >>> _role("cluster", ""), _role("cluster", False), _role("settings", "seed"), _role("random_settings", ["t"])
    (None, None, ('seed',), ('t',))
    >>> _role("cluster", ["doc", "page"])
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: cluster=['doc', 'page']: expected one column name, for example cluster='passage'
    """
    if not value:   # None, "", False, an empty list: no such role
        return None if name == "cluster" else ()
    if name == "cluster":
        if isinstance(value, (list, tuple)) and len(value) == 1:
            value = value[0]
        if not isinstance(value, str):
            raise OptionError(f"{opt(name, list(value) if isinstance(value, (list, tuple)) else value)}: expected "
                              "one column name, for example cluster='passage'")
        return value
    names = (value,) if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise OptionError(f"{opt(name, value)}: expected column names, for example {name}=['seed']")
    return tuple(names)


#: The Probe's fields that hold texts (a rule, an expression, a list spec), and an example of each: one string is
#: one text, a list or tuple several.
_TEXTS = {"derive": "x = a + b", "groups": "f=A,B", "axes": "gender,race", "wide": "formal,casual", "framing_columns":
          "affirmative=aff,reverse=rev", "explode": "rounds", "code": "verdict=book.csv", "count": "steps=^[0-9]+",
          "words": "words", "chars": "chars", "number": "score=[0-9.]+", "variant_from": "formal=^Dear"}
#: The Probe's fields that are one text or None, and an example of each.
_TEXT = {"where": "model = 'm1'", "format": "csv", "encoding": "latin-1", "records": "rows"}


def _refuse(name: str, value, expected: str, example) -> OptionError:
    """The refusal of the Probe's field ``name`` given ``value``: named as the caller writes it."""
    return OptionError(f"{either(f'Probe({opt(name, value)})', opt(name, value))}: expected {expected}, for example "
                       f"{either(f'Probe({opt(name, example)})', opt(name, example))}")


def _field(name: str, value):
    """A field of the Probe as the Probe keeps it, its type checked; anything else refused, naming the field.

    >>> _field("derive", "x = a + b"), _field("columns", {"item": "Question"}), _field("skip_rows", 2)
    (('x = a + b',), (('item', 'Question'),), 2)
    >>> _field("skip_rows", "1")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: Probe(skip_rows='1'): expected a whole number of 0 or more, for example Probe(skip_rows=2)
    """
    import numbers

    def whole(low):
        if value is None:   # left out: no title rows, the limit in force
            return 0 if name == "skip_rows" else None
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise _refuse(name, value, f"a whole number of {low} or more", 2 if low == 0 else 100_000)
        return int(value)

    if name in _TEXTS:
        if not value:   # None, "", False, an empty list: none
            return ()
        texts = (value,) if isinstance(value, str) else value
        if not isinstance(texts, (list, tuple)) or not all(isinstance(t, str) for t in texts):
            raise _refuse(name, value, "a text or a list of them", [_TEXTS[name]])
        return tuple(texts)
    if name in _TEXT:
        if value is None or isinstance(value, str):
            return value
        raise _refuse(name, value, "a text", _TEXT[name])
    if name in ("fold_case", "complete"):
        if value is None or value == ():   # left out
            return False
        if not isinstance(value, bool):
            raise _refuse(name, value, "True or False", True)
        return value
    if name == "wide_attribute":
        if not isinstance(value, str) or not value:
            raise _refuse(name, value, "a column name", "model")
        return value
    if name == "columns":
        if not value:
            return ()
        pairs = tuple(value.items()) if isinstance(value, dict) else value
        if isinstance(pairs, (list, tuple)) and all(
                isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(x, str) for x in p) for p in pairs):
            return tuple(tuple(p) for p in pairs)
        example = {"item": "Question"}
        raise OptionError(f"{either(f'Probe({opt(name, value)})', opt(name, value))}: expected a mapping of "
                          f"names to the log's headers, for example "
                          f"{either(f'Probe({opt(name, example)})', opt(name, example))}")
    if name == "lookup":
        if not value:
            return ()
        def pair(p):   # (a table: a path, a frame or a list of rows; its key columns: "a,b" or names)
            return isinstance(p, (list, tuple)) and len(p) == 2 and (
                isinstance(p[1], str) or isinstance(p[1], (list, tuple)) and all(isinstance(k, str) for k in p[1]))
        if isinstance(value, (list, tuple)) and all(pair(p) for p in value):
            return tuple((p[0], p[1] if isinstance(p[1], str) else tuple(p[1])) for p in value)
        example = [("weights.csv", "item")]
        flat = isinstance(value, (list, tuple)) and pair(value)
        raise OptionError(f"{either(f'Probe({opt(name, value)})', opt(name, value))}: expected a list of (table, "
                          f"key columns) pairs{', one pair per table' if flat else ''}, for example "
                          + either(f"Probe(lookup={[tuple(value)] if flat else example!r})",
                                   opt(name, "weights.csv item")))
    if name == "sheet":
        if value is None or isinstance(value, str) or (isinstance(value, numbers.Integral)
                                                        and not isinstance(value, bool) and value >= 0):
            return value if value is None or isinstance(value, str) else int(value)
        raise _refuse(name, value, "a sheet's name or its position from 0", "Results")
    if name == "skip_rows":
        return whole(0)
    if name in ("max_cells", "max_columns"):
        return whole(1)
    return value


@dataclass(frozen=True)
class Probe:
    """A frozen description of what a log means.

    Attributes
    ----------
    columns : tuple of (canonical, header)
        Column mappings (canonical name, header); a header may be a column made by ``derive`` (or by ``wide``).
    where : str or None
        A SQL condition; rows where it is not true are left out.
    derive : tuple of str
        ``"name = SQL expression"`` columns, in order.
    groups : tuple of str
        ``"group=V1,V2"``: several values standing for one (used by the many-values analysis).
    axes : tuple of str
        The axes of values that combine attributes (``female_black``: ``("gender", "race")``, or
        ``"gender,race"``), in the order of the parts of a value's name: the many-values analysis gives per-axis
        figures (:mod:`probestats.analyses.axes`; ``analyze`` only).
    fold_case : bool
        Values differing only in case or spaces are one.
    wide : tuple of str
        Wide lists: one metric column per value (see :mod:`probestats.shape.wide`).
    wide_attribute : str
        The column the values of a wide layout go to (``variant``; ``model`` for framing sheets).
    complete : bool
        Keep only items with a metric value under every compared value (a ``dropped_incomplete`` warning).
    framing_columns : tuple of str
        ``affirmative=COL,reverse=COL``: one row per item with a column per
        framing, read as one row per framing (see :mod:`probestats.shape.framing_columns`).
    explode : tuple of str
        ``[NAME=]PATH``: a list inside each record turned into rows, its position in NAME
        (see :mod:`probestats.shape.nested`).
    lookup : tuple of (source, keys)
        Tables joined to the log on key columns (``keys``: ``"item,label"`` or a tuple of names;
        see :mod:`probestats.shape.lookup`).
    code : tuple of str
        ``NAME=BOOK``: the reply coded by a code book into NAME, NAME_label and NAME_kind
        (see :mod:`probestats.shape.codebook`).
    count, words, chars, number, variant_from : tuple of str
        Columns counted from the reply text (``count``: ``NAME=REGEX``, ``words``: ``NAME``, ``chars``: ``NAME``,
        ``number``: ``NAME=REGEX``) and the value read from the prompt (``variant_from``: ``VALUE=REGEX``);
        see :mod:`probestats.shape.text_metrics`. They are made before ``derive``, which can use them.
    format, sheet, skip_rows, encoding, max_cells, max_columns, records
        Read options, for every file (``max_cells``: the largest spreadsheet read, in cells; ``max_columns``:
        the most columns a log may have;
        ``records``: the key of a JSON document's records).
    file_pattern : str or None
        Parts of the file names read as columns: ``"{run}_{model}_responses"`` gives each row of
        ``Run1_gpt_responses.json`` run ``Run1`` and model ``gpt`` (see :func:`probestats.io.files.parse_file_pattern`).
        Several files always carry ``file`` (the path as given) and ``file_stem`` (the name without extension).
    settings : tuple of str
        Columns that are settings of the runs besides model, judge, temperature, system and file: the items
        are matched within each block of their values (a setting that varies within cells is a block); a
        setting that differs between the compared values is refused as a confound.
    attribute_settings : tuple of str
        Settings varied with the attribute by design (a persona's system prompt): checked as part of what
        the attribute changes, never refused as a confound.
    cluster : str or None
        The column of the clusters the items are nested in (passages with several questions each): the tests
        resample whole clusters.
    random_settings : tuple of str
        Settings drawn at random per call (a temperature drawn per run): their spread is part of the noise,
        not a block.

    The last four say what columns mean to the analysis of a log's values (``analyze``, ``report``;
    ``validate`` reads ``attribute_settings`` and ``random_settings``); a job with no use for one refuses it.

    Every field's type is checked when the Probe is made: a wrong one is an :class:`~probestats.errors.OptionError`
    naming the field (``Probe(skip_rows='1'): expected a whole number of 0 or more``). ``columns`` may be given as
    a mapping (``columns={'item': 'Question'}``); one string where a list is expected (``derive="x = a + b"``,
    ``settings="seed"``) is one entry, never split into its characters.
    """

    columns: tuple[tuple[str, str], ...] = ()
    where: str | None = None
    derive: tuple[str, ...] = ()
    groups: tuple[str, ...] = ()
    axes: tuple[str, ...] = ()
    fold_case: bool = False
    wide: tuple[str, ...] = ()
    wide_attribute: str = "variant"
    complete: bool = False
    framing_columns: tuple[str, ...] = ()
    explode: tuple[str, ...] = ()
    lookup: tuple[tuple, ...] = ()
    code: tuple[str, ...] = ()
    count: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    chars: tuple[str, ...] = ()
    number: tuple[str, ...] = ()
    variant_from: tuple[str, ...] = ()
    format: str | None = None
    sheet: str | int | None = None
    skip_rows: int = 0
    encoding: str | None = None
    max_cells: int | None = None
    max_columns: int | None = None
    records: str | None = None
    file_pattern: str | None = None
    settings: tuple[str, ...] = ()
    attribute_settings: tuple[str, ...] = ()
    cluster: str | None = None
    random_settings: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        from dataclasses import fields

        for f in fields(self):   # every field's type checked when the Probe is made, naming the field
            if f.name not in ROLES:
                object.__setattr__(self, f.name, _field(f.name, getattr(self, f.name)))
        for name in ROLES:   # one column name, or several (a cluster is one column, or none)
            object.__setattr__(self, name, _role(name, getattr(self, name)))
        if self.file_pattern is not None:
            if not isinstance(self.file_pattern, str):
                raise OptionError(f"{opt('file_pattern', self.file_pattern)}: expected text, for example "
                                  f"{opt('file_pattern', '{run}_{model}_responses')}")
            parse_file_pattern(self.file_pattern)

    @property
    def mapping(self) -> dict[str, str]:
        return dict(self.columns)

    def read_options(self) -> dict:
        """The options :func:`probestats.io.read.read_log` takes (without the column mapping)."""
        return {"format": self.format, "sheet": self.sheet, "skip_rows": self.skip_rows, "encoding": self.encoding,
                "max_cells": self.max_cells, "max_columns": self.max_columns, "records": self.records}

    def text_options(self) -> dict:
        """The columns counted from the text, as :func:`probestats.shape.text_metrics.apply` takes them."""
        return {"count": self.count, "words": self.words, "chars": self.chars, "number": self.number,
                "variant_from": self.variant_from}

    def refuse(self, what: str, *, groups: bool = True, fold_case: bool = False, why: str = "",
               column: str = "variant", complete: str = "", roles: tuple = ROLES) -> None:
        """Refuse the shaping options ``what`` (a command's analysis) does not apply: none is ignored in silence.

        ``groups`` refuses ``groups`` (the many-values analysis's alone), ``fold_case`` refuses ``fold_case``
        (``why``: the reason; ``column``: the column the message says to fold instead); ``complete``, when
        given, refuses ``complete``: the items ``what`` leaves out itself (it keeps only complete ones);
        ``roles``: the column roles of :data:`ROLES` that ``what`` does not read (all, unless told).

        >>> Probe(groups=("f=A,B",)).refuse("the description")
        Traceback (most recent call last):
        ...
        probestats.errors.OptionError: groups='f=A,B': groups of values are read by the analysis of three values or more (analyze, report); the description reads each value as written: drop it, or rename values with derive="variant = CASE WHEN variant IN ('A', 'B') THEN 'f' ELSE variant END"
        >>> Probe(fold_case=True).refuse("the judge analysis")   # fold_case not refused: nothing said
        >>> Probe(complete=True).refuse("the order probe", complete="the items judged in one order only")
        Traceback (most recent call last):
        ...
        probestats.errors.OptionError: complete=True: the order probe leaves out the items judged in one order only itself, and lists them; drop it
        >>> Probe(cluster="passage").refuse("the description")
        Traceback (most recent call last):
        ...
        probestats.errors.OptionError: cluster='passage' belongs to the analysis of a log's values (analyze, report); the description does not read it: drop it
        """
        for name in roles:
            value = getattr(self, name)
            if value:
                raise OptionError(f"{opt(name, value)} belongs to the analysis of a log's values (analyze, report); "
                                  f"{what} does not read it: drop it")
        if groups and self.groups:
            name, _, values = self.groups[0].partition("=")
            listed = ", ".join(f"'{v.strip()}'" for v in values.split(","))
            rename = f"{column} = CASE WHEN {column} IN ({listed}) THEN '{name.strip()}' ELSE {column} END"
            raise OptionError(f"{opt('groups', self.groups[0])}: groups of values are read by the analysis of three "
                              f"values or more (analyze, report); {what} reads each value as written: drop it, or "
                              f"rename values with {opt('derive', rename)}")
        if self.axes:
            raise OptionError(f"{opt('axes', list(self.axes))}: per-axis figures are read by the analysis of three "
                              f"values or more ({either('probestats.analyze', 'probestats analyze')}); {what} does "
                              "not read them: drop it")
        if fold_case and self.fold_case:
            raise OptionError(f"{opt('fold_case', True)}: {what} does not fold values{why}; drop it, or fold "
                              f"them with {opt('derive', f'{column} = lower({column})')}")
        if complete and self.complete:
            raise OptionError(f"{opt('complete', True)}: {what} leaves out {complete} itself, and lists them; "
                              "drop it")

    def stated(self) -> list[str]:
        """The definitions of the columns counted from the text, in words (for the report's design section)."""
        return stated(**self.text_options())

    def apply(self, source, *, metric: str | None = None, a: str | None = None, b: str | None = None,
              by: Sequence[str] = ()) -> Log:
        """Read ``source`` and shape it, step by step in the one order of :data:`STEPS`.

        Each step sees every column the steps before it made (see ``docs/reference/shaping.md``):
        read, explode, code (code books and the columns counted from the text), lookup (so a table may be
        keyed by a coded label), derive, wide, framing columns, columns (the mappings onto columns the
        steps made), where, complete.

        Parameters
        ----------
        source : path, sequence of paths (files or folders), Log, list of dict or DataFrame
            Several paths (or a folder) read as one log with a ``file`` column.
        metric : str, optional
            The metric (its header is matched case-insensitively; ``complete`` needs it).
        a, b : str, optional
            The compared values for ``complete`` (default: every value).
        by : sequence of str
            ``complete`` keeps items complete within each group of these columns.
        """
        if isinstance(source, Log):
            log, pending = source, {}
        else:
            log, pending = self._read(source, metric)
        if (metric is not None and ("." in metric or "[" in metric) and metric not in pending   # only a path names a field
                and _path_field(log, metric) is not None):
            pending = {**pending, metric: metric}   # --metric response.score: a field inside the records
        log, pending = _map_columns(log, pending)   # fields inside the records (--column variant=meta.style)
        for step in (self._explode, self._code, self._lookup, self._derive, self._wide, self._framing_columns):
            log = step(log, metric)
            if step == self._explode:
                log, pending = _map_columns(log, pending)
        log, _ = _map_columns(log, pending, final=True)
        if "item" not in self.mapping:
            log = fit_item(log, metric)
        log = self._where(log)
        if self.complete:
            if metric is None:
                raise OptionError(f"{opt('complete', True)} keeps items with a metric value under every value; "
                                  f"give {opt('metric')}")
            log = keep_complete(log, metric, a=a, b=b, by=by, fold_case=self.fold_case)
        if self.code:   # what each code book coded, per value, for validation and the report to state
            # lazy: shape.codebook is off the paired analysis's path (tests/test_start.py)
            from probestats.shape.codebook import coverage_problems

            log = replace(log, problems=tuple(log.problems) + tuple(coverage_problems(log)))
        return log

    # ---------------------------------------------------------------- the steps, in their order

    def _explode(self, log: Log, metric=None) -> Log:
        if not self.explode:
            return log
        # lazy: shape.nested is off the paired analysis's path (tests/test_start.py)
        from probestats.shape.nested import explode, parse_explode

        lazy, problems = explode(log.lazy, self.explode)
        made = tuple(parse_explode(e)[0] for e in self.explode)
        return _made(log, lazy, made, problems)

    def _lookup(self, log: Log, metric=None) -> Log:
        if not self.lookup:
            return log
        # lazy: shape.lookup is off the paired analysis's path (tests/test_start.py)
        from probestats.shape.lookup import lookup

        lazy = log.lazy
        for source, keys in self.lookup:
            lazy = lookup(lazy, source, keys, columns=log.columns, source_name=log.source)
        return _made(log, lazy, tuple(n for n in lazy.collect_schema().names() if n not in log.lazy.collect_schema()))

    def _code(self, log: Log, metric=None) -> Log:
        if self.code:
            # lazy: shape.codebook is off the paired analysis's path (tests/test_start.py)
            from probestats.shape.codebook import code_columns

            books: dict = {}
            lazy = code_columns(log.lazy, self.code, columns=log.columns, source=log.source, books=books)
            before = set(log.lazy.collect_schema().names())
            log = _made(log, lazy, tuple(n for n in lazy.collect_schema().names() if n not in before))
            read = dict(log._read)
            read["codes"] = {**read.get("codes", {}), **books}
            log = replace(log, _read=read)

        return text_metrics.apply(log, **self.text_options())

    def _derive(self, log: Log, metric=None) -> Log:
        if not self.derive:
            return log
        # lazy: shape.derive is off the paired analysis's path (tests/test_start.py)
        from probestats.shape.derive import apply

        return apply(log, derive=self.derive)

    def _wide(self, log: Log, metric=None) -> Log:
        if not self.wide:
            return log
        # lazy: shape.wide is off the paired analysis's path (tests/test_start.py)
        from probestats.shape.wide import melt

        lazy, columns, problems = melt(log.lazy, log.columns, self.wide, attribute=self.wide_attribute, metric=metric)
        read = dict(log._read)
        read.setdefault("unfiltered", log.lazy)
        return replace(log, lazy=lazy, columns=columns, _read=read, problems=tuple(log.problems) + tuple(problems),
                       headers=tuple(h for h in log.headers if h not in _wide_headers(self.wide)) +
                       tuple(c for c in columns if c not in log.columns))

    def _framing_columns(self, log: Log, metric=None) -> Log:
        if not self.framing_columns:
            return log
        # lazy: shape.framing_columns is off the paired analysis's path (tests/test_start.py)
        from probestats.shape.framing_columns import melt_framing_columns

        return melt_framing_columns(log, self.framing_columns)

    def _where(self, log: Log) -> Log:
        if self.where is None:
            return log
        # lazy: shape.derive is off the paired analysis's path (tests/test_start.py)
        from probestats.shape.derive import apply

        return apply(log, where=self.where)

    # ---------------------------------------------------------------- reading, and the column mapping

    def _made_names(self) -> list[str]:
        """The columns the steps after reading make (a mapping may name one)."""
        names: list[str] = []
        if self.explode:   # each step's module is imported only when the probe has that step
            # lazy: shape.nested is off the paired analysis's path (tests/test_start.py)
            from probestats.shape.nested import parse_explode

            names += [parse_explode(e)[0] for e in self.explode]
        if self.code:
            # lazy: shape.codebook is off the paired analysis's path (tests/test_start.py)
            from probestats.shape.codebook import parse_code

            for spec in self.code:
                name = parse_code(spec)[0]
                names += [name, f"{name}_label", f"{name}_kind"]
        if self.derive:
            # lazy: shape.derive is off the paired analysis's path (tests/test_start.py)
            from probestats.shape.derive import parse_derive

            names += [parse_derive(d)[0] for d in self.derive]

        return names + made_names(**self.text_options())

    def _split_columns(self, headers: Sequence[str]) -> tuple[dict, dict]:
        """Column mappings onto headers of the file, and onto columns a later step makes (or fields inside)."""
        norm = {normalize_header(h) for h in headers}
        file, later = {}, {}
        for canonical, header in self.columns:
            if header == "" or header in headers or normalize_header(header) in norm:
                file[canonical] = header   # "" is no column at all, which the reading says
            else:
                later[canonical] = header
        return file, later

    def _file_names(self) -> tuple[str, ...]:
        """The columns the names of several files make: ``file``, ``file_stem`` and the pattern's fields."""
        return FILE_COLUMNS + (parse_file_pattern(self.file_pattern)[0] if self.file_pattern is not None else ())

    def _read(self, source, metric) -> tuple[Log, dict]:
        """The log as read, with the mappings onto its headers; the mappings onto what later steps make."""
        options = self.read_options()
        paths = [source] if isinstance(source, (str, Path)) else source
        is_paths = isinstance(paths, (list, tuple)) and paths and all(isinstance(s, (str, Path)) for s in paths)
        if self.file_pattern is not None and not is_paths:
            raise OptionError(f"{opt('file_pattern', self.file_pattern)} reads the names of files, and this log is "
                              "not read from files: drop it, or make the columns in the frame")
        files = {"file_pattern": self.file_pattern} if is_paths else {}
        # a mapping may name a made column, a field inside a record, or a column the files' names make
        later = bool(self._made_names() or self.wide or self.lookup or self.framing_columns) or any(
            "." in h or "[" in h or h in self._file_names() for _, h in self.columns)
        if not later:   # every mapping names a header of the file: one read
            if is_paths:
                return read_files(list(paths), columns=self.mapping, metric=metric, **files, **options), {}
            return read_log(source, columns=self.mapping, metric=metric, **options), {}
        if is_paths:
            headers = first_headers(list(paths), **options)
        else:
            headers = read_log(source, **options).headers
        file, later = self._split_columns(headers)
        if is_paths:
            return read_files(list(paths), columns=file, metric=metric, **files, **options), later
        return read_log(source, columns=file, metric=metric, **options), later


#: The shaping steps, in the one order :meth:`Probe.apply` runs them.
STEPS = ("read", "explode", "code", "lookup", "derive", "wide", "framing columns", "columns", "where", "complete")


def _made(log: Log, lazy: pl.LazyFrame, names: Sequence[str], problems=()) -> Log:
    """``log`` with the rows of ``lazy``, whose new columns ``names`` a step made."""
    read = dict(log._read)
    read.setdefault("unfiltered", log.lazy)
    columns = dict(log.columns)
    for name in names:
        columns.setdefault(name, name)
    lazy = lazy.select(pl.all().exclude(ROW), pl.col(ROW))
    return replace(log, lazy=lazy, columns=columns, _read=read,
                   headers=tuple(log.headers) + tuple(n for n in names if n not in log.headers),
                   problems=tuple(log.problems) + tuple(problems))


def _map_columns(log: Log, pending: dict, final: bool = False) -> tuple[Log, dict]:
    """Apply the mappings ``pending`` (canonical -> column) whose column now exists: a column a step made
    (renamed to the canonical name) or a field inside a record (read into it). With ``final``, a mapping
    still naming nothing is an error."""
    if not pending:
        return log, {}

    lazy = log.lazy
    schema = lazy.collect_schema()
    columns = dict(log.columns)
    left = {}
    for canonical, made in pending.items():
        named = made if made in schema else _column_named(schema, columns, made)
        if named is not None and named != made and named in columns and columns[named] != named:
            expr, named = pl.col(named), None   # a header read as a canonical column: copied, it keeps its role
        else:
            expr = pl.col(named) if named is not None else _path_field(replace(log, lazy=lazy, columns=columns), made)
        if expr is None:
            if final:
                seen = ", ".join(h for h in log.headers if h != ROW)
                raise ColumnError(f"{opt('columns', {canonical: made})}: no header '{made}' in the log; headers seen: "
                                  f"{seen}")
            left[canonical] = made
            continue
        if canonical in schema and canonical != made:
            lazy = lazy.drop(canonical)   # the mapping wins over a column found by its alias
        if named is not None:
            if named != canonical:
                lazy = lazy.rename({named: canonical})
            columns.pop(named, None)
        else:
            lazy = lazy.with_columns(expr.alias(canonical))
        columns[canonical] = made
        schema = lazy.collect_schema()
    lazy = lazy.select(pl.all().exclude(ROW), pl.col(ROW))
    return replace(log, lazy=lazy, columns=columns), left


#: most columns :func:`fit_item` weighs as the item
_ITEM_CANDIDATES = 30


def fit_item(log: Log, metric: str | None = None) -> Log:
    """``log`` with its item read from the column whose every value holds every value of the attribute, when the
    header the item was found by (an alias such as ``prompt_id``) holds one value each: an id of each prompt
    variant, not of the item they vary. Said in an ``item_guess`` warning; a log whose item fits, or whose item
    was named, is returned as it is.

    >>> rows = [{"prompt_id": f"p{i}{v}", "hypothesis_id": i, "condition": v, "x": 1} for i in (1, 2) for v in "ab"]
    >>> log = fit_item(read_log(rows))
    >>> log.columns["item"], log.frame["item"].to_list(), log.problems[0].code
    ('hypothesis_id', [1, 1, 2, 2], 'item_guess')
    """
    schema = log.lazy.collect_schema()
    header = log.columns.get("item")
    if "item" not in schema or "variant" not in schema or header is None or normalize_header(header) == "item":
        return log
    count = pl.col("variant").cast(pl.String).drop_nulls().n_unique()
    values, most = collect(log.lazy.select(count.alias("values"), pl.col("variant").cast(pl.String).drop_nulls()
                                           .n_unique().over("item").max().alias("most")),
                           log.source, log._path).row(0)
    if values < 2 or (most or 0) > 1:
        return log
    named = set(log.columns) | set(log.columns.values()) | set(log._read.get("file_columns", ())) | {ROW, metric}
    candidates = [c for c, t in schema.items() if c not in named and (t == pl.String or t.is_integer())]
    best = None
    for c in candidates[:_ITEM_CANDIDATES]:
        per = collect(log.lazy.group_by(c).agg(pl.col("variant").cast(pl.String).drop_nulls().n_unique().alias("n"))
                      .select(pl.col("n").min().alias("least"), pl.len().alias("groups"),
                              pl.col(c).is_null().any().alias("blank")), log.source, log._path).row(0)
        least, groups, blank = per
        if not blank and least == values and groups >= 2 and (best is None or groups > best[1]):
            best = (c, groups)
    if best is None:
        return log
    column = best[0]
    lazy = log.lazy.rename({"item": header, column: "item"}) if header not in schema else \
        log.lazy.rename({"item": f"{header} (original)", column: "item"})
    columns = {**{k: v for k, v in log.columns.items() if k != "item"}, "item": column}
    problem = Problem("warning", "item_guess",
                      f"the item is read from '{column}', each of whose {best[1]} values holds every one of the "
                      f"{values} values compared; '{header}', found by its name, holds one value each (an id per "
                      f"prompt variant, not per item): name another with {opt('columns', {'item': 'HEADER'})}",
                      column=column)
    return replace(log, lazy=lazy, columns=columns, problems=tuple(log.problems) + (problem,))


def _column_named(schema, columns: dict, name: str) -> str | None:
    """The column ``name`` names when it is no column's exact name: a column whose name differs only in case,
    spaces or separators (``Pool`` for ``pool``), or the canonical column a header of that name was read as
    (``reply`` for ``response``); None when there is none, or several.

    >>> schema = {"Pool": pl.String, "reply": pl.String, "item": pl.Int64}
    >>> _column_named(schema, {"reply": "response"}, "pool"), _column_named(schema, {"reply": "response"}, "response")
    ('Pool', 'reply')
    >>> _column_named(schema, {}, "nope") is None
    True
    """
    key = normalize_header(name)
    alike = [c for c in schema if c != ROW and normalize_header(c) == key]
    if len(alike) == 1:
        return alike[0]
    read_as = [c for c, h in columns.items() if c in schema and (h == name or normalize_header(h) == key)]
    return read_as[0] if len(read_as) == 1 else None


def _path_field(log: Log, path: str) -> pl.Expr | None:
    """The field inside the records a dotted path names (``response.score``), its first part the header as
    written even where the header was read as a canonical column (``response`` as ``reply``); None when the path
    names no field (or names a column)."""
    # lazy: shape.nested is off the paired analysis's path (tests/test_start.py)
    from probestats.shape.nested import path_expr

    schema = log.lazy.collect_schema()
    if path in schema.names():
        return None
    expr = path_expr(schema, path)
    if expr is not None:
        return expr
    for canonical, header in log.columns.items():
        if canonical != header and canonical in schema.names() and path.startswith(f"{header}."):
            expr = path_expr(schema, canonical + path[len(header):])
            if expr is not None:
                return expr.alias(path)
    return None


def _wide_headers(specs) -> set[str]:
    # lazy: shape.wide is off the paired analysis's path (tests/test_start.py)
    from probestats.shape.wide import parse_wide

    return {col for group in parse_wide(specs) for _, col in group}


def keep_complete(log: Log, metric: str, *, a: str | None = None, b: str | None = None,
                  by: Sequence[str] = (), fold_case: bool = False) -> Log:
    """Keep only items with a metric value under every compared value (per ``by`` group).

    The compared values are ``a`` and ``b`` when given, else every value of the log. What is
    left out is told in a ``dropped_incomplete`` warning naming the items.

    Examples
    --------
    >>> rows = [{"item": i, "variant": v, "m": None if (i, v) == (2, "y") else 1.0}
    ...         for i in (1, 2, 3) for v in ("x", "y")]
    >>> log = keep_complete(read_log(rows), "m")
    >>> sorted(set(log.frame["item"])), log.problems[0].code
    ([1, 3], 'dropped_incomplete')
    >>> log.problems[0].message
    "complete=True left out 1 of 3 items, which lack a m value under some compared value: item 2 (no 'y'); the analysis uses 2 items"
    """
    lazy = log.lazy
    schema = lazy.collect_schema()
    for name in ("item", "variant", metric, *by):
        if name not in schema:
            return log   # validation names the missing column
    def text(name):
        e = pl.col(name).cast(pl.String).str.strip_chars()
        return e.str.to_lowercase() if fold_case and name == "variant" else e

    value = pl.col(metric)
    if schema[metric] == pl.String:
        value = value.str.strip_chars().cast(pl.Float64, strict=False)
    else:
        value = value.cast(pl.Float64, strict=False)
    valued = value.is_not_null() & value.is_finite()
    keys = [*by, "item"]
    cells = collect(lazy.select(*[text(k).alias(k) for k in keys], text("variant").alias("\0v"),
                                valued.alias("\0ok")), log.source, log._path)
    cells = cells.filter((pl.col("item") != "") & (pl.col("\0v") != ""))
    if a is not None or b is not None:
        compared = [v.strip().lower() if fold_case else v.strip() for v in (a, b) if v is not None]
    else:
        compared = list(dict.fromkeys(cells["\0v"].to_list()))
    per = (cells.filter(pl.col("\0ok") & pl.col("\0v").is_in(compared))
           .group_by(keys, maintain_order=True).agg(pl.col("\0v").unique().alias("have")))
    all_keys = cells.select(keys).unique(maintain_order=True)
    table = all_keys.join(per, on=keys, how="left", maintain_order="left")
    lacking = table.filter(pl.col("have").is_null() | (pl.col("have").list.len() < len(compared)))
    if lacking.height == 0:
        return log
    complete = table.filter(pl.col("have").list.len() >= len(compared)).select(keys)
    mask = pl.struct([text(k).alias(k) for k in keys]).is_in(complete.to_struct().implode()) if complete.height \
        else pl.lit(False)
    kept = lazy.filter(mask)
    described = []
    for row in lacking.head(20).iter_rows(named=True):
        missing = [v for v in compared if v not in (row["have"] or [])]
        where = " and ".join(f"{k} {row[k]}" for k in by)
        described.append(f"item {row['item']}" + (f" ({where})" if where else "")
                         + f" (no {', '.join(repr(m) for m in missing)})")
    more = f" and {lacking.height - 20} more" if lacking.height > 20 else ""
    unit = "items" if not by else "items within their groups"
    message = (f"{opt('complete', True)} left out {lacking.height} of {table.height} {unit}, which lack a {metric} value under "
               f"some compared value: {', '.join(described)}{more}; the analysis uses "
               f"{table.height - lacking.height} {unit}")
    problem = Problem("warning", "dropped_incomplete", message, (), log.columns.get("item"))
    read = dict(log._read)
    read.setdefault("unfiltered", log.lazy)
    return replace(log, lazy=kept, problems=tuple(log.problems) + (problem,), _read=read)


def as_probe(probe) -> Probe:
    """``probe`` as given (a :class:`Probe`), or the empty Probe for None, as a job takes it; anything else is
    refused, as :func:`probestats.vocabulary.as_tests` refuses what is not a ``Tests``.

    >>> as_probe(None) == Probe(), as_probe(Probe(where="x = 1")).where
    (True, 'x = 1')
    >>> as_probe({"where": "x = 1"})
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: probe={'where': 'x = 1'}: expected a probestats.Probe, for example probe=Probe(where='x = 1')
    """
    if probe is None:
        return Probe()
    if isinstance(probe, Probe):
        return probe
    example = "probe=Probe(where=\"model = 'm1'\")"
    if isinstance(probe, dict) and all(isinstance(k, str) for k in probe):   # the keywords of a Probe: show it made
        try:
            example = f"probe=Probe({', '.join(f'{k}={v!r}' for k, v in probe.items())})"
        except Exception:   # noqa: BLE001 (any repr: the example falls back to the generic one)
            pass
    raise OptionError(f"probe={probe!r}: expected a probestats.Probe, for example {example}")
