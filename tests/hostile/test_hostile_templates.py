"""Templates from a templates folder (--templates DIR) run sandboxed: they lay out values, they cannot reach Python's internals."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from probestats.cli import main

SAMPLE = Path(__file__).resolve().parents[2] / "sample_logs" / "style_probe.csv"

ESCAPES = [
    "{{ ''.__class__.__mro__ }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
    "{{ self._TemplateReference__context }}",
    "{{ sections.__class__.__base__ }}",
]


@pytest.mark.parametrize("suffix", ["md", "html"])
@pytest.mark.parametrize("body", ESCAPES)
def test_a_template_reaching_for_python_internals_fails_with_one_line(tmp_path, capsys, suffix, body):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / f"report.{suffix}.j2").write_text(f"# report\n{body}\n")
    out = tmp_path / f"report.{suffix}"
    code = main(["report", str(SAMPLE), "--metric", "steps", "--templates", f"{folder}", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1, err
    assert err.startswith("Error: --templates ") and err.count("\n") == 1, err
    assert "unexpected" not in err
    assert "unsafe" in err or "undefined" in err  # the sandbox's refusal (or no such name in a sandbox)
    assert not out.exists()


def test_a_template_can_still_lay_out_the_values_it_is_given(tmp_path, capsys):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "report.md.j2").write_text("metric {{ metric }}; {% for s in sections %}[{{ s }}]{% endfor %}\n")
    out = tmp_path / "report.md"
    code = main(["report", str(SAMPLE), "--metric", "steps", "--templates", f"{folder}", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    assert out.read_text().startswith("metric steps; [summary][design]")


# ---------------------------------------------------------------- a template folder reads nothing outside it

SECRET = "SECRET-7f3a-do-not-leak"
PROMISE = Path(__file__).resolve().parents[2] / "docs" / "analyses" / "report.md"   


def _folder_with_link(tmp_path, body: str, link="evil_link", target=None, suffix="md"):
    """tpl/ holding a link to a secret file beside it, and a report template with ``body``."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    folder = tmp_path / "tpl"
    folder.mkdir()
    os.symlink(target or "../secret.txt", folder / link)
    if link != f"report.{suffix}.j2":
        (folder / f"report.{suffix}.j2").write_text(f"# report\n{body}\n")
    return folder


def _refused_without_leak(tmp_path, capsys, argv, out: Path):
    before = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    code = main([str(a) for a in argv])
    stdout, err = capsys.readouterr()
    assert code == 1, err
    assert err.startswith("Error: --templates ") and err.count("\n") == 1, err
    assert "unexpected" not in err and "outside that folder" in err
    assert SECRET not in stdout + err
    after = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*"))
    assert after == before and not out.exists()  # no report, no images folder
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.name != "secret.txt" and not path.is_symlink():
            assert SECRET not in path.read_text(errors="replace")
    return err


@pytest.mark.parametrize("suffix", ["md", "html"])
@pytest.mark.parametrize("section", [None, "table", "summary"])
def test_a_link_to_a_file_outside_the_folder_is_refused_in_every_format(tmp_path, capsys, suffix, section):
    folder = _folder_with_link(tmp_path, '{% include "evil_link" %}', suffix=suffix)
    out = tmp_path / f"report.{suffix}"
    argv = ["report", SAMPLE, "--metric", "steps", "--templates", f"{folder}", "-o", out]
    err = _refused_without_leak(tmp_path, capsys, argv + (["--section", section] if section else []), out)
    assert "'evil_link'" in err


@pytest.mark.parametrize("body", ['{% import "evil_link" as m %}{{ m }}', '{% extends "evil_link" %}',
                                  '{% from "evil_link" import x %}', '{% include ["nosuch", "evil_link"] %}'])
def test_import_extends_and_include_lists_are_refused_alike(tmp_path, capsys, body):
    folder = _folder_with_link(tmp_path, body)
    out = tmp_path / "report.md"
    _refused_without_leak(tmp_path, capsys, ["report", SAMPLE, "--metric", "steps", "--templates", f"{folder}", "-o", out],
                          out)


def test_a_link_named_as_the_report_template_is_refused_not_replaced_by_the_shipped_one(tmp_path, capsys):
    folder = _folder_with_link(tmp_path, "", link="report.md.j2")
    out = tmp_path / "report.md"
    _refused_without_leak(tmp_path, capsys, ["report", SAMPLE, "--metric", "steps", "--templates", f"{folder}", "-o", out],
                          out)


def test_a_link_to_a_folder_outside_and_an_absolute_link_are_refused(tmp_path, capsys):
    folder = _folder_with_link(tmp_path, '{% include "up/secret.txt" %}', link="up", target="..")
    out = tmp_path / "report.md"
    _refused_without_leak(tmp_path, capsys, ["report", SAMPLE, "--metric", "steps", "--templates", f"{folder}", "-o", out],
                          out)
    other = tmp_path / "other"
    other.mkdir()
    folder = _folder_with_link(other, '{% include "abs" %}', link="abs", target=str(other / "secret.txt"))
    _refused_without_leak(other, capsys, ["report", SAMPLE, "--metric", "steps", "--templates", f"{folder}", "-o",
                                          other / "r.md"], other / "r.md")


def test_a_link_that_stays_inside_the_folder_is_followed(tmp_path, capsys):
    folder = tmp_path / "tpl"
    (folder / "parts").mkdir(parents=True)
    (folder / "parts" / "note.j2").write_text("metric {{ metric }}\n")
    os.symlink("parts/note.j2", folder / "note.j2")
    (folder / "report.md.j2").write_text('{% include "note.j2" %}')
    out = tmp_path / "report.md"
    code = main(["report", str(SAMPLE), "--metric", "steps", "--templates", f"{folder}", "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    assert out.read_text().startswith("metric steps")


def test_the_documented_promise_holds_as_written(tmp_path, capsys):
    # the report's page of the docs: a template from --templates "cannot reach Python's internals (...), read
    # files, import modules or run programs". Each claim is tried here, as a template someone else wrote would.
    promise = " ".join(PROMISE.read_text().split())
    assert "but it cannot reach Python's internals" in promise and "read files, import modules or run programs" in promise
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    attempts = {
        "read files": ['{% include "../secret.txt" %}', '{% include "' + str(secret) + '" %}',
                       '{% include "/etc/passwd" %}', '{% include "link" %}', '{% include "up/secret.txt" %}'],
        "import modules": ['{% import "os" as os %}', "{{ cycler.__init__.__globals__.os }}",
                           "{{ lipsum.__globals__['os'] }}"],
        "run programs": ["{{ cycler.__init__.__globals__.os.popen('echo " + SECRET + "').read() }}",
                         "{{ joiner.__init__.__globals__.os.system('id') }}"],
        "reach Python's internals": ["{{ ''.__class__.__mro__ }}", "{{ self.__init__ }}"],
    }
    for claim, bodies in attempts.items():
        for i, body in enumerate(bodies):
            folder = tmp_path / f"tpl-{claim.split()[0]}-{i}"
            folder.mkdir()
            os.symlink(secret, folder / "link")
            os.symlink("..", folder / "up")
            (folder / "report.md.j2").write_text(f"# r\n{body}\n")
            out = tmp_path / f"r{i}.md"
            code = main(["report", str(SAMPLE), "--metric", "steps", "--templates", f"{folder}", "-o", str(out)])
            stdout, err = capsys.readouterr()
            assert code == 1, (claim, body, err)
            assert err.startswith("Error: --templates ") and err.count("\n") == 1, (claim, body, err)
            assert SECRET not in stdout + err and not out.exists(), (claim, body)
            assert "root:" not in err  # nothing of /etc/passwd either


def test_a_hard_link_in_the_folder_is_refused(tmp_path, capsys):
    # a hard link is the outside file under a name inside the folder: no path shows where it leads
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET)
    folder = tmp_path / "tpl"
    folder.mkdir()
    os.link(secret, folder / "hard.j2")
    (folder / "report.md.j2").write_text('{% include "hard.j2" %}')
    out = tmp_path / "report.md"
    code = main(["report", str(SAMPLE), "--metric", "steps", "--templates", f"{folder}", "-o", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 1 and err.startswith("Error: --templates ") and err.count("\n") == 1, err
    assert "'hard.j2' is a hard link" in err and SECRET not in stdout + err and not out.exists()
