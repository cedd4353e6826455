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
    with pytest.raises(OptionError, match="plain=True words the report of a log's values"):
        report(framing_log=ROOT / "sample_logs" / "framing_long.csv", format="md", plain=True)
    with pytest.raises(OptionError, match="one metric"):
        report(HAND, metric="steps,temperature", format="md", plain=True)


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
