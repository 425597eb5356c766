"""The combined classification of an event with sections (docs/sections.md): its spectator page, its CSV
download and its JSON document ``/api/v1/events/{slug}/combined``.

All three are read from ``services/read/combined.py`` and kept by the page cache until a result, a pairing
or a stage of any section changes (the topics of every stage the classification reads, docs/caching.md).
An event without sections answers 404 with the reason.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from orchestrator.services.read import combined
from orchestrator.web.auth import allow_public
from orchestrator.web.caching import conditional
from orchestrator.web.deps import attachment, get_uow_factory, render
from orchestrator.web.page_cache import page_built
from orchestrator.web.routes_public import live_url

router = APIRouter(dependencies=[allow_public()])


def _view(request: Request, slug: str) -> combined.CombinedView:
    with get_uow_factory(request)() as uow:
        view = combined.combined_view(uow, slug=slug)
    page_built(request, view.topics)
    return view


@router.get("/events/{slug}/combined", include_in_schema=False)
def combined_page(request: Request, slug: str) -> Response:
    view = _view(request, slug)
    context = {"view": view, "live_url": live_url(slug, view.topics), "key_codes": combined.KEY_CODES}
    return conditional(request, render(request, "public/combined.html", context))


@router.get("/events/{slug}/combined.csv", include_in_schema=False)
def combined_csv(request: Request, slug: str) -> Response:
    view = _view(request, slug)
    filename = f"{slug}-combined.csv"
    return conditional(request, attachment(combined.combined_csv(view), filename, "text/csv; charset=utf-8"))


@router.get(
    "/api/v1/events/{slug}/combined",
    tags=["public"],
    response_model=combined.CombinedView,
    summary="The combined classification of the federations over the event's sections (404 without sections)",
)
def combined_json(request: Request, slug: str) -> Response:
    view = _view(request, slug)
    return conditional(request, Response(view.as_json(), media_type="application/json"))
