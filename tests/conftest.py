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
