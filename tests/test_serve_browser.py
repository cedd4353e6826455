"""The local page of ``probestats serve`` in a real browser: Debian's chromium driven by Selenium
through chromium-driver, against the real command on a free port.

A person's path: upload the hand-kept spreadsheet and its same-versus-same file, map the columns,
meet a validation error (a wrong item column) and fix it by choosing another column, get the
report, download its Markdown and check it is byte-identical to what ``probestats report`` writes
when run with the command the page shows; then size the next probe and check the power table and
its JSON against ``probestats plan --json`` run with the planner's command.

Skipped when chromium, chromium-driver or Selenium is absent, unless ``PROBESTATS_REQUIRE_BROWSER=1``
(CI) makes that a failure.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
HAND = ROOT / "sample_logs" / "style_hand.xlsx"
NOISE = ROOT / "sample_logs" / "style_noise.csv"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps", "--disable-extensions", "--window-size=1000,1400",
         # nothing listens on port 9: a request for anything but this machine (where the page is) fails there
         "--proxy-server=127.0.0.1:9"]


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return "chromium is not installed (apt-get install -y chromium)"
    if not Path(DRIVER).exists():
        return "chromium-driver is not installed (apt-get install -y chromium-driver)"
    try:
        import selenium  # noqa: F401
        import starlette  # noqa: F401
    except ImportError:
        return "selenium or starlette is not installed (pip install -e .[test])"
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    why = _missing()
    if why:
        if os.environ.get("PROBESTATS_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{why}, and PROBESTATS_REQUIRE_BROWSER=1")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    downloads = tmp_path_factory.mktemp("downloads")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('profile')}")
    options.add_experimental_option("prefs", {"download.default_directory": str(downloads),
                                              "download.prompt_for_download": False})
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    driver.implicitly_wait(0)
    driver.downloads = downloads
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    if _missing():
        pytest.skip(_missing())
    tmp = tmp_path_factory.mktemp("serve")
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp))
    proc = subprocess.Popen([sys.executable, "-m", "probestats", "serve"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    found = re.search(r"(http://127\.0\.0\.1:\d+/[\w-]+/)", line)
    assert found, line
    yield found.group(1)
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)


def wait_for(driver, css: str, timeout: float = 300):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def choose(driver, css: str, value: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.CSS_SELECTOR, css)).select_by_value(value)


def downloaded(folder: Path, name: str, timeout: float = 60) -> bytes:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        path = folder / name
        if path.is_file() and not list(folder.glob("*.crdownload")):
            return path.read_bytes()
        time.sleep(0.2)
    raise AssertionError(f"{name} was not downloaded: {sorted(p.name for p in folder.iterdir())}")


def run_shown(command: str, folder: Path) -> subprocess.CompletedProcess:
    """Run a command exactly as the page shows it, in a folder holding the files it names."""
    args = shlex.split(command)
    assert args[0] == "probestats"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "probestats", *args[1:]], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=600, check=True)


def test_a_person_gets_the_report_and_the_plan_the_commands_give(browser, server, tmp_path):
    from selenium.webdriver.common.by import By

    folder = tmp_path / "files"
    folder.mkdir()
    shutil.copy(HAND, folder / HAND.name)
    shutil.copy(NOISE, folder / NOISE.name)
    browser.get(server)
    browser.find_element(By.ID, "log").send_keys(str(folder / HAND.name))
    browser.find_element(By.ID, "noise").send_keys(str(folder / NOISE.name))
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    # map: the sheet and the headers are found; a wrong item column first
    wait_for(browser, "#metric")
    # the page's styles passed its Content-Security-Policy (they carry its nonce)
    assert browser.execute_script("return getComputedStyle(document.body).maxWidth") == "960px"
    assert "run_id" in browser.page_source
    choose(browser, "#metric", "steps")
    choose(browser, "#col-item", "run_id")
    browser.find_element(By.CSS_SELECTOR, "button[value=validate]").click()
    verdict = wait_for(browser, "#verdict").text
    assert "the report cannot be made" in verdict
    assert not browser.find_elements(By.ID, "to-results")  # errors block the next step
    assert "unmatched_item" in browser.page_source

    # fix it by choosing another column
    browser.find_element(By.LINK_TEXT, "choosing another column").click()
    choose(browser, "#col-item", "item")
    browser.find_element(By.CSS_SELECTOR, "button[value=validate]").click()
    wait_for(browser, "#to-results").click()

    # the report, its command, and the Markdown download
    command = wait_for(browser, "#command").text
    assert command.startswith("probestats report style_hand.xlsx --metric steps --noise style_noise.csv")
    browser.find_element(By.ID, "dl-md").click()
    page_md = downloaded(browser.downloads, "report.md")
    run_shown(command, folder)
    assert page_md == (folder / "report.md").read_bytes()
    frame = browser.find_element(By.CSS_SELECTOR, "iframe.report")
    browser.switch_to.frame(frame)
    assert "Probe report: steps" in browser.find_element(By.TAG_NAME, "h1").text
    browser.switch_to.default_content()

    # the planner: a power table for typed designs, against plan --json
    browser.find_element(By.LINK_TEXT, "Size the next probe").click()
    for field, value in (("items", "6,8"), ("runs", "5,10"), ("gap", "1"), ("sims", "150")):
        box = wait_for(browser, f"#{field}")
        box.clear()
        box.send_keys(value)
    browser.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
    table = wait_for(browser, "#plan-table", timeout=600)
    rows = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    plan_command = browser.find_element(By.ID, "plan-command").text
    assert plan_command.endswith("--json")
    printed = run_shown(plan_command, folder).stdout
    cells = json.loads(printed)["cells"]
    from probestats.present.fmt import fmt_num, fmt_pct

    assert rows == [[str(c["items"]), str(c["runs"]), fmt_num(c["mdg"]), fmt_pct(c["power"], "n/a")]
                    for c in cells]
    assert len(rows) == 4
    browser.find_element(By.ID, "dl-plan").click()
    assert downloaded(browser.downloads, "plan.json").decode("utf-8") == printed


FRAMING = ROOT / "sample_logs" / "framing_long.csv"
TARGETS = ROOT / "sample_logs" / "framing_targets.csv"


def test_a_person_gets_the_framing_report_and_analysis_the_commands_give(browser, server, tmp_path):
    import csv

    from selenium.webdriver.common.by import By

    downloads = tmp_path / "downloads"  # a folder of this test's own: no name taken by an earlier download
    downloads.mkdir()
    browser.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads)})
    folder = tmp_path / "files"
    folder.mkdir()
    shutil.copy(FRAMING, folder / FRAMING.name)
    browser.get(server)
    browser.find_element(By.ID, "log").send_keys(str(folder / FRAMING.name))
    browser.find_element(By.CSS_SELECTOR, "button[type=submit]").click()

    # the column page finds the framing column: the dual framing is offered, chosen, and its topics asked about
    assert wait_for(browser, "#analysis-framing").is_selected()
    with TARGETS.open(encoding="utf-8", newline="") as handle:
        targets = {row["topic"]: (row["affirmative"], row["reverse"]) for row in csv.DictReader(handle)}
    for n, cell in enumerate(browser.find_elements(By.CSS_SELECTOR, "table.targets th[scope=row]")):
        affirmative, reverse = targets[cell.text]
        browser.find_element(By.ID, f"target-aff-{n}").send_keys(affirmative)
        browser.find_element(By.ID, f"target-rev-{n}").send_keys(reverse)
    browser.find_element(By.CSS_SELECTOR, "button[value=validate]").click()
    wait_for(browser, "#to-results").click()

    command = wait_for(browser, "#command").text
    analysis = browser.find_element(By.ID, "analysis-command").text
    assert command == "probestats report --framing framing_long.csv --set framing.targets=targets.csv -o report.md"
    assert analysis == "probestats framing framing_long.csv --targets targets.csv --json"
    for link, name in (("dl-targets", "targets.csv"), ("dl-md", "report.md"), ("dl-analysis", "analysis.json")):
        browser.find_element(By.ID, link).click()
        downloaded(downloads, name)
    shutil.copy(downloads / "targets.csv", folder / "targets.csv")
    run_shown(command, folder)
    assert (downloads / "report.md").read_bytes() == (folder / "report.md").read_bytes()
    assert (downloads / "analysis.json").read_text(encoding="utf-8") == run_shown(analysis, folder).stdout
    frame = browser.find_element(By.CSS_SELECTOR, "iframe.report")
    browser.switch_to.frame(frame)
    assert "Dual-framing report" in browser.find_element(By.TAG_NAME, "h1").text
    browser.switch_to.default_content()
