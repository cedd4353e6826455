"""What an analysis took the probe to be (probestats.analyses.design_read): the sentence every output leads
with, its roles and how each was found, in the terminal, the report and JSON alike."""

from __future__ import annotations

import json

import numpy as np
import polars as pl

import probestats
from probestats.cli import main


def _llm_log(tmp_path):
    rng = np.random.default_rng(0)
    rows = [{"item": f"q{i}", "variant": v, "LLM": m, "grader": g, "run": r, "score": round(float(rng.normal()), 1)}
            for i in range(8) for v in ("formal", "casual") for m in ("gpt", "llama") for g in ("g1", "g2")
            for r in range(2)]
    path = tmp_path / "llm.csv"
    pl.DataFrame(rows).write_csv(path)
    return path


def test_columns_named_llm_and_grader_are_blocks_said_in_the_design_sentence(tmp_path, capsys):
    path = _llm_log(tmp_path)
    result = probestats.analyze(path, metric="score")
    design = result.probe_design
    assert design.blocks == ("model", "judge") and design.n_blocks == 4
    assert design.roles["model"] == {"column": "LLM", "found": "by name"}
    assert design.roles["judge"] == {"column": "grader", "found": "by name"}
    said = "4 blocks of model (LLM, by name) x judge (grader, by name) that vary within items"
    assert said in design.sentence
    assert main(["analyze", str(path), "--metric", "score"]) == 0
    out = capsys.readouterr().out
    assert " ".join(out.split()).startswith("This analysis took the probe to be: 8 items")   # said first
    assert main(["analyze", str(path), "--metric", "score", "--json"]) == 0
    assert said in json.loads(capsys.readouterr().out)["design"]["sentence"]
    assert main(["report", str(path), "--metric", "score", "-o", str(tmp_path / "r.md")]) == 0
    design_section = (tmp_path / "r.md").read_text().split("## Design", 1)[1]
    assert " ".join(design_section.split()).startswith("This analysis took the probe to be")


def test_a_declared_column_and_a_cluster_are_said_as_declared(tmp_path):
    rows = [{"question": f"q{i}", "style": v, "doc": f"d{i // 3}", "seed": s, "y": (i + s) % 4 + (v == "a")}
            for i in range(12) for v in ("a", "b") for s in range(3)]
    result = probestats.analyze(rows, metric="y", probe=probestats.Probe(columns=[("item", "question"),
                                                                                  ("variant", "style")],
                                                                         cluster="doc"))
    d = result.probe_design
    assert (d.n_items, d.values, d.runs, d.clusters, d.n_clusters) == (12, ("a", "b"), (3, 3, 3.0), "doc", 4)
    assert d.roles["item"] == {"column": "question", "found": "declared"}
    assert "items nested in 4 clusters of doc (declared" in d.sentence
