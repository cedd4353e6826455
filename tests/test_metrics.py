"""Several metrics in one analysis (probestats.analyses.metrics), --per-item, and the intervals'
--seed / --n-resamples through the command line.

References: separate single-metric runs of the same command, statsmodels multipletests over the
family, scipy.stats.ttest_ind for Welch's t, scipy.stats.bootstrap for the intervals.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from probestats.cli import main
from factories import make_log

METRICS = ("steps", "double", "noisy", "null")


@pytest.fixture(scope="module")
def judge_log(tmp_path_factory):
    frames = []
    for i, judge in enumerate(("j1", "j2", "j3")):
        rng = np.random.default_rng(i)
        f = make_log(items=8, runs=4, seed=i).with_columns(pl.lit(judge).alias("judge"))
        frames.append(f.with_columns((pl.col("steps") * 2).alias("double"),
                                     (pl.col("steps") + pl.Series(rng.integers(0, 4, f.height))).alias("noisy"),
                                     pl.Series(rng.integers(0, 5, f.height)).alias("null")))
    path = tmp_path_factory.mktemp("metrics") / "judges.csv"
    pl.concat(frames).write_csv(path)
    return path


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


@pytest.mark.parametrize("correction", ["bh", "holm"])
def test_four_metrics_by_judge_one_family(capsys, judge_log, correction):
    # Benjamini-Hochberg corrects each member's own p, as statsmodels does; Holm (the default) is read by the
    # joint sign-flip test, whose adjusted p never exceeds Holm's (within its Monte Carlo error here)
    code, out, _ = run(capsys, "analyze", judge_log, "--metric", ",".join(METRICS), "--by", "judge", "--json",
                       "--n-resamples", "500", "--correction", correction)
    assert code == 0
    multi = json.loads(out)
    assert [m["metric"] for m in multi["metrics"]] == list(METRICS)
    family = multi["family"]
    assert family["n_tests"] == 12 and "4 metrics × 3 groups" in family["text"]
    assert ("joint sign-flip test" in family["text"]) == (correction == "holm")
    raw = []
    for metric, m in zip(METRICS, multi["metrics"]):
        code, single_out, _ = run(capsys, "analyze", judge_log, "--metric", metric, "--by", "judge", "--json",
                                  "--n-resamples", "500")
        single = json.loads(single_out)
        assert code == 0 and len(m["groups"]) == 3
        for g, s in zip(m["groups"], single["groups"]):   # the same analysis as a separate run ...
            assert g["by"] == s["by"] and g["average_gap"] == s["average_gap"]
            assert g["sign_flip"]["p"] == s["sign_flip"]["p"]
            assert g["effect_sizes"] == s["effect_sizes"] and g["published_tests"] == s["published_tests"]
            raw.append(s["sign_flip"]["p"])
    got = [g["sign_flip"]["p_adjusted"] for m in multi["metrics"] for g in m["groups"]]
    assert [t["p_adjusted"] for t in family["tests"]] == got
    if correction == "bh":
        assert got == pytest.approx(list(multipletests(raw, method="fdr_bh")[1]), abs=1e-15)
        return
    holm = multipletests(raw, method="holm")[1]
    for mine, bound in zip(got, holm):
        assert mine <= bound + 4 * (bound * (1 - bound) / 500) ** 0.5 + 2 / 501
    by_metric = dict(zip(METRICS, np.array(got).reshape(4, 3)))
    assert list(by_metric["steps"]) == list(by_metric["double"])   # double = 2 x steps: one member, twice


def test_one_metric_json_is_unchanged(capsys, judge_log):
    _, one, _ = run(capsys, "analyze", judge_log, "--metric", "steps", "--json")
    assert "metrics" not in json.loads(one) and json.loads(one)["metric"] == "steps"


def test_four_metrics_text_and_report(capsys, judge_log, tmp_path):
    code, out, _ = run(capsys, "analyze", judge_log, "--metric", "steps,double", "--metric", "noisy,null",
                       "--by", "judge", "--n-resamples", "200")
    assert code == 0
    assert "the joint sign-flip test over the family of 12 tests (4 metrics × 3 groups)" in " ".join(out.split())
    for metric in METRICS:
        assert f"metric {metric}" in out
    md = tmp_path / "r.md"
    code, _, _ = run(capsys, "report", judge_log, "--metric", ",".join(METRICS), "--by", "judge", "-o", md,
                     "--effect-size", "d_av", "--n-resamples", "200")
    assert code == 0
    text = md.read_text()
    assert "## Several metrics: steps, double, noisy, null" in text and "metrics_heatmap.png" in text
    assert (tmp_path / "r_files" / "metrics_heatmap.png").read_bytes()[:4] == b"\x89PNG"
    assert "d\\_av with its 95% interval" in text
    html = tmp_path / "r.html"
    assert run(capsys, "report", judge_log, "--metric", ",".join(METRICS), "--by", "judge", "-o", html,
               "--n-resamples", "200")[0] == 0
    assert "data:image/png;base64," in html.read_text()


def test_several_metrics_refuse_what_takes_one(capsys, judge_log):
    code, _, err = run(capsys, "analyze", judge_log, "--metric", "steps,double", "--per-item")
    assert code == 1 and err.strip() == "Error: --per-item takes one --metric; run it once per metric"


def test_by_item_points_to_per_item_and_per_item_runs(capsys, judge_log):
    code, _, err = run(capsys, "analyze", judge_log, "--metric", "steps", "--by", "item")
    assert code == 1 and "use --per-item" in err
    code, out, _ = run(capsys, "analyze", judge_log, "--metric", "steps", "--per-item", "--json", "--where",
                       "judge = 'j1'")
    assert code == 0
    welch = json.loads(out)["welch_per_item"]
    frame = pl.read_csv(judge_log).filter(pl.col("judge") == "j1")
    assert welch["n_tests"] == 8 and welch["correction"] == "holm"
    raw = []
    for t in welch["tests"]:
        cell = frame.filter(pl.col("item").cast(pl.String) == t["item"])
        ref = stats.ttest_ind(cell.filter(pl.col("variant") == "formal")["steps"].to_numpy().astype(float),
                              cell.filter(pl.col("variant") == "casual")["steps"].to_numpy().astype(float),
                              equal_var=False)
        assert t["p"] == pytest.approx(float(ref.pvalue), abs=1e-14)
        raw.append(float(ref.pvalue))
    assert [t["p_adjusted"] for t in welch["tests"]] == pytest.approx(list(multipletests(raw, method="holm")[1]))


def test_row_level_by_group_gives_welch_per_group(capsys, judge_log):
    code, out, _ = run(capsys, "analyze", judge_log, "--metric", "steps", "--row-level", "--by", "judge", "--json")
    assert code == 0
    groups = json.loads(out)["welch_per_group"]["tests"]
    frame = pl.read_csv(judge_log)
    for t in groups:
        cell = frame.filter(pl.col("judge") == t["judge"])
        ref = stats.ttest_ind(cell.filter(pl.col("variant") == "formal")["steps"].to_numpy().astype(float),
                              cell.filter(pl.col("variant") == "casual")["steps"].to_numpy().astype(float),
                              equal_var=False)
        assert t["p"] == pytest.approx(float(ref.pvalue), abs=1e-14)


def test_interval_seed_and_resamples_reach_the_interval(capsys, judge_log):
    base = ("analyze", judge_log, "--metric", "steps", "--json", "--interval", "bootstrap")
    one = json.loads(run(capsys, *base, "--seed", "1")[1])["interval"]
    two = json.loads(run(capsys, *base, "--seed", "2")[1])["interval"]
    assert (one["low"], one["high"]) != (two["low"], two["high"])
    assert "seed 1" in one["method"] and "seed 2" in two["method"] and "10,000 resamples" in one["method"]
    pct = json.loads(run(capsys, "analyze", judge_log, "--metric", "steps", "--json", "--interval", "percentile",
                         "--seed", "3", "--n-resamples", "4000")[1])
    # the package draws over the items in an order of their numbers (sorted gaps), not the log's
    gaps = np.sort(np.array([i["gap"] for i in pct["items"]]))
    ref = stats.bootstrap((gaps,), np.mean, method="percentile", n_resamples=4000, rng=np.random.default_rng(3),
                          vectorized=True, confidence_level=0.95)
    assert (pct["interval"]["low"], pct["interval"]["high"]) == (float(ref.confidence_interval.low),
                                                                 float(ref.confidence_interval.high))
    assert "4,000 resamples, seed 3" in pct["interval"]["method"]


def test_report_takes_interval_and_hedges(capsys, judge_log, tmp_path):
    out = tmp_path / "r.json"
    code, _, _ = run(capsys, "report", judge_log, "--metric", "steps", "-o", out, "--interval", "percentile",
                     "--seed", "4", "--effect-size", "g_z")
    assert code == 0
    d = json.loads(out.read_text())
    assert "percentile bootstrap" in d["interval"]["method"] and "seed 4" in d["interval"]["method"]
    assert d["effect_sizes"]["d_z"]["name"] == "g_z"
