"""A reference that is not neutral: six values all below it by a similar amount, alike among themselves."""

from __future__ import annotations

import io
import json

import numpy as np
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
