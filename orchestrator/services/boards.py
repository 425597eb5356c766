"""Boards as several services write and read them: the bulk compare-and-set and what scoring reads.

A shared leaf (docs/architecture.md): results, lineups and the game-server pairing all write many boards
in one statement, and a board changed by someone else since it was read is a ``StaleEdit`` the same way
for each (docs/rules.md §6).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from orchestrator.adapters.tables import AuditLog, Board, ResultSource
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.scoring import GameResult
from orchestrator.errors import CurrentValue, StaleEdit


class ScoredBoard(Protocol):
    """What scoring reads of a board: an ORM ``Board`` or a plain ``BoardScore`` row."""

    @property
    def result(self) -> str: ...
    @property
    def white_player_id(self) -> int | None: ...
    @property
    def black_player_id(self) -> int | None: ...


class ForfeitableMatch(Protocol):
    """What scoring reads of a match: an ORM ``Match`` or a plain ``MatchScore`` row."""

    @property
    def forfeit(self) -> str: ...


HELD_PUBLIC_TEXT = "held by the arbiter"  # all spectators learn of a held result (never its reason)


def is_held(board: Board) -> bool:
    """A game-server result held for an arbiter: the ingestion leaves such a board without a result but
    with the server as its source (services/gameserver/ingestion.py); a staff entry or a final result
    ends it."""
    return board.result == GameResult.PENDING.value and board.result_source == ResultSource.SERVER.value


def held_reason(row: AuditLog | None) -> str:
    """A held board's reason for staff, from its latest ``board.result.held`` audit row: the ingestion's
    words and the result the server proposed."""
    reason = (row.reason if row else None) or ""
    proposed = (row.new or {}).get("proposed") if row else None
    text = reason.removeprefix("game server: ") or "held for an arbiter (no reason recorded)"
    return f"{text}; the server proposed {proposed}" if proposed else text


def board_current_value(board: Board) -> CurrentValue:
    """What a stale edit reports about ``board``: its stored result, version and last change."""
    return CurrentValue(
        entity="board",
        entity_id=board.id or 0,
        field="result",
        value=board.result,
        version=board.version,
        changed_by=board.updated_by,
        changed_at=board.updated_at,
    )


def update_boards_or_stale(uow: UnitOfWork, changes: Sequence[Mapping[str, object]]) -> None:
    """Many boards changed in one compare-and-set statement (each version bumped), or none at all.

    Each change has ``b_id``, ``b_version`` and the new column values (the same columns in every change).
    A board changed by someone else since it was read makes the whole call fail with ``StaleEdit`` naming
    who changed it (the unit of work rolls back), as the one-board update does.
    """
    written = uow.boards.update_boards_versioned(changes)
    if written == len(changes):
        return
    # The boards whose version matched were written by the statement: they are not what went wrong
    # (and the rollback undoes them). The others were changed by someone else since they were read.
    current: list[CurrentValue] = []
    for change in changes:
        board = uow.boards.get_or_raise(Board, int(str(change["b_id"])))
        uow.refresh(board)
        ours = board.version == int(str(change["b_version"])) + 1 and _same_stamp(board, change)
        if not ours:
            current.append(board_current_value(board))
    raise StaleEdit(current)


def _same_stamp(board: Board, change: Mapping[str, object]) -> bool:
    """The board holds the writer and time ``change`` stamped (both times are aware UTC)."""
    return board.updated_by == change.get("updated_by") and board.updated_at == change.get("updated_at")
