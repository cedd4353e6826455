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
its rate can rise, or else that the plan marks it as lying within the log's uncertainty of the ceiling
(``mdg_up_near_bound``: larger than the room left at the one-sided 95% bound on the log's rate).

Run: python benchmarks/mdg_range_coverage.py [--logs 200] [--kinds binary,count] [--design 8x20]
     python benchmarks/mdg_range_coverage.py --ceiling --logs 20 --sims 400   (the 0/1 ceiling check; add
     --ceiling-range to find the ranges too, which costs about ten times as much)
"""

from __future__ import annotations

import sys
from pathlib import Path

# the checkout's own probestats, not an installed copy of another version (the script's folder is what
# Python puts first on the path)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse
import math
import time

import numpy as np
import polars as pl

from probestats.analyses.plan import RANGE_SPREADS, Sizing, plan_probe
from probestats.vocabulary import Tests


def noise_log(kind: str, rng, cells: int, m: int) -> pl.DataFrame:
    if kind == "binary":
        y = (rng.random(cells * m) < 0.9).astype(float)
    elif kind == "count":
        y = rng.poisson(np.repeat(rng.gamma(4.0, 1.0, cells), m)).astype(float)
    else:
        raise ValueError(kind)
    return pl.DataFrame({"item": np.repeat(np.arange(cells), m), "x": y})


def ceiling_check(logs: int, sims: int, with_range: bool = False, cell_sizes=(2, 3, 5, 40)) -> None:
    """The largest reported mdg_up over homogeneous 0/1 logs of 4,000 runs at a rate of 0.9 (cells of 2, 3, 5
    and 40 runs; designs 8x20 and 12x5), among them the ones whose F test misfires; beside it the room the
    log's own rate leaves (1 - its rate), which no mdg_up may exceed, and (``with_range``) the largest top of
    the range."""
    from scipy.stats import f_oneway

    print(f"0/1 at 0.9: largest mdg_up over {logs} noise logs of 4,000 runs per cell size and design, "
          f"plan sims {sims}{', with the range' if with_range else ''}")
    worst = 0.0
    for m in cell_sizes:
        for items, runs in ((8, 20), (12, 5)):
            top, top_range, alarms, reached, over_room, low_rate, marked = 0.0, 0.0, 0, 0, 0, 1.0, 0
            for log in range(logs):
                rng = np.random.default_rng([26, 2, m, log])
                y = (rng.random(4000 // m * m) < 0.9).astype(float)      # 3,999 runs in cells of 3
                alarms += f_oneway(*y.reshape(-1, m)).pvalue < 0.05
                low_rate = min(low_rate, float(y.mean()))
                frame = pl.DataFrame({"item": np.repeat(np.arange(4000 // m), m), "x": y})
                cell = plan_probe(frame, metric="x", items=items, runs=runs, tests=Tests(seed=log),
                                  sizing=Sizing(heterogeneity=0.0, sims=sims, mdg_range=with_range)).cells[0]
                if cell.mdg_up is not None and math.isfinite(cell.mdg_up):
                    top, reached = max(top, cell.mdg_up), reached + 1
                    over_room += cell.mdg_up > 1.0 - float(y.mean()) + 1e-12
                    marked += cell.mdg_up_near_bound
                if cell.mdg_up_range is not None and math.isfinite(cell.mdg_up_range[1]):
                    top_range = max(top_range, cell.mdg_up_range[1])
            worst = max(worst, top)
            print(f"  cells of {m:>2}, {items}x{runs}: mdg_up reached on {reached} logs, largest {top:.4f}; "
                  f"beyond 1 - the log's rate on {over_room}; marked near the ceiling on {marked}; "
                  f"lowest log rate {low_rate:.4f}; "
                  + (f"largest top of its range {top_range:.4f}; " if with_range else "")
                  + f"F test p < 0.05 on {alarms} logs", flush=True)
    print(f"largest mdg_up over every cell: {worst:.4f} ({'within' if worst <= 0.1 else 'BEYOND'} the 0.1 the "
          "rate can rise)")


def _narrowed(mdg, got, spreads: float) -> tuple[float, float]:
    """The range ``got`` had it been ``mdg`` times exp(+/- ``spreads`` s) (s read off its lower end, which no
    bound caps; its upper end stays capped where the bound capped it, and open where it was open)."""
    low, high = got
    if mdg is None or not math.isfinite(mdg) or not low > 0 or not low <= mdg:
        return got
    s = math.log(mdg / low) / RANGE_SPREADS
    new_high = high if math.isinf(high) else min(mdg * math.exp(spreads * s), high)
    return mdg * math.exp(-spreads * s), new_high


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logs", type=int, default=200)
    ap.add_argument("--first", type=int, default=0, help="the first noise log's number (to split a run)")
    ap.add_argument("--kinds", default="binary,count")
    ap.add_argument("--design", default="8x20")
    ap.add_argument("--cells", type=int, default=40, help="cells of each noise log")
    ap.add_argument("--m", type=int, default=5, help="runs per cell")
    ap.add_argument("--sims", type=int, default=1000, help="plan's simulated probes per noise log")
    ap.add_argument("--true-runs", type=int, default=40000)
    ap.add_argument("--true-sims", type=int, default=8000)
    ap.add_argument("--what-if", type=float, default=3.0,
                    help="also count how often a range of this many spreads would have held the MDG")
    ap.add_argument("--ceiling", action="store_true", help="only the 0/1 ceiling check on logs of 4,000 runs")
    ap.add_argument("--ceiling-range", action="store_true", help="the ceiling check also finds the MDG's range")
    ap.add_argument("--ceiling-cells", default="2,3,5,40", help="the ceiling check's sizes of cells")
    args = ap.parse_args()
    if args.ceiling:
        ceiling_check(args.logs, args.sims, args.ceiling_range, tuple(int(x) for x in args.ceiling_cells.split(",")))
        return
    items, runs = (int(x) for x in args.design.lower().split("x"))
    print(f"MDG range coverage: design {items}x{runs}, {args.logs} noise logs of {args.cells} cells x {args.m} runs, "
          f"plan sims {args.sims}; true model: one log of {args.true_runs} runs, {args.true_sims} sims")
    for kind in args.kinds.split(","):
        start = time.perf_counter()
        big = noise_log(kind, np.random.default_rng([26, 0]), args.true_runs // args.m, args.m)
        truth = plan_probe(big, metric="x", items=items, runs=runs, tests=Tests(seed=1),
                           sizing=Sizing(heterogeneity=0.0, sims=args.true_sims, mdg_range=False)).cells[0]
        print(f"{kind}: true-model MDG up {truth.mdg_up:.4g}, down {truth.mdg_down:.4g} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)
        hits = {"up": 0, "down": 0}
        # what a narrower range (RANGE_SPREADS times WHAT_IF / RANGE_SPREADS) would have held
        narrow = {"up": 0, "down": 0}
        counted = {"up": 0, "down": 0}
        widths = {"up": [], "down": []}
        top_up, beyond, beyond_flagged, top_promised, flagged = 0.0, 0, 0, 0.0, 0
        for log in range(args.first, args.first + args.logs):
            frame = noise_log(kind, np.random.default_rng([26, 1, log]), args.cells, args.m)
            cell = plan_probe(frame, metric="x", items=items, runs=runs, tests=Tests(seed=log),
                              sizing=Sizing(heterogeneity=0.0, sims=args.sims)).cells[0]
            if cell.mdg_up is not None and math.isfinite(cell.mdg_up):
                top_up = max(top_up, cell.mdg_up)
                flagged += cell.mdg_up_near_bound
                beyond += cell.mdg_up > 0.1
                beyond_flagged += cell.mdg_up > 0.1 and cell.mdg_up_near_bound
                if not cell.mdg_up_near_bound:
                    top_promised = max(top_promised, cell.mdg_up)
            for name, true, mine, got in (("up", truth.mdg_up, cell.mdg_up, cell.mdg_up_range),
                                          ("down", truth.mdg_down, cell.mdg_down, cell.mdg_down_range)):
                if true is None or not math.isfinite(true):
                    continue
                counted[name] += 1
                if got is not None and got[0] <= true <= got[1]:
                    hits[name] += 1
                if got is not None and _narrowed(mine, got, args.what_if)[0] <= true <= _narrowed(mine, got,
                                                                                                  args.what_if)[1]:
                    narrow[name] += 1
                if got is not None and math.isfinite(got[1]) and mine:
                    widths[name].append((got[1] - got[0]) / mine)
            if (log + 1 - args.first) % 25 == 0:
                print(f"  {kind}: {log + 1} logs, held up {hits['up']}/{counted['up']}, "
                      f"down {hits['down']}/{counted['down']}", flush=True)
        print(f"{kind}: over {args.logs} noise logs", flush=True)
        for name in ("up", "down"):
            if counted[name]:
                w = widths[name]
                print(f"  {name:>4}: range holds it in {hits[name]}/{counted[name]} logs "
                      f"({hits[name] / counted[name]:.3f}); median width {np.median(w) if w else float('nan'):.3f} "
                      f"of the MDG; at {args.what_if:g} spreads instead of {RANGE_SPREADS:g} it would hold it in "
                      f"{narrow[name]}/{counted[name]} ({narrow[name] / counted[name]:.3f})")
        if kind == "binary":
            print(f"  largest reported mdg_up over the logs: {top_up:.4f} (the rate 0.9 can rise by 0.1); "
                  f"marked near the ceiling (not promised) on {flagged} logs; beyond 0.1 on {beyond} logs, "
                  f"{beyond_flagged} of them marked; largest mdg_up not marked {top_promised:.4f}")
        print(f"  {time.perf_counter() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
