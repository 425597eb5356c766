"""Late changes on the staff and public pages, the ruling forms and their JSON API twins."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import Role
from orchestrator.services.accounts.users import create_user
from orchestrator.services.setup import pool_draft
from tests.support.late_changes import build_two_stages, correct_winner, the_match
from tests.support.web import PASSWORD, login

SLUG = "small-test-cup"


@pytest.fixture
def corrected(app: FastAPI) -> int:
    """The small event's Group closed, the Final drafted with Norway and Sweden, then Sweden – Denmark
    corrected to a Denmark win; returns the Final's stage id."""
    factory = app.state.uow_factory
    with factory() as uow:
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
    stages = build_two_stages(factory)
    with factory() as uow:
        correct_winner(uow, the_match(uow, stages.group, "Sweden", "Denmark"), "Denmark")
    return stages.final


def test_staff_see_the_consequence_in_words_and_re_seed_with_the_form(app: FastAPI, corrected: int) -> None:
    client, csrf = login(app, "arbiter")
    page = client.get(f"/staff/events/{SLUG}/results")
    assert page.status_code == 200
    assert "Would now qualify: Denmark." in page.text and "Would no longer qualify: Sweden." in page.text
    assert "Final has not started" in page.text and "Re-seed Final" in page.text
    listed = client.get(f"/api/v1/stages/{corrected}/late-changes").json()["late_changes"]
    [change] = listed
    answer = client.post(
        f"/staff/late-changes/{change['id']}/reseed",
        data={"reason": "Denmark qualified on the corrected result", "csrf_token": csrf},
    )
    assert answer.status_code == 303 and answer.headers["location"] == f"/staff/events/{SLUG}/results"
    after = client.get(f"/staff/events/{SLUG}/results").text
    assert "Ruling: Re-seeded by arbiter" in after and "Denmark qualified on the corrected result" in after
    with app.state.uow_factory() as uow:
        pools = pool_draft.describe_pools(uow, stage_id=corrected).pools
    assert sorted(t.name for t in pools[0].teams) == ["Denmark", "Norway"]


def test_the_api_keeps_a_stage_with_its_reason_and_the_public_stage_page_says_so(
    app: FastAPI, corrected: int
) -> None:
    client, csrf = login(app, "arbiter")
    public = TestPage(app)
    assert "changed after it closed" in public.stage(
        "group"
    ) and "ruling on Final is pending" in public.stage("final")
    [change] = client.get(f"/api/v1/stages/{corrected}/late-changes").json()["late_changes"]
    assert change["consequence"]["now_in"] == ["Denmark"] and change["status"] == "pending"
    headers = {"X-CSRF-Token": csrf}
    refused = client.post(f"/api/v1/late-changes/{change['id']}/keep", json={"reason": " "}, headers=headers)
    assert refused.status_code == 422
    kept = client.post(
        f"/api/v1/late-changes/{change['id']}/keep", json={"reason": "committee decision 7"}, headers=headers
    )
    assert kept.status_code == 200 and kept.json()["status"] == "kept"
    again = client.post(f"/api/v1/late-changes/{change['id']}/reseed", json={"reason": "x"}, headers=headers)
    assert again.status_code == 409
    assert "Final stays as it was: committee decision 7" in public.stage("final")


class TestPage:
    __test__ = False

    def __init__(self, app: FastAPI) -> None:
        self.client, _ = login(app, None)

    def stage(self, key: str) -> str:
        answer = self.client.get(f"/events/{SLUG}/stages/{key}")
        assert answer.status_code == 200
        return answer.text
