"""Reports never claim more than a probe can show.

Many generated logs (planted gap 0 and 1, few and many runs, 5 and 8 items, with and
without a same-versus-same log) are rendered as Markdown and HTML. Every sentence is
checked against the words a probe cannot earn; a null result must carry its conditions
and size; a detected gap must name the items that drive it (or say that it is spread over
them) before any explanation. The
figures the report must show are computed here independently: item means with polars,
and the sign-flip p by brute force over all 2**n sign patterns.
"""

from __future__ import annotations

import itertools
import re
from html.parser import HTMLParser

import numpy as np
import polars as pl
import pytest

from tests.engines import analyze   # with its knobs (mdg, within_noise)
from probestats.present.report.context import fmt_gap, fmt_p
from probestats.present.report.document import render_report
from tests.factories import make_log

CLAIMS = re.compile(r"\b(no bias|unbiased|is fair|fair|fairness|proves?|proven|guarantees?)\b", re.I)
DENIAL = re.compile(r"\b(not|cannot|never)\b|does not show", re.I)

CASES = [
    # (items, runs, gap, seed, with a noise log)
    (5, 2, 0.0, 1, False), (5, 20, 1.0, 2, True), (5, 20, 0.0, 3, True),
    (8, 2, 0.0, 4, False), (8, 2, 1.0, 5, True), (8, 20, 0.0, 6, True),
    (8, 20, 1.0, 7, False), (8, 20, 1.0, 8, True), (8, 3, 1.0, 9, False),
    (6, 5, 0.5, 10, True),
]


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "title"):
            self.skip += 1
        if tag in ("p", "li", "dt", "dd", "h1", "h2", "tr", "figcaption", "section"):
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if tag in ("style", "title"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def html_text(html: str) -> str:
    p = _Text()
    p.feed(html)
    return "".join(p.parts)


def md_text(md: str) -> str:
    return re.sub(r"\\(.)", r"\1", md.replace("**", ""))


def sentences(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        out += [s.strip() for s in re.split(r"(?<=[.;:])\s+(?=[A-Z])", line) if s.strip()]
    return out


def brute_force_p(gaps) -> float:
    """Two-sided sign-flip p: share of all 2**n sign patterns at least as far from zero."""
    gaps = np.asarray(gaps, dtype=float)
    observed = abs(gaps.sum())
    hits = 0
    for signs in itertools.product((1.0, -1.0), repeat=len(gaps)):
        if abs(float(np.dot(signs, gaps))) >= observed - 1e-9 * max(observed, np.abs(gaps).max()):
            hits += 1
    return hits / 2 ** len(gaps)


def direct_gaps(frame: pl.DataFrame, a: str, b: str) -> dict[str, float]:
    means = frame.group_by("item", "variant").agg(pl.col("steps").cast(pl.Float64).mean())
    wide = means.pivot(on="variant", index="item", values="steps")
    return dict(zip(wide["item"].to_list(), (wide[a] - wide[b]).to_list()))


@pytest.fixture(scope="module", params=CASES, ids=lambda c: f"{c[0]}items-{c[1]}runs-gap{c[2]}-noise{c[4]}")
def case(request):
    items, runs, gap, seed, with_noise = request.param
    frame = make_log(items=items, runs=runs, gap=gap, seed=seed)
    noise = make_log(items=items, runs=runs, gap=0.0, seed=seed + 100, values=("formal", "formal again")) \
        if with_noise else None
    result = analyze(frame, metric="steps", noise=noise)
    gaps = direct_gaps(frame, "formal", "casual")
    texts = {"md": md_text(render_report(result, format="md")),
             "html": html_text(render_report(result, format="html"))}
    return {"items": items, "runs": runs, "frame": frame, "noise": noise, "result": result,
            "gaps": gaps, "p": brute_force_p(list(gaps.values())), "texts": texts}


def test_no_sentence_claims_more_than_the_probe_can_show(case):
    for fmt, text in case["texts"].items():
        for sentence in sentences(text):
            if CLAIMS.search(sentence):
                assert DENIAL.search(sentence), f"{fmt}: {sentence!r}"


def test_figures_agree_with_an_independent_computation(case):
    result = case["result"]
    assert result.main.sign_flip.pvalue == pytest.approx(case["p"], rel=1e-12)
    average = sum(case["gaps"].values()) / len(case["gaps"])
    for text in case["texts"].values():
        assert f"p = {fmt_p(case['p'], 0.05)}" in text
        assert fmt_gap(average) in text


def finding_paragraph(text: str) -> str:
    start = text.index("Finding\n")
    end = text.index("Limits\n", start)
    return text[start:end]


def test_a_null_result_carries_its_conditions_and_size(case):
    if case["p"] < 0.05:
        pytest.skip("a gap was detected in this log")
    average = sum(case["gaps"].values()) / len(case["gaps"])
    for fmt, text in case["texts"].items():
        para = finding_paragraph(text)
        assert "did not detect a gap larger than chance" in para, fmt
        assert f"with these {case['items']} items" in para
        assert "the values 'formal' and 'casual'" in para
        assert "the metric steps" in para and "model stand-in-v1" in para and "temperature 0.8" in para
        assert f"{case['runs']} runs per value" in para
        assert f"The average gap was {fmt_gap(average)} steps" in para
        assert f"p = {fmt_p(case['p'], 0.05)}" in para
        assert "This does not show that the system is unbiased" in para
        if case["noise"] is not None:
            noise_gaps = direct_gaps(case["noise"], "formal", "formal again")
            noise_avg = sum(noise_gaps.values()) / len(noise_gaps)
            assert f"The same-versus-same gap was {fmt_gap(noise_avg)} steps" in para
            result = case["result"]
            if result.main.min_attainable_p > 0.05:
                assert "could never reach significance" in para
            else:
                assert result.mdg is not None
                assert f"minimum detectable gap of this design is about {result.mdg:.3g} steps" in para
                # with its range over plausible same-versus-same logs of the noise log's size
                low, high = result.mdg_range
                assert low <= result.mdg <= high
                assert f"(from about {low:.3g} to {high:.3g} over plausible same-versus-same logs" in para
                assert f"one of about {result.mdg_range_runs:,} runs would halve the noise log's part of that range" in para
        else:
            assert "No same-versus-same log was given" in para


def test_a_detected_gap_names_its_items_before_any_explanation(case):
    if case["p"] >= 0.05:
        pytest.skip("no gap was detected in this log")
    gaps = case["gaps"]
    average = sum(gaps.values()) / len(gaps)
    same = sorted((g for g in gaps.items() if g[1] * average > 0), key=lambda t: -abs(t[1]))
    total = sum(abs(g) for _, g in same)
    drivers, acc = [], 0.0
    for item, gap in same:                     # the largest, until more than half of the sum
        drivers.append(item)
        acc += abs(gap)
        if acc > total / 2:
            break
    # drivers are named only when they stand out: at most 10, no item left out as large as the
    # smallest of them, and on average at least 1.5 times the size of the other items' gaps
    rest = [abs(g) for _, g in same[len(drivers):]]
    top = [abs(gaps[i]) for i in drivers]
    stand_out = (len(drivers) <= 10 and (not rest and len(drivers) == 1 or rest and rest[0] < top[-1]
                                         and sum(top) / len(top) >= 1.5 * sum(rest) / len(rest)))
    for fmt, text in case["texts"].items():
        para = finding_paragraph(text)
        if not stand_out:
            assert "The items that drive it:" not in para
            named = para.index(f"No item stands out: the gap is spread over {len(same)} items")
            assert para.index("not why") > named
            continue
        named = para.index("The items that drive it:")
        named_end = para.index("which make up", named)
        names = para[named:named_end]
        for item in drivers:
            assert f"{item} ({fmt_gap(gaps[item])})" in names, (fmt, item, names)
        assert para.index("not why") > named
        assert para.index("The probe detected a gap larger than chance") < named


def test_five_items_can_never_reach_significance(case):
    if case["items"] != 5:
        pytest.skip("only for 5 items")
    for text in case["texts"].values():
        assert "this design could never reach significance" in text
        # the MDG sentence itself says there is none, and why (not merely that an MDG section exists)
        assert re.search(r"Minimum detectable gap: none\. With 5 items the smallest attainable p is [0-9.]+, "
                         r"above alpha 0\.05", text)


def test_limits_are_always_there(case):
    for text in case["texts"].values():
        limits = text[text.index("Limits\n"):]
        for label in ("Held fixed, as the log shows", "Could not be held fixed", "Size",
                      "What the metric cannot see", "Attributes not tested"):
            assert label in limits
        assert f"{case['items']} items and {case['runs']} runs per value" in limits
        assert "[to fill in: which attributes were not tested]" in limits


def test_the_checker_itself_catches_overclaims():
    bad = "The probe proves the model is fair. Replies were unbiased across styles."
    flagged = [s for s in sentences(bad) if CLAIMS.search(s) and not DENIAL.search(s)]
    assert len(flagged) == 2
    ok = "This does not show that the system is unbiased."
    assert not [s for s in sentences(ok) if CLAIMS.search(s) and not DENIAL.search(s)]


def test_one_sided_mdg_names_the_direction_it_was_computed_for():
    # a positive planted gap tested with alternative="less": the test looks only for 'formal' below 'casual',
    # so the design's minimum detectable gap is a gap that way, and the report must not present it as a size
    # for any gap (the observed gap, in the other direction, is larger than it)
    frame = make_log(items=8, runs=10, gap=1.0, seed=7)
    noise = make_log(items=8, runs=10, gap=0.0, seed=107, values=("formal", "formal again"))
    result = analyze(frame, metric="steps", noise=noise, alternative="less")
    assert not result.detected and result.mdg is not None and result.main.average_gap > result.mdg
    md = render_report(result, format="md")
    summary = md.split("## Summary", 1)[1].split("##", 1)[0]
    finding = md.split("## Finding", 1)[1].split("##", 1)[0]
    assert "steps with 'formal' below 'casual'." in summary
    assert "steps with 'formal' below 'casual' (80% power" in finding


# ---------------------------------------------------------------- what a null result could miss

# six items whose gaps are +1, +1, +1, -1, -1, +1 (every run of a cell alike but for seed parity):
# average gap 2/6; the two-sided sign-flip p counts the sign patterns with |sum| >= 2, all but the
# C(6, 3) = 20 with sum 0: 44/64 = 0.6875 (written out by hand)
NULL_ROWS = [{"item": i, "variant": v, "seed": s, "steps": 4 + (g if v == "a" else 0) + s % 2}
             for i, g in enumerate((1, 1, 1, -1, -1, 1)) for v in ("a", "b") for s in range(1, 5)]
NULL_START = ("In this probe, steps under 'a' and under 'b' differed on average by +0.3333 across 6 items with 4 "
              "runs per value, which is not more than chance would give (p = 0.6875); this does not show that there "
              "is no difference, only that this probe could not see one")


def _section(md: str, name: str) -> str:
    return " ".join(md.split(f"## {name}\n")[1].split("\n## ")[0].split()).replace("\\", "")


def test_a_null_summary_with_the_within_log_check_says_only_the_gap_it_could_miss_needs_a_noise_log(tmp_path, capsys):
    result = analyze(NULL_ROWS, metric="steps")
    assert result.verdict.noise.source == "within" and result.verdict.noise.valid and result.mdg is None
    md = render_report(result, format="md")
    assert _section(md, "Summary") == (
        NULL_START + " (a same-versus-same check within its own log measured the noise, but the size of gap it could "
        "miss needs a noise log, given with noise=).")
    assert _section(md, "Power: the smallest gap this design could detect") == (
        "The minimum detectable gap needs the noise per run, measured from a same-versus-same log given with noise=; "
        "the check within the probe's own log does not stand in for it, so the size of gap this probe could have "
        "missed is unknown.")
    # the command line names its own option
    from probestats.cli import main

    log = tmp_path / "null.csv"
    pl.DataFrame(NULL_ROWS).write_csv(log)
    assert main(["report", str(log), "--metric", "steps", "--a", "a", "--b", "b", "-o", str(tmp_path / "r.md")]) == 0
    capsys.readouterr()
    summary = _section((tmp_path / "r.md").read_text(encoding="utf-8"), "Summary")
    assert summary.endswith("but the size of gap it could miss needs a noise log, given with --noise).")


def test_a_null_summary_without_any_noise_check_says_the_gap_it_could_miss_is_unknown():
    for result in (analyze(NULL_ROWS, metric="steps", within_noise=False), analyze(NULL_ROWS, metric="steps", noise="none")):
        assert result.verdict.noise.source == "none" and not result.verdict.noise.valid
        md = render_report(result, format="md")
        assert _section(md, "Summary") == (
            NULL_START + " (without a same-versus-same log, the size of gap it could miss is unknown).")
        assert _section(md, "Power: the smallest gap this design could detect") == (
            "The minimum detectable gap needs the noise per run, measured from a same-versus-same log given with "
            "noise=; without it, the size of gap this probe could have missed is unknown.")


def test_a_null_summary_with_a_noise_log_but_no_mdg_says_it_was_not_computed():
    noise = [dict(r, variant="a" if r["seed"] <= 2 else "b", seed=r["seed"]) for r in NULL_ROWS if r["variant"] == "b"]
    result = analyze(NULL_ROWS, metric="steps", noise=noise, mdg=False)
    assert result.verdict.noise.source == "log" and result.mdg is None
    assert _section(render_report(result, format="md"), "Summary") == (
        NULL_START + " (the size of gap it could miss was not computed for this analysis).")


def test_a_null_finding_words_the_noise_comparison_from_the_gap_and_noise_measured():
    # five items whose gaps go both ways (+1.2, +1.0, -0.4, +0.9, -0.3 on average) while re-asking barely moves
    # the metric: the gap is many times the within-log noise, and only not larger than chance across items
    import re

    from probestats import analyze
    from probestats.present.report.document import render_report

    shifts = [1.2, 1.0, -0.4, 0.9, -0.3]
    rows = [{"item": f"q{i}", "variant": v, "seed": s,
             "x": 5.0 + (shifts[i] if v == "a" else 0.0) + (0.01 if s % 2 else -0.01)}
            for i in range(5) for v in ("a", "b") for s in range(4)]
    result = analyze(rows, metric="x")
    assert not result.verdict.detected
    text = " ".join(render_report(result, format="md").split())
    start = text.index("The probe did not detect")
    para = text[start:start + 3000]
    assert para.startswith("The probe did not detect a gap larger than chance")
    assert "larger than its noise" not in text
    gap, noise = abs(result.main.average_gap), abs(result.noise.average_gap)
    ratio = gap / noise if noise else None
    if ratio is None:
        assert "The same-versus-same gap was 0, so the average gap is larger than the noise of re-asking" in para
    else:
        said = re.search(r"In size the average gap is ([0-9.,]+) times the same-versus-same gap", para)
        assert said and said.group(1) == (f"{ratio:,.0f}" if ratio >= 10 else f"{ratio:.2g}")
        assert ("larger than the noise of re-asking" in para) == (ratio >= 2)
