"""One rule for "detected" in every analysis: p <= alpha (a p exactly equal to alpha is detected).

With 7 items whose gaps are all positive, the exact two-sided sign-flip p is the share of
the 2**7 = 128 sign patterns at least as extreme: all plus and all minus, 2/128 = 1/64
(written out by hand; 1/64 is exact in binary floating point). At alpha = 1/64 every
analysis must call that detected.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from probestats.analyses.plan import Sizing
from probestats.vocabulary import Tests
from probestats import analyze_factors
from probestats.analyses.framing import _pattern
from probestats import analyze_many
from tests.engines import analyze_pair as analyze
from probestats.analyses.plan import power_sign_flip
from probestats.stats.decide import decide_rejections
from tests.factories import make_log

ALPHA = 1 / 64


def _all_positive_log(values=("formal", "casual")):
    # gap 100 with sd 0.1: every item gap is positive, so the exact p is 1/64
    return make_log(items=7, runs=2, gap=100.0, sd=0.1, seed=3, values=values)


def test_paired_analysis_detects_p_equal_to_alpha():
    result = analyze(_all_positive_log(), metric="steps", a="formal", b="casual", alpha=ALPHA, mdg=False)
    assert result.main.sign_flip.pvalue == ALPHA
    assert result.detected


def test_many_values_detects_p_equal_to_alpha():
    # two values: the within-item permutations are the 2**7 swaps, and the observed arrangement
    # and its mirror are the two most extreme, so the exact omnibus p is again 2/128
    result = analyze_many(_all_positive_log(), metric="steps", alpha=ALPHA)
    assert result.main.omnibus.pvalue == ALPHA
    assert result.detected


def test_factors_call_p_equal_to_alpha_detected():
    rows = [{"item": str(i), "style": s, "name": n, "seed": r, "steps": 10.0 * (s == "formal") + i + 0.01 * r}
            for i in range(7) for r in range(2) for s in ("formal", "casual") for n in ("Emily", "Greg")]
    result = analyze_factors(pl.DataFrame(rows), metric="steps", factors=["style", "name"], alpha=ALPHA)
    style = result.effect("style")
    assert style.sign_flip.pvalue == ALPHA
    # alpha set to the corrected p itself: a p equal to alpha is detected, one above it is not
    at = analyze_factors(pl.DataFrame(rows), metric="steps", factors=["style", "name"], alpha=style.p_adjusted)
    assert at.effect("style").detected is True
    assert at.to_dict()["effects"][2]["detected"] is True
    assert at.effect("interaction").detected is False


def test_framing_pattern_detects_p_equal_to_alpha():
    assert _pattern(ALPHA, ALPHA, -0.5, ALPHA) == "protective"
    assert _pattern(ALPHA, ALPHA, 0.5, ALPHA) == "assertive"
    assert _pattern(ALPHA, 0.5, 0.5, ALPHA) == "symmetric"
    assert _pattern(np.nextafter(ALPHA, 1), ALPHA, 0.5, ALPHA) == "none"


def test_plan_counts_p_equal_to_alpha_as_a_rejection():
    gaps = np.array([[1.0] * 7, [1.0] * 6 + [-1.0]])
    assert decide_rejections(gaps, ALPHA, "two-sided").tolist() == [True, False]
    # every simulated probe of 7 items with a huge gap has p = 1/64: power 1 at alpha 1/64
    r = power_sign_flip(gap=100.0, items=7, runs=2, noise=0.1, tests=Tests(alpha=ALPHA), sizing=Sizing(sims=200))
    assert r.power == 1.0
