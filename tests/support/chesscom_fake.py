"""A fake Chess.com PubAPI over httpx.MockTransport serving the hand-written fixtures of
tests/fixtures/chesscom, and the small event's first match with its players renamed to the fixtures' accounts.

    fake = served_match_1201()                      # the team match 1201 and its two boards
    with uow_factory() as uow:
        played = match_with_chesscom_accounts(uow)
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from orchestrator.adapters.chesscom import ChessComClient, ChessComImporter
from orchestrator.adapters.tables import Player
from orchestrator.adapters.uow import UnitOfWork
from tests.support.factories import running_stage

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "chesscom"
BASE = "https://api.chess.test"
AGENT = "olympiad-orchestrator/0.1 (arbiters@example.org)"

Answer = httpx.Response | Callable[[httpx.Request], httpx.Response]


def fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


class FakeChessCom:
    """Routes by path; unknown paths are 404 like the PubAPI. ``requests`` records every call in order."""

    def __init__(self, routes: dict[str, Any] | None = None) -> None:
        self.routes: dict[str, Any] = dict(routes or {})
        self.requests: list[httpx.Request] = []

    def serve(self, path: str, body: Any) -> None:
        self.routes[path] = body

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.routes.get(request.url.path)
        if answer is None:
            return httpx.Response(404, json={"code": 0, "message": "Data provider not found for key"})
        if isinstance(answer, httpx.Response):
            return answer
        if callable(answer):
            return answer(request)
        if isinstance(answer, str) and answer.endswith(".json"):
            return httpx.Response(200, json=fixture(answer))
        return httpx.Response(200, json=answer)

    @property
    def paths(self) -> list[str]:
        return [r.url.path for r in self.requests]

    def client(self) -> ChessComClient:
        return ChessComClient(BASE, AGENT, client=httpx.Client(transport=httpx.MockTransport(self.handler)))

    def importer(self) -> ChessComImporter:
        return ChessComImporter(self.client())


def served_match_1201() -> FakeChessCom:
    return FakeChessCom(
        {
            "/pub/match/1201": "match_1201.json",
            "/pub/match/1201/1": "match_1201_board_1.json",
            "/pub/match/1201/2": "match_1201_board_2.json",
        }
    )


# Our board 1 (White from the first team) is AlphaKnight–BetaBishop; board 2 (White from the second team)
# is BetaQueen–AlphaRook, the game AlphaRook abandoned. Boards 3-6 keep accounts Chess.com never saw.
CHESSCOM_ACCOUNTS = {1: ("alphaknight", "betabishop"), 2: ("betaqueen", "alpharook")}


@dataclass
class Played:
    match_id: int
    boards: dict[int, int]  # board number -> board id


def match_with_chesscom_accounts(uow: UnitOfWork) -> Played:
    """The small event's first match, its players on boards 1 and 2 renamed to the fixtures' accounts."""
    stage_id = running_stage(uow)
    first_round = uow.rounds.rounds_of_stage(stage_id)[0]
    match = uow.rounds.matches_of_round(first_round.id or 0)[0]
    boards = {b.board_no: b for b in uow.boards.for_match(match.id or 0)}
    for board_no, (white, black) in CHESSCOM_ACCOUNTS.items():
        for player_id, account in (
            (boards[board_no].white_player_id, white),
            (boards[board_no].black_player_id, black),
        ):
            player = uow.teams.get_or_raise(Player, player_id or 0)
            player.account = account
            uow.session.add(player)
    return Played(match.id or 0, {n: b.id or 0 for n, b in boards.items()})
