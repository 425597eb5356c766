"""Appeals after a match (docs/rules.md §6): standings stay provisional and the stage cannot close while
one is open.

Deciding an appeal records the decision and, for a duel's match, moves the bracket on in the same
transaction (``playoff.sync.advance_after_match``, as recording a result does); when it is upheld, the
committee's changed results are entered with ``results.record_result`` (or ``correct_result`` on a
closed stage) like any other change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from orchestrator.adapters.tables import Appeal, AppealStatus, Match, Stage, StageStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.errors import Conflict, NotFound, ValidationFailed
from orchestrator.services import live
from orchestrator.services.audit_trail import flush_and_audit
from orchestrator.services.playoff.sync import advance_after_match
from orchestrator.services.results import late_changes
from orchestrator.services.results import standings as standings_service
from orchestrator.services.row_views import row_view
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class AppealView:
    appeal_id: int
    match_id: int
    team_id: int | None
    status: str
    grounds: str
    opened_by: str
    opened_at: datetime
    deadline_at: datetime
    decision: str | None
    decided_by: str | None
    decided_at: datetime | None

    @classmethod
    def of(cls, appeal: Appeal) -> AppealView:
        return row_view(cls, appeal, appeal_id=appeal.id or 0)


def _refresh(uow: UnitOfWork, match: Match, stage: Stage, *, actor: str) -> None:
    if match.pool_id is not None:
        standings_service.recompute_pool(uow, pool_id=match.pool_id, actor=actor)
    late_changes.review_after_match(uow, match=match, stage=stage, actor=actor, cause="appeal")
    if match.duel_id is not None:
        live.announce(uow, f"duel:{match.duel_id}", kind="appeal")
    live.announce(uow, f"match:{match.id}", kind="appeal")
    event = uow.events.event_of_stage(stage)
    live.announce(uow, f"event:{event.slug}", kind="appeal", match_id=match.id)


def open_appeal(
    uow: UnitOfWork,
    *,
    match_id: int,
    actor: str,
    grounds: str = "",
    team_id: int | None = None,
    deadline_minutes: int | None = None,
    now: datetime | None = None,
) -> AppealView:
    """Open an appeal on a match; the committee's deadline defaults to the event's appeal window (15 min)."""
    match = uow.rounds.get_or_raise(Match, match_id)
    stage = uow.rounds.stage_of_match(match)
    if stage.status == StageStatus.CLOSED.value:
        raise Conflict(
            _("Stage %(stage)s is closed: a late change is a correction, with a reason.")
            % {"stage": stage.name}
        )
    if team_id is not None and team_id not in (match.first_team_id, match.second_team_id):
        raise ValidationFailed(
            [_("team %(team)s does not play match %(match)s") % {"team": team_id, "match": match_id}]
        )
    if deadline_minutes is None:
        event = uow.events.event_of_stage(stage)
        deadline_minutes = standings_service.event_rules(event).appeal_window_minutes
    if deadline_minutes < 0:
        raise ValidationFailed([_("the deadline cannot be in the past")])
    now = now or utcnow()
    appeal = uow.rounds.insert(
        Appeal(
            match_id=match_id,
            team_id=team_id,
            opened_by=actor,
            grounds=grounds.strip(),
            opened_at=now,
            deadline_at=now + timedelta(minutes=deadline_minutes),
        )
    )
    uow.audit.change(
        appeal,
        "appeal.open",
        actor=actor,
        event_id=stage.event_id,
        new={"match_id": match_id, "team_id": team_id, "deadline_at": appeal.deadline_at.isoformat()},
        reason=appeal.grounds or None,
    )
    _refresh(uow, match, stage, actor=actor)
    return AppealView.of(appeal)


def decide_appeal(uow: UnitOfWork, *, appeal_id: int, decision: str, upheld: bool, actor: str) -> AppealView:
    """Record the committee's decision; the pool's standings are stored again, or a duel's bracket moves
    on (an open appeal kept the duel provisional, docs/rules.md §6)."""
    appeal = uow.rounds.get(Appeal, appeal_id)
    if appeal is None:
        raise NotFound(_("appeal %(appeal)s does not exist") % {"appeal": appeal_id})
    if appeal.status != AppealStatus.OPEN.value:
        raise Conflict(
            _("appeal %(appeal)s was already decided (%(status)s by %(by)s)")
            % {"appeal": appeal_id, "status": appeal.status, "by": appeal.decided_by}
        )
    if not decision.strip():
        raise ValidationFailed([_("write the decision (it is kept in the audit log)")])
    match = uow.rounds.get_or_raise(Match, appeal.match_id)
    stage = uow.rounds.stage_of_match(match)
    if match.pool_id is not None:
        uow.locks.lock_pool(match.pool_id)
    appeal.status = (AppealStatus.UPHELD if upheld else AppealStatus.REJECTED).value
    appeal.decision = decision.strip()
    appeal.decided_by = actor
    appeal.decided_at = utcnow()
    uow.rounds.add(appeal)
    flush_and_audit(
        uow,
        appeal,
        "appeal.decide",
        actor=actor,
        event_id=stage.event_id,
        old={"status": AppealStatus.OPEN.value},
        new={"status": appeal.status},
        reason=appeal.decision,
    )
    _refresh(uow, match, stage, actor=actor)
    if match.duel_id is not None and stage.status != StageStatus.CLOSED.value:
        # The duel was provisional while the appeal was open: the bracket moves on now, as after a result.
        advance_after_match(uow, match_id=match.id or 0, actor=actor)
    return AppealView.of(appeal)


def event_appeals(uow: UnitOfWork, *, event_id: int) -> list[AppealView]:
    return [AppealView.of(a) for a in uow.rounds.appeals_of_event(event_id)]
