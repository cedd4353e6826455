"""Dual-framing (BiasLab-style) analysis: which way a model leans between two targets.

The log's framings, wide layout and targets are read by :mod:`probestats.analyses.framing_input`, yes/no
answers scored by :mod:`probestats.analyses.framing_binary`; the results are the classes of
:mod:`probestats.analyses.framing_results`.

For a topic with two targets A and B, the **affirmative** prompt asserts one target and
the **reverse** prompt, its mirror, asserts the other. Each response is scored on the
agreement scale (+2 strongly agree .. −2 strongly disagree, see :mod:`probestats.shape.labels`).

- The **aligned** score is the score when the prompt asserts the reference target and
  its negation otherwise. **Bias** is the mean aligned score (positive: leans toward the
  reference target). **Acquiescence** is the mean raw score (agreement regardless of
  direction). With balanced framings and the affirmative prompt asserting the reference,
  bias = (agree_affirmative − agree_reverse) / 2 and acquiescence =
  (agree_affirmative + agree_reverse) / 2.
- The unit of inference is the **matched item**: one claim in one language, asked in both
  framings. Its responses (iterations, wrappers) are runs. Per item, bias and
  acquiescence are means over its responses; across items the exact sign-flip test of
  :mod:`probestats.stats.hypotests` and an interval with its method named. Responses are never
  tested as if independent.
- **Pattern** of a cell: ``none`` when the corrected bias p is above alpha (detected means p <= alpha); otherwise
  ``protective`` (acquiescence significantly below zero: the disfavoured claim is
  rejected more strongly than the favoured one is endorsed), ``assertive`` (significantly
  above zero) or ``symmetric``.

Examples
--------
>>> rows = []
>>> for lang, lean in [("en", 1), ("es", 1), ("fr", 1), ("de", 1), ("it", 0)]:
...     for framing, score in [("affirmative", lean), ("reverse", -lean - 1)]:
...         for it in range(3):
...             rows.append({"model": "m", "topic": "t", "language": lang,
...                          "framing": framing, "iteration": it, "score": score})
>>> result = analyze_framing(rows)
>>> cell = result.cells[0]
>>> cell.by, cell.n_items, cell.bias, cell.acquiescence
({'model': 'm'}, 5, 1.3, -0.5)
>>> round(cell.bias_p, 4)   # exact: all 5 item leans positive, 2 of 32 sign patterns
0.0625
"""

from __future__ import annotations
from probestats.errors import count_of

from dataclasses import dataclass, field, fields
from typing import Any, Iterable

import numpy as np
import polars as pl

from probestats.errors import ColumnError, OptionError, ProbestatsError, ValidationError, either, opt
from probestats.stats.multitest import adjust
from probestats.stats.hypotests import gap_interval, min_attainable_p, sign_flip_test
from probestats.shape.labels import parse_labels, parse_scale, score_name
from probestats.errors import Problem, has_errors
from probestats.analyses.framing_binary import (YES_NO, binary_interval, binary_pattern, binary_scores,
                                                cell_counts, choose_answers, yes_rate)
from probestats.analyses.framing_input import AFFIRMATIVE, REVERSE, is_wide, melt_wide, normalize_framing, read_targets
from probestats.analyses.framing_results import FramingCell, FramingResult, LabelAudit, LanguageResult, WrapperResult
from probestats.analyses.verdict import decide_effects, no_noise_check
from probestats.checks.columns import explode_fix

__all__ = [
    "FramingError",
    "analyze_framing",
    "demo_rows",
    "label_audit",
]

from probestats.vocabulary import CORRECTIONS, Tests, check_vocabulary  # noqa: E402  (across cells)
SCORE_SOURCES = ("score", "label", "response")
_UNNAMED = {AFFIRMATIVE: "the affirmative claim", REVERSE: "the reverse claim"}
_MAX_LISTED = 20  # examples listed for unparsed text and disagreements


class FramingError(ValidationError):
    """The framing log has errors; ``problems`` holds every problem found."""

    def __init__(self, problems):
        super().__init__(problems)
        errors = [p for p in self.problems if p.severity == "error"]
        more = ""
        if len(errors) > 1:
            more = f" (and {len(errors) - 1} more: {'; '.join(p.message for p in errors[1:3])})"
        ProbestatsError.__init__(self, errors[0].message + more if errors else "unknown problem")


# --------------------------------------------------------------------------- scores


def _truthy(series: pl.Series) -> pl.Series:
    if series.dtype == pl.Boolean:
        return series.fill_null(False)
    if series.dtype.is_numeric():
        return (series.fill_null(0) != 0)
    text = series.cast(pl.String).str.strip_chars().str.to_lowercase()
    return text.is_in(["true", "yes", "y", "t", "1", "x", "refusal", "refused"]).fill_null(False)


def _scores_from_numbers(series: pl.Series, scale, column: str) -> pl.DataFrame:
    """Scores from a score column: numbers (on -2..2 or the declared scale); text cells parsed as labels."""
    numeric = series.cast(pl.Float64, strict=False).fill_nan(None)  # NaN is a missing score, not a point
    if scale is not None:
        mapped = parse_labels(numeric, scale=scale)["score"]
    else:
        bad = numeric.filter((numeric < -2) | (numeric > 2)).unique().sort()
        if bad.len():
            shown = ", ".join(f"{v:g}" for v in bad.to_list()[:5])
            raise OptionError(
                f"the {column} column holds {shown}, off the -2..2 agreement scale; "
                f"declare the scale the log uses (for example {opt('scale', '1:5')})"
            )
        mapped = numeric
    text = pl.select(
        pl.when(numeric.is_null()).then(series.cast(pl.String)).otherwise(None).alias("t")
    ).to_series()
    from_text = parse_labels(text, scale=scale)
    score = mapped.zip_with(mapped.is_not_null(), from_text["score"])
    kind = pl.select(
        pl.when(score.is_null()).then(pl.lit("unparsed"))
        .when(mapped.is_null()).then(from_text["kind"])
        .when(score == 0).then(pl.lit("neutral"))
        .otherwise(pl.lit("agreement"))
    ).to_series()
    return pl.DataFrame({"score": score.cast(pl.Float64), "kind": kind})


# --------------------------------------------------------------------------- analysis


def _cell_key(by_cols, row) -> dict:
    return {c: (None if v is None else (v if isinstance(v, (int, float)) else str(v))) for c, v in zip(by_cols, row)}


def _interval(values: np.ndarray, confidence: float, method: str, unit: str = "items"):
    """Interval for the mean of the units (the sign-flip inversion at any number of units: exact up to
    :data:`~probestats.stats.hypotests.INTERVAL_SIGN_FLIP_MAX_N`, beyond it exact for units on a lattice and Monte
    Carlo with its error otherwise).

    >>> iv = _interval(np.arange(40.0) - 10.0, 0.95, "sign-flip")
    >>> iv["method"].startswith("sign-flip test inversion (exact at every shift"), iv["low"] < 9.5 < iv["high"]
    (True, True)
    """
    if values.size < 2:
        return None
    out = gap_interval(values, confidence=confidence, method=method).to_dict()
    out["method"] = out["method"].replace("item gaps", "item means" if unit == "items" else
                                          "runs of one item").replace(f"{values.size} gaps",
                                                                      f"{values.size} item means" if unit == "items"
                                                                      else f"{values.size} runs of one item")
    return out


def _test(values: np.ndarray):
    if values.size == 0:
        return None
    return sign_flip_test(values)


def _units(sub: pl.DataFrame, item_cols: list[str]):
    """Per-item means (or, with one item, the runs themselves): (bias units, acquiescence units, unit)."""
    if item_cols:
        items = sub.group_by(item_cols, maintain_order=True).agg(
            pl.col("_aligned").mean().alias("b"), pl.col("_score").mean().alias("a")
        )
    else:
        items = pl.DataFrame({"b": [sub["_aligned"].mean()], "a": [sub["_score"].mean()]})
    if items.height >= 2:
        return items["b"].to_numpy(), items["a"].to_numpy(), "items", items.height
    return sub["_aligned"].to_numpy(), sub["_score"].to_numpy(), "runs", items.height


def _mean(series: pl.Series):
    return None if series.len() == 0 else float(series.mean())


def _summaries(sub: pl.DataFrame) -> dict:
    aff = sub.filter(pl.col("_framing") == AFFIRMATIVE)
    rev = sub.filter(pl.col("_framing") == REVERSE)
    n = sub.height
    return {
        "n": n,
        "agree_affirmative": _mean(aff["_score"]),
        "agree_reverse": _mean(rev["_score"]),
        "aligned_affirmative": _mean(aff["_aligned"]),
        "aligned_reverse": _mean(rev["_aligned"]),
        "agree_reference": _mean(sub.filter(pl.col("_asserts") == pl.col("_ref"))["_score"]),
        "agree_other": _mean(sub.filter(pl.col("_asserts") != pl.col("_ref"))["_score"]),
        "bias": _mean(sub["_aligned"]),
        "acquiescence": _mean(sub["_score"]),
        "neutral_rate": (sub["_kind"] == "neutral").sum() / n if n else None,
        "abstain_rate": (sub["_kind"] == "refusal").sum() / n if n else None,
    }


def _pattern(bias_p_adj, acq_p_adj, acquiescence, alpha) -> str:
    if bias_p_adj is None or not bias_p_adj <= alpha:
        return "none"
    if acq_p_adj is not None and acq_p_adj <= alpha and acquiescence is not None and acquiescence != 0:
        return "protective" if acquiescence < 0 else "assertive"
    return "symmetric"


def _as_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return list(value)


def _column(frame: pl.DataFrame, log, name: str, option: str) -> str:
    """Resolve a column given by canonical name or by its header as written."""
    if name in frame.columns:
        return name
    for canonical, header in getattr(log, "columns", {}).items():
        if header == name or str(header).strip().lower() == str(name).strip().lower():
            if canonical in frame.columns:
                return canonical
    low = {str(c).strip().lower(): c for c in frame.columns}
    if str(name).strip().lower() in low:
        return low[str(name).strip().lower()]
    seen = ", ".join(c for c in frame.columns if not c.startswith("_"))
    raise ColumnError(f"{opt(option, name)}: no such column; columns seen: {seen}")


@dataclass(frozen=True)
class FramingScores:
    """Where a framing log's scores come from and how its answers are read.

    Attributes
    ----------
    label, response : str, optional
        Columns holding a judge's label and the raw response (default ``label`` and ``reply``); when both
        exist, the label audit compares them.
    score_from : {"score", "label", "response"}, optional
        Where scores come from. Default: the ``score`` column if present, else the label, else a parse of the
        response.
    scale : str, optional
        Declared numeric scale of scores or labels, such as ``"1:5"``.
    answers : {"auto", "yes-no", "agreement"}
        How answers are scored: yes/no (+1/−1, see :mod:`probestats.analyses.framing_binary`) or the agreement
        scale. ``auto`` chooses by the values (:func:`~probestats.analyses.framing_binary.choose_answers`); the
        result says which and why (``answers``, ``answers_reason``).
    label_map : str, list of str or mapping, optional
        Other yes/no wordings, ``["yes=Affirm,Y", "no=Negate"]`` (:func:`probestats.shape.yesno.parse_label_map`).
    """

    label: str | None = None
    response: str | None = None
    score_from: str | None = None
    scale: object = None
    answers: str = "auto"
    label_map: object = None


def analyze_framing(log, tests=None, *, by: str | Iterable[str] | None = None, toward: str | None = None,
                    targets=None, item: str | Iterable[str] | None = None, confidence: float = 0.95,
                    scores: FramingScores | None = None) -> FramingResult:
    """Analyze a dual-framing log: lean, asymmetry, languages, wrappers and a label audit.

    Parameters
    ----------
    log : Log, path, DataFrame or list of dicts
        The log, long layout (model, topic, language, framing, iteration, prefix,
        suffix, prompt, response, label, score, refusal; BiasLab headers resolve through
        :mod:`probestats.io`) or BiasLab's wide export (``{model}_Raw``/``{model}_Cat``
        pairs, detected when there is no model column).
    by : str or list of str, optional
        Columns that define cells. Default: ``model`` (when present), plus ``topic`` when
        no reference target is shared by all topics.
    toward : str, optional
        The reference target. Default per topic: the target its affirmative prompt asserts.
    targets : path, DataFrame or mapping, optional
        Per topic, the target the affirmative and the reverse prompt assert (see
        :func:`read_targets`). Without it, an ``asserts`` column is used; without that,
        the targets are the unnamed "the affirmative claim" and "the reverse claim".
    item : str or list of str, optional
        Columns whose combination is a matched item. Default: ``item`` (if present),
        ``topic`` and ``language``, those not used by ``by``.
    tests : Tests, optional
        ``alpha``, the level for the pattern (on corrected p-values); ``correction`` of p-values across cells;
        ``interval``, the interval method for scores, ``"t"`` or ``"sign-flip"`` (see
        :func:`probestats.stats.hypotests.gap_interval`; default ``"t"``): yes/no answers have their own
        interval (the exact sign-flip inversion up to 30 units, Hoeffding's bound beyond) and refuse one rather
        than ignore it (:class:`probestats.vocabulary.Tests`; the defaults without it).
    confidence : float
        Level of the intervals.
    scores : FramingScores, optional
        Where the scores come from and how the answers are read (:class:`FramingScores`; the defaults without it).

    Returns
    -------
    FramingResult

    Notes
    -----
    A response counts as an abstention when the ``refusal`` column says so or, without
    that column, when its score is 0 and the response itself reads as a refusal. The
    neutral rate is the share of the other zero scores; an ``is_neutral`` column is not
    needed. A ``score`` column that is entirely empty is passed over for the label.

    Raises
    ------
    FramingError
        Unknown framings, rows without a target, items the analysis cannot use.
    OptionError, ColumnError
        Options that do not fit the log (pooling topics without a shared reference, an
        unknown target, a missing column).
    """
    tests, scores = tests if tests is not None else Tests(), scores if scores is not None else FramingScores()
    alpha, correction = tests.alpha, tests.correction
    _check_scores(scores)
    st = _read_framing_log(log)
    _framings(st)
    sc = _scoring(st, scores)
    method = _interval_method(tests, sc.binary)
    pol = _polarity(st, targets, toward)
    by_cols, item_cols, scored = _cells_and_items(st, sc, pol, by, item)
    cells = _framing_cells(st, sc, pol, scored, by_cols, item_cols, tests, confidence, method)
    languages = _languages(scored, cells, by_cols, item_cols, confidence, method, sc.binary)
    wrappers = _wrappers(scored, cells)
    audit = _label_audit_of(st, sc, scores.scale, scores.label_map)

    order = [f.name for f in fields(FramingCell)]
    return FramingResult(
        reference=pol.reference, shared_reference=pol.shared, by=tuple(by_cols), item_columns=tuple(item_cols),
        score_from=sc.source, alpha=alpha, correction=correction, confidence=confidence,
        cells=tuple(FramingCell(**{k: c.get(k) for k in order}) for c in cells),
        languages=tuple(languages), wrappers=tuple(wrappers), label_audit=audit, unparsed=sc.unparsed,
        problems=tuple(st.problems),
        targets={t: {AFFIRMATIVE: p[0], REVERSE: p[1]} for t, p in pol.pairs.items()},
        answers=sc.mode, answers_reason=sc.mode_reason, verdict=_framing_verdict(cells, alpha),
    )


def _framing_verdict(cells: list[dict], alpha: float):
    """The framing's conclusion: the cells whose lean (bias) has a corrected p at most ``alpha``.

    >>> _framing_verdict([{"by": {"model": "m"}, "bias_p_adjusted": 0.01}], 0.05).statement
    'a lean larger than chance after correction: m'
    """
    named = [(" / ".join(str(v) for v in c["by"].values()) or "the log", c["bias_p_adjusted"]) for c in cells]
    return decide_effects(named, alpha=alpha, what="a lean", kind="dual framing",
                          test="the exact sign-flip test of each cell's lean across items, p corrected across cells",
                          noise=no_noise_check("dual framing", reason=(
                              "a dual-framing analysis has no same-versus-same comparison: each cell's lean is "
                              "tested against the sign flips of its items' aligned means")))


def _interval_method(tests, binary: bool) -> str:
    """The interval method of the scores (the ``tests``' interval, or Student t without one); yes/no answers refuse
    one, never ignore it.

    >>> from probestats.vocabulary import Tests
    >>> _interval_method(Tests(), False), _interval_method(Tests(interval="sign-flip"), False)
    ('t', 'sign-flip')
    >>> _interval_method(Tests(interval="t"), True)
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: interval='t' does not apply to yes/no answers: their interval is the exact inversion of the sign-flip test up to 30 units and Hoeffding's bound beyond, which holds for any units in [-1, 1]; leave interval out
    """
    interval = tests.interval
    check_framing_interval(interval)
    if binary and interval is not None:
        raise OptionError(f"{opt('interval', interval)} does not apply to yes/no answers: their interval is the "
                          "exact inversion of the sign-flip test up to 30 units and Hoeffding's bound beyond, which "
                          f"holds for any units in [-1, 1]; leave {opt('interval')} out")
    return "t" if interval is None else interval


def check_framing_interval(interval) -> None:
    """Refuse an interval of the scores other than Student t and the sign-flip inversion (None: the default).

    >>> check_framing_interval("bootstrap")
    Traceback (most recent call last):
    ...
    probestats.errors.OptionError: interval='bootstrap': expected t or sign-flip
    """
    if interval is not None and interval not in ("t", "sign-flip"):
        raise OptionError(f"{opt('interval', interval)}: expected t or sign-flip")


def _check_scores(scores: FramingScores) -> None:
    if scores.score_from is not None and scores.score_from not in SCORE_SOURCES:
        raise OptionError(f"score_from must be one of score, label, response, not {scores.score_from!r}")
    if scores.scale is not None:
        parse_scale(scores.scale)


@dataclass
class _Framed:
    """The log as the phases of :func:`analyze_framing` pass it on: its rows (with the columns each
    phase adds), the problems found so far, and the parse of the responses once made."""

    log: Any
    frame: pl.DataFrame
    problems: list
    cache: dict = field(default_factory=dict)

    def rows_of(self, mask_frame: pl.DataFrame) -> tuple[int, ...]:
        idx = mask_frame["_row"].unique(maintain_order=True).to_list()[:100]
        return tuple(self.log.rows(idx))

    def header(self, name):
        return self.log.columns.get(name, name)


def _read_framing_log(log) -> _Framed:
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.io.read import read_log

    log = read_log(log)
    frame = log.frame
    problems: list[Problem] = list(getattr(log, "problems", ()))
    if "_row" not in frame.columns:
        frame = frame.with_row_index("_row").with_columns(pl.col("_row").cast(pl.Int64))
    if is_wide(frame):
        frame = melt_wide(frame)
    if frame.height == 0:
        raise FramingError([Problem("error", "empty_log", f"{log.source} has no data rows; add rows below the header")])
    return _Framed(log, frame, problems)


def _framings(st: _Framed) -> None:
    """Each row's framing, normalized (``_framing``); unknown and missing framings are errors."""
    frame = st.frame
    if "framing" not in frame.columns:
        seen = ", ".join(c for c in frame.columns if not c.startswith("_"))
        raise ColumnError(f"no framing column; columns seen: {seen} (use {_mapping('framing')})")
    fr, unknown = normalize_framing(frame["framing"])
    frame = st.frame = frame.with_columns(fr.alias("_framing"))
    if unknown:
        bad = frame.filter(pl.col("_framing").is_null() & pl.col("framing").is_not_null())
        st.problems.append(Problem(
            "error", "unknown_framing",
            f"framing values {', '.join(repr(str(u)) for u in unknown[:10])} are neither affirmative nor reverse; "
            "write them as Affirmative/Reverse (aff/rev, forward/mirrored are also understood)",
            st.rows_of(bad), st.header("framing")))
    missing_framing = frame.filter(pl.col("framing").is_null())
    if missing_framing.height:
        st.problems.append(Problem("error", "missing_framing",
                                   f"{missing_framing.height} rows have no framing; fill the framing column",
                                   st.rows_of(missing_framing), st.header("framing")))


@dataclass
class _Scoring:
    """Where the scores came from and how answers were read (the result of :func:`_scoring`)."""

    source: str
    score_col: str
    label_col: str | None
    response_col: str | None
    mode: str
    mode_reason: str
    unparsed_rows: pl.DataFrame
    unparsed: dict

    @property
    def binary(self) -> bool:
        return self.mode == YES_NO


def _responses_parsed(st: _Framed, response_col: str, scale) -> pl.DataFrame:
    """Each response parsed once, however often it is used."""
    if "r" not in st.cache:
        st.cache["r"] = parse_labels(st.frame[response_col], scale=scale)
    return st.cache["r"]


def _scoring(st: _Framed, scores: FramingScores) -> _Scoring:
    """Each row's score (``_score``) and kind (``_kind``: a refusal, a hedge, ...), from the score,
    label or response column, on the agreement scale or as yes/no answers."""
    label, response, score_from = scores.label, scores.response, scores.score_from
    scale, answers, label_map = scores.scale, scores.answers, scores.label_map
    frame, log = st.frame, st.log
    label_col = _column(frame, log, label, "label") if label else ("label" if "label" in frame.columns else None)
    response_col = (_column(frame, log, response, "response") if response
                    else ("reply" if "reply" in frame.columns else None))
    source, score_col = _score_source(frame, score_from, label_col, response_col)
    if isinstance(frame[score_col].dtype, (pl.List, pl.Array)):
        raise ColumnError(f"{st.header(score_col)} holds lists, not one answer per row; "
                          f"{explode_fix(score_col, seeds=False)}")
    mode, mode_reason = choose_answers(frame[score_col], answers, label_map=label_map, column=st.header(score_col))
    binary = mode == YES_NO
    if binary and scale is not None:
        raise OptionError("a scale belongs to agreement answers; yes/no answers are 1 (yes) and 0 (no), "
                          f"so drop the scale or give {opt('answers', 'agreement')}")
    if binary:
        parsed = binary_scores(frame[score_col], label_map=label_map)
    elif source == "score":
        parsed = _scores_from_numbers(frame["score"], scale, st.header("score"))
    else:
        parsed = (parse_labels(frame[score_col], scale=scale) if score_col != response_col
                  else _responses_parsed(st, response_col, scale))
    frame = frame.with_columns(parsed["score"].alias("_score"), parsed["kind"].alias("_kind"))
    if binary:
        if response_col is not None and source != "response" and "refusal" not in frame.columns:
            # a reply that reads as a refusal or a hedge is one, whatever an unreadable label says
            said = binary_scores(frame[response_col], label_map=label_map)["kind"]
            frame = frame.with_columns(
                pl.when(pl.col("_score").is_null() & said.is_in(["refusal", "hedge"])).then(said)
                .otherwise(pl.col("_kind")).alias("_kind"))
    elif response_col is not None and source != "response" and "refusal" not in frame.columns:
        # a judge writes refusals as Neutral; the response itself says whether the model abstained
        said = _responses_parsed(st, response_col, scale)["kind"]
        frame = frame.with_columns(
            pl.when((pl.col("_score") == 0) & (said == "refusal")).then(pl.lit("refusal"))
            .otherwise(pl.col("_kind")).alias("_kind"))
    if "refusal" in frame.columns:
        refused = _truthy(frame["refusal"])
        frame = frame.with_columns(  # a yes/no refusal has no score; on the agreement scale it scores 0
            pl.when(refused).then(pl.lit(None if binary else 0.0, dtype=pl.Float64)).otherwise(pl.col("_score"))
            .alias("_score"),
            pl.when(refused).then(pl.lit("refusal")).otherwise(pl.col("_kind")).alias("_kind"),
        )
    st.frame = frame
    unparsed_rows = frame.filter(pl.col("_score").is_null() & ~pl.col("_kind").is_in(["refusal", "hedge"]))
    unparsed = _unparsed_summary(unparsed_rows, score_col, st.header(score_col), st.rows_of)
    if unparsed_rows.height:
        st.problems.append(Problem(
            "warning", "unparsed_label",
            f"{unparsed_rows.height} of {frame.height} responses state no option that can be scored "
            f"({st.header(score_col)}); they are left out and listed, never guessed",
            st.rows_of(unparsed_rows), st.header(score_col)))
    return _Scoring(source, score_col, label_col, response_col, mode, mode_reason, unparsed_rows, unparsed)


def _mapping(column: str) -> str:
    """How a column is read under its canonical name, in the caller's spelling."""
    return either(f"columns={{{column!r}: HEADER}}", f"--column {column}=HEADER")


def _score_source(frame: pl.DataFrame, score_from, label_col, response_col) -> tuple[str, str]:
    """Where scores come from (``score``, ``label`` or ``response``) and the column that holds them."""
    has_scores = "score" in frame.columns and frame["score"].null_count() < frame.height
    source = score_from or ("score" if has_scores else "label" if label_col else
                            "response" if response_col else None)
    if source is None:
        seen = ", ".join(c for c in frame.columns if not c.startswith("_"))
        raise ColumnError(f"no score, label or response column to score; columns seen: {seen} "
                          f"(use {_mapping('score')})")
    if source == "score":
        if "score" not in frame.columns:
            raise ColumnError(f"{opt('score_from', 'score')} but the log has no score column (use {_mapping('score')})")
        return source, "score"
    score_col = label_col if source == "label" else response_col
    if score_col is None:
        mapped = "label" if source == "label" else "reply"
        raise ColumnError(f"{opt('score_from', source)} but the log has no {source} column (use "
                          f"{opt(source, 'COLUMN')} or {_mapping(mapped)})")
    return source, score_col


@dataclass
class _Polarity:
    """Per topic, the two targets its framings assert (``pairs``) and the reference a lean is measured
    toward (``refs``); ``reference`` is the one shared by every topic, else the mapping."""

    topics: list
    has_topic: bool
    pairs: dict
    refs: dict
    shared: bool
    reference: Any


def _polarity(st: _Framed, targets, toward) -> _Polarity:
    """Which target each prompt asserts, and each score aligned toward the reference (``_aligned``)."""
    has_topic = "topic" in st.frame.columns
    st.frame = st.frame.with_columns(
        (pl.col("topic").cast(pl.String).str.strip_chars().fill_null("") if has_topic else pl.lit("")).alias("_topic")
    )
    topics = st.frame["_topic"].unique(maintain_order=True).to_list()
    looked_up = (getattr(st.log, "_read", None) or {}).get("targets")
    if targets is not None:
        pairs = _pairs_from_targets(st, targets, topics, has_topic)
    elif looked_up is not None:   # the targets file joined on topic as a lookup (--targets FILE)
        pairs = _pairs_from_targets(st, _looked_up_targets(st), topics, has_topic)
    elif "asserts" in st.frame.columns:
        pairs = _pairs_from_asserts(st, topics, has_topic)
    else:
        pairs = {t: (_UNNAMED[AFFIRMATIVE], _UNNAMED[REVERSE]) for t in topics}
        if toward is not None:
            raise OptionError(f"{opt('toward')} needs named targets: give {opt('targets', 'FILE')} (topic, "
                              "affirmative, reverse) or an asserts column")
        st.problems.append(Problem(
            "warning", "unnamed_targets",
            "no asserts column and no targets: scores are aligned toward the claim each topic's affirmative "
            f"prompt makes (give {opt('targets', 'FILE')} to name the targets)"))
        st.frame = st.frame.with_columns(
            pl.when(pl.col("_framing") == AFFIRMATIVE).then(pl.lit(_UNNAMED[AFFIRMATIVE]))
            .otherwise(pl.lit(_UNNAMED[REVERSE])).alias("_asserts"))

    if has_errors(st.problems):
        raise FramingError(st.problems)

    refs = _references(pairs, toward)
    shared = len(set(refs.values())) == 1 and (toward is not None or len(refs) == 1 or
                                                 set(refs.values()) != {_UNNAMED[AFFIRMATIVE]})
    reference: Any = next(iter(refs.values())) if shared else dict(refs)
    st.frame = st.frame.with_columns(pl.col("_topic").replace_strict(refs, default=None).alias("_ref"))
    st.frame = st.frame.with_columns(
        pl.when(pl.col("_asserts") == pl.col("_ref")).then(pl.col("_score")).otherwise(-pl.col("_score"))
        .alias("_aligned")
    )
    return _Polarity(topics, has_topic, pairs, refs, shared, reference)


def _looked_up_targets(st: _Framed) -> dict:
    """Per topic, the targets a lookup of the targets file gave its rows (``affirmative`` and ``reverse``)."""
    rows = st.frame.select("_topic", pl.col(AFFIRMATIVE).cast(pl.String).str.strip_chars(),
                           pl.col(REVERSE).cast(pl.String).str.strip_chars()).unique(maintain_order=True)
    return {t: (a, r) for t, a, r in rows.iter_rows() if a and r}


def _pairs_from_targets(st: _Framed, targets, topics: list, has_topic: bool) -> dict:
    table = read_targets(targets)
    if not has_topic:
        if len(table) != 1:
            raise OptionError(f"the log has no topic column but the targets name {len(table)} topics; "
                              "add a topic column (or give one topic in the targets)")
        pairs = {"": next(iter(table.values()))}
    else:
        lacking = [t for t in topics if t not in table]
        if lacking:
            raise OptionError(f"the targets name no targets for the {'topic' if len(lacking) == 1 else 'topics'} "
                              f"{', '.join(map(repr, lacking))}; "
                              "add a row per topic (topic, affirmative, reverse)")
        pairs = {t: table[t] for t in topics}
    if "asserts" in st.frame.columns:
        st.problems.append(Problem("warning", "asserts_ignored",
                                   "the targets file was used; the log's asserts column was ignored", (),
                                   st.header("asserts")))
    st.frame = st.frame.with_columns(
        pl.when(pl.col("_framing") == AFFIRMATIVE)
        .then(pl.col("_topic").replace_strict({t: p[0] for t, p in pairs.items()}, default=None))
        .otherwise(pl.col("_topic").replace_strict({t: p[1] for t, p in pairs.items()}, default=None))
        .alias("_asserts")
    )
    return pairs


def _pairs_from_asserts(st: _Framed, topics: list, has_topic: bool) -> dict:
    frame = st.frame = st.frame.with_columns(pl.col("asserts").cast(pl.String).str.strip_chars().alias("_asserts"))
    missing = frame.filter(pl.col("_asserts").is_null() | (pl.col("_asserts") == ""))
    if missing.height:
        st.problems.append(Problem("error", "missing_target",
                                   f"{missing.height} rows do not say which target their prompt asserts; "
                                   f"fill the asserts column or give {opt('targets', 'FILE')}",
                                   st.rows_of(missing), st.header("asserts")))
    pairs = {}
    for t in topics:
        sub = frame.filter((pl.col("_topic") == t) & pl.col("_framing").is_not_null()
                           & pl.col("_asserts").is_not_null() & (pl.col("_asserts") != ""))
        a = sub.filter(pl.col("_framing") == AFFIRMATIVE)["_asserts"].unique(maintain_order=True).to_list()
        r = sub.filter(pl.col("_framing") == REVERSE)["_asserts"].unique(maintain_order=True).to_list()
        where = f"topic '{t}'" if has_topic else "the log"
        if len(a) == 1 and len(r) == 1 and a[0] != r[0]:
            pairs[t] = (a[0], r[0])
        elif len(a) > 1 or len(r) > 1 or (a and r and a[0] == r[0]):
            st.problems.append(Problem(
                "error", "inconsistent_target",
                f"in {where} the affirmative prompts assert {a} and the reverse prompts {r}; each framing "
                f"must assert one target and the two must differ (fix the asserts column or give {opt('targets', 'FILE')})",
                st.rows_of(sub), st.header("asserts")))
        else:
            st.problems.append(Problem("error", "unmatched_framing",
                                       f"{where} is asked in one framing only; both framings are needed",
                                       st.rows_of(sub), st.header("framing")))
    return pairs


def _references(pairs: dict, toward) -> dict:
    """Per topic, the target a lean is measured toward: ``toward`` (which every topic must assert),
    else the target of the topic's affirmative prompt."""
    if toward is None:
        return {t: p[0] for t, p in pairs.items()}
    toward = str(toward).strip()
    lacking = [t for t, p in pairs.items() if toward not in p]
    if lacking:
        known = sorted({x for p in pairs.values() for x in p})
        raise OptionError(
            f"no prompt in the {'topic' if len(lacking) == 1 else 'topics'} {', '.join(repr(t) for t in lacking)} "
            f"asserts '{toward}' "
            f"(targets: {', '.join(known)}); name a target every topic has, or analyze those topics apart")
    return {t: toward for t in pairs}


def _cells_and_items(st: _Framed, sc: _Scoring, pol: _Polarity, by, item) -> tuple[list, list, pl.DataFrame]:
    """The columns that make a cell and an item, and the scored rows of items asked in both framings."""
    frame, log = st.frame, st.log
    by_cols = [_column(frame, log, b, "by") for b in _as_list(by)]
    if by is None:
        by_cols = (["model"] if "model" in frame.columns else [])
        if not pol.shared and pol.has_topic:
            by_cols.append("topic")
    elif not pol.shared and pol.has_topic and len(pol.topics) > 1 and "topic" not in by_cols:
        raise OptionError(
            "the topics have no reference target in common, so pooling them would mix directions; "
            f"add {opt('by', 'topic')}, or give {opt('toward', 'TARGET')} with {opt('targets', 'FILE')} "
            "naming a target every topic asserts")
    if item is not None:
        item_cols = [_column(frame, log, c, "item") for c in _as_list(item)]
    else:
        item_cols = [c for c in ("item", "topic", "language") if c in frame.columns and c not in by_cols]
    item_cols = [c for c in item_cols if c not in by_cols]

    scored = _matched(st, frame.filter(pl.col("_score").is_not_null()), by_cols + item_cols)
    if scored.height == 0:
        why = "check the framing and score columns"
        if sc.unparsed["count"]:
            shown = ", ".join(repr(v["text"]) for v in sc.unparsed["values"][:3])
            why = (f"{sc.unparsed['count']} of {frame.height} replies ({st.header(sc.score_col)}) could not be read, "
                   f"such as {shown}; say what they mean with "
                   + either("label_map=['yes=TEXT,...', 'no=TEXT,...']",
                            f"{opt('label_map', 'yes=TEXT,...')} {opt('label_map', 'no=TEXT,...')}")
                   + f" (or {opt('answers', 'yes-no')}, or {opt('scale')} for numbers)")
        raise FramingError(st.problems + [Problem("error", "no_scores",
                                                  f"no item has scored responses in both framings; {why}")])
    return by_cols, item_cols, scored


def _matched(st: _Framed, scored: pl.DataFrame, keys: list) -> pl.DataFrame:
    """The scored rows of items that have responses in both framings (the others left out, warned)."""
    if not keys:
        return scored
    balance = scored.group_by(keys, maintain_order=True).agg(
        (pl.col("_framing") == AFFIRMATIVE).sum().alias("n_aff"),
        (pl.col("_framing") == REVERSE).sum().alias("n_rev"),
    )
    one_sided = balance.filter((pl.col("n_aff") == 0) | (pl.col("n_rev") == 0))
    if one_sided.height:
        names = ["/".join(str(v) for v in r) for r in one_sided.select(keys).head(5).iter_rows()]
        st.problems.append(Problem(
            "warning", "unmatched_item",
            f"{count_of(one_sided.height, 'item')} {'has' if one_sided.height == 1 else 'have'} scored responses in "
            f"one framing only ({', '.join(names)}"
            f"{', ...' if one_sided.height > 5 else ''}); {'it is' if one_sided.height == 1 else 'they are'} left out: "
            "an item needs both framings"))
        scored = scored.join(one_sided.select(keys), on=keys, how="anti", nulls_equal=True)
    unbalanced = balance.filter((pl.col("n_aff") != pl.col("n_rev")) & (pl.col("n_aff") > 0)
                                & (pl.col("n_rev") > 0))
    if unbalanced.height:
        st.problems.append(Problem(
            "warning", "unbalanced_framing",
            f"{count_of(unbalanced.height, 'item')} {'has' if unbalanced.height == 1 else 'have'} unequal numbers of "
            "scored responses in the two framings; "
            "their mean aligned score mixes a little acquiescence into the bias"))
    return scored


def _framing_cells(st: _Framed, sc: _Scoring, pol: _Polarity, scored: pl.DataFrame, by_cols: list,
                   item_cols: list, tests, confidence, method) -> list[dict]:
    """One record per cell: lean, acquiescence, their tests (corrected over the cells, read at the ``tests``'
    level) and pattern; ``method``: the interval of the scores."""
    alpha, correction = tests.alpha, tests.correction
    binary = sc.binary
    groups = (sorted(scored.group_by(by_cols), key=lambda g: _sort_key(g[0])) if by_cols else [((), scored)])
    raw_cells = []
    for key, sub in groups:
        key = key if isinstance(key, tuple) else (key,)
        cell_by = _cell_key(by_cols, key)
        bias_u, acq_u, unit, n_items = _units(sub, item_cols)
        bt, at = _test(bias_u), _test(acq_u)
        stats = _summaries(sub)
        cell_unparsed = sc.unparsed_rows
        for c, v in zip(by_cols, key):
            cell_unparsed = cell_unparsed.filter(pl.col(c) == v) if v is not None else cell_unparsed.filter(
                pl.col(c).is_null())
        if pol.shared:
            topic_ref = pol.reference
        else:
            ts = sub["_topic"].unique().to_list()
            topic_ref = pol.refs[ts[0]] if len(ts) == 1 else None
        ci = ((lambda u: binary_interval(u, confidence, unit)) if binary
              else (lambda u: _interval(u, confidence, method, unit)))
        extra = {}
        if binary:
            stats["neutral_rate"] = stats["abstain_rate"] = None  # no answer is neutral; refusals counted apart
            extra = dict(answers=YES_NO, yes_affirmative=yes_rate(stats["agree_affirmative"]),
                         yes_reverse=yes_rate(stats["agree_reverse"]),
                         **cell_counts(_select(st.frame.filter(pl.col("_score").is_null()), cell_by)))
        raw_cells.append(dict(
            by=cell_by, reference=topic_ref, n_items=n_items, n_unparsed=cell_unparsed.height, **stats,
            bias_p=bt.pvalue if bt else None, acquiescence_p=at.pvalue if at else None,
            bias_p_log10=bt.log10_pvalue if bt else None,
            acquiescence_p_log10=at.log10_pvalue if at else None,
            bias_ci=ci(bias_u), acquiescence_ci=ci(acq_u), **extra,
            test_unit=unit, test_method=bt.method if bt else None,
            min_attainable_p=min_attainable_p(len(bias_u)) if len(bias_u) else None,
            single_item=n_items == 1,
        ))
        _warn_small_cell(st, cell_by, n_items, sub.height, alpha)

    b_adj = adjust([c["bias_p"] for c in raw_cells], correction)
    a_adj = adjust([c["acquiescence_p"] for c in raw_cells], correction)
    for c, bp, ap in zip(raw_cells, b_adj, a_adj):
        c["bias_p_adjusted"], c["acquiescence_p_adjusted"] = bp, ap
        c["pattern"] = (binary_pattern if binary else _pattern)(bp, ap, c["acquiescence"], alpha)
    return raw_cells


def _warn_small_cell(st: _Framed, cell_by: dict, n_items: int, n_rows: int, alpha: float) -> None:
    where = ", ".join(f"{k}={v}" for k, v in cell_by.items()) or "the log"
    if n_items == 1:
        st.problems.append(Problem(
            "warning", "single_item",
            f"{where} has one item, so its test treats that prompt's {n_rows} runs as the sample: "
            "the result speaks for that one prompt only (add claims or languages to generalize)"))
    elif min_attainable_p(n_items) > alpha:
        st.problems.append(Problem(
            "warning", "cannot_reach_alpha",
            f"{where} has {count_of(n_items, 'item')}; the smallest attainable sign-flip p is "
            f"{min_attainable_p(n_items):.3g} > alpha {alpha}, so no lean could be detected (add items)"))


def _languages(scored: pl.DataFrame, cells: list[dict], by_cols: list, item_cols: list, confidence, method,
               binary: bool) -> list:
    """Per cell and language, the lean and its test; each cell counts the languages that agree in sign."""
    languages = []
    if "language" not in scored.columns or "language" in by_cols:
        return languages
    lang_items = [c for c in item_cols if c != "language"]
    for c in cells:
        sub = _select(scored, c["by"])
        n_lang = agree = 0
        for (lang,), lsub in sorted(sub.group_by(["language"]), key=lambda g: _sort_key(g[0])):
            bias_u, acq_u, unit, n_items = _units(lsub, lang_items)
            bt, at = _test(bias_u), _test(acq_u)
            st = _summaries(lsub)
            agrees = None
            if c["bias"] and st["bias"] is not None:
                agrees = bool(np.sign(st["bias"]) == np.sign(c["bias"]))
                agree += agrees
            n_lang += 1
            languages.append(LanguageResult(
                by=c["by"], language=None if lang is None else str(lang), n=st["n"], n_items=n_items,
                bias=st["bias"], bias_ci=_interval(bias_u, confidence, method, unit),
                bias_p=bt.pvalue if bt else None, acquiescence=st["acquiescence"],
                acquiescence_p=at.pvalue if at else None,
                neutral_rate=None if binary else st["neutral_rate"],
                abstain_rate=None if binary else st["abstain_rate"], test_unit=unit, agrees=agrees))
        # with no pooled lean (bias 0) no language can agree in sign: not counted as "0 of n"
        c["n_languages"], c["languages_agree"] = n_lang, (agree if c["bias"] else None)
    return languages


def _wrappers(scored: pl.DataFrame, cells: list[dict]) -> list:
    """Per cell, the mean aligned score under each prefix and suffix, and their spread."""
    wrappers = []
    for w in ("prefix", "suffix"):
        if w not in scored.columns:
            continue
        for c in cells:
            sub = _select(scored, c["by"])
            means = []
            for (value,), wsub in sorted(sub.group_by([w]), key=lambda g: _sort_key(g[0])):
                m = _mean(wsub["_aligned"])
                means.append(m)
                wrappers.append(WrapperResult(by=c["by"], wrapper=w, value=None if value is None else str(value),
                                              n=wsub.height, aligned=m))
            c[f"{w}_spread"] = (max(means) - min(means)) if len(means) >= 2 else None
    return wrappers


def _label_audit_of(st: _Framed, sc: _Scoring, scale, label_map):
    """The judge's labels against a parse of the responses, when the log has both."""
    label_col, response_col = sc.label_col, sc.response_col
    if not (label_col and response_col and label_col != response_col):
        return None
    frame, header = st.frame, st.header
    if sc.binary:
        return label_audit(frame[label_col], frame[response_col], label_column=header(label_col),
                           response_column=header(response_col), answers=YES_NO, label_map=label_map)
    return label_audit(frame[label_col], frame[response_col], scale=scale, label_column=header(label_col),
                       response_column=header(response_col), parsed=_responses_parsed(st, response_col, scale)["score"])


def _sort_key(key) -> tuple:
    key = key if isinstance(key, tuple) else (key,)
    return tuple((v is None, "" if v is None else str(v)) for v in key)


def _select(frame: pl.DataFrame, by: dict) -> pl.DataFrame:
    for c, v in by.items():
        frame = frame.filter(pl.col(c).is_null() if v is None else pl.col(c).cast(pl.String) == str(v))
    return frame


def _unparsed_summary(rows: pl.DataFrame, column, header, rows_of) -> dict:
    if rows.height == 0 or column is None:
        return {"count": int(rows.height), "column": header, "values": [], "rows": []}
    counts = (rows.group_by(column).agg(pl.len().alias("count"))
              .sort(["count", column], descending=[True, False], nulls_last=True).head(_MAX_LISTED))
    return {
        "count": int(rows.height),
        "column": header,
        "values": [{"text": None if v is None else str(v), "count": int(n)} for v, n in counts.iter_rows()],
        "rows": list(rows_of(rows)),
    }


def label_audit(labels, responses, *, scale=None, label_column="label", response_column="response",
                top: int = 10, parsed=None, answers: str = "agreement", label_map=None) -> LabelAudit:
    """Compare a judge's labels with a deterministic parse of the raw responses.

    Parameters
    ----------
    labels, responses : polars.Series or iterable
        The judge's label and the raw response of each row.
    scale : str, optional
        Declared numeric scale, when labels are numbers.
    top : int
        How many of the most frequent disagreements to list.
    parsed : polars.Series, optional
        Scores already parsed from ``responses`` (saves parsing them again).
    answers : {"agreement", "yes-no"}
        How both are read: on the agreement scale, or as yes/no answers (names yes and no).
    label_map : optional
        Other yes/no wordings (with ``answers="yes-no"``).

    Examples
    --------
    >>> a = label_audit(["Agree", "Neutral", "Neutral"], ["I agree.", "Disagree", "Disagree"])
    >>> a.compared, round(a.agreement, 3)
    (3, 0.333)
    >>> a.disagreements
    [{'response': 'Disagree', 'label': 'Neutral', 'parsed': 'disagree', 'count': 2}]
    """
    lab = labels if isinstance(labels, pl.Series) else pl.Series(list(labels), strict=False)
    resp = responses if isinstance(responses, pl.Series) else pl.Series(list(responses), strict=False)
    if answers == YES_NO:
        judge = binary_scores(lab, label_map=label_map)["score"]
        parsed = binary_scores(resp, label_map=label_map)["score"]
        name = {1.0: "yes", -1.0: "no"}.get
    else:
        judge = parse_labels(labels, scale=scale)["score"]
        parsed = parse_labels(responses, scale=scale)["score"] if parsed is None else parsed
        name = score_name
    df = pl.DataFrame({"label": lab.cast(pl.String), "response": resp.cast(pl.String),
                       "judge": judge, "parsed": parsed})
    both = df.filter(pl.col("judge").is_not_null() & pl.col("parsed").is_not_null())
    compared = both.height
    agreement = float((both["judge"] == both["parsed"]).mean()) if compared else None
    confusion: dict[str, dict[str, int]] = {}
    for j, p, n in both.group_by(["judge", "parsed"]).agg(pl.len()).sort(["judge", "parsed"],
                                                                         descending=True).iter_rows():
        confusion.setdefault(name(j), {})[name(p)] = int(n)
    dis = (both.filter(pl.col("judge") != pl.col("parsed"))
           .group_by(["response", "label", "parsed"]).agg(pl.len().alias("count"))
           .sort(["count", "response", "label"], descending=[True, False, False]).head(top))
    disagreements = [{"response": r, "label": lbl, "parsed": name(p), "count": int(n)}
                     for r, lbl, p, n in dis.iter_rows()]
    return LabelAudit(
        label_column=label_column, response_column=response_column, compared=compared, agreement=agreement,
        confusion=confusion, disagreements=disagreements,
        judge_only=int(df.filter(pl.col("judge").is_not_null() & pl.col("parsed").is_null()).height),
        parsed_only=int(df.filter(pl.col("judge").is_null() & pl.col("parsed").is_not_null()).height),
    )


def demo_rows() -> list[dict]:
    """A tiny framing log for examples: one model, three languages, a lean of +1."""
    rows = []
    for lang in ("en", "es", "fr"):
        for framing, score in (("affirmative", 1), ("reverse", -1)):
            rows.append({"model": "m", "topic": "t", "language": lang, "framing": framing, "score": score})
    return rows
