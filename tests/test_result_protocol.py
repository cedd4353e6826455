"""Every top-level result follows one protocol, as scipy's results do: ``statistic``, ``pvalue``, ``interval``
and ``conclusion`` one attribute away, ``to_dict()`` and ``to_frame()``; the frame is the main table of
``to_dict()``, row for row and column for column."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest

import probestats
from probestats.result import Result, tidy

PROBE = "sample_logs/style_probe.csv"


def _many():
    return [{"item": i, "variant": v, "x": float(v == "A" and i < 5)} for i in range(6) for v in ("A", "B", "C")]


def _two_metrics():
    rng = np.random.default_rng(3)
    return [{"item": i, "variant": v, "seed": k, "x": float(rng.normal(i + (v == "A"), 1)),
             "y": float(rng.normal(i, 1))} for i in range(8) for v in ("A", "B") for k in range(2)]


def _two_by_two():
    rng = np.random.default_rng(1)
    return [{"item": i, "style": s, "name": n, "seed": k,
             "steps": float(rng.normal(i % 3 + (s == "formal") + (n == "x") * 0.5, 1))}
            for i in range(8) for s in ("formal", "casual") for n in ("x", "y") for k in range(2)]


def _three_by_two():
    rng = np.random.default_rng(2)
    return [{"item": i, "dose": d, "arm": a, "seed": k, "score": float(rng.normal(i % 2 + j * 0.5, 0.7))}
            for i in range(4) for j, d in enumerate(("low", "mid", "high")) for a in ("x", "y") for k in range(2)]


def _judge(tmp_path):
    from judge_factory import make_judge_log

    path = tmp_path / "judge.csv"
    make_judge_log(items=30).write_csv(path)
    return probestats.judge(str(path), order="order", choice="choice", verdicts=["first=A", "second=B", "tie=C"])


def _validated(tmp_path):
    from benchmarks.validation_coverage import one_log

    log, hand = one_log(np.random.default_rng(5), "null", 40, 5)
    log.write_csv(tmp_path / "log.csv")
    hand.write_csv(tmp_path / "hand.csv")
    return probestats.analyze(str(tmp_path / "log.csv"), metric="flip", a="a", b="b",
                              validation=str(tmp_path / "hand.csv"))


RESULTS = {
    "Analysis": lambda tmp: probestats.analyze(PROBE, metric="steps"),
    "ManyAnalysis": lambda tmp: probestats.analyze(_many(), metric="x"),
    "FactorAnalysis": lambda tmp: probestats.analyze(_two_by_two(), metric="steps", factor=["style", "name"]),
    "FactorialAnalysis": lambda tmp: probestats.analyze(_three_by_two(), metric="score", factor=["dose", "arm"]),
    "MetricsAnalysis": lambda tmp: probestats.analyze(_two_metrics(), metric=["x", "y"]),
    "ValidatedAnalysis": _validated,
    "Comparison": lambda tmp: probestats.compare(PROBE, "sample_logs/style_probe.jsonl", metric="steps"),
    "Plan": lambda tmp: probestats.plan("sample_logs/style_noise.csv", metric="steps", items=[6, 8], runs=[5], sims=50),
    "FramingResult": lambda tmp: probestats.framing("sample_logs/framing_long.csv",
                                                    targets="sample_logs/framing_targets.csv"),
    "JudgeResult": _judge,
    "Description": lambda tmp: probestats.describe(PROBE, metric="steps", bins="0,4,6,12"),
    "Descriptions": lambda tmp: probestats.describe(_two_metrics(), metric=["x", "y"], bins="-100,4,100"),
}


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("results")
    return {name: make(tmp) for name, make in RESULTS.items()}


def _same(x, y) -> bool:
    """Equal as the frame and the JSON hold them: a float to 12 digits, a missing number as None or NaN."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return y is None or (isinstance(y, float) and math.isnan(y))
    if isinstance(x, float) or isinstance(y, float):
        return y is not None and x == pytest.approx(y, rel=1e-12, abs=1e-12)
    return x == y


@pytest.mark.parametrize("name", RESULTS)
def test_every_top_level_result_follows_the_protocol(results, name):
    r = results[name]
    assert type(r).__name__ == name and isinstance(r, Result)
    for attribute in ("statistic", "pvalue", "interval", "conclusion"):
        getattr(r, attribute)   # each is there (None where the result has none)
    assert isinstance(r.to_dict(), dict)
    if r.pvalue is not None:
        assert 0 <= r.pvalue <= 1
    if r.interval is not None:
        assert r.interval.low <= r.interval.high


@pytest.mark.parametrize("name", RESULTS)
def test_to_frame_is_the_main_table_of_to_dict(results, name):
    r = results[name]
    frame = r.to_frame()
    rows = tidy(r.main_table())
    assert isinstance(frame, pl.DataFrame) and frame.height == len(rows) >= 1
    columns = set().union(*rows)
    assert set(frame.columns) <= columns, sorted(set(frame.columns) - columns)
    for i, row in enumerate(frame.iter_rows(named=True)):
        for column, value in row.items():
            assert _same(value, rows[i].get(column)), (i, column, value, rows[i].get(column))


def test_the_headline_numbers_are_those_of_the_tests_they_name(results):
    a = results["Analysis"]
    test = a.main.headline_test
    assert (a.statistic, a.pvalue) == (test.statistic, test.pvalue)
    assert a.pvalue == pytest.approx(6 / 256)   # 6 of 256 sign patterns (tests/test_cli.py)
    assert (a.interval.low, a.interval.high) == (a.main.interval.low, a.main.interval.high)
    assert a.conclusion == a.verdict.conclusion
    m = results["ManyAnalysis"]
    assert (m.statistic, m.pvalue) == (m.main.omnibus.statistic, 1 / 81)   # items 1-4 each at A: 1 of 3**4
    c = results["Comparison"]
    assert (c.statistic, c.pvalue) == (c.change_test.statistic, c.change_test.pvalue)
    d = results["Description"]
    assert (d.statistic, d.pvalue) == (d.test.statistic, d.test.pvalue)
    p = results["Plan"]
    assert (p.statistic, p.pvalue, p.interval, p.conclusion) == (None, None, None, None)   # a plan tests nothing
    several = results["Descriptions"]
    frame = several.to_frame()
    assert frame["metric"].to_list() == ["x", "y"]
    assert frame["test_p"].to_list() == [one.test.pvalue for one in several.descriptions]
    for name in ("FactorAnalysis", "FactorialAnalysis", "MetricsAnalysis", "ValidatedAnalysis", "FramingResult",
                 "JudgeResult"):
        r = results[name]
        assert r.conclusion == r.verdict.conclusion and r.pvalue == r.verdict.pvalue, name


def test_the_frame_of_a_paired_analysis_is_its_item_table_by_hand(results):
    a = results["Analysis"]
    frame = a.to_frame()
    by_hand = [float(x - y) for x, y in zip(frame["mean_a"], frame["mean_b"])]
    assert frame["gap"].to_list() == pytest.approx(by_hand)
    assert frame["gap"].mean() == pytest.approx(a.average_gap)
