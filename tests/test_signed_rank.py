"""The Wilcoxon signed-rank test without scipy.stats (probestats.stats.signed_rank).

References: scipy.stats.wilcoxon at its defaults (statistic and p compared with ``==``), sign
patterns counted by brute force with itertools.product over hand-written ranks, the normal
approximation written out with math.erfc, and a fresh interpreter's sys.modules.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from scipy import stats

from probestats.errors import OptionError
from probestats.stats.published import wilcoxon_signed_rank
from probestats.stats.signed_rank import _null_pmf, signed_rank

ALTERNATIVES = ["two-sided", "greater", "less"]
ROOT = Path(__file__).resolve().parents[1]


def _scipy(gaps, alternative):
    with warnings.catch_warnings():   # scipy warns about ties, zeros and small samples
        warnings.simplefilter("ignore")
        res = stats.wilcoxon(np.asarray(gaps, float), alternative=alternative)
    return float(res.statistic), float(res.pvalue)


def _brute(gaps, ranks, alternative):
    """p over every sign pattern of every gap (zeros included), by itertools.product, as Fractions.

    ``ranks`` are written out by hand for the non-zero gaps, in order.
    """
    nonzero = [g for g in gaps if g != 0]
    observed = sum(Fraction(r) for g, r in zip(nonzero, ranks) if g > 0)
    sums = []
    for signs in itertools.product((1, -1), repeat=len(gaps)):
        flipped = [s * g for s, g in zip(signs, gaps) if g != 0]
        sums.append(sum(Fraction(r) for g, r in zip(flipped, ranks) if g > 0))
    less = Fraction(sum(s <= observed for s in sums), len(sums))
    greater = Fraction(sum(s >= observed for s in sums), len(sums))
    return {"less": less, "greater": greater, "two-sided": min(1, 2 * min(less, greater))}[alternative]


# --------------------------------------------------------------------------- by hand


def test_five_positive_gaps_by_hand():
    # ranks 1..5 all positive: r_plus = 15, r_minus = 0. Of the 2^5 = 32 sign patterns exactly one has
    # rank sum 15 (all positive) and one has 0 (all negative): greater p = 1/32, two-sided p = 2/32.
    assert signed_rank([1, 2, 3, 4, 5]) == (0.0, 2 / 32, "exact null distribution")
    assert signed_rank([1, 2, 3, 4, 5], "greater")[:2] == (15.0, 1 / 32)
    assert signed_rank([1, 2, 3, 4, 5], "less")[:2] == (15.0, 1.0)
    assert signed_rank([-1, 2, 3, 4, 5], "greater")[:2] == (14.0, 2 / 32)   # sums 15 and 14 ({2,3,4,5})


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_ties_and_a_zero_count_every_sign_pattern(alternative):
    gaps = [0.0, 1.0, -1.0, 2.0, 2.0, -3.0, 4.0]
    # |non-zero gaps| 1, 1, 2, 2, 3, 4 -> average ranks 1.5, 1.5, 3.5, 3.5, 5, 6 (ties share the mean)
    ranks = ["3/2", "3/2", "7/2", "7/2", "5", "6"]
    r_plus, r_minus = 1.5 + 3.5 + 3.5 + 6, 1.5 + 5
    statistic, p, how = signed_rank(gaps, alternative)
    assert statistic == (min(r_plus, r_minus) if alternative == "two-sided" else r_plus)
    assert p == float(_brute(gaps, ranks, alternative))      # 2^7 = 128 patterns, counted one by one
    assert (statistic, p) == _scipy(gaps, alternative)
    assert how == "exact: all 64 sign patterns of the 6 non-zero gaps (ties or zero gaps)"


def test_a_tie_without_zeros_is_exact_too():
    gaps = [2.0, 2.0, -1.0, 3.0]                  # ranks 2.5, 2.5, 1, 4: r_plus = 9
    p = signed_rank(gaps, "greater")[1]
    assert p == float(_brute(gaps, ["5/2", "5/2", "1", "4"], "greater")) == 2 / 16   # sums 9 and 10
    assert p == _scipy(gaps, "greater")[1]


def test_normal_approximation_by_hand():
    gaps = list(range(1, 15)) + [0]               # 15 gaps with a zero: past 13, so scipy approximates
    # m = 14 non-zero, r_plus = 105, mean 14·15/4 = 52.5, variance 14·15·29/24 = 253.75 (no ties)
    z = (105 - 52.5) / math.sqrt(253.75)
    statistic, p, how = signed_rank(gaps, "greater")
    assert statistic == 105.0
    assert p == pytest.approx(0.5 * math.erfc(z / math.sqrt(2)), rel=1e-14)
    assert (statistic, p) == _scipy(gaps, "greater")
    assert how == "normal approximation, tie-corrected (ties or zero gaps and more than 13 gaps)"


def test_tie_correction_by_hand():
    gaps = [1.0] * 14                             # one tie group of 14: ranks all 7.5, r_plus = 105
    # variance (14·15·29 - (14³ - 14)/2) / 24 = (6090 - 1365) / 24
    z = (105 - 52.5) / math.sqrt((6090 - 1365) / 24)
    p = signed_rank(gaps)[1]
    assert p == pytest.approx(math.erfc(z / math.sqrt(2)), rel=1e-14)
    assert p == _scipy(gaps, "two-sided")[1]


def test_more_than_fifty_gaps_is_approximated_even_without_ties():
    gaps = np.arange(1.0, 52.0)
    assert signed_rank(gaps)[2] == "normal approximation, tie-corrected (more than 50 gaps)"
    assert signed_rank(gaps[:50])[2] == "exact null distribution"
    assert signed_rank(gaps)[:2] == _scipy(gaps, "two-sided")


@pytest.mark.parametrize("n", range(0, 11))
def test_null_distribution_is_the_subset_sums(n):
    # brute force: r_plus over every subset of the ranks 1..n, each subset with probability 2^-n
    counts = np.zeros(n * (n + 1) // 2 + 1)
    for positive in itertools.product((0, 1), repeat=n):
        counts[sum(r for r, b in zip(range(1, n + 1), positive) if b)] += 1
    assert np.array_equal(_null_pmf(n), counts / 2 ** n)


def test_bad_gaps_are_refused():
    with pytest.raises(OptionError, match="every gap is zero"):
        signed_rank([0.0, -0.0])
    with pytest.raises(OptionError, match="drop items whose gap is missing or infinite"):
        signed_rank([1.0, math.nan])
    with pytest.raises(OptionError, match="expected one of two-sided, greater, less"):
        signed_rank([1.0], alternative="up")
    gaps = [1.0, 0.0, 2.0]
    signed_rank(gaps)
    assert gaps == [1.0, 0.0, 2.0]


# --------------------------------------------------------------------------- scipy.stats.wilcoxon


_SIZES = {"min_size": 1, "max_size": 60}
GAPS = st.one_of(
    st.lists(st.integers(-3, 3), **_SIZES),                           # many ties and zeros
    st.lists(st.integers(-10**6, 10**6), unique=True, **_SIZES),      # mostly untied
    st.lists(st.integers(-40, 40).map(lambda k: k / 10), **_SIZES),   # tenths: ties, float ranks of |x|
    st.lists(st.floats(-1e6, 1e6, allow_nan=False), **_SIZES),
    st.lists(st.sampled_from([0.0, 0.1, -0.1, 0.3, 2.5, -7.0]), **_SIZES),
    st.lists(st.floats(0, 5, allow_nan=False), min_size=1, max_size=14),   # all positive, near the 13 edge
)


def _resolved(gaps) -> bool:
    """No two distinct |gaps| (nor a gap and zero) closer than the sign-flip test's tie tolerance, 1e-9 of the largest."""
    a = sorted({abs(g) for g in gaps} | {0.0})
    return all(y - x > 1e-9 * a[-1] for x, y in zip(a, a[1:]))


@settings(max_examples=200, deadline=None)
@given(GAPS, st.sampled_from(ALTERNATIVES))
def test_equals_scipy_wilcoxon_bit_for_bit(gaps, alternative):
    assume(_resolved(gaps))     # closer gaps tie by the tolerance (test_gaps_within_the_tolerance_tie)
    if not any(g != 0 for g in gaps):
        with pytest.raises(OptionError):
            signed_rank(gaps, alternative)
        return
    statistic, p, how = signed_rank(gaps, alternative)
    event(how.split(" (")[0].split(": ")[0].split(",")[0])     # which branch this draw took
    assert (statistic, p) == _scipy(gaps, alternative)
    nonzero = [abs(g) for g in gaps if g != 0]
    tied_or_zero = len(set(nonzero)) < len(gaps)
    if len(gaps) > 50 or (tied_or_zero and len(gaps) > 13):
        assert how.startswith("normal approximation")
    else:
        assert how.startswith("exact")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-2, 2), min_size=2, max_size=10), st.sampled_from(ALTERNATIVES))
def test_sign_patterns_equal_brute_force(gaps, alternative):
    """Average ranks here by counting, not sorting: values below, plus half of the other equal ones, plus 1."""
    nonzero = [abs(g) for g in gaps if g != 0]
    assume(nonzero and len(set(nonzero)) < len(gaps))     # ties or zeros: the sign-pattern branch
    ranks = [Fraction(sum(v < x for v in nonzero)) + Fraction(sum(v == x for v in nonzero) - 1, 2) + 1
             for x in nonzero]
    assert signed_rank(gaps, alternative)[1] == float(_brute(gaps, ranks, alternative))


# --------------------------------------------------------------------------- exact gaps of means


@pytest.mark.parametrize("alternative", ALTERNATIVES)
def test_gaps_of_means_tie_as_fractions(alternative):
    gaps = [0.3 - 0.1, 1.0 - 1.2, 1.0, 2.0, -3.0, 4.0]     # 0.19999999999999998 and -0.19999999999999996
    exact = [0.2, -0.2, 1.0, 2.0, -3.0, 4.0]                # the same gaps as the fractions they are
    # |0.2| and |-0.2| tie: ranks 3/2, 3/2, 3, 4, 5, 6; r_plus = 3/2 + 3 + 4 + 6 = 14.5, r_minus = 3/2 + 5 = 6.5
    statistic, p, how = signed_rank(gaps, alternative)
    assert statistic == (6.5 if alternative == "two-sided" else 14.5)
    assert p == float(_brute(exact, ["3/2", "3/2", "3", "4", "5", "6"], alternative))   # 2^6 = 64 patterns
    assert (statistic, p) == _scipy(exact, alternative)
    assert how == "exact: all 64 sign patterns of the 6 non-zero gaps (ties or zero gaps)"
    if alternative == "two-sided":
        assert (statistic, p) == (6.5, 0.46875)             # 30 of 64 patterns: 2 * 15/64
        assert _scipy(gaps, alternative) == (6.0, 0.4375)   # the float residue, ranked apart


def test_a_gap_of_means_that_is_zero_as_a_fraction_is_dropped():
    gaps = [(0.1 + 0.2) - 0.3, 1.0, 2.0, 3.0]               # 5.55e-17: the means are equal
    assert signed_rank(gaps, "greater")[:2] == _scipy([0.0, 1.0, 2.0, 3.0], "greater") == (6.0, 1 / 8)


def test_gaps_within_the_tolerance_tie():
    # on no common step (pi), gaps within 1e-9 of the largest tie, as in the sign-flip test's tie rule
    gaps = [math.pi, -math.pi * (1 + 1e-12), 2 * math.pi, 3 * math.pi, 1e-12]
    ranks = ["3/2", "3/2", "3", "4"]                        # the last gap counts as zero
    exact = [math.pi, -math.pi, 2 * math.pi, 3 * math.pi, 0.0]
    assert signed_rank(gaps, "greater")[1] == float(_brute(exact, ranks, "greater")) == _scipy(exact, "greater")[1]


RUNS = st.lists(st.integers(0, 5), min_size=1, max_size=4)   # one value's integer runs of an item


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(RUNS, RUNS), min_size=1, max_size=20), st.sampled_from(ALTERNATIVES))
def test_integer_logs_equal_scipy_on_the_exact_gaps(items, alternative):
    """Means of 1 to 4 integer runs (thirds, quarters): the gaps as the analysis computes them, in floats,
    against scipy on the gaps as Fractions (equal fractions are equal floats)."""
    gaps = [float(np.mean(a)) - float(np.mean(b)) for a, b in items]
    exact = [float(Fraction(sum(a), len(a)) - Fraction(sum(b), len(b))) for a, b in items]
    if not any(exact):
        with pytest.raises(OptionError):
            signed_rank(gaps, alternative)
        return
    event("residue" if gaps != exact else "no residue")
    assert signed_rank(gaps, alternative)[:2] == _scipy(exact, alternative)


# --------------------------------------------------------------------------- imports


def test_no_scipy_stats_on_the_call_path():
    code = (
        "import sys\n"
        "from probestats.stats.signed_rank import signed_rank\n"
        "from probestats.stats.published import wilcoxon_signed_rank\n"
        "for gaps in ([1, 2, 3], [0, 1, 1, 2], [0] + list(range(1, 15)), list(range(1, 60))):\n"
        "    for alt in ('two-sided', 'greater', 'less'):\n"
        "        signed_rank(gaps, alt)\n"
        "        wilcoxon_signed_rank(gaps, alt)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('scipy.stats', 'scipy.optimize'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- the published test


def test_published_wilcoxon_uses_signed_rank():
    gaps = [0.0, 1.0, -1.0, 2.0, 2.0, -3.0, 4.0]
    r = wilcoxon_signed_rank(gaps, "greater")
    statistic, p, how = signed_rank(gaps, "greater")
    assert (r.statistic, r.pvalue, r.n) == (statistic, p, 6)
    assert r.method == f"Wilcoxon signed-rank on the item gaps ({how})"
    assert "scipy" not in r.method
    assert wilcoxon_signed_rank([0.0, 0.0]).note == "every item gap is zero: nothing to rank"
