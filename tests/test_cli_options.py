"""The commands' options: few enough to scan, grouped in help, shared ones declared once, and spellings
that no command has refused as click refuses any unknown option (nothing was released, so no old
spelling is kept)."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from probestats.cli import cli, main

ROOT = Path(__file__).resolve().parent.parent
SOURCE = (ROOT / "probestats" / "cli.py").read_text(encoding="utf-8")
# raised while the wave's options land (--explode, --lookup, --code, --validation, --plain, --control, --baseline,
# --mechanism, --time-budget, --limit, --cluster, --random-setting); the parameter registry (one declaration per
# command) brings it back down
MOST_OPTIONS = 60   # report takes every option of the analyses it renders; --help shows the common ones


def options(command: click.Command) -> list[click.Option]:
    return [p for p in command.params if isinstance(p, click.Option)]


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_no_command_has_more_than_thirty_one_options(name):
    names = [p.opts[-1] for p in options(cli.commands[name])]
    assert len(names) <= MOST_OPTIONS, f"{name} has {len(names)} options: {' '.join(names)}"


@pytest.mark.parametrize("flag", ["--by", "--scale", "--order"])
def test_shared_options_are_declared_once_with_one_help(flag):
    assert not re.findall(r'click\.option\(\s*"' + re.escape(flag) + r'"', SOURCE), f"{flag} is declared in cli.py"
    helps = {p.help for c in cli.commands.values() for p in options(c) if flag in p.opts}
    assert len(helps) == 1, f"{flag} has {len(helps)} meanings"


def test_help_lists_the_options_in_groups(capsys):
    assert main(["report", "--help-all"]) == 0
    out = capsys.readouterr().out
    heads = [line for line in out.splitlines() if line.endswith(" options:")]
    assert heads == ["Input and shaping options:", "The comparison options:", "Tests options:", "Output options:"]


@pytest.mark.parametrize("command, old", [
    ("analyze", "--hedges"), ("analyze", "--format"), ("validate", "--sheet"), ("validate", "--skip-rows"),
    ("analyze", "--encoding"), ("analyze", "--max-cells"), ("analyze", "--records"), ("analyze", "--count"),
    ("analyze", "--words"), ("analyze", "--chars"), ("analyze", "--number"), ("analyze", "--variant-from"),
    ("analyze", "--cells"), ("analyze", "--noise-cells"), ("compare", "--before-cells"), ("plan", "--pilot-cells"),
    ("report", "--judge-by"), ("report", "--attribute")])
def test_a_spelling_no_command_has_is_refused_as_unknown(capsys, command, old):
    code = main([command, "sample_logs/style_probe.csv", old, "x"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert f"Error: No such option '{old}'" in err and "replaced" not in err
    assert "Traceback" not in err


def test_the_validate_help_example_runs(capsys):
    # the example in validate's help reads a sheet below two title rows: --read skip-rows=2
    assert main(["validate", "--help"]) == 0
    assert "--read skip-rows=2" in capsys.readouterr().out


def test_the_report_help_fits_on_two_screens():
    from click.testing import CliRunner

    done = CliRunner().invoke(cli, ["report", "--help"], terminal_width=100)
    assert done.exit_code == 0
    assert len(done.output.splitlines()) <= 2 * 50, "two screens of 50 lines, 100 columns wide"


def test_a_cell_table_is_recognized_as_an_input_kind(tmp_path, capsys):
    log = ROOT / "sample_logs" / "style_probe.csv"
    table = tmp_path / "cells.csv"
    assert main(["cells", str(log), "--metric", "steps", "-o", str(table)]) == 0
    capsys.readouterr()
    assert main(["analyze", str(table), "--metric", "steps", "--json"]) == 0
    assert '"n_items": 8' in capsys.readouterr().out


def test_report_settings_come_from_the_design_file_and_set(tmp_path, capsys):
    design = tmp_path / "probe.toml"
    design.write_text('attribute = "style"\nscale = "1:9"\n', encoding="utf-8")
    log = ROOT / "sample_logs" / "style_probe.csv"
    # a design file holds the design facts only: another key is refused naming the flag that takes it
    code = main(["report", str(log), "--metric", "steps", "--design", str(design), "-o", str(tmp_path / "r.md")])
    assert code == 1 and capsys.readouterr().err == f"Error: --design {design}: scale: not a design fact; give it as --scale\n"
    code = main(["report", str(log), "--metric", "steps", "--answers", "maybe", "-o",
                 str(tmp_path / "r.md")])
    assert code == 2 and "Invalid value for '--answers': 'maybe' is not one of" in capsys.readouterr().err


def test_a_cell_table_analysis_honours_seed_and_resamples_on_the_command_line(tmp_path, capsys):
    import json

    table = tmp_path / "cells.csv"
    assert main(["cells", str(ROOT / "sample_logs" / "style_probe.csv"), "--metric", "steps", "-o", str(table)]) == 0
    capsys.readouterr()
    seen = {}
    for seed, resamples in ((1, 2000), (2, 2000), (1, 3000)):
        assert main(["analyze", str(table), "--metric", "steps", "--interval", "bootstrap", "--seed", str(seed),
                     "--n-resamples", str(resamples), "--json"]) == 0
        interval = json.loads(capsys.readouterr().out)["interval"]
        assert f"({resamples:,} resamples, seed {seed})" in interval["method"]
        seen[seed, resamples] = (interval["low"], interval["high"])
    assert len(set(seen.values())) == 3


def test_welch_per_item_in_a_report_is_a_setting(tmp_path, capsys):
    log = ROOT / "sample_logs" / "style_probe.csv"
    design = tmp_path / "probe.toml"
    design.write_text("per_item = true\n", encoding="utf-8")
    for extra in (["--per-item"],):
        out = tmp_path / "r.md"
        assert main(["report", str(log), "--metric", "steps", *extra, "-o", str(out)]) == 0
        assert "### Welch's t per item on the runs" in out.read_text()
    assert main(["report", str(log), "--metric", "steps", "-o", str(out)]) == 0
    assert "Welch's t per item" not in out.read_text()
    capsys.readouterr()
