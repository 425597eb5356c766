"""Queries of event setup: stages, teams and rosters, pools, rounds, matches, boards and lots
(docs/architecture.md, habit 7).

Exposed on the unit of work as ``uow.setup``. Like every repository it never commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, insert
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from orchestrator.adapters.repositories import Lookups
from orchestrator.adapters.tables import (
    Board,
    Lot,
    Match,
    Player,
    Pool,
    PoolEntry,
    Team,
)
from orchestrator.domain import teams as domain_teams


@dataclass(frozen=True, slots=True)
class RosterRow:
    """A player as a roster needs them (plain values, the same names as ``Player``'s columns)."""

    team_id: int
    name: str
    account: str
    sex: str
    birth_year: int
    rating: int
    main_board: int | None
    category: str
    fide_id: int | None
    title: str | None
    federation: str | None
    k_factor: int | None


def domain_player(p: Player | RosterRow) -> domain_teams.Player:
    """A stored player (row or plain roster row) as the pure domain sees it."""
    return domain_teams.Player(
        name=p.name,
        account=p.account,
        sex=domain_teams.Sex(p.sex),
        birth_year=p.birth_year,
        rating=p.rating,
        fide_id=p.fide_id,
        title=p.title,
        federation=p.federation,
        k_factor=p.k_factor,
    )


class SetupRepository(Lookups):
    """Stage, team, player, pool, round and standing reads come from ``Lookups`` under setup's names."""

    # --- events and stages ---------------------------------------------------------------------------

    event_of_stage = Lookups.event_and_stage
    stages_of = Lookups.stages_of_event

    # --- teams and players ---------------------------------------------------------------------------

    teams_of = Lookups.teams_of_event

    def insert_boards(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert boards (column values, every row with the same keys) in one executemany statement.

        A stage's 1,350 boards as ORM objects cost ~0.2 s to build and flush; as rows, a few ms.
        """
        if rows:
            self.session.connection().execute(insert(Board.__table__), list(rows))  # type: ignore[attr-defined]

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

    def roster_rows_of_event(self, event_id: int) -> list[RosterRow]:
        """``players_of_event`` as plain rows (drafting reads the whole field's 1,450 players each time)."""
        rows = self.session.execute(
            sa_select(
                col(Player.team_id),
                col(Player.name),
                col(Player.account),
                col(Player.sex),
                col(Player.birth_year),
                col(Player.rating),
                col(Player.main_board),
                col(Player.category),
                col(Player.fide_id),
                col(Player.title),
                col(Player.federation),
                col(Player.k_factor),
            )
            .where(col(Player.event_id) == event_id)
            .order_by(
                col(Player.team_id), col(Player.main_board).is_(None), col(Player.main_board), col(Player.id)
            )
        ).all()
        return [RosterRow(*row) for row in rows]

    def delete_players_of_team(self, team_id: int) -> None:
        self.session.execute(delete(Player).where(col(Player.team_id) == team_id))

    # --- pools ---------------------------------------------------------------------------------------

    pools_of = Lookups.pools_of_stage

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

    # --- rounds, matches, boards ---------------------------------------------------------------------

    rounds_of = Lookups.rounds_of_stage

    def matches_of_pool(self, pool_id: int) -> Sequence[Match]:
        return self.matches_in_round_order(Match.pool_id == pool_id)

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
