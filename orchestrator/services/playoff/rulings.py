"""Forfeits, withdrawals and staff rulings in the play-off (docs/rules.md §2, §5)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from orchestrator.adapters.tables import Duel, DuelStatus, Event, Match, MatchStatus, Round, Team
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.scoring import GameResult, MatchForfeit
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services import live
from orchestrator.services.playoff._context import load_duel
from orchestrator.services.playoff.commands import advance_bracket
from orchestrator.services.playoff.storage import ARMAGEDDON_LEG
from orchestrator.translation import gettext as _


def forfeit_match(
    uow: UnitOfWork, *, match_id: int, absent_team_id: int, actor: str, reason: str = ""
) -> None:
    """A team did not play a match: it loses it 0–6 by forfeit (docs/rules.md §2, §5)."""
    match = uow.rounds.get_or_raise(Match, match_id)
    if absent_team_id not in (match.first_team_id, match.second_team_id):
        raise ValidationFailed(
            [_("team %(team)s does not play match %(match)s") % {"team": absent_team_id, "match": match_id}]
        )
    if match.leg == ARMAGEDDON_LEG:
        raise Conflict(_("Record an Armageddon forfeit as the game's result (+/- or -/+)."))
    if match.duel_id is not None:
        duel = uow.playoff.get_or_raise(Duel, match.duel_id)
        if duel.status == DuelStatus.DECIDED.value:
            raise Conflict(
                _(
                    "Duel %(duel)s is already decided: a forfeit cannot change it. Correct a "
                    "result or record a ruling instead (docs/playoff.md)."
                )
                % {"duel": duel.key}
            )
    code = MatchForfeit.B_WINS if absent_team_id == match.first_team_id else MatchForfeit.A_WINS
    old = match.forfeit
    match.forfeit = code.value
    match.status = MatchStatus.FINISHED.value
    match.finished_at = match.finished_at or utcnow()
    uow.rounds.add(match)
    stage_event = uow.events.event_and_stage(uow.rounds.get_or_raise(Round, match.round_id).stage_id)[0]
    uow.audit.change(
        match,
        "match.forfeit",
        actor=actor,
        event_id=stage_event.id,
        old={"forfeit": old},
        new={"forfeit": code.value, "absent_team_id": absent_team_id},
        reason=reason or None,
    )
    live.announce(uow, f"match:{match_id}", match_id=match_id)
    if match.duel_id is not None:
        duel = uow.playoff.get_or_raise(Duel, match.duel_id)
        advance_bracket(uow, stage_id=duel.stage_id, actor=actor)


def withdraw_team(
    uow: UnitOfWork, *, team_id: int, actor: str, reason: str, now: datetime | None = None
) -> None:
    """A team withdraws: it loses its remaining matches, and the bracket moves on (docs/rules.md §5)."""
    now = now or utcnow()
    if not reason.strip():
        raise ValidationFailed([_("reason: say why the team withdraws")])
    team = uow.teams.get_or_raise(Team, team_id)
    if team.withdrawn_at is not None:
        raise Conflict(_("%(team)s has already withdrawn.") % {"team": team.name})
    team.withdrawn_at = now
    uow.teams.add(team)
    uow.audit.change(team, "team.withdraw", actor=actor, event_id=team.event_id, reason=reason)
    for stage in uow.events.knockout_stages(team.event_id):
        for duel in uow.playoff.duels_of_stage(stage.id or 0):
            if team_id not in (duel.first_team_id, duel.second_team_id):
                continue
            if duel.status == DuelStatus.DECIDED.value:
                continue
            duel.outcome = {**(duel.outcome or {}), "withdrawn_team_id": team_id}
            uow.playoff.add(duel)
            # Its unplayed matches are lost 0–6; finished ones keep their results.
            for match in uow.playoff.matches_of_duels([duel.id])[duel.id or 0]:
                boards = uow.boards.boards_of_matches([match.id])[match.id or 0]
                if match.leg == ARMAGEDDON_LEG or match.forfeit != MatchForfeit.NONE.value:
                    continue
                if boards and all(GameResult(b.result).is_final for b in boards):
                    continue
                code = MatchForfeit.B_WINS if team_id == match.first_team_id else MatchForfeit.A_WINS
                match.forfeit = code.value
                match.status = MatchStatus.FINISHED.value
                uow.rounds.add(match)
        uow.flush()
        advance_bracket(uow, stage_id=stage.id or 0, actor=actor, now=now)
        live.announce(uow, f"event:{uow.events.get_or_raise(Event, team.event_id).slug}", team_id=team_id)


def record_ruling(
    uow: UnitOfWork, *, duel_id: int, winner_team_ids: Sequence[int], reason: str, actor: str
) -> None:
    """Staff record an exceptional outcome with a reason; both teams = joint winners (2020 final)."""
    ctx, duel = load_duel(uow, duel_id, lock=True)
    teams = {duel.first_team_id, duel.second_team_id}
    problems = []
    if not reason.strip():
        problems.append(_("reason: an exceptional outcome needs a reason"))
    if not winner_team_ids or not set(winner_team_ids) <= teams or None in teams:
        problems.append(_("winners: name one or both teams of the duel"))
    if problems:
        raise ValidationFailed(problems)
    old = duel.outcome
    ruling = {"winner_team_ids": sorted(set(winner_team_ids)), "reason": reason.strip()}
    duel.outcome = {**(duel.outcome or {}), "ruling": ruling}
    uow.playoff.add(duel)
    uow.audit.change(
        duel,
        "duel.ruling",
        actor=actor,
        event_id=ctx.event.id,
        old=old,
        new=duel.outcome,
        reason=reason.strip(),
    )
    uow.flush()
    advance_bracket(uow, stage_id=duel.stage_id, actor=actor)
    live.announce(uow, f"duel:{duel_id}", duel_id=duel_id)
