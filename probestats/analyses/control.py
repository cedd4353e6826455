"""A control wording: does the attribute move the metric more than a meaningless change does?

A **control** is a value of the attribute column that edits the baseline's input in a way that
should not matter (a key typo, a swapped letter, an added blank line): a placebo edit. Named with
``control=VALUE`` (``--control VALUE``), it is left out of the main analysis and set beside it.
Its runs may sit in the probe's own file or in a file of their own given beside it (a log is any
number of files read as one), so one option names the control wherever its runs were logged.

For each item, the attribute value's gap against the **baseline**, ``g_v = mean_v - mean_base``,
is set beside the control's gap, ``g_c = mean_c - mean_base``, and two exact tests ask whether the
attribute moves the metric more than the control does:

* **signed**: the sign-flip test on ``g_v - g_c`` per item (that is ``mean_v - mean_c``): does the
  attribute shift the metric otherwise than the meaningless edit shifts it?
* **absolute**: the sign-flip test on ``|g_v| - |g_c|`` per item: does the attribute move an item's
  output further, in either direction, than the meaningless edit moves it? The mean of ``|g_c|``
  over items is the **sensitivity index**: how far any edit moves the output.

Both tests are exact under one null hypothesis, that the attribute value is one more meaningless
edit: within an item the labels of the value and of the control are then exchangeable, and swapping
them flips the sign of both differences (the baseline's mean is common to both gaps), so the
exact sign-flip engine of :func:`probestats.stats.hypotests.sign_flip_test` applies to them as it
does to a pair's gaps (exchangeable in law needs as many runs of the value as of the control in
each item; otherwise the result says so). Their p-values are corrected across the family (the two
tests of each compared value, Holm by default).

The control's own gap against the baseline, with its exact test, stands beside them. A control that
moves the metric is a **finding**, never a check that failed: the system reacts to any edit, so a
gap against the baseline alone overstates what is specific to the attribute. It stands beside the
noise reference (runs compared as the same), not in its place.

Examples
--------
>>> rows = [{"item": i, "variant": v, "x": x} for i in range(6)
...         for v, x in (("plain", 0.0), ("bias", 1.0 + i % 2), ("typo", 1.0 + (i + 1) % 2))]
>>> c = compare_control(rows, metric="x", values=["bias"], baseline="plain", control="typo")
>>> t = c.tests[0]
>>> t.value_gap, t.control_gap, t.conclusion     # same average gap: no more than the control
(1.5, 1.5, 'no_more')
>>> c.control_moves, c.control_test.pvalue       # the control itself moves x: a finding
(True, 0.03125)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

import polars as pl

from probestats.analyses.halves import blocked_item_table
from probestats.analyses.items import item_table
from probestats.analyses.verdict import STATEMENTS
from probestats.errors import OptionError, Problem, ValidationError, count_of, opt
from probestats.io.columns import ROW
from probestats.io.log import collect
from probestats.stats.exact import mean_of_combination
from probestats.stats.hypotests import TestResult, sign_flip_test
from probestats.stats.multitest import adjust

__all__ = ["ControlTest", "ControlComparison", "compare_control", "without_control", "with_control", "log_values",
           "CONCLUSIONS", "METHOD"]

#: what each comparison with the control concludes
CONCLUSIONS = ("more", "less", "differs", "no_more")
#: the tests, in words
METHOD = ("the exact sign-flip test on the per-item differences between the value's gap and the control's gap "
          "against the baseline, signed and in absolute size (exact under the hypothesis that the value is one "
          "more meaningless edit: its label and the control's are exchangeable within items)")


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _test_dict(t: TestResult, adjusted: float | None) -> dict:
    out = {"p": t.pvalue, "p_adjusted": adjusted, "method": t.method, "kind": t.kind,
           "alternative": t.alternative, "statistic": _num(t.statistic)}
    if t.pvalue_se is not None:
        out["p_se"] = t.pvalue_se
    if t.pvalue_bound is not None:
        out["p_bound"] = t.pvalue_bound
    return out


@dataclass(frozen=True)
class ControlTest:
    """One value against the control: per item, its gap against the baseline beside the control's.

    Attributes
    ----------
    value, control, baseline : str
        The compared value (the edit that may matter), the control (the meaningless edit) and the
        baseline both gaps are measured from.
    items : polars.DataFrame
        Per item compared: ``item``, ``value_gap`` (g_v), ``control_gap`` (g_c), ``difference``
        (g_v − g_c), ``size_difference`` (|g_v| − |g_c|), and the runs ``n_value``, ``n_control``,
        ``n_baseline``.
    value_gap, control_gap : float
        The unweighted means over items of g_v and g_c.
    value_size, control_size : float
        The means over items of |g_v| and |g_c| (the control's is its sensitivity index).
    difference, size_difference : float
        The means over items of g_v − g_c and of |g_v| − |g_c|.
    signed, absolute : TestResult
        The exact sign-flip tests (two-sided) on the per-item ``difference`` and ``size_difference``.
    signed_p_adjusted, absolute_p_adjusted : float
        Their p corrected across the family (every compared value's two tests).
    equal_runs : bool
        Every item has as many runs of the value as of the control (the tests' exchangeability).
    conclusion : {"more", "less", "differs", "no_more"}
        ``more``: a corrected p at most alpha, with the value moving the metric further than the control
        (in absolute size, or its average gap larger in size); ``less``: the same, the other way;
        ``differs``: the signed test alone finds a difference, the sizes tie; ``no_more``: neither test
        tells the value from the control.
    statement : str
        The conclusion in words (no numbers).
    """

    value: str
    control: str
    baseline: str
    items: pl.DataFrame
    value_gap: float
    control_gap: float
    value_size: float
    control_size: float
    difference: float
    size_difference: float
    signed: TestResult
    absolute: TestResult
    signed_p_adjusted: float
    absolute_p_adjusted: float
    equal_runs: bool
    conclusion: str
    statement: str

    @property
    def n_items(self) -> int:
        return self.items.height

    def to_dict(self) -> dict:
        return {"value": self.value, "control": self.control, "baseline": self.baseline, "n_items": self.n_items,
                "value_gap": _num(self.value_gap), "control_gap": _num(self.control_gap),
                "value_size": _num(self.value_size), "control_size": _num(self.control_size),
                "difference": _num(self.difference), "size_difference": _num(self.size_difference),
                "signed": _test_dict(self.signed, self.signed_p_adjusted),
                "absolute": _test_dict(self.absolute, self.absolute_p_adjusted),
                "equal_runs": self.equal_runs, "conclusion": self.conclusion, "statement": self.statement,
                "items": [{k: (str(v) if k == "item" else _num(v) if isinstance(v, float) else v)
                           for k, v in r.items()} for r in self.items.iter_rows(named=True)]}


@dataclass(frozen=True)
class ControlComparison:
    """The control beside an analysis: its own gap against the baseline, and every compared value against it.

    Carried by the verdict (``verdict.control``), so every renderer words the same answer to "does the
    attribute move the metric more than a meaningless change does".

    Attributes
    ----------
    metric, control, baseline : str
    alpha : float
    correction : {"holm", "bonferroni", "bh", "none"}
        The correction across ``tests`` (two per compared value).
    control_gap : float
        The control's average item gap against the baseline.
    control_size : float
        The mean over items of its absolute item gaps: the sensitivity index.
    control_test : TestResult
        The exact sign-flip test (two-sided) on the control's item gaps against the baseline.
    control_items : int
        The items that gap is measured on.
    control_moves : bool
        ``control_test`` p at most alpha: the system reacts to a meaningless edit (a finding).
    tests : tuple of ControlTest
        One per compared value.
    more : tuple of str
        The values that moved the metric more than the control did.
    left_out : tuple of str
        Items of the analysis with no run of the control (or of the baseline) with a metric value.
    statement : str
        The answer in words: which values moved the metric more than the control, and which did not.
    method : str
        The tests, in words.
    """

    metric: str
    control: str
    baseline: str
    alpha: float
    correction: str
    control_gap: float
    control_size: float
    control_test: TestResult
    control_items: int
    control_moves: bool
    tests: tuple[ControlTest, ...]
    more: tuple[str, ...]
    left_out: tuple[str, ...]
    statement: str
    method: str = METHOD

    def to_dict(self) -> dict:
        return {"metric": self.metric, "control": self.control, "baseline": self.baseline, "alpha": self.alpha,
                "correction": self.correction, "control_gap": _num(self.control_gap),
                "control_size": _num(self.control_size), "control_test": _test_dict(self.control_test, None),
                "control_items": self.control_items, "control_moves": self.control_moves,
                "tests": [t.to_dict() for t in self.tests], "more": list(self.more),
                "left_out": list(self.left_out), "statement": self.statement, "method": self.method}


# ---------------------------------------------------------------------------- the statistics


def _gaps(frame: pl.DataFrame, metric: str, value: str, baseline: str, blocks: Sequence[str]) -> pl.DataFrame:
    """Per item: ``value``'s gap against ``baseline`` and the runs of both (matched within ``blocks``)."""
    if blocks:
        table = blocked_item_table(frame, metric, value, baseline, blocks)
    else:
        table = item_table(frame, metric, value, baseline)
    means = [c for c in ("mean_a", "mean_b") if c in table.columns]
    return table.select(pl.col("item").cast(pl.String), "gap", "n_a", "n_b", *means)


def _exact_gap(table: pl.DataFrame, a: str, b: str, fallback: str) -> float:
    """The mean over items of column ``a`` minus column ``b``, from their exact sums (no float residue);
    the mean of ``fallback`` where the table has no item means."""
    if a in table.columns and b in table.columns and not table[a].null_count() and not table[b].null_count():
        return mean_of_combination([(1, table[a].to_list()), (-1, table[b].to_list())])
    return math.fsum(table[fallback].to_list()) / table.height


def _conclusion(difference_mean: float, value_gap: float, control_gap: float, size_difference: float,
                p_signed: float, p_absolute: float, alpha: float) -> str:
    """More, less, differs or no more (see :class:`ControlTest`), from the corrected p of both tests.

    >>> _conclusion(1.0, 2.0, 1.0, 1.0, 0.01, 0.2, 0.05), _conclusion(0.0, 1.0, 1.0, 0.0, 0.5, 0.6, 0.05)
    ('more', 'no_more')
    >>> _conclusion(-2.0, -1.0, 1.0, 0.0, 0.01, 0.9, 0.05)
    'differs'
    """
    ways = []
    if p_absolute <= alpha and size_difference != 0:
        ways.append(size_difference > 0)
    if p_signed <= alpha and abs(value_gap) != abs(control_gap):
        ways.append(abs(value_gap) > abs(control_gap))
    if any(ways):
        return "more"
    if ways:
        return "less"
    return "differs" if p_signed <= alpha else "no_more"


def _statement(conclusion: str, value: str, control: str, baseline: str, metric: str) -> str:
    return {
        "more": f"'{value}' moved {metric} more than the control '{control}' (a meaningless edit) did",
        "less": f"'{value}' moved {metric} less than the control '{control}' (a meaningless edit) did",
        "differs": (f"'{value}' shifted {metric} otherwise than the control '{control}' (a meaningless edit) did, "
                    "but not further"),
        "no_more": (f"'{value}' moved {metric} no more than the control '{control}' (a meaningless edit) did, "
                    f"which does not show that '{value}' has no effect of its own"),
    }[conclusion]


def compare_control(log, *, metric: str, values: Sequence[str], baseline: str, control: str,
                    blocks: Sequence[str] = (), alpha: float = 0.05, correction: str = "holm",
                    fold_case: bool = False, items: Sequence[str] | None = None) -> ControlComparison:
    """Every value of ``values`` against the ``control``, both measured from the ``baseline``.

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
        A log holding the runs of the values, the baseline and the control (anything
        :func:`probestats.read_log` reads).
    metric : str
    values : sequence of str
        The values set against the control (one for a pair; every value but the reference for many).
    baseline, control : str
    blocks : sequence of str
        Settings that vary within cells: items are matched within each of their values, as the main
        analysis matched them.
    alpha, correction
        The level of the conclusions, and the correction across the tests (two per value).
    fold_case : bool
        Values that differ only in case are one (as in the main analysis).
    items : sequence of str, optional
        The items of the main analysis: only these are compared (default: every item with the runs).

    Raises
    ------
    OptionError
        The control or the baseline is not a value of the log, or is one of ``values``.
    ValidationError
        The control's rows have errors (a metric that is not a number).
    """
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.checks.schema import ColumnRoles, validate

    values = [str(v) for v in values]
    if control == baseline or control in values:
        raise OptionError(f"{opt('control', control)}: the control is a meaningless edit set beside the compared "
                          "values, not one of them; name another value as the control")
    checked = validate(log, metric=metric, a=control, b=baseline, fold_case=fold_case, same_seeds=False,
                       roles=ColumnRoles(keep=[c for c in blocks]))
    for name, v in (("control", control), ("baseline", baseline), *(("values", x) for x in values)):
        if v not in checked.values:
            shown = ", ".join(f"'{x}'" for x in checked.values[:12]) + (" ..." if len(checked.values) > 12 else "")
            raise OptionError(f"{opt(name if name != 'values' else 'control', v if name != 'values' else control)}: "
                              f"'{v}' is not a value of the log; values seen: {shown}")
    errors = [p for p in checked.problems if p.severity == "error" and p.code != "unmatched_item"]
    if errors:
        raise ValidationError([replace(p, message=f"control: {p.message}") for p in errors])
    frame = checked.frame
    control_table = _gaps(frame, metric, control, baseline, blocks)
    if items is not None:
        order = pl.DataFrame({"item": [str(i) for i in items]}, schema={"item": pl.String})
        control_table = order.join(control_table, on="item", how="inner", maintain_order="left")
        left_out = tuple(i for i in order["item"].to_list() if i not in set(control_table["item"].to_list()))
    else:
        left_out = ()
    if control_table.height == 0:
        raise OptionError(f"{opt('control', control)}: no item has runs of both '{control}' and '{baseline}' with a "
                          f"{metric}; log the control's runs of the same items (in the log, or in a file read with it)")
    control_gaps = control_table["gap"].to_list()
    control_test = replace(sign_flip_test(control_gaps, alpha=alpha),   # its statistic: the exact mean gap
                           statistic=_exact_gap(control_table, "mean_a", "mean_b", "gap"))
    raw, exacts = [], []
    for value in values:
        joined = (_gaps(frame, metric, value, baseline, blocks)
                  .rename({"gap": "value_gap", "n_a": "n_value", "mean_a": "_mv", "mean_b": "_mb"}, strict=False)
                  .join(control_table.rename({"gap": "control_gap", "n_a": "n_control", "n_b": "n_baseline",
                                              "mean_a": "_mc", "mean_b": "_mcb"}, strict=False),
                        on="item", how="inner", maintain_order="right"))
        exact = {"value_gap": _exact_gap(joined, "_mv", "_mb", "value_gap"),
                 "control_gap": _exact_gap(joined, "_mc", "_mcb", "control_gap"),
                 "difference": _exact_gap(joined, "_mv", "_mc", "value_gap")
                 if "_mv" in joined.columns and "_mc" in joined.columns else None}
        table = (joined
                 .select("item", "value_gap", "control_gap",
                         (pl.col("value_gap") - pl.col("control_gap")).alias("difference"),
                         (pl.col("value_gap").abs() - pl.col("control_gap").abs()).alias("size_difference"),
                         "n_value", "n_control", "n_baseline"))
        if table.height == 0:
            raise OptionError(f"{opt('control', control)}: no item has runs of '{value}', '{control}' and "
                              f"'{baseline}'; log the control's runs of the same items")
        if exact["difference"] is None:
            exact["difference"] = math.fsum(table["difference"].to_list()) / table.height
        exacts.append(exact)
        raw.append((value, table, replace(sign_flip_test(table["difference"].to_list(), alpha=alpha),
                                          statistic=exact["difference"]),
                    sign_flip_test(table["size_difference"].to_list(), alpha=alpha)))
    adjusted = adjust([p for _, _, s, a in raw for p in (s.pvalue, a.pvalue)], correction)
    tests = []
    for k, (value, table, signed, absolute) in enumerate(raw):
        p_signed, p_absolute = adjusted[2 * k], adjusted[2 * k + 1]
        mean = lambda c: math.fsum(table[c].to_list()) / table.height   # noqa: E731
        value_gap, control_gap = exacts[k]["value_gap"], exacts[k]["control_gap"]
        size_difference = mean("size_difference")
        conclusion = _conclusion(exacts[k]["difference"], value_gap, control_gap, size_difference, p_signed, p_absolute,
                                 alpha)
        tests.append(ControlTest(
            value=value, control=control, baseline=baseline, items=table, value_gap=value_gap,
            control_gap=control_gap, value_size=math.fsum(abs(x) for x in table["value_gap"]) / table.height,
            control_size=math.fsum(abs(x) for x in table["control_gap"]) / table.height,
            difference=exacts[k]["difference"], size_difference=size_difference, signed=signed, absolute=absolute,
            signed_p_adjusted=p_signed, absolute_p_adjusted=p_absolute,
            equal_runs=bool((table["n_value"] == table["n_control"]).all()), conclusion=conclusion,
            statement=_statement(conclusion, value, control, baseline, metric)))
    more = tuple(t.value for t in tests if t.conclusion == "more")
    return ControlComparison(
        metric=metric, control=control, baseline=baseline, alpha=alpha, correction=correction,
        control_gap=_exact_gap(control_table, "mean_a", "mean_b", "gap"),
        control_size=math.fsum(abs(g) for g in control_gaps) / len(control_gaps), control_test=control_test,
        control_items=len(control_gaps), control_moves=control_test.pvalue <= alpha, tests=tuple(tests),
        more=more, left_out=left_out, statement=_overall(tests, control, metric))


def _overall(tests: Sequence[ControlTest], control: str, metric: str) -> str:
    """The answer for every compared value, in one sentence.

    >>> from types import SimpleNamespace as NS
    >>> _overall([NS(value="A", conclusion="more"), NS(value="B", conclusion="no_more")], "typo", "x")
    "'A' moved x more than the control 'typo' (a meaningless edit) did; 'B' no more than it did"
    """
    if len(tests) == 1:
        return tests[0].statement
    words = {"more": "more than", "no_more": "no more than", "less": "less than", "differs": "otherwise than"}
    parts = []
    for conclusion in ("more", "no_more", "less", "differs"):
        named = [f"'{t.value}'" for t in tests if t.conclusion == conclusion]
        if not named:
            continue
        if not parts:
            parts.append(f"{', '.join(named)} moved {metric} {words[conclusion]} the control '{control}' "
                         "(a meaningless edit) did" + (", but not further" if conclusion == "differs" else ""))
        else:
            parts.append(f"{', '.join(named)} {words[conclusion]} it did"
                         + (", but not further" if conclusion == "differs" else ""))
    return "; ".join(parts)


# ---------------------------------------------------------------------------- beside an analysis


def _value_text(fold_case: bool) -> pl.Expr:
    """The value column as validation tells values apart: surrounding spaces do not count, nor (folded) case."""
    value = pl.col("variant").cast(pl.String).str.strip_chars()
    return value.str.to_lowercase() if fold_case else value


def log_values(log, fold_case: bool = False) -> list[str]:
    """The log's values in order of first appearance, read from its value column alone.

    >>> from probestats.io.read import read_log
    >>> log_values(read_log([{"item": 1, "variant": v, "x": 0} for v in ("b ", "a", "b")]))
    ['b', 'a']
    """
    frame = collect(log.lazy.select(_value_text(fold_case).alias("v")).unique(maintain_order=True).drop_nulls(),
                    log.source, log._path)
    return [v for v in frame["v"].to_list() if v != ""]


def without_control(log, control: str | None, probe=None):
    """The log without the control's rows (the main analysis does not see them); ``log`` itself without a control.

    The control's runs are told apart as validation tells values apart: surrounding spaces do not count,
    nor (when the ``probe`` folds case) case.
    """
    if control is None:
        return log

    fold_case = bool(probe is not None and probe.fold_case)
    value = _value_text(fold_case)
    wanted = str(control).strip().lower() if fold_case else str(control).strip()
    read = dict(log._read)
    read.setdefault("unfiltered", log.lazy)   # row numbers stay those of the file as read
    lazy = log.lazy.filter(value.is_null() | (value != wanted))
    return replace(log, lazy=lazy.select(pl.all().exclude(ROW), pl.col(ROW)), _read=read)


def with_control(result, log, probe=None, tests=None, *, control: str):
    """``result`` (a paired or many-values analysis) with the control set beside it: the comparison on its
    verdict (``verdict.control``) and its warnings among the problems, its values told apart in any case when the
    ``probe`` folds case, its tests corrected with the ``tests``' correction.

    The baseline is the pair's (``result.baseline``, else value B) or the many-values reference; every other
    compared value is set against the control.
    """
    main = result.main
    verdict = result.verdict
    if hasattr(main, "omnibus"):   # many values: every value but the reference
        baseline = main.reference
        values = [v.value for v in main.values if v.value != baseline]
        if any(v.names for v in main.values):
            raise OptionError(f"{opt('control')} sets single values against the control; drop {opt('group')}")
        items = list(dict.fromkeys(str(i) for i in main.items["item"].to_list()))
        blocks = ()
    else:
        baseline = getattr(result, "baseline", None) or main.b
        values = [main.a if baseline == main.b else main.b]
        items = [str(i) for i in main.items["item"].to_list()]
        blocks = tuple(getattr(verdict, "blocks", ()) or ())
    comparison = compare_control(log, metric=main.metric, values=values, baseline=baseline, control=control,
                                 blocks=blocks, alpha=result.alpha,
                                 correction="holm" if tests is None else tests.correction,
                                 fold_case=bool(probe is not None and probe.fold_case), items=items)
    problems = list(result.problems) + _problems(comparison)
    verdict = replace(verdict, control=comparison)
    if verdict.conclusion == "against_constant":   # the control is the reference a constant arm lacked
        verdict = replace(verdict, conclusion="detected", statement=STATEMENTS["detected"])
    return replace(result, verdict=verdict, problems=tuple(problems))


def _problems(c: ControlComparison) -> list[Problem]:
    """What a reader must be told about the control: items it lacks, and unequal runs of value and control."""
    out = []
    if c.left_out:
        shown = ", ".join(c.left_out[:10]) + (f" and {len(c.left_out) - 10} more" if len(c.left_out) > 10 else "")
        out.append(Problem("warning", "control_unmatched",
                           f"{count_of(len(c.left_out), 'item')} ({shown}) of the analysis had no runs of the control "
                           f"'{c.control}' with a {c.metric}, so the control comparison leaves "
                           f"{'it' if len(c.left_out) == 1 else 'them'} out; log the control's runs of every item"))
    for t in c.tests:
        if not t.equal_runs:
            out.append(Problem("warning", "control_unequal_runs",
                               f"some items have different numbers of runs of '{t.value}' and of the control "
                               f"'{c.control}': the tests against the control take their labels as exchangeable "
                               "within items, which unequal runs only approach; give both the same runs per item"))
    return out
