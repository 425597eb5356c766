"""Play-off JSON API under /api/v1: the public bracket, captains' lineups and nominations, staff steps.

Same services and rules as the pages: a captain reaches only their own team (``user.team_id``), staff name
the team; sealed nominations never appear before both are in or the deadline has passed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse, Response
from pydantic import AwareDatetime, BaseModel, Field, model_validator

from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.playoff import armageddon, armageddon_game, commands, forms, read, rulings, storage
from orchestrator.services.teams import captains, lineups
from orchestrator.translation import gettext as _
from orchestrator.web.auth import allow_public, require_login, require_staff
from orchestrator.web.deps import fields_of, get_uow_factory, in_unit_of_work
from orchestrator.web.http.caching import conditional
from orchestrator.web.http.page_cache import page_built
from orchestrator.web.http.validation import form_problems, id_number

router = APIRouter(prefix="/api/v1", tags=["play-off"])


class LineupIn(BaseModel):
    team_id: int | None = Field(default=None, description="Staff only: the team; captains submit their own")
    boards: list[int | None] = Field(description="Player id per board, in board order; null leaves it empty")


class LineupPageIn(LineupIn):
    """The lineup as the captain's page posts it: ``team_id`` (staff) and one select per board,
    ``board_1`` .. ``board_N`` (a player's id, or empty), read into ``boards``."""

    @model_validator(mode="before")
    @classmethod
    def _one_field_per_board(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "boards" in data:
            return data
        boards: list[int | None] = []
        problems: list[str] = []
        number = 1
        while f"board_{number}" in data:
            posted = data[f"board_{number}"]
            value = str((posted[-1] if isinstance(posted, list) else posted) or "").strip()
            player = id_number(value)
            if value and player is None:
                problems.append(_("Board %(board)d: choose a player from the list.") % {"board": number})
            boards.append(player)
            number += 1
        if problems:
            raise form_problems(problems)
        return {**data, "boards": boards}


class NominationIn(BaseModel):
    team_id: int | None = None
    account: str = Field(description="Game-server account of a roster player eligible for the category")


class ColourIn(BaseModel):
    team_id: int | None = None
    colour: Literal["white", "black", "W", "B"]


class RulingIn(BaseModel):
    winner_team_ids: list[int]
    reason: str


class GameIn(BaseModel):
    game: str = Field(description="Lichess game id or URL")


class ResultIn(BaseModel):
    result: str = Field(description="From White's side: 1-0, ½-½ (or 1/2-1/2), 0-1, +/-, -/+, -/-")


class ForfeitIn(BaseModel):
    absent_team_id: int
    reason: str = ""


class WithdrawIn(BaseModel):
    reason: str


class DeadlineIn(BaseModel):
    deadline: AwareDatetime = Field(description="When the round's lineups close (with a time zone offset)")
    expected: AwareDatetime | None = Field(
        description="The deadline as last read (GET); refused with 409 if someone moved it since"
    )
    reason: str = ""


def _form_json(form: lineups.LineupForm) -> dict[str, Any]:
    return {
        "match_id": form.match_id,
        "team_id": form.team_id,
        "team": form.team,
        "opponent": form.opponent,
        "round": form.round_name,
        "deadline": form.deadline.isoformat() if form.deadline else None,
        "open": form.open,
        "submitted_at": form.submitted_at.isoformat() if form.submitted_at else None,
        # the board order every lineup keeps (docs/rules.md §10, "Board order")
        "board_order": {"fixed": form.order.fixed, "rating_tolerance": form.order.rating_tolerance},
        "boards": [
            {
                "board": b.board_no,
                "category": b.category,
                "colour": b.colour,
                "player_id": b.selected,
                "eligible": [{"id": o.id, "label": o.label} for o in b.options],
            }
            for b in form.boards
        ],
    }


def _nomination_json(form: forms.NominationForm) -> dict[str, Any]:
    arm = form.armageddon
    return {
        "duel_id": form.duel_id,
        "duel": form.duel_key,
        "team": form.team,
        "opponent": form.opponent,
        "open": form.open,
        "own_nomination": arm.own_nomination if arm else None,
        "armageddon": arm.as_json() if arm else None,
        "eligible": [{"account": a, "label": label} for a, label in form.options],
        "you_choose_colour": form.chooser_is_us,
    }


@router.get(
    "/events/{slug}/bracket",
    dependencies=[allow_public()],
    summary="The play-off bracket",
    response_model=dict[str, Any],
)
def bracket(request: Request, slug: str) -> Response:
    """Every duel by round: teams (or the slot that fills them), both match scores, match points, the
    outcome, and the Armageddon (lots with hash and seed, nominees once revealed, colours, result)."""
    with get_uow_factory(request)() as uow:
        stage = read.knockout_stage_of(uow, slug=slug)
        body = read.bracket_view(uow, stage_id=stage.id or 0).as_json()
        topics = read.duel_topics(uow, stage_id=stage.id or 0)
    page_built(request, topics)  # kept by the page cache until the event, stage or a duel changes
    return conditional(request, JSONResponse(jsonable_encoder(body)))


def _lineup(request: Request, match_id: int, team: int, user: AuthUser) -> dict[str, Any]:
    """The team's lineup form for the match as ``user`` sees it now (services/teams/lineups.py)."""
    return _form_json(
        in_unit_of_work(request, lineups.lineup_form, match_id=match_id, team_id=team, user=user)
    )


def _nomination(request: Request, duel_id: int, team: int, user: AuthUser) -> dict[str, Any]:
    """The team's Armageddon page for the duel as ``user`` sees it now (services/playoff/forms.py)."""
    form = in_unit_of_work(request, forms.nomination_form, duel_id=duel_id, team_id=team, user=user)
    return _nomination_json(form)


@router.get("/matches/{match_id}/lineup", summary="A team's lineup form for a match")
def get_lineup(
    request: Request, match_id: int, team_id: int | None = None, user: AuthUser = require_login()
) -> dict[str, Any]:
    return _lineup(request, match_id, captains.team_of_user(user, team_id), user)


@router.put("/matches/{match_id}/lineup", summary="Submit a team's lineup (until the deadline)")
def put_lineup(
    request: Request, match_id: int, body: LineupIn, user: AuthUser = require_login()
) -> dict[str, Any]:
    team = captains.team_of_user(user, body.team_id)
    in_unit_of_work(
        request, lineups.submit_lineup, match_id=match_id, team_id=team, boards=body.boards, user=user
    )
    return _lineup(request, match_id, team, user)


@router.get("/duels/{duel_id}/armageddon", summary="A team's Armageddon page: category, own nomination")
def get_armageddon(
    request: Request, duel_id: int, team_id: int | None = None, user: AuthUser = require_login()
) -> dict[str, Any]:
    return _nomination(request, duel_id, captains.team_of_user(user, team_id), user)


@router.put("/duels/{duel_id}/nomination", summary="Nominate (sealed) the team's Armageddon player")
def put_nomination(
    request: Request, duel_id: int, body: NominationIn, user: AuthUser = require_login()
) -> dict[str, Any]:
    team = captains.team_of_user(user, body.team_id)
    in_unit_of_work(
        request, armageddon.nominate, duel_id=duel_id, team_id=team, account=body.account, actor=user
    )
    return _nomination(request, duel_id, team, user)


@router.post("/duels/{duel_id}/colour", summary="The colour-lot winner takes White or Black")
def post_colour(
    request: Request, duel_id: int, body: ColourIn, user: AuthUser = require_login()
) -> dict[str, Any]:
    team = captains.team_of_user(user, body.team_id)
    in_unit_of_work(
        request, armageddon.choose_colour, duel_id=duel_id, team_id=team, colour=body.colour, actor=user
    )
    return _nomination(request, duel_id, team, user)


# --- staff -------------------------------------------------------------------------------------------


def _staff_step(
    request: Request, use_case: Callable[..., object], user: AuthUser, /, **arguments: Any
) -> dict[str, Any]:
    """A step of ``user`` on the play-off (services/playoff/), answered ``{"ok": true}`` once committed."""
    in_unit_of_work(request, use_case, actor=user.username, **arguments)
    return {"ok": True}


@router.get("/rounds/{round_id}/lineup-deadline", summary="A round's lineup deadline (UTC)")
def get_deadline(request: Request, round_id: int, user: AuthUser = require_staff()) -> dict[str, Any]:
    with get_uow_factory(request)() as uow:
        return lineups.round_deadline(uow, round_id=round_id).as_json()


@router.put("/rounds/{round_id}/lineup-deadline", summary="Move a round's lineup deadline (audited)")
def put_deadline(
    request: Request, round_id: int, body: DeadlineIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    moved = in_unit_of_work(
        request, lineups.set_lineup_deadline, round_id=round_id, actor=user.username, **fields_of(body)
    )
    return moved.as_json()


@router.post("/playoff/{stage_id}/build", summary="Build the bracket from the closed Top standings")
def post_build(request: Request, stage_id: int, user: AuthUser = require_staff()) -> dict[str, Any]:
    ids = in_unit_of_work(request, commands.build_bracket, stage_id=stage_id, actor=user.username)
    return {"duel_ids": ids}


@router.post("/duels/{duel_id}/lots/{which}/commit", summary="Publish the hash of a lot's secret seed")
def post_lot_commit(
    request: Request, duel_id: int, which: Literal["category", "colour"], user: AuthUser = require_staff()
) -> dict[str, Any]:
    lot_id = in_unit_of_work(
        request, armageddon.commit_armageddon_lot, duel_id=duel_id, which=which, actor=user.username
    )
    return {"lot_id": lot_id}


@router.post("/duels/{duel_id}/lots/{which}/reveal", summary="Draw the lot and publish its seed")
def post_lot_reveal(
    request: Request,
    duel_id: int,
    which: Literal["category", "colour"],
    minutes: int = storage.NOMINATION_MINUTES,
    user: AuthUser = require_staff(),
) -> dict[str, Any]:
    drawn = in_unit_of_work(
        request,
        armageddon.reveal_armageddon_lot,
        duel_id=duel_id,
        which=which,
        actor=user.username,
        nomination_minutes=max(1, minutes),
    )
    return {"drawn": drawn}


@router.post("/duels/{duel_id}/ruling", summary="Record an exceptional outcome with a reason")
def post_ruling(
    request: Request, duel_id: int, body: RulingIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    return _staff_step(request, rulings.record_ruling, user, duel_id=duel_id, **fields_of(body))


@router.put("/duels/{duel_id}/armageddon/game", summary="Track the Armageddon game (Lichess id or URL)")
def put_game(
    request: Request, duel_id: int, body: GameIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    game_id = in_unit_of_work(
        request, armageddon_game.set_armageddon_game, duel_id=duel_id, game_ref=body.game, actor=user.username
    )
    return {"game_id": game_id}


@router.put("/duels/{duel_id}/armageddon/result", summary="Enter the Armageddon result")
def put_result(
    request: Request, duel_id: int, body: ResultIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    return _staff_step(
        request, armageddon_game.record_armageddon_result, user, duel_id=duel_id, result=body.result
    )


@router.post("/playoff/matches/{match_id}/forfeit", summary="A team did not play a duel match")
def post_forfeit(
    request: Request, match_id: int, body: ForfeitIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    return _staff_step(request, rulings.forfeit_match, user, match_id=match_id, **fields_of(body))


@router.post("/playoff/teams/{team_id}/withdraw", summary="A team withdraws from the play-off")
def post_withdraw(
    request: Request, team_id: int, body: WithdrawIn, user: AuthUser = require_staff()
) -> dict[str, Any]:
    return _staff_step(request, rulings.withdraw_team, user, team_id=team_id, reason=body.reason)
