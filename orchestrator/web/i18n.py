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
from collections.abc import Iterable

from starlette.requests import cookie_parser
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
    "cookies_of",
    "current",
    "date_text",
    "day_text",
    "from_accept_language",
    "gettext",
    "install",
    "language_of_headers",
    "localize",
    "ngettext",
    "number",
    "speaking",
    "translations",
    "use",
]

LANG_COOKIE = "lang"
# Where a request's scope says which language its page was rendered in (web/deps.py ``render``): the page
# cache keeps a page only under that language (web/http/page_cache.py).
RENDERED = "olympiad.language"
LANG_COOKIE_MAX_AGE_S = 365 * 24 * 3600
# Browser tags that mean one of ours: Norwegian without a written standard and Nynorsk readers get Bokmål.
_ALIASES = {"no": "nb", "nn": "nb"}


def choose(cookie: str | None, accept_language: str | None) -> str:
    """The language of a request: a known ``lang`` cookie, else Accept-Language's best, else English."""
    if cookie in LANGUAGES:
        return str(cookie)
    return from_accept_language(accept_language or "")


def cookies_of(headers: Iterable[tuple[bytes, bytes]]) -> dict[str, str]:
    """The request's cookies, parsed once for everyone who reads them (the page cache, the language, the
    session check): every ``Cookie`` header, joined, read by Starlette's ``cookie_parser`` (names and values
    trimmed, quotes removed, a repeated name's last value wins). A page must never be kept under one reading
    of the cookies and rendered from another (docs/security.md, "The public page cache")."""
    joined = "; ".join(value.decode("latin-1") for name, value in headers if name.lower() == b"cookie")
    return cookie_parser(joined) if joined else {}


def language_of_headers(headers: Iterable[tuple[bytes, bytes]]) -> str:
    """The language of a request from its headers: ``choose`` on the parsed ``lang`` cookie
    (``cookies_of``) and the first Accept-Language header."""
    headers = tuple(headers)
    accept_language = next((value for name, value in headers if name.lower() == b"accept-language"), None)
    return choose(
        cookies_of(headers).get(LANG_COOKIE),
        accept_language.decode("latin-1") if accept_language is not None else None,
    )


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
            use(language_of_headers(scope.get("headers", ())))
        await self.app(scope, receive, send)
