"""The choice rate of one answer in an order probe (a judge picking its own answer): the rate in each order, their
mean with its exact binomial test and Clopper-Pearson interval against chance (scipy's binomtest), the position bias
apart, and a judge that always picks one slot named so on the terminal, in JSON and in the report."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from scipy.stats import binomtest
from statsmodels.stats.multitest import multipletests

import probestats
from probestats.analyses.judge import analyze_order
from probestats.cli import main
from probestats.errors import OptionError

ORDERS = ("own first", "own second")


def self_preference_log(items=200, judges=None, seed=0) -> pl.DataFrame:
    """Each item judged in both orders; under 'own first' the judge's own answer is the first slot.

    A judge is (p_own, p_first_slot, p_slot_bound): with probability p_slot_bound it picks the first slot
    whatever the answers; otherwise it picks its own answer with probability p_own (the slot follows the
    order)."""
    rng = np.random.default_rng(seed)
    judges = judges or {"selfish": (0.7, 0.0)}
    rows = []
    for name, (p_own, p_bound) in judges.items():
        for i in range(items):
            for order in ORDERS:
                if rng.random() < p_bound:
                    slot = "first"
                else:
                    own = rng.random() < p_own
                    own_slot = "first" if order == "own first" else "second"
                    slot = own_slot if own else ("second" if own_slot == "first" else "first")
                rows.append({"judge": name, "item": f"q{i}", "order": order, "chosen": slot})
    return pl.DataFrame(rows)


def by_hand(log: pl.DataFrame, judge: str):
    """Per order, the items where the chosen slot holds the judge's own answer."""
    sub = log.filter(pl.col("judge") == judge)
    own1 = sub.filter((pl.col("order") == "own first") & (pl.col("chosen") == "first")).height
    own2 = sub.filter((pl.col("order") == "own second") & (pl.col("chosen") == "second")).height
    n = sub["item"].n_unique()
    return own1, own2, n


def test_order_averaged_own_choice_rate_with_its_exact_test_against_one_half():
    log = self_preference_log(judges={"selfish": (0.7, 0.0), "fair": (0.5, 0.0), "firsty": (0.5, 0.97)}, seed=5)
    result = analyze_order(log, order="order", choice="chosen", by=["judge"], own_first="own first")
    ps = []
    for g in result.groups:
        judge = g.by["judge"]
        own1, own2, n = by_hand(log, judge)
        c = g.choice
        (o1, s1, r1), (o2, s2, r2) = c.orders
        assert (o1, s1, o2, s2) == ("own first", "first", "own second", "second")
        assert (r1.k, r1.n, r2.k, r2.n) == (own1, n, own2, n)
        assert c.mean.value == pytest.approx((own1 / n + own2 / n) / 2, abs=1e-15)
        reference = binomtest(own1 + own2, 2 * n, 0.5)
        assert c.pvalue == pytest.approx(reference.pvalue, rel=1e-12)
        ci = reference.proportion_ci(confidence_level=0.95, method="exact")
        assert (c.mean.low, c.mean.high) == pytest.approx((ci.low, ci.high), abs=1e-9)
        assert c.position_bias == pytest.approx((own1 / n - own2 / n) / 2, abs=1e-15)
        first = log.filter((pl.col("judge") == judge) & (pl.col("chosen") == "first")).height
        assert c.first_slot.value == pytest.approx(first / (2 * n))
        ps.append(c.pvalue)
    for g, p in zip(result.groups, multipletests(ps, method="holm")[1]):
        assert g.choice.p_adjusted == pytest.approx(p, rel=1e-12)
    readings = {g.by["judge"]: g.choice.reading for g in result.groups}
    assert readings == {"selfish": "prefers its own answer (shown first under 'own first')",
                        "fair": "no preference detected", "firsty": "always picks the first answer"}
    firsty = next(g for g in result.groups if g.by["judge"] == "firsty")
    assert firsty.choice.slot_bound == "first" and abs(firsty.choice.mean.value - 0.5) < 0.05
    assert firsty.choice.position_bias > 0.4


def test_the_answer_defaults_to_the_first_order_and_own_first_flips_it():
    log = self_preference_log(items=60, seed=2)
    default = analyze_order(log, order="order", choice="chosen").groups[0].choice
    other = analyze_order(log, order="order", choice="chosen", own_first="own second").groups[0].choice
    assert default.first_under == "own first" and other.first_under == "own second"
    assert default.mean.k + other.mean.k == default.mean.n   # no ties: each verdict names one of the two
    assert other.position_bias == pytest.approx(default.position_bias)   # the slot's pull is the same
    with pytest.raises(OptionError, match="own_first='third': not a value of order"):
        analyze_order(log, order="order", choice="chosen", own_first="third")


def test_a_stated_chance_rate_is_the_reference():
    log = self_preference_log(items=80, judges={"j": (0.3, 0.0)}, seed=9)
    c = analyze_order(log, order="order", choice="chosen", chance=0.25).groups[0].choice
    own1, own2, n = by_hand(log, "j")
    assert c.chance == 0.25 and c.pvalue == pytest.approx(binomtest(own1 + own2, 2 * n, 0.25).pvalue, rel=1e-12)
    for bad in (0, 1, 1.5, "x"):
        with pytest.raises(OptionError, match="expected a rate strictly between 0 and 1"):
            analyze_order(log, order="order", choice="chosen", chance=bad)


def test_ties_count_in_n_and_name_neither_answer():
    pairs = [("first", "second")] * 3 + [("tie", "tie")] * 2 + [("second", "first")]
    rows = [{"item": i, "order": o, "chosen": v} for i, pair in enumerate(pairs) for o, v in zip(ORDERS, pair)]
    c = analyze_order(rows, order="order", choice="chosen").groups[0].choice
    # own answer named: 3 items under each order; n = 6 items per order
    assert (c.orders[0][2].k, c.orders[1][2].k, c.mean.k, c.mean.n) == (3, 3, 6, 12)


def test_a_judge_that_always_picks_the_first_slot_is_named_so_everywhere(tmp_path, capsys):
    log = self_preference_log(items=50, judges={"firsty": (0.5, 1.0), "selfish": (0.9, 0.0)}, seed=1)
    path = tmp_path / "self.csv"
    log.write_csv(path)
    args = ["judge", str(path), "--order", "order", "--choice", "chosen", "--by", "judge", "--own-first",
            "own first"]
    assert main(args) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if "firsty" in line and "%" in line and "always" in line)
    assert "always picks the first answer" in row and "50.0%" in row
    assert main([*args, "--json"]) == 0
    groups = {g["by"]["judge"]: g["choice_rate"] for g in json.loads(capsys.readouterr().out)["groups"]}
    assert groups["firsty"]["slot_bound"] == "first"
    assert groups["firsty"]["reading"] == "always picks the first answer"
    assert groups["firsty"]["mean"]["value"] == 0.5
    own1, own2, n = by_hand(log, "selfish")
    assert groups["selfish"]["orders"][0]["k"] == own1 and groups["selfish"]["p"] == pytest.approx(
        binomtest(own1 + own2, 2 * n, 0.5).pvalue, rel=1e-12)
    assert groups["selfish"]["reading"].startswith("prefers its own answer")
    text = probestats.report(str(path), judge={"order": "order", "choice": "chosen", "by": ["judge"],
                                               "own_first": "own first"}, format="md").text
    assert "judge firsty always picks the first answer" in text
    assert "its averaged rate says nothing of a preference or of neutrality" in text
    assert "judge selfish: its own answer (shown first under 'own first') was chosen in" in text


def test_the_command_refuses_a_chance_outside_zero_and_one(tmp_path, capsys):
    path = tmp_path / "self.csv"
    self_preference_log(items=5).write_csv(path)
    assert main(["judge", str(path), "--order", "order", "--choice", "chosen", "--chance", "1.2"]) == 2
    assert main(["judge", str(path), "--order", "order", "--choice", "chosen", "--own-first", "nope"]) == 1
    assert "Error: --own-first nope: not a value of order" in capsys.readouterr().err
