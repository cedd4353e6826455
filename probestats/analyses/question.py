"""What an analysis compares: the one object the engines of :mod:`probestats.analyses` take beside the log, the
:class:`~probestats.shape.probe.Probe` (what the log's columns mean) and the
:class:`~probestats.vocabulary.Tests` (how the tests are run).

The three travel in as they are and each engine reads the fields it uses (``question.a``, ``probe.cluster``,
``tests.alpha``), so a new choice is added to one object, not threaded through every signature.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from probestats.errors import OptionError, opt
from probestats.shape.probe import Probe
from probestats.vocabulary import Tests

__all__ = ["Question", "Run", "split_metrics"]


@dataclass(frozen=True)
class Question:
    """What is compared: the metric, the values or groups, the split, the noise reference and the arms.

    Attributes
    ----------
    metric : str or sequence of str
        The metric column; several (a sequence, or names separated by commas): one paired analysis per metric,
        corrected as one family.
    a, b : str, optional
        The compared values; gap = mean under ``a`` − mean under ``b``.
    by : sequence of str
        Repeat the analysis per group of these columns, corrected across groups.
    reference : str, optional
        More than two values: gaps against this value.
    group : sequence of "GROUP=V1,V2" or mapping
        Several values standing for one group.
    scale : "LOW:HIGH" or (low, high), optional
        A judge's scale: flag cells whose baseline sits at its top or bottom.
    factor : two column names, optional
        Two attributes at once: main effects and interaction.
    noise : optional
        The noise reference: a same-versus-same log, ``"within"`` or ``"none"``.
    noise_value : str, optional
        The repeats of this value in the log, split in random halves, as the noise reference.
    control : str, optional
        A control wording, set beside the compared values.
    baseline : str, optional
        The unchanged one of two compared values.
    selection : bool
        The metric says whether a candidate was selected (many values: selection rates, impact ratios).

    Examples
    --------
    >>> Question("steps", a="formal", b="casual").metrics
    ('steps',)
    >>> Question("steps,words").metrics
    ('steps', 'words')
    """

    metric: str | Sequence[str]
    a: str | None = None
    b: str | None = None
    by: Sequence[str] = ()
    reference: str | None = None
    group: Sequence[str] | Mapping[str, Sequence[str]] = ()
    scale: object = None
    factor: Sequence[str] = ()
    noise: object = None
    noise_value: str | None = None
    control: str | None = None
    baseline: str | None = None
    selection: bool = False

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metric's names, one or several (names separated by commas are several)."""
        return tuple(split_metrics(self.metric))


@dataclass(frozen=True)
class Run:
    """How an analysis runs: not what it compares (:class:`Question`), what the log's columns mean
    (:class:`~probestats.shape.probe.Probe`) or how it tests (:class:`~probestats.vocabulary.Tests`), but what
    it computes beside the result and how it reads the log.

    Attributes
    ----------
    mdg : bool
        With a noise log: compute the minimum detectable gap of the design.
    within_noise : bool
        Without ``noise``: the within-log same-versus-same comparison beside the result.
    streaming : bool
        Validate and summarize the log in one streaming pass (:mod:`probestats.checks.stream`), so memory grows
        with items x values, not rows; a log with problems that need its rows is validated as usual. The
        results are the same; the result's ``checked.frame`` is then empty (so no row-level tests).
    progress : callable, optional
        Called with the name of each stage of a long job (a progress display).
    facts : bool
        With ``streaming``: the pass also takes what a report states of the log's settings and seeds
        (``checked.facts``, :mod:`probestats.checks.facts`), so the report reads no rows.
    many : bool
        With more than two values and no ``a``/``b``: hand the log to the many-values analysis
        (:func:`probestats.analyses.many.analyze_many`, True), or compare the first two values with a
        ``more_values`` warning (False).
    streamed : Streamed, optional
        With ``streaming``: the pass over this log already taken (with ``halves``), used instead of a new one
        (the before and after comparison checks the logs from it first).

    Examples
    --------
    >>> Run(mdg=False).within_noise, Run().streaming
    (True, False)
    """

    mdg: bool = True
    within_noise: bool = True
    streaming: bool = False
    progress: Callable[[str], None] | None = None
    facts: bool = False
    many: bool = True
    streamed: object = None


#: the keywords of how a paired analysis runs (not what it compares, how the log is read, or how it tests):
#: the hand labels of a coded metric, and the fields of :class:`Run`
RUN_KEYWORDS = ("validation", "mdg", "within_noise", "streaming", "progress", "facts", "many", "streamed")


def from_keywords(**keywords):
    """The :class:`Question`, :class:`~probestats.shape.probe.Probe` and :class:`~probestats.vocabulary.Tests`
    that loose keywords name, and the keywords of how the analysis runs: for the public functions that take
    their options one by one (:func:`probestats.analyze_judge`), so that the engines take the three objects.

    ``hedges=True`` is ``effect_size='g_z'`` (``'g_av'`` with ``effect_size='d_av'``); ``read_options`` are the
    probe's reading fields (a ``columns`` mapping its column mapping).

    >>> q, probe, tests, run = from_keywords(metric="steps", a="x", alpha=0.01, fold_case=True, mdg=False)
    >>> q.a, probe.fold_case, tests.alpha, run
    ('x', True, 0.01, {'mdg': False})
    >>> from_keywords(metric="steps", hedges=True)[2].effect_size
    'g_z'
    >>> from_keywords(metric="steps", colour="red")
    Traceback (most recent call last):
    ...
    TypeError: unexpected keyword argument 'colour'
    """
    from dataclasses import fields

    given = dict(keywords)
    read = dict(given.pop("read_options", None) or {})
    if "columns" in read:
        read["columns"] = tuple(dict(read["columns"]).items())
    hedges = bool(given.pop("hedges", False))
    names = {cls: {f.name for f in fields(cls)} for cls in (Question, Probe, Tests)}
    parts: dict = {Question: {}, Probe: dict(read), Tests: {}}
    run = {}
    for name, value in given.items():
        home = next((cls for cls in (Question, Tests, Probe) if name in names[cls]), None)
        if home is not None:
            parts[home][name] = value
        elif name in RUN_KEYWORDS:
            run[name] = value
        else:
            raise TypeError(f"unexpected keyword argument {name!r}")
    if hedges:
        parts[Tests]["effect_size"] = "g" + parts[Tests].get("effect_size", "d_z")[1:]
    return Question(**parts[Question]), Probe(**parts[Probe]), Tests(**parts[Tests]), run


def split_metrics(metric) -> list[str]:
    """The metrics a ``--metric`` option names: repeated, comma-separated or both, in order, once each.

    >>> split_metrics(["a,b", "c", "a"])
    ['a', 'b', 'c']
    >>> split_metrics("steps")
    ['steps']
    """
    given = [metric] if isinstance(metric, str) else list(metric)
    out: list[str] = []
    for text in given:
        for name in str(text).split(","):
            name = name.strip()
            if not name:
                raise OptionError(f"{opt('metric', text)}: an empty metric name; give names separated by commas, "
                                  f"such as {opt('metric', 'a,b')}")
            if name not in out:
                out.append(name)
    return out
