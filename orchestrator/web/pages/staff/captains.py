"""The staff pages that serve the captains: invitation links, teams without a lineup, the lineup deadline."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Form, Request
from pydantic import BaseModel
from starlette.responses import RedirectResponse, Response

from orchestrator.errors import StaleEdit, ValidationFailed
from orchestrator.services import times
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.notify.preferences import set_user_email
from orchestrator.services.read.dashboard import timezone_of
from orchestrator.services.teams import captains, lineups
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import get_settings, get_uow_factory, render
from orchestrator.web.event_keys import event_of_key, slug_redirect

router = APIRouter(include_in_schema=False)


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


class DeadlineForm(BaseModel):
    """A round's new lineup deadline as the page posts it: local time in the event's zone
    (``2020-08-01T09:30``), the deadline the page showed (ISO 8601, as stored) and why. The JSON API's
    ``DeadlineIn`` takes both times with their offset instead."""

    deadline: str = ""
    expected: datetime | None = None
    reason: str = ""


@router.post("/staff/rounds/{round_id}/lineup-deadline")
def deadline_submit(
    request: Request, round_id: int, form: Annotated[DeadlineForm, Form()], user: AuthUser = require_staff()
) -> Response:
    """Move a round's lineup deadline; a form showing a deadline moved since is a 409 naming who moved it."""
    with get_uow_factory(request)() as uow:
        zone = timezone_of(uow, kind="round", entity_id=round_id)
    try:
        moment = times.local_to_utc(form.deadline, zone, field="Deadline")
    except ValidationFailed as error:
        return _missing_page(request, round_id, status_code=422, problems=list(error.problems))
    try:
        with get_uow_factory(request)() as uow:
            lineups.set_lineup_deadline(
                uow,
                round_id=round_id,
                deadline=moment,
                expected=form.expected,
                actor=user.username,
                reason=form.reason,
            )
    except ValidationFailed as error:
        return _missing_page(request, round_id, status_code=422, problems=list(error.problems))
    except StaleEdit as error:
        return _missing_page(request, round_id, status_code=409, error=error.message)
    return RedirectResponse(f"/staff/rounds/{round_id}/lineups?moved=1", status_code=303)
