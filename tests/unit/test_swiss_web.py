"""The Swiss round desk page (orchestrator/web/pages/staff/swiss.py): staff start the stage, pair, change
a board with a reason, publish and end the stage with CSRF forms, without JavaScript."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import Role
from orchestrator.services.accounts.users import create_user
from orchestrator.services.setup.stage_start import start_stage
from orchestrator.services.swiss import rounds
from tests.support.factories import make_event, stage_id_of
from tests.support.swiss import SWISS_EVENT, pair_publish_play
from tests.support.web import PASSWORD, login


@pytest.fixture
def stage_id(app: FastAPI) -> int:
    with app.state.uow_factory() as uow:
        create_user(uow, username="admin", password=PASSWORD, role=Role.ADMIN)
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
        return stage_id_of(uow, make_event(uow, SWISS_EVENT), "open")


def test_the_desk_starts_pairs_overrides_and_publishes_with_forms(app: FastAPI, stage_id: int) -> None:
    admin, csrf = login(app, "admin")
    page = admin.get(f"/staff/swiss/{stage_id}")
    assert page.status_code == 200 and "Start Open" in page.text
    first = admin.post(f"/staff/swiss/{stage_id}/start", data={"csrf_token": csrf})
    assert first.status_code == 409 and "Start the stage again to draw it" in first.text  # the colour lot
    started = admin.post(f"/staff/swiss/{stage_id}/start", data={"csrf_token": csrf})
    assert started.status_code == 303
    arbiter, token = login(app, "arbiter")
    assert "Pair round 1" in arbiter.get(f"/staff/swiss/{stage_id}").text
    no_csrf = arbiter.post(f"/staff/swiss/{stage_id}/pair", data={})
    assert no_csrf.status_code in (400, 403)
    paired = arbiter.post(f"/staff/swiss/{stage_id}/pair", data={"csrf_token": token})
    assert paired.status_code == 303
    desk = arbiter.get(paired.headers["location"]).text
    assert "Draft pairing of round 1 (not public)" in desk and "Pairing-allocated bye" in desk
    round_id = int(re.search(r"/staff/swiss/rounds/(\d+)/publish", desk).group(1))  # type: ignore[union-attr]
    refused = arbiter.post(
        f"/staff/swiss/rounds/{round_id}/override",
        data={"csrf_token": token, "board": "1", "first_team_id": "x", "second_team_id": "2", "reason": "r"},
    )
    assert refused.status_code == 422 and "first_team_id: choose the first-named team" in refused.text
    published = arbiter.post(f"/staff/swiss/rounds/{round_id}/publish", data={"csrf_token": token})
    assert published.status_code == 303
    after = arbiter.get(published.headers["location"]).text
    assert "Round 1 as published" in after and "Round 1 has not started" in after
    assert f"/staff/swiss/rounds/{round_id}/override" in after and "Change round 1" in after
    ended = arbiter.post(f"/staff/swiss/{stage_id}/end-early", data={"csrf_token": token, "reason": "storm"})
    assert ended.status_code == 409 and "no round is complete yet" in ended.text


def test_the_staff_event_page_links_the_swiss_desk_and_captains_cannot_open_it(
    app: FastAPI, stage_id: int
) -> None:
    admin, _ = login(app, "admin")
    with app.state.uow_factory() as uow:
        event_id = uow.events.event_and_stage(stage_id)[0].id
    assert f"/staff/swiss/{stage_id}" in admin.get(f"/staff/events/{event_id}", follow_redirects=True).text
    anonymous, _ = login(app, None)
    answer = anonymous.get(f"/staff/swiss/{stage_id}")
    assert answer.status_code in (302, 303, 401, 403)


def test_the_results_pages_of_a_running_swiss_stage_render(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    with factory() as uow:
        start_stage(uow, stage_id=stage_id, actor="admin", initial_colour="B")
    first = pair_publish_play(factory, stage_id)
    arbiter, _ = login(app, "arbiter")
    overview = arbiter.get("/staff/events/swiss-test-cup/results")
    assert overview.status_code == 200 and f"/staff/swiss/{stage_id}" in overview.text
    assert arbiter.get(f"/staff/rounds/{first.round_id}/results").status_code == 200
    assert arbiter.get(f"/staff/stages/{stage_id}/close").status_code == 200
    assert arbiter.get(f"/staff/stages/{stage_id}/withdrawals").status_code == 200


def test_a_withdrawal_on_the_desk_discards_the_draft_and_says_so(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    with factory() as uow:
        start_stage(uow, stage_id=stage_id, actor="admin", initial_colour="W")
    first = pair_publish_play(factory, stage_id)
    arbiter, token = login(app, "arbiter")
    assert arbiter.post(f"/staff/swiss/{stage_id}/pair", data={"csrf_token": token}).status_code == 303
    answer = arbiter.post(
        f"/staff/swiss/{stage_id}/withdraw",
        data={"csrf_token": token, "team_id": str(first.pairings[0].first_id), "reason": "illness"},
    )
    assert answer.status_code == 303 and answer.headers["location"].endswith("done=withdrawn&discarded=2")
    desk = arbiter.get(answer.headers["location"]).text
    assert "The team withdrew. The draft pairing of round 2 was discarded: pair it again." in desk
    assert "Pair round 2" in desk
    forged = arbiter.get(f"/staff/swiss/{stage_id}?done=<b>Call+this+number</b>").text
    assert "Call this number" not in forged


def test_a_captain_sets_the_lineup_of_a_published_swiss_match_as_of_a_pool_match(
    app: FastAPI, stage_id: int
) -> None:
    factory = app.state.uow_factory
    with factory() as uow:
        start_stage(uow, stage_id=stage_id, actor="admin", initial_colour="W")
        draft = rounds.pair_next_round(uow, stage_id=stage_id, actor="arbiter")
    with factory() as uow:
        published = rounds.publish_round_pairing(uow, round_id=draft.round_id, actor="arbiter")
    board = published.pairings[0]
    with factory() as uow:
        players = list(uow.teams.players_of_team(board.first_id))
        create_user(uow, username="cap", password=PASSWORD, role=Role.CAPTAIN, team_id=board.first_id)
    reserve = next(p for p in players if p.main_board is None)
    main = {p.main_board: p for p in players if p.main_board is not None}
    chosen = [main[1].id, main[2].id, main[3].id, reserve.id]  # the reserve plays board 4
    captain, token = login(app, "cap")
    assert f"/captain/matches/{board.match_id}/lineup" in captain.get("/captain").text
    form = {"csrf_token": token, **{f"board_{n}": str(pid) for n, pid in enumerate(chosen, start=1)}}
    answer = captain.post(f"/captain/matches/{board.match_id}/lineup", data=form)
    assert answer.status_code == 303
    with factory() as uow:
        lineup = uow.teams.lineup_of(board.match_id or 0, board.first_id)
        assert lineup is not None and list(lineup.boards) == chosen
