"""Write the lm-evaluation-harness fixture with lm-eval itself and its dummy model.

Run with an interpreter that has lm-eval installed (it is not a dependency of probestats):

    python -m venv /tmp/venv-lm && /tmp/venv-lm/bin/pip install lm-eval
    /tmp/venv-lm/bin/python tests/data/frameworks/make_lm_eval_samples.py

A local multiple-choice task (its documents in a JSON-lines file read by the ``json`` dataset
builder, so nothing is downloaded) asks 6 questions, each written in the values 'formal' and
'casual' (the document fields ``item`` and ``style``); the dummy model answers with random
log-likelihoods (``--seed`` fixes them). ``lm_eval --log_samples`` writes, under
``lm_eval/<model>/``, ``results_<date>.json`` and ``samples_style_probe_mc_<date>.jsonl``, copied
beside this script with the date kept. ``lm_eval_samples.csv`` holds the rows read back with the
standard library (item, variant, acc, acc_norm), the table probestats must reproduce.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

QUESTIONS = [
    ("Which tool shows where a Python program stopped?", "which tool shows where python stopped", ["a traceback", "a linter"]),
    ("What should one check first when tests fail only on a server?", "tests fail only on server, check what first", ["the environment", "the font"]),
    ("What makes a while loop end?", "what makes a while loop stop", ["its condition turning false", "a comment"]),
    ("Which function sums a list?", "which func sums a list", ["sum", "len"]),
    ("What does a UnicodeDecodeError point to?", "unicodedecodeerror means what", ["the wrong encoding", "a slow disk"]),
    ("What does a function return without a return statement?", "func with no return gives what", ["None", "zero"]),
]

TASK = """task: style_probe_mc
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}\\nAnswer:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: answer
metric_list:
  - metric: acc
  - metric: acc_norm
"""


def main() -> None:
    work = Path(tempfile.mkdtemp())
    try:
        data = work / "docs.jsonl"
        with data.open("w") as fh:
            for number, (formal, casual, choices) in enumerate(QUESTIONS, start=1):
                for style, text in (("formal", formal), ("casual", casual)):
                    fh.write(json.dumps({"item": number, "style": style, "question": text, "choices": choices,
                                         "answer": 0}) + "\n")
        tasks = work / "tasks"
        tasks.mkdir()
        (tasks / "style_probe_mc.yaml").write_text(TASK.format(data=data))
        env = dict(os.environ, HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
        subprocess.run([sys.executable, "-m", "lm_eval", "--model", "dummy", "--tasks", "style_probe_mc",
                        "--include_path", str(tasks), "--output_path", str(work / "out"), "--log_samples",
                        "--seed", "1"], env=env, check=True)
        target = HERE / "lm_eval"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(work / "out", target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_csv(next(HERE.glob("lm_eval/*/samples_*.jsonl")), HERE / "lm_eval_samples.csv")


def write_csv(samples: Path, out: Path) -> None:
    rows = []
    for line in samples.read_text().splitlines():
        record = json.loads(line)
        rows.append({"item": record["doc"]["item"], "variant": record["doc"]["style"], "acc": record["acc"],
                     "acc_norm": record["acc_norm"]})
    with out.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
