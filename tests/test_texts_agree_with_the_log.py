"""Every analysis kind, rendered on logs of awkward shapes, says nothing the shaped log contradicts.

The shapes: several models (a setting that varies within every cell, one run per model), one run per
cell, a constant arm (the metric is defined relative to it) and unequal arms (three runs against one).
The kinds: a pair, a pair on a judge's scale with a named baseline and without one, many values, a control
wording, two factors (2 × 2 and 3 × 2), several metrics. Every text (terminal, Markdown, HTML, the JSON report's sentences) is read as a
reader would, and each claim about the log is checked against the log itself:

- a setting is never called absent when the log holds it;
- a count of runs per value (or per item and value, per cell) is a count of runs of one cell, never of
  the models pooled in it, unless the sentence says it counts over the models;
- only the named baseline is called the baseline (and nothing is, when none was named).
"""

from __future__ import annotations

import html as html_lib
import json
import re

import numpy as np
import polars as pl
import pytest

from tests.engines import analyze   # with its knobs (mdg, within_noise, the read keywords)
from tests.rendered import report_renderer, terminal_text

SHAPES = ("several models", "one run per cell", "constant arm", "unequal arms")
KINDS = ("pair", "scale", "scale unnamed", "many", "control", "factors", "factorial", "metrics")


def shaped_log(shape: str, kind: str, seed: int = 0) -> tuple[pl.DataFrame, dict]:
    """A log of ``shape`` for the analysis ``kind``, and what is true of it: the models, the runs of one cell."""
    rng = np.random.default_rng(seed)
    models = [f"model-{k}" for k in range(7)] if shape == "several models" else ["model-0"]
    if kind in ("factors", "factorial"):
        styles = ("formal", "casual") + (("plain",) if kind == "factorial" else ())
        values = [(s, n) for s in styles for n in ("Emily", "Greg")]
    else:
        values = {"many": ["A", "B", "C"], "control": ["A", "B", "T"]}.get(kind, ["A", "B"])
    runs = {"one run per cell": 1, "several models": 1}.get(shape, 3)
    rows = []
    for i in range(8):
        level = rng.integers(2, 4)
        for m in models:
            for v in values:
                n = 1 if shape == "unequal arms" and v == values[-1] else runs
                for s in range(n):
                    first = v == values[0]
                    x = 0 if shape == "constant arm" and v == values[1] else int(
                        np.clip(level + first + rng.integers(0, 2), 1, 5))
                    row = {"item": f"q{i}", "model": m, "seed": s, "x": x, "y": x * 2 + int(rng.integers(0, 2))}
                    if kind in ("factors", "factorial"):
                        row.update(style=v[0], name=v[1])
                    else:
                        row["variant"] = v
                    rows.append(row)
    truth = {"models": len(models), "runs": runs,
             "runs_short": 1 if shape == "unequal arms" else runs}
    return pl.DataFrame(rows), truth


def run(kind: str, frame: pl.DataFrame):
    options = {"pair": dict(metric="x"), "metrics": dict(metric="x,y", mdg=False),
               "scale": dict(metric="x", a="A", b="B", baseline="A", scale="0:5"),
               "scale unnamed": dict(metric="x", a="A", b="B", scale="0:5"),
               "many": dict(metric="x", reference="A"), "factors": dict(metric="x", factor=["style", "name"]),
               "factorial": dict(metric="x", factor=["style", "name"]),
               "control": dict(metric="x", control="T", baseline="B")}[kind]
    return analyze(frame, **options)


def texts(result) -> dict[str, str]:
    out = {"terminal": terminal_text(result)}
    render = report_renderer(result)
    out["md"] = render(result, format="md").replace("\\", "")
    page = render(result, format="html")
    out["html"] = html_lib.unescape(re.sub(r"<[^>]+>", " ", page.split("<body>", 1)[-1]))
    data = json.loads(render(result, format="json"))
    out["json"] = " ".join(s for part in data["report"]["sentences"].values() for s in part)
    return {k: " ".join(v.split()) for k, v in out.items()}


ABSENT = re.compile(r"no model\b|model and settings not recorded|records no settings?\b|"
                    r"has no model, temperature or system prompt column|nothing recorded", re.I)
RUN_COUNT = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(?: to (\d+))? runs? per (?:value|item and value|item and cell|cell)")


def _contradictions(text: str, truth: dict, *, baseline: str | None) -> list[str]:
    found = []
    m = ABSENT.search(text)
    if m:
        found.append(f"a setting called absent: {text[max(0, m.start() - 80):m.end() + 40]!r}")
    for m in RUN_COUNT.finditer(text):
        counts = {float(m.group(1)), float(m.group(2) or m.group(1))}
        allowed = {truth["runs"], truth["runs_short"]}
        context, before = text[m.end():m.end() + 60], text[max(0, m.start() - 120):m.start()]
        # a count that says it pools the models ("7 runs per item and value (pooled over 7 models: ...)")
        pooled = re.match(r"(?: \(median\))? \(pooled over ", context) is not None
        halves = "half" in before   # the within-log check splits a cell's runs in halves: its own counts
        likened = before.endswith("as precise as a pair with ")   # a comparison of precision, not a count
        if not counts <= allowed and not (pooled or halves or likened):
            found.append(f"a run count that is not one cell's: {text[max(0, m.start() - 80):m.end() + 40]!r}")
    for m in re.finditer(r"the baseline '([^']*)'", text):
        if m.group(1) != baseline:
            found.append(f"a baseline that is not the one named ({baseline!r}): {text[m.start():m.end() + 40]!r}")
    return found


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("kind", KINDS)
def test_no_text_contradicts_the_shaped_log(kind, shape):
    frame, truth = shaped_log(shape, kind)
    try:
        result = run(kind, frame)
    except Exception as exc:   # a refusal is an answer too, as long as it is one line naming the fix
        from probestats.errors import ProbestatsError

        assert isinstance(exc, ProbestatsError), repr(exc)
        assert "\n" not in str(exc)
        pytest.skip(f"refused: {exc}")
    baseline = {"scale": "A", "control": "B"}.get(kind)
    problems = []
    for fmt, text in texts(result).items():
        problems += [f"{fmt}: {p}" for p in _contradictions(text, truth, baseline=baseline)]
    assert not problems, "\n".join(problems[:8])
