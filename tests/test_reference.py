"""A reference that is not neutral: six values all below it by a similar amount, alike among themselves."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
import polars as pl
from rich.console import Console

from probestats import analyze
from probestats import analyze_many
from probestats.present.report.document import render_report
from probestats.present.terminal.render import render_terminal

NAMES = ("James", "Emily", "Lakisha", "Jamal", "Greg", "Anne")


def names_log(shifts, items: int = 20, seed: int = 0) -> pl.DataFrame:
    """One run per item and value: the reference 'Base', then six names shifted from it by ``shifts``."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        level = rng.normal(5, 1)
        rows.append({"item": f"r{i}", "variant": "Base", "score": level + rng.normal(0, 0.1)})
        for name, shift in zip(NAMES, shifts):
            rows.append({"item": f"r{i}", "variant": name, "score": level + shift + rng.normal(0, 0.1)})
    return pl.DataFrame(rows)


def _terminal(result) -> str:
    buf = io.StringIO()
    render_terminal(result, Console(file=buf, width=400))
    return " ".join(buf.getvalue().split())


def test_six_values_all_below_a_reference_alike_among_themselves_name_the_reference():
    frame = names_log([-0.3] * 6)
    result = analyze(frame, metric="score", reference="Base")
    check = result.verdict.reference_check
    assert check.suspect and check.direction == "below" and check.all_detected and check.similar
    # the values against each other: the omnibus of the log without the reference, analysed on its own
    alone = analyze_many(frame.filter(pl.col("variant") != "Base"), metric="score")
    assert check.among.pvalue == alone.main.omnibus.pvalue and check.among.pvalue > 0.05
    gaps = [g.average_gap for g in result.main.gaps]
    assert (check.low, check.high) == (min(gaps), max(gaps)) and max(gaps) < 0
    said = "Every one of the 6 values is below the reference 'Base' by a similar amount"
    assert result.verdict.caveats[0].sentence.startswith(said)
    assert "the reference itself may be the cause" in result.verdict.caveats[0].sentence
    summary = render_report(result, format="md").split("## ", 2)[1]
    assert said in " ".join(summary.split()).replace("\\", "")
    assert said in _terminal(result)
    verdict = json.loads(json.dumps(result.to_dict()))["verdict"]
    assert verdict["reference_check"]["suspect"] is True and verdict["caveats"][0]["sentence"].startswith(said)


def test_values_that_differ_among_themselves_leave_the_reference_alone():
    result = analyze(names_log([-0.3, -0.6, -0.9, -1.2, -1.5, -1.8]), metric="score", reference="Base")
    check = result.verdict.reference_check
    assert check.direction == "below" and check.all_detected
    assert not check.similar and check.among is None and not check.suspect   # the omnibus is not needed
    assert not any("reference itself" in c.sentence for c in result.verdict.caveats)


def test_values_on_both_sides_of_the_reference_are_not_a_suspect_reference():
    check = analyze(names_log([-0.5, -0.5, -0.5, 0.5, 0.5, 0.5]), metric="score", reference="Base").verdict.reference_check
    assert check.direction == "mixed" and not check.suspect


def _shared_shift_log(items: int = 187, seed: int = 0) -> list[dict]:
    """Six names sharing a shift of -0.246 from 'Base', SD 0.036 among them, noise SD 0.1 per reply."""
    shifts = np.array([-0.30, -0.27, -0.25, -0.23, -0.22, -0.20])
    shifts = shifts - shifts.mean() - 0.246
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        level = rng.normal(5, 1)
        rows.append({"item": f"r{i}", "variant": "Base", "score": level + rng.normal(0, 0.1)})
        for name, shift in zip(NAMES, shifts):
            rows.append({"item": f"r{i}", "variant": name, "score": level + shift + rng.normal(0, 0.1)})
    return rows


def test_six_values_that_share_one_shift_name_the_reference_though_their_omnibus_p_is_small():
    # the omnibus p among the six is below alpha with 187 items (a 0.036 spread is real), which kept the
    # check silent; the spread is 0.14 of the shift they share, and that is what "alike" means
    rows = _shared_shift_log()
    result = analyze(rows, metric="score", reference="Base")
    check = result.verdict.reference_check
    assert check.among.pvalue <= 0.05 and check.suspect
    # by hand: each name's mean item gap against Base, their mean, their SD, the ratio
    frame = pl.DataFrame(rows)
    base = dict(frame.filter(pl.col("variant") == "Base").select("item", "score").iter_rows())
    means = [float(np.mean([r["score"] - base[r["item"]] for r in rows if r["variant"] == name])) for name in NAMES]
    shift, spread = float(np.mean(means)), float(np.std(means, ddof=1))
    assert check.shift == pytest.approx(shift, abs=1e-9) and check.spread == pytest.approx(spread, abs=1e-9)
    assert check.ratio == pytest.approx(spread / abs(shift), abs=1e-9)
    # the intervals: scipy's percentile bootstrap over the items (rows of item gaps), another stream of draws
    from scipy.stats import bootstrap

    gaps = np.array([[next(r["score"] for r in rows if r["item"] == f"r{i}" and r["variant"] == name) - base[f"r{i}"]
                      for name in NAMES] for i in range(187)])

    def ratio(idx):
        m = gaps[idx.astype(int)].mean(axis=0)
        return m.std(ddof=1) / abs(m.mean())

    ref = bootstrap((np.arange(187.0),), ratio, vectorized=False, method="percentile", n_resamples=2000,
                    random_state=np.random.default_rng(5)).confidence_interval
    assert check.ratio_interval[0] == pytest.approx(ref.low, abs=0.01)
    assert check.ratio_interval[1] == pytest.approx(ref.high, abs=0.01) and check.ratio_interval[1] <= 0.25
    said = (f"a common shift of {check.shift:+.3g} (95% CI [{check.shift_interval[0]:+.3g}, "
            f"{check.shift_interval[1]:+.3g}]), the values spread around it by {check.spread:.3g} (SD), "
            f"{check.ratio:.2f} of the shift")
    assert said in result.verdict.caveats[0].sentence
    verdict = json.loads(json.dumps(result.to_dict()))["verdict"]["reference_check"]
    assert verdict["ratio"] == check.ratio and verdict["max_ratio"] == 0.25 and verdict["suspect"] is True


def test_values_whose_spread_is_large_beside_their_shift_are_not_alike():
    # all below the reference and all detected, but spread (SD 0.19) against a shift of -0.3: ratio 0.62
    check = analyze(names_log([-0.1, -0.2, -0.3, -0.3, -0.4, -0.5], items=60), metric="score",
                    reference="Base").verdict.reference_check
    assert check.all_detected and check.direction == "below"
    assert check.ratio_interval[1] > 0.25 and not check.similar and not check.suspect and check.among is None
