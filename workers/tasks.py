"""Thin, named, id-only Celery tasks (docs/architecture.md, habit 5): each runs one job of
orchestrator/jobs/bodies.py.

A job returns how long to wait before trying again (game server rate-limited or unavailable, from the
Lichess RetryPolicy); the task then retries itself with that countdown. Every job is idempotent, so a
redelivered or retried task never duplicates anything.

The worker's start-up hooks that need the job runtime live here too (Celery imports this module, listed in
``include``, before it sends ``worker_init``); workers/app.py imports nothing of the runtime, because the
runtime sends through its Celery app.
"""

from __future__ import annotations

from typing import Any

from celery.concurrency import get_implementation
from celery.concurrency.prefork import TaskPool as PreforkPool
from celery.signals import worker_init, worker_process_init, worker_ready

from orchestrator.jobs import bodies, dispatch
from orchestrator.jobs.outages import survive_broker_restart
from orchestrator.services import queue as jobs
from workers.app import celery_app

# Every task is declared with ``max_retries=None``: a job says when to try again (a lost connection, the
# game server away) for as long as that lasts; ``retry(max_retries=None)`` alone means Celery's default of
# 3 retries, after which the job would be dropped.


survive_broker_restart()  # a Redis restart while the worker hands jobs back must not end it


def _run(task: Any, name: str, *ids: int) -> None:
    dispatch.job_started(name, *ids)  # before reading anything: a change from now on queues the job again
    try:
        delay = bodies.run_job(name, *ids, attempt=task.request.retries + 1)
    finally:
        dispatch.job_ended(name, *ids)  # a periodic job: beat may send it again
    if delay is not None:
        raise task.retry(countdown=delay, max_retries=None)


def _is_prefork(pool_cls: Any) -> bool:
    """Whether ``pool_cls`` (a class, its alias or its path, as the worker holds it) is the prefork pool."""
    if pool_cls is None:
        return False
    try:
        cls = pool_cls if isinstance(pool_cls, type) else get_implementation(pool_cls)
    except Exception:  # a pool this machine cannot import: Celery itself will say so
        return False
    return isinstance(cls, type) and issubclass(cls, PreforkPool)


@worker_init.connect
def warm_up_before_fork(sender: Any = None, **_: Any) -> None:
    """A prefork worker reads the event files in play once, before it forks its children."""
    if _is_prefork(getattr(sender, "pool_cls", None)):
        dispatch.warm_up_before_fork()


@worker_process_init.connect
def warm_up_child(**_: Any) -> None:
    """Each prefork child opens its database connection before its first task, not during it."""
    dispatch.warm_up(definitions=False)


@worker_ready.connect
def warm_up_threads(sender: Any = None, **_: Any) -> None:
    """Thread and solo pools run tasks in the main process: open its connection there once it is ready."""
    if not isinstance(getattr(sender, "pool", None), PreforkPool):
        dispatch.warm_up()


@worker_ready.connect
def forget_running_marks(**_: Any) -> None:
    """A worker starting: periodic jobs marked running by a worker that was killed may be sent at once."""
    dispatch.forget_running()


@celery_app.task(name=jobs.OPEN_DUE, bind=True, max_retries=None)
def open_due(self: Any) -> None:
    _run(self, jobs.OPEN_DUE)


@celery_app.task(name=jobs.CREATE_GAMES, bind=True, max_retries=None)
def create_games(self: Any, round_id: int) -> None:
    _run(self, jobs.CREATE_GAMES, round_id)


@celery_app.task(name=jobs.PULL_ROUND, bind=True, max_retries=None)
def pull_round(self: Any, round_id: int) -> None:
    _run(self, jobs.PULL_ROUND, round_id)


@celery_app.task(name=jobs.RECONCILE, bind=True, max_retries=None)
def reconcile(self: Any) -> None:
    _run(self, jobs.RECONCILE)


@celery_app.task(name=jobs.RECOMPUTE_POOL, bind=True, max_retries=None)
def recompute_pool(self: Any, pool_id: int) -> None:
    _run(self, jobs.RECOMPUTE_POOL, pool_id)


@celery_app.task(name=jobs.ADVANCE_STAGE, bind=True, max_retries=None)
def advance_stage(self: Any, stage_id: int) -> None:
    _run(self, jobs.ADVANCE_STAGE, stage_id)


@celery_app.task(name=jobs.PLAYOFF_ADVANCE, bind=True, max_retries=None)
def playoff_advance(self: Any, stage_id: int) -> None:
    _run(self, jobs.PLAYOFF_ADVANCE, stage_id)


@celery_app.task(name=jobs.PLAYOFF_TICK, bind=True, max_retries=None)
def playoff_tick(self: Any) -> None:
    _run(self, jobs.PLAYOFF_TICK)


@celery_app.task(name=jobs.PLAYOFF_DUEL, bind=True, max_retries=None)
def playoff_duel(self: Any, duel_id: int) -> None:
    _run(self, jobs.PLAYOFF_DUEL, duel_id)


@celery_app.task(name=jobs.NOTIFY_SCAN, bind=True, max_retries=None)
def notify_scan(self: Any) -> None:
    _run(self, jobs.NOTIFY_SCAN)


@celery_app.task(name=jobs.NOTIFY_SEND, bind=True, max_retries=None)
def notify_send(self: Any, outbox_id: int) -> None:
    _run(self, jobs.NOTIFY_SEND, outbox_id)


@celery_app.task(name=jobs.CHANCES_SCAN, bind=True)
def chances_scan(self: Any) -> None:
    _run(self, jobs.CHANCES_SCAN)
