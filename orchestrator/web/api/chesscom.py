"""Staff import of a match's results from Chess.com, as JSON (the pages: web/pages/staff/chesscom.py).

Routes only translate: the rules live in services/gameserver/chesscom_import.py.
Tests replace Chess.com by setting ``app.state.chesscom_client_factory`` (a callable returning a client).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request
from pydantic import AfterValidator, BaseModel, Field, ValidationInfo
from pydantic_core import PydanticCustomError

from orchestrator.adapters.chesscom import ChessComClient
from orchestrator.errors import ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.gameserver import chesscom_import as service
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import get_settings, in_unit_of_work

router = APIRouter(prefix="/api/v1/staff", tags=["results"])


def _client(request: Request) -> ChessComClient:
    factory = getattr(request.app.state, "chesscom_client_factory", None)
    if factory is not None:
        client: ChessComClient = factory()
        return client
    return service.make_client(get_settings(request))


def run_import(request: Request, match_id: int, actor: str, **options: Any) -> service.ImportSummary:
    """One unit of work for the whole import: an error leaves every board as it was."""
    client = _client(request)
    try:
        return in_unit_of_work(
            request, service.import_chesscom_results, match_id=match_id, actor=actor, client=client, **options
        )
    finally:
        client.close()


def readable_team_match(value: str | None, info: ValidationInfo) -> str | None:
    """A team match the import can read; anything else ("abc", "a]b", "²") is refused here with the import's
    reason, naming the field."""
    if (info.data.get("source") or "team_match") != "team_match" or not value or not value.strip():
        return value
    try:
        service.parse_team_match(value)
    except ValidationFailed as refused:  # the service's own sentence, naming the field
        problem = " ".join(refused.problems) or str(refused)
    except ValueError:
        problem = _(
            "%(raw)r is not a Chess.com team match: give its number or its URL (…/club/matches/1234567)"
        ) % {"raw": value.strip()[:80]}
    else:
        return value
    raise PydanticCustomError("team_match", problem.replace("{", "(").replace("}", ")")) from None


TeamMatchText = Annotated[str | None, AfterValidator(readable_team_match)]


class ChessComImportIn(BaseModel):
    source: Literal["team_match", "archives"]
    chesscom_match: TeamMatchText = Field(
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


@router.post("/matches/{match_id}/chesscom-import", response_model=ChessComImportOut)
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
    summary = run_import(
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
