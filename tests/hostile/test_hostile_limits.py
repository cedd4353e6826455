"""Resource limits: inputs too large to handle are refused with one Error: line naming the limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from probestats.cli import main
from tests.cli_run import one_error_line as _one_error_line, run_cli as _run
from tests.hostile.spreadsheets import far_corner_xlsx, wide_xlsx, zip_bomb_xlsx

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
    assert "--read max-cells" in done.stderr  # names the limit and how to raise it
    expected = {"far": "reaching row 1,048,576 and column 16,384 (17,179,869,184 cells)",
                "bomb": "expands to 2,147 MB"}[which]
    assert expected in done.stderr


def test_the_widest_sheet_is_refused_by_its_columns_before_it_is_loaded(tmp_path):
    # 16,384 columns of 3 rows (about 300 KB): the report aborted (SIGABRT) under 4 GB, and grew to 24 GB without
    # a limit, in the per-column checks; its columns are now counted from the sheet's cells before it is loaded
    import time

    path = wide_xlsx(tmp_path / "wide.xlsx")
    start = time.monotonic()
    done = _cli_in_subprocess(["report", str(path), "--metric", "steps", "-o", str(tmp_path / "r.md")], 4 << 30)
    assert time.monotonic() - start < 60
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr == ("Error: 'wide.xlsx' has 16,384 columns, more than --read max-columns=2000 (validating "
                           "them would take about 16 GB of memory); keep the columns the probe needs (item, value, "
                           "metric, settings), or raise the limit with --read max-columns=16384\n")
    assert not (tmp_path / "r.md").exists()


def test_a_sheet_within_the_column_limit_is_read_and_a_lowered_one_refuses_it(tmp_path, capsys):
    path = wide_xlsx(tmp_path / "w.xlsx", columns=40, rows=4)
    assert main(["validate", str(path), "--metric", "steps"]) == 0, capsys.readouterr().err
    capsys.readouterr()
    assert main(["validate", str(path), "--metric", "steps", "--read", "max-columns=39"]) == 1
    assert "'w.xlsx' has 40 columns, more than --read max-columns=39" in capsys.readouterr().err
    csv = tmp_path / "w.csv"   # a text log is held to the same limit once its header is read
    csv.write_text(",".join(["item", "variant", "steps"] + [f"x{k}" for k in range(37)]) + "\n"
                   + "1,a,1" + ",0" * 37 + "\n", encoding="utf-8")
    assert main(["validate", str(csv), "--metric", "steps", "--read", "max-columns=39"]) == 1
    assert "'w.csv' has 40 columns, more than --read max-columns=39" in capsys.readouterr().err
    from probestats import read_log
    from probestats.errors import ReadError

    with pytest.raises(ReadError, match=r"more than max_columns=39 .* raise the limit with max_columns=40$"):
        read_log(csv, max_columns=39)


def test_a_sheet_within_a_raised_limit_is_read(tmp_path, capsys):
    path = far_corner_xlsx(tmp_path / "near.xlsx", corner="E40")  # 40 rows x 5 columns = 200 cells
    assert main(["analyze", str(path), "--metric", "steps", "--read", "max-cells=199"]) == 1
    assert "(200 cells), more than --read max-cells=199" in capsys.readouterr().err
    assert main(["validate", str(path), "--metric", "steps", "--read", "max-cells=200"]) in (0, 1)
    assert "Error" not in capsys.readouterr().err




SAMPLE = ROOT / "sample_logs" / "style_probe.csv"
NOISE = ROOT / "sample_logs" / "style_noise.csv"


@pytest.mark.parametrize("option", ["--derive", "--where"])
def test_a_long_expression_is_refused_before_the_sql_parser_sees_it(capsys, option):
    # 3,000 terms crashed the process (segmentation fault) inside the SQL parser
    body = "steps" + "+1" * 3000
    argv = ["analyze", SAMPLE, "--metric", "x", "--derive", f"x = {body}"] if option == "--derive" else [
        "analyze", SAMPLE, "--metric", "steps", "--where", f"{body} > 0"]
    code, _, err = _run(capsys, *argv)
    _one_error_line(code, err, "more than the 2,000 allowed", "split it into several --derive steps")
    code, _, err = _run(capsys, "analyze", SAMPLE, "--metric", "x", "--derive", "x = steps" + "+1" * 150)
    _one_error_line(code, err, "150 operators, more than the 100 allowed")
    code, _, err = _run(capsys, "analyze", SAMPLE, "--metric", "x", "--derive", "x = " + "(" * 30 + "steps" + ")" * 30)
    _one_error_line(code, err, "parentheses 30 deep, more than the 20 allowed")


@pytest.mark.parametrize("extra, words", [
    (["--items", "100000"], ["more than the limit of 25,000,000", "lower --sims to 12 or fewer"]),
    (["--runs", "1000000"], ["more than the limit", "--sims"]),
    (["--items", "200,300,400,500", "--runs", "50,100,150", "--sims", "9000"], ["--sims"]),
])
def test_plan_refuses_work_beyond_its_bound_and_names_sims(capsys, extra, words):
    code, _, err = _run(capsys, "plan", "--noise", NOISE, "--metric", "steps", *extra)
    _one_error_line(code, err, *words)


def test_plan_at_a_power_near_one_gives_a_plan(capsys):
    code, out, err = _run(capsys, "plan", "--noise", NOISE, "--metric", "steps", "--items", "8", "--runs", "5",
                          "--sims", "200", "--power", "0.999999")
    assert code == 0, err


def test_by_a_column_that_makes_the_cells_is_refused(capsys):
    code, _, err = _run(capsys, "analyze", SAMPLE, "--metric", "steps", "--by", "seed")
    _one_error_line(code, err, "--by seed", "group by a column that is fixed within an item")


def test_options_out_of_range_are_usage_errors(capsys):
    code, _, err = _run(capsys, "analyze", SAMPLE, "--metric", "steps", "--read", "skip-rows=1e23")
    assert code == 2 and "unexpected" not in err


@pytest.mark.parametrize("encoding", ["punycode", "idna", "unicode_escape"])
def test_an_encoding_that_is_not_a_text_file_encoding_is_refused(capsys, encoding):
    code, _, err = _run(capsys, "analyze", SAMPLE, "--metric", "steps", "--read", f"encoding={encoding}")
    _one_error_line(code, err, f"--read encoding={encoding}: not an encoding of text files")


def test_a_csv_with_lines_ending_in_cr_alone_is_read(tmp_path, capsys):
    path = tmp_path / "mac.csv"
    path.write_bytes(b"item,variant,steps\r1,a,1\r1,b,2\r2,a,1\r2,b,4\r")
    code, out, err = _run(capsys, "analyze", path, "--metric", "steps", "--json")
    # gaps 1 - 2 = -1 and 1 - 4 = -3, average -2
    assert code == 0, err
    import json
    assert json.loads(out)["average_gap"] == -2


def test_values_at_the_edge_of_floating_point_are_one_error_line(tmp_path, capsys):
    path = tmp_path / "big.csv"
    path.write_text("item,variant,steps\n1,a,1e308\n1,b,1\n2,a,1e308\n2,b,1\n")
    code, _, err = _run(capsys, "analyze", path, "--metric", "steps")
    assert code in (0, 1) and "unexpected" not in err and err.count("\n") <= 1


def test_a_design_file_nested_too_deeply_is_one_error_line(tmp_path, capsys):
    design = tmp_path / "deep.toml"
    design.write_text("a = " + "[" * 5000 + "]" * 5000 + "\n")
    code, _, err = _run(capsys, "report", SAMPLE, "--metric", "steps", "--design", design, "-o", tmp_path / "r.md")
    _one_error_line(code, err, "nests tables or arrays too deeply")


def _corrupt_parquet(tmp_path) -> list[Path]:
    import polars as pl

    clean = tmp_path / "clean.parquet"
    pl.read_csv(SAMPLE).write_parquet(clean)
    data = clean.read_bytes()
    out = []
    # one bit flipped near the start (a page header): polars panics (found by flipping each byte in turn)
    for offset in (18, 101):
        broken = bytearray(data)
        broken[offset] ^= 1
        path = tmp_path / f"broken{offset}.parquet"
        path.write_bytes(bytes(broken))
        out.append(path)
    return out


def test_a_corrupt_parquet_file_is_one_error_line(tmp_path, capfd):
    for path in _corrupt_parquet(tmp_path):
        code = main(["analyze", str(path), "--metric", "steps"])
        err = capfd.readouterr().err  # capfd: the reader's own panic message on file descriptor 2 counts too
        assert code == 1
        if "corrupt" in err:
            _one_error_line(code, err, f"the Parquet file '{path.name}' is corrupt")
        else:  # this polars build reads the flipped bit as an error of its own: still one line
            _one_error_line(code, err)
