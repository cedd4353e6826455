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

__all__ = ["NoiseCheck", "Verdict", "decide", "NOISE_SOURCES"]

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

    def to_dict(self) -> dict:
        return {"detected": self.detected, "conclusion": self.conclusion, "statement": self.statement,
                "alpha": self.alpha, "p": self.pvalue, "beyond_noise": self.beyond_noise,
                "never_significant": self.never_significant, "pooled": self.pooled, "blocks": list(self.blocks),
                "noise": self.noise.to_dict(), "caveats": list(self.caveats),
                "attribute_settings": list(self.attribute_settings)}


STATEMENTS = {
    "detected": "a gap larger than chance",
    "within_noise": ("a gap larger than chance, but no larger than the same-versus-same gap, so it cannot be "
                     "told from noise"),
    "not_detected": "no gap larger than chance detected (this does not show that there is none)",
}


def decide(main, noise_check: NoiseCheck, *, alpha: float, pooled: str | None = None,
           blocks: tuple[str, ...] = (), attribute_settings: tuple[str, ...] = ()) -> Verdict:
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
    if pooled:
        caveats.append(f"The item gaps are {pooled}: each is matched within one "
                       f"{' x '.join(blocks)} value, so differences between them are not counted as noise.")
    return Verdict(detected=detected, conclusion=conclusion, statement=STATEMENTS[conclusion], alpha=alpha,
                   pvalue=p, noise=noise_check, beyond_noise=beyond,
                   never_significant=main.min_attainable_p > alpha, pooled=pooled, blocks=tuple(blocks),
                   caveats=tuple(caveats), attribute_settings=tuple(attribute_settings))
