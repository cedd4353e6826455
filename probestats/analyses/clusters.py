"""Items nested in clusters (a document, a vacancy, a template): tests and intervals at the cluster's level.

Items that share a cluster share more than the attribute: their gaps are alike, so counting them as
independent overstates what the probe shows (the design effect, 1 + (m − 1)·ICC for clusters of m items).
With ``cluster=COL`` (``--cluster COL``) the paired analysis keeps the average item gap (every item counts
once) and

- tests it by flipping the signs of whole clusters: under the null the gaps of a cluster's items flip together,
  so the exact sign-flip test runs on the clusters' sums of item gaps (the average gap is that sum over the
  items, so both statistics order the sign patterns alike); the sign test counts the clusters' signs;
- gives the ``interval`` asked for at the clusters' level (:func:`cluster_interval`): by default a cluster-level t
  (the cluster-robust standard error of the average item gap on G − 1 degrees of freedom), or the percentile or
  BCa bootstrap of whole clusters, or the inversion of the sign-flip test that flips whole clusters; and the
  d_z and d_av intervals by the BCa bootstrap of whole clusters (:func:`cluster_effect_sizes`; their coverage is
  measured in ``benchmarks/caveats.py``);
- names the number of clusters, their sizes, the clusters of one item and the intra-cluster correlation of the
  item gaps (one-way ANOVA ICC(1)).

Without ``cluster``, :func:`suggest_clusters` looks for a column the items nest in: constant within items, not a
held-fixed setting, at least ten clusters of two items or more on average, whose clusters' item gaps are alike
(ICC at least 0.1, one-way ANOVA F test p at most 0.01 over the candidate columns); a warning then suggests
``cluster=COL`` with the ICC, the number of clusters and the smallest p they can reach.

Examples
--------
>>> import numpy as np
>>> gaps = np.array([1.0, 1.2, 0.9, -0.2, 0.0, -0.1])
>>> ids = np.array(["d1", "d1", "d1", "d2", "d2", "d2"])
>>> round(intra_cluster_correlation(gaps, ids)[0], 3)
0.974
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from probestats.analyses.verdict import decide, with_caveats
from probestats.checks.design_facts import Caveat
from probestats.errors import OptionError, Problem, count_of, opt
from probestats.result import jsonable
from probestats.stats.distributions import f_sf
from probestats.stats.draw_order import rows_in_order
from probestats.stats.effects import dav_df, hedges_j
from probestats.stats.hypotests import Interval, TestResult, min_attainable_p, sign_flip_test, sign_test
from probestats.stats.multitest import adjust
from probestats.vocabulary import as_tests

__all__ = ["ClusterDesign", "intra_cluster_correlation", "cluster_bootstrap", "cluster_bootstrap_interval", "cluster_t_interval",
           "cluster_sign_flip_interval", "cluster_interval", "cluster_effect_sizes", "item_clusters",
           "with_clusters", "suggest_clusters", "SUGGEST_ICC", "SUGGEST_P", "SUGGEST_MIN_CLUSTERS"]

#: the intra-cluster correlation of item gaps from which a column is suggested as the cluster
SUGGEST_ICC = 0.1
#: the one-way ANOVA F test's p at most which a column is suggested as the cluster
SUGGEST_P = 0.01
#: the fewest clusters a column must make to be suggested (with k clusters the smallest attainable p is 2 / 2^k)
SUGGEST_MIN_CLUSTERS = 10
#: words of a column's name that make it a setting (held fixed or a block), never suggested as a cluster
_HELD_FIXED = ("model", "judge", "temperature", "temp", "system", "file", "provider")
#: columns never read as a cluster (the draw, the reply, the run's own columns)
_NOT_CLUSTERS = ("item", "variant", "seed", "run_id", "time", "prompt", "reply", "response")


@dataclass(frozen=True)
class ClusterDesign:
    """The clusters the items are nested in, and the comparison at their level.

    Attributes
    ----------
    column : str
        The cluster column (``cluster=``).
    n_clusters : int
        Clusters that hold a compared item.
    n_items : int
        Items compared.
    sizes : (int, int, float)
        The fewest, the most and the mean number of items per cluster.
    singletons : int
        Clusters of one item: they add no within-cluster information and count as single items.
    icc : float or None
        The intra-cluster correlation of the item gaps (one-way ANOVA ICC(1)); None with one cluster or
        one item per cluster.
    design_effect : float or None
        1 + (m0 − 1)·ICC, m0 the ANOVA's mean cluster size: how many times the variance of the average gap
        exceeds what independent items would give.
    sign_flip : TestResult
        The exact sign-flip test flipping whole clusters (on the clusters' sums of item gaps; ``statistic`` is
        the average item gap).
    sign_test : TestResult
        The sign test on the clusters' sums of item gaps (clusters, not items, counted).
    interval : Interval
        The interval of the average item gap at the clusters' level (``interval=``: the cluster-level t by
        default; :func:`cluster_interval`).
    min_attainable_p : float
        The smallest p the cluster-level sign-flip test can reach with these clusters.
    item_pvalue : float
        The item-level sign-flip p, which treats the items as independent (for comparison only).
    item_interval : Interval
        The item-level interval, which treats the items as independent (for comparison only).
    """

    column: str
    n_clusters: int
    n_items: int
    sizes: tuple
    singletons: int
    icc: float | None
    design_effect: float | None
    sign_flip: TestResult
    sign_test: TestResult
    interval: Interval
    min_attainable_p: float
    item_pvalue: float
    item_interval: Interval

    def to_dict(self) -> dict:
        return {"column": self.column, "n_clusters": self.n_clusters, "n_items": self.n_items,
                "sizes": {"min": self.sizes[0], "max": self.sizes[1], "mean": self.sizes[2]},
                "singletons": self.singletons, "icc": jsonable(self.icc), "design_effect": jsonable(self.design_effect),
                "sign_flip": self.sign_flip.to_dict(), "sign_test": self.sign_test.to_dict(),
                "interval": self.interval.to_dict(), "min_attainable_p": jsonable(float(self.min_attainable_p)),
                "item_p": jsonable(self.item_pvalue), "item_interval": self.item_interval.to_dict()}


def intra_cluster_correlation(gaps, clusters) -> tuple[float | None, float | None, float | None]:
    """The one-way ANOVA ICC(1) of ``gaps`` by ``clusters``, its F test's p and the design effect.

    ICC = (MSB − MSW) / (MSB + (m0 − 1)·MSW) with m0 = (N − Σ n_c² / N) / (G − 1); the F test is
    MSB / MSW on (G − 1, N − G) degrees of freedom (it assumes normal gaps: a screen, not the test);
    the design effect is 1 + (m0 − 1)·ICC. None where it cannot be computed (one cluster, or no
    cluster of two items).

    >>> icc, p, deff = intra_cluster_correlation([1.0, 2.0, 1.0, 2.0], ["a", "a", "b", "b"])
    >>> icc, p, deff
    (-1.0, 1.0, 0.0)
    """
    g = np.asarray(gaps, dtype=float)
    _, codes = np.unique(np.asarray(clusters).astype(str), return_inverse=True)
    n_c = np.bincount(codes)
    big_g, n = len(n_c), len(g)
    if big_g < 2 or n - big_g < 1:
        return None, None, None
    means = np.bincount(codes, weights=g) / n_c
    msb = float(np.sum(n_c * (means - g.mean()) ** 2) / (big_g - 1))
    msw = float(np.sum((g - means[codes]) ** 2) / (n - big_g))
    m0 = (n - np.sum(n_c ** 2) / n) / (big_g - 1)
    denom = msb + (m0 - 1) * msw
    if denom <= 0:
        return None, None, None
    icc = (msb - msw) / denom
    p = float(f_sf(msb / msw, big_g - 1, n - big_g)) if msw > 0 else (0.0 if msb > 0 else 1.0)
    return float(icc), p, float(1 + (m0 - 1) * icc)


def cluster_t_interval(gaps, clusters, *, confidence: float = 0.95) -> Interval:
    """The cluster-level t interval of the average item gap.

    With S_c a cluster's summed item gaps, n_c its items, N = Σ n_c and ḡ = Σ S_c / N (the average item gap),
    the cluster-robust standard error is sqrt(G / (G − 1) · Σ (S_c − n_c·ḡ)² / N²) and the interval
    ḡ ± t(G − 1) · se; with equal clusters it is the Student t interval on the cluster means.

    >>> iv = cluster_t_interval([1.0, 1.0, 2.0, 2.0, 3.0, 3.0], ["a", "a", "b", "b", "c", "c"])
    >>> round(iv.low, 4), round(iv.high, 4)
    (-0.4841, 4.4841)
    """
    from scipy import stats

    g = np.asarray(gaps, dtype=float)
    _, codes = np.unique(np.asarray(clusters).astype(str), return_inverse=True)
    sums = np.bincount(codes, weights=g)
    counts = np.bincount(codes).astype(float)
    big_g, n = len(sums), len(g)
    mean = float(sums.sum() / n)
    if big_g < 2:
        return Interval(-np.inf, np.inf, confidence, f"no interval: {big_g} cluster has no spread; add clusters")
    se = float(np.sqrt(big_g / (big_g - 1) * np.sum((sums - counts * mean) ** 2) / n ** 2))
    q = float(stats.t.ppf(0.5 + confidence / 2, big_g - 1))
    return Interval(mean - q * se, mean + q * se, confidence,
                    f"cluster-level t on {big_g} clusters ({big_g - 1} degrees of freedom; cluster-robust standard "
                    "error of the average item gap)",
                    "the clusters are independent and their sums of item gaps roughly normal (items within a "
                    "cluster need not be independent)")


def _cluster_codes(clusters) -> tuple[np.ndarray, int]:
    _, codes = np.unique(np.asarray(clusters).astype(str), return_inverse=True)
    return codes, int(codes.max()) + 1 if codes.size else 0


def cluster_bootstrap(moments, statistic, *, confidence: float = 0.95, n_resamples: int = 10_000,
                      seed: int | None = 0, kind: str = "percentile") -> tuple[float, float, float]:
    """A bootstrap interval of ``statistic`` that resamples whole clusters: ``moments`` holds one row of summed
    item moments per cluster, ``statistic`` maps summed rows (any leading shape) to the statistic. ``kind``
    ``percentile`` or ``BCa`` (bias correction from the share of resamples below the estimate, acceleration
    from the jackknife that leaves one cluster out). Returns the estimate and the ends (NaN where the
    resamples leave the statistic undefined too often to say).

    >>> m = np.array([[2.0, 2.0], [4.0, 2.0], [6.0, 2.0]])   # per cluster: sum of gaps, items
    >>> est, low, high = cluster_bootstrap(m, lambda r: r[..., 0] / r[..., 1], n_resamples=2000)
    >>> est, low, high
    (2.0, 1.0, 3.0)
    """
    from scipy.stats import norm

    m = np.asarray(moments, dtype=float)
    big_g = m.shape[0]
    total = m.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = float(statistic(total))
        rng = np.random.default_rng(seed)
        drawn = rows_in_order(m)   # clusters drawn in an order of their moments, not the log's
        stats = np.empty(n_resamples)
        for start in range(0, n_resamples, 1000):
            stop = min(n_resamples, start + 1000)
            draw = rng.integers(0, big_g, size=(stop - start, big_g))
            stats[start:stop] = statistic(drawn[draw].sum(axis=1))
        stats = stats[np.isfinite(stats)]
        if stats.size < n_resamples / 2 or not np.isfinite(estimate):
            return estimate, float("nan"), float("nan")
        tail = (1 - confidence) / 2
        levels = np.array([tail, 1 - tail])
        if kind == "BCa":
            z0 = norm.ppf(np.mean(stats < estimate) + 0.5 * np.mean(stats == estimate))
            jack = statistic(total[None, :] - m)
            d = np.mean(jack) - jack
            denom = 6 * np.sum(d * d) ** 1.5
            accel = float(np.sum(d ** 3) / denom) if denom > 0 else 0.0
            z = norm.ppf(levels)
            adjusted = norm.cdf(z0 + (z0 + z) / (1 - accel * (z0 + z)))
            if np.all(np.isfinite(adjusted)):
                levels = adjusted
    low, high = np.quantile(stats, levels)
    return estimate, float(low), float(high)


def cluster_bootstrap_interval(gaps, clusters, *, confidence: float = 0.95, n_resamples: int = 10_000,
                               seed: int | None = 0, kind: str = "percentile") -> Interval:
    """The percentile (or, ``kind='BCa'``, BCa) cluster bootstrap interval of the average item gap.

    Each resample draws the G clusters with replacement; its statistic is the sum of the drawn clusters'
    item gaps over the number of their items (the average item gap of the resampled design).

    >>> iv = cluster_bootstrap_interval([1.0, 1.0, 2.0, 2.0], ["a", "a", "b", "b"], n_resamples=2000)
    >>> iv.low, iv.high
    (1.0, 2.0)
    """
    g = np.asarray(gaps, dtype=float)
    codes, big_g = _cluster_codes(clusters)
    moments = np.column_stack([np.bincount(codes, weights=g), np.bincount(codes).astype(float)])
    _, low, high = cluster_bootstrap(moments, lambda r: r[..., 0] / r[..., 1], confidence=confidence,
                                     n_resamples=n_resamples, seed=seed, kind=kind)
    return Interval(low, high, confidence,
                    f"cluster bootstrap, {kind} ({n_resamples:,} resamples of the {big_g} clusters, seed {seed})",
                    "the clusters are independent draws of the design (items within one need not be)")


def cluster_sign_flip_interval(gaps, clusters, *, confidence: float = 0.95, n_resamples: int = 10_000,
                               seed: int | None = 0) -> Interval:
    """The inversion of the two-sided sign-flip test that flips whole clusters: the shifts d of the average item
    gap for which the test on the clusters' sums of shifted gaps, S_c − n_c·d, does not reject at
    1 − ``confidence`` (the headline test of ``cluster=`` at d = 0). Each end is found by bisection, to 1e-9
    of the spread, between the average gap (p = 1) and a shift past every cluster's mean (p the smallest
    attainable); infinite when no shift can be rejected with so few clusters.

    >>> iv = cluster_sign_flip_interval([1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5],
    ...                                 list("aabbccddeeff"), confidence=0.9)
    >>> round(iv.low, 6), round(iv.high, 6)   # equal clusters: the item-level inversion on the cluster means
    (2.25, 5.25)
    """
    g = np.asarray(gaps, dtype=float)
    codes, big_g = _cluster_codes(clusters)
    sums = np.bincount(codes, weights=g)
    counts = np.bincount(codes).astype(float)
    alpha = 1 - confidence
    mean = float(sums.sum() / counts.sum())
    probe = sign_flip_test(sums, n_resamples=n_resamples, seed=seed)
    text = (f"sign-flip test inversion at the clusters' level: the shifts d for which flipping whole clusters of "
            f"the {big_g} sums of shifted item gaps does not reject, the test {probe.method.split(';')[0]}; ends by "
            "bisection to 1e-9 of the spread")
    assumption = "the clusters' sums of item gaps are symmetric about the shift (items within a cluster need not be)"
    if float(min_attainable_p(big_g)) > alpha:
        return Interval(-np.inf, np.inf, confidence, text + f"; no shift can be rejected with {big_g} clusters",
                        assumption)

    def kept(d: float) -> bool:
        return sign_flip_test(sums - counts * d, n_resamples=n_resamples, seed=seed).pvalue > alpha

    means = sums / counts
    spread = float(np.ptp(means)) + float(np.max(np.abs(means))) or 1.0
    ends = []
    for far in (float(np.min(means)) - spread, float(np.max(means)) + spread):
        inside, outside = mean, far
        while abs(outside - inside) > 1e-9 * spread:
            mid = (inside + outside) / 2
            inside, outside = (mid, outside) if kept(mid) else (inside, mid)
        ends.append(inside)
    return Interval(ends[0], ends[1], confidence, text, assumption)


def cluster_interval(gaps, clusters, *, method: str = "t", confidence: float = 0.95, alternative: str = "two-sided",
                     n_resamples: int = 10_000, seed: int | None = 0) -> Interval:
    """The interval ``method`` (``interval=``) of the average item gap at the clusters' level: ``t`` the
    cluster-level t (:func:`cluster_t_interval`), ``percentile`` and ``bootstrap`` the percentile and BCa
    bootstraps of whole clusters (:func:`cluster_bootstrap_interval`; with fewer than three clusters the t stands
    in, named as such), ``sign-flip`` the inversion of the test that flips whole clusters
    (:func:`cluster_sign_flip_interval`).

    >>> cluster_interval([1.0, 1.0, 2.0, 2.0, 3.0, 3.0], list("aabbcc"), method="percentile").method[:30]
    'cluster bootstrap, percentile '
    """
    _, big_g = _cluster_codes(clusters)
    if method == "sign-flip":
        return cluster_sign_flip_interval(gaps, clusters, confidence=confidence, n_resamples=n_resamples, seed=seed)
    if method in ("bootstrap", "percentile"):
        if big_g >= 3:
            return cluster_bootstrap_interval(gaps, clusters, confidence=confidence, n_resamples=n_resamples,
                                              seed=seed, kind="BCa" if method == "bootstrap" else "percentile")
        iv = cluster_t_interval(gaps, clusters, confidence=confidence)
        return replace(iv, method=f"{iv.method}, in place of the bootstrap: a bootstrap of {big_g} clusters says "
                                  "nothing")
    return cluster_t_interval(gaps, clusters, confidence=confidence)


def cluster_effect_sizes(effects, mean_a, mean_b, clusters, *, n_resamples: int = 10_000, seed: int | None = 0):
    """``effects`` (:class:`probestats.stats.effects.Effects` of these item means) with the d_z and d_av
    intervals of the clusters' level: the BCa bootstrap of whole clusters (each resample's d_z and d_av computed
    from the drawn clusters' items; Hedges' correction, when applied, scales the ends as it scales the
    estimate). The estimates stay; an interval the clusters cannot give (fewer than three, or a standardizer
    that is zero in most resamples) is none, said so.
    """
    a = np.asarray(mean_a, dtype=float)
    b = np.asarray(mean_b, dtype=float)
    g = a - b
    codes, big_g = _cluster_codes(clusters)
    n = a.size
    if n < 2:
        return effects
    ac, bc, gc = a - a.mean(), b - b.mean(), g - g.mean()
    moments = np.column_stack([np.bincount(codes, weights=w) for w in
                               (np.ones(n), gc, gc * gc, ac, ac * ac, bc, bc * bc)])
    shift_g, shift_ab = float(g.mean()), float(a.mean() - b.mean())

    def var(r, k):
        return (r[..., k + 1] - r[..., k] ** 2 / r[..., 0]) / (r[..., 0] - 1)

    def d_z(r):
        return (r[..., 1] / r[..., 0] + shift_g) / np.sqrt(var(r, 1))

    def d_av(r):
        return ((r[..., 3] - r[..., 5]) / r[..., 0] + shift_ab) / np.sqrt((var(r, 3) + var(r, 5)) / 2)

    how = (f"cluster bootstrap, BCa ({n_resamples:,} resamples of the {big_g} clusters, seed {seed}; each resample's "
           "effect size from the drawn clusters' items): the clusters are independent draws of the design (items "
           "within one need not be)")
    out = {}
    for name, stat, j in (("d_z", d_z, hedges_j(n - 1) if effects.hedges else 1.0),
                          ("d_av", d_av, hedges_j(dav_df(a, b)) if effects.hedges else 1.0)):
        eff = effects.get(name)
        if eff.value is None:
            out[name] = eff
            continue
        if big_g < 3:
            out[name] = replace(eff, low=None, high=None,
                                interval_method=f"no interval: {big_g} clusters cannot be resampled; add clusters")
            continue
        _, low, high = cluster_bootstrap(moments, stat, confidence=eff.confidence, n_resamples=n_resamples,
                                         seed=seed, kind="BCa")
        if not (np.isfinite(low) and np.isfinite(high)):
            out[name] = replace(eff, low=None, high=None,
                                interval_method="no interval: the standardizer is zero in most resamples of the clusters")
            continue
        out[name] = replace(eff, low=j * low, high=j * high, interval_method=how)
    return replace(effects, d_z=out["d_z"], d_av=out["d_av"])


def item_clusters(frame: pl.DataFrame, column: str, *, by=()) -> pl.DataFrame:
    """Each item's cluster (``item``, ``cluster`` as text; per ``by`` group when given, with its columns),
    refused when an item lies in several clusters.

    >>> frame = pl.DataFrame({"item": ["1", "1", "2"], "doc": ["x", "x", "y"]})
    >>> item_clusters(frame, "doc").sort("item").rows()
    [('1', 'x'), ('2', 'y')]
    """
    text = pl.col(column).cast(pl.String).fill_null("(blank)")
    keys = [*by, "item"]
    per = frame.group_by(keys, maintain_order=True).agg(text.unique().alias("cluster"))
    split = per.filter(pl.col("cluster").list.len() > 1)
    if split.height:
        item, where = split.select("item", "cluster").row(0)
        raise OptionError(f"{opt('cluster', column)}: item {item} lies in several clusters "
                          f"({', '.join(repr(w) for w in sorted(where)[:4])}); a cluster holds whole items: "
                          f"name the column that groups the items (document, vacancy, template)")
    return per.with_columns(pl.col("cluster").list.first(), pl.col("item").cast(pl.String))


def _mean_interval(means, ids, confidence: float) -> Interval:
    """The cluster-level t interval of one value's average item mean (:func:`cluster_t_interval` on the item
    means), its method naming the means."""
    iv = cluster_t_interval(means, ids, confidence=confidence)
    return replace(iv, method=iv.method.replace("of the average item gap", "of the average item mean"),
                   assumption=iv.assumption.replace("sums of item gaps", "sums of item means"))


def with_clusters(analysis, probe, tests=None):
    """The paired ``analysis`` with its tests and interval at the level of the clusters of the ``probe``'s
    ``cluster`` column, and the ``tests``' interval and resampling.

    ``interval`` is honoured at the clusters' level (:func:`cluster_interval`: ``t`` the cluster-level t,
    ``percentile`` and ``bootstrap`` the percentile and BCa bootstraps of whole clusters, ``sign-flip`` the
    inversion of the headline test, whole clusters flipped), and the effect sizes' intervals resample whole
    clusters (:func:`cluster_effect_sizes`).

    ``main``'s headline (the sign-flip test, or the within-item permutation where the runs differ by design), sign
    test, interval (``interval`` at the clusters' level) and smallest attainable p become the cluster-level ones
    (the item-level p and interval stay on ``clusters``); the published item-level tests, which treat the items as independent, are
    dropped. Whatever the runs per item, the inference is at the clusters' level: items of one cluster are not
    independent, and a test that reassigns runs within items (or flips items one by one) counts them as if they
    were; only where every cluster holds one item are the clusters the items, and runs unequal by design keep the
    exact within-item permutation (a column of one item per cluster is no cluster). ``by`` groups are tested at
    their clusters' level too, and corrected again; blocks (a setting that
    varies within items) average inside each item first, so the clusters hold the pooled item gaps. The verdict
    is decided again on the cluster test, keeping what the design said of it, with a caveat that names the
    clusters.
    """
    tests, column = as_tests(tests), probe.cluster
    frame = analysis.checked.frame
    if column not in frame.columns:
        raise OptionError(f"{opt('cluster', column)}: no such column in the log")
    main = analysis.main
    by = [k for k in (analysis.groups[0].by if analysis.groups else {}) if k in frame.columns]
    mapping = item_clusters(frame.filter(pl.col("variant").is_in([main.a, main.b])), column, by=by)
    pooled = mapping.unique(subset="item", keep="first", maintain_order=True).drop(by) if by else mapping
    how = dict(interval=tests.gap_interval, n_resamples=tests.n_resamples, seed=tests.seed)
    new_main, design = _at_cluster_level(main, pooled, column, **how)
    groups = analysis.groups
    if groups and by:   # each --by group at the level of its own clusters, corrected again across them
        clustered = []
        for g in groups:
            mask = pl.all_horizontal([_is(k, v) for k, v in g.by.items()])
            clustered.append(_at_cluster_level(g, mapping.filter(mask).drop(by), column, **how)[0])
        adjusted = adjust([g.headline_test.pvalue for g in clustered], analysis.correction)
        groups = tuple(replace(g, p_adjusted=p) for g, p in zip(clustered, adjusted))
    old = analysis.verdict
    verdict = decide(new_main, old.noise, alpha=analysis.alpha, pooled=old.pooled, blocks=old.blocks,
                     attribute_settings=old.attribute_settings, agreement=old.agreement)
    if old.conclusion == "against_constant" and verdict.detected:   # the design's reading of a constant arm stays
        verdict = replace(verdict, conclusion=old.conclusion, statement=old.statement)
    permuted = new_main.permutation is not None   # clusters of one item each, runs unequal: the items' own test
    kept = tuple(c if permuted else _clustered_caveat(c, column) for c in old.caveats
                 if c.id not in {v.id for v in verdict.caveats})
    verdict = replace(verdict, caveats=verdict.caveats + tuple(c for c in kept if c is not None),
                      blanks=old.blanks, control=old.control, reference_check=old.reference_check)
    verdict = with_caveats(verdict, Caveat("clusters", cluster_caveat(design, permuted=permuted),
                                           {"column": column, "n_clusters": design.n_clusters, "icc": design.icc,
                                            "design_effect": design.design_effect,
                                            "singletons": design.singletons, "item_p": design.item_pvalue}),
                           test=old.test if permuted else
                           f"the exact sign-flip test flipping whole clusters of {column} ({design.n_clusters} "
                           "clusters)")
    return replace(analysis, main=new_main, groups=groups, verdict=verdict, clusters=design)


def _is(column: str, value):
    """The rows of one group key's value as its result holds it (text for what JSON has no type for)."""
    if value is None:
        return pl.col(column).is_null()
    if isinstance(value, (bool, int, float)):
        return pl.col(column) == value
    return pl.col(column).cast(pl.String) == str(value)


def _at_cluster_level(pair, mapping: pl.DataFrame, column: str, *, interval: str = "t", n_resamples: int = 10_000,
                      seed: int | None = 0):
    """One compared pair (a ``PairResult``) tested at the level of its items' clusters (``mapping``: ``item``,
    ``cluster``), and the :class:`ClusterDesign` of it."""
    items = pair.items.with_columns(pl.col("item").cast(pl.String)).join(mapping, on="item", how="left",
                                                                         maintain_order="left")
    gaps = items["gap"].to_numpy().astype(float)
    ids = items["cluster"].fill_null("(blank)").to_numpy()
    names, codes = np.unique(ids.astype(str), return_inverse=True)
    sums = np.bincount(codes, weights=gaps)
    counts = np.bincount(codes)
    n = len(gaps)
    alternative = pair.sign_flip.alternative
    flip = sign_flip_test(sums, alternative=alternative)
    unequal = ("" if pair.permutation is None else
               "; the runs per item differ by design, so an item's gap is not exactly symmetric about zero under the "
               "null: flipping whole clusters rests on their sums being so (a randomization test under approximate "
               f"symmetry), and the within-item permutation, which treats the items as independent, gave p = "
               f"{pair.permutation.pvalue:.3g}")
    flip = replace(flip, statistic=float(np.sum(gaps) / n) if n else float("nan"),
                   method=f"{flip.method}; whole clusters flipped: the test on the {len(names)} clusters' sums "
                          f"of item gaps{unequal}")
    signs = replace(sign_test(sums, alternative=alternative),
                    method=f"sign test on the {len(names)} clusters' sums of item gaps")
    confidence = pair.interval.confidence
    effects = pair.effects
    if "mean_a" in items.columns and "mean_b" in items.columns and effects is not None:
        effects = cluster_effect_sizes(effects, items["mean_a"].to_numpy().astype(float),
                                       items["mean_b"].to_numpy().astype(float), ids, n_resamples=n_resamples, seed=seed)
    interval = cluster_interval(gaps, ids, method=interval, confidence=confidence, alternative=alternative,
                                n_resamples=n_resamples, seed=seed)
    icc, _, deff = intra_cluster_correlation(gaps, ids)
    floor = min_attainable_p(int(np.count_nonzero(sums)), alternative=alternative)
    design = ClusterDesign(column=column, n_clusters=len(names), n_items=n,
                           sizes=(int(counts.min()), int(counts.max()), float(counts.mean())) if n else (0, 0, 0.0),
                           singletons=int(np.sum(counts == 1)), icc=icc, design_effect=deff, sign_flip=flip,
                           sign_test=signs, interval=interval, min_attainable_p=floor,
                           item_pvalue=pair.headline_test.pvalue, item_interval=pair.interval)
    means = tuple(_mean_interval(items[side].to_numpy().astype(float), ids, confidence)
                  for side in ("mean_a", "mean_b"))
    if pair.permutation is not None and n and counts.max() == 1:
        # every cluster holds one item: the clusters are the items, and reassigning the runs within each item is the
        # exact test at their level, where flipping them rests on a symmetry that unequal runs do not give (a
        # column of one item per cluster then leaves the headline as it was without it)
        return replace(pair, sign_test=signs, interval=interval, published=(), mean_intervals=means), design
    return replace(pair, sign_flip=flip, sign_test=signs, interval=interval, min_attainable_p=floor, published=(),
                   effects=effects, permutation=None, not_applicable=None, mean_intervals=means), design


def _clustered_caveat(caveat, column: str):
    """An item-level design caveat as it reads once the tests are at the clusters' level: the unequal runs'
    caveat no longer names the within-item permutation as the verdict's test."""
    if caveat.id not in ("unequal_runs", "group_side"):
        return caveat
    head = caveat.sentence.split(": the item gap is not symmetric")[0].split(", each item's gap one side")[0]
    return Caveat(caveat.id, f"{head}: the item gap is not symmetric about zero under the null, and the items are "
                             f"nested in clusters of {column}, so the verdict rests on flipping whole clusters, whose "
                             "sums of item gaps are nearly symmetric when the clusters hold several items or runs; the "
                             "sign test and Wilcoxon's test are not tests of this design.", caveat.figures)


def cluster_caveat(design: ClusterDesign, *, permuted: bool = False) -> str:
    """The clusters in one sentence, as the verdict carries it (``permuted``: every cluster holds one item and the
    runs differ by design, so the test is the items' own within-item permutation).

    >>> from types import SimpleNamespace as NS
    >>> d = NS(column="doc", n_clusters=3, n_items=7, sizes=(1, 3, 7 / 3), singletons=1, icc=0.5,
    ...        design_effect=1.9, item_pvalue=0.0156, min_attainable_p=0.25, interval=NS(method="cluster-level t"))
    >>> print(cluster_caveat(d))  # doctest: +NORMALIZE_WHITESPACE
    The 7 items are nested in 3 clusters of doc (1 to 3 items each; intra-cluster correlation of the item gaps
    0.5, design effect 1.9): the tests flip whole clusters and the interval is a cluster-level t (treating the
    items as independent gave p = 0.0156); the effect sizes' intervals resample whole clusters. 1 cluster holds
    one item only, and counts as that item alone. With 3 clusters the smallest attainable p is 0.25.
    """
    size = (f"{design.sizes[0]} items each" if design.sizes[0] == design.sizes[1]
            else f"{design.sizes[0]} to {design.sizes[1]} items each")
    icc = ("" if design.icc is None else
           f"; intra-cluster correlation of the item gaps {design.icc:.3g}, design effect {design.design_effect:.3g}")
    if permuted:
        return (f"Each of the {design.n_clusters} clusters of {design.column} holds one item: the clusters are the "
                f"items, so the test is the items' own, the exact permutation of the runs within each item (p = "
                f"{design.item_pvalue:.3g}), which unequal runs need; the interval is a cluster-level t.")
    text = (f"The {design.n_items} items are nested in {design.n_clusters} clusters of {design.column} ({size}{icc}): "
            f"the tests flip whole clusters and the interval is {_interval_kind(design.interval)} (treating the items "
            f"as independent gave p = {design.item_pvalue:.3g}); the effect sizes' intervals resample whole clusters.")
    if design.singletons:
        text += (f" {count_of(design.singletons, 'cluster')} {'holds' if design.singletons == 1 else 'hold'} one item "
                 f"only, and {'counts' if design.singletons == 1 else 'count'} as that item alone.")
    if design.min_attainable_p > 0.05 or design.n_clusters < 10:
        text += (f" With {design.n_clusters} clusters the smallest attainable p is {float(design.min_attainable_p):.3g}.")
    return text


def _interval_kind(interval) -> str:
    """The cluster-level interval's kind in words, from its method.

    >>> from types import SimpleNamespace as NS
    >>> _interval_kind(NS(method="cluster bootstrap, BCa (2,000 resamples)"))
    'a BCa bootstrap of whole clusters'
    """
    method = str(getattr(interval, "method", ""))
    if method.startswith("cluster bootstrap, BCa"):
        return "a BCa bootstrap of whole clusters"
    if method.startswith("cluster bootstrap"):
        return "a percentile bootstrap of whole clusters"
    if method.startswith("sign-flip test inversion"):
        return "the inversion of the test that flips whole clusters"
    return "a cluster-level t"


def cluster_candidates(names, metric: str, exclude=()) -> list[str]:
    """The columns :func:`suggest_clusters` considers: not the metric, ``exclude``, the run's own columns, an
    internal column or a setting held fixed by its name.

    >>> cluster_candidates(["item", "variant", "seed", "topic", "model", "steps", "_x"], "steps")
    ['topic']
    """
    skip = set(_NOT_CLUSTERS) | {metric, *exclude}
    return [c for c in names if c not in skip and not c.startswith("_") and not _held_fixed_name(c)]


def suggest_clusters(analysis, *, exclude=(), items: pl.DataFrame | None = None) -> Problem | None:
    """A ``clustered_items`` warning when a column of the log is one the items nest in and whose clusters' gaps
    are alike.

    A candidate is a column constant within every item (a setting that varies within items, such as a model that
    answers every item, is a block, not a cluster) that is not a held-fixed setting by its name (model, judge,
    temperature, system, file: where the model is part of the item id, its column is constant within items but
    crosses the items' own nesting), with at least :data:`SUGGEST_MIN_CLUSTERS` clusters (fewer cannot carry a
    cluster-level test: with k clusters the smallest attainable p is 2 / 2^k, and the ICC of a few groups is a
    moderator's, not a nesting's) and at most half as many clusters as items (many items per cluster). A
    candidate qualifies when its ICC is at least :data:`SUGGEST_ICC` and its one-way ANOVA F test's p at most
    :data:`SUGGEST_P` divided by the number of candidates (Bonferroni: on logs with no cluster effect the
    suggestion fires at most SUGGEST_P of the time whatever the number of candidate columns; measured in
    ``benchmarks/caveats.py``). Of the qualifying columns the finest (most clusters) is suggested, its ICC,
    number of clusters and smallest attainable p named.

    ``items`` is what the streaming pass read of the candidates (``Streamed.clusters``: each item's value and
    whether it holds one), used instead of a pass of its own when it holds every candidate.

    >>> SUGGEST_MIN_CLUSTERS
    10
    """
    main = analysis.main
    log = analysis.checked.log
    n_items = main.n_items if hasattr(main, "n_items") else main.items.height
    if n_items < 2 * SUGGEST_MIN_CLUSTERS:
        return None
    candidates = cluster_candidates(log.lazy.collect_schema().names(), main.metric, exclude)
    if not candidates:
        return None
    if items is not None and all(c in items.columns for c in candidates):
        # read in the streaming pass: an item's one value, and whether it holds one
        one = {c: bool(items[f"{c}\x00constant"].all()) for c in candidates}
        first = items.select("item", *[pl.col(c).alias(f"{c}\x00first") for c in candidates])
    else:
        text = {c: pl.col(c).cast(pl.String) for c in candidates}
        try:
            per = (log.lazy.select(pl.col("item").cast(pl.String), *[t.alias(c) for c, t in text.items()])
                   .group_by("item").agg([pl.col(c).n_unique().alias(c) for c in candidates]
                                         + [pl.col(c).first().alias(f"{c}\x00first") for c in candidates]).collect())
        except Exception:   # a column polars cannot read as text (nested values): no suggestion from it
            return None
        one = {c: per[c].max() == 1 for c in candidates}
        first = per
    gaps = main.items.select(pl.col("item").cast(pl.String), "gap")
    nesting = []
    for c in candidates:
        if not one[c]:
            continue
        mapping = first.select("item", pl.col(f"{c}\x00first").alias("cluster"))
        joined = gaps.join(mapping, on="item", how="inner")
        if joined.height < n_items:
            continue
        k = joined["cluster"].n_unique()
        if k < SUGGEST_MIN_CLUSTERS or k > n_items / 2:
            continue
        if float(min_attainable_p(k, alternative=main.sign_flip.alternative)) > analysis.alpha:
            continue   # a suggestion the design could never reach significance with
        nesting.append((c, k, joined))
    best = None
    for c, k, joined in nesting:
        icc, p, deff = intra_cluster_correlation(joined["gap"].to_numpy(), joined["cluster"].fill_null("").to_numpy())
        if icc is None or p is None or icc < SUGGEST_ICC or p > SUGGEST_P / len(nesting):
            continue
        if best is None or (k, icc) > (best[4], best[1]):
            best = (c, icc, p, deff, k)
    if best is None:
        return None
    c, icc, p, deff, k = best
    header = log.columns.get(c, c)
    floor = float(min_attainable_p(k, alternative=main.sign_flip.alternative))
    return Problem("warning", "clustered_items",
                   f"The {n_items} items may be nested in clusters: the {k} clusters of {header} ({n_items / k:.3g} "
                   f"items each on average), whose gaps are alike (intra-cluster correlation {icc:.3g}, one-way ANOVA F test "
                   f"p = {p:.2g} over {count_of(len(nesting), 'candidate column')}, design effect {deff:.3g}): the "
                   f"tests treat the items as independent, so p and the interval overstate the evidence; with "
                   f"{k} clusters a cluster-level test can reach p = {floor:.2g}; declare the clusters with "
                   f"{opt('cluster', c)}", (), header)


def _held_fixed_name(column: str) -> bool:
    """Whether ``column`` names a setting held fixed or varied as a block (model, judge, temperature, system,
    file), by a word of its name.

    >>> [_held_fixed_name(c) for c in ("model", "judge_model", "Temperature", "scenario", "source_file", "template")]
    [True, True, True, False, True, False]
    """
    import re

    words = {w for w in re.split(r"[^a-z0-9]+", column.lower()) if w}
    return bool(words & set(_HELD_FIXED))
