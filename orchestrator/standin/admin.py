"""The stand-in's ``/_standin/`` routes for tests and demos: accounts, stand-in time, forced results.

Each needs the admin token (``Settings.standin_admin_token``, docs/security.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse

from orchestrator.domain.gameresults import STATUS_ID
from orchestrator.standin.faults import FaultPlan
from orchestrator.standin.responses import json_error
from orchestrator.standin.store import Game, GameView, Store

DEFAULT_SCOPES = frozenset({"challenge:write", "challenge:bulk", "challenge:read"})


def admin_routes(store: Store, plan: FaultPlan, admin: Callable[[Request], None]) -> APIRouter:
    """The /_standin/ routes for tests and demos; each needs the admin token."""
    router = APIRouter(dependencies=[Depends(admin)])

    @router.post("/_standin/users")
    async def admin_user(request: Request) -> JSONResponse:
        """Create (or re-rate) an account and hand out a fresh personal token."""
        data = await request.json()
        username = str(data.get("username", "")).strip()
        if not username or not all(c.isalnum() or c in "_-" for c in username):
            return json_error(400, {"error": "username required (letters, digits, _ and -)"})
        rating = data.get("rating")
        if rating is not None and (isinstance(rating, bool) or not isinstance(rating, int) or rating < 0):
            return json_error(400, {"error": "rating must be a whole number of at least 0"})
        user = store.user(username, rating)
        scopes = frozenset(data.get("scopes") or DEFAULT_SCOPES)
        return JSONResponse(
            {
                "id": user.id,
                "username": user.username,
                "rating": user.rating,
                "token": store.issue_token(user, scopes, prefix="lip_"),
            }
        )

    @router.get("/_standin/games/{game_id}")
    def admin_game(game_id: str) -> JSONResponse:
        now = store.tick()
        game = store.games.get(game_id)
        if game is None:
            return json_error(404, {"error": "Not found."})
        return JSONResponse(_admin_game_json(store, game, store.view(game, now)))

    @router.post("/_standin/games/{game_id}/result")
    async def admin_force(game_id: str, request: Request) -> JSONResponse:
        """Force a game's end: ``{"status": "resign", "winner": "white"}``."""
        data = await request.json()
        status, winner = str(data.get("status", "")), data.get("winner")
        if status not in STATUS_ID or winner not in (None, "white", "black"):
            return json_error(400, {"error": "status must be a Lichess status name, winner white/black/null"})
        view = store.force_result(game_id, status, winner)
        return JSONResponse(store.game_json(view))

    @router.post("/_standin/time")
    async def admin_time(request: Request) -> JSONResponse:
        """Move stand-in time forward by ``advanceMs`` (pairAt/startClocksAt tests)."""
        data = await request.json()
        advance = data.get("advanceMs", 0)
        if isinstance(advance, bool) or not isinstance(advance, int):
            return json_error(400, {"error": "advanceMs must be a whole number of milliseconds"})
        now = store.clock.advance(advance)
        store.tick()
        return JSONResponse({"now": now})

    @router.post("/_standin/freeze")
    async def admin_freeze(request: Request) -> JSONResponse:
        """Arm a freeze: the next ``method`` ``path`` request stops the server's process before it is
        handled (fault tests; the test sends SIGCONT to resume it)."""
        data = await request.json()
        method, path = str(data.get("method", "POST")).upper(), str(data.get("path", ""))
        if not path.startswith("/api/") or method not in ("GET", "POST", "DELETE"):
            return json_error(400, {"error": "path must start with /api/, method GET, POST or DELETE"})
        plan.freeze_on.add((method, path))
        return JSONResponse({"armed": [method, path]})

    @router.get("/_standin/state")
    def admin_state() -> JSONResponse:
        now = store.tick()
        with store.lock:
            views = [store.view(g, now) for g in store.games.values() if g.created_at is not None]
        return JSONResponse(
            {
                "now": now,
                "speed": store.speed,
                "faults": sorted(plan.kinds),
                "faultRate": plan.rate,
                "users": len(store.users),
                "bulks": len(store.bulks),
                "games": len(store.games),
                "finished": sum(1 for v in views if v.finished),
            }
        )

    return router


def _admin_game_json(store: Store, game: Game, view: GameView) -> dict[str, Any]:
    """A game as the admin route shows it: what it is now and what it was planned to become."""
    return {
        "id": game.id,
        "bulk": game.bulk_id,
        "status": view.status if game.created_at is not None else "created",
        "winner": view.winner,
        "planned": {
            "status": game.plan.status,
            "winner": game.plan.winner,
            "moves": " ".join(game.plan.moves),
            "endsAt": store._real_ms(game, game.plan.end_at_s) if game.clock_start else None,
        },
        "forced": game.forced is not None,
        "createdAt": game.created_at,
        "clockStart": game.clock_start,
    }
