"""``probestats.report(...)`` and ``probestats.plan(...)``: the one library call behind each command.

The command parses its options and calls the library; these tests check that the bytes the library
writes (and the result it returns) are the bytes the command writes, for the sample probe.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from probestats import Tests
import probestats
from probestats.cli import main
from probestats.errors import OptionError
from probestats.shape.design import design_from

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "sample_logs" / "style_probe.csv"
NOISE = ROOT / "sample_logs" / "style_noise.csv"
DESIGN = ROOT / "examples" / "style_probe.toml"


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_the_library_writes_the_bytes_the_command_writes(fmt, tmp_path, capsys):
    by_command = tmp_path / "cli"
    by_library = tmp_path / "lib"
    by_command.mkdir()
    by_library.mkdir()
    code = main(["report", str(PROBE), "--metric", "steps", "--noise", str(NOISE), "--design", str(DESIGN),
                 "--set", "gap_of_interest=1", "-o", str(by_command / f"report.{fmt}")])
    assert code == 0, capsys.readouterr().err
    design = design_from(DESIGN, gap_of_interest=1.0)
    job = probestats.report(PROBE, metric="steps", noise=NOISE, design=design,
                            output=by_library / f"report.{fmt}")
    assert job.format == fmt
    assert (by_library / f"report.{fmt}").read_bytes() == (by_command / f"report.{fmt}").read_bytes()
    assert job.data == (by_library / f"report.{fmt}").read_bytes()
    assert job.files[0] == by_library / f"report.{fmt}"
    if fmt == "md":  # the plots the Markdown links, written beside it as the command writes them
        plots = sorted(p.name for p in (by_command / "report_files").iterdir())
        assert sorted(p.name for p in job.files[1:]) == plots and plots
        for name in plots:
            assert (by_library / "report_files" / name).read_bytes() == (by_command / "report_files" / name).read_bytes()
    # the analysis comes with the power curve the command adds (a notebook user gets the same report)
    assert job.analysis.power is not None
    assert job.design.attribute and job.design.gap_of_interest == 1.0


def test_without_an_output_nothing_is_written_and_the_text_is_the_same(tmp_path):
    written = probestats.report(PROBE, metric="steps", output=tmp_path / "r.json")
    text = probestats.report(PROBE, metric="steps", format="json")
    assert text.files == () and text.text == written.text
    assert json.loads(text.text)["report"]["sections"]


def test_the_result_is_frozen_and_documented():
    fields = [f.name for f in dataclasses.fields(probestats.ReportJob)]
    doc = probestats.ReportJob.__doc__
    assert all(f"{name} :" in doc for name in fields)
    job = probestats.report(PROBE, metric="steps", sections=["table"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        job.text = ""
    assert repr(job).startswith("ReportJob(format='md'")


def test_the_library_refuses_in_one_line(tmp_path):
    with pytest.raises(OptionError, match="unknown report format '.txt'"):
        probestats.report(PROBE, metric="steps", output=tmp_path / "r.txt")
    with pytest.raises(OptionError, match="the suffix names html, not format 'md'"):
        probestats.report(PROBE, metric="steps", output=tmp_path / "r.html", format="md")
    with pytest.raises(OptionError, match="^give the log to report"):
        probestats.report(metric="steps")
    with pytest.raises(OptionError, match="which this command reads"):
        probestats.report(PROBE, metric="steps", noise=NOISE, output=NOISE.with_suffix(".csv"))


def test_the_plan_call_prints_what_the_command_prints(tmp_path, capsys):
    code = main(["plan", "--noise", str(NOISE), "--metric", "steps", "--items", "6,8", "--runs", "5",
                 "--gap", "1", "--sims", "150", "--json"])
    assert code == 0
    printed = capsys.readouterr().out
    from probestats.present.words.sanitize import json_text
    from probestats.result import document, dumps

    from probestats.errors import cli_spelling

    with cli_spelling():   # its warnings worded for the command line, as the command words them
        result = probestats.plan(NOISE, metric="steps", items=["6,8"], runs=["5"], gap=1.0, sims=150)
    assert json_text(dumps(document(result))) + "\n" == printed
    assert [(c.items, c.runs) for c in result.cells] == [(6, 5), (8, 5)]


def test_a_report_of_several_metrics_states_the_set_facts_over_the_design_file(tmp_path, capsys):
    import polars as pl
    from factories import make_log

    log = tmp_path / "two.csv"
    make_log(items=6, runs=3, seed=1).with_columns((pl.col("steps") * 2).alias("double")).write_csv(log)
    design = tmp_path / "design.toml"
    design.write_text('attribute = "tone"\nnot_tested = ["the name on the request"]\n', encoding="utf-8")
    out = tmp_path / "r.md"
    code = main(["report", str(log), "--metric", "steps", "--metric", "double", "--design", str(design),
                 "--set", "attribute=writing style", "--set", "held_fixed=the prompt wording",
                 "--set", "held_fixed=the tool list", "--n-resamples", "200", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    design_section = out.read_text(encoding="utf-8").split("## Design\n")[1].split("\n## ")[0].splitlines()
    # --set wins over the design file's attribute; the file's other facts stay
    assert "- **Attribute:** writing style" in design_section
    assert "- **Held fixed, as stated:** the prompt wording; the tool list" in design_section
    assert "- **Attributes not tested:** the name on the request" in out.read_text(encoding="utf-8").splitlines()
    stated = design_from(design, attribute="writing style", held_fixed=("the prompt wording", "the tool list"))
    job = probestats.report(log, metric="steps,double", design=stated, tests=Tests(n_resamples=200), format="md")
    assert job.design.attribute == "writing style" and job.design.not_tested == ("the name on the request",)
    assert job.design.held_fixed == ("the prompt wording", "the tool list")
    assert "- **Attribute:** writing style" in job.text.splitlines()
