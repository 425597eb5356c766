"""Staff pages of a Swiss stage: the round desk (docs/staff-guide.md, docs/swiss.md "The server").

Pair the next round, review the draft, override a board with a reason, publish, pair again, and the team
operations (withdrawal, absence, late entry) and ending early. Every form posts with its CSRF token and
redirects back to the desk; a refusal shows the desk again with the message (the same status code as the
JSON API). Routes only translate: the rules are in services/swiss/.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from pydantic import BaseModel
from starlette.responses import RedirectResponse, Response

from orchestrator.adapters.tables import Role
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import ServiceError, ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.setup import stage_start
from orchestrator.services.swiss import adjustments, desk, entries, rounds
from orchestrator.translation import gettext as _
from orchestrator.translation import ngettext
from orchestrator.web.api.swiss import AdjustmentIn
from orchestrator.web.auth import require_role, require_staff
from orchestrator.web.deps import get_uow_factory, in_unit_of_work, render
from orchestrator.web.http.validation import ChosenId, id_number
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
    "adjusted": N_("The points were given: the standings count them."),
}


class ReasonForm(BaseModel):
    """A desk form that only gives a reason (ending the stage early)."""

    reason: str = ""


class PairForm(BaseModel):
    """Pair the next round, or a round again: unfinished boards of earlier rounds may count as draws."""

    count_unfinished_as_draws: str = ""  # the checkbox posts "1"

    @property
    def as_draws(self) -> bool:
        return self.count_unfinished_as_draws == "1"


class TeamForm(ReasonForm):
    """A team's withdrawal or late entry; a team not chosen is the desk's own problem (``_number``)."""

    team_id: ChosenId = None

    def chosen(self) -> dict[str, int]:
        """The use case's arguments for what the form chose; ValidationFailed for what it did not."""
        return {"team_id": _number(self.team_id, N_("team_id: choose the team"))}


class AbsentForm(TeamForm):
    round: ChosenId = None

    def chosen(self) -> dict[str, int]:
        return {**super().chosen(), "round_no": _number(self.round, N_("round: choose a round"))}


class OverrideForm(ReasonForm):
    board: ChosenId = None
    first_team_id: ChosenId = None
    second_team_id: ChosenId = None


class PresentForm(ReasonForm):
    """An absence to lift, posted as ``team_id:round`` (one select over the stage's absences)."""

    absence: str = ""

    def team_and_round(self) -> tuple[int, int]:
        team_id, _, round_no = self.absence.partition(":")
        team, number = id_number(team_id), id_number(round_no)
        if team is None or number is None:
            raise ValidationFailed([N_("absence: choose an absence")])
        return team, number

    def chosen(self) -> dict[str, int]:
        team_id, round_no = self.team_and_round()
        return {"team_id": team_id, "round_no": round_no}


class AdjustmentForm(AdjustmentIn):
    """The desk's bonus or penalty points: the API's model, the team chosen on the form, the checkbox
    posting "1"; an empty field counts as absent."""

    team_id: ChosenId = None
    standings_only: bool = False


def _desk_page(request: Request, stage_id: int, *, status_code: int = 200, **extra: Any) -> Response:
    view = in_unit_of_work(request, desk.swiss_desk, stage_id=stage_id)
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


def _number(value: int | None, problem: str) -> int:
    """A number the form had to give; ``problem`` (marked with N_) when none was chosen."""
    if value is None:
        raise ValidationFailed([_(problem)])
    return value


def _act(request: Request, stage_id: int, action: Callable[[UnitOfWork], object], done: str) -> Response:
    """Run ``action`` in a unit of work; back to the desk with ``done``, or the desk with the refusal."""
    try:
        result = in_unit_of_work(request, action)
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
        )
    query = f"done={done}" + (f"&discarded={discarded}" if discarded else "")
    query += (f"&forfeited={forfeited}" if forfeited else "") + (f"&left={left}" if left else "")
    return RedirectResponse(f"/staff/swiss/{stage_id}?{query}", status_code=303)


def _stage_of_round(request: Request, round_id: int) -> int:
    with get_uow_factory(request)() as uow:
        return rounds.describe_round(uow, round_id=round_id).stage_id


def _team_step(
    request: Request,
    stage_id: int,
    use_case: Callable[..., object],
    form: TeamForm | PresentForm,
    user: AuthUser,
    done: str,
) -> Response:
    """A step on the team chosen on ``form`` (services/swiss/entries.py), in the round it names for an
    absence; a team or round not chosen is refused on the desk like the step's own refusals."""
    return _act(
        request,
        stage_id,
        lambda uow: use_case(
            uow, stage_id=stage_id, reason=form.reason, actor=user.username, **form.chosen()
        ),
        done,
    )


@router.post("/{stage_id}/start")
def start(request: Request, stage_id: int, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)) -> Response:
    return _act(
        request,
        stage_id,
        lambda uow: stage_start.start_stage(uow, stage_id=stage_id, actor=user.username),
        "started",
    )


@router.post("/{stage_id}/pair")
def pair(
    request: Request, stage_id: int, form: Annotated[PairForm, Form()], user: AuthUser = require_staff()
) -> Response:
    return _act(
        request,
        stage_id,
        lambda uow: rounds.pair_next_round(
            uow, stage_id=stage_id, actor=user.username, count_unfinished_as_draws=form.as_draws
        ),
        "paired",
    )


@router.post("/rounds/{round_id}/publish")
def publish(request: Request, round_id: int, user: AuthUser = require_staff()) -> Response:
    stage_id = _stage_of_round(request, round_id)
    return _act(
        request,
        stage_id,
        lambda uow: rounds.publish_round_pairing(uow, round_id=round_id, actor=user.username),
        "published",
    )


@router.post("/rounds/{round_id}/re-pair")
def re_pair(
    request: Request, round_id: int, form: Annotated[PairForm, Form()], user: AuthUser = require_staff()
) -> Response:
    stage_id = _stage_of_round(request, round_id)
    return _act(
        request,
        stage_id,
        lambda uow: rounds.repair_round(
            uow, round_id=round_id, actor=user.username, count_unfinished_as_draws=form.as_draws
        ),
        "re-paired",
    )


@router.post("/rounds/{round_id}/override")
def override(
    request: Request, round_id: int, form: Annotated[OverrideForm, Form()], user: AuthUser = require_staff()
) -> Response:
    stage_id = _stage_of_round(request, round_id)

    def action(uow: UnitOfWork) -> object:
        return rounds.override_pairing(
            uow,
            round_id=round_id,
            board=_number(form.board, N_("board: choose a board")),
            first_id=_number(form.first_team_id, N_("first_team_id: choose the first-named team")),
            second_id=_number(form.second_team_id, N_("second_team_id: choose the other team")),
            reason=form.reason,
            actor=user.username,
        )

    return _act(request, stage_id, action, "changed")


@router.post("/{stage_id}/withdraw")
def withdraw(
    request: Request, stage_id: int, form: Annotated[TeamForm, Form()], user: AuthUser = require_staff()
) -> Response:
    return _team_step(request, stage_id, entries.withdraw_team, form, user, "withdrawn")


@router.post("/{stage_id}/absent")
def absent(
    request: Request, stage_id: int, form: Annotated[AbsentForm, Form()], user: AuthUser = require_staff()
) -> Response:
    return _team_step(request, stage_id, entries.mark_absent, form, user, "absent")


@router.post("/{stage_id}/present")
def present(
    request: Request, stage_id: int, form: Annotated[PresentForm, Form()], user: AuthUser = require_staff()
) -> Response:
    return _team_step(request, stage_id, entries.mark_present, form, user, "present")


@router.post("/{stage_id}/late-entry")
def late_entry(
    request: Request, stage_id: int, form: Annotated[TeamForm, Form()], user: AuthUser = require_staff()
) -> Response:
    return _team_step(request, stage_id, entries.add_late_entry, form, user, "joined")


@router.post("/{stage_id}/adjustment")
def adjust(
    request: Request, stage_id: int, form: Annotated[AdjustmentForm, Form()], user: AuthUser = require_staff()
) -> Response:
    def action(uow: UnitOfWork) -> object:
        return adjustments.give_adjustment(
            uow,
            stage_id=stage_id,
            team_id=_number(form.team_id, N_("team_id: choose the team")),
            after_round=form.after_round,
            mp=form.match_points,
            gp_half=form.gp_half,
            standings_only=form.standings_only,
            reason=form.reason,
            actor=user.username,
        )

    return _act(request, stage_id, action, "adjusted")


@router.post("/{stage_id}/end-early")
def end_early(
    request: Request, stage_id: int, form: Annotated[ReasonForm, Form()], user: AuthUser = require_staff()
) -> Response:
    return _act(
        request,
        stage_id,
        lambda uow: entries.end_swiss_early(uow, stage_id=stage_id, reason=form.reason, actor=user.username),
        "ended",
    )
