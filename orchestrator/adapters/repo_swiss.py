"""Queries of Swiss stages (docs/swiss.md): their settings, round pairings, byes and absences.

Exposed on the unit of work as ``uow.swiss``. Like every repository it never commits.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete
from sqlmodel import col, select

from orchestrator.adapters.repositories import Lookups
from orchestrator.adapters.tables import (
    Board,
    Lineup,
    Match,
    Round,
    SwissRound,
    SwissRoundRole,
    SwissRoundTeam,
    SwissStage,
)
from orchestrator.domain.scoring import GameResult, MatchForfeit


class SwissRepository(Lookups):
    """Stage, pool, round, team and board reads come from ``Lookups``."""

    def settings_of(self, stage_id: int) -> SwissStage | None:
        return self.session.exec(select(SwissStage).where(SwissStage.stage_id == stage_id)).first()

    def pairing_of(self, round_id: int) -> SwissRound | None:
        return self.session.exec(select(SwissRound).where(SwissRound.round_id == round_id)).first()

    def round_teams_of_stage(self, stage_id: int) -> list[tuple[SwissRoundTeam, int]]:
        """Every bye and absence of the stage with its round number, in round order."""
        rows = self.session.exec(
            select(SwissRoundTeam, Round)
            .where(SwissRoundTeam.round_id == Round.id, Round.stage_id == stage_id)
            .order_by(col(Round.number), col(SwissRoundTeam.team_id))
        ).all()
        return [(row, rnd.number) for row, rnd in rows]

    def round_team(self, round_id: int, team_id: int) -> SwissRoundTeam | None:
        return self.session.exec(
            select(SwissRoundTeam).where(
                SwissRoundTeam.round_id == round_id, SwissRoundTeam.team_id == team_id
            )
        ).first()

    def round_has_games(self, round_id: int) -> bool:
        """Whether a board of the round has a game, a result, or its match a lineup or a forfeit."""
        match_ids = select(Match.id).where(Match.round_id == round_id)
        board = self.session.exec(
            select(Board.id)
            .where(col(Board.match_id).in_(match_ids))
            .where((col(Board.game_id).is_not(None)) | (Board.result != GameResult.PENDING.value))
            .limit(1)
        ).first()
        lineup = self.session.exec(
            select(Lineup.id).where(col(Lineup.match_id).in_(match_ids)).limit(1)
        ).first()
        forfeit = self.session.exec(
            select(Match.id)
            .where(Match.round_id == round_id, Match.forfeit != MatchForfeit.NONE.value)
            .limit(1)
        ).first()
        return board is not None or lineup is not None or forfeit is not None

    def delete_round_games(self, round_id: int) -> None:
        """Delete the round's matches (their boards and lineups go with them) and its bye."""
        self.session.execute(delete(Match).where(col(Match.round_id) == round_id))
        self.session.execute(
            delete(SwissRoundTeam).where(
                col(SwissRoundTeam.round_id) == round_id, col(SwissRoundTeam.role) == SwissRoundRole.BYE.value
            )
        )

    def delete_boards_of_matches(self, match_ids: Sequence[int]) -> None:
        if match_ids:
            self.session.execute(delete(Board).where(col(Board.match_id).in_(match_ids)))

    def byes_and_absences(self, round_id: int) -> Sequence[SwissRoundTeam]:
        return self.session.exec(
            select(SwissRoundTeam).where(SwissRoundTeam.round_id == round_id).order_by(col(SwissRoundTeam.id))
        ).all()
