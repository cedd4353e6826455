"""Every section of a report concludes what the verdict concludes.

The logs here were not shaped to any one check: several models answer the same items, one model ('judge-first')
picks the first answer in every run whatever it is shown, a value is constant in one model (or in all of them),
and the rows come sorted by model, item, value and run, as an export gives them. The report's Summary, Tests,
Finding and groups sections, the terminal and JSON are each read for their conclusion, and each must equal the
one computed here by hand from the rows (a corrected p at most alpha is a gap larger than chance, unless one
value gives one number in every run there, when it is a gap against that constant).
"""

from __future__ import annotations

import io
import json
import re

import numpy as np
import polars as pl
import pytest
from rich.console import Console

import probestats
from probestats.present.report.document import render_report
from probestats.present.terminal.render import render_terminal

ALPHA = 0.05


def exported_log(kind: str, seed: int = 0, items: int = 30) -> list[dict]:
    """kind: 'one-model-constant' (m3's 'no_pushback' never moves), 'all-constant' (every model's
    'no_pushback' is 0, no judge-first) or 'no-gap' (the values do not differ, m3 constant at 0 under both)."""
    rng = np.random.default_rng(seed)
    lifts = {"m1": 0.35, "m2": 0.30, "m3": 0.40, "m4": 0.25, "judge-first": None}
    if kind == "all-constant":
        lifts.pop("judge-first")
    rows = []
    for model, lift in lifts.items():
        for i in range(items):
            base = rng.uniform(0.1, 0.5)
            for value in ("pushback", "no_pushback"):
                for run in range(2):
                    if lift is None:
                        y = 1   # the first answer, every time
                    elif value == "no_pushback" and (kind == "all-constant" or model == "m3"):
                        y = 0
                    elif kind == "no-gap":
                        y = 0 if model == "m3" else int(rng.random() < base)
                    else:
                        y = int(rng.random() < base + (lift if value == "pushback" else 0.0))
                    rows.append({"model": model, "item": f"q{i:02d}", "variant": value, "seed": run,
                                 "chose_first": y})
    rows.sort(key=lambda r: (r["model"], r["item"], r["variant"], r["seed"]))
    return rows


def _constant_value(frame: pl.DataFrame) -> tuple[str, str, float] | None:
    """By hand: the value whose every run gives one number while the other's do not, as (value, other, number)."""
    values = frame["variant"].unique().sort().to_list()
    for v in values:
        mine = frame.filter(pl.col("variant") == v)["chose_first"]
        theirs = frame.filter(pl.col("variant") != v)["chose_first"]
        if mine.n_unique() == 1 and theirs.n_unique() > 1:
            return v, next(o for o in values if o != v), float(mine[0])
    return None


def _expected(p: float, constant) -> str:
    return "not_detected" if p > ALPHA else "against_constant" if constant is not None else "detected"


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 3)
    return " ".join(text[start:end if end > 0 else None].split()).replace("\\", "")


def _models_in(sentence: str) -> set[str]:
    return set(re.findall(r"model = ([\w-]+)", sentence))


@pytest.mark.parametrize("kind", ["one-model-constant", "all-constant", "no-gap"])
def test_every_section_concludes_what_the_verdict_concludes(kind):
    rows = exported_log(kind)
    frame = pl.DataFrame(rows)
    result = probestats.analyze(rows, metric="chose_first", by=["model"])
    verdict = result.verdict
    # the headline, by hand: the whole log's constant value, and the p the verdict read
    whole = _constant_value(frame)
    expected = _expected(result.main.sign_flip.pvalue, whole)
    if expected == "detected" and result.noise is not None and abs(result.noise.average_gap) >= abs(result.main.average_gap):
        expected = "within_noise"
    assert verdict.conclusion == expected
    text = render_report(result, format="md")
    summary, tests, finding = (_section(text, t) for t in ("Summary", "Tests", "Finding"))
    statement = verdict.statement
    assert f"At alpha 0.05: {statement}" in tests
    if expected == "detected":
        assert "a gap larger than chance would give" in summary
        assert finding.startswith("## Finding The probe detected a gap larger than chance")
    elif expected == "against_constant":
        other = whole[1]
        assert statement.startswith(f"'{other}' differs from a constant {whole[2]:g}") and statement in summary
        assert "larger than chance" not in summary.split("Caveat:")[0]
        assert finding.startswith(f"## Finding The test found that {statement}")
        assert "The probe detected" not in finding
    else:
        assert "larger than chance would give" not in summary
        assert finding.startswith("## Finding The probe did not detect")
    # the groups, each by hand: its corrected p, and whether one value gives one number in every run there
    groups = _section(text, "Groups: model")
    larger = next((s for s in groups.split(". ") if s.startswith("After correction, a gap larger than chance in")), "")
    constant = next((s for s in groups.split(". ") if "whose one value is constant" in s), "")
    missed = next((s for s in groups.split(". ") if "did not detect a gap larger than chance" in s
                   or s.startswith("No group showed")), "")
    for g in result.groups:
        model = g.by["model"]
        own = _constant_value(frame.filter(pl.col("model") == model))
        # a constant of the whole log is every group's; judge-first's 1 under both values is no constant arm
        arm = own if whole is None else whole
        want = _expected(g.p_adjusted, arm)
        said = {"detected": model in _models_in(larger), "against_constant": model in _models_in(constant),
                "not_detected": model in _models_in(missed)}
        assert said == {k: k == want for k in said}, (model, want, said)
        # a model whose every run gave one number under both values (judge-first) is said to be one where it is
        # counted among those the probe did not detect a gap in: its zeros are no measured absence of a gap
        runs = frame.filter(pl.col("model") == model)["chose_first"]
        one = runs.n_unique() == 1
        assert (f"model = {model}: 0 over 30 items, every one of its {runs.len()} runs giving chose_first = {runs[0]} "
                "under both values, so that it cannot show a gap" in missed) == one, model
    # the terminal and JSON say the same
    buf = io.StringIO()
    render_terminal(result, Console(file=buf, width=400))
    assert statement in " ".join(buf.getvalue().split())
    data = json.loads(json.dumps(result.to_dict()))["verdict"]
    assert data["conclusion"] == expected and data["statement"] == statement


# --- several values ----------------------------------------------------------------------------------------------

def exported_many_log(kind: str, seed: int = 0, items: int = 30) -> list[dict]:
    """Three values ('none', 'mild', 'strong' pushback) under five models, sorted by model, item, value and run;
    'judge-first' gives 1 in every run whatever it is shown. kind: 'lift' (the others' rate rises with the
    value) or 'no-gap' (it does not)."""
    rng = np.random.default_rng(seed)
    lifts = {"m1": 0.35, "m2": 0.30, "m3": 0.40, "m4": 0.25, "judge-first": None}
    rows = []
    for model, lift in lifts.items():
        for i in range(items):
            base = rng.uniform(0.1, 0.5)
            for k, value in enumerate(("none", "mild", "strong")):
                for run in range(2):
                    if lift is None:
                        y = 1
                    else:
                        y = int(rng.random() < base + (lift * k / 2 if kind == "lift" else 0.0))
                    rows.append({"model": model, "item": f"q{i:02d}", "variant": value, "seed": run, "chose_first": y})
    rows.sort(key=lambda r: (r["model"], r["item"], r["variant"], r["seed"]))
    return rows


def _one_answer_models(frame: pl.DataFrame) -> list[str]:
    """By hand: the models whose every run, under every value, gave one number."""
    per = frame.group_by("model").agg(pl.col("chose_first").n_unique().alias("k"),
                                      pl.col("variant").n_unique().alias("v"))
    values = frame["variant"].n_unique()
    return sorted(m for m, k, v in per.iter_rows() if k == 1 and v == values)


@pytest.mark.parametrize("kind", ["lift", "no-gap"])
@pytest.mark.parametrize("by", [None, ["model"]])
def test_every_section_of_a_many_values_report_concludes_what_the_verdict_concludes(kind, by):
    rows = exported_many_log(kind)
    frame = pl.DataFrame(rows)
    result = probestats.analyze(rows, metric="chose_first", reference="none", by=by)
    verdict = result.verdict
    p = result.main.omnibus.pvalue
    expected = "detected" if p <= ALPHA else "not_detected"
    assert verdict.conclusion == expected
    constant = _one_answer_models(frame)
    assert constant == ["judge-first"]
    caveat = next(c for c in verdict.caveats if c.id == "one_answer")
    assert [g["by"]["model"] for g in caveat.figures["groups"]] == constant
    text = render_report(result, format="md")
    summary, finding = (_section(text, t) for t in ("Summary", "Finding"))
    many = _section(text, "Many values")
    assert f"At alpha 0.05: {verdict.statement}" in many
    head = summary.split("Caveat:")[0]
    if expected == "detected":
        assert "the values differ by more than chance would give" in head
        assert finding.startswith("## Finding The probe detected a difference between the values larger than chance")
    else:
        assert "larger than chance" not in head and "differ by more than chance" not in head
        assert finding.startswith("## Finding The probe did not detect a difference")
    # wherever the models are counted together (the pooled phrase: averaged over, agree, differ), the model of
    # one answer is said to be one, and its caveat stands in the Summary and the Finding
    if verdict.pooled:
        assert verdict.pooled in head and "judge-first gave chose_first = 1 in every run" in verdict.pooled
    assert caveat.sentence in summary and caveat.sentence in finding
    if any(w in head for w in ("disagree", "differ (", "whose gaps differ")):
        assert "judge-first gave chose_first = 1 in every run" in head
    # each model's own section: the one of one answer says so, and no other
    for g in result.groups:
        model = g.by["model"]
        start = text.index(f"### model = {model}")
        own = " ".join(text[start:text.index("\n### ", start + 4)].split()).replace("\\", "")
        said = "Every one of its" in own and "cannot show a difference" in own
        assert said == (model in constant), model
        if model in constant:   # what its section says of it, from its rows
            runs = frame.filter(pl.col("model") == model).height
            assert f"Every one of its {runs} runs (30 items) gave chose_first = 1 under all 3 values" in own
            assert g.omnibus.pvalue == 1
    # the terminal and JSON say the same
    buf = io.StringIO()
    render_terminal(result, Console(file=buf, width=400))
    shown = " ".join(buf.getvalue().split())
    assert verdict.statement in shown and caveat.sentence in shown
    data = json.loads(json.dumps(result.to_dict()))["verdict"]
    assert data["conclusion"] == expected and data["statement"] == verdict.statement
    assert data["pooled"] == verdict.pooled
    assert [c["figures"] for c in data["caveats"] if c["id"] == "one_answer"] == [caveat.figures]
