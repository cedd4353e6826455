"""How many draws the slow campaigns and level tests make: a bounded count by default, the full one with
``PROBESTATS_FULL=1``.

The default run is what ``python -m pytest`` does on a contributor's machine and in CI: each trimmed
test keeps the check it makes (its statistic, its bound, its refusal) at a smaller count, with the
tolerance computed for that count. ``PROBESTATS_FULL=1 python -m pytest`` runs the counts the tests
had before they were trimmed, and the tests marked :data:`full_only`.

Examples
--------
>>> draws(100, 300) in (100, 300)
True
"""

from __future__ import annotations

import os

import pytest

#: ``PROBESTATS_FULL=1``: run every campaign and level test at its full count
FULL = os.environ.get("PROBESTATS_FULL", "").strip() == "1"

#: a test that runs only in the full run (a bounded counterpart runs by default)
full_only = pytest.mark.skipif(not FULL, reason="the full count runs with PROBESTATS_FULL=1; a bounded test "
                                                "checks the same by default")


def draws(bounded: int, full: int) -> int:
    """``full`` under ``PROBESTATS_FULL=1``, else ``bounded``."""
    return full if FULL else bounded
