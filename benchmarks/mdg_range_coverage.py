"""Does the MDG's range from one noise log hold the MDG of the true noise model?

For a generator (0/1 at a rate of 0.9; Poisson counts whose items' rates are Gamma(4, 1)), a design and a
size of noise log:

1. the MDG "of the true noise model": ``plan_probe`` on one very large noise log from the generator
   (``--true-runs`` runs in cells of the same size; its own sampling error is then small), with many
   simulated probes;
2. ``--logs`` noise logs of the chosen size from the same generator, each given to ``plan_probe`` with its
   MDG range (the default plan: the range over resampled noise logs);
3. the share of logs whose range holds the true model's MDG, in each direction; the target is 0.90 or more.

It also prints how wide the ranges are, and checks that no upward MDG of the 0/1 metric exceeds the 0.1
its rate can rise.

Run: python benchmarks/mdg_range_coverage.py [--logs 200] [--kinds binary,count] [--design 8x20]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import polars as pl

from probestats.analyses.plan import plan_probe


def noise_log(kind: str, rng, cells: int, m: int) -> pl.DataFrame:
    if kind == "binary":
        y = (rng.random(cells * m) < 0.9).astype(float)
    elif kind == "count":
        y = rng.poisson(np.repeat(rng.gamma(4.0, 1.0, cells), m)).astype(float)
    else:
        raise ValueError(kind)
    return pl.DataFrame({"item": np.repeat(np.arange(cells), m), "x": y})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logs", type=int, default=200)
    ap.add_argument("--kinds", default="binary,count")
    ap.add_argument("--design", default="8x20")
    ap.add_argument("--cells", type=int, default=40, help="cells of each noise log")
    ap.add_argument("--m", type=int, default=5, help="runs per cell")
    ap.add_argument("--sims", type=int, default=1000, help="plan's simulated probes per noise log")
    ap.add_argument("--true-runs", type=int, default=40000)
    ap.add_argument("--true-sims", type=int, default=8000)
    args = ap.parse_args()
    items, runs = (int(x) for x in args.design.lower().split("x"))
    print(f"MDG range coverage: design {items}x{runs}, {args.logs} noise logs of {args.cells} cells x {args.m} runs, "
          f"plan sims {args.sims}; true model: one log of {args.true_runs} runs, {args.true_sims} sims")
    for kind in args.kinds.split(","):
        start = time.perf_counter()
        big = noise_log(kind, np.random.default_rng([26, 0]), args.true_runs // args.m, args.m)
        truth = plan_probe(big, metric="x", items=items, runs=runs, heterogeneity=0.0, sims=args.true_sims,
                           seed=1, mdg_range=False).cells[0]
        hits = {"up": 0, "down": 0}
        counted = {"up": 0, "down": 0}
        widths = {"up": [], "down": []}
        top_up = 0.0
        for log in range(args.logs):
            frame = noise_log(kind, np.random.default_rng([26, 1, log]), args.cells, args.m)
            cell = plan_probe(frame, metric="x", items=items, runs=runs, heterogeneity=0.0, sims=args.sims,
                              seed=log).cells[0]
            if cell.mdg_up is not None and math.isfinite(cell.mdg_up):
                top_up = max(top_up, cell.mdg_up)
            for name, true, mine, got in (("up", truth.mdg_up, cell.mdg_up, cell.mdg_up_range),
                                          ("down", truth.mdg_down, cell.mdg_down, cell.mdg_down_range)):
                if true is None or not math.isfinite(true):
                    continue
                counted[name] += 1
                if got is not None and got[0] <= true <= got[1]:
                    hits[name] += 1
                if got is not None and math.isfinite(got[1]) and mine:
                    widths[name].append((got[1] - got[0]) / mine)
        print(f"\n{kind}: true-model MDG up {truth.mdg_up:.4g}, down {truth.mdg_down:.4g}")
        for name in ("up", "down"):
            if counted[name]:
                w = widths[name]
                print(f"  {name:>4}: range holds it in {hits[name]}/{counted[name]} logs "
                      f"({hits[name] / counted[name]:.3f}); median width {np.median(w) if w else float('nan'):.3f} "
                      f"of the MDG")
        if kind == "binary":
            print(f"  largest reported mdg_up over the logs: {top_up:.4f} (the rate 0.9 can rise by 0.1)")
        print(f"  {time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
