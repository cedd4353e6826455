"""The report for people who do not code: options named in words, methods in a detail block.

A plain report (``plain=True``; ``probestats report --plain``) keeps every number and every
honesty rule of the report; what changes is how it names things. A message that would name a
flag (``use --fold-case``) names the option in words, as the local page labels the control that
sets it ("use “Fold case”"), and every option so named is listed with its command-line
spelling in the report's detail block, beside how each figure was computed.

The words are :data:`WORDS`: one label per option, the same on the page and in the report.
"""

from __future__ import annotations

import contextlib
import re

from probestats.errors import cli_spelling, opt, spelled_by
from probestats.parameters import PARAMETERS

__all__ = ["WORDS", "in_words", "spelled_in_words", "render_plain"]

#: every option a message may name, as a person reads it: the page's label of the control that sets it
WORDS = {
    "fold_case": "Fold case",
    "complete": "Keep complete items only",
    "by": "Split by",
    "attribute_settings": "Part of the attribute",
    "metric": "Metric",
    "a": "First value",
    "b": "Second value",
    "reference": "Reference value",
    "noise": "Same-versus-same file",
    "sheet": "Sheet",
    "skip_rows": "Title rows above the header",
    "where": "Filter",
    "control": "Control value",
    "cluster": "Clusters",
    "random_settings": "Drawn at random",
    "baseline": "Baseline value",
    "repetition": "Repetition",
}
#: the column page's label of each column it asks about (``columns={"item": ...}``)
COLUMN_WORDS = {"item": "Item", "variant": "Value compared", "seed": "Seed", "model": "Model",
                "temperature": "Temperature", "system": "System prompt"}


#: the words of options the page has no control for: a person reads what the option is, never its flag (the
#: report's details give the flag, for whoever runs the command)
OPTION_WORDS = {
    "interval": "the interval's method",
    "max_cells": "the limit of cells read from a sheet",
    "n_resamples": "the number of resamples",
    "alpha": "the significance level",
    "sims": "the number of simulated probes",
    "correction": "the correction for several tests",
    "alternative": "the direction of the test",
    "seed": "the random seed",
    "scale": "the scale's ends",
    "targets": "the targets of each topic",
}


def in_words(name: str, value=None, *, every: bool = False) -> str | None:
    """An option named in words ("“Split by” set to model"), or None for one that has no words; with ``every``,
    an option the page has no control for is named by what it is (``the option 'n resamples'`` at least).

    >>> in_words("fold_case", True), in_words("by", "criterion"), in_words("columns", {"model": ""})
    ('“Fold case”', '“Split by” set to criterion', '“Model” set to none')
    >>> in_words("n_resamples", 5) is None
    True
    >>> in_words("interval", "sign-flip", every=True), in_words("max_cells", "N", every=True)
    ("the interval's method set to sign-flip", 'a higher limit of cells read from a sheet')
    >>> in_words("some_option", every=True)
    "the option 'some option'"
    """
    if name == "columns" and isinstance(value, dict) and all(k in COLUMN_WORDS for k in value):
        return "; ".join(f"“{COLUMN_WORDS[k]}” set to {v or 'none'}" for k, v in value.items())
    label = WORDS.get(name)
    if label is None:
        if not every or name == "columns":
            return None
        what = OPTION_WORDS.get(name, f"the option '{name.replace('_', ' ')}'")
        if value is None or value is True:
            return what
        if isinstance(value, str) and value.isupper():   # a placeholder (N, COL): the option to change
            return "a higher " + what.removeprefix("the ") if name == "max_cells" else what
        return f"{what} set to {value}"
    if value is None or value is True:
        return f"“{label}”"
    return f"“{label}” set to {value}"


@contextlib.contextmanager
def spelled_in_words(named: list | None = None):
    """Within this block, messages name options in words (see :func:`in_words`); ``named`` collects each
    option so named with its command-line spelling, ``(words, flag)``, once. An option without words is
    named as outside the block (a report's text goes through :func:`flags_in_words`).

    >>> named = []
    >>> with spelled_in_words(named):
    ...     opt("fold_case", True), opt("alpha", 2)
    ('“Fold case”', 'alpha=2')
    >>> named
    [('“Fold case”', '--fold-case')]
    """
    def namer(name, value):
        words = in_words(name, value)
        if words is not None and named is not None:
            with cli_spelling():
                pair = (words, opt(name, value))
            if pair not in named:
                named.append(pair)
        return words

    with spelled_by(namer):
        yield


#: a command-line flag with the value it may take (a bare word, or one quoted for a shell)
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z-]*)(?: ('[^']*'|\"[^\"]*\"|[^\s;,()]+))?")
#: a file of the repository named beside a fact (``in benchmarks/coverage_interval.py``)
_REPOSITORY_FILE = re.compile(r"\s*(?:\b(?:in|see|from|by) )?(?:``)?\b(?:benchmarks|probestats|tests|scripts)/[\w/.-]+"
                              r"\.py(?:``)?")


def flags_in_words(text: str, labels: dict | None = None) -> str:
    """Text written for the command line, for a person who does not code: each flag named as the page labels its
    control (``labels``, by parameter, beside :data:`WORDS`), or by what it is; no file of the repository.

    >>> flags_in_words("read it with care, or use --interval sign-flip (the best of the three intervals in "
    ...                "benchmarks/coverage_interval.py)")
    "read it with care, or use the interval's method set to sign-flip (the best of the three intervals)"
    >>> flags_in_words("use --fold-case to treat them as one value; raise it with --read max-cells=N")
    'use “Fold case” to treat them as one value; raise it with a higher limit of cells read from a sheet'
    >>> flags_in_words("--sims 100000 is too many", {"sims": "Simulated probes per design"})
    '“Simulated probes per design” set to 100000 is too many'
    """
    by_flag = {flag: name for name, parameter in PARAMETERS.items() for flag in parameter.flags}
    labels = labels or {}

    def named(match: re.Match) -> str:
        flag, value = match.group(1), match.group(2)
        if by_flag.get(flag) == "read_given" and value and "=" in value:
            key, _, value = value.strip("'\"").partition("=")
            name = key.replace("-", "_")
        else:
            name = by_flag.get(flag, flag[2:].replace("-", "_"))
            parameter = PARAMETERS.get(name)
            if value is not None and parameter is not None and parameter.kind in ("flag", "switch"):
                return named_as(name, None) + " " + value   # a flag without a value: the word after is text
        return named_as(name, value.strip("'\"") if value is not None else None)

    def named_as(name: str, value) -> str:
        if name in labels:
            return f"“{labels[name]}”" if value is None else f"“{labels[name]}” set to {value}"
        return in_words(name, value) or in_words(name, value, every=True)

    return _FLAG.sub(named, _REPOSITORY_FILE.sub("", str(text)))


def render_plain(template, ctx: dict, named: list) -> str:
    """A plain report rendered from ``template``: ``ctx`` with ``plain``, and the command-line spellings of
    those options in ``named`` (``(words, flag)``) that its text names, listed in its method details."""
    import html

    ctx = {**ctx, "plain": True, "spellings": []}
    text = template.render(ctx)
    spelled = [(w, flag) for w, flag in named if w in text or html.escape(w) in text]
    return template.render({**ctx, "spellings": spelled}) if spelled else text
