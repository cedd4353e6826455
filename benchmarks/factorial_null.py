"""The within-item permutation tests of a factor design beyond 2 × 2, calibrated on generated nulls.

Each draw is an items × 3 × 2 table of item means (dose × arm): item baselines, item-specific dose
and arm effects, large main effects of both factors, and normal noise. The tests are those of
probestats.analyses.factors_many_levels (exact enumeration at 6 items, Monte Carlo beyond), uncorrected.
Rows printed, each the rejection rate at alpha 0.05 over ``--draws`` designs with its standard error:

* interaction, no interaction in the data, noise exchangeable across dose levels (the scheme's
  null: each item's table additive, so whole dose rows are exchangeable within the item);
* dose main effect, no dose effect on average over the arms but an interaction (the dose rows of the
  arm-averaged table are exchangeable);
* interaction again with the noise of one dose level three times the others' (exchangeability fails:
  this row measures how far the test leaves alpha when that assumption is broken);
* the interaction statistic against whole-cell permutation (every cell of an item moved freely):
  an invalid scheme, for contrast.

Run: python benchmarks/factorial_null.py [--draws 1000] [--items 6 10] [--resamples 999]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from probestats.analyses.factors_many_levels import factorial_tests

DOSE, ARM = np.array([0.0, 2.0, 4.0]), 1.0


def design(rng, items: int, het: float = 1.0, dose: bool = True, interaction: float = 0.0) -> np.ndarray:
    base = rng.normal(0, 1, (items, 1, 1)) + rng.normal(0, 0.5, (items, 3, 1))
    arm = rng.normal(ARM, 0.5, (items, 1, 2)) * np.array([0.0, 1.0])[None, None, :]
    shift = (DOSE if dose else np.zeros(3))[None, :, None]
    # an interaction whose dose effects cancel over the two arms: +d in arm x, -d in arm y
    inter = interaction * np.array([-1.0, 0.0, 1.0])[None, :, None] * np.array([1.0, -1.0])[None, None, :]
    noise = rng.normal(0, 1, (items, 3, 2)) * np.array([1.0, 1.0, het])[None, :, None]
    return base + shift + arm + inter + noise


def interaction_ss(tables: np.ndarray) -> np.ndarray:
    m = tables.mean(axis=-3)
    return tables.shape[-3] * ((m - m.mean(axis=-1, keepdims=True) - m.mean(axis=-2, keepdims=True)
                                + m.mean(axis=(-2, -1), keepdims=True)) ** 2).sum(axis=(-2, -1))


def whole_cell_p(rng, m: np.ndarray, resamples: int) -> float:
    n = m.shape[0]
    flat = m.reshape(n, 6)
    draws = np.stack([rng.permuted(flat, axis=1) for _ in range(resamples)]).reshape(resamples, n, 3, 2)
    return (1 + int(np.count_nonzero(interaction_ss(draws) >= interaction_ss(m)))) / (resamples + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--items", type=int, nargs="+", default=[6, 10])
    parser.add_argument("--resamples", type=int, default=999, help="Monte Carlo permutations beyond enumeration")
    args = parser.parse_args()
    print(f"rejection rate at alpha 0.05 over {args.draws} generated 3 × 2 designs (± its standard error)")
    for n in args.items:
        start = time.perf_counter()
        rng = np.random.default_rng(n)
        hits = {"interaction, exchangeable noise": 0, "dose (none on average), with an interaction": 0,
                "interaction, one dose level 3x noisier": 0, "interaction by whole-cell permutation (invalid)": 0}
        method = ""
        for _ in range(args.draws):
            m = design(rng, n)
            test = factorial_tests(m, ("dose", "arm"), correction="none", n_resamples=args.resamples,
                                   seed=int(rng.integers(1 << 31)))[2]
            method = test.method.split(" (")[0]
            hits["interaction, exchangeable noise"] += test.pvalue <= 0.05
            d = design(rng, n, dose=False, interaction=1.0)
            hits["dose (none on average), with an interaction"] += factorial_tests(
                d, ("dose", "arm"), correction="none", n_resamples=args.resamples,
                seed=int(rng.integers(1 << 31)))[0].pvalue <= 0.05
            h = design(rng, n, het=3.0)
            hits["interaction, one dose level 3x noisier"] += factorial_tests(
                h, ("dose", "arm"), correction="none", n_resamples=args.resamples,
                seed=int(rng.integers(1 << 31)))[2].pvalue <= 0.05
            hits["interaction by whole-cell permutation (invalid)"] += whole_cell_p(rng, m, 199) <= 0.05
        print(f"{n} items ({method} interaction test; {time.perf_counter() - start:.0f} s):")
        for name, k in hits.items():
            p = k / args.draws
            print(f"  {name:<50} {p:.3f} (± {math.sqrt(p * (1 - p) / args.draws):.3f})")


if __name__ == "__main__":
    main()
