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
import secrets
import threading
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from random import Random

from orchestrator.standin.engine import (
    LINE_COUNT,
    chess_available,
    plan_game,
    random_line,
)
from orchestrator.standin.faults import FaultPlan
from orchestrator.standin.prerender import Prerenderer
from orchestrator.standin.records import (
    CODE_TTL_S,
    FINISHED_STATUSES,
    ID_ALPHABET,
    LINE_KEY,
    TOKEN_ALPHABET,
    WEEK_MS,
    AuthCode,
    Bulk,
    Game,
    GameView,
    RenderedGame,
    StandinClock,
    StandinError,
    TokenInfo,
    User,
)
from orchestrator.standin.rendering import GameRendering

__all__ = [
    "FINISHED_STATUSES",
    "WEEK_MS",
    "AuthCode",
    "Bulk",
    "Game",
    "GameView",
    "StandinClock",
    "StandinError",
    "Store",
    "TokenInfo",
    "User",
]


@dataclass
class Store(GameRendering):
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
    _rendered: dict[str, RenderedGame] = field(default_factory=dict, init=False, repr=False)
    _rendered_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _ends: list[tuple[int, str]] = field(default_factory=list, init=False, repr=False)  # heap
    _prerenderer: Prerenderer = field(init=False, repr=False)

    def __post_init__(self) -> None:
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

    def new_id(self, key: str, length: int = 8) -> str:
        """An id drawn from ``key`` (a pairing, a bulk's games), not from a shared sequence: the same
        request gives the same id whatever was created before it. A key met again (the same pairing
        repeated, a bulk sent twice) takes the next free id of its own sequence."""
        rng = Random(f"{self.seed}/id/{key}")
        with self.lock:
            while True:
                candidate = "".join(rng.choice(ID_ALPHABET) for _ in range(length))
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
            game_ids = [
                self.new_id(
                    f"game/{white.id}/{black.id}/{white_limit}/{black_limit}/{clock['increment']}"
                    f"/{variant}/{rated}/{message or ''}"
                )
                for white, black in pairs
            ]
            bulk = Bulk(
                id=self.new_id("bulk/" + ",".join(game_ids)),
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
            for (white, black), game_id in zip(pairs, game_ids, strict=True):
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
        if bulk.settled:
            return  # every game paired and clocked: each tick (every request) skips it in O(1)
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
        self._settle(bulk)

    def _settle(self, bulk: Bulk) -> bool:
        """Whether every game of ``bulk`` is paired with its clocks started (remembered once true)."""
        if not bulk.settled and bulk.paired_at is not None:
            bulk.settled = all(self.games[g].clock_start is not None for g in bulk.game_ids)
        return bulk.settled

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
            mine = [b for b in self.bulks.values() if b.owner == owner.id and not self._settle(b)]
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

    def user_game_ids(
        self,
        username: str,
        *,
        vs: str | None = None,
        since: int | None = None,
        until: int | None = None,
        ongoing: bool = False,
        finished: bool = True,
        limit: int | None = None,
    ) -> list[str]:
        """Ids of the paired games of ``username`` (against ``vs``), created in [since, until], most
        recent first, as ``GET /api/games/user/{username}`` selects them (ongoing games only if asked)."""
        now = self.tick()
        key, other = username.lower(), (vs or "").lower()
        with self.lock:
            found = []
            for game in self.games.values():
                players = (game.white.id, game.black.id)
                if game.created_at is None or key not in players:
                    continue
                if other and other not in players:
                    continue
                if (since is not None and game.created_at < since) or (
                    until is not None and game.created_at > until
                ):
                    continue
                over = self.view(game, now).finished
                if (over and finished) or (not over and ongoing):
                    found.append(game)
        found.sort(key=lambda g: (-(g.created_at or 0), g.id))
        return [g.id for g in found[:limit]]

    def views(self, ids: list[str]) -> list[GameView]:
        """Existing games among ``ids``, most recent first (as Lichess sorts an export)."""
        now = self.tick()
        with self.lock:
            found = [self.games[i] for i in dict.fromkeys(ids) if i in self.games]
            seen = [self.view(g, now) for g in found if g.created_at is not None]
        return sorted(seen, key=lambda v: (-(v.game.created_at or 0), v.game.id))

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
