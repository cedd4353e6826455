"""The tests on runs studies publish where each run is an independent call (``--row-level``), checked against the
references written here: scipy's ``ttest_ind`` for Welch's and Student's t and their intervals, the pooled-SD Cohen's
d with the interval found here by root-finding on ``scipy.stats.nct``, and statsmodels' ``anova_lm`` (Type II) and
``ols(...).fit(cov_type="cluster")`` for the two-way ANOVA and the OLS interaction, clusters the items.

The log: runs of two conditions (outcome 'good', 'bad') in two studies, each study its own scenarios (the items),
unequal runs per cell so that the ANOVA's type matters; the studies first appear in the order s2, s1 (the groups'
order, so s2 is the reference level of the interaction).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
import statsmodels.formula.api as smf
from scipy import optimize, stats
from statsmodels.stats.anova import anova_lm

import probestats
from tests.cli_run import one_error_line, run_cli

TOL = 1e-9


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    rng = np.random.default_rng(2026)
    rows = []
    for study, boost in (("s2", 0.6), ("s1", -0.1)):
        for k in range(7):
            base = rng.normal(0, 1)
            for outcome in ("good", "bad"):
                for run in range(4 + (k + (outcome == "good")) % 3):    # 4 to 6 runs: an unbalanced design
                    x = base + (0.4 + boost if outcome == "good" else 0.0) + rng.normal(0, 1)
                    rows.append({"study": study, "item": f"{study}-scenario{k}", "variant": outcome, "seed": run,
                                 "blame": round(x, 3), "wrong": round(0.5 * x + rng.normal(0, 1), 3)})
    path = tmp_path_factory.mktemp("runs") / "outcome.csv"
    pl.DataFrame(rows).write_csv(path)
    return path


def _frame(path) -> pd.DataFrame:
    return pl.read_csv(path).to_pandas()


def _cohen_reference(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """Cohen's d on the pooled SD and its 95% interval: the noncentralities at which scipy's noncentral t puts the
    observed Student t at the 0.975 and 0.025 quantiles, over sqrt(n_a n_b / (n_a + n_b))."""
    na, nb = len(a), len(b)
    df = na + nb - 2
    sp = math.sqrt(((na - 1) * a.var(ddof=1) + (nb - 1) * b.var(ddof=1)) / df)
    d = (a.mean() - b.mean()) / sp
    scale = math.sqrt(na * nb / (na + nb))
    t = d * scale
    lo = optimize.brentq(lambda nc: stats.nct.cdf(t, df, nc) - 0.975, t - 10, t + 10, xtol=1e-14)
    hi = optimize.brentq(lambda nc: stats.nct.cdf(t, df, nc) - 0.025, t - 10, t + 10, xtol=1e-14)
    return d, lo / scale, hi / scale


def _hedges_j(df: int) -> float:
    return math.gamma(df / 2) / (math.sqrt(df / 2) * math.gamma((df - 1) / 2))


def _references(frame: pd.DataFrame, metric: str) -> dict:
    a = frame.loc[frame.variant == "good", metric].to_numpy()
    b = frame.loc[frame.variant == "bad", metric].to_numpy()
    welch = stats.ttest_ind(a, b, equal_var=False)
    student = stats.ttest_ind(a, b, equal_var=True)
    data = pd.DataFrame({"y": frame[metric], "outcome": pd.Categorical(frame.variant, ["bad", "good"]),
                         "study": pd.Categorical(frame.study, ["s2", "s1"])})
    model = smf.ols("y ~ outcome * study", data=data)
    two_way = anova_lm(model.fit(), typ=2)
    one_way = anova_lm(smf.ols("y ~ outcome", data=data).fit(), typ=2)
    groups = pd.factorize(frame["item"])[0]
    clustered = model.fit(cov_type="cluster", cov_kwds={"groups": groups})
    term = "outcome[T.good]:study[T.s1]"

    def t_mean(x):
        half = stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x))
        return x.mean() - half, x.mean() + half

    d, d_lo, d_hi = _cohen_reference(a, b)
    j = _hedges_j(len(a) + len(b) - 2)
    return {"welch": welch, "welch_ci": welch.confidence_interval(), "student": student,
            "student_ci": student.confidence_interval(), "mean_a": t_mean(a), "mean_b": t_mean(b),
            "d": (d, d_lo, d_hi), "g": (j * d, j * d_lo, j * d_hi), "one_way": one_way, "two_way": two_way,
            "ols": clustered, "term": term, "n": (len(a), len(b))}


def _check(row_level: dict, ref: dict) -> None:
    """One metric's ``row_level`` JSON object against the references, to 1e-9."""
    approx = lambda x: pytest.approx(x, abs=TOL, rel=TOL)  # noqa: E731
    assert (row_level["n_a"], row_level["n_b"]) == ref["n"]
    assert row_level["statistic"] == approx(ref["welch"].statistic) and row_level["p"] == approx(ref["welch"].pvalue)
    assert row_level["df"] == approx(ref["welch"].df)
    iv = row_level["difference_interval"]
    assert (iv["low"], iv["high"]) == (approx(ref["welch_ci"].low), approx(ref["welch_ci"].high))
    student = row_level["student"]
    assert student["statistic"] == approx(ref["student"].statistic) and student["p"] == approx(ref["student"].pvalue)
    assert (student["interval"]["low"], student["interval"]["high"]) == (approx(ref["student_ci"].low),
                                                                         approx(ref["student_ci"].high))
    for key, ends in (("mean_a_interval", ref["mean_a"]), ("mean_b_interval", ref["mean_b"])):
        assert (row_level[key]["low"], row_level[key]["high"]) == (approx(ends[0]), approx(ends[1]))
    for key, (value, lo, hi) in (("cohen_d", ref["d"]), ("hedges_g", ref["g"])):
        got = row_level[key]
        assert got["value"] == approx(value)
        assert (got["interval"]["low"], got["interval"]["high"]) == (approx(lo), approx(hi))
    assert row_level["headline"] is False and row_level["paired"] is True
    models = row_level["models"]
    one = ref["one_way"]
    assert models["one_way"][0]["f"] == approx(one.loc["outcome", "F"])
    assert models["one_way"][0]["p"] == approx(one.loc["outcome", "PR(>F)"])
    two = ref["two_way"]
    got = {r["term"]: r for r in models["two_way"]}
    for ours, theirs in (("value", "outcome"), ("study", "study"), ("value × study", "outcome:study"),
                         ("residual", "Residual")):
        assert got[ours]["sum_sq"] == approx(two.loc[theirs, "sum_sq"])
        assert got[ours]["df"] == approx(two.loc[theirs, "df"])
        if ours != "residual":
            assert got[ours]["f"] == approx(two.loc[theirs, "F"])
            assert got[ours]["p"] == approx(two.loc[theirs, "PR(>F)"])
    fit, term = ref["ols"], ref["term"]
    inter = next(c for c in models["ols"] if c["term"] == "value × study[s1]")
    ci = fit.conf_int()
    assert inter["estimate"] == approx(fit.params[term]) and inter["se"] == approx(fit.bse[term])
    assert inter["statistic"] == approx(fit.tvalues[term]) and inter["p"] == approx(fit.pvalues[term])
    assert (inter["low"], inter["high"]) == (approx(ci.loc[term, 0]), approx(ci.loc[term, 1]))
    # the interaction is the gap at s1 minus the gap at s2, the first study in the log (the groups' order)
    assert "at 's1' − the gap at 's2'" in inter["meaning"]
    assert models["levels"] == ["s2", "s1"] and models["n_clusters"] == 14 and models["cluster"] == "item"


def test_run_level_tests_equal_scipy_and_statsmodels_in_json_and_python(capsys, log_path):
    ref = _references(_frame(log_path), "blame")
    code, out, err = run_cli(capsys, "analyze", log_path, "--metric", "blame", "--a", "good", "--b", "bad",
                             "--by", "study", "--row-level", "--json")
    assert code == 0, err
    _check(json.loads(out)["row_level"], ref)
    result = probestats.analyze(log_path, metric="blame", a="good", b="bad", by="study", row_level=True)
    _check(result.row_level.to_dict(), ref)
    # the Python objects hold the same numbers as their JSON
    assert result.row_level.samples.cohen_d.value == pytest.approx(ref["d"][0], abs=TOL)
    assert result.row_level.models.interaction.se == pytest.approx(ref["ols"].bse[ref["term"]], abs=TOL)


def test_several_metrics_each_get_their_run_level_tests(capsys, log_path):
    frame = _frame(log_path)
    code, out, err = run_cli(capsys, "analyze", log_path, "--metric", "blame,wrong", "--a", "good", "--b", "bad",
                             "--by", "study", "--row-level", "--json")
    assert code == 0, err
    metrics = json.loads(out)["metrics"]
    assert [m["metric"] for m in metrics] == ["blame", "wrong"]
    for m in metrics:
        _check(m["row_level"], _references(frame, m["metric"]))
    code, out, _ = run_cli(capsys, "analyze", log_path, "--metric", "blame,wrong", "--a", "good", "--b", "bad",
                           "--row-level")
    assert code == 0 and out.count("row level, beside the item-level tests") == 2


def test_per_group_and_per_item_welch_carry_the_intervals_of_each_mean_and_the_difference(capsys, log_path):
    frame = _frame(log_path)
    code, out, err = run_cli(capsys, "analyze", log_path, "--metric", "blame", "--a", "good", "--b", "bad",
                             "--by", "study", "--row-level", "--per-item", "--json")
    assert code == 0, err
    data = json.loads(out)
    checked = 0
    for key, column in (("welch_per_group", "study"), ("welch_per_item", "item")):
        for t in data[key]["tests"]:
            sub = frame[frame[column] == t[column]]
            a = sub.loc[sub.variant == "good", "blame"].to_numpy()
            b = sub.loc[sub.variant == "bad", "blame"].to_numpy()
            ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval()
            assert t["difference_interval"]["low"] == pytest.approx(ci.low, abs=TOL)
            assert t["difference_interval"]["high"] == pytest.approx(ci.high, abs=TOL)
            half = stats.t.ppf(0.975, len(a) - 1) * a.std(ddof=1) / math.sqrt(len(a))
            assert t["mean_a_interval"]["low"] == pytest.approx(a.mean() - half, abs=TOL)
            checked += 1
    assert checked == 2 + 14


def test_the_terminal_and_the_report_show_the_run_level_table(capsys, log_path, tmp_path):
    ref = _references(_frame(log_path), "blame")
    d, lo, hi = ref["d"]
    code, out, _ = run_cli(capsys, "analyze", log_path, "--metric", "blame", "--a", "good", "--b", "bad", "--by",
                           "study", "--row-level")
    assert code == 0
    cells = (f"{d:+.4g}", f"[{lo:.4g}, {hi:.4g}]", f"{ref['ols'].params[ref['term']]:+.4g}")
    line = next(x for x in out.splitlines() if x.startswith("Cohen's d"))
    assert cells[0] in line and cells[1] in line
    assert any(x.startswith("OLS: value × study[s1]") and cells[2] in x for x in out.splitlines())
    assert "the design is paired" in out
    start = out.index("row level, beside the item-level tests")
    section = out[start:out.index("noise within the log", start)].splitlines()
    assert len(section) <= 24 and max(len(x) for x in section) <= 120
    path = tmp_path / "r.md"
    code, _, err = run_cli(capsys, "report", log_path, "--metric", "blame", "--a", "good", "--b", "bad", "--by",
                           "study", "--row-level", "-o", path)
    assert code == 0, err
    text = path.read_text()
    assert "### Tests on runs" in text
    row = next(x for x in text.splitlines() if x.startswith("| Cohen's d |"))
    assert cells[0] in row and f"{lo:.4g}" in row and f"{hi:.4g}" in row
    f = ref["two_way"].loc["outcome:study", "F"]
    assert any(x.startswith("| two-way ANOVA: value × study |") and f"{f:.4g}" in x for x in text.splitlines())
    assert "Type II" in text and "cluster-robust" in text


def test_refusals(capsys, log_path, tmp_path):
    code, _, err = run_cli(capsys, "report", log_path, "--metric", "blame,wrong", "--row-level", "-o",
                           tmp_path / "r.md")
    one_error_line(code, err, "--row-level", "one metric")
    cells = tmp_path / "cells.csv"
    assert run_cli(capsys, "cells", log_path, "--metric", "blame", "-o", cells)[0] == 0
    code, _, err = run_cli(capsys, "report", cells, "--metric", "blame", "--row-level", "-o", tmp_path / "c.md")
    one_error_line(code, err, "--row-level")


def test_runs_without_spread_give_undefined_tests_not_float_noise(capsys, tmp_path):
    # every run of a value alike: t, d and F are undefined; the OLS gap is exact but has no standard error
    path = tmp_path / "flat.csv"
    pl.DataFrame([{"item": i, "variant": v, "seed": s, "x": 1.0 if v == "a" else 0.0}
                  for i in range(4) for v in "ab" for s in range(3)]).write_csv(path)
    code, out, err = run_cli(capsys, "analyze", path, "--metric", "x", "--row-level", "--json")
    assert code == 0, err
    r = json.loads(out)["row_level"]
    assert r["p"] is None and r["student"]["p"] is None and r["cohen_d"]["value"] is None
    assert r["models"]["one_way"][0]["f"] is None and r["models"]["ols"][1]["estimate"] == pytest.approx(1.0)
    assert r["models"]["ols"][1]["se"] is None and "undefined" in r["note"]
    # the same gap in every item: the cluster-robust standard error of the value is 0, so none is given
    same = tmp_path / "same.csv"
    pl.DataFrame([{"item": i, "variant": v, "seed": s, "x": float(i + s)}
                  for i in range(4) for v in "ab" for s in range(3)]).write_csv(same)
    code, out, err = run_cli(capsys, "analyze", same, "--metric", "x", "--row-level", "--json")
    assert code == 0, err
    value = json.loads(out)["row_level"]["models"]["ols"][1]
    assert value["se"] is None and value["p"] is None and abs(value["estimate"]) < 1e-12
