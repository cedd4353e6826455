"""Simulated probes of one design: the noise drawn from a noise model, a gap added, the exact test decided.

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
is non-decreasing in ``delta``, as :class:`Rejections` needs. A bounded metric keeps
value ``a``'s simulated runs in memory (8 bytes per run of each design); an unbounded
one only keeps per-item sums.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from probestats.analyses.plan.noise import NoiseModel
from probestats.errors import OptionError
from probestats.stats.decide import decide_rejections
from probestats.stats.hypotests import sign_test
from probestats.vocabulary import check_alternative

__all__ = ["Draws", "Rejections", "draw_probes", "runs_array", "direction_of", "reject_rate", "sign_test_rate",
           "approx_power", "approx_mdg", "MAX_DOUBLINGS"]

#: Doublings a bracket search tries before it gives up.
MAX_DOUBLINGS = 40


def runs_array(runs, items: int, name: str) -> np.ndarray:
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

    shape = np.broadcast_shapes(np.shape(v), np.shape(mu))
    v = np.broadcast_to(np.asarray(v, dtype=float), shape).ravel()
    mu = np.broadcast_to(np.asarray(mu, dtype=float), shape).ravel()
    out = np.zeros(mu.shape)
    big = mu > 200
    if big.any():
        out[big] = poisson.ppf(v[big], mu[big])
    small = np.flatnonzero(~big)
    if small.size:
        m, q = mu[small], v[small]
        pmf = np.exp(-m)
        k, left = _first_reach(pmf, pmf.copy(), q, False, lambda j, m: m / (j + 1), (m,), max_steps=2001)
        if left.size:   # rounding left a CDF a hair below q: scipy decides the rest
            k[left] = poisson.ppf(q[left], m[left])
        out[small] = k
    return out.reshape(shape)


#: A distribution function summed term by term is off by a few units in the last place per term (below 1e-13
#: over the 300 terms of a large count), and ``1 - v`` by one unit of ``v``'s: within this relative distance
#: of ``v``, plus :data:`_CDF_FLOOR`, it counts as reaching ``v``, so a ``v`` exactly at a step
#: (Binomial(11, 1/2) at 1/2) gives the exact quantile, not the count after it.
_CDF_ROUNDING = 1e-12
_CDF_FLOOR = 4 * np.finfo(float).eps


def _short_of(cdf: np.ndarray, goal: np.ndarray, strict: bool) -> np.ndarray:
    """Where the summed ``cdf`` has not yet reached ``goal`` (``strict``: not yet passed it), rounding allowed for."""
    slack = goal * _CDF_ROUNDING + _CDF_FLOOR
    return cdf <= goal + slack if strict else cdf < goal - slack


def _first_reach(pmf: np.ndarray, cdf: np.ndarray, thr: np.ndarray, strict: bool, factor, params: tuple,
                 cap: np.ndarray | None = None, max_steps: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per element, the count at which a distribution function summed term by term first reaches its goal.

    ``pmf`` and ``cdf`` hold each element's mass at 0, ``thr`` its goal with the rounding slack of
    :func:`_short_of` already applied (the count is short while ``cdf < thr``, or ``cdf <= thr`` when
    ``strict``), ``factor(j, *params)`` the ratio of the mass at ``j + 1`` to the mass at ``j``; a count never
    passes ``cap`` (a binomial's n). Returns the counts, and the elements still short after ``max_steps`` terms
    (their count is ``max_steps``). The elements still short are kept in arrays of their own, packed as they
    finish, so each term costs a few passes over them and not a gather and a scatter of every array.
    """
    k = np.zeros(pmf.size)
    short = cdf <= thr if strict else cdf < thr
    if cap is not None:
        short &= cap > 0
    pos = np.flatnonzero(short)
    arrays = [pmf[pos], cdf[pos], thr[pos], *(x[pos] for x in params)] + ([] if cap is None else [cap[pos]])
    alive = np.ones(pos.size, dtype=bool)
    j = 0
    while pos.size:
        if pos.size <= _BLOCK_BELOW and (max_steps is None or j + _BLOCK_TERMS <= max_steps):
            # few elements left, often far in a long tail: the next terms of all of them at once
            if not alive.all():
                pos, arrays = pos[alive], [x[alive] for x in arrays]
            arrays, pos, j = _block_of_terms(arrays, pos, j, k, strict, factor, len(params), cap is not None)
            alive = np.ones(pos.size, dtype=bool)
            continue
        w_pmf, w_cdf, w_thr = arrays[:3]
        w_pmf *= factor(j, *arrays[3:3 + len(params)])
        j += 1
        w_cdf += w_pmf
        still = w_cdf <= w_thr if strict else w_cdf < w_thr
        if cap is not None:
            still &= j < arrays[-1]
        k[pos[alive & ~still]] = j
        alive &= still
        live = int(np.count_nonzero(alive))
        if max_steps is not None and j >= max_steps:
            pos = pos[alive]
            k[pos] = j
            return k, pos
        if live < 0.75 * pos.size:
            pos = pos[alive]
            arrays = [x[alive] for x in arrays]
            alive = np.ones(live, dtype=bool)
    return k, pos


#: Elements still short up to which :func:`_first_reach` sums :data:`_BLOCK_TERMS` terms of each at once.
_BLOCK_BELOW = 4096
_BLOCK_TERMS = 32


def _block_of_terms(arrays, pos, j, k, strict, factor, n_params, capped):
    """The next :data:`_BLOCK_TERMS` terms of the elements still short (every one of them alive), by a running
    product and a running sum down a block: the same products and sums, in the same order, as term by term."""
    w_pmf, w_cdf, w_thr = arrays[:3]
    steps = np.arange(j, j + _BLOCK_TERMS, dtype=np.float64)[:, None]
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        ratios = factor(steps, *arrays[3:3 + n_params])
        pmfs = np.multiply.accumulate(np.vstack([w_pmf[None, :], ratios]), axis=0)[1:]
        cdfs = np.add.accumulate(np.vstack([w_cdf[None, :], pmfs]), axis=0)[1:]
    still = cdfs <= w_thr if strict else cdfs < w_thr
    if capped:
        still &= steps + 1 < arrays[-1]
    done = ~still
    first = np.argmax(done, axis=0)
    finished = done[first, np.arange(pos.size)]
    k[pos[finished]] = j + 1 + first[finished]
    keep = ~finished
    arrays = [x[keep] for x in arrays]
    arrays[0] = pmfs[-1, keep]
    arrays[1] = cdfs[-1, keep]
    return arrays, pos[keep], j + _BLOCK_TERMS


def _binomial_quantile(v: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The Binomial(``n``, ``p``) quantile at ``v`` (the smallest k with CDF(k) >= v, rounding allowed for as
    :data:`_CDF_ROUNDING` says), elementwise.

    The distribution function summed term by term from the nearer end: from 0 for ``p <= 1/2``
    (``pmf(k + 1) = pmf(k) (n - k) / (k + 1) p / (1 - p)``), else over the count of failures ``d = n - k``
    (the quantile is ``n - j``, ``j`` the smallest count of failures whose CDF exceeds ``1 - v``), so the
    steps number about the smaller of the two means: many times faster than scipy's for the arrays a power
    search asks for. Non-decreasing in ``p`` at a fixed ``v``.

    >>> from scipy.stats import binom
    >>> v, n, p = np.array([0.1, 0.5, 0.99, 0.3, 0.7]), np.array([5, 40, 200, 0, 12]), np.array([0.3, 0.9, 0.97, 0.5, 1.0])
    >>> bool(np.all(_binomial_quantile(v, n, p) == binom.ppf(v, n, p)))
    True
    """
    v, n, p = (np.broadcast_to(np.asarray(x, dtype=float), np.broadcast_shapes(np.shape(v), np.shape(n), np.shape(p)))
               for x in (v, n, p))
    out = np.zeros(v.shape)
    low = p <= 0.5
    for mask, q, target, strict in ((low, p, v, False), (~low, 1.0 - p, 1.0 - v, True)):
        idx = np.flatnonzero(mask)
        if not idx.size:
            continue
        m, qq, goal = n.ravel()[idx], q.ravel()[idx], target.ravel()[idx]
        with np.errstate(divide="ignore"):
            pmf = np.where(qq < 1.0, np.exp(m * np.log1p(-qq)), (m == 0).astype(float))
        ratio = np.where(qq < 1.0, qq / np.where(qq < 1.0, 1.0 - qq, 1.0), 0.0)
        slack = goal * _CDF_ROUNDING + _CDF_FLOOR
        k, _ = _first_reach(pmf, pmf.copy(), goal + slack if strict else goal - slack, strict,
                            lambda j, m, ratio: (m - j) / (j + 1) * ratio, (m, ratio), cap=m)
        out.ravel()[idx] = m - k if strict else k
    return out


@dataclass(frozen=True)
class Draws:
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
    shifts: object = None            # the noise model's table of run shifts per cell (NoiseModel._shifts)
    mix: float = 1.0                 # share of an item's runs drawn from its cell (else the whole log)
    floor: float = -math.inf
    ceiling: float = math.inf
    # scale shift only: value a's part (mean of its residuals, or the sum of its whole-number runs),
    # the level of each simulated item's cell, the log's mean, and uniforms for the rate draws
    rate: tuple | None = None
    #: how a rate moves: "scale" (every item's rate times 1 + gap / mean) or "add" (a count's rate plus the gap)
    rate_mode: str = "scale"
    #: a count's negative binomial size r (its variance mu + mu^2 / r, from the log's mean and pooled variance) when
    #: it spreads more than a Poisson count; None: Poisson. A rate raised from lambda to lambda + g then adds
    #: g + (2 lambda g + g^2) / r to a run's variance, drawn as negative binomial extra events
    nb_size: float | None = None

    @property
    def lattice(self) -> int | None:
        """A whole number ``L`` with every simulated gap times ``L`` whole (whole-number runs), else None."""
        return int(np.lcm.reduce(self.scale)) if self.integer else None

    def take(self, rows: np.ndarray) -> Draws:
        """The same draws for the simulated probes ``rows`` only."""
        pick = lambda x: x if x is None or np.ndim(x) < 2 else x[rows]  # noqa: E731
        runs_a = self.runs_a
        if isinstance(runs_a, np.ndarray):
            runs_a = runs_a[rows]
        elif runs_a is not None:
            runs_a = tuple(r[rows] for r in runs_a)
        rate = None if self.rate is None else tuple(pick(x) for x in self.rate)
        return replace(self, base=self.base[rows], u=self.u[rows], z=self.z[rows], runs_a=runs_a,
                       cell=pick(self.cell), rate=rate)

    def gaps(self, delta: float, tau: float = 0.0, rows: np.ndarray | None = None) -> np.ndarray:
        """The simulated item gaps (probes x items) at a true average gap ``delta`` (of ``rows`` only, when given)."""
        if rows is not None:
            return self.take(rows).gaps(delta, tau)
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
                moved[down] = _binomial_quantile(v[down], part, np.minimum(np.maximum(r, 0.0), 1.0)) - part
            up = true > 0
            if up.any():
                mean = np.broadcast_to(ka, true.shape)[up] * true[up]
                if self.nb_size is None:
                    moved[up] = _poisson_quantile(v[up], mean)
                else:
                    lv = np.broadcast_to(level, true.shape)[up]
                    moved[up] = _nbinom_quantile(v[up], mean, 1.0 + (2.0 * lv + true[up]) / self.nb_size)
            return (self.base + moved * (self.scale // self.ka)) / self.scale
        r = np.maximum(1.0 + true / grand, 0.0)
        if not self.integer:
            return self.base + true * a_part / grand     # a_part: value a's mean level
        thin = _binomial_quantile(v, a_part, np.minimum(r, 1.0))
        mu = ka * np.maximum(r - 1.0, 0.0) * level
        extra = _poisson_quantile(v, mu)
        moved = np.where(r < 1.0, thin, a_part + extra) - a_part
        return (self.base + moved * (self.scale // self.ka)) / self.scale

    def _bounded_gaps(self, true: np.ndarray) -> np.ndarray:
        # every run of value a moves by the cell's shift s and is clipped; a whole-number run
        # stored as y + w becomes floor(y + w + s): y + floor(s), or one step more with
        # probability s - floor(s). Each run, and so each gap, is non-decreasing in s and s in the gap.
        s, _ = self.shifts.mixed(self.cell, true, self.mix, realized=False)
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


def _nb_size(noise: NoiseModel) -> float | None:
    """The negative binomial size ``r = mu^2 / (sigma^2 - mu)`` of a count that spreads more than a Poisson count
    (``sigma^2`` the pooled within-cell variance, ``mu`` the log's mean); None for one that does not."""
    mean = float(np.mean(noise._raw)) if noise._raw is not None else 0.0
    extra = noise.sigma_run ** 2 - mean
    return mean * mean / extra if mean > 0 and extra > 1e-9 * mean else None


def _check_engine(shift: str, noise: NoiseModel) -> None:
    """The simulation's own check of how a gap acts: ``steps`` needs whole numbers, ``scale`` a noise log of runs
    that are never negative with a positive mean (the mechanisms are checked for users in
    :func:`probestats.analyses.plan.mechanisms.check_mechanism`)."""
    if shift not in SHIFTS:
        raise OptionError(f"the simulation's shift must be one of {', '.join(SHIFTS)}, not {shift!r}")
    if shift == "steps" and not noise.integer:
        raise OptionError(f"whole steps need a whole-number metric, and '{noise.metric}' is not one")
    if shift == "scale" and (noise._values is None or noise.minimum is None or noise.minimum < 0
                             or not float(np.mean(noise._raw)) > 0):
        raise OptionError(f"a scale change needs a noise log of '{noise.metric}' whose runs are 0 or more")


def _nbinom_quantile(v: np.ndarray, mean: np.ndarray, disp) -> np.ndarray:
    """The quantile at ``v`` of a negative binomial count with ``mean`` and variance ``disp`` times it (``disp`` > 1,
    one number or one per element), its distribution function summed term by term; non-decreasing in ``mean``
    (and in ``disp``) at a fixed ``v``.

    >>> from scipy.stats import nbinom
    >>> v, mean = np.array([0.1, 0.5, 0.97, 0.3]), np.array([0.5, 4.0, 30.0, 0.0])
    >>> ref = nbinom.ppf(v[:3], mean[:3] / 1.5, 1 / 2.5)      # n = mean / (disp - 1), p = 1 / disp
    >>> _nbinom_quantile(v, mean, 2.5).tolist() == ref.tolist() + [0.0]
    True
    """
    v, mean = np.asarray(v, dtype=float), np.asarray(mean, dtype=float)
    out = np.zeros(mean.shape)
    idx = np.flatnonzero(mean > 0)
    if not idx.size:
        return out
    d = np.broadcast_to(np.asarray(disp, dtype=float), mean.shape)[idx]
    q = 1.0 - 1.0 / d
    n = mean[idx] / (d - 1.0)
    goal = v[idx]
    pmf = np.exp(-n * np.log(d))
    slack = goal * _CDF_ROUNDING + _CDF_FLOOR
    # past 100,000 terms rounding left a CDF a hair below v: the count reached is taken
    k, _ = _first_reach(pmf, pmf.copy(), goal - slack, False, lambda j, n, q: (j + n) / (j + 1) * q, (n, q),
                        max_steps=100_001)
    out[idx] = k
    return out


#: How the simulation moves value a's runs: a shift (a count's rate change; clipped at bounds), a scale
#: change, or whole steps spread evenly over an item's runs.
SHIFTS = ("additive", "scale", "steps")


def draw_probes(noise: NoiseModel, items: int, runs_a, runs_b, sims: int, seed, shift: str = "additive") -> Draws:
    """Simulate the noise part of ``sims`` probes with ``items`` items (see the module notes)."""
    _check_engine(shift, noise)
    rng = np.random.default_rng(seed)
    ka = runs_array(runs_a, items, "runs_a")
    kb = runs_array(runs_b, items, "runs_b")
    z = rng.standard_normal((sims, items))
    u = rng.random((sims, items))
    if noise._values is None:
        sd = noise.sigma_run * np.sqrt(1.0 / ka + 1.0 / kb)
        base = rng.standard_normal((sims, items)) * sd
        return Draws(base, u, z, ka, np.ones(items, dtype=np.int64), False)
    # a count's gap is a change of its rate (additive, scale); otherwise a shift, clipped at any bound
    scaled = shift == "scale" or (shift == "additive" and noise.count)
    bounded = not scaled and noise._shifts is not None   # (the table is built only where it is used)
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
        return Draws(base, u, z, ka, scale, integer, rate=(a_part, level, grand, v),
                      rate_mode="scale" if shift == "scale" else "add", nb_size=_nb_size(noise))
    if not bounded:
        return Draws(base, u, z, ka, scale, integer)
    return Draws(base, u, z, ka, scale, integer, runs_a=runs if same else tuple(runs), cell=cell,
                  shifts=noise._shifts, mix=mix,
                  floor=-math.inf if noise.floor is None else float(noise.floor),
                  ceiling=math.inf if noise.ceiling is None else float(noise.ceiling))


def direction_of(alternative: str) -> float:
    check_alternative(alternative)
    return -1.0 if alternative == "less" else 1.0


class Rejections:
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

    def __init__(self, draws: Draws, tau: float, alpha: float, alternative: str, direction: float | None = None):
        self.draws, self.tau, self.alternative = draws, tau, alternative
        self.limit = alpha * (1 + 1e-12)
        # the direction the gap grows in: the tested one, or either one of a two-sided test
        self.sign = direction_of(alternative) if direction is None else float(direction)
        self.saturation = draws.saturation(self.sign, tau)   # no gap changes beyond it
        sims = draws.base.shape[0]
        self.reject_from = np.full(sims, np.inf)    # smallest gap seen rejecting (sum >= 0 there)
        self.keep_until = np.full(sims, -np.inf)    # largest gap seen not rejecting
        self.ordered_from = np.full(sims, np.inf)   # smallest gap seen with the gaps summing to 0 or more
        self.computed = 0                           # p-values computed (for benchmarks)

    def rate(self, delta: float) -> float:
        """The share of simulated probes that reject at ``delta``; only the probes whose decision is not
        known from earlier gaps are simulated and decided again (their gaps' sums only grow with the gap)."""
        two_sided = self.alternative == "two-sided"
        known_reject = self.reject_from <= delta
        known_keep = self.keep_until >= delta
        if two_sided:
            known_keep &= self.ordered_from <= delta
        todo = np.flatnonzero(~(known_reject | known_keep))
        reject = known_reject.copy()
        if todo.size:
            whole = todo.size == reject.size
            gaps = self.draws.gaps(self.sign * delta, self.tau, rows=None if whole else todo)
            new = decide_rejections(gaps, self.limit, self.alternative, self.draws.lattice)
            self.computed += int(todo.size)
            reject[todo] = new
            ordered = self.sign * gaps.sum(axis=1) >= 0 if two_sided else np.ones(todo.size, dtype=bool)
            seen = todo[ordered]
            self.ordered_from[seen] = np.minimum(self.ordered_from[seen], delta)
            hit = todo[new & ordered]
            self.reject_from[hit] = np.minimum(self.reject_from[hit], delta)
            miss = todo[~new]
            self.keep_until[miss] = np.maximum(self.keep_until[miss], delta)
        return float(reject.mean())


def reject_rate(draws: Draws, delta: float, tau: float, alpha: float, alternative: str) -> float:
    return Rejections(draws, tau, alpha, alternative).rate(delta)


def sign_test_rate(draws: Draws, delta: float, tau: float, alpha: float, alternative: str) -> float:
    gaps = draws.gaps(direction_of(alternative) * delta, tau)
    pos = (gaps > 0).sum(axis=1)
    neg = (gaps < 0).sum(axis=1)
    pairs, inverse = np.unique(np.stack([pos, neg], axis=1), axis=0, return_inverse=True)
    pv = np.array([sign_test([1.0] * int(p_) + [-1.0] * int(n_), alternative=alternative).pvalue
                   if p_ + n_ else 1.0 for p_, n_ in pairs])
    return float(np.mean(pv[np.ravel(inverse)] <= alpha * (1 + 1e-12)))


def approx_power(delta: float, items: int, gap_sd: float, tau: float, alpha: float, alternative: str):
    """Paired t-test power with effect size ``delta / sqrt(gap_sd^2 + tau^2)``, a cross-check.

    The noncentral t's tails beyond Student's critical values (``scipy.special.nctdtr``), as statsmodels'
    ``TTestPower`` computes them: ``P(T > t_crit) + P(T < -t_crit)`` two-sided, ``P(T > t_crit)`` one-sided,
    ``T`` noncentral t on ``items - 1`` degrees of freedom with noncentrality ``effect sqrt(items)``.

    >>> round(approx_power(1.0, 8, 1.0, 0.0, 0.05, "two-sided"), 4)   # statsmodels TTestPower: 0.68083
    0.6808
    """
    spread = math.sqrt(gap_sd ** 2 + tau ** 2)
    if items < 2 or spread == 0.0:
        return None
    from scipy.special import nctdtr, stdtrit

    df = items - 1
    nc = abs(delta) / spread * math.sqrt(items)
    a = alpha / 2 if alternative == "two-sided" else alpha
    crit = float(stdtrit(df, 1 - a))
    power = 1.0 - float(nctdtr(df, nc, crit))
    if alternative == "two-sided":
        power += float(nctdtr(df, nc, -crit))
    return power


def approx_mdg(items: int, gap_sd: float, tau: float, alpha: float, target: float, alternative: str):
    """The gap at which the paired t-test approximation reaches the target power."""
    spread = math.sqrt(gap_sd ** 2 + tau ** 2)
    if items < 2 or spread == 0.0:
        return None
    f = lambda d: approx_power(d, items, gap_sd, tau, alpha, alternative) - target  # noqa: E731
    hi = spread
    for _ in range(MAX_DOUBLINGS):
        if f(hi) >= 0:
            from scipy.optimize import brentq

            try:
                return float(brentq(f, 0.0, hi, xtol=1e-10 * spread))
            except (ValueError, RuntimeError):  # the t power is NaN near a power of 1: no guess
                return None
        hi *= 2
    return None
