"""Each team's chances and needs in a stage (``uow.chances``), written by the job after each round and read
by the pages (docs/needs.md).

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlalchemy import delete
from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository
from orchestrator.adapters.tables import Stage
from orchestrator.adapters.tables_outlook import Outlook


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
