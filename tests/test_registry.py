"""The command line is built from the parameter registry: every option of every command is a registered
parameter, a shared flag has one declaration, one type and one help text, and --set takes design facts alone."""

from __future__ import annotations

import re

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


def _rating_log(path):
    import random

    import polars as pl

    draw = random.Random(3)
    rows = [{"item": f"q{i}", "variant": v, "seed": s,
             "rating": draw.choice([1, 2, 3, 4] if v == "formal" else [1, 2, 3, 3, 4, 4])}
            for i in range(10) for v in ("formal", "casual") for s in range(3)]
    pl.DataFrame(rows).write_csv(path)
    return path


def test_report_and_analyze_give_the_same_analysis_of_a_scale(capsys, tmp_path):
    import json

    log = str(_rating_log(tmp_path / "ratings.csv"))
    assert main(["analyze", log, "--metric", "rating", "--scale", "1:4", "--json"]) == 0
    analyzed = json.loads(capsys.readouterr().out)
    assert main(["report", log, "--metric", "rating", "--scale", "1:4", "-o", str(tmp_path / "r.json")]) == 0
    reported = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert {k: reported.get(k) for k in analyzed} == analyzed   # the report holds the analysis as analyze gives it
    assert (analyzed["scale"]["low"], analyzed["scale"]["high"]) == (1.0, 4.0)
    assert main(["report", log, "--metric", "rating", "-o", str(tmp_path / "plain.json")]) == 0
    unscaled = json.loads((tmp_path / "plain.json").read_text(encoding="utf-8"))
    assert unscaled.get("scale") != analyzed["scale"]   # the flag reached the analysis: without it, no scale


def _examples(command) -> list[list[str]]:
    """The commands written under "Example:" or "Examples:" in a command's help, continuation lines joined."""
    import re
    import shlex

    parts = re.split(r"\bExamples?:", command.help, maxsplit=1)
    text = parts[1] if len(parts) == 2 else ""
    lines, joined = [], ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line == "\b":
            continue
        joined = f"{joined} {line}" if joined else line
        if joined.endswith("\\"):
            joined = joined[:-1].strip()
            continue
        if joined.startswith("probestats "):
            lines.append(shlex.split(joined)[1:])
        joined = ""
    return lines


@pytest.mark.parametrize("name", sorted(set(cli.commands) - {"serve"}))
def test_every_example_in_a_commands_help_runs(name, capsys, tmp_path, monkeypatch):
    """Each example runs as written, from a folder holding the sample logs, in the order the help gives
    them (a cell table one example writes, the next reads); one that names a file the project does not
    ship (a spreadsheet of the user's own) is parsed by the command, so every flag it shows is one the
    command takes."""
    from pathlib import Path

    examples = _examples(cli.commands[name])
    assert examples, f"{name} shows no example"
    root = Path(__file__).resolve().parent.parent
    (tmp_path / "sample_logs").symlink_to(root / "sample_logs")
    monkeypatch.chdir(tmp_path)
    for argv in examples:
        command = cli.commands[argv[0]]
        missing = [a for a in argv[1:] if not a.startswith("-") and "." in a and "/" not in a[:1]
                   and Path(a).suffix in (".csv", ".xlsx", ".parquet", ".jsonl", ".json", ".toml", ".eval")
                   and not Path(a).exists() and not any(argv[i - 1] in ("-o", "--output") for i in
                                                       range(1, len(argv)) if argv[i] == a)]
        if missing:
            command.make_context(argv[0], list(argv[1:]), resilient_parsing=False)
            continue
        code = main(argv)
        out, err = capsys.readouterr()
        assert code == 0, f"probestats {' '.join(argv)}: {err}"


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_the_cli_reference_is_what_help_all_prints(name):
    """The documentation's command-line page is each command's ``--help-all``, in its groups, as a terminal
    100 columns wide prints it."""
    from click.testing import CliRunner

    from probestats.cli import reference
    from probestats.parameters import GROUPS

    done = CliRunner().invoke(cli, [name, "--help-all"], prog_name="probestats", terminal_width=100)
    assert done.exit_code == 0
    assert f"## probestats {name}\n\n```text\n{done.output}" in reference()
    shown = [group for group in GROUPS if f"\n{group} options:\n" in done.output]
    assert shown, f"{name} --help-all shows no group"


def test_a_parameter_in_the_registry_and_a_jobs_signature_is_a_flag_everywhere(monkeypatch, capsys):
    """A parameter added to the registry and to one job's signature, with no other edit, is an option of
    that command with its help, reaches the job, and is named by its flag in the errors and on the page."""
    import inspect

    from click.testing import CliRunner

    import probestats.jobs.describe as describe_job
    from probestats import parameters
    from probestats.cli import build
    from probestats.errors import OptionError, opt
    from probestats.serve.session import Choice, flag

    record = parameters.Parameter("throwaway_knob", ("--throwaway-knob",), "A knob of this test alone.",
                                  kind="int", metavar="N", default=3)
    monkeypatch.setitem(parameters.PARAMETERS, record.name, record)
    real, seen = describe_job.describe, []

    def describe(log, *, throwaway_knob=3, **given):
        seen.append(throwaway_knob)
        if throwaway_knob < 0:
            raise OptionError(f"{opt('throwaway_knob', throwaway_knob)}: give a knob of 0 or more")
        return real(log, **given)

    signature = inspect.signature(real)
    describe.__signature__ = signature.replace(parameters=[
        *signature.parameters.values(), inspect.Parameter("throwaway_knob", inspect.Parameter.KEYWORD_ONLY, default=3)])
    monkeypatch.setattr(describe_job, "describe", describe)

    command = build("describe")
    assert "throwaway_knob" not in {p.name for p in cli.commands["describe"].params}   # built before: not there
    shown = CliRunner().invoke(command, ["--help-all"], prog_name="probestats describe", terminal_width=100)
    assert shown.exit_code == 0
    assert re.search(r"\n  --throwaway-knob N\s+A knob of this test alone\.\s+\[default: 3\]\n", shown.output)
    monkeypatch.setitem(cli.commands, "describe", command)
    assert main(["describe", "sample_logs/style_probe.csv", "--metric", "steps", "--throwaway-knob", "7",
                 "--json"]) == 0
    assert seen == [7]
    capsys.readouterr()
    assert main(["describe", "sample_logs/style_probe.csv", "--metric", "steps", "--throwaway-knob=-1"]) == 1
    assert capsys.readouterr().err == "Error: --throwaway-knob -1: give a knob of 0 or more\n"
    with pytest.raises(OptionError, match=r"^throwaway_knob=-1: give a knob"):
        describe("sample_logs/style_probe.csv", metric="steps", throwaway_knob=-1)
    assert main(["describe", "sample_logs/style_probe.csv", "--metric", "steps", "--throwaway-knob", "x"]) == 2
    assert "Invalid value for '--throwaway-knob': 'x' is not a valid integer" in capsys.readouterr().err
    assert flag("throwaway_knob") == "--throwaway-knob"
    assert Choice("throwaway_knob", "a knob", "box").flag == "--throwaway-knob"
