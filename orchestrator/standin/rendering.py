"""How the stand-in shows a game: its state at an instant, its Lichess JSON, its PGN and its export line.

``GameRendering`` is the part of ``store.Store`` that only reads games; export lines are assembled from
pieces (``RenderedGame``) kept per finished game (the store's module docstring says when they are made).
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

from orchestrator.domain.gameresults import STATUS_ID
from orchestrator.standin.engine import TERMINATION, pgn_result, render_pgn, speed_name
from orchestrator.standin.records import (
    Bulk,
    Game,
    GameView,
    RenderedGame,
    User,
    dumps,
    game_fields,
)


class GameRendering:
    """Views, JSON and PGN of the store's games; ``store.Store`` provides the attributes below."""

    speed: float
    base_url: str
    games: dict[str, Game]
    users: dict[str, User]
    _rendered: dict[str, RenderedGame]
    _rendered_lock: threading.Lock

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
            **game_fields(game),
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
            **game_fields(game),
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
            head=dumps(head)[:-1],
            moves=',"moves":' + dumps(" ".join(game.plan.moves[:shown])),
            tail=',"clock":' + dumps(self._clock_json(game)) + "}",
        )

    def _clocks_piece(self, view: GameView, rendered: RenderedGame) -> str:
        piece = rendered.clocks
        if piece is None:
            shown = self.shown_plies(view)
            piece = rendered.clocks = ',"clocks":' + dumps(list(view.game.plan.clocks_cs[:shown]))
        return piece

    def _pgn_piece(self, view: GameView, rendered: RenderedGame, *, clocks: bool, tags: bool) -> str:
        piece = rendered.pgns.get((clocks, tags))
        if piece is None:
            ratings = (rendered.key[5], rendered.key[6])
            piece = ',"pgn":' + dumps(self._pgn(view, ratings, clocks=clocks, tags=tags))
            rendered.pgns[(clocks, tags)] = piece
        return piece
