"""Queries of the one-command demo's progress display (orchestrator/demo/staff.py).

Only the demo runs them, so they live with it (the demo layer may use the adapters: docs/architecture.md,
"The unit of work"); ``stage_progress(uow, stage_id)`` reads through the demo's unit of work.

One aggregate query per stage, so the terminal can show rounds and games done a few times a second
without loading boards.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import case, func
from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository
from orchestrator.adapters.tables import Board, Match, Round, RoundStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.scoring import GameResult


@dataclass(frozen=True, slots=True)
class StageProgress:
    """How far a stage has got: rounds by state, boards with a game and with a final result."""

    rounds: int = 0
    rounds_open: int = 0  # games created on the game server, not all final
    rounds_finished: int = 0
    boards: int = 0
    boards_with_game: int = 0
    boards_final: int = 0


class DemoRepository(Repository):
    def stage_progress(self, stage_id: int) -> StageProgress:
        """Counts of the stage's rounds and boards (two aggregate queries)."""
        by_status = dict(
            self.session.exec(
                select(Round.status, func.count(col(Round.id)))
                .where(Round.stage_id == stage_id)
                .group_by(col(Round.status))
            ).all()
        )
        boards, with_game, final = self.session.exec(
            select(
                func.count(col(Board.id)),
                func.count(col(Board.game_id)),
                func.coalesce(func.sum(case((col(Board.result) != GameResult.PENDING.value, 1), else_=0)), 0),
            )
            .join(Match, col(Match.id) == Board.match_id)
            .join(Round, col(Round.id) == Match.round_id)
            .where(Round.stage_id == stage_id)
        ).one()
        open_statuses = (RoundStatus.PAIRED.value, RoundStatus.PLAYING.value)
        return StageProgress(
            rounds=sum(by_status.values()),
            rounds_open=sum(n for status, n in by_status.items() if status in open_statuses),
            rounds_finished=by_status.get(RoundStatus.FINISHED.value, 0),
            boards=int(boards or 0),
            boards_with_game=int(with_game or 0),
            boards_final=int(final or 0),
        )


def stage_progress(uow: UnitOfWork, stage_id: int) -> StageProgress:
    """How far the stage has got, read in ``uow``'s transaction."""
    return DemoRepository(uow.session).stage_progress(stage_id)
