"""Hypothesis profiles for every test suite.

- ``ci`` (loaded when CI=true): derandomized, so a run tries the same examples every time and a failure
  comes back on the next run; no example database (nothing is kept between runs anyway); no deadline and
  no too-slow health check (both time the machine, and a loaded CI machine is slow: tests never assert on
  time); ``print_blob`` so a failure's report carries the line that replays it (``@reproduce_failure``).
- ``dev`` (everywhere else): Hypothesis's defaults, fresh random examples each run, failures kept in the
  local ``.hypothesis/`` database and tried first next time.

``HYPOTHESIS_PROFILE=ci`` (or ``dev``) picks a profile whatever CI says, as does pytest's
``--hypothesis-profile`` option. A test's own ``@settings(max_examples=...)`` still sets its example
count; a counterexample found once is kept as an ``@example`` on the test.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.support.ci import in_ci
from tests.support.databases import drop_templates

settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=100,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", settings.get_profile("default"))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if in_ci() else "dev"))


@pytest.fixture(scope="session", autouse=True)
def migrated_templates() -> Iterator[None]:
    """Drop this process's migrated databases (tests/support/databases.py) when its tests end: a test
    process of pytest-xdist may end without running ``atexit`` handlers."""
    yield
    drop_templates()
