"""Staff import of a match's results from Chess.com: a page with two forms (a team match, or the players'
monthly archives in a time window), a summary page, and the JSON equivalent.

Routes only translate: the rules live in services/gameserver/chesscom_import.py. The pages work without
JavaScript.
Tests replace Chess.com by setting ``app.state.chesscom_client_factory`` (a callable returning a client).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import Response

from orchestrator.adapters.chesscom import ChessComClient
from orchestrator.adapters.tables import Round
from orchestrator.config import CHESSCOM_PLACEHOLDER_AGENT
from orchestrator.errors import ServiceError, ValidationFailed
from orchestrator.services import times
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.gameserver import chesscom_import as service
from orchestrator.services.read.dashboard import timezone_of
from orchestrator.services.results import results as result_service
from orchestrator.translation import N_
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import get_settings, get_uow_factory, render

pages = APIRouter(prefix="/staff", include_in_schema=False)
api = APIRouter(prefix="/api/v1/staff", tags=["results"])

DEFAULT_WINDOW = timedelta(hours=6)  # after the round's start, when nothing else is given


def _client(request: Request) -> ChessComClient:
    factory = getattr(request.app.state, "chesscom_client_factory", None)
    if factory is not None:
        client: ChessComClient = factory()
        return client
    return service.make_client(get_settings(request))


def _run(request: Request, match_id: int, actor: str, **options: Any) -> service.ImportSummary:
    """One unit of work for the whole import: an error leaves every board as it was."""
    client = _client(request)
    try:
        with get_uow_factory(request)() as uow:
            return service.import_chesscom_results(
                uow, match_id=match_id, actor=actor, client=client, **options
            )
    finally:
        client.close()


# A window bound's name in a problem, and the problem when it is left empty.
_BOUNDS = {
    "start": (N_("the window's start"), N_("give the window's start (%(zone)s time)")),
    "end": (N_("the window's end"), N_("give the window's end (%(zone)s time)")),
}


def _form_time(raw: str, label: str, zone: str, problems: list[str]) -> datetime | None:
    """A window bound from the form: local time in the event's zone (web/timefmt.py)."""
    field, missing = _BOUNDS[label]
    if not raw.strip():
        problems.append(_(missing) % {"zone": zone})
        return None
    try:
        return times.local_to_utc(raw, zone, field=_(field))
    except ValidationFailed as error:
        problems.extend(error.problems)
        return None


def _page(request: Request, match_id: int, *, status_code: int = 200, **extra: Any) -> Response:
    with get_uow_factory(request)() as uow:
        sheet = result_service.match_sheet(uow, match_id=match_id)
        rnd = uow.rounds.get_or_raise(Round, sheet.round_id)
        scheduled = rnd.scheduled_at
        zone = timezone_of(uow, kind="match", entity_id=match_id)
    values = {
        "source": "team_match",
        "chesscom_match": "",
        "live": False,
        "start": times.local_input(scheduled, zone),
        "end": times.local_input(scheduled + DEFAULT_WINDOW if scheduled else None, zone),
        "time_class": "rapid",
        **extra.pop("values", {}),
    }
    placeholder = get_settings(request).chesscom_user_agent == CHESSCOM_PLACEHOLDER_AGENT
    context = {
        "sheet": sheet,
        "values": values,
        "time_classes": service.TIME_CLASSES,
        "placeholder_agent": placeholder,
        **extra,
    }
    response = render(request, "staff/chesscom/import.html", context, status_code=status_code)
    return response


@pages.get("/matches/{match_id}/chesscom-import")
def chesscom_import_page(request: Request, match_id: int, user: AuthUser = require_staff()) -> Response:
    return _page(request, match_id)


@pages.post("/matches/{match_id}/chesscom-import")
async def chesscom_import_submit(
    request: Request, match_id: int, user: AuthUser = require_staff()
) -> Response:
    form = await request.form()
    values = {name: str(form.get(name, "") or "") for name in ("source", "chesscom_match", "start", "end")}
    values["time_class"] = str(form.get("time_class", "") or "rapid")
    live = form.get("live") == "1"
    try:
        if values["source"] == "archives":
            problems: list[str] = []
            with get_uow_factory(request)() as uow:
                zone = timezone_of(uow, kind="match", entity_id=match_id)
            start = _form_time(values["start"], "start", zone, problems)
            end = _form_time(values["end"], "end", zone, problems)
            if problems or start is None or end is None:
                raise ValidationFailed(problems)
            summary = _run(
                request,
                match_id,
                user.username,
                source="archives",
                window=(start, end),
                time_class=values["time_class"],
            )
        else:
            summary = _run(
                request,
                match_id,
                user.username,
                source=values["source"] or "team_match",
                chesscom_match_id=values["chesscom_match"],
                live=live,
            )
    except ServiceError as error:
        if error.status_code == 404 and not isinstance(error, service.ChessComUnavailable):
            raise  # the match itself does not exist: the ordinary error page
        problems_list = list(error.problems) if isinstance(error, ValidationFailed) else []
        response = _page(
            request,
            match_id,
            status_code=error.status_code,
            values={**values, "live": live},
            error=None if problems_list else error.message,
            problems=problems_list,
        )
        retry_after = getattr(error, "retry_after_s", None)
        if retry_after:
            response.headers["Retry-After"] = str(retry_after)
        return response
    with get_uow_factory(request)() as uow:
        sheet = result_service.match_sheet(uow, match_id=match_id)
    return render(request, "staff/chesscom/summary.html", {"sheet": sheet, "summary": summary})


# --- JSON ------------------------------------------------------------------------------------------------


class ChessComImportIn(BaseModel):
    source: Literal["team_match", "archives"]
    chesscom_match: str | None = Field(
        default=None, max_length=300, description="team match number or URL (source team_match)"
    )
    live: bool = Field(default=False, description="a live team match (/pub/match/live/...)")
    start: datetime | None = Field(default=None, description="window start, with a time zone (archives)")
    end: datetime | None = Field(default=None, description="window end, with a time zone (archives)")
    time_class: str = Field(default="rapid", max_length=16, description="rapid, blitz, bullet or daily")


class BoardImportOut(BaseModel):
    board_id: int
    board_no: int
    white: str
    black: str
    white_account: str | None
    black_account: str | None
    outcome: str = Field(description="recorded, unchanged, arbiter_kept, flagged, not_yet or skipped")
    proposed: str
    stored: str
    url: str | None
    note: str


class ChessComImportOut(BaseModel):
    match_id: int
    source: str
    chesscom_match_id: int | None
    live: bool
    start: datetime | None
    end: datetime | None
    time_class: str | None
    recorded: int
    flagged: int
    boards: list[BoardImportOut]


@api.post("/matches/{match_id}/chesscom-import", response_model=ChessComImportOut)
def chesscom_import_api(
    request: Request, match_id: int, body: ChessComImportIn, user: AuthUser = require_staff()
) -> ChessComImportOut:
    """Import the match's results from Chess.com; flagged boards are listed, not recorded.

    503 with Retry-After when Chess.com rate-limits or is down, 422 for a wrong id, name or window:
    in every error case nothing was recorded.
    """
    window = None
    if body.source == "archives":
        if body.start is None or body.end is None:
            raise ValidationFailed(
                [_("give start and end (ISO 8601 with a time zone) for an archive import")]
            )
        window = (body.start, body.end)
    summary = _run(
        request,
        match_id,
        user.username,
        source=body.source,
        chesscom_match_id=body.chesscom_match,
        live=body.live,
        window=window,
        time_class=body.time_class,
    )
    return ChessComImportOut(
        match_id=summary.match_id,
        source=summary.source,
        chesscom_match_id=summary.chesscom_match_id,
        live=summary.live,
        start=summary.window[0] if summary.window else None,
        end=summary.window[1] if summary.window else None,
        time_class=summary.time_class,
        recorded=len(summary.recorded),
        flagged=len(summary.flagged),
        boards=[
            BoardImportOut(**{name: getattr(b, name) for name in BoardImportOut.model_fields})
            for b in summary.boards
        ],
    )


router = APIRouter()  # the pages and the API, registered with one include_router in web/app.py
router.include_router(pages)
router.include_router(api)
