"""How a job's tests are run is one ``Tests``; what a log's columns mean is its ``Probe``: each is checked when
made, read the same way by the library and the command line, and refused by a job that has no use for it."""

from __future__ import annotations

import json

import pytest

import probestats
from probestats import Probe, Tests
from probestats.cli import main
from probestats.errors import OptionError, ReadError
from probestats.jobs.framing import result_json

PROBE = "sample_logs/style_probe.csv"
NOISE = "sample_logs/style_noise.csv"
FRAMING = "sample_logs/framing_long.csv"


@pytest.mark.parametrize("given, message", [
    ({"interval": "wald"}, "interval='wald': expected one of t, bootstrap, percentile, sign-flip"),
    ({"effect_size": "hedges"}, "effect_size='hedges': expected one of d_z, d_av, g_z, g_av"),
    ({"alpha": 0}, "alpha=0: expected a number between 0 and 1, for example 0.05"),
])
def test_a_bad_choice_is_refused_when_the_tests_are_made(given, message):
    with pytest.raises(OptionError) as info:
        Tests(**given)
    assert str(info.value) == message


def test_tests_that_are_not_a_tests_object_are_refused():
    with pytest.raises(OptionError, match=r"^tests=\{'alpha': 0.01\}: expected a probestats.Tests"):
        probestats.analyze(PROBE, metric="steps", tests={"alpha": 0.01})


def _cli_json(capsys, *argv) -> dict:
    capsys.readouterr()
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("tests, flags", [
    (Tests(effect_size="g_z"), ["--effect-size", "g_z"]),
    (Tests(alpha=0.01, interval="bootstrap", n_resamples=500, seed=4),
     ["--alpha", "0.01", "--interval", "bootstrap", "--n-resamples", "500", "--seed", "4"]),
    (Tests(alternative="greater"), ["--alternative", "greater"]),
])
def test_the_flags_fill_the_tests_the_library_call_takes(capsys, tests, flags):
    metric = "steps,words" if tests.effect_size == "g_z" else "steps"
    rows = [dict(r, words=str(int(r["steps"]) * 3 + int(r["seed"]) % 4)) for r in
            probestats.read_log(PROBE).frame.drop("_row").to_dicts()] if tests.effect_size == "g_z" else None
    if rows is not None:   # two metrics: the table of several metrics shows the effect size chosen
        import polars as pl

        path = pl.DataFrame(rows)
        library = probestats.analyze(path, metric=metric, tests=tests)
        default = probestats.analyze(path, metric=metric)
        assert json.loads(result_json(library)) != json.loads(result_json(default))
        assert "g_z" in result_json(library) and "g_z" not in result_json(default)
        return
    library = json.loads(result_json(probestats.analyze(PROBE, metric=metric, noise=NOISE, tests=tests)))
    command = _cli_json(capsys, "analyze", PROBE, "--metric", metric, "--noise", NOISE, *flags)
    assert library == command
    assert library != json.loads(result_json(probestats.analyze(PROBE, metric=metric, noise=NOISE)))


def test_a_column_role_in_the_probe_is_what_the_flag_gives(capsys):
    library = json.loads(result_json(probestats.analyze(PROBE, metric="steps", probe=Probe(settings="seed"))))
    command = _cli_json(capsys, "analyze", PROBE, "--metric", "steps", "--setting", "seed")
    # the one difference is the interface a fix is named in: a parameter in Python, a flag on the command line
    assert "a noise log with noise)" in json.dumps(library)
    assert json.loads(json.dumps(library).replace("a noise log with noise)", "a noise log with --noise)")) == command
    assert library != json.loads(result_json(probestats.analyze(PROBE, metric="steps")))
    assert Probe(settings="seed").settings == ("seed",) and Probe(cluster="").cluster is None


@pytest.mark.parametrize("call", [
    lambda probe: probestats.describe(PROBE, metric="steps", probe=probe),
    lambda probe: probestats.compare(PROBE, PROBE, metric="steps", probe=probe),
    lambda probe: probestats.framing(FRAMING, probe=probe),
    lambda probe: probestats.plan(NOISE, metric="steps", items=[8], runs=[5], sims=20, probe=probe),
    lambda probe: probestats.cells(PROBE, metric="steps", probe=probe),
    lambda probe: probestats.judge(PROBE, order="variant", choice="steps", verdicts=["first=1"], probe=probe),
], ids=["describe", "compare", "framing", "plan", "cells", "judge"])
def test_a_job_that_reads_no_column_roles_refuses_them(call):
    for role, value in (("settings", ("seed",)), ("attribute_settings", ("model",)), ("cluster", "doc"),
                        ("random_settings", ("temperature",))):
        with pytest.raises(OptionError, match=f"^{role}=.* belongs to the analysis of a log's values"):
            call(Probe(**{role: value}))


def test_validate_reads_the_roles_it_checks_and_refuses_the_others():
    assert probestats.validate(PROBE, metric="steps", probe=Probe(random_settings=("seed",))).ok
    for role, value in (("settings", ("seed",)), ("cluster", "seed")):
        with pytest.raises(OptionError, match=f"^{role}=.* the validation does not read it"):
            probestats.validate(PROBE, metric="steps", probe=Probe(**{role: value}))


def test_the_report_takes_the_analysiss_keywords_and_refuses_any_other():
    by_keyword = probestats.report(PROBE, metric="steps", a="casual", b="formal", format="json").text
    assert json.loads(by_keyword)["a"] == "casual"
    # the report takes row_level as analyze does (it had no tests on runs before); a keyword of analyze's that a
    # report has no section for is refused
    assert "### Tests on runs" in probestats.report(PROBE, metric="steps", row_level=True).text
    with pytest.raises(TypeError, match=r"^report\(\) got an unexpected keyword argument 'axes' \(it takes "
                                        r"the analysis's keywords a, b, noise, by,"):
        probestats.report(PROBE, metric="steps", axes=["gender", "race"])


def test_a_cell_table_object_says_to_give_its_file(tmp_path):
    built = probestats.cells(PROBE, metric="steps")
    with pytest.raises(ReadError, match=r"^a cell table is read from its file: write it with "
                                        r"probestats.cells\(\.\.\., output=FILE\) and give FILE$"):
        probestats.analyze(built, metric="steps")
    written = tmp_path / "cells.parquet"
    probestats.cells(PROBE, metric="steps", output=written)
    assert probestats.analyze(written, metric="steps").main.n_items == 8


def test_the_tests_keep_their_values_as_checked_and_the_default_interval_may_be_said():
    assert Tests(n_resamples=999.0).n_resamples == 999 and type(Tests(n_resamples=999.0).n_resamples) is int
    assert Tests(interval="t").changed() == {}
    plain = probestats.plan(NOISE, metric="steps", items=[8], runs=[5], gap=1.0, sims=50)
    said = probestats.plan(NOISE, metric="steps", items=[8], runs=[5], gap=1.0, sims=50, tests=Tests(interval="t"))
    assert json.loads(result_json(said)) == json.loads(result_json(plain))
    with pytest.raises(OptionError, match=r"^seed=None does not apply to the comparison of two runs: leave it out$"):
        probestats.compare(PROBE, PROBE, metric="steps", tests=Tests(seed=None))


@pytest.mark.parametrize("keyword, message", [
    ({"alpha": 0.01}, "(give it inside tests=Tests(alpha=0.01))"),
    ({"cluster": "doc"}, "(give it inside probe=Probe(cluster='doc'))"),
])
def test_a_report_given_a_test_choice_or_role_as_a_keyword_says_where_it_goes(keyword, message):
    with pytest.raises(TypeError) as info:
        probestats.report(PROBE, metric="steps", **keyword)
    assert str(info.value) == f"report() got an unexpected keyword argument {next(iter(keyword))!r} {message}"


def test_an_effect_size_refused_for_one_metric_is_named_as_given():
    with pytest.raises(OptionError, match=r"^effect_size='g_av' chooses the effect size a table of several metrics"):
        probestats.analyze(PROBE, metric="steps", tests=Tests(effect_size="g_av"))


TARGETS = "sample_logs/framing_targets.csv"
JUDGE = {"order": "variant", "choice": "steps", "verdicts": ["first=1"], "repetition": "seed"}


@pytest.fixture(scope="module")
def two_metrics(tmp_path_factory):
    """The sample probe with a second metric, words, that varies within items."""
    import polars as pl

    path = tmp_path_factory.mktemp("two") / "two.csv"
    frame = probestats.read_log(PROBE).frame.drop("_row")
    frame.with_columns(words=(pl.col("steps").cast(int) * 3 + pl.col("seed").cast(int) % 4).cast(str)).write_csv(path)
    return str(path)


@pytest.fixture(scope="module")
def cell_table(tmp_path_factory):
    path = tmp_path_factory.mktemp("cells") / "cells.parquet"
    probestats.cells(PROBE, metric="steps", output=path)
    return str(path)


@pytest.mark.parametrize("call, message", [
    (lambda two, cells: probestats.report(PROBE, metric="steps", tests=Tests(correction="bonferroni")),
     r"^correction='bonferroni' corrects across by groups .* has one test"),
    (lambda two, cells: probestats.report(cells, metric="steps", tests=Tests(correction="bonferroni")),
     r"^correction='bonferroni' corrects across by groups .* has one test"),
    (lambda two, cells: probestats.analyze(cells, metric="steps", tests=Tests(correction="bonferroni")),
     r"^correction='bonferroni' corrects across by groups .* has one test"),
    (lambda two, cells: probestats.report(PROBE, metric="steps", tests=Tests(effect_size="d_av")),
     r"^effect_size='d_av' chooses the effect size a table of several metrics shows"),
    (lambda two, cells: probestats.analyze(cells, metric="steps", tests=Tests(effect_size="g_av")),
     r"^effect_size='g_av' chooses the effect size a table of several metrics shows"),
    (lambda two, cells: probestats.report(framing_log=FRAMING, targets=TARGETS, tests=Tests(seed=5)),
     r"^seed=5 does not apply to the report of a framing log alone: leave it out$"),
    (lambda two, cells: probestats.report(framing_log=FRAMING, targets=TARGETS, probe=Probe(cluster="topic")),
     r"^cluster='topic' belongs to the analysis of a log's values .* the report of a framing log alone does not"),
    (lambda two, cells: probestats.report(PROBE, judge=JUDGE, tests=Tests(alternative="less")),
     r"^alternative='less' does not apply to the report of an order probe alone: leave it out$"),
    (lambda two, cells: probestats.report(PROBE, judge=JUDGE, probe=Probe(random_settings="seed")),
     r"^random_settings=\['seed'\] belongs to the analysis of a log's values"),
    (lambda two, cells: probestats.analyze(two, metric="steps,words", probe=Probe(settings="seed")),
     r"^settings=\['seed'\] applies to the analysis of one metric; a table of several metrics does not read it"),
    (lambda two, cells: probestats.report(two, metric="steps,words", probe=Probe(attribute_settings="system")),
     r"^attribute_settings=\['system'\] applies to the analysis of one metric"),
    (lambda two, cells: probestats.analyze(two, metric="steps,words", noise_value="formal"),
     r"^noise_value='formal' applies to the analysis of one metric"),
], ids=["report-correction", "report-cells-correction", "analyze-cells-correction", "report-effect-size",
        "analyze-cells-effect-size", "framing-report-seed", "framing-report-role", "judge-report-alternative",
        "judge-report-role", "metrics-settings", "metrics-report-attribute", "metrics-noise-value"])
def test_a_report_or_analysis_refuses_a_choice_its_path_does_not_read(two_metrics, cell_table, call, message):
    with pytest.raises(OptionError, match=message):
        call(two_metrics, cell_table)


def test_the_report_of_a_framing_log_or_an_order_probe_uses_the_interval_and_the_correction():
    plain = probestats.report(framing_log=FRAMING, targets=TARGETS, format="json").text
    flipped = probestats.report(framing_log=FRAMING, targets=TARGETS, format="json",
                                tests=Tests(interval="sign-flip")).text
    assert "sign-flip test inversion" in flipped and "sign-flip test inversion" not in plain
    job = probestats.framing(FRAMING, targets=TARGETS, tests=Tests(interval="sign-flip"))
    assert json.loads(flipped)["framing"]["cells"] == json.loads(result_json(job))["cells"]
    holm = probestats.report(PROBE, judge=JUDGE, format="json").text
    bonferroni = probestats.report(PROBE, judge=JUDGE, format="json", tests=Tests(correction="bonferroni")).text
    assert holm != bonferroni and "bonferroni" in bonferroni.lower()


@pytest.mark.parametrize("given, message", [
    ({"cluster": ["doc", "page"]}, "cluster=['doc', 'page']: expected one column name, for example cluster='passage'"),
    ({"cluster": 3}, "cluster=3: expected one column name, for example cluster='passage'"),
    ({"settings": ["seed", 2]}, "settings=['seed', 2]: expected column names, for example settings=['seed']"),
])
def test_a_column_role_that_names_no_columns_is_refused_when_the_probe_is_made(given, message):
    with pytest.raises(OptionError) as info:
        Probe(**given)
    assert str(info.value) == message
    assert Probe(cluster=("doc",)).cluster == "doc"


def test_a_tests_made_anywhere_is_held_to_the_resample_limit_where_its_job_runs():
    # the limit is the one in force when the job starts: a Tests made before a raised() block runs inside it,
    # and the same Tests is refused outside it with the fix (raise the limit), never when it is made
    from probestats.limits import raised

    many = Tests(n_resamples=1_500_000)
    log, noise = PROBE, NOISE
    with raised(resamples=1_500_000):
        inside = probestats.analyze(log, metric="steps", noise=noise, tests=many)
    assert inside.verdict.conclusion == "detected"
    with pytest.raises(OptionError, match=r"n_resamples=1500000: more than the limit of 1,000,000 resamples.*"
                                          r"raise the limit with probestats\.limits\.raised\(resamples=1500000\)"):
        probestats.analyze(log, metric="steps", noise=noise, tests=many)
    few = Tests(n_resamples=200)
    with raised(resamples=100), pytest.raises(OptionError, match="more than the limit of 100 resamples"):
        probestats.describe(log, metric="steps", tests=few)
