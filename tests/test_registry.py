"""The command line is built from the parameter registry: every option of every command is a registered
parameter, a shared flag has one declaration, one type and one help text, and --set takes design facts alone."""

from __future__ import annotations

import click
import pytest

from probestats.cli import cli, main
from probestats.parameters import PARAMETERS
from probestats.shape.design import KNOWN_KEYS

HELP = {"help", "help_all"}


def _options():
    for name, command in sorted(cli.commands.items()):
        for param in command.params:
            if isinstance(param, click.Option) and param.name not in HELP:
                yield name, param


def test_every_option_of_every_command_comes_from_the_registry():
    for command, param in _options():
        assert param.name in PARAMETERS, f"{command} {param.opts}: not a registered parameter"
        record = PARAMETERS[param.name]
        assert param.help == record.help and tuple(param.opts) == record.flags[:len(param.opts)] or (
            record.kind == "switch"), (command, param.opts)


def test_a_shared_flag_has_one_declaration_one_type_and_one_help():
    seen: dict = {}
    for command, param in _options():
        seen.setdefault(param.opts[-1], set()).add((param.name, str(sorted(param.type.to_info_dict().items())), param.help, param.multiple))
    many = {flag: kinds for flag, kinds in seen.items() if len(kinds) > 1}
    assert many == {}


@pytest.mark.parametrize("command", ["report", "analyze"])
def test_set_takes_design_facts_only(command, capsys, tmp_path):
    code = main([command, "sample_logs/style_probe.csv", "--metric", "steps", "--set", "scale=1:5",
                 *(["-o", str(tmp_path / "r.md")] if command == "report" else [])])
    assert code == 1
    assert capsys.readouterr().err == "Error: --set scale: not a design fact; give it as --scale\n"
    code = main([command, "sample_logs/style_probe.csv", "--metric", "steps", "--set", "judge.order=pos",
                 *(["-o", str(tmp_path / "r.md")] if command == "report" else [])])
    assert code == 1
    assert capsys.readouterr().err == "Error: --set judge.order: not a design fact; give it as --order\n"


def test_the_set_keys_are_the_fields_of_the_design():
    assert all(key in PARAMETERS["facts"].help for key in KNOWN_KEYS)
