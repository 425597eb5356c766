"""An event file whose slug or stage or section key is longer than its PostgreSQL column (``VARCHAR(80)``,
``VARCHAR(40)``) is refused by the event-file reader with the line named, not by the database with a 500;
the longest allowed is stored (eventfile/reader.py, eventfile/validate_sections.py; docs/input-limits.md,
"Event files")."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from orchestrator.adapters.uow import UnitOfWorkFactory
from tests.support.factories import SMALL_EVENT
from tests.support.web import admin_client

pytestmark = pytest.mark.integration

EVENTS = Path(__file__).parents[1] / "fixtures" / "events"
SECTIONS = (EVENTS / "olympiad-2026-sections.yaml").read_text(encoding="utf-8")


@pytest.fixture
def staff(pg_url: str, uow_factory: UnitOfWorkFactory) -> Iterator[tuple[TestClient, str]]:
    yield from admin_client(pg_url, uow_factory)


def slug(length: int) -> str:
    """A slug of ``length`` characters of its own (the test database is shared)."""
    head = f"len-{secrets.token_hex(4)}-"
    return head + "x" * (length - len(head))


def small(event_slug: str, stage_key: str = "group") -> str:
    text = SMALL_EVENT.replace("slug: small-test-cup", f"slug: {event_slug}")
    return text.replace("key: group", f"key: {stage_key}").replace("from: group", f"from: {stage_key}")


def with_section_key(key: str) -> str:
    text = SECTIONS.replace("{key: open, name: Open", "{key: " + key + ", name: Open")
    return text.replace("section: open", f"section: {key}").replace("slug: ", f"slug: {slug(20)}-", 1)


def create(staff: tuple[TestClient, str], text: str) -> tuple[int, list[str]]:
    client, csrf = staff
    answer = client.post(
        "/api/v1/staff/events", json={"definition_text": text}, headers={"X-CSRF-Token": csrf}
    )
    is_json = answer.headers.get("content-type", "").startswith("application/json")
    return answer.status_code, answer.json().get("problems", []) if is_json else [answer.text[:200]]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (small(slug(81)), "event.yaml:4: slug: at most 80 characters, found 81"),
        (small(slug(30), "g" * 41), "): at most 40 characters, found 41"),
        (with_section_key("o" * 41), "sections[0].key: at most 40 characters, found 41"),
    ],
    ids=["slug", "stage-key", "section-key"],
)
def test_a_slug_or_key_past_its_column_is_a_422_naming_it(
    staff: tuple[TestClient, str], text: str, problem: str
) -> None:
    status, problems = create(staff, text)
    assert status == 422, problems
    assert any(problem in p for p in problems), problems


def test_the_longest_slug_and_keys_are_stored(staff: tuple[TestClient, str]) -> None:
    status, problems = create(staff, small(slug(80), "g" * 40))
    assert status == 201, problems
    status, problems = create(staff, with_section_key("o" * 40))
    assert status == 201, problems
