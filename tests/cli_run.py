"""Running a command in the test's process and checking a refusal: one line, ``Error:``, exit 1."""

from __future__ import annotations

from probestats.cli import main


def run_cli(capsys, *argv) -> tuple[int, str, str]:
    """The exit code, stdout and stderr of ``probestats ARGV`` run in this process."""
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def one_error_line(code: int, err: str, *words: str) -> None:
    """A refusal as a user must see it: exit 1, one ``Error:`` line, no "unexpected", each of ``words`` in it."""
    assert code == 1, err
    assert err.startswith("Error: ") and err.count("\n") == 1, err
    assert "unexpected" not in err
    for word in words:
        assert word in err, err
