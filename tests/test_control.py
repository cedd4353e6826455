"""A control wording: does the attribute move the metric more than a meaningless change does?

Every figure is checked against a reference computed here from the rows: item means by polars, the
sign-flip p by brute force over every sign pattern, Holm's correction by hand.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import re

import numpy as np
import polars as pl
import pytest
from rich.console import Console

from probestats import analyze
from probestats.shape.design import Design
from probestats.analyses.control import compare_control
from probestats.cli import main
from probestats.errors import OptionError
from probestats.present.report.document import render_report
from probestats.present.terminal.render import render_terminal
from tests.budget import draws, full_only
from tests.factories import write_log

VALUES = ("original", "modified", "typo")


def control_log(items: int = 10, runs: int = 4, bias: float = 1.0, control: float = 1.0, seed: int = 0,
                extra: dict | None = None, sd: float = 1.0) -> pl.DataFrame:
    """A probe with a baseline 'original', a bias wording 'modified' (planted gap ``bias``) and a meaningless
    edit 'typo' (planted gap ``control``); integer scores, ``runs`` per item and value; ``extra`` adds more
    values with their own planted gaps."""
    rng = np.random.default_rng(seed)
    shifts = {"original": 0.0, "modified": bias, "typo": control, **(extra or {})}
    rows = []
    for i in range(items):
        level = rng.normal(5, 1)
        for s in range(runs):
            for v, shift in shifts.items():
                rows.append({"item": f"q{i}", "variant": v, "seed": s, "model": "m1",
                             "score": int(round(level + shift + rng.normal(0, sd)))})
    return pl.DataFrame(rows)


def brute_sign_flip(gaps) -> float:
    """Share of all 2**n sign patterns whose |sum| is at least the observed one (ties within 1e-9)."""
    g = [float(x) for x in gaps]
    s_obs = math.fsum(g)
    tol = 1e-9 * max(abs(s_obs), max(abs(x) for x in g))
    hits = sum(abs(math.fsum(a * b for a, b in zip(signs, g))) >= abs(s_obs) - tol
               for signs in itertools.product((1.0, -1.0), repeat=len(g)))
    return hits / 2 ** len(g)


def holm(ps):
    """Holm's step-down, by hand: the k-th smallest times (m - k), running maximum, capped at 1."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - k) * ps[i]))
        out[i] = running
    return out


def item_means(frame: pl.DataFrame) -> dict[tuple[str, str], float]:
    means = frame.group_by("item", "variant").agg(pl.col("score").mean())
    return {(r["item"], r["variant"]): r["score"] for r in means.iter_rows(named=True)}


def terminal(result) -> str:
    buf = io.StringIO()
    render_terminal(result, Console(file=buf, width=250))
    return buf.getvalue()


def flat(text: str) -> str:
    return " ".join(text.replace("\\", "").split())


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---------------------------------------------------------------------------- the statistics


def test_gaps_tests_and_correction_match_a_hand_computation():
    frame = control_log(items=10, bias=2.0, control=0.5, seed=3)
    result = analyze(frame, metric="score", control="typo", baseline="original")
    assert (result.main.a, result.main.b, result.baseline) == ("modified", "original", "original")
    c = result.verdict.control
    t = c.tests[0]
    m = item_means(frame)
    items = [f"q{i}" for i in range(10)]
    g_v = [m[(i, "modified")] - m[(i, "original")] for i in items]
    g_c = [m[(i, "typo")] - m[(i, "original")] for i in items]
    assert t.items["item"].to_list() == items
    assert t.items["value_gap"].to_list() == pytest.approx(g_v, abs=1e-12)
    assert t.items["control_gap"].to_list() == pytest.approx(g_c, abs=1e-12)
    signed = [a - b for a, b in zip(g_v, g_c)]
    size = [abs(a) - abs(b) for a, b in zip(g_v, g_c)]
    assert t.difference == pytest.approx(sum(signed) / 10) and t.size_difference == pytest.approx(sum(size) / 10)
    # brute force over all 1024 sign patterns of each set of per-item differences
    p_signed, p_size = brute_sign_flip(signed), brute_sign_flip(size)
    assert t.signed.pvalue == pytest.approx(p_signed, rel=1e-12)
    assert t.absolute.pvalue == pytest.approx(p_size, rel=1e-12)
    assert [t.signed_p_adjusted, t.absolute_p_adjusted] == pytest.approx(holm([p_signed, p_size]), rel=1e-12)
    # the control's own gap against the baseline, and its sensitivity index (mean absolute item gap)
    assert c.control_gap == pytest.approx(sum(g_c) / 10) and c.control_size == pytest.approx(sum(map(abs, g_c)) / 10)
    assert c.control_test.pvalue == pytest.approx(brute_sign_flip(g_c), rel=1e-12)
    assert t.value_size == pytest.approx(sum(map(abs, g_v)) / 10)
    # a planted gap of 2 against one of 0.5 over 10 items: more than the control
    assert t.conclusion == "more" and c.more == ("modified",)


def test_each_of_several_values_is_set_against_the_control_in_one_family():
    frame = control_log(items=8, runs=3, bias=3.0, control=0.0, seed=4, extra={"other": 0.0})
    result = analyze(frame, metric="score", control="typo", reference="original")
    assert type(result).__name__ == "ManyAnalysis"
    assert [v.value for v in result.main.values] == ["original", "modified", "other"]   # the control left out
    c = result.verdict.control
    assert [t.value for t in c.tests] == ["modified", "other"]
    m = item_means(frame)
    raw = []
    for t in c.tests:
        signed = [(m[(i, t.value)] - m[(i, "original")]) - (m[(i, "typo")] - m[(i, "original")])
                  for i in t.items["item"]]
        size = [abs(m[(i, t.value)] - m[(i, "original")]) - abs(m[(i, "typo")] - m[(i, "original")])
                for i in t.items["item"]]
        raw += [brute_sign_flip(signed), brute_sign_flip(size)]
    got = [p for t in c.tests for p in (t.signed_p_adjusted, t.absolute_p_adjusted)]
    assert got == pytest.approx(holm(raw), rel=1e-12)   # one Holm family over the 4 tests
    assert c.tests[0].conclusion == "more" and c.tests[1].conclusion == "no_more"
    assert "'modified' moved score more than the control 'typo'" in c.statement
    assert "'other' no more than it did" in c.statement


def test_the_tests_keep_their_level_over_every_exchange_of_value_and_control():
    """Exact level, by enumeration: under the null the value and the control are exchangeable within each
    item, so each of the 2**6 logs made by swapping their labels in a subset of the 6 items is as likely
    as the log drawn. Over those 64 logs the share with p <= alpha is the test's exact conditional level:
    an exact test keeps it at most alpha (no binomial error: every relabelling is counted), on each of
    two drawn logs. The 300 random null logs run with PROBESTATS_FULL=1. A test that read the wrong arm, or a t or normal approximation, exceeds it."""
    alpha = 0.05
    for seed in (100, 101):
        frame = control_log(items=6, runs=2, bias=1.0, control=1.0, seed=seed, sd=1.5)
        rejected = {"signed": 0, "absolute": 0}
        for swapped in itertools.product((False, True), repeat=6):
            flip = [f"q{i}" for i in range(6) if swapped[i]]
            relabelled = frame.with_columns(
                pl.when(pl.col("item").is_in(flip) & (pl.col("variant") == "modified")).then(pl.lit("typo"))
                .when(pl.col("item").is_in(flip) & (pl.col("variant") == "typo")).then(pl.lit("modified"))
                .otherwise(pl.col("variant")).alias("variant"))
            t = compare_control(relabelled, metric="score", values=["modified"], baseline="original",
                                control="typo").tests[0]
            rejected["signed"] += t.signed.pvalue <= alpha
            rejected["absolute"] += t.absolute.pvalue <= alpha
        for name, count in rejected.items():
            assert count <= alpha * 64, (seed, name, count)


@full_only
def test_the_tests_keep_their_level_when_the_value_is_one_more_meaningless_edit():
    # 300 null logs: the value and the control have the same planted gap (exchangeable within items)
    alpha, sims, rejected = 0.05, 300, {"signed": 0, "absolute": 0}
    for s in range(sims):
        frame = control_log(items=8, runs=2, bias=1.0, control=1.0, seed=100 + s, sd=1.5)
        t = compare_control(frame, metric="score", values=["modified"], baseline="original", control="typo").tests[0]
        rejected["signed"] += t.signed.pvalue <= alpha
        rejected["absolute"] += t.absolute.pvalue <= alpha
    se = math.sqrt(alpha * (1 - alpha) / sims)
    for name, count in rejected.items():   # an exact test never exceeds its level, beyond binomial error
        assert count / sims <= alpha + 3 * se, (name, count)


def test_only_items_with_the_control_are_compared_and_the_rest_are_named():
    frame = control_log(items=8, runs=2, seed=5).filter(~((pl.col("item") == "q3") & (pl.col("variant") == "typo")))
    result = analyze(frame, metric="score", control="typo", baseline="original")
    c = result.verdict.control
    assert c.left_out == ("q3",) and c.tests[0].n_items == 7 and result.main.n_items == 8
    assert any(p.code == "control_unmatched" and "q3" in p.message for p in result.problems)


def test_unequal_runs_of_value_and_control_are_said():
    frame = control_log(items=6, runs=3, seed=6).filter(~((pl.col("variant") == "typo") & (pl.col("seed") == 2)
                                                           & (pl.col("item") == "q0")))
    result = analyze(frame, metric="score", control="typo", baseline="original")
    assert not result.verdict.control.tests[0].equal_runs
    assert any(p.code == "control_unequal_runs" for p in result.problems)


# ---------------------------------------------------------------------------- must show


def same_gap_log() -> pl.DataFrame:
    """The bias wording and the meaningless edit both move the score by +1 against the original."""
    return control_log(items=12, runs=3, bias=1.0, control=1.0, seed=11)


def test_a_control_with_the_same_gap_as_the_bias_wording_is_no_more_than_the_control(tmp_path, capsys):
    frame = same_gap_log()
    result = analyze(frame, metric="score", control="typo", baseline="original")
    assert result.verdict.detected                         # against the baseline, the bias wording moves it
    c = result.verdict.control
    t = c.tests[0]
    assert t.conclusion == "no_more" and c.control_moves   # but no more than the typo, which moves it too
    signed = t.items["difference"].to_list()
    assert t.signed.pvalue == pytest.approx(brute_sign_flip(signed), rel=1e-12)
    said = "'modified' moved score no more than the control 'typo' (a meaningless edit) did"
    # the terminal
    text = flat(terminal(result))
    assert said in text and "exact sign-flip tests on the per-item differences" in text
    assert "this is a finding about the system, not a check that failed" in text
    # the report, Markdown and HTML: the Summary says it with its test, and the control section shows the table
    md = render_report(result, format="md")
    summary = flat(md.split("## Summary", 1)[1].split("\n## ", 1)[0])
    assert "'modified' moved score no more than it did (exact sign-flip tests on the per-item differences" in summary
    assert "## Control: against the meaningless edit 'typo'" in md
    row = next(line for line in md.splitlines() if line.startswith("| modified |"))
    assert row.rstrip().endswith("| no more |")
    html = render_report(result, format="html")
    assert 'id="control"' in html and "no more than it did" in html
    # JSON: the verdict carries the comparison; the report's Summary sentences carry its words
    data = json.loads(render_report(result, format="json"))
    control = data["verdict"]["control"]
    assert control["tests"][0]["conclusion"] == "no_more" and control["control_moves"] is True
    assert control["tests"][0]["signed"]["p"] == t.signed.pvalue
    assert any("no more than it did" in s for s in data["report"]["sentences"]["summary"])
    assert data["baseline"] == "original"
    # the command line: terminal and --json alike
    path = write_log(frame, tmp_path / "probe.csv")
    code, out, err = cli(capsys, "analyze", path, "--metric", "score", "--control", "typo", "--baseline", "original")
    assert code == 0, err and said in flat(out)
    code, out, err = cli(capsys, "analyze", path, "--metric", "score", "--control", "typo", "--baseline", "original",
                         "--json")
    assert code == 0, err
    assert json.loads(out)["verdict"]["control"] == json.loads(json.dumps(result.verdict.control.to_dict()))
    for fmt in ("md", "html", "json"):
        code, _, err = cli(capsys, "report", path, "--metric", "score", "--control", "typo", "--baseline", "original",
                           "-o", tmp_path / f"r.{fmt}")
        assert code == 0, err
        assert "no more than it did" in (tmp_path / f"r.{fmt}").read_text(encoding="utf-8")


def test_the_control_may_come_from_a_file_of_its_own(tmp_path, capsys):
    frame = same_gap_log()
    probe = write_log(frame.filter(pl.col("variant") != "typo"), tmp_path / "probe.csv")
    typo = write_log(frame.filter(pl.col("variant") == "typo"), tmp_path / "typo.csv")
    together = analyze(frame, metric="score", control="typo", baseline="original").verdict.control
    from probestats.io.files import read_files

    apart = analyze(read_files([probe, typo]), metric="score", control="typo", baseline="original").verdict.control
    assert apart.tests[0].items.equals(together.tests[0].items)
    assert apart.tests[0].signed.pvalue == together.tests[0].signed.pvalue
    code, out, err = cli(capsys, "analyze", probe, typo, "--metric", "score", "--control", "typo",
                         "--baseline", "original", "--json")
    assert code == 0, err and json.loads(out)["verdict"]["control"]["tests"][0]["conclusion"] == "no_more"


def test_a_placebo_given_as_noise_is_pointed_to_the_control(tmp_path, capsys):
    # a noise log whose second value is a meaningless edit that moves the score: not only a failed check
    frame = same_gap_log()
    noise = write_log(frame.filter(pl.col("variant").is_in(["original", "typo"])), tmp_path / "placebo.csv")
    probe = write_log(frame.filter(pl.col("variant").is_in(["modified", "original"])), tmp_path / "probe.csv")
    code, out, err = cli(capsys, "analyze", probe, "--metric", "score", "--noise", noise)
    assert code == 0, err
    text = flat(out)
    assert "a meaningless edit (a typo, a blank line) that moves the metric is a control" in text
    assert "name it with --control typo" in text


# ---------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("kwargs, message", [
    ({"control": "nothing"}, "'nothing' is not a value of the log"),
    ({"control": "typo", "a": "typo", "b": "original"}, "the control is a meaningless edit set beside the compared"),
    ({"control": "typo", "factor": ["style", "name"]}, "drop factor"),
    ({"control": "typo", "metric": "score,score2"}, "sets one metric's gaps against the control's; give one metric"),
    ({"baseline": "typo", "a": "modified", "b": "original"}, "the baseline is one of the two compared values"),
    ({"baseline": "original", "reference": "original"}, "which is their baseline: drop baseline"),
    ({"baseline": "original"}, "this log has 3 values: choose the other with a='VALUE'"),
    ({"baseline": "original", "control": "original"}, "name one value"),
    ({"design": Design(selection=True), "a": "modified", "b": "original"}, "selection rates and impact ratios are shown for several"),
    ({"design": Design(selection=True), "reference": "original"}, "a selection metric is 0 or 1 per run"),
])
def test_options_that_cannot_apply_are_refused_with_the_fix(kwargs, message):
    frame = control_log(items=4, runs=2, seed=1).with_columns((pl.col("score") * 2).alias("score2"))
    options = {"metric": "score", **kwargs}
    with pytest.raises(OptionError) as refused:
        analyze(frame, **options)
    assert message in str(refused.value)


def test_the_command_line_refuses_them_in_its_own_spelling(tmp_path, capsys):
    path = write_log(control_log(items=4, runs=2, seed=1), tmp_path / "p.csv")
    code, _, err = cli(capsys, "analyze", path, "--metric", "score", "--baseline", "original")
    assert code == 1 and err == ("Error: --baseline original names the unchanged one of two compared values, and this "
                                 "log has 3 values: choose the other with --a VALUE, or measure every value against "
                                 "it with --reference original\n")
    code, _, err = cli(capsys, "analyze", path, "--metric", "score", "--set", "attribute=style")
    assert code == 1 and "analyze reads the design fact selection only" in err
    code, _, err = cli(capsys, "analyze", path, "--metric", "score", "--reference", "original", "--set", "selection=yes")
    assert code == 1 and "--set selection=yes: a selection metric is 0 or 1 per run" in err
    code, _, err = cli(capsys, "analyze", path, "--metric", "score", "--control", "nothing", "--a", "modified",
                       "--b", "original")
    assert code == 1 and err.startswith("Error: --control nothing: 'nothing' is not a value of the log")


# ---------------------------------------------------------------------------- the baseline


def scale_log() -> pl.DataFrame:
    """A judge's 1:4 scale: the unchanged text 'plain' sits at 4 on item s1; the padded one at 1 on item s2."""
    rows = []
    for seed in (1, 2):
        for item, padded, plain in (("s1", 3, 4), ("s2", 1, 2), ("s3", 3, 2)):
            rows += [{"item": item, "variant": "padded", "seed": seed, "level": padded},
                     {"item": item, "variant": "plain", "seed": seed, "level": plain}]
    return pl.DataFrame(rows)


def test_the_named_baseline_is_the_arm_the_floor_and_ceiling_checks_read():
    unnamed = analyze(scale_log(), metric="level", a="padded", b="plain", scale="1:4")
    ends = {(p.code, p.message.split(":")[0]) for p in unnamed.problems if p.code in ("ceiling", "floor")}
    assert ends == {("ceiling", "item s1")}
    message = next(p.message for p in unnamed.problems if p.code == "ceiling")
    assert "'plain' (B) is at the top" in message and "the baseline" not in message.split("(add")[0]
    # the other arm named as the baseline: its cells are read, and only it is called the baseline
    named = analyze(scale_log(), metric="level", a="padded", b="plain", scale="1:4", baseline="padded")
    assert named.baseline == "padded" and named.main.a == "padded"
    ends = {(p.code, p.message.split(":")[0]) for p in named.problems if p.code in ("ceiling", "floor")}
    assert ends == {("floor", "item s2")}
    message = next(p.message for p in named.problems if p.code == "floor")
    # the change from the baseline 'padded' to 'plain' on item s2 is +1 (2 - 1): upward, the way it can move
    assert "the baseline 'padded' is at the bottom" in message and "its delta of +1 shows an upward change" in message
    text = render_report(named, format="md", sections=["ceilings", "design"])
    assert "'padded' (A, the baseline)" in text and "baseline 'padded' mean" in text
    assert json.loads(render_report(named, format="json"))["scale"]["baseline"] == "padded"


def test_the_baseline_alone_orders_the_pair():
    result = analyze(scale_log(), metric="level", baseline="padded")
    assert (result.main.a, result.main.b) == ("plain", "padded")   # gap = the other value minus the baseline
    summary = render_report(result, format="md", sections=["summary"])
    assert "level under 'plain' and under the baseline 'padded' differed" in flat(summary)


def test_selection_words_appear_only_when_the_metric_is_said_to_be_a_selection(tmp_path, capsys):
    rows = [{"item": i, "variant": v, "agree": int((i + k) % 3 == 0)} for i in range(9)
            for k, v in enumerate(("A", "B", "C")) for _ in range(2)]
    frame = pl.DataFrame(rows)
    plain = analyze(frame, metric="agree", reference="A")
    texts = [render_report(plain, format=f) for f in ("md", "html", "json")] + [terminal(plain)]
    for text in texts:
        assert not re.search(r"selection rate|impact ratio|four-fifths", text, re.I), text[:200]
    said = analyze(frame, metric="agree", reference="A", design=Design(selection=True))
    for text in [render_report(said, format=f) for f in ("md", "html")] + [terminal(said)]:
        assert "selection rate" in text and "four-fifths" in text
    path = write_log(frame, tmp_path / "agree.csv")
    design = tmp_path / "probe.toml"
    design.write_text("selection = true\n", encoding="utf-8")
    for extra in (["--set", "selection=yes"], ["--design", design]):
        code, _, err = cli(capsys, "report", path, "--metric", "agree", "--reference", "A", *extra,
                           "-o", tmp_path / "r.json")
        assert code == 0, err
        assert "impact_ratios" in json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    code, _, err = cli(capsys, "report", path, "--metric", "agree", "--reference", "A", "-o", tmp_path / "r.json")
    assert code == 0 and "impact_ratios" not in json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------- properties

from hypothesis import HealthCheck, given, settings, strategies as st   # noqa: E402

CELL = st.lists(st.integers(0, 6), min_size=1, max_size=3)   # one cell's runs: small integer scores


@settings(max_examples=draws(30, 60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(CELL, CELL, CELL), min_size=1, max_size=9))
def test_the_control_tests_are_the_brute_force_sign_flip_and_symmetric_in_value_and_control(cells):
    rows = [{"item": f"i{k}", "variant": v, "score": x}
            for k, cell in enumerate(cells) for v, runs in zip(VALUES, cell) for x in runs]
    frame = pl.DataFrame(rows)
    t = compare_control(frame, metric="score", values=["modified"], baseline="original", control="typo").tests[0]
    mean = lambda xs: sum(xs) / len(xs)   # noqa: E731
    g_v = [mean(m) - mean(o) for o, m, _ in cells]
    g_c = [mean(c) - mean(o) for o, _, c in cells]
    signed = [a - b for a, b in zip(g_v, g_c)]
    size = [abs(a) - abs(b) for a, b in zip(g_v, g_c)]
    assert t.signed.pvalue == pytest.approx(brute_sign_flip(signed), rel=1e-9)
    assert t.absolute.pvalue == pytest.approx(brute_sign_flip(size), rel=1e-9)
    # the labels of the value and the control swapped: the same p, the differences negated
    swapped = frame.with_columns(pl.col("variant").replace({"modified": "typo", "typo": "modified"}))
    s = compare_control(swapped, metric="score", values=["modified"], baseline="original", control="typo").tests[0]
    assert s.signed.pvalue == pytest.approx(t.signed.pvalue, rel=1e-9)
    assert s.absolute.pvalue == pytest.approx(t.absolute.pvalue, rel=1e-9)
    assert s.difference == pytest.approx(-t.difference, abs=1e-12)
    assert s.size_difference == pytest.approx(-t.size_difference, abs=1e-12)
    assert {t.conclusion, s.conclusion} in ({"no_more"}, {"more", "less"}, {"differs"})
