"""A model that gave one number in every run, under both values, is named in the pair verdict (``one_answer``):
its gap is 0 in every item, so it cannot show a gap, and the pooled gap counts its zeros. A fact of the runs,
no inference: the reference in every test is the rows themselves (one distinct metric value in the group).
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings, strategies as st

import probestats
from probestats.cli import main


def _log(constant=("gpt-x",), value=1, seed=1, items=20, runs=2) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        for m in ("m0", "m1", "gpt-x"):
            for v in ("a", "b"):
                for s in range(runs):
                    y = value if m in constant else int(rng.random() < (0.6 if v == "a" else 0.4))
                    rows.append({"item": f"i{i}", "variant": v, "seed": s, "model": m, "y": y})
    return pl.DataFrame(rows)


def _one_answer(result):
    found = [c for c in result.verdict.caveats if c.id == "one_answer"]
    return found[0] if found else None


def _constant_by_rows(frame: pl.DataFrame, by: str, metric: str) -> list[tuple[str, float]]:
    """By hand from the rows: the groups whose runs under both values hold one distinct number."""
    per = frame.group_by(by, maintain_order=True).agg(pl.col(metric).n_unique().alias("k"),
                                                      pl.col(metric).first().alias("x"))
    return [(g, float(x)) for g, k, x in per.iter_rows() if k == 1]


def test_a_model_constant_under_both_values_is_named_with_its_figures():
    frame = _log()
    result = probestats.analyze(frame.to_dicts(), metric="y")   # the model varies within cells: a block
    caveat = _one_answer(result)
    assert _constant_by_rows(frame, "model", "y") == [("gpt-x", 1.0)]
    assert caveat.figures == {"groups": [{"by": {"model": "gpt-x"}, "constant": 1.0, "n_items": 20,
                                          "runs": frame.filter(pl.col("model") == "gpt-x").height}],
                              "n_groups": 3}
    assert caveat.sentence == ("In model = gpt-x, every one of the 80 runs (20 items) gave y = 1 under both 'a' "
                               "and 'b': its gap is 0 in every item, so in this log it cannot show a gap, and the "
                               "gap pooled over the 3 models counts those zeros.")
    # and its group's own gap is indeed 0 on every item (what the sentence claims)
    group = next(g for g in result.groups if g.by == {"model": "gpt-x"})
    assert group.average_gap == 0 and group.items["gap"].abs().max() == 0


def test_by_groups_are_read_the_same_way():
    caveat = _one_answer(probestats.analyze(_log().to_dicts(), metric="y", by=["model"]))
    assert [g["by"] for g in caveat.figures["groups"]] == [{"model": "gpt-x"}]


@pytest.mark.parametrize("seed", range(6))
def test_silent_where_no_model_is_constant(seed):
    frame = _log(constant=(), seed=seed)
    assert _constant_by_rows(frame, "model", "y") == []
    assert _one_answer(probestats.analyze(frame.to_dicts(), metric="y")) is None
    assert _one_answer(probestats.analyze(frame.to_dicts(), metric="y", by=["model"])) is None


def test_a_value_constant_under_one_value_only_is_no_one_answer():
    # gpt-x gives 1 under 'a' and varies under 'b': a constant arm in that group, not one answer
    frame = _log().with_columns(pl.when((pl.col("model") == "gpt-x") & (pl.col("variant") == "b")
                                        & (pl.col("item") == "i3") & (pl.col("seed") == 0))
                                .then(0).otherwise(pl.col("y")).alias("y"))
    assert _one_answer(probestats.analyze(frame.to_dicts(), metric="y")) is None


def test_several_constant_models_are_one_sentence_with_a_count():
    rows = [{"item": f"i{i}", "variant": v, "model": f"m{m}", "y": (0 if m < 5 else (i + (v == "a")) % 3)}
            for m in range(7) for i in range(6) for v in ("a", "b") for _ in range(2)]
    caveat = _one_answer(probestats.analyze(rows, metric="y", by=["model"]))
    assert [g["by"]["model"] for g in caveat.figures["groups"]] == [
        g for g, _ in _constant_by_rows(pl.DataFrame(rows), "model", "y")] == [f"m{m}" for m in range(5)]
    assert caveat.sentence.startswith("In 5 of 7 models (model = m0, model = m1, model = m2 and 2 more) every run "
                                      "gave y = 0 under both 'a' and 'b'")


@settings(max_examples=30, deadline=None)
@given(n_models=st.integers(2, 4), items=st.integers(2, 6), runs=st.integers(1, 3),
       rate=st.sampled_from([0.02, 0.1, 0.5]), seed=st.integers(0, 2**16))
def test_named_exactly_where_the_rows_hold_one_number(n_models, items, runs, rate, seed):
    # rare 0/1 outcomes: a model of few runs is often all 0 by chance; the caveat then states that fact (and
    # only then), which the rows confirm
    rng = np.random.default_rng(seed)
    rows = [{"item": f"i{i}", "variant": v, "run": r, "model": f"m{m}", "y": int(rng.random() < rate)}
            for m in range(n_models) for i in range(items) for v in ("a", "b") for r in range(runs)]
    frame = pl.DataFrame(rows)
    if frame["y"].n_unique() == 1:
        return   # nothing varies at all: the log is refused or untested, no group stands apart
    caveat = _one_answer(probestats.analyze(rows, metric="y", by=["model"]))
    named = [] if caveat is None else [(g["by"]["model"], g["constant"]) for g in caveat.figures["groups"]]
    assert named == _constant_by_rows(frame, "model", "y")


def test_the_terminal_json_and_report_carry_it(tmp_path, capsys):
    log = tmp_path / "log.csv"
    _log().write_csv(log)
    said = "Caveat: In model = gpt-x, every one of the 80 runs (20 items) gave y = 1 under both 'a' and 'b'"
    assert main(["analyze", str(log), "--metric", "y"]) == 0
    assert said in " ".join(capsys.readouterr().out.split())
    assert main(["analyze", str(log), "--metric", "y", "--json"]) == 0
    caveats = json.loads(capsys.readouterr().out)["verdict"]["caveats"]
    assert [c["figures"]["groups"][0]["by"] for c in caveats if c["id"] == "one_answer"] == [{"model": "gpt-x"}]
    assert main(["report", str(log), "--metric", "y", "-o", str(tmp_path / "r.md")]) == 0
    assert said in (tmp_path / "r.md").read_text()
    quiet = tmp_path / "quiet.csv"
    _log(constant=()).write_csv(quiet)
    assert main(["analyze", str(quiet), "--metric", "y", "--json"]) == 0
    assert "one_answer" not in [c["id"] for c in json.loads(capsys.readouterr().out)["verdict"]["caveats"]]


# --- several values: the same reading, under every value ----------------------------------------------------------

VALUES = ("plain", "v1", "v2", "v3")


def _many_log(constant=("gamma",), value=1, seed=1, items=24, runs=3, rate=None) -> pl.DataFrame:
    """4 models x 4 values; the ``constant`` models give ``value`` in every run, the others a 0/1 outcome whose
    rate rises with the value (or ``rate`` under every value); rows sorted by the metric, as an export may be."""
    rng = np.random.default_rng(seed)
    rows = []
    for m in ("alpha", "beta", "gamma", "delta"):
        for i in range(items):
            for k, v in enumerate(VALUES):
                for s in range(runs):
                    p = (0.4 + 0.1 * k) if rate is None else rate
                    y = value if m in constant else int(rng.random() < p)
                    rows.append({"item": f"q{i}", "variant": v, "seed": s, "model": m, "y": y})
    return pl.DataFrame(rows).sort("y", maintain_order=True)


def _constant_by_rows_many(frame: pl.DataFrame, by: str, metric: str, values=VALUES) -> list[tuple[str, float]]:
    """By hand: the groups whose runs hold one distinct number and a run under every value."""
    per = frame.filter(pl.col(metric).is_not_null()).group_by(by, maintain_order=True).agg(
        pl.col(metric).n_unique().alias("k"), pl.col(metric).first().alias("x"),
        pl.col("variant").n_unique().alias("values"))
    return [(g, float(x)) for g, k, x, n in per.iter_rows() if k == 1 and n == len(values)]


@pytest.mark.parametrize("by", [None, ["model"]])
def test_several_values_name_the_model_of_one_answer_with_its_figures(by):
    frame = _many_log()
    result = probestats.analyze(frame.to_dicts(), metric="y", reference="plain", by=by)
    caveat = _one_answer(result)
    assert _constant_by_rows_many(frame, "model", "y") == [("gamma", 1.0)]
    runs = frame.filter(pl.col("model") == "gamma").height
    assert caveat.figures == {"groups": [{"by": {"model": "gamma"}, "constant": 1.0, "n_items": 24, "runs": runs}],
                              "n_groups": 4, "values": list(VALUES)}
    assert caveat.sentence == (f"In model = gamma, every one of the {runs} runs (24 items) gave y = 1 under all 4 "
                               "values: its gaps between them are 0 in every item, so in this log it cannot show a "
                               "difference, and the gaps pooled over the 4 models count those zeros.")
    # what the sentence claims, from the group's own result: every item's mean is 1 under every value
    group = next(g for g in result.groups if g.by == {"model": "gamma"})
    assert group.items["mean"].to_list() == [1.0] * 24 * 4
    assert all(g.average_gap == 0 for g in group.gaps)
    # the pooled phrase says so wherever it counts the models, and names it before their agreement
    assert "gamma gave y = 1 in every run" in result.verdict.pooled
    ids = [c.id for c in result.verdict.caveats]
    if "blocks_disagree" in ids:
        assert ids.index("one_answer") < ids.index("blocks_disagree")


@pytest.mark.parametrize("seed", range(4))
def test_several_values_silent_where_no_model_gives_one_answer(seed):
    frame = _many_log(constant=(), seed=seed)
    assert _constant_by_rows_many(frame, "model", "y") == []
    result = probestats.analyze(frame.to_dicts(), metric="y", reference="plain")
    assert _one_answer(result) is None
    assert "every run" not in (result.verdict.pooled or "")
    assert _one_answer(probestats.analyze(frame.to_dicts(), metric="y", reference="plain", by=["model"])) is None


def test_several_values_one_answer_under_all_but_one_value_is_not_named():
    # gamma gives 1 under three values and once 0 under 'v3': it can show a difference, so it is not named
    frame = _many_log().with_columns(
        pl.when((pl.col("model") == "gamma") & (pl.col("variant") == "v3") & (pl.col("item") == "q5")
                & (pl.col("seed") == 0)).then(0).otherwise(pl.col("y")).alias("y"))
    assert _constant_by_rows_many(frame, "model", "y") == []
    assert _one_answer(probestats.analyze(frame.to_dicts(), metric="y", reference="plain")) is None


def test_several_values_several_models_of_one_answer_are_one_sentence_with_a_count():
    rows = [{"item": f"i{i}", "variant": v, "model": f"m{m}", "y": (0 if m < 5 else (i + k) % 3)}
            for m in range(7) for i in range(6) for k, v in enumerate(("a", "b", "c")) for _ in range(2)]
    result = probestats.analyze(rows, metric="y", by=["model"])
    caveat = _one_answer(result)
    assert [g["by"]["model"] for g in caveat.figures["groups"]] == [
        g for g, _ in _constant_by_rows_many(pl.DataFrame(rows), "model", "y", "abc")] == [f"m{m}" for m in range(5)]
    assert caveat.sentence.startswith("In 5 of 7 models (model = m0, model = m1, model = m2 and 2 more) every run "
                                      "gave y = 0 under all 3 values: their gaps between the values are 0")
    assert "5 of them gave one number in every run (m0, m1, m2 and 2 more)" in result.verdict.pooled


@settings(max_examples=30, deadline=None)
@given(n_models=st.integers(2, 4), n_values=st.integers(3, 4), items=st.integers(2, 5), runs=st.integers(1, 2),
       rate=st.sampled_from([0.02, 0.1, 0.5]), seed=st.integers(0, 2**16), by=st.sampled_from([None, ["model"]]))
def test_several_values_named_exactly_where_the_rows_hold_one_number(n_models, n_values, items, runs, rate, seed, by):
    # rare 0/1 outcomes under 3 or 4 values: a model of few runs is often all 0 by chance; the caveat states
    # that fact (and only then), which the rows confirm, and never where a model's runs hold two numbers; the
    # models are --by groups, or (without --by) blocks of the pooled analysis
    rng = np.random.default_rng(seed)
    values = VALUES[:n_values]
    rows = [{"item": f"i{i}", "variant": v, "run": r, "model": f"m{m}", "y": int(rng.random() < rate)}
            for m in range(n_models) for i in range(items) for v in values for r in range(runs)]
    frame = pl.DataFrame(rows)
    if frame["y"].n_unique() == 1:
        return   # nothing varies at all: the log is refused or untested, no group stands apart
    caveat = _one_answer(probestats.analyze(rows, metric="y", by=by))
    named = [] if caveat is None else [(g["by"]["model"], g["constant"]) for g in caveat.figures["groups"]]
    assert named == _constant_by_rows_many(frame, "model", "y", values)


def test_several_values_terminal_json_and_report_carry_it(tmp_path, capsys):
    log = tmp_path / "log.csv"
    _many_log().write_csv(log)
    said = "Caveat: In model = gamma, every one of the 288 runs (24 items) gave y = 1 under all 4 values"
    assert main(["analyze", str(log), "--metric", "y"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert said in out and "gamma gave y = 1 in every run" in out.split("At alpha 0.05:")[1].split("Caveat:")[0]
    # under gamma's own table (after its title and before the next model's), and no other model's
    own = out[out.index("model = gamma"):]
    assert own.count("Every one of its 288 runs (24 items) gave y = 1 under all 4 values") == 1
    assert out.count("Every one of its") == 1 and own.index("Every one of its") < own.index("At alpha")
    assert main(["analyze", str(log), "--metric", "y", "--json"]) == 0
    verdict = json.loads(capsys.readouterr().out)["verdict"]
    assert [c["figures"]["groups"][0]["by"] for c in verdict["caveats"] if c["id"] == "one_answer"] == [
        {"model": "gamma"}]
    for fmt in ("md", "html"):
        out_file = tmp_path / f"r.{fmt}"
        assert main(["report", str(log), "--metric", "y", "--reference", "plain", "-o", str(out_file)]) == 0
        text = " ".join(out_file.read_text().split())
        assert said in text                                           # the Summary's caveat
        assert "Every one of its 288 runs (24 items) gave y = 1 under all 4 values" in text   # gamma's own section
        assert text.count("Every one of its") == 1                    # and no other model's


# --- the pooled phrase of a pair, and several metrics ------------------------------------------------------------

def test_a_pairs_pooled_phrase_names_the_model_of_one_answer():
    # the headline averages the three models (blocks): the phrase that counts them says which gave one answer
    result = probestats.analyze(_log().to_dicts(), metric="y")
    assert result.verdict.pooled.startswith("averaged over 3 models")
    assert result.verdict.pooled.endswith("gpt-x gave y = 1 in every run)")
    quiet = probestats.analyze(_log(constant=()).to_dicts(), metric="y")
    assert "every run" not in (quiet.verdict.pooled or "")


def test_several_metrics_carry_each_metrics_one_answer(capsys, tmp_path):
    # y: gpt-x gives 1 in every run; z: no model is of one answer; w: gpt-x gives 0 and m0 gives 2 in every run
    frame = _log().with_columns(
        z=pl.col("y") + pl.col("seed") + (pl.col("item").str.slice(1).cast(pl.Int64) % 3),
        w=pl.when(pl.col("model") == "gpt-x").then(0).when(pl.col("model") == "m0").then(2)
        .otherwise(pl.col("y")))
    by_hand = {m: _constant_by_rows(frame, "model", m) for m in ("y", "z", "w")}
    assert by_hand == {"y": [("gpt-x", 1.0)], "z": [], "w": [("m0", 2.0), ("gpt-x", 0.0)]}
    result = probestats.analyze(frame.to_dicts(), metric=["y", "z", "w"])
    caveat = _one_answer(result)
    assert {f["metric"]: [(g["by"]["model"], g["constant"]) for g in f["groups"]]
            for f in caveat.figures["metrics"]} == {m: named for m, named in by_hand.items() if named}
    assert caveat.sentence == ("For 2 of 3 metrics some groups gave one number in every run under both values, so "
                               "there their gap is 0 in every item and the pooled gap counts those zeros: y (model = "
                               "gpt-x: 1); w (model = m0: 2, model = gpt-x: 0).")
    only_y = _one_answer(probestats.analyze(frame.to_dicts(), metric=["y", "z"]))
    assert only_y.sentence.startswith("For y: in model = gpt-x, every one of the 80 runs (20 items) gave y = 1")
    assert _one_answer(probestats.analyze(frame.to_dicts(), metric=["z"])) is None
    log = tmp_path / "log.csv"
    frame.write_csv(log)
    assert main(["analyze", str(log), "--metric", "y,z", "--json"]) == 0
    caveats = json.loads(capsys.readouterr().out)["verdict"]["caveats"]
    assert [c["sentence"] for c in caveats if c["id"] == "one_answer"] == [only_y.sentence]


def test_a_disagreement_counts_the_model_of_one_answer_apart_from_the_undetected():
    # four models: m0 with 'a' far above 'b', m1 far below (they go opposite ways: the models disagree), m2 of no
    # gap, gpt-x gave 1 in every run. The count of the undetected reads each model's own corrected p from the
    # groups beside it; gpt-x is not among them as "not detected" but as one answer in every run
    rng = np.random.default_rng(3)
    rates = {"m0": (0.9, 0.1), "m1": (0.1, 0.9), "m2": (0.5, 0.5)}
    rows = [{"item": f"i{i}", "variant": v, "seed": s, "model": m,
             "y": 1 if m == "gpt-x" else int(rng.random() < rates[m][v == "b"])}
            for i in range(30) for m in ("m0", "m1", "m2", "gpt-x") for v in ("a", "b") for s in range(2)]
    result = probestats.analyze(rows, metric="y")
    agreement = result.verdict.agreement
    assert agreement.disagree and agreement.opposite
    p = {g.by["model"]: g for g in result.groups}
    undetected = sorted(m for m, g in p.items() if not (g.p_adjusted is not None and g.p_adjusted <= 0.05))
    assert undetected == ["gpt-x", "m2"]   # by hand from the groups' own p: two not significant, one of them gpt-x
    assert _constant_by_rows(pl.DataFrame(rows), "model", "y") == [("gpt-x", 1.0)]
    assert result.verdict.pooled == ("averaged over 4 models that disagree (1 higher, 1 lower, 1 not detected, 1 gave "
                                     "one answer in every run; m0 moves the pooled gap most; gpt-x gave y = 1 in every run)")
    caveat = next(c for c in result.verdict.caveats if c.id == "blocks_disagree")
    assert "; 1 not detected, 1 gave one answer in every run (gpt-x)" in caveat.sentence
    assert "2 not detected" not in caveat.sentence and "2 not detected" not in result.verdict.pooled
    assert agreement.figures["not_detected"] == 1 and agreement.figures["one_answer"] == 1
    assert agreement.not_detected == ("m2", "gpt-x") and agreement.one_answer == ("gpt-x",)


def test_several_values_count_the_model_of_one_answer_apart_from_the_undetected():
    # alpha's rate rises with the value, beta's falls, delta's stays, gamma gave 1 in every run: on each pair
    # where the models disagree the undetected are counted without gamma, which is named apart
    rng = np.random.default_rng(8)
    slope = {"alpha": 0.2, "beta": -0.2, "delta": 0.0}
    rows = [{"item": f"q{i}", "variant": v, "seed": s, "model": m,
             "y": 1 if m == "gamma" else int(rng.random() < 0.5 + slope[m] * (k - 1.5))}
            for m in ("alpha", "beta", "gamma", "delta") for i in range(30) for k, v in enumerate(VALUES)
            for s in range(2)]
    result = probestats.analyze(rows, metric="y", reference="plain", by=["model"])
    caveat = next(c for c in result.verdict.caveats if c.id == "blocks_disagree")
    figures = caveat.figures["values"]
    assert figures
    for f in figures:   # each pair's own count, from its own lists of models
        assert "gamma" in f["not_detected"] and f["one_answer"] == ["gamma"]
        count = f"{len(f['not_detected']) - 1} not detected, 1 gave one answer in every run (gamma)"
        assert count in f["statement"] and f"{len(f['not_detected'])} not detected" not in f["statement"]
        assert count in caveat.sentence
