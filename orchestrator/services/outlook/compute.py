"""Compute and store each team's outlook in a stage (docs/needs.md): the chances of the places that matter
by Monte Carlo and, in a round-robin pool's last three rounds, the exact needs. Run by the ``chances.scan``
job (orchestrator/jobs/chances.py) once a round is complete, never on a page request.

Places that matter: in a pool stage the first place and the places that qualify (the event file's
``advance``); in a Swiss stage the first place, the medals (top 3) and the places a later stage takes from
it (its ``Qualifiers`` entrants).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from orchestrator.adapters.repo_outlook import RoundProgress
from orchestrator.adapters.tables import Outlook, RoundStatus, Stage, StageKind, StageStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.chances import Chances, ChancesError, pool_chances, swiss_chances
from orchestrator.domain.event import EventDefinition, Qualifiers, StageDef, qualifier_count
from orchestrator.domain.needs import Fixture, Line, NeedsError, PoolNeeds, current_points, pool_needs
from orchestrator.domain.swiss.systems import SystemPairer
from orchestrator.errors import Conflict
from orchestrator.services import live
from orchestrator.services.definitions import definition_of
from orchestrator.services.results.standings import PoolRecords, pool_records
from orchestrator.services.setup.event_setup import event_field, stage_definition
from orchestrator.services.swiss.state import PUBLISHED_ROUNDS, StoredSwiss, swiss_state_of
from orchestrator.translation import gettext as _

POOL_SIMULATIONS = 2_000  # per pool and round: a pool of ten's last rounds in well under a second
SWISS_SIMULATIONS = 100  # per Swiss stage and round, at most: each simulation pairs every round left
SWISS_PAIRINGS = 300  # rounds paired per computation at most: fewer simulations while many rounds are left
SWISS_MIN_SIMULATIONS = 20
# A Swiss stage's chances are computed once at most this many rounds are left (docs/needs.md): earlier,
# with most of the field still in reach of every place, they say little and cost the most.
SWISS_CHANCES_ROUNDS = 3
MEDALS = 3


SEED_LIMIT = 2**31 - 1  # the stored seed is a PostgreSQL INTEGER


def seed_of(stage_id: int, after_round: int, pool_id: int = 0) -> int:
    """The seed of a computation: the same stage (and pool) after the same round always gives the same
    chances. Kept below ``SEED_LIMIT`` so that it fits the outlook's seed column whatever the ids."""
    return (stage_id * 1000 + after_round + pool_id * 7919) % SEED_LIMIT


def refuse_unless_running(stage: Stage) -> None:
    """Conflict, saying why, for a knockout, a finished stage or one not started: nothing to simulate."""
    if stage.kind == StageKind.KNOCKOUT.value:
        raise Conflict(
            _("Stage %(stage)s is a knockout: its duels have no places to give chances of.")
            % {"stage": stage.name}
        )
    if stage.status == StageStatus.CLOSED.value:
        raise Conflict(
            _("Stage %(stage)s is finished: there is nothing left to simulate.") % {"stage": stage.name}
        )
    if stage.status != StageStatus.RUNNING.value:
        raise Conflict(_("Stage %(stage)s has not started yet.") % {"stage": stage.name})


def check_stage(uow: UnitOfWork, *, stage_id: int) -> tuple[Stage, StageDef, EventDefinition]:
    """The stage, if chances can be computed for it now; Conflict saying why not otherwise."""
    event, stage = uow.events.event_and_stage(stage_id)
    refuse_unless_running(stage)
    definition = definition_of(event)
    return stage, stage_definition(definition, stage), definition


def swiss_simulations(rounds_left: int) -> int:
    """Simulations of a Swiss stage: ``SWISS_SIMULATIONS``, fewer while so many rounds are left that they
    would pair more than ``SWISS_PAIRINGS`` rounds (never fewer than ``SWISS_MIN_SIMULATIONS``)."""
    return max(SWISS_MIN_SIMULATIONS, min(SWISS_SIMULATIONS, SWISS_PAIRINGS // max(rounds_left, 1)))


def swiss_chances_from(rounds: int) -> int:
    """The round after which a Swiss stage of ``rounds`` rounds first gets chances: when at most
    ``SWISS_CHANCES_ROUNDS`` rounds are left (0: from the start)."""
    return max(rounds - SWISS_CHANCES_ROUNDS, 0)


def swiss_places(definition: EventDefinition, stage_def: StageDef, teams: int) -> tuple[int, ...]:
    """First place, the medals and the places later stages take from this one."""
    places = {1, MEDALS}
    for later in definition.stages:
        for entrant in later.entrants:
            if isinstance(entrant, Qualifiers) and entrant.stage == stage_def.key:
                places.add(qualifier_count(stage_def, entrant))
    return tuple(sorted(k for k in places if 1 <= k < teams))


@dataclass(frozen=True, slots=True)
class StageCheck:
    """What a stage's round counts say, read without loading a board (``stage_checks``): the round its
    outlook would be computed after now (None: not now, a Swiss round under way or too many rounds left),
    and the round its stored outlook was computed after, and when (None: nothing stored)."""

    stage_id: int
    after: int | None
    stored: int | None
    computed_at: datetime | None
    last: int = 0  # the stage's last round number

    @property
    def due(self) -> bool:
        """A round settled (or was reopened) since the stored outlook: compute it again."""
        return self.after is not None and self.after != self.stored

    def resting(self, now: datetime, min_interval: timedelta) -> bool:
        """Due, but computed less than ``min_interval`` before ``now``, and not yet after the stage's last
        round: the scan leaves it for a later tick (``due_stage_ids``)."""
        if self.computed_at is None or self.after == self.last:
            return False
        return now - self.computed_at < min_interval


def _pool_stage_after(progress: Sequence[RoundProgress]) -> int:
    """A pool stage's last complete round: in each pool, the rounds complete from round 1 on (a round is
    complete once none of its matches lacks a result), the fewest of any pool (0 before any)."""
    done: dict[int, int] = {}
    for pool_id in {row.pool_id for row in progress if row.pool_id is not None}:
        rows = [row for row in progress if row.pool_id == pool_id]
        open_rounds = [row.number for row in rows if row.open_matches]
        done[pool_id] = min(open_rounds) - 1 if open_rounds else max(row.number for row in rows)
    return min(done.values(), default=0)


def _round_numbers(progress: Sequence[RoundProgress]) -> set[int]:
    """The numbers of a stage's rounds, less the cancelled ones."""
    return {row.number for row in progress if row.status != RoundStatus.CANCELLED.value}


def _swiss_stage_after(progress: Sequence[RoundProgress]) -> int | None:
    """A Swiss stage's last complete round once it is within ``SWISS_CHANCES_ROUNDS`` of its end; None
    while a published round still lacks a result or more rounds are left. The stage's rounds are its round
    rows less the cancelled ones (``SwissStage.round_count``: rows are made for every round at the start)."""
    numbers = _round_numbers(progress)
    published = [row for row in progress if row.status in PUBLISHED_ROUNDS and row.matches]
    if any(row.open_matches for row in published):
        return None  # a round under way: wait until it is complete
    after = max((row.number for row in published), default=0)
    if after < swiss_chances_from(len(numbers)):
        return None  # too many rounds left: the page says from which round on chances appear
    return after


def stage_checks(uow: UnitOfWork, stages: Sequence[Stage]) -> list[StageCheck]:
    """Each pool or Swiss stage's ``StageCheck``, from two queries over all of them (no board read)."""
    ids = [stage.id or 0 for stage in stages]
    progress: dict[int, list[RoundProgress]] = {stage_id: [] for stage_id in ids}
    for row in uow.chances.progress_of_stages(ids):
        progress[row.stage_id].append(row)
    stored = uow.chances.stored_of_stages(ids)
    checks = []
    for stage in stages:
        stage_id = stage.id or 0
        if stage.kind == StageKind.SWISS.value:
            after = _swiss_stage_after(progress[stage_id])
        else:
            after = _pool_stage_after(progress[stage_id])
        kept = stored.get(stage_id)
        checks.append(
            StageCheck(
                stage_id,
                after,
                kept.after_round if kept else None,
                kept.computed_at if kept else None,
                max(_round_numbers(progress[stage_id]), default=0),
            )
        )
    return checks


def compute_stage_outlook(
    uow: UnitOfWork, *, stage_id: int, simulations: int | None = None, force: bool = False
) -> int | None:
    """Compute and store the stage's outlook after its last complete round; returns that round, or None
    when nothing was computed: the stored outlook is already after it (``force`` computes again anyway),
    a Swiss round is still being played, or a Swiss stage has more than ``SWISS_CHANCES_ROUNDS`` left.
    The round counts decide first (``stage_checks``); the stage's results are read only to compute."""
    stage, stage_def, definition = check_stage(uow, stage_id=stage_id)
    check = stage_checks(uow, [stage])[0]
    after = check.after
    if after is None or (not force and not check.due):
        return None
    if stage.kind == StageKind.SWISS.value:
        swiss = swiss_state_of(uow, stage_id)
        if swiss.missing:
            return None  # a result reopened meanwhile: the next scan sees it in the round counts
    else:
        pools = [_pool_input(uow, pool.id or 0) for pool in uow.rounds.pools_of_stage(stage_id)]
    field = event_field(uow, stage.event_id)
    lineups = {  # a rating of 0 is no rating (docs/needs.md)
        field.name(team_id): [player.rating if player.rating > 0 else None for player in team.main_players]
        for team_id, team in field.domain.items()
    }
    if stage.kind == StageKind.SWISS.value:
        count = simulations or swiss_simulations(swiss.state.rounds - after)
        rows = _swiss_rows(stage, stage_def, definition, swiss, lineups, count, after)
    else:
        count = simulations or POOL_SIMULATIONS
        rows = [row for pool in pools for row in _pool_rows(stage, stage_def, pool, lineups, count, after)]
    uow.chances.replace_stage(stage_id, rows)
    for pool_id in sorted({row.pool_id for row in rows if row.pool_id is not None}):
        live.announce(uow, f"pool:{pool_id}", kind="chances")
    live.announce(uow, f"stage:{stage_id}", kind="chances")
    return after


def _swiss_rows(
    stage: Stage,
    stage_def: StageDef,
    definition: EventDefinition,
    stored: StoredSwiss,
    lineups: Mapping[str, Sequence[int | None]],
    count: int,
    after: int,
) -> list[Outlook]:
    state = stored.state
    places = swiss_places(definition, stage_def, len(state.teams))
    seed = seed_of(stage.id or 0, after)
    chances: Chances | None = None
    if after < state.rounds and places:
        try:
            chances = swiss_chances(
                state,
                lineups,
                pairer=SystemPairer(),
                places=places,
                chain=stage_def.tiebreaks,
                simulations=count,
                seed=seed,
            )
        except ChancesError:
            chances = None  # no ratings: the page says so (docs/needs.md)
    return [
        Outlook(
            stage_id=stage.id or 0,
            pool_id=stored.rows.pool.id,
            team_id=team_id,
            places=k,
            chance=_chance(chances, name, index),
            simulations=count if chances else 0,
            seed=seed,
            after_round=after,
        )
        for name, team_id in stored.team_ids.items()
        for index, k in enumerate(places)
    ]


@dataclass(frozen=True, slots=True)
class _PoolInput:
    pool_id: int
    data: PoolRecords
    fixtures: tuple[tuple[int, str, str], ...]  # (round, first-named team, second team) still to finish
    done: int  # the rounds complete from round 1 on


def _pool_input(uow: UnitOfWork, pool_id: int) -> _PoolInput:
    data = pool_records(uow, pool_id=pool_id)
    in_rounds = data.matches
    names = {team_id: name for name, team_id in data.team_ids.items()}
    left = set(data.incomplete_matches)
    fixtures = tuple(
        sorted(
            {
                (item.round_number, names[item.match.first_team_id], names[item.match.second_team_id])
                for item in in_rounds
                if (item.match.id or 0) in left
            }
        )
    )
    last = max((item.round_number for item in in_rounds), default=0)
    done = min((f[0] for f in fixtures), default=last + 1) - 1
    return _PoolInput(pool_id, data, fixtures, done)


def _pool_rows(
    stage: Stage,
    stage_def: StageDef,
    pool: _PoolInput,
    lineups: Mapping[str, Sequence[int | None]],
    count: int,
    after: int,
) -> list[Outlook]:
    data, fixtures = pool.data, pool.fixtures
    teams = list(data.teams)
    places = tuple(sorted(k for k in {1, stage_def.advance} if 1 <= k < len(teams)))
    seed = seed_of(stage.id or 0, after, pool.pool_id)
    chances: Chances | None = None
    needs: PoolNeeds | None = None
    if fixtures and places:
        try:
            chances = pool_chances(
                teams,
                data.records,
                fixtures,
                lineups,
                places=places,
                chain=data.chain,
                boards=data.boards,
                scoring=data.rules.scoring,
                simulations=count,
                seed=seed,
            )
        except ChancesError:
            chances = None
        try:
            needs = pool_needs(
                current_points(teams, data.records, data.rules.scoring),
                [Fixture(a, b) for _, a, b in fixtures],
                places=places,
                scoring=data.rules.scoring,
            )
        except NeedsError:
            needs = None  # more than three rounds left: chances only
    rows: list[Outlook] = []
    for name in teams:
        for index, k in enumerate(places):
            outlook = needs.outlook(name, k) if needs else None
            rows.append(
                Outlook(
                    stage_id=stage.id or 0,
                    pool_id=pool.pool_id,
                    team_id=data.team_ids[name],
                    places=k,
                    chance=_chance(chances, name, index),
                    status=outlook.status.value if outlook else None,
                    lines=[_line_json(line) for line in outlook.lines] if outlook else [],
                    simulations=count if chances else 0,
                    seed=seed,
                    after_round=after,
                )
            )
    return rows


def _chance(chances: Chances | None, team: str, index: int) -> int | None:
    """A chance in ten-thousandths (display only; nothing ranks on it)."""
    if chances is None:
        return None
    return round(chances.of(team).chances[index] * 10_000)


def _line_json(line: Line) -> dict[str, object]:
    """A needs line as stored (JSON): conditions as lists of {team, at_most}."""
    data = asdict(line)
    data["verdict"] = line.verdict.value
    return data


def due_stage_ids(
    uow: UnitOfWork, *, now: datetime | None = None, min_interval: timedelta = timedelta(0)
) -> list[int]:
    """Running pool and Swiss stages whose outlook is behind their round counts (``StageCheck.due``), the
    one never computed or computed longest ago first: the scan computes the first it can. A stage computed
    less than ``min_interval`` before ``now`` waits (``StageCheck.resting``) unless its last round is
    complete: rounds that end seconds apart (a pool stage whose rounds are all due at once) are simulated
    once, not once each, and the final outlook is never left out (docs/needs.md, "When chances are
    computed")."""
    stages = [
        stage
        for stage in uow.events.running_stages()
        if stage.kind in (StageKind.POOLS.value, StageKind.SWISS.value)
    ]
    at = now or utcnow()
    due = [check for check in stage_checks(uow, stages) if check.due and not check.resting(at, min_interval)]
    due.sort(key=lambda c: (c.computed_at is not None, c.computed_at or datetime.min, c.stage_id))
    return [check.stage_id for check in due]
