"""Staff rulings on late changes (docs/rules.md §6, docs/staff-guide-results.md): the "Re-seed" and "Keep"
buttons post a form and redirect; the JSON twins are web/api/late_changes.py. The rules live in
services/results/late_changes.py.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, Form, Request
from pydantic import BaseModel
from starlette.responses import RedirectResponse, Response

from orchestrator.adapters.tables import Stage
from orchestrator.services.accounts.users import AuthUser
from orchestrator.web.api.late_changes import ruling_of
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import get_uow_factory, staff_back

router = APIRouter(prefix="/staff", include_in_schema=False)


class RulingForm(BaseModel):
    """Why (the service refuses a "keep" without a reason) and the staff page to go back to."""

    reason: str = ""
    back: str = ""


@router.post("/late-changes/{late_change_id}/{ruling}")
def rule_submit(
    request: Request,
    late_change_id: int,
    ruling: str,
    form: Annotated[RulingForm, Form()],
    user: AuthUser = require_staff(),
) -> Response:
    """The "Re-seed" and "Keep" buttons of a late change (staff results and stage-closing pages)."""
    decide = ruling_of(ruling)
    with get_uow_factory(request)() as uow:
        view = decide(uow, late_change_id=late_change_id, actor=user.username, reason=form.reason)
        event = uow.events.event_of_stage(uow.events.get_or_raise(Stage, view.source_stage_id))
    target = staff_back(form.back, f"/staff/events/{quote(event.slug)}/results")
    return RedirectResponse(target, status_code=303)
