"""What the local page holds between its steps, and how a person's choices become library calls.

Nothing here knows the web framework. An upload is kept as :class:`Files` (the log, the optional
same-versus-same file, and what was read from them, read once); each analysis of it is a
:class:`State`: the :class:`Mapping` of what the person chose and the design facts they typed,
frozen and named by an id of its own in the page's address. A change makes a new state, so two
tabs, the back button and a reload each keep the choices their own address names.

Every option the page offers beside the columns is one :class:`Choice` in :data:`CHOICES` (its
control, its help, and the keyword and flag it becomes), and from a state come the library's
calls and the command lines that do the same (:func:`report_command`, :func:`validate_command`,
:func:`plan_command`).
"""

from __future__ import annotations

import re
import secrets
import shlex
import threading
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from probestats.errors import OptionError
from probestats.io.formulas import neutral_cell
from probestats.parameters import PARAMETERS
from probestats.present.report.plain import WORDS
from probestats.shape.probe import Probe

__all__ = ["Upload", "Files", "State", "Job", "Mapping", "Choice", "CHOICES", "SUFFIXES", "MAPPED", "ANALYSES",
           "safe_name", "store", "report_command", "validate_command", "analysis_command", "plan_command",
           "design_toml", "facts_from", "targets_csv", "targets_name"]

#: file suffixes the page accepts, as the reader names their formats
SUFFIXES = (".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".xlsx", ".ods", ".parquet")
SPREADSHEETS = (".xlsx", ".ods")

#: the columns the page asks about: canonical name -> (label, the one-line explanation shown beside it)
MAPPED = {
    "item": ("Item", "one matched input: the same request sent once per compared value (a question, a case)"),
    "variant": ("Value compared", "which version of the attribute a run used (e.g. formal or casual)"),
    "seed": ("Seed", "the draw number: runs with the same seed under both values are paired"),
    "model": ("Model", "the model that answered (it must be the same for both values)"),
    "temperature": ("Temperature", "the sampling temperature (it must be the same for both values)"),
    "system": ("System prompt", "the system prompt (it must be the same for both values)"),
}
#: the held-fixed settings a person can declare part of the attribute
SETTINGS = ("model", "temperature", "system")

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


# ---------------------------------------------------------------- the options beside the columns


def flag(name: str) -> str:
    """The command line's flag of a registered parameter, as the commands the page shows spell it.

    >>> flag("fold_case"), flag("output"), flag("random_settings")
    ('--fold-case', '-o', '--random-setting')
    """
    return PARAMETERS[name].short


@dataclass(frozen=True)
class Choice:
    """One option the page offers beside the columns: its control and help, and what it becomes.

    Offering a new option is one of these in :data:`CHOICES`, with its words (the control's label) in
    :data:`probestats.present.report.plain.WORDS`.

    Attributes
    ----------
    name : str
        The library's keyword (of ``probestats.report``, and of ``validate`` and ``plan`` where
        ``commands`` names them); a field of the Probe when ``probe`` is true.
    help : str
        The one-line explanation shown beside the control.
    control : {"box", "column", "value", "setting"}
        A tick box; a list of the log's columns; a list of the compared column's values; a tick box
        per held-fixed setting the log has (several may be ticked).
    commands : tuple of str
        The commands whose line takes it (``report``, ``validate``, ``plan``); the report always does.
    probe : bool
        A field of the :class:`~probestats.shape.probe.Probe` (how the log is shaped, what its columns mean),
        not a keyword.
    """

    name: str
    help: str
    control: str
    commands: tuple = ("report",)
    probe: bool = False

    @property
    def flag(self) -> str:
        """The flag of the command line, as the parameter registry declares it (the same in every command
        that takes it)."""
        return flag(self.name)

    @property
    def label(self) -> str:
        """The control's label: the words a report for people and every message on the page name it by
        (:data:`probestats.present.report.plain.WORDS`)."""
        return WORDS[self.name]

    @property
    def many(self) -> bool:
        return self.control == "setting" or self.name in ("by", "random_settings")


#: every option the column page offers beside the columns, in the order it shows them
CHOICES = (
    Choice("fold_case", "treat values that differ only in case or spaces (Formal, formal) as one",
           "box", ("report", "validate"), probe=True),
    Choice("complete", "leave out items that lack a metric value under a compared value (the report names them)",
           "box", ("report", "validate", "plan"), probe=True),
    Choice("by", "one result per value of this column (a judge's criterion, the model), corrected "
           "across them", "column", ("report", "validate")),
    Choice("attribute_settings", "a setting varied on purpose with the values (which model decides): accepted "
           "differing between them", "setting", ("report", "validate"), probe=True),
    Choice("control", "a meaningless change of wording: does the attribute move the metric more "
           "than it does?", "value"),
    Choice("cluster", "items nested in clusters (several items from one source): whole clusters are "
           "flipped together", "column", probe=True),
    Choice("random_settings", "a setting drawn at random for each call: checked for balance "
           "across the values", "column", probe=True),
    Choice("baseline", "the value the others are read against (the unchanged request)",
           "value"),
)
CHOICE = {c.name: c for c in CHOICES}


# ---------------------------------------------------------------- what the person chose


@dataclass(frozen=True)
class Mapping:
    """What a person chose on the column page (every field optional; headers and values exactly as the
    file holds them).

    Attributes
    ----------
    metric : str
        The metric column's header.
    item, variant, seed, model, temperature, system : str
        Headers chosen for those columns ("" for the header the reader recognizes by itself).
    unset : tuple of str
        Columns set to none: a header the reader would take for one (a column named model that is not
        the model) is not read as it.
    a, b : str
        The two values compared ("" for the first two in the log).
    reference : str
        More than two values and no ``a`` and ``b``: every value against this one ("" for the report's
        own default, which the check names).
    sheet : str
        The spreadsheet's sheet ("" for the first).
    skip_rows : int
        Title rows above the header.
    where : str
        An optional filter (an SQL condition).
    options : tuple of (str, object)
        The options of :data:`CHOICES` set (name, value): True for a tick box, a header or a value, a
        tuple for several.
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
    judge_repetition : str
        An order probe whose items were judged again: the column numbering the repetitions.
    """

    metric: str = ""
    item: str = ""
    variant: str = ""
    seed: str = ""
    model: str = ""
    temperature: str = ""
    system: str = ""
    unset: tuple = ()
    a: str = ""
    b: str = ""
    reference: str = ""
    sheet: str = ""
    skip_rows: int = 0
    where: str = ""
    options: tuple = ()
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
    judge_repetition: str = ""

    def option(self, name: str, default=None):
        """The value of one of :data:`CHOICES` (``default`` when not set)."""
        return dict(self.options).get(name, default)

    def columns(self, detected: dict) -> tuple:
        """``(canonical, header)`` pairs for the choices that differ from what the reader found itself; a
        column set to none is ``(canonical, "")``."""
        out = [(key, getattr(self, key)) for key in MAPPED
               if getattr(self, key) and detected.get(key) != getattr(self, key) and key not in self.unset]
        return tuple(out + [(key, "") for key in self.unset if key in detected])

    def probe(self, detected: dict, *, sheet: bool = True, command: str = "report"):
        """The Probe of these choices for ``command`` (the shaping choices it takes); ``sheet=False`` leaves the
        sheet out (for a noise file that is not a spreadsheet, which the sheet does not apply to)."""
        shaped = {c.name: self.option(c.name, False) for c in CHOICES
                  if c.probe and command in ("report", *c.commands)}
        return Probe(columns=self.columns(detected), where=self.where or None,
                     sheet=(self.sheet or None) if sheet else None, skip_rows=self.skip_rows, **shaped)

    def keywords(self, command: str = "report") -> dict:
        """The library keywords of the options set that ``command`` takes (not the Probe's)."""
        out = {}
        for name, value in self.options:
            choice = CHOICE[name]
            if not choice.probe and command in ("report", *choice.commands):
                out[name] = tuple(value) if choice.many else value
        return out

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
                "by": (self.judge_by,) if self.judge_by else (), "repetition": self.judge_repetition or None}

    def shaping(self, detected: dict, *, sheet: bool = True) -> list[str]:
        """The command-line options that say how the log is read (sheet, title rows, columns, filter)."""
        out = []
        if self.sheet and sheet:
            out += [flag("read_given"), f"sheet={self.sheet}"]
        if self.skip_rows:
            out += [flag("read_given"), f"skip-rows={self.skip_rows}"]
        for key, header in self.columns(detected):
            out += [flag("column"), f"{key}={header}"]
        if self.where:
            out += [flag("where"), self.where]
        return out

    def flags(self, command: str) -> list[str]:
        """The command-line options of the choices of :data:`CHOICES` that ``command`` takes."""
        out = []
        for name, value in self.options:
            choice = CHOICE[name]
            if command != "report" and command not in choice.commands:
                continue
            for one in (value if choice.many else (value,)):
                if one is True:
                    out.append(choice.flag)
                else:
                    out += [choice.flag, str(one)]
        return out


@dataclass(frozen=True)
class State:
    """One analysis on the page: what was chosen and typed, frozen; a change makes a new state.

    Attributes
    ----------
    files : str
        The id of the upload (:class:`Files`) analyzed.
    mapping : Mapping
        The choices of the column page.
    facts : tuple of (str, object)
        The design facts typed on the report page (key, text or tuple of lines), in :data:`FACTS`'s order.
    posted : bool
        The column page was sent at least once (before that it shows what the reader found).
    id : str
        Random; names the state in the page's addresses.
    """

    files: str
    mapping: Mapping = field(default_factory=Mapping)
    facts: tuple = ()
    posted: bool = False
    id: str = field(default_factory=lambda: secrets.token_urlsafe(9))

    def changed(self, **changes) -> State:
        """A new state (a new id) with these changes."""
        return replace(self, id=secrets.token_urlsafe(9), **changes)


@dataclass
class Files:
    """One upload: the log and the optional same-versus-same file, and what was read from them (read once,
    kept for every analysis of the upload).

    Attributes
    ----------
    log : Upload
    noise : Upload or None
    folder : Path
        The upload's private folder (the files, and a folder per analysis for what it writes).
    id : str
        Random; names the upload.
    cache : dict
        What was read and computed from the files, by what it depends on.
    lock : threading.Lock
        Held while the cache is filled.
    """

    log: Upload
    noise: Upload | None
    folder: Path
    id: str = field(default_factory=lambda: secrets.token_urlsafe(9))
    cache: dict = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def remembered(self, key, compute):
        """``compute()``, computed once per ``key`` for this upload (an error is not kept)."""
        with self.lock:
            if key in self.cache:
                return self.cache[key]
        value = compute()
        with self.lock:
            return self.cache.setdefault(key, value)


@dataclass(frozen=True)
class Job:
    """An analysis as a page sees it: its state and the upload it analyzes.

    Attributes
    ----------
    files : Files
    state : State
    """

    files: Files
    state: State

    @property
    def id(self) -> str:
        return self.state.id

    @property
    def log(self) -> Upload:
        return self.files.log

    @property
    def noise(self) -> Upload | None:
        return self.files.noise

    @property
    def mapping(self) -> Mapping:
        return self.state.mapping

    @property
    def facts(self) -> dict:
        return dict(self.state.facts)

    @property
    def folder(self) -> Path:
        """The analysis's own folder (its targets file and reports), inside the upload's."""
        folder = self.files.folder / "analyses" / re.sub(r"[^A-Za-z0-9_-]", "", self.state.id)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        return folder


def targets_name(job) -> str:
    """The name of the targets file the page writes for a framing log (never one of the uploads' names)."""
    taken = {job.log.name.lower()} | ({job.noise.name.lower()} if job.noise is not None else set())
    return next(n for n in ("targets.csv", "framing_targets.csv", "page_targets.csv") if n not in taken)


def targets_csv(targets) -> str:
    """The targets file (topic, affirmative, reverse) of the targets typed on the page; a cell that would start a
    formula in a spreadsheet neutralized (:mod:`probestats.io.formulas`; reading the file undoes it).

    >>> print(targets_csv([("work", "remote", "office, shared"), ('=HYPERLINK("x")', "+1+1", "@SUM(A1)")]), end="")
    topic,affirmative,reverse
    work,remote,"office, shared"
    "'=HYPERLINK(""x"")",'+1+1,'@SUM(A1)
    """
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["topic", "affirmative", "reverse"])
    writer.writerows([neutral_cell(str(cell)) for cell in row] for row in targets)
    return out.getvalue()


# ---------------------------------------------------------------- the design facts


#: the design facts the results page asks for: field -> (label, one-line explanation, kind), kind "line" (one
#: line), "text" (lines kept as typed) or "list" (one entry per line)
FACTS = {
    "attribute": ("Attribute probed", "what differs between the compared values, e.g. writing style", "line"),
    "values_why": ("Why these values matter", "who is affected if the system treats them differently", "text"),
    "metric_definition": ("Metric's definition", "how the metric was counted, fixed before the first run", "text"),
    "metric_cannot_see": ("What the metric cannot see", "one per line", "list"),
    "held_fixed": ("Held fixed beyond the log", "one per line: what you kept the same that the log does not show",
                   "list"),
    "not_fixed": ("Could not be held fixed", "one per line, e.g. server-side model updates", "list"),
    "not_tested": ("Attributes not tested", "one per line: what this probe says nothing about", "list"),
    "run_dates": ("Dates of the runs", "leave empty to read them from the log's time column", "line"),
    "mitigation": ("Mitigation applied", "before the runs, or 'none'", "text"),
}


def facts_from(form) -> tuple:
    """The design facts typed on the results page, as ``(key, value)`` pairs: a list one entry per line, a
    text with its lines as typed (ends of lines made plain), a line on one line; empty ones left out.

    >>> facts_from({"values_why": "students write both ways\\r\\n\\r\\ntutors  help both ", "not_tested": "a\\n\\nb"})
    (('values_why', 'students write both ways\\n\\ntutors  help both'), ('not_tested', ('a', 'b')))
    """
    out = []
    for key, (_, _, kind) in FACTS.items():
        raw = re.sub(r"\r\n?", "\n", str(form.get(key, "") or "")[:4000])
        if kind == "list":
            items = tuple(line.strip() for line in raw.splitlines() if line.strip())
            if items:
                out.append((key, items))
        elif kind == "text":
            text = "\n".join(line.rstrip() for line in raw.strip().splitlines())
            if text:
                out.append((key, text))
        elif raw.strip():
            out.append((key, " ".join(raw.split())))
    return tuple(out)


def _toml_string(text: str) -> str:
    """A TOML string holding ``text`` exactly: a basic string, or for several lines a multi-line one, every
    other control escaped.

    >>> print(_toml_string('say "hi"\\nthen go'))
    \"\"\"
    say \\"hi\\"
    then go\"\"\"
    """
    out = []
    lines = "\n" in text
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ch == "\n" and lines:
            out.append("\n")
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    body = "".join(out)
    return f'"""\n{body}"""' if lines else f'"{body}"'


def design_toml(facts) -> str:
    """The design file (TOML) of the typed facts, read back by ``--design``.

    >>> print(design_toml({"attribute": 'style "formal"', "not_tested": ("names", "dialect")}), end="")
    attribute = "style \\"formal\\""
    not_tested = ["names", "dialect"]
    >>> import tomllib
    >>> tomllib.loads(design_toml({"values_why": "one\\ntwo"}))
    {'values_why': 'one\\ntwo'}
    """
    facts = dict(facts)
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


# ---------------------------------------------------------------- the command lines


def _framing_options(job: Job, mapping: Mapping) -> list[str]:
    """The framing's options: the same flags in the ``framing`` command and the report."""
    out = []
    if mapping.targets:
        out += [flag("targets"), targets_name(job)]
    if mapping.answers:
        out += [flag("answers"), mapping.answers]
    for spec in mapping.framing_columns():
        out += [flag("framing_columns"), spec]
    return out


def _judge_options(mapping: Mapping) -> list[str]:
    """The order probe's options: the same flags in the ``judge`` command and the report (the judges are the
    ``--by`` groups in both)."""
    out = [flag("order"), mapping.order]
    if mapping.judge_choice:
        out += [flag("choice"), mapping.judge_choice]
    elif mapping.judge_reply:
        out += [flag("response"), mapping.judge_reply]
    for rule in mapping.verdicts():
        out += [flag("verdicts"), rule]
    if mapping.judge_by:
        out += [flag("by"), mapping.judge_by]
    if mapping.judge_repetition:
        out += [flag("repetition"), mapping.judge_repetition]
    return out


def analysis_command(job: Job, detected: dict) -> str | None:
    """For a framing log or an order probe: the command line that prints the analysis the report is made
    of, as JSON (``probestats framing ... --json``, ``probestats judge ... --json``); None otherwise."""
    mapping = job.mapping
    if mapping.analysis == "framing":
        args = ["probestats", "framing", job.log.name, *_framing_options(job, mapping)]
    elif mapping.analysis == "judge":
        args = ["probestats", "judge", job.log.name, *_judge_options(mapping)]
    else:
        return None
    return shlex.join(args + mapping.shaping(detected) + [flag("json_out")])


def _values(mapping: Mapping) -> list[str]:
    out = []
    for name, value in ((flag("a"), mapping.a), (flag("b"), mapping.b),
                        (flag("reference"), "" if (mapping.a or mapping.b) else mapping.reference)):
        if value:
            out += [name, value]
    return out


def report_command(job: Job, detected: dict, *, output: str = "report.md", plain: bool = True) -> str:
    """The command line that writes the report the page shows (run in the folder holding the files)."""
    mapping = job.mapping
    plainly = [flag("plain")] if plain else []
    if mapping.analysis == "framing":
        return shlex.join(["probestats", "report", flag("framing_log"), job.log.name,
                           *_framing_options(job, mapping),
                           *mapping.shaping(detected), *plainly, flag("output"), output])
    if mapping.analysis == "judge":
        return shlex.join(["probestats", "report", job.log.name, *_judge_options(mapping),
                           *mapping.shaping(detected), *plainly, flag("output"), output])
    args = ["probestats", "report", job.log.name, flag("metric"), mapping.metric]
    if job.noise is not None:
        args += [flag("noise"), job.noise.name]
    args += _values(mapping) + mapping.shaping(detected) + mapping.flags("report")
    if plain:
        args.append(flag("plain"))
    if job.facts:
        args += [flag("design"), "probe.toml"]
    args += [flag("output"), output]
    return shlex.join(args)


def validate_command(job: Job, detected: dict) -> str:
    """The command line that checks the log as the check page does (the values, the shaping and the
    options ``validate`` takes)."""
    mapping = job.mapping
    values = [x for name, v in ((flag("a"), mapping.a), (flag("b"), mapping.b)) if v for x in (name, v)]
    return shlex.join(["probestats", "validate", job.log.name, flag("metric"), mapping.metric, *values,
                       *mapping.shaping(detected), *mapping.flags("validate")])


def plan_source(job: Job) -> Upload:
    """The file the plan takes its noise from: the same-versus-same file, or else the log itself (its
    runs' spread within each item and value)."""
    return job.noise if job.noise is not None else job.log


def plan_command(job: Job, detected: dict, *, items: str, runs: str, gap, sims: int, power: float,
                 alpha: float, mechanism: str = "auto") -> str:
    """The command line that prints the plan the page shows, as JSON."""
    mapping = job.mapping
    source = plan_source(job)
    args = ["probestats", "plan", flag("noise"), source.name, flag("metric"), mapping.metric]
    args += mapping.shaping(detected, sheet=source.spreadsheet)  # the sheet applies to a spreadsheet only
    args += mapping.flags("plan")
    args += [flag("items"), items, flag("runs"), runs]
    if gap is not None:
        args += [flag("gap"), repr(gap)]
    args += [flag("sims"), str(sims), flag("power"), repr(power), flag("alpha"), repr(alpha)]
    if mechanism != "auto":
        args += [flag("mechanism"), mechanism]
    args.append(flag("json_out"))
    return shlex.join(args)


def choices_in_words(job: Job, detected: dict) -> list[tuple[str, str]]:
    """Every choice that changes what the report does, in the page's words (label, value): what the
    check lists as chosen, so that nothing the page adds is silent."""
    mapping = job.mapping
    out = [("Metric", mapping.metric)] if mapping.metric and not mapping.analysis else []
    if mapping.sheet:
        out.append(("Sheet", mapping.sheet))
    if mapping.skip_rows:
        out.append(("Title rows above the header", str(mapping.skip_rows)))
    for key, header in mapping.columns(detected):
        out.append((MAPPED.get(key, (key,))[0] + " column", header or "none"))
    for label, value in (("First value", mapping.a), ("Second value", mapping.b),
                         ("Reference value", "" if (mapping.a or mapping.b) else mapping.reference),
                         ("Filter", mapping.where)):
        if value:
            out.append((label, value))
    for name, value in mapping.options:
        shown = "yes" if value is True else ", ".join(value) if isinstance(value, tuple) else str(value)
        out.append((CHOICE[name].label, shown))
    if job.noise is not None:
        out.append(("Same-versus-same file", job.noise.name))
    return out
