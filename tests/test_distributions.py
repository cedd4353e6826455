"""The standard-library normal and t functions (probestats.stats.distributions) and the numpy bootstrap
(probestats.stats.resample), against mpmath at 40 digits and scipy on the same generator."""

from __future__ import annotations

import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from scipy import special, stats

from probestats.stats.distributions import T_SERIES_MAX_DF, norm_cdf, norm_pdf, norm_ppf, t_ppf
from probestats.stats.resample import bootstrap_interval


def _t_quantile_mp(df: int, p: float) -> mp.mpf:
    """Student's quantile at 40 digits: the root of I_x(df/2, 1/2) / 2 = 1 - p, x = df / (df + t^2)."""
    with mp.workdps(40):
        d, q = mp.mpf(df), 1 - mp.mpf(p)
        return mp.findroot(lambda t: mp.betainc(d / 2, mp.mpf(1) / 2, 0, d / (d + t * t), regularized=True) / 2 - q,
                           mp.mpf(float(special.stdtrit(df, p))))


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 7, 8, 11, 19, 30, 64, 99, 250, 501, T_SERIES_MAX_DF])
def test_t_quantile_within_1e12_of_40_digits(df):
    for conf in (0.1, 0.5, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999, 0.9998):
        p = 0.5 + conf / 2
        ref = _t_quantile_mp(df, p)
        assert abs(t_ppf(df, p) - ref) <= 1e-12 * abs(ref), (df, p)
        assert abs(t_ppf(df, 1 - p) + ref) <= 1e-12 * abs(ref), (df, 1 - p)


def test_t_quantile_beyond_the_series_is_scipys():
    # fractional degrees of freedom, more than the series' limit, and far tails go to scipy.special.stdtrit
    for df, p in ((7.5, 0.975), (T_SERIES_MAX_DF + 1, 0.975), (5, 1 - 1e-7), (5, 1e-7)):
        assert t_ppf(df, p) == float(special.stdtrit(df, p))
    assert t_ppf(9, 0.5) == 0.0


def test_normal_functions_equal_scipys():
    for p in np.linspace(1e-9, 1 - 1e-9, 2001):
        assert norm_ppf(float(p)) == pytest.approx(float(special.ndtri(p)), rel=1e-14, abs=1e-15)
    for x in np.linspace(-12, 12, 481):
        x = float(x)
        assert norm_cdf(x) == pytest.approx(float(special.ndtr(x)), rel=1e-13)
        assert norm_pdf(x) == pytest.approx(float(stats.norm.pdf(x)), rel=1e-13)
    assert (norm_ppf(0.0), norm_ppf(1.0)) == (-math.inf, math.inf) and math.isnan(norm_ppf(1.5))


def _d_av(x, y, axis=-1):
    with np.errstate(divide="ignore", invalid="ignore"):
        return (x.mean(axis) - y.mean(axis)) / np.sqrt((x.var(ddof=1, axis=axis) + y.var(ddof=1, axis=axis)) / 2)


@pytest.mark.parametrize("method", ["BCa", "percentile"])
def test_bootstrap_equals_scipys_on_the_same_generator(method):
    # paired resampling of two samples, whole-number values (ties, resamples without spread: infinite or
    # undefined d_av) and continuous ones, several levels: scipy's interval to 1e-12, nan where scipy's is
    draw = np.random.default_rng(3)
    for trial in range(60):
        n = int(draw.integers(3, 25))
        if trial % 3 == 0:
            a, b = draw.integers(0, 3, n).astype(float), draw.integers(0, 3, n).astype(float)
        else:
            a = draw.normal(size=n)
            b = 0.5 * a + draw.normal(size=n)
        seed, resamples = int(draw.integers(0, 1000)), int(draw.integers(200, 2000))
        conf = float(draw.choice([0.8, 0.9, 0.95, 0.99]))
        mine = bootstrap_interval((a, b), _d_av, confidence=conf, n_resamples=resamples,
                                  rng=np.random.default_rng(seed), method=method)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            items = np.lexsort((b, a))   # the items in the order bootstrap_interval draws them in: by a, then b
            ref = stats.bootstrap((a[items], b[items]), _d_av, paired=True, vectorized=True, confidence_level=conf,
                                  n_resamples=resamples, method=method, rng=np.random.default_rng(seed))
        for got, want in zip(mine, (float(ref.confidence_interval.low), float(ref.confidence_interval.high))):
            if math.isnan(want) or math.isinf(want):
                assert got == want or (math.isnan(got) and math.isnan(want)), (a, b, mine, ref)
            else:
                assert got == pytest.approx(want, rel=1e-12), (a, b, mine, ref)


def test_scipys_batch_of_groups_is_not_each_group_alone():
    # why the --by path keeps its own batched d_av bootstrap: scipy's, given the groups of one size as one
    # batch, draws the same item indices but its BCa ends are not each group's own; ours are, to the bit
    from probestats.stats.bootstrap_many import d_av, dav_bca_many

    draw = np.random.default_rng(1)
    pairs = [(np.round(draw.normal(size=8) + 0.5, 2), np.round(draw.normal(size=8), 2)) for _ in range(6)]
    pairs = [(a[np.lexsort((b, a))], b[np.lexsort((b, a))]) for a, b in pairs]   # in the order they are drawn in
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch = stats.bootstrap((np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])), _d_av,
                                paired=True, vectorized=True, axis=-1, n_resamples=10_000, method="BCa",
                                rng=np.random.default_rng(0)).confidence_interval
        alone = [stats.bootstrap(p, _d_av, paired=True, vectorized=True, n_resamples=10_000, method="BCa",
                                 rng=np.random.default_rng(0)).confidence_interval for p in pairs]
    moved = [k for k, one in enumerate(alone)
             if (float(one.low), float(one.high)) != pytest.approx((batch.low[k], batch.high[k]), rel=1e-9)]
    assert len(moved) >= 3, moved
    ours = dav_bca_many(pairs, confidence=0.95, n_resamples=10_000, seed=0)
    for p, one, many in zip(pairs, alone, ours):
        assert many == bootstrap_interval(p, d_av, confidence=0.95, n_resamples=10_000,
                                          rng=np.random.default_rng(0), method="BCa")
        assert many == pytest.approx((float(one.low), float(one.high)), rel=1e-12)


def test_incomplete_beta_and_gamma_equal_scipys():
    from probestats.stats.distributions import betainc, gammainc

    for a in (0.5, 1.0, 2.5, 7.0, 10.0, 12.5, 40.0, 150.0, 500.0):
        for b in (0.5, 1.0, 3.5, 10.0, 30.0, 500.0):
            for x in np.linspace(0.002, 0.998, 41):
                ref = float(special.betainc(a, b, x))
                if ref < 1e-250:   # scipy's flushes some such tails to 0
                    continue
                assert betainc(a, b, float(x)) == pytest.approx(ref, rel=1e-12, abs=1e-300), (a, b, x)
        for x in np.linspace(0.01, 3 * a + 30, 61):
            ref = float(special.gammainc(a, x))
            assert gammainc(a, float(x)) == pytest.approx(ref, rel=1e-12, abs=1e-300), (a, x)


def test_t_chi2_and_f_tails_equal_scipys():
    from probestats.stats.distributions import chi2_cdf, f_sf, t_sf

    for df in (1, 2, 3, 7, 30, 300, 999):
        for t in np.concatenate([np.linspace(-12, 12, 49), [40.0, 1e3]]):
            assert t_sf(float(t), df) == pytest.approx(float(stats.t.sf(t, df)), rel=1e-12, abs=1e-300), (df, t)
        for x in np.linspace(0.01, 3 * df + 30, 41):
            assert chi2_cdf(float(x), df) == pytest.approx(float(stats.chi2.cdf(x, df)), rel=1e-12, abs=1e-300)
    for dfn in (1, 2, 5, 15, 40):
        for dfd in (1, 5, 30, 300, 999):
            for x in (0.01, 0.3, 1.0, 2.0, 5.0, 20.0, 100.0):
                assert f_sf(x, dfn, dfd) == pytest.approx(float(stats.f.sf(x, dfn, dfd)), rel=1e-12, abs=1e-300)


def test_noncentral_t_and_owens_t_equal_scipys():
    from probestats.stats.distributions import NCT_OWEN_MAX_DF, nct_cdf, owens_t

    for h in np.linspace(0.0, 12.0, 49):
        for a in (1e-3, 0.1, 0.5, 1.0, 1.1, 2.0, 5.0, 30.0, 1e3, -0.7, -4.0):
            assert abs(owens_t(float(h), a) - float(special.owens_t(h, a))) <= 1e-15, (h, a)
    for df in list(range(1, 30)) + [45, 99, 150, NCT_OWEN_MAX_DF]:
        for nc in (-8.0, -3.0, -1.0, 0.0, 0.7, 2.0, 5.0, 10.0):
            for t in (-20.0, -4.0, -1.0, 0.0, 0.3, 1.5, 3.0, 8.0, 25.0):
                ref = float(special.nctdtr(df, nc, t))
                got = nct_cdf(df, nc, t)
                # the reflection P(T <= t; nc) = 1 - P(T <= -t; -nc) holds too, also far in the tails where
                # scipy's gives nan
                assert abs(got - (1.0 - nct_cdf(df, -nc, -t))) <= 1e-13, (df, nc, t)
                if not math.isnan(ref):
                    assert abs(got - ref) <= 1e-13, (df, nc, t)
