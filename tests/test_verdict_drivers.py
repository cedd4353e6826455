"""Models that disagree, in every mode: the verdict line (terminal), the Summary (report) and JSON say that the
blocks a pooled figure averages over disagree, and name the block that drives it, from the block test itself
(:func:`probestats.analyses.blocks.block_driver`).

Every figure is checked against the rows by hand: each model's gap (its item means, value against value,
averaged over the items), the model whose removal moves the average of the models' gaps most, and the studentized
statistic of the other models' items x models matrix (the test that says whether they agree without it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import probestats
from probestats.cli import main as cli

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.drivers import five_values_eight_models, two_by_two_five_models  # noqa: E402


def _run(argv, capsys) -> str:
    assert cli(argv) == 0
    return " ".join(capsys.readouterr().out.split())


def _summary(path: Path) -> str:
    text = path.read_text()
    return " ".join(text.split("## Summary", 1)[1].split("\n## ", 1)[0].split()).replace("\\", "")


def model_gaps(rows, a: str, b: str, metric: str = "score") -> dict[str, np.ndarray]:
    """By hand: per model, each item's mean under ``a`` less its mean under ``b``, in item order."""
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["model"], r["item"], r["variant"]), []).append(r[metric])
    models = sorted({r["model"] for r in rows})
    items = sorted({r["item"] for r in rows}, key=lambda i: int(i[1:]))
    return {m: np.array([np.mean(cells[(m, i, a)]) - np.mean(cells[(m, i, b)]) for i in items]) for m in models}


def farthest(gaps: dict[str, float]) -> str:
    """By brute force: the model whose removal moves the average of the models' gaps most."""
    every = np.mean(list(gaps.values()))
    moved = {m: abs(every - np.mean([g for n, g in gaps.items() if n != m])) for m in gaps}
    return max(moved, key=moved.get)


def studentized(matrix) -> float:
    """By hand: each item's gaps less that item's mean over the models; per model n * mean**2 / variance, summed."""
    m = np.asarray(matrix, dtype=float)
    d = m - m.mean(axis=1, keepdims=True)
    return float(sum(len(d) * d[:, k].mean() ** 2 / d[:, k].var(ddof=1) for k in range(d.shape[1])))


# --------------------------------------------------------------------------------------------- many values


@pytest.fixture(scope="module")
def one_drives(tmp_path_factory):
    rows = five_values_eight_models(0, drive=-0.8)
    path = tmp_path_factory.mktemp("drives") / "five.csv"
    pl.DataFrame(rows).write_csv(path)
    return rows, path


@pytest.mark.parametrize("reference", [["--reference", "v0"], []], ids=["reference", "no-reference"])
def test_five_values_under_eight_models_name_the_model_that_drives_the_pooled_gap(one_drives, reference, capsys,
                                                                                   tmp_path):
    rows, path = one_drives
    argv = [str(path), "--metric", "score", *reference, "--n-resamples", "2000"]
    # by hand: m0's gap against 'v0' is the farthest from the others' on every value, and moves the average most
    for v in ("v1", "v2", "v3", "v4"):
        gaps = {m: g.mean() for m, g in model_gaps(rows, v, "v0").items()}
        assert farthest(gaps) == "m0" and gaps["m0"] < -0.6 and max(abs(g) for m, g in gaps.items() if m != "m0") < 0.3
    terminal = _run(["analyze", *argv], capsys)
    line = next(s for s in terminal.split("At alpha 0.05: ")[1:])
    assert line.startswith("the values differ by more than chance (averaged over 8 models whose gaps differ (m0 ")
    assert "m0 drives the pooled gap (" in terminal   # the caveat, per value
    report = tmp_path / "r.md"
    assert cli(["report", *argv, "-o", str(report)]) == 0
    capsys.readouterr()
    summary = _summary(report)
    assert "averaged over 8 models whose gaps differ (m0 " in summary and "the pooled gaps" in summary
    data = json.loads(_run(["analyze", *argv, "--json"], capsys))["verdict"]
    assert "m0" in data["pooled"] and data["pooled"].startswith("averaged over 8 models whose gaps differ (m0 ")
    caveat = next(c for c in data["caveats"] if c["id"] == "blocks_disagree")
    pairs = caveat["figures"]["values"]
    # blocks_agree is the pair's object, for the pair whose models disagree most (the smallest block-test p)
    agree = data["blocks_agree"]
    assert agree == min(pairs, key=lambda f: f["test"]["p"])
    assert agree["other"] == "v0" and agree["disagree"] is True and agree["driving"]["block"] == "m0"
    matrix = np.column_stack(list(model_gaps(rows, agree["value"], "v0").values()))
    assert agree["test"]["statistic"] == pytest.approx(studentized(matrix), rel=1e-9)
    assert {f["value"] for f in pairs} == {"v1", "v2", "v3", "v4"}
    for f in pairs:
        by_hand = model_gaps(rows, f["value"], f["other"])
        gaps = {m: g.mean() for m, g in by_hand.items()}
        driving = f["driving"]
        assert driving["block"] == "m0"
        assert driving["gap"] == pytest.approx(gaps["m0"], abs=1e-9)
        assert driving["pooled_with"] == pytest.approx(np.mean(list(gaps.values())), abs=1e-9)
        assert driving["pooled_without"] == pytest.approx(np.mean([g for m, g in gaps.items() if m != "m0"]), abs=1e-9)
        others = np.column_stack([g for m, g in by_hand.items() if m != "m0"])
        assert driving["others_test"]["statistic"] == pytest.approx(studentized(others), rel=1e-9)
        assert driving["alone"] == (driving["others_test"]["p"] > 0.05 / 4)


def test_models_that_agree_name_no_block():
    rows = five_values_eight_models(3, drive=-0.05)
    result = probestats.analyze(rows, metric="score", reference="v0", tests=probestats.Tests(n_resamples=2000))
    assert result.verdict.pooled == "averaged over 8 models"
    assert not any(c.id == "blocks_disagree" for c in result.verdict.caveats)
    verdict = result.to_dict()["verdict"]
    # the many-values verdict carries the pair's blocks_agree object, here read and found to agree: no block named
    assert verdict["blocks_agree"]["disagree"] is False and verdict["blocks_agree"]["driving"] is None
    assert "drive" not in json.dumps(verdict).replace('"driving": null', "").replace('"driver": null', "")


def test_many_values_with_by_groups_name_the_group_that_drives(one_drives):
    rows, _ = one_drives
    result = probestats.analyze(rows, metric="score", reference="v0", by=["model"],
                                tests=probestats.Tests(n_resamples=2000))
    assert result.verdict.pooled.startswith("averaged over 8 models whose gaps differ (m0 ")
    caveat = next(c for c in result.verdict.caveats if c.id == "blocks_disagree")
    assert {f["driving"]["block"] for f in caveat.figures["values"]} == {"m0"}


# --------------------------------------------------------------------------------------------- a pair


GAPS = {"m0": 1.37, "m1": -0.15, "m2": 0.31}


def three_models(seed: int = 0, items: int = 30) -> list[dict]:
    """A student project: three models, one +1.37, one -0.15, one +0.31 ('A' against 'B'), 2 runs of SD 0.5."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        base = rng.normal(3, 1)
        for m, g in GAPS.items():
            for v in ("A", "B"):
                for r in range(2):
                    rows.append({"item": f"q{i}", "model": m, "variant": v, "seed": r,
                                 "score": base + (g if v == "A" else 0) + rng.normal(0, 0.5)})
    return rows


@pytest.mark.parametrize("by", [[], ["--by", "model"]], ids=["blocks", "by-model"])
def test_a_pair_of_three_models_is_told_its_models_disagree_and_which_moves_the_gap(by, capsys, tmp_path):
    rows = three_models()
    path = tmp_path / "three.csv"
    pl.DataFrame(rows).write_csv(path)
    argv = [str(path), "--metric", "score", "--a", "A", "--b", "B", *by]
    by_hand = model_gaps(rows, "A", "B")
    gaps = {m: g.mean() for m, g in by_hand.items()}
    assert farthest(gaps) == "m0"
    terminal = _run(["analyze", *argv], capsys)
    assert "At alpha 0.05: a gap larger than chance (averaged over 3 models that disagree (" in terminal
    verdict_line = terminal.split("At alpha 0.05: ", 1)[1].split(").", 1)[0]
    assert "m0 moves the pooled gap most" in verdict_line or "m0 drives the pooled gap" in verdict_line
    report = tmp_path / "r.md"
    assert cli(["report", *argv, "-o", str(report)]) == 0
    capsys.readouterr()
    summary = _summary(report)
    assert "averaged over 3 models that disagree (" in summary and "m0 " in summary.split("averaged over", 1)[1][:120]
    data = json.loads(_run(["analyze", *argv, "--json"], capsys))["verdict"]
    agree = data["blocks_agree"]
    assert agree["disagree"] is True and agree["driving"]["block"] == "m0"
    assert agree["driving"]["gap"] == pytest.approx(gaps["m0"], abs=1e-9)
    others = np.column_stack([by_hand["m1"], by_hand["m2"]])
    assert agree["driving"]["others_test"]["statistic"] == pytest.approx(studentized(others), rel=1e-9)
    # m1 (-0.15) and m2 (+0.31) differ too, over 30 items: m0 moves the gap most, it does not drive it alone
    assert agree["driving"]["alone"] is False and "m0 moves the pooled gap most" in data["pooled"]


# --------------------------------------------------------------------------------------------- several metrics


def test_several_metrics_name_the_model_that_drives_each_metrics_pooled_gap(capsys, tmp_path):
    rows = [dict(r, twice=2 * r["score"] + 1) for r in three_models()]
    path = tmp_path / "metrics.csv"
    pl.DataFrame(rows).write_csv(path)
    argv = [str(path), "--metric", "score,twice", "--a", "A", "--b", "B"]
    terminal = _run(["analyze", *argv], capsys)
    assert "(averaged over 3 models that disagree on 2 of 2 metrics (m0 moves the pooled gaps most))." in terminal
    assert "Caveat: The 3 models disagree on 2 of 2 metrics: for score, " in terminal
    report = tmp_path / "r.md"
    assert cli(["report", *argv, "-o", str(report)]) == 0
    capsys.readouterr()
    assert "averaged over 3 models that disagree on 2 of 2 metrics (m0 moves the pooled gaps most)" in _summary(report)
    data = json.loads(_run(["analyze", *argv, "--json"], capsys))["verdict"]
    caveat = next(c for c in data["caveats"] if c["id"] == "blocks_disagree")
    for f in caveat["figures"]["metrics"]:
        gaps = {m: g.mean() for m, g in model_gaps(rows, "A", "B", f["metric"]).items()}
        assert f["driving"]["block"] == farthest(gaps) == "m0"
        assert f["driving"]["gap"] == pytest.approx(gaps["m0"], abs=1e-9)


# --------------------------------------------------------------------------------------------- two factors


def factor_gaps(rows) -> dict[str, np.ndarray]:
    """By hand: per model, each item's style main effect, the mean over the names of formal - casual among that
    name's runs (each cell the mean of its runs), in item order."""
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["model"], r["item"], r["style"], r["name"]), []).append(r["score"])
    models = sorted({r["model"] for r in rows})
    items = sorted({r["item"] for r in rows}, key=lambda i: int(i[1:]))
    names = sorted({r["name"] for r in rows})
    mean = lambda m, i, s, n: np.mean(cells[(m, i, s, n)])   # noqa: E731
    return {m: np.array([np.mean([mean(m, i, "formal", n) - mean(m, i, "casual", n) for n in names])
                         for i in items]) for m in models}


@pytest.fixture(scope="module")
def factors_drive(tmp_path_factory):
    rows = two_by_two_five_models(0, drive=-0.8)
    path = tmp_path_factory.mktemp("factors") / "drive.csv"
    pl.DataFrame(rows).write_csv(path)
    return rows, path


def test_a_two_by_two_under_five_models_names_the_model_that_drives_the_style_gap(factors_drive, capsys, tmp_path):
    rows, path = factors_drive
    argv = [str(path), "--metric", "score", "--factor", "style", "--factor", "name", "--n-resamples", "2000"]
    by_hand = factor_gaps(rows)
    gaps = {m: g.mean() for m, g in by_hand.items()}
    assert farthest(gaps) == "m0" and gaps["m0"] < -0.6 and max(abs(g) for m, g in gaps.items() if m != "m0") < 0.2
    terminal = _run(["analyze", *argv], capsys)
    line = terminal.split("At alpha 0.05: ", 1)[1].split("Caveat:", 1)[0]
    assert line.startswith("an effect larger than chance after correction: ")
    assert "(averaged over 5 models that disagree on style (m0 drives the pooled gap))." in line
    assert "Caveat: The 5 models disagree on style: " in terminal and "m0 drives the pooled gap (" in terminal
    report = tmp_path / "r.md"
    assert cli(["report", *argv, "-o", str(report)]) == 0
    capsys.readouterr()
    summary = _summary(report)
    assert "averaged over 5 models that disagree on style (m0 drives the pooled gap)" in summary
    data = json.loads(_run(["analyze", *argv, "--json"], capsys))["verdict"]
    assert data["blocks"] == ["model"] and data["pooled"].startswith("averaged over 5 models that disagree on style")
    agree = data["blocks_agree"]   # the first factor's main effect, the pair's object
    assert agree["disagree"] is True and "m0" in agree["lower"] and agree["n_blocks"] == 5
    assert agree["test"]["statistic"] == pytest.approx(studentized(np.column_stack(list(by_hand.values()))), rel=1e-9)
    driving = agree["driving"]
    assert driving["block"] == "m0" and driving["alone"] is True
    assert driving["gap"] == pytest.approx(gaps["m0"], abs=1e-9)
    assert driving["pooled_with"] == pytest.approx(np.mean(list(gaps.values())), abs=1e-9)
    assert driving["pooled_without"] == pytest.approx(np.mean([g for m, g in gaps.items() if m != "m0"]), abs=1e-9)
    others = np.column_stack([g for m, g in by_hand.items() if m != "m0"])
    assert driving["others_test"]["statistic"] == pytest.approx(studentized(others), rel=1e-9)
    assert driving["others_test"]["p"] > 0.05 / 2   # read at alpha / 2: the two main effects' tests
    caveat = next(c for c in data["caveats"] if c["id"] == "blocks_disagree")
    assert [f["effect"] for f in caveat["figures"]["effects"]] == ["style"]   # no model moves the name gap


def test_a_two_by_two_whose_models_agree_names_no_model(capsys, tmp_path):
    rows = two_by_two_five_models(0, drive=-0.05)
    path = tmp_path / "agree.csv"
    pl.DataFrame(rows).write_csv(path)
    argv = [str(path), "--metric", "score", "--factor", "style", "--factor", "name", "--n-resamples", "2000"]
    terminal = _run(["analyze", *argv], capsys)
    assert "(averaged over 5 models)." in terminal and "disagree" not in terminal and "drive" not in terminal
    data = json.loads(_run(["analyze", *argv, "--json"], capsys))["verdict"]
    assert data["pooled"] == "averaged over 5 models"
    assert data["blocks_agree"]["disagree"] is False and data["blocks_agree"]["driving"] is None
    assert not any(c["id"] == "blocks_disagree" for c in data["caveats"])
    by_hand = factor_gaps(rows)
    assert data["blocks_agree"]["test"]["statistic"] == pytest.approx(
        studentized(np.column_stack(list(by_hand.values()))), rel=1e-9)


def test_a_two_by_two_without_blocks_is_unchanged():
    rows = [r for r in two_by_two_five_models(0, drive=-0.8) if r["model"] == "m1"]
    result = probestats.analyze(rows, metric="score", factor=["style", "name"])
    assert result.verdict.pooled is None and result.verdict.agreement is None and result.agreements == ()


def test_two_factors_of_several_metrics_keep_each_metrics_models(factors_drive):
    rows, _ = factors_drive
    rows = [dict(r, twice=2 * r["score"] + 1) for r in rows]
    result = probestats.analyze(rows, metric="score,twice", factor=["style", "name"],
                                tests=probestats.Tests(n_resamples=2000))
    assert len(result.analyses) == 2
    for metric, _, analysis in result.analyses:   # the family's verdict, decided again, keeps the models' reading
        assert analysis.verdict.pooled == "averaged over 5 models that disagree on style (m0 drives the pooled gap)"
        assert analysis.verdict.agreement.driving.block == "m0"
        assert any(c.id == "blocks_disagree" for c in analysis.verdict.caveats)


def test_a_two_by_three_design_reads_the_models_on_its_factor_of_two_levels(factors_drive, capsys, tmp_path):
    rows, _ = factors_drive
    rows = rows + [dict(r, name="Lakisha") for r in rows if r["name"] == "Greg"]   # name: three levels
    path = tmp_path / "two_by_three.csv"
    pl.DataFrame(rows).write_csv(path)
    argv = [str(path), "--metric", "score", "--factor", "style", "--factor", "name", "--n-resamples", "2000"]
    terminal = _run(["analyze", *argv], capsys)
    assert "(averaged over 5 models that disagree on style (m0 drives the pooled gap))." in terminal
    assert "Caveat: The 5 models disagree on style: " in terminal
    data = json.loads(_run(["analyze", *argv, "--json"], capsys))
    assert data["kind"] == "factorial"
    # by hand: a model's style gap is formal - casual averaged over the three names; Lakisha's runs copy Greg's
    by_hand = factor_gaps(rows)
    gaps = {m: g.mean() for m, g in by_hand.items()}
    driving = data["verdict"]["blocks_agree"]["driving"]
    assert driving["block"] == "m0" and driving["gap"] == pytest.approx(gaps["m0"], abs=1e-9)
    caveat = next(c for c in data["verdict"]["caveats"] if c["id"] == "blocks_disagree")
    assert [f["effect"] for f in caveat["figures"]["effects"]] == ["style"]   # name has three levels: no gap
