"""Calibration of the headline test where design features combine: on null logs, how often does it reject?

Each design feature (unequal runs, clusters, blocks, several metrics, many values) holds its level alone; this
prints, for generated null logs that combine two of them, the share of logs whose headline p (the p the verdict
rests on: ``result.pvalue``, or for several metrics the family's omnibus p) is at most alpha, with its Monte
Carlo standard error, and the test the headline named. It must be alpha +- 0.015 at 500 logs per shape.

Shapes (the gap's true average is zero in every one; metrics are written with one decimal):

- ``unequal runs + clusters``: 40 clusters of 5 items; each cluster shifts its items' gap by a normal draw of
  SD 1 (symmetric about zero); 1 run of 'a' against 3 of 'b' in every item (unequal by design);
- ``missing runs + clusters``: the same clusters, 4 runs of each value, 1% of the runs deleted at random;
- ``unequal runs + blocks``: 30 items, 4 models answering every item (a block, each at its own level), 1 run
  against 3;
- ``clusters + blocks``: 40 clusters of 5 items, 3 models answering every item;
- ``several metrics + blocks``: 3 correlated metrics, 20 items, 5 models as blocks; the family's omnibus p;
- ``many values + blocks``: 4 values, 20 items, 3 models as blocks; the omnibus p.

Run: ``nice -n 10 python benchmarks/calibrate_combined.py [--logs 500] [--alpha 0.05] [--seed 0]
[--shapes NAME,...]`` (a few seconds per hundred logs of a shape, more for several metrics). Printed, not a
timed test.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import probestats  # noqa: E402
from probestats import Probe  # noqa: E402


def clustered(rng, *, runs_a: int, runs_b: int, clusters: int = 40, per: int = 5, drop: float = 0.0,
              models: int = 1) -> list[dict]:
    rows = []
    for c in range(clusters):
        shift = rng.normal(0, 1)
        for j in range(per):
            level = rng.normal(0, 1)
            for m in range(models):
                for v, runs in (("a", runs_a), ("b", runs_b)):
                    for s in range(runs):
                        y = level + rng.normal(0, 1) + (shift if v == "a" else 0.0)
                        rows.append({"item": f"{c}-{j}", "variant": v, "seed": s, "y": round(y, 1), "doc": f"d{c}",
                                     "model": f"m{m}"})
    if drop:
        keep = rng.random(len(rows)) >= drop
        rows = [r for r, k in zip(rows, keep) if k]
    return rows


def blocked(rng, *, runs_a: int, runs_b: int, items: int = 30, models: int = 4) -> list[dict]:
    rows = []
    for i in range(items):
        level = rng.normal(0, 1)
        for m in range(models):
            model_level = rng.normal(0, 0.5)   # models differ in level, not in the gap (the null within blocks)
            for v, runs in (("a", runs_a), ("b", runs_b)):
                for s in range(runs):
                    y = level + model_level + rng.normal(0, 1)
                    rows.append({"item": f"q{i}", "variant": v, "seed": s, "model": f"m{m}", "y": round(y, 1)})
    return rows


def metrics_blocked(rng, *, items: int = 20, models: int = 5) -> list[dict]:
    rows = []
    for i in range(items):
        level = rng.normal(0, 1)
        for m in range(models):
            for v in ("a", "b"):
                for s in range(2):
                    latent = level + rng.normal(0, 1)
                    rows.append({"item": f"q{i}", "variant": v, "seed": s, "model": f"m{m}",
                                 **{f"x{k}": round(latent + rng.normal(0, 0.5), 1) for k in range(3)}})
    return rows


def many_blocked(rng, *, items: int = 20, models: int = 3) -> list[dict]:
    rows = []
    for i in range(items):
        level = rng.normal(0, 1)
        for m in range(models):
            for v in ("a", "b", "c", "d"):
                for s in range(2):
                    rows.append({"item": f"q{i}", "variant": v, "seed": s, "model": f"m{m}",
                                 "y": round(level + rng.normal(0, 1), 1)})
    return rows


def headline(result) -> tuple[float, str]:
    """The p the verdict rests on, and the test it names."""
    if getattr(result, "joint", None) is not None:
        return result.joint.pvalue, "joint sign-flip (family omnibus)"
    if hasattr(result, "main") and hasattr(result.main, "omnibus"):
        return result.main.omnibus.pvalue, "within-item permutation omnibus"
    test = result.main.headline_test
    name = "permutation" if result.main.permutation is not None else "sign-flip"
    if getattr(result, "clusters", None) is not None:
        name = "sign-flip of whole clusters"
    return test.pvalue, name


SHAPES = {
    "unequal runs + clusters": lambda rng: (clustered(rng, runs_a=1, runs_b=3), dict(metric="y", probe=Probe(cluster="doc"))),
    "missing runs + clusters": lambda rng: (clustered(rng, runs_a=4, runs_b=4, drop=0.01),
                                            dict(metric="y", probe=Probe(cluster="doc"))),
    "unequal runs + blocks": lambda rng: (blocked(rng, runs_a=1, runs_b=3), dict(metric="y")),
    "clusters + blocks": lambda rng: (clustered(rng, runs_a=2, runs_b=2, models=3),
                                      dict(metric="y", probe=Probe(cluster="doc"))),
    "several metrics + blocks": lambda rng: (metrics_blocked(rng), dict(metric=["x0", "x1", "x2"])),
    "many values + blocks": lambda rng: (many_blocked(rng), dict(metric="y")),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logs", type=int, default=500)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    args = parser.parse_args(argv)
    print(f"{'shape':<28} {'logs':>5} {'rejects':>8} {'rate':>7} {'+-2 SE':>7}  headline test   (alpha {args.alpha})")
    for name in [s.strip() for s in args.shapes.split(",") if s.strip()]:
        make = SHAPES[name]
        rng = np.random.default_rng(args.seed)
        hits, tests, start = 0, set(), time.perf_counter()
        for _ in range(args.logs):
            rows, options = make(rng)
            p, test = headline(probestats.analyze(rows, tests=probestats.Tests(n_resamples=2000), **options))
            hits += p <= args.alpha
            tests.add(test)
        rate = hits / args.logs
        se = math.sqrt(args.alpha * (1 - args.alpha) / args.logs)
        print(f"{name:<28} {args.logs:>5} {hits:>8} {rate:>7.3f} {2 * se:>7.3f}  {', '.join(sorted(tests))} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
