"""Login, logout and invitation pages, and the /api/v1/auth endpoints. Routes only translate."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from pydantic import BaseModel, Field
from starlette.responses import JSONResponse, RedirectResponse, Response

from orchestrator.adapters.tables import Role
from orchestrator.errors import LoginThrottled, ValidationFailed
from orchestrator.services.accounts import users as user_service
from orchestrator.services.accounts.users import AuthUser
from orchestrator.translation import gettext as _
from orchestrator.web.auth import (
    PUBLIC,
    PUBLIC_JSON_LOGIN,
    allow_public,
    log_in,
    log_out,
    require_login,
)
from orchestrator.web.csrf import csrf_token
from orchestrator.web.deps import client_ip, get_settings, get_uow_factory, render, safe_next
from orchestrator.web.i18n import N_

router = APIRouter()
api = APIRouter(prefix="/api/v1/auth", tags=["auth"])


def _end_session(request: Request, user: AuthUser) -> None:
    """Log out on the server as well as in the browser (the user's session generation moves on)."""
    with get_uow_factory(request)() as uow:
        user_service.end_sessions(uow, user_id=user.id)
    log_out(request)


def home_of(user: AuthUser) -> str:
    """Where a user lands after logging in: staff on their events' dashboard (``/staff`` picks it), captains
    on their team's page."""
    if user.role in (Role.OWNER, Role.ADMIN, Role.ARBITER):
        return "/staff"
    if user.role == Role.CAPTAIN:
        return "/captain"
    return "/"


def _after_login(user: AuthUser, target: str) -> str:
    """The page asked for (``next``), else the user's home; never another site."""
    if not target or target == "/":
        return home_of(user)
    return safe_next(target, home_of(user))


# --- pages --------------------------------------------------------------------------------------------


@router.get("/login", dependencies=[allow_public()], include_in_schema=False)
def login_page(request: Request, next: str = "") -> Response:
    user: AuthUser | None = request.state.user
    if user is not None:
        return RedirectResponse(_after_login(user, next), status_code=303)
    return render(request, "auth/login.html", {"next": safe_next(next), "username": ""})


@router.post("/login", include_in_schema=False)
def login_submit(
    request: Request,
    username: Annotated[str, Form(max_length=200)] = "",
    password: Annotated[str, Form(max_length=2048)] = "",
    next: Annotated[str, Form(max_length=2048)] = "",
    _rule: AuthUser | None = Depends(PUBLIC),
) -> Response:
    with get_uow_factory(request)() as uow:
        verdict = user_service.authenticate(
            uow, username=username, password=password, ip=client_ip(request), settings=get_settings(request)
        )
    if verdict.refusal is not None:
        headers = {}
        if isinstance(verdict.refusal, LoginThrottled):
            headers["Retry-After"] = str(verdict.refusal.retry_after_s)
        response = render(
            request,
            "auth/login.html",
            {"next": safe_next(next), "username": username, "error": verdict.refusal.message},
            # The form is shown again: 200 for a wrong password (the page is the answer), 429 when throttled.
            status_code=429 if isinstance(verdict.refusal, LoginThrottled) else 200,
        )
        response.headers.update(headers)
        return response
    user = verdict.accepted_user()
    log_in(request, user)
    return RedirectResponse(_after_login(user, next), status_code=303)


@router.post("/logout", include_in_schema=False)
def logout_submit(request: Request, user: AuthUser = require_login()) -> Response:
    _end_session(request, user)
    return RedirectResponse("/", status_code=303)


@router.get("/invitation/{token}", dependencies=[allow_public()], include_in_schema=False)
def invitation_page(request: Request, token: str) -> Response:
    with get_uow_factory(request)() as uow:
        invited = user_service.find_invitation(uow, token=token)
        username = invited.username
    return render(request, "auth/invitation.html", {"token": token, "username": username})


@router.post("/invitation/{token}", dependencies=[allow_public()], include_in_schema=False)
def invitation_submit(
    request: Request,
    token: str,
    password: Annotated[str, Form(max_length=2048)] = "",
    password_again: Annotated[str, Form(max_length=2048)] = "",
) -> Response:
    try:
        if password != password_again:
            raise ValidationFailed([N_("The two passwords differ.")])
        with get_uow_factory(request)() as uow:
            user = user_service.accept_invitation(uow, token=token, password=password)
    except ValidationFailed as error:
        problems = list(error.problems)
        with get_uow_factory(request)() as uow:
            username = user_service.find_invitation(uow, token=token).username
        return render(
            request,
            "auth/invitation.html",
            {"token": token, "username": username, "problems": problems},
            status_code=422,
        )
    log_in(request, user)
    return RedirectResponse("/", status_code=303)


# --- JSON API -----------------------------------------------------------------------------------------


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


@api.post(
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
    with get_uow_factory(request)() as uow:
        verdict = user_service.authenticate(
            uow,
            username=body.username,
            password=body.password,
            ip=client_ip(request),
            settings=get_settings(request),
        )
    user = verdict.accepted_user()  # raises the refusal, mapped to 401 / 429 by the app
    log_in(request, user)
    return JSONResponse(_session_out(request, user).model_dump())


@api.post("/logout", status_code=204)
def api_logout(request: Request, user: AuthUser = require_login()) -> Response:
    """End the session on the server too: a copy of the cookie stops working (needs X-CSRF-Token)."""
    _end_session(request, user)
    return Response(status_code=204)


@api.get("/me", response_model=SessionOut)
def api_me(request: Request, user: AuthUser = require_login()) -> SessionOut:
    """The logged-in user and the session's CSRF token."""
    return _session_out(request, user)
