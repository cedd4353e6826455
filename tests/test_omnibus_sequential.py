"""A Monte Carlo omnibus p decides or says it cannot (issue 36, deliver 3).

The designs: 10 items, three values (male, female, redacted), a distinct mean per cell, so the
6**9 = 10,077,696 distinct arrangements are beyond the exact enumeration analyze uses (10,000,000)
but within reach of omnibus_test(method="exact"): the exact p is known, and the Monte Carlo verdict
is set beside it seed by seed.
"""

from __future__ import annotations

import numpy as np
import pytest

from probestats import analyze_many
from probestats.analyses.omnibus import mc_interval, omnibus_test

VALUES = ("male", "female", "redacted")

#: exact p 0.0498 (found by search over random designs; computed in the test): within a Monte Carlo error of alpha
NEAR = np.array([[2.4, 0.3, 1.1], [0.3, -0.6, 0.7], [1.0, -0.1, 0.9], [1.1, 0.6, -0.9], [1.1, 0.6, -0.5],
                 [2.0, 2.4, 0.8], [0.8, -0.1, 2.0], [0.4, -1.4, 0.1], [0.9, -0.3, 0.1], [1.4, 0.8, -1.6]])
#: exact p 0.0590: clear of alpha once a few thousand resamples more are drawn
CLEAR = np.array([[-0.6, 0.0, -1.1], [1.0, 0.6, -1.7], [1.5, 1.1, -2.3], [0.5, 0.4, 0.2], [0.4, -0.7, -0.3],
                  [0.5, 0.0, 0.8], [2.5, 0.6, 1.3], [2.0, -0.1, 0.3], [0.0, 0.8, 0.3], [0.4, 1.0, 0.6]])


def _rows(matrix):
    return [{"item": f"q{i}", "variant": VALUES[j], "score": float(matrix[i, j])}
            for i in range(matrix.shape[0]) for j in range(3)]


def test_a_p_near_alpha_gives_the_same_verdict_for_every_seed_or_undecided_for_all():
    exact = omnibus_test(NEAR, method="exact").pvalue
    assert abs(exact - 0.0498) < 1e-4            # over all 10,077,696 distinct arrangements
    conclusions = set()
    for seed in range(10):
        analysis = analyze_many(_rows(NEAR), metric="score", n_resamples=2_000, seed=seed)
        omnibus, verdict = analysis.main.omnibus, analysis.verdict
        assert omnibus.n_resamples > 2_000        # resamples were added: the first 2,000 held alpha
        low, high = omnibus.pvalue_interval
        if omnibus.undecided:
            assert low <= 0.05 <= high and verdict.conclusion == "undecided" and not verdict.detected
            assert any("undecided at this precision" in c.sentence for c in verdict.caveats)
            assert "undecided at this precision" in omnibus.method
        else:
            assert not low <= 0.05 <= high
        conclusions.add(verdict.conclusion)
    assert len(conclusions) == 1
    # a fixed 2,000 resamples read the same p either way, depending on the seed
    fixed = {omnibus_test(NEAR, n_resamples=2_000, seed=s).pvalue <= 0.05 for s in range(10)}
    assert fixed == {True, False}


def test_a_p_clear_of_alpha_is_decided_with_the_resamples_it_needs():
    m = CLEAR
    exact = omnibus_test(m, method="exact").pvalue
    assert abs(exact - 0.0590) < 1e-4
    verdicts = set()
    for seed in range(10):
        r = omnibus_test(m, n_resamples=2_000, seed=seed, alpha=0.05)
        assert not r.undecided
        low, high = r.pvalue_interval
        assert low <= exact <= high
        verdicts.add(r.pvalue <= 0.05)
    assert verdicts == {exact <= 0.05}


def test_without_alpha_nothing_is_added():
    r = omnibus_test(NEAR, n_resamples=2_000, seed=0)
    assert r.n_resamples == 2_000 and not r.undecided


@pytest.mark.parametrize("hits,draws", [(0, 100), (5, 100), (100, 100), (51, 1000)])
def test_the_binomial_interval_is_clopper_pearson(hits, draws):
    from scipy.stats import binomtest

    ci = binomtest(hits, draws).proportion_ci(0.999, method="exact")
    assert mc_interval(hits, draws) == pytest.approx((ci.low, ci.high), abs=1e-9)


def test_the_summary_and_the_json_say_undecided_and_give_the_interval():
    from probestats.present.report.outline import many_summary

    analysis = analyze_many(_rows(NEAR), metric="score", n_resamples=2_000, seed=0)
    assert analysis.main.omnibus.undecided
    text = many_summary(analysis)
    low, high = analysis.main.omnibus.pvalue_interval
    assert "undecided at this precision" in text and "differ by more than chance" not in text
    assert "not more than chance" not in text
    data = analysis.to_dict()
    assert data["verdict"]["conclusion"] == "undecided" and data["verdict"]["detected"] is False
    omnibus = data["main"]["omnibus"] if "main" in data else data["omnibus"]
    assert omnibus["undecided"] is True and omnibus["p_interval"] == [low, high]


def test_a_monte_carlo_p_at_its_floor_prints_as_a_bound():
    from probestats.present.report.outline import many_summary

    strong = NEAR.copy()
    strong[:, 0] += 5.0   # 'male' far above the others on every item: no arrangement is as extreme
    analysis = analyze_many(_rows(strong), metric="score", n_resamples=2_000, seed=0)
    omnibus = analysis.main.omnibus
    assert omnibus.pvalue_bound == "upper" and omnibus.pvalue == 1 / 2_001 and not omnibus.undecided
    assert "omnibus p < 1/2001" in many_summary(analysis)
    assert "p = 0.0005" not in many_summary(analysis)
    data = analysis.to_dict()
    found = data["main"]["omnibus"] if "main" in data else data["omnibus"]
    assert found["p_bound"] == "upper" and found["n_resamples"] == 2_000
