"""Rounds that run themselves on the game server (docs/rules.md §8): create games, pull results, close,
advance.

The use cases below are what the Celery tasks (workers/tasks.py, via orchestrator/jobs/bodies.py) call:

- ``open_due_rounds``: scheduled rounds of running stages that start within ``gameserver_pair_lead_s``
  get a ``rounds.create_games`` job each;
- ``create_round_games``: one bulk pairing per round with the players' tokens and the round's clock from
  the event file, ``pairAt`` = the round's start and ``startClocksAt`` ``gameserver_clock_delay_s``
  later; the game ids go on the boards. The round row is locked for the whole call and the organiser's
  scheduled bulks are searched before creating one (``bulk_matches``/``ensure_bulk``), so a retried or
  redelivered task never pairs a round twice;
- ``pull_round_results``: export the round's open games by id (300 per call), map them (``map_game``)
  and ingest them (services/gameserver/ingestion.py), then settle the round;
- ``reconcile_open_games``: the periodic catch-up (docs/architecture.md, habit 6): pull every open round
again and
  advance stages whose rounds are all finished;
- ``advance_stage``: close a pool stage through the results slice's ``close_stage`` once every result is
  final, no appeal is open and the appeal windows have passed.

Game-server failures never escape as exceptions: the use case records what happened and returns
``retry_in`` (seconds, from the Lichess ``RetryPolicy`` times ``Settings.gameserver_retry_scale``) so the
task can retry with a countdown after the unit of work has committed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from pydantic import SecretStr

from orchestrator.adapters.lichess import (
    Bulk,
    BulkRejected,
    BulkSpec,
    GameServerError,
    LichessClient,
    Pairing,
    PlayerLink,
    RateLimited,
    RetryPolicy,
    TransientError,
    next_retry_delay,
)
from orchestrator.adapters.lichess_bulk import bulk_matches, ensure_bulk
from orchestrator.adapters.repo_boards import BoardInMatch, RoundBoard
from orchestrator.adapters.tables import (
    OPEN_ROUND_STATUSES,
    POOL_KINDS,
    BulkStatus,
    GameserverBulk,
    LinkStatus,
    MatchStatus,
    Round,
    RoundStatus,
    Stage,
    StageKind,
    StageStatus,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.domain.gameresults import map_game
from orchestrator.domain.scoring import GameResult, MatchForfeit
from orchestrator.errors import Conflict
from orchestrator.services import live
from orchestrator.services.boards import update_boards_or_stale
from orchestrator.services.definitions import DefinitionUnavailable, event_definition
from orchestrator.services.gameserver.ingestion import GameUpdate, IngestReport, ingest_games
from orchestrator.services.gameserver.player_links import decrypt_token, mark_refused
from orchestrator.services.playoff.armageddon_game import armageddon_pairing, set_armageddon_game
from orchestrator.services.playoff.commands import duels_waiting_for_round, rounds_waiting_for_duels
from orchestrator.services.playoff.storage import ARMAGEDDON_LEG, ARMAGEDDON_ROUND_BASE
from orchestrator.services.playoff.sync import settle_stage_bracket
from orchestrator.services.queue import ADVANCE_STAGE, CREATE_GAMES, PLAYOFF_TICK, PULL_ROUND, enqueue
from orchestrator.services.results.standings import close_stage, event_rules, mark_stage_closed
from orchestrator.services.swiss.auto import auto_publishes, next_round_ready
from orchestrator.services.teams.lineups import apply_lineups

log = logging.getLogger(__name__)

# One attempt per task run: every retry is a task countdown, so no wait ever holds the round's row lock.
SINGLE_ATTEMPT = RetryPolicy(max_attempts=1)


def retry_delay(attempt: int, error: BaseException, settings: Settings) -> float | None:
    """Seconds before attempt ``attempt + 1`` (Lichess RetryPolicy × gameserver_retry_scale); None = stop."""
    delay = next_retry_delay(attempt, error)
    return None if delay is None else delay * settings.gameserver_retry_scale


# ---------------------------------------------------------------- opening rounds


def open_due_rounds(uow: UnitOfWork, *, now: datetime, settings: Settings) -> list[int]:
    """Queue ``rounds.create_games`` for every round due within the pairing lead; returns their ids.

    A bracket round whose time has come while one of its duels still waits for a team (an Armageddon of
    the round before still being played) is left out: its games could not be paired, and the play-off's
    advance that completes its duels queues them (``jobs.bodies``' ``playoff.advance``), so beat does not
    send a job that can only answer "waiting" on every tick meanwhile."""
    due = uow.rounds.due_rounds(now, timedelta(seconds=settings.gameserver_pair_lead_s))
    waiting = rounds_waiting_for_duels(uow, due)
    ids = [rnd.id or 0 for rnd in due if (rnd.id or 0) not in waiting]
    for round_id in ids:
        enqueue(uow, CREATE_GAMES, round_id)
    return ids


@dataclass(frozen=True, slots=True)
class RoundGames:
    """What ``create_round_games`` did. ``status``: created, already, rejected, retry, failed, empty,
    waiting (a bracket round with a duel still missing a team), manual (Armageddon, equal clocks only),
    busy (another run is pairing the round at this moment)."""

    round_id: int
    status: str
    games: int = 0
    bulk_id: str | None = None
    error: str | None = None
    retry_in: float | None = None


def create_round_games(
    uow: UnitOfWork,
    *,
    round_id: int,
    client: LichessClient,
    settings: Settings,
    attempt: int = 1,
    actor: str,
    now: datetime | None = None,
) -> RoundGames:
    """Create the round's games with one bulk pairing and store their ids on the boards (idempotent)."""
    now = now or utcnow()
    if not uow.locks.try_job_lock(CREATE_GAMES, (round_id,)):
        # Another worker is pairing this round right now (beat queued it again meanwhile): leave it.
        return RoundGames(round_id, "busy")
    rnd = uow.locks.lock(Round, round_id)  # held until commit: concurrent runs wait, then see PAIRED
    if rnd.status != RoundStatus.SCHEDULED.value:
        return RoundGames(round_id, "already")
    armageddon = _armageddon_duel(uow, rnd)
    if (not_yet := _not_ready(uow, round_id, armageddon, settings)) is not None:
        return not_yet
    settled, to_pair = _boards_to_pair(uow, round_id, armageddon, actor)
    if not to_pair:
        if settled:
            _mark_paired(uow, rnd, actor=actor, detail={"games": 0})
            settle_round(uow, round_id=round_id, actor=actor, now=now)  # e.g. every board forfeited
            return RoundGames(round_id, "already")
        return RoundGames(round_id, "empty", error="the round has no boards with two players")
    record = uow.rounds.bulk_of_round(round_id)
    first_request = False
    if record is None or record.status in (BulkStatus.CREATED.value, BulkStatus.CANCELLED.value):
        # Committed before anything is sent (PostgreSQL): a later run that finds it pending knows a request
        # may have gone out. On SQLite it is written with the rest, and the look-ups stay (``_send_bulk``).
        committed = uow.rounds.committed_bulk_record(round_id)
        first_request = committed is not None
        record = committed or uow.rounds.insert(GameserverBulk(round_id=round_id))
    pairings, missing = _pairings(uow, to_pair, settings)
    if missing:
        names = "; ".join(missing)
        error = f"games not created: these players must link their game-server account: {names}"
        _record_bulk(uow, record, BulkStatus.REJECTED, error, now)
        live.announce(uow, f"stage:{rnd.stage_id}", kind="round", round_id=round_id)
        return RoundGames(round_id, "rejected", error=error)
    if armageddon is not None and rnd.scheduled_at is None:
        # Paired a little in the future so that a lost answer can still be found in the bulk list.
        rnd.scheduled_at = now + timedelta(seconds=settings.gameserver_clock_delay_s)
        uow.rounds.insert(rnd)
    spec = _bulk_spec(rnd, _round_clock(uow, rnd, settings), settings, now)
    if armageddon is not None:
        spec = _armageddon_spec(uow, armageddon, spec)
    bulk = _send_bulk(
        uow,
        client,
        rnd,
        record,
        pairings,
        spec,
        settings=settings,
        attempt=attempt,
        actor=actor,
        now=now,
        first_request=first_request,
    )
    if isinstance(bulk, RoundGames):
        return bulk
    by_pair = {(g.white.lower(), g.black.lower()): g.id for g in bulk.games}
    base = settings.gameserver_url.rstrip("/")
    if armageddon is not None:
        return _store_armageddon_game(
            uow, rnd, record, bulk, by_pair, pairings, armageddon, base, actor, now, settings
        )
    stored = _store_game_ids(uow, to_pair, pairings, by_pair, base=base, actor=actor, now=now)
    record.bulk_id = bulk.id
    _record_bulk(uow, record, BulkStatus.CREATED, None, now)
    _mark_paired(uow, rnd, actor=actor, detail={"games": stored, "bulk_id": bulk.id})
    pull_again(uow, round_id, settings)
    return RoundGames(round_id, "created", games=stored, bulk_id=bulk.id)


def _not_ready(
    uow: UnitOfWork, round_id: int, armageddon: int | None, settings: Settings
) -> RoundGames | None:
    """Why the round cannot be paired by us now (an Armageddon by hand, a duel missing a team), or None."""
    if armageddon is not None:
        if not settings.gameserver_unequal_clocks:
            # Lichess cannot give White 5 min and Black 4: the arbiter creates the game and gives its id.
            return RoundGames(round_id, "manual", error="the arbiter creates the Armageddon game by hand")
        return None
    waiting = duels_waiting_for_round(uow, round_id=round_id)
    if waiting:
        # A bracket round is paired once all its duels are known (the beat tries again meanwhile).
        return RoundGames(round_id, "waiting", error=f"duels {', '.join(waiting)} wait for a team")
    return None


def _boards_to_pair(
    uow: UnitOfWork, round_id: int, armageddon: int | None, actor: str
) -> tuple[bool, list[BoardInMatch]]:
    """Whether every board of the round is settled (a game, a result, or a match forfeited whole), and the
    boards that still need a game (with the lineups applied first)."""
    rows = uow.boards.boards_of_round(round_id)
    # A match forfeited whole (a no-show, a withdrawal: docs/rules.md §2, §6) is decided: no game.
    forfeited = {m.id for m in uow.rounds.matches_of_round(round_id) if m.forfeit != MatchForfeit.NONE.value}
    if armageddon is None:
        # Submitted lineups (and short-handed forfeits) go on the boards before the games are paired.
        by_match: dict[int, list[RoundBoard]] = {}
        for row in rows:
            by_match.setdefault(row.match_id, []).append(row.board)
        if apply_lineups(uow, round_id=round_id, actor=actor, round_boards=by_match):
            rows = uow.boards.boards_of_round(round_id)  # read again with what changed
    settled = bool(rows) and all(
        r.match_id in forfeited or r.board.game_id or GameResult(r.board.result).is_final for r in rows
    )
    to_pair = [
        r
        for r in rows
        if r.match_id not in forfeited
        and r.board.game_id is None
        and r.board.white_player_id
        and r.board.black_player_id
        and r.board.result == GameResult.PENDING.value  # a forfeit board gets no game
    ]
    return settled, to_pair


def _send_bulk(
    uow: UnitOfWork,
    client: LichessClient,
    rnd: Round,
    record: GameserverBulk,
    pairings: list[Pairing],
    spec: BulkSpec,
    *,
    settings: Settings,
    attempt: int,
    actor: str,
    now: datetime,
    first_request: bool = False,
) -> Bulk | RoundGames:
    """The bulk that holds the round's games (found again or created now), or what became of the round
    when the game server refused or failed.

    ``first_request``: ``record`` was committed by this run before anything was sent, and no run before it
    left a pending or failed record: no earlier request for these pairings can exist, so the bulk is
    created without first reading the organiser's list and the players' games (two requests fewer before
    every round's games; docs/gameserver.md, "One bulk per round: the record before the request")."""
    round_id = rnd.id or 0
    try:
        if first_request:
            return ensure_bulk(client, pairings, spec, policy=SINGLE_ATTEMPT)
        # After a failed attempt the lost request may still have been carried out (even after the bulk
        # left the list): ensure_bulk then looks for its games since that attempt. A late round (no pairAt)
        # is paired at once, so a bulk an earlier run sent without committing (a worker killed) has left
        # the list too: its games are looked for since the round fell due.
        earlier = record.created_at if record.status == BulkStatus.FAILED.value else None
        if spec.pair_at is None and rnd.scheduled_at is not None:
            due = rnd.scheduled_at - timedelta(seconds=settings.gameserver_pair_lead_s)
            earlier = due if earlier is None else min(earlier, due)
        listed = client.list_bulks()  # read once: the round is locked, nobody else pairs it meanwhile
        return _find_bulk(listed, pairings, spec) or ensure_bulk(
            client,
            pairings,
            spec,
            policy=SINGLE_ATTEMPT,
            earlier_since=earlier,
            known=lambda game_id: uow.boards.get_by_game_id(game_id) is not None,
            listing=listed,
        )
    except BulkRejected as error:
        message = str(error)  # names players, never tokens (the client scrubs them)
        _record_bulk(uow, record, BulkStatus.REJECTED, message, now)
        if error.error == "tokens":
            mark_refused(
                uow,
                player_ids=[int(p.player_id) for p in error.players],
                reason=f"round {rnd.number}: {message}",
                actor=actor,
            )
        live.announce(uow, f"stage:{rnd.stage_id}", kind="round", round_id=round_id)
        return RoundGames(round_id, "rejected", error=message)
    except (RateLimited, TransientError) as error:
        delay = retry_delay(attempt, error, settings)
        status = "retry" if delay is not None else "failed"
        suffix = f"; trying again in {delay:.0f} s" if delay is not None else "; giving up for now"
        _record_bulk(uow, record, BulkStatus.FAILED, f"game server unavailable: {error}{suffix}", now)
        return RoundGames(round_id, status, error=str(error), retry_in=delay)
    except GameServerError as error:
        _record_bulk(uow, record, BulkStatus.FAILED, f"game server refused: {error}", now)
        return RoundGames(round_id, "failed", error=str(error))


def _store_game_ids(
    uow: UnitOfWork,
    to_pair: list[BoardInMatch],
    pairings: list[Pairing],
    by_pair: dict[tuple[str, str], str],
    *,
    base: str,
    actor: str,
    now: datetime,
) -> int:
    """Put each created game's id and address on its board, in one statement; how many were stored."""
    changes: list[dict[str, object]] = []
    for row, pairing in zip(to_pair, pairings, strict=True):
        game_id = by_pair.get((pairing.white.account.lower(), pairing.black.account.lower()))
        if game_id is None:
            continue
        changes.append(
            {
                "b_id": row.board.id or 0,
                "b_version": row.board.version,
                "game_id": game_id,
                "game_url": f"{base}/{game_id}",
                "game_status": "created",
                "updated_by": actor,
                "updated_at": now,
            }
        )
    update_boards_or_stale(uow, changes)
    return len(changes)


def _armageddon_duel(uow: UnitOfWork, rnd: Round) -> int | None:
    """The duel whose Armageddon game this round holds (a knockout round numbered 1000 + duel id)."""
    if rnd.number < ARMAGEDDON_ROUND_BASE:
        return None
    for match in uow.rounds.matches_of_round(rnd.id or 0):
        if match.leg == ARMAGEDDON_LEG and match.duel_id is not None:
            return match.duel_id
    return None


def _armageddon_spec(uow: UnitOfWork, duel_id: int, round_spec: BulkSpec) -> BulkSpec:
    """The event's Armageddon clocks (White 5 min, Black 4 min) at the round's pairAt and startClocksAt."""
    spec = armageddon_pairing(uow, duel_id=duel_id).spec
    return replace(spec, pair_at=round_spec.pair_at, start_clocks_at=round_spec.start_clocks_at)


def _store_armageddon_game(
    uow: UnitOfWork,
    rnd: Round,
    record: GameserverBulk,
    bulk: Bulk,
    by_pair: dict[tuple[str, str], str],
    pairings: Sequence[Pairing],
    duel_id: int,
    base: str,
    actor: str,
    now: datetime,
    settings: Settings,
) -> RoundGames:
    pairing = pairings[0]
    game_id = by_pair.get((pairing.white.account.lower(), pairing.black.account.lower()))
    record.bulk_id = bulk.id
    if game_id is None:
        _record_bulk(uow, record, BulkStatus.FAILED, "the game server paired no Armageddon game", now)
        return RoundGames(rnd.id or 0, "failed", error="no Armageddon game in the bulk")
    _record_bulk(uow, record, BulkStatus.CREATED, None, now)
    set_armageddon_game(uow, duel_id=duel_id, game_ref=f"{base}/{game_id}", actor=actor)
    _mark_paired(uow, rnd, actor=actor, detail={"games": 1, "bulk_id": bulk.id, "armageddon": duel_id})
    pull_again(uow, rnd.id or 0, settings)
    return RoundGames(rnd.id or 0, "created", games=1, bulk_id=bulk.id)


def _pairings(
    uow: UnitOfWork, rows: Sequence[BoardInMatch], settings: Settings
) -> tuple[list[Pairing], list[str]]:
    """Pairings in board order, and the players who cannot be paired (no usable link)."""
    player_ids = [pid for r in rows for pid in (r.board.white_player_id, r.board.black_player_id) if pid]
    accounts = uow.teams.pairing_accounts(player_ids)
    pairings: list[Pairing] = []
    missing: list[str] = []
    for row in rows:
        sides: list[PlayerLink] = []
        for pid in (row.board.white_player_id or 0, row.board.black_player_id or 0):
            player = accounts[pid]
            if player.link_status != LinkStatus.LINKED.value or not player.token_encrypted:
                missing.append(f"{player.name} ({player.account}, link {player.link_status})")
                continue
            token: SecretStr = decrypt_token(settings, player.token_encrypted)
            sides.append(PlayerLink(str(pid), player.linked_account or player.account, token))
        if len(sides) == 2:
            pairings.append(Pairing(sides[0], sides[1]))
    return pairings, missing


def _round_clock(uow: UnitOfWork, rnd: Round, settings: Settings) -> tuple[int, int]:
    """The round's clock (limit, increment, in seconds) from the event file: the round's own, else its
    stage's, else the event's ``time_control`` (docs/event-file.md). The settings' clock is the fallback
    for an event without a usable file only."""
    stage = uow.events.get_or_raise(Stage, rnd.stage_id)
    try:
        clock = event_definition(uow, stage.event_id).time_control_of(stage.key, rnd.number)
    except DefinitionUnavailable:
        return settings.gameserver_clock_limit_s, settings.gameserver_clock_increment_s
    return clock.single_period  # one period only: docs/gameserver.md, "Clocks with several periods"


def _bulk_spec(rnd: Round, clock: tuple[int, int], settings: Settings, now: datetime) -> BulkSpec:
    # pairAt in the future keeps a bulk listed until it is paired, so a lost answer can be found again;
    # a late round is paired at once (no pairAt) and then matched on its players alone.
    start = rnd.scheduled_at if rnd.scheduled_at is not None and rnd.scheduled_at > now else None
    clocks = (start or now) + timedelta(seconds=settings.gameserver_clock_delay_s)
    return BulkSpec(
        clock_limit_s=clock[0],
        clock_increment_s=clock[1],
        pair_at=start,
        start_clocks_at=clocks,
        rules=("noAbort",),
    )


def _find_bulk(listed: Sequence[Bulk], pairings: Sequence[Pairing], spec: BulkSpec) -> Bulk | None:
    """The organiser's scheduled bulk (of ``listed``, their list) for exactly these pairings, if an
    earlier run created it."""
    pair_at = int(spec.pair_at.timestamp() * 1000) if isinstance(spec.pair_at, datetime) else spec.pair_at
    for bulk in listed:
        if bulk_matches(bulk, pairings, pair_at):
            log.info("round bulk %s already exists: reusing it", bulk.id)
            return bulk
    return None


def _record_bulk(
    uow: UnitOfWork, record: GameserverBulk, status: BulkStatus, error: str | None, now: datetime
) -> None:
    record.status = status.value
    record.error = error
    record.updated_at = now
    uow.rounds.insert(record)


def _mark_paired(uow: UnitOfWork, rnd: Round, *, actor: str, detail: dict[str, object]) -> None:
    rnd.status = RoundStatus.PAIRED.value
    uow.rounds.insert(rnd)
    uow.rounds.start_matches(rnd.id or 0)
    stage = uow.events.get_or_raise(Stage, rnd.stage_id)
    uow.audit.change(rnd, "round.games_created", actor=actor, event_id=stage.event_id, new=detail)
    live.announce(uow, f"stage:{rnd.stage_id}", kind="round", round_id=rnd.id)


# ---------------------------------------------------------------- pulling results


@dataclass(slots=True)
class PullOutcome:
    round_id: int
    asked: int = 0
    report: IngestReport = field(default_factory=IngestReport)
    missing: list[str] = field(default_factory=list)
    retry_in: float | None = None
    error: str | None = None
    stage_id: int | None = None  # the round's stage, once read
    along: list[int] = field(default_factory=list)  # the stage's other open rounds pulled with it
    finished: list[int] = field(default_factory=list)  # every round this pull finished, its own included

    @property
    def round_finished(self) -> bool:
        """Whether this pull finished its own round."""
        return self.round_id in self.finished


def pull_round_results(
    uow: UnitOfWork,
    *,
    round_id: int,
    client: LichessClient,
    settings: Settings,
    attempt: int = 1,
    actor: str,
    now: datetime | None = None,
) -> PullOutcome:
    """Export the round's open games, ingest them, and settle the round (idempotent).

    The stage's other open rounds are taken along (docs/workers.md, "Pulling and ingesting results"):
    their open games go in the same export and ingestion, and each is settled, so rounds whose games
    exist together (a pool stage's rounds in a fast demo, a late game of an earlier round, a duel's two
    legs) cost one pull, not one each waiting for the other's pool locks. A round another worker is
    pulling at that moment is left to it, and a run that finds its own round being pulled comes back
    ``round_pull_s`` later: each round keeps one chain of pulls."""
    began = utcnow()  # the dashboard's "last pull" and the turnaround (bench/whole_event.py) start here
    outcome = PullOutcome(round_id)
    if not uow.locks.try_job_lock(PULL_ROUND, (round_id,)):
        # Another run is pulling this round now (its own copy, or a pull of its stage that took it along):
        # this one comes back for its next pull, so that the round's chain of pulls goes on.
        pull_again(uow, round_id, settings)
        return outcome
    rnd = uow.rounds.get_or_raise(Round, round_id)
    if rnd.status not in OPEN_ROUND_STATUSES:
        return outcome
    outcome.stage_id = rnd.stage_id
    open_ids = uow.boards.open_game_ids_of_stage(rnd.stage_id)
    outcome.along = [
        other
        for other in sorted(open_ids)
        if other != round_id and uow.locks.try_job_lock(PULL_ROUND, (other,))
    ]
    pulled = sorted([round_id, *outcome.along])
    ids = [game_id for pulled_round in pulled for game_id in open_ids.get(pulled_round, [])]
    outcome.asked = len(ids)
    if ids:
        try:
            export = client.export_games(ids, pgn_in_json=True)
        except (RateLimited, TransientError) as error:
            outcome.error = str(error)
            outcome.retry_in = retry_delay(attempt, error, settings)
            return outcome
        except GameServerError as error:
            outcome.error = str(error)
            log.warning("round %s: export refused: %s", round_id, error)
            return outcome
        outcome.missing = list(export.missing)
        # One ingestion for the whole export (its locks, reads, board update and audit once, not once per
        # 300 games as the export is fetched: a Swiss round of 95 matches has 380).
        updates = [GameUpdate(str(g["id"]), map_game(g), _pgn(g)) for g in export.games]
        outcome.report.merge(ingest_games(uow, games=updates, actor=actor))
        # Written after the ingestion's pool locks, never before: pool, then round (results._lock); the
        # rounds in id order.
        for pulled_round in pulled:
            if open_ids.get(pulled_round):
                held = uow.locks.lock(Round, pulled_round)
                held.last_pull_at = now or began  # the staff dashboard's "last pull" age
                uow.rounds.insert(held)
        if export.missing or export.skipped:
            # Unreadable or absent lines: ask again soon for those ids (they were not ingested).
            outcome.retry_in = retry_delay(attempt, TransientError("export incomplete"), settings)
    # A round taken along is settled here; its next pull, if it needs one, is its own (already queued, or
    # queued again by its own run that found this one at work): one chain of pulls a round, never more.
    outcome.finished = [r for r in pulled if settle_round(uow, round_id=r, actor=actor, now=now)]
    if not outcome.round_finished and outcome.retry_in is None and outcome.error is None:
        pull_again(uow, round_id, settings)  # a retry or a refusal waits for its own countdown or beat
    return outcome


def pull_again(uow: UnitOfWork, round_id: int, settings: Settings) -> None:
    """Queue the round's next pull ``round_pull_s`` from now (none when 0: beat's reconcile pulls)."""
    if settings.round_pull_s > 0:
        enqueue(uow, PULL_ROUND, round_id, countdown=settings.round_pull_s)


def _pgn(game: dict[str, object]) -> str | None:
    pgn = game.get("pgn")
    return pgn if isinstance(pgn, str) else None


def settle_round(uow: UnitOfWork, *, round_id: int, actor: str, now: datetime | None = None) -> bool:
    """Finish matches whose boards are all final; close the round when every match is; True if closed."""
    now = now or utcnow()
    rnd = uow.locks.lock(Round, round_id)
    if rnd.status == RoundStatus.FINISHED.value:
        return True
    progress = uow.rounds.match_progress(round_id)  # counts per match, no board loaded
    all_done = bool(progress)
    finished: list[int] = []
    for match in progress:
        complete = MatchForfeit(match.forfeit) is not MatchForfeit.NONE or (
            match.boards > 0 and match.final == match.boards
        )
        if not complete:
            all_done = False
            continue
        if match.status != MatchStatus.FINISHED.value:
            finished.append(match.match_id)
    if not all_done and rnd.status == RoundStatus.PAIRED.value and any(m.started for m in progress):
        rnd.status = RoundStatus.PLAYING.value
        uow.rounds.insert(rnd)
    live.announce_matches(uow, finished, kind="finished")
    uow.rounds.finish_matches(finished, now)  # one statement for the round
    if not all_done:
        return False
    rnd.status = RoundStatus.FINISHED.value
    uow.rounds.insert(rnd)
    stage = uow.events.get_or_raise(Stage, rnd.stage_id)
    uow.audit.change(rnd, "round.close", actor=actor, event_id=stage.event_id)
    live.announce(uow, f"stage:{rnd.stage_id}", kind="round-finished", round_id=rnd.id)
    enqueue(uow, ADVANCE_STAGE, rnd.stage_id)
    return True


# ---------------------------------------------------------------- reconciling and advancing


@dataclass(frozen=True, slots=True)
class Reconciled:
    pulled_rounds: tuple[int, ...]
    stages_to_advance: tuple[int, ...]


def reconcile_open_games(uow: UnitOfWork, *, now: datetime, settings: Settings) -> Reconciled:
    """Queue a pull for every round with open games and an advance for every stage that may close."""
    rounds = tuple(rnd.id or 0 for rnd in uow.rounds.open_rounds())
    for round_id in rounds:
        enqueue(uow, PULL_ROUND, round_id)
    stages: list[int] = []
    for stage in uow.events.running_stages():
        if stage.kind not in POOL_KINDS:
            continue
        stage_rounds = list(uow.rounds.rounds_of_stage(stage.id or 0))
        if stage_rounds and all(r.status == RoundStatus.FINISHED.value for r in stage_rounds):
            stages.append(stage.id or 0)
            enqueue(uow, ADVANCE_STAGE, stage.id or 0)
        elif next_round_ready(stage_rounds) is not None and auto_publishes(uow, stage):
            # The safety net of event-driven rounds: a lost stages.advance would leave the round unpaired.
            stages.append(stage.id or 0)
            enqueue(uow, ADVANCE_STAGE, stage.id or 0)
    return Reconciled(rounds, tuple(stages))


def advance_stage(uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None) -> bool:
    """Close a running stage when nothing stands in the way; True when it was closed now.

    A pool stage closes through the results slice's ``close_stage`` (every result final, no open appeal,
    appeal windows over); the next knockout stage's bracket is then built when every earlier stage is
    closed (a ``playoff.tick`` job, ``Settings.auto_build_bracket``). A knockout stage first advances its
    bracket, and closes once
    its final is decided (champions recorded in the audit) and the final's appeal window has passed.
    """
    now = now or utcnow()
    stage = uow.locks.lock(Stage, stage_id)  # one closer at a time
    if stage.status != StageStatus.RUNNING.value:
        return False
    if stage.kind == StageKind.KNOCKOUT.value:
        return _close_knockout(uow, stage, actor=actor, now=now)
    if uow.rounds.stage_has_open_results(stage_id):
        # One aggregate query: a board without a result or an open appeal. The full check below lists
        # every problem, so it runs only when the stage may close.
        log.info("stage %s not closed yet: results or appeals still open", stage_id)
        return False
    try:  # close_stage lists every problem (appeal windows...) under the pool locks, and changes nothing then
        closed = close_stage(uow, stage_id=stage_id, actor=actor, now=now)
    except Conflict as error:
        log.info("stage %s not closed yet: %s", stage_id, error)
        return False
    if closed.refusal is not None:  # tie-break lots committed now: a later tick draws them and closes
        log.info("stage %s not closed yet: %s", stage_id, closed.refusal.message)
        return False
    enqueue(uow, PLAYOFF_TICK)  # after the commit: the next knockout stage's bracket may be due
    return True


def _close_knockout(uow: UnitOfWork, stage: Stage, *, actor: str, now: datetime) -> bool:
    stage_id = stage.id or 0
    # The bracket advanced, then its champions: none before it is built or while the final is open (two
    # queries of plain rows when nothing changed since an earlier close found nothing to do).
    champions = settle_stage_bracket(uow, stage_id=stage_id, actor=actor, now=now)
    if not champions:
        return False
    event, _stage = uow.events.event_and_stage(stage_id)
    window = timedelta(minutes=event_rules(event).appeal_window_minutes)
    last = uow.rounds.latest_match_finish(stage_id)
    if last is not None and last + window > now:
        log.info("stage %s: the final's appeal window is open until %s", stage_id, last + window)
        return False
    uow.audit.change(
        stage, "stage.close", actor=actor, event_id=stage.event_id, new={"champions": list(champions)}
    )
    mark_stage_closed(uow, stage, actor=actor, now=now)  # the event closes with its last stage
    live.announce(uow, f"stage:{stage_id}", kind="stage-closed", stage_id=stage_id)
    live.announce(uow, f"event:{event.slug}", kind="stage-closed", stage_id=stage_id)
    return True
