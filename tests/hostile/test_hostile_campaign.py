"""The hostile-input campaign, bounded for CI: 560 generated cases in this process and 12 in child processes.

Each case is a broken or hostile input (see ``campaign.py`` for the categories) run through the
command line; the run fails on any traceback, abort, exit code other than 0/1/2, ``Error: unexpected``,
``Error:`` message over several lines, input modified, raw control character in any output, or
unescaped HTML marker. ``benchmarks/fuzz.py`` runs the same campaign long.
"""

from __future__ import annotations

import pytest

from tests.hostile.campaign import CATEGORIES, generate, run_case, table

IN_PROCESS = 560
CHILDREN = 12


def _report(outcomes) -> str:
    failed = [o for o in outcomes if o.failures]
    lines = [table(outcomes)]
    for o in failed[:20]:
        lines.append(f"{o.case.category} {o.case.note!r} {o.failures} exit {o.code}: {o.case.argv!r}\n"
                     f"  stderr: {o.err[-500:]!r}")
    return "\n".join(lines)


def test_no_case_of_the_campaign_crashes_leaks_or_overwrites(tmp_path):
    cases = generate(IN_PROCESS, seed=2024, children=False)
    assert {c.category for c in cases} >= set(CATEGORIES) - {"parquet"}
    outcomes = [run_case(case, tmp_path / str(i)) for i, case in enumerate(cases)]
    assert not any(o.failures for o in outcomes), _report(outcomes)
    # the campaign exercised both sides: runs that worked and runs refused with an error
    codes = {o.code for o in outcomes}
    assert {0, 1} <= codes


def test_cases_that_could_abort_a_process_run_in_a_child_and_do_not(tmp_path):
    # corrupt Parquet files and spreadsheets whose extent asks for billions of cells, under a 4 GB
    # address-space limit: an abort here kills only the child, and counts as a failure
    cases = [c for c in generate(30, seed=7, categories=["parquet", "spreadsheets"]) if c.child][:CHILDREN]
    assert len(cases) == CHILDREN
    outcomes = [run_case(case, tmp_path / str(i)) for i, case in enumerate(cases)]
    assert not any(o.failures for o in outcomes), _report(outcomes)


@pytest.mark.parametrize("category", CATEGORIES)
def test_the_generator_is_seeded(category):
    first = generate(3, seed=5, categories=[category], children=True)
    again = generate(3, seed=5, categories=[category], children=True)
    assert [(c.argv, c.files) for c in first] == [(c.argv, c.files) for c in again]
