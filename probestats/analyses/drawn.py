"""Settings drawn at random per call (a temperature sampled for every request): checked, then shown both ways.

A setting declared randomized (``random_settings=("temperature",)``, ``--random-setting temperature``) may
differ from run to run, and between the compared values, without being a confound, as long as the draw did
not depend on the value. :func:`balance_test` checks that: an exact-level permutation test of independence
between the setting and the value, the value labels permuted within items as the design assigned them (a
numeric setting compares its mean under the two values, a text setting its table of levels by the chi-square
statistic).

A p alone cannot tell a draw that depends on the value from an honest draw unbalanced by chance: at alpha 0.05
one honest log in twenty is unbalanced by that test. So the size of the imbalance decides with it: the
**standardized difference** of a numeric setting (``|mean_a − mean_b|`` over the setting's pooled SD) or the
**total variation distance** between the two values' shares of a text setting's levels (half the sum of the
absolute differences; 0 the same shares, 1 no level in common). A setting **tracks the value** when its test
gives p at most alpha *and* the size is at least :data:`TRACKS_SIZE` (0.5 standardized, 0.25 in shares, the
same for a two-level setting at equal shares): that is refused as a confound (``confounded_setting``, with the
test's p and the size). An imbalance smaller than that is what chance gives a randomized draw; it is adjusted
for and reported (the caveat gives the balance p and the size beside the adjusted gap), not refused.

A setting that does not track the value stays out of the matching (it is not a block) and the gap is shown two more ways:

- **stratified**: items matched within levels of the setting (a numeric setting with more than five values
  binned at its quintiles), each item's gap the mean of its within-level gaps, tested as the headline is;
- **adjusted**: the metric regressed on the value and the setting with one intercept per item (an OLS with a
  setting term, as published audits fit it; the setting linear when numeric, one term per level when text),
  computed by removing the item means (Frisch–Waugh–Lovell); its standard error is the classical OLS one, which
  treats the runs as independent.

Examples
--------
>>> import polars as pl
>>> frame = pl.DataFrame({"item": ["1"] * 4 + ["2"] * 4, "variant": ["a", "b"] * 4,
...                       "t": [0.1, 0.2, 0.9, 0.8, 0.3, 0.4, 0.6, 0.5], "y": [1.0, 0.0, 2.0, 1.0, 3.0, 2.0, 4.0, 3.0]})
>>> round(adjusted_gap(frame, "y", "a", "b", "t").gap, 12)
1.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
import polars as pl

from probestats.analyses.halves import blocked_item_table
from probestats.analyses.pair_tests import compare_pair
from probestats.errors import OptionError, Problem, opt
from probestats.result import jsonable
from probestats.stats.ranked import smallest_in_cells

__all__ = ["BalanceTest", "AdjustedGap", "DrawnSetting", "balance_test", "adjusted_gap", "stratified_table", "unmatched_refusal",
           "drawn_setting", "unbalanced_problem", "STRATA", "TRACKS_SIZE"]

#: a numeric setting with more values than this is binned at its quantiles into this many strata
STRATA = 5

#: keys drawn at once by the balance test (2 MB)
BATCH_KEYS = 1 << 18

#: the smallest imbalance of a setting that tracks the value: a standardized difference of means (numeric);
#: a text setting's total variation distance is compared with half of it (a two-level setting at equal shares
#: gives the same reading either way)
TRACKS_SIZE = 0.5


@dataclass(frozen=True)
class BalanceTest:
    """Whether a randomized setting is independent of the compared value.

    Attributes
    ----------
    column : str
        The setting.
    numeric : bool
        The setting is a number (its means compared) rather than text (its levels' table compared).
    mean_a, mean_b : float or None
        The setting's mean over the runs of each value (numeric settings).
    statistic : float
        |mean_a − mean_b| (numeric) or the chi-square statistic of the value × level table (text).
    pvalue : float
        The permutation p: the share of the ``n_resamples`` within-item relabellings, and the observed one,
        whose statistic is at least the observed (valid at every level).
    pvalue_se : float
        Its Monte Carlo standard error.
    n_resamples : int
    seed : int or None
    method : str
        The test in words.
    size : float
        The imbalance's size: the standardized difference of means (numeric) or the total variation distance
        between the values' shares of the levels (text).
    """

    column: str
    numeric: bool
    mean_a: float | None
    mean_b: float | None
    statistic: float
    pvalue: float
    pvalue_se: float
    n_resamples: int
    seed: int | None
    method: str
    size: float = 0.0

    @property
    def size_name(self) -> str:
        return "standardized difference" if self.numeric else "total variation distance"

    @property
    def size_limit(self) -> float:
        """The size at or beyond which the setting tracks the value."""
        return TRACKS_SIZE if self.numeric else TRACKS_SIZE / 2

    def tracks(self, alpha: float) -> bool:
        """The setting tracks the value: p at most ``alpha`` and a size at least :attr:`size_limit`."""
        return self.pvalue <= alpha and self.size >= self.size_limit

    def unbalanced(self, alpha: float) -> bool:
        """Unbalanced by chance: p at most ``alpha``, the size below :attr:`size_limit` (adjusted, not refused)."""
        return self.pvalue <= alpha and not self.tracks(alpha)

    def to_dict(self) -> dict:
        return {k: jsonable(getattr(self, k)) for k in ("column", "numeric", "mean_a", "mean_b", "statistic")} | {
            "p": self.pvalue, "p_se": self.pvalue_se, "n_resamples": self.n_resamples, "seed": self.seed,
            "method": self.method, "size": jsonable(self.size), "size_name": self.size_name,
            "size_limit": self.size_limit}


@dataclass(frozen=True)
class AdjustedGap:
    """The gap adjusted for a setting by OLS with item intercepts.

    Attributes
    ----------
    gap : float
        The coefficient of the value (``a`` = 1, ``b`` = 0).
    se : float
        Its classical OLS standard error.
    pvalue : float
        Two-sided t test of the coefficient on ``df`` degrees of freedom.
    df : int
        Runs − items − terms.
    low, high : float
        Its t interval at ``confidence``.
    confidence : float
    setting_terms : dict
        The setting's coefficient(s): one for a numeric setting (per unit), one per level but the first for text.
    method : str
        The model in words.
    """

    gap: float
    se: float
    pvalue: float
    df: int
    low: float
    high: float
    confidence: float
    setting_terms: dict
    method: str

    def to_dict(self) -> dict:
        return {"gap": jsonable(self.gap), "se": jsonable(self.se), "p": jsonable(self.pvalue), "df": int(self.df),
                "low": jsonable(self.low), "high": jsonable(self.high), "confidence": self.confidence,
                "setting_terms": {k: jsonable(v) for k, v in self.setting_terms.items()}, "method": self.method}


@dataclass(frozen=True)
class DrawnSetting:
    """A setting drawn at random per call: its balance across the values and the gap both ways.

    Attributes
    ----------
    column : str
        The setting (``random_settings=``).
    levels : int
        Its distinct values among the compared runs.
    strata : int
        The levels the stratified gap matches items within (quantile bins of a numeric setting beyond five values).
    balance : BalanceTest
        The test that it is independent of the value.
    stratified : PairResult
        The comparison with items matched within the strata (its own item table, tests and interval).
    stratified_items : int
        Items with a stratum run under both values (the others have no within-stratum gap).
    adjusted : AdjustedGap
        The gap adjusted for the setting by OLS with item intercepts.
    """

    column: str
    levels: int
    strata: int
    balance: BalanceTest
    stratified: object
    stratified_items: int
    adjusted: AdjustedGap

    def to_dict(self) -> dict:
        s = self.stratified
        return {"column": self.column, "levels": self.levels, "strata": self.strata,
                "balance": self.balance.to_dict(),
                "stratified": {"average_gap": jsonable(s.average_gap), "p": jsonable(s.sign_flip.pvalue),
                               "method": s.sign_flip.method, "interval": s.interval.to_dict(),
                               "n_items": self.stratified_items},
                "adjusted": self.adjusted.to_dict()}


def _numeric(series: pl.Series) -> bool:
    return series.dtype.is_numeric()


def _pair(frame: pl.DataFrame, a: str, b: str, column: str, metric: str | None = None) -> pl.DataFrame:
    keep = ["item", "variant", column] + ([metric] if metric else [])
    pair = frame.filter(pl.col("variant").is_in([a, b])).select(keep)
    return pair.drop_nulls([column] + ([metric] if metric else []))


def balance_test(frame: pl.DataFrame, column: str, a: str, b: str, *, n_resamples: int = 10_000,
                 seed: int | None = 0) -> BalanceTest:
    """The permutation test that ``column`` is independent of the value (see the module's description).

    >>> frame = pl.DataFrame({"item": ["1"] * 4 + ["2"] * 4, "variant": ["a", "b"] * 4,
    ...                       "t": [0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]})
    >>> r = balance_test(frame, "t", "a", "b", n_resamples=999)
    >>> r.mean_a, r.mean_b, r.pvalue < 0.1
    (0.0, 1.0, True)
    """
    pair = _pair(frame, a, b, column)
    if pair.height == 0:
        named = opt("random_settings", [column])
        raise OptionError(f"{named}: the column '{column}' is empty in every run of '{a}' and '{b}', so there is no "
                          f"draw to check; fill it in, or drop {named}")
    _, item_codes = np.unique(pair["item"].cast(pl.String).to_numpy(), return_inverse=True)
    rows = np.argsort(item_codes, kind="stable")   # each item's runs side by side
    pair, item_codes = pair[rows], item_codes[rows]
    numeric = _numeric(pair[column])
    is_a = (pair["variant"] == a).to_numpy()
    rng = np.random.default_rng(seed)
    if numeric:
        x = pair[column].cast(pl.Float64).to_numpy()
        n_a, n_b = is_a.sum(), (~is_a).sum()

        def stat(labels):
            return np.abs((labels * x).sum(axis=-1) / n_a - ((~labels) * x).sum(axis=-1) / n_b)
        tally = _mean_gap_tally(x, n_a, n_b, stat)
    else:
        _, level_codes = np.unique(pair[column].cast(pl.String).to_numpy(), return_inverse=True)
        onehot = np.eye(level_codes.max() + 1)[level_codes]
        totals = onehot.sum(axis=0)
        n_a = is_a.sum()
        expected_a = totals * n_a / len(is_a)
        expected_b = totals - expected_a

        def stat(labels):
            obs_a = labels.astype(float) @ onehot
            obs_b = totals - obs_a
            return (((obs_a - expected_a) ** 2 / expected_a).sum(axis=-1)
                    + ((obs_b - expected_b) ** 2 / expected_b).sum(axis=-1))

        def tally(labels, threshold, _):
            return int(np.sum(stat(labels) >= threshold))
    observed = float(stat(is_a))
    tol = 1e-9 * max(1.0, abs(observed))
    hits = _within_item_hits(item_codes, is_a, tally, observed - tol, n_resamples, rng)
    p = (hits + 1) / (n_resamples + 1)
    se = math.sqrt(p * (1 - p) / (n_resamples + 1))
    x_a = pair.filter(pl.col("variant") == a)[column]
    x_b = pair.filter(pl.col("variant") == b)[column]
    what = "its mean under the two values" if numeric else "its levels' table by value (chi-square statistic)"
    if numeric:
        xa, xb = x_a.cast(pl.Float64).to_numpy(), x_b.cast(pl.Float64).to_numpy()
        pooled = math.sqrt(((len(xa) - 1) * xa.var(ddof=1) + (len(xb) - 1) * xb.var(ddof=1)) / (len(xa) + len(xb) - 2)) \
            if len(xa) > 1 and len(xb) > 1 else 0.0
        diff = abs(float(xa.mean()) - float(xb.mean())) if len(xa) and len(xb) else 0.0
        size = diff / pooled if pooled > 0 else (math.inf if diff > 0 else 0.0)
    else:
        share_a = onehot[is_a].mean(axis=0) if is_a.any() else np.zeros(onehot.shape[1])
        share_b = onehot[~is_a].mean(axis=0) if (~is_a).any() else np.zeros(onehot.shape[1])
        size = float(np.abs(share_a - share_b).sum() / 2)
    return BalanceTest(column=column, numeric=numeric, size=float(size),
                       mean_a=float(x_a.cast(pl.Float64).mean()) if numeric else None,
                       mean_b=float(x_b.cast(pl.Float64).mean()) if numeric else None,
                       statistic=observed, pvalue=p, pvalue_se=se, n_resamples=n_resamples, seed=seed,
                       method=(f"permutation test of independence of {column} and the value: {what}, the value "
                               f"labels permuted within items ({n_resamples:,} draws, seed {seed}; the p counts the "
                               f"observed labelling, so it holds its level; Monte Carlo error {se:.1g})"))


def _within_item_hits(item_codes: np.ndarray, is_a: np.ndarray, tally, threshold: float, draws: int,
                      rng: np.random.Generator) -> int:
    """How many of ``draws`` relabellings within items (``item_codes`` sorted) give a statistic at least
    ``threshold``: ``tally(labels, threshold, spare)`` counts a batch (``spare``, a float buffer of the
    labels' shape it may write over). The draws are ``rng.random((draws, n))``'s, a batch of rows at a
    time: each draw is a row of keys, so the batches' size changes nothing but the memory they take."""
    within, block = _within_items(item_codes), _label_block(item_codes, is_a)
    # batches of about 2 MB of keys, drawn into one buffer: they and the batch's few passes over them stay in
    # the cache (batches of 30 MB, fresh for each, cost twice the CPU on a busy machine, most of it waiting)
    rows = max(1, min(500, draws, BATCH_KEYS // max(1, len(is_a))))
    buffer = np.empty((rows, len(is_a)))
    hits = 0
    for start in range(0, draws, rows):
        size = min(rows, draws - start)
        keys = rng.random(out=buffer[:size])
        # permute the labels within items: order the rows by (item, random key) and hand out each item's labels
        if block is None:
            order = within(keys)
            labels = np.empty_like(keys, dtype=bool)
            np.put_along_axis(labels, order, np.broadcast_to(is_a, keys.shape), axis=-1)
        else:   # each item's runs of one value first (or last): those labels go to its smallest keys
            sizes, take, last = block
            labels = smallest_in_cells(keys.ravel(), np.tile(sizes, size), np.tile(take, size)).reshape(keys.shape)
            if last:
                labels ^= True
        hits += tally(labels, threshold, keys)   # the keys are spent: their buffer is the tally's to use
    return hits


def _mean_gap_tally(x: np.ndarray, n_a: int, n_b: int, stat):
    """The ``tally`` of :func:`_within_item_hits` for a numeric setting: |mean under a − mean under b| of
    each draw from one matrix product (the labels as 0 and 1 times ``x``), compared with the threshold; the
    draws within float error of it (``margin``, a bound on how far the product's statistic and ``stat``'s
    can be apart) are decided by ``stat`` itself, so the count is ``stat``'s to the last draw."""
    total = math.fsum(x)
    # each sum of up to n products is within n ulp of its size (sum |x|) of the true one, either way it is
    # summed; the means, their difference and the |.| add a few ulp of the statistic's size
    margin = 8.0 * (x.size + 4) * np.finfo(float).eps * float(np.abs(x).sum()) * (1.0 / n_a + 1.0 / n_b)

    def tally(labels, threshold, spare):
        weights = spare[: labels.shape[0]]
        np.copyto(weights, labels)
        in_a = weights @ x
        fast = np.abs(in_a / n_a - (total - in_a) / n_b)
        near = ~(np.abs(fast - threshold) > margin)   # a nan (an infinite setting) is left to stat as well
        hits = int(np.count_nonzero(fast[~near] >= threshold))
        return hits + (int(np.count_nonzero(stat(labels[near]) >= threshold)) if near.any() else 0)

    return tally


def _label_block(item_codes: np.ndarray, is_a: np.ndarray):
    """``(sizes, take, last)`` when every item's rows (``item_codes`` sorted) hold its runs of value A first
    (``last`` False: ``take`` is each item's runs of A) or last (``last`` True: ``take`` its runs of B), as a
    log written item by item and value by value does; None otherwise.

    Handing each item's labels out in the order of its random keys then gives the first ``take`` labels to its
    ``take`` smallest keys: labels A (or B, and A to the rest) are told by a partial sort of each item's keys
    (:func:`probestats.stats.ranked.smallest_in_cells`), without ranking them all.

    >>> _label_block(np.array([0, 0, 0, 1, 1]), np.array([True, True, False, True, False]))
    (array([3, 2]), array([2, 1]), False)
    >>> _label_block(np.array([0, 0, 1, 1]), np.array([False, True, True, False])) is None
    True
    """
    if not item_codes.size:
        return None
    starts = np.flatnonzero(np.r_[True, item_codes[1:] != item_codes[:-1]])
    sizes = np.diff(np.r_[starts, item_codes.size])
    rank = np.arange(item_codes.size) - np.repeat(starts, sizes)
    runs_a = np.add.reduceat(is_a.astype(np.int64), starts)
    if (is_a == (rank < np.repeat(runs_a, sizes))).all():
        return sizes, runs_a, False
    if (is_a == (rank >= np.repeat(sizes - runs_a, sizes))).all():
        return sizes, sizes - runs_a, True
    return None


def _within_items(item_codes: np.ndarray):
    """A function of random keys (one row of keys per draw) giving the order of the rows by (item, key), as
    ``np.lexsort((keys, item_codes), axis=-1)`` does, for ``item_codes`` sorted (each item's rows side by side).

    The rows are laid out as an items x longest-item grid, the cells past an item's runs padded with a key above
    every drawn one (keys are in [0, 1)), and each item's keys sorted alone: a stable sort of short rows instead
    of a sort of the whole draw by two keys (the order is the same, ties included: both sorts are stable).

    >>> codes = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    >>> keys = np.random.default_rng(3).random((4, codes.size))
    >>> bool((_within_items(codes)(keys) == np.lexsort((keys, np.broadcast_to(codes, keys.shape)), axis=-1)).all())
    True
    """
    n = item_codes.size
    starts = np.flatnonzero(np.r_[True, item_codes[1:] != item_codes[:-1]]) if n else np.zeros(0, dtype=np.intp)
    sizes = np.diff(np.r_[starts, n])
    width = int(sizes.max()) if n else 0
    rank = np.arange(n) - np.repeat(starts, sizes)   # each row's place within its item
    grid = np.repeat(np.arange(starts.size), sizes) * width + rank   # its cell of the grid
    filled = np.arange(starts.size * width).reshape(starts.size, width) % width < sizes[:, None]

    def order(keys: np.ndarray) -> np.ndarray:
        if n and (sizes == width).all():   # items of equal runs: the grid is the keys themselves
            ranks = _stable_argsort(keys.reshape(keys.shape[0], starts.size, width))
            return (ranks + starts[:, None]).reshape(keys.shape[0], -1)
        padded = np.full((keys.shape[0], starts.size * width), 2.0)
        padded[:, grid] = keys
        ranks = _stable_argsort(padded.reshape(keys.shape[0], starts.size, width))
        rows = (ranks + starts[:, None]).reshape(keys.shape[0], -1)   # each item's rows in key order
        return rows[:, filled.ravel()]

    return order


def _stable_argsort(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys, axis=-1, kind="stable")`` where it matters, by the faster unstable sort when no two
    keys below 1 tie in a row (random keys in [0, 1) almost never do; the padding, 2.0, of an item's unused
    cells sorts after its keys in either order, and its places are dropped)."""
    ranks = np.argsort(keys, axis=-1)
    ordered = np.take_along_axis(keys, ranks, axis=-1)
    if ((ordered[..., 1:] == ordered[..., :-1]) & (ordered[..., 1:] < 1.0)).any():
        return np.argsort(keys, axis=-1, kind="stable")
    return ranks


def _strata(pair: pl.DataFrame, column: str) -> tuple[pl.DataFrame, int]:
    """The pair with a ``_stratum`` column: the setting's levels, or its quantile bins beyond :data:`STRATA`."""
    levels = pair[column].n_unique()
    if not _numeric(pair[column]) or levels <= STRATA:
        return pair.with_columns(pl.col(column).cast(pl.String).alias("_stratum")), levels
    x = pair[column].cast(pl.Float64)
    cuts = sorted(set(np.quantile(x.to_numpy(), np.linspace(0, 1, STRATA + 1)[1:-1]).tolist()))
    bins = np.searchsorted(np.asarray(cuts), x.to_numpy(), side="right")
    return pair.with_columns(pl.Series("_stratum", bins.astype(str))), len(set(bins.tolist()))


def unmatched_refusal(frame: pl.DataFrame, a: str, b: str, column: str, metric: str | None = None) -> str | None:
    """Why a setting declared randomized cannot be matched within (no item has runs of both ``a`` and ``b`` at
    one of its levels or bins, among the runs with a metric when ``metric`` is given), else None: the one check
    behind the refusal of the analysis and of the validation alike.

    >>> frame = pl.DataFrame({"item": ["1"] * 4, "variant": ["a", "b"] * 2, "call": ["c1", "c2", "c3", "c4"]})
    >>> print(unmatched_refusal(frame, "a", "b", "call"))
    random_settings=['call']: no item has runs of both 'a' and 'b' at one level of call (4 levels in 4 runs), so the gap cannot be matched within it; drop random_settings=['call'], or name a setting whose values repeat within items
    >>> unmatched_refusal(frame.with_columns(pl.lit("same").alias("call")), "a", "b", "call") is None
    True
    """
    pair, strata = _strata(_pair(frame, a, b, column, metric), column)
    matched = pair.group_by("item", "_stratum").agg(pl.col("variant").n_unique().alias("k")).filter(pl.col("k") == 2)
    if matched.height:
        return None
    return (f"{opt('random_settings', [column])}: no item has runs of both '{a}' and '{b}' at one level of {column} "
            f"({strata:,} levels in {pair.height:,} runs), so the gap cannot be matched within it; drop "
            f"{opt('random_settings', [column])}, or name a setting whose values repeat within items")


def stratified_table(frame: pl.DataFrame, metric: str, a: str, b: str, column: str) -> tuple[pl.DataFrame, int]:
    """The item table with items matched within strata of ``column``, and the number of strata."""
    pair, strata = _strata(_pair(frame, a, b, column, metric), column)
    return blocked_item_table(pair, metric, a, b, ["_stratum"]), strata


def adjusted_gap(frame: pl.DataFrame, metric: str, a: str, b: str, column: str, *,
                 confidence: float = 0.95) -> AdjustedGap:
    """The value's OLS coefficient with item intercepts and a setting term (see the module's description)."""
    # Student's t from scipy.special, as scipy.stats.t computes it (sf: stdtr(df, -t), ppf: stdtrit(df, q)),
    # without importing scipy.stats (seconds on a busy machine; the analysis without a drawn setting never does)
    from scipy.special import stdtr, stdtrit

    pair = _pair(frame, a, b, column, metric)
    y = pair[metric].cast(pl.Float64).to_numpy()
    d = (pair["variant"] == a).to_numpy().astype(float)
    if _numeric(pair[column]):
        terms = {column: pair[column].cast(pl.Float64).to_numpy()}
    else:
        text = pair[column].cast(pl.String).to_numpy()
        levels = sorted(set(text.tolist()))
        terms = {f"{column}={lv}": (text == lv).astype(float) for lv in levels[1:]}
    _, codes = np.unique(pair["item"].cast(pl.String).to_numpy(), return_inverse=True)
    n_items = codes.max() + 1
    counts = np.bincount(codes)

    def within(v):
        return v - (np.bincount(codes, weights=v) / counts)[codes]

    x = np.column_stack([within(d)] + [within(v) for v in terms.values()])
    keep = [0] + [j for j in range(1, x.shape[1]) if np.any(np.abs(x[:, j]) > 1e-12)]
    x = x[:, keep]
    yw = within(y)
    df = len(y) - n_items - x.shape[1]
    if df < 1:
        raise OptionError(f"{opt('random_settings', [column])}: too few runs within items to adjust for it "
                          f"({len(y)} runs, {n_items} items)")
    beta, *_ = np.linalg.lstsq(x, yw, rcond=None)
    resid = yw - x @ beta
    sigma2 = float(resid @ resid) / df
    cov = sigma2 * np.linalg.pinv(x.T @ x)
    se = math.sqrt(cov[0, 0])
    t = beta[0] / se if se > 0 else math.inf
    p = float(2 * stdtr(df, -abs(t))) if se > 0 else 0.0
    q = float(stdtrit(df, 0.5 + confidence / 2))
    names = list(terms)
    setting_terms = {names[j - 1]: float(beta[i]) for i, j in enumerate(keep) if j > 0}
    what = "linear in it" if _numeric(pair[column]) else "one term per level"
    return AdjustedGap(gap=float(beta[0]), se=se, pvalue=p, df=int(df), low=float(beta[0] - q * se),
                       high=float(beta[0] + q * se), confidence=confidence, setting_terms=setting_terms,
                       method=(f"OLS of {metric} on the value and {column} ({what}) with one intercept per item, "
                               f"{len(y)} runs; classical standard error (runs treated as independent), t test on "
                               f"{df} degrees of freedom"))


def unbalanced_problem(balance: BalanceTest, a: str, b: str, header: str) -> Problem:
    """The ``confounded_setting`` error of a randomized setting that tracks the value (:meth:`BalanceTest.tracks`)."""
    means = (f" (mean {balance.mean_a:.3g} under '{a}', {balance.mean_b:.3g} under '{b}')"
             if balance.numeric else "")
    return Problem("error", "confounded_setting",
                   f"{header} was declared drawn at random per call but tracks the compared value{means}: "
                   f"a permutation test of independence within items gives p = {balance.pvalue:.2g} "
                   f"({balance.n_resamples:,} draws) and its {balance.size_name} is {balance.size:.2f} (at least "
                   f"{balance.size_limit:g}, more than chance leaves a random draw), so it is a confound, not a "
                   f"random draw; rerun with it drawn independently of the value, or split with "
                   f"{opt('by', balance.column)}", (), header)


def drawn_setting(frame: pl.DataFrame, metric: str, a: str, b: str, column: str, tests, *,
                  balance: BalanceTest | None = None) -> DrawnSetting:
    """The randomized setting ``column``: its balance test, the stratified and the adjusted gap, tested as the
    ``tests`` ask."""
    alpha, n_resamples, seed = tests.alpha, tests.n_resamples, tests.seed

    balance = balance or balance_test(frame, column, a, b, n_resamples=n_resamples, seed=seed)
    refusal = unmatched_refusal(frame, a, b, column, metric)
    if refusal is not None:
        raise OptionError(refusal)
    table, strata = stratified_table(frame, metric, a, b, column)
    # the stratified gap's interval is Student t and its effect sizes uncorrected, whatever the headline's
    stratified = compare_pair(table, metric, a, b, replace(tests, interval=None, effect_size=tests.effect))
    adjusted = adjusted_gap(frame, metric, a, b, column, confidence=1 - alpha)
    levels = _pair(frame, a, b, column)[column].n_unique()
    return DrawnSetting(column=column, levels=levels, strata=strata, balance=balance, stratified=stratified,
                        stratified_items=table.height, adjusted=adjusted)


def drawn_caveat(drawn: DrawnSetting, a: str, b: str, alpha: float = 0.05) -> str:
    """The randomized setting in one sentence, as the verdict carries it: balanced, or unbalanced by chance
    (p at most ``alpha`` with a size below the limit of a setting that tracks the value) and adjusted for."""
    s, adj, bal = drawn.stratified, drawn.adjusted, drawn.balance
    if bal.unbalanced(alpha):
        balance = (f"is unbalanced across '{a}' and '{b}' (permutation test of independence, p = {bal.pvalue:.2g}) "
                   f"by less than a setting that tracks the value ({bal.size_name} {bal.size:.2g}, below "
                   f"{bal.size_limit:g}): an imbalance of the size chance gives a random draw, so it is adjusted "
                   f"for rather than refused; read the adjusted gap beside the headline, which matches items only")
    else:
        balance = (f"is balanced across '{a}' and '{b}' (permutation test of independence, p = {bal.pvalue:.2g}, "
                   f"{bal.size_name} {bal.size:.2g}), so it is not a confound; the headline matches items only")
    return (f"{drawn.column} was drawn at random per call ({drawn.levels} values) and {balance}. Stratified (items matched within {drawn.strata} levels of "
            f"{drawn.column}, {drawn.stratified_items} items): average gap {s.average_gap:+.4g}, sign-flip "
            f"p = {s.sign_flip.pvalue:.3g}. Adjusted (OLS with item intercepts and a {drawn.column} term): gap "
            f"{adj.gap:+.4g} (standard error {adj.se:.3g}, p = {adj.pvalue:.3g}).")
