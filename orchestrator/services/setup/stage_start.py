"""Starting a stage (docs/rules.md §1, §7).

A published pool stage: pairing numbers drawn by a recorded lot per pool, Berger rounds, matches and boards
with the default lineup (the six main players). A Swiss stage (docs/swiss.md): one pool holding every
entrant, numbered by the initial ranking (Olympiad Pairing Rules 3.1), the initial colour drawn by a
recorded lot (C.04.6 art. 4.3.1, docs/lots.md), its rounds unpaired until staff pair them
(services/swiss/rounds.py, which creates the matches and boards with ``create_boards``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from orchestrator.adapters.repo_rounds import NewMatch
from orchestrator.adapters.tables import (
    Event,
    EventStatus,
    Lot,
    Match,
    MatchStatus,
    Pool,
    PoolEntry,
    PoolStatus,
    Round,
    RoundStatus,
    Stage,
    StageKind,
    StageStatus,
    SwissStage,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.event import EventDefinition, StageDef
from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import GameResult, MatchForfeit, board_colours
from orchestrator.domain.swiss import SwissError, start_state
from orchestrator.domain.swiss.simulate import swiss_team
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services import live
from orchestrator.services.audit_trail import flush_and_audit
from orchestrator.services.definitions import definition_of
from orchestrator.services.queue import ADVANCE_STAGE, enqueue
from orchestrator.services.setup import draws, pairing_lots, pool_draft
from orchestrator.services.setup.event_setup import event_field, pool_stage, stage_definition
from orchestrator.translation import gettext as _
from orchestrator.translation import ngettext

SWISS_POOL_LETTER = ""  # a Swiss stage's one pool: its places are "Open 1st", not "Open A 1st"

# --- start_stage ----------------------------------------------------------------------------------------


def _zone(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationFailed([_("timezone: unknown timezone %(name)r") % {"name": name}]) from None


def _utc(moment: datetime | None, zone: ZoneInfo) -> datetime | None:
    if moment is None:
        return None
    local = moment if moment.tzinfo is not None else moment.replace(tzinfo=zone)
    return local.astimezone(UTC)


def new_match_row(
    round_id: int, pool_id: int | None, match_no: int, first: int, second: int
) -> dict[str, Any]:
    """A pool match's column values as ``Match()`` would make them: scheduled, no forfeit, not finished."""
    return {
        "round_id": round_id,
        "pool_id": pool_id,
        "duel_id": None,
        "leg": None,
        "match_no": match_no,
        "first_team_id": first,
        "second_team_id": second,
        "forfeit": MatchForfeit.NONE.value,
        "status": MatchStatus.SCHEDULED.value,
        "finished_at": None,
    }


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


@dataclass(frozen=True, slots=True)
class StageStart:
    """What ``start_stage`` did: the new rounds, or why the stage did not start.

    Returned rather than raised so that the unit of work commits the pairing-number lots a refused start
    committed (as ``authenticate`` returns a LoginVerdict); call ``raise_refusal()`` after the unit of work.
    """

    round_ids: tuple[int, ...]
    refusal: Conflict | None = None

    def raise_refusal(self) -> None:
        if self.refusal is not None:
            raise self.refusal


def start_stage(
    uow: UnitOfWork, *, stage_id: int, actor: str, initial_colour: str | None = None
) -> StageStart:
    """Start a published pool stage: pairing numbers, rounds, matches and boards; or a Swiss stage
    (``initial_colour`` "W" or "B" for tests and replays only; otherwise drawn by its lot, committed by
    the first start, which then refuses as for a pool without its lot).

    Each pool's pairing numbers are drawn by the lot committed when its pools were published (docs/rules.md
    §7, docs/lots.md); pairings follow the Berger tables (FIDE C.05 Annex 1); the first-named team has White
    on the odd boards (docs/rules.md §1); every board starts with the default lineup (the teams' main
    players) and no result. A pool without its committed lot (published before lots were committed at
    publishing) gets one now and the stage does not start: the refusal says to start again, so that the
    hash is public before the draw.
    """
    if uow.events.event_and_stage(stage_id)[1].kind == StageKind.SWISS.value:
        return _start_swiss(uow, stage_id, actor=actor, initial_colour=initial_colour)
    event, stage, pools = _startable(uow, stage_id)
    # Only the pools' teams: their names and main players (plain rows, not the whole field as objects).
    entries_of = {pool.id or 0: list(uow.rounds.entries_of_pool(pool.id or 0)) for pool in pools}
    team_ids = [entry.team_id for entries in entries_of.values() for entry in entries]
    team_name = uow.teams.names_by_id(team_ids)
    lots = {
        pool.id or 0: pairing_lots.pairing_lot_of(
            uow,
            event_id=event.id or 0,
            stage=stage,
            pool=pool,
            teams=[team_name[e.team_id] for e in entries_of[pool.id or 0]],
        )
        for pool in pools
    }
    missing = [pool for pool in pools if lots[pool.id or 0] is None]
    if missing:
        return StageStart((), _commit_missing_lots(uow, event, stage, missing, actor=actor))
    definition = definition_of(event)
    rounds = _create_rounds(uow, stage_id, definition, stage_definition(definition, stage))
    lineup = default_lineup(uow, team_ids, definition.team_format.boards, actor=actor)
    drawn = {pool.id or 0: lots[pool.id or 0] for pool in pools}
    team_of_number = _draw_pairing_numbers(uow, drawn, entries_of, team_name, actor=actor)
    _create_pool_games(uow, pools, rounds, team_of_number, lineup)
    lot_ids = [lot.id or 0 for lot in drawn.values() if lot is not None]
    _mark_started(uow, event, stage, pools, rounds=len(rounds), lot_ids=lot_ids, actor=actor)
    return StageStart(tuple(r.id or 0 for r in rounds.values()))


def _commit_missing_lots(
    uow: UnitOfWork, event: Event, stage: Stage, pools: list[Pool], *, actor: str
) -> Conflict:
    """Commit the pairing-number lots the pools lack; the refusal that tells staff to start again."""
    one = len(pools) == 1
    which = ("pool " if one else "pools ") + ", ".join(pool.letter for pool in pools)
    pairing_lots.commit_pairing_lots(
        uow,
        event=event,
        stage=stage,
        pools=pools,
        actor=actor,
        reason=f"committed when {stage.name} was started: {which} had no committed lot",
    )
    letters = ", ".join(pool.letter for pool in pools)
    message = ngettext(
        "%(stage)s did not start: the pairing-number lot of pool %(pools)s was committed now (the pools "
        "were published before lots were committed at publishing; the hash is under Draws by lot). "
        "Start the stage again to draw it.",
        "%(stage)s did not start: the pairing-number lots of pools %(pools)s were committed now (the pools "
        "were published before lots were committed at publishing; the hash is under Draws by lot). "
        "Start the stage again to draw them.",
        len(pools),
    )
    return Conflict(message % {"stage": stage.name, "pools": letters})


@dataclass(frozen=True, slots=True)
class DefaultLineup:
    """What every new board starts with: the teams' main players, colours by board, who and when."""

    main_by_team: Mapping[int, Mapping[int, int]]
    first_colours: Sequence[str]
    actor: str
    now: datetime


def default_lineup(uow: UnitOfWork, team_ids: Iterable[int], boards: int, *, actor: str) -> DefaultLineup:
    """The default lineup of these teams' new boards: their main players, the first-named team White on
    the odd boards (docs/rules.md §1)."""
    return DefaultLineup(
        main_by_team=uow.teams.main_boards_by_team(team_ids),
        first_colours=board_colours(boards, first_named=True),
        actor=actor,
        now=utcnow(),
    )


def create_boards(uow: UnitOfWork, matches: Iterable[Match | NewMatch], lineup: DefaultLineup) -> None:
    """The boards of new (flushed or inserted) matches with the default lineup and no result (one insert)."""
    board_rows: list[dict[str, object]] = []
    for match in matches:
        first, second = match.first_team_id, match.second_team_id
        for board_no, colour in enumerate(lineup.first_colours, start=1):
            first_player = lineup.main_by_team.get(first, {}).get(board_no)
            second_player = lineup.main_by_team.get(second, {}).get(board_no)
            white, black = (first_player, second_player) if colour == "W" else (second_player, first_player)
            board_rows.append(new_board_row(match.id or 0, board_no, white, black, lineup.actor, lineup.now))
    uow.boards.insert_boards(board_rows)


def _startable(uow: UnitOfWork, stage_id: int) -> tuple[Event, Stage, list[Pool]]:
    """The event, the stage and its pools, when the stage may start (Conflict saying why not otherwise)."""
    event, stage = pool_stage(
        uow,
        stage_id,
        StageStatus.PUBLISHED,
        _("%(stage)s is %(status)s: only a stage with published pools can start"),
    )
    pools = list(uow.rounds.pools_of_stage(stage_id))
    if not pools or any(pool.status != PoolStatus.PUBLISHED.value for pool in pools):
        raise Conflict(
            _("%(stage)s: every pool must be published before the stage starts") % {"stage": stage.name}
        )
    if uow.rounds.rounds_of_stage(stage_id):
        raise Conflict(_("%(stage)s already has rounds") % {"stage": stage.name})
    return event, stage, pools


def _create_rounds(
    uow: UnitOfWork,
    stage_id: int,
    definition: EventDefinition,
    stage_def: StageDef,
    status: RoundStatus = RoundStatus.SCHEDULED,
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
            status=status.value,
        )
    uow.rounds.add_all(rounds.values())
    uow.flush()
    return rounds


def _draw_pairing_numbers(
    uow: UnitOfWork,
    lots: Mapping[int, Lot | None],
    entries_of: Mapping[int, list[PoolEntry]],
    team_name: Mapping[int, str],
    *,
    actor: str,
) -> dict[int, dict[int, int]]:
    """Draw each pool's committed lot (unless staff drew it already) and give each team its pairing number;
    returns, per pool id, the team of each number. The entries of every pool are written together."""
    numbers: dict[int, Mapping[str, int]] = {}
    for pool_id, lot in lots.items():
        assert lot is not None
        if lot.outcome is None:
            draws.reveal_lot(uow, lot_id=lot.id or 0, actor=actor)
        numbers[pool_id] = pairing_lots.numbers_of(lot)
    entries = [(pool_id, entry) for pool_id in lots for entry in entries_of[pool_id]]
    # Two steps, so that (pool, pairing number) stays unique while numbers move.
    for _pool_id, entry in entries:
        entry.pairing_number = -entry.pairing_number
        uow.rounds.add(entry)
    uow.flush()
    team_of_number: dict[int, dict[int, int]] = {pool_id: {} for pool_id in lots}
    for pool_id, entry in entries:
        entry.pairing_number = numbers[pool_id][team_name[entry.team_id]]
        team_of_number[pool_id][entry.pairing_number] = entry.team_id
        uow.rounds.add(entry)
    uow.flush()
    return team_of_number


def _create_pool_games(
    uow: UnitOfWork,
    pools: Sequence[Pool],
    rounds: Mapping[int, Round],
    team_of_number: Mapping[int, Mapping[int, int]],
    lineup: DefaultLineup,
) -> None:
    """Every pool's Berger matches and their boards, pool after pool, each pool's tables numbered after
    the pools before it: the matches in one statement (their ids come back with it), then the boards."""
    rows: list[dict[str, Any]] = []
    offset = 0
    for pool in pools:
        numbers = team_of_number[pool.id or 0]
        table = berger_table(len(numbers))
        rows.extend(
            new_match_row(
                rounds[rr_round.number].id or 0,
                pool.id,
                offset + pairing.table,
                numbers[pairing.first],
                numbers[pairing.second],
            )
            for rr_round in table
            for pairing in rr_round.pairings
        )
        offset += max(len(r.pairings) for r in table)
    create_boards(uow, uow.rounds.insert_matches(rows), lineup)


def _mark_started(
    uow: UnitOfWork,
    event: Event,
    stage: Stage,
    pools: list[Pool],
    *,
    rounds: int,
    lot_ids: list[int],
    actor: str,
    detail: Mapping[str, object] | None = None,
) -> None:
    """The stage (and the event, if it was not yet) is running: audited and announced."""
    stage.status = StageStatus.RUNNING.value
    uow.events.add(stage)
    if event.status in (EventStatus.DRAFT.value, EventStatus.PUBLISHED.value):
        event.status = EventStatus.RUNNING.value
    event.updated_at = utcnow()
    uow.events.add(event)
    flush_and_audit(
        uow,
        stage,
        "stage.start",
        actor=actor,
        event_id=event.id or 0,
        new={"rounds": rounds, "pools": [pool.letter for pool in pools], "lots": lot_ids, **(detail or {})},
    )
    live.announce(uow, f"stage:{stage.id}", kind="stage", status=stage.status)
    live.announce(uow, f"event:{event.slug}", kind="stage", stage_id=stage.id)
    for pool in pools:
        live.announce(uow, f"pool:{pool.id}", kind="rounds")


# --- a Swiss stage ----------------------------------------------------------------------------------------


COLOURS = {"White": "W", "Black": "B"}


def _initial_colour(uow: UnitOfWork, event: Event, stage: Stage, *, actor: str) -> str | Conflict:
    """The colour drawn by the stage's committed lot (drawn now if still sealed); without a lot, one is
    committed now and the refusal that says to start again is returned, so the hash is public first."""
    purpose = pairing_lots.colour_lot_purpose(stage.name)
    lot = next(
        (
            lot
            for lot in reversed(uow.lots.lots_with_purpose(event.id or 0, purpose))
            if not (lot.seed_hex is not None and lot.outcome is None)  # not a void lot
        ),
        None,
    )
    if lot is None:
        draws.commit_lot(
            uow,
            event_id=event.id or 0,
            purpose=purpose,
            candidates=list(COLOURS),
            kind="one",
            actor=actor,
            reason=f"committed when {stage.name} was started",
        )
        return Conflict(
            _(
                "%(stage)s did not start: the lot of its initial colour (C.04.6 art. 4.3.1) was committed "
                "now (the hash is under Draws by lot). Start the stage again to draw it."
            )
            % {"stage": stage.name}
        )
    if lot.outcome is None:
        draws.reveal_lot(uow, lot_id=lot.id or 0, actor=actor)
    assert lot.outcome is not None
    return COLOURS[str(lot.outcome[0])]


def _start_swiss(uow: UnitOfWork, stage_id: int, *, actor: str, initial_colour: str | None) -> StageStart:
    """One pool of every entrant, numbered by the initial ranking; the rounds wait to be paired."""
    event, stage = uow.events.event_and_stage(stage_id)
    if stage.status not in (StageStatus.DRAFT.value, StageStatus.PUBLISHED.value):
        raise Conflict(
            _("%(stage)s is %(status)s: it has started already")
            % {"stage": stage.name, "status": stage.status}
        )
    if uow.rounds.rounds_of_stage(stage_id) or uow.rounds.pools_of_stage(stage_id):
        raise Conflict(_("%(stage)s already has rounds") % {"stage": stage.name})
    if initial_colour is not None and initial_colour not in ("W", "B"):
        raise ValidationFailed(
            [_("initial colour must be W or B, not %(colour)r") % {"colour": initial_colour}]
        )
    definition = definition_of(event)
    stage_def = stage_definition(definition, stage)
    names, _apart = pool_draft.stage_entrants(uow, stage_id=stage_id)
    if len(names) < 2:
        raise Conflict(
            _("%(stage)s cannot start: it needs at least two teams, it has %(count)d")
            % {"stage": stage.name, "count": len(names)}
        )
    colour = initial_colour or _initial_colour(uow, event, stage, actor=actor)
    if isinstance(colour, Conflict):
        return StageStart((), colour)
    field = event_field(uow, event.id or 0)
    try:
        state = start_state(
            [swiss_team(field.domain[field.by_name[name]]) for name in names],
            boards=definition.team_format.boards,
            rounds=stage_def.rounds,
            initial_colour=colour,
            pairing=stage_def.pairing,
        )
    except SwissError as error:
        raise ValidationFailed([f"{stage.name}: {error}"]) from None
    pool = uow.rounds.insert(
        Pool(
            stage_id=stage_id,
            letter=SWISS_POOL_LETTER,
            status=PoolStatus.PUBLISHED.value,
            published_at=utcnow(),
        )
    )
    for number, team in enumerate(state.teams, start=1):  # team pairing numbers (C.04.6 art. 1.1)
        uow.rounds.add(
            PoolEntry(pool_id=pool.id or 0, team_id=field.by_name[team.name], pairing_number=number)
        )
    uow.events.add(SwissStage(stage_id=stage_id, initial_colour=colour))
    rounds = _create_rounds(uow, stage_id, definition, stage_def, RoundStatus.UNPAIRED)
    detail = {"initial_colour": colour, "pairing_numbers": [team.name for team in state.teams]}
    _mark_started(uow, event, stage, [pool], rounds=len(rounds), lot_ids=[], actor=actor, detail=detail)
    if stage_def.auto_publish:  # the workers pair and publish round 1 (services/swiss/auto.py)
        enqueue(uow, ADVANCE_STAGE, stage_id)
    return StageStart(tuple(r.id or 0 for r in rounds.values()))
