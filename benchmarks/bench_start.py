"""How long the README's command takes as a whole process on the 8-item sample, beside ``import polars``.

Runs, each in a fresh Python process, ``--runs`` times (after one run that is not counted):

- ``python -m probestats analyze sample_logs/style_probe.csv --metric steps --noise sample_logs/style_noise.csv``
  (interpreter start, imports, reading both logs, the exact tests, the effect sizes and their intervals, the
  design's minimum detectable gap, the terminal output);
- ``python -c "import polars"``, the peer: no analysis of a log can start sooner.

and prints the median wall time and the median CPU time (user + system) of each, and their ratio. Compiled
bytecode is kept as an installed package keeps it: the processes write it to a temporary folder
(``PYTHONPYCACHEPREFIX``) in the uncounted run, even where ``PYTHONDONTWRITEBYTECODE`` is set. Machines are
shared and noisy: the load average is printed beside the figures, and the ratio to the peer measured in the
same run means more than the seconds. Run: python benchmarks/bench_start.py [--runs 9]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ANALYZE = [sys.executable, "-m", "probestats", "analyze", "sample_logs/style_probe.csv", "--metric", "steps",
           "--noise", "sample_logs/style_noise.csv"]
PEER = [sys.executable, "-c", "import polars"]
#: The goal for the whole process on the sample (seconds, on a quiet 2-core machine).
GOAL = 0.5


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(commands: list[list[str]], runs: int, env: dict) -> list[tuple[float, float]]:
    """Median wall and CPU seconds of ``runs`` runs of each command, the commands taking turns (so that a
    change in the machine's load falls on all of them); each runs once first, not counted."""
    for command in commands:
        subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    walls: list[list[float]] = [[] for _ in commands]
    cpus: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for i, command in enumerate(commands):
            cpu0, t0 = _child_cpu(), time.perf_counter()
            subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
            walls[i].append(time.perf_counter() - t0)
            cpus[i].append(_child_cpu() - cpu0)
    return [(statistics.median(w), statistics.median(c)) for w, c in zip(walls, cpus)]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="probestats-pycache-") as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        load = os.getloadavg()[0]
        peer, mine = timed([PEER, ANALYZE], args.runs, env)
        load = max(load, os.getloadavg()[0])
    print(f"{args.runs} runs each, median; load average up to {load:.1f} on {os.cpu_count()} cores")
    print(f"{'':34}{'wall s':>9}{'CPU s':>9}")
    print(f"{'import polars (the peer)':34}{peer[0]:9.3f}{peer[1]:9.3f}")
    print(f"{'probestats analyze (8-item sample)':34}{mine[0]:9.3f}{mine[1]:9.3f}")
    print(f"ratio to the peer: {mine[0] / peer[0]:.2f} (wall), {mine[1] / peer[1]:.2f} (CPU); "
          f"goal: under {GOAL} s wall on a quiet machine")


if __name__ == "__main__":
    main()
