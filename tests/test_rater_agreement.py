"""Agreement between judges (or models) that scored the same items: Kendall's tau and Spearman's rho against
scipy, their Fisher z intervals against the formula written out, Cohen's and Fleiss' kappa against statsmodels,
and `describe --agreement COL` on the command line and in JSON."""

from __future__ import annotations

import itertools
import json

import numpy as np
import polars as pl
import pytest
from scipy.stats import kendalltau, norm, spearmanr
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohen
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

import probestats
from probestats.cli import main
from probestats.errors import ColumnError, OptionError
from probestats.stats.agreement import fleiss_kappa, kendall_tau, spearman_rho


def judges_log(items=30, judges=("j1", "j2", "j3"), runs=2, seed=0, values=None) -> pl.DataFrame:
    """Judges scoring the same items 1-10 (runs repeated), with a shared item quality and their own noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        quality = rng.normal(0, 1.5)
        for v in values or (None,):
            for j in judges:
                for r in range(runs):
                    row = {"item": f"q{i}", "judge": j, "run": r,
                           "score": int(np.clip(round(5.5 + quality + rng.normal(0, 1.2)), 1, 10))}
                    if v is not None:
                        row["variant"] = v
                    rows.append(row)
    return pl.DataFrame(rows)


def item_means(log: pl.DataFrame, judge: str, keys=("item",)) -> dict:
    """The judge's mean score per unit, by hand."""
    sums: dict = {}
    for r in log.filter(pl.col("judge") == judge).iter_rows(named=True):
        sums.setdefault(tuple(r[k] for k in keys), []).append(r["score"])
    return {k: sum(v) / len(v) for k, v in sums.items()}


def fisher(r, n, constant, offset, confidence=0.95):
    z, half = np.arctanh(r), norm.ppf(0.5 + confidence / 2) * np.sqrt(constant / (n - offset))
    return np.tanh(z - half), np.tanh(z + half)


def test_kendall_tau_of_two_judges_equals_scipys():
    log = judges_log(seed=3)
    d = probestats.describe(log, metric="score", agreement="judge")
    a = d.agreement
    assert a.unit == "item" and a.names == ("j1", "j2", "j3") and len(a.pairs) == 3
    for pair in a.pairs:
        x, y = item_means(log, pair.first), item_means(log, pair.second)
        items = sorted(set(x) & set(y))
        xs, ys = [x[i] for i in items], [y[i] for i in items]
        tau, rho = kendalltau(xs, ys), spearmanr(xs, ys)
        assert pair.n_units == len(items) == 30
        assert pair.kendall.statistic == pytest.approx(tau.statistic, abs=1e-12)
        assert pair.kendall.pvalue == pytest.approx(tau.pvalue, rel=1e-9)
        assert pair.spearman.statistic == pytest.approx(rho.statistic, abs=1e-12)
        assert pair.spearman.pvalue == pytest.approx(rho.pvalue, rel=1e-9)
        assert (pair.kendall.low, pair.kendall.high) == pytest.approx(fisher(tau.statistic, 30, 0.437, 4), abs=1e-12)
        assert (pair.spearman.low, pair.spearman.high) == pytest.approx(fisher(rho.statistic, 30, 1.06, 3), abs=1e-12)
    # 1-10 scores of few levels: the kappas too, on each judge's most frequent label of an item
    assert all(p.cohen is not None for p in a.pairs) and a.fleiss is not None


def test_the_functions_against_scipy_with_blanks_left_out():
    x = [3, 1, 4, 1, 5, 9, 2, 6, None, 5, 3, 5]
    y = [2, 7, 1, 8, 2, 8, 1, 8, 2, float("nan"), 4, 5]
    keep = [k for k in range(len(x)) if x[k] is not None and y[k] == y[k]]
    xs, ys = [x[k] for k in keep], [y[k] for k in keep]
    t, r = kendall_tau(x, y), spearman_rho(x, y)
    assert t.n == r.n == len(keep) == 10
    assert t.statistic == pytest.approx(kendalltau(xs, ys).statistic, abs=1e-12)
    assert r.statistic == pytest.approx(spearmanr(xs, ys).statistic, abs=1e-12)
    assert kendall_tau([1, 2, 3, 4], [1, 2, 3, 4]).low is None          # n = 4: no Fisher interval for tau
    assert kendall_tau([1, 1, 1, 1, 1], [1, 2, 3, 4, 5]).statistic is None   # one score on a side


def test_cohens_and_fleiss_kappa_of_labels_equal_statsmodels():
    rng = np.random.default_rng(4)
    rows = []
    for i in range(40):
        truth = rng.choice(["agree", "neutral", "disagree"])
        for j in ("j1", "j2", "j3", "j4"):
            label = truth if rng.random() < 0.7 else rng.choice(["agree", "neutral", "disagree"])
            rows.append({"item": i, "judge": j, "stance": str(label)})
    log = pl.DataFrame(rows)
    a = probestats.describe(log, metric="stance", agreement="judge").agreement
    labels = sorted({r["stance"] for r in rows})
    by = {(r["item"], r["judge"]): r["stance"] for r in rows}
    for pair in a.pairs:
        table = np.zeros((3, 3))
        for i in range(40):
            table[labels.index(by[i, pair.first]), labels.index(by[i, pair.second])] += 1
        assert pair.kendall is None and pair.spearman is None
        assert pair.cohen.statistic == pytest.approx(float(sm_cohen(table)["kappa"]), abs=1e-12)
    matrix = np.array([[labels.index(by[i, j]) for j in ("j1", "j2", "j3", "j4")] for i in range(40)])
    assert a.fleiss.statistic == pytest.approx(sm_fleiss(aggregate_raters(matrix)[0]), abs=1e-12)
    assert a.fleiss.n_items == 40 and a.fleiss.n_raters == 4
    # the percentile bootstrap over items, written out: the same draws of the same generator, over the items
    # in an order of their counts (so that the log's row order draws the same resamples)
    counts = np.array(sorted(aggregate_raters(matrix, n_cat=3)[0].astype(float).tolist()))
    gen = np.random.default_rng(0)
    draws = [sm_fleiss(counts[gen.integers(0, 40, 40)]) for _ in range(10_000)]   # describe's n_resamples
    assert (a.fleiss.low, a.fleiss.high) == pytest.approx(tuple(np.quantile(draws, [0.025, 0.975])), abs=1e-12)
    assert a.fleiss.low < a.fleiss.statistic < a.fleiss.high


def test_fleiss_kappa_function_leaves_out_incomplete_rows():
    k = fleiss_kappa([["a", "a"], ["b", "b"], ["a", None], ["a", "b"]])
    assert k.n_items == 3
    matrix = np.array([[0, 0], [1, 1], [0, 1]])
    assert k.statistic == pytest.approx(sm_fleiss(aggregate_raters(matrix)[0]), abs=1e-12)


def test_units_are_items_under_each_value_when_the_log_has_values():
    log = judges_log(items=10, judges=("j1", "j2"), values=("formal", "casual"), seed=8)
    a = probestats.describe(log, metric="score", agreement="judge").agreement
    assert a.unit == "item × value" and a.pairs[0].n_units == 20
    x, y = item_means(log, "j1", ("item", "variant")), item_means(log, "j2", ("item", "variant"))
    keys = sorted(x)
    assert a.pairs[0].kendall.statistic == pytest.approx(kendalltau([x[k] for k in keys], [y[k] for k in keys])
                                                         .statistic, abs=1e-12)
    # the values themselves as raters: models scored on the same items
    b = probestats.describe(log.filter(pl.col("judge") == "j1"), metric="score", agreement="variant").agreement
    assert b.unit == "item" and b.names == ("formal", "casual") and b.pairs[0].n_units == 10


def test_the_command_prints_and_writes_the_agreement(tmp_path, capsys):
    log = judges_log(items=12, judges=("a", "b"), seed=1)
    path = tmp_path / "scores.csv"
    log.write_csv(path)
    assert main(["describe", str(path), "--metric", "score", "--agreement", "judge", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["agreement"]
    x, y = item_means(log, "a"), item_means(log, "b")
    items = sorted(x)
    assert data["pairs"][0]["kendall"]["statistic"] == pytest.approx(
        kendalltau([x[i] for i in items], [y[i] for i in items]).statistic, abs=1e-12)
    assert data["fleiss"] is None   # two raters: Cohen's kappa is theirs
    assert main(["describe", str(path), "--metric", "score", "--agreement", "judge"]) == 0
    out = capsys.readouterr().out
    assert "Kendall tau" in out and "a / b" in out and "Fisher's z" in out
    assert main(["describe", str(path), "--agreement", "judge"]) == 1
    assert "Error: --agreement judge compares raters' scores of the same items; give --metric" in \
        capsys.readouterr().err


def test_refusals():
    log = judges_log(items=5, judges=("only",))
    with pytest.raises(OptionError, match="1 rater .*two raters or more"):
        probestats.describe(log, metric="score", agreement="judge")
    with pytest.raises(ColumnError, match="agreement='jduge': no such column"):
        probestats.describe(log, metric="score", agreement="jduge")
    with pytest.raises(ColumnError, match="no item column"):
        probestats.describe(log.drop("item"), metric="score", agreement="judge")
