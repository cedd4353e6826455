"""``probestats analyze`` of the 8-item sample reads in ten seconds: at most 40 lines of at most 120
characters, its tests and effect sizes in small tables, the verdict last, no repository path, and every
figure the earlier long-line layout printed still there.

FIGURES lists what ``analyze sample_logs/style_probe.csv --metric steps [--noise ...]`` printed before the
tables (one line per test, methods in full): each figure is looked for on the line of the test it belongs
to. The figures that lived only in the methods' text (how many resamples, to what tolerance the ends were
found, the interval's measured coverage) are in ``--json`` and the report; the test reads them there. The
main statistics are computed again here from the sample (scipy) so the list is not the only reference.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from tests.cli_run import run_cli

ROOT = Path(__file__).resolve().parents[1]
PROBE = ROOT / "sample_logs" / "style_probe.csv"
NOISE = ROOT / "sample_logs" / "style_noise.csv"

#: (the start of the line or table row a figure belongs to, the figures on it), as the old layout printed them
FIGURES = [
    ("average gap", ["+0.6375", "[0.1558, 1.119]", "8 item gaps", "7 degrees of freedom"]),
    ("sign-flip", ["+0.6375", "0.02344", "256 sign patterns"]),
    ("sign test", ["k = 7 of 8", "0.07031"]),
    ("smallest attainable p", ["0.007812", "=MIN(1, 2*(1-BINOM.DIST(6, 8, 0.5, TRUE)))"]),
    ("SD of the item gaps", ["0.5762"]),
    ("d_z", ["+1.106", "[0.188, 1.98]", "7 degrees of freedom"]),
    ("d_av", ["+1.652", "[0.3901, 3.256]", "8 items", "10,000 resamples, seed 0"]),
    ("paired t", ["3.13", "df = 7", "0.01662"]),
    ("Wilcoxon signed-rank", ["2", "0.02344"]),
    ("At alpha 0.05", ["At alpha 0.05: a gap larger than chance."]),
]
#: with --noise, the noise comparison and the minimum detectable gap
NOISE_FIGURES = [
    ("same-versus-same noise", ["'formal' vs 'formal again'", "+0.1313", "0.4141", "8 items"]),
    ("minimum detectable gap", ["0.5349"]),
]
def _halves_gap() -> str:
    """The log's own halves of 'formal' over every split, enumerated (:func:`tests.factories.halves_over_every_split`)."""
    import polars as pl

    from tests.factories import halves_over_every_split

    frame = pl.read_csv(PROBE)
    runs = {str(i): [frame.filter((pl.col("item") == i) & (pl.col("variant") == "formal"))["steps"].to_list()]
            for i in frame["item"].unique(maintain_order=True)}
    return f"±{halves_over_every_split(runs)[1]:.4g}"


#: without it, the halves of the log's own runs, read over every split (was: one split drawn, -0.1875, p = 0.5)
HALVES_FIGURES = [
    ("noise within the log", ["'formal (first half)' vs 'formal (second half)'", _halves_gap(), "over every split",
                              "8 items"]),
    ("  no --noise log", ["split in two halves", "over every split"]),
]
#: the item table, unchanged: each item's two means, gap and runs
ITEMS = [("0", "5.05", "3.8", "+1.25"), ("1", "4.7", "4.05", "+0.65"), ("2", "5.15", "4.3", "+0.85"),
         ("3", "4.95", "5.2", "-0.25"), ("4", "5", "4.5", "+0.5"), ("5", "5", "4.95", "+0.05"),
         ("6", "4.75", "4.2", "+0.55"), ("7", "5.55", "4.05", "+1.5"), ("average", "5.019", "4.381", "+0.6375")]


def _line(lines: list[str], start: str) -> str:
    found = [line for line in lines if line.startswith(start)]
    assert found, f"no line starts with {start!r}:\n" + "\n".join(lines)
    return found[0]


def _fmt(x: float) -> str:
    return f"{x:.4g}"


@pytest.mark.parametrize("noise", [False, True])
def test_the_sample_fits_in_40_lines_of_120_characters_with_every_figure(capsys, noise):
    args = ["analyze", PROBE, "--metric", "steps", *(["--noise", NOISE] if noise else [])]
    code, out, _ = run_cli(capsys, *args)
    assert code == 0
    lines = out.splitlines()
    assert len(lines) <= 40, len(lines)
    assert max(len(line) for line in lines) <= 120, max(lines, key=len)
    assert lines[-1] == "At alpha 0.05: a gap larger than chance."   # the verdict last, as before
    assert "benchmarks" not in out
    for start, figures in FIGURES + (NOISE_FIGURES if noise else HALVES_FIGURES):
        line = _line(lines, start)
        for figure in figures:
            assert figure in line, (figure, line)
    for item, mean_a, mean_b, gap in ITEMS:
        row = next(line for line in lines if line.startswith(f"│ {item} "))
        assert [c.strip() for c in row.split("│")[1:5]] == [item, mean_a, mean_b, gap], row

    # the same figures computed here from the sample (scipy): the list above is not the only reference
    import polars as pl

    log = pl.read_csv(PROBE)
    means = log.group_by("item", "variant").agg(pl.col("steps").mean()).pivot(on="variant", index="item",
                                                                               values="steps").sort("item")
    a, b = means["formal"].to_numpy(), means["casual"].to_numpy()
    gaps = a - b
    t = stats.ttest_rel(a, b)
    ci = t.confidence_interval(0.95)
    assert f"[{_fmt(ci.low)}, {_fmt(ci.high)}]" in _line(lines, "average gap")
    assert _fmt(t.statistic) in _line(lines, "paired t") and _fmt(t.pvalue) in _line(lines, "paired t")
    assert _fmt(stats.wilcoxon(gaps).pvalue) in _line(lines, "Wilcoxon")
    assert _fmt(np.std(gaps, ddof=1)) in _line(lines, "SD of the item gaps")
    assert f"{np.mean(gaps) / np.std(gaps, ddof=1):+.4g}" in _line(lines, "d_z")
    assert _fmt(stats.binomtest(7, 8).pvalue) in _line(lines, "sign test")
    # the new row: each value's average with its t interval over the item means
    row = [c.strip() for c in _line(lines, "│ 95% interval").split("│")[1:4]]
    for cell, x in zip(row[1:], (a, b)):
        half = stats.t.ppf(0.975, len(x) - 1) * np.std(x, ddof=1) / math.sqrt(len(x))
        assert cell == f"[{_fmt(x.mean() - half)}, {_fmt(x.mean() + half)}]", (cell, row)


def test_the_methods_left_out_of_the_terminal_are_in_the_json(capsys):
    """What only the methods' text carried (the tolerance of d_z's ends, the t interval's measured coverage
    with skewed gaps, the published tests' assumptions) is in --json, in full; no repository path anywhere."""
    code, out, _ = run_cli(capsys, "analyze", PROBE, "--metric", "steps", "--json")
    assert code == 0
    data = json.loads(out)
    assert "10⁻¹²" in data["effect_sizes"]["d_z"]["interval_method"]
    assert "10,000 resamples, seed 0" in data["effect_sizes"]["d_av"]["interval_method"]
    assert "0.82-0.85 for lognormal gaps at 6-12 items" in data["interval"]["assumption"]
    assert data["published_tests"]["paired_t"]["method"].startswith("paired t-test on the item means (Student's t")
    assert "benchmarks" not in out
    _, terminal, _ = run_cli(capsys, "analyze", PROBE, "--metric", "steps")
    assert "--json and the report" in terminal


def test_no_repository_path_in_what_a_user_reads():
    """No text the package shows a user (the terminal, the report, the page) names a file of the repository
    that an installed package does not have: only comments and docstrings may."""
    import ast

    for path in (ROOT / "probestats").rglob("*"):
        if path.suffix not in (".py", ".md", ".j2", ".html", ".jinja", ".txt", ".js", ".css") or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        if "benchmarks/" not in text:
            continue
        if path.suffix != ".py":
            raise AssertionError(f"{path}: names benchmarks/ in text a user reads")
        tree = ast.parse(text)
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if (isinstance(node, ast.Constant) and isinstance(node.value, str) and "benchmarks/" in node.value
                    and id(node) not in docstrings):
                raise AssertionError(f"{path}:{node.lineno}: a string shown to users names benchmarks/")


def test_forty_groups_fit_a_screenful_in_one_table_and_every_group_is_in_json(capsys, tmp_path):
    # with 40 --by groups the terminal printed each group's item table and tests: 1,813 lines
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(1)
    rows = [{"g": f"g{g}", "item": i, "variant": v, "seed": s, "y": int(rng.poisson(3 + (v == "a") * (g == 12) * 2))}
            for g in range(40) for i in range(20) for v in "ab" for s in range(3)]
    path = tmp_path / "by40.csv"
    pl.DataFrame(rows).write_csv(path)
    code, out, _ = run_cli(capsys, "analyze", path, "--metric", "y", "--by", "g")
    assert code == 0 and len(out.splitlines()) <= 300
    listed = [line.split()[2] for line in out.splitlines() if line.startswith("g = g")]
    assert len(listed) == 40 and listed[0] == "g12"   # the group that differs first
    code, out, _ = run_cli(capsys, "analyze", path, "--metric", "y", "--by", "g", "--json")
    assert code == 0 and len(json.loads(out)["groups"]) == 40
