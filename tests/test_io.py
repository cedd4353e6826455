"""Reading logs: every format, header matching, row numbers a person sees, clear read errors."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from probestats import read_log
from probestats.checks.schema import validate   # the checks, with the read options
from probestats.errors import ColumnError, OptionError, ReadError
from probestats.io.columns import normalize_header, resolve_columns
from probestats.io.log import format_rows
from tests.factories import make_log, write_log

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"
BROKEN = SAMPLES / "broken"


def checked_frame(path, **kw):
    """The checked frame without the row numbers, which differ between formats by design."""
    return validate(path, metric="steps", read=kw).frame.drop("_row")


def test_sample_probe_csv_jsonl_load_equal():
    csv = checked_frame(SAMPLES / "style_probe.csv")
    jsonl = checked_frame(SAMPLES / "style_probe.jsonl")
    assert csv.height == 320
    assert_frame_equal(csv, jsonl)


def test_hand_sheet_csv_and_xlsx_load_equal():
    csv = checked_frame(SAMPLES / "style_hand.csv")
    xlsx = checked_frame(SAMPLES / "style_hand.xlsx")
    assert csv.height == 60
    assert_frame_equal(csv, xlsx)


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".json", ".jsonl", ".xlsx", ".ods", ".parquet"])
def test_every_format_loads_equal(tmp_path, suffix):
    frame = make_log(items=4, runs=3, gap=1.0, seed=3)
    reference = checked_frame(write_log(frame, tmp_path / "log.csv"))
    other = checked_frame(write_log(frame, tmp_path / f"log{suffix}"))
    assert_frame_equal(reference, other)


def test_python_objects_load_like_files(tmp_path):
    frame = make_log(items=3, runs=2, seed=1)
    from_file = checked_frame(write_log(frame, tmp_path / "log.csv"))
    assert_frame_equal(checked_frame(frame), from_file)
    assert_frame_equal(checked_frame(frame.to_dicts()), from_file)
    assert_frame_equal(checked_frame(frame.to_pandas()), from_file)


def test_friendly_headers_resolve_without_options():
    log = read_log(BROKEN / "friendly_headers.csv", metric="steps")
    assert log.columns == {"item": " Item ", "variant": "Variant", "seed": "Seed", "run_id": "Run ID",
                           "steps": "Steps"}
    assert validate(log, metric="steps").ok


def test_biaslab_headers_resolve():
    log = read_log(SAMPLES / "framing_long.csv")
    assert {k: log.columns[k] for k in ("model", "language", "framing", "seed", "prompt", "prefix", "suffix",
                                        "topic", "reply", "label", "score", "refusal", "neutral")} == {
        "model": "Model", "language": "Language", "framing": "Framing", "seed": "Iteration",
        "prompt": "Question", "prefix": "Prefix", "suffix": "Suffix", "topic": "Topic", "reply": "Raw",
        "label": "Cat", "score": "Score", "refusal": "IsRefusal", "neutral": "IsNeutral"}


def test_column_override_and_bad_override():
    rows = [{"Question #": 1, "Style": "a", "n": 2}, {"Question #": 1, "Style": "b", "n": 3}]
    log = read_log(rows, columns={"item": "Question #"}, metric="n")
    assert log.columns["item"] == "Question #" and log.columns["variant"] == "Style"
    with pytest.raises(ColumnError, match=r"columns=\{'item': 'Nope'\}: no header 'Nope' in the log; headers seen: Question #, Style, n"):
        read_log(rows, columns={"item": "Nope"})


def test_normalize_and_resolve():
    assert normalize_header("  IsRefusal ") == "isrefusal"
    # an exact canonical name wins over an alias, whatever the order of headers
    assert resolve_columns(["pair", "item"])["item"] == "item"


def test_csv_rows_are_file_lines_even_with_multiline_replies():
    log = read_log(SAMPLES / "style_probe.csv")
    text = (SAMPLES / "style_probe.csv").read_text(encoding="utf-8")
    # the third record starts on the line after the first two records' text ends
    import csv as _csv
    import io

    reader = _csv.reader(io.StringIO(text, newline=""))
    next(reader)
    starts = []
    line = 2
    for _ in range(3):
        starts.append(line)
        next(reader)
        line = reader.line_num + 1
    assert log.rows([0, 1, 2]) == starts
    assert starts[1] > 3  # the replies do span lines, so this checks something


def test_csv_rows_count_a_quoted_line_break_far_down_a_large_file(tmp_path):
    # ~180 KB of one-line records (no quote in the first 64 KB), then a reply over two lines:
    # the record after it starts one line later than its index says
    lines = ["item,variant,steps,reply"]
    lines += [f"{i},{v},3,plain reply number {i} without any line break at all" for i in range(1500) for v in "ab"]
    lines += ['1500,a,3,"two\nlines"', "1500,b,four,x"]
    path = tmp_path / "big.csv"
    path.write_text("\n".join(lines) + "\n")
    checked = validate(path, metric="steps")
    bad = path.read_text().splitlines().index("1500,b,four,x") + 1  # 1-based line of the file
    assert bad == 3004 and [(p.code, p.rows) for p in checked.errors] == [("non_numeric", (bad,))]


def test_jsonl_rows_count_blank_lines(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"item": 1, "variant": "a", "steps": 1}\n\n{"item": 1, "variant": "b", "steps": "x"}\n')
    checked = validate(path, metric="steps")
    assert [(p.code, p.rows) for p in checked.errors] == [("non_numeric", (3,))]


def test_jsonl_rows_count_lines_of_spaces(tmp_path):
    # line 2 holds only spaces (and a CR): the bad record is on line 3, the next one on line 5
    path = tmp_path / "log.jsonl"
    path.write_text('{"item": 1, "variant": "a", "steps": 1}\n   \r\n{"item": 1, "variant": "b", "steps": "x"}\n'
                    '\t\n{"item": 2, "variant": "a", "steps": "y"}\n{"item": 2, "variant": "b", "steps": 2}\n')
    checked = validate(path, metric="steps")
    assert [(p.code, p.rows) for p in checked.errors] == [("non_numeric", (3, 5))]


def _sheet_with_blank_top(path, blank_rows, title=None):
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet()
    r = blank_rows
    if title is not None:
        sheet.write(r, 0, title)
        r += 1
    for row in [["item", "variant", "steps"], [1, "a", 3], [1, "b", "four"], [2, "a", 3], [2, "b", 2]]:
        sheet.write_row(r, 0, row)
        r += 1
    book.close()
    return path


@pytest.mark.parametrize("skip_rows", [0, 1, 2])
def test_spreadsheet_rows_count_empty_rows_above_the_header(tmp_path, skip_rows):
    # rows 1-2 empty, the header on row 3, 'four' on row 5: the sheet's own row numbers, whether or
    # not --skip-rows names the empty rows (the reader starts at the first filled row by itself)
    path = _sheet_with_blank_top(tmp_path / "sheet.xlsx", 2)
    checked = validate(path, metric="steps", read={"skip_rows": skip_rows})
    assert [(p.code, p.rows) for p in checked.errors] == [("non_numeric", (5,))]


def test_spreadsheet_rows_with_an_empty_row_above_a_title(tmp_path):
    # row 1 empty, a title on row 2, the header on row 3: --skip-rows 2, 'four' on row 5
    path = _sheet_with_blank_top(tmp_path / "sheet.xlsx", 1, title="Style probe, week 3")
    checked = validate(path, metric="steps", read={"skip_rows": 2})
    assert [(p.code, p.rows) for p in checked.errors] == [("non_numeric", (5,))]


def test_spreadsheet_rows_and_title_rows():
    checked = validate(BROKEN / "title_rows.xlsx", metric="steps", read={"skip_rows": 2})
    assert checked.ok and checked.n_rows == 60
    first = checked.frame["_row"][0]
    assert checked.log.rows([first]) == [4]  # two title rows, the header on row 3, data from row 4
    # read without skip_rows, the title is taken for the header: the error says to skip it
    untitled = validate(BROKEN / "title_rows.xlsx", metric="steps")
    assert [p.code for p in untitled.errors][:2] == ["missing_column", "missing_column"]
    assert untitled.errors[0].message.endswith(
        "(skip the title rows above the header with skip_rows='N', or name one with columns={'item': 'HEADER'})")


def test_numbers_stored_as_text_are_converted_with_a_warning():
    checked = validate(BROKEN / "numbers_as_text.xlsx", metric="steps")
    assert checked.ok
    assert [p.code for p in checked.warnings] == ["numbers_as_text"]
    assert checked.frame["steps"].dtype == pl.Float64


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_numbers_stored_as_text_in_json_are_converted_with_a_warning(tmp_path, suffix):
    frame = make_log(items=2, runs=2, seed=1).with_columns(pl.col("steps").cast(pl.String))
    checked = validate(write_log(frame, tmp_path / f"log{suffix}"), metric="steps")
    assert checked.ok and [p.code for p in checked.warnings] == ["numbers_as_text"]
    assert checked.frame["steps"].to_list() == frame["steps"].cast(pl.Float64).to_list()
    # a CSV holds only text: its numbers are not "stored as text"
    assert validate(write_log(frame, tmp_path / "log.csv"), metric="steps").problems == ()


def test_a_text_cell_among_numbers_is_an_error_not_numbers_as_text(tmp_path):
    # the sheet's numbers are real numbers; the column reads as text only because of 'four'
    path = _sheet_with_blank_top(tmp_path / "sheet.xlsx", 0)
    assert [p.code for p in validate(path, metric="steps").problems] == ["non_numeric"]


def test_empty_trailing_sheet_rows_are_ignored(tmp_path):
    import xlsxwriter

    path = tmp_path / "sheet.xlsx"
    book = xlsxwriter.Workbook(str(path))
    sheet = book.add_worksheet()
    for r, row in enumerate([["item", "variant", "steps"], [1, "a", 3], [1, "b", 2]]):
        sheet.write_row(r, 0, row)
    sheet.write_string(6, 0, "")  # a touched but empty cell well below the data
    sheet.write_blank(7, 1, None)
    book.close()
    assert validate(path, metric="steps").n_rows == 2


def test_latin1_loads_with_a_warning_and_encoding_option_is_silent():
    guessed = read_log(BROKEN / "latin1.csv")
    assert [p.code for p in guessed.problems] == ["encoding"]
    told = read_log(BROKEN / "latin1.csv", encoding="latin-1")
    assert told.problems == ()
    assert_frame_equal(guessed.frame, told.frame)
    assert any("ó" in str(v) or "é" in str(v) or "á" in str(v) for v in told.frame["prompt"].to_list())


def test_utf8_bom_and_utf16(tmp_path):
    text = "item,variant,steps\n1,a,3\n1,b,2\n"
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf" + text.encode())
    (tmp_path / "u16.csv").write_bytes(text.encode("utf-16"))
    for name in ("bom.csv", "u16.csv"):
        log = read_log(tmp_path / name, metric="steps")
        assert log.columns["item"] == "item", name
        assert log.frame.height == 2


@pytest.mark.parametrize(
    "name, message",
    [
        ("not_json.jsonl", "line 2 of not_json.jsonl is not JSON (Expecting property name enclosed in double quotes at column 2); fix or remove that line"),
        ("random_bytes.xlsx", "cannot read 'random_bytes.xlsx' as a spreadsheet"),
        ("unbalanced_quotes.csv", "of unbalanced_quotes.csv"),
    ],
)
def test_broken_files_raise_one_clear_error(name, message):
    with pytest.raises(ReadError) as info:
        validate(BROKEN / name, metric="steps")
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_read_errors_for_paths(tmp_path):
    with pytest.raises(ReadError, match="no such file"):
        read_log(tmp_path / "missing.csv")
    with pytest.raises(ReadError, match="is a folder"):
        read_log(tmp_path)
    (tmp_path / "empty.csv").write_bytes(b"")
    with pytest.raises(ReadError, match="'empty.csv' is empty"):
        read_log(tmp_path / "empty.csv")
    (tmp_path / "log.numbers").write_text("x")
    with pytest.raises(ReadError, match=r"unsupported format; expected .csv, .tsv, .json, .jsonl, .xlsx, .ods, .parquet, .RData or .rds \(any of them .gz or .zst\) \(use format\)$"):
        read_log(tmp_path / "log.numbers")
    with pytest.raises(OptionError, match="^format='xml': unknown format"):
        read_log(tmp_path / "log.numbers", format="xml")
    (tmp_path / "bin.csv").write_bytes(bytes(range(256)) * 4)
    with pytest.raises(ReadError, match="does not look like a text file"):
        read_log(tmp_path / "bin.csv").frame


def test_format_option_overrides_suffix(tmp_path):
    path = tmp_path / "log.txt"
    path.write_text("item\tvariant\tsteps\n1\ta\t3\n1\tb\t2\n")
    assert read_log(path, format="tsv", metric="steps").frame.height == 2


def test_json_array_and_wrong_json(tmp_path):
    good = tmp_path / "log.json"
    good.write_text(json.dumps([{"item": 1, "variant": "a", "steps": 3}, {"item": 1, "variant": "b", "steps": 2}]))
    assert read_log(good).frame.height == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"item": 1}')
    with pytest.raises(ReadError, match="must be a JSON array of records"):
        read_log(bad)
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    with pytest.raises(ReadError, match=r"^'empty.json' holds no records; it needs one object per run"):
        read_log(empty)


def test_sheet_option(tmp_path):
    with pytest.raises(OptionError, match=r"^sheet='nope': no such sheet in 'style_hand.xlsx'; sheets: runs$"):
        read_log(SAMPLES / "style_hand.xlsx", sheet="nope")
    assert read_log(SAMPLES / "style_hand.xlsx", sheet="runs").frame.height == 60
    assert read_log(SAMPLES / "style_hand.xlsx", sheet=0).frame.height == 60


def test_format_rows_ranges():
    assert format_rows("line", [3, 2, 4, 10]) == "lines 2-4, 10"


def test_large_csv_is_scanned_lazily(tmp_path):
    frame = make_log(items=5, runs=4, seed=2).with_columns(pl.lit("long text " * 20).alias("reply"))
    path = write_log(frame, tmp_path / "log.csv")
    log = read_log(path, metric="steps")
    assert isinstance(log.lazy, pl.LazyFrame)
    plan = log.lazy.select("item", "variant", "steps").explain()
    assert "reply" not in plan.split("PROJECT")[-1]  # the scan reads only the selected columns


def test_semicolon_separated_csv_is_read_on_its_own_separator(tmp_path):
    # Excel where the decimal mark is a comma saves .csv with semicolons; line 4 holds the bad cell
    path = tmp_path / "semi.csv"
    path.write_text("item;variant;seed;steps\n0;a;1;3\n0;b;1;4\n1;a;1;four\n1;b;1;2\n", encoding="utf-8")
    checked = validate(path, metric="steps")
    assert checked.log.columns["variant"] == "variant"
    assert [(p.code, p.rows) for p in checked.errors] == [("non_numeric", (4,))]
    ragged = tmp_path / "ragged.csv"   # and a row with one field too many is named by its line
    ragged.write_text("item;variant;steps\n0;a;3\n0;b;4;5\n1;a;2\n1;b;4\n", encoding="utf-8")
    with pytest.raises(ReadError, match="^line 3 of ragged.csv has 4 fields where the header has 3;"):
        validate(ragged, metric="steps")


@pytest.mark.parametrize("header", ["*", "^x.*$"])
def test_a_header_polars_would_read_as_a_pattern_is_an_ordinary_column(tmp_path, header):
    # found by the arbitrary-bytes property test: a file holding only '*' ended in an internal error
    path = tmp_path / "log.csv"
    path.write_text(f"item,variant,{header},steps\n0,a,x,3\n0,b,x,4\n1,a,x,2\n1,b,x,4\n", encoding="utf-8")
    log = read_log(path, metric="steps")
    assert log.frame.columns == ["item", "variant", header, "steps", "_row"]
    checked = validate(path, metric="steps")
    assert checked.ok and checked.n_rows == 4
    only = tmp_path / "only.csv"
    only.write_text(f"{header}\n", encoding="utf-8")
    assert [p.code for p in validate(only).errors] == ["missing_column", "missing_column"]


def test_a_csv_read_in_chunks_matches_pythons_csv_reader(tmp_path):
    """probestats asks polars to read CSV files in 4 MiB chunks (to keep the peak memory of a large
    log low). Records longer than a chunk, and quoted line breaks and quotes on either side of a
    chunk's edge, must still read exactly as Python's csv module reads them."""
    import csv
    import os
    import random

    from probestats.io.read import CSV_CHUNK_BYTES

    assert os.environ.get("POLARS_CSV_CHUNK_SIZE") == str(CSV_CHUNK_BYTES) == str(4 << 20)
    rng = random.Random(7)
    rows = []
    for i in range(12000):
        size = 9_000_000 if i == 4500 else rng.randint(0, 1500)  # one reply longer than two chunks
        reply = "".join(rng.choices('ab\n",; ', k=size))
        rows.append([f"q{i // 2}", "formal" if i % 2 else "casual", reply, str(i % 5)])
    path = tmp_path / "chunks.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["item", "variant", "reply", "steps"])
        writer.writerows(rows)
    assert path.stat().st_size > 4 * CSV_CHUNK_BYTES
    frame = read_log(path).frame
    assert frame.height == len(rows)
    assert frame["reply"].to_list() == [r[2] or None for r in rows]  # an empty cell reads as blank
    assert frame["steps"].to_list() == [r[3] for r in rows]
    line = 2 + 9000 + sum(r[2].count("\n") for r in rows[:9000])  # header, 9000 records, their line breaks
    assert read_log(path).rows([9000]) == [line]


def test_sheet_and_skip_rows_on_a_format_without_them_are_ignored_with_a_warning(tmp_path):
    # compare and plan --pilot read two files with the same options, so an option meant for the
    # other file is not an error; but a user should know it did nothing here
    csv_path = write_log(make_log(), tmp_path / "probe.csv")
    log = read_log(csv_path, sheet=2)
    assert [(p.severity, p.code, p.message) for p in log.problems] == [
        ("warning", "ignored_option",
         "sheet=2 does not apply to 'probe.csv', read as CSV, which has no sheets; it was ignored")]
    assert log.frame.height == make_log().height
    jsonl_path = write_log(make_log(), tmp_path / "probe.jsonl")
    checked = validate(jsonl_path, metric="steps", read={"skip_rows": 1})
    assert checked.ok and [p.code for p in checked.warnings] == ["ignored_option"]
    assert read_log(csv_path, skip_rows=0).problems == ()


def test_the_plan_states_what_reading_its_noise_log_and_its_pilot_said(tmp_path):
    # the other commands show a read option that did not apply as a warning; the plan reads two files
    from probestats import Probe, plan

    noise = write_log(make_log(items=6, runs=3, gap=0.0, seed=1), tmp_path / "noise.csv")
    pilot = write_log(make_log(items=6, runs=3, gap=1.0, seed=2), tmp_path / "pilot.csv")
    quiet = plan(noise, metric="steps", pilot=pilot, items=[6], runs=[2], sims=20, mdg_range=False)
    told = plan(noise, metric="steps", pilot=pilot, items=[6], runs=[2], sims=20, mdg_range=False,
                probe=Probe(max_cells=10))
    said = [p.message for p in told.problems if p.code == "ignored_option"]
    assert said == [f"max_cells=10 does not apply to '{name}', read as CSV: it limits spreadsheets, whose cells are "
                    "read whole; it was ignored" for name in ("noise.csv", "pilot.csv")]
    assert [p for p in told.problems if p.code != "ignored_option"] == list(quiet.problems)
    assert [p["code"] for p in told.to_dict()["problems"]].count("ignored_option") == 2
    # the same file as noise and pilot: said once
    once = plan(noise, metric="steps", pilot=noise, items=[6], runs=[2], sims=20, mdg_range=False,
                probe=Probe(max_cells=10))
    assert [p.code for p in once.problems].count("ignored_option") == 1


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
def test_a_files_own_row_column_is_kept_as_data_not_renumbered(tmp_path, suffix):
    # '_row' is the name probestats numbers rows under; a file's own column of that name is data
    path = tmp_path / f"log{suffix}"
    rows = [{"item": "1", "variant": "a", "steps": 3, "_row": 10}, {"item": "1", "variant": "b", "steps": 2, "_row": 11}]
    if suffix == ".csv":
        path.write_text("item,variant,steps,_row\n" + "".join(f"{r['item']},{r['variant']},{r['steps']},{r['_row']}\n"
                                                           for r in rows))
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    frame = read_log(path).frame
    assert frame["_row (original)"].cast(pl.Int64).to_list() == [10, 11]
    assert frame["_row"].to_list() == [0, 1]


def test_a_frame_read_before_is_numbered_afresh():
    once = read_log(pl.DataFrame({"item": ["1", "1"], "variant": ["a", "b"], "steps": [1.0, 2.0]})).frame
    again = read_log(once.reverse()).frame
    assert again["_row"].to_list() == [0, 1] and "_row (original)" not in again.columns
