"""Ingestion of game-server results: idempotent by game id, never over an arbiter, held when it must be."""

from __future__ import annotations

import pytest
from sqlmodel import select

from orchestrator.adapters.tables import (
    AuditLog,
    ResultSource,
)
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.domain.gameresults import MappedResult, map_status
from orchestrator.domain.scoring import GameResult
from orchestrator.services.gameserver.ingestion import GameUpdate, IngestReport, ingest_game, ingest_games
from tests.support.factories import stored_board as board
from tests.support.gameserver_round import RESIGN_WHITE, audit_rows, make_round


def ingest(
    uow_factory: UnitOfWorkFactory, game_id: str, mapped: MappedResult, *, times: int = 1
) -> IngestReport:
    """Ingest the same update of a game ``times`` times, each in its own unit of work: the last report."""
    for _ in range(times):
        with uow_factory() as uow:
            report = ingest_game(uow, game_id=game_id, mapped=mapped)
    return report


DRAW = map_status("draw")
STARTED = map_status("started")
CHEAT = map_status("cheat", "black")


def test_a_final_result_is_stored_from_the_server_with_one_audit_row(uow_factory, sent):
    rows = make_round(uow_factory, game_ids=["g1", "g2"])
    with uow_factory() as uow:
        report = ingest_game(uow, game_id="g1", mapped=RESIGN_WHITE, pgn="1. e4 1-0")
    stored = board(uow_factory, rows.board_ids[0])
    assert (stored.result, stored.result_source, stored.game_status) == ("1-0", "server", "resign")
    assert stored.pgn == "1. e4 1-0" and stored.version == 2
    assert report.changed == [rows.board_ids[0]] and report.pool_ids == {rows.pool_id}
    [entry] = audit_rows(uow_factory, rows.board_ids[0])
    assert entry.action == "board.result" and entry.new and entry.new["result"] == "1-0"
    assert entry.event_id == rows.event_id
    assert ("standings.recompute_pool", (rows.pool_id,)) in sent


def test_the_same_final_result_again_changes_nothing_and_writes_no_audit_row(uow_factory, sent):
    rows = make_round(uow_factory, game_ids=["g1", "g2"])
    for _ in range(3):
        with uow_factory() as uow:
            report = ingest_game(uow, game_id="g1", mapped=RESIGN_WHITE)
    assert report.changed == [] and report.unchanged == 1
    assert board(uow_factory, rows.board_ids[0]).version == 2
    assert len(audit_rows(uow_factory, rows.board_ids[0])) == 1
    assert sent.count(("standings.recompute_pool", (rows.pool_id,))) == 1


def test_an_arbiters_result_is_never_overwritten_by_a_poll(uow_factory, sent):
    rows = make_round(uow_factory, game_ids=["g1", "g2"])
    with uow_factory() as uow:
        uow.boards.update_versioned(
            rows.board_ids[0],
            expected_version=1,
            values={"result": "0-1", "result_source": ResultSource.ARBITER.value},
            actor="arbiter",
        )
    with uow_factory() as uow:
        report = ingest_game(uow, game_id="g1", mapped=RESIGN_WHITE)
    stored = board(uow_factory, rows.board_ids[0])
    assert (stored.result, stored.result_source, stored.version) == ("0-1", "arbiter", 2)
    assert report.kept_arbiter == [rows.board_ids[0]] and audit_rows(uow_factory, rows.board_ids[0]) == []


def test_a_cheat_verdict_is_held_for_an_arbiter_and_flagged_once(uow_factory, sent):
    rows = make_round(uow_factory, game_ids=["g1", "g2"])
    report = ingest(uow_factory, "g2", CHEAT, times=2)
    stored = board(uow_factory, rows.board_ids[1])
    assert (stored.result, stored.game_status) == ("*", "cheat")
    [entry] = audit_rows(uow_factory, rows.board_ids[1])
    assert entry.action == "board.result.held" and entry.new and entry.new["proposed"] == "0-1"
    assert report.unchanged == 1


def test_a_server_result_later_reported_as_cheat_is_taken_back_and_held(uow_factory, sent):
    rows = make_round(uow_factory, game_ids=["g1", "g2"])
    with uow_factory() as uow:
        ingest_game(uow, game_id="g1", mapped=RESIGN_WHITE)
    with uow_factory() as uow:
        ingest_game(uow, game_id="g1", mapped=CHEAT)
    stored = board(uow_factory, rows.board_ids[0])
    assert (stored.result, stored.game_status) == ("*", "cheat")
    assert [e.action for e in audit_rows(uow_factory, rows.board_ids[0])] == [
        "board.result",
        "board.result.held",
    ]


def test_a_game_in_progress_only_moves_its_status_and_writes_no_audit(uow_factory, sent):
    rows = make_round(uow_factory, game_ids=["g1", "g2"])
    report = ingest(uow_factory, "g1", STARTED, times=2)
    stored = board(uow_factory, rows.board_ids[0])
    assert (stored.result, stored.result_source, stored.game_status) == ("*", None, "started")
    assert stored.version == 2
    assert audit_rows(uow_factory, rows.board_ids[0]) == [] and sent == []
    assert report.unchanged == 1


def test_a_line_of_the_game_in_progress_read_before_its_end_was_stored_takes_nothing_back(uow_factory, sent):
    # Two pulls of one round overlapping: the first read the game at move 4, the second stored its end.
    rows = make_round(uow_factory, game_ids=["g1", "g2"])
    full, partial = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0", "1. e4 e5 2. Qh5 *"
    with uow_factory() as uow:
        ingest_game(uow, game_id="g1", mapped=map_status("mate", "white"), pgn=full)
    with uow_factory() as uow:
        report = ingest_game(uow, game_id="g1", mapped=STARTED, pgn=partial)
    stored = board(uow_factory, rows.board_ids[0])
    assert (stored.result, stored.game_status, stored.pgn, stored.version) == ("1-0", "mate", full, 2)
    assert report.stale == [rows.board_ids[0]] and report.progressed == [] and report.unchanged == 0
    assert len(audit_rows(uow_factory, rows.board_ids[0])) == 1


def test_a_game_seen_started_is_not_taken_back_to_created_but_moves_on_to_started(uow_factory, sent):
    rows = make_round(uow_factory, game_ids=["g1", "g2"])
    created = map_status("created")
    with uow_factory() as uow:
        first = ingest_games(uow, games=[GameUpdate("g1", STARTED), GameUpdate("g2", created)])
    with uow_factory() as uow:
        second = ingest_games(uow, games=[GameUpdate("g1", created), GameUpdate("g2", STARTED)])
    statuses = [board(uow_factory, b).game_status for b in rows.board_ids]
    assert statuses == ["started", "started"]
    assert first.progressed == rows.board_ids and first.stale == []
    assert second.stale == [rows.board_ids[0]] and second.progressed == [rows.board_ids[1]]


def test_a_batch_changes_every_board_in_one_go_and_reports_unknown_games(uow_factory, sent):
    rows = make_round(uow_factory, boards=4, game_ids=["a", "b", "c", "d"])
    games = [GameUpdate("a", RESIGN_WHITE), GameUpdate("b", DRAW), GameUpdate("zz", DRAW)]
    games += [GameUpdate("c", STARTED), GameUpdate("d", map_status("noStart", None, moves=""))]
    with uow_factory() as uow:
        report = ingest_games(uow, games=games)
    results = [board(uow_factory, b).result for b in rows.board_ids]
    assert results == ["1-0", "½-½", "*", GameResult.BLACK_WINS_FORFEIT.value]
    assert report.unknown == ["zz"] and len(report.changed) == 3 and report.progressed == [rows.board_ids[2]]


def test_nothing_is_sent_when_the_unit_of_work_rolls_back(uow_factory, sent):
    rows = make_round(uow_factory, game_ids=["g1", "g2"])
    with pytest.raises(RuntimeError), uow_factory() as uow:
        ingest_game(uow, game_id="g1", mapped=RESIGN_WHITE)
        raise RuntimeError("boom")
    assert sent == [] and board(uow_factory, rows.board_ids[0]).result == "*"
    with uow_factory() as uow:
        assert uow.session.exec(select(AuditLog)).all() == []
