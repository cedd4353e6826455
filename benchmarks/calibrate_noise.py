"""Calibration of the within-log noise check: on probes with no gap, how often does it fail?

The within-log check once split value A's runs of each cell into two halves drawn at random
(seeded) and ran the exact sign-flip test on the half-against-half gaps, failing ("noise beyond
chance", exact p <= alpha) in about a share alpha of null probes by the draw alone. The log's own
halves are now read over every split (:mod:`probestats.analyses.noise_check`): a size beside the
gap, never a failed check, so the analysis's rate printed here is 0 by construction; the former
rule (the first half of each cell's runs in seed order, else row order) is printed for comparison,
and ``benchmarks/calibrate_within.py`` still measures one random split's rate.

Shapes (12 items, two values, no gap):

- ``sorted rows``: 6 runs per cell of a normal metric (2 decimals), no seed column, rows sorted
  by the metric within each cell (a spreadsheet sorted by score);
- ``models as blocks``: 3 models with different offsets (0, 2, 5), 2 runs each per cell, rows
  model by model (so the model is a block and the cell is item x value x model);
- ``seeds in order``: 6 seeds per cell, written in seed order, with a drift that grows with the
  seed (runs late in the day score higher), integer scores 1 to 10;
- ``odd runs``: 5 runs per cell of integer scores 0 to 20, rows shuffled.

Run: ``python benchmarks/calibrate_noise.py [--probes 1000] [--alpha 0.05] [--seed 0]``
(a few minutes on two cores). Printed, not a timed test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from probestats.analyses.paired import analyze_pair  # noqa: E402
from probestats.analyses.items import item_table
from probestats.stats.hypotests import sign_flip_test  # noqa: E402

ITEMS = 12


def sorted_rows(rng) -> pl.DataFrame:
    rows = []
    for i in range(ITEMS):
        level = rng.normal(5, 2)
        for v in ("a", "b"):
            xs = np.sort(np.round(level + rng.normal(0, 1, 6), 2))
            rows += [{"item": f"q{i}", "variant": v, "score": float(x)} for x in xs]
    return pl.DataFrame(rows)


def models_as_blocks(rng) -> pl.DataFrame:
    rows = []
    for i in range(ITEMS):
        level = rng.normal(5, 2)
        for v in ("a", "b"):
            for m, offset in (("m1", 0.0), ("m2", 2.0), ("m3", 5.0)):
                for _ in range(2):
                    rows.append({"item": f"q{i}", "variant": v, "model": m,
                                 "score": float(np.round(level + offset + rng.normal(0, 1), 2))})
    return pl.DataFrame(rows)


def seeds_in_order(rng) -> pl.DataFrame:
    rows = []
    for i in range(ITEMS):
        level = rng.integers(3, 7)
        for v in ("a", "b"):
            for s in range(1, 7):
                x = int(np.clip(level + rng.integers(-2, 3) + (s >= 4) * rng.integers(0, 3), 1, 10))
                rows.append({"item": f"q{i}", "variant": v, "seed": s, "score": x})
    return pl.DataFrame(rows)


def odd_runs(rng) -> pl.DataFrame:
    rows = []
    for i in range(ITEMS):
        level = rng.integers(5, 15)
        for v in ("a", "b"):
            rows += [{"item": f"q{i}", "variant": v, "score": int(np.clip(level + rng.integers(-5, 6), 0, 20))}
                     for _ in range(5)]
    order = rng.permutation(len(rows))
    return pl.DataFrame([rows[j] for j in order])


SHAPES = {"sorted rows": sorted_rows, "models as blocks": models_as_blocks, "seeds in order": seeds_in_order,
          "odd runs": odd_runs}


def former_rule_p(frame: pl.DataFrame) -> float:
    """The former within-log split: each item's runs of value a, first half in seed order (else row order)."""
    runs = frame.filter(pl.col("variant") == "a").with_row_index("__order")
    order = ["item", "seed", "__order"] if "seed" in runs.columns else ["item", "__order"]
    runs = runs.sort(order, maintain_order=True)
    rank = pl.int_range(pl.len()).over("item")
    halves = runs.with_columns(pl.when(rank < pl.len().over("item") // 2).then(pl.lit("h1"))
                               .otherwise(pl.lit("h2")).alias("variant"))
    gaps = item_table(halves, "score", "h1", "h2")["gap"].to_list()
    return sign_flip_test(gaps).pvalue


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=1000)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shapes", default=",".join(SHAPES),
                        help=f"the shapes to run, comma-separated (default: all of {', '.join(SHAPES)})")
    args = parser.parse_args()
    chosen = [s.strip() for s in args.shapes.split(",") if s.strip()]
    unknown = [s for s in chosen if s not in SHAPES]
    if unknown:
        parser.error(f"--shapes {unknown[0]}: expected one of {', '.join(SHAPES)}")
    se = (args.alpha * (1 - args.alpha) / args.probes) ** 0.5
    print(f"{args.probes} null probes per shape, {ITEMS} items, alpha {args.alpha:g} "
          f"(binomial standard error of a rate at alpha: {se:.4f}); split seed = probe number")
    print(f"{'shape':<18} {'within-log check fails':>24} {'former rule (seed/row order)':>30} {'seconds':>8}")
    worst = 0.0
    for index, (name, make) in enumerate(SHAPES.items()):
        if name not in chosen:
            continue
        rng = np.random.default_rng([args.seed, index])   # each shape its own draws, whichever are run
        start = time.perf_counter()
        failed = former = 0
        blocked = 0
        for k in range(args.probes):
            frame = make(rng)
            result = analyze_pair(frame, metric="score", a="a", b="b", alpha=args.alpha, mdg=False, seed=k)
            check = result.verdict.noise
            failed += bool(check.failed)
            blocked += bool(result.verdict.blocks)
            former += former_rule_p(frame) <= args.alpha
        rate, old = failed / args.probes, former / args.probes
        worst = max(worst, rate)
        print(f"{name:<18} {rate:>24.3f} {old:>30.3f} {time.perf_counter() - start:>8.1f}"
              + (f"   (model as a block in {blocked} probes)" if blocked else ""))
    print(f"largest within-log rate: {worst:.3f} (0: the halves over every split never fail)")


if __name__ == "__main__":
    main()
