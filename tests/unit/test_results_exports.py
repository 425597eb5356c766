"""Exports: standings CSV, TRF-2026 with the real board results, PGN of a match."""

from __future__ import annotations

import re
from datetime import timedelta

from orchestrator.adapters.tables import Board
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.services.results import exports
from orchestrator.services.results import standings as standings_service
from tests.support.pool_builder import build_pool
from tests.support.results import play_all


def test_the_csv_of_a_closed_pool_has_every_tie_break_and_says_final(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        built = build_pool(uow)
    play_all(uowf, built)
    with uowf() as uow:
        assert "provisional" in exports.standings_csv(uow, pool_id=built.pool_id)
        standings_service.close_stage(
            uow, stage_id=built.stage_id, actor="boss", now=utcnow() + timedelta(hours=1)
        )
    with uowf() as uow:
        lines = exports.standings_csv(uow, pool_id=built.pool_id).splitlines()
        trf = exports.pool_trf(uow, pool_id=built.pool_id)
    assert lines[0] == "rank,team,MP,GP,DE:MP,DE:GP,EMMSB,EGGSB,LOT,separated_by,status"
    assert lines[1].startswith("1,Norway,6,12.0,") and lines[1].endswith(",final")
    assert len(lines) == 5
    norway = [line for line in trf.splitlines() if line.startswith("001") and "Norway, Board" in line]
    assert len(norway) == 4
    for line in norway:  # Norway won every game it played: each round's result letter is 1
        assert re.findall(r"\d+ [wb] (\S)", line) == ["1", "1", "1"]


def test_the_pgn_of_a_match_joins_its_games_with_round_and_board(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        built = build_pool(uow)
        match_id = built.match(1, "Norway")
        for number, board_id in enumerate(built.boards[match_id][:2], start=1):
            board = uow.boards.get_or_raise(Board, board_id)
            board.pgn = (
                f'[White "w{number}"]\n[Black "b{number}"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 1-0\n'
            )
            uow.session.add(board)
    with uowf() as uow:
        text = exports.match_pgn(uow, match_id=match_id)
    assert text.count("[Board ") == 2 and '[Round "1.' in text and "1. e4 e5 2. Qh5 Nc6 1-0" in text
