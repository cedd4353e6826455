"""Coverage of the intervals for the average gap: how often does a 95% interval hold the true mean?

Item gaps are drawn from five shapes (each with a known mean): normal, Student t with 3
degrees of freedom, exponential, lognormal with sigma 1, and sparse (70% of items show no
gap, the rest a gap near 2); at n = 6, 8 and 12 items. For each, ``--reps`` sets of gaps
are drawn and each interval method of ``probestats.gap_interval`` is computed: Student t,
BCa bootstrap (scipy.stats.bootstrap) and the inversion of the sign-flip test. The table
prints the share of intervals that hold the true mean, with its Monte Carlo standard error.

Run: python benchmarks/coverage_interval.py [--reps 2000] [--resamples 2000]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from probestats.stats.hypotests import gap_interval

SHAPES = {
    "normal": (lambda rng, n: rng.normal(0.5, 1.0, n), 0.5),
    "t(3)": (lambda rng, n: 0.5 + rng.standard_t(3, n), 0.5),
    "exponential": (lambda rng, n: rng.exponential(1.0, n), 1.0),
    "lognormal s=1": (lambda rng, n: rng.lognormal(0.0, 1.0, n), math.exp(0.5)),
    "sparse": (lambda rng, n: np.where(rng.random(n) < 0.3, rng.normal(2.0, 0.5, n), 0.0), 0.6),
}
SIZES = (6, 8, 12)
METHODS = ("t", "bootstrap", "sign-flip")


def coverage(shape: str, n: int, method: str, reps: int, resamples: int, seed: int = 0) -> float:
    draw, truth = SHAPES[shape]
    rng = np.random.default_rng([seed, n, list(SHAPES).index(shape)])
    hits = 0
    for r in range(reps):
        g = draw(rng, n)
        if float(np.ptp(g)) == 0.0:          # all gaps equal (sparse: all zero): a point interval at the mean
            hits += bool(g[0] == truth)
            continue
        kw = {"n_resamples": resamples, "seed": r} if method == "bootstrap" else {}
        iv = gap_interval(g, method=method, **kw)
        hits += iv.low <= truth <= iv.high
    return hits / reps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--resamples", type=int, default=2000)
    args = ap.parse_args()
    start = time.perf_counter()
    print(f"coverage of 95% intervals for the average gap ({args.reps} draws per cell; Monte Carlo SE about "
          f"{math.sqrt(0.95 * 0.05 / args.reps):.3f}; bootstrap {args.resamples} resamples)")
    head = f"{'gaps':<14} {'n':>3} " + " ".join(f"{m:>10}" for m in METHODS)
    print(head)
    print("-" * len(head))
    worst = {m: 1.0 for m in METHODS}
    for shape in SHAPES:
        for n in SIZES:
            row = []
            for m in METHODS:
                c = coverage(shape, n, m, args.reps, args.resamples)
                worst[m] = min(worst[m], c)
                row.append(c)
            print(f"{shape:<14} {n:>3} " + " ".join(f"{c:>10.3f}" for c in row), flush=True)
    print(f"{'worst':<18} " + " ".join(f"{worst[m]:>10.3f}" for m in METHODS))
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
