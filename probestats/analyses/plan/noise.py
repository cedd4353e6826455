"""The noise model of a plan: how a metric's runs vary when nothing but the draw changes.

Measured from a same-versus-same (or pilot) log: sigma per run, pooled within cells, and the runs
themselves, kept so that simulated probes resample them and keep the metric's shape (whole numbers,
floors, ceilings, ties). A bounded or whole-number metric's runs are kept as observed values in
simulation cells (:func:`simulation_pool`); an unbounded continuous one's as pooled centered residuals.
See :mod:`probestats.analyses.plan.simulate` for how a probe is drawn from the model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np
import polars as pl

from probestats.checks.columns import explode_fix
from probestats.errors import ColumnError, OptionError, Problem, count_of, either, opt
from probestats.io.columns import STRUCTURE, refuse_internal
from probestats.io.log import Log, collect
from probestats.stats.distributions import f_sf

__all__ = [
    "NoiseModel",
    "noise_model",
    "differ_weight",
    "BOUND_SHARE",
    "BOUND_MIN_RUNS",
    "POOL_MIN_RUNS",
]

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
VALUE_LIMIT = 1e100


def finite_or_none(x) -> float | None:
    """A JSON-safe float: None for None, NaN and infinities."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


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
    # bounded metric: per cell, the shift s of every run that moves the cell's mean by a gap, built when first
    # read (:attr:`_shifts`): a rate or scale change never reads it, and a plan's range builds 40 models
    _shift_cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def stated(cls, sigma: float, metric: str = "metric") -> NoiseModel:
        """A noise model from a stated sigma per run: runs are normal, not resampled.

        >>> NoiseModel.stated(2.0).to_dict()["simulation"]
        'normal runs with the stated sigma 2'
        """
        sigma = float(sigma)
        if not math.isfinite(sigma) or sigma < 0:
            raise OptionError(f"the noise sigma must be a number of 0 or more, not {sigma}")
        if sigma > VALUE_LIMIT:
            raise OptionError(f"the noise sigma {sigma:g} is too large to simulate; rescale the metric")
        return cls(metric=metric, sigma_run=sigma, df=None, n_cells=0, n_items=0, n_runs=0,
                   integer=False, minimum=None, maximum=None, source="stated")

    @property
    def bounded(self) -> bool:
        """Whether simulated runs are kept above a floor or below a ceiling."""
        return self.floor is not None or self.ceiling is not None

    @property
    def _shifts(self) -> _ShiftTable | None:
        """Per simulation cell, the run shift that moves the cell's mean by a gap (None: no bound, or no runs kept).

        Built from the simulation cells on first use and kept: the table sorts each cell's runs, so it is the
        same whatever their order."""
        if self._values is None or not self.bounded:
            return None
        if "table" not in self._shift_cache:
            self._shift_cache["table"] = _shift_table(self._values, self._sizes, self.floor, self.ceiling)
        return self._shift_cache["table"]

    @property
    def count(self) -> bool:
        """Whether the metric is a count: whole numbers of 0 or more, no ceiling, more than two values (a floor
        the log piles on, such as 1 for a count of steps, does not stop it being one).

        A gap of a count is a change of its rate (see :func:`gap_model`).

        >>> rows = [{"item": i, "n": y} for i in range(4) for y in (0, 1, 2, 2 + i)]
        >>> noise_model(rows, metric="n").count, NoiseModel.stated(1.0).count
        (True, False)
        """
        return (self._raw is not None and self.integer and self.minimum is not None and self.minimum >= 0
                and self.ceiling is None and np.unique(self._raw, return_counts=True)[0].size > 2)

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
        return how + f"; kept within {fmt_scale(self.floor, self.ceiling)} ({self.scale_source})"

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
        pool = simulation_pool(self._raw, self._means, self._cell_sizes, self.sigma_run, floor, ceiling, self.integer)
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
            "minimum": finite_or_none(self.minimum),
            "maximum": finite_or_none(self.maximum),
            "floor": finite_or_none(self.floor),
            "ceiling": finite_or_none(self.ceiling),
            "scale_source": self.scale_source,
            "source": self.source,
            "simulation": self.simulation,
            "mix": float(self.mix),
            "sigma_simulated": finite_or_none(self.sigma_simulated),
            "spread_p": finite_or_none(self.spread_p),
            "differ_weight": float(self.differ),
            "problems": [p.to_dict() for p in self.problems],
        }


def fmt_scale(floor, ceiling) -> str:
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
    distinct = np.unique(y, return_counts=True)[0].size   # counts: np.unique alone imports numpy.ma
    if distinct < 2:
        return None, None, None
    def piled(end: float) -> bool:
        on = int(np.sum(y == end))
        return on >= BOUND_MIN_RUNS and on >= BOUND_SHARE * y.size

    floor = lo if distinct == 2 or piled(lo) else None
    ceiling = hi if distinct == 2 or piled(hi) else None
    return floor, ceiling, ("observed" if floor is not None or ceiling is not None else None)


#: Points (cells x the whole log's kinks) up to which the mixture's inverse is tabled (:meth:`_ShiftTable._mixture`);
#: beyond (a large log of continuous values with a bound), each shift is found by bisection.
MIXTURE_TABLE_MAX = 20_000_000


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
    k_sizes: np.ndarray | None = None   # (cells,) kinks kept per cell, in the order of s
    #: per share w, the inverse of each cell's mixture map (see :meth:`mixed`), built once
    _mixtures: dict = field(default_factory=dict, repr=False, compare=False)

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

    def mixed(self, cell: np.ndarray, gap: np.ndarray, w: float,
              realized: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """The run shift for each (cell, gap) when a run comes from the cell with probability ``w``, else
        from the whole log (the last cell), and the gap the mixture's mean really moves by.

        The mixture moves by ``w G_c(s) + (1 - w) G_whole(s)``, non-decreasing and piecewise linear in ``s``; the
        shift that reaches a gap is read off its inverse (:meth:`_mixture`; the smallest ``s``, so
        non-decreasing in the gap). Without ``realized`` the second value is None (not computed: a simulation
        only needs the shifts).
        """
        whole = self.first.size - 1
        if w >= 1.0:
            return self.shift(cell, gap)
        if w <= 0.0:
            return self.shift(np.full_like(cell, whole), gap)
        reached = None
        if realized:
            first, last = self.limits(cell, w)
            reached = np.minimum(gap, last) if self.has_ceiling else gap
            reached = np.maximum(reached, first) if self.has_floor else reached
        if self.k_sizes is not None and (self.first.size - 1) * int(self.k_sizes[-1]) <= MIXTURE_TABLE_MAX:
            xs, ss, m_first, m_last, offset = self._mixture(w)
            return self._piecewise(gap, m_first[cell], m_last[cell], cell * offset, xs, ss), reached
        return self._bisected(cell, gap, w), reached

    def _bisected(self, cell: np.ndarray, gap: np.ndarray, w: float) -> np.ndarray:
        """The mixture's shift by bisection (for logs too large for :meth:`_mixture`'s table): 52 halvings."""
        whole = self.first.size - 1
        first, last = self.limits(cell, w)
        target = np.minimum(gap, last) if self.has_ceiling else gap
        target = np.maximum(target, first) if self.has_floor else target
        span = float(np.abs(self.s).max()) + float(np.abs(target).max()) + 1.0
        lo, hi = np.full(target.shape, -2 * span), np.full(target.shape, 2 * span)
        whole_cells = np.full_like(cell, whole)
        for _ in range(52):
            mid = 0.5 * (lo + hi)
            up = w * self.moved(cell, mid) + (1 - w) * self.moved(whole_cells, mid) >= target
            hi = np.where(up, mid, hi)
            lo = np.where(up, lo, mid)
        return hi

    def _mixture(self, w: float):
        """Each cell's mixture map ``H_c(s) = w G_c(s) + (1 - w) G_whole(s)``, inverted on the union of the two
        cells' kinks (piecewise linear between them, so the inverse is exact by interpolation; the smallest
        shift on a flat stretch), all cells in one increasing array as in :func:`_shift_table`; the whole log's
        own entry is its map alone. Built once per ``w``."""
        if w in self._mixtures:
            return self._mixtures[w]
        cells = self.first.size
        whole = cells - 1
        bounds = np.concatenate([[0], np.cumsum(self.k_sizes)])
        kinks = [self.s[bounds[c]:bounds[c + 1]] for c in range(cells)]
        xs, ss = [], []
        for c in range(cells):
            pts = kinks[c] if c == whole else np.union1d(kinks[c], kinks[whole])
            h = self.moved(np.full(pts.size, c), pts)
            if c != whole:
                h = w * h + (1 - w) * self.moved(np.full(pts.size, whole), pts)
            h = np.maximum.accumulate(h)
            keep = np.concatenate([[True], np.diff(h) > 0])   # first kink of a flat stretch: the smallest shift
            xs.append(h[keep])
            ss.append(pts[keep])
        m_first, m_last = np.array([x[0] for x in xs]), np.array([x[-1] for x in xs])
        offset = float(m_last.max() - m_first.min()) + 1.0
        table = (np.concatenate([x + c * offset for c, x in enumerate(xs)]), np.concatenate(ss), m_first, m_last,
                 offset)
        self._mixtures[w] = table
        return table


def simulation_pool(y: np.ndarray, means: np.ndarray, sizes: np.ndarray, sigma: float, floor, ceiling,
          integer: bool) -> dict:
    """The simulation cells of a noise log (the NoiseModel fields ``mix``, ``sigma_simulated``, ``_values``,
    ``_starts``, ``_sizes``; the table of run shifts, ``_shifts``, is built from them when first read); see the
    module notes.

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
                    _sizes=np.array([y.size], dtype=np.int64))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    v_cells = float(np.mean(np.add.reduceat(resid ** 2, starts) / sizes))
    v_all = float(np.var(y))
    grand = float(np.mean(y))
    b_cells = float(np.mean((means - grand) ** 2))
    # do the cells' means differ by more than their noise? (one-way ANOVA F test)
    df_between, df_within = sizes.size - 1, int(y.size - sizes.size)
    spread_p, differ = None, 1.0
    if df_between > 0 and df_within > 0 and sigma > 0:
        ss_between = float(np.sum(sizes * (means - grand) ** 2))
        spread_p = f_sf(ss_between / df_between / sigma ** 2, df_between, df_within)
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
                _sizes=all_sizes)


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
                       x_plain=np.concatenate(xs), k_sizes=np.array([sc.size for sc in ss], dtype=np.int64))


def frame_and_metric(source, metric):
    """A polars frame with canonical columns, the metric name, the source name and problems."""
    problems: tuple[Problem, ...] = ()
    name = "the log"

    if isinstance(source, Log):
        frame = _columns_needed(source, metric)   # only the columns the model reads
        name, problems = source.source, tuple(source.problems)   # what reading it said (an option that did not apply)
    elif hasattr(source, "frame"):
        frame = source.frame
        metric = metric or getattr(source, "metric", None)
        log = getattr(source, "log", source)
        name = getattr(log, "source", name)
    else:
        # lazy: looked up when called, so a test's replacement of it on its module is seen
        from probestats.io.read import read_log

        log = read_log(source, metric=metric)
        frame, name, problems = _columns_needed(log, metric), log.source, tuple(log.problems)
    if not metric:
        raise OptionError(f"name the metric column ({either('metric=COL', '--metric COL')})")

    if metric in STRUCTURE:  # a column that numbers the runs (seed, time) is no metric
        refuse_internal("metric", metric)
    if not isinstance(frame, pl.DataFrame):
        frame = pl.DataFrame(frame)
    return frame, metric, name, problems


def _columns_needed(log, metric: str | None) -> pl.DataFrame:
    """The item, value and metric columns of a log, read in a streaming pass (a noise or pilot log's
    replies and prompts stay on disk); the whole log when one of them is missing (its message lists
    the headers)."""
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
    frame, metric, name, problems = frame_and_metric(log, metric)
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
    elif isinstance(raw.dtype, (pl.List, pl.Array)):
        raise ColumnError(f"the metric '{metric}' holds lists, not one value per run; {explode_fix(metric)}")
    else:
        raise ColumnError(f"the metric '{metric}' holds {raw.dtype} values, not numbers; choose a numeric metric")
    values = values.fill_nan(None)
    n_inf = int(values.is_infinite().sum())
    if n_inf:
        one = n_inf == 1
        raise ColumnError(f"{count_of(n_inf, 'value')} of '{metric}' in the noise log {'is' if one else 'are'} "
                          f"infinite; write {'it as a finite number' if one else 'them as finite numbers'} or clear "
                          f"the {'cell' if one else 'cells'}")
    if values.abs().max() is not None and values.abs().max() > VALUE_LIMIT:
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
    pool = simulation_pool(y, means, sizes, sigma, floor, ceiling, integer)
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


def as_noise(noise, metric=None, scale=None) -> NoiseModel:
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
