"""The describe job as one library call: read, shape and describe a log as ``probestats describe`` does.

:func:`describe` is what the command calls, with its options as parameters; the result prints in a
terminal (:func:`probestats.present.terminal.describe.print_description`), as JSON and as the
report's ``describe`` section.
"""

from __future__ import annotations

__all__ = ["describe"]


def describe(log, *, metric=None, bins=None, by=(), tests=None, probe=None):
    """Per value: the count of runs and items, the mean, and the count and share of each level, with an
    exact test of whether the distributions differ (matched within items where the design is matched).

    Parameters
    ----------
    log : path, sequence of paths, list of dict or DataFrame
        The log (several files or a folder are read as one).
    metric : str, optional
        The column described (a label, a 0/1 metric, a whole number of few values, or any number with
        ``bins``); without it, runs and items per value.
    bins : str or sequence of float, optional
        Edges cutting a numeric metric into levels, ``"0,45,50,100"``: ``[0, 45)``, ``[45, 50)``, ``[50, 100]``.
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
    Description

    Examples
    --------
    >>> d = describe("sample_logs/style_probe.csv", metric="steps", bins="0,4,6,12")
    >>> [(s.value, s.n_runs, s.counts["[0, 4)"]) for s in d.values]
    [('formal', 160, 25), ('casual', 160, 41)]
    >>> d.test.matched
    True
    """
    from probestats.analyses.describe import describe_log
    from probestats.shape.probe import as_probe
    from probestats.vocabulary import as_tests, check_metric, column_names

    tests, probe = as_tests(tests), as_probe(probe)
    metric, by = check_metric(metric, required=False), column_names("by", by)
    tests.refuse("the description", "alternative", "alpha", "correction", "interval", "effect_size")
    probe.refuse("the description", fold_case=True, why=" (each value is described as written)")
    return describe_log(probe.apply(log, metric=metric, by=by), metric=metric, bins=bins, by=by,
                        n_resamples=tests.n_resamples, seed=tests.seed)
