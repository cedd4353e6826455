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

__all__ = ["Upload", "Mapping", "SUFFIXES", "MAPPED", "safe_name", "store", "report_command", "plan_command",
           "design_toml"]

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

    @classmethod
    def from_form(cls, form) -> Mapping:
        """A mapping from form fields (a dict-like of str); unknown fields are ignored."""
        values = {}
        for f in fields(cls):
            raw = str(form.get(f.name, "") or "").strip()
            if f.name == "skip_rows":
                if raw and not raw.isdigit():
                    raise OptionError("title rows: give a whole number (0 when the header is the first row)")
                values[f.name] = min(int(raw or 0), 1_000_000)
            else:
                values[f.name] = raw[:500]
        return cls(**values)

    def query(self) -> dict:
        """The mapping as form fields (for links from one step to the next)."""
        return {f.name: str(getattr(self, f.name)) for f in fields(self) if getattr(self, f.name) not in ("", 0)}

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

    def options(self, detected: dict) -> list[str]:
        """The command-line options of this mapping (after the metric)."""
        out = []
        for flag, value in (("--a", self.a), ("--b", self.b)):
            if value:
                out += [flag, value]
        if self.sheet:
            out += ["--read", f"sheet={self.sheet}"]
        if self.skip_rows:
            out += ["--read", f"skip-rows={self.skip_rows}"]
        for key, header in self.columns(detected):
            out += ["--column", f"{key}={header}"]
        if self.where:
            out += ["--where", self.where]
        return out


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


def report_command(job: Job, mapping: Mapping, detected: dict, *, facts: dict, output: str = "report.md") -> str:
    """The command line that writes the report the page shows (run in the folder holding the files)."""
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
