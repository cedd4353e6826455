"""Templates from --templates run sandboxed: they lay out values, they cannot reach Python's internals."""

from __future__ import annotations

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
    code = main(["report", str(SAMPLE), "--metric", "steps", "--templates", str(folder), "-o", str(out)])
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
    code = main(["report", str(SAMPLE), "--metric", "steps", "--templates", str(folder), "-o", str(out)])
    assert code == 0, capsys.readouterr().err
    assert out.read_text().startswith("metric steps; [summary][design]")
