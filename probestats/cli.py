"""The ``probestats`` command: thin wrappers over one library call each.

Library errors become one ``Error:`` line and exit code 1; usage errors exit 2;
nothing else (no traceback) reaches a user.
"""

from __future__ import annotations

import functools
import io
import os
import sys
from pathlib import Path

import click

from probestats import __version__
from probestats.errors import OptionError, ProbestatsError, cli_spelling

EXIT_DATA = 1
EXIT_USAGE = 2

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}

#: The groups a command's help lists its options in, by parameter name (the rest: "The comparison").
OPTION_GROUPS = {
    "Input and shaping": ("read_given", "column", "where", "derive", "wide", "group", "fold_case", "complete", "from_text",
                          "explode", "lookup", "code",
                          "design_file", "facts", "dialect", "table"),
    "Tests": ("alternative", "alpha", "correction", "interval", "n_resamples", "seed", "effect_choice", "row_level",
              "per_item", "gap", "target", "sims", "mechanism", "mdg_range", "time_budget", "limits", "heterogeneity", "items",
              "runs"),
    "Output": ("json_out", "output", "sections", "force", "plot", "keep_runs", "with_runs", "with_time", "places",
               "no_seed", "run_order", "settings", "port", "host", "open_browser", "max_mb", "plain", "help"),
}
COMPARISON = "The comparison"


class Command(click.Command):
    """A command that lists its options in groups."""

    def format_options(self, ctx, formatter) -> None:
        groups: dict[str, list] = {COMPARISON: [], **{name: [] for name in OPTION_GROUPS}}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            group = next((g for g, names in OPTION_GROUPS.items() if param.name in names), COMPARISON)
            groups[group].append(record)
        for name in ("Input and shaping", COMPARISON, "Tests", "Output"):
            if groups[name]:
                with formatter.section(f"{name} options"):
                    formatter.write_dl(groups[name])


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


# ---------------------------------------------------------------- shared options and output


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


READ_KEYS = ("format", "sheet", "skip-rows", "encoding", "max-cells", "max-columns", "records")
FORMATS = ("csv", "tsv", "json", "jsonl", "xlsx", "ods", "parquet")


def _read_value(key: str, text: str):
    """One ``--read KEY=VALUE``, checked as its own option was (a usage error, exit 2)."""
    if key == "format":
        if text.lower() not in FORMATS:
            raise click.BadParameter(f"format={text}: expected one of {', '.join(FORMATS)}", param_hint="--read")
        return text.lower()
    if key in ("skip-rows", "max-cells", "max-columns"):
        low = 0 if key == "skip-rows" else 1
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


def read_options(func):
    """Add the options every command that reads a log shares: ``--read KEY=VALUE`` and ``--column``."""

    @click.option("--read", "read_given", multiple=True, metavar="KEY=VALUE", callback=_parse_read,
                  help="How the files are read (repeatable): format=csv|tsv|json|jsonl|xlsx|ods|parquet "
                       "(default: from the suffix or content), sheet=NAME|N (0-based), skip-rows=N (title rows), "
                       "encoding=ENC (default UTF-8), max-cells=N, max-columns=N (10,000,000, 2,000), "
                       "records=KEY (JSON: the records' key).")
    @click.option("--column", "column", multiple=True, metavar="CANONICAL=HEADER",
                  help="Say which header holds a column, e.g. --column item=\"Question #\" (repeatable; "
                       "model= for none).")
    @functools.wraps(func)
    def wrapper(*args, read_given=None, column=(), **kwargs):
        given = read_given or {}
        kwargs["read"] = {"format": given.get("format"), "sheet": given.get("sheet"),
                          "skip_rows": given.get("skip-rows", 0), "columns": _parse_columns(column),
                          "encoding": given.get("encoding")}
        if "max-cells" in given:
            kwargs["read"]["max_cells"] = given["max-cells"]
        if "max-columns" in given:
            kwargs["read"]["max_columns"] = given["max-columns"]
        if "records" in given:
            kwargs["read"]["records"] = given["records"]
        return func(*args, **kwargs)

    return wrapper


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


def shape_options(func):
    """Add the options that say what a log means (the Probe), with the read options, to a command.

    The command receives ``probe``: a :class:`probestats.shape.probe.Probe` applied alike to every
    log it reads (the probe, --noise, --pilot, before and after).
    """

    @click.option("--where", metavar="SQL", help="Keep only rows where this SQL condition holds, e.g. \"model = 'm1'\".")
    @click.option("--derive", multiple=True, metavar="NAME=SQL",
                  help="A column from a SQL expression, e.g. \"total = a + b\" (repeatable).")
    @click.option("--from-text", "from_text", multiple=True, metavar="NAME=KIND[:REGEX]", callback=_parse_from_text,
                  help="A column from the text, before --derive (repeatable): NAME=words, NAME=chars, "
                       "NAME=count:REGEX (matches in the reply, ^ at every line), NAME=number:REGEX (the first "
                       "number captured); VALUE=prompt:REGEX: the value is VALUE where the prompt matches.")
    @click.option("--fold-case", is_flag=True, help="Treat values differing only in case or spaces as one.")
    @click.option("--group", multiple=True, metavar="GROUP=V1,V2",
                  help="Several values standing for one group, e.g. --group female=Emily,Lakisha (repeatable).")
    @click.option("--wide", multiple=True, metavar="COL,COL,...",
                  help="One metric column per value, e.g. --wide formal_steps,casual_steps (values from the names) "
                       "or --wide formal=COL (repeatable).")
    @click.option("--complete", is_flag=True,
                  help="Keep only items with a metric value under every compared value.")
    @click.option("--explode", multiple=True, metavar="[NAME=]PATH",
                  help="A list in each record as rows, its position in NAME (repeatable).")
    @click.option("--lookup", multiple=True, nargs=2, metavar="FILE KEY[,KEY]",
                  help="Join a table on its key columns (repeatable).")
    @click.option("--code", multiple=True, metavar="NAME=BOOK",
                  help="Code the reply by a code book (repeatable).")
    @read_options
    @functools.wraps(func)
    def wrapper(*args, read, where=None, derive=(), from_text=None, fold_case=False, group=(), wide=(),
                complete=False, explode=(), lookup=(), code=(), **kwargs):
        from probestats.shape.probe import Probe

        text = from_text or {kind: () for kind in TEXT_KINDS}
        kwargs["probe"] = Probe(columns=tuple(read["columns"].items()), where=where, derive=tuple(derive),
                                groups=tuple(group), fold_case=fold_case, wide=tuple(wide), complete=complete,
                                explode=tuple(explode), lookup=tuple((f, k) for f, k in lookup), code=tuple(code),
                                count=text["count"], words=text["words"], chars=text["chars"],
                                number=text["number"], variant_from=text["prompt"],
                                format=read["format"], sheet=read["sheet"], skip_rows=read["skip_rows"],
                                encoding=read["encoding"], max_cells=read.get("max_cells"),
                                max_columns=read.get("max_columns"),
                                records=read.get("records"))
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
    path = Path(path)
    if path.is_dir():
        raise OptionError(f"-o {path}: is a folder; give a file name such as {path / 'report.md'}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise OptionError(f"-o {path}: the folder '{parent}' does not exist; create it first")
    from probestats.present.report.files import write_whole as write

    write(path, content)


def outputs_together(func):
    """``--force``, and a command whose outputs (a report and its images) are written together at its end,
    all or none; images of an earlier run that were replaced are said on standard error."""

    @click.option("--force", is_flag=True, help="Replace files in the images folder (FILE_files/) "
                  "that probestats did not write.")
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


# ---------------------------------------------------------------- options that mean the same everywhere

metric_option = click.option("--metric", required=True, metavar="COL", help="The metric column (a number per run).")
metrics_option = click.option("--metric", required=True, multiple=True, metavar="COL[,COL...]",
                              help="The metric column (a number per run); several (repeated, or separated by commas): "
                                   "one analysis per metric, corrected as one family over metrics × groups.")
interval_option = click.option(
    "--interval", type=click.Choice(["t", "bootstrap", "percentile", "sign-flip"]), default="t", show_default=True,
    help="Interval for the average gap: Student t, BCa bootstrap, percentile bootstrap, or the sign-flip test's "
         "inversion (each names its assumption; the bootstraps, and the inversion beyond 30 items, use --seed and "
         "--n-resamples).")


def effect_options(func):
    """``--effect-size``: the one a table of several metrics shows, and (g_*) Hedges' correction of all."""

    @click.option("--effect-size", "effect_choice", type=click.Choice(["d_z", "d_av", "g_z", "g_av"]), default="d_z",
                  show_default=True, help="The effect size a table of several metrics (and its heatmap) shows; "
                  "g_z or g_av: with Hedges' small-sample correction, applied to every d_z and d_av shown.")
    @functools.wraps(func)
    def wrapper(*args, effect_choice="d_z", **kwargs):
        kwargs["hedges"] = effect_choice.startswith("g")
        kwargs["effect_size"] = "d" + effect_choice[1:]
        return func(*args, **kwargs)

    return wrapper
a_option = click.option("--a", "a", metavar="VALUE", help="First value; gap = mean under A − mean under B "
                        "(default: the first value in the log).")
b_option = click.option("--b", "b", metavar="VALUE", help="Second value (default: the second value in the log).")
alternative_option = click.option("--alternative", type=click.Choice(["two-sided", "greater", "less"]),
                                  default="two-sided", show_default=True,
                                  help="Direction of the test: greater means A above B.")
alpha_option = click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
                            show_default=True, help="Significance level (also for the wording).")
fold_case_option = click.option("--fold-case", is_flag=True,
                                help="Treat values differing only in case or spaces as one.")
seed_option = click.option("--seed", type=int, default=0, show_default=True,
                           help="Seed of the random draws, for results that reproduce.")


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
    from probestats.limits import LIMITS

    @click.option("--limit", "limits", multiple=True, metavar="NAME=N", callback=_parse_limits,
                  help="Raise a limit: " + ", ".join(LIMITS) + ".")
    @functools.wraps(func)
    def wrapper(*args, limits=None, **kwargs):
        from probestats.limits import raised

        with raised(**(limits or {})):
            return func(*args, **kwargs)

    return wrapper

# --by, --scale and --order: declared here once, one meaning in every command that takes them
by_option = click.option(
    "--by", multiple=True, metavar="COL",
    help="Groups: one result per value of COL (repeatable), corrected across groups; in judge and a report's "
         "judge section, one per judge. framing's default: model, plus topic when the topics share no "
         "reference target.")
scale_option = click.option(
    "--scale", metavar="LOW:HIGH",
    help="The scale the metric (a judge's score or label) is given on, e.g. 1:5 (0: for a floor only): cells "
         "whose baseline sits at its top or bottom are flagged; plan keeps simulated runs within it (default "
         "there: an end of the noise log where 5%% of runs or more pile up).")
order_option = click.option(
    "--order", metavar="COL",
    help="The order probe of a pairwise judge: the column whose two values are the two answer orders "
         "(required; a report's judge section takes it as --set judge.order=COL).")


def noise_options(func):
    """--noise-value, --setting and --setting-is-attribute: the noise reference taken from one value's repeats,
    settings that block, and settings varied on purpose."""
    func = click.option("--setting-is-attribute", "attribute_settings", multiple=True,
                        type=click.Choice(["model", "temperature", "system"]),
                        help="A setting varied on purpose with the attribute (which model decides, which system "
                             "prompt is used): accepted differing between the values, named as varied by design.")(func)
    func = click.option("--setting", "block_settings", multiple=True, metavar="COL",
                        help="A held-fixed setting besides model, judge, temperature and system (repeatable); "
                             "one that varies within items is a block: items are matched within it.")(func)
    return click.option("--noise-value", metavar="VALUE",
                        help="The noise reference: the repeats of VALUE in the log (a baseline run several "
                             "times), split in halves drawn at random within items.")(func)


# --random-setting: declared here once (analyze and validate take it; a report, --set random_settings=COL)
random_setting_option = click.option(
    "--random-setting", "random_settings", multiple=True, metavar="COL",
    help="A setting drawn at random per call (repeatable): checked to be balanced across the values, then the "
         "gap shown stratified by it and adjusted for it.")


def design_options_of_pair(func):
    """``--cluster COL`` and ``--random-setting COL``: the clusters the items are nested in, and the settings
    drawn at random per call (a report takes them as ``--set cluster=COL`` and ``--set random_settings=COL``)."""
    func = random_setting_option(func)
    return click.option("--cluster", metavar="COL",
                        help="The column of the clusters the items are nested in (document, vacancy, template): "
                             "whole clusters are flipped, the interval is a cluster-level t.")(func)


def arm_options(func):
    """``--control VALUE`` and ``--baseline VALUE``: the meaningless edit set beside the compared values, and the
    unchanged one of two compared values."""
    func = click.option("--control", metavar="VALUE",
                        help="A meaningless edit's value, set against each compared value.")(func)
    return click.option("--baseline", metavar="VALUE", help="The unchanged one of two values (default: B).")(func)


def _parse_analysis_facts(ctx, param, values) -> dict:
    """``analyze --set KEY=VALUE``: the design facts the analysis itself reads (``selection``); the others are
    words of a report, refused here with where they go."""
    facts: dict = {}
    for value in values or ():
        key, sep, text = value.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise click.BadParameter(f"'{value}': expected KEY=VALUE, for example --set selection=yes")
        if key != "selection":
            raise click.BadParameter(f"'{value}': analyze reads the design fact selection only; '{key}' is "
                                     f"{'a fact a report states' if key in _fact_keys() else 'not a design fact'}"
                                     " (give it to probestats report)")
        from probestats.shape.design import yes_no

        try:
            facts[key] = yes_no(key, text, "--set")
        except OptionError as exc:
            raise click.BadParameter(str(exc)) from None
    return facts


def _fact_keys() -> tuple:
    from probestats.shape.design import KNOWN_KEYS

    return (*KNOWN_KEYS, *REPORT_SETTINGS)


def _parse_facts(ctx, param, values) -> dict:
    """``--set KEY=VALUE`` (repeatable) as a dict of design facts; a list fact gathers its repeats."""
    from probestats.shape.design import KNOWN_KEYS, LIST_FIELDS

    facts: dict = {}
    for value in values or ():
        key, sep, text = value.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key:
            raise click.BadParameter(f"'{value}': expected KEY=VALUE, for example --set attribute=\"writing style\"")
        if key not in KNOWN_KEYS and key not in REPORT_SETTINGS:
            raise click.BadParameter(f"'{value}': unknown key '{key}'; known keys: "
                                     f"{', '.join((*KNOWN_KEYS, *REPORT_SETTINGS))}")
        if key in LIST_FIELDS or REPORT_SETTINGS.get(key, ("",))[0] == "list" or key == "attribute_settings":
            facts[key] = (*facts.get(key, ()), text)
        else:
            facts[key] = text
    return facts


#: The report's settings beside the design facts, keys of --set and of the --design file: kind, old flag.
REPORT_SETTINGS = {
    "noise_value": ("text", "--noise-value"), "settings": ("list", "--setting"),
    "attribute_settings": ("model|temperature|system", "--setting-is-attribute"), "scale": ("text", "--scale"),
    "templates": ("path", "--templates"), "judge.order": ("text", "--order"), "judge.response": ("text", "--response"),
    "judge.choice": ("text", "--choice"), "judge.verdict": ("list", "--verdict"),
    "judge.repetition": ("text", "--repetition"), "framing.targets": ("path", "--targets"),
    "framing.toward": ("text", "--toward"), "framing.answers": ("auto|yes-no|agreement", "--answers"),
    "framing.label_map": ("list", "--label-map"), "framing.columns": ("list", "--framing-columns"),
    "per_item": ("yes|no", "--per-item"), "cluster": ("text", "--cluster"),
    "random_settings": ("list", "--random-setting"),
}


def _setting(key: str, value, where: str):
    """One report setting, checked: a list, a path, a choice or text."""
    kind = REPORT_SETTINGS[key][0]
    many = kind == "list" or key == "attribute_settings"
    if kind == "yes|no" and isinstance(value, bool):   # TOML's true and false
        value = "yes" if value else "no"
    values = value if isinstance(value, (list, tuple)) else [value]
    if not all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values) or (
            not many and len(values) != 1):
        raise OptionError(f"{where} {key}: expected {'text or a list of texts' if many else 'text'}")
    values = [str(v) for v in values]
    if "|" in kind:
        bad = [v for v in values if v not in kind.split("|")]
        if bad:
            raise OptionError(f"{where} {key}={bad[0]}: expected one of {kind.replace('|', ', ')}")
    if many:
        return tuple(values)
    return Path(values[0]) if kind == "path" else values[0]


def _report_settings(design_file, facts: dict) -> dict:
    """The report's settings: the --design file's, then --set's over them."""
    from probestats.shape.design import load_settings

    given = {}
    if design_file is not None:
        for key, value in load_settings(design_file).items():
            if key not in REPORT_SETTINGS:
                raise OptionError(f"--design {design_file}: unknown key {key!r}; known settings: "
                                  f"{', '.join(REPORT_SETTINGS)}")
            given[key] = _setting(key, value, f"--design {design_file}:")
    for key, value in facts.items():
        if key in REPORT_SETTINGS:
            given[key] = _setting(key, value, "--set")
    return given


def _judge_setting(given: dict, by) -> dict | None:
    """The judge section's settings (None without judge.order); the judges are the --by groups."""
    keys = [k for k in given if k.startswith("judge.") and k != "judge.order"]
    if "judge.order" not in given:
        if keys:
            raise click.UsageError(f"{keys[0]} describes an order probe; add --set judge.order=COL")
        return None
    return {"order": given["judge.order"], "response": given.get("judge.response"),
            "choice": given.get("judge.choice"), "verdicts": given.get("judge.verdict", ()), "by": tuple(by),
            "repetition": given.get("judge.repetition")}


def design_options(func):
    """``--design FILE`` and ``--set KEY=VALUE``: the design facts, from a file and one-off (the later wins)."""
    func = click.option("--set", "facts", multiple=True, metavar="KEY=VALUE", callback=_parse_facts,
                        help="A design fact or setting over the --design file's (repeatable; lists gather): "
                             "attribute, values_why, metric_definition, metric_cannot_see, held_fixed, not_fixed, "
                             "not_tested, run_dates, mitigation, gap_of_interest, selection; noise_value, settings, "
                             "attribute_settings, scale, templates, per_item; judge.order, .response, "
                             ".choice, .verdict, .repetition; framing.targets, .toward, .answers, .label_map, .columns.")(func)
    return click.option("--design", "design_file", type=click.Path(path_type=Path), metavar="probe.toml",
                        help="A design file (TOML) of what the log cannot say (keys of --set).")(func)


validation_option = click.option(
    "--validation", type=click.Path(path_type=Path), metavar="FILE",
    help="Hand labels of sampled runs: the verdict on the corrected gap.")


def json_option(what: str = "the result"):
    return click.option("--json", "json_out", is_flag=True, help=f"Print {what} as JSON.")


# ---------------------------------------------------------------- commands


@cli.command()
@logs_argument()
@click.option("--metric", metavar="COL", help="The metric column to check (numbers, blanks, suspect zeros).")
@click.option("--a", "a", metavar="VALUE", help="First compared value (default: the first value in the log).")
@click.option("--b", "b", metavar="VALUE", help="Second compared value (default: the second value in the log).")
@by_option
@click.option("--setting-is-attribute", "attribute_settings", multiple=True,
              type=click.Choice(["model", "temperature", "system"]),
              help="A setting varied on purpose with the attribute (which model decides): accepted differing "
                   "between the values, as analyze and report accept it.")
@random_setting_option
@json_option()
@json_refusals
@shape_options
def validate(log, metric, a, b, by, json_out, probe, attribute_settings=(), random_settings=()):
    """Check that LOG is a matched, held-fixed probe; list every problem with its rows.

    Exit code 0 when there are no errors (warnings allowed), 1 when there are.

    \b
    Examples:
      probestats validate sample_logs/style_probe.csv --metric steps
      probestats validate hand_sheet.xlsx --metric steps --read skip-rows=2 --json
    """
    from probestats.checks.schema import validate as run

    checked = run(probe.apply(log, metric=metric, a=a, b=b, by=by), metric=metric, a=a, b=b, by=by,
                  fold_case=probe.fold_case, attribute_settings=attribute_settings,
                  random_settings=tuple(random_settings), keep=tuple(random_settings))
    if random_settings and checked.ok:   # a setting drawn per call is checked for balance, as analyze checks it
        from dataclasses import replace

        from probestats.analyses.drawn import balance_test, unbalanced_problem

        for column in random_settings:
            balance = balance_test(checked.frame, column, checked.a, checked.b)
            if balance.pvalue <= 0.05:
                checked = replace(checked, problems=checked.problems + (unbalanced_problem(
                    balance, checked.a, checked.b, checked.log.columns.get(column, column)),))
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
@metrics_option
@a_option
@b_option
@click.option("--noise", type=click.Path(path_type=Path), metavar="NOISE_LOG",
              help="The noise reference: a same-versus-same log (only the draw changed), analyzed beside the "
                   "probe; 'within' (the default): the log's runs split in halves drawn at random within cells "
                   "(--seed); 'none'.")
@noise_options
@by_option
@alternative_option
@alpha_option
@click.option("--correction", type=click.Choice(["holm", "bonferroni", "bh", "none"]), default="holm",
              show_default=True, help="Correction across --by groups.")
@click.option("--json", "json_out", is_flag=True, help="Print the result as JSON (the stable contract in the README).")
@click.option("--reference", metavar="VALUE", help="More than two values: gaps are measured against VALUE (default: the first).")
@scale_option
@click.option("--factor", multiple=True, metavar="COL", help="Two attributes at once: give --factor twice (e.g. style, name).")
@click.option("--n-resamples", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Resamples of every resampling method: the bootstrap intervals, the sign-flip inversion beyond "
                   "30 items, the omnibus test when it cannot be exact.")
@seed_option
@limit_option
@click.option("--row-level", is_flag=True,
              help="Also Welch's t on the runs, as many published audits report it (the item-level test stays the "
                   "headline).")
@interval_option
@click.option("--per-item", is_flag=True,
              help="Also Welch's t within each item on its runs (every item's row-level test), corrected across "
                   "items; with --row-level and --by, also per group.")
@validation_option
@effect_options
@arm_options
@design_options_of_pair
@click.option("--set", "analysis_facts", multiple=True, metavar="KEY=VALUE", callback=_parse_analysis_facts,
              help="A design fact the analysis reads: selection=yes (the metric says whether a candidate was "
                   "selected: selection rates and impact ratios for several values).")
@json_refusals
@shape_options
def analyze(log, metric, a, b, noise, by, alternative, alpha, correction, json_out, probe,
            reference=None, scale=None, factor=(), n_resamples=10_000, seed=0, interval="t",
            row_level=False, per_item=False, hedges=False, effect_size="d_z", noise_value=None,
            block_settings=(), attribute_settings=(), validation=None, control=None, baseline=None,
            analysis_facts=None, cluster=None, random_settings=()):
    """Per-item gaps, the exact sign-flip and sign tests, and the noise beside them.

    LOG may be a cell table (from probestats cells, or a warehouse via probestats sql), recognized by
    its columns; its noise reference is then a cell table too (--noise NOISE_CELLS).

    \b
    Examples:
      probestats analyze sample_logs/style_probe.csv --metric steps
      probestats analyze sample_logs/style_probe.csv --metric steps --a formal --b casual \\
          --noise sample_logs/style_noise.csv --json
    """
    from probestats.analyses.dispatch import analyze as run

    if not log:
        raise click.UsageError("Missing argument 'LOG...'.")
    cells_file, noise_cells, noise = _cell_inputs(log, noise=noise)
    metric = _one_metric(metric, cells=cells_file is not None, row_level=row_level, per_item=per_item)
    if cells_file is not None and validation is not None:
        raise OptionError("--validation cannot be used with a cell table: it matches hand labels to the log's runs; "
                          "give the LOG")
    if (row_level or per_item) and validation is not None:
        raise OptionError("--validation cannot go with --row-level or --per-item: run them apart")
    arms = {k: v for k, v in (("control", control), ("baseline", baseline)) if v is not None}
    if (analysis_facts or {}).get("selection"):
        arms["selection"] = True
    if cells_file is not None and (cluster or random_settings):
        flag = f"--cluster {cluster}" if cluster else f"--random-setting {random_settings[0]}"
        raise OptionError(f"{flag} needs the runs of the log; give the log instead of a cell table")
    if cells_file is not None:
        if arms:
            flag = next(f"--{k} {v}" if k != "selection" else "--set selection=yes" for k, v in arms.items())
            raise OptionError(f"{flag} needs the runs of the log's values; give the log instead of a cell table")
        _analyze_cells(cells_file, metric, a, b, noise, by, alternative, alpha, correction, json_out,
                       probe, reference, scale, factor, interval=interval, row_level=row_level,
                       noise_cells=noise_cells, n_resamples=n_resamples, seed=seed, hedges=hedges)
        return
    from probestats.present.terminal.progress import stages

    # one streaming pass over the log (memory grows with items x values, not rows); --row-level needs the runs
    with stages(enabled=not json_out) as progress:
        result = run(log, metric=metric, a=a, b=b, noise=noise, by=by, reference=reference, scale=scale,
                     factor=factor, alternative=alternative, alpha=alpha, correction=correction,
                     n_resamples=n_resamples, seed=seed, probe=probe, interval=interval,
                     streaming=not (row_level or per_item), progress=progress, hedges=hedges,
                     effect_size=effect_size, validation=validation, **arms,
                     **_noise_kwargs(noise_value, block_settings, attribute_settings),
                     **{k: v for k, v in (("cluster", cluster), ("random_settings", tuple(random_settings))) if v})
    if row_level or per_item:  # Welch's t on runs beside the item-level tests, for a comparison of two values
        from probestats.analyses.paired import Analysis, with_row_level
        from probestats.analyses.rowlevel import with_row_tests

        if not isinstance(result, Analysis):
            flag = "--row-level" if row_level else "--per-item"
            raise OptionError(f"{flag} applies to a comparison of two values; choose them with --a and --b")
        result = with_row_level(result) if row_level else result
        result = with_row_tests(result, per_item=per_item, per_group=row_level)
    _refuse_lone_correction(result, correction, control)
    emit(result, json_out)


def _refuse_lone_correction(result, correction: str, control) -> None:
    """--correction changes nothing in a comparison of two values with one test (no --by groups, no blocks,
    no control, no per-item tests): refused rather than ignored."""
    from probestats.analyses.paired import Analysis

    if (correction != "holm" and isinstance(result, Analysis) and not result.groups and control is None
            and not getattr(result, "row_tests", None)):
        raise OptionError(f"--correction {correction} corrects across --by groups (and blocks, a control, per-item "
                          "tests); this comparison of two values has one test: drop it, or give --by")


def _one_metric(metric, *, cells: bool = False, row_level: bool = False, per_item: bool = False):
    """The --metric option's names: one name as a string, several as a list (one analysis each)."""
    from probestats.analyses.metrics import split_metrics

    if metric is None or metric == ():
        return None
    names = split_metrics(metric)
    if len(names) > 1:
        for flag, given in (("a cell table", cells), ("--row-level", row_level), ("--per-item", per_item)):
            if given:
                raise OptionError(f"{flag} takes one --metric; run it once per metric")
        return names
    return names[0]
def _noise_kwargs(noise_value, block_settings, attribute_settings=()) -> dict:
    """The paired analysis's noise options, given only when asked for (other analyses do not take them)."""
    return {k: v for k, v in (("noise_value", noise_value), ("settings", tuple(block_settings)),
                              ("attribute_settings", tuple(attribute_settings))) if v}


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


def framing_answer_options(func):
    """How a framing log's answers are read: yes/no or agreement, other wordings, framings in columns."""

    @click.option("--answers", type=click.Choice(["auto", "yes-no", "agreement"]), default="auto",
                  show_default=True, help="Score answers as yes/no (+1/-1) or on the agreement scale; auto: yes/no "
                                          "for 0/1 scores or replies that read as yes/no (the output says which).")
    @click.option("--label-map", "label_map", multiple=True, metavar="LABEL=TEXT,...",
                  help="Other yes/no wordings, e.g. --label-map yes=Affirm,Y --label-map no=Negate "
                       "(LABEL: yes, no, refusal, hedge; repeatable).")
    @click.option("--framing-columns", "framing_columns", multiple=True, metavar="affirmative=COL,reverse=COL",
                  help="One row per item with a column per framing's answer (prefix MEASURE: to name what they "
                       "hold, e.g. score:affirmative=a,reverse=b; repeatable).")
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


@cli.command()
@logs_argument(required=False)
@click.option("--metric", multiple=True, metavar="COL[,COL...]",
              help="The metric column (a number per run); several (repeated, or separated by commas): a report of "
                   "every metric side by side, one correction over metrics × groups (none: an order probe alone).")
@a_option
@b_option
@click.option("--noise", type=click.Path(path_type=Path), metavar="NOISE_LOG",
              help="A same-versus-same log, reported beside the probe (and used for the minimum detectable gap); "
                   "'within' (the default) or 'none' as for analyze.")
@alternative_option
@alpha_option
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path), metavar="FILE",
              help="Where to write the report: FILE.md (plots in FILE_files/), FILE.html (one self-contained "
                   "page) or FILE.json.")
@click.option("--section", "sections", multiple=True, metavar="NAME",
              type=click.Choice(["summary", "design", "table", "tests", "groups", "ceilings", "many", "factors",
                                 "noise", "control", "power", "compare", "describe", "validation", "finding",
                                 "limits", "framing", "judge"]),
              help="Render only this section (repeatable), to paste into a report of your own.")
@design_options
@click.option("--framing", "framing_log", multiple=True, type=click.Path(dir_okay=True, path_type=Path),
              metavar="FRAMING_LOG", help="A dual-framing log (files or a folder; repeatable), shaped by the same "
              "--column/--where/--derive/--by: adds the framing section, or without LOG is the report's only analysis.")
@by_option
@click.option("--correction", type=click.Choice(["holm", "bonferroni", "bh", "none"]), default="holm",
              show_default=True, help="Correction across --by groups (and pairs of values).")
@click.option("--reference", metavar="VALUE",
              help="More than two values: gaps against VALUE (the many section).")
@click.option("--factor", multiple=True, metavar="COL",
              help="Two attributes at once: give --factor twice (the factors section).")
@click.option("--n-resamples", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Resamples of every resampling method: the bootstrap intervals, the sign-flip inversion beyond "
                   "30 items, the omnibus test when it cannot be exact.")
@seed_option
@limit_option
@click.option("--before", "before_log", type=click.Path(path_type=Path), metavar="BEFORE_LOG",
              help="The same probe run before a change (LOG is the run after it): adds the compare section, "
                   "as 'probestats compare BEFORE_LOG LOG' analyzes it.")
@interval_option
@validation_option
@effect_options
@click.option("--plain", is_flag=True,
              help="For people who do not code: tests named in words, methods in a last section.")
@arm_options
@shape_options
@outputs_together
def report(log, metric, a, b, noise, alternative, alpha, output, sections, design_file, facts, probe,
           framing_log=None, by=(), correction="holm", reference=None, factor=(), n_resamples=10_000, seed=0,
           before_log=None, interval="t", hedges=False, effect_size="d_z", validation=None, plain=False,
           control=None, baseline=None):
    """Write the report of LOG as Markdown, HTML or JSON (by the suffix of -o), from Jinja templates.

    Missing design facts (attribute, metric definition, attributes not tested, ...) show as
    visible placeholders; give them with --design probe.toml or --set KEY=VALUE.

    \b
    Examples:
      probestats report sample_logs/style_probe.csv --metric steps --noise sample_logs/style_noise.csv -o report.md
      probestats report sample_logs/style_probe.csv --metric steps --design probe.toml -o report.html
      probestats report sample_logs/style_probe.csv --metric steps -o report.html \\
          --framing sample_logs/framing_long.csv --set framing.targets=sample_logs/framing_targets.csv
    """
    from probestats.jobs.report import report as run
    from probestats.jobs.report import report_format
    from probestats.present.terminal.warm import warm_imports

    # the report's templates, imported while the log is read (the plotting library after it: imported
    # during the pass, its memory would add to the pass's peak)
    warm_imports("probestats.present.report.pair")

    from probestats.shape.design import KNOWN_KEYS

    given = _report_settings(design_file, facts)
    facts = {k: v for k, v in facts.items() if k in KNOWN_KEYS}
    judge, scale, templates = _judge_setting(given, by), given.get("scale"), given.get("templates")
    targets, toward = given.get("framing.targets"), given.get("framing.toward")
    answers, label_map = given.get("framing.answers", "auto"), given.get("framing.label_map", ())
    framing_columns = given.get("framing.columns", ())
    noise_value, block_settings = given.get("noise_value"), given.get("settings", ())
    attribute_settings = given.get("attribute_settings", ())
    per_item = given.get("per_item") == "yes"
    drawn_design = {k: given[k] for k in ("cluster", "random_settings") if given.get(k)}
    _refuse_inputs({"-o": output}, {"LOG": log, "--noise": noise, "--design": design_file,
                                    "--framing": framing_log, "--set framing.targets": targets, "--before": before_log,
                                    "--validation": validation})
    report_format(output)   # a bad -o is refused before the log is read
    framing_log = tuple(framing_log or ())
    framing_only = bool(framing_log) and not log and not metric and judge is None
    cells_file, noise_cells, noise, before_cells, before_log = _cell_inputs(log, noise=noise, before=before_log)
    cells = None
    if cells_file is not None:
        cells = {"--cells": cells_file, "--noise-cells": noise_cells, "--before-cells": before_cells}
        log = ()
    metric = _one_metric(metric, cells=cells is not None)
    if not framing_only and cells is None and not log:
        raise click.UsageError("Missing argument 'LOG...'.")
    if cells is not None:
        _report_cells_usage(cells, metric, judge=judge, probe=probe, reference=reference, scale=scale,
                            factor=factor)
    if not framing_only:
        if judge is not None and judge["response"] and judge["choice"]:
            raise click.UsageError("give one of judge.response and judge.choice, not both")
        if metric is None and judge is None:
            raise click.UsageError("Missing option '--metric' (or --set judge.order=COL for a report of an order "
                                   "probe alone).")
    from probestats.present.terminal.progress import stages

    # one library call does the whole job (the same one the local page of `probestats serve` makes); a long
    # one says it is still working (a spinner on a terminal, else a line every few seconds)
    with stages() as progress:
        progress("writing the report")
        run(log, metric=metric, a=a, b=b, noise=noise, alternative=alternative, alpha=alpha, output=output,
            sections=sections, templates=templates, design_file=design_file, **facts, probe=probe, framing_log=framing_log, targets=targets, toward=toward,
            judge=judge, by=by, correction=correction, reference=reference, scale=scale, factor=factor,
            n_resamples=n_resamples, seed=seed, before_log=before_log, cells=cells, answers=answers,
            label_map=label_map, framing_columns=framing_columns, interval=interval, hedges=hedges,
            effect_size=effect_size, per_item=per_item, validation=validation, plain=plain, control=control,
            baseline=baseline, **drawn_design,
            **_noise_kwargs(noise_value, block_settings, attribute_settings))
    console(stderr=True).print(f"wrote {_escape(output)}")


@cli.command()
@click.option("--noise", type=click.Path(path_type=Path), metavar="LOG",
              help="A same-versus-same (or pilot) log: sigma per run is pooled within its item x value cells; "
                   "or its cell table built with its runs (probestats cells --keep-runs).")
@metric_option
@click.option("--pilot", type=click.Path(path_type=Path), metavar="LOG",
              help="A pilot of the real comparison: the spread of true gaps (tau) is estimated from it.")
@click.option("--a", "a", metavar="VALUE", help="First value of the pilot (default: its first value).")
@click.option("--b", "b", metavar="VALUE", help="Second value of the pilot (default: its second value).")
@click.option("--heterogeneity", type=click.FloatRange(min=0), metavar="TAU",
              help="Stated spread (SD) of true gaps between items, instead of a pilot.")
@click.option("--items", multiple=True, metavar="N[,N...]", help="Item counts (repeatable; default 6,8,10,12,15,20).")
@click.option("--runs", multiple=True, metavar="K[,K...]", help="Runs per value (repeatable; default 1,2,3,5,10,20).")
@click.option("--gap", type=float, metavar="G", help="A true average gap of interest: power at it is added.")
@alternative_option
@alpha_option
@click.option("--power", "target", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.8,
              show_default=True, help="Target power for the minimum detectable gap.")
@click.option("--sims", type=click.IntRange(min=1), default=2000, show_default=True,
              help="Simulated probes per design.")
@seed_option
@click.option("--plot", type=click.Path(path_type=Path), metavar="FILE.png",
              help="Also draw power against runs per value (needs --gap).")
@scale_option
@click.option("--mechanism", type=click.Choice(["auto", "level", "rate", "scale"]), default="auto", show_default=True,
              help="How a gap acts: auto (the ways the noise log leaves plausible, the least promising headlined), "
                   "a shift of the level (its spread stays), a change of a count's or a 0/1 rate (its spread changes "
                   "with it), or a multiplicative change of the mean.")
@click.option("--time-budget", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Stop refining after this many seconds and say how precise the answers are then (also lifts "
                   "the limit on how many designs a plan sizes).")
@click.option("--mdg-range/--no-mdg-range", default=True, show_default=True,
              help="Beside each MDG, its range over plausible noise logs of the same size (about doubles the time).")
@json_option("the plan")
@json_refusals
@shape_options
def plan(noise, metric, pilot, a, b, heterogeneity, items, runs, gap, alternative, alpha, target, sims, seed,
         plot, scale, json_out, probe, mechanism="auto", mdg_range=True, time_budget=None):
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
    noise_cells, noise, pilot_cells, pilot = (_cell_inputs((), noise=noise, pilot=pilot))[1:]
    _plan_usage(noise, pilot, noise_cells, pilot_cells, probe)
    err = console(stderr=True)
    with plan_progress(err) as progress:
        result = run(noise, metric=metric, pilot=pilot, a=a, b=b, heterogeneity=heterogeneity, items=items,
                     runs=runs, gap=gap, alternative=alternative, alpha=alpha, target=target, sims=sims, seed=seed,
                     plot=plot, scale=scale, probe=probe, mechanism=mechanism, noise_cells=noise_cells,
                     pilot_cells=pilot_cells, progress=progress, mdg_range=mdg_range, time_budget=time_budget)
    if plot:
        err.print(f"wrote {_escape(plot)}")
    emit(result, json_out)


@cli.command()
@logs_argument()
@by_option
@click.option("--toward", metavar="TARGET", help="Reference target (default per topic: the affirmative one).")
@click.option("--targets", type=click.Path(path_type=Path), metavar="FILE",
              help="Per topic, the target each framing asserts (columns topic, affirmative, reverse).")
@click.option("--item", multiple=True, metavar="COL",
              help="Columns that make a matched item (repeatable). Default: item, topic, language.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Level for the pattern (on corrected p-values).")
@click.option("--correction", type=click.Choice(["holm", "bonferroni", "bh", "none"]), default="holm",
              show_default=True, help="Correction across cells.")
@click.option("--interval", type=click.Choice(["t", "sign-flip"]),
              help="Interval method for bias and acquiescence on scores (default: t). Yes/no answers have "
                   "their own interval, and refuse this option.")
@click.option("--label", "label_col", metavar="COL", help="The judge's label column (default: label).")
@click.option("--response", "response_col", metavar="COL", help="The raw response column (default: reply).")
@click.option("--score-from", type=click.Choice(["score", "label", "response"]),
              help="Where scores come from (default: score, else label, else a parse of the response).")
@scale_option
@framing_answer_options
@json_option()
@json_refusals
@shape_options
def framing(log, by, toward, targets, item, alpha, correction, interval, label_col, response_col, score_from,
            scale, json_out, probe, answers="auto", label_map=(), framing_columns=()):
    """Dual framing: which way a model leans between two targets, how strongly, and whether
    the lean is protective or assertive.

    \b
    Example:
      probestats framing sample_logs/framing_long.csv --targets sample_logs/framing_targets.csv
    """
    from probestats.jobs.framing import framing as run

    emit(run(log, by=by, toward=toward, targets=targets, item=item, alpha=alpha, correction=correction,
             interval=interval, label=label_col, response=response_col, score_from=score_from, scale=scale,
             answers=answers, label_map=label_map, framing_columns=framing_columns, probe=probe), json_out)



@cli.command()
@click.argument("before", type=click.Path(path_type=Path))
@click.argument("after", type=click.Path(path_type=Path))
@metric_option
@a_option
@b_option
@alternative_option
@alpha_option
@click.option("-o", "--output", type=click.Path(path_type=Path), metavar="FILE",
              help="Also write the Markdown report section to FILE (.md).")
@json_option()
@json_refusals
@shape_options
def compare(before, after, metric, a, b, alternative, alpha, output, json_out, probe):
    """Compare a probe BEFORE and AFTER a mitigation: same items, values, seeds and metric, side by side.

    Refuses (exit 1) logs that differ in items, values, seeds or metric. BEFORE and AFTER may both be
    cell tables (from probestats cells or probestats sql), recognized by their columns.

    \b
    Example:
      probestats compare before.csv after.csv --metric steps --a formal --b casual
    """
    from probestats.jobs.compare import compare as run

    _refuse_inputs({"-o": output}, {"BEFORE": before, "AFTER": after})
    as_cells = _is_cells(before)
    if as_cells != _is_cells(after):
        raise OptionError(f"{before if as_cells else after} is a cell table and "
                          f"{after if as_cells else before} a log: give both as logs or both as cell tables")
    if as_cells:
        _refuse_row_options(probe)
    emit(run(before, after, metric=metric, a=a, b=b, alternative=alternative, alpha=alpha, output=output,
             cells=as_cells, probe=None if as_cells else probe), json_out)
    if output is not None:
        console(stderr=True).print(f"wrote {_escape(output)}")


# ---------------------------------------------------------------- describe: distributions per value


@cli.command()
@logs_argument()
@click.option("--metric", metavar="COL", help="The column described: a label, a 0/1 metric, a whole number of few "
              "values, or any number cut by --bins (default: runs and items only).")
@click.option("--bins", metavar="E0,E1,...", help="Edges cutting a numeric metric into levels, e.g. 0,45,50,100: "
              "[0, 45), [45, 50), [50, 100].")
@by_option
@click.option("--n-resamples", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Arrangements drawn by the Monte Carlo test, where the exact one is out of reach.")
@seed_option
@json_option()
@json_refusals
@shape_options
def describe(log, metric, bins, by, n_resamples, seed, json_out, probe):
    """Distributions per value: runs and items, the mean, the count and share of each level, and an exact
    test of whether the distributions differ (within items where the design is matched).

    \b
    Examples:
      probestats describe sample_logs/style_probe.csv --metric steps --bins 0,4,6,12
      probestats describe replies.csv --code stance=agree-4 --metric stance --json
    """
    from probestats.jobs.describe import describe as run

    result = run(log, metric=metric, bins=bins, by=by, n_resamples=n_resamples, seed=seed, probe=probe)
    if json_out:
        emit_json(result)
    else:
        from probestats.present.terminal.describe import print_description

        print_description(result, console())


# ---------------------------------------------------------------- judge: order probes on a pairwise judge


def _run_judge(log, *, order, response, choice, verdicts, by, repetition, score, scale, alpha, correction, probe):
    from probestats.jobs.judge import judge as run

    try:
        return run(log, order=order, response=response, choice=choice, score=score, verdicts=verdicts, by=by,
                   repetition=repetition, scale=scale, alpha=alpha, correction=correction, probe=probe)
    except OptionError as exc:   # the options that cannot go together are a usage error on the command line
        if str(exc).startswith(("give one of", "--score compares", "--scale belongs")):
            raise click.UsageError(str(exc)) from None
        raise


@cli.command()
@logs_argument()
@order_option
@click.option("--response", metavar="COL", help="The judge's raw reply, read with --verdict rules.")
@click.option("--choice", metavar="COL", help="A column that already holds the slot chosen (first, second, tie; "
              "other labels mapped with --verdict first=A).")
@click.option("--score", metavar="COL", help="A judge that scores each answer: the paired analysis with the order as "
              "the attribute.")
@click.option("--verdict", "verdicts", multiple=True, metavar="LABEL=PATTERN",
              help="LABEL is first, second or tie; PATTERN literal text (case-sensitive, anywhere in the reply), or "
                   "re:REGEX. Repeatable.")
@by_option
@click.option("--repetition", metavar="COL", help="The column numbering repeated judgments of the same item.")
@scale_option
@alpha_option
@click.option("--correction", type=click.Choice(["holm", "bonferroni", "bh", "none"]), default="holm",
              show_default=True, help="Correction across judges (each test on its own).")
@json_option()
@json_refusals
@shape_options
def judge(log, order, response, choice, score, verdicts, by, repetition, scale, alpha, correction, json_out, probe):
    """Order probes on a pairwise judge: position consistency, primacy against recency, the order effect.

    Each item is judged with its two answers in both orders (the two values of --order). A
    reply naming no slot, or several, is unparsed: counted and listed, never guessed.

    \b
    Examples:
      probestats judge verdicts.csv --order position --response reply \\
          --verdict "first=[[A]]" --verdict "second=[[B]]" --verdict "tie=[[C]]" --by judge
      probestats judge verdicts.csv --order position --choice winner --verdict first=A --verdict second=B
      probestats judge scores.csv --order position --score score --scale 1:10
    """
    if order is None:
        raise click.UsageError("Missing option '--order'.")
    if score is None and choice is None and not verdicts:
        raise click.UsageError("say how verdicts are read: --response COL with --verdict \"first=[[A]]\" "
                               "--verdict \"second=[[B]]\", or --choice COL, or --score COL")
    result = _run_judge(log, order=order, response=response, choice=choice, verdicts=verdicts, by=by,
                        repetition=repetition, score=score, scale=scale, alpha=alpha, correction=correction, probe=probe)
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


def _analyze_cells(cells_file, metric, a, b, noise, by, alternative, alpha, correction, json_out,
                   probe, reference, scale, factor, interval="t", row_level=False, noise_cells=None,
                   n_resamples=10_000, seed=0, hedges=False) -> None:
    """analyze of a cell table: the paired analysis from it (shaping happened when it was built)."""
    from probestats.analyses.cells import analyze_cells

    if noise is not None:
        raise OptionError(f"--noise {noise} cannot be used with a cell table: give the noise log as a cell table "
                          "built with its runs, --noise NOISE_CELLS (probestats cells NOISE_LOG --keep-runs -o FILE)")
    _refuse_row_options(probe, reference=reference, scale=scale, factor=factor, row_level=row_level)
    result = analyze_cells(cells_file, metric=metric, a=a, b=b, by=by, alternative=alternative, alpha=alpha,
                           correction=correction, interval=interval, noise=noise_cells, n_resamples=n_resamples,
                           seed=seed, hedges=hedges)
    emit(result, json_out)


def _is_cells(path) -> bool:
    """Whether an input is a cell table (recognized by its columns), not a log."""
    from probestats.analyses.cells import is_cell_table

    return path is not None and not (isinstance(path, str) and path in ("within", "none")) and is_cell_table(path)


def _cell_inputs(log, **others):
    """The LOG as a cell table (or None) and each other input (``noise``, ``before``, ``pilot``) as
    ``(cell table or None, log or None)``; a cell table beside a log (or the reverse) is refused."""
    cells_file = log[0] if log and _is_cells(log) else None
    split = []
    for name, path in others.items():
        is_cells = _is_cells(path)
        flag = f"--{name}"
        if cells_file is not None and str(path) in ("within", "none"):
            raise OptionError(f"{flag} {path} cannot be used with a cell table: its noise reference is the halves "
                              f"it holds, or a cell table built with its runs ({flag} NOISE_CELLS)")
        if cells_file is not None and path is not None and not is_cells:
            raise OptionError(f"{flag} {path}: with a cell table as LOG, give this log as a cell table too "
                              f"(probestats cells {path} --keep-runs -o FILE)")
        if cells_file is None and log and is_cells:
            raise OptionError(f"{flag} {path} is a cell table: give the probe as a cell table too "
                              f"(probestats cells LOG -o FILE), or give the log itself")
        split.append((path if is_cells else None, None if is_cells else path))
    return cells_file, *[x for pair in split for x in pair]


def _refuse_row_options(probe, **options) -> None:
    """Options that need the rows of a log: refused with a cell table (they apply when it is built)."""
    used = [name for name, v in (("--where", probe.where), ("--derive", probe.derive), ("--wide", probe.wide),
                                 ("--explode", probe.explode), ("--lookup", probe.lookup), ("--code", probe.code),
                                 ("--complete", probe.complete), ("--column", probe.columns),
                                 ("--group", probe.groups), ("--fold-case", probe.fold_case),
                                 ("--read format", probe.format), ("--read sheet", probe.sheet),
                                 ("--read skip-rows", probe.skip_rows), ("--read encoding", probe.encoding),
                                 *((f"--{k.replace('_', '-')}", v) for k, v in options.items())) if v]
    if used:
        raise OptionError(f"{used[0]} cannot be used with a cell table: it needs the log's rows; build the cell "
                          f"table with it (probestats cells LOG {used[0]} ...), or give the LOG")


def _report_cells_usage(cells, metric, *, judge, probe, reference, scale, factor) -> None:
    """report of a cell table: what cannot go with it."""
    if metric is None:
        raise click.UsageError("Missing option '--metric' (a cell table holds one metric).")
    if judge is not None:
        raise OptionError("--order cannot be used with a cell table: the order probe reads the judge's replies; "
                          "report the LOG for it")
    _refuse_row_options(probe, reference=reference, scale=scale, factor=factor)


def _plan_usage(noise, pilot, noise_cells, pilot_cells, probe) -> None:
    """plan's noise and pilot: logs or cell tables, one of each kind (usage errors)."""
    if noise is None and noise_cells is None:
        raise click.UsageError("Missing option '--noise' (a log, or a cell table built with its runs).")
    if noise_cells is None and pilot_cells is None:
        return
    if noise_cells is not None and pilot is not None or pilot_cells is not None and noise is not None:
        raise click.UsageError("give the noise and the pilot both as logs or both as cell tables")
    _refuse_row_options(probe)


@cli.command()
@logs_argument()
@metric_option
@by_option
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path), metavar="FILE",
              help="The cell table to write (.parquet, .csv or .jsonl).")
@click.option("--keep-runs", "keep_runs", is_flag=True,
              help="Keep each cell's values too: a noise or pilot log for plan (or analyze's --noise) needs them.")
@shape_options
def cells(log, metric, by, output, probe, keep_runs=False):
    """Summarize a log into its cell table: one row per item x value (x --by group), exact sums.

    \b
    Examples:
      probestats cells sample_logs/style_probe.csv --metric steps -o cells.parquet
      probestats analyze cells.parquet --metric steps
    """
    import io

    from probestats.analyses.cells import cell_table
    from probestats.present.terminal.warm import warm_imports

    warm_imports("probestats.present.terminal.render")   # the closing line's printer, while the log is read
    _refuse_inputs({"-o": output}, {"LOG": log})
    table, checked = cell_table(probe.apply(log, metric=metric, by=by), metric=metric, by=by,
                                fold_case=probe.fold_case, runs=keep_runs)
    suffix = Path(output).suffix.lower()
    buffer = io.BytesIO()
    if suffix == ".parquet":
        table.write_parquet(buffer)
    elif suffix in (".csv", ".jsonl", ".ndjson"):
        (table.write_csv if suffix == ".csv" else table.write_ndjson)(buffer)
    else:
        raise OptionError(f"-o {output}: write the cell table as .parquet, .csv or .jsonl")
    write_whole(output, buffer.getvalue())
    if checked.problems:
        from probestats.present.terminal.tables import print_problems

        print_problems(checked.problems, checked.log.source)
    console(stderr=True).print(f"{table.height} cells written to {_escape(output)}")


@cli.command()
@click.option("--dialect", default="duckdb", show_default=True, metavar="NAME",
              help="duckdb or spark (tested); other sqlglot dialects are written but not tested here.")
@click.option("--table", required=True, metavar="NAME", help="The table or view holding the log, one row per run.")
@metric_option
@by_option
@click.option("--where", metavar="SQL", help="Keep only rows where this SQL condition holds.")
@click.option("--derive", multiple=True, metavar="NAME=SQL", help="Add a column from a SQL expression (repeatable).")
@click.option("--column", multiple=True, metavar="CANONICAL=HEADER",
              help="The table's column for a canonical one, e.g. item=question_id (repeatable).")
@click.option("--run-order", "order", metavar="COL",
              help="A column giving the runs' order (row number or time): items keep it.")
@click.option("--places", type=click.IntRange(0, 9), default=6, show_default=True,
              help="Decimal places of the metric's values; sums are exact whole units of 10^-places.")
@click.option("--no-seed", is_flag=True,
              help="The table has no seed column: each cell's halves (the within-log noise) follow --run-order.")
@click.option("--time", "with_time", is_flag=True,
              help="The table has a time column: keep each cell's first and last time (the report's run dates).")
@click.option("--keep-runs", "with_runs", is_flag=True,
              help="Keep each cell's values, as a noise or pilot table for plan (and analyze's --noise) needs them.")
@click.option("--setting", "settings", multiple=True, type=click.Choice(["model", "temperature", "system"]),
              help="A held-fixed setting column to keep per cell (its first run's value), for the report "
                   "(repeatable).")
def sql(dialect, table, metric, by, where, derive, column, order, places, no_seed=False, with_time=False,
        with_runs=False, settings=()):
    """Print the SQL that builds the cell table in a warehouse, and validation queries to run there.

    \b
    Examples:
      probestats sql --dialect duckdb --table logs --metric steps
      probestats sql --dialect spark --table db.logs --metric score --by model --run-order run_id
    """
    from probestats.shape.derive import parse_derive
    from probestats.shape.warehouse import TESTED_DIALECTS, cell_query, validation_queries

    common = dict(table=table, metric=metric, dialect=dialect.lower(), by=by, places=places,
                  columns=_parse_columns(column), where=where, derive=[parse_derive(d) for d in derive])
    query = cell_query(order=order, seed=None if no_seed else "seed", time=with_time, runs=with_runs,
                       settings=settings, **common)
    checks = validation_queries(seed=None if no_seed else "seed", **common)
    note = "" if dialect.lower() in TESTED_DIALECTS else f" (dialect {dialect}: written by sqlglot, not tested)"
    click.echo(f"-- the cell table{note}: save the result as Parquet or CSV, then\n"
               f"-- probestats analyze FILE --metric {metric}\n{query};\n")
    for name, text in checks.items():
        click.echo(f"-- check {name}: every row returned is a problem\n{text};\n")


@cli.command()
@click.option("--port", type=click.IntRange(0, 65535), default=0, metavar="N",
              help="The port to listen on (default: a free one).")
@click.option("--host", default="127.0.0.1", show_default=True, metavar="ADDRESS",
              help="The address to listen on; anything but loopback makes the page reachable from other machines.")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the web browser.")
@click.option("--max-mb", type=click.IntRange(min=1), default=50, show_default=True,
              help="The largest upload accepted, in MB (the log and the same-versus-same file together).")
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
        click.echo(visible(shown.getvalue(), keep_newlines=True), err=True, nl=False)
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
        click.echo(f"Error: {what} ({one_line(exc)}); rescale the metric or simplify the input", err=True)
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
