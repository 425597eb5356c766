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
