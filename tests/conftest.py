"""Hypothesis profiles: the same draws on every CI run, fresh draws on a developer's machine.

- ``ci`` (loaded when the environment variable ``CI`` is set to anything but empty, 0, false or no;
  CI services set ``CI=true``): derandomized,
  so whether a change lands never depends on the draw; more examples for tests that do not set their
  own count; no deadline (shared machines are slow); the failing example's blob printed so it can be
  replayed with ``@reproduce_failure``.
- ``dev`` (otherwise): random draws, hypothesis' defaults, so the suite keeps finding new cases.

Choose one by hand with ``pytest --hypothesis-profile ci`` (or ``dev``), and fix the draw of a
random run with ``--hypothesis-seed N``.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, max_examples=300, deadline=None, print_blob=True)
# named in full: hypothesis' own defaults turn derandomized whenever a CI variable exists at all
settings.register_profile("dev", derandomize=False, max_examples=100, print_blob=False)
settings.load_profile("ci" if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no") else "dev")


import shutil  # noqa: E402

import pytest  # noqa: E402


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
    if shutil.which("java") is None:
        missing.append("a Java runtime (apt-get install -y default-jre-headless)")
    if missing:
        message = "the Spark tests need " + " and ".join(missing)
        if os.environ.get("PROBESTATS_REQUIRE_SPARK") == "1":
            pytest.fail(message + "; PROBESTATS_REQUIRE_SPARK=1 makes that a failure")
        pytest.skip(message)
    session = SparkSession.builder.master("local[1]").appName("probestats").getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
