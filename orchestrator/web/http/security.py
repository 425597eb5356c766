"""The security headers of every answer, and access logs without the secrets some paths carry.

``SecurityHeaders`` is pure ASGI middleware (safe for streamed SSE responses); ``create_app`` installs it
with the other middleware and ``install_log_redaction`` on uvicorn's loggers (docs/security.md).
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote

from starlette.types import ASGIApp, Message, Receive, Scope, Send

API_DOCS = "/api/v1/docs"  # the Swagger UI page (create_app serves it)

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
        if not path.startswith("/static/"):  # public pages say otherwise (web/http/caching.py)
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


def install_log_redaction() -> None:
    for name in ("uvicorn.access", "uvicorn.error"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactInvitationTokens) for f in logger.filters):
            logger.addFilter(RedactInvitationTokens())
