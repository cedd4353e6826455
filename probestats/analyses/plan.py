"""Sizing a probe: the noise model, power of the sign-flip test, the minimum detectable gap.

The noise model comes from a same-versus-same (or pilot) log: the pooled within-cell
standard deviation of the metric per run, plus the runs themselves, so that simulated
probes keep the metric's shape (integer counts, floors, ceilings, ties). Power is the
share of simulated probes in which the exact sign-flip test rejects at ``alpha``;
the minimum detectable gap (MDG) is the smallest true average gap with power at or
above a target.

How a probe is simulated (one design: ``items`` items, ``k_a`` and ``k_b`` runs per value):

1. The noise of a run reproduces the noise log's pooled within-cell variance
   ``sigma^2`` exactly, whatever the metric and however few runs its cells hold
   (resampling a cell of ``m`` runs as it is would give only ``(m - 1) / m`` of it):

   - a metric without a floor or ceiling draws its runs from the *centered residuals*
     ``y - mean(cell)`` of every cell, pooled, and scaled by one factor so that their
     mean square is ``sigma^2`` (about ``sqrt(m / (m - 1))`` for cells of ``m`` runs);
   - a bounded or whole-number metric keeps its runs as observed values, so they stay whole
     and within the bounds: each simulated item has a cell of the noise log, and each of its
     runs (both values) comes from that cell with probability ``w``, else from the whole log,
     where ``w`` is chosen so that the expected within-item variance is ``sigma^2`` (the whole
     log's spread also holds the spread of the cell means; see :func:`_mix_share`). An item's
     mean is then its cell's mean shrunk toward the log's, ``w m_c + (1 - w) M``: the
     simulated items spread as the cells' *true* means do, not as their noisy means (a cell of
     two 0/1 runs reads 1.0 four times in five at a rate of 0.9; taken as it is, such an item
     would sit at the ceiling with no room to move). When even the whole log spreads less
     than ``sigma`` (a sampling accident of a small log), ``w`` is 0 and the shortfall is
     stated (``sigma_simulated``).
2. The item's true gap is ``delta + tau * z`` with ``z`` standard normal (``tau`` is the
   heterogeneity of true gaps between items).
3. The true gap is added to value ``a``'s runs as a shift (``--shift scale`` multiplies
   them instead; see :func:`plan_probe`).

A metric with a floor or a ceiling (a 0/1 label, a 1-5 judge scale, a count that stops
at 0) is simulated so that no run ever crosses it. The bounds are declared
(``scale=(low, high)``, ``--scale LOW:HIGH``) or read from the noise log: the smallest
(largest) value observed is taken as a floor (ceiling) when at least
:data:`BOUND_SHARE` of the runs, and at least :data:`BOUND_MIN_RUNS` of them, sit on it, or
when the metric takes only two values.
For such a metric step 3 becomes:

3'. The true gap ``g`` of an item is a shift of its *mean* of value ``a``, which stops
   at the bound: an item whose cell has mean ``m`` moves to ``clip(m + g, floor,
   ceiling)``, so it can gain at most ``ceiling - m``. Every run of value ``a`` is
   moved by the same amount ``s`` and clipped, ``clip(y + s)``, with ``s`` chosen for
   the cell so that the clipped runs' expected mean is exactly ``clip(m + g)`` (``s``
   is larger than ``g`` when some runs already sit at the ceiling). A whole-number metric
   stays on its lattice: each run moves by ``floor(s)`` or ``floor(s) + 1`` whole
   steps, the larger with probability ``s - floor(s)``, independently per run. For a
   0/1 metric this makes value ``a``'s runs exactly Bernoulli with rate
   ``min(1, p + g)`` (and ``max(0, p + g)`` for a downward gap). Close to a bound the realised average gap is then smaller than
   ``delta``; results report it beside ``delta`` (``gap_realized``, ``mdg_realized``).

Every run only rises with the gap (clipping keeps that), so each simulated item gap
is non-decreasing in ``delta``, as :class:`_Rejections` needs. A bounded metric keeps
value ``a``'s simulated runs in memory (8 bytes per run of each design); an unbounded
one only keeps per-item sums.
"""

from __future__ import annotations
from probestats.errors import count_of

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

import numpy as np
import polars as pl

from probestats.result import html_summary, one_line

from probestats.errors import ColumnError, OptionError, either, opt
from probestats.stats.hypotests import min_attainable_p, sign_test
from probestats.errors import Problem
from probestats.stats.decide import DECIDE_EXACT_ITEMS, DECIDE_NOTE, decide_rejections

__all__ = [
    "NoiseModel",
    "Heterogeneity",
    "PowerResult",
    "PlanCell",
    "Plan",
    "noise_model",
    "heterogeneity_from_pilot",
    "power_sign_flip",
    "mdg_for_design",
    "mdg_with_range",
    "design_mdg",
    "DesignMDG",
    "room_left",
    "mdg_ranges",
    "mdg_sim_error",
    "resampled_noise",
    "differ_weight",
    "plan_probe",
    "gap_model",
    "BOUND_SHARE",
    "BOUND_MIN_RUNS",
]

from probestats.vocabulary import ALTERNATIVES, check_alpha, check_alternative, check_seed  # noqa: E402,F401
TAU_METHOD = ("method of moments: tau^2 = max(0, var(item gaps) - mean(sigma^2 (1/k_a + 1/k_b))) "
              "over the pilot's items")
_MAX_DOUBLINGS = 40
#: Share of a noise log's runs that must sit on its smallest (largest) value for that value
#: to be taken as the metric's floor (ceiling), unless a scale is declared.
BOUND_SHARE = 0.05
#: ... and the number of runs that must sit there: one or two runs at an end of a small log are
#: just its extremes, not a pile-up against a bound.
BOUND_MIN_RUNS = 3
#: Level at which the F test of whether a noise log's cell means differ is reported as significant. It no
#: longer switches the model: the two models (items alike, items differing) are weighted by their evidence
#: (see :func:`differ_weight`), so a false alarm of the test moves the plan a little, not all the way.
HOMOGENEITY_LEVEL = 0.05
#: Largest magnitude of a metric value, sigma, tau or gap the simulation accepts: sums and
#: squares of such numbers over items and runs stay far from float64's overflow.
_LIMIT = 1e100


def _finite(x) -> float | None:
    """A JSON-safe float: None for None, NaN and infinities."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


# ---------------------------------------------------------------------------
# Noise model
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NoiseModel:
    """The run-to-run noise of a metric, measured from a same-versus-same or pilot log.

    Attributes
    ----------
    metric : str
        The metric's column name.
    sigma_run : float
        Pooled within-cell (item x value) standard deviation per run:
        ``sqrt(sum((n_c - 1) s_c^2) / sum(n_c - 1))``.
    df : int or None
        Degrees of freedom of ``sigma_run``, ``sum(n_c - 1)`` (None for a stated sigma).
    n_cells, n_items, n_runs : int
        Cells, items and runs used (cells need two runs or more).
    integer : bool
        Every value is a whole number; simulated runs are kept whole.
    minimum, maximum : float or None
        The smallest and largest value observed.
    source : str
        Where the model came from (a log's name, or ``"stated"``).
    problems : tuple of Problem
        What a reader should be told about the noise log.
    floor, ceiling : float or None
        The metric's bounds as the simulation uses them (None: no bound on that side):
        declared with ``scale``, or an observed end of the noise log where at least
        :data:`BOUND_SHARE` of the runs, and :data:`BOUND_MIN_RUNS` of them, sit (both ends of a
        metric with two values). No
        simulated run crosses them (see the module notes for what a gap then means).
    scale_source : {"declared", "observed"} or None
        Where the bounds come from (None: no bound).
    mix : float
        Share of simulated items that draw their runs from one cell of the noise log (the rest draw from
        the whole log); 0 for an unbounded metric, whose residuals are pooled.
    sigma_simulated : float or None
        The standard deviation of a simulated run around its item's mean, averaged as a variance over
        simulated items: ``sigma_run``, unless a bounded log spreads less than sigma as a whole.
    spread_p : float or None
        p of the F test that the noise log's cell means differ by more than their runs' noise explains
        (None: not tested, or an unbounded continuous metric).
    differ : float
        Weight of the model in which the noise log's items differ in level, against the model in which
        they are alike (see :func:`differ_weight`).

    Examples
    --------
    >>> m = NoiseModel.stated(1.5)
    >>> m.sigma_run, m.gap_sd(20, 20)
    (1.5, 0.4743416490252569)
    """

    metric: str
    sigma_run: float
    df: int | None
    n_cells: int
    n_items: int
    n_runs: int
    integer: bool
    minimum: float | None
    maximum: float | None
    source: str = "stated"
    problems: tuple[Problem, ...] = ()
    floor: float | None = None
    ceiling: float | None = None
    scale_source: str | None = None
    #: Share of simulated items that draw their runs from one cell of the noise log (the rest
    #: draw from the whole log); 0 for an unbounded metric, whose residuals are pooled.
    mix: float = 0.0
    #: The standard deviation of a simulated run around its item's mean, averaged as a variance
    #: over simulated items: sigma_run, unless a bounded log spreads less than sigma as a whole.
    sigma_simulated: float | None = None
    #: p of the F test that the noise log's cell means differ by more than their runs' noise explains
    #: (None: not tested, or an unbounded continuous metric, whose residuals are pooled)
    spread_p: float | None = None
    #: weight of the model in which the noise log's items differ in level (their true means spread), against
    #: the model in which they are alike: the share of simulated items given a cell of their own
    #: (the rest draw every run from the whole log); see :func:`differ_weight`
    differ: float = 1.0
    # values to resample, grouped by simulation cell (None: normal noise with sd sigma_run);
    # for a bounded metric the last cell is the whole log
    _values: np.ndarray | None = field(default=None, repr=False, compare=False)
    _starts: np.ndarray | None = field(default=None, repr=False, compare=False)
    _sizes: np.ndarray | None = field(default=None, repr=False, compare=False)
    # the log's values, cell means and cell sizes, grouped by cell (to re-derive the pool for another scale)
    _raw: np.ndarray | None = field(default=None, repr=False, compare=False)
    _means: np.ndarray | None = field(default=None, repr=False, compare=False)
    _cell_sizes: np.ndarray | None = field(default=None, repr=False, compare=False)
    # bounded metric: per cell, the shift s of every run that moves the cell's mean by a gap
    _shifts: _ShiftTable | None = field(default=None, repr=False, compare=False)

    @classmethod
    def stated(cls, sigma: float, metric: str = "metric") -> NoiseModel:
        """A noise model from a stated sigma per run: runs are normal, not resampled.

        >>> NoiseModel.stated(2.0).to_dict()["simulation"]
        'normal runs with the stated sigma 2'
        """
        sigma = float(sigma)
        if not math.isfinite(sigma) or sigma < 0:
            raise OptionError(f"the noise sigma must be a number of 0 or more, not {sigma}")
        if sigma > _LIMIT:
            raise OptionError(f"the noise sigma {sigma:g} is too large to simulate; rescale the metric")
        return cls(metric=metric, sigma_run=sigma, df=None, n_cells=0, n_items=0, n_runs=0,
                   integer=False, minimum=None, maximum=None, source="stated")

    @property
    def bounded(self) -> bool:
        """Whether simulated runs are kept above a floor or below a ceiling."""
        return self.floor is not None or self.ceiling is not None

    @property
    def count(self) -> bool:
        """Whether the metric is a count: whole numbers of 0 or more, no ceiling, more than two values.

        A gap of a count is a change of its rate (see :func:`gap_model`).

        >>> rows = [{"item": i, "n": y} for i in range(4) for y in (0, 1, 2, 2 + i)]
        >>> noise_model(rows, metric="n").count, NoiseModel.stated(1.0).count
        (True, False)
        """
        return (self._raw is not None and self.integer and self.minimum is not None and self.minimum >= 0
                and self.ceiling is None and self.floor in (None, 0.0) and np.unique(self._raw).size > 2)

    @property
    def simulation(self) -> str:
        """How simulated runs are drawn: the noise model in one line."""
        if self._values is None:
            return f"normal runs with the stated sigma {self.sigma_run:.4g}"
        if not self.bounded and not self.integer:
            resid = self._raw - np.repeat(self._means, self._cell_sizes)
            rms = float(np.sqrt(np.mean(resid ** 2)))
            factor = self.sigma_run / rms if rms > 0 else 1.0
            return (f"centered residuals of the noise log's {self.n_cells} cells, pooled and scaled by {factor:.4g} "
                    f"so their SD is the pooled within-cell sigma {self.sigma_run:.4g}")
        kept = f"observed runs{' (whole numbers kept whole)' if self.integer else ''}"
        test = "" if self.spread_p is None else f" (F test p = {self.spread_p:.2g})"
        if self.mix == 0.0 or self.differ <= 0.0:
            how = (f"{kept}, all from the whole noise log, so a run's SD around its item mean is the whole log's, "
                   f"{self.sigma_simulated:.4g} (pooled within cells: {self.sigma_run:.4g})")
        else:
            how = (f"{kept}: the items differ in level with weight {self.differ:.3g}{test} (against the model in "
                   "which they are alike, weighted by the evidence): that share of simulated items has a cell of the "
                   f"noise log, each of its runs from that cell with probability {self.mix:.3g}, else from the whole "
                   "log; the rest draw every run from the whole log; a run's SD around its item mean is ")
            how += self._spread_text()
        if not self.bounded:
            return how
        return how + f"; kept within {_fmt_scale(self.floor, self.ceiling)} ({self.scale_source})"

    def _spread_text(self) -> str:
        if self.sigma_simulated is not None and self.sigma_simulated < self.sigma_run * (1 - 1e-9):
            return (f"{self.sigma_simulated:.4g}, short of the pooled sigma {self.sigma_run:.4g} (the whole log "
                    "spreads less than its cells do)")
        return f"the pooled within-cell sigma {self.sigma_run:.4g}"

    def with_scale(self, scale) -> NoiseModel:
        """The same noise with a declared scale ``(low, high)`` or ``"LOW:HIGH"`` (an empty side: no bound).

        >>> rows = [{"item": i, "picked": y} for i in range(4) for y in (0, 1, 1, 1)]
        >>> m = noise_model(rows, metric="picked")
        >>> (m.floor, m.ceiling, m.scale_source)    # two values: both ends are bounds
        (0.0, 1.0, 'observed')
        >>> m.with_scale("0:").ceiling is None, m.with_scale(":").bounded
        (True, False)
        """
        if self._raw is None:
            raise OptionError("a declared scale needs a noise log whose runs can be kept within it, "
                              "not a stated sigma")
        floor, ceiling, source = _bounds(self._raw, self.integer, scale, self.metric)
        pool = _pool(self._raw, self._means, self._cell_sizes, self.sigma_run, floor, ceiling, self.integer)
        return replace(self, floor=floor, ceiling=ceiling, scale_source=source, **pool)

    def gap_sd(self, runs_a: int, runs_b: int | None = None) -> float:
        """Noise of an item gap with ``runs_a`` and ``runs_b`` runs: ``sigma * sqrt(1/k_a + 1/k_b)``.

        >>> NoiseModel.stated(1.0).gap_sd(1, 1) == 2 ** 0.5
        True
        """
        runs_b = runs_a if runs_b is None else runs_b
        return self.sigma_run * math.sqrt(1.0 / runs_a + 1.0 / runs_b)

    def to_dict(self) -> dict:
        return {
            "metric": self.metric,
            "sigma_run": float(self.sigma_run),
            "df": None if self.df is None else int(self.df),
            "n_cells": int(self.n_cells),
            "n_items": int(self.n_items),
            "n_runs": int(self.n_runs),
            "integer": bool(self.integer),
            "minimum": _finite(self.minimum),
            "maximum": _finite(self.maximum),
            "floor": _finite(self.floor),
            "ceiling": _finite(self.ceiling),
            "scale_source": self.scale_source,
            "source": self.source,
            "simulation": self.simulation,
            "mix": float(self.mix),
            "sigma_simulated": _finite(self.sigma_simulated),
            "spread_p": _finite(self.spread_p),
            "differ_weight": float(self.differ),
            "problems": [p.to_dict() for p in self.problems],
        }


def _fmt_scale(floor, ceiling) -> str:
    """``[1, 5]``, ``[0, inf)``: the interval the simulated runs stay in."""
    lo = "(-inf" if floor is None else f"[{floor:g}"
    hi = "inf)" if ceiling is None else f"{ceiling:g}]"
    return f"{lo}, {hi}"


def _parse_scale(scale) -> tuple[float | None, float | None]:
    """``"LOW:HIGH"`` or a pair into ``(low, high)``; an empty, None or infinite side is no bound.

    >>> _parse_scale("1:5"), _parse_scale("0:"), _parse_scale((None, 1))
    ((1.0, 5.0), (0.0, None), (None, 1.0))
    """
    text = scale if isinstance(scale, str) else ":".join("" if x is None else str(x) for x in scale)
    parts = str(text).split(":")
    ends: list[float | None] = []
    try:
        if len(parts) != 2:
            raise ValueError
        for part in parts:
            part = part.strip()
            x = float(part) if part and part.lower() != "none" else None
            if x is not None and math.isnan(x):
                raise ValueError
            ends.append(None if x is None or math.isinf(x) else x)
    except ValueError:
        raise OptionError(f"{opt('scale', scale)}: expected LOW:HIGH, for example {opt('scale', '1:5')} (leave a side "
                          f"empty for no bound there, as in {opt('scale', '0:')})") from None
    low, high = ends
    if low is not None and high is not None and not low < high:
        raise OptionError(f"{opt('scale', scale)}: expected LOW:HIGH with LOW below HIGH, for example {opt('scale', '1:5')}")
    return low, high


def _bounds(y: np.ndarray, integer: bool, scale, metric: str):
    """The floor, ceiling and their source: declared by ``scale``, or read from the runs ``y``."""
    lo, hi = float(y.min()), float(y.max())
    if scale is not None:
        text = scale if isinstance(scale, str) else ":".join("" if x is None else str(x) for x in scale)
        floor, ceiling = _parse_scale(scale)
        if integer:   # a whole-number metric's bounds on its lattice
            floor = None if floor is None else float(math.ceil(floor))
            ceiling = None if ceiling is None else float(math.floor(ceiling))
        if (floor is not None and lo < floor) or (ceiling is not None and hi > ceiling):
            raise OptionError(f"values of '{metric}' in the noise log run from {lo:g} to {hi:g}, outside the "
                              f"declared scale {text}; correct {opt('scale')} (or the log)")
        return floor, ceiling, "declared"
    distinct = np.unique(y).size
    if distinct < 2:
        return None, None, None
    def piled(end: float) -> bool:
        on = int(np.sum(y == end))
        return on >= BOUND_MIN_RUNS and on >= BOUND_SHARE * y.size

    floor = lo if distinct == 2 or piled(lo) else None
    ceiling = hi if distinct == 2 or piled(hi) else None
    return floor, ceiling, ("observed" if floor is not None or ceiling is not None else None)


@dataclass(frozen=True)
class _ShiftTable:
    """Per cell, the run shift ``s`` that moves the cell's mean by a gap ``x``: a piecewise-linear map.

    ``G_c(s) = mean(clip(y + s)) - m_c`` over the cell's runs is non-decreasing and piecewise
    linear with kinks at ``floor - y`` and ``ceiling - y``; its inverse at ``x`` is read off
    the kinks by interpolation (all cells in one call: cell ``c``'s kinks are offset by
    ``c * offset``). ``first``/``last`` are the smallest and largest reachable gaps; beyond
    an unbounded end the map continues with slope 1.
    """

    x: np.ndarray       # G values of all cells' kinks, cell c's offset by c * offset
    s: np.ndarray       # the kinks (run shifts)
    first: np.ndarray   # (cells,) G at the first kink: floor - m_c (or where slope 1 begins)
    last: np.ndarray    # (cells,) G at the last kink: ceiling - m_c (or where slope 1 begins)
    offset: float
    has_floor: bool
    has_ceiling: bool
    s_first: np.ndarray | None = None   # (cells,) the first and last kink of each cell (run shifts)
    s_last: np.ndarray | None = None
    s_offset: float = 0.0               # the kinks, cell c's offset by c * s_offset: one increasing array
    s_key: np.ndarray | None = None
    x_plain: np.ndarray | None = None   # G at the kinks, not offset

    def shift(self, cell: np.ndarray, gap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The run shift for each (cell, gap), and the gap the cell's mean really moves by."""
        first, last = self.first[cell], self.last[cell]
        s = self._piecewise(gap, first, last, cell * self.offset, self.x, self.s)
        realized = np.minimum(gap, last) if self.has_ceiling else gap
        realized = np.maximum(realized, first) if self.has_floor else realized
        return s, realized

    def moved(self, cell: np.ndarray, s: np.ndarray) -> np.ndarray:
        """``G_c(s)``: how far a run shift ``s`` moves cell ``c``'s mean (the inverse of :meth:`shift`)."""
        return self._piecewise(s, self.s_first[cell], self.s_last[cell], cell * self.s_offset, self.s_key,
                               self.x_plain)

    def _piecewise(self, v, lo, hi, offset, xs, ys) -> np.ndarray:
        """The cell's piecewise-linear map (knots ``xs`` -> ``ys``, each cell's knots shifted by its
        ``offset``) at ``v``, extended with slope 1 beyond the ends that no bound stops."""
        out = np.interp(np.minimum(np.maximum(v, lo), hi) + offset, xs, ys)
        if not self.has_floor:
            out = out + np.minimum(v - lo, 0.0)
        if not self.has_ceiling:
            out = out + np.maximum(v - hi, 0.0)
        return out

    def limits(self, cell: np.ndarray, w: float) -> tuple[np.ndarray, np.ndarray]:
        """The smallest and largest gaps a cell's mixture (its runs with probability ``w``) can reach."""
        whole = self.first.size - 1
        return (w * self.first[cell] + (1 - w) * self.first[whole],
                w * self.last[cell] + (1 - w) * self.last[whole])

    def mixed(self, cell: np.ndarray, gap: np.ndarray, w: float) -> tuple[np.ndarray, np.ndarray]:
        """The run shift for each (cell, gap) when a run comes from the cell with probability ``w``, else
        from the whole log (the last cell), and the gap the mixture's mean really moves by.

        The mixture moves by ``w G_c(s) + (1 - w) G_whole(s)``, non-decreasing in ``s``; the shift that
        reaches a gap is found by bisection (the smallest ``s``, so non-decreasing in the gap).
        """
        whole = self.first.size - 1
        if w >= 1.0:
            return self.shift(cell, gap)
        if w <= 0.0:
            return self.shift(np.full_like(cell, whole), gap)
        first, last = self.limits(cell, w)
        realized = np.minimum(gap, last) if self.has_ceiling else gap
        realized = np.maximum(realized, first) if self.has_floor else realized
        flat_gap = gap.size > 1 and bool(np.all(gap == gap.flat[0]))
        if flat_gap:    # one gap for all: one shift per cell
            cells, back = np.unique(cell, return_inverse=True)
            lo_c, hi_c = self.limits(cells, w)
            target = np.full(cells.shape, float(gap.flat[0]))
            target = np.minimum(target, hi_c) if self.has_ceiling else target
            target = np.maximum(target, lo_c) if self.has_floor else target
        else:
            cells, target = cell.ravel(), realized.ravel()
        span = float(np.abs(self.s).max()) + float(np.abs(target).max()) + 1.0
        lo, hi = np.full(target.shape, -2 * span), np.full(target.shape, 2 * span)
        whole_cells = np.full_like(cells, whole)
        for _ in range(64):
            mid = 0.5 * (lo + hi)
            up = w * self.moved(cells, mid) + (1 - w) * self.moved(whole_cells, mid) >= target
            hi = np.where(up, mid, hi)
            lo = np.where(up, lo, mid)
        s = hi[np.ravel(back)].reshape(cell.shape) if flat_gap else hi.reshape(cell.shape)
        return s, realized


def _pool(y: np.ndarray, means: np.ndarray, sizes: np.ndarray, sigma: float, floor, ceiling,
          integer: bool) -> dict:
    """The simulation cells of a noise log (the NoiseModel fields ``mix``, ``sigma_simulated``, ``_values``,
    ``_starts``, ``_sizes``, ``_shifts``); see the module notes.

    Unbounded and not whole numbers: one cell of pooled centered residuals whose mean square is
    ``sigma^2``. Bounded or whole numbers (kept on their lattice): the log's cells as observed plus,
    last, the whole log as one cell; a simulated item has one of the log's cells, and each of its
    runs comes from it with probability ``mix``, else from the whole log; ``mix`` makes the
    expected variance of a run around its item's mean ``sigma^2`` (:func:`_mix_share`).
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    mean_rep = np.repeat(means, sizes)
    resid = y - mean_rep
    bounded = floor is not None or ceiling is not None
    if not bounded and not integer:
        ms = float(np.mean(resid ** 2))
        values = resid * (sigma / math.sqrt(ms)) if ms > 0 else resid
        return dict(mix=0.0, sigma_simulated=float(sigma), _values=values, _starts=np.zeros(1, dtype=np.int64),
                    _sizes=np.array([y.size], dtype=np.int64), _shifts=None)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    v_cells = float(np.mean(np.add.reduceat(resid ** 2, starts) / sizes))
    v_all = float(np.var(y))
    grand = float(np.mean(y))
    b_cells = float(np.mean((means - grand) ** 2))
    # do the cells' means differ by more than their noise? (one-way ANOVA F test)
    df_between, df_within = sizes.size - 1, int(y.size - sizes.size)
    spread_p, differ = None, 1.0
    if df_between > 0 and df_within > 0 and sigma > 0:
        from scipy.stats import f as f_dist

        ss_between = float(np.sum(sizes * (means - grand) ** 2))
        spread_p = float(f_dist.sf(ss_between / df_between / sigma ** 2, df_between, df_within))
        differ = differ_weight(sigma ** 2 * df_within, ss_between, df_within, df_between)
    y, means, sizes = _joined_cells(y, means, sizes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    v_cells = float(np.mean(np.add.reduceat((y - np.repeat(means, sizes)) ** 2, starts) / sizes))
    b_cells = float(np.mean((means - grand) ** 2))
    mix, var_sim = _mix_share(v_cells, v_all, b_cells, sigma ** 2)
    # a share `differ` of simulated items follows the model in which items differ, the rest draw from the whole log
    var_sim = differ * var_sim + (1 - differ) * v_all
    pool = np.concatenate([y, y])
    all_sizes = np.concatenate([sizes, [y.size]]).astype(np.int64)
    all_starts = np.concatenate([[0], np.cumsum(all_sizes)[:-1]]).astype(np.int64)
    return dict(mix=float(mix), sigma_simulated=math.sqrt(max(0.0, var_sim)), spread_p=spread_p, differ=differ,
                _values=pool, _starts=all_starts,
                _sizes=all_sizes, _shifts=_shift_table(pool, all_sizes, floor, ceiling) if bounded else None)


#: Runs a simulation cell holds at least: smaller cells of a noise log are joined with their neighbours in the
#: order of their means (see :func:`_joined_cells`).
POOL_MIN_RUNS = 8


def _joined_cells(y: np.ndarray, means: np.ndarray, sizes: np.ndarray):
    """The noise log's cells as simulation cells: in the order of their means, neighbours joined until each
    holds :data:`POOL_MIN_RUNS` runs or more (a last short group joins the one before). Returns ``(y, means,
    sizes)`` of the joined cells; a log whose cells all hold enough runs comes back as it is.

    Two runs say little about how an item's runs spread: resampled as they are, items of a cell whose two
    runs happen to lie far apart spread far more than their level would make them, and the simulated gaps
    get heavier tails than real ones (on counts whose items differ in rate, a plan on cells of 2 runs
    promised 0.80 where 0.77 was delivered). Cells of like means, joined, spread as items of that level do.

    >>> y = np.array([0., 1., 5., 6., 2., 2., 9., 9.])
    >>> _joined_cells(y, np.array([0.5, 5.5, 2.0, 9.0]), np.array([2, 2, 2, 2]))[2].tolist()
    [8]
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.size == 0 or int(sizes.min()) >= POOL_MIN_RUNS:
        return y, means, sizes
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    order = np.argsort(means, kind="stable")
    groups, current, held = [], [], 0
    for c in order.tolist():
        current.append(c)
        held += int(sizes[c])
        if held >= POOL_MIN_RUNS:
            groups.append(current)
            current, held = [], 0
    if current:
        if groups:
            groups[-1].extend(current)
        else:
            groups.append(current)
    parts = [np.concatenate([y[starts[c]:starts[c] + sizes[c]] for c in g]) for g in groups]
    new_sizes = np.array([p.size for p in parts], dtype=np.int64)
    return np.concatenate(parts), np.array([float(p.mean()) for p in parts]), new_sizes


def differ_weight(ss_within: float, ss_between: float, df_within: int, df_between: int) -> float:
    """The weight of the evidence that a noise log's items differ in level: a posterior probability.

    Two models of the cells' runs: items alike (one variance ``s^2``), and items whose true means spread
    with a variance of their own (a one-way random-effects model: the between-cell mean square estimates
    ``theta = s^2 + m tau^2 >= s^2``). Their restricted likelihoods, maximized, differ by
    ``2 L = (N - 1) log(S0) - df_w log(MSW) - df_b log(theta)`` with ``S0 = (SSW + SSB) / (N - 1)``,
    ``MSW = SSW / df_w``, ``theta = max(SSB / df_b, MSW)``; the model that differs has one parameter more,
    whose BIC price is ``log(cells)``. With even prior odds the weight is ``B / (1 + B)``,
    ``B = exp(L - log(cells) / 2)``. A test's false alarm (p just under 0.05) gives a weight near 0.1
    to 0.3 on a log of hundreds of cells, not the whole switch a p <= 0.05 rule makes; a clear spread
    gives a weight near 1.

    >>> round(differ_weight(100.0, 9.0, 100, 9), 3)    # MSB = MSW: no evidence of a spread
    0.24
    >>> differ_weight(100.0, 90.0, 100, 9) > 0.999      # MSB ten times MSW
    True
    """
    cells = df_between + 1
    if df_within <= 0 or df_between <= 0 or ss_within <= 0:
        return 1.0 if ss_between > 0 else 0.0
    n1 = df_within + df_between
    msw = ss_within / df_within
    theta = max(ss_between / df_between, msw)
    s0 = (ss_within + ss_between) / n1
    two_l = n1 * math.log(s0) - df_within * math.log(msw) - df_between * math.log(theta)
    log_b = 0.5 * max(two_l, 0.0) - 0.5 * math.log(cells)
    return float(1.0 / (1.0 + math.exp(-log_b))) if log_b > -700 else 0.0


def _mix_share(v_cells: float, v_all: float, b_cells: float, target: float) -> tuple[float, float]:
    """The share ``w`` of a simulated item's runs drawn from its own cell, and the variance it gives.

    A simulated item has a cell ``c`` of the noise log (drawn uniformly); each of its runs comes
    from ``c`` with probability ``w``, else from the whole log. Its runs then have mean
    ``w m_c + (1 - w) M`` and, averaged over cells, variance
    ``f(w) = w v + (1 - w) V + w (1 - w) B`` (``v``: the cells' own ddof=0 variance, averaged;
    ``V``: the whole log's; ``B``: the mean squared distance of the cell means from the log's
    mean ``M``); ``w`` solves ``f(w) = sigma^2``. With cells of equal size ``B = V - v`` and
    ``w^2 = (V - sigma^2) / B``: the simulated items' means spread as ``w^2 B``, the spread of the
    cells' true means (``B`` less the noise of a cell's mean, ``sigma^2 / m``), not as the noisy
    cell means do. Where even the whole log spreads less than sigma, ``w = 0``.

    >>> _mix_share(0.5, 1.0, 0.5, 0.75)    # f(w) = 1 - 0.5 w^2 = 0.75
    (0.7071067811865476, 0.75)
    >>> _mix_share(0.5, 1.0, 0.5, 1.5)     # the log spreads less than sigma: all from the log
    (0.0, 1.0)
    """
    f = lambda w: w * v_cells + (1 - w) * v_all + w * (1 - w) * b_cells  # noqa: E731
    if v_all <= target:
        return 0.0, v_all
    if f(1.0) >= target:
        return 1.0, f(1.0)
    # f(0) - sigma^2 = V - sigma^2 > 0 >= f(1) - sigma^2: the one root in (0, 1] of
    # -B w^2 + (v - V + B) w + (V - sigma^2), a concave quadratic (linear when B = 0)
    lin, const = v_cells - v_all + b_cells, v_all - target
    if b_cells > 0:
        w = (lin + math.sqrt(lin * lin + 4 * b_cells * const)) / (2 * b_cells)
    else:
        w = const / (v_all - v_cells)
    w = min(1.0, max(0.0, w))
    return float(w), float(f(w))


def _shift_table(pool: np.ndarray, sizes: np.ndarray, floor, ceiling) -> _ShiftTable:
    """Per simulation cell, the map from a gap of the cell's mean to the shift of every run."""
    xs, ss, first, last = [], [], [], []
    start = 0
    for n in sizes:
        p = np.sort(pool[start:start + n])
        start += n
        cs = np.concatenate([[0.0], np.cumsum(p)])
        m = cs[-1] / n
        kinks = [np.zeros(1)]
        if floor is not None:
            kinks.append(floor - p)
        if ceiling is not None:
            kinks.append(ceiling - p)
        b = np.unique(np.concatenate(kinks))
        i_lo = np.searchsorted(p, floor - b, "right") if floor is not None else np.zeros(b.size, dtype=np.int64)
        i_hi = np.searchsorted(p, ceiling - b, "left") if ceiling is not None else np.full(b.size, n)
        total = cs[i_hi] - cs[i_lo] + b * (i_hi - i_lo)
        if floor is not None:
            total = total + floor * i_lo
        if ceiling is not None:
            total = total + ceiling * (n - i_hi)
        g = total / n - m
        g[b == 0.0] = 0.0
        g = np.maximum.accumulate(g)
        keep = np.concatenate([[True], np.diff(g) > 0])   # first kink of a flat stretch: the smallest shift
        xs.append(g[keep])
        ss.append(b[keep])
        first.append(g[keep][0])
        last.append(g[keep][-1])
    first_a, last_a = np.array(first), np.array(last)
    offset = float(last_a.max() - first_a.min()) + 1.0
    x = np.concatenate([xc + c * offset for c, xc in enumerate(xs)])
    s_first, s_last = np.array([sc[0] for sc in ss]), np.array([sc[-1] for sc in ss])
    s_offset = float(s_last.max() - s_first.min()) + 1.0
    return _ShiftTable(x=x, s=np.concatenate(ss), first=first_a, last=last_a, offset=offset,
                       has_floor=floor is not None, has_ceiling=ceiling is not None,
                       s_first=s_first, s_last=s_last, s_offset=s_offset,
                       s_key=np.concatenate([sc + c * s_offset for c, sc in enumerate(ss)]),
                       x_plain=np.concatenate(xs))


def _frame_and_metric(source, metric):
    """A polars frame with canonical columns, the metric name, the source name and problems."""
    problems: tuple[Problem, ...] = ()
    name = "the log"
    from probestats.io.read import Log

    if isinstance(source, Log):
        frame = _columns_needed(source, metric)   # only the columns the model reads
        name = source.source
    elif hasattr(source, "frame"):
        frame = source.frame
        metric = metric or getattr(source, "metric", None)
        log = getattr(source, "log", source)
        name = getattr(log, "source", name)
    else:
        from probestats.io.read import read_log

        log = read_log(source, metric=metric)
        frame, name, problems = _columns_needed(log, metric), log.source, tuple(log.problems)
    if not metric:
        raise OptionError(f"name the metric column ({either('metric=COL', '--metric COL')})")
    from probestats.io.read import STRUCTURE, refuse_internal

    if metric in STRUCTURE:  # a column that numbers the runs (seed, time) is no metric
        refuse_internal("metric", metric)
    if not isinstance(frame, pl.DataFrame):
        frame = pl.DataFrame(frame)
    return frame, metric, name, problems


def _columns_needed(log, metric: str | None) -> pl.DataFrame:
    """The item, value and metric columns of a log, read in a streaming pass (a noise or pilot log's
    replies and prompts stay on disk); the whole log when one of them is missing (its message lists
    the headers)."""
    from probestats.io.read import collect

    names = log.lazy.collect_schema().names()
    if not metric or "item" not in names or metric not in names or metric in ("item", "variant"):
        return log.frame
    return collect(log.lazy.select([c for c in ("item", "variant", metric) if c in names]), log.source, log._path)


def noise_model(log, metric: str | None = None, *, scale=None) -> NoiseModel:
    """Measure the run-to-run noise of a metric from a same-versus-same or pilot log.

    sigma per run is the pooled within-cell (item x value) standard deviation,
    ``sqrt(sum((n_c - 1) s_c^2) / sum(n_c - 1))``; cells with a single run carry no
    information about noise and are left out. The model also keeps the runs, so that
    simulations resample them and keep the metric's shape, floor and ceiling included.

    Parameters
    ----------
    log : Log, Checked, polars DataFrame, path or list of dict
        The log; anything with a ``.frame`` attribute, or anything
        :func:`probestats.io.read_log` reads. Columns ``item`` and the metric are needed;
        without ``variant`` each item is one cell.
    metric : str
        The metric column (taken from a ``Checked`` log when not given).
    scale : (low, high) or "LOW:HIGH", optional
        The metric's declared scale: simulated runs never leave it. A side left empty
        (``"0:"``) or None has no bound; ``":"`` declares the metric unbounded. Without
        it, an observed end of the log is a floor (ceiling) when at least
        :data:`BOUND_SHARE` of the runs, and :data:`BOUND_MIN_RUNS` of them, sit on it, or when
        the metric takes two values.

    Examples
    --------
    >>> rows = [{"item": i, "variant": v, "steps": s}
    ...         for i in (1, 2) for v in ("formal", "formal again") for s in (3, 4, 5)]
    >>> m = noise_model(rows, metric="steps")
    >>> m.sigma_run, m.df, m.integer, m.minimum, m.maximum
    (1.0, 8, True, 3.0, 5.0)
    >>> m.floor, m.ceiling                  # a third of the runs sit on each end
    (3.0, 5.0)
    >>> noise_model(rows, metric="steps", scale="1:10").ceiling
    10.0
    """
    frame, metric, name, problems = _frame_and_metric(log, metric)
    problems = list(problems)
    for col in ("item", metric):
        if col not in frame.columns:
            seen = ", ".join(c for c in frame.columns if not c.startswith("_"))
            what = f"the metric '{metric}'" if col == metric else "'item'"
            raise ColumnError(f"no column for {what} in the noise log; headers seen: {seen} "
                              f"(use {either(f'columns={{{col!r}: HEADER}}', f'--column {col}=HEADER')})")
    keys = ["item", "variant"] if "variant" in frame.columns else ["item"]
    raw = frame[metric]
    if raw.dtype == pl.Boolean:
        values = raw.cast(pl.Float64)
    elif raw.dtype == pl.String:
        values = raw.str.strip_chars().cast(pl.Float64, strict=False)
    elif raw.dtype.is_numeric() or raw.dtype == pl.Null:
        values = raw.cast(pl.Float64)
    else:
        raise ColumnError(f"the metric '{metric}' holds {raw.dtype} values, not numbers; choose a numeric metric")
    values = values.fill_nan(None)
    n_inf = int(values.is_infinite().sum())
    if n_inf:
        one = n_inf == 1
        raise ColumnError(f"{count_of(n_inf, 'value')} of '{metric}' in the noise log {'is' if one else 'are'} "
                          f"infinite; write {'it as a finite number' if one else 'them as finite numbers'} or clear "
                          f"the {'cell' if one else 'cells'}")
    if values.abs().max() is not None and values.abs().max() > _LIMIT:
        raise ColumnError(f"values of '{metric}' in the noise log reach {values.abs().max():g}, too large to "
                          "simulate; rescale the metric")
    df = frame.select([pl.col(k).cast(pl.String) for k in keys]).with_columns(values.alias("_y"))
    bad = raw.is_not_null() & values.is_null()
    if raw.dtype == pl.String:
        bad = bad & (raw.str.strip_chars() != "")
    n_bad = int(bad.sum())
    if n_bad:
        problems.append(Problem("warning", "non_numeric",
                                f"{count_of(n_bad, 'value')} of '{metric}' in the noise log "
                                + ("is not a number and was left out; fix it or clear the cell" if n_bad == 1 else
                                   "are not numbers and were left out; fix them or clear the cells"), (), metric))
    df = df.filter(pl.col("_y").is_not_null())
    if frame.height == 0:
        raise OptionError("the noise log has no data rows; add the runs of a same-versus-same probe below its header")
    if df.height == 0:
        raise OptionError(f"the noise log has no numeric '{metric}' values; check the metric column")
    cells = (df.with_columns(pl.len().over(keys).alias("_n"))
             .filter(pl.col("_n") >= 2)
             .sort(keys, maintain_order=True))
    n_single = df.height - cells.height
    if cells.height == 0:
        raise OptionError("every cell (item x value) of the noise log has a single run, so run-to-run noise "
                          "cannot be measured; run each item and value at least twice")
    if n_single:
        problems.append(Problem("warning", "single_run_cells",
                                f"{count_of(n_single, 'cell')} of the noise log "
                                + ("has one run and says nothing about run-to-run noise; it was left out"
                                   if n_single == 1 else
                                   "have one run and say nothing about run-to-run noise; they were left out")))
    stats = (cells.group_by(keys, maintain_order=True)
             .agg(pl.len().alias("n"), pl.col("_y").mean().alias("mean"), pl.col("_y").var(ddof=1).alias("var")))
    n = stats["n"].to_numpy().astype(np.int64)
    var = stats["var"].to_numpy()
    dof = int((n - 1).sum())
    sigma = float(math.sqrt(max(0.0, float(((n - 1) * var).sum()) / dof)))
    y = cells["_y"].to_numpy().astype(np.float64)
    integer = bool(np.all(y == np.round(y)))
    sizes = n
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    means = stats["mean"].to_numpy().astype(np.float64)
    floor, ceiling, scale_source = _bounds(y, integer, scale, metric)
    pool = _pool(y, means, sizes, sigma, floor, ceiling, integer)
    if sigma > 0 and pool["sigma_simulated"] < 0.99 * sigma:
        problems.append(Problem("warning", "noise_spread_short",
                                f"the noise log as a whole spreads less ({pool['sigma_simulated']:.4g}) than its "
                                f"cells do (pooled sigma {sigma:.4g}), a sampling accident of a small log: the "
                                "simulated runs, kept to the log's observed values, cannot reach sigma, so power is a little "
                                "high and the MDG a little low; use a larger noise log"))
    if sigma == 0.0:
        problems.append(Problem("warning", "deterministic",
                                f"every cell of the noise log has zero spread in '{metric}': runs add "
                                "nothing, and only the items and the heterogeneity of true gaps limit power"))
    return NoiseModel(
        metric=metric, sigma_run=sigma, df=dof, n_cells=int(stats.height),
        n_items=int(stats["item"].n_unique()), n_runs=int(y.size), integer=integer,
        minimum=float(y.min()), maximum=float(y.max()), source=name, problems=tuple(problems),
        floor=floor, ceiling=ceiling, scale_source=scale_source, _raw=y, _means=means, _cell_sizes=sizes, **pool,
    )


def _as_noise(noise, metric=None, scale=None) -> NoiseModel:
    if isinstance(noise, NoiseModel):
        return noise if scale is None else noise.with_scale(scale)
    if isinstance(noise, (int, float)) and not isinstance(noise, bool):
        if scale is not None:
            raise OptionError("a declared scale needs a noise log whose runs can be kept within it, "
                              "not a stated sigma")
        return NoiseModel.stated(float(noise), metric or "metric")
    if noise is None:
        raise OptionError(f"give the noise: a noise log ({opt('noise', 'LOG')}), a NoiseModel, or sigma per run as a number")
    return noise_model(noise, metric, scale=scale)


# ---------------------------------------------------------------------------
# Heterogeneity
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Heterogeneity:
    """Spread of true gaps between items, estimated from a pilot of the real comparison.

    Attributes
    ----------
    tau : float
        Standard deviation of true item gaps (0 when the gaps spread no more than noise).
    var_gaps : float
        Sample variance (ddof=1) of the pilot's item gaps.
    noise_var : float
        Mean over items of ``sigma^2 (1/k_a + 1/k_b)``: what run noise alone contributes.
    n_items : int
    average_gap : float
        The pilot's average gap (``a`` minus ``b``).
    a, b : str
        The compared values.
    method : str
    """

    tau: float
    var_gaps: float
    noise_var: float
    n_items: int
    average_gap: float
    a: str
    b: str
    method: str = TAU_METHOD

    def to_dict(self) -> dict:
        return {"tau": float(self.tau), "var_gaps": float(self.var_gaps), "noise_var": float(self.noise_var),
                "n_items": int(self.n_items), "average_gap": float(self.average_gap),
                "a": self.a, "b": self.b, "method": self.method}


def heterogeneity_from_pilot(pilot, noise, metric: str | None = None, *, a: str | None = None,
                             b: str | None = None) -> Heterogeneity:
    """Estimate tau, the spread of true item gaps, from a pilot of the real comparison.

    Method of moments: ``tau^2 = max(0, var(item gaps) - mean(sigma^2 (1/k_a + 1/k_b)))``,
    with sigma from the noise model and ``k_a``, ``k_b`` each item's runs in the pilot.
    With few pilot items the estimate is rough; it is an estimate, not a bound.

    Examples
    --------
    >>> rows = [{"item": i, "variant": v, "steps": s}
    ...         for i, g in enumerate([0, 2, 0, 2]) for v in ("a", "b")
    ...         for s in ([3 + g, 3 + g] if v == "a" else [3, 3])]
    >>> h = heterogeneity_from_pilot(rows, NoiseModel.stated(0.0), "steps")
    >>> round(h.tau ** 2, 12), h.average_gap   # var of gaps 0, 2, 0, 2 = 4/3; no noise
    (1.333333333333, 1.0)
    """
    noise = _as_noise(noise, metric)
    frame, metric, _name, _problems = _frame_and_metric(pilot, metric or noise.metric)
    for col in ("item", "variant", metric):
        if col not in frame.columns:
            seen = ", ".join(c for c in frame.columns if not c.startswith("_"))
            raise ColumnError(f"no column '{col}' in the pilot log; headers seen: {seen} "
                              f"(use {either(f'columns={{{col!r}: HEADER}}', f'--column {col}=HEADER')})")
    df = frame.select(pl.col("item").cast(pl.String), pl.col("variant").cast(pl.String).str.strip_chars(),
                      pl.col(metric).cast(pl.Float64, strict=False).fill_nan(None).alias("_y")
                      ).filter(pl.col("_y").is_not_null())
    big = df.filter(~pl.col("_y").abs().le(_LIMIT)).height
    if big:
        one = big == 1
        write = "it as a finite number" if one else "them as finite numbers"
        raise ColumnError(f"{count_of(big, 'value')} of '{metric}' in the pilot log {'is' if one else 'are'} "
                          f"infinite or too large to use; write {write} of ordinary size (or rescale the metric)")
    values = df["variant"].unique(maintain_order=True).to_list()
    from probestats.checks.schema import default_pair

    a, b = default_pair(values, a, b)
    for name, v in (("a", a), ("b", b)):
        if v is None or v not in values:
            raise OptionError(f"the pilot log needs two values to compare; value {name}={v!r} is not among "
                              f"{values} (name them with a= and b=)")
    if a == b:
        raise OptionError(f"the pilot compares a value with itself ('{a}'); name two different values with a= and b=")
    cell = (df.filter(pl.col("variant").is_in([a, b]))
            .group_by("item", "variant", maintain_order=True).agg(pl.len().alias("k"), pl.col("_y").mean().alias("m")))
    wide = (cell.filter(pl.col("variant") == a).select("item", pl.col("m").alias("ma"), pl.col("k").alias("ka"))
            .join(cell.filter(pl.col("variant") == b).select("item", pl.col("m").alias("mb"), pl.col("k").alias("kb")),
                  on="item", how="inner"))
    if wide.height < 2:
        raise OptionError("the pilot log needs at least two items run under both values to estimate heterogeneity")
    gaps = (wide["ma"] - wide["mb"]).to_numpy()
    inv = (1.0 / wide["ka"].to_numpy() + 1.0 / wide["kb"].to_numpy())
    var_gaps = float(np.var(gaps, ddof=1))
    noise_var = float(noise.sigma_run ** 2 * inv.mean())
    tau = math.sqrt(max(0.0, var_gaps - noise_var))
    return Heterogeneity(tau=tau, var_gaps=var_gaps, noise_var=noise_var, n_items=int(wide.height),
                         average_gap=float(gaps.mean()), a=str(a), b=str(b))


# ---------------------------------------------------------------------------
# Simulation
# ---------------------------------------------------------------------------


def _runs_array(runs, items: int, name: str) -> np.ndarray:
    arr = np.atleast_1d(np.asarray(runs))
    if arr.size == 1:
        arr = np.full(items, int(arr[0]))
    if arr.size != items or not np.all(arr == np.round(arr)) or np.any(arr < 1):
        raise OptionError(f"{name} must be a whole number of 1 or more (or one per item)")
    return arr.astype(np.int64)


def _poisson_quantile(v: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """The Poisson(``mu``) quantile at ``v`` (the smallest k with CDF(k) >= v), elementwise.

    Its distribution function summed term by term (``pmf(k) = pmf(k - 1) mu / k``) for a mean up to 200, many
    times faster than scipy's for the arrays a power search asks for; scipy's beyond. Non-decreasing in ``mu``
    at a fixed ``v``, as the MDG search needs.

    >>> from scipy.stats import poisson
    >>> v, mu = np.array([0.1, 0.5, 0.99, 0.3]), np.array([0.5, 4.0, 30.0, 250.0])
    >>> bool(np.all(_poisson_quantile(v, mu) == poisson.ppf(v, mu)))
    True
    """
    from scipy.stats import poisson

    v, mu = np.asarray(v, dtype=float), np.asarray(mu, dtype=float)
    out = np.zeros(mu.shape)
    big = mu > 200
    if big.any():
        out[big] = poisson.ppf(v[big], mu[big])
    small = np.flatnonzero(~big)
    if small.size:
        m, q = mu[small], v[small]
        pmf = np.exp(-m)
        cdf = pmf.copy()
        k = np.zeros(small.size)
        todo = np.flatnonzero(cdf < q)
        step = 0
        while todo.size:
            step += 1
            pmf[todo] *= m[todo] / step
            cdf[todo] += pmf[todo]
            k[todo] = step
            todo = todo[cdf[todo] < q[todo]]
            if step > 2000:   # rounding left a CDF a hair below q: scipy decides the rest
                k[todo] = poisson.ppf(q[todo], m[todo])
                break
        out[small] = k
    return out


@dataclass(frozen=True)
class _Draws:
    """Common random numbers for one design: every gap is simulated from the same draws.

    For a bounded metric (``shifts`` set) ``base`` holds value b's part only, and value
    a's runs are kept (``runs_a``) to be moved and clipped at each gap asked.
    """

    base: np.ndarray     # (sims, items): noise part of each gap, in units of 1/scale
    u: np.ndarray        # (sims, items): uniforms that spread a whole-number shift over runs
    z: np.ndarray        # (sims, items): standard normals for heterogeneity
    ka: np.ndarray       # (items,) runs of value a
    scale: np.ndarray    # (items,) lattice denominator: gap = numerator / scale
    integer: bool
    # bounded metric only
    runs_a: object = None            # (sims, items, k_a) array, or one (sims, k_a[i]) array per item;
    #                                  whole numbers are stored as y + w, w uniform in [0, 1)
    cell: np.ndarray | None = None   # (sims, items) the noise-log cell of each simulated item
    shifts: _ShiftTable | None = None
    mix: float = 1.0                 # share of an item's runs drawn from its cell (else the whole log)
    floor: float = -math.inf
    ceiling: float = math.inf
    # scale shift only: value a's part (mean of its residuals, or the sum of its whole-number runs),
    # the level of each simulated item's cell, the log's mean, and uniforms for the rate draws
    rate: tuple | None = None
    #: how a rate moves: "scale" (every item's rate times 1 + gap / mean) or "add" (a count's rate plus the gap)
    rate_mode: str = "scale"

    @property
    def lattice(self) -> int | None:
        """A whole number ``L`` with every simulated gap times ``L`` whole (whole-number runs), else None."""
        return int(np.lcm.reduce(self.scale)) if self.integer else None

    def gaps(self, delta: float, tau: float = 0.0) -> np.ndarray:
        true = delta + tau * self.z if tau else np.full_like(self.z, delta)
        if self.shifts is not None:
            return self._bounded_gaps(true)
        if self.rate is not None:
            return self._scaled_gaps(true)
        if self.integer:
            # whole steps spread evenly over the k_a runs: floor(k_a * gap + u) / k_a, mean = gap exactly
            steps = np.floor(self.ka * true + self.u) * (self.scale // self.ka)
            return (self.base + steps) / self.scale
        return self.base + true

    def _scaled_gaps(self, true: np.ndarray) -> np.ndarray:
        # value a's mean scaled by r = 1 + gap / mean: continuous runs (mean + residual) * r; whole
        # numbers as a rate: thinned (binomial, r < 1) or joined by Poisson counts at the cell's
        # rate (r > 1), so a count's variance grows with its mean as a Poisson count's does. Each
        # draw is an inverse CDF at a fixed uniform, so every gap is non-decreasing in the gap.
        from scipy.stats import binom, poisson

        a_part, level, grand, v = self.rate
        ka = self.ka[None, :]
        if self.rate_mode == "add":
            # a count's rate plus the gap: extra events at rate gap per run, or each event kept with
            # probability (level + gap) / level, so the item's rate falls by the gap and stops at 0
            down = true < 0
            moved = np.zeros(true.shape)
            if down.any():
                lv = level[down] if level.shape == true.shape else np.broadcast_to(level, true.shape)[down]
                r = np.where(lv > 0, 1.0 + true[down] / np.where(lv > 0, lv, 1.0), 1.0)
                part = a_part[down]
                moved[down] = binom.ppf(v[down], part, np.maximum(r, 0.0)) - part
            up = true > 0
            if up.any():
                moved[up] = _poisson_quantile(v[up], np.broadcast_to(ka, true.shape)[up] * true[up])
            return (self.base + moved * (self.scale // self.ka)) / self.scale
        r = np.maximum(1.0 + true / grand, 0.0)
        if not self.integer:
            return self.base + true * a_part / grand     # a_part: value a's mean level
        thin = binom.ppf(v, a_part, np.minimum(r, 1.0))
        mu = ka * np.maximum(r - 1.0, 0.0) * level
        extra = np.where(mu > 0, poisson.ppf(v, np.where(mu > 0, mu, 1.0)), 0.0)
        moved = np.where(r < 1.0, thin, a_part + extra) - a_part
        return (self.base + moved * (self.scale // self.ka)) / self.scale

    def _bounded_gaps(self, true: np.ndarray) -> np.ndarray:
        # every run of value a moves by the cell's shift s and is clipped; a whole-number run
        # stored as y + w becomes floor(y + w + s): y + floor(s), or one step more with
        # probability s - floor(s). Each run, and so each gap, is non-decreasing in s and s in the gap.
        s, _ = self.shifts.mixed(self.cell, true, self.mix)
        sims, items = s.shape

        def moved(runs, shift):
            out = runs + shift[..., None]
            if self.integer:
                np.floor(out, out=out)
            np.clip(out, self.floor, self.ceiling, out=out)
            return out.sum(axis=-1)

        if isinstance(self.runs_a, np.ndarray):
            a = np.empty((sims, items))
            step = max(1, 4_000_000 // max(1, self.runs_a.shape[1] * self.runs_a.shape[2]))
            for lo in range(0, sims, step):   # bounded temporaries
                a[lo:lo + step] = moved(self.runs_a[lo:lo + step], s[lo:lo + step])
        else:
            a = np.column_stack([moved(runs, s[:, col]) for col, runs in enumerate(self.runs_a)])
        if self.integer:
            return (a * (self.scale // self.ka) + self.base) / self.scale
        return a / self.ka + self.base

    def realized(self, delta: float, tau: float = 0.0) -> float:
        """The average over simulated items of the gap their means really move by (``delta`` unbounded)."""
        if self.rate is not None and self.rate_mode == "add":   # a count's rate stops at 0
            true = delta + tau * self.z if tau else np.full_like(self.z, delta)
            return float(np.maximum(true, -self.rate[1]).mean())
        if self.shifts is None:
            return float(delta)
        true = delta + tau * self.z if tau else np.full_like(self.z, delta)
        return float(self.shifts.mixed(self.cell, true, self.mix)[1].mean())

    def saturation(self, sign: float, tau: float) -> float:
        """The gap beyond which no simulated gap changes (every item at the bound), else inf."""
        if self.rate is not None and sign < 0 and not tau:
            if self.rate_mode == "add":   # every item's rate at 0
                return float(np.max(self.rate[1]))
            return float(self.rate[2])    # a scale gap of -mean takes every run to 0
        if self.shifts is None or tau:
            return math.inf
        first, last = self.shifts.limits(self.cell, self.mix)
        if sign > 0 and self.shifts.has_ceiling:
            return float(last.max())
        if sign < 0 and self.shifts.has_floor:
            return float(-first.min())
        return math.inf


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

    >>> gap_model(NoiseModel.stated(1.0))
    'additive: a gap is added to every run of value a (normal runs)'
    >>> rows = [{"item": i, "n": y} for i in range(4) for y in (0, 1, 2, 2 + i)]
    >>> gap_model(noise_model(rows, metric="n")).startswith("additive: a count's rate")
    True
    """
    if shift == "scale":
        return f"scale: {SHIFT_TEXT['scale']}"
    bound = (f", stopping at the bounds {_fmt_scale(noise.floor, noise.ceiling)} (a gap is then the shift of each "
             "item's mean, and the average shift reached is reported)" if noise.bounded else "")
    if shift == "steps":
        return f"steps: {SHIFT_TEXT['steps']}{bound}"
    if noise.count:
        return ("additive: a count's rate rises by the gap in every run of value a (rate lambda_i + gap, the extra "
                "events drawn as Poisson counts) or falls by it (each event kept with probability "
                "(lambda_i + gap) / lambda_i, stopping at 0), lambda_i the simulated item's rate")
    if noise.bounded and noise.integer and noise.floor == 0 and noise.ceiling == 1:
        return ("additive: a 0/1 metric's rate moves by the gap and each run of value a is drawn at the new rate, "
                f"kept within {_fmt_scale(noise.floor, noise.ceiling)}")
    if noise.bounded and noise.integer:
        return ("additive: each item's mean of value a moves by the gap in whole steps spread evenly over its runs"
                + bound)
    if noise.bounded:
        return "additive: every run of value a is shifted and clipped to the bounds" + bound
    what = "normal runs" if noise._values is None else (
        "whole steps spread evenly over the item's runs" if noise.integer else "residuals shifted")
    return f"additive: a gap is added to every run of value a ({what})"


def _check_shift(shift: str, noise: NoiseModel) -> None:
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
        raise OptionError(f"a scale shift would cross the bounds {_fmt_scale(noise.floor, noise.ceiling)} of "
                          f"'{noise.metric}'; use {opt('shift', 'additive')} (or {opt('scale', '0:')} for a count)")


def _dither(rng: np.random.Generator, shape: tuple, *, stratified: bool) -> np.ndarray:
    """Uniforms in [0, 1) that spread a fractional shift over an item's runs (the last axis).

    A whole-number run ``y`` stored as ``y + w`` moves to ``floor(y + w + s)``: by ``floor(s)``, or one
    step more when ``w >= 1 - frac(s)``. Each ``w`` is uniform, so every run moves by ``s`` on average.
    For a 0/1 metric a gap is a change of rate, and its runs stay independent draws at the new rate:
    independent uniforms. On a scale of more levels the gap moves the item's level, and the whole
    steps are spread evenly over its runs, as for unbounded whole numbers: the uniforms are
    ``(j + u) / k`` for the runs in random order (``u`` one uniform per item), so the number of runs
    that step up is ``k frac(s)`` rounded up or down, and the shift adds almost no variance of its own.

    >>> w = _dither(np.random.default_rng(0), (2, 3, 4), stratified=True)
    >>> sorted(np.floor(w[0, 0] * 4).astype(int).tolist())
    [0, 1, 2, 3]
    """
    if not stratified or not shape[-1]:
        return rng.random(shape)
    order = np.argsort(rng.random(shape), axis=-1)
    return (order + rng.random(shape[:-1])[..., None]) / shape[-1]


def _draw(noise: NoiseModel, items: int, runs_a, runs_b, sims: int, seed, shift: str = "additive") -> _Draws:
    """Simulate the noise part of ``sims`` probes with ``items`` items (see the module notes)."""
    _check_shift(shift, noise)
    rng = np.random.default_rng(seed)
    ka = _runs_array(runs_a, items, "runs_a")
    kb = _runs_array(runs_b, items, "runs_b")
    z = rng.standard_normal((sims, items))
    u = rng.random((sims, items))
    if noise._values is None:
        sd = noise.sigma_run * np.sqrt(1.0 / ka + 1.0 / kb)
        base = rng.standard_normal((sims, items)) * sd
        return _Draws(base, u, z, ka, np.ones(items, dtype=np.int64), False)
    # a count's gap is a change of its rate (additive, scale); otherwise a shift, clipped at any bound
    scaled = shift == "scale" or (shift == "additive" and noise.count)
    bounded = noise._shifts is not None and not scaled
    a_part = np.empty((sims, items)) if scaled else None
    integer = noise.integer
    scale = np.lcm(ka, kb) if integer else np.ones(items, dtype=np.int64)
    # each simulated item has a cell of the log; each of its runs comes from that cell with probability
    # mix, else from the whole log (the last cell; the only one when the runs are pooled residuals)
    whole = noise._sizes.size - 1
    cell = rng.integers(0, whole, size=(sims, items)) if whole else np.zeros((sims, items), dtype=np.int64)
    if whole:   # the model in which items are alike (weight 1 - differ): every run from the whole log
        # (the uniforms are drawn whatever the weight, so that models of two logs share every later draw)
        cell = np.where(rng.random((sims, items)) < noise.differ, cell, whole)
    mix = float(noise.mix)

    def pick(lo: int, hi: int, c0: int, c1: int, k: int) -> np.ndarray:
        """Indices into the pool of k runs of items c0..c1 in simulated probes lo..hi."""
        shape = (hi - lo, c1 - c0, k)
        src = cell[lo:hi, c0:c1, None]
        if whole:   # drawn whatever the mix, so that models of two logs share every later draw
            src = np.where(rng.random(shape) < mix, src, whole)
        return noise._starts[src] + np.floor(rng.random(shape) * noise._sizes[src]).astype(np.int64)

    base = np.empty((sims, items), dtype=np.float64)
    same = bool(np.all(ka == ka[0]))
    binary = noise.floor == 0 and noise.ceiling == 1
    if bounded:
        runs = np.empty((sims, items, int(ka[0]))) if same else [np.empty((sims, int(k))) for k in ka]
    # blocks of items with the same runs per value, at most about 2,000,000 runs drawn at once
    edges = np.concatenate([[0], np.flatnonzero((np.diff(ka) != 0) | (np.diff(kb) != 0)) + 1, [items]])
    for c0, c1 in zip(edges[:-1].tolist(), edges[1:].tolist()):
        k_a, k_b = int(ka[c0]), int(kb[c0])
        width = max(1, 2_000_000 // (sims * max(k_a, k_b)))
        rows = sims if width > 1 else max(1, 2_000_000 // max(k_a, k_b))
        for b0 in range(c0, c1, width):
            b1 = min(c1, b0 + width)
            for lo in range(0, sims, rows):
                hi = min(sims, lo + rows)
                if bounded:
                    kept = noise._values[pick(lo, hi, b0, b1, k_a)]
                    if integer:   # y + w with w in [0, 1): floor(y + w + s) moves y by floor(s) or one step more
                        top = kept + 1.0
                        kept = np.minimum(kept + _dither(rng, kept.shape, stratified=not binary),
                                          np.nextafter(top, kept))
                    if same:
                        runs[lo:hi, b0:b1, :] = kept
                    else:
                        for j in range(b1 - b0):
                            runs[b0 + j][lo:hi] = kept[:, j, :]
                sums = [noise._values[pick(lo, hi, b0, b1, k)].sum(axis=2)
                        for k in ((k_b,) if bounded else (k_a, k_b))]
                sc = scale[b0:b1]
                if scaled:
                    a_part[lo:hi, b0:b1] = sums[0] if integer else sums[0] / k_a
                if bounded:
                    base[lo:hi, b0:b1] = -sums[0] * (sc // k_b) if integer else -sums[0] / k_b
                elif integer:
                    # numerator on the lattice 1/lcm(k_a, k_b): exact in floating point
                    base[lo:hi, b0:b1] = sums[0] * (sc // k_a) - sums[1] * (sc // k_b)
                else:
                    base[lo:hi, b0:b1] = sums[0] / k_a - sums[1] / k_b
    if scaled:
        grand = float(np.mean(noise._raw))
        if not integer and not noise.bounded:   # pooled residuals: the level is the log's mean plus them
            a_part = a_part + grand
        means = np.add.reduceat(noise._values, noise._starts) / noise._sizes
        # an item's level: the mean of its runs' mixture of its cell and the whole log
        level = np.maximum(mix * means[cell] + (1 - mix) * means[whole], 0.0) if integer else None
        v = np.clip(rng.random((sims, items)), 1e-12, 1 - 1e-12)
        return _Draws(base, u, z, ka, scale, integer, rate=(a_part, level, grand, v),
                      rate_mode="scale" if shift == "scale" else "add")
    if not bounded:
        return _Draws(base, u, z, ka, scale, integer)
    return _Draws(base, u, z, ka, scale, integer, runs_a=runs if same else tuple(runs), cell=cell,
                  shifts=noise._shifts, mix=mix,
                  floor=-math.inf if noise.floor is None else float(noise.floor),
                  ceiling=math.inf if noise.ceiling is None else float(noise.ceiling))


def _direction(alternative: str) -> float:
    check_alternative(alternative)
    return -1.0 if alternative == "less" else 1.0


class _Rejections:
    """Which simulated probes the sign-flip test rejects at a gap, reusing what is already known.

    Every item gap only grows with the gap (in the tested direction; for a bounded metric
    it stops growing once the item's runs reach the bound, since each run is clipped
    there, but it never falls), and then a probe's p-value can only fall: the one-sided p is the chance that a random subset of the gaps
    sums to 0 or less; the two-sided p, once the gaps sum to 0 or more, is twice that.
    So a probe that rejected at a smaller gap (its gaps then summing to 0 or more) still
    rejects, and one that did not reject at a larger gap (its gaps summing to 0 or more
    now) still does not; only the others are computed. This is exact, not an
    approximation, and makes a bisection cost little more than two full evaluations.
    """

    def __init__(self, draws: _Draws, tau: float, alpha: float, alternative: str, direction: float | None = None):
        self.draws, self.tau, self.alternative = draws, tau, alternative
        self.limit = alpha * (1 + 1e-12)
        # the direction the gap grows in: the tested one, or either one of a two-sided test
        self.sign = _direction(alternative) if direction is None else float(direction)
        self.saturation = draws.saturation(self.sign, tau)   # no gap changes beyond it
        sims = draws.base.shape[0]
        self.reject_from = np.full(sims, np.inf)    # smallest gap seen rejecting (sum >= 0 there)
        self.keep_until = np.full(sims, -np.inf)    # largest gap seen not rejecting
        self.computed = 0                           # p-values computed (for benchmarks)

    def rate(self, delta: float) -> float:
        gaps = self.draws.gaps(self.sign * delta, self.tau)
        if self.alternative == "two-sided":
            ordered = self.sign * gaps.sum(axis=1) >= 0
        else:
            ordered = np.ones(gaps.shape[0], dtype=bool)
        known_reject = self.reject_from <= delta
        known_keep = (self.keep_until >= delta) & ordered
        todo = np.flatnonzero(~(known_reject | known_keep))
        reject = known_reject.copy()
        if todo.size:
            new = decide_rejections(gaps[todo], self.limit, self.alternative, self.draws.lattice)
            self.computed += int(todo.size)
            reject[todo] = new
        hit = np.flatnonzero(reject & ordered)
        self.reject_from[hit] = np.minimum(self.reject_from[hit], delta)
        if todo.size:
            miss = todo[~new]
            self.keep_until[miss] = np.maximum(self.keep_until[miss], delta)
        return float(reject.mean())

def _reject_rate(draws: _Draws, delta: float, tau: float, alpha: float, alternative: str) -> float:
    return _Rejections(draws, tau, alpha, alternative).rate(delta)


def _sign_test_rate(draws: _Draws, delta: float, tau: float, alpha: float, alternative: str) -> float:
    gaps = draws.gaps(_direction(alternative) * delta, tau)
    pos = (gaps > 0).sum(axis=1)
    neg = (gaps < 0).sum(axis=1)
    pairs, inverse = np.unique(np.stack([pos, neg], axis=1), axis=0, return_inverse=True)
    pv = np.array([sign_test([1.0] * int(p_) + [-1.0] * int(n_), alternative=alternative).pvalue
                   if p_ + n_ else 1.0 for p_, n_ in pairs])
    return float(np.mean(pv[np.ravel(inverse)] <= alpha * (1 + 1e-12)))


def _approx_power(delta: float, items: int, gap_sd: float, tau: float, alpha: float, alternative: str):
    """Paired t-test power (statsmodels TTestPower) with effect size delta / sqrt(gap_sd^2 + tau^2)."""
    spread = math.sqrt(gap_sd ** 2 + tau ** 2)
    if items < 2 or spread == 0.0:
        return None
    alt = {"two-sided": "two-sided", "greater": "larger", "less": "larger"}[alternative]
    from statsmodels.stats.power import TTestPower

    return float(TTestPower().power(effect_size=abs(delta) / spread, nobs=items, alpha=alpha, alternative=alt))


def _approx_mdg(items: int, gap_sd: float, tau: float, alpha: float, target: float, alternative: str):
    """The gap at which the paired t-test approximation reaches the target power."""
    spread = math.sqrt(gap_sd ** 2 + tau ** 2)
    if items < 2 or spread == 0.0:
        return None
    f = lambda d: _approx_power(d, items, gap_sd, tau, alpha, alternative) - target  # noqa: E731
    hi = spread
    for _ in range(_MAX_DOUBLINGS):
        if f(hi) >= 0:
            from scipy.optimize import brentq

            try:
                return float(brentq(f, 0.0, hi, xtol=1e-10 * spread))
            except (ValueError, RuntimeError):  # the t power is NaN near a power of 1: no guess
                return None
        hi *= 2
    return None


def _mdg(rejections: _Rejections, items: int, gap_sd: float, tau: float, alpha: float, target: float,
         alternative: str, rel_tol: float = 1e-3, tick: Callable[[], None] | None = None) -> float:
    """Smallest gap whose simulated power reaches ``target``, searched over common random numbers.

    ``tick``, when given, is called after each power evaluation (a progress hook)."""
    if min_attainable_p(items, alternative=alternative) > alpha:
        return math.inf

    def rate(delta: float) -> float:
        out = rejections.rate(delta)
        if tick is not None:
            tick()
        return out
    spread = math.sqrt(gap_sd ** 2 + tau ** 2)
    guess = _approx_mdg(items, gap_sd, tau, alpha, target, alternative) or spread or 1.0
    # Bracket from below: the t approximation usually undershoots the sign-flip MDG, and
    # stepping up only recomputes the probes that have not rejected yet.
    lo, hi = 0.0, 0.9 * guess
    r_lo, r_hi = 0.0, rate(hi)
    if r_hi >= target:
        for _ in range(_MAX_DOUBLINGS):
            trial = hi / 1.5
            r = rate(trial)
            if r < target:
                lo, r_lo = trial, r
                break
            hi, r_hi = trial, r
    else:
        cap = getattr(rejections, "saturation", math.inf)
        for _ in range(_MAX_DOUBLINGS):
            if hi >= cap:   # every item already at the bound: power cannot rise further
                return math.inf
            lo, r_lo = hi, r_hi
            hi = min(hi * 1.15, cap)
            r_hi = rate(hi)
            if r_hi >= target:
                break
        else:
            return math.inf
    # Then narrow the bracket, stepping where a straight line through the two ends
    # reaches the target (kept at least a tenth of the bracket from either end); each
    # step only recomputes the probes whose decision the bracket leaves open.
    for _ in range(200):
        width = hi - lo
        if width <= rel_tol * hi:
            break
        if r_hi > r_lo:
            mid = lo + (target - r_lo) / (r_hi - r_lo) * width
            mid = min(max(mid, lo + 0.1 * width), hi - 0.1 * width)
        else:
            mid = lo + 0.5 * width
        r = rate(mid)
        if r >= target:
            hi, r_hi = mid, r
        else:
            lo, r_lo = mid, r
    return float(hi)


def _directions(alternative: str) -> tuple[float, ...]:
    """The directions a gap is searched in: both for a two-sided test, the tested one otherwise."""
    return (1.0, -1.0) if alternative == "two-sided" else (_direction(alternative),)


@dataclass(frozen=True)
class _BothWays:
    """The MDG searched in each direction: ``up`` (value a above b) and ``down`` (below), as sizes."""

    up: float | None        # None: not searched (a one-sided test the other way); inf: unreachable
    down: float | None
    sign: float             # the direction of the smaller one
    rejections: _Rejections

    @property
    def mdg(self) -> float:
        return min(x for x in (self.up, self.down) if x is not None)


def _mdg_both(draws: _Draws, items: int, gap_sd: float, tau: float, alpha: float, target: float,
              alternative: str, progress: Callable[[float], None] | None = None) -> _BothWays:
    """The MDG in each direction the test can see (for a two-sided test both, on the same draws).

    ``progress``, when given, is called with the share of the search done so far (an estimate
    that only grows: a search takes about a dozen power evaluations per direction)."""
    found = {}
    signs = _directions(alternative)
    for i, sign in enumerate(signs):
        rej = _Rejections(draws, tau, alpha, alternative, direction=sign)
        calls = [0]

        def tick(i=i, calls=calls):
            calls[0] += 1
            progress((i + 1 - 0.8 ** calls[0]) / len(signs))

        found[sign] = (_mdg(rej, items, gap_sd, tau, alpha, target, alternative,
                            tick=None if progress is None else tick), rej)
    sign = min(found, key=lambda s: (found[s][0], -s))
    return _BothWays(up=found[1.0][0] if 1.0 in found else None, down=found[-1.0][0] if -1.0 in found else None,
                     sign=sign, rejections=found[sign][1])


def _reached(draws: _Draws, both: _BothWays, tau: float) -> tuple[float | None, float | None]:
    """The MDG in each direction as the average gap the simulated items really make (None: not searched,
    inf: unreachable): the shift found, less what the metric's bounds stop. No MDG is then beyond the bounds."""
    out = []
    for size, sign in ((both.up, 1.0), (both.down, -1.0)):
        out.append(size if size is None or math.isinf(size) else abs(_realized_dir(draws, size, tau, sign)))
    return out[0], out[1]


def _realized_dir(draws: _Draws, gap: float, tau: float, sign: float) -> float:
    """The average size of the shift simulated items really make at a gap of size ``gap`` in direction ``sign``."""
    return sign * draws.realized(sign * gap, tau)


#: run values a plan may simulate in all (sims x items x runs per value x 2, summed over designs)
MAX_PLAN_RUNS = 2_000_000_000
#: run values one design may hold in memory at once (sims x items x runs per value; 8 bytes each)
MAX_DESIGN_RUNS = 25_000_000


def check_plan_work(items, runs, sims: int) -> None:
    """Refuse a plan whose simulation is too large to finish (or to fit in memory), before it starts.

    The work is the number of simulated run values: ``sims`` probes of every design, each with
    ``items`` items and ``runs`` runs under each of two values.

    Examples
    --------
    >>> check_plan_work([6, 8], [5, 20], 2000)
    >>> check_plan_work([100000], [20], 2000)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: the design of 100000 items x 20 runs per value holds 4,000,000,000 simulated runs at once (sims=2000), more than the limit of 25,000,000; lower sims to 12 or fewer, or plan fewer items or runs
    """
    items, runs = [int(n) for n in items], [int(k) for k in runs]
    if not items or not runs:
        return
    widest = max(items) * max(runs)
    if widest * sims > MAX_DESIGN_RUNS:
        fit = MAX_DESIGN_RUNS // widest
        raise OptionError(
            f"the design of {max(items)} items x {max(runs)} runs per value holds {widest * sims:,} simulated runs "
            f"at once ({opt('sims', sims)}), more than the limit of {MAX_DESIGN_RUNS:,}; "
            + (f"lower {opt('sims')} to {fit} or fewer, or plan fewer items or runs" if fit >= 1 else
               "plan fewer items or runs"))
    total = sum(items) * sum(runs) * 2
    if total * sims > MAX_PLAN_RUNS:
        fit = MAX_PLAN_RUNS // total
        raise OptionError(
            f"the plan simulates {total * sims:,} runs ({len(items) * len(runs)} designs, {opt('sims', sims)}), more than "
            f"the limit of {MAX_PLAN_RUNS:,}; "
            + (f"lower {opt('sims')} to {fit} or fewer, or plan fewer designs" if fit >= 1 else "plan fewer designs"))


def _check_common(alpha, target, sims, alternative, seed):
    _direction(alternative)
    check_alpha(alpha)
    check_seed(seed)
    if target is not None and not 0 < target < 1:
        raise OptionError(f"the target power must be between 0 and 1, not {target}")
    if int(sims) != sims or sims < 1:
        raise OptionError(f"sims must be a whole number of 1 or more, not {sims}")


def _check_tau(heterogeneity) -> float:
    tau = 0.0 if heterogeneity is None else float(heterogeneity)
    if not math.isfinite(tau) or tau < 0:
        raise OptionError(f"heterogeneity (tau) must be a number of 0 or more, not {heterogeneity}")
    if tau > _LIMIT:
        raise OptionError(f"heterogeneity (tau) {tau:g} is too large to simulate; rescale the metric")
    return tau


def _check_gap(gap) -> None:
    if gap is not None and not (math.isfinite(float(gap)) and abs(float(gap)) <= _LIMIT):
        raise OptionError(f"gap must be a finite number of ordinary size (at most {_LIMIT:g}), not {gap}")


# ---------------------------------------------------------------------------
# power_sign_flip: solve for whichever of gap, items, runs, power is None
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PowerResult:
    """Power of the exact sign-flip test for one design, or the design that reaches a power.

    Attributes
    ----------
    solved_for : {"power", "gap", "items", "runs"}
    gap : float
        True average gap (``math.inf`` when no gap reaches the target power).
    items : int or None
        Items (None when no count up to the search limit reaches the target).
    runs : int or None
        Runs per value (None when no count up to the search limit reaches the target).
    power : float or None
        Simulated power of the sign-flip test at ``gap`` (for a solved design: the power
        it reaches).
    power_se : float or None
        Monte Carlo standard error, ``sqrt(p (1 - p) / sims)``.
    power_sign_test : float or None
        Simulated power of the sign test on the same probes.
    power_approx : float or None
        Paired t-test approximation (statsmodels ``TTestPower``), a cross-check.
    target_power : float or None
    min_attainable_p : float or None
    sigma_run, tau, alpha : float
    alternative : str
    sims, seed : int
    note : str
        One sentence on what the result means.
    gap_realized : float or None
        For a metric with a floor or ceiling: the average gap the simulated items really
        move by at ``gap`` (smaller than ``gap`` when items reach the bound); for other
        metrics, ``gap`` itself.
    """

    solved_for: str
    gap: float | None
    items: int | None
    runs: int | None
    power: float | None
    power_se: float | None
    power_sign_test: float | None
    power_approx: float | None
    target_power: float | None
    min_attainable_p: float | None
    sigma_run: float
    tau: float
    alpha: float
    alternative: str
    sims: int
    seed: int | None
    note: str = ""
    gap_realized: float | None = None

    def __repr__(self) -> str:
        return one_line(self, solved_for=self.solved_for, gap=float(self.gap), items=self.items, runs=self.runs,
                        power=self.power)

    def _repr_html_(self) -> str:
        return html_summary(self, solved_for=self.solved_for, gap=float(self.gap), items=self.items, runs=self.runs,
                            power=self.power, power_se=self.power_se, note=self.note)

    def to_dict(self) -> dict:
        return {
            "solved_for": self.solved_for,
            "gap": _finite(self.gap),
            "items": None if self.items is None else int(self.items),
            "runs": None if self.runs is None else int(self.runs),
            "power": _finite(self.power),
            "power_se": _finite(self.power_se),
            "power_sign_test": _finite(self.power_sign_test),
            "power_approx": _finite(self.power_approx),
            "target_power": _finite(self.target_power),
            "min_attainable_p": _finite(self.min_attainable_p),
            "sigma_run": float(self.sigma_run),
            "tau": float(self.tau),
            "alpha": float(self.alpha),
            "alternative": self.alternative,
            "sims": int(self.sims),
            "seed": None if self.seed is None else int(self.seed),
            "note": self.note,
            "gap_realized": _finite(self.gap_realized),
        }


def _se(p: float, sims: int) -> float:
    return math.sqrt(max(0.0, p * (1.0 - p)) / sims)


def _power_at(noise, gap, items, runs, tau, alpha, alternative, sims, seed, shift="additive"):
    draws = _draw(noise, items, runs, runs, sims, seed, shift)
    p = _reject_rate(draws, gap, tau, alpha, alternative)
    st = _sign_test_rate(draws, gap, tau, alpha, alternative)
    approx = _approx_power(gap, items, noise.gap_sd(runs, runs), tau, alpha, alternative)
    return p, st, approx, _realized(draws, gap, tau, alternative)


def _realized(draws: _Draws, gap: float, tau: float, alternative: str) -> float:
    """The average gap simulated items really move by at ``gap``, in the tested direction."""
    sign = _direction(alternative)
    return sign * draws.realized(sign * gap, tau)


def _bound_note(noise: NoiseModel) -> str:
    if not noise.bounded:
        return ""
    return (f" The metric is kept within {_fmt_scale(noise.floor, noise.ceiling)}: the gap shifts each item's "
            "mean, stopping at the bound (gap_realized is the average shift reached).")


def _search_int(ok: Callable[[int], bool], start: int, limit: int) -> int | None:
    """Smallest n in [start, limit] with ok(n), searching by doubling then bisection."""
    if ok(start):
        return start
    lo, hi = start, start
    while True:
        if hi >= limit:
            return None
        lo, hi = hi, min(limit, hi * 2)
        if ok(hi):
            break
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def power_sign_flip(gap: float | None = None, items: int | None = None, runs: int | None = None,
                    power: float | None = None, *, noise, alpha: float = 0.05,
                    heterogeneity: float | None = None, sims: int = 2000, seed: int | None = 0,
                    alternative: str = "two-sided", metric: str | None = None,
                    max_items: int = 512, max_runs: int = 512, scale=None, shift: str = "additive") -> PowerResult:
    """Power of the exact sign-flip test, or the gap, items or runs that reach a power.

    Exactly one of ``gap``, ``items``, ``runs`` and ``power`` is left None, and that one
    is solved for (as in pingouin's power functions):

    - ``power``: the share of simulated probes in which the sign-flip test gives
      ``p <= alpha``, with its Monte Carlo error;
    - ``gap``: the minimum detectable gap (MDG), the smallest true average gap with power at
      or above ``power``, by bisection over common random numbers; infinite (None in
      JSON) when even the smallest attainable p exceeds alpha;
    - ``runs`` or ``items``: the fewest runs per value (or items) whose power reaches
      ``power`` at ``gap``, by doubling then bisection (power is simulated, so a count
      next to the answer may be within Monte Carlo error of the target too).

    Parameters
    ----------
    gap : float
        True average gap (value a minus value b) in the metric's units; for
        ``alternative="less"`` its size in the negative direction.
    items : int
        Matched items.
    runs : int
        Runs per value of each item.
    power : float
        Target power (when solving for gap, items or runs).
    noise : NoiseModel, float, or a log
        The noise model (:func:`noise_model`), sigma per run as a number (normal runs),
        or a noise log (then ``metric`` is needed).
    alpha : float
    heterogeneity : float, optional
        tau, the spread (SD) of true gaps between items. None means 0, in which case the
        power is an upper bound.
    sims : int
        Simulated probes per design.
    seed : int
        Seed of ``numpy.random.default_rng``; the same seed gives the same answer.
    alternative : {"two-sided", "greater", "less"}
    scale : (low, high) or "LOW:HIGH", optional
        The metric's declared scale (see :func:`noise_model`); needs a noise log or model.
        For a metric with a floor or ceiling, ``gap`` shifts each item's mean of value
        a and stops at the bound; ``gap_realized`` says how far the items really moved.
    shift : {"additive", "scale"}
        How a gap acts on value a's runs: added to every run (default), or a scale gap that
        multiplies the item's mean by ``1 + gap / mean`` (mean: the noise log's), for counts
        and other metrics that are never negative: whole numbers as a rate (thinned, or joined
        by Poisson counts at the item's rate, so the spread grows with the mean), other runs
        multiplied.

    Examples
    --------
    The tutorial's setting: noise about 1.2 steps per run at temperature 0.8, a planted
    gap of 1 step, 8 items.

    >>> r = power_sign_flip(gap=1.0, items=8, runs=20, noise=1.2, sims=400)
    >>> r.power > 0.9
    True
    >>> power_sign_flip(gap=None, items=5, runs=20, power=0.8, noise=1.2).to_dict()["gap"] is None
    True
    """
    _check_common(alpha, power, sims, alternative, seed)
    tau = _check_tau(heterogeneity)
    noise = _as_noise(noise, metric, scale)
    missing = [n for n, v in (("gap", gap), ("items", items), ("runs", runs), ("power", power)) if v is None]
    if len(missing) != 1:
        raise OptionError("leave exactly one of gap, items, runs and power as None: the one to solve for "
                          f"(now {', '.join(missing) or 'none'})")
    solve = missing[0]
    for name, v in (("items", items), ("runs", runs)):
        if v is not None and (int(v) != v or v < 1):
            raise OptionError(f"{name} must be a whole number of 1 or more, not {v}")
    _check_gap(gap)
    common = dict(sigma_run=noise.sigma_run, tau=tau, alpha=float(alpha), alternative=alternative,
                  sims=int(sims), seed=seed)
    if heterogeneity is not None:
        bound = ""
    elif solve == "power":
        bound = " Heterogeneity was taken as 0, so this power is an upper bound."
    else:
        bound = (f" Heterogeneity was taken as 0, so the true {solve} needed may be larger "
                 f"(this {'gap' if solve == 'gap' else 'count'} is a lower bound).")

    bound += _bound_note(noise)
    if solve == "power":
        items, runs = int(items), int(runs)
        p, st, approx, real = _power_at(noise, float(gap), items, runs, tau, alpha, alternative, sims, seed, shift)
        return PowerResult("power", float(gap), items, runs, p, _se(p, sims), st, approx, None,
                           min_attainable_p(items, alternative=alternative), **common,
                           note=f"power of the exact sign-flip test at alpha {alpha}.{bound}", gap_realized=real)
    if solve == "gap":
        items, runs = int(items), int(runs)
        draws = _draw(noise, items, runs, runs, sims, seed, shift)
        both = _mdg_both(draws, items, noise.gap_sd(runs), tau, alpha, power, alternative)
        rejections, mdg = both.rejections, both.mdg
        minp = min_attainable_p(items, alternative=alternative)
        if math.isinf(mdg):
            why = (f"with {count_of(items, 'item')} the smallest attainable p is {minp:g} > alpha {alpha}: this design could "
                   "never reach significance, whatever the gap" if minp > alpha else
                   f"no gap reaches power {power}: the items' means reach the metric's bound first "
                   f"({_fmt_scale(noise.floor, noise.ceiling)}); use more items or runs")
            return PowerResult("gap", math.inf, items, runs, None, None, None, None, float(power), minp, **common,
                               note=why)
        p = rejections.rate(mdg)
        st = _sign_test_rate(draws, both.sign * mdg if alternative == "two-sided" else mdg, tau, alpha, alternative)
        approx = _approx_power(mdg, items, noise.gap_sd(runs), tau, alpha, alternative)
        return PowerResult("gap", mdg, items, runs, p, _se(p, sims), st, approx, float(power), minp, **common,
                           note=f"minimum detectable gap at power {power} and alpha {alpha}"
                                + (f" ({'upward' if both.sign > 0 else 'downward'}, the smaller of the two directions)"
                                   if alternative == "two-sided" else "") + f".{bound}",
                           gap_realized=abs(_realized_dir(draws, mdg, tau, both.sign)))

    gap = float(gap)

    def reaches(i, k):
        draws = _draw(noise, i, k, k, sims, seed, shift)
        return _reject_rate(draws, gap, tau, alpha, alternative) >= power

    if solve == "runs":
        items = int(items)
        minp = min_attainable_p(items, alternative=alternative)
        found = None if minp > alpha else _search_int(lambda k: reaches(items, k), 1, max_runs)
        note = (f"fewest runs per value with power >= {power} at gap {gap}.{bound}" if found else
                f"with {count_of(items, 'item')} the smallest attainable p is {minp:g} > alpha {alpha}: no number of runs "
                "reaches significance; use more items" if minp > alpha else
                f"no number of runs up to {max_runs} reaches power {power} at gap {gap}; use more items")
        runs = found
    else:
        runs = int(runs)
        start = 1
        while min_attainable_p(start, alternative=alternative) > alpha:
            start += 1
        found = _search_int(lambda n: reaches(n, runs), start, max_items)
        note = (f"fewest items with power >= {power} at gap {gap}.{bound}" if found else
                f"no number of items up to {max_items} reaches power {power} at gap {gap}")
        items = found
    if found is None:
        return PowerResult(solve, gap, items, runs, None, None, None, None, float(power),
                           None if items is None else min_attainable_p(items, alternative=alternative),
                           **common, note=note)
    p, st, approx, real = _power_at(noise, gap, items, runs, tau, alpha, alternative, sims, seed, shift)
    return PowerResult(solve, gap, items, runs, p, _se(p, sims), st, approx, float(power),
                       min_attainable_p(items, alternative=alternative), **common, note=note, gap_realized=real)


def _search_mdg(noise_model, items, runs_a, runs_b, alpha, power, sims, seed, alternative, heterogeneity, shift):
    """The simulated probes of a design and its MDG searched both ways (the common start of
    :func:`mdg_for_design` and :func:`mdg_with_range`)."""
    _check_common(alpha, power, sims, alternative, seed)
    tau = _check_tau(heterogeneity)
    noise = _as_noise(noise_model)
    items = int(items)
    draws = _draw(noise, items, runs_a, runs_b, sims, seed, shift)
    ka, kb = draws.ka, _runs_array(runs_b, items, "runs_b")
    gap_sd = noise.sigma_run * math.sqrt(float(np.mean(1.0 / ka + 1.0 / kb)))
    both = _mdg_both(draws, items, gap_sd, tau, alpha, power, alternative)
    return noise, items, ka, kb, tau, draws, both


def mdg_for_design(noise_model, items: int, runs_a, runs_b, alpha: float = 0.05, power: float = 0.8,
                   heterogeneity: float | None = None, sims: int = 2000, seed: int | None = 0,
                   alternative: str = "two-sided", shift: str = "additive") -> float | None:
    """Minimum detectable gap of the design actually run (for a null result's paragraph).

    ``runs_a`` and ``runs_b`` are the runs per value: one number, or one per item when
    items had different numbers of runs. Returns None when the design could never reach
    significance (smallest attainable p above alpha).

    Examples
    --------
    >>> mdg_for_design(NoiseModel.stated(1.2), 5, 20, 20) is None   # 2/32 > 0.05
    True
    >>> 0.3 < mdg_for_design(NoiseModel.stated(1.2), 8, 20, 20, sims=500) < 0.8
    True
    """
    noise, items, ka, kb, tau, draws, both = _search_mdg(noise_model, items, runs_a, runs_b, alpha, power, sims,
                                                       seed, alternative, heterogeneity, shift)
    return _finite(min(x for x in _reached(draws, both, tau) if x is not None))


# ---------------------------------------------------------------------------
# the MDG's range over plausible noise logs of the same size
# ---------------------------------------------------------------------------

#: Resampled noise logs behind an MDG's range (the spread of the MDG over them is estimated from this many).
RANGE_REPLICATES = 19
#: The range's half-width in spreads: the reported MDG times exp(+/- RANGE_SPREADS s), s the spread of log MDG
#: (see :func:`mdg_ranges`). A normal spread's 95% would be 2.1 (Student, 18 degrees of freedom), but on noise
#: logs of 200 runs the resampled logs' MDGs spread 1.5 to 1.7 times less than the MDGs of independent noise
#: logs do (measured on 0/1 logs at 0.9 and Gamma-rate counts; ``benchmarks/mdg_range_coverage.py``), so the
#: range is widened to hold the true noise model's MDG about 9 times in 10 or more.
RANGE_SPREADS = 3.5
#: Simulated probes per resampled log and design (common to all logs, so their MDGs differ by the log, not
#: the draw): a tenth of the plan's, at least this many.
RANGE_MIN_SIMS = 100
#: Simulated run values (replicates x sims x items x runs of both values) up to which a design run's MDG gets
#: its range in an analysis or report; a larger design (thousands of items) is reported without it.
RANGE_MAX_WORK = 200_000_000
#: Cells a noise log needs for its cells to be resampled; with fewer, runs are resampled within each cell.
RANGE_MIN_CELLS = 5
RANGE_METHOD = ("a range meant to hold the MDG of the true noise model at least 9 times in 10: the MDG is found on "
                f"{RANGE_REPLICATES} resampled noise logs of the same size (its cells drawn with "
                "replacement, each with its runs; runs within cells when it has fewer than "
                f"{RANGE_MIN_CELLS} cells), the noise model re-estimated from each, on simulated probes common "
                "to all logs (each log's cells in order of their means, so the same draws pick matching ranks), "
                "relative to the noise log's own on the same probes; the range is the reported MDG times "
                f"exp(+/- {RANGE_SPREADS:g} s), s combining the spread of log MDG over the resampled logs with the "
                "reported MDG's own simulation error (its power curve taken as normal: about 0.51 / "
                "sqrt(simulated probes) of the MDG at power 0.8), widened beyond a normal 95% (2.1 s) because "
                "resampling a small noise log understates how much the MDG varies between logs; open above "
                "(never) when a resampled log reaches no "
                "MDG, never beyond the metric's bounds. The noise log's part narrows as 1 / sqrt(runs), so a "
                "noise log of 4 times the runs halves it; the simulation's part shrinks as 1 / sqrt(simulated "
                "probes), the plan's and per resampled log")


def resampled_noise(noise: NoiseModel, rng: np.random.Generator) -> NoiseModel:
    """A plausible noise log of the same size as ``noise``'s, its noise model re-estimated.

    Cells are drawn with replacement, each with its runs (the log's items and their runs); a log of fewer
    than :data:`RANGE_MIN_CELLS` cells has its runs drawn with replacement within each cell instead. The
    bounds stay the model's (a property of the metric, not of the sample).

    >>> rows = [{"item": i, "x": float(y)} for i in range(6) for y in (i, i + 1, i + 3)]
    >>> m = noise_model(rows, metric="x", scale=":")
    >>> r = resampled_noise(m, np.random.default_rng(0))
    >>> r.n_runs == m.n_runs, r.sigma_run == m.sigma_run    # every cell spreads alike here
    (True, True)
    """
    sizes0, starts0 = noise._cell_sizes, np.concatenate([[0], np.cumsum(noise._cell_sizes)[:-1]])
    cells = sizes0.size
    if cells >= RANGE_MIN_CELLS:
        pick = rng.integers(0, cells, cells)
        sizes = sizes0[pick]
        offs = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        y = noise._raw[np.repeat(starts0[pick], sizes) + offs]
    else:
        sizes = sizes0
        y = noise._raw[np.repeat(starts0, sizes) + np.floor(rng.random(int(sizes.sum()))
                                                          * np.repeat(sizes, sizes)).astype(np.int64)]
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    means = np.add.reduceat(y, starts) / sizes
    resid = y - np.repeat(means, sizes)
    dof = int((sizes - 1).sum())
    sigma = math.sqrt(max(0.0, float(resid @ resid) / dof))
    pool = _pool(y, means, sizes, sigma, noise.floor, noise.ceiling, noise.integer)
    return replace(noise, sigma_run=sigma, minimum=float(y.min()), maximum=float(y.max()), problems=(),
                   _raw=y, _means=means, _cell_sizes=sizes, **pool)


def _coupled(noise: NoiseModel) -> NoiseModel:
    """The same noise model with its cells in order of their means, each cell's runs and the whole log sorted.

    The simulated probes are the same in law; only which uniform draw picks which run changes. Two such
    models of logs with as many cells (a noise log and a resampled one) then turn the same draws into
    matching quantiles (the j-th lowest cell, a run at the same rank), so their MDGs differ by the logs, not
    by the draw, and a few hundred simulated probes tell them apart.
    """
    if noise._raw is None:
        return noise
    sizes = noise._cell_sizes
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    order = np.argsort(noise._means, kind="stable")
    y = np.concatenate([np.sort(noise._raw[starts[c]:starts[c] + sizes[c]]) for c in order])
    pool = _pool(y, noise._means[order], sizes[order], noise.sigma_run, noise.floor, noise.ceiling, noise.integer)
    values = pool["_values"]
    if values.size > y.size:      # the whole log, the last simulation cell, sorted as well
        values = np.concatenate([values[:y.size], np.sort(values[y.size:])])
        pool["_values"] = values
    return replace(noise, _raw=y, _means=noise._means[order], _cell_sizes=sizes[order], **pool)


def _room(draws: _Draws, tau: float, sign: float) -> float:
    """The largest average gap the simulated items can make in direction ``sign`` (inf: no bound)."""
    cap = draws.saturation(sign, tau)
    return math.inf if math.isinf(cap) else abs(_realized_dir(draws, cap, tau, sign))


def mdg_sim_error(sims: int, alpha: float, target: float, alternative: str) -> float:
    """The simulation error (standard error) of an MDG found on ``sims`` simulated probes, relative to the MDG.

    The power found at a gap is a share of ``sims`` probes, so it errs by ``sqrt(target (1 - target) / sims)``;
    the MDG errs by that over the power curve's slope there. Taking the power curve as a normal test's,
    ``Phi(delta / se - z_alpha)``, its slope at the target is ``phi(z_target) (z_alpha + z_target) / MDG``
    (``z_alpha`` the critical value of the test, one- or two-sided). An approximation: at 300 probes and power
    0.8 it gives 0.029; the spread measured between plans of one 0/1 or count noise log at 300 and at 3,000
    probes was 0.020 to 0.035.

    >>> round(mdg_sim_error(300, 0.05, 0.8, "two-sided"), 4)
    0.0294
    """
    from scipy.stats import norm

    crit = float(norm.isf(alpha / 2 if alternative == "two-sided" else alpha))
    z = float(norm.ppf(target))
    return math.sqrt(target * (1 - target) / sims) / (float(norm.pdf(z)) * (crit + z))


def _range_of(size: float, base: float, others: list[float], room: float, sim_error: float) -> tuple[float, float]:
    """One direction's range: ``size`` (the reported MDG) times exp(+/- RANGE_SPREADS s) (see :data:`RANGE_METHOD`).

    ``others`` are the resampled logs' MDGs and ``base`` the noise log's own on the same probes; ``room`` the
    largest gap the items can make."""
    logs = [math.log(x / base) for x in others if math.isfinite(x) and x > 0]
    open_above = len(logs) < len(others)
    if len(logs) >= 2:
        spread = float(np.std(logs, ddof=1))
        half = RANGE_SPREADS * math.hypot(spread, sim_error)
        low = size * math.exp(-half)
        high = math.inf if open_above else size * math.exp(half)
    else:   # (nearly) no resampled log reaches an MDG: the lowest that does, up to never
        low = size * min([1.0, *(math.exp(x) for x in logs)]) * math.exp(-2.0 * sim_error)
        high = math.inf
    return min(low, size, room), min(max(high, size), room) if math.isfinite(high) else math.inf


def mdg_ranges(noise: NoiseModel, replicas, items: int, runs_a, runs_b, reported, *, tau: float, alpha: float,
               target: float, alternative: str, sims: int, seed, shift: str, reported_sims: int | None = None):
    """The range of the MDG in each direction over the resampled noise logs ``replicas`` (see RANGE_METHOD).

    ``reported`` is ``(up, down)``, the MDG found on the plan's own simulation of ``reported_sims`` probes
    (``sims``, the probes per resampled log, when not given). Returns ``(up_range, down_range)``, each
    ``(low, high)`` or None (a direction not searched or unreachable); ``high`` is inf when a resampled log
    reaches no MDG, and never beyond the metric's bounds.
    """
    ka = _runs_array(runs_a, items, "runs_a")
    kb = _runs_array(runs_b, items, "runs_b")
    sim_error = mdg_sim_error(int(reported_sims or sims), alpha, target, alternative)
    found = []
    for model in (_coupled(noise), *(_coupled(r) for r in replicas)):
        draws = _draw(model, items, ka, kb, sims, seed, shift)
        gap_sd = model.sigma_run * math.sqrt(float(np.mean(1.0 / ka + 1.0 / kb)))
        both = _mdg_both(draws, items, gap_sd, tau, alpha, target, alternative)
        found.append((_reached(draws, both, tau), draws))
    (own, own_draws), out = found[0], []
    for d, (size, sign) in enumerate(zip(reported, (1.0, -1.0))):
        base = own[d]
        if size is None:
            out.append(None)
            continue
        others = [math.inf if r[d] is None else r[d] for r, _ in found[1:]]
        if math.isinf(size) or base is None or math.isinf(base) or base <= 0:
            # no MDG on this log (the bound comes first): the plausible logs' own MDGs, up to never
            finite = [x for x in others if math.isfinite(x)]
            out.append((min(finite), math.inf) if finite else None)
            continue
        out.append(_range_of(size, base, others, _room(own_draws, tau, sign), sim_error))
    return out[0], out[1]


def mdg_with_range(noise_model, items: int, runs_a, runs_b, alpha: float = 0.05, power: float = 0.8,
                   heterogeneity: float | None = None, sims: int = 2000, seed: int | None = 0,
                   alternative: str = "two-sided", shift: str = "additive"):
    """The MDG of the design actually run, as :func:`mdg_for_design` finds it, and its range over plausible
    noise logs of the same size (:data:`RANGE_METHOD`; None for a stated sigma, a design that could never
    reach significance, or one beyond :data:`RANGE_MAX_WORK`). Costs a few times the MDG's own simulation.

    >>> rows = [{"item": i, "x": float(y)} for i in range(30) for y in np.random.default_rng(i).normal(0, 1, 4)]
    >>> mdg, (low, high) = mdg_with_range(noise_model(rows, metric="x"), 8, 10, 10, sims=400)
    >>> bool(low <= mdg <= high)
    True
    """
    found = design_mdg(noise_model, items, runs_a, runs_b, alpha=alpha, power=power, heterogeneity=heterogeneity,
                       sims=sims, seed=seed, alternative=alternative, shift=shift)
    return found.mdg, found.range


@dataclass(frozen=True)
class DesignMDG:
    """The minimum detectable gap of one design, its range, and whether it is promised.

    Attributes
    ----------
    mdg : float or None
        The smaller of the upward and downward MDGs (``inf``: unreachable).
    range : tuple of float or None
        Its range over plausible noise logs of the same size (:data:`RANGE_METHOD`), or None.
    toward : {"up", "down"} or None
        The direction of that MDG (None without one).
    room : float or None
        The rise (``up``) or fall (``down``) the metric's bound surely leaves, from the noise log's one-sided
        :data:`MEAN_BOUND_LEVEL` bound on its mean (:func:`room_left`; None without a bound that way).
    near_bound : bool
        The MDG is larger than ``room``: a gap that large may not exist, so it is not promised.
    """

    mdg: float | None
    range: tuple | None
    toward: str | None
    room: float | None
    near_bound: bool


def design_mdg(noise_model, items: int, runs_a, runs_b, alpha: float = 0.05, power: float = 0.8,
               heterogeneity: float | None = None, sims: int = 2000, seed: int | None = 0,
               alternative: str = "two-sided", shift: str = "additive") -> DesignMDG:
    """:func:`mdg_with_range` with the MDG's direction and whether the metric's bound leaves room for it.

    >>> rows = [{"item": i, "x": float(y)} for i in range(40) for y in (1, 1, 1, 1, i % 3 > 0)]
    >>> found = design_mdg(noise_model(rows, metric="x"), 8, 20, 20, sims=300)
    >>> found.toward, found.near_bound, round(found.room, 3)   # a 0/1 metric at 0.93: it can only fall
    ('down', False, 0.904)

    (Cell means 0.8 on 14 items, 1 on 26: mean 0.93, cluster SE sqrt(40/39 x 25 x 0.364) / 200 = 0.01528,
    t(0.95, 39) = 1.685, so the lower bound is 0.93 - 0.0257 = 0.904, all room for a fall to 0.)
    """
    noise, items, ka, kb, tau, draws, both = _search_mdg(noise_model, items, runs_a, runs_b, alpha, power, sims,
                                                       seed, alternative, heterogeneity, shift)
    up, down = _reached(draws, both, tau)
    mdg = min(x for x in (up, down) if x is not None)
    toward = "up" if up is not None and up == mdg else "down"
    room = room_left(noise, toward)
    near = bool(room is not None and math.isfinite(mdg) and mdg > room)
    range_sims = max(RANGE_MIN_SIMS, int(sims) // 10)
    work = (RANGE_REPLICATES + 1) * range_sims * float(np.sum(ka) + np.sum(kb))
    if noise._raw is None or min_attainable_p(items, alternative=alternative) > alpha or work > RANGE_MAX_WORK:
        return DesignMDG(_finite(mdg), None, toward, room, near)
    ranges = mdg_ranges(noise, _replicas(noise, seed), items, ka, kb, (up, down), tau=tau, alpha=alpha,
                        target=power, alternative=alternative, sims=range_sims,
                        seed=None if seed is None else [seed, 1], shift=shift, reported_sims=sims)
    return DesignMDG(_finite(mdg), ranges[0] if toward == "up" else ranges[1], toward, room, near)


# ---------------------------------------------------------------------------
# plan_probe: a table over item counts and runs per value
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PlanCell:
    """One design of a plan: its MDG and, when a gap is given, its power.

    ``gap_realized`` and ``mdg_realized`` are the average gaps the simulated items really
    move by at the plan's gap and at the MDG: for a metric with a floor or ceiling they
    are smaller than the gap when items reach the bound; otherwise they equal it.

    For a two-sided test the MDG is searched upward (value a above b) and downward, on the
    same simulated probes: ``mdg`` is the smaller, ``mdg_up`` and ``mdg_down`` the sizes of
    both (they differ near a floor or ceiling, where a gap toward the bound is capped). Each is
    the average gap the simulated items really make (``mdg_realized``), so none lies beyond the
    metric's bounds; ``mdg_shift_up`` and ``mdg_shift_down`` are the shifts of each item's mean
    (stopping at the bound) that make them.

    ``mdg_up_range`` and ``mdg_down_range`` (and ``mdg_range``, for ``mdg``) are the ranges the MDG takes
    over plausible noise logs of the same size (see :func:`mdg_ranges`); None when not computed.

    Attributes
    ----------
    items, runs : int
        The design: items, and runs per value and item.
    power : float or None
        Simulated power of the sign-flip test at the plan's gap (None without a gap).
    power_se : float or None
        Its Monte Carlo standard error, ``sqrt(p (1 - p) / sims)``.
    power_sign_test : float or None
        Simulated power of the sign test on the same probes.
    power_approx : float or None
        Paired t-test approximation of the power, a cross-check.
    mdg : float
        The minimum detectable gap: the smallest average gap reaching the target power (``inf``: none does).
    mdg_approx : float or None
        The gap at which the paired t-test approximation reaches the target power, a cross-check.
    min_attainable_p : float
        The smallest p the sign-flip test can give with this many items.
    gap_realized, mdg_realized : float or None
        The average gaps the simulated items really move by at the plan's gap and at the MDG.
    mdg_up, mdg_down : float or None
        The MDG as a size in each direction (value a above b, below it); None where not searched (a
        one-sided test the other way), ``inf`` where no gap reaches the target power.
    mdg_shift_up, mdg_shift_down : float or None
        The shifts of each item's mean (stopping at the bound) that make ``mdg_up`` and ``mdg_down``.
    mdg_up_range, mdg_down_range : (float, float) or None
        (low, high) of the MDG in each direction over plausible noise logs of the same size.
    mdg_up_near_bound, mdg_down_near_bound : bool
        Whether the MDG toward a ceiling (floor) is larger than the room left between the bound and the
        one-sided 95% bound on the noise log's mean (:func:`mean_bounds`): the noise log cannot tell whether
        a gap that large exists, so it is not promised (the ``mdg_near_bound`` warning says so).
    """

    items: int
    runs: int
    power: float | None
    power_se: float | None
    power_sign_test: float | None
    power_approx: float | None
    mdg: float
    mdg_approx: float | None
    min_attainable_p: float
    gap_realized: float | None = None
    mdg_realized: float | None = None
    #: the MDG as a size in each direction (value a above b, below it); None where not searched
    #: (a one-sided test the other way), inf where no gap reaches the target power
    mdg_up: float | None = None
    mdg_down: float | None = None
    mdg_shift_up: float | None = None
    mdg_shift_down: float | None = None
    #: (low, high) of the MDG over plausible noise logs of the same size; None: not computed or not searched
    mdg_up_range: tuple[float, float] | None = None
    mdg_down_range: tuple[float, float] | None = None
    #: whether the MDG in each direction lies within the noise log's uncertainty of the bound it moves toward
    #: (beyond the room left at the bound on the log's mean, :func:`mean_bounds`): not promised
    mdg_up_near_bound: bool = False
    mdg_down_near_bound: bool = False

    @property
    def mdg_range(self) -> tuple[float, float] | None:
        """The range of ``mdg``: the one of the direction it comes from."""
        if self.mdg_up is not None and self.mdg_up == self.mdg:
            return self.mdg_up_range
        return self.mdg_down_range if self.mdg_down is not None and self.mdg_down == self.mdg else None

    def to_dict(self) -> dict:
        rng = lambda r: None if r is None else [_finite(r[0]), _finite(r[1])]  # noqa: E731
        return {
            "items": int(self.items), "runs": int(self.runs),
            "mdg_up": _finite(self.mdg_up), "mdg_down": _finite(self.mdg_down),
            "mdg_up_range": rng(self.mdg_up_range), "mdg_down_range": rng(self.mdg_down_range),
            "mdg_range": rng(self.mdg_range),
            "mdg_up_near_bound": bool(self.mdg_up_near_bound), "mdg_down_near_bound": bool(self.mdg_down_near_bound),
            "mdg_shift_up": _finite(self.mdg_shift_up), "mdg_shift_down": _finite(self.mdg_shift_down),
            "power": _finite(self.power), "power_se": _finite(self.power_se),
            "power_sign_test": _finite(self.power_sign_test),
            "power_approx": _finite(self.power_approx),
            "mdg": _finite(self.mdg), "mdg_approx": _finite(self.mdg_approx),
            "min_attainable_p": float(self.min_attainable_p),
            "gap_realized": _finite(self.gap_realized), "mdg_realized": _finite(self.mdg_realized),
        }


@dataclass(frozen=True)
class Plan:
    """The answer to "what could this probe detect?" over a grid of designs.

    ``to_dict()`` is the ``plan --json`` object; ``to_frame()`` one row per design.

    Attributes
    ----------
    noise : NoiseModel
        The run-to-run noise the designs are simulated with.
    tau : float
        The spread (SD) of true item gaps the simulation assumes.
    tau_source : str
        Where ``tau`` came from: ``"pilot"`` (estimated, see ``heterogeneity``) or stated.
    alpha : float
        The level a simulated probe's p is read against.
    target_power : float
        The power the MDG is the smallest gap to reach.
    gap : float or None
        The gap each design's ``power`` is simulated at (None: MDGs only).
    alternative : {"two-sided", "greater", "less"}
    sims, seed : int
        Simulated probes per design, and the seed they are drawn with.
    cells : tuple of PlanCell
        One design per combination of items and runs.
    problems : tuple of Problem
        What a reader should be told (about the noise log, the pilot, the designs).
    heterogeneity : Heterogeneity or None
        The pilot's estimate of ``tau`` (None without a pilot).
    shift : {"additive", "scale"}
        How a gap moves a simulated item: every run by the gap, or multiplied.
    mdg_range_method : str or None
        How the MDG's ranges were found (None: not computed, as for a stated sigma).
    range_sims : int or None
        Simulated probes per resampled noise log and design behind the ranges.
    """

    noise: NoiseModel
    tau: float
    tau_source: str
    alpha: float
    target_power: float
    gap: float | None
    alternative: str
    sims: int
    seed: int | None
    cells: tuple[PlanCell, ...]
    problems: tuple[Problem, ...]
    heterogeneity: Heterogeneity | None = None
    shift: str = "additive"
    #: how the MDG's ranges were found (None: not computed, as for a stated sigma)
    mdg_range_method: str | None = None
    #: simulated probes per resampled noise log and design behind the ranges
    range_sims: int | None = None

    @property
    def noise_runs_to_halve_range(self) -> int | None:
        """Runs a noise log needs to halve the MDG's ranges: 4 times its own (the ranges narrow as 1/sqrt(runs))."""
        return None if self.mdg_range_method is None else 4 * int(self.noise.n_runs)

    @property
    def sigma_run(self) -> float:
        return self.noise.sigma_run

    def to_dict(self) -> dict:
        out = {
            "metric": self.noise.metric,
            "sigma_run": float(self.noise.sigma_run),
            "tau": float(self.tau),
            "tau_source": self.tau_source,
            "tau_method": TAU_METHOD if self.tau_source == "pilot" else "stated assumption",
            "alpha": float(self.alpha),
            "target_power": float(self.target_power),
            "gap": _finite(self.gap),
            "alternative": self.alternative,
            "sims": int(self.sims),
            "seed": None if self.seed is None else int(self.seed),
            "test": "exact sign-flip test; power by simulation from the noise model, "
                    "power_approx from the paired t-test (statsmodels TTestPower)",
            "decisions": DECIDE_NOTE if max((c.items for c in self.cells), default=0) >= DECIDE_EXACT_ITEMS
            else "every simulated probe's p computed exactly",
            "noise": self.noise.to_dict(),
            "noise_model": self.noise.simulation,
            "shift": self.shift,
            "shift_model": gap_model(self.noise, self.shift),
            "gap_definition": (f"the shift of each item's mean of value a, stopping at the metric's bounds "
                               f"{_fmt_scale(self.noise.floor, self.noise.ceiling)} ({self.noise.scale_source}); "
                               "gap_realized and mdg_realized are the average shifts reached"
                               if self.noise.bounded else "the true average gap, value a minus value b"),
            "cells": [c.to_dict() for c in self.cells],
            "mdg_range_method": self.mdg_range_method,
            "mdg_range_sims": self.range_sims,
            "noise_runs_to_halve_range": self.noise_runs_to_halve_range,
            "problems": [p.to_dict() for p in self.problems],
        }
        if self.heterogeneity is not None:
            out["pilot"] = self.heterogeneity.to_dict()
        return out

    def to_frame(self) -> pl.DataFrame:
        """The cells as a polars DataFrame (one row per design)."""
        schema = {"items": pl.Int64, "runs": pl.Int64, "mdg_up": pl.Float64, "mdg_down": pl.Float64,
                  "power": pl.Float64, "power_se": pl.Float64, "power_sign_test": pl.Float64,
                  "power_approx": pl.Float64, "mdg": pl.Float64, "mdg_low": pl.Float64, "mdg_high": pl.Float64,
                  "mdg_approx": pl.Float64, "min_attainable_p": pl.Float64,
                  "gap_realized": pl.Float64, "mdg_realized": pl.Float64}
        rows = []
        for c in self.cells:
            d = c.to_dict()
            d["mdg_low"], d["mdg_high"] = d["mdg_range"] or (None, None)
            rows.append({k: d[k] for k in schema})
        return pl.DataFrame(rows, schema=schema)

    def __repr__(self) -> str:
        return one_line(self, metric=self.noise.metric, sigma_run=float(self.noise.sigma_run), designs=len(self.cells),
                        alpha=float(self.alpha), target_power=float(self.target_power), gap=self.gap)

    def _repr_html_(self) -> str:
        return html_summary(self, self.to_frame(), metric=self.noise.metric, sigma_run=float(self.noise.sigma_run),
                            tau=float(self.tau), alpha=float(self.alpha), target_power=float(self.target_power),
                            alternative=self.alternative, sims=self.sims)

    def directions_differ(self) -> bool:
        """Whether some design's upward and downward MDG differ (more than 2%, or one is unreachable)."""
        for c in self.cells:
            if c.mdg_up is None or c.mdg_down is None:
                continue
            if math.isinf(c.mdg_up) != math.isinf(c.mdg_down):
                return True
            if math.isfinite(c.mdg_up) and abs(c.mdg_up - c.mdg_down) > 0.02 * min(c.mdg_up, c.mdg_down):
                return True
        return False

    @property
    def heterogeneity_stated(self) -> bool:
        return not any(p.code == "heterogeneity_assumed" for p in self.problems)


def _int_list(values, name) -> list[int]:
    if values is None:
        raise OptionError(f"give at least one number of {name}")
    if isinstance(values, (int, np.integer)) or isinstance(values, str):
        values = [values]
    out: list[int] = []
    for v in values:
        parts = str(v).split(",") if isinstance(v, str) else [v]
        for part in parts:
            try:
                f = float(part)
            except ValueError:
                raise OptionError(f"{name} must be whole numbers, not {part!r}") from None
            if f != int(f) or f < 1:
                raise OptionError(f"{name} must be whole numbers of 1 or more, not {part!r}")
            if int(f) not in out:
                out.append(int(f))
    if not out:
        raise OptionError(f"give at least one number of {name}")
    return out


def plan_probe(noise, items: int | Iterable[int], runs: int | Iterable[int], gap: float | None = None,
               metric: str | None = None, pilot=None, heterogeneity: float | None = None,
               alpha: float = 0.05, power: float = 0.8, sims: int = 2000, seed: int | None = 0,
               progress: Callable[[int, int], None] | None = None, *, alternative: str = "two-sided",
               a: str | None = None, b: str | None = None, scale=None, shift: str = "additive",
               mdg_range: bool = True) -> Plan:
    """Size a probe: the MDG (and the power at ``gap``) of every combination of items and runs.

    Parameters
    ----------
    noise : NoiseModel, float, or a same-versus-same log
        A log is read with :func:`noise_model` (``metric`` needed); a number is sigma per run.
    items, runs : int or iterable of int (or comma-separated strings)
        Item counts and runs per value; the table covers every combination.
    gap : float, optional
        A true average gap of interest: each design's power at it is added.
    pilot : log, optional
        A pilot of the real comparison; tau is estimated from it (method of moments),
        comparing values ``a`` and ``b`` (default: the first two in order of appearance).
    heterogeneity : float, optional
        tau as a stated assumption. With neither this nor a pilot, tau = 0 and the
        power is an upper bound (a ``heterogeneity_assumed`` problem says so).
    progress : callable, optional
        Called as ``progress(done, total)`` as the designs are simulated: ``done`` is the number of
        designs finished plus an estimate of the share of the current one (it only grows, and is a
        whole number after each design).
    scale : (low, high) or "LOW:HIGH", optional
        The metric's declared scale (overrides the bounds read from the noise log; see
        :func:`noise_model`). For a metric with a floor or ceiling, simulated runs stay
        within it, the gap is the shift of each item's mean of value a, stopping at the
        bound, and a ``bounded_metric`` problem says so; each design reports the average
        shift really reached (``gap_realized``, ``mdg_realized``).
    shift : {"additive", "scale", "steps"}
        How a gap acts on value a's runs (see :func:`power_sign_flip` and :func:`gap_model`); stated in the
        plan. The default follows the metric's kind: a count's rate rises (falls) by the gap, its extra events
        drawn; a 0/1 rate moves, each run drawn at it; other bounded metrics shift and stop at their bounds.
        ``"steps"`` spreads a whole-number metric's steps evenly over an item's runs (for metrics that move
        in whole steps by construction).
    mdg_range : bool
        Also find each MDG's range over plausible noise logs of the same size (:func:`mdg_ranges`,
        :data:`RANGE_METHOD`): :data:`RANGE_REPLICATES` resampled logs at a tenth of ``sims`` (at least
        :data:`RANGE_MIN_SIMS`) each (at 2,000 probes about 2 s of CPU per design of 8 x 20 on a 200-run
        noise log); not for a stated sigma.

    Examples
    --------
    >>> plan = plan_probe(1.2, items=[5, 8], runs=20, gap=1.0, sims=300)
    >>> [c["mdg"] is None for c in plan.to_dict()["cells"]]
    [True, False]
    >>> sorted({p["code"] for p in plan.to_dict()["problems"]})
    ['heterogeneity_assumed', 'never_significant']
    """
    _check_common(alpha, power, sims, alternative, seed)
    if pilot is not None and heterogeneity is not None:
        raise OptionError("give either a pilot log or a stated heterogeneity, not both")
    noise = _as_noise(noise, metric, scale)
    _check_shift(shift, noise)
    item_list = _int_list(items, "items")
    run_list = _int_list(runs, "runs")
    check_plan_work(item_list, run_list, sims)
    _check_gap(gap)
    problems: list[Problem] = list(noise.problems)
    het = None
    if pilot is not None:
        het = heterogeneity_from_pilot(pilot, noise, metric or noise.metric, a=a, b=b)
        tau, tau_source = het.tau, "pilot"
        if het.n_items < 6:
            problems.append(Problem("warning", "small_pilot",
                                    f"tau comes from a pilot of only {count_of(het.n_items, 'item')}, so it is rough; "
                                    "read the plan as a guide, or state tau with "
                                    + either("heterogeneity=TAU", "--heterogeneity TAU")))
    else:
        tau, tau_source = _check_tau(heterogeneity), "assumed"
        if heterogeneity is None:
            problems.append(Problem("warning", "heterogeneity_assumed",
                                    "no pilot and no stated heterogeneity: true gaps are assumed equal on every "
                                    "item (tau = 0), so power is an upper bound and the MDG a lower bound; give "
                                    f"{opt('pilot', 'LOG')} or {either('heterogeneity=TAU', '--heterogeneity TAU')}"))
    never = [n for n in item_list if min_attainable_p(n, alternative=alternative) > alpha]
    if never:
        shown = ", ".join(str(n) for n in never)
        need = 1
        while min_attainable_p(need, alternative=alternative) > alpha:
            need += 1
        problems.append(Problem("warning", "never_significant",
                                f"with {shown} {'item' if never == [1] else 'items'} the smallest attainable p "
                                f"({min_attainable_p(never[-1], alternative=alternative):g}"
                                f"{' or more' if len(never) > 1 else ''}) exceeds alpha {alpha:g}: such a design "
                                f"could never reach significance, whatever the gap; use at least {count_of(need, 'item')}"))
    cells = []
    total = len(item_list) * len(run_list)
    ranged = mdg_range and noise._raw is not None
    replicas = _replicas(noise, seed) if ranged else []
    range_sims = max(RANGE_MIN_SIMS, int(sims) // 10)
    for n in item_list:
        for k in run_list:
            draws = _draw(noise, n, k, k, sims, seed, shift)
            gsd = noise.gap_sd(k)
            done = len(cells)
            if progress is not None:
                progress(done, total)
            both = _mdg_both(draws, n, gsd, tau, alpha, power, alternative,
                             None if progress is None else lambda share, done=done: progress(done + share, total))
            up, down = _reached(draws, both, tau)
            mdg = min(x for x in (up, down) if x is not None)
            p = st = se = approx = None
            if gap is not None:
                p = _Rejections(draws, tau, alpha, alternative).rate(float(gap))
                st = _sign_test_rate(draws, float(gap), tau, alpha, alternative)
                se = _se(p, sims)
                approx = _approx_power(float(gap), n, gsd, tau, alpha, alternative)
            mdg_approx = (None if math.isinf(mdg) else
                          _approx_mdg(n, gsd, tau, alpha, power, alternative))
            reached = None if gap is None else _realized(draws, float(gap), tau, alternative)
            mdg_reached = None if math.isinf(mdg) else mdg
            up_range = down_range = None
            if ranged and min_attainable_p(n, alternative=alternative) <= alpha:
                up_range, down_range = mdg_ranges(noise, replicas, n, k, k, (up, down), tau=tau, alpha=alpha,
                                                  target=power, alternative=alternative, sims=range_sims,
                                                  seed=None if seed is None else [seed, 1], shift=shift,
                                                  reported_sims=sims)
            cells.append(PlanCell(n, k, p, se, st, approx, mdg, mdg_approx,
                                  float(min_attainable_p(n, alternative=alternative)), reached, mdg_reached,
                                  mdg_up=up, mdg_down=down, mdg_shift_up=both.up, mdg_shift_down=both.down,
                                  mdg_up_range=up_range, mdg_down_range=down_range))
            if progress is not None:
                progress(len(cells), total)
    if noise.bounded:
        problems.append(_bounded_problem(noise, cells, gap, alpha, power))
        cells, near = _near_bound(noise, cells)
        problems.extend(near)
    return Plan(noise=noise, tau=float(tau), tau_source=tau_source, alpha=float(alpha),
                target_power=float(power), gap=None if gap is None else float(gap), alternative=alternative,
                sims=int(sims), seed=seed, cells=tuple(cells), problems=tuple(problems), heterogeneity=het,
                shift=shift, mdg_range_method=RANGE_METHOD if ranged else None,
                range_sims=range_sims if ranged else None)


def _replicas(noise: NoiseModel, seed) -> list[NoiseModel]:
    """The resampled noise logs behind the MDG's range (:data:`RANGE_REPLICATES` of them, from ``seed``)."""
    rng = np.random.default_rng([0 if seed is None else int(seed), 26])
    return [resampled_noise(noise, rng) for _ in range(RANGE_REPLICATES)]


#: One-sided confidence of the bounds on a noise log's mean that say whether an MDG toward a bound is promised.
MEAN_BOUND_LEVEL = 0.95


def mean_bounds(noise: NoiseModel, level: float = MEAN_BOUND_LEVEL) -> tuple[float, float] | None:
    """One-sided ``level`` lower and upper bounds on the metric's mean from the noise log's cells.

    The log's mean ``M = sum(n_c m_c) / N`` over cells ``c`` of ``n_c`` runs with means ``m_c`` errs by the
    cluster standard error ``sqrt(C / (C - 1) sum(n_c^2 (m_c - M)^2)) / N`` (``C`` cells; runs of a cell
    share their item, so they are not counted as independent), and the bounds are ``M -/+ t se`` with
    ``t`` Student's ``level`` quantile on ``C - 1`` degrees of freedom. None without the log's runs or
    with fewer than 2 cells.

    >>> rows = [{"item": i, "x": float(y)} for i in range(4) for y in (i % 2, 1, 1)]
    >>> low, high = mean_bounds(noise_model(rows, metric="x"))
    >>> round(low, 4), round(high, 4)   # cell means 2/3, 1, 2/3, 1: M 5/6, se sqrt(1/27) / 2, t(3) 2.3534
    (0.6069, 1.0598)
    """
    if noise._raw is None or noise._cell_sizes is None or noise._cell_sizes.size < 2:
        return None
    from scipy.stats import t as student_t

    sizes, means = noise._cell_sizes.astype(float), noise._means
    total = float(sizes.sum())
    grand = float(np.sum(sizes * means)) / total
    cells = sizes.size
    se = math.sqrt(cells / (cells - 1) * float(np.sum((sizes * (means - grand)) ** 2))) / total
    t = float(student_t.ppf(level, cells - 1))
    return grand - t * se, grand + t * se


def room_left(noise: NoiseModel, toward: str) -> float | None:
    """The rise (``toward="up"``) or fall (``"down"``) the metric's bound surely leaves: the ceiling less the
    noise log's one-sided upper bound on its mean, or that lower bound less the floor (:func:`mean_bounds`).
    None without a bound that way, or without bounds on the mean.

    >>> rows = [{"item": i, "x": float(y)} for i in range(4) for y in (i % 2, 1, 1)]
    >>> model = noise_model(rows, metric="x")
    >>> round(room_left(model, "down"), 4), round(room_left(model, "up"), 4)   # bounds 0.6069 and 1.0598
    (0.6069, -0.0598)
    """
    bounds = mean_bounds(noise)
    return None if bounds is None else _bound_room(noise, toward, *bounds)


def _bound_room(noise: NoiseModel, toward: str, low: float, high: float) -> float | None:
    """:func:`room_left` from the bounds on the mean, ``low`` and ``high``."""
    if toward == "up":
        return None if noise.ceiling is None else float(noise.ceiling) - high
    return None if noise.floor is None else low - float(noise.floor)


def _near_bound(noise: NoiseModel, cells: list) -> tuple[list, list[Problem]]:
    """The cells with ``mdg_up_near_bound`` / ``mdg_down_near_bound`` set, and the ``mdg_near_bound`` warning.

    An MDG toward a ceiling is a rise the items can make only if their rate leaves room for it; the noise
    log knows its mean only up to :func:`mean_bounds`, so an upward MDG larger than ``ceiling - upper bound``
    (a downward one larger than ``lower bound - floor``) may be a gap that does not exist."""
    bounds = mean_bounds(noise)
    if bounds is None:
        return cells, []
    low, high = bounds
    rooms = {"up": _bound_room(noise, "up", low, high), "down": _bound_room(noise, "down", low, high)}
    out, hits = [], {"up": [], "down": []}
    for c in cells:
        flags = {}
        for name in ("up", "down"):
            size, room = getattr(c, f"mdg_{name}"), rooms[name]
            flags[name] = bool(room is not None and size is not None and math.isfinite(size) and size > room)
            if flags[name]:
                hits[name].append((c, size))
        out.append(replace(c, mdg_up_near_bound=flags["up"], mdg_down_near_bound=flags["down"]))
    problems = []
    for name, toward, bound, edge in (("up", "ceiling", noise.ceiling, high), ("down", "floor", noise.floor, low)):
        if not hits[name]:
            continue
        designs = ", ".join(f"{c.items} x {c.runs}" for c, _ in hits[name][:6]) + (
            f" and {len(hits[name]) - 6} more" if len(hits[name]) > 6 else "")
        largest = max(size for _, size in hits[name])
        room = max(0.0, rooms[name])
        problems.append(Problem(
            "warning", "mdg_near_bound",
            f"the noise log's mean of '{noise.metric}', {float(np.mean(noise._raw)):.4g}, may be as "
            f"{'high' if name == 'up' else 'low'} as {edge:.4g} (one-sided {MEAN_BOUND_LEVEL:.0%} bound from its "
            f"{noise._cell_sizes.size} cells), which leaves room for a {'rise' if name == 'up' else 'fall'} of only "
            f"{room:.3g} to the {toward} {bound:g}: the {name}ward MDG of {count_of(len(hits[name]), 'design')} "
            f"({designs}; up to {largest:.3g}) lies within the log's uncertainty of the {toward}, so a gap that "
            "large may not exist and it is not promised (mdg_" + name + "_near_bound); a noise log of 4 times the "
            "runs halves the bound's distance from the mean", (), noise.metric))
    return out, problems


def _bounded_problem(noise: NoiseModel, cells, gap, alpha, power) -> Problem:
    """The ``bounded_metric`` warning: what a gap means near a floor or ceiling, and where it bit."""
    ends = []
    for name, value in (("floor", noise.floor), ("ceiling", noise.ceiling)):
        if value is None:
            continue
        if noise.scale_source == "observed":
            share = float(np.mean(noise._raw == value))
            ends.append(f"a {name} at {value:g} ({share:.0%} of the noise log's runs sit on it)")
        else:
            ends.append(f"a {name} at {value:g} (declared)")
    text = (f"'{noise.metric}' has {' and '.join(ends)}: simulated runs never cross "
            f"{'them' if len(ends) > 1 else 'it'}, so a gap is a shift of "
            "each item's mean of value a that stops at the bound, and power and the MDG account for it")
    if gap is not None:
        short = [c for c in cells if c.gap_realized is not None and abs(c.gap_realized) < 0.99 * abs(gap)]
        if short:
            low = min(abs(c.gap_realized) for c in short)
            text += (f"; at the gap {gap:g} the items' means reach the bound and move by only {low:.3g} on "
                     f"average in {count_of(len(short), 'design')} (column 'reached', gap_realized)")
    stuck = [c for c in cells if math.isinf(c.mdg) and c.min_attainable_p <= alpha]
    if stuck:
        text += (f"; {count_of(len(stuck), 'design')} never {'reaches' if len(stuck) == 1 else 'reach'} power "
                 f"{power:g} because the items reach the bound "
                 "first (MDG 'never')")
    text += (f"; declare the scale with {opt('scale', 'LOW:HIGH')} if it is wider ({opt('scale', ':')} for none)"
             if noise.scale_source == "observed" else "")
    return Problem("warning", "bounded_metric", text, (), noise.metric)


# ---------------------------------------------------------------------------
# the power curve a report shows: simulated in the analysis step, drawn later
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DesignPower:
    """Power against runs per value around the design actually run, for a report's power plot.

    Simulated here, in the analysis step, so that rendering a report only draws it.

    Attributes
    ----------
    plan : Plan
        The simulated grid (``plan.gap`` is the gap shown).
    gap : float
        The true average gap the power is simulated at (three significant digits).
    why : str
        Where that gap comes from (the design's gap of interest, the MDG, or the observed gap).
    sims, seed : int
        Simulated probes per point, and the seed.
    """

    plan: Plan
    gap: float
    why: str
    sims: int
    seed: int

    def to_dict(self) -> dict:
        return {"gap": self.gap, "why": self.why, "sims": self.sims, "seed": self.seed,
                "sigma_run": _finite(self.plan.noise.sigma_run),
                "cells": [c.to_dict() for c in self.plan.cells]}


def design_power(analysis, gap_of_interest: float | None = None, *, sims: int = 300,
                 seed: int = 0) -> DesignPower | None:
    """Simulate the power curve a report shows for a paired analysis with a same-versus-same log.

    The gap is ``gap_of_interest`` when given, else the analysis's minimum detectable gap,
    else the size of the observed average gap (for orientation only). Item counts around the
    design run (n, at least 6, n + 4, 2n) and runs per value 1, 2, 5, 10, 20 and the runs
    actually made. None when there is no noise log, no gap to show, or no noise per run.

    Examples
    --------
    >>> from probestats.analyses.paired import analyze
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "a") + (s + i) % 3}
    ...         for i in range(8) for v in ("a", "b") for s in range(4)]
    >>> noise = [dict(r, variant="b" if r["variant"] == "a" else "c") for r in rows]
    >>> power = design_power(analyze(rows, metric="steps", noise=noise, mdg=False), 1.0, sims=50)
    >>> power.gap, sorted({c.items for c in power.plan.cells})
    (1.0, [8, 12, 16])
    """
    noise_checked = getattr(analysis, "noise_checked", None)
    if noise_checked is None:
        return None
    main = analysis.main
    if gap_of_interest:
        gap, why = gap_of_interest, "the gap of interest stated in the design"
    elif analysis.mdg is not None:
        gap, why = analysis.mdg, "the minimum detectable gap of the design run"
    elif main.average_gap:
        gap, why = abs(main.average_gap), "the size of the observed average gap, for orientation only"
    else:
        return None
    gap = float(f"{abs(gap):.3g}")  # the figure's title and the caption show the same number
    model = noise_model(noise_checked.frame, metric=main.metric)
    if not (model.sigma_run > 0):
        return None
    runs_a, _ = main.runs_per_value()
    n = main.n_items
    items = sorted({n, max(6, n), n + 4, 2 * n} - {0})[:4]
    runs = sorted({1, 2, 5, 10, 20, max(1, runs_a)})
    plan = plan_probe(model, items=items, runs=runs, gap=gap, metric=main.metric, alpha=analysis.alpha,
                      sims=sims, seed=seed, alternative=analysis.alternative, mdg_range=False)
    return DesignPower(plan=plan, gap=gap, why=why, sims=sims, seed=seed)


def with_design_power(analysis, gap_of_interest: float | None = None, **kwargs):
    """The analysis with its report power curve attached (``analysis.power``); other results unchanged."""
    if not hasattr(analysis, "noise_checked"):
        return analysis
    return replace(analysis, power=design_power(analysis, gap_of_interest, **kwargs))
