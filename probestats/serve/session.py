"""What the local page holds between its steps, and how a person's choices become library calls.

Nothing here knows the web framework: a :class:`Upload` is a file the page received (stored under a
name of the page's own in a private folder), a :class:`Mapping` is what the person chose on the
column page, and from them come the :class:`~probestats.shape.probe.Probe` the library is called
with and the command line that does the same (:func:`report_command`, :func:`plan_command`).
"""

from __future__ import annotations

import re
import secrets
import shlex
from dataclasses import dataclass, field, fields
from pathlib import Path

from probestats.errors import OptionError

__all__ = ["Upload", "Mapping", "SUFFIXES", "MAPPED", "ANALYSES", "safe_name", "store", "report_command",
           "analysis_command", "plan_command", "design_toml", "targets_csv", "targets_name"]

#: file suffixes the page accepts, as the reader names their formats
SUFFIXES = (".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".xlsx", ".ods", ".parquet")
SPREADSHEETS = (".xlsx", ".ods")

#: the columns the page asks about, with the one-line explanation shown beside each
MAPPED = {
    "item": "one matched input: the same request sent once per compared value (a question, a case)",
    "variant": "the value compared: which version of the attribute a run used (e.g. formal or casual)",
    "seed": "the draw number: runs with the same seed under both values are paired",
    "model": "the model that answered (it must be the same for both values)",
    "temperature": "the sampling temperature (it must be the same for both values)",
}

#: what the page can analyze: the key the column page's choice posts -> its label there
ANALYSES = {
    "": "Compare the values of the value column (the probe's report)",
    "framing": "Dual framing: which way a model leans between two targets, each claim asked both ways",
    "judge": "Order probe of a judge: does the answer a judge prefers depend on the order it is shown in",
}

#: the answers of a framing log, as the column page offers them (``--answers``)
ANSWERS = {"auto": "Find out from the answers (the report says which)",
           "agreement": "An agreement scale (strongly disagree to strongly agree)",
           "yes-no": "Yes or no"}

_SAFE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,80}")


def safe_name(filename: str | None, suffix: str, fallback: str) -> str:
    """The name the page shows for an upload: the file's own name when it is plain (letters, digits,
    dot, dash, underscore; no folder), else ``fallback`` with the suffix.

    >>> safe_name("style_hand.xlsx", ".xlsx", "log"), safe_name("../../etc/passwd.csv", ".csv", "log")
    ('style_hand.xlsx', 'log.csv')
    >>> safe_name("<script>.csv", ".csv", "noise")
    'noise.csv'
    """
    name = filename or ""
    if _SAFE.fullmatch(name) and name.lower().endswith(suffix) and ".." not in name:
        return name
    return fallback + suffix


def suffix_of(filename: str | None) -> str:
    """The accepted suffix of an uploaded file's name (lower case), or an error naming the formats."""
    suffix = Path(filename or "").suffix.lower()
    if suffix not in SUFFIXES:
        raise OptionError("the page reads CSV, TSV, JSON, JSON lines, xlsx, ods and Parquet files; "
                          f"choose a file ending in {', '.join(SUFFIXES)}")
    return suffix


@dataclass(frozen=True)
class Upload:
    """A file the page received.

    Attributes
    ----------
    path : Path
        Where the page stored it (a private folder of its own; never a path from the person).
    name : str
        The name shown, and used in the command line (see :func:`safe_name`).
    """

    path: Path
    name: str

    @property
    def spreadsheet(self) -> bool:
        return self.path.suffix.lower() in SPREADSHEETS


def store(folder: Path, data: bytes, filename: str | None, fallback: str) -> Upload:
    """Keep an uploaded file's bytes in ``folder`` (created private) under the name the page shows."""
    suffix = suffix_of(filename)
    name = safe_name(filename, suffix, fallback)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(data)
    return Upload(path=path, name=name)


@dataclass(frozen=True)
class Mapping:
    """What a person chose on the column page (every field optional, text as typed).

    Attributes
    ----------
    metric : str
        The metric column's header.
    item, variant, seed, model, temperature : str
        Headers chosen for those columns ("" for the header the reader recognizes by itself).
    a, b : str
        The two values compared ("" for the first two in the log).
    sheet : str
        The spreadsheet's sheet ("" for the first).
    skip_rows : int
        Title rows above the header.
    where : str
        An optional filter (an SQL condition).
    reference : str
        More than two values and no ``a`` and ``b``: every value against this one.
    analysis : str
        What to analyze (a key of :data:`ANALYSES`; "" for the comparison of values).
    answers : str
        A framing log's answers ("" or a key of :data:`ANSWERS`).
    targets : tuple of (str, str, str)
        A framing log's targets typed on the page: (topic, affirmative target, reverse target).
    framing_aff, framing_rev : str
        A framing log with one row per item: the columns of the affirmative and of the reverse answers.
    order : str
        An order probe: the column whose two values are the two answer orders.
    judge_reply, judge_choice : str
        An order probe: the judge's reply (read with the verdict rules), or a column holding the slot chosen.
    verdict_first, verdict_second, verdict_tie : str
        An order probe: the text that marks each verdict in a reply.
    judge_by : str
        An order probe: the column naming the judge (one analysis per judge).
    """

    metric: str = ""
    item: str = ""
    variant: str = ""
    seed: str = ""
    model: str = ""
    temperature: str = ""
    a: str = ""
    b: str = ""
    sheet: str = ""
    skip_rows: int = 0
    where: str = ""
    reference: str = ""
    analysis: str = ""
    answers: str = ""
    targets: tuple = ()
    framing_aff: str = ""
    framing_rev: str = ""
    order: str = ""
    judge_reply: str = ""
    judge_choice: str = ""
    verdict_first: str = ""
    verdict_second: str = ""
    verdict_tie: str = ""
    judge_by: str = ""

    @classmethod
    def from_form(cls, form, topics=()) -> Mapping:
        """A mapping from form fields (a dict-like of str); unknown fields are ignored.

        The targets come as ``target-aff-N`` and ``target-rev-N`` for the N-th of ``topics`` (the topics the
        column page listed, as the log holds them; a topic left without both targets is left out).

        >>> m = Mapping.from_form({"analysis": "framing", "target-aff-0": "remote", "target-rev-0": "office",
        ...                        "target-aff-1": "x"}, topics=["work", "pay"])
        >>> m.analysis, m.targets
        ('framing', (('work', 'remote', 'office'),))
        """
        values = {}
        for f in fields(cls):
            raw = str(form.get(f.name, "") or "").strip()
            if f.name == "targets":
                values[f.name] = _targets_from(form, topics)
            elif f.name == "analysis":
                values[f.name] = raw if raw in ANALYSES else ""
            elif f.name == "answers":
                values[f.name] = raw if raw in ANSWERS and raw != "auto" else ""
            elif f.name == "skip_rows":
                if raw and not raw.isdigit():
                    raise OptionError("title rows: give a whole number (0 when the header is the first row)")
                values[f.name] = min(int(raw or 0), 1_000_000)
            else:
                values[f.name] = raw[:500]
        return cls(**values)

    def query(self) -> dict:
        """The mapping as form fields (for links from one step to the next)."""
        return {f.name: str(getattr(self, f.name)) for f in fields(self) if getattr(self, f.name)}

    def columns(self, detected: dict) -> tuple:
        """``(canonical, header)`` pairs for the choices that differ from what the reader found itself."""
        return tuple((key, getattr(self, key)) for key in MAPPED
                     if getattr(self, key) and detected.get(key) != getattr(self, key))

    def probe(self, detected: dict, *, sheet: bool = True):
        """The Probe of these choices; ``sheet=False`` leaves the sheet out (for a noise file that is not a
        spreadsheet, which the sheet does not apply to)."""
        from probestats.shape.probe import Probe

        return Probe(columns=self.columns(detected), where=self.where or None,
                     sheet=(self.sheet or None) if sheet else None, skip_rows=self.skip_rows)

    def reference_used(self) -> str | None:
        """The reference of the many-values analysis: the one chosen, unless two values are."""
        return self.reference or None if not (self.a or self.b) else None

    def framing_columns(self) -> tuple:
        """``--framing-columns`` of a framing log with one row per item (empty for a framing column)."""
        if self.framing_aff and self.framing_rev:
            return (f"affirmative={self.framing_aff},reverse={self.framing_rev}",)
        return ()

    def verdicts(self) -> tuple:
        """The verdict rules of an order probe (``--verdict LABEL=PATTERN``) with a reply column."""
        if not self.judge_reply or self.judge_choice:
            return ()
        return tuple(f"{label}={pattern}" for label, pattern in
                     (("first", self.verdict_first), ("second", self.verdict_second), ("tie", self.verdict_tie))
                     if pattern)

    def judge_options(self) -> dict:
        """The order probe as the report's ``judge`` parameter."""
        return {"order": self.order, "response": None if self.judge_choice else self.judge_reply or None,
                "choice": self.judge_choice or None, "verdicts": self.verdicts(),
                "by": (self.judge_by,) if self.judge_by else (), "repetition": None}

    def options(self, detected: dict) -> list[str]:
        """The command-line options of this mapping (after the metric)."""
        out = []
        for flag, value in (("--a", self.a), ("--b", self.b), ("--reference", self.reference_used())):
            if value:
                out += [flag, value]
        return out + self.shaping(detected)

    def shaping(self, detected: dict) -> list[str]:
        """The command-line options that say how the log is read (sheet, title rows, columns, filter)."""
        out = []
        if self.sheet:
            out += ["--read", f"sheet={self.sheet}"]
        if self.skip_rows:
            out += ["--read", f"skip-rows={self.skip_rows}"]
        for key, header in self.columns(detected):
            out += ["--column", f"{key}={header}"]
        if self.where:
            out += ["--where", self.where]
        return out


def _targets_from(form, topics) -> tuple:
    out = []
    for n, topic in enumerate(topics):
        aff, rev = (" ".join(str(form.get(f"target-{side}-{n}", "") or "").split())[:500] for side in ("aff", "rev"))
        if aff and rev:
            out.append((topic, aff, rev))
    return tuple(out)


def targets_name(job) -> str:
    """The name of the targets file the page writes for a framing log (never one of the uploads' names)."""
    taken = {job.log.name.lower()} | ({job.noise.name.lower()} if job.noise is not None else set())
    return next(n for n in ("targets.csv", "framing_targets.csv", "page_targets.csv") if n not in taken)


def targets_csv(targets) -> str:
    """The targets file (topic, affirmative, reverse) of the targets typed on the page.

    >>> print(targets_csv([("work", "remote", "office, shared")]), end="")
    topic,affirmative,reverse
    work,remote,"office, shared"
    """
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["topic", "affirmative", "reverse"])
    writer.writerows(targets)
    return out.getvalue()


@dataclass(frozen=True)
class Job:
    """One probe on the page: the log, the optional same-versus-same log, and an id for its links.

    Attributes
    ----------
    id : str
        Random; names the job in the page's addresses.
    log : Upload
    noise : Upload or None
    folder : Path
        The job's private folder (uploads, reports written for download).
    plans : dict
        Plans being simulated or done, by their own id (see the server).
    """

    log: Upload
    noise: Upload | None
    folder: Path
    id: str = field(default_factory=lambda: secrets.token_urlsafe(9))
    plans: dict = field(default_factory=dict, compare=False)


#: the design facts the results page asks for: field -> (label, one-line explanation, a list?)
FACTS = {
    "attribute": ("Attribute probed", "what differs between the compared values, e.g. writing style", False),
    "values_why": ("Why these values matter", "who is affected if the system treats them differently", False),
    "metric_definition": ("Metric's definition", "how the metric was counted, fixed before the first run", False),
    "metric_cannot_see": ("What the metric cannot see", "one per line", True),
    "held_fixed": ("Held fixed beyond the log", "one per line: what you kept the same that the log does not show",
                   True),
    "not_fixed": ("Could not be held fixed", "one per line, e.g. server-side model updates", True),
    "not_tested": ("Attributes not tested", "one per line: what this probe says nothing about", True),
    "run_dates": ("Dates of the runs", "leave empty to read them from the log's time column", False),
    "mitigation": ("Mitigation applied", "before the runs, or 'none'", False),
}


def facts_from(form) -> dict:
    """The design facts typed on the results page (lists one per line; empty ones left out)."""
    out = {}
    for key, (_, _, is_list) in FACTS.items():
        raw = str(form.get(key, "") or "")[:4000]
        if is_list:
            items = tuple(line.strip() for line in raw.splitlines() if line.strip())
            if items:
                out[key] = items
        elif raw.strip():
            out[key] = " ".join(raw.split())
    return out


def _toml_string(text: str) -> str:
    """A TOML basic string holding ``text`` exactly (every control escaped)."""
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def design_toml(facts: dict) -> str:
    """The design file (TOML) of the typed facts, read back by ``--design``.

    >>> print(design_toml({"attribute": 'style "formal"', "not_tested": ("names", "dialect")}), end="")
    attribute = "style \\"formal\\""
    not_tested = ["names", "dialect"]
    """
    lines = []
    for key in FACTS:
        if key not in facts:
            continue
        value = facts[key]
        if isinstance(value, tuple):
            lines.append(f"{key} = [{', '.join(_toml_string(v) for v in value)}]")
        else:
            lines.append(f"{key} = {_toml_string(value)}")
    return "".join(line + "\n" for line in lines)


def _framing_options(job: Job, mapping: Mapping, *, report: bool = False) -> list[str]:
    """The framing's options: the ``framing`` command's flags, or the report's ``--set framing.KEY=VALUE``."""
    def option(key: str, flag: str, value: str) -> list[str]:
        return ["--set", f"framing.{key}={value}"] if report else [flag, value]

    out = []
    if mapping.targets:
        out += option("targets", "--targets", targets_name(job))
    if mapping.answers:
        out += option("answers", "--answers", mapping.answers)
    for spec in mapping.framing_columns():
        out += option("columns", "--framing-columns", spec)
    return out


def _judge_options(mapping: Mapping, *, report: bool = False) -> list[str]:
    """The order probe's options: the ``judge`` command's flags, or the report's ``--set judge.KEY=VALUE``
    (the judges are the ``--by`` groups in both)."""
    def option(key: str, flag: str, value: str) -> list[str]:
        return ["--set", f"judge.{key}={value}"] if report else [flag, value]

    out = option("order", "--order", mapping.order)
    if mapping.judge_choice:
        out += option("choice", "--choice", mapping.judge_choice)
    elif mapping.judge_reply:
        out += option("response", "--response", mapping.judge_reply)
    for rule in mapping.verdicts():
        out += option("verdict", "--verdict", rule)
    if mapping.judge_by:
        out += ["--by", mapping.judge_by]
    return out


def analysis_command(job: Job, mapping: Mapping, detected: dict) -> str | None:
    """For a framing log or an order probe: the command line that prints the analysis the report is made
    of, as JSON (``probestats framing ... --json``, ``probestats judge ... --json``); None otherwise."""
    if mapping.analysis == "framing":
        args = ["probestats", "framing", job.log.name, *_framing_options(job, mapping)]
    elif mapping.analysis == "judge":
        args = ["probestats", "judge", job.log.name, *_judge_options(mapping)]
    else:
        return None
    return shlex.join(args + mapping.shaping(detected) + ["--json"])


def report_command(job: Job, mapping: Mapping, detected: dict, *, facts: dict, output: str = "report.md") -> str:
    """The command line that writes the report the page shows (run in the folder holding the files)."""
    if mapping.analysis == "framing":
        return shlex.join(["probestats", "report", "--framing", job.log.name,
                           *_framing_options(job, mapping, report=True),
                           *mapping.shaping(detected), "-o", output])
    if mapping.analysis == "judge":
        return shlex.join(["probestats", "report", job.log.name, *_judge_options(mapping, report=True),
                           *mapping.shaping(detected), "-o", output])
    args = ["probestats", "report", job.log.name, "--metric", mapping.metric]
    if job.noise is not None:
        args += ["--noise", job.noise.name]
    args += mapping.options(detected)
    if facts:
        args += ["--design", "probe.toml"]
    args += ["-o", output]
    return shlex.join(args)


def plan_command(job: Job, mapping: Mapping, detected: dict, *, items: str, runs: str, gap, sims: int,
                 target: float, alpha: float) -> str:
    """The command line that prints the plan the page shows, as JSON."""
    args = ["probestats", "plan", "--noise", job.noise.name, "--metric", mapping.metric]
    if mapping.sheet and job.noise.spreadsheet:  # the sheet applies to a spreadsheet only
        args += ["--read", f"sheet={mapping.sheet}"]
    if mapping.skip_rows:
        args += ["--read", f"skip-rows={mapping.skip_rows}"]
    for key, header in mapping.columns(detected):
        args += ["--column", f"{key}={header}"]
    args += ["--items", items, "--runs", runs]
    if gap is not None:
        args += ["--gap", repr(gap)]
    args += ["--sims", str(sims), "--power", repr(target), "--alpha", repr(alpha), "--json"]
    return shlex.join(args)
