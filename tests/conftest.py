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

In several processes (``make test``: ``pytest -n 2 --dist loadgroup``), a module whose tests share a
fixture built once per module (a served app, a played event) runs whole in one process, and so do all the
tests of the session's played events (``demo_event``, ``full_2026``): each is built once, not once per
process that happens to get one of its tests (docs/CONTRIBUTING.md, "Test speed"). Other tests are
handed out one by one.
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


# Session fixtures that build a whole event: every module using one runs in the same process.
SHARED_EVENTS = ("full_2026", "demo_event")


def _group_of(item: pytest.Item) -> str | None:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    for name in SHARED_EVENTS:
        if name in info.name2fixturedefs:
            return name
    for definitions in info.name2fixturedefs.values():
        if any(d.scope in ("module", "class", "package") for d in definitions):
            return item.module.__name__ if isinstance(item, pytest.Function) and item.module else None
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test with the xdist group its module runs in (``--dist loadgroup``; none: any process)."""
    by_module: dict[str, str] = {}
    for item in items:
        group = _group_of(item)
        module = item.nodeid.split("::", 1)[0]
        if group is not None and by_module.get(module) not in SHARED_EVENTS:
            by_module[module] = group
    for item in items:
        group = by_module.get(item.nodeid.split("::", 1)[0])
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
