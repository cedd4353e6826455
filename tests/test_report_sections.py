"""The report renders whatever analysis the options produce: --by groups, many values, two factors,
a judge's scale, before and after, --where and --derive; rendering reads results only; the design,
finding and item plot read right on real logs."""

from __future__ import annotations

import itertools
import json
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.engines import analyze   # with its knobs (mdg, within_noise)
from probestats.analyses.compare import compare_runs
from probestats.jobs.engines import analyze_judge
from probestats import analyze_factors
from probestats import analyze_many
from probestats.analyses.plan import with_design_power
from probestats.cli import main
from probestats.present.plots.items import item_gaps
from probestats.present.report.context import fmt_gap, fmt_p, report_context
from probestats.present.report.document import render_report
from tests.factories import make_log, write_log

SCRIPT, STARS = "<script>alert(1)</script>", "*x*|y"


# ---------------------------------------------------------------- helpers


class Page(HTMLParser):
    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags, self.text, self.h2 = [], [], []
        self._in_h2 = False
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_h2 = tag == "h2"

    def handle_endtag(self, tag):
        if tag == "h2":
            self._in_h2 = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_h2:
            self.h2.append(data)


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


def brute_sign_flip(gaps) -> float:
    """Two-sided sign-flip p by enumerating every sign pattern (ties count, as the package says)."""
    gaps = [float(g) for g in gaps]
    observed = abs(sum(gaps))
    hits = sum(1 for signs in itertools.product((1, -1), repeat=len(gaps))
               if abs(sum(s * g for s, g in zip(signs, gaps))) >= observed - 1e-9 * max(1.0, observed))
    return hits / 2 ** len(gaps)


def holm(pvalues):
    """Holm's step-down adjustment, written out: sort, multiply by (m - rank), running maximum, cap at 1."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        out[i] = running
    return out


def md_headings(text):
    return re.findall(r"^## (.+)$", text, flags=re.M)


def item_names(n, hostile=True):
    names = [str(i) for i in range(n)]
    if hostile:
        names[0], names[1] = SCRIPT, STARS
    return names


def renamed(frame: pl.DataFrame, names) -> pl.DataFrame:
    mapping = {str(i): name for i, name in enumerate(names)}
    return frame.with_columns(pl.col("item").replace_strict(mapping, return_dtype=pl.String))


def by_log():
    """Two models, eight items each; hostile item names."""
    m1 = make_log(items=8, runs=4, gap=1.5, seed=11, model="m1")
    m2 = make_log(items=8, runs=4, gap=0.0, seed=12, model="m2")
    return pl.concat([renamed(m1, item_names(8)), renamed(m2, item_names(8))])


def many_log(selection=False):
    frame = make_log(items=8, runs=4, gap=1.0, seed=21, values=("A", "B", "C"))
    if selection:  # a 0/1 metric: selected when the run scores above the item's middle
        frame = frame.with_columns((pl.col("steps") >= 6).cast(pl.Int64).alias("steps"))
    return renamed(frame, item_names(8))


def factor_log():
    rows = []
    for i, item in enumerate(item_names(6)):
        for style in ("formal", "casual"):
            for name in ("Emily", "Greg"):
                for seed in (1, 2, 3):
                    rows.append({"item": item, "style": style, "name": name, "seed": seed,
                                 "x": float((style == "formal") * (1 + (name == "Greg")) + 0.1 * i + 0.01 * seed)})
    return pl.DataFrame(rows)


def judge_log():
    """A judge on a 1-4 scale: the plain text of items 0-2 is at the top in every run (ceiling)."""
    rows = []
    for i, item in enumerate(item_names(8)):
        for v in ("padded", "plain"):
            for c in ("clarity", "tone"):
                for seed in (1, 2):
                    level = 4 if (i < 3 and v == "plain") else min(4, 2 + (v == "padded") + (i % 2) + (seed == 2))
                    rows.append({"item": item, "variant": v, "criterion": c, "seed": seed, "level": level})
    return pl.DataFrame(rows)


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("logs")
    return {
        "by": write_log(by_log(), folder / "by.csv"),
        "many": write_log(many_log(), folder / "many.csv"),
        "selection": write_log(many_log(selection=True), folder / "selection.csv"),
        "factor": write_log(factor_log(), folder / "factor.csv"),
        "judge": write_log(judge_log(), folder / "judge.csv"),
        "before": write_log(renamed(make_log(items=8, runs=4, gap=2.0, seed=31), item_names(8)),
                            folder / "before.csv"),
        "after": write_log(renamed(make_log(items=8, runs=4, gap=0.0, seed=32), item_names(8)),
                           folder / "after.csv"),
        "noise": write_log(make_log(items=8, runs=4, gap=0.0, seed=33, values=("formal", "formal again")),
                           folder / "noise.csv"),
        "plain": write_log(renamed(make_log(items=8, runs=4, gap=1.0, seed=34), item_names(8)),
                           folder / "plain.csv"),
    }


# What each option combination must show: its own section heading and the name of its test.
CASES = {
    "by": (["--by", "model"], "Groups: model", ["exact sign-flip test", "Holm"]),
    "reference": (["--reference", "B"], "Many values: steps across 3 values",
                  ["within-item permutation test", "exact sign-flip test", "Holm"]),
    # one value against a group of two: the pair's test is the within-item permutation of the value labels
    "group": (["--group", "first=A", "--group", "rest=B,C"], "Many values: steps across 2 values",
              ["within-item permutation test", "exact within-item permutation of the value labels"]),
    "factor": (["--factor", "style", "--factor", "name"], "Two factors: style × name",
               ["exact sign-flip test on the per-item effects", "Holm"]),
    "scale": (["--a", "padded", "--b", "plain", "--scale", "1:4"], "Judge's scale: ceiling and floor cells",
              ["Declared scale 1:4", "at the ceiling"]),
    "where": (["--where", "seed <= 3"], "Tests", ["Sign-flip test", "Rows analyzed: only those where seed <= 3"]),
    "derive": (["--derive", "double = steps * 2"], "Tests", ["Sign-flip test", "Derived column: double = steps * 2"]),
    "before": (["--noise", "NOISE", "--before", "BEFORE"], "Mitigation: the probe before and after",
               ["sign-flip test", "per-item changes in gap"]),
}
LOG_OF = {"by": "by", "reference": "many", "group": "many", "factor": "factor", "scale": "judge", "where": "plain",
          "derive": "plain", "before": "after"}
METRIC_OF = {"factor": "x", "scale": "level", "derive": "double"}


def _report_args(args):
    """analyze's options as report takes them: the same flags."""
    return list(args)


def _args(case, logs):
    options, _, _ = CASES[case]
    options = [logs["noise"] if o == "NOISE" else logs["before"] if o == "BEFORE" else o for o in options]
    return [logs[LOG_OF[case]], "--metric", METRIC_OF.get(case, "steps"), *options]


@pytest.fixture(scope="module")
def reports(logs, tmp_path_factory):
    """``reports(case, fmt)``: the text of ``report``'s output for the case, written once per module.

    The section, escaping and honesty tests read the same reports; each is made by the command line
    (its exit code and error checked) the first time a test asks for it.
    """
    made = {}

    def report(case, fmt):
        if (case, fmt) not in made:
            out = tmp_path_factory.mktemp(f"{case}_{fmt}") / f"r.{fmt}"
            code = main([str(a) for a in ["report", *_report_args(_args(case, logs)), "-o", out]])
            assert code == 0, (case, fmt)
            made[case, fmt] = out.read_text(encoding="utf-8")
        return made[case, fmt]

    return report


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_each_analysis_gets_its_section_with_its_test_named(case, fmt, reports):
    heading, tests = CASES[case][1], CASES[case][2]
    text = reports(case, fmt)
    if fmt == "json":
        data = json.loads(text)
        words = " ".join(s for part in data["report"]["sentences"].values() for s in part)
        for name in tests:
            assert name in words, (case, name)
        return
    if fmt == "md":
        assert heading in md_headings(text), md_headings(text)
        plain = re.sub(r"\\(.)", r"\1", text)
    else:
        page = Page(text)
        assert heading.replace("'", "’") in [h.strip() for h in page.h2], page.h2
        plain = "".join(page.text)
        assert not [t for t, _ in page.tags if t in ("script", "link", "iframe")]
        assert all(a["src"].startswith("data:") for t, a in page.tags if t == "img")
    for name in tests:
        assert name in plain, (case, name)


@pytest.mark.parametrize("case", ["by", "reference", "group", "factor", "scale", "before", "where", "derive"])
def test_log_text_is_escaped_in_every_new_section(case, reports):
    for fmt in ("md", "html"):
        text = reports(case, fmt)
        if fmt == "html":
            page = Page(text)
            assert "script" not in [t for t, _ in page.tags]
            assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
            shown = "".join(page.text)
            assert SCRIPT in shown and STARS in shown   # the reader sees the names as written
        else:
            assert "<script>" not in text and not re.search(r"(?<!\\)<", text)
            assert r"\<script\>alert(1)\</script\>" in text
            assert r"\*x\*\|y" in text
            # no unescaped pipe can split a table row: every row has as many cells as its header
            for block in re.findall(r"(?:^\|.*\n)+", text, flags=re.M):
                rows = block.strip("\n").split("\n")
                cells = [len(re.findall(r"(?<!\\)\|", r)) for r in rows]
                assert len(set(cells)) == 1, block


def test_sections_compose_and_refuse_what_the_analysis_has_not(logs, tmp_path, capsys):
    out = tmp_path / "r.md"
    code, _, err = run_cli(capsys, "report", logs["by"], "--metric", "steps", "--by", "model", "--section", "groups",
                           "--section", "finding", "-o", out)
    assert code == 0, err
    assert md_headings(out.read_text()) == ["Groups: model", "Finding"]
    code, _, err = run_cli(capsys, "report", logs["plain"], "--metric", "steps", "--section", "groups", "-o", out)
    assert (code, err) == (1, "Error: --section groups: not in this report: there are no --by groups; add --by COL\n")
    code, _, err = run_cli(capsys, "report", logs["many"], "--metric", "steps", "--set", "not_tested=dialect", "-o", out)
    assert code == 0, err
    text = out.read_text()
    # every report kind carries the Summary, the design facts and a Finding, as the pair report does
    assert md_headings(text) == ["Summary", "Design", "Many values: steps across 3 values", "Finding", "Limits"]
    assert "**Attributes not tested:** dialect" in text
    assert r"**What the metric cannot see:** **\[to fill in: what the metric steps cannot see\]**" in text
    code, _, err = run_cli(capsys, "report", logs["many"], "--metric", "steps", "--section", "table", "-o", out)
    assert code == 1 and err.startswith("Error: --section table: not in this report") and err.count("\n") == 1
    code, _, err = run_cli(capsys, "report", logs["factor"], "--metric", "x", "--factor", "style", "--factor", "name",
                           "--before", logs["factor"], "-o", out)
    assert code == 1 and err.startswith("Error: --before compares two runs of a two-value probe")


def test_report_chooses_the_analysis_as_analyze_does(logs, tmp_path, capsys):
    """The numbers in report --json are those of analyze --json with the same options."""
    for case in ("by", "reference", "group", "factor", "scale", "where", "derive"):
        args = [a for a in _args(case, logs)]
        code, printed, err = run_cli(capsys, "analyze", *args, "--json")
        assert code == 0, err
        out = tmp_path / "r.json"
        code, _, err = run_cli(capsys, "report", *_report_args(args), "-o", out)
        assert code == 0, err
        analyzed, reported = json.loads(printed), json.loads(out.read_text())
        reported.pop("report")
        assert reported == analyzed, case


# ---------------------------------------------------------------- numbers in the sections


def test_group_rows_match_brute_force_and_holm_by_hand():
    frame = by_log()
    result = analyze(frame, metric="steps", by=["model"], mdg=False)
    text = render_report(result, format="md", sections=["groups"])
    raw = []
    for model in ("m1", "m2"):
        sub = frame.filter(pl.col("model") == model)
        means = sub.group_by("item", "variant").agg(pl.col("steps").mean())
        wide = means.pivot(on="variant", index="item", values="steps")
        gaps = (wide["formal"] - wide["casual"]).to_list()
        raw.append((model, sum(gaps) / len(gaps), brute_sign_flip(gaps)))
    adjusted = holm([p for _, _, p in raw])
    for (model, average, p), p_adj in zip(raw, adjusted):
        row = next(line for line in text.splitlines() if line.startswith(f"| {model} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[3] == fmt_gap(average) and cells[4] == fmt_p(p, 0.05), row
        assert cells[5].startswith(fmt_p(p_adj, 0.05)), row


def test_many_values_selection_rates_and_impact_ratios_by_hand():
    frame = many_log(selection=True)
    assert "selection rate" not in render_report(analyze_many(frame, metric="steps"), format="md")   # not said
    result = analyze_many(frame, metric="steps", selection=True)
    text = render_report(result, format="md")
    # per value: the mean over items of each item's share of selected runs; ratio = rate / highest rate
    per_item = frame.group_by("item", "variant").agg(pl.col("steps").mean())
    rates = {v: per_item.filter(pl.col("variant") == v)["steps"].mean() for v in ("A", "B", "C")}
    top = max(rates.values())
    for v, rate in rates.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| {v} |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert float(cells[1]) == pytest.approx(rate, abs=5e-4)
        # value, rate, its interval, gap, its interval, p, corrected p, impact ratio, SD of runs
        assert float(cells[7].rstrip(" \\*")) == pytest.approx(rate / top, abs=5e-4)
        assert cells[7].endswith(r"\*") == (rate / top < 0.8)
    assert "selection rate" in text and "four-fifths reference" in text and "not a finding of discrimination" in text


def test_compare_section_change_p_matches_brute_force(logs):
    comparison = compare_runs(str(logs["before"]), str(logs["after"]), metric="steps")
    text = render_report(comparison, format="md", sections=["compare"])
    gaps = {}
    for name in ("before", "after"):
        f = pl.read_csv(logs[name], schema_overrides={"item": pl.String})
        w = f.group_by("item", "variant").agg(pl.col("steps").mean()).pivot(on="variant", index="item",
                                                                            values="steps")
        gaps[name] = dict(zip(w["item"], (w["formal"] - w["casual"]).to_list()))
    change = [gaps["after"][i] - gaps["before"][i] for i in gaps["before"]]
    row = next(line for line in text.splitlines() if line.startswith("| change (after − before) |"))
    assert row.split("|")[-2].strip() == fmt_p(brute_sign_flip(change), 0.05)
    assert md_headings(text) == ["Mitigation: the probe before and after"]


def test_ceiling_cells_are_the_items_whose_baseline_is_at_the_top():
    result = analyze_judge(judge_log(), metric="level", a="padded", b="plain", scale="1:4")
    cells = {(c["by"]["criterion"], c["item"]) for c in result.scale.cells}
    # items 0-2 score 4 under 'plain' in every run, for both criteria; no other item does
    assert cells == {(c, i) for c in ("clarity", "tone") for i in item_names(8)[:3]}
    assert {c["end"] for c in result.scale.cells} == {"ceiling"}
    html = render_report(result, format="html", sections=["ceilings"])
    assert "6 of 16 cells at the ceiling" in "".join(Page(html).text)


# ---------------------------------------------------------------- honesty


FORBIDDEN = re.compile(r"\b(no bias|fair|fairness|proves?|proven)\b", re.I)


@pytest.mark.parametrize("case", list(CASES))
def test_no_new_section_claims_a_system_is_unbiased(case, reports):
    text = re.sub(r"\\(.)", r"\1", reports(case, "md"))
    assert not FORBIDDEN.search(text), FORBIDDEN.search(text)
    for sentence in re.split(r"(?<=[.;])\s", text):
        if "unbiased" in sentence:
            assert "does not show" in sentence, sentence


def test_a_null_many_values_result_states_its_conditions_and_size():
    frame = make_log(items=6, runs=3, gap=0.0, seed=5, values=("A", "B", "C"), sd=2.0)
    result = analyze_many(frame, metric="steps")
    assert not result.detected
    # the conclusion, with its conditions and size, is the Finding's (the many-values section holds the tests)
    text = " ".join(json.loads(render_report(result, format="json"))["report"]["sentences"]["finding"])
    assert "did not detect a difference between the values larger than chance, with these 6 items" in text
    assert "3 runs per item and value" in text and "omnibus p = " in text
    assert "the largest gap against 'A' was" in text
    assert "This does not show that the system is unbiased" in text


# ---------------------------------------------------------------- rendering reads results only


@pytest.fixture()
def no_reading_or_simulating(monkeypatch):
    """Make every log reader and every simulation raise, wherever probestats imported it."""
    def refuse(*args, **kwargs):
        raise AssertionError("rendering read a log or ran a simulation")

    names = ("read_log", "plan_probe", "noise_model", "mdg_for_design", "power_sign_flip", "design_power",
             "validate", "apply")
    for module in [m for n, m in sys.modules.items() if n.startswith("probestats") and m is not None]:
        for name in names:
            if callable(getattr(module, name, None)):
                monkeypatch.setattr(module, name, refuse)
    for name in ("read_csv", "scan_csv", "read_parquet", "scan_parquet", "read_ndjson", "scan_ndjson",
                 "read_json", "read_excel", "read_ods"):
        monkeypatch.setattr(pl, name, refuse)


def test_render_report_reads_no_log_and_runs_no_simulation(logs, tmp_path, request):
    analyses = {
        "pair": with_design_power(analyze(str(logs["plain"]), metric="steps", noise=str(logs["noise"]),
                                          by=["model"]), 1.0),
        "many": analyze_many(str(logs["many"]), metric="steps"),
        "factors": analyze_factors(str(logs["factor"]), metric="x", factors=["style", "name"]),
        "judge": analyze_judge(str(logs["judge"]), metric="level", a="padded", b="plain", scale="1:4"),
        "compare": compare_runs(str(logs["before"]), str(logs["after"]), metric="steps"),
    }
    assert analyses["pair"].power is not None
    request.getfixturevalue("no_reading_or_simulating")
    import probestats.analyses.plan as plan
    import probestats.io.read as read

    for refused in (lambda: read.read_log(str(logs["plain"])), lambda: plan.noise_model(1.0), lambda: pl.read_csv("x")):
        with pytest.raises(AssertionError, match="rendering read a log"):
            refused()
    for name, result in analyses.items():
        for fmt in ("md", "html", "json"):
            assets = tmp_path / f"{name}_files" if fmt == "md" else None
            text = render_report(result, format=fmt, assets_dir=assets)
            assert text
        if name == "pair":
            assert (tmp_path / "pair_files" / "power.png").read_bytes()[:4] == b"\x89PNG"


def test_the_power_plot_comes_only_with_the_analysis_step(logs):
    bare = analyze(str(logs["plain"]), metric="steps", noise=str(logs["noise"]))
    assert "data:image/png" in render_report(bare, format="html", sections=["noise"])   # the item plot
    assert "Power against runs per value" not in render_report(bare, format="html", sections=["power"])
    powered = with_design_power(bare, 1.0)
    page = render_report(powered, format="html", sections=["power"])
    assert "Power against runs per value" in page and "at a true average gap of 1 steps" in page
    # the caption names how the gap acts, as the plan's terminal and JSON do
    chosen = powered.power.plan.mechanisms
    assert f"How the gap acts: {chosen.candidates[0]}" in page and chosen.candidates[0] in ("level", "rate", "scale")
    # the curve the figure draws is the one simulated in the analysis step
    assert powered.power.gap == 1.0 and powered.power.plan.gap == 1.0 and powered.power.sims == 300


# ---------------------------------------------------------------- reading right on real logs


def test_varied_lists_settings_and_groups_never_outcome_columns():
    frame = make_log(items=6, runs=3, seed=2)
    frame = frame.with_columns(
        pl.when(pl.col("seed") == 1).then(pl.lit("m-2")).otherwise(pl.col("model")).alias("model"),
        (pl.col("steps") * 3 + pl.col("seed")).alias("clarity_score"),       # a sub-score: varies within cells
        pl.when(pl.col("steps") > 5).then(pl.lit("pass")).otherwise(pl.lit("fail")).alias("verdict"),
        pl.col("item").map_elements(lambda i: "lang" + str(int(i) % 2), return_dtype=pl.String).alias("language"),
        pl.lit("rubric-v2").alias("rubric"),
    )
    result = analyze(frame, metric="steps", by=["language"], mdg=False)
    design = report_context(result)["design"]
    assert design["varied_from_log"] == [("model", 2), ("language", 2)]
    assert ("rubric", "rubric-v2") in design["fixed_from_log"]
    for fmt in ("md", "html"):
        text = render_report(result, format=fmt, sections=["design", "limits"])
        varied = next(line for line in text.splitlines() if "Varied" in line)
        assert "model (2 values)" in varied and "language (2 values)" in varied
        assert "clarity" not in varied and "verdict" not in varied
        assert "clarity_score" not in text.replace("\\_", "_").split("Limits")[-1]


def test_a_gap_spread_over_tied_items_names_no_drivers():
    # 18 items, every one 1 lower under 'formal' in every run: all tied at -1 (the runs differ, so no arm is constant)
    rows = [{"item": str(i), "variant": v, "seed": s, "steps": 5 + s - (v == "formal")}
            for i in range(18) for v in ("formal", "casual") for s in (1, 2)]
    result = analyze(rows, metric="steps", mdg=False)
    assert result.detected
    ctx = report_context(result)
    finding = " ".join(ctx["finding"]["sentences"])
    assert "The items that drive it" not in finding
    assert "No item stands out: the gap is spread over 18 items (gaps of size 1 in that direction)" in finding
    assert ctx["finding"]["drivers"] == []
    assert "spread over 18 items with no item standing out" in ctx["summary"]


def test_items_that_stand_out_are_named():
    # 12 items: items 3 and 7 move by 4, the others by 0 or 1 half the time: 3 and 7 carry the gap
    gaps = {str(i): 4 if i in (3, 7) else (1 if i % 2 else 0.5) for i in range(12)}
    rows = [{"item": i, "variant": v, "seed": s, "steps": 5 + (g if v == "formal" else 0)}
            for i, g in gaps.items() for v in ("formal", "casual") for s in (1, 2)]
    result = analyze(rows, metric="steps", mdg=False)
    finding = " ".join(report_context(result)["finding"]["sentences"])
    # the other items: 1, 5, 9, 11 move by 1 and 0, 2, 4, 6, 8, 10 by 0.5, so the gaps sum to
    # 2*4 + 4*1 + 6*0.5 = 15; 4 + 4 = 8 > 7.5 and 8 / 15 = 53%; their mean 4 is 5.7 times the others' 0.7
    assert "The items that drive it: 3 (+4) and 7 (+4), which make up 53%" in finding


def test_item_plot_stays_readable_at_ninety_items():
    gaps = {f"q{i}": (i - 45) / 10 for i in range(90)}
    rows = [{"item": i, "variant": v, "seed": s, "steps": 10 + (g if v == "a" else 0)}
            for i, g in gaps.items() for v in ("a", "b") for s in (1, 2)]
    ax = item_gaps(analyze(rows, metric="steps", mdg=False))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 31
    # top to bottom: the 15 largest gaps in order, the middle summarized, the 15 smallest
    assert labels[:15] == [f"q{i}" for i in range(89, 74, -1)]
    assert labels[15] == "60 items between -3 and 2.9"
    assert labels[16:] == [f"q{i}" for i in range(14, -1, -1)]
    assert len(ax.collections[-1].get_offsets()) == 30 or any(len(c.get_offsets()) == 30 for c in ax.collections
                                                              if hasattr(c, "get_offsets"))
    assert ax.figure.get_size_inches()[1] < 12


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-8, 8), min_size=1, max_size=60), st.booleans())
def test_named_drivers_never_tie_with_an_item_left_unnamed(gaps, tie_all):
    from probestats.present.report.context import gap_drivers

    if tie_all:
        gaps = [3] * len(gaps)
    items = pl.DataFrame({"item": [str(i) for i in range(len(gaps))], "gap": [g / 4 for g in gaps]})
    average = sum(gaps) / len(gaps)
    if average == 0:
        return
    d = gap_drivers(items, average)
    same = sorted((abs(g) for g in items["gap"] if g * average > 0), reverse=True)
    if tie_all:
        assert d["stand_out"] == (len(same) == 1)   # equal gaps are spread over the items, unless there is one
    if d["stand_out"]:
        named = [abs(g) for _, g in d["top"]]
        left = same[len(named):]
        assert len(named) <= 10 and named == same[:len(named)]
        assert not left or min(named) > max(left)
        assert not left or sum(named) / len(named) >= 1.5 * sum(left) / len(left)
        assert sum(named) > sum(same) / 2   # they carry more than half of the gap


def test_many_values_beyond_40_items_write_the_whole_table_beside_the_report(tmp_path):
    """45 items × 3 values: both per-item tables show the same 40 items, and every item × value is in
    the CSV beside the report, its mean, runs and gap equal to the rows' own (computed here)."""
    import base64
    import csv
    import io
    import re
    from statistics import mean

    import numpy as np

    from probestats.jobs.report import report

    rng = np.random.default_rng(8)
    rows = [{"item": f"q{i}", "variant": v, "seed": s, "x": round(float(rng.normal((v == "a") * 0.5, 1)), 4)}
            for i in range(45) for v in "abc" for s in range(1, 4 + (v == "c"))]
    log = tmp_path / "log.csv"
    pl.DataFrame(rows).write_csv(log)
    job = report(log, metric="x", reference="b", output=tmp_path / "r.md")
    assert "[r_files/item_gaps.csv](r_files/item_gaps.csv)" in job.text
    per_item = job.text.split("### Per item\n", 1)[1].split("###", 1)[0]
    assert sum(1 for line in per_item.splitlines() if re.match(r"\| q\d+ \|", line)) == 40
    with open(tmp_path / "r_files" / "item_gaps.csv", newline="") as f:
        written = list(csv.DictReader(f))
    assert len(written) == 45 * 3
    cell = lambda i, v: [r["x"] for r in rows if r["item"] == i and r["variant"] == v]  # noqa: E731
    for r in written:
        xs = cell(r["item"], r["value"])
        assert float(r["mean"]) == pytest.approx(mean(xs), abs=1e-12) and int(r["runs"]) == len(xs)
        if r["value"] == "b":
            assert r["gap"] == ""
        else:
            assert float(r["gap"]) == pytest.approx(mean(xs) - mean(cell(r["item"], "b")), abs=1e-12)
            assert int(r["reference_runs"]) == 3
    html = report(log, metric="x", reference="b", format="html").text
    link = re.search(r'download="item_gaps.csv" href="data:text/csv;charset=utf-8;base64,([^"]+)"', html)
    assert len(list(csv.DictReader(io.StringIO(base64.b64decode(link.group(1)).decode())))) == 45 * 3
    small = tmp_path / "small.csv"
    pl.DataFrame([r for r in rows if int(r["item"][1:]) < 40]).write_csv(small)
    job = report(small, metric="x", reference="b", output=tmp_path / "s.md")
    assert "item_gaps.csv" not in job.text and not (tmp_path / "s_files" / "item_gaps.csv").exists()
