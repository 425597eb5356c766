"""Staff rulings on late changes as JSON (docs/rules.md §6, docs/staff-guide-results.md): re-seed an
unstarted later stage from the corrected standings, or keep it with a recorded reason. The rules live in
services/results/late_changes.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from orchestrator.adapters.tables import Stage
from orchestrator.errors import NotFound
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.results import late_changes
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import get_uow_factory, in_unit_of_work

router = APIRouter(prefix="/api/v1", tags=["results"])


RULINGS = {"reseed": late_changes.reseed_later_stage, "keep": late_changes.keep_later_stage}


def ruling_of(ruling: str) -> Callable[..., late_changes.LateChangeView]:
    """The service behind a ruling's name in the address (404 for any other name)."""
    decide = RULINGS.get(ruling)
    if decide is None:
        raise NotFound(_("no ruling %(ruling)r: re-seed or keep") % {"ruling": ruling})
    return decide


class RulingBody(BaseModel):
    reason: str = Field(description="why (shown with the stages and kept in the audit log)")


@router.get("/stages/{stage_id}/late-changes")
def get_late_changes(request: Request, stage_id: int, user: AuthUser = require_staff()) -> dict[str, Any]:
    """The stage's late changes (as the closed stage or as the stage built from it), newest first."""
    with get_uow_factory(request)() as uow:
        if uow.events.get(Stage, stage_id) is None:
            raise NotFound(_("stage %(id)s does not exist") % {"id": stage_id})
        views = late_changes.late_changes(uow, stage_id=stage_id)
    return {"stage_id": stage_id, "late_changes": [v.as_json() for v in views]}


@router.post("/late-changes/{late_change_id}/{ruling}")
def post_ruling(
    request: Request, late_change_id: int, ruling: str, body: RulingBody, user: AuthUser = require_staff()
) -> dict[str, Any]:
    """``reseed``: re-seed the later stage from the corrected standings (409 once it has a game, or if already
    ruled); ``keep``: keep it as it was built, with the reason (409 if already ruled)."""
    decide = ruling_of(ruling)
    view = in_unit_of_work(
        request, decide, late_change_id=late_change_id, actor=user.username, reason=body.reason
    )
    return view.as_json()
