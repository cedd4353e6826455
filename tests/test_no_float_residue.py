"""No float residue anywhere: on logs whose values have equal means, every text of every kind (terminal,
Markdown, HTML, the JSON object and the JSON report's sentences) prints a gap of 0, never ``+4.626e-18``.

The logs: per item a cell of runs written with one decimal (0.1, 0.7, ...); each value gets the same cells,
rotated over the items, so every value's mean over items is the same exact number while its item means
differ (the item gaps are not 0, their mean is). The float item gaps, each rounded, would average to a
residue of about 1e-17; the exact rule (``stats.exact.mean_of_combination``) gives 0.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import probestats
from tests.engines import analyze   # with its knobs (mdg, within_noise, the read keywords)
from tests.rendered import report_renderer, terminal_text
from tests.judge_factory import RULES, TAGS

ROOT = Path(__file__).resolve().parent.parent
#: a tiny magnitude written as a float's residue: 1e-14 and below, in any spelling (4.6e-18, 7.396E-32)
RESIDUE = re.compile(r"\d(?:\.\d+)?e-(?:1[4-9]|[2-9]\d|\d{3})", re.IGNORECASE)


def equal_means_log(values, *, factor: bool = False, items: int = 6, runs: int = 3, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    cells = [[round(float(x), 1) for x in rng.choice(np.arange(0, 11) / 10, runs)] for _ in range(items)]
    rows = []
    for k, v in enumerate(values):
        for i in range(items):
            for s, x in enumerate(cells[(i + k) % items]):
                row = {"item": f"q{i}", "seed": s, "x": x, "y": round(x * 3, 1), "model": "m"}
                if factor:
                    row.update(style=v[0], name=v[1])
                else:
                    row["variant"] = v
                rows.append(row)
    return pl.DataFrame(rows)


def test_the_logs_have_equal_means_and_unequal_item_means():
    frame = equal_means_log(["A", "B", "C"])
    item = frame.group_by("item", "variant").agg(pl.col("x").mean())
    assert item.filter(pl.col("item") == "q0")["x"].n_unique() > 1          # item gaps are not all 0
    from fractions import Fraction
    sums = {v: sum(Fraction(str(x)) for x in frame.filter(pl.col("variant") == v)["x"]) for v in ("A", "B", "C")}
    assert len(set(sums.values())) == 1                                     # every value's exact mean is one


CASES = {
    "pair": (["A", "B"], False, dict(metric="x")),
    "many values": (["A", "B", "C", "D"], False, dict(metric="x")),
    "many values, groups": (["A", "B", "C", "D"], False, dict(metric="x", group=["AB=A,B", "CD=C,D"])),
    "several metrics": (["A", "B"], False, dict(metric="x,y", mdg=False)),
    "factors": ([("f", "E"), ("f", "G"), ("c", "E"), ("c", "G")], True, dict(metric="x", factor=["style", "name"])),
    "factorial": ([(s, n) for s in ("f", "c", "p") for n in ("E", "G")], True,
                  dict(metric="x", factor=["style", "name"])),
    "control": (["A", "B", "T"], False, dict(metric="x", control="T", baseline="B")),
}


def every_text(result) -> dict[str, str]:
    out = {"terminal": terminal_text(result)}
    render = report_renderer(result)
    out["md"] = render(result, format="md")
    out["html"] = html_lib.unescape(render(result, format="html"))
    out["json report"] = render(result, format="json")
    out["json"] = json.dumps(result.to_dict())
    return out


def residues(texts: dict[str, str]) -> list[str]:
    return [f"{kind}: ...{t[max(0, m.start() - 70):m.end() + 5]}" for kind, t in texts.items()
            for m in RESIDUE.finditer(t)]


@pytest.mark.parametrize("kind", CASES)
def test_no_text_of_an_analysis_prints_a_float_residue(kind):
    values, factor, options = CASES[kind]
    result = analyze(equal_means_log(values, factor=factor), **options)
    assert residues(every_text(result)) == []


def test_the_gaps_of_equal_means_are_exactly_zero():
    many = analyze(equal_means_log(["A", "B", "C", "D"]), metric="x").main
    assert [g.average_gap for g in many.pairwise] == [0.0] * 6 and many.omnibus.statistic == 0.0
    pair = analyze(equal_means_log(["A", "B"]), metric="x").main
    assert pair.average_gap == 0.0 and pair.sign_flip.statistic == 0.0 and pair.effects.d_z.value == 0.0
    factors = analyze(equal_means_log([("f", "E"), ("f", "G"), ("c", "E"), ("c", "G")], factor=True),
                      metric="x", factor=["style", "name"])
    assert {e.average for e in factors.effects} == {0.0}


def judge_log() -> pl.DataFrame:
    """A pair log whose two values are the two answer orders of a judge, with equal means of the score."""
    frame = equal_means_log(["AB", "BA"])
    verdict = [TAGS[("first", "second", "tie")[k % 3]] for k in range(frame.height)]
    return frame.with_columns(pl.col("variant").alias("order"),
                              pl.Series("reply", [f"Final verdict: {t}" for t in verdict]))


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_no_report_with_a_framing_log_and_a_judges_order_probe_prints_a_float_residue(tmp_path, fmt):
    log = tmp_path / "probe.csv"
    judge_log().write_csv(log)
    text = probestats.report(str(log), metric="x", format=fmt, judge={"order": "order", "response": "reply",
                                                                       "verdicts": RULES, "repetition": "seed"}).text
    assert "order" in text.lower()
    assert residues({f"judge {fmt}": html_lib.unescape(text)}) == []
    text = probestats.report(str(log), metric="x", format=fmt,
                             framing_log=str(ROOT / "sample_logs" / "framing_long.csv"),
                             targets=str(ROOT / "sample_logs" / "framing_targets.csv")).text
    assert "framing" in text.lower()
    assert residues({f"framing {fmt}": html_lib.unescape(text)}) == []
