"""The stand-in game server over real HTTP (uvicorn on a free port), driven by our Lichess client."""

from __future__ import annotations

import base64
import hashlib
import io
import secrets
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import chess
import chess.pgn
import httpx
import pytest
import uvicorn
from pydantic import SecretStr

from orchestrator.adapters.lichess import BulkRejected as Rejected
from orchestrator.adapters.lichess import (
    BulkSpec,
    LichessClient,
    NotFound,
    Pairing,
    PlayerLink,
    SkippedLine,
    call_with_retries,
)
from orchestrator.adapters.lichess_bulk import ensure_bulk
from orchestrator.config import Settings
from orchestrator.domain.gameresults import MappedResult, map_game, map_status
from orchestrator.domain.scoring import GameResult
from orchestrator.standin.app import admin_headers, create_standin_app

pytestmark = pytest.mark.timeout(120)


@dataclass
class Standin:
    url: str
    admin: httpx.Client

    def user(self, username: str, rating: int, scopes: list[str] | None = None) -> dict:
        body: dict = {"username": username, "rating": rating}
        if scopes is not None:
            body["scopes"] = scopes
        return self.admin.post("/_standin/users", json=body).raise_for_status().json()

    def truth(self, game_id: str) -> dict:
        return self.admin.get(f"/_standin/games/{game_id}").raise_for_status().json()

    def advance(self, ms: int) -> None:
        self.admin.post("/_standin/time", json={"advanceMs": ms}).raise_for_status()


@contextmanager
def running_standin(**overrides) -> Iterator[Standin]:
    """The stand-in app under uvicorn in a background thread, on a free local port."""
    settings = Settings(
        **{"standin_speed": 0, "standin_seed": 7, "standin_admin_token": "admin-token", **overrides}
    )
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        create_standin_app(settings), log_level="warning", timeout_graceful_shutdown=1, lifespan="off"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "stand-in did not start"
        time.sleep(0.01)
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url, timeout=10, headers=admin_headers(settings)) as admin:
            yield Standin(url, admin)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


def make_players(standin: Standin, count: int, prefix: str = "p") -> list[PlayerLink]:
    links = []
    for n in range(count):
        data = standin.user(f"{prefix}{n}", 1400 + 60 * n)
        links.append(PlayerLink(f"player-{prefix}{n}", data["username"], SecretStr(data["token"])))
    return links


def pair_up(links: list[PlayerLink]) -> list[Pairing]:
    return [Pairing(links[i], links[i + 1]) for i in range(0, len(links), 2)]


def expected(truth: dict) -> MappedResult:
    planned = truth["planned"]
    return map_status(planned["status"], planned["winner"], moves=planned["moves"])


def play_round(standin: Standin, *, games: int, seed_prefix: str = "p") -> list[dict]:
    organiser = standin.user(f"org{seed_prefix}", 2000)
    links = make_players(standin, 2 * games, seed_prefix)
    with LichessClient(standin.url, organiser["token"]) as client:
        bulk = client.create_bulk(pair_up(links), BulkSpec(900, 10))
        exported = client.export_games([g.id for g in bulk.games], pgn_in_json=True, clocks=True)
    assert exported.skipped == [] and exported.missing == []
    return exported.games


def test_a_bulk_plays_out_and_the_export_returns_every_game_with_exactly_one_final_result():
    with running_standin() as standin:
        organiser = standin.user("organiser", 2100)
        links = make_players(standin, 24)
        with LichessClient(standin.url, organiser["token"]) as client:
            bulk = client.create_bulk(pair_up(links), BulkSpec(900, 10, rules=("noAbort",)))
            ids = [g.id for g in bulk.games]
            assert [(g.white, g.black) for g in bulk.games] == [
                (links[i].account, links[i + 1].account) for i in range(0, 24, 2)
            ]
            exported = client.export_games(ids, pgn_in_json=True)
        assert sorted(g["id"] for g in exported.games) == sorted(ids)
        for game in exported.games:
            mapped = map_game(game)
            assert mapped.final and not mapped.needs_arbiter
            assert mapped == expected(standin.truth(game["id"]))
            assert_pgn_agrees(game)


def assert_pgn_agrees(game: dict) -> None:
    """The PGN replays legally, its moves are the JSON moves, and a mate really is mate."""
    parsed = chess.pgn.read_game(io.StringIO(game["pgn"]))
    assert parsed is not None and parsed.errors == []
    sans = []
    board = parsed.board()
    for move in parsed.mainline_moves():
        sans.append(board.san(move))
        board.push(move)
    assert " ".join(sans) == game["moves"]
    winner = game.get("winner")
    assert parsed.headers["Result"] == {"white": "1-0", "black": "0-1", None: "1/2-1/2"}[winner]
    assert parsed.headers["GameId"] == game["id"]
    if game["status"] == "mate":
        assert board.is_checkmate() and board.turn == (winner == "black")
    elif game["status"] in ("resign", "outoftime"):
        assert not board.is_game_over() and board.turn == (winner == "black")


def test_the_same_seed_plays_the_same_games_and_another_seed_does_not():
    with running_standin(standin_seed=11) as first:
        one = play_round(first, games=8)
    with running_standin(standin_seed=11) as second:
        two = play_round(second, games=8)
    with running_standin(standin_seed=12) as third:
        other = play_round(third, games=8)

    def key(games):
        return [(g["id"], g["status"], g.get("winner"), g["moves"]) for g in games]

    assert key(one) == key(two)
    assert key(one) != key(other)


def test_pair_at_and_start_clocks_at_are_honoured_in_stand_in_time():
    with running_standin(standin_speed=1.0) as standin:
        organiser = standin.user("organiser", 2100)
        links = make_players(standin, 4)
        now = int(time.time() * 1000)
        spec = BulkSpec(900, 10, pair_at=now + 3_600_000, start_clocks_at=now + 3_900_000)
        with LichessClient(standin.url, organiser["token"]) as client:
            bulk = client.create_bulk(pair_up(links), spec)
            ids = [g.id for g in bulk.games]
            assert bulk.paired_at is None and len(ids) == 2
            assert client.export_games(ids).missing == ids  # games do not exist before pairAt
            with pytest.raises(NotFound):
                client.start_clocks(bulk.id)

            standin.advance(3_600_000)
            assert client.show_bulk(bulk.id).paired_at == bulk.pair_at
            waiting = client.export_games(ids).games
            assert [(g["status"], g["moves"]) for g in waiting] == [("started", "")] * 2
            assert all(not map_game(g).final for g in waiting)

            standin.advance(300_000 + 6 * 3_600_000)  # clocks start, then hours of play pass
            finished = client.export_games(ids).games
        assert all(map_game(g).final for g in finished)
        assert all(g["lastMoveAt"] >= bulk.start_clocks_at for g in finished)


def test_start_clocks_starts_waiting_games_and_a_future_bulk_can_be_cancelled():
    with running_standin() as standin:
        organiser = standin.user("organiser", 2100)
        links = make_players(standin, 8)
        tomorrow = int(time.time() * 1000) + 86_400_000
        with LichessClient(standin.url, organiser["token"]) as client:
            waiting = client.create_bulk(pair_up(links[:4]), BulkSpec(600, 0, start_clocks_at=tomorrow))
            ids = [g.id for g in waiting.games]
            assert {g["status"] for g in client.export_games(ids).games} == {"started"}
            assert [b.id for b in client.list_bulks()] == [waiting.id]  # paired, clocks not started
            client.start_clocks(waiting.id)
            assert all(map_game(g).final for g in client.export_games(ids).games)

            future = client.create_bulk(pair_up(links[4:]), BulkSpec(600, 0, pair_at=tomorrow))
            # As on Lichess, a bulk paired and clocked leaves the list; one still to be paired stays.
            assert {b.id for b in client.list_bulks()} == {future.id}
            client.cancel_bulk(future.id)
            with pytest.raises(NotFound):
                client.show_bulk(future.id)


def test_armageddon_unequal_clocks_are_kept_through_bulk_export_and_pgn():
    with running_standin() as standin:
        organiser = standin.user("organiser", 2100)
        links = make_players(standin, 2)
        with LichessClient(standin.url, organiser["token"]) as client:
            bulk = client.create_bulk(pair_up(links), BulkSpec(300, 0, white_limit_s=300, black_limit_s=240))
            assert bulk.raw["clock"] == {"limit": 300, "increment": 0, "whiteLimit": 300, "blackLimit": 240}
            [game] = client.export_games([bulk.games[0].id], pgn_in_json=True, clocks=True).games
        assert (game["clock"]["whiteInitial"], game["clock"]["blackInitial"]) == (300, 240)
        assert game["speed"] == "blitz"
        black_clocks = game["clocks"][1::2]
        assert all(c <= 24_000 for c in black_clocks)
        headers = chess.pgn.read_headers(io.StringIO(game["pgn"]))
        assert (headers["WhiteClock"], headers["BlackClock"]) == ("300+0", "240+0")


def test_a_bulk_with_an_unusable_token_is_rejected_whole_naming_the_player():
    with running_standin() as standin:
        organiser = standin.user("organiser", 2100)
        links = make_players(standin, 4)
        reader = standin.user("readonly", 1500, scopes=["challenge:read"])
        links[3] = PlayerLink("player-readonly", "readonly", SecretStr(reader["token"]))
        links[1] = PlayerLink("player-gone", "gone", SecretStr("lio_revokedOrNeverIssued"))
        with LichessClient(standin.url, organiser["token"]) as client:
            with pytest.raises(Rejected) as caught:
                client.create_bulk(pair_up(links), BulkSpec(600, 0))
            assert sorted(caught.value.player_ids) == ["player-gone", "player-readonly"]
            assert reader["token"] not in str(caught.value)
            assert client.list_bulks() == []


def test_a_player_links_an_account_by_oauth_with_pkce():
    with running_standin() as standin:
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        redirect = "http://orchestrator.test/link/callback"
        params = {
            "response_type": "code",
            "client_id": "olympiad-orchestrator",
            "redirect_uri": redirect,
            "code_challenge_method": "S256",
            "code_challenge": challenge,
            "scope": "challenge:write",
            "username": "Magnus_C",
            "state": "st4te",
        }
        answer = standin.admin.get("/oauth", params=params)
        assert answer.status_code == 303
        location = urlsplit(answer.headers["location"])
        query = {k: v[0] for k, v in parse_qs(location.query).items()}
        assert f"{location.scheme}://{location.netloc}{location.path}" == redirect
        assert query["state"] == "st4te"
        form = {
            "grant_type": "authorization_code",
            "code": query["code"],
            "code_verifier": verifier,
            "redirect_uri": redirect,
            "client_id": "olympiad-orchestrator",
        }
        wrong = standin.admin.post("/api/token", data={**form, "code_verifier": "x" * 43})
        assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"

        params["state"] = "again"
        again = urlsplit(standin.admin.get("/oauth", params=params).headers["location"])
        form["code"] = parse_qs(again.query)["code"][0]
        token = standin.admin.post("/api/token", data=form).raise_for_status().json()
        assert token["token_type"] == "Bearer" and token["access_token"].startswith("lio_")
        assert standin.admin.post("/api/token", data=form).status_code == 400  # a code is single use
        with LichessClient(standin.url, "") as client:
            assert client.account(token["access_token"])["username"] == "Magnus_C"


def test_the_oauth_page_asks_for_a_username_when_none_is_given():
    with running_standin() as standin:
        page = standin.admin.get(
            "/oauth",
            params={
                "response_type": "code",
                "client_id": "demo",
                "redirect_uri": "http://x.test/cb",
                "code_challenge_method": "S256",
                "code_challenge": "abc",
            },
        )
        assert page.status_code == 200 and 'name="username"' in page.text


def test_the_stream_reports_games_as_they_start_and_finish():
    with running_standin() as standin:
        organiser = standin.user("organiser", 2100)
        links = make_players(standin, 8)
        now = int(time.time() * 1000)
        with LichessClient(standin.url, organiser["token"]) as client:
            first = client.create_bulk(pair_up(links[:4]), BulkSpec(600, 0, start_clocks_at=now + 3_600_000))
            second = client.create_bulk(pair_up(links[4:]), BulkSpec(600, 0, start_clocks_at=now + 3_600_000))
            first_ids = [g.id for g in first.games]
            second_ids = [g.id for g in second.games]
            events: list[dict] = []
            with LichessClient(standin.url, organiser["token"]) as streamer:
                for event in streamer.stream_games("round-1", first_ids):
                    events.append(event)
                    if len(events) == 2:
                        client.add_to_stream("round-1", second_ids)
                    if len(events) == 4:
                        standin.advance(3_600_000)
                    if sum(1 for e in events if map_game(e).game_over) == 4:
                        break
        started = [e["id"] for e in events if e["statusName"] == "started"]
        ended = [e["id"] for e in events if map_game(e).game_over]
        assert sorted(started) == sorted(first_ids + second_ids)
        assert sorted(ended) == sorted(first_ids + second_ids)
        assert all(e["status"] != 20 or "winner" not in e for e in events)


def test_with_every_fault_injected_retries_still_end_with_exactly_one_result_per_game():
    faults = "429,500,slow,truncate,aborted,nostart"
    with running_standin(
        standin_faults=faults, standin_fault_rate=0.5, standin_slow_s=0.6, standin_seed=2020
    ) as standin:
        organiser = standin.user("organiser", 2100)
        links = make_players(standin, 40)
        slept: list[float] = []
        skipped: list[SkippedLine] = []
        now = int(time.time() * 1000)
        spec = BulkSpec(900, 10, pair_at=now, start_clocks_at=now + 1000)
        with LichessClient(standin.url, organiser["token"], timeout_s=0.3) as client:
            bulk = ensure_bulk(client, pair_up(links), spec, sleep=slept.append)
            ids = [g.id for g in bulk.games]
            for _ in range(10):  # the round task checks the bulk now and then
                shown = call_with_retries(lambda: client.show_bulk(bulk.id), sleep=slept.append)
                assert shown.id == bulk.id
            standin.advance(2000)
            results: dict[str, MappedResult] = {}
            for _ in range(500):
                pending = sorted(set(ids) - set(results))
                if not pending:
                    break
                exported = call_with_retries(lambda p=pending: client.export_games(p), sleep=slept.append)
                skipped.extend(exported.skipped)
                for game in exported.games:
                    mapped = map_game(game)
                    if mapped.game_over:
                        assert game["id"] not in results, "a game was counted twice"
                        results[game["id"]] = mapped
        state = standin.admin.get("/_standin/state").json()
        assert state["games"] == 20 and state["bulks"] == 1  # no bulk was created twice
        assert sorted(results) == sorted(ids)
        for game_id, mapped in results.items():
            assert mapped == expected(standin.truth(game_id))
        statuses = {m.status for m in results.values()}
        assert {"aborted", "noStart"} <= statuses
        assert any(m.needs_arbiter for m in results.values())
        assert skipped, "truncated lines were injected and skipped"
        assert any(delay >= 60 for delay in slept), "a 429 was injected and waited out"
        assert any(delay < 60 for delay in slept), "a 500 or a timeout was injected and retried"


def test_a_game_result_can_be_forced_through_the_admin_endpoint():
    with running_standin(standin_speed=1.0) as standin:
        organiser = standin.user("organiser", 2100)
        links = make_players(standin, 2)
        with LichessClient(standin.url, organiser["token"]) as client:
            bulk = client.create_bulk(pair_up(links), BulkSpec(600, 0))
            game_id = bulk.games[0].id
            assert not map_game(client.export_games([game_id]).games[0]).final
            forced = standin.admin.post(
                f"/_standin/games/{game_id}/result", json={"status": "cheat", "winner": "white"}
            )
            assert forced.json()["status"] == "cheat"
            mapped = map_game(client.export_games([game_id]).games[0])
        assert (mapped.needs_arbiter, mapped.final, mapped.proposed) == (True, False, GameResult.WHITE_WINS)
