"""Input the database cannot store is refused at the web layer with a clear 4xx (SQLite in a temporary
directory; tests/integration/test_input_limits_pg.py runs the id checks on PostgreSQL)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from orchestrator.adapters.tables import Role
from orchestrator.config import Settings
from orchestrator.services.accounts.users import create_user
from orchestrator.services.teams import rosters
from orchestrator.web.app import create_app
from orchestrator.web.http.validation import BodySizeLimit
from tests.support.databases import schema_at_head
from tests.support.factories import SMALL_EVENT
from tests.support.staff_setup import create_small_event, stage_ids
from tests.support.web import PASSWORD, login

TOO_BIG = (2**31, 2**63)
MAX_UPLOAD_BYTES = 2_000_000  # the event definition's limit (web/pages/staff/setup.py)


@pytest.fixture
def app(tmp_path: Path) -> Iterator[FastAPI]:
    settings = Settings(data_dir=tmp_path, environment="test", login_max_failures=1000)
    schema_at_head(settings.sqlalchemy_url)
    application = create_app(settings)
    with TestClient(application):
        with application.state.uow_factory() as uow:
            for role in (Role.OWNER, Role.ADMIN, Role.ARBITER):
                create_user(uow, username=role.value, password=PASSWORD, role=role)
        yield application


@pytest.fixture
def owner(app: FastAPI) -> tuple[TestClient, str, int]:
    client, csrf = login(app, "owner")
    return client, csrf, create_small_event(client, csrf)


def slug_of(client: TestClient, event_id: int) -> str:
    slug: str = client.get(f"/api/v1/staff/events/{event_id}").json()["slug"]
    return slug


@pytest.mark.parametrize("big", TOO_BIG)
def test_ids_past_the_database_integer_range_are_not_found_on_public_staff_and_api_routes(
    owner: tuple[TestClient, str, int], big: int
) -> None:
    client, _, event_id = owner
    slug = slug_of(client, event_id)
    anonymous = TestClient(client.app, raise_server_exceptions=False)
    for path in (
        f"/events/{slug}/matches/{big}",
        f"/events/{slug}/teams/{big}",
        f"/api/v1/events/{slug}/matches/{big}",
        f"/api/v1/lots/{big}",
    ):
        assert anonymous.get(path).status_code == 404, path
    for path in (
        f"/staff/events/{big}",
        f"/staff/events/{big}/rosters",
        f"/api/v1/staff/events/{big}",
        f"/api/v1/staff/stages/{big}/pools",
        f"/api/v1/staff/events/{slug}/audit?match_id={big}",
    ):
        answer = client.get(path)
        assert answer.status_code == 404, (path, answer.text)


@pytest.mark.parametrize("big", TOO_BIG)
def test_an_id_past_the_range_in_a_json_or_form_body_is_refused_naming_the_field(
    owner: tuple[TestClient, str, int], big: int
) -> None:
    client, csrf, event_id = owner
    stage_id = stage_ids(client, event_id)["group"]
    answer = client.post(
        f"/api/v1/staff/stages/{stage_id}/pools/swap",
        json={"team_a_id": big, "team_b_id": 1},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.status_code == 422, answer.text
    assert any("team_a_id" in p for p in answer.json()["problems"]), answer.text
    answer = client.post(
        f"/staff/stages/{stage_id}/pools/swap",
        data={"csrf_token": csrf, "team_a_id": str(big), "team_b_id": "1"},
    )
    assert answer.status_code == 422, answer.text
    assert "team_a_id" in answer.text


@pytest.mark.parametrize("text", ["a\x00b", "\ud800"])
def test_text_the_database_refuses_is_a_422_naming_the_json_field(
    owner: tuple[TestClient, str, int], text: str
) -> None:
    client, csrf, event_id = owner
    raw = json.dumps({"purpose": f"Armageddon {text}", "candidates": ["A", "B"]})  # \ud800 escaped
    answer = client.post(
        f"/api/v1/staff/events/{event_id}/lots",
        content=raw,
        headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"},
    )
    assert answer.status_code == 422, answer.text
    assert any(p.startswith("purpose:") for p in answer.json()["problems"]), answer.text


def test_a_nul_character_in_a_form_field_is_a_422_naming_the_field(
    owner: tuple[TestClient, str, int],
) -> None:
    client, csrf, event_id = owner
    answer = client.post(
        f"/staff/events/{event_id}/lots",
        data={"csrf_token": csrf, "purpose": "duel\x00XI", "candidates": "A\nB", "kind": "one"},
    )
    assert answer.status_code == 422, answer.text
    assert "purpose" in answer.text


def test_a_csv_field_over_the_csv_field_limit_is_refused_with_its_line(
    owner: tuple[TestClient, str, int],
) -> None:
    client, csrf, event_id = owner
    header = ",".join(rosters.COLUMNS)
    long_name = "x" * 200_000
    csv_text = f"{header}\nTeam,NOR,1,{long_name},acc,m,1990,2500,1\n"
    answer = client.post(
        f"/api/v1/staff/events/{event_id}/rosters",
        json={"csv_text": csv_text},
        headers={"X-CSRF-Token": csrf},
    )
    assert answer.status_code == 422, answer.text
    assert any(p.startswith("line 2:") for p in answer.json()["problems"]), answer.text


def test_an_event_definition_over_the_upload_limit_is_refused_with_413_before_parsing(
    owner: tuple[TestClient, str, int],
) -> None:
    client, csrf, _ = owner
    padding = "#" + "x" * 99 + "\n"
    text = SMALL_EVENT + padding * (MAX_UPLOAD_BYTES // len(padding) + 1)
    answer = client.post(
        "/api/v1/staff/events", json={"definition_text": text}, headers={"X-CSRF-Token": csrf}
    )
    assert answer.status_code == 413, answer.text
    assert "2 MB" in answer.json()["detail"]


def test_an_event_definition_within_the_limit_is_still_created_through_the_api(app: FastAPI) -> None:
    client, csrf = login(app, "owner")
    answer = client.post(
        "/api/v1/staff/events", json={"definition_text": SMALL_EVENT}, headers={"X-CSRF-Token": csrf}
    )
    assert answer.status_code == 201, answer.text


@pytest.mark.parametrize("declared", [b"\xb2", b"\xc2\xb2", b"x", b""])
def test_a_content_length_that_is_not_ascii_digits_is_left_to_the_body_count(declared: bytes) -> None:
    """Headers are Latin-1: b"\\xb2" reads "²", a digit to ``str.isdigit`` but not to ``int``. Such a header
    must not end in a 500; the body is counted as it comes."""
    seen: list[bytes] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        message = await receive()
        seen.append(message.get("body", b""))

    async def receive() -> Message:
        return {"type": "http.request", "body": b"a=1", "more_body": False}

    async def send(message: Message) -> None:
        return None

    form = b"application/x-www-form-urlencoded"
    scope = {
        "type": "http",
        "method": "POST",
        "path": "/",
        "headers": [(b"content-type", form), (b"content-length", declared)],
    }
    asyncio.run(BodySizeLimit(app)(scope, receive, send))
    assert seen == [b"a=1"]
