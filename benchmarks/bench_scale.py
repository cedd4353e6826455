"""Logs of any size: probestats analyze, report and cells beside polars streaming and DuckDB, at 1M and 10M rows.

Generates two CSV probe logs with prompt and multi-line reply text (the generator of
bench_read.py): 1,000 items x 2 values x 500 runs (1,000,000 rows) and 10,000 items x 2 values
x 500 runs (10,000,000 rows), under /tmp/probestats_bench/ (--data; never in the repository).
Each job runs in its own fresh Python process; the table shows its wall time and peak memory
(ru_maxrss, interpreter and imports included):

- probestats analyze --json, end to end (read, validate, item table, exact tests, JSON)
- probestats report -o FILE.md, end to end (the same pass, the report, its plot and the CSV of
  the whole per-item table beside it)
- probestats cells -o FILE.parquet, end to end (the same pass, the cell table)
- pandas.read_csv of the file alone
- polars streaming group-by of the same cells (runs, sum, sum of squares, min, max per item
  and value), reading only the three columns it needs
- polars, six columns: the same group-by reading also the seed, model and temperature columns
  as analyze's pass reads them (item, seed and model as text, temperature and metric as numbers;
  one trivial aggregation each, no checks): the floor under a pass that validates them
- DuckDB's group-by of the same cells, straight from the CSV

Targets at 10M rows: report within 1.5x analyze's time and 1.3x its peak memory; cells within
1.3x analyze's time; analyze within 1.3x the six-column floor; every probestats command's peak at
10M within 1.3x its peak at 1M. Machines are shared and noisy: compare the ratios, measured in
the same run.
Run: python benchmarks/bench_scale.py [--repeat 1] [--sizes 1000,10000] [--data /tmp/probestats_bench]
[--jobs analyze,six] (only the jobs whose names hold one of these words; a ratio is printed when
both its jobs ran)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_read import compile_package  # noqa: E402
from bench_read import JOBS as ANALYZE_JOBS  # noqa: E402
from bench_read import measure as measure_in_child  # noqa: E402

ANALYZE, REPORT, CELLS, FLOOR = ("probestats analyze --json", "probestats report (Markdown)", "probestats cells",
                                 "polars, six columns")
THREE = "polars streaming group-by"

JOBS = {
    ANALYZE: ANALYZE_JOBS["probestats analyze --json (end to end)"],
    REPORT: """
import contextlib, io, tempfile
from probestats.cli import main
out = tempfile.mkdtemp(prefix="bench_report_")
with contextlib.redirect_stderr(io.StringIO()):
    code = main(["report", PATH, "--metric", "steps", "-o", out + "/report.md"])
assert code == 0, code
""",
    CELLS: """
import contextlib, io, tempfile
from probestats.cli import main
out = tempfile.mkdtemp(prefix="bench_cells_")
with contextlib.redirect_stderr(io.StringIO()):
    code = main(["cells", PATH, "--metric", "steps", "-o", out + "/cells.parquet"])
assert code == 0, code
""",
    "pandas.read_csv alone": """
import pandas as pd
frame = pd.read_csv(PATH)
assert len(frame) == ROWS, len(frame)
""",
    THREE: """
import polars as pl
v = pl.col("steps")
cells = (pl.scan_csv(PATH).select("item", "variant", "steps").group_by("item", "variant")
         .agg(pl.len(), v.sum(), (v * v).sum().alias("sq"), v.min().alias("lo"), v.max().alias("hi"))
         .collect(engine="streaming"))
assert cells["len"].sum() == ROWS
""",
    "polars, six columns": """
import polars as pl
v = pl.col("steps")
cells = (pl.scan_csv(PATH, schema_overrides={"item": pl.String, "seed": pl.String, "temperature": pl.Float64})
         .select("item", "variant", "seed", "model", "temperature", "steps").group_by("item", "variant")
         .agg(pl.len(), v.sum(), (v * v).sum().alias("sq"), v.min().alias("lo"), v.max().alias("hi"),
              pl.col("seed", "model", "temperature").max())
         .collect(engine="streaming"))
assert cells["len"].sum() == ROWS
""",
    "duckdb group-by": """
import duckdb
con = duckdb.connect()
total = con.execute(f"SELECT SUM(n) FROM (SELECT item, variant, COUNT(*) AS n, SUM(steps), SUM(steps * steps), "
                    f"MIN(steps), MAX(steps) FROM read_csv_auto('{PATH}') GROUP BY item, variant)").fetchone()[0]
assert total == ROWS, total
""",
}


def measure(job: str, path: Path, rows: int) -> dict:
    return measure_in_child(job, path, rows, JOBS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="runs of each job; the best time is shown")
    parser.add_argument("--sizes", default="1000,10000", help="items per log (500 runs per value each)")
    parser.add_argument("--data", default="/tmp/probestats_bench", help="folder of the generated logs")
    parser.add_argument("--jobs", default="", help="only the jobs whose names hold one of these comma-separated words")
    args = parser.parse_args()
    words = [w for w in args.jobs.split(",") if w]
    jobs = [job for job in JOBS if not words or any(w in job for w in words)]
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    compile_package()
    runs = 500
    table = {}
    for items in [int(x) for x in args.sizes.split(",")]:
        path = data / f"probe_{items}x{runs}_distinct_replies.csv"
        rows = items * 2 * runs
        if not path.exists():  # written by a child process (see bench_read.py)
            subprocess.run([sys.executable, str(HERE / "bench_read.py"), "--write-log", str(path), "--items",
                            str(items), "--rows-per-cell", str(runs)], check=True)
        print(f"log: {path.name}, {rows:,} rows, {path.stat().st_size / 2**20:,.0f} MiB", flush=True)
        results = {}
        for _ in range(args.repeat):
            for job in jobs:
                r = measure(job, path, rows)
                if job not in results or r["seconds"] < results[job]["seconds"]:
                    results[job] = r
        peer = next(results[j] for j in (THREE, FLOOR, *results) if j in results)   # the ratios' base
        mark = "x polars" if peer is results.get(THREE) else "x floor" if peer is results.get(FLOOR) else "x first"
        print(f"  {'job':<30} {'seconds':>8} {mark:>9} {'peak MiB':>9} {mark:>9}")
        for job, r in results.items():
            print(f"  {job:<30} {r['seconds']:>8.2f} {r['seconds'] / peer['seconds']:>9.2f} "
                  f"{r['peak_mib']:>9.0f} {r['peak_mib'] / peer['peak_mib']:>9.2f}", flush=True)
        table[rows] = results
    sizes = sorted(table)
    if len(sizes) >= 2:
        small, big = table[sizes[0]], table[sizes[-1]]
        print(f"at {sizes[-1]:,} rows:")
        ratios = [("report's time / analyze's", (REPORT, ANALYZE), "seconds", 1.5),
                  ("report's peak / analyze's", (REPORT, ANALYZE), "peak_mib", 1.3),
                  ("cells' time / analyze's", (CELLS, ANALYZE), "seconds", 1.3),
                  ("analyze's time / the six-column floor", (ANALYZE, FLOOR), "seconds", 1.3)]
        for text, (top, bottom), what, target in ratios:
            if top in big and bottom in big:   # a job left out by --jobs leaves its ratios out
                ratio = big[top][what] / big[bottom][what]
                print(f"  {text:<46} {ratio:5.2f}x (target {target}x: {'met' if ratio <= target else 'not met'})")
        for job in (ANALYZE, REPORT, CELLS):
            if job in big and job in small:
                ratio = big[job]["peak_mib"] / small[job]["peak_mib"]
                text = f"{job.split()[1]}'s peak at {sizes[-1]:,} / at {sizes[0]:,} rows"
                print(f"  {text:<46} {ratio:5.2f}x (target 1.3x: {'met' if ratio <= 1.3 else 'not met'})")
        if THREE in big and ANALYZE in big and FLOOR in big:
            peer = big[THREE]
            print(f"  analyze's time / polars' three columns        {big[ANALYZE]['seconds'] / peer['seconds']:5.2f}x; "
                  f"the six-column floor / three columns {big[FLOOR]['seconds'] / peer['seconds']:.2f}x")


if __name__ == "__main__":
    main()
