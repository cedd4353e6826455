"""Two attributes at once: within-level gaps, main effects and their interaction, across items."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from probestats.errors import ColumnError, OptionError
from probestats import analyze_factors
from probestats.analyses.factors import runs_note


def brute_sign_flip(gaps) -> float:
    """All 2**n sign patterns; two-sided."""
    obs = abs(sum(gaps))
    hits = sum(abs(sum(s * g for s, g in zip(signs, gaps))) >= obs - 1e-9 * max(obs, 1e-12)
               for signs in itertools.product((1, -1), repeat=len(gaps)))
    return hits / 2 ** len(gaps)


def two_by_two(items=8, runs=3, style_gap=1.0, name_gap=0.0, interaction=1.0, seed=0):
    """formal/casual × Emily/Greg; formal gets style_gap, Greg name_gap, formal Greg also the interaction."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(items):
        base = 5 + rng.normal(0, 0.5)
        for r in range(runs):
            for style in ("formal", "casual"):
                for name in ("Emily", "Greg"):
                    x = base + style_gap * (style == "formal") + name_gap * (name == "Greg") \
                        + interaction * (style == "formal" and name == "Greg") + rng.normal(0, 1)
                    rows.append({"item": str(i), "style": style, "name": name, "seed": r + 1, "steps": round(x)})
    return pl.DataFrame(rows)


def test_effects_match_a_direct_computation():
    log = two_by_two(seed=4)
    result = analyze_factors(log, metric="steps", factors=["style", "name"])
    cell = log.group_by("item", "style", "name").agg(pl.col("steps").mean())
    w = cell.pivot(on=["style", "name"], index="item", values="steps").sort(pl.col("item").cast(pl.Int64))
    fe, fg = w["{\"formal\",\"Emily\"}"].to_numpy(), w["{\"formal\",\"Greg\"}"].to_numpy()
    ce, cg = w["{\"casual\",\"Emily\"}"].to_numpy(), w["{\"casual\",\"Greg\"}"].to_numpy()
    expected = {
        "style within name = Emily": fe - ce,
        "style within name = Greg": fg - cg,
        "style": ((fe - ce) + (fg - cg)) / 2,
        "name within style = formal": fe - fg,
        "name within style = casual": ce - cg,
        "name": ((fe - fg) + (ce - cg)) / 2,
        "interaction": (fe - ce) - (fg - cg),
    }
    assert [e.name for e in result.effects] == list(expected)
    for e in result.effects:
        assert e.average == pytest.approx(expected[e.name].mean(), abs=1e-12)
        assert e.sign_flip.pvalue == pytest.approx(brute_sign_flip(list(expected[e.name])), rel=1e-12)
    assert result.runs_per_cell == 3 and result.levels == (("formal", "casual"), ("Emily", "Greg"))
    assert all(e.p_adjusted >= e.sign_flip.pvalue for e in result.effects)
    data = result.to_dict()
    assert "four times for the interaction" in data["note"] and data["kind"] == "factors"


def test_planted_interaction_is_found():
    # formal − casual is 1 among Emily and 1 + 3 among Greg: interaction −3 on every item
    result = analyze_factors(two_by_two(items=10, interaction=3.0, seed=1), metric="steps", factors=["style", "name"])
    inter = result.effect("interaction")
    assert inter.average < -2 and inter.sign_flip.pvalue < 0.01


def test_runs_note_arithmetic():
    # a pair with k runs per value: gap variance 2σ²/k over 2k runs. A 2×2 with k per cell (4k runs):
    # within-level gap 2σ²/k (twice the runs), interaction 4σ²/k, which needs 2k per cell (8k = four times)
    assert "twice the runs of one pair" in runs_note() and "four times for the interaction" in runs_note()
    assert "interaction as precise as a pair with 2.5 runs per value" in runs_note(5)


def test_bad_factors():
    log = two_by_two(items=3)
    # the library names its parameters; the command line says the same with flags (test_cli_factors)
    with pytest.raises(OptionError, match=r"factors: give exactly two factors \(got 1\), for example \['style', 'name'\]"):
        analyze_factors(log, metric="steps", factors=["style"])
    with pytest.raises(ColumnError, match="factors='tone': no such column; headers seen: item, style, name, seed, steps"):
        analyze_factors(log, metric="steps", factors=["style", "tone"])
    three = pl.concat([log, log.filter(pl.col("name") == "Greg").with_columns(pl.lit("Jamal").alias("name"))])
    # three levels are no longer refused: the I × J analysis takes them (tests/test_factorial.py)
    from probestats.analyses.factors_many_levels import FactorialAnalysis

    result = analyze_factors(three, metric="steps", factors=["style", "name"])
    assert isinstance(result, FactorialAnalysis) and result.levels[1] == ("Emily", "Greg", "Jamal")
    one = log.filter(pl.col("name") == "Greg")
    with pytest.raises(OptionError, match="factors='name' has 1 level"):
        analyze_factors(one, metric="steps", factors=["style", "name"])


cells = st.lists(st.tuples(*[st.integers(0, 4)] * 4), min_size=1, max_size=6)


@settings(max_examples=30, deadline=None)
@given(cells)
def test_properties(values):
    rows = [{"item": str(i), "style": s, "name": n, "x": float(v)}
            for i, four in enumerate(values)
            for (s, n), v in zip(itertools.product(("formal", "casual"), ("Emily", "Greg")), four)]
    one = analyze_factors(rows, metric="x", factors=["style", "name"])
    swapped = analyze_factors(rows, metric="x", factors=["name", "style"])
    for e in one.effects:
        assert 0 < e.sign_flip.pvalue <= 1
    # the interaction is the same difference of differences whichever factor comes first
    assert swapped.effect("interaction").average == pytest.approx(one.effect("interaction").average, abs=1e-12)
    assert swapped.effect("interaction").sign_flip.pvalue == pytest.approx(one.effect("interaction").sign_flip.pvalue)
    assert swapped.effect("style").sign_flip.pvalue == pytest.approx(one.effect("style").sign_flip.pvalue)
    # reversing item order changes nothing
    back = analyze_factors(rows[::-1], metric="x", factors=["style", "name"])
    # (reversed rows also reverse level order: casual/Greg first, so gaps change sign; two-sided p does not)
    for e in one.effects:
        f = back.effect(e.name)
        assert f.average == pytest.approx(-e.average if e.name != "interaction" else e.average, abs=1e-12)
        assert f.sign_flip.pvalue == pytest.approx(e.sign_flip.pvalue)


def test_cli_factors(tmp_path, capsys):
    import json

    from probestats.cli import main
    from tests.factories import write_log

    path = write_log(two_by_two(items=6, seed=2), tmp_path / "two.csv")
    code = main(["analyze", str(path), "--metric", "steps", "--factor", "style", "--factor", "name", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert [e["effect"] for e in data["effects"]][-1] == "interaction"
    code = main(["analyze", str(path), "--metric", "steps", "--factor", "style", "--factor", "name"])
    out, err = capsys.readouterr()
    assert code == 0 and "four times for the interaction" in out
    code = main(["analyze", str(path), "--metric", "steps", "--factor", "style"])
    out, err = capsys.readouterr()
    assert code == 1
    assert err == "Error: --factor: give exactly two factors (got 1), for example --factor style --factor name\n"


def test_means_too_large_to_subtract_are_refused():
    log = two_by_two(items=4, runs=1).with_columns(
        pl.when(pl.col("style") == "formal").then(1e308).otherwise(-1e308).alias("steps"))
    with pytest.raises(OptionError, match="too large to compare"):
        analyze_factors(log, metric="steps", factors=["style", "name"])


def test_declared_level_order_sets_the_interaction_sign():
    """Levels declared in the opposite order of their appearance: the effects follow the declared order, and the
    interaction equals the hand contrast and the treatment-coded OLS interaction coefficient (statsmodels)."""
    import statsmodels.formula.api as smf

    # a bump planted on formal × Greg; appearance: formal before casual, Emily before Greg
    log = two_by_two(items=8, interaction=2.0, seed=3)
    result = analyze_factors(log, metric="steps", factors=["style=casual,formal", "name=Greg,Emily"])
    assert result.levels == (("casual", "formal"), ("Greg", "Emily"))
    cell = log.group_by("item", "style", "name").agg(pl.col("steps").mean()).to_pandas()
    m = cell.pivot_table(index="item", columns=["style", "name"], values="steps")
    cg, ce, fg, fe = m[("casual", "Greg")], m[("casual", "Emily")], m[("formal", "Greg")], m[("formal", "Emily")]
    inter = result.effect("interaction")
    assert inter.average == pytest.approx(((cg - fg) - (ce - fe)).mean(), abs=1e-12)
    assert result.effect("style").average == pytest.approx(((cg - fg) + (ce - fe)).mean() / 2, abs=1e-12)
    assert result.effect("name").average == pytest.approx(((cg - ce) + (fg - fe)).mean() / 2, abs=1e-12)
    fit = smf.ols("steps ~ C(style, Treatment('casual')) * C(name, Treatment('Greg')) + C(item)", data=cell).fit()
    coefficient = fit.params["C(style, Treatment('casual'))[T.formal]:C(name, Treatment('Greg'))[T.Emily]"]
    assert inter.average == pytest.approx(coefficient, abs=1e-9)
    assert inter.average < 0   # formal's bump is among Greg, the first declared name level
    assert result.interaction_in_words.startswith("interaction negative: the style gap ('casual' − 'formal') is "
                                                  "larger among 'Emily' runs than among 'Greg' runs; 'formal × Greg'"
                                                  " and 'casual × Emily' together are higher")
    assert result.to_dict()["interaction_in_words"] == result.interaction_in_words

    # one factor declared against its appearance: the interaction's sign follows the declaration
    flipped = analyze_factors(log, metric="steps", factors=["style=casual,formal", "name=Emily,Greg"])
    appearance = analyze_factors(log, metric="steps", factors=["style", "name"])
    fit = smf.ols("steps ~ C(style, Treatment('casual')) * C(name, Treatment('Emily')) + C(item)", data=cell).fit()
    coefficient = fit.params["C(style, Treatment('casual'))[T.formal]:C(name, Treatment('Emily'))[T.Greg]"]
    assert flipped.effect("interaction").average == pytest.approx(coefficient, abs=1e-9)
    assert flipped.effect("interaction").average == pytest.approx(((ce - fe) - (cg - fg)).mean(), abs=1e-12)
    assert flipped.effect("interaction").average > 0
    assert appearance.effect("interaction").average == pytest.approx(-flipped.effect("interaction").average,
                                                                     abs=1e-12)
    assert flipped.interaction_in_words.startswith("interaction positive: the style gap ('casual' − 'formal') is "
                                                   "larger among 'Emily' runs than among 'Greg' runs")


def test_declared_levels_must_name_every_level():
    log = two_by_two(items=4)
    with pytest.raises(OptionError, match="no runs have 'plain'.*the log also has 'formal'"):
        analyze_factors(log, metric="steps", factors=["style=casual,plain", "name"])
    with pytest.raises(OptionError, match="two levels or more, each once"):
        analyze_factors(log, metric="steps", factors=["style=casual,casual", "name"])
    with pytest.raises(ColumnError):
        analyze_factors(log, metric="steps", factors=["tone=casual,formal", "name"])


def test_declared_order_reaches_the_larger_design():
    rows = [{"item": i, "dose": d, "name": n, "x": {"high": 2.0, "mid": 1.0, "low": 0.0}[d] * (n == "B") + i}
            for i in range(4) for d in ("high", "low", "mid") for n in ("A", "B")]
    result = analyze_factors(rows, metric="x", factors=["dose=low,mid,high", "name"])
    assert result.levels[0] == ("low", "mid", "high")
    assert list(result.to_dict()["cell_means"])[:2] == ["low × A", "low × B"]


def test_several_metrics_with_factors_are_corrected_as_one_family():
    from statsmodels.stats.multitest import multipletests

    import probestats
    from probestats.analyses.factors import FactorSet

    log = two_by_two(items=8, interaction=2.0, seed=6).with_columns((pl.col("steps") * 3 - pl.col("seed")).alias("y"))
    result = probestats.analyze(log, metric="steps,y", factor=["style=casual,formal", "name"])
    assert isinstance(result, FactorSet) and result.metrics == ("steps", "y") and result.family == 14
    raw = []
    for metric, group, analysis in result.analyses:
        alone = analyze_factors(log, metric=metric, factors=["style=casual,formal", "name"])
        assert group == {} and analysis.levels == alone.levels == (("casual", "formal"), ("Emily", "Greg"))
        for got, want in zip(analysis.effects, alone.effects):
            assert got.average == want.average and got.sign_flip.pvalue == want.sign_flip.pvalue
            raw.append(want.sign_flip.pvalue)
    adjusted = [e.p_adjusted for _, _, a in result.analyses for e in a.effects]
    assert adjusted == pytest.approx(list(multipletests(raw, method="holm")[1]), rel=1e-12)
    data = result.to_dict()
    assert data["kind"] == "factor_set" and [a["metric"] for a in data["analyses"]] == ["steps", "y"]


def test_a_report_of_factors_per_group_is_refused_in_one_line(tmp_path):
    import probestats

    path = tmp_path / "factors.csv"
    two_by_two(items=6).with_columns(pl.col("item").cast(pl.Int64).mod(2).alias("grp")).write_csv(path)
    with pytest.raises(OptionError, match="a report of two factors covers one metric of the whole log; drop by"):
        probestats.report(str(path), metric="steps", factor=["style", "name"], by=["grp"], output=tmp_path / "r.md")
