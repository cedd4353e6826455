"""The ``probestats`` command: thin wrappers over one library call each.

Library errors become one ``Error:`` line and exit code 1; usage errors exit 2;
nothing else (no traceback) reaches a user.
"""

from __future__ import annotations

import functools
import json
import os
import sys
from pathlib import Path

import click

from probestats import __version__
from probestats.errors import OptionError, ProbestatsError
from probestats.result import jsonable

EXIT_DATA = 1
EXIT_USAGE = 2

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=CONTEXT)
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


def read_options(func):
    """Add the options every command that reads a log shares."""

    @click.option("--format", "fmt", type=click.Choice(["csv", "tsv", "json", "jsonl", "xlsx", "ods", "parquet"],
                                                       case_sensitive=False),
                  help="The log's format (default: from the suffix).")
    @click.option("--sheet", metavar="NAME|N", help="Spreadsheet sheet by name or 0-based number (default: the first).")
    @click.option("--skip-rows", type=click.IntRange(min=0), default=0, show_default=True,
                  help="Title rows above the header to skip.")
    @click.option("--column", "column", multiple=True, metavar="CANONICAL=HEADER",
                  help="Say which header holds a column, e.g. --column item=\"Question #\" (repeatable).")
    @click.option("--encoding", metavar="ENC", callback=_check_encoding,
                  help="Text encoding of a CSV/TSV/JSON file, e.g. cp1252 (default: UTF-8).")
    @functools.wraps(func)
    def wrapper(*args, fmt=None, sheet=None, skip_rows=0, column=(), encoding=None, **kwargs):
        kwargs["read"] = {"format": fmt, "sheet": sheet, "skip_rows": skip_rows,
                          "columns": _parse_columns(column), "encoding": encoding}
        return func(*args, **kwargs)

    return wrapper


def emit_json(obj) -> None:
    """Print one JSON object on standard output."""
    data = obj.to_dict() if hasattr(obj, "to_dict") else obj
    click.echo(json.dumps(jsonable(data), ensure_ascii=False, indent=2, allow_nan=False))


def write_whole(path: str | Path, content: str | bytes) -> None:
    """Write an output file whole or not at all, after checking that it can go there."""
    path = Path(path)
    if path.is_dir():
        raise OptionError(f"-o {path}: is a folder; give a file name such as {path / 'report.md'}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise OptionError(f"-o {path}: the folder '{parent}' does not exist; create it first")
    from probestats.present.output import write_whole as write

    write(path, content)


def console(stderr: bool = False):
    from rich.console import Console

    out = Console(stderr=stderr, highlight=False, soft_wrap=True)
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.width = 120  # piped or captured: no terminal to fit, so do not squeeze tables to 80 columns
    return out


def _escape(text) -> str:
    from probestats.present.terminal import escape

    return escape(text)


def print_problems(problems, source: str | None = None) -> None:
    """Problems grouped by severity, errors first."""
    out = console()
    problems = list(problems)
    if not problems:
        return
    word = "problem" if len(problems) == 1 else "problems"
    out.print(f"{len(problems)} {word}" + (f" in {_escape(source)}" if source else ""))
    for severity in ("error", "warning"):
        for p in problems:
            if p.severity == severity:
                style = "red" if severity == "error" else "yellow"
                out.print(f"  [{style}]{severity:<8}[/{style}] {p.code:<21} {_escape(p.message)}")


# ---------------------------------------------------------------- options that mean the same everywhere

metric_option = click.option("--metric", required=True, metavar="COL", help="The metric column (a number per run).")
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


def json_option(what: str = "the result"):
    return click.option("--json", "json_out", is_flag=True, help=f"Print {what} as JSON.")


# ---------------------------------------------------------------- commands


@cli.command()
@click.argument("log", type=click.Path(dir_okay=True, path_type=Path))
@click.option("--metric", metavar="COL", help="The metric column to check (numbers, blanks, suspect zeros).")
@click.option("--a", "a", metavar="VALUE", help="First compared value (default: the first value in the log).")
@click.option("--b", "b", metavar="VALUE", help="Second compared value (default: the second value in the log).")
@fold_case_option
@json_option()
@click.option("--where", metavar="SQL", help="Keep only rows where this SQL condition holds, e.g. \"model = 'm1'\".")
@click.option("--derive", multiple=True, metavar="NAME=SQL",
              help="Add a column from a SQL expression, e.g. \"long = words > 50\" (repeatable).")
@read_options
def validate(log, metric, a, b, fold_case, json_out, read, where=None, derive=()):
    """Check that LOG is a matched, held-fixed probe; list every problem with its rows.

    Exit code 0 when there are no errors (warnings allowed), 1 when there are.

    \b
    Examples:
      probestats validate sample_logs/style_probe.csv --metric steps
      probestats validate hand_sheet.xlsx --metric steps --skip-rows 2 --json
    """
    from probestats.checks.schema import validate as run

    if where is not None or derive:
        from probestats.shape.derive import apply

        checked = run(apply(str(log), where=where, derive=derive, metric=metric, **read), metric=metric, a=a, b=b,
                      fold_case=fold_case)
    else:
        checked = run(str(log), metric=metric, a=a, b=b, fold_case=fold_case, **read)
    if json_out:
        emit_json(checked)
    else:
        out = console()
        mapping = ", ".join(f"{k} = '{_escape(v)}'" for k, v in checked.log.columns.items())
        out.print(f"{_escape(checked.log.source)}: {checked.n_rows} rows; columns: {mapping or '(none recognized)'}")
        if checked.a is not None and checked.b is not None:
            out.print(f"compared values: '{_escape(checked.a)}' and '{_escape(checked.b)}'"
                      + ("" if a or b else " (the first two in the log; choose with --a/--b)"))
        if metric is None:
            out.print("no --metric given: the metric checks were skipped")
        print_problems(checked.problems, checked.log.source)
        out.print("ok: no errors" if checked.ok else "not ok: fix the errors above")
    if not checked.ok:
        raise SystemExit(EXIT_DATA)


@cli.command()
@click.argument("log", type=click.Path(path_type=Path))
@metric_option
@a_option
@b_option
@click.option("--noise", type=click.Path(path_type=Path), metavar="NOISE_LOG",
              help="A same-versus-same log (only the draw changed), analyzed beside the probe.")
@click.option("--by", multiple=True, metavar="COL", help="Repeat the analysis per group of COL (repeatable).")
@alternative_option
@alpha_option
@click.option("--correction", type=click.Choice(["holm", "bonferroni", "bh", "none"]), default="holm",
              show_default=True, help="Correction across --by groups.")
@fold_case_option
@click.option("--json", "json_out", is_flag=True, help="Print the result as JSON (SPEC §9).")
@click.option("--where", metavar="SQL", help="Keep only rows where this SQL condition holds, e.g. \"model = 'm1'\".")
@click.option("--derive", multiple=True, metavar="NAME=SQL",
              help="Add a column from a SQL expression (repeatable); it can be the --metric.")
@click.option("--reference", metavar="VALUE", help="More than two values: gaps are measured against VALUE (default: the first).")
@click.option("--group", multiple=True, metavar="GROUP=V1,V2",
              help="Several values standing for one group, e.g. --group female=Emily,Lakisha (repeatable).")
@click.option("--scale", metavar="LOW:HIGH", help="A judge's scale: flag cells whose --b baseline sits at its top or bottom.")
@click.option("--factor", multiple=True, metavar="COL", help="Two attributes at once: give --factor twice (e.g. style, name).")
@click.option("--n-resamples", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Monte Carlo draws of the omnibus test when it cannot be exact.")
@seed_option
@click.option("--row-level", is_flag=True,
              help="Also Welch's t on the runs, as many published audits report it (the item-level test stays the headline).")
@read_options
def analyze(log, metric, a, b, noise, by, alternative, alpha, correction, fold_case, json_out, read, where=None,
            derive=(), reference=None, group=(), scale=None, factor=(), n_resamples=10_000, seed=0, row_level=False):
    """Per-item gaps, the exact sign-flip and sign tests, and the noise beside them.

    \b
    Examples:
      probestats analyze sample_logs/style_probe.csv --metric steps
      probestats analyze sample_logs/style_probe.csv --metric steps --a formal --b casual \\
          --noise sample_logs/style_noise.csv --json
    """
    from probestats.analyses.paired import analyze as run

    extra = dict(where=where, derive=derive, reference=reference, group=group, scale=scale, factor=factor,
                 n_resamples=n_resamples, seed=seed)
    if any(v for k, v in extra.items() if k not in ("n_resamples", "seed")) or (n_resamples, seed) != (10_000, 0):
        result = _analysis_beyond_a_pair(log, metric, a, b, noise, by, alternative, alpha, correction, fold_case,
                                         read, **extra)
    else:
        result = run(str(log), metric=metric, a=a, b=b, noise=str(noise) if noise else None, by=by,
                     alternative=alternative, alpha=alpha, correction=correction, fold_case=fold_case,
                     read_options=read)
    if row_level:  # Welch's t on runs beside the item-level tests, for a comparison of two values
        from probestats.analyses.paired import Analysis, with_row_level

        if not isinstance(result, Analysis):
            raise OptionError("--row-level applies to a comparison of two values; choose them with --a and --b")
        result = with_row_level(result)
    if json_out:
        emit_json(result)
    else:
        _print_any(result)


def _analysis_beyond_a_pair(log, metric, a, b, noise, by, alternative, alpha, correction, fold_case, read, *,
                            where, derive, reference, group, scale, factor, n_resamples, seed):
    """analyze with SPEC §7 options: filters and derived columns first, then the analysis they ask for."""
    from probestats.shape.derive import apply
    from probestats.analyses.many import analyze_many, many_values
    from probestats.analyses.paired import analyze as run

    source = apply(str(log), where=where, derive=derive, metric=metric, **read)
    common = dict(alternative=alternative, alpha=alpha, correction=correction, fold_case=fold_case)
    if factor:
        if a or b or group or reference:
            raise OptionError("--factor compares the levels of two attributes; drop --a, --b, --group and --reference")
        from probestats.analyses.factors import analyze_factors

        return analyze_factors(source, metric=metric, factors=factor, **common)
    if group or reference is not None:
        if a or b:
            raise OptionError("--group and --reference compare every value; drop --a and --b (or drop --group)")
        return analyze_many(source, metric=metric, groups=group, reference=reference, by=by, noise=noise,
                            n_resamples=n_resamples, seed=seed, **common)
    noise = str(noise) if noise else None
    if scale:
        from probestats.analyses.evaluator import analyze_judge

        # a judge's cells are split by criterion whatever else --by asks for (absent columns are ignored)
        return analyze_judge(source, metric=metric, a=a, b=b, scale=scale, noise=noise,
                             by=tuple(by) + (("criterion",) if "criterion" not in by else ()), **common)
    if a is None and b is None and many_values(source, fold_case=fold_case) is not None:
        return analyze_many(source, metric=metric, by=by, noise=noise, n_resamples=n_resamples, seed=seed, **common)
    return run(source, metric=metric, a=a, b=b, noise=noise, by=by, **common)


def _print_any(result) -> None:
    """Print whichever analysis analyze produced."""
    kind = type(result).__name__
    if kind == "ManyAnalysis":
        from probestats.analyses.many import print_many

        print_many(result, console())
    elif kind == "FactorAnalysis":
        from probestats.analyses.factors import print_factors

        print_factors(result, console())
    else:
        from probestats.present.terminal import print_analysis

        print_analysis(result, console())


@cli.command()
@click.argument("log", type=click.Path(path_type=Path))
@metric_option
@a_option
@b_option
@click.option("--noise", type=click.Path(path_type=Path), metavar="NOISE_LOG",
              help="A same-versus-same log, reported beside the probe (and used for the minimum detectable gap).")
@alternative_option
@alpha_option
@click.option("-o", "--output", required=True, type=click.Path(path_type=Path), metavar="FILE",
              help="Where to write the report: FILE.md (plots in FILE_files/), FILE.html (one self-contained "
                   "page) or FILE.json.")
@fold_case_option
@click.option("--section", "sections", multiple=True, metavar="NAME",
              type=click.Choice(["summary", "design", "table", "tests", "noise", "power", "finding", "limits",
                                 "framing"]),
              help="Render only this section (repeatable), for pasting into a report of your own.")
@click.option("--templates", type=click.Path(path_type=Path), metavar="DIR",
              help="A folder of templates that replace the shipped ones of the same name (e.g. table.md.j2).")
@click.option("--design", "design_file", type=click.Path(path_type=Path), metavar="probe.toml",
              help="A design file (TOML) with what the log cannot say; the options below override it.")
@click.option("--attribute", metavar="TEXT", help="The attribute probed, e.g. 'writing style'.")
@click.option("--values-why", metavar="TEXT", help="Why the compared values matter.")
@click.option("--metric-definition", metavar="TEXT", help="The metric's definition, written before the runs.")
@click.option("--metric-cannot-see", multiple=True, metavar="TEXT", help="What the metric cannot see (repeatable).")
@click.option("--held-fixed", multiple=True, metavar="TEXT", help="Held fixed beyond what the log shows (repeatable).")
@click.option("--not-fixed", multiple=True, metavar="TEXT", help="What could not be held fixed (repeatable).")
@click.option("--not-tested", multiple=True, metavar="TEXT", help="An attribute not tested (repeatable).")
@click.option("--run-dates", metavar="TEXT", help="When the runs were made (default: from the log's time column).")
@click.option("--mitigation", metavar="TEXT", help="Mitigation applied before the runs, or 'none'.")
@click.option("--gap-of-interest", type=float, metavar="G", help="A gap worth detecting (for the power plot).")
@click.option("--framing", "framing_log", type=click.Path(path_type=Path), metavar="FRAMING_LOG",
              help="A dual-framing log: adds the framing section (as 'probestats framing' analyzes it).")
@click.option("--targets", type=click.Path(path_type=Path), metavar="FILE",
              help="With --framing: per topic, the target each framing asserts (topic, affirmative, reverse).")
@click.option("--toward", metavar="TARGET", help="With --framing: the reference target.")
@read_options
def report(log, metric, a, b, noise, alternative, alpha, output, fold_case, sections, templates, design_file,
           attribute, values_why, metric_definition, metric_cannot_see, held_fixed, not_fixed, not_tested,
           run_dates, mitigation, gap_of_interest, read, framing_log=None, targets=None, toward=None):
    """Write the report of LOG as Markdown, HTML or JSON (by the suffix of -o), from Jinja templates.

    Missing design facts (attribute, metric definition, attributes not tested, ...) show as
    visible placeholders; give them with --design probe.toml or the options.

    \b
    Examples:
      probestats report sample_logs/style_probe.csv --metric steps --noise sample_logs/style_noise.csv -o report.md
      probestats report sample_logs/style_probe.csv --metric steps --design probe.toml -o report.html
      probestats report sample_logs/style_probe.csv --metric steps --section table -o table.md
      probestats report sample_logs/style_probe.csv --metric steps -o report.html \\
          --framing sample_logs/framing_long.csv --targets sample_logs/framing_targets.csv
    """
    from probestats.shape.design import design_from
    from probestats.analyses.paired import analyze as run
    from probestats.present.report import render_report

    fmt = _report_format(output)
    plan = design_from(design_file, attribute=attribute, values_why=values_why,
                       metric_definition=metric_definition, metric_cannot_see=metric_cannot_see,
                       held_fixed=held_fixed, not_fixed=not_fixed, not_tested=not_tested, run_dates=run_dates,
                       mitigation=mitigation, gap_of_interest=gap_of_interest)
    if framing_log is None and (targets is not None or toward is not None):
        raise OptionError("--targets and --toward belong to the framing section; give the dual-framing log "
                          "with --framing FRAMING_LOG")
    result = run(str(log), metric=metric, a=a, b=b, noise=str(noise) if noise else None,
                 alternative=alternative, alpha=alpha, fold_case=fold_case, many=False, read_options=read)
    framing = None
    if framing_log is not None:
        from probestats.analyses.framing import analyze_framing

        framing = analyze_framing(str(framing_log), targets=str(targets) if targets else None, toward=toward,
                                  alpha=alpha)
    assets = output.parent / f"{output.stem}_files" if fmt == "md" else None
    text = render_report(result, format=fmt, sections=list(sections) or None, templates=templates, design=plan,
                         assets_dir=assets, framing=framing)
    write_whole(output, text)
    console(stderr=True).print(f"wrote {_escape(output)}")


@cli.command()
@click.option("--noise", required=True, type=click.Path(path_type=Path), metavar="LOG",
              help="A same-versus-same (or pilot) log: sigma per run is pooled within its item x value cells.")
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
@click.option("--scale", metavar="LOW:HIGH",
              help="The metric's floor and ceiling (e.g. 1:5, 0:1, or 0: for a floor only); simulated runs stay "
                   "within it. Default: an end of the noise log where 5% of runs or more pile up.")
@json_option("the plan")
@read_options
def plan(noise, metric, pilot, a, b, heterogeneity, items, runs, gap, alternative, alpha, target, sims, seed,
         plot, scale, json_out, read):
    """Size a probe: the minimum detectable gap (and power at --gap) of each design.

    \b
    Examples:
      probestats plan --noise sample_logs/style_noise.csv --metric steps --items 6,8,12 --runs 5 --runs 20
      probestats plan --noise sample_logs/style_noise.csv --metric steps --pilot sample_logs/style_probe.csv \\
          --items 8 --runs 5,10,20 --gap 0.75 --json
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from probestats.io.read import read_log
    from probestats.analyses.plan import noise_model, plan_probe

    if plot and gap is None:
        raise OptionError("--plot draws power at a gap; add --gap G")
    model = noise_model(read_log(str(noise), metric=metric, **read), metric, scale=scale)
    pilot_log = read_log(str(pilot), metric=metric, **read) if pilot else None
    err = console(stderr=True)
    with Progress(TextColumn("simulating designs"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task("plan", total=None)
        result = plan_probe(model, items=list(items) or [6, 8, 10, 12, 15, 20], runs=list(runs) or [1, 2, 3, 5, 10, 20],
                            gap=gap, metric=metric, pilot=pilot_log, heterogeneity=heterogeneity, alpha=alpha,
                            power=target, sims=sims, seed=seed, alternative=alternative, a=a, b=b,
                            progress=lambda done, total: bar.update(task, completed=done, total=total))
    if plot:
        from probestats.present.plots_power import power_curve

        ax = power_curve(result)
        ax.figure.savefig(plot, dpi=120)
        err.print(f"wrote {_escape(plot)}")
    if json_out:
        emit_json(result)
    else:
        click.echo(result.to_text())


@cli.command()
@click.argument("log", type=click.Path(path_type=Path))
@click.option("--by", multiple=True, metavar="COL",
              help="Cells (repeatable). Default: model, plus topic when the topics share no reference target.")
@click.option("--toward", metavar="TARGET", help="Reference target (default per topic: the affirmative one).")
@click.option("--targets", type=click.Path(path_type=Path), metavar="FILE",
              help="Per topic, the target each framing asserts (columns topic, affirmative, reverse).")
@click.option("--item", multiple=True, metavar="COL",
              help="Columns that make a matched item (repeatable). Default: item, topic, language.")
@click.option("--alpha", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.05,
              show_default=True, help="Level for the pattern (on corrected p-values).")
@click.option("--correction", type=click.Choice(["holm", "bh", "none"]), default="holm", show_default=True,
              help="Correction across cells.")
@click.option("--interval", type=click.Choice(["t", "sign-flip"]), default="t", show_default=True,
              help="Interval method for bias and acquiescence.")
@click.option("--label", "label_col", metavar="COL", help="The judge's label column (default: label).")
@click.option("--response", "response_col", metavar="COL", help="The raw response column (default: reply).")
@click.option("--score-from", type=click.Choice(["score", "label", "response"]),
              help="Where scores come from (default: score, else label, else a parse of the response).")
@click.option("--scale", metavar="LOW:HIGH", help="Declared numeric scale of scores or labels, e.g. 1:5.")
@json_option()
@read_options
def framing(log, by, toward, targets, item, alpha, correction, interval, label_col, response_col, score_from,
            scale, json_out, read):
    """Dual framing: which way a model leans between two targets, how strongly, and whether
    the lean is protective or assertive.

    \b
    Example:
      probestats framing sample_logs/framing_long.csv --targets sample_logs/framing_targets.csv
    """
    from probestats.analyses.framing import analyze_framing, print_framing
    from probestats.io.read import read_log

    result = analyze_framing(read_log(str(log), **read), by=list(by) or None, toward=toward,
                             targets=str(targets) if targets else None, item=list(item) or None, alpha=alpha,
                             correction=correction, interval=interval, label=label_col, response=response_col,
                             score_from=score_from, scale=scale)
    if json_out:
        emit_json(result)
    else:
        print_framing(result, console())


def _report_format(path: Path) -> str:
    """The report format named by the suffix of -o (and a check that the file can be written there)."""
    suffix = path.suffix.lower()
    formats = {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".json": "json"}
    if suffix not in formats:
        raise OptionError(f"-o {path}: unknown report format '{suffix or '(none)'}'; "
                          "use a file ending in .md, .html or .json")
    if path.is_dir():
        raise OptionError(f"-o {path}: is a folder; give a file name such as {path / ('report' + suffix)}")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.exists():
        raise OptionError(f"-o {path}: the folder '{parent}' does not exist; create it first")
    return formats[suffix]


@cli.command()
@click.argument("before", type=click.Path(path_type=Path))
@click.argument("after", type=click.Path(path_type=Path))
@metric_option
@a_option
@b_option
@alternative_option
@alpha_option
@fold_case_option
@click.option("-o", "--output", type=click.Path(path_type=Path), metavar="FILE",
              help="Also write the Markdown report section to FILE (.md).")
@json_option()
@read_options
def compare(before, after, metric, a, b, alternative, alpha, fold_case, output, json_out, read):
    """Compare a probe BEFORE and AFTER a mitigation: same items, values, seeds and metric, side by side.

    Refuses (exit 1) logs that differ in items, values, seeds or metric.

    \b
    Example:
      probestats compare before.csv after.csv --metric steps --a formal --b casual
    """
    from probestats.analyses.compare import compare_runs, print_comparison, render_compare

    result = compare_runs(str(before), str(after), metric=metric, a=a, b=b, alternative=alternative, alpha=alpha,
                          fold_case=fold_case, read_options=read)
    if output is not None:
        if output.suffix.lower() not in (".md", ".markdown"):
            raise OptionError(f"-o {output}: the compare section is Markdown; use a file ending in .md")
        write_whole(output, render_compare(result))
    if json_out:
        emit_json(result)
    else:
        print_comparison(result, console())
    if output is not None:
        console(stderr=True).print(f"wrote {_escape(output)}")


# ---------------------------------------------------------------- entry point


def main(argv=None) -> int:
    """Run the command line; return the exit code (``python -m probestats`` and the script call it)."""
    try:
        rv = cli.main(args=argv, prog_name="probestats", standalone_mode=False)
        code = rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.ClickException as exc:
        exc.show()
        code = exc.exit_code if isinstance(exc, click.UsageError) else EXIT_USAGE
    except click.exceptions.Abort:
        click.echo("Error: aborted", err=True)
        code = EXIT_DATA
    except ProbestatsError as exc:
        click.echo(f"Error: {exc}", err=True)
        code = EXIT_DATA
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else EXIT_DATA
    except BrokenPipeError:
        code = 0
    except KeyboardInterrupt:
        click.echo("Error: interrupted", err=True)
        code = 130
    except MemoryError:
        click.echo("Error: out of memory; read fewer columns or split the log", err=True)
        code = EXIT_DATA
    except Exception as exc:  # a bug: still one line, never a traceback
        if os.environ.get("PROBESTATS_DEBUG"):
            raise
        text = str(exc).splitlines()[0] if str(exc) else ""
        click.echo(f"Error: unexpected {type(exc).__name__}: {text} (set PROBESTATS_DEBUG=1 for details and "
                   "report it)", err=True)
        code = EXIT_DATA
    sys.stdout.flush()
    return code


def run() -> None:  # pragma: no cover - the console script
    sys.exit(main())


if __name__ == "__main__":  # pragma: no cover
    run()
