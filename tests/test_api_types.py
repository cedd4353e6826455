"""The Python API checks the type of every argument when the object is made (a Probe, a Tests) and when a public
function starts: a wrong type is refused with a ProbestatsError naming the parameter as a Python caller writes it,
never an AttributeError or TypeError from deep inside; a string where a list is expected is one name."""

from __future__ import annotations

import pytest

import probestats
from probestats import Probe, ProbestatsError, Tests

PROBE = "sample_logs/style_probe.csv"


def _analyze(**options):
    return probestats.analyze(PROBE, **{"metric": "steps", **options})


@pytest.mark.parametrize("call, named", [
    (lambda: Tests(effect_size=None), "effect_size=None"),
    (lambda: Tests(interval=5), "interval=5"),
    (lambda: Probe(columns="item"), "Probe(columns='item')"),
    (lambda: Probe(columns=[("item",)]), "Probe(columns=[('item',)])"),
    (lambda: Probe(lookup=("weights.csv", "item")), "Probe(lookup=['weights.csv', 'item'])"),
    (lambda: Probe(skip_rows="1"), "Probe(skip_rows='1')"),
    (lambda: Probe(skip_rows=-1), "Probe(skip_rows=-1)"),
    (lambda: Probe(where=5), "Probe(where=5)"),
    (lambda: Probe(encoding=5), "Probe(encoding=5)"),
    (lambda: Probe(derive=5), "Probe(derive=5)"),
    (lambda: Probe(fold_case="yes"), "Probe(fold_case='yes')"),
    (lambda: Probe(sheet=1.5), "Probe(sheet=1.5)"),
    (lambda: Probe(max_cells="many"), "Probe(max_cells='many')"),
    (lambda: _analyze(probe={"where": "seed = 1"}), "probe={'where': 'seed = 1'}"),
    (lambda: _analyze(metric=1), "metric=1"),
    (lambda: _analyze(metric=None), "metric=None"),
    (lambda: _analyze(progress="yes"), "progress='yes'"),
    (lambda: _analyze(by=5), "by=5"),
    (lambda: _analyze(factor=[1, 2]), "factor=[1, 2]"),
    (lambda: probestats.report(PROBE, metric="steps", output=123), "output=123"),
    (lambda: probestats.report(PROBE, metric="steps", format="pdf"), "format='pdf'"),
    (lambda: probestats.report(PROBE, metric="steps", output="r.md", format="pdf"), "format='pdf'"),
    (lambda: probestats.report(PROBE, metric="steps", sections=5), "sections=5"),
    (lambda: probestats.report(PROBE, metric="steps", templates=5), "templates=5"),
    (lambda: probestats.cells(PROBE, metric="steps", output=1.5), "output=1.5"),
    (lambda: probestats.describe(PROBE, metric=2), "metric=2"),
    (lambda: probestats.validate(PROBE, metric="steps", probe="seed = 1"), "probe='seed = 1'"),
    (lambda: probestats.plan(PROBE, metric="steps", progress=3), "progress=3"),
    (lambda: probestats.judge(PROBE, order="variant", by=7), "by=7"),
    (lambda: probestats.compare(PROBE, PROBE, metric="steps", probe=[]), "probe=[]"),
    (lambda: probestats.read_log(PROBE, skip_rows="1"), "skip_rows='1'"),
    (lambda: probestats.read_log(PROBE, columns="item"), "columns='item'"),
    (lambda: probestats.read_log(PROBE, encoding=5), "encoding=5"),
    (lambda: probestats.describe(PROBE, metric="steps", bins=5), "bins='5'"),
    (lambda: _analyze(scale=5), "scale=5"),
    (lambda: probestats.sql(table="logs", metric=5), "metric=5"),
    (lambda: probestats.sql(table="logs", metric="steps", where=5), "where=5"),
    (lambda: probestats.report(PROBE, metric="steps", judge=5), "judge=5"),
])
def test_a_wrong_type_is_refused_naming_the_parameter(call, named):
    with pytest.raises(ProbestatsError) as info:
        call()
    message = str(info.value)
    assert message.startswith(named + ":"), message
    assert "\n" not in message and "Traceback" not in message


def test_a_refusal_for_a_flat_lookup_shows_the_pair_it_meant():
    with pytest.raises(ProbestatsError, match=r"for example Probe\(lookup=\[\('weights.csv', 'item'\)\]\)"):
        Probe(lookup=("weights.csv", "item"))


def test_a_string_where_a_list_is_expected_is_one_name_never_its_characters():
    with pytest.raises(ProbestatsError) as info:
        _analyze(by="rs")
    assert "'rs'" in str(info.value) and "'r'" not in str(info.value)
    with pytest.raises(ProbestatsError) as info:
        _analyze(factor="rs")
    assert "'r'" not in str(info.value)
    # a name that is a column is read as that column: the same analysis as the list of it
    one = _analyze(by="model", a="formal", b="casual")
    listed = _analyze(by=["model"], a="formal", b="casual")
    assert [g.by for g in one.groups] == [g.by for g in listed.groups] == [{"model": "stand-in-v1"}]
    assert Probe(derive="x = steps + 1").derive == ("x = steps + 1",)
    table = probestats.report(PROBE, metric="steps", sections="table").text
    assert table == probestats.report(PROBE, metric="steps", sections=["table"]).text
    assert table.startswith("## Per-item table")


def test_the_columns_the_refusals_advise_are_taken_as_a_mapping():
    # a column mapping naming no header advises columns={'nope': 'rs'}: that advice is a Probe the API takes
    with pytest.raises(ProbestatsError) as info:
        _analyze(probe=Probe(columns=(("nope", "rs"),)))
    assert str(info.value).startswith("columns={'nope': 'rs'}: no header 'rs'")
    with pytest.raises(ProbestatsError, match=r"^columns=\{'nope': 'rs'\}: no header 'rs'"):
        _analyze(probe=Probe(columns={"nope": "rs"}))
    renamed = [{"Question": r["item"], "variant": r["variant"], "steps": r["steps"]}
               for r in probestats.read_log(PROBE).frame.to_dicts()]
    as_dict = probestats.analyze(renamed, metric="steps", probe=Probe(columns={"item": "Question"}))
    as_pairs = probestats.analyze(renamed, metric="steps", probe=Probe(columns=(("item", "Question"),)))
    assert as_dict.main.sign_flip.pvalue == as_pairs.main.sign_flip.pvalue
    assert as_dict.main.n_items == _analyze().main.n_items == 8


def test_a_refusal_of_a_type_on_the_command_line_names_the_flag():
    from probestats.errors import cli_spelling
    from probestats.vocabulary import column_names

    with cli_spelling(), pytest.raises(ProbestatsError, match=r"^--by 5: expected a column name"):
        column_names("by", 5)
