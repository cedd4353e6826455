"""Factor designs beyond 2 × 2 (probestats.analyses.factors_many_levels).

References: brute force over every within-item arrangement (itertools.product, no symmetry
used), the repeated-measures ANOVA written out by hand (sums of squares and their error
terms), and statsmodels AnovaRM on item means computed here from the rows.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pandas as pd
import polars as pl
import pytest
from statsmodels.stats.anova import AnovaRM

from probestats import Tests
from probestats import analyze
from probestats.analyses.factors_many_levels import FactorialAnalysis, factorial_tests
from probestats.cli import main

DOSES = ("low", "mid", "high")
ARMS = ("x", "y")


def _rows(items=4, runs=2, seed=0, interaction=1.0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        base = rng.normal()
        for a, shift in zip(DOSES, (0.0, 0.5, 1.0)):
            for b in ARMS:
                for s in range(runs):
                    rows.append({"item": i, "dose": a, "arm": b, "seed": s + 1,
                                 "score": round(base + shift * (1 + interaction * (b == "y")) + rng.normal(0, 0.7), 3)})
    return rows


def _cells(rows, items):
    """items × 3 × 2 item cell means, from the rows."""
    out = np.zeros((items, 3, 2))
    for k in range(items):
        for i, a in enumerate(DOSES):
            for j, b in enumerate(ARMS):
                out[k, i, j] = np.mean([r["score"] for r in rows if r["item"] == k and r["dose"] == a and r["arm"] == b])
    return out


def _stat(tables):
    mean = tables.mean(axis=0)
    return tables.shape[0] * ((mean - mean.mean(axis=0, keepdims=True)) ** 2).sum()


def _brute(tables):
    """p over every arrangement of every item's rows (all items permuted, the first too)."""
    n, rows = tables.shape[0], tables.shape[1]
    observed = _stat(tables)
    perms = list(itertools.permutations(range(rows)))
    hits = total = 0
    for combo in itertools.product(perms, repeat=n):
        arranged = np.stack([tables[k][list(p)] for k, p in enumerate(combo)])
        hits += _stat(arranged) >= observed - 1e-9 * abs(observed)
        total += 1
    return hits / total


def test_three_by_two_against_brute_force_permutation():
    rows = _rows(items=4)
    result = analyze(rows, metric="score", factor=["dose", "arm"])
    assert isinstance(result, FactorialAnalysis)
    m = _cells(rows, 4)
    assert np.allclose(result.cells, m, atol=1e-12)
    dose = m.mean(axis=2)[:, :, None]
    arm = m.mean(axis=1)[:, :, None]
    centred = m - m.mean(axis=2, keepdims=True)
    for name, tables in (("dose", dose), ("arm", arm), ("interaction", centred)):
        t = result.test(name)
        assert t.exact and t.pvalue == pytest.approx(_brute(tables), abs=1e-15), name
    assert result.level_means["dose"]["mid"] == pytest.approx(m[:, 1, :].mean(), abs=1e-14)
    assert result.cell_means["high × y"] == pytest.approx(m[:, 2, 1].mean(), abs=1e-14)


def test_three_by_two_against_anova_rm_and_the_hand_anova():
    rows = _rows(items=7, seed=3)
    result = analyze(rows, metric="score", factor=["dose", "arm"], tests=Tests(n_resamples=2000))
    m = _cells(rows, 7)
    long = pd.DataFrame([{"item": k, "dose": a, "arm": b, "score": m[k, i, j]}
                         for k in range(7) for i, a in enumerate(DOSES) for j, b in enumerate(ARMS)])
    ref = AnovaRM(long, depvar="score", subject="item", within=["dose", "arm"]).fit().anova_table
    got = {r.effect: r for r in result.anova}
    for key, name in (("dose", "dose"), ("arm", "arm"), ("dose:arm", "interaction")):
        assert got[name].f == pytest.approx(float(ref.loc[key, "F Value"]), rel=1e-10)
        assert got[name].pvalue == pytest.approx(float(ref.loc[key, "Pr > F"]), rel=1e-9)
    # by hand: F_A = (SS_A / (I - 1)) / (SS_AxS / ((I - 1)(n - 1))), likewise B and A×B
    n, I, J = m.shape
    g = m.mean()
    a, b, s = m.mean(axis=(0, 2)), m.mean(axis=(0, 1)), m.mean(axis=(1, 2))
    sa = m.mean(axis=2)          # item × dose
    sb = m.mean(axis=1)          # item × arm
    ab = m.mean(axis=0)
    ss_a = n * J * ((a - g) ** 2).sum()
    ss_as = J * ((sa - s[:, None] - a[None, :] + g) ** 2).sum()
    ss_b = n * I * ((b - g) ** 2).sum()
    ss_bs = I * ((sb - s[:, None] - b[None, :] + g) ** 2).sum()
    ss_ab = n * ((ab - a[:, None] - b[None, :] + g) ** 2).sum()
    resid = m - sa[:, :, None] - sb[:, None, :] - ab[None] + s[:, None, None] + a[None, :, None] + b[None, None, :] - g
    ss_abs = (resid ** 2).sum()
    assert got["dose"].f == pytest.approx((ss_a / (I - 1)) / (ss_as / ((I - 1) * (n - 1))), rel=1e-10)
    assert got["arm"].f == pytest.approx((ss_b / (J - 1)) / (ss_bs / ((J - 1) * (n - 1))), rel=1e-10)
    assert got["interaction"].f == pytest.approx(
        (ss_ab / ((I - 1) * (J - 1))) / (ss_abs / ((I - 1) * (J - 1) * (n - 1))), rel=1e-10)
    eta = got["dose"].partial_eta_squared
    assert eta == pytest.approx(ss_a / (ss_a + ss_as), rel=1e-10)


def test_monte_carlo_beyond_enumeration_states_its_error_and_seed():
    rows = _rows(items=4)
    m = _cells(rows, 4)
    exact = factorial_tests(m, ("dose", "arm"))
    mc = factorial_tests(m, ("dose", "arm"), max_exact=5, n_resamples=20_000, seed=3)
    for e, t in zip(exact, mc):
        assert t.pvalue_se is not None and "seed=3" in t.method and "n_resamples=20000" in t.method
        assert abs(t.pvalue - e.pvalue) < 4 * t.pvalue_se + 1 / 20_001
    other = factorial_tests(m, ("dose", "arm"), max_exact=5, n_resamples=20_000, seed=4)
    assert [t.pvalue for t in other] != [t.pvalue for t in mc]


def test_cli_three_by_two(capsys, tmp_path):
    path = tmp_path / "f.csv"
    pl.DataFrame(_rows(items=5)).write_csv(path)
    code = main(["analyze", str(path), "--metric", "score", "--factor", "dose", "--factor", "arm", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err
    d = json.loads(out)
    assert d["kind"] == "factorial" and d["levels"] == {"dose": list(DOSES), "arm": list(ARMS)}
    assert [t["effect"] for t in d["tests"]] == ["dose", "arm", "interaction"]
    assert "sphericity" in d["anova"]["assumption"]
    code = main(["analyze", str(path), "--metric", "score", "--factor", "dose", "--factor", "arm"])
    out, _ = capsys.readouterr()
    assert code == 0 and "repeated-measures ANOVA" in out and "within-item permutation tests" in out


def test_factorial_report_and_two_by_two_effect_sizes(capsys, tmp_path):
    path = tmp_path / "f.csv"
    pl.DataFrame(_rows(items=5)).write_csv(path)
    for suffix in ("md", "html", "json"):
        out = tmp_path / f"r.{suffix}"
        assert main(["report", str(path), "--metric", "score", "--factor", "dose", "--factor", "arm",
                     "-o", str(out)]) == 0
        text = out.read_text()
        assert "interaction" in text and ("sphericity" in text)
    assert "## Limits" in (tmp_path / "r.md").read_text()
    # a 2 × 2 effect carries d_z of its item values: their mean over their SD (n - 1)
    two = [r for r in _rows(items=6) if r["dose"] != "mid"]
    res = analyze(two, metric="score", factor=["dose", "arm"])
    e = res.effect("interaction")
    g = np.array(e.gaps)
    assert e.d_z.value == pytest.approx(g.mean() / g.std(ddof=1), rel=1e-12)
    assert e.to_dict()["d_z"]["formula"].startswith("d_z = mean gap")


def _interaction_ss(tables):
    """The interaction sum of squares of the item-averaged table, by the two-way decomposition
    n sum_ij (m_ij − m_i. − m_.j + m_..)²: written apart from the module's row-centred statistic."""
    m = tables.mean(axis=0)
    return tables.shape[0] * ((m - m.mean(axis=1, keepdims=True) - m.mean(axis=0, keepdims=True) + m.mean()) ** 2).sum()


def test_the_interaction_permutes_raw_rows_as_brute_force_does():
    """Brute force over all 6⁴ = 1,296 arrangements of a 3 × 2 design's four items, each item's raw
    rows (dose levels, arm levels kept together) permuted, the interaction SS by the two-way formula:
    the module's test (row-centred tables, first item held) gives the same p, with main effects of
    both factors in the data. Permuting rows is the null "no interaction within items": each item's
    true table is then row effect + column effect, and moving whole rows leaves that form."""
    rng = np.random.default_rng(5)
    m = (rng.normal(size=(4, 1, 1)) + np.array([0.0, 1.0, 2.5])[None, :, None]
         + np.array([0.0, 1.5])[None, None, :] + rng.normal(0, 0.6, size=(4, 3, 2)))
    observed = _interaction_ss(m)
    perms = list(itertools.permutations(range(3)))
    hits = sum(_interaction_ss(np.stack([m[k][list(p)] for k, p in enumerate(combo)])) >= observed * (1 - 1e-9)
               for combo in itertools.product(perms, repeat=4))
    test = factorial_tests(m, ("dose", "arm"))[2]
    assert test.exact and test.statistic == pytest.approx(observed, rel=1e-12)
    assert test.pvalue == pytest.approx(hits / 6 ** 4, abs=1e-15)


def _null_design(rng, items, het=1.0):
    """items × 3 × 2 means with large main effects of both factors, item baselines and item-specific
    dose and arm effects (which keep each item's table additive), and no interaction; ``het`` scales
    the noise of the third dose level (1: exchangeable noise)."""
    base = rng.normal(0, 1, (items, 1, 1)) + rng.normal(0, 0.5, (items, 3, 1))
    arm = rng.normal(1.0, 0.5, (items, 1, 2)) * np.array([0.0, 1.0])[None, None, :]
    noise = rng.normal(0, 1, (items, 3, 2)) * np.array([1.0, 1.0, het])[None, :, None]
    return base + np.array([0.0, 2.0, 4.0])[None, :, None] + arm + noise


@pytest.mark.slow
def test_the_interaction_test_rejects_at_alpha_under_main_effects():
    """1,000 generated 3 × 2 designs of 6 items with large main effects and no interaction: the exact
    within-item permutation test of the interaction rejects at alpha 0.05 in 3.2-6.8 % of them
    (0.05 ± 2.6 standard errors of a rate over 1,000). Its statistic against whole-cell permutation
    (every cell of an item moved freely, which breaks the main effects) rejects far more often or far
    less: the calibration would see an invalid scheme."""
    rng = np.random.default_rng(2024)
    rejected = cells_rejected = 0
    for _ in range(1000):
        m = _null_design(rng, 6)
        rejected += factorial_tests(m, ("dose", "arm"), correction="none")[2].pvalue <= 0.05
        flat = m.reshape(6, 6)
        observed = _interaction_ss(m)
        draws = np.stack([rng.permuted(flat, axis=1) for _ in range(199)]).reshape(199, 6, 3, 2)
        p = (1 + sum(_interaction_ss(d) >= observed for d in draws)) / 200
        cells_rejected += p <= 0.05
    assert 0.032 <= rejected / 1000 <= 0.068, rejected
    assert not 0.02 <= cells_rejected / 1000 <= 0.08, cells_rejected
