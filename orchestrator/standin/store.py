"""In-memory state of the stand-in server: accounts, tokens, bulks and games, on a stand-in clock.

Games are evaluated lazily against the stand-in time: a bulk is paired once ``pairAt`` has passed,
clocks start at ``startClocksAt`` (or on start-clocks, or on pairing when no time was given), and a
game's planned plies and end are stretched by ``standin_speed`` (0 = instant).

Export lines are assembled from pieces (``RenderedGame``) kept per finished game. A background thread
(``Prerenderer``) makes a game's moves and pieces when the game is planned, its clocks start or it ends
(found by ``tick``), so an export mostly joins cached text; whatever is not cached yet is made on demand,
and the answer is the same either way. Ongoing games are never cached.
"""

from __future__ import annotations

import base64
import hashlib
import heapq
import json
import secrets
import string
import threading
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from random import Random
from typing import Any

from orchestrator.domain.gameresults import STATUS_ID
from orchestrator.standin.engine import (
    LINE_COUNT,
    TERMINATION,
    PlannedGame,
    chess_available,
    pgn_result,
    plan_game,
    random_line,
    render_pgn,
    speed_name,
)
from orchestrator.standin.faults import FaultPlan
from orchestrator.standin.prerender import Prerenderer

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


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _game_fields(game: Game) -> dict[str, Any]:
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


@dataclass
class Store:
    speed: float
    seed: int
    faults: FaultPlan
    base_url: str = "http://127.0.0.1:8100"
    clock: StandinClock = field(default_factory=StandinClock)
    lock: threading.RLock = field(default_factory=threading.RLock)
    users: dict[str, User] = field(default_factory=dict)
    tokens: dict[str, TokenInfo] = field(default_factory=dict)
    codes: dict[str, AuthCode] = field(default_factory=dict)
    bulks: dict[str, Bulk] = field(default_factory=dict)
    games: dict[str, Game] = field(default_factory=dict)
    prerender: bool = True  # render finished games' export pieces in a background thread
    _ids: Random = field(init=False)
    _rendered: dict[str, RenderedGame] = field(default_factory=dict, init=False, repr=False)
    _rendered_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _ends: list[tuple[int, str]] = field(default_factory=list, init=False, repr=False)  # heap
    _prerenderer: Prerenderer = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._ids = Random(f"{self.seed}/ids")
        self._prerenderer = Prerenderer(self._prerender)

    def close(self) -> None:
        """Stop the background rendering thread (server shutdown)."""
        self._prerenderer.close()

    def warm_lines(self) -> None:
        """Make the seed's random lines in the background now (server start-up), not on the first game.

        They depend on the seed only (about 0.7 s of python-chess for all of them).
        """
        if chess_available():
            self._submit([f"{LINE_KEY}{index}" for index in range(LINE_COUNT)])

    def wait_prerendered(self, timeout_s: float = 30.0) -> bool:
        """Block until the background thread has nothing left to render (tests, benchmarks)."""
        return self._prerenderer.wait_idle(timeout_s)

    def serving(self) -> AbstractContextManager[None]:
        """Hold the background thread while a request the client waits on is answered.

        The thread would compete with the request for the interpreter lock (app.HoldRendererMiddleware).
        """
        return self._prerenderer.hold()

    def cached(self, game_id: str) -> str | None:
        """The status ``game_id``'s export pieces were cached with, or None if none are."""
        with self._rendered_lock:
            found = self._rendered.get(game_id)
        return None if found is None else str(found.key[0])

    def prerender_running(self) -> bool:
        """The background rendering thread is alive (it stops when idle and on ``close``)."""
        return self._prerenderer.running()

    # ---------------------------------------------------- accounts and OAuth

    def new_id(self, length: int = 8) -> str:
        with self.lock:
            while True:
                candidate = "".join(self._ids.choice(ID_ALPHABET) for _ in range(length))
                if candidate not in self.games and candidate not in self.bulks:
                    return candidate

    def user(self, username: str, rating: int | None = None) -> User:
        """The account ``username`` (created on first use, rating seeded by name unless given)."""
        key = username.lower()
        with self.lock:
            found = self.users.get(key)
            if found is None:
                seeded = Random(f"{self.seed}/rating/{key}").randrange(1200, 2700)
                found = User(key, username, rating if rating is not None else seeded, self.clock.now_ms())
                self.users[key] = found
            elif rating is not None:
                found.rating = rating
            return found

    def issue_token(self, user: User, scopes: frozenset[str], prefix: str = "lio_") -> str:
        """A fresh random token (never seeded: tokens must not be guessable from the seed)."""
        token = prefix + "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(24))
        with self.lock:
            self.tokens[token] = TokenInfo(user.id, scopes)
        return token

    def token_user(self, token: str | None) -> tuple[User, TokenInfo] | None:
        if not token:
            return None
        with self.lock:
            info = self.tokens.get(token)
            if info is None:
                return None
            return self.users[info.user_id], info

    def revoke(self, token: str) -> None:
        with self.lock:
            self.tokens.pop(token, None)

    def issue_code(
        self, *, client_id: str, redirect_uri: str, challenge: str, user: User, scopes: frozenset[str]
    ) -> str:
        code = "liu_" + secrets.token_urlsafe(24)
        with self.lock:
            self.codes[code] = AuthCode(
                client_id, redirect_uri, challenge, user.id, scopes, time.time() + CODE_TTL_S
            )
        return code

    def redeem_code(self, *, code: str, verifier: str, redirect_uri: str, client_id: str) -> str:
        """Exchange an authorization code (PKCE S256) for an access token; one use only."""
        with self.lock:
            grant = self.codes.pop(code, None)
        if grant is None or grant.expires < time.time():
            raise StandinError(400, {"error": "invalid_grant", "error_description": "unknown or used code"})
        if grant.client_id != client_id or grant.redirect_uri != redirect_uri:
            raise StandinError(
                400, {"error": "invalid_grant", "error_description": "client_id or redirect_uri mismatch"}
            )
        digest = hashlib.sha256(verifier.encode()).digest()
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != grant.challenge:
            raise StandinError(
                400,
                {"error": "invalid_grant", "error_description": "hash of code_verifier does not match"},
            )
        return self.issue_token(self.users[grant.user_id], grant.scopes)

    # ---------------------------------------------------- bulks and games

    def create_bulk(
        self,
        *,
        owner: User,
        pairs: list[tuple[User, User]],
        pair_at: int | None,
        start_clocks_at: int | None,
        rated: bool,
        variant: str,
        clock: dict[str, int],
        rules: tuple[str, ...],
        message: str | None,
    ) -> Bulk:
        now = self.clock.now_ms()
        white_limit = clock.get("whiteLimit", clock["limit"])
        black_limit = clock.get("blackLimit", clock["limit"])
        with self.lock:
            effective_pair_at = pair_at if pair_at is not None else now
            players = {u.id for pair in pairs for u in pair}
            for other in self.bulks.values():
                if other.paired_at is None and other.pair_at == effective_pair_at:
                    others = {p for gid in other.game_ids for p in self._players_of(gid)}
                    if players & others:
                        raise StandinError(
                            400,
                            {"error": "A bulk containing the same players is scheduled at the same time"},
                        )
            bulk = Bulk(
                id=self.new_id(),
                owner=owner.id,
                game_ids=[],
                pair_at=effective_pair_at,
                start_clocks_at=start_clocks_at,
                scheduled_at=now,
                rated=rated,
                variant=variant,
                clock=clock,
                rules=rules,
                message=message,
            )
            self.bulks[bulk.id] = bulk
            for white, black in pairs:
                game_id = self.new_id()
                rng = Random(f"{self.seed}/{game_id}")
                plan = plan_game(
                    rng,
                    white_rating=white.rating,
                    black_rating=black.rating,
                    white_limit_s=white_limit,
                    black_limit_s=black_limit,
                    increment_s=clock["increment"],
                    fault=self.faults.game_fault(game_id),
                    line_seed=str(self.seed),
                )
                self.games[game_id] = Game(
                    id=game_id,
                    bulk_id=bulk.id,
                    white=white,
                    black=black,
                    rated=rated,
                    variant=variant,
                    white_limit_s=white_limit,
                    black_limit_s=black_limit,
                    increment_s=clock["increment"],
                    rules=rules,
                    plan=plan,
                )
                bulk.game_ids.append(game_id)
            self._submit(bulk.game_ids)
            self._tick_bulk(bulk, now)
            return bulk

    def _players_of(self, game_id: str) -> set[str]:
        game = self.games.get(game_id)
        return {game.white.id, game.black.id} if game else set()

    def _tick_bulk(self, bulk: Bulk, now: int) -> None:
        started: list[str] = []
        if bulk.paired_at is None and now >= bulk.pair_at:
            bulk.paired_at = max(bulk.pair_at, bulk.scheduled_at)
            for game_id in bulk.game_ids:
                game = self.games[game_id]
                game.created_at = bulk.paired_at
                # Simulated players start at once unless told to wait for startClocksAt.
                if bulk.start_clocks_at is None:
                    game.clock_start = bulk.paired_at
                    started.append(game_id)
        if bulk.paired_at is not None and bulk.start_clocks_at is not None and now >= bulk.start_clocks_at:
            for game_id in bulk.game_ids:
                game = self.games[game_id]
                if game.clock_start is None:
                    game.clock_start = max(bulk.start_clocks_at, bulk.paired_at)
                    started.append(game_id)
        self._submit(started)

    def tick(self) -> int:
        """Bring every bulk up to the stand-in time; returns that time.

        Games whose planned end has passed go to the background renderer.
        """
        now = self.clock.now_ms()
        with self.lock:
            for bulk in self.bulks.values():
                self._tick_bulk(bulk, now)
            ended: list[str] = []
            while self._ends and self._ends[0][0] <= now:
                ended.append(heapq.heappop(self._ends)[1])
            self._submit(ended)
        return now

    def bulk(self, bulk_id: str, owner: User | None = None) -> Bulk:
        self.tick()
        with self.lock:
            bulk = self.bulks.get(bulk_id)
            if bulk is None or (owner is not None and bulk.owner != owner.id):
                raise StandinError(404, {"error": "Not found."})
            return bulk

    def cancel_bulk(self, bulk_id: str, owner: User) -> None:
        bulk = self.bulk(bulk_id, owner)
        with self.lock:
            if bulk.paired_at is None:
                for game_id in bulk.game_ids:
                    self.games.pop(game_id, None)
                del self.bulks[bulk_id]

    def listed_bulks(self, owner: User) -> list[Bulk]:
        """The owner's bulks as Lichess lists them: newest ``pairAt`` first, at most 100, and only those
        not yet paired and clocked (Lichess deletes a bulk once its games are paired and their clocks
        started; GAMESERVER-NOTES "Other endpoints")."""
        with self.lock:
            mine = [
                b
                for b in self.bulks.values()
                if b.owner == owner.id
                and (b.paired_at is None or any(self.games[g].clock_start is None for g in b.game_ids))
            ]
        mine.sort(key=lambda b: -b.pair_at)
        return mine[:100]

    def start_clocks(self, bulk_id: str, owner: User) -> None:
        bulk = self.bulk(bulk_id, owner)
        now = self.clock.now_ms()
        with self.lock:
            if bulk.paired_at is None:
                raise StandinError(404, {"error": "Not found."})
            started = []
            for game_id in bulk.game_ids:
                game = self.games[game_id]
                if game.clock_start is None:
                    game.clock_start = now
                    started.append(game_id)
            self._submit(started)

    def force_result(self, game_id: str, status: str, winner: str | None) -> GameView:
        """Admin: end a game now with ``status``/``winner`` (tests and demos)."""
        self.tick()
        now = self.clock.now_ms()
        with self.lock:
            game = self.games.get(game_id)
            if game is None:
                raise StandinError(404, {"error": "Not found."})
            if game.created_at is None:
                game.created_at = now
            if game.clock_start is None:
                game.clock_start = now
            game.forced = (status, winner, now)
            self._submit([game_id])
            return self.view(game, now)

    # ---------------------------------------------------- views

    def _real_ms(self, game: Game, game_s: float) -> int:
        assert game.clock_start is not None
        if self.speed <= 0:
            return game.clock_start
        return game.clock_start + int(game_s * 1000 / self.speed)

    def view(self, game: Game, now: int) -> GameView:
        """The game's status, winner and number of plies played at stand-in time ``now``."""
        created = game.created_at or now
        if game.forced is not None:
            status, winner, at = game.forced
            played = sum(1 for s in game.plan.ply_at_s if self._real_ms(game, s) <= at)
            return GameView(game, status, winner, played, at)
        if game.clock_start is None or now < game.clock_start:
            return GameView(game, "started", None, 0, created)
        # At instant speed a game ends when its clocks start: its clock plan is not needed to say so.
        end = game.clock_start if self.speed <= 0 else self._real_ms(game, game.plan.end_at_s)
        if now >= end:
            return GameView(game, game.plan.status, game.plan.winner, game.plan.plies, end)
        played = sum(1 for s in game.plan.ply_at_s if self._real_ms(game, s) <= now)
        last = self._real_ms(game, game.plan.ply_at_s[played - 1]) if played else game.clock_start
        return GameView(game, "started", None, played, last)

    def views(self, ids: list[str]) -> list[GameView]:
        """Existing games among ``ids``, most recent first (as Lichess sorts an export)."""
        now = self.tick()
        with self.lock:
            found = [self.games[i] for i in dict.fromkeys(ids) if i in self.games]
            seen = [self.view(g, now) for g in found if g.created_at is not None]
        return sorted(seen, key=lambda v: (-(v.game.created_at or 0), v.game.id))

    def bulk_json(self, bulk: Bulk) -> dict[str, Any]:
        """BulkPairing JSON (lila ChallengeBulkSetup.toJson); clock may carry the unequal extension."""
        body: dict[str, Any] = {
            "id": bulk.id,
            "games": [
                {"id": gid, "white": self.games[gid].white.id, "black": self.games[gid].black.id}
                for gid in bulk.game_ids
                if gid in self.games
            ],
            "variant": bulk.variant,
            "clock": dict(bulk.clock),
            "rated": bulk.rated,
            "pairAt": bulk.pair_at,
            "startClocksAt": bulk.start_clocks_at,
            "scheduledAt": bulk.scheduled_at,
            "pairedAt": bulk.paired_at,
        }
        if bulk.rules:
            body["rules"] = list(bulk.rules)
        if bulk.message is not None:
            body["message"] = bulk.message
        return body

    def _clock_json(self, game: Game) -> dict[str, int]:
        clock = {
            "initial": game.white_limit_s,
            "increment": game.increment_s,
            "totalTime": game.white_limit_s + 40 * game.increment_s,
        }
        if game.unequal:
            clock["whiteInitial"] = game.white_limit_s
            clock["blackInitial"] = game.black_limit_s
        return clock

    def game_json(
        self,
        view: GameView,
        *,
        moves: bool = True,
        pgn_in_json: bool = False,
        clocks: bool = False,
        tags: bool = True,
    ) -> dict[str, Any]:
        """GameJson (lila GameApiV2.toJson) for an export line."""
        game = view.game
        body = self._head_json(view, game.white.rating, game.black.rating)
        shown = self.shown_plies(view)
        if moves:
            body["moves"] = " ".join(game.plan.moves[:shown])
        if clocks:
            body["clocks"] = list(game.plan.clocks_cs[:shown])
        if pgn_in_json:
            body["pgn"] = self.pgn(view, clocks=clocks, tags=tags)
        body["clock"] = self._clock_json(game)
        return body

    @staticmethod
    def _head_json(view: GameView, white_rating: int, black_rating: int) -> dict[str, Any]:
        """GameJson's fields up to ``winner``, in lila's order (``game_json`` and the cached pieces)."""
        game = view.game
        head: dict[str, Any] = {
            **_game_fields(game),
            "lastMoveAt": view.last_move_at,
            "status": view.status,
            "source": "api",
            "players": {
                "white": {"user": {"id": game.white.id, "name": game.white.username}, "rating": white_rating},
                "black": {"user": {"id": game.black.id, "name": game.black.username}, "rating": black_rating},
            },
        }
        if view.winner is not None:
            head["winner"] = view.winner
        return head

    @staticmethod
    def shown_plies(view: GameView) -> int:
        # Ongoing games are delayed by 3 moves, as on Lichess.
        return view.plies if view.finished else max(0, view.plies - 3)

    def stream_json(self, view: GameView) -> dict[str, Any]:
        """GameStreamGame: integer status plus statusName, players by userId."""
        game = view.game
        body: dict[str, Any] = {
            **_game_fields(game),
            "status": STATUS_ID[view.status],
            "statusName": view.status,
            "clock": self._clock_json(game),
            "players": {
                "white": {"userId": game.white.id, "rating": game.white.rating},
                "black": {"userId": game.black.id, "rating": game.black.rating},
            },
        }
        if view.winner is not None:
            body["winner"] = view.winner
        return body

    def pgn(self, view: GameView, *, clocks: bool = False, tags: bool = True) -> str:
        """PGN with lila's tags; the unequal-clock extension adds WhiteClock/BlackClock tags."""
        game = view.game
        return self._pgn(view, (game.white.rating, game.black.rating), clocks=clocks, tags=tags)

    def _pgn(self, view: GameView, ratings: tuple[int, int], *, clocks: bool, tags: bool) -> str:
        game = view.game
        result = pgn_result(view.status, view.winner)
        created = datetime.fromtimestamp((game.created_at or 0) / 1000, tz=UTC)
        speed = speed_name(game.white_limit_s, game.black_limit_s, game.increment_s).capitalize()
        headers: list[tuple[str, str]] = []
        if tags:
            headers = [
                ("Event", f"{'Rated' if game.rated else 'Casual'} {speed} game"),
                ("Site", f"{self.base_url}/{game.id}"),
                ("Date", created.strftime("%Y.%m.%d")),
                ("Round", "-"),
                ("White", game.white.username),
                ("Black", game.black.username),
                ("Result", result),
                ("GameId", game.id),
                ("UTCDate", created.strftime("%Y.%m.%d")),
                ("UTCTime", created.strftime("%H:%M:%S")),
                ("WhiteElo", str(ratings[0])),
                ("BlackElo", str(ratings[1])),
                ("Variant", "Standard"),
                ("TimeControl", f"{game.white_limit_s}+{game.increment_s}"),
            ]
            if game.unequal:
                headers.append(("WhiteClock", f"{game.white_limit_s}+{game.increment_s}"))
                headers.append(("BlackClock", f"{game.black_limit_s}+{game.increment_s}"))
            headers.append(("Termination", TERMINATION.get(view.status, "Normal")))
        shown = self.shown_plies(view)
        return render_pgn(
            headers,
            game.plan.moves[:shown],
            result,
            clocks_cs=game.plan.clocks_cs[:shown] if clocks else None,
        )

    # ---------------------------------------------------- export lines from cached pieces

    def export_line(
        self,
        view: GameView,
        *,
        moves: bool = True,
        pgn_in_json: bool = False,
        clocks: bool = False,
        tags: bool = True,
    ) -> str:
        """The export NDJSON line of ``view`` (no newline): ``game_json`` serialised, from cached pieces."""
        rendered = self._rendered_game(view)
        parts = [rendered.head]
        if moves:
            parts.append(rendered.moves)
        if clocks:
            parts.append(self._clocks_piece(view, rendered))
        if pgn_in_json:
            parts.append(self._pgn_piece(view, rendered, clocks=clocks, tags=tags))
        parts.append(rendered.tail)
        return "".join(parts)

    @staticmethod
    def _render_key(view: GameView) -> tuple[Any, ...]:
        game = view.game
        # Everything in the line that can change once the game exists: the view, pairing time, ratings.
        return (
            view.status,
            view.winner,
            view.plies,
            view.last_move_at,
            game.created_at,
            game.white.rating,
            game.black.rating,
        )

    def _rendered_game(self, view: GameView) -> RenderedGame:
        """The pieces of ``view``'s line: cached ones if made for the same key, else made now.

        Only finished views are kept: an ongoing game changes, and must never be served as finished.
        """
        key = self._render_key(view)
        with self._rendered_lock:
            found = self._rendered.get(view.game.id)
        if found is not None and found.key == key:
            return found
        made = self._render(view, key)
        if view.finished:
            with self._rendered_lock:
                self._rendered[view.game.id] = made
        return made

    def _render(self, view: GameView, key: tuple[Any, ...]) -> RenderedGame:
        """Pieces of ``game_json`` (same fields, same order) with the ratings of ``key``."""
        game = view.game
        head = self._head_json(view, key[5], key[6])
        shown = self.shown_plies(view)
        return RenderedGame(
            key=key,
            head=_dumps(head)[:-1],
            moves=',"moves":' + _dumps(" ".join(game.plan.moves[:shown])),
            tail=',"clock":' + _dumps(self._clock_json(game)) + "}",
        )

    def _clocks_piece(self, view: GameView, rendered: RenderedGame) -> str:
        piece = rendered.clocks
        if piece is None:
            shown = self.shown_plies(view)
            piece = rendered.clocks = ',"clocks":' + _dumps(list(view.game.plan.clocks_cs[:shown]))
        return piece

    def _pgn_piece(self, view: GameView, rendered: RenderedGame, *, clocks: bool, tags: bool) -> str:
        piece = rendered.pgns.get((clocks, tags))
        if piece is None:
            ratings = (rendered.key[5], rendered.key[6])
            piece = ',"pgn":' + _dumps(self._pgn(view, ratings, clocks=clocks, tags=tags))
            rendered.pgns[(clocks, tags)] = piece
        return piece

    # ---------------------------------------------------- background rendering

    def _submit(self, game_ids: list[str]) -> None:
        if game_ids and self.prerender:
            self._prerenderer.submit(game_ids)

    def _prerender(self, game_id: str) -> None:
        """Background: make ``game_id``'s moves and, once it is over, its line pieces for the usual flags.

        The orchestrator exports with moves, tags and pgnInJson, without clocks. A game not over yet is
        put on the ``_ends`` heap; ``tick`` hands it back when its planned end has passed. A
        ``line:<index>`` key makes one of the seed's random lines (``warm_lines``).
        """
        if game_id.startswith(LINE_KEY):
            random_line(str(self.seed), int(game_id.removeprefix(LINE_KEY)))
            return
        game = self.games.get(game_id)
        if game is None:
            return
        # Outside the store lock: a seed's first lines take a while. The same seeds give the same moves
        # and clocks whichever thread makes them first.
        game.plan.moves  # noqa: B018 - made and kept by the property
        if self.speed > 0:
            game.plan.end_at_s  # noqa: B018 - the view of a game in progress needs the clock plan
        now = self.clock.now_ms()
        with self.lock:
            if self.games.get(game_id) is not game or game.created_at is None:
                return  # cancelled, or not paired yet (pairing hands it over again)
            view = self.view(game, now)
            if not view.finished:
                if game.clock_start is not None and game.forced is None:
                    end = self._real_ms(game, game.plan.end_at_s)
                    heapq.heappush(self._ends, (end, game_id))
                return
        rendered = self._rendered_game(view)
        self._pgn_piece(view, rendered, clocks=False, tags=True)
