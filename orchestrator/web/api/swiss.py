"""JSON API of a Swiss stage's round desk for staff under /api/v1/swiss (docs/swiss.md, "The server");
the public Swiss stage is in web/api/public.py.

The same use cases as the staff pages (orchestrator/services/swiss/). Errors follow the app's mapping:
422 with every problem, 409 for a step taken out of order or a pairing refused (the message names the
boards or teams), 404.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from fractions import Fraction
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field, field_validator

from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.swiss import adjustments, entries, rounds
from orchestrator.services.swiss.entries import TeamChange
from orchestrator.services.swiss.rounds import RoundView
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import in_unit_of_work

router = APIRouter(prefix="/api/v1/swiss", tags=["Swiss"])

REASON = Field(min_length=1, max_length=2000, description="why (kept with the audit)")


class PairIn(BaseModel):
    count_unfinished_as_draws: bool = Field(
        default=False, description="pair although earlier boards have no result, counting them as draws"
    )


class OverrideIn(BaseModel):
    board: int = Field(ge=1, le=10_000, description="the board (table) of the draft to change")
    first_team_id: int = Field(ge=1, description="the first-named team (White on the odd boards)")
    second_team_id: int = Field(ge=1)
    reason: str = REASON


class ReasonIn(BaseModel):
    reason: str = REASON


class LateEntryIn(BaseModel):
    reason: str = REASON
    from_round: int | None = Field(default=None, ge=1, le=1000, description="default: the next round")


class AbsentIn(BaseModel):
    round: int = Field(ge=1, le=1000)
    reason: str = REASON


class AdjustmentIn(BaseModel):
    """Bonus or penalty points (TRF-2026 record 299; docs/swiss.md, "Bonus and penalty points")."""

    after_round: int = Field(
        default=0, ge=0, le=1000, description="they count from the standings after this round (0: the start)"
    )
    match_points: int = Field(default=0, ge=-1000, le=1000, description="added, or taken away when negative")
    game_points: str = Field(
        default="0", max_length=8, description="added, or taken away: whole or half points (-1.5, 2, 0.5)"
    )
    standings_only: bool = Field(default=False, description="in the standings only, never in a pairing")
    reason: str = Field(min_length=1, max_length=2000, description="why: shown to spectators beside the team")

    @field_validator("game_points")
    @classmethod
    def _half_points(cls, value: str) -> str:
        text = value.strip().replace("½", ".5").replace("\u2212", "-") or "0"
        try:
            points = Fraction(text)
        except (ValueError, ZeroDivisionError):
            raise ValueError("give whole or half game points, like -1.5") from None
        if (2 * points).denominator != 1 or abs(points) > 1000:
            raise ValueError("give whole or half game points, like -1.5")
        return str(points)

    @property
    def gp_half(self) -> int:
        return int(2 * Fraction(self.game_points))


def _give_adjustment(
    request: Request, stage_id: int, team_id: int, body: AdjustmentIn, user: AuthUser
) -> adjustments.AdjustmentGiven:
    """Bonus or penalty points given by ``user`` (services/swiss/adjustments.py)."""
    return in_unit_of_work(
        request,
        adjustments.give_adjustment,
        stage_id=stage_id,
        team_id=team_id,
        after_round=body.after_round,
        mp=body.match_points,
        gp_half=body.gp_half,
        standings_only=body.standings_only,
        reason=body.reason,
        actor=user.username,
    )


def _round(view: RoundView) -> dict[str, Any]:
    return asdict(view)


def _team_change(
    request: Request,
    use_case: Callable[..., TeamChange],
    stage_id: int,
    team_id: int,
    user: AuthUser,
    **details: Any,
) -> dict[str, Any]:
    """A change of one team's entry in the stage (services/swiss/entries.py), answered with its message."""
    change = in_unit_of_work(
        request, use_case, stage_id=stage_id, team_id=team_id, actor=user.username, **details
    )
    return {**asdict(change), "message": change.message}


def _paired(
    request: Request, pairing: Callable[..., RoundView], body: PairIn, user: AuthUser, **where: int
) -> dict[str, Any]:
    """A round paired, or paired again, by ``user`` (services/swiss/rounds.py): the draft to review."""
    draws = body.count_unfinished_as_draws
    view = in_unit_of_work(request, pairing, actor=user.username, count_unfinished_as_draws=draws, **where)
    return _round(view)


@router.post("/stages/{stage_id}/pair-next-round", summary="Pair the next round as a draft for review")
def pair_next_round(
    request: Request, stage_id: int, body: PairIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    return _paired(request, rounds.pair_next_round, body, user, stage_id=stage_id)


@router.get("/stages/{stage_id}/draft", summary="The round in review (404 when none)")
def get_draft(request: Request, stage_id: int, user: AuthUser = require_staff()) -> dict[str, Any]:
    return _round(in_unit_of_work(request, rounds.draft_round, stage_id=stage_id))


@router.get("/rounds/{round_id}", summary="A Swiss round's pairing, draft or published")
def get_round(request: Request, round_id: int, user: AuthUser = require_staff()) -> dict[str, Any]:
    return _round(in_unit_of_work(request, rounds.describe_round, round_id=round_id))


@router.post("/rounds/{round_id}/publish", summary="Publish a draft: matches, boards and bye")
def publish(request: Request, round_id: int, user: AuthUser = require_staff()) -> dict[str, Any]:
    return _round(
        in_unit_of_work(request, rounds.publish_round_pairing, round_id=round_id, actor=user.username)
    )


@router.post("/rounds/{round_id}/re-pair", summary="Pair a draft, or an unstarted round, again")
def re_pair(
    request: Request, round_id: int, body: PairIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    return _paired(request, rounds.repair_round, body, user, round_id=round_id)


@router.post("/rounds/{round_id}/override", summary="Put two teams on a board of the draft, with a reason")
def override(
    request: Request, round_id: int, body: OverrideIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    view = in_unit_of_work(
        request,
        rounds.override_pairing,
        round_id=round_id,
        board=body.board,
        first_id=body.first_team_id,
        second_id=body.second_team_id,
        reason=body.reason,
        actor=user.username,
    )
    return _round(view)


@router.post("/stages/{stage_id}/teams/{team_id}/withdraw", summary="Withdraw a team from the next round on")
def withdraw(
    request: Request, stage_id: int, team_id: int, body: ReasonIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    return _team_change(request, entries.withdraw_team, stage_id, team_id, user, reason=body.reason)


@router.post("/stages/{stage_id}/teams/{team_id}/late-entry", summary="Add a team of the event to the stage")
def late_entry(
    request: Request, stage_id: int, team_id: int, body: LateEntryIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    details = {"reason": body.reason, "from_round": body.from_round}
    return _team_change(request, entries.add_late_entry, stage_id, team_id, user, **details)


@router.post("/stages/{stage_id}/teams/{team_id}/absent", summary="Leave a team out of a round")
def absent(
    request: Request, stage_id: int, team_id: int, body: AbsentIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    return _team_change(
        request, entries.mark_absent, stage_id, team_id, user, round_no=body.round, reason=body.reason
    )


@router.post(
    "/stages/{stage_id}/teams/{team_id}/present",
    summary="Undo an absence: the team is paired in that round after all",
)
def present(
    request: Request, stage_id: int, team_id: int, body: AbsentIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    return _team_change(
        request, entries.mark_present, stage_id, team_id, user, round_no=body.round, reason=body.reason
    )


@router.post(
    "/stages/{stage_id}/teams/{team_id}/adjustments",
    summary="Give a team bonus or penalty points from a round on, with a reason",
    status_code=201,
)
def adjust(
    request: Request, stage_id: int, team_id: int, body: AdjustmentIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    given = _give_adjustment(request, stage_id, team_id, body, user)
    return {**asdict(given), "message": given.message}


@router.post("/stages/{stage_id}/end-early", summary="End the stage after its last complete round")
def end_early(
    request: Request, stage_id: int, body: ReasonIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    closed = in_unit_of_work(
        request, entries.end_swiss_early, stage_id=stage_id, reason=body.reason, actor=user.username
    )
    closed.raise_refusal()  # after the commit: a refusal keeps the lots it committed
    return {"stage_id": stage_id, "closed": True}
