"""Refusals the services write for staff and captains: marked for translation, still the same English text
when no other language is chosen, and times named in the event's zone, never in bare UTC
(docs/staff-guide.md, "Times and time zones"). The small test event is in Europe/Oslo: UTC+1 in January."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from orchestrator.adapters.tables import Role, Round, Stage
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.errors import Conflict, NotFound, StaleEdit, ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.playoff._context import load_stage
from orchestrator.services.prizes.lots import board_prize_lot
from orchestrator.services.results import results
from orchestrator.services.results.withdrawals import withdraw_from_pool_stage
from orchestrator.services.swiss.state import swiss_stage
from orchestrator.services.teams import lineups
from orchestrator.services.teams.rosters import import_rosters
from tests.support.factories import make_event, running_stage

STAFF = AuthUser(id=0, username="arbiter", role=Role.ARBITER, team_id=None, session_generation=1)
START = datetime(2030, 1, 15, 12, 0, tzinfo=UTC)  # 13:00 CET in Oslo
DEADLINE = datetime(2030, 1, 15, 11, 0, tzinfo=UTC)  # 12:00 CET in Oslo
HEADER = "team,federation,seed,name,account,sex,birth_year,rating,role\n"


@pytest.fixture
def second_round(uowf: UnitOfWorkFactory) -> tuple[int, int]:
    """The small event's pool stage running; its round 2 starts at START and its lineups close at DEADLINE.
    Returns (round id, stage id)."""
    with uowf() as uow:
        stage_id = running_stage(uow)
        rnd = uow.rounds.rounds_of_stage(stage_id)[1]
        rnd.scheduled_at = START
        rnd.lineup_deadline_at = DEADLINE
        uow.session.add(rnd)
        return rnd.id or 0, stage_id


def test_a_closed_lineup_names_its_deadline_in_the_events_zone(
    uowf: UnitOfWorkFactory, second_round: tuple[int, int]
) -> None:
    round_id, _stage_id = second_round
    with uowf() as uow:
        match = uow.rounds.matches_of_round(round_id)[0]
        after = datetime(2030, 1, 15, 11, 30, tzinfo=UTC)
        with pytest.raises(Conflict) as refused:
            lineups.submit_lineup(
                uow,
                match_id=match.id or 0,
                team_id=match.first_team_id,
                boards=[None] * 6,
                user=STAFF,
                now=after,
            )
    message = refused.value.message
    assert message.startswith("Lineups for ") and " closed at " in message
    assert "12:00 CET (Europe/Oslo)" in message and "UTC" not in message


def test_a_deadline_after_the_rounds_start_is_refused_naming_the_start_in_the_events_zone(
    uowf: UnitOfWorkFactory, second_round: tuple[int, int]
) -> None:
    round_id, _stage_id = second_round
    late = datetime(2030, 1, 15, 12, 30, tzinfo=UTC)
    with uowf() as uow, pytest.raises(ValidationFailed) as refused:
        lineups.set_lineup_deadline(uow, round_id=round_id, deadline=late, expected=DEADLINE, actor="arbiter")
    (problem,) = refused.value.problems
    assert problem.startswith("The deadline must be at or before the start of ")
    assert "13:00 CET (Europe/Oslo)" in problem and "UTC" not in problem


def test_a_deadline_moved_meanwhile_shows_the_stored_one_in_the_events_zone(
    uowf: UnitOfWorkFactory, second_round: tuple[int, int]
) -> None:
    round_id, _stage_id = second_round
    with uowf() as uow, pytest.raises(StaleEdit) as refused:
        lineups.set_lineup_deadline(
            uow, round_id=round_id, deadline=DEADLINE, expected=START, actor="arbiter"
        )
    (current,) = refused.value.current
    assert "12:00 CET (Europe/Oslo)" in current.value and "UTC" not in current.value


def test_a_second_withdrawal_names_the_first_in_the_events_zone(
    uowf: UnitOfWorkFactory, second_round: tuple[int, int]
) -> None:
    _round_id, stage_id = second_round
    with uowf() as uow:
        team_id = uow.rounds.entries_of_stage(stage_id)[0].team.id or 0
        withdraw_from_pool_stage(
            uow, stage_id=stage_id, team_id=team_id, reason="ill", actor="ann", now=DEADLINE
        )
    with uowf() as uow, pytest.raises(Conflict) as refused:
        withdraw_from_pool_stage(uow, stage_id=stage_id, team_id=team_id, reason="again", actor="ann")
    message = refused.value.message
    assert " already withdrew from " in message and "recorded by ann on " in message
    assert "12:00 CET (Europe/Oslo)" in message and "UTC" not in message


def test_refusals_keep_their_english_text(uowf: UnitOfWorkFactory, second_round: tuple[int, int]) -> None:
    """One refusal of each service package, word for word as before they were marked for translation."""
    _round_id, stage_id = second_round
    with uowf() as uow:
        stage = uow.session.get(Stage, stage_id)
        assert stage is not None
        name = stage.name
    with uowf() as uow, pytest.raises(Conflict) as not_swiss:
        swiss_stage(uow, stage_id)
    assert not_swiss.value.message == f"{name} is not a Swiss stage"
    with uowf() as uow, pytest.raises(Conflict) as not_knockout:
        load_stage(uow, stage_id)
    assert not_knockout.value.message == f"{name} is not a knockout stage."
    with uowf() as uow, pytest.raises(NotFound) as no_board:
        results.record_result(uow, board_id=987654, result="1-0", expected_version=1, actor="ann")
    assert no_board.value.message == "board 987654 does not exist"
    with uowf() as uow, pytest.raises(ValidationFailed) as bad_action:
        board_prize_lot(uow, slug="small-test-cup", stage_key="pool", board=1, action="toss", actor="ann")
    assert bad_action.value.problems == ("action: 'commit' or 'draw', not 'toss'",)


def test_a_roster_file_lists_its_problems_by_line_in_english(uowf: UnitOfWorkFactory) -> None:
    with uowf() as uow:
        event_id = make_event(uow, slug="roster-messages")
    text = HEADER + "Norway,NOR,1\n" + "Sweden,SWE,2,Anna,anna,x,1990,2000,1\n"
    with uowf() as uow, pytest.raises(ValidationFailed) as refused:
        import_rosters(uow, event_id=event_id, csv_text=text, actor="ann")
    assert refused.value.problems == (
        "line 2: 3 fields, expected 9",
        "line 3: sex must be m or f, found 'x'",
    )


def test_a_round_without_lineups_still_names_itself(
    uowf: UnitOfWorkFactory, second_round: tuple[int, int]
) -> None:
    """A round stored without a name (an empty one) is called by its number in a refusal."""
    round_id, _stage_id = second_round
    with uowf() as uow:
        rnd = uow.session.get(Round, round_id)
        assert rnd is not None
        rnd.name = ""
        rnd.status = "paired"
        uow.session.add(rnd)
    with uowf() as uow, pytest.raises(Conflict) as refused:
        lineups.set_lineup_deadline(
            uow, round_id=round_id, deadline=DEADLINE, expected=DEADLINE, actor="arbiter"
        )
    assert refused.value.message == "The games of round 2 exist already: its lineups are closed for good."
