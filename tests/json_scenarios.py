"""Every command's ``--json`` run on the sample logs and on drawn logs covering its modes, and the key
paths those objects hold, each with its JSON types.

A path names a key as the reference page does: ``verdict.holds``, a list's elements as ``[]``
(``tests[].p``), and a map whose keys come from the log (values, items, levels, settings) as ``*``
(``counts.*``). ``python tests/json_scenarios.py`` prints the paths, for writing the page.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import polars as pl

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_logs"
sys.path.insert(0, str(ROOT / "tests"))

from factories import make_log, write_log  # noqa: E402
from framing_factory import make_yes_no_log  # noqa: E402
from judge_factory import make_judge_log  # noqa: E402

PROBE = str(SAMPLES / "style_probe.csv")
NOISE = str(SAMPLES / "style_noise.csv")
FRAMING = str(SAMPLES / "framing_long.csv")
TARGETS = str(SAMPLES / "framing_targets.csv")

# Objects whose keys are data of the log (a value, an item, a level, a setting, a metric), written ``*``.
# Each entry is the path of such a map as the page writes it.
MAPS = (
    "columns", "shares", "counts", "pooled_in_cells", "rates", "confusion", "confusion.*",
    "by", "setting_terms",
)


def _two_factors(path: Path) -> Path:
    rng = np.random.default_rng(0)
    rows = []
    for i in range(8):
        base = 5 + rng.normal(0, 0.5)
        for r in range(3):
            for style in ("formal", "casual"):
                for name in ("Emily", "Greg"):
                    x = base + (style == "formal") + (style == "formal" and name == "Greg") + rng.normal(0, 1)
                    rows.append({"item": str(i), "style": style, "name": name, "seed": r + 1,
                                 "steps": round(x)})
    return write_log(pl.DataFrame(rows), path)


def _factorial(path: Path) -> Path:
    rng = np.random.default_rng(1)
    rows = []
    for i in range(8):
        for r in range(2):
            for style in ("formal", "casual", "terse"):
                for name in ("Emily", "Greg"):
                    rows.append({"item": str(i), "style": style, "name": name, "seed": r + 1,
                                 "steps": round(5 + (style == "formal") + rng.normal(0, 1))})
    return write_log(pl.DataFrame(rows), path)


def _control(path: Path) -> Path:
    frame = make_log(items=10, runs=4, values=("formal", "casual", "casual!"), gap=1.0, seed=2)
    return write_log(frame, path)


def _clustered(path: Path) -> Path:
    frame = make_log(items=12, runs=4, gap=0.8, seed=3, integer=False)
    frame = frame.with_columns(doc=(pl.col("item").cast(pl.Int64) // 3).cast(pl.String))
    return write_log(frame, path)


def _random_setting(path: Path) -> Path:
    frame = make_log(items=10, runs=6, gap=0.8, seed=4, integer=False)
    rng = np.random.default_rng(5)
    frame = frame.with_columns(temperature=pl.Series(rng.choice([0.2, 0.7, 1.0], frame.height)))
    return write_log(frame, path)


def _blanks(path: Path) -> Path:
    frame = make_log(items=8, runs=10, gap=1.0, seed=6)
    blank = (pl.col("variant") == "casual") & (pl.col("seed") <= 4)
    frame = frame.with_columns(steps=pl.when(blank).then(None).otherwise(pl.col("steps")))
    return write_log(frame, path)


def _blocks(path: Path, column: str = "model") -> Path:
    frames = [make_log(items=8, runs=6, gap=g, seed=7 + k).with_columns(pl.lit(m).alias(column))
              for k, (m, g) in enumerate((("m1", 2.0), ("m2", -2.0), ("m3", 2.0)))]   # m2 drives the pooled gap
    return write_log(pl.concat(frames), path)


def _judge_scores(path: Path) -> Path:
    rng = np.random.default_rng(14)
    rows = [{"item": f"s{i}", "variant": v, "seed": s, "criterion": c, "model": "judge-1",
             "level": int(min(4, max(1, round(2.5 + (v == "padded") + rng.normal(0, 0.8)))))}
            for i in range(8) for s in range(1, 4) for c in ("clarity", "directness")
            for v in ("padded", "plain")]
    return write_log(pl.DataFrame(rows), path)


def _validation(tmp: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(8)
    rows, hand = [], []
    for i in range(10):
        for seed in range(1, 7):
            for value, rate in (("formal", 0.7), ("casual", 0.4)):
                flag = int(rng.random() < rate)
                rows.append({"item": str(i), "variant": value, "seed": seed, "flag": flag})
                if seed <= 3:
                    truth = flag if rng.random() < 0.85 else 1 - flag
                    hand.append({"item": str(i), "variant": value, "seed": seed, "flag": truth})
    log = write_log(pl.DataFrame(rows), tmp / "coded.csv")
    labels = write_log(pl.DataFrame(hand), tmp / "hand.csv")
    return log, labels


def _selection(path: Path) -> Path:
    rng = np.random.default_rng(9)
    rows = [{"item": str(i), "variant": v, "seed": s, "picked": int(rng.random() < p)}
            for i in range(12) for s in range(1, 6)
            for v, p in (("Emily", 0.6), ("Lakisha", 0.4), ("Greg", 0.65))]
    return write_log(pl.DataFrame(rows), path)


def _levels(path: Path) -> Path:
    rng = np.random.default_rng(10)
    rows = [{"item": str(i), "variant": v, "seed": s, "label": str(rng.choice(["yes", "no", "maybe"], p=p))}
            for i in range(8) for s in range(1, 6)
            for v, p in (("formal", [0.5, 0.3, 0.2]), ("casual", [0.3, 0.5, 0.2]))]
    return write_log(pl.DataFrame(rows), path)


def _raters(path: Path) -> Path:
    """Three judges' 1-5 scores of the same 12 items, two runs each (no value column)."""
    rng = np.random.default_rng(30)
    rows = [{"item": str(i), "judge": j, "seed": s, "score": int(np.clip(round(3 + t + rng.normal(0, 0.7)), 1, 5))}
            for i, t in enumerate(rng.normal(0, 1, 12)) for j in ("j1", "j2", "j3") for s in (1, 2)]
    return write_log(pl.DataFrame(rows), path)


def _replies(path: Path) -> Path:
    rng = np.random.default_rng(20)
    rows = [{"item": str(i), "variant": v, "seed": s,
             "reply": str(rng.choice(["Yes.", "No", "maybe", "I cannot say"], p=p))}
            for i in range(6) for s in range(1, 4)
            for v, p in (("formal", [0.5, 0.3, 0.1, 0.1]), ("casual", [0.3, 0.5, 0.1, 0.1]))]
    return write_log(pl.DataFrame(rows), path)


def _ceiling(path: Path) -> Path:
    """A judge's scores whose baseline sits at the top of the scale in three items."""
    rng = np.random.default_rng(22)
    rows = [{"item": str(i), "variant": v, "seed": s, "model": "judge-1",
             "level": 4 if (v == "plain" and i < 3) else int(min(4, max(1, round(2.5 + (v == "padded")
                                                                                 + rng.normal(0, 0.8)))))}
            for i in range(8) for s in range(1, 4) for v in ("padded", "plain")]
    return write_log(pl.DataFrame(rows), path)


def _once(path: Path) -> Path:
    """A 0/1 metric, one run per item and value, three values (Cochran's Q applies)."""
    rng = np.random.default_rng(23)
    rows = [{"item": str(i), "variant": v, "picked": int(rng.random() < p)}
            for i in range(16) for v, p in (("a", 0.6), ("b", 0.4), ("c", 0.5))]
    return write_log(pl.DataFrame(rows), path)


def _judged_probe(path: Path) -> Path:
    """A judge's order probe that is also a probe of a metric: whether the first slot won, by order."""
    frame = make_judge_log(items=30, repetitions=2)
    first = pl.col("reply").str.contains("[[A]]", literal=True).cast(pl.Int64)
    return write_log(frame.with_columns(variant=pl.col("order"), first=first), path)


def scenarios(tmp: Path) -> Iterator[tuple[str, str, str, list[str]]]:
    """(name, command, table, argv) for every scenario, ``table`` the anchor of the reference page's table
    the object is read against; logs that are drawn are written under ``tmp``."""
    probe = ["--metric", "steps"]
    yield "analyze pair", "analyze", "analyze-pair", [PROBE, *probe]
    yield "analyze pair, noise log", "analyze", "analyze-pair", [PROBE, *probe, "--noise", NOISE, "--row-level", "--per-item"]
    yield "analyze pair, no noise", "analyze", "analyze-pair", [PROBE, *probe, "--noise", "none", "--interval", "sign-flip"]
    yield "analyze pair, noise value", "analyze", "analyze-pair", [str(_control(tmp / "control.csv")), *probe,
                                                     "--a", "formal", "--b", "casual", "--noise-value", "casual"]
    yield "analyze pair, bootstrap", "analyze", "analyze-pair", [PROBE, *probe, "--interval", "bootstrap", "--n-resamples", "500"]
    blocks = str(_blocks(tmp / "blocks.csv"))
    yield "analyze pair, groups", "analyze", "analyze-pair", [blocks, *probe, "--by", "model", "--row-level", "--per-item"]
    yield "analyze metrics", "analyze", "analyze-metrics", [PROBE, "--metric", "steps,twice", "--derive", "twice = steps * 2"]
    yield "analyze pair, blocks", "analyze", "analyze-pair", [blocks, *probe]
    personas = str(_blocks(tmp / "personas.csv", column="persona"))
    yield "analyze pair, named blocks", "analyze", "analyze-pair", [personas, *probe, "--setting", "persona"]
    yield "analyze pair, blanks", "analyze", "analyze-pair", [str(_blanks(tmp / "blanks.csv")), *probe]
    yield "analyze pair, scale", "analyze", "analyze-pair", [PROBE, *probe, "--scale", "0:10", "--baseline", "casual"]
    yield "analyze pair, clusters", "analyze", "analyze-pair", [str(_clustered(tmp / "clustered.csv")), *probe, "--cluster", "doc"]
    yield "analyze pair, random setting", "analyze", "analyze-pair", [str(_random_setting(tmp / "drawn.csv")), *probe,
                                                        "--random-setting", "temperature"]
    yield "analyze pair, few seeds", "analyze", "analyze-pair", [str(SAMPLES / "style_probe_5seeds.csv"), *probe]
    yield "analyze control", "analyze", "analyze-pair", [str(_control(tmp / "control.csv")), *probe, "--a", "formal",
                                         "--b", "casual", "--control", "casual!"]
    many = pl.concat([make_log(items=8, runs=5, values=("a", "b", "c"), seed=11 + k, model=m)
                      for k, m in enumerate(("m1", "m2"))])
    many_path = write_log(many, tmp / "many.csv")
    yield "analyze many values", "analyze", "analyze-many", [str(many_path), *probe]
    yield "analyze many values, groups", "analyze", "analyze-many", [str(many_path), *probe, "--by", "model"]
    yield "analyze many values, few pairs", "analyze", "analyze-many", [str(many_path), *probe, "--limit", "pairs=1"]
    four = write_log(make_log(items=8, runs=4, values=("a", "b", "c", "d"), seed=21), tmp / "four.csv")
    yield "analyze many values, a group of values", "analyze", "analyze-many", [
        str(four), *probe, "--group", "ab=a,b", "--group", "c=c", "--group", "d=d"]
    crossed = write_log(make_log(items=8, runs=4, values=("f_b", "f_w", "m_b", "m_w", "m_a", "f_a"), seed=23),
                        tmp / "crossed.csv")
    yield "analyze many values, axes", "analyze", "analyze-many", [str(crossed), *probe, "--axes", "gender,race"]
    yield "analyze many values, one run each", "analyze", "analyze-many", [str(_once(tmp / "once.csv")),
                                                                         "--metric", "picked"]
    yield "analyze selection", "analyze", "analyze-many", [str(_selection(tmp / "selection.csv")), "--metric", "picked",
                                           "--set", "selection=yes"]
    yield "analyze factors", "analyze", "analyze-factors", [str(_two_factors(tmp / "factors.csv")), *probe, "--factor", "style",
                                         "--factor", "name"]
    yield "analyze factors by group", "analyze", "analyze-factor-set", [
        str(_two_factors(tmp / "factors_by.csv")), "--metric", "steps", "--derive", "half = item < '4'",
        "--factor", "style=casual,formal", "--factor", "name", "--by", "half"]
    yield "analyze factorial", "analyze", "analyze-factorial", [str(_factorial(tmp / "factorial.csv")), *probe, "--factor", "style",
                                           "--factor", "name"]
    yield "analyze judge", "analyze", "analyze-pair", [str(_judge_scores(tmp / "scores.csv")), "--metric", "level",
                                       "--a", "padded", "--b", "plain", "--scale", "1:4", "--by", "model"]
    yield "analyze framing", "analyze", "analyze-pair", [FRAMING, "--metric", "Score", "--a", "Affirmative", "--b", "Reverse",
                                         "--column", "variant=Framing", "--column", "seed=Iteration", "--column", "model=Model",
                                         "--by", "model"]
    yield "analyze scale, baseline at the top", "analyze", "analyze-pair", [
        str(_ceiling(tmp / "ceiling.csv")), "--metric", "level", "--a", "padded", "--b", "plain", "--scale", "1:4",
        "--by", "model"]
    coded, hand = _validation(tmp)
    yield "analyze validation", "analyze", "analyze-pair", [str(coded), "--metric", "flag", "--validation", str(hand)]
    cells = tmp / "cells.parquet"
    yield "cells", "cells", "cells", [PROBE, *probe, "-o", str(cells)]
    yield "analyze cells", "analyze", "analyze-pair", [str(cells), *probe]
    yield "describe", "describe", "describe", [str(_levels(tmp / "levels.csv")), "--metric", "label"]
    yield "describe coded replies", "describe", "describe", [str(_replies(tmp / "replies.csv")), "--code",
                                                            "answer=yes-no", "--metric", "answer"]
    yield "describe numbers", "describe", "describe", [PROBE, *probe, "--by", "model"]
    yield "describe two metrics", "describe", "describe-metrics", [PROBE, "--metric", "steps,seed", "--bins",
                                                                   "0,5,10,20"]
    yield "describe a 0/1 metric", "describe", "describe", [PROBE, "--derive", "many = steps > 4", "--metric", "many",
                                                            "--chance", "0.4"]
    yield "describe agreement", "describe", "describe", [str(_raters(tmp / "raters.csv")), "--metric", "score",
                                                         "--agreement", "judge"]
    yield "validate", "validate", "validate", [PROBE, *probe]
    yield "validate problems", "validate", "validate", [str(SAMPLES / "broken" / "near_duplicate.csv"), *probe]
    yield "validate refused", "validate", "validate", [str(SAMPLES / "broken" / "unmatched_item.csv"), *probe]
    before = write_log(make_log(items=8, runs=5, gap=1.0, seed=12), tmp / "before.csv")
    after = write_log(make_log(items=8, runs=5, gap=0.2, seed=13), tmp / "after.csv")
    yield "compare", "compare", "compare", [str(before), str(after), *probe]
    yield "compare refused", "compare", "refusal", [str(SAMPLES / "style_probe_5seeds.csv"), PROBE, *probe]
    yield "plan", "plan", "plan", ["--noise", NOISE, *probe, "--sims", "100", "--items", "8,16", "--runs", "5",
                           "--gap", "1"]
    yield "plan pilot", "plan", "plan", ["--noise", NOISE, *probe, "--sims", "100", "--items", "8", "--runs", "5",
                                 "--pilot", PROBE, "--mechanism", "auto"]
    yield "framing", "framing", "framing", [FRAMING, "--targets", TARGETS]
    yes_no = write_log(make_yes_no_log(), tmp / "yes_no.csv")
    yield "framing yes/no", "framing", "framing", [str(yes_no)]
    judge_log = write_log(make_judge_log(items=30, repetitions=2), tmp / "judge.csv")
    yield "judge", "judge", "judge", [str(judge_log), "--order", "order", "--response", "reply", "--verdict",
                             "first=[[A]]", "--verdict", "second=[[B]]", "--verdict", "tie=[[C]]", "--repetition", "repetition"]
    yield "report", "report", "report", [PROBE, *probe, "--noise", NOISE, "-o", str(tmp / "report.json")]
    yield "report framing", "report", "report", [PROBE, *probe, "--framing", FRAMING, "--targets",
                                       TARGETS, "-o", str(tmp / "report_framing.json")]
    yield "report validation", "report", "report", [str(coded), "--metric", "flag", "--validation", str(hand),
                                          "-o", str(tmp / "report_validation.json")]
    yield "report before", "report", "report", [str(after), *probe, "--before", str(before),
                                      "-o", str(tmp / "report_before.json")]
    yield "report with an order probe", "report", "report", [str(_judged_probe(tmp / "judged.csv")), "--metric",
                                                            "first", "--order", "order", "--response", "reply",
                                                            "--verdict", "first=[[A]]", "--verdict", "second=[[B]]",
                                                            "--verdict", "tie=[[C]]", "--repetition", "repetition",
                                                            "-o", str(tmp / "report_judged.json")]
    yield "report order probe", "report", "report-judge", [str(judge_log), "--order", "order", "--response", "reply",
                                                     "--verdict", "first=[[A]]", "--verdict", "second=[[B]]",
                                                     "--verdict", "tie=[[C]]", "--repetition", "repetition",
                                                     "-o", str(tmp / "report_judge.json")]


def run(command: str, argv: list[str]) -> tuple[int, object]:
    """The exit code and the JSON object of ``probestats COMMAND ARGV --json`` (a report: its file)."""
    from probestats.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([command, *argv] + ([] if command in ("report", "cells") else ["--json"]))
    if command == "report":
        target = Path(argv[argv.index("-o") + 1])
        return code, json.loads(target.read_text(encoding="utf-8")) if code == 0 else err.getvalue()
    if command == "cells":
        return code, None
    return code, json.loads(out.getvalue()) if out.getvalue().strip() else err.getvalue()


def json_type(value) -> str:
    """The JSON type of a decoded value: integer and number apart, as the page writes them."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def key_paths(value, prefix: str = "", found: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """Every key path under ``value`` with the JSON types seen there."""
    found = {} if found is None else found
    if isinstance(value, dict):
        is_map = prefix in MAPS or any(prefix.endswith("." + m) for m in MAPS)
        for key, inner in value.items():
            path = f"{prefix}.{'*' if is_map else key}" if prefix else ('*' if is_map else key)
            found.setdefault(path, set()).add(json_type(inner))
            key_paths(inner, path, found)
    elif isinstance(value, list):
        for inner in value:
            key_paths(inner, prefix + "[]", found)
    return found


def collect(tmp: Path) -> dict[str, dict[str, set[str]]]:
    """Per command, every key path its scenarios emit and the types seen there."""
    by_command: dict[str, dict[str, set[str]]] = {}
    for name, command, _, argv in scenarios(tmp):
        code, data = run(command, argv)
        if command == "cells":
            assert code == 0, (name, data)
            continue
        assert isinstance(data, dict), (name, code, data)
        paths = by_command.setdefault(command, {})
        for path, types in key_paths(data).items():
            paths.setdefault(path, set()).update(types)
    return by_command


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        for command, paths in collect(Path(tmp)).items():
            print(f"## {command}")
            for path in sorted(paths):
                print(f"{path}\t{' or '.join(sorted(paths[path]))}")
