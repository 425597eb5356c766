"""Captains' pages: lineups, Armageddon nomination, colour choice. A captain only ever reaches their own
team: the services check ``user.team_id``; staff pass ``team_id`` to act for a team.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.outlook import read as outlook_read
from orchestrator.services.playoff import armageddon, forms
from orchestrator.services.read.dashboard import timezone_of
from orchestrator.services.teams import captains, lineups
from orchestrator.translation import gettext as _
from orchestrator.web.api.playoff import LineupPageIn
from orchestrator.web.auth import require_login
from orchestrator.web.deps import get_uow_factory, in_unit_of_work, render

router = APIRouter(include_in_schema=False)


@router.get("/captain")
def captain_home(request: Request, team_id: int | None = None, user: AuthUser = require_login()) -> Response:
    """A captain's to-do list: lineups for the coming matches, Armageddon nominations."""
    with get_uow_factory(request)() as uow:
        home = captains.captain_home(uow, user=user, team_id=team_id)
        zone = timezone_of(uow, kind="team", entity_id=home.team_id)
        outlooks = outlook_read.team_outlooks(uow, team_id=home.team_id)
    context = {"home": home, "as_staff": user.is_staff, "event_zone": zone}
    own = {"outlook": outlooks[-1] if outlooks else None, "outlook_team": home.team_id}
    return render(request, "captain/home.html", {**context, **own})


def _form_page(
    request: Request, template: str, form: Callable[[UnitOfWork], object], **extra: object
) -> Response:
    """A captain's form page (lineup or nomination): 422 with problems, 409 with an error."""
    with get_uow_factory(request)() as uow:
        shown = form(uow)
        zone = timezone_of(uow, kind="team", entity_id=getattr(shown, "team_id", 0))
    status = 422 if extra.get("problems") else 409 if extra.get("error") else 200
    return render(request, template, {"form": shown, "event_zone": zone, **extra}, status_code=status)


def _saved(user: AuthUser, page: str, team: int) -> RedirectResponse:
    """Back to the form with "saved"; staff keep the team they act for."""
    query = f"?saved=1&team_id={team}" if user.is_staff else "?saved=1"
    return RedirectResponse(f"{page}{query}", status_code=303)


def _lineup_page(
    request: Request, user: AuthUser, match_id: int, team_id: int | None, **extra: object
) -> Response:
    team = captains.team_of_user(user, team_id)
    return _form_page(
        request,
        "captain/lineup.html",
        lambda uow: lineups.lineup_form(uow, match_id=match_id, team_id=team, user=user),
        **extra,
    )


@router.get("/captain/matches/{match_id}/lineup")
def lineup_page(
    request: Request, match_id: int, team_id: int | None = None, user: AuthUser = require_login()
) -> Response:
    notice = (
        _("Lineup saved. You can change it until the deadline.")
        if request.query_params.get("saved")
        else None
    )
    return _lineup_page(request, user, match_id, team_id, notice=notice)


@router.post("/captain/matches/{match_id}/lineup")
def lineup_submit(
    request: Request, match_id: int, form: Annotated[LineupPageIn, Form()], user: AuthUser = require_login()
) -> Response:
    """The lineup form (the JSON API's ``LineupIn``, one select per board); a board that names no player
    of the list is refused with the form's other problems."""
    team_id = form.team_id
    try:
        with get_uow_factory(request)() as uow:
            team = captains.team_of_user(user, team_id)
            lineups.submit_lineup(uow, match_id=match_id, team_id=team, boards=form.boards, user=user)
    except ValidationFailed as error:
        return _lineup_page(request, user, match_id, team_id, problems=list(error.problems))
    return _saved(user, f"/captain/matches/{match_id}/lineup", team)


def _armageddon_page(
    request: Request, user: AuthUser, duel_id: int, team_id: int | None, **extra: object
) -> Response:
    team = captains.team_of_user(user, team_id)
    return _form_page(
        request,
        "captain/armageddon.html",
        lambda uow: forms.nomination_form(uow, duel_id=duel_id, team_id=team, user=user),
        **extra,
    )


@router.get("/captain/duels/{duel_id}/armageddon")
def armageddon_page(
    request: Request, duel_id: int, team_id: int | None = None, user: AuthUser = require_login()
) -> Response:
    notice = _("Saved.") if request.query_params.get("saved") else None
    return _armageddon_page(request, user, duel_id, team_id, notice=notice)


def _back(user: AuthUser, duel_id: int, team: int) -> RedirectResponse:
    return _saved(user, f"/captain/duels/{duel_id}/armageddon", team)


@router.post("/captain/duels/{duel_id}/nomination")
def nomination_submit(
    request: Request,
    duel_id: int,
    user: AuthUser = require_login(),
    team_id: int | None = Form(default=None),
    account: str = Form(default=""),
) -> Response:
    team = captains.team_of_user(user, team_id)
    try:
        in_unit_of_work(
            request, armageddon.nominate, duel_id=duel_id, team_id=team, account=account, actor=user
        )
    except ValidationFailed as error:
        return _armageddon_page(request, user, duel_id, team, problems=list(error.problems))
    return _back(user, duel_id, team)


@router.post("/captain/duels/{duel_id}/colour")
def colour_submit(
    request: Request,
    duel_id: int,
    user: AuthUser = require_login(),
    team_id: int | None = Form(default=None),
    colour: str = Form(default=""),
) -> Response:
    team = captains.team_of_user(user, team_id)
    in_unit_of_work(
        request, armageddon.choose_colour, duel_id=duel_id, team_id=team, colour=colour, actor=user
    )
    return _back(user, duel_id, team)
