"""Calibration of the tests of unequal arms: on exact nulls, how often does each test reject at alpha?

Where the two compared values have different numbers of runs within items, or one side is a group
of several values, probestats reports the exact within-item permutation of the value labels as
the headline and shows the sign-flip test, the sign test, Wilcoxon's test and the paired t-test
only as "not tests of this design" (:mod:`probestats.stats.permutation`). This prints, for 1,000
generated null logs of each design, the rejection rate at alpha of every test, marking the one
reported as a test of the design; it must be alpha +- 0.02 (the Monte Carlo standard error of a
rate near 0.05 over 1,000 logs is about 0.007).

Designs (40 items; the metric a skewed count: per item a Gamma-distributed rate, each run a Poisson
draw of it, so the item gap of one run against the mean of several is skewed):

- ``1 vs 8``: one value against a group of eight, one run each, the nine labels permuted within each
  set (the run under the single value is a random one of the nine): analysed as probestats analyses a
  ``--group`` of eight names against one (each name's mean, then the group's mean of them);
- ``2 vs 3``: two runs against three in every item, the five runs' labels permuted within items;
- ``1 vs 1, unequal runs``: two values with run counts drawn per item (1 to 3 against 2 to 6).

The tests are the functions the analysis calls (``within_item_permutation_test``, ``sign_flip_test``,
``sign_test``, ``paired_published``); ``--check N`` also runs ``probestats.analyze`` end to end on the
first N logs of each design and confirms that its headline p is the permutation p printed here.

Run: ``nice -n 10 python benchmarks/calibrate_design.py [--logs 1000] [--items 40] [--alpha 0.05] [--seed 0]
[--check 5]`` (about two minutes on two cores). Printed, not a timed test.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from probestats.stats.hypotests import sign_flip_test, sign_test  # noqa: E402
from probestats.stats.permutation import within_item_permutation_test  # noqa: E402
from probestats.stats.published import paired_published  # noqa: E402

TESTS = ("permutation", "sign-flip", "sign test", "Wilcoxon", "paired t")
REPORTED = {"permutation"}   # the only test reported as a test of these designs


def null_log(rng, design: str, items: int):
    """One null log: per item, side a's runs and side b's runs (labels exchangeable within the item)."""
    out = []
    for _ in range(items):
        rate = rng.gamma(0.8, 2.5)
        if design == "1 vs 8":
            k, m = 1, 9
        elif design == "2 vs 3":
            k, m = 2, 5
        else:
            k = int(rng.integers(1, 4))
            m = k + int(rng.integers(2, 7))
        runs = rng.poisson(rate, size=m).astype(float)
        rng.shuffle(runs)   # the design's labels on a random arrangement: the exact null
        out.append((list(runs[:k]), list(runs[k:])))
    return out


def pvalues(items) -> dict:
    mean_a = np.array([np.mean(a) for a, _ in items])
    mean_b = np.array([np.mean(b) for _, b in items])
    gaps = mean_a - mean_b
    t, w = paired_published(mean_a, mean_b)
    return {"permutation": within_item_permutation_test(items).pvalue,
            "sign-flip": sign_flip_test(list(gaps)).pvalue,
            "sign test": sign_test(list(gaps)).pvalue,
            "Wilcoxon": w.pvalue if w.pvalue is not None else 1.0,
            "paired t": t.pvalue if t.pvalue is not None else 1.0}


def to_rows(items, design: str) -> list[dict]:
    rows = []
    for i, (a, b) in enumerate(items):
        if design == "1 vs 8":   # names: one majority name, eight minority names, one run each
            rows += [{"item": i, "variant": "maj", "score": a[0]}]
            rows += [{"item": i, "variant": f"min{j}", "score": x} for j, x in enumerate(b)]
        else:
            rows += [{"item": i, "variant": "a", "seed": s, "score": x} for s, x in enumerate(a)]
            rows += [{"item": i, "variant": "b", "seed": s, "score": x} for s, x in enumerate(b)]
    return rows


def end_to_end(items, design: str) -> float:
    import probestats

    rows = pl.DataFrame(to_rows(items, design))
    if design == "1 vs 8":
        result = probestats.analyze(rows, metric="score", group=["maj=maj", "min=" + ",".join(f"min{j}" for j in range(8))])
        return result.verdict.pvalue
    return probestats.analyze(rows, metric="score", a="a", b="b", noise="none").verdict.pvalue


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logs", type=int, default=1000)
    ap.add_argument("--items", type=int, default=40)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", type=int, default=5, help="logs per design also run through probestats.analyze")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(f"rejection rate at alpha {args.alpha:g} over {args.logs} null logs of {args.items} items each "
          f"(* reported as the test of the design; must be alpha +- 0.02)")
    print(f"{'design':<24}" + "".join(f"{(t + ('*' if t in REPORTED else '')):>14}" for t in TESTS) + f"{'seconds':>10}")
    failed = []
    for design in ("1 vs 8", "2 vs 3", "1 vs 1, unequal runs"):
        start = time.perf_counter()
        hits = dict.fromkeys(TESTS, 0)
        for n in range(args.logs):
            items = null_log(rng, design, args.items)
            ps = pvalues(items)
            for t in TESTS:
                hits[t] += ps[t] <= args.alpha
            if n < args.check:
                got = end_to_end(items, design)
                if abs(got - ps["permutation"]) > 1e-9 * max(1.0, ps["permutation"]):
                    raise SystemExit(f"{design}: probestats.analyze gave p = {got}, the permutation {ps['permutation']}")
        rates = {t: hits[t] / args.logs for t in TESTS}
        print(f"{design:<24}" + "".join(f"{rates[t]:>14.3f}" for t in TESTS) + f"{time.perf_counter() - start:>10.1f}")
        failed += [(design, t, rates[t]) for t in REPORTED if abs(rates[t] - args.alpha) > 0.02 + 1e-12]
    print(f"end to end: probestats.analyze's headline p equals the permutation p on the first {args.check} logs of "
          "each design")
    if failed:
        raise SystemExit("outside alpha +- 0.02: " + "; ".join(f"{d} {t} {r:.3f}" for d, t, r in failed))
    print("every reported test within alpha +- 0.02")


if __name__ == "__main__":
    main()
