"""Errors in the user's language: the same mistake names the Python parameter in Python (``scale='bad'``)
and the flag on the command line (``--scale bad``), through the one table in probestats.errors."""

from __future__ import annotations

import pytest

import probestats
from probestats.cli import main
from probestats.errors import CLI_FLAGS, ProbestatsError, cli_spelling, opt

PROBE = "sample_logs/style_probe.csv"
NOISE = "sample_logs/style_noise.csv"
FRAMING = "sample_logs/framing_long.csv"


@pytest.fixture(scope="module")
def judge_log(tmp_path_factory):
    import sys

    sys.path.insert(0, "tests")
    from judge_factory import Judge, make_judge_log

    path = tmp_path_factory.mktemp("judge") / "judge.csv"
    make_judge_log(items=6, judges={"j": Judge(0.8, 0.5)}, seed=1).write_csv(path)
    return str(path)


# name: (Python call, command line, the message in Python, the message on the command line)
CASES = {
    "analyze scale": (
        lambda j: probestats.analyze(PROBE, metric="steps", scale="bad"),
        lambda j: ["analyze", PROBE, "--metric", "steps", "--scale", "bad"],
        "scale='bad': expected LOW:HIGH, for example scale='1:4'",
        "--scale bad: expected LOW:HIGH, for example --scale 1:4"),
    "plan scale": (
        lambda j: probestats.plan(NOISE, metric="steps", scale="x:y", items=[6], runs=[5], sims=20),
        lambda j: ["plan", "--noise", NOISE, "--metric", "steps", "--scale", "x:y", "--items", "6", "--runs", "5",
                   "--sims", "20"],
        "scale='x:y': expected LOW:HIGH, for example scale='1:5' (leave a side empty for no bound there, "
        "as in scale='0:')",
        "--scale x:y: expected LOW:HIGH, for example --scale 1:5 (leave a side empty for no bound there, "
        "as in --scale 0:)"),
    "framing scale": (
        lambda j: probestats.analyze_framing(FRAMING, scale="1-5"),
        lambda j: ["framing", FRAMING, "--scale", "1-5"],
        "scale='1-5': cannot read the scale; write its two ends as LOW:HIGH, for example scale='1:5'",
        "--scale 1-5: cannot read the scale; write its two ends as LOW:HIGH, for example --scale 1:5"),
    "by an internal name": (
        lambda j: probestats.analyze(PROBE, metric="steps", by=["n"]),
        lambda j: ["analyze", PROBE, "--metric", "steps", "--by", "n"],
        "by='n': 'n' is a name probestats uses for its own counts; read the column under another name: "
        "columns={'n_col': 'n'}, by='n_col'",
        "--by n: 'n' is a name probestats uses for its own counts; read the column under another name: "
        "--column n_col=n --by n_col"),
    "metric a structure column": (
        lambda j: probestats.analyze(PROBE, metric="seed"),
        lambda j: ["analyze", PROBE, "--metric", "seed"],
        "metric='seed': the column 'seed' numbers the runs by seed, not a metric; name the column that holds "
        "the number computed from each reply (to analyze it anyway, read it under another name: "
        "columns={'seed_col': 'seed'}, metric='seed_col')",
        "--metric seed: the column 'seed' numbers the runs by seed, not a metric; name the column that holds "
        "the number computed from each reply (to analyze it anyway, read it under another name: "
        "--column seed_col=seed --metric seed_col)"),
    "judge order column": (
        lambda j: probestats.analyze_order(j, order="nope", response="reply", verdicts=["first=[[A]]", "second=[[B]]"]),
        lambda j: ["judge", j, "--order", "nope", "--response", "reply", "--verdict", "first=[[A]]",
                   "--verdict", "second=[[B]]"],
        "order='nope': no such column; headers seen: judge, item, order, reply, choice",
        "--order nope: no such column; headers seen: judge, item, order, reply, choice"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_python_names_parameters_and_the_command_line_names_flags(case, judge_log, capsys):
    call, argv, in_python, on_cli = CASES[case]
    with pytest.raises(ProbestatsError) as info:
        call(judge_log)
    assert str(info.value) == in_python
    code = main(argv(judge_log))
    out, err = capsys.readouterr()
    assert code == 1 and err == f"Error: {on_cli}\n" and "Traceback" not in out + err


def test_the_table_spells_renamed_parameters_as_their_flags():
    """Parameters named otherwise in Python read as the flag the command line has for them."""
    with cli_spelling():
        spelt = {name: opt(name) for name in CLI_FLAGS}
    assert spelt["design_file"] == "--design" and spelt["framing_log"] == "--framing"
    assert spelt["before_log"] == "--before" and spelt["columns"] == "--column" and spelt["output"] == "-o"
    with cli_spelling():
        assert opt("n_resamples", 500) == "--n-resamples 500"
    assert opt("design_file", "probe.toml") == "design_file='probe.toml'"


def test_library_errors_below_the_command_line_name_no_flag_in_python():
    """A handful of library refusals that used to hard-code flags now speak Python (the report's cell tables
    go where a log goes)."""
    calls = {
        "give the log to report (or a cell table in its place)":
            lambda: probestats.report(metric="steps", format="md"),
        "the framing targets and reference target belong to the framing section; give the dual-framing log with "
        "framing_log='FRAMING_LOG'":
            lambda: probestats.report(PROBE, metric="steps", format="md", targets="t.csv"),
        "plot draws power at a gap; add gap=G": lambda: probestats.plan(NOISE, metric="steps", plot="p.png"),
        "give the noise log: noise='LOG' or noise_cells='NOISE_CELLS' (one of them)":
            lambda: probestats.plan(metric="steps"),
    }
    for message, call in calls.items():
        with pytest.raises(ProbestatsError) as info:
            call()
        assert str(info.value) == message


def test_a_warning_about_a_read_option_speaks_the_callers_language(capsys):
    log = probestats.read_log(PROBE, sheet=2)
    assert [p.message for p in log.problems] == [
        "sheet=2 does not apply to 'style_probe.csv', read as CSV, which has no sheets; it was ignored"]
    assert main(["analyze", PROBE, "--metric", "steps", "--read", "sheet=2"]) == 0
    out = capsys.readouterr().out
    assert "--read sheet=2 does not apply to 'style_probe.csv', read as CSV, which has no sheets; it was ignored" in out
