"""Queries of the periodic jobs (orchestrator/jobs/scheduler.py), exposed on the unit of work as
``uow.scheduler``."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository
from orchestrator.adapters.tables import Event, EventStatus, Stage, StageKind, StageStatus


class SchedulerRepository(Repository):
    def knockout_stages_not_started(self) -> Sequence[Stage]:
        """Knockout stages (draft or published) of running events: their bracket may be due."""
        return self.session.exec(
            select(Stage)
            .join(Event, col(Event.id) == Stage.event_id)
            .where(
                Stage.kind == StageKind.KNOCKOUT.value,
                col(Stage.status).in_([StageStatus.DRAFT.value, StageStatus.PUBLISHED.value]),
                Event.status == EventStatus.RUNNING.value,
            )
            .order_by(col(Stage.event_id), col(Stage.position), col(Stage.id))
        ).all()
