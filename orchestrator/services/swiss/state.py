"""A stored Swiss stage as the pairing engine sees it (docs/swiss.md, "The server").

``swiss_state_of`` builds the domain ``SwissState`` from the database: the stage's one pool in
team-pairing-number order (late entries join at ``pool_entry.joined_round``, withdrawals leave at
``withdrawn_round``, absences and requested byes are ``swiss_round_team`` rows), every published match
with its result as the standings count it (whole-match forfeits and fair-play annulments included) and
every bye, and the bonus and penalty points (``score_adjustment`` rows: TRF-2026 record 299,
docs/swiss.md "Bonus and penalty points"). A match still missing a result is not in the state: its boards
are listed in ``missing``, unless the caller counts unfinished games as draws (staff's choice when pairing,
recorded with the round).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace

from orchestrator.adapters.tables import (
    Event,
    Pool,
    Round,
    RoundStatus,
    Stage,
    StageKind,
    StageStatus,
    SwissRoundRole,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.event import StageDef
from orchestrator.domain.scoring import (
    GameResult,
    MatchForfeit,
    MatchRecord,
    forfeit_record,
    match_game_points,
)
from orchestrator.domain.swiss import SwissState, SwissTeam, bye_match
from orchestrator.domain.swiss.model import RequestedBye
from orchestrator.errors import Conflict, NotFound
from orchestrator.services.definitions import definition_of
from orchestrator.services.results.adjustments import stage_adjustments
from orchestrator.services.results.standings import effective_result, match_is_complete
from orchestrator.services.setup.event_setup import stage_definition
from orchestrator.translation import gettext as _

# Rounds whose pairing is public (their matches and bye count); UNPAIRED, DRAFT and CANCELLED do not.
PUBLISHED_ROUNDS = frozenset(
    {
        RoundStatus.SCHEDULED.value,
        RoundStatus.PAIRED.value,
        RoundStatus.PLAYING.value,
        RoundStatus.FINISHED.value,
    }
)


@dataclass(frozen=True, slots=True)
class SwissStage:
    """A running Swiss stage's rows: the event, the stage and its definition, its pool and rounds."""

    event: Event
    stage: Stage
    stage_def: StageDef
    pool: Pool
    rounds: tuple[Round, ...]
    boards: int

    @property
    def round_count(self) -> int:
        """The stage's number of rounds: the event file's, or the rounds played once it ended early (its
        cancelled rounds do not count; docs/rules.md §10, "Ending a Swiss early")."""
        if any(rnd.status == RoundStatus.CANCELLED.value for rnd in self.rounds):
            return sum(1 for rnd in self.rounds if rnd.status != RoundStatus.CANCELLED.value)
        return self.stage_def.rounds

    def round(self, number: int) -> Round:
        for rnd in self.rounds:
            if rnd.number == number:
                return rnd
        raise NotFound(_("%(stage)s has no round %(round)s") % {"stage": self.stage.name, "round": number})


def swiss_stage(uow: UnitOfWork, stage_id: int) -> SwissStage:
    """The stage's rows (NotFound for an unknown stage, Conflict for one that is not a started Swiss)."""
    stage = uow.events.get(Stage, stage_id)
    if stage is None:
        raise NotFound(_("stage %(stage)s does not exist") % {"stage": stage_id})
    if stage.kind != StageKind.SWISS.value:
        raise Conflict(_("%(stage)s is not a Swiss stage") % {"stage": stage.name})
    pools = uow.rounds.pools_of_stage(stage_id)
    if not pools:
        raise Conflict(_("%(stage)s has not started: start it first") % {"stage": stage.name})
    event = uow.events.get_or_raise(Event, stage.event_id)
    definition = definition_of(event)
    stage_def = stage_definition(definition, stage)
    rounds = tuple(uow.rounds.rounds_of_stage(stage_id))
    return SwissStage(event, stage, stage_def, pools[0], rounds, definition.team_format.boards)


def running_swiss_stage(uow: UnitOfWork, stage_id: int, *, what: str) -> SwissStage:
    """The stage's rows, locked (one change to a Swiss stage at a time), when it is running; Conflict
    saying that ``what`` ("its rounds can no longer be paired") cannot be done otherwise."""
    if uow.events.get(Stage, stage_id) is not None:
        # Locked first, so the rows below are read under the lock (a lock expires what was read before it,
        # and each of the stage's rounds was then read again on its own).
        uow.locks.lock(Stage, stage_id)
    rows = swiss_stage(uow, stage_id)
    if rows.stage.status != StageStatus.RUNNING.value:
        raise Conflict(
            _("%(stage)s is %(status)s: %(refusal)s")
            % {"stage": rows.stage.name, "status": rows.stage.status, "refusal": what}
        )
    return rows


@dataclass(frozen=True, slots=True)
class StoredSwiss:
    """The state of a stored Swiss stage, the team id of each name, and the boards still without a result
    (as "round 2, Norway – Sweden board 3"): the state leaves their matches out, or counts those boards as
    draws when asked to."""

    rows: SwissStage
    state: SwissState
    team_ids: dict[str, int]
    missing: tuple[str, ...]

    def name_of(self, team_id: int) -> str:
        return next(name for name, tid in self.team_ids.items() if tid == team_id)


def swiss_state_of(uow: UnitOfWork, stage_id: int, *, count_unfinished_as_draws: bool = False) -> StoredSwiss:
    """The domain state of a Swiss stage from the database (module docstring)."""
    rows = swiss_stage(uow, stage_id)
    definition = definition_of(rows.event)
    settings = uow.events.swiss_settings_of(stage_id)
    published = {rnd.id: rnd.number for rnd in rows.rounds if rnd.status in PUBLISHED_ROUNDS}
    absent: dict[int, set[int]] = defaultdict(set)
    byes: list[tuple[int, int]] = []
    requested: list[tuple[int, int, bool]] = []
    round_teams = uow.rounds.round_teams_of_stage(stage_id)
    entries = uow.rounds.entries_of_pool(rows.pool.id or 0)
    # The stage's teams only (an Olympiad's other section is not read): their names and their players'
    # ratings, all the pairing reads of a team (as ``domain.swiss.simulate.swiss_team``).
    entry_ids = {entry.team_id for entry in entries}
    team_ids = entry_ids | {row.team_id for row, _number in round_teams}
    names = uow.teams.names_by_id(team_ids)
    ratings = uow.teams.ratings_by_team(team_ids)

    def name(team_id: int) -> str:
        return names[team_id]

    for row, number in round_teams:
        if row.role == SwissRoundRole.ABSENT.value:
            absent[row.team_id].add(number)
        elif SwissRoundRole(row.role).is_requested_bye:  # out of the round, scoring its bye once played
            absent[row.team_id].add(number)
            requested.append((row.team_id, number, row.role == SwissRoundRole.FULL_BYE.value))
        elif row.round_id in published:
            byes.append((row.team_id, number))
    teams: list[SwissTeam] = []
    for entry in entries:
        teams.append(
            SwissTeam(
                name(entry.team_id),
                ratings[entry.team_id],
                joined=entry.joined_round or 1,
                withdrawn=entry.withdrawn_round,
                absent=frozenset(absent[entry.team_id]),
            )
        )
    boards = rows.boards
    records, missing = _records(uow, rows, boards, count_unfinished_as_draws, set(published), names)
    state = SwissState(
        teams=tuple(teams),
        boards=boards,
        rounds=rows.round_count,
        scoring=definition.match_scoring,
        initial_colour=settings.initial_colour if settings is not None else "W",
        pairing=rows.stage_def.pairing,
        name=f"{rows.event.name}: {rows.stage.name}",
        requested_byes=tuple(
            RequestedBye(name(team_id), number, full)
            for team_id, number, full in sorted(requested, key=lambda r: (r[1], r[0]))
        ),
        adjustments=tuple(
            item.domain(name(item.team_id))
            for item in stage_adjustments(uow, stage_id)
            if item.team_id in entry_ids
        ),
    )
    bye_records = [bye_match(state, name(team_id), number) for team_id, number in byes]
    matches = tuple(sorted([*records, *bye_records], key=lambda m: (m.round, m.team_b is None)))
    by_name = {name(entry.team_id): entry.team_id for entry in entries}
    return StoredSwiss(rows, replace(state, matches=matches), by_name, missing)


def _records(
    uow: UnitOfWork,
    rows: SwissStage,
    boards: int,
    as_draws: bool,
    published: set[int | None],
    known: Mapping[int, str],
) -> tuple[list[MatchRecord], tuple[str, ...]]:
    """The published matches as records, and the boards still missing a result; ``known``: team names
    already read (the stage's teams), so only a match's other team, if any, is read here."""
    in_rounds, boards_by_match = uow.rounds.matches_and_boards_of_pool(rows.pool.id or 0)
    annulled = uow.teams.annulled_player_ids(rows.event.id or 0)
    ids = {t for m in in_rounds for t in (m.match.first_team_id, m.match.second_team_id)} - known.keys()
    names = {**known, **uow.teams.names_by_id(ids)}
    records: list[MatchRecord] = []
    missing: list[str] = []
    for item in in_rounds:
        match = item.match
        if match.round_id not in published:
            continue
        a, b = names[match.first_team_id], names[match.second_team_id]
        match_boards = boards_by_match.get(match.id or 0, [])
        forfeit = MatchForfeit(match.forfeit)
        if forfeit is not MatchForfeit.NONE:
            records.append(forfeit_record(item.round_number, a, b, forfeit, boards))
            continue
        results = [effective_result(board, annulled) for board in match_boards]
        if not match_is_complete(match, match_boards):
            pending = [board.board_no for board in match_boards if not GameResult(board.result).is_final]
            where = ", ".join(str(n) for n in pending) or "all"
            missing.append(f"round {item.round_number}, {a} – {b} board {where}")
            if not as_draws:
                continue
            results = [r if r.is_final else GameResult.DRAW for r in results] or [GameResult.DRAW] * boards
        gp_a, gp_b = match_game_points(results)
        records.append(MatchRecord(item.round_number, a, b, gp_a, gp_b))
    return records, tuple(missing)
