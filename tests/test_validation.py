"""The coder's own error: agreement with hand labels (Cohen's kappa, sensitivity, specificity) and the gap
corrected for it, with the verdict on the corrected gap."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from scipy.stats import binomtest

import probestats
from probestats.analyses.hand_labels import check_coding
from probestats.cli import main
from probestats.errors import ColumnError, OptionError
from probestats.stats.agreement import cohens_kappa, exact_proportion

from benchmarks.validation_coverage import one_log


def test_kappa_by_hand():
    # 20 runs: both say 1 on 8, both 0 on 7, first 1 second 0 on 3, first 0 second 1 on 2
    first = [1] * 8 + [0] * 7 + [1] * 3 + [0] * 2
    second = [1] * 8 + [0] * 7 + [0] * 3 + [1] * 2
    k = cohens_kappa(first, second)
    observed = 15 / 20
    chance = (11 / 20) * (10 / 20) + (9 / 20) * (10 / 20)    # the first's and second's label shares
    assert k.agreement == observed
    assert k.statistic == pytest.approx((observed - chance) / (1 - chance))
    assert k.table == ((7, 2), (3, 8)) and k.labels == ("0", "1")
    assert k.low < k.statistic < k.high and "approximate" in k.method


def test_kappa_of_one_label_is_undefined_not_a_number():
    k = cohens_kappa(["a", "a"], ["a", "a"])
    assert (k.statistic, k.agreement, k.low) == (None, 1.0, None)


@pytest.mark.parametrize("k, n", [(9, 10), (0, 7), (7, 7), (31, 60)])
def test_exact_intervals_are_clopper_pearson(k, n):
    p = exact_proportion(k, n)
    ref = binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")   # scipy's Clopper-Pearson
    assert (p.low, p.high) == (pytest.approx(ref.low), pytest.approx(ref.high))


def hand_checked():
    rng = np.random.default_rng(5)
    return one_log(rng, "null", 40, 5)


def test_the_corrected_gap_by_hand():
    log, hand = hand_checked()
    c = check_coding(log, hand, metric="flip", a="a", b="b", n_resamples=2000).corrected
    joined = hand.join(log.rename({"flip": "coded"}), on=["item", "variant", "seed"])
    rates = {}
    for v in ("a", "b"):
        sub = joined.filter(pl.col("variant") == v)
        ppv = sub.filter(pl.col("coded") == 1)["flip"].mean()          # truly 1 among those coded 1
        t1_c0 = sub.filter(pl.col("coded") == 0)["flip"].mean()        # truly 1 among those coded 0
        q = log.filter(pl.col("variant") == v).group_by("item").agg(pl.col("flip").mean())["flip"]
        rates[v] = float((q * ppv + (1 - q) * t1_c0).mean())
    assert c.rates["a"]["corrected"] == pytest.approx(rates["a"])
    assert c.average_gap == pytest.approx(rates["a"] - rates["b"])
    assert c.low < c.average_gap < c.high


def test_the_verdict_changes_when_the_corrected_gap_is_null(tmp_path, capsys):
    log, hand = hand_checked()   # true rates equal; the judge's false positives 0.25 under a, 0.05 under b
    log.write_csv(tmp_path / "log.csv")
    hand.write_csv(tmp_path / "hand.csv")
    coded = probestats.analyze(str(tmp_path / "log.csv"), metric="flip", a="a", b="b")
    assert coded.verdict.detected and coded.pvalue <= 0.05
    checked = probestats.analyze(str(tmp_path / "log.csv"), metric="flip", a="a", b="b",
                                 validation=str(tmp_path / "hand.csv"))
    assert not checked.verdict.detected and checked.verdict.conclusion == "not_detected"
    c = checked.validation.corrected
    assert c.low < 0 < c.high and abs(c.average_gap) < abs(c.observed_gap) / 2
    # the last caveat besides borderline (which, when p is near alpha, comes last of all)
    assert "hand labels of 60 of 400 runs" in [c for c in checked.verdict.caveats if c.id != "borderline"][-1].sentence
    code = main(["analyze", str(tmp_path / "log.csv"), "--metric", "flip", "--validation", str(tmp_path / "hand.csv"),
                 "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["verdict"]["detected"] is False and data["uncorrected_verdict"]["detected"] is True
    assert data["validation"]["n"] == 60 and data["validation"]["corrected"]["a"] == "a"
    code = main(["analyze", str(tmp_path / "log.csv"), "--metric", "flip", "--validation", str(tmp_path / "hand.csv")])
    out = capsys.readouterr().out
    assert code == 0 and "the verdict on the corrected gap: At alpha 0.05: no gap shown" in out
    assert "sensitivity" in out and "Cohen's kappa" in out


def test_hand_labels_must_match_runs():
    log, hand = hand_checked()
    with pytest.raises(OptionError, match="2 hand-labelled runs match no run of the log on item, variant, seed"):
        check_coding(log, pl.concat([hand, hand.head(2).with_columns(pl.col("seed") + 100)]), metric="flip")
    with pytest.raises(OptionError, match="matches 5 runs of the log on item, variant"):
        check_coding(log, hand.drop("seed"), metric="flip")
    with pytest.raises(ColumnError, match="no column 'flip' holding the hand labels"):
        check_coding(log, hand.rename({"flip": "truth"}), metric="flip")


def test_validation_is_refused_where_it_cannot_apply():
    log, hand = hand_checked()
    with pytest.raises(OptionError, match="validation checks one coded metric compared between two values; "
                                          "drop factor"):
        probestats.analyze(log, metric="flip", factor=["variant", "seed"], validation=hand)


def test_a_metric_that_is_not_0_1_gets_agreement_without_a_correction():
    rows = [{"item": i, "variant": v, "seed": 0, "grade": (i + (v == "a")) % 3} for i in range(12) for v in "ab"]
    hand = [dict(r, grade=(r["grade"] + (r["item"] == 0)) % 3) for r in rows[:10]]
    check = check_coding(rows, hand, metric="grade")
    assert check.corrected is None and not check.binary and [p.code for p in check.problems] == ["not_corrected"]
    assert check.kappa.n == 10 and check.kappa.agreement == pytest.approx(8 / 10)


def test_the_report_words_the_corrected_verdict(tmp_path):
    from probestats.jobs.report import report

    log, hand = hand_checked()
    log.write_csv(tmp_path / "log.csv")
    hand.write_csv(tmp_path / "hand.csv")
    job = report(tmp_path / "log.csv", metric="flip", validation=tmp_path / "hand.csv", format="md")
    text = job.text
    assert "## The coder's error: a hand-checked sample" in text and "## Distributions per value" in text
    summary = text.split("## Summary", 1)[1].split("##", 1)[0]
    assert "corrected for the coder's error" in summary and "does not show a difference" in summary
    assert "How the metric was coded:** flip was coded and checked against hand labels of 60 of 400 runs" in text
    data = json.loads(report(tmp_path / "log.csv", metric="flip", validation=tmp_path / "hand.csv", format="json").text)
    assert data["verdict"]["detected"] is False and data["validation"]["n"] == 60


def test_a_coded_metric_without_a_validation_is_named_in_the_limits(tmp_path):
    from probestats.jobs.report import report
    from probestats.shape.probe import Probe

    rows = [{"item": i, "variant": v, "reply": "Yes" if (i + (v == "a")) % 2 else "No"} for i in range(8) for v in "ab"]
    pl.DataFrame(rows).write_csv(tmp_path / "log.csv")
    text = report(tmp_path / "log.csv", metric="said", probe=Probe(code=("said=yes-no",)), format="md").text
    assert "**How the metric was coded:** said was coded from the replies by the code book yes-no" in text
    assert "code book yes-no (said) under a: 8 of 8 replies coded" in text


def test_the_judge_order_probe_gives_the_kappa_of_its_two_orders():
    # 6 items: the same answer chosen in both orders on 4 (A, A, B, tie), the slot kept on 2 (primacy)
    verdicts = [("first", "second"), ("first", "second"), ("second", "first"), ("tie", "tie"),
                ("first", "first"), ("first", "first")]
    rows = [{"item": i, "order": o, "reply": {"first": "[[A]]", "second": "[[B]]", "tie": "[[C]]"}[v]}
            for i, pair in enumerate(verdicts) for o, v in zip(("AB", "BA"), pair)]
    g = probestats.judge(rows, order="order", verdicts=["first=[[A]]", "second=[[B]]", "tie=[[C]]"]).groups[0]
    # by hand, answers chosen (order AB as is; BA's slots swapped back): AB = A A B tie A A, BA = A A B tie B B
    k = cohens_kappa(["A", "A", "B", "t", "A", "A"], ["A", "A", "B", "t", "B", "B"])
    assert g.kappa.statistic == pytest.approx(k.statistic) and g.kappa.agreement == pytest.approx(4 / 6)
    assert g.to_dict()["kappa"]["n"] == 6


def test_a_sample_of_flagged_replies_only_gives_no_corrected_rate(tmp_path, capsys):
    # only runs coded 1 were hand-checked: how often the runs coded 0 are truly 1 is unknown under either value,
    # so no corrected rate (once 0.4347 and 0.5, from the uniform prior alone) and no corrected gap
    log, _ = hand_checked()
    hand = pl.concat([log.filter((pl.col("variant") == v) & (pl.col("flip") == 1)).head(20) for v in ("a", "b")])
    check = check_coding(log, hand, metric="flip", a="a", b="b", n_resamples=500)
    assert check.corrected is None
    zeros = {v: log.filter((pl.col("variant") == v) & (pl.col("flip") == 0)).height for v in ("a", "b")}
    (problem,) = [p for p in check.problems if p.code == "uncovered_stratum"]
    assert (f"no run coded 0 under 'a' ({zeros['a']} runs in the log) nor coded 0 under 'b' ({zeros['b']} runs)"
            in problem.message)
    assert "no corrected rate is given for 'a' or 'b'" in problem.message
    result = probestats.analyze(log, metric="flip", validation=hand)
    assert result.verdict.detected == result.analysis.verdict.detected   # the verdict stays the coded one
    caveat = [c for c in result.verdict.caveats if c.id == "coded_metric_checked"][0]
    assert "no correction was made: the validation sample holds no run coded 0" in caveat.sentence
    path, hand_path = tmp_path / "log.csv", tmp_path / "hand.csv"
    log.write_csv(path)
    hand.write_csv(hand_path)
    assert main(["analyze", str(path), "--metric", "flip", "--validation", str(hand_path)]) == 0
    out = capsys.readouterr().out
    assert "corrected for the coder's error" not in out and "corrected;" not in out
    assert "no run coded 0 under" in out
    # one value's runs coded 0 checked: that value is covered, the other still is not
    both = pl.concat([hand, log.filter((pl.col("variant") == "a") & (pl.col("flip") == 0)).head(10)])
    check = check_coding(log, both, metric="flip", a="a", b="b", n_resamples=500)
    assert check.corrected is None
    (problem,) = [p for p in check.problems if p.code == "uncovered_stratum"]
    assert "coded 0 under 'b'" in problem.message and "under 'a'" not in problem.message


def test_a_label_the_log_never_codes_needs_no_validated_run():
    # no run under 'b' is coded 1: its rate is its runs coded 0 read by their predictive value alone
    log, _ = hand_checked()
    log = log.with_columns(pl.when(pl.col("variant") == "b").then(0).otherwise(pl.col("flip")).alias("flip"))
    hand = pl.concat([log.filter((pl.col("variant") == v) & (pl.col("flip") == k)).head(15)
                      for v, k in (("a", 0), ("a", 1), ("b", 0))])
    check = check_coding(log, hand, metric="flip", a="a", b="b", n_resamples=500)
    assert check.corrected is not None and not [p for p in check.problems if p.code == "uncovered_stratum"]
    truly = hand.filter(pl.col("variant") == "b")["flip"].mean()   # the hand labels are the coded ones: 0
    assert check.corrected.rates["b"]["corrected"] == pytest.approx(truly)
