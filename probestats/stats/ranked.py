"""The smallest keys of each cell, as a stable sort by (cell, key) ranks them, without sorting every cell.

A random split of runs draws a key per run and takes each cell's smallest keys: ranking every key of a large
log by ``np.lexsort((keys, cell))`` costs two full sorts. When the cells hold equally many keys (the usual
log: every item and value run alike), :func:`smallest_in_cells` lays them out as a cells x runs grid and
finds each cell's ``take``-th smallest key by a partial sort (``np.partition``), keeping the keys below it
and the one equal to it; only a grid where some cell has two keys equal to that threshold (a tie the stable
order breaks by position) or cells of unequal size are ranked by the sort itself.
"""

from __future__ import annotations

import numpy as np

__all__ = ["shuffled_draws", "shuffled_labels", "shuffled_sums", "smallest_in_cells"]


def smallest_in_cells(keys: np.ndarray, sizes: np.ndarray, take: np.ndarray) -> np.ndarray:
    """Whether each key is among the ``take[c]`` smallest of its cell ``c``, ties going to the earlier key.

    ``keys`` holds the cells' keys one cell after another (``sizes[c]`` keys for cell ``c``); the result is
    ``rank < take[cell]`` for ``rank`` the key's place in its cell under ``np.lexsort((keys, cell))``.

    >>> keys = np.array([5, 1, 9, 3, 7, 7, 2, 8], dtype=np.uint64)
    >>> smallest_in_cells(keys, np.array([4, 4]), np.array([2, 2])).tolist()
    [False, True, False, True, True, False, True, False]
    >>> smallest_in_cells(keys, np.array([3, 5]), np.array([1, 2])).tolist()
    [False, True, False, True, False, False, True, False]
    """
    sizes, take = np.asarray(sizes, dtype=np.int64), np.asarray(take, dtype=np.int64)
    if keys.size and (sizes == sizes[0]).all() and (take == take[0]).all() and 0 < take[0] <= sizes[0]:
        grid = keys.reshape(sizes.size, int(sizes[0]))
        threshold = np.partition(grid, int(take[0]) - 1, axis=1)[:, int(take[0]) - 1:int(take[0])]
        below, equal = grid < threshold, grid == threshold
        if (equal.sum(axis=1) == 1).all():   # no tie at a threshold: the smallest keys are those up to it
            return (below | equal).ravel()
    cell_of = np.repeat(np.arange(sizes.size), sizes)
    order = np.lexsort((keys, cell_of))
    cell_first = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    rank = np.empty(keys.size, dtype=np.int64)
    rank[order] = np.arange(keys.size) - cell_first[cell_of[order]]
    return rank < take[cell_of]


#: Rows of this many keys (inclusive) are shuffled by radix passes in :func:`shuffled_labels`: below, a full
#: sort is as fast; above, two of the keys share their leading 32 bits in too many rows.
RADIX_KEYS = (8_192, 40_000)


def shuffled_labels(keys: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``labels[np.argsort(keys, axis=1)]``: each row of ``keys`` (in [0, 1), ``Generator.random``'s draws)
    orders the ``labels`` (whole numbers below 65,536), the same orders.

    Each key's leading 32 bits (``floor(key * 2**32)``) are ordered by two stable radix passes of 16 bits
    (the lower first), the label carried beside them; where the leading bits of a row's keys differ, their
    order is the keys' order. A row in which two keys share them is ordered by ``np.argsort``, so ties
    between keys keep the order it gives them; so are rows outside :data:`RADIX_KEYS`, and keys outside
    [0, 1).

    >>> keys = np.random.default_rng(3).random((3, 10_000))
    >>> labels = np.arange(10_000) % 7
    >>> bool((shuffled_labels(keys, labels) == labels[np.argsort(keys, axis=1)]).all())
    True
    """
    m, n = keys.shape
    if (not RADIX_KEYS[0] <= n <= RADIX_KEYS[1] or keys.dtype != np.float64 or labels.min() < 0
            or labels.max() >= 1 << 16 or not (keys.min() >= 0.0 and keys.max() < 1.0)):   # nan fails both
        return labels[np.argsort(keys, axis=1)]
    leading = (keys * 2.0 ** 32).astype(np.uint32)   # floor(key * 2**32): monotone in the key
    carried = leading.astype(np.uint64)
    carried <<= np.uint64(32)   # the leading 32 bits above the label
    return _radix_sorted(carried, labels, lambda rows: keys[rows])


def shuffled_draws(rng: np.random.Generator, m: int, labels: np.ndarray) -> np.ndarray:
    """``shuffled_labels(rng.random((m, labels.size)), labels)``: ``m`` shuffles of the ``labels``, from the
    same draws of ``rng`` (which it leaves where ``rng.random`` leaves it), without making the keys.

    With numpy's default bit generator (PCG64) a key of ``Generator.random`` is its raw 64-bit draw shifted
    right by 11 bits, times ``2**-53``; the raw draws (``random_raw``, the same stream) give the key's leading
    32 bits as their own, so the radix passes of :func:`shuffled_labels` start from them directly, and only a
    row in which two keys share those bits makes its keys. Another bit generator's draws are made as keys.

    >>> labels = np.arange(10_000) % 7
    >>> a, b = np.random.default_rng(5), np.random.default_rng(5)
    >>> bool((shuffled_draws(a, 3, labels) == shuffled_labels(b.random((3, 10_000)), labels)).all())
    True
    >>> a.random() == b.random()
    True
    """
    n = labels.size
    if (type(rng.bit_generator) is not np.random.PCG64 or not RADIX_KEYS[0] <= n <= RADIX_KEYS[1]
            or labels.min() < 0 or labels.max() >= 1 << 16):
        return shuffled_labels(rng.random((m, n)), labels)
    raw = rng.bit_generator.random_raw(m * n).reshape(m, n)
    carried = raw & np.uint64(0xFFFF_FFFF_0000_0000)   # the key's leading 32 bits, a label below them
    return _radix_sorted(carried, labels, lambda rows: (raw[rows] >> np.uint64(11)).astype(float) * 2.0 ** -53)


#: Keys a block of :func:`shuffled_sums` holds at most: the block's arrays (8 bytes a key) stay in a core's
#: cache, where a batch of a hundred shuffles of 20,000 items at once, 16 MB an array, took twice as long.
BLOCK_KEYS = 131_072


def shuffled_sums(rng: np.random.Generator, m: int, labels: np.ndarray, values: np.ndarray,
                  groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Each group's sum of the ``values`` (and of their squares) at the places its labels take in each of
    ``m`` shuffles of the ``labels`` (whole numbers below ``groups``): ``sums[r, g] = values[shuffled[r] ==
    g].sum()`` for ``shuffled = shuffled_draws(rng, m, labels)``, the same draws and the same sums (each
    added in the values' order), made in blocks of at most :data:`BLOCK_KEYS` keys.

    >>> labels, values = np.arange(9_000) % 3, np.linspace(0.0, 1.0, 9_000)
    >>> sums, squares = shuffled_sums(np.random.default_rng(2), 4, labels, values, 3)
    >>> shuffled = shuffled_draws(np.random.default_rng(2), 4, labels)
    >>> bool(np.allclose(sums[3], [values[shuffled[3] == g].sum() for g in range(3)], rtol=1e-12))
    True
    """
    n = labels.size
    rows = max(1, min(m, BLOCK_KEYS // max(n, 1)))
    weights = np.tile(np.asarray(values, dtype=float), rows)   # each shuffle's values in place, laid out once
    squared = weights ** 2
    steps = np.arange(rows)[:, None] * groups
    sums, squares = np.empty((m, groups)), np.empty((m, groups))
    for first in range(0, m, rows):
        size = min(rows, m - first)
        shuffled = shuffled_draws(rng, size, labels)
        shuffled += steps[:size]
        for out, w in ((sums, weights), (squares, squared)):
            out[first:first + size] = np.bincount(shuffled.ravel(), weights=w[:size * n],
                                                  minlength=size * groups).reshape(size, groups)
    return sums, squares


def _radix_sorted(carried: np.ndarray, labels: np.ndarray, keys_of) -> np.ndarray:
    """The ``labels`` of each row ordered by the leading 32 bits above them in ``carried`` (two stable radix
    passes of 16 bits, the lower first); a row in which two keys share those bits ordered by ``np.argsort`` of
    its keys (``keys_of(rows)``)."""
    m, n = carried.shape
    carried |= labels.astype(np.uint64)
    offsets = (np.arange(m) * n)[:, None]
    for shift in (np.uint64(32), np.uint64(48)):   # the lower 16 of the 32 bits, then the upper
        order = np.argsort((carried >> shift).astype(np.uint16), axis=1, kind="stable")
        order += offsets
        carried = carried.ravel()[order.ravel()].reshape(m, n)
    out = (carried & np.uint64(0xFFFF)).astype(labels.dtype)
    tied = np.flatnonzero(((carried[:, 1:] ^ carried[:, :-1]) < np.uint64(1 << 32)).any(axis=1))
    if tied.size:
        out[tied] = labels[np.argsort(keys_of(tied), axis=1)]
    return out
