"""The check of a log as one library call: read, shape and validate it as ``probestats validate`` does.

:func:`validate` is what the command runs (it parses its options, calls it and prints the
:class:`~probestats.checks.schema.Checked` it returns) and what ``probestats.validate`` is in Python; the
checks themselves are :func:`probestats.checks.schema.validate`'s.
"""

from __future__ import annotations

from probestats.analyses.dispatch import check_roles
from probestats.analyses.drawn import balance_test, unbalanced_problem, unmatched_refusal
from probestats.errors import OptionError
from probestats.shape.probe import as_probe
from probestats.vocabulary import check_metric, column_names

__all__ = ["validate"]


def validate(log, *, metric=None, a=None, b=None, by=(), probe=None):
    """Check that a log is a matched, held-fixed probe, and list every problem with its rows.

    Parameters
    ----------
    log : path, sequence of paths, Log, list of dict or DataFrame
        The log (several files or a folder are read as one).
    metric : str, optional
        The metric column to check (numbers, blanks, suspect zeros).
    a, b : str, optional
        The compared values (default: the first two values in the log).
    by : sequence of str
        Groups checked each on its own.
    probe : Probe, optional
        How the log is read and shaped, and what its columns mean: its ``attribute_settings`` (settings varied
        on purpose with the attribute) are accepted differing between the values; its ``random_settings``
        (drawn at random per call) are checked to be balanced across the values (an error when a chi-square
        test of the values against the setting gives p <= 0.05).

    Returns
    -------
    Checked
        ``ok`` when there are no errors (warnings allowed); ``problems`` lists them all.

    Examples
    --------
    >>> checked = validate(["sample_logs/style_probe.csv"], metric="steps")
    >>> checked.ok, checked.a, checked.b
    (True, 'formal', 'casual')
    >>> validate("sample_logs/broken/unmatched_item.csv", metric="steps").ok
    False
    """
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.checks.schema import ColumnRoles, validate as check

    probe, metric, by = as_probe(probe), check_metric(metric, required=False), column_names("by", by)
    probe.refuse("the validation", roles=("settings", "cluster"))
    random_settings, attribute_settings = tuple(dict.fromkeys(probe.random_settings)), probe.attribute_settings

    check_roles([metric] if metric else [], probe)
    checked = check(probe.apply(log, metric=metric, a=a, b=b, by=by), metric=metric, a=a, b=b, by=by,
                    fold_case=probe.fold_case, roles=ColumnRoles(keep=random_settings,
                                                                 attribute_settings=attribute_settings,
                                                                 random_settings=random_settings))
    if random_settings and checked.ok:   # a setting drawn per call is checked for balance, as analyze checks it
        from dataclasses import replace

        for column in random_settings:
            balance = balance_test(checked.frame, column, checked.a, checked.b)
            if balance.tracks(0.05):   # unbalanced by chance alone is adjusted for by analyze, not refused
                checked = replace(checked, problems=checked.problems + (unbalanced_problem(
                    balance, checked.a, checked.b, checked.log.columns.get(column, column)),))
                continue
            refusal = unmatched_refusal(checked.frame, checked.a, checked.b, column, metric)
            if refusal is not None:   # refused as the analysis refuses it: nothing to match the gap within
                raise OptionError(refusal)
    return checked
