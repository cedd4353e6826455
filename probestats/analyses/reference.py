"""A reference that is not neutral: every value differs from it the same way, while they are alike.

Many values measured against one reference (a baseline résumé, an unmarked prompt) are read as "every
value is penalised" when each is below it. When every value differs from the reference **in the same
direction by a similar amount**, the likelier reading is that the reference itself differs (it carries a
real person's name, a longer text): :func:`reference_check` says so.

"A similar amount" is an effect size, not a p: the **spread among the values relative to their common
shift**. On the items measured under every value, each value's gap against the reference is its mean over
the items; their **common shift** is the mean of those gaps and their **spread** the standard deviation
among them. The ratio ``spread / |shift|`` is 0 when every value sits at one distance from the reference,
and 1 when they scatter as far from each other as the reference sits from them. Its 95% interval is a
percentile bootstrap over the items (the whole row of an item resampled, so the values' shared item noise
stays shared). An omnibus test of the values against each other does not carry that meaning: with enough
items it finds a difference of 0.04 among six names that share a shift of −0.25 (p = 0.007 over 187 items),
so it could never name such a reference. The spread includes the sampling noise of each value's mean, so
the ratio is if anything too large: with few items the check stays silent rather than guess.

The rule, all three at once:

- every value's gap against the reference has its corrected p at most alpha, all of one sign;
- the values are alike relative to their shift: the upper end of the ratio's 95% interval is at most
  :data:`MAX_SPREAD_RATIO` (their spread is at most a quarter of their common shift);
- at least two values besides the reference.

The omnibus test of the values without the reference is still reported (``among``), as a figure beside
the ratio, not as a condition.

The ratio's upper end is a bootstrap figure of the runs: one run more or fewer moves it a little (by a factor
of at most about :data:`SIMILAR_MARGIN` on the generated designs of ``tests/test_invariance.py``), so where
it lies within that factor of the bound the caveat may come or go with one run. There the caveat says it is
**borderline** (:attr:`ReferenceCheck.borderline`), as the verdict says of a p near alpha.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from probestats.analyses.omnibus import omnibus_test
from probestats.stats.draw_order import row_order

__all__ = ["MAX_SPREAD_RATIO", "SIMILAR_MARGIN", "ReferenceCheck", "reference_check", "spread_ratio"]

#: The largest upper 95% bound of the values' spread relative to their common shift at which they are alike.
MAX_SPREAD_RATIO = 0.25

#: How near the bound the ratio's upper end is borderline: within this factor of :data:`MAX_SPREAD_RATIO` (from
#: 0.227 to 0.275), where one run more or fewer can move it across the bound (one dropped run moved it by less
#: than this factor on the generated designs of tests/test_invariance.py).
SIMILAR_MARGIN = 1.1

#: The bootstrap resamples of the ratio's interval (at most; fewer when the analysis asks for fewer).
N_BOOTSTRAP = 2_000


@dataclass(frozen=True)
class ReferenceCheck:
    """Whether the reference of a many-values analysis may itself be the cause (see the module docstring).

    Attributes
    ----------
    reference : str
    direction : {"above", "below", "mixed"}
        Where every value sits against the reference ("mixed" when not all one way).
    low, high : float
        The smallest and largest gap of a value against the reference.
    all_detected : bool
        Every value's corrected gap against the reference is at most alpha.
    shift, shift_interval : float, (float, float)
        The values' common shift from the reference (the mean of their gaps, on the items measured under
        every value) and its 95% bootstrap interval over items (None with fewer than two such items).
    spread : float
        The standard deviation among the values' gaps on those items.
    ratio, ratio_interval : float, (float, float)
        ``spread / |shift|`` and its 95% bootstrap interval over items (None without a shift).
    similar : bool
        The ratio's upper bound is at most :data:`MAX_SPREAD_RATIO`, all gaps of one sign.
    among : OmnibusResult or None
        The omnibus test of the values against each other, without the reference, reported beside the ratio
        (None unless ``all_detected`` and ``similar``); it decides nothing.
    suspect : bool
        All hold: the verdict names the reference as the likely cause.
    statement : str
        The caveat in one sentence (empty unless ``suspect``); it ends by saying it is borderline when
        ``borderline``.
    borderline : bool
        (A property.) The ratio's upper end lies within :data:`SIMILAR_MARGIN` of :data:`MAX_SPREAD_RATIO`
        (ends included), where one run more or fewer can move it across.
    """

    reference: str
    direction: str
    low: float
    high: float
    all_detected: bool
    similar: bool
    among: object
    suspect: bool
    statement: str
    shift: float | None = None
    shift_interval: tuple[float, float] | None = None
    spread: float | None = None
    ratio: float | None = None
    ratio_interval: tuple[float, float] | None = None

    #: the name of the caveat this check adds to a verdict
    caveat_id = "reference_not_neutral"

    @property
    def borderline(self) -> bool:
        """The ratio's upper end lies within :data:`SIMILAR_MARGIN` of the bound (:func:`near_bound`)."""
        return self.ratio_interval is not None and near_bound(self.ratio_interval[1])

    @property
    def figures(self) -> dict:
        """The numbers behind ``statement`` (JSON-safe)."""
        return {"reference": self.reference, "low": self.low, "high": self.high, "shift": self.shift,
                "ratio": self.ratio, "ratio_high": None if self.ratio_interval is None else self.ratio_interval[1],
                "among_p": None if self.among is None else float(self.among.pvalue), "borderline": self.borderline}

    def to_dict(self) -> dict:
        pair = (lambda x: None if x is None else [float(x[0]), float(x[1])])
        return {"reference": self.reference, "direction": self.direction, "low": self.low, "high": self.high,
                "all_detected": self.all_detected, "shift": self.shift, "shift_interval": pair(self.shift_interval),
                "spread": self.spread, "ratio": self.ratio, "ratio_interval": pair(self.ratio_interval),
                "max_ratio": MAX_SPREAD_RATIO, "similar": self.similar,
                "among": None if self.among is None else self.among.to_dict(),
                "suspect": self.suspect, "borderline": self.borderline, "statement": self.statement}


def near_bound(high: float) -> bool:
    """Whether the ratio's upper end ``high`` lies within :data:`SIMILAR_MARGIN` of :data:`MAX_SPREAD_RATIO`, ends
    included.

    >>> [near_bound(x) for x in (0.2272, 0.2273, 0.25, 0.275, 0.2751)]
    [False, True, True, True, False]
    """
    return bool(np.isfinite(high)) and MAX_SPREAD_RATIO / SIMILAR_MARGIN <= high <= MAX_SPREAD_RATIO * SIMILAR_MARGIN


def borderline_words(high: float) -> str:
    """What the caveat adds when the ratio's upper end ``high`` is near the bound.

    >>> borderline_words(0.24)
    'Borderline: its upper end 0.24 lies within a factor of 1.1 of 0.25 (from 0.227 to 0.275), where one run more or fewer can move it across; the reading holds for these runs but is not firm.'
    """
    low, top = MAX_SPREAD_RATIO / SIMILAR_MARGIN, MAX_SPREAD_RATIO * SIMILAR_MARGIN
    return (f"Borderline: its upper end {high:.3g} lies within a factor of {SIMILAR_MARGIN:g} of {MAX_SPREAD_RATIO:g} "
            f"(from {low:.3g} to {top:.3g}), where one run more or fewer can move it across; the reading holds for "
            "these runs but is not firm.")


def spread_ratio(gaps) -> tuple[float, float, float]:
    """The common shift, the spread among the values and their ratio, from an items x values matrix of gaps
    against the reference: ``(mean of the column means, their SD (ddof 1), SD / |mean|)``.

    >>> spread_ratio([[-0.2, -0.3], [-0.4, -0.3]])   # column means -0.3 and -0.3: no spread
    (-0.3, 0.0, 0.0)
    >>> shift, spread, ratio = spread_ratio([[-1.0, -2.0, -3.0]])   # means -1, -2, -3: SD 1 around -2
    >>> shift, spread, ratio
    (-2.0, 1.0, 0.5)
    """
    means = np.asarray(gaps, dtype=float).mean(axis=0)
    shift = float(means.mean())
    spread = float(means.std(ddof=1))
    return round(shift, 12), round(spread, 12), (round(spread / abs(shift), 12) if shift != 0 else float("inf"))


def canonical_rows(gaps: np.ndarray) -> np.ndarray:
    """The items' rows in an order the log's row order and the names of its items and values do not set: by
    each row's values sorted (the statistics do not depend on the values' order), the rows' order in the log
    kept only among rows holding the same numbers in another arrangement.

    >>> canonical_rows(np.array([[3.0, 1.0], [0.5, 2.0], [1.0, 0.0]])).tolist()
    [[1.0, 0.0], [0.5, 2.0], [3.0, 1.0]]
    """
    gaps = np.asarray(gaps, dtype=float)
    if gaps.shape[0] < 2:
        return gaps
    return gaps[row_order(np.sort(gaps, axis=1))]


def _bootstrap(gaps: np.ndarray, *, n_resamples: int, seed) -> tuple[tuple[float, float], tuple[float, float]]:
    """95% percentile intervals of the shift and the ratio, items resampled with replacement (drawn from the
    rows in :func:`canonical_rows` order, so that shuffling or renaming draws the same resamples)."""
    gaps = canonical_rows(gaps)
    rng = np.random.default_rng(seed)
    n = gaps.shape[0]
    shifts, ratios = [], []
    for start in range(0, n_resamples, 500):
        size = min(500, n_resamples - start)
        means = gaps[rng.integers(0, n, (size, n))].mean(axis=1)   # (size, values)
        shift = means.mean(axis=1)
        spread = means.std(axis=1, ddof=1)
        shifts.append(shift)
        with np.errstate(divide="ignore"):
            ratios.append(np.where(shift != 0, spread / np.abs(np.where(shift != 0, shift, 1.0)), np.inf))
    shifts, ratios = np.concatenate(shifts), np.concatenate(ratios)
    # order statistics, not interpolation: a resample with no shift has an infinite ratio
    ends = (lambda x: (float(np.quantile(x, 0.025, method="inverted_cdf")),
                       float(np.quantile(x, 0.975, method="inverted_cdf"))))
    return ends(shifts), ends(ratios)


def reference_check(result, tests) -> ReferenceCheck | None:
    """The check of ``result`` (a ``ManyResult``) at the ``tests``' level, with their resampling: None with fewer
    than two values besides the reference.

    Examples
    --------
    Three values, each 1 below the reference on every item (give or take 0.1), alike among themselves:

    >>> from probestats.analyses.many import analyze_many
    >>> from probestats.analyses.question import Question
    >>> from probestats.io.read import read_log
    >>> rows = read_log([{"item": i, "variant": v, "x": i + (1.0 if v == "ref" else 0.1 * ((i + k) % 3))}
    ...                  for i in range(8) for k, v in enumerate(["ref", "A", "B", "C"])])
    >>> check = analyze_many(rows, Question("x", reference="ref")).verdict.reference_check
    >>> check.suspect, check.direction, round(check.shift, 3), check.ratio_interval[1] <= 0.25
    (True, 'below', -0.9, True)
    """
    alpha, n_resamples, seed = tests.alpha, tests.n_resamples, tests.seed

    def fmt_interval(iv) -> str:
        return f"[{iv[0]:+.3g}, {iv[1]:+.3g}]" if iv[0] < 0 or iv[1] < 0 else f"[{iv[0]:.3g}, {iv[1]:.3g}]"

    others = list(result.gaps)
    if len(others) < 2:
        return None
    gaps = np.array([g.average_gap for g in others])
    low, high = float(gaps.min()), float(gaps.max())
    direction = "below" if high < 0 else "above" if low > 0 else "mixed"
    all_detected = all(g.p_adjusted is not None and g.p_adjusted <= alpha for g in others)
    names = [g.a for g in others]
    shift = spread = ratio = shift_interval = ratio_interval = None
    matrix = np.zeros((0, len(names)))
    if direction != "mixed":
        wide = result.items.pivot(on="value", index="item", values="mean", aggregate_function="first")
        if not all(n in wide.columns for n in (*names, result.reference)):
            return None
        matrix = wide.select(*names, result.reference).drop_nulls().to_numpy().astype(float)
        matrix = matrix[:, :-1] - matrix[:, -1:]   # each value's item gap against the reference
        if matrix.shape[0] >= 2:
            shift, spread, ratio = spread_ratio(matrix)
            shift_interval, ratio_interval = _bootstrap(matrix, n_resamples=min(N_BOOTSTRAP, int(n_resamples)),
                                                        seed=seed)
    similar = ratio_interval is not None and np.isfinite(ratio_interval[1]) and ratio_interval[1] <= MAX_SPREAD_RATIO
    # the values against each other only when the other conditions hold: with thousands of values that
    # omnibus (and the table it needs) is the costliest part of the analysis; reported, it decides nothing
    among = None
    if all_detected and similar:
        wide = result.items.pivot(on="value", index="item", values="mean", aggregate_function="first")
        among = omnibus_test(wide.select(names).drop_nulls().to_numpy().astype(float), n_resamples=n_resamples,
                             seed=seed)
    suspect = bool(all_detected and similar)
    statement = ""
    if suspect:
        n = len(others)
        statement = (f"Every one of the {n} values is {direction} the reference '{result.reference}' by a similar "
                     f"amount: a common shift of {shift:+.3g} (95% CI {fmt_interval(shift_interval)}), the values "
                     f"spread around it by {spread:.3g} (SD), {ratio:.2f} of the shift (95% CI "
                     f"{fmt_interval(ratio_interval)}, alike where its upper end is at most {MAX_SPREAD_RATIO:g}; "
                     f"over {matrix.shape[0]} items): "
                     f"the reference itself may be the cause (it may differ from every value in more than the "
                     f"attribute); read the values against each other rather than each against it.")
        if near_bound(ratio_interval[1]):
            statement += " " + borderline_words(ratio_interval[1])
    return ReferenceCheck(reference=result.reference, direction=direction, low=low, high=high,
                          all_detected=all_detected, similar=bool(similar), among=among, suspect=suspect,
                          statement=statement, shift=shift, shift_interval=shift_interval, spread=spread, ratio=ratio,
                          ratio_interval=ratio_interval)
