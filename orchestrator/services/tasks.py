"""Background work: named, id-only jobs and how they are sent (STYLE habits 4 and 5).

``enqueue(uow, name, *ids)`` queues a job on the unit of work's after-commit list, so nothing is sent for a
rolled-back transaction. Once committed, ``send`` hands it to Celery when ``Settings.task_mode == "celery"``
(the worker runs ``workers/tasks.py``, which calls ``run_job`` below) or runs the same job in this process
when ``task_mode == "eager"`` (the laptop default; a retry then waits in a daemon timer thread).

Eager mode has a queue per thread, first in first out, as a broker would: the jobs one transaction queues
are all put on it before any of them runs, and a job already waiting there is not queued twice (it has not
started, so it will read everything committed before it runs). A pull of each of nine rounds then
recomputes each pool once, after the nine pulls, instead of nine times. Celery mode gets the same rule from
marks in Redis (adapters/job_marks.py): ``send`` skips a job whose copy is queued and not started yet, and
the worker clears the mark when the job starts (``job_started``).

A job opens its own unit of work, calls one service and returns how long to wait before trying again
(``None`` = done). Job bodies live here rather than in ``workers/`` so the eager mode and the Celery worker
run exactly the same code.
"""

from __future__ import annotations

import logging
import os
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

import httpx
from sqlalchemy.exc import OperationalError

from orchestrator.adapters.job_marks import job_marks
from orchestrator.adapters.lichess import LichessClient
from orchestrator.adapters.uow import UnitOfWorkFactory, unit_of_work_factory
from orchestrator.config import Settings, get_settings
from orchestrator.db import utcnow

log = logging.getLogger(__name__)

OPEN_DUE = "rounds.open_due"
CREATE_GAMES = "rounds.create_games"
PULL_ROUND = "results.pull_round"
RECONCILE = "results.reconcile"
RECOMPUTE_POOL = "standings.recompute_pool"
ADVANCE_STAGE = "stages.advance"
PLAYOFF_ADVANCE = "playoff.advance"
PLAYOFF_TICK = "playoff.tick"
TASK_NAMES = (
    OPEN_DUE,
    CREATE_GAMES,
    PULL_ROUND,
    RECONCILE,
    RECOMPUTE_POOL,
    ADVANCE_STAGE,
    PLAYOFF_ADVANCE,
    PLAYOFF_TICK,
)
# Beat's schedule (workers/app.py) and periodic_tick's order: open rounds, pull results, move play-offs.
PERIODIC = (OPEN_DUE, RECONCILE, PLAYOFF_TICK)

ACTOR = "worker"
JOB_MARK_TTL_S = 120  # Celery mode: how long a queued job's mark keeps copies of it from being sent


class _AfterCommit(Protocol):
    def after_commit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> None: ...


@dataclass
class Runtime:
    """What jobs need: settings, a unit-of-work factory and a game-server client factory."""

    settings: Settings
    uow_factory: UnitOfWorkFactory
    client_factory: Callable[[], LichessClient]
    sent: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)  # eager mode: what ran


_runtime: Runtime | None = None
_runtime_lock = threading.Lock()


class _SharedTransport(httpx.BaseTransport):
    """One HTTP connection pool for every job's game-server client in this process.

    Each job still gets its own ``LichessClient`` (and closes it), but TLS set-up and connections are
    kept between jobs instead of being made again for each one. Closing a client leaves the pool open.
    Made per process on first use, so a forked worker never shares its parent's sockets.
    """

    def __init__(self) -> None:
        self._pid = 0
        self._inner: httpx.HTTPTransport | None = None
        self._lock = threading.Lock()

    def _transport(self) -> httpx.HTTPTransport:
        with self._lock:
            if self._inner is None or self._pid != os.getpid():
                self._inner, self._pid = httpx.HTTPTransport(), os.getpid()
            return self._inner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._transport().handle_request(request)

    def close(self) -> None:
        """Kept open: other jobs' clients use the same pool."""


def configure(
    settings: Settings | None = None,
    *,
    uow_factory: UnitOfWorkFactory | None = None,
    client_factory: Callable[[], LichessClient] | None = None,
) -> Runtime:
    """Set the process's runtime (the worker and the web app call this once; tests too)."""
    global _runtime
    settings = settings or get_settings()
    if client_factory is None:
        transport = _SharedTransport()

        def client_factory() -> LichessClient:
            return LichessClient.from_settings(settings, transport=transport)

    runtime = Runtime(
        settings=settings,
        uow_factory=uow_factory or unit_of_work_factory(settings),
        client_factory=client_factory,
    )
    with _runtime_lock:
        _runtime = runtime
    return runtime


def runtime() -> Runtime:
    """The configured runtime, built from ``get_settings()`` on first use."""
    with _runtime_lock:
        current = _runtime
    return current or configure()


# ---------------------------------------------------------------- dispatch


Job = tuple[str, tuple[int, ...], float | None]  # name, ids, countdown

# Jobs queued per transaction (keyed by the unit of work's session, which is new for each one), in order.
_queued: weakref.WeakKeyDictionary[Any, list[Job]] = weakref.WeakKeyDictionary()
_queued_lock = threading.Lock()


def enqueue(uow: _AfterCommit, name: str, *ids: int, countdown: float | None = None) -> None:
    """Send job ``name`` with ``ids`` once ``uow`` has committed (dropped on rollback).

    The same job (name, ids, countdown) queued again in the same transaction is sent once: jobs are
    idempotent and read the committed state, so e.g. a pool touched by every ingestion batch of a pull
    is recomputed once per pull. A transaction's jobs are sent together, in the order they were queued.
    """
    _check(name, ids)
    job: Job = (name, ids, countdown)
    session = getattr(uow, "session", None)
    if session is None:
        uow.after_commit(send, name, *ids, countdown=countdown)
        return
    with _queued_lock:
        try:
            jobs = _queued.get(session)
            first = jobs is None
            if jobs is None:
                jobs = _queued[session] = []
        except TypeError:  # not weakly referenceable: no de-duplication, one send per job
            uow.after_commit(send, name, *ids, countdown=countdown)
            return
        if job in jobs:
            return
        jobs.append(job)
    if first:
        uow.after_commit(_send_all, jobs)


def _send_all(jobs: list[Job]) -> None:
    """A committed transaction's jobs: in eager mode all are queued before the first one runs."""
    with _eager_batch():
        for name, ids, countdown in jobs:
            try:
                send(name, *ids, countdown=countdown)
            except Exception:  # one failed send must not drop the others; reconciliation catches up
                log.exception("sending task %s%s failed", name, ids)


def send(name: str, *ids: int, countdown: float | None = None) -> None:
    """Send a job now (outside a unit of work): to Celery, or run it in process in eager mode."""
    _check(name, ids)
    current = runtime()
    if current.settings.task_mode == "celery":
        from workers.app import celery_app

        settings = current.settings
        marks = job_marks(settings.redis_url, settings.worker_queue)
        # Marked until a worker starts it, at most JOB_MARK_TTL_S after it is due (a purged queue or a lost
        # message then blocks nothing for long; a copy sent after that only repeats idempotent work).
        ttl_s = int((countdown or 0) + JOB_MARK_TTL_S)
        if not marks.claim(name, ids, ttl_s):
            return  # the same job is already waiting in the queue: it will read what was just committed
        try:
            celery_app.send_task(name, args=list(ids), countdown=countdown, queue=settings.worker_queue)
        except Exception:
            marks.release(name, ids)
            raise
        return
    if countdown:
        _later(countdown, name, ids, attempt=1)
        return
    with _eager_batch() as queue:
        queue.push(name, ids)


class _EagerQueue(threading.local):
    """This thread's eager jobs: first in, first out; a job waiting to run is not queued twice."""

    def __init__(self) -> None:
        self.jobs: deque[tuple[str, tuple[int, ...]]] = deque()
        self.waiting: set[tuple[str, tuple[int, ...]]] = set()
        self.draining = False

    def push(self, name: str, ids: tuple[int, ...]) -> None:
        key = (name, ids)
        if key not in self.waiting:
            self.waiting.add(key)
            self.jobs.append(key)

    def drain(self) -> None:
        while self.jobs:
            key = self.jobs.popleft()
            self.waiting.discard(key)  # from here on, a new request for the same job queues it again
            _run_eager(*key, attempt=1)


_eager_queue = _EagerQueue()


@contextmanager
def _eager_batch() -> Iterator[_EagerQueue]:
    """Jobs pushed inside run when the outermost batch of this thread ends (at once if none is open)."""
    queue = _eager_queue
    if queue.draining:
        yield queue
        return
    queue.draining = True
    try:
        yield queue
        queue.drain()
    finally:
        queue.draining = False
        queue.jobs.clear()  # only left by an interrupt: the periodic reconciliation catches up
        queue.waiting.clear()


def _check(name: str, ids: tuple[int, ...]) -> None:
    if name not in JOBS:
        raise ValueError(f"unknown task {name!r}; known: {', '.join(TASK_NAMES)}")
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        raise TypeError("tasks take ids only")


def _run_eager(name: str, ids: tuple[int, ...], *, attempt: int) -> None:
    current = runtime()
    current.sent.append((name, ids))
    try:
        delay = run_job(name, *ids, attempt=attempt)
    except Exception:
        log.exception("task %s%s failed; the periodic reconciliation will try again", name, ids)
        return
    if delay is not None:
        _later(delay, name, ids, attempt=attempt + 1)


def _later(delay: float, name: str, ids: tuple[int, ...], *, attempt: int) -> None:
    timer = threading.Timer(delay, _run_eager, args=(name, ids), kwargs={"attempt": attempt})
    timer.daemon = True
    timer.start()


# ---------------------------------------------------------------- jobs


# PostgreSQL aborts one of two transactions that wait for each other (deadlock_detected) or, under a
# stricter isolation level, one that read what another changed (serialization_failure): run it again.
RETRYABLE_SQLSTATES = frozenset({"40P01", "40001"})
DB_RETRY_ATTEMPTS = 5


def run_job(name: str, *ids: int, attempt: int = 1) -> float | None:
    """Run job ``name``; returns seconds to wait before attempt ``attempt + 1``, or None when done.

    A transaction the database aborted for a deadlock is tried again a moment later (jobs are
    idempotent and the aborted one changed nothing), up to ``DB_RETRY_ATTEMPTS`` times.
    """
    try:
        return JOBS[name](runtime(), *ids, attempt=attempt)
    except OperationalError as error:
        sqlstate = getattr(error.orig, "sqlstate", None)
        if sqlstate not in RETRYABLE_SQLSTATES or attempt >= DB_RETRY_ATTEMPTS:
            raise
        log.info("task %s%s: the database aborted it (%s); trying again", name, ids, sqlstate)
        return 0.1 * attempt


def import_job_modules() -> None:
    """Import what the jobs import lazily (services that import this module back).

    A Celery worker calls this at start-up, before prefork forks its children, so the first task of each
    child does not spend its time importing.
    """
    from orchestrator.services import gameserver, scheduler, standings  # noqa: F401
    from orchestrator.services.playoff import read, sync  # noqa: F401


def warm_up() -> None:
    """Make this process ready for its first job: the job modules imported, one database connection open.

    Called in each worker process (after the fork, so no connection is shared with the parent). A warm-up
    that fails is only logged: the first job then meets the same problem and reports it.
    """
    import_job_modules()
    try:
        with runtime().uow_factory() as uow:
            uow.health.ping()
    except Exception:
        log.warning("worker warm-up: the database did not answer", exc_info=True)


def job_started(name: str, *ids: int) -> None:
    """A worker starts job ``name``: from now on, sending it again queues a new copy (Celery mode)."""
    settings = runtime().settings
    job_marks(settings.redis_url, settings.worker_queue).release(name, ids)


def _open_due(rt: Runtime, *, attempt: int, now: datetime | None = None) -> float | None:
    from orchestrator.services.gameserver import open_due_rounds

    with rt.uow_factory() as uow:
        open_due_rounds(uow, now=now or utcnow(), settings=rt.settings)
    return None


def _create_games(rt: Runtime, round_id: int, *, attempt: int) -> float | None:
    from orchestrator.services.gameserver import create_round_games

    with rt.client_factory() as client, rt.uow_factory() as uow:
        outcome = create_round_games(
            uow, round_id=round_id, client=client, settings=rt.settings, attempt=attempt, actor=ACTOR
        )
    return outcome.retry_in


def _pull_round(rt: Runtime, round_id: int, *, attempt: int) -> float | None:
    from orchestrator.services.gameserver import pull_round_results

    with rt.client_factory() as client, rt.uow_factory() as uow:
        outcome = pull_round_results(
            uow, round_id=round_id, client=client, settings=rt.settings, attempt=attempt, actor=ACTOR
        )
    return outcome.retry_in


def _reconcile(rt: Runtime, *, attempt: int, now: datetime | None = None) -> float | None:
    from orchestrator.services.gameserver import reconcile_open_games

    with rt.uow_factory() as uow:
        reconcile_open_games(uow, now=now or utcnow(), settings=rt.settings)
    return None


def _recompute_pool(rt: Runtime, pool_id: int, *, attempt: int) -> float | None:
    from orchestrator.services.standings import recompute_pool

    with rt.uow_factory() as uow:
        recompute_pool(uow, pool_id=pool_id, actor=ACTOR)
    return None


def _advance_stage(rt: Runtime, stage_id: int, *, attempt: int) -> float | None:
    from orchestrator.services.gameserver import advance_stage

    with rt.uow_factory() as uow:
        advance_stage(uow, stage_id=stage_id, now=utcnow(), actor=ACTOR)
    return None


def _playoff_advance(rt: Runtime, stage_id: int, *, attempt: int) -> float | None:
    """A duel match's result changed: move the bracket on; once the final is decided, try to close."""
    from orchestrator.adapters.tables import Stage, StageKind, StageStatus
    from orchestrator.services.playoff.read import bracket_view
    from orchestrator.services.playoff.sync import advance_stage_bracket

    with rt.uow_factory() as uow:
        stage = uow.locks.lock(Stage, stage_id)  # one bracket writer at a time (the stage, then duels)
        if stage.kind != StageKind.KNOCKOUT.value or stage.status != StageStatus.RUNNING.value:
            return None
        if not uow.playoff.duels_of_stage(stage_id):
            return None
        advance_stage_bracket(uow, stage_id=stage_id, actor=ACTOR)
        if bracket_view(uow, stage_id=stage_id).champions:
            enqueue(uow, ADVANCE_STAGE, stage_id)
    return None


def _playoff_tick(rt: Runtime, *, attempt: int, now: datetime | None = None) -> float | None:
    from orchestrator.services.scheduler import run_playoff_tick

    run_playoff_tick(rt.uow_factory, now=now or utcnow(), settings=rt.settings, actor=ACTOR)
    return None


def periodic_tick(now: datetime | None = None) -> list[str]:
    """Run every periodic job once, in this process, in beat's order; returns the names that failed.

    For eager deployments (the web app's scheduler thread, ``olympiad demo``): call it in a loop, e.g.
    every ``Settings.eager_scheduler_s``. The jobs these queue (create games, pull a round, advance a
    stage...) go through ``send``: in process in eager mode, to the broker in Celery mode.
    """
    current = runtime()
    failed: list[str] = []
    for name in PERIODIC:
        try:
            JOBS[name](current, attempt=1, now=now)
        except Exception:  # one job failing must not stop the others; the next tick tries again
            log.exception("periodic job %s failed", name)
            failed.append(name)
    return failed


JOBS: dict[str, Callable[..., float | None]] = {
    OPEN_DUE: _open_due,
    CREATE_GAMES: _create_games,
    PULL_ROUND: _pull_round,
    RECONCILE: _reconcile,
    RECOMPUTE_POOL: _recompute_pool,
    ADVANCE_STAGE: _advance_stage,
    PLAYOFF_ADVANCE: _playoff_advance,
    PLAYOFF_TICK: _playoff_tick,
}
