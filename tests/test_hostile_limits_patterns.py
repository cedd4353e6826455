"""The fourth hostile campaign's classes, one case each: a column limit raised past the memory, patterns that
backtrack without end on Python's re, and R files whose reader crashes or warns.

Each case answers or is refused in one line, within 10 s.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from probestats.cli import main
from probestats.errors import OptionError, ReadError
from tests.hostile.campaign import (CATASTROPHIC, REFUSED_CONSTRUCTS, _wide_csv, nested_lists_rds,
                                    plain_list_rds)

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    return lines[0]


# ---------------------------------------------------------------- raised limits


def _child(argv, folder: Path, address_space: int) -> subprocess.CompletedProcess:
    code = (f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({address_space}, {address_space}))\n"
            f"import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom probestats.cli import main\nsys.exit(main({argv!r}))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=folder, env=env,
                          timeout=60)


def test_a_raised_column_limit_meets_the_memory_estimate_before_the_work(tmp_path):
    # 2,504 columns with --read max-columns raised past them (the refusal's own advice): under an address space
    # too small for the checks' estimate (1 MB a column beside 0.5 GB: 3.0 GB) the log is refused before the
    # work with the estimate and what to do, where polars' engine, refused memory, aborted the process
    (tmp_path / "log.csv").write_bytes(_wide_csv(2_504, 4))
    started = time.perf_counter()
    done = _child(["validate", "log.csv", "--metric", "steps", "--read", "max-columns=1000000000"], tmp_path,
                  2_500_000_000)
    assert time.perf_counter() - started < 10
    assert done.returncode == 1, done.stderr
    line = one_error_line(done.stderr)
    assert line.startswith("Error: 'log.csv' has 2,504 columns: checking them would take about 3.0 GB of memory, "
                           "more than the ")
    assert "(its address-space limit (ulimit -v) of 2.5 GB); keep the columns the probe needs" in line
    assert "probestats sql" in line


def test_the_memory_estimate_is_the_stated_arithmetic():
    from probestats.io.columns import SPACE_BESIDE, SPACE_PER_COLUMN, check_memory

    room = (SPACE_BESIDE + 2_504 * SPACE_PER_COLUMN, "its address-space limit", None, "")
    check_memory(2_504, "w.csv", room=room)   # exactly the estimate: fits
    with pytest.raises(ReadError, match=r"2,505 columns: checking them would take about 3\.0 GB"):
        check_memory(2_505, "w.csv", room=room)
    # resident memory, bounded by the machine or a container, at 0.2 MB a column beside 0.3 GB
    with pytest.raises(ReadError, match=r"about 1\.3 GB of memory, more than the 1\.0 GB .*\(the container's"):
        check_memory(5_000, "w.csv", room=(None, "", 1_000_000_000, "the container's memory limit"))


def test_a_wide_log_read_in_several_passes_gives_the_same_analysis(capsys, tmp_path, monkeypatch):
    # the streaming checks read a wide log in passes of AGGREGATIONS_PER_PASS aggregations joined by cell: with
    # three aggregations a pass, every setting column's pass must give what one pass gives
    from probestats.checks import stream

    rows = [{"item": i, "variant": v, "seed": s, "model": "m", "temperature": 0.5, "steps": (i * 3 + s) % 7 + (v == "b")}
            for i in range(1, 9) for v in ("a", "b") for s in (1, 2, 3)]
    pl.DataFrame(rows).write_csv(tmp_path / "log.csv")
    argv = ["analyze", tmp_path / "log.csv", "--metric", "steps", "--json"]
    code, whole, err = run(capsys, *argv)
    assert code == 0, err
    monkeypatch.setattr(stream, "AGGREGATIONS_PER_PASS", 3)
    code, split, err = run(capsys, *argv)
    assert code == 0, err
    assert json.loads(split) == json.loads(whole)
    # and the gap (a − b) is the one computed by hand: b is a plus 1 in every run
    assert json.loads(whole)["average_gap"] == pytest.approx(-1.0)


# ---------------------------------------------------------------- catastrophic patterns


def _backtracks(pattern: str, text: str) -> bool:
    """What Python's re says, on a text short enough that its backtracking ends (the independent reference)."""
    return re.search(pattern, text) is not None


@pytest.mark.parametrize("pattern, reply", CATASTROPHIC)
def test_a_code_book_pattern_that_backtracks_without_end_answers_at_once(pattern, reply):
    from probestats.shape.codebook import read_book

    book = read_book([{"pattern": pattern, "label": "hit", "score": 1}])
    short = [reply[:8] + reply[-1], reply[:6], "a a", "xxy", "word word"]
    started = time.perf_counter()
    got = book.code([reply, *short])["label"].to_list()
    assert time.perf_counter() - started < 10
    assert got[0] is None   # thirty characters that never match: unparsed, at once
    assert got[1:] == ["hit" if _backtracks(pattern, s) else None for s in short]


def test_a_verdict_rule_that_backtracks_without_end_answers_at_once():
    from probestats.shape.verdicts import extract_all, parse_rules

    rules = parse_rules(["first=re:(x+x+)+y", "second=[[B]]"])
    replies = ["x" * 30, "x" * 30 + "y", "xxxy [[B]]", "[[B]]", "xy"]
    started = time.perf_counter()
    got = [(v.label, v.reason) for v in extract_all(replies, rules)]
    assert time.perf_counter() - started < 10
    assert got == [(None, "no_match"), ("first", None), (None, "several_labels"), ("second", None),
                   (None, "no_match")]
    # whole cells: the expression must match the trimmed cell whole
    whole = extract_all([" xxy ", "xxyz"], parse_rules(["first=re:(x+x+)+y", "second=B"]), whole=True)
    assert [v.label for v in whole] == ["first", None]


def test_a_catastrophic_pattern_on_the_command_line_answers_within_10_s(capsys, tmp_path):
    rows = [{"item": i, "variant": v, "reply": ("a" * 30 + "!") if v == "a" else "a" * 30}
            for i in range(1, 7) for v in ("a", "b")]
    pl.DataFrame(rows).write_csv(tmp_path / "log.csv")
    (tmp_path / "book.csv").write_text("pattern,label,score\n(a+)+$,ends,1\n.,other,0\n")
    started = time.perf_counter()
    code, out, err = run(capsys, "analyze", tmp_path / "log.csv", "--code", f"c={tmp_path / 'book.csv'}",
                         "--metric", "c", "--json")
    assert time.perf_counter() - started < 10
    assert code == 0, err
    # b's replies end in a (score 1), a's in ! (score 0): a gap (a − b) of −1 in every item
    assert json.loads(out)["average_gap"] == pytest.approx(-1.0)


@pytest.mark.parametrize("pattern, named", REFUSED_CONSTRUCTS)
def test_a_pattern_the_dialect_refuses_is_named_by_its_construct(capsys, tmp_path, pattern, named):
    from probestats.shape.codebook import read_book
    from probestats.shape.verdicts import parse_rule

    with pytest.raises(OptionError) as book:
        read_book([{"pattern": pattern, "label": "x"}])
    with pytest.raises(OptionError) as verdict:
        parse_rule(f"first=re:{pattern}")
    for said in (str(book.value), str(verdict.value)):
        assert named in said and "regex parse error" not in said and "\n" not in said
        assert "rescale" not in said
    if pattern == "(":   # a lone ( is an unclosed group, not look-around
        assert "look-around" not in str(book.value)
    pl.DataFrame({"item": [1, 1], "variant": ["a", "b"], "reply": ["x", "y"]}).write_csv(tmp_path / "log.csv")
    code, _, err = run(capsys, "validate", tmp_path / "log.csv", "--from-text", f"n=count:{pattern}", "--metric", "n")
    assert code in (1, 2)
    line = one_error_line(err)
    assert named in line and "regex parse error" not in line


# ---------------------------------------------------------------- R structures


def test_an_rds_of_nested_lists_that_crashes_the_reader_is_one_error(capsys, tmp_path):
    pytest.importorskip("pyreadr")
    (tmp_path / "log.rds").write_bytes(nested_lists_rds(100_000))
    started = time.perf_counter()
    code, _, err = run(capsys, "validate", tmp_path / "log.rds", "--metric", "steps")
    assert time.perf_counter() - started < 10
    assert code == 1
    assert one_error_line(err).startswith("Error: the R reader crashed on 'log.rds' (a segmentation fault): ")


def test_an_rds_holding_no_data_frame_is_one_error_without_the_readers_warning(tmp_path):
    pytest.importorskip("pyreadr")
    (tmp_path / "log.rds").write_bytes(plain_list_rds())
    # in a process of its own, as a person runs it: nothing of the reader's warning (its source path) on the terminal
    done = subprocess.run([sys.executable, "-m", "probestats", "validate", "log.rds", "--metric", "steps"],
                          capture_output=True, text=True, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          timeout=60)
    assert done.returncode == 1
    line = one_error_line(done.stderr)
    assert line.startswith("Error: 'log.rds' holds no data frame")
    assert "UserWarning" not in done.stderr and "pyreadr.py" not in done.stderr


def _small_rds(tmp_path) -> Path:
    pyreadr = pytest.importorskip("pyreadr")
    import pandas as pd

    path = tmp_path / "log.rds"
    pyreadr.write_rds(str(path), pd.DataFrame({"item": [1, 1, 2, 2], "variant": ["a", "b", "a", "b"],
                                               "steps": [1.0, 2.0, 3.0, 5.0]}))
    return path


def test_read_options_that_do_not_apply_to_an_r_file_warn(capsys, tmp_path):
    path = _small_rds(tmp_path)
    code, out, err = run(capsys, "validate", path, "--metric", "steps", "--read", "sheet=2", "--read", "skip-rows=3",
                         "--read", "encoding=latin-1", "--json")
    assert code == 0, err
    warned = [p for p in json.loads(out)["problems"] if p["code"] == "ignored_option"]
    assert sorted(p["message"].split(" does not apply")[0] for p in warned) == [
        "--read encoding=latin-1", "--read sheet=2", "--read skip-rows=3"]


def test_max_cells_bounds_an_r_files_data_frame_before_it_is_loaded(capsys, tmp_path):
    path = _small_rds(tmp_path)
    code, _, err = run(capsys, "validate", path, "--metric", "steps", "--read", "max-cells=5")
    assert code == 1
    assert one_error_line(err) == ("Error: 'log.rds' holds a data frame of 4 rows x 3 columns (12 cells), more than "
                                   "--read max-cells=5; raise the limit with --read max-cells=12 if it is really "
                                   "that large")
    code, _, err = run(capsys, "validate", path, "--metric", "steps", "--read", "max-cells=12")
    assert code == 0, err


def test_the_dialects_own_constructs_read_in_a_code_book_with_its_folding():
    # named groups, flags and Unicode classes are left as written while the letters are folded
    from probestats.shape.codebook import read_book

    book = read_book([{"pattern": r"(?P<Word>OUI)", "label": "oui"}, {"pattern": r"^\p{Greek}+$", "label": "greek"},
                      {"pattern": r"\pN", "label": "number"}])
    assert book.code(["Oui !", "αβγ", "x 7", "zz"])["label"].to_list() == ["oui", "greek", "number", None]
