"""The local page's steps: what each page shows, and the library calls behind it.

Each step calls the library the command line calls (``probestats.validate``, ``probestats.report``, the
framing and order-probe jobs of ``probestats.present.framing_job`` and ``judge_job``,
``probestats.plan``) with the :class:`~probestats.shape.probe.Probe` of the person's choices, and
shows the command that does the same. Every page is rendered by the report's Jinja environment
(HTML, autoescaped, every value through the report's sanitizer).
"""

from __future__ import annotations

import functools
import secrets
import threading
from pathlib import Path

from probestats.errors import OptionError, ProbestatsError
from probestats.serve.session import (ANALYSES, ANSWERS, FACTS, MAPPED, Job, Mapping, analysis_command, design_toml,
                                      plan_command, report_command, targets_csv, targets_name)

__all__ = ["NONCE", "upload_page", "map_page", "validate_page", "results_page", "plan_page", "error_page",
           "report_text", "download", "start_plan", "clean"]

#: replaced by each response's own nonce (the one the Content-Security-Policy allows styles for); random
#: per process, so no value from a file can hold it
NONCE = "nonce" + secrets.token_hex(16)
TEMPLATES = Path(__file__).with_name("templates")
PREVIEW_ROWS = 5
STEPS = (("upload", "Upload"), ("map", "Columns"), ("validate", "Check"), ("results", "Report"), ("plan", "Plan"))


@functools.lru_cache(maxsize=1)
def _environment():
    from probestats.present.templates import environment

    return environment("html", templates=TEMPLATES)


def render(name: str, settings, **context) -> str:
    context.setdefault("job", None)
    context.setdefault("step", "")
    return _environment().get_template(name).render(
        token=settings.token, csrf=settings.csrf, nonce=NONCE, steps=STEPS, max_mb=settings.max_bytes // 1_000_000,
        **context)


def clean(message: str, job: Job | None, root: Path | None = None) -> str:
    """A message to show: the page's private folders left out (a job's, or any under ``root``), on one line.

    >>> clean("cannot read '/tmp/x/0a1b/log.csv' at line 2", None, root=Path("/tmp/x"))
    "cannot read 'log.csv' at line 2"
    """
    import re

    from probestats.present.sanitize import one_line

    text = str(message)
    if job is not None:
        text = text.replace(str(job.folder) + "/", "").replace(str(job.folder), "")
    if root is not None:
        text = re.sub(re.escape(str(root)) + r"(/[0-9a-f]+)?/?", "", text)
    return one_line(text)


def error_page(message: str, back: str | None) -> str:
    from types import SimpleNamespace

    return _environment().get_template("serve_error.html.j2").render(
        message=message, back=back, nonce=NONCE, steps=STEPS, job=None, step="", token="",
        csrf="", max_mb=0, settings=SimpleNamespace())


def upload_page(settings) -> str:
    return render("serve_upload.html.j2", settings, step="upload")


# ---------------------------------------------------------------- the columns


def _mapping(job: Job) -> Mapping:
    return job.plans.get("mapping") or Mapping()


def inspect(job: Job, mapping: Mapping) -> dict:
    """What the column page shows: the headers, the columns the reader recognized by itself, the first
    rows, the values of the chosen value column and (for a spreadsheet) its sheets."""
    import polars as pl

    from probestats.io.read import read_log

    sheets = _sheets(job.log.path) if job.log.spreadsheet else []
    log = read_log(job.log.path, sheet=mapping.sheet or None, skip_rows=mapping.skip_rows)
    detected = dict(log.columns)
    to_header = {canon: header for canon, header in log.columns.items()}
    lazy_of = {header: canon for canon, header in log.columns.items()}
    head = log.lazy.head(PREVIEW_ROWS).collect()
    headers = list(log.headers)
    rows = []
    for record in head.iter_rows(named=True):
        rows.append([_cell(record.get(lazy_of.get(h, h))) for h in headers])

    def distinct(header, limit=50):
        col = lazy_of.get(header, header)
        return [str(v) for v in log.lazy.select(pl.col(col).cast(pl.Utf8)).unique(maintain_order=True)
                .head(limit).collect().to_series().to_list() if v is not None]

    value_header = mapping.variant or detected.get("variant")
    values = distinct(value_header) if value_header in headers else []
    found = {"detected": detected, "headers": headers, "rows": rows, "values": values, "sheets": sheets,
             "to_header": to_header}
    found.update(_offers(headers, detected, distinct))
    return found


#: headers (as normalized) that name an order probe's columns: the order, the slot chosen, the judge
ORDER_HEADERS = ("order", "position", "positions", "answer_order", "presentation_order", "slot_order", "swap",
                 "swapped", "orientation")
CHOICE_HEADERS = ("choice", "winner", "verdict", "preferred", "preference", "chosen", "judgment", "judgement")
JUDGE_HEADERS = ("judge", "judge_model", "evaluator", "grader", "rater")
_AFFIRMATIVE = ("affirmative", "aff", "agree", "forward")
_REVERSE = ("reverse", "rev", "disagree", "mirror", "mirrored")


def _offers(headers: list, detected: dict, distinct) -> dict:
    """The analyses the columns found allow beside the comparison of values: a dual framing (a framing column,
    or a column of answers per framing) and the order probe of a judge (a column with two answer orders)."""
    from probestats.io.read import normalize_header

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
                            "judge_by": next((h for h in headers if norm[h] in JUDGE_HEADERS), "")}}


def _answer_pair(headers: list):
    """Two columns that hold a framing's answers each: the same header but for a word naming the framing
    (``aff_score`` and ``rev_score``, ``agree reply`` and ``disagree reply``), or None.

    >>> _answer_pair(["item", "aff_score", "rev_score"]), _answer_pair(["item", "score"])
    (('aff_score', 'rev_score'), None)
    """
    import re

    def words(h):
        return tuple(w for w in re.split(r"[\s_\-.]+", str(h).lower()) if w)

    by_words = {words(h): h for h in headers}
    for h in headers:
        ws = words(h)
        for i, w in enumerate(ws):
            if w in _AFFIRMATIVE:
                for other in _REVERSE:
                    partner = by_words.get(ws[:i] + (other,) + ws[i + 1:])
                    if partner is not None:
                        return h, partner
    return None


def topics(job: Job, mapping: Mapping) -> list:
    """The topics the column page lists for a framing log's targets (as the log holds them), in its order;
    the form names each by its place, so no text from the file has to come back through the browser."""
    if mapping.analysis != "framing":
        return []
    try:
        return inspect(job, mapping)["topics"]
    except ProbestatsError:
        return []


def _cell(value) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= 80 else text[:79] + "…"


def _sheets(path: Path) -> list[str]:
    import fastexcel

    from probestats.io.read import check_spreadsheet

    check_spreadsheet(path, None)
    try:
        return list(fastexcel.read_excel(path).sheet_names)
    except Exception:
        raise OptionError("the spreadsheet cannot be read; is it really an .xlsx or .ods file?") from None


def _detected(job: Job, mapping: Mapping) -> dict:
    from probestats.io.read import read_log

    return dict(read_log(job.log.path, sheet=mapping.sheet or None, skip_rows=mapping.skip_rows).columns)


def map_page(settings, job: Job) -> str:
    mapping = _mapping(job)
    try:
        found = inspect(job, mapping)
        problem = None
    except ProbestatsError as exc:  # a wrong sheet or title rows: say so on the page, keep the form
        found = {"detected": {}, "headers": [], "rows": [], "values": [], "to_header": {},
                 "sheets": _sheets(job.log.path) if job.log.spreadsheet else [], "offers": {},
                 "answer_pair": ("", ""), "topics": [], "judge_found": {}}
        problem = clean(str(exc), job)
    chosen = {key: getattr(mapping, key) or found["detected"].get(key, "") for key in MAPPED}
    posted = job.plans.get("posted", False)
    if posted:
        analysis = mapping.analysis
    else:  # first visit: the analysis the columns suggest (a framing column, an order column)
        analysis = "framing" if found["offers"].get("framing") else "judge" if found["offers"].get("judge") else ""
    judge = {key: getattr(mapping, key) if posted else found["judge_found"].get(key, "")
             for key in ("order", "judge_reply", "judge_choice", "judge_by")}
    framing_pair = (mapping.framing_aff, mapping.framing_rev) if posted else found["answer_pair"]
    typed = {topic: (aff, rev) for topic, aff, rev in mapping.targets}
    reference = mapping.reference if mapping.reference in found["values"] else \
        (found["values"][0] if found["values"] else "")
    command = (report_command(job, mapping, found["detected"], facts=job.plans.get("facts", {}))
               if (mapping.metric or mapping.analysis) and posted else None)
    return render("serve_map.html.j2", settings, step="map", job=job, mapping=mapping, found=found,
                  chosen=chosen, mapped=MAPPED, command=command, problem=problem, analyses=ANALYSES,
                  analysis=analysis, answers=ANSWERS, judge=judge, framing_pair=framing_pair, typed=typed,
                  reference=reference, analysis_command=analysis_command(job, mapping, found["detected"])
                  if posted else None)


# ---------------------------------------------------------------- validation


def validate_page(settings, job: Job) -> str:
    from probestats.checks.schema import validate

    mapping = _mapping(job)
    if mapping.analysis:
        return _check_analysis(settings, job, mapping)
    if not mapping.metric:
        raise OptionError("choose the metric column on the column page first")
    detected = _detected(job, mapping)
    probe = mapping.probe(detected)
    a, b = mapping.a or None, mapping.b or None
    checked = validate(probe.apply(job.log.path, metric=mapping.metric, a=a, b=b), metric=mapping.metric, a=a, b=b,
                       fold_case=probe.fold_case)
    problems = [{"severity": p.severity, "code": p.code, "message": clean(p.message, job),
                 "rows": _rows(p.rows), "column": p.column} for p in checked.problems]
    command = report_command(job, mapping, detected, facts=job.plans.get("facts", {}))
    return render("serve_validate.html.j2", settings, step="validate", job=job, checked=checked,
                  problems=problems, command=command, n_rows=checked.n_rows,
                  columns=dict(checked.log.columns))


def _check_analysis(settings, job: Job, mapping: Mapping) -> str:
    """The check of a framing log or an order probe: its analysis run, every problem it states listed (errors
    block the report)."""
    from probestats.errors import Problem

    detected = _detected(job, mapping)
    try:
        result = analysis(job, mapping, detected)
        problems = list(getattr(result, "problems", ()))
        n_rows = None
    except ProbestatsError as exc:
        problems = list(getattr(exc, "problems", ())) or [Problem("error", "refused", str(exc))]
        n_rows = None
    shown = [{"severity": p.severity, "code": p.code, "message": clean(p.message, job),
              "rows": _rows(getattr(p, "rows", ()) or ()), "column": getattr(p, "column", None)} for p in problems]
    return render("serve_validate.html.j2", settings, step="validate", job=job, checked=None, problems=shown,
                  command=analysis_command(job, mapping, detected), n_rows=n_rows, analysis=ANALYSES[mapping.analysis])


def _judge_ready(mapping: Mapping) -> None:
    """An order probe needs its order column and a way to read each verdict (the page's fields named)."""
    if not mapping.order:
        raise OptionError("choose the order column (the two orders the answers were shown in) on the column page")
    if not mapping.judge_choice and not mapping.judge_reply:
        raise OptionError("choose the column of the slot chosen, or the judge's reply, on the column page")
    if not mapping.judge_choice and not (mapping.verdict_first and mapping.verdict_second):
        raise OptionError("type the text that marks a win of the first slot and of the second (for example "
                          "[[A]] and [[B]]) on the column page, or choose the column of the slot chosen")


def _targets_file(job: Job, mapping: Mapping):
    """The targets typed on the column page, written as the file the page's command names (or None)."""
    if not mapping.targets:
        return None
    path = job.folder / targets_name(job)
    path.write_text(targets_csv(mapping.targets), encoding="utf-8")
    return path


def analysis(job: Job, mapping: Mapping, detected: dict):
    """The framing or order-probe result the page's analysis command prints (cached per mapping)."""
    cache = job.plans.setdefault("analyses", {})
    if mapping in cache:
        return cache[mapping]
    probe = mapping.probe(detected)
    if mapping.analysis == "framing":
        from probestats.present.framing_job import framing

        result = framing(job.log.path, probe=probe, targets=_targets_file(job, mapping),
                         answers=mapping.answers or "auto", framing_columns=mapping.framing_columns())
    else:
        from probestats.present.judge_job import judge

        _judge_ready(mapping)
        options = mapping.judge_options()
        result = judge(job.log.path, order=options["order"], response=options["response"],
                       choice=options["choice"], verdicts=options["verdicts"], by=options["by"], probe=probe)
    cache[mapping] = result
    return result


def _rows(rows) -> str:
    rows = list(rows)
    shown = ", ".join(str(r) for r in rows[:20])
    return shown + (f" and {len(rows) - 20} more" if len(rows) > 20 else "")


# ---------------------------------------------------------------- the report


def report_job(job: Job, fmt: str):
    """The report in ``fmt`` through ``probestats.report``, as the page's command writes it (cached per
    mapping and facts)."""
    from probestats.present.report_job import report

    mapping = _mapping(job)
    facts = job.plans.get("facts", {})
    key = (fmt, mapping, tuple(sorted(facts.items())))
    cache = job.plans.setdefault("reports", {})
    if key in cache:
        return cache[key]
    detected = _detected(job, mapping)
    out = job.folder / "out"
    out.mkdir(mode=0o700, exist_ok=True)
    if mapping.analysis == "framing":  # a report of the framing log alone, as `report --framing LOG` writes it
        result = report(framing_log=job.log.path, targets=_targets_file(job, mapping),
                        answers=mapping.answers or "auto", framing_columns=mapping.framing_columns(),
                        output=out / f"report.{fmt}", probe=mapping.probe(detected), source=job.log.name)
    elif mapping.analysis == "judge":  # a report of the order probe alone, as `report LOG --order COL` writes it
        _judge_ready(mapping)
        result = report(job.log.path, judge=mapping.judge_options(), output=out / f"report.{fmt}",
                        probe=mapping.probe(detected), source=job.log.name)
    else:
        if not mapping.metric:
            raise OptionError("choose the metric column on the column page first")
        result = report(job.log.path, metric=mapping.metric, a=mapping.a or None, b=mapping.b or None,
                        reference=mapping.reference_used(), noise=job.noise.path if job.noise else None,
                        output=out / f"report.{fmt}", probe=mapping.probe(detected), source=job.log.name, **facts)
    cache[key] = result
    return result


def report_text(job: Job, fmt: str) -> str:
    return report_job(job, fmt).text


def results_page(settings, job: Job) -> str:
    mapping = _mapping(job)
    html = report_job(job, "html")
    detected = _detected(job, mapping)
    facts = job.plans.get("facts", {})
    shown = {key: ("\n".join(v) if isinstance(v, tuple) else v) for key, v in facts.items()}
    return render("serve_results.html.j2", settings, step="results", job=job, facts=FACTS, shown=shown,
                  command=report_command(job, mapping, detected, facts=facts), has_design=bool(facts),
                  placeholders=len(html.design.missing()) if html.design is not None else 0,
                  analysis=mapping.analysis, analysis_command=analysis_command(job, mapping, detected),
                  targets=targets_name(job) if mapping.targets else None)


def download(job: Job, name: str) -> bytes:
    mapping = _mapping(job)
    facts = job.plans.get("facts", {})
    if name.startswith("report."):
        return report_job(job, name.split(".", 1)[1]).data
    if name == "probe.toml":
        return design_toml(facts).encode("utf-8")
    if name == "command.txt":
        return (report_command(job, mapping, _detected(job, mapping), facts=facts) + "\n").encode("utf-8")
    if name in ("analysis.json", "analysis_command.txt", "targets.csv"):
        return _analysis_download(job, mapping, name)
    done = _finished_plan(job)
    if name == "plan.json":
        return done["json"].encode("utf-8")
    return (done["command"] + "\n").encode("utf-8")


def _analysis_download(job: Job, mapping: Mapping, name: str) -> bytes:
    """The framing or order-probe downloads: the analysis as its command prints it, that command, the targets."""
    if not mapping.analysis:
        raise OptionError("this download belongs to a framing log or an order probe; choose one on the column page")
    if name == "targets.csv":
        if not mapping.targets:
            raise OptionError("no targets were typed on the column page")
        return targets_csv(mapping.targets).encode("utf-8")
    detected = _detected(job, mapping)
    if name == "analysis_command.txt":
        return (analysis_command(job, mapping, detected) + "\n").encode("utf-8")
    from probestats.present.framing_job import result_json

    return result_json(analysis(job, mapping, detected)).encode("utf-8")


# ---------------------------------------------------------------- the plan


def _number(form, name: str, kind, default, low=None, high=None):
    raw = str(form.get(name, "") or "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise OptionError(f"{name}: '{raw[:40]}' is not a number") from None
    if (low is not None and value <= low) or (high is not None and value >= high):
        raise OptionError(f"{name}: {raw[:40]} is out of range")
    return value


def _designs(form, name: str, default: str) -> str:
    raw = "".join(str(form.get(name, "") or default).split())
    parts = raw.split(",")
    if not raw or len(parts) > 12 or not all(p.isdigit() and 0 < int(p) <= 1000 for p in parts):
        raise OptionError(f"{name}: give whole numbers separated by commas, e.g. {default}")
    return raw


def start_plan(job: Job, form) -> str:
    """Start simulating the plan the form asks for (in a thread); the plan's id for its progress page."""
    from probestats.present.plan_job import plan

    if job.noise is None:
        raise OptionError("the planner needs a same-versus-same file: upload it with the log")
    mapping = _mapping(job)
    if not mapping.metric:
        raise OptionError("choose the metric column on the column page first")
    items = _designs(form, "items", "6,8,10,12")
    runs = _designs(form, "runs", "2,5,10")
    gap = _number(form, "gap", float, None)
    sims = _number(form, "sims", int, 2000, low=0, high=100_001)
    target = _number(form, "power", float, 0.8, low=0, high=1)
    alpha = _number(form, "alpha", float, 0.05, low=0, high=1)
    detected = _detected(job, mapping)
    command = plan_command(job, mapping, detected, items=items, runs=runs, gap=gap, sims=sims, target=target,
                           alpha=alpha)
    state = {"done": 0.0, "total": 0, "command": command, "form": {"items": items, "runs": runs, "gap": gap,
                                                                    "sims": sims, "power": target, "alpha": alpha}}
    plan_id = secrets.token_urlsafe(9)
    job.plans.setdefault("plans", {})[plan_id] = state
    job.plans["last_plan"] = plan_id
    from probestats.errors import cli_spelling

    def progress(done, total):
        state["done"], state["total"] = float(done), int(total)

    def work():
        try:
            with cli_spelling():
                result = plan(job.noise.path, metric=mapping.metric, items=[items], runs=[runs], gap=gap, sims=sims,
                              target=target, alpha=alpha, probe=mapping.probe(detected, sheet=job.noise.spreadsheet),
                              progress=progress)
            from probestats.present.sanitize import json_text
            from probestats.result import document, dumps

            state["json"] = json_text(dumps(document(result))) + "\n"  # as `plan --json` prints it
            state["result"] = result
        except ProbestatsError as exc:
            state["error"] = clean(str(exc), job)
        except Exception as exc:  # a bug: one line on the page
            state["error"] = f"unexpected {type(exc).__name__}; please report it"

    threading.Thread(target=work, daemon=True).start()
    return plan_id


def _finished_plan(job: Job) -> dict:
    state = job.plans.get("plans", {}).get(job.plans.get("last_plan", ""))
    if state is None or "json" not in state:
        raise OptionError("size a probe on the plan page first")
    return state


def plan_page(settings, job: Job, plan_id: str) -> str:
    state = job.plans.get("plans", {}).get(plan_id) if plan_id else None
    mapping = _mapping(job)
    return render("serve_plan.html.j2", settings, step="plan", job=job, state=state, plan_id=plan_id,
                  mapping=mapping, result=state.get("result") if state else None,
                  form=(state or {}).get("form", {"items": "6,8,10,12", "runs": "2,5,10", "gap": None,
                                                   "sims": 2000, "power": 0.8, "alpha": 0.05}))
