"""Late corrections (docs/rules.md §6, "Late corrections"): a result changed in a Swiss round that is followed
by a round already paired is a distinct staff action, with its own button and a required reason, audited; the
standings are computed again and the pairings already made stand. Autosave and Save results refuse it."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from sqlmodel import select

from orchestrator.adapters.tables import Board, Role, Standing
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services.accounts.users import create_user
from orchestrator.services.results import results
from orchestrator.services.swiss import rounds as swiss_rounds
from tests.support.swiss import ACTOR, matches_of, pair_publish_play, running_swiss
from tests.support.web import PASSWORD, login


def first_board(factory: UnitOfWorkFactory, round_id: int) -> Board:
    with factory() as uow:
        match = matches_of(uow, round_id)[0]
        return uow.boards.for_match(match.id or 0)[0]


def flipped(result: str) -> str:
    return "0-1" if result == "1-0" else "1-0"


def game_points(factory: UnitOfWorkFactory, stage_id: int) -> dict[int, object]:
    with factory() as uow:
        rows = uow.session.exec(select(Standing).where(Standing.stage_id == stage_id)).all()
        return {row.team_id: row.values for row in rows}


@pytest.fixture
def played(uow_factory: UnitOfWorkFactory) -> tuple[int, int]:
    """The small Swiss stage with round 1 played; returns (stage id, round 1 id)."""
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    first = pair_publish_play(uow_factory, stage_id)
    return stage_id, first.round_id


def test_before_the_next_round_is_paired_a_change_is_an_ordinary_save(
    uow_factory: UnitOfWorkFactory, played: tuple[int, int]
) -> None:
    _stage_id, round_id = played
    board = first_board(uow_factory, round_id)
    with uow_factory() as uow:
        assert results.match_sheet(uow, match_id=board.match_id).paired_after is None
        state = results.record_result(
            uow,
            board_id=board.id or 0,
            result=flipped(board.result),
            expected_version=board.version,
            actor=ACTOR,
        )
    assert state.result == flipped(board.result)
    with uow_factory() as uow, pytest.raises(Conflict, match="not followed by a paired round"):
        results.save_late_correction(
            uow, match_id=board.match_id, entries=[(board.id or 0, board.result, state.version)], actor=ACTOR,
            reason="wrong",
        )  # fmt: skip


def test_once_the_next_round_is_paired_only_a_late_correction_with_a_reason_changes_a_result(
    uow_factory: UnitOfWorkFactory, played: tuple[int, int]
) -> None:
    stage_id, round_id = played
    with uow_factory() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    board = first_board(uow_factory, round_id)
    new = flipped(board.result)
    entry = [(board.id or 0, new, board.version)]
    with uow_factory() as uow:
        assert results.match_sheet(uow, match_id=board.match_id).paired_after == 2
    with uow_factory() as uow, pytest.raises(Conflict, match="followed by round 2, already paired"):
        results.record_result(
            uow, board_id=board.id or 0, result=new, expected_version=board.version, actor=ACTOR
        )
    with uow_factory() as uow, pytest.raises(Conflict, match="Use Save late correction, with a reason"):
        results.save_results(uow, match_id=board.match_id, entries=entry, actor=ACTOR)
    with uow_factory() as uow, pytest.raises(ValidationFailed, match="needs a reason"):
        results.save_late_correction(uow, match_id=board.match_id, entries=entry, actor=ACTOR, reason=" ")
    with (
        uow_factory() as uow,
        pytest.raises(ValidationFailed, match="a late correction always leaves a result"),
    ):
        results.save_late_correction(
            uow,
            match_id=board.match_id,
            entries=[(board.id or 0, "*", board.version)],
            actor=ACTOR,
            reason="x",
        )
    before = game_points(uow_factory, stage_id)
    with uow_factory() as uow:
        (saved,) = results.save_late_correction(
            uow, match_id=board.match_id, entries=entry, actor=ACTOR, reason="scoresheet signed 0-1"
        )
    assert saved.result == new
    with uow_factory() as uow:
        (audit,) = [
            a for a in uow.audit.for_entity("board", board.id or 0) if a.action == "board.late_correction"
        ]
        assert audit.reason == "scoresheet signed 0-1" and audit.actor == ACTOR
        assert audit.old["result"] == board.result and audit.new["result"] == new  # type: ignore[index]
        # The pairing already made stands: round 2's draft is the one made before the correction.
        view = swiss_rounds.describe_round(uow, round_id=draft.round_id)
    assert [(p.first, p.second) for p in view.pairings] == [(p.first, p.second) for p in draft.pairings]
    assert game_points(uow_factory, stage_id) != before  # the standings were computed again


def test_the_staff_page_offers_the_late_correction_button_and_refuses_it_without_a_reason(
    app: FastAPI,
) -> None:
    factory = app.state.uow_factory
    with factory() as uow:
        stage_id = running_swiss(uow)
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
    first = pair_publish_play(factory, stage_id)
    with factory() as uow:
        swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    board = first_board(factory, first.round_id)
    client, csrf = login(app, "arbiter")
    page = client.get(f"/staff/matches/{board.match_id}/results")
    assert page.status_code == 200
    assert "Save late correction" in page.text and "Round 2 is already paired" in page.text
    assert f'action="/staff/matches/{board.match_id}/late-correction"' in page.text
    assert 'data-autosave="1"' not in page.text
    form = {
        "csrf_token": csrf,
        f"board_{board.id}": flipped(board.result),
        f"version_{board.id}": str(board.version),
        f"shown_{board.id}": board.result,
    }
    refused = client.post(f"/staff/matches/{board.match_id}/late-correction", data={**form, "reason": ""})
    assert refused.status_code == 422 and "needs a reason" in refused.text
    autosaved = client.put(
        f"/api/v1/boards/{board.id}/result",
        json={"result": flipped(board.result), "expected_version": board.version},
        headers={"X-CSRF-Token": csrf},
    )
    assert autosaved.status_code == 409 and "late correction" in autosaved.text
    done = client.post(f"/staff/matches/{board.match_id}/late-correction", data={**form, "reason": "misread"})
    assert done.status_code == 303
    with factory() as uow:
        assert uow.boards.get_or_raise(Board, board.id or 0).result == flipped(board.result)
