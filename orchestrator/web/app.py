"""The FastAPI application: ``create_app(settings=None)``.

Server-rendered Jinja2 pages (templates/ at the repository root) that work without JavaScript, a JSON API
under /api/v1 with OpenAPI docs at /api/v1/docs, a signed session cookie, CSRF on every unsafe request
and an access rule on every route (web/auth.py).
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import quote, unquote

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.sessions import SessionMiddleware
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from orchestrator.adapters.mailer import mailer_for
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings, configuration_warnings, get_settings, secret_key_of
from orchestrator.db import REPO_ROOT, get_session_factory, init_db, is_sqlite
from orchestrator.errors import NotAuthenticated, ServiceError, StaleEdit, ValidationFailed
from orchestrator.jobs import bodies, runtime
from orchestrator.jobs.scheduler import EagerScheduler
from orchestrator.services import live_redis
from orchestrator.web import (
    domain_text,
    i18n,
    routes_api_playoff,
    routes_api_public,
    routes_api_results,
    routes_api_setup,
    routes_api_swiss,
    routes_auth,
    routes_captain,
    routes_chesscom,
    routes_language,
    routes_late_changes,
    routes_links,
    routes_notify,
    routes_playoff,
    routes_public,
    routes_public_combined,
    routes_staff_dashboard,
    routes_staff_results,
    routes_staff_setup,
    routes_staff_swiss,
    sse,
    staff_nav,
    timefmt,
)
from orchestrator.web.auth import PUBLIC, allow_public, current_user, register_route_rule
from orchestrator.web.csrf import csrf_token
from orchestrator.web.deps import current_value_json, language_of, render, wants_json
from orchestrator.web.page_cache import PageCache, PageCacheMiddleware
from orchestrator.web.routes_public_olympiad import api as olympiad_api
from orchestrator.web.routes_public_olympiad import pages as olympiad_pages
from orchestrator.web.validation import BodySizeLimit, check_request_input, too_large

log = logging.getLogger(__name__)

TEMPLATES_DIR = REPO_ROOT / "templates"
STATIC_DIR = REPO_ROOT / "orchestrator" / "web" / "static"
SESSION_COOKIE = "olympiad_session"
API_DOCS = "/api/v1/docs"
API_SCHEMA = "/api/v1/openapi.json"

# No inline scripts or styles: the pages work without JavaScript, and any script is a static file.
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
)
# The Swagger UI page loads its assets from a CDN and runs an inline bootstrap script.
DOCS_CSP = (
    "default-src 'self'; img-src 'self' data: https://fastapi.tiangolo.com; "
    "style-src 'self' https://cdn.jsdelivr.net; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'"
)


def _encoded(*headers: tuple[str, str]) -> tuple[tuple[bytes, bytes], ...]:
    return tuple((name.encode(), value.encode()) for name, value in headers)


_ALWAYS = _encoded(
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "same-origin"),
    ("permissions-policy", "camera=(), microphone=(), geolocation=(), payment=()"),
    ("cross-origin-opener-policy", "same-origin"),
)
_CSP = _encoded(("content-security-policy", CSP))
_DOCS_CSP = _encoded(("content-security-policy", DOCS_CSP))
_NO_STORE = _encoded(("cache-control", "private, no-store"))
_HSTS = _encoded(("strict-transport-security", "max-age=31536000; includeSubDomains"))


class SecurityHeaders:
    """Pure ASGI middleware (safe for streamed SSE responses) adding the security headers that the answer
    does not set itself."""

    def __init__(self, app: ASGIApp, *, hsts: bool) -> None:
        self.app = app
        self.hsts = hsts

    def headers_for(self, path: str) -> tuple[tuple[bytes, bytes], ...]:
        added = _ALWAYS + (_DOCS_CSP if path == API_DOCS else _CSP)
        if not path.startswith("/static/"):  # public pages say otherwise (web/caching.py)
            added += _NO_STORE
        return added + _HSTS if self.hsts else added

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        added = self.headers_for(scope.get("path", ""))

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers.extend(header for header in added if header[0] not in present)
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)


class RedactInvitationTokens(logging.Filter):
    """Access logs print request paths; some carry a secret: invitation links (``/invitation/<token>``),
    player links (``/link/<token>``) and the OAuth answer (``/link/callback?code=...&state=...``)."""

    patterns = (
        (re.compile(r"(/invitation/)[^\s/?\"]+"), r"\1[redacted]"),
        (re.compile(r"(/link/)(?!callback(?:[\s/?\"]|$))[^\s/?\"]+"), r"\1[redacted]"),
        (re.compile(r"([?&](?:code|state)=)[^\s&#\"]+"), r"\1[redacted]"),
    )

    # Text none of the patterns can match has none of these (one test for every line of the access log).
    markers = ("/invitation/", "/link/", "code=", "state=")

    def redact(self, text: str) -> str:
        """``text`` with the secrets of ``patterns`` replaced. The server percent-decodes a path before
        routing it (``/%6cink/<token>`` is ``/link/<token>``), so a text with an escape is decoded first,
        until it no longer changes, and logged decoded when something in it was redacted (control
        characters escaped, so a decoded path cannot write a second log line)."""
        if "%" in text:
            decoded = _fully_unquoted(text)
            redacted = self._redacted(decoded)
            if redacted != decoded:
                return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", redacted)
        return self._redacted(text)

    def _redacted(self, text: str) -> str:
        if not any(marker in text for marker in self.markers):
            return text
        for pattern, replacement in self.patterns:
            text = pattern.sub(replacement, text)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args:
            record.args = tuple(self.redact(a) if isinstance(a, str) else a for a in record.args)
        if isinstance(record.msg, str):
            record.msg = self.redact(record.msg)
        return True


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _fully_unquoted(text: str) -> str:
    """``text`` percent-decoded until it no longer changes (a few rounds at most)."""
    for _round in range(4):
        decoded = unquote(text)
        if decoded == text:
            break
        text = decoded
    return text


def _install_log_redaction() -> None:
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactInvitationTokens) for f in logger.filters):
            logger.addFilter(RedactInvitationTokens())


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
    problems = [
        f"{'.'.join(str(p) for p in error.get('loc', ())[1:]) or 'request'}: {error.get('msg', 'invalid')}"
        for error in exc.errors()
    ]
    return _error_response(request, 422, i18n.N_("The request could not be read."), problems=problems)


def _start_eager_scheduler(settings: Settings, uow_factory: Any) -> Any:
    """Eager mode has no beat: with ``Settings.eager_scheduler`` a thread runs every periodic job (open due
    rounds, pull results, the play-off tick) every ``eager_scheduler_s`` (docs/workers.md)."""
    if settings.task_mode != "eager" or not settings.eager_scheduler:
        return None
    runtime.configure(settings, uow_factory=uow_factory)  # the jobs use this app's database
    return EagerScheduler(bodies.periodic_tick, settings.eager_scheduler_s).start()


_ROUTERS = (
    routes_auth.router,
    routes_auth.api,
    routes_language.router,
    routes_links.router,
    routes_public.router,
    routes_api_public.router,
    routes_public_combined.router,
    sse.router,
    routes_staff_results.router,
    routes_api_results.router,
    routes_late_changes.router,
    routes_late_changes.api,
    routes_staff_setup.router,
    routes_staff_dashboard.router,  # after setup's /staff/events/new
    routes_staff_dashboard.api,
    routes_api_setup.staff,
    routes_api_setup.public,
    routes_playoff.router,
    routes_captain.router,
    routes_api_playoff.router,
    routes_chesscom.router,
    routes_api_swiss.router,
    routes_staff_swiss.router,
    olympiad_pages,  # board prizes, ratings, players, rating files (docs/board-prizes.md, docs/ratings.md)
    olympiad_api,
    routes_notify.router,  # account notifications, staff outbox, team calendar (docs/notifications.md)
    routes_notify.api,
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
    """The FastAPI application with the public page cache (web/page_cache.py) in front of everything: a page
    kept there is answered before FastAPI and the middleware run (the security headers were kept with it),
    so a cached page costs the server a few microseconds of Python. A request the cache does not answer
    goes through FastAPI as usual, and an anonymous page built then is kept with all its headers."""

    front: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.front is None:
            await super().__call__(scope, receive, send)
        else:
            await self.front(scope, receive, send)

    def put_cache_in_front(self, store: PageCache) -> None:
        self.front = PageCacheMiddleware(super().__call__, store=store, session_cookie=SESSION_COOKIE)


def healthz(request: Request) -> JSONResponse:
    """Liveness and database reachability (no details that could help an attacker)."""
    try:
        with request.app.state.uow_factory() as uow:
            ok = uow.health.ping()
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
        # Input checks for every route (web/validation.py): ids past the database's range, unstorable text.
        dependencies=[Depends(check_request_input)],
    )
    app.state.settings = settings
    app.state.uow_factory = uow_factory or (lambda: UnitOfWork(session_factory))
    app.state.page_cache = PageCache()  # public pages built once per change (web/page_cache.py)
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

    _install_log_redaction()
    return app
