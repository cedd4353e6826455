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

from probestats.errors import OptionError, opt
from probestats.limits import SECONDS_PER_RESAMPLE, duration, how_to_raise, limit

__all__ = [
    "ALPHA",
    "ALTERNATIVES",
    "CORRECTION",
    "CORRECTIONS",
    "N_RESAMPLES",
    "SEED",
    "SIGN_FLIP_RESAMPLES",
    "check_alpha",
    "check_alternative",
    "check_correction",
    "check_n_resamples",
    "check_seed",
    "check_vocabulary",
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


def check_n_resamples(n_resamples) -> int:
    """``n_resamples`` as an int if it is a whole number of 1 or more; otherwise an :class:`OptionError`.

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
    if n > most:
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
