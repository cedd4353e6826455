"""The metric's cells: numbers (text that is not one, an infinite value), blank ones counted per value, a
0 or blank beside a reply the metric may have missed, every run of a cell giving the same result, and
rows sorted by the metric."""

from __future__ import annotations

import polars as pl

from probestats.checks.columns import UNPARSED, field_fix, problem_rows, record_field, text_as_number, text_not_number
from probestats.errors import Problem, opt
from probestats.io.columns import ROW
from probestats.io.log import Log, collect, format_rows

__all__ = ["check_metric", "blank_per_value", "deterministic", "sorted_order", "sorted_aggs", "sorted_metric",
           "SORTED_MIN_RUNS", "SORTED_MIN_CELLS"]

def check_metric(df: pl.DataFrame, log: Log, metric: str, header: str):
    """The metric's cells read as numbers, with the ``non_numeric``, ``numbers_as_text``, ``suspect_metric`` and
    ``blank_metric`` problems; returns the frame, the problems and the rows whose cells are not numbers."""
    problems: list[Problem] = []
    bad_index = pl.Series([], dtype=pl.Int64).implode()
    col = df[metric]
    dtype = col.dtype
    if dtype == pl.Boolean:
        df = df.with_columns(pl.col(metric).cast(pl.Float64))
    elif UNPARSED in df.columns or dtype in (pl.String, pl.Object, pl.Null):
        read_as_text = UNPARSED in df.columns  # a text column of a file or frame, parsed as it was read
        if not read_as_text:
            if dtype == pl.Object:  # Python objects of mixed kinds: read each as the text it prints as
                df = df.with_columns(pl.Series(metric, [None if v is None else str(v) for v in col.to_list()],
                                               dtype=pl.String))
            text = pl.col(metric).cast(pl.String)
            df = df.with_columns(text_as_number(text).alias(metric), text_not_number(text).alias(UNPARSED))
        bad = df.filter(pl.col(UNPARSED).is_not_null())
        bad_index = bad[ROW].implode()
        if bad.height:
            examples = bad[UNPARSED].unique(maintain_order=True).head(3).to_list()
            shown = ", ".join(f"'{e}'" for e in examples)
            verb = "is not a number" if len(examples) == 1 else "are not numbers"
            problems.append(Problem(
                "error", "non_numeric",
                f"{header.strip()}: {shown} {verb} ({format_rows(log, problem_rows(log, bad))}); "
                "write the count as a number or clear the cell",
                problem_rows(log, bad), header))
        converted = df.height - df[metric].null_count()
        # CSV and TSV hold only text; elsewhere (JSON, JSONL, sheets) a number written as text is worth a
        # warning. A column with cells that are not numbers is text because of them: the error says so.
        text_rows = log._read.get("text_rows") if converted and read_as_text else None
        if text_rows is not None:   # a sheet says which cells it stores as text: the others were numbers
            stored = text_rows(header)
            if stored is not None:
                kept = df.filter(pl.col(metric).is_not_null())[ROW]
                converted = sum(1 for r in log.rows(kept.to_list()) if r in stored)
        if converted and not bad.height and not log._read.get("delimited") and read_as_text:
            problems.append(Problem(
                "warning", "numbers_as_text",
                f"{header.strip()}: {converted} number(s) were stored as text and were converted; "
                "format the column as numbers in the sheet", (), header))
        df = df.drop(UNPARSED)
    elif dtype.is_numeric():
        df = df.with_columns(pl.col(metric).cast(pl.Float64))
    else:
        field = record_field(dtype, metric, None)
        problems.append(Problem("error", "non_numeric",
                                f"{header.strip()}: the column holds records, not numbers; "
                                f"{field_fix(metric, field, explode=False)}" if field else
                                f"{header.strip()}: the column holds {dtype} values, not numbers; choose a numeric "
                                f"{opt('metric')}",
                                (), header))
        return df.with_columns(pl.lit(None, pl.Float64).alias(metric)), problems, df[ROW]
    odd = df.select(pl.col(metric).is_nan().any().alias("nan"), pl.col(metric).is_infinite().any().alias("inf")).row(0)
    if odd[0]:  # not a number: a blank cell
        df = df.with_columns(pl.when(pl.col(metric).is_nan()).then(None).otherwise(pl.col(metric)).alias(metric))
    if odd[1]:  # 'inf' casts to a float but no mean or gap can use it
        infinite = df.filter(pl.col(metric).is_infinite())
        problems.append(Problem(
            "error", "non_numeric",
            f"{header.strip()}: {infinite.height} cell(s) hold an infinite value ({format_rows(log, problem_rows(log, infinite))}); "
            "write the count as a finite number or clear the cell",
            problem_rows(log, infinite), header))
        bad_index = pl.concat([bad_index.explode(), infinite[ROW]]).implode()
        df = df.with_columns(pl.when(pl.col(metric).is_infinite()).then(None).otherwise(pl.col(metric)).alias(metric))
    suspect = _suspect_rows(df, log, metric)
    if suspect is not None and suspect.height and _flagged(problems):
        suspect = suspect.filter(~pl.col(ROW).is_in(bad_index))  # a cell that is not a number has its own error
    if suspect is not None and suspect.height:
        problems.append(Problem(
            "warning", "suspect_metric",
            f"{header.strip()} is {'blank' if _binary(df[metric]) else '0 or blank'} in {suspect.height} run(s) "
            "whose reply is not empty "
            f"({format_rows(log, problem_rows(log, suspect))}); read those replies: the metric may have missed them "
            + ("(for example steps numbered '1)')" if "step" in f"{metric} {header}".lower() else
               "(a reply in a form the scorer did not expect, say)"),
            problem_rows(log, suspect), header))
    blank = df.filter(pl.col(metric).is_null()) if df[metric].null_count() else df.clear()
    if _flagged(problems):
        blank = blank.filter(~pl.col(ROW).is_in(bad_index))
    if blank.height:
        problems.append(Problem(
            "warning", "blank_metric",
            f"{blank.height} run(s) have no {header.strip()} value ({format_rows(log, problem_rows(log, blank))}): "
            f"{blank_per_value(df, blank)}; they are left out",
            problem_rows(log, blank), header))
    return df, problems, bad_index.explode().drop_nulls()


def blank_per_value(df: pl.DataFrame, blank: pl.DataFrame, limit: int = 6) -> str:
    """The blank runs counted per value, with each value's share of its own runs (most blank first).

    >>> df = pl.DataFrame({"variant": ["a"] * 4 + ["b"] * 4, "x": [None, None, 1.0, 2.0, 1.0, 2.0, 3.0, 4.0]})
    >>> blank_per_value(df, df.filter(pl.col("x").is_null()))
    "2 of 4 'a' runs (50%), 0 of 4 'b' runs"
    """
    runs = df.group_by("variant", maintain_order=True).len()
    blanks = dict(blank.group_by("variant").len().iter_rows())
    counted = sorted(((v, blanks.get(v, 0), n) for v, n in runs.iter_rows()), key=lambda t: -t[1] / t[2])
    shown = [f"{k} of {n} '{v}' runs" + (f" ({100 * k / n:.2g}%)" if k else "") for v, k, n in counted[:limit]]
    return ", ".join(shown) + (f" and {len(counted) - limit} more values" if len(counted) > limit else "")


def _flagged(problems) -> bool:
    """True when some cells were reported as not numbers."""
    return any(p.code == "non_numeric" and p.rows for p in problems)


def _suspect_rows(df: pl.DataFrame, log: Log, metric: str) -> pl.DataFrame | None:
    """Runs whose metric is blank (or 0, for a metric that is not 0/1) while the reply is not empty.

    The reply text is read only for the candidate rows, so a large log's replies stay on disk.
    """
    if "reply" not in log.columns:
        return None
    binary = _binary(df[metric])   # a 0 of a 0/1 metric is an answer (a miss), not a reply the metric missed
    zero = pl.col(metric).is_null() if binary else (pl.col(metric).is_null() | (pl.col(metric) == 0))
    if not df.select(zero.any()).item():
        return df.clear()
    candidates = df.filter(zero)
    has_reply = collect(
        log.lazy.filter(pl.col(ROW).is_in(candidates[ROW].implode()))
        .filter(pl.col("reply").cast(pl.String).str.strip_chars().str.len_bytes() > 0)
        .select(ROW),
        log.source, log._path)
    return candidates.filter(pl.col(ROW).is_in(has_reply[ROW].implode()))


def _binary(values: pl.Series) -> bool:
    """Every value with a number is 0 or 1."""
    values = values.drop_nulls()
    return values.len() > 0 and bool(values.is_in([0.0, 1.0]).all())


def deterministic(cells: pl.DataFrame) -> list[Problem]:
    """The ``deterministic`` warning: every run of each item and value gave the same result."""
    both = pl.concat([cells.select("counted", "constant"),
                      cells.select(pl.col("counted_b").alias("counted"), pl.col("constant_b").alias("constant"))])
    repeated = both.filter(pl.col("counted") > 1)
    if repeated.height and repeated["constant"].all():
        return [Problem(
            "warning", "deterministic",
            "every run of each item and value gave the same result: repeats add nothing, "
            "so the sample size is the number of items", (), None)]
    return []


#: cells of this many runs (with two distinct values or more) show an order; this many of them must
SORTED_MIN_RUNS, SORTED_MIN_CELLS = 3, 3


def sorted_order(cells: pl.DataFrame) -> str | None:
    """``"ascending"`` or ``"descending"`` when every cell that can show an order (``counted`` runs of at
    least :data:`SORTED_MIN_RUNS`, smallest below largest, ``__up``/``__down`` steps between runs in row
    order) lists its runs in that order, and at least :data:`SORTED_MIN_CELLS` cells can; else None.

    A cell of k distinct values is in one given order by chance once in k! shuffles, so three cells of
    three runs in order happen by chance about once in 200 logs."""
    shows = cells.filter((pl.col("counted") >= SORTED_MIN_RUNS) & (pl.col("__min") < pl.col("__max")))
    if shows.height < SORTED_MIN_CELLS:
        return None
    if (shows["__down"] == 0).all():
        return "ascending"
    if (shows["__up"] == 0).all():
        return "descending"
    return None


def sorted_aggs(metric: str) -> list[pl.Expr]:
    """Per cell: its counted runs, smallest and largest value, and the steps up and down between
    consecutive runs in row order (for :func:`sorted_order`)."""
    v = pl.col(metric)
    step = v.drop_nulls().diff()
    return [v.count().alias("counted"), v.min().alias("__min"), v.max().alias("__max"),
            (step > 0).sum().alias("__up"), (step < 0).sum().alias("__down")]


def sorted_metric(pair: pl.DataFrame, log: Log, metric: str, cell: list[str]) -> list[Problem]:
    """The ``sorted_metric`` warning: within every item x value cell the rows list the runs in
    metric order (a sheet sorted by score), so the row order carries the metric.

    >>> from probestats.io.read import read_log
    >>> rows = [{"item": i, "variant": v, "steps": x} for i in range(3) for v in "ab" for x in (1, 2, 3)]
    >>> [p.code for p in sorted_metric(pl.DataFrame(rows), read_log(rows), "steps", ["item", "variant"])]
    ['sorted_metric']
    """
    cells = pair.group_by(cell, maintain_order=True).agg(sorted_aggs(metric))
    order = sorted_order(cells)
    if order is None:
        return []
    header = log.columns.get(metric, metric)
    shown = cells.filter((pl.col("counted") >= SORTED_MIN_RUNS) & (pl.col("__min") < pl.col("__max"))).height
    return [Problem(
        "warning", "sorted_metric",
        f"the rows of every item x value cell are in {order} order of {header} ({shown} cells of "
        f"{SORTED_MIN_RUNS} runs or more): the file was sorted by the metric, so its row order says nothing "
        "about when runs ran; nothing here splits runs by row order (the within-log noise draws its halves at "
        "random within cells), but keep the original order, with its seeds or times, if you have it",
        (), log.columns.get(metric))]
