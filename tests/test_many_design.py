"""A many-values verdict names the design facts it rests on, as a pair's does: a value constant by
construction (over the log, or in one ``by`` group), and ``by`` groups that go opposite ways. Before, a log
of one name against a group of three names, split by model, with one model that selected the one name every
time and another whose gap went the other way, got a Summary and a Finding that named neither.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import polars as pl
import pytest

import probestats
from probestats.cli import main
from probestats.vocabulary import Tests


def _rows(shift: dict, constant: dict = (), items: int = 12, runs: int = 3, seed: int = 3,
          values=("one", "g1", "g2", "g3")) -> list[dict]:
    """0/1 outcomes per model: 'one' selected with probability 0.5 + shift[model], the others 0.5;
    ``constant`` maps a model to the 0/1 value 'one' gives there in every run."""
    rng = np.random.default_rng(seed)
    rows = []
    for model, s in shift.items():
        for i in range(items):
            for v in values:
                for r in range(runs):
                    p = 0.5 + s if v == values[0] else 0.5
                    x = constant[model] if v == values[0] and model in dict(constant) else int(rng.random() < p)
                    rows.append({"model": model, "item": f"q{i:02d}", "variant": v, "seed": r, "selected": x})
    return rows


GROUPS = ["one=one", "many=g1,g2,g3"]


def _caveat(result, id_):
    return next((c for c in result.verdict.caveats if c.id == id_), None)


def test_a_value_constant_over_the_whole_log_is_named_with_its_figures():
    rows = _rows({"m1": 0.0, "m2": 0.0}, constant={"m1": 1, "m2": 1})
    result = probestats.analyze(rows, metric="selected", probe=probestats.Probe(groups=GROUPS))
    caveat = _caveat(result, "constant_arm")
    assert caveat.figures == {"values": [{"value": "one", "constant": 1.0, "share_of_items": 1.0}], "n_items": 12}
    assert caveat.sentence.startswith("'one' gives selected = 1 in every run of every item, so the gaps against "
                                      "it only ask whether 'many' differs from a constant 1.")
    assert _caveat(result, "constant_arm_in_groups") is None


def test_a_value_constant_in_one_model_only_is_named_there():
    rows = _rows({"m1": 0.0, "m2": 0.0, "m3": 0.0}, constant={"m3": 1})
    result = probestats.analyze(rows, metric="selected", by=["model"], probe=probestats.Probe(groups=GROUPS))
    assert _caveat(result, "constant_arm") is None   # over every model, 'one' varies
    caveat = _caveat(result, "constant_arm_in_groups")
    assert caveat.figures == {"groups": [{"by": {"model": "m3"}, "value": "one", "other": "many", "constant": 1.0,
                                          "share_of_items": 1.0}]}
    assert caveat.sentence.startswith("In model = m3, 'one' gives selected = 1 in every run of every item, so "
                                      "there the gaps against it only ask whether 'many' differs from a constant 1.")



def test_a_value_constant_in_more_groups_than_are_named_is_one_sentence_with_a_count():
    # four of six models give 'one' = 1 in every run (three named, one counted): the sentence with a count read
    # the number of groups from a name that did not exist, and the analysis stopped with a traceback
    shift = {f"m{k}": 0.0 for k in range(6)}
    rows = _rows(shift, constant={f"m{k}": 1 for k in range(4)})
    result = probestats.analyze(rows, metric="selected", by=["model"])
    caveat = _caveat(result, "constant_arm_in_groups")
    by_hand = sorted({r["model"] for r in rows} - {r["model"] for r in rows
                                                    if r["variant"] == "one" and r["selected"] != 1})
    assert [g["by"]["model"] for g in caveat.figures["groups"]] == by_hand == ["m0", "m1", "m2", "m3"]
    assert caveat.sentence.startswith("In 4 of 6 groups one value gives selected one number in every run of every "
                                      "item, so there the gaps against it only ask whether the other values differ "
                                      "from that constant: 'one' = 1 in 4 (model = m0, model = m1, model = m2 and "
                                      "1 more).")

def test_a_constant_among_three_values_names_the_other_values():
    rows = [r for r in _rows({"m1": 0.0}, constant={"m1": 0}, values=("zero", "b", "c"))]
    result = probestats.analyze(rows, metric="selected")
    assert "so the gaps against it only ask whether the other values differ from a constant 0." \
        in _caveat(result, "constant_arm").sentence


@pytest.mark.parametrize("seed", range(4))
def test_no_constant_is_named_where_every_value_varies(seed):
    result = probestats.analyze(_rows({"m1": 0.0, "m2": 0.1}, seed=seed), metric="selected", by=["model"],
                                probe=probestats.Probe(groups=GROUPS))
    assert {"constant_arm", "constant_arm_in_groups"}.isdisjoint(c.id for c in result.verdict.caveats)


def test_models_that_go_opposite_ways_are_named_in_the_summary_the_finding_and_json(tmp_path):
    rows = _rows({"m1": -0.45, "m2": 0.45, "m3": 0.45}, items=16)
    result = probestats.analyze(rows, metric="selected", by=["model"], probe=probestats.Probe(groups=GROUPS))
    caveat = _caveat(result, "blocks_disagree")
    [agreement] = caveat.figures["values"]
    assert (agreement["value"], agreement["higher"], agreement["lower"]) == ("many", ["m1"], ["m2", "m3"])
    assert caveat.sentence.startswith("The 3 models disagree:")
    assert "1 with 'many' higher than 'one' (m1); 2 lower (m2, m3)" in caveat.sentence
    log = tmp_path / "names.csv"
    import polars as pl

    pl.DataFrame(rows).write_csv(log)
    out = tmp_path / "report.md"
    flags = [str(log), "--metric", "selected", "--by", "model", "--group", GROUPS[0], "--group", GROUPS[1]]
    assert main(["report", *flags, "-o", str(out)]) == 0
    text = out.read_text()
    summary = text.split("## Summary")[1].split("## Design")[0]
    finding = text.split("## Finding")[1].split("## Limits")[0]
    assert "Caveat: The 3 models disagree" in summary
    assert "The 3 models disagree" in finding and "read the results per model" in finding


def test_the_disagreement_test_is_the_within_item_permutation_of_the_models_gaps():
    """Brute force: 4 items x 3 models, each item's three gaps (the group's mean of its names' item means minus
    'one''s) reassigned to the models in all 3! ways, the statistic each model's mean deviation from the items'
    means against its own standard error, squared and summed."""
    rows = _rows({"m1": -0.4, "m2": 0.4, "m3": 0.3}, items=4, runs=2, seed=5)
    result = probestats.analyze(rows, metric="selected", by=["model"], probe=probestats.Probe(groups=GROUPS),
                                tests=probestats.Tests(alpha=0.9))   # a loose alpha: the caveat is made
    gaps = np.zeros((4, 3))
    for k, model in enumerate(("m1", "m2", "m3")):
        for i in range(4):
            cell = [r for r in rows if r["model"] == model and r["item"] == f"q{i:02d}"]
            one = np.mean([r["selected"] for r in cell if r["variant"] == "one"])
            many = np.mean([np.mean([r["selected"] for r in cell if r["variant"] == g]) for g in ("g1", "g2", "g3")])
            gaps[i, k] = many - one

    def statistic(m):
        dev = m - m.mean(axis=1, keepdims=True)
        return float((4 * dev.mean(axis=0) ** 2 / dev.var(axis=0, ddof=1)).sum())

    observed = statistic(gaps)
    hits = sum(statistic(np.array([row[list(p)] for row, p in zip(gaps, perms)])) >= observed - 1e-12
               for perms in itertools.product(list(itertools.permutations(range(3))), repeat=4))
    [agreement] = _caveat(result, "blocks_disagree").figures["values"]
    assert agreement["test"]["p"] == pytest.approx(hits / 6 ** 4, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_models_that_agree_are_not_said_to_disagree(seed):
    rows = _rows({"m1": 0.4, "m2": 0.4}, items=16, seed=seed)
    result = probestats.analyze(rows, metric="selected", by=["model"], probe=probestats.Probe(groups=GROUPS))
    assert _caveat(result, "blocks_disagree") is None


def test_without_by_models_that_answered_every_item_are_blocks_and_their_disagreement_is_said(capsys):
    # the models answered every item, so they are blocks of the pooled analysis (as in a pair), not runs: their
    # disagreement is said without --by, as with it; a log with one model says nothing of groups
    result = probestats.analyze(_rows({"m1": -0.45, "m2": 0.45}), metric="selected",
                                probe=probestats.Probe(groups=GROUPS))
    assert [g.by for g in result.groups] == [{"model": "m1"}, {"model": "m2"}]
    assert _caveat(result, "blocks_disagree") is not None
    assert result.verdict.pooled.startswith("averaged over 2 models that disagree")
    alone = probestats.analyze(_rows({"m1": -0.45}), metric="selected", probe=probestats.Probe(groups=GROUPS))
    assert _caveat(alone, "blocks_disagree") is None and alone.groups == ()
    assert json.loads(json.dumps(result.to_dict()))["verdict"]["conclusion"] in {"detected", "not_detected"}


def test_models_that_swap_two_values_are_named_for_every_pair_they_disagree_on():
    """Model a selects 'up' 9 times in 10 and 'down' once in 10, model b the reverse, 'neutral' half the
    time in both: pooled over the models, 'up' and 'down' are alike, yet each pair goes opposite ways."""
    rng = np.random.default_rng(8)
    probs = {"a": {"neutral": 0.5, "up": 0.9, "down": 0.1}, "b": {"neutral": 0.5, "up": 0.1, "down": 0.9}}
    rows = [{"model": m, "item": f"q{i:02d}", "variant": v, "seed": r, "selected": int(rng.random() < p)}
            for m, by_value in probs.items() for i in range(16) for v, p in by_value.items() for r in range(4)]
    result = probestats.analyze(rows, metric="selected", by=["model"], reference="neutral")
    caveat = _caveat(result, "blocks_disagree")
    pairs = {frozenset((f["value"], f["other"])): f for f in caveat.figures["values"]}
    assert set(pairs) == {frozenset(p) for p in (("up", "neutral"), ("down", "neutral"), ("up", "down"))}
    assert all(len(f["higher"]) == len(f["lower"]) == 1 for f in pairs.values())
    assert caveat.sentence.startswith("The 2 models disagree on 3 pairs of values: on '")
    assert caveat.sentence.endswith("The average over them is not the gap of any one of them: read the results "
                                    "per model.")


def _normal_rows(seed: int, values, models: int = 3, items: int = 12, runs: int = 3) -> list[dict]:
    rng = np.random.default_rng(seed)
    return [{"model": f"m{m}", "item": f"q{i}", "variant": v, "seed": r, "score": float(rng.normal())}
            for m in range(models) for i in range(items) for v in values for r in range(runs)]


@pytest.mark.parametrize("values", [("a", "b", "c", "d"), ("one", "g1", "g2", "g3")])
def test_models_that_agree_are_said_to_disagree_about_as_rarely_as_alpha(values):
    """No model differs from another (every run a standard normal): over 60 logs, 'blocks_disagree' at alpha
    0.05 should come about 3 times (binomial: 9 or more has chance 0.3%). (Over 200 such logs of four values,
    reading each of the three tests against the reference at alpha said it 25 times, 12.5%; at alpha / 3,
    9 times. These 60 logs do not tell the two apart: the next test checks the level itself.)"""
    groups = {"probe": probestats.Probe(groups=GROUPS)} if values[0] == "one" else {}
    said = sum(_caveat(probestats.analyze(_normal_rows(seed, values), metric="score", by=["model"], **groups),
                       "blocks_disagree") is not None for seed in range(60))
    assert said <= 8


def test_a_heterogeneity_test_among_several_is_read_at_alpha_over_their_number():
    """Three judges over four items: exactly 6 of the 6**3 arrangements of items 2 to 4 (6**4 with the first,
    each arrangement of all alike giving the same statistic) reach the observed studentized statistic, p = 6/216
    = 0.028. Alone it is below alpha 0.05; as one of two tests it is read at 0.05 / 2 = 0.025, above which it is."""
    import itertools

    import polars as pl
    from types import SimpleNamespace as NS

    from probestats.analyses.blocks import block_agreement

    gaps = {"x": [1.1, 2.1, 1.7, 1.4], "y": [1.4, 0.7, 2.5, 0.7], "z": [-0.7, -1.8, -1.4, -1.5]}
    grouped = pl.DataFrame({"judge": [j for j in gaps for _ in range(4)], "item": ["1", "2", "3", "4"] * 3,
                            "gap": [g for j in gaps for g in gaps[j]]})
    groups = [NS(by={"judge": j}, average_gap=float(np.mean(g)), p_adjusted=0.5) for j, g in gaps.items()]
    m = np.array([gaps[j] for j in gaps]).T

    def statistic(x):
        dev = x - x.mean(axis=1, keepdims=True)
        return float((4 * dev.mean(axis=0) ** 2 / dev.var(axis=0, ddof=1)).sum())

    observed = statistic(m)
    hits = sum(statistic(np.array([row[list(p)] for row, p in zip(m, perms)])) >= observed - 1e-9
               for perms in itertools.product(list(itertools.permutations(range(3))), repeat=4))
    assert hits == 6 * 6
    alone = block_agreement(grouped, groups, ["judge"], Tests(alpha=0.05), a="A", b="B", first=1_000)
    among = block_agreement(grouped, groups, ["judge"], Tests(alpha=0.05), a="A", b="B", first=1_000, family=2)
    assert alone.test.pvalue == among.test.pvalue == pytest.approx(hits / 6 ** 4, abs=1e-12)
    assert (alone.differ, alone.disagree) == (True, True)
    assert (among.differ, among.disagree) == (False, False)   # no judge significant: no direction either
    assert "at most alpha / 2" not in alone.statement and among.statement == ""


def eight_models_rows(seed: int = 0, items: int = 20, drive: float = -77.7) -> list[dict]:
    """Five languages under eight models that answered every item; one model (m0) drives the pooled gap."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        base = rng.normal(50, 10)
        for m in range(8):
            for v in ("en", "es", "fr", "de", "zh"):
                eff = 0.0 if v == "en" else (drive if m == 0 else -5.0)
                for r in range(2):
                    rows.append({"item": f"q{i}", "model": f"m{m}", "variant": v, "seed": r,
                                 "score": round(base + eff + rng.normal(0, 5), 2)})
    return rows


def test_models_that_answered_every_item_are_blocks_and_the_driving_one_is_named(tmp_path):
    rows = eight_models_rows()
    result = probestats.analyze(rows, metric="score", reference="en")
    # items matched within each model: each item's value mean is the average of the models' means
    en = np.mean([[np.mean([r["score"] for r in rows if r["item"] == "q3" and r["model"] == f"m{m}"
                            and r["variant"] == "en"])] for m in range(8)])
    got = result.main.items.filter((pl.col("item") == "q3") & (pl.col("value") == "en"))["mean"].item()
    assert got == pytest.approx(en, abs=1e-9)
    assert [g.by for g in result.groups] == [{"model": f"m{m}"} for m in range(8)]
    # m0 drives the gap of three values against 'en'; without it the other 7 differ on 'de' (p = 0.0035 at alpha / 4)
    assert result.verdict.pooled == "averaged over 8 models whose gaps differ (m0 moves the pooled gaps most)"
    caveat = next(c for c in result.verdict.caveats if c.id == "blocks_disagree")
    assert "m0 drives the pooled gap (" in caveat.sentence and "m0 moves the pooled gap most (" in caveat.sentence
    assert "duplicate_run" not in {p.code for p in result.problems}   # one seed per model is two runs, not copies
    assert "mixed_setting" not in {p.code for p in result.problems}
    path = tmp_path / "langs.csv"
    pl.DataFrame(rows).write_csv(path)
    from probestats.cli import main as cli

    out = tmp_path / "r.md"
    assert cli(["report", str(path), "--metric", "score", "--reference", "en", "-o", str(out)]) == 0
    summary = out.read_text().split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert "averaged over 8 models whose gaps differ (m0 moves the pooled gaps most)" in " ".join(summary.split())
