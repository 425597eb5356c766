"""Conditional requests for public pages and API answers: a strong ETag and 304 Not Modified.

The ETag is a hash of the exact body sent (it changes whenever anything shown changes: a result, a
standing, a name), so a client revalidating with ``If-None-Match`` gets 304 without a body. An anonymous
visitor's copy may be kept by browsers and shared proxies for a few seconds (``public, max-age``); a
logged-in visitor's page carries their name and token and is never stored (``private, no-store``).
web/http/page_cache.py keeps the anonymous pages in the process and answers 304 without building them
(docs/caching.md).
"""

from __future__ import annotations

import hashlib

from starlette.requests import Request
from starlette.responses import Response

MAX_AGE_S = 5  # what a browser or proxy may show without asking; live.js always asks (cache: no-cache)
STALE_WHILE_REVALIDATE_S = 15
CACHE_CONTROL_PUBLIC = f"public, max-age={MAX_AGE_S}, stale-while-revalidate={STALE_WHILE_REVALIDATE_S}"
CACHE_CONTROL_PRIVATE = "private, no-store"  # a logged-in visitor's page carries their name and token


def etag_of(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def matches(header: str, etag: str) -> bool:
    """RFC 9110 13.1.2: weak comparison over a list of entity tags, or ``*``."""
    if header.strip() == "*":
        return True
    tags = [tag.strip() for tag in header.split(",")]
    return any(tag.removeprefix("W/") == etag for tag in tags)


def conditional(request: Request, response: Response) -> Response:
    """Add ETag and Cache-Control to a fully rendered response; 304 when the client's copy is current."""
    body = bytes(response.body)
    etag = etag_of(body)
    has_session = "session" in request.scope
    # Built with a session (a logged-in user, or a CSRF token): never stored by a browser, a proxy or the
    # page cache (web/http/page_cache.py refuses a private answer; docs/security.md, "The public page cache").
    private = bool(request.session) if has_session else False
    headers = {"ETag": etag, "Cache-Control": CACHE_CONTROL_PRIVATE if private else CACHE_CONTROL_PUBLIC}
    # A page is in the reader's language (the ``lang`` cookie, else Accept-Language: web/i18n.py).
    vary = ["Accept-Language"] if response.media_type == "text/html" else []
    if not has_session:  # else the session middleware says it, since the session was read just above
        vary.append("Cookie")  # a logged-in visitor sees staff links and their account here
    if vary:
        headers["Vary"] = ", ".join(vary)
    if response.status_code == 200 and request.method in ("GET", "HEAD"):
        if_none_match = request.headers.get("if-none-match")
        if if_none_match and matches(if_none_match, etag):
            return Response(status_code=304, headers=headers)
    response.headers.update(headers)
    return response
