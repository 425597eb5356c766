"""The staff page that brings an event in from TRF-2026 team files (docs/trf.md, "Importing"): one file,
or two (the Open and the Women section), each at most ``MAX_TRF_BYTES``. Owners and administrators, as
for creating an event; CSRF as every staff form. A refused upload is shown again (422) with every
problem, its file and line; nothing is written. A done import opens the event's setup page.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from orchestrator.adapters.tables import Role
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.swiss.trf_import import import_trf
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_role
from orchestrator.web.deps import in_unit_of_work, render
from orchestrator.web.http.validation import MAX_UPLOAD_BYTES

router = APIRouter(prefix="/staff", include_in_schema=False)

MAX_TRF_BYTES = MAX_UPLOAD_BYTES // 2  # two files fit in one request (web/http/validation.py)
PAGE = "staff/trf_import.html"


async def _read(upload: UploadFile | None, problems: list[str]) -> tuple[str, str] | None:
    """The file's name and text (UTF-8, else Latin-1 as FIDE's programs write them); a file too large is
    a problem."""
    if upload is None or not upload.filename:
        return None
    data = await upload.read(MAX_TRF_BYTES + 1)
    if len(data) > MAX_TRF_BYTES:
        problems.append(
            _("%(file)s is larger than %(kb)d kB") % {"file": upload.filename, "kb": MAX_TRF_BYTES // 1000}
        )
        return None
    try:
        return upload.filename, data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return upload.filename, data.decode("latin-1")


@router.get("/events/import-trf")
def import_page(request: Request, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)) -> Response:
    return render(request, PAGE, {})


@router.post("/events/import-trf")
async def import_files(
    request: Request,
    open_file: Annotated[UploadFile | None, File()] = None,
    women_file: Annotated[UploadFile | None, File()] = None,
    user: AuthUser = require_role(Role.OWNER, Role.ADMIN),
) -> Response:
    problems: list[str] = []
    files = [f for f in (await _read(open_file, problems), await _read(women_file, problems)) if f]
    try:
        if problems:
            raise ValidationFailed(problems)
        if not files:
            raise ValidationFailed([_("choose a TRF-2026 team file")])
        # Reading, checking and storing the files is blocking work: off the event loop, so that a large or
        # hostile file never holds up the process's other requests (docs/architecture.md, "Web").
        report = await run_in_threadpool(
            in_unit_of_work, request, import_trf, files=files, actor=user.username
        )
    except (ValidationFailed, Conflict) as error:
        context = {"problems": list(getattr(error, "problems", ())) or [error.message]}
        return render(request, PAGE, context, status_code=error.status_code)
    return RedirectResponse(f"/staff/events/{report.slug}/setup?done=created", status_code=303)
