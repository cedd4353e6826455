"""The smallest keys of each cell, as a stable sort by (cell, key) ranks them, without sorting every cell.

A random split of runs draws a key per run and takes each cell's smallest keys: ranking every key of a large
log by ``np.lexsort((keys, cell))`` costs two full sorts. When the cells hold equally many keys (the usual
log: every item and value run alike), :func:`smallest_in_cells` lays them out as a cells x runs grid and
finds each cell's ``take``-th smallest key by a partial sort (``np.partition``), keeping the keys below it
and the one equal to it; only a grid where some cell has two keys equal to that threshold (a tie the stable
order breaks by position) or cells of unequal size are ranked by the sort itself.
"""

from __future__ import annotations

import sys

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
    carried |= labels.astype(np.uint64)
    carried = _radix_passes(carried)
    out = (carried & np.uint64(0xFFFF)).astype(labels.dtype)
    tied = _tied_rows(carried)
    if tied.size:
        out[tied] = labels[np.argsort(keys[tied], axis=1)]
    return out


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
    return _shuffled(rng, m, labels, labels)


def _raw_draws(rng: np.random.Generator, n: int, labels: np.ndarray) -> bool:
    """Whether :func:`_shuffled` reads the generator's raw draws (else it makes the keys)."""
    return (type(rng.bit_generator) is np.random.PCG64 and RADIX_KEYS[0] <= n <= RADIX_KEYS[1]
            and labels.min() >= 0 and labels.max() < 1 << 16)


def _shuffled(rng: np.random.Generator, m: int, labels: np.ndarray, carry: np.ndarray) -> np.ndarray:
    """``carry`` (whole numbers below 2**32, shape ``(m, n)`` or ``(n,)``) ordered in each row as
    :func:`shuffled_draws` orders the ``labels`` (as int64)."""
    n = labels.size
    if not _raw_draws(rng, n, labels):
        order = np.argsort(rng.random((m, n)), axis=1)
        return np.take_along_axis(np.broadcast_to(carry, (m, n)), order, axis=1).astype(np.int64)
    raw = rng.bit_generator.random_raw(m * n).reshape(m, n)
    carried = raw & np.uint64(0xFFFF_FFFF_0000_0000)   # the key's leading 32 bits, what is carried below them
    carried |= carry.astype(np.uint64)
    carried = _radix_passes(carried)
    tied = _tied_rows(carried)
    carried &= np.uint64(0xFFFF_FFFF)
    out = carried.view(np.int64)
    if tied.size:
        keys = (raw[tied] >> np.uint64(11)).astype(float) * 2.0 ** -53   # Generator.random's keys
        out[tied] = np.take_along_axis(np.broadcast_to(carry, (m, n))[tied], np.argsort(keys, axis=1), axis=1)
    return out


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
    # each shuffle's labels numbered apart (the r-th shuffle's group g is r * groups + g), for one bincount
    carry = labels[None, :] + np.arange(rows)[:, None] * groups
    sums, squares = np.empty((m, groups)), np.empty((m, groups))
    for first in range(0, m, rows):
        size = min(rows, m - first)
        shuffled = _shuffled(rng, size, labels, carry[:size])
        for out, w in ((sums, weights), (squares, squared)):
            out[first:first + size] = np.bincount(shuffled.ravel(), weights=w[:size * n],
                                                  minlength=size * groups).reshape(size, groups)
    return sums, squares


_LITTLE = sys.byteorder == "little"


def _radix_passes(carried: np.ndarray) -> np.ndarray:
    """Each row of ``carried`` (uint64) ordered by its upper 32 bits, stably: two radix passes of 16 bits, the
    lower first (numpy's stable argsort of 16-bit numbers is a radix sort)."""
    m, n = carried.shape
    offsets = (np.arange(m) * n)[:, None]
    for part in (2, 3):   # bits 32 to 47, then 48 to 63
        digit = (np.ascontiguousarray(carried.view(np.uint16).reshape(m, n, 4)[:, :, part]) if _LITTLE
                 else (carried >> np.uint64(16 * part)).astype(np.uint16))
        order = np.argsort(digit, axis=1, kind="stable")
        order += offsets
        carried = np.take(carried.ravel(), order.ravel()).reshape(m, n)
    return carried


def _tied_rows(carried: np.ndarray) -> np.ndarray:
    """The rows of sorted ``carried`` in which two neighbours share their upper 32 bits."""
    return np.flatnonzero(((carried[:, 1:] ^ carried[:, :-1]) < np.uint64(1 << 32)).any(axis=1))
