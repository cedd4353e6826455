"""The smallest keys of each cell, as a stable sort by (cell, key) ranks them, without ranking every key.

A random split of runs draws a key per run and takes each cell's smallest keys: ranking every key of a large
log by ``np.lexsort((keys, cell))`` costs two full sorts. When the cells hold equally many keys (the usual
log: every item and value run alike), :func:`smallest_in_cells` lays them out as a cells x runs grid and
finds each cell's ``take``-th smallest key by sorting the grid's rows (a partial sort, ``np.partition``, for
rows beyond :data:`SORT_WIDTH` keys), keeping the keys up to it; only a grid where some cell holds more than
``take`` keys up to its threshold (a tie at it, which the stable order breaks by position) or cells of unequal
size are ranked by the stable sort itself.
"""

from __future__ import annotations

import numpy as np

__all__ = ["smallest_in_cells"]


#: cells of at most this many keys are sorted whole by :func:`smallest_in_cells`, larger ones partially
SORT_WIDTH = 128


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
        k, width = int(take[0]), int(sizes[0])
        grid = keys.reshape(sizes.size, width)
        # the k-th smallest of each cell: cells of up to SORT_WIDTH keys are sorted whole, which numpy's
        # vectorized sort does faster than its partial sort (a third less time at 60 keys); the value is the same
        kth = np.sort(grid, axis=1) if width <= SORT_WIDTH else np.partition(grid, k - 1, axis=1)
        chosen = grid <= kth[:, k - 1:k]
        # each cell holds at least k keys up to its k-th smallest; when every cell holds exactly k (one count
        # over the grid tells), no tie crosses a threshold and those keys are the k first in any order
        if np.count_nonzero(chosen) == sizes.size * k:
            return chosen.ravel()
    cell_of = np.repeat(np.arange(sizes.size), sizes)
    order = np.lexsort((keys, cell_of))
    cell_first = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    rank = np.empty(keys.size, dtype=np.int64)
    rank[order] = np.arange(keys.size) - cell_first[cell_of[order]]
    return rank < take[cell_of]
