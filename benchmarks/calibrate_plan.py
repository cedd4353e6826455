"""Calibrate plan's minimum detectable gap: is the power promised the power a user gets?

For each generator of a metric (continuous, Poisson counts, counts whose items differ in rate,
Likert 1-5, 0/1 at rates 0.5
and 0.9), each size of the noise log's cells (2, 3, 5, 40 runs) and each design (8 items x 20
runs, 12 items x 5 runs):

1. draw a same-versus-same noise log from the generator (about ``--noise-runs`` runs in cells of
   m runs) and ask ``plan_probe`` for the MDG at power 0.8, alpha 0.05, two-sided, in both
   directions (``mdg_up``, ``mdg_down``);
2. draw ``--probes`` real probes from the generator with the true average gap set to the
   reported MDG (upward, then downward) and test each with the exact sign-flip test;
3. the realized power is the share with p <= alpha; it should be 0.80 +/- 0.03.

Steps 1-2 are repeated over ``--logs`` noise logs and averaged, so the table shows the
power a user gets on average (one noise log's sigma is itself an estimate).

The generators are written here, independently of plan's noise model: a gap is a change
of the generator's mean (a normal shifted; a Poisson rate raised; a latent normal shifted
before rounding and clipping to 1-5, by the amount that moves the mean by the gap; a 0/1
rate moved). "count gamma" gives every item its own rate, Gamma(4, 1), shared by both values,
and a gap raises each item's rate by the gap (each run Poisson(lambda_i + gap), stopping at 0),
or with ``--shift scale`` multiplies it by 1 + gap / 4. plan is asked for the gap model the
generators follow (``--shift``, default additive: a count's rate plus the gap).

The table prints, beside each mean, the spread (SD) of one noise log's realized power over
the ``--logs`` noise logs (it holds the probes' own Monte Carlo error, printed below).

Run: python benchmarks/calibrate_plan.py [--quick] [--logs 10] [--shift additive|scale]
     [--kinds "binary 0.9"] [--cell-sizes 2,3] [--designs 8x20]   (a subset of the grid)
"""

from __future__ import annotations

import sys
from pathlib import Path

# the checkout's own probestats, not an installed copy of another version (the script's folder is what
# Python puts first on the path)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse
import math
import time

import numpy as np
import polars as pl
from scipy.optimize import brentq
from scipy.stats import norm

from probestats.analyses.plan import plan_probe
from probestats.stats.hypotests import sign_flip_pvalues

ALPHA, TARGET = 0.05, 0.80
LIKERT_MU, LIKERT_SD = 3.0, 1.1


def likert_mean(mu: float) -> float:
    """E[clip(round(mu + sd z), 1, 5)], from the normal's mass per step."""
    edges = np.array([-np.inf, 1.5, 2.5, 3.5, 4.5, np.inf])
    mass = np.diff(norm.cdf((edges - mu) / LIKERT_SD))
    return float((np.arange(1, 6) * mass).sum())


def likert_shift(gap: float) -> float | None:
    """The latent shift that moves the Likert mean by ``gap`` (None when out of reach)."""
    base = likert_mean(LIKERT_MU)
    if not 1 - base < gap < 5 - base:
        return None
    f = lambda t: likert_mean(LIKERT_MU + t) - base - gap  # noqa: E731
    return brentq(f, -40, 40, xtol=1e-12)


GAMMA_SHAPE, GAMMA_SCALE = 4.0, 1.0     # heterogeneous counts: item rates Gamma(4, 1), mean 4


class Generator:
    """A metric's runs: ``latent(rng, shape)`` draws each item's own level (None: items alike), and
    ``draw(rng, shape, gap, latent)`` the runs of those items with the mean moved by ``gap`` (None when
    unreachable). ``shape`` is ``(..., items, runs)``; ``latent`` has the shape without the runs."""

    def __init__(self, draw, latent=None):
        self._draw, self._latent = draw, latent

    def latent(self, rng, shape):
        return None if self._latent is None else self._latent(rng, shape)

    def draw(self, rng, shape, gap, latent=None):
        return self._draw(rng, shape, gap) if self._latent is None else self._draw(rng, shape, gap, latent)

    def __call__(self, rng, shape, gap):
        """Runs of fresh items (each cell of ``shape[:-1]`` one item)."""
        return self.draw(rng, shape, gap, self.latent(rng, shape[:-1]))


def generator(kind: str, shift_model: str = "additive") -> Generator:
    """The generator of ``kind``, its gap following ``shift_model``."""
    if kind == "continuous":
        mean, sd = 5.0, 1.5
        if shift_model == "scale":
            return Generator(lambda rng, shape, gap: (mean + sd * rng.standard_normal(shape)) * (1 + gap / mean))
        return Generator(lambda rng, shape, gap: mean + gap + sd * rng.standard_normal(shape))
    if kind == "count":
        lam = 4.0
        if shift_model == "scale":
            return Generator(lambda rng, shape, gap: rng.poisson(lam * (1 + gap / lam), shape).astype(float)
                             if lam + gap > 0 else None)
        return Generator(lambda rng, shape, gap: rng.poisson(lam + gap, shape).astype(float) if lam + gap > 0 else None)
    if kind == "count gamma":
        # items differ in rate (Gamma(4, 1)); a gap raises (lowers) every item's rate by gap, stopping at 0,
        # or with the scale model multiplies it by 1 + gap / 4 (4: the mean rate)
        def rates(lam, gap):
            if shift_model == "scale":
                return lam * max(0.0, 1 + gap / (GAMMA_SHAPE * GAMMA_SCALE))
            return np.maximum(lam + gap, 0.0)

        def draw(rng, shape, gap, lam):
            return rng.poisson(np.broadcast_to(rates(lam, gap)[..., None], shape)).astype(float)

        return Generator(draw, lambda rng, shape: rng.gamma(GAMMA_SHAPE, GAMMA_SCALE, shape))
    if kind == "likert":
        def draw(rng, shape, gap):
            t = 0.0 if gap == 0 else likert_shift(gap)
            if t is None:
                return None
            return np.clip(np.round(LIKERT_MU + t + LIKERT_SD * rng.standard_normal(shape)), 1, 5)
        return Generator(draw)
    if kind.startswith("binary"):
        rate = float(kind.split()[1])
        return Generator(lambda rng, shape, gap: ((rng.random(shape) < rate + gap).astype(float)
                                                  if 0 <= rate + gap <= 1 else None))
    raise ValueError(kind)


KINDS = ("continuous", "count", "count gamma", "likert", "binary 0.5", "binary 0.9")
CELLS = (2, 3, 5, 40)
DESIGNS = ((8, 20), (12, 5))


def realized_power(gen: Generator, rng, items: int, runs: int, gap: float, probes: int) -> float | None:
    """Share of probes (value a's mean moved by ``gap``) whose exact sign-flip p is <= alpha.

    Each probe has fresh items; an item's own level (its rate, say) is the same under both values."""
    latent = gen.latent(rng, (probes, items))
    a = gen.draw(rng, (probes, items, runs), gap, latent)
    if a is None:
        return None
    b = gen.draw(rng, (probes, items, runs), 0.0, latent)
    gaps = a.mean(axis=2) - b.mean(axis=2)
    return float(np.mean(sign_flip_pvalues(gaps) <= ALPHA * (1 + 1e-12)))


def calibrate_cell(kind: str, m: int, items: int, runs: int, *, logs: int = 10, noise_runs: int = 4000,
                   sims: int = 4000, probes: int = 4000, seed: int = 0, shift: str | None = None) -> dict:
    """Mean realized power at the reported MDG up and down over ``logs`` noise logs, and its spread."""
    shift = shift or "additive"
    gen = generator(kind, shift)
    out = {"kind": kind, "m": m, "items": items, "runs": runs, "shift": shift}
    found = {"up": [], "down": []}
    mdgs = {"up": [], "down": []}
    for log in range(logs):
        rng = np.random.default_rng([seed, log, m, items, KINDS.index(kind)])
        cells = max(2, noise_runs // m)
        y = gen(rng, (cells, m), 0.0).ravel()
        frame = pl.DataFrame({"item": np.repeat(np.arange(cells), m), "x": y})
        plan = plan_probe(frame, metric="x", items=items, runs=runs, heterogeneity=0.0, alpha=ALPHA,
                          power=TARGET, sims=sims, seed=log, shift=shift, mdg_range=False)
        cell = plan.cells[0]
        for name, size, sign in (("up", cell.mdg_up, 1.0), ("down", cell.mdg_down, -1.0)):
            if size is None or not math.isfinite(size):
                continue
            r = realized_power(gen, rng, items, runs, sign * size, probes)
            if r is not None:
                found[name].append(r)
                mdgs[name].append(size)
    for name in ("up", "down"):
        out[f"mdg_{name}"] = float(np.mean(mdgs[name])) if mdgs[name] else None
        out[f"power_{name}"] = float(np.mean(found[name])) if found[name] else None
        # the spread of one noise log's realized power (it holds the probes' own Monte Carlo SE too)
        out[f"sd_{name}"] = float(np.std(found[name], ddof=1)) if len(found[name]) > 1 else None
        out[f"reached_{name}"] = len(found[name])
    out["se"] = math.sqrt(TARGET * (1 - TARGET) / (probes * logs))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="two noise logs and 2,000 probes per point")
    ap.add_argument("--logs", type=int, default=10)
    ap.add_argument("--sims", type=int, default=4000)
    ap.add_argument("--probes", type=int, default=4000)
    ap.add_argument("--noise-runs", type=int, default=4000)
    ap.add_argument("--shift", choices=("additive", "scale"), default=None,
                    help="the gap model plan is asked for and the generators follow (default: additive)")
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--cell-sizes", default=",".join(map(str, CELLS)),
                    help="runs per noise-log cell to calibrate (default: all of %(default)s)")
    ap.add_argument("--designs", default=",".join(f"{i}x{k}" for i, k in DESIGNS),
                    help="designs ITEMSxRUNS to calibrate (default: %(default)s)")
    args = ap.parse_args()
    if args.quick:
        args.logs, args.sims, args.probes = 2, 2000, 2000
    kinds = [k.strip() for k in args.kinds.split(",")]
    cell_sizes = [int(m) for m in args.cell_sizes.split(",")]
    designs = [tuple(int(x) for x in d.lower().split("x")) for d in args.designs.split(",")]
    print(f"plan calibration: realized power of the exact sign-flip test at the reported MDG "
          f"(target {TARGET}, alpha {ALPHA}, two-sided, shift {args.shift or 'additive'}); mean over {args.logs} noise log(s) of "
          f"~{args.noise_runs} runs, plan sims {args.sims}, {args.probes} probes per point")
    head = f"{'generator':<12} {'shift':>8} {'cell m':>6} {'design':>7} {'MDG up':>8} {'power up':>9} {'sd':>7} " \
           f"{'MDG down':>9} {'power down':>10} {'sd':>7}  ok"
    print(head)
    print("-" * len(head))
    worst = 0.0
    start = time.perf_counter()
    for kind in kinds:
        for m in cell_sizes:
            for items, runs in designs:
                r = calibrate_cell(kind, m, items, runs, logs=args.logs, noise_runs=args.noise_runs,
                                   sims=args.sims, probes=args.probes, shift=args.shift)
                ok = []
                for name in ("up", "down"):
                    if r[f"power_{name}"] is not None:
                        dev = abs(r[f"power_{name}"] - TARGET)
                        worst = max(worst, dev)
                        ok.append(dev <= 0.03)
                fmt = lambda x, spec: "never" if x is None else format(x, spec)  # noqa: E731
                print(f"{kind:<12} {r['shift']:>8} {m:>6} {f'{items}x{runs}':>7} {fmt(r['mdg_up'], '.4g'):>8} "
                      f"{fmt(r['power_up'], '.3f'):>9} {fmt(r['sd_up'], '.3f'):>7} {fmt(r['mdg_down'], '.4g'):>9} "
                      f"{fmt(r['power_down'], '.3f'):>10} {fmt(r['sd_down'], '.3f'):>7}  "
                      f"{'yes' if all(ok) else 'NO'}", flush=True)
    print(f"\nworst |realized - {TARGET}| over reachable cells: {worst:.3f} "
          f"(Monte Carlo SE of a mean realized power about {math.sqrt(0.16 / (args.probes * args.logs)):.3f}; "
          f"per-log sd: the spread of one noise log's realized power, its {math.sqrt(0.16 / args.probes):.3f} "
          f"Monte Carlo SE included); {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
