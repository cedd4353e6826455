"""Effect sizes and the published tests of a paired comparison, in words (terminal and report).

Reads a :class:`~probestats.analyses.paired.PairResult` only; the numbers come from
:mod:`probestats.stats.effects` and :mod:`probestats.stats.published`. Every figure carries
its name and formula, every test its assumption; the exact sign-flip test stays the headline.
"""

from __future__ import annotations

from probestats.present.words.fmt import fmt_interval, fmt_num, fmt_p
from probestats.stats.effects import FORMULAS

__all__ = ["effect_text", "effect_lines", "published_label", "published_text", "effects_context", "BESIDE", "BESIDE_PERMUTATION", "beside", "METHODS_WHERE"]

#: What the published tests are, beside the exact ones.
BESIDE = "beside the exact tests (the sign-flip test stays the headline)"
#: the same, where unequal arms make the within-item permutation the headline
BESIDE_PERMUTATION = "beside the exact tests (the within-item permutation of the value labels stays the headline)"


def beside(result) -> str:
    """Which exact test the published tests stand beside."""
    return BESIDE_PERMUTATION if getattr(result, "permutation", None) is not None else BESIDE


def effect_text(e) -> str:
    """``d_z = +0.81 [0.3, 1.3]``, or the reason it is undefined.

    >>> from probestats.stats.effects import EffectSize
    >>> effect_text(EffectSize("d_z", 0.81234, 0.3, 1.31, 0.95, "f", "m"))
    'd_z = +0.8123 [0.3, 1.31]'
    """
    if e is None or e.value is None:
        return f"{getattr(e, 'name', 'effect')} undefined"
    ends = f" [{fmt_num(e.low)}, {fmt_num(e.high)}]" if e.low is not None and e.high is not None else ""
    return f"{e.name} = {e.value:+.4g}{ends}"


def published_label(t) -> str:
    """A published test's name for people.

    >>> from probestats.stats.published import PublishedTest
    >>> published_label(PublishedTest("wilcoxon", 2.0, 0.02, None, 8, "m", "a"))
    'Wilcoxon signed-rank'
    """
    return {"paired t": "paired t", "wilcoxon": "Wilcoxon signed-rank", "welch": "Welch's t",
            "friedman": "Friedman", "cochran": "Cochran's Q"}.get(t.name, t.name)


def published_text(t, alpha: float | None = None) -> str:
    """One published test in a line: statistic, df, p, or why it is undefined."""
    label = published_label(t)
    if t.pvalue is None:
        return f"{label}: undefined ({t.note})"
    df = f", df = {t.df:.4g}" if t.df is not None else ""
    return f"{label}: statistic = {t.statistic:.4g}{df}, p = {fmt_p(t.pvalue, alpha)}"


def effect_lines(result, alpha: float | None = None) -> list[str]:
    """The terminal lines of a pair's effect sizes and published tests (empty when it has none)."""
    effects = getattr(result, "effects", None)
    lines = []
    if effects is not None:
        conf = f"{effects.d_z.confidence:.0%}"
        lines.append(f"effect sizes ({conf} intervals): SD of the item gaps = {fmt_num(effects.sd_gaps)}; "
                     f"{effect_text(effects.d_z)} ({effects.d_z.formula}; {effects.d_z.interval_method}); "
                     f"{effect_text(effects.d_av)} ({effects.d_av.formula}; {effects.d_av.interval_method})")
    published = getattr(result, "published", ())
    if published:
        lines.append(f"published tests, {beside(result)}: "
                     + "; ".join(f"{published_text(t, alpha)} ({t.method}; assumes {t.assumption})"
                                 for t in published))
    return lines


#: each effect size and published test as a plain report names it: what it measures or assumes, never its symbol
#: (the symbol, formula and method are in the report's method details)
EFFECT_WORDS = {"d_z": "The average gap against the spread of the item gaps",
                "d_av": "The gap between the two values' averages against their spread across items"}
PUBLISHED_WORDS = {"paired t": "A test that assumes the item gaps are roughly normal",
                   "wilcoxon": "A test of the ranks of the item gaps, which assumes them roughly symmetric",
                   "welch": "A test of the runs that assumes them roughly normal",
                   "friedman": "A test of the ranks of the values within each item",
                   "cochran": "A test of yes/no outcomes within each item"}


def plain_effect(e) -> str:
    """An effect size as a plain report words it.

    >>> from probestats.stats.effects import EffectSize
    >>> plain_effect(EffectSize("d_z", 0.81234, 0.3, 1.31, 0.95, "f", "m"))
    'The average gap against the spread of the item gaps: +0.8123 (plausibly from 0.3 to 1.31)'
    """
    words = EFFECT_WORDS.get(getattr(e, "name", None), "The effect size")
    if e is None or e.value is None:
        return f"{words}: undefined"
    ends = (f" (plausibly from {fmt_num(e.low)} to {fmt_num(e.high)})" if e.low is not None and e.high is not None
            else "")
    return f"{words}: {e.value:+.4g}{ends}"


def plain_published(t, alpha: float | None = None) -> str:
    """A published test as a plain report words it: what it assumes and its p (its statistic in the details)."""
    words = PUBLISHED_WORDS.get(t.name, published_label(t))
    if t.pvalue is None:
        return f"{words}: undefined ({t.note})"
    return f"{words}: p = {fmt_p(t.pvalue, alpha)}"


def effects_context(result, alpha: float | None = None) -> dict | None:
    """Plain data for the report's tests section: effect sizes with formulas, published tests (``plain``: each
    worded for a plain report)."""
    effects = getattr(result, "effects", None)
    if effects is None:
        return None
    rows = [{"name": e.name, "value": e.value, "low": e.low, "high": e.high, "formula": e.formula,
             "method": e.interval_method, "text": effect_text(e), "plain": plain_effect(e)}
            for e in (effects.d_z, effects.d_av)]
    tests = [{"name": t.name, "text": published_text(t, alpha), "method": t.method, "assumption": t.assumption,
              "plain": plain_published(t, alpha)}
             for t in getattr(result, "published", ())]

    return {"sd_gaps": effects.sd_gaps, "sd_formula": FORMULAS["sd_gaps"], "effects": rows, "published": tests,
            "confidence": f"{effects.d_z.confidence:.0%}", "beside": beside(result)}


def row_tests_lines(analysis, limit: int = 40) -> list[str]:
    """Welch's t per item or per group (``--per-item``, ``--row-level --by``), one line each, with
    the correction named; beyond ``limit`` lines, the smallest corrected p first and a count of the rest."""
    lines = []
    for tests in getattr(analysis, "row_tests", ()):
        lines.append(f"Welch's t per {tests.unit} on its runs ({len(tests.tests)} tests, p corrected across them: "
                     f"{tests.correction}); {tests.note}:")
        shown = list(tests.tests)
        if len(shown) > limit:
            shown = sorted(shown, key=lambda t: (t.p_adjusted is None, t.p_adjusted or 1.0))[:limit]
        for t in shown:
            key = ", ".join(f"{k} = {v}" for k, v in t.key.items())
            diff = getattr(t, "intervals", None)
            lines.append(f"  {key}: {published_text(t.test, analysis.alpha)}"
                         + (f", corrected p = {fmt_p(t.p_adjusted, analysis.alpha)}" if t.p_adjusted is not None
                            else "")
                         + (f"; gap {t.mean_a - t.mean_b:+.4g} {fmt_interval(diff[2])}"
                            if diff is not None and t.mean_a is not None and t.mean_b is not None else ""))
        if len(tests.tests) > limit:
            lines.append(f"  ... and {len(tests.tests) - limit} more with larger corrected p (all in --json)")
    return lines


#: Where the terminal's short methods are given in full (said once, under the tests of the main comparison)
METHODS_WHERE = ("each figure's method and what it assumes, in full: --json and the report "
                 "(probestats report LOG -o report.md)")
