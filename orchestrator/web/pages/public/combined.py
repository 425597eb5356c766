"""The combined classification of an event with sections (docs/sections.md): its spectator page and its CSV
download (the JSON document: web/api/combined.py).

Both are read from ``services/read/combined.py`` and kept by the page cache until a result, a pairing or a
stage of any section changes (the topics of every stage the classification reads, docs/caching.md); the
page's live stream follows the event and each section's stage only (``followed``).
An event without sections answers 404 with the reason.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from orchestrator.services.read import combined
from orchestrator.web.api.combined import combined_view
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import attachment, render
from orchestrator.web.http.caching import conditional
from orchestrator.web.pages.public.event_story import federation_names
from orchestrator.web.pages.public.events import page_live_url

router = APIRouter(dependencies=[allow_public()])


def followed(view: combined.CombinedView) -> tuple[str, ...]:
    """The live topics of the page: the event's and each section's last stage (a result is announced on
    its stage too: services/live.py, "Coarse topics"), whatever the size of the field."""
    stages = (f"stage:{section.stage.id}" for section in view.sections if section.stage is not None)
    return (f"event:{view.event.slug}", *stages)


@router.get("/events/{slug}/combined", include_in_schema=False)
def combined_page(request: Request, slug: str) -> Response:
    view = combined_view(request, slug)
    context = {
        "view": view,
        "live_url": page_live_url(view.event, followed(view)),
        "key_codes": combined.KEY_CODES,
        "federation_names": federation_names(view),
    }
    return conditional(request, render(request, "public/combined.html", context))


@router.get("/events/{slug}/combined.csv", include_in_schema=False)
def combined_csv(request: Request, slug: str) -> Response:
    view = combined_view(request, slug)
    filename = f"{slug}-combined.csv"
    return conditional(request, attachment(combined.combined_csv(view), filename, "text/csv; charset=utf-8"))
