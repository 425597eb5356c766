"""The Chess.com HTTP client: polite requests, and every failure mapped to a clear error."""

import httpx
import pytest

from orchestrator.adapters.chesscom import (
    BadResponse,
    ChessComClient,
    ChessComError,
    NotFound,
    RateLimited,
    TransientError,
)
from tests.support.chesscom_fake import AGENT, BASE, FakeChessCom


def test_requests_carry_the_contact_user_agent_and_ask_for_json() -> None:
    fake = FakeChessCom({"/pub/match/1201": "match_1201.json"})
    match = fake.client().get_match(1201)
    assert match["status"] == "finished"
    (request,) = fake.requests
    assert request.headers["User-Agent"] == AGENT
    assert request.headers["Accept"] == "application/json"
    assert str(request.url) == f"{BASE}/pub/match/1201"


def test_a_user_agent_without_a_contact_is_refused() -> None:
    with pytest.raises(ValueError, match="contact"):
        ChessComClient(BASE, "olympiad-orchestrator")


def test_live_matches_use_the_live_paths() -> None:
    fake = FakeChessCom({"/pub/match/live/77": {"status": "finished"}, "/pub/match/live/77/3": {"games": []}})
    client = fake.client()
    client.get_match(77, live=True)
    client.get_match_board(77, 3, live=True)
    assert fake.paths == ["/pub/match/live/77", "/pub/match/live/77/3"]


def test_archives_are_read_as_year_month_pairs_with_the_username_in_lower_case() -> None:
    fake = FakeChessCom({"/pub/player/alphaknight/games/archives": "archives_alphaknight.json"})
    assert fake.client().get_archives("AlphaKnight") == [(2020, 6), (2020, 7), (2020, 8)]
    assert fake.paths == ["/pub/player/alphaknight/games/archives"]


def test_month_games_come_from_the_zero_padded_month_path() -> None:
    fake = FakeChessCom({"/pub/player/alphaknight/games/2020/07": "games_alphaknight_2020_07.json"})
    games = fake.client().get_month_games("AlphaKnight", 2020, 7)
    assert [g["url"] for g in games] == ["https://www.chess.com/game/live/900000401"]


def test_an_empty_month_is_an_empty_list() -> None:
    fake = FakeChessCom({"/pub/player/alphaknight/games/2020/09": {"games": []}})
    assert fake.client().get_month_games("alphaknight", 2020, 9) == []


@pytest.mark.parametrize("name", ["../admin", "a b", "x/y", "", "ünïcode"])
def test_usernames_that_chess_com_cannot_have_are_refused_before_any_request(name: str) -> None:
    fake = FakeChessCom()
    with pytest.raises(ValueError, match=r"not a Chess\.com username"):
        fake.client().get_archives(name)
    assert fake.requests == []


def test_http_429_is_rate_limited_for_at_least_a_minute_even_when_the_server_says_less() -> None:
    fake = FakeChessCom({"/pub/match/1": httpx.Response(429, headers={"Retry-After": "5"})})
    with pytest.raises(RateLimited) as caught:
        fake.client().get_match(1)
    assert caught.value.retry_after == 60


def test_http_429_keeps_a_longer_retry_after() -> None:
    fake = FakeChessCom({"/pub/match/1": httpx.Response(429, headers={"Retry-After": "300"})})
    with pytest.raises(RateLimited) as caught:
        fake.client().get_match(1)
    assert caught.value.retry_after == 300


def test_an_html_429_without_retry_after_waits_a_minute() -> None:
    page = httpx.Response(429, text="<html><body>Too many requests</body></html>")
    fake = FakeChessCom({"/pub/match/1": page})
    with pytest.raises(RateLimited) as caught:
        fake.client().get_match(1)
    assert caught.value.retry_after == 60


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_are_transient(status: int) -> None:
    fake = FakeChessCom({"/pub/match/1": httpx.Response(status, text="oops")})
    with pytest.raises(TransientError) as caught:
        fake.client().get_match(1)
    assert caught.value.status_code == status


@pytest.mark.parametrize(
    "exc", [httpx.ReadTimeout("slow"), httpx.ConnectTimeout("slow"), httpx.ConnectError("refused")]
)
def test_timeouts_and_dropped_connections_are_transient(exc: Exception) -> None:
    def fail(request: httpx.Request) -> httpx.Response:
        raise exc

    fake = FakeChessCom({"/pub/match/1": fail})
    with pytest.raises(TransientError, match="team match 1"):
        fake.client().get_match(1)


def test_an_unknown_match_is_not_found_with_a_message_naming_it() -> None:
    with pytest.raises(NotFound, match=r"no team match 424242 \(HTTP 404"):
        FakeChessCom().client().get_match(424242)


def test_an_unknown_player_is_not_found_with_a_message_naming_them() -> None:
    with pytest.raises(NotFound, match="'NoSuchPlayer'"):
        FakeChessCom().client().get_archives("NoSuchPlayer")


def test_gone_410_is_not_found_too() -> None:
    fake = FakeChessCom({"/pub/match/9": httpx.Response(410)})
    with pytest.raises(NotFound, match="410"):
        fake.client().get_match(9)


def test_a_redirect_is_followed() -> None:
    fake = FakeChessCom(
        {
            "/pub/player/oldname/games/archives": httpx.Response(
                301, headers={"Location": f"{BASE}/pub/player/newname/games/archives"}
            ),
            "/pub/player/newname/games/archives": {"archives": []},
        }
    )
    assert fake.client().get_archives("OldName") == []
    assert fake.paths == ["/pub/player/oldname/games/archives", "/pub/player/newname/games/archives"]


def test_other_client_errors_are_plain_chess_com_errors() -> None:
    fake = FakeChessCom({"/pub/match/1": httpx.Response(403)})
    with pytest.raises(ChessComError, match="HTTP 403") as caught:
        fake.client().get_match(1)
    assert not isinstance(caught.value, TransientError | NotFound | RateLimited | BadResponse)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"<html>maintenance</html>", "not JSON"),
        (b'{"games": [', "not JSON"),
        (b"\xff\xfe\x00garbage", "not JSON"),
        (b"[1, 2, 3]", "not an object"),
        (b'"just a string"', "not an object"),
    ],
)
def test_garbage_instead_of_json_is_a_bad_response(body: bytes, message: str) -> None:
    fake = FakeChessCom({"/pub/match/1": httpx.Response(200, content=body)})
    with pytest.raises(BadResponse, match=message):
        fake.client().get_match(1)


@pytest.mark.parametrize(
    ("path", "body", "call"),
    [
        ("/pub/match/1/1", {"board_scores": {}}, lambda c: c.get_match_board(1, 1)),
        ("/pub/match/1/1", {"games": "none"}, lambda c: c.get_match_board(1, 1)),
        ("/pub/player/a/games/archives", {"archive": []}, lambda c: c.get_archives("a")),
        (
            "/pub/player/a/games/archives",
            {"archives": ["https://x/games/2020"]},
            lambda c: c.get_archives("a"),
        ),
        (
            "/pub/player/a/games/2020/08",
            {"games": [{"white": {}, "black": {}}]},
            lambda c: c.get_month_games("a", 2020, 8),
        ),
        ("/pub/player/a/games/2020/08", {"games": ["game"]}, lambda c: c.get_month_games("a", 2020, 8)),
    ],
)
def test_json_in_the_wrong_shape_is_a_bad_response(path, body, call) -> None:
    fake = FakeChessCom({path: body})
    with pytest.raises(BadResponse):
        call(fake.client())


def test_an_injected_client_is_left_open_and_an_own_client_is_closed() -> None:
    injected = httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200, json={})))
    with ChessComClient(BASE, AGENT, client=injected):
        pass
    assert not injected.is_closed
    own = ChessComClient(BASE, AGENT)
    own.close()
    assert own._client.is_closed
