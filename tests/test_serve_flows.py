"""The local page keeps what the person chose, and every command it shows writes what it gives.

Each analysis is a state of its own (two tabs on one upload, the back button and a reload never mix their
choices); headers and answers round-trip exactly; every fix a message names is a control on the page, and
messages name the control, never a flag; the check says what the report will do; the plan comes from the
one spreadsheet. The last tests walk each flow and run every command the page showed, comparing what they
write with the page's files.
"""

from __future__ import annotations

import html
import io
import json
import re
import shlex
import tomllib
import zipfile
from collections import Counter

import polars as pl
import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from starlette.testclient import TestClient  # noqa: E402

from probestats.serve.app import Settings, make_app  # noqa: E402
from tests.factories import make_log  # noqa: E402
from tests.test_evaluator import padding_log  # noqa: E402
from tests.test_serve import (HAND, HOST, NOISE, SAMPLES, choose, command_of, form_of, job_of, plan_link,  # noqa: E402
                              run_command, upload, wait_for_plan)


@pytest.fixture
def page(tmp_path):
    settings = Settings(folder=tmp_path / "uploads", hosts=(HOST,))
    return settings, TestClient(make_app(settings), base_url=f"http://{HOST}")


def get(page, job, what):
    settings, client = page
    r = client.get(f"/{settings.token}/a/{job}/{what}")
    assert r.status_code == 200, r.text[-600:]
    return r


def commands(text: str) -> dict:
    """Every command a page shows, by the id of its block."""
    return {key: html.unescape(body) for key, body in re.findall(r'<pre class="command" id="([^"]+)">(.*?)</pre>',
                                                                 text, re.S)}


def problems_listed(text: str, where: str = 'class="problems"') -> list[tuple[str, str]]:
    """The (code, message) of every problem the check lists (``where``: the list of the check itself, or
    ``id="report-warnings"``, the list of what the analysis adds)."""
    found = re.search(rf'<ul [^>]*{where}[^>]*>(.*?)</ul>' if "id=" in where else rf'<ul {where}>(.*?)</ul>', text,
                      re.S)
    return [] if found is None else [
        (code, html.unescape(re.sub("<[^>]+>", "", message))) for code, message in
        re.findall(r'<li class="(?:error|warning)"><strong>\w+</strong><span data-code="([\w_]+)"></span>: (.*?)</li>',
                   found.group(1), re.S)]


def codes_on(text: str) -> Counter:
    """How many problems of each kind the check lists, counting those it sums up in one line."""
    found = re.search(r'<ul class="problems">(.*?)</ul>', text, re.S)
    codes = Counter(code for code, _ in problems_listed(text))
    for count, code in re.findall(r'<span class="count">(\d+)</span> more \w+ like these<span data-code="(\w+)">',
                                  found.group(1) if found else ""):
        codes[code] += int(count)
    return codes


def messy_sheet() -> bytes:
    """The hand-kept sheet with the fifth seed's values typed with a capital: 'Formal', 'Casual'."""
    log = pl.read_csv(SAMPLES / "style_hand.csv")
    titled = pl.when(pl.col("seed") == 5).then(pl.col("variant").str.to_titlecase()).otherwise(pl.col("variant"))
    return log.with_columns(titled.alias("variant")).write_csv().encode()


# ---------------------------------------------------------------- an analysis is its own state


def test_two_tabs_on_one_upload_keep_their_own_values_reports_and_plans(page):
    settings, client = page
    first = job_of(upload(settings, client, {"log": ("style_hand.csv", (SAMPLES / "style_hand.csv").read_bytes())}))
    # two tabs from the same column page: opposite values
    tab_a = job_of(choose(settings, client, first, metric="steps", a="formal", b="casual", go="validate"))
    tab_b = job_of(choose(settings, client, first, metric="steps", a="casual", b="formal", go="validate"))
    assert len({first, tab_a, tab_b}) == 3
    report_a = json.loads(get(page, tab_a, "file/report.json").text)
    report_b = json.loads(get(page, tab_b, "file/report.json").text)
    assert (report_a["a"], report_a["b"]) == ("formal", "casual") and (report_b["a"], report_b["b"]) == ("casual",
                                                                                                         "formal")
    assert report_a["average_gap"] == pytest.approx(-report_b["average_gap"], abs=1e-12)  # the sign flipped, only
    # a reload of A's page after B's change: still A's
    assert "The report compares ‘formal’ and ‘casual’" in get(page, tab_a, "validate").text
    assert "The report compares ‘casual’ and ‘formal’" in get(page, tab_b, "validate").text
    # the back button: the first page is as it was, nothing chosen
    assert form_of(get(page, first, "map").text)["fields"]["a"] == ""
    # each tab's plan is its own, and its download holds it
    plans = {}
    for tab, items in ((tab_a, "6"), (tab_b, "8")):
        r = client.post(f"/{settings.token}/a/{tab}/plan", data={"csrf": settings.csrf, "items": items, "runs": "5",
                                                                 "sims": "60"}, follow_redirects=True)
        plans[tab] = wait_for_plan(client, r)
    for tab, items in ((tab_a, [6]), (tab_b, [8])):
        held = json.loads(client.get(plan_link(plans[tab].text)).text)
        assert [c["items"] for c in held["cells"]] == items
    # one tab's plan is not reachable from the other's address
    other = plan_link(plans[tab_a].text).replace(f"/a/{tab_a}/", f"/a/{tab_b}/")
    assert client.get(other).status_code == 400


@pytest.mark.parametrize("name", ["style_hand.xlsx", "style_hand.csv"])
def test_values_chosen_on_the_first_visit_are_kept_for_every_format(page, name):
    """The sheet a spreadsheet's first visit shows chosen, posted back, is no change of sheet: the values chosen
    with it are the ones compared, and the column page shows them chosen."""
    settings, client = page
    job = job_of(upload(settings, client, {"log": (name, (SAMPLES / name).read_bytes())}))
    checked = choose(settings, client, job, a="casual", b="formal", reference="", go="validate")
    assert "The report compares ‘casual’ and ‘formal’" in checked.text
    form = form_of(get(page, job_of(checked), "map").text)
    assert form["fields"]["a"] == form["options"]["a"]["casual"]
    assert form["fields"]["b"] == form["options"]["b"]["formal"]
    command = command_of(get(page, job_of(checked), "results").text)
    assert "--a casual --b formal" in command


def test_going_back_to_the_columns_keeps_headers_with_spaces_and_odd_characters(page, tmp_path, capsys):
    settings, client = page
    log = make_log(items=6, runs=3, seed=4).rename({"item": " Item ", "variant": "Variant", "steps": "Steps"})
    log = log.with_columns(pl.col("seed").alias("Qüestion & 'n' <b>"))
    data = log.write_csv().encode()
    job = job_of(upload(settings, client, {"log": ("friendly.csv", data)}))
    checked = choose(settings, client, job, metric="Steps", seed="Qüestion & 'n' <b>", go="validate")
    assert 'id="to-results"' in checked.text
    job = job_of(checked)
    # back to the columns: every choice as it was, header for header
    back = form_of(get(page, job, "map").text)
    for name, header in (("item", " Item "), ("metric", "Steps"), ("seed", "Qüestion & 'n' <b>")):
        assert back["fields"][name] == back["options"][name][header], name
    # sent again as shown: the same check, no error
    again = choose(settings, client, job, go="validate")
    assert 'id="to-results"' in again.text and problems_listed(again.text) == problems_listed(checked.text)
    command = command_of(get(page, job_of(again), "results").text)
    assert shlex.split(command)[5:7] == ["--column", "seed=Qüestion & 'n' <b>"]  # the header exactly
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "friendly.csv").write_bytes(data)
    assert run_command(command, folder, capsys) == 0
    assert (folder / "report.md").read_bytes() == get(page, job_of(again), "file/report.md").content


def test_a_two_line_design_answer_stays_two_lines(page, tmp_path, capsys):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("style_hand.csv", (SAMPLES / "style_hand.csv").read_bytes())}))
    job = job_of(choose(settings, client, job, metric="steps", go="validate"))
    r = client.post(f"/{settings.token}/a/{job}/facts", data={
        "csrf": settings.csrf, "values_why": "Students write both ways.\r\nA tutor should help both.",
        "not_tested": "names\r\ndialect"}, follow_redirects=True)
    job = job_of(r)
    # the form shows the two lines (the browser drops the one newline after <textarea>)
    assert '<textarea id="fact-values_why" name="values_why">\nStudents write both ways.\nA tutor should help both.' \
           '</textarea>' in r.text
    toml = get(page, job, "file/probe.toml").text
    assert tomllib.loads(toml)["values_why"] == "Students write both ways.\nA tutor should help both."
    md = get(page, job, "file/report.md").text
    assert "- **Why these values matter:** Students write both ways.\\\n  A tutor should help both.\n" in md
    assert "Students write both ways.<br>A tutor should help both." in get(page, job, "file/report.html").text
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "style_hand.csv").write_bytes((SAMPLES / "style_hand.csv").read_bytes())
    (folder / "probe.toml").write_text(toml, encoding="utf-8")
    assert run_command(command_of(r.text), folder, capsys) == 0
    assert (folder / "report.md").read_text(encoding="utf-8") == md


def test_an_upload_is_read_once_for_all_its_pages(page, monkeypatch):
    import probestats.io.read as read

    calls = []
    real = read.read_log

    def counted(source, **kwargs):
        calls.append(kwargs.get("sheet"))
        return real(source, **kwargs)

    monkeypatch.setattr(read, "read_log", counted)
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("style_hand.xlsx", HAND.read_bytes())}))
    for _ in range(3):
        get(page, job, "map")
    job = job_of(choose(settings, client, job, go="update"))
    for _ in range(3):
        get(page, job, "map")
    assert len(calls) == 1  # the column pages of both analyses: the sheet read once


# ---------------------------------------------------------------- every fix on the page, in its words


FLAG = re.compile(r"(?<![\w-])--[a-z]")


def test_fold_case_on_the_page_gives_the_report_the_check_announced(page, tmp_path, capsys):
    settings, client = page
    data = messy_sheet()
    job = job_of(upload(settings, client, {"log": ("messy.csv", data)}))
    loose = choose(settings, client, job, metric="steps", go="validate")
    # without folding, the check says what the report will do: compare four values
    assert "The report compares the 4 values ‘formal’, ‘casual’, ‘Formal’, ‘Casual’" in loose.text
    near = [m for code, m in problems_listed(loose.text) if code == "near_duplicate_value"]
    assert near and all("“Fold case”" in m and not FLAG.search(m) for m in near)  # the control, not the flag
    folded = choose(settings, client, job_of(loose), fold_case=True, go="validate")
    assert "The report compares ‘formal’ and ‘casual’ (gap = formal minus casual)." in folded.text
    assert "Fold case: yes" in folded.text and "Metric: steps" in folded.text  # what the page was told, listed
    job = job_of(folded)
    report = json.loads(get(page, job, "file/report.json").text)
    assert (report["a"], report["b"]) == ("formal", "casual")
    # by hand: folded, every item has its 5 runs per value; the gap is the mean of the per-item differences
    log = pl.read_csv(io.BytesIO(data)).with_columns(pl.col("variant").str.to_lowercase())
    means = log.group_by("item", "variant").agg(pl.col("steps").mean(), pl.len())
    assert set(means["len"]) == {5}
    cell = {(r["item"], r["variant"]): r["steps"] for r in means.iter_rows(named=True)}
    items = sorted({i for i, _ in cell})
    by_hand = sum(cell[(i, "formal")] - cell[(i, "casual")] for i in items) / len(items)
    assert report["average_gap"] == pytest.approx(by_hand, abs=1e-12)
    command = command_of(get(page, job, "results").text)
    assert "--fold-case" in shlex.split(command)
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "messy.csv").write_bytes(data)
    assert run_command(command.replace("report.md", "report.json"), folder, capsys) == 0
    assert (folder / "report.json").read_bytes() == get(page, job, "file/report.json").content


def test_a_judge_log_split_by_criterion_on_the_page_matches_by_criterion(page, tmp_path, capsys):
    settings, client = page
    data = pl.DataFrame(padding_log()).write_csv().encode()
    job = job_of(upload(settings, client, {"log": ("judge.csv", data)}))
    shown = form_of(get(page, job, "map").text)
    assert shown["fields"]["by"] == shown["options"]["by"]["criterion"]  # suggested, shown chosen
    pooled = choose(settings, client, job, metric="level", a="padded", b="plain", by="", go="validate")
    assert "criteria_pooled" in dict(problems_listed(pooled.text))
    split = choose(settings, client, job_of(pooled), by="criterion", go="validate")
    assert "criteria_pooled" not in dict(problems_listed(split.text))
    job = job_of(split)
    command = command_of(get(page, job, "results").text)
    assert command == ("probestats report judge.csv --metric level --a padded --b plain --by criterion --plain "
                       "-o report.md")
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "judge.csv").write_bytes(data)
    assert run_command(command.replace("report.md", "report.json"), folder, capsys) == 0
    page_json = get(page, job, "file/report.json").content
    assert (folder / "report.json").read_bytes() == page_json
    groups = {g["by"]["criterion"]: g for g in json.loads(page_json)["groups"]}
    # by hand from the judge of the padding probe: directness s01 4->4, s02 2->3, s03 2->3
    assert set(groups) == {"claims_cited", "directness", "counterargument"}
    assert groups["directness"]["average_gap"] == pytest.approx(2 / 3, abs=1e-12)


def test_a_setting_that_is_the_attribute_and_a_column_set_to_none(page, tmp_path, capsys):
    settings, client = page
    data = (SAMPLES / "broken" / "confounded_model.csv").read_bytes()
    job = job_of(upload(settings, client, {"log": ("confounded.csv", data)}))
    bad = choose(settings, client, job, metric="steps", go="validate")
    (message,) = [m for code, m in problems_listed(bad.text) if code == "confounded_setting"]
    assert "“Part of the attribute” set to model" in message and "“Split by” set to model" in message
    assert not FLAG.search(message)
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "confounded.csv").write_bytes(data)
    for choice, flags, validate_flags in (
            ({"attribute_settings": ["model"]}, ["--setting-is-attribute", "model"], ["--setting-is-attribute",
                                                                                     "model"]),
            ({"model": ""}, ["--column", "model="], ["--column", "model="])):
        fixed = choose(settings, client, job_of(bad), go="validate", **choice)
        assert 'id="to-results"' in fixed.text, problems_listed(fixed.text)
        checked_with = shlex.split(command_of(fixed.text, "validate-command"))
        assert checked_with[-2:] == validate_flags
        assert run_command(shlex.join(checked_with), folder, capsys) == 0
        done = job_of(fixed)
        command = command_of(get(page, done, "results").text)
        assert shlex.split(command)[-5:-3] == flags
        assert run_command(command, folder, capsys) == 0
        assert (folder / "report.md").read_bytes() == get(page, done, "file/report.md").content


def test_a_file_without_a_metric_column_is_explained_in_a_sentence(page):
    settings, client = page
    data = b"item,variant,reply\n1,formal,a\n1,casual,b\n2,formal,c\n2,casual,d\n"
    job = job_of(upload(settings, client, {"log": ("words.csv", data)}))
    columns = get(page, job, "map").text
    assert 'id="no-metric"' in columns and "No column of this file holds numbers" in columns
    assert "required" not in re.search(r'<select id="metric"[^>]*>', columns).group(0)
    sent = choose(settings, client, job, go="validate")
    assert sent.status_code == 400 and "no column of this file holds numbers" in sent.text
    assert "add a column with it" in sent.text


@pytest.mark.parametrize("name", ["style_hand.csv", "style_hand.xlsx"])
def test_the_one_column_of_numbers_is_shown_chosen_as_the_metric(page, name):
    settings, client = page
    job = job_of(upload(settings, client, {"log": (name, (SAMPLES / name).read_bytes())}))
    form = form_of(get(page, job, "map").text)
    # run_id, seed and temperature hold numbers too, but number or describe the runs
    assert form["fields"]["metric"] == form["options"]["metric"]["steps"]
    assert "Chosen for you" in get(page, job, "map").text


def test_the_preview_shows_whole_numbers_without_a_decimal_point(page):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("style_hand.xlsx", HAND.read_bytes())}))
    preview = get(page, job, "map").text.split('<table class="preview">')[1].split("</table>")[0]
    cells = re.findall(r"<td>([^<]*)</td>", preview)
    assert "0.8" in cells and not any(re.fullmatch(r"-?\d+\.0", c) for c in cells)


def test_every_choice_the_page_offers_is_a_flag_of_the_commands_it_shows():
    import inspect

    from probestats.cli import cli
    from probestats.present.report.plain import WORDS
    from probestats.jobs.report import report
    from probestats.serve.session import CHOICES

    flags = {name: {o for p in command.params for o in getattr(p, "opts", ())}
             for name, command in cli.commands.items()}
    from probestats.jobs.report import ANALYSIS_KEYWORDS

    keywords = set(inspect.signature(report).parameters) | set(ANALYSIS_KEYWORDS)
    for choice in CHOICES:
        assert choice.name in WORDS  # its label, the words messages name it by
    from dataclasses import fields

    from probestats.shape.probe import Probe

    shaping = {f.name for f in fields(Probe)}
    for choice in CHOICES:   # the page offers every one
        assert choice.name in (shaping if choice.probe else keywords)
        assert choice.flag.split(" ")[0] in flags["report"], choice.name
        for command in choice.commands:
            assert choice.flag in flags[command], (choice.name, command)


# ---------------------------------------------------------------- every command shown, run


def run_everything(page, job, texts, folder, capsys):
    """Run every command ``texts`` (pages of analysis ``job``) show, in ``folder``; compare with the page's files."""
    settings, client = page
    seen = {}
    for text in texts:
        seen.update(commands(text))
    assert seen
    for key, command in seen.items():
        args = shlex.split(command)
        if args[1] == "report":
            for fmt in ("md", "html", "json"):
                assert run_command(command.replace("-o report.md", f"-o report.{fmt}"), folder, capsys) == 0, key
                assert (folder / f"report.{fmt}").read_bytes() == get(page, job, f"file/report.{fmt}").content, fmt
            archive = zipfile.ZipFile(io.BytesIO(get(page, job, "file/report.zip").content))
            for name in archive.namelist():
                assert archive.read(name) == (folder / name).read_bytes(), name
        elif args[1] == "validate":
            code = run_command(command + " --json", folder, capsys)
            printed = json.loads(capsys.readouterr().out)
            check = next(t for t in texts if 'id="validate-command"' in t)
            assert Counter(p["code"] for p in printed["problems"]) == codes_on(check) - Counter(["criteria_pooled"])
            assert code == (0 if printed["ok"] else 1)
        elif args[1] == "plan":
            assert run_command(command, folder, capsys) == 0
            plan_page = next(t for t in texts if 'id="plan-command"' in t)
            assert capsys.readouterr().out == client.get(plan_link(plan_page)).text
        else:  # an analysis printed as JSON
            assert run_command(command, folder, capsys) == 0
            assert capsys.readouterr().out == get(page, job, "file/analysis.json").text
    return seen


@pytest.mark.parametrize("flow", ["hand sheet and noise file", "hand sheet alone", "messy sheet folded",
                                  "judge by criterion"])
def test_every_command_the_page_shows_runs_and_writes_the_pages_files(page, tmp_path, capsys, flow):
    settings, client = page
    folder = tmp_path / "by-hand"
    folder.mkdir()
    if flow == "judge by criterion":
        files = {"log": ("judge.csv", pl.DataFrame(padding_log()).write_csv().encode())}
        choices = dict(metric="level", a="padded", b="plain", by="criterion")
    elif flow == "messy sheet folded":
        files = {"log": ("messy.csv", messy_sheet())}
        choices = dict(metric="steps", fold_case=True, complete=True)
    else:
        files = {"log": ("style_hand.xlsx", HAND.read_bytes())}
        if flow == "hand sheet and noise file":
            files["noise"] = ("style_noise.csv", NOISE.read_bytes())
        choices = {}
    for name, data in files.values():
        (folder / name).write_bytes(data)
    job = job_of(upload(settings, client, files))
    mapped = choose(settings, client, job, go="update", **choices)
    job = job_of(mapped)
    checked = choose(settings, client, job, go="validate")
    job = job_of(checked)
    assert 'id="to-results"' in checked.text, problems_listed(checked.text)
    results = get(page, job, "results").text
    r = client.post(f"/{settings.token}/a/{job}/plan", data={"csrf": settings.csrf, "items": "6", "runs": "5",
                                                             "sims": "60"}, follow_redirects=True)
    plan = wait_for_plan(client, r).text
    seen = run_everything(page, job, [mapped.text, checked.text, results, plan], folder, capsys)
    assert {shlex.split(c)[1] for c in seen.values()} == {"report", "validate", "plan"}
    noise = shlex.split(seen["plan-command"])[3]
    assert noise == ("style_noise.csv" if "noise" in files else files["log"][0])  # the one spreadsheet suffices


def test_a_framing_log_takes_none_of_the_options_of_a_comparison(page):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("framing_long.csv", (SAMPLES / "framing_long.csv").read_bytes())}))
    shown = choose(settings, client, job, analysis="framing", fold_case=True, complete=True, go="update")
    assert commands(shown.text) and not any("--fold-case" in c or "--complete" in c
                                            for c in commands(shown.text).values())
    checked = get(page, job_of(shown), "validate").text
    assert "Fold case" not in checked and 'name="fold_case" value="1" checked' not in get(page, job_of(shown),
                                                                                        "map").text


@pytest.mark.parametrize("kind", ["zip bomb", "far corner"])
def test_a_hostile_spreadsheet_is_one_line_on_every_page_and_is_read_once(page, tmp_path, kind):
    import time

    from tests.hostile.spreadsheets import far_corner_xlsx, zip_bomb_xlsx

    path = tmp_path / "hostile.xlsx"
    (zip_bomb_xlsx(path, expanded=1 << 30) if kind == "zip bomb" else far_corner_xlsx(path))
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("hostile.xlsx", path.read_bytes())}))
    started = time.monotonic()
    for step in ("map", "map", "validate", "results", "plan"):
        r = client.get(f"/{settings.token}/a/{job}/{step}")
        assert "Traceback" not in r.text and str(settings.folder) not in r.text
        errors = re.findall(r'class="error" role="alert">(.*?)</p>', r.text, re.S)
        assert len(errors) <= 1 and all("\n" not in e for e in errors), (step, r.text[-600:])
        assert errors or step == "plan", step
    assert time.monotonic() - started < 120  # refused before it is expanded, every time


def test_the_check_counts_the_problems_of_a_kind_beyond_five_and_validate_prints_them_all(page, tmp_path, capsys):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("style_hand.csv", (SAMPLES / "style_hand.csv").read_bytes())}))
    bad = choose(settings, client, job, metric="steps", item="run_id", go="validate")
    assert len([c for c, _ in problems_listed(bad.text) if c == "unmatched_item"]) == 5
    assert "60 errors: the report cannot be made" in bad.text  # every run its own item: 60 items, each unmatched
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "style_hand.csv").write_bytes((SAMPLES / "style_hand.csv").read_bytes())
    assert run_command(command_of(bad.text, "validate-command") + " --json", folder, capsys) == 1
    printed = json.loads(capsys.readouterr().out)
    assert Counter(p["code"] for p in printed["problems"]) == codes_on(bad.text) == Counter(unmatched_item=60)
