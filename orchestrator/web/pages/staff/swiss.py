"""Staff pages of a Swiss stage: the round desk (docs/staff-guide.md, docs/swiss.md "The server").

Pair the next round, review the draft, override a board with a reason, publish, pair again, and the team
operations (withdrawal, absence, late entry) and ending early. Every form posts with its CSRF token and
redirects back to the desk; a refusal shows the desk again with the message (the same status code as the
JSON API). Routes only translate: the rules are in services/swiss/.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from starlette.datastructures import FormData
from starlette.responses import RedirectResponse, Response

from orchestrator.adapters.tables import Role
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import ServiceError, ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.setup import stage_start
from orchestrator.services.swiss import desk, entries, rounds
from orchestrator.translation import gettext as _
from orchestrator.translation import ngettext
from orchestrator.web.auth import require_role, require_staff
from orchestrator.web.deps import get_uow_factory, render
from orchestrator.web.i18n import N_

router = APIRouter(prefix="/staff/swiss", include_in_schema=False)

# What the desk says after a form went through (the redirect names the code, never the text).
DONE = {
    "started": N_("The stage started: its teams are numbered by initial ranking."),
    "paired": N_("Paired: review the draft, then publish it."),
    "published": N_("Published: the round's matches and boards exist."),
    "re-paired": N_("Paired again: review the new draft."),
    "changed": N_("The draft was changed."),
    "withdrawn": N_("The team withdrew."),
    "absent": N_("The team is marked absent."),
    "present": N_("The team is no longer absent: it is paired in that round."),
    "joined": N_("The team joined the stage."),
    "ended": N_("The stage ended: its standings are final."),
}


def _desk_page(request: Request, stage_id: int, *, status_code: int = 200, **extra: Any) -> Response:
    with get_uow_factory(request)() as uow:
        view = desk.swiss_desk(uow, stage_id=stage_id)
    return render(request, "staff/swiss.html", {"desk": view, **extra}, status_code=status_code)


@router.get("/{stage_id}")
def desk_page(
    request: Request,
    stage_id: int,
    done: str = "",
    discarded: int = 0,
    forfeited: int = 0,
    left: int = 0,
    user: AuthUser = require_staff(),
) -> Response:
    said = [_(DONE[done])] if done in DONE else []
    if said and discarded > 0:
        said.append(
            _("The draft pairing of round %(round)d was discarded: pair it again.") % {"round": discarded}
        )
    if said and forfeited > 0:
        said.append(
            ngettext(
                "Its match of a published round, not started, was forfeited for the opponent.",
                "Its %(num)d matches of a published round, not started, were forfeited for the opponent.",
                forfeited,
            )
            % {"num": forfeited}
        )
    if said and left > 0:
        said.append(
            ngettext(
                "Its match of a published round already started was left to you: finish or forfeit it on "
                "the match sheet (the results desk).",
                "Its %(num)d matches of a published round already started were left to you: finish or "
                "forfeit them on the match sheet (the results desk).",
                left,
            )
            % {"num": left}
        )
    return _desk_page(request, stage_id, done=" ".join(said))


def _number(form: FormData, name: str, problem: str) -> int:
    """Form field ``name`` as a number; ``problem`` (marked with N_) when it holds none."""
    raw = str(form.get(name, "")).strip()
    if not raw.isdigit() or len(raw) > 9:
        raise ValidationFailed([_(problem)])
    return int(raw)


def _act(
    request: Request, stage_id: int, action: Callable[[UnitOfWork], object], done: str, form: FormData
) -> Response:
    """Run ``action`` in a unit of work; back to the desk with ``done``, or the desk with the refusal."""
    try:
        with get_uow_factory(request)() as uow:
            result = action(uow)
        discarded = getattr(result, "discarded_draft", None)
        forfeited = len(getattr(result, "forfeited", ()))
        left = len(getattr(result, "left_to_staff", ()))
        refusal = getattr(result, "raise_refusal", None)
        if refusal is not None:
            refusal()
    except ServiceError as error:
        problems = list(error.problems) if isinstance(error, ValidationFailed) else []
        return _desk_page(
            request,
            stage_id,
            status_code=error.status_code,
            error=None if problems else error.message,
            problems=problems,
            form=dict(form),
        )
    query = f"done={done}" + (f"&discarded={discarded}" if discarded else "")
    query += (f"&forfeited={forfeited}" if forfeited else "") + (f"&left={left}" if left else "")
    return RedirectResponse(f"/staff/swiss/{stage_id}?{query}", status_code=303)


def _stage_of_round(request: Request, round_id: int) -> int:
    with get_uow_factory(request)() as uow:
        return rounds.describe_round(uow, round_id=round_id).stage_id


@router.post("/{stage_id}/start")
async def start(
    request: Request, stage_id: int, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)
) -> Response:
    form = await request.form()
    return _act(
        request,
        stage_id,
        lambda uow: stage_start.start_stage(uow, stage_id=stage_id, actor=user.username),
        "started",
        form,
    )


@router.post("/{stage_id}/pair")
async def pair(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    form = await request.form()
    as_draws = form.get("count_unfinished_as_draws") == "1"
    return _act(
        request,
        stage_id,
        lambda uow: rounds.pair_next_round(
            uow, stage_id=stage_id, actor=user.username, count_unfinished_as_draws=as_draws
        ),
        "paired",
        form,
    )


@router.post("/rounds/{round_id}/publish")
async def publish(request: Request, round_id: int, user: AuthUser = require_staff()) -> Response:
    form = await request.form()
    stage_id = _stage_of_round(request, round_id)
    return _act(
        request,
        stage_id,
        lambda uow: rounds.publish_round_pairing(uow, round_id=round_id, actor=user.username),
        "published",
        form,
    )


@router.post("/rounds/{round_id}/re-pair")
async def re_pair(request: Request, round_id: int, user: AuthUser = require_staff()) -> Response:
    form = await request.form()
    stage_id = _stage_of_round(request, round_id)
    as_draws = form.get("count_unfinished_as_draws") == "1"
    return _act(
        request,
        stage_id,
        lambda uow: rounds.repair_round(
            uow, round_id=round_id, actor=user.username, count_unfinished_as_draws=as_draws
        ),
        "re-paired",
        form,
    )


@router.post("/rounds/{round_id}/override")
async def override(request: Request, round_id: int, user: AuthUser = require_staff()) -> Response:
    form = await request.form()
    stage_id = _stage_of_round(request, round_id)

    def action(uow: UnitOfWork) -> object:
        return rounds.override_pairing(
            uow,
            round_id=round_id,
            board=_number(form, "board", N_("board: choose a board")),
            first_id=_number(form, "first_team_id", N_("first_team_id: choose the first-named team")),
            second_id=_number(form, "second_team_id", N_("second_team_id: choose the other team")),
            reason=str(form.get("reason", "")),
            actor=user.username,
        )

    return _act(request, stage_id, action, "changed", form)


@router.post("/{stage_id}/withdraw")
async def withdraw(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    form = await request.form()
    return _act(
        request,
        stage_id,
        lambda uow: entries.withdraw_team(
            uow,
            stage_id=stage_id,
            team_id=_number(form, "team_id", N_("team_id: choose the team")),
            reason=str(form.get("reason", "")),
            actor=user.username,
        ),
        "withdrawn",
        form,
    )


@router.post("/{stage_id}/absent")
async def absent(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    form = await request.form()
    return _act(
        request,
        stage_id,
        lambda uow: entries.mark_absent(
            uow,
            stage_id=stage_id,
            team_id=_number(form, "team_id", N_("team_id: choose the team")),
            round_no=_number(form, "round", N_("round: choose a round")),
            reason=str(form.get("reason", "")),
            actor=user.username,
        ),
        "absent",
        form,
    )


@router.post("/{stage_id}/present")
async def present(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    form = await request.form()
    team_id, _, round_no = str(form.get("absence", "")).partition(":")

    def action(uow: UnitOfWork) -> object:
        if not team_id.isdigit() or not round_no.isdigit() or len(team_id) > 9 or len(round_no) > 9:
            raise ValidationFailed([N_("absence: choose an absence")])
        return entries.mark_present(
            uow,
            stage_id=stage_id,
            team_id=int(team_id),
            round_no=int(round_no),
            reason=str(form.get("reason", "")),
            actor=user.username,
        )

    return _act(request, stage_id, action, "present", form)


@router.post("/{stage_id}/late-entry")
async def late_entry(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    form = await request.form()
    return _act(
        request,
        stage_id,
        lambda uow: entries.add_late_entry(
            uow,
            stage_id=stage_id,
            team_id=_number(form, "team_id", N_("team_id: choose the team")),
            reason=str(form.get("reason", "")),
            actor=user.username,
        ),
        "joined",
        form,
    )


@router.post("/{stage_id}/end-early")
async def end_early(request: Request, stage_id: int, user: AuthUser = require_staff()) -> Response:
    form = await request.form()
    return _act(
        request,
        stage_id,
        lambda uow: entries.end_swiss_early(
            uow, stage_id=stage_id, reason=str(form.get("reason", "")), actor=user.username
        ),
        "ended",
        form,
    )
