"""Calibration of the within-log noise check at a fixed seed and fixed item names.

The within-log check splits value A's runs of each cell into two halves drawn at random and runs the
exact sign-flip test on the half-against-half gaps; on probes with no gap it should fail (exact
p <= alpha) in a share alpha of probes *for every seed*, not only on average over seeds. Here every
probe has the same item names (q0 ... q11) and the split seed is held fixed over all of them, for
each of the seeds 0-9 in turn: a rule whose halves were a fixed pattern of ranks per seed and item
name would show as a rate far from alpha at some seed.

Probes: two values, 12 items, 10 runs per cell, no gap; the metric is either counts (Poisson, a mean
drawn per item from 1 to 6) or normal values (a level per item, unit noise, full precision); rows are
either sorted by the metric within each cell (a sheet sorted by score) or shuffled. Each probe's runs
are drawn once and split at each seed. For comparison the former rule (keys by the seed, the cell's
name and the run's *rank* in value order) is run on the same probes.

Run: ``nice -n 10 python benchmarks/calibrate_within.py [--probes 200] [--alpha 0.05] [--seeds 0-9]``
(about a minute on one core at the defaults). Printed, not a timed test.
"""

from __future__ import annotations

import argparse
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from probestats.analyses.halves import _mix, random_halves  # noqa: E402
from probestats.analyses.items import item_table  # noqa: E402
from probestats.stats.hypotests import sign_flip_test  # noqa: E402

ITEMS, RUNS = 12, 10
NAMES = [f"q{i}" for i in range(ITEMS)]


def probe(rng, kind: str, order: str) -> pl.DataFrame:
    """One null probe: value a's and value b's runs of each item, drawn alike."""
    items, variants, scores = [], [], []
    for name in NAMES:
        level = rng.uniform(1, 6) if kind == "counts" else rng.normal(5, 2)
        for v in ("a", "b"):
            xs = (rng.poisson(level, RUNS).astype(float) if kind == "counts" else level + rng.normal(0, 1, RUNS))
            xs = np.sort(xs) if order == "sorted" else rng.permutation(xs)
            items += [name] * RUNS
            variants += [v] * RUNS
            scores += xs.tolist()
    return pl.DataFrame({"item": items, "variant": variants, "score": scores})


def check_p(frame: pl.DataFrame, seed: int) -> float:
    """The within-log check's exact p: value a's runs split by the library's draw, sign-flip on the gaps."""
    halves = random_halves(frame, "score", "a", seed=seed)
    gaps = item_table(halves, "score", "a (first half)", "a (second half)")["gap"].to_list()
    return sign_flip_test(gaps).pvalue


def former_rule_p(frame: pl.DataFrame, seed: int) -> float:
    """The former draw: a cell's runs in value order, place j keyed mix(mix(mix(seed) ^ crc32(name)) + j)."""
    firsts, seconds = [], []
    runs = frame.filter(pl.col("variant") == "a")
    for name, group in runs.group_by("item", maintain_order=True):
        xs = np.sort(group["score"].to_numpy())
        base = _mix(_mix(np.full(1, seed, dtype=np.uint64)) ^ np.uint64(zlib.crc32(str(name[0]).encode())))
        with np.errstate(over="ignore"):
            keys = _mix(base + np.arange(xs.size, dtype=np.uint64))
        first = np.argsort(keys, kind="stable")[: xs.size // 2]
        mask = np.zeros(xs.size, bool)
        mask[first] = True
        firsts.append(xs[mask].mean())
        seconds.append(xs[~mask].mean())
    return sign_flip_test(np.array(firsts) - np.array(seconds)).pvalue


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=200)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seeds", default="0-9", help="split seeds, as FIRST-LAST (default 0-9)")
    parser.add_argument("--no-former", action="store_true", help="skip the former rule's rates")
    args = parser.parse_args()
    lo, _, hi = args.seeds.partition("-")
    seeds = list(range(int(lo), int(hi or lo) + 1))
    se = (args.alpha * (1 - args.alpha) / args.probes) ** 0.5
    band = 0.03
    print(f"{args.probes} null probes per shape, {ITEMS} items (the same names in every probe), {RUNS} runs per "
          f"cell; alpha {args.alpha:g}; binomial standard error of a rate at alpha {se:.4f}; band alpha ± {band}")
    print(f"{'shape':<18} {'seed':>4} {'check fails':>12} {'former rule':>12}")
    outside = 0
    start = time.perf_counter()
    for kind in ("counts", "normal"):
        for order in ("sorted", "shuffled"):
            frames = [probe(np.random.default_rng([k, kind == "counts", order == "sorted"]), kind, order)
                      for k in range(args.probes)]
            for seed in seeds:
                rate = sum(check_p(f, seed) <= args.alpha for f in frames) / args.probes
                former = (float("nan") if args.no_former
                          else sum(former_rule_p(f, seed) <= args.alpha for f in frames) / args.probes)
                flag = "" if abs(rate - args.alpha) <= band else "  OUTSIDE the band"
                outside += bool(flag)
                print(f"{kind + ', ' + order:<18} {seed:>4} {rate:>12.3f} {former:>12.3f}{flag}", flush=True)
    print(f"{outside} of {4 * len(seeds)} (shape, seed) rates outside alpha ± {band}; "
          f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
