"""Does plan keep its promise? Promised minus realized power on five generators at once.

The successor of ``calibrate_plan.py``'s MDG grid for the figures a user reads off a plan with a gap: for each
generator, a noise log (and, where the generator has one, a pilot) is drawn, ``plan_probe`` is asked for the
power of 2 x 4 designs at the generator's gap, and ``--probes`` real probes of each design are drawn from the
generator and tested with the exact sign-flip test (alpha 0.05, two-sided). The table prints the promise, the
power realized, and their difference, averaged over ``--logs`` noise logs (and pilots). For a plan with a pilot it
also prints the power at the ends of the pilot's interval on tau and how often the realized power lies between
them (the range "for what this pilot can tell"), within two Monte Carlo standard errors.

The five generators (written here, independently of plan's noise model):

- ``stand-in``: the tutorial's stand-in, max(1, round(4 + t + 1.2 z)) steps, gap 0.98 (a latent shift t = 1);
  noise logs of the tutorial's shape (16 cells x 20 runs); tau stated 0 (the truth).
- ``tutorial pilot``: the tutorial as run: the sample logs' stand-in, min(13, max(1, round(4 + 1.28 z))) steps for
  value b and the same from 5 for value a (one planted gap on every item), noise logs of its shape and a pilot of
  8 items x 2 values x 20 runs; plan's tau from the pilot (the truth is 0).
- ``0/1``: item rates 0.3 + 0.15 z (clipped to 0.02-0.98), a gap raises each item's rate by 0.1; noise logs of
  200 items x 2 values x 3 runs; tau stated 0.
- ``counts one gap``: negative-binomial counts (size 0.5), item means Gamma(2, 1) (about 2, values 0-45 and
  more), a gap of 1 raises every item's mean by 1; noise logs of 100 items x 2 values x 10 runs; tau stated 0.
- ``counts rate gap``: the same counts, a gap multiplies each item's mean by 1 + g / 2 (so it grows with the
  item's rate: the items' gaps spread about 0.8 at g = 1.13); a pilot of 20 items x 2 values x 5 runs; plan's tau
  from the pilot.

Run: python benchmarks/calibrate_promises.py [--probes 1000] [--logs 3] [--sims 2000] [--kinds "stand-in,0/1"]
     [--items 8,12] [--runs 1,2]   (other designs than each generator's 2 x 4)
     python benchmarks/calibrate_promises.py --stand-in-8x1   (the 8-item, 1-run stand-in design at gap 0.98)
"""

from __future__ import annotations

import sys
from pathlib import Path

# the checkout's own probestats, not an installed copy of another version
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse
import math
import time

import numpy as np
import polars as pl

from probestats.analyses.plan import Sizing, plan_probe
from probestats.stats.hypotests import sign_flip_pvalues
from probestats.vocabulary import Tests

ALPHA = 0.05
STEPS_BASE, STEPS_SD = 4.0, 1.2
NB_SIZE = 0.5
RATE_GAP = 1.13


def steps(rng, shape, shift):
    """The stand-in: max(1, round(4 + shift + 1.2 z)); ``shift`` broadcasts over the runs (last axis)."""
    return np.maximum(1.0, np.round(STEPS_BASE + np.asarray(shift)[..., None] + STEPS_SD * rng.standard_normal(shape)))


def steps_mean(t) -> np.ndarray:
    """E[max(1, round(4 + t + 1.2 z))] for each latent shift ``t``, from the normal's mass per whole step."""
    from scipy.stats import norm

    m = STEPS_BASE + np.asarray(t, dtype=float)[..., None]
    j = np.arange(2, 80)
    mass = norm.cdf((j + 0.5 - m) / STEPS_SD) - norm.cdf((j - 0.5 - m) / STEPS_SD)
    return norm.cdf((1.5 - m[..., 0]) / STEPS_SD) + (j * mass).sum(axis=-1)


def nb(rng, mu, runs):
    """Negative-binomial counts of size :data:`NB_SIZE` at each item's mean ``mu`` (shape ``(..., items)``)."""
    mu = np.broadcast_to(np.asarray(mu, dtype=float)[..., None], mu.shape + (runs,))
    return rng.negative_binomial(NB_SIZE, NB_SIZE / (NB_SIZE + mu)).astype(float)


class Gen:
    """A generator: ``level(rng, shape)`` draws items' own levels, ``runs(rng, level, runs, gap_on)`` their runs under
    value a (``gap_on``) or b, ``gap`` the true average gap, ``noise_shape`` (items, runs per value) of its noise log,
    ``pilot_shape`` that of its pilot (None: tau stated 0, the truth)."""

    def __init__(self, name, level, runs, gap, noise_shape, pilot_shape=None, items=(12, 20),
                 design_runs=(1, 2, 5, 10)):
        self.name, self.level, self.runs, self.gap = name, level, runs, gap
        self.noise_shape, self.pilot_shape = noise_shape, pilot_shape
        self.items, self.design_runs = items, design_runs

    def log(self, rng, items, runs, values, gap_on):
        lev = self.level(rng, (items,))
        a = self.runs(rng, lev, runs, gap_on)
        b = self.runs(rng, lev, runs, False)
        y = np.concatenate([a, b], axis=1).ravel()
        return pl.DataFrame({"item": np.repeat(np.arange(items), 2 * runs),
                             "variant": np.tile(np.repeat(list(values), runs), items), "x": y})

    def realized(self, rng, items, runs, probes) -> float:
        lev = self.level(rng, (probes, items))
        a = self.runs(rng, lev, runs, True).mean(axis=-1)
        b = self.runs(rng, lev, runs, False).mean(axis=-1)
        return float(np.mean(sign_flip_pvalues(a - b) <= ALPHA * (1 + 1e-12)))


def generators() -> dict[str, Gen]:
    # the stand-in: items alike, one latent shift of 1
    gap_standin = float(steps_mean(1.0) - steps_mean(0.0))
    standin = Gen("stand-in", lambda rng, shape: np.zeros(shape),
                  lambda rng, lev, k, on: steps(rng, lev.shape + (k,), lev + (1.0 if on else 0.0)),
                  gap_standin, (8, 20), items=(8, 12))
    # the tutorial as run with its pilot: the sample logs' stand-in (min(13, max(1, round(5 - 1 + 1.28 z))) steps for
    # a casual request, the same with 5 for a formal one: one planted gap of 1 on every item), a pilot of its shape
    def tutorial_steps(rng, shape, base):
        return np.minimum(13.0, np.maximum(1.0, np.round(base + 1.28 * rng.standard_normal(shape))))

    def tutorial_mean(base):
        """E[min(13, max(1, round(base + 1.28 z)))], from the normal's mass per whole step."""
        from scipy.stats import norm

        j = np.arange(1, 14)
        lo = np.where(j == 1, -np.inf, j - 0.5)
        hi = np.where(j == 13, np.inf, j + 0.5)
        return float((j * (norm.cdf((hi - base) / 1.28) - norm.cdf((lo - base) / 1.28))).sum())

    gap_tutorial = tutorial_mean(5.0) - tutorial_mean(4.0)
    tutorial = Gen("tutorial pilot", lambda rng, shape: np.zeros(shape),
                   lambda rng, lev, k, on: tutorial_steps(rng, lev.shape + (k,), 5.0 if on else 4.0),
                   gap_tutorial, (8, 20), pilot_shape=(8, 20), items=(8, 12))
    # a 0/1 metric: item rates 0.3 + 0.15 z, a gap of 0.1 on every item's rate (within 0-1)
    binary = Gen("0/1", lambda rng, shape: np.clip(0.3 + 0.15 * rng.standard_normal(shape), 0.02, 0.98),
                 lambda rng, lev, k, on: (rng.random(lev.shape + (k,))
                                          < np.minimum(lev + (0.1 if on else 0.0), 1.0)[..., None]).astype(float),
                 0.1, (200, 3))
    # skewed counts: negative binomial, item means Gamma(2, 1)
    one_gap = Gen("counts one gap", lambda rng, shape: rng.gamma(2.0, 1.0, shape),
                  lambda rng, lev, k, on: nb(rng, lev + (1.0 if on else 0.0), k), 1.0, (100, 10))
    rate_gap = Gen("counts rate gap", lambda rng, shape: rng.gamma(2.0, 1.0, shape),
                   lambda rng, lev, k, on: nb(rng, lev * (1 + RATE_GAP / 2.0) if on else lev, k), RATE_GAP, (100, 10),
                   pilot_shape=(20, 5))
    return {g.name: g for g in (standin, tutorial, binary, one_gap, rate_gap)}


def run_generator(gen: Gen, logs: int, sims: int, probes: int, seed: int = 0) -> list[dict]:
    """Per design: the promise, its interval ends (with a pilot), the realized power, for each of ``logs`` logs."""
    rows = {}
    rng_truth = np.random.default_rng([seed, 7, len(gen.name)])
    truth = {(n, k): gen.realized(rng_truth, n, k, probes) for n in gen.items for k in gen.design_runs}
    for log in range(logs):
        rng = np.random.default_rng([seed, log, len(gen.name), sum(map(ord, gen.name))])
        noise = gen.log(rng, *gen.noise_shape, ("same", "same again"), False)
        pilot = None if gen.pilot_shape is None else gen.log(rng, *gen.pilot_shape, ("a", "b"), True)
        plan = plan_probe(noise, metric="x", items=list(gen.items), runs=list(gen.design_runs), gap=gen.gap,
                          pilot=pilot, tests=Tests(alpha=ALPHA, seed=log),
                          sizing=Sizing(heterogeneity=None if pilot is not None else 0.0, sims=sims, mdg_range=False))
        for c in plan.cells:
            r = rows.setdefault((c.items, c.runs), {"promised": [], "low": [], "high": [], "tau": []})
            r["promised"].append(c.power)
            r["tau"].append(plan.tau)
            if getattr(c, "power_tau_range", None) is not None:   # (a version without it: none)
                r["low"].append(c.power_tau_range[0])
                r["high"].append(c.power_tau_range[1])
    out = []
    for (n, k), r in rows.items():
        real = truth[(n, k)]
        # within two Monte Carlo standard errors (the realized power's and the plan's)
        slack = 2 * math.sqrt(max(real * (1 - real), 0.01) * (1 / probes + 1 / sims))
        inside = [lo - slack <= real <= hi + slack for lo, hi in zip(r["low"], r["high"])]
        out.append({"items": n, "runs": k, "promised": float(np.mean(r["promised"])), "realized": real,
                    "low": float(np.mean(r["low"])) if r["low"] else None,
                    "high": float(np.mean(r["high"])) if r["high"] else None,
                    "inside": (sum(inside), len(inside)) if inside else None, "tau": float(np.mean(r["tau"]))})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probes", type=int, default=1000, help="real probes per design (default %(default)s)")
    ap.add_argument("--logs", type=int, default=3, help="noise logs (and pilots) per generator (default %(default)s)")
    ap.add_argument("--sims", type=int, default=2000, help="plan's simulated probes per design (default %(default)s)")
    ap.add_argument("--kinds", default=None, help="comma-separated generators (default: all five)")
    ap.add_argument("--stand-in-8x1", action="store_true", help="only the stand-in's 8-item, 1-run design")
    ap.add_argument("--items", default=None, help="comma-separated item counts instead of each generator's two")
    ap.add_argument("--runs", default=None, help="comma-separated runs per value instead of each generator's four")
    args = ap.parse_args()
    gens = generators()
    names = list(gens) if args.kinds is None else [k.strip() for k in args.kinds.split(",")]
    for gen in gens.values():
        if args.items:
            gen.items = tuple(int(x) for x in args.items.split(","))
        if args.runs:
            gen.design_runs = tuple(int(x) for x in args.runs.split(","))
    if args.stand_in_8x1:
        names = ["stand-in"]
        gens["stand-in"].items, gens["stand-in"].design_runs = (8,), (1,)
    mc = math.sqrt(0.25 / args.probes)
    print(f"promised minus realized power of the exact sign-flip test (alpha {ALPHA}, two-sided), {args.logs} noise "
          f"log(s) per generator, plan sims {args.sims}, {args.probes} real probes per design (Monte Carlo SE of a "
          f"realized power at most {mc:.3f}); with a pilot, the power at the ends of its tau interval and how often "
          "the realized power lies between them (within two Monte Carlo SEs)")
    head = (f"{'generator':<16} {'design':>7} {'gap':>6} {'tau':>6} {'promised':>9} {'realized':>9} {'diff':>7} "
            f"{'pilot range':>13} {'inside':>7}")
    print(head)
    print("-" * len(head))
    start = time.perf_counter()
    worst = 0.0
    for name in names:
        gen = gens[name]
        for r in run_generator(gen, args.logs, args.sims, args.probes):
            diff = r["promised"] - r["realized"]
            worst = max(worst, abs(diff))
            rng_text = "-" if r["low"] is None else f"{r['low']:.3f}-{r['high']:.3f}"
            inside = "-" if r["inside"] is None else f"{r['inside'][0]}/{r['inside'][1]}"
            print(f"{name:<16} {str(r['items']) + 'x' + str(r['runs']):>7} {gen.gap:6.3f} {r['tau']:6.3f} "
                  f"{r['promised']:9.3f} {r['realized']:9.3f} {diff:+7.3f} {rng_text:>13} {inside:>7}", flush=True)
    print(f"\nworst |promised - realized|: {worst:.3f}; {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
