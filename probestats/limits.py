"""Every size probestats bounds before the work starts: one table of limits, each refused with its cost.

A log or an option can ask for more work than a machine can do: a spreadsheet of 16,384 columns, thousands of
values compared pair by pair, two factors of 20 levels, ``n_resamples=10**18``. Each such size is checked
here against a named limit before anything is computed or allocated, and a size beyond it is refused with one
line naming the limit, the estimated cost and the way to raise the limit. The limits are generous: a real
probe stays far below them, so a refusal means the input is not what it was meant to be (a column of free
text read as the value, a typo in a number) or the work really is that large, and the caller says so.

Every limit is raised the same way: ``--limit NAME=N`` on the command line, and in Python
``with probestats.limits.raised(NAME=N):`` around the calls. The limits of reading a spreadsheet are options
of reading (``max_cells``, ``max_columns``: ``--read max-cells=N``, ``--read max-columns=N``), and a plan's
designs are bounded by its time budget (``time_budget``, ``--time-budget``), so their limits are raised there.

Like :mod:`probestats.vocabulary`, this module is importable by every layer and imports nothing of
probestats but the errors.

Examples
--------
>>> limit("values")
10000
>>> with raised(values=20_000):
...     limit("values")
20000
>>> check_limit("levels", 400, "the factors' cells", "an exact test per cell pair")
Traceback (most recent call last):
...
probestats.errors.OptionError: the factors' cells number 400, more than the limit of 30 (an exact test per cell pair); raise the limit with probestats.limits.raised(levels=400)
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Iterator

from probestats.errors import OptionError, either

__all__ = ["LIMITS", "Limit", "memory_room", "gigabytes", "SECONDS_PER_RESAMPLE", "check_limit", "duration", "how_to_raise", "limit", "raised", "parse_limit",
           "MAX_CELLS", "MAX_COLUMNS", "MAX_DESIGNS", "MAX_DESIGN_RUNS", "MAX_PLAN_RUNS", "MAX_RANGE_NOISE_RUNS",
           "MAX_PLAN_SECONDS"]


@dataclass(frozen=True)
class Limit:
    """One bounded size: its name (the key of ``--limit`` and of :func:`raised`), default and meaning.

    Attributes
    ----------
    name : str
        The key: ``--limit values=N``, ``raised(values=N)``.
    default : int
        The limit unless raised.
    counts : str
        What is counted, for the documentation.
    """

    name: str
    default: int
    counts: str


#: The limits raised with ``--limit NAME=N`` (Python: :func:`raised`), by name.
LIMITS: dict[str, Limit] = {lim.name: lim for lim in (
    Limit("values", 10_000, "distinct values of the attribute a many-values analysis compares"),
    Limit("pairs", 5_000, "pairs of values a many-values analysis tests one by one (the pairwise table); "
                          "beyond it the pairwise tests are left out with a warning, the rest is computed"),
    Limit("groups", 1_000, "groups of the by columns, each analyzed on its own (about 0.02 s each)"),
    Limit("levels", 30, "cells of a two-factor analysis (levels of one factor x levels of the other; "
                        "30 cells take about 1 GB)"),
    Limit("resamples", 1_000_000, "resamples of one Monte Carlo test or bootstrap interval (n_resamples)"),
)}

#: cells a spreadsheet's sheets may span (rows x columns of their extent); ``max_cells`` (``--read max-cells``)
MAX_CELLS = 10_000_000
#: columns a log may have (a spreadsheet's counted before it is loaded); ``max_columns`` (``--read max-columns``)
MAX_COLUMNS = 2_000
#: run values a plan may simulate in all (sims x items x runs per value x 2, summed over designs); lower --sims
MAX_PLAN_RUNS = 2_000_000_000
#: run values one design may hold in memory at once (sims x items x runs per value; 8 bytes each); lower --sims
MAX_DESIGN_RUNS = 25_000_000
#: designs (item counts x runs per value) a plan sizes without a time budget; --time-budget lifts it
MAX_DESIGNS = 60
#: runs of a noise log whose resampled copies the MDG's range is found on; --no-mdg-range lifts it
MAX_RANGE_NOISE_RUNS = 100_000
#: seconds of simulation a plan is estimated to take, beyond which it is refused without a time budget
MAX_PLAN_SECONDS = 600.0

#: seconds one resample takes, about (measured: 20,000,000 resamples of the 8-item sample log's analysis took
#: 16 s of processor time and over 3 min on a busy 2-core machine); for estimating a cost only
SECONDS_PER_RESAMPLE = 1e-6

#: the largest value a limit may be raised to (10**18 resamples would take 31,688 years): a larger number is refused
#: as it is read
MOST = 10**18

_RAISED: contextvars.ContextVar[dict] = contextvars.ContextVar("probestats_limits", default={})


def limit(name: str) -> int:
    """The limit called ``name`` as it stands here (its default, or as :func:`raised` set it)."""
    return int(_RAISED.get().get(name, LIMITS[name].default))


@contextlib.contextmanager
def raised(**limits: int) -> Iterator[None]:
    """Within this block, the named limits are the numbers given (each a whole number of 1 or more).

    >>> with raised(groups=5_000, pairs=20_000):
    ...     limit("groups"), limit("pairs")
    (5000, 20000)
    >>> limit("groups")
    1000
    >>> with raised(colours=3):
    ...     pass
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: no limit called 'colours'; limits: values, pairs, groups, levels, resamples
    """
    for name, value in limits.items():
        if isinstance(value, int) and value > MOST:   # not written out: str() stops at 4,300 digits
            raise OptionError(f"raised({name}=...): more than 10**18, beyond any work that can be done; give a "
                              f"whole number up to 10**18, for example raised({name}={2 * LIMITS[name].default})")
        parse_limit(f"{name}={value}")
    token = _RAISED.set({**_RAISED.get(), **{k: int(v) for k, v in limits.items()}})
    try:
        yield
    finally:
        _RAISED.reset(token)


def parse_limit(text: str) -> tuple[str, int]:
    """``NAME=N`` as a name of :data:`LIMITS` and a whole number of 1 or more (what ``--limit`` takes).

    >>> parse_limit("values=20000")
    ('values', 20000)
    >>> parse_limit("resamples=" + "9" * 5000)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: limit 'resamples=999999999999...' (5,000 digits) is more than 10**18, beyond any work that can be done; give a whole number up to 10**18, for example resamples=2000000
    >>> parse_limit("values=lots")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: limit 'values=lots': expected NAME=N with N a whole number of 1 or more, for example values=20000
    """
    name, sep, number = str(text).partition("=")
    name = name.strip().replace("-", "_")
    if name not in LIMITS:
        raise OptionError(f"no limit called '{name}'; limits: {', '.join(LIMITS)}")
    number = number.strip().replace("_", "").replace(",", "")
    if sep and number.isdigit() and (len(number.lstrip("0")) > 19 or int(number) > MOST):   # int() stops at 4,300
        shown = f"{number[:12]}..." if len(number) > 19 else number
        raise OptionError(f"limit '{name}={shown}' ({len(number.lstrip('0')):,} digits) is more than 10**18, "
                          f"beyond any work that can be done; give a whole number up to 10**18, for example "
                          f"{name}={2 * LIMITS[name].default}")
    if not sep or not number.isdigit() or int(number) < 1:
        raise OptionError(f"limit '{text}': expected NAME=N with N a whole number of 1 or more, for example "
                          f"{name}={2 * LIMITS[name].default}")
    return name, int(number)


def how_to_raise(name: str, needed: int) -> str:
    """``--limit values=12000`` on the command line, ``probestats.limits.raised(values=12000)`` in Python."""
    return either(f"probestats.limits.raised({name}={needed})", f"--limit {name}={needed}")


def check_limit(name: str, count: int, what: str, cost: str, fix: str | None = None) -> None:
    """Refuse ``count`` of ``what`` beyond the limit ``name``: one line with the cost, ``fix`` and how to raise it.

    ``cost`` is the estimated work (``"about 12 GB"``, ``"12,497,500 tests"``); ``fix`` another way out (fewer
    values, a coarser grouping), said before raising the limit.
    """
    most = limit(name)
    if count <= most:
        return
    raise OptionError(f"{what} number {count:,}, more than the limit of {most:,} ({cost}); "
                      + (f"{fix}, or " if fix else "") + f"raise the limit with {how_to_raise(name, count)}")


def duration(seconds: float) -> str:
    """A time as a person reads it: ``about 40 s``, ``about 12 min``, ``about 3.5 h``, ``317 years``.

    >>> duration(40), duration(720), duration(12_600), duration(3e4), duration(1e10)
    ('about 40 s', 'about 12 min', 'about 3.5 h', 'about 8.3 h', '317 years')
    """
    if seconds < 120:
        return f"about {seconds:.0f} s"
    if seconds < 7200:
        return f"about {seconds / 60:.0f} min"
    if seconds < 86400 * 365:
        return f"about {seconds / 3600:.1f} h" if seconds < 86400 * 3 else f"about {seconds / 86400:.0f} days"
    return f"{seconds / (86400 * 365.25):,.0f} years"


def _status_bytes(key: str) -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _meminfo(key: str) -> int | None:
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _cgroup_room() -> int | None:
    try:
        limit = open("/sys/fs/cgroup/memory.max").read().strip()
        if limit == "max":
            return None
        return int(limit) - int(open("/sys/fs/cgroup/memory.current").read().strip())
    except (OSError, ValueError):
        return None


def memory_room() -> tuple[int | None, str, int | None, str]:
    """The memory this process may still take, as far as the system says: ``(address space, its bound,
    resident memory, its bound)``, each in bytes, or None where nothing bounds it (or nothing says).

    The address space is bounded by the process's own limit (``ulimit -v``, ``RLIMIT_AS``) less what it
    maps already; resident memory by the container's limit (cgroup ``memory.max``) and the machine's
    available memory. Native readers (polars' engine) map far more address space than they touch, and a
    mapping refused there aborts the process: that is why both are compared, before the work.
    """
    space, space_bound = None, ""
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
        if soft != resource.RLIM_INFINITY:
            mapped = _status_bytes("VmSize") or 0
            space, space_bound = max(0, soft - mapped), f"its address-space limit (ulimit -v) of {gigabytes(soft)}"
    except (ImportError, OSError, ValueError):
        pass
    resident, resident_bound = None, ""
    group = _cgroup_room()
    if group is not None:
        resident, resident_bound = max(0, group), "the container's memory limit"
    available = _meminfo("MemAvailable")
    if available is not None:
        available += _meminfo("SwapFree") or 0
        if resident is None or available < resident:
            resident, resident_bound = available, "the machine's available memory"
    return space, space_bound, resident, resident_bound


def gigabytes(count: float) -> str:
    """Bytes as a person reads them: ``3.1 GB``, ``640 MB``.

    >>> gigabytes(3.14e9), gigabytes(6.4e8)
    ('3.1 GB', '640 MB')
    """
    return f"{count / 1e9:,.1f} GB" if count >= 1e9 else f"{count / 1e6:,.0f} MB"
