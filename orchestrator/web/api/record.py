"""The public record as JSON (docs/record.md): ``GET /api/v1/events/{slug}/record?page=N``, newest entry
first, ``next`` naming the following page; what ``olympiad verify-record`` reads."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from orchestrator.services.read import record
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import in_unit_of_work
from orchestrator.web.http.caching import conditional
from orchestrator.web.http.page_cache import page_built

router = APIRouter(prefix="/api/v1", tags=["public"], dependencies=[allow_public()])


@router.get("/events/{slug}/record", summary="The event's public record: hash-chained entries, newest first")
def get_record(request: Request, slug: str, page: int = 1) -> Response:
    view = in_unit_of_work(request, record.record_view, slug=slug, page=page)
    page_built(request, view.topics)
    return conditional(request, Response(view.as_json(), media_type="application/json"))
