"""Reports that hold several analyses, and reports at real sizes: every verdict in the Summary, long pairwise
tables shown by the pairs that matter with the whole table beside the report."""

from __future__ import annotations

import base64
import html as html_lib
import io
import json
import re

import numpy as np
import polars as pl
import pytest

from probestats import Tests
from probestats import analyze
from probestats.analyses.judge import analyze_order
from probestats.cli import main
from probestats.present.report.document import Beside, render_report
from tests.factories import write_log
from tests.judge_factory import RULES, TAGS, Judge, draw_pairs

REPORT_VERDICTS = ["--verdict", "first=[[A]]", "--verdict", "second=[[B]]",
                   "--verdict", "tie=[[C]]"]


def cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def flat(text: str) -> str:
    return " ".join(text.replace("\\", "").split())


def md_section(text: str, heading: str) -> str:
    return flat(text.split(f"## {heading}", 1)[1].split("\n## ", 1)[0])


def html_section(page: str, sid: str) -> str:
    body = re.search(rf'<section id="{sid}"[^>]*>(.*?)</section>', page, flags=re.S).group(1)
    return " ".join(html_lib.unescape(re.sub(r"<[^>]+>", " ", body)).split())


# ---------------------------------------------------------------------------- a metric and the judge's order probe


def benchmark_log(seed: int = 2) -> pl.DataFrame:
    """A judge benchmark: five judges see 60 items in both answer orders; three prefer the first slot on most
    items (primacy), two are consistent. The metric, a score of each reply, does not depend on the order."""
    rng = np.random.default_rng(seed)
    judges = {"j1": Judge(0.1, 0.97), "j2": Judge(0.15, 0.95), "j3": Judge(0.2, 0.9),
              "j4": Judge(0.95, 0.5), "j5": Judge(0.9, 0.5)}
    rows = []
    for name, judge in judges.items():
        for i, (v1, v2) in enumerate(draw_pairs(rng, 60, judge)):
            level = rng.integers(1, 6)
            for order, v in (("AB", v1), ("BA", v2)):
                rows.append({"judge": name, "item": f"q{i:03d}", "order": order, "variant": order,
                             "reply": f"Final verdict: {TAGS[v]}", "score": int(level + rng.integers(0, 2))})
    return pl.DataFrame(rows)


def test_a_report_of_a_metric_and_a_judges_order_probe_states_both_verdicts(tmp_path, capsys):
    frame = benchmark_log()
    probe = analyze(frame, metric="score", by=["judge"])
    judge = analyze_order(frame, order="order", response="reply", verdicts=RULES, by=["judge"])
    assert not probe.verdict.detected                     # the score does not depend on the order
    assert judge.verdict.detected and set(judge.verdict.found) == {"judge j1", "judge j2", "judge j3"}   # primacy
    path = write_log(frame, tmp_path / "bench.csv")
    args = ["report", path, "--metric", "score", "--by", "judge", "--order", "order",
            "--response", "reply", *REPORT_VERDICTS]
    texts = {}
    for fmt in ("md", "html", "json"):
        code, _, err = cli(capsys, *args, "-o", tmp_path / f"r.{fmt}")
        assert code == 0, err
        texts[fmt] = (tmp_path / f"r.{fmt}").read_text(encoding="utf-8")
    summaries = {"md": md_section(texts["md"], "Summary"),
                 "html": html_section(texts["html"], "summary").removeprefix("Summary "),
                 "json": " ".join(json.loads(texts["json"])["report"]["sentences"]["summary"])}
    for fmt, summary in summaries.items():
        # the metric's verdict ...
        assert "which is not more than chance would give" in summary, fmt
        # ... and the order probe's, with the judges it found, before any section after the Limits
        assert "In this order probe of 5 judges over order (AB and BA), an order effect larger than chance" in summary, fmt
        for name in judge.verdict.found:
            assert name in summary.split("In this order probe", 1)[1], (fmt, name)
    assert summaries["md"] == summaries["html"] == summaries["json"]
    # the Summary comes first, the judge section after the Limits: the verdict is not left there alone
    assert texts["md"].index("## Summary") < texts["md"].index("## Limits") < texts["md"].index("## Order probe")


def test_a_framing_log_beside_a_probe_has_its_own_summary_paragraph():
    from probestats import analyze_framing
    from tests.factories import make_log
    from tests.framing_factory import make_framing_log

    framing = analyze_framing(make_framing_log(seed=3))
    probe = analyze(make_log(items=8, runs=3, gap=0.0, seed=4), metric="steps")
    md = render_report(probe, format="md", beside=Beside(framing=framing))
    summary = md_section(md, "Summary")
    assert summary.count("In this probe") == 1 and "In the dual-framing probe beside it" in summary
    data = json.loads(render_report(probe, format="json", beside=Beside(framing=framing)))
    assert len(data["report"]["sentences"]["summary"]) == 2


# ---------------------------------------------------------------------------- a pairwise table beyond 40 rows


def many_values_log(values: int = 44, items: int = 6, seed: int = 1) -> pl.DataFrame:
    """``values`` names over ``items`` items, one run each; the last four names score 3 higher."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        level = rng.normal(5, 1)
        for k in range(values):
            rows.append({"item": f"i{i}", "variant": f"name{k:02d}",
                         "score": round(level + (3.0 if k >= values - 4 else 0.0) + rng.normal(0, 0.3), 3)})
    return pl.DataFrame(rows)


def test_a_pairwise_table_beyond_40_rows_shows_the_pairs_that_matter_and_writes_the_rest_beside(tmp_path, capsys):
    frame = many_values_log()
    result = analyze(frame, metric="score", reference="name00", tests=Tests(n_resamples=200))
    pairs = result.main.pairwise
    assert len(pairs) == 44 * 43 // 2 == 946
    path = write_log(frame, tmp_path / "names.csv")
    out = tmp_path / "r.md"
    code, _, err = cli(capsys, "report", path, "--metric", "score", "--reference", "name00", "--n-resamples", "200",
                       "-o", out)
    assert code == 0, err
    text = out.read_text(encoding="utf-8")
    block = text.split("### Every pair of values", 1)[1].split("\n### ", 1)[0].split("\n## ", 1)[0]
    rows = [line for line in block.splitlines() if line.startswith("| '")]
    assert len(rows) == 40
    # the pairs shown are those with the smallest corrected p: none left out has a smaller one
    ranked = sorted(pairs, key=lambda g: (g.p_adjusted, g.sign_flip.pvalue))
    shown = {(g.a, g.b) for g in ranked[:40]}
    got = {tuple(re.findall(r"'([^']+)'", r)[:2]) for r in rows}
    assert got == shown
    assert max(g.p_adjusted for g in ranked[:40]) <= min(g.p_adjusted for g in ranked[40:])
    assert "The table shows the 40 of the 946 pairs with the smallest corrected p" in flat(text)
    # the whole table beside the report, every pair with its figures as the JSON gives them
    link = re.search(r"\]\((r_files/pairs\.csv)\)", text).group(1)
    table = pl.read_csv(tmp_path / link)
    assert table.height == 946 and table.columns == ["a", "b", "average_gap", "p", "p_adjusted", "method"]
    data = result.to_dict()["pairwise"]
    assert table["p_adjusted"].to_list() == pytest.approx([g["p_adjusted"] for g in data], rel=1e-12)
    assert table["a"].to_list() == [g["a"] for g in data]
    # HTML: the same 40 rows and the whole table inside the page, as a data link
    page = render_report(result, format="html")
    csv = re.search(r'download="pairs\.csv" href="data:text/csv;charset=utf-8;base64,([^"]+)"', page).group(1)
    assert pl.read_csv(io.BytesIO(base64.b64decode(csv))).height == 946
    small = analyze(many_values_log(values=5), metric="score", reference="name00")
    assert "pairs.csv" not in render_report(small, format="html")   # 10 pairs: all shown, nothing beside
