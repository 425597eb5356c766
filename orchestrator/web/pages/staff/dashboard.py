"""The staff dashboard of an event (``/staff/events/{slug}``) and its live stream, and ``/staff``, where
staff land after logging in (docs/staff-guide.md, "The dashboard"); the JSON twin is web/api/dashboard.py.

The page works without JavaScript (reload it); live.js re-reads it when the event, one of its stages,
pools or duels changes. Old numeric URLs (``/staff/events/12``) answer with a redirect to the slug's.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.concurrency import run_in_threadpool
from sse_starlette.sse import EventSourceResponse
from starlette.responses import RedirectResponse, Response

from orchestrator.adapters.tables import EventStatus
from orchestrator.config import configuration_warnings
from orchestrator.services.accounts.users import AuthUser, recent_login_failures
from orchestrator.services.read import dashboard as dashboard_service
from orchestrator.services.read import staff
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import get_settings, get_uow_factory, in_unit_of_work, render
from orchestrator.web.event_keys import event_of_key, slug_redirect
from orchestrator.web.http.sse import event_stream

router = APIRouter(prefix="/staff", include_in_schema=False)

ACTIVE = (EventStatus.RUNNING.value, EventStatus.PUBLISHED.value)


@router.get("")
def staff_home(request: Request, user: AuthUser = require_staff()) -> Response:
    """Staff's landing page: the dashboard of the one event under way, else the list of events."""
    events = in_unit_of_work(request, staff.staff_events)
    active = [e for e in events if e.status in ACTIVE]
    target = f"/staff/events/{active[0].slug}" if len(active) == 1 else "/staff/events"
    return RedirectResponse(target, status_code=303)


@router.get("/events/{slug}")
def dashboard_page(request: Request, slug: str, user: AuthUser = require_staff()) -> Response:
    """Everything of the event that waits for a decision, most urgent first, each with its page."""
    _, real = event_of_key(request, slug)
    if moved := slug_redirect(request, slug, real):
        return moved
    with get_uow_factory(request)() as uow:
        board = dashboard_service.dashboard(uow, slug=real)
        # Someone guessing passwords, or slowing an account down, shows up here (docs/security.md).
        login_failures = recent_login_failures(uow)
    context: dict[str, Any] = {
        "board": board,
        "login_failures": login_failures,
        # Settings that break a step before anyone tries it (a missing encryption key: docs/security.md).
        "configuration_warnings": configuration_warnings(get_settings(request)),
        "labels": dashboard_service.KIND_LABELS,
        "live_url": f"/staff/events/{real}/live",
    }
    return render(request, "staff/dashboard.html", context)


@router.get("/events/{slug}/live")
async def dashboard_live(
    request: Request, slug: str, user: AuthUser = require_staff()
) -> EventSourceResponse:
    """Server-sent events of every topic that may change the dashboard (ids and kinds only)."""

    def topics() -> frozenset[str]:
        with get_uow_factory(request)() as uow:
            event = staff.event_by_slug(uow, slug)
            return dashboard_service.live_topics(uow, event=event)

    return event_stream(await run_in_threadpool(topics), request)
