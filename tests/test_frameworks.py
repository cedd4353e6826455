"""Logs of the tools probes are run with, read into the same per-item table as the CSV of their rows.

The fixtures under tests/data/frameworks/ were written by the tools themselves (inspect_ai with its
mock model, promptfoo with its echo provider and its response cache, lm-eval with its dummy model)
or, for Open WebUI, in the layout its export code writes; each script that made them sits beside
them, with the CSV it wrote from the tool's own output (inspect_ai's reader of its log; the
standard library for the others): the reference every test here compares against.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from tests.engines import analyze
from probestats.cli import main
from probestats.io.read import read_log
from probestats.shape.probe import Probe

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "frameworks"
SAMPLES = ROOT / "sample_logs"
STEPS = r"steps=^\s*\d+[.)]"
STEPS_TEXT = r"steps=count:^\s*\d+[.)]"   # the same rule as --from-text gives it
WEBUI_ALL = DATA / "chat-export-1764583200000.json"
WEBUI_ONE = DATA / "chat-export-1764579600000.json"
RULES = ("formal=^Good afternoon", "casual=^hey")
PROMPTS = ("formal=prompt:^Good afternoon", "casual=prompt:^hey")   # RULES as --from-text gives them
LM_SAMPLES = next(DATA.glob("lm_eval/*/samples_style_probe_mc_*.jsonl"))


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def same_analysis(tool, reference, metric, **options):
    """The tool's log and the CSV of its rows give the same per-item table and the same tests."""
    probe = options.pop("probe", None)
    got = analyze(tool, metric=metric, a="formal", b="casual", probe=probe, **options).to_dict()
    want = analyze(reference, metric=metric, a="formal", b="casual", **options).to_dict()
    assert got["n_items"] == want["n_items"] > 0
    assert sorted(got["items"], key=lambda r: str(r["item"])) == sorted(want["items"], key=lambda r: str(r["item"]))
    for key in ("average_gap", "sign_flip", "sign_test", "interval", "min_attainable_p"):
        assert got[key] == want[key], key
    return got


# ---------------------------------------------------------------- inspect_ai

def test_inspect_eval_reads_as_the_csv_of_its_samples():
    got = same_analysis(DATA / "style_probe.eval", DATA / "style_probe_samples.csv", "steps")
    assert got["n_items"] == 8 and {r["n_a"] for r in got["items"]} == {3}   # 3 epochs are the runs


def test_inspect_letter_scores_are_mapped_to_numbers():
    same_analysis(DATA / "style_probe.eval", DATA / "style_probe_samples.csv", "includes")
    log = read_log(DATA / "style_probe.eval", metric="includes")
    reference = pl.read_csv(DATA / "style_probe_samples.csv")
    # C -> 1 and I -> 0 (the CSV holds inspect_ai's own letters, mapped in the script that wrote it)
    got = log.frame.select("sample_id", "seed", "includes").sort("sample_id", "seed")
    want = reference.select("sample_id", pl.col("epoch").alias("seed"), pl.col("includes").cast(pl.Float64))
    assert got.equals(want.sort("sample_id", "seed"))


def test_inspect_json_log_reads_as_the_csv_of_its_samples():
    same_analysis(DATA / "style_probe.json", DATA / "style_probe_json_samples.csv", "steps")


def test_inspect_log_names_its_settings_and_keys(capsys):
    log = read_log(DATA / "style_probe.eval", metric="steps")
    assert log.format == "inspect_ai .eval log"
    assert log.columns["item"] == "metadata.item" and log.columns["variant"] == "metadata.style"
    assert log.columns["seed"] == "epoch"
    frame = log.frame
    assert set(frame["model"]) == {"mockllm/model"} and set(frame["temperature"]) == {0.7}
    assert set(frame["generate.max_tokens"]) == {200} and set(frame["generate.seed"]) == {11}
    assert set(frame["metadata.topic.area"]) == {"debugging"}   # nested metadata, flattened
    code, out, _ = run(capsys, "validate", DATA / "style_probe.eval", "--metric", "steps", "--json")
    assert code == 0 and json.loads(out)["format"] == "inspect_ai .eval log"


@pytest.mark.parametrize("metric", ["steps", "includes"])
def test_analyze_of_the_eval_log_on_the_command_line_matches_its_csv(capsys, metric):
    # no --a/--b: the rows come in inspect_ai's own order, as in the CSV its reader wrote
    code, out, _ = run(capsys, "analyze", DATA / "style_probe.eval", "--metric", metric, "--json")
    code_csv, out_csv, _ = run(capsys, "analyze", DATA / "style_probe_samples.csv", "--metric", metric,
                               "--column", "seed=epoch", "--json")
    assert code == code_csv == 0
    got, want = json.loads(out), json.loads(out_csv)
    for key in ("a", "b", "n_items", "average_gap", "items", "sign_flip", "sign_test", "interval", "noise"):
        assert got[key] == want[key], key


def test_rows_come_in_inspect_ais_own_order():
    frame = read_log(DATA / "style_probe.eval").frame
    want = pl.read_csv(DATA / "style_probe_samples.csv")
    assert frame["sample_id"].to_list() == want["sample_id"].to_list()
    assert frame["seed"].to_list() == want["epoch"].to_list()


def test_column_can_name_nested_metadata():
    log = read_log(DATA / "style_probe.eval", columns={"variant": "metadata.topic.area"})
    assert set(log.frame["variant"]) == {"debugging"}
    assert "metadata.style" in log.frame.columns   # the default it replaced stays a column of its own


def test_errored_samples_are_read_and_named():
    log = read_log(DATA / "errored.eval", metric="steps")
    problem = next(p for p in log.problems if p.code == "errored_samples")
    assert "3-casual (epoch 1)" in problem.message and "1 sample of" in problem.message
    row = log.frame.filter(pl.col("sample_id") == "3-casual")
    assert row.height == 1 and row["steps"][0] is None and "not available" in row["error"][0]


def test_a_log_still_running_is_read_with_what_it_holds():
    log = read_log(DATA / "running.eval", metric="steps")
    problem = next(p for p in log.problems if p.code == "log_incomplete")
    assert "4 samples of the 48 planned (16 samples x 3 epochs) (1-casual (epoch 1), 1-formal (epoch 1), " \
           "2-casual (epoch 1), 2-formal (epoch 1))" in problem.message
    assert log.frame.height == 4


def test_a_log_is_recognized_from_its_content_not_its_suffix(tmp_path):
    for name, copy in (("style_probe.eval", "run.data"), ("style_probe.json", "run.txt"),
                       ("promptfoo_echo.json", "output"), (WEBUI_ONE.name, "chats.dat")):
        shutil.copyfile(DATA / name, tmp_path / copy)
        assert read_log(tmp_path / copy).format is not None, name


def test_a_damaged_eval_archive_is_one_error_line(tmp_path, capsys):
    data = (DATA / "style_probe.eval").read_bytes()
    broken = tmp_path / "cut.eval"
    broken.write_bytes(data[: len(data) // 2])
    code, _, err = run(capsys, "validate", broken, "--metric", "steps")
    assert code == 1 and err.startswith("Error: ") and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------- promptfoo

def test_promptfoo_results_read_as_their_csv():
    probe = Probe(columns=(("variant", "vars.style"),))
    for metric in ("words", "score", "success", "polite"):
        same_analysis(DATA / "promptfoo_echo.json", DATA / "promptfoo_echo.csv", metric, probe=probe)


def test_promptfoo_runs_are_rebuilt_from_repeats_in_test_order():
    log = read_log(DATA / "promptfoo_echo.json")
    frame = log.frame.sort("test_idx")
    assert log.columns["variant"] == "vars.style" and log.columns["seed"] == "run"
    # testIdx counts every (repeat, style) of a test in turn: 0 formal, 1 casual, 2 formal, ...
    first = frame.filter(pl.col("item") == 1)
    assert first["test_idx"].to_list() == [0, 1, 2, 3, 4, 5]
    assert first["seed"].to_list() == [1, 1, 2, 2, 3, 3]
    assert first["variant"].to_list() == ["formal", "casual"] * 3


def test_cached_repeats_are_named_and_can_be_left_out(capsys):
    log = read_log(DATA / "promptfoo_cached.json")
    problem = next(p for p in log.problems if p.code == "cached_response")
    raw = json.loads((DATA / "promptfoo_cached.json").read_text())["results"]["results"]
    cached = sorted(r["testIdx"] for r in raw if r["response"].get("cached"))
    assert cached == [0, 1, 6, 7, 12, 13, 18, 19]   # the first repeat of each test, as the script set up
    for index in cached:
        assert f"testIdx {index} (" in problem.message
    assert "run 1)" in problem.message and "run 2)" not in problem.message
    shaped = Probe(where="NOT cached").apply(DATA / "promptfoo_cached.json")
    assert shaped.frame.height == 16 and not shaped.frame["cached"].any()
    code, out, _ = run(capsys, "validate", DATA / "promptfoo_cached.json", "--metric", "words")
    assert code == 0 and "cached_response" in out and "testIdx 0 (style=formal, run 1)" in out


# ---------------------------------------------------------------- lm-evaluation-harness

def test_lm_eval_samples_read_as_their_csv():
    for metric in ("acc", "acc_norm"):
        same_analysis(LM_SAMPLES, DATA / "lm_eval_samples.csv", metric)


def test_lm_eval_model_comes_from_the_results_file_or_the_folder(tmp_path):
    log = read_log(LM_SAMPLES, metric="acc")
    assert log.format == "lm-evaluation-harness samples" and set(log.frame["model"]) == {"dummy"}
    assert log.columns["item"] == "doc.item" and log.columns["variant"] == "doc.style"
    folder = tmp_path / "my-model"
    folder.mkdir()
    shutil.copyfile(LM_SAMPLES, folder / LM_SAMPLES.name)   # no results file beside it
    assert set(read_log(folder / LM_SAMPLES.name).frame["model"]) == {"my-model"}


# ---------------------------------------------------------------- Open WebUI

def webui_probe(**extra):
    return Probe(count=(STEPS,), variant_from=RULES, **extra)


def test_open_webui_export_reads_as_its_csv():
    probe = webui_probe(where="chat_title <> 'Both styles in one thread'")
    got = same_analysis(WEBUI_ALL, DATA / "open_webui_replies.csv", "steps", probe=probe)
    assert {r["n_a"] for r in got["items"]} == {3}   # the 3 regenerations of each question are its runs


def test_open_webui_rows_carry_model_time_and_regeneration():
    log = webui_probe().apply(WEBUI_ONE, metric="steps")
    frame = log.frame
    assert log.format == "Open WebUI chat export" and frame.height == 12
    assert set(frame["model"]) == {"llama3.2:3b"} and frame["time"][0] == "2025-12-01T08:00:40+00:00"
    assert frame["seed"].to_list() == [1, 2, 3] * 4 and frame["item"].to_list() == [1] * 3 + [2] * 3 + [3] * 3 + [4] * 3
    assert frame["prompt"][0].startswith("Good afternoon.") and set(frame["variant"]) == {"formal"}


def test_values_shared_in_one_thread_are_warned_about():
    log = webui_probe().apply(WEBUI_ALL, metric="steps")
    shared = [p for p in log.problems if p.code == "shared_thread"]
    assert len(shared) == 1 and "'Both styles in one thread'" in shared[0].message
    assert "'formal' and 'casual'" in shared[0].message
    frame = log.frame.with_row_index("i")
    mixed = frame.filter(pl.col("chat_title") == "Both styles in one thread")["_row"].to_list()
    assert list(shared[0].rows) == [r + 1 for r in mixed]


def test_a_prompt_no_rule_matches_is_named():
    log = Probe(variant_from=("formal=^Good afternoon",)).apply(WEBUI_ALL)
    problem = next(p for p in log.problems if p.code == "no_variant_rule")
    casual = log.frame.filter(pl.col("variant").is_null()).height
    assert casual == 14 and f"of {casual} replies" in problem.message


# ---------------------------------------------------------------- metrics counted from the reply

def test_count_reproduces_the_tutorial_logs_steps_column():
    log = Probe(count=(r"counted=^\s*\d+[.)]",)).apply(SAMPLES / "style_probe.csv")
    frame = log.frame
    assert frame.height == 320
    assert frame["counted"].to_list() == [int(s) for s in frame["steps"].to_list()]


def test_count_named_like_the_logs_column_reproduces_its_analysis(capsys):
    args = ("analyze", SAMPLES / "style_probe.csv", "--metric", "steps", "--a", "formal", "--b", "casual", "--json")
    code, out, _ = run(capsys, *args)
    code_counted, counted, _ = run(capsys, *args, "--from-text", STEPS_TEXT)
    assert code == code_counted == 0
    got, want = json.loads(counted), json.loads(out)
    assert not [p for p in got["problems"] if p["code"] == "replaced_column"]   # the recount agrees everywhere
    for key in ("n_items", "average_gap", "items", "sign_flip", "sign_test", "interval", "noise"):
        assert got[key] == want[key], key


def test_a_count_that_differs_from_the_column_it_replaces_is_warned_about():
    log = Probe(count=(r"steps=^\s*\d+\.",)).apply(
        [{"item": 1, "variant": "a", "steps": 2, "reply": "1) a\n2) b"},
         {"item": 1, "variant": "b", "steps": 2, "reply": "1. a\n2. b"}])
    problem = next(p for p in log.problems if p.code == "replaced_column")
    assert problem.rows == (1,) and "differ in 1 row (record 1)" in problem.message
    assert log.frame["steps"].to_list() == [0, 2]


def test_count_counts_replies_numbered_with_a_parenthesis():
    rows = [{"item": 1, "variant": "a", "reply": "Try:\n1) look\n2) fix\n  3) test"},
            {"item": 1, "variant": "b", "reply": "Try:\n1. look\n2. fix"}]
    both = Probe(count=(STEPS,)).apply(rows)
    assert both.frame["steps"].to_list() == [3, 2]
    dots = Probe(count=(r"steps=^\s*\d+\.",)).apply(rows)   # a pattern that only knows '1.'
    assert dots.frame["steps"].to_list() == [0, 2]
    problem = next(p for p in dots.problems if p.code == "zero_count")
    assert problem.rows == (1,) and "1 of 2 replies (record 1)" in problem.message


def test_words_chars_and_number():
    rows = [{"item": 1, "variant": "a", "reply": "Score: 7 of 10, said twice"},
            {"item": 1, "variant": "b", "reply": "no score"}]
    log = Probe(words=("words",), chars=("chars",), number=(r"score=Score:\s*(\d+)",)).apply(rows)
    # hand count: 'Score:', '7', 'of', '10,', 'said', 'twice' = 6 words; 26 characters
    assert log.frame.select("words", "chars", "score").rows() == [(6, 26, 7.0), (2, 8, None)]


@pytest.mark.parametrize("pattern", [r"run \d+: score (?<v>\d+)",    # a named group Python's re cannot read
                                     r"run \pN+: score (\pN+)",        # a Unicode class Python's re cannot read
                                     r"run \d+: score (?P<v>\d+)",     # both parsers read these two
                                     r"run \d+: score (\d+)"])
def test_number_reads_the_group_the_dialect_finds(tmp_path, capsys, pattern):
    # by hand: the group holds 8 and 2, so the gap is 8 - 2 = 6; the whole match would give 5 - 1 = 4
    rows = [{"item": 1, "variant": "a", "reply": "run 5: score 8"}, {"item": 1, "variant": "b", "reply": "run 1: score 2"}]
    assert Probe(number=(f"score={pattern}",)).apply(rows).frame["score"].to_list() == [8.0, 2.0]
    path = tmp_path / "runs.csv"
    pl.DataFrame(rows).write_csv(path)
    code, out, _ = run(capsys, "analyze", path, "--metric", "score", "--from-text", f"score=number:{pattern}", "--json")
    assert code == 0 and json.loads(out)["average_gap"] == 6.0


def test_a_pattern_the_dialect_cannot_compile_is_refused_with_its_reason(tmp_path, capsys):
    path = tmp_path / "runs.csv"
    pl.DataFrame([{"item": 1, "variant": "a", "reply": "score 8"}]).write_csv(path)
    code, _, err = run(capsys, "analyze", path, "--metric", "score", "--from-text", r"score=number:(?<=score )(\d+)")
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert err.startswith("Error: --from-text 'score=number:(?<=score )(\\d+)': not a regular expression polars can use (")
    assert "look-around" in err


def test_zero_counts_list_every_reply_in_the_open_webui_export(capsys):
    code, out, _ = run(capsys, "validate", WEBUI_ONE, "--from-text", r"steps=count:^\s*\d+\.", "--from-text", PROMPTS[0],
                       "--metric", "steps")
    assert "zero_count" not in out   # the formal chat numbers with '1.' throughout (one value: not ok)
    code, out, _ = run(capsys, "validate", WEBUI_ALL, "--from-text", r"steps=count:^\s*\d+\.", "--from-text", PROMPTS[0],
                       "--from-text", PROMPTS[1], "--metric", "steps", "--json")
    zero = next(p for p in json.loads(out)["problems"] if p["code"] == "zero_count")
    frame = Probe(count=(r"steps=^\s*\d+\.",)).apply(WEBUI_ALL).frame
    assert zero["rows"] == [r + 1 for r in frame.filter(pl.col("steps") == 0)["_row"].to_list()]
    assert len(zero["rows"]) == 3   # the casual question answered with '1)' numbering, 3 regenerations


def test_the_report_states_the_counted_metric(tmp_path, capsys):
    out = tmp_path / "report.md"
    code, _, err = run(capsys, "report", WEBUI_ALL, "--from-text", STEPS_TEXT, "--from-text", PROMPTS[0], "--from-text",
                       PROMPTS[1], "--metric", "steps", "--a", "formal", "--b", "casual", "--where",
                       "chat_title <> 'Both styles in one thread'", "-o", out)
    assert code == 0, err
    text = out.read_text()
    assert "Metric steps: the number of matches of the pattern" in text
    assert "'formal' where the prompt matches '^Good afternoon'" in text


@pytest.mark.parametrize("args, line", [
    (("--from-text", "steps"), "Error: --from-text 'steps': expected NAME=words, NAME=chars, NAME=count:REGEX"),
    (("--from-text", "steps=count:(?<=a)b"),
     "Error: --from-text 'steps=count:(?<=a)b': not a regular expression polars can use"),
    (("--from-text", "reply=count:x"),
     "Error: --from-text reply=count:x: 'reply' is a column the counting reads or named twice"),
])
def test_bad_count_options_are_one_error_line(capsys, args, line):
    code, _, err = run(capsys, "validate", WEBUI_ONE, *args)
    assert code in (1, 2) and err.startswith(line) and len(err.strip().splitlines()) == 1


def test_count_needs_a_reply_column(capsys):
    code, _, err = run(capsys, "validate", SAMPLES / "style_noise.csv", "--from-text", STEPS_TEXT, "--column",
                       "reply=missing_header")
    assert code in (1, 2) and err.startswith("Error: ")


def test_a_folder_of_eval_logs_reads_as_one_log(tmp_path):
    for name in ("style_probe.eval", "errored.eval"):
        shutil.copyfile(DATA / name, tmp_path / name)
    log = Probe().apply(tmp_path, metric="steps")
    counts = {Path(f).name: n for f, n in log.frame.group_by("file").len().iter_rows()}
    assert counts == {"errored.eval": 16, "style_probe.eval": 48} and log.format == "inspect_ai .eval log"


# ---------------------------------------------------------------- hostile logs

HOSTILE = {
    "inspect.json": '{"version": 2, "status": "success", "eval": {"model": 3}, "samples": [{"id": [1], "epoch": "x", '
                    '"metadata": "not a dict", "scores": {"s": {"value": {"a": "C", "b": null}}, "model": 2}, '
                    '"input": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], "output": 5}]}',
    "promptfoo.json": '{"evalId": "e", "results": {"version": 3, "results": [{"testIdx": "a", "vars": [1, 2], '
                      '"provider": "p", "response": null, "namedScores": {"score": true, "error": 2}}, 7, '
                      '{"testIdx": 1, "vars": {"style": {"x": 1}}, "response": {"output": {"a": 1}, "cached": 1}}]}}',
    "webui.json": '[{"id": "c", "chat": {"history": {"messages": {"a": {"id": "a", "parentId": "b", "role": "user", '
                  '"content": "x"}, "b": {"id": "b", "parentId": "a", "role": "assistant", "content": 5, '
                  '"timestamp": 1e300, "childrenIds": ["zz"]}, "c": 4}}}}]',
    "samples_t_2020-01-01T00-00-00.jsonl": '{"doc_id": 0, "doc": [1], "resps": [], "metrics": ["acc", "bad"], '
                                           '"acc": true, "bad": {"x": 1}, "arguments": [[]]}\n',
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_odd_but_recognized_logs_read_or_refuse_in_one_line(tmp_path, capsys, name):
    path = tmp_path / name
    path.write_text(HOSTILE[name])
    assert read_log(path).format is not None
    code, out, err = run(capsys, "validate", path)
    assert "unexpected" not in err and (code == 0 or err.startswith("Error: ") or "not ok" in out)


def test_a_promptfoo_file_of_another_version_is_refused(tmp_path, capsys):
    path = tmp_path / "old.json"
    path.write_text('{"results": {"version": 2, "results": []}}')
    code, _, err = run(capsys, "validate", path)
    assert code == 1 and err.strip() == ("Error: 'old.json' holds promptfoo results of version 2; probestats reads "
                                         "version 3 (write them again with a current promptfoo)")


def test_an_eval_archive_with_a_broken_member_is_one_error_line(tmp_path, capsys):
    import zipfile

    path = tmp_path / "bad.eval"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("header.json", "{not json")
    code, _, err = run(capsys, "validate", path)
    assert code == 1 and err.strip() == ("Error: 'bad.eval' is damaged: the member header.json cannot be read "
                                         "(JSONDecodeError); is the file complete?")
