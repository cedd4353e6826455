"""The per-item table and the paired analysis, checked against hand calculations and the tutorial."""

from __future__ import annotations

import itertools
import json
import math
import statistics

import numpy as np
from fractions import Fraction
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal
from hypothesis import given, settings
from hypothesis import strategies as st

from probestats import item_table, validate
from tests.engines import analyze   # with its knobs (mdg, within_noise)
from probestats.errors import OptionError, ValidationError
from probestats.analyses.items import items_of
from probestats.stats.multitest import adjust
from tests.factories import make_log

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def brute_force_p(gaps):
    """Share of the 2^n sign patterns with |mean| at least the observed one (exact fractions)."""
    gaps = [Fraction(g).limit_denominator(10**6) for g in gaps]
    observed = abs(sum(gaps))
    hits = sum(abs(sum(s * g for s, g in zip(signs, gaps))) >= observed
               for signs in itertools.product((1, -1), repeat=len(gaps)))
    return hits / 2 ** len(gaps)


def test_item_table_by_hand():
    rows = [  # item 1: formal 4, 6 -> 5; casual 3 -> 3; gap 2.  item 2: formal 2, casual 1, 3 -> 2; gap 0
        ("1", "formal", 4), ("1", "formal", 6), ("1", "casual", 3),
        ("2", "formal", 2), ("2", "casual", 1), ("2", "casual", 3),
    ]
    frame = pl.DataFrame(rows, schema=["item", "variant", "steps"], orient="row").with_columns(pl.col("steps").cast(pl.Float64))
    table = item_table(frame, "steps", "formal", "casual")
    assert table.select("item", "mean_a", "mean_b", "gap", "n_a", "n_b").rows() == [
        ("1", 5.0, 3.0, 2.0, 2, 1), ("2", 2.0, 2.0, 0.0, 1, 2)]


def test_sample_probe_matches_its_brute_force_figures():
    result = analyze(SAMPLES / "style_probe.csv", metric="steps")
    gaps = result.main.gaps
    # per-item gaps of the sample probe, from its own means of 20 runs (see sample_logs/README.md)
    assert gaps == pytest.approx([1.25, 0.65, 0.85, -0.25, 0.50, 0.05, 0.55, 1.50])
    assert result.main.average_gap == pytest.approx(0.6375)
    assert result.main.sign_flip.pvalue == pytest.approx(brute_force_p(gaps), abs=1e-12)
    assert result.main.sign_flip.pvalue == pytest.approx(6 / 256)
    # sign test: 7 of 8 positive -> =MIN(1, 2*(1-BINOM.DIST(6, 8, 0.5, TRUE))) = 2*(1+8)/256
    assert result.main.sign_test.pvalue == pytest.approx(18 / 256)
    assert result.main.min_attainable_p == 2 / 256


def test_tutorial_fact_5_items_can_never_reach_significance():
    frame = make_log(items=5, runs=10, gap=3.0, sd=0.5, seed=1)
    result = analyze(frame, metric="steps")
    assert result.main.min_attainable_p == 2 / 32
    assert result.main.sign_flip.pvalue >= 2 / 32
    assert not result.could_reach_significance
    assert "never_significant" in [p.code for p in result.problems]


def test_noise_log_is_analyzed_the_same_way():
    result = analyze(SAMPLES / "style_probe.csv", metric="steps", noise=SAMPLES / "style_noise.csv")
    assert (result.noise.a, result.noise.b) == ("formal", "formal again")
    noise_gaps = result.noise.gaps
    assert result.noise.sign_flip.pvalue == pytest.approx(brute_force_p(noise_gaps), abs=1e-12)
    assert abs(result.noise.average_gap) < abs(result.main.average_gap)
    # the noise log's different seed blocks are by design: no seed_mismatch warning for it
    assert not any(p.code == "seed_mismatch" for p in result.problems)


def test_json_has_exactly_the_spec_fields():
    d = analyze(SAMPLES / "style_probe.csv", metric="steps", noise=SAMPLES / "style_noise.csv").to_dict()
    for key in ("metric", "a", "b", "n_items", "average_gap", "items", "sign_flip", "sign_test",
                "min_attainable_p", "noise", "groups", "problems"):
        assert key in d
    assert set(d["items"][0]) >= {"item", "mean_a", "mean_b", "gap", "n_a", "n_b"}
    assert set(d["sign_flip"]) >= {"p", "method", "alternative"}
    assert set(d["sign_test"]) >= {"p", "n", "k"}
    assert set(d["noise"]) >= {"a", "b", "n_items", "average_gap", "sign_flip", "sign_test"}
    assert d["items"][0]["item"] == "0" and isinstance(d["items"][0]["item"], str)
    json.dumps(d, allow_nan=False)


def test_by_groups_with_holm():
    frames = [make_log(items=6, runs=4, gap=g, model=m, seed=i) for i, (m, g) in enumerate([("m1", 2.0), ("m2", 0.0)])]
    result = analyze(pl.concat(frames), metric="steps", by=["model"])
    assert [g.by for g in result.groups] == [{"model": "m1"}, {"model": "m2"}]
    raw = [g.sign_flip.pvalue for g in result.groups]
    # Holm for two p-values: the smaller times 2, the larger max(itself, that), capped at 1
    low, high = sorted(raw)
    expected = {low: min(1, 2 * low), high: min(1, max(high, 2 * low))}
    assert [g.p_adjusted for g in result.groups] == pytest.approx([expected[p] for p in raw])
    d = result.to_dict()
    assert d["groups"][0]["by"] == {"model": "m1"} and "p_adjusted" in d["groups"][0]["sign_flip"]


def test_one_item_and_a_group_of_one_item_still_analyze():
    # one item gives no spread of gaps: no t interval (infinite ends, said in the method), the tests still run
    one = make_log(items=1, runs=3, gap=2.0, seed=3)
    result = analyze(one, metric="steps")
    assert result.main.n_items == 1 and result.main.sign_flip.pvalue == 1.0  # +g and -g tie in |mean|
    assert result.main.interval.method.startswith("no interval")
    assert result.to_dict()["interval"]["low"] is None
    frames = [make_log(items=6, runs=3, gap=2.0, model="m1", seed=1), make_log(items=1, runs=3, model="m2", seed=2)]
    grouped = analyze(pl.concat(frames), metric="steps", by=["model"])
    assert [g.n_items for g in grouped.groups] == [6, 1]
    assert grouped.groups[1].interval.method.startswith("no interval")


def test_a_gap_that_overflows_is_a_clear_error():
    from probestats.errors import ProbestatsError

    rows = [{"item": i, "variant": v, "steps": 1e308 if v == "a" else -1e308} for i in range(3) for v in "ab"]
    with pytest.raises(ProbestatsError, match=r"^the gap of item 0, 1, 2 is not a finite number; rescale"):
        analyze(rows, metric="steps")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.floats(0, 1), st.sampled_from([0.0, 0.01, 0.05, 0.5, 1.0]), st.floats(1e-300, 1e-10)),
                min_size=2, max_size=40))
def test_holm_is_statsmodels_holm_to_the_bit(pvalues):
    from statsmodels.stats.multitest import multipletests

    from probestats.stats.multitest import holm

    assert holm(pvalues) == multipletests(pvalues, method="holm")[1].tolist()


def test_adjust_matches_hand_holm():
    # sorted p: 0.01, 0.03, 0.04 -> 0.03, 0.06, max(0.06, 0.04) = 0.06
    assert adjust([0.01, 0.04, 0.03], "holm") == pytest.approx([0.03, 0.06, 0.06])


def test_alternatives_and_errors():
    frame = make_log(items=8, runs=5, gap=1.0, seed=4)
    two = analyze(frame, metric="steps").main.sign_flip.pvalue
    greater = analyze(frame, metric="steps", alternative="greater").main.sign_flip.pvalue
    assert greater <= two
    with pytest.raises(OptionError, match="alternative='up': expected one of two-sided, greater, less"):
        analyze(frame, metric="steps", alternative="up")
    with pytest.raises(ValidationError, match="1 validation error: no column for the metric 'nope'"):
        analyze(frame, metric="nope")


def test_swapping_values_negates_the_gap():
    frame = make_log(items=6, runs=3, seed=8)
    ab = analyze(frame, metric="steps", a="formal", b="casual").main
    ba = analyze(frame, metric="steps", a="casual", b="formal").main
    assert ba.average_gap == pytest.approx(-ab.average_gap)
    assert ba.sign_flip.pvalue == pytest.approx(ab.sign_flip.pvalue)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 7), st.integers(1, 4), st.floats(-2, 2), st.integers(0, 10_000))
def test_average_gap_is_unweighted_mean_of_item_gaps(items, runs, gap, seed):
    frame = make_log(items=items, runs=runs, gap=gap, seed=seed)
    # drop one run to make runs unequal: each item must still count once
    frame = frame.filter(~((pl.col("item") == "0") & (pl.col("seed") == 1) & (pl.col("variant") == "formal"))) if runs > 1 else frame
    result = analyze(frame, metric="steps", a="formal", b="casual")
    by_hand = []
    for item in frame["item"].unique(maintain_order=True):
        sub = frame.filter(pl.col("item") == item)
        by_hand.append(sub.filter(pl.col("variant") == "formal")["steps"].mean() - sub.filter(pl.col("variant") == "casual")["steps"].mean())
    assert result.main.gaps == pytest.approx(by_hand)
    assert result.main.average_gap == pytest.approx(sum(by_hand) / len(by_hand))
    assert result.main.sign_flip.pvalue == pytest.approx(brute_force_p(by_hand), abs=1e-9)


def test_checked_frame_is_not_modified():
    frame = make_log(items=3, runs=2)
    before = frame.clone()
    analyze(frame, metric="steps")
    assert frame.equals(before)
    assert validate(frame, metric="steps").ok


def test_a_p_equal_to_alpha_is_detected_as_a_reachable_design_promises():
    # 4 items all positive: the two-sided p is 2/16 = 0.125, the smallest attainable; at alpha 0.125 the
    # design can reach significance, and this result does
    rows = [{"item": i, "variant": v, "seed": 1, "steps": 2 + (v == "a")} for i in range(4) for v in "ab"]
    result = analyze(rows, metric="steps", alpha=0.125)
    assert result.main.sign_flip.pvalue == 0.125 == result.main.min_attainable_p
    assert result.could_reach_significance and result.detected


_logged_run = st.fixed_dictionaries({
    "item": st.sampled_from(["i1", "i2", "i3", "i4"]),
    "variant": st.sampled_from(["a", "b"]),
    "topic": st.sampled_from(["law", "art"]),
    "steps": st.one_of(st.none(), st.integers(0, 6).map(float), st.floats(-1e3, 1e3)),
})


@settings(max_examples=150, deadline=None)
@given(st.lists(_logged_run, min_size=2, max_size=40), st.booleans())
def test_item_table_from_validation_equals_the_table_built_from_the_rows(runs, split):
    # analyze builds the item table from the per-item summary validation computed (items_of); it
    # must equal item_table on the checked rows and a plain-Python reference, split or not
    by = ["topic"] if split else []
    # one run of each value with a number for every item and topic seen, so most logs are matched
    runs = runs + [{"item": i, "variant": v, "topic": g, "steps": 1.0}
                   for i, g in dict.fromkeys((r["item"], r["topic"]) for r in runs) for v in ("b", "a")]
    checked = validate(runs, metric="steps", by=by)
    assert checked.ok, checked.errors
    got = items_of(checked, by=by)
    # equal but for rounding: sums over the rows with and without blanks can run in other orders
    assert_frame_equal(got, item_table(checked.frame, "steps", checked.a, checked.b, by=by),
                       check_exact=False, rel_tol=1e-12, abs_tol=1e-12)
    cells, first = {}, {}
    for row, r in enumerate(runs):
        if r["steps"] is not None and r["variant"] in (checked.a, checked.b):
            key = (*(r[k] for k in by), r["item"])
            cells.setdefault((key, r["variant"]), []).append(r["steps"])
            if r["variant"] == checked.a:
                first.setdefault(key, row)
    keys = [k for k in sorted(first, key=first.get) if (k, checked.b) in cells]
    assert got.select(*by, "item").rows() == keys
    for row, key in zip(got.iter_rows(named=True), keys):
        va, vb = cells[key, checked.a], cells[key, checked.b]
        assert (row["n_a"], row["n_b"]) == (len(va), len(vb))
        assert row["mean_a"] == pytest.approx(statistics.fmean(va), rel=1e-12, abs=1e-12)
        assert row["gap"] == pytest.approx(statistics.fmean(va) - statistics.fmean(vb), rel=1e-9, abs=1e-9)


_decimal = st.tuples(st.integers(-10**6, 10**6), st.integers(0, 6)).map(lambda t: f"{t[0] / 10**t[1]:.{t[1]}f}")


@settings(max_examples=200, deadline=None)
@given(st.lists(_decimal, min_size=1, max_size=12), st.randoms(use_true_random=False))
def test_a_cells_mean_is_the_exact_mean_whatever_the_order_of_its_runs(written, rng):
    # values as a log writes them ("3.31"); the same runs in another order give the same mean, and
    # that mean is the exact decimal mean rounded once (a float sum in order could differ by an ulp)
    values = [float(w) for w in written]
    shuffled = values[:]
    rng.shuffle(shuffled)
    frame = pl.DataFrame({"item": ["1"] * 2 * len(values), "variant": ["a"] * len(values) + ["b"] * len(values),
                          "steps": values + shuffled})
    table = item_table(frame, "steps", "a", "b")
    exact = sum(Fraction(w) for w in written) / len(written)
    assert table["mean_a"][0] == table["mean_b"][0] == float(exact)
    assert table["gap"][0] == 0.0  # the same runs under both values: no gap at all, not a rounding residue


def test_a_gap_of_the_same_runs_in_another_order_is_zero_for_the_sign_test():
    # item 1 has the same three runs under both values, listed in another order; summed in order
    # their means differed by 8.9e-16, and the sign test counted that as a non-zero gap
    rows = [{"item": "1", "variant": "f", "steps": x} for x in (3.31, 4.24, 3.62)]
    rows += [{"item": "1", "variant": "c", "steps": x} for x in (3.62, 3.31, 4.24)]
    rows += [{"item": "2", "variant": "f", "steps": 4.0}, {"item": "2", "variant": "c", "steps": 3.0}]
    main = analyze(rows, metric="steps").main
    assert main.gaps == [0.0, 1.0] and main.sign_test.n == 1


def test_item_table_counts_only_runs_with_a_value():
    # item 1: 'a' runs 3 and blank, 'b' runs 2 and 2; item 2 has no 'a' run with a value
    frame = pl.DataFrame({"item": ["1", "1", "1", "1", "2", "2", "2"], "variant": ["a", "a", "b", "b", "a", "b", "b"],
                          "steps": [3.0, None, 2.0, 2.0, None, 1.0, 1.0]})
    assert item_table(frame, "steps", "a", "b").rows() == [("1", 3.0, 2.0, 1.0, 1, 2, None, 0.0)]


def test_strongly_skewed_gaps_at_few_items_are_warned_about_and_the_interval_names_its_assumption():
    from tests.engines import analyze_pair as analyze
    import polars as pl

    # item gaps 0.1, 0.2, 0.1, 0.3, 0.2, 6.0 (one item far out): sample skewness about 2.4
    gaps = [0.1, 0.2, 0.1, 0.3, 0.2, 6.0]
    rows = [{"item": i, "variant": v, "seed": s, "m": (g if v == "a" else 0.0) + 0.01 * s}
            for i, g in enumerate(gaps) for v in ("a", "b") for s in range(2)]
    result = analyze(pl.DataFrame(rows), metric="m", a="a", b="b", mdg=False)
    assert "skewed_gaps" in {p.code for p in result.problems}
    out = result.to_dict()
    assert "normal" in out["interval"]["assumption"]
    sf = analyze(pl.DataFrame(rows), metric="m", a="a", b="b", mdg=False, interval="sign-flip").to_dict()
    assert "symmetric" in sf["interval"]["assumption"] and "sign-flip" in sf["interval"]["method"]
    calm = [{**r, "m": r["m"] if r["item"] != 5 else 0.25 * (r["variant"] == "a")} for r in rows]
    assert "skewed_gaps" not in {p.code for p in analyze(pl.DataFrame(calm), metric="m", a="a", b="b",
                                                          mdg=False).problems}


# ------------------------------------------------------------------------- noise from the log itself, runs as rows


def _five_runs_log(seed=3):
    rng = np.random.default_rng(seed)
    # seeds listed out of order, so the split must sort them: 5, 3, 1, 4, 2
    return [{"item": str(i), "variant": v, "seed": s, "steps": float(rng.integers(0, 7) + (v == "formal"))}
            for i in range(6) for v in ("formal", "casual") for s in (5, 3, 1, 4, 2)]


def _mean_square_over_every_split(runs: list[float]) -> float:
    """The mean, over every split of ``runs`` into ``len // 2`` runs and the rest (enumerated), of the squared
    gap between the two halves' means: the reference, by brute force, for the closed form."""
    k = len(runs) // 2
    squares = [(statistics.fmean([runs[j] for j in first])
                - statistics.fmean([runs[j] for j in range(len(runs)) if j not in first])) ** 2
               for first in itertools.combinations(range(len(runs)), k)]
    return statistics.fmean(squares)


def test_without_a_noise_log_the_runs_of_value_a_split_in_two_halves_read_over_every_split():
    # was: one split drawn at random (keyed by the cell's name and runs, seed 0), its gaps checked against the
    # rule of the draw by hand; the reference is now every split, enumerated here (10 splits of 5 runs per item)
    rows = _five_runs_log()
    analysis = analyze(rows, metric="steps")
    squares = [_mean_square_over_every_split([r["steps"] for r in rows if r["item"] == str(i)
                                              and r["variant"] == "formal"]) for i in range(6)]
    assert analysis.noise.items["gap"].to_list() == pytest.approx([math.sqrt(q) for q in squares], rel=1e-12)
    # the items are split independently: the average gap's mean square is the items' sum over 6**2
    assert analysis.noise.average_gap == pytest.approx(math.sqrt(sum(squares)) / 6, rel=1e-12)
    assert analysis.noise.items["n_a"].to_list() == [2] * 6 and analysis.noise.items["n_b"].to_list() == [3] * 6
    assert analysis.noise_source == ("within-log: the runs of value 'formal' in each item split in two halves, the "
                                     "halves' gap read over every split (its root mean square, from each cell's "
                                     "spread of runs: no draw)")
    data = analysis.to_dict()
    assert data["noise"]["source"] == analysis.noise_source and data["noise"]["a"] == "formal (first half)"
    assert data["noise"]["average_gap"] == analysis.noise.average_gap and "sign_flip" not in data["noise"]
    check = data["verdict"]["noise"]
    assert check["source"] == "within" and check["seed"] is None and check["p"] is None and not check["failed"]
    assert check["average_gap"] == analysis.noise.average_gap
    assert analyze(rows, metric="steps", within_noise=False).noise is None
    assert analyze(rows, metric="steps", noise="none").noise is None
    # nothing is drawn: the row order, the seed column, the item names and the seed leave it as it is
    shuffled = [rows[j] for j in np.random.default_rng(1).permutation(len(rows))]
    unseeded = [{k: v for k, v in r.items() if k != "seed"} for r in shuffled]
    renamed = [dict(r, item=f"item {int(r['item']) * 7 % 6}") for r in unseeded]
    for other in (analyze(unseeded, metric="steps", a="formal", b="casual"), analyze(rows, metric="steps", seed=7),
                  analyze(renamed, metric="steps", a="formal", b="casual")):
        assert sorted(other.noise.items["gap"].to_list()) == sorted(analysis.noise.items["gap"].to_list())
        assert other.noise.average_gap == pytest.approx(analysis.noise.average_gap, rel=1e-12)


def test_a_log_sorted_by_the_metric_within_cells_keeps_the_exact_verdict_and_is_named():
    # the tutorial-style probe, then its rows sorted by the metric within item x value, seeds dropped
    rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + (s % 3 == i % 2)}
            for i in range(8) for v in ("formal", "casual") for s in range(1, 6)]
    sorted_rows = [{k: v for k, v in r.items() if k != "seed"}
                   for r in sorted(rows, key=lambda r: (r["item"], r["variant"], r["steps"]))]
    analysis = analyze(sorted_rows, metric="steps")
    assert analysis.main.sign_flip.pvalue == 2 / 2**8   # all 8 gaps +1: brute force over 256 sign patterns
    assert analysis.verdict.conclusion == "detected" and analysis.verdict.statement == "a gap larger than chance"
    # the halves over every split ignore the row order: never a failed check, a size beside the gap
    assert not analysis.verdict.noise.failed and analysis.verdict.beyond_noise
    sorted_warning = [p for p in analysis.problems if p.code == "sorted_metric"]
    assert sorted_warning and "ascending order of steps" in sorted_warning[0].message
    assert "sorted_metric" not in {p.code for p in analyze(rows, metric="steps").problems}


def test_one_run_per_item_and_value_gives_no_within_log_noise():
    rows = [r for r in _five_runs_log() if r["seed"] == 1]
    assert analyze(rows, metric="steps").noise is None


def test_a_noise_log_with_one_run_per_cell_is_accepted_like_a_probe():
    noise = [{"item": str(i), "variant": v, "steps": float((i * 7 + len(v)) % 5)} for i in range(6) for v in ("x", "y")]
    analysis = analyze(_five_runs_log(), metric="steps", noise=noise)
    assert analysis.noise_source == "noise log" and analysis.mdg is not None
    assert "pooled within items" in analysis.mdg_method


def test_row_level_welch_t_is_scipys_on_the_runs():
    from scipy import stats

    from probestats.analyses.paired import with_row_level

    rows = _five_runs_log(seed=4)
    result = with_row_level(analyze(rows, metric="steps"))
    xa = [r["steps"] for r in rows if r["variant"] == "formal"]
    xb = [r["steps"] for r in rows if r["variant"] == "casual"]
    ref = stats.ttest_ind(xa, xb, equal_var=False)
    row = result.row_level
    assert (row.statistic, row.pvalue, row.df) == (pytest.approx(ref.statistic), pytest.approx(ref.pvalue), pytest.approx(ref.df))
    assert (row.n_a, row.n_b) == (30, 30) and "not independent" in row.note
    assert result.to_dict()["row_level"]["p"] == pytest.approx(ref.pvalue)
    # the item-level test stays the headline
    assert result.to_dict()["sign_flip"]["p"] == result.main.sign_flip.pvalue
