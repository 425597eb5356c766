"""Individual results of an event: the board prizes (docs/board-prizes.md), rating changes and player
pages (docs/ratings.md) and their CSV downloads, public and cached like the other spectator pages
(docs/caching.md). The JSON twins are web/api/olympiad.py.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import Response

from orchestrator.services.read import board_prizes, ratings
from orchestrator.web.api.olympiad import cached_document
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import in_unit_of_work, render
from orchestrator.web.http.caching import conditional
from orchestrator.web.http.page_cache import page_built
from orchestrator.web.pages.public.events import page_live_url

router = APIRouter(include_in_schema=False)

CSV = "text/csv; charset=utf-8"


def _page(request: Request, template: str, view: Any) -> Response:
    page_built(request, view.topics)
    context = {"view": view, "live_url": page_live_url(view.event, view.topics)}
    return conditional(request, render(request, template, context))


@router.get("/events/{slug}/stages/{stage_key}/board-prizes", dependencies=[allow_public()])
def board_prizes_page(request: Request, slug: str, stage_key: str) -> Response:
    view = in_unit_of_work(request, board_prizes.board_prizes_view, slug=slug, stage_key=stage_key)
    return _page(request, "public/board_prizes.html", view)


@router.get("/events/{slug}/stages/{stage_key}/board-prizes.csv", dependencies=[allow_public()])
def board_prizes_csv(request: Request, slug: str, stage_key: str) -> Response:
    view = in_unit_of_work(request, board_prizes.board_prizes_view, slug=slug, stage_key=stage_key)
    return cached_document(request, view.as_csv(), view.topics, CSV, f"{slug}-{stage_key}-board-prizes.csv")


@router.get("/events/{slug}/ratings", dependencies=[allow_public()])
def ratings_page(request: Request, slug: str) -> Response:
    view = in_unit_of_work(request, ratings.ratings_view, slug=slug)
    return _page(request, "public/ratings.html", view)


@router.get("/events/{slug}/ratings.csv", dependencies=[allow_public()])
def ratings_csv(request: Request, slug: str) -> Response:
    view = in_unit_of_work(request, ratings.ratings_view, slug=slug)
    return cached_document(request, view.as_csv(), view.topics, CSV, f"{slug}-rating-changes.csv")


@router.get("/events/{slug}/players/{player_id}", dependencies=[allow_public()])
def player_page(request: Request, slug: str, player_id: int) -> Response:
    view = in_unit_of_work(request, ratings.player_view, slug=slug, player_id=player_id)
    return _page(request, "public/player.html", view)
