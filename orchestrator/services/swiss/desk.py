"""What the Swiss round desk page shows (docs/swiss.md, docs/staff-guide.md): the stage's rounds, the draft
in review, the round that can still be paired again, the teams with their pairing numbers, and the
event's teams that could enter late."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.tables import Event, RoundStatus, Stage, StageKind, StageStatus, SwissRoundRole
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS
from orchestrator.domain.swiss.systems import SYSTEM_NAMES, system_name
from orchestrator.errors import Conflict, NotFound
from orchestrator.services.definitions import definition_or_none
from orchestrator.services.swiss.rounds import RoundView, describe_round
from orchestrator.services.swiss.state import PUBLISHED_ROUNDS
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class DeskRound:
    id: int
    number: int
    status: str
    scheduled_at: datetime | None


@dataclass(frozen=True, slots=True)
class DeskTeam:
    id: int
    name: str
    pairing_number: int
    joined_round: int
    withdrawn_round: int | None


@dataclass(frozen=True, slots=True)
class SwissDesk:
    event_id: int
    event_slug: str
    event_name: str
    stage_id: int
    stage_name: str
    stage_status: str
    rounds: tuple[DeskRound, ...]
    draft: RoundView | None
    next_round: int | None  # the round "Pair the next round" would pair (None: none left, or a draft)
    repairable: DeskRound | None  # the last published round, while nothing of it has started
    teams: tuple[DeskTeam, ...]
    candidates: tuple[tuple[int, str], ...]  # the event's teams not in the stage (late entries)
    last: RoundView | None  # the last published round's pairing
    absences: tuple[tuple[DeskTeam, int], ...] = ()  # (team, round) marked absent, rounds not published
    system: str = SYSTEM_NAMES[FIDE_TEAM_SWISS]  # the stage's pairing system, as the page names it

    @property
    def started(self) -> bool:
        return (
            self.stage_status != StageStatus.DRAFT.value and self.stage_status != StageStatus.PUBLISHED.value
        )

    @property
    def open_rounds(self) -> tuple[DeskRound, ...]:
        """Rounds not published yet (a team can be marked absent for them)."""
        return tuple(
            r for r in self.rounds if r.status in (RoundStatus.UNPAIRED.value, RoundStatus.DRAFT.value)
        )

    @property
    def in_play(self) -> tuple[DeskTeam, ...]:
        return tuple(t for t in self.teams if t.withdrawn_round is None)


def swiss_desk(uow: UnitOfWork, *, stage_id: int) -> SwissDesk:
    stage = uow.events.get(Stage, stage_id)
    if stage is None:
        raise NotFound(_("stage %(stage)s does not exist") % {"stage": stage_id})
    if stage.kind != StageKind.SWISS.value:
        raise Conflict(_("%(stage)s is not a Swiss stage") % {"stage": stage.name})
    event = uow.events.get_or_raise(Event, stage.event_id)
    rounds = tuple(
        DeskRound(r.id or 0, r.number, r.status, r.scheduled_at) for r in uow.rounds.rounds_of_stage(stage_id)
    )
    pools = uow.rounds.pools_of_stage(stage_id)
    entries = uow.rounds.entries_of_pool(pools[0].id or 0) if pools else ()
    names = {t.id or 0: t.name for t in uow.teams.teams_of_event(event.id or 0)}
    teams = tuple(
        DeskTeam(e.team_id, names[e.team_id], e.pairing_number, e.joined_round or 1, e.withdrawn_round)
        for e in entries
    )
    in_stage = {t.id for t in teams}
    drafted = next((r for r in rounds if r.status == RoundStatus.DRAFT.value), None)
    published = [r for r in rounds if r.status in PUBLISHED_ROUNDS]
    last = published[-1] if published else None
    unpaired = next((r.number for r in rounds if r.status == RoundStatus.UNPAIRED.value), None)
    repairable = None
    if last is not None and last.status == RoundStatus.SCHEDULED.value and drafted is None:
        repairable = None if uow.rounds.round_has_games(last.id) else last
    definition = definition_or_none(event)
    stage_def = next((s for s in definition.stages if s.key == stage.key), None) if definition else None
    system = _(system_name(stage_def.pairing if stage_def else None))  # msgids: web/domain_text.py
    return SwissDesk(
        event_id=event.id or 0,
        event_slug=event.slug,
        event_name=event.name,
        stage_id=stage_id,
        stage_name=stage.name,
        stage_status=stage.status,
        rounds=rounds,
        draft=None if drafted is None else describe_round(uow, round_id=drafted.id),
        next_round=None if drafted is not None else unpaired,
        repairable=repairable,
        teams=teams,
        candidates=tuple(
            (tid, name) for tid, name in sorted(names.items(), key=lambda x: x[1]) if tid not in in_stage
        ),
        last=None if last is None else describe_round(uow, round_id=last.id),
        absences=_absences(uow, stage_id, teams, rounds),
        system=system,
    )


def _absences(
    uow: UnitOfWork, stage_id: int, teams: tuple[DeskTeam, ...], rounds: tuple[DeskRound, ...]
) -> tuple[tuple[DeskTeam, int], ...]:
    """The absences that can still be undone: of a team still in play, for a round not yet published."""
    unpublished = (RoundStatus.UNPAIRED.value, RoundStatus.DRAFT.value)
    open_rounds = {r.number for r in rounds if r.status in unpublished}
    by_id = {t.id: t for t in teams if t.withdrawn_round is None}
    return tuple(
        (by_id[row.team_id], number)
        for row, number in uow.rounds.round_teams_of_stage(stage_id)
        if row.role == SwissRoundRole.ABSENT.value and number in open_rounds and row.team_id in by_id
    )
