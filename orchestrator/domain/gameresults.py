"""Reading a game-server game (Lichess JSON) into our result (docs/rules.md §8).

Pure: the export line or stream event is a plain mapping; nothing here does I/O. The result comes from
``winner`` (absent = draw or unfinished) read together with ``status``, never from the status alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from orchestrator.domain.scoring import GameResult

# scalachess Status ids, for stream events that carry the number (GameStreamGame.status).
STATUS_BY_ID: dict[int, str] = {
    10: "created",
    20: "started",
    25: "aborted",
    30: "mate",
    31: "resign",
    32: "stalemate",
    33: "timeout",
    34: "draw",
    35: "outoftime",
    36: "cheat",
    37: "noStart",
    38: "unknownFinish",
    39: "insufficientMaterialClaim",
    60: "variantEnd",
}
STATUS_ID: dict[str, int] = {name: number for number, name in STATUS_BY_ID.items()}

UNFINISHED = frozenset({"created", "started"})
# Statuses where a winner is required: mate, resign, flag/claim after leaving, variant end.
DECISIVE = frozenset({"mate", "resign", "timeout", "variantEnd"})
DRAWN = frozenset({"draw", "stalemate", "insufficientMaterialClaim"})


@dataclass(frozen=True, slots=True)
class MappedResult:
    """What one game-server game means for a board.

    ``result`` is PENDING unless ``final``. ``needs_arbiter`` flags games an arbiter must look at
    (aborted, cheat, inconsistent data); ``proposed`` then holds what the server's own fields say, if
    anything. ``game_over`` is True when the server will not change the game any more, so polling it
    can stop.
    """

    result: GameResult
    final: bool
    needs_arbiter: bool
    reason: str
    status: str = ""
    game_over: bool = False
    proposed: GameResult | None = None


def _pending(status: str, reason: str) -> MappedResult:
    return MappedResult(GameResult.PENDING, False, False, reason, status, False)


def _final(status: str, result: GameResult, reason: str) -> MappedResult:
    return MappedResult(result, True, False, reason, status, True)


def _arbiter(status: str, reason: str, proposed: GameResult | None = None) -> MappedResult:
    return MappedResult(GameResult.PENDING, False, True, reason, status, True, proposed)


def _winner_result(winner: object) -> GameResult | None:
    if winner == "white":
        return GameResult.WHITE_WINS
    if winner == "black":
        return GameResult.BLACK_WINS
    return None


def _plies(moves: object) -> int | None:
    if not isinstance(moves, str):
        return None
    return len(moves.split())


def status_name(game: Mapping[str, object]) -> str | None:
    """The status name of an export line (``status: "mate"``) or stream event (``status: 30``)."""
    name = game.get("statusName")
    if isinstance(name, str):
        return name
    status = game.get("status")
    if isinstance(status, str):
        return status
    if isinstance(status, int) and not isinstance(status, bool):
        return STATUS_BY_ID.get(status)
    return None


def map_status(
    status: str,
    winner: object = None,
    *,
    moves: object = None,
    no_start_as_forfeit: bool = True,
) -> MappedResult:
    """Our result for a game-server ``status`` and ``winner`` (docs/rules.md §8 mapping table,
    docs/gameserver.md)."""
    if winner is not None and winner not in ("white", "black"):
        return _arbiter(status, f"unreadable winner {winner!r} with status {status!r}")
    won = _winner_result(winner)
    if status in UNFINISHED:
        return _pending(status, "game not finished yet")
    if status == "aborted":
        return _arbiter(status, "game aborted before it counted: replay it or let an arbiter decide")
    if status == "cheat":
        return _arbiter(status, "game server reports a fair-play violation: result held for an arbiter", won)
    if status == "noStart":
        return _no_start(winner, moves, no_start_as_forfeit=no_start_as_forfeit)
    if status in DECISIVE:
        if won is None:
            return _arbiter(status, f"status {status} without a winner")
        return _final(status, won, status)
    if status == "outoftime":
        # A flag against a lone king (insufficient material) is a draw: the server sends no winner.
        if won is None:
            return _final(status, GameResult.DRAW, "outoftime against insufficient material")
        return _final(status, won, status)
    if status in DRAWN:
        if won is not None:
            return _arbiter(status, f"status {status} with a winner", won)
        return _final(status, GameResult.DRAW, status)
    if status == "unknownFinish":
        return _arbiter(status, "game server does not know how the game ended", won)
    return _arbiter(status, f"unknown status {status!r}", won)


def _no_start(winner: object, moves: object, *, no_start_as_forfeit: bool) -> MappedResult:
    """``noStart``: the player who did not make a first move loses (scalachess Status.NoStart)."""
    if winner in ("white", "black"):
        white_wins = winner == "white"
        reason = f"{'black' if white_wins else 'white'} did not make a first move"
    else:
        plies = _plies(moves)
        if plies is None or plies == 0:
            white_wins, reason = False, "white did not make a first move"
        elif plies == 1:
            white_wins, reason = True, "black did not make a first move"
        else:
            return _arbiter("noStart", f"noStart after {plies} moves and no winner")
    if no_start_as_forfeit:
        result = GameResult.WHITE_WINS_FORFEIT if white_wins else GameResult.BLACK_WINS_FORFEIT
    else:
        result = GameResult.WHITE_WINS if white_wins else GameResult.BLACK_WINS
    return _final("noStart", result, reason)


def map_game(game: Mapping[str, object], *, no_start_as_forfeit: bool = True) -> MappedResult:
    """Our result for one export line (GameJson) or stream event (GameStreamGame)."""
    name = status_name(game)
    if name is None:
        return _arbiter("", f"unreadable status {game.get('status')!r}")
    return map_status(
        name, game.get("winner"), moves=game.get("moves"), no_start_as_forfeit=no_start_as_forfeit
    )
