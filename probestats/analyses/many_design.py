"""The design checks of a many-values verdict: values constant by construction, and ``by`` groups that disagree.

A many-values verdict rests on the omnibus test over every item. Two facts of the design weaken it, and
each becomes a named caveat (:class:`probestats.checks.design_facts.Caveat`) in the Summary, on the terminal and
in JSON:

- **a constant value** (``constant_arm``): a value whose metric is one and the same number in every run of
  at least :data:`probestats.checks.design_facts.CONSTANT_SHARE` of the items (a flip counted against it, a
  share of changed answers). The gaps against it then only ask whether the other values differ from that
  constant; with no noise or control reference beside a comparison of several values, such a gap cannot be
  told from re-asking noise. A value constant in one ``by`` group only is ``constant_arm_in_groups``.
- **groups that disagree** (``blocks_disagree``): with ``by`` groups, for each pair of values (each value
  against the reference when the pairs are too many to test one by one),
  :func:`probestats.analyses.blocks.block_agreement` reads the groups' directions and, for the gaps against
  the reference, their item gaps (the within-item permutation test that the group makes no difference to
  the gap). A group counts
  as higher or lower for a value when its omnibus p corrected across the groups and its gap's p corrected
  across the pairs are both at most alpha. The headline averages the groups' runs; when they go opposite
  ways (or their gaps differ by more than chance) that average is the gap of none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import polars as pl

from probestats.analyses.blocks import block_agreement
from probestats.checks.design_facts import (MAX_GROUP_CLAUSES, Caveat, constant_text, constant_values,
                                            grouped_constants_clause, share_text)

__all__ = ["constant_caveats", "agreement_caveat", "pair_agreements", "headline_agreement", "PairAgreement"]

#: what a constant value means, after the sentence that names it
_CONSTANT_MEANS = ("A constant value usually means the metric is defined relative to it, and without a noise or "
                   "control reference (the same question asked again without the change) a gap against it cannot "
                   "be told from re-asking noise.")


def _asks(constant: Sequence[str], units: Sequence[str], figures: Sequence[float]) -> str:
    """What the gaps against the constant values still ask, in words."""
    others = [u for u in units if u not in constant]
    who = (f"'{others[0]}' differs" if len(others) == 1 else "the other values differ" if others
           else "these constants differ from one another")
    if not others:
        return who
    return f"{who} from {'a constant ' + constant_text(figures[0]) if len(constant) == 1 else 'those constants'}"


def constant_caveats(frame: pl.DataFrame, metric: str, units: Sequence[str],
                     results: Sequence = ()) -> tuple[Caveat, ...]:
    """The constant values of a many-values analysis, over every item and in each ``by`` group.

    ``frame`` is the checked frame with its ``_unit`` column (the value, or the group a name stands for);
    ``results`` the per-group results (each with its ``by``).

    >>> rows = pl.DataFrame({"item": [str(i // 3) for i in range(36)], "_unit": ["a", "b", "b"] * 12,
    ...                      "x": [1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 1.0] * 3})
    >>> [(c.id, c.figures) for c in constant_caveats(rows, "x", ["a", "b"])]   # doctest: +NORMALIZE_WHITESPACE
    [('constant_arm', {'values': [{'value': 'a', 'constant': 1.0, 'share_of_items': 1.0}], 'n_items': 12})]
    >>> print(constant_caveats(rows, "x", ["a", "b"])[0].sentence)   # doctest: +NORMALIZE_WHITESPACE
    'a' gives x = 1 in every run of every item, so the gaps against it only ask whether 'b' differs from a
    constant 1. A constant value usually means the metric is defined relative to it, and without a noise or
    control reference (the same question asked again without the change) a gap against it cannot be told from
    re-asking noise.
    """
    out = []
    whole, n_items = constant_values(frame, metric, units, value="_unit")
    if whole:
        named = " and ".join(f"'{u}' gives {metric} = {constant_text(c)} in every run of {share_text(s)}"
                             for u, (c, s) in whole.items())
        out.append(Caveat(
            "constant_arm",
            f"{named}, so the gaps against {'it' if len(whole) == 1 else 'them'} only ask whether "
            f"{_asks(list(whole), units, [c for c, _ in whole.values()])}. {_CONSTANT_MEANS}",
            {"values": [{"value": u, "constant": c, "share_of_items": s} for u, (c, s) in whole.items()],
             "n_items": n_items}))
    found, parts = [], []
    for g in results:
        mask = pl.all_horizontal([pl.col(k).cast(pl.String) == str(v) if v is not None else pl.col(k).is_null()
                                  for k, v in g.by.items()])
        here, _ = constant_values(frame.filter(mask), metric, units, value="_unit")
        here = {u: cs for u, cs in here.items() if u not in whole}
        if not here:
            continue
        label = ", ".join(f"{k} = {v}" for k, v in g.by.items())
        parts.append(f"In {label}, " + " and ".join(
            f"'{u}' gives {metric} = {constant_text(c)} in every run of {share_text(s)}" for u, (c, s) in here.items())
            + f", so there the gaps against {'it' if len(here) == 1 else 'them'} only ask whether "
            f"{_asks(list(here), units, [c for c, _ in here.values()])}")
        others = [u for u in units if u not in here]
        found += [{"by": {k: (None if v is None else str(v)) for k, v in g.by.items()}, "value": u,
                   "other": others[0] if len(units) == 2 and others else None, "constant": c, "share_of_items": s}
                  for u, (c, s) in here.items()]
    if len(parts) > MAX_GROUP_CLAUSES:   # one clause per group would repeat itself: one sentence with a count
        parts = [grouped_constants_clause(
            [(", ".join(f"{k} = {v}" for k, v in f["by"].items()), f["value"], f["constant"], f["share_of_items"])
             for f in found], metric, len(groups),
            "so there the gaps against it only ask whether the other values differ from that constant")]
    if parts:
        out.append(Caveat("constant_arm_in_groups", "; ".join(parts) + ". " + _CONSTANT_MEANS, {"groups": found}))
    return tuple(out)


#: why a pair of values neither of which is the reference is read for its directions only
UNTESTED = ("the groups' heterogeneity is tested on the gaps against the reference (one test per value); a pair "
            "without the reference is read for its directions only")


#: the resamples a heterogeneity test draws first; more only while its p's interval holds alpha
FIRST = 1_000


@dataclass(frozen=True)
class _Group:
    """One ``by`` group's result for one value against the reference, as the agreement reads it."""

    by: dict
    average_gap: float
    p_adjusted: float | None


@dataclass(frozen=True)
class PairAgreement:
    """The agreement of the blocks (or ``by`` groups) on one pair of values, ``value`` against ``other``: a
    :class:`~probestats.analyses.blocks.BlockAgreement` (every attribute of it read through), whose ``to_dict()``
    leads with the pair, as the ``blocks_disagree`` caveat's figures do."""

    value: str
    other: str
    agreement: object

    def __getattr__(self, name):
        if name.startswith("__") or name == "agreement":   # copying or unpickling: not yet set
            raise AttributeError(name)
        return getattr(self.agreement, name)

    def to_dict(self) -> dict:
        return {"value": self.value, "other": self.other, **self.agreement.to_dict()}


def headline_agreement(read: Sequence[PairAgreement]) -> PairAgreement | None:
    """The one agreement a many-values verdict carries (JSON ``verdict.blocks_agree``, as a pair's does), from
    ``read`` (each pair's, in the order compared): among the pairs whose blocks were tested (the gaps against the
    reference), those that disagree before those that agree, then the smallest heterogeneity p, then the first;
    the first pair read when none was tested; None when there is none.

    >>> from types import SimpleNamespace as NS
    >>> read = [PairAgreement("b", "a", NS(disagree=False, test=NS(pvalue=0.2))),
    ...         PairAgreement("c", "a", NS(disagree=True, test=NS(pvalue=0.01))),
    ...         PairAgreement("c", "b", NS(disagree=True, test=None))]
    >>> headline_agreement(read).value, headline_agreement(read[:1]).disagree, headline_agreement([])
    ('c', False, None)
    """
    tested = [r for r in read if r.test is not None]
    if not tested:
        return read[0] if read else None
    return min(tested, key=lambda r: (not r.disagree, r.test.pvalue))


def pair_agreements(results: Sequence, tests) -> tuple[PairAgreement, ...]:
    """Each pair of values' :class:`PairAgreement` of the ``by`` groups (or blocks) of a many-values analysis, read
    as :func:`agreement_caveat` describes; empty with fewer than two groups."""
    n_resamples = tests.n_resamples
    if len(results) < 2:
        return ()
    columns = list(results[0].by)
    reference = results[0].reference
    means = [_item_means(g) for g in results]
    read = []
    for pair in (results[0].pairwise or results[0].gaps):
        a, b = pair.a, pair.b
        rows, blocks = [], []
        for g, cells in zip(results, means):
            by = {k: None if v is None else str(v) for k, v in g.by.items()}
            rows += [{**by, "item": item, "gap": m[a] - m[b]} for item, m in cells.items()
                     if m.get(a) is not None and m.get(b) is not None]
            gap = next((x for x in (*g.pairwise, *g.gaps) if (x.a, x.b) == (a, b)), None)
            p = None if gap is None or g.omnibus_p_adjusted is None or gap.p_adjusted is None else max(
                g.omnibus_p_adjusted, gap.p_adjusted)
            blocks.append(_Group(g.by, float("nan") if gap is None else gap.average_gap, p))
        grouped = pl.DataFrame(rows, schema={**{c: pl.String for c in columns}, "item": pl.String,
                                             "gap": pl.Float64})
        against = reference in (a, b)   # the heterogeneity test on the gaps against the reference only
        agreement = block_agreement(grouped, blocks, columns, tests, a=a, b=b, untested=None if against else UNTESTED,
                                    first=max(FIRST, n_resamples // 10), family=len(results[0].gaps))
        if agreement is not None:
            read.append(PairAgreement(a, b, agreement))
    return tuple(read)


def agreement_caveat(results: Sequence, tests, read: Sequence[PairAgreement] | None = None) -> tuple[Caveat, ...]:
    """``blocks_disagree`` when, for some pair of values (every pair tested one by one, else each value against
    the reference), the ``by`` groups disagree (:func:`probestats.analyses.blocks.block_agreement`);
    ``results`` are the per-group results, ``tests`` the level and resampling. The heterogeneity test (one within-item permutation test per pair,
    as costly as an omnibus test) is run on the gaps against the reference only; a pair without the
    reference disagrees when significant groups go opposite ways (:data:`UNTESTED`). Its Monte Carlo draws
    :data:`FIRST` resamples (or a tenth of ``n_resamples``, if more) and adds more only while its p's interval
    holds alpha: only whether p is at most alpha is read from it, and its method says how many it drew.
    With several values against the reference, each of their tests is read at alpha divided by their
    number (Bonferroni), so that groups that agree are said to disagree about as rarely as with two values.

    Its figures are ``{"values": [...]}``, one agreement (``BlockAgreement.to_dict()`` with the pair's
    ``value`` and ``other``, the gap ``value`` minus ``other``) per pair whose groups disagree. ``read``: the
    pairs' agreements already read (:func:`pair_agreements`), else they are read here.
    """
    if len(results) < 2:
        return ()
    columns = list(results[0].by)
    read = pair_agreements(results, tests) if read is None else read
    found = [r.agreement for r in read if r.disagree]
    figures = [r.to_dict() for r in read if r.disagree]
    if not found:
        return ()
    first = found[0]
    if len(found) == 1:
        sentence = first.statement
    else:
        on = "; ".join(f"on '{f['value']}' against '{f['other']}', {r.reasons}" for f, r in zip(figures, found))
        verb = "disagree" if any(r.opposite for r in found) else "differ"
        sentence = (f"The {first.n_blocks} {first.noun} {verb} on {len(found)} pairs of values: {on}. The average "
                    f"over them is not the gap of any one of them: read the results per {' x '.join(columns)}.")
    return (Caveat("blocks_disagree", sentence, {"values": figures}),)


def _item_means(result) -> dict:
    """A group's item means, ``{item: {value: mean}}``."""
    cells: dict = {}
    for r in result.items.iter_rows(named=True):
        cells.setdefault(r["item"], {})[r["value"]] = r["mean"]
    return cells
