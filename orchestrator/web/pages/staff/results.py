"""Staff pages for results: entry per round and match, corrections, withdrawals, audit log, appeals, fair
play, closing.

Every page works without JavaScript (forms post and redirect); static/results.js adds autosave per board.
Routes only translate: the rules live in services/results/results.py, standings.py, appeals.py, fairplay.py,
withdrawals.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Form, Request
from pydantic import BaseModel, model_validator
from starlette.responses import RedirectResponse, Response

from orchestrator.adapters.tables import Round, Stage
from orchestrator.errors import Conflict, ServiceError, ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.read import staff
from orchestrator.services.read.formatting import tiebreak_label
from orchestrator.services.results import appeals as appeal_service
from orchestrator.services.results import exports
from orchestrator.services.results import fairplay as fairplay_service
from orchestrator.services.results import results as result_service
from orchestrator.services.results import standings as standings_service
from orchestrator.services.results import withdrawals as withdrawal_service
from orchestrator.services.swiss import exports as swiss_exports
from orchestrator.translation import gettext as _
from orchestrator.translation import ngettext
from orchestrator.web.api.results import AppealIn, EntriesIn, EntryIn
from orchestrator.web.auth import require_role, require_staff
from orchestrator.web.deps import attachment, get_uow_factory, render, staff_back
from orchestrator.web.http.validation import ChosenId, form_problems, id_number
from orchestrator.web.i18n import N_

router = APIRouter(prefix="/staff", include_in_schema=False)

ADMINS = ("owner", "admin")


def _last(value: object) -> object:
    """A form field's value; of a field posted twice, the last (as ``FormData.get``)."""
    return value[-1] if isinstance(value, list) and value else value


class EntriesForm(EntriesIn):
    """The results of a match as its page posts them: ``board_<id>`` (the result chosen), ``version_<id>``
    (the board's version the page showed), ``shown_<id>`` (the result it showed), the page to go back to
    and, for corrections, the reason. The same entries as the JSON API's (``EntriesIn``)."""

    back: str = ""

    @model_validator(mode="before")
    @classmethod
    def _one_field_per_board(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "entries" in data:
            return data
        entries: list[EntryIn] = []
        problems: list[str] = []
        for key, posted in data.items():
            if not key.startswith("board_"):
                continue
            for value in posted if isinstance(posted, list) else [posted]:
                if not isinstance(value, str):
                    continue
                board_id = id_number(key.removeprefix("board_"))
                shown_version = _last(data.get(f"version_{board_id}"))
                version = id_number(shown_version, low=0) if board_id is not None else None
                if board_id is None or version is None:
                    problems.append(_("%(field)s: the page is incomplete; reload it") % {"field": key})
                    continue
                shown = _last(data.get(f"shown_{board_id}"))
                entries.append(
                    EntryIn(
                        board_id=board_id,
                        result=value,
                        expected_version=version,
                        shown=shown if isinstance(shown, str) else None,
                    )
                )
        if problems:
            raise form_problems(problems)
        return {**data, "entries": entries}

    def result_entries(self) -> list[result_service.ResultEntry]:
        return [
            result_service.ResultEntry(e.board_id, e.result, e.expected_version, e.shown)
            for e in self.entries
        ]


class ForfeitForm(BaseModel):
    forfeit: str = ""  # "+-", "-+", "--", or "" to clear
    reason: str = ""


class WithdrawalForm(BaseModel):
    team_id: ChosenId = None
    reason: str = ""


class DecisionForm(BaseModel):
    decision: str = ""
    upheld: str = ""  # "yes" upholds the appeal


class AnnulmentForm(BaseModel):
    """A fair-play ruling (docs/staff-guide-results.md, "Fair-play rulings"): the player and why."""

    player_id: ChosenId = None
    reason: str = ""


# --- overview and entry pages ----------------------------------------------------------------------------


@router.get("/events/{slug}/results")
def results_overview(request: Request, slug: str, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        overview = staff.results_overview(uow, slug=slug)
    context = {"event": overview.event, "stages": overview.stages}
    return render(request, "staff/results/overview.html", context)


@router.get("/rounds/{round_id}/results")
def round_results(request: Request, round_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        rnd = uow.rounds.get_or_raise(Round, round_id)
        stage = uow.events.get_or_raise(Stage, rnd.stage_id)
        event = uow.events.event_of_stage(stage)
        sheets = staff.sheets_of_round(uow, round_id=round_id)
    return render(
        request,
        "staff/results/round.html",
        {
            "event": event,
            "stage": stage,
            "round": rnd,
            "sheets": sheets,
            "choices": result_service.RESULT_CHOICES,
            "saved": request.query_params.get("saved"),
            "back": request.url.path,
        },
    )


@router.get("/matches/{match_id}/results")
def match_results(request: Request, match_id: int, user: AuthUser = require_staff()) -> Response:
    return _match_page(request, match_id, saved=request.query_params.get("saved"), back=request.url.path)


def _match_page(request: Request, match_id: int, *, status_code: int = 200, **extra: Any) -> Response:
    """The match's result sheet, with ``extra`` (problems, conflicts, the reason typed) in its context."""
    with get_uow_factory(request)() as uow:
        sheet = result_service.match_sheet(uow, match_id=match_id)
        event = staff.event_by_slug(uow, sheet.event_slug)
    context = {
        "event": event,
        "sheet": sheet,
        "choices": result_service.RESULT_CHOICES,
        "back": f"/staff/matches/{match_id}/results",
    }
    return render(request, "staff/results/match.html", {**context, **extra}, status_code=status_code)


def _conflict_page(
    request: Request, match_id: int, error: result_service.ResultsConflict, *, correcting: bool, reason: str
) -> Response:
    return _match_page(
        request,
        match_id,
        status_code=409,
        conflicts={c.entity_id: c for c in error.current},
        mine=error.mine,
        error=N_(
            "Changed by someone else: nothing was saved. Each board below shows the stored result "
            "beside yours; check them and save again."
        ),
        reason=reason,
    )


@router.post("/matches/{match_id}/results")
def save_match_results(
    request: Request, match_id: int, form: Annotated[EntriesForm, Form()], user: AuthUser = require_staff()
) -> Response:
    entries = form.result_entries()
    try:
        with get_uow_factory(request)() as uow:
            saved = result_service.save_results(uow, match_id=match_id, entries=entries, actor=user.username)
    except result_service.ResultsConflict as error:
        return _conflict_page(request, match_id, error, correcting=False, reason="")
    target = staff_back(form.back, f"/staff/matches/{match_id}/results")
    return RedirectResponse(f"{target}?saved={len(saved)}#match-{match_id}", status_code=303)


@router.post("/matches/{match_id}/corrections")
def save_match_corrections(
    request: Request,
    match_id: int,
    form: Annotated[EntriesForm, Form()],
    user: AuthUser = require_role(*ADMINS),
) -> Response:
    saved = _save_with_reason(request, match_id, form, user, result_service.save_corrections)
    if isinstance(saved, Response):
        return saved
    return RedirectResponse(f"/staff/matches/{match_id}/results?saved={saved}", status_code=303)


def _save_with_reason(
    request: Request,
    match_id: int,
    form: EntriesForm,
    user: AuthUser,
    save: Callable[..., Sequence[object]],
) -> int | Response:
    """A correction with its reason (``save``: the service's correction or late correction): how many
    boards it saved, or the page that says why it saved nothing (a stale edit, a refusal)."""
    entries, reason = form.result_entries(), form.reason
    try:
        with get_uow_factory(request)() as uow:
            saved = save(uow, match_id=match_id, entries=entries, actor=user.username, reason=reason)
    except result_service.ResultsConflict as error:
        return _conflict_page(request, match_id, error, correcting=True, reason=reason)
    except ValidationFailed as error:
        return _match_page(request, match_id, status_code=422, problems=list(error.problems), reason=reason)
    return len(saved)


@router.post("/matches/{match_id}/late-correction")
def save_match_late_correction(
    request: Request, match_id: int, form: Annotated[EntriesForm, Form()], user: AuthUser = require_staff()
) -> Response:
    """ "Save late correction": a Swiss round followed by a round already paired (docs/rules.md §6, "Late
    corrections"); a reason is required."""
    saved = _save_with_reason(request, match_id, form, user, result_service.save_late_correction)
    if isinstance(saved, Response):
        return saved
    target = staff_back(form.back, f"/staff/matches/{match_id}/results")
    return RedirectResponse(f"{target}?saved={saved}#match-{match_id}", status_code=303)


@router.post("/matches/{match_id}/forfeit")
def save_match_forfeit(
    request: Request, match_id: int, form: Annotated[ForfeitForm, Form()], user: AuthUser = require_staff()
) -> Response:
    with get_uow_factory(request)() as uow:
        result_service.set_match_forfeit(
            uow, match_id=match_id, forfeit=form.forfeit, actor=user.username, reason=form.reason
        )
    return RedirectResponse(f"/staff/matches/{match_id}/results?saved=1", status_code=303)


# --- withdrawals ----------------------------------------------------------------------------------------


@router.get("/stages/{stage_id}/withdrawals")
def withdrawals_page(
    request: Request,
    stage_id: int,
    team_id: int | None = None,
    withdrawn: int | None = None,
    user: AuthUser = require_staff(),
) -> Response:
    """The stage's withdrawals; with ``team_id``, the confirmation that lists what it would forfeit."""
    return _withdrawals_page(request, stage_id, team_id=team_id, withdrawn=withdrawn)


def _withdrawals_page(
    request: Request, stage_id: int, *, team_id: int | None, status_code: int = 200, **extra: Any
) -> Response:
    with get_uow_factory(request)() as uow:
        desk = withdrawal_service.withdrawal_desk(uow, stage_id=stage_id)
        event = staff.staff_event_ref(uow, event_id=desk.event_id)
        plan = None
        if team_id is not None and desk.refusal is None:
            plan = withdrawal_service.withdrawal_plan(uow, stage_id=stage_id, team_id=team_id)
    done = next((t for t in desk.withdrawn if t.team_id == extra.pop("withdrawn", None)), None)
    context = {"event": event, "desk": desk, "plan": plan, "done": done, **extra}
    return render(request, "staff/results/withdrawals.html", context, status_code=status_code)


@router.post("/stages/{stage_id}/withdrawals")
def withdraw_team_submit(
    request: Request, stage_id: int, form: Annotated[WithdrawalForm, Form()], user: AuthUser = require_staff()
) -> Response:
    team_id = form.team_id
    if team_id is None:
        raise ValidationFailed([N_("team_id: choose the team that withdraws")])
    reason = form.reason
    try:
        with get_uow_factory(request)() as uow:
            withdrawal_service.withdraw_from_pool_stage(
                uow, stage_id=stage_id, team_id=team_id, reason=reason, actor=user.username
            )
    except (Conflict, ValidationFailed) as error:
        problems = list(error.problems) if isinstance(error, ValidationFailed) else []
        return _withdrawals_page(
            request,
            stage_id,
            team_id=team_id,
            status_code=error.status_code,
            error=None if problems else error.message,
            problems=problems,
            reason=reason,
        )
    return RedirectResponse(f"/staff/stages/{stage_id}/withdrawals?withdrawn={team_id}", status_code=303)


# --- closing a stage ----------------------------------------------------------------------------------


@router.get("/stages/{stage_id}/close")
def close_stage_page(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        view = staff.closing_view(uow, stage_id=stage_id)
    return _close_page(
        request, view, can_close=user.role.value in ADMINS, closed_now=request.query_params.get("closed")
    )


def _close_page(
    request: Request, view: staff.ClosingView, *, status_code: int = 200, **extra: Any
) -> Response:
    """The stage's closing page: what refuses or warns against closing it, with ``extra`` in its context."""
    context = {
        "event": view.event,
        "stage": view.stage,
        "refusals": view.refusals,
        "warnings": view.warnings,
        "late_changes": view.late_changes,
        "pools": view.pools,
        "lots_to_draw": view.lots_to_draw,
        # the columns' headings as the standings pages name them ("DE:MP" is "DE-MP")
        "tiebreak_short": {
            code: tiebreak_label(code)[0] for p in view.pools for code in p.table.chain if code != "LOT"
        },
    }
    return render(request, "staff/results/close.html", {**context, **extra}, status_code=status_code)


@router.post("/stages/{stage_id}/close")
def close_stage_submit(request: Request, stage_id: int, user: AuthUser = require_role(*ADMINS)) -> Response:
    lots_committed = False
    try:
        with get_uow_factory(request)() as uow:
            closed = standings_service.close_stage(uow, stage_id=stage_id, actor=user.username)
        lots_committed = closed.refusal is not None
        closed.raise_refusal()  # after the commit: the lots it committed stay public
    except ServiceError as error:
        if error.status_code != 409:
            raise
        with get_uow_factory(request)() as uow:  # the pools with the lots just committed, if any
            view = staff.closing_view(uow, stage_id=stage_id, with_pools=lots_committed)
        return _close_page(request, view, status_code=409, can_close=True, error=error.message)
    return RedirectResponse(f"/staff/stages/{stage_id}/close?closed=1", status_code=303)


# --- audit log ----------------------------------------------------------------------------------------


@router.get("/events/{slug}/audit")
def audit_page(
    request: Request, slug: str, match_id: int | None = None, user: AuthUser = require_staff()
) -> Response:
    with get_uow_factory(request)() as uow:
        view = staff.audit_view(uow, slug=slug, match_id=match_id)
    context = {"event": view.event, "entries": view.entries, "match_id": view.match_id}
    return render(request, "staff/audit.html", context)


# --- appeals --------------------------------------------------------------------------------------------


@router.get("/events/{slug}/appeals")
def appeals_page(request: Request, slug: str, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        view = staff.appeals_view(uow, slug=slug)
    context = {"event": view.event, "appeals": view.appeals, "labels": view.labels}
    return render(request, "staff/appeals.html", context)


@router.post("/matches/{match_id}/appeals")
def open_appeal_submit(
    request: Request, match_id: int, form: Annotated[AppealIn, Form()], user: AuthUser = require_staff()
) -> Response:
    """Open an appeal (docs/rules.md §6, docs/staff-guide-results.md "Appeals"); the form takes the JSON
    API's fields (``AppealIn``)."""
    with get_uow_factory(request)() as uow:
        appeal = appeal_service.open_appeal(
            uow,
            match_id=match_id,
            actor=user.username,
            grounds=form.grounds,
            team_id=form.team_id,
            deadline_minutes=form.deadline_minutes,
        )
        slug = result_service.match_sheet(uow, match_id=appeal.match_id).event_slug
    return RedirectResponse(f"/staff/events/{quote(slug)}/appeals", status_code=303)


@router.post("/appeals/{appeal_id}/decision")
def decide_appeal_submit(
    request: Request, appeal_id: int, form: Annotated[DecisionForm, Form()], user: AuthUser = require_staff()
) -> Response:
    with get_uow_factory(request)() as uow:
        appeal = appeal_service.decide_appeal(
            uow,
            appeal_id=appeal_id,
            decision=form.decision,
            upheld=form.upheld == "yes",
            actor=user.username,
        )
        slug = result_service.match_sheet(uow, match_id=appeal.match_id).event_slug
    return RedirectResponse(f"/staff/events/{quote(slug)}/appeals", status_code=303)


# --- fair play -----------------------------------------------------------------------------------------


@router.get("/events/{slug}/fairplay")
def fairplay_page(request: Request, slug: str, user: AuthUser = require_role(*ADMINS)) -> Response:
    return _fairplay(request, slug)


def _fairplay(request: Request, slug: str, **extra: Any) -> Response:
    status = int(extra.pop("status", 200))
    with get_uow_factory(request)() as uow:
        view = staff.fair_play_view(uow, slug=slug)
    context = {"event": view.event, "annulments": view.annulments, "players": view.players, **extra}
    return render(request, "staff/results/fairplay.html", context, status_code=status)


@router.post("/events/{slug}/fairplay")
def fairplay_submit(
    request: Request,
    slug: str,
    form: Annotated[AnnulmentForm, Form()],
    user: AuthUser = require_role(*ADMINS),
) -> Response:
    if form.player_id is None:
        raise ValidationFailed([N_("choose the player")])
    with get_uow_factory(request)() as uow:
        report = fairplay_service.annul_player(
            uow, player_id=form.player_id, reason=form.reason, actor=user.username
        )
    said = [
        ngettext(
            "Annulled: %(num)d result now counts as a loss.",
            "Annulled: %(num)d results now count as losses.",
            len(report.boards),
        )
        % {"num": len(report.boards)},
        ngettext("%(num)d pool recomputed.", "%(num)d pools recomputed.", len(report.pools))
        % {"num": len(report.pools)},
    ]
    if report.flagged_stages:
        flagged = len(report.flagged_stages)
        said.append(
            ngettext(
                "%(num)d later stage flagged: check its pools.",
                "%(num)d later stages flagged: check their pools.",
                flagged,
            )
            % {"num": flagged}
        )
    notice = " ".join(said)
    return _fairplay(request, slug, notice=notice)


# --- exports --------------------------------------------------------------------------------------------


@router.get("/pools/{pool_id}/standings.csv")
def standings_csv(request: Request, pool_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        text = exports.standings_csv(uow, pool_id=pool_id)
    return attachment(text, f"pool-{pool_id}-standings.csv", "text/csv; charset=utf-8")


@router.get("/pools/{pool_id}/pool.trf")
def pool_trf(request: Request, pool_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        text = swiss_exports.pool_trf(uow, pool_id=pool_id)
    return attachment(text, f"pool-{pool_id}.trf")


@router.get("/matches/{match_id}/games.pgn")
def match_pgn(request: Request, match_id: int, user: AuthUser = require_staff()) -> Response:
    with get_uow_factory(request)() as uow:
        text = exports.match_pgn(uow, match_id=match_id)
    return attachment(text, f"match-{match_id}.pgn", "application/x-chess-pgn")
