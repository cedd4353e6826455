"""Screenshots of each step of the local page (``probestats serve``), as headless chromium draws them.

Starts ``probestats serve`` on a free port, walks a person's path with the hand-kept spreadsheet
alone (``sample_logs/style_hand.xlsx``: no second file), and writes, in
``examples/serve_screenshots/``:

- ``1_upload.png``, ``2_columns.png`` (the columns and the metric found, the options),
  ``3_check_error.png`` (a wrong item column), ``4_check_ok.png`` (what the report will compare,
  what the page was told), ``5_report.png`` (the plain report, its downloads),
  ``5_report_details.png`` (the report's method details opened), ``6_plan.png`` (sized from the
  spreadsheet's own runs);
- ``2_columns_360px.png``: the column page on a 360-pixel-wide screen;
- ``7_framing_columns.png`` and ``8_framing_report.png``: a dual-framing log
  (``sample_logs/framing_long.csv``), its analysis offered on the column page with the targets of
  ``sample_logs/framing_targets.csv`` typed in, and its report;
- ``9_messy_check.png`` and ``10_messy_folded.png``: the hand sheet with a capitalized value
  ('Formal' beside 'formal'): the check naming the fix by its control, and the check once "Fold case"
  is ticked;
- ``11_control_check.png`` and ``12_control_report.png``: a log with a key-typo value beside the baseline and
  the attribute's value: the check's design naming “Control value”, and the report once it is chosen;
- ``13_plan_mechanism.png``: the plan of a count whose runs cannot tell how a gap acts, naming “How the gap
  acts”;
- ``14_order_report.png``: an order probe of two judges, its plain report.

Needs chromium, chromium-driver and Selenium (``pip install ".[test]"``).

Run: ``python examples/make_serve_screenshots.py``
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "serve_screenshots"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars",
         "--proxy-server=127.0.0.1:9"]


def start() -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "probestats", "serve"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    found = re.search(r"(http://127\.0\.0\.1:\d+/[\w-]+/)", line)
    if not found:
        proc.kill()
        raise SystemExit(f"probestats serve did not start: {line}{proc.stderr.read()}")
    return proc, found.group(1)


def shot(driver, name: str, width: int = 1000) -> None:
    """A screenshot of the whole page (its full height) at ``width`` pixels."""
    driver.set_window_size(width, 800)
    total = driver.find_element("tag name", "body").size["height"] + 40
    driver.set_window_size(width, max(600, min(int(total), 4000)))
    driver.save_screenshot(str(OUT / name))
    print(f"wrote {(OUT / name).relative_to(ROOT)}")


def main() -> None:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    OUT.mkdir(exist_ok=True)
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp()
    options.add_argument(f"--user-data-dir={profile}")
    proc, url = start()
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)

    def wait(css: str, timeout: float = 600):
        return WebDriverWait(driver, timeout).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))

    try:
        driver.get(url)
        shot(driver, "1_upload.png")
        driver.find_element(By.ID, "log").send_keys(str(ROOT / "sample_logs" / "style_hand.xlsx"))
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait("#metric")
        shot(driver, "2_columns.png")
        shot(driver, "2_columns_360px.png", width=360)
        Select(driver.find_element(By.ID, "col-item")).select_by_visible_text("run_id")
        driver.find_element(By.CSS_SELECTOR, "button[value=validate]").click()
        wait("#verdict")
        shot(driver, "3_check_error.png")
        driver.find_element(By.CSS_SELECTOR, "#verdict a").click()  # the column page, where the fix is
        Select(wait("#col-item")).select_by_visible_text("item")
        driver.find_element(By.CSS_SELECTOR, "button[value=validate]").click()
        wait("#to-results")
        shot(driver, "4_check_ok.png")
        driver.find_element(By.ID, "to-results").click()
        wait("#command")
        shot(driver, "5_report.png")
        report_details(driver, wait)
        driver.find_element(By.ID, "to-plan").click()
        for field, value in (("items", "6,8,12"), ("runs", "5,10"), ("gap", "1"), ("sims", "400")):
            box = wait(f"#{field}")
            box.clear()
            box.send_keys(value)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait("#plan-table")
        shot(driver, "6_plan.png")
        framing(driver, url, wait)
        messy(driver, url, wait)
        control(driver, url, wait)
        mechanism(driver, url, wait)
        order(driver, url, wait)
    finally:
        driver.quit()
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        shutil.rmtree(profile, ignore_errors=True)


def framing(driver, url: str, wait) -> None:
    """The dual-framing steps: the column page offering the analysis, with targets typed in; the report."""
    import csv

    from selenium.webdriver.common.by import By

    with (ROOT / "sample_logs" / "framing_targets.csv").open(encoding="utf-8", newline="") as handle:
        targets = {row["topic"]: (row["affirmative"], row["reverse"]) for row in csv.DictReader(handle)}
    driver.get(url)
    driver.find_element(By.ID, "log").send_keys(str(ROOT / "sample_logs" / "framing_long.csv"))
    driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait("#analysis-framing")
    for n, cell in enumerate(driver.find_elements(By.CSS_SELECTOR, "table.targets th[scope=row]")):
        driver.find_element(By.ID, f"target-aff-{n}").send_keys(targets[cell.text][0])
        driver.find_element(By.ID, f"target-rev-{n}").send_keys(targets[cell.text][1])
    driver.find_element(By.CSS_SELECTOR, "button[value=update]").click()
    wait("#analysis-command")
    shot(driver, "7_framing_columns.png")
    driver.find_element(By.CSS_SELECTOR, "button[value=validate]").click()
    wait("#to-results").click()
    wait("#analysis-command")
    shot(driver, "8_framing_report.png")


def report_details(driver, wait) -> None:
    """The report alone, its method details opened (a person clicks the summary)."""
    from selenium.webdriver.common.by import By

    page = driver.current_url
    driver.get(driver.find_element(By.CSS_SELECTOR, "iframe.report").get_attribute("src"))
    wait("#method-details summary").click()
    shot(driver, "5_report_details.png")
    driver.get(page)
    wait("#command")


def messy(driver, url: str, wait) -> None:
    """The hand sheet with 'Formal' beside 'formal': the check names its fix, then the fix ticked."""
    import tempfile

    import polars as pl
    from selenium.webdriver.common.by import By

    log = pl.read_csv(ROOT / "sample_logs" / "style_hand.csv")
    titled = pl.when(pl.col("seed") == 5).then(pl.col("variant").str.to_titlecase()).otherwise(pl.col("variant"))
    folder = Path(tempfile.mkdtemp())
    try:
        log.with_columns(titled.alias("variant")).write_csv(folder / "messy_sheet.csv")
        driver.get(url)
        driver.find_element(By.ID, "log").send_keys(str(folder / "messy_sheet.csv"))
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait("button[value=validate]").click()
        wait("#verdict")
        shot(driver, "9_messy_check.png")
        driver.find_element(By.LINK_TEXT, "Back: change the columns").click()
        wait("#opt-fold_case").click()
        driver.find_element(By.CSS_SELECTOR, "button[value=validate]").click()
        wait("#verdict")
        shot(driver, "10_messy_folded.png")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def control(driver, url: str, wait) -> None:
    """A value named as an edit: the check's design names the control; with it chosen, the report."""
    import polars as pl
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    folder = Path(tempfile.mkdtemp())
    try:
        rows = [{"item": i, "variant": v, "seed": s, "score": x + 0.3 * ((s * 7 + i) % 3)} for i in range(8)
                for s in range(3) for v, x in (("plain", 0.0), ("bias", 1.0 + i % 2), ("typo", 0.2 * (i % 2)))]
        pl.DataFrame(rows).write_csv(folder / "edits.csv")
        driver.get(url)
        driver.find_element(By.ID, "log").send_keys(str(folder / "edits.csv"))
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        Select(wait("#metric")).select_by_visible_text("score")
        driver.find_element(By.CSS_SELECTOR, "button[value=validate]").click()
        wait("#design-roles")
        shot(driver, "11_control_check.png")
        driver.find_element(By.CSS_SELECTOR, "#design-roles li[data-role='Control wording'] a").click()
        Select(wait("#opt-control")).select_by_visible_text("typo")
        Select(driver.find_element(By.ID, "opt-baseline")).select_by_visible_text("plain")
        driver.find_element(By.CSS_SELECTOR, "button[value=validate]").click()
        wait("#to-results").click()
        wait("#command")
        driver.get(driver.find_element(By.CSS_SELECTOR, "iframe.report").get_attribute("src"))
        wait("#control")
        driver.execute_script("document.getElementById('control').scrollIntoView()")
        shot(driver, "12_control_report.png")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def mechanism(driver, url: str, wait) -> None:
    """A count whose runs spread as Poisson counts do: the plan names “How the gap acts”."""
    import numpy as np
    import polars as pl
    from selenium.webdriver.common.by import By

    folder = Path(tempfile.mkdtemp())
    try:
        rng = np.random.default_rng(1)
        pl.DataFrame([{"item": i, "variant": v, "seed": s, "tokens": int(rng.poisson(20 + 5 * i))} for i in range(8)
                      for v in ("a", "b") for s in range(5)]).write_csv(folder / "counts.csv")
        driver.get(url)
        driver.find_element(By.ID, "log").send_keys(str(folder / "counts.csv"))
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait("button[value=validate]").click()
        wait("#to-results").click()
        wait("#to-plan").click()
        for field, value in (("items", "6,10"), ("runs", "5"), ("sims", "200")):
            box = wait(f"#{field}")
            box.clear()
            box.send_keys(value)
        driver.find_element(By.CSS_SELECTOR, "form button[type=submit]").click()
        wait("#mechanism-hint")
        shot(driver, "13_plan_mechanism.png")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def order(driver, url: str, wait) -> None:
    """An order probe of two judges: its plain report."""
    import numpy as np
    import polars as pl
    from selenium.webdriver.common.by import By

    folder = Path(tempfile.mkdtemp())
    try:
        rng = np.random.default_rng(5)
        rows = []
        for judge, first in (("judge-1", 0.75), ("judge-2", 0.5)):
            for i in range(16):
                for order_ in ("AB", "BA"):
                    choice = "first" if rng.random() < first else "second"
                    rows.append({"judge": judge, "item": f"q{i:02d}", "order": order_, "choice": choice})
        pl.DataFrame(rows).write_csv(folder / "order_probe.csv")
        driver.get(url)
        driver.find_element(By.ID, "log").send_keys(str(folder / "order_probe.csv"))
        driver.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
        wait("#analysis-judge")
        driver.find_element(By.CSS_SELECTOR, "button[value=validate]").click()
        wait("#to-results").click()
        wait("#command")
        driver.get(driver.find_element(By.CSS_SELECTOR, "iframe.report").get_attribute("src"))
        wait("main")
        shot(driver, "14_order_report.png")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
