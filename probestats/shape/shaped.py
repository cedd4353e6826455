"""The probe log as a job read and shaped it: what the engines in :mod:`probestats.analyses` take.

Shaping reads the metric (items kept complete for it, a field inside the records it names, a text metric
counted from the replies, the item column fitted to it), so a log analyzed for several metrics is shaped once
per metric, and a noise log beside it alike. The jobs build a :class:`Shaped`
(:func:`probestats.jobs.inputs.shape_log`); the engines pick the log of the metric they analyze and read nothing
themselves.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Shaped"]


@dataclass(frozen=True)
class Shaped:
    """The probe log shaped for each metric, and the noise log for each metric where the noise reference is a log.

    Parameters
    ----------
    logs : mapping of str to Log
        Each metric's shaped log.
    noises : mapping of str to Log
        Each metric's shaped noise log (empty when the noise reference is a word, ``"within"`` or ``"none"``,
        or not given).

    Examples
    --------
    >>> from probestats.shape.probe import Probe
    >>> rows = [{"item": 1, "variant": "a", "x": 1}, {"item": 1, "variant": "b", "x": 2}]
    >>> shaped = Shaped({"x": Probe().apply(rows, metric="x")})
    >>> log, noise = shaped.of("x")
    >>> log.frame.height, noise
    (2, None)
    """

    logs: Mapping
    noises: Mapping = field(default_factory=dict)

    def of(self, metric):
        """The shaped log of ``metric`` and its shaped noise log (None without one)."""
        return self.logs[metric], self.noises.get(metric)
