"""Inputs are read-only: an output that is a file the command reads is refused before anything is read."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from probestats.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_logs"


@pytest.fixture
def folder(tmp_path):
    for name in ("style_probe.csv", "style_noise.csv", "framing_long.csv", "framing_targets.csv"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    (tmp_path / "probe.toml").write_text('attribute = "writing style"\n')
    return tmp_path


def _refused(capsys, argv, victim: Path, *names):
    before = victim.read_bytes()
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    assert "which this command reads" in err
    for name in names:  # the message names the output and the input
        assert name in err
    assert victim.read_bytes() == before  # byte for byte


def test_report_onto_its_own_log_is_refused(folder, capsys):
    log = folder / "style_probe.csv"
    # the suffix check comes after: the refusal is about the input, whatever the suffix
    _refused(capsys, ["report", log, "--metric", "steps", "-o", log], log, "-o", "LOG")


@pytest.mark.parametrize("option, name", [("--noise", "style_noise.csv"), ("--design", "probe.toml"),
                                          ("--framing", "framing_long.csv")])
def test_report_onto_any_file_it_reads_is_refused(folder, capsys, option, name):
    victim = folder / name
    _refused(capsys, ["report", folder / "style_probe.csv", "--metric", "steps", option, victim, "-o", victim],
             victim, option)


def test_report_onto_the_targets_is_refused(folder, capsys):
    victim = folder / "framing_targets.csv"
    _refused(capsys, ["report", folder / "style_probe.csv", "--metric", "steps", "--framing",
                      folder / "framing_long.csv", "--targets", f"{victim}", "-o", victim], victim, "--targets")


@pytest.mark.parametrize("which", ["BEFORE", "AFTER"])
def test_compare_onto_either_log_is_refused(folder, capsys, which):
    before, after = folder / "style_probe.csv", folder / "style_noise.csv"
    shutil.copy(before, folder / "after.md")
    victim = before if which == "BEFORE" else after
    _refused(capsys, ["compare", before, after, "--metric", "steps", "-o", victim], victim, which)


def test_a_symlink_to_the_log_is_refused(folder, capsys):
    log = folder / "style_probe.csv"
    link = folder / "report.md"
    os.symlink(log, link)
    _refused(capsys, ["report", log, "--metric", "steps", "-o", link], log, "report.md", "style_probe.csv")
    assert link.is_symlink()


def test_a_hard_link_and_a_dotted_path_are_refused(folder, capsys):
    log = folder / "style_probe.csv"
    hard = folder / "hard.md"
    os.link(log, hard)
    _refused(capsys, ["report", log, "--metric", "steps", "-o", hard], log)
    dotted = folder / "sub" / ".." / "style_probe.csv"
    (folder / "sub").mkdir()
    _refused(capsys, ["report", log, "--metric", "steps", "-o", dotted], log)


def test_plan_plot_onto_the_noise_log_is_refused(folder, capsys):
    noise = folder / "style_noise.csv"
    _refused(capsys, ["plan", "--noise", noise, "--metric", "steps", "--gap", "1", "--plot", noise],
             noise, "--plot", "--noise")


def test_plan_plot_is_written_whole(folder, capsys):
    plot = folder / "power.png"
    code = main(["plan", "--noise", str(folder / "style_noise.csv"), "--metric", "steps", "--items", "6",
                 "--runs", "2", "--sims", "50", "--gap", "1", "--plot", str(plot)])
    assert code == 0, capsys.readouterr().err
    assert plot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert [p.name for p in folder.iterdir() if p.name.startswith(".")] == []  # no temporary file left
