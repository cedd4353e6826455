"""The faster paths give the numbers of the paths they replace, exactly.

Each reference below is the previous code, kept here as it was: the balance test of a drawn setting sorted
every draw by (item, key) with ``np.lexsort`` over the whole draw (it now sorts each item's keys alone); the
exact mean of a combination of columns added one ``Fraction`` per value (it now sums whole numbers on the
binary lattice).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import numpy as np
import polars as pl
import pytest

from probestats.analyses.drawn import _within_items, balance_test
from probestats.stats.exact import binary_sum, mean_of_combination
from probestats.stats.ranked import smallest_in_cells


def lexsort_balance_p(frame: pl.DataFrame, column: str, a: str, b: str, n_resamples: int, seed: int) -> tuple:
    """The balance test's statistic and p as the previous code computed them (one lexsort per batch)."""
    pair = frame.filter(pl.col("variant").is_in([a, b])).select("item", "variant", column).drop_nulls([column])
    _, item_codes = np.unique(pair["item"].cast(pl.String).to_numpy(), return_inverse=True)
    rows = np.argsort(item_codes, kind="stable")
    pair, item_codes = pair[rows], item_codes[rows]
    is_a = (pair["variant"] == a).to_numpy()
    rng = np.random.default_rng(seed)
    if pair[column].dtype.is_numeric():
        x = pair[column].cast(pl.Float64).to_numpy()
        n_a, n_b = is_a.sum(), (~is_a).sum()

        def stat(labels):
            return np.abs((labels * x).sum(axis=-1) / n_a - ((~labels) * x).sum(axis=-1) / n_b)
    else:
        _, level_codes = np.unique(pair[column].cast(pl.String).to_numpy(), return_inverse=True)
        onehot = np.eye(level_codes.max() + 1)[level_codes]
        totals = onehot.sum(axis=0)
        expected_a = totals * is_a.sum() / len(is_a)
        expected_b = totals - expected_a

        def stat(labels):
            obs_a = labels.astype(float) @ onehot
            return (((obs_a - expected_a) ** 2 / expected_a).sum(axis=-1)
                    + (((totals - obs_a) - expected_b) ** 2 / expected_b).sum(axis=-1))
    observed = float(stat(is_a))
    tol = 1e-9 * max(1.0, abs(observed))
    hits = 0
    for start in range(0, n_resamples, 500):
        size = min(500, n_resamples - start)
        keys = rng.random((size, len(is_a)))
        order = np.lexsort((keys, np.broadcast_to(item_codes, keys.shape)), axis=-1)
        labels = np.empty_like(keys, dtype=bool)
        np.put_along_axis(labels, order, np.broadcast_to(is_a, keys.shape), axis=-1)
        hits += int(np.sum(stat(labels) >= observed - tol))
    return observed, (hits + 1) / (n_resamples + 1)


def drawn_frame(items: int, runs, *, text: bool, seed: int, order: str = "shuffled") -> pl.DataFrame:
    """Items with ``runs`` runs per value (one number, or a range drawn per item and value: unequal items), a
    setting drawn per call (numbers with repeats, or text levels), rows shuffled, or written item by item and
    value by value (``order`` "written"; "reversed": each item's values in the other order)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        for v in ("a", "b", "c"):
            for s in range(runs if isinstance(runs, int) else int(rng.integers(*runs))):
                t = rng.choice(["low", "mid", "high"]) if text else round(float(rng.uniform(0, 1.5)), 1)
                rows.append({"item": f"q{i}", "variant": v, "seed": s, "temperature": t})
    frame = pl.DataFrame(rows)
    if order == "written":
        return frame
    if order == "reversed":
        return frame.sort("item", pl.col("variant").replace_strict({"a": 2, "b": 1, "c": 0}), maintain_order=True)
    return frame[rng.permutation(frame.height)]


@pytest.mark.parametrize("order", ["shuffled", "written", "reversed"])
@pytest.mark.parametrize("items, runs, text", [(12, 5, False), (9, (1, 7), False), (15, 4, True), (7, (2, 9), True),
                                               (1, 3, False), (40, 1, False)])
def test_balance_test_unchanged(items, runs, text, order):
    frame = drawn_frame(items, runs, text=text, seed=items, order=order)
    if order != "shuffled" and items > 1:   # each item's values in blocks: the labels by a partial sort
        import probestats.analyses.drawn as drawn

        pair = frame.filter(pl.col("variant").is_in(["a", "b"]))
        codes = np.unique(pair["item"].to_numpy(), return_inverse=True)[1]
        rows = np.argsort(codes, kind="stable")
        assert drawn._label_block(codes[rows], (pair["variant"] == "a").to_numpy()[rows]) is not None
    for seed in (0, 11):
        result = balance_test(frame, "temperature", "a", "b", n_resamples=1_234, seed=seed)
        observed, p = lexsort_balance_p(frame, "temperature", "a", "b", 1_234, seed)
        assert result.statistic == observed and result.pvalue == p
        assert result.pvalue_se == math.sqrt(p * (1 - p) / 1_235)


def test_within_items_orders_as_lexsort_ties_included():
    rng = np.random.default_rng(5)
    for trial in range(200):
        sizes = rng.integers(1, 12, size=rng.integers(1, 6))
        if trial % 2:
            sizes[:] = sizes[0]   # items of equal runs take the short way
        codes = np.repeat(np.arange(sizes.size), sizes)
        keys = rng.random((3, codes.size))
        if trial % 3 == 0:
            keys = np.round(keys, 1)   # ties: the stable order, as lexsort's
        expected = np.lexsort((keys, np.broadcast_to(codes, keys.shape)), axis=-1)
        assert (_within_items(codes)(keys) == expected).all()


@pytest.mark.parametrize("text", [False, True])
def test_adjusted_gap_t_as_scipy_stats(text):
    """The adjusted gap's p and interval take Student's t from scipy.special: scipy.stats.t's numbers."""
    from scipy import stats

    from probestats.analyses.drawn import adjusted_gap

    frame = drawn_frame(10, (2, 6), text=text, seed=3)
    rng = np.random.default_rng(8)
    frame = frame.with_columns(pl.Series("y", rng.normal(size=frame.height)) + (pl.col("variant") == "a") * 0.4)
    r = adjusted_gap(frame, "y", "a", "b", "temperature", confidence=0.9)
    assert r.pvalue == float(2 * stats.t.sf(abs(r.gap / r.se), r.df))
    q = float(stats.t.ppf(0.95, r.df))
    assert (r.low, r.high) == (float(r.gap - q * r.se), float(r.gap + q * r.se))


def fraction_sum(values) -> Fraction:
    """The previous exact sum: one Fraction addition per value."""
    return sum(map(Fraction, map(float, values)), Fraction(0))


def test_binary_sum_is_the_fraction_sum():
    rng = np.random.default_rng(9)
    cases = [[0.0, -0.0], [5e-324, -5e-324, 1e-310], [1e308, 1e308, -1e308], [1, 2, 3], [2**60 + 1, 3],
             [-1.5, 2.25], [sys.float_info.max] * 3, [0.1] * 1000 + [-0.3] * 7]
    for trial in range(200):
        n = int(rng.integers(1, 300))
        kind = trial % 4
        if kind == 0:      # one scale
            xs = rng.normal(size=n) * 10.0 ** int(rng.integers(-300, 300))
        elif kind == 1:    # short decimals
            xs = np.round(rng.normal(size=n) * 5, int(rng.integers(0, 4)))
        elif kind == 2:    # every scale at once, subnormals included
            xs = rng.normal(size=n) * 10.0 ** rng.integers(-320, 308, size=n).astype(float)
        else:              # whole numbers
            xs = rng.integers(-10**9, 10**9, size=n).astype(float)
        cases.append(xs[np.isfinite(xs)].tolist())
    for values in cases:
        assert binary_sum(values) == fraction_sum(values)


def test_mean_of_combination_as_fraction_additions():
    rng = np.random.default_rng(10)
    for _ in range(50):
        n = int(rng.integers(1, 400))
        a, b = (np.round(rng.normal(size=n) * 3, int(rng.integers(0, 7))).tolist() for _ in range(2))
        for coefs in ((1, -1), (0.5, 0.5), (1 / 3, -2.0)):
            terms = list(zip(coefs, (a, b)))
            expected = float(sum((Fraction(c) * fraction_sum(xs) for c, xs in terms), Fraction(0)) / n)
            assert mean_of_combination(terms) == expected


def lexsort_smallest(keys, sizes, take):
    """The previous rule of the within-log halves' draw: rank every key by lexsort((keys, cell))."""
    cell_of = np.repeat(np.arange(sizes.size), sizes)
    order = np.lexsort((keys, cell_of))
    cell_first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rank = np.empty(keys.size, dtype=np.int64)
    rank[order] = np.arange(keys.size) - cell_first[cell_of[order]]
    return rank < take[cell_of]


def test_smallest_in_cells_as_lexsort():
    rng = np.random.default_rng(12)
    for trial in range(1_000):
        cells = int(rng.integers(1, 9))
        sizes = np.full(cells, int(rng.integers(1, 14))) if trial % 2 else rng.integers(1, 14, size=cells)
        # hashes over all 64 bits, or a few values (ties at the threshold: broken by position)
        high = np.iinfo(np.uint64).max if trial % 3 else 5
        keys = rng.integers(0, high, size=int(sizes.sum()), dtype=np.uint64)
        take = sizes // 2 if trial % 5 else rng.integers(0, sizes + 1)
        assert (smallest_in_cells(keys, sizes, take) == lexsort_smallest(keys, sizes, take)).all()


def groupwise_between_groups(gaps, labels, n_resamples: int, seed: int) -> tuple[float, float]:
    """The between-groups test one group at a time (statistic, p): each resample draws every group's items from
    that group's deviations from its own mean (one uniform draw per item, the items laid out group by group),
    its groups' means and variances (ddof 1) taken group by group, Welch's F written out (Welch 1951) and read
    through its F distribution."""
    from scipy.stats import f as f_distribution

    given = np.asarray(gaps, dtype=float)
    gaps = given - given.mean()
    floor = 1e-12 * np.max(np.abs(gaps)) ** 2   # a group whose gaps are all equal: its variance floored
    names = list(dict.fromkeys(labels))
    codes = np.array([names.index(x) for x in labels])
    k, n = len(names), len(gaps)
    # the layout the draws are made over, set by the numbers alone: the groups by (size, their gaps as given,
    # sorted), each group's items in ascending order of gap
    layout = sorted(range(k), key=lambda j: (int((codes == j).sum()), tuple(np.sort(given[codes == j]).tolist())))
    members = [np.sort(gaps[codes == j]) for j in layout]
    sizes = np.array([len(x) for x in members], dtype=float)
    assert sizes.min() >= 2   # a group of one item takes the others' pooled variance: not written out here
    deviations = [x - x.mean() for x in members]
    columns = np.cumsum([0] + [len(x) for x in members])   # group j's draws: columns columns[j] to columns[j+1]

    def welch(groups):   # groups: one (resamples, n_j) array per group
        means = np.stack([g.mean(axis=1) for g in groups], axis=1)
        var = np.stack([g.var(axis=1, ddof=1) for g in groups], axis=1)
        w = sizes[None, :] / np.maximum(var, floor)
        centre = (w * means).sum(axis=1, keepdims=True) / w.sum(axis=1, keepdims=True)
        lam = ((1 - w / w.sum(axis=1, keepdims=True)) ** 2 / (sizes[None, :] - 1)).sum(axis=1)
        f = (w * (means - centre) ** 2).sum(axis=1) / (k - 1) / (1 + 2 * (k - 2) * lam / (k * k - 1))
        return f, -f_distribution.logsf(f, k - 1, (k * k - 1) / (3 * lam))

    shown, observed = (float(x[0]) for x in welch([x[None, :] for x in members]))
    rng = np.random.default_rng(seed)
    tol = 1e-9 * max(abs(observed), 1.0)
    hits, done, chunk = 0, 0, max(1, 2_000_000 // max(1, n * k))
    while done < n_resamples:
        m = min(chunk, n_resamples - done)
        keys = rng.random((m, n))
        drawn = [d[np.minimum((keys[:, columns[j]:columns[j + 1]] * len(d)).astype(int), len(d) - 1)]
                 for j, d in enumerate(deviations)]
        hits += int(np.count_nonzero(welch(drawn)[1] >= observed - tol))
        done += m
    return shown, (hits + 1) / (n_resamples + 1)


@pytest.mark.parametrize("groups, per_group, lattice, shift", [(2, 6, True, 0.0), (5, 20, True, 0.3), (30, 8, False, 0.0),
                                                              (12, 3, False, 0.5), (40, 20, True, 0.1)])
def test_between_groups_test_unchanged(groups, per_group, lattice, shift):
    """Gaps on a lattice (ties between resamples and the observed statistic) or continuous, groups alike or not."""
    from probestats.analyses.blocks import between_groups_test

    rng = np.random.default_rng(groups * per_group)
    labels = [f"g{g}" for g in rng.permutation(np.repeat(np.arange(groups), per_group))]
    gaps = rng.normal(size=len(labels)) + shift * np.array([int(x[1:]) % 3 for x in labels])
    gaps = np.round(gaps * 2) / 2 if lattice else gaps
    for seed in (0, 7):
        r = between_groups_test(gaps, labels, n_resamples=2_001, seed=seed)
        statistic, p = groupwise_between_groups(gaps, labels, 2_001, seed)
        assert r.pvalue == p and r.statistic == pytest.approx(statistic, rel=1e-9)


def previous_between_groups_test(gaps, labels, *, n_resamples: int = 10_000, seed: int | None = 0):
    """The between-groups test whole, each resample's groups one at a time; the statistic shown summed as the
    test sums it (its last bits; it is checked against statsmodels in tests/test_blocks.py)."""
    from probestats.analyses.blocks import welch_statistic
    from probestats.analyses.omnibus import OmnibusResult

    gaps = np.asarray(gaps, dtype=float)
    k = len(dict.fromkeys(labels))
    _, p = groupwise_between_groups(gaps, labels, n_resamples, seed)
    centred, codes = gaps - gaps.mean(), np.array([list(dict.fromkeys(labels)).index(x) for x in labels])
    sums = [[(centred * (codes == j)).sum() for j in range(k)]]
    squares = [[(centred ** 2 * (codes == j)).sum() for j in range(k)]]
    statistic = float(welch_statistic(sums, squares, np.bincount(codes), float(np.max(np.abs(centred))))[0][0])
    hits = round(p * (n_resamples + 1)) - 1
    se = float(np.sqrt(p * (1 - p) / n_resamples))
    method = (f"bootstrap (the {len(gaps)} items resampled within {k} groups, each centred at one mean; Welch's F "
              f"through its F distribution; n_resamples={n_resamples}, seed={seed}, standard error {se:.2g}; "
              f"p = (hits + 1)/(n_resamples + 1)"
              f"{'; no resample was as extreme, so p is below that floor' if hits == 0 else ''})")
    return OmnibusResult(statistic=statistic, pvalue=p, method=method, n_items=len(gaps), n_values=k, arrangements=0,
                         n_resamples=n_resamples, seed=seed, pvalue_se=se, pvalue_bound="upper" if hits == 0 else None)


def previous_paths(monkeypatch) -> dict:
    """Every replaced step back on its previous code; the count of calls of each (so a test knows they ran)."""
    import probestats.analyses.blocks as blocks
    import probestats.analyses.clusters as clusters
    import probestats.analyses.drawn as drawn
    import probestats.analyses.halves as halves
    import probestats.stats.exact as exact

    calls = {}

    def counted(name, function):
        def call(*args, **kwargs):
            calls[name] = calls.get(name, 0) + 1
            return function(*args, **kwargs)
        return call

    monkeypatch.setattr(exact, "binary_sum", counted("sum", fraction_sum))
    monkeypatch.setattr(halves, "smallest_in_cells", counted("halves", lexsort_smallest))
    monkeypatch.setattr(drawn, "_within_items", counted(
        "drawn", lambda codes: lambda keys: np.lexsort((keys, np.broadcast_to(codes, keys.shape)), axis=-1)))
    monkeypatch.setattr(drawn, "_label_block", lambda codes, is_a: None)   # every draw ranked whole
    suggest = clusters.suggest_clusters
    monkeypatch.setattr(clusters, "suggest_clusters", counted(   # the suggestion's own pass over the rows
        "suggest", lambda analysis, *, exclude=(), items=None: suggest(analysis, exclude=exclude)))
    monkeypatch.setattr(blocks, "between_groups_test", counted("between", previous_between_groups_test))
    return calls


def design_log(shape: str, seed: int = 0) -> list[dict]:
    """A generated log of one design shape (see the parametrization below)."""
    rng = np.random.default_rng(seed)
    groups, items, runs = {"paired": (1, 24, 6), "decimals": (1, 30, 5), "unequal": (1, 20, (3, 9)),
                           "nested groups": (12, 5, 4), "drawn": (1, 25, 8), "clustered": (1, 60, 4),
                           "candidates": (1, 40, 3)}[shape]
    topic_gaps = rng.normal(0, 3, size=12)
    rows = []
    for g in range(groups):
        for i in range(items):
            level = rng.normal()
            topic = i % 12 if shape == "clustered" else i // 2   # items nested in 12 topics (20 in the other)
            gap = topic_gaps[topic] if shape == "clustered" else 0.0
            for v in ("formal", "casual"):
                for s in range(runs if isinstance(runs, int) else int(rng.integers(*runs))):
                    t = round(float(rng.uniform(0.2, 1.2)), 1)
                    y = 3 + level + 0.4 * (v == "formal") + 0.3 * (g % 3) + rng.normal() + (t if shape == "drawn" else 0)
                    y += gap * (v == "formal")
                    row = {"item": f"{g}-{i}", "variant": v, "seed": s + 1,
                           "steps": round(y, 2) if shape == "decimals" else max(0, round(y))}
                    if shape in ("clustered", "candidates"):   # columns the items may nest in
                        row |= {"topic": f"t{topic}", "source": None if i % 5 else "web", "level": i % 3}
                    if shape == "nested groups":
                        row["dataset"] = f"d{g}"
                    if shape == "drawn":
                        row["temperature"] = t
                    rows.append(row)
    return rows


@pytest.mark.parametrize("shape", ["paired", "decimals", "unequal", "nested groups", "drawn", "clustered",
                                   "candidates"])
def test_analysis_unchanged_on_every_shape(shape, tmp_path, monkeypatch):
    """The whole analysis (its JSON), from a log file through the streaming pass, on the previous paths and now."""
    from probestats import Probe, analyze

    path = tmp_path / "log.csv"
    pl.DataFrame(design_log(shape)).write_csv(path)
    options = {"by": ["dataset"]} if shape == "nested groups" else {}
    if shape == "drawn":
        options["probe"] = Probe(random_settings=["temperature"])
    import probestats.analyses.clusters as clusters

    read, suggest = [], clusters.suggest_clusters

    def spy(analysis, *, exclude=(), items=None):   # the candidates as the streaming pass read them
        read.append(items is not None)
        return suggest(analysis, exclude=exclude, items=items)

    with monkeypatch.context() as spied:
        spied.setattr(clusters, "suggest_clusters", spy)
        now = analyze(str(path), metric="steps", **options).to_dict()
    # the streaming pass read the candidate columns, in the logs that have some
    assert read == [shape in ("clustered", "candidates")]
    with monkeypatch.context() as patched:
        calls = previous_paths(patched)
        before = analyze(str(path), metric="steps", **options).to_dict()
    assert now == before
    # (the within-log noise is read over every split from each cell's spread: no halves are drawn)
    expected = {"sum", "suggest"} | ({"between"} if shape == "nested groups" else set()) | (
        {"drawn"} if shape == "drawn" else set())
    assert set(calls) == expected   # each previous path ran
    codes = [p["code"] for p in now["problems"]]
    assert ("clustered_items" in codes) == (shape == "clustered")   # the suggestion, where the items nest


def dav_pairs(seed: int) -> list:
    """Pairs of item means of 3 to 24 items: continuous, on a lattice (resamples that tie, or have no spread),
    a large mean with a tiny spread, means alike, one value apart from a constant."""
    rng = np.random.default_rng(seed)
    pairs = []
    for trial in range(240):
        n = int(rng.integers(3, 25))
        kind = trial % 6
        if kind == 0:
            a, b = rng.normal(size=n), rng.normal(size=n)
        elif kind == 1:
            a, b = rng.integers(0, 3, n).astype(float), rng.integers(0, 3, n).astype(float)
        elif kind == 2:
            a, b = 1e6 + rng.normal(size=n) * 1e-3, 1e6 + rng.normal(size=n) * 1e-3
        elif kind == 3:
            a = rng.normal(size=n)
            b = a.copy()
            b[0] += 1e-9
        elif kind == 4:
            a = np.full(n, 2.0)
            a[0] = 3.0
            b = rng.integers(0, 2, n).astype(float)
        else:
            a, b = np.round(rng.normal(size=n) * 3, 1), np.round(rng.normal(size=n) * 3, 1)
        pairs.append((a, b))
    return pairs


@pytest.mark.parametrize("seed, n_resamples, confidence", [(0, 999, 0.9), (1, 2_000, 0.95)])
def test_dav_bootstraps_drawn_at_once_as_each_alone(seed, n_resamples, confidence):
    """Every pair's BCa interval of d_av from the shared draws is the one its own bootstrap gives, to the bit
    (nan where that is nan)."""
    from probestats.stats.bootstrap_many import d_av, dav_bca_many
    from probestats.stats.resample import bootstrap_interval

    pairs = dav_pairs(seed)
    alone = [bootstrap_interval(p, d_av, confidence=confidence, n_resamples=n_resamples,
                                rng=np.random.default_rng(3), method="BCa") for p in pairs]
    many = dav_bca_many(pairs, confidence=confidence, n_resamples=n_resamples, seed=3)
    assert all(np.array_equal(x, y, equal_nan=True) for x, y in zip(alone, many))
    assert sum(np.isnan(x[0]) for x in alone) > 0   # the cases without an interval were among them


def test_effect_sizes_many_as_one_by_one():
    from probestats.stats.effects import effect_sizes, effect_sizes_many

    pairs = dav_pairs(5)[:60] + [([1.0, 2.0], [0.0, 0.5]), ([3.0, 3.0, 3.0], [3.0, 3.0, 3.0])]
    for hedges in (False, True):
        many = effect_sizes_many(pairs, hedges=hedges, n_resamples=1_500, seed=9)
        one = [effect_sizes(a, b, hedges=hedges, n_resamples=1_500, seed=9) for a, b in pairs]
        assert [e.to_dict() for e in many] == [e.to_dict() for e in one]   # (nan: g_z of two items)
        assert sum(e.d_av.low is not None for e in one) > 40


def test_between_groups_test_unchanged_on_many_items():
    """Enough items for the radix shuffles: the statistic and p of the previous test."""
    from probestats.analyses.blocks import between_groups_test

    rng = np.random.default_rng(21)
    labels = [f"g{g}" for g in rng.permutation(np.repeat(np.arange(20), 450))]
    gaps = np.round(rng.normal(size=len(labels)) + 0.05 * np.array([int(x[1:]) % 2 for x in labels]), 1)
    r = between_groups_test(gaps, labels, n_resamples=301, seed=4)
    statistic, p = groupwise_between_groups(gaps, labels, 301, 4)
    assert r.pvalue == p and r.statistic == pytest.approx(statistic, rel=1e-9)


def previous_owens_t(h: float, a: float) -> float:
    """Owen's T as it was: each node's terms computed again at every call."""
    from probestats.stats.distributions import norm_cdf

    if a < 0:
        return -previous_owens_t(h, -a)
    h = abs(h)
    if a == 0:
        return 0.0
    if a > 1:
        ph, pah = norm_cdf(h), norm_cdf(a * h)
        return 0.5 * ph + 0.5 * pah - ph * pah - previous_owens_t(a * h, 1.0 / a)
    nodes, weights = np.polynomial.legendre.leggauss(48)
    total = []
    for x, w in zip(map(float, nodes), map(float, weights)):
        u = 0.5 * a * (x + 1.0)
        total.append(w * math.exp(-0.5 * h * h * (1.0 + u * u)) / (1.0 + u * u))
    return 0.25 * a * math.fsum(total) / math.pi


def test_owens_t_and_the_dz_interval_unchanged():
    from probestats.stats.distributions import owens_t
    from probestats.stats.effects import dz_interval

    rng = np.random.default_rng(17)
    for h, a in zip(rng.normal(size=400) * 3, np.concatenate([rng.normal(size=200) * 4, rng.uniform(-1, 1, 200)])):
        assert owens_t(float(h), float(a)) == previous_owens_t(float(h), float(a))
        assert owens_t(float(h), float(a)) == owens_t(float(h), float(a))   # the kept terms give the same
    import probestats.stats.distributions as distributions

    for dz, n in ((0.0, 10), (0.4, 20), (-1.3, 7), (2.5, 31)):
        now = dz_interval(dz, n)
        with pytest.MonkeyPatch.context() as patched:
            patched.setattr(distributions, "owens_t", previous_owens_t)
            assert dz_interval(dz, n) == now
