"""The local page of ``probestats serve`` in a real browser: Debian's chromium driven by Selenium
through chromium-driver, against the real command on a free port.

A person's paths: the hand-kept spreadsheet alone, from the upload to the report and the plan in six
clicks (the report, its zip and the plan byte-identical to what the commands the page shows write);
two tabs on one upload choosing opposite values, each keeping its own report and plan through the back
button and a reload; a two-line design answer kept in the form, the design file and the report; a
header with spaces kept on the way back to the columns; the messy sheet folded on the page and a
judge's log split by its criterion, each as the command does it; a dual-framing log.

Skipped when chromium, chromium-driver or Selenium is absent, unless ``PROBESTATS_REQUIRE_BROWSER=1``
(CI) makes that a failure.
"""

from __future__ import annotations

import io
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
import zipfile
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
         # a tab the test has switched away from keeps running at full speed, as the tab a person looks at does
         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
         "--disable-backgrounding-occluded-windows",
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
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp), PYTHONUNBUFFERED="1")
    # the command's output goes to files, never to a pipe nobody reads: a full pipe would stop the server mid-test
    out, err = tmp / "stdout.txt", tmp / "stderr.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "probestats", "serve"], cwd=ROOT, env=env,
                                stdout=stdout, stderr=stderr, text=True)
    deadline = time.monotonic() + 120
    while not (found := re.search(r"(http://127\.0\.0\.1:\d+/[\w-]+/)", out.read_text())):
        assert proc.poll() is None and time.monotonic() < deadline, out.read_text() + err.read_text()
        time.sleep(0.1)
    SERVER_OUTPUT[:] = [err]
    yield found.group(1)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=60)
    SERVER_OUTPUT.clear()


#: where the running server writes its errors, for a test's failure message
SERVER_OUTPUT: list[Path] = []


def answered(href: str | None) -> str:
    """Whether the server answers the link's address when asked directly (for a failure's message)."""
    if not href:
        return ""
    import urllib.request

    try:
        with urllib.request.urlopen(href, timeout=10) as answer:
            return f"; asked directly, the server answers its link with {answer.status}"
    except Exception as error:   # any failure is the message's news
        return f"; asked directly, the server did not answer its link: {error!r}"


def server_said() -> str:
    """The end of what the server has written to its standard error (nothing when it wrote nothing)."""
    said = SERVER_OUTPUT[0].read_text(errors="replace")[-2000:] if SERVER_OUTPUT else ""
    return f"; the server wrote: {said}" if said.strip() else "; the server wrote nothing"


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


def fetch(driver, href: str) -> bytes:
    """What a link of the page downloads (fetched at the address the browser holds)."""
    import urllib.parse
    import urllib.request

    with urllib.request.urlopen(urllib.parse.urljoin(driver.current_url, href), timeout=300) as answer:
        return answer.read()


def moving(error) -> bool:
    """Whether a browser's error means only that the page is between two documents: the old one's element is
    stale or its node "does not belong to the document", no element is found yet, or a script met no page."""
    from selenium.common.exceptions import (JavascriptException, NoSuchElementException,
                                            StaleElementReferenceException)

    return (isinstance(error, (JavascriptException, NoSuchElementException, StaleElementReferenceException))
            or "does not belong to the document" in str(error) or "No node with given id" in str(error))


def gone(page):
    """A wait's condition: the page (its html element) has been replaced."""
    from selenium.common.exceptions import WebDriverException

    def replaced(_driver) -> bool:
        try:
            page.is_enabled()
            return False
        except WebDriverException as error:
            if moving(error):
                return True
            raise

    return replaced


class Person:
    """The browser, counting what a person does: each click and each file chosen."""

    def __init__(self, driver):
        self.driver, self.clicks = driver, 0

    def click(self, css: str, timeout: float = 300, *, navigates: bool = False):
        """Click once the page has loaded; with navigates, return once the page it leaves is gone, so that the
        next look finds an element of the new page and never one of the old page about to be replaced.

        A click the page answers by loading another (a form's button) leaves a moment with no document at all:
        a look then finds nothing, or finds the old page's element gone stale, and the click is tried again
        on the page that has loaded. Then, as a person would, a click is made again when the page stays: one
        that never reached its element after 30 s (the page moved under it), and a link's after 60 s (a link
        only asks for a page: twice is as once). A button's click that reached it is never repeated."""
        from selenium.common.exceptions import TimeoutException, WebDriverException
        from selenium.webdriver.support.ui import WebDriverWait

        deadline = time.monotonic() + timeout

        def loaded(driver) -> bool:
            try:
                return driver.execute_script("return document.readyState") == "complete"
            except WebDriverException as error:
                if moving(error):
                    return False
                raise

        while True:
            try:
                WebDriverWait(self.driver, max(deadline - time.monotonic(), 1)).until(loaded)
                page = self.driver.find_element("tag name", "html")
                element = wait_for(self.driver, css, max(deadline - time.monotonic(), 1))
                href = element.get_attribute("href") if element.tag_name == "a" else None
                clicked = self._click_seen(element)
                break
            except TimeoutException:
                raise AssertionError(f"{css!r} did not appear within {timeout} s{server_said()}") from None
            except WebDriverException as error:
                if not moving(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.clicks += 1
        while navigates:
            try:
                WebDriverWait(self.driver, min(max(deadline - time.monotonic(), 1), 30)).until(gone(page))
                return
            except TimeoutException:
                pass
            try:
                seen = self.driver.execute_script("return window.__clickSeen === true")
            except WebDriverException as error:
                if not moving(error):
                    raise
                seen = True   # the page is going: a click now would interrupt it
            if time.monotonic() > deadline:
                raise AssertionError(f"the click on {css!r} left {self.driver.current_url} in place for "
                                     f"{timeout} s (the click {'reached' if seen else 'never reached'} it)"
                                     f"{answered(href)}{server_said()}")
            if not seen or (href and time.monotonic() - clicked > 60):
                try:
                    clicked = self._click_seen(element)
                except WebDriverException as error:
                    if not moving(error):
                        raise

    def _click_seen(self, element) -> float:
        """Click the element, marking in the page when the click event reaches it; when it was clicked."""
        self.driver.execute_script("window.__clickSeen = false; arguments[0].addEventListener('click', "
                                   "() => { window.__clickSeen = true; }, {capture: true, once: true});", element)
        element.click()
        return time.monotonic()

    def choose_file(self, css: str, path: Path):
        self.driver.find_element("css selector", css).send_keys(str(path))
        self.clicks += 1

    def choose(self, css: str, text: str):
        from selenium.webdriver.support.ui import Select

        Select(wait_for(self.driver, css)).select_by_visible_text(text)
        self.clicks += 1


def test_the_hand_sheet_alone_gives_the_report_and_the_plan_in_six_clicks(browser, server, tmp_path):
    from selenium.webdriver.common.by import By

    folder = tmp_path / "files"
    folder.mkdir()
    shutil.copy(HAND, folder / HAND.name)
    person = Person(browser)
    browser.get(server)
    person.choose_file("#log", folder / HAND.name)
    person.click("button[type=submit]")
    # the column page: the sheet, the item and the one column of numbers are found and shown chosen
    wait_for(browser, "#metric")
    assert browser.execute_script("return getComputedStyle(document.body).maxWidth") == "960px"  # styles passed
    from selenium.webdriver.support.ui import Select

    assert Select(browser.find_element(By.ID, "metric")).first_selected_option.text == "steps"
    person.click("button[value=validate]")
    assert "The report compares ‘formal’ and ‘casual’" in wait_for(browser, "#compared").text
    person.click("#to-results")
    command = wait_for(browser, "#command").text
    assert command == "probestats report style_hand.xlsx --metric steps --read sheet=runs --plain -o report.md"
    run_shown(command, folder)
    links = {a.get_attribute("id"): a.get_attribute("href")
             for a in browser.find_elements(By.CSS_SELECTOR, "a[id^=dl-]")}
    assert fetch(browser, links["dl-md"]) == (folder / "report.md").read_bytes()
    archive = zipfile.ZipFile(io.BytesIO(fetch(browser, links["dl-zip"])))
    written = ["report.md"] + sorted(f"report_files/{p.name}" for p in (folder / "report_files").iterdir())
    assert sorted(archive.namelist()) == written and "report_files/item_gaps.png" in written
    for name in archive.namelist():
        assert archive.read(name) == (folder / name).read_bytes(), name
    frame = browser.find_element(By.CSS_SELECTOR, "iframe.report")
    browser.switch_to.frame(frame)
    assert "Probe report: steps" in browser.find_element(By.TAG_NAME, "h1").text
    assert not browser.find_element(By.ID, "method-details").get_attribute("open")  # methods folded away
    browser.switch_to.default_content()
    # the plan from the same spreadsheet: no second upload
    person.click("#to-plan")
    assert "style_hand.xlsx" in wait_for(browser, "main").text and "no second file is needed" in browser.page_source
    person.click("form button[type=submit]")
    table = wait_for(browser, "#plan-table", timeout=900)
    assert person.clicks <= 6, person.clicks
    rows = [[td.text for td in tr.find_elements(By.TAG_NAME, "td")]
            for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")]
    plan_command = browser.find_element(By.ID, "plan-command").text
    assert plan_command.startswith("probestats plan --noise style_hand.xlsx --metric steps --read sheet=runs ")
    printed = run_shown(plan_command, folder).stdout
    from probestats.present.words.fmt import fmt_num

    cells = json.loads(printed)["cells"]
    assert rows == [[str(c["items"]), str(c["runs"]), fmt_num(c["mdg"])] for c in cells]
    assert fetch(browser, browser.find_element(By.ID, "dl-plan").get_attribute("href")).decode("utf-8") == printed


def test_values_chosen_on_the_first_visit_of_a_spreadsheet_are_the_ones_compared(browser, server):
    """The first Check of an .xlsx posts the sheet shown chosen: that is no change of sheet, and the values
    chosen beside it are kept (they were dropped, and the report compared the values in the log's order)."""
    from selenium.webdriver.support.ui import Select

    person = Person(browser)
    browser.get(server)
    person.choose_file("#log", HAND)
    person.click("button[type=submit]")
    wait_for(browser, "#metric")
    person.choose("#a", "casual")   # the log's order is formal, casual: these are not the defaults
    person.choose("#b", "formal")
    person.click("button[value=validate]", navigates=True)
    assert "The report compares ‘casual’ and ‘formal’" in wait_for(browser, "#compared").text
    person.click("#to-results", navigates=True)
    assert "--a casual --b formal" in wait_for(browser, "#command").text
    browser.back()
    browser.back()  # the column page keeps them too
    assert Select(wait_for(browser, "#a")).first_selected_option.text == "casual"
    assert Select(browser.find_element("css selector", "#b")).first_selected_option.text == "formal"


def test_a_title_row_above_the_header_is_named_with_its_control_and_the_report_follows(browser, server):
    """A sheet with a title above its header: the column page names "Title rows above the header" (not "upload
    the file again"), and the number it says, typed there, gives the report."""
    import polars as pl
    from selenium.webdriver.common.by import By

    sheet = ROOT / "sample_logs" / "broken" / "title_rows.xlsx"
    # the row of column names, found by hand: the first row of the sheet whose first cell is 'run_id'
    raw = pl.read_excel(sheet, has_header=False)
    header_at = raw[raw.columns[0]].to_list().index("run_id")
    person = Person(browser)
    browser.get(server)
    person.choose_file("#log", sheet)
    person.click("button[type=submit]")
    hint = wait_for(browser, "#title-rows-hint").text
    assert "“Title rows above the header”" in hint and f"to {header_at}" in hint
    assert "upload the file again" not in browser.find_element(By.TAG_NAME, "main").text
    box = browser.find_element(By.ID, "skip_rows")
    box.clear()
    box.send_keys(str(header_at))
    person.click("button[value=validate]", navigates=True)
    assert "The report compares ‘formal’ and ‘casual’" in wait_for(browser, "#compared").text
    person.click("#to-results", navigates=True)
    assert "--read skip-rows=" + str(header_at) in wait_for(browser, "#command").text
    browser.switch_to.frame(browser.find_element(By.CSS_SELECTOR, "iframe.report"))
    assert "Probe report: steps" in wait_for(browser, "h1").text
    browser.switch_to.default_content()


def test_two_tabs_the_back_button_and_a_two_line_answer_keep_what_was_chosen(browser, server, tmp_path):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait

    person = Person(browser)
    browser.get(server)
    person.choose_file("#log", ROOT / "sample_logs" / "style_hand.csv")
    person.click("button[type=submit]")
    wait_for(browser, "#metric")
    columns = browser.current_url
    tab_a = browser.current_window_handle
    browser.switch_to.new_window("tab")
    tab_b = browser.current_window_handle
    browser.get(columns)
    plans = {}
    for tab, (a, b, items) in ((tab_a, ("formal", "casual", "6")), (tab_b, ("casual", "formal", "8"))):
        browser.switch_to.window(tab)
        person.choose("#a", a)
        person.choose("#b", b)
        # each click waits for the page it leaves to go: the other tab's pages hold the same ids
        person.click("button[value=validate]", navigates=True)
        assert f"The report compares ‘{a}’ and ‘{b}’" in wait_for(browser, "#compared").text
        person.click("#to-results", navigates=True)
        wait_for(browser, "#command")
        person.click("#to-plan", navigates=True)
        for field, value in (("items", items), ("runs", "5"), ("sims", "100")):
            box = wait_for(browser, f"#{field}")
            box.clear()
            box.send_keys(value)
        person.click("form button[type=submit]", navigates=True)
        wait_for(browser, "#plan-table", timeout=900)
        plans[tab] = browser.find_element(By.ID, "dl-plan").get_attribute("href")
    for tab, (a, b, items) in ((tab_a, ("formal", "casual", [6])), (tab_b, ("casual", "formal", [8]))):
        browser.switch_to.window(tab)
        assert [c["items"] for c in json.loads(fetch(browser, plans[tab]))["cells"]] == items
        page = browser.find_element(By.TAG_NAME, "html")
        browser.find_element(By.LINK_TEXT, "Back: the report").click()  # the report page of this tab
        WebDriverWait(browser, 300).until(gone(page))
        report = json.loads(fetch(browser, wait_for(browser, "#dl-json").get_attribute("href")))
        assert (report["a"], report["b"]) == (a, b)
        browser.refresh()  # a reload keeps it too
        assert f"--a {a} --b {b}" in wait_for(browser, "#command").text
    browser.switch_to.window(tab_b)
    browser.close()
    browser.switch_to.window(tab_a)

    # a two-line design answer stays two lines: in the form, the design file and the report
    box = wait_for(browser, "#fact-values_why")
    box.send_keys("Students write both ways.\nA tutor should help both.")
    person.click("form[action$='/facts'] button[type=submit]", navigates=True)
    assert wait_for(browser, "#fact-values_why").get_attribute("value") == ("Students write both ways.\n"
                                                                            "A tutor should help both.")
    toml = fetch(browser, browser.find_element(By.ID, "dl-toml").get_attribute("href")).decode("utf-8")
    import tomllib

    assert tomllib.loads(toml)["values_why"] == "Students write both ways.\nA tutor should help both."
    browser.switch_to.frame(browser.find_element(By.CSS_SELECTOR, "iframe.report"))
    design = browser.find_element(By.ID, "design").text
    assert "Students write both ways.\nA tutor should help both." in design
    browser.switch_to.default_content()

    # back to the columns on a sheet whose header is " Item ": the choice is kept, the check still passes
    browser.get(server)
    person.choose_file("#log", ROOT / "sample_logs" / "broken" / "friendly_headers.csv")
    person.click("button[type=submit]")
    person.choose("#metric", "Steps")
    person.click("button[value=validate]")
    assert "No errors" in wait_for(browser, "#verdict").text or "No problems" in browser.find_element(
        By.ID, "verdict").text
    browser.find_element(By.LINK_TEXT, "Back: change the columns").click()  # the column page as it was left
    item = Select(wait_for(browser, "#col-item")).first_selected_option
    assert item.get_attribute("textContent") == " Item "
    person.click("button[value=validate]")
    verdict = wait_for(browser, "#verdict").text
    assert "cannot be made" not in verdict, verdict


def test_the_messy_sheet_folded_and_the_judge_split_by_criterion(browser, server, tmp_path):
    import polars as pl
    from selenium.webdriver.common.by import By

    from tests.test_evaluator import padding_log

    folder = tmp_path / "files"
    folder.mkdir()
    log = pl.read_csv(ROOT / "sample_logs" / "style_hand.csv")
    titled = pl.when(pl.col("seed") == 5).then(pl.col("variant").str.to_titlecase()).otherwise(pl.col("variant"))
    log.with_columns(titled.alias("variant")).write_csv(folder / "messy.csv")
    pl.DataFrame(padding_log()).write_csv(folder / "judge.csv")
    person = Person(browser)

    # the messy sheet: the check names the fix by its control; ticking it gives the report the check announced
    browser.get(server)
    person.choose_file("#log", folder / "messy.csv")
    person.click("button[type=submit]")
    person.click("button[value=validate]")
    assert "the 4 values" in wait_for(browser, "#compared").text
    assert "use “Fold case”" in browser.find_element(By.CSS_SELECTOR, ".problems").text
    assert "--fold-case" not in browser.find_element(By.CSS_SELECTOR, ".problems").text
    browser.back()
    person.click("#opt-fold_case")
    person.click("button[value=validate]")
    assert "The report compares ‘formal’ and ‘casual’" in wait_for(browser, "#compared").text
    person.click("#to-results")
    command = wait_for(browser, "#command").text
    assert "--fold-case" in command
    browser.switch_to.frame(browser.find_element(By.CSS_SELECTOR, "iframe.report"))
    assert "'formal' against 'casual'" in browser.find_element(By.TAG_NAME, "h1").text
    browser.switch_to.default_content()
    run_shown(command.replace("report.md", "report.json"), folder)
    assert fetch(browser, browser.find_element(By.ID, "dl-json").get_attribute("href")) == \
        (folder / "report.json").read_bytes()

    # the judge log: split by its criterion on the page is --by criterion
    browser.get(server)
    person.choose_file("#log", folder / "judge.csv")
    person.click("button[type=submit]")
    from selenium.webdriver.support.ui import Select

    assert Select(wait_for(browser, "#opt-by")).first_selected_option.text == "criterion"  # shown chosen
    person.choose("#metric", "level")
    person.choose("#a", "padded")
    person.choose("#b", "plain")
    person.click("button[value=validate]")
    person.click("#to-results")
    command = wait_for(browser, "#command").text
    assert command == ("probestats report judge.csv --metric level --a padded --b plain --by criterion --plain "
                       "-o report.md")
    run_shown(command.replace("report.md", "report.json"), folder)
    page_json = fetch(browser, browser.find_element(By.ID, "dl-json").get_attribute("href"))
    assert page_json == (folder / "report.json").read_bytes()
    assert sorted(g["by"]["criterion"] for g in json.loads(page_json)["groups"]) == ["claims_cited",
                                                                                    "counterargument", "directness"]


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
    assert command == "probestats report --framing framing_long.csv --targets targets.csv --plain -o report.md"
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
    # model-b's leadership cell: its interval leaves out 0 while its test, corrected across the 4 cells, does not
    # reach 0.05 (tests/test_serve_person.py checks the cells against statsmodels): the report says why
    cells = json.loads((downloads / "analysis.json").read_text(encoding="utf-8"))["cells"]
    (cell,) = [c for c in cells if c["bias_p_adjusted"] > 0.05 and c["bias_ci"]["high"] < 0]
    said = browser.find_element(By.TAG_NAME, "body").text
    assert ("Its interval leaves out 0 while its test finds no lean because the interval is for this cell alone, "
            f"while the p is corrected for the {len(cells)} cells tested together") in " ".join(said.split())
    browser.switch_to.default_content()


def test_an_order_probe_judged_again_reports_after_the_repetition_control(browser, server, tmp_path):
    """An order probe whose items were judged in three rounds: the check names “Repetition” (no flag); with the
    round chosen there, the report follows."""
    from selenium.webdriver.common.by import By

    from tests.judge_factory import Judge, make_judge_log

    log = make_judge_log(items=14, judges={"j1": Judge(0.5, 0.9)}, seed=5, repetitions=3).rename(
        {"repetition": "Round", "order": "Position"})
    path = tmp_path / "rounds.csv"
    log.write_csv(path)
    person = Person(browser)
    browser.get(server)
    person.choose_file("#log", path)
    person.click("button[type=submit]")
    assert wait_for(browser, "#analysis-judge").is_selected()
    person.choose("#judge_repetition", "(none)")   # as a person who has not seen it yet
    person.click("button[value=validate]", navigates=True)
    problems = wait_for(browser, ".problems").text
    assert "“Repetition” set to" in problems and "--repetition" not in problems
    assert not browser.find_elements(By.ID, "to-results")
    browser.back()
    person.choose("#judge_repetition", "Round")
    person.click("button[value=validate]", navigates=True)
    repetitions = wait_for(browser, "#design-roles li[data-role='Repetitions']")   # what the page understood
    assert "the column Round numbers each time an item was judged again" in repetitions.text
    assert [a.text for a in repetitions.find_elements(By.TAG_NAME, "a")] == ["“Repetition”"]
    person.click("#to-results", navigates=True)
    assert "--repetition Round" in wait_for(browser, "#command").text
    browser.switch_to.frame(browser.find_element(By.CSS_SELECTOR, "iframe.report"))
    assert wait_for(browser, "h1").text
    browser.switch_to.default_content()


# ---------------------------------------------------------------- what a person reads, in the browser


#: what a person reads of the page in view, as the browser lays it out: its text, the "show the command" boxes
#: left aside (a closed details block, the report's method details with each option's flag, shows its summary)
READ = """
let text = document.body.innerText;
document.querySelectorAll('pre.command').forEach(e => { text = text.replace(e.innerText, ' '); });
return text;
"""


def reads(driver) -> dict:
    """The text a person reads on the page shown, and in the report it frames (when it frames one)."""
    from selenium.webdriver.common.by import By

    out = {"page": driver.execute_script(READ)}
    frames = driver.find_elements(By.CSS_SELECTOR, "iframe.report")
    if frames:
        driver.switch_to.frame(frames[0])
        wait_for(driver, "main")
        out["report"] = driver.execute_script(READ)
        driver.switch_to.default_content()
    return out


def no_flag_no_python_name(said: dict, files: dict, where: str) -> None:
    """The same patterns as the request tests' (tests/test_serve_person.py): no flag, no file of the repository,
    no Python spelling, no Python name but the uploaded files' own words."""
    from tests.test_serve_person import FLAG, FOLDERS, PYTHON, PYTHON_NAME, REPOSITORY_PATH, file_words

    theirs = file_words(files) | set(files_names(files)) | set(FOLDERS)
    for part, text in said.items():
        text = " ".join(text.split())
        for pattern in (FLAG, REPOSITORY_PATH):
            found = pattern.search(text)
            assert found is None, (where, part, text[max(0, found.start() - 200):found.end() + 80])
        for found in [*PYTHON.finditer(text), *PYTHON_NAME.finditer(text)]:
            assert found.group(0).rstrip("=") in theirs, (where, part, text[max(0, found.start() - 200):found.end() + 80])


def files_names(files: dict) -> list[str]:
    return [name for name, _ in files.values()]


@pytest.mark.parametrize("sheet", ["hand sheet", "messy sheet", "framing sheet", "judge log"])
def test_no_page_a_person_reads_in_chromium_names_a_flag_a_python_name_or_a_repository_file(browser, server,
                                                                                           tmp_path, sheet):
    """Every page of the flow as Chromium shows it, the report inside its frame too: the upload, the columns, the
    check, the report page and (for a comparison of values) the plan."""
    import csv

    import polars as pl
    from selenium.webdriver.common.by import By

    from tests.test_evaluator import padding_log

    path = tmp_path / {"hand sheet": HAND.name, "messy sheet": "messy.csv", "framing sheet": FRAMING.name,
                       "judge log": "judge.csv"}[sheet]
    if sheet == "hand sheet":
        shutil.copy(HAND, path)
    elif sheet == "messy sheet":
        log = pl.read_csv(ROOT / "sample_logs" / "style_hand.csv")
        titled = pl.when(pl.col("seed") == 5).then(pl.col("variant").str.to_titlecase()).otherwise(pl.col("variant"))
        log.with_columns(titled.alias("variant")).write_csv(path)
    elif sheet == "framing sheet":
        shutil.copy(FRAMING, path)
    else:
        pl.DataFrame(padding_log()).write_csv(path)
    files = {"log": (path.name, path.read_bytes())}
    person = Person(browser)
    browser.get(server)
    pages = {"upload": reads(browser)}
    person.choose_file("#log", path)
    person.click("button[type=submit]", navigates=True)
    wait_for(browser, "#metric")
    pages["columns"] = reads(browser)
    if sheet == "framing sheet":
        with TARGETS.open(encoding="utf-8", newline="") as handle:
            targets = {row["topic"]: (row["affirmative"], row["reverse"]) for row in csv.DictReader(handle)}
        for n, cell in enumerate(browser.find_elements(By.CSS_SELECTOR, "table.targets th[scope=row]")):
            browser.find_element(By.ID, f"target-aff-{n}").send_keys(targets[cell.text][0])
            browser.find_element(By.ID, f"target-rev-{n}").send_keys(targets[cell.text][1])
    elif sheet == "judge log":
        person.choose("#metric", "level")
        person.choose("#a", "padded")
        person.choose("#b", "plain")
    person.click("button[value=validate]", navigates=True)
    wait_for(browser, "#verdict")
    pages["check"] = reads(browser)
    if sheet == "messy sheet":   # as a person does: the fix the check names, then the check again
        browser.back()
        person.click("#opt-fold_case")
        person.click("button[value=validate]", navigates=True)
        wait_for(browser, "#verdict")
        pages["check folded"] = reads(browser)
    person.click("#to-results", navigates=True)
    wait_for(browser, "#command")
    pages["results"] = reads(browser)
    if sheet != "framing sheet":
        person.click("#to-plan", navigates=True)
        pages["plan form"] = reads(browser)
        for field, value in (("items", "6"), ("runs", "5"), ("sims", "40")):
            box = wait_for(browser, f"#{field}")
            box.clear()
            box.send_keys(value)
        person.click("form button[type=submit]", navigates=True)
        wait_for(browser, "#plan-table", timeout=900)
        pages["plan"] = reads(browser)
    for where, said in pages.items():
        assert any(len(text.strip()) > 50 for text in said.values()), (where, said)   # a page was read
        no_flag_no_python_name(said, files, f"{sheet}: {where}")
    report = pages["results"]["report"]
    assert "Every figure names its test in words" in report   # the plain report, for every kind


def test_the_check_says_what_the_page_understood_with_a_control_beside_each_role(browser, server):
    """The design sentence on the check page, before the report: the items, the values and the runs the analysis
    took the sheet to hold (counted here by hand), each with a link to the control that changes it; the link
    leads to that control on the column page."""
    import polars as pl
    from selenium.webdriver.common.by import By

    sheet = pl.read_excel(HAND)
    runs = sheet.group_by("item", "variant").len()["len"]
    assert runs.min() == runs.max()
    person = Person(browser)
    browser.get(server)
    person.choose_file("#log", HAND)
    person.click("button[type=submit]", navigates=True)
    person.click("button[value=validate]", navigates=True)
    said = wait_for(browser, "#design-read").text
    assert said.startswith(f"This analysis took the probe to be: {sheet['item'].n_unique()} items (item, by name), "
                           f"each run under values 'formal', 'casual' (variant, by name), {runs[0]} runs per item "
                           "and value")
    roles = {li.get_attribute("data-role"): li for li in browser.find_elements(By.CSS_SELECTOR, "#design-roles li")}
    assert list(roles) == ["Items", "Values", "Runs"]
    controls = {role: [a.text for a in li.find_elements(By.TAG_NAME, "a")] for role, li in roles.items()}
    assert controls == {"Items": ["“Item”"], "Values": ["“Value compared”", "“First value”", "“Second value”"],
                        "Runs": ["“Seed”"]}
    assert f"{sheet['item'].n_unique()} items, from the column item" in roles["Items"].text
    # the design sentence comes before the report: the report's Design section opens with the same sentence
    roles["Items"].find_element(By.TAG_NAME, "a").click()
    wait_for(browser, "#col-item")
    assert browser.current_url.endswith("/map#col-item")
    assert browser.execute_script("return document.querySelector(':target').id") == "col-item"


def control_log(path: Path):
    """Eight items under a baseline ('plain'), the attribute's value ('bias') and a key typo ('typo')."""
    import polars as pl

    rows = [{"item": i, "variant": v, "seed": s, "x": x + 0.3 * ((s * 7 + i) % 3)} for i in range(8)
            for s in range(3) for v, x in (("plain", 0.0), ("bias", 1.0 + i % 2), ("typo", 0.2 * (i % 2)))]
    pl.DataFrame(rows).write_csv(path)
    return pl.DataFrame(rows)


def test_a_value_named_as_an_edit_calls_for_the_control_wording_and_the_report_sets_it_beside(browser, server,
                                                                                              tmp_path):
    """A log with a 'typo' value: the check's design names “Control value” and “Baseline value”; with them chosen,
    the report holds the control section, its control gap the one counted here by hand."""
    import polars as pl
    from selenium.webdriver.common.by import By

    log = control_log(tmp_path / "edits.csv")
    person = Person(browser)
    browser.get(server)
    person.choose_file("#log", tmp_path / "edits.csv")
    person.click("button[type=submit]", navigates=True)
    person.choose("#metric", "x")
    person.click("button[value=validate]", navigates=True)
    role = wait_for(browser, "#design-roles li[data-role='Control wording']")
    assert "‘typo’ looks like a meaningless edit" in role.text
    assert [a.text for a in role.find_elements(By.TAG_NAME, "a")] == ["“Control value”", "“Baseline value”"]
    role.find_element(By.TAG_NAME, "a").click()   # to the control, on the column page
    wait_for(browser, "#opt-control")
    person.choose("#opt-control", "typo")
    person.choose("#opt-baseline", "plain")
    person.click("button[value=validate]", navigates=True)
    role = wait_for(browser, "#design-roles li[data-role='Control wording']")
    assert "‘typo’, a meaningless edit of ‘plain’" in role.text
    person.click("#to-results", navigates=True)
    command = wait_for(browser, "#command").text
    assert "--control typo" in command and "--baseline plain" in command
    # the control's own gap, by hand: per item the mean under 'typo' minus the mean under 'plain', averaged
    means = log.group_by("item", "variant").agg(pl.col("x").mean()).pivot(on="variant", index="item", values="x")
    gap = (means["typo"] - means["plain"]).mean()
    from probestats.present.words.fmt import fmt_gap

    browser.switch_to.frame(browser.find_element(By.CSS_SELECTOR, "iframe.report"))
    control = wait_for(browser, "#control").text
    browser.switch_to.default_content()
    assert "typo" in control and fmt_gap(gap) in control, (fmt_gap(gap), control[:600])


def test_the_plan_names_how_the_gap_acts_where_the_log_cannot_tell_and_sizes_as_chosen(browser, server, tmp_path):
    """A count whose runs spread as Poisson counts do: the plan cannot tell a shift of the count from a change of
    its rate, says so and names “How the gap acts”; with the rate chosen there, the plan is the one its command
    prints."""
    import numpy as np
    import polars as pl
    from selenium.webdriver.common.by import By

    folder = tmp_path / "files"
    folder.mkdir()
    rng = np.random.default_rng(1)
    pl.DataFrame([{"item": i, "variant": v, "seed": s, "tokens": int(rng.poisson(20 + 5 * i))} for i in range(8)
                  for v in ("a", "b") for s in range(5)]).write_csv(folder / "counts.csv")
    person = Person(browser)
    browser.get(server)
    person.choose_file("#log", folder / "counts.csv")
    person.click("button[type=submit]", navigates=True)
    person.click("button[value=validate]", navigates=True)
    person.click("#to-results", navigates=True)
    person.click("#to-plan", navigates=True)

    def simulate(way: str) -> None:
        for field, value in (("items", "6"), ("runs", "5"), ("sims", "60")):
            box = wait_for(browser, f"#{field}")
            box.clear()
            box.send_keys(value)
        person.choose("#mechanism", way)
        person.click("form button[type=submit]", navigates=True)
        wait_for(browser, "#plan-table", timeout=900)

    simulate("As the log suggests (each way it leaves plausible, the least promising shown)")
    hint = browser.find_element(By.ID, "mechanism-hint").text
    assert "“How the gap acts”" in hint and "shifts the count or it changes its rate" in hint, hint
    assert "--mechanism" not in browser.find_element(By.ID, "plan-command").text
    simulate("It changes a count's or a yes/no rate (the spread changes with it)")
    command = browser.find_element(By.ID, "plan-command").text
    assert "--mechanism rate" in command
    printed = json.loads(run_shown(command, folder).stdout)
    assert printed["mechanisms"]["candidates"] == ["rate"]
    page = json.loads(fetch(browser, browser.find_element(By.ID, "dl-plan").get_attribute("href")))
    assert page == printed
    assert "it changes its rate" in browser.find_element(By.ID, "mechanism-hint").text
