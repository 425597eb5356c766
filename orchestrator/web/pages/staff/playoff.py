"""The staff play-off desk: build the bracket, run the lots, record forfeits, withdrawals, rulings and the
Armageddon game. Every action answers with a redirect back to the desk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from orchestrator.errors import NotFound, ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.playoff import (
    armageddon,
    armageddon_game,
    commands,
    deadlines,
    forms,
    read,
    rulings,
    storage,
)
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import get_uow_factory, in_unit_of_work, render
from orchestrator.web.i18n import N_

router = APIRouter(include_in_schema=False)


def _desk(stage_id: int) -> RedirectResponse:
    return RedirectResponse(f"/staff/playoff/{stage_id}", status_code=303)


def _duel_step(request: Request, use_case: Callable[..., object], duel_id: int, **arguments: Any) -> Response:
    """A step on a duel (services/playoff/), then back to the desk of the duel's stage."""
    with get_uow_factory(request)() as uow:
        stage_id = read.duel_stage_id(uow, duel_id=duel_id)
        use_case(uow, duel_id=duel_id, **arguments)
    return _desk(stage_id)


@router.get("/staff/playoff/{stage_id}")
def staff_desk(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    """Staff desk: build the bracket, run the lots, record forfeits, withdrawals, rulings and the game."""
    with get_uow_factory(request)() as uow:
        view = read.bracket_view(uow, stage_id=stage_id)
        desk = forms.staff_desk(uow, stage_id=stage_id)
    return render(request, "playoff/staff.html", {"view": view, "desk": desk})


@router.post("/staff/playoff/{stage_id}/build")
def staff_build(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    in_unit_of_work(request, commands.build_bracket, stage_id=stage_id, actor=user.username)
    return _desk(stage_id)


@router.post("/staff/playoff/{stage_id}/deadlines")
def staff_deadlines(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    """Run the deadline check now (the beat runs it on its own schedule)."""
    in_unit_of_work(request, deadlines.apply_due_deadlines, actor=user.username)
    return _desk(stage_id)


@router.post("/staff/duels/{duel_id}/lots/{which}/{action}")
def staff_lot(
    request: Request,
    duel_id: int,
    which: str,
    action: str,
    user: AuthUser = require_staff(),
    minutes: int = Form(default=storage.NOMINATION_MINUTES),
) -> Response:
    """Publish a lot's hash (``commit``), then draw it and publish the seed (``reveal``)."""
    if which not in ("category", "colour") or action not in ("commit", "reveal"):
        raise NotFound(N_("There is no such lot step."))
    kind: Literal["category", "colour"] = "category" if which == "category" else "colour"
    if action == "commit":
        return _duel_step(request, armageddon.commit_armageddon_lot, duel_id, which=kind, actor=user.username)
    return _duel_step(
        request,
        armageddon.reveal_armageddon_lot,
        duel_id,
        which=kind,
        actor=user.username,
        nomination_minutes=max(1, minutes),
    )


@router.post("/staff/duels/{duel_id}/reveal")
def staff_reveal(request: Request, duel_id: int, user: AuthUser = require_staff()) -> Response:
    return _duel_step(request, armageddon.reveal_nominations, duel_id, actor=user.username)


@router.post("/staff/duels/{duel_id}/ruling")
def staff_ruling(
    request: Request,
    duel_id: int,
    user: AuthUser = require_staff(),
    winners: list[int] = Form(default=[]),
    reason: str = Form(default=""),
) -> Response:
    return _duel_step(
        request, rulings.record_ruling, duel_id, winner_team_ids=winners, reason=reason, actor=user.username
    )


@router.post("/staff/duels/{duel_id}/armageddon/game")
def staff_game(
    request: Request, duel_id: int, user: AuthUser = require_staff(), game: str = Form(default="")
) -> Response:
    return _duel_step(
        request, armageddon_game.set_armageddon_game, duel_id, game_ref=game, actor=user.username
    )


@router.post("/staff/duels/{duel_id}/armageddon/result")
def staff_result(
    request: Request, duel_id: int, user: AuthUser = require_staff(), result: str = Form(default="")
) -> Response:
    return _duel_step(
        request, armageddon_game.record_armageddon_result, duel_id, result=result, actor=user.username
    )


@router.post("/staff/duels/{duel_id}/colour")
def staff_colour(
    request: Request,
    duel_id: int,
    user: AuthUser = require_staff(),
    team_id: int = Form(default=0),
    colour: str = Form(default=""),
) -> Response:
    return _duel_step(request, armageddon.choose_colour, duel_id, team_id=team_id, colour=colour, actor=user)


@router.post("/staff/playoff/matches/{match_id}/forfeit")
def staff_forfeit(
    request: Request,
    match_id: int,
    user: AuthUser = require_staff(),
    absent_team_id: int = Form(default=0),
    reason: str = Form(default=""),
) -> Response:
    with get_uow_factory(request)() as uow:
        stage_id = read.stage_of_match(uow, match_id=match_id)
        rulings.forfeit_match(
            uow, match_id=match_id, absent_team_id=absent_team_id, actor=user.username, reason=reason
        )
    return _desk(stage_id)


@router.post("/staff/playoff/teams/{team_id}/withdraw")
def staff_withdraw(
    request: Request,
    team_id: int,
    user: AuthUser = require_staff(),
    reason: str = Form(default=""),
    stage_id: int = Form(default=0),
) -> Response:
    if not stage_id:
        raise ValidationFailed([N_("stage_id: missing")])
    in_unit_of_work(request, rulings.withdraw_team, team_id=team_id, actor=user.username, reason=reason)
    return _desk(stage_id)
