"""A round's games get the event file's clock (docs/event-file.md): the event's time_control, which a stage
or a round may override; never the settings' fallback clock. The stand-in server plays the part of Lichess
(in process behind a TestClient, tests/support/playoff_standin.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from orchestrator.db import utcnow
from orchestrator.services.gameserver import gameserver
from tests.support.factories import make_event, running_stage
from tests.support.playoff_standin import SMALL_PLAYOFF, World, make_world

GROUP_SCHEDULE = 'schedule: {start: "2024-03-02 10:00", rounds_per_day: 3, minutes_between_rounds: 90}'


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    # A fallback clock unlike any in the files below, so a game with it would show.
    yield from make_world(tmp_path, gameserver_clock_limit_s=1800, gameserver_clock_increment_s=30)


def clocks_of_round(world: World, text: str, number: int) -> set[tuple[int, int]]:
    """Create the games of round ``number`` of the group stage; the (initial, increment) of each game."""
    with world.uow_factory() as uow:
        event_id = make_event(uow, text)
        stage_id = running_stage(uow, event_id=event_id, stage_key="group")
        rnd = next(r for r in uow.rounds.rounds_of_stage(stage_id) if r.number == number)
        rnd.scheduled_at = utcnow() + timedelta(minutes=5)
        rnd.lineup_deadline_at = None
        uow.rounds.insert(rnd)
        round_id = rnd.id or 0
    world.link_everyone(event_id)
    with world.client() as client, world.uow_factory() as uow:
        outcome = gameserver.create_round_games(
            uow, round_id=round_id, client=client, settings=world.settings, actor="worker"
        )
    assert outcome.status == "created" and outcome.games > 0
    world.advance(6 * 60)  # past pairAt: the stand-in pairs the bulk's games
    with world.uow_factory() as uow:
        game_ids = [r.board.game_id for r in uow.boards.boards_of_round(round_id) if r.board.game_id]
    with world.client() as client:
        games = client.export_games(game_ids).games
    assert len(games) == len(game_ids)
    return {(game["clock"]["initial"], game["clock"]["increment"]) for game in games}


def test_an_event_played_at_15_plus_5_creates_its_games_with_900_seconds_and_5_seconds_increment(
    world: World,
) -> None:
    assert "time_control: {minutes: 15, increment_seconds: 5}" in SMALL_PLAYOFF
    assert clocks_of_round(world, SMALL_PLAYOFF, 1) == {(900, 5)}


def test_a_stages_own_time_control_wins_over_the_events(world: World) -> None:
    text = SMALL_PLAYOFF.replace(GROUP_SCHEDULE, f"{GROUP_SCHEDULE}\n    time_control: 10+3", 1)
    assert text != SMALL_PLAYOFF
    assert clocks_of_round(world, text, 1) == {(600, 3)}


def test_a_rounds_own_time_control_wins_over_its_stages(world: World) -> None:
    rounds = '["2024-03-02 10:00", {start: "2024-03-02 11:30", time_control: 5+2}, "2024-03-02 13:00"]'
    text = SMALL_PLAYOFF.replace(
        GROUP_SCHEDULE, f"schedule:\n      rounds: {rounds}\n    time_control: 10+3", 1
    )
    assert text != SMALL_PLAYOFF
    assert clocks_of_round(world, text, 2) == {(300, 2)}


def test_a_two_period_clock_sends_its_first_period_and_the_increment(world: World) -> None:
    # 90 minutes for 40 moves, then 30 minutes, 30 s a move: Lichess's clock has one period
    # (docs/gameserver.md, "Clocks with several periods"), so the games get 90 minutes and 30 s.
    text = SMALL_PLAYOFF.replace(
        "time_control: {minutes: 15, increment_seconds: 5}",
        "time_control: {minutes: 90, moves: 40, then_minutes: 30, increment_seconds: 30}",
        1,
    )
    assert text != SMALL_PLAYOFF
    assert clocks_of_round(world, text, 1) == {(5400, 30)}
