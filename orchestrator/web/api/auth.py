"""The /api/v1/auth endpoints: log in with a session cookie, log out, who am I. Routes only translate."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field
from starlette.responses import JSONResponse, Response

from orchestrator.services.accounts import users as user_service
from orchestrator.services.accounts.users import AuthUser
from orchestrator.translation import gettext as _
from orchestrator.web.auth import (
    PUBLIC_JSON_LOGIN,
    log_in,
    log_out,
    require_login,
)
from orchestrator.web.deps import client_ip, get_settings, in_unit_of_work
from orchestrator.web.http.csrf import csrf_token

router = APIRouter(prefix="/api/v1/auth", tags=["auth"])


def end_session(request: Request, user: AuthUser) -> None:
    """Log out on the server as well as in the browser (the user's session generation moves on)."""
    in_unit_of_work(request, user_service.end_sessions, user_id=user.id)
    log_out(request)


class LoginIn(BaseModel):
    username: str = Field(max_length=200)
    password: str = Field(max_length=2048)


class UserOut(BaseModel):
    id: int
    username: str
    role: str
    team_id: int | None


class SessionOut(BaseModel):
    user: UserOut
    csrf_token: str = Field(
        description="Send it as the X-CSRF-Token header on every POST, PUT, PATCH, DELETE"
    )


def _session_out(request: Request, user: AuthUser) -> SessionOut:
    return SessionOut(
        user=UserOut(id=user.id, username=user.username, role=user.role.value, team_id=user.team_id),
        csrf_token=csrf_token(request),
    )


@router.post(
    "/login",
    response_model=SessionOut,
    responses={401: {"description": "Wrong credentials"}, 429: {"description": "Too many failures"}},
)
def api_login(
    request: Request, body: LoginIn, _rule: AuthUser | None = Depends(PUBLIC_JSON_LOGIN)
) -> Response:
    """Log in with a session cookie; the answer carries the CSRF token for later unsafe requests."""
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        return JSONResponse({"detail": _("Send the credentials as application/json.")}, status_code=415)
    verdict = in_unit_of_work(
        request,
        user_service.authenticate,
        username=body.username,
        password=body.password,
        ip=client_ip(request),
        settings=get_settings(request),
    )
    user = verdict.accepted_user()  # raises the refusal, mapped to 401 / 429 by the app
    log_in(request, user)
    return JSONResponse(_session_out(request, user).model_dump())


@router.post("/logout", status_code=204)
def api_logout(request: Request, user: AuthUser = require_login()) -> Response:
    """End the session on the server too: a copy of the cookie stops working (needs X-CSRF-Token)."""
    end_session(request, user)
    return Response(status_code=204)


@router.get("/me", response_model=SessionOut)
def api_me(request: Request, user: AuthUser = require_login()) -> SessionOut:
    """The logged-in user and the session's CSRF token."""
    return _session_out(request, user)
