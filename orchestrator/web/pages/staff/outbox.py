"""The staff outbox (docs/notifications.md): the latest mails, filtered by status, and "send again" for
a failed one (the JSON twin: web/api/notifications.py).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import RedirectResponse, Response

from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.notify import outbox
from orchestrator.translation import gettext as _
from orchestrator.web.api.notifications import STATUSES, outbox_status
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import in_unit_of_work, render
from orchestrator.web.http.validation import id_number

router = APIRouter(include_in_schema=False)


@router.get("/staff/outbox")
def outbox_page(request: Request, user: AuthUser = require_staff()) -> Response:
    status = outbox_status(request)
    rows = in_unit_of_work(request, outbox.outbox_rows, status=status or None)
    retried = request.query_params.get("retried")
    notice = _("Mail %(id)s is queued again.") % {"id": retried} if id_number(retried) else None
    return render(
        request,
        "staff/outbox.html",
        {"rows": rows, "status": status, "statuses": STATUSES, "notice": notice},
    )


@router.post("/staff/outbox/{outbox_id}/retry")
def outbox_retry(request: Request, outbox_id: int, user: AuthUser = require_staff()) -> Response:
    in_unit_of_work(request, outbox.retry_failed, outbox_id=outbox_id, actor=user.username)
    return RedirectResponse(f"/staff/outbox?status=queued&retried={outbox_id}", status_code=303)
