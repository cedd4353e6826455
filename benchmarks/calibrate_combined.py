"""Calibration of the headline test where design features combine: on null logs, how often does it reject?

Each design feature (unequal runs, clusters, blocks, several metrics, many values) holds its level alone; this
prints, for generated null logs that combine two of them, the share of logs whose headline p (the p the verdict
rests on: ``result.pvalue``, or for several metrics the family's omnibus p) is at most alpha, with its Monte
Carlo standard error, and the test the headline named. It must be alpha +- 0.015 at 500 logs per shape.

Shapes (the gap's true average is zero in every one; metrics are written with one decimal):

- ``unequal runs + clusters``: 40 clusters of 5 items; each cluster shifts its items' gap by a normal draw of
  SD 1 (symmetric about zero); 1 run of 'a' against 3 of 'b' in every item (unequal by design);
- ``missing runs + clusters``: the same clusters, 4 runs of each value, 1% of the runs deleted at random;
- ``unequal runs + blocks``: 30 items, 4 models answering every item (a block, each at its own level), 1 run
  against 3;
- ``clusters + blocks``: 40 clusters of 5 items, 3 models answering every item;
- ``several metrics + blocks``: 3 correlated metrics, 20 items, 5 models as blocks; the family's omnibus p;
- ``many values + blocks``: 4 values, 20 items, 3 models as blocks; the omnibus p.

Beside each rate, ``ref`` is the rate of a **reference test on the same logs**, exact under the shapes' normal
errors (the metrics' rounding to one decimal aside) and independent of probestats (:func:`reference_p`): the
one-sample t test of the cluster gaps (the shapes with clusters) or of the item gaps (unequal runs + blocks),
Hotelling's T² of the items' three metric gaps, and the repeated-measures F of the item x value means (many
values). With 500 logs a rate's Monte Carlo standard error at alpha = 0.05 is 0.0097, so alpha +- 0.015 is
+-1.5 SE: an exact test falls outside it in about one row of eight by the draw of the logs alone. A rate
outside it whose reference is outside it too (the two rates close: they reject on largely the same logs,
``both``) is that draw; a rate outside it with its reference inside is the test's own. (The many-values row
once read 0.072 at seed 0: the F test rejected the same 36 of those 500 logs.)

Run: ``nice -n 10 python benchmarks/calibrate_combined.py [--logs 500] [--alpha 0.05] [--seed 0]
[--shapes NAME,...]`` (a few seconds per hundred logs of a shape, more for several metrics). Printed, not a
timed test.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import probestats  # noqa: E402
from probestats import Probe  # noqa: E402


def clustered(rng, *, runs_a: int, runs_b: int, clusters: int = 40, per: int = 5, drop: float = 0.0,
              models: int = 1) -> list[dict]:
    rows = []
    for c in range(clusters):
        shift = rng.normal(0, 1)
        for j in range(per):
            level = rng.normal(0, 1)
            for m in range(models):
                for v, runs in (("a", runs_a), ("b", runs_b)):
                    for s in range(runs):
                        y = level + rng.normal(0, 1) + (shift if v == "a" else 0.0)
                        rows.append({"item": f"{c}-{j}", "variant": v, "seed": s, "y": round(y, 1), "doc": f"d{c}",
                                     "model": f"m{m}"})
    if drop:
        keep = rng.random(len(rows)) >= drop
        rows = [r for r, k in zip(rows, keep) if k]
    return rows


def blocked(rng, *, runs_a: int, runs_b: int, items: int = 30, models: int = 4) -> list[dict]:
    rows = []
    for i in range(items):
        level = rng.normal(0, 1)
        for m in range(models):
            model_level = rng.normal(0, 0.5)   # models differ in level, not in the gap (the null within blocks)
            for v, runs in (("a", runs_a), ("b", runs_b)):
                for s in range(runs):
                    y = level + model_level + rng.normal(0, 1)
                    rows.append({"item": f"q{i}", "variant": v, "seed": s, "model": f"m{m}", "y": round(y, 1)})
    return rows


def metrics_blocked(rng, *, items: int = 20, models: int = 5) -> list[dict]:
    rows = []
    for i in range(items):
        level = rng.normal(0, 1)
        for m in range(models):
            for v in ("a", "b"):
                for s in range(2):
                    latent = level + rng.normal(0, 1)
                    rows.append({"item": f"q{i}", "variant": v, "seed": s, "model": f"m{m}",
                                 **{f"x{k}": round(latent + rng.normal(0, 0.5), 1) for k in range(3)}})
    return rows


def many_blocked(rng, *, items: int = 20, models: int = 3) -> list[dict]:
    rows = []
    for i in range(items):
        level = rng.normal(0, 1)
        for m in range(models):
            for v in ("a", "b", "c", "d"):
                for s in range(2):
                    rows.append({"item": f"q{i}", "variant": v, "seed": s, "model": f"m{m}",
                                 "y": round(level + rng.normal(0, 1), 1)})
    return rows


def headline(result) -> tuple[float, str]:
    """The p the verdict rests on, and the test it names."""
    if getattr(result, "joint", None) is not None:
        return result.joint.pvalue, "joint sign-flip (family omnibus)"
    if hasattr(result, "main") and hasattr(result.main, "omnibus"):
        return result.main.omnibus.pvalue, "within-item permutation omnibus"
    test = result.main.headline_test
    name = "permutation" if result.main.permutation is not None else "sign-flip"
    if getattr(result, "clusters", None) is not None:
        name = "sign-flip of whole clusters"
    return test.pvalue, name


def _gaps(rows: list[dict], metrics: list[str], unit: str) -> np.ndarray:
    """Per ``unit`` (the cluster ``doc`` or the ``item``), the mean over its items of each item's gap 'a' - 'b'
    (an item's gap the mean over its models of the model's mean 'a' - mean 'b'), one column per metric."""
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["item"], r["model"], r["variant"]), []).append([r[m] for m in metrics])
    per_item: dict = {}
    for (item, model, value), ys in cells.items():
        if value == "a" and (item, model, "b") in cells:
            gap = np.mean(ys, axis=0) - np.mean(cells[(item, model, "b")], axis=0)
            per_item.setdefault(item, []).append(gap)
    owner = {r["item"]: r.get("doc", r["item"]) if unit == "doc" else r["item"] for r in rows}
    per_unit: dict = {}
    for item, gaps in per_item.items():
        per_unit.setdefault(owner[item], []).append(np.mean(gaps, axis=0))
    return np.array([np.mean(g, axis=0) for g in per_unit.values()])


def reference_p(rows: list[dict], kind: str) -> float:
    """The p of a reference test of the shape's null on the log's rows, exact under normal errors (see the
    module docstring): ``"clusters"``, ``"items"``, ``"hotelling"`` or ``"anova"``."""
    if kind in ("clusters", "items"):
        return float(stats.ttest_1samp(_gaps(rows, ["y"], "doc" if kind == "clusters" else "item")[:, 0], 0.0).pvalue)
    if kind == "hotelling":
        g = _gaps(rows, ["x0", "x1", "x2"], "item")
        n, k = g.shape
        mean, cov = g.mean(axis=0), np.cov(g, rowvar=False)
        t2 = n * mean @ np.linalg.solve(cov, mean)
        return float(stats.f.sf(t2 * (n - k) / (k * (n - 1)), k, n - k))
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["item"], r["variant"], r["model"]), []).append(r["y"])
    items, values, models = (sorted({key[j] for key in cells}) for j in range(3))
    m = np.array([[np.mean([np.mean(cells[(i, v, b)]) for b in models]) for v in values] for i in items])
    n, v = m.shape
    resid = m - m.mean(axis=1, keepdims=True) - m.mean(axis=0) + m.mean()
    f = (n * np.sum((m.mean(axis=0) - m.mean()) ** 2) / (v - 1)) / (np.sum(resid ** 2) / ((v - 1) * (n - 1)))
    return float(stats.f.sf(f, v - 1, (v - 1) * (n - 1)))


#: the reference test of each shape (:func:`reference_p`)
REFERENCE = {"unequal runs + clusters": "clusters", "missing runs + clusters": "clusters",
             "unequal runs + blocks": "items", "clusters + blocks": "clusters",
             "several metrics + blocks": "hotelling", "many values + blocks": "anova"}


SHAPES = {
    "unequal runs + clusters": lambda rng: (clustered(rng, runs_a=1, runs_b=3), dict(metric="y", probe=Probe(cluster="doc"))),
    "missing runs + clusters": lambda rng: (clustered(rng, runs_a=4, runs_b=4, drop=0.01),
                                            dict(metric="y", probe=Probe(cluster="doc"))),
    "unequal runs + blocks": lambda rng: (blocked(rng, runs_a=1, runs_b=3), dict(metric="y")),
    "clusters + blocks": lambda rng: (clustered(rng, runs_a=2, runs_b=2, models=3),
                                      dict(metric="y", probe=Probe(cluster="doc"))),
    "several metrics + blocks": lambda rng: (metrics_blocked(rng), dict(metric=["x0", "x1", "x2"])),
    "many values + blocks": lambda rng: (many_blocked(rng), dict(metric="y")),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logs", type=int, default=500)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    args = parser.parse_args(argv)
    print(f"{'shape':<28} {'logs':>5} {'rejects':>8} {'rate':>7} {'+-2 SE':>7} {'ref':>6} {'both':>5}  headline test"
          f"   (alpha {args.alpha}; ref: a reference test on the same logs)")
    for name in [s.strip() for s in args.shapes.split(",") if s.strip()]:
        make = SHAPES[name]
        rng = np.random.default_rng(args.seed)
        hits, ref_hits, both, tests, start = 0, 0, 0, set(), time.perf_counter()
        for _ in range(args.logs):
            rows, options = make(rng)
            p, test = headline(probestats.analyze(rows, tests=probestats.Tests(n_resamples=2000), **options))
            ref = reference_p(rows, REFERENCE[name]) <= args.alpha
            hits += p <= args.alpha
            ref_hits += ref
            both += (p <= args.alpha) and ref
            tests.add(test)
        rate = hits / args.logs
        se = math.sqrt(args.alpha * (1 - args.alpha) / args.logs)
        print(f"{name:<28} {args.logs:>5} {hits:>8} {rate:>7.3f} {2 * se:>7.3f} {ref_hits / args.logs:>6.3f} "
              f"{both:>5}  {', '.join(sorted(tests))} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
