"""The verdict of a paired analysis, decided once: every renderer words this object.

:func:`decide` reads the exact test, the noise comparison and the blocks, and returns a
:class:`Verdict`. Its ``conclusion`` is one of

- ``"detected"``: the exact sign-flip p is at most alpha, and no valid same-versus-same
  comparison gave a gap at least as large in size;
- ``"within_noise"``: p at most alpha, but a valid same-versus-same comparison gave a gap at
  least as large: a gap no larger than the noise means nothing;
- ``"not_detected"``: p above alpha;
- ``"against_constant"``: p at most alpha, but one arm is constant (:mod:`probestats.checks.design_facts`) and no
  noise or control reference stands beside it, so the test only asked whether the other arm differs from
  that constant, and the gap cannot be told from re-asking noise (:func:`with_design`); ``detected`` stays
  True (the p is at most alpha), but no renderer calls it larger than chance;
- ``"undecided"`` (many values): a Monte Carlo omnibus p whose interval still holds alpha when the resamples'
  budget ran out (:func:`decide_many`);
- ``"untested"`` (a family of corrected tests): no member could be tested, so nothing was, and the statement
  says why (:func:`decide_effects`); ``pvalue`` is None.

A same-versus-same comparison whose own exact p is at most alpha is a **failed check**, not
evidence that the probe is noise: the verdict then rests on the probe's exact test, with the
failure and its likely causes among the caveats.

Caveats
-------
Every fact that weakens a verdict is one named :class:`probestats.checks.design_facts.Caveat` in
``Verdict.caveats`` (``id``, ``sentence``, ``figures``; the record is described in that module's
docstring); in JSON ``verdict.caveats`` is a list of ``{"id", "sentence", "figures"}``. An analysis
adds its own with :func:`with_caveats` (one per id: a later one with the same id replaces the
earlier); :func:`probestats.checks.design_facts.design_caveats` gives those of the log's design. Every
:class:`Verdict` whose p lies within :data:`BORDERLINE_FACTOR` of alpha carries, last, the ``borderline``
caveat (:func:`borderline_caveat`), whichever way it was built.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from probestats.checks.design_facts import Caveat, constant_text, design_caveats
from probestats.errors import either
from probestats.stats.permutation import PERMUTATION_TEST

__all__ = ["with_caveats", "caveat_ids", "with_design", "borderline_caveat", "BORDERLINE_FACTOR", "has_reference", "against_constant_statement", "NoiseCheck", "Verdict", "decide", "decide_many", "decide_effects", "no_noise_check", "ChangeVerdict", "decide_change",
           "NOISE_SOURCES"]

#: where the noise reference comes from
NOISE_SOURCES = ("log", "within", "value", "none")


def with_caveats(verdict, *caveats: Caveat, **changes):
    """``verdict`` with ``caveats`` added (one per id: a new one replaces an old one of the same id, in place),
    and any other fields changed (``statement=...``).

    >>> from types import SimpleNamespace as NS
    >>> v = decide(NS(sign_flip=NS(pvalue=0.01), average_gap=0.8, min_attainable_p=0.001),
    ...            NoiseCheck("none", "none", False, reason="none was given"), alpha=0.05)
    >>> v = with_caveats(v, Caveat("unequal_runs", "Runs differ."), Caveat("unequal_runs", "Runs differ by value."))
    >>> caveat_ids(v), v.caveats[-1].sentence
    (('no_noise_check', 'unequal_runs'), 'Runs differ by value.')
    """
    from dataclasses import replace

    out = list(verdict.caveats)
    for c in caveats:
        at = next((i for i, old in enumerate(out) if old.id == c.id), None)
        if at is None:
            out.append(c)
        else:
            out[at] = c
    return replace(verdict, caveats=tuple(out), **changes)


def caveat_ids(verdict) -> tuple[str, ...]:
    """The ids of a verdict's caveats, in order."""
    return tuple(c.id for c in verdict.caveats)


@dataclass(frozen=True)
class NoiseCheck:
    """The same-versus-same comparison beside a probe, and whether it can be read as its noise.

    Attributes
    ----------
    source : {"log", "within", "value", "none"}
        A noise log (``--noise LOG``), the log's own runs split in halves (``--noise within``), the
        repeats of one value (``--noise-value VALUE``), or none.
    description : str
        What was compared, in words (the split and its seed, or the noise log's values).
    valid : bool
        A comparison was made and can stand beside the probe (False for ``none`` and for a check
        that could not be made).
    reason : str or None
        Why there is no valid check (one run per cell, ``--noise none``), else None.
    failed : bool
        The comparison itself shows a gap beyond chance (its exact p at most alpha): runs compared
        as the same differ. Never for the log's own halves (``within``, ``value``): they are read over
        every split, which a random split of repeats cannot make differ beyond chance
        (:mod:`probestats.analyses.noise_check`).
    causes : tuple of str
        The likely causes of a failed check that the log shows (empty when it passed).
    average_gap, pvalue : float or None
        The comparison's average gap and exact sign-flip p (None without one); for the log's own halves,
        the root mean square of their average gap over every split, and no p.
    seed : int or None
        The seed of a random split (None: nothing was drawn).
    """

    source: str
    description: str
    valid: bool
    reason: str | None = None
    failed: bool = False
    causes: tuple[str, ...] = ()
    average_gap: float | None = None
    pvalue: float | None = None
    seed: int | None = None

    def to_dict(self) -> dict:
        return {"source": self.source, "description": self.description, "valid": self.valid, "reason": self.reason,
                "failed": self.failed, "causes": list(self.causes), "average_gap": self.average_gap,
                "p": self.pvalue, "seed": self.seed}


@dataclass(frozen=True)
class Verdict:
    """What a paired analysis concludes at ``alpha``, computed once (see the module docstring).

    Attributes
    ----------
    detected : bool
        The exact sign-flip p is at most ``alpha``.
    conclusion : {"detected", "within_noise", "not_detected", "against_constant", "undecided", "untested"}
        The conclusion's stable name (see the module docstring); ``"untested"`` when a family's every test was
        undefined (an order probe none of whose verdicts were read), so nothing was tested.
    statement : str
        The conclusion in plain words (no numbers), as every renderer prints it after "at alpha ...:".
    alpha : float
        The level.
    pvalue : float or None
        The exact test's p (the smallest corrected p of a family); None when nothing was tested.
    noise : NoiseCheck
        The same-versus-same comparison and its validity.
    beyond_noise : bool or None
        The probe's average gap is larger in size than a valid, passed noise comparison's (None
        when there is none to compare with).
    never_significant : bool
        With these non-zero gaps the smallest attainable p exceeds alpha.
    pooled : str or None
        What the item gaps averaged over, when a setting varied within cells (a block), else None.
    blocks : tuple of str
        The setting columns treated as blocks.
    caveats : tuple of Caveat
        The named facts a reader must see beside the conclusion (see the module docstring).
    attribute_settings : tuple of str
        Settings varied on purpose with the attribute (declared), part of what was compared.
    test : str
        The test the verdict rests on, in words (the exact sign-flip test on the item gaps for a pair;
        the omnibus permutation test for many values; the corrected tests of every effect for factors).
    found : tuple of str
        What was found larger than chance: the effects (factors) or the values whose corrected gap
        against the reference is at most alpha (many values); empty for a pair.
    control : ControlComparison or None
        With a control wording (``control=VALUE``): whether each compared value moves the metric more than
        that meaningless edit does, and whether the control itself moves it
        (:mod:`probestats.analyses.control`); None without one.
    agreement : BlockAgreement or None
        With blocks or ``by`` groups: whether the blocks the headline averages over agree
        (:mod:`probestats.analyses.blocks`); when they disagree, ``pooled`` is its one sentence and
        ``caveats`` carry its statement. None without blocks.
    reference_check : ReferenceCheck or None
        Many values against a reference: whether every value differs from it the same way by a similar
        amount while they are alike, so the reference itself may be the cause
        (:mod:`probestats.analyses.reference`); its statement leads ``caveats`` when it is. None otherwise.
    borderline : bool
        (A property.) ``pvalue`` lies within :data:`BORDERLINE_FACTOR` of ``alpha``: the ``borderline`` caveat,
        last among ``caveats``, says so with its margin.
    blanks : BlankReadings or None
        A pair with blank metric cells: the blank runs per value, Fisher's exact test of whether they differ,
        and when they do the gap read both ways, blanks left out and counted as misses
        (:mod:`probestats.analyses.blanks`), its statement among the ``caveats``. None without blanks.
    """

    detected: bool
    conclusion: str
    statement: str
    alpha: float
    pvalue: float
    noise: NoiseCheck
    beyond_noise: bool | None = None
    never_significant: bool = False
    pooled: str | None = None
    blocks: tuple[str, ...] = ()
    caveats: tuple[Caveat, ...] = field(default_factory=tuple)
    attribute_settings: tuple[str, ...] = ()
    test: str = "the exact sign-flip test on the item gaps"
    found: tuple[str, ...] = ()
    control: object | None = None
    agreement: object | None = None
    reference_check: object | None = None
    blanks: object | None = None

    def __post_init__(self):
        # the borderline caveat follows the p the verdict holds, however it was built or replaced (a later p, as the
        # clusters' test gives, takes its own): one at the end when p is within the margin, none otherwise
        kept = tuple(c for c in self.caveats if c.id != "borderline")
        near = borderline_caveat(self)
        object.__setattr__(self, "caveats", kept + ((near,) if near is not None else ()))

    @property
    def borderline(self) -> bool:
        """The headline p lies within :data:`BORDERLINE_FACTOR` of alpha (:func:`borderline_caveat`)."""
        return any(c.id == "borderline" for c in self.caveats)

    def to_dict(self) -> dict:
        return {"detected": self.detected, "conclusion": self.conclusion, "statement": self.statement,
                "alpha": self.alpha, "p": self.pvalue, "borderline": self.borderline, "beyond_noise": self.beyond_noise,
                "never_significant": self.never_significant, "pooled": self.pooled, "blocks": list(self.blocks),
                "noise": self.noise.to_dict(), "caveats": [c.to_dict() for c in self.caveats],
                "attribute_settings": list(self.attribute_settings), "test": self.test, "found": list(self.found),
                "control": None if self.control is None else self.control.to_dict(),
                "blocks_agree": None if self.agreement is None else self.agreement.to_dict(),
                "reference_check": None if self.reference_check is None else self.reference_check.to_dict(),
                "blanks": None if self.blanks is None else self.blanks.to_dict()}


#: A headline p from alpha / BORDERLINE_FACTOR to alpha * BORDERLINE_FACTOR (0.025 to 0.1 at alpha 0.05) is
#: borderline. One run more or fewer moves a cell's mean, and so the p, a little: on generated designs of five or
#: six runs a cell, one run dropped moved a p below 0.5 by a factor of at most 1.75 (tests/test_invariance.py), so a
#: p outside the margin keeps its side of alpha, and one inside it may not; the verdict then says so.
BORDERLINE_FACTOR = 2.0


def borderline_caveat(verdict) -> Caveat | None:
    """The ``borderline`` caveat of a verdict (its ``pvalue``, ``alpha`` and ``conclusion``) whose p lies within
    :data:`BORDERLINE_FACTOR` of alpha (ends included), else None (also for a p that is None, and for an
    ``undecided`` or ``untested`` conclusion, which say what they are themselves).

    >>> from types import SimpleNamespace as NS
    >>> borderline_caveat(NS(pvalue=0.031, alpha=0.05, conclusion="detected")).sentence
    'Borderline: p = 0.031 lies within a factor of 2 of alpha = 0.05 (from 0.025 to 0.1), where one run more or fewer can move it across alpha; the conclusion holds for these runs but is not firm.'
    >>> [borderline_caveat(NS(pvalue=p, alpha=0.05, conclusion="not_detected")) is not None for p in (0.0249, 0.1, 0.1001)]
    [False, True, False]
    """
    p, alpha = verdict.pvalue, verdict.alpha
    if p is None or verdict.conclusion in ("undecided", "untested") or p != p:
        return None
    low, high = alpha / BORDERLINE_FACTOR, alpha * BORDERLINE_FACTOR
    if not low <= p <= high:
        return None
    return Caveat(
        "borderline",
        f"Borderline: p = {p:.4g} lies within a factor of {BORDERLINE_FACTOR:g} of alpha = {alpha:g} (from "
        f"{low:g} to {high:g}), where one run more or fewer can move it across alpha; the conclusion holds for "
        "these runs but is not firm.",
        {"p": float(p), "alpha": float(alpha), "factor": BORDERLINE_FACTOR, "low": low, "high": high})


STATEMENTS = {
    "detected": "a gap larger than chance",
    "within_noise": ("a gap larger than chance, but no larger than the same-versus-same gap, so it cannot be "
                     "told from noise"),
    "not_detected": "no gap larger than chance detected (this does not show that there is none)",
}


def decide(main, noise_check: NoiseCheck, *, alpha: float, pooled: str | None = None,
           blocks: tuple[str, ...] = (), attribute_settings: tuple[str, ...] = (), agreement=None,
           blanks=None) -> Verdict:
    """The verdict of a compared pair ``main`` (a ``PairResult``) beside its noise check.

    >>> from types import SimpleNamespace as NS
    >>> main = NS(sign_flip=NS(pvalue=0.01), average_gap=0.8, min_attainable_p=0.001)
    >>> failed = NoiseCheck("log", "noise log", True, failed=True, average_gap=-6.5, pvalue=1e-11,
    ...                     causes=("rows in metric order",))
    >>> v = decide(main, failed, alpha=0.05)
    >>> v.conclusion, v.caveats[0].sentence[:24]
    ('detected', 'The noise check failed: ')
    >>> decide(main, NoiseCheck("log", "noise log", True, average_gap=1.0, pvalue=0.3), alpha=0.05).conclusion
    'within_noise'
    """
    headline = getattr(main, "headline_test", main.sign_flip)
    p = headline.pvalue
    detected = p <= alpha
    comparable = noise_check.valid and not noise_check.failed and noise_check.average_gap is not None
    beyond = abs(main.average_gap) > abs(noise_check.average_gap) if comparable else None
    if not detected:
        conclusion = "not_detected"
    elif beyond is False:
        conclusion = "within_noise"
    else:
        conclusion = "detected"
    caveats = []
    if noise_check.failed:
        why = ("; likely cause: " + "; ".join(noise_check.causes)) if noise_check.causes else ""
        caveats.append(Caveat(
            "noise_check_failed",
            f"The noise check failed: {noise_check.description} differ by more than chance "
            f"(runs compared as the same differ){why}. It is not read as the probe's noise; the "
            "verdict rests on the probe's own exact test, to be read with that caveat.",
            {"p": noise_check.pvalue, "average_gap": noise_check.average_gap}, summary=False))
    elif not noise_check.valid:
        caveats.append(Caveat(
            "no_noise_check",
            f"No same-versus-same check: {noise_check.reason}; the verdict rests on the exact test alone.",
            {"source": noise_check.source}, summary=False))
    if pooled and blocks:
        caveats.append(Caveat(
            "pooled_blocks",
            f"The item gaps are {pooled}: each is matched within one "
            f"{' x '.join(blocks)} value, so differences between them are not counted as noise.",
            {"blocks": list(blocks)}, summary=False))
    if agreement is not None and agreement.disagree:   # the headline names it: the pooled phrase is its sentence
        pooled = agreement.phrase
        caveats.insert(0, Caveat("blocks_disagree", agreement.statement, agreement.to_dict(), summary=False))
    if blanks is not None and blanks.differ:   # the gap depends on how the blanks are read: both readings
        caveats.insert(0, Caveat("blanks_by_value", blanks.statement, blanks.to_dict(), summary=False))
    return Verdict(detected=detected, conclusion=conclusion, statement=STATEMENTS[conclusion], alpha=alpha,
                   pvalue=p, noise=noise_check, beyond_noise=beyond,
                   never_significant=main.min_attainable_p > alpha, pooled=pooled, blocks=tuple(blocks),
                   caveats=tuple(caveats), attribute_settings=tuple(attribute_settings), agreement=agreement,
                   blanks=blanks,
                   test=(f"{PERMUTATION_TEST} on the item gaps" if getattr(main, "permutation", None) is not None
                         else "the exact sign-flip test on the item gaps"))


def has_reference(verdict: Verdict) -> bool:
    """A reference that can tell a gap from re-asking noise: a valid, passed same-versus-same log or repeated
    value (``noise=LOG``, ``noise_value=``), or a control wording. The log's own runs split in halves are not
    one: they re-use the changed arm's runs and say nothing of asking again without the change."""
    check = verdict.noise
    return (check.valid and not check.failed and check.source in ("log", "value")) or verdict.control is not None


def against_constant_statement(a: str, constant: str) -> str:
    """What a verdict on a constant arm says when p is at most alpha and no reference stands beside it.

    >>> against_constant_statement("push", "0")
    "'push' differs from a constant 0, the only thing the test asks when the other arm never varies; without a noise or control reference this cannot be told from re-asking noise"
    """
    return (f"'{a}' differs from a constant {constant}, the only thing the test asks when the other arm never "
            "varies; without a noise or control reference this cannot be told from re-asking noise")


def with_design(verdict: Verdict, facts) -> Verdict:
    """``verdict`` with the design facts that weaken it (:func:`probestats.checks.design_facts.design_caveats`);
    with a constant arm and no reference (:func:`has_reference`), a gap at or below alpha is not called
    larger than chance: the conclusion is ``"against_constant"`` and the statement says what the test asked.

    >>> import polars as pl
    >>> from types import SimpleNamespace as NS
    >>> from probestats.checks.design_facts import design_facts
    >>> rows = pl.DataFrame({"item": [str(i // 2) for i in range(20)], "variant": ["push", "none"] * 10,
    ...                      "flip": [float(i % 2 == 0 and i < 14) for i in range(20)]})   # 'none' is 0 throughout
    >>> v = decide(NS(sign_flip=NS(pvalue=0.002), average_gap=1.0, min_attainable_p=0.002),
    ...            NoiseCheck("none", "none", False, reason="none was given"), alpha=0.05)
    >>> v = with_design(v, design_facts(rows, "flip", "push", "none"))
    >>> v.conclusion, v.detected, caveat_ids(v)
    ('against_constant', True, ('no_noise_check', 'constant_arm'))
    """
    out = with_caveats(verdict, *design_caveats(facts))
    arms = facts.constant_arms
    if arms and out.detected and not has_reference(out):
        arm = arms[-1]   # the reference arm (b) when both are constant
        other = facts.b if arm.value == facts.a else facts.a
        out = with_caveats(out, conclusion="against_constant",
                           statement=against_constant_statement(other, constant_text(arm.constant)))
    return out


MANY_STATEMENTS = {
    "detected": "the values differ by more than chance",
    "not_detected": ("no difference between the values larger than chance detected (this does not show that "
                     "there is none)"),
    "undecided": "undecided at this precision: the Monte Carlo omnibus p cannot be told apart from alpha",
}
#: the omnibus test a many-values verdict rests on
OMNIBUS_TEST = "the within-item permutation test that the value makes no difference (omnibus)"
#: the tests a factor design's verdict rests on
EFFECTS_TEST = "the within-item tests of every effect, p corrected across them"


def no_noise_check(kind: str, reason: str | None = None) -> NoiseCheck:
    """The noise check of an analysis that has none of its own (many values, factors): said, not skipped.

    >>> no_noise_check("several values").reason[:44]
    'a comparison of several values has no same-v'
    """
    fix = either("give a and b to compare one pair with its noise log",
                 "give --a and --b to compare one pair with its noise log")
    return NoiseCheck("none", "no same-versus-same comparison", False,
                      reason=reason or f"a comparison of {kind} has no same-versus-same comparison here ({fix})")


def _common_caveats(check: NoiseCheck, test: str) -> list[Caveat]:
    return [Caveat("no_noise_check", f"No same-versus-same check: {check.reason}; the verdict rests on {test} alone.",
                   {"source": check.source}, summary=False)]


def decide_many(pvalue: float, *, alpha: float, gaps=(), kind: str = "several values", omnibus=None,
                published=(), reference=None) -> Verdict:
    """The verdict of a many-values analysis: the omnibus p at ``alpha``; ``gaps`` (``PairGap``) name the values
    whose corrected gap against the reference is at most alpha.

    ``omnibus`` (an ``OmnibusResult``): a Monte Carlo p that is ``undecided`` (its binomial interval still
    held alpha when the resamples' budget ran out) makes the conclusion ``"undecided"``, never one that
    another seed could reverse. ``published`` (Friedman's test, Cochran's Q) are named in a caveat that
    says which test the verdict rests on and why.

    >>> from types import SimpleNamespace as NS
    >>> v = decide_many(0.01, alpha=0.05, gaps=[NS(a="B", p_adjusted=0.02), NS(a="C", p_adjusted=0.4)])
    >>> v.conclusion, v.statement, v.found
    ('detected', 'the values differ by more than chance', ('B',))
    >>> decide_many(0.05, alpha=0.05).detected   # p <= alpha, the rule of every analysis
    True
    >>> mc = NS(undecided=True, pvalue_interval=(0.0481, 0.0529), n_resamples=320_000, exact=False)
    >>> decide_many(0.0505, alpha=0.05, omnibus=mc).conclusion
    'undecided'
    """
    undecided = bool(getattr(omnibus, "undecided", False))
    detected = pvalue <= alpha and not undecided
    conclusion = "undecided" if undecided else ("detected" if detected else "not_detected")
    check = no_noise_check(kind)
    found = tuple(g.a for g in gaps if g.p_adjusted is not None and g.p_adjusted <= alpha)
    caveats = list(_common_caveats(check, OMNIBUS_TEST))
    if undecided:
        low, high = omnibus.pvalue_interval
        caveats.append(Caveat(
            "omnibus_undecided",
            f"The omnibus p is Monte Carlo and undecided at this precision: after {omnibus.n_resamples:,} "
            f"resamples its 99.9% binomial interval [{low:.4g}, {high:.4g}] still holds alpha = {alpha:g}, "
            f"so another seed could read it either way; neither 'differ' nor 'no difference' is concluded.",
            {"n_resamples": int(omnibus.n_resamples), "interval": [float(low), float(high)], "alpha": alpha}))
    named = [t for t in published if getattr(t, "pvalue", None) is not None]
    if named:
        shown = "; ".join(f"{_PUBLISHED_NAMES.get(t.name, t.name)} p = {t.pvalue:.2g}" for t in named)
        how = ("exact" if omnibus is None or getattr(omnibus, "exact", True) else "Monte Carlo, its error stated")
        caveats.append(Caveat(
            "omnibus_basis",
            f"The verdict rests on the omnibus permutation test ({how}): it uses the item means themselves "
            f"and assumes nothing about their distribution; beside it, the same hypothesis tested on the "
            f"ranks within items, with a large-sample approximation: {shown}.",
            {"rests_on": "omnibus permutation", "exact": how == "exact",
             "beside": {t.name: float(t.pvalue) for t in named}}, summary=False))
    if reference is not None and reference.suspect:   # the reference, not the values, may be what differs
        caveats.insert(0, Caveat("reference_not_neutral", reference.statement, reference.to_dict(), summary=False))
    return Verdict(detected=detected, conclusion=conclusion, statement=MANY_STATEMENTS[conclusion], alpha=alpha,
                   pvalue=pvalue, noise=check, caveats=tuple(caveats), test=OMNIBUS_TEST, found=found,
                   reference_check=reference)


_PUBLISHED_NAMES = {"friedman": "Friedman's test", "cochran": "Cochran's Q"}


def decide_effects(effects, *, alpha: float, test: str = EFFECTS_TEST, what: str = "an effect",
                   kind: str = "two factors", noise: NoiseCheck | None = None, untested: str | None = None) -> Verdict:
    """The verdict of a family of corrected tests (the effects of a factor design, the metrics × groups of
    several metrics): the members whose corrected p is at most ``alpha``.

    ``effects`` are ``(name, corrected p)`` pairs, p None for a member no test could be run on; the verdict's
    ``pvalue`` is the smallest corrected p. When no member was tested the conclusion is ``"untested"``, its
    ``pvalue`` None, and its statement says why (``untested``, in words; else that every test was undefined):
    a test on nothing is never read as "not detected".

    >>> v = decide_effects([("style", 0.01), ("name", 0.3), ("interaction", 0.04)], alpha=0.05)
    >>> v.statement, v.found
    ('an effect larger than chance after correction: style, interaction', ('style', 'interaction'))
    >>> decide_effects([("style", 0.2)], alpha=0.05).conclusion
    'not_detected'
    >>> v = decide_effects([("style", None), ("name", None)], alpha=0.05)
    >>> v.conclusion, v.detected, v.pvalue, v.statement
    ('untested', False, None, 'nothing was tested: no effect could be tested (every test was undefined)')
    """
    effects = [(str(n), p) for n, p in effects]
    found = tuple(n for n, p in effects if p is not None and p <= alpha)
    ps = [p for _, p in effects if p is not None]
    noun = what.split(" ", 1)[-1]
    if not ps:
        conclusion = "untested"
        statement = f"nothing was tested: {untested or f'no {noun} could be tested (every test was undefined)'}"
    elif found:
        conclusion, statement = "detected", f"{what} larger than chance after correction: {', '.join(found)}"
    else:
        conclusion = "not_detected"
        statement = (f"no {noun} larger than chance detected after correction (this does not show that there is "
                     "none)")
    check = noise or no_noise_check(kind)
    return Verdict(detected=bool(found), conclusion=conclusion, statement=statement, alpha=alpha,
                   pvalue=min(ps) if ps else None, noise=check, caveats=tuple(_common_caveats(check, test)),
                   test=test, found=found)


@dataclass(frozen=True)
class ChangeVerdict:
    """What a before/after comparison concludes at ``alpha``, computed once.

    Attributes
    ----------
    alpha : float
    changed : bool
        The exact sign-flip p of the per-item changes in gap is at most ``alpha``.
    change_p : float
    after : Verdict
        The after run's own verdict (its gap against its noise).
    after_detected : bool
        The after run detected a gap at ``alpha`` (``after.detected``).
    """

    alpha: float
    changed: bool
    change_p: float
    after: Verdict
    after_detected: bool

    def to_dict(self) -> dict:
        return {"alpha": self.alpha, "changed": self.changed, "change_p": self.change_p,
                "after_detected": self.after_detected, "after": self.after.to_dict()}


def decide_change(change_test, after_verdict: Verdict, *, alpha: float) -> ChangeVerdict:
    """The verdict of a mitigation re-run: did the gap change, and does the after run still detect one.

    >>> from types import SimpleNamespace as NS
    >>> after = decide(NS(sign_flip=NS(pvalue=0.2), average_gap=0.1, min_attainable_p=0.01),
    ...                NoiseCheck("none", "none", False, reason="none was given"), alpha=0.05)
    >>> v = decide_change(NS(pvalue=0.05), after, alpha=0.05)
    >>> v.changed, v.after_detected   # p <= alpha, the rule of every analysis
    (True, False)
    """
    return ChangeVerdict(alpha=alpha, changed=bool(change_test.pvalue <= alpha), change_p=change_test.pvalue,
                         after=after_verdict, after_detected=bool(after_verdict.detected))
