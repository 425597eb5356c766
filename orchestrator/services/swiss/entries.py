"""Staff operations on the teams of a running Swiss stage (docs/swiss.md, "The server"), each in the
caller's unit of work, audited and announced.

The "next round" of each operation is the first round not yet published. A draft pairing of that round
(``RoundStatus.DRAFT``) was made without the change: it is discarded (the round is unpaired again) and the
returned ``TeamChange`` says so; staff pair it again.

- ``withdraw_team``: the team is no longer paired from the next round on (``pool_entry.withdrawn_*``); its
  results so far stand, and it withdraws from the event (``team.withdrawn_at``, as a pool withdrawal
  does), so it qualifies for no later stage. Its match in a round already published that has not started
  (no game created, no result, no forfeit) is forfeited for the opponent (``results.set_match_forfeit``,
  docs/rules.md §2); a match that has started is left to staff, and the answer says which.
- ``add_late_entry``: a team of the event not in the stage (added to the event with the roster import,
  docs/staff-guide.md) joins from the next round with the next team pairing number (C.04.6 art. 1.1.3);
  it scores nothing for the rounds before.
- ``mark_absent``: the team is not paired in a round not yet published (it scores nothing for it); refused
  for a team that has withdrawn. ``mark_present`` undoes it while the round is still not published.
- ``end_swiss_early``: the rounds after the last complete one, none of which may have started, are
  cancelled (their unstarted matches and bye deleted); the stage is closed, so the standings after the
  last complete round become final (``results.standings.close_stage``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from orchestrator.adapters.tables import (
    PoolEntry,
    Round,
    RoundStatus,
    SwissRoundRole,
    SwissRoundTeam,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.scoring import GameResult, MatchForfeit
from orchestrator.domain.swiss import SwissError, SwissState, SwissTeam
from orchestrator.domain.swiss import add_late_entry as domain_late_entry
from orchestrator.domain.swiss import mark_absent as domain_absent
from orchestrator.domain.swiss import withdraw_team as domain_withdraw
from orchestrator.domain.swiss.simulate import swiss_team
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services import live
from orchestrator.services.audit_trail import flush_and_audit
from orchestrator.services.results.results import set_match_forfeit
from orchestrator.services.results.standings import ClosedStage, close_stage
from orchestrator.services.setup.event_setup import event_field
from orchestrator.services.swiss.state import (
    PUBLISHED_ROUNDS,
    SwissStage,
    running_swiss_stage,
    swiss_state_of,
)
from orchestrator.translation import gettext as _


@dataclass(frozen=True, slots=True)
class TeamChange:
    """What an operation on a team did: the team, the round it applies from, and the draft discarded."""

    team_id: int
    team: str
    round_no: int
    discarded_draft: int | None = None  # the round whose draft pairing was discarded
    forfeited: tuple[str, ...] = ()  # a withdrawal: its unstarted published matches, forfeited
    left_to_staff: tuple[str, ...] = ()  # a withdrawal: its started published matches, not touched

    @property
    def message(self) -> str:
        parts = []
        if self.discarded_draft is not None:
            parts.append(
                _("The draft pairing of round %(round)s was discarded: pair it again.")
                % {"round": self.discarded_draft}
            )
        if self.forfeited:
            parts.append(
                _("Forfeited for the opponent (not started): %(matches)s.")
                % {"matches": "; ".join(self.forfeited)}
            )
        if self.left_to_staff:
            parts.append(
                _("Already started, left to you (finish it or forfeit it on the match sheet): %(matches)s.")
                % {"matches": "; ".join(self.left_to_staff)}
            )
        return " ".join(parts)


def _next_round(rows: SwissStage) -> Round:
    rnd = next(
        (r for r in rows.rounds if r.status in (RoundStatus.UNPAIRED.value, RoundStatus.DRAFT.value)), None
    )
    if rnd is None:
        raise Conflict(
            _("Every round of %(stage)s is published: there is no round left to change")
            % {"stage": rows.stage.name}
        )
    return rnd


def _discard_draft(uow: UnitOfWork, rnd: Round, *, actor: str, event_id: int | None, why: str) -> int | None:
    """Unpair a round whose draft the change makes stale; the round's number, or None without a draft."""
    if rnd.status != RoundStatus.DRAFT.value:
        return None
    _drop_draft(uow, rnd, RoundStatus.UNPAIRED)
    uow.audit.change(rnd, "swiss.discard_draft", actor=actor, event_id=event_id, reason=why)
    return rnd.number


def _drop_draft(uow: UnitOfWork, rnd: Round, status: RoundStatus) -> None:
    """Forget the round's stored draft pairing (if any) and give the round ``status``."""
    record = uow.rounds.swiss_pairing_of(rnd.id or 0)
    if record is not None:
        record.draft = None
        uow.rounds.add(record)
    rnd.status = status.value
    uow.rounds.add(rnd)


def _entry(
    uow: UnitOfWork, stage_id: int, team_id: int, *, withdrew: str, **facts: object
) -> tuple[SwissStage, PoolEntry, Team]:
    """The running stage, the team's entry and the team, for a change to a team that still plays; a team
    that withdrew is refused with ``withdrew`` (its ``%(team)s``, ``%(stage)s``, ``%(round)s``, ``%(by)s``
    and the ``facts`` filled in)."""
    rows = running_swiss_stage(uow, stage_id, what=_("its teams can no longer be changed"))
    entry = uow.rounds.entry_of_team(rows.stage.id or 0, team_id)
    team = uow.teams.get(Team, team_id)
    if entry is None or team is None:
        raise ValidationFailed(
            [_("team %(team)s does not play in %(stage)s") % {"team": team_id, "stage": rows.stage.name}]
        )
    if entry.withdrawn_at is not None:
        raise Conflict(
            withdrew
            % {
                "team": team.name,
                "stage": rows.stage.name,
                "round": entry.withdrawn_round,
                "by": entry.withdrawn_by,
                **facts,
            }
        )
    return rows, entry, team


def _announce(uow: UnitOfWork, rows: SwissStage) -> None:
    live.announce(uow, f"stage:{rows.stage.id}", kind="teams")
    live.announce(uow, f"pool:{rows.pool.id}", kind="standings")
    live.announce(uow, f"event:{rows.event.slug}", kind="stage", stage_id=rows.stage.id)


def _allowed(change: Callable[[SwissState], SwissState], uow: UnitOfWork, stage_id: int) -> SwissState:
    """The domain's own check of a change on the stored state (Conflict with its reason)."""
    try:
        return change(swiss_state_of(uow, stage_id, count_unfinished_as_draws=True).state)
    except SwissError as error:
        raise Conflict(str(error)) from None


def _need_reason(reason: str) -> str:
    if not reason.strip():
        raise ValidationFailed([_("reason: say why (it is kept with the audit)")])
    return reason.strip()


def withdraw_team(uow: UnitOfWork, *, stage_id: int, team_id: int, reason: str, actor: str) -> TeamChange:
    """The team is not paired from the next round on (module docstring)."""
    why = _need_reason(reason)
    rows, entry, team = _entry(
        uow,
        stage_id,
        team_id,
        withdrew=_("%(team)s withdrew from %(stage)s already (from round %(round)s, recorded by %(by)s)"),
    )
    rnd = _next_round(rows)
    _allowed(lambda state: domain_withdraw(state, team.name, from_round=rnd.number), uow, stage_id)
    now = utcnow()
    entry.withdrawn_at, entry.withdrawn_by, entry.withdrawn_round = now, actor, rnd.number
    uow.rounds.add(entry)
    if team.withdrawn_at is None:
        team.withdrawn_at = now
        uow.teams.add(team)
    discarded = _discard_draft(
        uow, rnd, actor=actor, event_id=rows.event.id, why=f"{team.name} withdrew from {rows.stage.name}"
    )
    uow.flush()
    forfeited, left = _forfeit_unstarted(uow, rows, team, actor=actor)
    uow.audit.change(
        team,
        "swiss.withdraw",
        actor=actor,
        event_id=rows.event.id,
        new={"from_round": rnd.number, "forfeited": list(forfeited), "left_to_staff": list(left)},
        reason=why,
    )
    _announce(uow, rows)
    return TeamChange(team_id, team.name, rnd.number, discarded, forfeited, left)


def _forfeit_unstarted(
    uow: UnitOfWork, rows: SwissStage, team: Team, *, actor: str
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Forfeit for the opponent each match of ``team`` in a published round that has not started (no game,
    result or forfeit on it); list the started ones, which stay as they are. Returns both, described."""
    forfeited: list[str] = []
    left: list[str] = []
    team_id = team.id or 0
    for rnd in rows.rounds:
        if rnd.status not in PUBLISHED_ROUNDS or rnd.status == RoundStatus.FINISHED.value:
            continue
        for match in uow.rounds.matches_of_round(rnd.id or 0):
            if team_id not in (match.first_team_id, match.second_team_id):
                continue
            if match.forfeit != MatchForfeit.NONE.value:
                continue
            boards = list(uow.boards.for_match(match.id or 0))
            other = uow.teams.get_or_raise(
                Team, match.second_team_id if match.first_team_id == team_id else match.first_team_id
            )
            where = f"round {rnd.number}, table {match.match_no} against {other.name}"
            if all(GameResult(b.result).is_final for b in boards) and boards:
                continue  # played to the end: the result stands
            if any(b.game_id is not None or GameResult(b.result) is not GameResult.PENDING for b in boards):
                left.append(where)
                continue
            code = MatchForfeit.B_WINS if match.first_team_id == team_id else MatchForfeit.A_WINS
            set_match_forfeit(
                uow,
                match_id=match.id or 0,
                forfeit=code.value,
                actor=actor,
                reason=f"{team.name} withdrew from {rows.stage.name} before the match started",
            )
            forfeited.append(where)
    return tuple(forfeited), tuple(left)


def add_late_entry(
    uow: UnitOfWork, *, stage_id: int, team_id: int, reason: str, actor: str, from_round: int | None = None
) -> TeamChange:
    """A team of the event joins the stage from the next round (or the later ``from_round``)."""
    why = _need_reason(reason)
    rows = running_swiss_stage(uow, stage_id, what=_("its teams can no longer be changed"))
    team = uow.teams.get(Team, team_id)
    if team is None or team.event_id != rows.event.id:
        raise ValidationFailed(
            [
                _("team %(team)s is not a team of %(event)s: import it first")
                % {"team": team_id, "event": rows.event.name}
            ]
        )
    if uow.rounds.entry_of_team(stage_id, team_id) is not None:
        raise Conflict(
            _("%(team)s already plays in %(stage)s") % {"team": team.name, "stage": rows.stage.name}
        )
    if team.withdrawn_at is not None:
        raise Conflict(_("%(team)s has withdrawn from the event") % {"team": team.name})
    rnd = _next_round(rows)
    joined = from_round or rnd.number
    if joined < rnd.number:
        raise ValidationFailed(
            [
                _("from_round: round %(published)s is published; choose round %(round)s or later")
                % {"published": rnd.number - 1, "round": rnd.number}
            ]
        )
    field = event_field(uow, rows.event.id or 0)
    base = swiss_team(field.domain[team_id])
    entrant = SwissTeam(base.name, base.ratings, joined=joined)
    state = _allowed(lambda state: domain_late_entry(state, entrant), uow, stage_id)
    if not base.ratings:
        raise ValidationFailed([_("%(team)s has no players: import its roster first") % {"team": team.name}])
    number = len(state.teams)  # the next team pairing number
    uow.rounds.add(
        PoolEntry(pool_id=rows.pool.id or 0, team_id=team_id, pairing_number=number, joined_round=joined)
    )
    target = rows.round(joined)
    discarded = _discard_draft(
        uow, target, actor=actor, event_id=rows.event.id, why=f"{team.name} joined {rows.stage.name}"
    )
    flush_and_audit(
        uow,
        team,
        "swiss.late_entry",
        actor=actor,
        event_id=rows.event.id,
        new={"stage_id": stage_id, "from_round": joined, "pairing_number": number},
        reason=why,
    )
    _announce(uow, rows)
    return TeamChange(team_id, team.name, joined, discarded)


def mark_absent(
    uow: UnitOfWork, *, stage_id: int, team_id: int, round_no: int, reason: str, actor: str
) -> TeamChange:
    """The team is not paired in ``round_no``, a round not yet published."""
    why = _need_reason(reason)
    rows, team, rnd = _absence_of(
        uow,
        stage_id,
        team_id,
        round_no,
        refusal=_("it is not paired any more, so it cannot be marked absent"),
    )
    if rnd.status not in (RoundStatus.UNPAIRED.value, RoundStatus.DRAFT.value):
        raise Conflict(
            _("Round %(round)s is %(status)s: %(team)s can be marked absent only before it is published")
            % {"round": round_no, "status": rnd.status, "team": team.name}
        )
    if uow.rounds.round_team(rnd.id or 0, team_id) is not None:
        raise Conflict(
            _("%(team)s is already marked absent for round %(round)s")
            % {"team": team.name, "round": round_no}
        )
    _allowed(lambda state: domain_absent(state, team.name, round_no=round_no), uow, stage_id)
    uow.rounds.add(
        SwissRoundTeam(
            round_id=rnd.id or 0,
            team_id=team_id,
            role=SwissRoundRole.ABSENT.value,
            reason=why,
            recorded_by=actor,
        )
    )
    return _absence_changed(
        uow, rows, team, rnd, actor=actor, draft_why=f"{team.name} is absent from round {round_no}",
        action="swiss.absent", old=None, reason=why,
    )  # fmt: skip


def mark_present(
    uow: UnitOfWork, *, stage_id: int, team_id: int, round_no: int, reason: str, actor: str
) -> TeamChange:
    """Undo ``mark_absent``: the team is paired in ``round_no`` again (a round not yet published)."""
    why = _need_reason(reason)
    rows, team, rnd = _absence_of(uow, stage_id, team_id, round_no, refusal=_("it cannot be paired again"))
    row = uow.rounds.round_team(rnd.id or 0, team_id)
    if row is None or row.role != SwissRoundRole.ABSENT.value:
        raise Conflict(
            _("%(team)s is not marked absent for round %(round)s") % {"team": team.name, "round": round_no}
        )
    if rnd.status not in (RoundStatus.UNPAIRED.value, RoundStatus.DRAFT.value):
        raise Conflict(
            _("Round %(round)s is %(status)s: its absences can no longer be changed")
            % {"round": round_no, "status": rnd.status}
        )
    uow.rounds.delete(row)
    return _absence_changed(
        uow, rows, team, rnd, actor=actor, draft_why=f"{team.name} plays round {round_no} after all",
        action="swiss.present", old={"absent_round": round_no, "absent_reason": row.reason}, reason=why,
    )  # fmt: skip


def _absence_of(
    uow: UnitOfWork, stage_id: int, team_id: int, round_no: int, *, refusal: str
) -> tuple[SwissStage, Team, Round]:
    """The running stage, the team and round ``round_no`` for an absence change; a team that withdrew is
    refused with ``refusal``."""
    rows, _pool_entry, team = _entry(
        uow,
        stage_id,
        team_id,
        withdrew=_("%(team)s withdrew from %(stage)s (from round %(round)s): %(refusal)s"),
        refusal=refusal,
    )
    return rows, team, rows.round(round_no)


def _absence_changed(
    uow: UnitOfWork,
    rows: SwissStage,
    team: Team,
    rnd: Round,
    *,
    actor: str,
    draft_why: str,
    action: str,
    old: dict[str, Any] | None,
    reason: str,
) -> TeamChange:
    """After an absence is recorded or undone: the round's draft discarded, audited, announced."""
    discarded = _discard_draft(uow, rnd, actor=actor, event_id=rows.event.id, why=draft_why)
    flush_and_audit(
        uow,
        team,
        action,
        actor=actor,
        event_id=rows.event.id,
        old=old,
        new={"round": rnd.number},
        reason=reason,
    )
    _announce(uow, rows)
    return TeamChange(team.id or 0, team.name, rnd.number, discarded)


def end_swiss_early(
    uow: UnitOfWork, *, stage_id: int, reason: str, actor: str, now: datetime | None = None
) -> ClosedStage:
    """Cancel the rounds after the last complete one and close the stage (module docstring); call
    ``raise_refusal()`` on the result after the unit of work."""
    why = _need_reason(reason)
    rows = running_swiss_stage(uow, stage_id, what=_("its teams can no longer be changed"))
    finished = [r.number for r in rows.rounds if r.status == RoundStatus.FINISHED.value]
    last = max(finished, default=0)
    later = [r for r in rows.rounds if r.number > last]
    started = [
        r.number
        for r in later
        if r.status in PUBLISHED_ROUNDS
        and (r.status != RoundStatus.SCHEDULED.value or uow.rounds.round_has_games(r.id or 0))
    ]
    if started:
        raise Conflict(
            _(
                "%(stage)s cannot end early: round %(round)s has started (games, results, "
                "lineups or forfeits exist); finish it, or forfeit its matches, first"
            )
            % {"stage": rows.stage.name, "round": started[0]}
        )
    if last == 0:
        raise Conflict(_("%(stage)s cannot end early: no round is complete yet") % {"stage": rows.stage.name})
    for rnd in later:
        uow.rounds.delete_round_games(rnd.id or 0)
        _drop_draft(uow, rnd, RoundStatus.CANCELLED)
    uow.flush()
    uow.expire_all()
    uow.audit.change(
        rows.stage,
        "swiss.end_early",
        actor=actor,
        event_id=rows.event.id,
        new={"last_round": last, "cancelled": [r.number for r in later]},
        reason=why,
    )
    # A refusal (a tie-break lot committed now) is returned: the caller raises it after the commit.
    return close_stage(uow, stage_id=stage_id, actor=actor, now=now)
