"""The combined classification of an event with sections as JSON, ``/api/v1/events/{slug}/combined``
(docs/sections.md); kept by the page cache like its page (docs/caching.md).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from orchestrator.services.read import combined
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import in_unit_of_work
from orchestrator.web.http.caching import conditional
from orchestrator.web.http.page_cache import page_built

router = APIRouter(dependencies=[allow_public()])


def combined_view(request: Request, slug: str) -> combined.CombinedView:
    """The classification, the page cache told the topics it shows (the page and the CSV read it too)."""
    view = in_unit_of_work(request, combined.combined_view, slug=slug)
    page_built(request, view.topics)
    return view


@router.get(
    "/api/v1/events/{slug}/combined",
    tags=["public"],
    response_model=combined.CombinedView,
    summary="The combined classification of the federations over the event's sections (404 without sections)",
)
def combined_json(request: Request, slug: str) -> Response:
    view = combined_view(request, slug)
    return conditional(request, Response(view.as_json(), media_type="application/json"))
