"""A team withdraws from a running pool stage (docs/rules.md §6, "Withdrawals").

- The team loses every *remaining* match of the stage by forfeit, 0 to the number of boards: a match
  without a final result at the time (not every board final and not already forfeited), whatever round it
  is in. Each goes through ``results.set_match_forfeit``, which audits it (``match.forfeit``), stores the
  pool's standings again and announces the match, pool and event.
- A match complete at the time keeps its result (every board final, or a whole-match forfeit already
  recorded).
- The withdrawal is stored on the team's pool entry (when, by whom, the first round it forfeits) and in one
  audit row ``team.withdraw`` with the reason; a second withdrawal of the same team is refused, saying
  when and by whom the first was recorded.
- "Remaining" is decided under the pool's lock, so a result saved at the same moment is either in (the
  match keeps it) or waits for the withdrawal to commit.
- The team withdraws from the event as well (``team.withdrawn_at``, the flag the play-off honours). It
  keeps its place in the stage's standings, as its results give, but qualifies for no later stage: the
  qualifying places pass to the next-placed teams still in (``pool_draft.final_places``).

A withdrawal from the play-off is ``playoff.rulings.withdraw_team`` (docs/knockout.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from orchestrator.adapters.repo_rounds import StageEntry
from orchestrator.adapters.tables import Stage, StageKind, StageStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.scoring import GameResult, MatchForfeit
from orchestrator.errors import Conflict, NotFound, ValidationFailed
from orchestrator.services import live, times
from orchestrator.services.definitions import event_zone
from orchestrator.services.results import results as result_service
from orchestrator.services.results.standings import match_is_complete
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class RemainingMatch:
    """A match the withdrawing team would lose by forfeit."""

    match_id: int
    round_number: int
    opponent: str
    forfeit: str  # the MatchForfeit code that gives the opponent the match
    boards_final: int  # boards already decided: the forfeit replaces them in the match score


@dataclass(frozen=True, slots=True)
class WithdrawalPlan:
    """What a team's withdrawal from a stage forfeits, or when it withdrew (``withdrawn_at`` set)."""

    stage_id: int
    stage_name: str
    team_id: int
    team_name: str
    pool_id: int
    pool_letter: str
    remaining: tuple[RemainingMatch, ...]
    complete: int  # matches that keep their results
    withdrawn_at: datetime | None = None
    withdrawn_by: str | None = None
    withdrawn_round: int | None = None

    @property
    def first_round(self) -> int | None:
        """The round the withdrawal starts from: the earliest round of a match it forfeits."""
        return min((m.round_number for m in self.remaining), default=None)


@dataclass(frozen=True, slots=True)
class DeskTeam:
    team_id: int
    name: str
    pool_letter: str
    withdrawn_round: int | None
    withdrawn_at: datetime | None
    withdrawn_by: str | None


@dataclass(frozen=True, slots=True)
class WithdrawalDesk:
    """The staff page of a stage's withdrawals: its teams, and why none may withdraw now (``refusal``)."""

    stage_id: int
    stage_name: str
    event_id: int
    teams: tuple[DeskTeam, ...]
    refusal: str | None

    @property
    def withdrawn(self) -> tuple[DeskTeam, ...]:
        return tuple(t for t in self.teams if t.withdrawn_at is not None)

    @property
    def in_play(self) -> tuple[DeskTeam, ...]:
        return tuple(t for t in self.teams if t.withdrawn_at is None)


def _stage(uow: UnitOfWork, stage_id: int) -> Stage:
    stage = uow.events.get(Stage, stage_id)
    if stage is None:
        raise NotFound(_("stage %(stage)s does not exist") % {"stage": stage_id})
    return stage


def _refusal(stage: Stage) -> str | None:
    """Why no team may withdraw from this stage now, or None."""
    if stage.kind == StageKind.SWISS.value:
        return _("%(stage)s is a Swiss stage: record a withdrawal on its Swiss round desk.") % {
            "stage": stage.name
        }
    if stage.kind != StageKind.POOLS.value:
        return _("%(stage)s is a play-off stage: record a withdrawal on its play-off desk.") % {
            "stage": stage.name
        }
    if stage.status == StageStatus.CLOSED.value:
        return _("%(stage)s is closed: its results are final.") % {"stage": stage.name}
    if stage.status != StageStatus.RUNNING.value:
        return _("%(stage)s has not started: change the pools instead.") % {"stage": stage.name}
    return None


def _entry(uow: UnitOfWork, stage: Stage, team_id: int) -> StageEntry:
    found = next((e for e in uow.rounds.entries_of_stage(stage.id or 0) if e.team.id == team_id), None)
    if found is None:
        raise ValidationFailed(
            [_("team %(team)s does not play in %(stage)s") % {"team": team_id, "stage": stage.name}]
        )
    return found


def _plan(uow: UnitOfWork, stage: Stage, found: StageEntry) -> WithdrawalPlan:
    team_id = found.team.id or 0
    matches, boards = uow.rounds.matches_and_boards_of_pool(found.entry.pool_id)
    own = [m for m in matches if team_id in (m.match.first_team_id, m.match.second_team_id)]
    opponents = uow.teams.teams_by_id(
        m.match.second_team_id if m.match.first_team_id == team_id else m.match.first_team_id for m in own
    )
    remaining: list[RemainingMatch] = []
    for item in own:
        match = item.match
        match_boards = boards.get(match.id or 0, [])
        if match_is_complete(match, match_boards):
            continue
        first = match.first_team_id == team_id
        opponent = opponents[match.second_team_id if first else match.first_team_id]
        remaining.append(
            RemainingMatch(
                match_id=match.id or 0,
                round_number=item.round_number,
                opponent=opponent.name,
                forfeit=(MatchForfeit.B_WINS if first else MatchForfeit.A_WINS).value,
                boards_final=sum(1 for b in match_boards if GameResult(b.result).is_final),
            )
        )
    entry = found.entry
    return WithdrawalPlan(
        stage_id=stage.id or 0,
        stage_name=stage.name,
        team_id=team_id,
        team_name=found.team.name,
        pool_id=entry.pool_id,
        pool_letter=found.letter,
        remaining=tuple(remaining),
        complete=len(own) - len(remaining),
        withdrawn_at=entry.withdrawn_at,
        withdrawn_by=entry.withdrawn_by,
        withdrawn_round=entry.withdrawn_round,
    )


def withdrawal_plan(uow: UnitOfWork, *, stage_id: int, team_id: int) -> WithdrawalPlan:
    """What withdrawing ``team_id`` from the stage would forfeit now (nothing is changed)."""
    stage = _stage(uow, stage_id)
    return _plan(uow, stage, _entry(uow, stage, team_id))


def withdrawal_desk(uow: UnitOfWork, *, stage_id: int) -> WithdrawalDesk:
    """A stage's teams with their withdrawals, for the staff page and the results overview."""
    stage = _stage(uow, stage_id)
    teams = tuple(
        DeskTeam(
            team_id=e.team.id or 0,
            name=e.team.name,
            pool_letter=e.letter,
            withdrawn_round=e.entry.withdrawn_round,
            withdrawn_at=e.entry.withdrawn_at,
            withdrawn_by=e.entry.withdrawn_by,
        )
        for e in uow.rounds.entries_of_stage(stage_id)
    )
    return WithdrawalDesk(stage_id, stage.name, stage.event_id, teams, _refusal(stage))


def _already(plan: WithdrawalPlan, zone: str | None) -> Conflict:
    """A second withdrawal of the team, refused; ``zone``: the event's, for the time of the first."""
    at = times.said(plan.withdrawn_at, zone) if plan.withdrawn_at else _("earlier")
    return Conflict(
        _("%(team)s already withdrew from %(stage)s (from round %(round)s): recorded by %(by)s on %(at)s.")
        % {
            "team": plan.team_name,
            "stage": plan.stage_name,
            "round": plan.withdrawn_round,
            "by": plan.withdrawn_by,
            "at": at,
        }
    )


def withdraw_from_pool_stage(
    uow: UnitOfWork, *, stage_id: int, team_id: int, reason: str, actor: str, now: datetime | None = None
) -> WithdrawalPlan:
    """The team withdraws from the running pool stage and loses its remaining matches by forfeit (module
    docstring); returns the matches forfeited and the withdrawal as stored."""
    reason = reason.strip()
    if not reason:
        raise ValidationFailed([_("reason: say why the team withdraws (it goes to the audit log)")])
    stage = _stage(uow, stage_id)
    found = _entry(uow, stage, team_id)
    uow.locks.lock_pool(found.entry.pool_id)  # rows read before are read again under the lock
    if (refusal := _refusal(stage)) is not None:
        raise Conflict(refusal)
    plan = _plan(uow, stage, found)
    if plan.withdrawn_at is not None:
        raise _already(plan, event_zone(uow.events.event_of_stage(stage)))
    if plan.first_round is None:
        raise Conflict(
            _("Every match of %(team)s in %(stage)s already has a result: there is nothing left to forfeit.")
            % {"team": plan.team_name, "stage": plan.stage_name}
        )
    plan = replace(plan, withdrawn_at=now or utcnow(), withdrawn_by=actor, withdrawn_round=plan.first_round)
    entry = found.entry
    entry.withdrawn_at, entry.withdrawn_by = plan.withdrawn_at, plan.withdrawn_by
    entry.withdrawn_round = plan.withdrawn_round
    uow.rounds.add(entry)
    if found.team.withdrawn_at is None:  # it leaves the event too: no later stage takes it
        found.team.withdrawn_at = plan.withdrawn_at
        uow.teams.add(found.team)
    uow.audit.record(
        actor=actor,
        action="team.withdraw",
        entity="team",
        entity_id=team_id,
        event_id=stage.event_id,
        new={
            "stage_id": plan.stage_id,
            "pool_id": plan.pool_id,
            "round": plan.first_round,
            "forfeited_match_ids": [m.match_id for m in plan.remaining],
        },
        reason=reason,
    )
    for match in plan.remaining:
        result_service.set_match_forfeit(
            uow,
            match_id=match.match_id,
            forfeit=match.forfeit,
            actor=actor,
            reason=f"{plan.team_name} withdrew: {reason}",
        )
    for topic in (f"pool:{plan.pool_id}", f"stage:{plan.stage_id}"):
        live.announce(uow, topic, kind="withdrawal", team_id=team_id)
    return plan
