"""A bulk whose answer was lost is found again by its pairings and clock, whatever its state, and never
created twice: the stand-in app in process (Starlette's test client is the client's httpx.Client)."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from orchestrator.adapters.lichess import (
    Bulk,
    BulkSpec,
    LichessClient,
    Pairing,
    PlayerLink,
    RetryPolicy,
    TransientError,
)
from orchestrator.adapters.lichess_bulk import ensure_bulk
from orchestrator.config import Settings
from orchestrator.standin.app import ADMIN_HEADER, create_standin_app

SINGLE = RetryPolicy(max_attempts=1)
ADMIN = {ADMIN_HEADER: "admin"}


class LosingClient(LichessClient):
    """The first ``lose`` bulk creations are carried out, then the stand-in's time moves on past the
    clocks' start (the bulk leaves the list), and the answer is lost as after a timeout."""

    def __init__(self, http: TestClient, token: str, lose: int = 1) -> None:
        super().__init__("http://testserver", token, http=http)
        self.admin = http
        self.lose = lose
        self.sent = 0

    def create_bulk(self, pairings: Sequence[Pairing], spec: BulkSpec) -> Bulk:
        self.sent += 1
        bulk = super().create_bulk(pairings, spec)
        if self.lose:
            self.lose -= 1
            self.admin.post("/_standin/time", json={"advanceMs": 60_000}, headers=ADMIN)
            raise TransientError("POST /api/bulk-pairing timed out")
        return bulk


@contextmanager
def standin() -> Iterator[TestClient]:
    settings = Settings(standin_speed=0, standin_seed=3, standin_admin_token=SecretStr("admin"))
    with TestClient(create_standin_app(settings)) as http:
        yield http


def _user(http: TestClient, name: str, scopes: list[str]) -> str:
    body = {"username": name, "rating": 1500, "scopes": scopes}
    answer = http.post("/_standin/users", json=body, headers=ADMIN)
    return str(answer.raise_for_status().json()["token"])


def _pairings(http: TestClient, count: int = 3) -> list[Pairing]:
    links = [
        PlayerLink(f"id{n}", f"player{n}", SecretStr(_user(http, f"player{n}", ["challenge:write"])))
        for n in range(2 * count)
    ]
    return [Pairing(links[i], links[i + 1]) for i in range(0, len(links), 2)]


def _spec() -> BulkSpec:
    now = int(time.time() * 1000)
    return BulkSpec(300, 2, pair_at=now + 1000, start_clocks_at=now + 2000)


def _bulks_on_server(http: TestClient) -> int:
    return int(http.get("/_standin/state", headers=ADMIN).json()["bulks"])


def test_a_retry_finds_the_lost_bulk_among_the_games_after_it_left_the_list():
    with standin() as http:
        pairings = _pairings(http)
        client = LosingClient(http, _user(http, "organiser", ["challenge:bulk"]))
        bulk = ensure_bulk(client, pairings, _spec(), sleep=lambda _s: None)
        assert client.sent == 1 and _bulks_on_server(http) == 1
        assert client.list_bulks() == []  # paired and clocked: Lichess no longer lists it
        assert [(g.white, g.black) for g in bulk.games] == [
            (p.white.account, p.black.account) for p in pairings
        ]
        truth = [http.get(f"/_standin/games/{g.id}", headers=ADMIN).json() for g in bulk.games]
        assert len({t["bulk"] for t in truth}) == 1  # the games of the one bulk the server made


def test_the_next_task_run_finds_it_too_when_told_since_when_to_look():
    with standin() as http:
        pairings = _pairings(http)
        client = LosingClient(http, _user(http, "organiser", ["challenge:bulk"]))
        first_sent = time.time()
        with pytest.raises(TransientError):
            ensure_bulk(client, pairings, _spec(), policy=SINGLE)
        again = ensure_bulk(client, pairings, _spec(), policy=SINGLE, earlier_since=int(first_sent * 1000))
        assert client.sent == 1 and _bulks_on_server(http) == 1
        assert len(again.games) == 3


def test_a_bulk_with_another_clock_or_before_the_window_is_not_taken_for_it():
    with standin() as http:
        pairings = _pairings(http)
        client = LosingClient(http, _user(http, "organiser", ["challenge:bulk"]), lose=0)
        old = ensure_bulk(client, pairings, BulkSpec(180, 2))  # paired at once: a blitz game of theirs
        http.post("/_standin/time", json={"advanceMs": 600_000}, headers=ADMIN)
        since = int(time.time() * 1000) + 600_000 - 5_000
        fresh = ensure_bulk(client, pairings, _spec(), earlier_since=since + 60_000)
        assert client.sent == 2 and _bulks_on_server(http) == 2
        assert {g.id for g in fresh.games}.isdisjoint(g.id for g in old.games)


def test_players_meeting_again_within_the_window_are_not_taken_for_a_lost_bulk():
    # Two rounds due at once (a late round paired at once, as after a pause): the earlier round's games of
    # the same players, colours and clock are in the window, but the database holds them, so they are no
    # lost bulk of this round's and this round's bulk is created.
    with standin() as http:
        pairings = _pairings(http)
        client = LosingClient(http, _user(http, "organiser", ["challenge:bulk"]), lose=0)
        since = int(time.time() * 1000) - 5_000
        earlier_round = ensure_bulk(client, pairings, BulkSpec(300, 2))
        stored = {g.id for g in earlier_round.games}
        this_round = ensure_bulk(
            client, pairings, BulkSpec(300, 2), earlier_since=since, known=lambda game_id: game_id in stored
        )
        assert client.sent == 2 and _bulks_on_server(http) == 2
        assert {g.id for g in this_round.games}.isdisjoint(stored)


def test_without_knowing_the_stored_games_the_earlier_round_would_be_taken_for_it():
    # The same as above with nothing known: the earlier games are taken (what the database check prevents).
    with standin() as http:
        pairings = _pairings(http)
        client = LosingClient(http, _user(http, "organiser", ["challenge:bulk"]), lose=0)
        since = int(time.time() * 1000) - 5_000
        earlier_round = ensure_bulk(client, pairings, BulkSpec(300, 2))
        again = ensure_bulk(client, pairings, BulkSpec(300, 2), earlier_since=since)
        assert client.sent == 1 and {g.id for g in again.games} == {g.id for g in earlier_round.games}
