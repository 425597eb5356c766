"""Setting an event up: create it from its definition, draft and adjust pools, publish them, start a stage.

Use cases (docs/rules.md §1, §3, §7, §9), each in the caller's unit of work:

- ``create_event``: validate the YAML definition (every problem, each with its line), store the event, its
  stages and the definition's field (teams and rosters).
- ``draft_pools``: entrants of a stage (the previous stages' qualifiers from their FINAL standings, then
  the seeded teams), split into pools of approximately equal strength with the previous pool winners apart.
- ``swap_teams``: staff adjust the draft (e.g. by time zone); averages and spread are recomputed.
- ``publish_pools``, then ``start_stage``: pairing numbers drawn by a recorded lot per pool, Berger rounds,
  matches and boards with the default lineup (the six main players).
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from fractions import Fraction
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from orchestrator.adapters.repo_setup import RosterRow
from orchestrator.adapters.tables import (
    Event,
    EventStatus,
    Match,
    Player,
    Pool,
    PoolEntry,
    PoolStatus,
    Round,
    Stage,
    StageKind,
    StageStatus,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import teams as domain_teams
from orchestrator.domain.event import EventDefinition, Qualifiers, StageDef, summary
from orchestrator.domain.event import stage_entrants as domain_stage_entrants
from orchestrator.domain.pools import (
    PoolEntrant,
    PoolSplit,
    PoolSplitError,
    entrant_of,
    evaluate_split,
    split_pools,
)
from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import GameResult, board_colours
from orchestrator.domain.tiebreaks import TieBreakError, parse_chain
from orchestrator.eventfile import EventDefinitionError, parse_event
from orchestrator.services import live
from orchestrator.services.definitions import definition_of
from orchestrator.services.errors import Conflict, NotFound, ValidationFailed
from orchestrator.services.setup import draws


def domain_team(team: Team, players: Sequence[Player | RosterRow]) -> domain_teams.Team:
    """A stored team as the pure domain sees it (its roster from the stored players)."""
    roster = tuple(
        domain_teams.RosterEntry(
            player=domain_teams.Player(
                name=p.name,
                account=p.account,
                sex=domain_teams.Sex(p.sex),
                birth_year=p.birth_year,
                rating=p.rating,
            ),
            main_board=p.main_board,
            category=domain_teams.Category(p.category),
        )
        for p in players
    )
    return domain_teams.Team(name=team.name, federation=team.federation, seed=team.seed, roster=roster)


@dataclass(frozen=True, slots=True)
class _Field:
    """The stored teams of an event, by id and by name, with their domain form."""

    rows: dict[int, Team]
    by_name: dict[str, int]
    domain: dict[int, domain_teams.Team]

    def name(self, team_id: int) -> str:
        return self.rows[team_id].name


def _field(uow: UnitOfWork, event_id: int) -> _Field:
    rows = {t.id: t for t in uow.setup.teams_of(event_id) if t.id is not None}
    players: dict[int, list[RosterRow]] = defaultdict(list)
    for player in uow.setup.roster_rows_of_event(event_id):
        players[player.team_id].append(player)
    return _Field(
        rows=rows,
        by_name={t.name: team_id for team_id, t in rows.items()},
        domain={team_id: domain_team(t, players[team_id]) for team_id, t in rows.items()},
    )


def _stage_def(definition: EventDefinition, stage: Stage) -> StageDef:
    try:
        return definition.stage(stage.key)
    except KeyError:  # pragma: no cover - stages are stored from the definition
        raise Conflict(f"stage {stage.key} is not in the event definition") from None


def _audit(
    uow: UnitOfWork,
    *,
    actor: str,
    action: str,
    entity: str,
    entity_id: int | None,
    event_id: int,
    **new: object,
) -> None:
    uow.audit.record(
        actor=actor, action=action, entity=entity, entity_id=entity_id, event_id=event_id, new=dict(new)
    )


# --- create_event ---------------------------------------------------------------------------------------


def create_event(uow: UnitOfWork, *, definition_text: str, source: str, actor: str) -> int:
    """Validate and store an event definition with its stages and field; refuse it listing every problem."""
    try:
        definition = parse_event(definition_text, source=source)
    except EventDefinitionError as error:
        raise ValidationFailed([str(problem) for problem in error.problems]) from None
    swiss = [stage.key for stage in definition.stages if stage.is_swiss]
    if swiss:  # validated and simulated (olympiad simulate), not yet run on the server (docs/swiss.md)
        raise ValidationFailed(
            [
                f"stage {key!r}: Swiss stages cannot be run by the server yet; use olympiad simulate"
                for key in swiss
            ]
        )
    if uow.events.get_by_slug(definition.slug) is not None:
        raise Conflict(
            f"an event with the slug {definition.slug!r} already exists; change 'slug' in the file"
        )
    now = utcnow()
    event = uow.repo.add(
        Event(
            slug=definition.slug,
            name=definition.name,
            definition_text=definition_text,
            status=EventStatus.DRAFT.value,
            created_at=now,
            updated_at=now,
        )
    )
    assert event.id is not None
    for position, stage in enumerate(definition.stages, start=1):
        tiebreaks: list[str] = []
        if stage.is_pools and stage.tiebreaks:
            try:
                tiebreaks = list(parse_chain(stage.tiebreaks))
            except TieBreakError:  # pragma: no cover - the parser checked the chain already
                tiebreaks = list(stage.tiebreaks)
        uow.repo.add(
            Stage(
                event_id=event.id,
                key=stage.key,
                name=stage.name,
                kind=StageKind.POOLS.value if stage.is_pools else StageKind.KNOCKOUT.value,
                position=position,
                status=StageStatus.DRAFT.value,
                tiebreaks=tiebreaks,
            )
        )
    players = 0
    for team in definition.teams:
        players += _store_team(uow, event.id, team)
    _audit(
        uow,
        actor=actor,
        action="event.create",
        entity="event",
        entity_id=event.id,
        event_id=event.id,
        slug=definition.slug,
        source=source,
        stages=[s.key for s in definition.stages],
        teams=len(definition.teams),
        players=players,
    )
    live.announce(uow, f"event:{definition.slug}", kind="event", event_id=event.id)
    return event.id


def _store_team(uow: UnitOfWork, event_id: int, team: domain_teams.Team) -> int:
    row = uow.repo.add(Team(event_id=event_id, name=team.name, federation=team.federation, seed=team.seed))
    assert row.id is not None
    for entry in team.roster:
        uow.session.add(
            Player(
                event_id=event_id,
                team_id=row.id,
                name=entry.player.name,
                account=entry.player.account.lower(),
                sex=entry.player.sex.value,
                birth_year=entry.player.birth_year,
                rating=entry.player.rating,
                main_board=entry.main_board,
                category=entry.category.value,
            )
        )
    uow.flush()
    return len(team.roster)


# --- entrants and pools ---------------------------------------------------------------------------------


def _final_pool_orders(uow: UnitOfWork, stage: Stage, field: _Field) -> list[list[str]]:
    """Final standings of a stage's pools (pool order A, B, ...), each as team names by rank."""
    pools = uow.setup.pools_of(stage.id or 0)
    rows = uow.setup.final_standings(stage.id or 0)
    by_pool: dict[int | None, list[str]] = defaultdict(list)
    for row in rows:
        by_pool[row.pool_id].append(field.name(row.team_id))
    missing = [pool.letter for pool in pools if not by_pool.get(pool.id)]
    if not pools or missing:
        which = f" (pools {', '.join(missing)})" if pools and missing else ""
        raise Conflict(
            f"{stage.name} has no final standings yet{which}: the next stage is seeded only from final "
            "standings, after the stage is closed and no appeal is open"
        )
    return [by_pool[pool.id] for pool in pools]


@dataclass(frozen=True, slots=True)
class _Entrants:
    names: list[str]
    apart: list[str]  # previous stages' pool winners that must not share a pool (docs/rules.md §3)


def _entrants(
    uow: UnitOfWork, event: Event, stage: Stage, definition: EventDefinition, field: _Field
) -> _Entrants:
    stage_def = _stage_def(definition, stage)
    finals: dict[str, list[list[str]]] = {}
    winners: list[str] = []
    for entrant in stage_def.entrants:
        if isinstance(entrant, Qualifiers):
            source = uow.setup.stage_by_key(event.id or 0, entrant.stage)
            if source is None:  # pragma: no cover - the validator checked the graph
                raise Conflict(f"{stage.name} takes qualifiers from an unknown stage {entrant.stage}")
            orders = _final_pool_orders(uow, source, field)
            finals[entrant.stage] = orders
            winners.extend(order[0] for order in orders if order)
    # The definition's field is replaced by the stored one (rosters may have been imported since).
    stored = replace(definition, teams=tuple(field.domain.values()))
    try:
        names = domain_stage_entrants(stored, stage.key, finals)
    except KeyError as error:
        raise ValidationFailed(
            [f"{stage.name}: {error.args[0] if error.args else error}: import the team first"]
        ) from None
    except ValueError as error:
        raise ValidationFailed([str(error)]) from None
    apart = [name for name in winners if name in names] if stage_def.winners_apart else []
    return _Entrants(names=names, apart=apart)


def stage_entrants(uow: UnitOfWork, *, stage_id: int) -> tuple[list[str], list[str]]:
    """The teams a pool stage would be drafted from now (earlier stages' final standings, then the seeds),
    and the pool winners to keep apart."""
    event, stage = uow.setup.event_of_stage(stage_id)
    entrants = _entrants(uow, event, stage, definition_of(event), _field(uow, event.id or 0))
    return entrants.names, entrants.apart


def _require_pool_stage(stage: Stage) -> None:
    if stage.kind != StageKind.POOLS.value:
        raise Conflict(f"{stage.name} is a knockout stage: it has no pools")


def draft_pools(uow: UnitOfWork, *, stage_id: int, actor: str) -> list[int]:
    """Split a stage's entrants into draft pools of approximately equal strength (docs/rules.md §3);
    returns pool ids.

    Drafting again replaces the previous draft; published pools are not touched.
    """
    event, stage = uow.setup.event_of_stage(stage_id)
    _require_pool_stage(stage)
    if stage.status != StageStatus.DRAFT.value:
        raise Conflict(f"{stage.name} is {stage.status}: its pools can no longer be drafted")
    definition = definition_of(event)
    stage_def = _stage_def(definition, stage)
    field = _field(uow, event.id or 0)
    entrants = _entrants(uow, event, stage, definition, field)
    pool_entrants = [entrant_of(field.domain[field.by_name[name]]) for name in entrants.names]
    try:
        split = split_pools(
            pool_entrants,
            pool_count=stage_def.pool_count,
            pool_size=stage_def.pool_size,
            apart=entrants.apart,
        )
    except PoolSplitError as error:
        raise ValidationFailed([f"{stage.name}: {error}"]) from None
    if uow.setup.pools_of(stage_id):  # a draft again: the previous draft goes
        uow.setup.delete_pools(stage_id)
        uow.flush()
    pool_ids: list[int] = []
    for pool in split.pools:
        row = uow.repo.add(Pool(stage_id=stage_id, letter=pool.letter, status=PoolStatus.DRAFT.value))
        assert row.id is not None
        pool_ids.append(row.id)
        # Provisional numbers (strongest first); the real ones are drawn by lot when the stage starts.
        for number, entrant in enumerate(pool.entrants, start=1):
            uow.session.add(
                PoolEntry(pool_id=row.id, team_id=field.by_name[entrant.team], pairing_number=number)
            )
    uow.flush()
    _audit(
        uow,
        actor=actor,
        action="pools.draft",
        entity="stage",
        entity_id=stage_id,
        event_id=event.id or 0,
        pools={pool.letter: list(pool.teams) for pool in split.pools},
        apart=entrants.apart,
        spread=str(split.spread),
    )
    live.announce(uow, f"stage:{stage_id}", kind="pools")
    return pool_ids


@dataclass(frozen=True, slots=True)
class PoolTeam:
    team_id: int
    name: str
    federation: str
    seed: int
    strength: int
    pairing_number: int
    previous_winner: bool


@dataclass(frozen=True, slots=True)
class PoolView:
    id: int
    letter: str
    status: str
    teams: tuple[PoolTeam, ...]
    average: Fraction

    @property
    def average_text(self) -> str:
        return _fraction_text(self.average)


@dataclass(frozen=True, slots=True)
class StagePools:
    """What the draft-pools page shows: each pool's teams and average strength, and the spread."""

    event_id: int
    event_slug: str
    stage_id: int
    stage_key: str
    stage_name: str
    stage_status: str
    kind: str
    pools: tuple[PoolView, ...]
    spread: Fraction | None

    @property
    def spread_text(self) -> str:
        return _fraction_text(self.spread) if self.spread is not None else ""


def _fraction_text(value: Fraction) -> str:
    """An exact average shown to two decimals (display only; no rank depends on it)."""
    return f"{float(value):.2f}"


def _winners_for(
    uow: UnitOfWork, event: Event, stage: Stage, definition: EventDefinition, field: _Field
) -> list[str]:
    try:
        return _entrants(uow, event, stage, definition, field).apart
    except (Conflict, ValidationFailed):
        return []


def describe_pools(uow: UnitOfWork, *, stage_id: int) -> StagePools:
    """A stage's pools with teams, strengths, averages and the spread (draft or published)."""
    event, stage = uow.setup.event_of_stage(stage_id)
    field = _field(uow, event.id or 0)
    definition = definition_of(event)
    pools = uow.setup.pools_of(stage_id)
    apart = (
        set(_winners_for(uow, event, stage, definition, field)) if pools and stage.kind == "pools" else set()
    )
    views: list[PoolView] = []
    for pool in pools:
        entries = uow.setup.entries_of_pool(pool.id or 0)
        teams = tuple(
            PoolTeam(
                team_id=entry.team_id,
                name=field.rows[entry.team_id].name,
                federation=field.rows[entry.team_id].federation,
                seed=field.rows[entry.team_id].seed,
                strength=field.domain[entry.team_id].strength,
                pairing_number=entry.pairing_number,
                previous_winner=field.rows[entry.team_id].name in apart,
            )
            for entry in entries
        )
        average = Fraction(sum(t.strength for t in teams), len(teams)) if teams else Fraction(0)
        views.append(
            PoolView(id=pool.id or 0, letter=pool.letter, status=pool.status, teams=teams, average=average)
        )
    spread = max(v.average for v in views) - min(v.average for v in views) if views else None
    return StagePools(
        event_id=event.id or 0,
        event_slug=event.slug,
        stage_id=stage_id,
        stage_key=stage.key,
        stage_name=stage.name,
        stage_status=stage.status,
        kind=stage.kind,
        pools=tuple(views),
        spread=spread,
    )


def swap_teams(uow: UnitOfWork, *, stage_id: int, team_a_id: int, team_b_id: int, actor: str) -> PoolSplit:
    """Swap two teams between two draft pools; returns the new averages and spread (evaluate_split).

    Refused (nothing changes) when a pool would hold two previous pool winners (docs/rules.md §3).
    """
    event, stage = uow.setup.event_of_stage(stage_id)
    _require_pool_stage(stage)
    if stage.status != StageStatus.DRAFT.value:
        raise Conflict(f"{stage.name} is {stage.status}: its pools can no longer be changed")
    entry_a = uow.setup.entry_of_team(stage_id, team_a_id)
    entry_b = uow.setup.entry_of_team(stage_id, team_b_id)
    missing = [str(t) for t, e in ((team_a_id, entry_a), (team_b_id, entry_b)) if e is None]
    if missing or entry_a is None or entry_b is None:
        raise NotFound(f"team {', '.join(missing)} is in no pool of {stage.name}")
    if entry_a.pool_id == entry_b.pool_id:
        raise ValidationFailed(["the two teams are in the same pool: choose teams of two different pools"])
    definition = definition_of(event)
    field = _field(uow, event.id or 0)
    apart = _winners_for(uow, event, stage, definition, field)
    pools = uow.setup.pools_of(stage_id)
    swapped = {team_a_id: team_b_id, team_b_id: team_a_id}
    proposal: list[list[PoolEntrant]] = []
    for pool in pools:
        entries = uow.setup.entries_of_pool(pool.id or 0)
        proposal.append([entrant_of(field.domain[swapped.get(e.team_id, e.team_id)]) for e in entries])
    try:
        split = evaluate_split(proposal, apart=apart)
    except PoolSplitError as error:
        raise ValidationFailed([str(error)]) from None
    letters = {pool.id: pool.letter for pool in pools}
    old = {field.name(team_a_id): letters[entry_a.pool_id], field.name(team_b_id): letters[entry_b.pool_id]}
    # Swapping the team ids keeps each pool's (pool, pairing number) pairs, so no unique key clashes.
    entry_a.team_id, entry_b.team_id = team_b_id, team_a_id
    uow.session.add(entry_a)
    uow.session.add(entry_b)
    uow.flush()
    _audit(
        uow,
        actor=actor,
        action="pools.swap",
        entity="stage",
        entity_id=stage_id,
        event_id=event.id or 0,
        before=old,
        spread=str(split.spread),
    )
    live.announce(uow, f"stage:{stage_id}", kind="pools")
    return split


def publish_pools(uow: UnitOfWork, *, stage_id: int, actor: str) -> None:
    """Make a stage's draft pools public; after this they can no longer be changed."""
    event, stage = uow.setup.event_of_stage(stage_id)
    _require_pool_stage(stage)
    if stage.status != StageStatus.DRAFT.value:
        raise Conflict(f"{stage.name} is already {stage.status}")
    pools = uow.setup.pools_of(stage_id)
    if not pools:
        raise Conflict(f"{stage.name} has no draft pools: draft them first")
    now = utcnow()
    for pool in pools:
        pool.status = PoolStatus.PUBLISHED.value
        pool.published_at = now
        uow.session.add(pool)
    stage.status = StageStatus.PUBLISHED.value
    uow.session.add(stage)
    if event.status == EventStatus.DRAFT.value:
        event.status = EventStatus.PUBLISHED.value
    event.updated_at = now
    uow.session.add(event)
    uow.flush()
    _audit(
        uow,
        actor=actor,
        action="pools.publish",
        entity="stage",
        entity_id=stage_id,
        event_id=event.id or 0,
        pools=[pool.letter for pool in pools],
    )
    live.announce(uow, f"stage:{stage_id}", kind="pools")
    live.announce(uow, f"event:{event.slug}", kind="stage", stage_id=stage_id)


# --- start_stage ----------------------------------------------------------------------------------------


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationFailed([f"timezone: unknown timezone {name!r}"]) from None


def _utc(moment: datetime | None, zone: ZoneInfo) -> datetime | None:
    if moment is None:
        return None
    local = moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)
    return local.astimezone(UTC)


def pairing_lot_purpose(stage_name: str, letter: str) -> str:
    """The purpose text of the lot that draws a pool's pairing numbers (also used by the simulation)."""
    return f"{stage_name} pool {letter} pairing numbers"


def _pool_seed(pairing_seed: bytes, event_slug: str, stage_key: str, letter: str) -> bytes:
    # One seed per event and pool, so that every lot has its own commitment (commitments are unique).
    return hashlib.sha256(pairing_seed + f"|{event_slug}|{stage_key}|{letter}".encode()).digest()


def new_board_row(
    match_id: int, board_no: int, white: int | None, black: int | None, actor: str, now: datetime
) -> dict[str, object]:
    """A board's column values as ``Board()`` would make them: no result, no game, version 1."""
    return {
        "match_id": match_id,
        "board_no": board_no,
        "white_player_id": white,
        "black_player_id": black,
        "result": GameResult.PENDING.value,
        "result_source": None,
        "game_status": None,
        "version": 1,
        "game_id": None,
        "game_url": None,
        "pgn": None,
        "updated_at": now,
        "updated_by": actor,
    }


def start_stage(
    uow: UnitOfWork, *, stage_id: int, actor: str, pairing_seed: bytes | None = None
) -> list[int]:
    """Start a published pool stage: pairing numbers, rounds, matches and boards; returns the round ids.

    Each pool's pairing numbers are drawn by a recorded lot (docs/rules.md §7); pairings follow the Berger
    tables (FIDE C.05 Annex 1); the first-named team has White on the odd boards (docs/rules.md §1); every
    board starts with the default lineup (the teams' main players) and no result. ``pairing_seed`` is for
    tests and replays only: without it every pool's lot takes a fresh secret seed.
    """
    event, stage, pools = _startable(uow, stage_id)
    definition = definition_of(event)
    rounds = _create_rounds(uow, stage_id, definition, _stage_def(definition, stage))
    # Only the pools' teams: their names and main players (plain rows, not the whole field as objects).
    entries_of = {pool.id or 0: list(uow.setup.entries_of_pool(pool.id or 0)) for pool in pools}
    team_ids = [entry.team_id for entries in entries_of.values() for entry in entries]
    team_name = {team_id: team.name for team_id, team in uow.setup.teams_by_id(team_ids).items()}
    lineup = _DefaultLineup(
        main_by_team=uow.setup.main_boards_by_team(team_ids),
        first_colours=board_colours(definition.team_format.boards, first_named=True),
        actor=actor,
        now=utcnow(),
    )
    lot_ids: list[int] = []
    offset = 0
    for pool in pools:
        entries = entries_of[pool.id or 0]
        seed = (
            _pool_seed(pairing_seed, event.slug, stage.key, pool.letter) if pairing_seed is not None else None
        )
        lot_id, team_of_number = _draw_pairing_numbers(
            uow, event, stage, pool, entries, team_name, actor=actor, seed=seed
        )
        lot_ids.append(lot_id)
        offset += _create_pool_games(uow, pool, rounds, team_of_number, lineup, offset)
    _mark_started(uow, event, stage, pools, rounds=len(rounds), lot_ids=lot_ids, actor=actor)
    return [r.id or 0 for r in rounds.values()]


@dataclass(frozen=True, slots=True)
class _DefaultLineup:
    """What every new board starts with: the teams' main players, colours by board, who and when."""

    main_by_team: Mapping[int, Mapping[int, int]]
    first_colours: Sequence[str]
    actor: str
    now: datetime


def _startable(uow: UnitOfWork, stage_id: int) -> tuple[Event, Stage, list[Pool]]:
    """The event, the stage and its pools, when the stage may start (Conflict saying why not otherwise)."""
    event, stage = uow.setup.event_of_stage(stage_id)
    _require_pool_stage(stage)
    if stage.status != StageStatus.PUBLISHED.value:
        raise Conflict(f"{stage.name} is {stage.status}: only a stage with published pools can start")
    pools = list(uow.setup.pools_of(stage_id))
    if not pools or any(pool.status != PoolStatus.PUBLISHED.value for pool in pools):
        raise Conflict(f"{stage.name}: every pool must be published before the stage starts")
    if uow.setup.rounds_of(stage_id):
        raise Conflict(f"{stage.name} already has rounds")
    return event, stage, pools


def _create_rounds(
    uow: UnitOfWork, stage_id: int, definition: EventDefinition, stage_def: StageDef
) -> dict[int, Round]:
    """The stage's rounds at their scheduled times (the event's zone), with their lineup deadlines."""
    zone = _zone(definition.timezone)
    rounds: dict[int, Round] = {}
    for number in range(1, stage_def.rounds + 1):
        scheduled = stage_def.schedule[number - 1] if number <= len(stage_def.schedule) else None
        start = _utc(scheduled, zone)
        rounds[number] = Round(
            stage_id=stage_id,
            number=number,
            name=f"Round {number}",
            scheduled_at=start,
            lineup_deadline_at=definition.lineup_deadline(start),
        )
    uow.session.add_all(rounds.values())
    uow.flush()
    return rounds


def _draw_pairing_numbers(
    uow: UnitOfWork,
    event: Event,
    stage: Stage,
    pool: Pool,
    entries: list[PoolEntry],
    team_name: Mapping[int, str],
    *,
    actor: str,
    seed: bytes | None,
) -> tuple[int, dict[int, int]]:
    """Draw the pool's pairing numbers by a recorded lot; returns the lot's id and the team of each number."""
    lot = draws.draw_recorded_lot(
        uow,
        event_id=event.id or 0,
        purpose=pairing_lot_purpose(stage.name, pool.letter),
        candidates=[team_name[e.team_id] for e in entries],
        actor=actor,
        kind="order",
        seed=seed,
    )
    assert lot.outcome is not None
    number_of = {name: index for index, name in enumerate(lot.outcome, start=1)}
    # Two steps, so that (pool, pairing number) stays unique while numbers move.
    for entry in entries:
        entry.pairing_number = -entry.pairing_number
        uow.session.add(entry)
    uow.flush()
    team_of_number: dict[int, int] = {}
    for entry in entries:
        entry.pairing_number = number_of[team_name[entry.team_id]]
        team_of_number[entry.pairing_number] = entry.team_id
        uow.session.add(entry)
    uow.flush()
    return lot.id, team_of_number


def _create_pool_games(
    uow: UnitOfWork,
    pool: Pool,
    rounds: Mapping[int, Round],
    team_of_number: Mapping[int, int],
    lineup: _DefaultLineup,
    offset: int,
) -> int:
    """The pool's Berger matches and their boards; returns how many tables a round of the pool uses."""
    table = berger_table(len(team_of_number))
    # The pool's matches in one flush (their ids come back in one statement), then their boards.
    pool_matches = [
        Match(
            round_id=rounds[rr_round.number].id or 0,
            pool_id=pool.id,
            match_no=offset + pairing.table,
            first_team_id=team_of_number[pairing.first],
            second_team_id=team_of_number[pairing.second],
        )
        for rr_round in table
        for pairing in rr_round.pairings
    ]
    uow.session.add_all(pool_matches)
    uow.flush()
    board_rows: list[dict[str, object]] = []
    for match in pool_matches:
        first, second = match.first_team_id, match.second_team_id
        for board_no, colour in enumerate(lineup.first_colours, start=1):
            first_player = lineup.main_by_team.get(first, {}).get(board_no)
            second_player = lineup.main_by_team.get(second, {}).get(board_no)
            white, black = (first_player, second_player) if colour == "W" else (second_player, first_player)
            board_rows.append(new_board_row(match.id or 0, board_no, white, black, lineup.actor, lineup.now))
    uow.setup.insert_boards(board_rows)
    return max(len(r.pairings) for r in table)


def _mark_started(
    uow: UnitOfWork,
    event: Event,
    stage: Stage,
    pools: list[Pool],
    *,
    rounds: int,
    lot_ids: list[int],
    actor: str,
) -> None:
    """The stage (and the event, if it was not yet) is running: audited and announced."""
    stage.status = StageStatus.RUNNING.value
    uow.session.add(stage)
    if event.status in (EventStatus.DRAFT.value, EventStatus.PUBLISHED.value):
        event.status = EventStatus.RUNNING.value
    event.updated_at = utcnow()
    uow.session.add(event)
    uow.flush()
    _audit(
        uow,
        actor=actor,
        action="stage.start",
        entity="stage",
        entity_id=stage.id,
        event_id=event.id or 0,
        rounds=rounds,
        pools=[pool.letter for pool in pools],
        lots=lot_ids,
    )
    live.announce(uow, f"stage:{stage.id}", kind="stage", status=stage.status)
    live.announce(uow, f"event:{event.slug}", kind="stage", stage_id=stage.id)
    for pool in pools:
        live.announce(uow, f"pool:{pool.id}", kind="rounds")


# --- small read models for pages and the API ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StageInfo:
    id: int
    key: str
    name: str
    kind: str
    position: int
    status: str
    pools: int
    rounds: int


@dataclass(frozen=True, slots=True)
class EventInfo:
    id: int
    slug: str
    name: str
    status: str
    teams: int
    players: int
    stages: tuple[StageInfo, ...]
    summary: str


def describe_event(uow: UnitOfWork, *, event_id: int) -> EventInfo:
    """An event's stages and their state, for the staff overview."""
    event = uow.repo.get_or_raise(Event, event_id)
    stages = tuple(
        StageInfo(
            id=s.id or 0,
            key=s.key,
            name=s.name,
            kind=s.kind,
            position=s.position,
            status=s.status,
            pools=len(uow.setup.pools_of(s.id or 0)),
            rounds=len(uow.setup.rounds_of(s.id or 0)),
        )
        for s in uow.setup.stages_of(event_id)
    )
    teams = uow.setup.teams_of(event_id)
    return EventInfo(
        id=event_id,
        slug=event.slug,
        name=event.name,
        status=event.status,
        teams=len(teams),
        players=len(uow.setup.players_of_event(event_id)),
        stages=stages,
        summary=str(summary(definition_of(event))),
    )


def stage_ids_by_key(uow: UnitOfWork, *, event_id: int) -> Mapping[str, int]:
    """Stage ids of an event by stage key (CLI and tests address stages by key)."""
    return {s.key: s.id or 0 for s in uow.setup.stages_of(event_id)}
