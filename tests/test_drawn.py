"""A setting drawn at random per call: checked for balance, then the gap shown stratified and adjusted.

References are computed here: the adjusted gap by statsmodels OLS with item dummies and a temperature term,
the stratified gap by numpy from the rows, the balance p by a permutation loop with its own generator.
"""

from __future__ import annotations

import io
import json

import numpy as np
import polars as pl
import pytest
from rich.console import Console

from probestats import Probe
from probestats import analyze
from probestats.cli import main
from probestats.errors import OptionError, ValidationError
from probestats.present.report.document import render_report
from probestats.present.terminal.render import render_terminal


def drawn_rows(items: int = 30, runs: int = 6, gap: float = 0.5, slope: float = 2.0, unbalanced: float = 0.0,
               seed: int = 4) -> list[dict]:
    """Runs whose temperature is drawn per call from U(0, 1.5) (scaled by 1 − ``unbalanced`` under 'a', so the
    draw depends on the value when ``unbalanced`` > 0); the metric rises ``slope`` per unit of temperature."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        level = rng.normal(0, 1)
        for v in ("a", "b"):
            for s in range(runs):
                t = round(float(rng.uniform(0, 1.5)) * ((1 - unbalanced) if v == "a" else 1.0), 2)
                y = level + slope * t + (gap if v == "a" else 0.0) + rng.normal(0, 1)
                rows.append({"item": str(i), "variant": v, "seed": s, "temperature": t, "y": y})
    return rows


def test_a_balanced_temperature_is_accepted_and_the_gap_adjusted_as_statsmodels_ols_gives_it():
    import statsmodels.formula.api as smf

    rows = drawn_rows()
    result = analyze(rows, metric="y", probe=Probe(random_settings=["temperature"]))
    (drawn,) = result.drawn
    assert drawn.balance.pvalue > 0.05
    frame = pl.DataFrame(rows).with_columns((pl.col("variant") == "a").cast(pl.Float64).alias("is_a")).to_pandas()
    fit = smf.ols("y ~ C(item) + is_a + temperature", data=frame).fit()
    adj = drawn.adjusted
    assert adj.gap == pytest.approx(fit.params["is_a"], abs=1e-9)
    assert adj.se == pytest.approx(fit.bse["is_a"], rel=1e-9)
    assert adj.pvalue == pytest.approx(fit.pvalues["is_a"], rel=1e-6)
    assert adj.df == int(fit.df_resid)
    low, high = fit.conf_int(alpha=0.05).loc["is_a"]
    assert (adj.low, adj.high) == (pytest.approx(low, abs=1e-9), pytest.approx(high, abs=1e-9))
    assert adj.setting_terms["temperature"] == pytest.approx(fit.params["temperature"], abs=1e-9)


def test_the_stratified_gap_matches_items_within_quintiles_of_the_temperature():
    rows = drawn_rows()
    result = analyze(rows, metric="y", probe=Probe(random_settings=["temperature"]))
    (drawn,) = result.drawn
    temps = np.array([r["temperature"] for r in rows])
    cuts = np.quantile(temps, [0.2, 0.4, 0.6, 0.8])
    gaps = []
    for i in sorted({r["item"] for r in rows}):
        within = []
        for k in range(5):
            def mean(v):
                ys = [r["y"] for r in rows if r["item"] == i and r["variant"] == v
                      and np.searchsorted(cuts, r["temperature"], side="right") == k]
                return np.mean(ys) if ys else None
            ma, mb = mean("a"), mean("b")
            if ma is not None and mb is not None:
                within.append((ma, mb))
        if within:
            gaps.append(np.mean([w[0] for w in within]) - np.mean([w[1] for w in within]))
    assert drawn.strata == 5 and drawn.stratified_items == len(gaps)
    assert drawn.stratified.average_gap == pytest.approx(np.mean(gaps), abs=1e-9)


def test_the_balance_p_is_the_within_item_permutation_test():
    rows = drawn_rows(items=12, runs=4, unbalanced=0.25, seed=9)
    frame = pl.DataFrame(rows)
    from probestats.analyses.drawn import balance_test

    test = balance_test(frame, "temperature", "a", "b", n_resamples=4000, seed=1)
    # the same test by hand: shuffle the labels of each item's runs, compare |mean_a - mean_b|
    rng = np.random.default_rng(2024)
    items = frame["item"].to_numpy()
    temps = frame["temperature"].to_numpy()
    labels = (frame["variant"] == "a").to_numpy()

    def stat(lab):
        return abs(temps[lab].mean() - temps[~lab].mean())

    observed = stat(labels)
    draws = 4000
    hits = 0
    for _ in range(draws):
        lab = labels.copy()
        for i in np.unique(items):
            where = np.flatnonzero(items == i)
            lab[where] = rng.permutation(lab[where])
        hits += stat(lab) >= observed - 1e-12
    hand = (hits + 1) / (draws + 1)
    assert test.statistic == pytest.approx(observed, abs=1e-12)
    assert test.pvalue == pytest.approx(hand, abs=4 * np.sqrt(hand * (1 - hand) / draws) + 2e-3)


def test_an_unbalanced_temperature_is_refused_as_a_confound_with_its_test():
    rows = drawn_rows(unbalanced=0.5)
    with pytest.raises(ValidationError) as caught:
        analyze(rows, metric="y", probe=Probe(random_settings=["temperature"]))
    (problem,) = caught.value.problems
    assert problem.code == "confounded_setting" and problem.severity == "error"
    assert "declared drawn at random per call" in problem.message
    assert "a permutation test of independence within items gives p = 0.0001" in problem.message


def test_undeclared_the_varying_temperature_is_refused_with_the_declaration_offered():
    with pytest.raises(ValidationError) as caught:
        analyze(drawn_rows(), metric="y")
    message = caught.value.problems[0].message
    assert "when it was drawn at random for every call, with Probe(random_settings=['temperature'])" in message


def test_stratified_and_adjusted_are_both_shown_in_the_terminal_the_report_and_json(tmp_path, capsys):
    rows = drawn_rows()
    result = analyze(rows, metric="y", probe=Probe(random_settings=["temperature"]))
    buffer = io.StringIO()
    render_terminal(result, Console(file=buffer, width=400))
    out = buffer.getvalue()
    assert "temperature was drawn at random per call" in out and "Stratified (" in out and "Adjusted (" in out
    md = render_report(result, format="md")
    summary = md.split("## Summary", 1)[1].split("\n## ", 1)[0]
    assert "Stratified (" in summary and "Adjusted (OLS with item intercepts" in summary
    path = tmp_path / "log.csv"
    pl.DataFrame(rows).write_csv(path)
    assert main(["analyze", str(path), "--metric", "y", "--random-setting", "temperature", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (drawn,) = data["random_settings"]
    assert drawn["adjusted"]["gap"] == pytest.approx(result.drawn[0].adjusted.gap)
    assert drawn["stratified"]["average_gap"] == pytest.approx(result.drawn[0].stratified.average_gap)
    assert drawn["balance"]["p"] > 0.05
    bad = tmp_path / "bad.csv"
    pl.DataFrame(drawn_rows(unbalanced=0.5)).write_csv(bad)
    assert main(["analyze", str(bad), "--metric", "y", "--random-setting", "temperature"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: 1 validation error: temperature was declared drawn at random per call")
    assert "p = 0.0001" in err and "--by temperature" in err


def test_a_setting_the_many_values_analysis_cannot_read_is_refused_not_ignored():
    rows = drawn_rows(items=8, runs=2)
    three = rows + [dict(r, variant="c") for r in rows if r["variant"] == "b"]
    with pytest.raises(OptionError, match=r"^settings=\['temperature'\] matches the items of two values within blocks; with more than two values the analysis does not use it"):
        analyze(three, metric="y", probe=Probe(settings=["temperature"]))
    with pytest.raises(OptionError, match=r"^random_settings=\['temperature'\] checks a setting drawn per call for balance between two compared values; with more than two values the analysis does not use it"):
        analyze(three, metric="y", probe=Probe(random_settings=["temperature"]), reference="a")


def test_an_unmapped_temperature_column_is_never_called_absent(tmp_path):
    rows = [{("gpt_temperature" if k == "temperature" else k): v for k, v in r.items()} for r in drawn_rows()]
    result = analyze(rows, metric="y")
    md = render_report(result, format="md")
    assert "no model, temperature or system prompt column" not in md
    assert "records no settings" not in md and "not recorded in the log" not in md
    assert "'gpt\\_temperature' looks like the temperature" in md
    declared = analyze(rows, metric="y", probe=Probe(random_settings=["gpt_temperature"]))
    assert declared.drawn[0].column == "gpt_temperature"


def test_a_text_setting_drawn_per_call_is_tested_by_its_table_and_adjusted_by_one_term_per_level():
    import statsmodels.formula.api as smf
    from scipy.stats import chi2_contingency

    rng = np.random.default_rng(22)
    rows = []
    for i in range(20):
        level = rng.normal(0, 1)
        for v in ("a", "b"):
            for s in range(6):
                prompt = str(rng.choice(["p1", "p2", "p3"]))
                y = level + {"p1": 0.0, "p2": 1.0, "p3": -1.0}[prompt] + (0.7 if v == "a" else 0.0) + rng.normal()
                rows.append({"item": str(i), "variant": v, "seed": s, "wrapper": prompt, "y": y})
    result = analyze(rows, metric="y", probe=Probe(random_settings=["wrapper"]))
    (drawn,) = result.drawn
    assert not drawn.balance.numeric and drawn.strata == 3
    frame = pl.DataFrame(rows)
    table = frame.pivot(on="wrapper", index="variant", values="y", aggregate_function="len").drop("variant")
    # the statistic is the Pearson chi-square of the value x level table (no continuity correction)
    assert drawn.balance.statistic == pytest.approx(chi2_contingency(table.to_numpy(), correction=False)[0],
                                                    rel=1e-9)
    data = frame.with_columns((pl.col("variant") == "a").cast(pl.Float64).alias("is_a")).to_pandas()
    fit = smf.ols("y ~ C(item) + is_a + C(wrapper)", data=data).fit()
    assert drawn.adjusted.gap == pytest.approx(fit.params["is_a"], abs=1e-9)
    assert drawn.adjusted.se == pytest.approx(fit.bse["is_a"], rel=1e-9)
    assert drawn.adjusted.setting_terms["wrapper=p2"] == pytest.approx(fit.params["C(wrapper)[T.p2]"], abs=1e-9)


def test_validate_takes_the_declaration_and_checks_the_balance(tmp_path, capsys):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    pl.DataFrame(drawn_rows()).write_csv(good)
    pl.DataFrame(drawn_rows(unbalanced=0.5)).write_csv(bad)
    assert main(["validate", str(good), "--metric", "y"]) == 1   # undeclared, it is a confounded setting
    assert "--random-setting temperature" in capsys.readouterr().out
    assert main(["validate", str(good), "--metric", "y", "--random-setting", "temperature"]) == 0
    capsys.readouterr()
    assert main(["validate", str(bad), "--metric", "y", "--random-setting", "temperature", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    (problem,) = data["problems"]
    assert problem["code"] == "confounded_setting" and "p = 0.0001" in problem["message"]


def test_an_honest_draw_unbalanced_by_chance_is_adjusted_for_and_said_not_refused():
    # seed 45: a temperature drawn from one U(0, 1.5) under both values whose balance test gives p = 0.002 by
    # chance alone; it was refused as a confound. Its standardized difference (0.32) is far below 0.5.
    rows = drawn_rows(seed=45)
    result = analyze(rows, metric="y", probe=Probe(random_settings=["temperature"]))
    (drawn,) = result.drawn
    frame = pl.DataFrame(rows)
    ta = frame.filter(pl.col("variant") == "a")["temperature"].to_numpy()
    tb = frame.filter(pl.col("variant") == "b")["temperature"].to_numpy()
    pooled = np.sqrt(((len(ta) - 1) * ta.var(ddof=1) + (len(tb) - 1) * tb.var(ddof=1)) / (len(ta) + len(tb) - 2))
    assert drawn.balance.size == pytest.approx(abs(ta.mean() - tb.mean()) / pooled, rel=1e-12)
    assert drawn.balance.pvalue <= 0.05 and drawn.balance.size < 0.5 and not drawn.balance.tracks(0.05)
    (caveat,) = [c for c in result.verdict.caveats if c.id == "random_setting"]
    assert ("is unbalanced across 'a' and 'b' (permutation test of independence, p = 0.0016) by less than a "
            f"setting that tracks the value (standardized difference {drawn.balance.size:.2g}, below 0.5)"
            in caveat.sentence)
    assert "adjusted for rather than refused; read the adjusted gap beside the headline" in caveat.sentence
    assert caveat.figures["unbalanced"] is True
    assert "balance" in json.loads(json.dumps(result.to_dict()))["random_settings"][0]


def test_honest_draws_are_never_refused_and_a_draw_that_tracks_the_value_always_is():
    from probestats.analyses.drawn import balance_test

    refused = sum(balance_test(pl.DataFrame(drawn_rows(items=12, runs=4, seed=s)), "temperature", "a", "b",
                               n_resamples=999).tracks(0.05) for s in range(100))
    assert refused <= 5 + 2 * (100 * 0.05 * 0.95) ** 0.5   # at most alpha within two Monte Carlo SE (measured: 0)
    tracked = sum(balance_test(pl.DataFrame(drawn_rows(items=12, runs=4, unbalanced=0.6, seed=s)), "temperature",
                               "a", "b", n_resamples=999).tracks(0.05) for s in range(20))
    assert tracked == 20


def test_a_text_setting_that_tracks_the_value_is_refused_with_its_share_distance():
    rng = np.random.default_rng(3)
    rows = [{"item": str(i), "variant": v, "seed": s, "y": float(rng.normal()),
             "persona": ("p1" if (v == "a") == (rng.random() < 0.8) else "p2")}
            for i in range(20) for v in ("a", "b") for s in range(4)]
    frame = pl.DataFrame(rows)
    share = {v: frame.filter(pl.col("variant") == v)["persona"].eq("p1").mean() for v in ("a", "b")}
    distance = abs(share["a"] - share["b"])   # two levels: half the sum of |differences| is this one
    with pytest.raises(ValidationError) as caught:
        analyze(rows, metric="y", probe=Probe(random_settings=["persona"]))
    (problem,) = caught.value.problems
    assert problem.code == "confounded_setting" and "tracks the compared value" in problem.message
    assert f"its total variation distance is {distance:.2f} (at least 0.25" in problem.message
