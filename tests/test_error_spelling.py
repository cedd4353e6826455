"""Errors in the user's language: the same mistake names the Python parameter in Python (``scale='bad'``)
and the flag on the command line (``--scale bad``), through the one table in probestats.errors."""

from __future__ import annotations

import pytest

import probestats
from probestats.cli import main
from probestats.errors import ProbestatsError, cli_spelling, opt

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
    renamed = ("factors", "groups", "output", "log", "columns", "framing_log", "before_log", "sections", "verdicts",
               "attribute_settings", "settings", "random_settings", "json_out", "facts", "limits", "read_given",
               "order_column", "with_time", "keep_settings", "open_browser")
    with cli_spelling():
        spelt = {name: opt(name) for name in renamed}
    assert spelt["framing_log"] == "--framing"
    assert spelt["before_log"] == "--before" and spelt["columns"] == "--column" and spelt["output"] == "-o"
    assert (spelt["factors"], spelt["groups"], spelt["log"], spelt["sections"]) == ("--factor", "--group", "LOG",
                                                                                     "--section")
    # the registry's flags, where "--" and the name would give flags no command has (--limits, --json-out)
    assert (spelt["json_out"], spelt["facts"], spelt["limits"], spelt["read_given"], spelt["order_column"],
            spelt["with_time"], spelt["keep_settings"], spelt["open_browser"]) == (
        "--json", "--set", "--limit", "--read", "--run-order", "--time", "--keep-setting", "--open")
    with cli_spelling():
        assert opt("n_resamples", 500) == "--n-resamples 500"
    assert opt("framing_log", "f.csv") == "framing_log='f.csv'"


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
        "give the noise log: noise='LOG' (a log, or its cell table built with its runs)":
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


# Refusals below the analyses (shaping, reading, validation): the same mistake, in each interface's spelling.
# name: (Python call, command line, the message in Python, the message on the command line)
SHAPING = {
    "derive without a name": (
        lambda: probestats.analyze(PROBE, metric="steps", probe=probestats.Probe(derive=("words > 50",))),
        ["analyze", PROBE, "--metric", "steps", "--derive", "words > 50"],
        "derive='words > 50': expected NAME = SQL expression, for example derive=['long = words > 50']",
        "--derive 'words > 50': expected NAME = SQL expression, for example --derive \"long = words > 50\""),
    "where over an unknown column": (
        lambda: probestats.analyze(PROBE, metric="steps", probe=probestats.Probe(where="nope > 1")),
        ["analyze", PROBE, "--metric", "steps", "--where", "nope > 1"],
        "where='nope > 1': unknown column 'nope'; columns seen: time, model, temperature, system, item, variant, "
        "seed, prompt, reply, steps (quote names with spaces in double quotes)",
        "--where 'nope > 1': unknown column 'nope'; columns seen: time, model, temperature, system, item, variant, "
        "seed, prompt, reply, steps (quote names with spaces in double quotes)"),
    "wide of one column": (
        lambda: probestats.analyze(PROBE, metric="steps", probe=probestats.Probe(wide=("formal_steps",))),
        ["analyze", PROBE, "--metric", "steps", "--wide", "formal_steps"],
        "wide='formal_steps': a wide layout has one column per value; name two or more",
        "--wide formal_steps: a wide layout has one column per value; name two or more"),
    "a text metric's pattern": (
        lambda: probestats.analyze(PROBE, metric="steps", probe=probestats.Probe(count=("steps=(",))),
        ["analyze", PROBE, "--metric", "steps", "--from-text", "steps=count:("],
        "count='steps=(': not a regular expression polars can use (a group opened with ( is never closed, "
        "at '('); write it without that construct",
        "--from-text 'steps=count:(': not a regular expression polars can use (a group opened with ( is never "
        "closed, at '('); write it without that construct"),
    "a text metric named like the reply": (
        lambda: probestats.analyze(PROBE, metric="steps", probe=probestats.Probe(words=("reply",))),
        ["analyze", PROBE, "--metric", "steps", "--from-text", "reply=words"],
        "words='reply': 'reply' is a column the counting reads or named twice; give the counted metric another "
        "name (for example words='reply_counted')",
        "--from-text reply=words: 'reply' is a column the counting reads or named twice; give the counted metric "
        "another name (for example --from-text reply_counted=words)"),
    "by item": (
        lambda: probestats.analyze(PROBE, metric="steps", by=["item"]),
        ["analyze", PROBE, "--metric", "steps", "--by", "item"],
        "by='item': the item is the unit every result is already per; for one test per item over its runs use "
        "per_item=True (Welch's t within each item, corrected across items), and split with by another column, "
        "such as model or language",
        "--by item: the item is the unit every result is already per; for one test per item over its runs use "
        "--per-item (Welch's t within each item, corrected across items), and split with --by another column, "
        "such as model or language"),
    "a value not in the log": (
        lambda: probestats.analyze(PROBE, metric="steps", a="nope"),
        ["analyze", PROBE, "--metric", "steps", "--a", "nope"],
        "1 validation error: a='nope': no such value in the log; values seen: 'formal', 'casual' "
        "(probestats.validate lists them all)",
        "1 validation error: --a nope: no such value in the log; values seen: 'formal', 'casual' "
        "(run probestats validate for the full list)"),
    "a column mapping onto no header": (
        lambda: probestats.read_log(PROBE, columns={"item": "nope"}),
        ["analyze", PROBE, "--metric", "steps", "--column", "item=nope"],
        "columns={'item': 'nope'}: no header 'nope' in the log; headers seen: time, model, temperature, system, "
        "item, variant, seed, prompt, reply, steps",
        "--column item=nope: no header 'nope' in the log; headers seen: time, model, temperature, system, "
        "item, variant, seed, prompt, reply, steps"),
    "a label map without its texts": (
        lambda: probestats.analyze_framing(FRAMING, label_map=["bogus"]),
        ["framing", FRAMING, "--label-map", "bogus"],
        "label_map='bogus': write LABEL=TEXT,TEXT with LABEL one of yes, no, refusal, hedge "
        "(for example label_map='yes=Affirm,Y')",
        "--label-map bogus: write LABEL=TEXT,TEXT with LABEL one of yes, no, refusal, hedge "
        "(for example --label-map yes=Affirm,Y)"),
    "framing columns naming one framing": (
        lambda: probestats.framing(FRAMING, probe=probestats.Probe(framing_columns=("aff=x",))),
        ["framing", FRAMING, "--framing-columns", "aff=x"],
        "Probe(framing_columns=('aff=x',)): name both framings, affirmative=COLUMN,reverse=COLUMN",
        "--framing-columns aff=x: name both framings, affirmative=COLUMN,reverse=COLUMN"),
    "a warehouse dialect": (
        lambda: (lambda w: w.cell_query(w.Source(table="logs", metric="steps", dialect="nope")))(
            __import__("probestats.shape.warehouse", fromlist=["x"])),
        ["sql", "--dialect", "nope", "--table", "logs", "--metric", "steps"],
        "dialect='nope': sqlglot cannot write it (Unknown dialect 'nope'.)",
        "--dialect nope: sqlglot cannot write it (Unknown dialect 'nope'.)"),
}


@pytest.mark.parametrize("case", list(SHAPING))
def test_shaping_and_reading_refusals_speak_the_callers_language(case, capsys):
    call, argv, in_python, on_cli = SHAPING[case]
    with pytest.raises(ProbestatsError) as info:
        call()
    assert str(info.value) == in_python
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 1 and err == f"Error: {on_cli}\n" and "Traceback" not in out + err


def test_a_verdict_rule_speaks_the_callers_language(judge_log, capsys):
    verdicts = ["best=[[A]]", "second=[[B]]"]
    with pytest.raises(ProbestatsError) as info:
        probestats.analyze_order(judge_log, order="order", response="reply", verdicts=verdicts)
    assert str(info.value) == ("verdicts='best=[[A]]': the label must be first, second or tie, for example "
                               "verdicts=['first=[[A]]']")
    code = main(["judge", judge_log, "--order", "order", "--response", "reply", "--verdict", verdicts[0],
                 "--verdict", verdicts[1]])
    err = capsys.readouterr().err
    assert code == 1 and err == ("Error: --verdict 'best=[[A]]': the label must be first, second or tie, for example "
                                 "--verdict \"first=[[A]]\"\n")


def _messages(problems, code):
    return [p.message for p in problems if p.code == code]


def test_warnings_about_the_log_name_the_option_that_fixes_it_in_the_callers_language(tmp_path, capsys):
    """Problems are worded when the log is checked, so a warning names a parameter in Python and a flag
    on the command line: a count that is 0 (zero_count), values differing in case (near_duplicate_value),
    an item without a value (unmatched_item)."""
    zero = ("is 0 in 320 of 320 replies (lines 2, 9, 14, 20, 24, 29, 33, 41 and 312 more): read them, a pattern "
            "misses what it did not foresee (numbering such as '1)', bullets, a reply cut short)")
    log = probestats.Probe(count=("bullets=^- ",)).apply(PROBE)
    assert _messages(log.problems, "zero_count") == [f"count='bullets=^- ' {zero}"]
    assert main(["validate", PROBE, "--metric", "steps", "--from-text", "bullets=count:^- "]) == 0
    assert f"--from-text 'bullets=count:^- ' {zero}" in capsys.readouterr().out

    path = tmp_path / "case.csv"
    path.write_text("item,variant,m\n1,Formal,1\n1,casual,2\n2,formal,1\n2,casual,3\n")
    problems = probestats.validate(path, metric="m").problems
    case = "'Formal' (1 row) and 'formal' (1 row) differ only in case; use {} to treat them as one value"
    unmatched = ("item 2 has no 'Formal' runs (lines 4-5 are all 'casual'); add its 'Formal' runs or drop the item "
                 "(or {} to keep only the items measured under every value)")
    assert _messages(problems, "near_duplicate_value") == [case.format("fold_case=True")]
    assert _messages(problems, "unmatched_item") == [unmatched.format("complete=True")]
    assert main(["validate", str(path), "--metric", "m"]) == 1
    out = capsys.readouterr().out
    assert case.format("--fold-case") in out and unmatched.format("--complete") in out


def test_a_missing_column_is_mapped_in_the_callers_language(tmp_path, capsys):
    path = tmp_path / "no_value.csv"
    path.write_text("item,thing,m\n1,a,1\n1,b,2\n")
    message = "no 'variant' column; headers seen: item, thing, m (name one with {})"
    assert _messages(probestats.validate(path, metric="m").problems, "missing_column") == [
        message.format("columns={'variant': 'HEADER'}")]
    assert main(["validate", str(path), "--metric", "m"]) == 1
    assert message.format("--column variant=HEADER") in capsys.readouterr().out


def test_a_tool_logs_warning_names_the_filter_in_the_callers_language(capsys):
    cached = "tests/data/frameworks/promptfoo_cached.json"
    [message] = _messages(probestats.read_log(cached).problems, "cached_response")
    assert message.endswith("; leave them out with where='NOT cached', or run again with promptfoo eval --no-cache")
    assert main(["validate", cached, "--metric", "words"]) == 0
    assert "; leave them out with --where 'NOT cached', or run again with promptfoo eval --no-cache" in \
        capsys.readouterr().out


def test_command_line_values_are_quoted_as_a_shell_needs_them():
    with cli_spelling():
        assert opt("where", "model = 'm1'") == "--where \"model = 'm1'\""
        assert opt("by", "model") == "--by model" and opt("complete", True) == "--complete"
        assert opt("columns", {"variant": "my style"}) == "--column 'variant=my style'"
        assert opt("variant_from", "formal=^Good") == "--from-text 'formal=prompt:^Good'"
        assert opt("chars") == "--from-text NAME=chars" and opt("skip_rows", 2) == "--read skip-rows=2"
    assert opt("where", "model = 'm1'") == "where=\"model = 'm1'\"" and opt("complete", True) == "complete=True"
