"""Many values: per-value means, the omnibus within-item permutation test, groups, pairwise tests."""

from __future__ import annotations

import itertools
import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probestats.errors import OptionError, ValidationError
from probestats import analyze_many
from probestats.analyses.many import parse_groups, unit_means
from probestats.analyses.omnibus import omnibus_statistic, omnibus_test
from tests.engines import analyze_pair as analyze
from tests.factories import make_log


def brute_force_p(matrix) -> float:
    """Every one of the (v!)**n within-item arrangements, the statistic recomputed from scratch."""
    m = np.asarray(matrix, dtype=float)
    n, v = m.shape

    def stat(rows):
        col_means = [sum(r[j] for r in rows) / n for j in range(v)]
        grand = sum(col_means) / v
        return n * sum((c - grand) ** 2 for c in col_means)

    observed = stat([list(r) for r in m])
    perms = list(itertools.permutations(range(v)))
    hits = total = 0
    for choice in itertools.product(perms, repeat=n):
        rows = [[m[i][p[j]] for j in range(v)] for i, p in enumerate(choice)]
        total += 1
        hits += stat(rows) >= observed - 1e-9 * max(observed, 1e-12)
    return hits / total


# ------------------------------------------------------------------------- omnibus: exact agrees with brute force


@pytest.mark.parametrize("matrix", [
    [[3.0, 1.0, 2.0], [4.0, 1.0, 1.0], [5.0, 2.0, 2.0], [2.0, 2.0, 0.5]],   # 6**4 = 1296 arrangements
    [[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]],    # 24**3, many ties
    [[0.2, 0.7], [0.3, 0.9], [0.1, 0.4], [0.5, 0.6], [0.0, 0.8]],          # two values: a sign-flip design
    [[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]],                                    # a constant item
])
def test_exact_omnibus_matches_brute_force(matrix):
    result = omnibus_test(matrix)
    assert result.method.startswith("exact")
    assert result.pvalue == pytest.approx(brute_force_p(matrix), rel=1e-12)


def test_two_values_omnibus_equals_two_sided_sign_flip():
    # with two values T = n/2 * mean gap**2, so the omnibus test is the two-sided sign-flip test
    from probestats.stats.hypotests import sign_flip_test

    m = np.array([[0.2, 0.7], [0.3, 0.9], [0.1, 0.4], [0.5, 0.6], [0.0, 0.8], [0.9, 0.1]])
    assert omnibus_test(m).pvalue == pytest.approx(sign_flip_test(m[:, 0] - m[:, 1]).pvalue, rel=1e-12)


def test_statistic_by_hand():
    # column means 2, 1, 0; grand mean 1; n = 2: 2 * (1 + 0 + 1) = 4
    assert omnibus_statistic([[3.0, 1.0, 0.0], [1.0, 1.0, 0.0]]) == 4.0


def test_monte_carlo_is_named_and_close_to_exact():
    rng = np.random.default_rng(5)
    m = rng.normal(size=(6, 3)) + np.array([0.6, 0.0, 0.0])
    exact = omnibus_test(m)
    mc = omnibus_test(m, method="monte-carlo", n_resamples=20_000, seed=1)
    assert exact.method.startswith("exact") and mc.method.startswith("monte carlo (n_resamples=20000, seed=1")
    assert abs(mc.pvalue - exact.pvalue) < 4 * mc.pvalue_se + 1e-4
    big = omnibus_test(rng.normal(size=(12, 4)), n_resamples=500, seed=2)   # 24**11 arrangements
    assert big.method.startswith("monte carlo") and big.n_resamples == 500 and big.pvalue_se is not None


def test_omnibus_rejects_bad_input():
    with pytest.raises(OptionError):
        omnibus_test([[1.0], [2.0]])
    with pytest.raises(OptionError):
        omnibus_test([[1.0, float("nan")]])


small_matrices = st.integers(1, 4).flatmap(lambda n: st.integers(2, 3).flatmap(lambda v: st.lists(
    st.lists(st.integers(-3, 3).map(float), min_size=v, max_size=v), min_size=n, max_size=n)))


@settings(max_examples=40, deadline=None)
@given(small_matrices, st.randoms(use_true_random=False))
def test_omnibus_properties(matrix, rnd):
    r = omnibus_test(matrix)
    assert 0 < r.pvalue <= 1
    assert r.pvalue == pytest.approx(brute_force_p(matrix), rel=1e-12)
    m = np.array(matrix)
    cols = list(range(m.shape[1]))
    rows = list(range(m.shape[0]))
    rnd.shuffle(cols)
    rnd.shuffle(rows)
    assert omnibus_test(m[:, cols]).pvalue == pytest.approx(r.pvalue, rel=1e-12)   # relabel values
    assert omnibus_test(m[rows, :]).pvalue == pytest.approx(r.pvalue, rel=1e-12)   # reorder items


# ------------------------------------------------------------------------- a hiring-style selection probe


def hiring_log(runs=1000, groups=8, names=2, penalty=0.0, seed=0):
    """Each run shows one candidate per group (a name drawn from the group's names); the top score is selected.

    Scores are standard normal, minus ``penalty`` for the last group: a planted disparity.
    """
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, names, size=(runs, groups))
    score = rng.standard_normal((runs, groups))
    score[:, -1] -= penalty
    top = score.argmax(axis=1)
    return pl.DataFrame({
        "run": np.repeat(np.arange(runs), groups).astype(str),
        "name": [f"name{g}{'abcd'[picks[r, g]]}" for r in range(runs) for g in range(groups)],
        "group": [f"g{g}" for _ in range(runs) for g in range(groups)],
        "selected": (np.arange(groups)[None, :] == top[:, None]).astype(np.int64).ravel(),
    })


GROUPS = [f"g{g}=" + ",".join(f"name{g}{c}" for c in "ab") for g in range(8)]


def test_selection_rates_and_impact_ratios_match_polars():
    log = hiring_log(penalty=1.0, seed=3)
    # the metric is a selection: the user says so (a 0/1 metric alone is not one)
    result = analyze_many(log, metric="selected", groups=GROUPS, n_resamples=2000, selection=True, read_options={
        "columns": {"item": "run", "variant": "name"}})
    # independent: share of runs in which the group's candidate was selected, over the highest share
    direct = log.group_by("group", maintain_order=True).agg(pl.col("selected").mean().alias("rate"))
    direct = direct.with_columns((pl.col("rate") / pl.col("rate").max()).alias("ratio"))
    data = result.to_dict()
    assert [v["value"] for v in data["values"]] == direct["group"].to_list()
    assert [v["mean"] for v in data["values"]] == pytest.approx(direct["rate"].to_list(), abs=1e-12)
    assert [r["rate"] for r in data["impact_ratios"]] == pytest.approx(direct["rate"].to_list(), abs=1e-12)
    assert [r["ratio"] for r in data["impact_ratios"]] == pytest.approx(direct["ratio"].to_list(), abs=1e-12)
    assert [r["below_four_fifths"] for r in data["impact_ratios"]] == [x < 0.8 for x in direct["ratio"]]
    assert all(v["n_items"] == 1000 for v in data["values"])
    assert "not a finding of discrimination by itself" in data["four_fifths"]["note"]
    # the planted disparity: detected by the omnibus test and against the reference
    assert data["omnibus"]["method"].startswith("monte carlo") and data["omnibus"]["p"] < 0.01
    last = [g for g in data["gaps"] if g["a"] == "g7"][0]
    assert last["average_gap"] < 0 and 0 < last["p_adjusted"] < 1e-6


def test_omnibus_keeps_its_false_positive_rate_on_null_logs():
    # 200 null hiring-style logs of 40 runs and 8 groups; the omnibus test at alpha 0.05
    alpha, sims = 0.05, 200
    rejections = 0
    for s in range(sims):
        log = hiring_log(runs=40, names=1, penalty=0.0, seed=1000 + s)
        m = log.pivot(on="group", index="run", values="selected").drop("run").to_numpy()
        rejections += omnibus_test(m, n_resamples=199, seed=s).pvalue <= alpha
    rate = rejections / sims
    se = math.sqrt(alpha * (1 - alpha) / sims)
    assert rate <= alpha + 3 * se   # a permutation test never exceeds its level (beyond binomial error)
    assert abs(rate - alpha) <= 3 * se


def test_analyze_dispatches_to_many_values():
    log = make_log(items=6, runs=3, gap=2.0, values=("A", "B", "C"), seed=1)
    result = analyze(log, metric="steps")
    assert type(result).__name__ == "ManyAnalysis"
    data = result.to_dict()
    assert [v["value"] for v in data["values"]] == ["A", "B", "C"]
    assert data["reference"] == "A"
    # direct: the mean over items of each value's item mean
    direct = (log.group_by("item", "variant").agg(pl.col("steps").mean())
              .group_by("variant").agg(pl.col("steps").mean()))
    by_value = dict(direct.iter_rows())
    for v in data["values"]:
        assert v["mean"] == pytest.approx(by_value[v["value"]], abs=1e-12)
    assert "impact_ratios" not in data   # not a 0/1 metric
    pair = analyze(log, metric="steps", a="A", b="B")
    assert type(pair).__name__ == "Analysis"   # --a/--b keep the paired analysis


def test_groups_count_each_name_once():
    # item 1: Emily has 3 runs (mean 1/3), Lakisha 1 run (1): the group mean is (1/3 + 1) / 2, not 2/4
    rows = ([{"item": "1", "variant": "Emily", "x": x} for x in (1, 0, 0)]
            + [{"item": "1", "variant": "Lakisha", "x": 1}, {"item": "1", "variant": "Greg", "x": 0},
               {"item": "1", "variant": "Jamal", "x": 1}])
    result = analyze_many(rows, metric="x", groups=["female=Emily,Lakisha", "male=Greg,Jamal"])
    means = {v.value: v.mean for v in result.main.values}
    assert means["female"] == pytest.approx((1 / 3 + 1) / 2)
    assert means["male"] == pytest.approx(0.5)


def test_pairwise_holm_and_reference():
    log = make_log(items=7, runs=4, gap=1.5, values=("A", "B", "C", "D"), seed=2)
    result = analyze_many(log, metric="steps", reference="B")
    pairs = result.main.pairwise
    assert len(pairs) == 6
    raw = sorted(g.sign_flip.pvalue for g in pairs)
    # Holm by hand: sorted p_(k) * (m - k + 1), running maximum, capped at 1
    holm, top = [], 0.0
    for k, p in enumerate(raw):
        top = max(top, min(1.0, (6 - k) * p))
        holm.append(top)
    assert sorted(g.p_adjusted for g in pairs) == pytest.approx(holm)
    assert [g.a for g in result.main.gaps] == ["A", "C", "D"] and {g.b for g in result.main.gaps} == {"B"}
    # the gap against the reference is the same sign-flip test as the pairwise one
    ab = [g for g in pairs if (g.a, g.b) == ("A", "B")][0]
    ga = result.main.gaps[0]
    assert ga.average_gap == pytest.approx(ab.average_gap) and ga.sign_flip.pvalue == ab.sign_flip.pvalue


def test_by_groups_adjust_the_omnibus():
    log = pl.concat([make_log(items=5, runs=2, values=("A", "B", "C"), model=m, seed=i)
                     for i, m in enumerate(("m1", "m2"))])
    result = analyze_many(log, metric="steps", by=["model"])
    assert [g.by for g in result.groups] == [{"model": "m1"}, {"model": "m2"}]
    assert all(g.omnibus_p_adjusted >= g.omnibus.pvalue for g in result.groups)
    assert result.to_dict()["groups"][0]["omnibus"]["p_adjusted"] is not None


def test_unmatched_items_and_bad_options():
    rows = [{"item": i, "variant": v, "x": 1.0} for i in range(3) for v in "ABC"][:-1]   # item 2 lacks C
    with pytest.raises(ValidationError) as exc:
        analyze_many(rows, metric="x")
    assert "items 2 have no 'C' runs" in str(exc.value)
    ok = [{"item": i, "variant": v, "x": float(i)} for i in range(3) for v in "ABC"]
    with pytest.raises(OptionError, match="reference='Z': no such value"):
        analyze_many(ok, metric="x", reference="Z")
    with pytest.raises(OptionError, match="groups='f': no value 'Q' in the log"):
        analyze_many(ok, metric="x", groups=["f=A,Q", "m=B"])
    with pytest.raises(OptionError, match="is in both"):
        parse_groups(["f=A,B", "m=B,C"])


def test_unit_means_long_table():
    frame = pl.DataFrame({"item": ["1", "1", "2", "2"], "variant": ["a", "b", "a", "b"],
                          "_unit": ["a", "b", "a", "b"], "x": [1.0, 2.0, 3.0, 5.0]})
    assert unit_means(frame, "x").rows() == [("1", "a", 1.0, 1), ("1", "b", 2.0, 1), ("2", "a", 3.0, 1),
                                             ("2", "b", 5.0, 1)]


# ------------------------------------------------------------------------- command line


def run_cli(args, capsys):
    from probestats.cli import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_many_values_groups_and_errors(tmp_path, capsys):
    import json

    from tests.factories import write_log

    path = write_log(hiring_log(runs=60, penalty=2.0, seed=7), tmp_path / "hire.csv")
    args = ["analyze", path, "--metric", "selected", "--column", "item=run", "--column", "variant=name",
            *sum((["--group", g] for g in GROUPS), []), "--n-resamples", "500", "--seed", "3"]
    code, out, err = run_cli(args + ["--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert [v["value"] for v in data["values"]] == [f"g{g}" for g in range(8)]
    assert data["omnibus"]["method"].startswith("monte carlo (n_resamples=500, seed=3")
    assert "impact_ratios" not in data   # 0/1, but not said to be a selection
    code, out, err = run_cli(args + ["--json", "--set", "selection=yes"], capsys)
    assert code == 0, err
    assert {"value", "rate", "ratio"} <= set(json.loads(out)["impact_ratios"][0])
    code, out, err = run_cli(args, capsys)
    assert code == 0 and "four-fifths" not in out and "selection rate" not in out and "impact ratio" not in out
    code, out, err = run_cli(args + ["--set", "selection=yes"], capsys)
    assert code == 0 and "four-fifths reference used in US employment guidance" in out
    code, out, err = run_cli(args + ["--reference", "g9"], capsys)
    assert code == 1
    assert err == ("Error: --reference g9: no such value; values: 'g0', 'g1', 'g2', 'g3', 'g4', 'g5', 'g6', 'g7'\n")
    code, out, err = run_cli(args + ["--a", "name0a"], capsys)
    assert code == 1
    assert err == "Error: --group and --reference compare every value; drop --a and --b (or drop --group)\n"
    code, out, err = run_cli(["analyze", path, "--metric", "selected", "--group", "nogroup"], capsys)
    assert code == 1
    assert err == ("Error: --group nogroup: expected GROUP=value,value, for example --group female=Emily,Lakisha\n")

    four = write_log(make_log(items=4, runs=2, values=("A", "B", "C"), seed=1), tmp_path / "four.csv")
    code, out, err = run_cli(["analyze", four, "--metric", "steps"], capsys)
    assert code == 0 and "omnibus test that the value makes no difference (4 items, 3 values)" in out


def test_means_too_large_to_subtract_are_refused(tmp_path, capsys):
    # 1e308 - (-1e308) overflows: one Error line, not numpy's overflow warnings
    rows = [{"item": i, "variant": v, "x": 1e308 if v == "A" else -1e308} for i in range(4) for v in "ABC"]
    with pytest.raises(OptionError, match=r"the means of item 0, 1, 2, 3 are too large to compare .* rescale"):
        analyze_many(rows, metric="x")
    from tests.factories import write_log

    path = write_log(pl.DataFrame(rows), tmp_path / "huge.csv")
    code, out, err = run_cli(["analyze", path, "--metric", "x"], capsys)
    assert code == 1 and out == "" and err.count("\n") == 1 and err.startswith("Error: the means of item 0")


def test_a_setting_confounded_within_items_names_them_in_order_of_appearance():
    # items 5, 1 and 3 each have value 'c' run on another model; the message lists them as the log
    # does, the same on every run
    rows = [{"item": i, "variant": v, "seed": s, "model": "m2" if (v == "c" and i in (5, 1, 3)) else "m1",
             "steps": 3 + s % 2} for i in (5, 2, 1, 4, 3) for v in ("a", "b", "c") for s in (1, 2)]
    for _ in range(5):
        with pytest.raises(ValidationError) as info:
            analyze_many(rows, metric="steps")
        (problem,) = [p for p in info.value.problems if p.code == "confounded_setting"]
        assert "within items 5, 1, 3;" in problem.message


def test_a_two_value_design_of_four_million_arrangements_is_enumerated_exactly():
    # 23 items, 2 values: 2**22 = 4,194,304 distinct arrangements, under the exact limit of 10**7; with
    # two values the omnibus test is the two-sided sign-flip test, computed exactly by its own method
    m = np.random.default_rng(5).normal(size=(23, 2))
    result = omnibus_test(m)
    assert result.method.startswith("exact (enumeration of 4194304 distinct")
    from probestats.stats.hypotests import sign_flip_test

    assert result.pvalue == pytest.approx(sign_flip_test(m[:, 0] - m[:, 1]).pvalue, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(2, 3), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_exact_enumeration_in_small_chunks_matches_brute_force(n, v, chunk, seed):
    # the meet-in-the-middle enumeration scored a few pairs at a time: every chunk boundary counts once
    from probestats.analyses.omnibus import _distinct_arrangements, _enumerate_hits

    m = np.random.default_rng(seed).integers(0, 3, size=(n, v)).astype(float)
    t_obs = omnibus_statistic(m)
    free = [m[i] for i in range(1, n) if _distinct_arrangements(m[i]) > 1]
    fixed = sum((m[i] for i in range(1, n) if _distinct_arrangements(m[i]) == 1), np.zeros(v))
    hits, size = _enumerate_hits(m[0] + fixed, free, n, t_obs - 1e-9 * max(t_obs, 1.0), chunk=chunk)
    assert hits / size == pytest.approx(brute_force_p(m), rel=1e-12)
