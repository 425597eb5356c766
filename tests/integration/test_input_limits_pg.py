"""On PostgreSQL, ids past INTEGER and text PostgreSQL refuses (NUL) get a clear 4xx over HTTP, never a 500
(web/http/validation.py; docs/input-limits.md)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Role
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services.accounts.users import create_user
from orchestrator.web.app import create_app
from tests.support.pools import SeededPool

pytestmark = pytest.mark.integration

PASSWORD = "correct horse battery"
PAST_INTEGER = (2**31, 2**63)


@pytest.fixture
def app(pg_url: str, uow_factory: UnitOfWorkFactory) -> Iterator[FastAPI]:
    application = create_app(
        Settings(database_url=pg_url, environment="test", login_max_failures=1000), uow_factory=uow_factory
    )
    with TestClient(application):
        yield application


@pytest.fixture
def staff(app: FastAPI, uow_factory: UnitOfWorkFactory) -> tuple[TestClient, str]:
    username = f"admin{secrets.token_hex(3)}"
    with uow_factory() as uow:
        create_user(uow, username=username, password=PASSWORD, role=Role.ADMIN)
    client = TestClient(app, follow_redirects=False, raise_server_exceptions=False)
    answer = client.post("/api/v1/auth/login", json={"username": username, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return client, answer.json()["csrf_token"]


@pytest.mark.parametrize("big", PAST_INTEGER)
def test_ids_past_integer_are_not_found_on_a_public_a_staff_and_an_api_route(
    app: FastAPI, seeded: SeededPool, staff: tuple[TestClient, str], big: int
) -> None:
    anonymous = TestClient(app, raise_server_exceptions=False)
    assert anonymous.get(f"/events/{seeded.slug}/matches/{big}").status_code == 404
    assert anonymous.get(f"/api/v1/events/{seeded.slug}/teams/{big}").status_code == 404
    client, _ = staff
    for path in (
        f"/staff/events/{big}",
        f"/staff/pools/{big}/standings.csv",
        f"/api/v1/staff/events/{big}",
        f"/api/v1/staff/pools/{big}/standings",
        f"/api/v1/staff/events/{seeded.slug}/audit?match_id={big}",
    ):
        answer = client.get(path)
        assert answer.status_code == 404, (path, answer.status_code, answer.text[:200])


@pytest.mark.parametrize("big", PAST_INTEGER)
def test_an_id_past_integer_in_a_json_body_is_a_422_naming_the_field(
    seeded: SeededPool, staff: tuple[TestClient, str], big: int
) -> None:
    client, csrf = staff
    answer = client.post(
        f"/api/v1/staff/stages/{seeded.stage_id}/pools/swap",
        json={"team_a_id": big, "team_b_id": next(iter(seeded.teams.values()))},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.status_code == 422, answer.text
    assert answer.json()["problems"] == [f"team_a_id: must be a whole number from 1 to {2**31 - 1}"]


def test_a_nul_character_postgresql_refuses_is_a_422_naming_the_field(
    seeded: SeededPool, staff: tuple[TestClient, str], uow_factory: UnitOfWorkFactory
) -> None:
    client, csrf = staff
    with uow_factory() as uow:
        event_id = uow.events.get_by_slug(seeded.slug).id  # type: ignore[union-attr]
    answer = client.post(
        f"/api/v1/staff/events/{event_id}/lots",
        json={"purpose": "duel XI\x00", "candidates": ["A", "B"]},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.status_code == 422, answer.text
    assert answer.json()["problems"] == ["purpose: contains a NUL character (U+0000)"]
    page = client.get(f"/events/{seeded.slug}%00")
    assert page.status_code == 404


def test_a_staff_page_with_a_nul_in_its_slug_is_a_404_without_a_logged_database_error(
    seeded: SeededPool, staff: tuple[TestClient, str], caplog: pytest.LogCaptureFixture
) -> None:
    """The 404 page's staff navigation read the event of the refused slug: PostgreSQL refused the NUL and
    the navigation logged a stack trace (web/staff_nav.py)."""
    client, _ = staff
    for page in ("setup", "dashboard", "live"):
        caplog.clear()
        answer = client.get(f"/staff/events/{seeded.slug}%00/{page}")
        assert answer.status_code == 404, (page, answer.text[:200])
        assert not [r for r in caplog.records if r.name == "orchestrator.web.staff_nav"], page
