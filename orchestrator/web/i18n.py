"""The reader's language: which language a request is shown in, and the switch's cookie.

The catalogues, the ``gettext`` bound to the current language and the locale-aware numbers and dates are
shared with the e-mails and live in orchestrator/translation.py; this module re-exports them for the web
layer. The language of a request is the ``lang`` cookie (set by the switch in the page footer,
``/lang/<code>``), else the best match of the browser's ``Accept-Language``, else English.
``RequestLanguage`` sets it when a request comes in, so a message a service writes (an error, a conflict)
is in the reader's language too; ``render`` (web/deps.py) sets it again for the template being rendered.
docs/translations.md tells how to add a language.
"""

from __future__ import annotations

import functools

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from orchestrator.translation import (
    DEFAULT,
    LANGUAGES,
    LOCALE_DIR,
    N_,
    current,
    date_text,
    day_text,
    gettext,
    install,
    localize,
    ngettext,
    number,
    speaking,
    translations,
    use,
)

__all__ = [
    "DEFAULT",
    "LANGUAGES",
    "LANG_COOKIE",
    "LANG_COOKIE_MAX_AGE_S",
    "LOCALE_DIR",
    "N_",
    "RequestLanguage",
    "choose",
    "current",
    "date_text",
    "day_text",
    "from_accept_language",
    "gettext",
    "install",
    "localize",
    "ngettext",
    "number",
    "speaking",
    "translations",
    "use",
]

LANG_COOKIE = "lang"
LANG_COOKIE_MAX_AGE_S = 365 * 24 * 3600
# Browser tags that mean one of ours: Norwegian without a written standard and Nynorsk readers get Bokmål.
_ALIASES = {"no": "nb", "nn": "nb"}


def choose(cookie: str | None, accept_language: str | None) -> str:
    """The language of a request: a known ``lang`` cookie, else Accept-Language's best, else English."""
    if cookie in LANGUAGES:
        return str(cookie)
    return from_accept_language(accept_language or "")


# Accept-Language headers up to this length are remembered (``_remembered``); longer ones are parsed
# each time.
_REMEMBERED_HEADER_CHARS = 200


def from_accept_language(header: str) -> str:
    """RFC 9110 12.5.4: the known language with the highest ``q`` (first listed on a tie; ``q=0`` never).
    Browsers send a handful of distinct headers: the short ones are parsed once (every page served from the
    cache asks, web/http/page_cache.py)."""
    if len(header) <= _REMEMBERED_HEADER_CHARS:
        return _remembered(header)
    return _parse_accept_language(header)


@functools.lru_cache(maxsize=512)
def _remembered(header: str) -> str:
    return _parse_accept_language(header)


def _parse_accept_language(header: str) -> str:
    best, best_q = DEFAULT, 0.0
    for part in header.split(","):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        primary = tag.strip().lower().split("-")[0]
        code = _ALIASES.get(primary, primary)
        if code in LANGUAGES and q > best_q:
            best, best_q = code, q
    return best


class RequestLanguage:
    """Pure ASGI middleware: every HTTP request runs in its reader's language (``choose``), so the
    services' messages (``translation.gettext``) are translated where they are written."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            connection = HTTPConnection(scope)
            use(choose(connection.cookies.get(LANG_COOKIE), connection.headers.get("accept-language")))
        await self.app(scope, receive, send)
