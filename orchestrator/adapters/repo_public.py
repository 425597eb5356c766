"""Queries behind the spectator pages and the public API (read-only; nothing here writes).

Spectators see published work only: events that are not drafts, pools once published.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import or_
from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository
from orchestrator.adapters.tables import (
    Annulment,
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
    Team,
)


def _ids(values: Iterable[int | None]) -> list[int]:
    return sorted({v for v in values if v is not None})


class PublicRepository(Repository):
    def visible_events(self) -> Sequence[Event]:
        statement = (
            select(Event).where(Event.status != EventStatus.DRAFT.value).order_by(col(Event.id).desc())
        )
        return self.session.exec(statement).all()

    def visible_event(self, slug: str) -> Event | None:
        event = self.session.exec(select(Event).where(Event.slug == slug)).first()
        return None if event is None or event.status == EventStatus.DRAFT.value else event

    def stages_of_events(self, event_ids: Iterable[int]) -> Sequence[Stage]:
        statement = (
            select(Stage)
            .where(col(Stage.event_id).in_(_ids(event_ids)))
            .order_by(col(Stage.event_id), col(Stage.position), col(Stage.id))
        )
        return self.session.exec(statement).all()

    def pools_of_stages(self, stage_ids: Iterable[int]) -> Sequence[Pool]:
        statement = (
            select(Pool)
            .where(col(Pool.stage_id).in_(_ids(stage_ids)))
            .order_by(col(Pool.stage_id), col(Pool.letter))
        )
        return self.session.exec(statement).all()

    def entries_of_pools(self, pool_ids: Iterable[int]) -> Sequence[PoolEntry]:
        statement = (
            select(PoolEntry)
            .where(col(PoolEntry.pool_id).in_(_ids(pool_ids)))
            .order_by(col(PoolEntry.pool_id), col(PoolEntry.pairing_number))
        )
        return self.session.exec(statement).all()

    def pool_entries_of_team(self, team_id: int) -> Sequence[PoolEntry]:
        return self.session.exec(select(PoolEntry).where(PoolEntry.team_id == team_id)).all()

    def teams_of_event(self, event_id: int) -> Sequence[Team]:
        return self.session.exec(select(Team).where(Team.event_id == event_id).order_by(col(Team.seed))).all()

    def players_of_teams(self, team_ids: Iterable[int]) -> Sequence[Player]:
        statement = (
            select(Player)
            .where(col(Player.team_id).in_(_ids(team_ids)))
            .order_by(
                col(Player.team_id), col(Player.main_board).is_(None), col(Player.main_board), col(Player.id)
            )
        )
        return self.session.exec(statement).all()

    def players_by_id(self, player_ids: Iterable[int | None]) -> dict[int, Player]:
        ids = _ids(player_ids)
        if not ids:
            return {}
        rows = self.session.exec(select(Player).where(col(Player.id).in_(ids))).all()
        return {row.id: row for row in rows if row.id is not None}

    def rounds_of_stages(self, stage_ids: Iterable[int]) -> Sequence[Round]:
        statement = (
            select(Round)
            .where(col(Round.stage_id).in_(_ids(stage_ids)))
            .order_by(col(Round.stage_id), col(Round.number))
        )
        return self.session.exec(statement).all()

    def duels_of_stages(self, stage_ids: Iterable[int]) -> Sequence[Duel]:
        statement = select(Duel).where(col(Duel.stage_id).in_(_ids(stage_ids))).order_by(col(Duel.id))
        return self.session.exec(statement).all()

    def matches_of_pools(self, pool_ids: Iterable[int]) -> Sequence[Match]:
        statement = (
            select(Match)
            .where(col(Match.pool_id).in_(_ids(pool_ids)))
            .order_by(col(Match.round_id), col(Match.match_no))
        )
        return self.session.exec(statement).all()

    def matches_of_duels(self, duel_ids: Iterable[int]) -> Sequence[Match]:
        statement = (
            select(Match)
            .where(col(Match.duel_id).in_(_ids(duel_ids)))
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

    def boards_of_matches(self, match_ids: Iterable[int]) -> Sequence[Board]:
        ids = _ids(match_ids)
        if not ids:
            return []
        statement = (
            select(Board)
            .where(col(Board.match_id).in_(ids))
            .order_by(col(Board.match_id), col(Board.board_no))
        )
        return self.session.exec(statement).all()

    def standings_of_pools(self, pool_ids: Iterable[int]) -> Sequence[Standing]:
        statement = (
            select(Standing)
            .where(col(Standing.pool_id).in_(_ids(pool_ids)))
            .order_by(col(Standing.pool_id), col(Standing.rank), col(Standing.id))
        )
        return self.session.exec(statement).all()

    def annulled_player_ids(self, event_id: int) -> set[int]:
        statement = (
            select(Annulment.player_id)
            .join(Player, col(Player.id) == col(Annulment.player_id))
            .where(Player.event_id == event_id)
        )
        return set(self.session.exec(statement).all())
