"""CSRF protection: a random token bound to the (signed) session, checked on every unsafe request.

Forms carry it as the hidden field ``csrf_token``; JavaScript and API clients send it in the
``X-CSRF-Token`` header. The check runs inside every route's access rule (web/auth.py), so a route
cannot exist without it unless its rule says ``csrf=False`` (only the JSON login, which has no session
yet and accepts ``application/json`` only, which a cross-site form cannot send).
"""

from __future__ import annotations

import hmac
import secrets

from starlette.requests import Request

from orchestrator.errors import Forbidden

SESSION_KEY = "csrf"
FORM_FIELD = "csrf_token"
HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")


class CsrfFailed(Forbidden):
    pass


def csrf_token(request: Request) -> str:
    """The session's CSRF token, created on first use (so pages without forms set no cookie)."""
    token = request.session.get(SESSION_KEY)
    if not isinstance(token, str) or len(token) < 32:
        token = secrets.token_urlsafe(32)
        request.session[SESSION_KEY] = token
    return token


def rotate_csrf_token(request: Request) -> str:
    """A new token (after login, so a token seen before login is useless afterwards)."""
    request.session.pop(SESSION_KEY, None)
    return csrf_token(request)


async def submitted_token(request: Request) -> str | None:
    header = request.headers.get(HEADER)
    if header:
        return header
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type in FORM_TYPES:
        form = await request.form()  # Starlette caches it; the route reads the same form
        value = form.get(FORM_FIELD)
        return value if isinstance(value, str) else None
    return None


async def verify_csrf(request: Request) -> None:
    """Raise ``CsrfFailed`` unless a safe method or the submitted token matches the session's."""
    if request.method in SAFE_METHODS:
        return
    expected = request.session.get(SESSION_KEY)
    submitted = await submitted_token(request)
    if (
        not isinstance(expected, str)
        or not submitted
        or not hmac.compare_digest(expected.encode(), submitted.encode())
    ):
        raise CsrfFailed(
            "The form has expired or did not come from this site. Reload the page and try again."
        )
