"""Time a plan over 10 item counts x 10 runs per value at 2,000 simulated probes a design.

Each design gets its power at a gap and its minimum detectable gap (a bisection over the
same simulated probes). The peer, measured in the same run, is the naive way: every
simulated probe's p-value computed with ``sign_flip_test`` one probe at a time, at every
step of the same bisection. The peer is timed on a few designs and scaled to the grid.

Run: python benchmarks/bench_power.py [--sims 2000] [--peer-cells 3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from probestats.stats.hypotests import sign_flip_test
from probestats.analyses.plan import _draw, _mdg, _Rejections, noise_model, plan_probe

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
    draws = _draw(noise, items, runs, runs, sims, seed)
    rej = NaiveRejections(draws, 0.0, 0.05) if naive else _Rejections(draws, 0.0, 0.05, "two-sided")
    mdg = _mdg(rej, items, noise.gap_sd(runs), 0.0, 0.05, 0.8, "two-sided")
    power = rej.rate(gap)
    return mdg, power, rej.computed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sims", type=int, default=2000)
    parser.add_argument("--peer-cells", type=int, default=3)
    args = parser.parse_args()
    noise = noise_model(str(NOISE), metric="steps")
    gap = 0.75

    per_items = {}
    last = [time.perf_counter()]

    def tick(done, total):
        now = time.perf_counter()
        n = ITEMS[(done - 1) // len(RUNS)]
        per_items[n] = per_items.get(n, 0.0) + now - last[0]
        last[0] = now

    t0, c0 = time.perf_counter(), time.process_time()
    plan = plan_probe(noise, items=ITEMS, runs=RUNS, gap=gap, sims=args.sims, seed=0, progress=tick)
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
