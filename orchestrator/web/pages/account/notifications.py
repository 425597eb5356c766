"""The account page (docs/notifications.md): the address and the kinds of message turned off (the JSON
twin: web/api/notifications.py). The rules live in services/notify.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from pydantic import BaseModel
from starlette.responses import RedirectResponse, Response

from orchestrator.errors import ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.notify import preferences
from orchestrator.services.notify.kinds import CAPTAIN_KINDS
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_login
from orchestrator.web.deps import in_unit_of_work, render

router = APIRouter(include_in_schema=False)


def _account_page(request: Request, user: AuthUser, *, status_code: int = 200, **extra: object) -> Response:
    prefs = in_unit_of_work(request, preferences.preferences_of, user=user)
    return render(
        request,
        "account/notifications.html",
        {"prefs": prefs, "is_captain": user.team_id is not None, **extra},
        status_code=status_code,
    )


@router.get("/account")
def account_page(request: Request, user: AuthUser = require_login()) -> Response:
    saved = request.query_params.get("saved") == "1"
    return _account_page(request, user, notice=_("Saved.") if saved else None)


class AccountForm(BaseModel):
    """The account page's form: the address, one checkbox per kind of message that stays on (the JSON
    API's ``PreferencesBody`` names the kinds turned off instead) and the mails' language."""

    email: str = ""
    kind: list[str] = []
    language: str = preferences.KEEP

    def off(self) -> list[str]:
        on = set(self.kind)
        return [kind.value for kind in CAPTAIN_KINDS if kind.value not in on]


@router.post("/account/notifications")
def account_submit(
    request: Request, form: Annotated[AccountForm, Form()], user: AuthUser = require_login()
) -> Response:
    try:
        in_unit_of_work(
            request,
            preferences.set_preferences,
            user=user,
            email=form.email,
            off=form.off(),
            language=form.language,
        )
    except ValidationFailed as error:
        return _account_page(request, user, status_code=422, problems=error.problems)
    return RedirectResponse("/account?saved=1", status_code=303)
