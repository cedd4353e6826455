"""Gap models: how a true gap acts on value a's simulated runs."""

from __future__ import annotations

import numpy as np

from probestats.analyses.plan.noise import NoiseModel, fmt_scale
from probestats.errors import OptionError, opt

__all__ = ["SHIFTS", "SHIFT_TEXT", "gap_model", "check_shift"]


SHIFTS = ("additive", "scale", "steps")
SHIFT_TEXT = {
    "additive": "a gap is added to the mean of every item's value a (for a count, to its rate)",
    "scale": ("a gap scales value a's mean by 1 + gap / (the noise log's mean): whole numbers as a rate "
              "(thinned, or joined by Poisson counts at the item's rate), other runs multiplied"),
    "steps": "a gap moves a whole-number metric by whole steps, spread evenly over the item's runs",
}


def gap_model(noise: NoiseModel, shift: str = "additive") -> str:
    """How a gap acts on value a's simulated runs, in one line, for this metric and ``shift``.

    The default (``"additive"``) follows how a gap of each kind of metric happens: a count's
    rate rises by the gap (each run of an item at rate ``lambda_i + gap``, the extra events
    drawn, so the spread grows with the rate) or falls by it (each event kept with probability
    ``(lambda_i + gap) / lambda_i``); a 0/1 metric's rate moves and each run is drawn at the new rate;
    a scale of more levels moves each item's level by whole steps spread evenly over its runs;
    a bounded metric stops at its bounds; other metrics are shifted.

    >>> from probestats.analyses.plan.noise import noise_model
    >>> gap_model(NoiseModel.stated(1.0))
    'additive: a gap is added to every run of value a (normal runs)'
    >>> rows = [{"item": i, "n": y} for i in range(4) for y in (0, 1, 2, 2 + i)]
    >>> gap_model(noise_model(rows, metric="n")).startswith("additive: a count's rate")
    True
    """
    if shift == "scale":
        return f"scale: {SHIFT_TEXT['scale']}"
    bound = (f", stopping at the bounds {fmt_scale(noise.floor, noise.ceiling)} (a gap is then the shift of each "
             "item's mean, and the average shift reached is reported)" if noise.bounded else "")
    if shift == "steps":
        return f"steps: {SHIFT_TEXT['steps']}{bound}"
    if noise.count:
        return ("additive: a count's rate rises by the gap in every run of value a (rate lambda_i + gap, the extra "
                "events drawn as Poisson counts) or falls by it (each event kept with probability "
                "(lambda_i + gap) / lambda_i, stopping at 0), lambda_i the simulated item's rate")
    if noise.bounded and noise.integer and noise.floor == 0 and noise.ceiling == 1:
        return ("additive: a 0/1 metric's rate moves by the gap and each run of value a is drawn at the new rate, "
                f"kept within {fmt_scale(noise.floor, noise.ceiling)}")
    if noise.bounded and noise.integer:
        return ("additive: each item's mean of value a moves by the gap in whole steps spread evenly over its runs"
                + bound)
    if noise.bounded:
        return "additive: every run of value a is shifted and clipped to the bounds" + bound
    what = "normal runs" if noise._values is None else (
        "whole steps spread evenly over the item's runs" if noise.integer else "residuals shifted")
    return f"additive: a gap is added to every run of value a ({what})"


def check_shift(shift: str, noise: NoiseModel) -> None:
    """A scale gap needs runs that are never negative, a positive mean and no ceiling; steps need whole numbers."""
    if shift not in SHIFTS:
        raise OptionError(f"shift must be one of {', '.join(SHIFTS)}, not {shift!r}")
    if shift == "additive":
        return
    if shift == "steps":
        if not noise.integer:
            raise OptionError(f"a steps shift moves whole steps, and '{noise.metric}' is not a whole-number metric "
                              f"in the noise log; use {opt('shift', 'additive')}")
        return
    if noise._values is None:
        raise OptionError("a scale shift needs a noise log (its mean sets the scale), not a stated sigma")
    if noise.minimum is None or noise.minimum < 0 or not float(np.mean(noise._raw)) > 0:
        raise OptionError(f"a scale shift multiplies '{noise.metric}', so its runs must be 0 or more with a "
                          f"positive mean; use {opt('shift', 'additive')}")
    if noise.ceiling is not None or (noise.floor is not None and noise.floor != 0):
        raise OptionError(f"a scale shift would cross the bounds {fmt_scale(noise.floor, noise.ceiling)} of "
                          f"'{noise.metric}'; use {opt('shift', 'additive')} (or {opt('scale', '0:')} for a count)")
