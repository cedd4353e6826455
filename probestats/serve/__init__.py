"""``probestats serve``: a local web page for people who do not code.

Upload a log (and a same-versus-same file), map its columns, check it, read and download the
report, size the next probe: each step calls the library the command line calls, and shows the
command that does the same. This package is the only one that knows the web framework (Starlette,
served by uvicorn; ``pip install "probestats[serve]"``).
"""

from __future__ import annotations

import ipaddress
import shutil
import socket
import sys
import tempfile
from pathlib import Path

from probestats.errors import OptionError, opt

__all__ = ["serve", "LOOPBACK"]

LOOPBACK = "127.0.0.1"


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (port 0: a free one the system picks)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise OptionError(f"{opt('port', port)}: cannot listen on {host}:{port} ({exc.strerror}); choose another "
                          f"port, or leave {opt('port')} out for a free one") from None
    sock.listen(64)
    sock.set_inheritable(True)
    return sock


def serve(*, host: str = LOOPBACK, port: int = 0, open_browser: bool = False, max_mb: int = 50,
          announce=print, warn=print) -> None:
    """Serve the page until Ctrl-C, as ``probestats serve`` does; the uploads' private folder is deleted when
    it stops.

    Parameters
    ----------
    host : str
        The address to listen on; anything but loopback makes the page reachable from other machines.
    port : int
        The port to listen on (0: a free one).
    open_browser : bool
        Open the page in the web browser.
    max_mb : int
        The largest upload accepted, in MB (the log and the same-versus-same file together).
    announce, warn : callable
        ``announce`` receives the address (with the launch token) once the page listens; ``warn``
        receives the warning about a non-loopback ``host``.

    Examples
    --------
    >>> import probestats
    >>> callable(probestats.serve)   # the function, or this package (which calls it)
    True
    """
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise OptionError(f"{opt('port', port)}: expected a port from 0 to 65535 (0: a free one)")
    if isinstance(max_mb, bool) or not isinstance(max_mb, int) or max_mb < 1:
        raise OptionError(f"{opt('max_mb', max_mb)}: expected a whole number of MB, 1 or more")
    try:
        import uvicorn

        from probestats.serve.app import Settings, make_app   # lazy: serve.app imports starlette
    except ImportError:
        raise OptionError('the page needs its extra: pip install "probestats[serve]"') from None

    folder = Path(tempfile.mkdtemp(prefix="probestats-serve-"))  # private: mode 0700
    try:
        sock = _bind(host, port)
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        names = {f"{shown}:{bound}"}
        if _is_loopback(host):
            names |= {f"127.0.0.1:{bound}", f"localhost:{bound}", f"[::1]:{bound}"}
        else:
            warn(f"Warning: {opt('host', host)}: the page is reachable from other machines on this network; anyone "
                 "who has the address with its token can upload files and read the reports")
        settings = Settings(folder=folder, hosts=tuple(sorted(names)), max_bytes=max_mb * 1_000_000)
        url = f"http://{'127.0.0.1' if _is_loopback(host) else shown}:{bound}/{settings.token}/"
        config = uvicorn.Config(make_app(settings), log_level="warning", access_log=False, lifespan="off",
                                server_header=False, date_header=False)
        server = uvicorn.Server(config)
        announce(f"probestats page: {url}")
        announce(f"(uploads up to {max_mb} MB; press Ctrl-C to stop; the uploaded files are deleted then)")
        if open_browser:
            import webbrowser

            webbrowser.open(url)
        server.run(sockets=[sock])
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class _Package(sys.modules[__name__].__class__):
    """This package, called as the function it is named after: ``probestats.serve(...)`` is :func:`serve`
    whether ``probestats.serve`` was first reached as the top-level name or imported as the package."""

    def __call__(self, **options) -> None:
        return serve(**options)


sys.modules[__name__].__class__ = _Package
#: the package's call takes what :func:`serve` takes (``inspect.signature(probestats.serve)`` shows it)
__signature__ = __import__("inspect").signature(serve)
