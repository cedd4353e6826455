"""The whole report job as one library call: read, shape, validate, analyze, the power curve, render, write.

:func:`report` is what ``probestats report`` runs (the command parses its options, calls it and
prints one line) and what the local page of ``probestats serve`` calls, so a notebook, the
command and the page write the same bytes for the same options. Its parameters carry the
command's names (``framing_log`` for ``--framing``, ``before_log`` for ``--before``); the design
facts (``--design FILE``, ``--set KEY=VALUE``) are one :class:`~probestats.shape.design.Design`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from probestats.analyses.cells import analyze_cells, compare_cells
from probestats.analyses.compare import compare_runs
from probestats.analyses.describe import describe_log
from probestats.analyses.dispatch import analyze_shaped, check_options, refuse_effect_size
from probestats.analyses.factors_many_levels import FactorialAnalysis
from probestats.analyses.framing import FramingScores, analyze_framing
from probestats.analyses.hand_labels import with_validation
from probestats.analyses.judge import analyze_order
from probestats.analyses.metrics import split_metrics
from probestats.analyses.paired import Analysis, with_row_level
from probestats.analyses.plan import with_design_power
from probestats.analyses.question import Question, Run
from probestats.analyses.rowlevel import with_row_tests
from probestats.errors import OptionError, either, opt, plain_numbers
from probestats.io.columns import normalize_header
from probestats.io.files import first_headers
from probestats.jobs.analyze import analyze, refuse_lone_correction, refuse_runs
from probestats.jobs.framing import targets_lookup
from probestats.jobs.inputs import cell_inputs, refuse_row_options, shape_log
from probestats.present.report.factorial import render_factorial_report
from probestats.present.report.files import check_target, refuse_inputs, write_whole
from probestats.present.report.judge import render_judge_report
from probestats.present.report.metrics import render_metrics_report
from probestats.present.report.plain import spelled_in_words
from probestats.shape.codebook import parse_code
from probestats.shape.design import as_design
from probestats.shape.lookup import parse_keys
from probestats.shape.nested import parse_explode
from probestats.shape.probe import ROLES, as_probe
from probestats.vocabulary import Tests, as_tests, check_metric, check_path, column_names

#: An order probe, as the caller spells it.
_ORDER = ("judge={'order': COL}", "--order COL")

__all__ = ["ReportJob", "report", "report_format"]

#: the report format a file suffix names
SUFFIX_FORMATS = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".json": "json"}


@dataclass(frozen=True)
class ReportJob:
    """A report as :func:`report` rendered (and wrote) it.

    Attributes
    ----------
    text : str
        The report: Markdown, one self-contained HTML page, or JSON text.
    format : str
        ``"md"``, ``"html"`` or ``"json"``.
    files : tuple of Path
        The files written, the report first and then the plots its Markdown links; empty when
        no ``output`` was given.
    analysis : object or None
        The analysis reported (with its power curve), or None for an order probe alone.
    comparison : Comparison or None
        The before/after comparison of ``before_log`` (the ``compare`` section).
    framing : FramingResult or None
        The dual-framing result of ``framing_log`` (the ``framing`` section).
    judge : JudgeResult or None
        The order probe of a pairwise judge (the ``judge`` section).
    design : Design or None
        The design facts the report states (from ``design``).
    """

    text: str
    format: str
    files: tuple = ()
    analysis: object = None
    comparison: object = None
    framing: object = None
    judge: object = None
    design: object = None

    @property
    def data(self) -> bytes:
        """The report as the bytes written to its file (UTF-8)."""
        return self.text.encode("utf-8")

    def __repr__(self) -> str:
        return f"ReportJob(format={self.format!r}, {len(self.text)} characters, files={len(self.files)})"


def report_format(output, format=None) -> str:
    """The report format: ``format`` when given, else the one named by the suffix of ``output``.

    >>> report_format("report.html"), report_format(None, "json")
    ('html', 'json')
    """
    if output is None:
        if format is None:
            return "md"
        if format not in ("md", "html", "json"):
            raise OptionError(f"unknown report format '{format}'; use one of md, html, json")
        return format

    path = Path(output)
    suffix = path.suffix.lower()
    if suffix not in SUFFIX_FORMATS:
        raise OptionError(f"{opt('output', str(path))}: unknown report format '{suffix or '(none)'}'; "
                          "use a file ending in .md, .html or .json")
    if format is not None and format != SUFFIX_FORMATS[suffix]:
        raise OptionError(f"{opt('output', str(path))}: the suffix names {SUFFIX_FORMATS[suffix]}, not format '{format}'; "
                          "give a file ending in ." + format)
    check_target(path, opt("output", str(path)), "report" + suffix)
    return SUFFIX_FORMATS[suffix]


def _logs(log) -> tuple:
    if log is None:
        return ()
    if isinstance(log, (str, Path)):
        return (Path(log),)
    return tuple(log)


#: The analysis's keywords a report takes, spelled (and defaulting) as :func:`probestats.analyze` spells them.
ANALYSIS_KEYWORDS = ("a", "b", "noise", "by", "reference", "scale", "factor", "per_item", "row_level", "noise_value",
                     "validation", "control", "baseline")


def report(log=(), *, metric=None, tests=None, output=None, format=None, sections=(), templates=None, plain=False,
           source=None, framing_log=None, targets=None, toward=None, answers="auto", label_map=(), judge=None,
           before_log=None, design=None, probe=None, **analysis) -> ReportJob:
    """The report of a probe, as ``probestats report`` writes it: the analysis ``analyze`` would choose,
    the power curve of the power section, the optional framing, compare and judge sections, rendered
    through the report's templates and (with ``output``) written whole.

    Parameters
    ----------
    log : path or sequence of paths
        The log (several files or a folder are read as one), or a cell table (one path, recognized by its
        columns, as :func:`probestats.analyze` takes it).
    metric : str, optional
        The metric column; not needed for a report of an order probe alone (``judge``).
    tests : Tests, optional
        How every section's tests are run (:class:`probestats.Tests`), as for :func:`probestats.analyze`.
    output : path, optional
        The file to write: ``.md`` (plots in ``<stem>_files/`` beside it), ``.html`` or ``.json``.
        Without it nothing is written (and Markdown has no plots).
    format : {"md", "html", "json"}, optional
        The format when no ``output`` names it by its suffix (default ``"md"``).
    sections : sequence of str
        Only these sections.
    templates : path, optional
        A folder of templates that replace the shipped ones of the same name.
    design : Design or path, optional
        What the log cannot say (see :class:`probestats.shape.design.Design`), or a design file (TOML) holding
        it; missing facts show as placeholders. ``gap_of_interest`` adds power at that gap, ``selection``
        (the metric says whether a candidate was selected) selection rates and impact ratios to a report of
        several values.
    probe : Probe, optional
        How every log is read and shaped (column mapping, sheet, filters), and what the probe log's columns
        mean (settings, clusters, settings drawn per call), as for :func:`probestats.analyze`.
    framing_log, targets, toward
        A dual-framing log, its targets file and reference target: the framing section.
    judge : dict, optional
        An order probe: ``{"order", "response", "choice", "verdicts", "by", "repetition", "own_first",
        "chance"}`` (the last two: the choice rate of one answer, as for
        :func:`probestats.analyses.judge.analyze_order`).
    before_log : path, optional
        The same probe run before a change (the compare section); beside a cell table, its cell table.
    source : str, optional
        What the report calls the log (default: the paths as given, joined by commas).
    answers, label_map
        How the framing log's answers are read, as for :func:`probestats.analyses.framing.analyze_framing`
        (a framing log of one row per item with a column per framing's answer: the probe's
        ``framing_columns``, which shape the framing log alone).
    **analysis
        The analysis's keywords, spelled and meaning as for :func:`probestats.analyze`: ``a``, ``b`` (the
        compared values), ``noise`` (a same-versus-same log; beside a cell table, a cell table built with its
        runs), ``by``, ``reference``, ``scale``, ``factor``, ``noise_value``, ``control`` (the ``control``
        section), ``baseline``, ``validation`` (the ``validation`` section, and the verdict on the gap
        corrected for the coder's error) and ``per_item`` (Welch's t within every item on its runs, p
        corrected across the items: a table in the tests section, beyond 40 items the items with the
        smallest corrected p and the whole table as CSV beside the report; needs the log's rows and a
        comparison of two values), ``row_level`` (the tests on runs, as :func:`probestats.analyze` gives them:
        a table in the tests section, one metric). ``by`` also splits the framing section.
    plain : bool
        A report for people who do not code (see :mod:`probestats.present.report.plain`): every number and
        caveat kept, each test named in words, options named as the local page labels them, and how
        each figure was computed with the command-line spellings in a detail block (HTML
        ``<details>``; Markdown: a section at the end). For the report of a log's values, a framing log or
        an order probe alone (not several metrics or factors beyond 2 × 2).

    Returns
    -------
    ReportJob

    Notes
    -----
    A metric coded by a code book (``probe.code``) adds the ``describe`` section (its distribution per value and
    each book's coverage), as a hand-checked sample does; ``sections=["describe"]`` asks for it with any metric.
    The Limits name how the metric was coded.

    Examples
    --------
    >>> from pathlib import Path
    >>> job = report(Path("sample_logs/style_probe.csv"), metric="steps", format="md", sections=["table"])
    >>> job.text.splitlines()[0], job.files
    ('## Per-item table', ())
    >>> from probestats import Design
    >>> job = report("sample_logs/style_probe.csv", metric="steps", format="md", sections=["design"],
    ...              design=Design(attribute="writing style"))
    >>> next(line for line in job.text.splitlines() if line.startswith("- **Attribute"))
    '- **Attribute:** writing style'
    >>> report("sample_logs/style_probe.csv", metric="steps", design="examples/style_probe.toml").design.attribute
    'writing style of a debugging help request'
    """
    given = {k: v for k, v in locals().items() if k not in ("log", "plain", "analysis")}
    given.update(_analysis_keywords(analysis))
    if plain:
        named: list = []
        with spelled_in_words(named), plain_numbers():
            return _report(_Asked(log=log, named=named, **given))
    return _report(_Asked(log=log, named=None, **given))


def _analysis_keywords(analysis: dict) -> dict:
    """The analysis's keywords of a report, the defaults :func:`probestats.analyze` has filled in; any other
    keyword is refused, as Python refuses one a function does not take."""
    import inspect

    from dataclasses import fields

    unknown = [k for k in analysis if k not in ANALYSIS_KEYWORDS]
    if unknown:
        name = unknown[0]
        home = ("tests=Tests(...)" if name in {f.name for f in fields(Tests)} else
                "probe=Probe(...)" if name in ROLES else None)
        raise TypeError(f"report() got an unexpected keyword argument {name!r} "
                        + (f"(give it inside {home.replace('...', f'{name}={analysis[name]!r}')})" if home else
                           f"(it takes the analysis's keywords {', '.join(ANALYSIS_KEYWORDS)}, as "
                           f"probestats.analyze does)"))
    defaults = inspect.signature(analyze).parameters
    return {k: analysis.get(k, defaults[k].default) for k in ANALYSIS_KEYWORDS}


@dataclass(frozen=True)
class _Asked:
    """What a report was asked for: :func:`report`'s parameters (and the analysis's keywords), checked by
    :func:`_checked`, with what they decide (``fmt``, the cell tables, the plots' folder, the framing columns).
    They travel together through the report's steps; each step reads the fields it uses."""

    log: tuple
    named: list | None
    metric: object
    tests: object
    output: object
    format: str | None
    sections: tuple
    templates: object
    design: object
    probe: object
    framing_log: tuple
    targets: object
    toward: str | None
    judge: dict | None
    before_log: object
    source: str | None
    answers: str
    label_map: object
    a: str | None
    b: str | None
    noise: object
    by: tuple
    reference: str | None
    scale: object
    factor: tuple
    per_item: bool
    row_level: bool
    noise_value: str | None
    validation: object
    control: str | None
    baseline: str | None
    fmt: str = "md"
    cells: dict | None = None
    assets: Path | None = None
    framing_columns: tuple = ()

    @property
    def arms(self) -> dict:
        """The control and the baseline given."""
        return {k: v for k, v in (("control", self.control), ("baseline", self.baseline)) if v is not None}

    @property
    def shown_source(self) -> str:
        """What the report calls the log: ``source``, else the paths as given, joined by commas."""
        return self.source if self.source is not None else ", ".join(str(p) for p in self.log)

    def question(self, metric, **fixed):
        """The analysis's :class:`~probestats.analyses.question.Question` of ``metric`` (``fixed``: fields set)."""
        return Question(metric, **{**dict(a=self.a, b=self.b, by=self.by, reference=self.reference, scale=self.scale,
                                          factor=self.factor, noise=self.noise, noise_value=self.noise_value,
                                          **self.arms), **fixed})


def _report(asked: _Asked) -> ReportJob:
    """:func:`report`'s work; ``asked.named`` collects the options a plain report names in words (None: not plain)."""
    asked = _checked(asked)
    if asked.framing_log and not asked.log and asked.cells is None and not asked.metric and asked.judge is None:
        return _framing_only(asked)
    probe = asked.probe
    if probe.axes:
        raise OptionError(f"{opt('axes', list(probe.axes))}: the report has no per-axis section yet; drop it, and "
                          f"read the per-axis figures with {either('probestats.analyze', 'probestats analyze')}")
    metrics = split_metrics(asked.metric) if asked.metric else []
    _refuse_for_metrics(asked, several=len(metrics) > 1)
    if len(metrics) > 1:
        return _metrics_job(asked, asked.question(metrics, selection=bool(_design(asked.design).selection)))
    metric = metrics[0] if metrics else None
    if asked.cells is None and not asked.log:
        raise OptionError(f"give the {opt('log')} to report (or a cell table in its place)")
    judged = _judge(asked.log, asked.judge, asked.tests.alpha, asked.tests.correction, probe)
    if metric is None:
        return _judge_only(asked, judged)
    return _log_report(asked, metric, judged)


def _checked(asked: _Asked) -> _Asked:
    """``asked`` with each parameter checked and made the type the steps read, and what they decide: the format,
    the cell tables (a cell table's noise and before are cell tables too), the plots' folder, the framing columns
    (taken off the probe: they shape the framing log alone, never the probe log beside it)."""
    tests, probe = as_tests(asked.tests), as_probe(asked.probe)
    judge, format = asked.judge, asked.format
    asked = replace(asked, tests=tests, probe=probe, metric=check_metric(asked.metric, required=False),
                    output=check_path("output", asked.output, "report.md"),
                    templates=check_path("templates", asked.templates, "my_templates", "a folder's path"),
                    sections=column_names("sections", asked.sections, "tests", "a section's name"))
    if judge is not None and not isinstance(judge, dict):
        raise OptionError(f"judge={judge!r}: expected the order probe's columns as a dict, for example "
                          "judge={'order': 'position', 'response': 'reply', 'verdicts': ['first=[[A]]', "
                          "'second=[[B]]']}")
    asked = replace(asked, by=column_names("by", asked.by), factor=column_names("factor", asked.factor, "style"))
    if format is not None and format not in SUFFIX_FORMATS.values():
        raise OptionError(f"{opt('format', format)}: unknown report format {format!r}; use one of md, html, json")
    output = Path(asked.output) if asked.output is not None else None
    asked = replace(asked, log=_logs(asked.log), framing_log=_logs(asked.framing_log), output=output)
    design, validation = asked.design, asked.validation
    if output is not None:
        refuse_inputs({opt("output"): output}, {
            opt("log"): asked.log or None, opt("noise"): asked.noise,
            opt("design"): design if isinstance(design, (str, Path)) else None,
            opt("framing_log"): asked.framing_log or None, opt("targets"): asked.targets,
            opt("before_log"): asked.before_log,
            opt("validation"): validation if isinstance(validation, (str, Path)) else None,
            opt("lookup"): [src for src, _ in probe.lookup if isinstance(src, (str, Path))] or None})
    fmt = report_format(output, format)
    cells = _cell_tables(asked.log, asked.noise, asked.before_log)
    if cells is not None:   # a cell table as the log: its noise and before are cell tables too
        refuse_row_options(probe, reference=asked.reference, scale=asked.scale, factor=asked.factor)
        if judge is not None:
            raise OptionError(f"{either('judge', '--order')} cannot be used with a cell table: the order probe reads the "
                              f"judge's replies; report the {either('log', 'LOG')} for it")
        asked = replace(asked, log=(), noise=None, before_log=None)
    if not asked.framing_log and (asked.answers != "auto" or asked.label_map or probe.framing_columns):
        columns = either("the probe's framing_columns", opt("framing_columns"))
        raise OptionError(f"{opt('answers')}, {opt('label_map')} and {columns} belong to the framing section; give "
                          f"the dual-framing log with {opt('framing_log', 'FRAMING_LOG')}")
    assets = output.parent / f"{output.stem}_files" if (output is not None and fmt == "md") else None
    return replace(asked, fmt=fmt, cells=cells, assets=assets, framing_columns=probe.framing_columns,
                   probe=replace(probe, framing_columns=()))


def _refuse_for_metrics(asked: _Asked, *, several: bool) -> None:
    """The options a report of several metrics (``several``), of two factors or of a cell table cannot take."""
    if several and asked.per_item:
        raise OptionError(f"Welch's t per item belongs to the report of one metric; give one {opt('metric')}")
    if several and asked.row_level:
        raise OptionError(f"{opt('row_level')} in a report covers one metric; give one {opt('metric')} (analyze "
                          f"{opt('row_level')} gives every metric's tests on runs in one call)")
    if asked.factor and (several or asked.by):   # analyze gives these; a report section of them is not offered yet
        drop = opt("by") if asked.by else f"all but one {opt('metric')}"
        raise OptionError(f"a report of two factors covers one metric of the whole log; drop {drop} (analyze "
                          f"gives each metric's and group's two-factor analysis, corrected together)")
    if asked.validation is not None and (several or asked.cells is not None):
        raise OptionError(f"{opt('validation')} checks one coded metric of a log; give one {opt('metric')} and the "
                          f"{opt('log')}")
    if several and asked.named is not None:
        raise OptionError(f"{opt('plain', True)} words the report of one metric; give one {opt('metric')} or "
                          "leave it out")


def _judge_only(asked: _Asked, judged) -> ReportJob:
    """The report of an order probe alone (no metric given)."""
    if judged is None:
        raise OptionError(f"give the metric column, {opt('metric', 'COL')} (or "
                          f"{either(*_ORDER)} for a report of an order probe alone)")
    design = _design(asked.design)
    _refuse_arms(asked.arms, design, "an order probe alone")
    asked.tests.refuse("the report of an order probe alone", "alternative", "interval", "effect_size",
                       "n_resamples", "seed")
    asked.probe.refuse("the report of an order probe alone", groups=False)

    if asked.source is not None:  # what the report calls the log, as for every other report
        judged = replace(judged, log_source=str(asked.source))
    fmt = asked.fmt
    text = render_judge_report(judged, format=fmt, templates=asked.templates, assets_dir=asked.assets,
                               design=design, plain=asked.named)
    return ReportJob(text=text, format=fmt, files=_write(asked.output, text, fmt), judge=judged, design=design)


def _log_report(asked: _Asked, metric: str, judged) -> ReportJob:
    """The report of one metric of a log (or a cell table), with the framing, compare and judge sections asked."""
    design, tests, cells = _design(asked.design), asked.tests, asked.cells
    if not asked.framing_log and (asked.targets is not None or asked.toward is not None):
        raise OptionError("the framing targets and reference target belong to the framing section; give the "
                          f"dual-framing log with {opt('framing_log', 'FRAMING_LOG')}")
    if (asked.per_item or asked.row_level) and cells is not None:
        named = "Welch's t per item" if asked.per_item else f"{opt('row_level')}"
        raise OptionError(f"{named} needs the runs of the log; give the {opt('log')} instead of a cell table")

    refuse_effect_size(tests)
    result, comparison = _analysis_of(asked, metric, design)
    if cells is not None:
        asked = replace(asked, log=(cells["log"],))

    if isinstance(result, FactorialAnalysis):  # beyond 2 × 2: a report of its own
        if asked.named is not None:
            raise OptionError(f"{opt('plain', True)} words the report of a log's values; the report of factors "
                              "beyond 2 × 2 has no plain form: leave it out")

        text = render_factorial_report(result, format=asked.fmt, templates=asked.templates, design=design,
                                       source=asked.shown_source)
        return ReportJob(text=text, format=asked.fmt, files=_write(asked.output, text, asked.fmt), analysis=result,
                         design=design)
    framing = _framing(asked, beside_probe=True) if asked.framing_log else None
    # lazy: present.report.document imports jinja2
    from probestats.present.report.document import Beside, render_report

    probe = asked.probe
    counted = probe.stated()
    shaping = {"where": probe.where, "derive": list(probe.derive), "counted": counted, **_steps_stated(probe)} \
        if (probe.where or probe.derive or counted or probe.explode or probe.code or probe.lookup) else None
    coded = _coded_by(probe, metric)
    described = None
    if cells is None and (coded or asked.validation is not None or "describe" in asked.sections):
        described = describe_log(probe.apply(list(asked.log), metric=metric), metric=metric,
                                 n_resamples=tests.n_resamples, seed=tests.seed)
    beside = Beside(framing=framing, comparison=comparison, judge=judged, describe=described, shaping=shaping,
                    source=asked.shown_source, coded=coded)
    text = render_report(result, format=asked.fmt, sections=list(asked.sections) or None, templates=asked.templates,
                         design=design, assets_dir=asked.assets, beside=beside, plain=asked.named)
    return ReportJob(text=text, format=asked.fmt, files=_write(asked.output, text, asked.fmt), analysis=result,
                     comparison=comparison, framing=framing, judge=judged, design=design)


def _analysis_of(asked: _Asked, metric: str, design):
    """The analysis of one metric a report shows and the comparison with the before log: of the cell table or
    the log, with the tests on runs, the hand labels and the refusal of a correction with one test."""
    tests, cells = asked.tests, asked.cells
    if cells is not None:
        _refuse_arms(asked.arms, design, "a cell table")
        refuse_runs(asked.probe, noise_value=asked.noise_value)

        result, comparison = _cells_analysis(cells, Question(metric, a=asked.a, b=asked.b, by=asked.by,
                                                             noise=cells["noise"]), tests,
                                             gap_of_interest=design.gap_of_interest)
    else:
        question = asked.question(metric, selection=bool(design.selection))
        result, comparison = _log_analysis(asked.log, question, asked.probe, tests, before=asked.before_log,
                                           gap_of_interest=design.gap_of_interest,
                                           streaming=not (asked.per_item or asked.row_level))
    if asked.per_item or asked.row_level:
        result = _with_per_item(result, per_item=asked.per_item, row_level=asked.row_level)
    if not asked.framing_log and asked.judge is None:   # else the correction corrects the framing cells or the
        refuse_lone_correction(result, tests.correction, asked.control)   # judge's tests
    if asked.validation is not None:
        result = with_validation(result, asked.validation, n_resamples=tests.n_resamples, seed=tests.seed)
    return result, comparison


def _steps_stated(probe) -> dict:
    """The lists made rows, the code books and the lookups of a probe, in words (the design section's)."""
    explode = [f"each element of {path} a row, its position in {name}" for name, path in map(parse_explode, probe.explode)]
    code = [f"{name} by the code book {Path(book).name}" for name, book in map(parse_code, probe.code)]
    lookup = [f"{Path(src).name if isinstance(src, (str, Path)) else 'a table'} on {', '.join(parse_keys(keys))}"
              for src, keys in probe.lookup]
    return {"explode": explode, "code": code, "lookup": lookup}


def _coded_by(probe, metric) -> str | None:
    """How the metric was coded from the replies, in words: a code book of the probe, or a judge's label."""
    for spec in probe.code:
        name, book = parse_code(spec)
        if metric in (name, f"{name}_label"):
            return f"the code book {Path(book).name}"
    if metric in ("label", "judge_label") or "judge" in str(metric).lower():
        return "a judge"
    return None


def _refuse_arms(arms: dict, design, what: str) -> None:
    """A control, a baseline or a selection given where the report has no comparison of values to use them."""
    given = [opt(k, v) for k, v in arms.items()] + ([either("Design(selection=True)", "--set selection=yes")]
                                                     if design.selection else [])
    if given:
        raise OptionError(f"{given[0]} belongs to the analysis of a probe log's values; {what} has none (drop it, "
                          "or report the log)")


def _with_per_item(result, *, per_item: bool = True, row_level: bool = False):
    """The paired analysis with Welch's t within every item (:func:`probestats.analyses.rowlevel.with_row_tests`)
    and, with ``row_level``, the tests on runs (:func:`probestats.analyses.paired.with_row_level`) and Welch's t
    per group."""
    if not isinstance(result, Analysis):
        what = "Welch's t per item" if per_item else f"{opt('row_level')}"
        raise OptionError(f"{what} applies to a comparison of two values; choose them with "
                          f"{opt('a')} and {opt('b')}")
    result = with_row_level(result) if row_level else result
    return with_row_tests(result, per_item=per_item, per_group=row_level)


def _framing_only(asked: _Asked) -> ReportJob:
    """A report of a framing log alone: laid out around the framing result."""
    # lazy: present.report.framing_only imports jinja2
    from probestats.present.report.framing_only import render_framing_report

    _refuse_arms(asked.arms, _design(asked.design), "a framing log alone")
    asked.tests.refuse("the report of a framing log alone", "alternative", "effect_size", "n_resamples", "seed")
    asked.probe.refuse("the report of a framing log alone", groups=False)
    sections = asked.sections
    if sections and set(sections) != {"framing"}:
        raise OptionError(f"without a probe log the report has the framing only; drop {opt('sections')} "
                          f"{', '.join(s for s in sections if s != 'framing')} or give the probe {opt('log')}")
    framing = _framing(asked, beside_probe=False)
    source = asked.source if asked.source is not None else ", ".join(str(p) for p in asked.framing_log)
    text = render_framing_report(framing, format=asked.fmt, templates=asked.templates, assets_dir=asked.assets,
                                 source=source, plain=asked.named)
    return ReportJob(text=text, format=asked.fmt, files=_write(asked.output, text, asked.fmt), framing=framing)


def _metrics_job(asked: _Asked, question) -> ReportJob:
    """A report of several metrics: every metric's analysis side by side, one family, the heatmap."""
    if asked.cells is not None:
        raise OptionError(f"a cell table takes one {opt('metric')}; report it once per metric")
    if not asked.log:
        raise OptionError(f"give the {opt('log')} to report (several metrics are reported from a log)")
    for flag, given in ((either("judge", opt("order")), asked.judge), (opt("sections"), asked.sections),
                        (opt("framing_log"), asked.framing_log), (opt("before_log"), asked.before_log)):
        if given:
            raise OptionError(f"{flag} belongs to the report of one metric; give one {opt('metric')}")
    check_options(question, asked.probe, asked.tests)   # said before the log is read
    result = analyze_shaped(shape_log(asked.log, question, asked.probe), question, asked.probe, asked.tests)
    design = _design(asked.design)
    text = render_metrics_report(result, format=asked.fmt, templates=asked.templates, assets_dir=asked.assets,
                                 design=design, source=asked.shown_source)
    return ReportJob(text=text, format=asked.fmt, files=_write(asked.output, text, asked.fmt), analysis=result,
                     design=design)


def _design(design):
    """The design facts: a :class:`~probestats.shape.design.Design` as given, the one a design file holds, or
    none stated."""
    return as_design(design)


def _write(output, text: str, fmt: str) -> tuple:
    """Write the report whole; the files written (the report, then the plots its Markdown links)."""
    if output is None:
        return ()

    write_whole(output, text)
    files = [output]
    if fmt == "md":
        folder = f"{output.stem}_files"
        for name in dict.fromkeys(re.findall(r"\]\(" + re.escape(folder) + r"/([^)\s]+\.png)\)", text)):
            if (output.parent / folder / name).is_file():
                files.append(output.parent / folder / name)
    return tuple(files)


def _judge(log, options, alpha, correction, probe):
    """The order probe a report's judge options ask for, or None."""
    if options is None:
        return None
    if options.get("response") and options.get("choice"):
        raise OptionError(f"give one of {opt('response')} and {opt('choice')}, not both")

    return analyze_order(probe.apply(log), order=options["order"], response=options.get("response"),
                         choice=options.get("choice"), verdicts=options.get("verdicts", ()),
                         by=options.get("by", ()), repetition=options.get("repetition"), alpha=alpha,
                         correction=correction, own_first=options.get("own_first"),
                         chance=0.5 if options.get("chance") is None else options["chance"])


def _framing(asked: _Asked, *, beside_probe=True):
    """The framing log of a report, read and shaped as ``probestats framing`` reads it (folders, every shaping
    option), analyzed with the report's ``by``, targets, reference target, tests and reading of answers.

    Beside a probe log, ``wide`` names that log's columns (a wide framing sheet is recognized by itself), and a
    column mapping applies where the framing log has its header."""
    paths, probe = asked.framing_log, asked.probe
    # complete: the framing analysis always keeps only items answered in both framings, and says which it left out
    shaped = replace(probe, wide_attribute="model", framing_columns=tuple(asked.framing_columns), complete=False,
                     wide=() if beside_probe else probe.wide)
    if beside_probe and probe.columns:  # a column mapping applies where the framing log has that header
        headers = {normalize_header(h) for h in first_headers(list(paths), **probe.read_options())}
        made = set(probe._made_names())
        shaped = replace(shaped, columns=tuple((c, h) for c, h in probe.columns
                                               if normalize_header(h) in headers or h in made))

    read, targets = targets_lookup(shaped.apply(list(paths)), asked.targets)
    scores = FramingScores(answers=asked.answers, label_map=list(asked.label_map) or None)
    return analyze_framing(read, asked.tests, by=list(asked.by) or None, targets=targets, toward=asked.toward,
                           scores=scores)


def _log_analysis(log, question, probe, tests, *, before, gap_of_interest, streaming=True):
    """The analysis step of a report: the analysis analyze would choose for these options, the power curve
    its power section draws, and with ``before`` the comparison of the two runs. Nothing here is rendered."""
    metric, a, b = question.metric, question.a, question.b
    if before is not None and (question.factor or probe.groups or question.reference is not None):
        raise OptionError(f"{opt('before_log')} compares two runs of a two-value probe; drop {opt('factor')}, "
                          f"{opt('group')} and {opt('reference')}")
    # the streaming pass of analyze, with the facts the report states (a log needing its rows is read whole)
    check_options(question, probe, tests)   # said before the log is read
    result = analyze_shaped(shape_log(log, question, probe), question, probe, tests,
                            run=Run(streaming=streaming, facts=True))
    result = with_design_power(result, gap_of_interest)
    comparison = None
    if before is not None:
        if not hasattr(getattr(result, "main", None), "sign_flip"):
            raise OptionError(f"{opt('before_log')} compares two runs of a two-value probe; this log has more "
                              f"values: choose the pair with {opt('a')} and {opt('b')}")

        main = getattr(result, "main", None)
        a, b = a or getattr(main, "a", None), b or getattr(main, "b", None)
        comparison = compare_runs(probe.apply(before, metric=metric, a=a, b=b),
                                  probe.apply(log, metric=metric, a=a, b=b), metric=metric, a=a, b=b,
                                  alternative=tests.alternative, alpha=tests.alpha, fold_case=probe.fold_case,
                                  streaming=True)
    return result, comparison


def _cell_tables(log, noise, before_log) -> dict | None:
    """The cell tables of a report of one (``log``, ``noise``, ``before``), or None for a report of logs; a cell
    table beside a log is refused (:func:`probestats.jobs.inputs.cell_inputs`)."""
    table, noise_table, _, before_table, _ = cell_inputs(log, noise=noise, before_log=before_log)
    return None if table is None else {"log": table, "noise": noise_table, "before": before_table}


def _cells_analysis(cells, question, tests, *, gap_of_interest):
    """The analysis step of a report of a cell table, as :func:`_log_analysis` does it for a row log (the
    ``tests``' interval, resampling and Hedges' correction, as on the row path)."""
    result = analyze_cells(cells["log"], question, tests)
    result = with_design_power(result, gap_of_interest)
    comparison = None
    if cells["before"] is not None:
        pair = replace(question, a=question.a or result.main.a, b=question.b or result.main.b)
        comparison = compare_cells(cells["before"], cells["log"], pair, tests)
    return result, comparison
