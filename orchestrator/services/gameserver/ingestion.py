"""Game-server results into boards: idempotent, serialized per pool, never over an arbiter
(docs/architecture.md, habit 6).

``ingest_games`` takes mapped games (``orchestrator.domain.gameresults.map_game``) and, in the caller's unit
of work:

- loads the boards by game id in one query, then locks their pools and duels (ascending ids, so two
  workers never deadlock) and reads the boards again under the locks;
- leaves a board alone when an arbiter entered its result (docs/rules.md §6) or when nothing changes: the same
  final result ingested again writes nothing, bumps no version and adds no audit row;
- leaves a board alone when the line is older than what the board holds: a game's status only moves on
  (created, started, over), so a line of a game in progress read before a pull that stored its end
  (two pulls of one round overlapping) never takes back the ended game's status or its full PGN;
- holds a result that needs an arbiter (cheat, aborted, inconsistent data): the board stays ``*``, its
  ``game_status`` names the reason, and one ``board.result.held`` audit row says what the server proposed;
- writes every change with one compare-and-set statement (executemany) and the audit rows in one batch;
- after the commit announces the matches and pools and queues ``standings.recompute_pool`` for each pool
  whose results changed, and ``playoff.advance`` for each knockout stage whose duels' results changed.

A result is a board's state, never an increment, so a game ingested twice is never counted twice.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from orchestrator.adapters.repo_boards import GameBoard
from orchestrator.adapters.tables import Duel, ResultSource
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.gameresults import MappedResult
from orchestrator.domain.scoring import GameResult
from orchestrator.errors import Conflict
from orchestrator.services import live
from orchestrator.services.queue import PLAYOFF_ADVANCE, RECOMPUTE_POOL, enqueue
from orchestrator.services.results.results import may_server_overwrite
from orchestrator.translation import ngettext

log = logging.getLogger(__name__)

WORKER = "worker"


@dataclass(frozen=True, slots=True)
class GameUpdate:
    """One game as read from the game server."""

    game_id: str
    mapped: MappedResult
    pgn: str | None = None


@dataclass(slots=True)
class IngestReport:
    """What one ingestion did; ``changed``/``held`` are board ids."""

    changed: list[int] = field(default_factory=list)
    held: list[int] = field(default_factory=list)
    progressed: list[int] = field(default_factory=list)  # status only (e.g. created -> started)
    unchanged: int = 0
    stale: list[int] = field(default_factory=list)  # lines older than the board's status: left alone
    kept_arbiter: list[int] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # game ids that are on no board
    pool_ids: set[int] = field(default_factory=set)
    match_ids: set[int] = field(default_factory=set)
    round_ids: set[int] = field(default_factory=set)
    duel_ids: set[int] = field(default_factory=set)  # duels whose results changed (play-off)

    def merge(self, other: IngestReport) -> None:
        self.changed += other.changed
        self.held += other.held
        self.progressed += other.progressed
        self.unchanged += other.unchanged
        self.stale += other.stale
        self.kept_arbiter += other.kept_arbiter
        self.unknown += other.unknown
        self.pool_ids |= other.pool_ids
        self.match_ids |= other.match_ids
        self.round_ids |= other.round_ids
        self.duel_ids |= other.duel_ids


def ingest_game(
    uow: UnitOfWork, *, game_id: str, mapped: MappedResult, pgn: str | None = None, actor: str = WORKER
) -> IngestReport:
    """Ingest one game (see ``ingest_games``)."""
    return ingest_games(uow, games=[GameUpdate(game_id, mapped, pgn)], actor=actor)


def ingest_games(uow: UnitOfWork, *, games: Sequence[GameUpdate], actor: str = WORKER) -> IngestReport:
    """Ingest a batch of games in the caller's unit of work (one statement for all board changes)."""
    report = IngestReport()
    latest = {game.game_id: game for game in games}  # the last line for a game id wins
    if not latest:
        return report
    # Lock first (pools, then duels, each in id order), then read the boards under the locks.
    pool_ids, duel_ids = uow.boards.pools_and_duels_of_games(latest)
    uow.locks.lock_pools(pool_ids)
    for duel_id in duel_ids:
        uow.locks.lock_duel(duel_id)
    rows = uow.boards.boards_by_game_ids(latest)
    now = utcnow()
    changes: list[dict[str, Any]] = []
    audits: list[dict[str, Any]] = []
    for game_id, game in latest.items():
        row = rows.get(game_id)
        if row is None:
            report.unknown.append(game_id)
            continue
        _decide(row, game, now, actor, report, changes, audits)
    if changes:
        written = uow.boards.update_boards_versioned(changes)
        if written != len(changes):
            # Someone changed a board without the pool lock: roll back, the next pull sees the new state.
            changed = len(changes) - written
            raise Conflict(
                ngettext(
                    "%(num)d board changed during ingestion; try again",
                    "%(num)d boards changed during ingestion; try again",
                    changed,
                )
                % {"num": changed}
            )
        uow.audit.add_rows(audits)
    _announce(uow, report)
    return report


def _decide(
    row: GameBoard,
    game: GameUpdate,
    now: datetime,
    actor: str,
    report: IngestReport,
    changes: list[dict[str, Any]],
    audits: list[dict[str, Any]],
) -> None:
    board = row  # the board's own columns sit beside its match's on the plain row
    mapped = game.mapped
    if not may_server_overwrite(board) or row.stage_closed:
        # An arbiter's entry always wins (docs/rules.md §6); a closed stage changes only by staff corrections.
        report.kept_arbiter.append(board.id or 0)
        return
    old_result = board.result
    status = mapped.status or None
    if mapped.final:
        new_result = mapped.result.value
        kind = "changed"
    elif mapped.needs_arbiter:
        new_result = GameResult.PENDING.value
        kind = "held"
    else:
        new_result = old_result  # still playing; a poll never takes a result back
        kind = "progressed"
        if _progress(status) < _progress(board.game_status):
            report.stale.append(board.id or 0)  # e.g. "started" read before another pull stored the end
            return
    if new_result == old_result and status == board.game_status:
        report.unchanged += 1
        return
    changes.append(
        {
            "b_id": board.id,
            "b_version": board.version,
            "result": new_result,
            "result_source": ResultSource.SERVER.value if kind != "progressed" else board.result_source,
            "game_status": status,
            "pgn": game.pgn if game.pgn is not None else board.pgn,
            "updated_by": actor,
            "updated_at": now,
        }
    )
    getattr(report, kind).append(board.id or 0)
    if kind != "progressed":
        report.match_ids.add(row.match_id)
        report.round_ids.add(row.round_id)
        if row.pool_id is not None:
            report.pool_ids.add(row.pool_id)
        if row.duel_id is not None:
            report.duel_ids.add(row.duel_id)
        audits.append(
            {
                "at": now,
                "actor": actor,
                "action": "board.result" if kind == "changed" else "board.result.held",
                "entity": "board",
                "entity_id": board.id,
                "event_id": row.event_id,
                "old": {
                    "result": old_result,
                    "source": board.result_source,
                    "game_status": board.game_status,
                },
                "new": {
                    "result": new_result,
                    "source": ResultSource.SERVER.value,
                    "game_status": status,
                    "game_id": game.game_id,
                    **({"proposed": mapped.proposed.value} if mapped.proposed is not None else {}),
                },
                "reason": f"game server: {mapped.reason}",
            }
        )


_PROGRESS: dict[str | None, int] = {None: 0, "created": 1, "started": 2}  # any other status: over (3)


def _progress(status: str | None) -> int:
    """How far a game has gone by its status: none yet, created, started, over."""
    return _PROGRESS.get(status, 3)


def _announce(uow: UnitOfWork, report: IngestReport) -> None:
    live.announce_matches(uow, sorted(report.match_ids), kind="result")
    for pool_id in sorted(report.pool_ids):
        live.announce(uow, f"pool:{pool_id}", kind="result")
        enqueue(uow, RECOMPUTE_POOL, pool_id)
    stages = {uow.playoff.get_or_raise(Duel, duel_id).stage_id for duel_id in report.duel_ids}
    for stage_id in sorted(stages):
        live.announce(uow, f"stage:{stage_id}", kind="result")
        enqueue(uow, PLAYOFF_ADVANCE, stage_id)  # a duel's result changed: the bracket moves on
