"""The words of a verdict: every renderer (terminal, Markdown, HTML, JSON sentences) takes them from here.

The verdict itself is decided once, in the analysis (:mod:`probestats.analyses.verdict`); this
module only words it. No printer or template decides a conclusion of its own.
"""

from __future__ import annotations

from probestats.analyses.verdict import NoiseCheck, decide

__all__ = ["verdict_of", "verdict_line", "noise_check_sentences", "summary_clause", "caveat_sentences",
           "untested_sentence"]


def verdict_of(analysis):
    """The analysis's verdict (decided when the analysis ran; decided here from its parts only for a
    result built by hand without one)."""
    verdict = getattr(analysis, "verdict", None)
    if verdict is not None:
        return verdict

    noise = analysis.noise
    if noise is None:
        check = NoiseCheck("none", "no same-versus-same comparison", False, reason="none was given")
    elif noise.sign_flip is None:   # the log's own halves over every split: a size, never a failed check
        check = NoiseCheck("within", "the log's own halves", True, average_gap=noise.average_gap)
    else:
        check = NoiseCheck("log", "the same-versus-same comparison", True,
                           failed=noise.sign_flip.pvalue <= analysis.alpha, average_gap=noise.average_gap,
                           pvalue=noise.sign_flip.pvalue)
    return decide(analysis.main, check, alpha=analysis.alpha)


def verdict_line(verdict) -> str:
    """``At alpha 0.05: a gap larger than chance.`` (the line Tests and the terminal end with).

    >>> from types import SimpleNamespace as NS
    >>> verdict_line(NS(alpha=0.05, statement="a gap larger than chance", pooled=None))
    'At alpha 0.05: a gap larger than chance.'
    """
    pooled = f" ({verdict.pooled})" if verdict.pooled else ""
    return f"At alpha {verdict.alpha:g}: {verdict.statement}{pooled}."


def noise_check_sentences(verdict) -> list[str]:
    """What a reader must be told about the noise check: that it failed and why, or that there is none."""
    check = verdict.noise
    if check.failed:
        return [c.sentence for c in verdict.caveats if c.id == "noise_check_failed"]
    if not check.valid:
        test = getattr(verdict, "test", None)
        test = "the exact test" if test in (None, "the exact sign-flip test on the item gaps") else test
        return [f"No valid same-versus-same check: {check.reason}; the verdict rests on {test} alone."]
    return []


def untested_sentence(verdict) -> str | None:
    """The one sentence of a verdict on which nothing was tested (None for any other), as a Summary and a
    Finding print it.

    >>> from probestats.analyses.verdict import decide_effects
    >>> untested_sentence(decide_effects([("style", None)], alpha=0.05))
    'Nothing was tested: no effect could be tested (every test was undefined).'
    >>> untested_sentence(decide_effects([("style", 0.2)], alpha=0.05)) is None
    True
    """
    if verdict.conclusion != "untested":
        return None
    return f"{verdict.statement[:1].upper()}{verdict.statement[1:]}."


def summary_clause(verdict) -> str:
    """The clause the Summary adds to a detected gap about the noise (empty when there is nothing to add)."""
    if verdict.conclusion == "within_noise":
        return ", but a same-versus-same comparison gave a gap as large, so it cannot be told from noise."
    if verdict.noise.failed:
        return (", with a caveat: the noise check failed (runs compared as the same differ by more than "
                "chance), so the run-to-run noise of this log is in doubt")
    return ""


def caveat_sentences(verdict) -> list[str]:
    """The verdict's named caveats as the Summary and the terminal print them, one sentence each
    (those a dedicated passage prints already, such as the noise check's, are left to it).

    >>> from probestats.checks.design_facts import Caveat
    >>> from types import SimpleNamespace as NS
    >>> caveat_sentences(NS(caveats=(Caveat("constant_arm", "Value 'b' is 0 in every run."),
    ...                              Caveat("no_noise_check", "No check.", summary=False))))
    ["Caveat: Value 'b' is 0 in every run."]
    """
    return [f"Caveat: {c.sentence}" for c in getattr(verdict, "caveats", ()) if getattr(c, "summary", False)]
