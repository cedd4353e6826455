"""The fourth campaign's classes in the campaign: Python calls with arguments of the wrong type (api_types) and logs
whose names are spreadsheet formulas (csv_formulas); ``benchmarks/fuzz.py --categories api_types,csv_formulas``
runs them long."""

from __future__ import annotations

from tests.hostile.campaign import _API_FOUND, PYTHON_CALL, generate, run_case, table


def _report(outcomes) -> str:
    return table(outcomes) + "".join(f"\n{o.case.note!r} {o.failures} exit {o.code}: {o.err[-400:]!r}"
                                     for o in outcomes if o.failures)


def test_every_call_the_campaign_found_is_refused_naming_its_parameter(tmp_path):
    cases, i = [], 0
    while len({c.note for c in cases if c.refuse}) < len(_API_FOUND):   # each found call once, and some drawn
        cases += [c for c in generate(8, seed=i, categories=["api_types"]) if c.note not in {d.note for d in cases}]
        i += 1
    outcomes = [run_case(case, tmp_path / str(n)) for n, case in enumerate(cases)]
    assert not any(o.failures for o in outcomes), _report(outcomes)
    found = [o for o in outcomes if o.case.refuse]
    assert all(o.code == 1 and o.err.startswith("Error: ") and o.err.count("\n") == 1 for o in found), _report(found)
    assert {o.case.argv[0] for o in outcomes} == {PYTHON_CALL}


def test_a_case_of_each_kind_of_formula_log_writes_no_formula(tmp_path):
    kinds = {}
    for case in generate(40, seed=4, categories=["csv_formulas"]):
        kinds.setdefault(case.note.split()[0], case)
    assert set(kinds) == {"cells", "cells_runs", "report", "per_item"}
    outcomes = [run_case(case, tmp_path / str(n)) for n, case in enumerate(kinds.values())]
    assert not any(o.failures for o in outcomes), _report(outcomes)
    assert {o.code for o in outcomes} == {0}
    written = [p for p in tmp_path.rglob("*.csv") if p.name != "log.csv"]
    assert written   # the check ran on CSVs the runs wrote
