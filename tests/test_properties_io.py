"""Hypothesis properties of reading and validation: formats agree, and no input ever raises a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

import polars as pl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from probestats.checks.schema import ColumnRoles, validate   # the checks, with their keywords
from probestats.cli import main
from tests.factories import write_log

# ids people type: letters (any script), digits, punctuation and inner spaces; no control characters
ID_CHARS = st.characters(categories=("L", "N", "P", "S", "Zs"), exclude_characters="\x00")
ids = st.text(ID_CHARS, min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def probe_tables(draw):
    items = draw(st.lists(ids, min_size=1, max_size=5, unique=True))
    values = draw(st.lists(ids, min_size=2, max_size=3, unique_by=lambda v: v.lower()))
    runs = draw(st.integers(1, 3))
    numbers = st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 6)))
    rows = [{"item": i, "variant": v, "seed": s, "steps": float(draw(numbers))}
            for i in items for v in values for s in range(1, runs + 1)]
    return pl.DataFrame(rows, schema={"item": pl.String, "variant": pl.String, "seed": pl.Int64, "steps": pl.Float64})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(probe_tables())
def test_csv_jsonl_xlsx_read_back_equal(table):
    with tempfile.TemporaryDirectory() as tmp:
        frames = {}
        for suffix in (".csv", ".jsonl", ".xlsx"):
            path = write_log(table, Path(tmp) / f"log{suffix}")
            checked = validate(path, metric="steps")
            assert not any(p.code in ("non_numeric", "missing_column") for p in checked.problems)
            frames[suffix] = checked.frame.select("item", "variant", "seed", "steps")
        assert_frame_equal(frames[".csv"], frames[".jsonl"])
        assert_frame_equal(frames[".csv"], frames[".xlsx"])
        expected = table.with_columns(pl.col("seed").cast(pl.String))
        assert_frame_equal(frames[".csv"], expected)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600), st.sampled_from([".csv", ".tsv", ".json", ".jsonl", ".xlsx", ".ods", ".parquet"]))
def test_validate_never_raises_on_arbitrary_bytes(data, suffix):
    import contextlib
    import io

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"log{suffix}"
        path.write_bytes(data)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["validate", str(path), "--metric", "steps"])
        text = out.getvalue() + err.getvalue()
        assert code in (0, 1)
        assert "Traceback" not in text
        assert "unexpected" not in err.getvalue(), err.getvalue()  # an internal error is a bug, not a message
        if code == 1 and err.getvalue():
            lines = err.getvalue().strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("Error: ")
        assert path.read_bytes() == data


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=300))
def test_validate_never_raises_on_arbitrary_text_csv(text):
    import contextlib
    import io

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.csv"
        path.write_text(text, encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            code = main(["validate", str(path), "--metric", "steps"])
        assert code in (0, 1)
        assert "unexpected" not in err.getvalue(), err.getvalue()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(st.sampled_from(['a', 'b', '"', ',', '\n', ' ', 'é']), max_size=8), min_size=1, max_size=4),
       st.sampled_from(["minimal", "all"]), st.sampled_from(["\n", "\r\n"]))
def test_any_valid_csv_quoting_reads_back(texts, quoting, newline):
    """Quotes, doubled quotes, separators and line breaks inside fields, as Python's csv module writes
    them (an independent writer), read back as written."""
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_ALL if quoting == "all" else csv.QUOTE_MINIMAL, lineterminator=newline)
    writer.writerow(["item", "variant", "steps", "prompt"])
    for i, text in enumerate(texts):
        writer.writerow([i, "a", 1, text])
        writer.writerow([i, "b", 2, text])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.csv"
        path.write_bytes(buf.getvalue().encode("utf-8"))
        frame = validate(path, metric="steps", roles=ColumnRoles(keep=["prompt"])).frame
    # an unquoted empty field is missing; a quoted one ("") is the empty text
    expected = [t if (t != "" or quoting == "all") else None for t in texts for _ in (0, 1)]
    assert frame["prompt"].to_list() == expected
