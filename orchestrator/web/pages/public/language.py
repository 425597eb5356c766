"""The language switch in every page's footer: ``/lang/<code>?next=<path>`` keeps the choice in the
``lang`` cookie and goes back to the page (a same-site path only). Works without JavaScript. It changes
nothing stored: a link another site shows must not change an account, so the language of a user's
e-mails is chosen on the account page, a form with its CSRF token (docs/notifications.md)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from starlette.responses import RedirectResponse

from orchestrator.web import i18n
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import safe_next

router = APIRouter(dependencies=[allow_public()], include_in_schema=False)


@router.get("/lang/{code}")
def switch_language(request: Request, code: str, next: str | None = None) -> RedirectResponse:
    if code not in i18n.LANGUAGES:
        raise HTTPException(status_code=404, detail="No such language.")
    https = request.url.scheme == "https"
    response = RedirectResponse(safe_next(next), status_code=303)
    response.set_cookie(
        i18n.LANG_COOKIE,
        code,
        max_age=i18n.LANG_COOKIE_MAX_AGE_S,
        path="/",
        samesite="lax",
        secure=https,
        httponly=True,
    )
    response.headers["Cache-Control"] = "private, no-store"
    return response
