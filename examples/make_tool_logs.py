"""Write examples/tool_logs.md: a worked example for each tool's log, its output made by running it.

Run from the repository's root: python examples/make_tool_logs.py
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
D = "tests/data/frameworks"

PAGES = [
    ("inspect_ai", f"""A counterfactual probe run in inspect_ai puts the item and the value in each sample's metadata
(`metadata={{"item": 3, "style": "formal"}}`) and runs every sample for several epochs. The log is read
as it is, `.eval` or `.json`: one row per sample and epoch; `item` and `variant` from the first metadata
keys named like them (item, item_id, pair, pair_id, question_id, prompt_id, sample, case, case_id;
variant, value, condition, arm, style), or from the keys `--column` names (`--column
variant=metadata.dialect`, nested keys as `metadata.a.b`); the epoch is the run; the model and the
generation config (`temperature`, `generate.max_tokens`, ...) are held-fixed settings; each scorer is
a metric, its letters read as C = 1, I = 0, P = 0.5, N = 0; `sample_id` keeps the sample's id.
`{D}/style_probe.eval` was written by inspect_ai's mock model (8 items, 2 values, 3 epochs):""",
     [f"validate {D}/style_probe.eval --metric steps",
      f"analyze {D}/style_probe.eval --metric steps --a formal --b casual"],
     """The same numbers come from the CSV of its samples (`style_probe_samples.csv`, written from
inspect_ai's own reader). A sample that failed is kept, without scores, and named; a log still being
written is read with the samples it holds:""",
     [f"validate {D}/errored.eval --metric steps --where \"error IS NULL\"",
      f"validate {D}/running.eval --metric steps"]),
    ("promptfoo", """Write the results with `promptfoo eval -o results.json` (results version 3). Give the test
variable that holds the attribute with `--column variant=vars.style` (a variable named like a value is
found alone). The other variables and the prompt make the item; repeats (`--repeat N`) are rebuilt as
runs in `testIdx` order; `score`, `success` and each named score are metrics; the provider is the model.
A response promptfoo took from its cache is not a new draw: a warning names it.""",
     [f"validate {D}/promptfoo_cached.json --column variant=vars.style --metric words",
      f"validate {D}/promptfoo_cached.json --column variant=vars.style --metric words --where \"NOT cached\""],
     "", []),
    ("lm-evaluation-harness", """`lm_eval ... --log_samples` writes `samples_<task>_<date>.jsonl` beside `results_<date>.json`.
Give the samples file: one row per document, `item` and `variant` from document fields named like them
(or `--column variant=doc.dialect`), each metric the task lists as a column, the model from the results
file (else from the folder lm-eval named after it).""",
     [f"analyze {D}/lm_eval/hpbhprii/samples_style_probe_mc_2026-12-01T09-12-54.912294.jsonl --metric acc "
      "--a formal --b casual"],
     "", []),
    ("Open WebUI", """Export one chat as JSON from the chat's menu, or every chat from the settings (both write
`chat-export-<time>.json`). Each assistant reply is a row; regenerating a reply adds a run; the user's message is the
prompt; `turn` (the n-th question of the chat) is the item unless `--column item=chat_title` names
another. `--from-text VALUE=prompt:REGEX` reads the value from the prompt's wording, and
`--from-text NAME=count:REGEX` counts
numbered steps in the reply. A chat that holds both values in one thread is warned about: its replies
saw each other.""",
     [f"validate {D}/chat-export-1764583200000.json --from-text \"formal=prompt:^Good afternoon\" "
      "--from-text \"casual=prompt:^hey\" --from-text \"steps=count:^\\s*\\d+\\.\" --metric steps",
      f"analyze {D}/chat-export-1764583200000.json --from-text \"formal=prompt:^Good afternoon\" "
      "--from-text \"casual=prompt:^hey\" --from-text \"steps=count:^\\s*\\d+[.)]\" --metric steps --a formal --b casual "
      "--where \"chat_title <> 'Both styles in one thread'\""],
     """The first pattern knows only `1.` numbering and finds no step in the three replies numbered
`1)`: the `zero_count` warning lists them for a person to read; the second pattern counts both. The
report's design section states each counted metric's definition.""", []),
]


def run(args: str) -> str:
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1", TERM="dumb")
    done = subprocess.run([sys.executable, "-m", "probestats", *shlex.split(args)], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    return (done.stdout + done.stderr).rstrip()


def main() -> None:
    out = ["# Logs of the tools probes are run with: worked examples", "",
           "Made by `python examples/make_tool_logs.py` from the fixture logs in `tests/data/frameworks/`, "
           "which the tools themselves wrote (the scripts beside them say how). Each log is recognized from "
           "its content, whatever its name, and `validate` names the tool.", ""]
    for title, text, commands, after, more in PAGES:
        out += [f"## {title}", "", text, ""]
        for c in commands:
            out += ["```", f"$ probestats {c}", run(c), "```", ""]
        if after:
            out += [after, ""]
        for c in more:
            out += ["```", f"$ probestats {c}", run(c), "```", ""]
    (ROOT / "examples" / "tool_logs.md").write_text("\n".join(out))


if __name__ == "__main__":
    main()
