"""Every figure of the one-pass work beside its yardstick, measured in the same run.

Each figure is a whole process (``python -m probestats analyze ...`` or a ``python -c`` yardstick), started
with :mod:`subprocess` and timed from outside: wall time, CPU time (user + system, from the child's resource
usage; ``os.wait4`` gives each child's own, what ``resource.getrusage(RUSAGE_CHILDREN)`` sums over them) and
peak memory (the child's ``ru_maxrss``). A figure and its yardstick alternate ``--repeat`` times, after one
run of each that is not counted (the page cache warm for both); the medians are shown, and their ratio. The
machine's load average is printed before and after each pair: machines are shared and noisy, and the ratio to
a yardstick measured in the same run means more than the seconds.

The figures (``--only`` picks some by name):

- ``big``: ``analyze --json`` of a log of ``--big-items`` items x 2 values x 500 runs (10,000: 10M rows,
  2.3 GB of CSV with prompt and multi-line reply text, the generator of bench_read.py), beside the polars
  floor: the lazy query reading the six columns validation needs (item, value, seed, model, temperature,
  metric) and grouping them into cells (runs, sum, sum of squares, min, max, the settings' largest value),
  streamed. Time and peak memory. Goals: 1.5x the time, 1.3x the memory.
- ``pandas``: ``analyze --json`` of ``--mid-items`` items (1,000: 1M rows) beside ``pandas.read_csv`` of
  the same file. Goal: 1.3x.
- ``by``: ``analyze --by group --json`` of ``--groups`` groups of 20 items (2 values, ``--by-runs`` runs each)
  beside the same log without ``--by``. Goal: 10x.
- ``drawn``: ``analyze --a v0 --b v1 --random-setting temperature --json`` of 128 items x 9 values x 30 runs
  (34,560 rows; a temperature drawn per call from 0.2-1.0 independently of the value) beside the same command
  without ``--random-setting`` on a copy of the log whose temperature column has another name (undeclared, a
  temperature that differs between the values is refused as a confound). Goal: 2x.
- ``optional``: the other optional analyses on the same rows (without the temperature; the items in 16
  documents of 8; each run graded by one of two judges, by the parity of its seed): ``--cluster doc``,
  ``--control v2`` and the judges' blocks with their heterogeneity test, each beside the same command without it
  (for the blocks, the same rows without the judge column). Goal: about 1x.
- ``sample``: ``analyze`` of the 8-item sample with its noise log (the README's command) beside
  ``python -c "import polars"``. Goal: about 0.5 s.

The logs are written under ``--data`` (default /tmp/probestats_one_pass; never in the repository) once, by a
child process, and kept. The machine this runs on may be shared: run the big sizes once (``--repeat 1``),
under ``nice``. Run:

    python benchmarks/one_pass.py [--only big,pandas,by,drawn,optional,sample] [--repeat 5] [--big-items 10000]
        [--mid-items 1000] [--groups 1000] [--by-runs 5] [--data /tmp/probestats_one_pass]

Small sizes for a quick look: ``--big-items 500 --mid-items 200 --groups 100 --repeat 3``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_read import compile_package, make_log  # noqa: E402

PY = sys.executable
#: the polars floor under analyze's pass: the six columns validation needs, read as the pass reads them,
#: grouped into cells (streamed)
FLOOR = """
import sys
import polars as pl
v = pl.col("steps")
cells = (pl.scan_csv(sys.argv[1], schema_overrides={"item": pl.String, "seed": pl.String, "temperature": pl.Float64})
         .select("item", "variant", "seed", "model", "temperature", "steps").group_by("item", "variant")
         .agg(pl.len(), v.sum(), (v * v).sum().alias("sq"), v.min().alias("lo"), v.max().alias("hi"),
              pl.col("seed", "model", "temperature").max())
         .collect(engine="streaming"))
assert cells["len"].sum() > 0
"""
PANDAS = "import sys, pandas as pd; assert len(pd.read_csv(sys.argv[1])) > 0"
IMPORT_POLARS = "import polars"


def analyze(*args: str) -> list[str]:
    return [PY, "-m", "probestats", "analyze", *args]


def run_once(command: list[str]) -> dict:
    """Wall and CPU seconds and peak memory (MiB) of one whole process."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(ROOT)
    start = time.perf_counter()
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)   # this child's own usage (RUSAGE_CHILDREN would sum them)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.stderr.close()
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(command)}\n{err.decode(errors='replace')[-2000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "peak": usage.ru_maxrss / 1024}


def pair(name: str, figure: list[str], yardstick: list[str], repeat: int, goal: str) -> dict:
    """The medians of ``repeat`` alternations of ``figure`` and ``yardstick`` (after one uncounted run of each)."""
    load = os.getloadavg()[0]
    run_once(yardstick)
    run_once(figure)
    mine, peer = [], []
    for _ in range(repeat):
        peer.append(run_once(yardstick))
        mine.append(run_once(figure))
    load = (load, os.getloadavg()[0])
    med = {key: (statistics.median(r[key] for r in mine), statistics.median(r[key] for r in peer))
           for key in ("wall", "cpu", "peak")}
    print(f"{name}  (median of {repeat}; load average {load[0]:.1f} -> {load[1]:.1f} on {os.cpu_count()} cores)")
    print(f"  {'':12}{'figure':>10}{'yardstick':>11}{'ratio':>8}")
    for key, unit in (("wall", "s"), ("cpu", "s"), ("peak", "MiB")):
        a, b = med[key]
        fmt = "{:>9.0f}" if unit == "MiB" else "{:>9.2f}"
        print(f"  {key + ' ' + unit:<12}{fmt.format(a)} {fmt.format(b)}  {a / b:>6.2f}x")
    print(f"  goal: {goal}", flush=True)
    return med


def by_log(path: Path, groups: int, runs: int) -> None:
    """``groups`` groups of 20 items, 2 values, ``runs`` runs each; a small gap in half the groups."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(1)
    items = groups * 20
    item = np.repeat(np.arange(items), 2 * runs)
    value = np.tile(np.repeat(np.array(["a", "b"]), runs), items)
    seed = np.tile(np.arange(1, runs + 1), 2 * items)
    gap = np.where((item // 20) % 2 == 0, 0.5, 0.0) * (value == "a")
    y = np.round(3 + rng.normal(size=item.size) + gap + rng.normal(size=items)[item], 1)
    pl.DataFrame({"group": (item // 20).astype(str), "item": item, "variant": value, "seed": seed,
                  "score": y}).write_csv(path)


def drawn_log(path: Path, items: int = 128, values: int = 9, runs: int = 30) -> None:
    """``items`` items x ``values`` values x ``runs`` runs, a temperature drawn per call (34,560 rows)."""
    import numpy as np
    import polars as pl

    rng = np.random.default_rng(2)
    n = items * values * runs
    item = np.repeat(np.arange(items), values * runs)
    value = np.tile(np.repeat(np.array([f"v{k}" for k in range(values)]), runs), items)
    seed = np.tile(np.arange(1, runs + 1), items * values)
    temperature = rng.choice([0.2, 0.4, 0.6, 0.8, 1.0], size=n)
    y = np.round(3 + 0.3 * (value == "v0") + temperature + rng.normal(size=n) + rng.normal(size=items)[item], 1)
    frame = pl.DataFrame({"item": item, "variant": value, "seed": seed, "model": "stand-in-v1",
                          "temperature": temperature, "score": y})
    frame.write_csv(path)
    # the yardstick's copy: the same rows with the temperature under a name that is not a setting (a
    # temperature that differs between the values, undeclared, is refused as a confound)
    frame.rename({"temperature": "drawn"}).write_csv(plain(path))


def optional_log(path: Path) -> None:
    """The drawn log's rows without the temperature, the items in documents of 8 (``doc``) and each run graded by
    one of two judges (``judge``); beside it the same rows without the judge column (a column that varies within
    an item x value cell is a block whatever its name, so the yardstick has none)."""
    import polars as pl

    drawn = path.with_name("drawn_128x9x30.csv")
    if not drawn.exists():
        drawn_log(drawn)
    frame = pl.read_csv(drawn).drop("temperature").with_columns(
        (pl.col("item") // 8).cast(pl.String).alias("doc"),
        pl.when(pl.col("seed") % 2 == 0).then(pl.lit("j1")).otherwise(pl.lit("j2")).alias("judge"))
    frame.write_csv(path)
    frame.drop("judge").write_csv(plain(path))


def plain(path: Path) -> Path:
    return path.with_name(path.stem + "_plain.csv")


def ensure(path: Path, kind: str, *numbers: int) -> Path:
    """Write the log in a child process (so this process stays small), once."""
    if not path.exists():
        subprocess.run([PY, __file__, "--write", kind, str(path), *map(str, numbers)], check=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="big,pandas,by,drawn,optional,sample")
    parser.add_argument("--repeat", type=int, default=5, help="alternations of each figure with its yardstick")
    parser.add_argument("--big-items", type=int, default=10_000, help="items of the big log (x 2 values x 500 runs)")
    parser.add_argument("--mid-items", type=int, default=1_000, help="items of the pandas log (x 2 values x 500 runs)")
    parser.add_argument("--groups", type=int, default=1_000, help="--by groups of 20 items")
    parser.add_argument("--by-runs", type=int, default=5, help="runs per item and value in the --by log")
    parser.add_argument("--data", default="/tmp/probestats_one_pass")
    parser.add_argument("--write", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write:
        kind, path, *numbers = args.write
        {"probe": make_log, "by": by_log, "drawn": drawn_log, "optional": optional_log}[kind](Path(path),
                                                                                         *map(int, numbers))
        return
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    compile_package()
    only = set(args.only.split(","))
    if "big" in only:
        log = ensure(data / f"probe_{args.big_items}x500.csv", "probe", args.big_items, 500)
        print(f"log: {log.name}, {args.big_items * 1000:,} rows, {log.stat().st_size / 2**20:,.0f} MiB")
        pair("analyze vs the polars floor (six columns read and grouped)", analyze(str(log), "--metric", "steps",
             "--json"), [PY, "-c", FLOOR, str(log)], args.repeat, "at most 1.5x the time, 1.3x the memory")
    if "pandas" in only:
        log = ensure(data / f"probe_{args.mid_items}x500.csv", "probe", args.mid_items, 500)
        print(f"log: {log.name}, {args.mid_items * 1000:,} rows, {log.stat().st_size / 2**20:,.0f} MiB")
        pair("analyze vs pandas.read_csv", analyze(str(log), "--metric", "steps", "--json"),
             [PY, "-c", PANDAS, str(log)], args.repeat, "at most 1.3x the time")
    if "by" in only:
        log = ensure(data / f"by_{args.groups}x20x{args.by_runs}.csv", "by", args.groups, args.by_runs)
        print(f"log: {log.name}, {args.groups:,} groups of 20 items, {args.groups * 40 * args.by_runs:,} rows")
        pair(f"analyze --by ({args.groups:,} groups) vs without --by",
             analyze(str(log), "--metric", "score", "--by", "group", "--json"),
             analyze(str(log), "--metric", "score", "--json"), args.repeat, "at most 10x the time")
    if "drawn" in only:
        log = ensure(data / "drawn_128x9x30.csv", "drawn", 128, 9, 30)
        print(f"log: {log.name}, 34,560 rows, 9 values, a temperature drawn per call")
        common = ["--metric", "score", "--a", "v0", "--b", "v1", "--json"]
        pair("analyze --random-setting temperature vs without it (the temperature column renamed)",
             analyze(str(log), *common, "--random-setting", "temperature"), analyze(str(plain(log)), *common),
             args.repeat,
             "at most 2x the time")
    if "optional" in only:
        log = ensure(data / "optional_128x9x30.csv", "optional")
        print(f"log: {log.name}, 34,560 rows, 9 values, 16 documents of 8 items, two judges")
        common = ["--metric", "score", "--a", "v0", "--b", "v1", "--json"]
        without = analyze(str(plain(log)), *common)
        pair("analyze --cluster doc vs without it", analyze(str(plain(log)), *common, "--cluster", "doc"), without,
             args.repeat, "about 1x")
        pair("analyze --control v2 vs without it", analyze(str(plain(log)), *common, "--control", "v2"), without,
             args.repeat, "about 1x")
        pair("analyze with the judges' blocks (and their heterogeneity) vs the rows without the judge column",
             analyze(str(log), *common), without, args.repeat, "about 1x")
    if "sample" in only:
        pair("analyze of the 8-item sample vs import polars",
             analyze("sample_logs/style_probe.csv", "--metric", "steps", "--noise", "sample_logs/style_noise.csv"),
             [PY, "-c", IMPORT_POLARS], args.repeat, "about 0.5 s wall for the sample")


if __name__ == "__main__":
    main()
