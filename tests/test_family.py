"""The joint sign-flip test of a family of metrics (probestats.stats.family), against a brute force written
here: every sign pattern enumerated in plain Python, Westfall and Young's step-down min-P read off it, and
Holm's correction of each member's own sign-flip p as the bound it never exceeds."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import probestats
from probestats.stats.family import joint_sign_flip


def brute_step_down(gaps: list[list[float]], alternative: str = "two-sided") -> list[float]:
    """Westfall and Young's step-down min-P over every sign pattern, in plain Python."""
    n, k = len(gaps), len(gaps[0])
    norms = [math.sqrt(sum(row[j] ** 2 for row in gaps)) for j in range(k)]

    def stats(signs):
        out = []
        for j in range(k):
            s = sum(sg * row[j] for sg, row in zip(signs, gaps))
            t = s / norms[j] if norms[j] > 0 else 0.0
            out.append(abs(t) if alternative == "two-sided" else (t if alternative == "greater" else -t))
        return out

    patterns = list(itertools.product([1, -1], repeat=n))
    table = [stats(signs) for signs in patterns]

    def p_of(j, t):   # member j's own sign-flip p of a statistic t
        return sum(row[j] >= t - 1e-9 * abs(t) for row in table) / len(table)

    observed = [p_of(j, t) for j, t in enumerate(stats([1] * n))]
    order = sorted(range(k), key=lambda j: observed[j])
    hits = [0] * k
    for row in table:
        ps = [p_of(j, row[j]) for j in range(k)]
        running = math.inf
        for pos in reversed(range(k)):          # the min over members from this one down the order
            running = min(running, ps[order[pos]])
            hits[pos] += running <= observed[order[pos]] * (1 + 1e-9)
    out = [0.0] * k
    best = 0.0
    for pos, j in enumerate(order):
        best = max(best, hits[pos] / len(table))
        out[j] = 1.0 if norms[j] == 0 else min(1.0, best)
    return out


def own_sign_flip(column: list[float]) -> float:
    observed = abs(sum(column))
    patterns = list(itertools.product([1, -1], repeat=len(column)))
    return sum(abs(sum(s * g for s, g in zip(signs, column))) >= observed * (1 - 1e-9)
               for signs in patterns) / len(patterns)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 7), k=st.integers(1, 4), shared=st.floats(-2, 2), seed=st.integers(0, 2**16),
       alternative=st.sampled_from(["two-sided", "greater", "less"]))
def test_the_joint_test_is_the_step_down_max_t_over_every_sign_pattern(n, k, shared, seed, alternative):
    rng = np.random.default_rng(seed)
    base = rng.normal(shared, 1, size=n)
    gaps = [[round(float(base[i] + rng.normal(0, 0.5 * j)), 2) for j in range(k)] for i in range(n)]
    got = joint_sign_flip(gaps, alternative=alternative)
    assert got.kind == "exact"
    assert list(got.adjusted) == pytest.approx(brute_step_down([[g for g in row] for row in gaps
                                                                 if any(g != 0 for g in row)] or [[0.0] * k],
                                                                alternative), abs=1e-12)
    if alternative == "two-sided":   # never above Holm's correction of each member's own test
        own = [own_sign_flip([row[j] for row in gaps]) for j in range(k)]
        from probestats.stats.multitest import holm as holm_of

        for mine, bound in zip(got.adjusted, holm_of(own)):
            assert mine <= bound + 1e-12


def test_beyond_the_exact_size_the_monte_carlo_p_is_within_its_error_of_the_exact():
    rng = np.random.default_rng(5)
    gaps = rng.normal(0.3, 1, size=(18, 3)) + rng.normal(0, 1, size=(18, 1))
    exact = joint_sign_flip(gaps, max_exact=18)
    mc = joint_sign_flip(gaps, max_exact=10, n_resamples=20_000, seed=1)
    assert mc.kind == "monte-carlo" and exact.kind == "exact"
    for a, b in zip(mc.adjusted, exact.adjusted):
        assert abs(a - b) <= 4 * math.sqrt(b * (1 - b) / 20_000) + 1e-4


def six_measures_rows(seed: int = 0, items: int = 10, models: int = 5, shift: float = 0.6) -> list[dict]:
    """Ten scenarios rated on six measures under a bad and a neutral outcome by five models: every measure
    moves the same way, by a shift shared across measures (a latent judgment) plus its own noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in range(models):
        for i in range(items):
            level = rng.normal(0, 1)
            for v in ("bad", "neutral"):
                for r in range(3):
                    latent = level + (shift if v == "bad" else 0.0) + rng.normal(0, 0.5)
                    row = {"model": f"m{m}", "item": f"s{i}", "variant": v, "seed": r}
                    for j in range(6):
                        row[f"q{j}"] = round(latent + rng.normal(0, 0.3), 3)
                    rows.append(row)
    return rows


def test_six_measures_that_move_together_are_detected_as_one_family():
    rows = six_measures_rows()
    metrics = [f"q{j}" for j in range(6)]
    pooled = probestats.analyze(rows, metric=metrics)
    assert len(pooled.family) == 6   # the models are blocks averaged inside each measure, not members
    assert pooled.verdict.conclusion == "detected" and pooled.joint is not None
    per_model = probestats.analyze(rows, metric=metrics, by=["model"])
    assert len(per_model.family) == 30
    # Holm over 30 tests of 10 items could never pass (30 x 2/1024 > 0.05); the joint test can and does
    assert per_model.verdict.conclusion == "detected"
    assert per_model.joint.floor == pytest.approx(2 / 2**10)
    assert "never_significant_family" not in [c.id for c in per_model.verdict.caveats]


def test_a_family_that_could_never_reach_significance_says_so_and_what_would():
    rows = six_measures_rows(items=4, models=2)
    result = probestats.analyze(rows, metric=[f"q{j}" for j in range(6)], by=["model"])
    caveat = [c for c in result.verdict.caveats if c.id == "never_significant_family"]
    assert caveat and caveat[0].figures["floor"] == pytest.approx(2 / 2**4)
    assert "at least 6 items (or clusters) per test" in caveat[0].sentence   # 2/2**6 = 0.031 <= 0.05
    assert result.verdict.never_significant


def test_the_six_measures_family_reads_alike_in_the_terminal_the_report_and_json(tmp_path, capsys):
    import json

    import polars as pl

    from probestats.cli import main

    path = tmp_path / "six.csv"
    pl.DataFrame(six_measures_rows()).write_csv(path)
    args = ["--metric", ",".join(f"q{j}" for j in range(6)), "--by", "model"]
    assert main(["analyze", str(path), *args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["family"]["n_tests"] == 30 and data["family"]["joint"]["floor"] == pytest.approx(2 / 2**10)
    assert data["verdict"]["conclusion"] == "detected"
    assert "tested as one family by the joint sign-flip test" in data["design"]["sentence"]
    assert main(["analyze", str(path), *args]) == 0
    terminal = " ".join(capsys.readouterr().out.split())
    assert "the joint sign-flip test over the family of 30 tests" in terminal
    assert main(["report", str(path), *args, "-o", str(tmp_path / "r.md")]) == 0
    report = " ".join((tmp_path / "r.md").read_text().split())
    assert "joint sign-flip test" in report
