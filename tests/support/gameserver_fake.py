"""A scripted Lichess-protocol game server over httpx.MockTransport (bulk pairings, the bulk list, game
export; faults answered on demand), player accounts linked to it, and a round's games created on it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from urllib.parse import parse_qs

import httpx

from orchestrator.adapters.lichess import LichessClient
from orchestrator.adapters.tables import (
    Player,
)
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services.gameserver import gameserver
from orchestrator.services.gameserver.player_links import store_link


class FakeServer:
    """A scripted Lichess-protocol server: bulks, list, export; ``faults`` answers the next requests."""

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix  # before every game and bulk id (a database shared by tests holds each once)
        self.tokens: dict[str, str] = {}  # token -> account
        self.bulks: list[dict] = []
        self.games: dict[str, dict] = {}
        self.requests: list[str] = []
        self.faults: list[Callable[[httpx.Request], httpx.Response | None]] = []
        self.refuse: set[str] = set()  # accounts whose token is refused

    def handler(self, request: httpx.Request) -> httpx.Response:
        key = f"{request.method} {request.url.path}"
        self.requests.append(key)
        if self.faults:
            answer = self.faults.pop(0)(request)
            if answer is not None:
                return answer
        if key == "POST /api/bulk-pairing":
            return self._create(request)
        if key == "GET /api/bulk-pairing":
            return httpx.Response(200, json={"bulks": self.bulks})
        if key == "POST /api/games/export/_ids":
            ids = request.content.decode().split(",")
            lines = [json.dumps(self.games[i]) for i in ids if i in self.games]
            return httpx.Response(
                200, text="\n".join(lines), headers={"content-type": "application/x-ndjson"}
            )
        return httpx.Response(404, json={"error": "Not found."})

    def _create(self, request: httpx.Request) -> httpx.Response:
        form = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        pairs = [pair.split(":") for pair in form["players"].split(",")]
        refused = {t: "token refused" for pair in pairs for t in pair if self.tokens[t] in self.refuse}
        if refused:
            return httpx.Response(400, json={"tokens": refused})
        n = len(self.bulks)
        games = []
        for i, (white, black) in enumerate(pairs):
            game_id = f"{self.prefix}g{n}x{i:03d}"
            games.append({"id": game_id, "white": self.tokens[white], "black": self.tokens[black]})
            self.games[game_id] = {"id": game_id, "status": "started", "players": {}}
        bulk = {"id": f"{self.prefix}bulk{n}", "games": games, "pairAt": int(form.get("pairAt", 0)) or None}
        self.bulks.append(bulk)
        return httpx.Response(200, json=bulk)

    def finish(self, game_id: str, status: str, winner: str | None = None) -> None:
        self.games[game_id] |= {"status": status, **({"winner": winner} if winner else {})}

    def client(self) -> LichessClient:
        return LichessClient("http://gs.test", "organiser", transport=httpx.MockTransport(self.handler))


def link_accounts(
    uow_factory: UnitOfWorkFactory, settings: Settings, server: FakeServer, player_ids: Iterable[int]
) -> None:
    """Link each player's game-server account, with a token the fake server knows."""
    with uow_factory() as uow:
        for player_id in player_ids:
            player = uow.teams.get_or_raise(Player, player_id)
            token = f"lio_{player.account}"
            server.tokens[token] = player.account
            store_link(
                uow, player_id=player_id, account=player.account, token=token, settings=settings, actor="t"
            )


def create_games(
    uow_factory: UnitOfWorkFactory, settings: Settings, server: FakeServer, round_id: int, attempt: int = 1
):
    with server.client() as client, uow_factory() as uow:
        return gameserver.create_round_games(
            uow, round_id=round_id, client=client, settings=settings, attempt=attempt, actor="worker"
        )
