"""Request-scoped helpers for routes: settings, units of work, templates, the client address."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Concatenate, ParamSpec, TypeVar
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.templating import Jinja2Templates
from pydantic import BaseModel
from starlette.responses import PlainTextResponse, Response

from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.errors import CurrentValue
from orchestrator.web import i18n
from orchestrator.web.timefmt import page_zone, page_zone_of


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_uow_factory(request: Request) -> UnitOfWorkFactory:
    """A factory, not an open unit of work: routes commit before rendering (``with factory() as uow``)."""
    factory: UnitOfWorkFactory = request.app.state.uow_factory
    return factory


P = ParamSpec("P")
T = TypeVar("T")


def in_unit_of_work(
    request: Request, use_case: Callable[Concatenate[UnitOfWork, P], T], /, *args: P.args, **kwargs: P.kwargs
) -> T:
    """Run one use case of orchestrator/services/ in a unit of work of its own, committed (or rolled back on
    an error) before the route answers: ``with factory() as uow: return use_case(uow, ...)``."""
    with get_uow_factory(request)() as uow:
        return use_case(uow, *args, **kwargs)


def fields_of(body: BaseModel) -> dict[str, Any]:
    """A JSON body's fields by name, as validated (not dumped: nested values stay as they are), for a use
    case whose arguments are named like them."""
    return dict(body)


def client_ip(request: Request) -> str:
    # Behind a proxy, run uvicorn with --proxy-headers so that request.client is the real address.
    return request.client.host if request.client else ""


def templates(request: Request) -> Jinja2Templates:
    engine: Jinja2Templates = request.app.state.templates
    return engine


def render(
    request: Request, name: str, context: dict[str, Any] | None = None, *, status_code: int = 200
) -> Response:
    """Render ``templates/<name>`` with the common context (user, csrf_token()) in the reader's language,
    its times in the event's zone."""
    language = language_of(request)
    request.scope[i18n.RENDERED] = language  # the page cache keeps it under this language only
    i18n.use(language)
    context = context or {}
    with page_zone(page_zone_of(context)):  # TemplateResponse renders here, in this thread
        return templates(request).TemplateResponse(request, name, context, status_code=status_code)


def language_of(request: Request) -> str:
    """The reader's language: the ``lang`` cookie, else Accept-Language, else English (web/i18n.py)."""
    return i18n.language_of_headers(request.scope.get("headers", ()))


def attachment(text: str, filename: str, media_type: str | None = None) -> Response:
    """A download the browser saves as ``filename`` (plain text unless ``media_type`` says otherwise)."""
    return PlainTextResponse(
        text, media_type=media_type, headers={"Content-Disposition": f'attachment; filename="{filename}"'}
    )


def safe_next(target: str | None, default: str = "/") -> str:
    """A same-site path to go to after login; anything else (other hosts, //evil) becomes ``default``."""
    if not target:
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return default
    if "\\" in target or any(ord(c) < 32 for c in target):
        return default
    return target


def staff_back(target: str, default: str) -> str:
    """The staff page a form's ``back`` field names, to go back to after it; anything else is ``default``."""
    if target.startswith("/staff/") and not target.startswith("//"):
        return target
    return default


def wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def current_value_json(value: CurrentValue) -> dict[str, Any]:
    """A stored value that beat the user's edit, as the API's ``current`` lists show it."""
    return {
        "entity": value.entity,
        "id": value.entity_id,
        "field": value.field,
        "value": value.value,
        "version": value.version,
        "changed_by": value.changed_by,
        "changed_at": value.changed_at.isoformat(),
    }
