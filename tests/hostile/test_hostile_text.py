"""Untrusted text never reaches a terminal, a Markdown file or a web page raw."""

from __future__ import annotations

import json

import pytest

from probestats.cli import main
from probestats.present.words.sanitize import has_raw_controls, html, terminal, visible

OSC52 = "\x1b]52;c;cHdu\x07"  # writes 'pwn' to the clipboard of a terminal that obeys it


def _log(tmp_path, item=OSC52, model="m1", metric="steps"):
    rows = [f"item,variant,{metric},model"]
    for i in range(1, 7):
        name = item if i == 1 else str(i)
        rows += [f'"{name}",a,{5 + i},"{model}"', f'"{name}",b,{i},"{model}"']
    path = tmp_path / "log.csv"
    path.write_text("\n".join(rows) + "\n", newline="")
    return path


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_an_escape_sequence_in_an_item_is_shown_not_sent_on_the_terminal(tmp_path, capsys):
    code, out, err = _run(capsys, "analyze", _log(tmp_path), "--metric", "steps")
    assert code == 0
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "\\x1b]52;c;cHdu\\x07" in out


@pytest.mark.parametrize("suffix", [".md", ".html"])
def test_an_escape_sequence_in_an_item_is_shown_not_written_in_reports(tmp_path, capsys, suffix):
    report = tmp_path / f"report{suffix}"
    code, _, err = _run(capsys, "report", _log(tmp_path), "--metric", "steps", "-o", report)
    assert code == 0, err
    text = report.read_text()
    assert "\x1b" not in text and "\x07" not in text
    # Markdown escapes the backslash and the bracket of the visible form; HTML prints it as is
    shown = "\\\\x1b\\]52;c;cHdu\\\\x07" if suffix == ".md" else "\\x1b]52;c;cHdu\\x07"
    assert shown in text


@pytest.mark.parametrize("text", ["\u202eevil", "\x9b2J", "a\x7fb", "\x1b[2J", "[red]x[/red]", "\u2066x\u2069"])
def test_controls_and_markup_in_values_never_reach_any_output_raw(tmp_path, capsys, text):
    log = _log(tmp_path, item=text, model=text)
    code, out, err = _run(capsys, "analyze", log, "--metric", "steps")
    assert code == 0 and not has_raw_controls(out + err)
    if text.startswith("[red]"):
        assert "[red]x[/red]" in out  # printed as written, not read as rich markup
    code, out, err = _run(capsys, "analyze", log, "--metric", "steps", "--json")
    assert code == 0 and not has_raw_controls(out + err)
    assert json.loads(out)["items"][0]["item"] == text  # JSON keeps the value, escaped
    for suffix in (".md", ".html"):
        code, out, err = _run(capsys, "report", log, "--metric", "steps", "-o", tmp_path / f"r{suffix}")
        assert code == 0 and not has_raw_controls((tmp_path / f"r{suffix}").read_text())


def test_markup_in_a_metric_name_is_printed_as_written(tmp_path, capsys):
    code, out, err = _run(capsys, "analyze", _log(tmp_path, metric="[/bold]x"), "--metric", "[/bold]x")
    assert code == 0, err
    assert "[/bold]x" in out


@pytest.mark.parametrize("header", ["st\reps", "st\neps", "st\feps", "a\r\n\r\nb\x1b[2J"])
def test_an_error_naming_a_header_with_line_breaks_stays_on_one_line(tmp_path, capsys, header):
    path = tmp_path / "log.csv"
    path.write_text(f'item,variant,"{header}"\n1,a,1\n1,b,2\n', newline="")
    code, _, err = _run(capsys, "analyze", path, "--metric", "steps")
    assert code == 1
    assert err.startswith("Error: ") and err.endswith("\n")
    assert not has_raw_controls(err[:-1], allow_newlines=False)  # no line break (nor any control) before the end


def test_the_sanitizer_on_each_surface():
    # one table of what each surface shows, written out by hand
    assert visible(OSC52) == "\\x1b]52;c;cHdu\\x07"
    assert visible("\u202e") == "<U+202E>" and visible("\u200f") == "<U+200F>" and visible("\x9b") == "\\x9b"
    assert terminal("[bold]\x1b") == "\\[bold]\\x1b"
    assert str(html("<i>\u202e")) == "&lt;i&gt;&lt;U+202E&gt;"
    assert str(html("\u0627\u0644\u0639\u0631\u0628\u064a\u0629")).startswith("<bdi>")
