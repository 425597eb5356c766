"""Setting an event up: create it from its definition; what the other setup modules share.

Use cases (docs/rules.md §1, §3, §7, §9), each in the caller's unit of work:

- ``create_event`` (here): validate the YAML definition (every problem, each with its line), store the event,
  its stages and the definition's field (teams and rosters); ``describe_event`` for the staff overview.
- ``pool_draft``: draft the pools of a stage, let staff swap teams, publish them.
- ``stage_start``: start a published stage (pairing numbers by lot, Berger rounds, matches and boards).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from orchestrator.adapters.repo_teams import RosterRow, domain_player
from orchestrator.adapters.tables import (
    Event,
    EventStatus,
    Player,
    RoundStatus,
    Stage,
    StageKind,
    StageStatus,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import teams as domain_teams
from orchestrator.domain.event import EventDefinition, StageDef, summary
from orchestrator.domain.tiebreaks import TieBreakError, parse_chain
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.eventfile import EventDefinitionError, parse_event
from orchestrator.services import live
from orchestrator.services.definitions import definition_of
from orchestrator.services.row_views import row_view
from orchestrator.translation import gettext as _


def domain_team(team: Team, players: Sequence[Player | RosterRow]) -> domain_teams.Team:
    """A stored team as the pure domain sees it (its roster from the stored players)."""
    roster = tuple(
        domain_teams.RosterEntry(
            player=domain_player(p),
            main_board=p.main_board,
            category=domain_teams.Category(p.category),
        )
        for p in players
    )
    return domain_teams.Team(
        name=team.name, federation=team.federation, seed=team.seed, roster=roster, section=team.section
    )


# --- shared by the setup modules (pool_draft, stage_start) -----------------------------------------------


@dataclass(frozen=True, slots=True)
class EventField:
    """The stored teams of an event, by id and by name, with their domain form."""

    rows: dict[int, Team]
    by_name: dict[str, int]
    domain: dict[int, domain_teams.Team]

    def name(self, team_id: int) -> str:
        return self.rows[team_id].name


def event_field(uow: UnitOfWork, event_id: int) -> EventField:
    """The event's stored teams with their rosters (shared by the setup modules)."""
    rows = {t.id: t for t in uow.teams.teams_of_event(event_id) if t.id is not None}
    players: dict[int, list[RosterRow]] = defaultdict(list)
    for player in uow.teams.roster_rows_of_event(event_id):
        players[player.team_id].append(player)
    return EventField(
        rows=rows,
        by_name={t.name: team_id for team_id, t in rows.items()},
        domain={team_id: domain_team(t, players[team_id]) for team_id, t in rows.items()},
    )


def stage_definition(definition: EventDefinition, stage: Stage) -> StageDef:
    """The definition of a stored stage (Conflict if the definition no longer has it)."""
    try:
        return definition.stage(stage.key)
    except KeyError:  # pragma: no cover - stages are stored from the definition
        raise Conflict(_("stage %(stage)s is not in the event definition") % {"stage": stage.key}) from None


def pool_stage(uow: UnitOfWork, stage_id: int, status: StageStatus, refusal: str) -> tuple[Event, Stage]:
    """The event and the stage of a pools step (draft, swap, publish, start), which needs a pool stage in
    ``status``; a knockout or Swiss stage is refused, and a stage in another status with ``refusal`` (its
    ``%(stage)s`` and ``%(status)s`` filled in)."""
    event, stage = uow.events.event_and_stage(stage_id)
    if stage.kind == StageKind.SWISS.value:
        raise Conflict(
            _("%(stage)s is a Swiss stage: it has no pools to draft; start it to pair rounds")
            % {"stage": stage.name}
        )
    if stage.kind != StageKind.POOLS.value:
        raise Conflict(_("%(stage)s is a knockout stage: it has no pools") % {"stage": stage.name})
    if stage.status != status.value:
        raise Conflict(refusal % {"stage": stage.name, "status": stage.status})
    return event, stage


# --- create_event ---------------------------------------------------------------------------------------


def create_event(uow: UnitOfWork, *, definition_text: str, source: str, actor: str) -> int:
    """Validate and store an event definition with its stages and field; refuse it listing every problem."""
    try:
        definition = parse_event(definition_text, source=source)
    except EventDefinitionError as error:
        raise ValidationFailed([str(problem) for problem in error.problems]) from None
    if uow.events.get_by_slug(definition.slug) is not None:
        raise Conflict(
            _("an event with the slug %(slug)r already exists; change 'slug' in the file")
            % {"slug": definition.slug}
        )
    now = utcnow()
    event = uow.events.insert(
        Event(
            slug=definition.slug,
            name=definition.name,
            definition_text=definition_text,
            status=EventStatus.DRAFT.value,
            created_at=now,
            updated_at=now,
        )
    )
    assert event.id is not None
    for position, stage in enumerate(definition.stages, start=1):
        tiebreaks: list[str] = []
        if stage.kind != "knockout" and stage.tiebreaks:
            try:
                tiebreaks = list(parse_chain(stage.tiebreaks))
            except TieBreakError:  # pragma: no cover - the parser checked the chain already
                tiebreaks = list(stage.tiebreaks)
        uow.events.insert(
            Stage(
                event_id=event.id,
                key=stage.key,
                name=stage.name,
                kind=StageKind(stage.kind).value,
                position=position,
                status=StageStatus.DRAFT.value,
                tiebreaks=tiebreaks,
                section=stage.section,
            )
        )
    players = 0
    for team in definition.teams:
        players += _store_team(uow, event.id, team)
    uow.audit.change(
        event,
        "event.create",
        actor=actor,
        event_id=event.id,
        new={
            "slug": definition.slug,
            "source": source,
            "stages": [s.key for s in definition.stages],
            "teams": len(definition.teams),
            "players": players,
            "sections": [section.key for section in definition.sections],
        },
    )
    live.announce(uow, f"event:{definition.slug}", kind="event", event_id=event.id)
    return event.id


class TeamEntry(Protocol):
    """A team as an event file or a roster file enters it."""

    @property
    def name(self) -> str: ...
    @property
    def federation(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def section(self) -> str: ...


def insert_team(uow: UnitOfWork, event_id: int, team: TeamEntry) -> Team:
    """Store a new team of the event (its id known at once), without players."""
    return uow.teams.insert(
        Team(
            event_id=event_id,
            name=team.name,
            federation=team.federation,
            seed=team.seed,
            section=team.section,
        )
    )


def _store_team(uow: UnitOfWork, event_id: int, team: domain_teams.Team) -> int:
    row = insert_team(uow, event_id, team)
    assert row.id is not None
    for entry in team.roster:
        uow.teams.add(Player.of(event_id, row.id, entry))
    uow.flush()
    return len(team.roster)


# --- small read models for pages and the API ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StageInfo:
    id: int
    key: str
    name: str
    kind: str
    position: int
    status: str
    pools: int
    rounds: int


@dataclass(frozen=True, slots=True)
class EventInfo:
    id: int
    slug: str
    name: str
    status: str
    teams: int
    players: int
    stages: tuple[StageInfo, ...]
    summary: str


def describe_event(uow: UnitOfWork, *, event_id: int) -> EventInfo:
    """An event's stages and their state, for the staff overview."""
    event = uow.events.get_or_raise(Event, event_id)
    stages = tuple(
        row_view(
            StageInfo,
            s,
            id=s.id or 0,
            pools=len(uow.rounds.pools_of_stage(s.id or 0)),
            # a Swiss stage ended early: the rounds played (docs/rules.md §10, "Ending a Swiss early")
            rounds=sum(
                1 for r in uow.rounds.rounds_of_stage(s.id or 0) if r.status != RoundStatus.CANCELLED.value
            ),
        )
        for s in uow.events.stages_of_event(event_id)
    )
    teams = uow.teams.teams_of_event(event_id)
    return EventInfo(
        id=event_id,
        slug=event.slug,
        name=event.name,
        status=event.status,
        teams=len(teams),
        players=len(uow.teams.players_of_event(event_id)),
        stages=stages,
        summary=str(summary(definition_of(event))),
    )


def stage_ids_by_key(uow: UnitOfWork, *, event_id: int) -> Mapping[str, int]:
    """Stage ids of an event by stage key (CLI and tests address stages by key)."""
    return {s.key: s.id or 0 for s in uow.events.stages_of_event(event_id)}
