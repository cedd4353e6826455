"""Time plans: a grid of small designs, and realistic sizes (81 items x 5, 20 and 54 runs).

1. A plan over 10 item counts x 10 runs per value at 2,000 simulated probes a design. Each
   design gets its power at a gap and its minimum detectable gap (a bisection over the same
   simulated probes). The peer, measured in the same run, is the naive way: every simulated
   probe's p-value computed with ``sign_flip_test`` one probe at a time, at every step of the
   same bisection. The peer is timed on a few designs and scaled to the grid.
2. Realistic sizes: a noise log of 81 items x 2 identical values x 54 runs of a whole-number
   0-100 score (made here, seeded), and ``plan`` for 81 items x {5, 20, 54} runs. Beyond 24
   items a probe's decision comes from certified bounds or an exact count on its lattice
   (``decide_rejections``); the peer, in the same run, decides the same simulated probes with a
   plain loop of ``sign_flip_test``, and both decisions are compared probe by probe.
3. With ``--big``: ``plan --items 100000 --sims 1`` in a child process, its time and peak memory.

Run: python benchmarks/bench_power.py [--sims 2000] [--peer-cells 3] [--peer-rows 600] [--big] [--skip-grid]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import os
import resource
import subprocess
import sys
import tempfile

import polars as pl

from probestats.stats.hypotests import sign_flip_test
from probestats.analyses.plan import Sizing, noise_model, plan_probe
from probestats.vocabulary import Tests
from probestats.analyses.plan.simulate import Rejections, draw_probes
from probestats.analyses.plan.search import search_mdg
from probestats.stats.decide import decide_rejections

ITEMS = [6, 7, 8, 9, 10, 12, 14, 16, 20, 24]
RUNS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20]
NOISE = Path(__file__).resolve().parent.parent / "sample_logs" / "style_noise.csv"


class NaiveRejections:
    """Every probe's p-value from sign_flip_test, one probe at a time, at every gap asked."""

    def __init__(self, draws, tau, alpha):
        self.draws, self.tau, self.alpha = draws, tau, alpha
        self.computed = 0

    def rate(self, delta):
        gaps = self.draws.gaps(delta, self.tau)
        self.computed += gaps.shape[0]
        return float(np.mean([sign_flip_test(row).pvalue <= self.alpha * (1 + 1e-12) for row in gaps]))


def one_cell(noise, items, runs, gap, sims, seed, naive):
    draws = draw_probes(noise, items, runs, runs, sims, seed)
    rej = NaiveRejections(draws, 0.0, 0.05) if naive else Rejections(draws, 0.0, 0.05, "two-sided")
    mdg = search_mdg(rej, items, noise.gap_sd(runs), Tests(), Sizing())
    power = rej.rate(gap)
    return mdg, power, rej.computed


def score_noise(items: int = 81, runs: int = 54, seed: int = 7) -> pl.DataFrame:
    """A same-versus-same log of a 0-100 score: item means 30-90, run SDs 4-14, rounded and clipped."""
    rng = np.random.default_rng(seed)
    mu, sd = rng.uniform(30, 90, items), rng.uniform(4, 14, items)
    y = np.clip(np.round(np.repeat(mu, 2 * runs) + np.repeat(sd, 2 * runs) * rng.standard_normal(items * 2 * runs)),
                0, 100)
    return pl.DataFrame({"item": np.repeat(np.arange(items), 2 * runs),
                         "variant": np.tile(np.repeat(["same", "same again"], runs), items),
                         "score": y.astype(np.int64)})


def realistic(args) -> None:
    frame = score_noise()
    noise = noise_model(frame, metric="score")
    t0, c0 = time.perf_counter(), time.process_time()
    plan = plan_probe(noise, items=81, runs=[5, 20, 54], tests=Tests(seed=0), sizing=Sizing(sims=args.sims))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    mdgs = ", ".join(f"{c.runs} runs {c.mdg:.3g}" for c in plan.cells)
    print(f"\nplan, 81 items x runs 5, 20, 54 on a 0-100 score ({args.sims} sims): {wall:.2f} s wall, {cpu:.2f} s CPU "
          f"(MDG: {mdgs})")
    # the peer: the same simulated probes at one design's MDG, decided by a plain loop of sign_flip_test
    cell = plan.cells[1]
    draws = draw_probes(noise, 81, cell.runs, cell.runs, args.sims, 0)
    gaps = draws.gaps(cell.mdg)[: args.peer_rows]
    limit = 0.05 * (1 + 1e-12)
    t = time.process_time()
    mine = decide_rejections(gaps, limit, "two-sided", draws.lattice)
    fast = time.process_time() - t
    t = time.process_time()
    ref = np.array([sign_flip_test(row).pvalue <= limit for row in gaps])
    slow = time.process_time() - t
    print(f"  {gaps.shape[0]} probes of 81 items x {cell.runs} runs at the MDG: decide_rejections {fast:.2f} s CPU, "
          f"sign_flip_test loop {slow:.2f} s CPU (ratio {slow / fast:.1f}x); decisions "
          f"{'identical' if np.array_equal(mine, ref) else f'DIFFER in {int((mine != ref).sum())}'} "
          f"(power there {mine.mean():.3f})")


def big() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "noise.csv")
        score_noise().write_csv(path)
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
        t = time.perf_counter()
        res = subprocess.run([sys.executable, "-m", "probestats", "plan", "--noise", path, "--metric", "score",
                              "--items", "100000", "--runs", "20", "--sims", "1", "--json"],
                             env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"\nplan --items 100000 --runs 20 --sims 1: {wall:.1f} s wall, peak memory {peak:.0f} MB "
          f"(exit {res.returncode})")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=2000)
    parser.add_argument("--peer-cells", type=int, default=3)
    parser.add_argument("--peer-rows", type=int, default=600)
    parser.add_argument("--big", action="store_true")
    parser.add_argument("--skip-grid", action="store_true")
    args = parser.parse_args()
    if not args.skip_grid:
        grid(args)
    realistic(args)
    if args.big:
        big()


def grid(args):
    noise = noise_model(str(NOISE), metric="steps")
    gap = 0.75

    per_items = {}
    last = [time.perf_counter()]

    def tick(done, total):
        if done != int(done) or done == 0:   # progress within a design, or a design starting
            return
        done = int(done)
        now = time.perf_counter()
        n = ITEMS[(done - 1) // len(RUNS)]
        per_items[n] = per_items.get(n, 0.0) + now - last[0]
        last[0] = now

    t0, c0 = time.perf_counter(), time.process_time()
    plan = plan_probe(noise, items=ITEMS, runs=RUNS, gap=gap, tests=Tests(seed=0), progress=tick,
                      sizing=Sizing(sims=args.sims))
    grid_s, grid_cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"plan: {len(ITEMS)} item counts x {len(RUNS)} runs = {len(plan.cells)} designs, "
          f"{args.sims} sims each, power at gap {gap} + MDG: {grid_s:.2f} s wall, {grid_cpu:.2f} s CPU "
          f"({1000 * grid_s / len(plan.cells):.0f} ms a design)")
    print("  wall time by item count: " + ", ".join(f"{n}: {t:.2f} s" for n, t in per_items.items()))

    # a few designs, both ways, same draws
    rng = np.random.default_rng(1)
    cells = [(8, 5), (12, 10), (20, 3)][: args.peer_cells]
    if args.peer_cells > 3:
        cells += [(int(rng.choice(ITEMS)), int(rng.choice(RUNS))) for _ in range(args.peer_cells - 3)]
    fast_s = naive_s = 0.0
    for items, runs in cells:
        t = time.perf_counter()
        m1, p1, c1 = one_cell(noise, items, runs, gap, args.sims, 0, naive=False)
        fast_s += time.perf_counter() - t
        t = time.perf_counter()
        m2, p2, c2 = one_cell(noise, items, runs, gap, args.sims, 0, naive=True)
        naive_s += time.perf_counter() - t
        same = "same" if (m1 == m2 and p1 == p2) else f"DIFFERENT ({m1}, {p1}) vs ({m2}, {p2})"
        print(f"  {items:>2} items x {runs:>2} runs: p-values computed {c1:>6} vs naive {c2:>6}; results {same}")
    per_naive = naive_s / len(cells)
    print(f"peer on {len(cells)} designs: batched {fast_s:.2f} s, naive per-probe loop {naive_s:.2f} s "
          f"(ratio {naive_s / fast_s:.1f}x)")
    print(f"naive loop scaled to the grid: about {per_naive * len(plan.cells):.0f} s "
          f"(ratio to the plan {per_naive * len(plan.cells) / grid_s:.1f}x)")


if __name__ == "__main__":
    main()
