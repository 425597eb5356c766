"""Periodic work without Celery beat: ``bodies.periodic_tick`` and the web app's eager scheduler thread."""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from orchestrator.config import Settings
from orchestrator.jobs import bodies, dispatch, runtime
from orchestrator.services import queue
from orchestrator.web.app import create_app


def test_periodic_tick_runs_every_periodic_job_once_in_beats_order_and_survives_a_failing_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    runtime.configure(Settings(data_dir=tmp_path, environment="test"))
    ran: list[tuple[str, datetime | None]] = []

    def job(name: str, fail: bool = False) -> Any:
        def run(_rt: runtime.Runtime, *, attempt: int, now: datetime | None = None) -> None:
            ran.append((name, now))
            if fail:
                raise RuntimeError("server down")

        return run

    monkeypatch.setitem(bodies.JOBS, queue.OPEN_DUE, job(queue.OPEN_DUE))
    monkeypatch.setitem(bodies.JOBS, queue.RECONCILE, job(queue.RECONCILE, fail=True))
    monkeypatch.setitem(bodies.JOBS, queue.PLAYOFF_TICK, job(queue.PLAYOFF_TICK))
    monkeypatch.setitem(bodies.JOBS, queue.NOTIFY_SCAN, job(queue.NOTIFY_SCAN))
    monkeypatch.setitem(bodies.JOBS, queue.CHANCES_SCAN, job(queue.CHANCES_SCAN))
    now = datetime.fromisoformat("2024-03-03T10:00:00+00:00")
    failed = bodies.periodic_tick(now)
    assert ran == [
        (queue.OPEN_DUE, now),
        (queue.RECONCILE, now),
        (queue.PLAYOFF_TICK, now),
        (queue.NOTIFY_SCAN, now),
        (queue.CHANCES_SCAN, now),
    ]
    assert failed == [queue.RECONCILE]


def test_the_playoff_jobs_are_named_id_only_celery_tasks_and_the_tick_is_on_beats_schedule() -> None:
    import workers.tasks  # noqa: F401  (registers the tasks)
    from workers.app import celery_app

    for name in (queue.PLAYOFF_ADVANCE, queue.PLAYOFF_TICK):
        assert name in celery_app.tasks
    schedule = {entry["task"] for entry in celery_app.conf.beat_schedule.values()}
    assert set(bodies.PERIODIC) <= schedule
    with pytest.raises(TypeError):
        dispatch.send(queue.PLAYOFF_ADVANCE, "stage-1")  # type: ignore[arg-type]


def _app_with_counter(
    monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> tuple[Any, threading.Event, list[int]]:
    calls: list[int] = []
    twice = threading.Event()

    def counting_tick(now: datetime | None = None) -> list[str]:
        calls.append(1)
        if len(calls) >= 2:
            twice.set()
        return []

    monkeypatch.setattr(bodies, "periodic_tick", counting_tick)
    return create_app(settings), twice, calls


def test_an_eager_web_app_with_the_scheduler_on_runs_the_periodic_jobs_by_itself(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    settings = Settings(data_dir=tmp_path, environment="test", eager_scheduler=True, eager_scheduler_s=0.02)
    app, twice, _calls = _app_with_counter(monkeypatch, settings)
    with TestClient(app):
        assert twice.wait(30), "the scheduler thread never ran periodic_tick twice"
        assert runtime.runtime().settings is settings  # the jobs use this app's database
    assert not any(t.name == "eager-scheduler" and t.is_alive() for t in threading.enumerate())


@pytest.mark.parametrize(
    "overrides",
    [{"eager_scheduler": False}, {"eager_scheduler": True, "task_mode": "celery"}],
    ids=["off", "celery"],
)
def test_no_scheduler_thread_runs_when_it_is_off_or_celery_beat_does_the_work(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, overrides: dict[str, Any]
) -> None:
    settings = Settings(data_dir=tmp_path, environment="test", eager_scheduler_s=0.01, **overrides)
    app, _twice, calls = _app_with_counter(monkeypatch, settings)
    monkeypatch.setattr("orchestrator.services.live_redis.install_publisher", lambda *_a, **_k: None)
    monkeypatch.setattr("orchestrator.services.live_redis.start_listener", lambda *_a, **_k: None)
    with TestClient(app):
        assert not any(t.name == "eager-scheduler" for t in threading.enumerate())
    assert calls == []


class _PgError(Exception):
    def __init__(self, sqlstate: str) -> None:
        super().__init__(sqlstate)
        self.sqlstate = sqlstate


def test_a_job_the_database_aborted_for_a_deadlock_is_tried_again_and_other_errors_are_not(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from sqlalchemy.exc import OperationalError

    runtime.configure(Settings(data_dir=tmp_path, environment="test"))

    def failing(sqlstate: str) -> Any:
        def run(_rt: runtime.Runtime, _pool_id: int, *, attempt: int) -> None:
            raise OperationalError("UPDATE standing ...", {}, _PgError(sqlstate))

        return run

    monkeypatch.setitem(bodies.JOBS, queue.RECOMPUTE_POOL, failing("40P01"))  # deadlock_detected
    assert bodies.run_job(queue.RECOMPUTE_POOL, 3, attempt=1) == pytest.approx(0.1)
    assert bodies.run_job(queue.RECOMPUTE_POOL, 3, attempt=2) == pytest.approx(0.2)
    with pytest.raises(OperationalError):  # not for ever
        bodies.run_job(queue.RECOMPUTE_POOL, 3, attempt=bodies.DB_RETRY_ATTEMPTS)
    monkeypatch.setitem(bodies.JOBS, queue.RECOMPUTE_POOL, failing("08006"))  # connection failure
    assert bodies.run_job(queue.RECOMPUTE_POOL, 3, attempt=1) == 1.0  # an outage: later, with backoff
    monkeypatch.setitem(bodies.JOBS, queue.RECOMPUTE_POOL, failing("22003"))  # numeric out of range
    with pytest.raises(OperationalError):
        bodies.run_job(queue.RECOMPUTE_POOL, 3, attempt=1)
