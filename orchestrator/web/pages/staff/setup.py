"""Staff pages for setting an event up: create it, import rosters, draft/adjust/publish pools, start a
stage, run draws by lot (docs/rules.md §3, §7, §9). Plain forms (no JavaScript), CSRF on every form.

Owners and administrators change things; arbiters see every page (and may run draws by lot).
A refused form is shown again with every problem listed; a done action redirects back with a notice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, File, Form, Request, UploadFile
from fastapi.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response

from orchestrator.adapters.tables import Role
from orchestrator.errors import Conflict, NotFound, ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.read import staff
from orchestrator.services.results import lot_steps
from orchestrator.services.setup import draws, event_setup, pool_draft, stage_start
from orchestrator.services.teams import rosters
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_role, require_staff
from orchestrator.web.deps import get_uow_factory, in_unit_of_work, render
from orchestrator.web.event_keys import event_of_key, slug_redirect
from orchestrator.web.http.validation import MAX_UPLOAD_BYTES
from orchestrator.web.i18n import N_

router = APIRouter(prefix="/staff", include_in_schema=False)

NOTICES = {
    "created": N_("The event was created."),
    "imported": N_("The rosters were imported."),
    "drafted": N_("Draft pools were made. Adjust them if needed, then publish."),
    "swapped": N_("The two teams were swapped."),
    "published": N_("The pools are published."),
    "started": N_("The stage has started: rounds, matches and boards are ready."),
    "committed": N_("The lot is committed: its hash is public. Draw it when everyone can watch."),
    "revealed": N_("The lot was drawn: seed and outcome are public."),
}


def _can_change(user: AuthUser) -> bool:
    return user.role in (Role.OWNER, Role.ADMIN)


def _done(path: str, notice: str) -> RedirectResponse:
    return RedirectResponse(f"{path}?done={quote(notice)}", status_code=303)


def _notice(request: Request) -> str | None:
    notice = NOTICES.get(request.query_params.get("done", ""))
    return _(notice) if notice else None


def _problems_of(error: Exception) -> dict[str, Any]:
    if isinstance(error, ValidationFailed):
        return {"problems": list(error.problems)}
    return {"error": getattr(error, "message", str(error))}


async def _read_upload(upload: UploadFile | None) -> str | None:
    if upload is None or not upload.filename:
        return None
    data = await upload.read(MAX_UPLOAD_BYTES + 1)
    if len(data) > MAX_UPLOAD_BYTES:
        raise ValidationFailed(
            [_("the file is larger than %(mb)d MB") % {"mb": MAX_UPLOAD_BYTES // 1_000_000}]
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ValidationFailed([N_("the file is not UTF-8 text")]) from None


# --- events ---------------------------------------------------------------------------------------------


@router.get("/events")
def events_page(request: Request, user: AuthUser = require_staff()) -> Response:
    events = in_unit_of_work(request, staff.staff_events)
    context = {"events": events, "can_change": _can_change(user), "notice": _notice(request)}
    return render(request, "staff/events.html", context)


@router.get("/events/new")
def new_event_page(request: Request, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)) -> Response:
    return render(request, "staff/event_new.html", {"definition_text": "", "source": ""})


@router.post("/events")
async def create_event(
    request: Request,
    definition_text: Annotated[str, Form()] = "",
    definition_file: Annotated[UploadFile | None, File()] = None,
    user: AuthUser = require_role(Role.OWNER, Role.ADMIN),
) -> Response:
    source = "pasted text"
    try:
        uploaded = await _read_upload(definition_file)
        if uploaded is not None:
            definition_text, source = (
                uploaded,
                (definition_file.filename if definition_file else None) or "upload",
            )
        if not definition_text.strip():
            raise ValidationFailed([N_("paste the event definition (YAML) or choose a file")])
        # Off the event loop (docs/architecture.md, "Web"): checking a file is blocking work.
        event_id = await run_in_threadpool(
            in_unit_of_work,
            request,
            event_setup.create_event,
            definition_text=definition_text,
            source=source,
            actor=user.username,
        )
    except (ValidationFailed, Conflict) as error:
        context = {"definition_text": definition_text, "source": source, **_problems_of(error)}
        return render(request, "staff/event_new.html", context, status_code=error.status_code)
    slug = await run_in_threadpool(_slug_of, request, event_id)
    return _done(f"/staff/events/{slug}/setup", "created")


def _slug_of(request: Request, event_id: int) -> str:
    with get_uow_factory(request)() as uow:
        return staff.staff_event_ref(uow, event_id=event_id).slug


@router.get("/events/{slug}/setup")
def event_page(request: Request, slug: str, user: AuthUser = require_staff()) -> Response:
    """The event's stages and their next setup step (the dashboard is ``/staff/events/{slug}``)."""
    event_id, real = event_of_key(request, slug)
    if moved := slug_redirect(request, slug, real):
        return moved
    info = in_unit_of_work(request, event_setup.describe_event, event_id=event_id)
    context = {"event": info, "can_change": _can_change(user), "notice": _notice(request)}
    return render(request, "staff/event.html", context)


# --- rosters --------------------------------------------------------------------------------------------


def _roster_context(request: Request, event_id: int, user: AuthUser) -> dict[str, Any]:
    with get_uow_factory(request)() as uow:
        event = staff.staff_event_ref(uow, event_id=event_id)
        teams = staff.roster_teams(uow, event_id=event_id)
    return {
        "event": event,
        "teams": teams,
        "columns": rosters.COLUMNS,
        "can_change": _can_change(user),
        "csv_text": "",
    }


@router.get("/events/{slug}/rosters")
def rosters_page(request: Request, slug: str, user: AuthUser = require_staff()) -> Response:
    event_id, real = event_of_key(request, slug)
    if moved := slug_redirect(request, slug, real):
        return moved
    context = _roster_context(request, event_id, user)
    context["notice"] = _notice(request)
    return render(request, "staff/rosters.html", context)


@router.post("/events/{slug}/rosters")
async def import_rosters(
    request: Request,
    slug: str,
    csv_text: Annotated[str, Form()] = "",
    csv_file: Annotated[UploadFile | None, File()] = None,
    user: AuthUser = require_role(Role.OWNER, Role.ADMIN),
) -> Response:
    # Off the event loop (docs/architecture.md, "Web"): the event's look-up, the import and the page's reads.
    event_id, slug = await run_in_threadpool(event_of_key, request, slug)
    try:
        uploaded = await _read_upload(csv_file)
        if uploaded is not None:
            csv_text = uploaded
        if not csv_text.strip():
            raise ValidationFailed([N_("paste the roster CSV or choose a file")])
        await run_in_threadpool(
            in_unit_of_work,
            request,
            rosters.import_rosters,
            event_id=event_id,
            csv_text=csv_text,
            actor=user.username,
        )
    except (ValidationFailed, Conflict) as error:
        context = await run_in_threadpool(_roster_context, request, event_id, user)
        context.update(csv_text=csv_text, **_problems_of(error))
        return render(request, "staff/rosters.html", context, status_code=error.status_code)
    return _done(f"/staff/events/{slug}/rosters", "imported")


# --- pools and stages -----------------------------------------------------------------------------------


def _pools_page(
    request: Request, stage_id: int, user: AuthUser, *, status_code: int = 200, **extra: Any
) -> Response:
    with get_uow_factory(request)() as uow:
        pools = pool_draft.describe_pools(uow, stage_id=stage_id)
        event = staff.staff_event_ref(uow, event_id=pools.event_id)
    context: dict[str, Any] = {
        "stage": pools,
        "event": event,
        "can_change": _can_change(user),
        "notice": _notice(request),
        **extra,
    }
    return render(request, "staff/pools.html", context, status_code=status_code)


@router.get("/stages/{stage_id}/pools")
def pools_page(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    return _pools_page(request, stage_id, user)


def _stage_action(
    request: Request,
    stage_id: int,
    user: AuthUser,
    use_case: Callable[..., object],
    notice: str,
    **arguments: Any,
) -> Response:
    """A step of ``user`` on the stage's pools (services/setup/), then back to the pools page with ``notice``;
    a refusal shows the pools page with its problems."""
    try:
        done = in_unit_of_work(request, use_case, stage_id=stage_id, actor=user.username, **arguments)
        if isinstance(done, stage_start.StageStart):  # a refusal that committed lots: raised after the commit
            done.raise_refusal()
    except (ValidationFailed, Conflict) as error:
        return _pools_page(request, stage_id, user, status_code=error.status_code, **_problems_of(error))
    return _done(f"/staff/stages/{stage_id}/pools", notice)


@router.post("/stages/{stage_id}/pools/draft")
def draft_pools(
    request: Request, stage_id: int, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)
) -> Response:
    return _stage_action(request, stage_id, user, pool_draft.draft_pools, "drafted")


@router.post("/stages/{stage_id}/pools/swap")
def swap_teams(
    request: Request,
    stage_id: int,
    team_a_id: Annotated[int, Form()],
    team_b_id: Annotated[int, Form()],
    user: AuthUser = require_role(Role.OWNER, Role.ADMIN),
) -> Response:
    teams = {"team_a_id": team_a_id, "team_b_id": team_b_id}
    try:
        return _stage_action(request, stage_id, user, pool_draft.swap_teams, "swapped", **teams)
    except NotFound as error:
        return _pools_page(request, stage_id, user, status_code=422, error=error.message)


@router.post("/stages/{stage_id}/pools/publish")
def publish_pools(
    request: Request, stage_id: int, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)
) -> Response:
    return _stage_action(request, stage_id, user, pool_draft.publish_pools, "published")


@router.post("/stages/{stage_id}/start")
def start_stage(
    request: Request, stage_id: int, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)
) -> Response:
    return _stage_action(request, stage_id, user, stage_start.start_stage, "started")


# --- lots -----------------------------------------------------------------------------------------------


def _lots_page(request: Request, event_id: int, *, status_code: int = 200, **extra: Any) -> Response:
    with get_uow_factory(request)() as uow:
        event = staff.staff_event_ref(uow, event_id=event_id)
        lots = lot_steps.list_lots(uow, event_id=event_id)
    context: dict[str, Any] = {
        "event": event,
        "lots": lots,
        "notice": _notice(request),
        "purpose": "",
        "candidates": "",
        "kind": "one",
        **extra,
    }
    return render(request, "staff/lots.html", context, status_code=status_code)


@router.get("/events/{slug}/lots")
def lots_page(request: Request, slug: str, user: AuthUser = require_staff()) -> Response:
    event_id, real = event_of_key(request, slug)
    return slug_redirect(request, slug, real) or _lots_page(request, event_id)


@router.post("/events/{slug}/lots")
def commit_lot(
    request: Request,
    slug: str,
    purpose: Annotated[str, Form()] = "",
    candidates: Annotated[str, Form()] = "",
    kind: Annotated[str, Form()] = "one",
    user: AuthUser = require_staff(),
) -> Response:
    names = [line.strip() for line in candidates.splitlines() if line.strip()]
    event_id, slug = event_of_key(request, slug)
    try:
        with get_uow_factory(request)() as uow:
            # A purpose a procedure draws, or one already committed or drawn, is refused (docs/lots.md).
            lot_steps.commit_by_hand(
                uow, event_id=event_id, purpose=purpose, candidates=names, kind=kind, actor=user.username
            )
    except (ValidationFailed, Conflict) as error:
        return _lots_page(
            request,
            event_id,
            status_code=409 if isinstance(error, Conflict) else 422,
            purpose=purpose,
            candidates=candidates,
            kind=kind,
            **_problems_of(error),
        )
    return _done(f"/staff/events/{slug}/lots", "committed")


@router.post("/lots/{lot_id}/reveal")
def reveal_lot(request: Request, lot_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        event_id = draws.get_lot(uow, lot_id=lot_id).event_id
        slug = staff.staff_event_ref(uow, event_id=event_id).slug
    try:
        in_unit_of_work(request, lot_steps.draw_by_hand, lot_id=lot_id, actor=user.username)
    except Conflict as error:
        return _lots_page(request, event_id, status_code=409, **_problems_of(error))
    return _done(f"/staff/events/{slug}/lots", "revealed")
