"""Captains' pages (lineups, Armageddon nomination, colour choice) and the staff pages that serve them
(invitation links, teams without a lineup). A captain only ever reaches their own team: the services
check ``user.team_id``; staff pass ``team_id`` to act for a team.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import StaleEdit, ValidationFailed
from orchestrator.services import times
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.notify.preferences import set_user_email
from orchestrator.services.playoff import armageddon, forms
from orchestrator.services.read.dashboard import timezone_of
from orchestrator.services.teams import captains, lineups
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_login, require_staff
from orchestrator.web.deps import get_settings, get_uow_factory, render
from orchestrator.web.event_keys import event_of_key, slug_redirect

router = APIRouter(include_in_schema=False)


@router.get("/captain")
def captain_home(request: Request, team_id: int | None = None, user: AuthUser = require_login()) -> Response:
    """A captain's to-do list: lineups for the coming matches, Armageddon nominations."""
    with get_uow_factory(request)() as uow:
        home = captains.captain_home(uow, user=user, team_id=team_id)
        zone = timezone_of(uow, kind="team", entity_id=home.team_id)
    return render(request, "captain/home.html", {"home": home, "as_staff": user.is_staff, "event_zone": zone})


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
async def lineup_submit(request: Request, match_id: int, user: AuthUser = require_login()) -> Response:
    data = await request.form()
    raw_team = str(data.get("team_id") or "")
    team_id = int(raw_team) if raw_team.isdigit() else None
    boards: list[int | None] = []
    problems: list[str] = []
    number = 1
    while f"board_{number}" in data:
        value = str(data.get(f"board_{number}") or "").strip()
        if value and not value.isdigit():
            problems.append(_("Board %(board)d: choose a player from the list.") % {"board": number})
        boards.append(int(value) if value.isdigit() else None)
        number += 1
    if problems:
        return _lineup_page(request, user, match_id, team_id, problems=problems)
    try:
        with get_uow_factory(request)() as uow:
            team = captains.team_of_user(user, team_id)
            lineups.submit_lineup(uow, match_id=match_id, team_id=team, boards=boards, user=user)
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
        with get_uow_factory(request)() as uow:
            armageddon.nominate(uow, duel_id=duel_id, team_id=team, account=account, actor=user)
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
    with get_uow_factory(request)() as uow:
        armageddon.choose_colour(uow, duel_id=duel_id, team_id=team, colour=colour, actor=user)
    return _back(user, duel_id, team)


# --- staff ----------------------------------------------------------------------------------------


@router.get("/staff/events/{slug}/captains")
def captains_page(request: Request, slug: str, user: AuthUser = require_staff()) -> Response:
    event_id, real = event_of_key(request, slug)
    if moved := slug_redirect(request, slug, real):
        return moved
    with get_uow_factory(request)() as uow:
        accounts = captains.captain_accounts(uow, event_id=event_id)
    return render(request, "captain/staff_captains.html", {"accounts": accounts, "event_id": event_id})


@router.post("/staff/teams/{team_id}/captain-invitation")
def invite(
    request: Request,
    team_id: int,
    user: AuthUser = require_staff(),
    username: str = Form(default=""),
    event_id: int = Form(default=0),
    email: str = Form(default=""),
    deputy: str = Form(default=""),
) -> Response:
    """Create the captain's account (or a fresh link for it) and show the invitation link once; an address
    given is stored for notifications (docs/notifications.md). A second account for a team is a deputy,
    added by an owner only when ``deputy`` asks for it (docs/security.md, "Captains")."""
    settings = get_settings(request)
    with get_uow_factory(request)() as uow:
        user_id, token = captains.create_captain_invitation(
            uow,
            team_id=team_id,
            actor=user.username,
            actor_role=user.role,
            username=username.strip() or None,
            deputy=bool(deputy),
            settings=settings,
        )
        set_user_email(uow, user_id=user_id, email=email, actor=user.username)
        accounts = captains.captain_accounts(uow, event_id=event_id) if event_id else []
    link = f"{settings.public_base_url.rstrip('/')}/invitation/{token}"
    return render(
        request,
        "captain/staff_captains.html",
        {"accounts": accounts, "event_id": event_id, "link": link, "link_user_id": user_id},
    )


def _missing_page(request: Request, round_id: int, *, status_code: int = 200, **extra: object) -> Response:
    with get_uow_factory(request)() as uow:
        missing = lineups.missing_lineups(uow, round_id=round_id)
        deadline = lineups.round_deadline(uow, round_id=round_id)
    context = {"missing": missing, "round_id": round_id, "deadline": deadline, **extra}
    return render(request, "captain/staff_missing.html", context, status_code=status_code)


@router.get("/staff/rounds/{round_id}/lineups")
def missing_page(request: Request, round_id: int, user: AuthUser = require_staff()) -> Response:
    notice = _("Lineup deadline moved.") if request.query_params.get("moved") else None
    return _missing_page(request, round_id, notice=notice)


@router.post("/staff/rounds/{round_id}/lineup-deadline")
def deadline_submit(
    request: Request,
    round_id: int,
    user: AuthUser = require_staff(),
    deadline: str = Form(default=""),
    expected: str = Form(default=""),
    reason: str = Form(default=""),
) -> Response:
    """Move a round's lineup deadline; the form's time is local time in the event's zone
    (``2020-08-01T09:30``)."""
    with get_uow_factory(request)() as uow:
        zone = timezone_of(uow, kind="round", entity_id=round_id)
    try:
        moment = times.local_to_utc(deadline, zone, field="Deadline")
    except ValidationFailed as error:
        return _missing_page(request, round_id, status_code=422, problems=list(error.problems))
    shown = datetime.fromisoformat(expected) if expected.strip() else None
    try:
        with get_uow_factory(request)() as uow:
            lineups.set_lineup_deadline(
                uow, round_id=round_id, deadline=moment, expected=shown, actor=user.username, reason=reason
            )
    except ValidationFailed as error:
        return _missing_page(request, round_id, status_code=422, problems=list(error.problems))
    except StaleEdit as error:
        return _missing_page(request, round_id, status_code=409, error=error.message)
    return RedirectResponse(f"/staff/rounds/{round_id}/lineups?moved=1", status_code=303)
