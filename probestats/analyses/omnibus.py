"""The within-item permutation test that the value makes no difference at all. Under that hypothesis
the value labels of an item's means are exchangeable, so the labels are permuted
within items. The statistic is the between-value sum of squares of the item means,
``T = n_items * sum_j (mean_j - grand mean)**2`` (the numerator of the repeated-
measures F; item effects cancel because every item keeps its own means). The
p-value is the share of arrangements with ``T`` at least the observed value (ties
count, relative tolerance 1e-9). It is **exact** by enumeration when the design is
small: permuting every item's labels alike leaves ``T`` unchanged, so the first
item is held as observed, and an item whose means repeat a number has fewer
distinct arrangements, each standing for equally many of the ``v!``; enumeration is
used when the distinct arrangements number at most ``max_exact`` (200,000).
Otherwise a **Monte Carlo** estimate with ``n_resamples`` random arrangements drawn
with ``seed``, ``p = (hits + 1) / (n_resamples + 1)`` and its standard error. The
result's ``method`` says which.

Its result is an :class:`OmnibusResult`; :func:`mc_interval` is the binomial interval a Monte Carlo p
must clear ``alpha`` with to decide.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from probestats.errors import OptionError
from probestats.stats.draw_order import arrangements_in_order
from probestats.stats.proportion import share
from probestats.vocabulary import N_RESAMPLES, check_n_resamples

__all__ = ["OmnibusResult", "as_matrix", "omnibus_statistic", "omnibus_test", "mc_interval", "sequential_hits", "MAX_EXACT", "MC_CONFIDENCE"]


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


#: Largest number of distinct arrangements the omnibus test enumerates.
MAX_EXACT = 10_000_000


#: Values up to which the omnibus test's Monte Carlo arrangements are drawn by sorting random keys; beyond,
#: the first item is held and every other item's row is shuffled in place (the same distribution of the
#: statistic, another stream of draws, several times faster for thousands of values).
_ARGSORT_VALUES = 64


#: Relative tie tolerance of the omnibus test.
TIE_RTOL = 1e-9


@dataclass(frozen=True)
class OmnibusResult:
    """The within-item permutation test that the value makes no difference.

    Attributes
    ----------
    statistic : float
        ``n_items * sum_j (mean_j - grand mean)**2`` over the value means.
    pvalue : float
    method : str
        ``"exact (...)"`` or ``"monte carlo (...)"`` with its settings and standard error.
    n_items, n_values : int
    arrangements : int
        Distinct arrangements an exact enumeration visits (after the symmetries).
    n_resamples, seed : int or None
        Monte Carlo settings (None when exact).
    pvalue_se : float or None
        Monte Carlo standard error (None when exact).
    pvalue_bound : str or None
        ``"upper"`` when a Monte Carlo p sits at its floor 1/(n_resamples + 1): the p is below it.
    undecided : bool
        A Monte Carlo p whose binomial interval still holds alpha after the most resamples allowed: the
        test is undecided at this precision (never read as a conclusion either way).
    pvalue_interval : (float, float) or None
        The Monte Carlo p's Clopper-Pearson interval at :data:`MC_CONFIDENCE` (None when exact).

    Examples
    --------
    >>> omnibus_test([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]).to_dict()["p"]
    0.3333333333333333
    """

    statistic: float
    pvalue: float
    method: str
    n_items: int
    n_values: int
    arrangements: int
    n_resamples: int | None = None
    seed: int | None = None
    pvalue_se: float | None = None
    pvalue_bound: str | None = None  # "upper": a Monte Carlo p at its floor 1/(n_resamples + 1); p is below it
    #: a Monte Carlo p whose binomial interval still held alpha when the resamples' budget ran out
    undecided: bool = False
    #: the Monte Carlo p's binomial interval (Clopper-Pearson, :data:`MC_CONFIDENCE`), None when exact
    pvalue_interval: tuple[float, float] | None = None

    @property
    def exact(self) -> bool:
        return self.method.startswith("exact")

    def to_dict(self) -> dict:
        return {"p": float(self.pvalue), "method": self.method, "statistic": _num(self.statistic),
                "n_items": int(self.n_items), "n_values": int(self.n_values),
                "arrangements": int(self.arrangements), "n_resamples": self.n_resamples,
                "seed": self.seed, "p_se": _num(self.pvalue_se), "undecided": bool(self.undecided),
                "p_interval": None if self.pvalue_interval is None else [float(x) for x in self.pvalue_interval],
                **({"p_bound": self.pvalue_bound} if self.pvalue_bound is not None else {})}


def _enumerate_hits(start: np.ndarray, free: list, n: int, threshold: float,
                    chunk: int = 1 << 20) -> tuple[int, int]:
    """Over every combination of the ``free`` rows' distinct arrangements (added to ``start``), how
    many give a statistic at least ``threshold``, and how many combinations there are.

    Meet in the middle: the rows are split in two halves whose partial sums are tabulated (each
    about the square root of the whole), then every pair of partial sums is scored in chunks of
    about ``chunk`` pairs, so ten million arrangements take a second and little memory.
    """
    v = start.size
    perms = [np.array(sorted(set(itertools.permutations(row.tolist()))), dtype=float) for row in free]
    total = math.prod(len(q) for q in perms)
    cut, size = 0, 1
    while cut < len(perms) and size * len(perms[cut]) <= math.isqrt(total):
        size *= len(perms[cut])
        cut += 1

    def partial_sums(rows, first):
        sums = first[None, :]
        for q in rows:
            sums = (sums[:, None, :] + q[None, :, :]).reshape(-1, v)
        return sums

    left = partial_sums(perms[cut:], start.astype(float))
    right = partial_sums(perms[:cut], np.zeros(v))
    step = max(1, chunk // len(right))
    hits = 0
    for i in range(0, len(left), step):
        cm = (left[i:i + step, None, :] + right[None, :, :]) / n
        t = n * np.sum((cm - cm.mean(axis=2, keepdims=True)) ** 2, axis=2)
        hits += int(np.count_nonzero(t >= threshold))
    return hits, len(left) * len(right)


def omnibus_statistic(matrix) -> float:
    """``n * sum_j (column mean_j − grand mean)**2`` of an items × values matrix of item means.

    Examples
    --------
    >>> omnibus_statistic([[1.0, 0.0], [3.0, 0.0]])   # column means 2 and 0, grand mean 1: 2 * (1 + 1)
    4.0
    """
    m = np.asarray(matrix, dtype=float)
    cm = m.mean(axis=0)
    return float(m.shape[0] * np.sum((cm - cm.mean()) ** 2))


def _distinct_arrangements(row: np.ndarray) -> int:
    _, counts = np.unique(row, return_counts=True)
    out = math.factorial(row.size)
    for c in counts:
        out //= math.factorial(int(c))
    return out



def sequential_hits(batch, first: int, budget: int, chunk: int, level: float | None) -> tuple[int, int, bool]:
    """A Monte Carlo p's hits and draws, ``batch(k)`` giving the hits of ``k`` more draws (at most ``chunk`` at
    once): the ``first`` draws, doubled up to ``budget`` while p's :data:`MC_CONFIDENCE` binomial interval
    holds ``level`` (the tests' alpha); and whether it still does (the p is undecided).

    >>> sequential_hits(lambda k: k // 20, 1000, 4000, 100, 0.05)   # p = 0.05 exactly: it straddles to the budget
    (200, 4000, True)
    >>> sequential_hits(lambda k: 0, 1000, 4000, 100, 0.05)
    (0, 1000, False)
    """
    hits = done = 0
    target = first
    while True:
        while done < target:
            size = min(chunk, target - done)
            hits += batch(size)
            done += size
        low, high = mc_interval(hits, done)
        straddles = level is not None and low <= level <= high
        if not straddles or done >= budget:
            return hits, done, straddles
        target = min(budget, 2 * done)


def as_matrix(matrix) -> np.ndarray:
    try:
        m = np.asarray(matrix, dtype=float)
    except (TypeError, ValueError) as exc:
        raise OptionError(f"item means must be numbers ({exc}); pass an items × values matrix") from None
    if m.ndim != 2 or m.shape[0] < 1 or m.shape[1] < 2:
        raise OptionError(f"item means must be an items × values matrix with at least two values, got shape {m.shape}")
    if not np.all(np.isfinite(m)):
        raise OptionError("item means must be finite; drop items with a missing mean")
    return m


def omnibus_test(matrix, *, n_resamples: int = N_RESAMPLES, seed: int | None = 0, max_exact: int = MAX_EXACT,
                 method: str = "auto", alpha: float | None = None, max_resamples: int | None = None) -> OmnibusResult:
    """Within-item permutation test that the value makes no difference (see the module docstring).

    Parameters
    ----------
    matrix : array_like, shape (n_items, n_values)
        Item means, one row per item, one column per value.
    n_resamples, seed : int
        Monte Carlo settings, used when exact enumeration would visit more than
        ``max_exact`` distinct arrangements (or with ``method="monte-carlo"``).
    max_exact : int
    method : {"auto", "exact", "monte-carlo"}
    alpha : float, optional
        The level the p will be read at. A Monte Carlo p whose binomial interval (Clopper-Pearson at
        :data:`MC_CONFIDENCE`) holds ``alpha`` has decided nothing: resamples are added (the count
        doubled each round, the same seed's stream continued) until the interval clears ``alpha`` or
        ``max_resamples`` are drawn; then the result is ``undecided`` and says so.
    max_resamples : int, optional
        The budget of that sequential Monte Carlo (default ``MC_BUDGET_FACTOR * n_resamples``).

    Examples
    --------
    Two items, three values; only the arrangements that keep the two 1s in one column
    reach the observed statistic: 3 of the 3 × 3 ways to place the second item's 1.

    >>> r = omnibus_test([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    >>> r.pvalue, r.method
    (0.3333333333333333, 'exact (enumeration of 3 distinct within-item arrangements of the value labels, standing for all 36)')
    """
    m = as_matrix(matrix)
    if method not in ("auto", "exact", "monte-carlo"):
        raise OptionError(f"method must be 'auto', 'exact' or 'monte-carlo', not {method!r}")
    n, v = m.shape
    t_obs = omnibus_statistic(m)
    scale = float(np.max(np.abs(m - m.mean(axis=1, keepdims=True)))) ** 2 * n
    tol = TIE_RTOL * max(t_obs, scale)
    free = [m[i] for i in range(1, n) if _distinct_arrangements(m[i]) > 1]
    arrangements = 1
    for row in free:
        arrangements *= _distinct_arrangements(row)
        if arrangements > 10**15:
            break
    total = math.factorial(v) ** n
    common = dict(statistic=t_obs, n_items=n, n_values=v, arrangements=int(min(arrangements, 10**15)))
    if scale == 0.0:
        return OmnibusResult(pvalue=1.0, method="exact (every item has the same mean under every value)", **common)
    if method == "exact" or (method == "auto" and arrangements <= max_exact):
        if arrangements > 10 * MAX_EXACT:
            raise OptionError(f"exact enumeration would visit {arrangements} arrangements; use method='auto'")
        fixed = sum(m[i] for i in range(1, n) if _distinct_arrangements(m[i]) == 1) if n > 1 else 0.0
        hits, size = _enumerate_hits(m[0] + fixed, free, n, t_obs - tol)
        p = hits / size
        text = (f"exact (enumeration of all {total} within-item arrangements of the value labels)" if size == total
                else f"exact (enumeration of {size} distinct within-item arrangements of the value labels, "
                     f"standing for all {total})")
        return OmnibusResult(pvalue=p, method=text, **common)
    n_resamples = check_n_resamples(n_resamples)
    budget = max(n_resamples, MC_BUDGET_FACTOR * n_resamples if max_resamples is None else int(max_resamples))
    rng = np.random.default_rng(seed)
    chunk = max(1, 2_000_000 // (n * v))
    # each item's values arranged from their sorted order, the items in an order of their numbers: the same
    # arrangements' distribution, drawn alike whatever the log's row order and the names of the items and values
    m = arrangements_in_order(m)

    def batch(k: int) -> int:
        if v <= _ARGSORT_VALUES:
            order = np.argsort(rng.random((k, n, v)), axis=2)
            shuffled = np.take_along_axis(np.broadcast_to(m, (k, n, v)), order, axis=2)
            cm = shuffled.mean(axis=1)
        else:   # many values: the first item held (arranging every item alike leaves T as it is), the others
            # shuffled in place, in time that grows as v (a sort grows as v log v)
            rest = rng.permuted(np.broadcast_to(m[1:], (k, n - 1, v)), axis=2)
            cm = (m[0] + rest.sum(axis=1)) / n
        t = n * np.sum((cm - cm.mean(axis=1, keepdims=True)) ** 2, axis=1)
        return int(np.count_nonzero(t >= t_obs - tol))

    hits, done, straddles = sequential_hits(batch, n_resamples, budget, chunk, alpha)
    low, high = mc_interval(hits, done)
    p = (hits + 1) / (done + 1)
    se = math.sqrt(p * (1 - p) / done)
    shown = f"{arrangements}" if arrangements < 10**15 else "more than 1e15"
    added = (f"; {done - n_resamples} resamples added to the first {n_resamples} because p's "
             f"{MC_CONFIDENCE:.1%} binomial interval held alpha = {alpha:g}" if done > n_resamples else "")
    undecided = bool(straddles)
    if undecided:
        added += (f"; undecided at this precision: after {done} resamples (the budget) p's {MC_CONFIDENCE:.1%} "
                  f"interval [{low:.4g}, {high:.4g}] still holds alpha")
    text = (f"monte carlo (n_resamples={done}, seed={seed}, standard error {se:.2g}; "
            f"p = (hits + 1)/(n_resamples + 1)"
            f"{'; no resample was as extreme, so p is below that floor' if hits == 0 else ''}"
            f"{added}; exact enumeration would visit {shown} arrangements)")
    return OmnibusResult(pvalue=p, method=text, n_resamples=done, seed=seed, pvalue_se=se,
                         pvalue_bound="upper" if hits == 0 else None, undecided=undecided,
                         pvalue_interval=(low, high), **common)


#: Confidence of the binomial interval a Monte Carlo p must clear alpha with to decide.
MC_CONFIDENCE = 0.999


#: The sequential Monte Carlo's budget, in multiples of ``n_resamples``.
MC_BUDGET_FACTOR = 32


def mc_interval(hits: int, draws: int, confidence: float = MC_CONFIDENCE) -> tuple[float, float]:
    """Clopper-Pearson interval for the share of resamples at least as extreme (``hits`` of ``draws``).

    >>> low, high = mc_interval(500, 10_000)   # scipy.stats.binomtest(500, 10_000).proportion_ci(0.999)
    >>> round(low, 4), round(high, 4)
    (0.0431, 0.0576)
    """
    bound = share(hits, draws, confidence=confidence)
    return bound.low, bound.high


