"""The minimum detectable gap of the design a probe ran (its items and runs per value), from its
same-versus-same noise log (:func:`probe_mdg`), with how it was found, in words, and its range over
plausible noise logs, simulated when first read (:class:`MDGDetail`): the terminal shows the MDG alone,
so a small log's analysis does not wait for the range.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import polars as pl

from probestats.checks.schema import Checked
from probestats.errors import count_of, either
from probestats.vocabulary import Tests


def noise_rows(noise_checked: Checked) -> pl.DataFrame:
    """The runs of a same-versus-same log as the noise model reads them: with one run per item and value
    no cell shows run-to-run noise, but both values are one condition, so each item's runs are one cell
    (the value column is dropped).
    """
    frame = noise_checked.frame
    if frame.height and frame.group_by("item", "variant").len()["len"].max() == 1:
        return frame.drop("variant")
    return frame


@dataclass(frozen=True, eq=False)
class MDGDetail:
    """How the MDG of a design run was found, and its range, simulated the first time it is read.

    Attributes
    ----------
    stated : str
        How the MDG was found, in words, without the range's method.
    runs_to_halve : int
        Runs a noise log would need to halve the range (four times the noise log's).
    pending : callable
        Simulates the range, (low, high) or None; called once, when :attr:`range` is first read.

    Examples
    --------
    >>> calls = []
    >>> detail = MDGDetail("found so", 40, lambda: calls.append(1) or (0.4, 0.6))
    >>> len(calls)
    0
    >>> detail.range, detail.range, len(calls)   # simulated once, when first read
    ((0.4, 0.6), (0.4, 0.6), 1)
    >>> detail.range_runs, MDGDetail("found so", 40, lambda: None).range_runs
    (40, None)
    """

    stated: str
    runs_to_halve: int
    pending: Callable = field(repr=False)

    @cached_property
    def range(self) -> tuple | None:
        """(low, high): the MDG over plausible same-versus-same logs of the noise log's size (None: not found)."""
        span = self.pending()
        return None if span is None else tuple(span)

    @property
    def range_runs(self) -> int | None:
        """Runs a noise log would need to halve :attr:`range` (None without a range)."""
        return None if self.range is None else self.runs_to_halve

    @property
    def method(self) -> str:
        """How the MDG and its range were found, in words."""
        # lazy: analyses.plan.ranges is off the paired analysis's path (tests/test_start.py)
        from probestats.analyses.plan.ranges import RANGE_METHOD

        return self.stated + ("" if self.range is None else f"; its range: {RANGE_METHOD}")


def probe_mdg(noise_checked, metric, main, tests) -> tuple:
    """Minimum detectable gap of the design actually run, from the noise log, at the ``tests``' level and in their
    direction: the MDG, the room the metric's bound leaves for it, whether it is larger than that room, and how it
    was found (:class:`MDGDetail`)."""
    alpha, alternative = tests.alpha, tests.alternative
    # lazy: analyses.plan is off the paired analysis's path (tests/test_start.py)
    from probestats.analyses.plan import design_mdg_later, gap_model, noise_model

    runs_a, runs_b = main.runs_per_value()
    single = noise_rows(noise_checked) is not noise_checked.frame
    model = noise_model(noise_rows(noise_checked), metric=metric)
    # the simulation's own seed (0), not the analysis's: the MDG of a design does not move with --seed
    found, pending = design_mdg_later(model, items=main.n_items, runs_a=runs_a, runs_b=runs_b,
                                      tests=Tests(alpha=alpha, alternative=alternative))
    method = (f"simulated power of the exact sign-flip test ({alternative}) ≥ 0.8 at alpha {alpha:g}, "
              f"{count_of(main.n_items, 'item')}, {runs_a}/{runs_b} runs per value, noise σ from the same-versus-same log, "
              "no heterogeneity between items assumed (an optimistic bound)")
    if single:
        method += "; one run per item and value in the noise log, so σ is pooled within items"
    if model.bounded:
        ends = ", ".join(f"{name} {bound:g}" for name, bound in (("floor", model.floor), ("ceiling", model.ceiling))
                         if bound is not None)
        method += (f"; the metric's {ends} is respected, so near it an item's gap stops at the bound "
                   f"(see {either('probestats.plan()', 'probestats plan')} for the gap a design really reaches)")
    method += f"; gap model {gap_model(model)}"
    return found.mdg, found.room, found.near_bound, MDGDetail(method, 4 * int(model.n_runs), pending)


