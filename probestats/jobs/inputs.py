"""What a job's inputs are: a log or a cell table, recognized by its columns, and what cannot go with a table.

The jobs that take a cell table in place of a log (analyze, report, plan, compare) tell them apart here,
alike for the library and the command line: a table beside a log (or the reverse) is refused, and so is a
way of shaping the rows, which applies when the table is built.
"""

from __future__ import annotations

from probestats.errors import OptionError, either, opt
from probestats.io.cell_header import is_cell_table
from probestats.shape.shaped import Shaped

__all__ = ["is_cells", "cell_inputs", "refuse_row_options", "shape_log"]

#: the words that stand for a noise reference rather than a file
NOISE_WORDS = ("within", "none")


def is_cells(path) -> bool:
    """Whether an input is a cell table (recognized by its columns), not a log.

    >>> is_cells(None), is_cells("within"), is_cells("sample_logs/style_probe.csv")
    (False, False, False)
    """
    return path is not None and not (isinstance(path, str) and path in NOISE_WORDS) and is_cell_table(path)


def _first(log):
    """The one path of a log given as a list of one (a command's LOG), else the log."""
    if isinstance(log, (list, tuple)) and len(log) == 1:
        return log[0]
    return log


def cell_inputs(log, **others):
    """The log as a cell table (or None) and each other input (``noise``, ``before``, ``pilot``) as
    ``(cell table or None, log or None)``; a cell table beside a log (or the reverse) is refused.

    >>> cell_inputs(["sample_logs/style_probe.csv"], noise="within")
    (None, None, 'within')
    """
    cells_file = _first(log) if is_cells(log) else None
    split = []
    for name, path in others.items():
        table = is_cells(path)
        if cells_file is not None and str(path) in NOISE_WORDS:
            raise OptionError(f"{_named(name, path)} cannot be used with a cell table: its noise reference is the "
                              f"halves it holds, or a cell table built with its runs ({_named(name, 'NOISE_CELLS')})")
        if cells_file is not None and path is not None and not table:
            raise OptionError(f"{_named(name, path)}: with a cell table as {opt('log')}, give this log as a cell "
                              f"table too ({_build_runs(path)})")
        if cells_file is None and log is not None and table and _has_log(log):
            raise OptionError(f"{_named(name, path)} is a cell table: give the probe as a cell table too "
                              f"({either('probestats.cells(log, ..., output=FILE)', 'probestats cells LOG -o FILE')}), "
                              "or give the log itself")
        split.append((path if table else None, None if table else path))
    return (cells_file, *[x for pair in split for x in pair])


def _named(name: str, path) -> str:
    """An input and its path as the caller spells it: ``noise='x.csv'``, or ``--noise x.csv`` as typed."""
    return either(f"{name}={str(path)!r}", f"{opt(name)} {path}")


def _has_log(log) -> bool:
    """Whether a log was given (a command's LOG is a tuple, empty when left out)."""
    return not (isinstance(log, (list, tuple)) and not log)


def _build_runs(path) -> str:
    """How to build a cell table with its runs, in the caller's spelling."""
    return either(f"probestats.cells({str(path)!r}, ..., keep_runs=True, output=FILE)",
                  f"probestats cells {path} --keep-runs -o FILE")


#: the probe's ways of shaping the rows, and of reading the file (on the command line, keys of ``--read``)
_ROW_SHAPING = ("where", "derive", "wide", "explode", "lookup", "code", "complete", "columns", "groups", "fold_case")
_READING = ("format", "sheet", "skip_rows", "encoding")


def refuse_row_options(probe, **options) -> None:
    """Options that need the rows of a log: refused with a cell table (they apply when it is built).

    ``probe`` is the :class:`~probestats.shape.probe.Probe` given (None for none); ``options`` the job's own
    options that need rows (``row_level=True``, ``scale="1:5"``), refused when given.

    >>> from probestats.shape.probe import Probe
    >>> refuse_row_options(Probe(where="model = 'm1'"))
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: probe's where cannot be used with a cell table: it needs the log's rows; build the cell table with it (probestats.cells(log, ..., probe=probe)), or give the log
    >>> refuse_row_options(None, scale="1:5")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: scale cannot be used with a cell table: it needs the log's rows; give the log
    """
    used = []
    if probe is not None:
        used += [either(f"probe's {name}", opt(name)) for name in _ROW_SHAPING if getattr(probe, name)]
        used += [either(f"probe's {name}", f"--read {name.replace('_', '-')}") for name in _READING
                 if getattr(probe, name)]
    if used:   # shaping the cell table can be built with
        raise OptionError(f"{used[0]} cannot be used with a cell table: it needs the log's rows; build the cell "
                          "table with it (" + either("probestats.cells(log, ..., probe=probe)), or give the log",
                                                     f"probestats cells LOG {used[0]} ...), or give the LOG"))
    own = [opt(name) for name, value in options.items() if value]
    if own:    # the job's own options, which no cell table is built with
        raise OptionError(f"{own[0]} cannot be used with a cell table: it needs the log's rows; give the "
                          f"{either('log', 'LOG')}")


def shape_log(log, question, probe):
    """The probe ``log`` (and a noise log the ``question`` names) read and shaped by the ``probe``, once per
    metric: the one place an analysis's log is read, for the engines to take as it is.

    Parameters
    ----------
    log : path, sequence of paths, Log, list of dict or DataFrame
        The probe log.
    question : Question
        Its metrics, the values ``a`` and ``b`` and the ``by`` columns (which ``complete`` keeps items complete
        over), and its ``noise`` (a same-versus-same log is shaped alike; the words ``"within"`` and ``"none"``
        are not logs).
    probe : Probe
        How the log is read and shaped.

    Returns
    -------
    Shaped
        Each metric's shaped log and noise log (:class:`probestats.shape.shaped.Shaped`).

    Examples
    --------
    >>> from probestats.analyses.question import Question
    >>> from probestats.shape.probe import Probe
    >>> shaped = shape_log("sample_logs/style_probe.csv", Question("steps"), Probe(where="seed = 1"))
    >>> log, noise = shaped.of("steps")
    >>> log.frame.height, noise
    (16, None)
    """
    q = question
    logs, noises = {}, {}
    for metric in q.metrics:
        logs[metric] = probe.apply(log, metric=metric, a=q.a, b=q.b, by=q.by)
        if _is_log(q.noise):
            noises[metric] = probe.apply(q.noise, metric=metric, by=q.by)
    return Shaped(logs, noises)


def _is_log(noise) -> bool:
    """Whether a noise reference is a log to shape (not absent, not one of the words)."""
    return noise is not None and str(noise) not in NOISE_WORDS
