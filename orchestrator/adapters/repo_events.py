"""Events and their stages (``uow.events``): lookups by slug or key, the stages a job
or a page walks, a Swiss stage's settings.

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository, constant, constants
from orchestrator.adapters.tables import Event, EventStatus, Stage, StageKind, StageStatus, SwissStage


class EventRepository(Repository):
    """Events and their stages (``uow.events``): lookups by slug or key, the stages a job
    or a page walks, a Swiss stage's settings."""

    def event_and_stage(self, stage_id: int) -> tuple[Event, Stage]:
        stage = self.get_or_raise(Stage, stage_id)
        return self.get_or_raise(Event, stage.event_id), stage

    def stages_of_event(self, event_id: int) -> Sequence[Stage]:
        return self.session.exec(
            select(Stage).where(Stage.event_id == event_id).order_by(col(Stage.position), col(Stage.id))
        ).all()

    def stage_by_key(self, event_id: int, key: str) -> Stage | None:
        return self.session.exec(select(Stage).where(Stage.event_id == event_id, Stage.key == key)).first()

    def get_by_slug(self, slug: str) -> Event | None:
        return self.session.exec(select(Event).where(Event.slug == slug)).first()

    def list_all(self) -> Sequence[Event]:
        return self.session.exec(select(Event).order_by(col(Event.created_at).desc(), col(Event.id))).all()

    def events_in_play(self, limit: int) -> Sequence[Event]:
        """Events not closed yet, the most recently created first, at most ``limit``."""
        return self.session.exec(
            select(Event)
            .where(Event.status != EventStatus.CLOSED.value)
            .order_by(col(Event.created_at).desc(), col(Event.id).desc())
            .limit(limit)
        ).all()

    def running_stages(self) -> Sequence[Stage]:
        return self.session.exec(
            select(Stage)
            .where(col(Stage.status) == constant(StageStatus.RUNNING.value))
            .order_by(col(Stage.id))
        ).all()

    def knockout_stages(self, event_id: int) -> Sequence[Stage]:
        return self.session.exec(
            select(Stage)
            .where(Stage.event_id == event_id, Stage.kind == StageKind.KNOCKOUT.value)
            .order_by(col(Stage.position), col(Stage.id))
        ).all()

    def running_knockout_stages(self) -> Sequence[Stage]:
        return self.session.exec(
            select(Stage)
            .where(
                col(Stage.kind) == constant(StageKind.KNOCKOUT.value),
                col(Stage.status) == constant(StageStatus.RUNNING.value),
            )
            .order_by(col(Stage.id))
        ).all()

    def event_of_stage(self, stage: Stage) -> Event:
        return self.get_or_raise(Event, stage.event_id)

    def knockout_stages_not_started(self) -> Sequence[Stage]:
        """Knockout stages (draft or published) of running events: their bracket may be due."""
        return self.session.exec(
            select(Stage)
            .join(Event, col(Event.id) == Stage.event_id)
            .where(
                col(Stage.kind) == constant(StageKind.KNOCKOUT.value),
                col(Stage.status).in_(constants([StageStatus.DRAFT.value, StageStatus.PUBLISHED.value])),
                col(Event.status) == constant(EventStatus.RUNNING.value),
            )
            .order_by(col(Stage.event_id), col(Stage.position), col(Stage.id))
        ).all()

    def swiss_settings_of(self, stage_id: int) -> SwissStage | None:
        return self.session.exec(select(SwissStage).where(SwissStage.stage_id == stage_id)).first()
