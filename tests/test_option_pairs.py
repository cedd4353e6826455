"""Every combination of options either works or is refused: no option changes nothing in silence.

The test runs ``analyze --json`` on small generated logs with each option alone and with every pair of
options, and fails when adding an option to another leaves the output as it was while the command
succeeded. The only options allowed to change nothing are the settings of random draws (``--seed``,
``--n-resamples``), and only where the output says nothing was drawn at random (every test exact).
"""

from __future__ import annotations

import contextlib
import json
import io
import itertools
import re

import numpy as np
import polars as pl
import pytest

from probestats.cli import main

#: one non-default setting of each option, on a log with three values A, B, C
OPTIONS = {
    "pair": ["--a", "B", "--b", "A"],
    "by": ["--by", "grp"],
    "alternative": ["--alternative", "greater"],
    "alpha": ["--alpha", "0.2"],
    "correction": ["--correction", "bonferroni"],
    "reference": ["--reference", "B"],
    "n_resamples": ["--n-resamples", "60"],
    "seed": ["--seed", "3"],
    "interval": ["--interval", "sign-flip"],
    "hedges": ["--effect-size", "g_z"],
    "d_av": ["--effect-size", "d_av"],
    "noise_value": ["--noise-value", "A"],
    "no_noise": ["--noise", "none"],
    "row_level": ["--row-level"],
    "metrics": ["--metric", "steps,y"],
    "group": ["--group", "AB=A,B", "--group", "C=C"],
    "scale": ["--scale", "0:20"],
    "where": ["--where", "item != 0"],
}
#: options of a two-factor log (style × name), each paired with the factor analysis
FACTOR_OPTIONS = {k: OPTIONS[k] for k in ("by", "alternative", "alpha", "correction", "n_resamples", "seed",
                                         "interval", "hedges", "noise_value", "no_noise", "scale", "where")}
#: settings of random draws: they may change nothing where nothing is drawn at random
RANDOM_SETTINGS = {"seed", "n_resamples"}
DRAWN = re.compile(r"\d[\d,]* resamples|seed \d|monte.carlo|random(?!_settings\b)", re.IGNORECASE)   # not the key random_settings


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("option_pairs")
    rng = np.random.default_rng(7)
    rows = [{"item": i, "variant": v, "seed": s, "grp": f"g{i % 2}",
             "steps": int(rng.integers(0, 8)) + 2 * (v == "A") + (v == "C"), "y": int(rng.integers(0, 8))}
            for i in range(6) for v in ("A", "B", "C") for s in range(4)]
    three = folder / "three.csv"
    pl.DataFrame(rows).write_csv(three)
    rows = [{"item": i, "style": st, "name": nm, "seed": s, "grp": f"g{i % 2}",
             "steps": int(rng.integers(0, 6)) + (st == "formal"), "y": int(rng.integers(0, 6))}
            for i in range(8) for st in ("formal", "casual") for nm in ("Emily", "Greg") for s in range(3)]
    factor = folder / "factor.csv"
    pl.DataFrame(rows).write_csv(factor)
    return three, factor


def run(log, keys, options, extra=()):
    # few resamples throughout (the option itself, later on the line, sets another number), so the runs are quick
    args = ["analyze", str(log), *(() if "metrics" in keys else ("--metric", "steps")), "--n-resamples", "200", *extra]
    for k in keys:
        args += options[k]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([*args, "--json"])
    text = out.getvalue() + err.getvalue()
    assert "Traceback" not in text, args
    if code != 0:   # a refusal: one line naming the option
        assert code in (1, 2) and err.getvalue().startswith("Error:") and len(err.getvalue().strip().splitlines()) == 1, \
            (args, err.getvalue())
    return code, out.getvalue()


def silent_options(log, options, extra=()) -> list[str]:
    """Each (given, added) pair where adding an option succeeded and changed nothing, with no reason to."""
    runs = {(): run(log, (), options, extra)}
    for k in options:
        runs[(k,)] = run(log, (k,), options, extra)
    for x, y in itertools.combinations(options, 2):
        runs[(x, y)] = run(log, (x, y), options, extra)
    silent = []
    for keys, (code, out) in runs.items():
        if code != 0:
            continue
        for added in keys:
            before = tuple(k for k in keys if k != added)
            code_before, out_before = runs[before]
            if code_before != 0 or out_before != out:
                continue
            if added in RANDOM_SETTINGS and not DRAWN.search(out):
                continue   # nothing in this output was drawn at random, and it says every method it used
            silent.append(f"{' '.join(sum((options[k] for k in before), [])) or '(defaults)'} + "
                          f"{' '.join(options[added])}")
    return silent


def test_every_option_of_analyze_changes_the_output_or_is_refused(logs):
    three, _ = logs
    assert silent_options(three, OPTIONS) == []


def test_every_option_beside_factor_changes_the_output_or_is_refused(logs):
    _, factor = logs
    silent = silent_options(factor, FACTOR_OPTIONS, extra=("--factor", "style", "--factor", "name"))
    assert silent == []


def test_by_with_factor_gives_each_groups_analysis_corrected_together(logs, capsys):
    # --by with --factor was refused; each group's two-factor analysis is now given, p corrected across every
    # effect of every group (Holm over 2 groups x 7 effects, statsmodels as the reference)
    from statsmodels.stats.multitest import multipletests

    from probestats import analyze_factors

    _, factor = logs
    code = main(["analyze", str(factor), "--metric", "steps", "--factor", "style", "--factor", "name", "--by", "grp",
                 "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["kind"] == "factor_set" and data["family"] == 14
    log = pl.read_csv(factor)
    raw = []
    for entry in data["analyses"]:
        alone = analyze_factors(log.filter(pl.col("grp") == entry["group"]["grp"]), metric="steps",
                                factors=["style", "name"])
        for got, want in zip(entry["analysis"]["effects"], alone.effects):
            assert got["average"] == pytest.approx(want.average, abs=1e-12) and got["p"] == want.sign_flip.pvalue
            raw.append(got["p"])
    adjusted = multipletests(raw, method="holm")[1]
    got = [e["p_adjusted"] for entry in data["analyses"] for e in entry["analysis"]["effects"]]
    assert got == pytest.approx(list(adjusted), rel=1e-12)


def test_several_metrics_with_a_and_b_never_ask_for_a_and_b(logs, capsys):
    three, _ = logs
    for json_out in ((), ("--json",)):
        code = main(["analyze", str(three), "--metric", "steps,y", "--a", "A", "--b", "B", *json_out])
        out = capsys.readouterr().out
        assert code == 0 and "give --a and --b" not in out
    assert "each metric's analysis has its noise check beside its own gap" in out
