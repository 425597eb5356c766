"""Individual results of an event as JSON: board prizes (docs/board-prizes.md), rating changes and the
player (docs/ratings.md), the board-prize lot and the rating file (TRF).

The documents are public and cached like the spectator pages (docs/caching.md); the lot and the rating
file (it carries birth years and FIDE ids) are for staff.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from starlette.responses import Response

from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.prizes import lots as prize_lots
from orchestrator.services.read import board_prizes, rating_trf, ratings
from orchestrator.web.api.public import cached_view
from orchestrator.web.auth import allow_public, require_staff
from orchestrator.web.deps import attachment, in_unit_of_work
from orchestrator.web.http.caching import conditional
from orchestrator.web.http.page_cache import page_built

router = APIRouter(prefix="/api/v1", tags=["individual"])

TRF = "text/plain; charset=utf-8"


def cached_document(request: Request, body: bytes | str, topics: tuple[str, ...], media_type: str,
              filename: str | None = None) -> Response:  # fmt: skip
    """A JSON or CSV document of public results (a download with ``filename``), kept by the page cache
    until one of ``topics`` changes and answering conditional requests."""
    page_built(request, topics)
    if filename is not None:
        text = body.decode() if isinstance(body, bytes) else body
        return conditional(request, attachment(text, filename, media_type))
    return conditional(request, Response(body, media_type=media_type))


@router.get(
    "/events/{slug}/stages/{stage_key}/board-prizes",
    summary="Board prizes of a stage: players by performance rating per board, with the lots of ties",
    dependencies=[allow_public()],
)
def get_board_prizes(request: Request, slug: str, stage_key: str) -> Response:
    return cached_view(request, board_prizes.board_prizes_view, slug=slug, stage_key=stage_key)


@router.post(
    "/events/{slug}/stages/{stage_key}/board-prizes/{board}/lot/{action}",
    summary="Commit (publish the hash) or draw the lot between players tied for a board prize",
)
def post_board_prize_lot(
    request: Request,
    slug: str,
    stage_key: str,
    board: int,
    action: Literal["commit", "draw"],
    user: AuthUser = require_staff(),
) -> dict[str, Any]:
    done = in_unit_of_work(
        request,
        prize_lots.board_prize_lot,
        slug=slug,
        stage_key=stage_key,
        board=board,
        action=action,
        actor=user.username,
    )
    return {"action": done.action, "lot": done.lot.public()}


@router.get(
    "/events/{slug}/ratings",
    summary="Rating changes of a rated event (FIDE B.02 8.3), one line per player",
    dependencies=[allow_public()],
)
def get_ratings(request: Request, slug: str) -> Response:
    return cached_view(request, ratings.ratings_view, slug=slug)


@router.get(
    "/events/{slug}/players/{player_id}",
    summary="A player's games round by round; in a rated event with expected scores and rating change",
    dependencies=[allow_public()],
)
def get_player(request: Request, slug: str, player_id: int) -> Response:
    return cached_view(request, ratings.player_view, slug=slug, player_id=player_id)


@router.get("/pools/{pool_id}/rating.trf", summary="TRF-2026 of a pool or Swiss stage with the real players")
def get_pool_rating_file(request: Request, pool_id: int, user: AuthUser = require_staff()) -> Response:
    _, text = in_unit_of_work(request, rating_trf.pool_rating_trf, pool_id=pool_id)
    return Response(text, media_type=TRF)


@router.get("/duels/{duel_id}/rating.trf", summary="TRF-2026 of a duel's two legs with the real players")
def get_duel_rating_file(request: Request, duel_id: int, user: AuthUser = require_staff()) -> Response:
    _, text = in_unit_of_work(request, rating_trf.duel_rating_trf, duel_id=duel_id)
    return Response(text, media_type=TRF)
