"""A reference that is not neutral: every value differs from it the same way, while they are alike.

Many values measured against one reference (a baseline résumé, an unmarked prompt) are read as "every
value is penalised" when each is below it. When every value differs from the reference **in the same
direction by a similar amount** while **among themselves they are alike**, the likelier reading is that
the reference itself differs (it carries a real person's name, a longer text): :func:`reference_check`
says so, and shows the values against each other, their omnibus test without the reference
(:func:`probestats.analyses.omnibus.omnibus_test` on the items x values matrix with the reference's column
left out).

The rule, all three at once:

- every value's gap against the reference has its corrected p at most alpha, all of one sign;
- the gaps are similar: their range is smaller than the smallest gap in size (they sit closer to each
  other than any of them sits to no gap);
- the omnibus test of the values without the reference has p above alpha.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ReferenceCheck", "reference_check"]


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
    similar : bool
        The gaps' range is smaller than the smallest gap in size.
    among : OmnibusResult or None
        The omnibus test of the values against each other, without the reference (None unless
        ``all_detected`` and ``similar`` hold: it decides nothing otherwise).
    suspect : bool
        All three hold: the verdict names the reference as the likely cause.
    statement : str
        The caveat in one sentence (empty unless ``suspect``).
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

    #: the name of the caveat this check adds to a verdict
    caveat_id = "reference_not_neutral"

    @property
    def figures(self) -> dict:
        """The numbers behind ``statement`` (JSON-safe)."""
        return {"reference": self.reference, "low": self.low, "high": self.high, "among_p": None if self.among is None else float(self.among.pvalue)}

    def to_dict(self) -> dict:
        return {"reference": self.reference, "direction": self.direction, "low": self.low, "high": self.high,
                "all_detected": self.all_detected, "similar": self.similar, "among": None if self.among is None else self.among.to_dict(),
                "suspect": self.suspect, "statement": self.statement}


def reference_check(result, tests) -> ReferenceCheck | None:
    """The check of ``result`` (a ``ManyResult``) at the ``tests``' level, with their resampling: None with fewer
    than two values besides the reference.

    Examples
    --------
    Three values, each 1 below the reference on every item (give or take 0.1), alike among themselves:

    >>> from probestats.analyses.many import analyze_many
    >>> from probestats.analyses.question import Question
    >>> rows = [{"item": i, "variant": v, "x": i + (1.0 if v == "ref" else 0.1 * ((i + k) % 3))}
    ...         for i in range(8) for k, v in enumerate(["ref", "A", "B", "C"])]
    >>> check = analyze_many(rows, Question("x", reference="ref")).verdict.reference_check
    >>> check.suspect, check.direction, check.among.pvalue > 0.05
    (True, 'below', True)
    """
    from probestats.analyses.blocks import p_words
    from probestats.analyses.omnibus import omnibus_test

    alpha, n_resamples, seed = tests.alpha, tests.n_resamples, tests.seed
    others = list(result.gaps)
    if len(others) < 2:
        return None
    gaps = np.array([g.average_gap for g in others])
    low, high = float(gaps.min()), float(gaps.max())
    direction = "below" if high < 0 else "above" if low > 0 else "mixed"
    all_detected = all(g.p_adjusted is not None and g.p_adjusted <= alpha for g in others)
    similar = direction != "mixed" and (high - low) < float(np.abs(gaps).min())
    # the values against each other only when the other two conditions hold: with thousands of values that
    # omnibus (and the table it needs) is the costliest part of the analysis, and it decides nothing otherwise
    among = None
    if all_detected and similar:
        wide = result.items.pivot(on="value", index="item", values="mean", aggregate_function="first")
        names = [g.a for g in others]
        if not all(n in wide.columns for n in names):
            return None
        matrix = wide.select(names).drop_nulls().to_numpy().astype(float)
        if matrix.shape[0] < 1:
            return None
        among = omnibus_test(matrix, n_resamples=n_resamples, seed=seed)
    suspect = among is not None and among.pvalue > alpha
    statement = ""
    if suspect:
        n = len(others)
        statement = (f"Every one of the {n} values is {direction} the reference '{result.reference}' by a similar "
                     f"amount ({low:+.3g} to {high:+.3g}), while among themselves they do not differ by more than "
                     f"chance (the omnibus test without '{result.reference}', {p_words(among)}): the reference "
                     f"itself may be the cause (it may differ from every value in more than the attribute); read "
                     f"the values against each other rather than each against it.")
    return ReferenceCheck(reference=result.reference, direction=direction, low=low, high=high,
                          all_detected=all_detected, similar=similar, among=among, suspect=suspect,
                          statement=statement)
