"""The design check behind the verdict: constant arms, unequal runs and a group on one side, as named caveats
in the verdict and every format, with the within-item permutation as the headline where the arms are unequal."""

from __future__ import annotations

import itertools
import json
import re

import numpy as np
import polars as pl
import pytest

import probestats
from probestats.checks.design_facts import CONSTANT_SHARE, design_caveats, design_facts, value_counts
from probestats.cli import main
from probestats.present.report.document import render_report

FLIP_ITEMS = 40


def flip_log(tmp_path, *, runs=3, seed=1):
    """A flip-style metric: 1 when the model changed its answer after pushback; the no-pushback arm is 0 in every
    run of every item, because the label is defined relative to it."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(FLIP_ITEMS):
        for s in range(runs):
            rows.append({"item": f"q{i}", "variant": "pushback", "seed": s, "flip": int(rng.random() < 0.3)})
            rows.append({"item": f"q{i}", "variant": "none", "seed": s, "flip": 0})
    path = tmp_path / "flip.csv"
    pl.DataFrame(rows).write_csv(path)
    return path


def test_design_facts_count_by_hand():
    rows = pl.DataFrame({"item": ["1"] * 5 + ["2"] * 5,
                         "variant": ["a", "b", "b", "b", "a"] * 2,
                         "x": [1.0, 0.0, 0.0, None, 2.0, 3.0, 0.0, 0.0, 0.0, None]})
    facts = design_facts(rows, "x", "a", "b")
    a, b = facts.values
    # by hand: a has runs 1, 2 (item 1) and 3, blank (item 2); b has 0, 0, blank (item 1) and 0, 0, 0 (item 2)
    assert (a.counts.runs, a.counts.valued, a.counts.blank) == (4, 3, 1)
    assert (b.counts.runs, b.counts.valued, b.counts.blank) == (6, 5, 1)
    assert b.constant == 0.0 and b.constant_share == 1.0 and a.constant is None
    assert a.runs_per_item == (1, 2) and b.runs_per_item == (2, 3)
    assert facts.unequal_items == 1 and not facts.balanced   # item 1: 2 against 2 valued runs; item 2: 1 against 3
    assert [c.id for c in design_caveats(facts)] == ["constant_arm", "unequal_runs"]
    assert [c.to_dict() for c in value_counts(rows, "x", ["b"])] == [
        {"value": "b", "runs": 6, "valued": 5, "blank": 1, "unparsed": 0}]


def test_nearly_constant_is_constant_from_the_share_on():
    n = 40
    off = int(n * (1 - CONSTANT_SHARE))   # 2 of 40 items not constant: 95% are
    rows = [{"item": str(i), "variant": v, "x": float(v == "b" and i < off) if v == "b" else float(i % 3)}
            for i in range(n) for v in ("a", "b")]
    facts = design_facts(pl.DataFrame(rows), "x", "a", "b")
    assert facts.values[1].constant == 0.0 and facts.values[1].constant_share == pytest.approx(0.95)
    rows = [{**r, "x": 1.0} if r["variant"] == "b" and int(r["item"]) == off else r for r in rows]
    assert design_facts(pl.DataFrame(rows), "x", "a", "b").values[1].constant is None   # 37 of 40


def test_constant_arm_is_not_called_larger_than_chance(tmp_path, capsys):
    path = flip_log(tmp_path)
    result = probestats.analyze(str(path), metric="flip", a="pushback", b="none")
    v = result.verdict
    assert v.pvalue <= 0.05 and v.conclusion == "against_constant"
    assert "larger than chance" not in v.statement and "constant 0" in v.statement
    caveat = next(c for c in v.caveats if c.id == "constant_arm")
    assert caveat.figures["value"] == "none" and caveat.figures["constant"] == 0.0
    assert "re-asking noise" in caveat.sentence
    for fmt in ("md", "html"):
        text = render_report(result, format=fmt)
        assert "larger than chance" not in text, fmt
        assert "differs from a constant 0" in text and "constant_arm" not in text   # the sentence, not the id
        assert "Caveat: " in text and "re-asking noise" in text
    assert main(["analyze", str(path), "--metric", "flip", "--a", "pushback", "--b", "none"]) == 0
    out = capsys.readouterr().out
    assert "larger than chance" not in out and "differs from a constant 0" in out and "Caveat: 'none' gives" in out
    assert main(["analyze", str(path), "--metric", "flip", "--a", "pushback", "--b", "none", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"]["conclusion"] == "against_constant"
    assert "larger than chance" not in json.dumps(data["verdict"])
    ids = [c["id"] for c in data["verdict"]["caveats"]]
    assert "constant_arm" in ids
    assert set(data["verdict"]["caveats"][ids.index("constant_arm")]) == {"id", "sentence", "figures"}


def test_a_noise_log_is_the_reference_a_constant_arm_lacks(tmp_path):
    path = flip_log(tmp_path)
    rng = np.random.default_rng(9)   # the same question asked again without pushback: it rarely flips
    noise = pl.DataFrame([{"item": f"q{i}", "variant": v, "seed": s, "flip": int(v == "again" and rng.random() < 0.02)}
                          for i in range(FLIP_ITEMS) for v in ("again", "none") for s in range(3)])
    noise.write_csv(tmp_path / "noise.csv")
    result = probestats.analyze(str(path), metric="flip", a="pushback", b="none", noise=str(tmp_path / "noise.csv"))
    assert result.verdict.conclusion == "detected"
    assert "constant_arm" in [c.id for c in result.verdict.caveats]   # still named, no longer the headline


def enumerate_p(items):
    """Brute force: every reassignment of each item's runs (k to value a), two-sided, the average gap."""
    options = []
    for a, b in items:
        units, k = [*a, *b], len(a)
        options.append([sum(units[i] for i in c) / k - (sum(units) - sum(units[i] for i in c)) / (len(units) - k)
                        for c in itertools.combinations(range(len(units)), k)])
    observed = abs(sum(sum(a) / len(a) - sum(b) / len(b) for a, b in items))
    hits = total = 0
    for combo in itertools.product(*options):
        total += 1
        hits += abs(sum(combo)) >= observed - 1e-9
    return hits / total


def test_unequal_runs_rest_on_the_enumerated_permutation(tmp_path, capsys):
    rng = np.random.default_rng(4)
    items = [([float(x) for x in rng.integers(0, 6, 1)], [float(x) for x in rng.integers(0, 4, 3)]) for _ in range(6)]
    rows = [{"item": str(i), "variant": side, "seed": s, "score": x}
            for i, (a, b) in enumerate(items) for side, runs in (("a", a), ("b", b)) for s, x in enumerate(runs)]
    path = tmp_path / "unequal.csv"
    pl.DataFrame(rows).write_csv(path)
    result = probestats.analyze(str(path), metric="score", a="a", b="b")
    assert result.verdict.pvalue == pytest.approx(enumerate_p(items), rel=1e-9)
    assert result.pvalue == result.verdict.pvalue and result.main.permutation is not None
    assert "unequal_runs" in [c.id for c in result.verdict.caveats]
    assert result.main.published == ()   # neither Wilcoxon nor the t-test is a test of this design
    md = render_report(result, format="md")
    assert "Within-item permutation of the value labels" in md and "Not tests of this design" in md
    assert not re.search(r"Wilcoxon signed-rank: statistic", md)
    assert main(["analyze", str(path), "--metric", "score", "--a", "a", "--b", "b", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["headline_test"] == "permutation"
    assert data["permutation"]["p"] == pytest.approx(enumerate_p(items), rel=1e-9)
    assert data["sign_test"]["applies"] is False and data["sign_flip"]["applies"] is False
    assert "published_tests" not in data
    assert main(["analyze", str(path), "--metric", "score", "--a", "a", "--b", "b"]) == 0
    out = capsys.readouterr().out
    assert "within-item permutation of the value labels" in out and "not tests of this design" in out
    assert "Wilcoxon signed-rank: statistic" not in out


def test_balanced_pairs_keep_the_sign_flip_headline():
    rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + (s % 3 == i % 2)}
            for i in range(8) for v in ("formal", "casual") for s in range(1, 6)]
    result = probestats.analyze(rows, metric="steps")
    assert result.main.permutation is None and result.pvalue == result.main.sign_flip.pvalue
    assert not {"unequal_runs", "constant_arm", "group_side"} & {c.id for c in result.verdict.caveats}


def test_one_value_against_a_group_of_eight(tmp_path, capsys):
    rng = np.random.default_rng(6)
    names = ["Greg", *[f"N{j}" for j in range(8)]]
    sets = [[float(x) for x in rng.integers(0, 5, 9)] for _ in range(4)]   # 9**4 = 6561 reassignments
    rows = [{"item": str(i), "variant": n, "score": x} for i, xs in enumerate(sets) for n, x in zip(names, xs)]
    groups = ["maj=Greg", "min=" + ",".join(names[1:])]
    result = probestats.analyze(rows, metric="score", probe=probestats.Probe(groups=tuple(groups)))
    # maj minus min: the one name's run against the mean of the eight
    want = enumerate_p([([xs[0]], xs[1:]) for xs in sets])
    assert result.verdict.pvalue == pytest.approx(want, rel=1e-9)
    assert result.main.omnibus.pvalue == pytest.approx(want, rel=1e-9)
    assert [c.id for c in result.verdict.caveats if c.id == "group_side"] == ["group_side"]
    assert "permutation" in result.verdict.test
    path = tmp_path / "names.csv"
    pl.DataFrame(rows).write_csv(path)
    flags = [x for g in groups for x in ("--group", g)]
    assert main(["analyze", str(path), "--metric", "score", *flags, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"]["p"] == pytest.approx(want, rel=1e-9)
    assert "group_side" in [c["id"] for c in data["verdict"]["caveats"]]
    assert main(["analyze", str(path), "--metric", "score", *flags]) == 0
    out = capsys.readouterr().out
    assert "Caveat: 'min' is a group of 8 values" in out and "Wilcoxon" not in out and "sign test" not in out


def test_a_design_built_in_python_is_checked_as_a_design_files_facts_are():
    # Design(...) by hand goes through the same reading as the file's facts: 'no' is no selection, one text
    # is a list of one, and a gap of interest that is no number is refused
    import probestats
    from probestats.errors import OptionError
    from probestats.shape.design import Design, as_design

    assert as_design(Design(selection="no")).selection is False
    assert as_design(Design(selection="yes")).selection is True
    assert as_design(Design(not_tested="names")).not_tested == ("names",)
    with pytest.raises(OptionError, match="gap_of_interest: expected a number"):
        as_design(Design(gap_of_interest="half"))
    # and so in the jobs: a report states 'names', not n; a; m; e; s
    report = probestats.report("sample_logs/style_probe.csv", metric="steps", design=Design(not_tested="names"))
    assert "names" in report.text and "n; a; m; e; s" not in report.text


def test_analyze_refuses_the_facts_of_a_design_it_would_drop_and_reads_a_files_selection():
    import probestats
    from probestats.errors import OptionError
    from probestats.shape.design import Design

    with pytest.raises(OptionError, match=r"^Design\(attribute=\.\.\.\): analyze reads the design fact selection only"):
        probestats.analyze("sample_logs/style_probe.csv", metric="steps", design=Design(attribute="style"))
    # a design file is the probe's whole record, shared with its report: analyze reads its selection alone
    assert probestats.analyze("sample_logs/style_probe.csv", metric="steps",
                              design="examples/style_probe.toml").main.n_items == 8
    assert probestats.analyze("sample_logs/style_probe.csv", metric="steps",
                              design=Design(selection="no")).main.n_items == 8


def test_a_report_of_a_cell_table_refuses_an_order_probe_in_python_too(tmp_path):
    import probestats
    from probestats.errors import OptionError

    cells = tmp_path / "cells.parquet"
    probestats.cells("sample_logs/style_probe.csv", metric="steps", output=cells)
    with pytest.raises(OptionError, match="^judge cannot be used with a cell table: the order probe reads"):
        probestats.report(str(cells), metric="steps", judge={"order": "position"})


def rare_rows(seed: int, *, items: int = 250, rate_a: float = 0.05, rate_b: float = 0.05) -> list[dict]:
    """A 0/1 outcome drawn at ``rate_a`` under 'a' and ``rate_b`` under 'b', one run per item."""
    rng = np.random.default_rng(seed)
    return [{"item": f"q{i}", "variant": v, "seed": 0, "y": int(rng.random() < (rate_a if v == "a" else rate_b))}
            for i in range(items) for v in ("a", "b")]


def test_a_rare_outcome_at_one_rate_is_no_constant_arm():
    # one run per item: almost every item 'gives 0 in every run' under both values, which is chance, not design;
    # the caveat fired on 57-94% of such logs. The rule (Fisher's exact test of the runs giving the constant,
    # one-sided at 0.025 per arm) holds it at 0.05 or below: 60 logs, at most 0.05 + 2 standard errors
    fired = sum("constant_arm" in [c.id for c in probestats.analyze(rare_rows(s), metric="y").verdict.caveats]
                for s in range(60))
    assert fired <= 60 * 0.05 + 2 * (60 * 0.05 * 0.95) ** 0.5


def test_an_arm_constant_by_design_is_named_beside_a_rare_outcome():
    # the same rare outcome, but 'b' is 0 by construction: the caveat's power at a rate of 0.05 over 250 items
    named = sum("constant_arm" in [c.id for c in probestats.analyze(rare_rows(s, rate_b=0.0), metric="y").verdict.caveats]
                for s in range(20))
    assert named >= 18


def test_the_constant_arm_rule_is_fishers_exact_test_written_out():
    from math import comb

    from probestats.checks.design_facts import CONSTANT_ARM_P, constant_beyond_chance

    def hand(mine, runs, theirs, their_runs):   # P(at least `mine` of the constant's runs fall in this arm)
        total, n = mine + theirs, runs + their_runs
        return sum(comb(total, k) * comb(n - total, runs - k) for k in range(mine, min(total, runs) + 1)) / comb(n, runs)

    for mine, runs, theirs, their_runs in [(10, 10, 3, 10), (239, 250, 237, 250), (12, 12, 6, 12), (40, 40, 31, 40)]:
        assert constant_beyond_chance(mine, runs, theirs, their_runs) == (hand(mine, runs, theirs, their_runs)
                                                                          <= CONSTANT_ARM_P)
