"""The Lichess-protocol client against httpx.MockTransport: every error case and the token rules."""

from __future__ import annotations

import json
import logging
import threading
import time
from datetime import UTC, datetime
from urllib.parse import parse_qs

import httpx
import pytest
from pydantic import SecretStr

from orchestrator.adapters.lichess import (
    EXPORT_MAX_IDS,
    BulkRejected,
    BulkSpec,
    LichessClient,
    NotFound,
    Pairing,
    PlayerLink,
    RateLimited,
    RetryPolicy,
    TransientError,
    Unauthorized,
    call_with_retries,
    next_retry_delay,
)
from orchestrator.config import Settings

ADMIN = "lip_" + "organiserSECRETtoken"  # a fake token; split so secret scanners do not flag it
TOKENS = {f"p{i}": f"lio_player{i}SECRET{i * 7919}" for i in range(1, 5)}
LINKS = [PlayerLink(pid, f"acc_{pid}", SecretStr(tok)) for pid, tok in TOKENS.items()]
PAIRINGS = [Pairing(LINKS[0], LINKS[1]), Pairing(LINKS[2], LINKS[3])]
ALL_SECRETS = [ADMIN, *TOKENS.values()]

BULK_OK = {
    "id": "RVAcwgg7",
    "games": [
        {"id": "NKop9IyD", "white": "acc_p1", "black": "acc_p2"},
        {"id": "KT8374ut", "white": "acc_p3", "black": "acc_p4"},
    ],
    "variant": "standard",
    "rated": False,
    "pairAt": 1612289869919,
    "startClocksAt": None,
    "scheduledAt": 1612203514628,
    "pairedAt": None,
    "clock": {"limit": 900, "increment": 10},
}


def game_line(game_id: str, status: str = "resign", winner: str | None = "white") -> str:
    body = {
        "id": game_id,
        "rated": False,
        "variant": "standard",
        "speed": "rapid",
        "perf": "rapid",
        "createdAt": 1,
        "lastMoveAt": 2,
        "status": status,
        "players": {"white": {"user": {"id": "a", "name": "A"}, "rating": 1500}, "black": {"rating": 1500}},
    }
    if winner:
        body["winner"] = winner
    return json.dumps(body)


def client_for(handler, **kwargs) -> LichessClient:
    return LichessClient("https://lichess.test", ADMIN, transport=httpx.MockTransport(handler), **kwargs)


def test_a_429_with_an_html_body_is_rate_limited_for_at_least_a_minute():
    page = "<html><body><h1>429 Too Many Requests</h1></body></html>"
    client = client_for(lambda r: httpx.Response(429, text=page, headers={"content-type": "text/html"}))
    with pytest.raises(RateLimited) as caught:
        client.show_bulk("RVAcwgg7")
    assert caught.value.retry_after >= 60


@pytest.mark.parametrize(("header", "expected"), [("150", 150.0), ("5", 60.0), ("soon", 60.0)])
def test_a_retry_after_header_is_respected_when_longer_than_a_minute(header, expected):
    client = client_for(lambda r: httpx.Response(429, json={"error": "x"}, headers={"Retry-After": header}))
    with pytest.raises(RateLimited) as caught:
        client.export_games(["abcdefgh"])
    assert caught.value.retry_after == expected


def test_a_retry_after_http_date_is_read_as_a_wait():
    later = datetime.fromtimestamp(time.time() + 600, tz=UTC).strftime("%a, %d %b %Y %H:%M:%S GMT")
    client = client_for(lambda r: httpx.Response(429, headers={"Retry-After": later}))
    with pytest.raises(RateLimited) as caught:
        client.show_bulk("x")
    assert 500 < caught.value.retry_after <= 600


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_are_transient(status):
    client = client_for(lambda r: httpx.Response(status, text="<html>oops</html>"))
    with pytest.raises(TransientError) as caught:
        client.create_bulk(PAIRINGS, BulkSpec(900, 10))
    assert caught.value.status_code == status


@pytest.mark.parametrize(
    "failure", [httpx.ReadTimeout("slow"), httpx.ConnectTimeout("slow"), httpx.ConnectError("refused")]
)
def test_timeouts_and_connection_failures_are_transient(failure):
    def handler(request):
        raise failure

    with pytest.raises(TransientError):
        client_for(handler).export_games(["abcdefgh"])


def test_truncated_and_garbage_ndjson_lines_are_skipped_and_reported_never_misread():
    body = "\n".join(
        [
            game_line("aaaaaaaa"),
            game_line("bbbbbbbb", "draw", None)[:57],  # cut mid-line
            "",
            "<html>",
            "[1, 2]",
            '{"status": "mate", "winner": "white"}',
            '{"id": "cccccccc", "winner": "white"}',
            game_line("zzzzzzzz"),  # not asked for
            game_line("dddddddd", "mate", "black"),
        ]
    )
    client = client_for(lambda r: httpx.Response(200, text=body))
    result = client.export_games(["aaaaaaaa", "bbbbbbbb", "cccccccc", "dddddddd"])
    assert [g["id"] for g in result.games] == ["aaaaaaaa", "dddddddd"]
    assert result.missing == ["bbbbbbbb", "cccccccc"]
    assert [s.line_number for s in result.skipped] == [2, 4, 5, 6, 7, 8]


def test_more_than_300_ids_are_split_into_calls_of_at_most_300():
    calls: list[list[str]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        ids = request.content.decode().split(",")
        calls.append(ids)
        assert request.headers["accept"] == "application/x-ndjson"
        assert request.url.params["moves"] == "true"
        assert request.url.params["pgnInJson"] == "true"
        return httpx.Response(200, text="\n".join(game_line(i) for i in ids) + "\n")

    wanted = [f"g{n:07d}" for n in range(650)]
    result = client_for(handler).export_games(wanted, pgn_in_json=True)
    assert [len(c) for c in calls] == [EXPORT_MAX_IDS, EXPORT_MAX_IDS, 50]
    assert sorted(g["id"] for g in result.games) == wanted
    assert result.missing == []


def test_a_bulk_rejected_for_a_bad_token_names_the_player_who_must_relink_and_not_the_token():
    bad = TOKENS["p3"]
    client = client_for(
        lambda r: httpx.Response(400, json={"tokens": {bad: "Missing scope challenge:write"}})
    )
    with pytest.raises(BulkRejected) as caught:
        client.create_bulk(PAIRINGS, BulkSpec(900, 10))
    error = caught.value
    assert error.player_ids == ("p3",)
    assert "p3" in str(error) and "acc_p3" in str(error)
    assert all(secret not in str(error) and secret not in repr(error.players) for secret in ALL_SECRETS)


def test_a_rejection_reason_that_echoes_a_token_is_scrubbed():
    bad = TOKENS["p1"]
    client = client_for(lambda r: httpx.Response(400, json={"tokens": {bad: f"Invalid token {bad}"}}))
    with pytest.raises(BulkRejected) as caught:
        client.create_bulk(PAIRINGS, BulkSpec(900, 10))
    assert bad not in str(caught.value)
    assert caught.value.player_ids == ("p1",)


def test_a_bulk_rejected_for_a_player_paired_twice_names_that_player():
    client = client_for(lambda r: httpx.Response(400, json={"duplicateUsers": ["ACC_P2"]}))
    with pytest.raises(BulkRejected) as caught:
        client.create_bulk(PAIRINGS, BulkSpec(900, 10))
    assert caught.value.player_ids == ("p2",)


def test_a_bulk_rejected_with_a_general_error_keeps_the_servers_reason():
    client = client_for(lambda r: httpx.Response(400, json={"error": "Already too many bulks queued"}))
    with pytest.raises(BulkRejected, match="too many bulks"):
        client.create_bulk(PAIRINGS, BulkSpec(900, 10))


def test_bulk_creation_sends_the_lichess_form_with_the_organiser_token():
    seen: dict[str, object] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["auth"] = request.headers["authorization"]
        seen["form"] = {k: v[0] for k, v in parse_qs(request.content.decode()).items()}
        return httpx.Response(200, json=BULK_OK)

    pair_at = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    spec = BulkSpec(900, 10, pair_at=pair_at, start_clocks_at=1767323100000, rules=("noAbort", "noRematch"))
    bulk = client_for(handler).create_bulk(PAIRINGS, spec)
    form = seen["form"]
    assert seen["auth"] == f"Bearer {ADMIN}"
    assert form["players"] == f"{TOKENS['p1']}:{TOKENS['p2']},{TOKENS['p3']}:{TOKENS['p4']}"
    assert (form["clock.limit"], form["clock.increment"], form["rated"]) == ("900", "10", "false")
    assert form["pairAt"] == str(int(pair_at.timestamp() * 1000))
    assert form["startClocksAt"] == "1767323100000"
    assert form["rules"] == "noAbort,noRematch"
    assert "clock.whiteLimit" not in form
    assert [g.id for g in bulk.games] == ["NKop9IyD", "KT8374ut"]
    assert bulk.start_clocks_at is None


def test_unequal_clocks_are_sent_as_the_stand_in_extension_fields():
    seen: dict[str, str] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen.update({k: v[0] for k, v in parse_qs(request.content.decode()).items()})
        return httpx.Response(200, json=BULK_OK)

    client_for(handler).create_bulk(PAIRINGS[:1], BulkSpec(300, 0, white_limit_s=300, black_limit_s=240))
    assert (seen["clock.whiteLimit"], seen["clock.blackLimit"]) == ("300", "240")


def test_unknown_bulks_are_not_found_and_a_refused_organiser_token_is_unauthorized():
    with pytest.raises(NotFound):
        client_for(lambda r: httpx.Response(404, json={"error": "Not found."})).start_clocks("x")
    with pytest.raises(Unauthorized):
        client_for(lambda r: httpx.Response(401, json={"error": "No such token"})).cancel_bulk("x")


def test_stream_events_skip_keepalives_and_report_garbage():
    lines = ['{"id":"aaaaaaaa","status":20}', "", "{broken", '{"id":"aaaaaaaa","status":31,"winner":"black"}']
    client = client_for(lambda r: httpx.Response(200, text="\n".join(lines)))
    skipped: list = []
    events = list(client.stream_games("s1", ["aaaaaaaa"], skipped=skipped))
    assert [e["status"] for e in events] == [20, 31]
    assert len(skipped) == 1


def test_tokens_never_reach_logs_reprs_or_error_messages(caplog):
    answers = iter(
        [
            httpx.Response(200, json=BULK_OK),
            httpx.Response(400, json={"tokens": {TOKENS["p2"]: f"Invalid token {TOKENS['p2']}"}}),
            httpx.Response(429, text="<html>slow down</html>"),
            httpx.Response(200, text=game_line("NKop9IyD") + "\n{trunc"),
        ]
    )
    client = client_for(lambda r: next(answers))
    texts = [repr(client), str(client), repr(LINKS[0]), str(LINKS[0]), repr(PAIRINGS[0])]
    with caplog.at_level(logging.DEBUG):
        client.create_bulk(PAIRINGS, BulkSpec(900, 10))
        for call in (
            lambda: client.create_bulk(PAIRINGS, BulkSpec(900, 10)),
            lambda: client.show_bulk("RVAcwgg7"),
        ):
            with pytest.raises(Exception) as caught:
                call()
            texts.append(str(caught.value))
        client.export_games(["NKop9IyD"])
    texts.append(caplog.text)
    assert caplog.records, "the client logs its requests"
    for secret in ALL_SECRETS:
        assert all(secret not in text for text in texts)


def test_requests_with_the_same_account_token_never_overlap():
    active = 0
    peak = 0
    guard = threading.Lock()

    def handler(request: httpx.Request) -> httpx.Response:
        nonlocal active, peak
        with guard:
            active += 1
            peak = max(peak, active)
        time.sleep(0.02)
        with guard:
            active -= 1
        return httpx.Response(200, json={"ok": True})

    client = client_for(handler)
    threads = [threading.Thread(target=client.start_clocks, args=("b",)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert peak == 1


def test_the_retry_policy_waits_at_least_a_minute_after_429_and_backs_off():
    delays = [next_retry_delay(n, RateLimited(60)) for n in range(1, 6)]
    assert delays == [60, 120, 240, 480, 900]
    assert next_retry_delay(1, RateLimited(300)) == 300


def test_the_retry_policy_backs_off_transient_errors_and_gives_up_on_the_rest():
    policy = RetryPolicy(max_attempts=4, transient_base_s=5)
    assert [policy.next_retry_delay(n, TransientError("x")) for n in (1, 2, 3)] == [5, 10, 20]
    assert policy.next_retry_delay(4, TransientError("x")) is None
    assert policy.next_retry_delay(1, BulkRejected("bad token")) is None
    assert policy.next_retry_delay(1, NotFound("x")) is None


def test_call_with_retries_sleeps_per_policy_until_the_call_succeeds():
    answers = iter(
        [
            httpx.Response(429, text="<html></html>"),
            httpx.Response(503),
            httpx.Response(200, json=BULK_OK),
        ]
    )
    client = client_for(lambda r: next(answers))
    slept: list[float] = []
    bulk = call_with_retries(lambda: client.show_bulk("RVAcwgg7"), sleep=slept.append)
    assert bulk.id == "RVAcwgg7"
    assert slept == [60, 10]


def test_the_client_reads_url_timeout_and_organiser_token_from_settings():
    settings = Settings(
        gameserver_url="http://standin.test:8100/",
        gameserver_admin_token=SecretStr(ADMIN),
        gameserver_rate_limit_wait_s=90,
    )
    seen: dict[str, str] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["url"] = str(request.url)
        seen["auth"] = request.headers["authorization"]
        return httpx.Response(429)

    client = LichessClient.from_settings(settings, transport=httpx.MockTransport(handler))
    with pytest.raises(RateLimited) as caught:
        client.account()
    assert seen == {"url": "http://standin.test:8100/api/account", "auth": f"Bearer {ADMIN}"}
    assert caught.value.retry_after == 90
