"""Spectator pages on PostgreSQL: standings and cross table of a seeded pool, ETag/304 across a result,
the live stream delivering a message after a commit, and the Redis bridge between processes."""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest
import redis
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters import live_redis as bridge
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.ports import free_port
from orchestrator.services import live
from orchestrator.services.read import standings
from orchestrator.web.app import create_app
from tests.support.ci import missing
from tests.support.pools import DRAW_3_3, FIRST_WINS_6_0, SeededPool, play
from tests.support.server import serving

pytestmark = pytest.mark.integration


@pytest.fixture
def app(pg_url: str, uow_factory: UnitOfWorkFactory) -> Iterator[FastAPI]:
    application = create_app(Settings(database_url=pg_url, environment="test"), uow_factory=uow_factory)
    with TestClient(application):
        yield application


def test_the_pool_page_on_postgresql_shows_the_standings_and_cross_table_of_the_results(
    app: FastAPI, uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    r1 = sorted(k for k in seeded.matches if k[0] == 1)
    play(uow_factory, seeded.matches[r1[0]], FIRST_WINS_6_0)
    play(uow_factory, seeded.matches[r1[1]], DRAW_3_3)
    _, winner, loser = r1[0]
    _, drawn_a, drawn_b = r1[1]
    with uow_factory() as uow:
        view = standings.pool_view(uow, slug=seeded.slug, stage_key=seeded.stage_key, letter=seeded.letter)
    assert view.standings_source == "stored"  # the results service stored them on PostgreSQL
    names = [line.team.name for line in view.standings]
    assert (names[0], names[3]) == (winner, loser)
    assert {line.team.name for line in view.standings[1:3]} == {drawn_a, drawn_b}
    assert view.standings[1].rank == view.standings[2].rank == 2  # level on every criterion so far

    page = TestClient(app).get(seeded.pool_path)
    assert page.status_code == 200
    cross = page.text.split('class="cross"')[1].split("</table>")[0]
    first_row = re.findall(r"<tr>(.*?)</tr>", cross.split("<tbody>")[1], re.S)[0]
    assert winner in first_row and 'class="cell win"' in first_row and ">6</a>" in first_row
    assert '<td class="num key">2</td>' in first_row


def test_304_while_nothing_changes_then_200_with_a_new_etag_after_a_result(
    app: FastAPI, uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    client = TestClient(app)
    paths = [
        seeded.pool_path,
        f"/api/v1/events/{seeded.slug}/stages/{seeded.stage_key}/pools/{seeded.letter}",
    ]
    etags = {path: client.get(path).headers["etag"] for path in paths}
    for path in paths:
        assert client.get(path, headers={"If-None-Match": etags[path]}).status_code == 304
    play(uow_factory, seeded.matches[min(seeded.matches)], DRAW_3_3)
    for path in paths:
        answer = client.get(path, headers={"If-None-Match": etags[path]})
        assert answer.status_code == 200
        assert answer.headers["etag"] != etags[path]


@pytest.fixture
def served(pg_url: str, uow_factory: UnitOfWorkFactory) -> Iterator[str]:
    application = create_app(Settings(database_url=pg_url, environment="test"), uow_factory=uow_factory)
    with serving(application, free_port(), lifespan="auto") as base:
        yield base


def test_the_live_stream_delivers_a_change_after_a_result_is_committed(
    served: str, uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    match_id = min(seeded.matches.values())
    url = f"{served}/events/{seeded.slug}/live?topic=pool:{seeded.pool_id}"
    events: list[tuple[str, dict[str, object]]] = []
    with httpx.stream("GET", url, timeout=httpx.Timeout(20.0)) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        name = ""
        for line in stream.iter_lines():
            if line.startswith("event:"):
                name = line.split(":", 1)[1].strip()
            elif line.startswith("data:"):
                events.append((name, json.loads(line.split(":", 1)[1])))
                if name == "ready":
                    play(uow_factory, match_id, DRAW_3_3[:1] + ("*",) * 5)  # commit one board's result
                elif name == "change":
                    break
    assert events[0] == ("ready", {"topics": sorted([f"event:{seeded.slug}", f"pool:{seeded.pool_id}"])})
    kind, payload = events[-1]
    assert kind == "change" and payload["topic"] in (f"pool:{seeded.pool_id}", f"event:{seeded.slug}")


def _redis_or_skip(url: str) -> redis.Redis:
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.RedisError as error:
        missing(f"Redis is not reachable: {error}")
    return client


@contextmanager
def _bridged() -> Iterator[tuple[live.Broadcaster, live.Broadcaster]]:
    """A web process's broadcaster and a worker's, joined by the Redis bridge on a channel of their own,
    once the web side's listener is subscribed."""
    client = _redis_or_skip(Settings(task_mode="celery").redis_url)
    channel = f"olympiad:live:test:{secrets.token_hex(4)}"
    web = live.Broadcaster()
    listener = bridge.RedisListener(client, web, channel=channel, origin="web").start()
    worker = live.Broadcaster()
    worker.add_forwarder(bridge.RedisPublisher(client, channel=channel, origin="worker"))
    try:
        assert listener.ready.wait(10)
        yield web, worker
    finally:
        listener.stop()


def test_the_redis_bridge_carries_a_message_from_one_process_to_anothers_subscribers() -> None:
    with _bridged() as (web, worker):

        async def scenario() -> live.Message:
            async with web.subscribe({"pool:42"}) as queue:
                # Redis confirms a subscription asynchronously: publish again until one arrives.
                for _ in range(20):
                    worker.publish("pool:42", {"kind": "result"})
                    try:
                        return await asyncio.wait_for(queue.get(), 0.5)
                    except TimeoutError:
                        continue
                raise AssertionError("no message crossed the bridge")

        message = asyncio.run(scenario())
    assert (message.topic, message.data) == ("pool:42", {"kind": "result"})


def test_one_commits_messages_cross_the_redis_bridge_together_and_in_order() -> None:
    batch = [live.Message(f"match:{n}", {"kind": "result"}) for n in range(50)]
    with _bridged() as (web, worker):

        async def scenario() -> list[str]:
            async with web.subscribe({m.topic for m in batch}) as queue:
                for _ in range(20):  # Redis confirms a subscription asynchronously: send again until seen
                    worker.publish_many(batch)
                    try:
                        first = await asyncio.wait_for(queue.get(), 0.5)
                    except TimeoutError:
                        continue
                    rest = [(await asyncio.wait_for(queue.get(), 5)).topic for _ in range(49)]
                    return [first.topic, *rest]
                raise AssertionError("no message crossed the bridge")

        topics = asyncio.run(scenario())
    assert topics == [m.topic for m in batch]
