"""Hypothesis profiles: the same draws on every CI run, fresh draws on a developer's machine.

- ``ci`` (loaded when the environment variable ``CI`` is set to anything but empty, 0, false or no;
  CI services set ``CI=true``): derandomized,
  so whether a change lands never depends on the draw; more examples for tests that do not set their
  own count; no deadline (shared machines are slow); the failing example's blob printed so it can be
  replayed with ``@reproduce_failure``.
- ``dev`` (otherwise): random draws, hypothesis' defaults, so the suite keeps finding new cases.

Choose one by hand with ``pytest --hypothesis-profile ci`` (or ``dev``), and fix the draw of a
random run with ``--hypothesis-seed N``.

Each test module starts with the objects that outlived the modules before it collected once and then
frozen (:func:`gc.freeze`): statsmodels' Holm correction runs a full ``gc.collect()`` on every call, and
in a process holding the whole suite's imports that scan took 0.1-1 s, most of the level tests' time.
"""

import gc
import os
import re
import shutil
import subprocess

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=300, deadline=None, print_blob=True)
# named in full: hypothesis' own defaults turn derandomized whenever a CI variable exists at all
settings.register_profile("dev", derandomize=False, max_examples=100, print_blob=False)
settings.load_profile("ci" if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no") else "dev")


_frozen_for = [None]


def pytest_runtest_setup(item):
    """At the first test of each module: collect what the modules before left, then freeze the rest.

    Frozen objects are never scanned again, so a later ``gc.collect()`` looks only at what the
    module itself made. Garbage is collected before each freeze; what is frozen (imports, caches,
    fixtures of earlier modules) stays to the end of the run even if it becomes garbage.
    """
    module = getattr(item, "module", None)
    if module is not None and module is not _frozen_for[0]:
        _frozen_for[0] = module
        gc.collect()
        gc.freeze()


@pytest.fixture(scope="session")
def spark():
    """A local Spark session (one core) for the tests that run the Spark dialect's queries.

    Skipped where pyspark (the test extra installs it) or a Java runtime is missing, unless
    ``PROBESTATS_REQUIRE_SPARK=1`` (CI, whose ``.ci/run`` installs Java when missing) makes that a
    failure, so a CI run never passes without running them.
    """
    missing = []
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        missing.append("pyspark (pip install '.[test]')")
    if _java_major() < 17:   # what Spark 4 runs on
        missing.append("a Java runtime, 17 or later (apt-get install -y default-jre-headless)")
    if missing:
        message = "the Spark tests need " + " and ".join(missing)
        if os.environ.get("PROBESTATS_REQUIRE_SPARK") == "1":
            pytest.fail(message + "; PROBESTATS_REQUIRE_SPARK=1 makes that a failure")
        pytest.skip(message)
    session = (SparkSession.builder.master("local[1]").appName("probestats")
               .config("spark.ui.enabled", "false").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _java_major() -> int:
    """The major version of the ``java`` on the path (0 when there is none)."""
    if shutil.which("java") is None:
        return 0
    shown = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    found = re.search(r'version "(\d+)(?:\.(\d+))?', shown)
    if not found:
        return 0
    major = int(found.group(1))
    return int(found.group(2) or 0) if major == 1 else major   # "1.8.0" is Java 8


@pytest.fixture
def passes(monkeypatch):
    """The streaming passes taken, in order: True for each that gave a result, False where it gave way to the rows."""
    import probestats.checks.stream as stream

    taken = []
    original = stream.validate_streaming

    def counted(*args, **kwargs):
        out = original(*args, **kwargs)
        taken.append(out is not None)
        return out

    monkeypatch.setattr(stream, "validate_streaming", counted)
    return taken


@pytest.fixture(autouse=True)
def _terminal_width_as_piped():
    """Commands print as when piped (120 columns, make_console): the test runner's workers set COLUMNS=80,
    which squeezed tables and wrapped their cells differently from a plain run of the same test. The variable
    is put back by hand, not with monkeypatch: an autouse fixture's monkeypatch is set up first and so torn
    down last, after a test's own fixtures (a chdir into a small disk would outlive its unmount)."""
    saved = os.environ.pop("COLUMNS", None)
    yield
    if saved is not None:
        os.environ["COLUMNS"] = saved
