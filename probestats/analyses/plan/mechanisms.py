"""How a gap acts: the mechanisms a plan can simulate, which ones the noise log leaves plausible, and a pilot's word.

A gap between two values can act on value a's runs in more than one way, and power depends on which:

- ``level``: the level shifts and the spread stays (a whole-number metric moves by whole steps spread
  evenly over an item's runs; a bounded one stops at its bounds);
- ``rate``: a count's rate changes, so its spread changes with it (extra events drawn as counts that spread
  as the log's own counts do, or each event kept with a probability), or a 0/1 rate moves and each run is
  drawn at the new rate;
- ``scale``: value a's mean is multiplied (a rate ratio for counts, the runs multiplied otherwise).

``mechanism="auto"`` (the default) reads the metric's kind from the noise log (0/1, a bounded rating with its
scale, a count, continuous) and keeps the mechanisms the log leaves plausible; where it keeps more than one,
the plan simulates each, and each figure it headlines is the one that promises least (the largest MDG in each
direction, the smallest power), the others beside it. A pilot of the real comparison can decide between them
(:func:`read_pilot`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from probestats.analyses.plan.noise import NoiseModel, fmt_scale
from probestats.errors import OptionError, opt
from probestats.stats.distributions import chi2_cdf, t_sf

__all__ = ["MECHANISMS", "MECHANISM_CHOICES", "Mechanisms", "choose_mechanisms", "metric_kind", "dispersion",
           "gap_model", "mechanism_text", "engine_shift", "check_mechanism", "read_pilot", "infer_rating_scale",
           "rating_text", "COUNT_SKEW", "average_ranks", "spearman_greater"]

MECHANISMS = ("level", "rate", "scale")
MECHANISM_CHOICES = ("auto",) + MECHANISMS
#: p below which a count's runs are taken to spread less than Poisson counts do (the dispersion test, lower
#: tail): a rate change made of independent events would then add more spread than the metric shows.
UNDERDISPERSED_P = 0.01
#: Share of a whole-number metric's runs on multiples of 5, at or above which runs within 0-100 are read as a
#: rating on 0-100 (people and judges rate in round numbers; counts do not pile on them).
ROUND_SHARE = 0.5
#: ... and the distinct values it needs (a short count can sit on multiples of 5 by chance).
ROUND_MIN_VALUES = 5
#: Skewness at or above which whole numbers from 0 are a count's long right tail, not a rating filling its scale
#: (a negative-binomial count of mean 2 has about 2.5; Poisson counts of mean 1, 1; ratings on 0-100 near 0).
COUNT_SKEW = 1.0
#: p below which the noise log's cell spreads are taken to grow with their levels (Spearman's test), or its
#: runs to be skewed to the right: a multiplicative change is then plausible for a positive continuous metric.
SPREAD_TREND_P = 0.01
#: One-sided p below which a count's cell variances are taken to grow with the cells' means (Spearman's test,
#: among items that differ in level): a level shift, which leaves an item's spread where it was, is then ruled out.
RATE_TREND_P = 0.01
#: Two-sided level of the pilot's test of each mechanism's prediction of how value a's runs spread.
PILOT_LEVEL = 0.01

_WORDS = {
    ("level", "count"): "shifts the count",
    ("rate", "count"): "changes its rate",
    ("scale", "count"): "multiplies its rate",
    ("level", "continuous"): "shifts the level",
    ("scale", "continuous"): "multiplies it",
    ("level", "rating"): "shifts the rating",
    ("rate", "binary"): "moves the 0/1 rate",
}


@dataclass(frozen=True)
class Mechanisms:
    """How the plan assumes a gap acts on value a's runs, and why.

    Attributes
    ----------
    kind : {"binary", "rating", "count", "continuous"}
        The metric's kind as the noise log shows it.
    kind_text : str
        What in the noise log shows it.
    candidates : tuple of str
        The mechanisms simulated (``level``, ``rate``, ``scale``); with more than one, each figure the plan
        headlines is the least promising of them, the others beside it.
    source : {"declared", "metric", "pilot"}
        Who chose them: the caller (``mechanism``), the metric's kind and the noise log, or a pilot.
    reason : str
        Why these and not the others, in one sentence.
    dispersion : float or None
        For counts: the noise log's pooled within-cell variance over its mean (1 for Poisson counts).
    ruled_out : tuple of str
        Mechanisms the noise log or the pilot ruled out.
    """

    kind: str
    kind_text: str
    candidates: tuple[str, ...]
    source: str
    reason: str
    dispersion: float | None = None
    ruled_out: tuple[str, ...] = ()

    @property
    def several(self) -> bool:
        """Whether the plan simulates more than one mechanism (the log cannot tell which holds)."""
        return len(self.candidates) > 1

    def words(self, mechanism: str) -> str:
        """``shifts the count``, ``changes its rate``: what a mechanism does to this kind of metric."""
        return _WORDS.get((mechanism, self.kind), {"level": "shifts the level", "rate": "changes the rate",
                                                   "scale": "multiplies the mean"}[mechanism])

    def to_dict(self) -> dict:
        return {"kind": self.kind, "kind_text": self.kind_text, "candidates": list(self.candidates),
                "source": self.source, "reason": self.reason,
                "dispersion": None if self.dispersion is None else float(self.dispersion),
                "ruled_out": list(self.ruled_out)}


def metric_kind(noise: NoiseModel) -> tuple[str, str]:
    """The metric's kind as the noise log shows it, and what shows it.

    >>> from probestats.analyses.plan.noise import noise_model
    >>> metric_kind(noise_model([{"item": i, "x": y} for i in range(3) for y in (0, 1, 1)], metric="x"))[0]
    'binary'
    >>> metric_kind(noise_model([{"item": i, "x": y} for i in range(4) for y in (0, 1, 2, 2 + i)], metric="x"))[0]
    'count'
    >>> metric_kind(NoiseModel.stated(1.0))[0]
    'continuous'
    """
    if noise._raw is None:
        return "continuous", "a stated sigma: normal runs"
    distinct = int(np.unique(noise._raw, return_counts=True)[0].size)
    ends = fmt_scale(noise.floor, noise.ceiling)
    if distinct <= 2 and noise.floor is not None and noise.ceiling is not None:
        return "binary", f"two values, {noise.floor:g} and {noise.ceiling:g}"
    if noise.ceiling is not None or (noise.floor is not None and not noise.count):
        why = f": {rating_text(noise)}" if noise.scale_source == "inferred" else ""
        return "rating", f"a bounded scale {ends} ({noise.scale_source}{why})"
    if noise.count:
        skew = right_tail(noise._raw)
        tail = (f", piled near 0 with a long right tail (skewness {skew:.2g}): a count, not a scale they fill"
                if skew is not None and skew >= COUNT_SKEW else "")
        return "count", f"whole numbers of 0 or more ({distinct} values from {noise.minimum:g} to {noise.maximum:g}, no ceiling{tail})"
    what = "whole numbers" if noise.integer else "numbers"
    return "continuous", f"{what} from {noise.minimum:g} to {noise.maximum:g}"


def dispersion(noise: NoiseModel) -> tuple[float | None, float | None]:
    """A count's dispersion (pooled within-cell variance over the log's mean) and the p that it spreads as
    much as a Poisson count does (the lower tail of the dispersion test: ``df * dispersion`` is about
    chi-square on the pooled degrees of freedom for Poisson runs). (None, None) without runs or a mean.

    >>> from probestats.analyses.plan.noise import noise_model
    >>> d, p = dispersion(noise_model([{"item": i, "n": y} for i in range(20) for y in (4, 5, 4, 3)], metric="n"))
    >>> round(d, 3), p < 0.001     # variance 2/3 at a mean of 4: far less than a Poisson count's
    (0.167, True)
    """
    if noise._raw is None or noise.df is None or noise.df < 1:
        return None, None
    mean = float(np.mean(noise._raw))
    if not mean > 0:
        return None, None
    phi = noise.sigma_run ** 2 / mean
    return float(phi), chi2_cdf(phi * noise.df, noise.df)


def average_ranks(x) -> np.ndarray:
    """Ranks from 1, ties given their average rank (``scipy.stats.rankdata``'s default).

    >>> average_ranks([10.0, 30.0, 20.0, 20.0]).tolist()
    [1.0, 4.0, 2.5, 2.5]
    """
    x = np.asarray(x, dtype=float)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    first = np.concatenate([[True], xs[1:] != xs[:-1]])
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], x.size)       # each run of ties holds ranks starts + 1 .. ends
    ranks = np.empty(x.size)
    ranks[order] = ((starts + 1 + ends) / 2.0)[np.cumsum(first) - 1]
    return ranks


def spearman_greater(x, y) -> tuple[float, float]:
    """Spearman's rho of ``x`` and ``y`` and the one-sided p that it is above 0, with ``scipy.stats.spearmanr``'s
    t approximation (``t = rho sqrt((n - 2) / (1 - rho^2))`` on ``n - 2`` degrees of freedom). ``(nan, nan)`` when
    either is constant, or with fewer than three pairs. Computed here, so a plan does not import scipy.stats for it.

    >>> rho, p = spearman_greater([1, 2, 3, 4, 5, 6], [1, 3, 2, 4, 6, 5])
    >>> round(rho, 4), round(p, 4)     # rho = 1 - 6 x 4 / (6 x 35) = 31/35: t = 3.8158 on 4 df
    (0.8857, 0.0094)
    """
    rx, ry = average_ranks(x), average_ranks(y)
    n = rx.size
    if n < 3 or np.ptp(rx) == 0 or np.ptp(ry) == 0:
        return math.nan, math.nan
    rho = float(np.corrcoef(rx, ry)[1, 0])
    if rho >= 1.0:
        return rho, 0.0
    if rho <= -1.0:
        return rho, 1.0
    t = rho * math.sqrt((n - 2) / ((rho + 1.0) * (1.0 - rho)))
    return rho, t_sf(t, n - 2)


def _variance_tracks_rate(noise: NoiseModel) -> str | None:
    """Why a count's gap is a change of its rate (None: the log does not say): its items differ in level and
    the cells' variances grow with their means, as Poisson-like counts' do (a shift would not move them)."""
    sizes, means = noise._cell_sizes, noise._means
    if sizes is None or sizes.size < 8 or noise.differ < 0.5 or not np.ptp(means) > 0:
        return None
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    resid = noise._raw - np.repeat(means, sizes)
    var = np.add.reduceat(resid ** 2, starts) / np.maximum(sizes - 1, 1)
    rho, p = spearman_greater(means, var)
    if np.isfinite(rho) and rho > 0 and p < RATE_TREND_P:
        return (f"its items differ in level and their variances grow with their means (Spearman {rho:.2f}), as a "
                "count's do when its rate changes")
    return None


def _spread_tracks_level(noise: NoiseModel) -> str | None:
    """Why a multiplicative change is plausible for a positive continuous metric (None: the log does not say so):
    its cells' spreads grow with their levels, or its runs are skewed to the right within cells."""
    sizes, means = noise._cell_sizes, noise._means
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    resid = noise._raw - np.repeat(means, sizes)
    if sizes.size >= 5 and np.ptp(means) > 0:
        sd = np.sqrt(np.add.reduceat(resid ** 2, starts) / np.maximum(sizes - 1, 1))
        rho, p = spearman_greater(means, sd)
        if np.isfinite(rho) and rho > 0 and p < SPREAD_TREND_P:
            return f"its cells' spreads grow with their levels (Spearman {rho:.2f})"
    if resid.size >= 20 and np.std(resid) > 0:
        from scipy.stats import skewtest   # scipy.stats (0.5 s to import) only where the skew is tested

        stat, p = skewtest(resid)
        if stat > 0 and p / 2 < SPREAD_TREND_P:
            return "its runs are skewed to the right"
    return None


def right_tail(y: np.ndarray) -> float | None:
    """The skewness of runs that start at 0 (None: they do not, or they do not vary): a count's runs pile near 0
    and thin out to the right, so theirs is large (:data:`COUNT_SKEW` or more), where a rating's runs fill its scale.

    >>> round(right_tail(np.array([0., 0, 0, 0, 1, 1, 2, 3, 5, 20])), 2)
    2.34
    >>> right_tail(np.array([1., 2, 3])) is None      # not from 0
    True
    """
    if y.size < 3 or float(y.min()) != 0.0:
        return None
    sd = float(np.std(y))
    if not sd > 0:
        return None
    return float(np.mean((y - y.mean()) ** 3) / sd ** 3)


def infer_rating_scale(noise: NoiseModel) -> NoiseModel:
    """The noise model on the scale 0-100 when a whole-number metric within it fills that scale in round numbers:
    at least :data:`ROUND_SHARE` of its runs other than 0 on multiples of 5, :data:`ROUND_MIN_VALUES` values or
    more, and not the pile at 0 with a long right tail (skewness :data:`COUNT_SKEW` or more, :func:`right_tail`)
    that a count makes. Otherwise the model as it is (and always when a scale was declared).

    A count's most common value is often 0, a multiple of 5: its zeros say nothing of round numbers, so they are
    left out of the share.

    >>> from probestats.analyses.plan.noise import noise_model
    >>> rows = [{"item": i, "s": y} for i in range(10) for y in (60, 70, 75, 80, 65, 72)]
    >>> rated = infer_rating_scale(noise_model(rows, metric="s"))
    >>> rated.floor, rated.ceiling, rated.scale_source
    (0.0, 100.0, 'inferred')
    >>> counts = [{"item": i, "n": y} for i in range(10) for y in (0, 0, 0, 0, 0, 0, 5, 10, 20 + i, 40 + 2 * i)]
    >>> infer_rating_scale(noise_model(counts, metric="n")).ceiling is None   # piled at 0, a long tail: a count
    True
    """
    if noise._raw is None or noise.scale_source == "declared" or not noise.integer:
        return noise
    y = noise._raw
    if y.min() < 0 or y.max() > 100 or np.unique(y, return_counts=True)[0].size < ROUND_MIN_VALUES:
        return noise
    share = round_share(y)
    if share is None or share < ROUND_SHARE:
        return noise
    skew = right_tail(y)
    if skew is not None and skew >= COUNT_SKEW:
        return noise
    return replace(noise.with_scale("0:100"), scale_source="inferred")


def round_share(y: np.ndarray) -> float | None:
    """Share of the runs other than 0 that sit on multiples of 5 (None: every run is 0)."""
    nonzero = y[y != 0]
    return float(np.mean(nonzero % 5 == 0)) if nonzero.size else None


def rating_text(noise: NoiseModel) -> str:
    """Why a metric was read as a rating on 0-100 (:func:`infer_rating_scale`), in one clause."""
    y = noise._raw
    skew = right_tail(y)
    tail = ("its runs do not start at 0" if skew is None else
            f"its runs are not piled at 0 with a long right tail as a count's are (skewness {skew:.2g}, below "
            f"{COUNT_SKEW:g})")
    return (f"whole numbers from {float(y.min()):g} to {float(y.max()):g} that fill the scale 0-100 in round numbers: "
            f"{round_share(y):.0%} of its runs other than 0 on multiples of 5, and {tail}")


def choose_mechanisms(noise: NoiseModel, mechanism: str = "auto") -> Mechanisms:
    """The mechanisms a plan simulates for this noise log: the one named, or (``"auto"``) those the metric's
    kind and the log leave plausible.

    >>> from probestats.analyses.plan.noise import noise_model
    >>> steps = noise_model([{"item": i, "n": y} for i in range(20) for y in (4, 5, 4, 3)], metric="n")
    >>> choose_mechanisms(steps).candidates             # counts that spread far less than Poisson counts
    ('level',)
    >>> rng = np.random.default_rng(1)
    >>> poisson = noise_model([{"item": i, "n": int(y)} for i in range(40) for y in rng.poisson(4, 6)], metric="n")
    >>> choose_mechanisms(poisson).candidates           # the log cannot tell
    ('level', 'rate')
    """
    check_mechanism(mechanism, noise)
    kind, kind_text = metric_kind(noise)
    phi, p_under = dispersion(noise) if kind == "count" else (None, None)
    if mechanism != "auto":
        return Mechanisms(kind, kind_text, (mechanism,), "declared", f"{opt('mechanism', mechanism)} was asked for",
                          phi)
    if kind == "binary":
        return Mechanisms(kind, kind_text, ("rate",), "metric", "a 0/1 metric's gap is a change of its rate")
    if kind == "rating":
        return Mechanisms(kind, kind_text, ("level",), "metric",
                          "a rating's gap shifts its level, which stops at the scale's ends")
    if kind == "count":
        if p_under is not None and p_under < UNDERDISPERSED_P:
            return Mechanisms(kind, kind_text, ("level",), "metric",
                              f"its runs spread less than Poisson counts do (variance / mean {phi:.2f}, p = "
                              f"{p_under:.2g}), so they are not made of independent events whose rate could change: "
                              "the gap is taken to shift the count", phi, ("rate",))
        tracks = _variance_tracks_rate(noise)
        if tracks is not None:
            return Mechanisms(kind, kind_text, ("rate",), "metric",
                              f"{tracks}: the gap is taken to change the rate, not to shift the count", phi,
                              ("level",))
        spread = "as Poisson counts do" if phi is None or phi <= 1 else f"more than Poisson counts (variance / mean {phi:.2f})"
        return Mechanisms(kind, kind_text, ("level", "rate"), "metric",
                          f"its runs spread {spread}, so the log cannot tell whether the gap shifts the count or "
                          "changes its rate", phi)
    positive = noise._raw is not None and float(noise._raw.min()) > 0
    why = _spread_tracks_level(noise) if positive else None
    if why is None:
        return Mechanisms(kind, kind_text, ("level",), "metric",
                          "a continuous metric's gap is taken to shift its level" + (
                              "" if positive else " (it is not always positive, so it cannot be multiplied)"))
    return Mechanisms(kind, kind_text, ("level", "scale"), "metric",
                      f"{why}, so the log cannot tell whether the gap shifts the level or multiplies it")


def read_pilot(mechanisms: Mechanisms, noise: NoiseModel, pilot) -> Mechanisms:
    """The mechanisms after a pilot of the real comparison has had its say.

    Each mechanism predicts how much more (or less) value a's runs spread than value b's at the pilot's
    average gap ``g``: a level shift not at all, a rate change by ``dispersion x g`` (variance), a
    multiplicative change by ``var_b (r^2 - 1)`` with ``r = mean_a / mean_b``. The pilot's pooled within-cell
    variances of a and b give the observed difference and its standard error (from the spread of the cells'
    variances); a mechanism whose prediction lies beyond :data:`PILOT_LEVEL` (two-sided) is ruled out when
    another's does not. ``pilot`` is a :class:`~probestats.analyses.plan.heterogeneity.Heterogeneity`.
    """
    if not mechanisms.several or pilot is None or pilot.spread_a is None or pilot.spread_b is None:
        return mechanisms
    from scipy.stats import norm

    diff = pilot.spread_a - pilot.spread_b
    se = math.hypot(pilot.spread_a_se or 0.0, pilot.spread_b_se or 0.0)
    if not se > 0:
        return mechanisms
    phi = mechanisms.dispersion if mechanisms.dispersion is not None else 1.0
    g = pilot.mean_a - pilot.mean_b
    predicted = {"level": 0.0, "rate": phi * g}
    if pilot.mean_b > 0:
        predicted["scale"] = pilot.spread_b * ((pilot.mean_a / pilot.mean_b) ** 2 - 1.0)
    crit = float(norm.isf(PILOT_LEVEL / 2))
    z = {m: (diff - predicted[m]) / se for m in mechanisms.candidates if m in predicted}
    fits = [m for m in z if abs(z[m]) <= crit]
    shown = ", ".join(f"{m} {predicted[m]:.3g}" for m in z)
    said = (f"in the pilot, value a's runs spread {'more' if diff >= 0 else 'less'} than value b's by "
            f"{abs(diff):.3g} (variance, standard error {se:.2g}) at its average gap {g:.3g}; each mechanism "
            f"predicts {shown}")
    if not fits or len(fits) == len(z):
        return replace(mechanisms, reason=mechanisms.reason + f"; {said}, so the pilot cannot tell either")
    out = tuple(m for m in mechanisms.candidates if m not in fits)
    return replace(mechanisms, candidates=tuple(fits), source="pilot", ruled_out=mechanisms.ruled_out + out,
                   reason=f"{said}: the gap is taken to be one that {mechanisms.words(fits[0])}")


def engine_shift(mechanism: str, noise: NoiseModel) -> str:
    """The simulation's name for a mechanism on this metric (see :func:`~probestats.analyses.plan.simulate.draw_probes`):
    ``steps`` (whole steps spread evenly), ``additive`` (a shift, clipped at bounds; a count's rate change), or
    ``scale``."""
    if mechanism == "scale":
        return "scale"
    if mechanism == "rate":
        return "additive"
    return "steps" if noise.integer and noise._values is not None else "additive"


def mechanism_text(noise: NoiseModel, mechanism: str) -> str:
    """How a mechanism acts on value a's simulated runs, in one line, for this metric.

    >>> mechanism_text(NoiseModel.stated(1.0), "level")
    'level: a gap is added to every run of value a (normal runs)'
    """
    bound = (f", stopping at the bounds {fmt_scale(noise.floor, noise.ceiling)} (a gap is then the shift of each "
             "item's mean, and the average shift reached is reported)" if noise.bounded else "")
    if mechanism == "scale":
        return ("scale: a gap scales value a's mean by 1 + gap / (the noise log's mean): whole numbers as a rate "
                "(thinned, or joined by Poisson counts at the item's rate), other runs multiplied")
    if mechanism == "rate":
        if noise.bounded and noise.integer and noise.floor == 0 and noise.ceiling == 1:
            return ("rate: a 0/1 metric's rate moves by the gap and each run of value a is drawn at the new rate, "
                    f"kept within {fmt_scale(noise.floor, noise.ceiling)}")
        if noise.bounded and not noise.count:
            return "rate: the rate of value a's runs moves by the gap" + bound
        phi, _ = dispersion(noise)
        extra = ("Poisson counts" if phi is None or phi <= 1 else
                 f"negative binomial counts, so a run's variance grows as the log's counts' does (variance {phi:.3g} "
                 "times the mean at the log's level, mu + mu^2 / r)")
        return ("rate: a count's rate rises by the gap in every run of value a (rate lambda_i + gap, the extra "
                f"events drawn as {extra}) or falls by it (each event kept with probability "
                "(lambda_i + gap) / lambda_i, stopping at 0), lambda_i the simulated item's rate; its spread "
                "changes with it")
    if noise._values is None:
        return "level: a gap is added to every run of value a (normal runs)"
    if noise.integer:
        return ("level: each item's mean of value a moves by the gap in whole steps spread evenly over its runs "
                "(its spread stays)" + bound)
    if noise.bounded:
        return "level: every run of value a is shifted and clipped to the bounds" + bound
    return "level: a gap is added to every run of value a (residuals shifted; the spread stays)"


def gap_model(noise: NoiseModel, mechanism: str = "auto") -> str:
    """How a gap acts on value a's simulated runs, in one line: the mechanism named, or (``"auto"``) the ones
    this noise log leaves plausible and why (see :func:`choose_mechanisms`).

    >>> gap_model(NoiseModel.stated(1.0))
    'level: a gap is added to every run of value a (normal runs)'
    >>> from probestats.analyses.plan.noise import noise_model
    >>> rows = [{"item": i, "n": y} for i in range(4) for y in (0, 1, 2, 2 + i)]
    >>> gap_model(noise_model(rows, metric="n")).startswith("level or rate (the least promising")
    True
    """
    chosen = choose_mechanisms(noise, mechanism)
    return mechanisms_text(noise, chosen)


def mechanisms_text(noise: NoiseModel, chosen: Mechanisms) -> str:
    """The mechanisms of a plan in one line: each one's text, and why they are the ones simulated."""
    if not chosen.several:
        return mechanism_text(noise, chosen.candidates[0])
    texts = "; ".join(mechanism_text(noise, m) for m in chosen.candidates)
    return (f"{' or '.join(chosen.candidates)} (the least promising of them in each figure, the others beside it: "
            f"{chosen.reason}): {texts}")


def check_mechanism(mechanism: str, noise: NoiseModel) -> None:
    """A named mechanism must fit the metric: a rate needs a count or a 0/1 metric; a scale change runs that are
    never negative, a positive mean and no ceiling."""
    if mechanism not in MECHANISM_CHOICES:
        raise OptionError(f"{opt('mechanism', mechanism)}: expected one of {', '.join(MECHANISM_CHOICES)}")
    if mechanism in ("auto", "level"):
        return
    if mechanism == "rate":
        kind, _ = metric_kind(noise)
        if kind not in ("count", "binary"):
            raise OptionError(f"a rate belongs to counts and 0/1 metrics, and '{noise.metric}' is {kind} in the noise "
                              f"log; use {opt('mechanism', 'level')} (or {opt('mechanism', 'scale')})")
        return
    if noise._values is None:
        raise OptionError(f"{opt('mechanism', 'scale')} needs a noise log (its mean sets the scale), not a stated sigma")
    if noise.minimum is None or noise.minimum < 0 or not float(np.mean(noise._raw)) > 0:
        raise OptionError(f"{opt('mechanism', 'scale')} multiplies '{noise.metric}', so its runs must be 0 or more with a "
                          f"positive mean; use {opt('mechanism', 'level')}")
    if noise.ceiling is not None or (noise.floor is not None and noise.floor != 0):
        raise OptionError(f"{opt('mechanism', 'scale')} would cross the bounds {fmt_scale(noise.floor, noise.ceiling)} "
                          f"of '{noise.metric}'; use {opt('mechanism', 'level')} (or {opt('scale', '0:')} for a count)")
