"""Corrections for multiple comparisons: one helper over statsmodels, one behaviour everywhere.

:func:`adjust` is what every analysis uses (pairs of values, ``by`` groups, factor
effects, framing cells). Missing p-values (None or NaN) pass through as None and take
no part in the correction; order is preserved; an adjusted p is never below its raw p
nor above 1; one p-value (or ``"none"``) is left as it is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from probestats.vocabulary import CORRECTIONS, check_correction

__all__ = ["METHODS", "adjust", "holm"]

#: Our names of the corrections and statsmodels' names for them.
METHODS = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh", "none": None}


def adjust(pvalues: Sequence[float | None], method: str = "holm") -> list[float | None]:
    """Corrected p-values (:func:`statsmodels.stats.multitest.multipletests`), in the order given.

    Parameters
    ----------
    pvalues : sequence of float or None
        Raw p-values; None or NaN marks a test that could not be made (returned as None).
    method : {"holm", "bonferroni", "bh", "none"}
        Holm's step-down, Bonferroni, Benjamini–Hochberg (false discovery rate), or none.

    Examples
    --------
    >>> [round(p, 12) for p in adjust([0.01, 0.04, 0.03], "holm")]  # by hand: 3(0.01), max(2(0.03), .03), max(.06, .04)
    [0.03, 0.06, 0.06]
    >>> adjust([1e-20, 0.5], "holm")  # tiny p-values are kept, never rounded to zero
    [2e-20, 0.5]
    >>> adjust([0.01, None, 0.04, float("nan")], "bonferroni")
    [0.02, None, 0.08, None]
    >>> adjust([0.01, 0.04], "none"), adjust([0.3], "bh")
    ([0.01, 0.04], [0.3])
    >>> adjust([0.5], "sidak")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: correction='sidak': expected one of holm, bonferroni, bh, none
    """
    check_correction(method)
    raw = [None if p is None or (isinstance(p, float) and math.isnan(p)) else float(p) for p in pvalues]
    out: list[float | None] = list(raw)
    idx = [i for i, p in enumerate(raw) if p is not None]
    if METHODS[method] is None or len(idx) <= 1:
        return out
    given = [raw[i] for i in idx]
    if method == "holm":
        corrected = holm(given)
    else:
        from statsmodels.stats.multitest import multipletests

        corrected = multipletests(given, method=METHODS[method])[1]
    for i, p in zip(idx, corrected):
        out[i] = min(1.0, max(float(p), raw[i]))
    return out


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down corrected p-values, in the order given: the k-th smallest p times (m - k + 1), each
    at least the one before it, at most 1.

    The operations are statsmodels' own (``multipletests(..., method="holm")``), so the figures are the same
    to the last bit; written here because statsmodels collects the garbage of the whole process on each call,
    which costs up to a second in a process holding many objects (the page, a large log, a test suite).

    >>> holm([0.01, 0.04, 0.03])   # by hand: 3(0.01); max(2(0.03), 0.03); max(1(0.04), 0.06)
    [0.03, 0.06, 0.06]
    >>> holm([0.6, 0.5])
    [1.0, 1.0]
    """
    import numpy as np

    p = np.asarray(pvalues, dtype=float)
    order = np.argsort(p)
    corrected = np.maximum.accumulate(p[order] * np.arange(len(p), 0, -1))
    corrected[corrected > 1] = 1
    back = np.empty_like(corrected)
    back[order] = corrected
    return back.tolist()
