"""A whole event runs itself: the group stage closes, the bracket is built, the duels are played, an
Armageddon is drawn, nominated by default, coloured by default and played with 5 v 4 minutes, and the
knockout stage closes with a champion. Real Celery worker and beat processes, the stand-in over HTTP,
PostgreSQL and Redis; the orchestrator gets no human action at all.

To be sure the Armageddon path runs, the test makes duel I level on the stand-in's side (its admin endpoint
ends duel I's games: the first team wins match 1, the second team match 2). Everything else is played out
by the stand-in from the ratings.
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.adapters.lichess import LichessClient
from orchestrator.adapters.tables import Stage
from orchestrator.services.playoff.read import bracket_view
from orchestrator.services.playoff.storage import lot_purpose
from tests.support.factories import REPO_ROOT, stage_id_of
from tests.support.playoff import boards_of_stage
from tests.support.workers import (
    Run,
    Standin,
    event_run,
    stage_closed,
    standin_process,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]

SMALL_PLAYOFF = (REPO_ROOT / "tests" / "fixtures" / "events" / "small-playoff.yaml").read_text("utf-8")


@contextlib.contextmanager
def playoff_run(tmp: Path, standin: Standin, *, round_gap_s: float = 6.0) -> Iterator[tuple[Run, int, int]]:
    """The small play-off event with its group stage running (rounds ``round_gap_s`` apart from now), every
    player linked on the stand-in; the knockout stage keeps the file's (past) dates, so each of its rounds
    is paired as soon as its matches exist. Yields the run, the group stage id and the knockout stage id."""
    play_off_env = {
        "OLYMPIAD_GAMESERVER_TIMEOUT_S": "3",
        "OLYMPIAD_BEAT_PLAYOFF_S": "1",
        # The play-off without staff: lots drawn by the tick, defaults at short deadlines.
        "OLYMPIAD_AUTO_LOT_REVEAL_DELAY_S": "1",
        "OLYMPIAD_ARMAGEDDON_NOMINATION_MINUTES": "0",
        "OLYMPIAD_ARMAGEDDON_COLOUR_MINUTES": "0",
    }
    with event_run(
        tmp,
        standin,
        database="olympiad_playoff",
        event_text=SMALL_PLAYOFF.replace("appeal_window_minutes: 15", "appeal_window_minutes: 0"),
        slug=f"playoff-{secrets.token_hex(3)}",
        stage_key="group",
        round_gap_s=round_gap_s,
        first_round_in_s=4,
        **play_off_env,
    ) as (run, event_id, group):
        with run.uow_factory() as uow:
            knockout = stage_id_of(uow, event_id, "playoff")
        yield run, group, knockout


def force_duel_level(run: Run, standin: Standin, knockout: int, forced: set[str]) -> bool:
    """End duel I's games on the stand-in as they appear: its first team wins match 1, its second match 2."""
    with run.uow_factory() as uow:
        duel = uow.playoff.duel_by_key(knockout, "I")
        if duel is None:
            return False
        matches = [
            m for m in uow.playoff.matches_of_duels([duel.id]).get(duel.id or 0, []) if m.leg in (1, 2)
        ]
        boards = uow.boards.boards_of_matches(m.id for m in matches)
        todo = []
        for match in matches:
            winner_team = duel.first_team_id if match.leg == 1 else duel.second_team_id
            for board in boards.get(match.id or 0, []):
                if board.game_id and board.game_id not in forced:
                    first_white = board.board_no % 2 == 1
                    white_team = match.first_team_id if first_white else match.second_team_id
                    todo.append((board.game_id, "white" if white_team == winner_team else "black"))
    for game_id, winner in todo:
        answer = standin.http.post(
            f"/_standin/games/{game_id}/result", json={"status": "resign", "winner": winner}
        )
        answer.raise_for_status()
        forced.add(game_id)
    return len(forced) == 12


def test_the_group_stage_and_the_play_off_run_to_a_champion_with_no_human_action(tmp_path: Path) -> None:
    with (
        standin_process(seed=23, speed="300", log=tmp_path / "standin.log") as standin,
        playoff_run(tmp_path, standin) as (run, group, knockout),
    ):
        run.start_worker()
        run.start_beat()
        forced: set[str] = set()
        try:
            wait_for(lambda: stage_closed(run, group), timeout=150, what="the group stage to close")
            wait_for(
                lambda: force_duel_level(run, standin, knockout, forced),
                timeout=90,
                what="duel I's games to exist on the stand-in",
                every=0.1,
            )
            wait_for(lambda: stage_closed(run, knockout), timeout=200, what="the play-off to close")
        except AssertionError:
            print(run.logs())
            raise
        with run.uow_factory() as uow:
            view = bracket_view(uow, stage_id=knockout)
            duels = {d.key: d for d in view.duels()}
            event_id = uow.events.event_and_stage(knockout)[0].id or 0
            lots = [
                uow.lots.latest_lot(event_id, lot_purpose("I", which)) for which in ("category", "colour")
            ]
            duel_i = uow.playoff.duel_by_key(knockout, "I")
            assert duel_i is not None
            arm = uow.playoff.armageddon_of_duel(duel_i.id or 0)
            game = next(m for m in uow.playoff.matches_of_duels([duel_i.id])[duel_i.id or 0] if m.leg == 3)
            board = uow.boards.boards_of_matches([game.id])[game.id or 0][0]
            closing = uow.audit.entries(entity="stage", entity_id=knockout, action_prefix="stage.close")
            knockout_status = uow.events.get_or_raise(Stage, knockout).status
            all_boards = boards_of_stage(uow, knockout)
        with LichessClient(standin.url, run.env["OLYMPIAD_GAMESERVER_ADMIN_TOKEN"]) as client:
            clock = client.export_games([board.game_id or ""]).games[0]["clock"]

    assert knockout_status == "closed"
    assert len(view.champions) == 1 and closing and closing[0].new == {"champions": list(view.champions)}
    assert {key: d.status for key, d in duels.items()} == {"I": "decided", "II": "decided", "III": "decided"}
    # Duel I went to an Armageddon run by the tick: both lots committed before their seed was published.
    for lot in lots:
        assert lot is not None and lot.seed_hex is not None and lot.sealed_seed_hex is None
        assert hashlib.sha256(bytes.fromhex(lot.seed_hex)).hexdigest() == lot.commitment
        assert lot.revealed_at is not None and lot.committed_at < lot.revealed_at
    assert arm is not None and arm.status == "decided"
    assert arm.first_nominee_id is not None and arm.second_nominee_id is not None  # defaults applied
    assert board.game_id is not None and board.result_source == "server" and board.result != "*"
    assert (clock["whiteInitial"], clock["blackInitial"]) == (300, 240)  # created by bulk pairing, 5 v 4
    # Every knockout game got its result from the game server, none is left open.
    assert all(b.result != "*" for b in all_boards)
    assert all(b.result_source == "server" for b in all_boards if b.game_id)
