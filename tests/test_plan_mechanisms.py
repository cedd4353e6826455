"""How a gap acts (plan's mechanisms), the limits a plan refuses up front, its time budget and its progress.

References: the tutorial's stand-in model simulated probe by probe and tested with the exact sign-flip test
(independent of plan's noise model); the binomial quantile in exact fractions, scipy's negative binomial quantile; statsmodels'
TTestPower; sign_flip_test on each row; a plain search per row for the meet-in-the-middle counts; bisection
for the mixture's inverse; hand bounds on a log's mean.
"""

from __future__ import annotations

import io
import math
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import norm

from probestats.analyses.plan import Sizing
from probestats.analyses.plan import noise_model, plan_probe
from probestats.vocabulary import Tests
from probestats.analyses.plan.mechanisms import choose_mechanisms, infer_rating_scale, metric_kind
from probestats.errors import OptionError
from probestats.present.words.plan import plan_text
from probestats.stats.hypotests import sign_flip_pvalues, sign_flip_test


def stand_in(rng, shape, shift=0.0):
    """The tutorial's stand-in: max(1, round(4 + shift + 1.2 z)) steps."""
    return np.maximum(1.0, np.round(4.0 + shift + 1.2 * rng.standard_normal(shape)))


def expected_steps(shift):
    j = np.arange(2, 60)
    m = 4.0 + shift
    mass = norm.cdf((j + 0.5 - m) / 1.2) - norm.cdf((j - 0.5 - m) / 1.2)
    return float(norm.cdf((1.5 - m) / 1.2) + (j * mass).sum())


def tutorial_log(rng):
    """A same-versus-same log of the tutorial's shape: 8 items x 2 values x 20 runs."""
    return pl.DataFrame({"item": np.repeat(np.arange(16), 20), "steps": stand_in(rng, (16, 20)).ravel()})


def detection_rate(rng, items, runs, planted, probes):
    a = stand_in(rng, (probes, items, runs)).mean(axis=2)
    b = stand_in(rng, (probes, items, runs), -planted).mean(axis=2)
    return float(np.mean(sign_flip_pvalues(a - b) <= 0.05 * (1 + 1e-12)))


def test_the_tutorial_stand_in_is_promised_what_it_delivers():
    # the stand-in shifts a latent level and rounds: no spread is added, and its counts spread far less than
    # Poisson counts (variance / mean about 0.38), so a rate change made of events is ruled out
    rng = np.random.default_rng(41)
    gap = expected_steps(0.0) - expected_steps(-1.0)       # 0.98: the floor at 1 takes a little of the step
    runs = [1, 5, 20]
    predicted = []
    for log in range(3):
        plan = plan_probe(tutorial_log(rng), metric="steps", items=8, runs=runs, gap=gap, tests=Tests(seed=log),
                          sizing=Sizing(sims=1500, mdg_range=False))
        assert plan.mechanisms.candidates == ("level",) and plan.mechanisms.ruled_out == ("rate",)
        assert {c.mechanism_power for c in plan.cells} == {"level"}
        predicted.append([c.power for c in plan.cells])
        text = plan_text(plan)
        assert "how the gap acts: level" in text and "spread less than Poisson counts" in text
        assert "upper bound, if the gap acts as assumed" in text
    predicted = np.mean(predicted, axis=0)
    probes = 2000
    for k, p in zip(runs, predicted):
        measured = detection_rate(rng, 8, k, 1.0, probes)
        assert abs(p - measured) <= 0.05, (k, p, measured)


def _poisson(seed=0, cells=300, m=4, lam=4.0):
    y = np.random.default_rng(seed).poisson(lam, cells * m).astype(float)
    return noise_model(pl.DataFrame({"item": np.repeat(np.arange(cells), m), "x": y}), metric="x")


def test_where_the_log_cannot_tell_the_headline_is_the_least_promising():
    noise = _poisson()
    assert metric_kind(noise)[0] == "count"
    plan = plan_probe(noise, items=[8, 12], runs=[5, 20], gap=0.8,
                      sizing=Sizing(heterogeneity=0.0, sims=600, mdg_range=False))
    assert plan.mechanisms.candidates == ("level", "rate") and plan.mechanisms.several
    for c in plan.cells:
        by = {r.mechanism: r for r in c.by_mechanism}
        assert set(by) == {"level", "rate"}
        assert c.mdg_up == max(r.mdg_up for r in by.values())
        assert c.mdg_down == max(r.mdg_down for r in by.values())
        assert c.power == min(r.power for r in by.values())
        assert c.mechanism_up == "rate"              # extra events add spread upward
        assert by[c.mechanism_power].power == c.power
    text = plan_text(plan)
    assert "MDG if level" in text and "MDG if rate" in text and "if the gap shifts the count" in text
    assert "upper bound" not in text                 # no bound either way when the mechanism is unknown
    out = plan.to_dict()
    assert out["mechanisms"]["candidates"] == ["level", "rate"]
    assert {m["mechanism"] for m in out["cells"][0]["by_mechanism"]} == {"level", "rate"}


def _pilot(rng, rate_change: bool, items=80, runs=10, lam=4.0, gap=3.0):
    a = rng.poisson(lam + gap, (items, runs)) if rate_change else rng.poisson(lam, (items, runs)) + gap
    b = rng.poisson(lam, (items, runs))
    y = np.concatenate([a, b], axis=1).ravel()
    return pl.DataFrame({"item": np.repeat(np.arange(items), 2 * runs),
                         "variant": np.tile(np.repeat(["a", "b"], runs), items), "x": y.astype(float)})


def test_a_pilot_reads_how_the_gap_acts():
    # value a's runs spread more than b's by the gap (variance) when the rate rises, not at all when shifted
    rng = np.random.default_rng(7)
    noise = _poisson(seed=1)
    rate = plan_probe(noise, items=8, runs=5, pilot=_pilot(rng, True), sizing=Sizing(sims=300, mdg_range=False))
    level = plan_probe(noise, items=8, runs=5, pilot=_pilot(rng, False), sizing=Sizing(sims=300, mdg_range=False))
    assert rate.mechanisms.candidates == ("rate",) and rate.mechanisms.source == "pilot"
    assert level.mechanisms.candidates == ("level",) and level.mechanisms.source == "pilot"
    assert "in the pilot, value a's runs spread more" in rate.mechanisms.reason
    assert rate.heterogeneity.spread_a > rate.heterogeneity.spread_b + 1.5


def test_a_rating_on_round_numbers_is_a_bounded_rating_not_a_count():
    rng = np.random.default_rng(3)
    mu = np.repeat(rng.uniform(40, 85, 60), 6)
    x = mu + 9 * rng.standard_normal(mu.size)
    y = np.clip(np.where(rng.random(mu.size) < 0.7, np.round(x / 5) * 5, np.round(x)), 0, 100)
    frame = pl.DataFrame({"item": np.repeat(np.arange(60), 6), "score": y})
    noise = infer_rating_scale(noise_model(frame, metric="score"))
    assert (noise.floor, noise.ceiling, noise.scale_source) == (0.0, 100.0, "inferred")
    assert choose_mechanisms(noise).candidates == ("level",) and metric_kind(noise)[0] == "rating"
    plan = plan_probe(frame, metric="score", items=8, runs=5, sizing=Sizing(sims=200, mdg_range=False))
    assert "rating_scale_inferred" in [p.code for p in plan.problems]
    declared = plan_probe(frame, metric="score", items=8, runs=5, sizing=Sizing(scale="0:", sims=200, mdg_range=False))
    assert declared.noise.ceiling is None and "rating_scale_inferred" not in [p.code for p in declared.problems]


def _skewed_counts(seed=0, items=200, runs=20, size=0.5):
    """Negative-binomial counts: item means Gamma(2, 1) (about 2), size 0.5: half the runs 0, a tail to 40 or more."""
    rng = np.random.default_rng(seed)
    mu = np.repeat(rng.gamma(2.0, 1.0, items), runs)
    y = rng.negative_binomial(size, size / (size + mu))
    return pl.DataFrame({"item": np.repeat(np.arange(items), runs), "m": y.astype(float)})


def test_skewed_counts_are_a_count_not_a_rating_and_take_a_rate():
    frame = _skewed_counts()
    y = frame["m"].to_numpy()
    # the log that was read as a rating: whole numbers within 0-100, more than half of them on multiples of 5
    # (its zeros among them), but piled at 0 with a long right tail
    assert np.mean(y % 5 == 0) >= 0.5 and y.min() == 0 and 30 <= y.max() <= 100
    skew = float(np.mean((y - y.mean()) ** 3) / np.std(y) ** 3)
    assert skew > 2
    noise = infer_rating_scale(noise_model(frame, metric="m"))
    assert noise.ceiling is None and noise.scale_source != "inferred"
    kind, text = metric_kind(noise)
    assert kind == "count" and f"skewness {skew:.2g}" in text and "long right tail" in text
    plan = plan_probe(frame, metric="m", items=8, runs=2, gap=1.0, sizing=Sizing(sims=200, mdg_range=False))
    assert "rating_scale_inferred" not in [p.code for p in plan.problems]
    assert plan.mechanisms.kind == "count"
    rate = plan_probe(frame, metric="m", items=8, runs=2, gap=1.0,
                      sizing=Sizing(mechanism="rate", sims=200, mdg_range=False))
    assert rate.mechanisms.candidates == ("rate",) and rate.cells[0].mechanism_power == "rate"
    assert "how the gap acts: rate:" in plan_text(rate)


def test_a_named_rate_reads_whole_numbers_as_a_count_and_a_rating_says_why():
    # a rating that fills 0-100 in round numbers is still inferred, and the warning says which share and what tail
    rng = np.random.default_rng(5)
    mu = np.repeat(rng.uniform(40, 85, 40), 6)
    x = mu + 9 * rng.standard_normal(mu.size)
    y = np.clip(np.where(rng.random(mu.size) < 0.7, np.round(x / 5) * 5, np.round(x)), 0, 100)
    frame = pl.DataFrame({"item": np.repeat(np.arange(40), 6), "score": y})
    plan = plan_probe(frame, metric="score", items=8, runs=5, sizing=Sizing(sims=200, mdg_range=False))
    share = float(np.mean(y[y != 0] % 5 == 0))
    [warned] = [p.message for p in plan.problems if p.code == "rating_scale_inferred"]
    assert f"{share:.0%} of its runs other than 0 on multiples of 5" in warned
    assert "does not start at 0" in warned or "its runs do not start at 0" in warned
    rate = plan_probe(frame, metric="score", items=8, runs=5,
                      sizing=Sizing(mechanism="rate", sims=200, mdg_range=False))
    assert rate.noise.ceiling is None and rate.mechanisms.kind == "count"
    assert "rating_scale_inferred" not in [p.code for p in rate.problems]


def test_a_plan_too_large_is_refused_before_any_simulation(monkeypatch):
    import probestats.analyses.plan.table as table

    def refuse(*args, **kwargs):
        raise AssertionError("simulated")

    monkeypatch.setattr(table, "draw_probes", refuse)
    noise = _poisson(cells=50)
    with pytest.raises(OptionError, match=r"sizes 500 designs .* more than the limit of 60 without a time budget "
                                          r"\(estimated about .*\); plan fewer designs, or give time_budget"):
        plan_probe(noise, items=list(range(1, 501)), runs=5, sizing=Sizing(sims=2000))
    with pytest.raises(OptionError, match=r"estimated to take about .* more than the limit of about 10 min"):
        plan_probe(noise, items=[3000, 5000], runs=[2], sizing=Sizing(sims=2000))
    big = noise_model(pl.DataFrame({"item": np.repeat(np.arange(60_000), 2), "x": np.tile([1.0, 2.0], 60_000)}),
                      metric="x")
    with pytest.raises(OptionError, match=r"120,000 runs for each design, more than the limit of 100,000 runs; "
                                          r"turn the range off \(mdg_range=False\)"):
        plan_probe(big, items=8, runs=5, sizing=Sizing(sims=100))


def test_the_command_refuses_a_huge_grid_in_one_line(tmp_path, capsys):
    from probestats.cli import main

    noise = tmp_path / "noise.csv"
    noise.write_text("item,variant,x\n" + "".join(f"{i},a,{(i * 7 + r) % 5}\n" for i in range(6) for r in range(4)))
    code = main(["plan", "--noise", str(noise), "--metric", "x", "--items", ",".join(str(n) for n in range(1, 501)),
                 "--runs", "5"])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    line = err.strip()
    assert line.startswith("Error: the plan sizes 500 designs") and "\n" not in line and "Traceback" not in err
    assert "--time-budget SECONDS" in line and "estimated about" in line


def test_a_time_budget_stops_refining_and_says_how_precise(monkeypatch):
    import time

    import probestats.analyses.plan.table as table

    clock = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    real = table.draw_probes

    def slow_draw(*args, **kwargs):
        clock[0] += 10.0          # every design's simulation "takes" 10 s
        return real(*args, **kwargs)

    monkeypatch.setattr(table, "draw_probes", slow_draw)
    plan = plan_probe(_poisson(cells=100), items=[8, 10], runs=[5], sizing=Sizing(sims=300, time_budget=5.0))
    assert plan.precision is not None and "time budget of 5 s ran out" in plan.precision
    assert "time_budget" in [p.code for p in plan.problems]
    assert all(c.mdg_range is None for c in plan.cells)
    assert "precision: the time budget" in plan_text(plan)
    with pytest.raises(OptionError, match="time_budget=0"):
        plan_probe(_poisson(cells=100), items=8, runs=5, sizing=Sizing(sims=100, time_budget=0))


def test_progress_goes_to_standard_error_when_it_is_not_a_terminal(monkeypatch):
    from rich.console import Console

    import probestats.present.words.plan as plan_text_module

    monkeypatch.setattr(plan_text_module, "PLAIN_PROGRESS_AFTER", 0.0)
    out = io.StringIO()
    console = Console(file=out, force_terminal=False, width=200)
    with plan_text_module.plan_progress(console) as progress:
        plan_probe(1.0, items=[8, 10], runs=[2, 3], progress=progress, sizing=Sizing(sims=200))
    lines = out.getvalue().splitlines()
    assert lines and all(line.startswith("plan: ") and " of 4 designs simulated in " in line and "s left" in line
                         for line in lines)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([2, 3, 4, 6, 12]), st.integers(1, 3), st.integers(0, 2**31 - 1))
def test_an_upward_mdg_past_the_room_the_ceiling_leaves_is_always_marked(m, zeros, seed):
    # 0/1 noise logs of 12 runs at a rate near 0.9 (one cell of 12 runs included): an upward MDG the mark
    # leaves unmarked never exceeds the ceiling less the log's own mean (the bound on the mean is never
    # tighter than the runs' own noise, and exists for one cell)
    rng = np.random.default_rng(seed)
    y = np.ones(12)
    y[rng.choice(12, zeros, replace=False)] = 0.0
    frame = pl.DataFrame({"item": np.repeat(np.arange(12 // m), m), "x": y})
    plan = plan_probe(frame, metric="x", items=8, runs=20, tests=Tests(seed=seed % 1000),
                      sizing=Sizing(heterogeneity=0.0, sims=200, mdg_range=False))
    c = plan.cells[0]
    if c.mdg_up is not None and math.isfinite(c.mdg_up) and not c.mdg_up_near_bound:
        assert c.mdg_up <= 1.0 - y.mean()


def test_one_cell_of_twelve_runs_at_a_rate_near_one_marks_its_upward_mdg():
    y = np.array([1.0] * 11 + [0.0])
    plan = plan_probe(pl.DataFrame({"item": [1] * 12, "x": y}), metric="x", items=8, runs=20,
                      sizing=Sizing(heterogeneity=0.0, sims=300, mdg_range=False))
    c = plan.cells[0]
    assert c.mdg_up is None or math.isinf(c.mdg_up) or c.mdg_up_near_bound


# ---------------------------------------------------------------- the fast parts, against references


def _exact_binomial_cdf(n: int, p: float) -> list[Fraction]:
    """CDF(0), ..., CDF(n) of Binomial(n, p) in exact rational arithmetic (p is the float's exact value).

    With p = a / d, CDF(k) = sum over j <= k of C(n, j) a^j (d - a)^(n - j), over d^n: integers to the end.
    """
    a, d = Fraction(p).as_integer_ratio()
    running, sums = 0, []
    for j in range(n + 1):
        running += math.comb(n, j) * a ** j * (d - a) ** (n - j)
        sums.append(running)
    return [Fraction(c, d ** n) for c in sums]


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 300), st.floats(0.0, 1.0), st.floats(1e-9, 1 - 1e-9))
@example(11, 0.5, 0.5)     # v exactly at a step: CDF(5) = 1/2, summed as 0.49999999999999994
@example(35, 0.5, 0.5)     # CDF(17) = 1/2, where scipy's own ppf answers 18
@example(11, 0.5, 0.7)     # the far end, where 1 - v rounds up
@example(40, 0.75, 0.25)
def test_binomial_quantile_is_the_exact_one(n, p, v):
    # the smallest k with CDF(k) >= v, CDF summed in fractions; a v within 1e-11 of a step may round to it
    from probestats.analyses.plan.simulate import _binomial_quantile

    cdf = _exact_binomial_cdf(n, p)
    exact = next(k for k, c in enumerate(cdf) if c >= Fraction(v))
    got = _binomial_quantile(np.array([v]), np.array([n]), np.array([p]))[0]
    at_a_step = any(abs(float(c) - v) <= 1e-11 * v for c in cdf)
    assert got == exact or (at_a_step and abs(got - exact) == 1)


@pytest.mark.parametrize("n", [11, 35, 40, 149, 259])
@pytest.mark.parametrize("p", [0.25, 0.5, 0.75, 0.9])
def test_binomial_quantile_at_each_step_of_the_distribution_is_that_step(n, p):
    # v = CDF(k) rounded to a float gives k, where a sum rounded one unit low would give k + 1
    from probestats.analyses.plan.simulate import _binomial_quantile

    cdf = _exact_binomial_cdf(n, p)
    steps = [k for k in range(n + 1) if 1e-9 < cdf[k] < 1 - Fraction(1, 10**9)
             and cdf[k] - (cdf[k - 1] if k else 0) > Fraction(1, 10**9)]
    v = np.array([float(cdf[k]) for k in steps])
    assert len(steps) > 3
    assert _binomial_quantile(v, np.full(v.size, n), np.full(v.size, p)).tolist() == steps


@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 60.0), st.floats(1.05, 6.0), st.floats(1e-6, 1 - 1e-6))
def test_negative_binomial_quantile_is_scipys(mean, disp, v):
    from scipy.stats import nbinom

    from probestats.analyses.plan.simulate import _nbinom_quantile

    assert _nbinom_quantile(np.array([v]), np.array([mean]), disp)[0] == nbinom.ppf(v, mean / (disp - 1), 1 / disp)


def test_the_t_cross_check_is_statsmodels_power():
    from statsmodels.stats.power import TTestPower

    from probestats.analyses.plan.simulate import approx_power

    for d, n, alt in [(1.0, 8, "two-sided"), (0.3, 30, "greater"), (0.5, 12, "two-sided"), (2.0, 3, "less")]:
        ref = TTestPower().power(effect_size=d, nobs=n, alpha=0.05,
                                 alternative="two-sided" if alt == "two-sided" else "larger")
        assert approx_power(d, n, 1.0, 0.0, 0.05, alt) == pytest.approx(ref, rel=1e-10)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 40), st.sampled_from(["two-sided", "greater", "less"]), st.integers(0, 2**31 - 1))
def test_equal_sized_gaps_get_the_exact_p_in_one_pass(n, alternative, seed):
    from probestats.stats.decide import _equal_sizes

    g = np.random.default_rng(seed).choice([-0.37, 0.0, 0.37], size=(20, n))
    same, p = _equal_sizes(g, alternative)
    for row, ok, value in zip(g, same, p):
        if ok:
            assert value == pytest.approx(sign_flip_test(row, alternative=alternative).pvalue, rel=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 16), st.integers(0, 2**31 - 1))
def test_merged_pattern_counts_are_the_row_by_row_search(n, seed):
    from probestats.stats.lattice import count_at_least, sign_matrix

    rng = np.random.default_rng(seed)
    G = np.round(rng.normal(0.3, 1.0, (25, n)) * 3) / 3
    x = np.abs(G.sum(axis=1)) - 1e-9 * np.abs(G).max(axis=1)
    n1 = n // 2
    A = G[:, :n1] @ sign_matrix(n1).T
    B = np.sort(G[:, n1:] @ sign_matrix(n - n1).T, axis=1)
    ref = [A.shape[1] * B.shape[1] - int(np.searchsorted(B[r], x[r] - A[r], side="left").sum()) for r in range(25)]
    assert count_at_least(G, x).tolist() == ref


def test_the_mixture_inverse_moves_runs_as_the_bisection_does():
    # the shift read off the mixture map's inverse gives every simulated run the value bisection's shift gives
    rng = np.random.default_rng(0)
    for trial in range(12):
        cells, m = int(rng.integers(3, 30)), int(rng.integers(2, 7))
        y = np.clip(np.round(rng.normal(np.repeat(rng.uniform(1.5, 4.8, cells), m), 1.0)), 1, 5)
        nm = noise_model(pl.DataFrame({"item": np.repeat(np.arange(cells), m), "x": y}), metric="x", scale="1:5")
        tab, w = nm._shifts, nm.mix
        if tab is None or not 0 < w < 1:
            continue
        cell = rng.integers(0, tab.first.size, (40, 5))
        gap = rng.normal(0, 0.7, (40, 5))
        s_new, _ = tab.mixed(cell, gap, w)
        whole = tab.first.size - 1
        first, last = tab.limits(cell, w)
        target = np.clip(gap, first, last)
        lo, hi = np.full(target.shape, -50.0), np.full(target.shape, 50.0)
        for _ in range(80):
            mid = 0.5 * (lo + hi)
            up = w * tab.moved(cell, mid) + (1 - w) * tab.moved(np.full_like(cell, whole), mid) >= target
            hi, lo = np.where(up, mid, hi), np.where(up, lo, mid)
        runs = rng.choice(y, (40, 5, 6)) + rng.random((40, 5, 6))
        move = lambda s: np.clip(np.floor(runs + s[..., None]), 1, 5)  # noqa: E731
        assert np.array_equal(move(s_new), move(hi))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(-3, 3)), min_size=3, max_size=40))
def test_the_rank_correlation_is_scipys_spearman_with_ties(pairs):
    # the plan's own Spearman (average ranks for ties, t approximation) against scipy.stats.spearmanr and rankdata
    import warnings

    from scipy.stats import rankdata, spearmanr

    from probestats.analyses.plan.mechanisms import average_ranks, spearman_greater

    x = np.array([p[0] for p in pairs], dtype=float)
    y = np.array([p[1] for p in pairs], dtype=float) + 0.5 * x
    assert average_ranks(x).tolist() == rankdata(x).tolist()
    rho, p = spearman_greater(x, y)
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        assert math.isnan(rho) and math.isnan(p)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = spearmanr(x, y, alternative="greater")
    assert rho == pytest.approx(ref.statistic, abs=1e-12)
    assert p == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-14)


def test_the_shift_table_is_built_only_when_read():
    # a count's rate change never reads the table of run shifts: none is built; a level shift builds it on first
    # use, the same table as one built from the simulation cells directly
    from probestats.analyses.plan.noise import _shift_table
    from probestats.analyses.plan.simulate import draw_probes

    rng = np.random.default_rng(3)
    y = rng.negative_binomial(2, 0.5, (30, 6)).astype(float)
    nm = noise_model(pl.DataFrame({"item": np.repeat(np.arange(30), 6), "x": y.ravel()}), metric="x", scale="0:")
    assert nm.bounded and nm._shift_cache == {}
    draw_probes(nm, 8, 2, 2, 50, 0, "additive")          # a count: its gap is a change of rate
    assert nm._shift_cache == {}
    built = draw_probes(nm, 8, 2, 2, 50, 0, "steps").shifts
    assert built is nm._shifts
    ref = _shift_table(nm._values, nm._sizes, nm.floor, nm.ceiling)
    assert np.array_equal(built.x, ref.x) and np.array_equal(built.s, ref.s)
