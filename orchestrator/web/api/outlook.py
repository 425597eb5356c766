"""The chances and needs of docs/needs.md in the public JSON API (/api/v1): what the chances job stored
after the last complete round, never computed on a request. A knockout, a finished stage or one not yet
started is refused with a sentence saying so (409)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from orchestrator.services.outlook import read as outlook_read
from orchestrator.web.api.public import cached_view
from orchestrator.web.auth import allow_public

router = APIRouter(prefix="/api/v1", tags=["public"], dependencies=[allow_public()])


@router.get(
    "/events/{slug}/stages/{stage_key}/chances",
    response_model=outlook_read.OutlookView,
    summary="A pool or Swiss stage: each team's chances of the places that matter and, in a pool's last "
    "three rounds, what it needs",
    responses={409: {"description": "a knockout, a finished stage or one not yet started"}},
)
def get_stage_chances(request: Request, slug: str, stage_key: str) -> Response:
    return cached_view(request, outlook_read.stage_outlook, slug=slug, stage_key=stage_key)


@router.get(
    "/events/{slug}/teams/{team_id}/chances",
    response_model=outlook_read.OutlookView,
    summary="A team's chances and needs in the stage it plays now (empty before any is computed)",
)
def get_team_chances(request: Request, slug: str, team_id: int) -> Response:
    return cached_view(request, outlook_read.team_outlook_json, slug=slug, team_id=team_id)
