"""The ``probestats`` command: thin wrappers over one library call each.

Library errors become one ``Error:`` line and exit code 1; usage errors exit 2;
nothing else (no traceback) reaches a user.
"""

from __future__ import annotations

import functools
import io
import os
import re
import sys
from pathlib import Path

import click

from probestats import __version__
from probestats.errors import OptionError, ProbestatsError, cli_spelling
from probestats.parameters import GROUPS, PARAMETERS, READ_KEYS, FORMATS
from probestats.jobs.analyze import one_metric
from probestats.jobs.inputs import cell_inputs, is_cells, refuse_row_options

EXIT_DATA = 1
EXIT_USAGE = 2

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

#: The commands whose --metric takes several metrics (one analysis each); the others take one.
MANY_METRICS = ("analyze", "report", "describe")


def _help_all(ctx, param, value) -> None:
    """``--help-all``: the command's help with every option, grouped."""
    if value and not ctx.resilient_parsing:
        ctx.meta["probestats.help_all"] = True
        click.echo(ctx.get_help(), color=ctx.color)
        ctx.exit()


class Command(click.Command):
    """A command that lists its options in the registry's groups: ``--help`` the common ones (the
    registry's ``common``), ``--help-all`` every one."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.params.append(click.Option(["--help-all"], is_flag=True, expose_value=False, is_eager=True,
                                        callback=_help_all, help="Show every option, grouped, and exit."))

    def format_options(self, ctx, formatter) -> None:
        every = ctx.meta.get("probestats.help_all", False)
        groups: dict[str, list] = {name: [] for name in GROUPS}
        hidden = 0
        for param in self.get_params(ctx):
            record = None if isinstance(param, click.Argument) else param.get_help_record(ctx)
            if record is None:
                continue
            known = PARAMETERS.get(param.name)
            if known is not None and not known.common and not every:
                hidden += 1
                continue
            groups[known.group if known is not None else GROUPS[-1]].append(record)
        for name in GROUPS:
            if groups[name]:
                with formatter.section(f"{name} options"):
                    formatter.write_dl(groups[name])
        if hidden:
            formatter.write_paragraph()
            formatter.write_text(f"{hidden} more options: {ctx.command_path} --help-all")


class Group(click.Group):
    command_class = Command



@click.group(cls=Group, context_settings=CONTEXT)
@click.version_option(__version__, "--version", prog_name="probestats")
def cli():
    """Trustworthy statistics from counterfactual bias-probe logs.

    A probe sends inputs that differ in one attribute only (a writing style, a name,
    the framing of a claim) and logs one row per run. probestats checks the log,
    computes per-item gaps with exact tests, sizes probes, and writes report sections
    that never let a null result read like a guarantee.

    \b
    Examples:
      probestats validate sample_logs/style_probe.csv --metric steps
      probestats analyze sample_logs/style_probe.csv --metric steps --noise sample_logs/style_noise.csv
      probestats report sample_logs/style_probe.csv --metric steps -o report.md
    """


# ---------------------------------------------------------------- options, built from the registry


def _click_type(p):
    """The click type of a registered parameter."""
    if p.kind == "choice":
        return click.Choice(p.choices)
    if p.kind in ("path", "folder"):
        return click.Path(path_type=Path)
    if p.kind in ("int", "float"):
        if p.low is None and p.high is None:
            return int if p.kind == "int" else float
        if p.kind == "int":
            return click.IntRange(p.low, p.high)
        return click.FloatRange(p.low, p.high, min_open=p.low_open, max_open=p.high_open)
    return None


def option(name: str, required: bool = False):
    """The click option of the registered parameter ``name`` (:data:`probestats.parameters.PARAMETERS`)."""
    p = PARAMETERS[name]
    decls = [f"{p.flag}/--no-{p.flag[2:]}"] if p.kind == "switch" else list(p.flags)
    kwargs: dict = {"help": p.help, "required": required}
    if p.kind == "flag":
        kwargs["is_flag"] = True
    else:
        kwargs.update(type=_click_type(p), metavar=p.metavar, multiple=p.multiple, nargs=p.nargs)
        if p.default is not None:
            kwargs.update(default=p.default, show_default=True)
    if p.parse:
        kwargs["callback"] = PARSERS[p.parse]
    return click.option(*decls, p.name, **kwargs)


def options(*names: str, required: tuple = ()):
    """Add the registered parameters ``names`` to a command, in this order (``required``: those it needs)."""
    unknown = set(required) - set(names)
    assert not unknown, unknown

    def decorate(func):
        for name in reversed(names):
            func = option(name, required=name in required)(func)
        return func

    return decorate


def _parse_metric(ctx, param, values):
    """``--metric``: the names given (analyze and report take several), or the one name."""
    if ctx.command.name in MANY_METRICS:
        return values
    from probestats.analyses.metrics import split_metrics

    names = split_metrics(values) if values else []
    if len(names) > 1:
        raise click.BadParameter(f"'{','.join(names)}': {ctx.command_path} takes one metric; run it once per "
                                 "metric (analyze and report take several)")
    return names[0] if names else None


def _parse_columns(values) -> dict[str, str]:
    mapping = {}
    for value in values or ():
        if "=" not in value:
            raise click.BadParameter(f"'{value}': expected canonical=Header, for example item=\"Question #\"",
                                     param_hint="--column")
        key, header = value.split("=", 1)
        mapping[key.strip()] = header
    return mapping


def _check_encoding(ctx, param, value):
    """An unknown encoding is a usage error (exit 2), caught before anything is read."""
    if value is not None:
        import codecs

        try:
            codecs.lookup(value)
        except LookupError:
            raise click.BadParameter(f"'{value}' is not an encoding Python knows; try utf-8, cp1252 or latin-1")
    return value




def _read_value(key: str, text: str):
    """One ``--read KEY=VALUE``, checked as its own option was (a usage error, exit 2)."""
    if key == "format":
        if text.lower() not in FORMATS:
            raise click.BadParameter(f"format={text}: expected one of {', '.join(FORMATS)}", param_hint="--read")
        return text.lower()
    if key in ("skip-rows", "max-cells", "max-columns"):
        low = 0 if key == "skip-rows" else 1
        if text.strip().isdigit() and len(text.strip().lstrip("0")) > 18:   # int() refuses 4,300 digits
            raise click.BadParameter(f"{key}={text.strip()[:12]}...: {len(text.strip()):,} digits; expected a whole "
                                     "number of at most 18 digits", param_hint="--read")
        if not text.strip().isdigit() or int(text) < low:
            raise click.BadParameter(f"{key}={text}: expected a whole number of at least {low}", param_hint="--read")
        return int(text)
    if key == "encoding":
        return _check_encoding(None, None, text)
    return text


def _parse_read(ctx, param, values) -> dict:
    """``--read KEY=VALUE`` (repeatable): how every file is read."""
    read: dict = {}
    for value in values or ():
        key, sep, text = value.partition("=")
        key = key.strip().replace("_", "-")
        if not sep or key not in READ_KEYS:
            raise click.BadParameter(f"'{value}': expected KEY=VALUE with KEY one of {', '.join(READ_KEYS)}, "
                                     "for example --read sheet=Results --read skip-rows=2", param_hint="--read")
        read[key] = _read_value(key, text)
    return read


TEXT_KINDS = ("words", "chars", "count", "number", "prompt")


def _parse_from_text(ctx, param, values) -> dict:
    """``--from-text NAME=KIND[:REGEX]`` (repeatable) as the Probe's count, words, chars, number and
    variant_from rules."""
    rules: dict = {kind: () for kind in TEXT_KINDS}
    for value in values or ():
        name, sep, rule = value.partition("=")
        kind, colon, regex = rule.partition(":")
        kind = kind.strip()
        if not sep or not name.strip() or kind not in TEXT_KINDS or (kind in ("words", "chars")) == bool(colon):
            raise OptionError(f"--from-text '{value}': expected NAME=words, NAME=chars, NAME=count:REGEX, "
                              "NAME=number:REGEX or VALUE=prompt:REGEX, for example --from-text 'steps=count:^\\d+[.)]'")
        rules[kind] = (*rules[kind], name if kind in ("words", "chars") else f"{name}={regex}")
    return rules


#: The parameters that say how a log is read and what it means (the Probe), in the order the help lists them.
SHAPING = ("read_given", "column", "where", "derive", "from_text", "fold_case", "group", "wide", "complete",
           "explode", "lookup", "code")


def _read(read_given, column) -> dict:
    """``--read KEY=VALUE`` and ``--column`` as the read options of the Probe."""
    given = read_given or {}
    read = {"format": given.get("format"), "sheet": given.get("sheet"), "skip_rows": given.get("skip-rows", 0),
            "columns": _parse_columns(column), "encoding": given.get("encoding")}
    for key in ("max-cells", "max-columns", "records", "file-pattern"):
        if key in given:
            read[key.replace("-", "_")] = given[key]
    return read


def shape_options(func):
    """Add the options that say how a log is read and what it means (the Probe) to a command.

    The command receives ``probe``: a :class:`probestats.shape.probe.Probe` applied alike to every
    log it reads (the probe, --noise, --pilot, before and after).
    """

    @options(*SHAPING)
    @functools.wraps(func)
    def wrapper(*args, read_given=None, column=(), where=None, derive=(), from_text=None, fold_case=False, group=(),
                wide=(), complete=False, explode=(), lookup=(), code=(), **kwargs):
        from probestats.shape.probe import Probe

        read = _read(read_given, column)
        text = from_text or {kind: () for kind in TEXT_KINDS}
        kwargs["probe"] = Probe(columns=tuple(read["columns"].items()), where=where, derive=tuple(derive),
                                groups=tuple(group), fold_case=fold_case, wide=tuple(wide), complete=complete,
                                explode=tuple(explode), lookup=tuple((f, k) for f, k in lookup), code=tuple(code),
                                count=text["count"], words=text["words"], chars=text["chars"],
                                number=text["number"], variant_from=text["prompt"],
                                format=read["format"], sheet=read["sheet"], skip_rows=read["skip_rows"],
                                encoding=read["encoding"], max_cells=read.get("max_cells"),
                                max_columns=read.get("max_columns"),
                                records=read.get("records"), file_pattern=read.get("file_pattern"))
        return func(*args, **kwargs)

    return wrapper


def logs_argument(name: str = "log", required: bool = True):
    """One log: a file, several files or a folder (read as one, with a 'file' column)."""
    return click.argument(name, nargs=-1, required=required, type=click.Path(dir_okay=True, path_type=Path))


def emit_json(obj) -> None:
    """Print one JSON object on standard output, with the ``schema_version`` of the JSON contract."""
    from probestats.result import document, dumps

    # C1 and bidi controls as \u escapes (json escapes C0 itself): the same JSON, nothing raw on a terminal
    from probestats.present.words.sanitize import json_text

    click.echo(json_text(dumps(document(obj))))


def _refused_problems(exc: ProbestatsError):
    """The coded problems of a refusal about the data, or None for an error about the options."""
    from probestats.errors import ColumnError, Problem, ReadError

    if getattr(exc, "problems", None) is not None:
        return list(exc.problems)
    if isinstance(exc, ReadError):
        return [Problem("error", "unreadable_log", str(exc))]
    if isinstance(exc, ColumnError):
        return [Problem("error", "missing_column", str(exc))]
    return None


def json_refusals(func):
    """With --json, a refusal about the data also prints ``{"schema_version", "ok": false, "problems"}``
    on standard output (the ``Error:`` line still goes to standard error, exit code 1)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except ProbestatsError as exc:
            problems = _refused_problems(exc) if kwargs.get("json_out") else None
            if problems is not None:
                from probestats.result import refusal

                from probestats.present.words.sanitize import json_text

                from probestats.result import dumps

                click.echo(json_text(dumps(refusal(problems))))
            raise

    return wrapper


def write_whole(path: str | Path, content: str | bytes) -> None:
    """Write an output file whole or not at all, after checking that it can go there."""
    from probestats.present.report.files import check_target, write_whole as write

    path = check_target(path, f"-o {path}", "report.md")

    write(path, content)


def outputs_together(func):
    """``--force``, and a command whose outputs (a report and its images) are written together at its end,
    all or none; images of an earlier run that were replaced are said on standard error."""

    @option("force")
    @functools.wraps(func)
    def wrapper(*args, force=False, **kwargs):
        from probestats.present.report.files import written_together

        with written_together(force=force) as outputs:
            rv = func(*args, **kwargs)
        if outputs.replaced:
            names = ", ".join(p.name for p in outputs.replaced)
            console(stderr=True).print(f"replaced images of an earlier run in {_escape(outputs.replaced[0].parent)}: "
                                       f"{_escape(names)}")
        return rv

    return wrapper


def _refuse_inputs(outputs, inputs) -> None:
    """An output that would overwrite a file the command reads is refused before anything is read."""
    from probestats.present.report.files import refuse_inputs

    refuse_inputs(outputs, inputs)


def console(stderr: bool = False):
    from probestats.present.terminal.tables import make_console

    return make_console(stderr)


def _escape(text) -> str:
    from probestats.present.terminal.render import escape

    return escape(text)


# ---------------------------------------------------------------- options read into the library's keywords


def tests_gathered(func):
    """The command's test options (``--alternative``, ``--alpha``, ``--correction``, ``--interval``,
    ``--effect-size``, ``--n-resamples``, ``--seed``: those it declares) gathered into ``tests``, one
    :class:`probestats.Tests`, as its library call takes them."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        from dataclasses import fields

        from probestats.vocabulary import Tests

        given = {f.name: kwargs.pop(f.name) for f in fields(Tests) if f.name in kwargs}
        kwargs["tests"] = Tests(**{k: v for k, v in given.items() if v is not None})
        return func(*args, **kwargs)

    return wrapper


def roles_gathered(func):
    """The command's column roles (``--setting``, ``--setting-is-attribute``, ``--cluster``,
    ``--random-setting``: those it declares) gathered into its ``probe``, as its library call reads them
    (under :func:`shape_options`, which makes the probe)."""

    @functools.wraps(func)
    def wrapper(*args, probe, **kwargs):
        from dataclasses import replace

        from probestats.shape.probe import ROLES

        given = {name: kwargs.pop(name) for name in ROLES if name in kwargs}
        return func(*args, probe=replace(probe, **{k: v for k, v in given.items() if v}), **kwargs)

    return wrapper


def _parse_limits(ctx, param, values) -> dict:
    """``--limit NAME=N`` (repeatable): the limits of probestats.limits this command raises."""
    from probestats.limits import parse_limit

    limits: dict = {}
    for value in values or ():
        try:
            name, number = parse_limit(value)
        except OptionError as exc:
            raise click.BadParameter(str(exc), param_hint="--limit") from None
        limits[name] = number
    return limits


def limit_option(func):
    """Add ``--limit NAME=N``: the command's work runs with those limits raised (:func:`probestats.limits.raised`)."""

    @option("limits")
    @functools.wraps(func)
    def wrapper(*args, limits=None, **kwargs):
        from probestats.limits import raised

        with raised(**(limits or {})):
            return func(*args, **kwargs)

    return wrapper


def _flag_for(key: str) -> str | None:
    """The flag that takes what a key other than a design fact meant (``scale``: --scale, ``judge.order``:
    --order, ``framing.columns``: --framing-columns), or None."""
    name = key.split(".", 1)[-1]
    for candidate in (name, f"{name}s", f"framing_{name}", name.removesuffix("s")):
        if candidate in PARAMETERS and candidate != "facts":
            return PARAMETERS[candidate].flag
    return None


def refuse_key(key: str, where: str) -> None:
    """A key that is not a design fact, refused in one line naming the flag that takes it."""
    from probestats.shape.design import KNOWN_KEYS

    flag = _flag_for(key)
    raise OptionError(f"{where} {key}: not a design fact; "
                      + (f"give it as {flag}" if flag else f"the design facts are {', '.join(KNOWN_KEYS)}"))


def _parse_facts(ctx, param, values) -> dict:
    """``--set KEY=VALUE`` (repeatable) as a dict of design facts; a list fact gathers its repeats. analyze
    reads the one fact its analysis uses, selection."""
    from probestats.shape.design import KNOWN_KEYS, LIST_FIELDS, yes_no

    facts: dict = {}
    for value in values or ():
        key, sep, text = value.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise click.BadParameter(f"'{value}': expected KEY=VALUE, for example --set attribute=\"writing style\"")
        if key not in KNOWN_KEYS:
            refuse_key(key, "--set")
        if ctx.command.name == "analyze":
            if key != "selection":
                raise OptionError(f"--set {key}: analyze reads the design fact selection only; {key} is a fact a "
                                  "report states (give it to probestats report)")
            facts[key] = yes_no(key, text, "--set")
        elif key in LIST_FIELDS:
            facts[key] = (*facts.get(key, ()), text)
        else:
            facts[key] = text
    return facts


def _design(path, facts):
    """The design a command states: its --design file (as a path, read by the job) with the --set facts over
    it, or None for neither."""
    if not facts:
        return path
    from probestats.shape.design import design_from

    return design_from(path, **facts)


def _framing_probe(probe, framing_columns):
    """The probe with --framing-columns, which read a framing log of one row per item."""
    from dataclasses import replace

    return replace(probe, framing_columns=tuple(framing_columns)) if framing_columns else probe


def _check_design_keys(design_file) -> None:
    """A --design file's keys other than design facts, refused naming the flag that takes each."""
    import tomllib

    from probestats.shape.design import KNOWN_KEYS

    try:
        data = tomllib.loads(Path(design_file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError):
        return   # the report says why it cannot read it
    for key, value in data.items():
        if key not in KNOWN_KEYS:
            where = f"--design {design_file}:"
            if isinstance(value, dict) and key in _COLUMN_LISTS:   # settings = {a = 1}: a table where names go
                flag = PARAMETERS[key].flag
                first, second = _COLUMN_LISTS[key]
                raise OptionError(f"{where} {key}: not a design fact, and not a table: " + (
                    f"{key} is a column name given on the command line, for example {flag} {first}"
                    if key == "cluster" else f"{key} is a list of column names given on the command line, for "
                    f"example {flag} {first}" + (f" {flag} {second}" if second else "")))
            refuse_key(f"{key}.{next(iter(value))}" if isinstance(value, dict) and value and not _flag_for(key)
                       else key, where)


#: options that name columns of the log (a --design file's key of these names is told they are flags), with
#: the columns its example names
_COLUMN_LISTS = {"settings": ("persona", "language"), "attribute_settings": ("model", "system"),
                 "random_settings": ("temperature", ""), "by": ("topic", ""), "cluster": ("document", "")}


PARSERS = {"read": _parse_read, "from_text": _parse_from_text, "limits": _parse_limits, "facts": _parse_facts,
           "metric": _parse_metric}


# ---------------------------------------------------------------- commands


@cli.command()
@logs_argument()
@options("metric", "a", "b", "by", "attribute_settings", "random_settings", "json_out")
@json_refusals
@shape_options
@roles_gathered
def validate(log, metric, a, b, by, json_out, probe):
    """Check that LOG is a matched, held-fixed probe; list every problem with its rows.

    Exit code 0 when there are no errors (warnings allowed), 1 when there are.

    \b
    Examples:
      probestats validate sample_logs/style_probe.csv --metric steps
      probestats validate hand_sheet.xlsx --metric steps --read skip-rows=2 --json
    """
    from probestats.jobs.validate import validate as run

    checked = run(log, metric=metric, a=a, b=b, by=by, probe=probe)
    if json_out:
        emit_json(checked)
    else:
        from probestats.present.terminal.render import render_terminal

        render_terminal(checked, console(), chosen=bool(a or b), metric_given=metric is not None)
    if not checked.ok:
        if json_out:  # the JSON above is the refusal; people reading the terminal get its one line
            from probestats.present.words.sanitize import one_line

            errors = checked.errors
            click.echo(f"Error: {len(errors)} validation error{'s' if len(errors) != 1 else ''}: "
                       f"{one_line(errors[0].message)}", err=True)
        raise SystemExit(EXIT_DATA)


@cli.command()
@logs_argument(required=False)
@options("metric", "a", "b", "noise", "noise_value", "settings", "attribute_settings", "by", "alternative", "alpha",
         "correction", "json_out", "reference", "scale", "factor", "n_resamples", "seed", "row_level", "interval",
         "effect_size", "per_item", "validation", "control", "baseline", "cluster", "random_settings", "facts", required=("metric",))
@limit_option
@tests_gathered
@json_refusals
@shape_options
@roles_gathered
def analyze(log, metric, a, b, noise, by, json_out, probe, tests, reference=None, scale=None, factor=(),
            row_level=False, per_item=False, noise_value=None, validation=None, control=None, baseline=None,
            facts=None):
    """Per-item gaps, the exact sign-flip and sign tests, and the noise beside them.

    LOG may be a cell table (from probestats cells, or a warehouse via probestats sql), recognized by
    its columns; its noise reference is then a cell table too (--noise NOISE_CELLS).

    \b
    Examples:
      probestats analyze sample_logs/style_probe.csv --metric steps
      probestats analyze sample_logs/style_probe.csv --metric steps --a formal --b casual \\
          --noise sample_logs/style_noise.csv --json
    """
    from probestats.jobs.analyze import analyze as run
    from probestats.present.terminal.progress import stages

    if not log:
        raise click.UsageError("Missing argument 'LOG...'.")
    with stages(enabled=not json_out) as progress:
        result = run(log, metric=metric, a=a, b=b, noise=noise, by=by, reference=reference, scale=scale,
                     factor=factor, tests=tests, row_level=row_level, per_item=per_item, noise_value=noise_value,
                     validation=validation, control=control, baseline=baseline, probe=probe,
                     design=_design(None, facts), progress=progress)
    emit(result, json_out)


def _judge_options(order, *, response, choice, verdicts, repetition, by, own_first=None,
                   chance=0.5) -> dict | None:
    """A report's judge section (None without --order); the judges are the --by groups."""
    if order is None:
        given = [flag for flag, v in (("--response", response), ("--choice", choice), ("--verdict", verdicts),
                                      ("--repetition", repetition), ("--own-first", own_first),
                                      ("--chance", chance != 0.5)) if v]
        if given:
            raise click.UsageError(f"{given[0]} describes an order probe; add --order COL")
        return None
    return {"order": order, "response": response, "choice": choice, "verdicts": tuple(verdicts), "by": tuple(by),
            "repetition": repetition, "own_first": own_first, "chance": chance}


def emit(result, json_out: bool) -> None:
    """Print a result: its JSON object with --json, else the terminal rendering of its type."""
    if json_out:
        emit_json(result)
    else:
        _print_any(result)


def _print_any(result) -> None:
    """Print whichever analysis analyze produced."""
    from probestats.present.terminal.render import render_terminal

    render_terminal(result, console())


@cli.command()
@logs_argument(required=False)
@options("metric", "a", "b", "noise", "alternative", "alpha", "output", "sections", "design", "facts",
         "framing_log", "by", "correction", "reference", "factor", "n_resamples", "seed", "before_log", "interval",
         "effect_size", "validation", "plain", "control", "baseline", "scale", "templates", "per_item", "noise_value", "settings",
         "attribute_settings", "cluster", "random_settings", "order", "response", "choice", "verdicts", "repetition",
         "own_first", "chance", "targets", "toward", "answers", "label_map", "framing_columns", required=("output",))
@limit_option
@tests_gathered
@shape_options
@roles_gathered
@outputs_together
def report(log, metric, a, b, noise, output, sections, design, facts, probe, tests, framing_log=None, by=(),
           reference=None, factor=(), before_log=None, validation=None, plain=False, control=None, baseline=None,
           scale=None, templates=None, per_item=False, noise_value=None, order=None, response=None, choice=None,
           verdicts=(), repetition=None, own_first=None, chance=0.5, targets=None, toward=None, answers="auto",
           label_map=(), framing_columns=()):
    """Write the report of LOG as Markdown, HTML or JSON (by the suffix of -o), from Jinja templates.

    The report takes every option of the analyses it renders, spelled as they spell it (--scale,
    --per-item; --order and the judge's options for the judge section; --targets and the framing's
    options for the framing section). Missing design facts (attribute, metric definition, attributes
    not tested, ...) show as visible placeholders; give them with --design probe.toml or --set KEY=VALUE.

    \b
    Examples:
      probestats report sample_logs/style_probe.csv --metric steps --noise sample_logs/style_noise.csv -o report.md
      probestats report sample_logs/style_probe.csv --metric steps --set attribute="writing style" -o report.html
      probestats report sample_logs/style_probe.csv --metric steps -o report.html \\
          --framing sample_logs/framing_long.csv --targets sample_logs/framing_targets.csv
    """
    from probestats.jobs.report import report as run
    from probestats.jobs.report import report_format
    from probestats.present.terminal.warm import warm_imports

    # the report's templates, imported while the log is read (the plotting library after it: imported
    # during the pass, its memory would add to the pass's peak)
    warm_imports("probestats.present.report.document")

    if design is not None:
        _check_design_keys(design)
    judge = _judge_options(order, response=response, choice=choice, verdicts=verdicts, repetition=repetition, by=by,
                           own_first=own_first, chance=chance)
    _refuse_inputs({"-o": output}, {"LOG": log, "--noise": noise, "--design": design,
                                    "--framing": framing_log, "--targets": targets, "--before": before_log,
                                    "--validation": validation})
    report_format(output)   # a bad -o is refused before the log is read
    framing_log = tuple(framing_log or ())
    framing_only = bool(framing_log) and not log and not metric and judge is None
    # a cell table as LOG (its --noise and --before cell tables too): the job reads it as a table
    as_cells = cell_inputs(log, noise=noise, before=before_log)[0] is not None
    metric = one_metric(metric, cells=as_cells)
    if not framing_only and not as_cells and not log:
        raise click.UsageError("Missing argument 'LOG...'.")
    if as_cells:
        _report_cells_usage(metric)
    if not framing_only:
        if judge is not None and judge["response"] and judge["choice"]:
            raise click.UsageError("give one of --response and --choice, not both")
        if metric is None and judge is None:
            raise click.UsageError("Missing option '--metric' (or --order COL for a report of an order probe "
                                   "alone).")
    from probestats.present.terminal.progress import stages

    # one library call does the whole job (the same one the local page of `probestats serve` makes); a long
    # one says it is still working (a spinner on a terminal, else a line every few seconds)
    with stages() as progress:
        progress("writing the report")
        run(log, metric=metric, tests=tests, output=output, sections=sections, templates=templates, plain=plain,
            framing_log=framing_log, targets=targets, toward=toward, answers=answers, label_map=label_map,
            judge=judge, before_log=before_log, design=_design(design, facts),
            probe=_framing_probe(probe, framing_columns), a=a, b=b, noise=noise, by=by, reference=reference,
            scale=scale, factor=factor, per_item=per_item, noise_value=noise_value, validation=validation,
            control=control, baseline=baseline)
    console(stderr=True).print(f"wrote {_escape(output)}")


@cli.command()
@options("noise", "metric", "pilot", "a", "b", "heterogeneity", "items", "runs", "gap", "alternative", "alpha",
         "power", "sims", "seed", "plot", "scale", "mechanism", "time_budget", "mdg_range", "json_out",
         required=("metric",))
@tests_gathered
@json_refusals
@shape_options
def plan(noise, metric, pilot, a, b, heterogeneity, items, runs, gap, power, sims, plot, scale, json_out, probe, tests,
         mechanism="auto", mdg_range=True, time_budget=None):
    """Size a probe: the minimum detectable gap (and power at --gap) of each design.

    \b
    Examples:
      probestats plan --noise sample_logs/style_noise.csv --metric steps --items 6,8,12 --runs 5 --runs 20
      probestats plan --noise sample_logs/style_noise.csv --metric steps --pilot sample_logs/style_probe.csv \\
          --items 8 --runs 5,10,20 --gap 0.75 --json
    """
    from probestats.jobs.plan import plan as run
    from probestats.present.words.plan import plan_progress

    if plot and gap is None:
        raise OptionError("--plot draws power at a gap; add --gap G")
    _refuse_inputs({"--plot": plot}, {"--noise": noise, "--pilot": pilot})
    _plan_usage(*cell_inputs((), noise=noise, pilot=pilot)[1:], probe)
    err = console(stderr=True)
    with plan_progress(err) as progress:
        result = run(noise, metric=metric, pilot=pilot, a=a, b=b, heterogeneity=heterogeneity, items=items,
                     runs=runs, gap=gap, power=power, sims=sims, plot=plot, scale=scale, mechanism=mechanism,
                     mdg_range=mdg_range, time_budget=time_budget, tests=tests, probe=probe, progress=progress)
    if plot:
        err.print(f"wrote {_escape(plot)}")
    emit(result, json_out)


@cli.command()
@logs_argument()
@options("by", "toward", "targets", "item", "alpha", "correction", "interval", "label", "response", "score_from",
         "scale", "answers", "label_map", "framing_columns", "json_out")
@tests_gathered
@json_refusals
@shape_options
def framing(log, by, toward, targets, item, label, response, score_from, scale, json_out, probe, tests, answers="auto",
            label_map=(), framing_columns=()):
    """Dual framing: which way a model leans between two targets, how strongly, and whether
    the lean is protective or assertive.

    \b
    Example:
      probestats framing sample_logs/framing_long.csv --targets sample_logs/framing_targets.csv
    """
    from probestats.jobs.framing import framing as run

    emit(run(log, by=by, toward=toward, targets=targets, item=item, label=label, response=response,
             score_from=score_from, scale=scale, answers=answers, label_map=label_map, tests=tests,
             probe=_framing_probe(probe, framing_columns)), json_out)



@cli.command()
@click.argument("before", type=click.Path(path_type=Path))
@click.argument("after", type=click.Path(path_type=Path))
@options("metric", "a", "b", "alternative", "alpha", "output", "json_out", required=("metric",))
@tests_gathered
@json_refusals
@shape_options
def compare(before, after, metric, a, b, output, json_out, probe, tests):
    """Compare a probe BEFORE and AFTER a mitigation: same items, values, seeds and metric, side by side.

    Refuses (exit 1) logs that differ in items, values, seeds or metric. BEFORE and AFTER may both be
    cell tables (from probestats cells or probestats sql), recognized by their columns.

    \b
    Example:
      probestats compare before.csv after.csv --metric steps --a formal --b casual
    """
    from probestats.jobs.compare import compare as run

    _refuse_inputs({"-o": output}, {"BEFORE": before, "AFTER": after})
    as_cells = is_cells(before)
    if as_cells != is_cells(after):
        raise OptionError(f"{before if as_cells else after} is a cell table and "
                          f"{after if as_cells else before} a log: give both as logs or both as cell tables")
    if as_cells:
        refuse_row_options(probe)
    emit(run(before, after, metric=metric, a=a, b=b, output=output, cells=as_cells, tests=tests,
             probe=None if as_cells else probe), json_out)
    if output is not None:
        console(stderr=True).print(f"wrote {_escape(output)}")


# ---------------------------------------------------------------- describe: distributions per value


@cli.command()
@logs_argument()
@options("metric", "bins", "bins_closed", "by", "agreement", "chance", "n_resamples", "seed", "json_out")
@tests_gathered
@json_refusals
@shape_options
def describe(log, metric, bins, bins_closed, by, agreement, chance, json_out, probe, tests):
    """Distributions per value: runs and items, the mean, the count and share of each level, and an exact
    test of whether the distributions differ (within items where the design is matched).

    \b
    Examples:
      probestats describe sample_logs/style_probe.csv --metric steps --bins 0,4,6,12
      probestats describe sample_logs/style_probe.csv --metric steps --bins 0,4,6,12 --bins-closed right
      probestats describe replies.csv --code stance=agree-4 --metric stance --json
      probestats describe scores.csv --metric score --agreement judge
    """
    from probestats.jobs.describe import describe as run

    result = run(log, metric=metric, bins=bins, by=by, tests=tests, probe=probe, bins_closed=bins_closed,
                 agreement=agreement, chance=chance)
    if json_out:
        emit_json(result)
    else:
        from probestats.present.terminal.describe import print_description

        print_description(result, console())


# ---------------------------------------------------------------- judge: order probes on a pairwise judge


def _run_judge(log, *, order, response, choice, verdicts, by, repetition, score, scale, tests, probe, own_first=None,
               chance=0.5):
    from probestats.jobs.judge import judge as run

    try:
        return run(log, order=order, response=response, choice=choice, score=score, verdicts=verdicts, by=by,
                   repetition=repetition, scale=scale, tests=tests, probe=probe, own_first=own_first, chance=chance)
    except OptionError as exc:   # the options that cannot go together are a usage error on the command line
        if str(exc).startswith(("give one of", "--score compares", "--scale belongs")):
            raise click.UsageError(str(exc)) from None
        raise


@cli.command()
@logs_argument()
@options("order", "response", "choice", "score", "verdicts", "by", "repetition", "scale", "own_first", "chance",
         "alpha", "correction", "json_out")
@tests_gathered
@json_refusals
@shape_options
def judge(log, order, response, choice, score, verdicts, by, repetition, scale, own_first, chance, json_out, probe,
          tests):
    """Order probes on a pairwise judge: position consistency, primacy against recency, the order effect.

    Each item is judged with its two answers in both orders (the two values of --order). A
    reply naming no slot, or several, is unparsed: counted and listed, never guessed.

    \b
    Examples:
      probestats judge verdicts.csv --order position --response reply \\
          --verdict "first=[[A]]" --verdict "second=[[B]]" --verdict "tie=[[C]]" --by judge
      probestats judge verdicts.csv --order position --choice winner --verdict first=A --verdict second=B
      probestats judge scores.csv --order position --score score --scale 1:10
      probestats judge self.csv --order order --choice chosen --own-first own_first --by judge
    """
    if order is None:
        raise click.UsageError("Missing option '--order'.")
    if score is None and choice is None and not verdicts:
        raise click.UsageError("say how verdicts are read: --response COL with --verdict \"first=[[A]]\" "
                               "--verdict \"second=[[B]]\", or --choice COL, or --score COL")
    result = _run_judge(log, order=order, response=response, choice=choice, verdicts=verdicts, by=by,
                        repetition=repetition, score=score, scale=scale, tests=tests, probe=probe, own_first=own_first,
                        chance=chance)
    if json_out:
        emit_json(result)
    elif score is not None:
        from probestats.present.terminal.render import print_analysis

        print_analysis(result, console())
    else:
        from probestats.present.terminal.judge import print_judge

        print_judge(result, console())


# ---------------------------------------------------------------- entry point


# --------------------------------------------------------------------------- the cell table


def _report_cells_usage(metric) -> None:
    """report of a cell table: its metric is named (what else cannot go with it, the job refuses)."""
    if metric is None:
        raise click.UsageError("Missing option '--metric' (a cell table holds one metric).")


def _plan_usage(noise_cells, noise, pilot_cells, pilot, probe) -> None:
    """plan's noise and pilot: logs or cell tables, one of each kind (usage errors)."""
    if noise is None and noise_cells is None:
        raise click.UsageError("Missing option '--noise' (a log, or a cell table built with its runs).")
    if noise_cells is None and pilot_cells is None:
        return
    if noise_cells is not None and pilot is not None or pilot_cells is not None and noise is not None:
        raise click.UsageError("give the noise and the pilot both as logs or both as cell tables")
    refuse_row_options(probe)


@cli.command()
@logs_argument()
@options("metric", "by", "output", "keep_runs", required=("metric", "output"))
@shape_options
def cells(log, metric, by, output, probe, keep_runs=False):
    """Summarize a log into its cell table: one row per item x value (x --by group), exact sums.

    \b
    Examples:
      probestats cells sample_logs/style_probe.csv --metric steps -o cells.parquet
      probestats analyze cells.parquet --metric steps
    """
    from probestats.jobs.cells import cells as run
    from probestats.present.terminal.warm import warm_imports

    warm_imports("probestats.present.terminal.render")   # the closing line's printer, while the log is read
    built = run(log, metric=metric, by=by, output=output, keep_runs=keep_runs, probe=probe)
    if built.checked.problems:
        from probestats.present.terminal.render import print_problems

        print_problems(built.checked.problems, built.checked.log.source)
    console(stderr=True).print(f"{built.table.height} cells written to {_escape(output)}")


@cli.command()
@options("dialect", "table", "metric", "by", "where", "derive", "column", "order_column", "places", "no_seed",
         "with_time", "keep_runs", "keep_settings", required=("table", "metric"))
def sql(dialect, table, metric, by, where, derive, column, order_column, places, no_seed=False, with_time=False,
        keep_runs=False, keep_settings=()):
    """Print the SQL that builds the cell table in a warehouse, and validation queries to run there.

    \b
    Examples:
      probestats sql --dialect duckdb --table logs --metric steps
      probestats sql --dialect spark --table db.logs --metric score --by model --run-order run_id
    """
    from probestats.jobs.sql import sql as run

    click.echo(run(table=table, metric=metric, dialect=dialect, by=by, where=where, derive=derive,
                   columns=_parse_columns(column), order_column=order_column, places=places, no_seed=no_seed,
                   with_time=with_time, keep_runs=keep_runs, keep_settings=keep_settings), nl=False)


@cli.command()
@options("port", "host", "open_browser", "max_mb")
def serve(port, host, open_browser, max_mb):
    """A local web page: upload a log or spreadsheet, map its columns, check it, get the report and size
    the next probe, without writing a command (each step shows the command that does the same).

    Needs the serve extra: pip install "probestats[serve]". Stops with Ctrl-C.

    \b
    Example:
      probestats serve --open
    """
    from probestats.serve import serve as run

    out, err = console(), console(stderr=True)
    try:
        run(host=host, port=port, open_browser=open_browser, max_mb=max_mb,
            announce=lambda text: out.print(_escape(text), highlight=False, soft_wrap=True),
            warn=lambda text: err.print(_escape(text), highlight=False))
    except KeyboardInterrupt:
        pass
    err.print("stopped; the uploaded files were deleted")



def reference() -> str:
    """The command-line reference in Markdown: each command's help with every option, in the groups
    ``--help-all`` shows them (the documentation site's CLI page is made by this).

    >>> "## probestats analyze" in reference() and "Input and shaping options" in reference()
    True
    """
    parts = ["Every command and every option, as `--help-all` prints them, in the same groups. "
             "`--help` shows the common options of a command and says how many more there are.\n"]
    for name, command in sorted(cli.commands.items()):
        with click.Context(command, info_name=f"probestats {name}", terminal_width=100,
                           max_content_width=100) as ctx:
            ctx.meta["probestats.help_all"] = True
            parts.append(f"## probestats {name}\n\n```text\n{ctx.get_help()}\n```\n")
    return "\n".join(parts)


#: The longest unbroken run of characters a usage error echoes whole: a value of 5,000 digits is shown by its
#: first characters and its length, so the message stays one readable line.
ECHOED = 120


def _shortened(text: str) -> str:
    """``text`` with every run of more than :data:`ECHOED` non-blank characters cut to its start and its length.

    >>> _shortened("Error: '" + "9" * 5000 + "' is not a valid integer range.")
    "Error: '9999999999999999999... (5,002 characters) is not a valid integer range."
    >>> _shortened("Error: '12' is not a valid integer range.")
    "Error: '12' is not a valid integer range."
    """
    return re.sub(r"\S{%d,}" % (ECHOED + 1), lambda m: f"{m[0][:20]}... ({len(m[0]):,} characters)", text)


def main(argv=None) -> int:
    """Run the command line; return the exit code (``python -m probestats`` and the script call it)."""
    import warnings

    try:
        with cli_spelling(), warnings.catch_warnings():  # library errors name flags, not Python parameters
            # floating-point overflow (values near 1e308) is an error of the input, reported as one line below
            warnings.filterwarnings("error", message="overflow encountered", category=RuntimeWarning)
            rv = cli.main(args=argv, prog_name="probestats", standalone_mode=False)
        code = rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.ClickException as exc:
        from probestats.present.words.sanitize import visible

        shown = io.StringIO()
        exc.show(file=shown)  # usage errors quote the values given: their controls are shown as escapes
        click.echo(visible(_shortened(shown.getvalue()), keep_newlines=True), err=True, nl=False)
        code = exc.exit_code if isinstance(exc, click.UsageError) else EXIT_USAGE
    except click.exceptions.Abort:
        click.echo("Error: aborted", err=True)
        code = EXIT_DATA
    except ProbestatsError as exc:
        from probestats.present.words.sanitize import one_line

        click.echo(f"Error: {one_line(exc)}", err=True)  # one line, whatever a header or value holds
        code = EXIT_DATA
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else EXIT_DATA
    except BrokenPipeError:
        code = 0
    except KeyboardInterrupt:
        click.echo("Error: interrupted", err=True)
        code = 130
    except (OverflowError, RecursionError, RuntimeWarning) as exc:  # beyond floating point; beyond the stack
        from probestats.present.words.sanitize import one_line

        what = ("the input is nested too deeply to process" if isinstance(exc, RecursionError)
                else "a number in the input is too large to compute with")
        # the first line of the reason: polars adds the expression it was computing on lines of its own
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        click.echo(f"Error: {what} ({one_line(reason)}); rescale the metric or simplify the input", err=True)
        code = EXIT_DATA
    except MemoryError:
        click.echo("Error: out of memory; read fewer columns or split the log", err=True)
        code = EXIT_DATA
    except Exception as exc:  # a bug: still one line, never a traceback
        if os.environ.get("PROBESTATS_DEBUG"):
            raise
        from probestats.present.words.sanitize import one_line

        text = one_line(str(exc).splitlines()[0]) if str(exc).strip() else ""
        click.echo(f"Error: unexpected {type(exc).__name__}: {text} (set PROBESTATS_DEBUG=1 for details and "
                   "report it)", err=True)
        code = EXIT_DATA
    except BaseException as exc:  # a library's panic, raised through pyo3 as a BaseException
        if type(exc).__name__ != "PanicException" or os.environ.get("PROBESTATS_DEBUG"):
            raise
        from probestats.present.words.sanitize import one_line

        text = one_line(" ".join(str(exc).split()))[:200]
        click.echo(f"Error: a library failed on this input ({text}); check that the file is not damaged", err=True)
        code = EXIT_DATA
    sys.stdout.flush()
    return code


def run() -> None:  # pragma: no cover - the console script
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
