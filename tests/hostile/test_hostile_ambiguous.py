"""Ambiguous data is refused or named, never read one way silently."""

from __future__ import annotations

import json

import pytest

from probestats.cli import main


def _run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_header_naming_a_column_twice_is_an_error_naming_it(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("item,variant,steps,steps\n1,a,1,9\n1,b,1,9\n")
    code, _, err = _run(capsys, "analyze", path, "--metric", "steps")
    assert code == 1
    assert err == ("Error: 'dup.csv' names the column 'steps' twice in its header (columns 3 and 4); "
                   "rename one so that each column has one name\n")


def test_a_header_after_title_rows_is_checked_too(tmp_path, capsys):
    path = tmp_path / "dup.tsv"
    path.write_text("title\titem\n\nitem\tvariant\tsteps\tvariant\n1\ta\t1\tb\n")
    code, _, err = _run(capsys, "analyze", path, "--metric", "steps", "--read", "skip-rows=2")
    assert code == 1 and "'variant' twice" in err


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_a_key_given_twice_is_the_same_error_in_json_and_json_lines(tmp_path, capsys, suffix):
    record = '{"item": 1, "variant": "a", "steps": 1, "steps": 9}'
    other = '{"item": 1, "variant": "b", "steps": 1}'
    path = tmp_path / f"dup{suffix}"
    path.write_text(f"[{record},\n{other}]" if suffix == ".json" else f"{other}\n{record}\n")
    code, _, err = _run(capsys, "analyze", path, "--metric", "steps")
    assert code == 1
    where = "a record" if suffix == ".json" else "line 2"
    assert err == (f"Error: {where} of 'dup{suffix}' gives the key 'steps' twice; which value counts would be "
                   "a guess: remove or rename one\n")


def test_derived_integer_arithmetic_does_not_wrap_around(tmp_path, capsys):
    # steps 5 and 1 per item: 5 * 4e18 = 2e19 exceeds 2**63 - 1 (about 9.22e18), so 64-bit integer arithmetic
    # wraps to a negative number; the true gap is (5 - 1) * 4e18 = 1.6e19
    path = tmp_path / "log.csv"
    path.write_text("item,variant,steps\n" + "".join(f"{i},a,5\n{i},b,1\n" for i in range(1, 4)))
    code, out, _ = _run(capsys, "analyze", path, "--metric", "x", "--derive", "x = steps * 4000000000000000000",
                        "--json")
    assert code == 0
    result = json.loads(out)
    assert result["average_gap"] == pytest.approx(1.6e19)
    assert any(p["code"] == "derived_float" for p in result["problems"])


def test_derived_integer_arithmetic_that_fits_stays_exact(tmp_path, capsys):
    path = tmp_path / "log.csv"
    path.write_text("item,variant,steps\n" + "".join(f"{i},a,5\n{i},b,1\n" for i in range(1, 4)))
    code, out, _ = _run(capsys, "analyze", path, "--metric", "x", "--derive", "x = steps * 4", "--json")
    assert code == 0
    result = json.loads(out)
    assert result["average_gap"] == 16
    assert not any(p["code"] == "derived_float" for p in result["problems"])


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_deep_nesting_and_huge_integers_are_one_line_errors(tmp_path, capsys, suffix):
    for body in ('[' * 5000 + ']' * 5000, '[' * 150 + ']' * 150, "9" * 5000):
        record = '{"item": 1, "variant": "a", "steps": %s}' % body
        path = tmp_path / f"bad{suffix}"
        path.write_text(f"[{record}]" if suffix == ".json" else record + "\n")
        code, _, err = _run(capsys, "analyze", path, "--metric", "steps")
        assert code == 1
        assert err.count("\n") == 1 and err.startswith("Error: ") and "unexpected" not in err


def test_json_lines_with_a_byte_order_mark_are_read(tmp_path, capsys):
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"".join(
        b'{"item": %d, "variant": "%s", "steps": %d}\n' % (i, v, s) for i in range(1, 4)
        for v, s in ((b"a", 5), (b"b", 1))))
    code, out, _ = _run(capsys, "analyze", path, "--metric", "steps", "--json")
    assert code == 0 and json.loads(out)["average_gap"] == 4


def test_many_values_with_no_item_measured_under_every_value_is_one_validation_error(tmp_path, capsys):
    # found by benchmarks/fuzz.py: a stray third value (a byte-order mark glued to 'casual') left no item
    # matched across the three values, and the pivot of item means failed inside polars
    # (the header names six columns, the rows hold five: no run has a number under 'steps')
    path = tmp_path / "log.csv"
    path.write_bytes(b'item,variant,se,ed,model,steps\n1,formal,1,m1,3\n1,formal,2,m1,11\n1,casual,1,m1,5\n1,casual,2,m1,7\n2,formal,1,m1,3\n2,formal,2,m1,4\n2,casual,1,m1,6\n2,casual,2,m1,0\n\xff,formal,1,m1,11\n3,formal,2,m1,6\n3,casual,1,m1,7\n3,casual\xef\xbb\xbf,2,m1,6\n4,formal,1,m1,6\n4,formal,2,m1,10\n4,casual,1,m1,0\n4,casual,2,m1,7\n5,formal,1,m1,D\n5,formal,2,m1,11\n5,casual,1,m1,3\n5,casual,2,m1,9\n6,formal,1,m1,2\n6,formal,2,m1,7\n6,casual,1,m1,7\n6,casual,2,m1,6\n')
    code, out, err = _run(capsys, "analyze", path, "--metric", "steps")
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith("Error: 1 validation error: no item has a metric value under every one of the 3 values")


def test_a_validation_refusal_under_json_names_a_value_with_controls_on_one_line(tmp_path, capsys):
    # found by benchmarks/fuzz.py: the Error line that validate --json adds quoted --a with its form feed raw
    path = tmp_path / "log.csv"
    path.write_text("item,variant,steps\n1,formal,3\n1,casual,5\n", encoding="utf-8")
    code, out, err = _run(capsys, "validate", path, "--metric", "steps", "--json", "--a", "a\x0cb")
    assert code == 1 and json.loads(out)["ok"] is False
    assert err.count("\n") == 1 and "\x0c" not in err and "a\\x0cb" in err
