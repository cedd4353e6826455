"""Whether the distribution of a label differs between values: a permutation test of a values × levels table.

Each run has a value (``0..V-1``), a level (``0..L-1``) and a block (its item, when the design is
matched; one block for all runs otherwise). If the value made no difference, the value labels of
the runs within each block are exchangeable: every arrangement of them within the block is as
likely as the observed one. The statistic is Pearson's chi-square of the pooled values × levels
table; the p-value is the share of arrangements whose chi-square is at least the observed one
(ties, within a relative 1e-9, count as at least as extreme).

The distribution of the pooled table is **exact**: each block's table, given its margins, is
multivariate hypergeometric, and the pooled table is their convolution, computed over every
pooled table that can occur while those stay below ``max_states``. Beyond it the p-value is a
Monte Carlo estimate from ``n_resamples`` arrangements drawn at random within blocks,
``(1 + hits) / (1 + n_resamples)``, with its standard error, and the method says so.

Examples
--------
>>> r = permutation_table_test([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1])
>>> r.method, round(r.pvalue, 4)
('exact', 0.4)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from probestats.stats.draw_order import ranks

__all__ = ["TableTest", "chi_square", "permutation_table_test"]

#: pooled tables held at once by the exact convolution before it gives way to Monte Carlo
MAX_STATES = 200_000
#: pairs of (pooled table, block table) the exact convolution may combine in one step
MAX_WORK = 2_000_000
_TIE = 1e-9


@dataclass(frozen=True)
class TableTest:
    """The permutation test of a values × levels table.

    Attributes
    ----------
    statistic : float
        Pearson's chi-square of the pooled table (levels and values with no runs left out).
    pvalue : float
        The share of arrangements of the value labels within blocks whose chi-square is at least
        ``statistic`` (exact), or its Monte Carlo estimate.
    method : str
        ``"exact"`` or ``"monte carlo"``.
    n_resamples : int or None
        The arrangements drawn (Monte Carlo only).
    error : float or None
        The Monte Carlo standard error of ``pvalue`` (None when exact).
    matched : bool
        Arrangements were drawn within blocks (items); False: across every run.
    n_blocks : int
        Blocks whose runs have more than one value (the others cannot change the table).
    n : int
        Runs counted.
    """

    statistic: float
    pvalue: float
    method: str
    n_resamples: int | None
    error: float | None
    matched: bool
    n_blocks: int
    n: int

    def to_dict(self) -> dict:
        return {"statistic": self.statistic, "p": self.pvalue, "method": self.method,
                "n_resamples": self.n_resamples, "p_se": self.error, "matched": self.matched,
                "n_blocks": self.n_blocks, "n": self.n}


def chi_square(table) -> float:
    """Pearson's chi-square of a table, rows and columns with no counts left out.

    >>> round(chi_square([[10, 0], [0, 10]]), 6)
    20.0
    """
    t = np.asarray(table, dtype=float)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    n = t.sum()
    if n == 0 or t.shape[0] < 2 or t.shape[1] < 2:
        return 0.0
    expected = np.outer(t.sum(axis=1), t.sum(axis=0)) / n
    return float(((t - expected) ** 2 / expected).sum())


def permutation_table_test(values, levels, blocks=None, *, n_resamples: int = 10_000, seed: int = 0,
                           max_states: int = MAX_STATES) -> TableTest:
    """Test whether the levels' distribution differs between values (see the module docstring).

    Parameters
    ----------
    values, levels : sequence of int
        Each run's value and level (codes from 0).
    blocks : sequence of int, optional
        Each run's block (its item); None: one block (an unmatched design).
    n_resamples, seed
        The Monte Carlo draws, when the exact distribution has more than ``max_states`` tables.
    """
    v = np.asarray(values, dtype=np.int64)
    lv = np.asarray(levels, dtype=np.int64)
    b = np.zeros(len(v), dtype=np.int64) if blocks is None else np.unique(np.asarray(blocks), return_inverse=True)[1]
    n_values, n_levels = int(v.max(initial=-1)) + 1, int(lv.max(initial=-1)) + 1
    observed = np.zeros((max(n_values, 1), max(n_levels, 1)), dtype=np.int64)
    np.add.at(observed, (v, lv), 1)
    stat = chi_square(observed)
    parts = _blocks(v, lv, b, n_values, n_levels)
    moving = [p for p in parts if p["varies"]]
    fixed = sum((p["table"] for p in parts if not p["varies"]), np.zeros_like(observed))
    exact = _exact(moving, fixed, stat, max_states)
    common = dict(statistic=stat, matched=blocks is not None, n_blocks=len(moving), n=int(len(v)))
    if exact is not None:
        return TableTest(pvalue=exact, method="exact", n_resamples=None, error=None, **common)
    p, error = _monte_carlo(v, lv, b, stat, n_values, n_levels, n_resamples, seed)
    return TableTest(pvalue=p, method="monte carlo", n_resamples=n_resamples, error=error, **common)


def _blocks(v, lv, b, n_values, n_levels) -> list[dict]:
    out = []
    order = np.argsort(b, kind="stable")
    bounds = np.flatnonzero(np.diff(b[order])) + 1
    for idx in np.split(order, bounds):
        if not len(idx):
            continue
        table = np.zeros((n_values, n_levels), dtype=np.int64)
        np.add.at(table, (v[idx], lv[idx]), 1)
        rows, cols = table.sum(axis=1), table.sum(axis=0)
        out.append({"table": table, "rows": rows, "cols": cols,
                    "varies": (rows > 0).sum() > 1 and (cols > 0).sum() > 1})
    return out


def _tables(rows, cols):
    """Every table with these margins, with its probability under random arrangement of the row labels."""
    rows, cols = [int(r) for r in rows], [int(c) for c in cols]
    n = sum(rows)
    log_const = sum(math.lgamma(r + 1) for r in rows) + sum(math.lgamma(c + 1) for c in cols) - math.lgamma(n + 1)
    n_rows, n_cols = len(rows), len(cols)
    out = []

    def fill(i, remaining_cols, cells):
        if i == n_rows - 1:
            last = list(remaining_cols)
            if sum(last) != rows[i]:
                return
            table = cells + [last]
            log_p = log_const - sum(math.lgamma(x + 1) for row in table for x in row)
            out.append((tuple(x for row in table for x in row), math.exp(log_p)))
            return
        for row in _compositions(rows[i], remaining_cols):
            fill(i + 1, [c - x for c, x in zip(remaining_cols, row)], cells + [list(row)])

    fill(0, cols, [])
    return out


def _compositions(total: int, caps):
    """Vectors of non-negative integers below ``caps`` summing to ``total``."""
    if not caps:
        if total == 0:
            yield ()
        return
    first, rest = caps[0], caps[1:]
    room = sum(rest)
    for x in range(max(0, total - room), min(first, total) + 1):
        for tail in _compositions(total - x, rest):
            yield (x, *tail)


def _exact(parts, fixed, stat, max_states) -> float | None:
    shape = fixed.shape
    # each pooled table as one integer: its cells as the digits of a mixed radix number, each base one more than
    # the most that cell can hold, so adding two codes adds the tables
    top = fixed.ravel().astype(object) + sum((np.minimum.outer(p["rows"], p["cols"]).ravel().astype(object)
                                              for p in parts), np.zeros(fixed.size, dtype=object))
    bases = [int(t) + 1 for t in top]
    if math.prod(bases) >= 2 ** 62:
        return None
    place = np.array([math.prod(bases[i + 1:]) for i in range(len(bases))], dtype=np.int64)
    codes = np.array([int(fixed.ravel() @ place)], dtype=np.int64)
    probs = np.ones(1)
    for part in parts:
        options = _tables(part["rows"], part["cols"])
        if len(options) * len(codes) > MAX_WORK:
            return None
        table_codes = np.array([t for t, _ in options], dtype=np.int64) @ place
        weights = np.array([q for _, q in options])
        codes, inverse = np.unique((codes[:, None] + table_codes[None, :]).ravel(), return_inverse=True)
        probs = np.bincount(inverse.ravel(), weights=(probs[:, None] * weights[None, :]).ravel(), minlength=len(codes))
        if len(codes) > max_states:
            return None
    digits = (codes[:, None] // place[None, :]) % np.array(bases, dtype=np.int64)[None, :]
    stats = _chi_squares(digits.reshape(len(codes), *shape))
    hit = probs[stats >= stat * (1 - _TIE) - 1e-12].sum()
    return float(min(1.0, hit / probs.sum()))


def _chi_squares(tables: np.ndarray) -> np.ndarray:
    """:func:`chi_square` of many tables with the same margins at once."""
    t = tables.astype(float)
    rows, cols = t.sum(axis=2), t.sum(axis=1)
    keep_r, keep_c = rows[0] > 0, cols[0] > 0
    t = t[:, keep_r][:, :, keep_c]
    if t.shape[1] < 2 or t.shape[2] < 2:
        return np.zeros(len(tables))
    n = t[0].sum()
    expected = np.outer(t[0].sum(axis=1), t[0].sum(axis=0)) / n
    return ((t - expected[None]) ** 2 / expected[None]).sum(axis=(1, 2))


def _monte_carlo(v, lv, b, stat, n_values, n_levels, n_resamples, seed) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    # the blocks numbered by their runs' (value, level) pairs and each block's runs ordered by them: the draws
    # are the same whatever the log's row order and the blocks' names
    keys = [tuple(sorted(zip(v[b == j].tolist(), lv[b == j].tolist()))) for j in range(int(b.max(initial=-1)) + 1)]
    b = ranks(keys)[b] if len(keys) else b
    canonical = np.lexsort((v, lv, b))
    v, lv, b = v[canonical], lv[canonical], b[canonical]
    hits = 0
    n = len(v)
    grouped = np.argsort(b, kind="stable")          # the runs block by block
    cells = n_values * n_levels
    chunk = max(1, min(n_resamples, 4_000_000 // max(n, 1)))
    done = 0
    while done < n_resamples:
        k = min(chunk, n_resamples - done)
        # block number plus a uniform draw: sorting gives the runs block by block, in random order within each
        order = np.argsort(b[None, :] + rng.random((k, n)), axis=1)
        shuffled = np.empty((k, n), dtype=np.int64)
        shuffled[:, grouped] = v[order]             # each block's value labels, rearranged among its runs
        codes = (np.arange(k)[:, None] * cells + shuffled * n_levels + lv[None, :]).ravel()
        tables = np.bincount(codes, minlength=k * cells).reshape(k, n_values, n_levels)
        hits += int((_chi_squares(tables) >= stat * (1 - _TIE) - 1e-12).sum())
        done += k
    p = (1 + hits) / (1 + n_resamples)
    return float(p), float(math.sqrt(p * (1 - p) / n_resamples))
