"""plan's progress: a bar on a terminal as the designs are simulated; piped, a plain line only once the work has
taken a few seconds (so a quick plan writes nothing), with --json as without (it goes to standard error)."""

from __future__ import annotations

import io

from click.testing import CliRunner
from rich.console import Console

from probestats.analyses.plan import Sizing
import probestats.present.words.plan as plan_text
from probestats.analyses.plan import plan_probe
from probestats.cli import cli


def draw(terminal: bool, enabled: bool) -> str:
    out = io.StringIO()
    console = Console(file=out, force_terminal=terminal, width=100)
    with plan_text.plan_progress(console, enabled=enabled) as progress:
        plan_probe(1.0, items=[30], runs=[2, 3], progress=progress, sizing=Sizing(sims=200))
    return out.getvalue()


def test_the_bar_is_drawn_on_a_terminal_only():
    shown = draw(terminal=True, enabled=True)
    assert "simulating designs" in shown and "2/2 designs" in shown
    assert draw(terminal=False, enabled=True) == ""     # piped, and quick: nothing
    assert draw(terminal=True, enabled=False) == ""     # turned off: nothing


def test_plan_json_keeps_the_progress_on_standard_error(monkeypatch, tmp_path):
    # changed: --json used to turn the progress off; the progress goes to standard error, so the JSON on standard
    # output is the same either way, and a long plan run for its JSON still says how far it is
    asked = []
    real = plan_text.plan_progress

    def spy(console, enabled=True):
        asked.append(enabled)
        return real(console, enabled)

    monkeypatch.setattr(plan_text, "plan_progress", spy)
    noise = tmp_path / "noise.csv"
    noise.write_text("item,variant,x\n" + "".join(f"{i},a,{(i * 7 + r) % 5}\n" for i in range(6) for r in range(4)))
    for extra in (["--json"], []):
        res = CliRunner().invoke(cli, ["plan", "--noise", str(noise), "--metric", "x", "--items", "8", "--runs", "3",
                                       "--sims", "100", *extra])
        assert res.exit_code == 0, res.output
    assert asked == [True, True]
