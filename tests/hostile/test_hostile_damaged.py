"""Damaged spreadsheets (a bad checksum, XML that is not XML, entities, a flipped bit): one Error line
saying the file is damaged and to export it again, never 'unexpected', nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from probestats.cli import main
from tests.hostile.spreadsheets import ODS_DAMAGE, damaged_ods, flipped_xlsx

WHY = {"bad_crc": "(bad checksum in content.xml)", "junk_xml": "(content.xml is not well-formed XML: not well-formed",
       "external_entity": "(content.xml is not well-formed XML: undefined entity &e;",
       "entity_bomb": "(content.xml is not well-formed XML: limit on input amplification factor",
       "unbound_prefix": "(content.xml is not well-formed XML: unbound prefix"}
COMMANDS = [["validate"], ["analyze"], ["report", "-o", "out.md"], ["report", "-o", "out.html"]]


def _one_error(capsys, argv, folder: Path) -> str:
    before = sorted(p.name for p in folder.iterdir())
    code = main(argv[:1] + [argv[1], "--metric", "steps"] + argv[2:])
    out, err = capsys.readouterr()
    assert code == 1, err
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    assert "unexpected" not in err and str(folder) not in err and "/tmp" not in err
    assert sorted(p.name for p in folder.iterdir()) == before  # nothing written, not even a folder
    return err


@pytest.mark.parametrize("kind", ODS_DAMAGE)
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: "-".join(c))
def test_a_damaged_ods_is_one_error_line_naming_the_damage(tmp_path, monkeypatch, capsys, kind, command):
    monkeypatch.chdir(tmp_path)
    damaged_ods(tmp_path / "log.ods", kind)
    err = _one_error(capsys, [command[0], "log.ods", *command[1:]], tmp_path)
    assert err.startswith(f"Error: 'log.ods' is damaged {WHY[kind]}") and err.endswith("; export it again\n"), err


def test_the_external_entity_is_never_read(tmp_path, monkeypatch, capsys):
    # the entity names this machine's host name file: its text must appear nowhere
    monkeypatch.chdir(tmp_path)
    damaged_ods(tmp_path / "log.ods", "external_entity")
    host = Path("/etc/hostname").read_text().strip() if Path("/etc/hostname").is_file() else ""
    code = main(["analyze", "log.ods", "--metric", "steps"])
    out, err = capsys.readouterr()
    assert code == 1
    if len(host) > 3:
        assert host not in out + err


@pytest.mark.parametrize("where", [0.1, 0.3, 0.5, 0.7])
@pytest.mark.parametrize("bit", [0, 4])
def test_an_xlsx_with_one_flipped_bit_is_damaged_not_a_bug(tmp_path, monkeypatch, capsys, where, bit):
    monkeypatch.chdir(tmp_path)
    flipped_xlsx(tmp_path / "log.xlsx", where, bit)
    err = _one_error(capsys, ["analyze", "log.xlsx"], tmp_path)
    assert err.startswith("Error: 'log.xlsx' is damaged (") and err.endswith("; export it again\n"), err
    assert "xl/worksheets/sheet1.xml" in err  # the part that is broken


def test_an_intact_ods_still_reads(tmp_path, capsys):
    from tests.hostile.spreadsheets import _valid_ods

    _valid_ods(tmp_path / "log.ods")
    assert main(["analyze", str(tmp_path / "log.ods"), "--metric", "steps", "--a", "a", "--b", "b"]) == 0
