"""Writes that fail and output paths that cannot be files: one Error line naming the user's path (never a
temporary file's), exit 1, and nothing left behind (no temporary file, no empty images folder). An image
never replaces a file that probestats did not write, unless --force."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from probestats.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_logs"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    shutil.copy(SAMPLES / "style_probe.csv", tmp_path / "log.csv")
    shutil.copy(SAMPLES / "style_noise.csv", tmp_path / "noise.csv")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _tree(folder: Path) -> dict:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() and not p.is_symlink() else None)
            for p in sorted(folder.rglob("*"))}


def _check_refusal(code, err, folder, before, *names):
    assert code == 1, err
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), err
    assert "unexpected" not in err and ".probestats-" not in err and str(folder) not in err and "/tmp" not in err
    for name in names:
        assert name in err, err
    assert _tree(folder) == before  # nothing left behind, nothing changed


def _refused(capsys, folder, argv, *names) -> str:
    before = _tree(folder)
    code = main(argv)
    err = capsys.readouterr().err
    _check_refusal(code, err, folder, before, *names)
    return err


# ---------------------------------------------------------------- writes that fail

REPORT = ["report", "log.csv", "--metric", "steps", "--noise", "noise.csv"]
WRITES = {"report_md": REPORT + ["-o", "out.md"], "report_html": REPORT + ["-o", "out.html"],
          "report_json": REPORT + ["-o", "out.json"],
          "compare": ["compare", "log.csv", "log.csv", "--metric", "steps", "-o", "out.md"],
          "plan_plot": ["plan", "--noise", "noise.csv", "--metric", "steps", "--gap", "1", "--items", "6", "--runs",
                        "2", "--sims", "20", "--plot", "out.png"]}


def run_limited(argv, folder: Path, fsize: int) -> tuple[int, str]:
    """Run the command line in a child process whose files may not grow past ``fsize`` bytes."""
    code = (f"import resource, sys\nresource.setrlimit(resource.RLIMIT_FSIZE, ({fsize}, {fsize}))\n"
            f"sys.path.insert(0, {str(ROOT)!r})\nfrom probestats.cli import main\nsys.exit(main({argv!r}))\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=folder, timeout=300, env=env)
    return done.returncode, done.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("fsize", [1, 700])
@pytest.mark.parametrize("which", list(WRITES))
def test_a_file_size_limit_is_one_error_line_and_leaves_nothing(folder, which, fsize):
    before = _tree(folder)
    code, err = run_limited(WRITES[which], folder, fsize)
    _check_refusal(code, err, folder, before, "file-size limit", "cannot write out")


def test_a_file_size_limit_keeps_the_earlier_report_and_its_images(folder, capsys):
    assert main(REPORT + ["-o", "out.md"]) == 0
    capsys.readouterr()
    before = _tree(folder)
    code, err = run_limited(REPORT + ["-o", "out.md"], folder, 2000)
    _check_refusal(code, err, folder, before, "out_files")


@pytest.fixture
def full_disk(tmp_path):
    """A 48 KiB file system (needs the right to mount one; skipped elsewhere)."""
    where = tmp_path / "disk"
    where.mkdir()
    if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "tmpfs", str(where)],
                                            capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small file system here")
    yield where
    subprocess.run(["umount", str(where)], check=True)


def test_a_full_disk_is_one_error_line_and_leaves_nothing(full_disk, capsys, monkeypatch):
    shutil.copy(SAMPLES / "style_probe.csv", full_disk.parent / "log.csv")
    monkeypatch.chdir(full_disk)
    for out in ("a.md", "b.html", "c.md"):  # the second one fills the disk; the third finds it full
        before = _tree(full_disk)
        code = main(["report", "../log.csv", "--metric", "steps", "-o", out])
        err = capsys.readouterr().err
        if code == 0:
            continue
        _check_refusal(code, err, full_disk, before, "the disk is full", out)
        break
    else:
        pytest.fail("the small disk never filled")


# ---------------------------------------------------------------- output paths that cannot be files


def test_the_images_folder_is_a_file(folder, capsys):
    (folder / "out_files").write_text("mine")
    _refused(capsys, folder, REPORT + ["-o", "out.md"], "'out_files' is a file, not a folder")


def test_an_image_path_is_a_folder(folder, capsys):
    (folder / "out_files" / "item_gaps.png").mkdir(parents=True)
    _refused(capsys, folder, REPORT + ["-o", "out.md"], "out_files/item_gaps.png: it is a folder")


@pytest.mark.parametrize("suffix", ["md", "html", "json"])
def test_an_output_under_a_regular_file(folder, capsys, suffix):
    _refused(capsys, folder, REPORT + ["-o", f"log.csv/out.{suffix}"], "'log.csv' is a file, not a folder")


def test_an_output_in_a_folder_that_takes_no_files(folder, capsys):
    _refused(capsys, folder, REPORT + ["-o", "/proc/self/out.md"], "/proc/self/out")


@pytest.mark.parametrize("length", [251, 300])
@pytest.mark.parametrize("suffix", ["md", "html"])
def test_a_name_too_long(folder, capsys, length, suffix):
    name = "a" * length + "." + suffix  # 251 + '.md' fits, but its images folder (+ '_files') does not
    if len(name) <= 255 and suffix == "html":
        pytest.skip("fits")
    err = _refused(capsys, folder, REPORT + ["-o", name], "more than the 255 a file name may have")
    assert len(err) < 300  # the name is shortened in the message


def test_the_plot_of_plan_onto_a_folder_and_under_a_file(folder, capsys):
    (folder / "plots").mkdir()
    base = WRITES["plan_plot"][:-1]
    _refused(capsys, folder, base + ["plots"], "is a folder")
    _refused(capsys, folder, base + ["log.csv/p.png"], "'log.csv' is a file, not a folder")


# ---------------------------------------------------------------- never over a file this run did not write


def test_an_image_never_replaces_a_file_probestats_did_not_write(folder, capsys):
    (folder / "out_files").mkdir()
    (folder / "out_files" / "power.png").write_bytes(b"my own picture")
    err = _refused(capsys, folder, REPORT + ["-o", "out.md"], "out_files/power.png", "--force")
    assert "probestats did not write it" in err
    assert main(REPORT + ["-o", "out.md", "--force"]) == 0  # said so: replaced
    assert (folder / "out_files" / "power.png").read_bytes().startswith(b"\x89PNG")


def test_an_image_never_writes_through_a_link(folder, capsys):
    (folder / "out_files").mkdir()
    os.symlink("../log.csv", folder / "out_files" / "power.png")
    _refused(capsys, folder, REPORT + ["-o", "out.md"], "out_files/power.png", "--force")


def test_a_rerun_replaces_its_own_images_and_says_so(folder, capsys):
    assert main(REPORT + ["-o", "out.md"]) == 0
    first = capsys.readouterr().err
    assert "replaced" not in first
    (folder / "out.md").write_text("edited by hand")  # the report named with -o is the user's to overwrite
    assert main(REPORT + ["-o", "out.md"]) == 0
    err = capsys.readouterr().err
    assert "replaced images of an earlier run in out_files: item_gaps.png" in err, err
    assert (folder / "out.md").read_text().startswith("#")
    assert sorted(p.name for p in folder.iterdir() if p.name.startswith(".")) == []


def test_a_failed_render_writes_no_images(folder, capsys):
    tpl = folder / "tpl"
    tpl.mkdir()
    (tpl / "report.md.j2").write_text("{{ nosuch }}")
    _refused(capsys, folder, REPORT + ["-o", "out.md", "--templates", "tpl"], "--templates tpl")


def test_a_report_of_many_items_runs_again_over_its_own_table_but_not_over_an_edited_one(tmp_path):
    """The whole per-item table (items.csv) is not an image: the folder's manifest lists its SHA-256, so a
    second run replaces it, and a table edited since (no longer what probestats wrote) is refused."""
    from click.testing import CliRunner

    from probestats.cli import cli
    from tests.factories import make_log, write_log

    log = write_log(make_log(items=60, runs=2, gap=0.5, seed=1), tmp_path / "big.csv")
    out = tmp_path / "r.md"
    runner = CliRunner()
    first = runner.invoke(cli, ["report", str(log), "--metric", "steps", "-o", str(out)])
    assert first.exit_code == 0, first.output
    table = tmp_path / "r_files" / "items.csv"
    assert table.is_file()
    again = runner.invoke(cli, ["report", str(log), "--metric", "steps", "-o", str(out)])
    assert again.exit_code == 0, again.output
    table.write_text(table.read_text() + "edited,by,hand\n")
    from probestats.errors import cli_spelling

    with cli_spelling():   # as main() runs the command: its errors name flags
        edited = runner.invoke(cli, ["report", str(log), "--metric", "steps", "-o", str(out)])
    assert edited.exit_code == 1   # the command line turns this error into one Error: line (tests/test_cli.py)
    assert "probestats did not write it" in str(edited.exception) and "--force" in str(edited.exception)
    assert table.read_text().endswith("edited,by,hand\n")   # refused: the user's edit stays
    forced = runner.invoke(cli, ["report", str(log), "--metric", "steps", "-o", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    assert not table.read_text().endswith("edited,by,hand\n")
