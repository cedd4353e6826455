"""One verdict behind every text: runs and blocks, the noise reference, a noise check that fails loudly."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import polars as pl
import pytest
from rich.console import Console

from probestats import Probe
from probestats import analyze
from probestats.cli import main
from probestats.present.words.verdict import verdict_line
from probestats.present.report.document import Beside, render_report
from probestats.present.terminal.render import render_terminal
from tests.factories import make_log, write_log


@pytest.fixture
def run(capsys):
    """The command line as a user runs it (its errors and spelling of options included): exit code, output."""

    def go(*args) -> tuple[int, str]:
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err
        return code, out + err

    return go


def judges_log(gap: float = 0.8, items: int = 12, seed: int = 5) -> pl.DataFrame:
    """6 judges with different offsets score every item once under both values, with a planted gap."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        level = rng.normal(5, 1)
        for j, offset in enumerate((0.0, 1.5, 3.0, -2.0, 4.0, 0.5)):
            for v in ("named", "redacted"):
                rows.append({"item": f"r{i}", "variant": v, "judge": f"judge{j}",
                             "score": round(level + offset + (gap if v == "named" else 0) + rng.normal(0, 0.3), 2)})
    return pl.DataFrame(rows)


def terminal_text(result) -> str:
    from probestats.analyses.judge import JudgeResult
    from probestats.present.terminal.judge import print_judge

    buf = io.StringIO()
    (print_judge if isinstance(result, JudgeResult) else render_terminal)(result, Console(file=buf, width=200))
    return buf.getvalue()


def every_text(result) -> dict[str, str]:
    return {"md": render_report(result, format="md"), "html": render_report(result, format="html"),
            "json": render_report(result, format="json"), "terminal": terminal_text(result)}


# ---------------------------------------------------------------------------- runs and blocks


def test_six_judges_that_vary_within_cells_are_blocks_and_the_pooled_gap_is_detected(tmp_path, run):
    frame = judges_log()
    result = analyze(frame, metric="score")
    # by hand: per item, the mean over the 6 judges of (named - redacted), each judge's cell one run
    by_hand = {}
    for item in frame["item"].unique().to_list():
        rows = frame.filter(pl.col("item") == item)
        gaps = [rows.filter((pl.col("judge") == j) & (pl.col("variant") == "named"))["score"].item()
                - rows.filter((pl.col("judge") == j) & (pl.col("variant") == "redacted"))["score"].item()
                for j in rows["judge"].unique().to_list()]
        by_hand[item] = sum(gaps) / len(gaps)
    got = dict(zip(result.main.items["item"], result.main.gaps))
    assert got == pytest.approx(by_hand, abs=1e-12)
    assert result.main.items["n_a"].to_list() == [6] * 12   # the runs of each item: one per judge
    verdict = result.verdict
    assert verdict.detected and verdict.conclusion == "detected" and verdict.blocks == ("judge",)
    assert verdict.pooled == "averaged over 6 judges that answered every item"
    assert not verdict.noise.valid and "one run" in verdict.noise.reason   # one run per cell and judge
    assert [g.by for g in result.groups] == [{"judge": f"judge{j}"} for j in range(6)]
    for kind, text in every_text(result).items():
        text = " ".join(text.split())
        assert "cannot be told from noise" not in text, kind
        assert "averaged over 6 judges that answered every item" in text, kind
        assert "the verdict rests on the exact test alone" in text, kind
    # --by judge: each judge on its own detects it (12 items all positive: p = 2/4096 before Holm)
    log = write_log(frame, tmp_path / "judges.csv")
    code, out = run("analyze", log, "--metric", "score", "--by", "judge", "--json")
    data = json.loads(out)
    assert code == 0 and all(g["sign_flip"]["p_adjusted"] <= 0.05 for g in data["groups"])
    assert data["verdict"]["pooled"] == "averaged over 6 judges that answered every item"


def test_a_judge_missing_under_one_value_is_left_out_of_that_item_and_said():
    frame = judges_log()
    # judge0 did not score item r0 under 'redacted': item r0 averages over the other 5 judges
    frame = frame.filter(~((pl.col("item") == "r0") & (pl.col("judge") == "judge0") & (pl.col("variant") == "redacted")))
    result = analyze(frame, metric="score")
    row = result.main.items.filter(pl.col("item") == "r0").row(0, named=True)
    assert row["n_a"] == 5 and row["n_b"] == 5
    assert result.verdict.pooled == ("averaged over the judges that answered each item under both values "
                                     "(5 to 6 of 6 judges per item)")


def test_a_column_named_as_a_setting_is_a_block_and_several_runs_per_block_give_the_noise_check():
    rows = [{"item": i, "variant": v, "rater": r, "seed": s, "x": 10 * r + (v == "a") + (s % 2)}
            for i in range(6) for v in "ab" for r in (0, 1, 2) for s in (1, 2)]
    result = analyze(rows, metric="x", probe=Probe(settings=["rater"]))
    assert result.verdict.blocks == ("rater",)
    assert result.main.gaps == [1.0] * 6
    # within each item x rater cell the two runs differ by 1 (seed 1 against seed 2): each half holds one of
    # them, so each item's half gap is the mean over raters of +1 or -1; over the 2**3 splits its mean square
    # is 1/3 (enumerated), and the 6 items' average gap has mean square 6 * (1/3) / 6**2
    assert result.verdict.noise.valid and result.noise.items["n_a"].to_list() == [3] * 6
    import itertools
    import statistics

    square = statistics.fmean(statistics.fmean(signs) ** 2 for signs in itertools.product((1, -1), repeat=3))
    assert result.noise.items["gap"].to_list() == pytest.approx([square ** 0.5] * 6, rel=1e-12)
    assert result.noise.average_gap == pytest.approx((6 * square) ** 0.5 / 6, rel=1e-12)
    assert analyze(rows, metric="x").verdict.blocks == ()   # not named: the runs of each cell are pooled


# ---------------------------------------------------------------------------- the noise reference


def test_noise_options_choose_the_reference(tmp_path, run):
    log = write_log(make_log(items=8, runs=6, gap=1.0, seed=2), tmp_path / "probe.csv")
    code, out = run("analyze", log, "--metric", "steps", "--noise", "none", "--json")
    data = json.loads(out)
    assert code == 0 and data["noise"] is None and data["verdict"]["noise"]["source"] == "none"
    code, out = run("analyze", log, "--metric", "steps", "--noise", "within", "--seed", "3", "--json")
    data = json.loads(out)
    # the log's own halves are read over every split: no seed draws them (was: the split drawn with seed 3)
    assert data["verdict"]["noise"]["source"] == "within" and data["verdict"]["noise"]["seed"] is None
    assert data["noise"]["source"].endswith("read over every split (its root mean square, from each cell's spread "
                                            "of runs: no draw)")
    code, out = run("analyze", log, "--metric", "steps", "--noise", "within", "--json")
    assert json.loads(out)["noise"] == data["noise"]
    code, out = run("analyze", log, "--metric", "steps", "--noise-value", "casual", "--json")
    data = json.loads(out)
    assert data["verdict"]["noise"]["source"] == "value" and data["noise"]["a"] == "casual (first half)"
    code, out = run("analyze", log, "--metric", "steps", "--noise-value", "nope")
    assert code == 1 and "Error: --noise-value nope: not a value of the log" in out


def test_one_run_per_cell_says_there_is_no_valid_check_and_rests_on_the_exact_test():
    result = analyze(make_log(items=8, runs=1, gap=2.0, seed=1), metric="steps")
    assert result.noise is None and not result.verdict.noise.valid
    text = render_report(result, format="md")
    assert "No valid same-versus-same check: a cell (item) has one run of 'formal'" in text
    assert "the verdict rests on the exact test alone" in text


def drift_noise(tmp_path):
    """A same-versus-same log whose second half ran a day later, 3 steps higher."""
    noisy = make_log(items=8, runs=5, gap=3.0, sd=0.5, seed=2, values=("formal", "formal again"))
    noisy = noisy.with_columns(pl.when(pl.col("variant") == "formal").then(pl.lit("2026-01-01T10:00:00"))
                               .otherwise(pl.lit("2026-01-02T10:00:00")).alias("time"))
    return write_log(noisy, tmp_path / "noise.csv")


def test_a_same_versus_same_log_with_a_drift_fails_loudly_in_every_format(tmp_path):
    probe = make_log(items=8, runs=5, gap=2.0, sd=0.5, seed=1)
    result = analyze(probe, metric="steps", noise=drift_noise(tmp_path))
    verdict = result.verdict
    assert verdict.noise.failed and verdict.conclusion == "detected"
    assert any("time drift" in c for c in verdict.noise.causes)
    for kind, text in every_text(result).items():
        flat = " ".join(text.split())
        assert "noise check failed" in flat, kind
        assert "time drift" in flat, kind
        assert "cannot be told from noise" not in flat, kind


# ---------------------------------------------------------------------------- one verdict, every text


def _analyses(tmp_path):
    style = make_log(items=8, runs=5, gap=1.0, sd=0.5, seed=1)
    null = make_log(items=8, runs=5, gap=0.0, sd=0.5, seed=2)
    judge = make_log(items=8, runs=3, gap=1.0, sd=0.5, seed=3, integer=True).with_columns(
        pl.col("steps").clip(1, 10))
    return {
        "pair detected": analyze(style, metric="steps"),
        "pair not detected": analyze(null, metric="steps"),
        "pair within noise": analyze(style, metric="steps", noise=make_log(items=3, runs=5, gap=3.0, seed=4,
                                                                           values=("x", "y"))),
        "pair failed noise": analyze(style, metric="steps", noise=drift_noise(tmp_path)),
        "judge": analyze(judge, metric="steps", scale="1:10"),
        "blocks": analyze(judges_log(), metric="score"),
    }


def _sections(md: str) -> dict[str, str]:
    parts = re.split(r"^## ", md, flags=re.M)
    return {p.split("\n", 1)[0].strip().split(":")[0]: " ".join(p.split("\n", 1)[1].split()) for p in parts[1:]
            if "\n" in p}


def test_summary_tests_and_finding_agree_in_every_format(tmp_path):
    for name, result in _analyses(tmp_path).items():
        verdict = result.verdict
        line = verdict_line(verdict).rstrip(".")
        texts = every_text(result)
        md = _sections(texts["md"])
        assert line in md["Tests"], name
        summary, finding = md["Summary"], md["Finding"]
        if verdict.detected:
            assert "a gap larger than chance would give" in summary, name
            assert finding.startswith("The probe detected a gap larger than chance"), name
        else:
            assert "not more than chance would give" in summary, name
            assert finding.startswith("The probe did not detect"), name
        assert ("cannot be told from noise" in summary) == (verdict.conclusion == "within_noise"), name
        assert ("noise check failed" in summary + finding) == verdict.noise.failed, name
        sentences = json.loads(texts["json"])["report"]["sentences"]
        assert sentences["summary"][0] == " ".join(md["Summary"].split()).replace("\\", ""), name
        assert line + "." in sentences["tests"], name
        assert json.loads(texts["json"])["verdict"]["conclusion"] == verdict.conclusion
        assert line in " ".join(texts["html"].split()), name
        assert line in " ".join(texts["terminal"].split()), name


def test_no_cli_output_names_python_parameters_or_prints_p_0(tmp_path, run):
    log = write_log(make_log(items=8, runs=5, gap=1.0, seed=1), tmp_path / "probe.csv")
    huge = write_log(make_log(items=1200, runs=2, gap=5.0, sd=0.1, seed=2), tmp_path / "huge.csv")
    outputs = []
    for args in (["analyze", log, "--metric", "steps"], ["analyze", huge, "--metric", "steps"],
                 ["analyze", huge, "--metric", "steps", "--json"],
                 ["analyze", log, "--metric", "steps", "--interval", "sign-flip"],
                 ["report", log, "--metric", "steps", "-o", tmp_path / "r.md"],
                 ["report", huge, "--metric", "steps", "-o", tmp_path / "h.md"]):
        code, out = run(*args)
        outputs.append(out)
    outputs += [(tmp_path / "r.md").read_text(), (tmp_path / "h.md").read_text()]
    text = "\n".join(outputs)
    # 1200 items all one way: the exact p is 2**-1199, shown as a bound in the terminal's p column
    flip = next(line for line in outputs[1].splitlines() if line.startswith("sign-flip "))
    assert flip.split()[2:4] == ["<", "1e-300"], flip
    for banned in ("mdg=True", "method=", "p = 0 ", "p = 0\n", "p = 0)", "p = 0;", "p = 0,"):
        assert banned not in text, banned
    data = json.loads(outputs[2])
    assert data["sign_flip"]["p_log10"] == pytest.approx(-1199 * np.log10(2), abs=1e-9)


# ---------------------------------------------------------------------------- a setting that is the attribute


def self_preference_log(seed: int = 4) -> pl.DataFrame:
    """A judge's self-preference: under 'own' the deciding model is the author's, under 'other' another
    model; 3 groups of 12 items, 0/1 verdicts with 2 or 3 runs, most items giving the same rate both ways."""
    rng = np.random.default_rng(seed)
    rows = []
    for g in ("essays", "code", "poems"):
        for i in range(12):
            runs = 2 if i % 3 == 0 else 3
            tilt = i < 3   # a few items prefer the model's own text
            base = 0 if tilt else rng.integers(0, 2)
            for v, model in (("own", "judge-A"), ("other", "judge-B")):
                for s in range(runs):
                    rows.append({"item": f"{g}-{i}", "variant": v, "model": model, "topic": g, "seed": s,
                                 "prefers": int(1 if (v == "own" and tilt) else base)})
    return pl.DataFrame(rows)


def test_a_setting_declared_as_the_attribute_is_accepted_and_named_as_varied_by_design(run, tmp_path):
    from fractions import Fraction

    frame = self_preference_log()
    log = write_log(frame, tmp_path / "self.csv")
    code, out = run("analyze", log, "--metric", "prefers", "--by", "topic")
    assert code == 1 and "model differs between the compared values" in out   # undeclared: confounded
    assert "--setting-is-attribute model" in out
    result = analyze(frame, metric="prefers", by=["topic"], probe=Probe(attribute_settings=["model"]))
    assert result.verdict.attribute_settings == ("model",) and result.verdict.blocks == ()
    # every gap is the difference of two exact means: 0 where the rates agree, never a float residue
    for r in result.main.items.iter_rows(named=True):
        rows = frame.filter(pl.col("item") == r["item"])
        want = (Fraction(int(rows.filter(pl.col("variant") == "own")["prefers"].sum()), r["n_a"])
                - Fraction(int(rows.filter(pl.col("variant") == "other")["prefers"].sum()), r["n_b"]))
        assert r["gap"] == float(want)
    md = render_report(result, format="md")
    assert "model (varied with the attribute, by design)" in md
    assert not re.search(r"\de-\d\d", md)   # no residue such as +4.112e-18
    groups = " ".join(md.split("## Groups")[1].split("##")[0].split())
    assert "too few items" not in groups   # 12 items: enough; the cause is the zero gaps
    assert "too few non-zero gaps" in groups and "3 non-zero of 12 items" in groups
    assert "| 2-3 / 2-3 |" in md   # runs per value: the counts of the group's items, not one median
    code, out = run("analyze", log, "--metric", "prefers", "--by", "topic", "--setting-is-attribute", "model",
                    "--json")
    assert code == 0 and json.loads(out)["verdict"]["attribute_settings"] == ["model"]


# ---------------------------------------------------------------------------- every analysis kind


def factor_log(levels_b=("Emily", "Greg"), gap: float = 1.0, items: int = 10, seed: int = 6) -> pl.DataFrame:
    """Every item run under each style × name, 3 runs per cell; 'formal' scores ``gap`` higher."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        level = rng.normal(5, 1)
        for style in ("formal", "casual"):
            for name in levels_b:
                for s in range(3):
                    rows.append({"item": f"q{i}", "style": style, "name": name, "seed": s,
                                 "x": round(level + gap * (style == "formal") + rng.normal(0, 0.3), 2)})
    return pl.DataFrame(rows)


def _every_kind(tmp_path):
    """Each analysis kind, detected and not, with the heading and JSON key of the section that holds its tests."""
    from tests.engines import analyze as run
    from probestats import analyze_factors
    from probestats import analyze_framing
    from probestats.analyses.framing import demo_rows
    from probestats import analyze_many

    many = make_log(items=8, runs=3, gap=2.0, sd=0.5, seed=7, values=("A", "B", "C"))
    flat = make_log(items=8, runs=3, gap=0.0, sd=0.5, seed=8, values=("A", "B", "C"))
    style = make_log(items=8, runs=5, gap=1.0, sd=0.5, seed=1).with_columns(
        ("g" + (pl.col("item").rank("dense") % 2).cast(pl.String)).alias("group"),
        (pl.col("steps") * 2).alias("doubled"))
    null = make_log(items=8, runs=5, gap=0.0, sd=0.5, seed=2)
    pair = ("Tests", "tests")
    kinds = {name: (result, *pair) for name, result in _analyses(tmp_path).items()}
    kinds.update({
        "by groups": (analyze(style, metric="steps", by=["group"]), *pair),
        "framing beside the pair": (analyze(null, metric="steps"), *pair, analyze_framing(demo_rows())),
        "many values detected": (analyze_many(many, metric="steps"), "Many values", "many"),
        "many values not detected": (analyze_many(flat, metric="steps"), "Many values", "many"),
        "factors detected": (analyze_factors(factor_log(), metric="x", factors=["style", "name"]),
                             "Two factors", "factors"),
        "factors not detected": (analyze_factors(factor_log(gap=0.0), metric="x", factors=["style", "name"]),
                                 "Two factors", "factors"),
        "factorial detected": (analyze_factors(factor_log(("Emily", "Greg", "Jamal")), metric="x",
                                               factors=["style", "name"]), "Factors", "factorial"),
        "factorial not detected": (analyze_factors(factor_log(("Emily", "Greg", "Jamal"), gap=0.0), metric="x",
                                                   factors=["style", "name"]), "Factors", "factorial"),
        "several metrics": (run(style, metric="steps,doubled", mdg=False), "Several metrics", "metrics"),
        "several metrics not detected": (run(null.with_columns((pl.col("steps") + 1).alias("plus")),
                                             metric="steps,plus", mdg=False), "Several metrics", "metrics"),
        "order probe of a judge detected": (order_probe(first=11), "Order probe of a judge", "judge"),
        "order probe of a judge not detected": (order_probe(first=3), "Order probe of a judge", "judge"),
    })
    return kinds


def order_probe(first: int, items: int = 12):
    """A pairwise judge shown each item's answers in both orders; on ``first`` items it picks the first slot
    both times (primacy), on the others the same answer both times (consistent)."""
    from probestats.analyses.judge import analyze_order

    rows = []
    for i in range(items):
        for order, shown_first in (("AB", True), ("BA", False)):
            pick = "[[A]]" if i < first or shown_first else "[[B]]"
            rows.append({"item": f"p{i}", "order": order, "reply": pick})
    return analyze_order(rows, order="order", verdicts=["first=[[A]]", "second=[[B]]"])


def _render(result, fmt: str, framing=None) -> str:
    from probestats.analyses.factors_many_levels import FactorialAnalysis
    from probestats.analyses.metrics import MetricsAnalysis
    from probestats.present.report.factorial import render_factorial_report
    from probestats.present.report.metrics import render_metrics_report
    from probestats.analyses.judge import JudgeResult
    from probestats.present.report.judge import render_judge_report

    if isinstance(result, FactorialAnalysis):
        return render_factorial_report(result, format=fmt)
    if isinstance(result, MetricsAnalysis):
        return render_metrics_report(result, format=fmt)
    if isinstance(result, JudgeResult):
        return render_judge_report(result, format=fmt)
    return render_report(result, format=fmt, beside=Beside(framing=framing))


def _html_sections(page: str) -> dict[str, str]:
    import html

    out = {}
    for sid, body in re.findall(r'<section id="([a-z_]+)"[^>]*>(.*?)</section>', page, flags=re.S):
        out[sid] = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())
    return out


def test_summary_tests_and_finding_agree_for_every_analysis_kind_in_md_html_json(tmp_path):
    seen = set()
    for name, (result, heading, key, *framing) in _every_kind(tmp_path).items():
        framing = framing[0] if framing else None
        verdict = result.verdict
        seen.add(verdict.conclusion)
        line = verdict_line(verdict)
        md_text = _render(result, "md", framing)
        md = _sections(md_text)
        summary, finding = md["Summary"].replace("\\", ""), md["Finding"].replace("\\", "")
        # Tests: the verdict's own line, in the section that holds the tests
        assert line.rstrip(".") in md[heading].replace("\\", ""), name
        # Summary and Finding say the same thing as the verdict, in words of their own
        if verdict.detected:
            assert "than chance would give" in summary and "not more than chance would give" not in summary, name
            assert finding.startswith("The probe detected"), name
        else:
            assert "not more than chance would give" in summary, name
            assert finding.startswith("The probe did not detect"), name
        for found in verdict.found if key in ("factors", "factorial", "metrics", "judge") else ():
            assert found in summary, (name, found)   # the Summary names what was found
        assert "cannot be told from noise" not in summary + finding or verdict.conclusion == "within_noise", name
        assert ("noise check failed" in summary + finding) == verdict.noise.failed, name
        # JSON: the same verdict and the same sentences
        data = json.loads(_render(result, "json", framing))
        assert data["verdict"]["conclusion"] == verdict.conclusion and data["verdict"]["detected"] == verdict.detected
        sentences = data["report"]["sentences"]
        # the Summary holds one paragraph per analysis the report holds (a framing log beside a pair: two)
        assert " ".join(sentences["summary"]) == " ".join(summary.split()), name
        assert len(sentences["summary"]) == 1 + (framing is not None), name
        assert line in sentences[key], name
        assert " ".join(" ".join(sentences["finding"]).split()) == " ".join(finding.split()), name
        assert {"summary", "design", "finding", "limits"} <= set(data["report"]["sections"]), name
        # HTML: the same Summary, Finding and verdict line
        page = _html_sections(_render(result, "html", framing))
        assert page["summary"].removeprefix("Summary ") == " ".join(summary.split()), name
        assert page["finding"].removeprefix("Finding ") == " ".join(finding.split()), name
        assert line.rstrip(".") in " ".join(page.values()), name
        # the terminal words the same line
        assert line.rstrip(".") in " ".join(terminal_text(result).split()), name
    assert seen == {"detected", "not_detected", "within_noise"}


def test_every_report_kind_carries_the_summary_and_the_design_files_facts(tmp_path):
    from probestats.shape.design import Design

    design = Design(attribute="the name on a résumé", values_why="the names signal race and gender",
                    metric_definition="the score from 1 to 10 the model gives", not_fixed=("server-side updates",))
    for name, (result, *_rest) in _every_kind(tmp_path).items():
        from probestats.analyses.factors_many_levels import FactorialAnalysis
        from probestats.analyses.metrics import MetricsAnalysis
        from probestats.present.report.factorial import render_factorial_report
        from probestats.present.report.metrics import render_metrics_report

        for fmt in ("md", "html"):
            from probestats.analyses.judge import JudgeResult
            from probestats.present.report.judge import render_judge_report

            if isinstance(result, JudgeResult):
                text = render_judge_report(result, format=fmt, design=design)
            elif isinstance(result, FactorialAnalysis):
                text = render_factorial_report(result, format=fmt, design=design)
            elif isinstance(result, MetricsAnalysis):
                text = render_metrics_report(result, format=fmt, design=design)
            else:
                text = render_report(result, format=fmt, design=design)
            flat = " ".join(text.split())
            assert "Summary" in flat and "Design" in flat, (name, fmt)
            for fact in ("the name on a résumé", "the names signal race and gender",
                         "the score from 1 to 10 the model gives", "server-side updates"):
                assert fact in flat, (name, fmt, fact)


def test_no_cli_output_of_any_kind_names_python_parameters_or_prints_p_0(tmp_path, run):
    many = write_log(make_log(items=8, runs=3, gap=2.0, sd=0.5, seed=7, values=("A", "B", "C")), tmp_path / "many.csv")
    style = make_log(items=8, runs=5, gap=1.0, sd=0.5, seed=1).with_columns(
        ("g" + (pl.col("item").rank("dense") % 2).cast(pl.String)).alias("group"), (pl.col("steps") * 2).alias("doubled"))
    style = write_log(style, tmp_path / "style.csv")
    two = write_log(factor_log(), tmp_path / "two.csv")
    three = write_log(factor_log(("Emily", "Greg", "Jamal")), tmp_path / "three.csv")
    rows = [{"item": f"p{i}", "order": o, "reply": "[[A]]" if i < 8 or o == "AB" else "[[B]]"}
            for i in range(12) for o in ("AB", "BA")]
    judged = write_log(pl.DataFrame(rows), tmp_path / "judge.csv")
    order = ["--order", "order", "--response", "reply", "--verdict", "first=[[A]]", "--verdict", "second=[[B]]"]
    commands = {
        "many": ["--metric", "steps"], "style": ["--metric", "steps", "--by", "group"],
        "metrics": ["--metric", "steps,doubled"], "two": ["--metric", "x", "--factor", "style", "--factor", "name"],
        "three": ["--metric", "x", "--factor", "style", "--factor", "name"],
    }
    logs = {"many": many, "style": style, "metrics": style, "two": two, "three": three}
    outputs = []
    for name, args in commands.items():
        for extra in ([], ["--json"]):
            code, out = run("analyze", logs[name], *args, *extra)
            assert code == 0, (name, out)
            outputs.append(out)
        for fmt in ("md", "html", "json"):
            target = tmp_path / f"{name}.{fmt}"
            code, out = run("report", logs[name], *args, "-o", target)
            assert code == 0, (name, fmt, out)
            outputs += [out, target.read_text()]
    for extra in ([], ["--json"]):
        code, out = run("judge", judged, *order, *extra)
        assert code == 0, out
        outputs.append(out)
    settings = ["--order", "order", "--response", "reply", "--verdict", "first=[[A]]",
                "--verdict", "second=[[B]]"]   # the report takes the judge's columns as settings
    code, out = run("report", judged, *settings, "-o", tmp_path / "judge.md")
    assert code == 0, out
    outputs += [out, (tmp_path / "judge.md").read_text()]
    text = "\n".join(outputs)
    assert "At alpha 0.05:" in text
    for banned in ("mdg=True", "method=", "p = 0 ", "p = 0\n", "p = 0)", "p = 0;", "p = 0,", "analyze_pair",
                   "a and b to compare"):
        assert banned not in text, banned


def test_a_framing_only_report_words_its_one_verdict_in_every_format():
    # the framing's verdict is decided once in the analysis (the cells whose lean has a corrected p at most
    # alpha); the Summary of md and html, the JSON and the terminal word it, and each cell's own sentence agrees
    from pathlib import Path

    from probestats import analyze_framing
    from probestats.analyses.framing import demo_rows
    from probestats.present.report.framing_only import render_framing_report
    from probestats.present.terminal.framing import print_framing

    samples = Path(__file__).resolve().parent.parent / "sample_logs"
    detected = analyze_framing(samples / "framing_long.csv", targets=samples / "framing_targets.csv")
    few = analyze_framing(demo_rows())   # 3 items: no lean can reach alpha
    assert detected.verdict.detected and not few.verdict.detected
    for result in (detected, few):
        v = result.verdict
        leaning = tuple(" / ".join(str(x) for x in c.by.values()) for c in result.cells
                        if c.bias_p_adjusted is not None and c.bias_p_adjusted <= result.alpha)
        assert v.found == leaning
        line = f"At alpha {result.alpha:g}: {v.statement}."
        md = _sections(render_framing_report(result, format="md"))["Summary"].replace("\\", "")
        assert line in md
        sentences = [s for s in md.split(" - ")[1:]]
        assert sum("no lean was detected" not in s for s in sentences) == len(v.found)
        import html

        page = render_framing_report(result, format="html")
        summary = re.search(r'<section id="framing-summary">(.*?)</section>', page, flags=re.S).group(1)
        assert line in " ".join(html.unescape(re.sub(r"<[^>]+>", " ", summary)).split())
        data = json.loads(render_framing_report(result, format="json"))
        assert data["framing"]["verdict"]["found"] == list(v.found)
        assert data["framing"]["verdict"]["detected"] == v.detected
        buf = io.StringIO()
        print_framing(result, Console(file=buf, width=300))
        assert line in " ".join(buf.getvalue().split())


# ---------------------------------------------------------------------------- a borderline p


def _all_positive_log(items: int) -> list[dict]:
    """``items`` items, 3 runs per value, every item's gap positive and of its own size (no ties among |gaps|)."""
    return [{"item": f"q{i}", "variant": v, "seed": s, "x": float(10 * i + s + (i + 1) * (v == "a"))}
            for i in range(items) for v in ("a", "b") for s in range(3)]


def _exact_sign_flip_p(gaps: list[float]) -> float:
    """The two-sided exact sign-flip p by brute force over every sign pattern (the reference)."""
    import itertools

    observed = abs(sum(gaps))
    sums = [abs(sum(s * g for s, g in zip(signs, gaps))) for signs in itertools.product((1, -1), repeat=len(gaps))]
    return sum(t >= observed - 1e-12 for t in sums) / len(sums)


def test_a_p_within_a_factor_of_two_of_alpha_is_said_to_be_borderline_in_every_output(run, tmp_path):
    from probestats.analyses.verdict import NoiseCheck, decide
    from types import SimpleNamespace as NS

    # the margin, ends included: alpha / 2 to 2 alpha at alpha 0.05, and alpha 0.1 doubles it
    none = NoiseCheck("none", "none", False, reason="none was asked for")
    read = {p: decide(NS(sign_flip=NS(pvalue=p), average_gap=1.0, min_attainable_p=0.001), none, alpha=0.05).borderline
            for p in (0.0249, 0.025, 0.05, 0.1, 0.1001)}
    assert read == {0.0249: False, 0.025: True, 0.05: True, 0.1: True, 0.1001: False}
    assert decide(NS(sign_flip=NS(pvalue=0.15), average_gap=1.0, min_attainable_p=0.001), none, alpha=0.1).borderline
    # six items whose gaps are all positive: p = 2 / 2**6 = 0.03125, borderline; eight: 2 / 2**8, not
    for items, borderline in ((6, True), (8, False)):
        rows = _all_positive_log(items)
        path = write_log(pl.DataFrame(rows), tmp_path / f"probe{items}.csv")
        result = analyze(rows, metric="x", noise="none")
        p = _exact_sign_flip_p([float(i + 1) for i in range(items)])
        assert result.verdict.pvalue == pytest.approx(p, rel=1e-12) and result.verdict.borderline == borderline
        sentence = (f"Borderline: p = {p:.4g} lies within a factor of 2 of alpha = 0.05 (from 0.025 to 0.1), where one "
                    "run more or fewer can move it across alpha; the conclusion holds for these runs but is not firm.")
        code, out = run("analyze", path, "--metric", "x", "--noise", "none", "--json")
        data = json.loads(out)
        assert code == 0 and data["verdict"]["borderline"] == borderline
        caveats = {c["id"]: c for c in data["verdict"]["caveats"]}
        assert ("borderline" in caveats) == borderline
        code, out = run("analyze", path, "--metric", "x", "--noise", "none")
        assert code == 0 and (sentence in " ".join(out.split())) == borderline
        report = " ".join(render_report(result, format="md").split())
        assert (sentence in report) == borderline
        if borderline:
            assert caveats["borderline"]["figures"] == {"p": p, "alpha": 0.05, "factor": 2.0, "low": 0.025, "high": 0.1}
            assert result.verdict.conclusion == "detected"   # the conclusion stands, said to be borderline
