"""Small helpers for the sentences probestats writes."""

from __future__ import annotations


def count_of(n, noun: str, plural: str | None = None) -> str:
    """A count with its noun agreeing: "1 item", "8 items".

    Examples
    --------
    >>> count_of(1, "item"), count_of(8, "item"), count_of(0, "run"), count_of(1, "cell", "cells")
    ('1 item', '8 items', '0 runs', '1 cell')
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"
