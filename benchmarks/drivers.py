"""How often a many-values verdict names a block that drives the pooled gap: on logs whose blocks agree, and where one drives it.

The block that drives a pooled figure (:func:`probestats.analyses.blocks.block_driver`) is named only where the
block test finds the blocks disagree, so on logs whose blocks agree it is named on at most the block test's
level of them. This prints, for generated logs of five values ('v0' the reference) under eight models that
answered every item (20 items, 2 runs per cell, noise SD 0.3 per run):

- ``agree``: every model at -0.05 against the reference on every other value (the blocks agree): the share of
  logs whose verdict says the models disagree (``blocks_disagree``), and the share that names a block (a
  ``driving`` block on any pair of values), each with its Monte Carlo standard error;
- ``one drives``: m0 at -0.8, the rest at -0.05: the share naming m0, and how often it is said to drive the
  pooled gaps (every pair's other seven agree without it) rather than to move them most.

The models' disagreement is tested once per value against the reference, each at alpha / 4 (Bonferroni over
the four), so the share of ``agree`` logs said to disagree is at most about alpha.

``--mode factors`` does the same on a 2 x 2 design (style formal/casual x name Emily/Greg) under five models that
answered every cell (20 items, 2 runs per cell, noise SD 0.3): ``agree``, every model's style gap -0.05;
``one drives``, m0's -0.8. Its two main effects' block tests are read at alpha / 2 each (Bonferroni).

Run: ``nice -n 10 python benchmarks/drivers.py [--logs 200] [--seed 0] [--mode many|factors|both]
[--shape agree|'one drives'|both]`` (about 0.25 s a log at 2,000 resamples: under a minute for 200 logs of each
shape). Printed, not a timed test.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

import probestats

VALUES = ("v0", "v1", "v2", "v3", "v4")


def five_values_eight_models(seed: int, *, drive: float, rest: float = -0.05, items: int = 20, runs: int = 2,
                             sd: float = 0.3) -> list[dict]:
    """Five values under eight models; m0's gap against 'v0' is ``drive`` on every other value, the rest's
    ``rest``; each item has its own level."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        base = rng.normal(3, 1)
        for m in range(8):
            for v in VALUES:
                eff = 0.0 if v == "v0" else (drive if m == 0 else rest)
                for r in range(runs):
                    rows.append({"item": f"q{i}", "model": f"m{m}", "variant": v, "seed": r,
                                 "score": base + eff + rng.normal(0, sd)})
    return rows


def two_by_two_five_models(seed: int, *, drive: float, rest: float = -0.05, items: int = 20, runs: int = 2,
                           sd: float = 0.3) -> list[dict]:
    """A 2 x 2 design (style formal/casual x name Emily/Greg) under five models that answered every cell; m0's
    style gap (formal - casual) is ``drive``, the rest's ``rest``; no name effect; each item has its own level."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        base = rng.normal(3, 1)
        for m in range(5):
            for style in ("formal", "casual"):
                for name in ("Emily", "Greg"):
                    eff = (drive if m == 0 else rest) if style == "formal" else 0.0
                    for r in range(runs):
                        rows.append({"item": f"q{i}", "model": f"m{m}", "style": style, "name": name, "seed": r,
                                     "score": base + eff + rng.normal(0, sd)})
    return rows


def read(result) -> tuple[bool, list[str], bool]:
    """(the models said to disagree, the blocks named as drivers, every named one drives alone): from each pair of
    values' figures (many values), or each main effect's (two factors)."""
    caveat = next((c for c in result.verdict.caveats if c.id == "blocks_disagree"), None)
    if caveat is None:
        return False, [], False
    figures = caveat.figures.get("values") or caveat.figures.get("effects") or []
    drivers = [f["driving"] for f in figures if f.get("driving")]
    return True, [d["block"] for d in drivers], bool(drivers) and all(d["alone"] for d in drivers)


#: each mode's log and analysis: five values under eight models, or a 2 x 2 design under five models
MODES = {
    "many": (five_values_eight_models, dict(metric="score", reference="v0")),
    "factors": (two_by_two_five_models, dict(metric="score", factor=["style", "name"])),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--logs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-resamples", type=int, default=2000)
    parser.add_argument("--mode", choices=[*MODES, "both"], default="both")
    parser.add_argument("--shape", choices=["agree", "one drives", "both"], default="both")
    args = parser.parse_args()
    tests = probestats.Tests(n_resamples=args.n_resamples)
    print(f"{'mode':<8} {'shape':<12} {'logs':>5} {'disagree':>9} {'named':>7} {'se':>7} {'named m0':>9} "
          f"{'drives':>7}  s/log")
    for mode, shape, drive in ((m, s, d) for m in MODES if args.mode in (m, "both")
                               for s, d in (("agree", -0.05), ("one drives", -0.8)) if args.shape in (s, "both")):
        make, options = MODES[mode]
        said = named = m0 = alone = 0
        start = time.process_time()
        for k in range(args.logs):
            rows = make(args.seed * 100_000 + k, drive=drive)
            disagree, blocks, drives = read(probestats.analyze(rows, tests=tests, **options))
            said += disagree
            named += bool(blocks)
            m0 += blocks == ["m0"] * len(blocks) and bool(blocks)
            alone += drives
        n = args.logs
        rate = named / n
        se = math.sqrt(max(rate * (1 - rate), 1e-12) / n)
        print(f"{mode:<8} {shape:<12} {n:>5} {said / n:>9.3f} {rate:>7.3f} {se:>7.3f} {m0 / n:>9.3f} {alone / n:>7.3f}  "
              f"{(time.process_time() - start) / n:.2f}")


if __name__ == "__main__":
    main()
