"""The engines of ``probestats/analyses`` take the objects, not their fields one by one; no function in the
package is wide or long.

An engine takes the log, a ``Question`` (what is compared), a ``Probe`` (what the log's columns mean) and a
``Tests`` (how the tests are run), and reads ``tests.alpha`` or ``probe.cluster`` where it uses them: no
function below the jobs spells a field of ``Tests`` or ``Probe`` again as a parameter, and none takes more
than 12 parameters besides the log and the objects. A new choice is then added to one object, not threaded
through every signature. The exceptions still standing are listed here, each with why; the list may only
shrink (an entry no longer needed fails, so it is taken out).

Across the whole package, a function takes fewer than 10 parameters (the values that travel together go in one
object: ``Question``, ``Probe``, ``Tests``, ``Run``, a result, a small frozen dataclass) and holds at most 80
statements (a phase of a long function, where a comment marks one, is a function of its own). The goal is at
most 15 wide functions and no long one; those still standing are listed below by name, and the lists may only
shrink: a new wide or long function fails, so does one grown wider or longer than listed, and so does an
entry no longer needed.
"""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

from probestats.shape.probe import Probe
from probestats.vocabulary import Tests

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "probestats"
ANALYSES = PACKAGE / "analyses"
#: the log and the objects, which any engine may take besides its own parameters
OBJECTS = {"log", "probe", "tests", "design"}
MOST = 12
FIELDS = {f.name for f in fields(Tests)} | {f.name for f in fields(Probe)}

#: functions with more than MOST parameters besides the objects, by "module:function" (the count); none stands now:
#: the planner's choices travel on its Sizing (probestats.analyses.plan.Sizing) beside Tests
WIDE: dict[str, int] = {}

#: parameters named after a field of Tests or Probe, by "module:function", still standing:
#: - public functions whose signatures callers know (probestats.compare_runs, compare_control, analyze_order,
#:   check_coding, the planner's noise_model) and what they call;
#: - the statistics helpers below the engines (a test, an interval, a caveat, a verdict, the within-log halves:
#:   compare_pair, omnibus_test, block_agreement, balance_test, the cluster bootstraps, decide, half_sums), which
#:   take the one or two numbers they compute with from their engine's ``tests`` and are tested directly with them;
#: - names that only coincide with a Probe field (a helper's own ``columns``, ``count`` or ``code``, the
#:   ``settings`` a block search is given).
NAMED = {
    # blocks
    "blocks:between_groups_test": ('n_resamples', 'seed'),
    "blocks:block_agreement": ('columns', 'groups'),
    # clusters
    "clusters:_at_cluster_level": ('interval', 'n_resamples', 'seed'),
    "clusters:_interval_kind": ('interval',),
    "clusters:cluster_bootstrap": ('n_resamples', 'seed'),
    "clusters:cluster_bootstrap_interval": ('n_resamples', 'seed'),
    "clusters:cluster_effect_sizes": ('n_resamples', 'seed'),
    "clusters:cluster_interval": ('alternative', 'n_resamples', 'seed'),
    "clusters:cluster_sign_flip_interval": ('n_resamples', 'seed'),
    # compare
    "compare:compare_results": ('alternative',),
    "compare:compare_runs": ('alpha', 'alternative', 'fold_case'),
    # control
    "control:_conclusion": ('alpha',),
    "control:_value_text": ('fold_case',),
    "control:compare_control": ('alpha', 'correction', 'fold_case'),
    "control:log_values": ('fold_case',),
    # describe
    "describe:_describe": ('n_resamples', 'seed'),
    "describe:describe_log": ('n_resamples', 'seed'),
    "describe:rater_agreement": ('n_resamples', 'seed'),
    # drawn
    "drawn:balance_test": ('n_resamples', 'seed'),
    "blocks:heterogeneity_test": ('alpha', 'n_resamples', 'seed'),   # the studentized test, called by tests alone
    "reference:_bootstrap": ('n_resamples', 'seed'),   # the spread ratio's interval, a resampling helper
    "drawn:drawn_caveat": ('alpha',),   # a sentence's level, and the two rules it reads
    "drawn:tracks": ('alpha',),
    "drawn:unbalanced": ('alpha',),
    # factors_many_levels
    "factors_many_levels:factorial_tests": ('correction', 'n_resamples', 'seed'),
    "factors_many_levels:permutation_test": ('n_resamples', 'seed'),
    # framing
    "framing:_framing_verdict": ('alpha',),
    "framing:_pattern": ('alpha',),
    "framing:_warn_small_cell": ('alpha',),
    "framing:check_framing_interval": ('interval',),
    # framing_binary
    "framing_binary:binary_pattern": ('alpha',),
    # framing_input
    "framing_input:_wide_columns": ('columns',),
    # halves
    "halves:_bases": ('code', 'seed'),
    "halves:_value_terms": ('count',),
    "halves:block_noun": ('columns',),
    "halves:blocks_of": ('settings',),
    "halves:first_half_flags": ('seed',),
    "halves:half_sums": ('seed',),
    "halves:named_setting_refusal": ('settings',),
    "halves:random_halves": ('seed',),
    # hand_labels
    "hand_labels:_corrected": ('n_resamples', 'seed'),
    "hand_labels:check_coding": ('alpha', 'n_resamples', 'seed'),
    "hand_labels:with_validation": ('n_resamples', 'seed'),
    # judge
    "judge:_reading": ('alpha',),
    "judge:analyze_order": ('alpha', 'correction'),
    "judge:analyze_scored": ('alpha', 'correction'),
    # noise_check
    "noise_check:noise_check_of": ('alpha',),
    # omnibus
    "omnibus:omnibus_test": ('alpha', 'n_resamples', 'seed'),
    # pair_tests
    "pair_tests:design_problems": ('alpha',),
    # plan/ranges
    "plan/ranges:resampled_logs": ('seed',),
    # plan/search
    "plan/search:_directions": ('alternative',),
    "plan/search:_z_alpha": ('alpha', 'alternative'),
    "plan/search:check_common": ('alpha', 'alternative', 'seed'),
    "plan/search:mdg_sim_error": ('alpha', 'alternative'),
    "plan/search:normal_mdg": ('alpha', 'alternative'),
    "plan/search:realized_gap": ('alternative',),
    # plan/simulate
    "plan/simulate:__init__": ('alpha', 'alternative'),
    "plan/simulate:approx_mdg": ('alpha', 'alternative'),
    "plan/simulate:approx_power": ('alpha', 'alternative'),
    "plan/simulate:direction_of": ('alternative',),
    "plan/simulate:draw_probes": ('seed',),
    "plan/simulate:reject_rate": ('alpha', 'alternative'),
    "plan/simulate:sign_test_rate": ('alpha', 'alternative'),
    # plan/table
    "plan/table:_bounded_problem": ('alpha',),
    "plan/table:design_power": ('seed',),
    # rowlevel
    "rowlevel:_tests": ('alternative', 'correction'),
    "rowlevel:per_group_welch": ('alternative', 'correction'),
    "rowlevel:per_item_welch": ('alternative', 'correction'),
    # verdict
    "verdict:decide": ('alpha', 'attribute_settings'),
    "verdict:decide_change": ('alpha',),
    "verdict:decide_effects": ('alpha',),
    "verdict:decide_many": ('alpha',),
}


def _functions():
    for path in sorted(ANALYSES.rglob("*.py")):
        module = path.relative_to(ANALYSES).with_suffix("").as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
                names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
                yield f"{module}:{node.name}", [n for n in names if n not in ("self", "cls")]


def test_the_checks_see_the_engines():
    seen = dict(_functions())
    # the walk reaches the engines, and the field names are read from the objects themselves
    assert "dispatch:analyze_shaped" in seen and "paired:analyze_pair" in seen and "plan/search:power_sign_flip" in seen
    assert {"alpha", "seed", "n_resamples", "correction", "where", "derive", "fold_case", "cluster",
            "random_settings", "settings", "attribute_settings"} <= FIELDS


def test_no_engine_takes_more_than_twelve_parameters_besides_the_objects():
    wide = {}
    for name, params in _functions():
        own = [p for p in params if p not in OBJECTS]
        if len(own) > MOST:
            wide[name] = len(own)
    assert sorted(set(wide) - set(WIDE)) == [], {n: wide[n] for n in set(wide) - set(WIDE)}
    assert sorted(set(WIDE) - set(wide)) == [], "no longer wide: take them out of WIDE"


def test_no_engine_parameter_is_named_after_a_field_of_tests_or_probe():
    named = {}
    for name, params in _functions():
        spelled = sorted(p for p in params if p in FIELDS)
        if spelled:
            named[name] = spelled
    extra = {n: sorted(set(p) - set(NAMED.get(n, ()))) for n, p in named.items() if set(p) - set(NAMED.get(n, ()))}
    assert extra == {}, "read these from tests or probe instead"
    stale = {n: sorted(set(p) - set(named.get(n, ()))) for n, p in NAMED.items() if set(p) - set(named.get(n, ()))}
    assert stale == {}, "no longer spelled: take them out of NAMED"


# ------------------------------------------------------------------ imports at module top

#: the most of the package's own imports that may sit inside functions, as a share of all of them. What stays
#: inside says why in a comment: the lazy boundary (a command's job, imported when the command runs; the
#: package's lazy attributes), the analysis module a mode asks for (off the paired analysis's path), a module
#: that would pull scipy, statsmodels, matplotlib or jinja2 into a command that does not use it
#: (tests/test_start.py holds that start-up), and a name a test replaces on its module
MOST_INSIDE = 0.15


def _own(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level > 0 or (node.module or "").startswith("probestats")
    return any(alias.name.startswith("probestats") for alias in node.names)


def _own_imports(package: Path) -> tuple[list, list]:
    """Every import of the package's own modules under ``package``, and those inside a function, each as
    (path, line, whether it says why): a comment on its line or the line above, or, for an import right below
    another, the comment heading their group."""
    import io
    import tokenize

    every, inside = [], []
    for path in sorted(package.rglob("*.py")):
        text = path.read_text()
        tree = ast.parse(text)
        commented = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                     if tok.type == tokenize.COMMENT}
        lines = text.splitlines()
        said = {}
        for node in ast.walk(tree):
            for block in (getattr(node, name, None) for name in ("body", "orelse", "finalbody")):
                previous = None
                for statement in block if isinstance(block, list) else ():
                    if isinstance(statement, (ast.Import, ast.ImportFrom)):
                        said[id(statement)] = (statement.lineno in commented
                                               or (statement.lineno > 1 and lines[statement.lineno - 2].lstrip().startswith("#"))
                                               or (previous is not None and previous.end_lineno == statement.lineno - 1
                                                   and said[id(previous)]))
                        previous = statement
                    else:
                        previous = None
        in_function = {id(node) for function in ast.walk(tree)
                       if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
                       for node in ast.walk(function)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and _own(node):
                entry = (str(path.relative_to(package.parent)), node.lineno, said.get(id(node), False))
                every.append(entry)
                if id(node) in in_function:
                    inside.append(entry)
    return every, inside


def test_the_package_imports_its_own_modules_at_module_top():
    every, inside = _own_imports(ROOT / "probestats")
    assert len(every) > 500                               # the walk sees the package
    assert len(inside) <= MOST_INSIDE * len(every), f"{len(inside)} of {len(every)} inside functions"


def test_each_import_left_inside_a_function_says_why():
    _, inside = _own_imports(ROOT / "probestats")
    silent = [f"{path}:{line}" for path, line, said in inside if not said]
    assert silent == [], "an import inside a function without a comment saying why:\n" + "\n".join(silent)


def test_the_count_sees_imports_inside_functions_and_their_comments(tmp_path):
    package = tmp_path / "probestats"
    package.mkdir()
    (package / "a.py").write_text(
        "import json\n"
        "from probestats.errors import opt\n\n\n"
        "def f():\n"
        "    from probestats.limits import MAX_ROWS   # lazy: a reason\n\n\n"
        "def g():\n"
        "    # lazy: a reason for the two below\n"
        "    from . import b\n"
        "    import probestats.c\n\n"
        "    import probestats.d\n")
    every, inside = _own_imports(package)
    assert len(every) == 5                               # json is not the package's own
    assert inside == [("probestats/a.py", 6, True), ("probestats/a.py", 11, True), ("probestats/a.py", 12, True),
                      ("probestats/a.py", 14, False)]


#: a function with this many parameters or more is wide (``self`` and ``cls`` not counted; ``*args`` and
#: ``**kwargs`` one each)
WIDE_AT = 10
#: the most wide functions the package may hold, once the list below has shrunk to it
WIDE_GOAL = 15
#: a function with more statements than this is long (every statement in it, nested ones included)
LONG_OVER = 80

#: the wide functions still standing, by "path:function" (path below probestats/, without .py) and their
#: parameters, each at most this wide; the list may only shrink. Each is a public function whose keyword
#: signature users know (probestats.compare_runs, compare_control, analyze_order, read_log, the analyses'
#: wrappers in jobs/engines and the job behind each command); below them the options travel as objects.
WIDE_FUNCTIONS = {
    "analyses/compare:compare_runs": 12,
    "analyses/control:compare_control": 10,
    "analyses/judge:analyze_order": 12,
    "io/read:read_log": 10,
    "jobs/analyze:analyze": 19,
    "jobs/engines:analyze_factors": 10,
    "jobs/engines:analyze_framing": 15,
    "jobs/engines:analyze_many": 14,
    "jobs/framing:framing": 13,
    "jobs/judge:judge": 13,
    "jobs/plan:plan": 19,
    "jobs/report:report": 19,
    "jobs/sql:sql": 13,
}

#: the long functions still standing, by "path:function" and their statements, each at most this long; the
#: list may only shrink (none stands)
LONG_FUNCTIONS: dict[str, int] = {}


def _package_functions(root: Path = PACKAGE):
    """Every function below ``root`` (methods and nested functions too): its "path:function" name, its
    parameters and its statements, counted as :data:`WIDE_AT` and :data:`LONG_OVER` say."""
    for path in sorted(root.rglob("*.py")):
        module = path.relative_to(root).with_suffix("").as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                named = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)
                         if a.arg not in ("self", "cls")]
                width = len(named) + (args.vararg is not None) + (args.kwarg is not None)
                statements = sum(isinstance(s, ast.stmt) for s in ast.walk(node)) - 1
                yield f"{module}:{node.name}", width, statements


def _widest(measure: int, root: Path = PACKAGE) -> dict:
    """The functions by name with their largest ``measure`` (1: parameters, 2: statements), a name
    several functions share counted at its largest."""
    out: dict = {}
    for row in _package_functions(root):
        out[row[0]] = max(out.get(row[0], 0), row[measure])
    return out


def test_the_package_checks_count_as_a_reader_does(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "mod.py").write_text(
        "class C:\n"
        "    def method(self, a, b=1, *rest, c, **more):\n"   # self not counted; *rest and **more one each
        "        x = a\n"
        "        if x:\n"
        "            x += 1\n"
        "        def inner(cls, d, /, e):\n"                   # cls not counted, d positional-only
        "            return d\n"
        "        return x\n")
    widths, lengths = _widest(1, tmp_path), _widest(2, tmp_path)
    # by hand: a, b, rest, c, more; d, e. Statements: x =, if, x +=, def, return d, return x; return d
    assert widths == {"sub/mod:method": 5, "sub/mod:inner": 2}
    assert lengths == {"sub/mod:method": 6, "sub/mod:inner": 1}
    # and the package's walk reaches the engines, the jobs, the readers and the report
    names = set(_widest(1))
    assert {"analyses/paired:analyze_pair", "jobs/report:_report", "io/read:read_log",
            "present/report/document:render_report"} <= names


def test_no_new_wide_function_in_the_package():
    widths = _widest(1)
    wide = {name: n for name, n in widths.items() if n >= WIDE_AT}
    new = {name: n for name, n in wide.items() if name not in WIDE_FUNCTIONS}
    assert new == {}, f"{WIDE_AT} parameters or more: pass the objects that travel (Question, Probe, Tests, Run, " \
                      "a result) or a small frozen dataclass of the values that go together"
    wider = {name: (n, WIDE_FUNCTIONS[name]) for name, n in wide.items() if n > WIDE_FUNCTIONS.get(name, n)}
    assert wider == {}, "wider than listed: the list may only shrink"
    stale = sorted(set(WIDE_FUNCTIONS) - set(wide))
    assert stale == [], "no longer wide: take them out of WIDE_FUNCTIONS"
    assert len(wide) <= len(WIDE_FUNCTIONS)


def test_no_new_long_function_in_the_package():
    lengths = _widest(2)
    long = {name: n for name, n in lengths.items() if n > LONG_OVER}
    new = {name: n for name, n in long.items() if name not in LONG_FUNCTIONS}
    assert new == {}, f"more than {LONG_OVER} statements: make each phase a function of its own"
    longer = {name: (n, LONG_FUNCTIONS[name]) for name, n in long.items() if n > LONG_FUNCTIONS.get(name, n)}
    assert longer == {}, "longer than listed: the list may only shrink"
    stale = sorted(set(LONG_FUNCTIONS) - set(long))
    assert stale == [], "no longer long: take them out of LONG_FUNCTIONS"
