"""Two ingestions of the same games at once on SQLite (two pulls of one round): the second waits for the
first and finds nothing left to change, instead of failing on boards "changed during ingestion"
(orchestrator/services/gameserver/ingestion.py). Threads with their own units of work, started together."""

from __future__ import annotations

from orchestrator.services.gameserver.ingestion import GameUpdate, IngestReport, ingest_games
from tests.support.concurrency import together
from tests.support.factories import stored_board as board
from tests.support.gameserver_round import RESIGN_WHITE, audit_rows, make_round


def test_two_ingestions_of_the_same_games_at_once_store_each_result_once(uow_factory, sent):
    boards = 24
    rows = make_round(uow_factory, boards=boards, game_ids=[f"g{n}" for n in range(boards)])
    games = [GameUpdate(f"g{n}", RESIGN_WHITE) for n in range(boards)]

    def ingest() -> IngestReport:
        with uow_factory() as uow:
            return ingest_games(uow, games=games)

    reports = together(ingest, ingest)
    changed = sorted(len(r.changed) for r in reports if isinstance(r, IngestReport))
    assert changed == [0, boards]
    for board_id in rows.board_ids:
        assert board(uow_factory, board_id).version == 2
        assert len(audit_rows(uow_factory, board_id)) == 1
