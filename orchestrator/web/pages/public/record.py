"""The public record page (docs/record.md): every change that decided a standing, newest first, each with
its hash and the hash of the entry before it. Complete without JavaScript."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from orchestrator.services.read import record
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import in_unit_of_work, render
from orchestrator.web.http.caching import conditional
from orchestrator.web.http.page_cache import page_built

router = APIRouter(dependencies=[allow_public()], include_in_schema=False)


@router.get("/events/{slug}/record")
def record_page(request: Request, slug: str, page: int = 1) -> Response:
    view = in_unit_of_work(request, record.record_view, slug=slug, page=page)
    page_built(request, view.topics)
    return conditional(request, render(request, "public/record.html", {"view": view, "live_url": None}))
