"""A seeded campaign of broken and hostile inputs for every command and format, and its checks.

``generate(n, seed)`` draws cases from categories (:data:`CATEGORIES`); ``run_case`` runs one in a
fresh folder, in this process through :func:`probestats.cli.main` (fast) or, for cases that could
abort a process, in a child; ``check`` lists what went wrong. Used by ``test_hostile_campaign.py``
(a bounded run in CI) and ``benchmarks/fuzz.py`` (the long run).

A case fails when: an exception escapes ``main`` (a traceback), the process aborts or dies on a
signal, the exit code is not 0, 1 or 2, an ``Error: unexpected`` line appears, an ``Error:`` line
spans several lines, an input file changes, a raw control character (ESC, C1, bidi) appears in
any output, a hostile HTML marker survives unescaped in an HTML report, a refused run (exit 1)
leaves anything behind (a file, a temporary file, an empty images folder), an error names the
case's absolute folder or a temporary file, or a secret beside a template folder shows up in any
output.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import random
import subprocess
import sys
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: hostile text: terminal escapes, C1, bidi controls, rich markup, HTML and Markdown markers, line breaks
HOSTILE = [
    "\x1b]52;c;cHdu\x07", "\x1b[2J\x1b[H", "\x9b31m", "\u202eexe.jpg", "\u2066x\u2069", "\u200fa\u200e",
    "[red]red[/red]", "[/bold]x", "[link=http://x]y[/link]", "<script>alert(1)</script>", "<b id=PWNED>b</b>",
    "<img src=x onerror=alert(1)>", "**b** _i_ `c` | # h", "$x^2$", "a\rb", "a\x0cb", "a\x00b", "a\x7fb",
    "\ufeffbom", "\u0627\u0644\u0639\u0631\u0628\u064a\u0629", "' OR 1=1 --", "{{ 7*7 }}", "%s%n", "\\", "",
]
#: markers that must never appear unescaped in an HTML report
HTML_MARKERS = ["<script>alert(1)</script>", "<b id=PWNED>", "<img src=x onerror"]

CATEGORIES = ["csv_bytes", "csv_structure", "numbers", "json", "text", "options", "paths", "outputs",
              "templates", "spreadsheets", "parquet", "template_links", "reserved_names", "damaged_sheets",
              "failing_writes", "output_paths", "tool_logs", "rust_regex", "signed_answers", "option_values",
              "sizes"]
# the fourth campaign: limits raised past the memory, patterns that backtrack without end, R files a reader
# crashes on (see the block "raised limits, catastrophic patterns, R structures" below)
CATEGORIES += ["raised_limits", "catastrophic_patterns", "r_structures"]
#: the text of the secret file beside a template folder (template_links): it must appear in no output
SECRET = "SECRET-c0ffee-never-in-an-output"
COMMANDS = ["validate", "analyze", "report_md", "report_html", "plan", "compare", "framing"]


@dataclass
class Case:
    category: str
    argv: list[str]
    files: dict[str, bytes]
    child: bool = False          # run in a subprocess (could abort a process)
    note: str = ""
    links: dict[str, str] = field(default_factory=dict)   # link -> its target, made after the files
    dirs: list[str] = field(default_factory=list)         # empty folders to make
    fsize: int | None = None     # the child's file-size limit (bytes): writes beyond it fail
    replaceable: list[str] = field(default_factory=list)  # earlier outputs the run may overwrite (not inputs)
    expect: str | None = None    # what stdout must hold when the run answers (exit 0): the right number
    refuse: bool = False         # the run must refuse (exit 1): a pattern the regex dialect cannot compile
    timeout: int = 600           # seconds a child may run before the case counts as an abort
    said: str | None = None      # what stderr must hold (the message that says what to do)
    unsaid: tuple = ()           # what no output may hold (a class name, polars' text, a library's warning)


@dataclass
class Outcome:
    case: Case
    code: int | None
    out: str
    err: str
    failures: list[str] = field(default_factory=list)
    maxrss_kb: int = 0


# ---------------------------------------------------------------------------- building blocks


def _rows(rng: random.Random, items=6, runs=2, text=None, metric="steps", extra_cols=()):
    """A valid matched log as a list of dicts, with hostile text planted where asked."""
    rows = []
    for i in range(1, items + 1):
        name = text if (text is not None and i == 1) else str(i)
        for variant in ("formal", "casual"):
            for seed in range(1, runs + 1):
                row = {"item": name, "variant": variant, "seed": seed, "model": "m1",
                       metric: rng.randint(0, 9) + (2 if variant == "formal" else 0)}
                for col in extra_cols:
                    row[col] = text if text is not None else "x"
                rows.append(row)
    return rows


def _csv(rows, sep=",", newline="\n") -> bytes:
    import csv

    buf = io.StringIO(newline="")
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), delimiter=sep, lineterminator=newline)
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8", errors="surrogatepass")


def _jsonl(rows) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()


def _xlsx(rows) -> bytes:
    import polars as pl

    import datetime

    import xlsxwriter

    buf = io.BytesIO()
    frame = pl.DataFrame([{k: (str(v) if isinstance(v, str) else v) for k, v in r.items()} for r in rows])
    book = xlsxwriter.Workbook(buf)
    book.set_properties({"created": datetime.datetime(2000, 1, 1)})  # a fixed date: the same rows, the same bytes
    frame.write_excel(book, autofit=False)
    book.close()
    return buf.getvalue()


def _parquet(rows) -> bytes:
    import polars as pl

    buf = io.BytesIO()
    pl.DataFrame(rows).write_parquet(buf)
    return buf.getvalue()


def _command(rng: random.Random, log: str, metric="steps") -> list[str]:
    cmd = rng.choice(COMMANDS)
    if cmd == "report_md":
        return ["report", log, "--metric", metric, "-o", "out.md"]
    if cmd == "report_html":
        return ["report", log, "--metric", metric, "-o", "out.html"]
    if cmd == "plan":
        return ["plan", "--noise", log, "--metric", metric, "--items", "6", "--runs", "2", "--sims", "40"]
    if cmd == "compare":
        return ["compare", log, log, "--metric", metric]
    if cmd == "framing":
        return ["framing", log]
    return [cmd, log, "--metric", metric] + (["--json"] if rng.random() < 0.3 else [])


# ---------------------------------------------------------------------------- categories


def _csv_bytes(rng):
    data = bytearray(_csv(_rows(rng)))
    for _ in range(rng.randint(1, 8)):
        op = rng.random()
        pos = rng.randrange(len(data))
        if op < 0.4:
            data[pos] = rng.randrange(256)
        elif op < 0.7:
            data[pos:pos] = bytes(rng.choice([b'"', b",", b"\n", b"\r", b"\x00", b"\xff", b"\xef\xbb\xbf", b";"]))
        else:
            del data[pos:pos + rng.randint(1, 20)]
    name = rng.choice(["log.csv", "log.tsv"])
    return Case("csv_bytes", _command(rng, name), {name: bytes(data)})


def _csv_structure(rng):
    rows = _rows(rng)
    kind = rng.choice(["dup_header", "ragged", "open_quote", "cr_only", "crlf", "bom", "empty", "header_only",
                       "semicolon", "title_rows", "blank_lines", "utf16", "cp1252", "wide"])
    data = _csv(rows)
    argv_extra: list[str] = []
    if kind == "dup_header":
        data = data.replace(b"model", b"steps", 1)
    elif kind == "ragged":
        data += b"1,formal,1,m1,3,extra,fields\n"
    elif kind == "open_quote":
        data = data.replace(b"\n1,", b'\n"1,', 1)
    elif kind == "cr_only":
        data = data.replace(b"\n", b"\r")
    elif kind == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif kind == "bom":
        data = b"\xef\xbb\xbf" + data
    elif kind == "empty":
        data = b""
    elif kind == "header_only":
        data = data.split(b"\n")[0] + b"\n"
    elif kind == "semicolon":
        data = data.replace(b",", b";")
    elif kind == "title_rows":
        data = b"My probe\n\n" + data
        argv_extra = ["--read", f"skip-rows={rng.choice([0, 1, 2, 5, 1000])}"]
    elif kind == "blank_lines":
        data = data.replace(b"\n", b"\n\n", 3)
    elif kind == "utf16":
        data = data.decode().encode("utf-16")
    elif kind == "cp1252":
        data = data.replace(b"m1", "m\u00e9".encode("cp1252"))
    elif kind == "wide":
        data = _csv(_rows(rng, extra_cols=[f"c{i}" for i in range(300)]))
    return Case("csv_structure", _command(rng, "log.csv") + argv_extra, {"log.csv": data}, note=kind)


def _numbers(rng):
    rows = _rows(rng)
    values = ["1e308", "-1e308", "1.7976931348623157e308", "inf", "-inf", "nan", "NaN", "9" * 5000, "1e-320",
              "-0", "0x1A", "1,5", "1 000", "", " ", "3.", ".5", "1e400", "٣", "+7", "9223372036854775808"]
    for r in rng.sample(rows, rng.randint(1, 4)):
        r["steps"] = rng.choice(values)
    name = rng.choice(["log.csv", "log.jsonl"])
    data = _csv(rows) if name.endswith(".csv") else _jsonl(rows)
    argv = _command(rng, name)
    if rng.random() < 0.3:
        argv += ["--derive", rng.choice(["x = steps * 4000000000000000000", "x = steps / 0", "x = steps - steps",
                                         "x = steps * 1e308 * 10"])]
        if "--metric" in argv:
            argv[argv.index("--metric") + 1] = "x"
    return Case("numbers", argv, {name: data})


def _json(rng):
    rows = _rows(rng)
    kind = rng.choice(["dup_key", "deep", "not_records", "bom", "scalar", "mixed_types", "huge_int", "truncated",
                       "nested_value", "wrapper", "surrogate"])
    body = json.dumps(rows)
    if kind == "dup_key":
        body = body.replace('"model": "m1"', '"model": "m1", "model": "m2"', 1)
    elif kind == "deep":
        depth = rng.choice([50, 150, 5000])
        body = body.replace('"m1"', "[" * depth + "1" + "]" * depth, 1)
    elif kind == "not_records":
        body = json.dumps({"a": 1})
    elif kind == "bom":
        body = "\ufeff" + body
    elif kind == "scalar":
        body = "42"
    elif kind == "mixed_types":
        rows[0]["steps"] = {"a": 1}
        rows[1]["steps"] = [1, 2]
        body = json.dumps(rows)
    elif kind == "huge_int":
        body = body.replace('"seed": 1', '"seed": ' + "7" * 5000, 1)
    elif kind == "truncated":
        body = body[: rng.randrange(1, len(body))]
    elif kind == "nested_value":
        rows[0]["model"] = {"x": {"y": [1, {"z": None}]}}
        body = json.dumps(rows)
    elif kind == "wrapper":
        body = json.dumps({"rows": rows})
    elif kind == "surrogate":   # a lone surrogate, which no encoding can write
        body = body.replace('"m1"', '"m\\ud800"', 1)
    if rng.random() < 0.5:
        name = "log.json"
        data = body.encode()
    else:
        name = "log.jsonl"
        try:
            records = json.loads(body)
            data = "".join(json.dumps(r) + "\n" for r in records).encode() if isinstance(records, list) else (
                body.encode())
        except (ValueError, RecursionError):
            data = body.encode()
        if kind == "dup_key":
            data = data.replace(b'"model": "m1"', b'"model": "m1", "model": "m2"', 1)
        if kind == "bom":
            data = b"\xef\xbb\xbf" + data
    return Case("json", _command(rng, name), {name: data}, note=kind)


def _text(rng):
    text = rng.choice(HOSTILE)
    where = rng.choice(["item", "variant", "model", "header", "metric"])
    rows = _rows(rng, text=text if where == "item" else None)
    metric = "steps"
    if where == "variant":
        for r in rows:
            if r["variant"] == "formal":
                r["variant"] = text or "formal"
    elif where == "model":
        for r in rows:
            r["model"] = text
    elif where in ("header", "metric"):
        metric = text or "steps"
        rows = [{(metric if k == "steps" else k): v for k, v in r.items()} for r in rows]
    name = rng.choice(["log.csv", "log.jsonl", "log.csv", "log.xlsx"])
    try:
        data = {"log.csv": _csv, "log.jsonl": _jsonl, "log.xlsx": _xlsx}[name](rows)
    except Exception:
        data = _csv(rows)
        name = "log.csv"
    argv = _command(rng, name, metric)
    if rng.random() < 0.3 and "--metric" in argv:
        argv += ["--a", text or "x"]
    return Case("text", argv, {name: data}, note=repr(text)[:30])


_EXPRESSIONS = ["steps > 1", "steps" + "+1" * 3000, "(" * 40 + "steps" + ")" * 40, "nosuch > 1",
                "SELECT 1", "steps > 'a'", "model = 'm1' AND steps > 0", "steps" + "+1" * 150, "1/0 > 1",
                "steps IN (SELECT 1)", "\x1b[2J", "'\u202e' = model", "", "steps = steps = steps"]


def _options(rng):
    rows = _rows(rng)
    data = _csv(rows)
    base = ["analyze", "log.csv", "--metric", "steps"]
    choice = rng.choice(["skip", "encoding", "by", "where", "derive", "alpha", "plan", "sheet", "column", "format",
                         "max_cells", "reference", "scale"])
    if choice == "skip":
        argv = base + ["--read", "skip-rows=" + rng.choice(["1e23", "-1", "99999999999999999999", "3", "abc"])]
    elif choice == "encoding":
        argv = base + ["--read", "encoding=" + rng.choice(["punycode", "idna", "rot13", "utf-16", "latin-1", "nope", "base64",
                                                  "unicode_escape", "utf-8-sig", "\x1b"])]
    elif choice == "by":
        argv = base + ["--by", rng.choice(["seed", "item", "variant", "steps", "model", "nosuch", "[red]x"])]
    elif choice == "where":
        argv = base + ["--where", rng.choice(_EXPRESSIONS)]
    elif choice == "derive":
        argv = ["analyze", "log.csv", "--metric", "x", "--derive", "x = " + rng.choice(_EXPRESSIONS)]
    elif choice == "alpha":
        argv = base + ["--alpha", rng.choice(["0", "1", "nan", "1e-300", "0.999999", "-1"])]
    elif choice == "plan":
        argv = ["plan", "--noise", "log.csv", "--metric", "steps", "--sims", rng.choice(["20", "0", "1", "30"])]
        argv += rng.choice([["--power", "0.999999"], ["--items", "100000"], ["--runs", "1000000"],
                            ["--items", "0"], ["--runs", "-3"], ["--heterogeneity", "1e308"], ["--gap", "nan"],
                            ["--items", "6", "--runs", "2"], ["--scale", "5:1"], ["--items", "x"]])
    elif choice == "sheet":
        argv = base + ["--read", "sheet=" + rng.choice(["0", "99", "x"])]
    elif choice == "column":
        argv = base + ["--column", rng.choice(["item=nosuch", "noequals", "item=steps", "steps=model"])]
    elif choice == "format":
        argv = base + ["--read", "format=" + rng.choice(["xlsx", "parquet", "json", "jsonl", "ods"])]
    elif choice == "max_cells":
        argv = base + ["--read", "max-cells=" + rng.choice(["0", "1", "-5", "1e9"])]
    elif choice == "reference":
        argv = base + ["--reference", "nosuch"]
    else:
        argv = base + ["--scale", rng.choice(["5:1", "a:b", "1:1", "0:"])]
    return Case("options", argv, {"log.csv": data}, note=choice)


def _paths(rng):
    name = rng.choice(["probe[12]", "a*b", "what?", "x[", "{a,b}", "~tilde", "-dash", "sp ace", "\u202efdp",
                       "semi;colon"])
    suffix = rng.choice([".csv", ".jsonl", ".parquet", ".json"])
    rows = _rows(rng)
    maker = {".csv": _csv, ".jsonl": _jsonl, ".parquet": _parquet, ".json": lambda r: json.dumps(r).encode()}
    files = {name + suffix: maker[suffix](rows), "probe1" + suffix: maker[suffix](_rows(rng))}
    target = name + suffix if not name.startswith("-") else "./" + name + suffix
    return Case("paths", _command(rng, target), files, note=name)


def _outputs(rng):
    rows = _rows(rng)
    files = {"log.csv": _csv(rows), "noise.csv": _csv(_rows(rng)), "probe.toml": b'attribute = "style"\n'}
    # every victim is a file the command reads, named directly, through '..' or through a symbolic link
    kind = rng.choice(["report", "compare", "plan"])
    if kind == "report":
        victim = rng.choice(["log.csv", "noise.csv", "probe.toml", "link.md", "./sub/../log.csv"])
        argv = ["report", "log.csv", "--metric", "steps", "--noise", "noise.csv", "--design", "probe.toml",
                "-o", victim]
    elif kind == "compare":
        victim = rng.choice(["log.csv", "noise.csv", "link.md", "./sub/../noise.csv"])
        argv = ["compare", "log.csv", "noise.csv", "--metric", "steps", "-o", victim]
    else:
        victim = rng.choice(["noise.csv", "nlink.png", "./sub/../noise.csv"])
        argv = ["plan", "--noise", "noise.csv", "--metric", "steps", "--gap", "1", "--items", "6", "--runs", "2",
                "--sims", "20", "--plot", victim]
    return Case("outputs", argv, files, note=victim)


_TEMPLATES = ["{{ ''.__class__.__mro__ }}", "{{ cycler.__init__.__globals__ }}", "{% for x in range(10**9) %}{% endfor %}",
              "{{ metric }}", "{{ nosuch }}", "{% include '/etc/passwd' %}", "{{ sections|join(',') }}",
              "{% extends 'report.md.j2' %}", "{{ self.__dict__ }}", "{{ lipsum.__globals__ }}", "{{ 'a' * 10 }}"]


def _templates(rng):
    body = rng.choice(_TEMPLATES)
    suffix = rng.choice(["md", "html"])
    files = {"log.csv": _csv(_rows(rng)), f"tpl/report.{suffix}.j2": body.encode()}
    return Case("templates", ["report", "log.csv", "--metric", "steps", "--templates", "tpl", "-o", f"out.{suffix}"],
                files, note=body[:30])


def _spreadsheets(rng, children=True):
    rows = _rows(rng)
    kinds = ["xlsx_ok", "xlsx_truncated", "xlsx_not_zip", "ods_as_xlsx", "xlsx_text"]
    # the child cases' files take seconds to make: drawn only when children run
    kind = rng.choice(kinds + (["xlsx_far", "xlsx_bomb_small"] if children else []))
    data = _xlsx(rows)
    child = False
    if kind == "xlsx_truncated":
        data = data[: rng.randrange(100, len(data))]
    elif kind in ("xlsx_far", "xlsx_bomb_small"):
        from tests.hostile.spreadsheets import far_corner_xlsx, zip_bomb_xlsx
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "x.xlsx"
            if kind == "xlsx_far":
                far_corner_xlsx(path, rng.choice(["XFD1048576", "ZZ900000", "E40"]))
            else:
                zip_bomb_xlsx(path, expanded=300 << 20)
            data = path.read_bytes()
        child = True
    elif kind == "xlsx_not_zip":
        data = b"PK\x03\x04" + rng.randbytes(200)
    elif kind == "ods_as_xlsx":
        data = _csv(rows)
    elif kind == "xlsx_text":
        data = _xlsx(_rows(rng, text=rng.choice(HOSTILE)))
    return Case("spreadsheets", _command(rng, "log.xlsx"), {"log.xlsx": data}, child=child, note=kind)


def _parquet_case(rng):
    data = bytearray(_parquet(_rows(rng)))
    for _ in range(rng.randint(1, 3)):
        pos = rng.randrange(len(data))
        data[pos] ^= 1 << rng.randrange(8)
    return Case("parquet", _command(rng, "log.parquet"), {"log.parquet": bytes(data)}, child=True)


# ---------------------------------------------------------------- second campaign: links, names, damage, writes


def _template_links(rng):
    """A template folder holding a link that leads outside it, and a template that reads through it."""
    suffix = rng.choice(["md", "html"])
    files = {"log.csv": _csv(_rows(rng)), "secret.txt": (SECRET + "\n").encode()}
    link, target = rng.choice([("evil_link", "../secret.txt"), ("up", ".."), ("abs", "ABS/secret.txt"),
                               (f"report.{suffix}.j2", "../secret.txt"), ("sub/deep", "../../secret.txt")])
    name = {"up": "up/secret.txt"}.get(link, link)
    body = rng.choice(['{% include "NAME" %}', '{% import "NAME" as m %}{{ m }}', '{% extends "NAME" %}',
                       '{% from "NAME" import x %}{{ x }}', '{% include ["nosuch", "NAME"] %}',
                       '{% include "NAME" ignore missing %}']).replace("NAME", name)
    if link != f"report.{suffix}.j2":
        files[f"tpl/report.{suffix}.j2"] = f"# r\n{body}\n".encode()
    argv = ["report", "log.csv", "--metric", "steps", "--templates", "tpl", "-o", f"out.{suffix}"]
    if rng.random() < 0.4:
        argv += ["--section", rng.choice(["table", "summary", "tests", "design"])]
    return Case("template_links", argv, files, note=f"{link} {body[:24]}", links={f"tpl/{link}": target},
                dirs=["tpl/sub"])


#: names probestats gives its own columns, and the columns that number the runs
RESERVED = ["seed", "run_id", "time", "_row", "__order", "n", "counted", "constant", "mean", "sd", "seeds", "seeded",
            "distinct_seeds", "first_valued", "has_a", "has_b", "__s", "__q", "__finer", "__head_n", "__min",
            "__exact", "__general", "_f1", "_kind", "_order", "k", "gap", "lo", "hi", "a", "b", "item", "variant"]


def _reserved_names(rng):
    """A reserved name as the metric, a --by group or either side of a --column mapping."""
    name = rng.choice(RESERVED)
    where = rng.choice(["metric", "by", "column_to", "column_from", "extra"])
    metric = name if where == "metric" else "steps"
    rows = _rows(rng, metric=metric if name not in ("item", "variant", "seed") else "steps")
    for r in rows:
        if name not in r:
            r[name] = rng.choice(["g1", "g2"]) if where == "by" else r["seed"]
    data = _csv(rows)
    if where == "metric":
        argv = _command(rng, "log.csv", metric=name)
    elif where == "by":
        argv = [rng.choice(["analyze", "validate"]), "log.csv", "--metric", "steps", "--by", name]
    elif where == "column_to":
        argv = ["analyze", "log.csv", "--metric", "steps", "--column", f"{name}={rng.choice(['item', 'model'])}"]
    elif where == "column_from":
        argv = ["analyze", "log.csv", "--metric", "x", "--column", f"x={name}"]
    else:
        argv = _command(rng, "log.csv")
    return Case("reserved_names", argv, {"log.csv": data}, note=f"{where} {name}")


def _damaged_sheets(rng):
    """A damaged .ods (bad checksum, junk XML, entities, an unbound prefix) or an .xlsx with a flipped bit."""
    import tempfile

    from tests.hostile.spreadsheets import ODS_DAMAGE, damaged_ods, flipped_xlsx

    with tempfile.TemporaryDirectory() as folder:
        if rng.random() < 0.5:
            kind = rng.choice(ODS_DAMAGE)
            name = "log.ods"
            data = damaged_ods(Path(folder) / name, kind).read_bytes()
        else:
            kind = "xlsx_flip"
            name = "log.xlsx"
            data = flipped_xlsx(Path(folder) / name, rng.random(), rng.randrange(8)).read_bytes()
            if rng.random() < 0.3:  # a flip anywhere, the zip directory included
                raw = bytearray(data)
                raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
                data, kind = bytes(raw), "xlsx_flip_anywhere"
    return Case("damaged_sheets", _command(rng, name), {name: data}, note=kind)


def _failing_writes(rng):
    """A command whose output cannot be written whole: a file-size limit in a child process."""
    files = {"log.csv": _csv(_rows(rng)), "noise.csv": _csv(_rows(rng))}
    out = rng.choice(["out.md", "out.html", "out.json"])
    argv = rng.choice([
        ["report", "log.csv", "--metric", "steps", "--noise", "noise.csv", "-o", out],
        ["compare", "log.csv", "noise.csv", "--metric", "steps", "-o", "out.md"],
        ["plan", "--noise", "noise.csv", "--metric", "steps", "--gap", "1", "--items", "6", "--runs", "2",
         "--sims", "20", "--plot", "out.png"]])
    limit = rng.choice([1, 200, 700, 3000])
    return Case("failing_writes", argv, files, child=True, note=f"{argv[0]} limit {limit}", fsize=limit)


def _output_paths(rng):
    """-o where no file can go: the images folder is a file, an image is a folder, under a regular
    file, a folder that takes no files, a name too long, a file of the images' name already there."""
    files = {"log.csv": _csv(_rows(rng)), "noise.csv": _csv(_rows(rng))}
    kind = rng.choice(["files_is_file", "image_is_folder", "under_file", "proc", "long", "long_images",
                       "foreign_image", "image_link", "out_is_folder", "rerun"])
    out = rng.choice(["out.md", "out.html", "out.json"]) if kind in ("under_file", "proc", "long") else "out.md"
    dirs: list[str] = []
    links: dict[str, str] = {}
    if kind == "files_is_file":
        files["out_files"] = b"a file of the user's"
    elif kind == "image_is_folder":
        dirs.append(f"out_files/{rng.choice(['item_gaps', 'power'])}.png")
    elif kind == "under_file":
        out = f"log.csv/{out}"
    elif kind == "proc":
        out = f"/proc/self/{out}"
    elif kind == "long":
        out = "a" * rng.choice([256, 300, 1000]) + out[3:]
    elif kind == "long_images":
        out = "a" * 251 + ".md"
    elif kind == "foreign_image":
        files[f"out_files/{rng.choice(['item_gaps', 'power'])}.png"] = b"a picture of the user's"
    elif kind == "image_link":
        links["out_files/power.png"] = "../noise.csv"
        dirs.append("out_files")
    elif kind == "out_is_folder":
        dirs.append("out.md")
    elif kind == "rerun":
        files["out.md"] = b"an earlier report, edited"
    argv = ["report", "log.csv", "--metric", "steps", "--noise", "noise.csv", "-o", out]
    if rng.random() < 0.3 and kind not in ("foreign_image", "image_link"):
        argv.append("--force")  # --force replaces a foreign image; it makes no other path writable
    return Case("output_paths", argv, files, note=kind, links=links, dirs=dirs,
                replaceable=["out.md"] if kind == "rerun" else [])


FRAMEWORKS = ROOT / "tests" / "data" / "frameworks"
_HUGE = "7" * 5000   # past Python's 4,300-digit limit on converting an integer


def _tool_logs(rng):
    """The logs of inspect_ai, promptfoo, lm-eval and Open WebUI with huge integers, lone surrogates and
    values of the wrong type where the reader expects text, numbers or records."""
    tool = rng.choice(["promptfoo", "inspect", "lm_eval", "open_webui"])
    kind = rng.choice(["huge_int", "surrogate", "wrong_type"])
    if tool == "promptfoo":
        name, text = "results.json", (FRAMEWORKS / "promptfoo_echo.json").read_text(encoding="utf-8")
        spot = '"score": '
    elif tool == "inspect":
        name, text = "style_probe.json", (FRAMEWORKS / "style_probe.json").read_text(encoding="utf-8")
        spot = '"completion": '
    elif tool == "lm_eval":
        sample = next(FRAMEWORKS.glob("lm_eval/*/samples_style_probe_mc_*.jsonl"))
        name, text = f"lm/{sample.name}", sample.read_text(encoding="utf-8")
        spot = '"doc_id": '
    else:
        name, text = "chat-export-1.json", (FRAMEWORKS / "chat-export-1764583200000.json").read_text(encoding="utf-8")
        spot = '"content": '
    starts = [i for i in range(len(text)) if text.startswith(spot, i)]
    at = rng.choice(starts) + len(spot) if starts else 0
    if kind == "huge_int":
        planted = _HUGE
    elif kind == "surrogate":
        planted = rng.choice(['"\\ud800 reply"', '"a\\udfff"', '"\\udc80\\ud800"'])
    else:
        planted = rng.choice(["7", "[1, 2]", '{"type": "text", "text": 5}', '[{"type": "text", "text": 5}]',
                              "true", "null", '[{"text": [1]}]', '{"a": {"b": [1]}}'])
    # replace the value at the spot: a string's quotes or the number's digits
    end = at
    if text[at:at + 1] == '"':
        end = at + 1
        while text[end] != '"' or text[end - 1] == "\\":
            end += 1
        end += 1
    else:
        while end < len(text) and text[end] not in ",}]\n":
            end += 1
    data = (text[:at] + planted + text[end:]).encode("utf-8")
    files = {name: data}
    if tool == "lm_eval":   # the results file beside the samples names the model
        results = next(FRAMEWORKS.glob("lm_eval/*/results_*.json"))
        files[f"lm/{results.name}"] = results.read_bytes()
    metric = {"promptfoo": "score", "inspect": "steps", "lm_eval": "acc", "open_webui": "w"}[tool]
    argv = _command(rng, name, metric)
    if tool == "open_webui" and argv[0] in ("validate", "analyze", "report"):
        argv += ["--from-text", "w=words"]   # a chat export has no metric of its own
    return Case("tool_logs", argv, files, note=f"{tool} {kind} {planted[:24]}")


#: --from-text number patterns in the syntax of Rust's regex crate that Python's re cannot compile (and some
#: it can): each reads the score, so 'run 5: score 8' against 'run 1: score 2' is a gap of 6 in every item
_RUST_READ = [r"run \d+: score (?<v>\d+)", r"run \pN+: score (\pN+)", r"run \p{Nd}+: score (\p{Nd}+)",
              r"run [[:digit:]]+: score ([[:digit:]]+)", r"(?x) run \s \d+ : \s score \s (?<v> \d+ )",
              r"run \d+: score (?P<v>\d+)", r"run \d+: score (\d+)", r"(?i)RUN \d+: SCORE (?<v>\d+)",
              r"run (?:\d+): score (\d+)", r"score (\d+)", r"(?s)run.*score (?<v>\pN+)"]
#: patterns the dialect cannot compile: refused with the reason
_RUST_REFUSED = [r"(?<=score )\d+", r"(\d+)\1", r"(?<v>\d+", r"\p{NoSuchClass}", r"(?!run)\d+", r"(?<1v>\d+)"]


def _rust_regex(rng):
    rows = []
    for i in range(1, rng.randint(2, 8)):
        for seed in (1, 2):
            rows += [{"item": i, "variant": "a", "seed": seed, "reply": f"run {rng.randint(1, 9)}: score {8 + i}"},
                     {"item": i, "variant": "b", "seed": seed, "reply": f"run {rng.randint(1, 9)}: score {2 + i}"}]
    refused = rng.random() < 0.3
    pattern = rng.choice(_RUST_REFUSED if refused else _RUST_READ)
    argv = ["analyze", "log.csv", "--metric", "s", "--from-text", f"s=number:{pattern}", "--json"]
    return Case("rust_regex", argv, {"log.csv": _csv(rows)}, note=pattern, expect=None if refused else
                '"average_gap": 6.0', refuse=refused)


#: how a judge may write a "no" as a number: never read as yes
_SIGNED_NO = ["-1", "\u22121", "\uff0d1", "**-1**", "*-1*", "`-1`", '"-1"', "Answer: -1", "> -1", "(-1)", "-1.",
              "0", "**0**", "Answer: 0", "- -1", "-1.0"]
#: numbers whose sign or mark makes them neither answer: unread, never yes
_SIGNED_NEITHER = ["- 1", "> 1", "~1", "-0", "-2", "+2", "Answer -1"]


def _signed_answers(rng):
    rows = []
    for i in range(rng.randint(3, 10)):
        for framing, asserts in (("affirmative", "A"), ("reverse", "B")):
            reply = rng.choice(_SIGNED_NO) if rng.random() < 0.9 else rng.choice(_SIGNED_NEITHER)
            rows.append({"model": "m", "item": f"c{i}", "framing": framing, "asserts": asserts, "reply": reply})
    rows[0]["reply"] = rng.choice(_SIGNED_NO)   # at least one answer under each framing
    rows[1]["reply"] = rng.choice(_SIGNED_NO)
    name = rng.choice(["log.csv", "log.jsonl"])
    data = _csv(rows) if name == "log.csv" else _jsonl(rows)
    # no reply is a yes: every yes rate is 0
    return Case("signed_answers", ["framing", name, "--answers", "yes-no", "--json"], {name: data},
                note=",".join(sorted({r["reply"] for r in rows}))[:40], expect='"yes_affirmative": 0.0')


def _option_values(rng):
    """Option values naming what they should not: a setting that is the item, value or metric column, a
    --read records= key missing from an object of very many keys."""
    kind = rng.choice(["settings", "records"])
    if kind == "settings":
        column = rng.choice(["item", "variant", "steps"])
        argv = rng.choice([["report", "log.csv", "--metric", "steps", "--setting", f"{column}", "-o", "out.md"],
                           ["report", "log.csv", "--metric", "steps", "--setting-is-attribute", f"{column}",
                            "-o", "out.md"]])
        return Case("option_values", argv, {"log.csv": _csv(_rows(rng))}, note=f"settings={column}")
    keys = rng.choice([1_000, 50_000, 200_000])
    body = json.dumps({f"key{i}": i for i in range(keys)}).encode()
    return Case("option_values", ["validate", "log.json", "--read", f"records={rng.choice(['rows', 'a.b', 'key1.x'])}"],
                {"log.json": body}, note=f"records miss on {keys} keys")


def _sizes(rng):
    """Sizes the work grows with (h43b's limits): each must answer or be refused, in a child under 4 GB
    within 60 s. Not in the CI subset (``fuzz.py --sizes N`` runs them)."""
    kind = rng.choice(["wide_xlsx", "many_values", "factor_levels", "many_groups", "plan_grid", "resamples"])
    files: dict[str, bytes] = {}
    if kind == "wide_xlsx":   # 16,384 columns (Excel's widest), 3 data rows
        import xlsxwriter

        buf = io.BytesIO()
        import datetime

        book = xlsxwriter.Workbook(buf)
        book.set_properties({"created": datetime.datetime(2000, 1, 1)})   # the same case, the same bytes
        sheet = book.add_worksheet()
        for col in range(16_384):
            sheet.write(0, col, ["item", "variant", "steps"][col] if col < 3 else f"c{col}")
            for row in range(1, 4):
                sheet.write(row, col, [row, "formal" if row % 2 else "casual", row][col] if col < 3 else row)
        book.close()
        files["log.xlsx"] = buf.getvalue()
        argv = ["report", "log.xlsx", "--metric", "steps", "-o", "out.md"]
    elif kind == "many_values":   # 5,000 distinct values, 20,000 rows
        rows = [{"item": i % 4, "variant": f"v{i // 4}", "steps": rng.randint(0, 9)} for i in range(20_000)]
        files["log.csv"] = _csv(rows)
        argv = ["analyze", "log.csv", "--metric", "steps"]
    elif kind == "factor_levels":   # 20 x 20 levels on 1,600 rows
        rows = [{"item": i % 4, "style": f"s{(i // 4) % 20}", "name": f"n{(i // 80) % 20}", "steps": rng.randint(0, 9)}
                for i in range(1_600)]
        files["log.csv"] = _csv(rows)
        argv = ["analyze", "log.csv", "--metric", "steps", "--factor", "style", "--factor", "name"]
    elif kind == "many_groups":   # 10,000 --by groups
        rows = [{"item": i % 2, "variant": v, "topic": f"t{i // 2}", "steps": rng.randint(0, 9)}
                for i in range(20_000) for v in ("formal", "casual")]
        files["log.csv"] = _csv(rows)
        argv = ["analyze", "log.csv", "--metric", "steps", "--by", "topic"]
    elif kind == "plan_grid":   # 500 designs
        files["noise.csv"] = _csv(_rows(rng, items=6, runs=3))
        grid = rng.choice([["--items", ",".join(map(str, range(1, 501)))], ["--items", "100000"],
                           ["--runs", ",".join(map(str, range(1, 501))), "--plot", "out.png"]])
        argv = ["plan", "--noise", "noise.csv", "--metric", "steps", *grid]
    else:
        files["log.csv"] = _csv(_rows(rng))
        argv = ["analyze", "log.csv", "--metric", "steps", "--n-resamples", rng.choice(["1000000000000000000",
                                                                                         "1000000000"])]
    return Case("sizes", argv, files, child=True, note=kind, timeout=60)


# ---------------------------------------------------------------- raised limits, catastrophic patterns, R structures


def _wide_csv(columns: int, items: int) -> bytes:
    head = ["item", "variant", "steps"] + [f"c{i}" for i in range(columns - 3)]
    lines = [",".join(head)]
    for item in range(1, items + 1):
        for value in ("a", "b"):
            lines.append(",".join([str(item), value, str(item % 7)] + [str((item + i) % 10) for i in range(columns - 3)]))
    return ("\n".join(lines) + "\n").encode()


def _raised_limits(rng):
    """A log wider than the column limit with the limit raised past it (the refusal's own advice), in a child
    under 4 GB: answered, or refused with the memory estimate, never an abort."""
    columns = rng.choice([2_100, 2_504, 5_000])
    argv = [rng.choice(["validate", "analyze", "report"]), "log.csv", "--metric", "steps",
            "--read", f"max-columns={rng.choice([columns, columns + 6, 10**9])}"]
    if argv[0] == "report":
        argv += ["-o", "out.md"]
    argv += rng.choice([[], ["--limit", "groups=1000000000"], ["--limit", "values=1000000000"]])
    # 200 items (400 rows) is the log that aborted: 2,504 columns of it under 4 GB
    return Case("raised_limits", argv, {"log.csv": _wide_csv(columns, rng.choice([4, 40, 200]))}, child=True,
                note=f"{columns} columns", timeout=60)


#: patterns a backtracking engine takes exponential time on, and a reply of thirty characters each misses
CATASTROPHIC = [("(a+)+$", "a" * 30 + "!"), ("(a|aa)+$", "a" * 30 + "!"), ("^(\\w+\\s?)*$", "word " * 6 + "!"),
                ("(x+x+)+y", "x" * 30)]
#: constructs the linear-time dialect refuses, each with the words its refusal names
REFUSED_CONSTRUCTS = [("(?=a)b", "look-around"), ("(?<!a)b", "look-around"), ("(a)\\1", "back-references"),
                      ("(", "never closed"), ("a{4294967296}", "repetition count too large"),
                      ("a{1000}{1000}", "larger than 10 MB")]


def _catastrophic_patterns(rng):
    """A code book, a verdict rule or a --from-text pattern that backtracks without end on Python's re (answered
    at once: no reply matches), or one the dialect refuses (one line naming the construct)."""
    where = rng.choice(["code", "verdict", "from_text"])
    refused = rng.random() < 0.4
    pattern, reply = rng.choice(CATASTROPHIC)
    if refused:
        pattern = rng.choice(REFUSED_CONSTRUCTS)[0]
    files = {}
    if where == "verdict":
        pattern = pattern.replace(")*$", ")+$")   # a verdict rule matching an empty reply is refused as such
        rows = [{"item": i, "order": order, "verdict": reply if i % 3 else "[[A]]"}
                for i in range(1, 7) for order in ("ab", "ba")]
        files["log.csv"] = _csv(rows)
        argv = ["judge", "log.csv", "--order", "order", "--response", "verdict",
                "--verdict", f"first=re:{pattern}", "--verdict", "second=[[B]]", "--json"]
    else:
        rows = [{"item": i, "variant": v, "seed": s, "reply": reply if (i + s) % 2 else "yes", "steps": i}
                for i in range(1, 6) for v in ("a", "b") for s in (1, 2)]
        files["log.csv"] = _csv(rows)
        if where == "code":
            files["book.csv"] = _csv([{"pattern": pattern, "label": "hit", "score": 1},
                                      {"pattern": "yes", "label": "yes", "score": 0}])
            argv = ["analyze", "log.csv", "--code", "coded=book.csv", "--metric", "coded", "--json"]
        else:
            argv = ["analyze", "log.csv", "--from-text", f"hits=count:{pattern}", "--metric", "hits", "--json"]
    # an answer is a whole analysis (the replies no pattern matches are unparsed, or counted 0)
    expect = None if refused else ('"order_effect"' if where == "verdict" else '"average_gap"')
    return Case("catastrophic_patterns", argv, files, note=f"{where} {pattern}", refuse=refused, expect=expect)


def _r_bytes(body: bytes) -> bytes:
    """An uncompressed .rds (XDR, version 2) of ``body``, one serialized R object."""
    import struct

    return b"X\n" + struct.pack(">iii", 2, 0x030602, 0x020300) + body


def nested_lists_rds(depth: int) -> bytes:
    """An .rds of ``depth`` lists each holding the next: R's reader recurses once a level (100,000 overflow its
    stack: a segmentation fault)."""
    import struct

    return _r_bytes(struct.pack(">ii", 19, 1) * depth + struct.pack(">ii", 19, 0))


def plain_list_rds() -> bytes:
    """An .rds of a list of two numbers: no data frame (R's reader warns and returns nothing)."""
    import struct

    number = struct.pack(">ii", 14, 1)
    return _r_bytes(struct.pack(">ii", 19, 2) + number + struct.pack(">d", 1.0) + number + struct.pack(">d", 2.0))


def _r_structures(rng):
    """R data files a reader crashes or warns on, and read options that do not apply to them."""
    kind = rng.choice(["nested", "no_frame", "truncated", "options"])
    argv = ["validate", "log.rds", "--metric", "steps"]
    if kind == "nested":
        data = nested_lists_rds(rng.choice([100_000, 200_000]))
    elif kind == "no_frame":
        data = plain_list_rds()
    elif kind == "truncated":
        data = nested_lists_rds(rng.randint(1, 50))[: rng.randint(3, 30)]
    else:
        import pandas as pd
        import pyreadr
        import tempfile as _tempfile

        with _tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "log.rds"
            pyreadr.write_rds(str(path), pd.DataFrame({"item": [1, 1, 2, 2], "variant": ["a", "b", "a", "b"],
                                                       "steps": [1, 2, 3, 4]}))
            data = path.read_bytes()
        argv += ["--read", rng.choice(["sheet=2", "skip-rows=3", "encoding=latin-1", "max-cells=5"])]
    return Case("r_structures", argv, {"log.rds": data}, note=kind)


_MAKERS = {"sizes": _sizes, "tool_logs": _tool_logs, "rust_regex": _rust_regex, "signed_answers": _signed_answers,
           "option_values": _option_values, "csv_bytes": _csv_bytes, "csv_structure": _csv_structure, "numbers": _numbers, "json": _json,
           "text": _text, "options": _options, "paths": _paths, "outputs": _outputs, "templates": _templates,
           "spreadsheets": _spreadsheets, "parquet": _parquet_case, "template_links": _template_links,
           "reserved_names": _reserved_names, "damaged_sheets": _damaged_sheets, "failing_writes": _failing_writes,
           "output_paths": _output_paths, "raised_limits": _raised_limits,
           "catastrophic_patterns": _catastrophic_patterns, "r_structures": _r_structures}


def generate(n: int, seed: int = 0, categories=None, children: bool = True):
    """``n`` cases drawn in turn from each category (the same cases for the same seed)."""
    rng = random.Random(seed)
    cats = list(categories or CATEGORIES)
    out = []
    i = 0
    while len(out) < n and i < 100 * n + 1000:   # categories of child cases alone, without children: none
        cat = cats[i % len(cats)]
        i += 1
        case = _spreadsheets(rng, children) if cat == "spreadsheets" else _MAKERS[cat](rng)
        if case.child and not children:
            continue
        out.append(case)
    return out


# ---------------------------------------------------------------------------- running and checking


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in folder.rglob("*") if p.is_file() and not p.is_symlink()}


def _entries(folder: Path) -> set[str]:
    """Every file, folder and link under ``folder`` (a refused run must add none)."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def _setup(case: Case, folder: Path) -> None:
    for name in case.dirs:
        (folder / name).mkdir(parents=True, exist_ok=True)
    for name, data in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for link, target in case.links.items():
        (folder / link).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target.replace("ABS", str(folder)), folder / link)
    if case.category == "outputs":
        (folder / "sub").mkdir(exist_ok=True)
        for link, target in (("link.md", "log.csv"), ("nlink.png", "noise.csv")):
            if not (folder / link).exists():
                os.symlink(target, folder / link)


def _in_process(argv) -> tuple[int | None, str, str, str | None]:
    from probestats.cli import main

    out, err = io.StringIO(), io.StringIO()
    escaped = None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = _python_call(argv[1]) if argv[:1] == [PYTHON_CALL] else main(argv)
        except BaseException as exc:  # noqa: BLE001 - anything escaping main is a failure to record
            import traceback

            code = None
            escaped = "".join(traceback.format_exception(exc))
    return code, out.getvalue(), err.getvalue(), escaped


def _in_child(argv, folder: Path, address_space: int | None = 4 << 30,
              fsize: int | None = None, timeout: int = 600) -> tuple[int | None, str, str, int]:
    limit = "" if address_space is None else (
        f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({address_space}, {address_space}))\n")
    if fsize is not None:  # writes past fsize bytes fail (Python ignores the signal; the write raises)
        limit += f"import resource\nresource.setrlimit(resource.RLIMIT_FSIZE, ({fsize}, {fsize}))\n"
    code = f"{limit}import sys\nsys.path.insert(0, {str(ROOT)!r})\nfrom probestats.cli import main\n" \
           f"sys.exit(main({argv!r}))\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120", "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, cwd=folder, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, "", "timeout", 0
    import resource

    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace"), rss


def run_case(case: Case, folder: Path) -> Outcome:
    """Run ``case`` in ``folder`` (its files written there first) and check the outcome."""
    from probestats.present.words.sanitize import has_raw_controls

    folder.mkdir(parents=True, exist_ok=True)
    _setup(case, folder)
    before = _digest(folder)
    inputs = set(before) - set(case.replaceable)
    entries = _entries(folder)
    cwd = os.getcwd()
    escaped = None
    rss = 0
    if case.child:
        code, out, err, rss = _in_child(case.argv, folder, fsize=case.fsize, timeout=case.timeout)
    else:
        os.chdir(folder)
        try:
            code, out, err, escaped = _in_process(case.argv)
        finally:
            os.chdir(cwd)
        import resource

        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    outcome = Outcome(case, code, out, err, maxrss_kb=rss)
    f = outcome.failures
    if escaped is not None or "Traceback (most recent call last)" in out + err:
        f.append("traceback")
    if code is None or code < 0 or code > 128:
        f.append("abort")
    elif code not in (0, 1, 2):
        f.append("exit_code")
    if "Error: unexpected" in err:
        f.append("unexpected")
    if case.expect is not None and code == 0 and case.expect not in out:
        f.append("wrong_number")
    if case.refuse and code != 1 or not case.refuse and case.expect is not None and code != 0:
        f.append("wrong_outcome")
    if any(len(line) > 2000 for line in err.splitlines()):
        f.append("long_error")
    if case.said is not None and case.said not in err or any(text in out + err for text in case.unsaid):
        f.append("misleading")
    error_lines = [line for line in err.splitlines() if line.startswith("Error:")]
    if code == 1 and error_lines and not err.rstrip("\n").endswith(error_lines[-1]):
        f.append("multiline_error")
    after = _digest(folder)
    if any(after.get(name) != digest for name, digest in before.items() if name in inputs):
        f.append("input_modified")
    written = {name for name in after if name not in before}
    texts = [out, err]
    for name in written:
        if name.endswith((".md", ".html", ".json")):
            texts.append((folder / name).read_text("utf-8", errors="replace"))
    if any(has_raw_controls(t) for t in texts):
        f.append("raw_control")
    if code == 1 and _entries(folder) != entries:
        f.append("leftover")
    if str(folder.resolve()) in err or str(folder) in err or ".probestats-" in err or "/tmp/tmp" in err:
        f.append("temp_path")
    if any(SECRET in t for t in texts):
        f.append("leaked")
    for name in written:
        if name.endswith(".html"):
            page = (folder / name).read_text("utf-8", errors="replace")
            if any(marker in page for marker in HTML_MARKERS):
                f.append("html_marker")
    for check in AFTER_RUN:   # the checks a later block of categories adds, run on every case
        check(case, folder, written, f)
    return outcome


KINDS = ["traceback", "abort", "exit_code", "unexpected", "multiline_error", "input_modified", "raw_control",
         "html_marker", "leftover", "temp_path", "leaked", "wrong_number", "wrong_outcome", "long_error",
         "misleading"]
#: checks run on every case after the ones above: ``check(case, folder, written, failures)``, each appending its
#: kind (a name in :data:`KINDS`) to ``failures``
AFTER_RUN: list = []


def table(outcomes) -> str:
    """Categories x runs and failures of each kind, as a plain-text table."""
    header = ["category", "runs", "exit 0/1/2"] + KINDS + ["peak MB"]
    lines = []
    cats = sorted({o.case.category for o in outcomes}, key=lambda c: CATEGORIES.index(c))
    for cat in cats + ["all"]:
        group = [o for o in outcomes if cat in ("all", o.case.category)]
        codes = "/".join(str(sum(1 for o in group if o.code == c)) for c in (0, 1, 2))
        row = [cat, str(len(group)), codes] + [str(sum(1 for o in group if k in o.failures)) for k in KINDS]
        row.append(f"{max((o.maxrss_kb for o in group), default=0) / 1024:.0f}")
        lines.append(row)
    widths = [max(len(h), *(len(r[i]) for r in lines)) for i, h in enumerate(header)]
    fmt = "  ".join(f"{{:<{w}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths))
    return "\n".join([fmt.format(*header)] + [fmt.format(*r) for r in lines])


# ---------------------------------------------------------------------------- fourth campaign (issue 52, item 3, 5, 7):
# random settings on degenerate columns, subnormal scores, messages that misled. Each case is refused with a
# one-line Error: that says what to do (``said``), or answered; ``unsaid`` lists what no output may hold.

#: what no output of these cases may hold: a class name, polars' expression text, a library's warning
_NEVER_SAID = ("Analysis for", "ManyAnalysis", "FactorAnalysis", "\\n", "This error occurred", "RuntimeWarning",
               "Precision loss", "DuplicateError", "zero-size array", "no gaps given", "duplicate output name")


def _drawn_rows(rng: random.Random) -> list[dict]:
    """A matched log with a random setting t, a cluster column, a blank column and one different in every row."""
    rows = _rows(rng, items=rng.randint(4, 8), runs=2)
    for k, row in enumerate(rows):
        row.update({"t": rng.choice([0.2, 0.7]), "cl": f"c{int(row['item']) % 3}", "blank": "", "uniq": f"u{k}"})
    return rows


def _random_settings(rng):
    """A random setting that is a role column, blank, different in every run, also the cluster, or named twice."""
    kind = rng.choice(["role", "blank", "unique", "cluster", "setting", "twice"])
    column = {"role": rng.choice(["item", "variant", "steps"]), "blank": "blank", "unique": "uniq"}.get(kind, "t")
    extra = {"cluster": ["--cluster", "t"], "setting": ["--setting", "t"], "twice": ["--random-setting", "t"]}
    said = {"role": "not a setting of the runs drawn at random per call", "blank": "is empty in every run",
            "unique": "no item has runs of both", "cluster": "give the column one role",
            "setting": "give the column one role", "twice": None}[kind]
    command = rng.choice([["analyze", "log.csv", "--json"], ["validate", "log.csv"], ["analyze", "log.csv"]])
    if kind in ("blank", "unique", "twice", "cluster", "setting"):
        command = ["analyze", "log.csv"]   # the analysis alone takes a cluster and held-fixed settings
    argv = [*command, "--metric", "steps", "--random-setting", column, *extra.get(kind, [])]
    return Case("random_settings", argv, {"log.csv": _csv(_drawn_rows(rng))}, note=kind, said=said,
                refuse=kind != "twice", unsaid=_NEVER_SAID)


_SUBNORMAL = ["0", "5e-324", "1e-323"]


def _subnormal_scores(rng):
    """Scores cycling 0, 5e-324, 1e-323 (two values or three, one run or several): refused with the scaling."""
    values = rng.choice([("a", "b"), ("a", "b", "c")])
    runs = rng.randint(1, 3)
    start = rng.randrange(3)
    rows, k = [], start
    for i in range(rng.randint(4, 10)):
        for v in values:
            for _ in range(runs):
                rows.append({"item": f"i{i}", "variant": v, "score": _SUBNORMAL[k % 3]})
                k += 1 + (rng.random() < 0.3)
    # item i0's values differ (0 against 1e-323 in every run): a log of equal scores is answered (no gap)
    for row in rows:
        if row["item"] == "i0":
            row["score"] = "0" if row["variant"] == "a" else "1e-323"
    extra = rng.choice([[], ["--per-item"], ["--json"]]) if len(values) == 2 else [["--json"], []][rng.randrange(2)]
    argv = ["analyze", "log.csv", "--metric", "score", *extra]
    return Case("subnormal_scores", argv, {"log.csv": _csv(rows)}, note=f"{len(values)} values x {runs} runs",
                refuse=True, said="too small to compute with", unsaid=_NEVER_SAID)


def _rounds_log(rng, mixed: bool) -> bytes:
    records = []
    for i in range(rng.randint(4, 8)):
        for v in ("a", "b"):
            rounds = [{"score": rng.randint(0, 4) + (v == "a"), **({"note": "retry"} if rng.random() < 0.4 else {})}
                      for _ in range(rng.randint(1, 3))]
            if mixed and i == 1:
                rounds[0]["score"] = "high"
            records.append({"item": f"i{i}", "variant": v, "rounds": rounds})
    return json.dumps(records).encode()


def _misleading_messages(rng):
    """The inputs whose messages misled: each refusal must say the fix in the user's words (``said``)."""
    kind = rng.choice(["float_max_blocks", "explode_keys", "explode_types", "explode_advice", "truncated_eval",
                       "design_table", "utf16_book", "five_metrics", "constant_runs"])
    files: dict[str, bytes] = {}
    said, refuse = None, True
    if kind == "float_max_blocks":
        rows = [{"item": f"i{i}", "variant": v, "model": m, "score": 1.7e308 if (i + (v == "a")) % 2 else -1.7e308}
                for i in range(rng.randint(3, 6)) for v in "ab" for m in ("m1", "m2")]
        files["log.csv"] = _csv(rows)
        argv, said = ["analyze", "log.csv", "--metric", "score"], "rescale the metric"
    elif kind in ("explode_keys", "explode_types"):
        files["log.json"] = _rounds_log(rng, mixed=kind == "explode_types")
        argv = ["analyze", "log.json", "--explode", "rounds", "--column", "score=rounds.score", "--metric", "score"]
        # a key of two types is refused ("give each key one type", or "'high' is not a number" when the text
        # comes first and the column is read as text); polars' own text is in no output (unsaid)
        refuse = kind == "explode_types"
    elif kind == "explode_advice":
        files["log.json"] = _rounds_log(rng, mixed=False)
        metric = rng.choice(["rounds", "rounds.score", "score"])
        argv = ["analyze", "log.json", "--metric", metric, *rng.choice([[], ["--explode", "rounds"]])]
        said = "--column score=rounds.score --metric score"
    elif kind == "truncated_eval":
        whole = (ROOT / "tests" / "data" / "frameworks" / "style_probe.eval").read_bytes()
        files["run.eval"] = whole[: rng.choice([0, 22, 1000, len(whole) // 2, len(whole) - 30])]
        argv, said = ["analyze", "run.eval", "--metric", "steps"], "truncated or corrupt"
    elif kind == "design_table":
        key = rng.choice(["settings", "attribute_settings", "random_settings", "by", "cluster"])
        files["log.csv"] = _csv(_rows(rng))
        files["design.toml"] = f"{key} = {{a = 1}}\n".encode()
        argv = ["report", "log.csv", "--metric", "steps", "--design", "design.toml", "-o", "out.md"]
        said = "given on the command line, for example"
    elif kind == "utf16_book":
        replies = [{"item": i, "variant": v, "reply": rng.choice(["yes", "no"])} for i in range(5) for v in "ab"]
        files["log.csv"] = _csv(replies)
        files["book.csv"] = "pattern,label,score\nyes,agree,1\nno,disagree,0\n".encode(
            rng.choice(["utf-16", "utf-16-le", "utf-16-be"]))
        argv, said = ["analyze", "log.csv", "--code", "agree=book.csv", "--metric", "agree"], "save it as UTF-8"
    elif kind == "five_metrics":
        rows = [{"item": i, "variant": v, **{f"m{k}": rng.randint(0, 5) for k in range(1, 6)}}
                for i in range(6) for v in "abc"]
        files["log.csv"] = _csv(rows)
        argv, said = ["analyze", "log.csv", "--metric", "m1,m2,m3,m4,m5"], "gives a comparison of all 3 values"
    else:   # runs constant within an item under --per-item: no scipy warning, "no run-to-run spread"
        rows = [{"item": i, "variant": v, "score": (0.1 if v == "a" else 0.7) if i < 3 else rng.randint(0, 5) / 10}
                for i in range(6) for v in "ab" for _ in range(3)]
        files["log.csv"] = _csv(rows)
        argv, refuse = ["analyze", "log.csv", "--metric", "score", "--per-item"], False
    return Case("misleading_messages", argv, files, note=kind, said=said, refuse=refuse, unsaid=_NEVER_SAID)


CATEGORIES += ["random_settings", "subnormal_scores", "misleading_messages"]
_MAKERS.update({"random_settings": _random_settings, "subnormal_scores": _subnormal_scores,
                "misleading_messages": _misleading_messages})


# ---------------------------------------------------------------------------- the fourth campaign: API types, CSV formulas
#
# api_types: Python calls with arguments of the wrong type (a Probe, a Tests, a job's parameters), run in this
# process: each must answer or be refused with a ProbestatsError (exit 1, one Error: line), never an
# AttributeError or TypeError from inside; the calls the campaign found must be refused naming the parameter.
# csv_formulas: logs whose item and value names are spreadsheet formulas, through every command that writes a
# CSV: no text cell of a written CSV starts a formula (csv_formula), numbers are written as numbers.

import re  # noqa: E402 (the block's own import, with the block)

#: the first word of a case's argv that runs the rest as Python source, in the case's folder (not the command line)
PYTHON_CALL = "__python__"


def _python_call(source: str) -> int:
    """Run ``source``: exit 0 when it ends, 1 with one ``Error:`` line when it raises a ProbestatsError; any other
    exception escapes (a traceback, as for a command)."""
    from probestats.errors import ProbestatsError

    try:
        exec(compile(source, "<case>", "exec"), {"__name__": "case"})
    except ProbestatsError as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    return 0


#: calls the fourth campaign found ending in an internal exception, and what their refusal must name
_API_FOUND = [
    ("probestats.analyze('log.csv', metric='steps', tests=Tests(effect_size=None))", "effect_size=None"),
    ("probestats.analyze('log.csv', metric='steps', probe=Probe(columns={'item': 'nope'}))", "columns={'item': 'nope'}"),
    ("probestats.analyze('log.csv', metric='steps', probe=Probe(columns='item'))", "Probe(columns='item')"),
    ("probestats.analyze('log.csv', metric='steps', probe=Probe(lookup=('w.csv', 'item')))", "Probe(lookup="),
    ("probestats.analyze('log.csv', metric='steps', probe=Probe(skip_rows='1'))", "Probe(skip_rows='1')"),
    ("probestats.analyze('log.csv', metric='steps', probe=Probe(where=5))", "Probe(where=5)"),
    ("probestats.analyze('log.csv', metric='steps', probe=Probe(encoding=5))", "Probe(encoding=5)"),
    ("probestats.analyze('log.csv', metric='steps', probe={'where': 'seed = 1'})", "probe={'where': 'seed = 1'}"),
    ("probestats.analyze('log.csv', metric=1)", "metric=1"),
    ("probestats.analyze('log.csv', metric=None)", "metric=None"),
    ("probestats.analyze('log.csv', metric='steps', progress='yes')", "progress='yes'"),
    ("probestats.report('log.csv', metric='steps', output=123)", "output=123"),
    ("probestats.analyze('log.csv', metric='steps', by='rs')", "'rs'"),
    ("probestats.analyze('log.csv', metric='steps', factor='rs')", "factor"),
    ("probestats.report('log.csv', metric='steps', format='pdf')", "format='pdf'"),
    ("probestats.report('log.csv', metric='steps', output='r.md', format='pdf')", "format='pdf'"),
]
#: values of a wrong type (as source text), and the parameters they are given to
_WRONG = ["5", "1.5", "True", "b'x'", "[1, 2]", "{'a': 1}", "('a', 1)", "object()", "print", "''", "'x'", "-1",
          "float('nan')", "[['a']]"]
_PROBE_FIELDS = ["columns", "where", "derive", "groups", "fold_case", "wide", "wide_attribute", "complete",
                 "framing_columns", "explode", "lookup", "code", "count", "words", "chars", "number",
                 "variant_from", "format", "sheet", "skip_rows", "encoding", "max_cells", "max_columns", "records",
                 "settings", "attribute_settings", "cluster", "random_settings"]
_TESTS_FIELDS = ["alternative", "alpha", "correction", "interval", "effect_size", "n_resamples", "seed"]
_JOBS = {"analyze": ("probestats.analyze('log.csv', metric='steps', {})", ["metric", "by", "factor", "progress",
                                                                          "probe", "tests"]),
         "report": ("probestats.report('log.csv', metric='steps', {})", ["metric", "output", "format", "by",
                                                                         "probe", "tests"]),
         "describe": ("probestats.describe('log.csv', metric='steps', {})", ["metric", "by", "probe"]),
         "validate": ("probestats.validate('log.csv', metric='steps', {})", ["metric", "by", "probe"]),
         "cells": ("probestats.cells('log.csv', metric='steps', {})", ["metric", "by", "output", "probe"]),
         "plan": ("probestats.plan('log.csv', metric='steps', items=[6], runs=[2], sims=20, {})",
                  ["metric", "progress", "plot", "probe"])}


def _api_types(rng):
    files = {"log.csv": _csv(_rows(rng))}
    head = "import probestats\nfrom probestats import Probe, Tests\n"
    if rng.random() < 0.4:   # a call the campaign found: refused, naming the parameter
        call, named = rng.choice(_API_FOUND)
        source = (f"{head}try:\n    {call}\nexcept probestats.ProbestatsError as e:\n"
                  f"    assert {named!r} in str(e), str(e)\n    raise\n")
        return Case("api_types", [PYTHON_CALL, source], files, note=call, refuse=True)
    value = rng.choice(_WRONG)
    kind = rng.choice(["probe", "tests", "job"])
    if kind == "probe":
        call = f"probestats.validate('log.csv', metric='steps', probe=Probe({rng.choice(_PROBE_FIELDS)}={value}))"
    elif kind == "tests":
        call = f"probestats.analyze('log.csv', metric='steps', tests=Tests({rng.choice(_TESTS_FIELDS)}={value}))"
    else:
        template, names = _JOBS[rng.choice(sorted(_JOBS))]
        name = rng.choice(names)
        call = (template.replace("metric='steps', ", "") if name == "metric" else template).format(f"{name}={value}")
    return Case("api_types", [PYTHON_CALL, head + call + "\n"], files, note=call)


#: names a spreadsheet would run as formulas (OWASP's examples and the campaign's)
#: (a tab or a carriage return before one is stripped by the log's reader: tests/test_csv_formulas.py has those)
_FORMULAS = ['=HYPERLINK("http://x","y")', "+1+1", "@SUM(A1)", "-2+3", "=cmd|' /C calc'!A0", "-2", "+2",
             "=1", "@", "-", "'=already", "=\u202e1", "==", "-=x", "''@x", "=A1"]
_NUMBERLIKE = re.compile(r"[-+]?[0-9][0-9.eE+\- ]*|[-+]?(inf|nan)", re.I)


def _csv_formulas(rng):
    names = rng.sample(_FORMULAS, k=4)
    items = 45 if rng.random() < 0.7 else 6   # beyond 40 items a report writes its whole tables as CSV beside it
    values = ("formal", "casual") if rng.random() < 0.6 else ("a", rng.choice(["=b", "+b", "@b", "-b"]), "c")
    model = rng.choice(["m1", "=m1", "@model"])
    rows = []
    for i in range(items):
        for value in values:
            for seed in (1, 2, 3):
                rows.append({"item": names[i] if i < len(names) else str(i), "variant": value, "seed": seed,
                             "model": model, "steps": rng.randint(0, 9) + (value == values[0])})
    kind = rng.choice(["cells", "cells_runs", "report", "per_item"])
    if kind == "cells":
        argv = ["cells", "log.csv", "--metric", "steps", "-o", "cells.csv"]
    elif kind == "cells_runs":
        argv = ["cells", "log.csv", "--metric", "steps", "--keep-runs", "--by", "model", "-o", "cells.csv"]
    elif kind == "per_item" and len(values) == 2:
        argv = ["report", "log.csv", "--metric", "steps", "--per-item", "-o", "r.md"]
    else:
        argv = ["report", "log.csv", "--metric", "steps", "-o", "r.md"]
        if len(values) == 3:
            argv += ["--reference", "a"]
    return Case("csv_formulas", argv, {"log.csv": _csv(rows)}, note=f"{kind} {names}")


def _formula_cells(case, folder, written, failures) -> None:
    """A text cell of a CSV the run wrote that starts as a formula would (numbers aside): ``csv_formula``."""
    import csv as csv_module

    for name in sorted(written):
        if not name.endswith(".csv"):
            continue
        with open(folder / name, encoding="utf-8", errors="replace", newline="") as handle:
            cells = [cell for row in csv_module.reader(handle) for cell in row]
        if any(cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not _NUMBERLIKE.fullmatch(cell) for cell in cells):
            failures.append("csv_formula")
            return


CATEGORIES += ["api_types", "csv_formulas"]
_MAKERS.update(api_types=_api_types, csv_formulas=_csv_formulas)
KINDS.append("csv_formula")
AFTER_RUN.append(_formula_cells)
