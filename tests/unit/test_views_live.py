"""Live-update plumbing of the spectator slice: what SSE forwards, ETag matching, the Redis bridge codec."""

from __future__ import annotations

import asyncio

from orchestrator.adapters import live_redis as bridge
from orchestrator.config import Settings
from orchestrator.services import live, live_redis
from orchestrator.web.http.caching import etag_of, matches
from orchestrator.web.http.sse import TOPIC, safe_payload


def test_sse_forwards_only_the_topic_kind_and_integer_ids() -> None:
    message = live.Message(
        "duel:7",
        {"kind": "nomination", "duel_id": 7, "nominee": "Secret Player", "seed_hex": "abc", "player_id": "x"},
    )
    assert safe_payload(message) == {"topic": "duel:7", "kind": "nomination", "duel_id": 7}


def test_sse_drops_a_kind_that_is_not_a_plain_word() -> None:
    assert safe_payload(live.Message("pool:1", {"kind": "<script>"})) == {"topic": "pool:1"}


def test_topics_are_kind_and_id_only() -> None:
    assert TOPIC.match("pool:12") and TOPIC.match("event:online-olympiad-2020")
    assert not TOPIC.match("pool:12 ") and not TOPIC.match("secret") and not TOPIC.match("user:1/../x")


def test_an_etag_matches_itself_its_weak_form_a_list_and_a_star_but_not_another() -> None:
    tag = etag_of(b"page")
    assert matches(tag, tag) and matches(f"W/{tag}", tag) and matches(f'"x", {tag}', tag)
    assert matches("*", tag)
    assert not matches(etag_of(b"other page"), tag)


def test_a_bridged_message_reaches_local_subscribers_once_and_our_own_is_skipped() -> None:
    broadcaster = live.Broadcaster()
    listener = bridge.RedisListener(client=None, broadcaster=broadcaster, origin="web-1")
    forwarded: list[live.Message] = []
    broadcaster.add_forwarder(forwarded.append)

    async def scenario() -> list[live.Message]:
        async with broadcaster.subscribe({"pool:3"}) as queue:
            other = bridge.encode(live.Message("pool:3", {"kind": "result"}), origin="worker-9")
            own = bridge.encode(live.Message("pool:3", {"kind": "mine"}), origin="web-1")
            assert listener.deliver(other) is True
            assert listener.deliver(own) is False
            assert listener.deliver(b"not json") is False
            await asyncio.sleep(0)
            got = [await asyncio.wait_for(queue.get(), 1)]
            assert queue.empty()
            return got

    got = asyncio.run(scenario())
    assert [(m.topic, m.data) for m in got] == [("pool:3", {"kind": "result"})]
    assert forwarded == []  # a message from Redis is not sent back to Redis


def test_the_bridge_stays_off_when_tasks_run_in_process() -> None:
    settings = Settings(task_mode="eager")
    assert live_redis.install_publisher(settings, live.Broadcaster()) is None
    assert live_redis.start_listener(settings, live.Broadcaster()) is None


def test_installing_the_publisher_twice_forwards_each_message_once() -> None:
    settings = Settings(task_mode="celery", redis_url="redis://127.0.0.1:1/0")  # never contacted here
    broadcaster = live.Broadcaster()
    first = live_redis.install_publisher(settings, broadcaster)
    second = live_redis.install_publisher(settings, broadcaster)
    assert first is not None and first is second
    assert len(broadcaster._forwarders) == 1
