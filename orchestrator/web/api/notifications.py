"""Notifications as JSON (docs/notifications.md): your address and the kinds turned off, the staff
outbox (filter by status, send a failed mail again), a player's address. The pages are
web/pages/account/notifications.py and web/pages/staff/outbox.py; the rules live in services/notify.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from orchestrator.errors import ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.notify import outbox, preferences
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_login, require_staff
from orchestrator.web.deps import fields_of, get_uow_factory, in_unit_of_work

router = APIRouter(prefix="/api/v1", tags=["notifications"])

STATUSES = ("", "queued", "sent", "failed")


class PreferencesBody(BaseModel):
    email: str | None = Field(default=None, max_length=320, description="where mails go; empty: none")
    off: list[str] = Field(default_factory=list, description="kinds turned off (see GET for the kinds)")
    language: str | None = Field(
        default=preferences.KEEP, max_length=8, description="language of the mails (see GET); null: English"
    )


@router.get("/account/notifications")
def get_preferences(request: Request, user: AuthUser = require_login()) -> dict[str, Any]:
    """Your address and, per kind of message, whether you get it."""
    with get_uow_factory(request)() as uow:
        return preferences.preferences_of(uow, user=user).as_json()


@router.put("/account/notifications")
def put_preferences(
    request: Request, body: PreferencesBody, user: AuthUser = require_login()
) -> dict[str, Any]:
    """Set your address, the kinds you turn off (unknown kinds are ignored) and, when given, the language
    of your mails; audited."""
    with get_uow_factory(request)() as uow:
        return preferences.set_preferences(uow, user=user, **fields_of(body)).as_json()


def outbox_status(request: Request) -> str:
    """The outbox's status filter from the query (empty: every mail); 422 for an unknown status."""
    status = request.query_params.get("status", "")
    if status not in STATUSES:
        raise ValidationFailed(
            [_("status must be one of: %(statuses)s") % {"statuses": ", ".join(s for s in STATUSES if s)}]
        )
    return status


@router.get("/outbox")
def get_outbox(request: Request, status: str = "", user: AuthUser = require_staff()) -> dict[str, Any]:
    """The latest mails (at most 200, newest first), optionally of one status: queued, sent or failed."""
    status = outbox_status(request)
    rows = in_unit_of_work(request, outbox.outbox_rows, status=status or None)
    return {"status": status or None, "mails": [row.as_json() for row in rows]}


@router.post("/outbox/{outbox_id}/retry")
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


@router.put("/players/{player_id}/email")
def put_player_email(
    request: Request, player_id: int, body: PlayerEmailBody, user: AuthUser = require_staff()
) -> dict[str, Any]:
    """A player's address, for the "link your game-server account" mail, and (when given) the language of
    that mail; audited as ``player.email``."""
    with get_uow_factory(request)() as uow:
        player = preferences.set_player_email(
            uow, player_id=player_id, actor=user.username, **fields_of(body)
        )
        return {"player_id": player.id, "email": player.email, "language": player.language}
