"""Tests for probestats.analyses.plan: noise model, heterogeneity, simulated power and the MDG.

References used: hand calculations of pooled SDs; closed forms of the sign-flip and sign
test's power at designs whose only rejecting outcome is "every gap has the same sign";
an independent stand-in model (integer step counts from a rounded normal, floored at 1)
simulated probe by probe and tested with the real ``sign_flip_test``; the sample logs'
published detection rates.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from scipy.stats import norm

from probestats.analyses.plan import Sizing
import probestats
from probestats.errors import ColumnError, OptionError, ProbestatsError
from probestats.vocabulary import Tests
from probestats.present.words.plan import plan_text
from probestats.stats.hypotests import sign_flip_test
from probestats.analyses.plan import (
    NoiseModel,
    differ_weight,
    gap_model,
    heterogeneity_from_pilot,
    mdg_for_design,
    noise_model,
    plan_probe,
    power_sign_flip,
)
from probestats.analyses.plan.simulate import draw_probes as _draw

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"


def z3(*ses):
    """Three combined Monte Carlo standard errors."""
    return 3 * math.sqrt(sum(s * s for s in ses))


# ---------------------------------------------------------------- a stand-in model


def stand_in(rng, shape, shift=0.0, base=4.0, sd=1.2):
    """Steps a toy model offers: round(base - shift + sd * z), at least 1 (the tutorial's shape)."""
    return np.maximum(1.0, np.round(base - shift + sd * rng.standard_normal(shape)))


def expected_steps(shift, base=4.0, sd=1.2):
    """E[max(1, round(base - shift + sd z))], summed over the normal's mass per whole step."""
    m = base - shift
    j = np.arange(2, 60)
    mass = norm.cdf((j + 0.5 - m) / sd) - norm.cdf((j - 0.5 - m) / sd)
    return float(norm.cdf((1.5 - m) / sd) + (j * mass).sum())


def noise_frame(rng, items=8, runs=300):
    """A same-versus-same log of the stand-in: nothing changes but the draw."""
    rows = {"item": [], "variant": [], "steps": []}
    for i in range(items):
        for v in ("formal", "formal again"):
            rows["item"] += [str(i)] * runs
            rows["variant"] += [v] * runs
            rows["steps"] += stand_in(rng, runs).tolist()
    return pl.DataFrame(rows)


# ---------------------------------------------------------------- noise model


def test_noise_model_pools_within_cells_by_hand():
    # cells: (1,a) = 3,5 -> s^2 = 2, n-1 = 1; (1,b) = 1,2,3 -> s^2 = 1, n-1 = 2;
    # (2,a) = 4,4,4,8 -> mean 5, s^2 = (1+1+1+9)/3 = 4, n-1 = 3; (2,b) = 7 (one run: left out)
    # pooled = sqrt((1*2 + 2*1 + 3*4) / (1+2+3)) = sqrt(16/6)
    rows = ([(1, "a", y) for y in (3, 5)] + [(1, "b", y) for y in (1, 2, 3)]
            + [(2, "a", y) for y in (4, 4, 4, 8)] + [(2, "b", 7)])
    frame = pl.DataFrame(rows, schema=["item", "variant", "steps"], orient="row")
    m = noise_model(frame, metric="steps")
    assert m.sigma_run == pytest.approx(math.sqrt(16 / 6), rel=1e-12)
    assert (m.df, m.n_cells, m.n_items, m.n_runs) == (6, 3, 2, 9)
    assert m.integer and (m.minimum, m.maximum) == (1.0, 8.0)
    assert [p.code for p in m.problems] == ["single_run_cells"]
    assert m.gap_sd(4, 1) == pytest.approx(m.sigma_run * math.sqrt(1 / 4 + 1))
    json.dumps(m.to_dict())


def test_noise_model_reads_paths_and_logs_alike():
    from probestats.io.read import read_log

    by_path = noise_model(str(SAMPLES / "style_noise.csv"), metric="steps")
    by_log = noise_model(read_log(SAMPLES / "style_noise.csv", metric="steps"), metric="steps")
    frame = pl.read_csv(SAMPLES / "style_noise.csv")
    # independent: numpy over the groups
    var, dof = 0.0, 0
    for (_, _), g in frame.group_by("item", "variant"):
        y = g["steps"].to_numpy().astype(float)
        var += (len(y) - 1) * np.var(y, ddof=1)
        dof += len(y) - 1
    assert by_path.sigma_run == pytest.approx(math.sqrt(var / dof), rel=1e-12)
    assert by_log.sigma_run == by_path.sigma_run


def test_noise_model_errors_name_the_fix():
    frame = pl.DataFrame({"item": [1, 1], "variant": ["a", "a"], "score": [1, 2]})
    with pytest.raises(ColumnError, match="headers seen: item, variant, score"):
        noise_model(frame, metric="steps")
    with pytest.raises(OptionError, match="at least twice"):
        noise_model(pl.DataFrame({"item": [1, 2], "variant": ["a", "a"], "steps": [1, 2]}), metric="steps")
    with pytest.raises(OptionError, match="metric"):
        noise_model(frame)
    m = noise_model(pl.DataFrame({"item": ["1"] * 3, "variant": ["a"] * 3, "steps": ["2", "x", "4"]}),
                    metric="steps")
    assert m.sigma_run == pytest.approx(math.sqrt(2.0))
    assert "non_numeric" in [p.code for p in m.problems]


def test_simulated_gap_noise_matches_sigma_for_non_integer_metric():
    # residuals are scaled by sqrt(n/(n-1)): the resampled gap variance is sigma^2 (1/ka + 1/kb)
    # even from cells of 4 runs (a plain bootstrap would give 3/4 of it)
    rng = np.random.default_rng(5)
    frame = pl.DataFrame({"item": np.repeat(np.arange(50), 4), "variant": "a",
                          "x": rng.standard_normal(200) * 2.0})
    m = noise_model(frame, metric="x")
    assert not m.integer
    d = _draw(m, 1, 3, 2, 40000, 1)
    sim = d.gaps(0.0)[:, 0]
    expected = m.sigma_run ** 2 * (1 / 3 + 1 / 2)
    assert np.var(sim) == pytest.approx(expected, rel=0.03)   # SE of a variance of 40000 ~ 0.7%


def test_integer_gaps_stay_on_the_lattice_and_shift_by_the_gap():
    m = noise_model(noise_frame(np.random.default_rng(0), items=4, runs=100), metric="steps", scale=":")
    d = _draw(m, 6, 4, 4, 20000, 2)
    g = d.gaps(0.37)
    assert np.allclose(g * 4, np.round(g * 4))                 # whole steps over 4 runs
    base = d.gaps(0.0)
    assert (g - base).mean() == pytest.approx(0.37, abs=0.004)  # shift has mean exactly 0.37
    assert np.all(g >= base)
    assert np.var(base) == pytest.approx(m.sigma_simulated ** 2 * (1 / 4 + 1 / 4), rel=0.03)


def _pooled_sd(y: np.ndarray, m: int) -> float:
    # by hand: cells are consecutive blocks of m runs; sqrt(sum of squared deviations / sum(m - 1))
    cells = y.reshape(-1, m)
    return math.sqrt(((cells - cells.mean(axis=1, keepdims=True)) ** 2).sum() / (cells.shape[0] * (m - 1)))


GENERATORS = {
    "continuous": lambda rng, n: rng.normal(5.0, 1.5, n),
    "poisson": lambda rng, n: rng.poisson(4.0, n).astype(float),
    "likert": lambda rng, n: np.clip(np.round(rng.normal(3.0, 1.1, n)), 1, 5),
    "binary 0.5": lambda rng, n: (rng.random(n) < 0.5).astype(float),
    "binary 0.9": lambda rng, n: (rng.random(n) < 0.9).astype(float),
}


@pytest.mark.parametrize("kind", sorted(GENERATORS))
@pytest.mark.parametrize("m", [2, 3, 5, 40])
def test_simulated_gap_spread_equals_the_noise_logs_spread(kind, m):
    # the noise log: 2,400 runs in cells of m; item rates differ a little for the bounded kinds
    rng = np.random.default_rng([m, len(kind)])
    y = GENERATORS[kind](rng, 2400)
    frame = pl.DataFrame({"item": np.repeat(np.arange(2400 // m), m), "x": y})
    model = noise_model(frame, metric="x")
    sigma = _pooled_sd(y, m)
    assert model.sigma_run == pytest.approx(sigma, rel=1e-12)
    d = _draw(model, 4, 5, 3, 60000, 7)
    sim = d.gaps(0.0)
    expected = model.sigma_simulated ** 2 * (1 / 5 + 1 / 3)
    # the simulated item-gap variance is the model's (SE of a variance from 240,000 gaps ~ 0.3%, wider
    # for the few-valued bounded metrics whose gaps are far from normal)
    assert np.var(sim) == pytest.approx(expected, rel=0.03)
    # and the model's run spread: the items-differ model (weight `differ`) gives the log's pooled sigma (or, for a
    # bounded log whose whole spreads less, the whole log's SD, and it says so); the items-alike model the whole
    # log's SD (ddof=0), which then estimates sigma on all the runs
    if kind == "continuous":     # pooled residuals scaled to sigma: no item levels to model
        assert model.sigma_simulated == pytest.approx(sigma, rel=1e-9)
        return
    v_all = float(np.var(y))
    differ_var = min(sigma ** 2, v_all)
    assert model.sigma_simulated ** 2 == pytest.approx(model.differ * differ_var + (1 - model.differ) * v_all,
                                                       rel=1e-9)
    if v_all < sigma ** 2 * 0.98:
        assert "noise_spread_short" in {p.code for p in model.problems}
    # the weight is the one of the one-way F statistic's evidence, by hand (see test_differ_weight_by_hand)
    cells = y.reshape(-1, m)
    ssw = float(((cells - cells.mean(axis=1, keepdims=True)) ** 2).sum())
    ssb = float(m * ((cells.mean(axis=1) - y.mean()) ** 2).sum())
    assert model.differ == pytest.approx(differ_weight(ssw, ssb, y.size - cells.shape[0], cells.shape[0] - 1))


def test_differ_weight_by_hand():
    # 3 cells of 2 runs: (0, 2), (1, 3), (5, 7): SSW = 2 + 2 + 2 = 6 (df 3), grand mean 3, cell means 1, 2, 6:
    # SSB = 2 (4 + 1 + 9) = 28 (df 2). S0 = 34 / 5, MSW = 2, theta = 14:
    # 2L = 5 log 6.8 - 3 log 2 - 2 log 14 = 9.5849 - 2.0794 - 5.2781 = 2.2274; log B = 1.1137 - log(3) / 2 = 0.5644
    two_l = 5 * math.log(6.8) - 3 * math.log(2) - 2 * math.log(14)
    b = math.exp(two_l / 2 - math.log(3) / 2)
    assert differ_weight(6.0, 28.0, 3, 2) == pytest.approx(b / (1 + b), rel=1e-12)
    assert differ_weight(6.0, 28.0, 3, 2) == pytest.approx(0.6375, abs=1e-3)
    # the between mean square below the within one: no evidence beyond the BIC price, weight 1 / (1 + sqrt(cells))
    assert differ_weight(100.0, 5.0, 100, 9) == pytest.approx(1 / (1 + math.sqrt(10)), rel=1e-12)


def test_a_false_alarm_of_the_spread_test_moves_the_model_a_little():
    # homogeneous 0/1 logs at a rate of 0.9 whose F test still says p < 0.05 (the 3-4%): before,
    # the model switched all the way to items that differ; now their weight stays small. The one-way
    # F test is written out over the 800 cells of 5 runs (scipy's f_oneway gives the same p to 1e-13,
    # taking 0.2 s a log on 800 separate arrays)
    from scipy.stats import f as f_dist

    found = []
    for seed in range(400):
        y = (np.random.default_rng(seed).random(4000) < 0.9).astype(float)
        cells = y.reshape(-1, 5)
        means = cells.mean(axis=1)
        between = 5 * ((means - y.mean()) ** 2).sum() / (800 - 1)
        within = ((cells - means[:, None]) ** 2).sum() / (4000 - 800)
        p = f_dist.sf(between / within, 800 - 1, 4000 - 800)
        if p < 0.05:
            frame = pl.DataFrame({"item": np.repeat(np.arange(800), 5), "x": y})
            found.append((p, noise_model(frame, metric="x").differ))
    found.sort()
    near = [w for p, w in found if p >= 0.01]
    assert len(near) >= 10 and max(near) < 0.35, found           # p between 0.01 and 0.05: a small weight
    assert all(w1 >= w2 for (_, w1), (_, w2) in zip(found, found[1:]))   # stronger evidence, larger weight


# ---------------------------------------------------------------- heterogeneity


def test_heterogeneity_by_hand():
    # gaps 1, 3, 2 with k = (2, 2), (1, 1), (4, 4) runs; sigma = 1
    # var(gaps) = 1; noise = mean(1/2+1/2, 1+1, 1/4+1/4) = 3.5/3; tau^2 = max(0, 1 - 1.1667) = 0
    # with sigma = 0.5: noise = 3.5/12, tau^2 = 1 - 0.29167 = 0.70833
    rows = []
    for item, (gap, k) in enumerate([(1, 2), (3, 1), (2, 4)]):
        rows += [{"item": item, "variant": "x", "steps": 10 + gap}] * k
        rows += [{"item": item, "variant": "y", "steps": 10}] * k
    assert heterogeneity_from_pilot(rows, NoiseModel.stated(1.0), "steps").tau == 0.0
    h = heterogeneity_from_pilot(rows, NoiseModel.stated(0.5), "steps")
    assert h.tau_moments ** 2 == pytest.approx(1 - 3.5 / 12)
    # shrunk toward 0 by the weight of the evidence that the gaps differ: with sigma known, twice the log-likelihood
    # ratio of gaps of variance V = 1 against the noise's v = 3.5/12 is (n - 1)(V/v - 1 - log(V/v)), BIC price log 3
    v = 3.5 / 12
    two_l = 2 * (1 / v - 1 - math.log(1 / v))
    weight = 1 / (1 + math.exp(-(two_l / 2 - math.log(3) / 2)))
    assert h.weight == pytest.approx(weight, rel=1e-4) and 0.5 < weight < 0.8
    assert h.tau ** 2 == pytest.approx(weight * (1 - 3.5 / 12), rel=1e-4)
    assert (h.a, h.b, h.n_items, h.average_gap, h.spread_ratio) == ("x", "y", 3, 2.0, 1.0)
    assert "method of moments" in h.method and h.too_small and h.items_needed == 20


# ---------------------------------------------------------------- power against closed forms


def all_same_sign(delta, spread, n):
    """P(all n gaps share a sign) for gaps ~ N(delta, spread^2) i.i.d."""
    q = norm.cdf(delta / spread)
    return q ** n + (1 - q) ** n


def test_the_pilots_interval_on_tau_covers_it_nine_times_in_ten():
    # normal item gaps with known noise variances, 20 items of unequal runs: the 90% interval holds the true tau
    # about 90% of the time (binomial 99% range over 400 pilots: 0.85-0.94)
    from probestats.analyses.plan.heterogeneity import tau_interval

    rng = np.random.default_rng(5)
    tau, sigma = 0.8, 1.5
    k = rng.integers(2, 8, 20)
    v = sigma ** 2 * 2 / k
    held = 0
    for _ in range(400):
        gaps = 1.0 + tau * rng.standard_normal(20) + np.sqrt(v) * rng.standard_normal(20)
        lo, hi = tau_interval(gaps, v)
        held += lo <= tau <= hi
    assert 0.85 <= held / 400 <= 0.95


def test_a_pilots_interval_gives_the_power_at_both_ends():
    rng = np.random.default_rng(11)
    noise = noise_frame(rng, items=8, runs=40)
    shifts = 1.0 + 0.6 * rng.standard_normal(8)
    pilot = pl.DataFrame({
        "item": np.repeat(np.arange(8), 20).astype(str),
        "variant": np.tile(np.repeat(["formal", "casual"], 10), 8),
        "steps": np.concatenate([np.concatenate([stand_in(rng, 10), stand_in(rng, 10, shift=x)]) for x in shifts]),
    })
    plan = plan_probe(noise, metric="steps", items=[8, 12], runs=[2, 5], gap=1.0, pilot=pilot, tests=Tests(seed=3),
                      sizing=Sizing(mechanism="level", sims=600, mdg_range=False))
    het = plan.heterogeneity
    assert het.tau_low <= plan.tau <= het.tau_high and het.too_small and het.items_needed == 20
    for cell in plan.cells:
        # the same simulated probes at each end of the interval: a plan that states tau there gives the same power
        ends = [plan_probe(noise, metric="steps", items=cell.items, runs=cell.runs, gap=1.0, tests=Tests(seed=3),
                           sizing=Sizing(heterogeneity=t, mechanism="level", sims=600, mdg_range=False)).cells[0].power
                for t in (het.tau_low, het.tau_high)]
        assert cell.power_tau_range == (min(ends + [cell.power]), max(ends + [cell.power]))
        assert cell.power_tau_range[0] < cell.power_tau_range[1]
    d = plan.to_dict()
    assert d["cells"][0]["power_tau_range"] == list(plan.cells[0].power_tau_range)
    assert d["pilot"]["tau_low"] == het.tau_low and d["pilot"]["too_small"] is True
    assert "profile-likelihood" in d["pilot"]["tau_interval_method"]
    text = plan_text(plan)
    assert "if tau" in text and f"{het.tau_low:.3g} to {het.tau_high:.3g}" in text
    r = plan.cells[0].power_tau_range
    assert f"{r[0]:.2f}-{r[1]:.2f}" in text
    [small] = [p.message for p in plan.problems if p.code == "small_pilot"]
    assert "too few to estimate it" in small and "20 items or more" in small
    # without a gap there is no power to range; without a pilot no interval
    assert plan_probe(noise, metric="steps", items=8, runs=2, pilot=pilot,
                      sizing=Sizing(mechanism="level", sims=200, mdg_range=False)).cells[0].power_tau_range is None
    assert plan_probe(noise, metric="steps", items=8, runs=2, gap=1.0,
                      sizing=Sizing(heterogeneity=0.3, mechanism="level", sims=200,
                                    mdg_range=False)).cells[0].power_tau_range is None


@pytest.mark.parametrize("tau", [0.0, 0.5])
def test_power_equals_closed_form_at_six_items(tau):
    # Two-sided, 6 items: p = 2/64 when all gaps share a sign, else >= 4/64 > 0.05; so
    # power = P(all same sign) with gaps ~ N(delta, sigma^2 * 2/k + tau^2)
    sigma, k, delta = 1.2, 5, 0.9
    r = power_sign_flip(gap=delta, items=6, runs=k, noise=sigma,
                        tests=Tests(seed=3), sizing=Sizing(heterogeneity=tau, sims=4000))
    exact = all_same_sign(delta, math.sqrt(sigma ** 2 * 2 / k + tau ** 2), 6)
    assert abs(r.power - exact) < z3(r.power_se)
    assert r.power_se == pytest.approx(math.sqrt(r.power * (1 - r.power) / 4000))


def test_sign_test_power_equals_closed_form_at_eight_items():
    # sign test, 8 items: 8-0 gives p = 2/256; 7-1 gives 2*9/256 = 0.0703 > 0.05
    sigma, k, delta = 1.0, 4, 0.5
    r = power_sign_flip(gap=delta, items=8, runs=k, noise=sigma, tests=Tests(seed=4), sizing=Sizing(sims=4000))
    exact = all_same_sign(delta, sigma * math.sqrt(2 / k), 8)
    assert abs(r.power_sign_test - exact) < z3(math.sqrt(exact * (1 - exact) / 4000))


def test_one_sided_power_at_five_items():
    # "greater", 5 items: p = 1/32 only when all five gaps are positive
    r = power_sign_flip(gap=0.8, items=5, runs=3, noise=1.0,
                        tests=Tests(alternative="greater", seed=5), sizing=Sizing(sims=4000))
    exact = norm.cdf(0.8 / math.sqrt(2 / 3)) ** 5
    assert abs(r.power - exact) < z3(r.power_se)
    less = power_sign_flip(gap=0.8, items=5, runs=3, noise=1.0,
                           tests=Tests(alternative="less", seed=5), sizing=Sizing(sims=4000))
    assert abs(less.power - exact) < z3(less.power_se)


def test_mdg_matches_closed_form_at_six_items():
    sigma, k = 1.2, 10
    spread = sigma * math.sqrt(2 / k)
    x = brentq(lambda d: all_same_sign(d, spread, 6) - 0.8, 0, 10 * spread)
    r = power_sign_flip(gap=None, items=6, runs=k, power=0.8, noise=sigma,
                        tests=Tests(seed=6), sizing=Sizing(sims=4000))
    # MC error of the MDG: power SE at 0.8 divided by the slope of power in the gap
    slope = 6 * norm.pdf(x / spread) * norm.cdf(x / spread) ** 5 / spread
    assert abs(r.gap - x) < 3 * math.sqrt(0.8 * 0.2 / 4000) / slope + 2e-3 * x
    assert r.power >= 0.8


def test_fewest_runs_matches_closed_form():
    # 6 items, gap 0.8, sigma 1.5: closed-form power at k runs is P(all same sign)
    need = next(k for k in range(1, 200) if all_same_sign(0.8, 1.5 * math.sqrt(2 / k), 6) >= 0.8)
    r = power_sign_flip(gap=0.8, items=6, runs=None, power=0.8, noise=1.5,
                        tests=Tests(seed=7), sizing=Sizing(sims=3000))
    assert abs(r.runs - need) <= 1
    assert r.power >= 0.8


def test_fewest_items_reaches_target_and_one_fewer_does_not():
    r = power_sign_flip(gap=0.5, items=None, runs=5, power=0.8, noise=1.0,
                        tests=Tests(seed=8), sizing=Sizing(sims=1000))
    assert r.items >= 6 and r.power >= 0.8
    fewer = power_sign_flip(gap=0.5, items=r.items - 1, runs=5, noise=1.0,
                            tests=Tests(seed=8), sizing=Sizing(sims=1000))
    assert fewer.power < 0.8


# ---------------------------------------------------------------- never significant


def test_five_items_can_never_reach_significance():
    plan = plan_probe(1.2, items=[5, 6], runs=[5, 20], gap=1.0, sizing=Sizing(sims=300))
    d = json.loads(json.dumps(plan.to_dict()))
    five = [c for c in d["cells"] if c["items"] == 5]
    assert [c["mdg"] for c in five] == [None, None]
    assert all(c["min_attainable_p"] == 2 / 32 and c["power"] == 0.0 for c in five)
    assert all(c["mdg"] is not None for c in d["cells"] if c["items"] == 6)
    never = [p for p in d["problems"] if p["code"] == "never_significant"]
    assert len(never) == 1 and "could never reach significance" in never[0]["message"]
    assert "use at least 6 items" in never[0]["message"]
    assert "never" in plan_text(plan)
    assert mdg_for_design(NoiseModel.stated(1.2), 5, 20, 20) is None
    assert math.isinf(power_sign_flip(items=5, runs=20, power=0.8, noise=1.2).gap)
    assert power_sign_flip(gap=1.0, items=5, runs=None, power=0.8, noise=1.2).runs is None


# ---------------------------------------------------------------- the plan object


def test_plan_json_contract_and_assumed_heterogeneity():
    plan = plan_probe(noise=str(SAMPLES / "style_noise.csv"), metric="steps", items="6,8", runs=[5, 20], gap=0.75,
                      tests=Tests(seed=1), sizing=Sizing(sims=300))
    d = json.loads(json.dumps(plan.to_dict()))
    for key in ("sigma_run", "tau", "tau_source", "alpha", "target_power", "cells", "problems"):
        assert key in d
    assert (d["tau"], d["tau_source"], d["alpha"], d["target_power"]) == (0.0, "assumed", 0.05, 0.8)
    assert [(c["items"], c["runs"]) for c in d["cells"]] == [(6, 5), (6, 20), (8, 5), (8, 20)]
    for c in d["cells"]:
        assert set(c) >= {"items", "runs", "power", "power_se", "power_approx", "mdg", "min_attainable_p"}
    codes = {p["code"]: p for p in d["problems"]}
    assert codes["heterogeneity_assumed"]["severity"] == "warning"
    assert "upper bound" in codes["heterogeneity_assumed"]["message"]
    assert "upper bound" in plan_text(plan)
    assert plan.to_frame().height == 4
    no_gap = plan_probe(1.0, items=8, runs=5, sizing=Sizing(sims=200)).to_dict()
    assert no_gap["cells"][0]["power"] is None and no_gap["cells"][0]["mdg"] is not None
    stated = plan_probe(1.0, items=8, runs=5, sizing=Sizing(heterogeneity=0.3, sims=200)).to_dict()
    assert stated["tau_source"] == "assumed" and stated["tau"] == 0.3
    assert "heterogeneity_assumed" not in {p["code"] for p in stated["problems"]}


def test_plan_is_reproducible_and_reports_progress():
    seen = []
    a = plan_probe(1.0, items=[6, 8], runs=3, gap=0.8, tests=Tests(seed=11),
                   progress=lambda d, t: seen.append((d, t)), sizing=Sizing(sims=300))
    b = plan_probe(1.0, items=[6, 8], runs=3, gap=0.8, tests=Tests(seed=11), sizing=Sizing(sims=300))
    c = plan_probe(1.0, items=[6, 8], runs=3, gap=0.8, tests=Tests(seed=12), sizing=Sizing(sims=300))
    assert a.to_dict() == b.to_dict() and a.to_dict() != c.to_dict()
    # a growing share within each design, a whole number when each design is done
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and {t for _, t in seen} == {2}
    assert (1, 2) in seen and seen[-1] == (2, 2) and len(seen) > 2
    assert seen[0] == (0, 2) and all(0 < d < 1 for d, _ in seen[1:seen.index((1, 2))])


def test_library_errors():
    with pytest.raises(OptionError, match="exactly one"):
        power_sign_flip(gap=1.0, items=8, noise=1.0)
    with pytest.raises(OptionError, match="alpha"):
        power_sign_flip(gap=1.0, items=8, runs=5, noise=1.0, tests=Tests(alpha=1.5))
    with pytest.raises(OptionError, match="not both"):
        plan_probe(1.0, items=8, runs=5, pilot=[{"item": 1}], sizing=Sizing(heterogeneity=0.2))
    with pytest.raises(OptionError, match="whole numbers"):
        plan_probe(1.0, items="8,x", runs=5)
    with pytest.raises(ProbestatsError, match="alternative"):
        power_sign_flip(gap=1.0, items=8, runs=5, noise=1.0, tests=Tests(alternative="bigger"))


def test_exported_from_package():
    assert probestats.plan_probe is plan_probe
    assert probestats.power_sign_flip is power_sign_flip
    assert probestats.noise_model is noise_model


# ---------------------------------------------------------------- calibration against a stand-in


def empirical_rate(rng, probes, items, runs, true_shift):
    """Share of probes (simulated run by run from the stand-in) where sign_flip_test gives p < 0.05."""
    hits = 0
    for _ in range(probes):
        shift = true_shift(rng, items)[:, None]
        a = stand_in(rng, (items, runs)).mean(axis=1)
        b = stand_in(rng, (items, runs), shift=shift).mean(axis=1)
        hits += sign_flip_test(a - b).pvalue < 0.05
    return hits / probes


def test_calibration_homogeneous_gap():
    # The stand-in's casual runs lose 1 step before rounding and the floor at 1, so the
    # true average gap on the metric's scale is E[steps | 4] - E[steps | 3] (about 0.98).
    rng = np.random.default_rng(2024)
    noise = noise_frame(rng, items=8, runs=300)          # 4800 runs: sigma known to ~1%
    gap = expected_steps(0.0) - expected_steps(1.0)
    # the stand-in's gap moves a latent level by whole steps (its spread stays), not a rate: mechanism="level"
    plan = plan_probe(noise, metric="steps", items=8, runs=[1, 2, 5, 10], gap=gap, tests=Tests(seed=1),
                      sizing=Sizing(heterogeneity=0.0, mechanism="level", sims=3000))
    probes = 1500
    for cell in plan.cells:
        emp = empirical_rate(rng, probes, 8, cell.runs, lambda r, n: np.ones(n))
        se = math.sqrt(max(emp * (1 - emp), 1e-4) / probes)
        assert abs(emp - cell.power) < z3(se, cell.power_se) + 0.01, (cell.runs, emp, cell.power)


def test_calibration_heterogeneous_gap_from_pilot():
    # True latent shifts differ by item: 1 + 0.6 z. A large pilot of the real comparison
    # gives tau; the average gap on the metric's scale is E_z[E[steps|4] - E[steps|3 - 0.6z]],
    # by Gauss-Hermite quadrature.
    rng = np.random.default_rng(77)
    noise = noise_frame(rng, items=8, runs=300)
    shifts = lambda r, n: 1.0 + 0.6 * r.standard_normal(n)  # noqa: E731
    pilot_items, pilot_runs = 1500, 10
    s = shifts(rng, pilot_items)
    pilot = pl.DataFrame({
        "item": np.repeat(np.arange(pilot_items), 2 * pilot_runs).astype(str),
        "variant": np.tile(np.repeat(["formal", "casual"], pilot_runs), pilot_items),
        "steps": np.concatenate([np.concatenate([stand_in(rng, pilot_runs), stand_in(rng, pilot_runs, shift=x)])
                                 for x in s]),
    })
    x, w = np.polynomial.hermite_e.hermegauss(40)
    gap = float(sum(wi * (expected_steps(0.0) - expected_steps(1.0 + 0.6 * xi)) for xi, wi in zip(x, w))
                / w.sum())
    plan = plan_probe(noise, metric="steps", items=8, runs=[2, 10, 30], gap=gap, pilot=pilot, tests=Tests(seed=2),
                      sizing=Sizing(mechanism="level", sims=3000))
    assert plan.tau_source == "pilot" and 0.5 < plan.tau < 0.7
    probes = 1500
    for cell in plan.cells:
        emp = empirical_rate(rng, probes, 8, cell.runs, shifts)
        se = math.sqrt(max(emp * (1 - emp), 1e-4) / probes)
        assert abs(emp - cell.power) < z3(se, cell.power_se) + 0.015, (cell.runs, emp, cell.power)
    # heterogeneity costs power: the same design with tau = 0 is at least as powerful
    upper = plan_probe(noise, metric="steps", items=8, runs=30, gap=gap, tests=Tests(seed=2),
                       sizing=Sizing(heterogeneity=0.0, sims=3000))
    assert upper.cells[0].power >= plan.cells[-1].power


def test_sample_logs_published_detection_rates():
    # sample_logs/README.md: over 200 draws of the stand-in (true gap 0.75: six items 1 step,
    # two items 0, so tau = sd(1,1,1,1,1,1,0,0) = 0.433), 20 seeds detected the gap in 83%
    # and 5 seeds in 46%.
    plan = plan_probe(str(SAMPLES / "style_noise.csv"), metric="steps", items=8, runs=[5, 20], gap=0.75,
                      tests=Tests(seed=0), sizing=Sizing(heterogeneity=math.sqrt(0.75 * 0.25), sims=3000))
    five, twenty = plan.cells
    assert abs(twenty.power - 0.83) < z3(math.sqrt(0.83 * 0.17 / 200), twenty.power_se)
    assert abs(five.power - 0.46) < z3(math.sqrt(0.46 * 0.54 / 200), five.power_se)


# ---------------------------------------------------------------- properties


design = st.fixed_dictionaries({
    "sigma": st.floats(0.5, 2.0),
    "items": st.integers(6, 10),
    "runs": st.integers(1, 8),
    "tau": st.sampled_from([None, 0.0, 0.3]),
})
SIMS = 600


def pw(d, gap, alternative="two-sided", **over):
    kw = dict(gap=gap, items=d["items"], runs=d["runs"], noise=d["sigma"],
              sizing=Sizing(heterogeneity=d["tau"], sims=SIMS), tests=Tests(seed=9, alternative=alternative))
    kw.update(over)
    return power_sign_flip(**kw)


@settings(max_examples=6, deadline=None)
@given(design, st.floats(0.0, 1.0), st.floats(0.1, 1.0))
def test_power_rises_with_gap(d, g, extra):
    lo, hi = pw(d, g), pw(d, g + extra)
    assert hi.power >= lo.power - z3(lo.power_se, hi.power_se)


@settings(max_examples=6, deadline=None)
@given(design, st.floats(0.2, 1.5), st.integers(1, 8))
def test_power_rises_with_runs_and_items(d, g, more):
    base = pw(d, g)
    runs = pw(d, g, runs=d["runs"] + more)
    items = pw(d, g, items=d["items"] + more)
    assert runs.power >= base.power - z3(base.power_se, runs.power_se)
    assert items.power >= base.power - z3(base.power_se, items.power_se)


@settings(max_examples=6, deadline=None)
@given(design, st.sampled_from(["two-sided", "greater", "less"]))
def test_power_at_zero_gap_is_at_most_alpha(d, alternative):
    r = pw(d, 0.0, alternative=alternative)
    assert r.power <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / SIMS)


@settings(max_examples=5, deadline=None)
@given(design)
def test_mdg_falls_as_runs_rise(d):
    few = pw(d, None, power=0.8)
    many = pw(d, None, power=0.8, runs=2 * d["runs"] + 1)
    assert many.gap <= few.gap * 1.03


# ---------------------------------------------------------------- command line


def test_cli_plan_json(capsys):
    from probestats.cli import main

    code = main(["plan", "--noise", str(SAMPLES / "style_noise.csv"), "--metric", "steps", "--items", "5,8",
                 "--runs", "5", "--runs", "20", "--gap", "0.75", "--sims", "200", "--json"])
    out = capsys.readouterr()
    assert code == 0
    d = json.loads(out.out)
    assert [(c["items"], c["runs"]) for c in d["cells"]] == [(5, 5), (5, 20), (8, 5), (8, 20)]
    assert d["cells"][0]["mdg"] is None and d["cells"][0]["power"] == 0.0
    assert {"heterogeneity_assumed", "never_significant"} <= {p["code"] for p in d["problems"]}
    # the library call gives the same object (its warnings worded for the command line, as the command words them)
    from probestats.errors import cli_spelling

    with cli_spelling():
        lib = plan_probe(str(SAMPLES / "style_noise.csv"), metric="steps", items=[5, 8], runs=[5, 20], gap=0.75,
                         sizing=Sizing(sims=200))
    assert {"schema_version": 2, **json.loads(json.dumps(lib.to_dict()))} == d


def test_cli_plan_text_and_errors(capsys, tmp_path):
    from probestats.cli import main

    png = tmp_path / "power.png"
    code = main(["plan", "--noise", str(SAMPLES / "style_noise.csv"), "--metric", "steps", "--pilot",
                 str(SAMPLES / "style_probe.csv"), "--items", "8", "--runs", "5,20", "--gap", "0.75",
                 "--sims", "200", "--plot", str(png)])
    out = capsys.readouterr()
    assert code == 0 and "from the pilot, method of moments" in out.out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code = main(["plan", "--noise", str(SAMPLES / "style_noise.csv"), "--metric", "steps", "--items", "8,x"])
    assert code == 1
    assert capsys.readouterr().err.strip() == "Error: items must be whole numbers, not 'x'"
    code = main(["plan", "--noise", str(SAMPLES / "style_noise.csv"), "--metric", "steps", "--plot", "x.png"])
    assert code == 1
    assert capsys.readouterr().err.strip() == "Error: --plot draws power at a gap; add --gap G"
    empty = tmp_path / "empty_noise.csv"
    empty.write_text("item,variant,seed,steps\n", encoding="utf-8")
    code = main(["plan", "--noise", str(empty), "--metric", "steps", "--items", "8", "--gap", "1"])
    assert code == 1
    assert capsys.readouterr().err.strip() == (
        "Error: the noise log has no data rows; add the runs of a same-versus-same probe below its header")


# ---------------------------------------------------------------- the design actually run


def test_mdg_for_design_with_unequal_runs():
    m = noise_model(noise_frame(np.random.default_rng(3), items=6, runs=60), metric="steps")
    d = _draw(m, 8, 3, 2, 2000, 0, shift="steps")
    g = d.gaps(0.41)
    assert np.allclose(g * 6, np.round(g * 6))           # means over 3 and 2 runs: steps of 1/6
    assert (g - d.gaps(0.0)).mean() == pytest.approx(0.41, abs=0.01)
    even = mdg_for_design(m, 8, 20, 20, sizing=Sizing(mechanism="level", sims=1000))
    ragged = mdg_for_design(m, 8, [20] * 7 + [10], [20] * 8, sizing=Sizing(mechanism="level", sims=1000))
    fewer = mdg_for_design(m, 8, 10, 10, sizing=Sizing(mechanism="level", sims=1000))
    assert even < ragged < fewer
    # closed form for 6 items with normal noise: P(all same sign) = 0.8
    spread = 1.2 * math.sqrt(1 / 4 + 1 / 6)
    x = brentq(lambda v: all_same_sign(v, spread, 6) - 0.8, 0, 10)
    got = mdg_for_design(NoiseModel.stated(1.2), 6, 4, 6, tests=Tests(seed=1), sizing=Sizing(sims=4000))
    slope = 6 * norm.pdf(x / spread) * norm.cdf(x / spread) ** 5 / spread
    assert abs(got - x) < 3 * math.sqrt(0.8 * 0.2 / 4000) / slope + 2e-3 * x


# ---------------------------------------------------------------- hostile numbers


def test_infinite_and_huge_noise_values_are_refused_with_one_error_line(tmp_path, capsys):
    from probestats.cli import main

    # 'inf' parses as a number; 1e308 and -1e308 are finite but their sums over runs overflow
    for name, cells in (("inf", ["inf", "3", "4"]), ("huge", ["1e308", "-1e308", "3"])):
        path = tmp_path / f"{name}.csv"
        path.write_text("item,variant,steps\n" + "".join(f"1,a,{c}\n" for c in cells) + "2,a,3\n2,a,5\n")
        with pytest.raises(ColumnError, match="infinite" if name == "inf" else "too large to simulate"):
            noise_model(str(path), metric="steps")
        code = main(["plan", "--noise", str(path), "--metric", "steps", "--items", "8", "--runs", "5",
                     "--gap", "1", "--sims", "50"])
        err = capsys.readouterr().err
        assert code == 1 and err.count("\n") == 1 and err.startswith("Error: "), err


def test_huge_gap_sigma_and_tau_are_refused():
    with pytest.raises(OptionError, match="gap must be a finite number of ordinary size"):
        plan_probe(1.0, items=8, runs=5, gap=1e300, sizing=Sizing(sims=50))
    with pytest.raises(OptionError, match="gap must be a finite number"):
        power_sign_flip(gap=float("nan"), items=8, runs=5, noise=1.0)
    with pytest.raises(OptionError, match="too large to simulate"):
        plan_probe(1.0, items=8, runs=5, sizing=Sizing(heterogeneity=1e300, sims=50))
    with pytest.raises(OptionError, match="too large to simulate"):
        NoiseModel.stated(1e300)
    # an ordinary large scale still works: power depends only on gap / sigma (a closed form at 6 items)
    r = power_sign_flip(gap=0.9e50, items=6, runs=5, noise=1.2e50, tests=Tests(seed=3), sizing=Sizing(sims=4000))
    exact = all_same_sign(0.9, 1.2 * math.sqrt(2 / 5), 6)
    assert abs(r.power - exact) < z3(r.power_se)


def test_pilot_must_compare_two_different_values():
    rows = [{"item": i, "variant": v, "steps": s} for i in range(3) for v in ("a", "b") for s in (1, 2)]
    with pytest.raises(OptionError, match="compares a value with itself"):
        heterogeneity_from_pilot(rows, NoiseModel.stated(1.0), "steps", a="a", b="a")


def test_power_curve_names_item_counts_that_can_never_reach_significance():
    from probestats.present.plots.power import power_curve

    plan = plan_probe(1.2, items=[5, 8], runs=[2, 10], gap=1.0, sizing=Sizing(sims=200))
    ax = power_curve(plan)
    labels = [line.get_label() for line in ax.get_lines()]
    # 5 items: 2/32 > 0.05 (never); 8 items: 2/256 < 0.05
    assert labels[:2] == ["5 items (never significant)", "8 items"]
    assert list(ax.get_lines()[0].get_ydata()) == [0.0, 0.0]
    assert not ax.texts   # the note lives in the legend, not over the lines


def test_monte_carlo_sorting_of_probes_agrees_with_the_exact_test():
    """decide_rejections settles clear-cut probes by certified bounds and counts the rest; every decision
    must equal the exact test's (sign_flip_test on each row, computed independently here)."""
    from probestats.stats.hypotests import sign_flip_test
    from probestats.stats.decide import DECIDE_EXACT_ITEMS, decide_rejections

    rng = np.random.default_rng(7)
    n = DECIDE_EXACT_ITEMS + 3
    gaps = rng.normal(0.4, 1.0, size=(400, n))  # continuous gaps: no common step
    for alternative in ("two-sided", "greater"):
        exact = np.array([sign_flip_test(row, alternative=alternative).pvalue <= 0.05 for row in gaps])
        assert 0.2 < exact.mean() < 0.9  # both kinds of decision are exercised
        assert np.array_equal(decide_rejections(gaps, 0.05, alternative), exact)


# ---------------------------------------------------------------- floors and ceilings


def bernoulli_noise(rng, p=0.85, items=20, runs=500):
    """A same-versus-same log of a 0/1 metric with rate p: nothing changes but the draw."""
    n = items * 2 * runs
    return pl.DataFrame({"item": np.repeat(np.arange(items), 2 * runs).astype(str),
                         "variant": np.tile(np.repeat(["plain", "plain again"], runs), items),
                         "picked": (rng.random(n) < p).astype(np.int64)})


def bernoulli_rate(rng, probes, items, runs, p, shift):
    """Share of stand-in probes with p < 0.05: value a's runs are Bernoulli(min(1, p + shift)), b's Bernoulli(p)."""
    hits = 0
    for _ in range(probes):
        a = (rng.random((items, runs)) < min(1.0, p + shift)).mean(axis=1)
        b = (rng.random((items, runs)) < p).mean(axis=1)
        hits += sign_flip_test(a - b).pvalue < 0.05
    return hits / probes


def test_calibration_bounded_zero_one_metric():
    # A 0/1 metric at rate 0.85: a gap of 0.1 moves the rate to 0.95 (inside the ceiling);
    # 0.25 would need 1.10, so the stand-in stops at 1 and the gap really reached is 0.15.
    rng = np.random.default_rng(4242)
    noise = bernoulli_noise(rng)
    m = noise_model(noise, metric="picked")
    assert (m.floor, m.ceiling, m.scale_source) == (0.0, 1.0, "observed")
    p_cells = noise.group_by("item", "variant").agg(pl.col("picked").mean())["picked"].to_numpy()
    probes = 1200
    for gap, runs in ((0.1, [2, 5, 10]), (0.25, [3])):
        plan = plan_probe(m, items=10, runs=runs, gap=gap,
                          tests=Tests(seed=5), sizing=Sizing(heterogeneity=0.0, sims=3000))
        for cell in plan.cells:
            emp = bernoulli_rate(rng, probes, 10, cell.runs, 0.85, gap)
            se = math.sqrt(max(emp * (1 - emp), 1e-4) / probes)
            assert abs(emp - cell.power) < z3(se, cell.power_se) + 0.01, (gap, cell.runs, emp, cell.power)
            # the realised gap: min(gap, 1 - p_c) averaged over the log's cells (drawn uniformly)
            assert cell.gap_realized == pytest.approx(float(np.mean(np.minimum(gap, 1 - p_cells))), abs=0.002)
        codes = {p.code: p.message for p in plan.problems}
        assert "bounded_metric" in codes and "a ceiling at 1" in codes["bounded_metric"]


def test_unclipped_simulation_overstated_power_near_the_ceiling():
    # The same design simulated as before bounds were kept (scale ":" declares no bound):
    # a gap of 0.25 on a rate of 0.85 pushed runs to 1.10 on average, a gap the metric cannot show.
    rng = np.random.default_rng(99)
    noise = bernoulli_noise(rng)
    kw = dict(items=8, runs=3, gap=0.25, tests=Tests(seed=3))
    clipped = plan_probe(noise, metric="picked", sizing=Sizing(heterogeneity=0.0, sims=3000), **kw).cells[0]
    unclipped = plan_probe(noise, metric="picked", sizing=Sizing(heterogeneity=0.0, scale=":", sims=3000),
                           **kw).cells[0]
    emp = bernoulli_rate(rng, 1500, 8, 3, 0.85, 0.25)
    se = math.sqrt(emp * (1 - emp) / 1500)
    assert unclipped.power - clipped.power > 0.15 + z3(clipped.power_se, unclipped.power_se)
    assert abs(emp - clipped.power) < z3(se, clipped.power_se) + 0.01
    assert unclipped.power - emp > 0.15
    assert unclipped.gap_realized == 0.25 and clipped.gap_realized < 0.16


def judge_noise(rng, items=12, runs=200):
    """A 1-5 judge scale: a rounded normal clipped to [1, 5], item means from 3.2 to 4.6."""
    mu = np.linspace(3.2, 4.6, items)
    rows = {"item": [], "variant": [], "score": []}
    for i, m in enumerate(mu):
        for v in ("plain", "plain again"):
            rows["item"] += [str(i)] * runs
            rows["variant"] += [v] * runs
            rows["score"] += np.clip(np.round(m + 0.9 * rng.standard_normal(runs)), 1, 5).astype(int).tolist()
    return pl.DataFrame(rows)


def test_judge_scale_runs_stay_on_the_scale_and_means_move_by_the_clipped_gap():
    rng = np.random.default_rng(8)
    frame = judge_noise(rng)
    m = noise_model(frame, metric="score", scale="1:5")
    assert (m.floor, m.ceiling, m.scale_source) == (1.0, 5.0, "declared")
    d = _draw(m, 6, 4, 4, 20000, 1)
    cell_means = frame.group_by("item", "variant").agg(pl.col("score").mean())["score"].to_numpy()
    # a simulated item's runs come from its cell with probability mix, else from the whole log, so
    # its mean is mix * m_c + (1 - mix) * (the log's mean)
    item_means = m.mix * cell_means + (1 - m.mix) * float(frame["score"].mean())
    for gap in (0.3, 0.8, -0.5):
        g = d.gaps(gap)
        assert np.allclose(g * 4, np.round(g * 4))           # whole steps over 4 runs
        assert g.max() <= 4.0 and g.min() >= -4.0
        # independent: each item's mean moves to clip(mean + gap, 1, 5); cells are drawn uniformly
        expected = float(np.mean(np.clip(item_means + gap, 1, 5) - item_means))
        assert (g - d.gaps(0.0)).mean() == pytest.approx(expected, abs=0.01)   # SE about 0.003
    # value a's runs themselves never leave the scale: a at gap 3 is at most 5 - (mean of b >= 1)
    assert d.gaps(3.0).max() <= 4.0
    with pytest.raises(OptionError, match="outside the declared scale 2:5"):
        noise_model(frame, metric="score", scale="2:5")
    with pytest.raises(OptionError, match="expected LOW:HIGH"):
        noise_model(frame, metric="score", scale="1-5")
    with pytest.raises(OptionError, match="not a stated sigma"):
        plan_probe(1.0, items=8, runs=5, sizing=Sizing(scale="1:5", sims=50))


def test_an_unbounded_count_stays_unbounded():
    # style_noise.csv: steps from 1 to 9, one run at each end: no floor or ceiling is read
    m = noise_model(str(SAMPLES / "style_noise.csv"), metric="steps")
    assert (m.floor, m.ceiling, m.scale_source) == (None, None, None)
    plan = plan_probe(m, items=8, runs=5, gap=0.75, sizing=Sizing(sims=200))
    assert "bounded_metric" not in {p.code for p in plan.problems}
    assert plan.cells[0].gap_realized == 0.75
    # counts that pile up at 0 have a floor there, and no ceiling
    counts = pl.DataFrame({"item": np.repeat(np.arange(10), 40), "n": np.random.default_rng(1).poisson(0.8, 400)})
    c = noise_model(counts, metric="n")
    assert (c.floor, c.ceiling) == (0.0, None)
    assert c.with_scale(":").bounded is False


def test_a_small_noise_logs_extremes_are_not_bounds():
    # 12 runs: 1 at 3 and 2 at 8 are 8% and 17% of the runs, but too few to show a pile-up;
    # 3 runs at 0 are (25% and 3 runs)
    steps = [3, 4, 4, 5, 5, 5, 6, 6, 7, 7, 8, 8]
    m = noise_model([{"item": i % 3, "steps": s} for i, s in enumerate(steps)], metric="steps")
    assert (m.floor, m.ceiling) == (None, None)
    m = noise_model([{"item": i % 3, "steps": s} for i, s in enumerate([0, 0, 0] + steps[3:])], metric="steps")
    assert (m.floor, m.ceiling) == (0.0, None)


def test_cli_plan_scale(capsys):
    from probestats.cli import main

    code = main(["plan", "--noise", str(SAMPLES / "style_noise.csv"), "--metric", "steps", "--items", "8",
                 "--runs", "5", "--gap", "0.75", "--sims", "200", "--scale", "0:9", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0
    assert (d["noise"]["floor"], d["noise"]["ceiling"], d["noise"]["scale_source"]) == (0.0, 9.0, "declared")
    assert "bounded_metric" in {p["code"] for p in d["problems"]}
    # every cell's mean (3.6 to 6.4 steps) lies more than 0.75 below the ceiling: the whole gap is reached
    assert d["cells"][0]["gap_realized"] == pytest.approx(0.75)
    code = main(["plan", "--noise", str(SAMPLES / "style_noise.csv"), "--metric", "steps", "--scale", "1:5"])
    assert code == 1
    assert capsys.readouterr().err.strip() == ("Error: values of 'steps' in the noise log run from 1 to 9, outside "
                                               "the declared scale 1:5; correct --scale (or the log)")


ZERO_ONE = noise_model(bernoulli_noise(np.random.default_rng(17), items=10, runs=200), metric="picked")
JUDGE = noise_model(judge_noise(np.random.default_rng(18), items=8, runs=100), metric="score", scale="1:5")


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(["zero_one", "judge"]), st.integers(1, 6), st.sampled_from([0.0, 0.1]),
       st.floats(-1.0, 1.0), st.floats(0.0, 1.0), st.sampled_from(["two-sided", "less"]))
def test_bounded_gaps_never_fall_as_the_gap_rises(which, runs, tau, g, extra, alternative):
    # item by item, as _Rejections relies on: clipping at a bound stops a gap, never lowers it
    d = _draw(ZERO_ONE if which == "zero_one" else JUDGE, 7, runs, runs, 300, 2)
    assert np.all(d.gaps(g + extra, tau) >= d.gaps(g, tau))


@settings(max_examples=6, deadline=None)
@given(st.sampled_from(["zero_one", "judge"]), st.integers(6, 10), st.integers(1, 8),
       st.sampled_from([None, 0.0, 0.05]), st.floats(0.0, 0.3), st.floats(0.02, 0.3))
def test_power_rises_with_gap_for_a_bounded_metric(which, items, runs, tau, g, extra):
    noise = ZERO_ONE if which == "zero_one" else JUDGE
    kw = dict(items=items, runs=runs, noise=noise, sizing=Sizing(heterogeneity=tau, sims=SIMS), tests=Tests(seed=9))
    lo, hi = power_sign_flip(gap=g, **kw), power_sign_flip(gap=g + extra, **kw)
    assert hi.power >= lo.power - z3(lo.power_se, hi.power_se)
    assert hi.gap_realized >= lo.gap_realized
    zero = power_sign_flip(gap=0.0, **kw)
    assert zero.power <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / SIMS)


# ---------------------------------------------------------------- gap models (--shift)


def _poisson_noise(seed=0, cells=2000, m=2, lam=4.0):
    y = np.random.default_rng(seed).poisson(lam, cells * m).astype(float)
    return noise_model(pl.DataFrame({"item": np.repeat(np.arange(cells), m), "x": y}), metric="x")


def test_scale_shift_moves_a_count_like_a_poisson_rate():
    # reference: a Poisson rate raised from 4 to 4 + g over 20 runs per value gives an item gap
    # with mean g and variance (4 + g)/20 + 4/20 (the variance of a Poisson mean is its rate / runs)
    # (for this log's own spread s^2 and mean mu, the rate model's variance of a run is, by hand:
    # thinning with r = 1 + g/mu <= 1: r^2 s^2 + r (1 - r) mu; adding Poisson counts at rate
    # (r - 1) mu: s^2 + (r - 1) mu; both equal the Poisson's 4 + g when s^2 = mu = 4)
    # A share `differ` of simulated items has a cell, each of its runs from the cell with probability mix (else
    # from the whole log), so its level is mix * m_c + (1 - mix) * mu; the rest have level mu. A rate gap moves
    # an item's mean by (r - 1) times its level, which adds (r - 1)^2 var(level) =
    # (r - 1)^2 differ mix^2 var(m_c) to the gap's variance.
    m = _poisson_noise()
    s2, mu = m.sigma_simulated ** 2, float(np.mean(m._raw))
    cell_means = m._raw.reshape(-1, 2).mean(axis=1)
    var_level = m.differ * m.mix ** 2 * float(np.mean((cell_means - mu) ** 2))
    d = _draw(m, 6, 20, 20, 30000, 3, shift="scale")
    for g in (-1.5, 0.0, 1.0, 2.0):
        r = 1 + g / mu
        var_a = r * r * s2 + r * (1 - r) * mu if r <= 1 else s2 + (r - 1) * mu
        x = d.gaps(g)
        assert x.mean() == pytest.approx(g, abs=0.01)
        assert np.var(x) == pytest.approx((var_a + s2) / 20 + (r - 1) ** 2 * var_level, rel=0.03)
        assert var_a == pytest.approx(4 + g, rel=0.05)      # the Poisson's own variance
        assert np.allclose(x * 20, np.round(x * 20))         # still whole runs: gaps on the 1/20 lattice


def test_a_counts_default_gap_raises_each_items_rate_with_drawn_events():
    # reference: items with rates lambda_i ~ Gamma(4, 1), each run Poisson(lambda_i + g) under value a and
    # Poisson(lambda_i) under b; the item's own rate cancels in its gap, whose mean is g and variance
    # E[(lambda_i + g) / k + lambda_i / k] = (8 + g) / k (a Poisson mean over k runs has variance rate / k),
    # while spreading whole steps evenly would leave it at 8 / k whatever g
    rng = np.random.default_rng(4)
    lam = rng.gamma(4.0, 1.0, 1500)
    y = rng.poisson(np.repeat(lam, 4)).astype(float)
    m = noise_model(pl.DataFrame({"item": np.repeat(np.arange(1500), 4), "x": y}), metric="x")
    assert m.count and m.differ > 0.999
    assert "count's rate" in gap_model(m) and gap_model(m, "level").startswith("level")
    k = 10
    d = _draw(m, 6, k, k, 40000, 5)
    steps = _draw(m, 6, k, k, 40000, 5, shift="steps")
    s2 = m.sigma_simulated ** 2      # about 4, the pooled within-cell variance of the log
    for g in (1.0, 2.5):
        x = d.gaps(g)
        assert x.mean() == pytest.approx(g, abs=0.01)
        assert np.var(x) == pytest.approx((2 * s2 + g) / k, rel=0.03)
        assert np.var(x) == pytest.approx((8 + g) / k, rel=0.06)
        assert np.var(steps.gaps(g)) == pytest.approx(2 * s2 / k, rel=0.03)
        assert np.allclose(x * k, np.round(x * k))        # still whole runs
    for g in (-1.0, -2.0):   # a rate falls by g: each event kept with probability (lambda_i + g) / lambda_i
        x = d.gaps(g)
        real = float(np.mean(np.maximum(g, -lam) ))        # the generator's own average gap (rates stop at 0)
        assert x.mean() == pytest.approx(real, abs=0.03)
        assert np.var(x) == pytest.approx(float(np.mean(np.maximum(lam + g, 0) + lam)) / k, rel=0.08)
    # every gap non-decreasing in the gap (the MDG search needs it), through the change at 0
    prev = d.gaps(-3.0)
    for g in np.linspace(-2.9, 3.0, 25):
        cur = d.gaps(float(g))
        assert np.all(cur >= prev - 1e-12)
        prev = cur


@settings(max_examples=25, deadline=None)
@given(st.floats(-3.9, 3.0), st.floats(0.0, 2.0), st.integers(0, 2**31))
def test_scale_shift_gaps_never_fall_as_the_gap_grows(g, step, seed):
    # the bisection of the MDG relies on every simulated gap being non-decreasing in the gap
    m = _poisson_noise(cells=200)
    d = _draw(m, 5, 4, 4, 300, seed, shift="scale")
    assert np.all(d.gaps(g + step) >= d.gaps(g) - 1e-12)


def test_scale_shift_is_stated_and_refused_where_it_cannot_apply():
    plan = plan_probe(_poisson_noise(cells=300), items=8, runs=20, sizing=Sizing(mechanism="scale", sims=200))
    out = plan.to_dict()
    assert out["mechanisms"]["candidates"] == ["scale"] and "rate" in out["gap_model"]
    assert "how the gap acts: scale" in plan_text(plan)
    # Poisson counts: the log cannot tell a shift of the count from a change of its rate, so both are simulated
    default = plan_probe(_poisson_noise(cells=300), items=8, runs=20, sizing=Sizing(sims=200)).to_dict()
    assert default["mechanisms"]["candidates"] == ["level", "rate"]
    signed = pl.DataFrame({"item": [1, 1, 2, 2], "x": [-1.0, 1.0, 0.5, -0.5]})
    with pytest.raises(OptionError, match="0 or more"):
        plan_probe(signed, metric="x", items=8, runs=5, sizing=Sizing(mechanism="scale", sims=50))
    with pytest.raises(OptionError, match="noise log"):
        plan_probe(1.0, items=8, runs=5, sizing=Sizing(mechanism="scale", sims=50))
    with pytest.raises(OptionError, match="expected one of auto, level, rate, scale"):
        plan_probe(_poisson_noise(cells=30), items=8, runs=5, sizing=Sizing(mechanism="log", sims=50))


def test_two_sided_mdg_is_searched_both_ways_near_a_ceiling():
    # a 0/1 metric at rate 0.9: upward the items can gain at most 0.1, downward much more
    y = (np.random.default_rng(5).random(4000) < 0.9).astype(float)
    noise = noise_model(pl.DataFrame({"item": np.repeat(np.arange(2000), 2), "x": y}), metric="x")
    plan = plan_probe(noise, items=12, runs=5, sizing=Sizing(heterogeneity=0.0, sims=600))
    c = plan.to_dict()["cells"][0]
    assert c["mdg_up"] is None                      # unreachable upward: the ceiling comes first
    assert c["mdg_down"] is not None and c["mdg"] == c["mdg_down"]
    assert "MDG up" in plan_text(plan) and "never" in plan_text(plan)
    one = plan_probe(noise, items=12, runs=5,
                     tests=Tests(alternative="less"), sizing=Sizing(heterogeneity=0.0, sims=600)).to_dict()["cells"][0]
    assert one["mdg_up"] is None and one["mdg_down"] is not None


# ---------------------------------------------------------------- the MDG's range over plausible noise logs


def test_resampled_noise_draws_whole_cells_and_re_estimates_sigma():
    # 8 cells: resampling cells with replacement keeps each cell's runs together, so sigma is re-pooled by
    # hand from the cells drawn (numpy's ddof=1 variance per cell, weighted by its df)
    from probestats.analyses.plan import resampled_noise

    rng = np.random.default_rng(9)
    y = rng.normal(0, 1, (8, 6)) * np.arange(1, 9)[:, None]        # cells spread differently
    m = noise_model(pl.DataFrame({"item": np.repeat(np.arange(8), 6), "x": y.ravel()}), metric="x")
    r = resampled_noise(m, np.random.default_rng(3))
    cells = r._raw.reshape(8, 6)
    assert all(any(np.array_equal(c, row) for row in y) for c in cells)    # every cell one of the log's, whole
    assert r.sigma_run == pytest.approx(math.sqrt(np.mean(np.var(cells, axis=1, ddof=1))), rel=1e-12)
    assert r.sigma_run != m.sigma_run and r.n_runs == m.n_runs


def test_the_mdg_range_holds_the_mdg_and_narrows_with_a_larger_noise_log():
    rng = np.random.default_rng(12)

    def log(cells):
        y = rng.poisson(np.repeat(rng.gamma(4.0, 1.0, cells), 5)).astype(float)
        return pl.DataFrame({"item": np.repeat(np.arange(cells), 5), "x": y})

    small = plan_probe(log(30), metric="x", items=8, runs=10, sizing=Sizing(heterogeneity=0.0, sims=600))
    large = plan_probe(log(480), metric="x", items=8, runs=10, sizing=Sizing(heterogeneity=0.0, sims=600))
    widths = []
    for plan in (small, large):
        c = plan.cells[0]
        for size, span in ((c.mdg_up, c.mdg_up_range), (c.mdg_down, c.mdg_down_range)):
            assert span[0] <= size <= span[1]
        widths.append((c.mdg_range[1] - c.mdg_range[0]) / c.mdg)
        d = plan.to_dict()
        assert d["cells"][0]["mdg_range"] == list(c.mdg_range)
        assert d["mdg_range_noise_runs_to_halve"] == 4 * plan.noise.n_runs
        assert "resampled noise logs" in d["mdg_range_method"]
        text = plan_text(plan)
        assert "range" in text and f"{4 * plan.noise.n_runs:,} runs" in text
    # 16 times the runs: narrower (it narrows as 1/sqrt(runs) down to the floor the simulation error of the
    # reported MDG and of the few simulated probes per resampled log sets)
    assert widths[1] < widths[0], widths
    assert plan_probe(1.2, items=8, runs=10, sizing=Sizing(sims=200)).cells[0].mdg_range is None       # a stated sigma
    assert plan_probe(log(30), metric="x", items=8, runs=10, sizing=Sizing(sims=200, mdg_range=False)).to_dict()[
        "mdg_range_noise_runs_to_halve"] is None


def test_the_mdg_simulation_error_matches_brute_force_on_a_normal_test():
    # a one-sided z test of a gap d with standard error 1 rejects a probe z when z + d > 1.645; on S probes the
    # MDG at power 0.8 is 1.645 - (the probes' empirical 20% quantile); its spread over many sets of S probes,
    # relative to the true MDG 1.645 + 0.8416, is what mdg_sim_error approximates
    from scipy.stats import norm

    from probestats.analyses.plan import mdg_sim_error

    rng = np.random.default_rng(5)
    sims, true = 300, norm.isf(0.05) + norm.ppf(0.8)
    found = norm.isf(0.05) - np.quantile(rng.standard_normal((4000, sims)), 0.2, axis=1)
    assert mdg_sim_error(sims, 0.05, 0.8, "greater") == pytest.approx(np.std(found / true), rel=0.08)
    # two-sided: the critical value is 1.96 (the far tail adds nothing at this power)
    true2 = norm.isf(0.025) + norm.ppf(0.8)
    found2 = norm.isf(0.025) - np.quantile(rng.standard_normal((4000, sims)), 0.2, axis=1)
    assert mdg_sim_error(sims, 0.05, 0.8, "two-sided") == pytest.approx(np.std(found2 / true2), rel=0.08)


def test_the_mdg_range_is_the_mdg_times_exp_of_its_spreads():
    # written out by hand: log ratios +-0.1 and 0 (sample SD 0.1), simulation error 0.03, 3.5 spreads
    from probestats.analyses.plan.ranges import RANGE_SPREADS, _range_of

    base, size = 2.0, 0.5
    others = [base * math.exp(x) for x in (0.1, 0.0, -0.1)]
    half = RANGE_SPREADS * math.sqrt(0.1 ** 2 + 0.03 ** 2)
    low, high = _range_of(size, base, others, math.inf, 0.03)
    assert (low, high) == (pytest.approx(size * math.exp(-half)), pytest.approx(size * math.exp(half)))
    # a resampled log that reaches no MDG opens the range above; the bound caps the top
    assert _range_of(size, base, [*others, math.inf], math.inf, 0.03)[1] == math.inf
    assert _range_of(size, base, others, 0.6, 0.03) == (pytest.approx(size * math.exp(-half)), 0.6)


def test_no_mdg_lies_beyond_a_0_1_metrics_ceiling():
    # homogeneous 0/1 logs at a rate of 0.9, among them ones whose F test misfires: the upward MDG is the
    # average gap the items make, at most 1 - (the log's rate), the room the simulated items have
    for seed in (0, 3, 7):
        y = (np.random.default_rng(seed).random(2000) < 0.9).astype(float)
        frame = pl.DataFrame({"item": np.repeat(np.arange(400), 5), "x": y})
        c = plan_probe(frame, metric="x", items=8, runs=20, sizing=Sizing(heterogeneity=0.0, sims=400)).cells[0]
        room = 1 - y.mean()
        assert c.mdg_up is None or math.isinf(c.mdg_up) or c.mdg_up <= room + 1e-12
        assert c.mdg_up_range is None or c.mdg_up_range[1] == math.inf or c.mdg_up_range[1] <= room + 1e-12
        assert c.mdg_shift_up is None or math.isinf(c.mdg_shift_up) or c.mdg_shift_up >= c.mdg_up


def test_the_noise_log_messages_count_with_their_nouns():
    # one of a kind is "1 cell ... has", two are "2 cells ... have" (never "cell(s)")
    def model(rows):
        return noise_model(pl.DataFrame(rows, schema=["item", "variant", "steps"], orient="row"), metric="steps")

    rows = [(1, "a", 3), (1, "a", 5), (1, "b", 1), (1, "b", 2), (2, "a", 4), (2, "a", 6), (2, "b", 7)]
    assert [p.message for p in model(rows).problems] == [
        "1 cell of the noise log has one run and says nothing about run-to-run noise; it was left out"]
    assert [p.message for p in model(rows + [(3, "b", 7)]).problems] == [
        "2 cells of the noise log have one run and say nothing about run-to-run noise; they were left out"]
    one = noise_model(pl.DataFrame({"item": ["1"] * 3, "variant": ["a"] * 3, "steps": ["2", "x", "4"]}), metric="steps")
    assert one.problems[0].message == ("1 value of 'steps' in the noise log is not a number and was left out; fix it "
                                       "or clear the cell")
    two = noise_model(pl.DataFrame({"item": ["1"] * 4, "variant": ["a"] * 4, "steps": ["2", "x", "4", "y"]}),
                      metric="steps")
    assert two.problems[0].message == ("2 values of 'steps' in the noise log are not numbers and were left out; fix "
                                       "them or clear the cells")
    for steps, text in (([1.0, math.inf, 2.0, 3.0], "1 value of 'steps' in the noise log is infinite; write it as a "
                                                       "finite number or clear the cell"),
                        ([math.inf, -math.inf, 2.0, 3.0], "2 values of 'steps' in the noise log are infinite; write "
                                                          "them as finite numbers or clear the cells")):
        with pytest.raises(ColumnError) as caught:
            noise_model(pl.DataFrame({"item": [1, 1, 2, 2], "variant": ["a"] * 4, "steps": steps}), metric="steps")
        assert str(caught.value) == text


def test_a_design_that_can_never_reach_significance_is_named_with_its_items():
    # 5 items: the smallest two-sided sign-flip p is 2/2^5 = 0.0625 > 0.05; 6 items give 2/64
    (five,) = [p.message for p in plan_probe(1.2, items=[5, 6], runs=[5], gap=1.0, sizing=Sizing(sims=100)).problems
               if p.code == "never_significant"]
    assert five == ("with 5 items the smallest attainable p (0.0625) exceeds alpha 0.05: such a design could never "
                    "reach significance, whatever the gap; use at least 6 items")


def test_mean_bounds_are_the_cluster_standard_errors_of_the_logs_mean():
    # cells of unequal size; the reference: an intercept-only regression with standard errors clustered by
    # cell (statsmodels), and Student's t on cells - 1 degrees of freedom
    import statsmodels.api as sm
    from scipy.stats import t as student_t

    from probestats.analyses.plan import mean_bounds

    rng = np.random.default_rng(11)
    sizes = rng.integers(2, 9, 30)
    y = (rng.random(int(sizes.sum())) < np.repeat(rng.uniform(0.6, 0.95, 30), sizes)).astype(float)
    cell = np.repeat(np.arange(30), sizes)
    fit = sm.OLS(y, np.ones((y.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": cell})
    t = student_t.ppf(0.95, 29)
    low, high = mean_bounds(noise_model(pl.DataFrame({"item": cell, "x": y}), metric="x"))
    assert low == pytest.approx(y.mean() - t * fit.bse[0], rel=1e-9)
    assert high == pytest.approx(y.mean() + t * fit.bse[0], rel=1e-9)


def test_an_mdg_within_the_logs_uncertainty_of_the_ceiling_is_marked_not_promised():
    # 0/1 noise logs of 200 runs (40 cells of 5) at a rate of 0.9: the log knows its rate to about +/- 0.04, so an
    # upward MDG of about 0.09 may be a rise the items cannot make; it is marked when it exceeds 1 - the upper
    # one-sided 95% bound on the log's rate (t on 39 df times the larger of the cell means' SD / sqrt(40) and the
    # runs' own pooled SD / sqrt(200), by hand here: cells whose means agree by chance must not make the bound
    # tighter than the runs' noise allows)
    from scipy.stats import t as student_t

    marked = 0
    for seed in range(4):
        y = (np.random.default_rng([26, 1, seed]).random(200) < 0.9).astype(float)
        plan = plan_probe(pl.DataFrame({"item": np.repeat(np.arange(40), 5), "x": y}), metric="x", items=8,
                          runs=20, tests=Tests(seed=seed),
                          sizing=Sizing(heterogeneity=0.0, sims=300, mdg_range=False))
        c = plan.cells[0]
        means = y.reshape(40, 5).mean(axis=1)
        runs_sd = math.sqrt(float(np.mean(y.reshape(40, 5).var(axis=1, ddof=1))))
        se = max(means.std(ddof=1) / math.sqrt(40), runs_sd / math.sqrt(200))
        high = y.mean() + student_t.ppf(0.95, 39) * se
        expect = c.mdg_up is not None and math.isfinite(c.mdg_up) and c.mdg_up > 1 - high
        assert c.mdg_up_near_bound == expect
        assert c.to_dict()["mdg_up_near_bound"] == expect
        notes = [p.message for p in plan.problems if p.code == "mdg_near_bound"]
        assert bool(notes) == expect
        if expect:
            marked += 1
            assert f"as high as {high:.4g}" in notes[0] and f"only {1 - high:.3g}" in notes[0]
            assert "8 x 20" in notes[0] and "not promised" in plan_text(plan)
        assert not c.mdg_down_near_bound      # the floor is far: a fall of 0.15 leaves room
    assert marked >= 1
    # at a rate of 0.5 the MDG (about 0.3) is far from either bound: nothing is marked
    y = (np.random.default_rng(5).random(200) < 0.5).astype(float)
    plan = plan_probe(pl.DataFrame({"item": np.repeat(np.arange(40), 5), "x": y}), metric="x", items=8, runs=20,
                      sizing=Sizing(heterogeneity=0.0, sims=300, mdg_range=False))
    assert not plan.cells[0].mdg_up_near_bound and not plan.cells[0].mdg_down_near_bound
    assert "mdg_near_bound" not in {p.code for p in plan.problems}


def test_small_cells_are_joined_with_their_neighbours_by_mean():
    from probestats.analyses.plan.noise import POOL_MIN_RUNS, _joined_cells

    assert POOL_MIN_RUNS == 8
    # six cells of 3 runs, means 1, 6, 2, 5, 3, 4: in order of means 1, 2, 3 | 4, 5, 6 (9 runs each)
    y = np.array([1, 1, 1, 6, 6, 6, 2, 2, 2, 5, 5, 5, 3, 3, 3, 4, 4, 4], dtype=float)
    joined, means, sizes = _joined_cells(y, y.reshape(6, 3).mean(axis=1), np.full(6, 3))
    assert sizes.tolist() == [9, 9] and means.tolist() == [2.0, 5.0]
    assert joined.tolist() == [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6]
    # seven cells of 3: the last short group (one cell) joins the one before
    y7 = np.concatenate([y, [7, 7, 7]])
    assert _joined_cells(y7, y7.reshape(7, 3).mean(axis=1), np.full(7, 3))[2].tolist() == [9, 12]
    # cells of 8 runs or more stay as they are
    y8 = np.arange(16, dtype=float)
    assert _joined_cells(y8, np.array([3.5, 11.5]), np.array([8, 8]))[2].tolist() == [8, 8]


def test_counts_of_items_that_differ_in_rate_on_cells_of_two_runs_keep_the_gaps_tails():
    # Poisson counts whose items' rates are Gamma(4, 1), the noise log in cells of 2 runs: each simulated item's
    # gap (8 items x 20 runs) should have about the tails of the generator's own gaps. Resampling 2-run cells as
    # they are gave an excess kurtosis of 2.5 against the generator's 0.9 (and power promised 0.80 where 0.77 was
    # delivered downward); joined cells give about 1.5
    from scipy.stats import kurtosis

    rng = np.random.default_rng(5)
    y = rng.poisson(np.repeat(rng.gamma(4.0, 1.0, 2000), 2)).astype(float)
    model = noise_model(pl.DataFrame({"item": np.repeat(np.arange(2000), 2), "x": y}), metric="x")
    sim = _draw(model, 8, 20, 20, 20000, 1).gaps(-0.69)
    lam = rng.gamma(4.0, 1.0, (20000, 8))
    true = (rng.poisson(np.maximum(lam - 0.69, 0)[..., None], (20000, 8, 20)).mean(-1)
            - rng.poisson(lam[..., None], (20000, 8, 20)).mean(-1))
    assert float(np.var(sim)) == pytest.approx(float(np.var(true)), rel=0.05)
    assert kurtosis(sim.ravel()) < kurtosis(true.ravel()) + 0.8, (kurtosis(sim.ravel()), kurtosis(true.ravel()))


def test_the_reported_mdg_is_marked_not_promised_when_the_bound_may_not_leave_room():
    # A 0/1 probe at a rate of 0.9 and a noise log of 40 cells x 5 runs at about 0.88: the log's one-sided 95%
    # upper bound on its rate (cell means' SD / sqrt(40), t on 39 df, by hand here) leaves room for a rise of
    # about 0.07, less than the design's MDG; at a rate of 0.5 the room is far larger than the MDG.
    import probestats
    from scipy.stats import t as student_t

    from probestats.present.report.document import render_report

    for rate, marked in ((0.88, True), (0.5, False)):
        rng = np.random.default_rng(3)
        rows = [{"item": i, "variant": v, "seed": s, "ok": int(rng.random() < max(rate, 0.5))}
                for i in range(8) for v in ("a", "b") for s in range(20)]
        draw = np.random.default_rng([26, 1, 0])
        noise = [{"item": c, "variant": v, "seed": s, "ok": int(draw.random() < rate)}
                 for c in range(20) for v in ("x", "y") for s in range(5)]
        result = probestats.analyze(rows, metric="ok", noise=noise)
        y = np.array([r["ok"] for r in noise], dtype=float).reshape(40, 5)
        high = y.mean() + student_t.ppf(0.95, 39) * y.mean(axis=1).std(ddof=1) / math.sqrt(40)
        low = y.mean() - student_t.ppf(0.95, 39) * y.mean(axis=1).std(ddof=1) / math.sqrt(40)
        room = (1 - high) if marked else None
        if marked:
            assert result.mdg_room == pytest.approx(room, rel=1e-9)
        else:   # the MDG of a rate of 0.5 may go either way; the room is that way's
            assert result.mdg_room in (pytest.approx(1 - high, rel=1e-9), pytest.approx(low, rel=1e-9))
        assert result.mdg_near_bound is (result.mdg > result.mdg_room) is marked
        assert result.to_dict()["mdg_near_bound"] is marked
        md = render_report(result, format="md")
        assert ("not promised: the noise log's mean may lie so near the metric's bound" in md) is marked


def test_the_pilots_chi_square_quantiles_are_scipys_to_the_last_bit():
    # the tau interval's cut and the pilot size it asks for read chi-square quantiles from scipy.special; they are
    # scipy.stats.chi2's, bit for bit, so an interval is the same as with scipy.stats
    from scipy.stats import chi2

    from probestats.analyses.plan.heterogeneity import chi2_isf, chi2_ppf, pilot_items_needed

    for q in np.linspace(0.005, 0.995, 120):
        for df in (1, 2, 3, 7, 19, 40):
            assert chi2_ppf(q, df) == chi2.ppf(q, df)
            assert chi2_isf(q, df) == chi2.isf(q, df)
    tail = 0.05
    n = next(n for n in range(3, 200) if chi2.isf(tail, n - 1) / chi2.ppf(tail, n - 1) <= 4.0)
    assert pilot_items_needed(0.9, 4.0) == n


def test_the_sizing_and_the_pilots_values_reach_the_simulation():
    # a Pilot's a and b are the values compared (the pilot's gap is a minus b); the Sizing's target power is the
    # MDG's; power_sign_flip takes its target from power= and refuses another on the Sizing, and a Tests choice it
    # has no use for
    from probestats.analyses.plan import Pilot

    rng = np.random.default_rng(5)
    noise = noise_frame(rng, items=8, runs=20)
    pilot = pl.DataFrame({"item": np.repeat(np.arange(8), 8).astype(str),
                          "variant": np.tile(np.repeat(["formal", "casual"], 4), 8),
                          "steps": np.concatenate([np.concatenate([stand_in(rng, 4, shift=1.0), stand_in(rng, 4)])
                                                   for _ in range(8)])})
    kw = dict(metric="steps", items=8, runs=5, tests=Tests(seed=1), sizing=Sizing(sims=200, mdg_range=False))
    ab = plan_probe(noise, pilot=Pilot(pilot, a="formal", b="casual"), **kw).heterogeneity
    ba = plan_probe(noise, pilot=Pilot(pilot, a="casual", b="formal"), **kw).heterogeneity
    assert (ab.a, ab.b, ba.a, ba.b) == ("formal", "casual", "casual", "formal")
    assert ab.average_gap == pytest.approx(-ba.average_gap) and ab.average_gap < 0   # stand_in's shift lowers
    low = mdg_for_design(NoiseModel.stated(1.2), 8, 10, 10, sizing=Sizing(sims=400))
    high = mdg_for_design(NoiseModel.stated(1.2), 8, 10, 10, sizing=Sizing(power=0.95, sims=400))
    assert high > low
    with pytest.raises(OptionError, match="target power from power="):
        power_sign_flip(gap=None, items=8, runs=5, power=0.8, noise=1.0, sizing=Sizing(power=0.9))
    with pytest.raises(OptionError, match="does not apply to a power calculation"):
        power_sign_flip(gap=1.0, items=8, runs=5, noise=1.0, tests=Tests(correction="bh"))
