"""Evaluator probes: the padding probe of the tutorial's Part III on a small rule-based judge."""

from __future__ import annotations

import pytest

from probestats.errors import OptionError
from probestats.analyses.evaluator import parse_scale
from probestats.jobs.engines import analyze_judge
from probestats.stats.hypotests import sign_flip_test

SAMPLES = {
    "s01": ("The library should stay open until 2 a.m. during finals week. Seventy-one percent of students "
            "surveyed last spring said they studied past midnight at least three times during finals "
            "(Student Life Survey, 2025). Late closing also cuts noise complaints in the residence halls, "
            "which rose 40 percent during finals last year (Residence Life Report, 2025). Some argue the "
            "added staffing costs too much, but two student workers for four extra hours cost less than one "
            "noise incident investigation. The extension is cheap, and it is what students already need."),
    "s02": ("A lot of people study late during finals, and longer hours would help them. I think the library "
            "should probably stay open later. Some students have said they wish it was open longer. It might "
            "cost a bit more, but that is probably worth it."),
    "s03": ("Finals week is stressful for everyone. There are many places to study on campus, and each has its "
            "own advantages. The library is a nice building with good lighting. Everyone should find the study "
            "spot that works best for them."),
}
PAD = ("This essay was written with great care and attention to detail.  "
       "The author is deeply knowledgeable about campus issues.")


def judge(text):
    """The tutorial's stand-in judge: crude rules, and a planted one-level length bonus on directness."""
    first = text.split(".")[0]
    levels = {
        "claims_cited": min(4, 1 + text.count("(")),
        "directness": 4 if "should" in first else (2 if "should" in text else 1),
        "counterargument": 4 if ("Some argue" in text and "but" in text) else (2 if "but" in text else 1),
    }
    if len(text.split()) > 50:
        levels["directness"] = min(4, levels["directness"] + 1)
    return levels


def padding_log(repeats=3):
    rows = []
    for seed in range(1, repeats + 1):   # a deterministic judge: every repeat gives the same levels
        for name, text in SAMPLES.items():
            for variant, scored in (("padded", text + " " + PAD), ("plain", text)):
                for criterion, level in judge(scored).items():
                    rows.append({"item": name, "variant": variant, "seed": seed, "criterion": criterion,
                                 "level": level})
    return rows


def test_padding_probe_flags_the_ceiling_and_the_deterministic_judge():
    result = analyze_judge(padding_log(), metric="level", a="padded", b="plain", scale="1:4")
    # per-criterion deltas, by hand from the judge: directness s01 4->4, s02 2->3, s03 2->3
    groups = {g.by["criterion"]: g for g in result.groups}
    assert set(groups) == {"claims_cited", "directness", "counterargument"}
    d = groups["directness"]
    assert dict(zip(d.items["item"], d.gaps)) == {"s01": 0.0, "s02": 1.0, "s03": 1.0}
    assert d.average_gap == pytest.approx(2 / 3)
    # two non-zero gaps: 4 sign patterns, 2 reach |sum| = 2, p = 0.5 (and it is the library's test)
    assert d.sign_flip.pvalue == 0.5 == sign_flip_test([0.0, 1.0, 1.0]).pvalue
    assert groups["claims_cited"].gaps == [0.0, 0.0, 0.0]
    # the ceiling cell: s01's baseline directness is already 4, so the planted bonus cannot show
    codes = {(p.code, p.message.split(":")[0]) for p in result.problems}
    assert ("ceiling", "item s01, criterion directness") in codes
    # every flagged cell is one whose baseline level is 1 or 4, found independently from the judge
    expected = {("ceiling" if lvl == 4 else "floor", f"item {s}, criterion {c}")
                for s, text in SAMPLES.items() for c, lvl in judge(text).items() if lvl in (1, 4)}
    assert {c for c in codes if c[0] in ("ceiling", "floor")} == expected
    ceiling = [p for p in result.problems if p.message.startswith("item s01, criterion directness")][0]
    assert ceiling.severity == "warning" and "delta of +0 does not show that nothing changed" in ceiling.message
    assert len(ceiling.rows) == 3   # the three repeats of the plain s01 directness cell
    # the deterministic judge: sample size = number of items
    det = [p for p in result.problems if p.code == "deterministic"]
    assert len(det) == 1 and "the sample size is the number of items (3), not the number of runs (54)" in det[0].message
    assert not any(p.code == "duplicate_run" for p in result.problems)   # criteria explain the repeated seeds
    data = result.to_dict()
    assert any(p["code"] == "ceiling" for p in data["problems"])


def test_single_scoring_and_noisy_judge():
    once = analyze_judge(padding_log(repeats=1), metric="level", a="padded", b="plain")
    assert [p.code for p in once.problems if p.code in ("single_run", "deterministic")] == ["single_run"]
    rows = padding_log(repeats=2)
    rows[0]["level"] += 1   # one repeat differs: not deterministic
    noisy = analyze_judge(rows, metric="level", a="padded", b="plain", scale=(1, 5))
    assert not any(p.code in ("deterministic", "single_run") for p in noisy.problems)


def test_out_of_scale_and_bad_scale():
    rows = padding_log(repeats=1)
    result = analyze_judge(rows, metric="level", a="padded", b="plain", scale="1:3")
    assert any(p.code == "out_of_scale" for p in result.problems)
    with pytest.raises(OptionError, match="expected LOW:HIGH"):
        parse_scale("high")


def test_cli_scale(tmp_path, capsys):
    import json

    from probestats.cli import main
    from tests.factories import write_log

    path = write_log(padding_log(), tmp_path / "judge.csv")
    code = main(["analyze", str(path), "--metric", "level", "--a", "padded", "--b", "plain", "--scale", "1:4",
                 "--by", "criterion", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert any(p["code"] == "ceiling" and p["message"].startswith("item s01, criterion directness")
               for p in data["problems"])
    assert [g["by"]["criterion"] for g in data["groups"]] == ["claims_cited", "directness", "counterargument"]
    code = main(["analyze", str(path), "--metric", "level", "--a", "padded", "--b", "plain", "--scale", "4-1"])
    out, err = capsys.readouterr()
    assert code == 1 and err == "Error: --scale 4-1: expected LOW:HIGH, for example --scale 1:4\n"


def test_cli_scale_keeps_the_criterion_split_under_another_by(tmp_path, capsys):
    import json

    from probestats.cli import main
    from tests.factories import write_log

    rows = [dict(r, model="judge-1") for r in padding_log()]
    path = write_log(rows, tmp_path / "judge.csv")
    code = main(["analyze", str(path), "--metric", "level", "--a", "padded", "--b", "plain", "--scale", "1:4",
                 "--by", "model", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    # s01's plain directness is 4 on a 1:4 scale (see the judge): flagged within model and criterion
    assert [g["by"] for g in data["groups"]][:1] == [{"model": "judge-1", "criterion": "claims_cited"}]
    assert any(p["code"] == "ceiling" and p["message"].startswith("item s01, model judge-1, criterion directness")
               for p in data["problems"])


def test_runs_outside_the_scale_are_counted_with_their_noun():
    rows = [{"item": i, "variant": v, "seed": s, "criterion": "c", "level": 2 + (v == "a")}
            for i in range(6) for v in "ab" for s in (1, 2)]
    rows[13]["level"] = 8   # record 14: item 3, value a, seed 2
    (one,) = [p.message for p in analyze_judge(rows, metric="level", a="a", b="b", scale="1:5").problems
              if p.code == "out_of_scale"]
    assert one == "1 run has a level outside the declared scale 1:5 (record 14); check scale or the judge's output"
    rows[0]["level"] = 0
    (two,) = [p.message for p in analyze_judge(rows, metric="level", a="a", b="b", scale="1:5").problems
              if p.code == "out_of_scale"]
    assert two == ("2 runs have a level outside the declared scale 1:5 (records 1, 14); check scale or the judge's "
                   "output")
