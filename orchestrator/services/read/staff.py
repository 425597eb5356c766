"""Read models of the staff pages that gather several services' answers (results, closing a stage,
appeals, fair play, the audit log, rosters), so the routes only translate input and output."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.tables import (
    AuditLog,
    Event,
    Player,
    Pool,
    Round,
    Stage,
    StageKind,
    Standing,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.standings import Standings
from orchestrator.errors import NotFound
from orchestrator.services.results import appeals as appeal_service
from orchestrator.services.results import late_changes as late_change_service
from orchestrator.services.results import results as result_service
from orchestrator.services.results import standings as standings_service
from orchestrator.services.results import withdrawals as withdrawal_service
from orchestrator.services.results.appeals import AppealView
from orchestrator.services.results.standings import PoolRecords
from orchestrator.services.results.tie_lots import TieLot
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class StaffEventLine:
    id: int | None
    slug: str
    name: str
    status: str


@dataclass(frozen=True, slots=True)
class StaffEventRef:
    id: int
    slug: str
    name: str


@dataclass(frozen=True, slots=True)
class RosterTeam:
    name: str
    federation: str
    seed: int
    players: int


def staff_events(uow: UnitOfWork) -> tuple[StaffEventLine, ...]:
    """Every event, drafts included, for the staff's list."""
    return tuple(StaffEventLine(e.id, e.slug, e.name, e.status) for e in uow.events.list_all())


def staff_event_ref(uow: UnitOfWork, *, event_id: int) -> StaffEventRef:
    event = uow.events.get_or_raise(Event, event_id)
    return StaffEventRef(event_id, event.slug, event.name)


def roster_teams(uow: UnitOfWork, *, event_id: int) -> tuple[RosterTeam, ...]:
    """Each team of the event with the number of players on its roster."""
    players_by_team: dict[int, int] = {}
    for player in uow.teams.players_of_event(event_id):
        players_by_team[player.team_id] = players_by_team.get(player.team_id, 0) + 1
    return tuple(
        RosterTeam(team.name, team.federation, team.seed, players_by_team.get(team.id or 0, 0))
        for team in uow.teams.teams_of_event(event_id)
    )


# --- results -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RoundResults:
    round: Round
    matches: int
    missing: int  # boards still without a result (outside forfeited matches)


@dataclass(frozen=True, slots=True)
class StageResults:
    stage: Stage
    rounds: tuple[RoundResults, ...]
    warnings: tuple[str, ...]
    pools: tuple[Pool, ...]
    late_changes: tuple[
        late_change_service.LateChangeView, ...
    ] = ()  # as the closed stage or the one built from it
    withdrawals: withdrawal_service.WithdrawalDesk | None = None  # a pool stage's teams and withdrawals


@dataclass(frozen=True, slots=True)
class ResultsOverview:
    event: Event
    stages: tuple[StageResults, ...]


def event_by_slug(uow: UnitOfWork, slug: str) -> Event:
    event = uow.events.get_by_slug(slug)
    if event is None:
        raise NotFound(_("event %(slug)r does not exist") % {"slug": slug})
    return event


def sheets_of_round(uow: UnitOfWork, *, round_id: int) -> list[result_service.MatchSheet]:
    """The result sheet of every match of a round."""
    return [
        result_service.match_sheet(uow, match_id=m.id or 0) for m in uow.rounds.matches_of_round(round_id)
    ]


def results_overview(uow: UnitOfWork, *, slug: str) -> ResultsOverview:
    """Each stage's rounds with their missing results, its warnings, its pools and its withdrawals."""
    event = event_by_slug(uow, slug)
    stages = []
    for stage in uow.events.stages_of_event(event.id or 0):
        rounds = []
        for rnd in uow.rounds.rounds_of_stage(stage.id or 0):
            sheets = sheets_of_round(uow, round_id=rnd.id or 0)
            missing = sum(1 for s in sheets for b in s.boards if b.result == "*" and not s.forfeit)
            rounds.append(RoundResults(rnd, len(sheets), missing))
        warnings = standings_service.stage_warnings(uow, stage_id=stage.id or 0)
        pools = tuple(uow.rounds.pools_in_letter_order(stage.id or 0))
        changes = tuple(late_change_service.late_changes(uow, stage_id=stage.id or 0, shown=True))
        desk = None
        if stage.kind == StageKind.POOLS.value:
            desk = withdrawal_service.withdrawal_desk(uow, stage_id=stage.id or 0)
        stages.append(StageResults(stage, tuple(rounds), tuple(warnings), pools, changes, desk))
    return ResultsOverview(event, tuple(stages))


# --- closing a stage ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ClosingPool:
    pool: Pool
    table: Standings
    data: PoolRecords
    stored: dict[int, Standing]
    ties: tuple[TieLot, ...] = ()  # teams still tied after the chain, each group with its lot (if any)


@dataclass(frozen=True, slots=True)
class ClosingView:
    event: Event
    stage: Stage
    refusals: tuple[str, ...]
    warnings: tuple[str, ...]
    pools: tuple[ClosingPool, ...]
    late_changes: tuple[late_change_service.LateChangeView, ...] = ()

    @property
    def lots_to_draw(self) -> bool:
        """A group still tied whose lot is not drawn yet (closing draws it, or commits it first)."""
        return any(not tie.drawn for pool in self.pools for tie in pool.ties)


def closing_view(uow: UnitOfWork, *, stage_id: int, with_pools: bool = True) -> ClosingView:
    """What stops a stage from closing, its warnings and each pool's standings as they would be stored;
    ``with_pools=False`` gives only the refusals (the page shown when closing was refused)."""
    stage = uow.events.get_or_raise(Stage, stage_id)
    event = uow.events.event_of_stage(stage)
    problems = standings_service.closing_problems(uow, stage_id=stage_id)
    if not with_pools:
        return ClosingView(event, stage, tuple(problems), (), ())
    warnings = standings_service.stage_warnings(uow, stage_id=stage_id)
    pools = []
    for pool in uow.rounds.pools_in_letter_order(stage_id):
        data = standings_service.pool_records(uow, pool_id=pool.id or 0)
        table = standings_service.pool_standings(uow, pool_id=pool.id or 0)
        stored = {row.team_id: row for row in uow.rounds.standings_of_pool(pool.id or 0)}
        ties = standings_service.pool_tie_lots(uow, data)
        pools.append(ClosingPool(pool, table, data, stored, ties))
    changes = tuple(late_change_service.late_changes(uow, stage_id=stage_id, shown=True))
    return ClosingView(event, stage, tuple(problems), tuple(warnings), tuple(pools), changes)


# --- audit log, appeals, fair play ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AuditView:
    event: Event
    entries: tuple[AuditLog, ...]
    match_id: int | None


def audit_view(uow: UnitOfWork, *, slug: str, match_id: int | None = None) -> AuditView:
    """The event's audit log, or only one match's entries (and its boards')."""
    event = event_by_slug(uow, slug)
    board_ids = None
    if match_id is not None:
        board_ids = [b.id or 0 for b in uow.boards.for_match(match_id)]
    entries = tuple(uow.audit.entries(event_id=event.id, board_ids=board_ids, match_id=match_id))
    return AuditView(event, entries, match_id)


@dataclass(frozen=True, slots=True)
class AppealsView:
    event: Event
    appeals: tuple[AppealView, ...]
    labels: dict[int, str]  # match id -> "Round n: first – second"


def appeals_view(uow: UnitOfWork, *, slug: str) -> AppealsView:
    event = event_by_slug(uow, slug)
    appeals = appeal_service.event_appeals(uow, event_id=event.id or 0)
    labels = {}
    for appeal in appeals:
        sheet = result_service.match_sheet(uow, match_id=appeal.match_id)
        labels[appeal.match_id] = f"Round {sheet.round_number}: {sheet.first_team} – {sheet.second_team}"
    return AppealsView(event, tuple(appeals), labels)


@dataclass(frozen=True, slots=True)
class Annulled:
    player: str
    reason: str
    by: str
    at: datetime


@dataclass(frozen=True, slots=True)
class FairPlayView:
    event: Event
    annulments: tuple[Annulled, ...]
    players: tuple[tuple[int, str], ...]  # (player id, "Name (Team)") of everyone who played, by name


def fair_play_view(uow: UnitOfWork, *, slug: str) -> FairPlayView:
    event = event_by_slug(uow, slug)
    annulments = tuple(
        Annulled(p.name, a.reason, a.annulled_by, a.annulled_at)
        for a, p in uow.teams.annulments_of_event(event.id or 0)
    )
    return FairPlayView(event, annulments, _players_of_event(uow, event.id or 0))


def _players_of_event(uow: UnitOfWork, event_id: int) -> tuple[tuple[int, str], ...]:
    stages = uow.events.stages_of_event(event_id)
    team_ids: set[int] = set()
    for stage in stages:
        for pool in uow.rounds.pools_in_letter_order(stage.id or 0):
            team_ids.update(t.team_id for t in uow.rounds.teams_of_pool(pool.id or 0))
    teams = uow.teams.teams_by_id(team_ids)
    matches = [m for ms in (uow.rounds.matches_of_stage(s.id or 0) for s in stages) for m in ms]
    player_ids = {
        pid
        for match_boards in uow.boards.boards_by_match(m.id or 0 for m in matches).values()
        for b in match_boards
        for pid in (b.white_player_id, b.black_player_id)
    }
    players = uow.teams.players_by_id(player_ids)
    return tuple(
        sorted(
            ((pid, f"{p.name} ({_team_name(teams, p)})") for pid, p in players.items()), key=lambda x: x[1]
        )
    )


def _team_name(teams: dict[int, Team], player: Player) -> str:
    team = teams.get(player.team_id)
    return team.name if team else str(player.team_id)
