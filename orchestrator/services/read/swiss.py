"""The public view of a Swiss stage (docs/swiss.md, "The server"): its one pool (standings with the stage's
tie-break chain, matches by round, as ``standings.pool_view`` reads any pool) and, for each round, its
state, its bye and its absent teams.

A draft pairing is not public: a round in review reads as ``unpaired`` until it is published.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.tables import RoundStatus, StageKind, SwissRoundRole
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.services.errors import NotFound
from orchestrator.services.read.documents import JsonDocument
from orchestrator.services.read.standings import PoolView, pool_view


@dataclass(frozen=True, slots=True)
class SwissTeamRef:
    id: int
    name: str


@dataclass(frozen=True, slots=True)
class SwissRoundLine:
    number: int
    status: str  # unpaired (a draft too), scheduled, paired, playing, finished, cancelled
    scheduled_at: datetime | None
    bye: SwissTeamRef | None
    absent: tuple[SwissTeamRef, ...]


@dataclass(frozen=True, slots=True)
class SwissView(JsonDocument):
    pool: PoolView
    rounds: tuple[SwissRoundLine, ...]
    topics: tuple[str, ...]


def swiss_view(uow: UnitOfWork, *, slug: str, stage_key: str) -> SwissView:
    """A Swiss stage for spectators (module docstring); NotFound for another kind of stage."""
    event = uow.public.event_by_slug(slug)
    stage = None if event is None else uow.public.stage_by_key(event.id or 0, stage_key)
    if stage is None or stage.kind != StageKind.SWISS.value:
        raise NotFound(f"There is no Swiss stage {stage_key!r} in this event.")
    pool = pool_view(uow, slug=slug, stage_key=stage_key, letter="")
    rounds = uow.public.rounds_of_stage(stage.id or 0)
    extra = uow.swiss.round_teams_of_stage(stage.id or 0)
    names = {t.id or 0: t.name for t in uow.public.teams_by_id(row.team_id for row, _n in extra).values()}
    lines: list[SwissRoundLine] = []
    for rnd in rounds:
        here = [row for row, number in extra if number == rnd.number]
        bye = next((row.team_id for row in here if row.role == SwissRoundRole.BYE.value), None)
        status = RoundStatus.UNPAIRED.value if rnd.status == RoundStatus.DRAFT.value else rnd.status
        lines.append(
            SwissRoundLine(
                number=rnd.number,
                status=status,
                scheduled_at=rnd.scheduled_at,
                bye=None if bye is None else SwissTeamRef(bye, names[bye]),
                absent=tuple(
                    SwissTeamRef(row.team_id, names[row.team_id])
                    for row in here
                    if row.role == SwissRoundRole.ABSENT.value
                ),
            )
        )
    return SwissView(pool=pool, rounds=tuple(lines), topics=pool.topics)
