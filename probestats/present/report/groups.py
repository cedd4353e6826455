"""Report sections beyond the one pair: ``--by`` groups, many values, two factors, a judge's scale,
before and after.

Each ``*_context`` function turns one result into plain data and sentences for its
templates (``<section>.md.j2`` / ``<section>.html.j2``); it reads the result only (no
log, no simulation). Every section names its test and its correction, states a null
result with its conditions and size, and never claims that a system is unbiased.
"""

from __future__ import annotations

from probestats.analyses.verdict import has_reference
from probestats.checks.design_facts import constant_text
from probestats.checks.facts import pooled_in_cells, pooled_phrase
from probestats.errors import count_of
from probestats.present.words.correction import correction_name
from probestats.present.words.effects import effect_text, published_text
from probestats.present.words.fmt import p_is
from probestats.present.words.fmt import fmt_interval, fmt_num, fmt_p
from probestats.present.words.verdict import verdict_line
from probestats.stats.permutation import PERMUTATION_TEST
from probestats.stats.selection import NOTE, POOLED, THRESHOLD

__all__ = ["groups_context", "many_context", "factors_context",
           "ceilings_context", "compare_context", "pooled_words"]

SIGN_FLIP = "exact sign-flip test on the item gaps"
OMNIBUS = "within-item permutation test that the value makes no difference (omnibus)"


def _gap(x) -> str:
    if x is None or x != x:
        return "n/a"
    return "0" if x == 0 else f"{float(x):+.4g}"


def _by_text(by: dict) -> str:
    return ", ".join(f"{k} = {v}" for k, v in by.items())


def _runs_text(runs: list[int]) -> str:
    if not runs:
        return "no runs"
    lo, hi = min(runs), max(runs)
    return f"{lo} run{'s' if lo != 1 else ''}" if lo == hi else f"{lo} to {hi} runs"


# ---------------------------------------------------------------------------- --by groups of a pair


def _undetected_text(row: dict) -> str:
    return f"{_by_text(row['by'])}: {_gap(row['average_gap'])} over {count_of(row['n_items'], 'item')}"


def _span(counts) -> str:
    """The runs of a table's items: one number, or the range when they differ ("2-3").

    >>> _span([3, 3]), _span([2, 3, 2])
    ('3', '2-3')
    """
    counts = [int(c) for c in counts]
    if not counts:
        return "0"
    lo, hi = min(counts), max(counts)
    return f"{lo}" if lo == hi else f"{lo}-{hi}"


def groups_context(analysis, *, plain: bool = False) -> dict:
    """The ``--by`` groups of a paired analysis: per group, the sign-flip p and its corrected p."""
    alpha = analysis.alpha
    correction = correction_name(analysis.correction)
    keys = list(analysis.groups[0].by) if analysis.groups else []
    rows = []
    for g in analysis.groups:
        n_nonzero = sum(1 for x in g.gaps if x != 0)
        rows.append({"by": {k: str(v) for k, v in g.by.items()}, "n_items": g.n_items,
                     "runs": f"{_span(g.items['n_a'])} / {_span(g.items['n_b'])}", "average_gap": g.average_gap,
                     "p": g.sign_flip.pvalue, "p_adjusted": g.p_adjusted,
                     "never": g.min_attainable_p > alpha, "n_nonzero": n_nonzero,
                     # too few items: even with every gap non-zero the smallest p (2/2**n two-sided) exceeds alpha
                     "few_items": 2.0 ** (1 - g.n_items) > alpha, "method": g.sign_flip.method,
                     "detected": g.p_adjusted is not None and g.p_adjusted <= alpha, **group_effects(g)})
    methods = list(dict.fromkeys(r["method"] for r in rows))
    method = methods[0] if len(methods) == 1 else ""
    own = ("; ".join(f"{_by_text(r['by'])}: {r['method']}" for r in rows) if len(methods) > 1 else method)
    test = (f"Test: the {SIGN_FLIP} of each group ({analysis.alternative}; {own}), "
            f"p corrected across the {count_of(len(rows), 'group')} ({correction}), alpha {alpha:g}.")
    constants = group_constants(analysis)
    for r in rows:
        arm = constants.get(tuple(sorted(r["by"].items())))
        r["constant"] = arm
        r["conclusion"] = ("not_detected" if not r["detected"] else "against_constant" if arm is not None
                           else "detected")
    detected = [r for r in rows if r["conclusion"] == "detected"]
    against = [r for r in rows if r["conclusion"] == "against_constant"]
    sentences = [test]
    if detected:
        sentences.append("After correction, a gap larger than chance in "
                         + "; ".join(f"{_by_text(r['by'])} (average gap {_gap(r['average_gap'])}, corrected p = "
                                     f"{fmt_p(r['p_adjusted'], alpha)})" for r in detected)
                         + ". It says where the gap is, not why.")
    if against:   # one value constant there: the test asked only whether the other differs from that constant
        sentences.append(
            f"After correction, in {count_of(len(against), 'group')} whose one value is constant the other differs "
            "from that constant, the only thing the test asks there, not a gap larger than chance between two "
            "varying values: "
            + "; ".join(f"{_by_text(r['by'])} ('{r['constant']['other']}' against a constant "
                        f"{constant_text(r['constant']['constant'])} of '{r['constant']['value']}', average gap "
                        f"{_gap(r['average_gap'])}, corrected p = {fmt_p(r['p_adjusted'], alpha)})"
                        for r in against[:8])
            + f"{'; ...' if len(against) > 8 else ''}. Without a noise or control reference this cannot be told "
            "from re-asking noise.")
        detected = detected + against
    undetected = [r for r in rows if not r["detected"]]
    if undetected:
        sentences.append(
            f"{'No group' if not detected else 'In the other ' + count_of(len(undetected), 'group')} "
            f"{'showed' if not detected else 'the probe did not detect'} a gap larger than chance after correction"
            f" ({'; '.join(_undetected_text(r) for r in undetected[:8])}"
            f"{'; ...' if len(undetected) > 8 else ''}); this does not show that the system is unbiased there, "
            "only that these items and runs could not tell a gap from chance.")
    few = [r for r in rows if r["never"] and r["few_items"]]
    tied = [r for r in rows if r["never"] and not r["few_items"]]
    if few:
        sentences.append(f"{count_of(len(few), 'group')} had too few items to ever reach significance "
                         f"({'; '.join(_by_text(r['by']) for r in few[:8])}).")
    if tied:
        sentences.append(f"{count_of(len(tied), 'group')} had enough items but too few non-zero gaps (the other "
                         "items' gaps are exactly zero, ties the test cannot use) to ever reach significance ("
                         + "; ".join(f"{_by_text(r['by'])}: {r['n_nonzero']} non-zero of {count_of(r['n_items'], 'item')}"
                                     for r in tied[:8]) + ").")
    if rows and rows[0]["d_z"] is not None and plain:
        sentences.append(f"Beside the exact test: the gap against the spread of the item gaps and against the "
                         f"spread across items, with {rows[0]['confidence']} intervals, and the p of the test that "
                         "assumes roughly normal item gaps (uncorrected); how each was computed is in the method "
                         "details.")
    elif rows and rows[0]["d_z"] is not None:
        sentences.append(f"Beside the exact test: d_z and d_av with {rows[0]['confidence']} intervals "
                         f"({rows[0]['d_z_formula']}; {rows[0]['d_av_formula']}) and the paired t-test's p "
                         f"(on the item means, uncorrected; it assumes roughly normal item gaps).")
    return {"keys": keys, "rows": rows, "correction": correction, "method": method, "sentences": sentences}


def group_constants(analysis) -> dict:
    """The groups whose one value is constant (the verdict's ``constant_arm_in_groups``, or every group when the
    whole log's arm is constant), keyed by the group's sorted ``(column, value)`` pairs, each
    ``{"value", "other", "constant"}``; empty when the verdict has a noise or control reference, which the
    gap is then read against."""
    verdict = analysis.verdict
    if has_reference(verdict):
        return {}
    out = {}
    for c in verdict.caveats:
        if c.id == "constant_arm_in_groups":
            for g in c.figures.get("groups", ()):
                if g.get("other") is not None:
                    key = tuple(sorted((k, str(v)) for k, v in g["by"].items()))
                    out.setdefault(key, {"value": g["value"], "other": g["other"], "constant": g["constant"]})
        elif c.id == "constant_arm" and "value" in c.figures:
            whole = {"value": c.figures["value"], "other": c.figures["other"], "constant": c.figures["constant"]}
            for g in analysis.groups:
                out.setdefault(tuple(sorted((k, str(v)) for k, v in g.by.items())), whole)
    return out


def group_effects(g) -> dict:
    """A group's effect sizes and paired t p, as the groups table shows them."""
    e = getattr(g, "effects", None)
    t = next((t for t in getattr(g, "published", ()) if t.name == "paired t"), None)
    if e is None:
        return {"d_z": None, "d_av": None, "t_p": None}
    def shown(x):
        return "undefined" if x is None or x.value is None else effect_text(x).split(" = ", 1)[-1]

    return {"d_z": shown(e.d_z), "d_av": shown(e.d_av),
            "d_z_name": e.d_z.name, "d_av_name": e.d_av.name, "d_z_formula": e.d_z.formula,
            "d_av_formula": e.d_av.formula, "confidence": f"{e.d_z.confidence:.0%}",
            "t_p": None if t is None else t.pvalue}


# ---------------------------------------------------------------------------- many values


def _interval_text(iv) -> str:
    """An interval's ends for a report's cell ('' when there is none)."""
    return "" if iv is None else fmt_interval(iv)


#: How a many-values report's intervals are computed, said once under its table
MANY_INTERVALS = ("Intervals: 95%, the Student t interval over the items (n − 1 degrees of freedom) of each "
                  "value's item means and of each gap's item gaps; they assume independent items and roughly "
                  "normal item means and gaps, and are not corrected across values or pairs")


def _many_result(res, alpha: float) -> dict:
    gaps = {g.a: g for g in res.gaps}
    ratios = {r.value: r for r in res.impact_ratios or ()}
    runs = [int(x) for x in res.items["runs"].to_list()] if "runs" in res.items.columns else []
    values = []
    for v in res.values:
        g = gaps.get(v.value)
        r = ratios.get(v.value)
        values.append({"value": v.value, "names": list(v.names), "mean": v.mean, "reference": g is None,
                       "sd_runs": getattr(v, "sd_runs", None),
                       "gap": None if g is None else g.average_gap,
                       "interval": _interval_text(getattr(v, "interval", None)),
                       "gap_interval": None if g is None else _interval_text(getattr(g, "interval", None)),
                       "p": None if g is None else g.sign_flip.pvalue,
                       "p_adjusted": None if g is None else g.p_adjusted,
                       "ratio": None if r is None else r.ratio, "below": bool(r and r.below_four_fifths),
                       "rate": None if r is None else r.rate,
                       "item_mean": None if r is None or r.mean_of_items is None
                       or fmt_num(r.mean_of_items) == fmt_num(r.rate) else r.mean_of_items})
    o = res.omnibus
    pairwise = [{"a": g.a, "b": g.b, "gap": g.average_gap, "p": g.sign_flip.pvalue, "p_adjusted": g.p_adjusted,
                 "interval": _interval_text(getattr(g, "interval", None))} for g in res.pairwise]
    return {"by": {k: str(v) for k, v in res.by.items()}, "n_items": res.n_items, "runs": _runs_text(runs),
            "values": values, "selection": res.impact_ratios is not None,
            "omnibus": {"p": o.pvalue, "method": o.method, "statistic": o.statistic,
                        "p_adjusted": res.omnibus_p_adjusted, "p_text": p_is(o, alpha)},
            "pairwise": pairwise, "pair_method": res.pairwise[0].sign_flip.method if res.pairwise else "",
            # two groups of unequal size: the pair's test is the within-item permutation, not the sign-flip
            **({"pair_test": "permutation p", "pair_test_name": PERMUTATION_TEST}
               if res.pairwise and "permutation" in res.pairwise[0].sign_flip.method else
               {"pair_test": "sign-flip p", "pair_test_name": f"the {SIGN_FLIP}"}),
            "published": [f"{published_text(t)} ({t.method}; assumes {t.assumption})"
                          for t in getattr(res, "published", ())],
            "intervals": MANY_INTERVALS if any(v["interval"] for v in values) else ""}


#: Items listed by name in the many-values per-item gap table before the rest are summed up.
ITEM_GAP_LIMIT = 40
#: Pairs of values the pairwise table shows; beyond, the pairs with the smallest corrected p (all in a CSV beside).
PAIR_LIMIT = 40


def _pairwise_rows(pairs: list[dict], alpha: float, limit: int = PAIR_LIMIT) -> tuple[list[dict], str]:
    """The rows of the pairwise table, and a note of the rest: beyond ``limit`` pairs (946 for 44 values), the
    pairs with the smallest corrected p (those at or below alpha first), in their own order.

    >>> pairs = [{"a": str(i), "b": "r", "p": i / 100, "p_adjusted": min(1.0, i / 10)} for i in range(1, 51)]
    >>> shown, note = _pairwise_rows(pairs, 0.05)
    >>> len(shown), shown[0]["a"], note[:59]
    (40, '1', 'The table shows the 40 of the 50 pairs with the smallest co')
    """
    if len(pairs) <= limit:
        return pairs, ""
    ranked = sorted(range(len(pairs)), key=lambda k: (pairs[k]["p_adjusted"] if pairs[k]["p_adjusted"] is not None
                                                      else 1.0, pairs[k]["p"], k))[:limit]
    found = sum(1 for g in pairs if g["p_adjusted"] is not None and g["p_adjusted"] <= alpha)
    note = (f"The table shows the {limit} of the {len(pairs)} pairs with the smallest corrected p "
            f"({found} of the {len(pairs)} at or below alpha {alpha:g}"
            + (f", so {found - limit} of those are left out here" if found > limit else "")
            + "); every pair is in the whole table of pairs and the JSON report (pairwise).")
    return [pairs[k] for k in sorted(ranked)], note


def _item_gap_rows(res, order: list[str]) -> tuple[list[dict], str]:
    """Per item, each value's gap against the reference with its runs (``gap (runs/reference runs)``);
    beyond :data:`ITEM_GAP_LIMIT` items, the items with the largest gap in size, and a note of the rest."""
    cells: dict[str, dict] = {}
    for g in res.item_gaps():
        cells.setdefault(g["item"], {})[g["value"]] = g
    others = [v for v in order if v != res.reference]
    rows = [{"item": item, "cells": [None if v not in c else
                                     f"{_gap(c[v]['gap'])} ({c[v]['runs']}/{c[v]['reference_runs']} runs)"
                                     for v in others],
             "size": max((abs(c[v]["gap"] or 0.0) for v in c), default=0.0)} for item, c in cells.items()]
    note = ""
    if len(rows) > ITEM_GAP_LIMIT:
        note = (f"The {ITEM_GAP_LIMIT} items with the largest gap in size are shown; the other "
                f"{len(rows) - ITEM_GAP_LIMIT} are in the whole table (every item and value) and the JSON report "
                "(item_gaps).")
        rows = sorted(rows, key=lambda r: -r["size"])[:ITEM_GAP_LIMIT]
    return rows, note


def many_context(analysis) -> dict:
    """Many values (``--reference`` / ``--group``): means, gaps against the reference, omnibus, Holm pairwise,
    and selection rates with impact ratios for a 0/1 metric."""
    alpha = analysis.alpha
    main = analysis.main
    correction = correction_name(main.correction)
    ctx = _many_result(main, alpha)
    ctx["n_pairs"] = len(ctx["pairwise"])
    ctx["pairs_left_out"] = f"{main.pairs_left_out:,}" if main.pairs_left_out else ""
    ctx["pairwise"], ctx["pairwise_note"] = _pairwise_rows(ctx["pairwise"], alpha)
    ctx["pairwise_csv"] = None
    order = [v.value for v in main.values]
    means: dict[str, dict] = {}
    for r in main.items.iter_rows(named=True):
        means.setdefault(str(r["item"]), {})[r["value"]] = r["mean"]
    ctx["item_rows"] = [{"item": item, "means": [m.get(v) for v in order]} for item, m in means.items()]
    ctx["item_gaps"], ctx["item_gaps_note"] = _item_gap_rows(main, order)
    # beyond ITEM_GAP_LIMIT items both per-item tables show the same items; the whole table is written beside
    ctx["item_gaps_rest"] = max(0, len(ctx["item_rows"]) - len(ctx["item_gaps"])) if ctx["item_gaps_note"] else 0
    if ctx["item_gaps_rest"]:
        shown = {r["item"] for r in ctx["item_gaps"]}
        ctx["item_rows"] = [r for r in ctx["item_rows"] if r["item"] in shown]
    ctx["item_gaps_csv"] = None

    # a setting varying inside the cells (7 models, one run each): a count of runs there counts the models
    ctx["pooled"] = pooled_phrase(pooled_in_cells(analysis.frame)) if getattr(analysis, "frame", None) is not None \
        else ""
    ctx.update(metric=main.metric, reference=main.reference, correction=correction, alpha=alpha,
               groups=[_many_result(g, alpha) for g in analysis.groups],
               group_correction=correction_name(analysis.correction),
               four_fifths={"threshold": THRESHOLD, "note": NOTE})
    o = main.omnibus
    names = [v.value for v in main.values]
    conditions = (f"with these {count_of(main.n_items, 'item')}, the {len(names)} values "
                  f"{', '.join(repr(v) for v in names[:12])}{', ...' if len(names) > 12 else ''}, "
                  f"the metric {main.metric}, and {ctx['runs']} per item and value{ctx['pooled']}")
    sentences = [
        f"Tests: the {OMNIBUS} ({o.method}); gaps against the reference '{main.reference}' and every pair of "
        f"values with {ctx['pair_test_name']}, p corrected across the {count_of(len(main.pairwise), 'pair')} "
        f"({correction})."
        if not main.pairs_left_out else
        f"Tests: the {OMNIBUS} ({o.method}); gaps against the reference '{main.reference}' with "
        f"{ctx['pair_test_name']}, p corrected across the {count_of(len(main.gaps), 'gap')} ({correction}); the "
        f"{main.pairs_left_out:,} pairs of values are more than the limit tested one by one."]
    side = next((g.sign_flip.alternative for g in (*main.pairwise, *main.gaps)), "two-sided")
    if side != "two-sided":   # one orientation in every table: a gap is value − reference, a pair a − b
        sentences.append(f"The tests are one-sided: each row tests the first value {'below' if side == 'less' else 'above'} "
                         f"the second (a gap: the value {'below' if side == 'less' else 'above'} the reference).")
    if ctx["pairwise_note"]:
        sentences.append(ctx["pairwise_note"])
    if ctx["selection"]:
        sentences.append(f"The metric is 0/1, so the values have selection rates ({POOLED}; the mean of the "
                         f"per-item rates beside it where it differs); impact ratio = rate / highest rate, "
                         f"marked when {NOTE}.")
    finding = []
    if analysis.verdict.detected:   # decided once, in the analysis
        top = sorted(main.gaps, key=lambda g: -abs(g.average_gap))[:3]
        finding.append(f"The probe detected a difference between the values larger than chance "
                       f"({OMNIBUS.split(' (')[0]}: {p_is(o, alpha)}, "
                       f"below alpha {alpha:g}), {conditions}. Largest gaps against '{main.reference}': "
                       + "; ".join(f"'{g.a}' {_gap(g.average_gap)} (corrected p = {fmt_p(g.p_adjusted, alpha)})"
                                   for g in top)
                         + ". This says where the values differ, not why.")
    elif analysis.verdict.conclusion == "undecided":
        low, high = o.pvalue_interval
        finding.append(f"The omnibus test is undecided at this precision, {conditions}: its Monte Carlo p "
                       f"({p_is(o, alpha)}) has a 99.9% interval [{fmt_p(low)}, {fmt_p(high)}] that still holds "
                       f"alpha {alpha:g} after {o.n_resamples:,} resamples, so neither a difference nor its absence "
                       f"is concluded; more resamples can decide it.")
    else:
        largest = max(main.gaps, key=lambda g: abs(g.average_gap), default=None)
        finding.append(f"The probe did not detect a difference between the values larger than chance, {conditions} "
                       f"(omnibus {p_is(o, alpha)})"
                       + (f"; the largest gap against '{main.reference}' was '{largest.a}' "
                          f"{_gap(largest.average_gap)} {main.metric}" if largest is not None else "") + ".")
        finding.append("This does not show that the system is unbiased: a smaller difference, or one on other "
                       "items, values, metrics, models or settings, could go unseen.")
    disagree = next((c for c in analysis.verdict.caveats if c.id == "blocks_disagree"), None)
    if disagree is not None:   # the headline averages groups that go opposite ways: the Finding says so
        finding.append(disagree.sentence)
    if analysis.groups:
        sentences.append(f"Per group of {', '.join(analysis.groups[0].by)}: the same tests, the omnibus p corrected "
                         f"across the {count_of(len(analysis.groups), 'group')} "
                         f"({correction_name(analysis.correction)}).")

    sentences.append(verdict_line(analysis.verdict))
    ctx["sentences"] = sentences
    ctx["finding"] = finding
    return ctx


# ---------------------------------------------------------------------------- two factors


def pooled_words(analysis) -> str:
    """What a count of an analysis's runs counts when settings are pooled in its cells (see
    :func:`probestats.checks.facts.pooled_phrase`)."""
    return pooled_phrase(getattr(analysis, "pooled", ()))


def factors_context(analysis) -> dict:
    """Two attributes (``--factor A --factor B``): within-level gaps, main effects and the interaction."""
    alpha = analysis.alpha
    correction = correction_name(analysis.correction)
    effects = [{"name": e.name, "description": e.description, "average": e.average, "p": e.sign_flip.pvalue,
                "p_adjusted": e.p_adjusted, "detected": e.name in analysis.verdict.found}
               for e in analysis.effects]
    method = analysis.effects[0].sign_flip.method if analysis.effects else ""
    (f1, f2), ((l1a, l1b), (l2a, l2b)) = analysis.factors, analysis.levels
    conditions = (f"with these {count_of(analysis.n_items, 'item')}, levels '{l1a}' and '{l1b}' of {f1} and "
                  f"'{l2a}' and '{l2b}' of {f2}, the metric {analysis.metric}, and {analysis.runs_per_cell} runs "
                  f"per item and cell{pooled_words(analysis)}")
    sentences = [f"Test: the {SIGN_FLIP.replace('item gaps', 'per-item effects')} ({method}), p corrected across "
                 f"the {len(effects)} effects ({correction}), alpha {alpha:g}."]
    found = [e for e in effects if e["name"] in analysis.verdict.found]   # decided once, in the analysis
    finding = []
    if found:
        finding.append("After correction, larger than chance: "
                       + "; ".join(f"{e['name']} {_gap(e['average'])} (corrected p = "
                                   f"{fmt_p(e['p_adjusted'], alpha)})" for e in found)
                       + f", {conditions}. This says where the gaps are, not why.")
    else:
        finding.append(f"No effect was detected larger than chance after correction, {conditions}; "
                       "this does not show that the system is unbiased on either attribute.")
    sentences.append(analysis.interaction_in_words[0].upper() + analysis.interaction_in_words[1:] + ".")
    sentences.append(f"Design: {analysis.note}.")

    sentences.append(verdict_line(analysis.verdict))
    cells = [c for c in analysis.items.columns if c != "item"]
    item_rows = [{"item": str(r["item"]), "means": [r[c] for c in cells]}
                 for r in analysis.items.iter_rows(named=True)]
    return {"cells": cells, "item_rows": item_rows, "metric": analysis.metric, "factors": list(analysis.factors),
            "levels": [list(analysis.levels[0]), list(analysis.levels[1])], "n_items": analysis.n_items,
            "runs_per_cell": analysis.runs_per_cell, "pooled": pooled_words(analysis), "effects": effects,
            "correction": correction,
            "method": method, "note": analysis.note, "sentences": sentences, "finding": finding}


# ---------------------------------------------------------------------------- a judge's scale


def ceilings_context(analysis) -> dict:
    """A judge's declared scale (``--scale LOW:HIGH``): the cells whose baseline sits at an end."""
    check = analysis.scale
    cells = [{"by": {k: str(v) for k, v in c["by"].items()}, "item": c["item"], "baseline": c["baseline"],
              "gap": c["gap"], "end": c["end"]} for c in check.cells]
    ceiling = sum(1 for c in cells if c["end"] == "ceiling")
    floor = len(cells) - ceiling
    scale = f"{check.low:g}:{check.high:g}"
    sentences = [
        f"Declared scale {scale}. A cell (an item{', per ' + ', '.join(cells[0]['by']) if cells and cells[0]['by'] else ''}) "
        f"is at the ceiling when {getattr(check, 'label', repr(check.baseline))} has the top score in every run, so "
        "an upward change "
        "cannot show there, and at the floor for the bottom; a delta of zero in such a cell shows nothing.",
        f"{ceiling} of {check.n_cells} cells at the ceiling, {floor} at the floor"
        + (f"; their deltas do not count as evidence of no change." if cells else "."),
    ]
    if check.out_of_scale:
        sentences.append(f"{count_of(check.out_of_scale, 'run')} scored outside the declared scale: check the "
                         "declared scale or the judge's output.")
    repeats = [p.message for p in analysis.problems if p.code in ("deterministic", "single_run")]
    sentences += [m[0].upper() + m[1:] + ("" if m.endswith(".") else ".") for m in repeats]
    column = f"baseline '{check.baseline}'" if getattr(check, "named", False) else f"'{check.baseline}' (B)"
    return {"scale": scale, "baseline": check.baseline, "baseline_column": column, "cells": cells, "ceiling": ceiling, "floor": floor,
            "n_cells": check.n_cells, "out_of_scale": check.out_of_scale, "sentences": sentences,
            "keys": list(cells[0]["by"]) if cells else []}


# ---------------------------------------------------------------------------- before and after


def compare_context(comparison) -> dict:
    """A probe before and after a change: both runs side by side and the change per item."""
    data = comparison.to_dict()
    before, after = comparison.before, comparison.after
    alpha = before.alpha
    test = comparison.change_test

    def run(r):
        return {"n_items": r.main.n_items, "runs": r.main.runs_per_value(), "average_gap": r.main.average_gap,
                "p": r.main.sign_flip.pvalue, "method": r.main.sign_flip.method}

    sentences = [f"Tests: the {SIGN_FLIP} of each run ({before.main.sign_flip.method}); the change (after − before) "
                 f"with the exact sign-flip test on the per-item changes in gap ({test.method})."]
    verdict = comparison.verdict   # decided once, in the analysis
    if verdict.changed:
        sentences.append(f"The average gap changed by {_gap(comparison.change_average_gap)} between the two runs, "
                         f"more than chance at alpha {alpha:g} (p = {fmt_p(test.pvalue, alpha)}), with these items, "
                         "values, metric and settings.")
    else:
        sentences.append(f"The change in the average gap ({_gap(comparison.change_average_gap)}) is not larger than "
                         f"chance at alpha {alpha:g} (p = {fmt_p(test.pvalue, alpha)}): these runs do not show that "
                         "the change moved the gap.")
    if not verdict.after_detected:
        sentences.append("The after run did not detect a gap larger than chance, with these "
                         f"{count_of(after.main.n_items, 'item')}, values, metric and settings, and "
                         f"{fmt_num(after.main.runs_per_value()[0])} runs per value. This does not show that the "
                         "system is unbiased, nor that the gap is gone on other items, values or metrics.")
    return {"names": data["names"], "metric": data["metric"], "a": data["a"], "b": data["b"],
            "before": run(before), "after": run(after), "change": data["change"], "alpha": alpha,
            "seeds_checked": comparison.seeds_checked, "problems": data["problems"], "sentences": sentences,
            "verdict": {"changed": verdict.changed, "after_detected": verdict.after_detected}}
