"""Mitigation re-runs: refuse logs that are not the same probe; report a real before/after pair."""

from __future__ import annotations

import polars as pl
import pytest

from probestats.analyses.compare import NotComparableError, compare_runs
from probestats.present.report.compare import render_compare
from probestats.stats.hypotests import sign_flip_test
from tests.factories import make_log, write_log


def before_after():
    before = make_log(items=8, runs=10, gap=1.5, seed=1)
    after = make_log(items=8, runs=10, gap=0.0, seed=2)   # the same items, values and seeds 1..10
    return before, after


def test_reports_both_runs_side_by_side(tmp_path):
    before, after = before_after()
    pb, pa = write_log(before, tmp_path / "before.csv"), write_log(after, tmp_path / "after.csv")
    result = compare_runs(str(pb), str(pa), metric="steps")
    data = result.to_dict()
    assert data["names"] == {"before": "before.csv", "after": "after.csv"}

    def gaps(frame):   # direct: per item mean formal − mean casual
        m = frame.group_by("item", "variant").agg(pl.col("steps").mean())
        w = m.pivot(on="variant", index="item", values="steps").sort(pl.col("item").cast(pl.Int64))
        return dict(zip(w["item"], (w["formal"] - w["casual"]).to_list()))

    gb, ga = gaps(before), gaps(after)
    assert data["before"]["average_gap"] == pytest.approx(sum(gb.values()) / 8)
    assert data["after"]["average_gap"] == pytest.approx(sum(ga.values()) / 8)
    assert data["change"]["average_gap"] == pytest.approx((sum(ga.values()) - sum(gb.values())) / 8)
    changes = [r["change"] for r in data["change"]["items"]]
    assert changes == pytest.approx([ga[i] - gb[i] for i in map(str, range(8))])
    assert data["change"]["sign_flip"]["p"] == sign_flip_test([ga[i] - gb[i] for i in map(str, range(8))]).pvalue
    assert data["before"]["sign_flip"]["p"] < 0.05
    text = render_compare(result)
    assert "| before: before.csv | 8 | 10 / 10 |" in text
    assert "This does not show that the system is unbiased" in text


def test_refuses_different_items_and_seeds():
    before, after = before_after()
    with pytest.raises(NotComparableError) as exc:
        compare_runs(before, after.filter(~pl.col("item").is_in(["3", "7"])), metric="steps")
    assert exc.value.problems[0].code == "not_comparable"
    assert "items 3, 7 are only in BEFORE" in str(exc.value)
    shifted = after.with_columns(pl.when(pl.col("item") == "2").then(pl.col("seed") + 100).otherwise(pl.col("seed"))
                                 .alias("seed"))
    with pytest.raises(NotComparableError, match=r"seeds differ in items 2 \(item 2 'formal': BEFORE ran 1, 2, 3, 4, 5 and 5 more, AFTER ran 101, "):
        compare_runs(before, shifted, metric="steps")
    with pytest.raises(NotComparableError, match="values 'neutral' are only in AFTER"):
        compare_runs(before, pl.concat([after, after.filter(pl.col("variant") == "casual")
                                        .with_columns(pl.lit("neutral").alias("variant"))]), metric="steps")
    with pytest.raises(NotComparableError, match="the metric 'steps' is not a column of AFTER"):
        compare_runs(before, after.rename({"steps": "count"}), metric="steps")


def test_markdown_escapes_log_text():
    rows = [{"item": "<b>x|y</b>", "variant": v, "seed": 1, "steps": 3 + (v == "*a*")} for v in ("*a*", "b")]
    rows += [{"item": "2", "variant": v, "seed": 1, "steps": 3} for v in ("*a*", "b")]
    text = render_compare(compare_runs(rows, rows, metric="steps"))
    assert "\\<b\\>x\\|y\\</b\\>" in text and "'\\*a\\*'" in text
    assert "<b>" not in text


# ------------------------------------------------------------------------- command line


def run_cli(args, capsys):
    from probestats.cli import main

    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_compare(tmp_path, capsys):
    import json

    before, after = before_after()
    pb, pa = write_log(before, tmp_path / "before.csv"), write_log(after, tmp_path / "after.csv")
    code, out, err = run_cli(["compare", pb, pa, "--metric", "steps", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)
    assert set(data) >= {"before", "after", "change"}
    assert data["change"]["average_gap"] == pytest.approx(data["after"]["average_gap"] - data["before"]["average_gap"])
    code, out, err = run_cli(["compare", pb, pa, "--metric", "steps", "-o", tmp_path / "c.md"], capsys)
    assert code == 0 and "change (after − before)" in out
    assert (tmp_path / "c.md").read_text().startswith("## Mitigation: the probe before and after")

    short = write_log(after.filter(~pl.col("item").is_in(["3", "7"])), tmp_path / "short.csv")
    code, out, err = run_cli(["compare", pb, short, "--metric", "steps"], capsys)
    assert code == 1 and out == ""
    assert err == ("Error: the logs are not comparable: items 3, 7 are only in before.csv "
                   "(rerun the after probe with the same items, values, seeds and metric)\n")
    reseeded = write_log(after.with_columns(pl.col("seed") + 100), tmp_path / "reseeded.csv")
    code, out, err = run_cli(["compare", pb, reseeded, "--metric", "steps"], capsys)
    assert code == 1 and err.startswith("Error: the logs are not comparable: seeds differ in items 0, 1, 2, 3, 4, 5, 6, 7 ")
    code, out, err = run_cli(["compare", pb, pa, "--metric", "steps", "-o", tmp_path / "c.txt"], capsys)
    assert code == 1 and err == f"Error: -o {tmp_path / 'c.txt'}: the compare section is Markdown; use a file ending in .md\n"
    code, out, err = run_cli(["compare", pb, "--metric", "steps"], capsys)
    assert code == 2


def test_without_seed_columns_the_section_does_not_claim_the_same_seeds():
    before, after = before_after()
    text = render_compare(compare_runs(before.drop("seed"), after.drop("seed"), metric="steps"))
    assert "same items, values and metric" in text
    assert "no seed column, so whether the two runs used the same seeds could not be checked" in text
    with_seeds = compare_runs(before, after, metric="steps")
    assert with_seeds.to_dict()["seeds_checked"] is True
    assert "same items, values, seeds and metric" in render_compare(with_seeds)


def test_a_metric_in_neither_log_is_a_column_error_not_a_difference():
    from probestats.errors import ColumnError

    before, after = before_after()
    with pytest.raises(ColumnError, match="neither log has a column for the metric 'count'; headers seen in BEFORE: "
                                          "item, variant, seed, model, temperature, steps"):
        compare_runs(before, after, metric="count")


def test_p_values_are_never_rounded_onto_alpha():
    # every item's gap is +2 before and 0 after: both the before p and the change p are 2 / 2**8 = 0.0078125
    # (two of the 256 sign patterns are as extreme); at alpha 0.007812 that is just above alpha, and four
    # significant digits would print it as 0.007812, equal to alpha
    before = [{"item": i, "variant": v, "seed": s, "steps": 5 if v == "formal" else 3}
              for i in range(8) for v in ("formal", "casual") for s in (1, 2)]
    after = [dict(r, steps=4) for r in before]
    text = render_compare(compare_runs(before, after, metric="steps", alpha=0.007812))
    assert "0.0078125" in text
    assert "p = 0.007812)" not in text and "| 0.007812 |" not in text


def test_cli_compare_json_refusal_names_not_comparable(tmp_path, capsys):
    import json

    before, after = before_after()
    pb = write_log(before, tmp_path / "before.csv")
    reseeded = write_log(after.with_columns(pl.col("seed") + 100), tmp_path / "reseeded.csv")
    code, out, err = run_cli(["compare", pb, reseeded, "--metric", "steps", "--json"], capsys)
    assert code == 1
    # one Error: line on standard error, the coded problems as JSON on standard output
    assert err.count("\n") == 1 and err.startswith("Error: the logs are not comparable: seeds differ in items 0, 1, ")
    data = json.loads(out)
    assert list(data) == ["schema_version", "ok", "problems"]
    assert data["schema_version"] == 2 and data["ok"] is False
    assert [p["code"] for p in data["problems"]] == ["not_comparable"]
    assert data["problems"][0]["message"].startswith("seeds differ in items 0, 1, 2, 3, 4, 5, 6, 7 (item 0 ")
    # without --json, standard output stays empty
    code, out, err = run_cli(["compare", pb, reseeded, "--metric", "steps"], capsys)
    assert code == 1 and out == ""


def test_a_missing_metric_is_named_as_the_caller_spells_it(tmp_path, capsys):
    from probestats.errors import ColumnError

    before, after = before_after()
    with pytest.raises(ColumnError, match=r"\(choose metric, or map it with read_options=\{'columns': \{'score': HEADER\}\}\)$"):
        compare_runs(before, after, metric="score")
    pb, pa = write_log(before, tmp_path / "before.csv"), write_log(after, tmp_path / "after.csv")
    code, out, err = run_cli(["compare", pb, pa, "--metric", "score"], capsys)
    assert code == 1 and out == ""
    assert err == ("Error: neither log has a column for the metric 'score'; headers seen in before.csv: "
                   "item, variant, seed, model, temperature, steps (choose --metric, or map it with --column score=HEADER)\n")
