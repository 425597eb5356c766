"""Form fields no page can read are a 4xx naming the field, never a 500 (docs/input-limits.md).

A digit that is not an ASCII digit ("²" passes ``str.isdigit``, then ``int`` refuses it), a number of
thousands of digits (past ``int``'s limit for text), a time or a Chess.com match that does not parse: each
form's input model refuses it, and the page answers with the error page listing the problems (the JSON API
with ``{"detail": ..., "problems": [...]}``).
"""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlmodel import col, select

from orchestrator.adapters.tables import Match, Role, Round, Team
from orchestrator.services.accounts.users import create_user
from tests.support.factories import running_stage
from tests.support.web import PASSWORD, login

SLUG = "small-test-cup"
HUGE = "9" * 4400  # past int()'s 4300 digits of text


@pytest.fixture
def ids(app: FastAPI) -> dict[str, int]:
    """The small event with its first stage running; an admin, an arbiter and Norway's captain."""
    with app.state.uow_factory() as uow:
        stage_id = running_stage(uow)
        rounds = select(Round).where(Round.stage_id == stage_id).order_by(col(Round.number))
        rnd = uow.session.exec(rounds).first()
        assert rnd is not None and rnd.id is not None
        match = uow.session.exec(select(Match).where(Match.round_id == rnd.id)).first()
        assert match is not None and match.id is not None
        norway = uow.session.exec(select(Team).where(Team.name == "Norway")).one()
        for role in (Role.ADMIN, Role.ARBITER):
            create_user(uow, username=role.value, password=PASSWORD, role=role)
        create_user(uow, username="captain", password=PASSWORD, role=Role.CAPTAIN, team_id=norway.id)
        return {"stage": stage_id, "round": rnd.id, "match": match.id}


def refused(answer: object, *said: str) -> None:
    """A 4xx page that says one of ``said`` (the field's name, or what to choose in it)."""
    status = getattr(answer, "status_code", 0)
    text = getattr(answer, "text", "")
    assert 400 <= status < 500, (status, text[:300])
    assert any(words in text for words in said), text[:2000]


def test_a_lineup_board_holding_a_superscript_digit_is_refused_on_the_captains_form(
    app: FastAPI, ids: dict[str, int]
) -> None:
    client, csrf = login(app, "captain")
    answer = client.post(
        f"/captain/matches/{ids['match']}/lineup", data={"csrf_token": csrf, "board_1": "²", "board_2": ""}
    )
    refused(answer, "Board 1")


@pytest.mark.parametrize("player", ["²", HUGE, "x"])
def test_the_fair_play_form_refuses_a_player_that_is_no_number(
    app: FastAPI, ids: dict[str, int], player: str
) -> None:
    client, csrf = login(app, "admin")
    answer = client.post(
        f"/staff/events/{SLUG}/fairplay", data={"csrf_token": csrf, "player_id": player, "reason": "engine"}
    )
    refused(answer, "player_id", "choose the player")


def test_the_lineup_deadline_form_refuses_an_expected_time_that_is_no_time(
    app: FastAPI, ids: dict[str, int]
) -> None:
    client, csrf = login(app, "arbiter")
    answer = client.post(
        f"/staff/rounds/{ids['round']}/lineup-deadline",
        data={"csrf_token": csrf, "deadline": "2099-01-01T09:00", "expected": "x", "reason": "outage"},
    )
    refused(answer, "expected")


@pytest.mark.parametrize("chesscom_match", ["a]b", "²"])
def test_the_chesscom_import_refuses_a_team_match_that_is_no_number_or_url(
    app: FastAPI, ids: dict[str, int], chesscom_match: str
) -> None:
    client, csrf = login(app, "arbiter")
    form = {"csrf_token": csrf, "source": "team_match", "chesscom_match": chesscom_match}
    refused(client.post(f"/staff/matches/{ids['match']}/chesscom-import", data=form), "chesscom_match")
    body = {"source": "team_match", "chesscom_match": chesscom_match}
    answer = client.post(
        f"/api/v1/staff/matches/{ids['match']}/chesscom-import", json=body, headers={"X-CSRF-Token": csrf}
    )
    assert answer.status_code == 422, answer.text
    assert answer.json()["problems"] and "chesscom_match" in answer.json()["problems"][0]


def test_a_withdrawal_or_an_appeal_naming_a_superscript_team_is_refused(
    app: FastAPI, ids: dict[str, int]
) -> None:
    client, csrf = login(app, "arbiter")
    answer = client.post(
        f"/staff/stages/{ids['stage']}/withdrawals",
        data={"csrf_token": csrf, "team_id": "²", "reason": "ill"},
    )
    refused(answer, "team_id")
    answer = client.post(
        f"/staff/matches/{ids['match']}/appeals", data={"csrf_token": csrf, "team_id": "²", "grounds": "late"}
    )
    refused(answer, "team_id")


@pytest.mark.parametrize(
    ("action", "form"),
    [
        ("withdraw", {"team_id": "²"}),
        ("absent", {"team_id": "1", "round": "²"}),
        ("late-entry", {"team_id": "²"}),
        ("present", {"absence": "²:1"}),
    ],
)
def test_the_swiss_desk_refuses_a_superscript_team_or_round(
    app: FastAPI, ids: dict[str, int], action: str, form: dict[str, str]
) -> None:
    client, csrf = login(app, "arbiter")
    answer = client.post(f"/staff/swiss/{ids['stage']}/{action}", data={"csrf_token": csrf, **form})
    assert 400 <= answer.status_code < 500, answer.text[:300]


def test_the_player_links_page_ignores_a_saved_notice_that_is_no_number(
    app: FastAPI, ids: dict[str, int]
) -> None:
    client, _ = login(app, "arbiter")
    assert client.get(f"/staff/events/{SLUG}/links?saved=²").status_code == 200


def test_a_staff_page_whose_address_holds_a_superscript_id_is_a_4xx(
    app: FastAPI, ids: dict[str, int]
) -> None:
    client, _ = login(app, "arbiter")
    answer = client.get("/staff/matches/²/results")
    assert 400 <= answer.status_code < 500, answer.text[:300]
