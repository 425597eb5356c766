"""A team's iCalendar feed (docs/notifications.md): rounds, lineup deadlines and Armageddon nominations."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from orchestrator.services.notify import calendar
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import get_settings, in_unit_of_work

router = APIRouter(include_in_schema=False)


@router.get("/teams/{team_id}/calendar.ics", dependencies=[allow_public()])
def team_feed(request: Request, team_id: int) -> Response:
    """The team's rounds, lineup deadlines and Armageddon nominations as an iCalendar feed."""
    body = in_unit_of_work(
        request, calendar.team_calendar, team_id=team_id, base_url=get_settings(request).public_base_url
    )
    return Response(
        body,
        media_type="text/calendar; charset=utf-8",
        headers={"Content-Disposition": f'inline; filename="team-{team_id}.ics"'},
    )
