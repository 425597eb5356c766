"""Bonus and penalty points on the Swiss desk (docs/swiss.md, "Bonus and penalty points"): the arbiter
gives a team of a running Swiss stage match points and game points, or takes them away, from the standings
after a round on, with a reason. The points are TRF-2026 record 299 with a blank type: they count in the
standings after that round and in the pairing of the next round on (round 0: from the start), or, for the
standings only, never in a pairing (services/results/adjustments.py). The change is audited and appended
to the event's public record (``swiss.adjustment``, docs/record.md) and the stage's standings are computed
again. A draft pairing made without points that count in it (a round after theirs) is discarded, as a team
operation discards one (services/swiss/entries.py): pair the round again.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from orchestrator.adapters.tables import RoundStatus, ScoreAdjustment, Team
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import ValidationFailed
from orchestrator.services.audit_trail import flush_and_audit
from orchestrator.services.results.standings import recompute_pool
from orchestrator.services.swiss.entries import _discard_draft
from orchestrator.services.swiss.state import running_swiss_stage
from orchestrator.translation import gettext as _

MAX_POINTS = 1000  # what one adjustment may add or take, in match points or game points


@dataclass(frozen=True, slots=True)
class AdjustmentGiven:
    """The adjustment stored: its id, team, round and points (game half-points)."""

    id: int
    team_id: int
    team: str
    after_round: int
    standings_only: bool
    mp: int
    gp_half: int
    discarded_draft: int | None = None  # the round whose draft pairing was discarded

    @property
    def message(self) -> str:
        points = {"team": self.team, "mp": self.mp, "gp": str(Fraction(self.gp_half, 2))}
        if self.standings_only:
            said = _("%(team)s: %(mp)s MP and %(gp)s GP in the standings only.") % points
        else:
            said = _("%(team)s: %(mp)s MP and %(gp)s GP from the standings after round %(round)s on.") % {
                **points,
                "round": self.after_round,
            }
        if self.discarded_draft is not None:
            said += " " + _("The draft pairing of round %(round)s was discarded: pair it again.") % {
                "round": self.discarded_draft
            }
        return said


def described(row: ScoreAdjustment, *, team: str, stage: str) -> dict[str, object]:
    """What the audit entry and the public record (``swiss.adjustment``, docs/record.md) say of an
    adjustment, given at the desk or imported from a file."""
    return {
        "team": team,
        "stage": stage,
        "after_round": row.after_round,
        "standings_only": row.standings_only,
        "match_points": row.mp,
        "game_points": str(Fraction(row.gp_half, 2)),
        "reason": row.reason,
    }


def give_adjustment(
    uow: UnitOfWork,
    *,
    stage_id: int,
    team_id: int,
    after_round: int,
    mp: int,
    gp_half: int,
    reason: str,
    actor: str,
    standings_only: bool = False,
) -> AdjustmentGiven:
    """Store ``mp`` match points and ``gp_half`` game half-points for a team of the stage (module docstring);
    ValidationFailed with every problem of the input, Conflict for a stage that is not running."""
    rows = running_swiss_stage(uow, stage_id, what=_("its points can no longer be adjusted"))
    entries = {entry.team_id for entry in uow.rounds.entries_of_pool(rows.pool.id or 0)}
    problems: list[str] = []
    team = uow.teams.get(Team, team_id)
    if team is None or team_id not in entries:
        problems.append(_("team_id: the team does not play in %(stage)s") % {"stage": rows.stage.name})
    if not 0 <= after_round <= rows.round_count:
        problems.append(
            _("after_round: give a round from 0 (from the start) to %(last)s") % {"last": rows.round_count}
        )
    if mp == 0 and gp_half == 0:
        problems.append(_("match_points: give match points or game points to add or take away"))
    if abs(mp) > MAX_POINTS or abs(gp_half) > 2 * MAX_POINTS:
        problems.append(_("match_points: at most %(max)s points either way") % {"max": MAX_POINTS})
    if not reason.strip():
        problems.append(_("reason: say why (spectators read it beside the team)"))
    if problems or team is None:
        raise ValidationFailed(problems)
    row = ScoreAdjustment(
        stage_id=stage_id,
        team_id=team_id,
        after_round=0 if standings_only else after_round,
        standings_only=standings_only,
        mp=mp,
        gp_half=gp_half,
        reason=reason.strip(),
        recorded_by=actor,
    )
    uow.adjustments.add(row)
    flush_and_audit(
        uow,
        row,
        "swiss.adjustment",
        actor=actor,
        event_id=rows.event.id,
        new=described(row, team=team.name, stage=rows.stage.name),
        reason=row.reason,
    )
    discarded = None
    for rnd in rows.rounds:
        if not standings_only and rnd.number > row.after_round and rnd.status == RoundStatus.DRAFT.value:
            why = f"{team.name}: points adjusted from the standings after round {row.after_round}"
            discarded = _discard_draft(uow, rnd, actor=actor, event_id=rows.event.id, why=why)
    recompute_pool(uow, pool_id=rows.pool.id or 0, actor=actor)
    return AdjustmentGiven(
        row.id or 0, team_id, team.name, row.after_round, standings_only, mp, gp_half, discarded
    )
