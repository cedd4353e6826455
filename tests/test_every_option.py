"""No option is ignored in silence: each one changes the output where it applies, or is refused.

Every option of every command is given a non-default value on a log where it applies, and the
command is run twice, with and without it, in this process. The option passes when the output
changes (stdout, the ``--json`` text, the files written, or validate's report of the problems).
Each case says which it expects: a change (the run with the option must then succeed, so a
refusal never passes for a change), or a refusal (``refused``: exit 1 or 2 and one ``Error:`` line
holding a fragment of the reason, never a traceback or an "unexpected" error). A second test walks every click
command's parameters and fails on any option with no case here, except the few in ``EXEMPT``
(each with its reason).

``{name}`` in an argument is replaced by the path of the fixture log ``name`` (see ``logs``);
``{out}`` by a file the command writes, read back and compared.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import polars as pl
import pytest

from cli_run import run_cli
from framing_factory import make_yes_no_log
from judge_factory import Judge, make_judge_log
from probestats.cli import cli

SAMPLES = Path(__file__).resolve().parent.parent / "sample_logs"

#: (command, option) pairs with no case, each with the reason
EXEMPT = {
    ("*", "help"): "--help prints the help and exits; the help tests check it",
    ("serve", "port"): "where the server listens; the serve tests start it (a case here would block)",
    ("serve", "host"): "where the server listens; the serve tests start it",
    ("serve", "open_browser"): "opens a browser on the page; no output of its own",
    ("serve", "max_mb"): "the upload limit, checked by the serve tests on the app",
    ("report", "force"): "lets -o replace an images folder that exists; tested in test_report_job",
    ("*", "help_all"): "--help-all prints every option's help and exits; the help tests check it",
}


#: cases still failing, each with what is ignored: strict, so a fix must delete its entry
KNOWN_IGNORED: dict[str, str] = {}


def case(command, option, extra, base, note="", refusal=None):
    """One case: ``probestats COMMAND BASE`` against ``probestats COMMAND BASE EXTRA``.

    The option must change the output, or, with ``refusal`` (a fragment of the reason), be refused.
    """
    name = f"{command}-{option}{note}"
    marks = [pytest.mark.xfail(reason=KNOWN_IGNORED[name], strict=True)] if name in KNOWN_IGNORED else []
    return pytest.param(command, option, list(extra), list(base), refusal, id=name, marks=marks)


def refused(command, option, extra, base, reason, note=""):
    """A case whose option must be refused, with ``reason`` in the message."""
    return case(command, option, extra, base, note, refusal=reason)


# ---------------------------------------------------------------- the base runs of each command

PROBE = ["{probe}", "--metric", "steps"]
VALIDATE = ["{probe}", "--metric", "steps"]
ANALYZE = ["{probe}", "--metric", "steps", "--json", "--n-resamples", "200"]
REPORT = ["{probe}", "--metric", "steps", "-o", "{out}.md", "--n-resamples", "200"]
DESCRIBE = ["{probe}", "--metric", "steps", "--json", "--n-resamples", "200"]
CELLS = ["{probe}", "--metric", "steps", "-o", "{out}.csv"]
COMPARE = ["{probe}", "{probe}", "--metric", "steps", "--json"]
PLAN = ["--noise", "{noise}", "--metric", "steps", "--items", "6,8", "--runs", "2,5", "--sims", "60", "--json",
        "--no-mdg-range"]
FRAMING = ["{framing}", "--targets", "{targets}", "--json"]
YESNO = ["{yesno}", "--json"]
JUDGE = ["{judge}", "--order", "order", "--response", "reply", "--verdict", "first=[[A]]",
         "--verdict", "second=[[B]]", "--verdict", "tie=[[C]]", "--json"]
SQL = ["--table", "logs", "--metric", "steps"]
RJUDGE = [*JUDGE[:-1], "-o", "{out}.md"]
RFRAMING = ["--framing", "{framing}", "--targets", "{targets}", "-o", "{out}.md"]

#: per command reading logs: its base run, with {probe} standing for the log the shape options act on
SHAPED = {
    "validate": VALIDATE, "analyze": ANALYZE, "report": REPORT, "describe": DESCRIBE, "cells": CELLS,
    "compare": ["{probe}", "{probe}", "--metric", "steps", "--json"],
    "plan": ["--noise", "{probe}", "--metric", "steps", "--items", "6", "--runs", "2", "--sims", "40",
             "--json", "--no-mdg-range"],
}


def swap(command, option, other, base, note=""):
    """An argument, or an output's place: ``probestats COMMAND BASE`` against ``probestats COMMAND OTHER``."""
    return pytest.param(command, option, ["<swap>", *other], list(base), None, id=f"{command}-{option}{note}")


def with_log(base, log):
    return [a.replace("{probe}", "{" + log + "}") for a in base]


def shape_cases():
    """The shaping and reading options, on each command reading a probe log."""
    out = []
    for cmd, base in SHAPED.items():
        out += [
            case(cmd, "where", ["--where", "seed <= 3"], base),
            case(cmd, "derive", ["--derive", "steps = CASE WHEN item = 0 THEN NULL ELSE steps END"] if cmd == "validate"
                 else ["--derive", "steps = steps + item % 2"], base),
            case(cmd, "from_text", ["--from-text", "steps=count:^\\d+[.)]", "--where", "item < 7"],
                 with_log(base, "nosteps")),
            refused(cmd, "fold_case", ["--fold-case"], with_log(base, "cased"), "does not fold values")
            if cmd in ("describe", "plan") else case(cmd, "fold_case", ["--fold-case"], with_log(base, "cased")),
            case(cmd, "group", ["--group", "casual=casual,chatty", "--group", "formal=formal"], with_log(base, "three"))
            if cmd in ("analyze", "report") else
            refused(cmd, "group", ["--group", "casual=casual,chatty"], with_log(base, "three"),
                    "groups of values are read by the analysis of three values or more"),
            case(cmd, "wide", ["--wide", "formal_steps,casual_steps"], with_log(base, "wide")),
            case(cmd, "complete", ["--complete"], with_log(base, "unmatched")),
            case(cmd, "explode", ["--explode", "seed=steps"], with_log(base, "listed")),
            case(cmd, "lookup", ["--lookup", "{levels}", "item"], with_log(base, "probe") + ["--where", "level = 'hard'"]),
            case(cmd, "code", ["--code", "steps={book}"], with_log(base, "nosteps")),
            case(cmd, "column", ["--column", "item=Question #"], with_log(base, "renamed")),
            case(cmd, "read_given", ["--read", "skip-rows=2"], with_log(base, "titled"), "-skip-rows"),
            case(cmd, "read_given", ["--read", "encoding=latin-1"], with_log(base, "latin1"), "-encoding"),
            case(cmd, "read_given", ["--read", "max-cells=10"], base, "-max-cells"),
            refused(cmd, "read_given", ["--read", "max-columns=3"], base, "more than --read max-columns=3",
                    "-max-columns"),
            case(cmd, "read_given", ["--read", "format=csv"], with_log(base, "suffixless"), "-format"),
            case(cmd, "read_given", ["--read", "records=first"], with_log(base, "records"), "-records"),
            case(cmd, "read_given", ["--read", "sheet=other"], with_log(base, "sheets"), "-sheet"),
        ]
    return out


def framing_shape_cases():
    """The shaping and reading options on the framing and judge logs."""
    out = []
    for cmd, base, where, col in (("framing", FRAMING, "Iteration <= 3", "Score"),
                                  ("judge", JUDGE, "item < 'q020'", "reply")):
        log = base[0].strip("{}")
        out += [
            case(cmd, "where", ["--where", where], base),
            case(cmd, "derive", ["--derive", "Score = -Score"] if cmd == "framing"
                 else ["--derive", "reply = replace(reply, '[[A]]', '[[B]]')"], base),
            refused(cmd, "from_text", ["--from-text", "AB=prompt:^q0"], base, "has no prompt column") if cmd == "judge"
            else case(cmd, "from_text", ["--from-text", "Score=number:(\\d)", "--where", "Iteration <= 2"], base),
            refused(cmd, "fold_case", ["--fold-case"], [f"{{{log}_cased}}", *base[1:]], "does not fold values"),
            refused(cmd, "group", ["--group", "Affirmative=Affirmative,AFFIRMATIVE", "--group", "Reverse=Reverse,REVERSE"]
                    if cmd == "framing" else ["--group", "AB=AB,ab", "--group", "BA=BA,ba"], [f"{{{log}_cased}}", *base[1:]],
                    "groups of values are read by the analysis of three values or more"),
            case(cmd, "wide", ["--wide", "AB=reply_ab,BA=reply_ba"], ["{judge_wide}", "--order", "variant", *base[3:]])
            if cmd == "judge" else case(cmd, "wide", ["--wide", "model-a=score_a,model-b=score_b"],
                                        ["{framing_wide}", *base[1:]]),
            refused(cmd, "complete", ["--complete"], [f"{{{log}_unmatched}}", *base[1:]],
                    "in one framing only itself" if cmd == "framing" else "in one order only itself"),
            case(cmd, "explode", ["--explode", "Iteration=score"] if cmd == "framing"
                 else ["--explode", "rep=reply"], [f"{{{log}_listed}}", *base[1:]]),
            case(cmd, "lookup", ["--lookup", f"{{{log}_levels}}", "item" if cmd == "judge" else "Item"],
                 base + ["--where", "level = 'hard'"]),
            case(cmd, "code", ["--code", "Score=yes-no"], base) if cmd == "framing"
            else case(cmd, "code", ["--code", "choice_label={judge_book}", "--choice", "choice_label"],
                      ["{judge}", "--order", "order", "--json"]),
            case(cmd, "column", ["--column", f"item=Question #"], [f"{{{log}_renamed}}", *base[1:]]),
            case(cmd, "read_given", ["--read", "skip-rows=2"], [f"{{{log}_titled}}", *base[1:]], "-skip-rows"),
            case(cmd, "read_given", ["--read", "max-cells=10"], base, "-max-cells"),
            refused(cmd, "read_given", ["--read", "encoding=utf-16"], base, "is not valid utf-16", "-encoding"),
        ]
    return out


CASES = [
    # ------------------------------------------------------------ validate
    swap("validate", "log", ["{probe5}", "--metric", "steps"], VALIDATE),
    case("validate", "metric", ["--metric", "steps"], ["{probe}"]),
    case("validate", "a", ["--a", "casual"], VALIDATE),
    case("validate", "b", ["--b", "formal", "--a", "casual"], VALIDATE),
    case("validate", "by", ["--by", "model"], with_log(VALIDATE, "two_models")),
    case("validate", "attribute_settings", ["--setting-is-attribute", "model"], with_log(VALIDATE, "confounded")),
    case("validate", "random_settings", ["--random-setting", "temperature"], with_log(VALIDATE, "varied")),
    case("validate", "json_out", ["--json"], VALIDATE),
    # ------------------------------------------------------------ analyze
    swap("analyze", "log", ["{probe5}", "--metric", "steps", "--json", "--n-resamples", "200"], ANALYZE),
    case("analyze", "metric", ["--metric", "steps,steps2"], with_log(ANALYZE, "probe") + ["--derive", "steps2 = steps * steps"]),
    case("analyze", "a", ["--a", "casual"], ANALYZE),
    case("analyze", "b", ["--b", "formal", "--a", "casual"], ANALYZE),
    case("analyze", "noise", ["--noise", "{noise}"], ANALYZE),
    # casual: the default noise reference of this log is already the halves of formal's runs
    case("analyze", "noise_value", ["--noise-value", "casual"], ANALYZE),
    refused("analyze", "noise_value", ["--noise-value", "formal"], ANALYZE + ["--noise", "{noise}"],
            "two noise references", "-with-noise"),
    # persona varies within cells: a block only when named (model, judge, temperature, system and file are without it)
    case("analyze", "settings", ["--setting", "persona"], with_log(ANALYZE, "crossed")),
    refused("analyze", "settings", ["--setting", "model"], with_log(ANALYZE, "two_models"), "model is always a setting",
            "-always"),
    refused("analyze", "settings", ["--setting", "model"], with_log(ANALYZE, "three_models"),
            "with more than two values the analysis does not use it", "-many"),
    case("analyze", "attribute_settings", ["--setting-is-attribute", "model"], with_log(ANALYZE, "confounded")),
    # items nested in the models (each item run by one): with the same items under both models, the model is a
    # block whose groups are shown without --by, so --by model would change nothing there
    case("analyze", "by", ["--by", "model"], with_log(ANALYZE, "nested_models")),
    case("analyze", "alternative", ["--alternative", "greater"], ANALYZE),
    case("analyze", "alpha", ["--alpha", "0.2"], ANALYZE),
    case("analyze", "correction", ["--correction", "bonferroni"], with_log(ANALYZE, "two_models") + ["--by", "model"]),
    case("analyze", "json_out", ["--json"], ANALYZE[:3]),
    case("analyze", "reference", ["--reference", "casual"], with_log(ANALYZE, "three")),
    case("analyze", "scale", ["--scale", "0:8"], ANALYZE),
    case("analyze", "factor", ["--factor", "variant", "--factor", "persona"], with_log(ANALYZE, "crossed")),
    case("analyze", "n_resamples", ["--n-resamples", "300"], ANALYZE),
    case("analyze", "seed", ["--seed", "3"], ANALYZE),
    case("analyze", "limits", ["--limit", "values=3"], with_log(ANALYZE, "three") + ["--limit", "values=2"]),
    case("analyze", "row_level", ["--row-level"], ANALYZE),
    case("analyze", "interval", ["--interval", "sign-flip"], ANALYZE),
    case("analyze", "per_item", ["--per-item"], ANALYZE),
    case("analyze", "axes", ["--axes", "style,round"], with_log(ANALYZE, "axes")),
    refused("analyze", "axes", ["--axes", "style"], ANALYZE, "two axes or more"),
    case("analyze", "validation", ["--validation", "{validation}"], ANALYZE),
    case("analyze", "effect_size", ["--effect-size", "g_z"], ANALYZE),
    case("analyze", "baseline", ["--baseline", "formal"], ANALYZE),
    refused("analyze", "baseline", ["--baseline", "casual"], with_log(ANALYZE, "three"), "names the unchanged one of two",
            "-three-values"),
    case("analyze", "control", ["--control", "chatty"], with_log(ANALYZE, "three")),
    case("analyze", "cluster", ["--cluster", "level"], with_log(ANALYZE, "leveled")),
    case("analyze", "random_settings", ["--random-setting", "temperature"], with_log(ANALYZE, "varied")),
    case("analyze", "facts", ["--set", "selection=yes"],
         ["{three}", "--metric", "picked", "--json", "--derive", "picked = CASE WHEN steps > 4 THEN 1 ELSE 0 END"]),
    refused("analyze", "facts", ["--set", "attribute=style"], ANALYZE, "a fact a report states", "-report-only"),
    refused("analyze", "facts", ["--set", "scale=0:8"], ANALYZE, "not a design fact", "-not-a-fact"),
    # ------------------------------------------------------------ describe
    swap("describe", "log", ["{probe5}", "--metric", "steps", "--json"], DESCRIBE),
    swap("describe", "metric", ["{probe}", "--metric", "steps2", *DESCRIBE[3:], "--derive", "steps2 = steps * steps"],
         DESCRIBE),
    case("describe", "bins", ["--bins", "0,4,8,12"], DESCRIBE),
    refused("describe", "bins", ["--bins", "3"], DESCRIBE, "give two or more finite edges", "-one-edge"),
    case("describe", "bins_closed", ["--bins-closed", "right"], DESCRIBE + ["--bins", "0,4,6,12"]),
    refused("describe", "bins_closed", ["--bins-closed", "right"], DESCRIBE, "give --bins too", "-no-bins"),
    case("describe", "by", ["--by", "model"], with_log(DESCRIBE, "two_models")),
    case("describe", "agreement", ["--agreement", "model"], with_log(DESCRIBE, "two_models")),
    case("describe", "chance", ["--chance", "0.3"], ["{probe}", "--derive", "many = steps > 4", "--metric", "many",
                                                    "--json"]),
    refused("describe", "chance", ["--chance", "0.3"], DESCRIBE, "tests the rate of a 0/1 metric", "-not-binary"),
    refused("describe", "agreement", ["--agreement", "model"], ["{two_models}", "--json"], "give --metric",
            "-no-metric"),
    case("describe", "n_resamples", ["--n-resamples", "300"], DESCRIBE),
    case("describe", "seed", ["--seed", "3"], DESCRIBE),
    case("describe", "json_out", ["--json"], DESCRIBE[:3]),
    # ------------------------------------------------------------ cells
    swap("cells", "log", ["{probe5}", "--metric", "steps", "-o", "{out}.csv"], CELLS),
    swap("cells", "metric", ["{probe}", "--metric", "steps2", *CELLS[3:], "--derive", "steps2 = steps * steps"], CELLS),
    case("cells", "by", ["--by", "model"], with_log(CELLS, "two_models")),
    swap("cells", "output", ["{probe}", "--metric", "steps", "-o", "{out}.jsonl"], CELLS),
    case("cells", "keep_runs", ["--keep-runs"], CELLS),
    # ------------------------------------------------------------ compare
    swap("compare", "before", ["{probe_plus}", "{probe}", "--metric", "steps", "--json"], COMPARE),
    swap("compare", "after", ["{probe}", "{probe_plus}", "--metric", "steps", "--json"], COMPARE),
    swap("compare", "metric", ["{probe}", "{probe}", "--metric", "steps2", "--json", "--derive", "steps2 = steps * steps"],
         COMPARE),
    case("compare", "a", ["--a", "casual"], COMPARE),
    case("compare", "b", ["--b", "formal", "--a", "casual"], COMPARE),
    case("compare", "alternative", ["--alternative", "greater"], COMPARE),
    case("compare", "alpha", ["--alpha", "0.2"], COMPARE),
    case("compare", "output", ["-o", "{out}.md"], COMPARE),
    case("compare", "json_out", ["--json"], COMPARE[:-1]),
    # ------------------------------------------------------------ plan
    swap("plan", "noise", ["--noise", "{noise5}", *PLAN[2:]], PLAN),
    swap("plan", "metric", [*PLAN[:3], "steps2", *PLAN[4:], "--derive", "steps2 = steps * steps"], PLAN),
    case("plan", "pilot", ["--pilot", "{probe}"], PLAN),
    case("plan", "a", ["--a", "casual"], PLAN + ["--pilot", "{probe}"]),
    case("plan", "b", ["--b", "formal", "--a", "casual"], PLAN + ["--pilot", "{probe}"]),
    case("plan", "heterogeneity", ["--heterogeneity", "1.5"], PLAN),
    case("plan", "items", ["--items", "12"], PLAN),
    case("plan", "runs", ["--runs", "3"], PLAN),
    case("plan", "gap", ["--gap", "1"], PLAN),
    case("plan", "alternative", ["--alternative", "greater"], PLAN),
    case("plan", "alpha", ["--alpha", "0.2"], PLAN),
    case("plan", "power", ["--power", "0.5"], PLAN),
    case("plan", "sims", ["--sims", "90"], PLAN),
    case("plan", "seed", ["--seed", "3"], PLAN),
    case("plan", "plot", ["--plot", "{out}.png"], PLAN + ["--gap", "1"]),
    refused("plan", "plot", ["--plot", "{out}.png"], PLAN, "--plot draws power at a gap", "-no-gap"),
    case("plan", "scale", ["--scale", "0:12"], PLAN),
    refused("plan", "scale", ["--scale", "0:8"], PLAN, "outside the declared scale", "-too-narrow"),
    case("plan", "mechanism", ["--mechanism", "rate"], PLAN),
    case("plan", "time_budget", ["--time-budget", "0.001"], PLAN),
    case("plan", "mdg_range", ["--mdg-range"], PLAN),
    case("plan", "json_out", ["--json"], PLAN[:-2]),
    # ------------------------------------------------------------ framing
    swap("framing", "log", ["{framing_short}", *FRAMING[1:]], FRAMING),
    case("framing", "by", ["--by", "language", "--by", "topic"], FRAMING),
    refused("framing", "by", ["--by", "model"], FRAMING, "the topics have no reference target in common", "-pooled"),
    case("framing", "toward", ["--toward", "male"], FRAMING + ["--where", "Topic = 'leadership'"]),
    case("framing", "targets", ["--targets", "{targets}"], [FRAMING[0], "--json"]),
    case("framing", "item", ["--item", "Item"], FRAMING),
    case("framing", "alpha", ["--alpha", "0.2"], FRAMING),
    case("framing", "correction", ["--correction", "bonferroni"], FRAMING),
    case("framing", "interval", ["--interval", "sign-flip"], FRAMING),
    refused("framing", "interval", ["--interval", "t"], YESNO, "does not apply to yes/no answers", "-yes-no"),
    case("framing", "label", ["--label", "Lab"], FRAMING + ["--score-from", "label", "--derive",
                                                           "Lab = CASE WHEN Iteration < 4 THEN 'Agree' ELSE Cat END"]),
    case("framing", "response", ["--response", "Resp"], FRAMING + ["--score-from", "response", "--derive",
                                                               "Resp = CASE WHEN Iteration < 4 THEN 'Agree' ELSE Raw END"]),
    case("framing", "score_from", ["--score-from", "response"], FRAMING),
    case("framing", "scale", ["--scale", "-3:3"], FRAMING),
    refused("framing", "scale", ["--scale", "-2:1"], FRAMING, "values off the declared scale", "-too-narrow"),
    case("framing", "answers", ["--answers", "agreement"], YESNO),
    case("framing", "label_map", ["--label-map", "yes=Nope"], YESNO + ["--score-from", "response"]),
    case("framing", "framing_columns", ["--framing-columns", "score:affirmative=aff,reverse=rev"],
         ["{framing_columns}", "--json"]),
    case("framing", "json_out", ["--json"], FRAMING[:-1]),
    # ------------------------------------------------------------ judge
    swap("judge", "log", ["{judge3}", *JUDGE[1:]], JUDGE),
    case("judge", "order", ["--order", "order2"], JUDGE),
    case("judge", "response", ["--response", "reply2"], JUDGE),
    case("judge", "choice", ["--choice", "choice"], ["{judge}", "--order", "order", "--verdict", "first=first",
                                                     "--verdict", "second=second", "--verdict", "tie=tie", "--json"]),
    case("judge", "score", ["--score", "score"], ["{judge_scores}", "--order", "order", "--json"]),
    case("judge", "verdicts", ["--verdict", "tie=[[A]]"], JUDGE[:7] + ["--verdict", "second=[[B]]", "--json"]),
    case("judge", "by", ["--by", "judge"], with_log(JUDGE, "judge") + ["--where", "true"]),
    case("judge", "repetition", ["--repetition", "repetition"], ["{judge_reps}", *JUDGE[1:]]),
    case("judge", "scale", ["--scale", "0:10"], ["{judge_scores}", "--order", "order", "--score", "score", "--json"]),
    case("judge", "own_first", ["--own-first", "BA"], JUDGE),
    refused("judge", "own_first", ["--own-first", "CD"], JUDGE, "not a value of order", "-unknown"),
    case("judge", "chance", ["--chance", "0.3"], JUDGE),
    refused("judge", "chance", ["--chance", "0.3"], ["{judge_scores}", "--order", "order", "--score", "score", "--json"],
            "has no choice rate", "-scored"),
    case("judge", "alpha", ["--alpha", "0.2"], JUDGE),
    case("judge", "correction", ["--correction", "bonferroni"], ["{judge2}", *JUDGE[1:], "--by", "judge"]),
    case("judge", "json_out", ["--json"], JUDGE[:-1]),
    # ------------------------------------------------------------ sql
    case("sql", "dialect", ["--dialect", "spark"], SQL),
    case("sql", "table", ["--table", "other"], SQL),
    swap("sql", "metric", ["--table", "logs", "--metric", "score"], SQL),
    case("sql", "by", ["--by", "model"], SQL),
    case("sql", "where", ["--where", "seed < 3"], SQL),
    case("sql", "derive", ["--derive", "steps = steps * 2"], SQL),
    case("sql", "column", ["--column", "item=question"], SQL),
    case("sql", "order_column", ["--run-order", "run_id"], SQL),
    case("sql", "places", ["--places", "3"], SQL),
    case("sql", "no_seed", ["--no-seed"], SQL),
    case("sql", "with_time", ["--time"], SQL),
    case("sql", "keep_runs", ["--keep-runs"], SQL),
    case("sql", "keep_settings", ["--keep-setting", "model"], SQL),
    *shape_cases(),
    *framing_shape_cases(),
    # ------------------------------------------------------------ report
    # report takes the options of the analyses it renders, spelled as they spell them; --set and
    # --design take only the design facts
    swap("report", "log", ["{probe5}", *REPORT[1:]], REPORT),
    case("report", "metric", ["--metric", "steps,steps2"], REPORT + ["--derive", "steps2 = steps * steps"]),
    case("report", "a", ["--a", "casual"], REPORT),
    case("report", "b", ["--b", "formal", "--a", "casual"], REPORT),
    case("report", "noise", ["--noise", "{noise}"], REPORT),
    case("report", "alternative", ["--alternative", "greater"], REPORT),
    case("report", "alpha", ["--alpha", "0.2"], REPORT),
    swap("report", "output", ["{probe}", "--metric", "steps", "-o", "{out}.html", "--n-resamples", "200"], REPORT),
    case("report", "sections", ["--section", "tests"], REPORT),
    case("report", "design", ["--design", "{design}"], REPORT),
    case("report", "facts", ["--set", "attribute=writing style"], REPORT),
    refused("report", "facts", ["--set", "scale=0:8"], REPORT, "not a design fact", "-not-a-fact"),
    refused("report", "facts", ["--set", "judge.order=order"], REPORT, "not a design fact", "-judge-key"),
    case("report", "framing_log", ["--framing", "{framing}", "--targets", "{targets}"], REPORT),
    case("report", "scale", ["--scale", "0:8"], REPORT),
    case("report", "per_item", ["--per-item"], REPORT),
    case("report", "row_level", ["--row-level"], REPORT),
    case("report", "templates", ["--templates", "{templates}"], REPORT),
    case("report", "noise_value", ["--noise-value", "casual"], REPORT),
    case("report", "settings", ["--setting", "persona"], with_log(REPORT, "crossed")),
    refused("report", "settings", ["--setting", "model"], with_log(REPORT, "two_models"), "model is always a setting",
            "-always"),
    case("report", "attribute_settings", ["--setting-is-attribute", "model"], with_log(REPORT, "confounded")),
    case("report", "cluster", ["--cluster", "level"], with_log(REPORT, "leveled")),
    case("report", "random_settings", ["--random-setting", "temperature"], with_log(REPORT, "varied")),
    case("report", "order", ["--order", "order2"], RJUDGE),
    case("report", "response", ["--response", "reply2"], RJUDGE),
    case("report", "choice", ["--choice", "choice"], ["{judge}", "--order", "order", "--verdict", "first=first",
                                                      "--verdict", "second=second", "--verdict", "tie=tie",
                                                      "-o", "{out}.md"]),
    case("report", "verdicts", ["--verdict", "tie=[[A]]"], RJUDGE[:7] + ["--verdict", "second=[[B]]", "-o", "{out}.md"]),
    case("report", "repetition", ["--repetition", "repetition"], ["{judge_reps}", *RJUDGE[1:]]),
    case("report", "own_first", ["--own-first", "BA"], RJUDGE),
    case("report", "chance", ["--chance", "0.3"], RJUDGE),
    case("report", "targets", ["--targets", "{targets}"], ["--framing", "{framing}", "-o", "{out}.md"]),
    case("report", "toward", ["--toward", "male"], RFRAMING + ["--where", "Topic = 'leadership'"]),
    case("report", "answers", ["--answers", "agreement"], ["--framing", "{yesno}", "-o", "{out}.md"]),
    case("report", "label_map", ["--label-map", "yes=Nope"], ["--framing", "{yesno}", "-o", "{out}.md"]),
    case("report", "framing_columns", ["--framing-columns", "score:affirmative=aff,reverse=rev"],
         ["--framing", "{framing_columns}", "-o", "{out}.md"]),
    case("report", "by", ["--by", "model"], with_log(REPORT, "nested_models")),
    case("report", "correction", ["--correction", "bonferroni"], with_log(REPORT, "two_models") + ["--by", "model"]),
    case("report", "reference", ["--reference", "casual"], with_log(REPORT, "three")),
    case("report", "factor", ["--factor", "variant", "--factor", "persona"], with_log(REPORT, "crossed")),
    case("report", "n_resamples", ["--n-resamples", "300"], REPORT),
    case("report", "seed", ["--seed", "3"], REPORT),
    case("report", "limits", ["--limit", "values=3"], with_log(REPORT, "three") + ["--limit", "values=2"]),
    case("report", "before_log", ["--before", "{probe_plus}"], REPORT),
    case("report", "interval", ["--interval", "sign-flip"], REPORT),
    case("report", "validation", ["--validation", "{validation}"], REPORT),
    case("report", "effect_size", ["--effect-size", "g_z"], REPORT),
    case("report", "plain", ["--plain"], REPORT),
    case("report", "baseline", ["--baseline", "formal"], REPORT),
    refused("report", "baseline", ["--baseline", "casual"], with_log(REPORT, "three"), "names the unchanged one of two",
            "-three-values"),
    case("report", "control", ["--control", "chatty"], with_log(REPORT, "three")),
    # (end of report's block)
]


# ---------------------------------------------------------------- the logs


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    d = tmp_path_factory.mktemp("every_option")
    probe = pl.read_csv(SAMPLES / "style_probe_5seeds.csv")
    paths = {"probe": SAMPLES / "style_probe_5seeds.csv", "probe5": SAMPLES / "style_probe.csv",
             "noise": SAMPLES / "style_noise.csv", "framing": SAMPLES / "framing_long.csv",
             "targets": SAMPLES / "framing_targets.csv", "latin1": SAMPLES / "broken" / "latin1.csv",
             "unmatched": SAMPLES / "broken" / "unmatched_item.csv"}

    def write(name, frame, suffix=".csv"):
        path = d / f"{name}{suffix}"
        if suffix == ".csv":
            frame.write_csv(path)
        elif suffix == ".jsonl":
            frame.write_ndjson(path)
        paths[name] = path
        return path

    write("noise5", pl.read_csv(SAMPLES / "style_noise.csv").filter(pl.col("seed") <= 105))
    write("nosteps", probe.drop("steps"))
    write("probe_plus", probe.with_columns(pl.col("steps") + (pl.col("variant") == "casual") * (pl.col("item") % 3)))
    cased = probe.with_columns(pl.when((pl.col("variant") == "casual") & (pl.col("seed") <= 2))
                               .then(pl.lit("Casual ")).otherwise(pl.col("variant")).alias("variant"))
    write("cased", cased)
    three = pl.concat([probe, probe.filter(pl.col("variant") == "casual")
                       .with_columns(pl.lit("chatty").alias("variant"), pl.col("steps") + 2 * (pl.col("item") % 2))])
    write("three", three)
    write("axes", pl.concat([probe.with_columns((pl.col("variant") + pl.lit(f"_{k}")).alias("variant"),
                                                pl.col("steps") + k * (pl.col("item") % 2)) for k in (1, 2)]))
    write("wide", probe.pivot(on="variant", index=["item", "seed"], values="steps")
          .rename({"formal": "formal_steps", "casual": "casual_steps"}))
    listed = probe.group_by("item", "variant", maintain_order=True).agg(pl.col("steps"))
    write("listed", listed, ".jsonl")
    write("levels", pl.DataFrame({"item": list(range(8)), "level": ["hard", "easy"] * 4}))
    book = d / "book.csv"
    pl.DataFrame({"pattern": ["retry", "test"], "label": ["retry", "test"], "score": [1, 2]}).write_csv(book)
    paths["book"] = book
    write("renamed", probe.rename({"item": "Question #"}))
    titled = d / "titled.csv"
    titled.write_text("A probe of style\nexported 2025-03-10\n" + (SAMPLES / "style_probe_5seeds.csv").read_text())
    paths["titled"] = titled
    suffixless = d / "suffixless.txt"
    suffixless.write_text((SAMPLES / "style_probe_5seeds.csv").read_text())
    paths["suffixless"] = suffixless
    records = d / "records.json"
    records.write_text(json.dumps({"first": probe.head(20).to_dicts(), "rows": probe.to_dicts()}))
    paths["records"] = records
    sheets = d / "sheets.xlsx"
    import xlsxwriter  # noqa: F401  (polars writes xlsx through it)

    with __import__("xlsxwriter").Workbook(sheets) as book_x:
        probe.head(40).write_excel(book_x, worksheet="first")
        probe.write_excel(book_x, worksheet="other")
    paths["sheets"] = sheets
    two = pl.concat([probe, probe.with_columns(pl.lit("stand-in-v2").alias("model"),
                                               (pl.col("steps") + pl.col("item") % 3).alias("steps"))])
    write("two_models", two)
    write("nested_models", pl.concat([probe, probe.with_columns(pl.lit("stand-in-v2").alias("model"),
                                                                (pl.col("item").cast(pl.Int64) + 100).cast(probe["item"].dtype),
                                                                (pl.col("steps") + pl.col("item") % 3).alias("steps"))]))
    write("three_models", pl.concat([three, three.with_columns(pl.lit("stand-in-v2").alias("model"),
                                                               (pl.col("steps") + pl.col("item") % 3))]))
    write("confounded", probe.with_columns(pl.when(pl.col("variant") == "casual").then(pl.lit("v2"))
                                           .otherwise(pl.lit("v1")).alias("model")))
    write("varied", probe.with_columns((0.2 * (pl.col("seed") % 2) + 0.5).alias("temperature")))
    write("crossed", two.rename({"model": "persona"}))
    write("leveled", probe.with_columns((pl.col("item") // 2).alias("level")))
    validation = d / "validation.csv"
    validation.write_text("item,variant,seed,steps\n" + "".join(
        f"{r['item']},{r['variant']},{r['seed']},{r['steps'] + r['item'] % 2}\n" for r in probe.filter(pl.col("seed") <= 2).to_dicts()))
    paths["validation"] = validation
    templates = d / "templates"
    templates.mkdir()
    (templates / "finding.md.j2").write_text("The finding, in a template of our own.\n")
    paths["templates"] = templates
    design = d / "design.toml"
    design.write_text('attribute = "writing style"\n')
    paths["design"] = design
    framing = pl.read_csv(SAMPLES / "framing_long.csv")
    write("framing_short", framing.filter(pl.col("Iteration") <= 5))
    write("framing_cased", framing.with_columns(pl.when(pl.col("Iteration") <= 3).then(pl.col("Framing").str.to_uppercase())
                                                .otherwise(pl.col("Framing")).alias("Framing")))
    write("framing_unmatched", framing.filter(~((pl.col("Item") == "leadership-1") & (pl.col("Framing") == "Reverse"))))
    write("framing_listed", framing.group_by([c for c in framing.columns if c not in ("Iteration", "Score", "Raw", "Cat",
                                                                                   "IsRefusal", "IsNeutral", "Prefix")],
                                             maintain_order=True).agg(pl.col("Score")), ".jsonl")
    write("framing_levels", pl.DataFrame({"Item": sorted(set(framing["Item"])), "level": ["hard", "easy"] * 4}))
    write("framing_renamed", framing.rename({"Item": "Question #"}))
    titled = d / "framing_titled.csv"
    titled.write_text("Framing probe\nexported\n" + (SAMPLES / "framing_long.csv").read_text())
    paths["framing_titled"] = titled
    short = framing.filter(pl.col("Framing") == "Affirmative").select("Model", "Topic", "Item", "Language", "Iteration")
    aff = framing.filter(pl.col("Framing") == "Affirmative")["Score"]
    rev = framing.filter(pl.col("Framing") == "Reverse")["Score"]
    write("framing_columns", short.with_columns(aff.alias("aff"), rev.alias("rev")))
    write("framing_wide", framing.select("Model", "Item", "Language", "Framing", "Iteration", "Topic", "Score")
          .pivot(on="Model", index=["Item", "Language", "Framing", "Iteration", "Topic"], values="Score")
          .rename({"model-a": "score_a", "model-b": "score_b"}))
    write("yesno", make_yes_no_log(models={"m": {"yes_affirmative": 0.7, "yes_reverse": 0.4},
                                           "n": {"yes_affirmative": 0.5, "yes_reverse": 0.5}}, claims=12, seed=2))
    judge = make_judge_log(items=40, judges={"j1": Judge(0.7, 0.8)}, seed=1)
    judge = judge.with_columns(pl.col("order").alias("order2"), pl.col("reply").alias("reply2"))
    judge = judge.with_columns(pl.when(pl.col("item") < "q010").then(pl.col("order").replace({"AB": "BA", "BA": "AB"}))
                               .otherwise(pl.col("order")).alias("order2"),
                               pl.when(pl.col("item") < "q010").then(pl.lit("Final verdict: [[C]]"))
                               .otherwise(pl.col("reply")).alias("reply2"))
    write("judge", judge)
    write("judge3", make_judge_log(items=40, judges={"j1": Judge(0.5, 0.5)}, seed=5))
    write("judge2", make_judge_log(items=40, judges={"j1": Judge(0.7, 0.8), "j2": Judge(0.9, 0.5)}, seed=3))
    write("judge_reps", make_judge_log(items=20, judges={"j1": Judge(0.6, 0.8)}, seed=4, repetitions=2))
    scores = judge.select("item", "order").with_columns(
        ((pl.col("item").str.slice(1).cast(pl.Int64) * 7) % 10 + (pl.col("order") == "AB").cast(pl.Int64)).alias("score"))
    write("judge_scores", scores)
    write("judge_cased", judge.with_columns(pl.when(pl.col("item") < "q010").then(pl.col("order").str.to_lowercase())
                                            .otherwise(pl.col("order")).alias("order")))
    write("judge_unmatched", judge.filter(~((pl.col("item") < "q005") & (pl.col("order") == "BA"))))
    ab = judge.filter(pl.col("order") == "AB").select("item", pl.col("reply").alias("reply_ab"))
    ba = judge.filter(pl.col("order") == "BA").select("item", pl.col("reply").alias("reply_ba"))
    write("judge_wide", ab.join(ba, on="item"))
    write("judge_listed", judge.group_by("item", "order", maintain_order=True).agg(pl.col("reply")), ".jsonl")
    write("judge_levels", pl.DataFrame({"item": sorted(set(judge["item"])), "level": ["hard", "easy"] * 20}))
    write("judge_renamed", judge.rename({"item": "Question #"}))
    titled = d / "judge_titled.csv"
    judge.write_csv(d / "judge_plain.csv")
    titled.write_text("Judge probe\nexported\n" + (d / "judge_plain.csv").read_text())
    paths["judge_titled"] = titled
    jbook = d / "judge_book.csv"
    pl.DataFrame({"pattern": [r"\[\[a\]\]", r"\[\[b\]\]", r"\[\[c\]\]"], "label": ["first", "second", "tie"]}).write_csv(jbook)
    paths["judge_book"] = jbook
    return d, {k: str(v) for k, v in paths.items()}


def outcome(capsys, logs, argv, out):
    """What a run shows: exit code, stdout, stderr and the bytes of every file it wrote."""
    d, paths = logs
    for f in sorted(d.rglob("run*"), reverse=True):
        if f.is_file():
            f.unlink()
    args = []
    for a in argv:
        a = a.replace("{out}", str(out))
        a = re.sub(r"\{(\w+)\}", lambda m: paths[m.group(1)], a)
        args.append(a)
    code, stdout, stderr = run_cli(capsys, *args)
    written = {f.name: f.read_bytes() for f in sorted(d.rglob("run*")) if f.is_file()}
    return code, stdout.replace(str(d), "D"), stderr.replace(str(d), "D"), written


@pytest.mark.parametrize("command, option, extra, base, refusal", CASES)
def test_an_option_changes_the_output_or_is_refused(capsys, logs, command, option, extra, base, refusal):
    d, _ = logs
    out = d / "run"
    before = outcome(capsys, logs, [command, *base], out)
    swapped = extra[:1] == ["<swap>"]
    after = outcome(capsys, logs, [command, *(extra[1:] if swapped else [*base, *extra])], out)
    if swapped:
        assert before[0] == 0 and after[0] == 0, (before[2], after[2])
    code, stdout, stderr, written = after
    assert "unexpected" not in stderr + stdout and "Traceback" not in stderr + stdout, stderr
    if refusal is not None:   # must be refused, saying why
        assert code in (1, 2), f"{command} {' '.join(extra)} was not refused (exit {code})"
        assert "Error: " in stderr and refusal in " ".join(stderr.split()), stderr
        return
    # must change the output: a refusal does not count (validate's report of the problems, on
    # stdout with exit 1, is its output)
    reported = command == "validate" and code == 1 and "Error: " not in stderr and stdout.strip()
    assert code == 0 or reported, f"{command} {' '.join(extra)} was refused (exit {code}): {stderr.strip()}"
    assert after != before, (f"{command} {' '.join(extra)} changed nothing (exit {code}):\n"
                             f"{stderr or stdout[:400]}")


def _params():
    for name, command in cli.commands.items():
        for param in command.get_params(click.Context(command)):
            yield name, "help" if "--help" in getattr(param, "opts", ()) else param.name


def test_every_option_has_a_case():
    covered = {(c.values[0], c.values[1]) for c in CASES}
    missing = [(cmd, name) for cmd, name in _params()
               if (cmd, name) not in covered and ("*", name) not in EXEMPT and (cmd, name) not in EXEMPT]
    assert not missing, f"options with no case in CASES (or reason in EXEMPT): {missing}"


def test_every_case_names_an_option():
    params = set(_params())
    stale = sorted({(c.values[0], c.values[1]) for c in CASES} - params)
    assert not stale, f"cases naming no option of their command (renamed or gone): {stale}"


def test_every_exemption_is_still_an_option():
    params = set(_params())
    for cmd, name in EXEMPT:
        assert cmd == "*" or (cmd, name) in params, (cmd, name)
