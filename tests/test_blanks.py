"""Blank metric cells by value: counted per value, tested, and the gap shown both ways when they differ."""

from __future__ import annotations

import io
import itertools
import json

import numpy as np
import polars as pl
from rich.console import Console
from scipy.stats import fisher_exact

from probestats import analyze
from probestats.checks.schema import validate
from probestats.present.report.document import render_report
from probestats.present.terminal.render import render_terminal

ITEMS, RUNS = 12, 25


def blank_log(blank_share: float = 0.18, seed: int = 0) -> pl.DataFrame:
    """A 0/1 metric; 'A' answers 1 more often than 'B', and a share of the 'A' runs are blank."""
    rng = np.random.default_rng(seed)
    rows = []
    blanks = set(rng.choice(ITEMS * RUNS, size=round(blank_share * ITEMS * RUNS), replace=False).tolist())
    for i in range(ITEMS):
        for v, rate in (("A", 0.7), ("B", 0.55)):
            for s in range(RUNS):
                blank = v == "A" and i * RUNS + s in blanks
                rows.append({"item": f"q{i}", "variant": v, "seed": s,
                             "agree": None if blank else float(rng.random() < rate)})
    return pl.DataFrame(rows)


def _brute_force_p(gaps) -> float:
    """Two-sided sign-flip p by enumerating all 2**n sign patterns."""
    gaps = np.asarray(gaps)
    observed = abs(gaps.sum())
    hits = sum(abs(sum(s * g for s, g in zip(signs, gaps))) >= observed - 1e-12
               for signs in itertools.product((1, -1), repeat=len(gaps)))
    return hits / 2 ** len(gaps)


def test_blanks_in_18_percent_of_one_values_runs_show_both_readings_everywhere():
    frame = blank_log()
    result = analyze(frame, metric="agree", a="A", b="B")
    blanks = result.verdict.blanks
    assert (blanks.blank_a, blanks.runs_a, blanks.blank_b, blanks.runs_b) == (54, 300, 0, 300)   # 18 % of 300
    assert blanks.pvalue == fisher_exact([[54, 246], [0, 300]]).pvalue and blanks.differ
    # as misses, by hand: a blank is a 0, each item's mean over all its runs
    per = frame.with_columns(pl.col("agree").fill_null(0.0)).group_by("item", "variant").agg(pl.col("agree").mean())
    wide = per.pivot(on="variant", index="item", values="agree").sort("item")
    gaps = (wide["A"] - wide["B"]).to_list()
    assert blanks.miss_value == 0.0
    assert abs(blanks.as_misses_gap - np.mean(gaps)) < 1e-12
    assert abs(blanks.as_misses_test.pvalue - _brute_force_p(gaps)) < 1e-12
    # left out: the headline itself
    assert blanks.left_out_gap == result.average_gap and blanks.left_out_p == result.pvalue
    both = (f"left out (the headline), {result.average_gap:+.4g}", f"counted as misses (agree = 0), "
            f"{blanks.as_misses_gap:+.4g}")
    assert result.verdict.caveats[0].sentence.startswith("Blank agree values are not as common under both values: "
                                                "54 of 300 'A' runs (18%) against 0 of 300 'B' runs")
    md = " ".join(render_report(result, format="md").replace("\\", "").split())
    summary = md.split("## Summary", 1)[1].split("## ", 1)[0]
    design = md.split("## Design", 1)[1].split("## ", 1)[0]
    assert all(part in summary for part in both)
    assert "Blank metric cells** (left out): 54 of 300 'A' runs (18%), 0 of 300 'B' runs" in design
    buf = io.StringIO()
    render_terminal(result, Console(file=buf, width=400))
    assert all(part in " ".join(buf.getvalue().split()) for part in both)
    verdict = json.loads(json.dumps(result.to_dict()))["verdict"]
    assert verdict["blanks"]["differ"] is True and all(part in verdict["caveats"][0]["sentence"] for part in both)


def test_blanks_as_common_under_both_values_are_counted_but_not_a_caveat():
    frame = blank_log(0.0).with_columns(
        pl.when((pl.col("seed") == 0)).then(None).otherwise(pl.col("agree")).alias("agree"))   # one run a cell, each value
    result = analyze(frame, metric="agree", a="A", b="B")
    blanks = result.verdict.blanks
    assert (blanks.blank_a, blanks.blank_b) == (12, 12) and not blanks.differ and blanks.pvalue == 1.0
    assert blanks.as_misses_test is None and not any(c.sentence.startswith("Blank") for c in result.verdict.caveats)


def test_validation_counts_the_blanks_per_value():
    (problem,) = [p for p in validate(blank_log(), metric="agree").problems if p.code == "blank_metric"]
    assert "54 of 300 'A' runs (18%), 0 of 300 'B' runs; they are left out" in problem.message


def test_the_zeros_of_a_0_1_metric_are_not_suspect_but_a_blank_beside_a_reply_is():
    rows = [{"item": i, "variant": v, "seed": s, "agree": float((i + s) % 2), "reply": "yes"}
            for i in range(4) for v in ("A", "B") for s in range(2)]
    assert "suspect_metric" not in [p.code for p in validate(rows, metric="agree").problems]   # 8 zeros, none flagged
    rows[0]["agree"] = None
    (problem,) = [p for p in validate(rows, metric="agree").problems if p.code == "suspect_metric"]
    assert problem.message.startswith("agree is blank in 1 run(s) whose reply is not empty")


def test_a_fisher_p_below_the_float_range_is_never_printed_as_0():
    from scipy.stats import fisher_exact

    # half the runs of 'a' blank, none of 'b', over 1,500 items: Fisher's p underflows to 0
    rows = [{"item": i, "variant": v, "seed": s, "score": None if (v == "a" and s == 0) else float((i + s) % 3)}
            for i in range(1500) for v in ("a", "b") for s in range(2)]
    assert fisher_exact([[1500, 1500], [0, 3000]]).pvalue == 0.0
    result = analyze(rows, metric="score")
    blanks = result.verdict.blanks
    assert blanks is not None and blanks.differ
    assert "(Fisher's exact test, p < 1e-300)" in blanks.statement and "p = 0)" not in blanks.statement
