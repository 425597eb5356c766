"""Staff import of a match's results from Chess.com: a page with two forms (a team match, or the players'
monthly archives in a time window) and a summary page; the JSON twin is web/api/chesscom.py.

Routes only translate: the rules live in services/gameserver/chesscom_import.py. The pages work without
JavaScript.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from pydantic import AfterValidator, BaseModel
from starlette.responses import Response

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
from orchestrator.web.api.chesscom import readable_team_match, run_import
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import get_settings, get_uow_factory, in_unit_of_work, render

router = APIRouter(prefix="/staff", include_in_schema=False)


DEFAULT_WINDOW = timedelta(hours=6)  # after the round's start, when nothing else is given


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


@router.get("/matches/{match_id}/chesscom-import")
def chesscom_import_page(request: Request, match_id: int, user: AuthUser = require_staff()) -> Response:
    return _page(request, match_id)


class ChessComImportForm(BaseModel):
    """The import page's two forms: a team match (number or URL, ``live`` "1" for a live match), or the
    players' archives in a window given in the event's local time. The JSON API's ``ChessComImportIn``
    takes the window with its offset; both check the team match the same way."""

    source: str = ""  # "team_match" (the default) or "archives"
    chesscom_match: Annotated[str, AfterValidator(readable_team_match)] = ""
    start: str = ""
    end: str = ""
    time_class: str = "rapid"
    live: str = ""

    def values(self) -> dict[str, Any]:
        """The fields as the page shows them again after a refusal."""
        return {**self.model_dump(), "live": self.live == "1"}


@router.post("/matches/{match_id}/chesscom-import")
def chesscom_import_submit(
    request: Request,
    match_id: int,
    form: Annotated[ChessComImportForm, Form()],
    user: AuthUser = require_staff(),
) -> Response:
    values = form.values()
    try:
        if values["source"] == "archives":
            problems: list[str] = []
            zone = in_unit_of_work(request, timezone_of, kind="match", entity_id=match_id)
            start = _form_time(values["start"], "start", zone, problems)
            end = _form_time(values["end"], "end", zone, problems)
            if problems or start is None or end is None:
                raise ValidationFailed(problems)
            summary = run_import(
                request,
                match_id,
                user.username,
                source="archives",
                window=(start, end),
                time_class=values["time_class"],
            )
        else:
            summary = run_import(
                request,
                match_id,
                user.username,
                source=values["source"] or "team_match",
                chesscom_match_id=values["chesscom_match"],
                live=values["live"],
            )
    except ServiceError as error:
        if error.status_code == 404 and not isinstance(error, service.ChessComUnavailable):
            raise  # the match itself does not exist: the ordinary error page
        problems_list = list(error.problems) if isinstance(error, ValidationFailed) else []
        response = _page(
            request,
            match_id,
            status_code=error.status_code,
            values=values,
            error=None if problems_list else error.message,
            problems=problems_list,
        )
        retry_after = getattr(error, "retry_after_s", None)
        if retry_after:
            response.headers["Retry-After"] = str(retry_after)
        return response
    sheet = in_unit_of_work(request, result_service.match_sheet, match_id=match_id)
    return render(request, "staff/chesscom/summary.html", {"sheet": sheet, "summary": summary})
