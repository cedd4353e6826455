"""A value constant in one group (``by``) but not in the whole log is named: there the group's test only asks
whether the other value differs from a constant (issue 40's noticed defect: a per-model constant arm was
flagged nowhere, while the whole-log one is).
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import probestats


def _log(constant_in=("m2",), constant_value="B", whole=False, seed=1) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for m in ("m1", "m2", "m3"):
        for i in range(10):
            for v in ("A", "B"):
                for r in range(3):
                    fixed = v == constant_value and (whole or m in constant_in)
                    x = 0.0 if fixed else round(float(rng.normal(1.0 if v == "A" else 0.8, 1.0)), 3)
                    rows.append({"model": m, "item": f"q{i}", "variant": v, "run": r, "score": x})
    return pl.DataFrame(rows)


def _caveat(result, id_="constant_arm_in_groups"):
    found = [c for c in result.verdict.caveats if c.id == id_]
    return found[0] if found else None


def test_a_value_constant_in_one_model_is_named_with_its_figures():
    result = probestats.analyze(_log(), metric="score", by=["model"])
    caveat = _caveat(result)
    assert caveat is not None
    assert caveat.figures == {"groups": [{"by": {"model": "m2"}, "value": "B", "other": "A", "constant": 0.0,
                                          "share_of_items": 1.0}]}
    assert caveat.sentence.startswith("In model = m2, 'B' gives score = 0 in every run of every item, so there "
                                      "the test only asks whether 'A' differs from a constant 0.")
    assert _caveat(result, "constant_arm") is None        # the whole log's B is not constant


def test_two_groups_are_named_in_one_caveat():
    caveat = _caveat(probestats.analyze(_log(constant_in=("m1", "m3")), metric="score", by=["model"]))
    assert [g["by"] for g in caveat.figures["groups"]] == [{"model": "m1"}, {"model": "m3"}]
    assert "In model = m1" in caveat.sentence and "; In model = m3" in caveat.sentence


def test_a_constant_of_the_whole_log_is_named_once_as_the_whole_logs():
    result = probestats.analyze(_log(whole=True), metric="score", by=["model"])
    assert _caveat(result, "constant_arm") is not None and _caveat(result) is None


@pytest.mark.parametrize("seed", range(5))
def test_no_caveat_on_logs_without_a_constant_group(seed):
    assert _caveat(probestats.analyze(_log(constant_in=(), seed=seed), metric="score", by=["model"])) is None


def test_blocks_are_groups_too():
    # without by, the model varies within each item's runs of a value: the items are matched within the
    # models (blocks), whose own results stand beside the pooled one, so the constant block is named too
    blocked = probestats.analyze(_log(), metric="score")
    assert _caveat(blocked).figures["groups"][0]["by"] == {"model": "m2"}
    assert _caveat(probestats.analyze(_log().drop("model"), metric="score")) is None   # no groups at all


def test_the_cell_table_names_the_same_groups(tmp_path):
    log = tmp_path / "log.csv"
    _log().write_csv(log)
    cells = tmp_path / "cells.parquet"
    probestats.cells(str(log), metric="score", by=["model"], output=cells)
    from_cells = probestats.analyze(str(cells), metric="score", by=["model"])
    from_rows = probestats.analyze(str(log), metric="score", by=["model"])
    assert _caveat(from_cells) == _caveat(from_rows) is not None


def test_the_terminal_json_and_report_carry_it(tmp_path, capsys):
    import json

    from probestats.cli import main

    log = tmp_path / "log.csv"
    _log().write_csv(log)
    said = "Caveat: In model = m2, 'B' gives score = 0"
    assert main(["analyze", str(log), "--metric", "score", "--by", "model"]) == 0
    assert said in " ".join(capsys.readouterr().out.split())
    assert main(["analyze", str(log), "--metric", "score", "--by", "model", "--json"]) == 0
    ids = [c["id"] for c in json.loads(capsys.readouterr().out)["verdict"]["caveats"]]
    assert "constant_arm_in_groups" in ids
    assert main(["report", str(log), "--metric", "score", "--by", "model", "-o", str(tmp_path / "r.md")]) == 0
    assert said in (tmp_path / "r.md").read_text()


from hypothesis import given, settings, strategies as st


@settings(max_examples=40, deadline=None)
@given(n_groups=st.integers(2, 4), n_items=st.integers(2, 6), runs=st.integers(1, 3),
       constant=st.sets(st.integers(0, 3), max_size=3), value=st.sampled_from(["A", "B"]),
       level=st.sampled_from([0.0, 1.0, 0.5]), seed=st.integers(0, 2**16))
def test_exactly_the_groups_made_constant_are_named(n_groups, n_items, runs, constant, value, level, seed):
    # a brute-force reference: a group is named when every run of every item of one value there is one number
    rng = np.random.default_rng(seed)
    constant = {g for g in constant if g < n_groups} if len(constant & set(range(n_groups))) < n_groups else set()
    rows = [{"g": f"g{g}", "item": f"q{i}", "variant": v, "run": r,
             "x": level if (g in constant and v == value) else round(float(rng.normal()), 3)}
            for g in range(n_groups) for i in range(n_items) for v in ("A", "B") for r in range(runs)]
    caveat = _caveat(probestats.analyze(rows, metric="x", by=["g"]))
    named = [] if caveat is None else [(c["by"]["g"], c["value"], c["constant"]) for c in caveat.figures["groups"]]
    assert named == [(f"g{g}", value, level) for g in sorted(constant)]


def test_twelve_constant_groups_of_one_run_per_cell_are_one_sentence_with_a_count(capsys, tmp_path):
    # one run per cell, 15 models: 'B' scores 0.8979 on every item in 12 of them (its text left unchanged); a
    # clause per group printed twelve near-identical sentences
    rng = np.random.default_rng(0)
    rows = [{"model": f"m{m}", "item": f"q{i}", "variant": v,
             "compound": 0.8979 if (m < 12 and v == "B") else round(float(rng.normal(0.5, 0.3)), 4)}
            for m in range(15) for i in range(4) for v in ("A", "B")]
    frame = pl.DataFrame(rows)
    # by hand: the models whose 'B' runs are one number
    constant = [m for m in sorted({r["model"] for r in rows}, key=lambda s: int(s[1:]))
                if frame.filter((pl.col("model") == m) & (pl.col("variant") == "B"))["compound"].n_unique() == 1]
    result = probestats.analyze(rows, metric="compound", by=["model"])
    caveats = [c for c in result.verdict.caveats if c.id.startswith("constant_arm")]
    assert len(caveats) == 1 and [g["by"]["model"] for g in caveats[0].figures["groups"]] == constant
    sentence = caveats[0].sentence
    assert sentence.startswith(f"In {len(constant)} of 15 groups one value gives compound one number in every run "
                               "of every item, so there the test only asks whether the other value differs from "
                               "that constant: 'B' = 0.8979 in 12 (model = m0, model = m1, model = m2 and 9 more).")
    assert sentence.count("0.8979") == 1
    from probestats.cli import main

    log = tmp_path / "log.csv"
    frame.write_csv(log)
    assert main(["analyze", str(log), "--metric", "compound", "--by", "model"]) == 0
    assert " ".join(capsys.readouterr().out.split()).count("0.8979 in") == 1
