"""Mitigation re-runs: the same probe before and after a change, side by side.

A mitigation is judged by rerunning the whole probe with the same items, values,
seeds and metric. :func:`compare_runs` refuses two logs that differ in any of these
(``not_comparable``, naming what differs), analyzes both the same way, and reports
the change in the average gap with, per item, the change in its gap
(after − before), tested with the sign-flip test across items.

Examples
--------
>>> before = [{"item": i, "variant": v, "seed": 1, "steps": 4 + (v == "formal")}
...           for i in range(6) for v in ("formal", "casual")]
>>> after = [dict(r, steps=4) for r in before]
>>> result = compare_runs(before, after, metric="steps")
>>> result.change_average_gap, result.change_test.pvalue
(-1.0, 0.03125)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Mapping

import polars as pl

from probestats.result import Result, html_summary, one_line

from probestats.errors import ColumnError, ProbestatsError, ValidationError, either, opt
from probestats.stats.hypotests import TestResult, sign_flip_test
from probestats.errors import Problem
from probestats.analyses.paired import analyze_pair
from probestats.analyses.question import Question, Run
from probestats.analyses.verdict import NoiseCheck, decide, decide_change
from probestats.shape.probe import Probe
from probestats.vocabulary import Tests, check_vocabulary

__all__ = ["NotComparableError", "Comparison", "comparable_problems", "compare_runs"]


class NotComparableError(ProbestatsError):
    """Two logs compared as before and after differ in items, values, seeds or metric.

    ``problems`` holds one ``not_comparable`` problem per difference.
    """

    def __init__(self, problems):
        self.problems = list(problems)
        super().__init__("the logs are not comparable: " + "; ".join(p.message for p in self.problems)
                         + " (rerun the after probe with the same items, values, seeds and metric)")


def _num(x) -> float | None:
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _list(values, limit: int = 10) -> str:
    values = [str(v) for v in values]
    text = ", ".join(values[:limit])
    return text + (f" and {len(values) - limit} more" if len(values) > limit else "")


def _seeds(frame: pl.DataFrame) -> dict[tuple[str, str], tuple[str, ...]]:
    per = frame.group_by("item", "variant", maintain_order=True).agg(
        pl.col("seed").cast(pl.String).drop_nulls().unique())

    def key(logged: str):   # a run's seed as the log wrote it: numbers by value, then text
        try:
            return (0, float(logged), logged)
        except ValueError:
            return (1, 0.0, logged)

    return {(i, v): tuple(sorted(s, key=key)) for i, v, s in per.iter_rows()}


def comparable_problems(before, after, *, metric: str, names: tuple[str, str] = ("BEFORE", "AFTER"),
                        values: tuple[str, str] | None = None) -> list[Problem]:
    """What differs between two checked logs (:class:`probestats.checks.schema.Checked`): items, values, seeds, metric.

    ``values`` limits the item and seed comparison to the compared pair.
    """
    nb, na = names
    problems = []

    def add(message):
        problems.append(Problem("error", "not_comparable", message))

    for checked, name in ((before, nb), (after, na)):
        if metric not in checked.frame.columns:
            add(f"the metric '{metric}' is not a column of {name} ({checked.log.source})")
    if problems:
        return problems
    vb, va = set(before.values), set(after.values)
    if vb != va:
        for only, name in ((vb - va, nb), (va - vb, na)):
            if only:
                add(f"values {_list(sorted(repr(v) for v in only))} are only in {name}")
    fb, fa = before.frame, after.frame
    if values is not None:
        fb = fb.filter(pl.col("variant").is_in(list(values)))
        fa = fa.filter(pl.col("variant").is_in(list(values)))
    ib = fb["item"].unique(maintain_order=True).to_list()
    ia = fa["item"].unique(maintain_order=True).to_list()
    for only, name in (([i for i in ib if i not in set(ia)], nb), ([i for i in ia if i not in set(ib)], na)):
        if only:
            add(f"items {_list(only)} are only in {name}")
    has_b, has_a = "seed" in fb.columns, "seed" in fa.columns
    if has_b != has_a:
        add(f"only {nb if has_b else na} has a seed column")
    elif has_b:
        sb, sa = _seeds(fb), _seeds(fa)
        differ = [k for k in sb if k in sa and sb[k] != sa[k]]
        if differ:
            items = list(dict.fromkeys(k[0] for k in differ))
            i, v = differ[0]
            add(f"seeds differ in items {_list(items)} (item {i} '{v}': {nb} ran {_list(sb[(i, v)], 5)}, "
                f"{na} ran {_list(sa[(i, v)], 5)})")
    return problems


def _verdict(analysis):
    """The analysis's verdict; one decided from its parts for a result that carries none (built by hand)."""
    if getattr(analysis, "verdict", None) is not None:
        return analysis.verdict

    return decide(analysis.main, NoiseCheck("none", "no same-versus-same comparison", False,
                                            reason="none was given"), alpha=analysis.alpha)


@dataclass(frozen=True)
class Comparison(Result):
    """A probe before and after a change, analyzed the same way.

    Attributes
    ----------
    before, after : probestats.analyses.paired.Analysis
    names : tuple of str
        How the two logs are called (their file names).
    items : polars.DataFrame
        item, gap_before, gap_after, change (after − before).
    change_test : TestResult
        Sign-flip test on the per-item changes.
    problems : tuple of Problem
        Both logs' warnings, each saying which log it is about.
    seeds_checked : bool
        Both logs have a seed column, so their seeds were compared (False: neither has one,
        and whether the same seeds were used is unknown).
    verdict : ChangeVerdict
        Whether the gap changed and whether the after run still detects one, decided once
        (:func:`probestats.analyses.verdict.decide_change`); every renderer words it.
    """

    MAIN_TABLE = "change.items"

    def _headline(self):
        return self.change_test

    before: object
    after: object
    names: tuple[str, str]
    items: pl.DataFrame = field(repr=False)
    change_test: TestResult
    problems: tuple[Problem, ...] = ()
    seeds_checked: bool = True
    verdict: object | None = None

    @property
    def change_average_gap(self) -> float:
        return float(self.after.main.average_gap - self.before.main.average_gap)

    @property
    def pvalue(self) -> float:
        """The headline p: the exact sign-flip test of the per-item change (``change_test.pvalue``)."""
        return self.change_test.pvalue

    def to_frame(self) -> pl.DataFrame:
        """The per-item table: each item's gap before and after, and the change."""
        return self.items

    def __repr__(self) -> str:
        return one_line(self, before=self.names[0], after=self.names[1], n_items=self.items.height,
                        change_average_gap=self.change_average_gap, p=self.pvalue)

    def _repr_html_(self) -> str:
        return html_summary(self, self.items, before=self.names[0], after=self.names[1],
                            change_average_gap=self.change_average_gap, p=self.pvalue,
                            method=self.change_test.method)

    def to_dict(self) -> dict:
        before, after = self.before.main, self.after.main
        return {
            "names": {"before": self.names[0], "after": self.names[1]},
            "metric": before.metric, "a": before.a, "b": before.b,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "change": {
                "average_gap": _num(self.change_average_gap),
                "p_before": before.sign_flip.pvalue,
                "p_after": after.sign_flip.pvalue,
                "items": [{"item": str(r["item"]), "gap_before": _num(r["gap_before"]),
                           "gap_after": _num(r["gap_after"]), "change": _num(r["change"])}
                          for r in self.items.iter_rows(named=True)],
                "sign_flip": {"p": self.change_test.pvalue, "method": self.change_test.method,
                              "alternative": self.change_test.alternative},
            },
            "seeds_checked": self.seeds_checked,
            "problems": [p.to_dict() for p in self.problems],
            **({"verdict": self.verdict.to_dict()} if self.verdict is not None else {}),
        }


def compare_runs(before, after, *, metric: str, a: str | None = None, b: str | None = None,
                 alternative: str = "two-sided", alpha: float = 0.05, fold_case: bool = False,
                 names: tuple[str, str] | None = None, read_options: Mapping | None = None,
                 after_read_options: Mapping | None = None, streaming: bool = False) -> Comparison:
    """Check that two logs are the same probe, analyze both, and report the change (after − before).

    Parameters
    ----------
    before, after : path, Log, list of dict or DataFrame
    metric : str
    a, b : str, optional
        The compared values (default: the first two values of ``before``), used for both logs.
    alternative, alpha, fold_case
        As in :func:`probestats.analyses.paired.analyze_pair`.
    names : (str, str), optional
        What to call the logs in messages (default: their file names, or BEFORE and AFTER).
    read_options, after_read_options : dict, optional
        :func:`probestats.read_log` options for each log (the second defaults to the first).
    streaming : bool
        Check and analyze each log in one streaming pass (:mod:`probestats.checks.stream`), so
        memory grows with items x values, not rows; logs that need their rows (a problem to name,
        logs that differ) are read as usual. The result is the same.

    Raises
    ------
    NotComparableError
        When the logs differ in items, values, seeds or metric.
    """
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.checks.schema import require_ok, validate

    check_vocabulary(alternative=alternative, alpha=alpha)

    # each log's paired analysis: the pair asked (else validation's), read with case folded as asked
    probe, tests = Probe(fold_case=fold_case), Tests(alternative=alternative, alpha=alpha)
    read = dict(read_options or {})
    read_after = dict(after_read_options if after_read_options is not None else read)
    if streaming:
        streamed = _compare_streaming(before, after, Question(metric, a=a, b=b), probe, tests, names=names,
                                      read=read, read_after=read_after)
        if streamed is not None:
            return streamed
    cb = validate(before, metric=metric, a=a, b=b, fold_case=fold_case, read=read)
    ca = validate(after, metric=metric, a=a, b=b, fold_case=fold_case, read=read_after)
    if names is None:
        names = ("BEFORE", "AFTER") if cb.log.source == ca.log.source else (cb.log.source, ca.log.source)
    missing = [p for c, n in ((cb, names[0]), (ca, names[1])) for p in c.problems
               if p.code == "missing_column" and p.column == metric]
    lists = [p for c in (cb, ca) for p in c.problems if p.code == "list_value"]
    if lists:   # the metric is there, as lists: say how to read them, not that it is missing
        raise ValidationError(lists[:1])
    if all(metric not in c.frame.columns for c in (cb, ca)):
        seen = ", ".join(h.strip() for h in cb.log.headers)
        mapping = either(f"read_options={{'columns': {{{metric!r}: HEADER}}}}", f"--column {metric}=HEADER")
        raise ColumnError(f"neither log has a column for the metric '{metric}'; headers seen in {names[0]}: {seen} "
                          f"(choose {opt('metric')}, or map it with {mapping})")
    if missing:
        raise NotComparableError([Problem("error", "not_comparable", f"the metric '{metric}' is not a column of {n}")
                                  for c, n in ((cb, names[0]), (ca, names[1])) if metric not in c.frame.columns])
    problems = comparable_problems(cb, ca, metric=metric, names=names,
                                   values=(cb.a, cb.b) if cb.a is not None and cb.b is not None else None)
    if problems:
        raise NotComparableError(problems)
    require_ok(cb)
    require_ok(ca)
    kw = (Question(metric, a=cb.a, b=cb.b), probe, tests)
    return compare_results(analyze_pair(cb.log, *kw), analyze_pair(ca.log, *kw), names=names, alternative=alternative,
                           seeds_checked="seed" in cb.frame.columns and "seed" in ca.frame.columns)


def _compare_streaming(before, after, question, probe, tests, *, names, read, read_after):
    """:func:`compare_runs` from one streaming pass over each log: the same checks on the cells (items,
    values, and seeds by each cell's fingerprint) and the same analyses; None when a log needs its
    rows or the logs differ (the row path then names what differs, seed by seed)."""
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.checks.stream import PassOptions, validate_streaming

    metric, a, b, fold_case = question.metric, question.a, question.b, probe.fold_case
    passes = []
    for log, options in ((before, read), (after, read_after)):
        streamed = validate_streaming(log, metric=metric, a=a, b=b, fold_case=fold_case, halves=True,
                                      options=PassOptions(read=dict(options or {})))
        if streamed is None or streamed.per is None or not streamed.checked.ok:
            return None
        passes.append(streamed)
    sb, sa = passes
    cb, ca = sb.checked, sa.checked
    if set(cb.values) != set(ca.values) or (cb.a, cb.b) != (ca.a, ca.b):
        return None
    if names is None:
        names = ("BEFORE", "AFTER") if cb.log.source == ca.log.source else (cb.log.source, ca.log.source)
    seeded = ["seeds" in s.per.columns for s in passes]
    cells = [s.per.filter(pl.col("variant").is_in([cb.a, cb.b])) for s in passes]
    if set(cells[0]["item"].to_list()) != set(cells[1]["item"].to_list()) or seeded[0] != seeded[1]:
        return None
    if seeded[0]:   # each cell's seeds are distinct (the pass showed it): equal sets have equal fingerprints
        keys = ["item", "variant", "n", "seeds"]
        joined = cells[0].select(keys).join(cells[1].select(keys), on=["item", "variant"], how="full",
                                            suffix="_after")
        if not joined.select(((pl.col("n") == pl.col("n_after")) & (pl.col("seeds") == pl.col("seeds_after")))
                             .fill_null(False).all()).item():
            return None
    kw = (replace(question, a=cb.a, b=cb.b), probe, tests)
    res_b = analyze_pair(cb.log, *kw, Run(streaming=True, streamed=sb))
    res_a = analyze_pair(ca.log, *kw, Run(streaming=True, streamed=sa))
    return compare_results(res_b, res_a, names=names, alternative=tests.alternative, seeds_checked=seeded[0])


def compare_results(res_b, res_a, *, names, alternative: str, seeds_checked: bool) -> Comparison:
    """The comparison of two analyses of the same items: each item's change in gap (after minus
    before), the sign-flip test of those changes, and each run's problems tagged with its name."""
    items = res_b.main.items.select("item", pl.col("gap").alias("gap_before")).join(
        res_a.main.items.select("item", pl.col("gap").alias("gap_after")), on="item", maintain_order="left")
    items = items.with_columns((pl.col("gap_after") - pl.col("gap_before")).alias("change"))
    test = sign_flip_test(items["change"].to_list(), alternative=alternative)
    tagged = tuple(replace(p, message=f"{n}: {p.message}") for r, n in ((res_b, names[0]), (res_a, names[1]))
                   for p in r.problems)

    return Comparison(before=res_b, after=res_a, names=tuple(names), items=items, change_test=test, problems=tagged,
                      seeds_checked=seeds_checked, verdict=decide_change(test, _verdict(res_a), alpha=res_a.alpha))
