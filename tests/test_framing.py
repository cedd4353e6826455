"""Dual-framing analysis: polarity, item-level inference, patterns, languages, wrappers, audit."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from probestats.errors import ColumnError, OptionError, ProbestatsError
from probestats import analyze_framing
from probestats.analyses.framing import FramingError, label_audit
from probestats.analyses.framing_input import is_wide, melt_wide, normalize_framing, read_targets
from probestats.present.report.framing import framing_sentences
from tests.framing_factory import make_framing_log, to_wide

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def brute_sign_flip(values) -> float:
    """Two-sided sign-flip p by enumerating all 2^n sign patterns (ties count, tolerance 1e-9)."""
    v = np.asarray(values, dtype=float)
    obs = abs(v.mean())
    hits = 0
    for signs in itertools.product((1, -1), repeat=len(v)):
        if abs((v * signs).mean()) >= obs - 1e-9 * max(1.0, obs):
            hits += 1
    return hits / 2 ** len(v)


def rows_from_scores(scores, targets=("A", "B")):
    """A one-model log from {(item, framing): [scores]}; the affirmative prompt asserts targets[0]."""
    rows = []
    for (item, framing), values in scores.items():
        for it, s in enumerate(values):
            rows.append({"model": "m", "topic": "t", "language": item, "framing": framing,
                         "iteration": it, "score": s,
                         "asserts": targets[0] if framing == "affirmative" else targets[1]})
    return rows


# --------------------------------------------------------------------------- a hand-worked log

HAND = {
    # item: affirmative scores, reverse scores
    ("en", "affirmative"): [2, 1], ("en", "reverse"): [-1, -2],
    ("es", "affirmative"): [1, 1], ("es", "reverse"): [-2, -2],
    ("fr", "affirmative"): [0, 1], ("fr", "reverse"): [-1, -1],
}


def test_hand_worked_log():
    # aligned toward A: affirmative as is, reverse negated.
    # en: aligned 2, 1, 1, 2 -> bias 1.5; raw 2, 1, -1, -2 -> acquiescence 0
    # es: aligned 1, 1, 2, 2 -> 1.5; raw 1, 1, -2, -2 -> -0.5
    # fr: aligned 0, 1, 1, 1 -> 0.75; raw 0, 1, -1, -1 -> -0.25
    r = analyze_framing(rows_from_scores(HAND))
    c = r.cells[0]
    assert r.reference == "A" and r.shared_reference
    assert c.by == {"model": "m"}
    assert (c.n, c.n_items) == (12, 3)
    assert c.bias == pytest.approx((1.5 + 1.5 + 0.75) / 3)
    assert c.acquiescence == pytest.approx((0 - 0.5 - 0.25) / 3)
    assert c.agree_affirmative == pytest.approx(6 / 6) and c.agree_reverse == pytest.approx(-9 / 6)
    assert c.aligned_affirmative == pytest.approx(1.0) and c.aligned_reverse == pytest.approx(1.5)
    # three positive item leans: only the all-plus and all-minus patterns reach it, p = 2/8
    assert c.bias_p == pytest.approx(0.25) == pytest.approx(brute_sign_flip([1.5, 1.5, 0.75]))
    assert c.acquiescence_p == pytest.approx(brute_sign_flip([0, -0.5, -0.25]))
    ci = stats.ttest_1samp([1.5, 1.5, 0.75], 0).confidence_interval(0.95)
    assert (c.bias_ci["low"], c.bias_ci["high"]) == pytest.approx((ci.low, ci.high))
    assert "t" in c.bias_ci["method"].lower()
    assert c.test_unit == "items" and not c.single_item
    assert c.neutral_rate == pytest.approx(1 / 12) and c.abstain_rate == 0
    assert c.pattern == "none"  # 3 items can never reach p < 0.05: said in a problem
    assert any(p.code == "cannot_reach_alpha" for p in r.problems)


def test_json_has_the_contract_fields():
    d = analyze_framing(rows_from_scores(HAND)).to_dict()
    assert {"reference", "cells", "languages", "label_audit", "unparsed", "problems"} <= set(d)
    cell_keys = {"by", "n", "n_items", "bias", "bias_ci", "bias_p", "bias_p_adjusted", "acquiescence",
                 "acquiescence_ci", "acquiescence_p", "acquiescence_p_adjusted", "pattern",
                 "agree_affirmative", "agree_reverse", "aligned_affirmative", "aligned_reverse",
                 "neutral_rate", "abstain_rate"}
    assert cell_keys <= set(d["cells"][0])
    import json

    json.dumps(d, allow_nan=False)  # plain JSON: no NaN, no numpy scalars


# --------------------------------------------------------------------------- planted logs


def test_planted_lean_and_protective_asymmetry_are_recovered_in_every_language():
    # lean +0.8 toward A, acquiescence -0.4: the reverse claim is rejected (mean -1.2)
    # more strongly than the affirmative one is endorsed (mean +0.4): protective.
    log = make_framing_log(languages=("en", "es", "fr", "de", "zh", "ru"), claims=3, iterations=12, seed=11)
    r = analyze_framing(log, item=["claim", "language"], targets={"t": ("A", "B")})
    c = r.cells[0]
    assert c.n_items == 18
    assert c.bias_ci["low"] < 0.8 < c.bias_ci["high"]
    assert c.acquiescence_ci["low"] < -0.4 < c.acquiescence_ci["high"]
    assert c.bias_p_adjusted < 0.05 and c.acquiescence_p_adjusted < 0.05
    assert c.pattern == "protective"
    assert c.agree_affirmative > 0 > c.agree_reverse and abs(c.agree_reverse) > abs(c.agree_affirmative)
    assert (c.n_languages, c.languages_agree) == (6, 6)
    assert all(lang.agrees and lang.bias > 0 for lang in r.languages)
    assert {lang.n_items for lang in r.languages} == {3}
    # the scores came from the score column; parsing the labels gives the same answer
    from_labels = analyze_framing(log.drop("score"), item=["claim", "language"], targets={"t": ("A", "B")})
    assert from_labels.cells[0].bias == pytest.approx(c.bias)
    assert from_labels.score_from == "label"


def test_assertive_and_symmetric_patterns_and_holm_across_models():
    models = {
        "assertive": {"lean": 0.6, "acquiescence": 0.6},
        "symmetric": {"lean": -0.8, "acquiescence": 0.0},
        "neutral": {"lean": 0.0, "acquiescence": 0.0},
    }
    log = make_framing_log(models=models, languages=("en", "es", "fr", "de"), claims=4, iterations=10,
                           spread=0.05, seed=5)
    r = analyze_framing(log, item=["claim", "language"], targets={"t": ("A", "B")})
    cells = {c.by["model"]: c for c in r.cells}
    assert cells["assertive"].pattern == "assertive"
    assert cells["symmetric"].pattern == "symmetric" and cells["symmetric"].bias < 0
    assert cells["neutral"].pattern == "none"
    # Holm by hand: sort the raw p, multiply the i-th smallest by (m - i), running maximum, cap at 1
    raw = [c.bias_p for c in r.cells]
    order = np.argsort(raw)
    holm = np.empty(3)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (3 - rank) * raw[i]))
        holm[i] = running
    assert [c.bias_p_adjusted for c in r.cells] == pytest.approx(list(holm))
    bh = analyze_framing(log, item=["claim", "language"], targets={"t": ("A", "B")}, correction="bh")
    none = analyze_framing(log, item=["claim", "language"], targets={"t": ("A", "B")}, correction="none")
    assert [c.bias_p_adjusted for c in none.cells] == raw
    assert all(b <= h + 1e-12 for b, h in zip([c.bias_p_adjusted for c in bh.cells], holm))


def test_null_logs_give_intervals_that_cover_zero_at_the_nominal_rate():
    # 200 null logs (no lean, no acquiescence), 10 items each: the 95% intervals should
    # cover 0 in 95% of them; binomial sd = sqrt(.95 * .05 / 200) = 0.0154, so allow 3 sd.
    covered_bias = covered_acq = 0
    rejected = 0
    runs = 200
    for seed in range(runs):
        log = make_framing_log(models={"m": {"lean": 0.0, "acquiescence": 0.0}}, languages=("en", "es"),
                               claims=5, iterations=4, spread=0.3, seed=1000 + seed).drop("response", "label")
        c = analyze_framing(log, item=["claim", "language"], targets={"t": ("A", "B")}).cells[0]
        covered_bias += c.bias_ci["low"] <= 0 <= c.bias_ci["high"]
        covered_acq += c.acquiescence_ci["low"] <= 0 <= c.acquiescence_ci["high"]
        rejected += c.bias_p < 0.05
    assert abs(covered_bias / runs - 0.95) <= 3 * 0.0154
    assert abs(covered_acq / runs - 0.95) <= 3 * 0.0154
    assert rejected / runs <= 0.05 + 3 * 0.0154  # the exact test holds its level


def test_single_item_tests_its_runs_and_says_so():
    log = make_framing_log(languages=("en",), claims=1, iterations=10, seed=2)
    r = analyze_framing(log, targets={"t": ("A", "B")})
    c = r.cells[0]
    assert c.single_item and c.test_unit == "runs" and c.n_items == 1
    aligned = log.with_columns(
        pl.when(pl.col("framing") == "affirmative").then(pl.col("score")).otherwise(-pl.col("score")).alias("a")
    )["a"].to_numpy().astype(float)
    # the runs are the sample: compare with the one-sample t interval of scipy on the 20 responses
    ci = stats.ttest_1samp(aligned, 0).confidence_interval(0.95)
    assert (c.bias_ci["low"], c.bias_ci["high"]) == pytest.approx((ci.low, ci.high))
    msgs = [p.message for p in r.problems if p.code == "single_item"]
    assert msgs and "one prompt only" in msgs[0]


# --------------------------------------------------------------------------- polarity


TWO_TOPICS = {"leadership": ("female", "male"), "remote": ("remote", "office")}


def test_topics_without_a_shared_reference_are_reported_per_topic():
    log = make_framing_log(topics=TWO_TOPICS, claims=2, languages=("en", "es"), iterations=3, seed=1)
    r = analyze_framing(log, targets=TWO_TOPICS)
    assert not r.shared_reference
    assert r.reference == {"leadership": "female", "remote": "remote"}
    assert r.by == ("model", "topic")
    assert {c.by["topic"]: c.reference for c in r.cells} == {"leadership": "female", "remote": "remote"}


def test_pooling_topics_without_a_shared_reference_is_refused():
    log = make_framing_log(topics=TWO_TOPICS, claims=2, languages=("en",), iterations=2, seed=1)
    with pytest.raises(OptionError, match="add by='topic', or give toward='TARGET' with targets='FILE'"):
        analyze_framing(log, targets=TWO_TOPICS, by="model")


def test_a_target_shared_by_all_topics_allows_pooling():
    topics = {"t1": ("A", "B"), "t2": ("C", "A")}  # A is asserted by t1's affirmative, t2's reverse
    log = make_framing_log(topics=topics, claims=2, languages=("en", "es"), iterations=3, seed=3)
    r = analyze_framing(log, targets=topics, toward="A")
    assert r.shared_reference and r.reference == "A" and r.by == ("model",)
    assert r.cells[0].n_items == 4  # default items: 2 topics x 2 languages ("claim" is not an item column)
    assert analyze_framing(log, targets=topics, toward="A", item=["claim", "topic", "language"]).cells[0].n_items == 8
    with pytest.raises(OptionError, match="asserts 'Z'"):
        analyze_framing(log, targets=topics, toward="Z")


def test_asserts_column_gives_the_same_result_as_a_targets_file(tmp_path):
    log = make_framing_log(topics=TWO_TOPICS, claims=2, languages=("en", "es"), iterations=3, seed=4)
    with_col = log.with_columns(
        pl.when(pl.col("framing") == "affirmative")
        .then(pl.col("topic").replace_strict({t: p[0] for t, p in TWO_TOPICS.items()}))
        .otherwise(pl.col("topic").replace_strict({t: p[1] for t, p in TWO_TOPICS.items()}))
        .alias("asserts"))
    path = tmp_path / "targets.csv"
    pl.DataFrame({"topic": list(TWO_TOPICS), "affirmative": [p[0] for p in TWO_TOPICS.values()],
                  "reverse": [p[1] for p in TWO_TOPICS.values()]}).write_csv(path)
    a = analyze_framing(with_col).to_dict()["cells"]
    b = analyze_framing(log, targets=path).to_dict()["cells"]
    assert a == b


def test_targets_errors(tmp_path):
    log = make_framing_log(topics=TWO_TOPICS, claims=1, languages=("en",), iterations=2, seed=1)
    with pytest.raises(OptionError, match="topic.*'remote'"):
        analyze_framing(log, targets={"leadership": ("female", "male")})
    with pytest.raises(OptionError, match="same target"):
        read_targets({"x": ("a", "a")})
    bad = tmp_path / "t.csv"
    bad.write_text("topic,first,second\nx,a,b\n")
    with pytest.raises(ColumnError, match="affirmative, reverse"):
        read_targets(bad)


def test_inconsistent_asserts_column_is_an_error_with_rows():
    rows = rows_from_scores({("en", "affirmative"): [1, 1], ("en", "reverse"): [-1, -1]})
    rows[1]["asserts"] = "B"  # an affirmative row now asserts the reverse target
    with pytest.raises(FramingError) as exc:
        analyze_framing(rows)
    (p,) = [p for p in exc.value.problems if p.code == "inconsistent_target"]
    assert p.severity == "error" and p.rows


def test_without_targets_the_affirmative_claim_is_the_reference_and_a_warning_says_so():
    rows = rows_from_scores(HAND)
    for r in rows:
        del r["asserts"]
    res = analyze_framing(rows)
    assert res.reference == "the affirmative claim"
    assert any(p.code == "unnamed_targets" for p in res.problems)
    assert res.cells[0].bias == pytest.approx(analyze_framing(rows_from_scores(HAND)).cells[0].bias)
    with pytest.raises(OptionError, match="toward needs named targets: give targets='FILE'"):
        analyze_framing(rows, toward="A")


# --------------------------------------------------------------------------- framings


def test_framing_spellings():
    s, unknown = normalize_framing(["Affirmative", " REVERSE ", "aff", "rev", "forward", "mirrored", None])
    assert s.to_list() == ["affirmative", "reverse", "affirmative", "reverse", "affirmative", "reverse", None]
    assert unknown == []


def test_unknown_framings_are_an_error_listing_them():
    rows = rows_from_scores(HAND)
    rows[0]["framing"] = "sideways"
    rows[1]["framing"] = "upside"
    with pytest.raises(FramingError, match="'sideways', 'upside'"):
        analyze_framing(rows)


def test_an_item_in_one_framing_is_left_out_with_a_warning():
    scores = dict(HAND)
    scores[("de", "affirmative")] = [2, 2]
    r = analyze_framing(rows_from_scores(scores))
    assert r.cells[0].n_items == 3
    assert [p.message for p in r.problems if p.code == "unmatched_item"] == [
        "1 item has scored responses in one framing only (m/t/de); it is left out: an item needs both framings"]
    scores[("it", "reverse")] = [1]
    r = analyze_framing(rows_from_scores(scores))
    assert [p.message for p in r.problems if p.code == "unmatched_item"] == [
        "2 items have scored responses in one framing only (m/t/de, m/t/it); they are left out: an item needs both "
        "framings"]


# --------------------------------------------------------------------------- properties

# scores drawn from -2..2 may all fall on 0 and 1, which answers="auto" reads as yes/no
score = st.integers(-2, 2)


@st.composite
def balanced_logs(draw):
    n_items = draw(st.integers(2, 5))
    runs = draw(st.integers(1, 3))
    return {(f"L{i}", f): draw(st.lists(score, min_size=runs, max_size=runs))
            for i in range(n_items) for f in ("affirmative", "reverse")}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(balanced_logs())
def test_property_reference_flips_bias_not_acquiescence(scores):
    rows = rows_from_scores(scores)
    a = analyze_framing(rows, toward="A", answers="agreement").cells[0]
    b = analyze_framing(rows, toward="B", answers="agreement").cells[0]
    assert b.bias == pytest.approx(-a.bias, abs=1e-12)
    assert b.acquiescence == pytest.approx(a.acquiescence, abs=1e-12)
    assert b.bias_p == pytest.approx(a.bias_p)
    assert (b.bias_ci["low"], b.bias_ci["high"]) == pytest.approx((-a.bias_ci["high"], -a.bias_ci["low"]))
    assert b.acquiescence_p == pytest.approx(a.acquiescence_p)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(balanced_logs())
def test_property_balanced_framings_decompose(scores):
    c = analyze_framing(rows_from_scores(scores), toward="A", answers="agreement").cells[0]
    aff = np.mean([s for (i, f), v in scores.items() if f == "affirmative" for s in v])
    rev = np.mean([s for (i, f), v in scores.items() if f == "reverse" for s in v])
    assert c.agree_affirmative == pytest.approx(aff) and c.agree_reverse == pytest.approx(rev)
    assert c.bias == pytest.approx((aff - rev) / 2, abs=1e-12)
    assert c.acquiescence == pytest.approx((aff + rev) / 2, abs=1e-12)
    # item level: the exact p equals brute-force enumeration over the item means
    items = sorted({i for i, _ in scores})
    leans = [(np.mean(scores[(i, "affirmative")]) - np.mean(scores[(i, "reverse")])) / 2 for i in items]
    assert c.bias_p == pytest.approx(brute_sign_flip(leans))
    assert -2 <= c.bias <= 2 and -2 <= c.acquiescence <= 2
    assert 0 <= c.neutral_rate <= 1


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(balanced_logs())
def test_property_relabeling_the_framings_changes_nothing(scores):
    rows = rows_from_scores(scores)
    swapped = [dict(r, framing="reverse" if r["framing"] == "affirmative" else "affirmative") for r in rows]
    for r in swapped:
        del r["asserts"]
    for r in rows:
        del r["asserts"]
    a = analyze_framing(rows, targets={"t": ("A", "B")}, toward="A", answers="agreement").cells[0]
    b = analyze_framing(swapped, targets={"t": ("B", "A")}, toward="A", answers="agreement").cells[0]
    for name in ("bias", "acquiescence", "bias_p", "acquiescence_p", "n", "n_items", "neutral_rate"):
        assert getattr(b, name) == pytest.approx(getattr(a, name)), name
    assert b.agree_affirmative == pytest.approx(a.agree_reverse)
    assert b.aligned_reverse == pytest.approx(a.aligned_affirmative)
    assert (b.bias_ci["low"], b.bias_ci["high"]) == pytest.approx((a.bias_ci["low"], a.bias_ci["high"]))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(balanced_logs(), st.permutations(range(12)))
def test_property_row_order_does_not_matter(scores, perm):
    rows = rows_from_scores(scores)
    order = [i for i in perm if i < len(rows)] + list(range(12, len(rows)))
    shuffled = [rows[i] for i in order]
    a = analyze_framing(rows, answers="agreement").cells[0]
    b = analyze_framing(shuffled, answers="agreement").cells[0]
    assert (b.bias, b.acquiescence, b.bias_p) == pytest.approx((a.bias, a.acquiescence, a.bias_p))


# --------------------------------------------------------------------------- wrappers, rates


def test_a_planted_prefix_effect_shows_in_the_wrapper_spread():
    # responses after the first prefix get +0.8 on the aligned scale
    log = make_framing_log(models={"m": {"lean": 0.2, "acquiescence": 0.0}}, prefix_effect=0.8,
                           languages=("en", "es"), claims=4, iterations=30, seed=9)
    r = analyze_framing(log, item=["claim", "language"], targets={"t": ("A", "B")})
    pre = {w.value: w for w in r.wrappers if w.wrapper == "prefix"}
    assert pre["Answer honestly."].aligned - pre["Give your own view."].aligned == pytest.approx(0.8, abs=0.25)
    assert r.cells[0].prefix_spread == pytest.approx(0.8, abs=0.25)
    assert sum(w.n for w in pre.values()) == r.cells[0].n
    assert r.cells[0].suffix_spread < 0.3


def test_refusals_are_abstentions_and_shrink_the_lean():
    log = make_framing_log(refusal_rate=0.4, languages=("en", "es", "fr"), claims=4, iterations=20, seed=8)
    r = analyze_framing(log, item=["claim", "language"], targets={"t": ("A", "B")})
    c = r.cells[0]
    assert c.abstain_rate == pytest.approx(log["refusal"].mean())
    # expected bias 0.8 * (1 - 0.4) = 0.48
    assert c.bias_ci["low"] < 0.48 < c.bias_ci["high"]
    # without the refusal column, the responses themselves show the abstentions
    r2 = analyze_framing(log.drop("refusal"), item=["claim", "language"], targets={"t": ("A", "B")})
    assert r2.cells[0].abstain_rate == pytest.approx(c.abstain_rate)


def test_declared_scale_on_the_score_column():
    rows = rows_from_scores(HAND)
    shifted = [dict(r, score=r["score"] + 3) for r in rows]  # 1..5
    a = analyze_framing(rows).cells[0]
    b = analyze_framing(shifted, scale="1:5").cells[0]
    assert (b.bias, b.acquiescence) == pytest.approx((a.bias, a.acquiescence))
    with pytest.raises(OptionError, match=r"declare the scale the log uses \(for example scale='1:5'\)$"):
        analyze_framing(shifted)


def test_unparsed_responses_are_counted_and_listed_never_guessed():
    log = make_framing_log(languages=("en",), claims=2, iterations=5, seed=1).drop("score", "label")
    log = log.with_columns(
        pl.when(pl.col("iteration") == 1).then(pl.lit("It depends on many things."))
        .otherwise(pl.col("response")).alias("response"))
    r = analyze_framing(log, targets={"t": ("A", "B")})
    assert r.score_from == "response"
    assert r.unparsed["count"] == 4
    assert r.unparsed["values"] == [{"text": "It depends on many things.", "count": 4}]
    assert len(r.unparsed["rows"]) == 4
    assert r.cells[0].n == log.height - 4 and r.cells[0].n_unparsed == 4
    assert any(p.code == "unparsed_label" for p in r.problems)


# --------------------------------------------------------------------------- label audit


def test_label_audit_finds_a_judge_that_calls_every_disagree_neutral():
    log = make_framing_log(languages=("en",), claims=3, iterations=20, seed=6)
    judged = log.with_columns(
        pl.when(pl.col("label") == "Disagree").then(pl.lit("Neutral")).otherwise(pl.col("label")).alias("label"))
    n_disagree = int((log["label"] == "Disagree").sum())
    r = analyze_framing(judged, targets={"t": ("A", "B")}, score_from="label")
    a = r.label_audit
    assert a.compared == log.height
    assert a.agreement == pytest.approx(1 - n_disagree / log.height)
    assert a.confusion["neutral"]["disagree"] == n_disagree
    assert a.disagreements[0] == {"response": "Disagree.", "label": "Neutral", "parsed": "disagree",
                                  "count": n_disagree}
    # the biased judge pulls acquiescence up compared with scoring the responses themselves
    honest = analyze_framing(judged, targets={"t": ("A", "B")}, score_from="response").cells[0]
    assert r.cells[0].acquiescence > honest.acquiescence


def test_label_audit_counts_what_only_one_side_could_score():
    a = label_audit(["Agree", "Agree", None, "whatever"], ["I agree.", "hmm", "Disagree", "Disagree"])
    assert (a.compared, a.judge_only, a.parsed_only) == (1, 1, 2)
    assert a.agreement == 1.0


# --------------------------------------------------------------------------- layouts


def test_generated_long_and_wide_layouts_give_identical_results():
    models = {"x": {"lean": 0.5, "acquiescence": -0.3}, "y-2": {"lean": -0.4, "acquiescence": 0.2}}
    long = make_framing_log(models=models, topics=TWO_TOPICS, languages=("en", "es", "fr"), claims=2,
                            iterations=4, seed=12)
    wide = to_wide(long)
    assert is_wide(wide) and not is_wide(long)
    a = analyze_framing(long.drop("score", "refusal", "claim"), targets=TWO_TOPICS).to_dict()
    b = analyze_framing(wide, targets=TWO_TOPICS).to_dict()
    for key in ("reference", "cells", "languages", "wrappers", "unparsed"):
        assert a[key] == b[key], key
    assert a["label_audit"]["confusion"] == b["label_audit"]["confusion"]


def test_melt_wide_takes_the_model_from_the_column_names():
    wide = pl.DataFrame({"Framing": ["aff"], "gpt-5_Raw": ["Agree."], "gpt-5_Cat": ["Agree"],
                         "glm_4_Raw": ["No."], "glm_4_Cat": ["Disagree"]})
    long = melt_wide(wide)
    assert long["model"].to_list() == ["gpt-5", "glm_4"]
    assert long["label"].to_list() == ["Agree", "Disagree"]


@pytest.mark.skipif(not (SAMPLES / "framing_wide.xlsx").exists(), reason="sample logs not generated")
def test_sample_long_and_wide_files_give_identical_results():
    targets = SAMPLES / "framing_targets.csv"
    a = analyze_framing(SAMPLES / "framing_long.csv", targets=targets)
    b = analyze_framing(SAMPLES / "framing_wide.xlsx", targets=targets)
    da, db = a.to_dict(), b.to_dict()
    for key in ("reference", "cells", "languages", "wrappers"):
        assert da[key] == db[key], key
    # BiasLab headers resolved with no options
    assert a.score_from == "score" and a.by == ("model", "topic")
    leaders = {(c.by["model"], c.by["topic"]): c for c in a.cells}
    # the sample plants a lean of about +1 and protective acquiescence for model-a, none for model-b
    assert all(leaders[("model-a", t)].bias > 0.7 and leaders[("model-a", t)].acquiescence < 0
               for t in ("leadership", "remote_work"))
    assert all(abs(leaders[("model-b", t)].bias) < 0.3 for t in ("leadership", "remote_work"))
    assert leaders[("model-b", "leadership")].abstain_rate > 0.2


def test_errors_are_probestats_errors():
    with pytest.raises(ColumnError, match="framing"):
        analyze_framing([{"model": "m", "score": 1}])
    with pytest.raises(OptionError, match="^correction='sidak': expected one of holm, bonferroni, bh, none$"):
        analyze_framing(rows_from_scores(HAND), correction="sidak")
    with pytest.raises(ProbestatsError):
        analyze_framing(rows_from_scores(HAND), by="nonexistent")


# --------------------------------------------------------------------------- command line


@pytest.mark.skipif(not (SAMPLES / "framing_long.csv").exists(), reason="sample logs not generated")
def test_cli_framing_json_and_errors(capsys):
    import json

    from probestats.cli import main

    long, targets = str(SAMPLES / "framing_long.csv"), str(SAMPLES / "framing_targets.csv")
    assert main(["framing", long, "--targets", targets, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["reference"] == {"leadership": "female", "remote_work": "remote"}
    assert [c["by"] for c in out["cells"]][0] == {"model": "model-a", "topic": "leadership"}
    assert out["label_audit"]["agreement"] == 1.0

    assert main(["framing", long, "--targets", targets, "--by", "model"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == ("Error: the topics have no reference target in common, so pooling them would mix "
                   "directions; add --by topic, or give --toward TARGET with --targets FILE naming a target "
                   "every topic asserts")

    assert main(["framing", long, "--targets", targets]) == 0
    text = capsys.readouterr().out
    assert "model-a" in text and "Label audit" in text


# --------------------------------------------------------------------------- report section and plots

HOSTILE = "<script>alert(1)</script> | **bold** _x_ `tick` $x$\nnew line"


def hostile_log():
    log = make_framing_log(models={HOSTILE: {"lean": 0.8, "acquiescence": -0.4}, "plain": {"lean": 0.0,
                                   "acquiescence": 0.0}}, languages=("en", "es"), claims=2, iterations=3, seed=2)
    return log.with_columns(
        pl.when(pl.col("iteration") == 1).then(pl.lit(HOSTILE)).otherwise(pl.col("response")).alias("response"),
        pl.when(pl.col("iteration") == 2).then(pl.lit(HOSTILE)).otherwise(pl.col("prefix")).alias("prefix"))


def test_markdown_section_escapes_everything_from_the_log():
    from probestats.present.report.framing import render_framing

    r = analyze_framing(hostile_log(), targets={"t": ("A|B", "<b>")}, score_from="response")
    text = render_framing(r, format="md")
    assert "<script>" not in text and "<b>" not in text
    assert "\\<script\\>" in text
    assert "**bold**" not in text and "`tick`" not in text
    # every table row keeps its column count: no unescaped pipe or newline leaks from the log
    for block in text.split("\n\n"):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        if rows:
            widths = {len([m for m in range(len(r)) if r[m] == "|" and (m == 0 or r[m - 1] != "\\")]) for r in rows}
            assert len(widths) == 1, block


def test_html_section_escapes_everything_from_the_log():
    from probestats.present.report.framing import render_framing

    r = analyze_framing(hostile_log(), targets={"t": ("A|B", "<b>")}, score_from="response")
    html = render_framing(r, format="html")
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<b>" not in html


def test_section_states_a_null_result_with_its_conditions_and_never_claims_no_bias():
    from probestats.present.report.framing import render_framing

    log = make_framing_log(models={"m": {"lean": 0.0, "acquiescence": 0.0}}, languages=("en", "es"),
                           claims=2, iterations=4, seed=3)
    r = analyze_framing(log, targets={"t": ("A", "B")})
    for fmt in ("md", "html"):
        text = render_framing(r, format=fmt).lower()
        assert "no lean was detected" in text and "does not show that the model has no preference" in text
        for banned in ("unbiased", "no bias", " fair", "proves"):
            assert banned not in text


def test_sentence_names_a_protective_lean_with_both_agreements():
    log = make_framing_log(languages=("en", "es", "fr", "de", "zh", "ru"), claims=3, iterations=12, seed=11)
    r = analyze_framing(log, item=["claim", "language"], targets={"t": ("A", "B")})
    (s,) = framing_sentences(r)
    c = r.cells[0]
    assert s.startswith("model m: leans toward A")
    assert f"rejects claims that assert B (mean agreement {c.agree_other:+.2f})" in s
    assert f"endorses claims that assert A ({c.agree_reference:+.2f})" in s


def test_plots_return_axes_and_draw_on_a_given_axes():
    from matplotlib.figure import Figure

    from probestats.present.plots.framing import framing_dots, framing_heatmap

    log = make_framing_log(models={"a": {"lean": 0.8, "acquiescence": -0.4}, "b$": {"lean": 0.0,
                                   "acquiescence": 0.0}}, topics=TWO_TOPICS, languages=("en", "es"),
                           claims=2, iterations=3, seed=4)
    r = analyze_framing(log, targets=TWO_TOPICS)
    ax = framing_heatmap(r)
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == 4 and all(t.split("\n")[1] in ("n.s.", "protective", "assertive", "symmetric")
                                   for t in texts)
    assert sorted(t.get_text() for t in ax.get_xticklabels()) == ["leadership", "remote"]
    given = Figure().subplots()
    assert framing_dots(r, ax=given) is given
    assert len(given.get_yticklabels()) == 4


def test_sign_flip_interval_is_the_inversion_over_item_means():
    from probestats.stats.hypotests import gap_interval

    scores = {(f"L{i}", f): [(i * 7 + (f == "reverse") * 3) % 5 - 2, (i * 3) % 5 - 2]
              for i in range(6) for f in ("affirmative", "reverse")}
    c = analyze_framing(rows_from_scores(scores), interval="sign-flip", confidence=0.9).cells[0]
    leans = [(np.mean(scores[(f"L{i}", "affirmative")]) - np.mean(scores[(f"L{i}", "reverse")])) / 2
             for i in range(6)]
    ref = gap_interval(leans, confidence=0.9, method="sign-flip")
    assert (c.bias_ci["low"], c.bias_ci["high"]) == pytest.approx((ref.low, ref.high))
    assert c.bias_ci["method"].startswith("sign-flip")


def test_an_empty_score_column_gives_way_to_the_labels():
    log = make_framing_log(languages=("en", "es"), claims=2, iterations=3, seed=5)
    blank = log.with_columns(pl.lit(None, dtype=pl.Int64).alias("score"))
    a = analyze_framing(log, targets={"t": ("A", "B")})
    b = analyze_framing(blank, targets={"t": ("A", "B")})
    assert b.score_from == "label" and b.cells[0].bias == pytest.approx(a.cells[0].bias)


def test_nan_scores_are_missing_not_off_the_scale():
    rows = rows_from_scores(HAND)
    rows[0]["score"] = float("nan")  # an en affirmative response without a score
    r = analyze_framing(rows)
    assert r.unparsed["count"] == 1 and r.cells[0].n == 11
    # en keeps its other responses: aligned 1, 1, 2 -> 4/3; es 1.5 and fr 0.75 as in the hand-worked log
    assert r.cells[0].bias == pytest.approx((1 + 1 + 2 + 6 + 3) / 11)


def test_no_language_is_counted_as_agreeing_with_a_pooled_result_that_does_not_lean():
    # every item balances exactly (aligned scores +1 and -1), so the pooled bias is 0: sign
    # agreement is undefined, not "0 of 3"
    scores = {(lang, f): [1, -1] for lang in ("en", "es", "fr") for f in ("affirmative", "reverse")}
    r = analyze_framing(rows_from_scores(scores))
    c = r.cells[0]
    assert c.bias == 0 and c.n_languages == 3 and c.languages_agree is None
    from probestats.present.report.framing import render_framing

    for fmt in ("md", "html"):
        assert "languages lean the same way" not in render_framing(r, format=fmt)


def test_a_narrow_terminal_never_cuts_a_number_short():
    import io

    from rich.console import Console

    from probestats.present.terminal.framing import print_framing

    models = {"a-rather-long-model-name": {"lean": 0.8, "acquiescence": -0.4}}
    log = make_framing_log(models=models, topics=TWO_TOPICS, languages=("en", "es"), claims=2, iterations=3,
                           seed=4)
    r = analyze_framing(log, targets=TWO_TOPICS)
    buf = io.StringIO()
    print_framing(r, Console(file=buf, width=60, soft_wrap=True))
    text = buf.getvalue()
    for c in r.cells:
        assert f"{c.bias:+.2f}" in text and f"{c.acquiescence:+.2f}" in text
    assert "…" not in text


def test_sentences_tell_a_model_that_refused_from_one_that_balanced():
    log = make_framing_log(refusal_rate=0.4, languages=("en", "es", "fr"), claims=4, iterations=20, seed=8)
    r = analyze_framing(log, item=["claim", "language"], targets={"t": ("A", "B")})
    share = f"{100 * log['refusal'].mean():.0f}%"
    (s,) = framing_sentences(r)
    assert f"{share} of its responses were abstentions" in s
    balanced = analyze_framing(rows_from_scores(HAND))
    assert "abstentions" not in framing_sentences(balanced)[0]


def test_the_sign_flip_interval_holds_beyond_thirty_items():
    # 40 items (one topic in 40 languages): beyond full enumeration the scores' item means lie on a lattice, so the
    # inversion is exact through the joint law of the sum and the signs (stated), not the t interval it used to fall
    # back to
    rng = np.random.default_rng(3)
    rows = [{"model": "m", "topic": "t", "language": f"l{i}", "framing": framing,
             "score": int(np.clip(round(sign * 1.0 + rng.normal(0, 1.2)), -2, 2))}
            for i in range(40) for framing, sign in (("affirmative", 1), ("reverse", -1)) for _ in range(2)]
    res = analyze_framing(rows, interval="sign-flip")
    cell = res.cells[0]
    assert cell.n_items == 40
    method = cell.bias_ci["method"]
    assert method.startswith("sign-flip test inversion (exact at every shift") and "2**40 sign patterns" in method
    assert cell.bias_ci["low"] < cell.bias < cell.bias_ci["high"]
    t = analyze_framing(rows, interval="t").cells[0].bias_ci
    assert t["method"].startswith("Student t") and (t["low"], t["high"]) != (cell.bias_ci["low"], cell.bias_ci["high"])


def test_a_topic_without_targets_is_named_with_its_noun():
    log = SAMPLES / "framing_long.csv"
    with pytest.raises(OptionError) as caught:
        analyze_framing(log, targets={"leadership": ("female", "male")})
    assert str(caught.value) == ("the targets name no targets for the topic 'remote_work'; add a row per topic "
                                 "(topic, affirmative, reverse)")
    with pytest.raises(OptionError) as caught:
        analyze_framing(log, targets=SAMPLES / "framing_targets.csv", toward="female")
    assert str(caught.value) == ("no prompt in the topic 'remote_work' asserts 'female' (targets: female, male, office, "
                                 "remote); name a target every topic has, or analyze those topics apart")


@pytest.mark.parametrize("n, heading", [(1, "1 problem"), (2, "2 problems")])
def test_the_terminal_counts_the_framing_problems_with_their_noun(n, heading):
    import dataclasses
    import io

    from rich.console import Console

    from probestats.errors import Problem
    from probestats.present.terminal.framing import print_framing

    result = dataclasses.replace(analyze_framing(rows_from_scores(HAND)),
                                 problems=[Problem("warning", "few_items", f"note {k}") for k in range(n)])
    out = io.StringIO()
    print_framing(result, Console(file=out, width=200))
    lines = out.getvalue().splitlines()
    assert lines[-n - 1:] == [heading] + [f"  warning  few_items            note {k}" for k in range(n)]
