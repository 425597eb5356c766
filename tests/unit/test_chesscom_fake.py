"""A fake Chess.com PubAPI over httpx.MockTransport serving the hand-written fixtures (shared by the
Chess.com tests), and the checks that the fixtures keep the documented shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

from orchestrator.adapters.chesscom import ChessComClient, ChessComImporter

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


def test_unknown_paths_answer_404_like_the_pubapi() -> None:
    fake = FakeChessCom()
    with httpx.Client(transport=httpx.MockTransport(fake.handler)) as http:
        assert http.get(f"{BASE}/pub/match/1").status_code == 404


def test_every_fixture_game_names_both_players_with_a_result_code_when_it_has_ended() -> None:
    names = sorted(p.name for p in FIXTURES.glob("*.json"))
    assert len(names) == 9
    for name in names:
        data = fixture(name)
        for game in data.get("games", []):
            for colour in ("white", "black"):
                assert game[colour]["username"], name
                assert ("end_time" in game) == ("result" in game[colour]), name
            assert game["time_class"] in {"rapid", "blitz", "bullet", "daily"}, name
