"""The report's tables of Welch's t per item on the runs (probestats.present.report.welch).

References: scipy.stats.ttest_ind(equal_var=False) on each item's runs, taken from the rows here,
and statsmodels multipletests (Holm) across the items.
"""

from __future__ import annotations

import base64
import csv
import io
import re

import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from probestats.errors import OptionError
from probestats.jobs.report import report


def _log(tmp_path, items, seed=1):
    rng = np.random.default_rng(seed)
    rows = [{"item": f"q{i}", "variant": v, "seed": s, "x": round(float(rng.normal((v == "a") * (i % 5) * 0.6, 1)), 4)}
            for i in range(items) for v in ("a", "b") for s in range(1, 5 + (v == "b"))]
    path = tmp_path / "log.csv"
    pl.DataFrame(rows).write_csv(path)
    return rows, path


def _reference(rows, items):
    """Per item: scipy's Welch p on its runs, then Holm across the items."""
    raw = {}
    for i in range(items):
        xa = [r["x"] for r in rows if r["item"] == f"q{i}" and r["variant"] == "a"]
        xb = [r["x"] for r in rows if r["item"] == f"q{i}" and r["variant"] == "b"]
        raw[f"q{i}"] = float(stats.ttest_ind(xa, xb, equal_var=False).pvalue)
    keys = list(raw)
    holm = multipletests([raw[k] for k in keys], method="holm")[1]
    return raw, dict(zip(keys, map(float, holm)))


def test_every_items_welch_test_is_in_the_report_with_its_correction(tmp_path):
    rows, path = _log(tmp_path, 12)
    raw, holm = _reference(rows, 12)
    job = report(path, metric="x", per_item=True, sections=["tests"], format="md")
    assert "### Welch's t per item on the runs" in job.text
    assert "12 tests, p corrected across them (Holm)" in job.text
    table = job.analysis.row_tests[0]
    assert [t.key["item"] for t in table.tests] == list(raw)
    for t in table.tests:
        assert t.test.pvalue == pytest.approx(raw[t.key["item"]], abs=1e-14)
        assert t.p_adjusted == pytest.approx(holm[t.key["item"]], abs=1e-14)
    lines = [line for line in job.text.splitlines() if re.match(r"\| q\d+ \|", line)]
    assert len(lines) == 12   # every item a row, none collapsed
    html = report(path, metric="x", per_item=True, sections=["tests"], format="html").text
    assert "<h3>Welch's t per item on the runs</h3>" in html and html.count("<td>q") == 12


def test_beyond_40_items_the_table_collapses_and_the_whole_table_is_written_beside(tmp_path):
    rows, path = _log(tmp_path, 45)
    raw, holm = _reference(rows, 45)
    out = tmp_path / "r.md"
    job = report(path, metric="x", per_item=True, output=out)
    shown = [line.split(" | ")[0].removeprefix("| ") for line in job.text.splitlines() if re.match(r"\| q\d+ \| ", line)
             and line.count("|") == 10]
    assert len(shown) == 40
    smallest = sorted(holm, key=lambda k: (holm[k], raw[k]))[:40]
    assert set(shown) == set(smallest)
    assert "*5 others (corrected p" in job.text
    assert "[r_files/welch_per_item.csv](r_files/welch_per_item.csv)" in job.text
    with open(tmp_path / "r_files" / "welch_per_item.csv", newline="") as f:
        written = list(csv.DictReader(f))
    assert len(written) == 45 and {r["correction"] for r in written} == {"holm"}
    for r in written:
        assert float(r["p"]) == pytest.approx(raw[r["item"]], abs=1e-14)
        assert float(r["p_adjusted"]) == pytest.approx(holm[r["item"]], abs=1e-14)
    html = report(path, metric="x", per_item=True, format="html", sections=["tests"]).text
    link = re.search(r'download="welch_per_item.csv" href="data:text/csv;charset=utf-8;base64,([^"]+)"', html)
    assert link is not None
    assert len(list(csv.DictReader(io.StringIO(base64.b64decode(link.group(1)).decode())))) == 45


def test_per_item_refusals_name_the_fix(tmp_path):
    rows, path = _log(tmp_path, 4)
    from probestats import cells

    cells_path = tmp_path / "cells.parquet"
    cells(path, metric="x", output=cells_path)
    with pytest.raises(OptionError, match="^Welch's t per item needs the runs of the log; give the log instead of a cell table$"):
        report(cells_path, metric="x", per_item=True)
    with pytest.raises(OptionError, match="^Welch's t per item belongs to the report of one metric"):
        report(path, metric="x,seed", per_item=True)
