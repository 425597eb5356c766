"""Celery mode on the real Redis: a job already waiting in the queue is not sent twice.

``dispatch.send`` marks a job in Redis before sending it; the worker clears the mark when the job starts
(``dispatch.job_started``). Beat's reconcile can then run as often as it likes without piling up copies.
Beat's own periodic jobs (``jobs/beat.py``) are also held back while a copy runs, until the worker says it
ended (``dispatch.job_ended``); every mark expires, and a worker starting clears the running marks a killed
one left.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator

import pytest
import redis
from celery.beat import ScheduleEntry

from orchestrator.config import Settings
from orchestrator.jobs import dispatch, runtime
from orchestrator.jobs.beat import PeriodicScheduler
from orchestrator.services.queue import CHANCES_SCAN, PLAYOFF_TICK, PULL_ROUND, RECONCILE, background_queue
from tests.support.workers import REDIS_URL, require_redis


@pytest.fixture
def queue() -> Iterator[tuple[str, redis.Redis]]:
    require_redis()  # a failure under CI=true, a skip otherwise
    client = redis.Redis.from_url(REDIS_URL)
    name = f"test-marks-{secrets.token_hex(4)}"
    settings = Settings(environment="test", task_mode="celery", worker_queue=name, redis_url=REDIS_URL)
    previous = runtime.runtime()
    runtime.configure(settings, uow_factory=previous.uow_factory)
    try:
        yield name, client
    finally:
        runtime.configure(previous.settings, uow_factory=previous.uow_factory)
        for key in client.scan_iter(f"{name}*"):
            client.delete(key)
        for pattern in (f"olympiad:queued:{name}:*", f"olympiad:running:{name}:*"):
            for key in client.scan_iter(pattern):
                client.delete(key)
        client.close()


def waiting(client: redis.Redis, name: str) -> int:
    return int(client.llen(name))  # kombu keeps a Redis queue's messages in a list of that name


def test_a_job_waiting_in_the_queue_is_sent_once_and_again_once_a_worker_started_it(
    queue: tuple[str, redis.Redis],
) -> None:
    name, client = queue
    dispatch.send(PULL_ROUND, 5)
    dispatch.send(PULL_ROUND, 5)  # still waiting: not sent again
    dispatch.send(PULL_ROUND, 6)  # another round: sent
    assert waiting(client, name) == 2
    dispatch.job_started(PULL_ROUND, 5)  # what the worker does first
    dispatch.send(PULL_ROUND, 5)  # a change after the start: the job runs again
    assert waiting(client, name) == 3


def test_a_copy_sent_with_a_countdown_and_one_sent_for_now_never_hold_each_other_back(
    queue: tuple[str, redis.Redis],
) -> None:
    """A lot's draw is queued with its reveal delay; a copy queued for now meanwhile (another duel's step)
    would run before the draw is due, so dropping the delayed copy left the draw to beat."""
    name, client = queue
    dispatch.send(PLAYOFF_TICK)  # for now
    dispatch.send(PLAYOFF_TICK, countdown=30)  # for later: sent although a copy waits
    dispatch.send(PLAYOFF_TICK, countdown=5)  # a second delayed copy: not sent
    dispatch.send(PLAYOFF_TICK)  # a second copy for now: not sent
    assert waiting(client, name) == 2
    dispatch.job_started(PLAYOFF_TICK)  # either copy starting reads everything: both marks go
    dispatch.send(PLAYOFF_TICK, countdown=30)
    dispatch.send(PLAYOFF_TICK)
    assert waiting(client, name) == 4


def test_a_copy_waiting_for_its_countdown_does_not_hold_beats_periodic_copy_back(
    queue: tuple[str, redis.Redis],
) -> None:
    """A lot's draw waits ``auto_lot_reveal_delay_s`` (60 s by default): beat's playoff.tick meanwhile still
    runs the other duels' steps, deadlines and closings."""
    name, client = queue
    dispatch.send(PLAYOFF_TICK, countdown=60)
    assert dispatch.send_periodic(PLAYOFF_TICK)
    assert not dispatch.send_periodic(PLAYOFF_TICK)  # beat's own copy still waits: not sent twice
    assert waiting(client, name) == 2


def test_the_chances_job_goes_to_the_background_queue_and_the_rounds_jobs_to_the_main_one(
    queue: tuple[str, redis.Redis],
) -> None:
    name, client = queue
    dispatch.send(CHANCES_SCAN)
    dispatch.send(PULL_ROUND, 5)
    dispatch.send(RECONCILE)
    assert waiting(client, background_queue(name)) == 1
    assert waiting(client, name) == 2


def test_a_process_playing_beat_sends_a_periodic_job_only_when_no_copy_is_queued_or_running(
    queue: tuple[str, redis.Redis],
) -> None:
    """The demo's beat tick in Celery mode (demo/driver.py) keeps beat's own rule (jobs/beat.py)."""
    name, client = queue
    assert dispatch.send_periodic(RECONCILE)
    assert not dispatch.send_periodic(RECONCILE)  # waiting in the queue
    dispatch.job_started(RECONCILE)
    assert not dispatch.send_periodic(RECONCILE)  # running
    dispatch.job_ended(RECONCILE)
    assert dispatch.send_periodic(RECONCILE)
    assert dispatch.send_periodic(CHANCES_SCAN)  # another job, on its own queue
    assert waiting(client, name) == 2
    assert waiting(client, background_queue(name)) == 1


def test_beat_and_retries_route_the_chances_job_by_its_name() -> None:
    from workers.app import BACKGROUND_QUEUE, celery_app

    def routed(task: str) -> str:
        return celery_app.amqp.router.route({}, task)["queue"].name

    main = celery_app.conf.task_default_queue
    assert background_queue(main) == BACKGROUND_QUEUE
    assert routed(CHANCES_SCAN) == BACKGROUND_QUEUE
    assert routed(PULL_ROUND) == routed(RECONCILE) == main
    assert {q.name for q in celery_app.conf.task_queues} == {main, BACKGROUND_QUEUE}  # a worker without -Q


def _beat(name: str, tmp_path) -> tuple[PeriodicScheduler, ScheduleEntry]:
    from workers.app import celery_app

    scheduler = PeriodicScheduler(app=celery_app, schedule_filename=str(tmp_path / "beat"), lazy=True)
    entry = ScheduleEntry(
        name="reconcile", task=RECONCILE, schedule=1.0, options={"queue": name}, app=celery_app
    )
    return scheduler, entry


def test_beat_sends_a_periodic_job_again_only_once_no_copy_is_queued_or_running(
    queue: tuple[str, redis.Redis], tmp_path
) -> None:
    name, client = queue
    scheduler, entry = _beat(name, tmp_path)
    scheduler.apply_async(entry, advance=False)
    scheduler.apply_async(entry, advance=False)  # the first copy still waits: not sent again
    assert waiting(client, name) == 1
    dispatch.job_started(RECONCILE)  # a worker takes it
    scheduler.apply_async(entry, advance=False)  # running: not sent again either
    assert waiting(client, name) == 1
    dispatch.send(RECONCILE)  # a service queues it after a change: the running copy may have read too early
    assert waiting(client, name) == 2
    dispatch.job_started(RECONCILE)
    dispatch.job_ended(RECONCILE)  # both copies have run
    scheduler.apply_async(entry, advance=False)
    assert waiting(client, name) == 3


def test_a_running_mark_expires_and_a_worker_starting_clears_those_a_killed_worker_left(
    queue: tuple[str, redis.Redis], tmp_path
) -> None:
    name, client = queue
    scheduler, entry = _beat(name, tmp_path)
    dispatch.job_started(RECONCILE)  # the worker is killed here: the job never ends
    dispatch.job_started(CHANCES_SCAN)
    keys = [f"olympiad:running:{name}:{job}:" for job in (RECONCILE, CHANCES_SCAN)]
    assert all(0 < client.ttl(key) <= dispatch.RUNNING_MARK_TTL_S for key in keys)  # lost marks expire
    scheduler.apply_async(entry, advance=False)
    assert waiting(client, name) == 0
    dispatch.forget_running()  # what a worker does when it is ready
    assert not any(client.exists(key) for key in keys)
    scheduler.apply_async(entry, advance=False)
    assert waiting(client, name) == 1
