"""Results documented as scipy documents them: every public result class exported from probestats, each
dataclass field named in its numpydoc Attributes section, a one-line repr, to_dict(), to_frame() where
tabular, _repr_html_, and the headline numbers one attribute away."""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import typing

import polars as pl
import pytest

from probestats.analyses.plan import Sizing
import probestats

PROBE = "sample_logs/style_probe.csv"


def documented_names(cls) -> set[str] | None:
    """The names an ``Attributes`` section lists (``a, b : str`` lists two), or None without one."""
    doc = inspect.getdoc(cls) or ""
    match = re.search(r"^Attributes\n-+\n(.*?)(?=\n[A-Z][A-Za-z ]+\n-{3,}\n|\Z)", doc, re.S | re.M)
    if match is None:
        return None
    names = set()
    for line in match.group(1).splitlines():
        if line and not line.startswith(" "):
            names.update(n.strip() for n in line.split(" : ")[0].split(","))
    return names


def _public_result_classes() -> list[type]:
    """Every dataclass exported by probestats, and every probestats dataclass its fields' types name."""
    found: list[type] = []

    def walk(cls):
        if cls in found or not dataclasses.is_dataclass(cls) or cls.__name__.startswith("_"):
            return
        found.append(cls)
        try:
            hints = typing.get_type_hints(cls)
        except Exception:   # a hint naming a type only imported for checking
            hints = {}
        for hint in hints.values():
            for t in (hint, *typing.get_args(hint), *(a for h in typing.get_args(hint) for a in typing.get_args(h))):
                if isinstance(t, type) and t.__module__.startswith("probestats"):
                    walk(t)

    for name in probestats.__all__:
        value = getattr(probestats, name)
        if isinstance(value, type):
            walk(value)
    return found


CLASSES = _public_result_classes()


def test_the_walk_finds_the_results_and_their_parts():
    names = {c.__name__ for c in CLASSES}
    assert {"Analysis", "PairResult", "TestResult", "Interval", "Effects", "ManyAnalysis", "ManyResult",
            "OmnibusResult", "FactorAnalysis", "Comparison", "Plan", "PlanCell", "PowerResult", "FramingResult",
            "FramingCell", "JudgeResult", "OrderGroup", "Share", "MetricsAnalysis", "FactorialAnalysis"} <= names
    assert len(CLASSES) >= 40


def test_every_result_class_reachable_from_a_result_is_exported():
    exported = {getattr(probestats, n) for n in probestats.__all__}
    missing = [c.__qualname__ for c in CLASSES if c not in exported]
    # the parts only their owner's module builds, named there
    allowed = {"FamilyTest", "FactorTest", "AnovaRow", "Rule", "Facts", "EffectRange"}
    assert [m for m in missing if m not in allowed] == []


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_field_is_documented(cls):
    names = documented_names(cls)
    assert names is not None, f"{cls.__name__} has no Attributes section"
    undocumented = [f.name for f in dataclasses.fields(cls) if not f.name.startswith("_") and f.name not in names]
    assert undocumented == [], f"{cls.__name__}: {undocumented}"


def test_the_parser_reads_a_section_as_numpydoc_writes_it():
    @dataclasses.dataclass
    class Demo:
        """Demo.

        Attributes
        ----------
        a, b : int
            Two.
        c : str

        Examples
        --------
        >>> d : int
        """

        a: int
        b: int
        c: str
        d: int

    assert documented_names(Demo) == {"a", "b", "c"}


@pytest.fixture(scope="module")
def results():
    rows = [{"item": i, "variant": v, "x": float(v == "A" and i < 5)} for i in range(6) for v in ("A", "B", "C")]
    noise = probestats.noise_model("sample_logs/style_noise.csv", "steps")
    return {
        "Analysis": probestats.analyze(PROBE, metric="steps"),
        "ManyAnalysis": probestats.analyze(rows, metric="x"),
        "Comparison": probestats.compare(PROBE, "sample_logs/style_probe.jsonl", metric="steps"),
        "FramingResult": probestats.framing("sample_logs/framing_long.csv", targets="sample_logs/framing_targets.csv"),
        "Plan": probestats.plan("sample_logs/style_noise.csv", metric="steps", items=[6, 8], runs=[5], sims=50),
        "PowerResult": probestats.power_sign_flip(0.5, 8, 5, noise=noise, sizing=Sizing(sims=50)),
        "TestResult": probestats.sign_flip_test([1.0, 2.0, 3.0]),
    }


TABULAR = {"Analysis", "ManyAnalysis", "Comparison", "FramingResult", "Plan"}


@pytest.mark.parametrize("name", ["Analysis", "ManyAnalysis", "Comparison", "FramingResult", "Plan", "PowerResult",
                                  "TestResult"])
def test_a_result_shows_itself(results, name):
    r = results[name]
    assert type(r).__name__ == name
    text = repr(r)
    assert "\n" not in text and text.startswith(f"{name}(") and len(text) < 240, text
    json.dumps(probestats.result.jsonable(r.to_dict()), allow_nan=False)
    html = r._repr_html_()
    assert isinstance(html, str) and "<" in html
    if name in TABULAR:
        assert isinstance(r.to_frame(), pl.DataFrame) and r.to_frame().height >= 1


def test_headline_numbers_are_one_attribute_away(results):
    a = results["Analysis"]
    assert a.pvalue == a.main.sign_flip.pvalue == pytest.approx(6 / 256)   # 6 of 256 sign patterns (test_cli)
    assert a.average_gap == a.main.average_gap == pytest.approx(sum(a.main.gaps) / len(a.main.gaps))
    m = results["ManyAnalysis"]
    assert m.pvalue == m.main.omnibus.pvalue == 1 / 81   # items 1-4 each at A, as item 0: 1 of 3**4
    c = results["Comparison"]
    assert c.pvalue == c.change_test.pvalue


def test_html_escapes_text_from_the_log():
    rows = [{"item": i, "variant": v, "x": float(i % 3 + (v == "<b>A</b>"))}
            for i in range(6) for v in ("<b>A</b>", "B")]
    html = probestats.analyze(rows, metric="x")._repr_html_()
    assert "<b>A</b>" not in html and "&lt;b&gt;A&lt;/b&gt;" in html
