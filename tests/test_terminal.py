"""The terminal printers: one render_terminal for every result, chosen by the result's type."""

from __future__ import annotations

import dataclasses
import io

import pytest
from rich.console import Console

from probestats.analyses.plan import Sizing
import probestats
from probestats.analyses.compare import Comparison, compare_runs
from probestats.analyses.factors import FactorAnalysis
from probestats.analyses.framing_results import FramingResult
from probestats import analyze_framing
from probestats.analyses.framing import demo_rows
from probestats.analyses.many import ManyAnalysis
from probestats.analyses.paired import Analysis
from probestats.analyses.plan import NoiseModel, Plan, plan_probe
from probestats.checks.schema import Checked
from probestats.present.terminal.render import PRINTERS, printer_for, render_terminal
from probestats.present.terminal.framing import framing_rich_table
from tests.factories import make_log

RESULTS = (Analysis, ManyAnalysis, FactorAnalysis, FramingResult, Comparison, Plan, Checked)


def printed(result, **options) -> str:
    buf = io.StringIO()
    render_terminal(result, Console(file=buf, width=120, highlight=False, soft_wrap=True), **options)
    return buf.getvalue()


@pytest.mark.parametrize("cls", RESULTS, ids=lambda c: c.__name__)
def test_every_result_is_a_frozen_dataclass_with_to_dict_and_a_printer(cls):
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert callable(getattr(cls, "to_dict", None))
    assert printer_for(cls) is not None and printer_for(object) is None


def test_every_printer_key_names_a_class_where_it_is_defined():
    import importlib

    for key, printer in PRINTERS.items():
        module, name = key.rsplit(".", 1)
        cls = getattr(importlib.import_module(module), name)
        assert (cls.__module__, cls.__qualname__) == (module, name)   # a moved class would lose its printer
        assert printer_for(cls).__name__ == printer


def test_render_terminal_picks_the_printer_by_type():
    from tests.test_factors import two_by_two

    probe = make_log(items=6, runs=3, gap=1.0, seed=5)
    assert "tests (two-sided; the sign-flip test is the headline" in printed(probestats.analyze(probe, metric="steps"))
    factors = probestats.analyze(two_by_two(items=6, seed=1), metric="steps", factor=["style", "name"])
    assert "interaction" in printed(factors)
    assert "change (after − before)" in printed(compare_runs(probe, probe, metric="steps"))
    assert "Lean toward" in printed(analyze_framing(demo_rows()))
    plan = plan_probe(NoiseModel.stated(1.0, "steps"), items=[6], runs=[2], sizing=Sizing(sims=50))
    assert printed(plan).startswith("sigma per run: 1 steps (stated)\n")
    checked = probestats.validate(probe, metric="steps")
    assert "(the first two in the log; choose with --a/--b)" in printed(checked)
    assert "(the first two" not in printed(checked, chosen=True)
    with pytest.raises(TypeError, match="no terminal printer for dict"):
        render_terminal({}, Console(file=io.StringIO()))


def test_the_framing_table_never_rounds_a_p_value_onto_alpha():
    result = analyze_framing(demo_rows())
    cell = dataclasses.replace(result.cells[0], bias_p_adjusted=0.0499996, acquiescence_p_adjusted=None)
    table = framing_rich_table(dataclasses.replace(result, cells=(cell,)))
    buf = io.StringIO()
    Console(file=buf, width=200).print(table)
    text = buf.getvalue()
    # below alpha 0.05, so it must not read "0.05" (the p column shows it with the digits it needs)
    assert "0.0499996" in text and " 0.05 " not in text
    assert "–" in text  # a missing p shows as a dash
