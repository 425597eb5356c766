"""What every page of one event loads: the event, its stored definition, stages, pools, rounds, duels.

Spectators see published work only (events that are not drafts, published pools). Nothing here is secret
or sealed: Armageddon nominations, lot seeds and tokens are never read.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from fractions import Fraction
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from orchestrator.adapters.tables import Event as EventRow
from orchestrator.adapters.tables import Player, PoolStatus, RoundStatus, Stage, StageKind, Team
from orchestrator.adapters.tables import Pool as PoolRow
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.event import StageDef
from orchestrator.domain.scoring import DEFAULT_SCORING, MatchScoring
from orchestrator.domain.tiebreaks import PRESETS, TieBreakError, parse_chain
from orchestrator.errors import NotFound
from orchestrator.services.definitions import definition_or_none
from orchestrator.services.read.formatting import round_half_up
from orchestrator.translation import gettext as _

log = logging.getLogger(__name__)

DEFAULT_CHAIN = PRESETS["online-2020"]
DEFAULT_BOARDS = 6


@dataclass(frozen=True, slots=True)
class EventRef:
    slug: str
    name: str
    status: str
    timezone: str = "UTC"  # the event file's zone: pages show times in it (docs/staff-guide.md)


@dataclass(frozen=True, slots=True)
class TeamRef:
    id: int
    name: str
    federation: str
    seed: int


@dataclass(frozen=True, slots=True)
class PlayerRef:
    id: int
    name: str
    rating: int
    account: str
    team_id: int


@dataclass(frozen=True, slots=True)
class StageItem:
    id: int
    key: str
    name: str
    kind: str
    status: str
    position: int
    pool_count: int
    team_count: int
    rounds: int
    first_round_at: datetime | None
    last_round_at: datetime | None
    advance: int | None  # places per pool that go on; None for a knockout or when unknown
    next_stage: str | None
    has_page: bool  # something published to show (a pools or Swiss stage: a published pool)
    pairing: str | None = None  # a Swiss stage's pairing system (docs/swiss.md "Pairing systems")


def ref_event(event: EventRow, timezone: str = "UTC") -> EventRef:
    return EventRef(event.slug, event.name, event.status, timezone)


def ref_team(team: Team) -> TeamRef:
    return TeamRef(require_id(team.id), team.name, team.federation, team.seed)


def ref_player(player: Player) -> PlayerRef:
    return PlayerRef(require_id(player.id), player.name, player.rating, player.account, player.team_id)


def require_id(value: int | None) -> int:
    """A stored row's id (rows read back from the database always have one)."""
    assert value is not None
    return value


def is_public(pool: PoolRow) -> bool:
    return pool.status == PoolStatus.PUBLISHED.value


def team_strength(players: Iterable[Player]) -> int | None:
    """Average rating of the main players (docs/rules.md §3), rounded half up."""
    ratings = [p.rating for p in players if p.main_board is not None]
    return round_half_up(Fraction(sum(ratings), len(ratings))) if ratings else None


def teams_by_id(uow: UnitOfWork, event_id: int) -> dict[int, Team]:
    return {require_id(t.id): t for t in uow.teams.teams_of_event(event_id)}


class EventData:
    """What every page of one event needs: the event, its definition and its stages."""

    def __init__(self, uow: UnitOfWork, slug: str) -> None:
        event = uow.read.visible_event(slug)
        if event is None:
            raise NotFound(_("There is no event %(slug)r.") % {"slug": slug})
        self.uow = uow
        self.row = event
        self.id = require_id(event.id)
        self.definition = definition_or_none(event)
        self.ref = ref_event(event, self.definition.timezone if self.definition else "UTC")
        self.stages = list(uow.read.stages_of_events([self.id]))
        stage_ids = [require_id(s.id) for s in self.stages]
        self.pools = list(uow.read.pools_of_stages(stage_ids))
        self.rounds = list(uow.read.rounds_of_stages(stage_ids))
        self.entries = list(uow.read.entries_of_pools(require_id(p.id) for p in self.pools if is_public(p)))
        self.duels = list(
            uow.read.duels_of_stages(require_id(s.id) for s in self.stages if s.kind == StageKind.KNOCKOUT)
        )
        self.items = {require_id(s.id): self._stage_item(s) for s in self.stages}
        self.annulled = uow.teams.annulled_player_ids(self.id)

    @property
    def boards(self) -> int:
        return self.definition.team_format.boards if self.definition else DEFAULT_BOARDS

    @property
    def scoring(self) -> MatchScoring:
        return self.definition.match_scoring if self.definition else DEFAULT_SCORING

    def chain(self, stage: Stage) -> tuple[str, ...]:
        codes: Sequence[str] = stage.tiebreaks
        if not codes:
            definition = self._definition_of(stage)
            codes = definition.tiebreaks if definition else ()
        try:
            return parse_chain(list(codes)) if codes else DEFAULT_CHAIN
        except TieBreakError:
            return DEFAULT_CHAIN

    def _definition_of(self, stage: Stage) -> StageDef | None:
        if self.definition is None:
            return None
        return next((s for s in self.definition.stages if s.key == stage.key), None)

    def _scheduled_times(self, stage: Stage, definition: StageDef | None) -> list[datetime]:
        """The rounds' times as stored, else as the event file schedules them (in the event's zone)."""
        times = [
            r.scheduled_at
            for r in self.rounds
            if r.stage_id == stage.id
            and r.scheduled_at is not None
            and r.status != RoundStatus.CANCELLED.value
        ]
        if times or definition is None or not definition.schedule:
            return times
        zone = _zone(self.definition.timezone if self.definition else "UTC")
        return [
            t.replace(tzinfo=zone).astimezone(UTC) if t.tzinfo is None else t for t in definition.schedule
        ]

    def _stage_item(self, stage: Stage) -> StageItem:
        stage_id = require_id(stage.id)
        pools = [p for p in self.pools if p.stage_id == stage_id]
        pool_ids = {p.id for p in pools if is_public(p)}
        # A Swiss stage ended early has as many rounds as it played: its cancelled rounds do not count.
        rounds = [
            r for r in self.rounds if r.stage_id == stage_id and r.status != RoundStatus.CANCELLED.value
        ]
        definition = self._definition_of(stage)
        times = self._scheduled_times(stage, definition)
        advance = None
        if definition is not None and stage.kind == StageKind.POOLS and definition.advance:
            advance = definition.advance
        later = [s for s in self.stages if s.position > stage.position]
        duels = [d for d in self.duels if d.stage_id == stage_id]
        return StageItem(
            id=stage_id,
            key=stage.key,
            name=stage.name,
            kind=stage.kind,
            status=stage.status,
            position=stage.position,
            pool_count=len(pools) or (definition.pool_count if definition else 0),
            team_count=sum(1 for e in self.entries if e.pool_id in pool_ids),
            rounds=len(rounds) or (len(definition.schedule) if definition else 0),
            first_round_at=min(times) if times else None,
            last_round_at=max(times) if times else None,
            advance=advance,
            next_stage=later[0].name if advance is not None and later else None,
            has_page=bool(duels) if stage.kind == StageKind.KNOCKOUT else bool(pool_ids),
            pairing=definition.pairing if definition is not None and stage.kind == StageKind.SWISS else None,
        )

    def stage_by_key(self, key: str) -> Stage:
        for stage in self.stages:
            if stage.key == key:
                return stage
        raise NotFound(_("There is no stage %(key)r in this event.") % {"key": key})

    def stage_by_id(self, stage_id: int) -> Stage:
        return next(s for s in self.stages if s.id == stage_id)

    def public_pool(self, stage: Stage, letter: str) -> PoolRow:
        for pool in self.pools:
            if pool.stage_id == stage.id and pool.letter.upper() == letter.upper() and is_public(pool):
                return pool
        raise NotFound(
            _("There is no published pool %(letter)r in %(stage)s.") % {"letter": letter, "stage": stage.name}
        )


def _zone(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC
