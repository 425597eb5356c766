"""A lost connection to PostgreSQL or Redis: jobs are tried again with a growing pause instead of being
dropped, and every long-running loop logs one warning, waits and goes on (orchestrator/jobs/outages.py)."""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
import redis.exceptions
from sqlalchemy.exc import IntegrityError, OperationalError

from orchestrator.config import Settings
from orchestrator.demo import driver as demo_driver
from orchestrator.jobs import bodies, outages, runtime
from orchestrator.jobs.scheduler import EagerScheduler
from orchestrator.services import queue


class _Diag:
    sqlstate: str | None = None


def _db_down() -> OperationalError:
    orig = psycopg.OperationalError("connection failed: Connection refused")
    return OperationalError("SELECT 1", {}, orig)


def _deadlock() -> OperationalError:
    orig = psycopg.errors.DeadlockDetected("deadlock detected")
    return OperationalError("UPDATE board", {}, orig)


def _duplicate() -> IntegrityError:
    orig = psycopg.errors.UniqueViolation("duplicate key")
    return IntegrityError("INSERT", {}, orig)


def test_lost_connections_are_told_apart_from_the_work_s_own_errors():
    assert outages.connection_lost(_db_down())
    assert outages.connection_lost(redis.exceptions.ConnectionError("Connection refused"))
    assert outages.connection_lost(ConnectionRefusedError(111, "refused"))
    shutdown = psycopg.errors.AdminShutdown("terminating connection due to administrator command")
    assert outages.connection_lost(OperationalError("SELECT 1", {}, shutdown))
    try:
        try:
            raise _db_down()
        except OperationalError as inner:
            raise RuntimeError("while pulling round 3") from inner
    except RuntimeError as outer:
        assert outages.connection_lost(outer)  # found through the cause
    assert not outages.connection_lost(_deadlock())
    assert not outages.connection_lost(_duplicate())
    assert not outages.connection_lost(ValueError("bad board"))


def test_the_pause_doubles_from_one_second_up_to_a_minute():
    assert [outages.backoff_s(n) for n in (1, 2, 3, 4, 7, 8, 30)] == [1, 2, 4, 8, 60, 60, 60]


@pytest.fixture
def configured(tmp_path: Path) -> None:
    runtime.configure(Settings(data_dir=tmp_path, environment="test"))


def _failing(error: Exception) -> Any:
    def run(_rt: runtime.Runtime, *_ids: int, attempt: int, now: datetime | None = None) -> None:
        raise error

    return run


def test_a_job_that_loses_its_connection_is_tried_again_later_not_dropped(
    configured: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    monkeypatch.setitem(bodies.JOBS, queue.PULL_ROUND, _failing(_db_down()))
    with caplog.at_level(logging.WARNING):
        delays = [bodies.run_job(queue.PULL_ROUND, 7, attempt=n) for n in (1, 2, 3, 9)]
    assert delays == [1.0, 2.0, 4.0, 60.0]
    assert all(r.levelno == logging.WARNING and r.exc_info is None for r in caplog.records)
    assert "connection lost" in caplog.records[0].getMessage()


def test_a_periodic_job_is_left_to_its_next_tick_and_other_errors_still_raise(
    configured: None, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setitem(bodies.JOBS, queue.RECONCILE, _failing(redis.exceptions.ConnectionError("down")))
    assert bodies.run_job(queue.RECONCILE) is None
    monkeypatch.setitem(bodies.JOBS, queue.PULL_ROUND, _failing(_duplicate()))
    with pytest.raises(IntegrityError):
        bodies.run_job(queue.PULL_ROUND, 7)


def test_periodic_ticks_through_an_outage_warn_once_and_say_when_it_ends(
    configured: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    down = {"now": True}
    ran: list[str] = []

    def job(name: str) -> Any:
        def run(_rt: runtime.Runtime, *, attempt: int, now: datetime | None = None) -> None:
            if down["now"]:
                raise _db_down()
            ran.append(name)

        return run

    for name in bodies.PERIODIC:
        monkeypatch.setitem(bodies.JOBS, name, job(name))
    with caplog.at_level(logging.INFO):
        failed = [bodies.periodic_tick() for _ in range(3)]
        down["now"] = False
        assert bodies.periodic_tick() == []
    assert failed == [list(bodies.PERIODIC)] * 3
    assert ran == list(bodies.PERIODIC)
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1 and warnings[0].exc_info is None
    assert any("connection back" in r.getMessage() for r in caplog.records)


def test_the_eager_scheduler_thread_goes_on_through_an_outage(caplog: pytest.LogCaptureFixture):
    calls: list[int] = []

    def tick() -> None:
        calls.append(1)
        if len(calls) <= 3:
            raise _db_down()

    with caplog.at_level(logging.WARNING):
        scheduler = EagerScheduler(tick, 0.01).start()
        deadline = time.monotonic() + 5
        while len(calls) < 6 and time.monotonic() < deadline:
            time.sleep(0.01)
        scheduler.stop()
    assert len(calls) >= 6
    warnings = [r for r in caplog.records if r.name == "orchestrator.jobs.scheduler"]
    assert len(warnings) == 1 and warnings[0].exc_info is None


def test_the_demo_driver_and_its_beat_wait_out_an_outage(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    steps: list[int] = []

    def step() -> bool:
        steps.append(1)
        if len(steps) <= 2:
            raise _db_down()
        return len(steps) >= 4

    def send(_name: str) -> None:
        if len(steps) <= 2:
            raise redis.exceptions.ConnectionError("Connection refused")

    monkeypatch.setattr(demo_driver.dispatch, "send", send)
    monkeypatch.setattr(demo_driver, "backoff_s", lambda _attempt: 0.01)
    demo = demo_driver.Demo.__new__(demo_driver.Demo)
    fake = SimpleNamespace(
        step=step, status=lambda: None, say=lambda *a, **k: None, champions=(), timings={}, slug="demo"
    )
    demo.driver = fake  # type: ignore[assignment]
    demo.plan = SimpleNamespace(tick_s=0.001)  # type: ignore[assignment]
    demo.settings = SimpleNamespace(task_mode="eager")  # type: ignore[assignment]  # no live watcher
    with caplog.at_level(logging.WARNING):
        result = demo.run(threading.Event())
    assert not result.stopped and len(steps) == 4
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 2 and all(r.exc_info is None for r in warnings)  # the driver's, the beat's


def test_a_job_mark_redis_could_not_remove_is_removed_once_it_is_back(
    configured: None, monkeypatch: pytest.MonkeyPatch
):
    from orchestrator.jobs import dispatch

    class Marks:
        def __init__(self) -> None:
            self.up = False
            self.released: list[tuple[str, tuple[int, ...]]] = []

        def release(self, name: str, ids: tuple[int, ...]) -> bool:
            if self.up:
                self.released.append((name, ids))
            return self.up

    marks = Marks()
    monkeypatch.setattr(dispatch, "job_marks", lambda _url, _queue: marks)
    dispatch.job_started(queue.RECOMPUTE_POOL, 1)  # Redis restarting: the mark stays
    assert marks.released == []
    marks.up = True
    dispatch.job_started(queue.PULL_ROUND, 3)
    assert sorted(marks.released) == sorted([(queue.RECOMPUTE_POOL, (1,)), (queue.PULL_ROUND, (3,))])
    dispatch.job_started(queue.PULL_ROUND, 4)
    assert marks.released[-1] == (queue.PULL_ROUND, (4,)) and len(marks.released) == 3


def test_a_running_mark_redis_could_not_remove_at_the_end_is_removed_by_the_next_job(
    configured: None, monkeypatch: pytest.MonkeyPatch
):
    from orchestrator.jobs import dispatch

    class Marks:
        def __init__(self) -> None:
            self.up = True
            self.running: set[tuple[str, tuple[int, ...]]] = set()

        def start_running(self, name: str, ids: tuple[int, ...], ttl_s: int) -> bool:
            self.running.add((name, ids))
            return True

        def end_running(self, name: str, ids: tuple[int, ...]) -> bool:
            if self.up:
                self.running.discard((name, ids))
            return self.up

        def release(self, name: str, ids: tuple[int, ...]) -> bool:
            return self.up

    marks = Marks()
    monkeypatch.setattr(dispatch, "job_marks", lambda _url, _queue: marks)
    dispatch.job_started(queue.RECONCILE)  # a periodic job: marked running until it ends
    dispatch.job_started(queue.PULL_ROUND, 3)  # not periodic: no running mark
    assert marks.running == {(queue.RECONCILE, ())}
    marks.up = False
    dispatch.job_ended(queue.RECONCILE)  # Redis restarting: the mark stays, beat would hold the job back
    assert marks.running == {(queue.RECONCILE, ())}
    marks.up = True
    dispatch.job_started(queue.PULL_ROUND, 4)  # the next job removes it
    assert marks.running == set()
