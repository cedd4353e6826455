"""The local page's framing and order-probe flows, and the reference of more than two values: the column page
offers them when it finds their columns, and every report and analysis it gives is the one the command it
shows writes, byte for byte. Each analysis is also checked against a count by hand.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import defaultdict

import polars as pl
import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from starlette.testclient import TestClient  # noqa: E402

from probestats.serve.app import Settings, make_app  # noqa: E402
from tests.factories import make_log  # noqa: E402
from tests.framing_factory import make_yes_no_log  # noqa: E402
from tests.judge_factory import Judge, make_judge_log  # noqa: E402
from tests.test_serve import HOST, SAMPLES, choose, command_of, job_of, run_command, upload  # noqa: E402

FRAMING = SAMPLES / "framing_long.csv"
TARGETS = SAMPLES / "framing_targets.csv"


@pytest.fixture
def page(tmp_path):
    settings = Settings(folder=tmp_path / "uploads", hosts=(HOST,))
    return settings, TestClient(make_app(settings), base_url=f"http://{HOST}")


def get(page, job, what):
    settings, client = page
    return client.get(f"/{settings.token}/a/{job}/{what}")


def same_bytes(page, job, command, folder, capsys, files=("md", "html", "json")):
    """Every report download equals the file the page's command writes in ``folder``."""
    for fmt in files:
        assert run_command(command.replace("-o report.md", f"-o report.{fmt}"), folder, capsys) == 0
        got = get(page, job, f"file/report.{fmt}")
        assert got.status_code == 200, got.text[-300:]
        assert got.content == (folder / f"report.{fmt}").read_bytes(), fmt


def printed_by(command, folder, capsys) -> str:
    assert run_command(command, folder, capsys) == 0
    return capsys.readouterr().out


# ---------------------------------------------------------------- dual framing


def test_a_framing_log_is_offered_its_analysis_and_reports_as_its_commands(page, tmp_path, capsys):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("framing_long.csv", FRAMING.read_bytes())}))
    columns = get(page, job, "map").text
    # the framing column is found, so the framing analysis is offered and chosen, and the topics asked about
    assert re.search(r'id="analysis-framing" name="analysis" value="framing" checked', columns)
    assert 'id="analysis-judge"' not in columns  # no order column: no order probe offered
    assert re.findall(r'<th scope="row" id="topic-(\d+)">([^<]+)</th>', columns) == [("0", "leadership"),
                                                                                    ("1", "remote_work")]
    targets = dict(enumerate(csv.DictReader(io.StringIO(TARGETS.read_text(encoding="utf-8")))))
    typed = {}
    for n, row in targets.items():
        typed |= {f"target-aff-{n}": row["affirmative"], f"target-rev-{n}": row["reverse"]}
    checked = choose(settings, client, job, analysis="framing", answers="auto", go="validate", **typed)
    assert 'id="to-results"' in checked.text and "the report cannot be made" not in checked.text
    job = job_of(checked)
    results = get(page, job, "results").text
    command, analysis = command_of(results), command_of(results, "analysis-command")
    assert command == "probestats report --framing framing_long.csv --targets targets.csv --plain -o report.md"
    assert analysis == "probestats framing framing_long.csv --targets targets.csv --json"
    assert "fact-attribute" not in results  # the framing report has no design facts to fill in
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "framing_long.csv").write_bytes(FRAMING.read_bytes())
    written = get(page, job, "file/targets.csv")
    assert written.headers["content-disposition"] == 'attachment; filename="targets.csv"'
    assert list(csv.DictReader(io.StringIO(written.text))) == list(targets.values())  # the typed targets
    (folder / "targets.csv").write_bytes(written.content)
    same_bytes(page, job, command, folder, capsys)
    printed = printed_by(analysis, folder, capsys)
    assert get(page, job, "file/analysis.json").text == printed
    # the typed targets are the sample's targets file: the same analysis as with that file
    (folder / "sample_targets.csv").write_bytes(TARGETS.read_bytes())
    assert printed_by(analysis.replace("targets.csv", "sample_targets.csv"), folder, capsys) == printed
    assert get(page, job, "file/analysis_command.txt").text == analysis + "\n"


def test_framing_without_targets_leans_toward_the_affirmative_claim(page, tmp_path, capsys):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("framing_long.csv", FRAMING.read_bytes())}))
    checked = choose(settings, client, job, analysis="framing", go="validate")
    # the analysis's own warning is shown, and does not block the report
    assert "unnamed_targets" in checked.text and 'id="to-results"' in checked.text
    job = job_of(checked)
    results = get(page, job, "results").text
    assert command_of(results) == "probestats report --framing framing_long.csv --plain -o report.md"
    assert 'id="dl-targets"' not in results
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "framing_long.csv").write_bytes(FRAMING.read_bytes())
    same_bytes(page, job, command_of(results), folder, capsys, files=("md",))


def wide_yes_no(seed=4):
    """A yes/no framing log with one row per claim: the answer to each framing in a column of its own."""
    long = make_yes_no_log(models={"m": {"yes_affirmative": 0.8, "yes_reverse": 0.3}}, languages=("en",),
                           claims=12, seed=seed).drop("asserts")
    keys = ["model", "topic", "language", "item", "iteration"]
    aff = long.filter(pl.col("framing") == "affirmative").select(*keys, pl.col("reply").alias("aff_reply"))
    rev = long.filter(pl.col("framing") == "reverse").select(*keys, pl.col("reply").alias("rev_reply"))
    return aff.join(rev, on=keys, how="inner", maintain_order="left")


def test_framing_answers_in_two_columns_read_as_yes_or_no(page, tmp_path, capsys):
    settings, client = page
    log = wide_yes_no()
    data = log.write_csv().encode()
    job = job_of(upload(settings, client, {"log": ("claims.csv", data)}))
    columns = get(page, job, "map").text
    # no framing column, but two answer columns that differ only in the framing's word
    assert 'id="analysis-framing"' in columns
    assert re.search(r'<option value="\d+" selected>aff_reply</option>', columns)
    assert re.search(r'<option value="\d+" selected>rev_reply</option>', columns)
    job = job_of(choose(settings, client, job, analysis="framing", answers="yes-no", framing_aff="aff_reply",
                        framing_rev="rev_reply", go="validate"))
    results = get(page, job, "results").text
    analysis = command_of(results, "analysis-command")
    assert analysis == ("probestats framing claims.csv --answers yes-no --framing-columns "
                        "affirmative=aff_reply,reverse=rev_reply --json")
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "claims.csv").write_bytes(data)
    printed = printed_by(analysis, folder, capsys)
    assert get(page, job, "file/analysis.json").text == printed
    same_bytes(page, job, command_of(results), folder, capsys, files=("md", "json"))
    # by hand: yes scores +1 and no -1; the claim as stated is the reference, so per claim the aligned mean is
    # (s_aff - s_rev) / 2 = yes_aff - yes_rev, and the bias their mean over claims
    yes = {"aff_reply": [r.startswith("Yes") for r in log["aff_reply"]],
           "rev_reply": [r.startswith("Yes") for r in log["rev_reply"]]}
    by_hand = sum(a - r for a, r in zip(yes["aff_reply"], yes["rev_reply"])) / log.height
    (cell,) = json.loads(printed)["cells"]
    assert cell["answers"] == "yes-no"
    assert cell["bias"] == pytest.approx(by_hand, abs=1e-12)


# ---------------------------------------------------------------- the order probe of a judge


def verdicts_log():
    log = make_judge_log(items=14, judges={"j1": Judge(0.5, 0.9), "j2": Judge(0.9, 0.5, ties=0.2)}, seed=5)
    return log.rename({"judge": "Judge", "order": "Position", "reply": "Judge reply"})


def consistency_by_hand(log, column):
    """Per judge: items whose two verdicts prefer the same answer (first then second, second then first, or
    a tie twice), primacy (first both times) and recency (second both times)."""
    pairs = defaultdict(dict)
    for row in log.iter_rows(named=True):
        pairs[(row["Judge"], row["item"])][row["Position"]] = row[column]
    out = defaultdict(lambda: [0, 0, 0, 0])
    for (judge, _), v in pairs.items():
        pair = (v["AB"], v["BA"])
        counts = out[judge]
        counts[0] += pair in (("first", "second"), ("second", "first"), ("tie", "tie"))
        counts[1] += pair == ("first", "first")
        counts[2] += pair == ("second", "second")
        counts[3] += 1
    return dict(out)


@pytest.mark.parametrize("source", ["reply", "choice"])
def test_an_order_probe_is_offered_and_reports_as_its_commands(page, tmp_path, capsys, source):
    settings, client = page
    log = verdicts_log()
    data = log.write_csv().encode()
    job = job_of(upload(settings, client, {"log": ("verdicts.csv", data)}))
    columns = get(page, job, "map").text
    assert re.search(r'id="analysis-judge" name="analysis" value="judge" checked', columns)
    for field, header in (("order", "Position"), ("judge_choice", "choice"), ("judge_by", "Judge")):
        assert re.search(rf'<select id="{field}" name="{field}">.*?<option value="\d+" selected>{header}</option>',
                         columns, re.S), field
    if source == "reply":
        mapping = dict(judge_reply="Judge reply", judge_choice="", verdict_first="[[A]]", verdict_second="[[B]]",
                       verdict_tie="[[C]]")
    else:
        mapping = dict(judge_choice="choice")
    checked = choose(settings, client, job, analysis="judge", order="Position", judge_by="Judge", go="validate",
                     **mapping)
    assert 'id="to-results"' in checked.text, checked.text[-2000:]
    job = job_of(checked)
    results = get(page, job, "results").text
    command, analysis = command_of(results), command_of(results, "analysis-command")
    read = ("--response 'Judge reply' --verdict 'first=[[A]]' --verdict 'second=[[B]]' --verdict 'tie=[[C]]'"
            if source == "reply" else "--choice choice")
    # the report takes the judge's columns as the judge command's flags
    assert command == (f"probestats report verdicts.csv --order Position {read} --by Judge "
                       "--plain -o report.md")
    assert analysis == f"probestats judge verdicts.csv --order Position {read} --by Judge --json"
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "verdicts.csv").write_bytes(data)
    same_bytes(page, job, command, folder, capsys)
    printed = printed_by(analysis, folder, capsys)
    assert get(page, job, "file/analysis.json").text == printed
    # by hand from the slot each verdict chose
    hand = consistency_by_hand(log, "choice")
    groups = json.loads(printed)["groups"]
    # a header "Judge" is the judge column (read by its name), and groups are keyed by the column's name
    assert {g["by"]["judge"]: [g["consistency"]["k"], g["primacy"], g["recency"], g["n_items"]] for g in groups} \
        == hand


def test_an_order_probe_without_verdict_marks_is_stopped_at_the_check(page):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("verdicts.csv", verdicts_log().write_csv().encode())}))
    checked = choose(settings, client, job, analysis="judge", order="Position", judge_reply="Judge reply",
                     judge_choice="", go="validate")
    assert '<li class="error">' in checked.text and 'id="to-results"' not in checked.text
    assert "type the text that marks a win of the first slot" in checked.text  # the fix, in the page's words
    refused = get(page, job_of(checked), "results")
    assert refused.status_code == 400 and "marks a win of the first slot" in refused.text


def test_an_order_probe_judged_again_takes_the_repetition_control(page, tmp_path, capsys):
    """Each item judged three times in both orders: without the repetition the check names the control
    (“Repetition”, never a flag); with it, the report and the analysis the commands give, each round's
    consistency as counted by hand."""
    settings, client = page
    log = make_judge_log(items=14, judges={"j1": Judge(0.5, 0.9)}, seed=5, repetitions=3).rename(
        {"repetition": "Round", "order": "Position"})
    data = log.write_csv().encode()
    job = job_of(upload(settings, client, {"log": ("rounds.csv", data)}))
    refused = choose(settings, client, job, analysis="judge", order="Position", judge_choice="choice",
                     judge_repetition="", go="validate")
    assert 'id="to-results"' not in refused.text and "with “Repetition” set to COL" in refused.text
    assert "--repetition" not in re.sub(r'<pre class="command".*?</pre>', "", refused.text, flags=re.S)
    checked = choose(settings, client, job, analysis="judge", order="Position", judge_choice="choice",
                     judge_repetition="Round", go="validate")
    assert 'id="to-results"' in checked.text, checked.text[-2000:]
    job = job_of(checked)
    results = get(page, job, "results").text
    command, analysis = command_of(results), command_of(results, "analysis-command")
    assert command == ("probestats report rounds.csv --order Position --choice choice --by judge --repetition Round "
                       "--plain -o report.md")
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "rounds.csv").write_bytes(data)
    same_bytes(page, job, command, folder, capsys)
    printed = printed_by(analysis, folder, capsys)
    assert get(page, job, "file/analysis.json").text == printed
    # each round's consistency by hand: items whose two verdicts prefer the same answer
    hand = {}
    for (rep,), rows in log.group_by(["Round"]):
        pairs = defaultdict(dict)
        for row in rows.iter_rows(named=True):
            pairs[row["item"]][row["Position"]] = row["choice"]
        hand[str(rep)] = sum((v["AB"], v["BA"]) in (("first", "second"), ("second", "first"), ("tie", "tie"))
                             for v in pairs.values())
    (group,) = json.loads(printed)["groups"]
    assert {r["repetition"]: r["consistency"]["k"] for r in group["repetitions"]} == hand


# ---------------------------------------------------------------- more than two values


def test_more_than_two_values_take_the_reference_chosen(page, tmp_path, capsys):
    settings, client = page
    log = make_log(items=6, runs=3, values=("plain", "formal", "casual"), seed=2)
    data = log.write_csv().encode()
    job = job_of(upload(settings, client, {"log": ("three.csv", data)}))
    job = job_of(choose(settings, client, job, metric="steps", go="update"))
    columns = get(page, job, "map").text
    # a dropdown of the values; left at its default the report's own (the first value), which the page names
    assert re.search(r'<select id="reference" name="reference"><option value="">\(the first value in the log\)'
                     r'</option>\s*<option value="0">plain</option>', columns)
    assert "the first value in the log, plain" in columns
    checked = choose(settings, client, job, metric="steps", reference="casual", go="validate")
    # the check says what the report does: every value against the reference chosen
    compared = "The report compares the 3 values ‘plain’, ‘formal’, ‘casual’, each against ‘casual’"
    assert compared in checked.text
    job = job_of(checked)
    results = get(page, job, "results").text
    command = command_of(results)
    assert command == "probestats report three.csv --metric steps --reference casual --plain -o report.md"
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "three.csv").write_bytes(data)
    same_bytes(page, job, command, folder, capsys, files=("md", "json"))
    report = json.loads(get(page, job, "file/report.json").text)
    assert report["reference"] == "casual"
    # by hand: the average over items of (item mean under a value - item mean under casual)
    means = log.group_by("item", "variant").agg(pl.col("steps").mean())
    cell = {(r["item"], r["variant"]): r["steps"] for r in means.iter_rows(named=True)}
    items = sorted({key[0] for key in cell})
    gaps = {g["a"]: (g["b"], g["average_gap"]) for g in report["gaps"]}
    for value in ("plain", "formal"):
        by_hand = sum(cell[(i, value)] - cell[(i, "casual")] for i in items) / len(items)
        assert gaps[value][0] == "casual" and gaps[value][1] == pytest.approx(by_hand, abs=1e-12), value


# ---------------------------------------------------------------- hostile files and plain pages


def _hostile_framing() -> bytes:
    from tests.hostile.campaign import HOSTILE

    texts = [t for t in HOSTILE if t.strip() and "\x00" not in t][:6]
    log = pl.read_csv(FRAMING)
    topics = {"leadership": texts[0], "remote_work": texts[1]}
    return log.with_columns(pl.col("Topic").replace_strict(topics), pl.col("Model").replace_strict(
        {"model-a": texts[2], "model-b": texts[3]})).write_csv().encode()


def _hostile_verdicts() -> bytes:
    from tests.hostile.campaign import HOSTILE

    texts = [t for t in HOSTILE if t.strip() and "\x00" not in t]
    log = verdicts_log()
    return log.with_columns(pl.col("Judge").replace_strict({"j1": texts[4], "j2": texts[5]}),
                            (pl.col("Judge reply") + pl.lit(texts[6]))).write_csv().encode()


def assert_text_only(responses):
    from tests.hostile.campaign import HTML_MARKERS

    for r in responses:
        assert r.status_code == 200, r.text[-600:]
        for marker in HTML_MARKERS:
            assert marker not in r.text
        assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", r.text)
        assert "<script" not in r.text.lower()


def test_a_hostile_framing_log_and_hostile_targets_are_shown_as_text(page):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("framing.csv", _hostile_framing())}))
    typed = {"target-aff-0": "<img src=x onerror=alert(1)>", "target-rev-0": "b", "target-aff-1": "\x1b[2Jc",
             "target-rev-1": "d"}
    assert len(re.findall(r'<th scope="row" id="topic-\d+">', get(page, job, "map").text)) == 2
    job = job_of(choose(settings, client, job, analysis="framing", go="update", **typed))
    assert_text_only([get(page, job, step) for step in ("map", "validate", "results", "view/report.html")])
    assert "&lt;img src=x onerror=alert(1)&gt;" in get(page, job, "map").text  # the typed target, kept as text
    # the topics are the log's own (controls and all), though the page showed them made visible
    written = list(csv.reader(io.StringIO(get(page, job, "file/targets.csv").text)))
    assert [row[0] for row in written[1:]] == pl.read_csv(io.BytesIO(_hostile_framing()))["Topic"].unique(
        maintain_order=True).to_list()


def test_a_hostile_verdicts_log_is_shown_as_text(page):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("verdicts.csv", _hostile_verdicts())}))
    job = job_of(choose(settings, client, job, analysis="judge", order="Position", judge_by="Judge",
                        judge_reply="Judge reply", judge_choice="", verdict_first="[[A]]", verdict_second="[[B]]",
                        go="update"))
    assert_text_only([get(page, job, step) for step in ("map", "validate", "results", "view/report.html")])


@pytest.mark.parametrize("name, data, mapping", [
    ("framing_long.csv", FRAMING.read_bytes(), {"analysis": "framing"}),
    ("verdicts.csv", None, {"analysis": "judge", "order": "Position", "judge_choice": "choice"}),
])
def test_the_new_fields_have_labels(page, name, data, mapping):
    settings, client = page
    data = data if data is not None else verdicts_log().write_csv().encode()
    job = job_of(upload(settings, client, {"log": (name, data)}))
    job = job_of(choose(settings, client, job, go="update", **mapping))
    for step in ("map", "results"):
        text = get(page, job, step).text
        ids = re.findall(r'<(?:input|select|textarea)[^>]*\bid="([^"]+)"', text)
        labelled = set(re.findall(r'<label for="([^"]+)"', text))
        assert set(ids) <= labelled, (step, set(ids) - labelled)
