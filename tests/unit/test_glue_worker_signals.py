"""A Celery worker process forwards its live messages to Redis as soon as it starts (workers/app.py)."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from celery.concurrency.prefork import TaskPool as PreforkPool
from celery.signals import worker_init, worker_process_init, worker_ready

import workers.app as worker_app
import workers.tasks  # noqa: F401  (connects the warm-up to the worker's signals)
from orchestrator.adapters import live_redis as bridge
from orchestrator.config import Settings
from orchestrator.jobs import dispatch, runtime
from orchestrator.services import live, live_redis


class FakeRedis:
    def __init__(self) -> None:
        self.published: list[tuple[str, str]] = []

    def publish(self, channel: str, data: str) -> None:
        self.published.append((channel, data))


@pytest.fixture
def fake_redis(monkeypatch: pytest.MonkeyPatch) -> Any:
    fake = FakeRedis()
    monkeypatch.setattr(bridge.redis.Redis, "from_url", staticmethod(lambda _url: fake))
    before = list(live.broadcaster._forwarders)
    installed = dict(live_redis._installed)
    yield fake
    live.broadcaster._forwarders[:] = before
    live_redis._installed.clear()
    live_redis._installed.update(installed)


@pytest.mark.parametrize("signal", [worker_init, worker_process_init], ids=["worker_init", "process_init"])
def test_a_starting_celery_worker_installs_the_redis_publisher_so_its_results_reach_spectators(
    signal: Any, fake_redis: FakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(task_mode="celery", redis_url="redis://127.0.0.1:6379/13")
    monkeypatch.setattr(worker_app, "settings", settings)
    signal.send(sender=None)
    live.publish("match:7", kind="result")
    assert len(fake_redis.published) == 1
    channel, data = fake_redis.published[0]
    assert channel == bridge.CHANNEL
    assert bridge.decode(data) is not None and bridge.decode(data)[1].topic == "match:7"  # type: ignore[index]


def test_a_worker_started_twice_in_one_process_sends_each_message_once(
    fake_redis: FakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker_app, "settings", Settings(task_mode="celery", redis_url="redis://h:1/12"))
    worker_init.send(sender=None)
    worker_process_init.send(sender=None)
    live.publish("pool:3", kind="result")
    assert len(fake_redis.published) == 1


class CountingUow:
    """A unit of work whose only use is the warm-up's ping."""

    def __init__(self, pings: list[str], fail: bool = False, events_fail: bool = False) -> None:
        self.pings, self.fail, self.events_fail = pings, fail, events_fail
        self.read = self.events = self

    def __enter__(self) -> CountingUow:
        if self.fail:
            raise OSError("connection refused")
        return self

    def __exit__(self, *_: object) -> None:
        return None

    def ping(self) -> bool:
        self.pings.append("ping")
        return True

    def events_in_play(self, limit: int) -> list[object]:
        if self.events_fail:
            raise RuntimeError("no such table: event")
        self.pings.append(f"events in play ({limit})")
        return []


@pytest.fixture
def pings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The warm-up's steps in order: its ping, its read of the events in play, and ``frozen`` for the
    freezing of the heap (recorded, not done: the test process keeps its collector as it is)."""
    seen: list[str] = []
    counting = runtime.Runtime(Settings(), uow_factory=lambda: CountingUow(seen), client_factory=lambda: None)  # type: ignore[arg-type,return-value]
    monkeypatch.setattr(runtime, "_runtime", counting)
    monkeypatch.setattr(dispatch, "freeze_heap", lambda: seen.append("frozen"))
    return seen


def test_each_prefork_child_opens_its_database_connection_before_its_first_task(
    pings: list[str], fake_redis: FakeRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(worker_app, "settings", Settings(task_mode="celery", redis_url="redis://h:1/12"))
    worker_process_init.send(sender=None)
    assert pings == ["ping"]  # the event files: read by the parent before the fork


class Consumer:
    """What ``worker_ready`` sends: the worker's consumer, holding its pool."""

    def __init__(self, pool: object) -> None:
        self.pool = pool


def test_a_thread_pool_warms_up_its_main_process_and_a_prefork_parent_does_not(pings: list[str]) -> None:
    worker_ready.send(sender=Consumer(object.__new__(PreforkPool)))  # tasks run in the children
    assert pings == []
    worker_ready.send(sender=Consumer(object()))  # threads or solo: tasks run here
    assert pings == ["ping", "events in play (8)", "frozen"]


class Controller:
    """What ``worker_init`` sends: the worker, holding its pool class (a class or an alias)."""

    def __init__(self, pool_cls: object) -> None:
        self.pool_cls = pool_cls


def test_a_prefork_worker_reads_the_event_files_before_forking_and_closes_its_connections(
    pings: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    disposed: list[str] = []
    monkeypatch.setattr(dispatch, "dispose_engines", lambda: disposed.append("disposed"))
    worker_init.send(sender=Controller("threads"))  # threads: its ready signal warms up the one process
    worker_init.send(sender=Controller(None))
    worker_init.send(sender=Controller("no.such:Pool"))
    assert (pings, disposed) == ([], [])
    worker_init.send(sender=Controller(PreforkPool))
    worker_init.send(sender=Controller("prefork"))
    # No ping: the parent keeps no connection for its children; the heap frozen last, before the fork.
    assert pings == ["events in play (8)", "frozen"] * 2
    assert disposed == ["disposed"] * 2


def test_event_files_a_prefork_parent_cannot_read_are_logged_and_its_connections_still_closed(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    disposed: list[str] = []
    monkeypatch.setattr(dispatch, "dispose_engines", lambda: disposed.append("disposed"))
    monkeypatch.setattr(dispatch, "freeze_heap", lambda: None)  # the test process keeps its collector
    failing = runtime.Runtime(
        Settings(), uow_factory=lambda: CountingUow([], events_fail=True), client_factory=lambda: None
    )  # type: ignore[arg-type,return-value]
    monkeypatch.setattr(runtime, "_runtime", failing)
    worker_init.send(sender=Controller(PreforkPool))
    assert disposed == ["disposed"]
    assert "worker warm-up: the event files were not read" in caplog.text


def test_a_database_that_does_not_answer_at_start_up_is_logged_and_does_not_stop_the_worker(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    failing = runtime.Runtime(
        Settings(), uow_factory=lambda: CountingUow([], fail=True), client_factory=lambda: None
    )  # type: ignore[arg-type,return-value]
    monkeypatch.setattr(runtime, "_runtime", failing)
    dispatch.warm_up()
    assert "warm-up: the database did not answer" in caplog.text
    assert "event files" not in caplog.text  # not tried without a database


def test_event_files_that_cannot_be_read_at_start_up_are_logged_and_do_not_stop_the_worker(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[str] = []
    failing = runtime.Runtime(
        Settings(), uow_factory=lambda: CountingUow(seen, events_fail=True), client_factory=lambda: None
    )  # type: ignore[arg-type,return-value]
    monkeypatch.setattr(runtime, "_runtime", failing)
    monkeypatch.setattr(dispatch, "freeze_heap", lambda: None)  # the test process keeps its collector
    dispatch.warm_up()
    assert seen == ["ping"]
    assert "worker warm-up: the event files were not read" in caplog.text
    assert "did not answer" not in caplog.text


class FakePipeline:
    def __init__(self, redis: FakeRedis, fail: bool) -> None:
        self.redis, self.fail, self.queued = redis, fail, []  # type: list[tuple[str, str]]

    def publish(self, channel: str, data: str) -> None:
        self.queued.append((channel, data))

    def execute(self) -> None:
        if self.fail:
            raise bridge.redis.ConnectionError("Redis is restarting")
        self.redis.round_trips += 1
        self.redis.published += self.queued


class PipelinedRedis(FakeRedis):
    def __init__(self, fail: bool = False) -> None:
        super().__init__()
        self.round_trips, self.fail = 0, fail

    def pipeline(self, transaction: bool = True) -> FakePipeline:
        assert transaction is False  # PUBLISH needs no MULTI/EXEC
        return FakePipeline(self, self.fail)


def test_the_redis_publisher_sends_many_messages_in_one_round_trip_in_order() -> None:
    client = PipelinedRedis()
    publisher = bridge.RedisPublisher(client, channel="c", origin="w")
    publisher.send_many([live.Message("match:1", {"kind": "result"}), live.Message("pool:2")])
    assert client.round_trips == 1
    assert [bridge.decode(data)[1].topic for _c, data in client.published] == ["match:1", "pool:2"]  # type: ignore[index]
    publisher.send_many([live.Message("stage:3")])  # one message: a plain PUBLISH
    assert client.round_trips == 1 and len(client.published) == 3


def test_a_batch_redis_refuses_is_one_warning_and_no_error(caplog: pytest.LogCaptureFixture) -> None:
    publisher = bridge.RedisPublisher(PipelinedRedis(fail=True), channel="c", origin="w")
    publisher.send_many([live.Message("match:1"), live.Message("pool:2")])
    assert "2 live updates (the first for match:1) not sent to Redis" in caplog.text


def test_freezing_the_heap_collects_first_and_moves_what_is_alive_out_of_the_collector_s_reach() -> None:
    gc.unfreeze()
    garbage = Consumer(None)
    garbage.pool = garbage  # a cycle only the collector frees
    gone = weakref.ref(garbage)
    del garbage
    alive = Consumer(None)
    try:
        dispatch.freeze_heap()
        assert gone() is None  # collected, not frozen
        assert gc.get_freeze_count() > 0
        assert not any(o is alive for o in gc.get_objects())  # frozen: in no generation the collector walks
    finally:
        gc.unfreeze()
    assert any(o is alive for o in gc.get_objects())
