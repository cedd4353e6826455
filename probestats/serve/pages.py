"""The local page's steps: what each page shows, and the library calls behind it.

Each step calls the library the command line calls (``probestats.validate``, ``probestats.report``, the
framing and order-probe jobs of ``probestats.jobs.framing`` and ``probestats.jobs.judge``,
``probestats.plan``) with the :class:`~probestats.shape.probe.Probe` of one analysis's choices, and
shows the command that does the same. What is read from an upload is read once and kept for all its
analyses; what is computed for an analysis is kept by the choices it depends on. Every page is
rendered by the report's Jinja environment (HTML, autoescaped, every value through the report's
sanitizer), and every message names the page's controls, never a flag.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
import threading
from dataclasses import replace
from pathlib import Path

from probestats.errors import OptionError, ProbestatsError, Problem, cli_spelling, count_of
from probestats.io.columns import normalize_header
from probestats.io.sheets import check_spreadsheet
from probestats.jobs.framing import framing, result_json
from probestats.jobs.judge import judge
from probestats.jobs.plan import plan
from probestats.jobs.report import report
from probestats.present.report.plain import WORDS, flags_in_words, spelled_in_words
from probestats.present.words.control import control_of
from probestats.present.words.fmt import decimals
from probestats.present.words.judge import one_line as log_line
from probestats.present.words.sanitize import json_text, one_line
from probestats.result import document, dumps
from probestats.serve.session import (ANALYSES, ANSWERS, CHOICE, CHOICES, FACTS, Job, MAPPED, Mapping, SETTINGS,
                                      analysis_command, choices_in_words, design_toml, plan_command, plan_source,
                                      report_command, targets_csv, targets_name, validate_command)
from probestats.shape.design import design_from
from probestats.vocabulary import Tests

__all__ = ["NONCE", "upload_page", "map_page", "validate_page", "results_page", "plan_page", "error_page",
           "report_text", "download", "start_plan", "clean", "mapping_from", "words", "plan_of", "plan_download"]

#: replaced by each response's own nonce (the one the Content-Security-Policy allows styles for); random
#: per process, so no value from a file can hold it
NONCE = "nonce" + secrets.token_hex(16)
TEMPLATES = Path(__file__).with_name("templates")
PREVIEW_ROWS = 5
VALUES_SHOWN = 50
STEPS = (("upload", "Upload"), ("map", "Columns"), ("validate", "Check"), ("results", "Report"), ("plan", "Plan"))
#: the columns never offered as the metric (they number or describe the runs)
NOT_METRICS = ("item", "variant", "seed", "run_id", "time", "model", "temperature", "system")


@functools.lru_cache(maxsize=1)
def _environment():
    from probestats.present.report.environment import environment   # lazy: present.report.environment imports jinja2

    return environment("html", templates=TEMPLATES)


def render(name: str, settings, **context) -> str:
    context.setdefault("job", None)
    context.setdefault("step", "")
    return _environment().get_template(name).render(
        token=settings.token, csrf=settings.csrf, nonce=NONCE, steps=STEPS, max_mb=settings.max_bytes // 1_000_000,
        **context)


def clean(message: str, job: Job | None, root: Path | None = None) -> str:
    """A message to show: the page's private folders left out (a job's, or any under ``root``), on one line, each
    flag named as the page labels its control (or by what it is), no file of the repository.

    >>> clean("cannot read '/tmp/x/0a1b/log.csv' at line 2", None, root=Path("/tmp/x"))
    "cannot read 'log.csv' at line 2"
    >>> clean("--sims 100000 is more than allowed; use --fold-case", None)
    '“Simulated probes per design” set to 100000 is more than allowed; use “Fold case”'
    >>> clean("as common under both values as chance allows (p = 1.2e-07); '1e-05' is not a number", None)
    "as common under both values as chance allows (p = 0.00000012); '1e-05' is not a number"
    """
    import re

    text = str(message)
    if job is not None:
        for folder in (job.folder, job.files.folder):
            text = text.replace(str(folder) + "/", "").replace(str(folder), "")
    if root is not None:
        text = re.sub(re.escape(str(root)) + r"(/[\w-]+)*/", "", text)
        text = text.replace(str(root), "")
    # a p in decimals; a value quoted from the file is shown as written
    text = re.sub(r"(?<![\w.'\"])\d(?:\.\d+)?e-\d{1,3}(?![\w.'\"])", lambda m: decimals(m.group(0)), text)
    return one_line(flags_in_words(text, PLAN_LABELS))


#: the plan form's fields, by the library's keyword: their labels on the plan page
PLAN_LABELS = {"items": "Items", "runs": "Runs per value", "gap": "Optional: a gap worth detecting",
               "power": "Target power", "alpha": "Significance level", "sims": "Simulated probes per design",
               "mechanism": "How the gap acts"}
#: the plan's mechanisms as the plan form offers them (the plan's ``mechanism``), in its order
MECHANISM_WORDS = {"auto": "As the log suggests (each way it leaves plausible, the least promising shown)",
                   "level": "It shifts the level (the spread stays)",
                   "rate": "It changes a count's or a yes/no rate (the spread changes with it)",
                   "scale": "It multiplies the mean"}


@contextlib.contextmanager
def words():
    """Messages made on the page name its controls (by their labels, as the report for people does); an option
    the page has no control for by its command-line flag, as the command prints it (the page's files are the
    command's, byte for byte): :func:`clean` words those flags for the page."""
    with cli_spelling(), spelled_in_words():
        yield


def error_page(message: str, back: str | None) -> str:
    from types import SimpleNamespace

    return _environment().get_template("serve_error.html.j2").render(
        message=message, back=back, nonce=NONCE, steps=STEPS, job=None, step="", token="",
        csrf="", max_mb=0, settings=SimpleNamespace())


def upload_page(settings) -> str:
    return render("serve_upload.html.j2", settings, step="upload")


# ---------------------------------------------------------------- what is read from the files, once


def read_once(job: Job, sheet: str, skip_rows: int):
    """The log read with this sheet and these title rows (kept for every analysis of the upload)."""
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.io.read import read_log

    first = _sheets(job)[:1] if job.log.spreadsheet and not sheet else []
    return job.files.remembered(("log", sheet or (first[0] if first else ""), skip_rows), lambda: read_log(
        job.log.path, sheet=sheet or None, skip_rows=skip_rows))


def _sheets(job: Job) -> list[str]:
    if not job.log.spreadsheet:
        return []

    def read():
        import fastexcel

        check_spreadsheet(job.log.path, None)
        try:
            return list(fastexcel.read_excel(job.log.path).sheet_names)
        except Exception:
            raise OptionError("the spreadsheet cannot be read; is it really an .xlsx or .ods file?") from None

    return job.files.remembered(("sheets",), read)


def inspect(job: Job, mapping: Mapping | None = None) -> dict:
    """What the column page shows for these choices: the headers, the columns the reader recognized by
    itself, the first rows, the values of the chosen value column, the columns of numbers and (for a
    spreadsheet) its sheets. Kept per upload by what it depends on."""
    mapping = mapping if mapping is not None else job.mapping
    key = ("inspect", mapping.sheet, mapping.skip_rows, mapping.variant, "variant" in mapping.unset,
           bool(mapping.option("fold_case")))
    return job.files.remembered(key, lambda: _inspect(job, mapping))


def _inspect(job: Job, mapping: Mapping) -> dict:
    import polars as pl

    sheets = _sheets(job)
    log = read_once(job, mapping.sheet, mapping.skip_rows)
    detected = dict(log.columns)
    lazy_of = {header: canon for canon, header in log.columns.items()}
    head = log.lazy.head(PREVIEW_ROWS).collect()
    headers = list(log.headers)
    rows = [[_cell(record.get(lazy_of.get(h, h))) for h in headers] for record in head.iter_rows(named=True)]
    schema = log.lazy.collect_schema()

    def distinct(header, limit=VALUES_SHOWN, fold=False):
        column = pl.col(lazy_of.get(header, header)).cast(pl.Utf8).str.strip_chars()
        if fold:
            column = column.str.to_lowercase()
        return [str(v) for v in log.lazy.select(column).unique(maintain_order=True).head(limit).collect()
                .to_series().to_list() if v is not None and str(v) != ""]

    value_header = mapping.variant or ("" if "variant" in mapping.unset else detected.get("variant", ""))
    values = distinct(value_header, fold=bool(mapping.option("fold_case"))) if value_header in headers else []
    numbers = _numbers(log, headers, lazy_of, schema)
    found = {"detected": detected, "headers": headers, "rows": rows, "values": values, "sheets": sheets,
             "numbers": numbers, "settings": [s for s in SETTINGS if s in detected],
             "title_rows": _title_rows(job, mapping, log)}
    found.update(_offers(headers, detected, distinct))
    return found


#: how a spreadsheet's reader names a column whose header cell is empty
UNNAMED = "__UNNAMED__"
#: the most title rows the page looks past for the row of column names
TITLE_ROWS_TRIED = 5


def _title_rows(job: Job, mapping: Mapping, log) -> int | None:
    """The title rows a spreadsheet seems to have above its header, when the row read as the header has
    columns without a name (a title in its first cell, the rest empty): the number "Title rows above the header"
    should hold for the first row below whose headers all have names (one naming a column the reader knows,
    if any does). None when the header read looks whole, or no such row is near."""
    if not job.log.spreadsheet or not any(str(h).startswith(UNNAMED) for h in log.headers):
        return None
    whole = None
    for more in range(1, TITLE_ROWS_TRIED + 1):
        try:
            below = read_once(job, mapping.sheet, mapping.skip_rows + more)
        except ProbestatsError:
            break
        if below.headers and not any(str(h).startswith(UNNAMED) for h in below.headers):
            if below.columns.get("item") or below.columns.get("variant"):
                return mapping.skip_rows + more
            whole = whole if whole is not None else mapping.skip_rows + more
    return whole


def _numbers(log, headers: list, lazy_of: dict, schema) -> list[str]:
    """The headers whose first cells are all numbers (a CSV's cells are read as text), bar the item, seed and
    settings: the columns the metric can be."""
    import polars as pl

    names = [(h, lazy_of.get(h, h)) for h in headers
             if lazy_of.get(h) not in NOT_METRICS and lazy_of.get(h, h) in schema]
    if not names:
        return []
    sample = log.lazy.select([pl.col(c) for _, c in names]).head(200).collect()
    out = []
    for header, column in names:
        values = sample[column]
        if not values.dtype.is_numeric():
            text = values.cast(pl.Utf8).str.strip_chars()
            text = text.filter(text.is_not_null() & (text != ""))
            if text.len() == 0 or text.cast(pl.Float64, strict=False).null_count() > 0:
                continue
        out.append(header)
    return out


#: headers (as normalized) that name an order probe's columns: the order, the slot chosen, the judge
ORDER_HEADERS = ("order", "position", "positions", "answer_order", "presentation_order", "slot_order", "swap",
                 "swapped", "orientation")
CHOICE_HEADERS = ("choice", "winner", "verdict", "preferred", "preference", "chosen", "judgment", "judgement")
JUDGE_HEADERS = ("judge", "judge_model", "evaluator", "grader", "rater")
REPETITION_HEADERS = ("repetition", "repeat", "round", "replicate", "trial", "attempt")
_AFFIRMATIVE = ("affirmative", "aff", "agree", "forward")
_REVERSE = ("reverse", "rev", "disagree", "mirror", "mirrored")


def _offers(headers: list, detected: dict, distinct) -> dict:
    """The analyses the columns found allow beside the comparison of values: a dual framing (a framing column,
    or a column of answers per framing) and the order probe of a judge (a column with two answer orders)."""
    norm = {h: normalize_header(h) for h in headers}
    answer_pair = _answer_pair(headers)
    framing = bool(detected.get("framing")) or answer_pair is not None
    topics = []
    if framing and detected.get("topic") and not detected.get("asserts"):
        topics = distinct(detected["topic"])
    orders = [h for h in headers if norm[h] in ORDER_HEADERS and len(distinct(h, 3)) == 2]
    choice = next((h for h in headers if norm[h] in CHOICE_HEADERS), "")
    reply = detected.get("reply", "")
    return {"offers": {"framing": framing, "judge": bool(orders) and bool(choice or reply)},
            "answer_pair": answer_pair or ("", ""), "topics": topics,
            "judge_found": {"order": orders[0] if orders else "", "judge_choice": choice,
                            "judge_reply": "" if choice else reply,
                            "judge_by": next((h for h in headers if norm[h] in JUDGE_HEADERS), ""),
                            "judge_repetition": next((h for h in headers if norm[h] in REPETITION_HEADERS), "")}}


def _answer_pair(headers: list):
    """Two columns that hold a framing's answers each: the same header but for a word naming the framing
    (``aff_score`` and ``rev_score``, ``agree reply`` and ``disagree reply``), or None.

    >>> _answer_pair(["item", "aff_score", "rev_score"]), _answer_pair(["item", "score"])
    (('aff_score', 'rev_score'), None)
    """
    import re

    def words_of(h):
        return tuple(w for w in re.split(r"[\s_\-.]+", str(h).lower()) if w)

    by_words = {words_of(h): h for h in headers}
    for h in headers:
        ws = words_of(h)
        for i, w in enumerate(ws):
            if w in _AFFIRMATIVE:
                for other in _REVERSE:
                    partner = by_words.get(ws[:i] + (other,) + ws[i + 1:])
                    if partner is not None:
                        return h, partner
    return None


def _cell(value) -> str:
    """A preview cell as a person reads it: a whole number without a decimal point, the lines of a reply run
    together with spaces (as a spreadsheet's cell shows them, never as ``\\n``).

    >>> _cell(1.0), _cell(2.5), _cell(None), _cell(10 ** 20 * 1.0), _cell("Steps:\\r\\n1. Retry\\n2.\\tTest")
    ('1', '2.5', '', '1e+20', 'Steps: 1. Retry 2. Test')
    """
    import re

    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        value = int(value)
    text = "" if value is None else re.sub(r"[ ]*[\r\n\t]+[ ]*", " ", str(value))
    return text if len(text) <= 80 else text[:79] + "…"


def _detected(job: Job, mapping: Mapping | None = None) -> dict:
    mapping = mapping if mapping is not None else job.mapping
    return dict(read_once(job, mapping.sheet, mapping.skip_rows).columns)


_EMPTY = {"detected": {}, "headers": [], "rows": [], "values": [], "sheets": [], "numbers": [], "settings": [],
          "offers": {}, "answer_pair": ("", ""), "topics": [], "judge_found": {}, "title_rows": None}


def _found(job: Job) -> tuple[dict, str | None]:
    """What the column page shows, or what it can show with the problem that stopped the rest."""
    try:
        return inspect(job), None
    except ProbestatsError as exc:  # a wrong sheet or title rows: say so on the page, keep the form
        try:
            sheets = _sheets(job)
        except ProbestatsError:
            sheets = []
        return dict(_EMPTY, sheets=sheets), clean(str(exc), job)


# ---------------------------------------------------------------- the columns


def _pick(form, name: str, listed: list, default: str = "") -> str:
    """A choice posted as its place in a list the page showed (so no text from the file has to come back
    through the browser, and a header with spaces or odd characters is kept exactly)."""
    raw = str(form.get(name, "") or "").strip()
    if raw.isdigit() and int(raw) < len(listed):
        return listed[int(raw)]
    return default


def mapping_from(job: Job, form) -> Mapping:
    """The choices the column page sent, read against what that page showed (the state it was made from)."""
    shown, _ = _found(job)
    previous = job.mapping
    headers, detected = shown["headers"], shown["detected"]
    sheet = _pick(form, "sheet", shown["sheets"])
    raw_skip = str(form.get("skip_rows", "") or "").strip()
    if raw_skip and not raw_skip.isdigit():
        raise OptionError("title rows: give a whole number (0 when the header is the first row)")
    skip_rows = min(int(raw_skip or 0), 1_000_000)
    columns, unset = {}, []
    for key in MAPPED:
        header = _pick(form, key, headers)
        if header and header != detected.get(key):
            columns[key] = header
        elif not header and detected.get(key) and f"{key}" in form:
            unset.append(key)
    same_values = (columns.get("variant", "") == previous.variant and ("variant" in unset) ==
                   ("variant" in previous.unset) and bool(form.get("fold_case")) == bool(previous.option("fold_case")))
    values = shown["values"] if same_values else []
    analysis = str(form.get("analysis", "") or "")
    # the options belong to the comparison of values: a framing log or an order probe takes none of them
    options = _options_from(form, shown, values) if analysis not in ("framing", "judge") else ()
    answers = str(form.get("answers", "") or "")
    mapping = Mapping(
        metric=_pick(form, "metric", headers), **columns, unset=tuple(unset),
        a=_pick(form, "a", values), b=_pick(form, "b", values), reference=_pick(form, "reference", values),
        sheet=sheet, skip_rows=skip_rows, where=str(form.get("where", "") or "").strip()[:500], options=options,
        analysis=analysis if analysis in ANALYSES else "",
        answers=answers if answers in ANSWERS and answers != "auto" else "",
        targets=_targets_from(form, shown["topics"] if analysis == "framing" else []),
        framing_aff=_pick(form, "framing_aff", headers), framing_rev=_pick(form, "framing_rev", headers),
        order=_pick(form, "order", headers), judge_reply=_pick(form, "judge_reply", headers),
        judge_choice=_pick(form, "judge_choice", headers), judge_by=_pick(form, "judge_by", headers),
        judge_repetition=_pick(form, "judge_repetition", headers),
        **{k: str(form.get(k, "") or "")[:500] for k in ("verdict_first", "verdict_second", "verdict_tie")})
    # the sheet shown chosen on the first visit is the first one (the mapping names none yet): the same sheet
    # posted back is no change, and keeps the values chosen with it
    first = shown["sheets"][0] if shown["sheets"] else ""
    if ((sheet or first), skip_rows) != ((previous.sheet or first), previous.skip_rows):
        mapping = _kept_in(job, mapping)
        if not mapping.metric and not mapping.analysis:  # the new header row's one column of numbers, as at first
            try:
                mapping = replace(mapping, metric=_suggested_metric(inspect(job, mapping)))
            except ProbestatsError:
                pass
    return mapping


def _options_from(form, shown: dict, values: list) -> tuple:
    """The options of :data:`CHOICES` the form set, each as its control posts it."""
    out = []
    for choice in CHOICES:
        if choice.control == "box":
            value = True if form.get(choice.name) else None
        elif choice.control == "column":
            value = _pick(form, choice.name, shown["headers"]) or None
            value = (value,) if value and choice.many else value
        elif choice.control == "value":
            value = _pick(form, choice.name, values) or None
        else:  # the settings found in the log, ticked
            ticked = form.getlist(choice.name) if hasattr(form, "getlist") else [form.get(choice.name)]
            value = tuple(s for s in SETTINGS if s in ticked and s in shown["settings"]) or None
        if value:
            out.append((choice.name, value))
    return tuple(out)


def _kept_in(job: Job, mapping: Mapping) -> Mapping:
    """Another sheet or other title rows: the choices that name a header the new header row lacks are
    dropped (the reader finds the columns again)."""

    try:
        headers = set(read_once(job, mapping.sheet, mapping.skip_rows).headers)
    except ProbestatsError:
        return mapping
    changes = {key: "" for key in (*MAPPED, "metric", "framing_aff", "framing_rev", "order", "judge_reply",
                                   "judge_choice", "judge_by", "judge_repetition") if getattr(mapping, key) and getattr(mapping, key)
               not in headers}
    options = tuple((n, v) for n, v in mapping.options if CHOICE[n].control != "column"
                    or all(h in headers for h in (v if isinstance(v, tuple) else (v,))))
    return replace(mapping, **changes, options=options, a="", b="", reference="")


def _targets_from(form, topics) -> tuple:
    out = []
    for n, topic in enumerate(topics):
        aff, rev = (" ".join(str(form.get(f"target-{side}-{n}", "") or "").split())[:500] for side in ("aff", "rev"))
        if aff and rev:
            out.append((topic, aff, rev))
    return tuple(out)


def _suggested_metric(found: dict) -> str:
    """The metric shown chosen before the page is sent: the one column of numbers that is not the item, the
    seed or a setting (none when there are several or none)."""
    return found["numbers"][0] if len(found["numbers"]) == 1 else ""


def map_page(settings, job: Job) -> str:
    mapping = job.mapping
    found, problem = _found(job)
    detected = found["detected"]
    chosen = {key: ("" if key in mapping.unset else getattr(mapping, key) or detected.get(key, "")) for key in MAPPED}
    posted = job.state.posted
    if posted:
        analysis = mapping.analysis
    else:  # first visit: the analysis the columns suggest (a framing column, an order column)
        analysis = "framing" if found["offers"].get("framing") else "judge" if found["offers"].get("judge") else ""
    judge = {key: getattr(mapping, key) if posted else found["judge_found"].get(key, "")
             for key in ("order", "judge_reply", "judge_choice", "judge_by", "judge_repetition")}
    framing_pair = (mapping.framing_aff, mapping.framing_rev) if posted else found["answer_pair"]
    typed = {topic: (aff, rev) for topic, aff, rev in mapping.targets}
    metric = mapping.metric if posted else (mapping.metric or _suggested_metric(found))
    # before the page is sent: a criterion column (a judge's) is suggested as the split, shown chosen
    suggested_by = "" if posted or not detected.get("criterion") else detected["criterion"]
    command = report_command(job, detected) if (mapping.metric or mapping.analysis) and posted and not problem \
        else None
    return render("serve_map.html.j2", settings, step="map", job=job, mapping=mapping, found=found,
                  chosen=chosen, mapped=MAPPED, command=command, problem=problem, analyses=ANALYSES,
                  analysis=analysis, answers=ANSWERS, judge=judge, framing_pair=framing_pair, typed=typed,
                  metric=metric, suggested=metric and not posted, choices=CHOICES, suggested_by=suggested_by,
                  unnamed=UNNAMED,
                  analysis_command=analysis_command(job, detected) if posted and not problem else None)


# ---------------------------------------------------------------- validation


def validate_page(settings, job: Job) -> str:
    mapping = job.mapping
    if mapping.analysis:
        return _check_analysis(settings, job)
    if not mapping.metric:
        raise OptionError(_no_metric(job))
    detected = _detected(job)
    checked = checked_log(job)
    problems = _grouped([_shown(p, job) for p in checked.problems])
    if detected.get("criterion") and not mapping.option("by"):
        problems.append({"severity": "warning", "code": "criteria_pooled", "rows": "", "column": detected["criterion"],
                         "message": f"the log scores several criteria (column {detected['criterion']}), and they "
                                    "are pooled here as if they were runs of one metric; choose “Split by” set to "
                                    f"{detected['criterion']} on the column page for one result per criterion"})
    report = None
    if checked.ok:  # the report's own words: what it compares, and every warning it will list
        report = _report_promise(job, checked)
    return render("serve_validate.html.j2", settings, step="validate", job=job, checked=checked,
                  problems=problems, command=validate_command(job, detected), n_rows=checked.n_rows,
                  report=report, chosen=choices_in_words(job, detected), fixes=_fixes(problems))


def _fixes(problems: list[dict]) -> list[str]:
    """The controls the errors name as their fix (each once, as its label is quoted: “Fold case”), for the
    verdict's one line: a tick box is named as one, never as "another column".

    >>> _fixes([{"severity": "error", "message": "use “Fold case”, or “Keep complete items only”"},
    ...         {"severity": "warning", "message": "use “Split by”"},
    ...         {"severity": "error", "message": "name one with “Item” set to HEADER; or “Fold case”"}])
    ['the tick box “Fold case”', 'the tick box “Keep complete items only”', '“Item”']
    """
    import re

    boxes = {c.label for c in CHOICES if c.control == "box"}
    found: list[str] = []
    for p in problems:
        if p["severity"] == "error":
            for label in re.findall(r"“([^”]{1,80})”", p["message"]):
                named = f"the tick box “{label}”" if label in boxes else f"“{label}”"
                if named not in found:
                    found.append(named)
    return found


def _no_metric(job: Job) -> str:
    found, problem = _found(job)
    if problem:  # the file could not be read as the page was told: that, not the metric, is the fix
        return problem
    if found["title_rows"]:
        return title_rows_words(found["title_rows"])
    if not found["numbers"]:
        return ("no column of this file holds numbers: the metric is a number per run (for example the count of "
                "steps in each reply); add a column with it to the sheet and upload it again, then choose it as "
                "the metric on the column page")
    return "choose the metric column (the number measured on each reply) on the column page"


def title_rows_words(n: int) -> str:
    """What the page says of a sheet whose first row is a title, not the row of column names.

    >>> title_rows_words(2)[:60]
    'the first row of the sheet is a title, not the names of the '
    """
    return (f"the first row of the sheet is a title, not the names of the columns (the columns read without a name "
            f"are shown as {UNNAMED}1, {UNNAMED}2, …): set “Title rows above the header” to {n} on the column page "
            "and press “Update the preview and command”, then choose the metric")


def checked_log(job: Job):
    """The log checked as ``validate`` checks it with the page's options (kept per choices)."""
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.checks.schema import ColumnRoles, validate

    mapping = job.mapping

    def run():
        detected = _detected(job)
        probe = mapping.probe(detected)
        a, b = mapping.a or None, mapping.b or None
        by = mapping.keywords("validate").get("by", ())
        with words():
            return validate(probe.apply(job.log.path, metric=mapping.metric, a=a, b=b, by=by), metric=mapping.metric,
                            a=a, b=b, by=by, fold_case=probe.fold_case,
                            roles=ColumnRoles(attribute_settings=probe.attribute_settings))

    return job.files.remembered(("checked", mapping), run)


#: problems of one kind the check lists before it counts the rest
SHOWN_OF_A_KIND = 5


def _grouped(problems: list[dict]) -> list[dict]:
    """The problems as the check lists them: of each kind the first :data:`SHOWN_OF_A_KIND`, then one line
    counting the rest (``more``), where the kind's last shown one stood.

    >>> ps = [{"severity": "error", "code": "x", "message": str(i)} for i in range(7)]
    >>> [p.get("more") or p["message"] for p in _grouped(ps)]
    ['0', '1', '2', '3', '4', 2]
    """
    counts: dict = {}
    for p in problems:
        counts[p["code"]] = counts.get(p["code"], 0) + 1
    out, seen = [], {}
    for p in problems:
        seen[p["code"]] = seen.get(p["code"], 0) + 1
        if seen[p["code"]] <= SHOWN_OF_A_KIND:
            out.append(p)
            if seen[p["code"]] == SHOWN_OF_A_KIND and counts[p["code"]] > SHOWN_OF_A_KIND:
                out.append({**p, "more": counts[p["code"]] - SHOWN_OF_A_KIND})
    return out


def _shown(p, job: Job) -> dict:
    return {"severity": p.severity, "code": p.code, "message": clean(p.message, job),
            "rows": _rows(getattr(p, "rows", ()) or ()), "column": getattr(p, "column", None)}


def _report_promise(job: Job, checked) -> dict:
    """What the report will do: the values it compares (as its analysis chose them) and the warnings its
    Limits will list beyond the check's own."""
    try:
        made = report_job(job, "html")
    except ProbestatsError as exc:
        return {"error": clean(str(exc), job), "compared": [], "reference": None, "warnings": []}
    analysis = made.analysis
    main = getattr(analysis, "main", analysis)
    if hasattr(main, "a") and hasattr(main, "b"):
        compared, reference = [main.a, main.b], None
    else:  # several values, each against a reference
        compared = [getattr(v, "value", v) for v in getattr(main, "values", ()) or ()]
        reference = getattr(main, "reference", None)
    seen = {p.message for p in checked.problems}
    extra = [_shown(p, job) for p in getattr(analysis, "problems", ()) if p.severity == "warning"
             and p.message not in seen]
    return {"error": None, "compared": compared, "reference": reference, "warnings": extra,
            "design": design_read(job, analysis, _log_values(job))}


def _log_values(job: Job) -> list[str]:
    """The values of the log's value column, as the column page lists them (none when it cannot read them)."""
    try:
        return list(inspect(job)["values"])
    except ProbestatsError:
        return []


#: words that name a meaningless edit of the request: a value so named is likely a control wording
CONTROL_NAMES = ("control", "placebo", "typo", "misspell", "misspelling", "paraphrase", "reworded", "rephrased",
                 "whitespace", "blank", "noop", "no-op", "null", "swap", "swapped")


def looks_like_control(value: str) -> bool:
    """Whether a value's name says it is a meaningless edit (a typo, a paraphrase, a placebo).

    >>> [looks_like_control(v) for v in ("typo", "formal_typo", "Placebo edit", "casual", "controlled")]
    [True, True, True, False, False]
    """
    import re

    return any(w in CONTROL_NAMES for w in re.split(r"[\s_.,;:/()-]+", str(value).lower()))


def design_read(job: Job, analysis, values=()) -> dict | None:
    """What the analysis took the probe to be (its design sentence), and each role it names with the control of
    the column page that changes it: ``{"sentence", "roles": [{"role", "said", "controls": [(label, id)]}]}``.
    None for an analysis that reads no design (several metrics, factors). ``values``: the log's values, of which
    one named as a meaningless edit (:func:`looks_like_control`) calls for the “Control value”.

    >>> from probestats.analyses.design_read import ProbeDesign
    >>> from types import SimpleNamespace as NS
    >>> d = ProbeDesign(n_items=6, values=("a", "b"), runs=(3, 3, 3.0), clusters="source", n_clusters=3,
    ...                 roles={"item": {"column": "Q", "found": "declared"}}, sentence="This analysis took ...")
    >>> [(r["role"], [label for label, _ in r["controls"]]) for r in design_read(None, NS(probe_design=d))["roles"]]
    [('Items', ['Item']), ('Values', ['Value compared', 'First value', 'Second value']), ('Runs', ['Seed']), ('Clusters', ['Clusters'])]
    """
    try:
        design = analysis.probe_design
    except (AttributeError, ProbestatsError):
        return None

    def column(role: str) -> str:
        found = design.roles.get(role)
        if not found:
            return ""
        how = "found by its name" if found["found"] == "by name" else "as chosen"
        return f", from the column {found['column']} ({how})"

    def of_column(key: str) -> tuple:
        return (MAPPED[key][0], f"col-{key}")

    def option(name: str) -> tuple:
        return (WORDS[name], f"opt-{name}")

    low, high, median = design.runs
    runs = (f"{low} run{'s' if low != 1 else ''} per item and value" if low == high else
            f"{low} to {high} runs per item and value (median {median:g})")
    roles = [{"role": "Items", "said": f"{count_of(design.n_items, 'item')}{column('item')}",
              "controls": [of_column("item")]},
             {"role": "Values", "said": ", ".join(f"‘{v}’" for v in design.values[:8])
                                        + (f" and {len(design.values) - 8} more" if len(design.values) > 8 else "")
                                        + column("variant"),
              "controls": [of_column("variant"), ("First value", "a"), ("Second value", "b")]},
             {"role": "Runs", "said": runs, "controls": [of_column("seed")]}]
    if design.blocks:
        roles.append({"role": "Blocks", "said": f"{count_of(design.n_blocks, 'block')} of {', '.join(design.blocks)}"
                                                " that vary within items (items matched within each)",
                      "controls": [of_column(b) for b in design.blocks if b in MAPPED] + [option("by")]})
    if design.clusters:
        roles.append({"role": "Clusters", "said": f"items nested in {design.n_clusters} clusters of {design.clusters}",
                      "controls": [option("cluster")]})
    if design.random_settings:
        roles.append({"role": "Settings drawn at random", "said": ", ".join(design.random_settings),
                      "controls": [option("random_settings")]})
    if design.by:
        roles.append({"role": "Split", "said": f"one result per {' and '.join(design.by)}",
                      "controls": [option("by")]})
    if design.candidates:
        roles.append({"role": "Maybe blocks", "said": f"{', '.join(design.candidates)} may be a block (each takes "
                                                      "every value in every item and value)",
                      "controls": [option("by")]})

    control = control_of(analysis)
    if control is not None:
        roles.append({"role": "Control wording", "said": f"‘{control.control}’, a meaningless edit of "
                                                         f"‘{control.baseline}’ set beside the compared values",
                      "controls": [option("control"), option("baseline")]})
    else:
        edits = [v for v in values if looks_like_control(v) and v not in design.values]
        edits = edits or [v for v in design.values if looks_like_control(v)]
        if edits:
            roles.append({"role": "Control wording", "said": f"‘{edits[0]}’ looks like a meaningless edit of the "
                                                             "request; if it is one, choose it as the control and the "
                                                             "unchanged request as the baseline: the report then sets "
                                                             "the attribute's gaps against the edit's",
                          "controls": [option("control"), option("baseline")]})
    return {"sentence": clean(design.sentence, job), "roles": roles}


def _check_analysis(settings, job: Job) -> str:
    """The check of a framing log or an order probe: its analysis run, every problem it states listed (errors
    block the report)."""
    detected = _detected(job)
    result = None
    try:
        result = analysis(job)
        problems = list(getattr(result, "problems", ()))
    except ProbestatsError as exc:
        problems = list(getattr(exc, "problems", ())) or [Problem("error", "refused", str(exc))]
    shown = [_shown(p, job) for p in problems]
    read = None if result is None else (_order_read(job, result) if job.mapping.analysis == "judge"
                                        else _framing_read(job, result))
    return render("serve_validate.html.j2", settings, step="validate", job=job, checked=None,
                  problems=shown, command=analysis_command(job, detected), n_rows=None,
                  analysis=ANALYSES[job.mapping.analysis], report={"design": read, "error": None, "compared": [], "reference": None,
                                                              "warnings": []} if read else None,
                  chosen=choices_in_words(job, detected), fixes=_fixes(shown))


def _framing_read(job: Job, result) -> dict:
    """What the page took a dual-framing log to be, each role beside the column page's control that changes it."""
    n = max((c.n_items for c in result.cells), default=0)
    cells = [result.cell_name(c) for c in result.cells]
    items = ", ".join(map(log_line, result.item_columns)) if result.item_columns else "the one item"
    answers = "yes or no" if result.answers == "yes-no" else "on the agreement scale"
    reference = result.reference
    toward = (f"‘{log_line(reference)}’" if not isinstance(reference, dict) else "the reference of each topic ("
              + "; ".join(f"{log_line(t)}: ‘{log_line(r)}’" for t, r in list(reference.items())[:8]) + ")")
    roles = [{"role": "Items", "said": f"up to {count_of(n, 'matched item')} per cell, one claim asked in both "
                                       f"framings, told apart by {items}", "controls": [("Item", "col-item")]},
             {"role": "Answers", "said": f"read {answers} ({log_line(result.answers_reason)})",
              "controls": [("The answers", "answers")]},
             {"role": "Cells", "said": f"{count_of(len(cells), 'cell')}, each tested on its own: "
                                       + "; ".join(map(log_line, cells[:8]))
                                       + (f" and {len(cells) - 8} more" if len(cells) > 8 else ""),
              "controls": [("Model", "col-model")]},
             {"role": "Reference", "said": f"the lean is counted toward {toward}",
              "controls": [("Target of the affirmative claim", "topic-0")] if inspect(job).get("topics") else []}]
    sentence = (f"This analysis took the probe to be: {count_of(len(cells), 'cell')} of up to "
                f"{count_of(n, 'matched item')} each, asked in both framings, answered {answers}, the lean counted "
                f"toward {toward}.")
    return {"sentence": clean(sentence, job), "roles": roles}


def _order_read(job: Job, result) -> dict:
    """What the page took an order probe to be, each role beside the column page's control that changes it."""
    n = max((g.n_items for g in result.groups), default=0)
    judges = [result.group_name(g) for g in result.groups]
    orders = " and ".join(f"‘{log_line(o)}’" for o in result.orders)
    items = (f"{count_of(n, 'item and repetition pair')}, each judged with its two answers in both orders"
             if result.repetition else f"{count_of(n, 'item')}, each judged with its two answers in both orders")
    read_by = ([("The slot chosen", "judge_choice")] if job.mapping.judge_choice else
               [("The judge's reply", "judge_reply"), ("Text that marks a win of the first slot", "verdict_first")])
    roles = [{"role": "Items", "said": items, "controls": [("Item", "col-item")]},
             {"role": "Orders", "said": f"{orders}, from the column {log_line(result.order)}",
              "controls": [("The order", "order")]},
             {"role": "Verdicts", "said": f"read from the column {log_line(result.column)}",
              "controls": read_by},
             {"role": "Judges", "said": (f"{len(judges)}, each its own analysis: " + ", ".join(map(log_line, judges[:8]))
                                         if len(judges) > 1 else "one, the whole log"),
              "controls": [("Optional: the judge", "judge_by")]},
             {"role": "Repetitions", "said": (f"the column {log_line(result.repetition)} numbers each time an item "
                                              "was judged again" if result.repetition else
                                              "none: each item judged once in each order"),
              "controls": [("Repetition", "judge_repetition")]}]
    sentence = (f"This analysis took the probe to be: {items.split(',')[0]} judged in the two orders {orders} of "
                f"{log_line(result.order)}, by {count_of(len(judges), 'judge')}"
                + (f", repeated as {log_line(result.repetition)} numbers them" if result.repetition else "") + ".")
    return {"sentence": clean(sentence, job), "roles": roles}


def _judge_ready(mapping: Mapping) -> None:
    """An order probe needs its order column and a way to read each verdict (the page's fields named)."""
    if not mapping.order:
        raise OptionError("choose the order column (the two orders the answers were shown in) on the column page")
    if not mapping.judge_choice and not mapping.judge_reply:
        raise OptionError("choose the column of the slot chosen, or the judge's reply, on the column page")
    if not mapping.judge_choice and not (mapping.verdict_first and mapping.verdict_second):
        raise OptionError("type the text that marks a win of the first slot and of the second (for example "
                          "[[A]] and [[B]]) on the column page, or choose the column of the slot chosen")


def _targets_file(job: Job):
    """The targets typed on the column page, written as the file the page's command names (or None)."""
    if not job.mapping.targets:
        return None
    path = job.folder / targets_name(job)
    path.write_text(targets_csv(job.mapping.targets), encoding="utf-8")
    return path


def analysis(job: Job):
    """The framing or order-probe result the page's analysis command prints (kept per choices)."""
    mapping = job.mapping

    def run():
        probe = mapping.probe(_detected(job))
        with words():
            if mapping.analysis == "framing":
                return framing(job.log.path, probe=replace(probe, framing_columns=mapping.framing_columns()),
                               targets=_targets_file(job),
                               answers=mapping.answers or "auto")

            _judge_ready(mapping)
            options = mapping.judge_options()
            return judge(job.log.path, order=options["order"], response=options["response"],
                         choice=options["choice"], verdicts=options["verdicts"], by=options["by"],
                         repetition=options["repetition"], probe=probe)

    return job.files.remembered(("analysis", mapping), run)


def _rows(rows) -> str:
    rows = list(rows)
    shown = ", ".join(str(r) for r in rows[:20])
    return shown + (f" and {len(rows) - 20} more" if len(rows) > 20 else "")


# ---------------------------------------------------------------- the report


def report_job(job: Job, fmt: str):
    """The report in ``fmt`` through ``probestats.report``, as the page's command writes it (kept per choices
    and facts; each analysis writes in a folder of its own)."""
    mapping, facts = job.mapping, job.state.facts
    return job.files.remembered(("report", fmt, mapping, facts, job.noise is not None),
                                lambda: _make_report(job, fmt))


def _make_report(job: Job, fmt: str):
    mapping = job.mapping
    detected = _detected(job)
    out = job.folder / f"out-{secrets.token_hex(4)}"
    out.mkdir(mode=0o700)
    output = out / f"report.{fmt}"
    with cli_spelling():  # as the command line runs it: its text is the command's, byte for byte
        if mapping.analysis == "framing":  # a report of the framing log alone, as `report --framing LOG` writes it
            return report(framing_log=job.log.path, targets=_targets_file(job), answers=mapping.answers or "auto",
                          output=output, probe=replace(mapping.probe(detected),
                                                       framing_columns=mapping.framing_columns()),
                          source=job.log.name, plain=True)
        if mapping.analysis == "judge":  # a report of the order probe alone, as `report LOG --order COL` writes it
            _judge_ready(mapping)
            return report(job.log.path, judge=mapping.judge_options(), output=output, probe=mapping.probe(detected),
                          source=job.log.name, plain=True)
        if not mapping.metric:
            raise OptionError(_no_metric(job))
        return report(job.log.path, metric=mapping.metric, a=mapping.a or None, b=mapping.b or None,
                      reference=(mapping.reference or None) if not (mapping.a or mapping.b) else None,
                      noise=job.noise.path if job.noise else None, output=output, probe=mapping.probe(detected),
                      source=job.log.name, plain=True, **mapping.keywords("report"),
                      design=design_from(None, **job.facts) if job.facts else None)


def report_text(job: Job, fmt: str) -> str:
    return report_job(job, fmt).text


def results_page(settings, job: Job) -> str:
    mapping = job.mapping
    html = report_job(job, "html")
    detected = _detected(job)
    shown = {key: ("\n".join(v) if isinstance(v, tuple) else v) for key, v in job.facts.items()}
    return render("serve_results.html.j2", settings, step="results", job=job, facts=FACTS, shown=shown,
                  command=report_command(job, detected), has_design=bool(job.facts),
                  placeholders=len(html.design.missing()) if html.design is not None else 0,
                  analysis=mapping.analysis, analysis_command=analysis_command(job, detected),
                  targets=targets_name(job) if mapping.targets else None)


def download(job: Job, name: str) -> bytes:
    if name == "report.zip":
        return _markdown_zip(job)
    if name.startswith("report."):
        return report_job(job, name.split(".", 1)[1]).data
    if name == "probe.toml":
        return design_toml(job.facts).encode("utf-8")
    if name == "command.txt":
        return (report_command(job, _detected(job)) + "\n").encode("utf-8")
    if name in ("analysis.json", "analysis_command.txt", "targets.csv"):
        return _analysis_download(job, name)
    raise OptionError("no such download")


def _markdown_zip(job: Job) -> bytes:
    """The Markdown report with its plots, as the command writes them: ``report.md`` and ``report_files/``."""
    import io
    import zipfile

    made = report_job(job, "md")
    report_path = made.files[0]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("report.md", made.data)
        for path in made.files[1:]:
            archive.write(path, f"report_files/{path.relative_to(report_path.parent / 'report_files')}")
    return out.getvalue()


def _analysis_download(job: Job, name: str) -> bytes:
    """The framing or order-probe downloads: the analysis as its command prints it, that command, the targets."""
    mapping = job.mapping
    if not mapping.analysis:
        raise OptionError("this download belongs to a framing log or an order probe; choose one on the column page")
    if name == "targets.csv":
        if not mapping.targets:
            raise OptionError("no targets were typed on the column page")
        return targets_csv(mapping.targets).encode("utf-8")
    detected = _detected(job)
    if name == "analysis_command.txt":
        return (analysis_command(job, detected) + "\n").encode("utf-8")

    return result_json(analysis(job)).encode("utf-8")


# ---------------------------------------------------------------- the plan


def _number(form, name: str, kind, default, low=None, high=None):
    """A number of the plan form, its errors naming the field by its label.

    >>> _number({"alpha": "nan"}, "alpha", float, 0.05, low=0, high=1)
    Traceback (most recent call last):
    probestats.errors.OptionError: “Significance level”: 'nan' is not a number
    """
    import math

    raw = str(form.get(name, "") or "").strip()
    label = f"“{PLAN_LABELS.get(name, name)}”"
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise OptionError(f"{label}: '{raw[:40]}' is not a number") from None
    if not math.isfinite(value):
        raise OptionError(f"{label}: '{raw[:40]}' is not a number")
    if (low is not None and value <= low) or (high is not None and value >= high):
        between = (f"above {low:g}" if high is None else f"below {high:g}" if low is None
                   else f"between {low:g} and {high:g}")
        raise OptionError(f"{label}: {raw[:40]} is out of range; give a number {between}")
    return value


def _designs(form, name: str, default: str) -> str:
    raw = "".join(str(form.get(name, "") or default).split())
    parts = raw.split(",")
    if not raw or len(parts) > 12 or not all(p.isdigit() and 0 < int(p) <= 1000 for p in parts):
        raise OptionError(f"“{PLAN_LABELS[name]}”: give whole numbers from 1 to 1000 separated by commas, "
                          f"e.g. {default}")
    return raw


#: the plan form's first values
PLAN_FORM = {"items": "6,8,10,12", "runs": "2,5,10", "gap": None, "sims": 2000, "power": 0.8, "alpha": 0.05,
             "mechanism": "auto"}


def start_plan(settings, job: Job, form) -> str:
    """Start simulating the plan the form asks for (in a thread); the plan's id for its progress page."""
    mapping = job.mapping
    if not mapping.metric:
        raise OptionError(_no_metric(job))
    items = _designs(form, "items", PLAN_FORM["items"])
    runs = _designs(form, "runs", PLAN_FORM["runs"])
    gap = _number(form, "gap", float, None)
    sims = _number(form, "sims", int, PLAN_FORM["sims"], low=0, high=100_001)
    power = _number(form, "power", float, PLAN_FORM["power"], low=0, high=1)
    alpha = _number(form, "alpha", float, PLAN_FORM["alpha"], low=0, high=1)
    mechanism = str(form.get("mechanism", "") or PLAN_FORM["mechanism"])
    if mechanism not in MECHANISM_WORDS:
        raise OptionError(f"“{PLAN_LABELS['mechanism']}”: choose one of the ways the list offers")
    detected = _detected(job)
    source = plan_source(job)
    command = plan_command(job, detected, items=items, runs=runs, gap=gap, sims=sims, power=power, alpha=alpha,
                           mechanism=mechanism)
    state = {"done": 0.0, "total": 0, "command": command, "analysis": job.id, "source": source.name,
             "form": {"items": items, "runs": runs, "gap": gap, "sims": sims, "power": power, "alpha": alpha,
                      "mechanism": mechanism}}
    plan_id = secrets.token_urlsafe(9)
    with settings.lock:
        settings.plans[plan_id] = state

    def progress(done, total):
        state["done"], state["total"] = float(done), int(total)

    def work():
        try:
            with words():
                result = plan(source.path, metric=mapping.metric, items=[items], runs=[runs], gap=gap, sims=sims,
                              power=power, tests=Tests(alpha=alpha), progress=progress, mechanism=mechanism,
                              probe=mapping.probe(detected, sheet=source.spreadsheet, command="plan"))
            state["json"] = json_text(dumps(document(result))) + "\n"  # as `plan --json` prints it
            state["result"] = result
        except ProbestatsError as exc:
            state["error"] = clean(str(exc), job)
        except Exception as exc:  # a bug: one line on the page
            state["error"] = f"unexpected {type(exc).__name__}; please report it"

    threading.Thread(target=work, daemon=True).start()
    return plan_id


def plan_of(settings, job: Job, plan_id: str) -> dict | None:
    """The plan ``plan_id`` of this analysis (None for another analysis's, or none)."""
    state = settings.plans.get(plan_id) if plan_id else None
    return state if state is not None and state["analysis"] == job.id else None


def plan_download(settings, job: Job, plan_id: str, name: str) -> bytes:
    state = plan_of(settings, job, plan_id)
    if state is None or "json" not in state:
        raise OptionError("size a probe on the plan page first")
    if name == "plan.json":
        return state["json"].encode("utf-8")
    return (state["command"] + "\n").encode("utf-8")


def plan_page(settings, job: Job, plan_id: str) -> str:
    state = plan_of(settings, job, plan_id)
    result = state.get("result") if state else None
    return render("serve_plan.html.j2", settings, step="plan", job=job, state=state, plan_id=plan_id,
                  mapping=job.mapping, result=result, source=plan_source(job),
                  form=(state or {}).get("form", PLAN_FORM), mechanisms=MECHANISM_WORDS,
                  acts=_how_the_gap_acts(result) if result is not None else None)


def _how_the_gap_acts(result) -> dict:
    """How the plan took the gap to act, in words, and whether the log left several ways open (then the plan page
    names “How the gap acts”, where a person who knows says which)."""
    chosen = result.mechanisms
    ways = [f"it {chosen.words(m)}" for m in chosen.candidates]
    reason = "as chosen in this form" if chosen.source == "declared" else clean(chosen.reason, None)
    return {"several": chosen.several, "ways": ways, "kind": chosen.kind, "reason": reason}
