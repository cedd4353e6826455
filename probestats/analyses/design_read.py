"""What an analysis took the probe to be, read once from its result and said first in every output.

Every verdict rests on a reading of the design: the unit the attribute was varied within (the item), the
compared values, the runs per cell, the settings that vary within items (blocks, matched within and averaged),
the clusters the items nest in, the settings drawn per call, the ``by`` groups, the metrics and whether they
are tested as one family. :func:`read_design` gathers them from a finished result into one
:class:`ProbeDesign`, each role with how it was found (declared by the user, recognized by its name, or
recognized by its content), and words it in one sentence that the terminal prints first, the report's Design
section opens with, and JSON carries as ``design``. A reader who disagrees with a role corrects it with the
option the sentence names.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from probestats.errors import count_of
from probestats.io.columns import ALIASES, normalize_header

__all__ = ["ProbeDesign", "read_design"]

@dataclass(frozen=True)
class ProbeDesign:
    """The design an analysis read from its log.

    Attributes
    ----------
    n_items : int
        The matched items compared.
    values : tuple of str
        The compared values (two for a pair, every value or group otherwise).
    runs : tuple of (int, int, float)
        The fewest, the most and the median runs per item x value cell (item x value x block, with blocks).
    blocks : tuple of str
        Settings that vary within items (matched within each of their values, averaged over them).
    n_blocks : int
        How many values the blocks take together (0 without blocks).
    clusters : str or None
        The column the items nest in (``cluster=``), and ``n_clusters`` how many.
    n_clusters : int
    random_settings : tuple of str
        Settings drawn at random per call.
    by : tuple of str
        The ``by`` columns the analysis is repeated over.
    candidates : tuple of str
        Columns that look like blocks by their content (each takes every one of its values in every cell, in
        equal shares) and were not declared: the ``likely_block`` warnings.
    metrics : tuple of str
    family : str or None
        With several metrics, how they are tested together.
    roles : dict
        Role -> ``{"column": header, "found": "declared" | "by name"}`` for the item, the value and the blocks.
    sentence : str
        All of it in one sentence, as every output leads with it.
    """

    n_items: int
    values: tuple
    runs: tuple
    blocks: tuple = ()
    n_blocks: int = 0
    clusters: str | None = None
    n_clusters: int = 0
    random_settings: tuple = ()
    by: tuple = ()
    candidates: tuple = ()
    metrics: tuple = ()
    family: str | None = None
    roles: dict = field(default_factory=dict)
    sentence: str = ""

    def to_dict(self) -> dict:
        return {"sentence": self.sentence, "n_items": self.n_items, "values": list(self.values),
                "runs": {"min": self.runs[0], "max": self.runs[1], "median": self.runs[2]},
                "blocks": list(self.blocks), "n_blocks": self.n_blocks, "clusters": self.clusters,
                "n_clusters": self.n_clusters, "random_settings": list(self.random_settings), "by": list(self.by),
"candidates": list(self.candidates), "metrics": list(self.metrics),
                "family": self.family, "roles": {k: dict(v) for k, v in self.roles.items()}}


def _found(log, role: str) -> dict | None:
    """How a canonical role's column was found: by its name (the canonical name or an alias) or declared."""
    header = (getattr(log, "columns", None) or {}).get(role)
    if header is None:
        return None
    norm = normalize_header(header)
    named = norm == role or norm in ALIASES.get(role, ())
    return {"column": str(header).strip(), "found": "by name" if named else "declared"}


def _runs(items: pl.DataFrame, sides=("n_a", "n_b")) -> tuple:
    counts = pl.concat([items[c] for c in sides if c in items.columns]) if items.height else pl.Series([], dtype=pl.Int64)
    if not counts.len():
        return (0, 0, 0.0)
    return (int(counts.min()), int(counts.max()), float(counts.median()))


def _quoted(values, limit: int = 5) -> str:
    shown = ", ".join(f"'{v}'" for v in list(values)[:limit])
    return shown + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _sentence(d: ProbeDesign) -> str:
    item = d.roles.get("item")
    value = d.roles.get("variant")
    cell = "item, value and " + " x ".join(d.blocks) if d.blocks else "item and value"
    runs = (f"{d.runs[0]} run{'s' if d.runs[0] != 1 else ''} per {cell}" if d.runs[0] == d.runs[1] else
            f"{d.runs[0]} to {d.runs[1]} runs per {cell} (median {d.runs[2]:g})")
    parts = [f"{count_of(d.n_items, 'item')}"
             + (f" ({item['column']}, {item['found']})" if item else "")
             + f", each run under values {_quoted(d.values)}"
             + (f" ({value['column']}, {value['found']})" if value else "")
             + f", {runs}"]
    if d.blocks:
        named = " x ".join(f"{b} ({d.roles[b]['column']}, {d.roles[b]['found']})"
                           if b in d.roles and d.roles[b]["column"] != b else b for b in d.blocks)
        parts.append(f"{count_of(d.n_blocks, 'block')} of {named} that vary within items (by content: items matched "
                     "within each, their gaps averaged)")
    if d.clusters:
        parts.append(f"items nested in {d.n_clusters} clusters of {d.clusters} (declared: the tests flip whole clusters)")
    if d.random_settings:
        parts.append(f"{', '.join(d.random_settings)} drawn per call (declared)")
    if d.by:
        parts.append(f"repeated per {' x '.join(d.by)} (declared)")
    if d.candidates:
        parts.append(f"{', '.join(d.candidates)} may be a block (by content, not declared)")
    if d.metrics and len(d.metrics) > 1:
        parts.append(f"metrics {', '.join(d.metrics)}, {d.family}")
    return "This analysis took the probe to be: " + "; ".join(parts) + "."


def read_design(result) -> ProbeDesign:
    """The design of a finished analysis (a pair's ``Analysis``, a ``ManyAnalysis`` or a ``MetricsAnalysis``).

    Examples
    --------
    >>> import probestats
    >>> rows = [{"item": i, "variant": v, "seed": s, "model": "m", "steps": 4 + (v == "a") + (s % 2)}
    ...         for i in range(6) for v in ("a", "b") for s in range(3)]
    >>> print(read_design(probestats.analyze(rows, metric="steps")).sentence)
    This analysis took the probe to be: 6 items (item, by name), each run under values 'a', 'b' (variant, by name), 3 runs per item and value.
    """
    analyses = getattr(result, "analyses", None)
    if analyses:   # several metrics: the first metric's design, with the family
        first = read_design(analyses[0])
        family = ("tested as one family by the joint sign-flip test" if getattr(result, "joint", None) is not None
                  else f"corrected as a family ({result.correction})")
        base = ProbeDesign(**{**first.__dict__, "metrics": tuple(result.metrics), "family": family, "sentence": ""})
        return _with_sentence(base)
    checked = getattr(result, "checked", None)
    log = getattr(checked, "log", None)
    frame = getattr(checked, "frame", None) if checked is not None else getattr(result, "frame", None)
    roles = {r: f for r in ("item", "variant") if (f := _found(log, r)) is not None}
    if not roles:   # a cell table (or the rows a many-values analysis keeps) holds them under their own names
        roles = {r: {"column": r, "found": "by name"} for r in ("item", "variant")}
    verdict = getattr(result, "verdict", None)
    blocks = tuple(getattr(verdict, "blocks", ()) or ())
    roles.update({b: f for b in blocks if (f := _found(log, b)) is not None})
    groups = tuple(getattr(result, "groups", ()) or ())
    by = tuple(k for k in (groups[0].by if groups else {}) if k not in blocks)
    candidates = tuple(str(p.column) for p in getattr(result, "problems", ()) if p.code == "likely_block" and p.column)
    main = result.main
    if hasattr(main, "omnibus"):   # many values
        values = tuple(v.value for v in main.values)
        runs = _runs(main.items.rename({"runs": "n"}), sides=("n",)) if "runs" in main.items.columns else (0, 0, 0.0)
        n_items = int(main.items["item"].n_unique()) if main.items.height else 0
    else:
        values = (main.a, main.b)
        runs = _runs(main.items)
        n_items = main.n_items
    clusters = getattr(result, "clusters", None)
    drawn = tuple(d.column for d in (getattr(result, "drawn", None) or ()))
    design = ProbeDesign(n_items=n_items, values=values, runs=runs, blocks=blocks,
                         n_blocks=len(groups) if blocks and not by else 0,
                         clusters=None if clusters is None else clusters.column,
                         n_clusters=0 if clusters is None else clusters.n_clusters, random_settings=drawn, by=by,
                         candidates=candidates,
                         metrics=(main.metric,) if hasattr(main, "metric") else (), roles=roles)
    if blocks and frame is not None and frame.height and all(b in frame.columns for b in blocks):
        # a cell is an item x value x block: its runs, and the blocks' values
        value = "_unit" if "_unit" in frame.columns else "variant"   # a group of values is one value here
        cells = frame.filter(pl.col(value).is_in(list(values))) if value in frame.columns else frame
        counts = cells.group_by(["item", *([value] if value in cells.columns else []), *blocks]).len()["len"]
        design = ProbeDesign(**{**design.__dict__, "runs": (int(counts.min()), int(counts.max()),
                                                            float(counts.median())) if counts.len() else design.runs,
                                "n_blocks": design.n_blocks or frame.select(pl.struct(list(blocks)).n_unique()).item()})
    return _with_sentence(design)


def _with_sentence(design: ProbeDesign) -> ProbeDesign:
    return ProbeDesign(**{**design.__dict__, "sentence": _sentence(design)})
