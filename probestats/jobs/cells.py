"""The cell table of a log as one library call: read, shape, validate and summarize it as ``probestats cells``
does, and write it.

:func:`cells` is what the command runs: it parses its options, calls it, prints the log's problems and
says how many cells it wrote. The table's columns are :mod:`probestats.analyses.cells`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from probestats.analyses.cells import cell_table
from probestats.errors import OptionError, either, opt
from probestats.io.formulas import neutral_frame
from probestats.present.report.files import check_target, refuse_inputs, write_whole
from probestats.shape.probe import as_probe
from probestats.vocabulary import check_metric, check_path, column_names

__all__ = ["cells", "CellTable", "CELL_SUFFIXES"]

#: the files a cell table is written as, by suffix
CELL_SUFFIXES = (".parquet", ".csv", ".jsonl", ".ndjson")
#: A cell table's columns that hold numbers written as text (exact sums, the runs' values, a hash): written in a CSV
#: as they are, never neutralized as text from the log is (:mod:`probestats.io.formulas`)
NUMBERS_AS_TEXT = ("sum_units", "sumsq_units", "sum_units_first", "sumsq_units_first", "runs_units", "seed_hash")


@dataclass(frozen=True)
class CellTable:
    """A log's cell table and the check of the log it was built from.

    Attributes
    ----------
    table : polars.DataFrame
        One row per item x value (x ``by`` group), with exact sums (the columns of
        :mod:`probestats.analyses.cells`).
    checked : Checked
        The validation of the log: its ``problems`` (warnings only; a log with errors is refused) and its
        ``log.source``.
    """

    table: object
    checked: object


def cells(log, *, metric, by=(), output=None, keep_runs=False, probe=None) -> CellTable:
    """Summarize a log into its cell table: one row per item x value (x ``by`` group), exact sums.

    Parameters
    ----------
    log : path, sequence of paths, Log, list of dict or DataFrame
        The log (several files or a folder are read as one).
    metric : str
        The metric column.
    by : sequence of str
        Groups: a cell per group too.
    output : path, optional
        Also write the table to this file, whole or not at all: ``.parquet``, ``.csv`` or ``.jsonl``.
    keep_runs : bool
        Keep each cell's values too: a noise or pilot log for :func:`probestats.plan` (or
        :func:`probestats.analyze`'s ``noise``) needs them.
    probe : Probe, optional
        How the log is read and shaped (the table holds the shaped log: a cell table is read as it is).

    Returns
    -------
    CellTable

    Raises
    ------
    ValidationError
        The log has errors.

    Examples
    --------
    >>> built = cells("sample_logs/style_probe.csv", metric="steps")
    >>> built.table.height, built.table.select("item", "variant", "n").row(0)
    (16, ('0', 'formal', 20))
    """
    probe, metric, by = as_probe(probe), check_metric(metric), column_names("by", by)
    output = check_path("output", output, "cells.parquet")
    probe.refuse("the cell table")
    if output is not None:
        output = Path(output)
        refuse_inputs({opt("output"): output}, {opt("log"): log})
        if output.suffix.lower() not in CELL_SUFFIXES:
            raise OptionError(f"{_named(output)}: write the cell table as .parquet, .csv or .jsonl")
    table, checked = cell_table(probe.apply(log, metric=metric, by=by), probe, metric=metric, by=by, runs=keep_runs)
    if output is not None:
        write_table(table, output)
    return CellTable(table, checked)


def _named(output: Path) -> str:
    """The output file as the caller named it: ``output='x.txt'``, or ``-o x.txt`` as typed."""
    return either(f"output={str(output)!r}", f"{opt('output')} {output}")


def write_table(table, output) -> None:
    """Write a cell table whole or not at all, in the format its suffix names."""
    import io

    output = Path(output)
    check_target(output, _named(output), "cells.parquet")
    suffix = output.suffix.lower()
    buffer = io.BytesIO()
    if suffix == ".parquet":
        table.write_parquet(buffer)
    elif suffix == ".csv":   # a table a person may open in a spreadsheet: no text from the log starts a formula
        neutral_frame(table, keep=NUMBERS_AS_TEXT).write_csv(buffer)
    elif suffix in CELL_SUFFIXES:
        table.write_ndjson(buffer)
    else:
        raise OptionError(f"{_named(output)}: write the cell table as .parquet, .csv or .jsonl")
    write_whole(output, buffer.getvalue())
