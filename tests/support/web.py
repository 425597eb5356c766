"""Logging in to the web app from a test: every test user has ``PASSWORD``."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from pathlib import Path

from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Role
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services.accounts.users import create_user
from orchestrator.web.app import create_app
from tests.support.databases import schema_at_head

PASSWORD = "correct horse battery"


def form_token(html: str) -> str:
    """The CSRF token of the page's form."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert found, "the page has no CSRF field"
    return found.group(1)


def login(app: FastAPI, username: str | None) -> tuple[TestClient, str]:
    """A client (redirects not followed) logged in as ``username`` by the JSON login, or anonymous for
    None, and its session's CSRF token."""
    client = TestClient(app, follow_redirects=False)
    if username is None:
        return client, form_token(client.get("/login").text)
    answer = client.post("/api/v1/auth/login", json={"username": username, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return client, answer.json()["csrf_token"]


def owner_app(tmp_path: Path) -> Iterator[FastAPI]:
    """The app on a SQLite file in ``tmp_path``, running (its lifespan entered), with the user ``owner``
    (an owner, ``PASSWORD``); for a fixture: ``yield from owner_app(tmp_path)``."""
    settings = Settings(data_dir=tmp_path, environment="test", login_max_failures=1000)
    schema_at_head(settings.sqlalchemy_url)
    application = create_app(settings)
    with TestClient(application):
        with application.state.uow_factory() as uow:
            create_user(uow, username="owner", password=PASSWORD, role=Role.OWNER)
        yield application


def admin_client(database_url: str, uow_factory: UnitOfWorkFactory) -> Iterator[tuple[TestClient, str]]:
    """A logged-in client of a new administrator (a name of its own: the test database may be shared) on
    the app at ``database_url``, with its CSRF token; server errors are answers, not exceptions. For a
    fixture: ``yield from admin_client(pg_url, uow_factory)``."""
    app = create_app(
        Settings(database_url=database_url, environment="test", login_max_failures=1000),
        uow_factory=uow_factory,
    )
    username = f"admin{secrets.token_hex(3)}"
    with uow_factory() as uow:
        create_user(uow, username=username, password=PASSWORD, role=Role.ADMIN)
    with TestClient(app, follow_redirects=False, raise_server_exceptions=False) as client:
        answer = client.post("/api/v1/auth/login", json={"username": username, "password": PASSWORD})
        assert answer.status_code == 200, answer.text
        yield client, answer.json()["csrf_token"]
