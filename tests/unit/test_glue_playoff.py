"""Glue between the slices: lineups before pairing, the play-off tick, the Armageddon game on the stand-in,
the bracket moving on after results, and a whole play-off run by ``periodic_tick`` alone (eager mode).

SQLite in a temporary directory; the stand-in runs in process (``create_standin_app`` behind a TestClient)
at speed ``instant``; stand-in time is moved forward with ``/_standin/time`` instead of waiting.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from orchestrator.adapters.tables import (
    Board,
    Duel,
    Event,
    EventStatus,
    Role,
    Round,
    Stage,
    StageStatus,
)
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.jobs import bodies, runtime
from orchestrator.jobs.scheduler import run_playoff_tick
from orchestrator.services import queue
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.gameserver import gameserver
from orchestrator.services.playoff.armageddon_game import set_armageddon_game
from orchestrator.services.playoff.commands import build_bracket
from orchestrator.services.playoff.read import bracket_view
from orchestrator.services.playoff.storage import ARMAGEDDON_ROUND_BASE
from orchestrator.services.teams import lineups
from tests.support.factories import make_event, running_stage, stage_id_of, store_final_standings
from tests.support.playoff import boards_of_stage, duel_match, play
from tests.support.playoff_standin import SMALL_PLAYOFF, World, make_world

STAFF = AuthUser(id=0, username="arbiter", role=Role.ARBITER, team_id=None, session_generation=1)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    yield from make_world(tmp_path)


CLOCKS_5_4 = "armageddon: {white_minutes: 5, black_minutes: 4, increment_seconds: 0}"


def playoff_ready(
    world: World, *, appeal_minutes: int = 15, armageddon: str = CLOCKS_5_4
) -> tuple[int, int, int]:
    """The small play-off event (``armageddon``: its Armageddon clocks line) with its group stage closed
    (stored final standings); returns (event id, group stage id, play-off stage id). Every player is linked
    on the stand-in."""
    assert CLOCKS_5_4 in SMALL_PLAYOFF
    text = SMALL_PLAYOFF.replace("appeal_window_minutes: 15", f"appeal_window_minutes: {appeal_minutes}")
    text = text.replace(CLOCKS_5_4, armageddon)
    with world.uow_factory() as uow:
        event_id = make_event(uow, text)
        group = running_stage(uow, event_id=event_id, stage_key="group")
        store_final_standings(uow, stage_id=group)
        stage = uow.events.get_or_raise(Stage, group)
        stage.status = StageStatus.CLOSED.value
        stage.closed_at = utcnow()
        uow.events.insert(stage)
        event = uow.events.get_or_raise(Event, event_id)
        event.status = EventStatus.RUNNING.value
        uow.events.insert(event)
        knockout = stage_id_of(uow, event_id, "playoff")
    world.link_everyone(event_id)
    return event_id, group, knockout


def tick(world: World, *, times: int = 1) -> None:
    for _ in range(times):
        run_playoff_tick(world.uow_factory, now=utcnow(), settings=world.settings, actor="worker")


def the_duel(world: World, stage_id: int, key: str) -> Duel:
    with world.uow_factory() as uow:
        found = uow.playoff.duel_by_key(stage_id, key)
        assert found is not None
        return found


def armageddon_board(world: World, duel_id: int) -> Board | None:
    with world.uow_factory() as uow:
        match = next(
            (m for m in uow.playoff.matches_of_duels([duel_id]).get(duel_id, []) if m.leg == 3), None
        )
        if match is None:
            return None
        return uow.boards.boards_of_matches([match.id])[match.id or 0][0]


def level_duel(world: World, knockout: int, key: str = "I") -> int:
    """Duel ``key`` is level after a win each: it needs an Armageddon. Returns its id."""
    with world.uow_factory() as uow:
        setup = type("S", (), {"playoff_stage_id": knockout})()
        play(uow, duel_match(uow, setup, key, 1), "WWWWDD")  # type: ignore[arg-type]
    with world.uow_factory() as uow:
        play(uow, duel_match(uow, setup, key, 2), "LLLLDD")  # type: ignore[arg-type]
    duel = the_duel(world, knockout, key)
    assert duel.status == "armageddon"
    return duel.id or 0


# ------------------------------------------------------------------------------ lineups before pairing


def test_creating_a_rounds_games_applies_the_submitted_lineups_and_pairs_no_forfeited_board(
    world: World,
) -> None:
    with world.uow_factory() as uow:
        event_id = make_event(uow, SMALL_PLAYOFF)
        stage_id = running_stage(uow, event_id=event_id, stage_key="group")
        rnd = uow.rounds.rounds_of_stage(stage_id)[0]
        match = uow.rounds.matches_of_round(rnd.id or 0)[0]
        team_id = match.first_team_id
        roster = {p.main_board: p for p in uow.teams.players_of_team(team_id) if p.main_board}
        reserve = next(p for p in uow.teams.players_of_team(team_id) if p.main_board is None)
        round_id, match_id = rnd.id or 0, match.id or 0
        rnd.scheduled_at = utcnow() + timedelta(minutes=5)
        rnd.lineup_deadline_at = None
        uow.rounds.insert(rnd)
    world.link_everyone(event_id)
    # The captain fields a reserve on board 1 and leaves board 6 empty.
    boards = (
        [reserve.id if reserve.category == "open" else roster[1].id]
        + [roster[n].id for n in range(2, 6)]
        + [None]
    )
    with world.uow_factory() as uow:
        lineups.submit_lineup(uow, match_id=match_id, team_id=team_id, boards=boards, user=STAFF)
    with world.client() as client, world.uow_factory() as uow:
        outcome = gameserver.create_round_games(
            uow, round_id=round_id, client=client, settings=world.settings, actor="worker"
        )
    assert outcome.status == "created"
    with world.uow_factory() as uow:
        stored = {b.board_no: b for b in uow.boards.boards_of_matches([match_id])[match_id]}
        # Board 1: the first team has White on odd boards.
        assert stored[1].white_player_id == boards[0]
        # Board 6: the first team (Black on even boards) left it empty: White wins by forfeit, no game.
        assert stored[6].result == "+/-" and stored[6].game_id is None
        assert all(stored[n].game_id for n in range(1, 6))
        games_in_round = sum(1 for r in uow.boards.boards_of_round(round_id) if r.board.game_id)
        pairs_in_round = sum(1 for r in uow.boards.boards_of_round(round_id))
    assert outcome.games == games_in_round == pairs_in_round - 1


# ------------------------------------------------------------------------------ the bracket moves on


def test_the_tick_builds_the_bracket_once_the_group_stage_is_closed(world: World) -> None:
    _event, _group, knockout = playoff_ready(world)
    tick(world)
    with world.uow_factory() as uow:
        duels = uow.playoff.duels_of_stage(knockout)
        assert [d.key for d in duels] == ["I", "II", "III"]
        assert uow.events.get_or_raise(Stage, knockout).status == StageStatus.RUNNING.value
    tick(world)  # again: nothing new
    with world.uow_factory() as uow:
        assert len(uow.playoff.duels_of_stage(knockout)) == 3


def test_a_duel_result_ingested_from_the_game_server_moves_the_bracket_on(world: World) -> None:
    _event, _group, knockout = playoff_ready(world)
    tick(world)
    with world.uow_factory() as uow:
        duel = uow.playoff.duel_by_key(knockout, "I")
        assert duel is not None
        matches = uow.playoff.matches_of_duels([duel.id])[duel.id or 0]
        boards = uow.boards.boards_of_matches(m.id for m in matches)
        # Stand-in style games already created: give every board a game id.
        ids = {}
        for match in matches:
            for board in boards[match.id or 0]:
                game_id = f"g{match.leg}{board.board_no}xxxxx"[:8]
                uow.boards.update_versioned(
                    board.id or 0, expected_version=board.version, values={"game_id": game_id}, actor="t"
                )
                # The duel's first team wins every game of both matches.
                first_white = (board.board_no % 2 == 1) == (match.first_team_id == duel.first_team_id)
                ids[game_id] = "white" if first_white else "black"
        winner_team = duel.first_team_id
    from orchestrator.domain.gameresults import map_status
    from orchestrator.services.gameserver.ingestion import GameUpdate, ingest_games

    with world.uow_factory() as uow:
        ingest_games(
            uow,
            games=[GameUpdate(g, map_status("resign", w)) for g, w in ids.items()],
            actor="worker",
        )
    # After the commit the playoff.advance job ran (eager): duel I is decided and feeds the final.
    assert (queue.PLAYOFF_ADVANCE, (knockout,)) in runtime.runtime().sent
    final = the_duel(world, knockout, "III")
    assert the_duel(world, knockout, "I").winner_team_id == winner_team
    assert final.first_team_id == winner_team


def test_an_arbiters_result_on_a_duel_match_moves_the_bracket_on_without_any_other_call(world: World) -> None:
    from orchestrator.services.results import results

    _event, _group, knockout = playoff_ready(world)
    tick(world)
    with world.uow_factory() as uow:
        duel = uow.playoff.duel_by_key(knockout, "II")
        assert duel is not None
        for match in uow.playoff.matches_of_duels([duel.id])[duel.id or 0]:
            lineups.apply_lineups(uow, round_id=match.round_id, actor="t")
            boards = uow.boards.boards_of_matches([match.id])[match.id or 0]
            entries = []
            for board in boards:
                first_white = (board.board_no % 2 == 1) == (match.first_team_id == duel.first_team_id)
                entries.append((board.id or 0, "0-1" if first_white else "1-0", board.version))
            results.save_results(uow, match_id=match.id or 0, entries=entries, actor="arbiter")
    final = the_duel(world, knockout, "III")
    assert the_duel(world, knockout, "II").winner_team_id == duel.second_team_id
    assert final.second_team_id == duel.second_team_id


# ------------------------------------------------------------------------------ the Armageddon


def test_the_tick_draws_the_lots_applies_the_defaults_and_creates_the_armageddon_game_with_5_and_4_minutes(
    world: World,
) -> None:
    _event, _group, knockout = playoff_ready(world)
    tick(world)
    duel_id = level_duel(world, knockout)
    tick(world)  # category lot: hash published
    with world.uow_factory() as uow:
        lot = uow.lots.latest_lot(
            uow.events.event_and_stage(knockout)[0].id or 0, "Armageddon category, duel I"
        )
        assert lot is not None and lot.sealed_seed_hex is not None and lot.seed_hex is None
        assert uow.playoff.armageddon_of_duel(duel_id) is None
    tick(world)  # drawn: seed published, nominations open until now + 0 minutes
    with world.uow_factory() as uow:
        lot = uow.lots.get_or_raise(type(lot), lot.id or 0)
        assert lot.seed_hex is not None and lot.sealed_seed_hex is None and lot.outcome
    tick(world, times=4)  # defaults revealed, colour lot committed and drawn, default colour, game queued
    with world.uow_factory() as uow:
        arm = uow.playoff.armageddon_of_duel(duel_id)
        assert (
            arm is not None
            and arm.status == "playing"
            and arm.colour == world.settings.armageddon_default_colour
        )
    board = armageddon_board(world, duel_id)
    assert board is not None and board.game_id is not None
    assert board.game_url == f"http://gs.test/{board.game_id}"
    with world.client() as client:
        clock = client.export_games([board.game_id]).games[0]["clock"]
    assert (clock["whiteInitial"], clock["blackInitial"]) == (300, 240)
    state = world.standin.get("/_standin/state").json()
    tick(world, times=3)  # never a second Armageddon game
    assert world.standin.get("/_standin/state").json()["games"] == state["games"]
    with world.client() as client, world.uow_factory() as uow:
        rnd = uow.rounds.round_by_number(knockout, ARMAGEDDON_ROUND_BASE + duel_id)
        assert rnd is not None
        again = gameserver.create_round_games(
            uow, round_id=rnd.id or 0, client=client, settings=world.settings, actor="worker"
        )
    assert again.status == "already"
    # The game ends on the stand-in; the periodic pull ingests it and the duel is decided.
    world.advance(600)
    bodies.periodic_tick()
    duel = the_duel(world, knockout, "I")
    assert duel.status == "decided" and duel.winner_team_id is not None
    with world.uow_factory() as uow:
        arm = uow.playoff.armageddon_of_duel(duel_id)
        assert arm is not None and arm.status == "decided"


def test_an_event_with_white_6_black_5_and_2_seconds_gets_its_armageddon_game_created_with_those_clocks(
    world: World,
) -> None:
    _event, _group, knockout = playoff_ready(
        world, armageddon="armageddon: {white_minutes: 6, black_minutes: 5, increment_seconds: 2}"
    )
    tick(world)
    duel_id = level_duel(world, knockout)
    tick(world, times=6)  # both lots committed and drawn, default nominations and colour, game created
    board = armageddon_board(world, duel_id)
    assert board is not None and board.game_id is not None
    with world.client() as client:
        clock = client.export_games([board.game_id]).games[0]["clock"]
    assert (clock["whiteInitial"], clock["blackInitial"], clock["increment"]) == (360, 300, 2)
    with world.uow_factory() as uow:
        info = next(d for d in bracket_view(uow, stage_id=knockout).duels() if d.id == duel_id)
    assert info.armageddon is not None and info.armageddon.clock == "White 6 min, Black 5 min, +2 s"


@pytest.fixture
def lichess_world(tmp_path: Path) -> Iterator[World]:
    yield from make_world(tmp_path, gameserver_unequal_clocks=False)


def test_without_unequal_clocks_the_armageddon_game_waits_for_the_arbiter(lichess_world: World) -> None:
    world = lichess_world
    _event, _group, knockout = playoff_ready(world)
    tick(world)
    duel_id = level_duel(world, knockout)
    tick(world, times=8)
    with world.uow_factory() as uow:
        arm = uow.playoff.armageddon_of_duel(duel_id)
        assert arm is not None and arm.status == "ready"
        rnd = uow.rounds.round_by_number(knockout, ARMAGEDDON_ROUND_BASE + duel_id)
        assert rnd is not None
    games = world.standin.get("/_standin/state").json()["games"]
    with world.client() as client, world.uow_factory() as uow:
        outcome = gameserver.create_round_games(
            uow, round_id=rnd.id or 0, client=client, settings=world.settings, actor="worker"
        )
    assert outcome.status == "manual"
    assert world.standin.get("/_standin/state").json()["games"] == games
    with world.uow_factory() as uow:
        set_armageddon_game(uow, duel_id=duel_id, game_ref="https://lichess.org/AbCd1234", actor="arb")
    board = armageddon_board(world, duel_id)
    assert board is not None and board.game_id == "AbCd1234"


def test_real_lichess_has_no_unequal_clocks_unless_told() -> None:
    assert Settings(gameserver_url="https://lichess.org").gameserver_unequal_clocks is False
    assert Settings(gameserver_url="http://127.0.0.1:8100").gameserver_unequal_clocks is True
    assert Settings(
        gameserver_url="https://lichess.org", gameserver_unequal_clocks=True
    ).gameserver_unequal_clocks


def test_lots_are_left_to_staff_when_auto_draw_is_off(tmp_path: Path) -> None:
    for world in make_world(tmp_path, auto_draw_lots=False):
        _event, _group, knockout = playoff_ready(world)
        tick(world)
        duel_id = level_duel(world, knockout)
        tick(world, times=3)
        with world.uow_factory() as uow:
            assert uow.playoff.armageddon_of_duel(duel_id) is None
            event_id = uow.events.event_and_stage(knockout)[0].id or 0
            assert uow.lots.latest_lot(event_id, "Armageddon category, duel I") is None


# ------------------------------------------------------------------------------ a whole play-off


def test_periodic_tick_alone_runs_the_play_off_to_a_champion_and_closes_the_stage(tmp_path: Path) -> None:
    for world in make_world(tmp_path):
        _event, _group, knockout = playoff_ready(world, appeal_minutes=0)
        for _ in range(60):
            bodies.periodic_tick()
            world.advance(900)
            with world.uow_factory() as uow:
                if uow.events.get_or_raise(Stage, knockout).status == StageStatus.CLOSED.value:
                    break
        with world.uow_factory() as uow:
            assert uow.events.get_or_raise(Stage, knockout).status == StageStatus.CLOSED.value
            champions = bracket_view(uow, stage_id=knockout).champions
            closing = uow.audit.entries(entity="stage", entity_id=knockout, action_prefix="stage.close")
            final = uow.playoff.duel_by_key(knockout, "III")
            assert final is not None and final.status == "decided"
            boards_without_result = [b for b in boards_of_stage(uow, knockout) if b.result == "*"]
        assert len(champions) == 1 and closing and closing[0].new == {"champions": list(champions)}
        assert boards_without_result == []


def test_a_bracket_round_is_not_paired_while_one_of_its_duels_still_waits_for_a_team(world: World) -> None:
    from tests.support.playoff import duel as duel_of
    from tests.support.playoff import playoff_event

    with world.uow_factory() as uow:
        setup = playoff_event(uow)
    with world.uow_factory() as uow:
        build_bracket(uow, stage_id=setup.playoff_stage_id, actor="arbiter")
    for leg in (1, 2):  # duel IV decided 2-0: quarter-final V knows both teams, VI-VIII do not
        with world.uow_factory() as uow:
            play(uow, duel_match(uow, setup, "IV", leg), "WWWWDD")
    with world.uow_factory() as uow:
        quarter = duel_match(uow, setup, "V", 1)
        round_id = quarter.round_id
        assert duel_of(uow, setup, "VI").status == "waiting"
    with world.client() as client, world.uow_factory() as uow:
        outcome = gameserver.create_round_games(
            uow, round_id=round_id, client=client, settings=world.settings, actor="worker"
        )
    assert outcome.status == "waiting"
    assert outcome.error == "duels VI, VII, VIII wait for a team"
    with world.uow_factory() as uow:
        assert uow.rounds.get_or_raise(Round, round_id).status == "scheduled"
        assert uow.rounds.bulk_of_round(round_id) is None


def test_beat_leaves_a_due_bracket_round_alone_until_all_its_duels_know_their_teams(world: World) -> None:
    from tests.support.playoff import play_duel, playoff_event

    with world.uow_factory() as uow:
        setup = playoff_event(uow)
    with world.uow_factory() as uow:
        build_bracket(uow, stage_id=setup.playoff_stage_id, actor="arbiter")

    def opened() -> list[int]:
        """The numbers of the play-off rounds beat opens now (the file's dates are all past)."""
        with world.uow_factory() as uow:
            due = gameserver.open_due_rounds(uow, now=utcnow(), settings=world.settings)
            numbers = {r.id: r.number for r in uow.rounds.rounds_of_stage(setup.playoff_stage_id)}
        return sorted(numbers[i] for i in due if i in numbers)  # the Top's rounds are due too

    assert opened() == [1, 2]  # the first bracket round's duels know their teams
    for key in ("I", "II", "III"):
        play_duel(world.uow_factory, setup, key, "WWWWDD", "WWWWDD")
    with world.uow_factory() as uow:
        quarters = [r for r in uow.rounds.rounds_of_stage(setup.playoff_stage_id) if r.number in (3, 4)]
        assert [r.status for r in quarters] == ["scheduled", "scheduled"]  # due, and duel VIII waits
    assert opened() == [1, 2]  # duel IV's matches are still to play; the quarter-finals wait for its winner
    play_duel(world.uow_factory, setup, "IV", "WWWWDD", "WWWWDD")
    assert opened() == [3, 4]  # every quarter-final knows its teams
