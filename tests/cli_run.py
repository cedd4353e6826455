"""Running a command in the test's process and checking a refusal: one line, ``Error:``, exit 1."""

from __future__ import annotations

import re

from probestats.cli import main

#: The line a piped command writes on standard error while a stage lasts past 30 s (its count of seconds
#: depends on how busy the machine is): see probestats.present.terminal.progress.
PROGRESS_LINE = re.compile(r"^probestats: [^\n]*, \d+ s so far\n", re.M)


def without_progress(err: str) -> str:
    """Standard error without the progress lines a busy machine adds to a long command's: what a test compares.

    >>> without_progress("probestats: writing the report, 30 s so far\\n2 cells written to c.csv\\n")
    '2 cells written to c.csv\\n'
    """
    return PROGRESS_LINE.sub("", err)


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
