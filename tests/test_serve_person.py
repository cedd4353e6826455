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
from tests.test_serve_flows import get, page  # noqa: E402,F401  (the page fixture and its GET, written once)


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
    checked = choose(settings, client, job_of(sent), go="validate",
                     **{k: v for k, v in choices.items() if k.startswith("target-")})   # typed, as the page keeps
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


# ---------------------------------------------------------------- what a person reads names no flag


#: a command-line flag; a file of the repository; a Python spelling of an option (``fold_case=True``,
#: ``Tests(interval=...)``), or an option's Python name the page never shows as data
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z-]+")
REPOSITORY_PATH = re.compile(r"\b(?:benchmarks|probestats|tests|docs|scripts)/[\w/.-]+|\b\w+\.py\b")
PYTHON = re.compile(r"\b[a-z]+(?:_[a-z]+)+=|\bTests\(|\bProbe\(|\b(?:True|False|None)\b")
#: a Python name (``noise_value``, ``rating_scale_inferred``): a word of small letters joined by underscores
PYTHON_NAME = re.compile(r"(?<![\w.-])[a-z]+(?:_[a-z0-9]+)+(?![\w.-])")
#: the one name with an underscore the page shows that is no Python name: the folder of the report's plots
FOLDERS = ("report_files",)


def file_words(files: dict) -> set[str]:
    """Every word of the files uploaded (headers and cells, any sheet): what the page shows of them is theirs."""
    words = set()
    for _, content in files.values():
        if content[:2] == b"PK":   # a spreadsheet
            import io

            for frame in pl.read_excel(io.BytesIO(content), sheet_id=0, has_header=False).values():
                words |= {str(w) for row in frame.iter_rows() for cell in row if cell is not None
                          for w in re.findall(r"[\w.-]+", str(cell))}
        else:
            words |= set(re.findall(r"[\w.-]+", content.decode("utf-8", "replace")))
    return words


def scan(pages: dict, headers, files: dict) -> None:
    """No page a person reads names a flag, a file of the repository, a Python spelling or a Python name (the
    uploaded files' own words and the names of the files the page writes aside)."""
    names = option_names(headers)
    theirs = file_words(files) | {name for name, _ in files.values()} | set(FOLDERS)
    for name, text in pages.items():
        said = person_reads(text)
        for pattern in (FLAG, REPOSITORY_PATH, names):
            found = pattern.search(said)
            assert found is None, (name, said[max(0, found.start() - 200):found.end() + 80])
        for found in [*PYTHON.finditer(said), *PYTHON_NAME.finditer(said)]:
            assert found.group(0).rstrip("=") in theirs, (name, said[max(0, found.start() - 200):found.end() + 80])


def option_names(headers) -> re.Pattern:
    """Every parameter's Python name with an underscore (``fold_case``, ``max_cells``) but the file's headers."""
    from probestats.parameters import PARAMETERS

    names = sorted(n for n in PARAMETERS if "_" in n and n not in headers)
    return re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")


def person_reads(text: str) -> str:
    """What a person reads on a page: the "show the command" boxes and the report's folded method details (which
    give each option's flag, for whoever runs the command) left aside."""
    text = re.sub(r"<details\b.*?</details>", " ", text, flags=re.S)
    return read(text)


def plan_pages(page, job) -> dict:
    """The plan page after a simulation, and the plan form's answers to numbers a person may type wrong."""
    from tests.test_serve import wait_for_plan

    settings, client = page
    out = {}
    for typed in ({"alpha": "nan"}, {"sims": "many"}, {"items": "0"}, {"power": "2"}):
        r = client.post(f"/{settings.token}/a/{job}/plan", data={"csrf": settings.csrf, **typed})
        assert r.status_code == 400 and "Error: “" in read(r.text), (typed, read(r.text)[:300])
        out[f"plan form {typed}"] = r.text
    r = client.post(f"/{settings.token}/a/{job}/plan", data={"csrf": settings.csrf, "items": "6", "runs": "5",
                                                             "sims": "40"}, follow_redirects=True)
    out["plan"] = wait_for_plan(client, r).text
    return out


def person_sheet(path, log: pl.DataFrame) -> list[str]:
    """A sheet kept by hand: a title row, headers with spaces and accents, a blank row, a notes column, one
    missing value, the counts typed as text; its headers."""
    import xlsxwriter

    headers = ["Item n°", "Writing style", "Prompt text", "Réponse du modèle", "Steps", "Notes"]
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet("Feuille 1")
    sheet.write(0, 0, "Tutor probe, March: copied from the chat window")
    sheet.write_row(1, 0, headers)
    row = 2
    for n, run in enumerate(log.iter_rows(named=True)):
        row += n == 20   # a blank row
        steps = "" if n == 7 else str(run["steps"])
        for col, value in enumerate([run["item"], run["variant"], run["prompt"], run["reply"], steps, "by hand"]):
            if value != "":
                sheet.write_string(row, col, str(value)) if isinstance(value, str) else sheet.write(row, col, value)
        row += 1
    book.close()
    return headers


@pytest.mark.parametrize("sheet", ["hand sheet and noise file", "messy sheet", "messy sheet folded",
                                   "sheet kept by hand", "framing sheet", "judge log", "order probe"])
def test_no_page_a_person_reads_names_a_flag_a_python_name_or_a_file_of_the_repository(page, tmp_path, sheet):
    from tests.test_serve_flows import messy_sheet

    hand = pl.read_excel(HAND)
    choices = {}
    if sheet == "hand sheet and noise file":
        files = {"log": (HAND.name, HAND.read_bytes()), "noise": (NOISE.name, NOISE.read_bytes())}
        headers = hand.columns
    elif sheet.startswith("messy"):
        files = {"log": ("messy.csv", messy_sheet())}
        headers = hand.columns
        choices = dict(fold_case=True, complete=True) if sheet.endswith("folded") else {}
    elif sheet == "framing sheet":
        files = {"log": (FRAMING.name, FRAMING.read_bytes())}
        headers = pl.read_csv(FRAMING).columns
        choices = dict(analysis="framing", answers="auto", **typed_targets())
    elif sheet == "judge log":   # a judge's ratings, split by criterion
        log = pl.DataFrame(padding_log())
        files = {"log": ("judge.csv", log.write_csv().encode())}
        headers = log.columns
        choices = dict(metric="level", a="padded", b="plain", by="criterion")
    elif sheet == "order probe":
        log = judge_rounds()
        files = {"log": ("judge.csv", log.write_csv().encode())}
        headers = log.columns
        choices = dict(analysis="judge")
    else:
        headers = person_sheet(tmp_path / "kept.xlsx", hand)
        files = {"log": ("kept.xlsx", (tmp_path / "kept.xlsx").read_bytes())}
    pages = flow(page, files, **choices)
    if sheet == "sheet kept by hand":   # as a person does: the title rows the page names, then the columns
        assert "“Title rows above the header”" in read(pages["columns"])
        settings, client = page
        updated = choose(settings, client, job_of(upload(settings, client, files)), skip_rows="1", go="update")
        more = {"columns after": updated.text}
        job = job_of(updated)
        checked = choose(settings, client, job, metric="Steps", item="Item n°", variant="Writing style",
                         go="validate")
        more.update({"check after": checked.text, "results after": get(page, job_of(checked), "results").text,
                     "report after": get(page, job_of(checked), "view/report.html").text})
        assert "the 6 item gaps are strongly skewed" in read(checked.text)   # the warning that named a flag and a file
        pages.update(more)
        pages.update(plan_pages(page, job_of(checked)))
    else:
        assert "report" in pages, read(pages["check"])[:600]
        if "analysis" not in choices:   # a framing log or an order probe sizes no next probe
            pages.update(plan_pages(page, job_of_page(pages["results"])))
        else:   # its report is the plain one: each test in words, the methods folded away
            assert '<details id="method-details">' in pages["report"]
    scan(pages, headers, files)


FRAMING = SAMPLES / "framing_long.csv"


def typed_targets() -> dict:
    """The sample framing log's targets, as a person types them on the column page."""
    import csv
    import io

    targets = list(csv.DictReader(io.StringIO((SAMPLES / "framing_targets.csv").read_text(encoding="utf-8"))))
    typed = {}
    for n, row in enumerate(targets):
        typed |= {f"target-aff-{n}": row["affirmative"], f"target-rev-{n}": row["reverse"]}
    return typed


def judge_rounds() -> pl.DataFrame:
    """An order probe of two judges, its replies to be read by the slot each chose."""
    from tests.judge_factory import Judge, make_judge_log

    return make_judge_log(items=14, judges={"j1": Judge(0.5, 0.9), "j2": Judge(0.8, 0.6)}, seed=5)


@pytest.mark.parametrize("kind", ["zip bomb", "far corner"])
def test_a_spreadsheet_too_large_is_refused_without_a_flag(page, tmp_path, kind):
    from tests.hostile.spreadsheets import far_corner_xlsx, zip_bomb_xlsx

    path = tmp_path / "big.xlsx"
    (zip_bomb_xlsx(path, expanded=1 << 30) if kind == "zip bomb" else far_corner_xlsx(path))
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("big.xlsx", path.read_bytes())}))
    for step in ("map", "validate"):
        said = person_reads(client.get(f"/{settings.token}/a/{job}/{step}").text)
        assert "keep only the rows and columns of the runs" in said, (step, said[:500])
        assert FLAG.search(said) is None and "max_cells" not in said, (step, said[:500])


def test_a_tiny_p_is_written_out_for_people(page):
    from probestats.errors import plain_numbers
    from probestats.present.words.fmt import fmt_p
    from probestats.serve.pages import clean

    assert fmt_p(1.2e-07) == "1.2e-07"   # for code, the command line and the page's downloads, as before
    with plain_numbers():   # a plain report
        written = fmt_p(1.2e-07)
    assert written == "0.00000012" and float(written) == 1.2e-07
    shown = clean("blank cells as common under both values (Fisher's exact test, p = 3.4e-05)", None)   # the page
    assert shown.endswith("p = 0.000034)") and float(shown[-9:-1]) == 3.4e-05


def test_a_file_over_the_upload_limit_is_refused_without_a_flag(tmp_path):
    settings = Settings(folder=tmp_path / "uploads", hosts=(HOST,), max_bytes=100_000)
    client = TestClient(make_app(settings), base_url=f"http://{HOST}")
    r = upload(settings, client, {"log": ("big.csv", b"item,variant,steps\n" + b"1,a,2\n" * 40_000)})
    said = person_reads(r.text)
    assert r.status_code == 413 and "larger than the page's limit of 0.1 MB" in said
    assert FLAG.search(said) is None, said


def test_a_framing_interval_that_leaves_out_0_beside_no_lean_says_why(page):
    """The sample framing log's model-b leadership cell: its interval excludes 0, its p corrected across the four
    cells does not reach alpha. The report says why in one sentence, with the uncorrected p."""
    import csv
    import io
    import json

    from statsmodels.stats.multitest import multipletests

    from probestats.present.words.fmt import fmt_p

    framing = SAMPLES / "framing_long.csv"
    targets = list(csv.DictReader(io.StringIO((SAMPLES / "framing_targets.csv").read_text(encoding="utf-8"))))
    typed = {}
    for n, row in enumerate(targets):
        typed |= {f"target-aff-{n}": row["affirmative"], f"target-rev-{n}": row["reverse"]}
    settings, client = page
    upload_job = job_of(upload(settings, client, {"log": (framing.name, framing.read_bytes())}))
    checked = choose(settings, client, upload_job, analysis="framing", answers="auto", go="validate", **typed)
    assert 'id="to-results"' in checked.text, read(checked.text)[:800]
    job = job_of(checked)
    pages = {"report": get(page, job, "view/report.html").text}
    cells = json.loads(get(page, job, "file/analysis.json").text)["cells"]
    raw = [c["bias_p"] for c in cells]
    holm = multipletests(raw, method="holm")[1]   # the correction across the cells, by statsmodels
    report = person_reads(pages["report"])
    apart = [(c, p) for c, p in zip(cells, holm) if p > 0.05 and (c["bias_ci"]["low"] > 0 or c["bias_ci"]["high"] < 0)]
    assert apart, "the sample has a cell whose interval excludes 0 and whose corrected test does not reach 0.05"
    for c, p in apart:
        assert c["bias_p_adjusted"] == pytest.approx(p) and c["bias_p"] <= 0.05
        said = (f"Its interval leaves out 0 while its test finds no lean because the interval is for this cell "
                f"alone, while the p is corrected for the {len(cells)} cells tested together (uncorrected it is "
                f"p = {fmt_p(c['bias_p'], 0.05)}); the test decides.")
        assert said in report
    assert len(set(re.findall(r"Its interval leaves out 0 .*?the test decides\.", report))) == len(apart)


def test_the_check_of_an_order_probe_says_what_the_page_understood_with_its_controls(page):
    """The order probe's check: the items, the two orders and the judges, counted here from the log, each beside
    the control of the column page that changes it."""
    log = judge_rounds()
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("judge.csv", log.write_csv().encode())}))
    checked = choose(settings, client, job, go="validate", analysis="judge")
    said = read(re.search(r'<p id="design-read">.*?</p>', checked.text, re.S).group(0)).strip()
    orders = sorted(log["order"].unique().to_list())
    assert said == (f"This analysis took the probe to be: {log['item'].n_unique()} items judged in the two orders "
                    f"‘{orders[0]}’ and ‘{orders[1]}’ of order, by {log['judge'].n_unique()} judges.")
    roles = dict(re.findall(r'<li data-role="([^"]+)">(.*?)</li>', checked.text, re.S))
    assert list(roles) == ["Items", "Orders", "Verdicts", "Judges", "Repetitions"]
    for role, control in (("Orders", "#order"), ("Verdicts", "#judge_choice"), ("Judges", "#judge_by"),
                          ("Repetitions", "#judge_repetition")):
        assert f'/map{control}"' in roles[role], (role, roles[role])
        assert f'id="{control[1:]}"' in get(page, job_of(checked), "map").text   # a control the column page has


def test_the_check_of_a_framing_log_says_what_the_page_understood_with_its_controls(page):
    """The framing log's check: its cells and matched items, counted here from the log, the answers' reading and
    the reference each topic's lean is counted toward (the targets typed), each beside its control."""
    log = pl.read_csv(FRAMING)
    cells = log.select("Model", "Topic").unique().height
    items = log.group_by("Model", "Topic").agg(pl.struct("Item", "Language").n_unique().alias("n"))["n"].max()
    typed = typed_targets()
    settings, client = page
    job = job_of(upload(settings, client, {"log": (FRAMING.name, FRAMING.read_bytes())}))
    checked = choose(settings, client, job, go="validate", analysis="framing", **typed)
    said = read(re.search(r'<p id="design-read">.*?</p>', checked.text, re.S).group(0)).strip()
    topics = dict(re.findall(r'<th scope="row" id="topic-(\d+)">(.*?)</th>', get(page, job, "map").text))
    reference = "; ".join(f"{topics[str(n)]}: ‘{typed[f'target-aff-{n}']}’" for n in range(len(topics)))
    assert said == (f"This analysis took the probe to be: {cells} cells of up to {items} matched items each, asked "
                    f"in both framings, answered on the agreement scale, the lean counted toward the reference of "
                    f"each topic ({reference}).")
    roles = dict(re.findall(r'<li data-role="([^"]+)">(.*?)</li>', checked.text, re.S))
    assert list(roles) == ["Items", "Answers", "Cells", "Reference"]
    assert '/map#answers"' in roles["Answers"] and '/map#topic-0"' in roles["Reference"]


def test_the_check_names_the_clusters_it_read_beside_their_control(page):
    """Items nested in sources, chosen with “Clusters”: the check's design says how many clusters (counted here),
    beside the control that set them."""
    log = pl.read_csv(SAMPLES / "style_hand.csv").with_columns((pl.col("item") // 2).alias("source"))
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("nested.csv", log.write_csv().encode())}))
    checked = choose(settings, client, job, go="validate", metric="steps", cluster="source")
    roles = dict(re.findall(r'<li data-role="([^"]+)">(.*?)</li>', checked.text, re.S))
    assert "Clusters" in roles, read(checked.text)[:1500]
    assert f"items nested in {log['source'].n_unique()} clusters of source" in read(roles["Clusters"])
    assert '/map#opt-cluster"' in roles["Clusters"] and "“Clusters”" in read(roles["Clusters"])
