"""Reading and validating a large log, beside pandas reading the same file alone.

Generates a 1,000,000-row CSV probe log (1,000 items x 2 values x 500 runs, with prompt and
multi-line reply text, a different reply in every run) under benchmarks/_data/, then runs each job
in its own fresh Python process and prints its wall time and peak memory (ru_maxrss of that
process, interpreter and imports included):

- probestats read_log + validate (metric steps)
- probestats analyze --json, end to end (read, validate, item table, exact tests, JSON)
- polars reading just the columns validation needs, alone, in the 2 MiB chunks probestats asks
  for (the floor under the first two)
- pandas.read_csv of the same file, alone

Ratios are against pandas measured in the same run: machines are shared and noisy, so absolute
seconds mean little. Run: python benchmarks/bench_read.py [--rows-per-cell 500] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "_data"

JOBS = {
    "probestats read_log + validate": """
from probestats import read_log, validate
checked = validate(read_log(PATH, metric="steps"), metric="steps")
assert checked.ok and checked.n_rows == ROWS, (checked.n_rows, [p.code for p in checked.errors])
""",
    "probestats analyze --json (end to end)": """
import contextlib, io
from probestats.cli import main
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    code = main(["analyze", PATH, "--metric", "steps", "--json"])
assert code == 0, code
""",
    "polars scan of the 6 needed columns alone": """
import os
os.environ["POLARS_CSV_CHUNK_SIZE"] = str(2 << 20)  # as probestats.io.read sets it (CSV_CHUNK_BYTES)
import polars as pl
frame = pl.scan_csv(PATH, infer_schema=False).select("item", "variant", "seed", "model", "temperature", "steps").collect()
assert frame.height == ROWS, frame.height
""",
    "pandas.read_csv alone": """
import pandas as pd
frame = pd.read_csv(PATH)
assert len(frame) == ROWS, len(frame)
""",
}

RUNNER = """
import json, resource, sys, time
PATH, ROWS = sys.argv[1], int(sys.argv[2])
start = time.perf_counter()
{body}
elapsed = time.perf_counter() - start
print(json.dumps({{"seconds": elapsed, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def make_log(path: Path, items: int, runs: int) -> int:
    """Write the benchmark log with polars (fast) and return its number of rows."""
    import polars as pl

    n = items * 2 * runs
    idx = pl.int_range(0, n, eager=True)
    frame = pl.DataFrame({"i": idx}).with_columns(
        (pl.col("i") // (2 * runs)).alias("item"),
        pl.when((pl.col("i") // runs) % 2 == 0).then(pl.lit("formal")).otherwise(pl.lit("casual")).alias("variant"),
        (pl.col("i") % runs + 1).alias("seed"),
    )
    # integer step counts: 4 or 5 formal, 3 or 4 casual, with a hash-driven draw so the file is fixed
    noise = (pl.col("i").hash(seed=7) % 3).cast(pl.Int64)
    frame = frame.with_columns(
        pl.lit("stand-in-v1").alias("model"),
        pl.lit(0.8).alias("temperature"),
        (pl.lit("Please help: my loop number ") + pl.col("item").cast(pl.String)
         + pl.lit(" prints the same value every time. What should I check first?")).alias("prompt"),
        (pl.when(pl.col("variant") == "formal").then(4).otherwise(3) + noise).alias("steps"),
    ).with_columns(
        # every run's reply differs, as a model's replies do (a reader that shares equal strings
        # would find a log of one repeated reply unrealistically small)
        (pl.lit("Here is what I would try (run ") + pl.col("i").cast(pl.String)
         + pl.lit("):\n1. Print the loop variable.\n2. Check the range.\n3. Step through it.")).alias("reply"),
    )
    frame.select("item", "variant", "seed", "model", "temperature", "prompt", "reply", "steps").write_csv(path)
    return n


# Imports are timed as an installed package has them: compiled to bytecode (pip compiles on
# install). An environment with PYTHONDONTWRITEBYTECODE set would otherwise compile this checkout's
# modules from source in every run, while pandas and polars come compiled.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def compile_package() -> None:
    """Write this checkout's bytecode once, as installing the package would."""
    import compileall

    compileall.compile_dir(str(HERE.parent / "probestats"), quiet=1)


def measure(job: str, path: Path, rows: int, jobs: dict | None = None) -> dict:
    """Run one job (its code from ``jobs``, default this script's) in a fresh process; its time and peak memory."""
    code = RUNNER.format(body=(JOBS if jobs is None else jobs)[job].strip())
    done = subprocess.run([sys.executable, "-c", code, str(path), str(rows)], capture_output=True, text=True,
                          env=ENV)
    if done.returncode != 0:
        raise SystemExit(f"{job} failed:\n{done.stderr}")
    # the runner's last object (a library may print output of its own around it: DuckDB draws a
    # progress bar without a line break on a query slower than two seconds)
    return json.loads(done.stdout[done.stdout.rindex('{"seconds"'):].splitlines()[0])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--rows-per-cell", type=int, default=500, help="runs per item and value")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each job; the best time and its memory are shown")
    parser.add_argument("--write-log", help=argparse.SUPPRESS)  # the log is written by a child process
    args = parser.parse_args()
    if args.write_log:
        make_log(Path(args.write_log), args.items, args.rows_per_cell)
        return
    DATA.mkdir(exist_ok=True)
    path = DATA / f"probe_{args.items}x{args.rows_per_cell}_distinct_replies.csv"
    rows = args.items * 2 * args.rows_per_cell
    if not path.exists():
        # in a child process: on Linux a process's peak memory starts from its parent's at the fork,
        # so this process must not grow by writing the log before it starts the jobs
        subprocess.run([sys.executable, __file__, "--write-log", str(path), "--items", str(args.items),
                        "--rows-per-cell", str(args.rows_per_cell)], check=True)
    compile_package()
    size = path.stat().st_size / 2**20
    from importlib.metadata import version

    # pandas 3 holds text as Arrow strings when pyarrow is installed (faster, more memory), else as
    # Python strings (slower; equal strings can share memory). Asked of a child process: importing
    # pandas here would raise the floor of every job's peak memory (see above)
    text = subprocess.run([sys.executable, "-c", "import pandas as pd; d = pd.Series(['a']).dtype; "
                           "print(getattr(d, 'storage', d))"], capture_output=True, text=True).stdout.strip()
    print(f"log: {path.name}, {rows:,} rows, {size:,.0f} MiB; pandas {version('pandas')} (text as {text} "
          f"strings), polars {version('polars')}")
    results = {}
    for _ in range(args.repeat):
        for job in JOBS:  # interleaved, so load on the machine falls on every job alike
            r = measure(job, path, rows)
            best = results.get(job)
            if best is None or r["seconds"] < best["seconds"]:
                results[job] = r
    peer = results["pandas.read_csv alone"]
    print(f"{'job':<42} {'seconds':>8} {'x pandas':>9} {'peak MiB':>9} {'x pandas':>9}")
    for job, r in results.items():
        print(f"{job:<42} {r['seconds']:>8.2f} {r['seconds'] / peer['seconds']:>9.2f} "
              f"{r['peak_mib']:>9.0f} {r['peak_mib'] / peer['peak_mib']:>9.2f}")
    end = results["probestats analyze --json (end to end)"]
    met = end["seconds"] < peer["seconds"] and end["peak_mib"] < peer["peak_mib"]
    print(f"target for analyze --json: faster than pandas reading the file alone, with a lower peak memory: "
          f"{'met' if met else 'not met'} ({end['seconds'] / peer['seconds']:.2f}x the time, "
          f"{end['peak_mib'] / peer['peak_mib']:.2f}x the memory)")


if __name__ == "__main__":
    main()
