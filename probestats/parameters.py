"""Every parameter a command takes, declared once: its flag, type, default, help and help group.

A parameter is keyed by its Python name, the keyword of the command's library call. The command
line is built from these records (:mod:`probestats.cli`), so a parameter shared by several commands
has one flag, one type, one help text and one meaning in all of them. Types, choices and defaults
come from :mod:`probestats.vocabulary` where it defines them.

This module knows no command-line library: a record says what a parameter is, the command line
says how click reads it.

Examples
--------
>>> PARAMETERS["correction"].flags, PARAMETERS["correction"].choices
(('--correction',), ('holm', 'bonferroni', 'bh', 'none'))
>>> PARAMETERS["alpha"].default
0.05
>>> PARAMETERS["settings"].flags, PARAMETERS["keep_settings"].flags
(('--setting',), ('--keep-setting',))
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from probestats.errors import spell_flags_with
from probestats.limits import LIMITS
from probestats.vocabulary import (ALPHA, ALTERNATIVES, BINS_CLOSED, CORRECTION, CORRECTIONS, EFFECT_SIZES, INTERVALS,
                                   N_RESAMPLES, SEED)

__all__ = ["GROUPS", "PARAMETERS", "Parameter", "INTERVALS", "SECTIONS", "SETTING_COLUMNS", "READ_KEYS", "FORMATS",
           "ARGUMENTS", "TEXT_KINDS", "parameter", "spelling"]

#: The help groups, in the order a command's help lists them.
GROUPS = ("Input and shaping", "The comparison", "Tests", "Output")
SHAPING, COMPARISON, TESTS, OUTPUT = GROUPS

#: The settings a log's columns may hold besides model and judge.
SETTING_COLUMNS = ("model", "temperature", "system")
#: The sections of a report, each renderable alone.
SECTIONS = ("summary", "design", "table", "tests", "groups", "ceilings", "many", "factors", "noise", "control",
            "power", "compare", "describe", "validation", "finding", "limits", "framing", "judge")
#: The keys of ``--read KEY=VALUE`` and the formats it names.
READ_KEYS = ("format", "sheet", "skip-rows", "encoding", "max-cells", "max-columns", "records", "file-pattern")
FORMATS = ("csv", "tsv", "json", "jsonl", "xlsx", "ods", "parquet")
#: The kinds of ``--from-text NAME=KIND[:REGEX]``, by the Probe's field each one fills.
TEXT_KINDS = {"count": "count", "words": "words", "chars": "chars", "number": "number", "variant_from": "prompt"}
#: The commands' arguments, by the library's name of each: how messages name them on the command line.
ARGUMENTS = {"log": "LOG", "before": "BEFORE", "after": "AFTER"}


@dataclass(frozen=True)
class Parameter:
    """One parameter of the commands.

    Attributes
    ----------
    name : str
        The Python name: the keyword of the library call and of the command's function.
    flags : tuple of str
        The command line's spellings (a long flag, and ``-o`` for ``--output``).
    help : str
        The one help text, the same in every command.
    group : str
        The help group (one of :data:`GROUPS`).
    kind : {"text", "path", "folder", "int", "float", "choice", "flag", "switch"}
        What the value is: text, a file, a file or folder, a number, one of ``choices``, a flag given or not,
        or a switch with its ``--no-`` form.
    metavar : str or None
        The placeholder the help shows for the value.
    choices : tuple of str
        The values a ``choice`` accepts.
    default : object
        The value when the flag is not given.
    multiple : bool
        The flag may be repeated; the values gather in a tuple.
    nargs : int
        Values taken by one use of the flag.
    low, high : float or None
        Bounds of a number (``low_open``, ``high_open``: the bound itself excluded).
    parse : str or None
        How the command line turns the text given into the value (a parser it names so).
    common : bool
        Shown by a command's ``--help``; the others only by ``--help-all``.
    aliases : tuple of str
        Other names the library gives it (the Probe's ``columns`` for ``column``): messages that name one
        of these name this flag on the command line.
    """

    name: str
    flags: tuple
    help: str
    group: str = COMPARISON
    kind: str = "text"
    metavar: str | None = None
    choices: tuple = ()
    default: object = None
    multiple: bool = False
    nargs: int = 1
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    parse: str | None = None
    common: bool = False
    aliases: tuple = ()

    @property
    def flag(self) -> str:
        """The long flag (``--output``)."""
        return self.flags[-1]

    @property
    def short(self) -> str:
        """The shortest flag, as messages and the page's commands name the parameter (``-o``)."""
        return self.flags[0]


def _p(name, flag, help, **kw) -> Parameter:
    flags = flag if isinstance(flag, tuple) else (flag,)
    return Parameter(name, flags, help, **kw)


_RECORDS = (
    # ------------------------------------------------------------ input and shaping
    _p("read_given", "--read", "How the files are read (repeatable): format=csv|tsv|json|jsonl|xlsx|ods|parquet "
       "(default: from the suffix or content), sheet=NAME|N (0-based), skip-rows=N (title rows), encoding=ENC "
       "(default UTF-8), max-cells=N, max-columns=N (10,000,000, 2,000), records=KEY (JSON: the records' key), "
       "file-pattern={run}_{model} (parts of the file names as columns).",
       group=SHAPING, metavar="KEY=VALUE", multiple=True, parse="read", common=True),
    _p("column", "--column", "Say which header holds a column, e.g. --column item=\"Question #\" (repeatable; "
       "model= for none).", group=SHAPING, metavar="CANONICAL=HEADER", multiple=True, parse="column",
       common=True, aliases=("columns",)),
    _p("where", "--where", "Keep only rows where this SQL condition holds, e.g. \"model = 'm1'\".", group=SHAPING,
       metavar="SQL", common=True),
    _p("derive", "--derive", "A column from a SQL expression, e.g. \"total = a + b\" (repeatable).", group=SHAPING,
       metavar="NAME=SQL", multiple=True),
    _p("from_text", "--from-text", "A column from the text, before --derive (repeatable): NAME=words, NAME=chars, "
       "NAME=count:REGEX (matches in the reply, ^ at every line), NAME=number:REGEX (the first number captured); "
       "VALUE=prompt:REGEX: the value is VALUE where the prompt matches.", group=SHAPING,
       metavar="NAME=KIND[:REGEX]", multiple=True, parse="from_text"),
    _p("fold_case", "--fold-case", "Treat values differing only in case or spaces as one.", group=SHAPING,
       kind="flag", default=False),
    _p("group", "--group", "Several values standing for one group, e.g. --group female=Emily,Lakisha (repeatable).",
       group=SHAPING, metavar="GROUP=V1,V2", multiple=True, aliases=("groups",)),
    _p("wide", "--wide", "One metric column per value, e.g. --wide formal_steps,casual_steps (values from the names) "
       "or --wide formal=COL (repeatable).", group=SHAPING, metavar="COL,COL,...", multiple=True),
    _p("complete", "--complete", "Keep only items with a metric value under every compared value.", group=SHAPING,
       kind="flag", default=False),
    _p("explode", "--explode", "A list in each record as rows, its position in NAME (repeatable).", group=SHAPING,
       metavar="[NAME=]PATH", multiple=True),
    _p("lookup", "--lookup", "Join a table on its key columns (repeatable).", group=SHAPING,
       metavar="FILE KEY[,KEY]", multiple=True, nargs=2),
    _p("code", "--code", "Code the reply by a code book (repeatable).", group=SHAPING, metavar="NAME=BOOK",
       multiple=True),
    _p("design", "--design", "A design file (TOML) of the facts the log cannot say (the keys of --set).",
       group=SHAPING, kind="path", metavar="probe.toml", common=True),
    _p("facts", "--set", "A design fact over the --design file's (repeatable; lists gather): attribute, values_why, "
       "metric_definition, metric_cannot_see, held_fixed, not_fixed, not_tested, run_dates, mitigation, "
       "gap_of_interest, selection (analyze reads selection alone; a report states them all).", group=SHAPING, metavar="KEY=VALUE", multiple=True, parse="facts",
       common=True),
    _p("dialect", "--dialect", "duckdb or spark (tested); other sqlglot dialects are written but not tested here.",
       group=SHAPING, metavar="NAME", default="duckdb", common=True),
    _p("table", "--table", "The table or view holding the log, one row per run.", group=SHAPING, metavar="NAME",
       common=True),
    # ------------------------------------------------------------ the comparison
    _p("metric", "--metric", "The metric column (a number per run); where a command compares several (analyze, "
       "report), repeated or separated by commas: one analysis per metric, corrected as one family over "
       "metrics × groups; describe describes each in turn.", metavar="COL[,COL...]", multiple=True, parse="metric", common=True),
    _p("a", "--a", "The first compared value; gap = mean under A − mean under B (default: the first value in the "
       "log, for plan in the pilot).", metavar="VALUE", common=True),
    _p("b", "--b", "The second compared value (default: the second value in the log, for plan in the pilot).",
       metavar="VALUE", common=True),
    _p("by", "--by", "Groups: one result per value of COL (repeatable), corrected across groups; in judge and a "
       "report's judge section, one per judge. framing's default: model, plus topic when the topics share no "
       "reference target.", metavar="COL", multiple=True, common=True),
    _p("noise", "--noise", "The noise reference: a same-versus-same log (only the draw changed), or its cell table "
       "built with its runs (probestats cells --keep-runs); analyze and report also take 'within' (their default: "
       "the log's runs split in halves within cells, read over every split) and 'none'.", kind="path",
       metavar="NOISE_LOG", common=True),
    _p("noise_value", "--noise-value", "The noise reference: the repeats of VALUE in the log (a baseline run several "
       "times), split in halves within items, read over every split.", metavar="VALUE"),
    _p("settings", "--setting", "A held-fixed setting besides model, judge, temperature, system and file, which "
       "always are (repeatable); one that varies within items is a block: items are matched within it.",
       metavar="COL", multiple=True),
    _p("attribute_settings", "--setting-is-attribute", "A setting varied on purpose with the attribute (which model "
       "decides, which system prompt is used): accepted differing between the values, named as varied by design.",
       kind="choice", choices=SETTING_COLUMNS, multiple=True),
    _p("random_settings", "--random-setting", "A setting drawn at random per call (repeatable): checked to be "
       "balanced across the values, then the gap shown stratified by it and adjusted for it.", metavar="COL",
       multiple=True),
    _p("cluster", "--cluster", "The column of the clusters the items are nested in (document, vacancy, template): "
       "whole clusters are flipped, --interval and the effect sizes' intervals are computed over whole clusters.",
       metavar="COL"),
    _p("control", "--control", "A meaningless edit's value, set against each compared value.", metavar="VALUE"),
    _p("baseline", "--baseline", "The unchanged one of two values (default: B).", metavar="VALUE"),
    _p("reference", "--reference", "More than two values: gaps are measured against VALUE (default: the first).",
       metavar="VALUE"),
    _p("factor", "--factor", "Two attributes at once: give --factor twice (e.g. style, name); COL=L1,L2 takes the levels "
       "in that order (gaps are L1 − L2; default: order of appearance).", metavar="COL[=L1,L2]",
       multiple=True, aliases=("factors",)),
    _p("scale", "--scale", "The scale the metric (a judge's score or label) is given on, e.g. 1:5 (0: for a floor "
       "only): cells whose baseline sits at its top or bottom are flagged; plan keeps simulated runs within it "
       "(default there: an end of the noise log where 5%% of runs or more pile up).", metavar="LOW:HIGH"),
    _p("validation", "--validation", "Hand labels of sampled runs: the verdict on the corrected gap.", kind="path",
       metavar="FILE"),
    _p("bins", "--bins", "Edges cutting a numeric metric into levels, e.g. 0,45,50,100: [0, 45), [45, 50), "
       "[50, 100] (with --bins-closed right: [0, 45], (45, 50], (50, 100]).", metavar="E0,E1,..."),
    _p("agreement", "--agreement", "describe: the column whose values are raters (judges, models) that scored the "
       "same items: Kendall's tau and Spearman's rho between every two raters' scores, with Fisher z intervals, "
       "and Cohen's and Fleiss' kappa of their labels.", metavar="COL"),
    _p("bins_closed", "--bins-closed", "The side of each --bins bin that is closed: left, [a, b) as numpy's "
       "histogram (the last bin closed), or right, (a, b] as many published figures (the first bin closed).",
       kind="choice", choices=BINS_CLOSED, default=BINS_CLOSED[0]),
    # the order probe of a pairwise judge
    _p("order", "--order", "The order probe of a pairwise judge: the column whose two values are the two answer "
       "orders (judge requires it; in a report it adds the judge section).", metavar="COL", common=True),
    _p("response", "--response", "The column of the raw reply: a judge's, read with --verdict rules; framing's, "
       "parsed for a score or label (default there: reply).", metavar="COL"),
    _p("choice", "--choice", "A column that already holds the slot chosen (first, second, tie; other labels mapped "
       "with --verdict first=A).", metavar="COL"),
    _p("score", "--score", "A judge that scores each answer: the paired analysis with the order as the attribute.",
       metavar="COL"),
    _p("verdicts", "--verdict", "LABEL is first, second or tie; PATTERN literal text (case-sensitive, anywhere in the "
       "reply), or re:REGEX. Repeatable.", metavar="LABEL=PATTERN", multiple=True),
    _p("repetition", "--repetition", "The column numbering repeated judgments of the same item.", metavar="COL"),
    _p("own_first", "--own-first", "The order value that shows first the answer whose choice rate is wanted (a "
       "judge's own answer): its rate in each order, their mean tested against --chance, the position bias apart "
       "(default: the first order in the log).", metavar="VALUE"),
    _p("chance", "--chance", "The chance rate a choice is tested against, exact binomial test and Clopper-Pearson "
       "interval: a judge's choice of one answer (judge, report), a 0/1 metric's rate per value (describe).", group=TESTS,
       kind="float", metavar="P", low=0, high=1, low_open=True, high_open=True, default=0.5),
    # dual framing
    _p("targets", "--targets", "Per topic, the target each framing asserts (columns topic, affirmative, reverse).",
       kind="path", metavar="FILE", common=True),
    _p("toward", "--toward", "Reference target (default per topic: the affirmative one).", metavar="TARGET"),
    _p("item", "--item", "Columns that make a matched item (repeatable). Default: item, topic, language.",
       metavar="COL", multiple=True),
    _p("label", "--label", "The judge's label column (default: label).", metavar="COL"),
    _p("score_from", "--score-from", "Where scores come from (default: score, else label, else a parse of the "
       "response).", kind="choice", choices=("score", "label", "response")),
    _p("answers", "--answers", "Score answers as yes/no (+1/-1) or on the agreement scale; auto: yes/no for 0/1 "
       "scores or replies that read as yes/no (the output says which).", kind="choice",
       choices=("auto", "yes-no", "agreement"), default="auto"),
    _p("label_map", "--label-map", "Other yes/no wordings, e.g. --label-map yes=Affirm,Y --label-map no=Negate "
       "(LABEL: yes, no, refusal, hedge; repeatable).", metavar="LABEL=TEXT,...", multiple=True),
    _p("framing_columns", "--framing-columns", "One row per item with a column per framing's answer (prefix MEASURE: "
       "to name what they hold, e.g. score:affirmative=a,reverse=b; repeatable).",
       metavar="affirmative=COL,reverse=COL", multiple=True),
    # report's other inputs
    _p("framing_log", "--framing", "A dual-framing log (files or a folder; repeatable), shaped by the same "
       "--column/--where/--derive/--by: adds the framing section, or without LOG is the report's only analysis.",
       kind="folder", metavar="FRAMING_LOG", multiple=True),
    _p("before_log", "--before", "The same probe run before a change (LOG is the run after it): adds the compare "
       "section, as 'probestats compare BEFORE_LOG LOG' analyzes it.", kind="path", metavar="BEFORE_LOG"),
    # plan's design
    _p("pilot", "--pilot", "A pilot of the real comparison: the spread of true gaps (tau) is estimated from it.",
       kind="path", metavar="LOG", common=True),
    _p("heterogeneity", "--heterogeneity", "Stated spread (SD) of true gaps between items, instead of a pilot.",
       kind="float", metavar="TAU", low=0),
    _p("items", "--items", "Item counts (repeatable; default 6,8,10,12,15,20).", metavar="N[,N...]", multiple=True,
       common=True),
    _p("runs", "--runs", "Runs per value (repeatable; default 1,2,3,5,10,20).", metavar="K[,K...]", multiple=True,
       common=True),
    _p("gap", "--gap", "A true average gap of interest: power at it is added.", kind="float", metavar="G",
       common=True),
    # ------------------------------------------------------------ tests
    _p("alternative", "--alternative", "Direction of the test: greater means A above B.", group=TESTS,
       kind="choice", choices=ALTERNATIVES, default=ALTERNATIVES[0]),
    _p("alpha", "--alpha", "Significance level (also for the wording; framing reads its pattern on corrected "
       "p-values).", group=TESTS, kind="float", low=0, high=1, low_open=True, high_open=True, default=ALPHA),
    _p("correction", "--correction", "Correction for multiple comparisons across the command's tests: --by groups "
       "(and pairs of values, blocks, a control, per-item tests), framing's cells, judge's judges.", group=TESTS,
       kind="choice", choices=CORRECTIONS, default=CORRECTION),
    _p("interval", "--interval", "Interval for an average gap: Student t (the default), BCa bootstrap, percentile "
       "bootstrap, or the sign-flip test's inversion (each names its assumption; the bootstraps, and the inversion "
       "beyond 30 items, use --seed and --n-resamples). framing's scores take t or sign-flip; its yes/no answers "
       "have their own interval and refuse this option.", group=TESTS, kind="choice", choices=INTERVALS),
    _p("n_resamples", "--n-resamples", "Resamples of every resampling method: the bootstrap intervals, the sign-flip "
       "inversion beyond 30 items, the omnibus test and describe's Monte Carlo test when they cannot be exact.",
       group=TESTS, kind="int", low=1, default=N_RESAMPLES),
    _p("seed", "--seed", "Seed of the random draws, for results that reproduce.", group=TESTS, kind="int",
       default=SEED),
    _p("limits", "--limit", "Raise a limit: " + ", ".join(LIMITS) + ".", group=TESTS, metavar="NAME=N",
       multiple=True, parse="limits"),
    _p("effect_size", "--effect-size", "The effect size a table of several metrics (and its heatmap) shows; g_z or "
       "g_av: with Hedges' small-sample correction, applied to every d_z and d_av shown.", group=TESTS,
       kind="choice", choices=EFFECT_SIZES, default=EFFECT_SIZES[0]),
    _p("row_level", "--row-level", "Also the tests on runs, as studies of independent calls publish them: Welch's and "
       "Student's t, Cohen's d and Hedges' g with intervals, ANOVA; with --by, the value x group ANOVA and OLS "
       "with the interaction and item-clustered errors (the item-level test stays the headline).", group=TESTS,
       kind="flag", default=False),
    _p("axes", "--axes", "Values that combine attributes (female_black, male_white): name their axes in order, e.g. "
       "--axes gender,race; per axis, the mean gap and mean |gap| over items between its levels and the share of "
       "items whose Welch's t on their runs is significant (uncorrected and corrected).", group=TESTS,
       metavar="NAME,NAME", multiple=True),
    _p("per_item", "--per-item", "Also Welch's t within each item on its runs (every item's row-level test), "
       "corrected across items; with --row-level and --by, also per group.", group=TESTS, kind="flag",
       default=False),
    _p("power", "--power", "Target power for the minimum detectable gap.", group=TESTS, kind="float", low=0, high=1,
       low_open=True, high_open=True, default=0.8),
    _p("sims", "--sims", "Simulated probes per design.", group=TESTS, kind="int", low=1, default=2000),
    _p("mechanism", "--mechanism", "How a gap acts: auto (the ways the noise log leaves plausible, the least "
       "promising headlined), a shift of the level (its spread stays), a change of a count's or a 0/1 rate (its "
       "spread changes with it), or a multiplicative change of the mean.", group=TESTS, kind="choice",
       choices=("auto", "level", "rate", "scale"), default="auto"),
    _p("time_budget", "--time-budget", "Stop refining after this many seconds and say how precise the answers are "
       "then (also lifts the limit on how many designs a plan sizes).", group=TESTS, kind="float",
       metavar="SECONDS", low=0, low_open=True),
    _p("mdg_range", "--mdg-range", "Beside each MDG, its range over plausible noise logs of the same size (about "
       "doubles the time).", group=TESTS, kind="switch", default=True),
    # ------------------------------------------------------------ output
    _p("json_out", "--json", "Print the result as JSON (the stable contract of docs/reference/json.md).",
       group=OUTPUT, kind="flag", default=False, common=True),
    _p("output", ("-o", "--output"), "The file to write: a report's FILE.md (plots in FILE_files/), FILE.html (one "
       "self-contained page) or FILE.json; compare's Markdown section (.md); a cell table (.parquet, .csv or "
       ".jsonl).", group=OUTPUT, kind="path", metavar="FILE", common=True),
    _p("sections", "--section", "Render only this section (repeatable), to paste into a report of your own.",
       group=OUTPUT, kind="choice", choices=SECTIONS, metavar="NAME", multiple=True),
    _p("templates", "--templates", "A folder of Jinja templates over the report's own (a file of the same name "
       "replaces one).", group=OUTPUT, kind="folder", metavar="DIR"),
    _p("plain", "--plain", "For people who do not code: tests named in words, methods in a last section.",
       group=OUTPUT, kind="flag", default=False),
    _p("force", "--force", "Replace files in the images folder (FILE_files/) that probestats did not write.",
       group=OUTPUT, kind="flag", default=False),
    _p("plot", "--plot", "Also draw power against runs per value (needs --gap).", group=OUTPUT, kind="path",
       metavar="FILE.png"),
    _p("keep_runs", "--keep-runs", "Keep each cell's values too: a noise or pilot log for plan (or analyze's --noise) "
       "needs them.", group=OUTPUT, kind="flag", default=False),
    _p("order_column", "--run-order", "A column giving the runs' order (row number or time): items keep it.",
       group=OUTPUT, metavar="COL"),
    _p("places", "--places", "Decimal places of the metric's values; sums are exact whole units of 10^-places.",
       group=OUTPUT, kind="int", low=0, high=9, default=6),
    _p("no_seed", "--no-seed", "The table has no seed column: each cell's halves (the within-log noise) follow "
       "--run-order.", group=OUTPUT, kind="flag", default=False),
    _p("with_time", "--time", "The table has a time column: keep each cell's first and last time (the report's run "
       "dates).", group=OUTPUT, kind="flag", default=False),
    _p("keep_settings", "--keep-setting", "A held-fixed setting column to keep per cell (its first run's value), for "
       "the report (repeatable).", group=OUTPUT, kind="choice", choices=SETTING_COLUMNS, multiple=True),
    _p("port", "--port", "The port to listen on (default: a free one).", group=OUTPUT, kind="int", metavar="N",
       low=0, high=65535, default=0, common=True),
    _p("host", "--host", "The address to listen on; anything but loopback makes the page reachable from other "
       "machines.", group=OUTPUT, metavar="ADDRESS", default="127.0.0.1", common=True),
    _p("open_browser", "--open", "Open the page in the web browser.", group=OUTPUT, kind="flag", default=False,
       common=True),
    _p("max_mb", "--max-mb", "The largest upload accepted, in MB (the log and the same-versus-same file together).",
       group=OUTPUT, kind="int", low=1, default=50),
)

#: Every parameter, by its Python name.
PARAMETERS: dict[str, Parameter] = {p.name: p for p in _RECORDS}
#: The parameters the library names otherwise, by those names (the Probe's ``columns``: ``column``).
_ALIASES: dict[str, Parameter] = {a: p for p in _RECORDS for a in p.aliases}


def parameter(name: str) -> Parameter | None:
    """The registered parameter a library name stands for (its own name or an alias), or None.

    >>> parameter("columns").flag, parameter("json_out").flag, parameter("nothing") is None
    ('--column', '--json', True)
    """
    return PARAMETERS.get(name) or _ALIASES.get(name)


def _quote(text: str) -> str:
    """A value as a shell takes it: bare when it can be, else in single quotes, or double quotes around a '.

    >>> print(_quote("1:4"), _quote("words > 50"), _quote("model = 'm1'"), _quote("it's $HOME"))
    1:4 'words > 50' "model = 'm1'" 'it'"'"'s $HOME'
    """
    quoted = shlex.quote(text)
    if quoted == text or "'" not in text or any(c in text for c in '"$`\\!'):
        return quoted
    return f'"{text}"'


#: the Python names of the ``--read`` keys (``skip_rows`` for ``skip-rows``)
_READ_NAMES = {key.replace("-", "_"): key for key in READ_KEYS}


def spelling(name: str, value=None) -> str:
    """The command line's spelling of a library parameter and its value: its registered flag (``-o``
    for ``output``, ``--column`` for the Probe's ``columns``), a key of ``--read`` or ``--from-text``, or an
    argument (``LOG``); a name the registry does not know is ``--`` and the name with ``-`` for ``_``.

    :func:`probestats.errors.opt` names options so within :func:`probestats.errors.cli_spelling`.

    Examples
    --------
    >>> spelling("n_resamples", 0), spelling("factors"), spelling("sheet", 2), spelling("output", "r.md")
    ('--n-resamples 0', '--factor', '--read sheet=2', '-o r.md')
    >>> spelling("derive", "x = a + b"), spelling("complete", True), spelling("count", "steps=^[0-9]+")
    ("--derive 'x = a + b'", '--complete', "--from-text 'steps=count:^[0-9]+'")
    >>> spelling("words"), spelling("settings", ["seed", "persona"]), spelling("log")
    ('--from-text NAME=words', '--setting seed --setting persona', 'LOG')
    >>> spelling("columns", {"variant": "style"}), spelling("columns", {"item": "my id"}), spelling("limits")
    ('--column variant=style', "--column 'item=my id'", '--limit')
    """
    if name in _READ_NAMES:   # how a file is read: one --read KEY=VALUE option on the command line
        key = _READ_NAMES[name]
        return PARAMETERS["read_given"].short + " " + _quote(f"{key}={'VALUE' if value is None else value}")
    if name in TEXT_KINDS:   # a column counted from the text: one --from-text NAME=KIND[:REGEX] option
        flag, kind = PARAMETERS["from_text"].short, TEXT_KINDS[name]
        pattern = kind not in ("words", "chars")
        if value is None:
            return f"{flag} {'VALUE' if kind == 'prompt' else 'NAME'}={kind}" + (":REGEX" if pattern else "")
        label, _, regex = str(value).partition("=")
        return f"{flag} " + _quote(f"{label}={kind}" + (f":{regex}" if pattern else ""))
    if name in ARGUMENTS:
        return ARGUMENTS[name]
    known = parameter(name)
    flag = known.short if known is not None else "--" + name.replace("_", "-")
    if value is None or value is True:
        return flag
    if isinstance(value, dict):   # a mapping is one KEY=VALUE option per entry (--column variant=style)
        return " ".join(f"{flag} {_quote(f'{k}={v}')}" for k, v in value.items())
    if isinstance(value, (list, tuple)):   # a list is the repeated flag (--setting a --setting b)
        return " ".join(f"{flag} {_quote(str(v))}" for v in value)
    return f"{flag} {_quote(str(value))}"


# messages below the command line name options through errors.opt(), which sits below this registry: it is
# told here how the command line spells them
spell_flags_with(spelling)
