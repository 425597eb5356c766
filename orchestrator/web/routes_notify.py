"""Notifications on the web (docs/notifications.md): the account page (address and the kinds turned off),
the staff outbox (filter by status, send a failed mail again), a team's iCalendar feed, and their JSON
twins under /api/v1. The rules live in services/notify.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import RedirectResponse, Response

from orchestrator.errors import ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.notify import calendar, outbox, preferences
from orchestrator.services.notify.kinds import CAPTAIN_KINDS
from orchestrator.translation import gettext as _
from orchestrator.web.auth import allow_public, require_login, require_staff
from orchestrator.web.deps import get_settings, get_uow_factory, render

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api/v1", tags=["notifications"])

STATUSES = ("", "queued", "sent", "failed")


def _account_page(request: Request, user: AuthUser, *, status_code: int = 200, **extra: object) -> Response:
    with get_uow_factory(request)() as uow:
        prefs = preferences.preferences_of(uow, user=user)
    return render(
        request,
        "account/notifications.html",
        {"prefs": prefs, "is_captain": user.team_id is not None, **extra},
        status_code=status_code,
    )


@router.get("/account")
def account_page(request: Request, user: AuthUser = require_login()) -> Response:
    saved = request.query_params.get("saved") == "1"
    return _account_page(request, user, notice=_("Saved.") if saved else None)


@router.post("/account/notifications")
async def account_submit(request: Request, user: AuthUser = require_login()) -> Response:
    form = await request.form()
    on = {str(value) for value in form.getlist("kind")}
    off = [kind.value for kind in CAPTAIN_KINDS if kind.value not in on]
    try:
        with get_uow_factory(request)() as uow:
            preferences.set_preferences(
                uow,
                user=user,
                email=str(form.get("email", "")),
                off=off,
                language=str(form.get("language", preferences.KEEP)),
            )
    except ValidationFailed as error:
        return _account_page(request, user, status_code=422, problems=error.problems)
    return RedirectResponse("/account?saved=1", status_code=303)


class PreferencesBody(BaseModel):
    email: str | None = Field(default=None, max_length=320, description="where mails go; empty: none")
    off: list[str] = Field(default_factory=list, description="kinds turned off (see GET for the kinds)")
    language: str | None = Field(
        default=preferences.KEEP, max_length=8, description="language of the mails (see GET); null: English"
    )


@api.get("/account/notifications")
def get_preferences(request: Request, user: AuthUser = require_login()) -> dict[str, Any]:
    """Your address and, per kind of message, whether you get it."""
    with get_uow_factory(request)() as uow:
        return preferences.preferences_of(uow, user=user).as_json()


@api.put("/account/notifications")
def put_preferences(
    request: Request, body: PreferencesBody, user: AuthUser = require_login()
) -> dict[str, Any]:
    """Set your address, the kinds you turn off (unknown kinds are ignored) and, when given, the language
    of your mails; audited."""
    with get_uow_factory(request)() as uow:
        return preferences.set_preferences(
            uow, user=user, email=body.email, off=body.off, language=body.language
        ).as_json()


def _status_of(request: Request) -> str:
    status = request.query_params.get("status", "")
    if status not in STATUSES:
        raise ValidationFailed(
            [_("status must be one of: %(statuses)s") % {"statuses": ", ".join(s for s in STATUSES if s)}]
        )
    return status


@router.get("/staff/outbox")
def outbox_page(request: Request, user: AuthUser = require_staff()) -> Response:
    status = _status_of(request)
    with get_uow_factory(request)() as uow:
        rows = outbox.outbox_rows(uow, status=status or None)
    retried = request.query_params.get("retried")
    notice = _("Mail %(id)s is queued again.") % {"id": retried} if retried and retried.isdigit() else None
    return render(
        request,
        "staff/outbox.html",
        {"rows": rows, "status": status, "statuses": STATUSES, "notice": notice},
    )


@router.post("/staff/outbox/{outbox_id}/retry")
def outbox_retry(request: Request, outbox_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        outbox.retry_failed(uow, outbox_id=outbox_id, actor=user.username)
    return RedirectResponse(f"/staff/outbox?status=queued&retried={outbox_id}", status_code=303)


@api.get("/outbox")
def get_outbox(request: Request, status: str = "", user: AuthUser = require_staff()) -> dict[str, Any]:
    """The latest mails (at most 200, newest first), optionally of one status: queued, sent or failed."""
    status = _status_of(request)
    with get_uow_factory(request)() as uow:
        rows = outbox.outbox_rows(uow, status=status or None)
    return {"status": status or None, "mails": [row.as_json() for row in rows]}


@api.post("/outbox/{outbox_id}/retry")
def post_outbox_retry(request: Request, outbox_id: int, user: AuthUser = require_staff()) -> dict[str, Any]:
    """Queue a failed mail again (409 unless it failed); audited as ``outbox.retry``."""
    with get_uow_factory(request)() as uow:
        row = outbox.retry_failed(uow, outbox_id=outbox_id, actor=user.username)
        return {"id": row.id, "status": row.status}


class PlayerEmailBody(BaseModel):
    email: str | None = Field(default=None, max_length=320, description="empty: no address")
    language: str | None = Field(
        default=preferences.KEEP, max_length=8, description="language of the mail; null: as the captains"
    )


@api.put("/players/{player_id}/email")
def put_player_email(
    request: Request, player_id: int, body: PlayerEmailBody, user: AuthUser = require_staff()
) -> dict[str, Any]:
    """A player's address, for the "link your game-server account" mail, and (when given) the language of
    that mail; audited as ``player.email``."""
    with get_uow_factory(request)() as uow:
        player = preferences.set_player_email(
            uow, player_id=player_id, email=body.email, actor=user.username, language=body.language
        )
        return {"player_id": player.id, "email": player.email, "language": player.language}


@router.get("/teams/{team_id}/calendar.ics", dependencies=[allow_public()])
def team_feed(request: Request, team_id: int) -> Response:
    """The team's rounds, lineup deadlines and Armageddon nominations as an iCalendar feed."""
    with get_uow_factory(request)() as uow:
        body = calendar.team_calendar(uow, team_id=team_id, base_url=get_settings(request).public_base_url)
    return Response(
        body,
        media_type="text/calendar; charset=utf-8",
        headers={"Content-Disposition": f'inline; filename="team-{team_id}.ics"'},
    )
