"""Many values: one orientation (value − reference, every pair the later value minus the earlier, the
reference first), and corrections computed from each comparison's own p in the direction tested.

Every p here is checked against a brute-force enumeration of the 2**n sign patterns, and every corrected
p against the correction written out by hand (Holm, Bonferroni, Benjamini–Hochberg).
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from probestats import analyze_many

ALTERNATIVES = ("two-sided", "greater", "less")
CORRECTIONS = ("holm", "bonferroni", "bh", "none")


def brute_sign_flip(gaps: list[int], alternative: str) -> float:
    """The share of the 2**n sign patterns whose sum is at least as extreme (whole-number gaps: exact)."""
    observed = sum(gaps)
    hits = total = 0
    for signs in itertools.product((1, -1), repeat=len(gaps)):
        s = sum(g * k for g, k in zip(gaps, signs))
        total += 1
        hits += {"two-sided": abs(s) >= abs(observed), "greater": s >= observed, "less": s <= observed}[alternative]
    return hits / total


def hand_holm(ps: list[float]) -> list[float]:
    """Holm by hand: sorted p_(k) times (m − k) (k from 0), a running maximum, capped at 1."""
    m, order = len(ps), sorted(range(len(ps)), key=lambda k: ps[k])
    out, top = [0.0] * m, 0.0
    for k, i in enumerate(order):
        top = max(top, min(1.0, (m - k) * ps[i]))
        out[i] = top
    return out


def hand_bh(ps: list[float]) -> list[float]:
    """Benjamini–Hochberg by hand: sorted p_(k) times m / (k + 1), a running minimum from the top, capped at 1."""
    m, order = len(ps), sorted(range(len(ps)), key=lambda k: ps[k])
    out, low = [0.0] * m, 1.0
    for k in reversed(range(m)):
        i = order[k]
        low = min(low, m * ps[i] / (k + 1))
        out[i] = min(1.0, low)
    return out


def hand_correction(ps: list[float], method: str) -> list[float]:
    if method == "none" or len(ps) == 1:
        return list(ps)
    if method == "bonferroni":
        return [min(1.0, len(ps) * p) for p in ps]
    return hand_holm(ps) if method == "holm" else hand_bh(ps)


@st.composite
def many_logs(draw):
    n_values = draw(st.integers(3, 5))
    n_items = draw(st.integers(4, 8))
    values = [f"v{j}" for j in range(n_values)]
    # whole numbers, so every sum (and the brute force) is exact; some values shifted to give small p
    shift = draw(st.lists(st.integers(-3, 3), min_size=n_values, max_size=n_values))
    cells = draw(st.lists(st.integers(0, 4), min_size=n_values * n_items, max_size=n_values * n_items))
    matrix = [[cells[i * n_values + j] + shift[j] for j in range(n_values)] for i in range(n_items)]
    reference = draw(st.sampled_from(values))
    return values, matrix, reference


def rows_of(values, matrix):
    return [{"item": f"i{i}", "variant": v, "x": float(row[j])} for i, row in enumerate(matrix)
            for j, v in enumerate(values)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(log=many_logs(), alternative=st.sampled_from(ALTERNATIVES), correction=st.sampled_from(CORRECTIONS))
def test_every_pair_is_oriented_once_and_corrected_from_its_own_p(log, alternative, correction):
    values, matrix, reference = log
    result = analyze_many(rows_of(values, matrix), metric="x", reference=reference, alternative=alternative,
                          correction=correction, n_resamples=99)
    main, col = result.main, {v: j for j, v in enumerate(values)}
    # the order: the reference first, then the others in their order; each pair is later − earlier
    order = [reference, *(v for v in values if v != reference)]
    assert [(g.a, g.b) for g in main.pairwise] == [(order[j], order[i])
                                                   for i, j in itertools.combinations(range(len(order)), 2)]
    raw = []
    for g in main.pairwise:
        gaps = [row[col[g.a]] - row[col[g.b]] for row in matrix]
        assert g.average_gap == pytest.approx(sum(gaps) / len(gaps), abs=1e-12)
        assert g.sign_flip.alternative == alternative
        assert g.sign_flip.pvalue == pytest.approx(brute_sign_flip(gaps, alternative), rel=1e-12)
        raw.append(g.sign_flip.pvalue)
    hand = hand_correction(raw, correction)
    for g, h in zip(main.pairwise, hand):
        assert g.p_adjusted >= g.sign_flip.pvalue and g.p_adjusted <= 1.0
        assert g.p_adjusted == pytest.approx(h, rel=1e-9, abs=1e-15)
    # the gaps against the reference are the pairs' own rows: same orientation, same test, same corrected p
    rows = {(g.a, g.b): g for g in main.pairwise}
    assert [g.a for g in main.gaps] == [v for v in values if v != reference]
    for g in main.gaps:
        assert g.b == reference and g is rows[(g.a, reference)]
    found = [g.a for g, h in zip(main.pairwise, hand) if g.b == reference and h <= result.alpha]
    assert sorted(result.verdict.found) == sorted(found)
    data = result.to_dict()
    assert [(g["a"], g["b"]) for g in data["gaps"]] == [(g.a, g.b) for g in main.gaps]
    assert all(g["p_adjusted"] >= g["p"] for g in data["pairwise"] + data["gaps"])


def test_44_values_below_the_reference_one_sided_less_holm_finds_what_a_hand_holm_finds():
    """A résumé audit's shape: 44 names, the reference first; 30 names sit clearly below it on every item,
    13 are the reference's equal. `alternative="less"` tests each name below the reference."""
    n_items, names = 24, [f"name{j:02d}" for j in range(44)]
    matrix = []
    for i in range(n_items):
        base = i % 5
        row = [base + 10]                                     # the reference
        row += [base + 10 - 2 - (j + i) % 3 for j in range(30)]  # below it on every item, by 2 to 4
        row += [base + 10 + (1 if (j + i) % 2 else -1) for j in range(13)]  # around it
        matrix.append(row)
    result = analyze_many(rows_of(names, matrix), metric="x", alternative="less", n_resamples=99)
    main = result.main
    assert main.reference == "name00" and len(main.pairwise) == 44 * 43 // 2
    for g in main.pairwise:
        assert g.p_adjusted >= g.sign_flip.pvalue
    # each gap is value − reference: 30 negative gaps, tested for "less", each p is 2**-24 (all signs negative)
    below = [g for g in main.gaps if g.average_gap < 0]
    assert len(below) == 30 and all(g.sign_flip.pvalue == pytest.approx(2.0 ** -n_items) for g in below)
    # Holm across all 946 pairs by hand, then the names whose pair with the reference stays at or below 0.05
    raw = [g.sign_flip.pvalue for g in main.pairwise]
    hand = hand_holm(raw)
    expected = [g.a for g, h in zip(main.pairwise, hand) if g.b == "name00" and h <= 0.05]
    assert expected == names[1:31]            # the hand computation finds the 30 names below the reference
    assert list(result.verdict.found) == expected
    assert result.to_dict()["verdict"]["found"] == expected
    # 946 × 2**-24 ≈ 5.6e-5: the corrected p of each name below the reference, never 1
    for g in below:
        assert g.p_adjusted == pytest.approx(hand[main.pairwise.index(g)]) and g.p_adjusted < 1e-3
