"""Per-axis figures of a many-values audit (``--axes gender,race``): values such as ``female_black`` split into their
levels, and per axis and pair of levels the mean gap and mean |gap| over items and the share of items whose Welch's t
on their runs is significant, checked against a hand computation written here in polars (the level's item mean as
the mean of its values' item means), scipy's ``ttest_ind`` and statsmodels' Holm correction."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

import probestats
from probestats.errors import OptionError
from tests.cli_run import one_error_line, run_cli

VALUES = ("female_black", "male_black", "female_white", "male_white", "female_asian", "male_asian")


@pytest.fixture(scope="module")
def log_path(tmp_path_factory):
    rng = np.random.default_rng(8)
    rows = []
    for k in range(12):
        base = rng.normal(0, 1)
        for v in VALUES:
            gender, race = v.split("_")
            shift = (1.2 if gender == "male" and k % 2 == 0 else 0.0) + {"black": -0.2, "white": 0.3, "asian": 0}[race]
            for run in range(4 + (k % 3 == 0 and v == "male_white")):   # one cell with a fifth run
                rows.append({"item": f"cv{k}", "variant": v, "seed": run,
                             "score": round(base + shift + rng.normal(0, 0.8), 3)})
    path = tmp_path_factory.mktemp("axes") / "audit.csv"
    pl.DataFrame(rows).write_csv(path)
    return path


def _hand(path, axis: int, a: str, b: str, alpha: float = 0.05) -> dict:
    """One pair of levels of one axis, by hand: level item means as means of the values' item means; the gap
    a − b per item; Welch's t on the item's runs under the two levels; Holm across the items."""
    frame = pl.read_csv(path).with_columns(pl.col("variant").str.split("_").list.get(axis).alias("level"))
    value_means = frame.group_by("item", "variant", "level").agg(pl.col("score").mean())
    level_means = value_means.group_by("item", "level").agg(pl.col("score").mean())
    wide = level_means.pivot(on="level", index="item", values="score").sort("item")
    gaps = (wide[a] - wide[b]).to_numpy()
    ps = []
    for item in wide["item"]:
        runs = frame.filter(pl.col("item") == item)
        ps.append(stats.ttest_ind(runs.filter(pl.col("level") == a)["score"].to_numpy(),
                                  runs.filter(pl.col("level") == b)["score"].to_numpy(), equal_var=False).pvalue)
    ps = np.array(ps)
    holm = multipletests(ps, method="holm")[1]
    return {"mean_gap": gaps.mean(), "mean_abs_gap": np.abs(gaps).mean(), "n": len(gaps),
            "sig": int((ps <= alpha).sum()), "sig_adj": int((holm <= alpha).sum()),
            "items": dict(zip(wide["item"].to_list(), zip(gaps, ps, holm)))}


def _check_pair(pair: dict, ref: dict) -> None:
    assert pair["n_items"] == pair["n_tested"] == ref["n"] == 12
    assert pair["mean_gap"] == pytest.approx(ref["mean_gap"], abs=1e-12)
    assert pair["mean_abs_gap"] == pytest.approx(ref["mean_abs_gap"], abs=1e-12)
    assert (pair["n_significant"], pair["n_significant_adjusted"]) == (ref["sig"], ref["sig_adj"])
    assert pair["share_significant"] == pytest.approx(ref["sig"] / 12)
    assert pair["share_significant_adjusted"] == pytest.approx(ref["sig_adj"] / 12)
    for row in pair["items"]:
        gap, p, p_adj = ref["items"][row["item"]]
        assert row["gap"] == pytest.approx(gap, abs=1e-12)
        assert row["p"] == pytest.approx(p, rel=1e-9) and row["p_adjusted"] == pytest.approx(p_adj, rel=1e-9)


def test_per_axis_figures_equal_the_hand_computation(capsys, log_path):
    code, out, err = run_cli(capsys, "analyze", log_path, "--metric", "score", "--axes", "gender,race", "--json")
    assert code == 0, err
    axes = json.loads(out)["axes"]
    assert axes["names"] == ["gender", "race"] and axes["separator"] == "_"
    gender, race = axes["axes"]
    assert gender["levels"] == ["female", "male"] and race["levels"] == ["black", "white", "asian"]
    ref = _hand(log_path, 0, "male", "female")
    assert ref["sig"] >= 3            # the log has a gender gap in half of its items
    _check_pair(gender["pairs"][0], ref)
    assert gender["mean_abs_gap"] == pytest.approx(ref["mean_abs_gap"], abs=1e-12)
    assert gender["share_significant"] == pytest.approx(ref["sig"] / 12)
    pairs = {(p["level_a"], p["level_b"]): p for p in race["pairs"]}
    assert list(pairs) == [("white", "black"), ("asian", "black"), ("asian", "white")]
    refs = {k: _hand(log_path, 1, *k) for k in pairs}
    for k, p in pairs.items():
        _check_pair(p, refs[k])
    # the axis's summary is over every item and pair of its levels
    assert race["mean_abs_gap"] == pytest.approx(np.mean([r["mean_abs_gap"] for r in refs.values()]), abs=1e-12)
    assert race["share_significant"] == pytest.approx(sum(r["sig"] for r in refs.values()) / 36)
    # Python gives the same object
    result = probestats.analyze(log_path, metric="score", probe=probestats.Probe(axes=["gender", "race"]))
    assert result.axes.to_dict() == axes


def test_the_terminal_shows_one_row_per_axis_and_pair(capsys, log_path):
    code, out, _ = run_cli(capsys, "analyze", log_path, "--metric", "score", "--axes", "gender,race")
    assert code == 0
    ref = _hand(log_path, 0, "male", "female")
    row = next(line for line in out.splitlines() if line.startswith("gender"))
    assert f"{ref['mean_gap']:+.4g}" in row and f"{ref['sig']} of 12" in row and f"{ref['sig_adj']} of 12" in row
    assert "'asian' − 'white'" in out and max(len(line) for line in out.splitlines()[:40]) <= 120


@pytest.mark.parametrize("argv, words", [
    (["--axes", "gender,race,age"], ["--axes", "3 parts", "'female_black' has 2 parts"]),
    (["--axes", "gender"], ["two axes or more"]),
    (["--axes", "gender,race", "--a", "female_black", "--b", "male_black"], ["--axes", "two values"]),
    (["--axes", "gender,race", "--by", "item"], ["--axes", "drop --by"]),
    (["--axes", "gender,race", "--group", "f=female_black,female_white,female_asian",
      "--group", "m=male_black,male_white,male_asian"], ["--axes", "--group"]),
], ids=["parts", "one-axis", "pair", "by", "group"])
def test_refusals(capsys, log_path, argv, words):
    code, _, err = run_cli(capsys, "analyze", log_path, "--metric", "score", *argv)
    one_error_line(code, err, *words)


def test_commands_that_do_not_read_the_axes_refuse_them(capsys, log_path, tmp_path):
    code, _, err = run_cli(capsys, "report", log_path, "--metric", "score", "-o", tmp_path / "r.md")
    assert code == 0, err
    with pytest.raises(OptionError, match=r"^axes=.*: the report has no per-axis"):
        probestats.report(log_path, metric="score", probe=probestats.Probe(axes="gender,race"))
    with pytest.raises(OptionError, match=r"^axes=.*the description does not read them"):
        probestats.describe(log_path, metric="score", probe=probestats.Probe(axes="gender,race"))
