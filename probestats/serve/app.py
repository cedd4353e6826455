"""The local page's web application: routes, the launch token, the checks every request passes.

Every address starts with the per-launch token (``/<token>/...``); anything else is "not found".
Every request passes a Host check (the loopback names, or the ``--host`` given) and, when the
browser sends one, an Origin check; every form carries the launch's CSRF token; an upload is
counted while it streams and refused past the cap. Every page is rendered by the report's Jinja
environment (autoescaped, every value through the report's sanitizer) under a strict
Content-Security-Policy: nothing but the page's own styles and the report's embedded images.
"""

from __future__ import annotations

import os
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from probestats.errors import ProbestatsError
from probestats.serve import pages
from probestats.serve.session import Files, Job, State, facts_from, safe_name, store, suffix_of, targets_name

#: the largest upload (log and noise file together) the page accepts by default, in MB
DEFAULT_MAX_MB = 50

DOWNLOADS = {"report.html": "text/html", "report.md": "text/markdown", "report.json": "application/json",
             "report.zip": "application/zip", "probe.toml": "application/toml", "command.txt": "text/plain",
             "analysis.json": "application/json", "analysis_command.txt": "text/plain", "targets.csv": "text/csv"}
PLAN_DOWNLOADS = {"plan.json": "application/json", "plan_command.txt": "text/plain"}


@dataclass
class Settings:
    """One launch of the page.

    Attributes
    ----------
    folder : Path
        The private temporary folder the uploads are kept in (deleted at shutdown).
    hosts : tuple of str
        The Host header values accepted (host:port).
    max_bytes : int
        The upload cap (the whole request), in bytes.
    token : str
        The per-launch token every address starts with.
    csrf : str
        The token every form carries.
    files : dict
        The uploads, by id (:class:`~probestats.serve.session.Files`).
    states : dict
        Every analysis's state, by id (:class:`~probestats.serve.session.State`); a change adds one.
    plans : dict
        The plans simulated or being simulated, by id (each names the analysis it belongs to).
    lock : threading.Lock
        Held while the dictionaries change.
    """

    folder: Path
    hosts: tuple = ()
    max_bytes: int = DEFAULT_MAX_MB * 1_000_000
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    files: dict = field(default_factory=dict)
    states: dict = field(default_factory=dict)
    plans: dict = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def keep(self, state: State) -> State:
        with self.lock:
            self.states[state.id] = state
        return state


class Refused(Exception):
    """A request the page refuses: shown as a page with one line and this status."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _headers(nonce: str) -> dict:
    return {
        "Content-Security-Policy": (f"default-src 'none'; style-src 'nonce-{nonce}'; img-src 'self' data:; "
                                    "frame-src 'self'; form-action 'self'; frame-ancestors 'none'; "
                                    "base-uri 'none'"),
        # same-origin, not no-referrer: with no-referrer a browser sends its forms with "Origin: null", which
        # the Origin check must refuse; the token in the address still never leaves the page's own origin
        "X-Content-Type-Options": "nosniff", "Referrer-Policy": "same-origin", "Cache-Control": "no-store",
        "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Resource-Policy": "same-origin",
    }


class Guard:
    """The checks every request passes before it reaches a route (a plain ASGI middleware)."""

    def __init__(self, app, settings: Settings):
        self.app, self.settings = app, settings

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        problem = self.problem(scope, headers)
        if problem is not None:
            response = page_response(pages.error_page(problem[1], back=None), problem[0])
            return await response(scope, receive, send)
        return await self.app(scope, receive, send)

    def problem(self, scope, headers):
        s = self.settings
        if headers.get("host", "") not in s.hosts:
            return 403, "this page answers only at the address it printed when it started"
        origin = headers.get("origin")
        if origin is not None and origin not in {f"http://{h}" for h in s.hosts}:
            return 403, "a request from another site was refused"
        if headers.get("sec-fetch-site") == "cross-site":
            return 403, "a request from another site was refused"
        path = scope.get("path", "")
        prefix = f"/{s.token}/"
        if not (secrets.compare_digest(path[:len(prefix)].encode(), prefix.encode()) or path == f"/{s.token}"):
            return 404, "not found: open the address (with its token) printed when the page started"
        return None


def page_response(body: str, status: int = 200) -> HTMLResponse:
    nonce = secrets.token_urlsafe(16)
    return HTMLResponse(body.replace(pages.NONCE, nonce), status_code=status, headers=_headers(nonce))


def _redirect(settings: Settings, where: str) -> RedirectResponse:
    return RedirectResponse(f"/{settings.token}/{where}", status_code=303)


def _job(settings: Settings, request: Request) -> Job:
    """The analysis the address names, with its upload."""
    state = settings.states.get(request.path_params.get("job", ""))
    files = settings.files.get(state.files) if state is not None else None
    if files is None:
        raise Refused(404, "this upload is no longer here (the page was restarted); upload the file again")
    return Job(files, state)


async def _bounded_form(request: Request, settings: Settings):
    """The request's form, its body counted while it streams: refused as soon as it passes the cap."""
    cap = settings.max_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        raise Refused(413, f"the file is larger than the page's limit of {cap / 1_000_000:g} MB; "
                           "it can be raised where the page is started (probestats serve, its upload limit)")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > cap:
            raise Refused(413, f"the file is larger than the page's limit of {cap / 1_000_000:g} MB; "
                               "it can be raised where the page is started (probestats serve, its upload limit)")
    sent = False

    async def replay():
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": bytes(body), "more_body": False}

    form = await Request(request.scope, replay).form(max_files=2, max_fields=250, max_part_size=cap)
    try:
        fields = Fields()
        for key, value in form.multi_items():
            if hasattr(value, "read"):  # a file: its name as sent and its bytes
                value = Upload(value.filename or "", await value.read())
            fields.setdefault(key, value)
            fields.lists.setdefault(key, []).append(value)
    finally:
        await form.close()
    if not secrets.compare_digest(str(fields.get("csrf", "")).encode(), settings.csrf.encode()):
        raise Refused(403, "the form has expired or came from elsewhere; reload the page and send it again")
    return fields


class Fields(dict):
    """A form's fields: the first value of each name, and ``getlist`` for a name sent several times."""

    def __init__(self):
        super().__init__()
        self.lists = {}

    def getlist(self, key) -> list:
        return list(self.lists.get(key, []))


@dataclass(frozen=True)
class Upload:
    """A file field of a form, read whole (its size already counted against the cap)."""

    filename: str
    data: bytes


def make_app(settings: Settings) -> Starlette:
    """The page's application for one launch (wrapped in :class:`Guard`)."""
    s = settings

    def home(request: Request):
        return page_response(pages.upload_page(s))

    async def upload(request: Request):
        form = await _bounded_form(request, s)
        log = form.get("log")
        if not isinstance(log, Upload) or not log.filename:
            raise Refused(400, "choose the log file to upload")
        if not log.data:
            raise Refused(400, "the chosen file is empty; choose the log file")
        noise = form.get("noise")
        noise = noise if isinstance(noise, Upload) and noise.filename else None
        names = [safe_name(f.filename, suffix_of(f.filename), what) for f, what in ((log, "log"), (noise, "noise"))
                 if f is not None]  # both checked before anything is kept
        if len(set(names)) < len(names):
            raise Refused(400, "the log and the same-versus-same file have the same name; rename one")
        folder = Path(s.folder) / secrets.token_hex(8)
        stored = store(folder, log.data, log.filename, "log")
        noise_stored = store(folder, noise.data, noise.filename, "noise") if noise is not None else None
        files = Files(log=stored, noise=noise_stored, folder=folder)
        with s.lock:
            s.files[files.id] = files
        state = s.keep(State(files=files.id))
        return _redirect(s, f"a/{state.id}/map")

    def map_get(request: Request):
        return page_response(pages.map_page(s, _job(s, request)))

    async def map_post(request: Request):
        job = _job(s, request)
        form = await _bounded_form(request, s)
        state = s.keep(job.state.changed(mapping=pages.mapping_from(job, form), posted=True))
        go = form.get("go", "update")
        return _redirect(s, f"a/{state.id}/{'validate' if go == 'validate' else 'map'}")

    def validate_get(request: Request):
        return page_response(pages.validate_page(s, _job(s, request)))

    def results_get(request: Request):
        return page_response(pages.results_page(s, _job(s, request)))

    async def facts_post(request: Request):
        job = _job(s, request)
        form = await _bounded_form(request, s)
        state = s.keep(job.state.changed(facts=facts_from(form)))
        return _redirect(s, f"a/{state.id}/results")

    def view_report(request: Request):
        text = pages.report_text(_job(s, request), "html")
        # the report is a page of its own: its images only, no script, shown framed by the results page
        return Response(text, media_type="text/html; charset=utf-8", headers={
            "Content-Security-Policy": ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
                                        "base-uri 'none'; form-action 'none'; frame-ancestors 'self'; sandbox"),
            "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "Cache-Control": "no-store"})

    def download(request: Request):
        job = _job(s, request)
        name = request.path_params["name"]
        if name not in DOWNLOADS:
            raise Refused(404, "no such download")
        data = pages.download(job, name)
        filename = targets_name(job) if name == "targets.csv" else name  # the name the page's command reads
        return _attachment(data, DOWNLOADS[name], filename)

    def plan_get(request: Request):
        return page_response(pages.plan_page(s, _job(s, request), request.query_params.get("p", "")))

    async def plan_post(request: Request):
        job = _job(s, request)
        form = await _bounded_form(request, s)
        plan_id = pages.start_plan(s, job, form)
        return _redirect(s, f"a/{job.id}/plan?p={plan_id}")

    def plan_download(request: Request):
        job = _job(s, request)
        name = request.path_params["name"]
        if name not in PLAN_DOWNLOADS:
            raise Refused(404, "no such download")
        data = pages.plan_download(s, job, request.path_params["plan"], name)
        return _attachment(data, PLAN_DOWNLOADS[name], name)

    async def refused(request: Request, exc: HTTPException):
        message = "not found" if exc.status_code == 404 else "this request is not one the page answers"
        return page_response(pages.error_page(message, back=f"/{s.token}/"), exc.status_code)

    t = "/" + s.token
    routes = [
        Route(t + "/", home, methods=["GET"]),
        Route(t + "/upload", upload, methods=["POST"]),
        Route(t + "/a/{job}/map", map_get, methods=["GET"]),
        Route(t + "/a/{job}/map", map_post, methods=["POST"]),
        Route(t + "/a/{job}/validate", validate_get, methods=["GET"]),
        Route(t + "/a/{job}/results", results_get, methods=["GET"]),
        Route(t + "/a/{job}/facts", facts_post, methods=["POST"]),
        Route(t + "/a/{job}/view/report.html", view_report, methods=["GET"]),
        Route(t + "/a/{job}/file/{name}", download, methods=["GET"]),
        Route(t + "/a/{job}/plan", plan_get, methods=["GET"]),
        Route(t + "/a/{job}/plan", plan_post, methods=["POST"]),
        Route(t + "/a/{job}/plan/{plan}/{name}", plan_download, methods=["GET"]),
    ]
    routes = [Route(r.path, safe(r.endpoint, f"/{s.token}/", Path(s.folder)), methods=list(r.methods - {"HEAD"}) if r.methods else None)
              for r in routes]
    app = Starlette(routes=routes, exception_handlers={HTTPException: refused})
    return Guard(app, s)


def _attachment(data: bytes, media_type: str, filename: str) -> Response:
    return Response(data, media_type=media_type, headers={
        "Content-Disposition": f'attachment; filename="{filename}"', "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "default-src 'none'; sandbox", "Cache-Control": "no-store"})


def safe(endpoint, home: str, folder: Path):
    """An endpoint whose every failure becomes a page with one line (never a traceback, here or in the
    server's terminal); library errors name the page's controls (in the words its labels use)."""
    import functools
    import inspect


    def failed(exc: BaseException) -> Response:
        if isinstance(exc, Refused):
            status, message = exc.status, str(exc)
        elif isinstance(exc, ProbestatsError):
            status, message = 400, pages.clean(str(exc), None, root=folder)
        elif isinstance(exc, (OverflowError, RecursionError, MemoryError)):
            status, message = 400, "the input is too large or too deeply nested to process"
        else:  # a bug: still one line
            if os.environ.get("PROBESTATS_DEBUG"):
                raise exc
            status, message = 500, f"unexpected {type(exc).__name__}; please report it"
        return page_response(pages.error_page(message, back=home), status)

    if inspect.iscoroutinefunction(endpoint):
        @functools.wraps(endpoint)
        async def run(request):
            try:
                with pages.words():
                    return await endpoint(request)
            except Exception as exc:
                return failed(exc)
    else:
        @functools.wraps(endpoint)
        def run(request):
            try:
                with pages.words():
                    return endpoint(request)
            except Exception as exc:
                return failed(exc)
    return run
