"""The staff side of individual results: the lot between players tied for a board prize
(docs/board-prizes.md) and the rating files (docs/ratings.md), which carry birth years and FIDE ids.
"""

from __future__ import annotations

from fastapi import APIRouter, Form, Request
from starlette.responses import RedirectResponse, Response

from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.prizes import lots as prize_lots
from orchestrator.services.read import rating_trf
from orchestrator.web.api.olympiad import TRF
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import attachment, get_uow_factory

router = APIRouter(include_in_schema=False)


@router.post("/staff/events/{slug}/stages/{stage_key}/board-prizes/{board}/lot")
def board_prize_lot(
    request: Request,
    slug: str,
    stage_key: str,
    board: int,
    action: str = Form(""),
    user: AuthUser = require_staff(),
) -> Response:
    with get_uow_factory(request)() as uow:
        prize_lots.board_prize_lot(
            uow, slug=slug, stage_key=stage_key, board=board, action=action, actor=user.username
        )
    return RedirectResponse(f"/events/{slug}/stages/{stage_key}/board-prizes#board-{board}", status_code=303)


@router.get("/staff/pools/{pool_id}/rating.trf")
def pool_rating_file(request: Request, pool_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        filename, text = rating_trf.pool_rating_trf(uow, pool_id=pool_id)
    return attachment(text, filename, TRF)


@router.get("/staff/duels/{duel_id}/rating.trf")
def duel_rating_file(request: Request, duel_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        filename, text = rating_trf.duel_rating_trf(uow, duel_id=duel_id)
    return attachment(text, filename, TRF)
