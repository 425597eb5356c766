"""JSON API for event setup under /api/v1/staff (owners and administrators change, staff read), and the
public lots of an event (commitment always; seed and outcome once drawn, docs/rules.md §7).

The same use cases as the staff pages (orchestrator/services/setup/: event_setup.py, pool_draft.py,
stage_start.py, draws.py; services/teams/rosters.py).
Errors follow the app's mapping: 422 with every problem, 409 for a step taken out of order, 404.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from fractions import Fraction
from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from orchestrator.adapters.tables import Role
from orchestrator.errors import NotFound
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.results import lot_steps
from orchestrator.services.setup import draws, event_setup, pool_draft, stage_start
from orchestrator.services.teams import rosters
from orchestrator.translation import gettext as _
from orchestrator.web.auth import allow_public, require_role, require_staff
from orchestrator.web.deps import fields_of, get_uow_factory, in_unit_of_work
from orchestrator.web.http.validation import TOO_LARGE

staff = APIRouter(prefix="/api/v1/staff", tags=["event setup"])
public = APIRouter(prefix="/api/v1", tags=["lots"])


class EventIn(BaseModel):
    definition_text: str = Field(description="The event definition (YAML), see docs/event-file.md")
    source: str = Field(default="event.yaml", max_length=200, description="File name shown in problems")


class CreatedOut(BaseModel):
    id: int


class RostersIn(BaseModel):
    csv_text: str = Field(description="CSV with header: " + ", ".join(rosters.COLUMNS))


class ImportOut(BaseModel):
    teams_created: list[str]
    teams_replaced: list[str]
    players: int
    lines: int


class LotOut(BaseModel):
    id: int
    purpose: str
    kind: str
    candidates: list[str]
    commitment: str
    seed_hex: str | None
    outcome: list[str] | None
    drawn_by: str
    committed_at: datetime  # when the commitment became public
    drawable_at: datetime | None = None  # from when it may be drawn: the event's lot publication delay later
    revealed_at: datetime | None
    void: bool  # set aside without a draw (seed published, no outcome): docs/lots.md
    procedure: str


class PoolTeamOut(BaseModel):
    team_id: int
    name: str
    federation: str
    seed: int
    strength: int
    pairing_number: int
    previous_winner: bool


class PoolOut(BaseModel):
    id: int
    letter: str
    status: str
    average: str = Field(description="exact average strength as a fraction n/d")
    average_display: str
    teams: list[PoolTeamOut]
    pairing_lot: LotOut | None = Field(
        default=None, description="the pairing-number lot, committed at publishing, drawn at the start"
    )


class StagePoolsOut(BaseModel):
    stage_id: int
    stage_key: str
    stage_name: str
    stage_status: str
    spread: str | None = Field(description="highest minus lowest pool average, exact fraction n/d")
    spread_display: str
    pools: list[PoolOut]


class SwapIn(BaseModel):
    team_a_id: int
    team_b_id: int


class RoundsOut(BaseModel):
    round_ids: list[int]


class LotIn(BaseModel):
    purpose: str = Field(
        max_length=120, description="What the lot decides, e.g. 'Armageddon category, duel XI'"
    )
    candidates: list[str]
    kind: str = Field(default="one", description="'one' (one candidate) or 'order' (a full order)")


def _fraction(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _pools_out(view: pool_draft.StagePools) -> StagePoolsOut:
    return StagePoolsOut(
        stage_id=view.stage_id,
        stage_key=view.stage_key,
        stage_name=view.stage_name,
        stage_status=view.stage_status,
        spread=_fraction(view.spread) if view.spread is not None else None,
        spread_display=view.spread_text,
        pools=[
            PoolOut(
                id=p.id,
                letter=p.letter,
                status=p.status,
                average=_fraction(p.average),
                average_display=p.average_text,
                teams=[_team(t) for t in p.teams],
                pairing_lot=_lot_out(p.pairing_lot) if p.pairing_lot is not None else None,
            )
            for p in view.pools
        ],
    )


def _team(team: pool_draft.PoolTeam) -> PoolTeamOut:
    return PoolTeamOut.model_validate(team, from_attributes=True)  # the same fields, by name


def _lot_out(view: draws.LotView) -> LotOut:
    data = view.public()
    return LotOut(
        id=view.id,
        purpose=view.purpose,
        kind=view.kind,
        candidates=list(view.candidates),
        commitment=view.commitment,
        seed_hex=view.seed_hex,
        outcome=list(view.outcome) if view.outcome is not None else None,
        drawn_by=view.drawn_by,
        committed_at=view.committed_at,
        drawable_at=view.drawable_at,
        revealed_at=view.revealed_at,
        void=view.void,
        procedure=str(data["procedure"]),
    )


@staff.post(
    "/events",
    status_code=201,
    response_model=CreatedOut,
    summary="Create an event from its definition",
    responses={413: {"description": TOO_LARGE}},  # web/http/validation.py, before the body is parsed
)
def create_event(
    request: Request, body: EventIn, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)
) -> CreatedOut:
    event_id = in_unit_of_work(request, event_setup.create_event, actor=user.username, **fields_of(body))
    return CreatedOut(id=event_id)


@staff.get(
    "/events/{event_id}", response_model=event_setup.EventInfo, summary="An event's stages and their state"
)
def get_event(request: Request, event_id: int, user: AuthUser = require_staff()) -> event_setup.EventInfo:
    return in_unit_of_work(request, event_setup.describe_event, event_id=event_id)


@staff.post("/events/{event_id}/rosters", response_model=ImportOut, summary="Import teams and rosters (CSV)")
def import_rosters(
    request: Request, event_id: int, body: RostersIn, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)
) -> ImportOut:
    report = in_unit_of_work(
        request, rosters.import_rosters, event_id=event_id, csv_text=body.csv_text, actor=user.username
    )
    return ImportOut(
        teams_created=list(report.teams_created),
        teams_replaced=list(report.teams_replaced),
        players=report.players,
        lines=report.lines,
    )


def _pool_step(
    request: Request, step: Callable[..., object], stage_id: int, user: AuthUser, **arguments: Any
) -> StagePoolsOut:
    """A step of ``user`` on the stage's pools (services/setup/pool_draft.py), then the pools as they are
    now, read in a unit of work of their own."""
    in_unit_of_work(request, step, stage_id=stage_id, actor=user.username, **arguments)
    return _pools_out(in_unit_of_work(request, pool_draft.describe_pools, stage_id=stage_id))


@staff.get("/stages/{stage_id}/pools", response_model=StagePoolsOut, summary="A stage's pools (draft too)")
def get_pools(request: Request, stage_id: int, user: AuthUser = require_staff()) -> StagePoolsOut:
    return _pools_out(in_unit_of_work(request, pool_draft.describe_pools, stage_id=stage_id))


@staff.post("/stages/{stage_id}/pools/draft", response_model=StagePoolsOut, summary="Draft a stage's pools")
def draft_pools(
    request: Request, stage_id: int, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)
) -> StagePoolsOut:
    return _pool_step(request, pool_draft.draft_pools, stage_id, user)


@staff.post(
    "/stages/{stage_id}/pools/swap", response_model=StagePoolsOut, summary="Swap two teams of draft pools"
)
def swap_teams(
    request: Request, stage_id: int, body: SwapIn, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)
) -> StagePoolsOut:
    return _pool_step(request, pool_draft.swap_teams, stage_id, user, **fields_of(body))


@staff.post(
    "/stages/{stage_id}/pools/publish", response_model=StagePoolsOut, summary="Publish a stage's pools"
)
def publish_pools(
    request: Request, stage_id: int, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)
) -> StagePoolsOut:
    return _pool_step(request, pool_draft.publish_pools, stage_id, user)


@staff.post(
    "/stages/{stage_id}/start", response_model=RoundsOut, summary="Start a stage (rounds, matches, boards)"
)
def start_stage(
    request: Request, stage_id: int, user: AuthUser = require_role(Role.OWNER, Role.ADMIN)
) -> RoundsOut:
    started = in_unit_of_work(request, stage_start.start_stage, stage_id=stage_id, actor=user.username)
    started.raise_refusal()  # after the commit: a refused start keeps the lots it committed
    return RoundsOut(round_ids=list(started.round_ids))


@staff.post(
    "/events/{event_id}/lots", status_code=201, response_model=LotOut, summary="Commit a lot (hash only)"
)
def commit_lot(request: Request, event_id: int, body: LotIn, user: AuthUser = require_staff()) -> LotOut:
    """409 for a purpose a procedure draws, or one already committed or drawn (docs/lots.md)."""
    lot_id = in_unit_of_work(
        request, lot_steps.commit_by_hand, event_id=event_id, actor=user.username, **fields_of(body)
    )
    return _lot_out(in_unit_of_work(request, draws.get_lot, lot_id=lot_id))


@staff.post(
    "/lots/{lot_id}/reveal", response_model=LotOut, summary="Draw a committed lot: publish seed and outcome"
)
def reveal_lot(request: Request, lot_id: int, user: AuthUser = require_staff()) -> LotOut:
    """409 for a pairing-number or tie-break lot: starting or closing its stage draws it (docs/lots.md)."""
    return _lot_out(in_unit_of_work(request, lot_steps.draw_by_hand, lot_id=lot_id, actor=user.username))


@public.get(
    "/events/{slug}/lots",
    response_model=list[LotOut],
    dependencies=[allow_public()],
    summary="An event's lots: commitment always, seed and outcome once drawn",
)
def event_lots(request: Request, slug: str) -> list[LotOut]:
    with get_uow_factory(request)() as uow:
        event = uow.events.get_by_slug(slug)
        if event is None:
            raise NotFound(_("event %(slug)r does not exist") % {"slug": slug})
        return [_lot_out(view) for view in draws.list_lots(uow, event_id=event.id or 0)]


@public.get("/lots/{lot_id}", response_model=LotOut, dependencies=[allow_public()], summary="One lot")
def get_lot(request: Request, lot_id: int) -> LotOut:
    return _lot_out(in_unit_of_work(request, draws.get_lot, lot_id=lot_id))
