"""A roster CSV whose role is a board number of thousands of digits, which ``int`` refuses (over 4300
digits), is refused naming the line, not with a 500 (services/teams/roster_lines.py; docs/input-limits.md,
"CSV files"), on PostgreSQL through the JSON API."""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from orchestrator.adapters.uow import UnitOfWorkFactory
from tests.support.factories import SMALL_EVENT
from tests.support.web import admin_client

pytestmark = pytest.mark.integration

HEADER = "team,federation,seed,name,account,sex,birth_year,rating,role"


@pytest.fixture
def staff(pg_url: str, uow_factory: UnitOfWorkFactory) -> Iterator[tuple[TestClient, str]]:
    yield from admin_client(pg_url, uow_factory)


@pytest.mark.parametrize(
    ("role", "board"),
    [("9" * 5000, "999999999999…"), ("0" * 5000, "0"), ("0007", "7")],
    ids=["nines", "zeros", "seven"],
)
def test_a_board_number_of_thousands_of_digits_is_a_422_naming_the_line(
    staff: tuple[TestClient, str], role: str, board: str
) -> None:
    client, csrf = staff
    headers = {"X-CSRF-Token": csrf}
    text = SMALL_EVENT.replace("slug: small-test-cup", f"slug: roster-{secrets.token_hex(4)}")
    created = client.post("/api/v1/staff/events", json={"definition_text": text}, headers=headers)
    assert created.status_code == 201, created.text
    csv_text = f"{HEADER}\nNorway,NOR,1,Nils Berg,nberg_nor,m,1990,2600,{role}\n"
    answer = client.post(
        f"/api/v1/staff/events/{created.json()['id']}/rosters", json={"csv_text": csv_text}, headers=headers
    )
    assert answer.status_code == 422, answer.text[:200]
    assert f"line 2: board {board} does not exist: teams play on 6 boards" in answer.json()["problems"]
