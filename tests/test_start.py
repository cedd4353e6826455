"""The README's command on the 8-item sample starts fast: it imports none of scipy or statsmodels.

Not timed (machines are shared; ``benchmarks/bench_start.py`` times it): the imports of the whole process,
as ``python -X importtime`` lists them, are checked instead. scipy.special takes about 0.2 s to import,
scipy.stats about 1 s and statsmodels more, against a goal of 0.5 s for the whole command.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _imported(*args: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROBESTATS")}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "probestats", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "average gap" in done.stdout or "{" in done.stdout   # the command did its work
    names = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$", done.stderr, flags=re.M))
    assert "polars" in names and "probestats.cli" in names      # the listing is the one meant
    return names


def _heavy(names: set[str]) -> list[str]:
    return sorted(n for n in names if n.split(".")[0] in ("scipy", "statsmodels", "matplotlib", "jinja2"))


def test_analyze_of_the_sample_imports_no_scipy():
    names = _imported("analyze", "sample_logs/style_probe.csv", "--metric", "steps", "--noise",
                      "sample_logs/style_noise.csv")
    assert _heavy(names) == []


def test_analyze_json_of_the_sample_imports_no_scipy():
    names = _imported("analyze", "sample_logs/style_probe.csv", "--metric", "steps", "--json")
    assert _heavy(names) == []
