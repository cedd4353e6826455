"""The words every public function of probestats shares, their defaults and one validator each.

``alternative``, ``alpha``, ``correction``, ``n_resamples`` and ``seed`` mean the same thing in
every call (an analysis, a report, a plan, a test in :mod:`probestats.stats`), so they are defined
here once and checked here once: the same bad value gets the same message from every function,
spelt as the caller spells it (``alternative='up'`` in Python, ``--alternative up`` on the
command line; see :func:`probestats.errors.opt`).

Names of results follow one rule as well:

- a p-value is ``pvalue`` in Python and ``p`` in JSON (``bias_pvalue`` becomes ``bias_p``);
- ``method`` is always the text that names how a number was computed (``"exact (enumeration of
  all 8 sign patterns)"``); a choice among computations is a parameter named for what it
  chooses (``interval``, ``kind``);
- the log a function reads is its first argument, ``log`` (a path, a frame or a read log).

Like :mod:`probestats.errors`, this module is importable by every layer and imports nothing of
probestats but the errors.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, fields

from probestats.errors import OptionError, either, opt
from probestats.limits import SECONDS_PER_RESAMPLE, duration, how_to_raise, limit

__all__ = [
    "ALPHA",
    "ALTERNATIVES",
    "CORRECTION",
    "CORRECTIONS",
    "N_RESAMPLES",
    "SEED",
    "SIGN_FLIP_RESAMPLES",
    "EFFECT_SIZES",
    "INTERVALS",
    "Tests",
    "check_alpha",
    "check_alternative",
    "check_correction",
    "check_n_resamples",
    "check_seed",
    "check_vocabulary",
    "column_names",
    "check_callable",
    "check_path",
    "check_metric",
]

#: The direction a test looks in: a difference either way, A above B, or A below B.
ALTERNATIVES = ("two-sided", "greater", "less")
#: The level a p-value is read against, unless the caller gives another.
ALPHA = 0.05
#: Corrections for multiple comparisons (see :func:`probestats.stats.multitest.adjust`).
CORRECTIONS = ("holm", "bonferroni", "bh", "none")
#: The correction applied when several tests are read together, unless the caller gives another.
CORRECTION = "holm"
#: Resamples of every Monte Carlo test and bootstrap interval a caller starts, unless told otherwise.
N_RESAMPLES = 10_000
#: Resamples of the sign-flip test's Monte Carlo path, taken only when its certified bounds are
#: wider than the Monte Carlo error: the headline p, so ten times the usual number.
SIGN_FLIP_RESAMPLES = 100_000
#: The seed of every random draw, so a result can be made again exactly.
SEED = 0
#: Intervals for an average gap: Student t, BCa bootstrap, percentile bootstrap, the sign-flip test's inversion.
INTERVALS = ("t", "bootstrap", "percentile", "sign-flip")
#: The effect sizes a table of several metrics shows; g_z and g_av apply Hedges' small-sample correction.
EFFECT_SIZES = ("d_z", "d_av", "g_z", "g_av")
#: The side of each bin of ``describe``'s bins that is closed: ``[a, b)`` (numpy's histogram) or ``(a, b]``.
BINS_CLOSED = ("left", "right")


def check_alternative(alternative) -> str:
    """``alternative`` if it is one of :data:`ALTERNATIVES`; otherwise an :class:`OptionError`.

    Examples
    --------
    >>> check_alternative("less")
    'less'
    >>> check_alternative("up")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: alternative='up': expected one of two-sided, greater, less
    """
    if not isinstance(alternative, str) or alternative not in ALTERNATIVES:
        raise OptionError(f"{opt('alternative', alternative)}: expected one of {', '.join(ALTERNATIVES)}")
    return alternative


def check_alpha(alpha) -> float:
    """``alpha`` as a float if it lies strictly between 0 and 1; otherwise an :class:`OptionError`.

    Examples
    --------
    >>> check_alpha(0.01)
    0.01
    >>> check_alpha(5)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: alpha=5: expected a number between 0 and 1, for example 0.05
    """
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < float(alpha) < 1:
        raise OptionError(f"{opt('alpha', alpha)}: expected a number between 0 and 1, for example 0.05")
    return float(alpha)


def check_correction(correction) -> str:
    """``correction`` if it is one of :data:`CORRECTIONS`; otherwise an :class:`OptionError`.

    Examples
    --------
    >>> check_correction("bh")
    'bh'
    >>> check_correction("sidak")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: correction='sidak': expected one of holm, bonferroni, bh, none
    """
    if not isinstance(correction, str) or correction not in CORRECTIONS:
        raise OptionError(f"{opt('correction', correction)}: expected one of {', '.join(CORRECTIONS)}")
    return correction


def check_n_resamples(n_resamples, *, limited: bool = True) -> int:
    """``n_resamples`` as an int if it is a whole number of 1 or more, and (``limited``) no more than the limit
    on resamples in force (:func:`probestats.limits.raised`); otherwise an :class:`OptionError`.

    Examples
    --------
    >>> check_n_resamples(999.0)
    999
    >>> check_n_resamples(0)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: n_resamples=0: expected a whole number of 1 or more, for example 10000
    >>> check_n_resamples(10**18)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: n_resamples=1000000000000000000: more than the limit of 1,000,000 resamples (estimated 31,688 years for each test or interval resampled); a Monte Carlo p's standard error is at most 0.5/sqrt(n_resamples), 0.0005 at the limit, so lower n_resamples, or raise the limit with probestats.limits.raised(resamples=1000000000000000000)
    """
    if (isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Real)
            or not math.isfinite(n_resamples) or n_resamples != int(n_resamples) or n_resamples < 1):
        raise OptionError(f"{opt('n_resamples', n_resamples)}: expected a whole number of 1 or more, "
                          f"for example {N_RESAMPLES}")
    n = int(n_resamples)
    most = limit("resamples")
    if limited and n > most:
        raise OptionError(
            f"{opt('n_resamples', n)}: more than the limit of {most:,} resamples (estimated "
            f"{duration(n * SECONDS_PER_RESAMPLE)} for each test or interval resampled); a Monte Carlo p's "
            f"standard error is at most 0.5/sqrt(n_resamples), {0.5 / math.sqrt(most):.2g} at the limit, so lower "
            f"{opt('n_resamples')}, or raise the limit with {how_to_raise('resamples', n)}")
    return n


def check_seed(seed) -> int | None:
    """``seed`` if it is None or a whole number of 0 or more; otherwise an :class:`OptionError`.

    Examples
    --------
    >>> check_seed(7), check_seed(None)
    (7, None)
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: seed=-1: expected a whole number of 0 or more, for example 0
    """
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise OptionError(f"{opt('seed', seed)}: expected a whole number of 0 or more, for example {SEED}")
    return int(seed)


def check_chance(chance) -> None:
    """A chance rate (``chance``: the rate a choice is tested against) is a number strictly between 0 and 1.

    >>> check_chance(0.5)
    >>> check_chance(1)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: chance=1: expected a rate strictly between 0 and 1, for example chance=0.5
    """
    try:
        ok = 0 < float(chance) < 1
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise OptionError(f"{opt('chance', chance)}: expected a rate strictly between 0 and 1, for example "
                          f"{opt('chance', 0.5)}")


def check_vocabulary(*, alternative=None, alpha=None, correction=None, n_resamples=None, seed=None) -> None:
    """Check every word given (None skips one), before any work: what a public function calls first.

    Examples
    --------
    >>> check_vocabulary(alternative="two-sided", alpha=0.05, correction="holm")
    >>> check_vocabulary(alpha=0.05, correction="none", n_resamples=-3)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: n_resamples=-3: expected a whole number of 1 or more, for example 10000
    """
    if alternative is not None:
        check_alternative(alternative)
    if alpha is not None:
        check_alpha(alpha)
    if correction is not None:
        check_correction(correction)
    if n_resamples is not None:
        check_n_resamples(n_resamples)
    if seed is not None:
        check_seed(seed)


def column_names(name: str, value, example: str = "model", what: str = "a column name") -> tuple[str, ...]:
    """``value`` as a tuple of column names: None or an empty value none, one name (a string) one, a list or
    tuple of names those; anything else an :class:`OptionError` naming ``name`` (``what``: what a name is). A
    string is one name, never its characters.

    Examples
    --------
    >>> column_names("by", "rs"), column_names("by", ["a", "b"]), column_names("by", None), column_names("by", ())
    (('rs',), ('a', 'b'), (), ())
    >>> column_names("by", 5)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: by=5: expected a column name or a list of them, for example by=['model']
    >>> column_names("factor", ["a", 2], "style")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: factor=['a', 2]: expected a column name or a list of them, for example factor=['style']
    """
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise OptionError(f"{opt(name, value)}: expected {what} or a list of them, for example {opt(name, [example])}")


def check_metric(metric, *, required: bool = True):
    """``metric`` as given if it is a column name or a list of them (or None, when not ``required``); otherwise an
    :class:`OptionError`.

    >>> check_metric("steps"), check_metric(["steps", "words"]), check_metric(None, required=False)
    ('steps', ['steps', 'words'], None)
    >>> check_metric(1)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: metric=1: expected the metric's column name or a list of them, for example metric='steps'
    >>> check_metric(None)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: metric=None: give the metric's column name, for example metric='steps'
    """
    if metric is None or metric == ():   # left out (a command's repeated option, never given, is empty)
        if not required:
            return None
        raise OptionError(f"{either(f'metric={metric!r}', opt('metric'))}: give the metric's column name, for example "
                          f"{opt('metric', 'steps')}")
    if isinstance(metric, str) or (isinstance(metric, (list, tuple)) and all(isinstance(m, str) for m in metric)):
        return metric
    raise OptionError(f"{opt('metric', metric)}: expected the metric's column name or a list of them, for example "
                      f"{opt('metric', 'steps')}")


def check_callable(name: str, value, what: str = "each stage's name"):
    """``value`` if it is None or can be called; otherwise an :class:`OptionError` naming ``name``.

    >>> check_callable("progress", print) is print, check_callable("progress", None)
    (True, None)
    >>> check_callable("progress", "yes")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: progress='yes': expected a function, called with each stage's name (or None), for example progress=print
    """
    if value is None or callable(value):
        return value
    raise OptionError(f"{opt(name, value)}: expected a function, called with {what} (or None), for example "
                      f"{name}=print")


def check_path(name: str, value, example: str, what: str = "a file path"):
    """``value`` if it is None, a string or a path (``os.PathLike``); otherwise an :class:`OptionError` naming
    ``name`` (``example``: a file name it could be).

    >>> check_path("output", "r.md", "report.md"), check_path("output", None, "report.md")
    ('r.md', None)
    >>> check_path("output", 123, "report.md")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: output=123: expected a file path, for example output='report.md'
    """
    import os

    if value is None or isinstance(value, (str, os.PathLike)):
        return value
    raise OptionError(f"{opt(name, value)}: expected {what}, for example {opt(name, example)}")


#: Defaults that may also be said by name: Student t is the interval that None leaves to an average gap.
_SAID_DEFAULTS = {"interval": "t"}


@dataclass(frozen=True)
class Tests:
    """How a job's tests are run: their direction and level, the correction across them, the interval of an
    average gap, the effect size shown, and the resampling of every resampling method.

    One object for the choices that every job shares, so each job's call says them the same way
    (``probestats.analyze(log, metric="steps", tests=Tests(alpha=0.01))``), and the command line's
    ``--alternative``, ``--alpha``, ``--correction``, ``--interval``, ``--effect-size``, ``--n-resamples`` and
    ``--seed`` fill it. Every value is checked when the object is made. A job refuses a value it has no use
    for (a plan has no correction), rather than ignoring it.

    Attributes
    ----------
    alternative : {"two-sided", "greater", "less"}
        The direction of the tests: ``greater`` means A above B.
    alpha : float
        The level p-values are read against (and the wording of the verdict).
    correction : {"holm", "bonferroni", "bh", "none"}
        The correction for multiple comparisons across the job's tests.
    interval : {"t", "bootstrap", "percentile", "sign-flip"} or None
        The interval of an average gap (None: Student t, the default, which a framing log of yes/no answers
        also leaves to its own interval).
    effect_size : {"d_z", "d_av", "g_z", "g_av"}
        The effect size a table of several metrics shows; ``g_z`` or ``g_av`` apply Hedges' small-sample
        correction to every d_z and d_av shown.
    n_resamples : int
        Resamples of every resampling method (bootstrap intervals, Monte Carlo tests).
    seed : int or None
        The seed of every random draw.

    Examples
    --------
    >>> Tests(alpha=0.01).alpha, Tests(effect_size="g_z").hedges, Tests().changed()
    (0.01, True, {})
    >>> Tests(correction="sidak")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: correction='sidak': expected one of holm, bonferroni, bh, none
    """

    __test__ = False   # a test runner collects classes named Test*: this one is not a test

    alternative: str = ALTERNATIVES[0]
    alpha: float = ALPHA
    correction: str = CORRECTION
    interval: str | None = None
    effect_size: str = EFFECT_SIZES[0]
    n_resamples: int = N_RESAMPLES
    seed: int | None = SEED

    def __post_init__(self) -> None:
        checked = {"alternative": check_alternative(self.alternative), "alpha": check_alpha(self.alpha),
                   "correction": check_correction(self.correction),
                   # the limit is the one in force when a job runs (as_tests): a Tests made outside a
                   # probestats.limits.raised block may be used inside it
                   "n_resamples": check_n_resamples(self.n_resamples, limited=False), "seed": check_seed(self.seed)}
        for name, value in checked.items():   # kept as checked: 999.0 resamples are 999
            object.__setattr__(self, name, value)
        for name, allowed in (("interval", INTERVALS), ("effect_size", EFFECT_SIZES)):
            value = getattr(self, name)
            if name == "interval" and value is None:   # None: Student t, or the framing log's own interval
                continue
            if not isinstance(value, str) or value not in allowed:
                given = opt(name, value) if value is not None else either(f"{name}=None", opt(name))
                raise OptionError(f"{given}: expected one of {', '.join(allowed)}")

    @property
    def gap_interval(self) -> str:
        """The interval of a paired average gap: the one chosen, else Student t.

        >>> Tests().gap_interval, Tests(interval="bootstrap").gap_interval
        ('t', 'bootstrap')
        """
        return self.interval or "t"

    @property
    def hedges(self) -> bool:
        """Whether Hedges' small-sample correction applies to the effect sizes (``g_z``, ``g_av``)."""
        return self.effect_size.startswith("g")

    @property
    def effect(self) -> str:
        """The effect size shown, uncorrected name (``d_z`` or ``d_av``; :attr:`hedges` says if corrected)."""
        return "d" + self.effect_size[1:]

    def changed(self) -> dict:
        """The choices that differ from their defaults, by name (``interval="t"`` is the default, said).

        >>> Tests(interval="t", seed=3).changed()
        {'seed': 3}
        """
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) not in (f.default, _SAID_DEFAULTS.get(f.name, f.default))}

    def refuse(self, what: str, *unused: str) -> None:
        """Refuse a choice among ``unused`` given another value than its default: ``what`` has no use for it.

        >>> Tests(alpha=0.01).refuse("a plan", "correction")
        >>> Tests(correction="bh").refuse("a plan", "correction")
        Traceback (most recent call last):
        ...
        probestats.errors.OptionError: correction='bh' does not apply to a plan: leave it out
        """
        for name, value in self.changed().items():
            if name in unused:
                given = opt(name, value) if value is not None else either(f"{name}=None", opt(name))
                raise OptionError(f"{given} does not apply to {what}: leave it out")


def as_tests(tests) -> Tests:
    """``tests`` as given (a :class:`Tests`), or the defaults for None, as a job takes it when it starts: its
    ``n_resamples`` within the limit in force then (:func:`probestats.limits.raised`); anything else is refused.

    >>> as_tests(None) == Tests()
    True
    >>> from probestats.limits import raised
    >>> many = Tests(n_resamples=2_000_000)   # made anywhere: the limit is the one where the job runs
    >>> with raised(resamples=2_000_000):
    ...     as_tests(many).n_resamples
    2000000
    >>> as_tests(many)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: n_resamples=2000000: more than the limit of 1,000,000 resamples (estimated about 2 s for each test or interval resampled); a Monte Carlo p's standard error is at most 0.5/sqrt(n_resamples), 0.0005 at the limit, so lower n_resamples, or raise the limit with probestats.limits.raised(resamples=2000000)
    """
    if tests is None:
        return Tests()
    if not isinstance(tests, Tests):
        raise OptionError(f"tests={tests!r}: expected a probestats.Tests, for example tests=Tests(alpha=0.01)")
    check_n_resamples(tests.n_resamples)
    return tests
