"""The public page cache (web/http/page_cache.py): built once per change, 304 from the versions alone, never
a logged-in visitor's page. Builds are counted by ``app.state.page_cache.builds`` (no timing)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from starlette.types import Message, Receive, Scope, Send

from orchestrator.adapters import live_redis as bridge
from orchestrator.config import Settings
from orchestrator.services import live
from orchestrator.services.accounts.users import create_user
from orchestrator.web.http.page_cache import Entry, PageCache, PageCacheMiddleware
from tests.support.pools import FIRST_WINS_6_0, SeededPool, play, seed_small_pool

PASSWORD = "a long enough password"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, environment="test", secret_key="s" * 40)


@pytest.fixture
def seeded(app: FastAPI) -> SeededPool:
    with app.state.uow_factory() as uow:
        create_user(uow, username="annarbiter", password=PASSWORD, role="arbiter")
    return seed_small_pool(app.state.uow_factory)


def cache_of(app: FastAPI) -> PageCache:
    cache = app.state.page_cache
    assert isinstance(cache, PageCache)
    return cache


def staff_client(app: FastAPI) -> TestClient:
    staff = TestClient(app)
    answer = staff.post("/api/v1/auth/login", json={"username": "annarbiter", "password": PASSWORD})
    assert answer.status_code == 200
    return staff


def test_a_second_anonymous_get_of_a_pool_page_is_not_built_again(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    cache = cache_of(app)
    first = client.get(seeded.pool_path)
    assert first.status_code == 200 and cache.builds == 1
    second = client.get(seeded.pool_path)
    assert second.status_code == 200 and second.text == first.text
    assert second.headers["etag"] == first.headers["etag"]
    assert cache.builds == 1 and cache.hits == 1
    api = f"/api/v1/events/{seeded.slug}/stages/{seeded.stage_key}/pools/A"
    built = client.get(api)
    assert built.status_code == 200 and cache.builds == 2
    kept = client.get(api)
    assert kept.status_code == 200 and kept.json() == built.json()
    assert cache.builds == 2 and cache.hits == 2


def test_a_result_entered_through_the_service_is_shown_on_the_next_get(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    cache = cache_of(app)
    match_id = min(seeded.matches.values())
    before = client.get(seeded.pool_path)
    match_before = client.get(f"/events/{seeded.slug}/matches/{match_id}").text
    assert "6–0" not in before.text and "6–0" not in match_before
    builds = cache.builds
    play(app.state.uow_factory, match_id, FIRST_WINS_6_0)  # the results service announces after commit
    after = client.get(seeded.pool_path)
    assert cache.builds == builds + 1
    assert after.headers["etag"] != before.headers["etag"] and "6–0" in after.text
    assert "6–0" in client.get(f"/events/{seeded.slug}/matches/{match_id}").text


SECURITY = ("x-frame-options", "x-content-type-options", "content-security-policy", "referrer-policy")


def test_a_page_served_from_the_cache_carries_the_security_headers_and_no_cookie(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    """The cache answers in front of the middleware (web/app.py ``OlympiadApp``): the headers that the
    security middleware added when the page was built are kept with it, on the 200 and on the 304."""
    cache = cache_of(app)
    built = client.get(seeded.pool_path)
    kept = client.get(seeded.pool_path)
    revalidated = client.get(seeded.pool_path, headers={"If-None-Match": built.headers["etag"]})
    assert cache.builds == 1 and cache.hits == 2
    for answer in (built, kept, revalidated):
        assert all(answer.headers.get(name) for name in SECURITY), answer.headers
        assert answer.headers["cache-control"].startswith("public")
        assert "set-cookie" not in answer.headers
    assert revalidated.status_code == 304 and kept.headers["x-frame-options"] == "DENY"
    assert kept.headers["content-security-policy"] == built.headers["content-security-policy"]


def test_if_none_match_with_the_current_etag_is_answered_304_without_building(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    cache = cache_of(app)
    etag = client.get(seeded.pool_path).headers["etag"]
    assert cache.builds == 1
    again = client.get(seeded.pool_path, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    assert cache.builds == 1
    # With nothing kept (a restart), the first revalidation builds and keeps the page, the next does not.
    cache.clear()
    assert client.get(seeded.pool_path, headers={"If-None-Match": etag}).status_code == 304
    assert client.get(seeded.pool_path, headers={"If-None-Match": etag}).status_code == 304
    assert cache.builds == 2


def test_a_logged_in_staff_get_is_never_served_from_the_cache_and_is_not_stored(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    cache = cache_of(app)
    anonymous = client.get(seeded.pool_path)
    assert anonymous.headers["cache-control"].startswith("public, max-age=")
    staff = staff_client(app)
    for _ in range(2):
        page = staff.get(seeded.pool_path)
        assert page.status_code == 200 and "annarbiter" in page.text
        assert page.headers["cache-control"] == "private, no-store"
    assert cache.builds == 3 and cache.hits == 0
    revalidated = staff.get(seeded.pool_path, headers={"If-None-Match": anonymous.headers["etag"]})
    assert revalidated.status_code == 200 and "annarbiter" in revalidated.text
    desk = staff.get(f"/staff/events/{seeded.slug}/results")
    assert desk.status_code == 200 and desk.headers["cache-control"] == "private, no-store"


def test_the_anonymous_cached_page_carries_no_csrf_token_and_no_username(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    cache = cache_of(app)
    staff_client(app).get(seeded.pool_path)  # a staff member looked first
    for _ in range(2):
        page = client.get(seeded.pool_path)
        assert "csrf" not in page.text.lower() and "annarbiter" not in page.text
        assert "set-cookie" not in page.headers
        # the page is in the reader's language, and compressed for a client that reads gzip (httpx does)
        assert page.headers["vary"] == "Accept-Language, Cookie, Accept-Encoding"
    assert cache.hits == 1


def test_a_change_announced_by_another_process_bumps_this_process_versions() -> None:
    broadcaster = live.Broadcaster()
    seq = broadcaster.versions.seq
    listener = bridge.RedisListener(client=None, broadcaster=broadcaster)
    assert listener.deliver(bridge.encode(live.Message("pool:12", {"kind": "result"}), origin="worker"))
    assert broadcaster.versions.changed_since(["pool:12"], seq)
    assert not broadcaster.versions.changed_since(["pool:13", "event:x"], seq)


def test_the_cache_drops_the_least_recently_used_pages_past_its_byte_budget_and_expires_by_age() -> None:
    versions = live.TopicVersions()
    now = [0.0]
    cache = PageCache(versions, max_bytes=10, clock=lambda: now[0])

    def entry(body: bytes) -> Entry:
        return Entry(versions.seq, ("pool:1",), now[0], (), body, '"x"')

    cache.keep(("http", "h", "/a", ""), entry(b"123456"))
    cache.keep(("http", "h", "/b", ""), entry(b"123456"))
    assert cache.fresh(("http", "h", "/a", "")) is None and cache.fresh(("http", "h", "/b", "")) is not None
    now[0] = cache.max_age_s
    assert cache.fresh(("http", "h", "/b", "")) is None and cache.stale(("http", "h", "/b", "")) is not None
    now[0] = cache.max_age_s + cache.stale_s
    assert cache.stale(("http", "h", "/b", "")) is None


def _page_request(path: str) -> Scope:
    return {
        "type": "http",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "query_string": b"",
        "headers": [(b"host", b"testserver")],
    }


async def _get(middleware: PageCacheMiddleware, path: str) -> bytes:
    body = bytearray()

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(message: Message) -> None:
        body.extend(message.get("body", b""))

    await middleware(_page_request(path), receive, send)
    return bytes(body)


def test_while_a_page_past_its_age_is_rebuilt_others_get_the_kept_copy_but_never_after_a_change() -> None:
    versions = live.TopicVersions()
    now = [0.0]
    cache = PageCache(versions, clock=lambda: now[0])
    key = ("http", "testserver", "/p", "", "en")  # no cookie, no Accept-Language: English
    cache.keep(key, Entry(versions.seq, ("pool:1",), 0.0, ((b"etag", b'"old"'),), b"old", '"old"'))
    calls: list[str] = []

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        calls.append(scope["path"])
        await send({"type": "http.response.start", "status": 200, "headers": [(b"etag", b'"new"')]})
        await send({"type": "http.response.body", "body": b"new"})

    middleware = PageCacheMiddleware(route, store=cache, session_cookie="session")

    async def scenario() -> list[bytes]:
        cache.inflight[key] = asyncio.Event()  # one request is building the page again
        now[0] = cache.max_age_s + 1  # only its age ran out
        during_rebuild = await _get(middleware, "/p")
        versions.bump("pool:1")  # now a topic changed: the old copy is never served again
        waiting = asyncio.create_task(_get(middleware, "/p"))
        await asyncio.sleep(0.05)
        cache.inflight.pop(key).set()  # the build ended without keeping anything: the waiter builds
        return [during_rebuild, await waiting]

    assert asyncio.run(scenario()) == [b"old", b"new"]
    assert calls == ["/p"]


def test_a_second_live_subscriber_to_the_same_address_starts_at_once_while_the_first_stream_runs() -> None:
    """Two browsers on one pool page open the same live address: the second must not wait, as for a page
    being built, until the first one's endless stream ends."""
    release = asyncio.Event()

    async def stream(scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"text/event-stream")],
            }
        )
        await send({"type": "http.response.body", "body": b": ping\n\n", "more_body": True})
        await release.wait()
        await send({"type": "http.response.body", "body": b""})

    middleware = PageCacheMiddleware(stream, store=PageCache(), session_cookie="session")
    scope: Scope = {
        "type": "http",
        "method": "GET",
        "scheme": "http",
        "path": "/events/x/live",
        "query_string": b"topic=pool%3A1",
        "headers": [(b"host", b"testserver"), (b"accept", b"text/event-stream")],
    }

    async def receive() -> Message:
        await release.wait()
        return {"type": "http.disconnect"}

    async def subscribe(started: asyncio.Event) -> None:
        async def send(message: Message) -> None:
            if message["type"] == "http.response.start":
                started.set()

        await middleware(scope, receive, send)

    async def run() -> bool:
        first, second = asyncio.Event(), asyncio.Event()
        tasks = [asyncio.create_task(subscribe(first))]
        await asyncio.wait_for(first.wait(), 5)
        tasks.append(asyncio.create_task(subscribe(second)))
        try:
            await asyncio.wait_for(second.wait(), 2)  # the middleware's wait for a page being built is 10 s
            return True
        except TimeoutError:
            return False
        finally:
            release.set()
            await asyncio.gather(*tasks)

    assert asyncio.run(run())


def test_the_home_page_is_kept_until_any_event_announces_a_change(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    cache = cache_of(app)
    for path in ("/", "/api/v1/events"):
        builds = cache.builds
        first = client.get(path)
        assert first.status_code == 200 and seeded.slug in first.text
        assert client.get(path).text == first.text and cache.builds == builds + 1
        live.publish("event:another-event", kind="event")  # any event: a new one may now be listed
        assert client.get(path).status_code == 200 and cache.builds == builds + 2
    staff = staff_client(app)
    builds = cache.builds
    assert "annarbiter" in staff.get("/").text and "annarbiter" in staff.get("/").text
    assert cache.builds == builds + 2  # a logged-in visitor's home page is built for them each time


def test_a_board_pgn_is_kept_until_its_match_is_announced(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    cache = cache_of(app)
    match_id = min(seeded.matches.values())
    with app.state.uow_factory() as uow:
        board = next(b for b in uow.read.boards_of_matches([match_id]) if b.board_no == 1)
        board.pgn = '[Event "first"]\n\n1. e4 *\n'
        uow.session.add(board)
    path = f"/events/{seeded.slug}/matches/{match_id}/boards/1.pgn"
    first = client.get(path)
    assert first.status_code == 200 and "first" in first.text and cache.builds == 1
    assert client.get(path, headers={"If-None-Match": first.headers["etag"]}).status_code == 304
    assert cache.builds == 1
    with app.state.uow_factory() as uow:
        board = next(b for b in uow.read.boards_of_matches([match_id]) if b.board_no == 1)
        board.pgn = '[Event "second"]\n\n1. d4 *\n'
        uow.session.add(board)
    live.publish(f"match:{match_id}", kind="result")  # what ingestion announces after storing the game
    assert "second" in client.get(path).text and cache.builds == 2
    assert client.get(f"/events/{seeded.slug}/matches/{match_id}/boards/9.pgn").status_code == 404


@pytest.mark.parametrize(
    "spelling",
    ["olympiad_session ={}", " olympiad_session= {}", 'olympiad_session="{}"', "x=1;olympiad_session={}"],
)
def test_a_session_cookie_in_any_spelling_starlette_reads_is_never_kept_for_the_next_reader(
    app: FastAPI, seeded: SeededPool, spelling: str
) -> None:
    """The cache decides "anonymous" from the cookies as the application parses them (docs/security.md,
    "Sessions"): a session cookie spelled with a space before ``=`` still logs the reader in."""
    cache = cache_of(app)
    session = staff_client(app).cookies["olympiad_session"]
    owner = TestClient(app).get(seeded.pool_path, headers={"Cookie": spelling.format(session)})
    assert owner.status_code == 200 and "annarbiter" in owner.text
    stranger = TestClient(app).get(seeded.pool_path)
    assert "annarbiter" not in stranger.text and "csrf" not in stranger.text.lower()
    assert cache.hits == 0


def test_an_answer_built_with_a_session_is_never_kept_even_when_the_cache_missed_the_cookie(
    app: FastAPI, seeded: SeededPool
) -> None:
    """Defence in depth: whatever made the request look anonymous, an answer whose request loaded a
    session (``scope["session"]`` not empty) is passed on and not kept."""

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        scope["session"] = {"user_id": 1}
        scope["olympiad.page_cache"].topics = ("t",)
        await send({"type": "http.response.start", "status": 200, "headers": [(b"etag", b'"1"')]})
        await send({"type": "http.response.body", "body": b"owner's page"})

    cache = PageCache()
    middleware = PageCacheMiddleware(route, store=cache, session_cookie="session")
    scope: Scope = {"type": "http", "method": "GET", "path": "/p", "query_string": b"", "headers": []}
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(middleware(scope, receive, send))
    assert sent[-1]["body"] == b"owner's page" and len(cache) == 0


def test_a_forged_host_header_never_reaches_the_page_s_script_or_style_addresses(
    app: FastAPI, seeded: SeededPool
) -> None:
    """docs/security.md, "Headers": the pages name their scripts and styles by relative URLs, so a page
    built for a forged Host (and kept under it) never loads a script from elsewhere."""
    page = TestClient(app).get(seeded.pool_path, headers={"Host": "evil.example"})
    assert page.status_code == 200 and "evil.example" not in page.text
    assert 'src="/static/' in page.text


def test_a_page_built_with_an_anonymous_session_is_private_and_not_kept(
    app: FastAPI, seeded: SeededPool
) -> None:
    """A session holding only a CSRF token (the visitor opened the login form) still marks the answer
    private: nothing built with a session is stored (docs/security.md, "The public page cache")."""
    cache = cache_of(app)
    visitor = TestClient(app)
    assert visitor.get("/login").status_code == 200 and "olympiad_session" in visitor.cookies
    page = visitor.get(seeded.pool_path)
    assert page.status_code == 200 and page.headers["cache-control"] == "private, no-store"
    assert len(cache) == 0
