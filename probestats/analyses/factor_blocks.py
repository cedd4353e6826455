"""Models that disagree on a two-factor design's effects: the blocks its main effects average over, read as a pair
reads them.

A setting that varies within the item x combination cells of a two-factor design (several models answered every
item under every combination; judges, temperatures, system prompts, files alike: the pair's block settings) is a
**block**. The effects average over the blocks' runs; an average over models that go different ways is the
effect of none of them. For each main effect of a factor of two levels (both in a 2 x 2; the first factor's is
the headline) each block's own item effects are computed from its own cell means (the first level less the
second, averaged over the other factor's levels: ``((m11 - m21) + (m12 - m22)) / 2`` per item in a 2 x 2), each
block's mean tested with the exact sign-flip test across items and corrected across the blocks (the ``tests``'
correction), and the blocks read by :func:`probestats.analyses.blocks.block_agreement`, the pair's own reading:
the within-item permutation test of block x effect heterogeneity (studentized), the significant blocks'
directions, and, when three or more disagree, the block that drives the pooled effect. With two such effects
their heterogeneity tests are read at alpha / 2 (Bonferroni), as the many-values mode reads its values' tests,
so blocks that agree are said to disagree on either effect about as rarely as a pair says it of its one gap. A
factor of more than two levels has no gap, and its blocks are not read.

The verdict of the analysis then carries what the pair's does: ``agreement`` the first effect's reading (JSON
``verdict.blocks_agree``, with ``driving``), ``pooled`` the phrase the verdict line and the Summary print
("averaged over 5 models that disagree on style (m0 drives the pooled gap)"), and, when they disagree on some
effect, the ``blocks_disagree`` caveat with each such effect's reading in its figures (``{"effects": [...]}``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import polars as pl

from probestats.analyses.blocks import block_agreement, drivers_clause
from probestats.analyses.many import unit_means, within_cell_blocks
from probestats.analyses.verdict import with_caveats
from probestats.checks.design_facts import Caveat
from probestats.stats.hypotests import sign_flip_test
from probestats.stats.multitest import adjust

__all__ = ["BlockGap", "Cells", "factor_blocks", "effect_agreements", "with_agreements"]


@dataclass(frozen=True)
class Cells:
    """A two-factor design as its blocks are read: the block ``blocks``, the two ``factors``, their ``levels`` (a
    factor's gap is its first level less its second) and every ``cells`` named ``level × level``."""

    blocks: tuple
    factors: tuple
    levels: tuple
    cells: tuple


@dataclass(frozen=True)
class BlockGap:
    """One block's effect, as :func:`probestats.analyses.blocks.block_agreement` reads a group: its values
    (``by``), its mean item effect (``average_gap``) and its sign-flip p corrected across the blocks."""

    by: dict
    average_gap: float
    p_adjusted: float | None


def factor_blocks(frame: pl.DataFrame, compared: Sequence[str]) -> tuple[str, ...]:
    """The block settings that vary within some item x combination cell (``_unit``) of a two-factor frame, the
    factors' own columns (``compared``) left out: a factor is compared, not averaged over.

    >>> frame = pl.DataFrame({"item": ["1"] * 4, "_unit": ["a × x"] * 2 + ["b × x"] * 2, "model": ["m", "n"] * 2})
    >>> factor_blocks(frame, ["style", "name"]), factor_blocks(frame, ["model", "name"])
    (('model',), ())
    """
    return within_cell_blocks(frame, sorted(set(frame["_unit"].to_list())) if frame.height else (), tuple(compared))


def _block_effects(frame: pl.DataFrame, metric: str, design: Cells) -> pl.DataFrame:
    """Per block and item, the main effect of each factor with two levels (``first``, ``second``): the first level
    less the second, averaged over the other factor's levels, from the block's own cell means; items without
    every cell in a block are left out of that block."""
    blocks = list(design.blocks)
    means = unit_means(frame, metric, by=blocks).with_columns(
        [pl.col(b).cast(pl.String).fill_null("(blank)") for b in blocks])
    wide = means.pivot(on="value", index=[*blocks, "item"], values="mean", aggregate_function="first")
    missing = [c for c in design.cells if c not in wide.columns]
    wide = wide.with_columns([pl.lit(None, dtype=pl.Float64).alias(c) for c in missing]).drop_nulls(list(design.cells))
    (la, lb) = design.levels
    effects = []
    if len(la) == 2:
        effects.append((sum(pl.col(f"{la[0]} × {y}") - pl.col(f"{la[1]} × {y}") for y in lb) / len(lb)).alias("first"))
    if len(lb) == 2:
        effects.append((sum(pl.col(f"{x} × {lb[0]}") - pl.col(f"{x} × {lb[1]}") for x in la) / len(la)).alias("second"))
    return wide.select(*blocks, pl.col("item").cast(pl.String), *effects)


def effect_agreements(frame: pl.DataFrame, metric: str, design, tests) -> tuple:
    """``((effect name, BlockAgreement or None), ...)`` for the main effects of ``design`` (:class:`Cells`) whose
    factor has two levels (both in a 2 x 2), read as the pair reads its blocks at the ``tests``' level (see the
    module docstring), each block test at alpha over their number (Bonferroni); empty without blocks or without a
    factor of two levels.

    Examples
    --------
    Three models over eight items: two put 'formal' above 'casual' by 1 in every cell, one below by 1; no model
    cares about the name. Each model's style p is the exact sign-flip p of eight equal gaps, 2/256, and Holm
    across the three models makes it 3 x 2/256 = 0.023.

    >>> from probestats.vocabulary import Tests
    >>> rows = [{"item": str(i), "model": m, "_unit": f"{s} × {n}", "variant": f"{s} × {n}",
    ...          "x": i * 0.1 + (s == "formal") * g + 0.01 * (i % 3) * (n == "Greg")}
    ...         for i in range(8) for m, g in (("p", 1.0), ("q", 1.0), ("r", -1.0))
    ...         for s in ("formal", "casual") for n in ("Emily", "Greg")]
    >>> design = Cells(blocks=("model",), factors=("style", "name"), levels=(("formal", "casual"), ("Emily", "Greg")),
    ...                cells=("formal × Emily", "formal × Greg", "casual × Emily", "casual × Greg"))
    >>> read = dict(effect_agreements(pl.DataFrame(rows), "x", design, Tests(n_resamples=999)))
    >>> read["style"].disagree, read["style"].higher, read["style"].lower, read["name"].disagree
    (True, ('p', 'q'), ('r',), False)
    >>> read["style"].driving.block   # r is farthest from the others' mean (-1 against +1)
    'r'
    """
    blocks = list(design.blocks)
    read = [(effect, name, levels) for effect, name, levels in (("first", design.factors[0], design.levels[0]),
                                                                 ("second", design.factors[1], design.levels[1]))
            if len(levels) == 2]
    if not blocks or not read:
        return ()
    table = _block_effects(frame, metric, design)
    keys = table.select(blocks).unique(maintain_order=True)
    out = []
    for effect, name, (a, b) in read:
        subs = [table.filter(pl.all_horizontal([pl.col(k) == v for k, v in key.items()]))
                for key in keys.iter_rows(named=True)]
        gaps = [sub[effect].to_numpy().astype(float) for sub in subs]
        ps = [float(sign_flip_test(g, alternative=tests.alternative).pvalue) if g.size else None for g in gaps]
        adjusted = adjust(ps, tests.correction)
        groups = [BlockGap(dict(key), float(np.mean(g)) if g.size else float("nan"), p)
                  for key, g, p in zip(keys.iter_rows(named=True), gaps, adjusted)]
        grouped = table.select(*blocks, "item", pl.col(effect).alias("gap"))
        out.append((name, block_agreement(grouped, groups, blocks, tests, a=a, b=b, family=len(read))))
    return tuple(out)


def with_agreements(verdict, agreements: Sequence, blocks: Sequence[str]):
    """``verdict`` with the blocks its effects average over: ``agreement`` the first main effect's reading,
    ``pooled`` the verdict line's phrase, ``blocks``, and the ``blocks_disagree`` caveat when the blocks
    disagree on some effect (the verdict unchanged without blocks).

    >>> from types import SimpleNamespace as NS
    >>> from probestats.analyses.verdict import decide_effects
    >>> v = decide_effects([("style", 0.01)], alpha=0.05)
    >>> one = NS(n_blocks=5, noun="models", disagree=True, opposite=False, higher=(), not_detected=("m1",),
    ...          reasons="their item gaps differ", driving=NS(block="m0", alone=True), to_dict=lambda: {})
    >>> w = with_agreements(v, [("style", one), ("name", NS(disagree=False))], ["model"])
    >>> w.pooled, [c.id for c in w.caveats][-1]
    ('averaged over 5 models that disagree on style (m0 drives the pooled gap)', 'blocks_disagree')
    >>> w.caveats[-1].sentence
    'The 5 models disagree on style: their item gaps differ. The average over them is not the effect of any one of them: read the results per model.'
    >>> both = NS(n_blocks=2, noun="models", disagree=True, opposite=False, higher=("a", "b"), not_detected=(),
    ...           reasons="their item gaps differ", driving=None, to_dict=lambda: {})
    >>> w = with_agreements(v, [("style", both)], ["model"])
    >>> w.pooled, w.caveats[-1].sentence[:52]
    ('averaged over 2 models whose style gaps differ in size', 'The style gaps of the 2 models differ in size: their')
    """
    read = [(name, a) for name, a in agreements if a is not None]
    if not read:
        return verdict
    first = read[0][1]
    found = [(name, a) for name, a in read if a.disagree]
    if not found:
        return replace(verdict, agreement=first, blocks=tuple(blocks),
                       pooled=f"averaged over {first.n_blocks} {first.noun}")
    lead = found[0][1]
    one_way = all(not a.opposite and not a.not_detected for _, a in found)
    on = " and ".join(name for name, _ in found)
    clause = drivers_clause([a for _, a in found])
    what = f"whose {on} gaps differ in size" if one_way else f"that disagree on {on}"
    pooled = f"averaged over {lead.n_blocks} {lead.noun} {what}" + (f" ({clause})" if clause else "")
    reasons = "; ".join(f"for {name}, {a.reasons}" if len(found) > 1 else a.reasons for name, a in found)
    said = (f"The {on} gaps of the {lead.n_blocks} {lead.noun} differ in size" if one_way
            else f"The {lead.n_blocks} {lead.noun} disagree on {on}")
    sentence = (f"{said}: {reasons}. The average over them is not the effect of any one of "
                f"them: read the results per {' x '.join(blocks)}.")
    caveat = Caveat("blocks_disagree", sentence, {"effects": [{"effect": name, **a.to_dict()} for name, a in found]})
    return with_caveats(verdict, caveat, agreement=first, blocks=tuple(blocks), pooled=pooled)
