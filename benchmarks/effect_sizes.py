"""Effect sizes against the truth: generated paired logs with a known d_z and d_av.

Each draw is a paired log's item means: item baseline N(0, spread), true gap N(delta, tau), k runs
per value with run noise N(0, sigma), so var(gap) = tau² + 2 sigma²/k, var(mean A) = spread² + tau²
+ sigma²/k, var(mean B) = spread² + sigma²/k, cov = spread², and the true d_z = delta / sqrt(var(gap)),
the true d_av = delta / sqrt((var(mean A) + var(mean B)) / 2).

The plain d_z and d_av are biased upward in small samples, so their means are compared with their
exact expectations under this (normal) model, not with the truth: E[d_z] = d_z / J(n − 1)
(probestats.stats.effects.expected_dz) and E[d_av] from one numerical integral (expected_dav).
Hedges' g_z and g_av are compared with the truth itself: g_z is exactly unbiased, g_av (Satterthwaite
df) approximately, and the table prints what bias is left. Each row gives the mean over ``--draws``
logs, its target, their distance in Monte Carlo standard errors and the bias in percent of the target;
then, with ``--coverage``, the coverage of the d_z interval over normal item gaps and of the d_av
bootstrap interval.

Run: python benchmarks/effect_sizes.py [--draws 2000] [--coverage 1000] [--resamples 999]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from probestats.stats.effects import effect_sizes, expected_dav, expected_dz, hedges_j

K, DELTA, TAU, SIGMA, SPREAD = 5, 0.5, 0.4, 1.0, 0.6


VAR_A, VAR_B, COV = SPREAD ** 2 + TAU ** 2 + SIGMA ** 2 / K, SPREAD ** 2 + SIGMA ** 2 / K, SPREAD ** 2


def truth() -> tuple[float, float]:
    var_gap = TAU ** 2 + 2 * SIGMA ** 2 / K
    return DELTA / math.sqrt(var_gap), DELTA / math.sqrt((VAR_A + VAR_B) / 2)


def targets(n: int) -> dict[str, tuple[float, str]]:
    """What each estimate's mean should be at n items, and what that target is."""
    true_dz, true_dav = truth()
    return {"d_z": (expected_dz(true_dz, n), "E[d_z]"), "d_av": (expected_dav(DELTA, VAR_A, VAR_B, COV, n), "E[d_av]"),
            "g_z": (true_dz, "truth"), "g_av": (true_dav, "truth"), "g_av(n-1)": (true_dav, "truth")}


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
    print(f"{'items':>5} {'estimate':>9} {'mean':>8} {'target':>8} {'which':>8} {'(mean - target) / se':>21} "
          f"{'bias %':>7}")
    for n in args.items:
        rng = np.random.default_rng(n)
        found = {"d_z": [], "d_av": [], "g_z": [], "g_av": [], "g_av(n-1)": []}
        for _ in range(args.draws):
            a, b = draw(rng, n)
            plain, hedged = effect_sizes(a, b, intervals=False), effect_sizes(a, b, hedges=True, intervals=False)
            for name, e in (("d_z", plain.d_z), ("d_av", plain.d_av), ("g_z", hedged.d_z), ("g_av", hedged.d_av)):
                found[name].append(e.value)
            # the correction at df = n − 1, as for d_z: shown to say why g_av uses the Satterthwaite df instead
            found["g_av(n-1)"].append(hedges_j(n - 1) * plain.d_av.value)
        for name, values in found.items():
            x = np.array(values)
            t, which = targets(n)[name]
            se = x.std(ddof=1) / math.sqrt(x.size)
            print(f"{n:>5} {name:>9} {x.mean():>8.4f} {t:>8.4f} {which:>8} {(x.mean() - t) / se:>21.2f} "
                  f"{100 * (x.mean() - t) / t:>+7.2f}")
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
