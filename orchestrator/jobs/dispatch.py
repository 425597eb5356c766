"""Sending jobs: to Celery, or run in this process in eager mode (docs/architecture.md, habits 4 and 5;
docs/workers.md).

Services queue jobs with ``orchestrator.services.queue.enqueue``; importing this module makes ``send`` the
queue's sender (``orchestrator/jobs/__init__.py`` imports it, so every process that uses the job runtime
has one). Once committed, ``send`` hands a job to Celery when ``Settings.task_mode == "celery"`` (the worker
runs ``workers/tasks.py``, which calls ``bodies.run_job``) or runs the same job in this process when
``task_mode == "eager"`` (the laptop default; a retry then waits in a daemon timer thread).

Eager mode has a queue per thread, first in first out, as a broker would: the jobs one transaction queues
are all put on it before any of them runs, and a job already waiting there is not queued twice (it has not
started, so it will read everything committed before it runs). A pull of each of nine rounds then
recomputes each pool once, after the nine pulls, instead of nine times. Celery mode gets the same rule from
marks in Redis (adapters/job_marks.py): ``send`` skips a job whose copy is queued and not started yet, and
the worker clears the mark when the job starts (``job_started``). Beat's periodic jobs are also marked
running from their start to their end (``job_ended``), and beat sends one only when it is neither queued
nor running (orchestrator/jobs/beat.py).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from orchestrator.adapters.job_marks import job_marks
from orchestrator.db import dispose_engines
from orchestrator.heap import freeze_heap
from orchestrator.jobs import bodies
from orchestrator.jobs.outages import connection_lost, describe
from orchestrator.jobs.runtime import runtime
from orchestrator.services.definitions import warm_definitions
from orchestrator.services.queue import Job, check_job, queue_of, set_sender

log = logging.getLogger(__name__)

JOB_MARK_TTL_S = 120  # Celery mode: how long a queued job's mark keeps copies of it from being sent
# How long a periodic job's running mark holds beat's next copy back at most: longer than such a job takes
# (a scan computes one stage at most), short enough that a mark left by a worker killed mid-job, which no
# new worker cleared, costs a few minutes of that job only.
RUNNING_MARK_TTL_S = 300


def _send_all(jobs: Sequence[Job]) -> None:
    """A committed transaction's jobs: in eager mode all are queued before the first one runs."""
    with _eager_batch():
        for name, ids, countdown in jobs:
            try:
                send(name, *ids, countdown=countdown)
            except Exception as error:  # one failed send must not drop the others; reconciliation catches up
                if connection_lost(error):  # the broker restarts: beat and reconciliation send it again
                    log.warning("sending task %s%s failed: %s", name, ids, describe(error))
                else:
                    log.exception("sending task %s%s failed", name, ids)


def send(name: str, *ids: int, countdown: float | None = None) -> None:
    """Send a job now (outside a unit of work): to Celery, or run it in process in eager mode."""
    check_job(name, ids)
    if runtime().settings.task_mode == "celery":
        _to_broker(name, ids, countdown, periodic=False)
        return
    if countdown:
        _later(countdown, name, ids, attempt=1)
        return
    with _eager_batch() as queue:
        queue.push(name, ids)


def send_periodic(name: str) -> bool:
    """Beat's send of periodic job ``name`` (``bodies.PERIODIC``), for a process playing beat's role (the
    demo's beat tick): in Celery mode only when no copy of it is queued or running, the rule of beat's own
    scheduler (jobs/beat.py, ``JobMarks.claim_periodic``); in eager mode ``send``. Whether it was sent."""
    check_job(name, ())
    if runtime().settings.task_mode == "celery":
        return _to_broker(name, (), None, periodic=True)
    send(name)
    return True


def _to_broker(name: str, ids: tuple[int, ...], countdown: float | None, *, periodic: bool) -> bool:
    """Hand the job to Celery, on its queue (``queue_of``), unless its mark says a copy waits (or, for
    beat's ``periodic`` send, waits or runs); whether it was sent."""
    from workers.app import celery_app  # Celery is loaded only in celery mode

    settings = runtime().settings
    marks = job_marks(settings.redis_url, settings.worker_queue)
    # Marked until a worker starts it, at most JOB_MARK_TTL_S after it is due (a purged queue or a lost
    # message then blocks nothing for long; a copy sent after that only repeats idempotent work).
    ttl_s = int((countdown or 0) + JOB_MARK_TTL_S)
    later = bool(countdown)  # a delayed copy has a mark of its own (JobMarks.claim)
    if periodic:
        claimed = marks.claim_periodic(name, ids, ttl_s)
    else:
        claimed = marks.claim(name, ids, ttl_s, later=later)
    if not claimed:
        return False  # a copy waits (or runs): it reads everything committed by the time it runs
    try:
        queue = queue_of(name, settings.worker_queue)
        celery_app.send_task(name, args=list(ids), countdown=countdown, queue=queue)
    except Exception:
        marks.release(name, ids, later=later)
        raise
    return True


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


def _run_eager(name: str, ids: tuple[int, ...], *, attempt: int) -> None:
    current = runtime()
    current.sent.append((name, ids))
    try:
        delay = bodies.run_job(name, *ids, attempt=attempt)
    except Exception:
        log.exception("task %s%s failed; the periodic reconciliation will try again", name, ids)
        return
    if delay is not None:
        _later(delay, name, ids, attempt=attempt + 1)


def _later(delay: float, name: str, ids: tuple[int, ...], *, attempt: int) -> None:
    timer = threading.Timer(delay, _run_eager, args=(name, ids), kwargs={"attempt": attempt})
    timer.daemon = True
    timer.start()


def warm_up(*, definitions: bool = True) -> None:
    """Make this process ready for its first job: one database connection open, and with ``definitions``
    the event files of the events in play read (``definitions.warm_definitions``).

    Called in each worker process (after the fork, so no connection is shared with the parent); the job
    modules are already imported, before the fork (this module imports them all). A prefork child reads no
    event file here: its parent did before forking it (``warm_up_before_fork``). A warm-up that fails is
    only logged: the first job then meets the same problem and reports it.
    """
    try:
        with runtime().uow_factory() as uow:
            uow.read.ping()
    except Exception:
        log.warning("worker warm-up: the database did not answer", exc_info=True)
        return
    if definitions:
        _warm_definitions()
        freeze_heap()  # a thread or solo pool's one process, ready: what it holds now stays


def warm_up_before_fork() -> None:
    """In a prefork worker's main process, before it forks its children: read the event files of the
    events in play once (a child starts with its parent's memory, so every child has them parsed), then
    close this process's database connections, which no child may share.

    Not in each child: Celery kills a child that takes longer than ``worker_proc_alive_timeout`` (4 s) to
    report after its fork, and a few 350-team files on a loaded machine could take that long. The main
    process has no such limit; it only starts later.
    """
    try:
        _warm_definitions()
    finally:
        dispose_engines()
    freeze_heap()  # last, so that the children start with all of it frozen


def _warm_definitions() -> None:
    try:
        with runtime().uow_factory() as uow:
            warm_definitions(uow)
    except Exception:
        log.warning("worker warm-up: the event files were not read", exc_info=True)


_unreleased: set[tuple[str, tuple[int, ...]]] = set()  # marks Redis did not remove (it was restarting)
_unended: set[tuple[str, tuple[int, ...]]] = set()  # running marks Redis did not remove
_unreleased_lock = threading.Lock()


def job_started(name: str, *ids: int) -> None:
    """A worker starts job ``name``: from now on, sending it again queues a new copy (Celery mode).

    A periodic job (beat's) is marked running first, until ``job_ended``: beat sends no copy of it
    meanwhile. A mark Redis could not remove (it was restarting) is removed by the next job started once it
    is back; left in place, it would hold back every copy of that job until it expires (``JOB_MARK_TTL_S``,
    ``RUNNING_MARK_TTL_S``).
    """
    settings = runtime().settings
    marks = job_marks(settings.redis_url, settings.worker_queue)
    if name in bodies.PERIODIC:
        marks.start_running(name, ids, RUNNING_MARK_TTL_S)  # before the queued mark goes: no gap for beat
    with _unreleased_lock:
        waiting = sorted(_unreleased | {(name, ids)})
        _unreleased.clear()
        unended = sorted(_unended)
        _unended.clear()
    failed = {job for job in waiting if not marks.release(*job)}
    still = {job for job in unended if not marks.end_running(*job)}
    if failed or still:
        with _unreleased_lock:
            _unreleased.update(failed)
            _unended.update(still)


def job_ended(name: str, *ids: int) -> None:
    """A worker ended job ``name`` (done, failed or to be retried): a periodic job is no longer running,
    so beat sends it again at its next period (Celery mode; other jobs have no running mark)."""
    if name not in bodies.PERIODIC:
        return
    settings = runtime().settings
    if not job_marks(settings.redis_url, settings.worker_queue).end_running(name, ids):
        with _unreleased_lock:
            _unended.add((name, ids))


def forget_running() -> None:
    """A worker is ready: the running marks of its queue belong to jobs no worker runs any more (one was
    killed mid-job), so beat may send those jobs again at once instead of after their marks expire. With
    several workers on one queue, a live one's job may get one more copy: the jobs are idempotent."""
    settings = runtime().settings
    cleared = job_marks(settings.redis_url, settings.worker_queue).forget_running()
    if cleared:
        log.info("worker start: %d running mark(s) of a previous worker cleared", cleared)


set_sender(_send_all)  # what services enqueue is sent from here once their transaction commits
