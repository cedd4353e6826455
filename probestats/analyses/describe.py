"""Distributions per value: counts of runs and items, the mean, and the count and share of each level.

``describe`` is the table a reader checks first: per value, how many runs and items, the mean of
the metric, and for a label, a 0/1 metric, a whole-number metric of few values or a metric cut
into ``bins``, how many runs fall at each level and what share of the value's runs that is.
Counts are counts (never rescaled). Blank metric cells are counted apart and take no level.

Whether the distributions differ between values is tested exactly where the table is small
enough (:func:`probestats.stats.contingency.permutation_table_test`): the value labels are
arranged at random **within items** when the design is matched (some item has runs under two
values or more), across all runs otherwise; the statistic is Pearson's chi-square of the values ×
levels table. Beyond the exact range the p-value is a Monte Carlo estimate, and says so.

Bins ``[e0, e1, ..., ek]`` are the levels ``[e0, e1)``, ..., ``[e(k-1), ek]`` (the last one closed);
a value outside ``[e0, ek]`` is refused, naming it.

Examples
--------
>>> rows = [{"item": i, "variant": v, "label": lab} for i, (v, lab) in
...         enumerate([("a", "yes"), ("a", "yes"), ("a", "no"), ("b", "no"), ("b", "no"), ("b", "no")])]
>>> d = describe_log(rows, metric="label")
>>> [(s.value, s.counts) for s in d.values]
[('a', {'no': 1, 'yes': 2}), ('b', {'no': 3, 'yes': 0})]
>>> d.test.method, round(d.test.pvalue, 3)
('exact', 0.4)
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import polars as pl

from probestats.errors import ColumnError, OptionError, Problem, opt
from probestats.result import html_summary, jsonable, one_line
from probestats.vocabulary import check_vocabulary

__all__ = ["Description", "ValueSummary", "describe_log", "parse_bins"]

#: a whole-number metric with at most this many distinct values is described level by level
MAX_LEVELS = 10


class _Record:
    def to_dict(self) -> dict:
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class ValueSummary(_Record):
    """One value's runs, items, mean and levels.

    Attributes
    ----------
    value : str
        The value (of ``variant``).
    n_runs : int
        Its runs with a metric value (every run when there is no metric).
    n_items : int or None
        Its items (None when the log has no item column).
    n_blank : int
        Its runs whose metric cell is blank (counted apart, in no level).
    mean : float or None
        The mean of the metric over its runs (None for a label, or without a metric).
    counts : dict
        Level -> runs at that level (every level, zero included), in the order of ``levels``.
    shares : dict
        Level -> share of the value's runs with a level (``counts`` / their sum).
    """

    value: str
    n_runs: int
    n_items: int | None
    n_blank: int
    mean: float | None
    counts: dict
    shares: dict


@dataclass(frozen=True)
class Description(_Record):
    """The distribution of a metric per value.

    Attributes
    ----------
    metric : str or None
        The metric described (None: runs and items only).
    kind : str
        How it was read: ``label`` (text), ``binary`` (0/1), ``levels`` (a whole number of few values),
        ``binned`` (cut into ``bins``), ``numeric`` (a mean only) or ``none``.
    levels : tuple of str
        The levels, in order (empty for ``numeric`` and ``none``).
    bins : tuple of float or None
        The bin edges given.
    values : tuple of ValueSummary
        One per value, in order of appearance.
    test : TableTest or None
        Whether the levels' distribution differs between values (None with one value or one level).
    by : dict
        The group this description is of (empty for the whole log).
    groups : tuple of Description
        One per group of ``by`` (empty without it).
    coverage : tuple of Coverage
        Per code book and value, what it coded (:class:`probestats.shape.codebook.Coverage`).
    problems : tuple of Problem
        What the reading of the log found.
    """

    metric: str | None
    kind: str
    levels: tuple
    bins: tuple | None
    values: tuple
    test: object
    by: dict
    groups: tuple
    coverage: tuple
    problems: tuple

    @property
    def pvalue(self) -> float | None:
        """The test's p-value (None without a test)."""
        return None if self.test is None else self.test.pvalue

    def to_frame(self) -> pl.DataFrame:
        """One row per value: runs, items, blanks, mean, and a count and a share column per level."""
        rows = []
        for s in self.values:
            row = {"value": s.value, "n_runs": s.n_runs, "n_items": s.n_items, "n_blank": s.n_blank, "mean": s.mean}
            for level in self.levels:
                row[f"n {level}"] = s.counts.get(level, 0)
                row[f"share {level}"] = s.shares.get(level)
            rows.append(row)
        return pl.DataFrame(rows, infer_schema_length=None)

    def __repr__(self) -> str:
        return one_line(self, metric=self.metric, kind=self.kind, n_values=len(self.values), p=self.pvalue)

    def _repr_html_(self) -> str:
        return html_summary(self, self.to_frame(), metric=self.metric, kind=self.kind, p=self.pvalue)


def parse_bins(bins) -> tuple[float, ...] | None:
    """Bin edges from ``"0,45,50,100"`` or a sequence of numbers, increasing.

    >>> parse_bins("0, 45, 50,100")
    (0.0, 45.0, 50.0, 100.0)
    """
    if bins is None:
        return None
    parts = ([p.strip() for p in bins.split(",")] if isinstance(bins, str) else
             list(bins) if isinstance(bins, (list, tuple)) else [bins])   # one number: one edge, refused below
    try:
        edges = tuple(float(p) for p in parts)
    except (TypeError, ValueError):
        raise OptionError(f"{opt('bins', bins if isinstance(bins, str) else ','.join(map(str, parts)))}: expected "
                          f"numbers separated by commas, the edges of the bins, for example {opt('bins', '0,45,50,100')}") from None
    if len(edges) < 2 or any(b <= a for a, b in zip(edges, edges[1:])) or not all(e == e and abs(e) != float("inf")
                                                                                 for e in edges):
        raise OptionError(f"{opt('bins', ','.join(f'{e:g}' for e in edges))}: give two or more finite edges, each "
                          f"larger than the one before, for example {opt('bins', '0,45,50,100')}")
    return edges


def describe_log(log, *, metric: str | None = None, bins=None, by=(), n_resamples: int = 10_000,
                 seed: int = 0) -> Description:
    """The distribution of ``metric`` per value of a shaped log (see the module docstring).

    Parameters
    ----------
    log : Log, path, list of dict or DataFrame
        A log (shaped by a :class:`~probestats.shape.probe.Probe` when it comes from one).
    metric : str, optional
        The column described; without it, runs and items per value.
    bins : str or sequence of float, optional
        Edges to cut a numeric metric into levels.
    by : sequence of str
        One description per group, beside the whole log's.
    n_resamples, seed
        The Monte Carlo test's draws, when the exact one is out of reach.
    """
    from probestats.io.read import read_log

    check_vocabulary(n_resamples=n_resamples, seed=seed)
    log = read_log(log)
    edges = parse_bins(bins)
    frame = log.frame
    if "variant" not in frame.columns:
        seen = ", ".join(c for c in frame.columns if not c.startswith("_"))
        raise ColumnError(f"no column for the value (variant); headers seen: {seen} "
                          f"(use {opt('columns', {'variant': 'HEADER'})})")
    for name in by:
        if name not in frame.columns:
            raise ColumnError(f"{opt('by', name)}: no such column; columns seen: "
                              f"{', '.join(c for c in frame.columns if not c.startswith('_'))}")
    if metric is not None and metric not in frame.columns:
        seen = ", ".join(c for c in frame.columns if not c.startswith("_"))
        raise ColumnError(f"no column for the metric '{metric}'; columns seen: {seen}")
    if edges is not None and metric is None:
        raise OptionError(f"{opt('bins')} cuts a metric into levels; give {opt('metric')}")
    level_col = _level_column(log, metric)
    prepared, kind, levels, problems = _prepare(frame, metric, level_col, edges)
    coverage = _coverage(log, frame)
    whole = _describe(prepared, metric, kind, levels, edges, {}, n_resamples, seed)
    groups = ()
    if by:
        keys = prepared.select(list(by)).unique(maintain_order=True).rows()
        groups = tuple(_describe(prepared.filter(pl.all_horizontal([pl.col(c).eq_missing(v) for c, v in zip(by, key)])),
                                 metric, kind, levels, edges, dict(zip(by, key)), n_resamples, seed)
                       for key in keys)
    return Description(metric=metric, kind=kind, levels=levels, bins=edges, values=whole.values, test=whole.test,
                       by={}, groups=groups, coverage=coverage, problems=tuple(log.problems) + tuple(problems))


def _level_column(log, metric):
    """The column whose values are the levels: a coded score's label column (``NAME_label``), else the metric."""
    books = (log._read or {}).get("codes", {})
    if metric in books and f"{metric}_label" in log.frame.columns:
        return f"{metric}_label"
    return metric


def _prepare(frame: pl.DataFrame, metric, level_col, edges):
    """The rows with ``\\0value``, ``\\0item``, ``\\0x`` (the number) and ``\\0level``; the kind and the levels."""
    problems = []
    value = pl.col("variant").cast(pl.String).str.strip_chars()
    frame = frame.with_columns(value.alias("\0value"))
    blank_values = frame.filter(pl.col("\0value").is_null() | (pl.col("\0value") == "")).height
    if blank_values:
        problems.append(Problem("warning", "blank_value", f"{blank_values} runs have no value; they are left out"))
    frame = frame.filter(pl.col("\0value").is_not_null() & (pl.col("\0value") != ""))
    item = pl.col("item").cast(pl.String).str.strip_chars() if "item" in frame.columns else pl.lit(None, pl.String)
    frame = frame.with_columns(item.alias("\0item"))
    if metric is None:
        return frame.with_columns(pl.lit(None, pl.Float64).alias("\0x"), pl.lit(None, pl.String).alias("\0level")), \
            "none", (), problems
    if isinstance(frame[metric].dtype, (pl.List, pl.Array)):
        from probestats.checks.columns import explode_fix

        raise ColumnError(f"the metric {metric} holds lists, not one value per run; {explode_fix(metric)}")
    number = _as_number(frame[metric])
    frame = frame.with_columns(number.alias("\0x"))
    if edges is not None:
        if number.null_count() - frame[metric].null_count() > 0 and frame[metric].dtype == pl.String:
            bad = frame.filter(pl.col("\0x").is_null() & pl.col(metric).is_not_null()
                               & (pl.col(metric).cast(pl.String).str.strip_chars() != ""))
            if bad.height:
                raise OptionError(f"{opt('bins')} cuts a number, but the metric {metric} holds text such as "
                                  f"{bad[metric][0]!r}; give a numeric metric")
        return _binned(frame, metric, edges, problems)
    labels = frame[level_col]
    if level_col != metric or labels.dtype == pl.String and number.drop_nulls().len() < labels.drop_nulls().len():
        text = labels.cast(pl.String).str.strip_chars()
        text = pl.select(pl.when(text == "").then(None).otherwise(text)).to_series()
        levels = tuple(sorted(set(text.drop_nulls().to_list())))
        x = number if level_col != metric else pl.Series([None] * frame.height, dtype=pl.Float64)
        return frame.with_columns(text.alias("\0level"), x.alias("\0x")), "label", levels, problems
    distinct = number.drop_nulls().unique().sort()
    whole = distinct.len() > 0 and bool((distinct == distinct.round(0)).all())
    if distinct.len() and set(distinct.to_list()) <= {0.0, 1.0}:
        kind, levels = "binary", ("0", "1")
    elif whole and distinct.len() <= MAX_LEVELS:
        kind, levels = "levels", tuple(f"{v:g}" for v in distinct.to_list())
    else:
        return frame.with_columns(pl.lit(None, pl.String).alias("\0level")), "numeric", (), problems
    level = pl.col("\0x").map_elements(lambda v: f"{v:g}", return_dtype=pl.String)
    return frame.with_columns(level.alias("\0level")), kind, levels, problems


def _as_number(series: pl.Series) -> pl.Series:
    if series.dtype == pl.Boolean:
        return series.cast(pl.Float64)
    if series.dtype.is_numeric():
        return series.cast(pl.Float64).fill_nan(None)
    text = series.cast(pl.String).str.strip_chars()
    return text.cast(pl.Float64, strict=False).fill_nan(None)


def _bin_name(edges, k) -> str:
    close = "]" if k == len(edges) - 2 else ")"
    return f"[{edges[k]:g}, {edges[k + 1]:g}{close}"


def _binned(frame, metric, edges, problems):
    lo, hi = edges[0], edges[-1]
    outside = frame.filter((pl.col("\0x") < lo) | (pl.col("\0x") > hi))
    if outside.height:
        shown = ", ".join(f"{v:g}" for v in outside["\0x"].unique(maintain_order=True).head(5).to_list())
        raise OptionError(f"{opt('bins', ','.join(f'{e:g}' for e in edges))}: {outside.height} runs of {metric} lie "
                          f"outside {lo:g} to {hi:g} ({shown}); widen the first or the last edge")
    names = [_bin_name(edges, k) for k in range(len(edges) - 1)]
    expr = pl.lit(None, pl.String)
    for k in reversed(range(len(edges) - 1)):
        upper = (pl.col("\0x") <= edges[k + 1]) if k == len(edges) - 2 else (pl.col("\0x") < edges[k + 1])
        expr = pl.when((pl.col("\0x") >= edges[k]) & upper).then(pl.lit(names[k])).otherwise(expr)
    return frame.with_columns(expr.alias("\0level")), "binned", tuple(names), problems


def _describe(frame, metric, kind, levels, edges, by, n_resamples, seed) -> Description:
    from probestats.stats.contingency import permutation_table_test

    values = frame["\0value"].unique(maintain_order=True).to_list()
    has_items = frame["\0item"].null_count() < frame.height
    summaries = []
    for v in values:
        sub = frame.filter(pl.col("\0value") == v)
        if metric is None:
            valued, blank = sub, 0
        else:
            valued = sub.filter(pl.col("\0level").is_not_null() if kind != "numeric" else pl.col("\0x").is_not_null())
            blank = sub.height - valued.height
        counts = {lv: 0 for lv in levels}
        for lv, n in valued.group_by("\0level").len().rows():
            if lv is not None:
                counts[lv] = int(n)
        total = sum(counts.values())
        shares = {lv: (c / total if total else None) for lv, c in counts.items()}
        mean = valued["\0x"].mean() if metric is not None and valued["\0x"].null_count() < valued.height else None
        summaries.append(ValueSummary(value=v, n_runs=valued.height, n_items=valued["\0item"].n_unique() if has_items
                                      else None, n_blank=blank, mean=mean, counts=counts, shares=shares))
    test = None
    if levels and len(values) >= 2:
        rows = frame.filter(pl.col("\0level").is_not_null())
        level_code = {lv: k for k, lv in enumerate(levels)}
        value_code = {v: k for k, v in enumerate(values)}
        used = {lv for lv in rows["\0level"].to_list()}
        if len(used) >= 2 and rows["\0value"].n_unique() >= 2:
            matched = has_items and _matched(rows)
            blocks = rows["\0item"].to_list() if matched else None
            test = permutation_table_test([value_code[v] for v in rows["\0value"].to_list()],
                                          [level_code[lv] for lv in rows["\0level"].to_list()], blocks,
                                          n_resamples=n_resamples, seed=seed)
    return Description(metric=metric, kind=kind, levels=levels, bins=edges, values=tuple(summaries), test=test, by=by,
                       groups=(), coverage=(), problems=())


def _matched(rows: pl.DataFrame) -> bool:
    """Some item has runs under two values or more."""
    per = rows.filter(pl.col("\0item").is_not_null()).group_by("\0item").agg(pl.col("\0value").n_unique().alias("k"))
    return per.height > 0 and int(per["k"].max()) >= 2


def _coverage(log, frame: pl.DataFrame) -> tuple:
    """Per code book and value, the replies of each kind."""
    from probestats.shape.codebook import code_coverage

    return tuple(code_coverage(log, frame))
