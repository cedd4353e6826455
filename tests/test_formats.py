"""Files as studies publish them: R's data files, compressed files of every format, a folder of one JSON record
per file, and pandas frames without pyarrow."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import probestats
from probestats.cli import main
from probestats.errors import ReadError
from tests.factories import make_log, write_log

ROOT = Path(__file__).resolve().parents[1]


def analysis(capsys, path, *extra):
    code = main(["analyze", str(path), "--metric", "steps", "--json", *extra])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    return {k: v for k, v in data.items() if k not in ("source", "log", "noise_source")}


def test_an_rdata_file_reads_as_the_same_log_as_its_csv(tmp_path, capsys):
    pyreadr = pytest.importorskip("pyreadr")
    frame = make_log(items=6, runs=4, seed=3)
    csv = write_log(frame, tmp_path / "log.csv")
    pyreadr.write_rdata(str(tmp_path / "log.RData"), frame.to_pandas(), df_name="probe")
    pyreadr.write_rds(str(tmp_path / "log.rds"), frame.to_pandas())
    expected = analysis(capsys, csv)
    assert analysis(capsys, tmp_path / "log.RData") == expected
    assert analysis(capsys, tmp_path / "log.rds") == expected
    log = probestats.read_log(tmp_path / "log.RData")
    assert log.frame.drop("_row").rows() == frame.rows()


def test_an_rdata_file_of_several_frames_names_them(tmp_path):
    pyreadr = pytest.importorskip("pyreadr")
    frame = make_log(items=2, runs=1).to_pandas()
    path = tmp_path / "two.RData"
    pyreadr.write_rdata(str(path), frame, df_name="a")
    # pyreadr writes one frame per file; a file of two frames comes from R itself: what the reader (run in a
    # child process) found is stood in for, and read_r's own check is used
    from probestats.io import formats

    held = frame

    class Found:
        shapes = {"first": list(held.shape), "second": list(held.shape)}
        warnings = []

        def frame(self, name):
            return held

        def discard(self):
            pass

    real = formats._r_frames
    try:
        formats._r_frames = lambda p: Found()
        with pytest.raises(ReadError, match=r"holds 2 data frames \(first, second\); name one with records='first'"):
            formats.read_r(path)
        assert formats.read_r(path, "second")[0].height == len(frame)
    finally:
        formats._r_frames = real


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".json", ".tsv", ".parquet"])
@pytest.mark.parametrize("compression", [".gz", ".zst"])
def test_a_compressed_file_reads_as_the_plain_one(tmp_path, capsys, suffix, compression):
    frame = make_log(items=5, runs=3, seed=1)
    plain = write_log(frame, tmp_path / f"log{suffix}")
    data = plain.read_bytes()
    packed = tmp_path / f"packed{suffix}{compression}"
    if compression == ".gz":
        packed.write_bytes(gzip.compress(data))
    else:
        import zstandard

        packed.write_bytes(zstandard.ZstdCompressor().compress(data))
    assert analysis(capsys, packed) == analysis(capsys, plain)


def test_a_file_that_is_not_what_its_suffix_says(tmp_path, capsys):
    bad = tmp_path / "log.csv.gz"
    bad.write_text("item,variant\n1,a\n")
    assert main(["validate", str(bad)]) == 1
    assert "Error: cannot decompress 'log.csv.gz' as gzip" in capsys.readouterr().err


def test_a_folder_of_one_json_record_per_file(tmp_path, capsys):
    frame = make_log(items=4, runs=2, seed=2)
    folder = tmp_path / "runs"
    folder.mkdir()
    for k, row in enumerate(frame.iter_rows(named=True)):
        (folder / f"run{k:03d}.json").write_text(json.dumps(row), encoding="utf-8")
    csv = write_log(frame, tmp_path / "log.csv")
    together = analysis(capsys, folder)
    assert together["average_gap"] == pytest.approx(analysis(capsys, csv)["average_gap"])
    log = probestats.Probe().apply(str(folder))
    assert log.frame.height == frame.height and "file" in log.frame.columns
    assert [Path(r.file).name for r in log.rows([5])] == ["run005.json"] and int(log.rows([5])[0]) == 1


def test_a_pandas_frame_without_pyarrow():
    script = ("import sys; sys.modules['pyarrow'] = None\n"
              "import pandas as pd, probestats\n"
              "df = pd.DataFrame({'item': [1, 1, 2, 2], 'variant': pd.Categorical(['a', 'b', 'a', 'b']),"
              " 'steps': [3.0, None, 4.0, 2.0], 'n': pd.array([1, None, 3, 4], dtype='Int64'),"
              " 'when': pd.to_datetime(['2024-01-01', None, '2024-01-02', '2024-01-03'])})\n"
              "f = probestats.read_log(df).frame\n"
              "print(f['variant'].to_list(), f['steps'].to_list(), f['n'].to_list(), f['when'].null_count())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['a', 'b', 'a', 'b'] [3.0, None, 4.0, 2.0] [1, None, 3, 4] 1"
