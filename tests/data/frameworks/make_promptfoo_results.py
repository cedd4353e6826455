"""Write the promptfoo fixture results with promptfoo itself.

Needs Node and promptfoo (not a dependency of probestats): ``npm install promptfoo`` in a scratch
folder, then

    PROMPTFOO=/path/to/node_modules/.bin/promptfoo python tests/data/frameworks/make_promptfoo_results.py

It writes, beside itself:

- ``promptfoo_echo.json``: a counterfactual probe through promptfoo's echo provider (the reply is the
  prompt), 4 questions x the values 'formal' and 'casual' of ``vars.style`` (one test per question,
  its style var a list, which promptfoo expands), 3 repeats; asserts give the named scores ``words``
  and ``polite``;
- ``promptfoo_cached.json``: a repeat run against a local HTTP endpoint through promptfoo's OpenAI
  chat provider (its base URL set to the endpoint) and its response cache: a first run of 3 repeats, where the endpoint answers each prompt
  once and refuses the rest (it broke partway), caches the first repeat's responses; the second run
  of 3 repeats finds those in the cache (``response.cached``) and draws the others anew;
- ``promptfoo_echo.csv``: the rows of ``promptfoo_echo.json`` read back with the standard library
  (question, style, repeat in testIdx order, score, named scores), the table probestats must
  reproduce.
"""

from __future__ import annotations

import csv
import http.server
import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

HERE = Path(__file__).resolve().parent

QUESTIONS = [
    "my script stops with an IndexError on the last line",
    "the tests pass locally but fail on the build server",
    "a loop never ends when the list is empty",
    "the program prints the wrong total",
]

PROMPT = ("{% if style == 'formal' %}Good afternoon. I have a problem: {{question}}. Could you please help me find "
          "the cause?{% else %}hey, {{question}} lol{% endif %}")

ASSERTS = """    assert:
      - type: javascript
        value: "output.trim().split(/\\\\s+/).length / 20"
        metric: words
      - type: icontains
        value: please
        metric: polite
"""


def config(provider: str) -> str:
    tests = "".join(f"  - vars:\n      question: {json.dumps(q)}\n      style: [formal, casual]\n" for q in QUESTIONS)
    return (f"description: style probe\nprompts:\n  - {json.dumps(PROMPT)}\nproviders:\n{provider}\n"
            f"defaultTest:\n{ASSERTS}tests:\n{tests}")


class Echo(http.server.BaseHTTPRequestHandler):
    calls = 0
    seen: set = set()
    once = False   # answer each prompt once only, refusing the rest (an endpoint that broke partway)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][-1]["content"]
        if Echo.once and prompt in Echo.seen:
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        Echo.seen.add(prompt)
        Echo.calls += 1
        reply = {"id": f"draw-{Echo.calls}", "object": "chat.completion", "model": body["model"],
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": f"{prompt} (draw {Echo.calls})"}}],
                 "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def promptfoo(args, cwd: Path, env: dict) -> None:
    command = os.environ.get("PROMPTFOO", "npx promptfoo").split()
    subprocess.run(command + args, cwd=cwd, env=env, check=False)


def main() -> None:
    work = Path(tempfile.mkdtemp())
    env = dict(os.environ, PROMPTFOO_DISABLE_TELEMETRY="1", PROMPTFOO_DISABLE_UPDATE="1",
               PROMPTFOO_CONFIG_DIR=str(work / "config"), PROMPTFOO_CACHE_PATH=str(work / "cache"),
               PROMPTFOO_CACHE_ENABLED="true")
    try:
        (work / "echo.yaml").write_text(config("  - echo"))
        promptfoo(["eval", "-c", "echo.yaml", "--repeat", "3", "-o", str(HERE / "promptfoo_echo.json"),
                   "--no-progress-bar", "--no-table"], work, env)

        server = http.server.HTTPServer(("127.0.0.1", 0), Echo)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        http_provider = (f"  - id: openai:chat:stand-in\n    label: local-echo\n    config:\n"
                         f"      apiBaseUrl: {url}\n      apiKey: not-needed\n      temperature: 0.7\n")
        (work / "http.yaml").write_text(config(http_provider))
        Echo.once = True
        promptfoo(["eval", "-c", "http.yaml", "--repeat", "3", "-o", str(work / "first.json"), "-j", "1",
                   "--no-progress-bar", "--no-table"], work, env)
        Echo.once = False
        promptfoo(["eval", "-c", "http.yaml", "--repeat", "3", "-o", str(HERE / "promptfoo_cached.json"), "-j", "1",
                   "--no-progress-bar", "--no-table"], work, env)
        server.shutdown()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    write_csv(HERE / "promptfoo_echo.json", HERE / "promptfoo_echo.csv")


def write_csv(results: Path, out: Path) -> None:
    data = json.loads(results.read_text())["results"]["results"]
    data.sort(key=lambda r: r["testIdx"])
    seen: dict[tuple, int] = {}
    rows = []
    for r in data:
        key = (r["vars"]["question"], r["vars"]["style"])
        seen[key] = seen.get(key, 0) + 1
        rows.append({"item": QUESTIONS.index(r["vars"]["question"]) + 1, "variant": r["vars"]["style"],
                     "run": seen[key], "score": r["score"], "success": int(r["success"]),
                     "words": r["namedScores"]["words"], "polite": r["namedScores"]["polite"]})
    with out.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
