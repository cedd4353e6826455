"""Several metrics in words: the groups × metrics grid of the chosen effect size with the family-corrected p,
every test beside it, and the sentences (the terminal and the report read the same context)."""

from __future__ import annotations

from probestats.errors import count_of
from probestats.present.words.effects import effect_text
from probestats.present.words.fmt import fmt_p
from probestats.present.words.verdict import caveat_sentences, verdict_line

__all__ = ["group_label", "metrics_context"]


def group_label(by: dict) -> str:
    """A group as a row label (``all items`` without ``--by``)."""
    return ", ".join(f"{k} = {v}" for k, v in by.items()) or "all items"


def _test_p(result, name: str):
    t = next((t for t in getattr(result, "published", ()) if t.name == name), None)
    return None if t is None else t.pvalue


def metrics_context(analysis) -> dict:
    """The grid (groups × metrics), the list of every test, and the sentences."""
    alpha, name = analysis.alpha, analysis.effect_size
    grid, tests = [], []
    for by in analysis.groups:
        cells = []
        for m in analysis.metrics:
            cell = analysis.cell(m, by)
            if cell is None:
                cells.append({"text": "n/a"})
                continue
            r = cell.result
            star = r.p_adjusted is not None and r.p_adjusted <= alpha
            e = r.effects.get(name) if r.effects is not None else None
            cells.append({"text": f"{effect_text(e).split(' = ', 1)[-1]}, p {fmt_p(r.p_adjusted, alpha)}"
                                  + (" *" if star else "")})
        grid.append({"group": group_label(by), "cells": cells})
    for t in analysis.family:
        r = t.result
        e = r.effects
        tests.append({"metric": t.metric, "group": group_label(t.by), "n_items": r.n_items,
                      "average_gap": r.average_gap, "p": r.sign_flip.pvalue, "p_adjusted": r.p_adjusted,
                      "chosen": "n/a" if e is None else effect_text(e.get(name)).split(" = ", 1)[-1],
                      "d_z": "n/a" if e is None else effect_text(e.d_z).split(" = ", 1)[-1],
                      "d_av": "n/a" if e is None else effect_text(e.d_av).split(" = ", 1)[-1],
                      "t_p": _test_p(r, "paired t"), "w_p": _test_p(r, "wilcoxon")})
    first = next((t.result.effects for t in analysis.family if t.result.effects is not None), None)
    effect_name = first.get(name).name if first is not None else name
    found = set(analysis.verdict.found)   # decided once, in the analysis
    detected = [t for t in analysis.family
                if t.metric + (f" ({', '.join(f'{k} = {v}' for k, v in t.by.items())})" if t.by else "") in found]
    sentences = [f"Test: the exact sign-flip test on the item gaps of each metric and group "
                 f"({analysis.analyses[0].alternative}), p corrected by {analysis.family_text}, alpha {alpha:g}.",
                 f"Beside it, named: {first.d_z.formula if first else 'd_z'}; "
                 f"{first.d_av.formula if first else 'd_av'}; the paired t-test (it assumes "
                 "roughly normal item gaps) and the Wilcoxon signed-rank test (it assumes gaps symmetric about "
                 "their median), both uncorrected."]
    if detected:
        sentences.append("After correction, a gap larger than chance in "
                         + "; ".join(f"{t.metric} ({group_label(t.by)})" for t in detected[:12])
                         + ("; ..." if len(detected) > 12 else "") + ". It says where the gap is, not why.")
    rest = len(analysis.family) - len(detected)
    if rest:
        sentences.append(f"In {count_of(rest, 'other cell') if detected else 'every cell'} the probe did not detect a "
                         "gap larger than chance after correction; this does not show that the system is unbiased "
                         "there, only that these items and runs could not tell a gap from chance.")

    sentences.append(verdict_line(analysis.verdict))
    sentences += caveat_sentences(analysis.verdict)   # blocks that disagree within a metric, the family's floor
    return {"metrics": analysis.metrics, "grid": grid, "tests": tests, "effect_name": effect_name,
            "confidence": f"{first.d_z.confidence:.0%}" if first else "95%", "family": analysis.family_text,
            "correction": analysis.family_text.split(" over ")[0], "sentences": sentences}
