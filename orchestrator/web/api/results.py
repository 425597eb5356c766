"""JSON API for results under /api/v1: result entry (autosave), Save results, corrections, forfeits,
withdrawals, standings, closing, appeals, fair play, audit and exports. Errors: 409 with ``current`` (and
``yours``) when someone else changed a board; 422 with every problem.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.responses import JSONResponse, PlainTextResponse, Response

from orchestrator.adapters.tables import Stage
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import NotFound
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.results import appeals as appeal_service
from orchestrator.services.results import exports
from orchestrator.services.results import fairplay as fairplay_service
from orchestrator.services.results import results as result_service
from orchestrator.services.results import standings as standings_service
from orchestrator.services.results import withdrawals as withdrawal_service
from orchestrator.services.swiss import exports as swiss_exports
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_role, require_staff
from orchestrator.web.deps import current_value_json, fields_of, get_uow_factory, in_unit_of_work

router = APIRouter(prefix="/api/v1", tags=["results"])
ADMINS = ("owner", "admin")


class BoardStateOut(BaseModel):
    board_id: int
    match_id: int
    board_no: int
    result: str
    version: int
    result_source: str | None
    updated_by: str
    updated_at: datetime

    @classmethod
    def of(cls, state: result_service.BoardState) -> BoardStateOut:
        return cls.model_validate(state, from_attributes=True)  # the same fields, by name


class ResultIn(BaseModel):
    result: str = Field(max_length=16, description="1-0, ½-½ (or 1/2-1/2), 0-1, +/-, -/+, -/-, * or –")
    expected_version: int
    reason: str = Field(default="", max_length=2000)


class CorrectionIn(ResultIn):
    reason: str = Field(min_length=1, max_length=2000)


class EntryIn(BaseModel):
    board_id: int
    result: str = Field(max_length=16)
    expected_version: int
    shown: str | None = Field(default=None, max_length=16, description="the result the page showed")


class EntriesIn(BaseModel):
    entries: list[EntryIn]
    reason: str = Field(default="", max_length=2000)


class ForfeitIn(BaseModel):
    forfeit: str = Field(max_length=4, description="'+-' first team wins, '-+', '--', or '' to clear")
    reason: str = Field(default="", max_length=2000)


class WithdrawalIn(BaseModel):
    reason: str = Field(min_length=1, max_length=2000, description="why the team withdraws (audit log)")


class AppealIn(BaseModel):
    grounds: str = Field(default="", max_length=4000)
    team_id: int | None = None
    deadline_minutes: int | None = Field(default=None, ge=0, le=7 * 24 * 60)


class DecisionIn(BaseModel):
    decision: str = Field(min_length=1, max_length=4000)
    upheld: bool


class AnnulIn(BaseModel):
    reason: str = Field(min_length=1, max_length=4000)


def _conflict(error: result_service.ResultsConflict) -> JSONResponse:
    return JSONResponse(
        {
            "detail": error.message,
            "current": [
                {**current_value_json(c), "yours": error.mine.get(c.entity_id)} for c in error.current
            ],
        },
        status_code=409,
    )


def _save_board(
    request: Request,
    save: Callable[..., result_service.BoardState],
    board_id: int,
    body: ResultIn,
    user: AuthUser,
) -> BoardStateOut:
    """One board through ``save`` (record_result or correct_result); StaleEdit goes on to the app's 409."""
    state = in_unit_of_work(request, save, board_id=board_id, actor=user.username, **fields_of(body))
    return BoardStateOut.of(state)


def _save_entries(
    request: Request,
    save: Callable[..., list[result_service.BoardState]],
    match_id: int,
    body: EntriesIn,
    user: AuthUser,
) -> list[BoardStateOut] | JSONResponse:
    """A match's entries through ``save`` (save_results or save_corrections); a conflict answers 409."""
    entries = [
        result_service.ResultEntry(e.board_id, e.result, e.expected_version, e.shown) for e in body.entries
    ]
    try:
        saved = in_unit_of_work(
            request, save, match_id=match_id, entries=entries, actor=user.username, reason=body.reason
        )
    except result_service.ResultsConflict as error:
        return _conflict(error)
    return [BoardStateOut.of(s) for s in saved]


def _event_id(uow: UnitOfWork, slug: str) -> int:
    event = uow.events.get_by_slug(slug)
    if event is None:
        raise NotFound(_("event %(slug)r does not exist") % {"slug": slug})
    return event.id or 0


# --- boards and matches ------------------------------------------------------------------------------


@router.get("/matches/{match_id}/results")
def get_match_results(request: Request, match_id: int, user: AuthUser = require_staff()) -> dict[str, Any]:
    """A match's boards with their result, version and who saved it."""
    sheet = in_unit_of_work(request, result_service.match_sheet, match_id=match_id)
    return {
        "match_id": sheet.match_id,
        "round": sheet.round_number,
        "stage_id": sheet.stage_id,
        "stage_closed": sheet.stage_closed,
        "paired_after": sheet.paired_after,
        "first_team": sheet.first_team,
        "second_team": sheet.second_team,
        "forfeit": sheet.forfeit,
        "score": sheet.score,
        "boards": [
            {
                "board_id": b.board_id,
                "board_no": b.board_no,
                "white": b.white,
                "black": b.black,
                "result": b.result,
                "version": b.version,
                "result_source": b.source,
                "updated_by": b.updated_by,
                "updated_at": b.updated_at.isoformat(),
            }
            for b in sheet.boards
        ],
    }


@router.put("/boards/{board_id}/result")
def put_board_result(
    request: Request, board_id: int, body: ResultIn, user: AuthUser = require_staff()
) -> BoardStateOut:
    """Save one board (autosave); 409 with the stored result when someone else changed it first."""
    return _save_board(request, result_service.record_result, board_id, body, user)


@router.post("/matches/{match_id}/results", response_model=None)
def post_match_results(
    request: Request, match_id: int, body: EntriesIn, user: AuthUser = require_staff()
) -> list[BoardStateOut] | JSONResponse:
    """ "Save results": only changed boards; nothing when one was changed by someone else (409)."""
    return _save_entries(request, result_service.save_results, match_id, body, user)


@router.post("/matches/{match_id}/corrections", response_model=None)
def post_match_corrections(
    request: Request, match_id: int, body: EntriesIn, user: AuthUser = require_role(*ADMINS)
) -> list[BoardStateOut] | JSONResponse:
    """ "Save corrections" (a closed stage too): a reason is required; final standings stored again."""
    return _save_entries(request, result_service.save_corrections, match_id, body, user)


@router.post("/matches/{match_id}/late-corrections", response_model=None)
def post_match_late_corrections(
    request: Request, match_id: int, body: EntriesIn, user: AuthUser = require_staff()
) -> list[BoardStateOut] | JSONResponse:
    """ "Save late correction": a Swiss round followed by a round already paired; a reason is required,
    the standings are computed again and the pairings already made stand (docs/rules.md §6)."""
    return _save_entries(request, result_service.save_late_correction, match_id, body, user)


@router.post("/boards/{board_id}/correction")
def post_board_correction(
    request: Request, board_id: int, body: CorrectionIn, user: AuthUser = require_role(*ADMINS)
) -> BoardStateOut:
    return _save_board(request, result_service.correct_result, board_id, body, user)


@router.put("/matches/{match_id}/forfeit")
def put_match_forfeit(
    request: Request, match_id: int, body: ForfeitIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    """A whole-match forfeit: the absent team loses 0–boards."""
    code = in_unit_of_work(
        request, result_service.set_match_forfeit, match_id=match_id, actor=user.username, **fields_of(body)
    )
    return {"match_id": match_id, "forfeit": code.value}


def _withdrawal(plan: withdrawal_service.WithdrawalPlan) -> dict[str, Any]:
    return {
        "stage_id": plan.stage_id,
        "team_id": plan.team_id,
        "team": plan.team_name,
        "pool_id": plan.pool_id,
        "withdrawn_at": plan.withdrawn_at.isoformat() if plan.withdrawn_at else None,
        "withdrawn_by": plan.withdrawn_by,
        "withdrawn_round": plan.withdrawn_round,
        "complete_matches": plan.complete,
        "forfeits": [
            {
                "match_id": m.match_id,
                "round": m.round_number,
                "opponent": m.opponent,
                "forfeit": m.forfeit,
                "boards_final": m.boards_final,
            }
            for m in plan.remaining
        ],
    }


@router.get("/stages/{stage_id}/teams/{team_id}/withdrawal")
def get_withdrawal(
    request: Request, stage_id: int, team_id: int, user: AuthUser = require_staff()
) -> dict[str, Any]:
    """What the team's withdrawal from the pool stage would forfeit now (``forfeits``), or, once it has
    withdrawn, when and by whom (``withdrawn_*``); nothing is changed."""
    return _withdrawal(
        in_unit_of_work(request, withdrawal_service.withdrawal_plan, stage_id=stage_id, team_id=team_id)
    )


@router.post("/stages/{stage_id}/teams/{team_id}/withdrawal")
def post_withdrawal(
    request: Request, stage_id: int, team_id: int, body: WithdrawalIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    """The team withdraws from the running pool stage: its remaining matches are lost by forfeit, 0 to the
    number of boards; complete ones keep their results. 409 when it already withdrew (saying when and by
    whom), when the stage is not running, or when it has nothing left to forfeit."""
    plan = in_unit_of_work(
        request,
        withdrawal_service.withdraw_from_pool_stage,
        stage_id=stage_id,
        team_id=team_id,
        reason=body.reason,
        actor=user.username,
    )
    return _withdrawal(plan)


# --- standings and closing -------------------------------------------------------------------------------


@router.get("/pools/{pool_id}/standings")
def get_pool_standings(request: Request, pool_id: int, user: AuthUser = require_staff()) -> dict[str, Any]:
    """The stored standings rows (rank, every tie-break value as an exact fraction, provisional flag)."""
    with get_uow_factory(request)() as uow:
        data = standings_service.pool_records(uow, pool_id=pool_id)
        names = {tid: name for name, tid in data.team_ids.items()}
        rows = [
            {
                "rank": row.rank,
                "team_id": row.team_id,
                "team": names.get(row.team_id),
                "values": dict(row.values),
                "separated_by": row.separated_by,
                "provisional": row.provisional,
            }
            for row in uow.rounds.standings_of_pool(pool_id)
        ]
    return {"pool_id": pool_id, "chain": list(data.chain), "rows": rows}


@router.get("/stages/{stage_id}/close")
def get_stage_closing(request: Request, stage_id: int, user: AuthUser = require_staff()) -> dict[str, Any]:
    """Whether the stage can be closed now, and every reason it cannot."""
    with get_uow_factory(request)() as uow:
        stage = uow.events.get(Stage, stage_id)
        if stage is None:
            raise NotFound(_("stage %(id)s does not exist") % {"id": stage_id})
        problems = standings_service.closing_problems(uow, stage_id=stage_id)
        warnings = standings_service.stage_warnings(uow, stage_id=stage_id)
    return {"stage_id": stage_id, "status": stage.status, "problems": problems, "warnings": warnings}


@router.post("/stages/{stage_id}/close")
def post_stage_close(
    request: Request, stage_id: int, user: AuthUser = require_role(*ADMINS)
) -> dict[str, Any]:
    """Close the stage (409 naming each open round, board or appeal, or a tie-break lot committed now:
    close again to draw it); final standings are stored."""
    closed = in_unit_of_work(request, standings_service.close_stage, stage_id=stage_id, actor=user.username)
    closed.raise_refusal()  # after the commit: the tie-break lots it committed stay public
    return {
        "stage_id": closed.stage_id,
        "pools": [
            {"pool_id": p.pool_id, "order": list(p.standings.order), "lots": dict(p.lots)}
            for p in closed.pools
        ],
    }


# --- appeals and fair play ----------------------------------------------------------------------------


def _appeal(view: appeal_service.AppealView) -> dict[str, Any]:
    return {
        "appeal_id": view.appeal_id,
        "match_id": view.match_id,
        "team_id": view.team_id,
        "status": view.status,
        "grounds": view.grounds,
        "opened_by": view.opened_by,
        "opened_at": view.opened_at.isoformat(),
        "deadline_at": view.deadline_at.isoformat(),
        "decision": view.decision,
        "decided_by": view.decided_by,
        "decided_at": view.decided_at.isoformat() if view.decided_at else None,
    }


@router.post("/matches/{match_id}/appeals", status_code=201)
def post_appeal(
    request: Request, match_id: int, body: AppealIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    view = in_unit_of_work(
        request, appeal_service.open_appeal, match_id=match_id, actor=user.username, **fields_of(body)
    )
    return _appeal(view)


@router.post("/appeals/{appeal_id}/decision")
def post_decision(
    request: Request, appeal_id: int, body: DecisionIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    view = in_unit_of_work(
        request, appeal_service.decide_appeal, appeal_id=appeal_id, actor=user.username, **fields_of(body)
    )
    return _appeal(view)


@router.get("/events/{slug}/appeals")
def get_appeals(request: Request, slug: str, user: AuthUser = require_staff()) -> list[dict[str, Any]]:
    with get_uow_factory(request)() as uow:
        return [_appeal(v) for v in appeal_service.event_appeals(uow, event_id=_event_id(uow, slug))]


@router.post("/players/{player_id}/annulment", status_code=201)
def post_annulment(
    request: Request, player_id: int, body: AnnulIn, user: AuthUser = require_role(*ADMINS)
) -> dict[str, Any]:
    """Fair-play ruling: all of the player's results in the event count as forfeit losses."""
    report = in_unit_of_work(
        request, fairplay_service.annul_player, player_id=player_id, reason=body.reason, actor=user.username
    )
    return {
        "annulment_id": report.annulment_id,
        "player_id": report.player_id,
        "boards": list(report.boards),
        "pools": list(report.pools),
        "flagged_stages": list(report.flagged_stages),
    }


@router.get("/events/{slug}/audit")
def get_audit(
    request: Request,
    slug: str,
    match_id: int | None = None,
    limit: int = 200,
    user: AuthUser = require_staff(),
) -> list[dict[str, Any]]:
    """The audit log of an event, newest first; ``match_id`` keeps a match and its boards."""
    with get_uow_factory(request)() as uow:
        event_id = _event_id(uow, slug)
        board_ids = [b.id or 0 for b in uow.boards.for_match(match_id)] if match_id is not None else None
        entries = uow.audit.entries(
            event_id=event_id, board_ids=board_ids, match_id=match_id, limit=max(1, min(limit, 1000))
        )
        return [
            {
                "id": e.id,
                "at": e.at.isoformat(),
                "actor": e.actor,
                "action": e.action,
                "entity": e.entity,
                "entity_id": e.entity_id,
                "old": e.old,
                "new": e.new,
                "reason": e.reason,
            }
            for e in entries
        ]


# --- exports ---------------------------------------------------------------------------------------------


@router.get("/pools/{pool_id}/standings.csv", response_class=PlainTextResponse)
def get_standings_csv(request: Request, pool_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        return PlainTextResponse(
            exports.standings_csv(uow, pool_id=pool_id), media_type="text/csv; charset=utf-8"
        )


@router.get("/pools/{pool_id}/trf", response_class=PlainTextResponse)
def get_trf(request: Request, pool_id: int, user: AuthUser = require_staff()) -> Response:
    return PlainTextResponse(in_unit_of_work(request, swiss_exports.pool_trf, pool_id=pool_id))


@router.get("/matches/{match_id}/pgn", response_class=PlainTextResponse)
def get_pgn(request: Request, match_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        return PlainTextResponse(
            exports.match_pgn(uow, match_id=match_id), media_type="application/x-chess-pgn"
        )
