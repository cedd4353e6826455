"""The command line: exit codes, exact Error: lines, help on every command, never a traceback."""

from __future__ import annotations

import json

import polars as pl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from probestats import __version__
from probestats.cli import cli, main

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
BROKEN = SAMPLES / "broken"


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"probestats, version {__version__}"


def test_python_dash_m_runs():
    done = subprocess.run([sys.executable, "-m", "probestats", "--version"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0 and __version__ in done.stdout


def test_every_command_has_help_with_an_example_and_is_in_the_readme(capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert cli.commands, "no commands registered"
    for name, command in cli.commands.items():
        assert command.help and "Example" in command.help, f"{name} lacks help with an example"
        assert f"probestats {name}" in readme, f"the README does not show probestats {name}"
        code, out, _ = run(capsys, name, "--help")
        assert code == 0 and out.startswith(f"Usage: probestats {name}")
        for param in command.params:
            if isinstance(param, __import__("click").Option):
                assert param.help, f"{name} {param.opts[0]} has no help text"


def test_validate_ok_and_json(capsys):
    code, out, _ = run(capsys, "validate", SAMPLES / "style_probe.csv", "--metric", "steps")
    assert code == 0
    assert out.splitlines()[-1] == "ok: no errors"
    code, out, _ = run(capsys, "validate", SAMPLES / "style_probe.csv", "--metric", "steps", "--json")
    data = json.loads(out)
    assert code == 0 and data["ok"] is True and data["rows"] == 320 and data["problems"] == []


@pytest.mark.parametrize(
    "name, code_name, row",
    [("non_numeric.csv", "non_numeric", 39), ("unmatched_item.csv", "unmatched_item", 52),
     ("confounded_model.csv", "confounded_setting", 2), ("missing_metric.csv", "missing_column", None)],
)
def test_validate_errors_exit_1(capsys, name, code_name, row):
    code, out, err = run(capsys, "validate", BROKEN / name, "--metric", "steps", "--json")
    assert code == 1
    data = json.loads(out)
    problems = data["problems"]
    assert problems[0]["code"] == code_name and problems[0]["severity"] == "error"
    assert data["schema_version"] == 2 and data["ok"] is False
    errors = [p for p in problems if p["severity"] == "error"]
    word = "error" if len(errors) == 1 else "errors"
    assert err == f"Error: {len(errors)} validation {word}: {errors[0]['message']}\n"
    if row is not None:
        assert problems[0]["rows"][0] == row


def test_validate_text_output_groups_by_severity(capsys):
    code, out, _ = run(capsys, "validate", BROKEN / "non_numeric.csv", "--metric", "steps")
    assert code == 1
    assert "  error    non_numeric           steps: 'four' is not a number (line 39); write the count as a number or clear the cell" in out


def test_warnings_only_exit_0(capsys):
    code, out, _ = run(capsys, "validate", BROKEN / "near_duplicate.csv", "--metric", "steps")
    assert code == 0 and "near_duplicate_value" in out


@pytest.mark.parametrize(
    "args, error",
    [
        (["validate", "missing.csv"], "Error: no such file: 'missing.csv'; check the path"),
        # a folder is read as one log of all its files: the first that cannot be read is named
        (["validate", BROKEN],
         "Error: line 2 of not_json.jsonl is not JSON (Expecting property name enclosed in double quotes at column 2); fix or remove that line"),
        (["validate", BROKEN / "not_json.jsonl"],
         "Error: line 2 of not_json.jsonl is not JSON (Expecting property name enclosed in double quotes at column 2); fix or remove that line"),
        (["analyze", BROKEN / "non_numeric.csv", "--metric", "steps"],
         "Error: 1 validation error: steps: 'four' is not a number (line 39); write the count as a number or clear the cell (run probestats validate for the full list)"),
        (["analyze", SAMPLES / "style_probe.csv", "--metric", "steps", "--by", "item"],
         "Error: --by item: the item is the unit every result is already per; for one test per item over its runs "
         "use --per-item (Welch's t within each item, corrected across items), and split with --by another column, "
         "such as model or language"),
        (["analyze", SAMPLES / "style_probe.csv", "--metric", "_row"],
         "Error: --metric _row: name the column that holds the number computed from each reply (not the item or "
         "the value)"),
        (["analyze", SAMPLES / "style_probe.csv", "--metric", "steps", "--noise", BROKEN / "non_numeric.csv"],
         "Error: 1 validation error: noise log: steps: 'four' is not a number (line 39); write the count as a "
         "number or clear the cell (run probestats validate for the full list)"),
        (["analyze", SAMPLES / "style_probe.csv", "--metric", "Score"],
         "Error: 1 validation error: no column for the metric 'Score'; headers seen: time, model, temperature, system, item, variant, seed, prompt, reply, steps (use --metric steps, or --column Score=steps) (run probestats validate for the full list)"),
    ],
)
def test_one_error_line_exit_1(capsys, args, error):
    code, out, err = run(capsys, *args)
    assert code == 1
    assert err.strip() == error
    assert out == ""


def test_usage_errors_exit_2(capsys):
    code, _, err = run(capsys, "analyze", SAMPLES / "style_probe.csv")
    assert code == 2 and err.strip().endswith("Error: Missing option '--metric'.")
    code, _, err = run(capsys, "analyze", SAMPLES / "style_probe.csv", "--metric", "steps", "--alpha", "2")
    assert code == 2 and "Invalid value for '--alpha'" in err
    code, _, err = run(capsys, "nonsense")
    assert code == 2 and "No such command 'nonsense'" in err
    code, _, err = run(capsys, "validate", SAMPLES / "style_probe.csv", "--column", "oops")
    assert code == 2 and "expected canonical=Header" in err


def test_analyze_json_is_spec_shaped(capsys):
    code, out, _ = run(capsys, "analyze", SAMPLES / "style_probe.csv", "--metric", "steps", "--a", "formal",
                       "--b", "casual", "--noise", SAMPLES / "style_noise.csv", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["a"] == "formal" and data["n_items"] == 8
    assert data["sign_flip"]["p"] == pytest.approx(6 / 256)
    assert data["sign_flip"]["alternative"] == "two-sided"
    assert data["sign_flip"]["kind"] == "exact"
    assert data["sign_flip"]["method"].startswith("exact (enumeration")
    assert data["sign_test"]["n"] == 8 and data["sign_test"]["k"] == 7
    assert data["min_attainable_p"] == 2 / 256
    assert data["noise"]["b"] == "formal again"


def test_analyze_text_output(capsys):
    code, out, _ = run(capsys, "analyze", SAMPLES / "style_probe.csv", "--metric", "steps")
    assert code == 0
    sign_flip = next(line for line in out.splitlines() if line.startswith("sign-flip "))
    assert "0.02344" in sign_flip and "exact (enumeration" in sign_flip
    assert "tests (two-sided; the sign-flip test is the headline" in out
    assert "spreadsheet: =MIN(1, 2*(1-BINOM.DIST(6, 8, 0.5, TRUE)))" in out
    assert out.splitlines()[-1] == "At alpha 0.05: a gap larger than chance."


def test_analyze_json_equals_the_python_results_to_dict(capsys):
    from probestats import analyze

    code, out, _ = run(capsys, "analyze", SAMPLES / "style_probe.csv", "--metric", "steps", "--noise",
                       SAMPLES / "style_noise.csv", "--json")
    result = analyze(SAMPLES / "style_probe.csv", metric="steps", noise=SAMPLES / "style_noise.csv")
    # the command's object is the result's to_dict() with the JSON contract's version in front
    assert code == 0 and json.loads(out) == {"schema_version": 2, **json.loads(json.dumps(result.to_dict(), allow_nan=False))}


def test_a_one_sided_minimum_detectable_gap_names_its_direction(capsys):
    # the sample's gap is positive; tested with --alternative less, the test looks only for 'formal' below 'casual'
    code, out, _ = run(capsys, "analyze", SAMPLES / "style_probe.csv", "--metric", "steps",
                       "--noise", SAMPLES / "style_noise.csv", "--alternative", "less")
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("minimum detectable gap of this design"))
    assert line.endswith(" ('formal' below 'casual')")


def test_analyze_text_says_when_the_gap_is_within_the_noise(tmp_path, capsys):
    from tests.factories import make_log, write_log

    # a planted gap of 2 steps that the sign-flip test detects, beside a noise log of 3 items whose two
    # "same" values differ by +9, +9 and -1 steps: average +5.67, and its own exact p is 2/8 = 0.25 (not
    # beyond chance), so it is a valid check, and the probe's gap is no larger than it
    probe = write_log(make_log(items=8, runs=5, gap=2.0, sd=0.5, seed=1), tmp_path / "probe.csv")
    rows = [{"item": i, "variant": v, "seed": s, "steps": 10 + (d if v == "x" else 0)}
            for i, d in enumerate((9, 9, -1)) for v in ("x", "y") for s in (1, 2)]
    noise = write_log(pl.DataFrame(rows), tmp_path / "noise.csv")
    code, out, _ = run(capsys, "analyze", probe, "--metric", "steps", "--noise", noise)
    assert code == 0
    assert "the probe's average gap is no larger than the same-versus-same gap" in out
    assert ("At alpha 0.05: a gap larger than chance, but no larger than the same-versus-same gap, so it cannot "
            "be told from noise.") in out.splitlines()


def test_a_noise_log_that_differs_beyond_chance_is_a_failed_check(tmp_path, capsys):
    from tests.factories import make_log, write_log

    # the "same" values of the noise log are 3 steps apart, and all of one ran a day before the other:
    # its own exact p is 2/2**8, so it is no reference for the probe: the output says the check failed and why
    probe = write_log(make_log(items=8, runs=5, gap=2.0, sd=0.5, seed=1), tmp_path / "probe.csv")
    noisy = make_log(items=8, runs=5, gap=3.0, sd=0.5, seed=2, values=("formal", "formal again"))
    noisy = noisy.with_columns(pl.when(pl.col("variant") == "formal").then(pl.lit("2026-01-01T10:00:00"))
                               .otherwise(pl.lit("2026-01-02T10:00:00")).alias("time"))
    noise = write_log(noisy, tmp_path / "noise.csv")
    code, out, _ = run(capsys, "analyze", probe, "--metric", "steps", "--noise", noise)
    assert code == 0
    assert "The noise check failed: the noise log's values 'formal' and 'formal again' differ by more than chance" in out
    assert "a time drift: every run of 'formal' ran before every run of 'formal again'" in out
    assert "At alpha 0.05: a gap larger than chance." in out.splitlines()
    data = json.loads(run(capsys, "analyze", probe, "--metric", "steps", "--noise", noise, "--json")[1])
    assert data["verdict"]["noise"]["failed"] and data["verdict"]["conclusion"] == "detected"
    assert data["verdict"]["noise"]["p"] == 2 / 2**8   # all 8 noise gaps near +3: 2 of 256 sign patterns


def test_analyze_by_and_warnings_travel(capsys):
    code, out, _ = run(capsys, "analyze", SAMPLES / "style_noise.csv", "--metric", "steps", "--json")
    assert code == 0
    assert [p["code"] for p in json.loads(out)["problems"]] == ["seed_mismatch"]


def test_inputs_are_not_modified(tmp_path, capsys):
    src = BROKEN / "non_numeric.csv"
    before = src.read_bytes()
    run(capsys, "validate", src, "--metric", "steps")
    run(capsys, "analyze", src, "--metric", "steps")
    assert src.read_bytes() == before


def test_unexpected_errors_still_give_one_line(monkeypatch, capsys):
    import probestats.checks.schema

    def boom(*a, **k):
        raise RuntimeError("something broke\nsecond line")

    monkeypatch.setattr(probestats.checks.schema, "validate", boom)
    monkeypatch.delenv("PROBESTATS_DEBUG", raising=False)
    code, out, err = run(capsys, "validate", SAMPLES / "style_probe.csv")
    assert code == 1
    assert err.strip() == ("Error: unexpected RuntimeError: something broke (set PROBESTATS_DEBUG=1 for details "
                           "and report it)")


def test_console_script_exit_codes(tmp_path):
    exe = Path(sys.executable).with_name("probestats")
    if not exe.exists():
        pytest.skip("the console script is not installed in this environment")
    done = subprocess.run([str(exe), "validate", str(BROKEN / "empty.csv"), "--metric", "steps"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 1 and "empty_log" in done.stdout


def test_report_on_a_log_with_more_values_reports_them_all_or_a_named_pair(tmp_path, capsys):
    from tests.factories import make_log, write_log

    log = write_log(make_log(items=6, runs=3, values=("a", "b", "c"), seed=2), tmp_path / "three.csv")
    out_file = tmp_path / "r.json"
    code, _, err = run(capsys, "report", log, "--metric", "steps", "-o", out_file)
    assert code == 0, err
    data = json.loads(out_file.read_text())   # as analyze does: every value, against the first
    assert data["kind"] == "many_values" and data["reference"] == "a"
    assert data["report"]["sections"] == ["summary", "design", "many", "finding", "limits"]
    code, _, _ = run(capsys, "report", log, "--metric", "steps", "--a", "c", "--b", "a", "-o", out_file)
    assert code == 0 and json.loads(out_file.read_text())["a"] == "c"


def test_report_templates_are_found_from_the_installed_package(tmp_path):
    """Run from a folder outside the checkout, so the installed package (in CI, the built wheel) is used."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    where = subprocess.run([sys.executable, "-c", "import probestats; print(probestats.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    if where.returncode != 0:
        pytest.skip("probestats is not installed in this environment (only importable from the checkout)")
    out = tmp_path / "r.html"
    done = subprocess.run([sys.executable, "-m", "probestats", "report", str(SAMPLES / "style_probe.csv"),
                           "--metric", "steps", "-o", str(out)], capture_output=True, text=True, cwd=tmp_path,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    page = out.read_text(encoding="utf-8")
    assert "<table" in page and "Per-item table" in page


def test_terminal_p_values_never_round_onto_alpha(capsys):
    from probestats.present.terminal.render import fmt_p

    # 0.0502 at 4 digits is '0.0502'; 0.050001 would read '0.05' = alpha at 4 digits, so it gets more
    assert fmt_p(0.050001, 0.05) == "0.050001" and fmt_p(0.050001) == "0.05"


def test_a_logged_value_ending_in_a_backslash_prints_once(capsys, tmp_path):
    """rich's markup escape doubles a trailing backslash (in case a tag follows); a logged
    value must print as written, and a '[' in it must not be read as markup."""
    import polars as pl

    from tests.factories import make_log, write_log

    log = make_log(items=3, runs=2).with_columns(
        pl.col("item").cast(pl.String).replace({"1": "C:\\probe\\", "2": "[bold]x"}))
    path = write_log(log, tmp_path / "probe.csv")
    code, out, _ = run(capsys, "analyze", path, "--metric", "steps")
    assert code == 0
    assert "C:\\probe\\ " in out and "C:\\probe\\\\" not in out
    assert "[bold]x" in out


def test_one_item_is_counted_in_the_singular(capsys, tmp_path):
    from tests.factories import make_log, write_log

    path = write_log(make_log(items=1, runs=3), tmp_path / "one.csv")
    code, out, _ = run(capsys, "analyze", path, "--metric", "steps")
    assert code == 0 and "1 item" in out and "1 items" not in out
    report = tmp_path / "one.md"
    code, _, _ = run(capsys, "report", path, "--metric", "steps", "-o", report)
    text = report.read_text(encoding="utf-8")
    assert code == 0 and "1 item" in text and "1 items" not in text


# ------------------------------------------------------------------------- one JSON contract


def test_every_json_output_carries_the_schema_version(tmp_path, capsys):
    commands = [
        ["validate", SAMPLES / "style_probe.csv", "--metric", "steps", "--json"],
        ["analyze", SAMPLES / "style_probe.csv", "--metric", "steps", "--json"],
        ["plan", "--noise", SAMPLES / "style_noise.csv", "--metric", "steps", "--items", "6", "--runs", "2",
         "--sims", "50", "--json"],
        ["framing", SAMPLES / "framing_long.csv", "--targets", SAMPLES / "framing_targets.csv", "--json"],
        ["compare", SAMPLES / "style_probe.csv", SAMPLES / "style_probe.csv", "--metric", "steps", "--json"],
    ]
    for args in commands:
        code, out, err = run(capsys, *args)
        assert code == 0, (args, err)
        data = json.loads(out)
        assert next(iter(data)) == "schema_version" and data["schema_version"] == 2, args[0]
    code, _, err = run(capsys, "report", SAMPLES / "style_probe.csv", "--metric", "steps", "-o", tmp_path / "r.json")
    assert code == 0, err
    assert json.loads((tmp_path / "r.json").read_text())["schema_version"] == 2


def test_json_refusal_of_invalid_data_prints_the_coded_problems(capsys):
    code, out, err = run(capsys, "analyze", BROKEN / "unmatched_item.csv", "--metric", "steps", "--json")
    assert code == 1
    assert err.count("\n") == 1 and err.startswith("Error: 1 validation error: ")
    data = json.loads(out)
    assert list(data) == ["schema_version", "ok", "problems"] and data["ok"] is False
    assert "unmatched_item" in [p["code"] for p in data["problems"]]
    assert all(set(p) == {"severity", "code", "message", "rows", "column"} for p in data["problems"])
    # the same refusal without --json prints nothing on standard output
    code, out, err2 = run(capsys, "analyze", BROKEN / "unmatched_item.csv", "--metric", "steps")
    assert (code, out, err2) == (1, "", err)


def test_json_refusal_of_an_unreadable_log(tmp_path, capsys):
    code, out, err = run(capsys, "analyze", tmp_path / "missing.csv", "--metric", "steps", "--json")
    assert code == 1 and err.startswith("Error: ")
    data = json.loads(out)
    assert data["ok"] is False and [p["code"] for p in data["problems"]] == ["unreadable_log"]
    assert data["problems"][0]["message"] == err[len("Error: "):].rstrip("\n")


def test_an_error_about_the_options_prints_no_json(capsys):
    code, out, err = run(capsys, "analyze", SAMPLES / "style_probe.csv", "--metric", "steps", "--factor", "style",
                         "--a", "formal", "--json")
    assert (code, out) == (1, "")
    assert err == "Error: --factor compares the levels of two attributes; drop --a, --b, --group and --reference\n"


@pytest.mark.parametrize("args,code_name", [
    (["framing", SAMPLES / "style_probe.csv", "--json"], "missing_column"),
    (["plan", "--noise", "no_such_noise.csv", "--metric", "steps", "--json"], "unreadable_log"),
    (["validate", "no_such_log.csv", "--metric", "steps", "--json"], "unreadable_log"),
])
def test_json_refusals_of_the_other_commands(args, code_name, capsys):
    code, out, err = run(capsys, *args)
    assert code == 1 and err.startswith("Error: ") and err.count("\n") == 1
    data = json.loads(out)
    assert data == {"schema_version": 2, "ok": False, "problems": [
        {"severity": "error", "code": code_name, "message": err[len("Error: "):-1], "rows": [], "column": None}]}


def test_analyze_shows_the_within_log_noise_and_the_row_level_test(capsys, tmp_path):
    path = tmp_path / "five.csv"
    lines = ["item,variant,seed,steps"] + [f"{i},{v},{s},{(i * 3 + s * (2 if v == 'a' else 1)) % 7}"
                                          for i in range(6) for v in "ab" for s in range(1, 6)]
    path.write_text("\n".join(lines) + "\n")
    code, out, _ = run(capsys, "analyze", path, "--metric", "steps", "--row-level")
    assert code == 0
    assert "noise within the log ('a (first half)' vs 'a (second half)')" in out
    # the halves are read over every split (was: "drawn at random (seed 0)", one split)
    assert "no --noise log: the runs of value 'a' in each item split in two halves, the halves' gap read over" in out
    assert "row level, beside the item-level tests: Welch's t on 30 and 30 runs" in out
    code, out, _ = run(capsys, "analyze", path, "--metric", "steps", "--row-level", "--json")
    data = json.loads(out)
    assert data["noise"]["source"].startswith("within-log") and data["row_level"]["method"].startswith("Welch")
