"""The readers of tool logs and two options on values no one foresaw: an integer past Python's 4,300-digit
limit, a lone surrogate, a number where a content part's text goes, a setting that is the item column, a
``--read records=`` miss on an object of 200,000 keys. Each is read, or refused in one ``Error:`` line with
exit 1; never an unexpected error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from probestats.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "frameworks"
LM_SAMPLES = next(DATA.glob("lm_eval/*/samples_style_probe_mc_*.jsonl"))
LM_RESULTS = next(DATA.glob("lm_eval/*/results_*.json"))
HUGE = "7" * 5000


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "unexpected" not in err and "Traceback" not in err
    return code, out, err


def _refused(capsys, *argv) -> str:
    code, _, err = _run(capsys, *argv)
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1, err
    return err.strip()


def _lm_eval(tmp_path: Path, line: int, edit) -> Path:
    folder = tmp_path / "lm"
    folder.mkdir()
    lines = LM_SAMPLES.read_text(encoding="utf-8").splitlines()
    lines[line - 1] = edit(lines[line - 1])
    (folder / LM_SAMPLES.name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / LM_RESULTS.name).write_bytes(LM_RESULTS.read_bytes())
    return folder / LM_SAMPLES.name


def test_a_huge_integer_in_promptfoo_results_is_one_error(tmp_path, capsys):
    path = tmp_path / "results.json"
    path.write_text((DATA / "promptfoo_echo.json").read_text(encoding="utf-8").replace("{", '{"n": ' + HUGE + ", ", 1))
    assert _refused(capsys, "validate", path, "--metric", "score") == (
        "Error: 'results.json' holds an integer of more than 4,300 digits, which Python does not convert; "
        "remove it or write it as text")


def test_a_huge_integer_in_an_inspect_json_log_is_one_error(tmp_path, capsys):
    path = tmp_path / "style_probe.json"
    path.write_text((DATA / "style_probe.json").read_text(encoding="utf-8").replace('"epoch": 1', '"epoch": ' + HUGE, 1))
    err = _refused(capsys, "analyze", path, "--metric", "steps")
    assert err.startswith("Error: 'style_probe.json' holds an integer of more than 4,300 digits")


def test_a_huge_integer_in_lm_eval_samples_names_its_line(tmp_path, capsys):
    path = _lm_eval(tmp_path, 3, lambda line: line.replace('"doc_id": ', '"doc_id": ' + HUGE + ', "was": ', 1))
    err = _refused(capsys, "validate", path, "--metric", "acc")
    assert err.startswith(f"Error: line 3 of {path.name} holds an integer of more than 4,300 digits")


def test_a_lone_surrogate_in_an_inspect_reply_is_read_as_the_replacement_character(tmp_path, capsys):
    data = json.loads((DATA / "style_probe.json").read_text(encoding="utf-8"))
    data["samples"][0]["output"]["completion"] = "PLACEHOLDER"
    path = tmp_path / "style_probe.json"
    path.write_text(json.dumps(data).replace("PLACEHOLDER", "1. look\\ud800 2. fix", 1))
    code, out, err = _run(capsys, "validate", path, "--metric", "steps", "--json")
    assert code in (0, 1) and err.count("Error:") <= 1
    code, out, err = _run(capsys, "analyze", path, "--metric", "length", "--from-text", "length=chars", "--json")
    assert code == 0, err
    # the lone surrogate is one U+FFFD, counted as one character
    from probestats.shape.probe import Probe

    frame = Probe(chars=("length",)).apply(path).frame
    assert "1. look\ufffd 2. fix" in frame["reply"].to_list()
    assert frame.filter(frame["reply"] == "1. look\ufffd 2. fix")["length"].to_list() == [len("1. look\ufffd 2. fix")]


def test_an_open_webui_content_part_whose_text_is_a_number_is_read_as_its_digits(tmp_path, capsys):
    chats = json.loads((DATA / "chat-export-1764583200000.json").read_text(encoding="utf-8"))
    message = next(m for m in chats[0]["chat"]["history"]["messages"].values() if m["role"] == "assistant")
    message["content"] = [{"type": "text", "text": 5}, {"type": "text", "text": " steps"}]
    for m in chats[0]["chat"].get("messages", []):
        if m.get("id") == message["id"]:
            m["content"] = message["content"]
    path = tmp_path / "chat-export-1.json"
    path.write_text(json.dumps(chats))
    code, out, err = _run(capsys, "validate", path, "--from-text", "w=words", "--metric", "w")
    assert code in (0, 1) and err.count("\n") <= 1, err
    from probestats.shape.probe import Probe

    assert "5 steps" in Probe(words=("w",)).apply(path).frame["reply"].to_list()


@pytest.mark.parametrize("column, role", [("item", "item"), ("variant", "value"), ("steps", "metric")])
def test_a_setting_that_is_the_item_value_or_metric_column_is_refused(tmp_path, monkeypatch, capsys, column, role):
    monkeypatch.chdir(tmp_path)
    err = _refused(capsys, "report", ROOT / "sample_logs" / "style_probe.csv", "--metric", "steps",
                   "--setting", f"{column}", "-o", "out.md")
    assert err == (f"Error: --setting {column}: '{column}' is the {role} column, not a setting of the runs; "
                   "name a column such as model, temperature or system")
    assert not list(tmp_path.iterdir())


def test_a_records_miss_on_a_wide_object_lists_twenty_keys(tmp_path, capsys):
    path = tmp_path / "wide.json"
    path.write_text(json.dumps({f"k{i}": i for i in range(200_000)}))
    err = _refused(capsys, "validate", path, "--read", "records=rows")
    keys = ", ".join(f"k{i}" for i in range(20))
    assert err == (f"Error: --read records=rows: no key 'rows' under the top level of 'wide.json'; keys there: {keys} "
                   "and 199,980 more")


def test_a_lone_surrogate_in_a_json_log_is_read_as_the_replacement_character(tmp_path, capsys):
    rows = [{"item": i, "variant": v, "model": "m\ud800" if i == 1 else "m", "steps": i + (v == "a")}
            for i in range(1, 4) for v in ("a", "b")]
    path = tmp_path / "log.json"
    path.write_text(json.dumps(rows))   # json.dumps writes the surrogate as the escape \ud800
    code, out, err = _run(capsys, "analyze", path, "--metric", "steps", "--json")
    assert code == 0, err
    assert json.loads(out)["average_gap"] == 1.0   # every item's gap is 1, by construction
