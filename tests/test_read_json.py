"""JSON as notebooks and scripts write it: column-oriented objects, records under any key, --records."""

from __future__ import annotations

import json

import pytest

from probestats.cli import main
from probestats.errors import ReadError
from probestats.io.read import read_log


def run(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def write(tmp_path, name, value):
    path = tmp_path / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_column_oriented_json_reads_as_a_table_numbered_by_list_position(tmp_path):
    # what DataFrame.to_dict(orient="list") writes
    cols = {"item": [1, 1, 2, 2], "variant": ["a", "b", "a", "b"], "steps": [3, 2, 5, 4]}
    log = read_log(write(tmp_path, "cols.json", cols), metric="steps")
    assert log.frame.drop("_row").to_dict(as_series=False) == cols
    assert log.row_label == "list position" and log.rows([0, 3]) == [1, 4]  # the first entry is position 1


def test_validate_names_rows_of_column_oriented_json_by_list_position(tmp_path, capsys):
    path = write(tmp_path, "cols.json", {"item": [1, 1, 2, 2, 3, 3], "variant": ["a", "b"] * 3,
                                         "steps": [3, 2, "four", 4, 5, 3]})
    code, out, _ = run(capsys, "validate", path, "--metric", "steps")
    assert code == 1
    assert "steps: 'four' is not a number (list position 3)" in out


def test_unequal_lists_give_one_error_line(tmp_path, capsys):
    path = write(tmp_path, "unequal.json", {"item": [1, 2, 3], "steps": [1, 2]})
    code, out, err = run(capsys, "validate", path, "--metric", "steps")
    assert code == 1 and out == ""
    assert err.strip().splitlines() == [
        "Error: 'unequal.json' is column-oriented JSON (an object of lists) but its lists differ in length "
        "('item' has 3, 'steps' has 2); every list needs one entry per run"]


def test_records_under_any_key_beside_other_keys_read_without_options(tmp_path, capsys):
    records = [{"item": i, "variant": v, "steps": i + (v == "a")} for i in range(1, 4) for v in "ab"]
    path = write(tmp_path, "decisions.json", {"meta": {"model": "x"}, "all_decisions": records, "notes": ["a"]})
    assert read_log(path).frame.height == 6
    code, out, _ = run(capsys, "validate", path, "--metric", "steps")
    assert code == 0 and "6 rows" in out


def test_several_lists_of_records_ask_for_records_and_a_dotted_path_reads_nested_ones(tmp_path, capsys):
    rec = [{"item": 1, "variant": "a", "steps": 1}, {"item": 1, "variant": "b", "steps": 2}]
    two = write(tmp_path, "two.json", {"train": rec, "test": rec + rec})
    with pytest.raises(ReadError, match=r"several keys \(train, test\); name one with records='KEY' \(e.g. records='train'\)"):
        read_log(two)
    assert read_log(two, records="test").frame.height == 4
    nested = write(tmp_path, "nested.json", {"run": {"out": rec}})
    with pytest.raises(ReadError, match="records sit deeper: records='run.out'"):
        read_log(nested)
    code, out, _ = run(capsys, "validate", nested, "--metric", "steps", "--read", "records=run.out")
    assert code == 0
    code, _, err = run(capsys, "validate", nested, "--metric", "steps", "--read", "records=run.x")
    assert code == 1 and err.strip() == "Error: --read records=run.x: no key 'x' under run of 'nested.json'; keys there: out"
