"""The HTML report in a real browser: Debian's chromium, headless.

Checks what the browser itself builds from the page (``--dump-dom``): the table rows and
the images are there, text from a hostile log stays text, and no script from the log
became an element. Loading anything from the network is refused twice over: the page
carries a strict Content-Security-Policy (checked to work by a control page that tries
to load an image), and chromium runs behind a proxy address where nothing listens.
A screenshot is taken and checked to be a real picture.

Skipped when chromium is absent, unless ``PROBESTATS_REQUIRE_BROWSER=1`` (CI) makes that
a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from probestats import analyze
from probestats.analyses.plan import with_design_power
from probestats.present.report.document import render_report

ROOT = Path(__file__).resolve().parent.parent
PROBE = ROOT / "sample_logs" / "style_probe.csv"
NOISE = ROOT / "sample_logs" / "style_noise.csv"
HOSTILE = ROOT / "sample_logs" / "broken" / "hostile.csv"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--hide-scrollbars",
         # nothing listens on port 9 of this machine: a request that slipped past the page's
         # Content-Security-Policy would fail here instead of leaving the machine
         "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]


@pytest.fixture(scope="module")
def chromium():
    if not Path(CHROMIUM).exists():
        if os.environ.get("PROBESTATS_REQUIRE_BROWSER") == "1":
            pytest.fail("chromium is not installed and PROBESTATS_REQUIRE_BROWSER=1: apt-get install -y chromium")
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    return CHROMIUM


def run_browser(chromium, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    return subprocess.run([chromium, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True,
                          text=True, timeout=120, check=True)


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.stack: list[str] = []
        self.rows: dict[str, int] = {}
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "tr":
            where = next((t for t in reversed(self.stack) if t in ("thead", "tbody", "tfoot")), "table")
            self.rows[where] = self.rows.get(where, 0) + 1
        if tag not in ("img", "meta", "br", "link", "input"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        self.text.append(data)


def dump_dom(chromium, tmp_path, page: Path) -> Dom:
    out = run_browser(chromium, tmp_path, "--dump-dom", page.as_uri())
    dom = Dom()
    dom.feed(out.stdout)
    return dom


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pages")
    style = folder / "style.html"
    style.write_text(render_report(with_design_power(analyze(str(PROBE), metric="steps", noise=str(NOISE))),
                                    format="html"),
                     encoding="utf-8")
    hostile = folder / "hostile.html"
    hostile.write_text(render_report(analyze(str(HOSTILE), metric="steps"), format="html"), encoding="utf-8")
    return {"style": style, "hostile": hostile}


def test_the_browser_builds_the_table_and_the_images(chromium, pages, tmp_path):
    dom = dump_dom(chromium, tmp_path, pages["style"])
    item_table = [a for t, a in dom.tags if t == "table" and a.get("class") == "items"]
    assert len(item_table) == 1
    # 8 item rows in the item table and 2 in the noise table; the average row and its 95% interval row
    assert dom.rows["tbody"] == 8 + 2 and dom.rows["tfoot"] == 2
    text = " ".join(dom.text)
    for item in range(8):
        assert re.search(rf"\b{item}\b", text)
    images = [a for t, a in dom.tags if t == "img"]
    assert len(images) == 2
    assert all(a["src"].startswith("data:image/png;base64,") and len(a["src"]) > 10_000 for a in images)
    assert "average" in text and "+0.6375" in text


def test_a_hostile_log_stays_text_in_the_browser(chromium, pages, tmp_path):
    dom = dump_dom(chromium, tmp_path, pages["hostile"])
    tags = [t for t, _ in dom.tags]
    assert "script" not in tags                              # no script element at all
    assert not {"b", "i", "iframe", "object", "a"} & set(tags)
    assert all(a["src"].startswith("data:image/png;base64,") for t, a in dom.tags if t == "img")
    assert not [k for _, a in dom.tags for k in a if k.startswith("on")]
    text = "".join(dom.text)
    assert "<script>alert(1)</script>" in text               # the item, shown as text
    assert "<img src=x onerror=alert(1)>" in text            # the value, shown as text
    assert "casual|pipe" in text and "{{ 7*7 }} {% raw %}" in text


def test_every_hostile_string_of_the_campaign_stays_text_in_the_browser(chromium, tmp_path):
    # each hostile string of tests/hostile/campaign.py as an item name: Chromium's DOM holds no element
    # or attribute from the log, no raw control character, and the escape sequences shown visibly
    import sys

    sys.path.insert(0, str(ROOT))
    from tests.hostile.campaign import HOSTILE as STRINGS

    names = [t for t in STRINGS if t.strip("\x00")]
    rows = [{"item": name, "variant": v, "seed": s, "steps": (i % 3) + (v == "formal") + s % 2}
            for i, name in enumerate(names) for v in ("formal", "casual") for s in (1, 2)]
    page = tmp_path / "campaign.html"
    page.write_text(render_report(analyze(rows, metric="steps"), format="html"), encoding="utf-8")
    dom = dump_dom(chromium, tmp_path, page)
    tags = {t for t, _ in dom.tags}
    assert "script" not in tags and not {"b", "i", "a", "iframe", "object"} & tags
    assert not [a for _, a in dom.tags if a.get("id") == "PWNED"]
    assert not [k for _, a in dom.tags for k in a if k.startswith("on")]
    assert all(a["src"].startswith("data:image/png;base64,") for t, a in dom.tags if t == "img")
    text = "".join(dom.text)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text)
    assert "\\x1b]52;c;cHdu\\x07" in text and "<U+202E>" in text   # shown, not obeyed
    assert "<b id=PWNED>b</b>" in text and "<script>alert(1)</script>" in text


def test_nothing_is_loaded_from_the_network(chromium, pages, tmp_path):
    html = pages["style"].read_text(encoding="utf-8")
    dom = Dom()
    dom.feed(html)
    for tag, attrs in dom.tags:
        for key in ("src", "href", "srcset", "action", "data", "poster"):
            value = attrs.get(key) or ""
            assert not re.match(r"\s*([a-z][a-z0-9+.-]*:)?//", value, re.I), (tag, key)
    csp = [a["content"] for t, a in dom.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert csp and csp[0].startswith("default-src 'none'; img-src data:; style-src 'unsafe-inline'")
    # control: the same page with an image from elsewhere; the browser refuses it because of the CSP
    control = tmp_path / "control.html"
    control.write_text(html.replace("<main>", '<main><img id="outside" src="http://127.0.0.1:9/x.png">', 1),
                       encoding="utf-8")
    out = run_browser(chromium, tmp_path, "--enable-logging=stderr", "--v=0", "--dump-dom", control.as_uri())
    assert "violates the following Content Security Policy directive" in out.stderr
    assert "http://127.0.0.1:9/x.png" in out.stderr
    # and the report itself triggers no such refusal: it asks for nothing
    out = run_browser(chromium, tmp_path, "--enable-logging=stderr", "--v=0", "--dump-dom", pages["style"].as_uri())
    assert "Content Security Policy" not in out.stderr


def test_a_screenshot_shows_a_real_page(chromium, pages, tmp_path):
    from PIL import Image

    shot = tmp_path / "report_screenshot.png"
    run_browser(chromium, tmp_path, f"--screenshot={shot}", "--window-size=1200,2000", pages["style"].as_uri())
    assert shot.stat().st_size > 20_000
    with Image.open(shot) as image:
        assert image.size == (1200, 2000)
        colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
    assert colours is None or len(colours) > 50       # text, tables and plots, not one flat colour


def test_the_committed_screenshot_is_a_real_picture():
    from PIL import Image

    shot = ROOT / "examples" / "report_screenshot.png"
    if not shot.exists():
        pytest.skip("examples/report_screenshot.png not made yet (python examples/make_examples.py)")
    assert shot.stat().st_size > 20_000
    with Image.open(shot) as image:
        extrema = image.convert("L").getextrema()
    assert extrema[1] - extrema[0] > 100
