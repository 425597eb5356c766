"""The stand-in game server: a FastAPI app speaking the Lichess protocol subset (docs/gameserver.md).

Lichess paths and payload shapes for OAuth (PKCE), account, bulk pairing, export by ids and stream by
ids; ``/_standin/`` endpoints let tests and demos create accounts, move time and force results. Those
need the admin token (``Settings.standin_admin_token``) in the ``X-Standin-Admin-Token`` header; without a
configured token they refuse every request. For demos and tests only: the stand-in refuses to start in
production (docs/security.md).
"""

from __future__ import annotations

import asyncio
import hmac
import html
import json
import logging
import os
import signal
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.concurrency import run_in_threadpool
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

from orchestrator.config import Settings
from orchestrator.standin.admin import DEFAULT_SCOPES, admin_routes
from orchestrator.standin.faults import RATE_LIMIT_PAGE, FaultPlan
from orchestrator.standin.gamepage import game_page, missing_page
from orchestrator.standin.responses import json_error
from orchestrator.standin.store import WEEK_MS, StandinError, Store, User

log = logging.getLogger(__name__)

CLOCK_LIMITS = frozenset({0, 15, 30, 45, 60, 90}) | frozenset(m * 60 for m in range(2, 181))
RULES = frozenset({"noAbort", "noRematch", "noGiveTime", "noClaimWin", "noEarlyDraw"})
MAX_EXPORT_IDS = 300
MAX_STREAM_IDS = 1000
KEEPALIVE_S = 7.0
STREAM_POLL_S = 0.05
ADMIN_HEADER = "X-Standin-Admin-Token"


class RefusedInProduction(RuntimeError):
    """The stand-in hands out tokens for any account and forces results: never in production."""


def admin_headers(settings: Settings) -> dict[str, str]:
    """The header a client sends to the ``/_standin/`` admin routes (tests, demos, benchmarks)."""
    return {ADMIN_HEADER: settings.standin_admin_token.get_secret_value()}


def _truthy(value: str | None, default: bool) -> bool:
    # berserk sends "True"/"False"; lila reads "true"/"1" too.
    if value is None or value == "":
        return default
    return value.strip().lower() in ("true", "1", "yes")


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class HoldRendererMiddleware:
    """Holds the store's background renderer while an API request is answered, its body sent included.

    The client waits on these answers; the renderer only fills caches and can wait. Game streams are
    long-lived and are not held.
    """

    def __init__(self, app: ASGIApp, store: Store) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path.startswith("/api/") and not path.startswith("/api/stream/"):
            with self.store.serving():
                await self.app(scope, receive, send)
        else:
            await self.app(scope, receive, send)


class FaultMiddleware(BaseHTTPMiddleware):
    """Injects 429 (HTML body), 500 and slow answers on /api/ paths (not the OAuth token exchange)."""

    def __init__(self, app: Any, plan: FaultPlan) -> None:
        super().__init__(app)
        self.plan = plan

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        path = request.url.path
        if path.startswith("/api/") and path != "/api/token":
            fault = self.plan.http_fault()
            if fault == "429":
                headers = {}
                retry_after = self.plan.retry_after()
                if retry_after is not None:
                    headers["Retry-After"] = retry_after
                return HTMLResponse(RATE_LIMIT_PAGE, status_code=429, headers=headers)
            if fault == "500":
                return PlainTextResponse("Internal server error (injected)", status_code=500)
            if fault == "slow":
                await asyncio.sleep(self.plan.slow_s)
        return await call_next(request)


class FreezeMiddleware:
    """The request the admin armed (``POST /_standin/freeze``) stops this process (SIGSTOP) before it is
    handled: the game server is unreachable until the test sends SIGCONT, then carries the request out,
    as a paused server does. For a stand-in running as its own process only."""

    def __init__(self, app: ASGIApp, plan: FaultPlan) -> None:
        self.app = app
        self.plan = plan

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        armed = scope["type"] == "http" and bool(self.plan.freeze_on)
        if armed and self.plan.take_freeze(scope["method"], scope["path"]):
            log.warning("freezing before %s %s (admin request)", scope["method"], scope["path"])
            os.kill(os.getpid(), signal.SIGSTOP)
        await self.app(scope, receive, send)


async def _once(body: bytes) -> AsyncIterator[bytes]:
    if body:
        yield body


def create_standin_app(settings: Settings | None = None, *, prerender: bool = True) -> FastAPI:
    """The stand-in server configured by ``settings`` (speed, seed, faults).

    ``prerender`` renders finished games for export in a background thread (answers are the same
    without it, only slower); the thread stops when the app shuts down.
    """
    settings = settings or Settings()
    if settings.environment == "production":
        raise RefusedInProduction(
            "The stand-in game server is for demos and tests: it refuses to start with "
            "OLYMPIAD_ENVIRONMENT=production. Point OLYMPIAD_GAMESERVER_URL at the real game server."
        )
    admin_token = settings.standin_admin_token.get_secret_value().encode()
    plan = FaultPlan.from_text(
        settings.standin_faults, settings.standin_fault_rate, settings.standin_seed, settings.standin_slow_s
    )
    store = Store(
        speed=settings.standin_speed,
        seed=settings.standin_seed,
        faults=plan,
        base_url=settings.gameserver_url.rstrip("/"),
        prerender=prerender,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store.warm_lines()  # while the client sets up (accounts, tokens), before the first game
        try:
            yield
        finally:
            store.close()

    app = FastAPI(
        title="Olympiad stand-in game server", docs_url="/_standin/docs", openapi_url=None, lifespan=lifespan
    )
    app.state.store = store
    app.add_middleware(HoldRendererMiddleware, store=store)  # inside the faults: a slow fault holds nothing
    if plan.kinds & {"429", "500", "slow"} and plan.rate > 0:
        app.add_middleware(FaultMiddleware, plan=plan)
    app.add_middleware(FreezeMiddleware, plan=plan)

    @app.exception_handler(StandinError)
    async def _standinjson_error(request: Request, exc: StandinError) -> JSONResponse:
        return json_error(exc.status_code, exc.body)

    @app.exception_handler(ClientDisconnect)
    async def _gone(request: Request, exc: ClientDisconnect) -> Response:
        # The client gave up (e.g. after a "slow" fault): nothing to answer, nothing was changed.
        return Response(status_code=499)

    def admin(request: Request) -> None:
        if not admin_token:
            raise StandinError(403, {"error": "Admin routes are off: set OLYMPIAD_STANDIN_ADMIN_TOKEN"})
        given = request.headers.get(ADMIN_HEADER, "").encode()
        if not hmac.compare_digest(given, admin_token):
            raise StandinError(401, {"error": f"Send the admin token in the {ADMIN_HEADER} header"})

    app.include_router(_oauth_routes(store))
    app.include_router(_bulk_routes(store))
    app.include_router(_export_routes(store))
    app.include_router(admin_routes(store, plan, admin))
    app.include_router(_game_page_routes(store))  # last: /{game_id} takes any one-segment path left
    return app


def _game_page_routes(store: Store) -> APIRouter:
    """A game's page at its address (``Site`` of its PGN, the orchestrator's ``game_url``): gamepage.py."""
    router = APIRouter()

    @router.get("/{game_id}", response_class=HTMLResponse)
    def watch(game_id: str) -> HTMLResponse:
        now = store.tick()
        game = store.games.get(game_id)
        if game is None or game.created_at is None:
            return HTMLResponse(missing_page(game_id), status_code=404)
        return HTMLResponse(game_page(store, store.view(game, now)))

    return router


def _authenticator(store: Store) -> Callable[..., User]:
    """The account behind a request's bearer token, refused without it or without ``scope``."""

    def authed(request: Request, scope: str | None = None) -> User:
        found = store.token_user(_bearer(request))
        if found is None:
            raise StandinError(401, {"error": "No such token"})
        user, info = found
        if scope is not None and scope not in info.scopes:
            raise StandinError(403, {"error": f"Missing scope {scope}"})
        return user

    return authed


def _oauth_routes(store: Store) -> APIRouter:
    """OAuth (authorization code with PKCE), token revocation and the account."""
    router = APIRouter()
    authed = _authenticator(store)

    @router.get("/oauth", response_class=HTMLResponse)
    def authorize(request: Request) -> Response:
        q = request.query_params
        redirect_uri = q.get("redirect_uri", "")
        if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256":
            return HTMLResponse("response_type=code and code_challenge_method=S256 are required", 400)
        if not redirect_uri or not q.get("code_challenge") or not q.get("client_id"):
            return HTMLResponse("client_id, redirect_uri and code_challenge are required", 400)
        username = (q.get("username") or "").strip()
        if not username:
            hidden = "".join(
                f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                for k, v in q.items()
                if k != "username"
            )
            return HTMLResponse(
                "<!DOCTYPE html><title>Stand-in: authorize</title><h1>Stand-in game server</h1>"
                f"<p>{html.escape(q.get('client_id', ''))} asks to use your account.</p>"
                f'<form method="get" action="/oauth">{hidden}'
                '<label>Username <input name="username" required pattern="[A-Za-z0-9_-]{2,30}"></label> '
                '<label>Rating <input name="rating" type="number" min="400" max="3400"></label> '
                "<button>Authorize</button></form>"
            )
        if not all(c.isalnum() or c in "_-" for c in username) or len(username) > 30:
            return HTMLResponse("invalid username", 400)
        rating = q.get("rating")
        user = store.user(username, int(rating) if rating and rating.isascii() and rating.isdigit() else None)
        scopes = frozenset((q.get("scope") or "").split()) or DEFAULT_SCOPES
        code = store.issue_code(
            client_id=q["client_id"],
            redirect_uri=redirect_uri,
            challenge=q["code_challenge"],
            user=user,
            scopes=scopes,
        )
        params = {"code": code}
        if q.get("state") is not None:
            params["state"] = q["state"]
        joiner = "&" if "?" in redirect_uri else "?"
        return RedirectResponse(f"{redirect_uri}{joiner}{urlencode(params)}", status_code=303)

    @router.post("/api/token")
    async def token(request: Request) -> JSONResponse:
        form = await request.form()
        if form.get("grant_type") != "authorization_code":
            return json_error(400, {"error": "unsupported_grant_type"})
        access = store.redeem_code(
            code=str(form.get("code") or ""),
            verifier=str(form.get("code_verifier") or ""),
            redirect_uri=str(form.get("redirect_uri") or ""),
            client_id=str(form.get("client_id") or ""),
        )
        return JSONResponse({"token_type": "Bearer", "access_token": access, "expires_in": 31536000})

    @router.delete("/api/token")
    def revoke(request: Request) -> Response:
        token = _bearer(request)
        if token:
            store.revoke(token)
        return Response(status_code=204)

    @router.get("/api/account")
    def account(request: Request) -> JSONResponse:
        user = authed(request)
        return JSONResponse(
            {
                "id": user.id,
                "username": user.username,
                "createdAt": user.created_at,
                "perfs": {"rapid": {"games": 0, "rating": user.rating, "rd": 60, "prog": 0}},
                "url": f"{store.base_url}/@/{user.username}",
            }
        )

    return router


def _bulk_routes(store: Store) -> APIRouter:
    """Bulk pairing: list, create, show, cancel, start the clocks, export the games."""
    router = APIRouter()
    authed = _authenticator(store)

    @router.get("/api/bulk-pairing")
    def list_bulks(request: Request) -> JSONResponse:
        user = authed(request, "challenge:bulk")
        store.tick()
        return JSONResponse({"bulks": [store.bulk_json(b) for b in store.listed_bulks(user)]})

    @router.post("/api/bulk-pairing")
    async def create_bulk(request: Request) -> JSONResponse:
        owner = authed(request, "challenge:bulk")
        form = await request.form()
        fields = {k: str(v) for k, v in form.items()}
        return JSONResponse(store.bulk_json(_create_bulk(store, owner, fields)))

    @router.get("/api/bulk-pairing/{bulk_id}")
    def show_bulk(bulk_id: str, request: Request) -> JSONResponse:
        user = authed(request, "challenge:bulk")
        return JSONResponse(store.bulk_json(store.bulk(bulk_id, user)))

    @router.delete("/api/bulk-pairing/{bulk_id}")
    def cancel_bulk(bulk_id: str, request: Request) -> JSONResponse:
        store.cancel_bulk(bulk_id, authed(request, "challenge:bulk"))
        return JSONResponse({"ok": True})

    @router.post("/api/bulk-pairing/{bulk_id}/start-clocks")
    def start_clocks(bulk_id: str, request: Request) -> JSONResponse:
        store.start_clocks(bulk_id, authed(request, "challenge:bulk"))
        return JSONResponse({"ok": True})

    @router.get("/api/bulk-pairing/{bulk_id}/games")
    def bulk_games(bulk_id: str, request: Request) -> Response:
        bulk = store.bulk(bulk_id, authed(request, "challenge:bulk"))
        return _export(store, request, list(bulk.game_ids), truncate=True)

    return router


def _export_routes(store: Store) -> APIRouter:
    """Game export by ids and the game streams."""
    router = APIRouter()

    @router.post("/api/games/export/_ids")
    async def export_ids(request: Request) -> Response:
        body = (await request.body()).decode(errors="replace")
        ids = [part.strip() for part in body.split(",") if part.strip()][:MAX_EXPORT_IDS]
        # One hop to a worker thread: games not rendered yet must not hold up the event loop (streams).
        return await run_in_threadpool(_export, store, request, ids, truncate=True)

    @router.get("/api/games/user/{username}")
    async def user_games(username: str, request: Request) -> Response:
        """A player's games (``vs``, ``since``, ``until``, ``max``, ``ongoing``, ``finished``)."""
        q = request.query_params
        ids = store.user_game_ids(
            username,
            vs=q.get("vs"),
            since=_int_query(q.get("since")),
            until=_int_query(q.get("until")),
            ongoing=_truthy(q.get("ongoing"), False),
            finished=_truthy(q.get("finished"), True),
            limit=_int_query(q.get("max")),
        )
        return await run_in_threadpool(_export, store, request, ids, truncate=False)

    streams: dict[str, set[str]] = {}

    @router.post("/api/stream/games/{stream_id}")
    async def stream_ids(stream_id: str, request: Request) -> StreamingResponse:
        body = (await request.body()).decode(errors="replace")
        watched = {part.strip() for part in body.split(",") if part.strip()}
        watched = set(list(watched)[:MAX_STREAM_IDS])
        streams[stream_id] = watched

        async def events() -> AsyncIterator[str]:
            sent: dict[str, str] = {}
            idle = 0.0
            try:
                while True:
                    emitted = False
                    for view in store.views(sorted(streams.get(stream_id, set()))):
                        if sent.get(view.game.id) == view.status:
                            continue
                        if view.game.id in sent and not view.finished:
                            continue  # only starts and ends are events
                        sent[view.game.id] = view.status
                        emitted = True
                        yield json.dumps(store.stream_json(view), separators=(",", ":")) + "\n"
                        if view.finished:
                            streams.get(stream_id, set()).discard(view.game.id)
                    idle = 0.0 if emitted else idle + STREAM_POLL_S
                    if idle >= KEEPALIVE_S:
                        idle = 0.0
                        yield "\n"
                    await asyncio.sleep(STREAM_POLL_S)
            finally:
                if streams.get(stream_id) is watched:
                    streams.pop(stream_id, None)

        return StreamingResponse(events(), media_type="application/x-ndjson")

    @router.post("/api/stream/games/{stream_id}/add")
    async def stream_add(stream_id: str, request: Request) -> JSONResponse:
        body = (await request.body()).decode(errors="replace")
        ids = {part.strip() for part in body.split(",") if part.strip()}
        if stream_id not in streams:
            return json_error(404, {"error": "Not found."})
        streams[stream_id].update(ids)
        return JSONResponse({"ok": True})

    return router


def _export(store: Store, request: Request, ids: list[str], *, truncate: bool) -> Response:
    """The export of ``ids``, made whole before it is sent (one write instead of one per line).

    Lines come from the store's cached pieces (``Store.export_line``); a truncate fault draws once
    per line, in line order, as before.
    """
    q = request.query_params
    views = store.views(ids)
    flags = {
        "moves": _truthy(q.get("moves"), True),
        "pgn_in_json": _truthy(q.get("pgnInJson"), False),
        "clocks": _truthy(q.get("clocks"), False),
        "tags": _truthy(q.get("tags"), True),
    }
    if "application/x-ndjson" in request.headers.get("accept", ""):
        lines = [store.export_line(view, **flags) for view in views]
        if truncate:
            lines = [store.faults.truncate_line(line) for line in lines]
        body = "".join(line + "\n" for line in lines).encode()
        return StreamingResponse(_once(body), media_type="application/x-ndjson")
    pgns = [store.pgn(v, clocks=flags["clocks"], tags=flags["tags"]) for v in views]
    return PlainTextResponse("\n".join(pgns), media_type="application/x-chess-pgn")


def _int_query(raw: str | None) -> int | None:
    """A whole-number query parameter; anything else is left out (as Lichess ignores it)."""
    try:
        return int(raw) if raw else None
    except ValueError:
        return None


def _int_field(fields: dict[str, str], name: str, low: int, high: int) -> int | None:
    raw = fields.get(name)
    if raw is None or raw == "":
        return None
    try:
        value = int(raw)
    except ValueError:
        raise StandinError(400, {"error": {name: ["Invalid value"]}}) from None
    if not low <= value <= high:
        raise StandinError(400, {"error": {name: [f"Must be between {low} and {high}"]}})
    return value


def _create_bulk(store: Store, owner: User, fields: dict[str, str]) -> Any:
    """Validate a bulk form like lila's BulkPairing controller and create it; any problem rejects all."""
    now = store.clock.now_ms()
    if fields.get("days"):
        raise StandinError(400, {"error": "The stand-in plays real-time games only (no days)"})
    limit = _int_field(fields, "clock.limit", 0, 10800)
    increment = _int_field(fields, "clock.increment", 0, 60)
    if limit is None or increment is None:
        raise StandinError(400, {"error": {"clock": ["clock.limit and clock.increment are required"]}})
    if limit not in CLOCK_LIMITS:
        raise StandinError(400, {"error": {"clock.limit": ["Invalid clock limit"]}})
    clock = {"limit": limit, "increment": increment}
    # Extension: unequal clocks (Armageddon 5 v 4 min). Not in Lichess; see docs/gameserver.md.
    white_limit = _int_field(fields, "clock.whiteLimit", 0, 10800)
    black_limit = _int_field(fields, "clock.blackLimit", 0, 10800)
    if white_limit is not None or black_limit is not None:
        clock["whiteLimit"] = white_limit if white_limit is not None else limit
        clock["blackLimit"] = black_limit if black_limit is not None else limit
    pair_at = _int_field(fields, "pairAt", 0, now + WEEK_MS)
    start_clocks_at = _int_field(fields, "startClocksAt", 0, now + WEEK_MS)
    variant = fields.get("variant") or "standard"
    if variant != "standard":
        raise StandinError(400, {"error": f"The stand-in plays standard chess only, not {variant}"})
    rules = tuple(r for r in (fields.get("rules") or "").split(",") if r)
    if any(r not in RULES for r in rules):
        raise StandinError(400, {"error": {"rules": ["Invalid rule"]}})
    message = fields.get("message")
    if message is not None and "{game}" not in message:
        raise StandinError(400, {"error": {"message": ["Must contain {game}"]}})
    pairs_text = [p for p in (fields.get("players") or "").split(",") if p.strip()]
    if not pairs_text:
        raise StandinError(400, {"error": {"players": ["This field is required"]}})
    if len(pairs_text) > 500:
        raise StandinError(400, {"error": {"players": ["At most 500 games"]}})
    bad: dict[str, str] = {}
    pairs: list[tuple[User, User]] = []
    seen_tokens: set[str] = set()
    for pair in pairs_text:
        tokens = [t.strip() for t in pair.split(":")]
        if len(tokens) != 2 or not all(tokens):
            raise StandinError(400, {"error": {"players": ["Invalid pairing"]}})
        users: list[User] = []
        for token in tokens:
            found = store.token_user(token)
            if token in seen_tokens:
                bad[token] = "Duplicate token"
            elif found is None:
                bad[token] = "Invalid token"
            elif "challenge:write" not in found[1].scopes:
                bad[token] = "Missing scope challenge:write"
            seen_tokens.add(token)
            if found is not None:
                users.append(found[0])
        if len(users) == 2:
            pairs.append((users[0], users[1]))
    if bad:
        # Lichess echoes the raw tokens; the client must never log this body.
        raise StandinError(400, {"tokens": bad})
    counts: dict[str, int] = {}
    for white, black in pairs:
        for user in (white, black):
            counts[user.id] = counts.get(user.id, 0) + 1
    duplicates = sorted(uid for uid, n in counts.items() if n > 1)
    if duplicates:
        raise StandinError(400, {"duplicateUsers": duplicates})
    return store.create_bulk(
        owner=owner,
        pairs=pairs,
        pair_at=pair_at,
        start_clocks_at=start_clocks_at,
        rated=_truthy(fields.get("rated"), False),
        variant=variant,
        clock=clock,
        rules=rules,
        message=message,
    )
