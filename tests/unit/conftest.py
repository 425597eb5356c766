"""Fixtures the unit tests share: settings on the test's temporary directory, a SQLite unit of work factory
and the web app on those settings, jobs recorded instead of sent, and the job runtime reset after each test.

A module that needs other settings defines its own ``settings`` fixture; ``uow_factory`` and ``app`` then
use it. A module that needs more in the app (users, an event) overrides ``app`` with a fixture of the same
name that takes this one and adds to it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import make_session_factory
from orchestrator.jobs import dispatch, runtime
from orchestrator.web.app import create_app
from tests.support.databases import migrated_engine, schema_at_head


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Test settings on SQLite in ``tmp_path``; logins are not throttled (tests log in many times)."""
    return Settings(data_dir=tmp_path, environment="test", login_max_failures=1000)


@pytest.fixture
def uow_factory(settings: Settings) -> Iterator[UnitOfWorkFactory]:
    """Units of work on a fresh SQLite database with every table created (a copy of this process's
    migrated file: tests/support/databases.py)."""
    engine = migrated_engine(settings.sqlalchemy_url)
    session_factory = make_session_factory(engine)
    yield lambda: UnitOfWork(session_factory)
    engine.dispose()


@pytest.fixture
def uowf(uow_factory: UnitOfWorkFactory) -> UnitOfWorkFactory:
    """``uow_factory`` under the short name the results and Chess.com service tests use."""
    return uow_factory


@pytest.fixture(autouse=True)
def fresh_runtime() -> Iterator[None]:
    yield
    runtime._runtime = None  # configure() in a test (or an app's start-up) must not leak into the next one


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[int, ...]]]:
    """Jobs handed over after commit (recorded instead of run)."""
    calls: list[tuple[str, tuple[int, ...]]] = []
    monkeypatch.setattr(dispatch, "send", lambda name, *ids, countdown=None: calls.append((name, ids)))
    return calls


@pytest.fixture
def app(settings: Settings) -> Iterator[FastAPI]:
    """The web app on ``settings``, started (its start-up migrates the SQLite file, which starts as a copy of
    this process's migrated one, so the start-up finds it at head)."""
    schema_at_head(settings.sqlalchemy_url)
    application = create_app(settings)
    with TestClient(application):
        yield application


@pytest.fixture
def client(app: FastAPI) -> TestClient:
    return TestClient(app)
