"""The stand-in server's records: accounts, tokens, bulks, games and the views and pieces made of them."""

from __future__ import annotations

import json
import string
import time
from dataclasses import dataclass, field
from typing import Any

from orchestrator.standin.engine import PlannedGame, speed_name

LINE_KEY = "line:"  # background job "line:<index>": make the seed's random line <index> (ids are alnum)
ID_ALPHABET = string.ascii_letters + string.digits
TOKEN_ALPHABET = string.ascii_letters + string.digits
WEEK_MS = 7 * 24 * 3600 * 1000
CODE_TTL_S = 600
FINISHED_STATUSES = frozenset(
    {
        "aborted",
        "mate",
        "resign",
        "stalemate",
        "timeout",
        "draw",
        "outoftime",
        "cheat",
        "noStart",
        "unknownFinish",
        "insufficientMaterialClaim",
        "variantEnd",
    }
)


class StandinError(Exception):
    """A request the stand-in refuses; ``body`` is the Lichess-shaped JSON error."""

    def __init__(self, status_code: int, body: dict[str, Any]) -> None:
        super().__init__(str(body))
        self.status_code = status_code
        self.body = body


class StandinClock:
    """Real time plus an offset that tests and demos can advance."""

    def __init__(self) -> None:
        self.offset_ms = 0

    def now_ms(self) -> int:
        return int(time.time() * 1000) + self.offset_ms

    def advance(self, ms: int) -> int:
        self.offset_ms += max(0, ms)
        return self.now_ms()


@dataclass
class User:
    id: str
    username: str
    rating: int
    created_at: int


@dataclass
class TokenInfo:
    user_id: str
    scopes: frozenset[str]


@dataclass
class AuthCode:
    client_id: str
    redirect_uri: str
    challenge: str
    user_id: str
    scopes: frozenset[str]
    expires: float


@dataclass
class Game:
    id: str
    bulk_id: str
    white: User
    black: User
    rated: bool
    variant: str
    white_limit_s: int
    black_limit_s: int
    increment_s: int
    rules: tuple[str, ...]
    plan: PlannedGame
    created_at: int | None = None
    clock_start: int | None = None
    forced: tuple[str, str | None, int] | None = None  # status, winner, at (ms)

    @property
    def unequal(self) -> bool:
        return self.white_limit_s != self.black_limit_s


@dataclass
class Bulk:
    id: str
    owner: str
    game_ids: list[str]
    pair_at: int
    start_clocks_at: int | None
    scheduled_at: int
    rated: bool
    variant: str
    clock: dict[str, int]
    rules: tuple[str, ...]
    message: str | None
    paired_at: int | None = None
    # Every game paired and its clocks started: nothing more happens to the bulk as time passes, and
    # Lichess no longer lists it (``Store.listed_bulks``). Set once, never unset.
    settled: bool = False


@dataclass
class GameView:
    """A game as seen at one instant."""

    game: Game
    status: str
    winner: str | None
    plies: int
    last_move_at: int

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_STATUSES


@dataclass(slots=True)
class RenderedGame:
    """A game's export line in pieces, for one ``key`` (what the line depends on that can change).

    ``head`` is the GameJson up to ``winner`` without its closing brace, ``moves`` and ``tail`` (the
    ``clock`` object and the brace) are ``,"name":value`` pieces; ``clocks`` and the ``pgn`` pieces (by
    clocks and tags flags) are added when first needed.
    """

    key: tuple[Any, ...]
    head: str
    moves: str
    tail: str
    clocks: str | None = None
    pgns: dict[tuple[bool, bool], str] = field(default_factory=dict)


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def game_fields(game: Game) -> dict[str, Any]:
    """The fields GameJson and GameStreamGame both start with, in lila's order."""
    speed = speed_name(game.white_limit_s, game.black_limit_s, game.increment_s)
    return {
        "id": game.id,
        "rated": game.rated,
        "variant": game.variant,
        "speed": speed,
        "perf": speed,
        "createdAt": game.created_at,
    }
