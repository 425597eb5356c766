"""Queries of event setup: stages, teams and rosters, pools, rounds, matches, boards and lots (STYLE habit 7).

Exposed on the unit of work as ``uow.setup``. Like every repository it never commits.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func
from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository
from orchestrator.adapters.tables import (
    Board,
    Event,
    Lot,
    Match,
    Player,
    Pool,
    PoolEntry,
    Round,
    Stage,
    Standing,
    Team,
)


class SetupRepository(Repository):
    # --- events and stages ---------------------------------------------------------------------------

    def event_of_stage(self, stage_id: int) -> tuple[Event, Stage]:
        stage = self.get_or_raise(Stage, stage_id)
        return self.get_or_raise(Event, stage.event_id), stage

    def stages_of(self, event_id: int) -> Sequence[Stage]:
        return self.session.exec(
            select(Stage).where(Stage.event_id == event_id).order_by(col(Stage.position), col(Stage.id))
        ).all()

    def stage_by_key(self, event_id: int, key: str) -> Stage | None:
        return self.session.exec(select(Stage).where(Stage.event_id == event_id, Stage.key == key)).first()

    # --- teams and players ---------------------------------------------------------------------------

    def teams_of(self, event_id: int) -> Sequence[Team]:
        return self.session.exec(
            select(Team).where(Team.event_id == event_id).order_by(col(Team.seed), col(Team.id))
        ).all()

    def team_by_name(self, event_id: int, name: str) -> Team | None:
        return self.session.exec(select(Team).where(Team.event_id == event_id, Team.name == name)).first()

    def players_of_event(self, event_id: int) -> Sequence[Player]:
        return self.session.exec(
            select(Player)
            .where(Player.event_id == event_id)
            .order_by(
                col(Player.team_id), col(Player.main_board).is_(None), col(Player.main_board), col(Player.id)
            )
        ).all()

    def players_of_team(self, team_id: int) -> Sequence[Player]:
        return self.session.exec(
            select(Player)
            .where(Player.team_id == team_id)
            .order_by(col(Player.main_board).is_(None), col(Player.main_board), col(Player.id))
        ).all()

    def delete_players_of_team(self, team_id: int) -> None:
        self.session.execute(delete(Player).where(col(Player.team_id) == team_id))

    # --- pools ---------------------------------------------------------------------------------------

    def pools_of(self, stage_id: int) -> Sequence[Pool]:
        # Letters are A..Z, AA, AB...: order by length first so that Z comes before AA.
        return self.session.exec(
            select(Pool).where(Pool.stage_id == stage_id).order_by(func.length(Pool.letter), col(Pool.letter))
        ).all()

    def entries_of_pool(self, pool_id: int) -> Sequence[PoolEntry]:
        return self.session.exec(
            select(PoolEntry).where(PoolEntry.pool_id == pool_id).order_by(col(PoolEntry.pairing_number))
        ).all()

    def entry_of_team(self, stage_id: int, team_id: int) -> PoolEntry | None:
        return self.session.exec(
            select(PoolEntry)
            .join(Pool, col(Pool.id) == col(PoolEntry.pool_id))
            .where(Pool.stage_id == stage_id, PoolEntry.team_id == team_id)
        ).first()

    def delete_pools(self, stage_id: int) -> None:
        pool_ids = select(Pool.id).where(Pool.stage_id == stage_id)
        self.session.execute(delete(PoolEntry).where(col(PoolEntry.pool_id).in_(pool_ids)))
        self.session.execute(delete(Pool).where(col(Pool.stage_id) == stage_id))

    def final_standings(self, stage_id: int) -> Sequence[Standing]:
        """Final (not provisional) standing rows of a stage, by pool and rank (SPEC §6: never provisional)."""
        return self.session.exec(
            select(Standing)
            .where(Standing.stage_id == stage_id, col(Standing.provisional).is_(False))
            .order_by(col(Standing.pool_id), col(Standing.rank), col(Standing.id))
        ).all()

    # --- rounds, matches, boards ---------------------------------------------------------------------

    def rounds_of(self, stage_id: int) -> Sequence[Round]:
        return self.session.exec(
            select(Round).where(Round.stage_id == stage_id).order_by(col(Round.number))
        ).all()

    def matches_of_pool(self, pool_id: int) -> Sequence[Match]:
        return self.session.exec(
            select(Match)
            .join(Round, col(Round.id) == col(Match.round_id))
            .where(Match.pool_id == pool_id)
            .order_by(col(Round.number), col(Match.match_no))
        ).all()

    def count_boards_of_pool(self, pool_id: int) -> int:
        statement = (
            select(func.count())
            .select_from(Board)
            .join(Match, col(Match.id) == col(Board.match_id))
            .where(Match.pool_id == pool_id)
        )
        return int(self.session.exec(statement).one())

    # --- lots ----------------------------------------------------------------------------------------

    def lots_of(self, event_id: int) -> Sequence[Lot]:
        return self.session.exec(
            select(Lot).where(Lot.event_id == event_id).order_by(col(Lot.committed_at), col(Lot.id))
        ).all()
