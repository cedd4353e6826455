"""Write the inspect_ai fixture logs with inspect_ai itself and its mock model.

Run with an interpreter that has inspect_ai installed (it is not a dependency of probestats):

    python -m venv /tmp/venv-inspect && /tmp/venv-inspect/bin/pip install inspect-ai
    /tmp/venv-inspect/bin/python tests/data/frameworks/make_inspect_logs.py

It writes, beside itself:

- ``style_probe.eval``: a counterfactual probe (8 items, the values 'formal' and 'casual' in each
  sample's metadata, 3 epochs), scored by ``steps`` (numbered lines in the reply) and ``includes``
  (C/I: the reply names the word "step");
- ``style_probe.json``: the same task (4 items, 1 epoch: a JSON log is large) written as a JSON log;
- ``style_probe_samples.csv``: the rows of ``style_probe.eval`` as inspect_ai's own reader reads them
  (item, variant, epoch, scores, model, reply), the table probestats must reproduce, and
  ``style_probe_json_samples.csv`` for ``style_probe.json``;
- ``errored.eval``: a run where one sample raises, kept with ``fail_on_error=False``;
- ``running.eval``: a copy of a log taken while its eval was still running (no header yet).

The mock model answers from the prompt alone, so the logs are the same on every run; offline, the
token counter (which wants a tokenizer file it would download) is replaced by a count of words.
"""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

ITEMS = [
    ("My script stops with an IndexError on the last line", "my script crashes with IndexError on the last line lol"),
    ("The tests pass locally but fail on the build server", "tests pass for me but fail on the server??"),
    ("A loop never ends when the list is empty", "loop never ends when the list is empty"),
    ("The program prints the wrong total", "wrong total printed, why"),
    ("Reading a file gives strange characters", "file reads as weird characters"),
    ("A function returns None instead of a number", "func returns None not a number"),
    ("The import of my own module fails", "cant import my own module"),
    ("Sorting a list of dates puts them out of order", "sorting dates gives wrong order"),
]


def reply_for(text: str, call: int) -> str:
    """The mock model's reply: formal requests get one numbered step more; the call number varies it."""
    formal = text[:1].isupper()
    steps = 3 + formal + (len(text) + call) % 2
    if "never ends" in text and not formal:
        # the tutorial's warning: a model may number with '1)' instead of '1.'
        return "Try this:\n" + "\n".join(f"{k}) check part {k}" for k in range(1, steps + 1))
    return "Here is what to check, step by step:\n" + "\n".join(f"{k}. check part {k}" for k in range(1, steps + 1))


def patch_offline() -> None:
    from inspect_ai.model._providers.mockllm import MockLLM

    async def words(self, text: str) -> int:
        return len(text.split())

    MockLLM.count_text_tokens = words


def task(fail_item: int | None = None, n_items: int = len(ITEMS)):
    from inspect_ai import Task
    from inspect_ai.dataset import Sample
    from inspect_ai.scorer import Score, Target, accuracy, includes, mean, scorer
    from inspect_ai.solver import TaskState, generate, solver

    samples = []
    for number, (formal, casual) in enumerate(ITEMS[:n_items], start=1):
        for style, text in (("formal", formal), ("casual", casual)):
            samples.append(Sample(id=f"{number}-{style}", input=text + ". How do I find the cause?", target="step",
                                  metadata={"item": number, "style": style, "topic": {"area": "debugging"}}))

    @solver
    def fail_on(item):
        async def solve(state: TaskState, generate_):
            if item is not None and state.metadata["item"] == item and state.metadata["style"] == "casual":
                raise RuntimeError("the tool this sample needs is not available")
            return state
        return solve

    @scorer(metrics=[mean()])
    def steps():
        async def score(state: TaskState, target: Target) -> Score:
            import re
            count = len(re.findall(r"^\s*\d+[.)]", state.output.completion, flags=re.M))
            return Score(value=count, answer=str(count))
        return score

    return Task(dataset=samples, solver=[fail_on(fail_item), generate()], scorer=[steps(), includes()],
                name="style_probe")


def model(slow: bool = False):
    from inspect_ai.model import ModelOutput, ModelUsage, get_model

    calls: dict[str, int] = {}

    async def answer(input, tools, tool_choice, config):
        text = input[-1].text
        calls[text] = calls.get(text, 0) + 1
        if slow:
            import anyio
            await anyio.sleep(0.5)
        out = ModelOutput.from_content(model="mockllm/model", content=reply_for(text, calls[text]))
        out.usage = ModelUsage(input_tokens=len(text.split()), output_tokens=20, total_tokens=len(text.split()) + 20)
        return out

    return get_model("mockllm/model", custom_outputs=answer)


def run(name: str, *, log_format: str = "eval", fail_item=None, epochs=3, n_items=len(ITEMS)) -> Path:
    from inspect_ai import eval as run_eval

    out = HERE / "_logs"
    logs = run_eval(task(fail_item, n_items), model=model(), epochs=epochs, log_dir=str(out), log_format=log_format,
                    temperature=0.7, max_tokens=200, seed=11, fail_on_error=False, display="none",
                    max_samples=1, log_buffer=1)
    source = Path(logs[0].location.replace("file://", ""))
    target = HERE / name
    shutil.copyfile(source, target)
    return target


def write_samples_csv(log_path: Path, csv_path: Path) -> None:
    """The reference table, from inspect_ai's own reader of the log."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(log_path))
    rows = []
    for s in log.samples:
        rows.append({"sample_id": s.id, "item": s.metadata["item"], "variant": s.metadata["style"], "epoch": s.epoch,
                     "steps": s.scores["steps"].value, "includes": {"C": 1, "I": 0}[s.scores["includes"].value],
                     "model": log.eval.model, "reply": s.output.completion})
    with csv_path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def running_copy(name: str) -> None:
    """Start a slow eval in another process and copy its log while it still runs."""
    out = HERE / "_running"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    proc = subprocess.Popen([sys.executable, __file__, "--slow", str(out)])
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            logs = list(out.glob("*.eval"))
            if logs:
                import zipfile
                try:
                    with zipfile.ZipFile(logs[0]) as z:
                        names = z.namelist()
                except zipfile.BadZipFile:
                    names = []
                if sum(n.startswith("samples/") for n in names) >= 4:
                    shutil.copyfile(logs[0], HERE / name)
                    break
            time.sleep(0.2)
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(out, ignore_errors=True)


def main() -> None:
    patch_offline()
    if len(sys.argv) == 3 and sys.argv[1] == "--slow":   # the process running.eval is copied from
        from inspect_ai import eval as run_eval
        run_eval(task(), model=model(slow=True), epochs=3, log_dir=sys.argv[2], display="none", max_samples=1,
                 log_buffer=1, temperature=0.7)
        return
    probe = run("style_probe.eval")
    small = run("style_probe.json", log_format="json", epochs=1, n_items=4)   # a JSON log is large: fewer samples
    write_samples_csv(probe, HERE / "style_probe_samples.csv")
    write_samples_csv(small, HERE / "style_probe_json_samples.csv")
    run("errored.eval", fail_item=3, epochs=1)
    running_copy("running.eval")
    shutil.rmtree(HERE / "_logs", ignore_errors=True)


if __name__ == "__main__":
    main()
