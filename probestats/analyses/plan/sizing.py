"""What a plan asks of each design, as one object: :class:`Sizing`.

The test itself (its level, direction and the seed of the simulated probes) is a :class:`~probestats.Tests`; the
rest of the question travels on a ``Sizing`` beside it, through every function of the planner, rather than as a
dozen loose parameters: the power to reach, the spread of true gaps assumed, how a gap acts, the metric's declared
scale, and how much simulating the answer may take.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Sizing", "Pilot"]


@dataclass(frozen=True)
class Sizing:
    """The sizing question besides the test (:class:`~probestats.Tests`), and the effort spent answering it.

    Each value is checked where it is used (the messages name the parameter as the user gave it).

    Attributes
    ----------
    power : float
        The target power: the minimum detectable gap is the smallest gap that reaches it.
    heterogeneity : float or None
        tau, the spread (SD) of true gaps between items, as a stated assumption (None: from a pilot, or 0).
    mechanism : {"auto", "level", "rate", "scale"}
        How a gap acts on value a's runs (:mod:`probestats.analyses.plan.mechanisms`).
    scale : (low, high) or "LOW:HIGH" or None
        The metric's declared scale, for a noise log not yet read into a model (see
        :func:`~probestats.analyses.plan.noise_model`).
    sims : int
        Simulated probes per design.
    mdg_range : bool
        Also find each MDG's range over plausible noise logs of the same size (a plan).
    time_budget : float or None
        Seconds after which a plan stops refining.
    max_items, max_runs : int
        The largest counts :func:`~probestats.analyses.plan.power_sign_flip` searches when it solves for items
        or runs.

    Examples
    --------
    >>> Sizing(sims=500).tau, Sizing(heterogeneity=0.3).tau
    (0.0, 0.3)
    """

    power: float = 0.8
    heterogeneity: float | None = None
    mechanism: str = "auto"
    scale: object = None
    sims: int = 2000
    mdg_range: bool = True
    time_budget: float | None = None
    max_items: int = 512
    max_runs: int = 512

    @property
    def tau(self) -> float:
        """The spread of true gaps simulated: ``heterogeneity``, or 0 when None."""
        return 0.0 if self.heterogeneity is None else float(self.heterogeneity)


@dataclass(frozen=True)
class Pilot:
    """A pilot of the real comparison and the two values it compares.

    A plan takes the log alone too (``pilot=LOG``); ``Pilot(LOG, a="female", b="male")`` names the values.

    Attributes
    ----------
    log : log
        The pilot: anything :func:`~probestats.analyses.plan.noise_model` reads.
    a, b : str or None
        The values compared (None: the first two in order of appearance).
    """

    log: object
    a: str | None = None
    b: str | None = None
