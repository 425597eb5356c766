"""An absence can be undone ("present again": service, JSON API, desk form), an absence or its undoing is
refused for a team that withdrew, and a withdrawal forfeits the team's published match that has not started
for the opponent, leaving a started one to staff (orchestrator/services/swiss/entries.py, docs/swiss.md)."""

from __future__ import annotations

import re

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import AuditLog, Board, Match, Role
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.domain.scoring import GameResult, MatchForfeit
from orchestrator.errors import Conflict
from orchestrator.services.accounts.users import create_user
from orchestrator.services.results import results
from orchestrator.services.results.standings import pool_standings
from orchestrator.services.swiss import entries
from orchestrator.services.swiss import rounds as swiss_rounds
from tests.support.swiss import ACTOR, pair_and_publish, pair_publish_play, play_round, running_swiss
from tests.support.web import PASSWORD, login


def _audit_actions(factory: UnitOfWorkFactory, team_id: int) -> list[str]:
    with factory() as uow:
        rows = uow.session.query(AuditLog).filter(AuditLog.entity == "team").all()  # type: ignore[attr-defined]
        return [row.action for row in rows if row.entity_id == team_id]


def test_an_absence_is_undone_and_the_team_is_paired_again(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    first = pair_publish_play(uow_factory, stage_id)
    team = first.pairings[0].first_id
    with uow_factory() as uow:
        entries.mark_absent(uow, stage_id=stage_id, team_id=team, round_no=2, reason="travel", actor=ACTOR)
    with uow_factory() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    assert team not in {t for p in draft.pairings for t in (p.first_id, p.second_id)}
    with uow_factory() as uow:
        back = entries.mark_present(
            uow, stage_id=stage_id, team_id=team, round_no=2, reason="flight", actor=ACTOR
        )
    assert back.round_no == 2 and back.discarded_draft == 2  # the draft without the team is stale
    assert _audit_actions(uow_factory, team) == ["swiss.absent", "swiss.present"]
    with uow_factory() as uow, pytest.raises(Conflict, match="is not marked absent for round 2"):
        entries.mark_present(uow, stage_id=stage_id, team_id=team, round_no=2, reason="x", actor=ACTOR)
    second = pair_and_publish(uow_factory, stage_id)
    # Seven teams: six play, one has the bye; the team is one of them again.
    name = first.pairings[0].first
    assert name in {n for p in second.pairings for n in (p.first, p.second)} | {second.bye}
    play_round(uow_factory, second.round_id)
    with uow_factory() as uow:
        entries.mark_absent(uow, stage_id=stage_id, team_id=team, round_no=3, reason="ill", actor=ACTOR)
    pair_and_publish(uow_factory, stage_id)
    with uow_factory() as uow, pytest.raises(Conflict, match="Round 3 is scheduled: its absences can no"):
        entries.mark_present(uow, stage_id=stage_id, team_id=team, round_no=3, reason="x", actor=ACTOR)


def test_a_withdrawn_team_cannot_be_marked_absent_or_present(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    first = pair_publish_play(uow_factory, stage_id)
    team = first.pairings[1].second_id
    with uow_factory() as uow:
        entries.mark_absent(uow, stage_id=stage_id, team_id=team, round_no=3, reason="travel", actor=ACTOR)
        entries.withdraw_team(uow, stage_id=stage_id, team_id=team, reason="illness", actor=ACTOR)
    with (
        uow_factory() as uow,
        pytest.raises(Conflict, match=r"withdrew from Open \(from round 2\).*cannot be marked"),
    ):
        entries.mark_absent(uow, stage_id=stage_id, team_id=team, round_no=4, reason="x", actor=ACTOR)
    with uow_factory() as uow, pytest.raises(Conflict, match=r"withdrew from Open .*cannot be paired again"):
        entries.mark_present(uow, stage_id=stage_id, team_id=team, round_no=3, reason="x", actor=ACTOR)


def test_a_withdrawal_forfeits_the_unstarted_published_match_for_the_opponent(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    pair_publish_play(uow_factory, stage_id)
    second = pair_and_publish(uow_factory, stage_id)  # published, nothing started
    leaver, table = second.pairings[0].first_id, second.pairings[0]
    with uow_factory() as uow:
        before = pool_standings(uow, pool_id=uow.rounds.pools_in_letter_order(stage_id)[0].id or 0)
        gone = entries.withdraw_team(uow, stage_id=stage_id, team_id=leaver, reason="illness", actor=ACTOR)
    assert gone.round_no == 3 and gone.forfeited == (f"round 2, table 1 against {table.second}",)
    assert gone.left_to_staff == () and "Forfeited for the opponent (not started)" in gone.message
    with uow_factory() as uow:
        match = uow.rounds.get_or_raise(Match, table.match_id or 0)
        # The leaver is named first: the second team wins the match by forfeit ("-+").
        assert match.forfeit == MatchForfeit.B_WINS.value
        after = pool_standings(uow, pool_id=uow.rounds.pools_in_letter_order(stage_id)[0].id or 0)
    # The opponent gains a won match's 2 match points over its total after round 1.
    mp_before = {r.team: r.values["MP"] for r in before.rows}
    mp_after = {r.team: r.values["MP"] for r in after.rows}
    assert mp_after[table.second] == mp_before[table.second] + 2
    assert mp_after[table.first] == mp_before[table.first]


@pytest.mark.parametrize("started_by", ["result", "game"])
def test_a_withdrawal_leaves_a_started_match_to_staff(
    uow_factory: UnitOfWorkFactory, started_by: str
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    pair_publish_play(uow_factory, stage_id)
    second = pair_and_publish(uow_factory, stage_id)
    table = second.pairings[0]
    with uow_factory() as uow:
        board = uow.boards.for_match(table.match_id or 0)[0]
        if started_by == "result":
            results.record_result(
                uow,
                board_id=board.id or 0,
                result=GameResult.DRAW.value,
                expected_version=board.version,
                actor=ACTOR,
            )
        else:
            row = uow.boards.get_or_raise(Board, board.id or 0)
            row.game_id = "g-1"  # the game server has the game
            uow.session.add(row)
    with uow_factory() as uow:
        gone = entries.withdraw_team(
            uow, stage_id=stage_id, team_id=table.second_id, reason="illness", actor=ACTOR
        )
    assert gone.forfeited == () and gone.left_to_staff == (f"round 2, table 1 against {table.first}",)
    assert "Already started, left to you" in gone.message
    with uow_factory() as uow:
        assert uow.rounds.get_or_raise(Match, table.match_id or 0).forfeit == MatchForfeit.NONE.value


@pytest.fixture
def staff_stage(app: FastAPI) -> int:
    with app.state.uow_factory() as uow:
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
        return running_swiss(uow)


def test_present_again_through_the_api_and_the_desk(app: FastAPI, staff_stage: int) -> None:
    factory = app.state.uow_factory
    first = pair_publish_play(factory, staff_stage)
    team = first.pairings[0].first_id
    client, csrf = login(app, "arbiter")
    headers = {"X-CSRF-Token": csrf}
    base = f"/api/v1/swiss/stages/{staff_stage}/teams/{team}"
    assert (
        client.post(f"{base}/absent", json={"round": 2, "reason": "visa"}, headers=headers).status_code == 200
    )
    back = client.post(f"{base}/present", json={"round": 2, "reason": "visa came"}, headers=headers)
    assert back.status_code == 200 and back.json()["round_no"] == 2
    again = client.post(f"{base}/present", json={"round": 2, "reason": "x"}, headers=headers)
    assert again.status_code == 409 and "not marked absent" in again.json()["detail"]
    no_csrf = client.post(f"{base}/present", json={"round": 2, "reason": "x"})
    assert no_csrf.status_code == 403
    # The desk: the absence is listed under "Present again", and its form undoes it.
    assert (
        client.post(f"{base}/absent", json={"round": 3, "reason": "visa"}, headers=headers).status_code == 200
    )
    desk = client.get(f"/staff/swiss/{staff_stage}").text
    assert "Present again" in desk and re.search(rf'<option value="{team}:3">[^<]+, round 3</option>', desk)
    answer = client.post(
        f"/staff/swiss/{staff_stage}/present",
        data={"csrf_token": csrf, "absence": f"{team}:3", "reason": "ok"},
    )
    assert answer.status_code == 303 and answer.headers["location"].endswith("done=present")
    assert "Present again" not in client.get(answer.headers["location"]).text
    bad = client.post(
        f"/staff/swiss/{staff_stage}/present", data={"csrf_token": csrf, "absence": "x:y", "reason": "ok"}
    )
    assert bad.status_code == 422 and "absence: choose an absence" in bad.text
