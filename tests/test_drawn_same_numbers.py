"""A drawn setting's faster computations give the numbers the plain ones give, to the last bit.

The balance test's p is compared with a permutation loop written here on the same draws (one
``Generator.random`` batch of 500 relabellings at a time, each item's labels handed out in the order of its
keys, the statistic by numpy means of the labelled runs); the smallest keys of each cell with a stable sort;
the Fourier bounds of the sign-flip p with the path that evaluates the last bound and the exact product
apart (still in :mod:`probestats.stats.fourier`, taken when the last subset is not every item), and the
bounds against every sign pattern enumerated on a tiny case. Logs of several shapes: unequal strata, a
stratum that holds one value only, ties in the setting and the metric, missing runs, a text setting.
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest

from probestats import Probe, analyze
from probestats.vocabulary import Tests
from probestats.analyses.drawn import balance_test
from probestats.stats import fourier
from probestats.stats.hypotests import sign_flip_test
from probestats.stats.ranked import smallest_in_cells


def drawn_log(shape: str, items: int = 24, runs: int = 6, gap: float = 0.4, seed: int = 3) -> pl.DataFrame:
    """A log with a temperature drawn per call, in one of several shapes."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        level = rng.normal(0, 1)
        for v in ("a", "b"):
            n = runs
            if shape == "missing":   # some cells lose runs, the first item all but one of its runs of b
                n = runs - int(rng.integers(0, 3)) if v == "a" else (1 if i == 0 else runs - int(rng.integers(0, 2)))
            if shape == "unequal":   # items of different sizes, a's runs fewer than b's in some
                n = 2 + (i % 4) + (i % 3 if v == "b" else 0)
            for s in range(n):
                if shape == "ties":   # few levels: the statistic ties the observed one in many draws
                    t = float(rng.choice([0.2, 0.6, 1.0]))
                elif shape == "one_value":   # the top level only ever runs 'a' in the first items
                    t = 1.4 if (v == "a" and i < 4 and s == 0) else round(float(rng.uniform(0, 1.2)), 1)
                else:
                    t = round(float(rng.uniform(0, 1.5)), 2)
                y = level + 2.0 * t + (gap if v == "a" else 0.0) + rng.normal(0, 1)
                y = round(y, 1) if shape == "ties" else y
                rows.append({"item": str(i), "variant": v, "seed": s, "temperature": t, "y": y})
    frame = pl.DataFrame(rows)
    if shape == "text":
        frame = frame.with_columns(pl.when(pl.col("temperature") < 0.5).then(pl.lit("low"))
                                   .when(pl.col("temperature") < 1.0).then(pl.lit("mid"))
                                   .otherwise(pl.lit("high")).alias("temperature"))
    if shape == "shuffled":   # the runs in no particular order: no item's runs of a come first
        frame = frame.sample(fraction=1.0, shuffle=True, seed=5)
    return frame


def reference_balance_p(frame: pl.DataFrame, column: str, a: str, b: str, n_resamples: int, seed: int) -> float:
    """The balance test's p from its definition, on the same draws: the runs of ``a`` and ``b`` with the setting,
    sorted by item (stably); per batch of 500 draws one ``rng.random((size, runs))``; in each draw every item's
    labels handed out, in their row order, to its runs in the order of their keys (a stable sort); the statistic
    |mean under a - mean under b| of the setting (or the chi-square of the value x level table)."""
    pair = frame.filter(pl.col("variant").is_in([a, b])).drop_nulls(column)
    items = pair["item"].cast(pl.String).to_numpy()
    order = sorted(range(len(items)), key=lambda r: items[r])   # Python's sort is stable
    pair = pair[order]
    _, codes = np.unique(pair["item"].cast(pl.String).to_numpy(), return_inverse=True)
    is_a = (pair["variant"] == a).to_numpy()
    numeric = pair[column].dtype.is_numeric()
    if numeric:
        x = pair[column].cast(pl.Float64).to_numpy()

        def stat(lab):
            return abs(x[lab].mean() - x[~lab].mean())
    else:
        levels = pair[column].cast(pl.String).to_numpy()
        names = sorted(set(levels.tolist()))

        def stat(lab):
            table = np.array([[np.sum(lab & (levels == lv)), np.sum(~lab & (levels == lv))] for lv in names], float)
            expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
            return float(((table - expected) ** 2 / expected).sum())
    observed = stat(is_a)
    rng = np.random.default_rng(seed)
    hits = 0
    for start in range(0, n_resamples, 500):
        keys = rng.random((min(500, n_resamples - start), len(is_a)))
        for row in keys:
            lab = np.empty(len(is_a), dtype=bool)
            for item in np.unique(codes):
                where = np.flatnonzero(codes == item)
                ranked = where[sorted(range(where.size), key=lambda j: row[where[j]])]
                lab[ranked] = is_a[where]
            hits += stat(lab) >= observed - 1e-9 * max(1.0, abs(observed))
    return (hits + 1) / (n_resamples + 1)


@pytest.mark.parametrize("shape", ["plain", "missing", "unequal", "ties", "one_value", "text", "shuffled"])
def test_the_balance_p_is_the_permutation_loop_on_the_same_draws(shape):
    frame = drawn_log(shape)
    test = balance_test(frame, "temperature", "a", "b", n_resamples=1200, seed=7)
    assert test.pvalue == reference_balance_p(frame, "temperature", "a", "b", 1200, 7)


def test_the_balance_p_decides_draws_at_the_observed_statistic_as_the_statistic_does():
    # two runs per item and value, temperatures 0 or 1: the mean gap takes few values and many draws tie the
    # observed one exactly, so the product's statistic and the plain one must count the same ties
    rng = np.random.default_rng(11)
    rows = [{"item": str(i), "variant": v, "seed": s, "temperature": float(rng.integers(0, 2)), "y": 1.0}
            for i in range(10) for v in ("a", "b") for s in range(2)]
    frame = pl.DataFrame(rows)
    for seed in (0, 1, 2):
        test = balance_test(frame, "temperature", "a", "b", n_resamples=700, seed=seed)
        assert test.pvalue == reference_balance_p(frame, "temperature", "a", "b", 700, seed)


def test_the_smallest_keys_of_each_cell_are_the_stable_sorts_even_with_ties_at_the_threshold():
    rng = np.random.default_rng(2)
    for trial in range(200):
        cells, size = int(rng.integers(1, 6)), int(rng.integers(1, 7))
        take = int(rng.integers(1, size + 1))
        keys = rng.integers(0, 4, cells * size).astype(float)   # few values: ties at the threshold are common
        got = smallest_in_cells(keys, np.full(cells, size), np.full(cells, take))
        want = np.zeros(keys.size, dtype=bool)
        for c in range(cells):
            ranked = sorted(range(size), key=lambda j: keys[c * size + j])   # stable
            want[[c * size + j for j in ranked[:take]]] = True
        assert got.tolist() == want.tolist(), (trial, keys, take)


def separate(monkeypatch):
    """Make the Fourier bounds evaluate the last bound and the exact product apart, as before."""
    plain = fourier._at_frequencies
    monkeypatch.setattr(fourier, "_at_frequencies", lambda t, dtype, bounds, exact, last=None:
                        plain(t, dtype, bounds, exact))


@pytest.mark.parametrize("n", [24, 128, 300])
def test_the_fourier_bounds_are_those_of_the_separate_evaluation(monkeypatch, n):
    rng = np.random.default_rng(n)
    cases = []
    for z in (0.5, 4.0, 8.0):   # a p near 1, a small one, one so small (about 1e-15) the tilted bounds are needed
        shift = z * 0.3 / np.sqrt(n)
        g = rng.normal(shift, 0.3, n)
        g[:3] = g[3:6]   # ties between gaps
        cases.append((g, abs(g.sum()) * (1 - 1e-9)))
    big = rng.normal(0, 0.3, n)
    big[0] = 40.0   # one gap that dominates: enumerated apart
    cases.append((big, 30.0))
    faster = [fourier.certified_bounds(g, x, True, 0.01, 0.0, 0.0) for g, x in cases]
    separate(monkeypatch)
    assert faster == [fourier.certified_bounds(g, x, True, 0.01, 0.0, 0.0) for g, x in cases]


def test_the_characteristic_functions_are_those_of_the_separate_evaluation(monkeypatch):
    rng = np.random.default_rng(4)
    for n in (200, 300):   # every item in the one subset, then a subset of 128 before every item
        g = rng.normal(0.2, 0.5, n)
        w = np.tanh(1.3 * g)
        plain, tilted = fourier._CharFn(g, 50.0), fourier._TiltedCharFn(g, w, 50.0)
        assert plain.subsets[-1] is plain.g and tilted.subsets[-1][0] is tilted.g   # the shared evaluation is taken
        fused = plain.upto(3000), tilted.upto(3000)   # low frequencies kept, high ones settled by the bounds
        with monkeypatch.context() as m:
            separate(m)
            apart = fourier._CharFn(g, 50.0).upto(3000), fourier._TiltedCharFn(g, w, 50.0).upto(3000)
        for (v1, e1), (v2, e2) in zip(fused, apart):
            assert np.array_equal(v1, v2) and np.array_equal(e1, e2)
            assert 0 < np.count_nonzero(v1) < v1.size   # some frequencies evaluated, some settled


def test_the_certified_bounds_hold_the_p_of_every_sign_pattern():
    rng = np.random.default_rng(8)
    g = rng.normal(0.25, 0.4, 14)
    x = abs(g.sum()) * (1 - 1e-9)
    sums = np.array([sum(s * v for s, v in zip(signs, g)) for signs in itertools.product((1, -1), repeat=g.size)])
    exact = float(np.mean(np.abs(sums) >= x))
    lower, upper, _ = fourier.certified_bounds(g, x, True, 0.01, 0.0, 0.0)
    assert lower <= exact <= upper and upper - lower <= 0.02 * upper + 1e-10


@pytest.mark.parametrize("shape", ["plain", "missing", "unequal", "ties", "one_value", "text"])
def test_the_drawn_setting_is_what_the_separate_evaluation_gives(monkeypatch, shape):
    # 48 items: more gaps than the sign-flip test enumerates, so its p comes from the Fourier bounds (tilted
    # where the gap is large)
    frame = drawn_log(shape, items=48, gap=0.8 if shape != "text" else 0.4)
    probe = Probe(random_settings=["temperature"])
    faster = analyze(frame, metric="y", probe=probe, tests=Tests(n_resamples=1000))
    separate(monkeypatch)
    before = analyze(frame, metric="y", probe=probe, tests=Tests(n_resamples=1000))
    assert [d.to_dict() for d in faster.drawn] == [d.to_dict() for d in before.drawn]
    (drawn,) = faster.drawn
    assert drawn.balance.pvalue == reference_balance_p(frame, "temperature", "a", "b", 1000, 0)
    gaps = drawn.stratified.items["gap"].to_list()
    assert drawn.stratified.sign_flip.pvalue == sign_flip_test(gaps, alpha=0.05).pvalue
