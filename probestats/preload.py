"""Import modules in the background while a large log is being read.

Reading a large CSV spends most of its time in polars, which releases the GIL; importing
scipy's special functions (for the t quantile) takes about as long as reading 300,000 rows.
Starting that import first lets the two overlap. The thread is not a daemon, so the process
never exits in the middle of an import.
"""

from __future__ import annotations

import importlib
import sys
import threading


def preload(*modules: str) -> None:
    """Start importing ``modules`` in a background thread; a later ``import`` waits for it.

    Modules already imported are skipped, and an import that fails is left for the later
    ``import`` to report.

    Examples
    --------
    >>> preload("json")
    """
    wanted = [m for m in modules if m not in sys.modules]
    if wanted:
        threading.Thread(target=_import_all, args=(wanted,), name="probestats-preload").start()


def _import_all(modules: list[str]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001  (the import in the main thread raises it again, where it is handled)
            return
