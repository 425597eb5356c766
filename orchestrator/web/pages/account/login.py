"""Login, logout and invitation pages (the JSON twins: web/api/auth.py). Routes only translate."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from starlette.responses import RedirectResponse, Response

from orchestrator.adapters.tables import Role
from orchestrator.errors import LoginThrottled, ValidationFailed
from orchestrator.services.accounts import users as user_service
from orchestrator.services.accounts.users import AuthUser
from orchestrator.web.api.auth import end_session
from orchestrator.web.auth import (
    PUBLIC,
    allow_public,
    log_in,
    require_login,
)
from orchestrator.web.deps import client_ip, get_settings, get_uow_factory, in_unit_of_work, render, safe_next
from orchestrator.web.i18n import N_

router = APIRouter()


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
    verdict = in_unit_of_work(
        request,
        user_service.authenticate,
        username=username,
        password=password,
        ip=client_ip(request),
        settings=get_settings(request),
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
    end_session(request, user)
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
        user = in_unit_of_work(request, user_service.accept_invitation, token=token, password=password)
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
