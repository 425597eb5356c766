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

import importlib.util
import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.support.ci import in_ci

# The order the tests are handed to pytest-xdist's processes: tests that start processes and servers of
# their own (integration, then browser and HTTP end-to-end) first, the many short unit tests after them,
# so that with `--dist worksteal` (Makefile) the short ones fill the processes while the long ones run
# instead of a long test starting last and running alone (docs/CONTRIBUTING.md, "Running the tests").
_FIRST = ("tests/integration/", "tests/e2e/")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        path = item.nodeid
        return next((i for i, prefix in enumerate(_FIRST) if path.startswith(prefix)), len(_FIRST))

    items.sort(key=rank)  # stable: each file's tests keep their order


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


def _present(module: str) -> bool:
    """False for the application's test support in the copies bench/mutation.sh tests, which hold
    ``orchestrator/domain`` and the domain's tests only: the two fixtures below then have nothing to do."""
    return importlib.util.find_spec(module) is not None


@pytest.fixture(scope="session", autouse=True)
def migrated_templates() -> Iterator[None]:
    """Drop this process's migrated databases (tests/support/databases.py) when its tests end: a test
    process of pytest-xdist may end without running ``atexit`` handlers."""
    yield
    if _present("tests.support.databases"):
        from tests.support.databases import drop_templates

        drop_templates()


@pytest.fixture(scope="session", autouse=True)
def cheap_password_hashes() -> Iterator[None]:
    """Hash and verify passwords at argon2id's lowest cost in this process (tests/support/passwords.py):
    a login costs milliseconds instead of a tenth of a second; the product's parameters are tested in
    tests/unit/test_auth.py."""
    if not _present("tests.support.passwords"):
        yield
        return
    from tests.support.passwords import cheap_hashes

    with cheap_hashes():
        yield
