"""Coverage of the corrected gap's interval: a 0/1 judge label with planted false positives, checked by hand on 60 runs.

Each generated log has ``--items`` items run ``--runs`` times under two values. An item's true rate
under a value is logistic(logit(rate) + N(0, 0.5)) (items differ); each run is truly 1 with that
rate. A judge codes it with sensitivity 0.85 under both values and **false positives** that differ
by value (it calls a true 0 a 1 with probability ``fp_a`` under a, ``fp_b`` under b): a judge biased
by the attribute. A validation sample of 60 runs is drawn at random from the log and labelled with
the truth; :func:`probestats.analyses.hand_labels.check_coding` corrects the gap by each value's
predictive values, with a Monte Carlo interval over items and the validation.

Two scenarios, each over ``--logs`` logs:

- ``gap``: true rates 0.30 and 0.20 (false positives 0.20 and 0.08);
- ``null``: true rates 0.20 and 0.20 (false positives 0.25 and 0.05): the coded gap is all error.

Printed per scenario: the true gap (the mean over the item distribution, by quadrature), the
share of 95% intervals that cover it with its Monte Carlo standard error, the mean coded and
corrected gaps, and how often the coded gap's exact test and the corrected interval each detect a gap.

Run: python benchmarks/validation_coverage.py [--logs 500] [--items 40] [--runs 5] [--resamples 4000]
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import polars as pl

from probestats.analyses.hand_labels import check_coding
from probestats.stats.hypotests import sign_flip_test

SCENARIOS = {"gap": (0.30, 0.20, 0.20, 0.08), "null": (0.20, 0.20, 0.25, 0.05)}
SENSITIVITY = 0.85
SPREAD = 0.5   # sd of the items' true rates on the logit scale
VALIDATED = 60


def _logit(p):
    return math.log(p / (1 - p))


def _rates(rng, rate, n):
    return 1 / (1 + np.exp(-(_logit(rate) + rng.normal(0, SPREAD, n))))


def true_gap(rate_a: float, rate_b: float) -> float:
    """The mean over the item distribution of the true rates' difference (Gauss-Hermite quadrature, 80 nodes)."""
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    weights = weights / weights.sum()

    def mean(rate):
        return float(weights @ (1 / (1 + np.exp(-(_logit(rate) + SPREAD * nodes)))))

    return mean(rate_a) - mean(rate_b)


def one_log(rng, scenario: str, items: int, runs: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    rate_a, rate_b, fp_a, fp_b = SCENARIOS[scenario]
    rows = {"item": [], "variant": [], "seed": [], "flip": []}
    truth = []
    for value, rate, fp in (("a", rate_a, fp_a), ("b", rate_b, fp_b)):
        r = _rates(rng, rate, items)
        t = rng.random((items, runs)) < r[:, None]
        coded = np.where(t, rng.random((items, runs)) < SENSITIVITY, rng.random((items, runs)) < fp)
        for i in range(items):
            for s in range(runs):
                rows["item"].append(i)
                rows["variant"].append(value)
                rows["seed"].append(s)
                rows["flip"].append(int(coded[i, s]))
                truth.append(int(t[i, s]))
    log = pl.DataFrame(rows)
    pick = rng.choice(log.height, VALIDATED, replace=False)
    hand = log[pick].with_columns(pl.Series("flip", np.array(truth)[pick]))
    return log, hand


def coded_p(log: pl.DataFrame) -> float:
    per = log.group_by("item", "variant").agg(pl.col("flip").mean()).pivot(on="variant", index="item", values="flip")
    return sign_flip_test((per["a"] - per["b"]).to_numpy()).pvalue


def run(scenario: str, logs: int, items: int, runs: int, resamples: int) -> dict:
    truth = true_gap(*SCENARIOS[scenario][:2])
    rng = np.random.default_rng([39, list(SCENARIOS).index(scenario)])
    hits = coded_detected = corrected_detected = 0
    observed, corrected = [], []
    for k in range(logs):
        log, hand = one_log(rng, scenario, items, runs)
        c = check_coding(log, hand, metric="flip", a="a", b="b", n_resamples=resamples, seed=k).corrected
        hits += c.low <= truth <= c.high
        corrected_detected += c.low > 0 or c.high < 0
        coded_detected += coded_p(log) <= 0.05
        observed.append(c.observed_gap)
        corrected.append(c.average_gap)
    share = hits / logs
    return {"scenario": scenario, "true gap": truth, "coverage": share,
            "se": math.sqrt(share * (1 - share) / logs), "coded gap": float(np.mean(observed)),
            "corrected gap": float(np.mean(corrected)), "coded test detects": coded_detected / logs,
            "corrected interval detects": corrected_detected / logs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=500)
    parser.add_argument("--items", type=int, default=40)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=4000)
    args = parser.parse_args()
    print(f"{args.logs} logs per scenario, {args.items} items x {args.runs} runs per value, {VALIDATED} runs "
          f"validated at random, {args.resamples} Monte Carlo draws per interval (95%)")
    print(f"{'scenario':<9}{'true gap':>9}{'coverage':>10}{'(se)':>8}{'coded':>8}{'corrected':>11}"
          f"{'coded test detects':>20}{'corrected detects':>19}")
    for scenario in SCENARIOS:
        start = time.perf_counter()
        r = run(scenario, args.logs, args.items, args.runs, args.resamples)
        print(f"{r['scenario']:<9}{r['true gap']:>9.4f}{r['coverage']:>10.3f}{r['se']:>8.3f}{r['coded gap']:>8.4f}"
              f"{r['corrected gap']:>11.4f}{r['coded test detects']:>20.3f}{r['corrected interval detects']:>19.3f}"
              f"   ({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
