"""The Swiss round desk's JSON API (orchestrator/web/api/swiss.py) and the public Swiss stage: staff
pair, review, override, publish and re-pair; bad input gets a clear 4xx, never a 500."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import Role
from orchestrator.services.accounts.users import create_user
from tests.support.swiss import pair_publish_play, running_swiss
from tests.support.web import PASSWORD, login

SLUG = "swiss-test-cup"


@pytest.fixture
def stage_id(app: FastAPI) -> int:
    with app.state.uow_factory() as uow:
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
        stage_id = running_swiss(uow)
        team = uow.rounds.entries_of_pool(uow.rounds.pools_in_letter_order(stage_id)[0].id or 0)[0].team_id
        create_user(uow, username="captain", password=PASSWORD, role=Role.CAPTAIN, team_id=team)
        return stage_id


def test_staff_pair_review_override_publish_and_re_pair_through_the_api(app: FastAPI, stage_id: int) -> None:
    client, csrf = login(app, "arbiter")
    headers = {"X-CSRF-Token": csrf}
    assert client.get(f"/api/v1/swiss/stages/{stage_id}/draft").status_code == 404
    paired = client.post(f"/api/v1/swiss/stages/{stage_id}/pair-next-round", json={}, headers=headers)
    assert paired.status_code == 200, paired.text
    draft = paired.json()
    assert draft["status"] == "draft" and draft["number"] == 1 and draft["bye"]
    assert client.get(f"/api/v1/swiss/stages/{stage_id}/draft").json() == draft
    again = client.post(f"/api/v1/swiss/stages/{stage_id}/pair-next-round", json={}, headers=headers)
    assert again.status_code == 409 and "already has a draft" in again.json()["detail"]
    board = draft["pairings"][0]
    round_id = draft["round_id"]
    no_reason = client.post(
        f"/api/v1/swiss/rounds/{round_id}/override",
        json={
            "board": 1,
            "first_team_id": board["second_id"],
            "second_team_id": board["first_id"],
            "reason": "",
        },
        headers=headers,
    )
    assert no_reason.status_code == 422
    swapped = client.post(
        f"/api/v1/swiss/rounds/{round_id}/override",
        json={
            "board": 1,
            "first_team_id": board["second_id"],
            "second_team_id": board["first_id"],
            "reason": "colours",
        },
        headers=headers,
    )
    assert swapped.status_code == 200 and swapped.json()["pairings"][0]["first"] == board["second"]
    bad_board = client.post(
        f"/api/v1/swiss/rounds/{round_id}/override",
        json={"board": 99, "first_team_id": 1, "second_team_id": 2, "reason": "x"},
        headers=headers,
    )
    assert bad_board.status_code == 422 and "boards 1 to" in bad_board.text
    published = client.post(f"/api/v1/swiss/rounds/{round_id}/publish", headers=headers)
    assert published.status_code == 200 and published.json()["status"] == "scheduled"
    assert all(p["match_id"] for p in published.json()["pairings"])
    assert client.post(f"/api/v1/swiss/rounds/{round_id}/publish", headers=headers).status_code == 409
    re_paired = client.post(f"/api/v1/swiss/rounds/{round_id}/re-pair", json={}, headers=headers)
    assert re_paired.status_code == 200 and re_paired.json()["status"] == "draft"


def test_team_operations_and_ending_early_through_the_api(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    first = pair_publish_play(factory, stage_id)
    client, csrf = login(app, "arbiter")
    headers = {"X-CSRF-Token": csrf}
    team = first.pairings[0].first_id
    base = f"/api/v1/swiss/stages/{stage_id}/teams"
    absent = client.post(f"{base}/{team}/absent", json={"round": 2, "reason": "travel"}, headers=headers)
    assert absent.status_code == 200 and absent.json()["round_no"] == 2
    twice = client.post(f"{base}/{team}/absent", json={"round": 2, "reason": "travel"}, headers=headers)
    assert twice.status_code == 409
    gone = client.post(f"{base}/{team}/withdraw", json={"reason": "illness"}, headers=headers)
    assert gone.status_code == 200 and gone.json()["round_no"] == 2
    late = client.post(f"{base}/{team}/late-entry", json={"reason": "x"}, headers=headers)
    assert late.status_code == 409 and "already plays" in late.json()["detail"]
    unknown = client.post(f"{base}/999999/withdraw", json={"reason": "x"}, headers=headers)
    assert unknown.status_code == 422
    not_swiss = client.post("/api/v1/swiss/stages/999999/end-early", json={"reason": "x"}, headers=headers)
    assert not_swiss.status_code == 404
    ended = client.post(
        f"/api/v1/swiss/stages/{stage_id}/end-early", json={"reason": "storm"}, headers=headers
    )
    assert ended.status_code == 409 and "appeal window" in ended.json()["detail"]  # round 1 just finished


def test_the_public_swiss_stage_shows_standings_byes_and_hides_a_draft(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    first = pair_publish_play(factory, stage_id)
    client, csrf = login(app, "arbiter")
    client.post(f"/api/v1/swiss/stages/{stage_id}/pair-next-round", json={}, headers={"X-CSRF-Token": csrf})
    anonymous, _ = login(app, None)
    answer = anonymous.get(f"/api/v1/events/{SLUG}/stages/open/swiss")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert [r["status"] for r in body["rounds"]] == [
        "finished",
        "unpaired",
        "unpaired",
        "unpaired",
        "unpaired",
    ]
    assert body["rounds"][0]["bye"]["name"] == first.bye
    assert len(body["pool"]["standings"]) == 7
    assert anonymous.get(f"/api/v1/events/{SLUG}/stages/nope/swiss").status_code == 404
    for path in (f"/events/{SLUG}", f"/events/{SLUG}/stages/open"):
        assert anonymous.get(path).status_code == 200


def test_captains_and_visitors_cannot_use_the_round_desk(app: FastAPI, stage_id: int) -> None:
    for who in ("captain", None):
        client, csrf = login(app, who)
        answer = client.post(
            f"/api/v1/swiss/stages/{stage_id}/pair-next-round", json={}, headers={"X-CSRF-Token": csrf}
        )
        assert answer.status_code in (401, 403)


def test_a_desk_request_without_the_csrf_header_changes_nothing(app: FastAPI, stage_id: int) -> None:
    client, _csrf = login(app, "arbiter")
    answer = client.post(f"/api/v1/swiss/stages/{stage_id}/pair-next-round", json={})
    assert answer.status_code == 403
    assert client.get(f"/api/v1/swiss/stages/{stage_id}/draft").status_code == 404
