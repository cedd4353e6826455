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

Bins ``[e0, e1, ..., ek]`` are the levels ``[e0, e1)``, ..., ``[e(k-1), ek]`` (the last one closed, as
``numpy.histogram`` cuts), or with ``bins_closed="right"`` ``[e0, e1]``, ``(e1, e2]``, ..., ``(e(k-1), ek]``
(the first one closed, as ``pandas.cut(..., include_lowest=True)`` and many published figures cut); a value
outside ``[e0, ek]`` is refused, naming it.

Examples
--------
>>> from probestats.io.read import read_log   # the job reads and shapes the log; describe_log takes it as read
>>> rows = read_log([{"item": i, "variant": v, "label": lab} for i, (v, lab) in
...                  enumerate([("a", "yes"), ("a", "yes"), ("a", "no"), ("b", "no"), ("b", "no"), ("b", "no")])])
>>> d = describe_log(rows, metric="label")
>>> [(s.value, s.counts) for s in d.values]
[('a', {'no': 1, 'yes': 2}), ('b', {'no': 3, 'yes': 0})]
>>> d.test.method, round(d.test.pvalue, 3)
('exact', 0.4)
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace as _replace

import polars as pl

from probestats.checks.columns import explode_fix
from probestats.errors import ColumnError, OptionError, Problem, opt
from probestats.result import Result, html_summary, jsonable, one_line
from probestats.shape.codebook import code_coverage
from probestats.stats.agreement import cohens_kappa, fleiss_kappa, kendall_tau, spearman_rho
from probestats.stats.contingency import permutation_table_test
from probestats.stats.proportion import binomial_test, share
from probestats.vocabulary import BINS_CLOSED, check_chance, check_vocabulary

__all__ = ["Description", "Descriptions", "ValueSummary", "ChanceTest", "chance_test", "Agreement", "RaterPair", "describe_log", "parse_bins", "rater_agreement"]

#: a whole-number metric with at most this many distinct values is described level by level
MAX_LEVELS = 10



class _Record:
    def to_dict(self) -> dict:
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class ChanceTest(_Record):
    """A 0/1 metric's rate of 1 with its exact interval and the exact binomial test against a chance rate.

    Attributes
    ----------
    k, n : int
        The runs at 1, of the runs with a value.
    value : float or None
        ``k / n``.
    low, high : float or None
        The exact (Clopper-Pearson) interval at ``confidence``.
    chance : float
        The rate tested against.
    p : float or None
        The exact two-sided binomial test of ``k`` of ``n`` against ``chance`` (scipy's ``binomtest``).
    confidence : float
    method : str
    """

    k: int
    n: int
    value: float | None
    low: float | None
    high: float | None
    chance: float
    p: float | None
    confidence: float
    method: str = ("exact two-sided binomial test against the chance rate, with the Clopper-Pearson interval; every "
                   "run counted as independent (several runs of one item make it too sure when items differ)")


def chance_test(k: int, n: int, chance: float = 0.5, confidence: float = 0.95) -> ChanceTest:
    """``k`` of ``n`` against ``chance``.

    >>> t = chance_test(9, 10)
    >>> t.value, round(t.low, 4), t.p
    (0.9, 0.555, 0.021484375)
    """
    s = share(k, n, confidence=confidence)
    return ChanceTest(k=s.k, n=s.n, value=s.value, low=s.low, high=s.high, chance=float(chance),
                      p=binomial_test(k, n, chance), confidence=confidence)


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
    rate : ChanceTest or None
        A 0/1 metric (a choice, a yes): its rate of 1 with its exact interval and the exact binomial test
        against the chance rate (None for any other metric).
    """

    value: str
    n_runs: int
    n_items: int | None
    n_blank: int
    mean: float | None
    counts: dict
    shares: dict
    rate: ChanceTest | None = None


@dataclass(frozen=True)
class RaterPair(_Record):
    """The agreement of two raters (judges, models) on the units both scored.

    Attributes
    ----------
    first, second : str
        The two raters (values of the rater column).
    n_units : int
        Units (items, or item × value) both scored.
    kendall, spearman : Correlation or None
        Kendall's tau-b and Spearman's rho of their scores (each rater's mean over its runs of a unit), with
        Fisher z intervals (:func:`probestats.stats.agreement.kendall_tau`); None for a text label.
    cohen : Kappa or None
        Cohen's kappa of their labels (each rater's most frequent label of a unit); None for a metric
        without levels.
    """

    first: str
    second: str
    n_units: int
    kendall: object = None
    spearman: object = None
    cohen: object = None


@dataclass(frozen=True)
class Agreement(_Record):
    """How far raters (judges, models: the values of one column) agree on the same units.

    Attributes
    ----------
    raters : str
        The rater column.
    unit : str
        What a unit is: ``item``, or ``item × value`` when the log has values besides the raters.
    names : tuple of str
        The raters, in order of appearance.
    pairs : tuple of RaterPair
        Every pair of raters.
    fleiss : FleissKappa or None
        Fleiss' kappa of every rater's label, over the units all of them labelled (a metric with levels and
        three raters or more; None otherwise).
    scores : str
        How a rater's runs of one unit become its score and its label.
    """

    raters: str
    unit: str
    names: tuple
    pairs: tuple
    fleiss: object = None
    scores: str = ("a rater's score of a unit is the mean of its runs there, its label the most frequent label of "
                   "those runs (the first in order when two are as frequent)")


@dataclass(frozen=True)
class Description(_Record, Result):
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
    bins_closed : {"left", "right"}
        The side each bin includes: ``[a, b)`` (left, the last bin closed) or ``(a, b]`` (right, the first
        bin closed).
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
    bins_closed : {"left", "right"}
        The side each bin includes: ``[a, b)`` (left, the last bin closed) or ``(a, b]`` (right, the first
        bin closed).
    agreement : Agreement or None
        With ``agreement=COLUMN``: how far the raters named by that column agree on the same units.
    """

    MAIN_TABLE = "values"

    def _headline(self):
        return self.test

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
    bins_closed: str = "left"
    agreement: Agreement | None = None

    @property
    def pvalue(self) -> float | None:
        """The test's p-value (None without a test)."""
        return None if self.test is None else self.test.pvalue

    def __repr__(self) -> str:
        return one_line(self, metric=self.metric, kind=self.kind, n_values=len(self.values), p=self.pvalue)

    def _repr_html_(self) -> str:
        return html_summary(self, self.to_frame(), metric=self.metric, kind=self.kind, p=self.pvalue)


@dataclass(frozen=True)
class Descriptions(_Record, Result):
    """The descriptions of several metrics of one log (``describe --metric a,b``), one per metric in order;
    ``to_frame()`` one row per metric (its test's statistic and p among the columns).

    Attributes
    ----------
    descriptions : tuple of Description
    """

    MAIN_TABLE = "descriptions"

    descriptions: tuple

    @property
    def metrics(self) -> tuple:
        return tuple(d.metric for d in self.descriptions)

    def to_dict(self) -> dict:
        return {"kind": "descriptions", "metrics": list(self.metrics),
                "descriptions": [d.to_dict() for d in self.descriptions]}

    def __repr__(self) -> str:
        return one_line(self, metrics=self.metrics)


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
                 seed: int = 0, bins_closed: str = "left", agreement: str | None = None,
                 chance: float = 0.5) -> Description:
    """The distribution of ``metric`` per value of a shaped log (see the module docstring).

    Parameters
    ----------
    log : Log
        The log as the job read and shaped it (:class:`~probestats.shape.probe.Probe`); nothing is read here.
    metric : str, optional
        The column described; without it, runs and items per value.
    bins : str or sequence of float, optional
        Edges to cut a numeric metric into levels.
    by : sequence of str
        One description per group, beside the whole log's.
    n_resamples, seed
        The Monte Carlo test's draws, when the exact one is out of reach.
    bins_closed : {"left", "right"}
        ``left``: the bins are ``[a, b)``, the last one closed; ``right``: ``(a, b]``, the first one closed.
    agreement : str, optional
        A column whose values are raters (judges, models) that scored the same items: Kendall's tau and
        Spearman's rho between every two raters' scores, Cohen's kappa of their labels and Fleiss' kappa of
        all of them (:func:`rater_agreement`). The log may then have no value column.
    chance : float
        A 0/1 metric's rate of 1 per value (and per ``by`` group) is tested against it (exact binomial test,
        Clopper-Pearson interval; 0.5 unless given).

    Examples
    --------
    >>> from probestats.io.read import read_log
    >>> rows = read_log([{"item": 0, "variant": "a", "x": x} for x in (0, 1, 1, 2, 3)])
    >>> describe_log(rows, metric="x", bins="0,1,2,3").values[0].counts
    {'[0, 1)': 1, '[1, 2)': 2, '[2, 3]': 2}
    >>> describe_log(rows, metric="x", bins="0,1,2,3", bins_closed="right").values[0].counts
    {'[0, 1]': 3, '(1, 2]': 1, '(2, 3]': 1}
    """
    check_vocabulary(n_resamples=n_resamples, seed=seed)
    if bins_closed not in BINS_CLOSED:
        raise OptionError(f"{opt('bins_closed', bins_closed)}: expected one of {', '.join(BINS_CLOSED)} (the side "
                          "each bin includes)")
    check_chance(chance)
    if bins is None and bins_closed != "left":
        raise OptionError(f"{opt('bins_closed', bins_closed)} says which side of a bin is closed; give "
                          f"{opt('bins')} too, or drop it")
    edges = parse_bins(bins)
    frame = log.frame
    if agreement is not None:
        if metric is None:
            raise OptionError(f"{opt('agreement', agreement)} compares raters' scores of the same items; give "
                              f"{opt('metric')}")
        agreement = _rater_column(log, frame, agreement)
        within_values = "variant" in frame.columns and agreement != "variant"
        if "variant" not in frame.columns:   # raters' scores of items: one value, the whole log
            frame = frame.with_columns(pl.lit("all runs").alias("variant"))
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
    prepared, kind, levels, problems = _prepare(frame, metric, level_col, edges, bins_closed)
    coverage = _coverage(log, frame)
    if kind != "binary" and float(chance) != 0.5:
        raise OptionError(f"{opt('chance', chance)} tests the rate of a 0/1 metric (a choice, a yes); {metric or 'no metric'} "
                          f"is {'not given' if metric is None else 'not 0/1'} (drop it, or derive a 0/1 column with "
                          f"{opt('derive')})")
    whole = _describe(prepared, metric, kind, levels, edges, {}, n_resamples, seed, chance)
    groups = ()
    if by:
        keys = prepared.select(list(by)).unique(maintain_order=True).rows()
        groups = tuple(_describe(prepared.filter(pl.all_horizontal([pl.col(c).eq_missing(v) for c, v in zip(by, key)])),
                                 metric, kind, levels, edges, dict(zip(by, key)), n_resamples, seed, chance)
                       for key in keys)
    groups = tuple(_replace(g, bins_closed=bins_closed) for g in groups)
    agreed = None if agreement is None else rater_agreement(prepared, agreement, kind, seed=seed,
                                                            n_resamples=n_resamples,
                                                            header=log.columns.get(agreement, agreement),
                                                            within_values=within_values)
    return Description(metric=metric, kind=kind, levels=levels, bins=edges, values=whole.values, test=whole.test,
                       by={}, groups=groups, coverage=coverage, problems=tuple(log.problems) + tuple(problems),
                       bins_closed=bins_closed, agreement=agreed)


def _rater_column(log, frame: pl.DataFrame, name: str) -> str:
    """The rater column, named by its canonical name or its header as written."""
    if name in frame.columns:
        return name
    for canonical, header in log.columns.items():
        if header == name and canonical in frame.columns:
            return canonical
    seen = ", ".join(c for c in frame.columns if not c.startswith("_"))
    raise ColumnError(f"{opt('agreement', name)}: no such column; columns seen: {seen}")


def rater_agreement(prepared: pl.DataFrame, raters: str, kind: str, *, confidence: float = 0.95, seed: int = 0,
                    n_resamples: int = 10_000, header: str | None = None, within_values: bool = True) -> Agreement:
    """Agreement between the raters of column ``raters`` on the units they all scored, from the rows
    :func:`describe_log` prepared (``\\0item``, ``\\0value``, ``\\0x``, ``\\0level``).

    A unit is an item, or an item under one value when the log has values besides the raters
    (``within_values``). Scores
    (numbers) give Kendall's tau-b and Spearman's rho for every pair of raters; labels (a label, a 0/1 metric,
    whole-number levels or bins) give Cohen's kappa for every pair and Fleiss' kappa across three raters or
    more.
    """
    from itertools import combinations

    if prepared["\0item"].null_count() == prepared.height:
        raise ColumnError(f"{opt('agreement', header or raters)} pairs the raters' scores item by item; the log has "
                          f"no item column (use {opt('columns', {'item': 'HEADER'})})")
    rows = prepared.with_columns(pl.col(raters).cast(pl.String).str.strip_chars().alias("\0rater"))
    rows = rows.filter(pl.col("\0rater").is_not_null() & (pl.col("\0rater") != ""))
    within_values = within_values and raters != "variant"
    unit_cols = ["\0item", "\0value"] if within_values else ["\0item"]
    unit = "item × value" if within_values else "item"
    names = tuple(rows["\0rater"].unique(maintain_order=True).to_list())
    if len(names) < 2:
        raise OptionError(f"{opt('agreement', header or raters)}: {len(names)} rater "
                          f"({', '.join(repr(n) for n in names)}); agreement needs two raters or more")
    numeric = kind != "label"
    labelled = kind in ("label", "binary", "levels", "binned")
    scores = rows.group_by([*unit_cols, "\0rater"], maintain_order=True).agg(
        pl.col("\0x").mean().alias("score"),
        pl.col("\0level").drop_nulls().mode().sort().first().alias("label"))
    key = pl.concat_str([pl.col(c).fill_null("") for c in unit_cols], separator="\x1f")
    scores = scores.with_columns(key.alias("\0unit"))
    wide_score = scores.pivot(on="\0rater", index="\0unit", values="score")
    wide_label = scores.pivot(on="\0rater", index="\0unit", values="label")
    pairs = []
    for a, b in combinations(names, 2):
        both = wide_score.select(a, b).drop_nulls() if numeric else None
        labels = wide_label.select(a, b).drop_nulls() if labelled else None
        n = (both if numeric else labels).height
        pairs.append(RaterPair(
            first=a, second=b, n_units=n,
            kendall=kendall_tau(both[a], both[b], confidence=confidence) if numeric else None,
            spearman=spearman_rho(both[a], both[b], confidence=confidence) if numeric else None,
            cohen=cohens_kappa(labels[a].to_list(), labels[b].to_list(), confidence=confidence) if labelled else None))
    fleiss = None
    if labelled and len(names) >= 3:
        table = wide_label.select(list(names)).drop_nulls()
        fleiss = fleiss_kappa(table.rows(), confidence=confidence, n_resamples=n_resamples, seed=seed)
    return Agreement(raters=header or raters, unit=unit, names=names, pairs=tuple(pairs), fleiss=fleiss)


def _level_column(log, metric):
    """The column whose values are the levels: a coded score's label column (``NAME_label``), else the metric."""
    books = (log._read or {}).get("codes", {})
    if metric in books and f"{metric}_label" in log.frame.columns:
        return f"{metric}_label"
    return metric


def _prepare(frame: pl.DataFrame, metric, level_col, edges, closed="left"):
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
        return _binned(frame, metric, edges, problems, closed)
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


def _bin_name(edges, k, closed="left") -> str:
    """``[a, b)`` (the last ``[a, b]``), or right-closed ``(a, b]`` (the first ``[a, b]``).

    >>> [_bin_name((0, 1, 2), k) for k in (0, 1)], [_bin_name((0, 1, 2), k, "right") for k in (0, 1)]
    (['[0, 1)', '[1, 2]'], ['[0, 1]', '(1, 2]'])
    """
    if closed == "right":
        return f"{'[' if k == 0 else '('}{edges[k]:g}, {edges[k + 1]:g}]"
    close = "]" if k == len(edges) - 2 else ")"
    return f"[{edges[k]:g}, {edges[k + 1]:g}{close}"


def _binned(frame, metric, edges, problems, closed="left"):
    lo, hi = edges[0], edges[-1]
    outside = frame.filter((pl.col("\0x") < lo) | (pl.col("\0x") > hi))
    if outside.height:
        shown = ", ".join(f"{v:g}" for v in outside["\0x"].unique(maintain_order=True).head(5).to_list())
        raise OptionError(f"{opt('bins', ','.join(f'{e:g}' for e in edges))}: {outside.height} runs of {metric} lie "
                          f"outside {lo:g} to {hi:g} ({shown}); widen the first or the last edge")
    names = [_bin_name(edges, k, closed) for k in range(len(edges) - 1)]
    expr = pl.lit(None, pl.String)
    x = pl.col("\0x")
    for k in reversed(range(len(edges) - 1)):
        if closed == "right":
            lower = (x >= edges[k]) if k == 0 else (x > edges[k])
            inside = lower & (x <= edges[k + 1])
        else:
            upper = (x <= edges[k + 1]) if k == len(edges) - 2 else (x < edges[k + 1])
            inside = (x >= edges[k]) & upper
        expr = pl.when(inside).then(pl.lit(names[k])).otherwise(expr)
    return frame.with_columns(expr.alias("\0level")), "binned", tuple(names), problems


def _describe(frame, metric, kind, levels, edges, by, n_resamples, seed, chance=0.5) -> Description:
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
        rate = chance_test(counts.get("1", 0), total, chance) if kind == "binary" else None
        summaries.append(ValueSummary(value=v, n_runs=valued.height, n_items=valued["\0item"].n_unique() if has_items
                                      else None, n_blank=blank, mean=mean, counts=counts, shares=shares, rate=rate))
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
    return tuple(code_coverage(log, frame))
