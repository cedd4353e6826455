"""The ``probestats`` command: thin wrappers over one library call each.

Library errors become one ``Error:`` line and exit code 1; usage errors exit 2;
nothing else (no traceback) reaches a user.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib
import importlib.util
import inspect
import io
import os
import re
import sys
from pathlib import Path

import click

from probestats import __version__
from probestats.errors import ColumnError, OptionError, ProbestatsError, Problem, ReadError, cli_spelling
from probestats.limits import parse_limit, raised
from probestats.parameters import ARGUMENTS, FORMATS, GROUPS, PARAMETERS, READ_KEYS, TEXT_KINDS, parameter
from probestats.present.terminal.progress import stages
from probestats.present.words.sanitize import json_text, one_line, visible
from probestats.result import document, dumps, refusal
from probestats.shape.design import KNOWN_KEYS, LIST_FIELDS, design_from, yes_no
from probestats.vocabulary import Tests

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
    if p.parse in KEY_VALUES:
        return KEY_VALUES[p.parse]
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


def flag(name: str) -> str:
    """The flag of a registered parameter as messages name it (``-o`` for ``output``).

    >>> flag("read_given"), flag("output"), flag("facts")
    ('--read', '-o', '--set')
    """
    return PARAMETERS[name].short


def _gathered(ctx, param, values):
    """The uses of a ``KEY=VALUE`` option gathered as its type says (:meth:`KeyValue.gather`)."""
    return param.type.gather(ctx, values or ())


def click_option(name: str, required: bool = False) -> click.Option:
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
    if p.parse in KEY_VALUES:
        kwargs["callback"] = _gathered
    elif p.parse:
        kwargs["callback"] = PARSERS[p.parse]
    return click.Option([*decls, p.name], **kwargs)


def _parse_metric(ctx, param, values):
    """``--metric``: the names given (analyze and report take several), or the one name."""
    if ctx.command.name in MANY_METRICS:
        return values
    # lazy: analyses.metrics is not for --help, which imports no polars
    from probestats.analyses.metrics import split_metrics

    names = split_metrics(values) if values else []
    if len(names) > 1:
        raise click.BadParameter(f"'{','.join(names)}': {ctx.command_path} takes one metric; run it once per "
                                 "metric (analyze and report take several)")
    return names[0] if names else None


PARSERS = {"metric": _parse_metric}


# ---------------------------------------------------------------- the one KEY=VALUE grammar


class KeyValue(click.ParamType):
    """``KEY=VALUE``, the grammar of every option that takes one (``--read``, ``--set``, ``--limit``,
    ``--column``, ``--from-text``): each use is split at its first ``=`` and checked by ``check(key, text,
    given, ctx)`` into a ``(key, value)`` pair, or refused; the uses of the option are gathered by
    ``gather(pairs, ctx)`` (by default into a dict, a later use of a key over an earlier one).

    Examples
    --------
    >>> pairs = KeyValue("pairs", lambda key, text, given, ctx: (key.strip(), text))
    >>> pairs.convert("a = 1", None, None), pairs.gather(None, [("a", "1"), ("b", "2=3")])
    (('a', ' 1'), {'a': '1', 'b': '2=3'})
    """

    def __init__(self, name: str, check, gather=None):
        self.name = name
        self.check = check
        self._gather = gather

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):   # a default, or a value converted already
            return value
        key, sep, text = str(value).partition("=")
        if not sep:
            key, text = key, None
        return self.check(key, text, str(value), ctx)

    def gather(self, ctx, pairs):
        """The uses of the option, as the command takes them."""
        if self._gather is not None:
            return self._gather(pairs, ctx)
        return dict(pairs)


def _check_encoding(value: str) -> str:
    """An unknown encoding is a usage error (exit 2), caught before anything is read."""
    import codecs

    try:
        codecs.lookup(value)
    except LookupError:
        raise click.BadParameter(f"'{value}' is not an encoding Python knows; try utf-8, cp1252 or latin-1")
    return value


def _read_pair(key, text, given, ctx):
    """One ``--read KEY=VALUE``, checked as its own option was (a usage error, exit 2)."""
    key, read = key.strip().replace("_", "-"), flag("read_given")
    if text is None or key not in READ_KEYS:
        raise click.BadParameter(f"'{given}': expected KEY=VALUE with KEY one of {', '.join(READ_KEYS)}, "
                                 f"for example {read} sheet=Results {read} skip-rows=2", param_hint=read)
    if key == "format":
        if text.lower() not in FORMATS:
            raise click.BadParameter(f"format={text}: expected one of {', '.join(FORMATS)}", param_hint=read)
        return key, text.lower()
    if key in ("skip-rows", "max-cells", "max-columns"):
        low = 0 if key == "skip-rows" else 1
        if text.strip().isdigit() and len(text.strip().lstrip("0")) > 18:   # int() refuses 4,300 digits
            raise click.BadParameter(f"{key}={text.strip()[:12]}...: {len(text.strip()):,} digits; expected a whole "
                                     "number of at most 18 digits", param_hint=read)
        if not text.strip().isdigit() or int(text) < low:
            raise click.BadParameter(f"{key}={text}: expected a whole number of at least {low}", param_hint=read)
        return key, int(text)
    if key == "encoding":
        return key, _check_encoding(text)
    return key, text


def _column_pair(key, text, given, ctx):
    """One ``--column CANONICAL=HEADER``."""
    if text is None:
        raise click.BadParameter(f"'{given}': expected canonical=Header, for example item=\"Question #\"",
                                 param_hint=flag("column"))
    return key.strip(), text


def _text_pair(name, rule, given, ctx):
    """One ``--from-text NAME=KIND[:REGEX]``: (KIND, the Probe's rule)."""
    kind, colon, regex = (rule or "").partition(":")
    kind = kind.strip()
    if rule is None or not name.strip() or kind not in TEXT_KINDS.values() or (kind in ("words", "chars")) == bool(colon):
        raise OptionError(f"{flag('from_text')} '{given}': expected NAME=words, NAME=chars, NAME=count:REGEX, "
                          f"NAME=number:REGEX or VALUE=prompt:REGEX, for example {flag('from_text')} "
                          "'steps=count:^\\d+[.)]'")
    return kind, name if kind in ("words", "chars") else f"{name}={regex}"


def _text_rules(pairs, ctx) -> dict:
    """The ``--from-text`` rules by the Probe's field (count, words, chars, number, variant_from)."""
    return {field: tuple(rule for kind, rule in pairs if kind == text_kind) for field, text_kind in TEXT_KINDS.items()}


def _limit_pair(key, text, given, ctx):
    """One ``--limit NAME=N``: a limit of probestats.limits this command raises."""
    try:
        return parse_limit(given)
    except OptionError as exc:
        raise click.BadParameter(str(exc), param_hint=flag("limits")) from None


def _fact_pair(key, text, given, ctx):
    """One ``--set KEY=VALUE``, a design fact; analyze reads the one fact its analysis uses, selection."""
    key, given_as = key.strip().replace("-", "_"), flag("facts")
    if text is None or not key:
        raise click.BadParameter(f"'{given}': expected KEY=VALUE, for example {given_as} attribute=\"writing style\"")
    if key not in KNOWN_KEYS:
        refuse_key(key, given_as)
    if ctx.command.name == "analyze":
        if key != "selection":
            raise OptionError(f"{given_as} {key}: analyze reads the design fact selection only; {key} is a fact a "
                              "report states (give it to probestats report)")
        return key, yes_no(key, text, given_as)
    return key, text


def _facts(pairs, ctx) -> dict:
    """The design facts given; a list fact gathers its repeats."""
    facts: dict = {}
    for key, value in pairs:
        facts[key] = (*facts.get(key, ()), value) if key in LIST_FIELDS and ctx.command.name != "analyze" else value
    return facts


#: The KEY=VALUE options, by the registry's ``parse``: one grammar, checked per key.
KEY_VALUES = {"read": KeyValue("read", _read_pair), "column": KeyValue("column", _column_pair),
              "from_text": KeyValue("from_text", _text_pair, _text_rules),
              "limits": KeyValue("limits", _limit_pair), "facts": KeyValue("facts", _fact_pair, _facts)}


# ---------------------------------------------------------------- a command from its job


#: The parameters that say how a log is read and what it means (the Probe), given to every command whose job
#: takes a probe.
SHAPING = ("read_given", "column", "where", "derive", "from_text", "fold_case", "group", "wide", "complete",
           "explode", "lookup", "code")


def _probe(given: dict):
    """The Probe of the shaping options given (popped from ``given``), and the Probe's other fields the
    command takes (its column roles, --framing-columns)."""
    from dataclasses import fields

    from probestats.shape.probe import Probe   # lazy: shape.probe is not for --help, which imports no polars

    read = given.pop("read_given", None) or {}
    text = given.pop("from_text", None) or _text_rules((), None)
    fields_given = {f.name: given.pop(f.name) for f in fields(Probe) if f.name in given and f.name not in SHAPING}
    return Probe(columns=tuple((given.pop("column", None) or {}).items()), where=given.pop("where", None),
                 derive=tuple(given.pop("derive", ())), groups=tuple(given.pop("group", ())),
                 fold_case=given.pop("fold_case", False), wide=tuple(given.pop("wide", ())),
                 complete=given.pop("complete", False), explode=tuple(given.pop("explode", ())),
                 lookup=tuple((f, k) for f, k in given.pop("lookup", ())), code=tuple(given.pop("code", ())),
                 count=text["count"], words=text["words"], chars=text["chars"], number=text["number"],
                 variant_from=text["variant_from"], format=read.get("format"), sheet=read.get("sheet"),
                 skip_rows=read.get("skip-rows", 0), encoding=read.get("encoding"), max_cells=read.get("max-cells"),
                 max_columns=read.get("max-columns"), records=read.get("records"),
                 file_pattern=read.get("file-pattern"), **{k: tuple(v) if isinstance(v, (list, tuple)) else v
                                                           for k, v in fields_given.items() if v})


def _tests(given: dict):
    """The test options given (popped from ``given``) as one :class:`probestats.Tests`."""
    from dataclasses import fields

    return Tests(**{f.name: v for f in fields(Tests) if f.name in given and (v := given.pop(f.name)) is not None})


def _registered(name: str) -> str | None:
    known = parameter(name)
    return known.name if known is not None else None


def job_options(job, *, renders=(), takes=(), leave=()) -> list[str]:
    """The registered parameters of a command, in the registry's order: those of its job's signature (and of
    the jobs whose sections it ``renders``), the shaping parameters when the job takes a ``probe``, and
    ``takes``: the fields of the job's ``tests`` and ``probe`` it reads, and options of the command line's
    own (``json_out``); less ``leave``.

    >>> from probestats.jobs.sql import sql
    >>> job_options(sql)
    ['column', 'where', 'derive', 'dialect', 'table', 'metric', 'by', 'keep_runs', 'order_column', 'places', 'no_seed', 'with_time', 'keep_settings']
    """
    names = set(takes)
    for one in (job, *renders):
        signature = inspect.signature(one).parameters
        names |= {known for name in signature if (known := _registered(name)) is not None}
        if "probe" in signature:
            names |= set(SHAPING)
    names -= set(leave)
    return [name for name in PARAMETERS if name in names]


def _arguments(job, log_required: bool) -> list[click.Argument]:
    """The job's positional parameters the registry does not know, as the command's arguments: a ``log`` is
    a file, several files or a folder (read as one, with a 'file' column); another (``before``) one file."""
    out = []
    for name, p in inspect.signature(job).parameters.items():
        if p.kind is not p.POSITIONAL_OR_KEYWORD or _registered(name) is not None:
            continue
        if name == "log":
            out.append(click.Argument([name], nargs=-1, required=log_required,
                                      type=click.Path(dir_okay=True, path_type=Path)))
        else:
            out.append(click.Argument([name], type=click.Path(path_type=Path)))
    return out


def _required(job) -> set[str]:
    """The job's keyword parameters without a default: the command requires their options."""
    return {known for name, p in inspect.signature(job).parameters.items()
            if p.kind is p.KEYWORD_ONLY and p.default is p.empty and (known := _registered(name)) is not None}


def job_command(body, job, *, renders=(), takes=(), leave=(), required=(), optional=(), log_required=True,
                name: str | None = None) -> Command:
    """The click command that runs ``body(run, **given)``, ``run`` being ``job``: its options are the
    registered parameters :func:`job_options` finds, each with its registered flag, type, default and help;
    its arguments the job's positional parameters; it requires what the job requires (and ``required``).

    Before ``body`` runs, the shaping options given become one ``probe``, the test options one ``tests``
    (for a job that takes them); ``--limit`` raises its limits around it, ``--force`` writes its outputs
    together, and with ``--json`` a refusal about the data is printed as JSON as well.
    """
    names = job_options(job, renders=renders, takes=takes, leave=leave)
    need = (_required(job) | set(required)) - set(optional)
    signature = inspect.signature(job).parameters
    params = [*_arguments(job, log_required), *(click_option(n, required=n in need) for n in names)]

    #: the job's names of registered parameters it names otherwise (sql's columns: --column)
    renamed = {known: name for name in signature if (known := _registered(name)) not in (None, name)}

    def callback(**given):
        for known, name in renamed.items():
            given[name] = given.pop(known)
        if "probe" in signature:
            given["probe"] = _probe(given)
        if "tests" in signature:
            given["tests"] = _tests(given)
        limits, force = given.pop("limits", None), given.pop("force", None)
        with contextlib.ExitStack() as stack:
            if limits is not None:
                stack.enter_context(raised(**limits))
            if "json_out" in given:
                stack.enter_context(_json_refusals(given["json_out"]))
            outputs = None if force is None else stack.enter_context(_written_together(force))
            rv = body(job, **given)
        if outputs is not None and outputs.replaced:
            replaced = ", ".join(p.name for p in outputs.replaced)
            console(stderr=True).print(f"replaced images of an earlier run in {_escape(outputs.replaced[0].parent)}: "
                                       f"{_escape(replaced)}")
        return rv

    return Command(name or body.__name__, params=params, callback=callback, help=inspect.getdoc(body))


#: How each command is built: its body, the path of its job and how it takes the job's parameters.
SPECS: dict[str, tuple] = {}


def build(name: str) -> Command:
    """The command ``name`` built afresh from its job's signature and the registry, as they are now."""
    body, job_path, how = SPECS[name]
    how = dict(how)
    renders = tuple(job_at(path) for path in how.pop("renders", ()))
    return job_command(body, job_at(job_path), renders=renders, **how)


def command(job_path: str, *, name: str | None = None, **how):
    """Add the command ``body`` to the group, built by :func:`job_command` from the job at ``job_path``
    (``"analyze"``: :func:`probestats.jobs.analyze.analyze`; ``"serve:serve"``: :func:`probestats.serve.serve`),
    under ``name`` (without it, the body's name less its ``_command``: ``analyze_command`` is ``analyze``)."""

    def decorate(body):
        called = name or body.__name__.removesuffix("_command")
        SPECS[called] = (body, job_path, {**how, "name": called})
        cli.add_command(build(called))
        return body

    return decorate


def job_at(path: str):
    """The job function at ``path``: ``"analyze"`` is ``probestats.jobs.analyze.analyze``; ``"serve:serve"``
    names a module of probestats and a function in it. A job whose module is not imported yet is a
    :class:`LazyJob`: its signature read from its source, the module imported when the command runs.

    >>> def shape(signature): return [(p.name, p.kind, p.default is p.empty) for p in signature.parameters.values()]
    >>> read = shape(_source_signature("probestats.jobs.sql", "sql"))
    >>> read == shape(inspect.signature(importlib.import_module("probestats.jobs.sql").sql))
    True
    """
    module, _, function = path.partition(":")
    where = f"probestats.{module}" if function else f"probestats.jobs.{module}"
    name = function or module
    if where in sys.modules:   # imported already (or replaced in a test): the function itself
        return getattr(sys.modules[where], name)
    signature = _source_signature(where, name)
    if signature is None:
        return getattr(importlib.import_module(where), name)
    return LazyJob(where, name, signature)


class LazyJob:
    """A command's job, its module imported when the command runs (the lazy boundary: a command's options are
    its job's signature, read from the job's source, so building the commands and printing their help imports
    no job, nor the polars and numpy a job imports)."""

    def __init__(self, where: str, name: str, signature: inspect.Signature):
        self.where, self.__name__, self.__signature__ = where, name, signature

    def __call__(self, *args, **kwargs):
        return getattr(importlib.import_module(self.where), self.__name__)(*args, **kwargs)


def _source_signature(where: str, name: str) -> inspect.Signature | None:
    """The signature of the function ``name`` defined at the top of module ``where``, read from its source
    without importing the module: names, kinds and whether each has a default (a default stands as ``...``);
    None where the source does not define it plainly.

    >>> _source_signature("probestats.jobs.validate", "validate")
    <Signature (log, *, metric=Ellipsis, a=Ellipsis, b=Ellipsis, by=Ellipsis, probe=Ellipsis)>
    >>> _source_signature("probestats.jobs.validate", "no_such_job") is None
    True
    """
    spec = importlib.util.find_spec(where)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    lines = Path(spec.origin).read_text(encoding="utf-8").splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith(f"def {name}(")), None)
    if start is None:
        return None
    for end in range(start + 1, min(start + 40, len(lines)) + 1):   # the header's lines, to its colon
        try:
            tree = ast.parse("\n".join(lines[start:end]) + "\n    pass")
        except SyntaxError:
            continue
        args = tree.body[0].args
        kind = inspect.Parameter
        given = [*args.posonlyargs, *args.args]
        defaults = [kind.empty] * (len(given) - len(args.defaults)) + [...] * len(args.defaults)
        params = [kind(a.arg, kind.POSITIONAL_ONLY if i < len(args.posonlyargs) else kind.POSITIONAL_OR_KEYWORD,
                       default=d) for i, (a, d) in enumerate(zip(given, defaults))]
        if args.vararg:
            params.append(kind(args.vararg.arg, kind.VAR_POSITIONAL))
        params += [kind(a.arg, kind.KEYWORD_ONLY, default=kind.empty if d is None else ...)
                   for a, d in zip(args.kwonlyargs, args.kw_defaults)]
        if args.kwarg:
            params.append(kind(args.kwarg.arg, kind.VAR_KEYWORD))
        return inspect.Signature(params)
    return None


def emit_json(obj) -> None:
    """Print one JSON object on standard output, with the ``schema_version`` of the JSON contract."""
    # C1 and bidi controls as \u escapes (json escapes C0 itself): the same JSON, nothing raw on a terminal

    click.echo(json_text(dumps(document(obj))))


def _refused_problems(exc: ProbestatsError):
    """The coded problems of a refusal about the data, or None for an error about the options."""
    if getattr(exc, "problems", None) is not None:
        return list(exc.problems)
    if isinstance(exc, ReadError):
        return [Problem("error", "unreadable_log", str(exc))]
    if isinstance(exc, ColumnError):
        return [Problem("error", "missing_column", str(exc))]
    return None


@contextlib.contextmanager
def _json_refusals(json_out: bool):
    """With --json, a refusal about the data also prints ``{"schema_version", "ok": false, "problems"}``
    on standard output (the ``Error:`` line still goes to standard error, exit code 1)."""
    try:
        yield
    except ProbestatsError as exc:
        problems = _refused_problems(exc) if json_out else None
        if problems is not None:
            click.echo(json_text(dumps(refusal(problems))))
        raise


def write_whole(path: str | Path, content: str | bytes) -> None:
    """Write an output file whole or not at all, after checking that it can go there."""
    # lazy: present.report.files is off the paired analysis's path (tests/test_start.py)
    from probestats.present.report.files import check_target, write_whole as write

    path = check_target(path, f"{flag('output')} {path}", "report.md")

    write(path, content)


@contextlib.contextmanager
def _written_together(force: bool):
    """``--force``, and a command whose outputs (a report and its images) are written together at its end,
    all or none (the caller says the images of an earlier run that were replaced)."""
    # lazy: present.report.files is off the paired analysis's path (tests/test_start.py)
    from probestats.present.report.files import written_together

    with written_together(force=force) as outputs:
        yield outputs


def _refuse_inputs(outputs, inputs) -> None:
    """An output that would overwrite a file the command reads is refused before anything is read."""
    # lazy: present.report.files is off the paired analysis's path (tests/test_start.py)
    from probestats.present.report.files import refuse_inputs

    refuse_inputs(outputs, inputs)


def console(stderr: bool = False):
    # lazy: present.terminal.tables is off the paired analysis's path (tests/test_start.py)
    from probestats.present.terminal.tables import make_console

    return make_console(stderr)


def _escape(text) -> str:
    # lazy: present.terminal.render is off the paired analysis's path (tests/test_start.py)
    from probestats.present.terminal.render import escape

    return escape(text)


# ---------------------------------------------------------------- design facts and other keys


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
    taken_by = _flag_for(key)
    raise OptionError(f"{where} {key}: not a design fact; "
                      + (f"give it as {taken_by}" if taken_by else f"the design facts are {', '.join(KNOWN_KEYS)}"))


def _design(path, facts):
    """The design a command states: its --design file (as a path, read by the job) with the --set facts over
    it, or None for neither."""
    if not facts:
        return path

    return design_from(path, **facts)


def _check_design_keys(design_file) -> None:
    """A --design file's keys other than design facts, refused naming the flag that takes each."""
    import tomllib

    try:
        data = tomllib.loads(Path(design_file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError):
        return   # the report says why it cannot read it
    for key, value in data.items():
        if key not in KNOWN_KEYS:
            where = f"{flag('design')} {design_file}:"
            if isinstance(value, dict) and key in _COLUMN_LISTS:   # settings = {a = 1}: a table where names go
                named = flag(key)
                first, second = _COLUMN_LISTS[key]
                raise OptionError(f"{where} {key}: not a design fact, and not a table: " + (
                    f"{key} is a column name given on the command line, for example {named} {first}"
                    if key == "cluster" else f"{key} is a list of column names given on the command line, for "
                    f"example {named} {first}" + (f" {named} {second}" if second else "")))
            refuse_key(f"{key}.{next(iter(value))}" if isinstance(value, dict) and value and not _flag_for(key)
                       else key, where)


#: options that name columns of the log (a --design file's key of these names is told they are flags), with
#: the columns its example names
_COLUMN_LISTS = {"settings": ("persona", "language"), "attribute_settings": ("model", "system"),
                 "random_settings": ("temperature", ""), "by": ("topic", ""), "cluster": ("document", "")}


# ---------------------------------------------------------------- commands


#: The test options (the fields of :class:`probestats.Tests`), for the commands whose job reads them all.
TESTS = tuple(f.name for f in dataclasses.fields(Tests))
#: The Probe's column roles (its fields settings, attribute_settings, cluster, random_settings).
ROLES = ("settings", "attribute_settings", "cluster", "random_settings")


@command("validate", takes=("attribute_settings", "random_settings", "json_out"))
def validate_command(run, log, *, json_out, **job):
    """Check that LOG is a matched, held-fixed probe; list every problem with its rows.

    Exit code 0 when there are no errors (warnings allowed), 1 when there are.

    \b
    Examples:
      probestats validate sample_logs/style_probe.csv --metric steps
      probestats validate hand_sheet.xlsx --metric steps --read skip-rows=2 --json
    """
    checked = run(log, **job)
    if json_out:
        emit_json(checked)
    else:
        # lazy: present.terminal.render is off the paired analysis's path (tests/test_start.py)
        from probestats.present.terminal.render import render_terminal

        render_terminal(checked, console(), chosen=bool(job["a"] or job["b"]), metric_given=job["metric"] is not None)
    if not checked.ok:
        if json_out:  # the JSON above is the refusal; people reading the terminal get its one line
            errors = checked.errors
            click.echo(f"Error: {len(errors)} validation error{'s' if len(errors) != 1 else ''}: "
                       f"{one_line(errors[0].message)}", err=True)
        raise SystemExit(EXIT_DATA)


@command("analyze", takes=(*TESTS, *ROLES, "axes", "json_out", "facts", "limits"), leave=("design",),
         log_required=False)
def analyze_command(run, log, *, json_out, facts, **job):
    """Per-item gaps, the exact sign-flip and sign tests, and the noise beside them.

    LOG may be a cell table (from probestats cells, or a warehouse via probestats sql), recognized by
    its columns; its noise reference is then a cell table too (--noise NOISE_CELLS).

    \b
    Examples:
      probestats analyze sample_logs/style_probe.csv --metric steps
      probestats analyze sample_logs/style_probe.csv --metric steps --a formal --b casual \\
          --noise sample_logs/style_noise.csv --json
    """
    if not log:
        raise click.UsageError("Missing argument 'LOG...'.")
    with stages(enabled=not json_out) as progress:
        result = run(log, **job, design=_design(None, facts), progress=progress)
    emit(result, json_out)


#: A report's options of its judge section (the judge's own, gathered into the report's ``judge``).
JUDGE = ("order", "response", "choice", "verdicts", "repetition", "own_first", "chance")


def _judge_options(job: dict) -> dict | None:
    """A report's judge section, its options popped from ``job`` (None without --order); the judges are the
    --by groups."""
    given = {name: job.pop(name) for name in JUDGE}
    if given["order"] is None:
        named = [flag(name) for name in JUDGE[1:] if (given[name] != 0.5 if name == "chance" else given[name])]
        if named:
            raise click.UsageError(f"{named[0]} describes an order probe; add {flag('order')} COL")
        return None
    return {**given, "verdicts": tuple(given["verdicts"]), "by": tuple(job["by"])}


def emit(result, json_out: bool) -> None:
    """Print a result: its JSON object with --json, else the terminal rendering of its type."""
    if json_out:
        emit_json(result)
    else:
        _print_any(result)


def _print_any(result) -> None:
    """Print whichever analysis analyze produced."""
    # lazy: present.terminal.render is off the paired analysis's path (tests/test_start.py)
    from probestats.present.terminal.render import render_terminal

    render_terminal(result, console())


@command("report", renders=("analyze", "judge"), takes=(*TESTS, *ROLES, "framing_columns", "facts", "limits", "force"),
         leave=("score",), required=("output",), log_required=False)
def report_command(run, log, *, metric, output, design, facts, **job):
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
    # lazy: the command's jobs, imported when the command runs (--help imports no polars)
    from probestats.jobs.analyze import one_metric
    from probestats.jobs.inputs import cell_inputs
    from probestats.jobs.report import report_format

    if design is not None:
        _check_design_keys(design)
    judge = _judge_options(job)
    _refuse_inputs({flag("output"): output}, {ARGUMENTS["log"]: log, flag("design"): design, **{
        flag(name): job[name] for name in ("noise", "framing_log", "targets", "before_log", "validation")}})
    report_format(output)   # a bad -o is refused before the log is read
    job["framing_log"] = tuple(job["framing_log"] or ())
    framing_only = bool(job["framing_log"]) and not log and not metric and judge is None
    # a cell table as LOG (its --noise and --before cell tables too): the job reads it as a table
    as_cells = cell_inputs(log, noise=job["noise"], before=job["before_log"])[0] is not None
    metric = one_metric(metric, cells=as_cells)
    if not framing_only and not as_cells and not log:
        raise click.UsageError("Missing argument 'LOG...'.")
    if as_cells:
        _report_cells_usage(metric)
    if not framing_only:
        if judge is not None and judge["response"] and judge["choice"]:
            raise click.UsageError(f"give one of {flag('response')} and {flag('choice')}, not both")
        if metric is None and judge is None:
            raise click.UsageError(f"Missing option '{flag('metric')}' (or {flag('order')} COL for a report of an "
                                   "order probe alone).")

    # one library call does the whole job (the same one the local page of `probestats serve` makes); a long
    # one says it is still working (a spinner on a terminal, else a line every few seconds)
    with stages() as progress:
        progress("writing the report")
        run(log, metric=metric, output=output, judge=judge, design=_design(design, facts), **job)
    console(stderr=True).print(f"wrote {_escape(output)}")


@command("plan", takes=("alternative", "alpha", "seed", "json_out"))
def plan_command(run, *, noise, pilot, plot, gap, json_out, probe, **job):
    """Size a probe: the minimum detectable gap (and power at --gap) of each design.

    \b
    Examples:
      probestats plan --noise sample_logs/style_noise.csv --metric steps --items 6,8,12 --runs 5 --runs 20
      probestats plan --noise sample_logs/style_noise.csv --metric steps --pilot sample_logs/style_probe.csv \\
          --items 8 --runs 5,10,20 --gap 0.75 --json
    """
    # lazy: the command's job and its printer, imported when the command runs (--help imports no polars)
    from probestats.jobs.inputs import cell_inputs
    from probestats.present.words.plan import plan_progress

    if plot and gap is None:
        raise OptionError(f"{flag('plot')} draws power at a gap; add {flag('gap')} G")
    _refuse_inputs({flag("plot"): plot}, {flag("noise"): noise, flag("pilot"): pilot})
    _plan_usage(*cell_inputs((), noise=noise, pilot=pilot)[1:], probe)
    err = console(stderr=True)
    with plan_progress(err) as progress:
        result = run(noise, pilot=pilot, plot=plot, gap=gap, probe=probe, progress=progress, **job)
    if plot:
        err.print(f"wrote {_escape(plot)}")
    emit(result, json_out)


@command("framing", takes=("alpha", "correction", "interval", "framing_columns", "json_out"))
def framing_command(run, log, *, json_out, **job):
    """Dual framing: which way a model leans between two targets, how strongly, and whether
    the lean is protective or assertive.

    \b
    Example:
      probestats framing sample_logs/framing_long.csv --targets sample_logs/framing_targets.csv
    """
    emit(run(log, **job), json_out)



@command("compare", takes=("alternative", "alpha", "json_out"))
def compare_command(run, before, after, *, output, json_out, probe, **job):
    """Compare a probe BEFORE and AFTER a mitigation: same items, values, seeds and metric, side by side.

    Refuses (exit 1) logs that differ in items, values, seeds or metric. BEFORE and AFTER may both be
    cell tables (from probestats cells or probestats sql), recognized by their columns.

    \b
    Example:
      probestats compare before.csv after.csv --metric steps --a formal --b casual
    """
    # lazy: the command's job, imported when the command runs (--help imports no polars)
    from probestats.jobs.inputs import is_cells, refuse_row_options

    _refuse_inputs({flag("output"): output}, {ARGUMENTS["before"]: before, ARGUMENTS["after"]: after})
    as_cells = is_cells(before)
    if as_cells != is_cells(after):
        raise OptionError(f"{before if as_cells else after} is a cell table and "
                          f"{after if as_cells else before} a log: give both as logs or both as cell tables")
    if as_cells:
        refuse_row_options(probe)
    emit(run(before, after, output=output, cells=as_cells, probe=None if as_cells else probe, **job), json_out)
    if output is not None:
        console(stderr=True).print(f"wrote {_escape(output)}")


# ---------------------------------------------------------------- describe: distributions per value


@command("describe", takes=("n_resamples", "seed", "json_out"))
def describe_command(run, log, *, json_out, **job):
    """Distributions per value: runs and items, the mean, the count and share of each level, and an exact
    test of whether the distributions differ (within items where the design is matched).

    \b
    Examples:
      probestats describe sample_logs/style_probe.csv --metric steps --bins 0,4,6,12
      probestats describe sample_logs/style_probe.csv --metric steps --bins 0,4,6,12 --bins-closed right
      probestats describe replies.csv --code stance=agree-4 --metric stance --json
      probestats describe scores.csv --metric score --agreement judge
    """
    result = run(log, **job)
    if json_out:
        emit_json(result)
    else:
        # lazy: present.terminal.describe is off the paired analysis's path (tests/test_start.py)
        from probestats.present.terminal.describe import print_description

        print_description(result, console())


# ---------------------------------------------------------------- judge: order probes on a pairwise judge


def _run_judge(run, log, **job):
    try:
        return run(log, **job)
    except OptionError as exc:   # the options that cannot go together are a usage error on the command line
        if str(exc).startswith(("give one of", f"{flag('score')} compares", f"{flag('scale')} belongs")):
            raise click.UsageError(str(exc)) from None
        raise


@command("judge", takes=("alpha", "correction", "json_out"), optional=("order",))
def judge_command(run, log, *, json_out, **job):
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
    if job["order"] is None:
        raise click.UsageError(f"Missing option '{flag('order')}'.")
    if job["score"] is None and job["choice"] is None and not job["verdicts"]:
        verdict = flag("verdicts")
        raise click.UsageError(f"say how verdicts are read: {flag('response')} COL with {verdict} \"first=[[A]]\" "
                               f"{verdict} \"second=[[B]]\", or {flag('choice')} COL, or {flag('score')} COL")
    result = _run_judge(run, log, **job)
    if json_out:
        emit_json(result)
    elif job["score"] is not None:
        # lazy: present.terminal.render is off the paired analysis's path (tests/test_start.py)
        from probestats.present.terminal.render import print_analysis

        print_analysis(result, console())
    else:
        # lazy: present.terminal.judge is off the paired analysis's path (tests/test_start.py)
        from probestats.present.terminal.judge import print_judge

        print_judge(result, console())


# ---------------------------------------------------------------- entry point


# --------------------------------------------------------------------------- the cell table


def _report_cells_usage(metric) -> None:
    """report of a cell table: its metric is named (what else cannot go with it, the job refuses)."""
    if metric is None:
        raise click.UsageError(f"Missing option '{flag('metric')}' (a cell table holds one metric).")


def _plan_usage(noise_cells, noise, pilot_cells, pilot, probe) -> None:
    """plan's noise and pilot: logs or cell tables, one of each kind (usage errors)."""
    if noise is None and noise_cells is None:
        raise click.UsageError(f"Missing option '{flag('noise')}' (a log, or a cell table built with its runs).")
    if noise_cells is None and pilot_cells is None:
        return
    # lazy: the command's job, imported when the command runs (--help imports no polars)
    from probestats.jobs.inputs import refuse_row_options

    if noise_cells is not None and pilot is not None or pilot_cells is not None and noise is not None:
        raise click.UsageError("give the noise and the pilot both as logs or both as cell tables")
    refuse_row_options(probe)


@command("cells", required=("output",))
def cells_command(run, log, *, output, **job):
    """Summarize a log into its cell table: one row per item x value (x --by group), exact sums.

    \b
    Examples:
      probestats cells sample_logs/style_probe.csv --metric steps -o cells.parquet
      probestats analyze cells.parquet --metric steps
    """
    built = run(log, output=output, **job)
    if built.checked.problems:
        # lazy: present.terminal.render is off the paired analysis's path (tests/test_start.py)
        from probestats.present.terminal.render import print_problems

        print_problems(built.checked.problems, built.checked.log.source)
    console(stderr=True).print(f"{built.table.height} cells written to {_escape(output)}")


@command("sql")
def sql_command(run, **job):
    """Print the SQL that builds the cell table in a warehouse, and validation queries to run there.

    \b
    Examples:
      probestats sql --dialect duckdb --table logs --metric steps
      probestats sql --dialect spark --table db.logs --metric score --by model --run-order run_id
    """
    click.echo(run(**job), nl=False)


@command("serve:serve")
def serve_command(run, *, port, host, open_browser, max_mb):
    """A local web page: upload a log or spreadsheet, map its columns, check it, get the report and size
    the next probe, without writing a command (each step shows the command that does the same).

    Needs the serve extra: pip install "probestats[serve]". Stops with Ctrl-C.

    \b
    Example:
      probestats serve --open
    """
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
        shown = io.StringIO()
        exc.show(file=shown)  # usage errors quote the values given: their controls are shown as escapes
        click.echo(visible(_shortened(shown.getvalue()), keep_newlines=True), err=True, nl=False)
        code = exc.exit_code if isinstance(exc, click.UsageError) else EXIT_USAGE
    except click.exceptions.Abort:
        click.echo("Error: aborted", err=True)
        code = EXIT_DATA
    except ProbestatsError as exc:
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
        text = one_line(str(exc).splitlines()[0]) if str(exc).strip() else ""
        click.echo(f"Error: unexpected {type(exc).__name__}: {text} (set PROBESTATS_DEBUG=1 for details and "
                   "report it)", err=True)
        code = EXIT_DATA
    except BaseException as exc:  # a library's panic, raised through pyo3 as a BaseException
        if type(exc).__name__ != "PanicException" or os.environ.get("PROBESTATS_DEBUG"):
            raise
        text = one_line(" ".join(str(exc).split()))[:200]
        click.echo(f"Error: a library failed on this input ({text}); check that the file is not damaged", err=True)
        code = EXIT_DATA
    sys.stdout.flush()
    return code


def run() -> None:  # pragma: no cover - the console script
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
