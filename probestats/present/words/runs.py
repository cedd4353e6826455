"""The runs of a probe in words: per value, and per block when the items are blocked."""

from __future__ import annotations

from probestats.analyses.halves import block_noun
from probestats.present.words.fmt import fmt_num

__all__ = ["runs_phrase", "runs_words"]


def runs_phrase(items) -> str:
    """'20 runs per value', or the range when items differ."""
    if items.height == 0:
        return "no runs"
    counts = items["n_a"].to_list() + items["n_b"].to_list()
    lo, hi = min(counts), max(counts)
    if lo == hi:
        return f"{lo} run{'s' if lo != 1 else ''} per value"
    return f"{lo} to {hi} runs per value"


def runs_words(main, verdict) -> str:
    """The runs per value; the runs of a blocked item are its blocks' runs together, so the runs of one
    block come first ("1 run per value in each model (9 over all models)"): a count of runs never counts
    the models."""
    runs = runs_phrase(main.items)
    blocks = getattr(verdict, "blocks", ())
    if not blocks:
        return runs

    items = main.items
    over = f"over all {block_noun(blocks, 2)}"
    if "n_blocks" not in items.columns or items.height == 0:
        return f"{runs} {over}"
    per = [n / k for n, k in zip(items["n_a"].to_list() + items["n_b"].to_list(),
                                 items["n_blocks"].to_list() * 2) if k]
    lo, hi = min(per), max(per)
    one = block_noun(blocks, 1)
    if lo == hi == 1:   # every block value present ran once: exactly one run per value in each
        return f"1 run per value in each {one} ({runs.replace(' per value', '')} {over})"
    span = f"{fmt_num(lo, 3)}" if lo == hi else f"{fmt_num(lo, 3)} to {fmt_num(hi, 3)}"
    return f"{runs} {over} ({span} per {one} on average)"
