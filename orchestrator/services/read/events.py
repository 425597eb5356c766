"""The list of events and the event overview (its stage timeline)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.tables import DuelStatus, Round, RoundStatus, StageKind, StageStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.event import TimeControl
from orchestrator.services import live
from orchestrator.services.playoff.read import bracket_view
from orchestrator.services.read.context import EventData, EventRef, StageItem, is_public, require_id
from orchestrator.services.read.documents import JsonDocument, Topics, json_list
from orchestrator.services.read.record import head_hash
from orchestrator.services.setup.draws import LotView, list_lots, publication_delay_s
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class EventListItem(JsonDocument):
    event: EventRef
    team_count: int
    stage_count: int
    first_round_at: datetime | None
    last_round_at: datetime | None


@dataclass(frozen=True, slots=True)
class NowItem:
    """What one running stage is playing now, or plays next."""

    stage: StageItem
    round_name: str  # "Round 5 of 9", "Quarter-final, match 1"; empty before any round exists
    playing: bool  # the round is being played (else it is the next one)
    starts_at: datetime | None
    pools: tuple[str, ...]  # letters of the stage's published pools, which all play the round
    duels: tuple[str, ...]  # keys of the duels still being played


@dataclass(frozen=True, slots=True)
class ClockItem:
    """The event's time control in full, and what the game server plays when its clock has one period
    (docs/gameserver.md, "Clocks with several periods"): ``server_minutes``, ``server_increment``."""

    minutes: int
    moves: int | None
    then_minutes: int
    increment_seconds: int
    text: str  # "90/40+30+30"
    server_minutes: int | None  # None: the game server plays the control as it is
    server_increment: int | None


def clock_item(clock: TimeControl) -> ClockItem:
    limit, increment = clock.single_period
    one_period = clock.has_periods
    return ClockItem(
        clock.minutes,
        clock.moves,
        clock.then_minutes,
        clock.increment_seconds,
        str(clock),
        limit // 60 if one_period else None,
        increment if one_period else None,
    )


@dataclass(frozen=True, slots=True)
class EventView(JsonDocument):
    event: EventRef
    team_count: int
    stages: tuple[StageItem, ...]
    current_stage: str | None  # key of the stage being played, if any
    topics: Topics
    now: tuple[NowItem, ...] = ()
    champions: tuple[str, ...] = ()  # once the play-off final is decided (two on joint winners)
    bracket: bool = False  # the play-off bracket has a page
    combined: bool = False  # several sections: the combined classification has a page (read/combined.py)
    rated: bool = False  # a FIDE-rated event: the rating changes have a page (read/ratings.py)
    record_head: str = ""  # the hash of the newest entry of the public record (docs/record.md)
    clock: ClockItem | None = None  # the event's time control (None: no event file)


# The list of events changes with any event's announcement (a stage started, an event closed); an event
# made visible without one shows after the page cache's age limit (docs/caching.md).
LIST_TOPICS = (live.any_of("event"),)


def list_events(uow: UnitOfWork) -> tuple[EventListItem, ...]:
    """Every event spectators may follow, newest first."""
    items = []
    for event in list(uow.read.visible_events()):
        data = EventData(uow, event.slug)
        starts = [s.first_round_at for s in data.items.values() if s.first_round_at]
        ends = [s.last_round_at for s in data.items.values() if s.last_round_at]
        items.append(
            EventListItem(
                event=data.ref,
                team_count=len(uow.teams.teams_of_event(require_id(event.id))),
                stage_count=len(data.stages),
                first_round_at=min(starts) if starts else None,
                last_round_at=max(ends) if ends else None,
            )
        )
    return tuple(items)


@dataclass(frozen=True, slots=True)
class LotsView:
    """Every lot of an event, in the order committed, void ones included (docs/lots.md, "Lots by hand")."""

    event: EventRef
    lots: tuple[LotView, ...]
    topics: Topics
    delay_s: int = 0  # the event's lot publication delay (docs/lots.md)

    @property
    def delay_minutes(self) -> int:
        """The delay in whole minutes, rounded up (the page says it in minutes)."""
        return -(-self.delay_s // 60)


def lots_view(uow: UnitOfWork, *, slug: str) -> LotsView:
    """The public lots page: each lot's commitment, when it became public and from when it may be drawn,
    and its seed and outcome once drawn or set aside; the event's publication delay."""
    data = EventData(uow, slug)
    return LotsView(
        data.ref,
        tuple(list_lots(uow, event_id=data.id)),
        (f"event:{slug}",),
        publication_delay_s(uow, data.id),
    )


def events_json(items: Sequence[EventListItem]) -> bytes:
    """The list of events as the public API sends it (a JSON array)."""
    return json_list(EventListItem, items)


def event_view(uow: UnitOfWork, *, slug: str) -> EventView:
    """The event overview: its stage timeline, what is on now, and the champion once there is one."""
    data = EventData(uow, slug)
    stages = tuple(data.items[require_id(s.id)] for s in data.stages)
    current = next((s.key for s in stages if s.status == StageStatus.RUNNING), None)
    topics = (f"event:{slug}", *(f"stage:{s.id}" for s in stages))
    knockout = next((s for s in stages if s.kind == StageKind.KNOCKOUT and s.has_page), None)
    return EventView(
        data.ref,
        len(uow.teams.teams_of_event(data.id)),
        stages,
        current,
        topics,
        now=tuple(_now(data, s) for s in stages if s.status == StageStatus.RUNNING),
        champions=_champions(data, knockout),
        bracket=knockout is not None,
        combined=data.definition is not None and len(data.definition.sections) > 1,
        rated=data.definition is not None and data.definition.rated,
        record_head=head_hash(uow, event_id=data.id),
        clock=clock_item(data.definition.time_control) if data.definition is not None else None,
    )


def _now(data: EventData, stage: StageItem) -> NowItem:
    rounds = sorted(
        (r for r in data.rounds if r.stage_id == stage.id),
        key=lambda r: (r.scheduled_at is None, r.scheduled_at or datetime.min, r.number),
    )
    playing = [r for r in rounds if r.status in (RoundStatus.PAIRED, RoundStatus.PLAYING)]
    # A Swiss round is unpaired (or a draft, not public) until it is published: it is still the next one.
    upcoming = [
        r for r in rounds if r.status in (RoundStatus.SCHEDULED, RoundStatus.UNPAIRED, RoundStatus.DRAFT)
    ]
    rnd = next(iter(playing or upcoming), None)
    return NowItem(
        stage=stage,
        round_name=_round_name(rnd, stage) if rnd else "",
        playing=bool(playing),
        starts_at=rnd.scheduled_at if rnd else None,
        pools=tuple(p.letter for p in data.pools if p.stage_id == stage.id and is_public(p) and p.letter),
        duels=tuple(
            d.key
            for d in data.duels
            if d.stage_id == stage.id
            and d.status in (DuelStatus.READY, DuelStatus.PLAYING, DuelStatus.ARMAGEDDON)
        ),
    )


def _round_name(rnd: Round, stage: StageItem) -> str:
    if stage.kind != StageKind.KNOCKOUT:  # pools and Swiss: numbered rounds
        return _("Round %(number)s of %(rounds)s") % {"number": rnd.number, "rounds": stage.rounds}
    return rnd.name or _("Round %(number)s") % {"number": rnd.number}


def _champions(data: EventData, knockout: StageItem | None) -> tuple[str, ...]:
    """The play-off's champions; the bracket is read only once every duel of it is decided."""
    duels = [d for d in data.duels if knockout is not None and d.stage_id == knockout.id]
    if knockout is None or not duels or any(d.status != DuelStatus.DECIDED for d in duels):
        return ()
    return bracket_view(data.uow, stage_id=knockout.id).champions
