"""A setting declared drawn per call at whose levels no item has runs of both values cannot be matched within:
``validate`` refuses it as ``analyze`` does, from the one check both call (``unmatched_refusal``), in the same
words; a setting whose levels repeat within items passes both."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import probestats
from probestats.errors import OptionError
from tests.cli_run import one_error_line, run_cli


@pytest.fixture
def log(tmp_path) -> Path:
    """10 items x 2 values x 3 runs: a request id distinct in every row and a temperature drawn from two levels."""
    path = tmp_path / "log.csv"
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["item", "variant", "seed", "score", "request", "t"])
        k = 0
        for i in range(10):
            for v in "ab":
                for s in range(3):
                    k += 1
                    writer.writerow([f"i{i}", v, s, (i * 7 + s * 3) % 5 + (v == "a"), f"r{k}", (0.2, 0.7)[(i + s) % 2]])
    return path


def _matched_by_hand(path: Path, column: str) -> bool:
    """Some item has runs of both values at one level of ``column`` (read from the CSV row by row)."""
    seen: dict = {}
    with path.open() as f:
        for row in csv.DictReader(f):
            seen.setdefault((row["item"], row[column]), set()).add(row["variant"])
    return any(len(v) == 2 for v in seen.values())


@pytest.mark.parametrize("metric", [("--metric", "score"), ()])
def test_validate_refuses_what_analyze_refuses_in_the_same_words(capsys, log, metric):
    column = "request"
    assert not _matched_by_hand(log, column)
    code, _, analyzed = run_cli(capsys, "analyze", log, "--metric", "score", "--random-setting", column)
    one_error_line(code, analyzed)
    code, _, validated = run_cli(capsys, "validate", log, *metric, "--random-setting", column)
    one_error_line(code, validated)
    assert validated == analyzed
    assert validated.startswith(f"Error: --random-setting {column}: no item has runs of both 'a' and 'b' at one "
                                f"level of {column} (")
    code, _, as_json = run_cli(capsys, "validate", log, *metric, "--random-setting", column, "--json")
    one_error_line(code, as_json)


def test_a_setting_whose_levels_repeat_within_items_passes_both(capsys, log):
    assert _matched_by_hand(log, "t")
    code, out, err = run_cli(capsys, "validate", log, "--metric", "score", "--random-setting", "t")
    assert code == 0 and "ok: no errors" in out, err
    code, out, err = run_cli(capsys, "analyze", log, "--metric", "score", "--random-setting", "t")
    assert code == 0, err


def test_the_python_validate_raises_the_option_error(log):
    with pytest.raises(OptionError, match=r"random_settings=\['request'\]: no item has runs of both"):
        probestats.validate(str(log), metric="score", probe=probestats.Probe(random_settings=["request"]))
