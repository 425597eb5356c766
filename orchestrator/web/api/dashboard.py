"""The staff dashboard of an event as JSON (the page: web/pages/staff/dashboard.py, docs/staff-guide.md)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.read import dashboard as dashboard_service
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import get_uow_factory
from orchestrator.web.event_keys import event_of_key

router = APIRouter(prefix="/api/v1/staff", tags=["staff"])


@router.get("/events/{slug}/dashboard", summary="What of the event waits for a staff decision")
def dashboard_json(request: Request, slug: str, user: AuthUser = require_staff()) -> dict[str, Any]:
    """The dashboard's items, most urgent first: kind, title, detail, the page to act on it, deadline."""
    _, real = event_of_key(request, slug)
    with get_uow_factory(request)() as uow:
        return dashboard_service.dashboard(uow, slug=real).as_json()
