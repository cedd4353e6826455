"""Import what a command will need later in a thread, while the log is read.

polars reads a log without holding the interpreter, so modules imported meanwhile (the plotting
library a report draws with, the terminal library a message is printed with) cost the command
little of its time instead of following the read.
"""

from __future__ import annotations

import sys
import threading

__all__ = ["warm_imports"]


def warm_imports(*modules: str) -> threading.Thread | None:
    """Start importing ``modules`` (those not imported yet) in a thread; the thread, or None.

    Not a daemon thread: an import is never cut off when the command ends.

    >>> warm_imports("json") is None   # imported already
    True
    """
    wanted = [m for m in modules if m not in sys.modules]
    if not wanted:
        return None
    thread = threading.Thread(target=_import_all, args=(wanted,), name="probestats-warm-imports")
    thread.start()
    return thread


def _import_all(modules: list[str]) -> None:
    import importlib

    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # the command imports it again where it needs it, and says what failed there
            return
