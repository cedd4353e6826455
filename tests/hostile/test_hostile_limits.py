"""Resource limits: inputs too large to handle are refused with one Error: line naming the limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from probestats.cli import main
from tests.hostile.spreadsheets import far_corner_xlsx, zip_bomb_xlsx

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def hostile_sheets(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sheets")
    return {"far": far_corner_xlsx(folder / "far.xlsx"), "bomb": zip_bomb_xlsx(folder / "bomb.xlsx")}


def _cli_in_subprocess(argv, address_space: int | None):
    # the spreadsheet reader aborts the whole process (exit -6) on these files when nothing checks them first,
    # so they run in a child; an address-space limit stands in for a machine with 4 GB
    limit = "" if address_space is None else (
        f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({address_space}, {address_space}))\n")
    code = f"{limit}import sys\nfrom probestats.cli import main\nsys.exit(main({argv!r}))\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("which", ["far", "bomb"])
@pytest.mark.parametrize("address_space", [None, 4 << 30])
def test_a_sheet_too_large_is_one_error_line_not_an_abort(hostile_sheets, which, address_space):
    done = _cli_in_subprocess(["analyze", str(hostile_sheets[which]), "--metric", "steps"], address_space)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("Error: ")
    assert "--max-cells" in done.stderr  # names the limit and how to raise it
    expected = {"far": "reaching row 1,048,576 and column 16,384 (17,179,869,184 cells)",
                "bomb": "expands to 2,147 MB"}[which]
    assert expected in done.stderr


def test_a_sheet_within_a_raised_limit_is_read(tmp_path, capsys):
    path = far_corner_xlsx(tmp_path / "near.xlsx", corner="E40")  # 40 rows x 5 columns = 200 cells
    assert main(["analyze", str(path), "--metric", "steps", "--max-cells", "199"]) == 1
    assert "(200 cells), more than --max-cells 199" in capsys.readouterr().err
    assert main(["validate", str(path), "--metric", "steps", "--max-cells", "200"]) in (0, 1)
    assert "Error" not in capsys.readouterr().err
