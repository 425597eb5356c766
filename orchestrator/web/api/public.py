"""The public JSON API under /api/v1: everything the spectator pages show, with ETag and 304.

Answers are the read models of orchestrator/services/read/ as their ``as_json()`` writes them (their schema
is in the OpenAPI document). Points are integer half-points (``*_half``); tie-break values come as text and as
an exact fraction ``"n/d"``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from orchestrator.services.read import events, matches, stages, standings, swiss, teams
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import in_unit_of_work
from orchestrator.web.http.caching import conditional
from orchestrator.web.http.page_cache import page_built

router = APIRouter(prefix="/api/v1", tags=["public"], dependencies=[allow_public()])


def _json(request: Request, body: bytes, topics: tuple[str, ...] | None = None) -> Response:
    """The answer with its ETag; with ``topics``, kept by the page cache until one of them changes."""
    if topics is not None:
        page_built(request, topics)
    return conditional(request, Response(body, media_type="application/json"))


class ReadView(Protocol):
    @property
    def topics(self) -> tuple[str, ...]: ...

    def as_json(self) -> bytes: ...


def cached_view(request: Request, read_model: Callable[..., ReadView], /, **where: Any) -> Response:
    """A read model of services/read/ as JSON with its ETag, kept by the page cache until one of its topics
    changes (docs/caching.md)."""
    view = in_unit_of_work(request, read_model, **where)
    return _json(request, view.as_json(), view.topics)


@router.get(
    "/events", response_model=tuple[events.EventListItem, ...], summary="Events spectators may follow"
)
def list_events(request: Request) -> Response:
    items = in_unit_of_work(request, events.list_events)
    return _json(request, events.events_json(items), events.LIST_TOPICS)


@router.get("/events/{slug}", response_model=events.EventView, summary="An event and its stage timeline")
def get_event(request: Request, slug: str) -> Response:
    return cached_view(request, events.event_view, slug=slug)


@router.get(
    "/events/{slug}/stages/{stage_key}",
    response_model=stages.StageView,
    summary="A stage: pools with strength and standings, or its duels",
)
def get_stage(request: Request, slug: str, stage_key: str) -> Response:
    return cached_view(request, stages.stage_view, slug=slug, stage_key=stage_key)


@router.get(
    "/events/{slug}/stages/{stage_key}/pools/{letter}",
    response_model=standings.PoolView,
    summary="A pool: standings with every tie-break and separated_by, cross table, rounds",
)
def get_pool(request: Request, slug: str, stage_key: str, letter: str) -> Response:
    return cached_view(request, standings.pool_view, slug=slug, stage_key=stage_key, letter=letter)


@router.get(
    "/events/{slug}/matches/{match_id}",
    response_model=matches.MatchView,
    summary="A match board by board: players, colours, results, game links",
)
def get_match(request: Request, slug: str, match_id: int) -> Response:
    return cached_view(request, matches.match_view, slug=slug, match_id=match_id)


@router.get(
    "/events/{slug}/teams/{team_id}",
    response_model=teams.TeamView,
    summary="A team: roster with each player's games and performance rating, and its matches",
)
def get_team(request: Request, slug: str, team_id: int) -> Response:
    return cached_view(request, teams.team_view, slug=slug, team_id=team_id)


@router.get(
    "/events/{slug}/stages/{stage_key}/swiss",
    response_model=swiss.SwissView,
    summary="A Swiss stage, one round at a time: every round's state, bye and absences, one round's "
    "matches and one standings table (a draft reads as unpaired)",
)
def get_swiss(
    request: Request,
    slug: str,
    stage_key: str,
    round_no: str = Query(
        "",
        alias="round",
        description="The round whose matches are given (default: the round being played or paired, else "
        "the latest published one); the other rounds are listed without their matches.",
    ),
    after: str = Query(
        "",
        description="A complete round: the standings after it (default: after the round given when it is "
        "complete, else after the last complete round). `complete_rounds` lists the choices.",
    ),
) -> Response:
    return cached_view(
        request, swiss.swiss_view, slug=slug, stage_key=stage_key, round_no=round_no, after=after
    )
