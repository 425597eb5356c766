"""Queries behind the spectator pages and the public API (read-only; nothing here writes).

Spectators see published work only: events that are not drafts, pools once published.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import or_
from sqlmodel import col, select

from orchestrator.adapters.repositories import Lookups, known_ids
from orchestrator.adapters.tables import (
    Board,
    Duel,
    Event,
    EventStatus,
    Match,
    Player,
    Pool,
    PoolEntry,
    Round,
    Stage,
    Standing,
)


class PublicRepository(Lookups):
    def visible_events(self) -> Sequence[Event]:
        statement = (
            select(Event).where(Event.status != EventStatus.DRAFT.value).order_by(col(Event.id).desc())
        )
        return self.session.exec(statement).all()

    def visible_event(self, slug: str) -> Event | None:
        event = self.event_by_slug(slug)
        return None if event is None or event.status == EventStatus.DRAFT.value else event

    def stages_of_events(self, event_ids: Iterable[int]) -> Sequence[Stage]:
        statement = (
            select(Stage)
            .where(col(Stage.event_id).in_(known_ids(event_ids)))
            .order_by(col(Stage.event_id), col(Stage.position), col(Stage.id))
        )
        return self.session.exec(statement).all()

    def pools_of_stages(self, stage_ids: Iterable[int]) -> Sequence[Pool]:
        statement = (
            select(Pool)
            .where(col(Pool.stage_id).in_(known_ids(stage_ids)))
            .order_by(col(Pool.stage_id), col(Pool.letter))
        )
        return self.session.exec(statement).all()

    def entries_of_pools(self, pool_ids: Iterable[int]) -> Sequence[PoolEntry]:
        statement = (
            select(PoolEntry)
            .where(col(PoolEntry.pool_id).in_(known_ids(pool_ids)))
            .order_by(col(PoolEntry.pool_id), col(PoolEntry.pairing_number))
        )
        return self.session.exec(statement).all()

    def pool_entries_of_team(self, team_id: int) -> Sequence[PoolEntry]:
        return self.session.exec(select(PoolEntry).where(PoolEntry.team_id == team_id)).all()

    def players_of_teams(self, team_ids: Iterable[int]) -> Sequence[Player]:
        statement = (
            select(Player)
            .where(col(Player.team_id).in_(known_ids(team_ids)))
            .order_by(
                col(Player.team_id), col(Player.main_board).is_(None), col(Player.main_board), col(Player.id)
            )
        )
        return self.session.exec(statement).all()

    def rounds_of_stages(self, stage_ids: Iterable[int]) -> Sequence[Round]:
        statement = (
            select(Round)
            .where(col(Round.stage_id).in_(known_ids(stage_ids)))
            .order_by(col(Round.stage_id), col(Round.number))
        )
        return self.session.exec(statement).all()

    def duels_of_stages(self, stage_ids: Iterable[int]) -> Sequence[Duel]:
        statement = select(Duel).where(col(Duel.stage_id).in_(known_ids(stage_ids))).order_by(col(Duel.id))
        return self.session.exec(statement).all()

    def matches_of_pools(self, pool_ids: Iterable[int]) -> Sequence[Match]:
        statement = (
            select(Match)
            .where(col(Match.pool_id).in_(known_ids(pool_ids)))
            .order_by(col(Match.round_id), col(Match.match_no))
        )
        return self.session.exec(statement).all()

    def matches_of_duels(self, duel_ids: Iterable[int]) -> Sequence[Match]:
        statement = (
            select(Match)
            .where(col(Match.duel_id).in_(known_ids(duel_ids)))
            .order_by(col(Match.duel_id), col(Match.leg))
        )
        return self.session.exec(statement).all()

    def matches_of_team(self, team_id: int) -> Sequence[Match]:
        statement = (
            select(Match)
            .where(or_(col(Match.first_team_id) == team_id, col(Match.second_team_id) == team_id))
            .order_by(col(Match.round_id), col(Match.id))
        )
        return self.session.exec(statement).all()

    def boards_of_matches(self, match_ids: Iterable[int]) -> list[Board]:
        """Boards of these matches in one list, by match id and board number."""
        return [board for boards in self.boards_by_match(match_ids).values() for board in boards]

    def standings_of_pools(self, pool_ids: Iterable[int]) -> Sequence[Standing]:
        statement = (
            select(Standing)
            .where(col(Standing.pool_id).in_(known_ids(pool_ids)))
            .order_by(col(Standing.pool_id), col(Standing.rank), col(Standing.id))
        )
        return self.session.exec(statement).all()
