"""The FastAPI application: ``create_app(settings=None)``.

Server-rendered Jinja2 pages (templates/ at the repository root) that work without JavaScript, a JSON API
under /api/v1 with OpenAPI docs at /api/v1/docs, a signed session cookie, CSRF on every unsafe request
and an access rule on every route (web/auth.py).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.sessions import SessionMiddleware
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Receive, Scope, Send

from orchestrator.adapters.mailer import mailer_for
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings, configuration_warnings, get_settings, secret_key_of
from orchestrator.db import REPO_ROOT, get_session_factory, init_db, is_sqlite
from orchestrator.errors import NotAuthenticated, ServiceError, StaleEdit, ValidationFailed
from orchestrator.jobs import bodies, runtime
from orchestrator.jobs.scheduler import EagerScheduler
from orchestrator.services import live_redis
from orchestrator.web import domain_text, i18n, staff_nav, timefmt
from orchestrator.web.api import auth as auth_api
from orchestrator.web.api import chesscom as chesscom_api
from orchestrator.web.api import combined as combined_api
from orchestrator.web.api import dashboard as dashboard_api
from orchestrator.web.api import late_changes as late_changes_api
from orchestrator.web.api import notifications as notifications_api
from orchestrator.web.api import olympiad as olympiad_api
from orchestrator.web.api import outlook as outlook_api
from orchestrator.web.api import playoff as playoff_api
from orchestrator.web.api import public as public_api
from orchestrator.web.api import record as record_api
from orchestrator.web.api import results as results_api
from orchestrator.web.api import setup as setup_api
from orchestrator.web.api import swiss as swiss_api
from orchestrator.web.auth import PUBLIC, allow_public, current_user, register_route_rule
from orchestrator.web.deps import current_value_json, language_of, render, wants_json
from orchestrator.web.http import sse
from orchestrator.web.http.compression import CompressAnswers
from orchestrator.web.http.csrf import csrf_token
from orchestrator.web.http.page_cache import PageCache, PageCacheMiddleware
from orchestrator.web.http.security import API_DOCS, SecurityHeaders, install_log_redaction
from orchestrator.web.http.validation import BodySizeLimit, check_request_input, problems_of, too_large
from orchestrator.web.pages.account import login, notifications
from orchestrator.web.pages.captain import lineups
from orchestrator.web.pages.public import bracket, calendar, combined, events, language, player_links
from orchestrator.web.pages.public import olympiad as public_olympiad
from orchestrator.web.pages.public import record as record_page
from orchestrator.web.pages.staff import (
    captains,
    chesscom,
    dashboard,
    late_changes,
    outbox,
    playoff,
    results,
    setup,
    swiss,
    trf_import,
)
from orchestrator.web.pages.staff import olympiad as staff_olympiad
from orchestrator.web.pages.staff import player_links as staff_player_links

log = logging.getLogger(__name__)

TEMPLATES_DIR = REPO_ROOT / "templates"
STATIC_DIR = REPO_ROOT / "orchestrator" / "web" / "static"
SESSION_COOKIE = "olympiad_session"
API_SCHEMA = "/api/v1/openapi.json"


def _template_context(request: Request) -> dict[str, Any]:
    return {
        "current_user": getattr(request.state, "user", None),
        # A callable, so that only pages with a form create a token (and a session cookie).
        "csrf_token": lambda: csrf_token(request),
        "staff_nav": staff_nav.nav_for(request),  # the event's staff pages, on every staff page
    }


def _error_response(request: Request, status_code: int, message: str, **extra: Any) -> Response:
    if wants_json(request):
        return JSONResponse({"detail": message, **extra}, status_code=status_code)
    try:
        current_user(request)  # cached when the route's rule already ran
    except Exception:  # the error page must render even when the database is down
        request.state.user = None
    i18n.use(language_of(request))
    if "problems" in extra:
        extra["problems"] = [i18n.gettext(problem) for problem in extra["problems"]]
    context = {"status_code": status_code, "message": i18n.gettext(message), **extra}  # the web layer's own
    return render(request, "error.html", context, status_code=status_code)


async def _service_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ServiceError)
    if isinstance(exc, NotAuthenticated) and not wants_json(request) and request.method in ("GET", "HEAD"):
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse(f"/login?next={quote(target, safe='/')}", status_code=303)
    extra: dict[str, Any] = {}
    if isinstance(exc, ValidationFailed):
        extra["problems"] = list(exc.problems)
    if isinstance(exc, StaleEdit):
        extra["current"] = [current_value_json(c) for c in exc.current]
    response = _error_response(request, exc.status_code, exc.message, **extra)
    retry_after = getattr(exc, "retry_after_s", None)
    if retry_after:
        response.headers["Retry-After"] = str(retry_after)
    return response


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    messages = {
        404: i18n.N_("This page does not exist."),
        405: i18n.N_("This action is not available here."),
        413: too_large(),
    }
    message = messages.get(exc.status_code, str(exc.detail))
    response = _error_response(request, exc.status_code, message)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    problems = problems_of(exc.errors())
    return _error_response(request, 422, i18n.N_("The request could not be read."), problems=problems)


def _start_eager_scheduler(settings: Settings, uow_factory: Any) -> Any:
    """Eager mode has no beat: with ``Settings.eager_scheduler`` a thread runs every periodic job (open due
    rounds, pull results, the play-off tick) every ``eager_scheduler_s`` (docs/workers.md)."""
    if settings.task_mode != "eager" or not settings.eager_scheduler:
        return None
    runtime.configure(settings, uow_factory=uow_factory)  # the jobs use this app's database
    return EagerScheduler(bodies.periodic_tick, settings.eager_scheduler_s).start()


_ROUTERS = (  # the order matters where two paths can match one address
    login.router,
    auth_api.router,
    language.router,
    player_links.router,  # /link/callback before /link/{token}
    staff_player_links.router,
    events.router,
    public_api.router,
    record_page.router,  # the public record (docs/record.md)
    record_api.router,
    outlook_api.router,  # chances and needs (docs/needs.md)
    combined.router,
    combined_api.router,
    sse.router,
    results.router,
    results_api.router,
    late_changes.router,
    late_changes_api.router,
    setup.router,
    trf_import.router,  # /staff/events/import-trf before the dashboard's /staff/events/{slug}
    dashboard.router,  # after setup's /staff/events/new
    dashboard_api.router,
    setup_api.staff,
    setup_api.public,
    bracket.router,
    playoff.router,
    lineups.router,
    captains.router,
    playoff_api.router,
    chesscom.router,
    chesscom_api.router,
    swiss_api.router,
    swiss.router,
    public_olympiad.router,  # board prizes, ratings, players (docs/board-prizes.md, docs/ratings.md)
    staff_olympiad.router,  # the board-prize lot, rating files
    olympiad_api.router,
    notifications.router,  # account notifications, staff outbox, team calendar (docs/notifications.md)
    outbox.router,
    calendar.router,
    notifications_api.router,
)


def _add_middleware(app: FastAPI, settings: Settings) -> None:
    """The signed session cookie, the reader's language, the security headers and the body size limit (the
    public page cache is in front of them all: ``OlympiadApp``)."""
    https = settings.public_base_url.startswith("https://")
    app.add_middleware(
        SessionMiddleware,
        secret_key=secret_key_of(settings),  # the configured key, else data_dir's (docs/security.md)
        session_cookie=SESSION_COOKIE,
        max_age=settings.session_max_age_s,
        same_site="lax",
        https_only=https,
    )
    app.add_middleware(i18n.RequestLanguage)  # inside the cache: only a request that reaches a route needs it
    app.add_middleware(SecurityHeaders, hsts=https)
    app.add_middleware(BodySizeLimit)


class OlympiadApp(FastAPI):
    """The FastAPI application with the public page cache (web/http/page_cache.py) in front of everything: a
    page kept there is answered before FastAPI and the middleware run (the security headers were kept with
    it), so a cached page costs the server a few microseconds of Python. A request the cache does not answer
    goes through FastAPI as usual, and an anonymous page built then is kept with all its headers."""

    front: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.front is None:
            await super().__call__(scope, receive, send)
        else:
            await self.front(scope, receive, send)

    def put_cache_in_front(self, store: PageCache) -> None:
        """The cache, and in front of it the compression of the answers it does not keep (the kept ones
        are compressed by the cache, once per encoding: web/http/compression.py)."""
        cache = PageCacheMiddleware(super().__call__, store=store, session_cookie=SESSION_COOKIE)
        self.front = CompressAnswers(cache)


def healthz(request: Request) -> JSONResponse:
    """Liveness and database reachability (no details that could help an attacker)."""
    try:
        with request.app.state.uow_factory() as uow:
            ok = uow.read.ping()
    except Exception:
        log.exception("health check: database unreachable")
        ok = False
    body = {"status": "ok" if ok else "unavailable", "database": "ok" if ok else "unreachable"}
    return JSONResponse(body, status_code=200 if ok else 503)


def create_app(settings: Settings | None = None, *, uow_factory: Any = None) -> OlympiadApp:
    """Build the web application for ``settings`` (default: the environment's)."""
    settings = settings or get_settings()
    session_factory = get_session_factory(settings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        # A SQLite file needs no set-up; PostgreSQL is migrated by the operator (init_db / alembic).
        if is_sqlite(settings.sqlalchemy_url):
            init_db(settings)
        live_redis.install_publisher(settings)  # other processes' spectators hear this one's changes
        listener = live_redis.start_listener(settings)
        scheduler = _start_eager_scheduler(settings, _app.state.uow_factory)
        log.info("notifications: %s", mailer_for(settings).describe())  # where mail goes (never a password)
        for warning in configuration_warnings(settings):  # also on the staff dashboard
            log.warning("%s", warning)
        yield
        if scheduler is not None:
            scheduler.stop()
        if listener is not None:
            listener.stop()

    app = OlympiadApp(
        title="Olympiad orchestrator",
        version="0.1.0",
        openapi_url=API_SCHEMA,
        docs_url=API_DOCS,
        redoc_url=None,
        swagger_ui_oauth2_redirect_url=API_DOCS + "/oauth2-redirect",
        lifespan=lifespan,
        # Input checks for every route (web/http/validation.py): ids past the database's range, unstorable
        # text.
        dependencies=[Depends(check_request_input)],
    )
    app.state.settings = settings
    app.state.uow_factory = uow_factory or (lambda: UnitOfWork(session_factory))
    app.state.page_cache = PageCache()  # public pages built once per change (web/http/page_cache.py)
    app.state.templates = Jinja2Templates(
        directory=str(TEMPLATES_DIR), context_processors=[_template_context]
    )
    timefmt.install(app.state.templates.env)  # times in the event's zone (and the reader's)
    i18n.install(app.state.templates.env)  # the reader's language (web/i18n.py, docs/translations.md)
    app.state.templates.env.filters["value_text"] = domain_text.value_text  # a stored status or kind

    _add_middleware(app, settings)
    app.put_cache_in_front(app.state.page_cache)
    app.add_exception_handler(ServiceError, _service_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    for router in _ROUTERS:
        app.include_router(router)
    app.get("/healthz", dependencies=[allow_public()], tags=["health"])(healthz)

    app.mount("/static", StaticFiles(directory=str(STATIC_DIR)), name="static")
    register_route_rule("/static", PUBLIC)
    register_route_rule(API_SCHEMA, PUBLIC)
    register_route_rule(API_DOCS, PUBLIC)
    register_route_rule(API_DOCS + "/oauth2-redirect", PUBLIC)

    install_log_redaction()
    return app
