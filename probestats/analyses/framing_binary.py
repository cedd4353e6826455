"""The binary (yes/no) mode of the dual-framing analysis.

A yes/no answer scores +1 (yes) and −1 (no), never 0/1: 0 is neutral on the agreement
scale, and "no" is never neutral. With these scores the framing analysis's own figures
are the ones the acquiescence literature reports, for balanced framings and the
affirmative prompt asserting the reference target:

- acquiescence = mean raw score = P(yes | affirmative) + P(yes | reverse) − 1;
  positive is **yea-saying**, negative **nay-saying**;
- bias (the lean) = mean aligned score = P(yes | affirmative) − P(yes | reverse).

Per item (a claim in one language asked in both framings) the units are the means of
its scores; across items the exact sign-flip test. With one answer per framing the
units are −1, 0 or +1, and the sign-flip test is exactly McNemar's exact test: for the
lean, on the items answered yes/no against no/yes; for acquiescence, on the items
answered yes twice against no twice.

Refusals and hedges ("it depends", "No sé") carry no score: they are counted apart,
per cell, as are the unparsed replies, and left out of the yes-rates.

**Pattern** of a cell (on corrected p-values at alpha): with a detected lean,
``protective`` or ``assertive`` by the sign of a detected acquiescence and
``symmetric`` without one, as on the agreement scale; with no detected lean,
``yea-saying`` or ``nay-saying`` when acquiescence is detected, else ``none``.

Examples
--------
>>> binary_pattern(0.5, 0.001, -0.4, 0.05), binary_pattern(0.001, 0.001, 0.3, 0.05)
('nay-saying', 'assertive')
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from probestats.errors import OptionError, opt
from probestats.shape.codebook import yes_no_book
from probestats.shape.yesno import yes_no_share
from probestats.stats.hypotests import INTERVAL_SIGN_FLIP_MAX_N, gap_interval

__all__ = ["ANSWERS", "binary_interval", "binary_pattern", "binary_scores", "choose_answers", "cell_counts",
           "yes_rate"]

#: Values of ``answers``: how replies are scored.
ANSWERS = ("auto", "yes-no", "agreement")
YES_NO = "yes-no"
AGREEMENT = "agreement"


def choose_answers(values: pl.Series, answers: str = "auto", *, label_map=None,
                   column: str = "score") -> tuple[str, str]:
    """Decide between the yes/no and the agreement scoring, and say why.

    Parameters
    ----------
    values : polars.Series
        The column scores come from (a score column, labels or replies).
    answers : {"auto", "yes-no", "agreement"}
        ``auto``: yes/no when a ``label_map`` is given, when the values are numbers that
        are all 0 or 1 (or booleans), or when more distinct values read as yes/no than
        as a point of the agreement scale; agreement otherwise.
    label_map : optional
        User wordings (:func:`probestats.shape.yesno.parse_label_map`).
    column : str
        The column's name, for the reason.

    Returns
    -------
    (str, str)
        The mode (``"yes-no"`` or ``"agreement"``) and the reason, a sentence fragment.

    Examples
    --------
    >>> choose_answers(pl.Series([0, 1, 1, 0]))
    ('yes-no', 'the score column holds only 0 and 1')
    >>> choose_answers(pl.Series(["Agree", "Disagree"]), column="label")[0]
    'agreement'
    """
    if answers not in ANSWERS:
        raise OptionError(f"answers must be one of {', '.join(ANSWERS)}, not {answers!r}")
    if answers != "auto":
        return answers, f"as answers={answers!r} asked"
    if label_map:
        return YES_NO, "a label map was given"
    present = values.drop_nulls()
    if values.dtype == pl.Boolean:
        return YES_NO, f"the {column} column holds true/false"
    numeric = present.cast(pl.Float64, strict=False)
    if numeric.dtype == pl.Float64 and numeric.null_count() == 0:
        numeric = numeric.filter(~numeric.is_nan())  # NaN is a missing score, not a value
    if present.len() and numeric.null_count() == 0 and numeric.len():
        if set(numeric.unique().to_list()) <= {0.0, 1.0}:
            return YES_NO, f"the {column} column holds only 0 and 1"
        if set(numeric.unique().to_list()) <= {-1.0, 1.0} and values.dtype == pl.String:
            # a judge's replies written +1/-1: read as yes/no (a numeric score column of -1 and 1 is a point of
            # the agreement scale, disagree and agree)
            return YES_NO, f"the {column} column's replies are only -1 and 1"
        return AGREEMENT, f"the {column} column holds numbers beyond 0 and 1"
    yn, agreement = yes_no_share(present.cast(pl.String))
    if yn > agreement:
        return YES_NO, (f"{yn} distinct values of the {column} column read as yes/no and {agreement} as a point "
                        "of the agreement scale")
    return AGREEMENT, (f"{agreement} distinct values of the {column} column read as a point of the agreement "
                       f"scale and {yn} as yes/no")


def binary_scores(values: pl.Series, *, label_map=None) -> pl.DataFrame:
    """Scores +1/−1 and kinds (yes, no, refusal, hedge, unparsed) of a column.

    Numbers must be 0 or 1 (1 yes, 0 no); text is read by the yes/no rule of
    :mod:`probestats.shape.yesno`.

    >>> binary_scores(pl.Series([1, 0, None])).to_dict(as_series=False)
    {'score': [1.0, -1.0, None], 'kind': ['yes', 'no', 'unparsed']}
    >>> binary_scores(pl.Series(["Sí", "peut-être"]))["kind"].to_list()
    ['yes', 'hedge']
    """
    if values.dtype == pl.Boolean or values.dtype.is_numeric():
        numeric = values.cast(pl.Float64).fill_nan(None)  # NaN is a missing score
        bad = numeric.filter(~numeric.is_in([0.0, 1.0]) & numeric.is_not_null()).unique().sort()
        if bad.len():
            shown = ", ".join(f"{v:g}" for v in bad.to_list()[:5])
            raise OptionError(f"yes/no scores must be 1 (yes) or 0 (no), not {shown}; give "
                              f"{opt('answers', 'agreement')} for an agreement scale")
        score = numeric * 2 - 1
        kind = pl.select(pl.when(score > 0).then(pl.lit("yes")).when(score < 0).then(pl.lit("no"))
                         .otherwise(pl.lit("unparsed"))).to_series()
        return pl.DataFrame({"score": score, "kind": kind})

    # the built-in yes-no code book (the one --code NAME=yes-no reads with): yes 1 and no 0, here +1 and -1
    coded = yes_no_book(label_map).code(values.cast(pl.String))
    return coded.select((pl.col("score") * 2 - 1).alias("score"),
                        pl.when(pl.col("kind") == "coded").then(pl.col("label"))
                        .when(pl.col("kind") == "blank").then(pl.lit("unparsed")).otherwise(pl.col("kind"))
                        .alias("kind"))


def yes_rate(mean_score: float | None) -> float | None:
    """The yes-rate of answers scored +1/−1, from their mean score: (mean + 1) / 2.

    >>> yes_rate(-0.4), yes_rate(None)
    (0.3, None)
    """
    return None if mean_score is None else (mean_score + 1.0) / 2.0


def cell_counts(rows: pl.DataFrame) -> dict:
    """Refused and hedged replies among a cell's rows (``_kind`` column)."""
    kinds = rows["_kind"]
    return {"n_refused": int((kinds == "refusal").sum()), "n_hedged": int((kinds == "hedge").sum())}


def binary_pattern(bias_p_adj, acq_p_adj, acquiescence, alpha: float) -> str:
    """The pattern of a yes/no cell (see the module docstring)."""
    lean = bias_p_adj is not None and bias_p_adj <= alpha
    acq = acq_p_adj is not None and acq_p_adj <= alpha and acquiescence is not None and acquiescence != 0
    if lean:
        if acq:
            return "protective" if acquiescence < 0 else "assertive"
        return "symmetric"
    if acq:
        return "nay-saying" if acquiescence < 0 else "yea-saying"
    return "none"


def binary_interval(values: np.ndarray, confidence: float, unit: str = "items") -> dict | None:
    """An interval for the mean of item units bounded in [−1, 1], with coverage at least ``confidence``.

    Up to 30 units: the exact inversion of the sign-flip test
    (:func:`probestats.stats.hypotests.gap_interval`, ``method="sign-flip"``; it assumes, as
    the test does, units symmetric about their mean), its ends cut to [−1, 1]. Beyond: Hoeffding's inequality for
    means of values in [−1, 1], mean ± 2·sqrt(ln(2/α) / (2n)), cut to [−1, 1]: its
    coverage is at least the level for any such units (conservative: wider than needed).

    >>> iv = binary_interval(np.array([1.0, -1.0, 0.0] * 20), 0.95)
    >>> round(iv["high"], 4), iv["method"].split(" (")[0]
    (0.3507, "Hoeffding's inequality on 60 item means in [-1, 1]")
    """
    n = int(values.size)
    if n < 2:
        return None
    if n <= INTERVAL_SIGN_FLIP_MAX_N:
        iv = gap_interval(values, confidence=confidence, method="sign-flip")
        out = iv.to_dict()
        # a mean of units in [-1, 1] lies in [-1, 1]: an end beyond (infinite at few units) is cut there
        out["low"], out["high"] = max(-1.0, iv.low), min(1.0, iv.high)
        out["method"] = out["method"].replace("item gaps", "item means") + ", cut to [-1, 1]"
        return out
    mean = math.fsum(values) / n
    half = 2.0 * math.sqrt(math.log(2.0 / (1.0 - confidence)) / (2.0 * n))
    what = "item means" if unit == "items" else "runs of one item"
    return {"low": max(-1.0, mean - half), "high": min(1.0, mean + half), "confidence": confidence,
            "method": f"Hoeffding's inequality on {n} {what} in [-1, 1] (coverage at least {confidence:g} "
                      "for any bounded units; conservative)"}
