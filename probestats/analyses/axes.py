"""Per-axis figures of a many-values audit: values that combine attributes (``female_black``, ``male_white``).

An audit whose values cross several attributes (gender × race in résumé audits) publishes figures per
attribute, per *axis*: how large the gap between an axis's levels is on average over the items, and how many
items show a significant gap. ``analyze LOG --axes gender,race`` reads each value's name as its levels, one per
axis, split at the one separator (``_``, ``-``, ``|``, ``/``, ``:``, ``.`` or a space) that cuts every value
into as many parts as there are axes, and gives per axis and per pair of its levels (the later level minus the
earlier, in the order of first appearance):

* per item, the level's mean: the mean of the item means of the values at that level (each value counts once,
  as ``--group`` counts names), and the item's gap, one level's mean minus the other's;
* the **mean gap** and the **mean |gap|** over the items (every item once);
* per item, **Welch's t** on the item's runs under the two levels' values (each run one observation, as
  published audits test an item), and the **share of items with a significant gap**: p at most alpha,
  uncorrected as audits publish it, and after the correction across the items (Holm by default).

An axis's summary is over its pairs' items: the mean |gap| over every item and pair, and the share of
item × pair cells whose gap is significant (for a two-level axis, its one pair's figures).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np
import polars as pl

from probestats.errors import OptionError, opt
from probestats.result import jsonable
from probestats.stats.multitest import adjust
from probestats.stats.published import welch_t
from probestats.vocabulary import Tests

__all__ = ["AxisPair", "Axis", "Axes", "SEPARATORS", "split_values", "value_axes", "check_axes", "with_axes"]

#: The separators a value's name may be split at, tried in this order.
SEPARATORS = ("_", "-", "|", "/", ":", ".", " ")

METHOD = ("per item, each level's mean is the mean of the item means of its values (each value once); the gap is "
          "one level's mean minus the other's; Welch's t (scipy.stats.ttest_ind(equal_var=False)) on the item's "
          "runs under the two levels' values, each run one observation")
NOTE = ("the per-item Welch tests treat each run as independent and test one item at a time; the share "
        "significant is descriptive, the omnibus and pairwise tests over items stay the headline")


@dataclass(frozen=True)
class AxisPair:
    """One pair of an axis's levels over the items.

    Attributes
    ----------
    axis : str
    level_a, level_b : str
        The gap is ``level_a − level_b`` (``level_a`` the later level in order of appearance).
    n_items : int
        Items with runs under both levels.
    mean_gap, mean_abs_gap : float
        The mean over those items of the gap and of its absolute value.
    n_tested : int
        Items whose Welch's t is defined (two runs or more under each level, some spread).
    n_significant, n_significant_adjusted : int
        Items whose p (and whose p corrected across the tested items) is at most alpha.
    share_significant, share_significant_adjusted : float or None
        Those counts over ``n_tested`` (None when no item was tested).
    items : tuple of dict
        Per item: ``item``, ``gap``, ``p``, ``p_adjusted``.
    """

    axis: str
    level_a: str
    level_b: str
    n_items: int
    mean_gap: float | None
    mean_abs_gap: float | None
    n_tested: int
    n_significant: int
    n_significant_adjusted: int
    share_significant: float | None
    share_significant_adjusted: float | None
    items: tuple = ()

    def to_dict(self) -> dict:
        out = {f.name: jsonable(getattr(self, f.name)) for f in fields(self) if f.name != "items"}
        out["items"] = [{k: jsonable(v) for k, v in row.items()} for row in self.items]
        return out


@dataclass(frozen=True)
class Axis:
    """One axis: its levels, each pair of them, and the summary over its pairs."""

    name: str
    levels: tuple
    pairs: tuple
    mean_abs_gap: float | None
    share_significant: float | None
    share_significant_adjusted: float | None

    def to_dict(self) -> dict:
        return {"name": self.name, "levels": list(self.levels), "mean_abs_gap": jsonable(self.mean_abs_gap),
                "share_significant": jsonable(self.share_significant),
                "share_significant_adjusted": jsonable(self.share_significant_adjusted),
                "pairs": [p.to_dict() for p in self.pairs]}


@dataclass(frozen=True)
class Axes:
    """The per-axis figures of a many-values analysis (:func:`value_axes`)."""

    names: tuple
    separator: str
    axes: tuple
    alpha: float
    correction: str
    method: str = METHOD
    note: str = NOTE

    def to_dict(self) -> dict:
        return {"names": list(self.names), "separator": self.separator, "alpha": self.alpha,
                "correction": self.correction, "method": self.method, "note": self.note,
                "axes": [a.to_dict() for a in self.axes]}


def split_values(values, names) -> tuple[str, dict]:
    """The separator that cuts every value into one part per axis, and each value's levels.

    >>> split_values(["female_black", "male_white"], ["gender", "race"])
    ('_', {'female_black': ('female', 'black'), 'male_white': ('male', 'white')})
    >>> split_values(["f-b", "m"], ["gender", "race"])
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: axes=['gender', 'race']: no separator (_ - | / : . or a space) cuts every value into 2 parts; 'm' has 1 part, for example
    """
    values, names = [str(v) for v in values], list(names)
    for sep in SEPARATORS:
        parts = {v: tuple(p.strip() for p in v.split(sep)) for v in values}
        if all(len(p) == len(names) and all(p) for p in parts.values()):
            return sep, parts
    bad = next((v for v in values if all(len(v.split(s)) != len(names) for s in SEPARATORS)), values[0])
    count = max((len(bad.split(s)) for s in SEPARATORS if len(bad.split(s)) != len(names)), default=1)
    raise OptionError(f"{opt('axes', names)}: no separator (_ - | / : . or a space) cuts every value into "
                      f"{len(names)} parts; {bad!r} has {count} part{'s' if count != 1 else ''}, for example")


def value_axes(frame: pl.DataFrame, metric: str, names, tests=None, *, values=None) -> Axes:
    """Per axis and pair of levels: the mean gap and mean |gap| over items, and the share of items whose
    Welch's t on their runs is significant (see the module's text), read at the ``tests``' alpha and corrected
    across the items by their correction (:class:`probestats.Tests`; its defaults without).

    Examples
    --------
    >>> rows = [{"item": i, "variant": v, "x": x} for i, v, x in [
    ...     (1, "f_b", 1.0), (1, "f_w", 2.0), (1, "m_b", 3.0), (1, "m_w", 6.0),
    ...     (2, "f_b", 2.0), (2, "f_w", 2.0), (2, "m_b", 1.0), (2, "m_w", 1.0)]]
    >>> ax = value_axes(pl.DataFrame(rows), "x", ["gender", "race"])
    >>> g = ax.axes[0].pairs[0]
    >>> (g.level_a, g.level_b, g.mean_gap, g.mean_abs_gap)   # item 1: 4.5 - 1.5 = 3; item 2: 1 - 2 = -1
    ('m', 'f', 1.0, 2.0)
    """
    tests = tests if tests is not None else Tests()
    names = list(names)
    frame = frame.filter(pl.col(metric).is_not_null())
    values = list(values) if values is not None else list(dict.fromkeys(frame["variant"].to_list()))
    sep, parts = split_values(values, names)
    frame = frame.filter(pl.col("variant").is_in(values))
    cell = (frame.group_by(["item", "variant"], maintain_order=True)
            .agg(pl.col(metric).cast(pl.Float64).mean().alias("__mean")))
    axes = []
    for k, name in enumerate(names):
        levels = tuple(dict.fromkeys(parts[v][k] for v in values))
        level_of = pl.DataFrame({"variant": values, "__level": [parts[v][k] for v in values]},
                                schema={"variant": frame.schema["variant"], "__level": pl.String})
        means = (cell.join(level_of, on="variant").group_by(["item", "__level"], maintain_order=True)
                 .agg(pl.col("__mean").mean()))
        runs = (frame.join(level_of, on="variant").group_by(["item", "__level"], maintain_order=True)
                .agg(pl.col(metric).cast(pl.Float64).alias("__runs")))
        by_level = means.join(runs, on=["item", "__level"], maintain_order="left")
        table = {(r["item"], r["__level"]): (r["__mean"], r["__runs"]) for r in by_level.iter_rows(named=True)}
        items = list(dict.fromkeys(by_level["item"].to_list()))
        pairs = []
        for i, first in enumerate(levels):
            for later in levels[i + 1:]:
                pairs.append(_pair(name, later, first, items, table, tests))
        gaps = [abs(row["gap"]) for p in pairs for row in p.items]
        tested = sum(p.n_tested for p in pairs)
        axes.append(Axis(name, levels, tuple(pairs), math.fsum(gaps) / len(gaps) if gaps else None,
                         sum(p.n_significant for p in pairs) / tested if tested else None,
                         sum(p.n_significant_adjusted for p in pairs) / tested if tested else None))
    return Axes(tuple(names), sep, tuple(axes), tests.alpha, tests.correction)


def _pair(axis, level_a, level_b, items, table, tests) -> AxisPair:
    alpha, rows, ps = tests.alpha, [], []
    for item in items:
        if (item, level_a) not in table or (item, level_b) not in table:
            continue
        (ma, ra), (mb, rb) = table[(item, level_a)], table[(item, level_b)]
        test = welch_t(np.asarray(ra, float), np.asarray(rb, float))
        rows.append({"item": str(item), "gap": ma - mb, "p": test.pvalue, "p_adjusted": None})
        ps.append(test.pvalue)
    tested = [i for i, p in enumerate(ps) if p is not None]
    for i, p in zip(tested, adjust([ps[i] for i in tested], tests.correction) if tested else []):
        rows[i]["p_adjusted"] = p
    n = len(rows)
    sig = sum(1 for r in rows if r["p"] is not None and r["p"] <= alpha)
    sig_adj = sum(1 for r in rows if r["p_adjusted"] is not None and r["p_adjusted"] <= alpha)
    gaps = [r["gap"] for r in rows]
    return AxisPair(axis, str(level_a), str(level_b), n, math.fsum(gaps) / n if n else None,
                    math.fsum(abs(g) for g in gaps) / n if n else None, len(tested), sig, sig_adj,
                    sig / len(tested) if tested else None, sig_adj / len(tested) if tested else None, tuple(rows))


def check_axes(names) -> list[str]:
    """The axes' names, refused when fewer than two or one is named twice.

    >>> check_axes(["gender", "race"])
    ['gender', 'race']
    """
    names = list(names)
    if len(names) < 2:
        raise OptionError(f"{opt('axes', names)}: name two axes or more (each value combines one level of each, "
                          f"such as female_black for {opt('axes', ['gender', 'race'])})")
    if len(set(names)) != len(names):
        raise OptionError(f"{opt('axes', names)}: an axis is named twice; name each once")
    return names


def with_axes(analysis, names):
    """A many-values analysis with its per-axis figures (``axes``), read from its rows."""
    from dataclasses import replace

    names = check_axes(names)
    values = [v.value for v in analysis.main.values]
    if any(v.names for v in analysis.main.values):
        raise OptionError(f"{opt('axes')} reads each value's name as its levels; {opt('groups')} groups values "
                          "into one: give one or the other")

    axes = value_axes(analysis.frame, analysis.metric, names, Tests(alpha=analysis.alpha,
                                                                    correction=analysis.correction), values=values)
    return replace(analysis, axes=axes)
