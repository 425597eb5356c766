"""The play-off bracket page (public). It works without JavaScript; live.js (spectator pages) re-reads it on
server-sent events of the event's and duels' topics.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from orchestrator.services.playoff import (
    read,
)
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import get_uow_factory, render
from orchestrator.web.http.caching import conditional
from orchestrator.web.http.page_cache import page_built
from orchestrator.web.pages.public.events import live_url

router = APIRouter(include_in_schema=False)


@router.get("/events/{slug}/bracket", dependencies=[allow_public()])
def bracket_page(request: Request, slug: str) -> Response:
    """The whole bracket with both match scores of each duel and every Armageddon detail."""
    with get_uow_factory(request)() as uow:
        stage = read.knockout_stage_of(uow, slug=slug)
        view = read.bracket_view(uow, stage_id=stage.id or 0)
        topics = tuple(read.duel_topics(uow, stage_id=stage.id or 0))
    # Once the champion is known the bracket changes no more: no "Live" status.
    context = {"view": view, "live_url": None if view.champions else live_url(slug, topics), "slug": slug}
    page_built(request, topics)
    return conditional(request, render(request, "playoff/bracket.html", context))
