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

from probestats.errors import cli_spelling, opt, spelled_by

__all__ = ["WORDS", "in_words", "spelled_in_words"]

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
}
#: the column page's label of each column it asks about (``columns={"item": ...}``)
COLUMN_WORDS = {"item": "Item", "variant": "Value compared", "seed": "Seed", "model": "Model",
                "temperature": "Temperature", "system": "System prompt"}


def in_words(name: str, value=None) -> str | None:
    """An option named in words ("“Split by” set to model"), or None for one that has no words.

    >>> in_words("fold_case", True), in_words("by", "criterion"), in_words("columns", {"model": ""})
    ('“Fold case”', '“Split by” set to criterion', '“Model” set to none')
    >>> in_words("n_resamples", 5) is None
    True
    """
    if name == "columns" and isinstance(value, dict) and all(k in COLUMN_WORDS for k in value):
        return "; ".join(f"“{COLUMN_WORDS[k]}” set to {v or 'none'}" for k, v in value.items())
    label = WORDS.get(name)
    if label is None:
        return None
    if value is None or value is True:
        return f"“{label}”"
    return f"“{label}” set to {value}"


@contextlib.contextmanager
def spelled_in_words(named: list | None = None):
    """Within this block, messages name options in words (see :func:`in_words`); ``named`` collects each
    option so named with its command-line spelling, ``(words, flag)``, once. An option without words is
    named as outside the block.

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
