"""The list of events and the event overview (its stage timeline)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.uow import UnitOfWork
from orchestrator.services.read.context import EventData, EventRef, StageItem, require_id
from orchestrator.services.read.documents import JsonDocument, json_list


@dataclass(frozen=True, slots=True)
class EventListItem(JsonDocument):
    event: EventRef
    team_count: int
    stage_count: int
    first_round_at: datetime | None
    last_round_at: datetime | None


@dataclass(frozen=True, slots=True)
class EventView(JsonDocument):
    event: EventRef
    team_count: int
    stages: tuple[StageItem, ...]
    current_stage: str | None  # key of the stage being played, if any
    topics: tuple[str, ...]


def list_events(uow: UnitOfWork) -> tuple[EventListItem, ...]:
    """Every event spectators may follow, newest first."""
    items = []
    for event in list(uow.public.visible_events()):
        data = EventData(uow, event.slug)
        starts = [s.first_round_at for s in data.items.values() if s.first_round_at]
        ends = [s.last_round_at for s in data.items.values() if s.last_round_at]
        items.append(
            EventListItem(
                event=data.ref,
                team_count=len(uow.public.teams_of_event(require_id(event.id))),
                stage_count=len(data.stages),
                first_round_at=min(starts) if starts else None,
                last_round_at=max(ends) if ends else None,
            )
        )
    return tuple(items)


def events_json(items: Sequence[EventListItem]) -> bytes:
    """The list of events as the public API sends it (a JSON array)."""
    return json_list(EventListItem, items)


def event_view(uow: UnitOfWork, *, slug: str) -> EventView:
    """The event overview: its stage timeline."""
    data = EventData(uow, slug)
    stages = tuple(data.items[require_id(s.id)] for s in data.stages)
    current = next((s.key for s in stages if s.status == "running"), None)
    topics = (f"event:{slug}", *(f"stage:{s.id}" for s in stages))
    return EventView(data.ref, len(uow.public.teams_of_event(data.id)), stages, current, topics)
