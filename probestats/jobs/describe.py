"""The describe job as one library call: read, shape and describe a log as ``probestats describe`` does.

:func:`describe` is what the command calls, with its options as parameters; the result prints in a
terminal (:func:`probestats.present.terminal.describe.print_description`), as JSON and as the
report's ``describe`` section.
"""

from __future__ import annotations

from probestats.analyses.describe import Descriptions, describe_log
from probestats.analyses.metrics import split_metrics
from probestats.shape.probe import as_probe
from probestats.vocabulary import as_tests, check_metric, column_names

__all__ = ["describe"]


def describe(log, *, metric=None, bins=None, by=(), tests=None, probe=None, bins_closed="left", agreement=None,
             chance=0.5):
    """Per value: the count of runs and items, the mean, and the count and share of each level, with an
    exact test of whether the distributions differ (matched within items where the design is matched).

    Parameters
    ----------
    log : path, sequence of paths, list of dict or DataFrame
        The log (several files or a folder are read as one).
    metric : str or sequence of str, optional
        The column described (a label, a 0/1 metric, a whole number of few values, or any number with
        ``bins``); without it, runs and items per value. Several (``"a,b"`` or a list): a ``Descriptions``
        of each in turn, with the same options.
    bins : str or sequence of float, optional
        Edges cutting a numeric metric into levels, ``"0,45,50,100"``: ``[0, 45)``, ``[45, 50)``, ``[50, 100]``.
    bins_closed : {"left", "right"}
        ``"right"`` cuts ``[0, 45]``, ``(45, 50]``, ``(50, 100]`` instead, as many published figures do.
    agreement : str, optional
        A column whose values are raters (judges, models) that scored the same items: their agreement
        (Kendall's tau, Spearman's rho, Cohen's and Fleiss' kappa), as
        :func:`probestats.analyses.describe.describe_log` gives it.
    chance : float
        A 0/1 metric's rate per value (and per ``by`` group) is tested against it: the exact binomial test and
        the Clopper-Pearson interval (0.5 unless given).
    by : sequence of str
        A description per group too.
    tests : Tests, optional
        The Monte Carlo test's draws where the exact one is out of reach (:class:`probestats.Tests`'s
        ``n_resamples`` and ``seed``); a description tests at no level in no direction, so the other choices
        are refused.
    probe : Probe, optional
        How the log is read and shaped (columns, lookups, code books, ...).

    Returns
    -------
    Description, or Descriptions for several metrics

    Examples
    --------
    >>> d = describe("sample_logs/style_probe.csv", metric="steps", bins="0,4,6,12")
    >>> [(s.value, s.n_runs, s.counts["[0, 4)"]) for s in d.values]
    [('formal', 160, 25), ('casual', 160, 41)]
    >>> d.test.matched
    True
    """
    tests, probe = as_tests(tests), as_probe(probe)
    metric, by = check_metric(metric, required=False), column_names("by", by)
    tests.refuse("the description", "alternative", "alpha", "correction", "interval", "effect_size")
    probe.refuse("the description", fold_case=True, why=" (each value is described as written)")

    metrics = split_metrics(metric) if metric else [None]
    if len(metrics) > 1:   # each metric described in turn, with the same bins, groups and raters
        return Descriptions(tuple(describe(log, metric=m, bins=bins, by=by, tests=tests, probe=probe,
                                           bins_closed=bins_closed, agreement=agreement, chance=chance)
                                  for m in metrics))
    metric = metrics[0]
    return describe_log(probe.apply(log, metric=metric, by=by), metric=metric, bins=bins, by=by,
                        n_resamples=tests.n_resamples, seed=tests.seed, bins_closed=bins_closed, agreement=agreement,
                        chance=chance)
