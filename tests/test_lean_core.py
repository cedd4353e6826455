"""The engines of ``probestats/analyses`` take the objects, not their fields one by one.

An engine takes the log, a ``Question`` (what is compared), a ``Probe`` (what the log's columns mean) and a
``Tests`` (how the tests are run), and reads ``tests.alpha`` or ``probe.cluster`` where it uses them: no
function below the jobs spells a field of ``Tests`` or ``Probe`` again as a parameter, and none takes more
than 12 parameters besides the log and the objects. A new choice is then added to one object, not threaded
through every signature. The exceptions still standing are listed here, each with why; the list may only
shrink (an entry no longer needed fails, so it is taken out).
"""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

from probestats.shape.probe import Probe
from probestats.vocabulary import Tests

ROOT = Path(__file__).resolve().parent.parent
ANALYSES = ROOT / "probestats" / "analyses"
#: the log and the objects, which any engine may take besides its own parameters
OBJECTS = {"log", "probe", "tests", "design"}
MOST = 12
FIELDS = {f.name for f in fields(Tests)} | {f.name for f in fields(Probe)}

#: functions with more than MOST parameters besides the objects, by "module:function": why each still has them
WIDE = {}

#: parameters named after a field of Tests or Probe, by "module:function": why each still spells the field
NAMED = {}


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
    assert "dispatch:analyze" in seen and "paired:analyze_pair" in seen and "plan/search:power_sign_flip" in seen
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
    extra = {n: p for n, p in named.items() if set(p) - set(NAMED.get(n, {}).get("params", ()))}
    assert extra == {}, "read these from tests or probe instead"
    stale = {n: sorted(set(e["params"]) - set(named.get(n, ()))) for n, e in NAMED.items()
             if set(e["params"]) - set(named.get(n, ()))}
    assert stale == {}, "no longer spelled: take them out of NAMED"
