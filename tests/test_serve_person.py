"""The local page as a person who does not code reads it: what the page says is true of their sheet, and
names what they can change on the page.

A reply's lines are not shown as ``\\n``; a read option nobody gave for the noise file is not reported as
ignored there; the count of numbers stored as text is the count the sheet stores so; the verdict names the
control that fixes the errors (a tick box as one); a notes column is not a setting held fixed; a log split
by its criterion leads its Summary with the criteria, each tested on its own.
"""

from __future__ import annotations

import html
import re

import polars as pl
import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from starlette.testclient import TestClient  # noqa: E402

from probestats.serve.app import Settings, make_app  # noqa: E402
from tests.test_evaluator import padding_log  # noqa: E402
from tests.test_serve import HAND, HOST, NOISE, SAMPLES, choose, job_of, upload  # noqa: E402


@pytest.fixture
def page(tmp_path):
    settings = Settings(folder=tmp_path / "uploads", hosts=(HOST,))
    return settings, TestClient(make_app(settings), base_url=f"http://{HOST}")


def get(page, job, what):
    settings, client = page
    r = client.get(f"/{settings.token}/a/{job}/{what}")
    assert r.status_code == 200, r.text[-600:]
    return r


def read(text: str) -> str:
    """The text a person reads on a page: the commands' boxes, styles and tags left out, entities read."""
    text = re.sub(r'<pre class="command".*?</pre>', " ", text, flags=re.S)
    text = re.sub(r"<(style|script)\b[^>]*>.*?</\1>", " ", text, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"\s+", " ", html.unescape(text))


def flow(page, files, **choices) -> dict:
    """Every page of one analysis as a person goes through it: the columns (first shown, then sent), the
    check, and when the check lets it, the report page and the report in it."""
    settings, client = page
    job = job_of(upload(settings, client, files))
    pages = {"columns": get(page, job, "map").text}
    sent = choose(settings, client, job, go="update", **choices)
    pages["columns sent"] = sent.text
    checked = choose(settings, client, job_of(sent), go="validate")
    pages["check"] = checked.text
    if 'id="to-results"' in checked.text:
        done = job_of(checked)
        pages["results"] = get(page, done, "results").text
        pages["report"] = get(page, done, "view/report.html").text
    return pages


def test_a_replys_lines_are_shown_as_a_cell_shows_them_not_as_backslash_n(page):
    replies = pl.read_excel(HAND)["reply"].to_list()
    assert all("\n" in r for r in replies[:5])  # the sheet's replies hold line breaks
    settings, client = page
    columns = read(get(page, job_of(upload(settings, client, {"log": (HAND.name, HAND.read_bytes())})), "map").text)
    assert "\\n" not in columns
    first = " ".join(replies[0].split())[:79]  # the preview's cut, its lines run together
    assert first in columns


def test_the_sheet_of_a_spreadsheet_is_not_reported_ignored_for_a_csv_noise_file(page):
    pages = flow(page, {"log": (HAND.name, HAND.read_bytes()), "noise": (NOISE.name, NOISE.read_bytes())})
    assert "report" in pages, read(pages["check"])
    for name, text in pages.items():
        assert "does not apply" not in read(text) and "it was ignored" not in read(text), name


def test_a_read_option_that_applied_to_no_file_is_still_reported_for_the_noise_log(tmp_path):
    from probestats import Probe, analyze
    from tests.factories import make_log, write_log

    log = write_log(make_log(items=6, runs=3, gap=1.0, seed=1), tmp_path / "log.csv")
    noise = write_log(make_log(items=6, runs=3, gap=0.0, seed=2), tmp_path / "noise.csv")
    said = [p.message for p in analyze(log, metric="steps", noise=noise, probe=Probe(sheet="runs")).problems
            if p.code == "ignored_option"]
    assert said == ["sheet='runs' does not apply to 'log.csv', read as CSV, which has no sheets; it was ignored",
                    "noise log: sheet='runs' does not apply to 'noise.csv', read as CSV, which has no sheets; it was "
                    "ignored"]


def test_numbers_stored_as_text_are_counted_as_the_sheet_stores_them(page, tmp_path):
    import xlsxwriter

    path = tmp_path / "typed.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("runs")
    sheet.write_row(0, 0, ["item", "variant", "seed", "steps"])
    typed = 0
    for n in range(320):
        item, variant, seed = n // 20, ("formal", "casual")[n % 2], n % 20 // 2
        steps = 3 + (n * 7) % 5
        sheet.write_row(n + 1, 0, [item, variant, seed])
        if n % 5 == 0:  # one cell in five typed as text, as a person keeps a sheet by hand
            sheet.write_string(n + 1, 3, str(steps))
            typed += 1
        else:
            sheet.write_number(n + 1, 3, steps)
    book.close()
    assert typed == 64
    check = read(flow(page, {"log": ("typed.xlsx", path.read_bytes())}, metric="steps")["check"])
    assert "steps: 64 number(s) were stored as text" in check


def test_the_verdict_names_the_tick_box_that_fixes_the_errors(page):
    log = pl.read_csv(SAMPLES / "style_hand.csv")
    gappy = log.filter(~((pl.col("item") == 5) & (pl.col("variant") == "casual")))  # item 5 lacks 'casual'
    check = flow(page, {"log": ("gappy.csv", gappy.write_csv().encode())}, metric="steps")["check"]
    verdict = read(re.search(r'<p class="error" role="alert" id="verdict">.*?</p>', check, re.S).group(0))
    assert "the tick box “Keep complete items only”" in verdict and "another column" not in verdict
    assert 'id="opt-complete"' in get(page, job_of_page(check), "map").text  # a tick box the column page has
    fixed = flow(page, {"log": ("gappy.csv", gappy.write_csv().encode())}, metric="steps", complete=True)
    assert "report" in fixed


def job_of_page(text: str) -> str:
    return re.search(r'href="/[^/]+/a/([^/]+)/map"', text).group(1)


def test_a_notes_column_is_not_a_setting_held_fixed(page):
    log = pl.read_csv(SAMPLES / "style_hand.csv").with_columns(pl.lit("copied by hand").alias("Notes"))
    pages = flow(page, {"log": ("notes.csv", log.write_csv().encode())}, metric="steps")
    report = read(pages["report"])
    held = re.search(r"Held fixed, as the log shows \(settings with one value\): (.*?) Varied", report).group(1)
    # the settings with one value, found by hand: every column but the runs' own and the notes
    one_valued = [c for c in ("model", "temperature") if log[c].n_unique() == 1]
    assert held == "; ".join(f"{c}: {log[c][0]}" for c in one_valued)
    assert "copied by hand" not in report


def test_a_log_split_by_criterion_leads_its_summary_with_each_criterion(page):
    rows = pl.DataFrame(padding_log())
    pages = flow(page, {"log": ("judge.csv", rows.write_csv().encode())}, metric="level", a="padded", b="plain",
                 by="criterion")
    report = read(pages["report"])
    summary = report[report.index("Summary") + len("Summary"):report.index("Design")].strip()
    assert summary.startswith("Split by criterion, each of the 3 groups tested on its own:")
    # each criterion's average gap, by hand: per item, the mean under padded minus under plain, averaged
    means = rows.group_by("criterion", "item", "variant").agg(pl.col("level").mean())
    wide = means.pivot(on="variant", index=["criterion", "item"], values="level")
    gaps = wide.with_columns((pl.col("padded") - pl.col("plain")).alias("gap")).group_by("criterion").agg(
        pl.col("gap").mean())
    from probestats.present.words.fmt import fmt_gap

    pooled_at = summary.index("Pooled over every criterion:")
    for criterion, gap in gaps.iter_rows():
        assert f"criterion = {criterion}: {fmt_gap(gap)} over 3 items" in summary[:pooled_at], criterion


def test_a_title_row_is_named_with_its_control_and_the_number_it_says_gives_the_report(page):
    sheet = SAMPLES / "broken" / "title_rows.xlsx"
    raw = pl.read_excel(sheet, has_header=False)
    header_at = raw[raw.columns[0]].to_list().index("run_id")  # the row of column names, found by hand
    settings, client = page
    job = job_of(upload(settings, client, {"log": (sheet.name, sheet.read_bytes())}))
    columns = read(get(page, job, "map").text)
    assert f"set “Title rows above the header” above to {header_at}" in columns
    assert "upload the file again" not in columns
    refused = choose(settings, client, job, go="validate")
    assert refused.status_code == 400 and f"set “Title rows above the header” to {header_at}" in read(refused.text)
    checked = choose(settings, client, job, skip_rows=str(header_at), go="validate")
    assert "The report compares ‘formal’ and ‘casual’" in checked.text
    report = read(get(page, job_of(checked), "view/report.html").text)
    assert "Probe report: steps, 'formal' against 'casual'" in report
