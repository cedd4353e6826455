"""The verdict of a paired analysis, decided once: every renderer words this object.

:func:`decide` reads the exact test, the noise comparison and the blocks, and returns a
:class:`Verdict`. Its ``conclusion`` is one of

- ``"detected"``: the exact sign-flip p is at most alpha, and no valid same-versus-same
  comparison gave a gap at least as large in size;
- ``"within_noise"``: p at most alpha, but a valid same-versus-same comparison gave a gap at
  least as large: a gap no larger than the noise means nothing;
- ``"not_detected"``: p above alpha.

A same-versus-same comparison whose own exact p is at most alpha is a **failed check**, not
evidence that the probe is noise: the verdict then rests on the probe's exact test, with the
failure and its likely causes among the caveats.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["NoiseCheck", "Verdict", "decide", "decide_many", "decide_effects", "no_noise_check", "ChangeVerdict", "decide_change",
           "NOISE_SOURCES"]

#: where the noise reference comes from
NOISE_SOURCES = ("log", "within", "value", "none")


@dataclass(frozen=True)
class NoiseCheck:
    """The same-versus-same comparison beside a probe, and whether it can be read as its noise.

    Attributes
    ----------
    source : {"log", "within", "value", "none"}
        A noise log (``--noise LOG``), the log's own runs split at random (``--noise within``), the
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
        as the same differ.
    causes : tuple of str
        The likely causes of a failed check that the log shows (empty when it passed).
    average_gap, pvalue : float or None
        The comparison's average gap and exact sign-flip p (None without one).
    seed : int or None
        The seed of a random split (None for a noise log).
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
    conclusion : {"detected", "within_noise", "not_detected"}
    statement : str
        The conclusion in plain words (no numbers), as every renderer prints it after "at alpha ...:".
    alpha, pvalue : float
        The level and the exact test's p.
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
    caveats : tuple of str
        Plain sentences a reader must see beside the conclusion.
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
    caveats: tuple[str, ...] = field(default_factory=tuple)
    attribute_settings: tuple[str, ...] = ()
    test: str = "the exact sign-flip test on the item gaps"
    found: tuple[str, ...] = ()
    control: object | None = None
    agreement: object | None = None
    reference_check: object | None = None
    blanks: object | None = None

    def to_dict(self) -> dict:
        return {"detected": self.detected, "conclusion": self.conclusion, "statement": self.statement,
                "alpha": self.alpha, "p": self.pvalue, "beyond_noise": self.beyond_noise,
                "never_significant": self.never_significant, "pooled": self.pooled, "blocks": list(self.blocks),
                "noise": self.noise.to_dict(), "caveats": list(self.caveats),
                "attribute_settings": list(self.attribute_settings), "test": self.test, "found": list(self.found),
                "control": None if self.control is None else self.control.to_dict(),
                "blocks_agree": None if self.agreement is None else self.agreement.to_dict(),
                "reference_check": None if self.reference_check is None else self.reference_check.to_dict(),
                "blanks": None if self.blanks is None else self.blanks.to_dict()}


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
    >>> v.conclusion, v.caveats[0][:24]
    ('detected', 'The noise check failed: ')
    >>> decide(main, NoiseCheck("log", "noise log", True, average_gap=1.0, pvalue=0.3), alpha=0.05).conclusion
    'within_noise'
    """
    p = main.sign_flip.pvalue
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
        caveats.append(f"The noise check failed: {noise_check.description} differ by more than chance "
                       f"(runs compared as the same differ){why}. It is not read as the probe's noise; the "
                       "verdict rests on the probe's own exact test, to be read with that caveat.")
    elif not noise_check.valid:
        caveats.append(f"No same-versus-same check: {noise_check.reason}; the verdict rests on the exact test alone.")
    if pooled and blocks:
        caveats.append(f"The item gaps are {pooled}: each is matched within one "
                       f"{' x '.join(blocks)} value, so differences between them are not counted as noise.")
    if agreement is not None and agreement.disagree:   # the headline names it: the pooled phrase is its sentence
        pooled = agreement.phrase
        caveats.insert(0, agreement.statement)
    if blanks is not None and blanks.differ:   # the gap depends on how the blanks are read: both readings
        caveats.insert(0, blanks.statement)
    return Verdict(detected=detected, conclusion=conclusion, statement=STATEMENTS[conclusion], alpha=alpha,
                   pvalue=p, noise=noise_check, beyond_noise=beyond,
                   never_significant=main.min_attainable_p > alpha, pooled=pooled, blocks=tuple(blocks),
                   caveats=tuple(caveats), attribute_settings=tuple(attribute_settings), agreement=agreement,
                   blanks=blanks)


MANY_STATEMENTS = {
    "detected": "the values differ by more than chance",
    "not_detected": ("no difference between the values larger than chance detected (this does not show that "
                     "there is none)"),
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
    from probestats.errors import either

    fix = either("give a and b to compare one pair with its noise log",
                 "give --a and --b to compare one pair with its noise log")
    return NoiseCheck("none", "no same-versus-same comparison", False,
                      reason=reason or f"a comparison of {kind} has no same-versus-same comparison here ({fix})")


def _common_caveats(check: NoiseCheck, test: str) -> list[str]:
    return [f"No same-versus-same check: {check.reason}; the verdict rests on {test} alone."]


def decide_many(pvalue: float, *, alpha: float, gaps=(), kind: str = "several values", reference=None) -> Verdict:
    """The verdict of a many-values analysis: the omnibus p at ``alpha``; ``gaps`` (``PairGap``) name the values
    whose corrected gap against the reference is at most alpha.

    >>> from types import SimpleNamespace as NS
    >>> v = decide_many(0.01, alpha=0.05, gaps=[NS(a="B", p_adjusted=0.02), NS(a="C", p_adjusted=0.4)])
    >>> v.conclusion, v.statement, v.found
    ('detected', 'the values differ by more than chance', ('B',))
    >>> decide_many(0.05, alpha=0.05).detected   # p <= alpha, the rule of every analysis
    True
    """
    detected = pvalue <= alpha
    conclusion = "detected" if detected else "not_detected"
    check = no_noise_check(kind)
    found = tuple(g.a for g in gaps if g.p_adjusted is not None and g.p_adjusted <= alpha)
    caveats = _common_caveats(check, OMNIBUS_TEST)
    if reference is not None and reference.suspect:   # the reference, not the values, may be what differs
        caveats.insert(0, reference.statement)
    return Verdict(detected=detected, conclusion=conclusion, statement=MANY_STATEMENTS[conclusion], alpha=alpha,
                   pvalue=pvalue, noise=check, caveats=tuple(caveats), test=OMNIBUS_TEST, found=found,
                   reference_check=reference)


def decide_effects(effects, *, alpha: float, test: str = EFFECTS_TEST, what: str = "an effect",
                   kind: str = "two factors", noise: NoiseCheck | None = None) -> Verdict:
    """The verdict of a family of corrected tests (the effects of a factor design, the metrics × groups of
    several metrics): the members whose corrected p is at most ``alpha``.

    ``effects`` are ``(name, corrected p)`` pairs; the verdict's ``pvalue`` is the smallest corrected p.

    >>> v = decide_effects([("style", 0.01), ("name", 0.3), ("interaction", 0.04)], alpha=0.05)
    >>> v.statement, v.found
    ('an effect larger than chance after correction: style, interaction', ('style', 'interaction'))
    >>> decide_effects([("style", 0.2)], alpha=0.05).conclusion
    'not_detected'
    """
    effects = [(str(n), p) for n, p in effects]
    found = tuple(n for n, p in effects if p is not None and p <= alpha)
    ps = [p for _, p in effects if p is not None]
    conclusion = "detected" if found else "not_detected"
    statement = (f"{what} larger than chance after correction: {', '.join(found)}" if found else
                 f"no {what.split(' ', 1)[-1]} larger than chance detected after correction (this does not show "
                 "that there is none)")
    check = noise or no_noise_check(kind)
    return Verdict(detected=bool(found), conclusion=conclusion, statement=statement, alpha=alpha,
                   pvalue=min(ps) if ps else 1.0, noise=check, caveats=tuple(_common_caveats(check, test)),
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
