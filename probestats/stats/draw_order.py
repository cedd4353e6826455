"""The order a Monte Carlo draw goes over the items in: one set by their numbers, never by the log's row order or
the names of items, values and blocks.

A resample or a relabelling is drawn item by item from one random stream; drawn over the items in the log's order,
a shuffle of the rows or a renaming redraws it, and a p or an interval's end near its bound comes and goes. Every
Monte Carlo path of the package lays its items out by these functions before it draws.
"""

from __future__ import annotations

import numpy as np

__all__ = ["row_order", "rows_in_order", "arrangements_in_order", "ranks"]


def row_order(m: np.ndarray) -> np.ndarray:
    """The indices that put the rows of a 2-d array in lexicographic order of their values (first column first).

    >>> row_order(np.array([[2.0, 1.0], [1.0, 5.0], [1.0, 0.0]])).tolist()
    [2, 1, 0]
    """
    m = np.asarray(m)
    return np.lexsort(m.T[::-1])


def rows_in_order(m: np.ndarray) -> np.ndarray:
    """The rows of ``m`` in lexicographic order of their values (:func:`row_order`).

    >>> rows_in_order(np.array([[2.0, 1.0], [1.0, 5.0], [1.0, 0.0]])).tolist()
    [[1.0, 0.0], [1.0, 5.0], [2.0, 1.0]]
    """
    m = np.asarray(m)
    return m[row_order(m)]


def arrangements_in_order(m: np.ndarray) -> np.ndarray:
    """Each row's values sorted, then the rows in order: the base a within-row relabelling is drawn from. A
    uniform arrangement of a row's values has one distribution whatever order they start in, so the draws keep
    the test and lose only the log's order.

    >>> arrangements_in_order(np.array([[2.0, 1.0], [0.0, 5.0]])).tolist()
    [[0.0, 5.0], [1.0, 2.0]]
    """
    return rows_in_order(np.sort(np.asarray(m), axis=1))


def ranks(keys: list) -> np.ndarray:
    """Each key's place among the sorted keys: the numbering of groups (blocks) by a key of their numbers.

    >>> ranks([(3, (1.0,)), (2, (5.0,)), (2, (0.5,))]).tolist()
    [2, 1, 0]
    """
    rank = np.empty(len(keys), dtype=np.int64)
    rank[sorted(range(len(keys)), key=keys.__getitem__)] = np.arange(len(keys))
    return rank
