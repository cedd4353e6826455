"""The hostile-input campaign, long: at least 10,000 generated cases across every category.

Prints a table of categories x runs, exit codes, and each kind of failure (tracebacks, aborts, exit
codes other than 0/1/2, "unexpected" errors, multi-line errors, inputs modified, raw control
characters in any output, unescaped HTML markers, anything left behind by a refused run, an absolute
or temporary path in an error, a secret beside a template folder in any output), with the peak memory (maximum resident set,
of this process for in-process cases and of the children for the others). Every column but the
runs should read 0.

    PYTHONPATH=. python benchmarks/fuzz.py --cases 10000 --seed 1 [--children 200] [--limits 20] [--categories tool_logs,rust_regex]

Cases run in this process through ``probestats.cli.main`` (fast); the cases that could abort a
process (corrupt Parquet, spreadsheets of huge extent) run in child processes under a 4 GB
address-space limit, and so do the writes that fail under a file-size limit.

Fourth campaign, API types and CSV formulas (categories ``api_types``, ``csv_formulas``; failure column
``csv_formula``): Python calls with arguments of the wrong type, run in this process, each answered or refused
with one ``Error:`` line (the calls the campaign found: refused naming the parameter); logs whose item, value
and model names are spreadsheet formulas through every command that writes a CSV, no text cell of which may
start a formula.

    PYTHONPATH=. python benchmarks/fuzz.py --cases 400 --children 0 --categories api_types,csv_formulas
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.hostile.campaign import CATEGORIES, generate, run_case, table  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000, help="cases run in this process")
    parser.add_argument("--children", type=int, default=200, help="cases run in child processes")
    parser.add_argument("--sizes", type=int, default=0,
                        help="cases of sizes the work grows with, each in a child under 4 GB and 60 s")
    parser.add_argument("--limits", type=int, default=20,
                        help="cases of raised column limits, each in a child under 4 GB and 60 s")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--show", type=int, default=30, help="failing cases to print")
    parser.add_argument("--every", type=int, default=500, help="print a partial table every this many cases")
    parser.add_argument("--categories", default=None,
                        help=f"comma-separated categories of the in-process cases (default all: {','.join(CATEGORIES)})")
    args = parser.parse_args()
    chosen = args.categories.split(",") if args.categories else None
    unknown = sorted(set(chosen or ()) - set(CATEGORIES))
    if unknown:
        parser.error(f"unknown categories {', '.join(unknown)}; choose from {', '.join(CATEGORIES)}")
    cases = generate(args.cases, seed=args.seed, categories=chosen, children=False)
    cases += [c for c in generate(args.children * 2, seed=args.seed + 1,
                                  categories=["parquet", "spreadsheets", "failing_writes"]) if c.child][: args.children]
    # the fourth campaign's child cases: logs wider than the column limit with the limit raised past them
    cases += generate(args.limits, seed=args.seed + 3, categories=["raised_limits"]) if args.limits else []
    cases += generate(args.sizes, seed=args.seed + 2, categories=["sizes"]) if args.sizes else []
    started = time.perf_counter()
    outcomes = []
    with tempfile.TemporaryDirectory() as folder:
        for i, case in enumerate(cases):
            where = Path(folder) / str(i)
            outcome = run_case(case, where)
            outcome.out = outcome.out[-2000:]  # keep memory flat over 10,000 cases
            outcome.case.files = {}
            outcomes.append(outcome)
            shutil.rmtree(where, ignore_errors=True)
            if (i + 1) % args.every == 0:  # a partial table, so a run cut short still says what it found
                print(f"{i + 1} cases, {time.perf_counter() - started:.0f} s\n{table(outcomes)}\n", file=sys.stderr,
                      flush=True)
    print(table(outcomes))
    print(f"\n{len(outcomes)} cases ({len(cases) - sum(c.child for c in cases)} in process, "
          f"{sum(c.child for c in cases)} in child processes), "
          f"seed {args.seed}, {time.perf_counter() - started:.0f} s")
    failed = [o for o in outcomes if o.failures]
    for o in failed[: args.show]:
        print(f"{o.case.category} {o.case.note!r} {o.failures} exit {o.code}: {o.case.argv!r}\n"
              f"  stderr: {o.err[-300:]!r}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
