"""Conditional requests for public pages and API answers: a strong ETag and 304 Not Modified.

The ETag is a hash of the exact body sent (it changes whenever anything shown changes: a result, a
standing, a name), so a client revalidating with ``If-None-Match`` gets 304 without a body.
``Cache-Control: no-cache`` lets browsers and proxies keep a copy but ask every time.
"""

from __future__ import annotations

import hashlib

from starlette.requests import Request
from starlette.responses import Response

CACHE_CONTROL_PUBLIC = "no-cache"
CACHE_CONTROL_PRIVATE = "private, no-cache"  # a logged-in visitor's page carries their name and token


def etag_of(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _matches(header: str, etag: str) -> bool:
    """RFC 9110 13.1.2: weak comparison over a list of entity tags, or ``*``."""
    if header.strip() == "*":
        return True
    tags = [tag.strip() for tag in header.split(",")]
    return any(tag.removeprefix("W/") == etag for tag in tags)


def conditional(request: Request, response: Response) -> Response:
    """Add ETag and Cache-Control to a fully rendered response; 304 when the client's copy is current."""
    body = bytes(response.body)
    etag = etag_of(body)
    private = bool(request.session.get("uid")) if "session" in request.scope else False
    headers = {
        "ETag": etag,
        "Cache-Control": CACHE_CONTROL_PRIVATE if private else CACHE_CONTROL_PUBLIC,
        "Vary": "Cookie",
    }
    if response.status_code == 200 and request.method in ("GET", "HEAD"):
        if_none_match = request.headers.get("if-none-match")
        if if_none_match and _matches(if_none_match, etag):
            return Response(status_code=304, headers=headers)
    response.headers.update(headers)
    return response
