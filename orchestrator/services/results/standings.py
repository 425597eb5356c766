"""Pool standings from the database, stored standings rows, and closing a stage (docs/rules.md §4, §6, §7).

Rules applied when a pool is read (``pool_records``):

- a match counts once every board has a final result, or when it is a whole-match forfeit
  (``match.forfeit``: the absent team loses 0–boards); a match still missing a result does not count;
- a fair-play annulment (docs/rules.md §2) scores each final game of the annulled player as a forfeit loss
(a win by
  forfeit for the opponent, whatever the game's result; ``-/-`` when both players are annulled); the board
  keeps the game's own result,
  and the audit log keeps what it was scored as;
- tie-breaks follow the stage's chain (``stage.tiebreaks``, default the 2020 list); a tie left after the
  chain is broken by a recorded lot only when the chain ends with LOT: committed once the pool's last match
  is complete, drawn when the stage is closed (services/results/tie_lots.py, docs/lots.md).

Stored ``standing`` rows: ``values`` holds every tie-break by code as an exact fraction written as text
("23/2"), plus "LOT" (the lot position) when a lot separated teams; ``provisional`` is False only for the
final standings of a closed stage, every lot they need drawn (the next stage is seeded from those alone).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from functools import lru_cache

from orchestrator.adapters.repo_rounds import ScoredMatch, StoredStanding
from orchestrator.adapters.tables import (
    POOL_KINDS,
    Event,
    EventStatus,
    LateChangeCause,
    Match,
    Pool,
    RoundStatus,
    Stage,
    StageKind,
    StageStatus,
    Standing,
    SwissRoundRole,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.scoring import (
    DEFAULT_SCORING,
    ByeRequest,
    GameResult,
    MatchForfeit,
    MatchRecord,
    MatchScoring,
    forfeit_record,
    match_game_points,
)
from orchestrator.domain.standings import Standings, compute_standings
from orchestrator.domain.swiss.model import ScoreAdjustment, adjusted_totals
from orchestrator.domain.tiebreaks import PRESETS, parse_chain
from orchestrator.errors import Conflict, NotFound
from orchestrator.services import live, times
from orchestrator.services.boards import ForfeitableMatch, ScoredBoard
from orchestrator.services.definitions import definition_or_none, event_zone
from orchestrator.services.results import adjustments as score_adjustments
from orchestrator.services.results import late_changes, tie_lots
from orchestrator.translation import gettext as _
from orchestrator.translation import ngettext

DEFAULT_CHAIN = PRESETS["online-2020"]
DEFAULT_BOARDS = 6
DEFAULT_APPEAL_WINDOW_MIN = 15

PENDING = GameResult.PENDING.value  # a board's stored code while it has no result
# A stored code's result, looked up rather than made (``GameResult(code)``): a recompute reads every board of
# the pool's history (4,180 in a Swiss pool's eleventh round).
RESULT_OF = {result.value: result for result in GameResult}


# --- event settings ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EventRules:
    """What the results slice needs from the event definition (defaults when there is none)."""

    scoring: MatchScoring = DEFAULT_SCORING
    boards: int = DEFAULT_BOARDS
    appeal_window_minutes: int = DEFAULT_APPEAL_WINDOW_MIN


def event_rules(event: Event) -> EventRules:
    """The event's rules from its definition (services/definitions.py); defaults when it has none."""
    definition = definition_or_none(event)
    if definition is None:
        return EventRules()
    return EventRules(
        scoring=definition.match_scoring,
        boards=len(definition.team_format.board_categories),
        appeal_window_minutes=definition.appeal_window_minutes,
    )


def _scoring_of(event: Event) -> dict[str, int]:
    scoring = event_rules(event).scoring
    return {"win": scoring.win, "draw": scoring.draw, "loss": scoring.loss}


def stage_chain(stage: Stage) -> tuple[str, ...]:
    return parse_chain(list(stage.tiebreaks) if stage.tiebreaks else DEFAULT_CHAIN)


# --- effective results ----------------------------------------------------------------------------


def effective_result(board: ScoredBoard, annulled: set[int]) -> GameResult:
    """The result a board counts as: its own, or a forfeit loss for an annulled player (docs/rules.md §2)."""
    result = RESULT_OF[board.result]
    if not annulled or result is GameResult.PENDING:
        return result
    white_out = board.white_player_id in annulled
    black_out = board.black_player_id in annulled
    if white_out and black_out:
        return GameResult.DOUBLE_FORFEIT
    if white_out:
        return GameResult.BLACK_WINS_FORFEIT
    if black_out:
        return GameResult.WHITE_WINS_FORFEIT
    return result


def match_is_complete(match: ForfeitableMatch, boards: Sequence[ScoredBoard]) -> bool:
    if match.forfeit != MatchForfeit.NONE.value:
        return True
    # The stored code, not the enum made of it: a recompute checks every board of the pool's history.
    return bool(boards) and all(b.result != PENDING for b in boards)


@dataclass(frozen=True, slots=True)
class PoolRecords:
    """A pool as the domain sees it."""

    pool: Pool
    stage: Stage
    event: Event
    teams: tuple[str, ...]
    team_ids: Mapping[str, int]
    records: tuple[MatchRecord, ...]
    games: Mapping[tuple[int, str], tuple[GameResult, ...]]
    chain: tuple[str, ...]
    rules: EventRules
    incomplete_matches: tuple[int, ...]
    open_appeals: tuple[int, ...]
    boards: int
    swiss: bool = False  # a Swiss stage's pool: byes, no round-robin criteria (docs/swiss.md)
    # A Swiss stage's bonus and penalty points that count now (those of the rounds published, and those
    # for the standings only): TRF-2026 record 299, services/results/adjustments.py.
    adjustments: tuple[ScoreAdjustment, ...] = ()
    # the pool's matches in round order as read (the chances' fixtures still to play come from them)
    matches: tuple[ScoredMatch, ...] = ()

    @property
    def adjusted_points(self) -> dict[str, tuple[int, int]]:
        """(MP, GP half-points) the adjustments add to each team's score."""
        return adjusted_totals(self.adjustments)

    @property
    def bye_mp(self) -> int | None:
        """A pairing-allocated bye's match points: the points of a drawn match (C.04.6 art. 1.4)."""
        return self.rules.scoring.draw if self.swiss else None


# A requested bye counts once its round is published, as the pairing-allocated bye (stored on publishing).
_PUBLISHED = frozenset(
    {
        RoundStatus.SCHEDULED.value,
        RoundStatus.PAIRED.value,
        RoundStatus.PLAYING.value,
        RoundStatus.FINISHED.value,
    }
)
_REQUESTS = {SwissRoundRole.FULL_BYE.value: ByeRequest.FULL, SwissRoundRole.HALF_BYE.value: ByeRequest.HALF}


def bye_record(role: str, round_no: int, team: str, boards: int) -> MatchRecord | None:
    """The record of a Swiss round's ``swiss_round_team`` row: the pairing-allocated bye (half the boards'
    game points, its match points the pool's ``bye_mp``), a requested bye (a won match and every board, or
    a drawn match and half the boards: docs/trf.md, "Requested byes"); None for an absence."""
    if role == SwissRoundRole.BYE.value:
        return MatchRecord(round_no, team, None, boards, 0)
    request = _REQUESTS.get(role)
    return None if request is None else MatchRecord.requested_bye(round_no, team, request, boards)


def _bye_records(uow: UnitOfWork, stage: Stage, names: Mapping[int, str], boards: int) -> list[MatchRecord]:
    """A Swiss stage's published byes, each worth half the boards' game points (``swiss.bye_match``), and
    the byes its teams asked for, in the rounds published (``bye_record``)."""
    if stage.kind != StageKind.SWISS.value:
        return []
    published = {rnd.number for rnd in uow.rounds.rounds_of_stage(stage.id or 0) if rnd.status in _PUBLISHED}
    records = (
        bye_record(row.role, number, names[row.team_id], boards)
        for row, number in uow.rounds.round_teams_of_stage(stage.id or 0)
        if row.team_id in names and (row.role == SwissRoundRole.BYE.value or number in published)
    )
    return [record for record in records if record is not None]


def _adjustments(uow: UnitOfWork, stage: Stage, names: Mapping[int, str]) -> tuple[ScoreAdjustment, ...]:
    """A Swiss stage's bonus and penalty points that count now: those of the rounds published and the
    standings-only ones (services/results/adjustments.py)."""
    if stage.kind != StageKind.SWISS.value:
        return ()
    stored = score_adjustments.stage_adjustments(uow, stage.id or 0)
    if not stored:
        return ()
    rounds = uow.rounds.rounds_of_stage(stage.id or 0)
    last = max((rnd.number for rnd in rounds if rnd.status in _PUBLISHED), default=0)
    return tuple(
        item.domain(names[item.team_id])
        for item in stored
        if item.team_id in names and item.counts_after(last, last=True)
    )


def pool_records(uow: UnitOfWork, *, pool_id: int, annulled: set[int] | None = None) -> PoolRecords:
    """Read a pool's teams and counted matches (module docstring for the rules).

    ``annulled``: the event's annulled player ids when the caller has read them already (closing a stage
    reads them once for all its pools).
    """
    context = uow.rounds.pool_context(pool_id)
    if context is None:
        raise NotFound(_("pool %(pool)s does not exist") % {"pool": pool_id})
    pool, stage, event = context
    rules = event_rules(event)
    pool_teams = uow.rounds.teams_of_pool(pool_id)
    in_rounds, boards_by_match = uow.rounds.matches_and_boards_of_pool(pool_id)
    if annulled is None:
        annulled = uow.teams.annulled_player_ids(event.id or 0)
    names = {t.team_id: t.name for t in pool_teams}
    extra_ids = {
        tid for m in in_rounds for tid in (m.match.first_team_id, m.match.second_team_id) if tid not in names
    }
    names.update(uow.teams.names_by_id(extra_ids))
    board_counts = [len(b) for b in boards_by_match.values() if b]
    boards = max(board_counts) if board_counts else rules.boards

    records: list[MatchRecord] = []
    games: dict[tuple[int, str], tuple[GameResult, ...]] = {}
    incomplete: list[int] = []
    for item in in_rounds:
        match = item.match
        match_boards = boards_by_match.get(match.id or 0, [])
        a, b = names[match.first_team_id], names[match.second_team_id]
        if not match_is_complete(match, match_boards):
            incomplete.append(match.id or 0)
            continue
        forfeit = MatchForfeit(match.forfeit)
        if forfeit is not MatchForfeit.NONE:
            records.append(forfeit_record(item.round_number, a, b, forfeit, boards))
            continue
        results = tuple(effective_result(board, annulled) for board in match_boards)
        gp_a, gp_b = match_game_points(results)
        records.append(MatchRecord(item.round_number, a, b, gp_a, gp_b))
        games[(item.round_number, a)] = results
    records.extend(_bye_records(uow, stage, names, boards))
    open_appeals = uow.rounds.appeals_of_matches((m.match.id or 0 for m in in_rounds), only_open=True)
    return PoolRecords(
        pool=pool,
        stage=stage,
        event=event,
        teams=tuple(t.name for t in pool_teams),
        team_ids={name: tid for tid, name in names.items()},
        records=tuple(records),
        games=games,
        chain=stage_chain(stage),
        rules=rules,
        incomplete_matches=tuple(incomplete),
        open_appeals=tuple(a.id or 0 for a in open_appeals),
        boards=boards,
        swiss=stage.kind == StageKind.SWISS.value,
        adjustments=_adjustments(uow, stage, names),
        matches=tuple(in_rounds),
    )


def _standings(data: PoolRecords, lots: Mapping[str, int] | None = None) -> Standings:
    lot_items = tuple(sorted(lots.items())) if lots is not None else None
    return _computed(
        data.teams,
        data.records,
        data.chain,
        data.boards,
        data.rules.scoring,
        lot_items,
        data.bye_mp,
        data.adjustments,
    )


@lru_cache(maxsize=256)
def _computed(
    teams: tuple[str, ...],
    records: tuple[MatchRecord, ...],
    chain: tuple[str, ...],
    boards: int,
    scoring: MatchScoring,
    lots: tuple[tuple[str, int], ...] | None,
    bye_mp: int | None = None,
    adjustments: tuple[ScoreAdjustment, ...] = (),
) -> Standings:
    """compute_standings is pure: the same pool read twice (a recompute that found nothing new, the
    lot check before the ranking) is ranked once. The result is frozen."""
    return compute_standings(
        teams,
        records,
        chain=chain,
        boards=boards,
        scoring=scoring,
        lots=dict(lots) if lots is not None else None,
        round_robin=bye_mp is None,
        bye_mp=bye_mp,
        adjustments=adjusted_totals(adjustments),
    )


def pool_standings(uow: UnitOfWork, *, pool_id: int) -> Standings:
    """The pool's standings from the database now (final results only, annulments applied)."""
    data = pool_records(uow, pool_id=pool_id)
    return _standings(data, recorded_lot_numbers(uow, data))


# --- lots for tie-break LOT (services/results/tie_lots.py) ---------------------------------------------


def pool_tie_lots(uow: UnitOfWork, data: PoolRecords) -> tuple[tie_lots.TieLot, ...]:
    """The groups still tied after the chain, each with its lot, when the chain ends with LOT."""
    if "LOT" not in data.chain:
        return ()
    return tie_lots.pool_ties(uow, event_id=data.event.id or 0, pool=data.pool, standings=_standings(data))


def recorded_lot_numbers(uow: UnitOfWork, data: PoolRecords) -> dict[str, int] | None:
    """Lot positions from drawn lots whose candidates are exactly a group still tied (every group's)."""
    return tie_lots.lot_numbers(pool_tie_lots(uow, data))


# --- stored standings ----------------------------------------------------------------------------------


def value_text(value: Fraction) -> str:
    return str(Fraction(value))


def stored_value(row: Standing, code: str) -> Fraction | None:
    """A stored tie-break value as an exact fraction (None when absent)."""
    raw = row.values.get(code)
    return None if raw is None else Fraction(str(raw))


@dataclass(frozen=True, slots=True)
class PoolResult:
    pool_id: int
    standings: Standings
    provisional: bool
    incomplete_matches: tuple[int, ...]
    open_appeals: tuple[int, ...]
    lots: Mapping[str, int] = field(default_factory=dict)


def _store(
    uow: UnitOfWork, data: PoolRecords, standings: Standings, *, provisional: bool, lots: Mapping[str, int]
) -> None:
    """Write the rows that differ from the stored ones (one read; nothing written when nothing changed)."""
    pool_id = data.pool.id or 0
    team_ids = {data.team_ids[row.team] for row in standings.rows}
    existing: dict[int, StoredStanding] = {}
    stale = False
    for stored_row in uow.rounds.stored_standings_of_pool(pool_id):
        if stored_row.team_id in team_ids:
            existing[stored_row.team_id] = stored_row
        else:
            stale = True
    if stale:
        uow.rounds.delete_standings_of_pool(pool_id, keep_team_ids=team_ids)
    now = utcnow()
    updates: list[dict[str, object]] = []
    inserts: list[dict[str, object]] = []
    for row in standings.rows:
        team_id = data.team_ids[row.team]
        values = {code: value_text(value) for code, value in row.values.items()}
        if row.team in lots:
            values["LOT"] = str(lots[row.team])
        written = {
            "rank": row.rank,
            "values": values,
            "separated_by": row.separated_by,
            "provisional": provisional,
            "computed_at": now,
        }
        stored = existing.get(team_id)
        if stored is None:
            inserts.append(
                {"stage_id": data.stage.id or 0, "pool_id": data.pool.id, "team_id": team_id, **written}
            )
        elif (stored.rank, stored.values, stored.separated_by, stored.provisional) != (
            row.rank,
            values,
            row.separated_by,
            provisional,
        ):  # an unchanged row keeps its computed_at
            updates.append({"id": stored.id, **written})
    uow.rounds.write_standings(pool_id, updates=updates, inserts=inserts)


def recompute_pool(
    uow: UnitOfWork,
    *,
    pool_id: int,
    actor: str = "system",
    annulled: set[int] | None = None,
    records: PoolRecords | None = None,
) -> PoolResult:
    """Store the pool's standings again; final (provisional=False) only when its stage is closed.

    Once the pool's last match is complete, a group still tied after the chain gets its lot committed (the
    hash only; ``close_stage`` draws it, docs/lots.md).

    ``annulled``: as for ``pool_records`` (the event's annulled players, when already read). ``records``:
    the pool's records when the caller read them in this unit of work with the pool locked
    (``close_stage``), so that they are not read twice.
    """
    uow.locks.lock_pool(pool_id)
    data = records if records is not None else pool_records(uow, pool_id=pool_id, annulled=annulled)
    if data.pool.id != pool_id:
        raise ValueError(f"the records given are pool {data.pool.id}'s, not pool {pool_id}'s")
    ties = pool_tie_lots(uow, data)
    if ties and not data.incomplete_matches:  # the pool is complete: its ties' lots are committed now
        tie_lots.commit_missing(
            uow,
            event_id=data.event.id or 0,
            pool=data.pool,
            ties=ties,
            actor=actor,
            reason=f"committed when the last match of pool {data.pool.letter} was complete",
        )
    lots = tie_lots.lot_numbers(ties) or {}
    closed = data.stage.status == StageStatus.CLOSED.value
    # Final once the stage is closed, every match counts, no appeal is open and every lot needed is drawn.
    provisional = (
        not closed or bool(data.incomplete_matches) or bool(data.open_appeals) or (bool(ties) and not lots)
    )
    standings = _standings(data, lots or None)
    _store(uow, data, standings, provisional=provisional, lots=lots)
    live.announce(uow, f"pool:{pool_id}", kind="standings")
    live.announce(uow, f"stage:{data.stage.id}", kind="standings")
    return PoolResult(pool_id, standings, provisional, data.incomplete_matches, data.open_appeals, dict(lots))


# --- closing a stage ----------------------------------------------------------------------------------


def closing_problems(uow: UnitOfWork, *, stage_id: int, now: datetime | None = None) -> list[str]:
    """Why the stage cannot be closed now (empty when it can): open rounds, boards, appeals, windows."""
    now = now or utcnow()
    stage = uow.events.get_or_raise(Stage, stage_id)
    if stage.status == StageStatus.CLOSED.value:
        return [_("Stage %(stage)s is already closed.") % {"stage": stage.name}]
    if stage.kind not in POOL_KINDS:
        return [
            _("Stage %(stage)s is a knockout stage: it ends with its duels, not here.")
            % {"stage": stage.name}
        ]
    event = uow.events.event_of_stage(stage)
    window = timedelta(minutes=event_rules(event).appeal_window_minutes)
    problems: list[str] = []
    rounds = uow.rounds.rounds_of_stage(stage_id)
    if not rounds:
        problems.append(_("Stage %(stage)s has no rounds yet.") % {"stage": stage.name})
    matches = uow.rounds.matches_of_stage(stage_id)
    boards = uow.boards.board_scores_by_match(m.id or 0 for m in matches)
    names = uow.teams.names_by_id(t for m in matches for t in (m.first_team_id, m.second_team_id))
    round_no = {r.id: r.number for r in rounds}

    def label(match: Match) -> str:  # written only for a match with a problem
        return _("round %(round)s, %(first)s – %(second)s") % {
            "round": round_no.get(match.round_id),
            "first": names[match.first_team_id],
            "second": names[match.second_team_id],
        }

    for rnd in rounds:
        if rnd.status == RoundStatus.CANCELLED.value:  # a Swiss stage ended early (docs/swiss.md)
            continue
        if rnd.status != RoundStatus.FINISHED.value:
            in_round = [m for m in matches if m.round_id == rnd.id]
            if not in_round or not all(match_is_complete(m, boards.get(m.id or 0, [])) for m in in_round):
                problems.append(_("Round %(round)s is still open.") % {"round": rnd.number})
    for match in matches:
        if match.forfeit != MatchForfeit.NONE.value:
            continue
        missing = [b.board_no for b in boards.get(match.id or 0, []) if b.result == PENDING]
        if not boards.get(match.id or 0):
            problems.append(_("Match %(match)s has no boards.") % {"match": label(match)})
        elif missing:
            where = ", ".join(str(n) for n in missing)
            problems.append(
                _("Match %(match)s: board %(boards)s has no result.")
                % {"match": label(match), "boards": where}
            )
        elif match.finished_at is not None and match.finished_at + window > now:
            until = match.finished_at + window
            problems.append(
                _("Match %(match)s: the appeal window is open until %(until)s.")
                % {"match": label(match), "until": times.said(until, event_zone(event))}
            )
    for appeal in uow.rounds.appeals_of_matches((m.id or 0 for m in matches), only_open=True):
        match = next(m for m in matches if m.id == appeal.match_id)
        teams = f"{names[match.first_team_id]} – {names[match.second_team_id]}"
        problems.append(
            _("Appeal %(appeal)s on %(match)s (round %(round)s) is open.")
            % {"appeal": appeal.id, "match": teams, "round": round_no.get(match.round_id)}
        )
    return problems


@dataclass(frozen=True, slots=True)
class ClosedStage:
    """What ``close_stage`` did: the pools' final standings, or why the stage is not closed yet.

    Returned rather than raised so that the unit of work commits the lots a refused closing committed (as
    ``authenticate`` returns a LoginVerdict); call ``raise_refusal()`` after the unit of work.
    """

    stage_id: int
    pools: tuple[PoolResult, ...]
    refusal: Conflict | None = None

    def raise_refusal(self) -> None:
        if self.refusal is not None:
            raise self.refusal


def close_stage(uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None) -> ClosedStage:
    """Close a pool stage: refuse with every open round, board or appeal; draw the tie-break lots and store
    the final standings.

    A group still tied after the chain is ordered by its lot, committed in an earlier step (docs/lots.md). One
    that has none gets it committed here and the stage is not closed: the returned refusal says to close
    again, so the hash is public before the draw. On a closed stage whose lot a late correction left to
    draw, closing again draws it and stores the final standings again.
    """
    stage = uow.events.get(Stage, stage_id)
    if stage is None:
        raise NotFound(_("stage %(stage)s does not exist") % {"stage": stage_id})
    pools = uow.rounds.pools_in_letter_order(stage_id)
    for pool in sorted(pools, key=lambda pool: pool.id or 0):  # id order, as ingestion locks them
        uow.locks.lock_pool(pool.id or 0)
    already_closed = stage.status == StageStatus.CLOSED.value
    problems = [] if already_closed else closing_problems(uow, stage_id=stage_id, now=now)
    if problems:
        raise Conflict(
            _("Stage %(stage)s cannot be closed: %(problems)s")
            % {"stage": stage.name, "problems": " ".join(problems)}
        )
    annulled = uow.teams.annulled_player_ids(stage.event_id)
    # Each pool's records, read once under the pool locks: the ties and the final standings both count them.
    records = {pool.id or 0: pool_records(uow, pool_id=pool.id or 0, annulled=annulled) for pool in pools}
    ties = _stage_ties(uow, stage, records)
    if already_closed and all(tie.drawn for pool_ties in ties.values() for tie in pool_ties):
        raise Conflict(_("Stage %(stage)s is already closed.") % {"stage": stage.name})
    committed = [
        tie.sentence(pool.letter)
        for pool in pools
        for tie in tie_lots.commit_missing(
            uow,
            event_id=stage.event_id,
            pool=pool,
            ties=ties[pool.id or 0],
            actor=actor,
            reason=f"committed when {stage.name} was to be closed",
        )
    ]
    if committed:
        return ClosedStage(stage_id, (), _lots_committed_now(stage, committed))
    if not already_closed:
        _mark_closing(uow, stage, now=now)
    for pool in pools:
        tie_lots.draw_sealed(uow, ties=ties[pool.id or 0], actor=actor)
    results = tuple(
        recompute_pool(uow, pool_id=pool.id or 0, actor=actor, records=records[pool.id or 0])
        for pool in pools
    )
    for pool in pools:
        tie_lots.void_unused(uow, event_id=stage.event_id, pool=pool, ties=ties[pool.id or 0], actor=actor)
    uow.audit.change(
        stage,
        "stage.close" if not already_closed else "stage.lots_drawn",
        actor=actor,
        event_id=stage.event_id,
        new={
            "pools": {
                str(result.pool_id): [
                    {"rank": row.rank, "team": row.team, **{k: value_text(v) for k, v in row.values.items()}}
                    for row in result.standings.rows
                ]
                for result in results
            },
            # the match points of a win, draw and loss, for anyone recomputing the standings (docs/record.md)
            "scoring": _scoring_of(uow.events.event_of_stage(stage)),
        },
    )
    if already_closed:  # the final standings changed: later stages built from them are compared again
        late_changes.review_closed_stage(
            uow,
            stage_id=stage_id,
            actor=actor,
            cause=LateChangeCause.CORRECTION,
            cause_text=f"tie-break lots of {stage.name} drawn by {actor} after a late correction",
        )
    event = mark_stage_closed(uow, stage, actor=actor, now=stage.closed_at)
    live.announce(uow, f"event:{event.slug}", kind="stage-closed", stage_id=stage_id)
    return ClosedStage(stage_id, results)


def _stage_ties(
    uow: UnitOfWork, stage: Stage, records: Mapping[int, PoolRecords]
) -> dict[int, tuple[tie_lots.TieLot, ...]]:
    """Each pool's groups still tied after the chain, with their lots (none when the chain has no LOT)."""
    if "LOT" not in stage_chain(stage):
        return {pool_id: () for pool_id in records}
    return {pool_id: pool_tie_lots(uow, data) for pool_id, data in records.items()}


def _lots_committed_now(stage: Stage, committed: Sequence[str]) -> Conflict:
    return Conflict(
        ngettext(
            "Stage %(stage)s is not closed yet: %(lots)s was committed now (the hash is public under Draws "
            "by lot); close again to draw it.",
            "Stage %(stage)s is not closed yet: %(lots)s were committed now (the hash is public under Draws "
            "by lot); close again to draw them.",
            len(committed),
        )
        % {"stage": stage.name, "lots": "; ".join(committed)}
    )


def _mark_closing(uow: UnitOfWork, stage: Stage, *, now: datetime | None) -> None:
    """The stage and its matches are closed before the recomputation, so the standings become final."""
    stage.status = StageStatus.CLOSED.value
    stage.closed_at = now or utcnow()
    uow.events.add(stage)
    uow.rounds.finish_stage_matches(stage.id or 0, stage.closed_at)
    uow.flush()


def mark_stage_closed(uow: UnitOfWork, stage: Stage, *, actor: str, now: datetime | None = None) -> Event:
    """Mark ``stage`` closed (if not yet); once every stage of its event is closed, close the event too.

    Shared by the pool stage's ``close_stage`` and the knockout stage's closing
    (``gameserver.advance_stage``). The event's closing gets its own audit entry (``event.close``).
    Returns the stage's event.
    """
    if stage.status != StageStatus.CLOSED.value:
        stage.status = StageStatus.CLOSED.value
        stage.closed_at = now or utcnow()
        uow.events.add(stage)
    event = uow.events.event_of_stage(stage)
    stages = uow.events.stages_of_event(event.id or 0)
    if event.status != EventStatus.CLOSED.value and all(s.status == StageStatus.CLOSED.value for s in stages):
        old = event.status
        event.status = EventStatus.CLOSED.value
        uow.events.add(event)
        uow.audit.change(
            event,
            "event.close",
            actor=actor,
            event_id=event.id,
            old={"status": old},
            new={"status": event.status, "last_stage_id": stage.id},
        )
        live.announce(uow, f"event:{event.slug}", kind="event-closed")
    return event


def stage_warnings(uow: UnitOfWork, *, stage_id: int) -> list[str]:
    """Warnings staff must see on a stage, e.g. seeded from standings that a fair-play ruling changed."""
    entries = uow.audit.entries(entity="stage", entity_id=stage_id, action_prefix="stage.seeding_affected")
    return [entry.reason or "The standings this stage was seeded from have changed." for entry in entries]
