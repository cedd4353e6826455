"""The local page of ``probestats serve``: its flow calls the library the command line calls, and it is
safe by construction (launch token, Host and Origin checks, CSRF token, an upload cap counted while the
body streams, every value from a file shown as text, one-line error pages, loopback only by default).

Requests go through Starlette's test client; the last tests start the real command.
"""

from __future__ import annotations

import csv
import io
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("multipart")

from starlette.testclient import TestClient  # noqa: E402

from probestats.cli import main  # noqa: E402
from probestats.serve.app import Settings, make_app  # noqa: E402
from tests.hostile.campaign import HOSTILE, HTML_MARKERS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "sample_logs"
HAND = SAMPLES / "style_hand.xlsx"
NOISE = SAMPLES / "style_noise.csv"
HOST = "127.0.0.1:8123"


@pytest.fixture
def page(tmp_path):
    settings = Settings(folder=tmp_path / "uploads", hosts=(HOST,))
    client = TestClient(make_app(settings), base_url=f"http://{HOST}")
    return settings, client


def upload(settings, client, files, **extra):
    return client.post(f"/{settings.token}/upload", data={"csrf": settings.csrf, **extra}, files=files,
                       follow_redirects=False)


def job_of(response) -> str:
    """The analysis an answer's address names (a redirect's target, or the page's own address)."""
    if response.status_code == 303:
        return response.headers["location"].split("/")[3]
    assert response.status_code == 200, response.text[-500:]
    return str(response.url).split("/")[5]


def form_of(text: str) -> dict:
    """What a browser sends for the column page's form as shown: every select's chosen option (the first
    when none is), every ticked box, every text field; a select maps to its options too."""
    import html

    fields, options = {}, {}
    for name, body in re.findall(r'<select id="[^"]*" name="([^"]+)">(.*?)</select>', text, re.S):
        found = [(html.unescape(v), html.unescape(t), bool(sel)) for v, sel, t in
                 re.findall(r'<option value="([^"]*)"( selected)?>(.*?)</option>', body, re.S)]
        options[name] = {t: v for v, t, _ in found}
        chosen = [v for v, _, sel in found if sel] or [found[0][0]]
        fields[name] = chosen[0]
    for name, value in re.findall(r'<input type="checkbox" id="[^"]*" name="([^"]+)" value="([^"]*)" checked>', text):
        fields.setdefault(name, [])
        fields[name] = (fields[name] if isinstance(fields[name], list) else []) + [html.unescape(value)]
    for name, value in re.findall(r'<input type="(?:text|number)" id="[^"]*" name="([^"]+)"[^>]*value="([^"]*)"',
                                  text):
        fields[name] = html.unescape(value)
    for name, value in re.findall(r'<input type="radio" id="[^"]*" name="([^"]+)" value="([^"]*)" checked>', text):
        fields[name] = html.unescape(value)
    return {"fields": fields, "options": options}


def choose(settings, client, job, **mapping):
    """Send the column page of analysis ``job`` as a person would: what it shows, with these choices (a select by
    the text of its option, a tick box by True or the ticked values); the answer of the page it leads to."""
    page = client.get(f"/{settings.token}/a/{job}/map")
    assert page.status_code == 200, page.text[-500:]
    form = form_of(page.text)
    data = dict(form["fields"])
    for name, value in mapping.items():
        if name in form["options"] and isinstance(value, str) and name != "go":
            listed = form["options"][name]
            if value == "" or (value not in listed and value in listed.values()):  # a key the page posts as is
                data[name] = value
            else:
                assert value in listed, (name, value, list(listed))
                data[name] = listed[value]
        elif value is True:
            data[name] = "1"
        elif value is False or value is None:
            data.pop(name, None)
        else:
            data[name] = value
    return client.post(f"/{settings.token}/a/{job}/map", data={"csrf": settings.csrf, **data},
                       follow_redirects=True)


def command_of(text: str, element: str = "command") -> str:
    found = re.search(rf'<pre class="command" id="{element}">(.*?)</pre>', text, re.S)
    assert found, "no command shown"
    import html

    return html.unescape(found.group(1))


def run_command(command: str, folder: Path, capsys) -> int:
    args = shlex.split(command)
    assert args[0] == "probestats"
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        capsys.readouterr()
        return main(args[1:])
    finally:
        os.chdir(cwd)


# ---------------------------------------------------------------- the flow


def test_the_flow_reports_what_the_command_it_shows_reports(page, tmp_path, capsys):
    settings, client = page
    r = upload(settings, client, {"log": ("style_hand.xlsx", HAND.read_bytes()),
                                  "noise": ("style_noise.csv", NOISE.read_bytes())})
    job = job_of(r)
    columns = client.get(f"/{settings.token}/a/{job}/map")
    assert columns.status_code == 200
    assert "run_id" in columns.text and ">runs</option>" in columns.text  # headers and the sheet
    # the item column found by its header is prefilled, and so is the one column of numbers as the metric
    form = form_of(columns.text)
    assert form["fields"]["item"] == form["options"]["item"]["item"]
    assert form["fields"]["metric"] == form["options"]["metric"]["steps"]
    # a wrong item column: every run is its own item, so validation blocks the report
    bad = choose(settings, client, job, metric="steps", item="run_id", sheet="runs", go="validate")
    assert "the report cannot be made" in bad.text and 'id="to-results"' not in bad.text
    assert "unmatched_item" in bad.text
    good = choose(settings, client, job_of(bad), item="item", go="validate")
    assert 'id="to-results"' in good.text
    assert command_of(good.text, "validate-command") == ("probestats validate style_hand.xlsx --metric steps "
                                                          "--read sheet=runs")
    job = job_of(good)
    results = client.get(f"/{settings.token}/a/{job}/results")
    assert results.status_code == 200
    command = command_of(results.text)
    assert command == ("probestats report style_hand.xlsx --metric steps --noise style_noise.csv --read sheet=runs "
                       "--plain -o report.md")
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "style_hand.xlsx").write_bytes(HAND.read_bytes())
    (folder / "style_noise.csv").write_bytes(NOISE.read_bytes())
    assert run_command(command, folder, capsys) == 0
    for fmt in ("md", "html", "json"):
        got = client.get(f"/{settings.token}/a/{job}/file/report.{fmt}")
        assert got.status_code == 200 and got.headers["content-disposition"].startswith("attachment")
        if fmt != "md":
            assert run_command(command.replace("-o report.md", f"-o report.{fmt}"), folder, capsys) == 0
        assert got.content == (folder / f"report.{fmt}").read_bytes(), fmt
    # the framed report is the HTML report itself
    view = client.get(f"/{settings.token}/a/{job}/view/report.html")
    assert view.content == (folder / "report.html").read_bytes()
    assert "sandbox" in view.headers["content-security-policy"]


def test_design_facts_fill_the_report_and_the_design_file_reproduces_it(page, tmp_path, capsys):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("style_hand.csv", (SAMPLES / "style_hand.csv").read_bytes())}))
    job = job_of(choose(settings, client, job, metric="steps", go="validate"))
    hostile_fact = 'writing style "formal" \\ <b>casual</b>'
    r = client.post(f"/{settings.token}/a/{job}/facts", data={
        "csrf": settings.csrf, "attribute": hostile_fact, "not_tested": "names\ndialect\n"}, follow_redirects=True)
    assert r.status_code == 200
    command = command_of(r.text)
    assert command.endswith("--plain --design probe.toml -o report.md")
    job = job_of(r)
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "style_hand.csv").write_bytes((SAMPLES / "style_hand.csv").read_bytes())
    (folder / "probe.toml").write_bytes(client.get(f"/{settings.token}/a/{job}/file/probe.toml").content)
    assert run_command(command, folder, capsys) == 0
    page_md = client.get(f"/{settings.token}/a/{job}/file/report.md").content
    assert page_md == (folder / "report.md").read_bytes()
    assert b"[to fill in: the attribute" not in page_md and b"dialect" in page_md


def wait_for_plan(client, r):
    import time

    deadline = time.monotonic() + 300
    while 'id="plan-table"' not in r.text:
        assert "Error:" not in r.text, r.text[-800:]
        assert time.monotonic() < deadline
        assert "<progress" in r.text and 'http-equiv="refresh"' in r.text  # progress while it simulates
        time.sleep(0.5)
        r = client.get(r.url)
    return r


def plan_link(text: str) -> str:
    import html

    return html.unescape(re.search(r'<a id="dl-plan" href="([^"]+)"', text).group(1))


def test_the_planner_prints_what_plan_json_prints(page, tmp_path, capsys):
    import json

    settings, client = page
    job = job_of(upload(settings, client, {"log": ("style_hand.csv", (SAMPLES / "style_hand.csv").read_bytes()),
                                           "noise": ("style_noise.csv", NOISE.read_bytes())}))
    job = job_of(choose(settings, client, job, metric="steps", go="validate"))
    r = client.post(f"/{settings.token}/a/{job}/plan", data={
        "csrf": settings.csrf, "items": "6,8", "runs": "5", "gap": "1", "sims": "150", "power": "0.8",
        "alpha": "0.05"}, follow_redirects=True)
    r = wait_for_plan(client, r)
    command = command_of(r.text, "plan-command")
    assert command.startswith("probestats plan --noise style_noise.csv --metric steps")
    folder = tmp_path / "by-hand"
    folder.mkdir()
    (folder / "style_noise.csv").write_bytes(NOISE.read_bytes())
    assert run_command(command, folder, capsys) == 0
    printed = capsys.readouterr().out
    downloaded = client.get(plan_link(r.text)).text
    assert downloaded == printed
    cells = json.loads(printed)["cells"]
    rows = re.findall(r"<tr><td>(\d+)</td><td>(\d+)</td>", r.text)
    assert rows == [(str(c["items"]), str(c["runs"])) for c in cells] == [("6", "5"), ("8", "5")]


# ---------------------------------------------------------------- refusals


def test_every_address_needs_the_launch_token(page):
    settings, client = page
    wrong = "y" if settings.token.endswith("x") else "x"   # a last character the token does not have
    for path in ("/", "/upload", f"/{settings.token[:-1]}{wrong}/", f"/x{settings.token}/", "/static/x"):
        r = client.get(path)
        assert r.status_code == 404 and "Error: not found" in r.text
        assert settings.token not in r.text
    assert client.get(f"/{settings.token}/").status_code == 200


def test_a_foreign_origin_or_host_is_refused(page):
    settings, client = page
    home = f"/{settings.token}/"
    assert client.get(home, headers={"Origin": "http://evil.example"}).status_code == 403
    assert client.get(home, headers={"Origin": "null"}).status_code == 403  # a sandboxed or opaque origin
    assert client.get(home, headers={"Host": "evil.example:8123"}).status_code == 403
    assert client.get(home, headers={"Host": "192.0.2.7:8123"}).status_code == 403  # DNS rebinding, LAN
    assert client.get(home, headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    r = client.post(f"/{settings.token}/upload", headers={"Origin": "http://evil.example"},
                    data={"csrf": settings.csrf}, files={"log": ("a.csv", (SAMPLES / "style_hand.csv").read_bytes())})
    assert r.status_code == 403
    assert not settings.folder.exists() or not any(settings.folder.iterdir())  # nothing was stored
    assert client.get(home, headers={"Origin": f"http://{HOST}"}).status_code == 200


def test_a_form_without_its_csrf_token_is_refused(page):
    settings, client = page
    r = client.post(f"/{settings.token}/upload", data={"csrf": "wrong"},
                    files={"log": ("a.csv", (SAMPLES / "style_hand.csv").read_bytes())}, follow_redirects=False)
    assert r.status_code == 403 and "Error: the form has expired" in r.text
    assert not settings.folder.exists() or not any(settings.folder.iterdir())


def test_an_upload_over_the_cap_is_refused_while_it_streams(tmp_path):
    settings = Settings(folder=tmp_path / "uploads", hosts=(HOST,), max_bytes=100_000)
    client = TestClient(make_app(settings), base_url=f"http://{HOST}")
    big = b"item,variant,steps\n" + b"1,a,2\n" * 40_000
    r = upload(settings, client, {"log": ("big.csv", big)})
    assert r.status_code == 413 and "Error: the file is larger than the page" in r.text
    # no Content-Length: counted as the chunks arrive
    sent = []

    def chunks():
        boundary = b"--X\r\n"
        yield boundary + b'Content-Disposition: form-data; name="csrf"\r\n\r\n' + settings.csrf.encode() + b"\r\n"
        yield boundary + b'Content-Disposition: form-data; name="log"; filename="big.csv"\r\n\r\n'
        for _ in range(100):
            sent.append(1)
            yield b"1,a,2\n" * 1000
        yield b"\r\n--X--\r\n"

    r = client.post(f"/{settings.token}/upload", content=chunks(),
                    headers={"Content-Type": "multipart/form-data; boundary=X"}, follow_redirects=False)
    assert r.status_code == 413 and "Error: the file is larger than the page" in r.text
    assert not settings.folder.exists() or not any(settings.folder.iterdir())


def test_the_cap_is_stated_on_the_upload_page(page):
    settings, client = page
    assert "at most 50 MB in all" in client.get(f"/{settings.token}/").text


def test_a_user_path_is_never_opened_or_echoed(page):
    settings, client = page
    r = upload(settings, client, {"log": ("../../../etc/passwd.csv", (SAMPLES / "style_hand.csv").read_bytes())})
    job = job_of(r)
    text = client.get(f"/{settings.token}/a/{job}/map").text
    assert "passwd" not in text and "log.csv" in text
    stored = [p.name for p in settings.folder.rglob("*") if p.is_file()]
    assert stored == ["log.csv"]
    refused = upload(settings, client, {"log": ("notes.exe", b"MZ")})
    assert refused.status_code == 400 and "choose a file ending in .csv" in refused.text


def test_a_damaged_file_is_a_page_with_one_line(page):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("random.xlsx",
                                                   (SAMPLES / "broken" / "random_bytes.xlsx").read_bytes())}))
    for step in ("map", "validate", "results"):
        r = client.get(f"/{settings.token}/a/{job}/{step}")
        assert "Traceback" not in r.text and str(settings.folder) not in r.text
        errors = re.findall(r'class="error" role="alert">(.*?)</p>', r.text, re.S)
        assert len(errors) == 1 and "\n" not in errors[0], (step, r.text[-600:])


def _hostile_csv() -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)
    texts = [t for t in HOSTILE if t.strip() and "\x00" not in t]
    writer.writerow(["item", "variant", "seed", "steps", "<b id=PWNED>note</b>"])
    for i, text in enumerate(texts):
        for variant in ("<script>alert(1)</script>", "casual"):
            for seed in (1, 2):
                writer.writerow([text, variant, seed, i % 4 + (variant == "casual") + seed, text])
    return out.getvalue().encode("utf-8")


def test_a_hostile_file_is_shown_as_text(page):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("hostile.csv", _hostile_csv())}))
    job = job_of(choose(settings, client, job, metric="steps", go="update"))
    pages = [client.get(f"/{settings.token}/a/{job}/{step}") for step in ("map", "validate", "results")]
    pages.append(client.get(f"/{settings.token}/a/{job}/view/report.html"))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[0].text  # the value, shown as text
    for r in pages:
        assert r.status_code == 200, r.text[-600:]
        for marker in HTML_MARKERS:
            assert marker not in r.text
        assert not re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", r.text)
        assert "<script" not in r.text.lower()
        assert "default-src 'none'" in r.headers["content-security-policy"]


def test_every_page_has_a_strict_policy_and_labels_on_its_fields(page):
    settings, client = page
    job = job_of(upload(settings, client, {"log": ("style_hand.csv", (SAMPLES / "style_hand.csv").read_bytes()),
                                           "noise": ("style_noise.csv", NOISE.read_bytes())}))
    job = job_of(choose(settings, client, job, metric="steps", go="update"))
    for step in ("map", "validate", "results", "plan"):
        r = client.get(f"/{settings.token}/a/{job}/{step}")
        policy = r.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src" not in policy and "unsafe" not in policy
        nonce = re.search(r"'nonce-([\w-]+)'", policy).group(1)
        assert f'<style nonce="{nonce}">' in r.text  # the page's own styles are the ones allowed
        assert "<script" not in r.text
        ids = re.findall(r'<(?:input|select|textarea)[^>]*\bid="([^"]+)"', r.text)
        labelled = set(re.findall(r'<label for="([^"]+)"', r.text))
        assert set(ids) <= labelled, (step, set(ids) - labelled)
        assert ids or step == "validate"  # every other step is a form
        assert 'name="viewport"' in r.text and "@media print" in r.text


# ---------------------------------------------------------------- the command itself


def _start(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "probestats", "serve", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    found = re.search(r"http://([\d.]+):(\d+)/([\w-]+)/", line)
    assert found, line + proc.stderr.read() if proc.poll() is not None else line
    return proc, found.group(1), int(found.group(2)), found.group(3)


def _non_loopback_address() -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            address = probe.getsockname()[0]
        except OSError:
            return None
    return None if address.startswith("127.") else address


def test_serve_listens_on_loopback_only_and_deletes_its_files_at_ctrl_c(tmp_path):
    import urllib.request

    proc, host, port, token = _start(tmp_path)
    try:
        assert host == "127.0.0.1"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/{token}/", timeout=30) as r:
            assert r.status == 200
        folders = list(tmp_path.glob("probestats-serve-*"))
        assert len(folders) == 1 and (folders[0].stat().st_mode & 0o077) == 0  # private
        address = _non_loopback_address()
        if address is not None:
            with pytest.raises(OSError):
                socket.create_connection((address, port), timeout=5).close()
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "stopped" in err
    assert list(tmp_path.glob("probestats-serve-*")) == []


def test_another_host_needs_saying_and_is_warned_about(tmp_path):
    proc, host, port, token = _start(tmp_path, "--host", "0.0.0.0")
    try:
        pass
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert "Warning: --host 0.0.0.0: the page is reachable from other machines" in err
