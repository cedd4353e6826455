"""A path names one file: readers never expand ``*``, ``?`` or ``[...]`` as a pattern."""

from __future__ import annotations

import json

import pytest

from probestats.cli import main
from tests.factories import make_log, write_log

FORMATS = (".csv", ".tsv", ".json", ".jsonl", ".parquet", ".xlsx", ".ods")


def _gap_of(capsys, path) -> float:
    assert main(["analyze", str(path), "--metric", "steps", "--json"]) == 0
    return json.loads(capsys.readouterr().out)["average_gap"]


@pytest.mark.parametrize("suffix", FORMATS)
def test_a_name_with_brackets_reads_that_one_file_not_the_files_it_would_match(tmp_path, capsys, suffix):
    # probe1 has a planted gap of 6 (integer steps, sd 0); the named file 'probe[12]' has none.
    # Read as a pattern, 'probe[12]' would match probe1 (and probe2) and report a gap.
    write_log(make_log(items=6, runs=3, gap=6.0, sd=0.0), tmp_path / f"probe1{suffix}")
    write_log(make_log(items=6, runs=3, gap=6.0, sd=0.0), tmp_path / f"probe2{suffix}")
    write_log(make_log(items=6, runs=3, gap=0.0, sd=0.0), tmp_path / f"probe[12]{suffix}")
    assert _gap_of(capsys, tmp_path / f"probe1{suffix}") == pytest.approx(6.0)
    assert _gap_of(capsys, tmp_path / f"probe[12]{suffix}") == 0.0


@pytest.mark.parametrize("suffix", FORMATS)
@pytest.mark.parametrize("name", ["star*", "what?", "open[", "a[b]c", "{x,y}"])
def test_a_name_with_pattern_characters_that_match_nothing_is_readable(tmp_path, capsys, suffix, name):
    write_log(make_log(items=6, runs=2, gap=0.0, sd=0.0), tmp_path / f"{name}{suffix}")
    assert _gap_of(capsys, tmp_path / f"{name}{suffix}") == 0.0
