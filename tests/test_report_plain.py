"""The plain report (``plain=True``, ``report --plain``): for people who do not code.

It keeps every number of the report and its honesty; each test is named in words; how each figure was
computed, and the command-line spellings of the options its messages name, sit in a detail block (HTML
``<details>``, Markdown a last section); the options are named as the local page labels their controls.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from probestats.cli import main
from probestats.errors import OptionError, cli_spelling
from probestats.jobs.report import report
from tests.factories import make_log
from tests.test_report_honesty import CLAIMS, DENIAL, html_text, sentences

ROOT = Path(__file__).resolve().parent.parent
HAND = ROOT / "sample_logs" / "style_hand.xlsx"
NOISE = ROOT / "sample_logs" / "style_noise.csv"
NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,]\d+)*(?:e-?\d+)?")


def numbers(text: str) -> set[str]:
    return set(NUMBER.findall(text.replace("\\", "")))


@pytest.fixture(scope="module")
def hand():
    usual = report(HAND, metric="steps", noise=NOISE, format="md")
    plain = report(HAND, metric="steps", noise=NOISE, format="md", plain=True)
    plain_html = report(HAND, metric="steps", noise=NOISE, format="html", plain=True)
    return usual.text, plain.text, plain_html.text


def test_a_plain_report_keeps_every_number(hand):
    usual, plain, _ = hand
    missing = numbers(usual) - numbers(plain)
    assert not missing, sorted(missing)


def test_a_plain_report_names_each_test_in_words_and_keeps_methods_for_the_end(hand):
    _, plain, _ = hand
    body, details = plain.split("\n## Method details\n")
    assert "## " not in details  # the detail section is the last one
    for words in ("Is the average gap more than chance would give?", "Do more items lean one way than chance",
                  "How large the average gap plausibly is"):
        assert words in body
    # method texts, source paths and library calls live in the details only
    assert "Method:" not in body
    for technical in ("lognormal gaps at 6-12 items", "Owen's finite form", "enumeration of all 64 sign patterns)",
                      "enumeration of all 256 sign patterns)",
                      "gap model level", "BINOM.DIST"):
        assert technical not in body.replace("\\", ""), technical
        assert technical in details.replace("\\", ""), technical
    # the interval's numbers and the sign test's counts stay in the text: 5 of the 6 non-zero gaps are positive
    assert "5 of 6 lean the same way, p = 0.2188" in body


def test_a_plain_report_keeps_its_honesty(hand):
    _, plain, plain_html = hand
    for text in (plain, html_text(plain_html)):
        for s in sentences(text):
            if CLAIMS.search(s):
                assert DENIAL.search(s), s
    assert "This does not show that the system is unbiased" in plain


def test_the_html_plain_report_folds_its_methods_in_a_details_block(hand):
    _, _, html = hand
    assert html.count("<details") == 1
    before, block = html.split('<details id="method-details">')
    assert "<summary>Method details" in block and "</details>" in block
    assert "s finite form" not in before and "s finite form" in block   # Owen's, its apostrophe escaped


def test_options_are_named_as_the_page_labels_them_with_their_flags_in_the_details(tmp_path):
    import polars as pl

    log = make_log(items=6, runs=4, seed=3)
    formal_once = (pl.col("variant") == "formal") & (pl.col("seed") == 1)
    log = log.with_columns(pl.when(formal_once).then(pl.lit("Formal")).otherwise(pl.col("variant")).alias("variant"))
    path = tmp_path / "messy.csv"   # 'Formal' beside 'formal'
    log.write_csv(path)
    with cli_spelling():  # as the command line names options
        usual = report(path, metric="steps", a="formal", b="casual", format="md").text
    plain = report(path, metric="steps", a="formal", b="casual", format="md", plain=True).text
    assert "use --fold-case to treat them as one value" in usual
    body, details = plain.split("\n## Method details\n")
    assert "use “Fold case” to treat them as one value" in body and "--fold-case" not in body
    assert "“Fold case” is `--fold-case`" in details


def test_the_command_writes_what_the_library_writes(tmp_path, capsys):
    out = tmp_path / "report.md"
    assert main(["report", str(HAND), "--metric", "steps", "--plain", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == report(HAND, metric="steps", format="md", plain=True,
                                                     output=tmp_path / "again.md").text.replace("again_files",
                                                                                                "report_files")


def test_plain_is_refused_where_it_has_no_plain_form(tmp_path):
    with pytest.raises(OptionError, match="one metric"):
        report(HAND, metric="steps,temperature", format="md", plain=True)


FRAMING = ROOT / "sample_logs" / "framing_long.csv"
TARGETS = ROOT / "sample_logs" / "framing_targets.csv"


def judge_log(path):
    from tests.judge_factory import Judge, make_judge_log

    make_judge_log(items=14, judges={"j1": Judge(0.5, 0.9), "j2": Judge(0.8, 0.6)}, seed=5).write_csv(path)
    return path


def alone(kind: str, tmp_path, **more):
    """The report of a framing log alone or of an order probe alone (``more``: plain, format)."""
    if kind == "framing":
        return report(framing_log=FRAMING, targets=TARGETS, **more).text
    return report(judge_log(tmp_path / "judge.csv"), judge={"order": "order", "choice": "choice", "by": ["judge"]},
                  **more).text


#: the methods a plain report keeps for its details: (framing) the test, the interval, the correction;
#: (order probe) the two tests, the interval and the correction
METHODS = {"framing": ("exact sign-flip test", "Student t", "holm"),
           "judge": ("exact binomial", "exact sign-flip test", "Clopper–Pearson", "holm")}


@pytest.mark.parametrize("kind", ["framing", "judge"])
def test_a_plain_report_of_a_framing_log_or_an_order_probe_alone_names_its_tests_in_words(tmp_path, kind):
    usual = alone(kind, tmp_path, format="md")
    plain = alone(kind, tmp_path, format="md", plain=True)
    missing = numbers(usual) - numbers(plain)
    assert not missing, sorted(missing)
    body, details = plain.split("\n## Method details\n")
    assert "## " not in details   # the detail section is the last one
    for method in METHODS[kind]:
        assert method in usual, method
        assert method not in body, (method, body[max(0, body.find(method) - 300):body.find(method) + 100])
        assert method in details, method
    for s in sentences(body):   # as honest as the usual report: no claim without its denial
        if CLAIMS.search(s):
            assert DENIAL.search(s), s
    assert "Every figure names its test in words" in body
    html = alone(kind, tmp_path, format="html", plain=True)
    assert html.count('<details id="method-details">') == 1


def test_a_plain_framing_report_says_each_corrected_p_and_interval_in_words(tmp_path):
    """Each cell's sentence: the interval as a range and its p after the correction, both checked against the
    framing's own numbers (the correction by statsmodels)."""
    import json

    from statsmodels.stats.multitest import multipletests

    from probestats.errors import plain_numbers
    from probestats.present.words.fmt import fmt_p

    cells = json.loads(report(framing_log=FRAMING, targets=TARGETS, format="json").text)["framing"]["cells"]
    holm = multipletests([c["bias_p"] for c in cells], method="holm")[1]
    plain = alone("framing", tmp_path, format="md", plain=True).replace("\\", "")
    for c, p in zip(cells, holm):
        assert c["bias_p_adjusted"] == pytest.approx(p)
        with plain_numbers():
            said = (f"(plausibly from {c['bias_ci']['low']:+.2f} to {c['bias_ci']['high']:+.2f}, a 95% interval; "
                    f"p = {fmt_p(p, 0.05)} after the correction for the {len(cells)} cells tested together, from a "
                    f"test across {c['n_items']} items, {c['n']} responses)")
        assert said in plain, said


def test_the_command_writes_the_plain_framing_and_order_probe_reports(tmp_path):
    out = tmp_path / "framing.md"
    assert main(["report", "--framing", str(FRAMING), "--targets", str(TARGETS), "--plain", "-o", str(out)]) == 0
    assert "## Method details" in out.read_text(encoding="utf-8")
    out = tmp_path / "judge.md"
    log = judge_log(tmp_path / "judge.csv")
    assert main(["report", str(log), "--order", "order", "--choice", "choice", "--by", "judge", "--plain",
                 "-o", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "## Method details" in text and "exact binomial" not in text.split("## Method details")[0]


def test_a_plain_report_of_several_values_keeps_every_number_and_folds_its_method(tmp_path):
    path = tmp_path / "three.csv"
    make_log(items=6, runs=3, values=("plain", "formal", "casual"), seed=2).write_csv(path)
    usual = report(path, metric="steps", format="md").text
    plain = report(path, metric="steps", format="md", plain=True).text
    missing = numbers(usual) - numbers(plain)
    assert not missing, sorted(missing)
    body, details = plain.split("\n## Method details\n")
    assert "Method:" in usual and "Method:" not in body
    assert "- **The omnibus test:** exact" in details


def test_a_plain_framing_reports_warnings_name_no_flag_and_no_code():
    """The framing log without targets: its warning says to give them; the plain report words it without the flag
    the command line gives and without the warning's code."""
    with cli_spelling():   # as the command line and the page make it
        usual = report(framing_log=FRAMING, format="md").text
        plain = report(framing_log=FRAMING, format="md", plain=True).text
    assert "no_targets: " in usual or "--targets FILE" in usual
    body = plain.split("\n## Method details\n")[0]
    warnings = body[body.index("### Warnings"):]
    assert "give the targets of each topic to name the targets" in warnings
    assert "--" not in warnings and not re.search(r"\b[a-z]+_[a-z_]+: ", warnings), warnings
