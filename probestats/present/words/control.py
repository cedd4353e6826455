"""The words of a control comparison: the terminal, the report's ``control`` section, its Summary and Finding.

The comparison is decided once, in the analysis (``verdict.control``, :mod:`probestats.analyses.control`);
this module only words it. A control that moves the metric is worded as a finding about the system (it
reacts to any edit), never as a check that failed.

Examples
--------
>>> from probestats import analyze
>>> rows = [{"item": i, "variant": v, "x": x} for i in range(6)
...         for v, x in (("plain", 0.0), ("bias", 1.0 + i % 2), ("typo", 1.0 + (i + 1) % 2))]
>>> verdict = analyze(rows, metric="x", control="typo", baseline="plain").verdict
>>> print(control_summary(verdict))  # doctest: +NORMALIZE_WHITESPACE
Set against the control 'typo', a meaningless edit of 'plain', 'bias' moved x no more than it did (exact
sign-flip tests on the per-item differences, corrected p = 1 signed and 1 in absolute size); the control
itself moved x (p = 0.03125), so the system reacts to any edit.
"""

from __future__ import annotations

from probestats.errors import count_of
from probestats.present.words.fmt import fmt_gap, fmt_num, fmt_p, p_is

__all__ = ["control_of", "control_sentences", "control_summary", "control_context", "control_finding"]


def control_of(analysis):
    """The analysis's control comparison (``verdict.control``), or None."""
    return getattr(getattr(analysis, "verdict", None), "control", None)


def _correction(c) -> str:
    # lazy: present.words.correction is off the paired analysis's path (tests/test_start.py)
    from probestats.present.words.correction import correction_name

    n = 2 * len(c.tests)
    return f"{correction_name(c.correction)} across the {n} tests" if c.correction != "none" else "not corrected"


def _tests_clause(t, c) -> str:
    """The two exact tests of one value against the control, with their corrected p."""
    return (f"exact sign-flip tests on the per-item differences of the two gaps over {count_of(t.n_items, 'item')}: "
            f"signed, average {fmt_gap(t.difference)}, corrected p = {fmt_p(t.signed_p_adjusted, c.alpha)}; in "
            f"absolute size, average {fmt_gap(t.size_difference)}, corrected p = "
            f"{fmt_p(t.absolute_p_adjusted, c.alpha)}; {_correction(c)}")


def control_moves_sentence(c) -> str:
    """The control's own gap against the baseline: a finding when it moves the metric."""
    own = (f"average gap {fmt_gap(c.control_gap)} {c.metric} against '{c.baseline}' over "
           f"{count_of(c.control_items, 'item')} (exact sign-flip test, {p_is(c.control_test, c.alpha)}), "
           f"{fmt_num(c.control_size)} in absolute size per item (the sensitivity index)")
    if c.control_moves:
        return (f"The control '{c.control}' itself moved {c.metric}: {own}. The system reacts to a meaningless edit, "
                "so a gap against the baseline alone overstates what is specific to the attribute; this is a "
                "finding about the system, not a check that failed.")
    return (f"The control '{c.control}' did not move {c.metric} by more than chance: {own}; this does not show that "
            "a meaningless edit never moves it.")


def control_sentences(verdict) -> list[str]:
    """Every sentence of the control comparison: each value against the control, the control itself, the method."""
    c = getattr(verdict, "control", None)
    if c is None:
        return []
    out = [f"Against the control '{c.control}' (a meaningless edit of '{c.baseline}'): {t.statement} "
           f"({_tests_clause(t, c)})." for t in c.tests]
    out.append(control_moves_sentence(c))
    out.append(f"Method: {c.method}; at alpha {c.alpha:g}.")
    return out


def control_summary(verdict) -> str | None:
    """The Summary's sentence on the control (None without one)."""
    c = getattr(verdict, "control", None)
    if c is None:
        return None
    if len(c.tests) == 1:
        t = c.tests[0]
        answer = t.statement.replace(f"the control '{c.control}' (a meaningless edit) did", "it did", 1).split(
            ", which does not show", 1)[0]
        tests = (f"exact sign-flip tests on the per-item differences, corrected p = "
                 f"{fmt_p(t.signed_p_adjusted, c.alpha)} signed and {fmt_p(t.absolute_p_adjusted, c.alpha)} "
                 "in absolute size")
    else:
        answer = c.statement
        tests = f"exact sign-flip tests on the per-item differences, {_correction(c)}"
    moves = (f"; the control itself moved {c.metric} ({p_is(c.control_test, c.alpha)}), so the system reacts to "
             "any edit" if c.control_moves else "")
    return f"Set against the control '{c.control}', a meaningless edit of '{c.baseline}', {answer} ({tests}){moves}."


def control_finding(verdict) -> list[str]:
    """The Finding's sentences on the control (empty without one)."""
    c = getattr(verdict, "control", None)
    if c is None:
        return []
    return [f"Against the control '{c.control}': {c.statement}.", control_moves_sentence(c)]


def control_context(verdict) -> dict | None:
    """The template context of the ``control`` section (None without a control)."""
    c = getattr(verdict, "control", None)
    if c is None:
        return None
    rows = [{"value": t.value, "n_items": t.n_items, "value_gap": t.value_gap, "control_gap": t.control_gap,
             "difference": t.difference, "p_signed": t.signed_p_adjusted, "size_difference": t.size_difference,
             "p_absolute": t.absolute_p_adjusted, "conclusion": t.conclusion.replace("_", " ")} for t in c.tests]
    return {"control": c.control, "baseline": c.baseline, "metric": c.metric, "rows": rows,
            "correction": _correction(c), "sentences": control_sentences(verdict)}
