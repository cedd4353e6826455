"""Effect sizes against the truth: generated paired logs with a known d_z and d_av.

Each draw is a paired log's item means: item baseline N(0, spread), true gap N(delta, tau), k runs
per value with run noise N(0, sigma), so var(gap) = tau² + 2 sigma²/k, var(mean A) = spread² + tau²
+ sigma²/k, var(mean B) = spread² + sigma²/k, and the true d_z = delta / sqrt(var(gap)), the true
d_av = delta / sqrt((var(mean A) + var(mean B)) / 2). Over ``--draws`` logs at each number of
items the table prints the mean of each estimate (d_z, d_av and Hedges' g_z, g_av), its distance
from the truth in Monte Carlo standard errors, and the coverage of the exact d_z interval
(noncentral t) with its standard error; then, with ``--coverage``, the coverage of the d_z interval
over normal item gaps and of the d_av bootstrap interval.

Run: python benchmarks/effect_sizes.py [--draws 2000] [--coverage 1000] [--resamples 999]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from probestats.stats.effects import effect_sizes

K, DELTA, TAU, SIGMA, SPREAD = 5, 0.5, 0.4, 1.0, 0.6


def truth() -> tuple[float, float]:
    var_gap = TAU ** 2 + 2 * SIGMA ** 2 / K
    var_a, var_b = SPREAD ** 2 + TAU ** 2 + SIGMA ** 2 / K, SPREAD ** 2 + SIGMA ** 2 / K
    return DELTA / math.sqrt(var_gap), DELTA / math.sqrt((var_a + var_b) / 2)


def draw(rng, n):
    base = rng.normal(0, SPREAD, n)
    gap = rng.normal(DELTA, TAU, n)
    return (base + gap + rng.normal(0, SIGMA, (K, n)).mean(axis=0), base + rng.normal(0, SIGMA, (K, n)).mean(axis=0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--items", type=int, nargs="+", default=[20, 200])
    parser.add_argument("--coverage", type=int, default=1000, help="draws for the interval coverage at 20 items")
    parser.add_argument("--resamples", type=int, default=999, help="bootstrap resamples of the d_av interval")
    args = parser.parse_args()
    true_dz, true_dav = truth()
    print(f"truth: d_z = {true_dz:.4f}, d_av = {true_dav:.4f} (delta {DELTA}, tau {TAU}, sigma {SIGMA}, "
          f"spread {SPREAD}, {K} runs per value)")
    print(f"{'items':>5} {'estimate':>8} {'mean':>8} {'truth':>8} {'(mean - truth) / se':>20}")
    for n in args.items:
        rng = np.random.default_rng(n)
        found = {"d_z": [], "d_av": [], "g_z": [], "g_av": []}
        for _ in range(args.draws):
            a, b = draw(rng, n)
            plain, hedged = effect_sizes(a, b, intervals=False), effect_sizes(a, b, hedges=True, intervals=False)
            for name, e in (("d_z", plain.d_z), ("d_av", plain.d_av), ("g_z", hedged.d_z), ("g_av", hedged.d_av)):
                found[name].append(e.value)
        for name, values in found.items():
            x = np.array(values)
            t = true_dz if name.endswith("z") else true_dav
            se = x.std(ddof=1) / math.sqrt(x.size)
            print(f"{n:>5} {name:>8} {x.mean():>8.4f} {t:>8.4f} {(x.mean() - t) / se:>20.2f}")
    if args.coverage:
        start = time.perf_counter()
        rng = np.random.default_rng(7)
        hit_z = hit_av = 0
        for _ in range(args.coverage):
            a, b = draw(rng, 20)
            e = effect_sizes(a, b, n_resamples=args.resamples, seed=int(rng.integers(1 << 31)))
            hit_z += e.d_z.low <= true_dz <= e.d_z.high
            hit_av += e.d_av.low is not None and e.d_av.low <= true_dav <= e.d_av.high
        for name, hits in (("d_z (exact noncentral t)", hit_z), ("d_av (BCa bootstrap)", hit_av)):
            p = hits / args.coverage
            print(f"coverage of the 95% {name} interval at 20 items over {args.coverage} draws: {p:.3f} "
                  f"(± {math.sqrt(p * (1 - p) / args.coverage):.3f})")
        print(f"({time.perf_counter() - start:.1f} s)")


if __name__ == "__main__":
    main()
