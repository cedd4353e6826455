"""The hostile-input campaign, bounded: 180 generated cases in this process (about ten of each of its 18
in-process categories; 700 with ``PROBESTATS_FULL=1``) and 26 in child processes.

Each case is a broken or hostile input (see ``campaign.py`` for the categories) run through the
command line; the run fails on any traceback, abort, exit code other than 0/1/2, ``Error: unexpected``,
``Error:`` message over several lines, input modified, raw control character in any output,
unescaped HTML marker, anything left behind by a refused run, an absolute or temporary path in an
error, or the secret beside a template folder in any output. ``benchmarks/fuzz.py`` runs the same campaign long.
"""

from __future__ import annotations

import pytest

from tests.budget import draws
from tests.hostile.campaign import CATEGORIES, generate, run_case, table

#: the cases are drawn in turn from each category, so the bounded run is the first 180 of the full 700
IN_PROCESS = draws(180, 700)
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
    assert {c.category for c in cases} >= set(CATEGORIES) - {"parquet", "failing_writes", "sizes", "raised_limits"}
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


def test_every_huge_size_is_answered_or_refused_within_its_bounds(tmp_path):
    # one case of each kind of the 'sizes' category (a 16,384-column sheet, 5,000 values, 20 x 20 factor levels,
    # 10,000 groups, a 500-design plan, 10^18 resamples), each in a child under 4 GB and 60 s: an answer or a
    # one-line refusal naming the limit, never an abort or a timeout
    kinds = {}
    for case in generate(60, seed=3, categories=["sizes"]):
        kinds.setdefault(case.note, case)
    assert len(kinds) == 6, sorted(kinds)
    outcomes = [run_case(case, tmp_path / str(i)) for i, case in enumerate(kinds.values())]
    assert not any(o.failures for o in outcomes), _report(outcomes)


def test_writes_that_fail_under_a_file_size_limit_leave_nothing(tmp_path):
    # a child process whose files may not grow past a few bytes to a few KB: every write fails part way
    cases = generate(8, seed=11, categories=["failing_writes"])
    outcomes = [run_case(case, tmp_path / str(i)) for i, case in enumerate(cases)]
    assert not any(o.failures for o in outcomes), _report(outcomes)
    assert {o.code for o in outcomes} <= {0, 1} and 1 in {o.code for o in outcomes}


@pytest.mark.parametrize("category", CATEGORIES)
def test_the_generator_is_seeded(category):
    first = generate(3, seed=5, categories=[category], children=True)
    again = generate(3, seed=5, categories=[category], children=True)
    assert [(c.argv, c.files) for c in first] == [(c.argv, c.files) for c in again]
