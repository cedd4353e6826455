"""Calibrate plan's minimum detectable gap: is the power promised the power a user gets?

For each generator of a metric (continuous, Poisson counts, counts whose items differ in rate,
Likert 1-5, 0/1 at rates 0.5 and 0.9; and the generators the plan was not tuned on: the tutorial's
stand-in (a latent level shifted and rounded, at least 1), a 0-100 rating with ties at round numbers,
0/1 rates near a ceiling (0.95) and a floor (0.05), overdispersed counts (negative binomial, variance 3
times the mean) whose rate changes, and a skewed continuous metric (lognormal) that a gap multiplies),
each size of the noise log's cells (2, 3, 5, 40 runs) and each design (8 items x 20 runs, 12 items x 5 runs):

1. draw a same-versus-same noise log from the generator (about ``--noise-runs`` runs in cells of
   m runs) and ask ``plan_probe`` for the MDG at power 0.8, alpha 0.05, two-sided, in both
   directions (``mdg_up``, ``mdg_down``);
2. draw ``--probes`` real probes from the generator with the true average gap set to the
   reported MDG (upward, then downward) and test each with the exact sign-flip test;
3. the realized power is the share with p <= alpha; for the headline (plan's default, ``mechanism="auto"``:
   the least promising of the ways the log leaves plausible) it should be 0.80 +/- 0.05 and never below
   0.75 (the plan promising more than the truth); beside it, each alternative mechanism's MDG and the
   realized power at it.

Steps 1-2 are repeated over ``--logs`` noise logs and averaged, so the table shows the
power a user gets on average (one noise log's sigma is itself an estimate).

The generators are written here, independently of plan's noise model: a gap is a change
of the generator's mean (a normal shifted; a Poisson rate raised; a latent normal shifted
before rounding and clipping to 1-5, by the amount that moves the mean by the gap; a 0/1
rate moved). "count gamma" gives every item its own rate, Gamma(4, 1), shared by both values,
and a gap raises each item's rate by the gap (each run Poisson(lambda_i + gap), stopping at 0),
or with ``--shift scale`` multiplies it by 1 + gap / 4. ``--mechanism`` is what plan is asked for
(default auto: plan reads it from the noise log).

The table prints, beside each mean, the spread (SD) of one noise log's realized power over
the ``--logs`` noise logs (it holds the probes' own Monte Carlo error, printed below).

``--tutorial`` runs the stand-in check instead: 8 items, 1 to 20 runs, true gaps 0.98 and 0.49 (latent shifts
1 and 0.5), noise logs of the tutorial's shape (16 cells of 20 runs): plan's predicted power at each gap
against the detection rate measured on probes drawn from the stand-in.

Run: python benchmarks/calibrate_plan.py [--quick] [--logs 10] [--mechanism auto|level|rate|scale]
     [--kinds "binary 0.9"] [--cell-sizes 2,3] [--designs 8x20]   (a subset of the grid)
     python benchmarks/calibrate_plan.py --tutorial [--logs 5]
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

from probestats.analyses.plan import Sizing, plan_probe
from probestats.vocabulary import Tests
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
STEPS_BASE, STEPS_SD = 4.0, 1.2          # the tutorial's stand-in: max(1, round(4 + 1.2 z)) steps
RATING_LOW, RATING_HIGH, RATING_SD, RATING_ROUND = 40.0, 85.0, 10.0, 0.7   # 0-100 ratings, 70% on multiples of 5
NB_MEAN, NB_SIZE = 4.0, 2.0              # overdispersed counts: negative binomial, variance 4 + 4^2 / 2 = 12
LOGNORMAL_MU, LOGNORMAL_SD = 1.0, 0.5    # a skewed continuous metric: exp(1 + 0.5 z)


def steps_mean(t: float) -> float:
    """E[max(1, round(4 + t + 1.2 z))], from the normal's mass per whole step."""
    m = STEPS_BASE + t
    j = np.arange(2, 80)
    mass = norm.cdf((j + 0.5 - m) / STEPS_SD) - norm.cdf((j - 0.5 - m) / STEPS_SD)
    return float(norm.cdf((1.5 - m) / STEPS_SD) + (j * mass).sum())


def steps_shift(gap: float) -> float | None:
    """The latent shift that moves the stand-in's mean steps by ``gap`` (None when out of reach)."""
    base = steps_mean(0.0)
    if gap <= 1.0 - base:
        return None
    return brentq(lambda t: steps_mean(t) - base - gap, -40, 40, xtol=1e-12)


_RATING_MU = RATING_LOW + (RATING_HIGH - RATING_LOW) * (np.arange(200) + 0.5) / 200   # quantiles of U(40, 85)


def rating_mean(t: float) -> float:
    """E[rating] over items (latent means uniform on 40-85) at a latent shift ``t``: the normal's mass on each
    value, rounded to a multiple of 5 with probability 0.7 (else to a whole number), clipped to 0-100."""
    m = _RATING_MU[:, None] + t

    def rounded(step):
        v = np.arange(0, 101, step, dtype=float)
        lo = np.where(v == 0, -np.inf, v - step / 2)
        hi = np.where(v == 100, np.inf, v + step / 2)
        mass = norm.cdf((hi - m) / RATING_SD) - norm.cdf((lo - m) / RATING_SD)
        return (mass * v).sum(axis=1)

    return float(np.mean(RATING_ROUND * rounded(5) + (1 - RATING_ROUND) * rounded(1)))


def rating_shift(gap: float) -> float | None:
    base = rating_mean(0.0)
    if not -base < gap < 100 - base:
        return None
    return brentq(lambda t: rating_mean(t) - base - gap, -300, 300, xtol=1e-10)


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
    if kind == "tutorial":
        def draw(rng, shape, gap):
            t = 0.0 if gap == 0 else steps_shift(gap)
            if t is None:
                return None
            return np.maximum(1.0, np.round(STEPS_BASE + t + STEPS_SD * rng.standard_normal(shape)))
        return Generator(draw)
    if kind == "rating 100":
        def draw(rng, shape, gap, mu):
            t = 0.0 if gap == 0 else rating_shift(gap)
            if t is None:
                return None
            x = mu[..., None] + t + RATING_SD * rng.standard_normal(shape)
            y = np.where(rng.random(shape) < RATING_ROUND, np.round(x / 5) * 5, np.round(x))
            return np.clip(y, 0, 100)
        return Generator(draw, lambda rng, shape: rng.uniform(RATING_LOW, RATING_HIGH, shape))
    if kind == "count nb":
        def draw(rng, shape, gap):
            mu = NB_MEAN + gap
            if mu <= 0:
                return None
            return rng.negative_binomial(NB_SIZE, NB_SIZE / (NB_SIZE + mu), shape).astype(float)
        return Generator(draw)
    if kind == "lognormal":
        mean = math.exp(LOGNORMAL_MU + LOGNORMAL_SD ** 2 / 2)
        return Generator(lambda rng, shape, gap: (np.exp(LOGNORMAL_MU + LOGNORMAL_SD * rng.standard_normal(shape))
                                                  * (1 + gap / mean)) if gap > -mean else None)
    if kind.startswith("binary"):
        rate = float(kind.split()[1])
        return Generator(lambda rng, shape, gap: ((rng.random(shape) < rate + gap).astype(float)
                                                  if 0 <= rate + gap <= 1 else None))
    raise ValueError(kind)


KINDS = ("continuous", "count", "count gamma", "likert", "binary 0.5", "binary 0.9")
#: generators this plan was not tuned on
HOLDOUT = ("tutorial", "rating 100", "binary 0.95", "binary 0.05", "count nb", "lognormal")
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
                   sims: int = 4000, probes: int = 4000, seed: int = 0, shift: str | None = None,
                   mechanism: str = "auto") -> dict:
    """Mean realized power at the reported MDG up and down over ``logs`` noise logs, and its spread.

    ``shift`` is how the generator's gap acts (additive, or scale for the generators that have one);
    ``mechanism`` what plan is asked for. Beside the headline (``power_up``, ``power_down``), each alternative
    mechanism plan simulated: its mean MDG and the realized power there (``alt``: {mechanism: {...}}), and which
    mechanisms headlined (``headline_up``, ``headline_down``)."""
    shift = shift or "additive"
    gen = generator(kind, shift)
    out = {"kind": kind, "m": m, "items": items, "runs": runs, "shift": shift, "mechanism": mechanism}
    found = {"up": [], "down": []}
    mdgs = {"up": [], "down": []}
    alt: dict = {}
    heads = {"up": set(), "down": set()}
    order = KINDS + HOLDOUT
    for log in range(logs):
        rng = np.random.default_rng([seed, log, m, items, order.index(kind) if kind in order else 99])
        cells = max(2, noise_runs // m)
        y = gen(rng, (cells, m), 0.0).ravel()
        frame = pl.DataFrame({"item": np.repeat(np.arange(cells), m), "x": y})
        plan = plan_probe(frame, metric="x", items=items, runs=runs, tests=Tests(alpha=ALPHA, seed=log),
                          sizing=Sizing(power=TARGET, heterogeneity=0.0, mechanism=mechanism, sims=sims,
                                        mdg_range=False))
        cell = plan.cells[0]
        for name, size, sign, head in (("up", cell.mdg_up, 1.0, cell.mechanism_up),
                                       ("down", cell.mdg_down, -1.0, cell.mechanism_down)):
            if size is None or not math.isfinite(size):
                continue
            heads[name].add(head)
            r = realized_power(gen, rng, items, runs, sign * size, probes)
            if r is not None:
                found[name].append(r)
                mdgs[name].append(size)
        for other in cell.by_mechanism:
            for name, size, sign, head in (("up", other.mdg_up, 1.0, cell.mechanism_up),
                                           ("down", other.mdg_down, -1.0, cell.mechanism_down)):
                if other.mechanism == head or size is None or not math.isfinite(size):
                    continue
                r = realized_power(gen, rng, items, runs, sign * size, probes)
                if r is not None:
                    slot = alt.setdefault(other.mechanism, {}).setdefault(name, {"mdg": [], "power": []})
                    slot["mdg"].append(size)
                    slot["power"].append(r)
    out["headline_up"] = "/".join(sorted(x for x in heads["up"] if x)) or "-"
    out["headline_down"] = "/".join(sorted(x for x in heads["down"] if x)) or "-"
    out["alt"] = {mech: {name: (float(np.mean(v["mdg"])), float(np.mean(v["power"]))) for name, v in d.items()}
                  for mech, d in alt.items()}
    for name in ("up", "down"):
        out[f"mdg_{name}"] = float(np.mean(mdgs[name])) if mdgs[name] else None
        out[f"power_{name}"] = float(np.mean(found[name])) if found[name] else None
        # the spread of one noise log's realized power (it holds the probes' own Monte Carlo SE too)
        out[f"sd_{name}"] = float(np.std(found[name], ddof=1)) if len(found[name]) > 1 else None
        out[f"reached_{name}"] = len(found[name])
    out["se"] = math.sqrt(TARGET * (1 - TARGET) / (probes * logs))
    return out


def tutorial(logs: int, sims: int, probes: int, seed: int = 0) -> None:
    """The stand-in check: plan's predicted power at gaps 0.98 and 0.49 against detection rates on the stand-in."""
    runs = (1, 2, 3, 5, 10, 20)
    gen = generator("tutorial")
    print(f"tutorial stand-in: 8 items, noise logs of 16 cells x 20 runs (mean over {logs}), plan sims {sims}, "
          f"{probes} probes per point; predicted (headline, and each mechanism) against measured")
    worst = 0.0
    for gap in (steps_mean(0.0) - steps_mean(-1.0), steps_mean(0.0) - steps_mean(-0.5)):
        predicted: dict = {}
        heads = set()
        for log in range(logs):
            rng = np.random.default_rng([seed, log, 41])
            y = gen(rng, (16, 20), 0.0).ravel()
            frame = pl.DataFrame({"item": np.repeat(np.arange(16), 20), "x": y})
            for mech in ("auto", "level", "rate"):
                plan = plan_probe(frame, metric="x", items=8, runs=list(runs), gap=gap, tests=Tests(seed=log),
                                  sizing=Sizing(heterogeneity=0.0, mechanism=mech, sims=sims, mdg_range=False))
                predicted.setdefault(mech, []).append([c.power for c in plan.cells])
                if mech == "auto":
                    heads |= {c.mechanism_power for c in plan.cells}
        rng = np.random.default_rng([seed, 4141])
        measured = [realized_power(gen, rng, 8, k, gap, probes) for k in runs]
        print(f"\ntrue gap {gap:.3f} (headline mechanism: {'/'.join(sorted(heads))})")
        print(f"{'runs':>14} " + " ".join(f"{k:>6}" for k in runs))
        print(f"{'measured':>14} " + " ".join(f"{x:6.3f}" for x in measured))
        for mech, rows in predicted.items():
            mean = np.mean(rows, axis=0)
            print(f"{'plan ' + mech:>14} " + " ".join(f"{x:6.3f}" for x in mean))
            if mech == "auto":
                worst = max(worst, float(np.max(np.abs(mean - np.array(measured)))))
    print(f"\nworst |headline - measured|: {worst:.3f} (Monte Carlo SE of a measured rate at most "
          f"{math.sqrt(0.25 / probes):.3f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="two noise logs and 2,000 probes per point")
    ap.add_argument("--logs", type=int, default=10)
    ap.add_argument("--sims", type=int, default=4000)
    ap.add_argument("--probes", type=int, default=4000)
    ap.add_argument("--noise-runs", type=int, default=4000)
    ap.add_argument("--shift", choices=("additive", "scale"), default=None,
                    help="how the generators' gap acts (default: additive)")
    ap.add_argument("--mechanism", choices=("auto", "level", "rate", "scale"), default="auto",
                    help="what plan is asked for (default: auto, read from the noise log)")
    ap.add_argument("--kinds", default=",".join(KINDS + HOLDOUT))
    ap.add_argument("--cell-sizes", default=",".join(map(str, CELLS)),
                    help="runs per noise-log cell to calibrate (default: all of %(default)s)")
    ap.add_argument("--designs", default=",".join(f"{i}x{k}" for i, k in DESIGNS),
                    help="designs ITEMSxRUNS to calibrate (default: %(default)s)")
    ap.add_argument("--tutorial", action="store_true", help="the tutorial stand-in check instead")
    args = ap.parse_args()
    if args.quick:
        args.logs, args.sims, args.probes = 2, 2000, 2000
    if args.tutorial:
        tutorial(args.logs, args.sims, args.probes)
        return
    kinds = [k.strip() for k in args.kinds.split(",")]
    cell_sizes = [int(m) for m in args.cell_sizes.split(",")]
    designs = [tuple(int(x) for x in d.lower().split("x")) for d in args.designs.split(",")]
    print(f"plan calibration: realized power of the exact sign-flip test at the reported MDG "
          f"(target {TARGET}, alpha {ALPHA}, two-sided; generators' gap {args.shift or 'additive'}, plan asked for "
          f"{args.mechanism}); mean over {args.logs} noise log(s) of ~{args.noise_runs} runs, plan sims {args.sims}, "
          f"{args.probes} probes per point. ok: the headline within 0.80 +/- 0.05 (never below 0.75)")
    head = f"{'generator':<12} {'cell m':>6} {'design':>7} {'headline':>11} {'MDG up':>8} {'power up':>9} {'sd':>6} " \
           f"{'MDG down':>9} {'power down':>10} {'sd':>6}  ok  alternatives (MDG: realized power)"
    print(head)
    print("-" * len(head))
    worst = 0.0
    start = time.perf_counter()
    for kind in kinds:
        for m in cell_sizes:
            for items, runs in designs:
                r = calibrate_cell(kind, m, items, runs, logs=args.logs, noise_runs=args.noise_runs,
                                   sims=args.sims, probes=args.probes, shift=args.shift, mechanism=args.mechanism)
                ok = []
                for name in ("up", "down"):
                    if r[f"power_{name}"] is not None:
                        dev = abs(r[f"power_{name}"] - TARGET)
                        worst = max(worst, dev)
                        ok.append(dev <= 0.05)
                fmt = lambda x, spec: "never" if x is None else format(x, spec)  # noqa: E731
                alts = "; ".join(f"{mech} " + ", ".join(f"{d} {v[0]:.3g}: {v[1]:.3f}" for d, v in dirs.items())
                                 for mech, dirs in r["alt"].items())
                heads = f"{r['headline_up']}|{r['headline_down']}"
                print(f"{kind:<12} {m:>6} {f'{items}x{runs}':>7} {heads:>11} {fmt(r['mdg_up'], '.4g'):>8} "
                      f"{fmt(r['power_up'], '.3f'):>9} {fmt(r['sd_up'], '.3f'):>6} {fmt(r['mdg_down'], '.4g'):>9} "
                      f"{fmt(r['power_down'], '.3f'):>10} {fmt(r['sd_down'], '.3f'):>6}  "
                      f"{'yes' if all(ok) else 'NO '} {alts}", flush=True)
    print(f"\nworst |realized - {TARGET}| of the headline over reachable cells: {worst:.3f} "
          f"(Monte Carlo SE of a mean realized power about {math.sqrt(0.16 / (args.probes * args.logs)):.3f}; "
          f"per-log sd: the spread of one noise log's realized power, its {math.sqrt(0.16 / args.probes):.3f} "
          f"Monte Carlo SE included); {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
