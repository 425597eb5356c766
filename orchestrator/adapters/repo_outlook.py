"""Each team's chances and needs in a stage (``uow.chances``), written by the job after each round and read
by the pages (docs/needs.md).

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import and_, case, delete, func
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository
from orchestrator.adapters.tables import Match, MatchStatus, Round, Stage
from orchestrator.adapters.tables_outlook import Outlook
from orchestrator.domain.scoring import MatchForfeit


@dataclass(frozen=True, slots=True)
class RoundProgress:
    """One round of a stage in one pool (``pool_id`` None for a round without matches): its status, its
    matches and how many of them still lack their result (not finished, not forfeited whole)."""

    stage_id: int
    pool_id: int | None
    number: int
    status: str
    matches: int
    open_matches: int


@dataclass(frozen=True, slots=True)
class StoredOutlook:
    """A stage's stored outlook in brief: the round it was computed after, and when."""

    after_round: int
    computed_at: datetime


class OutlookRepository(Repository):
    """Each team's chances and needs in a stage (``uow.chances``)."""

    def replace_stage(self, stage_id: int, rows: Iterable[Outlook]) -> None:
        """The stage's outlook rows become ``rows`` (the previous computation's are deleted). Two scans that
        computed the same stage at once (two workers, a redelivered job) replace it one after the other:
        the stage's row is locked first, so the second deletes the first's rows instead of colliding with
        them on the table's unique key (PostgreSQL; SQLite writes one transaction at a time anyway)."""
        self.session.execute(select(Stage.id).where(Stage.id == stage_id).with_for_update(key_share=True))
        self.session.execute(delete(Outlook).where(col(Outlook.stage_id) == stage_id))
        self.session.add_all(list(rows))
        self.session.flush()

    def progress_of_stages(self, stage_ids: Sequence[int]) -> list[RoundProgress]:
        """Every round of these stages per pool, with counts of matches (one query; no board is read)."""
        if not stage_ids:
            return []
        open_match = and_(
            col(Match.status) != MatchStatus.FINISHED.value, col(Match.forfeit) == MatchForfeit.NONE.value
        )
        query = (
            sa_select(
                col(Round.stage_id),
                col(Match.pool_id),
                col(Round.number),
                col(Round.status),
                func.count(col(Match.id)),
                func.coalesce(func.sum(case((open_match, 1), else_=0)), 0),
            )
            .select_from(Round)
            .outerjoin(Match, col(Match.round_id) == col(Round.id))
            .where(col(Round.stage_id).in_(list(stage_ids)))
            .group_by(col(Round.stage_id), col(Match.pool_id), col(Round.number), col(Round.status))
        )
        return [
            RoundProgress(stage_id, pool_id, number, status, int(matches), int(left))
            for stage_id, pool_id, number, status, matches, left in self.session.execute(query)
        ]

    def stored_of_stages(self, stage_ids: Sequence[int]) -> dict[int, StoredOutlook]:
        """The stored outlook of each of these stages that has one, in brief (no row of it is loaded)."""
        if not stage_ids:
            return {}
        query = (
            sa_select(
                col(Outlook.stage_id), func.max(col(Outlook.after_round)), func.min(col(Outlook.computed_at))
            )
            .where(col(Outlook.stage_id).in_(list(stage_ids)))
            .group_by(col(Outlook.stage_id))
        )
        return {
            stage_id: StoredOutlook(int(after), computed_at)
            for stage_id, after, computed_at in self.session.execute(query)
        }

    def of_stage(self, stage_id: int) -> Sequence[Outlook]:
        return self.session.exec(
            select(Outlook).where(Outlook.stage_id == stage_id).order_by(col(Outlook.places), col(Outlook.id))
        ).all()

    def of_pool(self, pool_id: int) -> Sequence[Outlook]:
        return self.session.exec(
            select(Outlook).where(Outlook.pool_id == pool_id).order_by(col(Outlook.places), col(Outlook.id))
        ).all()

    def of_team(self, team_id: int) -> Sequence[Outlook]:
        return self.session.exec(
            select(Outlook)
            .where(Outlook.team_id == team_id)
            .order_by(col(Outlook.stage_id), col(Outlook.places), col(Outlook.id))
        ).all()
