"""Level and coverage with items nested in clusters: the item-level tests against the cluster-level ones.

Null logs of 40 clusters x 10 items, 2 runs per value: each cluster shifts its items' gap by a normal draw of
SD 0.5 (a cluster effect on the gap whose mean is 0), runs are item level + normal noise (SD 1). For each log
the benchmark computes the item gaps and, as ``analyze`` does without and with ``--cluster``:

- the item-level exact sign-flip test and Student t interval (items treated as independent);
- the cluster-level exact sign-flip test (whole clusters flipped: the test on the clusters' sums of item gaps),
  the cluster-level t interval ``--cluster`` reports and, beside it, the percentile cluster bootstrap
  (:func:`probestats.analyses.clusters.cluster_bootstrap_interval`).

It prints the share of nulls rejected at alpha 0.05 and the share of 95% intervals that hold the true mean gap 0,
each with its Monte Carlo standard error.

Run: python benchmarks/clusters.py [--reps 400] [--resamples 2000]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from probestats.analyses.clusters import cluster_bootstrap_interval, cluster_t_interval
from probestats.stats.hypotests import gap_interval, sign_flip_test


def null_gaps(rng, clusters: int, per: int, effect_sd: float, runs: int) -> tuple[np.ndarray, np.ndarray]:
    """The item gaps of one null log (the item level cancels in the gap) and each item's cluster."""
    shift = np.repeat(rng.normal(0, effect_sd, clusters), per)
    noise = rng.normal(0, 1, (clusters * per, 2, runs)).mean(axis=2)
    return shift + noise[:, 0] - noise[:, 1], np.repeat(np.arange(clusters), per)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--clusters", type=int, default=40)
    parser.add_argument("--per", type=int, default=10)
    parser.add_argument("--effect-sd", type=float, default=0.5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    counts = {"items": [0, 0], "clusters": [0, 0], "cluster t": [0, 0]}
    start = time.time()
    for rep in range(args.reps):
        gaps, ids = null_gaps(rng, args.clusters, args.per, args.effect_sd, 2)
        item_p = sign_flip_test(gaps).pvalue
        iv = gap_interval(gaps)
        counts["items"][0] += item_p <= 0.05
        counts["items"][1] += iv.low <= 0 <= iv.high
        sums = np.bincount(ids, weights=gaps)
        cluster_p = sign_flip_test(sums).pvalue
        civ = cluster_bootstrap_interval(gaps, ids, n_resamples=args.resamples, seed=rep)
        tiv = cluster_t_interval(gaps, ids)
        counts["clusters"][0] += cluster_p <= 0.05
        counts["clusters"][1] += civ.low <= 0 <= civ.high
        counts["cluster t"][0] += cluster_p <= 0.05
        counts["cluster t"][1] += tiv.low <= 0 <= tiv.high
    n = args.reps
    print(f"{args.clusters} clusters x {args.per} items, cluster effect SD {args.effect_sd}, {n} null logs "
          f"({time.time() - start:.0f} s)")
    print(f"{'tests':<40}{'rejected at 0.05':>20}{'95% coverage':>18}")
    for label, key in (("items independent (no --cluster)", "items"),
                       ("whole clusters, cluster bootstrap", "clusters"),
                       ("whole clusters, cluster t (--cluster)", "cluster t")):
        rej, cov = counts[key][0] / n, counts[key][1] / n
        print(f"{label:<40}{rej:>12.3f} ± {math.sqrt(rej * (1 - rej) / n):.3f}"
              f"{cov:>10.3f} ± {math.sqrt(cov * (1 - cov) / n):.3f}")


if __name__ == "__main__":
    main()
