"""Every command is one library call: ``probestats compare``, ``framing`` and ``judge`` print what
``probestats.compare``, ``probestats.framing`` and ``probestats.judge`` return, rendered."""

from __future__ import annotations

import pytest

from probestats import Tests
import probestats
from probestats.cli import main
from probestats.present.words.sanitize import json_text
from probestats.present.terminal.render import render_terminal
from probestats.present.terminal.tables import make_console
from probestats.result import document, dumps

BEFORE = "sample_logs/style_probe.csv"
AFTER = "sample_logs/style_probe.jsonl"
FRAMING = "sample_logs/framing_long.csv"
TARGETS = "sample_logs/framing_targets.csv"
VERDICTS = ["first=[[A]]", "second=[[B]]", "tie=[[C]]"]


@pytest.fixture(scope="module")
def judge_log(tmp_path_factory):
    import sys

    sys.path.insert(0, "tests")
    from judge_factory import Judge, make_judge_log

    path = tmp_path_factory.mktemp("judge") / "judge.csv"
    make_judge_log(items=10, judges={"j1": Judge(0.6, 0.9), "j2": Judge(0.9, 0.5)}, seed=3).write_csv(path)
    return str(path)


def _command(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def _terminal(capsys, result, printer=render_terminal):
    printer(result, make_console())
    return capsys.readouterr().out


def _json(result) -> str:
    return json_text(dumps(document(result))) + "\n"


def test_compare_is_the_library_call(capsys, tmp_path):
    result = probestats.compare(BEFORE, AFTER, metric="steps")
    assert type(result).__name__ == "Comparison"
    assert _command(capsys, "compare", BEFORE, AFTER, "--metric", "steps", "--json") == _json(result)
    assert _command(capsys, "compare", BEFORE, AFTER, "--metric", "steps") == _terminal(capsys, result)
    # the Markdown section: the command's file and the library's are the same bytes
    _command(capsys, "compare", BEFORE, AFTER, "--metric", "steps", "-o", tmp_path / "cli.md")
    probestats.compare(BEFORE, AFTER, metric="steps", output=tmp_path / "lib.md")
    assert (tmp_path / "cli.md").read_bytes() == (tmp_path / "lib.md").read_bytes()
    assert b"sign-flip" in (tmp_path / "lib.md").read_bytes()


def test_framing_is_the_library_call(capsys):
    result = probestats.framing(FRAMING, targets=TARGETS, tests=Tests(correction="bh"))
    assert type(result).__name__ == "FramingResult" and result.correction == "bh"
    argv = ["framing", FRAMING, "--targets", TARGETS, "--correction", "bh"]
    assert _command(capsys, *argv, "--json") == _json(result)
    assert _command(capsys, *argv) == _terminal(capsys, result)


def test_judge_is_the_library_call(capsys, judge_log):
    from probestats.present.terminal.judge import print_judge

    result = probestats.judge(judge_log, order="order", response="reply", verdicts=VERDICTS, by=["judge"])
    assert type(result).__name__ == "JudgeResult" and len(result.groups) == 2
    argv = ["judge", judge_log, "--order", "order", "--response", "reply", "--by", "judge",
            *(x for v in VERDICTS for x in ("--verdict", v))]
    assert _command(capsys, *argv, "--json") == _json(result)
    assert _command(capsys, *argv) == _terminal(capsys, result, print_judge)


def test_judge_refuses_two_sources_in_the_callers_spelling(judge_log, capsys):
    with pytest.raises(probestats.ProbestatsError, match="^give one of response, choice and score, not response and "
                                                         "choice$"):
        probestats.judge(judge_log, order="order", response="reply", choice="choice")
    code = main(["judge", judge_log, "--order", "order", "--response", "reply", "--choice", "choice"])
    assert code == 2
