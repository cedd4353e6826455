"""The report's context: words chosen from numbers, and the sections and templates that lay them out.

:func:`report_context` is the only place where words are chosen from numbers (what is
called detected, which items drive a gap, what a null result may and may not claim).
:func:`render_report` renders that context through the templates in
``report_templates/`` as Markdown, one self-contained HTML page, or JSON.

Sections (:data:`SECTIONS`), each a template ``<name>.md.j2`` / ``<name>.html.j2``:

- ``summary``: one plain-language sentence for a general audience;
- ``design``: attribute, values, items, runs, metric and definition, held fixed and varied, dates;
- ``table``: the per-item table with an average row;
- ``tests``: sign-flip test, sign test with its spreadsheet formula, interval, smallest attainable p;
- ``noise``: the same-versus-same comparison and the per-item gap plot with its noise band;
- ``control``: with a control wording (``control=``), each value's gap set against the meaningless edit's,
  item by item, with the exact tests of their difference (:mod:`probestats.present.words.control`);
- ``power``: the minimum detectable gap of the design run, and the power plot;
- ``groups``: with ``--by``, each group's sign-flip p and its corrected p (Holm by default);
- ``ceilings``: with a judge's ``--scale``, the cells whose baseline sits at the top or bottom;
- ``many``: more than two values: means, gaps against the reference, the omnibus test, pairwise
  tests, selection rates and impact ratios for a 0/1 metric (a report of its own, with ``limits``);
- ``factors``: two attributes: within-level gaps, main effects, interaction (likewise);
- ``compare``: the same probe before a change (``comparison=``), side by side with this run;
- ``finding``: the result stated with its conditions and size (the items that drive a detected gap,
  when they stand out; otherwise how many items it is spread over);
- ``limits``: always: held fixed or not, size, what the metric cannot see, attributes not tested;
- ``framing``: a dual-framing result, only when one is given;
- ``judge``: an order probe of a pairwise judge (:mod:`probestats.present.report.judge`), only when one is given.

A report that holds several analyses (a metric with a control, an order probe or a framing log beside
it) states each one's verdict in its Summary, one paragraph each (``summary_more``), so no verdict
waits in a section after the Limits.

The context of the optional sections is built in :mod:`probestats.present.report.groups`. Rendering
reads results only: no log is read and nothing is simulated here.

Honesty rules kept here and in the templates: a null result carries its conditions and
size; no sentence claims the system is free of bias except to deny it; a detected gap
names its items before any explanation; every figure names its test and method; p-values
near alpha get the digits they need (:func:`fmt_p`). Everything taken from a log or a
design file is escaped: HTML templates autoescape, Markdown output passes every printed
value through :func:`md_escape`.
"""

from __future__ import annotations

import base64
import html
import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote


from probestats import __version__
from probestats.analyses.halves import block_noun
from probestats.checks.facts import LogFacts, row_facts
from probestats.checks.schema import SETTINGS, unmapped_settings
from probestats.errors import OptionError
from probestats.errors import count_of, either, opt
from probestats.present.plots.items import ITEM_PLOT_ENDS, ITEM_PLOT_LIMIT, figure_png, item_gaps, noise_band
from probestats.present.plots.power import power_curve
from probestats.present.report.collapse import ITEMS_CSV, collapsed_rows, grouped_warnings, items_csv
from probestats.present.report.environment import Todo, environment, template_root, user_template_errors
from probestats.present.report.files import write_assets
from probestats.present.report.framing import framing_sentences
from probestats.present.report.groups import groups_context
from probestats.present.report.outline import design_limits
from probestats.present.report.plain import flags_in_words
from probestats.present.words.control import control_context, control_finding, control_of, control_summary
from probestats.present.words.effects import effects_context
from probestats.present.words.fmt import MdSafe, fmt_gap, fmt_interval, fmt_num, fmt_p, md_escape
from probestats.present.words.fmt import p_is as _p_is
from probestats.present.words.runs import runs_phrase, runs_words
from probestats.present.words.verdict import caveat_sentences, noise_check_sentences, summary_clause, verdict_line, verdict_of
from probestats.result import jsonable
from probestats.result import SCHEMA_VERSION
from probestats.shape.design import Design

__all__ = ["SECTIONS", "FORMATS", "report_context", "fmt_p", "fmt_num", "fmt_gap",
           "md_escape", "MdSafe", "Todo", "template_root", "gap_drivers"]

#: Section names in the order a full report shows them.
SECTIONS = ("summary", "design", "table", "tests", "groups", "ceilings", "many", "factors", "noise", "control",
            "power", "compare", "describe", "validation", "finding", "limits", "framing", "judge")
#: The sections of a paired analysis (``groups`` with ``--by``, ``ceilings`` with ``--scale``, ``control`` with a
#: control wording).
PAIR_SECTIONS = ("summary", "design", "table", "tests", "groups", "ceilings", "noise", "control", "power", "finding",
                 "limits")
#: Sections shown when none are asked for, for a paired analysis without groups, scale, comparison, framing or judge.
DEFAULT_SECTIONS = tuple(s for s in PAIR_SECTIONS if s not in ("groups", "ceilings", "control"))
#: Template file of a section, where it is not the section's own name.
SECTION_TEMPLATES = {"compare": "before_after"}
FORMATS = ("md", "html", "json")
LIST_LIMIT = 40  # items listed by name in the design section before "and N more"
SETTING_LIMIT = 160  # characters of a held-fixed setting's value shown
DRIVER_LIMIT = 10  # at most this many items are named as driving a gap
DRIVER_RATIO = 1.5  # named drivers are on average at least this many times the size of the other items' gaps


# ---------------------------------------------------------------------------- formatting


def _fmt_pair(x: float, y: float, fmt=fmt_num) -> tuple[str, str]:
    """Format two numbers with enough digits that different numbers never look equal."""
    for digits in range(4, 17):
        sx, sy = fmt(x, digits), fmt(y, digits)
        if (sx == sy) == (x == y):
            return sx, sy
    return sx, sy


# ---------------------------------------------------------------------------- templates


# ---------------------------------------------------------------------------- context


def quoted(text) -> str:
    """A value or item as quoted in a sentence."""
    return f"'{text}'"


def _item_name(item) -> str:
    text = str(item)
    return text if re.fullmatch(r"[\w.\-]{1,24}", text) else f"'{text}'"


def join_words(words: list[str], last: str = "and") -> str:
    """Words joined as a sentence lists them: ``a, b and c``."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} {last} {words[-1]}"


def _cut(text, limit: int = SETTING_LIMIT) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


_SETTING_NAMES = {"model": "model", "temperature": "temperature", "system": "system prompt"}


def _facts(checked) -> LogFacts:
    """The log's facts: those the streaming pass took (``checked.facts``), or read from the rows."""
    facts = getattr(checked, "facts", None)
    return facts if facts is not None else row_facts(checked.log.frame, checked.frame, checked.metric)


def _settings(checked, by=()) -> tuple[list[tuple[str, str]], list[tuple[str, int]]]:
    """Settings the log shows held fixed (one value) and those that varied by design (with their count).

    Varied lists only the known settings (model, temperature, system prompt) and the ``--by``
    columns: any other column that varies (a sub-score, a verdict, a reply) is an outcome of
    the runs, not part of the design.
    """
    known = set(SETTINGS) | set(by)
    fixed, varied = [], []
    for col, count, value in _facts(checked).columns:
        name = _SETTING_NAMES.get(col, checked.log.columns.get(col, col))
        if count == 1:
            fixed.append((str(name), _cut(value)))
        elif count > 1 and col in known:
            varied.append((str(name), count))
    return fixed, varied


def _run_dates(checked) -> str | None:
    if "time" not in checked.log.lazy.collect_schema().names():
        return None
    frame = checked.log.frame
    col = frame["time"].drop_nulls()
    if col.len() == 0:
        return None
    if col.dtype.is_temporal():
        lo, hi = col.min(), col.max()
        lo, hi = (str(getattr(lo, "date", lambda: lo)()), str(getattr(hi, "date", lambda: hi)()))
    else:
        texts = [str(v) for v in col.to_list()]
        dates = [t[:10] for t in texts if re.match(r"\d{4}-\d{2}-\d{2}", t)]
        if len(dates) == len(texts):
            lo, hi = min(dates), max(dates)
        else:
            lo, hi = _cut(texts[0], 40), _cut(texts[-1], 40)
    return lo if lo == hi else f"{lo} to {hi}"


def _seeds_phrase(checked) -> str | None:
    seeds = _facts(checked).seeds
    if seeds is None:
        return None
    count, lo, hi = seeds
    if lo is not None and count > 2:
        return f"{count} seeds ({lo} to {hi})"
    return count_of(count, "seed")


def _fewer_runs(main, noise) -> bool:
    """True when the probe had fewer runs per value than its same-versus-same log."""
    return sum(main.runs_per_value()) < sum(noise.runs_per_value())


def gap_drivers(items, average: float) -> dict:
    """Items whose gap has the sign of the average, largest first, up to more than half of their sum.

    >>> import polars as pl
    >>> d = gap_drivers(pl.DataFrame({"item": ["a", "b", "c", "d"], "gap": [3.0, 1.0, 1.0, -1.0]}), 1.0)
    >>> d["top"], round(d["share"], 2), d["n_same"], d["other"]   # 3 of the 5 the positive items sum to
    ([('a', 3.0)], 0.6, 3, [('d', -1.0)])
    """
    rows = [(str(r["item"]), float(r["gap"])) for r in items.iter_rows(named=True)]
    sign = 1.0 if average > 0 else -1.0
    same = sorted(((i, g) for i, g in rows if g * sign > 0), key=lambda t: -abs(t[1]))
    other = sorted(((i, g) for i, g in rows if g * sign < 0), key=lambda t: -abs(t[1]))
    zero = [i for i, g in rows if g == 0]
    total = sum(abs(g) for _, g in same)
    top, acc = [], 0.0
    for item, gap in same:
        top.append((item, gap))
        acc += abs(gap)
        if acc > 0.5 * total:
            break
    return {"top": top, "share": (acc / total) if total else 0.0, "n_same": len(same),
            "other": other, "n_zero": len(zero), "stand_out": _stand_out(top, same),
            "range": (min(abs(g) for _, g in same), max(abs(g) for _, g in same)) if same else (0.0, 0.0)}


def _stand_out(top, same) -> bool:
    """True when the largest items of a gap stand out from the rest of that direction.

    They do when they are few (at most :data:`DRIVER_LIMIT`), no item left out ties the smallest
    of them, and their mean size is at least :data:`DRIVER_RATIO` times the mean size of the rest.
    Eighteen items tied at the same gap do not: that gap is spread over them.

    >>> _stand_out([("a", 5.0)], [("a", 5.0), ("b", 0.1)]), _stand_out([("a", 1.0)], [("a", 1.0)])
    (True, True)
    >>> same = [(str(i), -1.0) for i in range(18)]
    >>> _stand_out(same[:10], same)
    False
    """
    if not top or len(top) > DRIVER_LIMIT:
        return False
    rest = same[len(top):]
    if not rest:
        return len(top) == 1
    if abs(rest[0][1]) >= abs(top[-1][1]):
        return False
    top_mean = sum(abs(g) for _, g in top) / len(top)
    rest_mean = sum(abs(g) for _, g in rest) / len(rest)
    return top_mean >= DRIVER_RATIO * rest_mean


def _unmapped_words(unmapped) -> str:
    """Columns that look like settings and were not read as such, with how to map them."""
    return join_words([f"'{h}' looks like the {name} and was not read as it (map it with "
                  f"{opt('columns', {name: h})}, or declare it drawn per call with {either(f'Probe(random_settings={[h]!r})', opt('random_settings', [h]))})"
                  for h, name in unmapped])


def _settings_phrase(fixed, varied, unmapped=()) -> str:
    parts = []
    for name, value in fixed:
        if name == "system prompt":
            parts.append("one system prompt")
        else:
            parts.append(f"{name} {_cut(value, 60)}")
    held = (f"{join_words(parts)} held fixed" if parts else "no setting held fixed" if varied
            else f"no setting read from the log ({_unmapped_words(unmapped)})" if unmapped
            else "model and settings not recorded in the log")
    if varied:
        held += "; " + join_words([f"{name} varied ({n} values)" for name, n in varied])
    return held


@dataclass(frozen=True)
class _Figure:
    name: str
    png: bytes
    alt: str
    caption: str


@dataclass(frozen=True)
class _Words:
    """The words and numbers of a paired analysis that several sections of its report share."""

    analysis: object
    verdict: object
    main: object
    runs: str
    fixed: list
    varied: list
    settings_phrase: str
    unmapped: list
    p_phrase: str
    gap_text: str
    test_named: str
    interval_text: str
    minp_text: str
    span_text: str
    toward: str
    drivers: dict | None
    plain: bool = False

    @property
    def alpha(self) -> float:
        return self.analysis.alpha

    @property
    def metric(self) -> str:
        return self.main.metric

    @property
    def a(self) -> str:
        return self.main.a

    @property
    def b(self) -> str:
        return self.main.b

    @property
    def n(self) -> int:
        return self.main.n_items

    @property
    def never(self) -> bool:
        return not self.analysis.could_reach_significance

    @property
    def detected(self) -> bool:
        return self.verdict.detected

    @property
    def noise(self):
        return self.analysis.noise

    @property
    def mdg(self):
        return self.analysis.mdg


def report_context(analysis, design: Design | None = None, *, framing=None, plain: bool = False) -> dict:
    """Every word and number the templates show, chosen from the analysis (and the design file).

    Parameters
    ----------
    analysis : Analysis
        From :func:`probestats.analyze`.
    design : Design, optional
        What the log cannot say (:mod:`probestats.shape.design`); missing fields become
        visible placeholders (:class:`Todo`), never invented text.
    framing : optional
        A dual-framing result, passed to the ``framing`` section as is.
    plain : bool
        For a plain report: the tests named without their methods in the text (the methods go to its
        detail block).

    Returns
    -------
    dict
        Plain data for the templates, with ``sentences`` (section -> list of plain
        sentences) for the JSON output.

    Examples
    --------
    >>> from probestats import analyze
    >>> rows = [{"item": i, "variant": v, "seed": s, "steps": 4 + (v == "formal") + (s % 3 == i % 2)}
    ...         for i in range(5) for v in ("formal", "casual") for s in range(1, 6)]
    >>> ctx = report_context(analyze(rows, metric="steps"))
    >>> ctx["tests"]["never_significant"], ctx["finding"]["detected"]
    (True, False)
    >>> ctx["finding"]["sentences"][0]
    "The probe did not detect a gap larger than chance, with these 5 items, the values 'formal' and 'casual', the metric steps, model and settings not recorded in the log, and 5 runs per value."
    """
    design = design or Design()
    words = _pair_words(analysis, plain=plain)
    design_ctx, design_sentences = _design_section(words, design)
    table_ctx, table_sentences = _table_section(words)
    tests_ctx, tests_sentences = _tests_section(words)
    noise_ctx, noise_sentences = _noise_section(words)
    power_ctx, power_sentences = _power_section(words)
    finding_ctx = _finding_section(words)
    limits, limits_sentences = _limits_section(words, design, design_ctx)
    summary = _groups_first(analysis, words, _summary(words))
    control = control_context(words.verdict)
    summary_more = ([control_summary(words.verdict)] if control is not None else []) + caveat_sentences(words.verdict)
    if control is not None:
        finding_ctx["sentences"][-1:-1] = control_finding(words.verdict)
    ctx = {
        "title": f"Probe report: {words.metric}, {quoted(words.a)} against {quoted(words.b)}", "version": __version__,
        "metric": words.metric, "a": words.a, "b": words.b, "alpha": words.alpha, "alternative": analysis.alternative,
        "source": str(analysis.checked.log.source),
        "summary": summary, "summary_more": summary_more, "control": control,
        "design": design_ctx, "table": table_ctx, "tests": tests_ctx, "noise": noise_ctx,
        "power": power_ctx, "finding": finding_ctx, "limits": limits,
        "framing": framing,
        "framing_sentences": framing_sentences(framing, plain=plain) if framing is not None else [],
        "placeholders": _placeholders(design_ctx, limits),
    }
    ctx["sentences"] = {
        "summary": [summary, *summary_more], "design": design_sentences, "table": table_sentences,
        "tests": tests_sentences,
        "noise": noise_sentences, "power": power_sentences, "finding": finding_ctx["sentences"],
        "limits": limits_sentences,
    }
    if control is not None:
        ctx["sentences"]["control"] = control["sentences"]
    if framing is not None:
        ctx["sentences"]["framing"] = list(ctx["framing_sentences"])
    return ctx


def _pair_words(analysis, *, plain: bool = False) -> _Words:
    """The phrases every section of a paired report draws on, each worded once from the analysis (``plain``:
    the tests named without their methods, which a plain report gives in its detail block)."""
    main = analysis.main
    alpha = analysis.alpha
    sf, iv = main.headline_test, main.interval   # the sign-flip test, or with unequal arms the permutation
    verdict = verdict_of(analysis)   # decided once, in the analysis: every section words this one
    fixed, varied = _settings(analysis.checked, by=list(analysis.groups[0].by) if analysis.groups else ())
    on_purpose = {_SETTING_NAMES.get(c, c) for c in getattr(verdict, "attribute_settings", ())}
    drawn = {_SETTING_NAMES.get(d.column, d.column) for d in getattr(analysis, "drawn", ())}
    varied = [(f"{name} (varied with the attribute, by design)" if name in on_purpose
               else f"{name} (drawn at random per call)" if name in drawn else name, count)
              for name, count in varied]

    unmapped = unmapped_settings(analysis.checked.log)
    return _Words(
        analysis=analysis, verdict=verdict, main=main, runs=runs_words(main, verdict),
        fixed=fixed, varied=varied, settings_phrase=_settings_phrase(fixed, varied, unmapped),
        unmapped=unmapped,
        p_phrase=_p_is(sf, alpha),  # "p = 0.02", or "p < 1/10001" for a Monte Carlo p at its floor
        gap_text=fmt_gap(main.average_gap),
        test_named=(f"exact within-item permutation of the value labels, {sf.alternative}" if main.permutation is not None
                    else f"exact sign-flip test, {sf.alternative}") + ("" if plain else f", {sf.method}"),
        interval_text=f"{iv.confidence:.0%} interval {fmt_num(iv.low)} to {fmt_num(iv.high)}"
                      + ("" if plain else f" ({iv.method})"),
        minp_text=fmt_p(main.min_attainable_p, alpha),
        span_text=_mdg_span_text(analysis),
        toward=_toward(sf.alternative, main.a, main.b),
        drivers=gap_drivers(main.items, main.average_gap) if main.average_gap != 0 else None, plain=plain,
    )


def _mdg_span_text(analysis) -> str:
    """The MDG's range over plausible same-versus-same logs of the noise log's size (empty without one), and
    the word that it is not promised when it lies within the noise log's uncertainty of the metric's bound."""
    span = getattr(analysis, "mdg_range", None)
    text = "" if span is None else (
        f" (from about {fmt_num(span[0], 3)} to "
        f"{'never' if span[1] == float('inf') else fmt_num(span[1], 3)} over plausible same-versus-same logs "
        f"of this size; one of about {analysis.mdg_range_runs:,} runs would halve the noise log's part of that "
        "range)")
    if getattr(analysis, "mdg_near_bound", False):
        text += (f"; not promised: the noise log's mean may lie so near the metric's bound that it leaves room "
                 f"for a gap of only {fmt_num(max(0.0, analysis.mdg_room), 3)}, so a gap that large may not exist")
    return text


def _toward(alternative: str, a, b) -> str:
    """A one-sided test only looks one way: its minimum detectable gap is a gap in that direction."""
    return {"greater": f" with {quoted(a)} above {quoted(b)}", "less": f" with {quoted(a)} below {quoted(b)}"}.get(alternative, "")


def _design_section(w: _Words, design: Design) -> tuple[dict, list[str]]:
    """The Design section: what was compared, on which items and runs, with which settings and dates."""
    a, b, n, metric, checked = w.a, w.b, w.n, w.metric, w.analysis.checked
    items = [str(i) for i in w.main.items["item"].to_list()]
    run_dates = design.run_dates or _run_dates(checked)
    design_ctx = {
        "attribute": design.attribute or Todo("the attribute probed, e.g. writing style"),
        "values_why": design.values_why or Todo("why these two values matter"),
        "a": a, "b": b,
        "baseline": getattr(w.analysis, "baseline", None),
        "control": getattr(control_of(w.analysis), "control", None),
        "other_values": _other_values(w),
        "item_list": items[:LIST_LIMIT], "more_items": max(0, len(items) - LIST_LIMIT), "n_items": n,
        "runs": w.runs, "seeds": _seeds_phrase(checked),
        "metric": metric,
        "metric_definition": design.metric_definition or Todo(
            f"the definition of the metric {metric}, as written before the first run"),
        "fixed_from_log": w.fixed, "varied_from_log": w.varied,
        "unmapped_settings": _unmapped_words(w.unmapped) if w.unmapped else "",
        "held_fixed_stated": list(design.held_fixed),
        "not_fixed": list(design.not_fixed) or Todo("what could not be held fixed (e.g. server-side model updates)"),
        "run_dates": run_dates or Todo("the dates of the runs"),
        "run_dates_source": "design" if design.run_dates else ("log" if run_dates else None),
        "mitigation": design.mitigation or Todo("mitigation applied before these runs, or 'none'"),
        "shaping": [],
        "blanks": _blank_words(w.verdict),
        "read": w.analysis.probe_design.sentence if hasattr(w.analysis, "probe_design") else "",
    }
    sentences = [*([design_ctx["read"]] if design_ctx["read"] else []),
        f"Attribute: {design_ctx['attribute']}; values compared: {quoted(a)} (A{_baseline_mark(w, a)}) and "
        f"{quoted(b)} (B{_baseline_mark(w, b)})"
        + (f"; the control {quoted(design_ctx['control'])}, a meaningless edit of the baseline, is set beside them"
           if design_ctx["control"] else "")
        + f"; why they matter: {design_ctx['values_why']}.",
        f"{count_of(n, 'item')}, {w.runs}; metric {metric}: {design_ctx['metric_definition']}.",
        *([f"Blank {metric} cells, left out: {design_ctx['blanks']}."] if design_ctx["blanks"] else []),
        "Held fixed according to the log: "
        + (join_words([f'{k} {v}' for k, v in w.fixed]) or (
            f"none: every setting it records varied ({join_words([f'{k}, {c} values' for k, c in w.varied])})"
            if w.varied else f"nothing read as a setting: {_unmapped_words(w.unmapped)}" if w.unmapped
            else "nothing recorded")) + ".",
        f"Dates of the runs: {design_ctx['run_dates']}; mitigation applied: {design_ctx['mitigation']}.",
    ]
    return design_ctx, sentences


def _arm(w: _Words, value) -> str:
    """A compared value as a sentence names it: "the baseline 'x'" for the named baseline, else "'x'"."""
    return f"the baseline {quoted(value)}" if getattr(w.analysis, "baseline", None) == value else quoted(value)


def _baseline_mark(w: _Words, value) -> str:
    """", the baseline" after the value named as the baseline (``baseline=``); nothing for the other, or unnamed."""
    return ", the baseline" if getattr(w.analysis, "baseline", None) == value else ""


def _other_values(w: _Words) -> list:
    """The log's values besides the two compared."""
    return [v for v in getattr(w.analysis.checked, "values", ()) if v not in (w.a, w.b)]


def _table_section(w: _Words) -> tuple[dict, list[str]]:
    """The per-item table; beyond 40 items, the items that drive the result and one row for the rest."""
    main, n = w.main, w.n
    shown, rest = collapsed_rows([{"item": str(r["item"]), "mean_a": r["mean_a"], "mean_b": r["mean_b"],
                                   "gap": r["gap"], "n_a": int(r["n_a"]), "n_b": int(r["n_b"])}
                                  for r in main.items.iter_rows(named=True)], main.average_gap)
    blocks = getattr(w.verdict, "blocks", ())
    if blocks:
        runs_head = f"runs per value over all {block_noun(blocks, 2)} (A / B)"
    else:
        runs_head = "runs per value (A / B)"
    table_ctx = {
        "a": w.a, "b": w.b, "metric": w.metric, "rows": shown, "rest": rest, "n_items": n, "csv": None,
        "runs_head": runs_head,
        "average": {"mean_a": main.items["mean_a"].mean() if n else None,
                    "mean_b": main.items["mean_b"].mean() if n else None,
                    "gap": main.average_gap},
        "interval": _interval_row(main) if n else None,
    }
    sentences = [f"Average gap {w.gap_text} {w.metric} over {count_of(n, 'item')} (unweighted mean of the item gaps)."]
    if rest is not None:
        sentences.append(
            f"The table shows the {count_of(rest['n_toward'], 'item')} with the largest gaps in the direction of the "
            f"average gap and the {rest['n_against']} largest the other way; one row gives the unweighted means of "
            f"the other {rest['n']} (gaps {fmt_gap(rest['gap_low'])} to {fmt_gap(rest['gap_high'])}).")
    return table_ctx, sentences


def _interval_row(main) -> dict:
    """The row under the average of the per-item table: each value's interval and the average gap's, and how
    each value's is computed."""
    (_, _, ia), (_, _, ib) = main.value_means()
    return {"label": f"{main.interval.confidence:.0%} interval", "a": fmt_interval(ia), "b": fmt_interval(ib),
            "gap": fmt_interval(main.interval), "method": ia.method, "assumption": ia.assumption}


def _tests_section(w: _Words) -> tuple[dict, list[str]]:
    """The Tests section: the sign-flip and sign tests, the interval, the smallest attainable p, the verdict."""
    main, alpha, n = w.main, w.alpha, w.n
    sf, st, iv = main.sign_flip, main.sign_test, main.interval
    n_nonzero = sum(1 for g in main.gaps if g != 0)
    tests_ctx = {
        "sign_flip": {"p": sf.pvalue, "method": sf.method, "alternative": sf.alternative},
        "sign_test": {"p": st.pvalue, "n": int(st.n), "k": st.k if st.k is not None else int(st.statistic),
                      "formula": st.formula, "method": st.method},
        "interval": {"low": iv.low, "high": iv.high, "confidence": f"{iv.confidence:.0%}", "method": iv.method,
                     "assumption": getattr(iv, "assumption", "")},
        "min_attainable_p": main.min_attainable_p, "n_nonzero": n_nonzero, "alpha": alpha,
        "never_significant": w.never, "detected": w.detected, "effects": effects_context(main, alpha),
    }
    if main.permutation is not None:   # unequal arms: the permutation is the test of the design
        pt = main.permutation
        tests_ctx["permutation"] = {"p": pt.pvalue, "method": pt.method, "alternative": pt.alternative}
        tests_ctx["sign_test"]["applies"] = False
        tests_ctx["not_applicable"] = main.not_applicable
        sentences = [
            f"Within-item permutation of the value labels ({pt.alternative}) on the {n} items, each item's runs "
            f"reassigned to the two values as the design assigned them: {w.p_phrase}; method: {pt.method}.",
            f"Not tests of this design, for comparison only: the sign-flip test on the item gaps, {_p_is(sf, alpha)}; "
            f"the sign test, p = {fmt_p(st.pvalue, alpha)}. Why: {main.not_applicable}.",
        ]
    else:
        sentences = [
            f"Sign-flip test ({sf.alternative}) on the {n} item gaps: {w.p_phrase}; method: {sf.method}.",
            f"Sign test: p = {fmt_p(st.pvalue, alpha)} ({count_of(st.n, 'non-zero gap')}, {tests_ctx['sign_test']['k']} "
            f"in the commoner direction; {st.method}); spreadsheet formula: {st.formula}.",
        ]
    sentences += [
        f"Average gap {w.gap_text} {w.metric}, {w.interval_text}.",
        f"Smallest p the sign-flip test can give with {count_of(n_nonzero, 'non-zero gap')}: {w.minp_text}.",
    ]
    if w.never:
        sentences.append(
            f"That is above alpha {alpha:g}: with {count_of(n, 'item')} this design could never reach significance, "
            "whatever the gap; add items.")
    tests_ctx["verdict"] = verdict_line(w.verdict)
    sentences.append(tests_ctx["verdict"])
    return tests_ctx, sentences


def _noise_section(w: _Words) -> tuple[dict, list[str]]:
    """The Noise section: the same-versus-same comparison beside the probe's gap, or why there is none."""
    analysis, noise, verdict = w.analysis, w.noise, w.verdict
    noise_ctx = {"present": noise is not None}
    if noise is not None:
        ours, theirs = _fmt_pair(abs(w.main.average_gap), abs(noise.average_gap))
        larger = _beyond_noise(w)

        band = noise_band(analysis)
        over_splits = noise.sign_flip is None   # the log's own halves read over every split: a size, no test
        noise_ctx.update({
            "a": noise.a, "b": noise.b, "n_items": noise.n_items, "runs": runs_phrase(noise.items),
            "average_gap": noise.average_gap, "p": None if over_splits else noise.sign_flip.pvalue,
            "method": SPLITS_METHOD if over_splits else noise.sign_flip.method, "over_splits": over_splits,
            "larger": larger, "band": band[0] if band else None, "source": analysis.noise_source,
        })
        sentences = [
            *([f"No same-versus-same log was given; this one is {analysis.noise_source.removeprefix('within-log: ')} "
               f"within the probe's own log, each half against the other."] if _within_log(analysis) else []),
            (f"Same versus same ({quoted(noise.a)} against {quoted(noise.b)}, {count_of(noise.n_items, 'item')}, "
             f"{noise_ctx['runs']}): average gap ±{fmt_num(noise.average_gap)} {w.metric} over every split "
             f"({SPLITS_METHOD})." if over_splits else
             f"Same versus same ({quoted(noise.a)} against {quoted(noise.b)}, {count_of(noise.n_items, 'item')}, "
             f"{noise_ctx['runs']}): average gap {fmt_gap(noise.average_gap)} {w.metric}, sign-flip p = "
             f"{fmt_p(noise.sign_flip.pvalue, w.alpha)}" + ("." if w.plain else f" ({noise.sign_flip.method}).")),
            *([f"The same-versus-same log has {noise_ctx['runs']} and the probe {w.runs}: with fewer runs the "
               "probe's own noise is larger than this comparison shows."]
              if _fewer_runs(w.main, noise) else []),
            *(noise_check_sentences(verdict) if verdict.noise.failed else [
                (f"The probe's average gap (size {ours}) is larger than the same-versus-same gap (size {theirs})."
                 if larger else
                 f"The probe's average gap (size {ours}) is no larger than the same-versus-same gap (size {theirs}): "
                 "it means nothing."),
                "A gap no larger than the noise means nothing."]),
        ]
    elif not verdict.noise.valid and verdict.noise.source != "none":
        sentences = noise_check_sentences(verdict)
    else:
        sentences = [
            "No same-versus-same log was given, so the gap cannot be set beside the run-to-run noise: "
            f"run one value twice with different seeds and pass that log with {_noise_option()}."]
    noise_ctx["sentences"] = sentences
    return noise_ctx, sentences


#: what the log's own halves' gap is, where a test would be named
SPLITS_METHOD = ("its root mean square over every split of each cell's runs, no test: a random split of repeats "
                 "cannot differ by more than chance")


def _noise_gap_text(noise, w: _Words) -> str:
    """The same-versus-same gap and its p in a sentence: ``+0.25 (p = 0.3)``, or ``±0.25 in size over every
    split`` for the log's own halves."""
    if noise.sign_flip is None:
        return f"±{fmt_num(noise.average_gap)} in size over every split (root mean square)"
    return f"{fmt_gap(noise.average_gap)} (p = {fmt_p(noise.sign_flip.pvalue, w.alpha)})"


def _noise_option() -> str:
    """How a sentence names the noise log's option: ``noise=`` in Python, ``--noise`` on the command line, its
    words in a plain report."""
    named = opt("noise")
    return named if named.startswith("“") else either("noise=", "--noise")


def _within_log(analysis) -> bool:
    """True when the same-versus-same comparison was made within the probe's own log."""
    return (analysis.noise_source or "").startswith("within-log")


def _halves_subject(source: str) -> str:
    """The log's own halves named as a sentence's subject ("the runs of value 'a' in each item split in two
    halves")."""
    return source.removeprefix("within-log: ").split(", the halves' gap read over every split")[0]


def _beyond_noise(w: _Words) -> bool:
    """True unless the verdict found the probe's gap no larger than the same-versus-same gap."""
    return w.verdict.beyond_noise is not False


def _noise_gap_subject(analysis) -> str:
    """How a sentence names the same-versus-same gap: a noise log's, or the one found within the log."""
    if _within_log(analysis):
        return (f"No same-versus-same log was given; within the log, "
                f"{_halves_subject(analysis.noise_source)} gave a gap that")
    return "The same-versus-same gap"


def _power_section(w: _Words) -> tuple[dict, list[str]]:
    """The Power section: the minimum detectable gap of the design run, or why there is none."""
    analysis, n, mdg, noise = w.analysis, w.n, w.mdg, w.noise
    runs_a, runs_b = w.main.runs_per_value()
    power_ctx = {"mdg": mdg, "method": analysis.mdg_method, "never": w.never, "noise": noise is not None}
    if w.never:
        sentences = [
            f"Minimum detectable gap: none. With {count_of(n, 'item')} the smallest attainable p is {w.minp_text}, above "
            f"alpha {w.alpha:g}: this design could never reach significance, so no gap, however large, "
            "would be detected. Add items."]
    elif mdg is not None:
        sentences = [
            f"Minimum detectable gap of the design actually run ({count_of(n, 'item')}, {runs_a}/{runs_b} runs per value): "
            f"about {fmt_num(mdg, 3)} {w.metric}{w.span_text}.",
            f"Method: {analysis.mdg_method}."]
    elif noise is not None and analysis.mdg_method is not None:
        sentences = [
            f"Minimum detectable gap of the design actually run ({count_of(n, 'item')}, {runs_a}/{runs_b} runs per value): "
            "none found: raising value A's runs toward the metric's bound never reaches 80% power with this "
            "design (a gap the other way, away from the bound, may still be detectable; see "
            f"{either('probestats.plan()', 'probestats plan')}).",
            f"Method: {analysis.mdg_method}."]
    elif noise is not None and w.verdict.noise.source == "log":
        sentences = ["The minimum detectable gap was not computed for this analysis"
                     + either(" (run analyze with mdg=True).", ".")]
    else:   # a check within the probe's own log measures its noise, but the power model needs a noise log
        sentences = [
            "The minimum detectable gap needs the noise per run, measured from a same-versus-same log given with "
            f"{_noise_option()}; "
            + ("the check within the probe's own log does not stand in for it, so " if noise is not None else
               "without it, ")
            + "the size of gap this probe could have missed is unknown."]
    power_ctx["sentences"] = sentences
    return power_ctx, sentences


def _finding_section(w: _Words) -> dict:
    """The Finding: the result stated with its conditions and size, pooled blocks named second."""
    finding = _detected_finding(w) if w.detected else _null_finding(w)
    blanks = getattr(w.verdict, "blanks", None)
    if blanks is not None and blanks.differ:
        finding.insert(1, blanks.statement)
    agreement = getattr(w.verdict, "agreement", None)
    if agreement is not None and agreement.disagree:   # the blocks the headline averages go their own ways
        finding.insert(1, agreement.statement + " They stand beside it in the groups section.")
    elif w.verdict.pooled and w.verdict.blocks:
        finding.insert(1, f"The item gaps are {w.verdict.pooled}; the results per {' x '.join(w.verdict.blocks)} "
                          "stand beside them in the groups section.")
    drivers = w.drivers
    return {"detected": w.detected, "sentences": finding,
            "drivers": drivers["top"] if (w.detected and drivers and drivers["stand_out"]) else []}


def _conditions(w: _Words) -> str:
    """The conditions a finding holds under: items, values, metric, settings and runs."""
    n = w.n
    return (f"with {'this item' if n == 1 else f'these {n} items'}, the values {quoted(w.a)} and {quoted(w.b)}, "
            f"the metric {w.metric}, {w.settings_phrase}, and {w.runs}")


def _detected_finding(w: _Words) -> list[str]:
    """A detected gap: its size and test, the items that drive it, the noise beside it, where it holds."""
    lead = ("The probe detected a gap larger than chance" if w.verdict.conclusion != "against_constant" else
            f"The test found that {w.verdict.statement}")
    finding = [
        f"{lead}: the average gap ({quoted(w.a)} minus {quoted(w.b)}) is "
        f"{w.gap_text} {w.metric} ({w.test_named}, {w.p_phrase}, at or below alpha {w.alpha:g}; {w.interval_text}).",
        _drivers_sentence(w),
    ]
    finding += _detected_noise_sentences(w)
    finding.append(f"This holds {_conditions(w)}; it names where the gap is, not why: read the replies to "
                   "these items before offering an explanation.")
    return finding


def _drivers_sentence(w: _Words) -> str:
    """Which items drive a detected gap (or that none stands out), and how many go each way."""
    drivers, n = w.drivers, w.n
    top = drivers["top"]
    low, high = drivers["range"]
    spread = (f"{fmt_num(low)}" if low == high else f"{fmt_num(low)} to {fmt_num(high)}")
    return ((f"The items that drive it: {join_words([f'{_item_name(i)} ({fmt_gap(g)})' for i, g in top])}, "
             f"which make up {drivers['share']:.0%} of the summed gaps in that direction; "
             if drivers["stand_out"] else
             f"No item stands out: the gap is spread over {count_of(drivers['n_same'], 'item')} "
             f"(gaps of size {spread} in that direction); ")
            + f"{drivers['n_same']} of {count_of(n, 'item')} {'has' if drivers['n_same'] == 1 else 'have'} "
            "a gap in that direction"
            + (f", {len(drivers['other'])} the other way "
               f"({join_words([f'{_item_name(i)}: {fmt_gap(g)}' for i, g in drivers['other'][:5]])}"
               f"{', ...' if len(drivers['other']) > 5 else ''})" if drivers["other"] else "")
            + (f", {drivers['n_zero']} none" if drivers["n_zero"] else "") + ".")


def _detected_noise_sentences(w: _Words) -> list[str]:
    """The same-versus-same gap beside a detected one: smaller, as large (so it means nothing), or a failed check."""
    noise = w.noise
    if noise is None:
        return []
    if w.verdict.noise.failed:
        return noise_check_sentences(w.verdict)
    the_noise_gap = _noise_gap_subject(w.analysis)
    if _beyond_noise(w):
        return [f"{the_noise_gap} was {_noise_gap_text(noise, w)}, smaller in size."]
    shown = f"±{fmt_num(noise.average_gap)} over every split" if noise.sign_flip is None else fmt_gap(noise.average_gap)
    return [f"But {the_noise_gap[0].lower()}{the_noise_gap[1:]} was {shown}, at least as large "
            "in size: a gap no larger than the noise means nothing, so this one should not be "
            "read as an effect of the attribute."]


def _null_finding(w: _Words) -> list[str]:
    """No gap detected: the conditions, the gap and its test, the noise, the gap it could miss, no claim of none."""
    finding = [f"The probe did not detect a gap larger than chance, {_conditions(w)}.",
               f"The average gap was {w.gap_text} {w.metric} ({w.test_named}, {w.p_phrase}; {w.interval_text})."]
    finding += _null_noise_sentences(w)
    finding.append(_missed_gap_sentence(w))
    finding.append("This does not show that the system is unbiased: a smaller gap, or one on other items, "
                   "values, metrics, models or settings, could go unseen.")
    return finding


def _null_noise_sentences(w: _Words) -> list[str]:
    """The same-versus-same gap beside a null result, or what is known of the noise without one."""
    noise, verdict = w.noise, w.verdict
    if noise is not None:
        fewer = (f"with {runs_phrase(noise.items)}, more than the probe's, so it understates this probe's noise"
                 if _fewer_runs(w.main, noise) else "")
        if noise.sign_flip is None:
            return [f"{_noise_gap_subject(w.analysis)} was ±{fmt_num(noise.average_gap)} {w.metric} in size over "
                    f"every split (root mean square{'; ' + fewer if fewer else ''})."] + [
                noise_size_sentence(w.main.average_gap, noise.average_gap, never=w.never)] + noise_check_sentences(verdict)
        return [f"{_noise_gap_subject(w.analysis)} was {fmt_gap(noise.average_gap)} {w.metric} "
                f"(p = {fmt_p(noise.sign_flip.pvalue, w.alpha)}"
                + (f"; {fewer})." if fewer else ").")] + [
            noise_size_sentence(w.main.average_gap, noise.average_gap, never=w.never)] + noise_check_sentences(verdict)
    if not verdict.noise.valid and verdict.noise.source != "none":
        return noise_check_sentences(verdict)
    return ["No same-versus-same log was given, so the noise gap is unknown."]


def noise_size_sentence(gap: float, noise_gap: float, *, never: bool = False) -> str:
    """A gap not larger than chance set against the same-versus-same gap, in the words their sizes allow: a
    gap many times the noise is larger than re-asking noise (what it is not larger than is the items' spread),
    one no larger is within it.

    >>> noise_size_sentence(0.43, 0.03)
    'In size the average gap is 14 times the same-versus-same gap: larger than the noise of re-asking, but not larger than chance across the items, whose gaps vary too much among themselves to tell it from zero.'
    >>> noise_size_sentence(0.02, 0.05)
    'In size the average gap is 0.4 times the same-versus-same gap: within the noise of re-asking.'
    """
    g, e = abs(float(gap)), abs(float(noise_gap))
    why = (": they are too few for any test to reach alpha" if never
           else ", whose gaps vary too much among themselves to tell it from zero")
    if e == 0:
        return ("The same-versus-same gap was 0, so the average gap is larger than the noise of re-asking, but not "
                f"larger than chance across the items{why}." if g > 0 else
                "The average gap and the same-versus-same gap were both 0.")
    ratio = g / e
    times = f"{ratio:,.0f}" if ratio >= 10 else f"{ratio:.2g}"
    if ratio >= 2:
        return (f"In size the average gap is {times} times the same-versus-same gap: larger than the noise of "
                f"re-asking, but not larger than chance across the items{why}.")
    if ratio > 1:
        return (f"In size the average gap is {times} times the same-versus-same gap: not clearly larger than "
                "the noise of re-asking.")
    return f"In size the average gap is {times} times the same-versus-same gap: within the noise of re-asking."


def _missed_gap_sentence(w: _Words) -> str:
    """The size of gap a null result could have missed: its minimum detectable gap, or why it is not known."""
    if w.never:
        return (f"With {count_of(w.n, 'item')} the smallest attainable p is {w.minp_text}, above alpha {w.alpha:g}: "
                "this design could never reach significance, so its minimum detectable gap is infinite.")
    if w.mdg is not None:
        return (f"The minimum detectable gap of this design is about {fmt_num(w.mdg, 3)} {w.metric}{w.toward} "
                f"(80% power; see the power section for its method){w.span_text}.")
    if w.noise is not None and w.analysis.mdg_method is not None:
        return ("No gap toward the metric's bound reaches 80% power with this design "
                "(see the power section), so even a large gap could have gone unseen.")
    return "The minimum detectable gap is unknown without a same-versus-same log."


def _limits_section(w: _Words, design: Design, design_ctx: dict) -> tuple[list[tuple[str, object]], list[str]]:
    """The Limits: what was held fixed or not, size, what the metric cannot see, what was not tested."""
    a, b = w.a, w.b
    limits = []
    if w.fixed:
        limits.append(("Held fixed, as the log shows", [f"{k}: {v}" for k, v in w.fixed]))
    elif w.varied:   # the log records settings, and every one of them varied
        limits.append(("Held fixed, as the log shows",
                       f"nothing: every setting the log records varied ({join_words([f'{k}, {c} values' for k, c in w.varied])}), "
                       "so none was held fixed across the runs"))
    elif w.unmapped:
        limits.append(("Held fixed, as the log shows",
                       f"nothing read as a setting: {_unmapped_words(w.unmapped)}, so what was held fixed is not "
                       "checked from it"))
    else:
        limits.append(("Held fixed, as the log shows",
                       "nothing: the log records no settings (model, temperature, system prompt), "
                       "so what was held fixed cannot be checked from it"))
    if design.held_fixed:
        limits.append(("Held fixed, as stated", list(design.held_fixed)))
    if w.varied:
        limits.append(("Varied in the log besides the values", [f"{k} ({c} values)" for k, c in w.varied]))
    limits.append(("Could not be held fixed", design_ctx["not_fixed"]))
    limits.append(("Size", f"{count_of(w.n, 'item')} and {w.runs}; the items are the sample, so the result speaks for "
                           "these items and says little about others"))
    limits.append(("What the metric cannot see", list(design.metric_cannot_see) or
                   Todo(f"what the metric {w.metric} cannot see")))
    limits.append(("Attributes not tested", list(design.not_tested) or Todo("which attributes were not tested")))
    other_values = _other_values(w)
    limits.append(("Values", f"only {quoted(a)} and {quoted(b)} were compared"
                   + (f"; the log also has {join_words([quoted(v) for v in other_values])}" if other_values else "")))
    warnings_ = grouped_warnings(w.analysis.problems)  # one kind said once, counted, with examples
    if w.plain:   # a person reads no flag and no file of the repository (the details give each flag)
        warnings_ = [flags_in_words(text) for text in warnings_]
    if warnings_:
        limits.append(("Warnings from validation", warnings_))
    limits.append(("Scope", "whatever its result, a probe of one attribute with two values does not show "
                            "that the system is unbiased"))
    sentences = [f"{label}: {value if isinstance(value, str) else '; '.join(value)}." for label, value in limits]
    return limits, sentences


def _groups_first(analysis, w: _Words, summary: str) -> str:
    """A log split into groups (``--by``: a judge's criteria, say) leads its Summary with the groups, each tested
    on its own and corrected, then the result pooled over them: the split was asked for because the groups are
    not runs of one metric, so the pooled result is not the headline. Blocks (a pooled design) keep theirs."""
    groups = getattr(analysis, "groups", ()) or ()
    if len(groups) < 2 or getattr(w.verdict, "blocks", ()):
        return summary

    ctx = groups_context(analysis)
    said = [t for t in ctx["sentences"] if t.startswith(("After correction", "No group", "In the other"))]
    keys = join_words(ctx["keys"])
    return (f"Split by {keys}, each of the {len(groups)} groups tested on its own: " + " ".join(said)
            + f" Pooled over every {keys}: {summary[0].lower()}{summary[1:]}")


def _summary(w: _Words) -> str:
    """The Summary: one plain-language sentence for a general audience, then the blanks that change it."""
    text = _detected_summary(w) if w.detected else _null_summary(w)
    blanks = getattr(w.verdict, "blanks", None)
    return text + (f" {blanks.statement}" if blanks is not None and blanks.differ else "")


def _blank_words(verdict) -> str:
    """The blank metric cells per compared value, for the Design ("" without blanks)."""
    blanks = getattr(verdict, "blanks", None)
    if blanks is None:
        return ""
    share = (lambda k, n: f" ({100 * k / n:.2g}%)" if k and n else "")
    text = (f"{blanks.blank_a} of {blanks.runs_a} {quoted(blanks.a)} runs{share(blanks.blank_a, blanks.runs_a)}, "
            f"{blanks.blank_b} of {blanks.runs_b} {quoted(blanks.b)} runs{share(blanks.blank_b, blanks.runs_b)}")
    return text + (f"; not as common under both values (Fisher's exact test, p = {fmt_p(blanks.pvalue)}), so the "
                   "Summary gives the gap with the blanks left out and counted as misses" if blanks.differ else
                   f"; as common under both values as chance allows (Fisher's exact test, p = {fmt_p(blanks.pvalue)})")


def _detected_summary(w: _Words) -> str:
    """A detected gap in one sentence: its size and direction, then the noise or where it comes from."""
    verdict, drivers, metric = w.verdict, w.drivers, w.metric
    pooled_in = f", {verdict.pooled}," if verdict.pooled else ","
    direction = "higher" if w.main.average_gap > 0 else "lower"
    if verdict.conclusion == "against_constant":   # no "larger than chance" on a constant arm alone
        return (f"In this probe{pooled_in} {metric} was on average {fmt_num(abs(w.main.average_gap))} {direction} under "
                f"{_arm(w, w.a)} than under {_arm(w, w.b)} across {count_of(w.n, 'item')} with {w.runs} "
                f"({w.p_phrase}): {verdict.statement}; the probe does not say why.")
    summary = (f"In this probe{pooled_in} {metric} was on average {fmt_num(abs(w.main.average_gap))} {direction} under "
               f"{_arm(w, w.a)} than under {_arm(w, w.b)} across {count_of(w.n, 'item')} with {w.runs}, a gap larger than chance "
               f"would give ({w.p_phrase})")
    if summary_clause(verdict):
        summary += summary_clause(verdict)
        if verdict.conclusion != "within_noise":
            summary += "; the probe does not say why."
    elif drivers["stand_out"]:
        summary += (f", coming mostly from item{'s' if len(drivers['top']) > 1 else ''} "
                    f"{join_words([_item_name(i) for i, _ in drivers['top']])}"
                    f"; the probe does not say why.")
    else:
        summary += (f", spread over {count_of(drivers['n_same'], 'item')} with no item standing out"
                    f"; the probe does not say why.")
    return summary


def _null_summary(w: _Words) -> str:
    """No gap detected, in one sentence: what differed, that it is not more than chance, what it could miss."""
    pooled_in = f", {w.verdict.pooled}," if w.verdict.pooled else ","
    subject = f"{w.metric} under {_arm(w, w.a)} and under {_arm(w, w.b)}"
    return (f"In this probe{pooled_in} {subject} differed on average by {w.gap_text} across {count_of(w.n, 'item')} "
            f"with {w.runs}, which is not more than chance would give ({w.p_phrase}); this does not show that there is "
            f"no difference, only that this probe could not see one{_summary_reach(w)}.")


def _summary_reach(w: _Words) -> str:
    """What the Summary adds about the gaps a null result could not see.

    Only the minimum detectable gap needs a noise log: a same-versus-same check within the probe's own
    log (``verdict.noise``, source ``within`` or ``value``) measures the noise but bounds no gap.
    """
    if w.never:
        return ", since with so few items it could never reach significance"
    if w.mdg is not None:
        return f" smaller than about {fmt_num(w.mdg, 3)} {w.metric}{w.toward}"
    check = w.verdict.noise
    if check.source == "log" and w.analysis.mdg_method is not None:
        return (" (no gap toward the metric's bound reaches 80% power with this design, so even a large one could go "
                "unseen)")
    if check.source == "log":
        return " (the size of gap it could miss was not computed for this analysis)"
    if check.valid:
        return (" (a same-versus-same check within its own log measured the noise, but the size of gap it could miss "
                f"needs a noise log, given with {_noise_option()})")
    return " (without a same-versus-same log, the size of gap it could miss is unknown)"


def _placeholders(design_ctx, limits) -> list[str]:
    found = [v for v in design_ctx.values() if isinstance(v, Todo)]
    found += [v for _, v in limits if isinstance(v, Todo)]
    return list(dict.fromkeys(str(v) for v in found))


# ---------------------------------------------------------------------------- figures


def report_figures(analysis, ctx, sections, design: Design) -> dict[str, _Figure]:
    """The figures of a two-value report's sections, by name (the item gaps; the power curve where asked)."""
    figures: dict[str, _Figure] = {}
    main = analysis.main
    if "noise" in sections and main.n_items:
        ax = item_gaps(analysis)
        band = ctx["noise"].get("band")

        dots = ("one dot per item" if main.n_items <= ITEM_PLOT_LIMIT else
                f"sorted by gap: the {ITEM_PLOT_ENDS} largest and {ITEM_PLOT_ENDS} smallest one dot each, the "
                f"{main.n_items - 2 * ITEM_PLOT_ENDS} items between them as one grey bar over the range of their gaps")
        caption = (f"Per-item gaps in {main.metric} ({main.a} minus {main.b}), {dots}; dashed line: "
                   f"the average gap {fmt_gap(main.average_gap)} (exact sign-flip test p = "
                   f"{fmt_p(main.sign_flip.pvalue, analysis.alpha)}). "
                   + (f"Shaded: ± {fmt_num(band, 3)}, the largest item gap of the same-versus-same log."
                      if band is not None else "No same-versus-same log: no noise band."))
        figures["item_gaps"] = _Figure("item_gaps", figure_png(ax.figure), "Dot plot of the per-item gaps", caption)
    if "power" in sections:
        figure = _power_figure(analysis, design)
        if figure is not None:
            figures["power"] = figure
    return figures


def _power_figure(analysis, design: Design) -> _Figure | None:
    """The power plot, drawn from the curve the analysis step simulated (``analysis.power``)."""
    power = getattr(analysis, "power", None)
    if power is None:
        return None
    main = analysis.main
    ax = power_curve(power.plan)
    chosen = power.plan.mechanisms
    if chosen.several:
        acts = (f"How the gap acts: each point is the least promising of {', '.join(chosen.candidates)} "
                f"({chosen.reason}).")
        bound = "gaps that differ between items would lower it"
    else:
        acts = (f"How the gap acts: {chosen.candidates[0]}, the gap {chosen.words(chosen.candidates[0])} "
                f"({chosen.reason}).")
        bound = "so the power shown is an upper bound"
    caption = (f"Power of the exact sign-flip test (simulated, {power.sims} probes per point, seed {power.seed}) "
               f"against runs per value, at a true average gap of {fmt_num(power.gap, 3)} {main.metric} "
               f"({power.why}), noise per run σ = {fmt_num(power.plan.noise.sigma_run, 3)} pooled from the "
               f"same-versus-same log; no heterogeneity between items assumed, {bound}. {acts} "
               "Bands: ± 2 Monte Carlo standard errors.")
    return _Figure("power", figure_png(ax.figure), "Power against runs per value", caption)


# ---------------------------------------------------------------------------- rendering


def analysis_kind(analysis) -> str:
    """Which analysis a result is: ``pair``, ``many`` (more than two values) or ``factors``."""
    if hasattr(analysis, "effects") and hasattr(analysis, "factors"):
        return "factors"
    if hasattr(analysis, "main") and hasattr(analysis.main, "omnibus"):
        return "many"
    if hasattr(analysis, "main") and hasattr(analysis.main, "sign_flip"):
        return "pair"
    raise OptionError(f"cannot report a {type(analysis).__name__}; give the result of an analysis")


def missing_section(name: str) -> str | None:
    """Why an optional section is not in this report, naming what adds it in the caller's spelling."""
    return {
        "groups": f"there are no {opt('by')} groups; add {either('by=[COL]', '--by COL')}",
        "ceilings": f"no judge's scale was declared; add {either('scale=LOW:HIGH', '--scale LOW:HIGH')}",
        "many": (f"the analysis compares two values; many values come with {opt('reference', 'VALUE')} or "
                 f"{opt('group')}"),
        "factors": f"the analysis has no two factors; give {either('factor=[A, B]', '--factor A --factor B')}",
        "compare": f"no earlier run was given; add {opt('before_log', 'BEFORE_LOG')}",
        "control": f"no control wording was given; name the meaningless edit with {opt('control', 'VALUE')}",
        "framing": f"no framing result was given; give the dual-framing log with {opt('framing_log', 'FRAMING_LOG')}",
        "validation": f"no hand-checked sample was given; add {opt('validation', 'FILE')}",
        "describe": "the report of a log has it (a cell table holds no runs to count)",
        "judge": f"no order probe was given; add {either('judge={order: COL, ...}', '--order COL')} and the "
                 "verdict settings",
    }.get(name)
