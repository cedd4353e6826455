"""Make the example reports from the sample logs.

Writes, next to this file:

- ``style_probe_report.md`` (plots in ``style_probe_report_files/``) and
  ``style_probe_report.html``: the 20-seed style probe with its same-versus-same log;
- ``style_probe_5seeds_report.md`` (plots in ``style_probe_5seeds_report_files/``): the
  same planted gap with 5 seeds, a null result, and how the report words it;
- ``report_screenshot.png``: the HTML report as headless chromium draws it (skipped,
  with a note, when chromium is not installed).

The design facts the logs cannot hold come from ``style_probe.toml``.

Run: ``python examples/make_examples.py``
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from probestats import analyze  # noqa: E402
from probestats.cli import write_whole  # noqa: E402
from probestats.shape.design import load_design  # noqa: E402
from probestats.analyses.plan import with_design_power  # noqa: E402
from probestats.present.report.document import render_report  # noqa: E402

LOGS = ROOT / "sample_logs"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars", "--proxy-server=127.0.0.1:9"]


def markdown(analysis, design, path: Path) -> None:
    """Images first (into PATH_files/), then the Markdown file, each written whole."""
    assets = path.parent / f"{path.stem}_files"
    if assets.exists():
        shutil.rmtree(assets)
    write_whole(path, render_report(analysis, format="md", design=design, assets_dir=assets))
    print(f"wrote {path.relative_to(ROOT)} and {assets.relative_to(ROOT)}/")


def screenshot(page: Path, out: Path) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        print("chromium is not installed: kept the old screenshot (apt-get install -y chromium)")
        return
    with tempfile.TemporaryDirectory() as profile, tempfile.TemporaryDirectory() as folder:
        shot = Path(folder) / "shot.png"
        subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}",
                        "--window-size=1200,2000", page.as_uri()], check=True, capture_output=True, timeout=120)
        write_whole(out, shot.read_bytes())
    print(f"wrote {out.relative_to(ROOT)}")


def main() -> None:
    design = load_design(HERE / "style_probe.toml")
    # the power curve is simulated in the analysis step, as probestats report does it
    full = with_design_power(analyze(str(LOGS / "style_probe.csv"), metric="steps", a="formal", b="casual",
                                     noise=str(LOGS / "style_noise.csv")), design.gap_of_interest)
    markdown(full, design, HERE / "style_probe_report.md")
    html = HERE / "style_probe_report.html"
    write_whole(html, render_report(full, format="html", design=design))
    print(f"wrote {html.relative_to(ROOT)}")
    five = with_design_power(analyze(str(LOGS / "style_probe_5seeds.csv"), metric="steps", a="formal", b="casual",
                                     noise=str(LOGS / "style_noise.csv")), design.gap_of_interest)
    markdown(five, design, HERE / "style_probe_5seeds_report.md")
    screenshot(html, HERE / "report_screenshot.png")


if __name__ == "__main__":
    main()
