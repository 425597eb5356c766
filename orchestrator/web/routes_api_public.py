"""The public JSON API under /api/v1: everything the spectator pages show, with ETag and 304.

Answers are the read models of orchestrator/services/views.py serialised as they are (their schema is in
the OpenAPI document). Points are integer half-points (``*_half``); tie-break values come as text and as
an exact fraction ``"n/d"``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import TypeAdapter
from starlette.responses import Response

from orchestrator.services import views
from orchestrator.web.auth import allow_public
from orchestrator.web.caching import conditional
from orchestrator.web.deps import get_uow_factory

router = APIRouter(prefix="/api/v1", tags=["public"], dependencies=[allow_public()])

_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _json(request: Request, model: Any, value: Any) -> Response:
    adapter = _ADAPTERS.get(model)
    if adapter is None:
        adapter = _ADAPTERS[model] = TypeAdapter(model)
    body = adapter.dump_json(value)
    return conditional(request, Response(body, media_type="application/json"))


@router.get("/events", response_model=tuple[views.EventListItem, ...], summary="Events spectators may follow")
def list_events(request: Request) -> Response:
    with get_uow_factory(request)() as uow:
        items = views.list_events(uow)
    return _json(request, tuple[views.EventListItem, ...], items)


@router.get("/events/{slug}", response_model=views.EventView, summary="An event and its stage timeline")
def get_event(request: Request, slug: str) -> Response:
    with get_uow_factory(request)() as uow:
        view = views.event_view(uow, slug=slug)
    return _json(request, views.EventView, view)


@router.get(
    "/events/{slug}/stages/{stage_key}",
    response_model=views.StageView,
    summary="A stage: pools with strength and standings, or its duels",
)
def get_stage(request: Request, slug: str, stage_key: str) -> Response:
    with get_uow_factory(request)() as uow:
        view = views.stage_view(uow, slug=slug, stage_key=stage_key)
    return _json(request, views.StageView, view)


@router.get(
    "/events/{slug}/stages/{stage_key}/pools/{letter}",
    response_model=views.PoolView,
    summary="A pool: standings with every tie-break and separated_by, cross table, rounds",
)
def get_pool(request: Request, slug: str, stage_key: str, letter: str) -> Response:
    with get_uow_factory(request)() as uow:
        view = views.pool_view(uow, slug=slug, stage_key=stage_key, letter=letter)
    return _json(request, views.PoolView, view)


@router.get(
    "/events/{slug}/matches/{match_id}",
    response_model=views.MatchView,
    summary="A match board by board: players, colours, results, game links",
)
def get_match(request: Request, slug: str, match_id: int) -> Response:
    with get_uow_factory(request)() as uow:
        view = views.match_view(uow, slug=slug, match_id=match_id)
    return _json(request, views.MatchView, view)


@router.get(
    "/events/{slug}/teams/{team_id}",
    response_model=views.TeamView,
    summary="A team: roster with each player's games and performance rating, and its matches",
)
def get_team(request: Request, slug: str, team_id: int) -> Response:
    with get_uow_factory(request)() as uow:
        view = views.team_view(uow, slug=slug, team_id=team_id)
    return _json(request, views.TeamView, view)
