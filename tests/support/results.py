"""Results entered on a pool built by tests/support/pool_builder.py, through the results service, and what
they stored: the standings rows and the audit trail.

    enter(uow_factory, built, match_id, winning_codes(built, match_id, "Norway"))
    play_all(uow_factory, built)                   # Norway wins every match 4-0, the others draw 2-2
"""

from __future__ import annotations

from datetime import timedelta

from orchestrator.adapters.tables import Standing
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.services.results import results
from tests.support.factories import stored_board as board
from tests.support.pool_builder import BuiltPool

LATER = timedelta(minutes=16)  # past the 15-minute appeal window


def winning_codes(built: BuiltPool, match_id: int, winner: str) -> list[str]:
    """Results that give ``winner`` every board of the match (first team is White on odd boards)."""
    _, first, _ = built.pairing(match_id)
    codes = []
    for board_no in range(1, len(built.boards[match_id]) + 1):
        winner_white = (board_no % 2 == 1) == (winner == first)
        codes.append("1-0" if winner_white else "0-1")
    return codes


def enter(
    uowf: UnitOfWorkFactory, built: BuiltPool, match_id: int, codes: list[str], actor: str = "ann"
) -> None:
    for board_id, code in zip(built.boards[match_id], codes, strict=True):
        version = board(uowf, board_id).version
        with uowf() as uow:
            results.record_result(uow, board_id=board_id, result=code, expected_version=version, actor=actor)


def play_all(uowf: UnitOfWorkFactory, built: BuiltPool, *, winner: str | None = "Norway") -> None:
    """Every match: ``winner`` wins its matches 4-0; all other matches are 2-2 (White wins every board)."""
    for (_, first, second), match_id in built.matches.items():
        if winner in (first, second):
            enter(uowf, built, match_id, winning_codes(built, match_id, winner))
        else:
            enter(uowf, built, match_id, ["1-0"] * len(built.boards[match_id]))


def stored(uowf: UnitOfWorkFactory, pool_id: int) -> list[Standing]:
    with uowf() as uow:
        rows = list(uow.rounds.standings_of_pool(pool_id))
        for row in rows:
            uow.session.expunge(row)
        return rows


def audit(
    uowf: UnitOfWorkFactory, **filters: object
) -> list[tuple[str, dict | None, dict | None, str | None]]:
    with uowf() as uow:
        return [(a.action, a.old, a.new, a.reason) for a in uow.audit.entries(**filters)]  # type: ignore[arg-type]
