"""Effect sizes (probestats.stats.effects) and the published tests (probestats.stats.published).

References: hand computations written out in the comments, the generating model of simulated
logs (its true d_z and d_av), scipy.stats (ttest_rel, wilcoxon, ttest_ind, friedmanchisquare,
bootstrap) and statsmodels (cochrans_q, multipletests), run on the same numbers.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy import stats

from tests.engines import analyze   # with its knobs (mdg, within_noise, the read keywords)
from probestats.analyses.items import items_of
from probestats.analyses.rowlevel import per_item_welch
from probestats.checks.schema import validate
from probestats.stats.effects import dav_df, dz_interval, effect_sizes, expected_dav, expected_dz, hedges_j
from probestats.stats.hypotests import gap_interval
from probestats.stats.published import cochran_q, friedman, paired_t, welch_t, wilcoxon_signed_rank


# --------------------------------------------------------------------------- by hand


def test_effect_sizes_by_hand():
    # items: A means 6, 4, 7, 5, 8; B means 5, 4, 5, 3, 5 -> gaps 1, 0, 2, 2, 3
    a = [6.0, 4.0, 7.0, 5.0, 8.0]
    b = [5.0, 4.0, 5.0, 3.0, 5.0]
    e = effect_sizes(a, b)
    # mean gap 8/5 = 1.6; deviations -0.6, -1.6, 0.4, 0.4, 1.4; squares 0.36 + 2.56 + 0.16 + 0.16 + 1.96 = 5.2
    sd_gaps = math.sqrt(5.2 / 4)
    assert e.mean_gap == pytest.approx(1.6, abs=1e-15)
    assert e.sd_gaps == pytest.approx(sd_gaps, rel=1e-14)
    assert e.d_z.value == pytest.approx(1.6 / sd_gaps, rel=1e-14)
    # sd_A: mean 6, squares 0 + 4 + 1 + 1 + 4 = 10 -> var 2.5; sd_B: mean 4.4, squares
    # 0.36 + 0.16 + 0.36 + 1.96 + 0.36 = 3.2 -> var 0.8; d_av = 1.6 / sqrt((2.5 + 0.8) / 2)
    assert e.sd_a == pytest.approx(math.sqrt(2.5), rel=1e-14)
    assert e.sd_b == pytest.approx(math.sqrt(0.8), rel=1e-14)
    assert e.d_av.value == pytest.approx(1.6 / math.sqrt(1.65), rel=1e-14)
    # Hedges: J(4) = Gamma(2) / (sqrt(2) Gamma(1.5)) = 1 / (sqrt(2) * sqrt(pi) / 2)
    j = 1 / (math.sqrt(2) * math.sqrt(math.pi) / 2)
    assert hedges_j(4) == pytest.approx(j, rel=1e-13)
    g = effect_sizes(a, b, hedges=True)
    assert (g.d_z.name, g.d_av.name) == ("g_z", "g_av")
    assert g.d_z.value == pytest.approx(j * e.d_z.value, rel=1e-13)
    assert g.d_z.low == pytest.approx(j * e.d_z.low, rel=1e-13)
    assert "Hedges" in g.d_z.formula and "Hedges" not in e.d_z.formula
    assert "d_av = (mean A − mean B)" in e.d_av.formula and "bootstrap" in e.d_av.interval_method


def test_effect_sizes_of_a_log_equal_a_hand_computation():
    # three items, two runs each: item 1 A 4, 6 (5) B 3, 3 (3); item 2 A 2, 2 (2) B 1, 2 (1.5); item 3 A 7, 9 (8) B 6, 8 (7)
    rows = [{"item": i, "variant": v, "seed": s, "steps": x}
            for i, v, xs in [(1, "a", (4, 6)), (1, "b", (3, 3)), (2, "a", (2, 2)), (2, "b", (1, 2)),
                             (3, "a", (7, 9)), (3, "b", (6, 8))] for s, x in zip((1, 2), xs)]
    e = analyze(rows, metric="steps", mdg=False).main.effects
    gaps = [2.0, 0.5, 1.0]          # mean 3.5 / 3
    mean = 3.5 / 3
    sd = math.sqrt(sum((g - mean) ** 2 for g in gaps) / 2)
    assert e.d_z.value == pytest.approx(mean / sd, rel=1e-13)
    sd_a = math.sqrt(sum((x - 5.0) ** 2 for x in (5.0, 2.0, 8.0)) / 2)          # mean of 5, 2, 8 is 5
    sd_b = math.sqrt(sum((x - 23 / 6) ** 2 for x in (3.0, 1.5, 7.0)) / 2)       # mean 11.5 / 3
    assert e.d_av.value == pytest.approx(mean / math.sqrt((sd_a ** 2 + sd_b ** 2) / 2), rel=1e-13)


def test_undefined_effects_say_why():
    e = effect_sizes([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])   # every gap 1: SD 0
    assert e.d_z.value is None and "SD is 0" in e.d_z.interval_method
    assert e.d_av.value is not None
    one = effect_sizes([1.0], [0.0])
    assert one.sd_gaps is None and one.d_z.value is None
    assert paired_t([2.0, 3.0], [1.0, 2.0]).pvalue is None
    assert wilcoxon_signed_rank([0.0, 0.0]).pvalue is None


# --------------------------------------------------------------------------- against the truth


def _draw(rng, n, k=5, delta=0.5, tau=0.4, sigma=1.0, spread=0.6):
    """Item means of a generated paired log: baseline N(0, spread), true gap N(delta, tau), k runs
    per value with run noise N(0, sigma)."""
    base = rng.normal(0, spread, n)
    gap = rng.normal(delta, tau, n)
    a = base + gap + rng.normal(0, sigma, (k, n)).mean(axis=0)
    b = base + rng.normal(0, sigma, (k, n)).mean(axis=0)
    return a, b


def _truth(k=5, delta=0.5, tau=0.4, sigma=1.0, spread=0.6):
    """The generating model's covariance of the item means and its true d_z and d_av:
    var(gap) = tau² + 2 sigma²/k, var(mean A) = spread² + tau² + sigma²/k, var(mean B) = spread² + sigma²/k,
    cov(mean A, mean B) = spread²."""
    var_a, var_b, cov = spread ** 2 + tau ** 2 + sigma ** 2 / k, spread ** 2 + sigma ** 2 / k, spread ** 2
    return var_a, var_b, cov, delta / math.sqrt(tau ** 2 + 2 * sigma ** 2 / k), delta / math.sqrt((var_a + var_b) / 2)


def test_effect_sizes_meet_their_expectations_and_hedges_meets_the_truth():
    """2,000 generated paired logs of 20 items with a known d_z and d_av. The plain estimates are biased
    upward in small samples, so their means are held to their exact expectations under the (normal)
    generating model: E[d_z] = d_z / J(19), and E[d_av] = delta E[1/s] by a quadrature checked here
    against a Monte Carlo of the standardizer alone. Hedges' g_z is held to the truth (exactly
    unbiased); g_av with its Satterthwaite df too (approximately: its bias is near 1 %, below the
    Monte Carlo error here). The bias the plain d_z carries (about 4 %) is far beyond that error, so
    holding d_z to the truth instead would fail."""
    delta, n = 0.5, 20
    var_a, var_b, cov, true_dz, true_dav = _truth(delta=delta)
    rng = np.random.default_rng(20)
    found = {"d_z": [], "d_av": [], "g_z": [], "g_av": []}
    for _ in range(2000):
        a, b = _draw(rng, n)
        plain = effect_sizes(a, b, intervals=False)
        hedged = effect_sizes(a, b, hedges=True, intervals=False)
        for name, e in (("d_z", plain.d_z), ("d_av", plain.d_av), ("g_z", hedged.d_z), ("g_av", hedged.d_av)):
            found[name].append(e.value)
    j19 = math.exp(math.lgamma(9.5) - math.lgamma(9.0)) / math.sqrt(9.5)    # Γ(19/2) / (sqrt(19/2) Γ(18/2))
    targets = {"d_z": true_dz / j19, "d_av": expected_dav(delta, var_a, var_b, cov, n),
               "g_z": true_dz, "g_av": true_dav}
    for name, target in targets.items():
        x = np.array(found[name])
        se = x.std(ddof=1) / math.sqrt(x.size)
        assert abs(x.mean() - target) < 3 * se, (name, x.mean(), target, se)
    x = np.array(found["d_z"])
    assert (x.mean() - true_dz) > 3 * x.std(ddof=1) / math.sqrt(x.size)   # the bias the check must not miss


def test_expected_dav_equals_a_monte_carlo_of_its_standardizer():
    # E[d_av] = delta E[1/s], s² = (s_A² + s_B²)/2; the mean gap is independent of s, so 1/s alone
    # (200,000 bivariate normal samples of 10 item means) checks the quadrature
    var_a, var_b, cov, _, _ = _truth()
    rng = np.random.default_rng(3)
    draws = rng.multivariate_normal([0, 0], [[var_a, cov], [cov, var_b]], size=(200_000, 10))
    s = np.sqrt((draws[..., 0].var(axis=1, ddof=1) + draws[..., 1].var(axis=1, ddof=1)) / 2)
    inv = 1 / s
    assert expected_dav(1.0, var_a, var_b, cov, 10) == pytest.approx(inv.mean(), abs=3 * inv.std() / math.sqrt(inv.size))
    # equal eigenvalues: 2(n − 1) s² / l is chi-square with 2(n − 1) df, so E[1/s] = 1 / (sqrt(l) J(2(n − 1)))
    assert expected_dav(0.7, 2.0, 2.0, 0.0, 10) == pytest.approx(0.7 / (math.sqrt(2.0) * hedges_j(18)), rel=1e-10)
    assert expected_dz(0.5, 20) == pytest.approx(0.5 / hedges_j(19), rel=1e-15)


def test_hedges_by_hand_on_both_effects():
    # a = 6, 4, 7, 5, 8; b = 5, 4, 5, 3, 5 (as in test_effect_sizes_by_hand): var_A 2.5, var_B 0.8;
    # cov: deviations of a 0, -2, 1, -1, 2 and of b 0.6, -0.4, 0.6, -1.4, 0.6 -> products 0, 0.8, 0.6, 1.4, 1.2 = 4 -> 1
    # Satterthwaite df = 4 (2.5 + 0.8)² / (2.5² + 0.8² + 2 × 1²) = 4 × 10.89 / 8.89
    a, b = [6.0, 4.0, 7.0, 5.0, 8.0], [5.0, 4.0, 5.0, 3.0, 5.0]
    df = 4 * 10.89 / 8.89
    assert dav_df(a, b) == pytest.approx(df, rel=1e-13)
    j = math.exp(math.lgamma(df / 2) - math.lgamma((df - 1) / 2)) / math.sqrt(df / 2)
    g = effect_sizes(a, b, hedges=True)
    assert g.d_av.value == pytest.approx(j * 1.6 / math.sqrt(1.65), rel=1e-13)
    assert "Satterthwaite" in g.d_av.formula and f"df = {df:.4g}" in g.d_av.formula
    # g_z: J(4) = Γ(2) / (sqrt(2) Γ(1.5)) = 2 / sqrt(2 pi)
    assert g.d_z.value == pytest.approx(2 / math.sqrt(2 * math.pi) * 1.6 / math.sqrt(1.3), rel=1e-13)


@pytest.mark.slow
def test_dz_interval_covers_at_its_level():
    """1,000 normal draws of 20 item gaps (true d_z 0.5): the exact interval covers 93-97 % of them."""
    rng = np.random.default_rng(7)
    cover = 0
    for _ in range(1000):
        g = rng.normal(0.5, 1.0, 20)
        lo, hi = dz_interval(g.mean() / g.std(ddof=1), 20)
        cover += lo <= 0.5 <= hi
    assert 0.93 <= cover / 1000 <= 0.97


def test_dz_interval_inverts_the_noncentral_t():
    # at each end the observed t sits at the 2.5 % tail of the noncentral t (scipy.stats.nct)
    dz, n = 0.8, 12
    lo, hi = dz_interval(dz, n)
    t = dz * math.sqrt(n)
    assert stats.nct.sf(t, n - 1, lo * math.sqrt(n)) == pytest.approx(0.025, abs=1e-9)
    assert stats.nct.cdf(t, n - 1, hi * math.sqrt(n)) == pytest.approx(0.025, abs=1e-9)


@pytest.mark.parametrize("dz, n", [(0.8, 12), (0.0, 10), (2.5, 30), (-1.2, 5), (0.3, 400), (5.0, 8),
                                    (0.05, 5000), (40.0, 3), (-30.0, 4), (0.01, 100000), (3.0, 10000)])
def test_dz_interval_ends_sit_at_the_tails_far_out(dz, n):
    # the bisection on the noncentral t (Owen's form up to 200 df, scipy.special.nctdtr above), checked with
    # scipy.stats.nct's two tails at each end
    lo, hi = dz_interval(dz, n)
    t = dz * math.sqrt(n)
    assert stats.nct.sf(t, n - 1, lo * math.sqrt(n)) == pytest.approx(0.025, abs=1e-12)
    assert stats.nct.cdf(t, n - 1, hi * math.sqrt(n)) == pytest.approx(0.025, abs=1e-12)
    assert lo < dz < hi


def test_dz_interval_imports_neither_scipy_stats_nor_optimize():
    import subprocess
    import sys

    code = ("import sys; from probestats.stats.effects import dz_interval; dz_interval(0.5, 30); "
            "from probestats.stats.published import paired_t; paired_t([1.0, 2.0, 4.0], [0.0, 1.0, 1.0]); "
            "print(sorted(m for m in ('scipy.stats', 'scipy.optimize') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-40, 40), st.integers(-40, 40)), min_size=2, max_size=60),
       st.sampled_from([1.0, 0.25, 1e-3, 1e4]), st.sampled_from(["two-sided", "greater", "less"]))
def test_paired_t_is_ttest_rel(pairs, scale, alternative):
    a = np.array([x for x, _ in pairs], float) * scale
    b = np.array([y for _, y in pairs], float) * scale
    assume(np.ptp(a - b) > 0)
    r = paired_t(a, b, alternative)
    ref = stats.ttest_rel(a, b, alternative=alternative)
    # t and df bit for bit (ttest_rel's arithmetic); p from the standard-library Student tail, to 1e-12
    assert (r.statistic, r.df) == (float(ref.statistic), float(ref.df))
    assert r.pvalue == pytest.approx(float(ref.pvalue), rel=1e-12, abs=1e-300)


# --------------------------------------------------------------------------- published tests against scipy


@st.composite
def _logs(draw):
    n = draw(st.integers(3, 12))
    runs = draw(st.integers(1, 4))
    rows = []
    for i in range(n):
        for v in ("a", "b"):
            for s in range(runs):
                rows.append({"item": i, "variant": v, "seed": s + 1, "x": draw(st.integers(0, 9))})
    return rows


def _hand_means(rows):
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["item"], r["variant"]), []).append(r["x"])
    items = sorted({r["item"] for r in rows})
    mean = lambda xs: float(Fraction(sum(xs), len(xs)))  # noqa: E731  (correctly rounded)
    return (np.array([mean(cells[(i, "a")]) for i in items]), np.array([mean(cells[(i, "b")]) for i in items]))


def _exact_gaps(rows):
    """Each item's gap as the fraction it is (mean of a minus mean of b), correctly rounded to a float."""
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["item"], r["variant"]), []).append(r["x"])
    mean = lambda xs: Fraction(sum(xs), len(xs))  # noqa: E731
    return np.array([float(mean(cells[(i, "a")]) - mean(cells[(i, "b")])) for i in sorted({r["item"] for r in rows})])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_logs(), st.sampled_from(["two-sided", "greater", "less"]))
def test_paired_t_and_wilcoxon_equal_scipy(rows, alternative):
    a, b = _hand_means(rows)
    gaps = a - b
    assume(np.ptp(gaps) > 0)
    res = analyze(rows, metric="x", alternative=alternative, mdg=False, within_noise=False, n_resamples=99)
    t, w = res.main.published
    ref = stats.ttest_rel(a, b, alternative=alternative)
    assert t.pvalue == pytest.approx(float(ref.pvalue), abs=1e-12)
    assert t.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        wref = stats.wilcoxon(_exact_gaps(rows), alternative=alternative)   # ties decided on the fractions
    assert w.pvalue == pytest.approx(float(wref.pvalue), abs=1e-12)
    assert res.to_dict()["published_tests"]["paired_t"]["p"] == t.pvalue


def test_welch_per_item_equals_scipy_and_holm():
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(4)
    rows = [{"item": i, "variant": v, "seed": s, "x": float(rng.normal(i * (v == "a"), 1.0))}
            for i in range(6) for v in ("a", "b") for s in range(1, 5 + (v == "b"))]
    checked = validate(rows, metric="x")
    res = per_item_welch(checked, items_of(checked))
    raw = []
    for i, t in enumerate(res.tests):
        xa = [r["x"] for r in rows if r["item"] == i and r["variant"] == "a"]
        xb = [r["x"] for r in rows if r["item"] == i and r["variant"] == "b"]
        ref = stats.ttest_ind(xa, xb, equal_var=False)
        assert t.key == {"item": str(i)}   # items are read as text
        assert t.test.pvalue == pytest.approx(float(ref.pvalue), abs=1e-14)
        assert t.test.df == pytest.approx(float(ref.df), rel=1e-12)
        raw.append(float(ref.pvalue))
    holm = multipletests(raw, method="holm")[1]
    assert [t.p_adjusted for t in res.tests] == pytest.approx(list(holm), abs=1e-14)
    assert welch_t([1.0, 2.0, 4.0], [2.0, 2.0, 5.0, 7.0]).pvalue == pytest.approx(
        float(stats.ttest_ind([1.0, 2.0, 4.0], [2.0, 2.0, 5.0, 7.0], equal_var=False).pvalue), abs=1e-15)


def test_friedman_equals_scipy_and_the_formula():
    rng = np.random.default_rng(1)
    m = rng.normal(size=(9, 4))
    r = friedman(m)
    ref = stats.friedmanchisquare(*m.T)
    assert r.statistic == pytest.approx(float(ref.statistic), rel=1e-13)
    assert r.pvalue == pytest.approx(float(ref.pvalue), abs=1e-14)
    # without ties: 12 / (n k (k + 1)) * sum R_j² - 3 n (k + 1)
    ranks = np.argsort(np.argsort(m, axis=1), axis=1) + 1
    n, k = m.shape
    by_hand = 12 / (n * k * (k + 1)) * float((ranks.sum(axis=0) ** 2).sum()) - 3 * n * (k + 1)
    assert r.statistic == pytest.approx(by_hand, rel=1e-12)


def test_friedman_ties_item_means_equal_as_fractions():
    # the mean of 0.1 and 0.2 is 0.15000000000000002 in floats: it ties 0.15, as scipy finds on the exact means
    m = [[0.15, (0.1 + 0.2) / 2, 1.0], [1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [0.5, 0.5, 2.0]]
    exact = [[0.15, 0.15, 1.0], [1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [0.5, 0.5, 2.0]]
    ref = stats.friedmanchisquare(*np.asarray(exact).T)
    assert friedman(m).statistic == pytest.approx(float(ref.statistic), rel=1e-13)
    assert friedman(m).pvalue == pytest.approx(float(ref.pvalue), rel=1e-13)


def test_cochran_q_equals_statsmodels_and_the_formula():
    from statsmodels.stats.contingency_tables import cochrans_q as sm_q

    rng = np.random.default_rng(2)
    m = (rng.random((15, 3)) < np.array([0.7, 0.4, 0.3])).astype(float)
    r = cochran_q(m)
    ref = sm_q(m)
    assert r.statistic == pytest.approx(float(ref.statistic), rel=1e-13)
    assert r.pvalue == pytest.approx(float(ref.pvalue), abs=1e-14)
    k = m.shape[1]
    c, rows = m.sum(axis=0), m.sum(axis=1)
    n_all = m.sum()
    by_hand = (k - 1) * (k * float((c ** 2).sum()) - n_all ** 2) / (k * n_all - float((rows ** 2).sum()))
    assert r.statistic == pytest.approx(by_hand, rel=1e-12)


# --------------------------------------------------------------------------- intervals as published


def test_percentile_bootstrap_equals_scipy_with_the_same_generator():
    g = np.array([0.5, 1.25, -0.25, 2.0, 0.75, 1.5, 0.0, 1.0])
    iv = gap_interval(g, method="percentile", n_resamples=5000, seed=11)
    # the gaps in sorted order, the order the interval draws them in (so that the log's order does not move it)
    ref = stats.bootstrap((np.sort(g),), np.mean, method="percentile", n_resamples=5000, rng=np.random.default_rng(11),
                          vectorized=True, confidence_level=0.95)
    assert (iv.low, iv.high) == (float(ref.confidence_interval.low), float(ref.confidence_interval.high))
    assert "percentile bootstrap" in iv.method and "5,000 resamples, seed 11" in iv.method


def test_bca_follows_seed_and_resamples():
    g = np.array([0.5, 1.25, -0.25, 2.0, 0.75, 1.5, 0.0, 1.0, 3.0])
    one = gap_interval(g, method="bootstrap", seed=1, n_resamples=2000)
    two = gap_interval(g, method="bootstrap", seed=2, n_resamples=2000)
    assert (one.low, one.high) != (two.low, two.high)
    assert "seed 1" in one.method and "seed 2" in two.method and "2,000 resamples" in one.method
    ref = stats.bootstrap((np.sort(g),), np.mean, method="BCa", n_resamples=2000, rng=np.random.default_rng(1),
                          vectorized=True)
    assert (one.low, one.high) == (float(ref.confidence_interval.low), float(ref.confidence_interval.high))


def test_dav_interval_is_the_paired_bootstrap_it_names():
    a = np.array([6.0, 4.0, 7.0, 5.0, 8.0, 6.5])
    b = np.array([5.0, 4.0, 5.0, 3.0, 5.0, 6.0])
    e = effect_sizes(a, b, n_resamples=3000, seed=9)

    def d_av(x, y, axis=-1):
        return (x.mean(axis) - y.mean(axis)) / np.sqrt((x.var(ddof=1, axis=axis) + y.var(ddof=1, axis=axis)) / 2)

    items = np.lexsort((b, a))   # the items in the order the interval draws them in: by a, then b
    ref = stats.bootstrap((a[items], b[items]), d_av, paired=True, vectorized=True, method="BCa", n_resamples=3000,
                          rng=np.random.default_rng(9))
    assert (e.d_av.low, e.d_av.high) == pytest.approx(
        (float(ref.confidence_interval.low), float(ref.confidence_interval.high)), rel=1e-12)
    assert "3,000 resamples, seed 9" in e.d_av.interval_method


def test_effects_in_json_and_groups():
    rows = [{"item": i, "variant": v, "seed": s, "model": m, "x": (i % 3) + s + (v == "a") * (1 + (m == "m2") + (i % 2))}
            for m in ("m1", "m2") for i in range(6) for v in ("a", "b") for s in (1, 2)]
    res = analyze(rows, metric="x", by=["model"], mdg=False, n_resamples=200)
    d = res.to_dict()
    assert d["effect_sizes"]["d_z"]["formula"].startswith("d_z = mean gap")
    assert d["effect_sizes"]["sd_gaps_formula"].startswith("SD of the item gaps")
    for g, gd in zip(res.groups, d["groups"]):
        sub = pl.DataFrame(rows).filter(pl.col("model") == g.by["model"])
        a, b = _hand_means(sub.to_dicts())
        assert gd["effect_sizes"]["d_z"]["value"] == pytest.approx((a - b).mean() / (a - b).std(ddof=1), rel=1e-12)
        assert gd["published_tests"]["paired_t"]["p"] == pytest.approx(float(stats.ttest_rel(a, b).pvalue),
                                                                        abs=1e-12)


# --------------------------------------------------------------------------- many values: published tests, item gaps


def test_many_values_friedman_item_gaps_and_sd_of_runs():
    rng = np.random.default_rng(5)
    rows = [{"item": i, "variant": v, "seed": s, "x": int(rng.integers(0, 6)) + (v == "C") * 2}
            for i in range(7) for v in ("A", "B", "C", "D") for s in (1, 2, 3)]
    res = analyze(rows, metric="x", reference="B").main
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["item"], r["variant"]), []).append(r["x"])
    matrix = np.array([[np.mean(cells[(i, v)]) for v in "ABCD"] for i in range(7)])
    (fr,) = res.published
    ref = stats.friedmanchisquare(*matrix.T)
    assert fr.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
    assert fr.pvalue == pytest.approx(float(ref.pvalue), abs=1e-14)
    for g in res.item_gaps():
        i = int(g["item"])
        assert g["gap"] == pytest.approx(np.mean(cells[(i, g["value"])]) - np.mean(cells[(i, "B")]), abs=1e-14)
        assert (g["runs"], g["reference_runs"]) == (3, 3)
        assert g["sd"] == pytest.approx(np.std(cells[(i, g["value"])], ddof=1), rel=1e-12)
    for v in res.values:
        runs = [r["x"] for r in rows if r["variant"] == v.value]
        assert v.sd_runs == pytest.approx(np.std(runs, ddof=1), rel=1e-12) and v.n_runs == len(runs)
    assert len(res.item_gaps()) == 7 * 3


def test_many_values_cochran_q_for_one_zero_one_run_per_cell():
    from statsmodels.stats.contingency_tables import cochrans_q as sm_q

    rng = np.random.default_rng(6)
    rows = [{"item": i, "variant": v, "picked": int(rng.random() < p)}
            for i in range(20) for v, p in (("A", 0.7), ("B", 0.4), ("C", 0.3))]
    res = analyze(rows, metric="picked").main
    names = [t.name for t in res.published]
    assert names == ["friedman", "cochran"]
    matrix = np.array([[next(r["picked"] for r in rows if r["item"] == i and r["variant"] == v) for v in "ABC"]
                       for i in range(20)], dtype=float)
    q = res.published[1]
    ref = sm_q(matrix)
    assert q.statistic == pytest.approx(float(ref.statistic), rel=1e-12)
    assert q.pvalue == pytest.approx(float(ref.pvalue), abs=1e-14)


def test_dav_interval_beyond_a_hundred_items_is_the_delta_method_written_out():
    rng = np.random.default_rng(12)
    a = rng.normal(0.3, 1.0, 150)
    b = 0.6 * a + rng.normal(0.0, 0.7, 150)
    e = effect_sizes(a, b)
    n = a.size
    va, vb = np.var(a, ddof=1), np.var(b, ddof=1)
    cab = np.sum((a - a.mean()) * (b - b.mean())) / (n - 1)
    s2 = (va + vb) / 2
    d = (a.mean() - b.mean()) / np.sqrt(s2)
    se = np.sqrt(np.var(a - b, ddof=1) / (n * s2) + d ** 2 * (va ** 2 + vb ** 2 + 2 * cab ** 2) / (8 * (n - 1) * s2 ** 2))
    z = stats.norm.ppf(0.975)
    assert (e.d_av.low, e.d_av.high) == pytest.approx((d - z * se, d + z * se), rel=1e-12)
    assert "delta-method" in e.d_av.interval_method
