"""The results of a dual-framing analysis (:func:`probestats.analyses.framing.analyze_framing`): one
:class:`FramingCell` per cell, per language and per prompt wrapper within it, the label audit, and the
:class:`FramingResult` that holds them (``framing --json`` is its ``to_dict()``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import polars as pl

from probestats.result import Result, jsonable, one_line


class _Record:
    def to_dict(self) -> dict:
        return {f.name: jsonable(getattr(self, f.name)) for f in fields(self)}


@dataclass(frozen=True)
class FramingCell(_Record):
    """Results for one cell (one model, or whatever ``by`` asks for).

    Means are over responses with a score (unparsed responses are left out; refusals
    count as 0). Tests and intervals are across items (or across the runs of the one
    item, when ``single_item``). ``*_p`` are raw p-values, ``*_p_adjusted`` corrected
    across cells. ``bias_ci``/``acquiescence_ci`` are dicts ``{low, high, confidence,
    method}`` (None with fewer than two units). ``agree_reference``/``agree_other``: mean
    raw score of the responses to prompts asserting the reference target / the other one.

    Attributes
    ----------
    by : dict
        The cell (``{"model": "m"}``).
    reference : str or None
        The target the lean is measured toward.
    n, n_items, n_unparsed : int
        Responses with a score, matched items, and responses no score could be read from.
    agree_affirmative, agree_reverse : float or None
        Mean raw score of the responses to the affirmative and to the reverse prompts.
    aligned_affirmative, aligned_reverse : float or None
        The same, aligned toward the reference target.
    bias : float or None
        The lean: the mean aligned score (positive: toward the reference target).
    acquiescence : float or None
        Agreement regardless of direction: the mean raw score.
    bias_p, acquiescence_p : float or None
        Their raw p-values (the exact sign-flip test across items; ``p`` in JSON keys alike).
    bias_p_adjusted, acquiescence_p_adjusted : float or None
        The same, corrected across cells.
    bias_ci, acquiescence_ci : dict or None
        ``{low, high, confidence, method}`` intervals (None with fewer than two units).
    pattern : {"none", "protective", "assertive", "symmetric"}
        The cell's pattern (see the module's description).
    neutral_rate, abstain_rate : float or None
        Share of responses that are neutral, and that refuse (None for yes/no answers).
    test_unit : str
        What the tests are across: items, or the runs of the one item.
    test_method : str or None
        How the bias p was computed, in words.
    min_attainable_p : float or None
        The smallest p the test could give with these units.
    single_item : bool
        The cell has one item: tests are across its runs.
    agree_reference, agree_other : float or None
        Mean raw score of the responses to prompts asserting the reference target / the other one.
    n_languages : int or None
        Languages in the cell.
    languages_agree : int or None
        Languages whose lean has the cell's sign.
    prefix_spread, suffix_spread : float or None
        Largest minus smallest mean aligned score over the prompt prefixes (suffixes).
    answers : {"agreement", "yes-no"}
        How the answers were scored.
    yes_affirmative, yes_reverse : float or None
        Yes/no answers: the share of yes to the affirmative and to the reverse prompts.
    n_refused, n_hedged : int or None
        Yes/no answers: replies that refuse, and that hedge.
    bias_p_log10, acquiescence_p_log10 : float or None
        log10 of the p-values, exact also where a float underflows.
    """

    by: dict
    reference: str | None
    n: int
    n_items: int
    n_unparsed: int
    agree_affirmative: float | None
    agree_reverse: float | None
    aligned_affirmative: float | None
    aligned_reverse: float | None
    bias: float | None
    acquiescence: float | None
    bias_p: float | None
    acquiescence_p: float | None
    bias_p_adjusted: float | None
    acquiescence_p_adjusted: float | None
    bias_ci: dict | None
    acquiescence_ci: dict | None
    pattern: str
    neutral_rate: float | None
    abstain_rate: float | None
    test_unit: str
    test_method: str | None
    min_attainable_p: float | None
    single_item: bool
    agree_reference: float | None = None
    agree_other: float | None = None
    n_languages: int | None = None
    languages_agree: int | None = None
    prefix_spread: float | None = None
    suffix_spread: float | None = None
    answers: str = "agreement"
    yes_affirmative: float | None = None
    yes_reverse: float | None = None
    n_refused: int | None = None
    n_hedged: int | None = None
    bias_p_log10: float | None = None
    acquiescence_p_log10: float | None = None


@dataclass(frozen=True)
class LanguageResult(_Record):
    """One language within one cell: its lean and whether it agrees in sign with the cell's.

    Attributes
    ----------
    by : dict
        The cell.
    language : str or None
    n, n_items : int
        Responses with a score and matched items in the language.
    bias, acquiescence : float or None
        The language's lean and agreement regardless of direction.
    bias_ci : dict or None
        ``{low, high, confidence, method}`` interval of the lean.
    bias_p, acquiescence_p : float or None
        Their raw p-values.
    neutral_rate, abstain_rate : float or None
        Share of neutral and of refusing responses.
    test_unit : str
        What the tests are across.
    agrees : bool or None
        The language's lean has the cell's sign.
    """

    by: dict
    language: str | None
    n: int
    n_items: int
    bias: float | None
    bias_ci: dict | None
    bias_p: float | None
    acquiescence: float | None
    acquiescence_p: float | None
    neutral_rate: float | None
    abstain_rate: float | None
    test_unit: str
    agrees: bool | None


@dataclass(frozen=True)
class WrapperResult(_Record):
    """Mean aligned score of the responses given one prefix or one suffix, within a cell.

    Attributes
    ----------
    by : dict
        The cell.
    wrapper : {"prefix", "suffix"}
    value : str or None
        The prefix or suffix.
    n : int
        Responses given it.
    aligned : float or None
        Their mean aligned score.
    """

    by: dict
    wrapper: str
    value: str | None
    n: int
    aligned: float | None


@dataclass(frozen=True)
class LabelAudit(_Record):
    """A judge's labels against a deterministic parse of the raw responses.

    ``confusion[judge][parsed]`` counts responses by the judge's score name and the
    parsed score name; ``disagreements`` lists the most frequent (response, judge label,
    parsed label) triples where the two scores differ.

    Attributes
    ----------
    label_column, response_column : str
        The headers of the judge's label column and of the raw response column.
    compared : int
        Responses with both a judge's score and a parsed one.
    agreement : float or None
        Share of those whose two scores are the same (None when none were compared).
    confusion : dict
        ``confusion[judge][parsed]``: responses by the judge's score name and the parsed score name.
    disagreements : list
        The most frequent (response, judge label, parsed label) triples where the two scores differ.
    judge_only, parsed_only : int
        Responses only the judge scored, and only the parse scored.
    """

    label_column: str
    response_column: str
    compared: int
    agreement: float | None
    confusion: dict
    disagreements: list
    judge_only: int
    parsed_only: int


@dataclass(frozen=True)
class FramingResult(_Record, Result):
    """Everything :func:`analyze_framing` found. ``to_dict()`` is the ``framing --json`` output and
    ``to_frame()`` one row per cell.

    Attributes
    ----------
    reference : str or None
        The reference target a lean is measured toward (per topic when they differ).
    shared_reference : bool
        Every topic shares the one reference target.
    by : tuple of str
        The columns a cell is split by (one cell per model by default).
    item_columns : tuple of str
        The columns that make an item.
    score_from : {"score", "label", "response"}
        Where the scores came from.
    alpha : float
        The level the corrected p-values are read against.
    correction : {"holm", "bonferroni", "bh", "none"}
        The correction across cells.
    confidence : float
        The confidence level of the intervals (``1 - alpha``).
    cells : tuple of FramingCell
        One result per cell: the lean (bias) and the acquiescence with their tests and intervals.
    languages : tuple of LanguageResult
        Per language within a cell, its lean and whether it agrees in sign with the cell's.
    wrappers : tuple of WrapperResult
        Mean aligned score per prompt prefix or suffix within a cell.
    label_audit : LabelAudit or None
        A judge's labels against a parse of the raw responses, when both columns are there.
    unparsed : dict
        The responses no score could be read from: their count and the most frequent texts.
    problems : tuple of Problem
        Warnings a reader must be told.
    targets : dict
        Per topic, the affirmative and reverse targets its prompts assert.
    answers : {"agreement", "yes-no"}
        How answers were scored.
    answers_reason : str or None
        Why ``answers`` was chosen, when it was chosen automatically.
    verdict : Verdict or None
        The conclusion, decided once: the cells whose lean has a corrected p at most alpha
        (:func:`probestats.analyses.verdict.decide_effects`); every renderer words it.
    """

    MAIN_TABLE = "cells"

    reference: Any
    shared_reference: bool
    by: tuple
    item_columns: tuple
    score_from: str
    alpha: float
    correction: str
    confidence: float
    cells: tuple
    languages: tuple
    wrappers: tuple
    label_audit: LabelAudit | None
    unparsed: dict
    problems: tuple
    targets: dict = field(default_factory=dict)
    answers: str = "agreement"
    answers_reason: str | None = None
    verdict: Any = None

    def to_frame(self) -> pl.DataFrame:
        """The cells as a polars DataFrame (``by`` columns first; intervals as low/high).

        Examples
        --------
        >>> from probestats.analyses.framing import analyze_framing, demo_rows
        >>> analyze_framing(demo_rows()).to_frame().columns[:4]
        ['model', 'n', 'n_items', 'bias']
        """
        rows = []
        for c in self.cells:
            d = c.to_dict()
            row = dict(d.pop("by"))
            for name in ("bias_ci", "acquiescence_ci"):
                ci = d.pop(name) or {}
                d[name + "_low"], d[name + "_high"] = ci.get("low"), ci.get("high")
            order = ["n", "n_items", "bias", "bias_ci_low", "bias_ci_high", "bias_p", "bias_p_adjusted",
                     "acquiescence", "acquiescence_ci_low", "acquiescence_ci_high", "acquiescence_p",
                     "acquiescence_p_adjusted", "pattern", "agree_affirmative", "agree_reverse",
                     "aligned_affirmative", "aligned_reverse", "neutral_rate", "abstain_rate"]
            row.update({k: d[k] for k in order})
            rows.append(row)
        return pl.DataFrame(rows, infer_schema_length=None)

    def _repr_html_(self) -> str:
        return self.to_frame()._repr_html_()

    def __repr__(self) -> str:
        detected = sum(1 for c in self.cells if c.pattern not in (None, "none"))
        return one_line(self, by=self.by, cells=len(self.cells), leaning=detected, alpha=float(self.alpha),
                        correction=self.correction)

    def __str__(self) -> str:
        return str(self.to_frame())

    def cell_name(self, cell) -> str:
        """How a cell is named in sentences: "model gpt-x, topic gender" (or "the log")."""
        return ", ".join(f"{k} {v}" for k, v in cell.by.items()) or "the log"

    def other_target(self, cell) -> str | None:
        """The target opposite the cell's reference (None when the cell pools several topics)."""
        pairs = {tuple(p.values()) for p in self.targets.values()}
        ref = cell.reference
        others = {b if a == ref else a for a, b in pairs if ref in (a, b)}
        topic = cell.by.get("topic")
        if topic is not None and str(topic) in self.targets:
            a, b = self.targets[str(topic)].values()
            return b if a == ref else a
        return others.pop() if len(others) == 1 else None


