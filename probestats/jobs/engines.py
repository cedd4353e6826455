"""The analyses' public functions that take their options one by one: ``probestats.analyze_many``,
``probestats.analyze_factors``, ``probestats.analyze_judge`` and ``probestats.analyze_framing``.

Each puts its options into the objects its engine in :mod:`probestats.analyses` takes (what is compared, a
:class:`~probestats.analyses.question.Question`; how the log is read, a :class:`~probestats.shape.probe.Probe`;
how the tests are run, a :class:`~probestats.vocabulary.Tests`) and calls it: the engines read the fields they
use, and these keep the signatures a caller knows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from probestats.analyses import many
from probestats.analyses.evaluator import judge_analysis
from probestats.analyses.question import Question, from_keywords
from probestats.shape.probe import Probe
from probestats.vocabulary import N_RESAMPLES, Tests

__all__ = ["analyze_factors", "analyze_framing", "analyze_judge", "analyze_many"]


def _read(log, metric, read_options, *, always=False):
    """The log read with ``read_options`` (the engines take a log as read); without them, as given unless
    ``always``."""
    if not read_options and not always:
        return log
    # lazy: looked up when called, so a test's replacement of it on its module is seen
    from probestats.io.read import read_log

    return read_log(log, metric=metric, **dict(read_options or {}))


def analyze_many(
    log,
    *,
    metric: str,
    groups: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
    reference: str | None = None,
    by: Sequence[str] = (),
    alternative: str = "two-sided",
    alpha: float = 0.05,
    correction: str = "holm",
    fold_case: bool = False,
    n_resamples: int = N_RESAMPLES,
    seed: int | None = 0,
    noise=None,
    read_options: Mapping | None = None,
    selection: bool = False,
):
    """Analyze a probe with more than two values (or groups of values).

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
    metric : str
    groups : ``{"female": ["Emily", "Lakisha"], ...}`` or ``["female=Emily,Lakisha", ...]``, optional
        Several values standing for one group; each item's group mean is the mean of
        its per-name means. Values in no group are left out (with a warning).
    reference : str, optional
        The value (or group) gaps are measured against (default: the first).
    by : sequence of str
        Repeat the analysis per group of these columns; omnibus p corrected across them.
    alternative : {"two-sided", "greater", "less"}
        For the pairwise sign-flip tests (the omnibus test has no direction), each of ``a − b`` as the pair
        is oriented (:func:`~probestats.analyses.many.oriented_pairs`; value − reference for the gaps): "less" tests ``a`` below ``b``.
    alpha : float
    correction : {"holm", "bonferroni", "bh", "none"}
        Across pairs of values, and across ``by`` groups for the omnibus p.
    n_resamples, seed : int
        Monte Carlo settings of the omnibus test when it cannot be exact.
    selection : bool
        The metric says whether a candidate was selected (a design fact the user states): the values get
        selection rates and impact ratios, with the four-fifths reference. A 0/1 metric alone is not a
        selection (an agree share, a correct answer), so nothing is assumed from the values.

    Examples
    --------
    >>> rows = [{"item": i, "variant": v, "x": float(v == "A" and i < 5)}
    ...         for i in range(6) for v in ("A", "B", "C")]
    >>> result = analyze_many(rows, metric="x")
    >>> [(v.value, round(v.mean, 4)) for v in result.main.values]
    [('A', 0.8333), ('B', 0.0), ('C', 0.0)]
    >>> result.main.impact_ratios is None    # a 0/1 metric is not said to be a selection
    True
    >>> [r.ratio for r in analyze_many(rows, metric="x", selection=True).main.impact_ratios]
    [1.0, 0.0, 0.0]
    >>> result.main.omnibus.pvalue == 1 / 81   # items 1-4 each put their 1 under A, as item 0 does: 1 of 3**4
    True
    """
    many.refuse_noise(noise)
    tests = Tests(alternative=alternative, alpha=alpha, correction=correction, n_resamples=n_resamples, seed=seed)
    question = Question(metric, group=groups, reference=reference, by=by, selection=selection)
    return many.analyze_many(_read(log, metric, read_options, always=True), question, Probe(fold_case=fold_case),
                             tests)


def analyze_factors(log, *, metric: str, factors: Sequence[str], alternative: str = "two-sided",
                    alpha: float = 0.05, correction: str = "holm", fold_case: bool = False,
                    read_options=None, n_resamples: int = 10_000, seed: int | None = 0):
    """Analyze a probe that varies two attributes: within-level gaps, main effects, interaction.

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
    metric : str
    factors : two column names
        Each a column, or ``"COLUMN=LEVEL,LEVEL"`` naming its levels in the order wanted (without
        one, in order of appearance in the log). Gaps are the first level − the second, and the
        interaction ``(m11 − m21) − (m12 − m22)`` takes the sign a treatment-coded regression's
        interaction coefficient has with the first levels as reference. With two levels each, the 2 × 2 analysis below (a :class:`FactorAnalysis`). With more levels
        in either, the I × J analysis of :mod:`probestats.analyses.factors_many_levels` (a
        ``FactorialAnalysis``: per-level means, main effects and interaction by within-item
        permutation, the repeated-measures ANOVA beside). The ``variant`` column (or the header
        it was read from, such as ``style``) can be one of them.
    n_resamples, seed : int
        The I × J analysis: Monte Carlo permutations when they cannot all be enumerated.
    alternative, alpha, correction, fold_case
        As in :func:`probestats.analyze`.

    Examples
    --------
    >>> rows = [{"item": i, "style": s, "name": n, "x": (s == "formal") * (1 + (n == "Greg")) + 0.1 * i}
    ...         for i in range(6) for s in ("formal", "casual") for n in ("Emily", "Greg")]
    >>> result = analyze_factors(rows, metric="x", factors=["style", "name"])
    >>> [(e.name, round(e.average, 9)) for e in result.effects][:3]
    [('style within name = Emily', 1.0), ('style within name = Greg', 2.0), ('style', 1.5)]
    >>> result.effect("interaction").average, result.effect("interaction").sign_flip.pvalue
    (-1.0, 0.03125)
    >>> declared = analyze_factors(rows, metric="x", factors=["style=casual,formal", "name=Greg,Emily"])
    >>> declared.levels, declared.effect("interaction").average
    ((('casual', 'formal'), ('Greg', 'Emily')), -1.0)
    >>> declared.interaction_in_words[:80]
    "interaction negative: the style gap ('casual' − 'formal') is larger among 'Emily"
    """
    from probestats.analyses import factors as engine   # lazy: the analysis this job runs, imported when it runs

    tests = Tests(alternative=alternative, alpha=alpha, correction=correction, n_resamples=n_resamples, seed=seed)
    return engine.analyze_factors(_read(log, metric, read_options, always=True), Question(metric, factor=factors),
                                  Probe(fold_case=fold_case), tests)


def analyze_framing(
    log,
    *,
    by: str | Iterable[str] | None = None,
    toward: str | None = None,
    targets=None,
    item: str | Iterable[str] | None = None,
    alpha: float = 0.05,
    correction: str = "holm",
    confidence: float = 0.95,
    interval: str | None = None,
    label: str | None = None,
    response: str | None = None,
    score_from: str | None = None,
    scale=None,
    answers: str = "auto",
    label_map=None,
):
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
    alpha : float
        Level for the pattern (on corrected p-values).
    correction : {"holm", "bonferroni", "bh", "none"}
        Correction of p-values across cells.
    confidence : float
        Level of the intervals.
    interval : {"t", "sign-flip"}, optional
        Interval method for scores (see :func:`probestats.stats.hypotests.gap_interval`); default ``"t"``.
        Yes/no answers have their own interval (the exact sign-flip inversion up to 30 units, Hoeffding's
        bound beyond) and refuse this parameter rather than ignore it.
    label, response : str, optional
        Columns holding a judge's label and the raw response (default ``label`` and
        ``reply``); when both exist, the label audit compares them.
    score_from : {"score", "label", "response"}, optional
        Where scores come from. Default: the ``score`` column if present, else the
        label, else a parse of the response.
    scale : str, optional
        Declared numeric scale of scores or labels, such as ``"1:5"``.
    answers : {"auto", "yes-no", "agreement"}
        How answers are scored: yes/no (+1/−1, see :mod:`probestats.analyses.framing_binary`)
        or the agreement scale. ``auto`` chooses by the values
        (:func:`~probestats.analyses.framing_binary.choose_answers`); the result says
        which and why (``answers``, ``answers_reason``).
    label_map : str, list of str or mapping, optional
        Other yes/no wordings, ``["yes=Affirm,Y", "no=Negate"]``
        (:func:`probestats.shape.yesno.parse_label_map`).

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
    from dataclasses import replace

    from probestats.analyses import framing as engine   # lazy: the analysis this job runs, imported when it runs

    tests = Tests(alpha=alpha, correction=correction)
    engine.check_framing_interval(interval)   # the framing's own words for an interval it has no use for
    scores = engine.FramingScores(label=label, response=response, score_from=score_from, scale=scale,
                                  answers=answers, label_map=label_map)
    return engine.analyze_framing(log, replace(tests, interval=interval), by=by, toward=toward, targets=targets,
                                  item=item, confidence=confidence, scores=scores)


def analyze_judge(log, *, metric: str, a: str | None = None, b: str | None = None, scale=None,
                  by: Sequence[str] = ("criterion",), baseline: str | None = None, **kwargs):
    """Analyze an evaluator probe: per-criterion deltas (a − b), ceiling/floor cells, the judge's repeats.

    Parameters
    ----------
    log : path, Log, list of dict or DataFrame
    metric : str
        The level the judge gave.
    a, b : str, optional
        The changed text's value and the baseline's (the delta is ``a − b``; cells are
        flagged by ``baseline``, else by ``b``).
    baseline : str, optional
        Which of the two values is the unchanged one (its cells are checked at the scale's ends).
    scale : "LOW:HIGH" or (low, high), optional
    by : sequence of str
        Columns that split the judge's output (default: ``criterion``); columns absent
        from the log are ignored.
    **kwargs
        The options of :func:`probestats.analyses.paired.analyze_pair`, by name: what is compared (``noise``,
        ``noise_value``), how the log is read (a :class:`~probestats.shape.probe.Probe`'s fields,
        ``read_options``), how the tests are run (a :class:`~probestats.vocabulary.Tests`' fields, ``hedges``),
        ``mdg`` and ``within_noise``.
    """
    log = _read(log, metric, kwargs.pop("read_options", None), always=True)
    question, probe, tests, run = from_keywords(metric=metric, a=a, b=b, scale=scale, by=tuple(by),
                                                baseline=baseline, **kwargs)
    return judge_analysis(log, question, probe, tests, **run)
