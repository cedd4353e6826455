"""Every value's mean and every difference carries its 95% interval, in JSON, in the report and on the terminal.

A study of four models rating three stories under three stated authors publishes each author's mean with its
interval and each difference of two authors with its interval. Here: three values × three items × four models,
three runs each (108 runs). Each interval is checked against the Student t interval written here with
``scipy.stats.t`` from the item means (the mean over an item's runs under a value): each value's average of its
item means ± t(n − 1) · sd / sqrt(n), and each gap's the same on the item gaps. For a pair with ``--cluster``,
each value's interval is the cluster-level t, written here from its formula.
"""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from scipy import stats

from tests.cli_run import run_cli

VALUES = ("anon", "human", "ai")
ITEMS = ("story1", "story2", "story3")
MODELS = ("m1", "m2", "m3", "m4")
SHIFT = {"anon": 0.0, "human": 0.4, "ai": -0.3}


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    rng = np.random.default_rng(53)
    rows = []
    for k, item in enumerate(ITEMS):
        for j, model in enumerate(MODELS):
            for run in range(3):
                for value in VALUES:
                    rows.append({"item": item, "model": model, "variant": value, "seed": 100 * k + 10 * j + run,
                                 "score": round(5 + SHIFT[value] + 0.3 * k + rng.normal(0, 1), 2)})
    path = tmp_path_factory.mktemp("means") / "three.csv"
    pl.DataFrame(rows).write_csv(path)
    return path


def _item_means(path, model=None) -> dict[str, np.ndarray]:
    """value -> its item means, in item order (over every model's runs, or one model's)."""
    frame = pl.read_csv(path)
    if model is not None:
        frame = frame.filter(pl.col("model") == model)
    out = {}
    for value in VALUES:
        sub = frame.filter(pl.col("variant") == value)
        out[value] = np.array([sub.filter(pl.col("item") == item)["score"].to_numpy().mean() for item in ITEMS])
    return out


def _t(x: np.ndarray) -> tuple[float, float]:
    n = len(x)
    half = stats.t.ppf(0.975, n - 1) * np.std(x, ddof=1) / math.sqrt(n)
    return x.mean() - half, x.mean() + half


def _cell(low: float, high: float) -> str:
    return f"[{low:.4g}, {high:.4g}]"


def _check_many(result: dict, means: dict[str, np.ndarray]) -> list[str]:
    """Every value's and every gap's interval in one many-values JSON object equals the t interval here; the
    cells the report and terminal must show: the values', the gaps' against the reference, then the pairs'."""
    cells = []
    assert [v["value"] for v in result["values"]] == list(VALUES)
    for v in result["values"]:
        low, high = _t(means[v["value"]])
        assert v["mean"] == pytest.approx(means[v["value"]].mean(), abs=1e-12)
        assert v["interval"]["low"] == pytest.approx(low, abs=1e-9)
        assert v["interval"]["high"] == pytest.approx(high, abs=1e-9)
        assert v["interval"]["confidence"] == 0.95 and v["interval"]["method"].startswith("Student t on 3 item means")
        cells.append(_cell(low, high))
    pairs = result["gaps"] + result["pairwise"]
    assert len(result["gaps"]) == 2 and len(result["pairwise"]) == 3   # every value against anon; every pair
    for g in pairs:
        low, high = _t(means[g["a"]] - means[g["b"]])
        assert g["average_gap"] == pytest.approx((means[g["a"]] - means[g["b"]]).mean(), abs=1e-12)
        assert g["interval"]["low"] == pytest.approx(low, abs=1e-9), g
        assert g["interval"]["high"] == pytest.approx(high, abs=1e-9), g
        cells.append(_cell(low, high))
    return cells


def test_every_mean_and_every_difference_has_its_t_interval(capsys, log_path, tmp_path):
    code, out, _ = run_cli(capsys, "analyze", log_path, "--metric", "score", "--by", "model", "--json")
    assert code == 0
    data = json.loads(out)
    pooled = _check_many(data, _item_means(log_path))
    assert [g["by"]["model"] for g in data["groups"]] == list(MODELS)
    per_model = [_check_many(g, _item_means(log_path, g["by"]["model"])) for g in data["groups"]]

    # the report shows the same intervals: each value's and each gap's against the reference (of the whole log
    # and of each model), and each pair's of the whole log (its table of every pair)
    code, _, _ = run_cli(capsys, "report", log_path, "--metric", "score", "--by", "model", "-o", tmp_path / "r.md")
    assert code == 0
    report = (tmp_path / "r.md").read_text(encoding="utf-8").replace("\\[", "[").replace("\\]", "]")
    for cell in pooled + [c for cells in per_model for c in cells[:5]]:
        assert cell in report, cell
    assert "Student t interval over the items (n − 1 degrees of freedom)" in report

    # the terminal: the summary rows (one per value, one per shown pair), never one per item
    code, out, _ = run_cli(capsys, "analyze", log_path, "--metric", "score", "--by", "model")
    assert code == 0
    for cell in pooled + [c for cells in per_model for c in cells]:
        assert cell in out, cell


def test_a_pair_carries_each_value_s_mean_with_its_interval(capsys, log_path, tmp_path):
    code, out, _ = run_cli(capsys, "analyze", log_path, "--metric", "score", "--a", "human", "--b", "anon",
                           "--json")
    assert code == 0
    data = json.loads(out)
    means = _item_means(log_path)
    for key, value in (("a", "human"), ("b", "anon")):
        low, high = _t(means[value])
        got = data["means"][key]
        assert got["value"] == value and got["n_items"] == 3
        assert got["mean"] == pytest.approx(means[value].mean(), abs=1e-12)
        assert (got["interval"]["low"], got["interval"]["high"]) == pytest.approx((low, high), abs=1e-9)
    low, high = _t(means["human"] - means["anon"])
    assert (data["interval"]["low"], data["interval"]["high"]) == pytest.approx((low, high), abs=1e-9)
    # the report's and the terminal's row under the average
    code, _, _ = run_cli(capsys, "report", log_path, "--metric", "score", "--a", "human", "--b", "anon",
                         "-o", tmp_path / "pair.md")
    report = (tmp_path / "pair.md").read_text(encoding="utf-8").replace("\\[", "[").replace("\\]", "]")
    code, out, _ = run_cli(capsys, "analyze", log_path, "--metric", "score", "--a", "human", "--b", "anon")
    cells = [_cell(*_t(means["human"])), _cell(*_t(means["anon"])), _cell(low, high)]
    assert f"| 95% interval | {cells[0]} | {cells[1]} | {cells[2]} |" in report
    row = next(line for line in out.splitlines() if line.startswith("│ 95% interval"))
    assert [c.strip() for c in row.split("│")[2:5]] == cells


def test_clustered_items_give_each_value_the_cluster_level_t(capsys, tmp_path):
    """Six items in three clusters of two: each value's interval is the cluster-robust t on 3 clusters (2 df):
    se = sqrt(G / (G − 1) · Σ (S_c − n_c·m)² / N²), m ± t(G − 1) · se, S_c a cluster's summed item means."""
    rng = np.random.default_rng(7)
    rows = [{"item": f"i{i}", "doc": f"d{i // 2}", "variant": v, "seed": s,
             "score": round(3 + (v == "a") * 0.5 + i % 3 + rng.normal(0, 1), 2)}
            for i in range(6) for v in "ab" for s in range(4)]
    path = tmp_path / "clustered.csv"
    pl.DataFrame(rows).write_csv(path)
    code, out, _ = run_cli(capsys, "analyze", path, "--metric", "score", "--cluster", "doc", "--json")
    assert code == 0, out
    data = json.loads(out)
    frame = pl.read_csv(path)
    for key in "ab":
        sub = frame.filter(pl.col("variant") == key)
        x = np.array([sub.filter(pl.col("item") == f"i{i}")["score"].mean() for i in range(6)])
        ids = np.array([i // 2 for i in range(6)])
        m = x.mean()
        sums = np.array([x[ids == c].sum() for c in range(3)])
        se = math.sqrt(3 / 2 * np.sum((sums - 2 * m) ** 2) / 36)
        q = stats.t.ppf(0.975, 2)
        got = data["means"][key]["interval"]
        assert (got["low"], got["high"]) == pytest.approx((m - q * se, m + q * se), abs=1e-9)
        assert got["method"].startswith("cluster-level t on 3 clusters")


@pytest.mark.parametrize("method, kind", [("bootstrap", "BCa"), ("percentile", "percentile")])
def test_a_bootstrap_on_request_gives_each_value_the_same_bootstrap(capsys, log_path, method, kind):
    """``--interval bootstrap`` (or ``percentile``): each value's mean gets the bootstrap the gap gets, with its
    resamples and seed: scipy.stats.bootstrap of the item means with the same generator."""
    code, out, _ = run_cli(capsys, "analyze", log_path, "--metric", "score", "--a", "human", "--b", "anon",
                           "--interval", method, "--n-resamples", "2000", "--seed", "5", "--json")
    assert code == 0, out
    data = json.loads(out)
    means = _item_means(log_path)
    for key, value in (("a", "human"), ("b", "anon")):
        # the item means in sorted order, the order the interval draws them in
        ref = stats.bootstrap((np.sort(means[value]),), np.mean, method=kind, n_resamples=2000,
                              rng=np.random.default_rng(5), vectorized=True, confidence_level=0.95)
        got = data["means"][key]["interval"]
        assert (got["low"], got["high"]) == pytest.approx((ref.confidence_interval.low, ref.confidence_interval.high),
                                                          abs=1e-9)
        assert "2,000 resamples, seed 5" in got["method"] and "item means" in got["method"]
